"""The encoding of the text inputs: UTF-8, or what a command's ``--encoding`` names.

:func:`read_lines` decodes with :func:`input_encoding`'s encoding when it is given none;
:func:`check_encoding` admits the codecs that write line ends and ASCII as single bytes, the
ones a file split on the byte ``\n`` can be read in.
"""

from __future__ import annotations

import contextlib
import functools

__all__ = ["check_encoding", "input_encoding", "given_encoding", "utf8_misread_reason"]

#: the encoding :func:`read_lines` decodes with when none is given (``--encoding`` of a
#: command sets it for the command's inputs through :func:`input_encoding`)
_ENCODING = {"name": "utf-8", "given": None}


#: codecs that decode text in a file, not a file: what each is for
_NOT_FILE_ENCODINGS = {"idna": "domain names", "punycode": "domain names",
                       "raw-unicode-escape": "string escapes",
                       "unicode-escape": "string escapes"}


def check_encoding(name):
    """``name`` as Python's codec name, or ``ValueError``: an unknown codec, or one that does
    not write ``\n`` and ASCII letters as themselves (UTF-16, UTF-32: lines are split on the
    byte ``\n``, so they would be misread; convert them with ``iconv``)."""
    import codecs

    try:
        codec = codecs.lookup(str(name))
    except LookupError:
        raise ValueError(f"unknown encoding {name!r} (e.g. utf-8, latin-1, cp1252, "
                         "iso-8859-2, gb18030)") from None
    if codec.name == "utf-8-sig":   # a byte-order mark at the start is dropped anyway
        return "utf-8"
    if not getattr(codec, "_is_text_encoding", True) or codec.name in _NOT_FILE_ENCODINGS:
        # rot13, base64, hex: Python's transforms (they were "does not write line ends"
        # with an iconv command of a codec iconv does not know); idna and the escapes
        # decode parts of a text (raw_unicode_escape turned the letters '\u00e9' into é)
        what = _NOT_FILE_ENCODINGS.get(codec.name, "transforming bytes or text")
        raise ValueError(f"{name!r} is a codec of Python's for {what}, not the encoding of "
                         "a file (e.g. utf-8, latin-1, cp1252, gb18030)")
    try:
        compatible = "\n a\t".encode(codec.name) == b"\n a\t"
    except (UnicodeError, LookupError):
        compatible = False
    if not compatible:
        raise ValueError(f"encoding {name!r} does not write line ends and ASCII as single "
                         f"bytes: convert the file to UTF-8 first (iconv -f {name} -t utf-8)")
    return codec.name


@contextlib.contextmanager
def input_encoding(name):
    """Within the block, :func:`read_lines` decodes files in ``name`` unless told otherwise
    (the command line's ``--encoding``); ``None`` keeps UTF-8."""
    old = dict(_ENCODING)
    _ENCODING["name"] = "utf-8" if name is None else check_encoding(name)
    _ENCODING["given"] = None if name is None else _ENCODING["name"]
    try:
        yield
    finally:
        _ENCODING.update(old)


def given_encoding():
    """The encoding :func:`input_encoding` was given (None: UTF-8 by default), for readers
    that decode whole files themselves."""
    return _ENCODING["given"]


def _other_encoding_hint(byte):
    """The encoding a byte that is not UTF-8 suggests: Windows-1252 for 0x80-0x9F (its curly
    quotes and dashes, control characters in Latin-1: that hint led to a second refusal),
    Latin-1 for the others."""
    if 0x80 <= byte <= 0x9F:
        return (" (Windows-1252, as Windows programs write curly quotes and dashes? give "
                "--encoding cp1252, or convert it: iconv -f cp1252 -t utf-8)")
    return (" (Latin-1, as in the CoNLL-2002 files? give --encoding latin-1, or convert it: "
            "iconv -f latin1 -t utf-8)")


@functools.lru_cache(maxsize=None)
def _single_byte(encoding):
    """True for a codec of one character per byte (Latin-1, cp1252, the ISO 8859 family)."""
    return (not encoding.lower().replace("_", "-").startswith("utf")   # utf-8-sig is UTF-8
            and len(bytes(range(256)).decode(encoding, errors="replace")) == 256)


def utf8_read_as(raw, encoding):
    """For a line ``raw`` of a file read in the single-byte ``encoding`` (``--encoding
    latin-1``): a reason to refuse it when it holds UTF-8 text beyond ASCII (``café``
    read as ``cafÃ©``, silently, or refused for a no-break space that ``à`` became), else
    None. Text of a single-byte encoding is valid UTF-8 only by a rare chance (``Ã©``)."""
    if raw.isascii() or not _single_byte(encoding):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    word = next(w for w in text.split() if not w.isascii())[:20]
    return (f"this line is UTF-8 text ({word!r} reads as "
            f"{word.encode('utf-8').decode(encoding, errors='replace')!r} in {encoding}): "
            "drop --encoding: the default reads UTF-8")


