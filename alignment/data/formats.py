"""Word-alignment data formats: parallel text, Pharaoh links and NAACL 2003 gold.

Conventions (as in fast_align, eflomal and the NAACL 2003 shared task):

* **Parallel text** (read and written) is two files with one tokenised sentence per
  line (tokens separated by ASCII spaces and tabs; any other whitespace, such as a no-break
  space, is refused: :func:`structpred.io.split_tokens`) (:func:`read_parallel`), or one file with ``src ||| tgt`` per line
  (:func:`read_fast_align`, fast_align's input form).  The *source* is the
  first side (English in the Hansards) and indexes the rows ``j`` of an
  alignment; the *target* indexes the columns ``k``.
* **Pharaoh** alignments have one line per sentence pair with links ``j-k``
  (sure) and ``j?k`` (possible; awesome-align's gold writes ``jpk``, read alike), 0-based,
  source first.
* **NAACL 2003** gold has one link per line: ``sent src tgt [S|P] [p]``, all
  1-based; position 0 is the NULL word and such links are ignored.  A missing
  label means sure; the optional confidence ``p`` is ignored.

A line of a file of sentences that is markup (Europarl's ``<CHAPTER ID="1">``, OPUS's TMX
and XCES XML, WMT's ``.sgm``) or JSON, and a line of gold links in another layout (ISI's
``.wa`` XML, Blinker's ``i j``, ``i:j``, awesome-align's sentence number before the links),
are refused naming the layout (:mod:`alignment.data.layouts`).

Every reader checks what it reads and stops at the first problem with a
:class:`~structpred.io.FormatError` naming the file and line: malformed
lines, mismatched line counts, positions out of range, empty sentences and
invalid UTF-8.  Writers are atomic (:func:`structpred.io.atomic_write`).

The readers and writers of parallel text live in :mod:`alignment.data._parallel` and are
named here with the others.
"""

from __future__ import annotations

import numbers
import os
import re
from dataclasses import dataclass, field

from structpred import FormatError, check_ordered, check_whole, open_output, read_lines
from structpred.io import check_sentence_pairs, check_token_lists, counted, split_tokens

from ._parallel import (_name, iter_fast_align, iter_parallel, read_fast_align, read_parallel,
                        write_fast_align, write_parallel)
from .layouts import link_layout_reason

__all__ = [
    "FormatError",
    "Alignment",
    "read_parallel",
    "iter_parallel",
    "read_fast_align",
    "iter_fast_align",
    "write_parallel",
    "write_fast_align",
    "read_pharaoh",
    "write_pharaoh",
    "format_pharaoh",
    "read_naacl",
    "write_naacl",
    "check_gold_coverage",
    "check_index_base",
    "check_segmented",
    "WRITTEN_BY",
    "mark_written_by",
    "written_by",
]


def _position_pair(link):
    """A link ``(j, k)`` as two ints >= 0; ``TypeError``/``ValueError`` otherwise (``int``
    cut 0.5 to 0 and kept -1, which Pharaoh cannot write back)."""
    if isinstance(link, (str, bytes)) or not hasattr(link, "__len__") or len(link) != 2:
        raise TypeError(f"a link must be a pair (j, k) of positions, not {link!r}")
    for pos in link:
        if isinstance(pos, bool) or not isinstance(pos, numbers.Integral):
            raise TypeError(f"link {tuple(link)!r}: positions must be integers")
        if pos < 0:
            raise ValueError(f"link {tuple(link)!r}: positions must be >= 0")
    return int(link[0]), int(link[1])


