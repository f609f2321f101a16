"""The encoding of the text inputs: UTF-8, or what a command's ``--encoding`` names.

:func:`read_lines` decodes with :func:`input_encoding`'s encoding when it is given none;
:func:`check_encoding` admits the codecs that write line ends and ASCII as single bytes, the
ones a file split on the byte ``\n`` can be read in.
"""

from __future__ import annotations

import contextlib
import functools
import re

__all__ = ["check_encoding", "input_encoding", "given_encoding", "utf8_misread_reason",
           "bad_bytes_reason", "cjk_encoding_hint", "implausible_utf8_reason"]

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


def _impossible_word(word):
    """True for a word that no text holds: one with a control character (C1: U+0080 to
    U+009F), a code point below U+0800 that no version of Unicode has assigned yet, or a
    combining mark that starts it: what some bytes of GB18030, Big5 or EUC-KR that are
    valid UTF-8 by chance read as (``同`` and ``之一`` in GB18030 are, in UTF-8, a combining
    mark alone, U+036C, and a Hebrew accent before a Cyrillic letter). Other such words
    (``去`` in GB18030 is ``ȥ``) are letters: :func:`utf8_evidence` weighs them. Mixed scripts and odd case are not taken as a sign: real text has
    them (``Москвa`` with a Latin ``a``), and reading it in the wrong encoding is silent."""
    import unicodedata

    for k, ch in enumerate(word):
        cat = unicodedata.category(ch)
        if ((cat == "Cc" and not ch.isascii())   # C1 only: an ESC or a TAB is ASCII text
                or (cat == "Cn" and ch < "\u0800")
                or (k == 0 and cat[0] == "M")):
            return True
    return False


def unlikely_utf8(text):
    """True when most of the words beyond ASCII of ``text`` (bytes that are valid UTF-8,
    read as UTF-8) are words that no text holds (:func:`_impossible_word`): the bytes are
    text of another encoding, valid UTF-8 by chance."""
    words = [w for w in text.split() if not w.isascii()]
    return 2 * sum(map(_impossible_word, words)) > len(words)


def _script(ch):
    """The script of the letter ``ch`` as its Unicode name starts (``LATIN``, ``CYRILLIC``),
    Chinese, Japanese and their full-width forms as one (``CJK``); every letter below
    U+0250 is Latin (``º`` and ``ª`` of ``nº``, ``2ª`` are "MASCULINE/FEMININE ORDINAL
    INDICATOR", ``µ`` "MICRO SIGN"), and a modifier letter (``ʼ``, the Ukrainian
    apostrophe; ``ʻ``) belongs to none (``None``)."""
    import unicodedata

    if ch < "\u0250":
        return "LATIN"
    if unicodedata.category(ch) == "Lm":
        return None
    first = unicodedata.name(ch, "?").split(" ", 1)[0]
    return "CJK" if first in _CJK_NAMES else first


_CJK_NAMES = frozenset({"CJK", "HIRAGANA", "KATAKANA", "IDEOGRAPHIC", "FULLWIDTH",
                        "HALFWIDTH", "KANGXI", "BOPOMOFO"})


def _plausible_word(word):
    """True for a word beyond ASCII that text may hold: no :func:`_impossible_word`, its
    letters beyond ASCII of one script, and ASCII letters only beside Latin ones (``café``;
    ``ʯר`` is GB18030's ``石专`` read as UTF-8)."""
    import unicodedata

    if _impossible_word(word):
        return False
    scripts = {_script(c) for c in word
               if not c.isascii() and unicodedata.category(c)[0] == "L"} - {None}
    ascii_letters = any(c.isascii() and c.isalpha() for c in word)
    return len(scripts) <= 1 and (not ascii_letters or scripts <= {"LATIN"})


#: the letters of an alphabet (:data:`_ALPHABETS`) in a word that text may hold that make
#: bytes valid in a multi-byte encoding UTF-8 text (:func:`utf8_evidence`), as two
#: characters of three bytes each do (Chinese, kana, Hangul): GB18030 or Big5 read as
#: UTF-8 is a letter per character of two bytes (``毛`` is ``ë``, ``专专专`` Hebrew
#: ``ררר``, ``影业学些`` the Cyrillic ``ӰҵѧЩ``), rarely valid for long
UTF8_EVIDENCE_LETTERS = 4
#: the letters of the alphabets that count there: Greek, Cyrillic (Russian, Ukrainian...),
#: Hebrew, Arabic (a Latin word needs an ASCII letter beside them)
_ALPHABETS = (("\u0386", "\u03ce"), ("\u0400", "\u045f"), ("\u05d0", "\u05ea"),
              ("\u0620", "\u064a"))


