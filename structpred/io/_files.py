"""Small I/O helpers shared by the word-alignment, segmentation and model code.

* :func:`open_text` opens plain or gzip-compressed files as UTF-8 text.
* :func:`read_lines` iterates over the lines of such a file, decoding each line
  separately, so that a bad byte is reported with its file name and line number
  as a :class:`FormatError`.
* :func:`atomic_write` writes a file atomically (temporary file in the same
  directory, then :func:`os.replace`): readers see either the old file or the
  complete new one, never a half-written file, even if the writer crashes.
* :func:`open_output` chooses between ``stdout`` (``"-"``), an already open
  stream and :func:`atomic_write`.
* :func:`read_npz` reads every array of an ``.npz`` file without ever unpickling,
  turning every way a file can be wrong (empty, a folder, truncated, not an
  archive) into one :class:`FormatError`.
* :func:`file_fingerprint` identifies a file's content cheaply (size, hash of the
  first and last MB, line count) for keying caches.

A file named ``*.gz`` must hold gzip data; a file that does not end in ``.gz`` may
still be gzipped (detected by its magic bytes).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import io
import os
import sys
import zlib

from ._encoding import (_ENCODING, LineRefused, bad_bytes_reason, check_encoding,
                        given_encoding, implausible_utf8_reason,
                        input_encoding, utf8_held_back, utf8_misread_reason)
from ._magic import (BINARY_MAGIC, _binary_first_line, _name_read_error,  # noqa: F401
                     binary_kind, blank_tail_hint, gz_name,
                     naming_read_errors, unexpanded_hint)

__all__ = ["MAX_LINE_BYTES", "FormatError", "missing_reason", "odd_entry_reason", "open_text",
           "read_lines", "gz_name", "blank_tail_hint", "input_encoding", "check_encoding",
           "given_encoding", "utf8_misread_reason", "read_npz", "refuse_stdin_model",
           "file_fingerprint", "binary_kind", "naming_read_errors"]

_GZIP_MAGIC = b"\x1f\x8b"


class FormatError(ValueError):
    """Malformed input file, located by file name and (1-based) line number.

    Parameters
    ----------
    path : str or path-like
        The offending file.
    line : int or None
        1-based line number, or ``None`` when the problem concerns the whole file.
    reason : str
        What is wrong, e.g. ``"link 3-9 out of range: target sentence has 8 words"``.

    Notes
    -----
    ``str(error)`` is ``"PATH:LINE: REASON"`` (``"PATH: REASON"`` without a
    line), the format used by compilers, so editors can jump to the location.
    """

    def __init__(self, path, line, reason):
        self.path = os.fspath(path) if not isinstance(path, str) else path
        self.line = line
        self.reason = reason
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {reason}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.reason))


def _is_stdio(path):
    return isinstance(path, str) and path == "-"


def missing_reason(path, what="file"):
    """Why ``path`` cannot be opened as an input, or ``None`` when it exists.

    Tells apart a symbolic link to nothing, a loop of symbolic links, a folder on the
    path that cannot be searched (no permission) and a plain missing ``what`` ("file",
    "file or folder"), so that every reader names the real cause in one line."""
    name = os.fspath(path)
    try:
        os.stat(name)
        return None
    except OSError as exc:
        code = exc.errno
    if code == errno.ELOOP:
        return "a loop of symbolic links"
    if code == errno.EACCES:
        return "permission denied on a folder of the path"
    if code == errno.ENAMETOOLONG:
        return "the path is too long for the file system"
    if code == errno.ENOTDIR:
        return f"no such {what} (a part of the path is a file, not a folder)"
    if os.path.islink(name):
        return f"a symbolic link to a missing {what}"
    if name == "-":   # the options that read standard input never get here
        return f"no such {what} (this option does not read standard input: '-' is a name here)"
    return f"no such {what}{unexpanded_hint(name)}"   # an URL, '~', '$HOME', '*.png'


def odd_entry_reason(path, note=", not a file"):
    """Why the entry ``path`` of a folder being read is neither a file nor a folder (a
    link to nothing, a loop of links, a FIFO, a socket, a device; ``note`` follows the
    last three), else ``None``: the folder readers (``topics``' documents, ``segment``'s
    images) refuse it by name rather than pass it over, a document or an image lost."""
    p = os.fspath(path)
    if os.path.isfile(p) or os.path.isdir(p):
        return None
    reason = missing_reason(p, "file")
    if reason is None:
        import stat

        mode = os.stat(p).st_mode
        reason = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket"
                  if stat.S_ISSOCK(mode) else "a device") + note
    return reason


def _fspath(path):
    """``os.fspath(path)``; an open file, a number or ``None`` given as the path is a
    ``TypeError`` saying what is wanted (it was Python's "expected str, bytes or
    os.PathLike object, not TextIOWrapper")."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        what = "an open file" if hasattr(path, "read") else f"{type(path).__name__} {path!r:.40}"
        raise TypeError(f"expected a file's path (str or pathlib.Path; '-' for standard "
                        f"input), got {what}")
    return os.fspath(path)


def _check_readable_file(path):
    """A folder, or a missing file, as a clear error before opening."""
    name = _fspath(path)
    if os.path.isdir(name):
        raise FormatError(name, None, "is a folder, not a file")
    reason = missing_reason(name)
    if reason is not None:
        if reason == "no such file":
            raise FileNotFoundError(errno.ENOENT, "no such file", name)
        raise FormatError(name, None, reason)


class _Prefixed(io.RawIOBase):
    """The bytes ``head`` already read from the stream ``rest``, then the rest of it."""

    def __init__(self, head, rest):
        super().__init__()
        self._head, self._rest = head, rest

    def readable(self):
        return True

    def readinto(self, buf):
        if self._head:
            n = min(len(buf), len(self._head))
            buf[:n], self._head = self._head[:n], self._head[n:]
            return n
        return self._rest.readinto(buf)

    def close(self):
        self._rest.close()
        super().close()


def _open_file_binary(path):
    """Open a file for binary reading, decompressing gzip data (detected by its magic bytes).

    A non-empty file whose name ends in ``.gz`` but that is not gzip data is a
    :class:`FormatError` (a renamed or half-written file would otherwise be read as text).
    """
    _check_readable_file(path)
    # opened once, not a second time after a look at the magic bytes: a FIFO (a shell's
    # <(...)) can be read only once, and was read as empty after the look
    fh = open(path, "rb")
    with naming_read_errors(path):
        head = fh.read(2)
    if fh.seekable():
        fh.seek(0)
    else:
        fh = io.BufferedReader(_Prefixed(head, fh))
    if head == _GZIP_MAGIC:
        gz = gzip.GzipFile(filename=os.fspath(path), mode="rb", fileobj=fh)
        gz.myfileobj = fh   # closed with it (as gzip.open does)
        return gz
    name = os.fspath(path)
    if gz_name(name) and head:
        fh.close()
        raise FormatError(name, None, "not gzip data, although the name ends in .gz")
    return fh


#: the line said on standard error before standard input is first read from a terminal
#: (:func:`terminal_stdin_notice`; ``None``: nothing is said, as in the Python API)
_TERMINAL_NOTICE = {"line": None}


@contextlib.contextmanager
def terminal_stdin_notice(line):
    """Inside, the first read of standard input (``"-"``) from a terminal says ``line`` on
    standard error first, once (the command line's: a command given no input file waited
    silently for the user to type); piped or redirected input is read without a word."""
    before = _TERMINAL_NOTICE["line"]
    _TERMINAL_NOTICE["line"] = line
    try:
        yield
    finally:
        _TERMINAL_NOTICE["line"] = before


def _say_terminal_stdin(stream):
    """Say the line of :func:`terminal_stdin_notice` (once) when ``stream`` is a terminal."""
    line = _TERMINAL_NOTICE["line"]
    isatty = getattr(stream, "isatty", None)
    if line is None or not isatty:
        return
    with contextlib.suppress(OSError, ValueError):
        if isatty():
            _TERMINAL_NOTICE["line"] = None
            if sys.stderr is not None:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()


def _stdin_buffer():
    """``sys.stdin.buffer``; a :class:`FormatError` when standard input is closed (``<&-``:
    ``sys.stdin`` is ``None``, an ``AttributeError`` before).  From a terminal, the line of
    :func:`terminal_stdin_notice` is said first."""
    if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
        raise FormatError("-", None, "standard input is closed")
    _say_terminal_stdin(sys.stdin.buffer)
    return sys.stdin.buffer


def _open_binary(path):
    """Like :func:`_open_file_binary`; ``"-"`` gives standard input (left open on exit),
    gzip data (its magic, as the buffer shows it: ``cat a.gz |``) decompressed."""
    if _is_stdio(path):
        buf = _stdin_buffer()
        gz = hasattr(buf, "peek") and buf.peek(2)[:2] == _GZIP_MAGIC
        return contextlib.nullcontext(gzip.GzipFile("-", "rb", fileobj=buf) if gz else buf)
    return _open_file_binary(path)


def open_text(path, errors="strict"):
    """Open a plain or gzip-compressed file for reading as UTF-8 text.

    Parameters
    ----------
    path : str or path-like
        File to read; gzip compression is detected from the file's magic bytes
        (not only from a ``.gz`` suffix).  ``"-"`` reads standard input.
    errors : str
        Decoding error handler passed to :class:`io.TextIOWrapper`.

    Returns
    -------
    io.TextIOBase
        A text stream; use it as a context manager.  Closing a stream on
        standard input leaves standard input open.
    """
    if _is_stdio(path):
        return _StdinText(errors)
    return io.TextIOWrapper(_open_file_binary(path), encoding="utf-8", errors=errors)


class _StdinText(io.TextIOWrapper):
    """UTF-8 text view of ``sys.stdin.buffer`` whose ``close`` does not close stdin."""

    def __init__(self, errors):
        super().__init__(_stdin_buffer(), encoding="utf-8", errors=errors)

    def close(self):  # detach instead of closing the process's stdin
        if not self.closed:
            with contextlib.suppress(ValueError):
                self.detach()

    @property
    def closed(self):
        try:
            return super().closed
        except ValueError:  # detached
            return True


_BOM = "\ufeff".encode("utf-8")


def _refuse_control(name, lineno, text):
    """A NUL byte (binary data) or a carriage return inside a line (CR-only line ends,
    which would make the whole file one line)."""
    if "\x00" in text:
        raise FormatError(name, lineno, f"NUL byte at column {text.index(chr(0)) + 1}: not a "
                          "text file")
    raise FormatError(name, lineno, f"carriage return (CR) at column {text.index(chr(13)) + 1}"
                      " inside a line: CR-only (old Mac) line ends? convert them to LF "
                      "(e.g. tr '\\r' '\\n')")


#: the bytes of a line read at once: a longer line is checked for NUL bytes as it is read
_CHUNK = 1 << 20

#: the most bytes one line of a text input may hold (line end left out), unless its reader
#: says otherwise (topics' documents): far more than a sentence, or a token's line, has;
#: a longer line (a file without line ends) was read whole, decoded and split, for a
#: minute and gigabytes of memory, before a refusal that did not say why
MAX_LINE_BYTES = 1 << 20


def _raw_lines(fh, limit):
    """The lines of the binary stream ``fh`` with their line ends, as iterating it gives
    them, except that a line longer than :data:`_CHUNK` holding a NUL byte ends after it:
    a stream without line ends (``< /dev/zero``, binary data) was read whole before the
    NUL was refused, until the memory ran out; a line longer than ``limit`` bytes (or
    ``limit(first bytes of the line)``) is a :class:`LineRefused` once that many are read."""
    while raw := fh.readline(_CHUNK):
        parts, size = [raw], len(raw)
        limit_here = limit(raw) if callable(limit) else limit
        while (len(parts[-1]) == _CHUNK and not parts[-1].endswith(b"\n")
               and b"\x00" not in parts[-1] and size <= limit_here + 2):
            parts.append(fh.readline(_CHUNK))
            size += len(parts[-1])
        if len(parts) > 1:
            raw = b"".join(parts)
            if b"\x00" in parts[-1] and not raw.endswith(b"\n"):
                raw = raw[:raw.index(b"\x00") + 1]
        if len(raw) - raw.endswith(b"\n") - raw.endswith(b"\r\n") > limit_here:
            raise LineRefused(None, f"a line longer than {limit_here:,} bytes, the most a line of "
                              "this input may hold: is it a file of this format, with its "
                              "line ends?")
        yield raw


def _stripped_lines(fh, name, utf8, where, limit):
    """``(lineno, raw)`` of :func:`_raw_lines`, line ends removed, a first line of binary
    data refused, a byte-order mark dropped; ``where[0]``: the number of the line read."""
    for lineno, raw in enumerate(_raw_lines(fh, limit), start=1):
        where[0] = lineno
        if lineno == 1 and (kind := _binary_first_line(raw)) is not None:
            raise FormatError(name, None, f"not UTF-8 text: {kind}")
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        elif raw.endswith(b"\r"):   # the last line, its CRLF cut after the CR
            raw = raw[:-1]
        if utf8 and raw.startswith(_BOM):   # line 1, or a file joined on (cat a b)
            raw = raw[len(_BOM):]
        yield lineno, raw


def read_lines(path, encoding=None, max_line=None):
    """Yield ``(line_number, text)`` for each line of a plain or gzipped text file, UTF-8
    unless ``encoding`` (or the command's ``--encoding``, :func:`input_encoding`) says
    otherwise.

    Lines are split on ``"\\n"`` only; the line terminator (``"\\n"`` or
    ``"\\r\\n"``, or ``"\\r"`` ending the last line) is removed.  Each line is decoded
    separately so that invalid UTF-8 is reported where it occurs.  A byte-order mark at the
    start of the file, or of a later line (files joined with ``cat``, each with its mark),
    is dropped; a NUL byte, or a carriage return left inside a line (a file with CR-only
    line ends would otherwise be read as one line), is a :class:`FormatError`.

    Parameters
    ----------
    path : str or path-like
        File to read (``"-"``: standard input).
    encoding : str, optional
        A codec that writes line ends and ASCII as single bytes (:func:`check_encoding`);
        default: UTF-8, or the encoding of :func:`input_encoding`.
    max_line : int or callable, optional
        The most bytes a line may hold (default :data:`MAX_LINE_BYTES`), or a function of
        the line's first bytes (up to a megabyte) that gives it; a longer line is refused
        as soon as that many are read.

    Yields
    ------
    (int, str)
        1-based line number and the decoded line without its terminator.

    Raises
    ------
    FormatError
        On bytes that are not valid in the encoding, a NUL byte, a carriage return inside a
        line, a line longer than ``max_line``, text in UTF-8 read in another encoding
        beyond ASCII (a file's outcome, not a line's: ``utf8_held_back``), Chinese in
        GB18030 valid as UTF-8 by chance (``implausible_utf8_reason``), or a corrupt or
        truncated gzip stream.
    """
    name = path if isinstance(path, str) else _fspath(path)
    guessed = encoding is None and _ENCODING["given"] is None   # UTF-8 by default
    encoding = _ENCODING["name"] if encoding is None else check_encoding(encoding)
    utf8 = encoding == "utf-8"
    where, checked = [0], 0 if guessed else 3
    with _open_binary(path) as fh:
        try:
            lines = _stripped_lines(fh, name, utf8, where,
                                    MAX_LINE_BYTES if max_line is None else max_line)
            if not utf8:    # gb18030, latin-1: UTF-8 text read silently as other letters
                lines = utf8_held_back(lines, encoding)
            for lineno, raw in lines:
                try:
                    text = raw.decode(encoding)
                except UnicodeDecodeError as exc:
                    raise FormatError(name, lineno, bad_bytes_reason(raw, exc, encoding)) from None
                if utf8 and checked < 3 and not raw.isascii():   # GB18030 valid UTF-8 by chance
                    checked += 1
                    if why := implausible_utf8_reason(raw):
                        raise FormatError(name, lineno, why)
                if "\x00" in text or "\r" in text:
                    _refuse_control(name, lineno, text)
                yield lineno, text
        except LineRefused as exc:
            raise FormatError(name, exc.args[0] or where[0] + 1, exc.args[1]) from None
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            if str(exc).startswith("Not a gzipped file"):   # Python's words, and a wrong cause
                raise FormatError(name, where[0] + 1, "bytes after the end of the gzip data "
                                  "that are not gzip data (something appended to it?)") from None
            raise FormatError(name, where[0] + 1, f"corrupt or truncated gzip data ({exc})") from None
        except OSError as exc:
            _name_read_error(exc, name)
            raise


def read_npz(path, what="an .npz file"):
    """Every array of an ``.npz`` file, as a dict, read with ``allow_pickle=False``.

    Parameters
    ----------
    path : str or path-like
    what : str
        What the file should be (``"a model"``), for the error messages.

    Raises
    ------
    FormatError
        The file is empty, a folder, not a zip archive, truncated or corrupt, or holds
        an object (pickled) array.
    FileNotFoundError
        It does not exist.
    """
    import numpy as np

    name = os.fspath(path)
    refuse_stdin_model(name, what)
    _check_readable_file(name)
    if not os.path.isfile(name):
        # a pipe (a process substitution '<(...)', a FIFO) or a device: the archive is read
        # with random access, and a pipe once (it was "corrupt or truncated ... not seekable")
        raise FormatError(name, None, f"a pipe or device, not a file: {what} is read with "
                          "random access; give the file itself")
    with open(name, "rb") as fh, naming_read_errors(name):
        head = fh.read(16)
    if not head:
        raise FormatError(name, None, f"empty file, not {what}")
    if head[:2] == _GZIP_MAGIC:
        raise FormatError(name, None, f"gzip data, not {what}")
    if head[:4] != b"PK\x03\x04":
        # a model compressed with zstd, xz, ... (only gzip was named)
        kind = binary_kind(head)
        if kind is not None and not kind.startswith("binary data"):
            raise FormatError(name, None, f"{kind}, not {what}")
        raise FormatError(name, None, f"not {what} (not an .npz archive)")
    try:
        with np.load(name, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise FormatError(name, None, f"not {what} (a single .npy array)")
            return {k: z[k] for k in z.files}
    except FormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - zipfile, zlib, numpy's header parser (even
        # tokenize errors), absurd shapes (MemoryError): all mean a damaged file
        import zipfile

        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if isinstance(exc, zipfile.BadZipFile):   # Python's "File is not a zip file"
            reason = "its zip archive is incomplete: was the file cut short?"
        elif "allow_pickle" in reason:   # an archive of another program: not damaged
            raise FormatError(name, None, f"not {what} (an .npz archive holding pickled "
                              "Python objects, which are never loaded)") from None
        raise FormatError(name, None, f"corrupt or truncated, not {what} ({reason})") from None


def refuse_stdin_model(name, what="a model"):
    """``-`` named as a model (``-m -``), which no file of that name stands for: refused as
    standard input, which an archive read with random access cannot come from (it was "no
    such file")."""
    if os.fspath(name) == "-" and not os.path.exists("-"):
        raise FormatError("-", None, f"standard input cannot hold {what}, which is read with "
                          "random access: give its file")


_FINGERPRINTS = {}


def file_fingerprint(path, block=1 << 20):
    """The identity of a file's content, for keying caches.

    Returns
    -------
    dict
        ``{"size": bytes on disk, "lines": lines of the (decompressed) text,
        "hash": hex BLAKE2b of the whole file as stored, "hashed": "whole file"}``, and
        ``"encoding"`` when the inputs are read in another encoding than UTF-8 (read
        in ``block``-byte pieces: the memory stays flat however large the file).  A change
        anywhere in the file changes the hash.  (Keys made before hashed only the first
        and last MB, and have no ``hashed`` entry.)  Results are remembered per (path,
        size, mtime, inode) within the process.

    Raises
    ------
    FormatError
        Corrupt or truncated gzip data, or a folder.
    """
    name = os.fspath(path)
    _check_readable_file(name)
    st = os.stat(name)
    memo = (os.path.realpath(name), st.st_size, st.st_mtime_ns, st.st_ino)
    if memo in _FINGERPRINTS:
        return _with_encoding(_FINGERPRINTS[memo])
    h = hashlib.blake2b(digest_size=16)
    with open(name, "rb") as fh:
        while chunk := fh.read(block):
            h.update(chunk)
    lines, last = 0, b"\n"
    with _open_file_binary(name) as fh:
        try:
            while chunk := fh.read(block):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise FormatError(name, None, f"corrupt or truncated gzip data ({exc})") from None
    if last != b"\n":
        lines += 1
    out = {"size": int(st.st_size), "lines": int(lines), "hash": h.hexdigest(),
           "hashed": "whole file"}
    _FINGERPRINTS[memo] = out
    return _with_encoding(out)


def _with_encoding(fingerprint):
    """A copy of ``fingerprint`` with the input encoding when it is not UTF-8: the same
    bytes read in another encoding are other text."""
    out = dict(fingerprint)
    if _ENCODING["name"] != "utf-8":
        out["encoding"] = _ENCODING["name"]
    return out


def progress_enabled(verbose=True):
    """Whether to draw progress bars: only when asked for (``verbose``) and standard error
    is a terminal, never into a log file or a pipe."""
    if not verbose:
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    drawn = bool(isatty and isatty())
    if drawn:   # a bar is drawn: the work has begun, the lines held come first
        from ._notes import release_notes

        release_notes()
    return drawn
