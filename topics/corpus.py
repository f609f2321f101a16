"""Corpus handling for the topic-model classifiers.

* :func:`tokenize` -- lower-cased word tokens, letters of every script
  (:class:`topics.tokens.Tokenizer`), the standard English stop list (the 318-word list
  that scikit-learn ships as ``ENGLISH_STOP_WORDS``, copied so that this module needs no
  scikit-learn), a minimum token length.
* :class:`Vocabulary` -- word (or n-gram) <-> id map with frequency cut-offs
  (``min_count``, ``min_df``, ``max_df``, ``max_features``) and optional binary or
  tf-idf weighting.  Words that are
  not in the vocabulary are *dropped* at transform time.
* :func:`check_counts` -- validates a document-term matrix (sparse or dense):
  no NaN/inf, no negative counts, 2-D; returns CSR.  Where whole counts are needed
  (the Gibbs samplers), non-integer values (e.g. TF-IDF) are refused unless
  ``round_counts=True``, and so are absurd counts (a cell above ``2**31 - 1``, or
  more tokens than the machine's memory can hold).
* :func:`token_arrays` -- expands a CSR count matrix into the flat token
  arrays used by the numba samplers: ``words`` (int32), ``docs`` (int32) and
  ``offsets`` (int64, length ``n_docs + 1``; tokens of document ``d`` are
  ``words[offsets[d]:offsets[d+1]]``).  Empty documents are allowed.
* :func:`load_jsonl`, :func:`load_20newsgroups`, :func:`load_reuters_r8`,
  :func:`load_movie_reviews`, :func:`load_bundled_20ng` -- loaders for the
  gzipped JSON-lines sets in ``../shared/data/text`` and the small slice
  bundled in ``data/text``.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import chain
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import NotFittedError

from structpred import (FormatError, check_flag, check_positive, check_whole, physical_memory,
                        read_lines)
from structpred.io import unwritable_token

__all__ = [
    "ENGLISH_STOP_WORDS", "ANALYZERS", "char_ngrams", "tokenize", "Vocabulary", "check_counts", "token_arrays",
    "as_count_matrix", "check_token_budget", "physical_memory", "load_jsonl",
    "load_20newsgroups", "load_reuters_r8",
    "load_movie_reviews", "load_bundled_20ng", "strip_newsgroup_headers", "load_brown_genres",
    "load_text_corpus", "TEXT_CORPORA",
    "BUNDLED_DATA_DIR", "DEFAULT_SHARED_DATA_DIR",
]

from .tokens import ENGLISH_STOP_WORDS, Tokenizer  # noqa: E402  (re-exported)

REPO_ROOT = Path(__file__).resolve().parents[1]
BUNDLED_DATA_DIR = REPO_ROOT / "data" / "text"
DEFAULT_SHARED_DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "text"

_WEIGHTINGS = ("counts", "binary", "tfidf")
#: the longest n-gram a vocabulary takes: a document of L words has about L n-grams of each
#: length, so the cost grows with n (``--ngrams 100000`` ran for minutes on 40 posts), and
#: runs of more than a few words recur too rarely to be features
MAX_NGRAM = 10


#: what the terms of a :class:`Vocabulary` are: words (and word n-grams), or the character
#: n-grams of the words
ANALYZERS = ("word", "char_wb")


def char_ngrams(tokens, lo, hi):
    """The character n-grams, ``lo <= n <= hi``, of each token written with a space on
    either side (scikit-learn's ``char_wb``): ``char_ngrams(["ab"], 2, 3)`` is
    ``[" a", "ab", "b ", " ab", "ab "]``.  A padded token shorter than ``n`` gives no
    n-gram of length ``n`` (scikit-learn gives it once, whole)."""
    out = []
    for t in tokens:
        w = f" {t} "
        for n in range(lo, hi + 1):
            out.extend(w[i:i + n] for i in range(len(w) - n + 1))
    return out


def _counted_char_ngrams(tokens, lo, hi):
    """``Counter(char_ngrams(tokens, lo, hi))``, the n-grams of each distinct token made once."""
    out = Counter()
    for t, c in Counter(tokens).items():
        for g in char_ngrams((t,), lo, hi):
            out[g] += c
    return out


def tokenize(text: str, stop_words=ENGLISH_STOP_WORDS, min_length: int = 2, *, digits=False,
             lowercase=True, alphabet="unicode") -> list[str]:
    """The word tokens of ``text`` (:class:`topics.tokens.Tokenizer`): letters of every
    script, lower-cased, stop words and tokens shorter than ``min_length`` removed."""
    return Tokenizer(lowercase=lowercase, digits=digits, stop_words=stop_words,
                     min_length=min_length, alphabet=alphabet)(text)


def _document_list(docs):
    """``docs`` as a list; a single string (an iterable of one-letter "documents") is
    refused rather than read letter by letter."""
    if isinstance(docs, (str, bytes)):
        raise TypeError("expected a sequence of documents (a list, array or Series of "
                        "strings), got a single string; wrap it in a list")
    return list(docs)


class Vocabulary(TransformerMixin, BaseEstimator):
    """Word <-> id map built from raw texts or token lists, with frequency cut-offs and an
    optional weighting of the counts.

    A scikit-learn transformer: ``get_params``/``set_params``/``sklearn.base.clone`` see the
    parameters below (nothing else is set by ``__init__``), :meth:`fit` sets the
    attributes ending in ``_``; it takes (and ignores) a ``y``, as in a ``Pipeline``.

    Parameters
    ----------
    min_count : int
        Keep words with at least this many occurrences in the fitting corpus.
    min_df : int or float
        Minimum document frequency (absolute if int, fraction of documents if float).
    max_df : int or float
        Maximum document frequency (absolute if int, fraction if float).
    max_features : int or None
        Keep only the most frequent words (ties broken alphabetically).
    stop_words : "english", set or None
        Stop list applied when the documents are raw strings (token lists are
        taken as already tokenised; stop words are still removed from them).
    min_length : int
        Minimum token length for raw strings.
    ngram_range : (int, int)
        ``(lo, hi)``: the terms are the n-grams of ``lo <= n <= hi`` adjacent tokens (after
        stop-word removal), an n-gram spelled as its tokens joined by single spaces.  The
        default ``(1, 1)`` keeps single words; ``(1, 2)`` adds bigrams.  The frequency
        cut-offs apply to every term alike.
    lowercase, digits, alphabet :
        How raw strings are split into tokens (:class:`topics.tokens.Tokenizer`): letters of
        every script by default, digits as an option; token lists are lower-cased (or not)
        as texts are, and a stop word is stopped in any case.
    analyzer : {"word", "char_wb"}
        ``"word"``: the terms are the words and word n-grams above.  ``"char_wb"``: the
        terms are the character n-grams of each token written with a space on either side
        (``"cat"`` -> ``" c"``, ``"ca"``, ..., ``"t "`` for ``ngram_range=(2, 2)``), as
        scikit-learn's ``char_wb`` analyzer makes them, but from the tokens above: n-grams
        of characters do not need the words of a language to be known, nor text to be split
        into words (a run of Chinese characters and kana is one token here, not one token
        each as for words; its n-grams are the terms).
    weighting : {"counts", "binary", "tfidf"}
        What :meth:`transform` returns for term ``w`` of document ``d`` with count
        ``c_dw``: the count; ``1`` if ``c_dw > 0``; or ``tf(c_dw) * idf_w`` with
        ``idf_w = ln((1 + n) / (1 + df_w)) + 1`` (eq. 1) over the ``n`` fitting documents.
    sublinear_tf : bool
        ``tf(c) = ln(1 + c)`` instead of ``c`` (counts and tfidf).
    norm : float or None
        Rescale each document's row to this Euclidean norm (eq. 2: ``x_d <- norm x_d /
        ||x_d||``; empty rows stay 0).  A norm of a few units keeps the row count-like, which
        the naive Bayes models need (their likelihood multiplies ``x_dw`` into ``ln theta``).

    Attributes
    ----------
    words_ : list of str
    index_ : dict  word -> column
    idf_ : ndarray or None
        Eq. 1 (``weighting="tfidf"`` only).

    Read before :meth:`fit`, the three are empty (no words, no idf; the class's values,
    as the saved models and ``len()`` of an unfitted vocabulary read them): an unfitted
    vocabulary has ``len() == 0`` and :meth:`transform` raises ``NotFittedError``.
    """

    #: what an unfitted vocabulary reads (``fit`` sets the instance's own)
    words_: Sequence[str] = ()
    index_: Mapping[str, int] = MappingProxyType({})
    idf_ = None
    #: ``char_wb``: a run of Han ideographs and kana is one token, whose n-grams are terms;
    #: ``lowercase=False``: a token is stopped in any case.  False in a vocabulary read from
    #: a model file written before, as it was fitted (:func:`topics._persist.rebuild_vocabulary`)
    _cjk_runs = True
    _stop_any_case = True

    def __init__(self, min_count=1, min_df=1, max_df=1.0, max_features=None,
                 stop_words=ENGLISH_STOP_WORDS, min_length=2, ngram_range=(1, 1),
                 lowercase=True, digits=False, alphabet="unicode", weighting="counts",
                 sublinear_tf=False, norm=None, analyzer="word"):
        self.min_count = min_count
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.stop_words = stop_words
        self.min_length = min_length
        self.ngram_range = ngram_range
        self.lowercase = lowercase
        self.digits = digits
        self.alphabet = alphabet
        self.weighting = weighting
        self.sublinear_tf = sublinear_tf
        self.norm = norm
        self.analyzer = analyzer

    @property
    def counts_only(self) -> bool:
        """True if :meth:`transform` returns raw counts (what the Gibbs samplers need)."""
        return self.weighting == "counts" and not self.sublinear_tf and self.norm is None

    def tokenizer(self) -> Tokenizer:
        """The :class:`topics.tokens.Tokenizer` that raw strings go through."""
        tok = Tokenizer(lowercase=self.lowercase, digits=self.digits,
                        stop_words=self.stop_words, min_length=self.min_length,
                        alphabet=self.alphabet,
                        cjk_runs=self._cjk_runs and self._check_analyzer() == "char_wb")
        tok._stop_any_case = self._stop_any_case
        return tok

    def analyze(self, docs: Iterable):
        """The terms (words or n-grams) of each document, one list per document."""
        return self._analyze(docs)

    def _analyze(self, docs, counted=False):
        """:meth:`analyze`; with ``counted``, a document's character n-grams as a
        ``Counter`` (term -> count), made once for each distinct token: kept as lists they
        took 1.7 GB for one document of 5 MB."""
        stop = self.tokenizer()._stop
        tok = self.tokenizer()
        lo, hi = self._ngram_bounds()
        chars = self._check_analyzer() == "char_wb"
        if isinstance(docs, (str, bytes)):
            _document_list(docs)   # refused: a string is not a sequence of documents
        for i, doc in enumerate(docs):
            if isinstance(doc, str):
                toks = tok(doc)
            elif isinstance(doc, (list, tuple)):
                bad = next((t for t in doc if not isinstance(t, str)), doc)
                if bad is not doc:   # 1 and None were read as the words "1" and "none"
                    raise TypeError(f"document {i}: a token must be a string, got "
                                    f"{type(bad).__name__} {bad!r:.40}")
                # as the tokenizer reads a text: NFKC, no invisible format characters
                # (a variation selector inside a word was another word than in the text)
                # (lower-cased as the text is: with lowercase=False 'Paris' was 'paris')
                toks = [t for t in map(tok.normalize, doc) if t]
                odd = unwritable_token(toks)
                if odd is not None:   # "big cat" was the bigram of "big" and "cat"
                    raise ValueError(f"document {i}: the token {odd!r:.40} holds white "
                                     "space: a token list holds words (an n-gram's words "
                                     "are joined by a space); split it")
                if stop and tok._stop_any_case:
                    toks = [t for t in toks if t.lower() not in stop]
                elif stop:
                    toks = [t for t in toks if t not in stop]
            else:
                raise TypeError(f"a document must be a string or a list of tokens, "
                                f"got {type(doc).__name__}")
            if chars:
                toks = _counted_char_ngrams(toks, lo, hi) if counted else char_ngrams(toks, lo, hi)
            elif (lo, hi) != (1, 1):
                grams = toks if lo == 1 else []
                for n in range(max(lo, 2), hi + 1):
                    if n == 2:
                        grams = grams + [a + " " + b for a, b in zip(toks, toks[1:])]
                    else:
                        grams = grams + [" ".join(toks[i:i + n])
                                         for i in range(len(toks) - n + 1)]
                toks = grams
            yield toks

    _tokens = analyze

    def _check_analyzer(self):
        if self.analyzer not in ANALYZERS:
            raise ValueError(f"analyzer must be one of {ANALYZERS}, got {self.analyzer!r}")
        return self.analyzer

    def _ngram_bounds(self):
        try:
            lo, hi = self.ngram_range
            check_whole("ngram_range", lo)
            check_whole("ngram_range", hi)
        except (TypeError, ValueError):   # 2, (1, 2.5), (True, 2): int() took or cut them
            raise ValueError(f"ngram_range must be a pair of integers, got "
                             f"{self.ngram_range!r}") from None
        if not 1 <= lo <= hi <= MAX_NGRAM:
            raise ValueError(f"ngram_range must satisfy 1 <= lo <= hi <= {MAX_NGRAM}, got "
                             f"{self.ngram_range!r}")
        return int(lo), int(hi)

    def _check_weighting(self):
        if self.weighting not in _WEIGHTINGS:
            raise ValueError(f"weighting must be one of {_WEIGHTINGS}, got {self.weighting!r}")
        check_flag("sublinear_tf", self.sublinear_tf)
        if self.norm is not None:   # float() took "2", and "l2" was its "could not convert"
            check_positive("norm", self.norm)

    def fit(self, docs: Iterable, y=None) -> "Vocabulary":
        """Fit on raw texts or token lists (``y`` is ignored)."""
        return self.fit_terms(self._counted_terms(_document_list(docs)))

    def _counted_terms(self, docs):
        """:meth:`analyze`'s terms of ``docs``, each document's as a ``Counter`` (term ->
        count) for character n-grams (:meth:`_analyze`)."""
        return list(self._analyze(docs, counted=self._check_analyzer() != "word"))

    def _check_cutoffs(self):
        """``min_df``/``max_df`` a count >= 0 or a fraction in [0, 1], ``min_count`` a count,
        ``max_features`` None or a count >= 1 (NaN was numpy's "cannot convert float NaN",
        -1 and 1.5 were taken: no cut-off, and 1 term)."""
        for name in ("min_df", "max_df"):
            v = getattr(self, name)
            if isinstance(v, (float, np.floating)):
                if not 0.0 <= v <= 1.0:
                    raise ValueError(f"{name} must be a count (an integer >= 0) or a fraction "
                                     f"in [0, 1], got {v!r}")
            else:
                check_whole(name, v, lo=0)
        check_whole("min_count", self.min_count, lo=0)
        if self.max_features is not None:
            check_whole("max_features", self.max_features)

    def fit_terms(self, terms: Sequence[list]) -> "Vocabulary":
        """Fit on the output of :meth:`analyze` (lets a caller analyse a corpus once); a
        document's terms may also be a mapping, term -> count."""
        self._check_weighting()
        self._check_cutoffs()
        if len(terms) == 0:
            raise ValueError("cannot build a vocabulary from an empty corpus")
        tf = Counter()
        for t in terms:          # a list of terms, or a Counter of them (_counted_terms)
            tf.update(t)
        if not tf:   # it blamed the frequency cut-offs
            lo = self._ngram_bounds()[0]
            short = "" if lo == 1 else f", or no document has {lo} tokens (ngram_range)"
            if self._check_analyzer() == "char_wb":   # it said tokens, of character n-grams
                short = "" if lo <= 3 else (f", or no token has {lo - 2} characters or more "
                                            f"(ngram_range from {lo}: a token and the spaces "
                                            "around it make no longer n-gram)")
            number = "" if self.digits else "a number (digits=False), "
            kinds = "letters or digits" if self.digits else "letters"
            raise ValueError(f"the documents hold no term: every token is a stop word, "
                             f"{number}or shorter than min_length={self.min_length} "
                             f"characters{short}; a token is a run of {kinds} of any script "
                             "(punctuation, symbols and emoji make none)")
        df = Counter(chain.from_iterable(map(set, terms)))
        n = len(terms)
        min_df = self.min_df if isinstance(self.min_df, (int, np.integer)) else int(np.ceil(self.min_df * n))
        max_df = self.max_df if isinstance(self.max_df, (int, np.integer)) else int(np.floor(self.max_df * n))
        if min_df > 1 or max_df < n:
            tf = {w: c for w, c in tf.items() if min_df <= df[w] <= max_df}
        if self.min_count > 1:
            tf = {w: c for w, c in tf.items() if c >= self.min_count}
        words = list(tf)
        words.sort(key=lambda w: (-tf[w], w))
        if self.max_features is not None:
            words = words[: int(self.max_features)]
        words.sort()
        if not words:
            raise ValueError(f"the vocabulary is empty after applying the frequency cut-offs "
                             f"(min_df={self.min_df!r}, max_df={self.max_df!r}, min_count="
                             f"{self.min_count!r}) to the {len(df)} terms of the documents")
        self.words_ = words
        self.index_ = {w: i for i, w in enumerate(words)}
        self.idf_ = None
        if self.weighting == "tfidf":
            dfs = np.array([df[w] for w in words], dtype=np.float64)
            self.idf_ = np.log((1.0 + n) / (1.0 + dfs)) + 1.0                       # eq. 1
        return self

    def __len__(self) -> int:
        return len(self.words_)

    def get_feature_names_out(self, input_features=None):
        """The terms of the columns of :meth:`transform`, in order (scikit-learn's name for
        them: a ``Pipeline`` and ``set_output`` read it), as an object array of str."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        return np.asarray(list(self.words_), dtype=object)

    def transform(self, docs: Iterable) -> sp.csr_matrix:
        """Document-term matrix (CSR): int64 counts, or float64 weights (``weighting``,
        ``sublinear_tf``, ``norm``).  Unknown words are dropped."""
        if not self.index_:   # before the documents are read
            raise NotFittedError("the vocabulary is not fitted: call fit")
        return self.transform_terms(self._analyze(docs, counted=self._check_analyzer() != "word"))

    def transform_terms(self, terms: Iterable[list]) -> sp.csr_matrix:
        """:meth:`transform` of the output of :meth:`analyze` (a document's terms a list, or
        a mapping term -> count)."""
        if not self.index_:   # scikit-learn's NotFittedError, a ValueError
            raise NotFittedError("the vocabulary is not fitted: call fit")
        index = self.index_
        indptr = [0]
        indices: list[int] = []
        counts = None     # each index a count of 1, until a document comes as a mapping
        for toks in terms:
            n = len(indices)
            if isinstance(toks, Mapping):
                counts = [1] * n if counts is None else counts
                kept = [(j, c) for j, c in zip(map(index.get, toks), toks.values())
                        if j is not None]
                indices.extend(j for j, _ in kept)
                counts.extend(c for _, c in kept)
            else:
                indices.extend(j for j in map(index.get, toks) if j is not None)
                if counts is not None:
                    counts.extend([1] * (len(indices) - n))
            indptr.append(len(indices))
        ind = np.asarray(indices, dtype=np.int32)
        data = np.ones(ind.size, dtype=np.int64) if counts is None else np.asarray(
            counts, dtype=np.int64)
        X = sp.csr_matrix((data, ind,
                           np.asarray(indptr, dtype=np.int64)),
                          shape=(len(indptr) - 1, len(self.words_)))
        X.sum_duplicates()                              # sorts the indices, adds the counts
        return self.weigh(X)

    def weigh(self, X) -> sp.csr_matrix:
        """Apply ``weighting``, ``sublinear_tf`` and ``norm`` to a CSR count matrix."""
        self._check_weighting()
        if self.counts_only:
            return X
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        if self.weighting == "binary":
            X.data[:] = 1.0
        elif self.sublinear_tf:
            np.log1p(X.data, out=X.data)
        if self.weighting == "tfidf":
            if self.idf_ is None:
                raise ValueError("the vocabulary has no idf_: fit it with weighting='tfidf'")
            X.data *= self.idf_[X.indices]
        if self.norm is not None:
            lengths = np.diff(X.indptr)
            rows = np.repeat(np.arange(X.shape[0]), lengths)
            norms = np.sqrt(np.bincount(rows, weights=X.data ** 2, minlength=X.shape[0]))
            scale = np.zeros(X.shape[0])
            scale[norms > 0] = float(self.norm) / norms[norms > 0]                 # eq. 2
            X.data *= scale[rows]
        return X

    def fit_transform(self, docs: Iterable, y=None) -> sp.csr_matrix:
        """:meth:`fit`, then :meth:`transform` of the same documents, analysed once."""
        terms = self._counted_terms(_document_list(docs))
        return self.fit_terms(terms).transform_terms(terms)


def is_text_input(X) -> bool:
    """True if ``X`` is a sequence of raw strings or of token lists (not a count matrix): a
    list or tuple, a 1-D NumPy array of strings (object or unicode dtype) or a pandas Series
    of strings."""
    if sp.issparse(X):
        return False
    if isinstance(X, np.ndarray):
        return X.ndim == 1 and (X.dtype == object or X.dtype.kind == "U")
    if hasattr(X, "iloc") and getattr(X, "ndim", 0) == 1:          # a pandas Series
        return len(X) > 0 and isinstance(X.iloc[0], (str, list, tuple))
    if isinstance(X, (list, tuple)) and len(X) > 0:
        first = X[0]
        if isinstance(first, str) or (isinstance(first, (list, tuple)) and len(first) == 0):
            return True
        # token lists with a number among the words (``[1, "c"]``) are texts too, refused
        # by the vocabulary in words; rows of numbers only are a count matrix
        return isinstance(first, (list, tuple)) and any(
            isinstance(t, str) for d in X if isinstance(d, (list, tuple)) for t in d)
    return False


#: values within this distance of an integer count as whole counts (``2.0``, ``3 - 1e-12``)
INTEGER_TOLERANCE = 1e-8
#: the largest single count the token arrays accept (their indices are 32-bit)
MAX_COUNT = 2**31 - 1
#: bytes the samplers keep per token: the flat word (int32) and document (int32) ids and
#: the topic assignment (int64), plus the temporary copies made while building them
BYTES_PER_TOKEN = 24




def _format_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1000.0
    return f"{n:.3g} PB"  # pragma: no cover


def check_topic_tables(n_topics, n_words, n_docs) -> None:
    """``ValueError`` when a topic model's tables alone could not fit in memory: at least a
    topic-word table (K x V) and the documents' topic proportions (D x K) in float64,
    ``8 K (V + D)`` bytes (``n_topics=10**9`` was numpy's "Allocation failed" deep in a fit,
    or swapping without bound)."""
    need = 8.0 * int(n_topics) * (n_words + n_docs)
    _refuse_beyond_memory(need, lambda have: (
        f"the topic tables alone need about {need / 2**30:,.1f} GiB ({int(n_topics):,} topics "
        f"x ({n_words:,} words + {n_docs:,} documents) x 8 bytes), more than this machine's "
        f"{have / 2**30:,.1f} GiB; give fewer topics"))


def _refuse_beyond_memory(need, message):
    """``ValueError(message(memory))`` when ``need`` bytes exceed this machine's memory."""
    have = physical_memory()
    if have is not None and need > have:
        raise ValueError(message(have))


