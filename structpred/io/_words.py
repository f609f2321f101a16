"""The tokens of a line of whitespace-tokenised text (Pharaoh, NAACL, fast_align, CoNLL):
split on ASCII spaces and tabs only, in Unicode normal form NFC, with no token of
invisible characters only; anything else is a :class:`FormatError` naming file, line and
column."""

from __future__ import annotations

import re

from ._files import FormatError

__all__ = ["split_tokens", "word_text", "check_visible_tokens", "word_form", "token_form",
           "IGNORABLE_FORMAT", "WORD_RULES", "CEDILLA_TO_COMMA"]

#: the version of the rules that turn a line of text into words (NFC; the invisible format
#: characters and variation selectors removed from words, version 2; Romanian's s and t
#: with a cedilla read as those with a comma below, version 3): part of the key of every
#: cache made from a file's content, so that a cache made under other rules is
#: recomputed, not read (its words would not be those of the file as read now)
WORD_RULES = 3

#: s and t with a cedilla (ş Ş ţ Ţ, U+015F U+015E U+0163 U+0162) to those with a comma
#: below (ș Ș ț Ț, U+0219 U+0218 U+021B U+021A): Romanian text writes its letters both
#: ways (the cedilla forms came first into the character sets, and fonts and keyboards
#: still give them), so one word had two word forms. Turkish, Azerbaijani and the other
#: languages of ş write no ș: the fold leaves their words apart
CEDILLA_TO_COMMA = str.maketrans("\u015f\u015e\u0163\u0162", "\u0219\u0218\u021b\u021a")
_CEDILLA = re.compile("[\u015f\u015e\u0163\u0162]")

#: the invisible format characters (as a class of a regular expression) that carry no
#: meaning inside a word, removed from it before it is looked up or counted
#: (:func:`word_form`): the soft hyphen U+00AD; the bidirectional marks, embeddings,
#: overrides and isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069); the
#: zero-width space U+200B; the word joiner and the invisible operators U+2060-U+2064;
#: the deprecated format controls U+206A-U+206F; the zero-width no-break space (the
#: byte-order mark) U+FEFF; and the variation selectors U+FE00-U+FE0F and
#: U+E0100-U+E01EF (marks, not format characters, that choose a glyph: the emoji or the
#: text style of ``❤``, a variant of a Han ideograph; the word is the same). The
#: zero-width joiner and non-joiner (U+200D, U+200C) are spelling (Persian, the Indic
#: scripts, emoji) and are kept, as are the other format characters (Mongolian's and its
#: free variation selectors, Egyptian hieroglyphs', the tag characters of flags).
IGNORABLE_FORMAT = (r"\xad\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
                    r"\ufe00-\ufe0f\ufeff\U000e0100-\U000e01ef")
#: the variation selectors, invisible marks (see check_visible_tokens)
_SELECTOR = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_IGNORABLE = re.compile(f"[{IGNORABLE_FORMAT}]")
_IGNORABLE_NO_ZWSP = re.compile("[" + IGNORABLE_FORMAT.replace(r"\u200b", "") + "]")


#: whitespace other than the ASCII space and tab (no-break and other Unicode spaces, line
#: and paragraph separators, vertical tab, form feed, the ASCII separators 0x1c-0x1f), and
#: the other control characters (ESC, BEL, DEL, C1 controls: terminal escapes or damaged
#: text, which were read as letters of a word)
_OTHER_SPACE = re.compile(r"[^\S \t]|[\x01-\x08\x0e-\x1b\x7f-\x9f]")


def split_tokens(text, path="<text>", lineno=None):
    """The tokens of a whitespace-tokenised line: split on ASCII spaces and tabs only, as
    the formats (Pharaoh, NAACL, fast_align, CoNLL) say.

    Any other whitespace (a no-break space, a thin space, an ideographic space, a
    vertical tab...) is a :class:`FormatError` naming the character, the file, line and
    column, rather than a silent second way to split. A line terminator at the end
    (``"\\n"`` or ``"\\r\\n"``, as a file object yields lines) is not part of the line.
    """
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    m = _OTHER_SPACE.search(text)
    if m is not None:
        import unicodedata

        ch = m.group()
        # U+0080-U+009F (U+0085, NEL, is white space too): the bytes of Windows-1252's
        # quotes, dashes and ellipsis read as Latin-1
        hint = (" or, if the file is in Windows-1252 (curly quotes, dashes), give "
                "--encoding cp1252" if "\x80" <= ch <= "\x9f" else "")
        if not ch.isspace():
            raise FormatError(path, lineno, f"control character U+{ord(ch):04X} at column "
                              f"{m.start() + 1}: not part of a word (remove it{hint})")
        what = unicodedata.name(ch, "a control character").lower()
        i = m.start()
        fix = "with a space"
        if 0 < i < len(text) - 1 and not (text[i - 1].isspace() or text[i + 1].isspace()):
            # inside a token (Czech and French '10 000'): a space would make two tokens, and
            # in a column file one column more
            token = text[:i].split()[-1] + ch + text[i + 1:].split()[0]
            fix = (f"with a space where it separates two tokens, or with '_' to keep "
                   f"{token[:40]!r} one token")
        raise FormatError(path, lineno, f"{what} (U+{ord(ch):04X}) at column {i + 1}: "
                          f"tokens are separated by ASCII spaces and tabs only (replace it "
                          f"{fix}{hint})")
    return text.split()