@dataclass(frozen=True)
class Alignment:
    """The links of one sentence pair.

    Attributes
    ----------
    sure : frozenset of (int, int)
        Sure links ``(j, k)``, 0-based (source position, target position).
    possible : frozenset of (int, int)
        Possible links; always a superset of ``sure`` (S ⊆ P, Och & Ney 2003).
        For a predicted alignment ``sure == possible``.
    """

    sure: frozenset = field(default_factory=frozenset)
    possible: frozenset = field(default_factory=frozenset)

    def __post_init__(self):
        sure = frozenset(_position_pair(link) for link in self.sure)
        possible = frozenset(_position_pair(link) for link in self.possible) | sure
        object.__setattr__(self, "sure", sure)
        object.__setattr__(self, "possible", possible)

    @classmethod
    def from_links(cls, links):
        """A predicted alignment: the links are both sure and possible."""
        links = frozenset(links)
        return cls(links, links)

    @classmethod
    def _predicted(cls, src, tgt):
        """The predicted alignment with links ``zip(src, tgt)``, from a decoder's position
        lists (Python ints >= 0), without the per-link checks of the constructor (a fifth
        of ``align predict``'s time on the Hansards)."""
        out = object.__new__(cls)
        links = frozenset(zip(src, tgt))
        object.__setattr__(out, "sure", links)
        object.__setattr__(out, "possible", links)
        return out

    def __len__(self):
        return len(self.sure)


#: ``j-k`` or ``j?k``, with an optional score ``:p`` (``align unsupervised --soft``), ignored
#: ``j-k`` sure, ``j?k`` possible, and ``jpk`` possible as awesome-align's and
#: lilt/alignment-scripts' gold files write it (``11p42``; it was refused as malformed)
_PHARAOH_LINK = re.compile(r"^([0-9]{1,9})([-?p])([0-9]{1,9})(?::([0-9.eE+-]{1,40}))?$")


#: a link whose shape is right but one position has more digits than :data:`_PHARAOH_LINK` takes
_LONG_POSITION = re.compile(r"^([0-9]+)[-?p]([0-9]+)(?::[0-9.eE+-]*)?$")
#: a link labelled sure or possible ``i-j-S``/``i-j-P`` (or ``i-j-p``), and a link to a
#: NULL word written as position -1 (``-1-3``, ``3--1``)
_LINK_LABEL = re.compile(r"^[0-9]+[-?][0-9]+[-:]?[SPsp]$")
_NULL_LINK = re.compile(r"^(-1-[0-9]+|[0-9]+--1|-1--1)$")
#: a link with positions of the right shape and any score after the colon
_SCORED_LINK = re.compile(r"^[0-9]{1,9}[-?p][0-9]{1,9}:(.+)$")
#: the header line of a sentence pair in a GIZA++ alignment file (``*.A3.final``)
_GIZA_A3 = re.compile(r"^# Sentence pair \(\d+\)")
_GIZA_A3_REASON = ("a GIZA++ alignment file (A3.final: '# Sentence pair (N)' lines, then "
                   "the target sentence and 'word ({ positions })'), not Pharaoh or NAACL "
                   "links: convert it to Pharaoh 'i-j' lines first")


#: the hint of a line of links that holds words only
_WORDS = ("this line holds words, not links: a file of sentences given for links "
          "(--src/--tgt for --gold or --test?)")


def _malformed_link(tok, text):
    """The reason for a malformed Pharaoh link ``tok`` on the line ``text``, with a hint
    when the line is a NAACL one (``sent src tgt [S|P] [p]``, read as Pharaoh)."""
    fields = text.split()
    naacl = (3 <= len(fields) <= 5 and all(f.isdigit() for f in fields[:3])
             and (len(fields) < 4 or fields[3] in ("S", "P")))
    hint = (": this line looks like NAACL 'sent src tgt [S|P]' (read such files with "
            "--gold-format naacl)") if naacl else ""
    if not naacl and fields and not any(c.isdigit() for c in text):
        hint = ": " + _WORDS
    if _GIZA_A3.match(text):
        return _GIZA_A3_REASON
    if not naacl and (layout := link_layout_reason(tok, text)) is not None:
        return layout
    if _LINK_LABEL.match(tok):
        return (f"malformed link {tok[:40]!r}: a link with a label 'i-j-S' or 'i-j-P' (write "
                "sure links 'i-j', possible links 'i?j')")
    if _NULL_LINK.match(tok):
        return (f"malformed link {tok[:40]!r}: a link to NULL (position -1)? Pharaoh lists "
                "word-to-word links only: leave unaligned words out of the line")
    scored = _SCORED_LINK.match(tok)
    if scored is not None:   # a score outside [0, 1], or not a number ('nan', 'inf', '0,5')
        return (f"malformed link {tok[:40]!r}: the score {scored.group(1)[:20]!r} is not a "
                "probability in [0, 1] (as 'align unsupervised --soft' writes)")
    long = _LONG_POSITION.match(tok)
    number = max(long.groups(), key=len) if long is not None else ""
    if len(number) > 9:
        return (f"link {tok[:40]!r}: position {number[:30]} is far beyond the length of any "
                "sentence (positions are word indices, 0-based)")
    return f"malformed link {tok[:40]!r} (expected 'i-j' or 'i?j', 0-based positions){hint}"