def check_token_budget(total, *, name="X") -> None:
    """``ValueError`` if ``total`` word tokens would not fit in this machine's memory.

    The Gibbs samplers keep one entry per token (:data:`BYTES_PER_TOKEN` bytes), so a
    matrix of absurd counts (e.g. ``1e15`` in a cell) is refused here, before any
    allocation, rather than failing with a petabyte-sized ``MemoryError``.
    """
    total = float(total)
    need = total * BYTES_PER_TOKEN
    _refuse_beyond_memory(need, lambda mem: (
        f"{name} holds {total:.1e} word tokens; the samplers keep one entry per token, which "
        f"needs ~{_format_bytes(need)}, more than this machine's {_format_bytes(mem)} of "
        "memory: are these counts? (give raw word counts, e.g. from CountVectorizer)"))


def _cell(X: sp.csr_matrix, k: int) -> tuple[int, int]:
    """Row and column of the ``k``-th stored entry of the CSR matrix ``X``."""
    row = int(np.searchsorted(X.indptr, k, side="right") - 1)
    return row, int(X.indices[k])


def ragged_rows_message(X, name="X") -> str:
    """The message for a nested list whose rows differ in length (not a matrix)."""
    lengths = [len(r) if hasattr(r, "__len__") else 1 for r in X]
    i = next((k for k, n in enumerate(lengths) if n != lengths[0]), 0)
    return (f"{name} is not a matrix: its rows differ in length (row 0 has {lengths[0]} "
            f"values, row {i} has {lengths[i]}); give one column per term in every row")


