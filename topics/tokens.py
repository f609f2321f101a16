"""Unicode-aware word tokens for the topic-model classifiers.

:class:`Tokenizer` turns a text into a list of lower-cased word tokens:

1. the invisible format characters that carry no meaning inside a word (a soft hyphen, a
   direction mark, a word joiner: :func:`structpred.io.word_form`) are removed, the text is
   put in Unicode normal form NFKC (so ``"ﬁ"`` becomes ``"fi"``, full-width ``"ＡＢＣ"``
   becomes ``"ABC"`` and a letter with a combining accent becomes one code point) and
   lower-cased (:meth:`str.lower`);
2. a token is a maximal run of *letters of any script* -- code points of the Unicode
   categories ``L*`` (letters) and ``M*`` (combining marks, which Devanagari, Thai or Hebrew
   words need inside them), the zero-width joiner and non-joiner between them (Persian
   ``می‌خواهم`` is one word) -- and, with ``digits=True``, decimal digits (``Nd``) too; a
   zero-width space separates words, as Unicode's word boundaries (UAX #29) say.  So
   ``"économie"``, ``"Москва"``, ``"λόγος"`` and ``"हिन्दी"`` stay whole, and ``"x11"`` is one token
   with ``digits=True`` and ``"x"`` (then dropped as too short) without;
3. Chinese characters (Han ideographs) and Japanese kana are written without spaces: each
   one is a token of its own (the usual choice of search engines, e.g. Lucene's standard
   analyzer), kept whatever ``min_length``; word pairs then come from the n-grams of
   :class:`topics.corpus.Vocabulary`; with ``cjk_runs=True`` (the character n-grams of
   ``Vocabulary(analyzer="char_wb")``) a run of them is one token, kept likewise;
4. tokens shorter than ``min_length`` characters and those in the stop list are dropped.

``alphabet="ascii"`` is the toolkit's former rule (runs of ``a-z`` after lower-casing, no
normalisation; on non-ASCII text, "économie" gives "conomie"), kept so that model files written before keep their meaning.

NLTK's tokenizers were measured against this regular expression on validation documents of
three of the benchmark corpora (``benchmarks/compare_tokenizers.py``; ``docs/results/topics.md``):
none was better in more than 76% of paired bootstraps and they were 7-16 times slower, so
they are not used.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from structpred import check_flag, check_whole
from structpred.io import word_form

__all__ = ["Tokenizer", "ENGLISH_STOP_WORDS", "resolve_stop_words"]

#: scikit-learn's English stop list (Glasgow IR group list), 318 words.
ENGLISH_STOP_WORDS = frozenset("""
    a about above across after afterwards again against all almost alone along already also
    although always am among amongst amoungst amount an and another any anyhow anyone
    anything anyway anywhere are around as at back be became because become becomes becoming
    been before beforehand behind being below beside besides between beyond bill both bottom
    but by call can cannot cant co con could couldnt cry de describe detail do done down due
    during each eg eight either eleven else elsewhere empty enough etc even ever every
    everyone everything everywhere except few fifteen fifty fill find fire first five for
    former formerly forty found four from front full further get give go had has hasnt have
    he hence her here hereafter hereby herein hereupon hers herself him himself his how
    however hundred i ie if in inc indeed interest into is it its itself keep last latter
    latterly least less ltd made many may me meanwhile might mill mine more moreover most
    mostly move much must my myself name namely neither never nevertheless next nine no
    nobody none noone nor not nothing now nowhere of off often on once one only onto or
    other others otherwise our ours ourselves out over own part per perhaps please put
    rather re same see seem seemed seeming seems serious several she should show side since
    sincere six sixty so some somehow someone something sometime sometimes somewhere still
    such system take ten than that the their them themselves then thence there thereafter
    thereby therefore therein thereupon these they thick thin third this those though three
    through throughout thru thus to together too top toward towards twelve twenty two un
    under until up upon us very via was we well were what whatever when whence whenever
    where whereafter whereas whereby wherein whereupon wherever whether which while whither
    who whoever whole whom whose why will with within without would yet you your yours
    yourself yourselves