def _range_hint(j, k, shape, line_links):
    """The likely cause of Pharaoh link ``(j, k)`` falling outside a sentence pair of
    ``shape``, judged on all the links of its line: positions one past the end with no
    link at position 0 look 1-based; links that all fit the pair with its sides exchanged
    (while some link is at position 0) look like --src and --tgt given the wrong way
    round.  (Before, one link one past the end was always called 1-based.)"""
    m, n = shape
    at_zero = any(a == 0 or b == 0 for a, b in line_links)
    if not at_zero and (j == m or k == n):
        return " (Pharaoh positions start at 0: these look 1-based)"
    if m != n and all(a < n and b < m for a, b in line_links):
        return (" (every link of the line fits the sentence pair with its sides exchanged: "
                "are --src and --tgt swapped?)")
    if not at_zero and m != n and all(a <= n and b <= m for a, b in line_links):
        # awesome-align's gold of the NAACL 2003 Romanian set: 1-based, Romanian first
        return (" (every link of the line fits the sentence pair 1-based and with its sides "
                "exchanged: Pharaoh positions start at 0 and the source comes first)")
    return ""


#: letters of scripts written without spaces between words (Han, kana, Thai, Lao,
#: Myanmar, Khmer): a sentence of them not split into words is one "word"
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff"
                       "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _one_unspaced_word(tokens):
    """Whether the sentence ``tokens`` is one token of two or more letters of a script
    written without spaces (Chinese, Japanese, Thai...): a line not split into words."""
    return tokens is not None and len(tokens) == 1 and len(_UNSPACED.findall(tokens[0])) >= 2


def _unsegmented_hint(side, tokens):
    """A hint when the sentence ``tokens`` is one unsegmented 'word'
    (:func:`_one_unspaced_word`): the text was not split into words."""
    if not _one_unspaced_word(tokens):
        return ""
    return (f" (the {side} sentence is one 'word' of {len(tokens[0])} characters without "
            "spaces: split Chinese, Japanese or Thai text into words, separated by spaces, "
            "first)")


#: a word with punctuation glued on (``complex,``, ``on:``, ``(see``): text not tokenised
#: (a full stop counts at the end of the sentence only: ``Mr.``, ``etc.`` are tokens; an
#: apostrophe never: French ``l'``, English ``'s`` are)
_GLUED = re.compile(r"\w+[,;:!?)\]\"]+[.]?|[(\[\"]+\w+[^\w\s]*")
_GLUED_LAST = re.compile(r"\w+[.,;:!?)\]\"]*[.,;:!?)\]\"]")


def _glued_hint(side, tokens):
    """A hint when the sentence ``tokens`` holds a word with punctuation glued on: the
    text is not tokenised, and the gold counts the punctuation as a word of its own (it
    was named "the gold of other sentences")."""
    tokens = list(tokens or ())
    glued = [w for w in tokens[:-1] if _GLUED.fullmatch(w)]
    glued += [w for w in tokens[-1:] if _GLUED_LAST.fullmatch(w)]
    if not glued:
        return ""
    return (f" (the {side} sentence holds {counted(len(glued), 'word')} with punctuation "
            f"glued on, e.g. {glued[0]!r}: is the text untokenised? The gold counts "
            "punctuation as words of their own)")