def check_counts(X, *, integer=False, round_counts=False, allow_empty_rows=True,
                 name="X") -> sp.csr_matrix:
    """Validate a document-term matrix and return it as CSR float64 (or int64).

    Raises ``ValueError`` on an empty corpus (no rows or no columns), NaN or
    infinite entries, negative counts, or a non-2-D input.

    With ``integer=True`` (the Gibbs samplers need whole word tokens) the result is
    int64 and also ``ValueError`` is raised when

    * a value is not a whole number (farther than :data:`INTEGER_TOLERANCE` from an
      integer, e.g. TF-IDF weights) -- unless ``round_counts=True``, which rounds
      every value to the nearest integer instead; ``2.0`` is accepted either way;
    * a single count exceeds :data:`MAX_COUNT` (``2**31 - 1``), or the total number of
      tokens would not fit in this machine's memory (:func:`check_token_budget`).
    """
    if not isinstance(round_counts, (bool, np.bool_)):
        raise ValueError(f"round_counts must be True or False, got {round_counts!r}")
    if sp.issparse(X):
        # a copy: the caller's matrix is never changed (eliminate_zeros and sort_indices
        # below rewrote the arrays it shares, changing its values); duplicate entries of
        # one cell summed first (each was a token, or a presence, of its own: the model
        # depended on how the matrix was stored)
        X = sp.csr_matrix(X, copy=True)
        X.sum_duplicates()
        data = X.data
    else:
        try:
            X = np.asarray(X)
        except ValueError as exc:   # numpy's "inhomogeneous shape" of ragged rows
            raise ValueError(ragged_rows_message(X, name)) from exc
        if X.dtype == object:
            try:
                X = X.astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name} must be a numeric document-term matrix") from exc
        if X.ndim != 2:
            raise ValueError(f"{name} must be a 2-D document-term matrix, got {X.ndim}-D")
        data = X
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"empty corpus: {name} has shape {X.shape}")
    if np.asarray(data).dtype == bool:   # presence or absence: counts 0 and 1
        data = np.asarray(data, dtype=np.float64)
        X = X.astype(np.float64)
    if not np.issubdtype(np.asarray(data).dtype, np.number):
        raise ValueError(f"{name} must be numeric")
    data = np.asarray(data, dtype=np.float64)
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contains NaN or infinite counts")
    if data.size and data.min() < 0:
        raise ValueError(f"{name} contains negative counts")
    X = sp.csr_matrix(X, dtype=np.float64)
    if integer:
        whole = np.rint(X.data)
        if not round_counts:
            off = np.flatnonzero(np.abs(X.data - whole) > INTEGER_TOLERANCE)
            if off.size:
                r, c = _cell(X, int(off[0]))
                raise ValueError(
                    f"{name} holds non-integer counts (e.g. {X.data[off[0]]:.6g} in row {r}, "
                    f"column {c}): the Gibbs samplers need whole word counts; pass "
                    f"round_counts=True to round them, or give raw counts (CountVectorizer, "
                    f"not TfidfVectorizer)")
        check_token_budget(whole.sum(), name=name)
        big = np.flatnonzero(whole > MAX_COUNT)
        if big.size:
            r, c = _cell(X, int(big[0]))
            raise ValueError(f"{name} holds a count of {whole[big[0]]:.1e} (row {r}, column {c}), "
                             f"more than the largest supported count 2**31 - 1: are these "
                             f"counts?")
        X.data = whole
        X = sp.csr_matrix(X, dtype=np.int64)
    X.eliminate_zeros()
    X.sort_indices()
    return X