def utf8_evidence(text, encoding):
    """True when ``text`` (bytes valid in UTF-8 and in ``encoding``, read as UTF-8) shows
    that the bytes are UTF-8 text rather than text of ``encoding``. A single-byte encoding
    is valid UTF-8 only by a rare chance: any text but words that no text holds
    (:func:`unlikely_utf8`). A multi-byte one (GB18030, Big5) is, for a character or two,
    often: then a word that text may hold (:func:`_plausible_word`) is needed, of at least
    :data:`UTF8_EVIDENCE_LETTERS` letters of an alphabet (Cyrillic, Greek, Hebrew, Arabic),
    or two Chinese characters (kana, Hangul), or with a letter beyond ASCII beside ASCII
    ones (``café``): short Chinese given ``--encoding gb18030`` is read."""
    if unlikely_utf8(text):
        return False
    if not multi_byte(encoding):
        return True
    for word in re.split("[ \t\n]+", text):   # "le\xa0chat": one word, with ASCII letters
        if word.isascii() or not _plausible_word(word):
            continue
        wide = [c for c in word if not c.isascii()]
        if (any(c.isascii() and c.isalpha() for c in word)
                or (len(wide) >= UTF8_EVIDENCE_LETTERS and all(
                    any(lo <= c <= hi for lo, hi in _ALPHABETS) for c in wide))
                or (len(wide) >= 2 and all(len(c.encode("utf-8")) == 3 for c in wide))):
            return True
    return False


def utf8_misread_reason(raw, encoding):
    """A reason to refuse the bytes ``raw`` (a file's, or the lines held back of it) read in
    ``encoding`` when they are UTF-8 text beyond ASCII, which ``encoding`` would read as
    other characters (``你好`` as ``浣犲ソ`` in GB18030), else None: also when their UTF-8
    reading does not show it is UTF-8 (:func:`utf8_evidence`)."""
    if encoding == "utf-8" or raw.isascii():
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:   # a whole file (a topics document): a line of UTF-8 text in it?
        try:
            for _ in utf8_held_back(enumerate(raw.split(b"\n"), start=1), encoding):
                pass
        except LineRefused as exc:   # a single-byte encoding's mix of the two
            return f"line {exc.args[0]}: {exc.args[1]}"
        return None
    if not utf8_evidence(text, encoding):
        return None
    word = _wide_word(text)
    return (f"this file looks like UTF-8 text, not {encoding} ({word!r} reads as "
            f"{word.encode('utf-8').decode(encoding, errors='replace')!r} in {encoding}): "
            "give --encoding utf-8 or none (UTF-8 is the default); if it is "
            f"{encoding} text, convert it: iconv -f {encoding} -t utf-8")


#: the sets of common Chinese characters that :func:`cjk_encoding_hint` reads bytes in, for
#: the encoding it suggests: GB2312 (the 6,763 characters of simplified Chinese, both bytes
#: 0xA1-0xFE) within GB18030, and Big5's symbols and level 1 (lead bytes up to 0xC6); the
#: rest of GB18030 reads almost any pair of bytes as a rare character (UTF-8 ``À𖠀`` too)
_COMMON_CJK = (("gb18030", "gb2312", 0xF7), ("big5", "big5", 0xC6))


def _cjk_reading(raw, codec, last_lead):
    """True when ``raw`` decodes in ``codec``, every character beyond ASCII with a lead
    byte up to ``last_lead``, and every word beyond ASCII of that reading is Chinese or
    Japanese characters (no ASCII letter beside them)."""
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError:
        return False
    words = [w for w in text.split() if not w.isascii()]
    return bool(words) and all(
        not any(c.isascii() and c.isalpha() for c in w)
        and all(_script(c) == "CJK" and c.encode(codec)[0] <= last_lead
                for c in w if not c.isascii()) for w in words)


def cjk_encoding_hint(raw):
    """The hint for bytes ``raw`` (a line) that are not UTF-8 text, or UTF-8 of words no
    text holds, when they read as common Chinese characters in GB18030 or Big5
    (:data:`_COMMON_CJK`): give ``--encoding``; else ``""``."""
    names = [e for e, codec, last in _COMMON_CJK if _cjk_reading(raw, codec, last)]
    if not names:
        return ""
    which = " or ".join(f"--encoding {e}" for e in names)
    return (f" (Chinese in {' or '.join(n.upper().replace('BIG5', 'Big5') for n in names)}? "
            f"give {which}, or convert it: iconv -f {names[0]} -t utf-8)")