#: (first letter, last letter, language, a word segmenter for it) of the scripts of
#: :data:`_UNSPACED`; Han letters without kana are Chinese
_SEGMENTERS = (("\u3040", "\u30ff", "Japanese", "MeCab"),
               ("\u0e00", "\u0e7f", "Thai", "PyThaiNLP"),
               ("\u0e80", "\u0eff", "Lao", "LaoNLP"),
               ("\u1000", "\u109f", "Myanmar", None),
               ("\u1780", "\u17ff", "Khmer", "khmer-nltk"))


def _unspaced_language(text):
    """``(language, segmenter)`` of the letters of :data:`_UNSPACED` in ``text``."""
    for lo, hi, language, segmenter in _SEGMENTERS:
        if any(lo <= c <= hi for c in text):
            return language, segmenter
    return "Chinese", "jieba"


def check_segmented(sentences, path, what=""):
    """Refuse sentences that are (nearly) all one "word" of letters of a script written
    without spaces: Chinese, Japanese, Thai, Lao, Myanmar or Khmer text that was not split
    into words (each line was aligned as one word, with exit status 0).

    A side is refused when 90 % or more of its non-empty lines are one token holding two or
    more such letters and these tokens are 5 or more characters long on average; a normal
    corpus with a few one-word lines (and dictionary-like lines of short words) passes.
    ``what`` (e.g. ``"source side: "``) starts the reason; a :class:`FormatError` naming
    ``path`` and the first such line.  A string given for ``sentences`` or for one sentence
    is a ``TypeError`` (:func:`structpred.io.check_token_lists`): a line of unsegmented text
    given as a string was many "tokens" of one letter, and passed silently."""
    sentences = check_token_lists(sentences)
    lines = [s for s in sentences if len(s)]
    one = [(i, s[0]) for i, s in enumerate(sentences, 1) if _one_unspaced_word(s)]
    if not lines or len(one) < 0.9 * len(lines) or sum(len(w) for _, w in one) < 5 * len(one):
        return
    language, segmenter = _unspaced_language("".join(w for _, w in one[:50]))
    raise FormatError(_name(path), None,
                      f"{what}{len(one)} of {len(lines)} lines are one 'word' of {language} "
                      f"letters without spaces (line {one[0][0]}: {len(one[0][1])} characters):"
                      " the text looks unsegmented; split it into words separated by spaces "
                      f"first, with a {language} word segmenter"
                      + (f" (e.g. {segmenter})" if segmenter else ""))


def _links_by_sentence(path, naacl):
    """``{sentence index: [(j, k), ...]}`` (0-based, NULL links left out) of a gold file,
    read leniently: lines that do not parse are skipped (for a hint, not a reading)."""
    out = {}
    for lineno, text in read_lines(path):
        fields = text.split()
        if naacl:
            if len(fields) >= 3 and all(_INT.match(x) for x in fields[:3]):
                sent, j, k = (int(x) for x in fields[:3])
                if j > 0 and k > 0:
                    out.setdefault(sent - 1, []).append((j - 1, k - 1))
            continue
        for tok in fields:
            m = _PHARAOH_LINK.match(tok)
            if m is not None:
                out.setdefault(lineno - 1, []).append((int(m.group(1)), int(m.group(3))))
    return out