def word_form(text, form="NFC", zero_width_space=True):
    """``text`` (a word, or a line of words) as its words are looked up and counted: the
    invisible format characters of :data:`IGNORABLE_FORMAT` removed (``"maison\\u200f"``,
    ``"mai\\xadson"`` and ``"maison"`` are one word), then in the Unicode normal ``form``
    (NFC; NFKC for ``topics``' tokenizer), Romanian's ş Ş ţ Ţ (cedilla) as ș Ș ț Ț
    (comma below, :data:`CEDILLA_TO_COMMA`). The zero-width joiner and non-joiner are kept.
    ``zero_width_space=False`` keeps U+200B, for a tokenizer that splits words on it (in
    running text it separates the words of Thai, Khmer or Burmese, as Unicode's word
    boundaries, UAX #29, say). ASCII text is returned as it is; white space is never
    touched, so the tokens of a line stay as many."""
    if text.isascii():
        return text
    import unicodedata

    text = (_IGNORABLE if zero_width_space else _IGNORABLE_NO_ZWSP).sub("", text)
    if not unicodedata.is_normalized(form, text):
        text = unicodedata.normalize(form, text)
    if _CEDILLA.search(text) is not None:   # after NFC: s + U+0327 is ş there
        text = text.translate(CEDILLA_TO_COMMA)
    return text


def word_text(text, path="<text>", lineno=None):
    """A line of words (a sentence to align) as :func:`word_form` gives it: in Unicode
    normal form NFC, so that a word spelt with a combining accent (NFD, as macOS file tools
    and some corpora write it) is the word spelt with the precomposed letter, and without
    the invisible format characters that carry no meaning inside a word (a right-to-left
    mark U+200F, a zero-width space, a soft hyphen stuck to it: ``"maison\\u200f"`` is
    ``"maison"``); a token made of invisible format characters only (separated from its
    word by a space) is a :class:`FormatError` naming file, line and column: it would
    count as a word and shift every later position. ASCII lines are returned as they are."""
    if text.isascii():
        return text
    check_visible_tokens(text, path, lineno)
    return word_form(text)


#: the characters that may be format characters (category Cf): see check_visible_tokens
_MAYBE_FORMAT = re.compile("[\xad\u0100-\U0010ffff]")


def check_visible_tokens(text, path="<text>", lineno=None):
    """:class:`FormatError` naming file, line and column when a token of the line ``text``
    (split on ASCII spaces and tabs) is made of invisible format characters only (a
    right-to-left mark U+200F, a zero-width space, a soft hyphen) or variation selectors
    (U+FE0F, set off from its emoji by a space): it would count as a word (an aligner's
    position, a tagger's token)."""
    if text.isascii():
        return
    import unicodedata

    # a token of format characters has one: U+00AD, or a character above U+00FF (no other
    # character below U+0100 is of category Cf); most non-ASCII lines have none
    if not any(map(_invisible, _MAYBE_FORMAT.findall(text))):
        return
    for m in re.finditer(r"[^ \t\n]+", text):
        tok = m.group()
        if all(map(_invisible, tok)):
            what = unicodedata.name(tok[0], "a format character").lower()
            raise FormatError(path, lineno, f"a token of invisible characters only ({what}, "
                              f"U+{ord(tok[0]):04X}) at column {m.start() + 1}: it would "
                              "count as a word (remove it, or join it to its word)")


def _invisible(c):
    """A format character or a variation selector (a mark): see check_visible_tokens."""
    import unicodedata

    return unicodedata.category(c) == "Cf" or _SELECTOR.match(c) is not None


def token_form(token, where=None):
    """A token given to the Python API (``where`` names it: ``"source sentence 3"``) as the
    command line reads the same word from a file: :func:`word_form` (a variation selector
    or a right-to-left mark inside it removed, NFC; the zero-width joiner kept), or
    ``ValueError`` for a token of invisible characters only, which a file's reader refuses
    (:func:`check_visible_tokens`). The API and the command line gave other results for
    the same text."""
    if token.isascii():
        return token
    if all(map(_invisible, token)):
        import unicodedata

        raise ValueError(f"{where + ': ' if where else ''}token {token!r} is made of "
                         "invisible characters only "
                         f"({unicodedata.name(token[0], 'a format character').lower()}): it "
                         "would count as a word (remove it, or join it to its word)")
    return word_form(token)
