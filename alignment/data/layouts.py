"""Lines of the public corpora's other layouts, found in a file read as one sentence per line
(or as fast_align's ``source ||| target``): refused with a :class:`FormatError` naming the
file and line, never aligned as words.

* **Markup**: a line that is one SGML/XML tag (Europarl's raw text: ``<CHAPTER ID="1">``,
  ``<SPEAKER ID="2" NAME="...">``, ``<P>``; Moses' tokenizer passes such lines through
  untouched), an XML declaration or doctype (``<?xml ...?>``: OPUS's TMX and XCES files), or
  a line that starts with a tag and ends with one holding a closing or empty tag (TMX's
  ``<tu><tuv xml:lang="en"><seg>...</seg></tuv>...</tu>``, XCES's ``<link xtargets=.../>``).
  The special tokens of tokenised text (``<unk>``, ``<s>``, ``</s>``, ``<pad>``...) are
  words, not markup.
* **JSON lines**: a line holding a JSON object (HuggingFace's exports of wmt and opus,
  ``{"translation": {"en": ..., "fr": ...}}``).
* **Tab-separated bitexts** (Tatoeba, ParaCrawl: ``source<TAB>target[<TAB>attribution]``)
  given to ``-i``: a tab is a token separator in one sentence, so only the fast_align reader,
  which found no ``|||``, names the layout; given as one side (``--src pairs.tsv``), the
  file is refused by :func:`check_tab_pairs` when every one of its first non-empty lines is
  two (or three) fields separated by tabs.
"""

from __future__ import annotations

import json
import re

from structpred import FormatError

__all__ = ["check_layout_line", "no_bars_hint", "check_tab_pairs"]

#: a line that is one tag: ``<P>``, ``</doc>``, ``<CHAPTER ID="1">``, ``<link xtargets="1;1"/>``
_ONE_TAG = re.compile(r"<[/!?]?([A-Za-z][\w:.-]*)(?:\s[^<>]*)?/?>")
#: a line that starts with a tag and ends with ``>``, holding a closing or an empty tag
_TAGGED = re.compile(r"<([A-Za-z][\w:.-]*)(?:\s[^<>]*)?>.*(?:</[A-Za-z][\w:.-]*|/)>")
#: the special tokens of tokenised text, which are words of it
_SPECIAL = frozenset(("unk", "s", "pad", "eos", "bos", "mask", "null", "cls", "sep", "num"))

#: the elements of OPUS's TMX and XCES files, of its XML corpus files (``<s id="1">``, ``<w>``)
#: and of WMT's ``.sgm`` test sets (the tag of a line of one of them is XML)
_XML_NAMES = frozenset(("tmx", "header", "body", "tu", "tuv", "seg", "prop", "note",
                        "cesalign", "linkgrp", "link", "document", "s", "w", "srcset",
                        "refset", "tstset"))

_XML_HINT = ("OPUS's TMX and XCES files and WMT's .sgm test sets are XML: take a plain "
             "text download (OPUS's Moses one, a file per language) or extract each "
             "language's sentences into a file of its own")


def _markup_reason(text):
    """Why the stripped line ``text`` is markup, or None."""
    if text.startswith(("<?xml", "<!DOCTYPE", "<!--")):
        return f"an XML declaration ({text[:40]!r}), not a sentence: {_XML_HINT}"
    one = _ONE_TAG.fullmatch(text)
    tagged = one or _TAGGED.fullmatch(text)
    if tagged is None or (tagged.group(1).lower() in _SPECIAL   # <s>, not <s id="1">
                          and re.match(r"</?\w+>", text) is not None):
        return None
    if one is not None and tagged.group(1).lower() not in _XML_NAMES:
        return (f"a markup line {text[:40]!r}, not a sentence (Europarl's raw text and other "
                "corpora mark chapters, speakers and paragraphs so: remove lines that are a "
                "tag from both files, as Europarl's de-xml.perl does, keeping the lines "
                "paired)")
    return f"XML markup ({text[:40]!r}), not a sentence of words: {_XML_HINT}"


def _json_reason(text, lineno):
    """Why the stripped line ``text`` is a JSON object (or an array of them, or the ``[`` or
    ``{`` opening a JSON file on its line 1), or None."""
    if lineno == 1 and text in ("[", "{"):
        return (f"a JSON file (its line 1 is {text!r}), not sentences of words: write each "
                "language's text into a file of its own")
    if not (text[-1:] == "]}"[text[0] == "{"] and '"' in text):
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        obj = obj[0]
    if not isinstance(obj, dict) or not obj:
        return None
    return (f"a JSON line ({text[:40]!r}), not a sentence of words: HuggingFace's exports "
            "('{\"translation\": {\"en\": ..., \"fr\": ...}}') are read by writing each "
            "language's text into a file of its own")


#: the first characters of a line that may be markup or JSON (after spaces or tabs)
_MAY_OPEN = frozenset("<{[ \t")


def check_layout_line(text, path, lineno):
    """:class:`FormatError` at ``path:lineno`` when the line ``text`` of a file of sentences
    is markup or a JSON object (module docstring); nothing otherwise (most lines are
    passed by their first character)."""
    if text[:1] not in _MAY_OPEN:   # a word's first letter: no copy of the line is made
        return
    stripped = text.strip(" \t")
    if not stripped.startswith(("<", "{", "[")):
        return
    reason = ((_markup_reason(stripped) if stripped[0] == "<" else None)
              or _json_reason(stripped, lineno))
    if reason is not None:
        raise FormatError(path, lineno, reason)