def _impossible_word(word):
    """True for a word that no text holds: one with a control character (C1: U+0080 to
    U+009F), a code point below U+0800 that no version of Unicode has assigned yet, or a
    combining mark that starts it: what some bytes of GB18030, Big5 or EUC-KR that are
    valid UTF-8 by chance read as (``同`` and ``之一`` in GB18030 are, in UTF-8, a combining
    mark alone, U+036C, and a Hebrew accent before a Cyrillic letter). Other such words
    (``去`` in GB18030 is ``ȥ``) are letters, and still refused: a word or two of them is
    not told from UTF-8. Mixed scripts and odd case are not taken as a sign: real text has
    them (``Москвa`` with a Latin ``a``), and reading it in the wrong encoding is silent."""
    import unicodedata

    for k, ch in enumerate(word):
        cat = unicodedata.category(ch)
        if (cat == "Cc" or (cat == "Cn" and ch < "\u0800")
                or (k == 0 and cat[0] == "M")):
            return True
    return False


def unlikely_utf8(text):
    """True when most of the words beyond ASCII of ``text`` (bytes that are valid UTF-8,
    read as UTF-8) are words that no text holds (:func:`_impossible_word`): the bytes are
    text of another encoding, valid UTF-8 by chance."""
    words = [w for w in text.split() if not w.isascii()]
    return 2 * sum(map(_impossible_word, words)) > len(words)


def utf8_misread_reason(raw, encoding):
    """A reason to refuse the bytes ``raw`` (a file's, or its first line's beyond ASCII)
    read in ``encoding`` when they are UTF-8 text beyond ASCII, which ``encoding`` would
    read as other characters (``你好`` as ``浣犲ソ`` in GB18030), else None (also for bytes
    whose UTF-8 reading is mostly words that no text holds: :func:`unlikely_utf8`)."""
    if encoding == "utf-8" or raw.isascii():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if unlikely_utf8(text):
        return None
    word = next((w for w in text.split() if not w.isascii()), text.strip())[:20]
    return (f"this file looks like UTF-8 text, not {encoding} ({word!r} reads as "
            f"{word.encode('utf-8').decode(encoding, errors='replace')!r} in {encoding}): "
            "give --encoding utf-8 or none (UTF-8 is the default); if it is "
            f"{encoding} text, convert it: iconv -f {encoding} -t utf-8")


class LineRefused(Exception):
    """A line :func:`utf8_held_back` refuses: ``(lineno, reason)``, which
    :func:`~structpred.io.read_lines` raises as a :class:`~structpred.FormatError` naming
    its file."""


#: the bytes of text, from the first line beyond ASCII, that :func:`utf8_held_back` holds
#: back to tell UTF-8 from text of a multi-byte encoding: a line or a few lines of Chinese
#: or Japanese in GB18030 or Shift JIS are valid UTF-8 only by chance, rarer with each line
UTF8_EVIDENCE = 1 << 16


def multi_byte(encoding):
    """True for an encoding other than UTF-8 that writes characters of several bytes
    (GB18030, Shift JIS, EUC-KR, Big5): text in UTF-8 decodes in most of them without an
    error, into other characters."""
    return encoding != "utf-8" and not _single_byte(encoding)


def utf8_held_back(lines, encoding):
    """The ``(lineno, raw)`` of ``lines`` (line ends removed), for a :func:`multi_byte`
    ``encoding`` (``--encoding gb18030``): ASCII lines pass at once; from the first line
    beyond ASCII, lines are held back until one is not UTF-8 (text of the encoding: they
    all pass, and every later line at once) or, when all are UTF-8 at the end of the input
    or past :data:`UTF8_EVIDENCE` bytes, :class:`LineRefused` names the first: the file is
    UTF-8, and would be read as other characters, silently (``你好`` as ``浣犲ソ``); unless
    their UTF-8 reading is mostly words no text holds (:func:`unlikely_utf8`: a word or two
    of the encoding, valid UTF-8 by chance).
    Standard input still streams: what is held back is bounded."""
    held, size, utf8 = [], 0, True
    lines = iter(lines)
    for lineno, raw in lines:
        if not held and raw.isascii():
            yield lineno, raw
            continue
        held.append((lineno, raw))
        size += len(raw)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            utf8 = False              # text of the encoding
            break
        if size >= UTF8_EVIDENCE:
            break
    if utf8 and held:   # valid UTF-8 by chance: words of no text (controls, unassigned)
        utf8 = not unlikely_utf8(b"\n".join(raw for _, raw in held).decode("utf-8"))
    if held and utf8:
        raise LineRefused(held[0][0], utf8_misread_reason(held[0][1], encoding))
    yield from held
    yield from lines