def token_arrays(X, *, name="X") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat token arrays ``(words, docs, offsets)`` from an integer CSR count matrix.

    ``ValueError`` (:func:`check_token_budget`) before allocating them if the tokens
    would not fit in this machine's memory.
    """
    X = sp.csr_matrix(X)
    counts = np.rint(X.data).astype(np.int64)
    cum = np.concatenate([[0], np.cumsum(counts)])
    check_token_budget(cum[-1], name=name)
    row_tokens = cum[X.indptr[1:]] - cum[X.indptr[:-1]]   # empty rows (even trailing) give 0
    offsets = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(row_tokens, out=offsets[1:])
    words = np.repeat(X.indices.astype(np.int32), counts)
    docs = np.repeat(np.arange(X.shape[0], dtype=np.int32), row_tokens)
    return words, docs, offsets


def as_count_matrix(X, vocabulary: Vocabulary | None, *, integer=False, round_counts=False):
    """Turn token lists / texts (with ``vocabulary``) or a matrix into validated CSR counts.

    ``integer`` / ``round_counts``: require whole counts / round them (:func:`check_counts`).
    """
    if is_text_input(X):
        if vocabulary is None:
            raise ValueError("text input needs a fitted vocabulary")
        X = vocabulary.transform(list(X))
        if X.shape[0] == 0:
            raise ValueError("empty corpus")
        return check_counts(X, integer=integer, round_counts=round_counts)
    return check_counts(X, integer=integer, round_counts=round_counts)


# --------------------------------------------------------------------------- loaders

def load_jsonl(path) -> list[dict]:
    """Read a (gzipped) JSON-lines file into a list of dicts, with
    :func:`structpred.read_lines` (a line of at most ``MAX_DOCUMENT_BYTES``, 16 MiB, as
    ``topics``' other readers take; a longer line, or one that is not JSON, is a
    :class:`~structpred.FormatError` naming file and line)."""
    from ._text_io import MAX_DOCUMENT_BYTES

    name, out = str(path), []
    # JSON is UTF-8 (RFC 8259), whatever a command's --encoding says of its own inputs
    for lineno, line in read_lines(path, "utf-8", max_line=MAX_DOCUMENT_BYTES):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError as exc:
                raise FormatError(name, lineno, f"not a JSON value ({exc})") from None
    return out


def strip_newsgroup_headers(text: str, keep_subject: bool = True) -> str:
    """Drop the header block of a 20 Newsgroups post (ends at the first blank line).

    With ``keep_subject`` the ``Subject:`` line's text is kept in front of the body.
    """
    head, _, body = text.partition("\n\n")
    if keep_subject:
        for line in head.splitlines():
            if line.lower().startswith("subject:"):
                return line[8:].strip() + "\n" + body
    return body


def _prep_20ng(rows, headers):
    if headers == "keep":
        texts = [r["text"] for r in rows]
    elif headers in ("subject", "strip"):
        texts = [strip_newsgroup_headers(r["text"], keep_subject=headers == "subject") for r in rows]
    else:
        raise ValueError("headers must be 'keep', 'subject' or 'strip'")
    return texts


def load_20newsgroups(data_dir=None, subset="train", categories: Sequence[str] | None = None,
                      headers="subject"):
    """20 Newsgroups bydate.  Returns ``(texts, labels, label_names)``.

    ``labels`` are indices into ``label_names`` (the sorted category names that
    were selected).  ``headers``: ``'keep'`` the raw post, ``'subject'`` (default)
    the Subject line plus the body, ``'strip'`` the body only.
    """
    data_dir = Path(data_dir) if data_dir is not None else DEFAULT_SHARED_DATA_DIR
    if subset not in ("train", "test"):
        raise ValueError("subset must be 'train' or 'test'")
    rows = load_jsonl(data_dir / "20newsgroups" / f"20news-bydate-{subset}.jsonl.gz")
    if categories is not None:
        cats = set(categories)
        rows = [r for r in rows if r["label"] in cats]
    names = sorted({r["label"] for r in rows}) if categories is None else sorted(categories)
    idx = {n: i for i, n in enumerate(names)}
    return _prep_20ng(rows, headers), np.array([idx[r["label"]] for r in rows]), names


def load_reuters_r8(data_dir=None, subset="train"):
    """Reuters-21578 R8 (ModApte, single-label, 8 classes): ``(texts, labels, label_names)``."""
    data_dir = Path(data_dir) if data_dir is not None else DEFAULT_SHARED_DATA_DIR
    rows = load_jsonl(data_dir / "reuters21578" / f"reuters21578-modapte-{subset}.jsonl.gz")
    rows = [r for r in rows if r.get("label_r8")]
    names = sorted({r["label_r8"] for r in rows})
    idx = {n: i for i, n in enumerate(names)}
    return [r["text"] for r in rows], np.array([idx[r["label_r8"]] for r in rows]), names


def load_movie_reviews(data_dir=None, test_folds=(9,)):
    """Pang & Lee polarity v2.0.  Returns ``(train_texts, y_train, test_texts, y_test, names)``."""
    data_dir = Path(data_dir) if data_dir is not None else DEFAULT_SHARED_DATA_DIR
    rows = load_jsonl(data_dir / "movie_review_polarity" / "review_polarity_v2.0.jsonl.gz")
    names = ["neg", "pos"]
    tr = [r for r in rows if r["fold"] not in test_folds]
    te = [r for r in rows if r["fold"] in test_folds]
    return ([r["text"] for r in tr], np.array([names.index(r["label"]) for r in tr]),
            [r["text"] for r in te], np.array([names.index(r["label"]) for r in te]), names)


def load_bundled_20ng(subset="train", headers="subject"):
    """The small 20 Newsgroups slice bundled in ``data/text`` (4 groups; see its README)."""
    rows = load_jsonl(BUNDLED_DATA_DIR / f"20ng-4groups-{subset}.jsonl.gz")
    names = sorted({r["label"] for r in rows})
    idx = {n: i for i, n in enumerate(names)}
    return _prep_20ng(rows, headers), np.array([idx[r["label"]] for r in rows]), names


def _brown_is_test(ids_of_genre):
    """The test documents of one Brown genre: every 4th by file id (positions 3, 7, ...)."""
    return {i for k, i in enumerate(sorted(ids_of_genre)) if k % 4 == 3}


def load_brown_genres(data_dir=None, subset="train"):
    """Brown corpus genres (500 documents, 15 genres): ``(texts, labels, label_names)``.

    The corpus has no split; this one is deterministic and stratified: within each genre
    the documents are sorted by their Brown file id (``ca01``, ``ca02``, ...) and every
    fourth one (positions 3, 7, 11, ...) is a test document -- 376 training and 124 test
    documents, every genre in both parts.
    """
    data_dir = Path(data_dir) if data_dir is not None else DEFAULT_SHARED_DATA_DIR
    if subset not in ("train", "test"):
        raise ValueError("subset must be 'train' or 'test'")
    rows = load_jsonl(data_dir / "brown_genres.jsonl.gz")
    by_genre: dict = {}
    for r in rows:
        by_genre.setdefault(r["label"], []).append(r["id"])
    test = set().union(*(_brown_is_test(v) for v in by_genre.values()))
    rows = [r for r in rows if (r["id"] in test) == (subset == "test")]
    names = sorted(by_genre)
    idx = {n: i for i, n in enumerate(names)}
    return [r["text"] for r in rows], np.array([idx[r["label"]] for r in rows]), names


#: the corpora of :func:`load_text_corpus` and how each is split
TEXT_CORPORA = {
    "20ng": "20 Newsgroups bydate, raw posts with their headers: 11,314 train / 7,532 test",
    "r8": "Reuters-21578 R8 (ModApte): 5,485 train / 2,189 test",
    "movies": "movie-review polarity v2.0: folds 0-6 train (1,400) / folds 7-9 test (600)",
    "brown": "Brown genres: every 4th document of each genre by file id is test (376 / 124)",
}


def load_text_corpus(name, subset="train", data_dir=None):
    """One of :data:`TEXT_CORPORA` as ``(texts, labels)``, the labels as class-name strings.

    The texts are what a user would hand to ``structpred topics train`` (20 Newsgroups:
    the raw post, headers included).
    """
    if subset not in ("train", "test"):
        raise ValueError("subset must be 'train' or 'test'")
    if name == "20ng":
        texts, y, names = load_20newsgroups(data_dir, subset, headers="keep")
    elif name == "r8":
        texts, y, names = load_reuters_r8(data_dir, subset)
    elif name == "movies":
        tr, ytr, te, yte, names = load_movie_reviews(data_dir, test_folds=(7, 8, 9))
        texts, y = (tr, ytr) if subset == "train" else (te, yte)
    elif name == "brown":
        texts, y, names = load_brown_genres(data_dir, subset)
    else:
        raise ValueError(f"unknown corpus {name!r}; choose one of {', '.join(TEXT_CORPORA)}")
    return list(texts), np.asarray(names)[y].astype(str)