""".split())

#: Han ideographs (CJK unified, extension A, compatibility, extensions B+) and kana
_CJK_RANGES = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
               (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x20000, 0x3134F))


def resolve_stop_words(stop_words):
    """``"english"`` -> :data:`ENGLISH_STOP_WORDS`; ``None`` -> no list; else a frozenset of
    the words as the tokens are spelt (:meth:`Tokenizer.normalize`: NFKC, without invisible
    format characters, lower-cased), so that ``été`` written with a combining accent, or a
    word copied with a direction mark, still stops the token (it stopped nothing)."""
    if stop_words is None:
        return frozenset()
    if isinstance(stop_words, str):
        if stop_words != "english":
            raise ValueError(f"stop_words must be 'english', None or a collection of words, "
                             f"got {stop_words!r}")
        return ENGLISH_STOP_WORDS
    return frozenset(word_form(str(w), "NFKC", zero_width_space=False).lower()
                     for w in stop_words)


#: code points that may be letters or marks: planes 0-3 and the variation selectors of plane 14
_SCAN = (range(0x0, 0x40000), range(0xE0100, 0xE01F0))


def _ranges(pred, cjk=False):
    """``[(lo, hi), ...]``: the maximal code-point runs whose Unicode category satisfies
    ``pred``, outside :data:`_CJK_RANGES` (inside them with ``cjk=True``)."""
    in_cjk = set()
    for a, b in _CJK_RANGES:
        in_cjk.update(range(a, b + 1))
    out = []
    for span in _SCAN:
        lo = prev = None
        for cp in span:
            if (cp in in_cjk) == cjk and pred(unicodedata.category(chr(cp))):
                if lo is None:
                    lo = cp
                prev = cp
            elif lo is not None:
                out.append((lo, prev))
                lo = None
        if lo is not None:
            out.append((lo, prev))
    return out


def _char_class(ranges):
    def esc(cp):
        return "\\U%08x" % cp
    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in ranges)


@lru_cache(maxsize=None)
def _cjk_class():
    """The Han ideographs and kana that are letters (assigned, category ``L*``)."""
    return _char_class(_ranges(lambda c: c[0] == "L", cjk=True))


@lru_cache(maxsize=None)
def _letter_ranges(digits):
    cats = ("L", "M", "Nd") if digits else ("L", "M")
    return tuple(_ranges(lambda c: c.startswith(cats[:2]) or c in cats[2:]))


@lru_cache(maxsize=None)
def _pattern(alphabet, digits, cjk_runs=False):
    """The token pattern.  ``"ascii"`` is also what ``"unicode"`` amounts to on pure-ASCII
    text (the only letters there are ``A-Z a-z``, and there are no marks), and it is ten
    times faster than the full class, so :class:`Tokenizer` uses it for ASCII texts.
    ``cjk_runs``: a run of Han ideographs and kana is one token (else each is one)."""
    if alphabet == "ascii":
        return re.compile(r"[A-Za-z0-9]+" if digits else r"[A-Za-z]+")
    cjk = f"[{_cjk_class()}]{'+' if cjk_runs else ''}"
    return re.compile(f"{cjk}|[{_char_class(_letter_ranges(digits))}{_JOINERS}]+")


#: the zero-width non-joiner and joiner, spelling inside a word (Persian, the Indic
#: scripts): a run of letters holds them (its ends are stripped of them)
_JOINERS = "\u200c\u200d"


#: a Han ideograph or kana (the tokens kept whatever ``min_length``)
_CJK_CHAR = re.compile(f"[{_char_class(_CJK_RANGES)}]")


class Tokenizer:
    """Lower-cased word tokens of a text, letters of every script (see the module docstring).

    Parameters
    ----------
    lowercase : bool
        Lower-case the text (after NFKC normalisation).
    digits : bool
        Count decimal digits as word characters (``"x11"``, ``"2024"``); default: letters only.
    stop_words : "english", None or collection of str
        Tokens to drop: scikit-learn's 318-word English list (shipped here as
        :data:`ENGLISH_STOP_WORDS`), none, or the given words (compared lower-cased).
    min_length : int
        Drop tokens shorter than this (single Han ideographs and kana are always kept).
    alphabet : {"unicode", "ascii"}
        ``"unicode"``: the rules above; ``"ascii"``: runs of ``a-z`` only (the former rule).
    cjk_runs : bool
        A run of Han ideographs and kana is one token (what character n-grams need: the
        n-grams of ``"北京"`` include ``"北京"``); by default each is a token of its own.

    Examples
    --------
    >>> Tokenizer()("L'économie de Москва, 2024!")
    ['économie', 'москва']
    >>> Tokenizer(digits=True, stop_words=None)("Windows 3.1 and X11")
    ['windows', 'and', 'x11']
    """

    #: the stop list, lower-cased, stops a token in any case (False: as written, the rule of
    #: the vocabularies of model files written before, set by their Vocabulary)
    _stop_any_case = True

    def __init__(self, lowercase=True, digits=False, stop_words="english", min_length=2,
                 alphabet="unicode", cjk_runs=False):
        if alphabet not in ("unicode", "ascii"):
            raise ValueError(f"alphabet must be 'unicode' or 'ascii', got {alphabet!r}")
        check_whole("min_length", min_length)   # int() cut 2.5 to 2 and took "3"
        self.lowercase = check_flag("lowercase", lowercase)
        self.digits = check_flag("digits", digits)
        self.stop_words = stop_words
        self.min_length = int(min_length)
        self.alphabet = alphabet
        self.cjk_runs = check_flag("cjk_runs", cjk_runs)
        self._stop = resolve_stop_words(stop_words)
        self._ascii_re = _pattern("ascii", self.digits)
        self._re = self._ascii_re if alphabet == "ascii" else None   # compiled on first use

    def __repr__(self):
        return (f"Tokenizer(lowercase={self.lowercase}, digits={self.digits}, "
                f"stop_words={'english' if self._stop is ENGLISH_STOP_WORDS else self.stop_words!r}, "
                f"min_length={self.min_length}, alphabet={self.alphabet!r}"
                f"{', cjk_runs=True' if self.cjk_runs else ''})")

    def normalize(self, text):
        """NFKC (``"unicode"``) and lower-casing, as the tokens see the text; with
        ``"unicode"``, the invisible format characters that carry no meaning inside a word
        (a soft hyphen, a direction mark, a word joiner, ...) are removed first
        (:func:`structpred.io.word_form`), except the zero-width space, which separates
        words (of Thai, Khmer, Burmese) as Unicode's word boundaries (UAX #29) say."""
        if not isinstance(text, str):
            raise TypeError(f"expected a string, got {type(text).__name__}")
        if self.alphabet == "unicode" and not text.isascii():
            text = word_form(text, "NFKC", zero_width_space=False)
        return text.lower() if self.lowercase else text

    def __call__(self, text):
        """The tokens of ``text`` (a list of str)."""
        text = self.normalize(text)
        if text.isascii():
            toks = self._ascii_re.findall(text)
        else:
            if self._re is None:        # the full class is built once per process (~0.3 s)
                self._re = _pattern(self.alphabet, self.digits, self.cjk_runs)
            toks = self._re.findall(text)
            if "\u200c" in text or "\u200d" in text:   # a joiner is not a word's end
                toks = [t for t in (t.strip(_JOINERS) for t in toks) if t]
        stop, n = self._stop, self.min_length
        if stop and not self.lowercase and self._stop_any_case:   # 'The' is 'the' (was kept)
            toks, stop = [t for t in toks if t.lower() not in stop], frozenset()
        if n > 1:
            toks = [t for t in toks if (len(t) >= n or _CJK_CHAR.match(t)) and t not in stop]
        elif stop:
            toks = [t for t in toks if t not in stop]
        return toks
