"""What a file is when it is not text (its magic number), and read errors that name it.

:func:`binary_kind` names a file by its leading bytes (:data:`BINARY_MAGIC`);
:func:`naming_read_errors` gives an :class:`OSError` of a read that names no file the
name of the file read.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["BINARY_MAGIC", "binary_kind", "naming_read_errors"]

_UTF16 = "UTF-16 encoded (convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8)"

def _compressed(kind, tool):
    return f"{kind} data (decompress it first, e.g. {tool}; of compressed text, gzip is read)"


#: leading bytes of files that are not UTF-8 text, and what each file is
BINARY_MAGIC = ((b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
                (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"),
                (b"%PDF-", "a PDF document"),
                (b"PK\x03\x04", "a zip archive (an .npz model, or an office document)"),
                (b"\x7fELF", "a program"),
                (b"BZh", _compressed("bzip2", "bunzip2")), (b"\xfd7zXZ\x00", _compressed("xz", "unxz")),
                (b"\x28\xb5\x2f\xfd", _compressed("zstd", "unzstd")),
                (b"\x04\x22\x4d\x18", _compressed("lz4", "unlz4")),
                (b"LZIP", _compressed("lzip", "lzip -d")),
                (b"\x1f\x9d", _compressed("compress (.Z)", "uncompress")),
                (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"), (b"Rar!\x1a\x07", "a RAR archive"),
                (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"),
                (b"SQLite format 3\x00", "an SQLite database"),
                (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
                 "an OLE file (an Office 97-2003 document, Thumbs.db)"),
                (b"RIFF", "a RIFF file (audio or image)"), (b"\x93NUMPY", "a NumPy array"),
                (b"\xff\xfe\x00\x00", _UTF16.replace("16", "32")),
                (b"\x00\x00\xfe\xff", _UTF16.replace("16", "32")),
                (b"\xff\xfe", _UTF16), (b"\xfe\xff", _UTF16))


def _wide_without_mark(head):
    """``head`` (leading bytes) as UTF-16 or UTF-32 text of ASCII characters without a
    byte-order mark (every other, or three of four, bytes NUL: Windows tools write such
    files), else ``None``; these were refused as "NUL byte at column 2: not a text file"."""
    full = head[:64].rstrip(b"\r\n")
    for width, name in ((4, "UTF-32"), (2, "UTF-16")):
        b = full[:len(full) // width * width]   # whole code units of this width
        if len(b) < 2 * width:
            continue
        lanes = [b[k::width] for k in range(width)]
        for order, low in (("LE", 0), ("BE", width - 1)):
            if (b"\x00" not in lanes[low]
                    and all(set(lanes[k]) == {0} for k in range(width) if k != low)):
                return (f"{name} encoded, without a byte-order mark (convert it to UTF-8, "
                        f"e.g. iconv -f {name}{order} -t UTF-8)")
    return _utf16_beyond_ascii(full)


def _utf16_beyond_ascii(b):
    """The refusal of :func:`_wide_without_mark` for UTF-16 text without a mark that holds
    characters beyond Latin-1 (Chinese: their high bytes are not NUL): at least three code
    units, NUL bytes in one lane only and at least two of them (the high bytes of spaces,
    ASCII, line ends), and, read in that order, only assigned characters that are not
    control characters, surrogates or private use (16-bit binary data reads as those within
    a few units); it was "binary data (it holds NUL bytes)". (A NUL byte in a short line of
    text, ``a<NUL>b c``, is not taken for it.)"""
    import unicodedata

    b = b[:len(b) // 2 * 2]
    for order, nul in (("LE", 1), ("BE", 0)):
        lane = b[nul::2]
        if b"\x00" in b[1 - nul::2] or lane.count(0) < 2 or len(lane) < 3:
            continue
        text = b.decode(f"utf-16-{order.lower()}", errors="replace")
        if not any((c < " " and c not in "\t\n\r") or c == "\ufffd"
                   or unicodedata.category(c) in ("Cn", "Co", "Cs") for c in text):
            return ("UTF-16 encoded, without a byte-order mark (convert it to UTF-8, e.g. "
                    f"iconv -f UTF-16{order} -t UTF-8)")
    return None


def binary_kind(head):
    """What the leading bytes ``head`` of a file show it is, if not text (else ``None``):
    a known magic number (:data:`BINARY_MAGIC`), UTF-16 or UTF-32 without a byte-order
    mark, or NUL bytes."""
    for magic, what in BINARY_MAGIC:
        if head.startswith(magic):
            return what
    if b"\x00" in head and (wide := _wide_without_mark(head)):
        return wide
    if b"\x00" in head:
        return "binary data (it holds NUL bytes)"
    return None


def _binary_first_line(raw):
    """What a file is, from its first line ``raw`` (with its line end), when that starts
    with a magic number (cut at its first newline: the PNG one holds two) and is not clean
    text (undecodable, or holding control characters), so that a text line that happens to
    begin with ``RIFF`` is still read.  NUL bytes alone are left to :func:`read_lines`,
    which names their line and column."""
    kind = next((what for magic, what in BINARY_MAGIC
                 if raw.startswith(magic.split(b"\n")[0])), None)
    if kind is None:
        return _wide_without_mark(raw) if b"\x00" in raw else None
    try:
        text = raw.rstrip(b"\r\n").decode("utf-8")
    except UnicodeDecodeError:
        return kind
    return kind if any(c < " " and c != "\t" for c in text) else None


def _name_read_error(exc, name):
    """Raise an :class:`OSError` of a read that names no file (``EIO`` of a failing disk or
    of ``/proc/self/mem``) again, naming ``name``: it was taken for a failed write to
    standard output ("standard output: input/output error")."""
    if exc.filename is None and exc.errno is not None and not isinstance(exc, BrokenPipeError):
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(name)) from exc


@contextlib.contextmanager
def naming_read_errors(name):
    """Within the block, an :class:`OSError` that names no file names ``name``
    (:func:`_name_read_error`)."""
    try:
        yield
    except OSError as exc:
        _name_read_error(exc, name)
        raise


#: the suffixes of compressed files of other tools than gzip, which no writer makes
_OTHER_COMPRESSED = (".bz2", ".xz", ".lzma", ".zst", ".lz4", ".lz", ".z", ".7z", ".rar", ".tgz")


def compressed_name(lower, no_gzip):
    """Why an output name (lower-cased) is refused for its compression suffix, or None:
    ``.gz`` after a format compressed already (``model.npz.gz``; ``no_gzip`` lists them),
    or the suffix of another compressor (``out.txt.bz2``, ``.xz``, ``.zst``: the text was
    written uncompressed under that name, which bzcat, xzcat, zstd refuse)."""
    import os

    if lower.endswith(".gz") and lower[:-3].endswith(no_gzip):
        inner = os.path.splitext(lower[:-3])[1]
        return f"a {inner} file is compressed already and is not gzipped; drop the .gz"
    if lower.endswith(_OTHER_COMPRESSED):
        suffix = os.path.splitext(lower)[1]
        return (f"outputs are compressed with gzip only (a name ending in .gz), and a {suffix} "
                f"file would hold uncompressed text: name it .gz, or compress it afterwards")
    return None


def unexpanded_hint(name):
    """For a path that does not exist: a hint when it is something the shell or a browser
    meant (a URL, a ``~`` or ``$VAR`` the shell did not expand inside quotes, a pattern no
    file matched), else ``""``. "no such file" alone left the user to guess."""
    import re

    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*://", name):
        return " (a URL: structpred reads local files; download it first)"
    hint = shell_expansion_hint(name)
    if hint:
        return hint
    if re.search(r"[*?]|\[[^]]*\]", name):
        import glob

        n = len(glob.glob(name))
        return (f" (a pattern that the shell did not expand inside quotes: it matches {n} "
                "files; write it without quotes)" if n else " (a pattern: no file matches it)")
    return ""


def shell_expansion_hint(name):
    """The part of :func:`unexpanded_hint` that also holds for an output: a ``~`` or
    ``$VAR`` the shell did not expand inside quotes, else ``""``."""
    import re

    if name.startswith("~"):
        return (" (the shell did not expand '~' inside quotes: write the path without them, "
                "or with $HOME)")
    if re.search(r"\$(\w+|\{\w+\})", name):
        return " (a variable the shell did not expand inside single quotes)"
    return ""


def blank_tail_hint(extra):
    """The hint of a refusal of files whose line counts differ, when the surplus lines of
    the longer one (``extra``: their texts) are all blank: an editor's empty lines at the
    end, which count as lines (sentences without words or links)."""
    extra = list(extra)
    if not extra or any(t.strip() for t in extra):
        return ""
    n = len(extra)
    return (f" (its last {'line is' if n == 1 else f'{n} lines are'} blank: empty lines at the "
            "end? remove them)")


def gz_name(path):
    """Whether ``path`` names a gzip file: it ends in ``.gz`` in any case (``out.txt.GZ``
    was written as plain text, while ``.BZ2`` was refused as a name of another
    compressor)."""
    return os.fspath(path).lower().endswith(".gz")