def no_bars_hint(text):
    """A hint for a line of ``-i`` without fast_align's ``|||``: the tab of a tab-separated
    bitext, or ``""``."""
    if re.match(r'\s*"[^"]*"\s*[,;]\s*"', text):
        return ("; it looks like CSV ('\"source\",\"target\"'): write 'source ||| target' "
                "lines")
    if "\t" not in text.strip(" \t"):
        return ""
    n = text.strip(" \t").count("\t") + 1
    return (f"; it holds {n} tab-separated fields: a tab-separated bitext (Tatoeba, "
            "ParaCrawl: 'source<TAB>target')? write 'source ||| target' lines, e.g. "
            "awk -F'\\t' '{print $1 \" ||| \" $2}'")


#: the non-empty lines of a side that :func:`check_tab_pairs` looks at, and the fewest
TAB_PAIR_LINES, TAB_PAIR_FEWEST = 100, 2


def _tab_pair(text):
    """Whether the line ``text`` is two non-empty fields separated by one tab (or three,
    Tatoeba's ``source<TAB>target<TAB>attribution``)."""
    fields = text.split("\t")
    return len(fields) in (2, 3) and all(f.strip(" ") for f in fields)


def check_tab_pairs(path):
    """:class:`FormatError` at the first line of the file ``path``, given as one side of
    the sentence pairs (``--src``, ``--tgt``, ...), when each of its first
    :data:`TAB_PAIR_LINES` non-empty lines (at least :data:`TAB_PAIR_FEWEST`) is two
    non-empty fields separated by one tab (or Tatoeba's three): a tab-separated bitext
    (``source<TAB>target``),
    both sides on each line, which was read with the tab as a space between words.  A
    line of normal text with a stray tab, among lines without one, passes.  Standard
    input (``-``) is not read again."""
    from structpred import read_lines

    if path is None or str(path) == "-":
        return
    first, n = None, 0
    for lineno, text in read_lines(path):
        if not text.strip():
            continue
        if not _tab_pair(text):
            return
        first = first or (lineno, text)
        n += 1
        if n == TAB_PAIR_LINES:
            break
    if n < TAB_PAIR_FEWEST:
        return
    raise FormatError(path, first[0], (
        f"{'its first' if n == TAB_PAIR_LINES else 'all its'} {n} non-empty lines are two "
        f"or three fields separated by tabs ({first[1][:40]!r}): a tab-separated bitext "
        "('source<TAB>target', as Tatoeba and ParaCrawl give them), both sides on each "
        "line, given as one side (the tab was read as a space between words); split it "
        "into a source and a target file (cut -f1, cut -f2), or give -i a file of "
        "'source ||| target' lines (-i reads no tabs: awk -F'\\t' '{print $1 \" ||| \" $2}')"))


#: a link written ``i:j`` (``0:3``)
_COLON_LINK = re.compile(r"[0-9]{1,9}:[0-9]{1,9}")
#: a link ``i-j`` or ``i?j`` / ``ipj`` (the rest of a line after a sentence number)
_LINK = re.compile(r"[0-9]{1,9}[-?p][0-9]{1,9}(?::[0-9.eE+-]+)?")


def link_layout_reason(tok, text, naacl=False):
    """The layout of a line of a gold links file that is neither Pharaoh nor NAACL (the
    malformed token ``tok`` of the line ``text``; ``naacl``: read as NAACL), or None:
    XML (ISI/LDC ``.wa``, a TMX or XCES file), two numbers ``i j`` (Blinker's one file per
    sentence pair), ``i:j`` links, or a sentence number before the links (awesome-align's
    ``N<TAB>links``)."""
    fields = text.split()
    stripped = text.strip(" \t")
    if stripped.startswith("<") and stripped.endswith(">"):
        return (f"XML markup ({stripped[:40]!r}), not links: ISI/LDC '.wa' XML or another "
                "XML file? write one line of Pharaoh 'i-j' links per sentence pair")
    if len(fields) == 2 and all(f.isascii() and f.isdigit() for f in fields):
        return ("two numbers 'i j' on the line: Blinker's one-file-per-sentence-pair links? "
                "write one line of Pharaoh 'i-j' links (0-based) per sentence pair, or NAACL "
                "'sent i j' lines (1-based)")
    if naacl:
        return None
    if re.fullmatch(r"[SPsp][-:]?[0-9]{1,9}[-?:][0-9]{1,9}", tok):
        return (f"malformed link {tok[:40]!r}: a label before the link? write sure links "
                "'i-j', possible links 'i?j'")
    if _COLON_LINK.fullmatch(tok):
        return (f"malformed link {tok[:40]!r}: links written 'i:j'? Pharaoh writes 'i-j' "
                "(sure) and 'i?j' (possible)")
    if (len(fields) >= 2 and fields[0] == tok and tok.isascii() and tok.isdigit()
            and all(_LINK.fullmatch(f) for f in fields[1:])):
        return (f"a number {tok[:20]!r} before the links: a sentence number ('N<TAB>links', "
                "as awesome-align's gold writes)? remove it: Pharaoh's line number is the "
                "sentence")
    return None