def _other_sentences_hint(path, pairs, naacl, swapped=False, untokenised=False):
    """A hint when the links of many gold sentences fall outside their sentence pairs (a
    quarter or more of at least 3): the gold of other sentences (another file's), not a
    typo on one line, or (every link fitting with the sides exchanged) of these sentences
    with --src and --tgt given the wrong way round (not asked again when the reason
    already asks it: ``swapped``); none when the reason names untokenised text
    (``untokenised``).  Empty otherwise."""
    try:
        by_sent = _links_by_sentence(path, naacl)
    except (FormatError, OSError):
        return ""
    inside = [s for s in by_sent if 0 <= s < len(pairs)]
    outside = [s for s in inside if any(not (j < len(pairs[s][0]) and k < len(pairs[s][1]))
                                        for j, k in by_sent[s])]
    if len(inside) < 3 or len(outside) < 0.25 * len(inside) or untokenised:
        return ""
    if all(k < len(pairs[s][0]) and j < len(pairs[s][1]) for s in inside for j, k in by_sent[s]):
        return (f"; the links of {len(outside)} of its {len(inside)} sentences fall outside "
                "them, and every link of the file fits its sentence pair with the sides "
                "exchanged" + ("" if swapped else ": are --src and --tgt swapped?"))
    return (f"; the links of {len(outside)} of its {len(inside)} sentences fall outside them: "
            "is this the gold of other sentences (another --src/--tgt file)?")


def _check_range(path, lineno, j, k, shape, base, line_links=(), pair=(None, None)):
    m, n = shape
    hint = _range_hint(j, k, shape, line_links) if base == 0 else ""
    for side, pos, length, tokens in (("source", j, m, pair[0]), ("target", k, n, pair[1])):
        if not 0 <= pos < length:
            why = hint or _unsegmented_hint(side, tokens) or _glued_hint(side, tokens)
            raise FormatError(_name(path), lineno, f"{side} position {pos + base} out of range: "
                              f"the {side} sentence has {length} words{why}")


def read_pharaoh(path, pairs=None):
    """Read Pharaoh alignments (``j-k`` sure, ``j?k`` or awesome-align's ``jpk`` possible,
    0-based; a score ``j-k:p``
    in [0, 1], as ``align unsupervised --soft`` writes, is ignored).

    Parameters
    ----------
    path : str or path-like
        One line per sentence pair (an empty line is a pair without links).
    pairs : list of (src, tgt), optional
        The sentences, to check the line count and that every position is in
        range.

    Returns
    -------
    list of Alignment
    """
    if pairs is not None:   # a generator: "object of type 'generator' has no len()", a
        pairs = check_sentence_pairs(pairs)   # string "not enough values to unpack"
    out = []
    lineno = 0
    for lineno, text in read_lines(path):
        if pairs is not None and lineno > len(pairs):
            raise FormatError(_name(path), lineno,
                              f"more alignment lines than the {len(pairs)} sentence pairs")
        sure, possible = set(), set()
        for tok in split_tokens(text, _name(path), lineno):
            match = _PHARAOH_LINK.match(tok)
            if match is None or (match.group(4) is not None
                                 and not _is_probability(match.group(4))):
                raise FormatError(_name(path), lineno, _malformed_link(tok, text))
            j, kind, k = int(match.group(1)), match.group(2), int(match.group(3))
            (sure if kind == "-" else possible).add((j, k))
        if pairs is not None:
            src, tgt = pairs[lineno - 1]
            links = sorted(sure | possible)
            try:
                for j, k in links:
                    _check_range(path, lineno, j, k, (len(src), len(tgt)), 0, links,
                                 (src, tgt))
            except FormatError as exc:
                if "look 1-based" in exc.reason:   # not "the gold of other sentences"
                    raise
                raise FormatError(exc.path, exc.line, exc.reason + _other_sentences_hint(
                    path, pairs, naacl=False, swapped="swapped?" in exc.reason,
                    untokenised="untokenised?" in exc.reason)) from None
        out.append(Alignment(frozenset(sure), frozenset(possible)))
    if pairs is not None and lineno < len(pairs):
        raise FormatError(_name(path), lineno + 1,
                          f"only {lineno} alignment lines for {len(pairs)} sentence pairs")
    return out


def _is_probability(text):
    try:
        return 0.0 <= float(text) <= 1.0
    except ValueError:
        return False