def implausible_utf8_reason(raw):
    """For bytes ``raw`` beyond ASCII that are valid UTF-8 (a line, or a whole file: its
    first three lines beyond ASCII, the first 50 words of each): a reason to refuse them
    when half the words beyond ASCII of a line or more are words no text holds
    (:func:`_plausible_word`: GB18030 or Big5 valid as UTF-8 by chance, ``石专`` as
    ``ʯר``) and the line reads as common Chinese in one of those
    (:func:`cjk_encoding_hint`), else None: such a file was read, silently, as those
    letters."""
    import itertools

    for line in itertools.islice((x for x in raw.split(b"\n") if not x.isascii()), 3):
        words = [w for w in line.decode("utf-8").split() if not w.isascii()][:50]
        odd = [w for w in words if not _plausible_word(w)]
        if odd and 2 * len(odd) >= len(words) and (hint := cjk_encoding_hint(line)):
            return (f"not UTF-8 text? read as UTF-8, its bytes are words that no text holds "
                    f"({odd[0][:20]!r}: letters of several scripts){hint}; if it is UTF-8, "
                    "give --encoding utf-8")
    return None


def bad_bytes_reason(raw, exc, encoding, at="column"):
    """The refusal of the line ``raw`` (``at="offset"``: a whole file) that ``encoding``
    cannot decode (``exc``), with the hint of the encoding it may be in: Chinese in GB18030
    or Big5, Latin-1, Windows-1252; UTF-8 text when another encoding was given."""
    byte = raw[exc.start]
    if encoding == "utf-8":
        hint = cjk_encoding_hint(raw) + _other_encoding_hint(byte)   # Latin-1 reads all
    else:
        try:
            raw.decode("utf-8")
            hint = " (this line is UTF-8 text: drop --encoding, the default reads UTF-8)"
        except UnicodeDecodeError:
            hint = ""
    return (f"bad encoding: byte {byte:#04x} at {at} {exc.start + (at == 'column')} is not valid "
            f"{'UTF-8' if encoding == 'utf-8' else encoding}{hint}")


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


def _utf8_line(raw, encoding):
    """True for a line beyond ASCII that is UTF-8 text (:func:`utf8_evidence`)."""
    if raw.isascii():
        return False
    try:
        return utf8_evidence(raw.decode("utf-8"), encoding)
    except UnicodeDecodeError:
        return False


def _wide_word(text):
    """The first word of ``text`` beyond ASCII, split on ASCII spaces and tabs only: a
    no-break space is beyond ASCII (split on it, a line whose only such character it was
    had none, and the refusal was a ``StopIteration`` traceback)."""
    return next((w for w in re.split("[ \t\n]+", text) if not w.isascii()), text)[:20]


def _utf8_line_reason(raw, encoding):
    """The refusal of the line ``raw``, UTF-8 text read in a single-byte ``encoding``."""
    word = _wide_word(raw.decode("utf-8"))
    return (f"this line is UTF-8 text ({word!r} reads as "
            f"{word.encode('utf-8').decode(encoding, errors='replace')!r} in {encoding}): "
            "drop --encoding: the default reads UTF-8")


def _mixed(other_line, encoding):
    """The refusal of a line of UTF-8 text in a file whose line ``other_line`` is not."""
    return (f"this line is UTF-8 text, but line {other_line} is not: the file mixes UTF-8 "
            f"and {encoding}; convert the lines in {encoding} (iconv -f {encoding} -t utf-8) "
            "or the UTF-8 ones, so that the file is in one encoding")


def utf8_held_back(lines, encoding):
    """The ``(lineno, raw)`` of ``lines`` (line ends removed), for an ``encoding`` other
    than UTF-8 (``--encoding gb18030``, ``latin-1``), the outcome for the file as a whole:
    ASCII lines pass at once; from the first line beyond ASCII, lines are held back until
    one is not UTF-8 (text of the encoding: they all pass, and every later line) or, when
    all are UTF-8 at the end of the input or past :data:`UTF8_EVIDENCE` bytes,
    :class:`LineRefused` names the first: the file is UTF-8, and would be read as other
    characters, silently (``你好`` as ``浣犲ソ``), unless their UTF-8 reading does not show
    it (:func:`utf8_evidence`: a word or two of the encoding, valid UTF-8 by chance).
    In a single-byte encoding (valid UTF-8 only by a rare chance) a line of UTF-8 text
    before or after a line that is not UTF-8 is refused, naming both: the file mixes the
    two (a per-line check told to drop ``--encoding`` a file whose line 3 is Latin-1).
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
    if utf8 and held and (why := utf8_misread_reason(b"\n".join(r for _, r in held),
                                                     encoding)):
        raise LineRefused(held[0][0], why if multi_byte(encoding) else
                          _utf8_line_reason(held[0][1], encoding))
    if multi_byte(encoding) or not held:
        yield from held
        yield from lines
        return
    first_other = None if utf8 else held[-1][0]
    import itertools

    for lineno, raw in itertools.chain(held, lines):
        if first_other is not None and _utf8_line(raw, encoding):
            raise LineRefused(lineno, _mixed(first_other, encoding))
        if first_other is None and not raw.isascii() and not _utf8_line(raw, encoding):
            first_other = lineno
        yield lineno, raw