def format_pharaoh(alignment):
    """One Pharaoh line: sorted sure links ``j-k``, then possible-only ``j?k``.

    ``alignment`` is an :class:`Alignment`, or a collection of ``(j, k)`` links (a
    predicted alignment, as :func:`~alignment.aligners.symmetrize.symmetrize` returns)."""
    if not isinstance(alignment, Alignment):
        if isinstance(alignment, (str, bytes)) or not hasattr(alignment, "__iter__"):
            raise TypeError(f"format_pharaoh: expected an Alignment or a collection of "
                            f"(j, k) links, got {type(alignment).__name__}")
        if hasattr(alignment, "tolist") and getattr(alignment, "ndim", 0) == 2:
            alignment = [tuple(row) for row in alignment.tolist()]   # an (n, 2) array
        alignment = Alignment.from_links(alignment)   # checks every link
    sure = sorted(alignment.sure)
    extra = sorted(alignment.possible - alignment.sure)
    return " ".join([f"{j}-{k}" for j, k in sure] + [f"{j}?{k}" for j, k in extra])


def write_pharaoh(alignments, path="-"):
    """Write alignments in Pharaoh form to ``path`` (``"-"``: stdout; atomic for files)."""
    alignments = check_ordered(alignments, "alignments", "alignments (one per sentence pair)")
    with open_output(path) as fh:
        for a in alignments:
            fh.write(format_pharaoh(a) + "\n")


#: the extended attribute of the link files that ``align predict`` and ``align
#: unsupervised`` write: the command that wrote them (Pharaoh text has no place for a
#: mark that other tools would skip; the PNG masks of ``segment predict`` carry theirs in a
#: text chunk).  Kept by ``mv``, lost by a plain ``cp``; not kept on every file system.
WRITTEN_BY = "user.structpred.written_by"


def mark_written_by(target, command):
    """Record ``command`` (e.g. ``"structpred align predict"``) as the writer of the link
    file ``target`` (a path; ``"-"``: standard output where it is a regular file) in its
    extended attribute :data:`WRITTEN_BY`; nothing where the system keeps no such
    attributes."""
    import stat
    import sys

    if not hasattr(os, "setxattr"):
        return
    try:
        if str(target) == "-":
            target = sys.stdout.fileno()
            if not stat.S_ISREG(os.fstat(target).st_mode):
                return
        os.setxattr(target, WRITTEN_BY, command.encode("utf-8"))
    except (OSError, ValueError, AttributeError):   # no attributes there; a closed stdout
        return


def written_by(path):
    """The command recorded by :func:`mark_written_by` for the file ``path``, or None."""
    if not hasattr(os, "getxattr") or str(path) == "-":
        return None
    try:
        return os.getxattr(path, WRITTEN_BY).decode("utf-8", "replace")
    except OSError:
        return None


_INT = re.compile(r"^[+-]?[0-9]{1,9}$")


def read_naacl(path, pairs=None, n_sentences=None, seen=None):
    """Read NAACL 2003 gold links: ``sent src tgt [S|P] [p]``, 1-based.

    Position 0 is NULL and such links are dropped.  Sentence numbers are the
    1-based line numbers of the sentence files (the normalised Hansards files
    in ``data/``); they must be in range but need not be contiguous.

    Parameters
    ----------
    path : str or path-like
    pairs : list of (src, tgt), optional
        The sentences: fixes the number of sentences and checks positions.
    n_sentences : int, optional
        Number of sentences when ``pairs`` is not given (default: the largest
        sentence number seen).
    seen : set, optional
        Filled with the 0-based numbers of the sentences the file mentions (a NULL link
        counts): a sentence it does not mention has no gold, which is not the same as a
        sentence without links (:func:`check_gold_coverage`).

    Returns
    -------
    list of Alignment
        One per sentence; sentences without links get an empty Alignment.
    """
    if pairs is not None:
        pairs = check_sentence_pairs(pairs)   # a generator, a string, pairs of one side
        n_sentences = len(pairs)
    elif n_sentences is not None:   # "2" and 2.5 were TypeErrors, -1 and True counts
        check_whole("n_sentences", n_sentences, 0)
    sure, possible = {}, {}
    name = _name(path)
    for lineno, text in read_lines(path):
        fields = split_tokens(text, name, lineno)
        if not fields:
            continue
        if all(_PHARAOH_LINK.match(f) for f in fields):   # a Pharaoh file read as NAACL
            raise FormatError(name, lineno, "expected 'sent src tgt [S|P] [p]': this line looks "
                              "like Pharaoh 'i-j' links (read such files with --gold-format "
                              "pharaoh)")
        if _GIZA_A3.match(text):
            raise FormatError(name, lineno, _GIZA_A3_REASON)
        if not any(c.isdigit() for c in text):
            raise FormatError(name, lineno, "expected 'sent src tgt [S|P] [p]': " + _WORDS)
        if (layout := link_layout_reason(fields[0], text, naacl=True)) is not None:
            raise FormatError(name, lineno, "expected 'sent src tgt [S|P] [p]': " + layout)
        if not 3 <= len(fields) <= 5:
            raise FormatError(name, lineno, "expected 'sent src tgt [S|P] [p]'")
        try:
            if not all(_INT.match(x) for x in fields[:3]):
                raise ValueError
            sent, j, k = (int(x) for x in fields[:3])
        except ValueError:
            long = next((x for x in fields[:3] if x.isascii() and x.isdigit()
                         and len(x) > 9), None)
            raise FormatError(name, lineno,
                              f"number {long[:30]} is far beyond any sentence count or "
                              "sentence length" if long is not None else
                              f"sentence and positions must be integers, got {' '.join(fields[:3])[:60]!r}"
                              ) from None
        label = fields[3] if len(fields) >= 4 else "S"
        if label not in ("S", "P"):
            raise FormatError(name, lineno, f"label must be S or P, got {label!r}")
        if len(fields) == 5:
            try:
                if len(fields[4]) > 40:
                    raise ValueError
                float(fields[4])
            except ValueError:
                raise FormatError(name, lineno, f"confidence must be a number, got {fields[4]!r}"
                                  ) from None
        if sent == 0:
            raise FormatError(name, lineno, "sentence number 0 out of range: NAACL sentences "
                              "are numbered from 1 (add 1 to the first column)")
        if sent < 1 or (n_sentences is not None and sent > n_sentences):
            raise FormatError(name, lineno, f"sentence number {sent} out of range: there are "
                              f"{n_sentences} sentences" if n_sentences is not None else
                              f"sentence number {sent} out of range (numbers start at 1)")
        if j < 0 or k < 0:
            raise FormatError(name, lineno, "negative position")
        if seen is not None:
            seen.add(sent - 1)
        if j == 0 or k == 0:  # NULL link
            continue
        if pairs is not None:
            src, tgt = pairs[sent - 1]
            try:
                _check_range(path, lineno, j - 1, k - 1, (len(src), len(tgt)), 1,
                             pair=(src, tgt))
            except FormatError as exc:
                raise FormatError(exc.path, exc.line, exc.reason + _other_sentences_hint(
                    path, pairs, naacl=True, untokenised="untokenised?" in exc.reason)) from None
        (sure if label == "S" else possible).setdefault(sent - 1, set()).add((j - 1, k - 1))
    if n_sentences is None:
        n_sentences = max([*sure, *possible], default=-1) + 1
    return [Alignment(frozenset(sure.get(i, ())), frozenset(possible.get(i, ())))
            for i in range(n_sentences)]


def write_naacl(alignments, path):
    """Write alignments as NAACL 2003 gold (sure as ``S``, possible-only as ``P``)."""
    with open_output(path) as fh:
        for i, a in enumerate(alignments, start=1):
            for j, k in sorted(a.sure):
                fh.write(f"{i} {j + 1} {k + 1} S\n")
            for j, k in sorted(a.possible - a.sure):
                fh.write(f"{i} {j + 1} {k + 1} P\n")


# ------------------------------------------------------------- what the links mean
def check_gold_coverage(path, covered, n, what="sentences"):
    """Gold must cover each of the first ``n`` sentences: the first one not in ``covered``
    (0-based numbers) is a :class:`FormatError` naming it.

    A sentence that the gold does not mention would otherwise be read as a sentence
    without links, and trained or scored as such.
    """
    missing = [i for i in range(n) if i not in covered]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise FormatError(_name(path), None,
                          f"no gold for sentence {missing[0] + 1}{more} of the {n} {what} "
                          "(gold must cover every sentence; --allow-unaligned accepts "
                          "sentences without links)")


#: sentences with links needed before the index base is judged
_BASE_EVIDENCE = 3


def _warn_small_base(path, linked, fmt):
    """One warning for a Pharaoh file of fewer than :data:`_BASE_EVIDENCE` sentences with
    links (``linked``), none at position 0 (the pattern :func:`check_index_base` refuses in
    larger files) and some at position 1 on each side (where the first words of a 0-based
    file land once shifted; links from position 3 on are no evidence of a shift): too
    little to refuse on (a sentence's first word may be unlinked), too much to pass in
    silence.  A link one past a sentence's end, which proves 1-based links,
    is refused by :func:`read_pharaoh` whatever the file's size when the sentences are
    given."""
    import warnings

    links = [link for _, a in linked for link in a.possible]
    if fmt == "pharaoh" and links and min(j for j, _ in links) == 1 \
            and min(k for _, k in links) == 1:
        warnings.warn(f"{_name(path)}: no link at position 0 in its "
                      f"{counted(len(linked), 'sentence')} with links: these may be 1-based "
                      "(Pharaoh positions start at 0; NAACL files, 1-based, are read with "
                      f"--gold-format naacl); too few to refuse on ({_BASE_EVIDENCE} or more are)")


def check_index_base(path, alignments, pairs, fmt, gold=True):
    """Refuse links whose index base does not fit the format.

    With at least three sentences that have links: 0-based Pharaoh links of which none
    is at position 0 (on either side) look 1-based; 1-based NAACL links (read as 0-based
    here) of which none reaches the last word of its sentence (on either side) look
    0-based.  Real alignments link the first and last words of some sentences (``the``,
    the full stop), so either pattern means a shifted file, which would otherwise be
    scored as a poor alignment.  With one or two, a Pharaoh gold file without a link at
    position 0 gets a warning (:func:`_warn_small_base`); predictions (``gold=False``,
    ``aer --test``) do not.

    Parameters
    ----------
    path : str or path-like
        For the message.
    alignments : list of Alignment
    pairs : list of (src, tgt) or None
        The sentences (needed for the NAACL check).
    fmt : {"pharaoh", "naacl"}
    gold : bool, default True
        Whether the links are gold (the warning for one or two sentences is for gold).

    Raises
    ------
    FormatError
    """
    linked = [(i, a) for i, a in enumerate(alignments) if a.possible]
    if len(linked) < _BASE_EVIDENCE:
        if gold:
            _warn_small_base(path, linked, fmt)
        return
    if fmt == "pharaoh":
        if not any(j == 0 or k == 0 for _, a in linked for j, k in a.possible):
            raise FormatError(_name(path), None,
                              f"no link at position 0 in any of its {len(linked)} sentences "
                              "with links: these look 1-based (Pharaoh positions start at 0; "
                              "NAACL files, 1-based, are read with --gold-format naacl)")
        return
    if pairs is None:
        return
    if not any(j == len(pairs[i][0]) - 1 or k == len(pairs[i][1]) - 1
               for i, a in linked if i < len(pairs) for j, k in a.possible):
        raise FormatError(_name(path), None,
                          f"no link reaches the last word of any of its {len(linked)} sentences "
                          "with links: these look 0-based (NAACL positions start at 1, 0 is "
                          "NULL; Pharaoh files, 0-based, are read with --gold-format pharaoh)")
