"""Corpus handling for the topic-model classifiers.

* :func:`tokenize` -- lowercase, alphabetic tokens (``[a-z]+``), the standard
  English stop list (the 318-word list that scikit-learn ships as
  ``ENGLISH_STOP_WORDS``, copied here so that this module needs no
  scikit-learn), a minimum token length.
* :class:`Vocabulary` -- word <-> id map with frequency cut-offs
  (``min_count``, ``min_df``, ``max_df``, ``max_features``).  Words that are
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

import gzip
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = [
    "ENGLISH_STOP_WORDS", "tokenize", "Vocabulary", "check_counts", "token_arrays",
    "as_count_matrix", "check_token_budget", "physical_memory", "load_jsonl",
    "load_20newsgroups", "load_reuters_r8",
    "load_movie_reviews", "load_bundled_20ng", "strip_newsgroup_headers",
    "BUNDLED_DATA_DIR", "DEFAULT_SHARED_DATA_DIR",
]

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

REPO_ROOT = Path(__file__).resolve().parents[1]
BUNDLED_DATA_DIR = REPO_ROOT / "data" / "text"
DEFAULT_SHARED_DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "text"

_TOKEN_RE = re.compile(r"[a-z]+")


def tokenize(text: str, stop_words=ENGLISH_STOP_WORDS, min_length: int = 2) -> list[str]:
    """Lowercase ``text`` and return its alphabetic tokens, stop words removed."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    stop = stop_words if stop_words is not None else ()
    return [t for t in _TOKEN_RE.findall(text.lower()) if len(t) >= min_length and t not in stop]


def _as_token_list(doc, stop_words, min_length) -> list[str]:
    if isinstance(doc, str):
        return tokenize(doc, stop_words, min_length)
    if isinstance(doc, (list, tuple)):
        return [str(t).lower() for t in doc]
    raise TypeError(f"a document must be a string or a list of tokens, got {type(doc).__name__}")


class Vocabulary:
    """Word <-> id map built from raw texts or token lists, with frequency cut-offs.

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
    stop_words : set or None
        Stop list applied when the documents are raw strings (token lists are
        taken as already tokenised; stop words are still removed from them).
    min_length : int
        Minimum token length for raw strings.
    ngram_range : (int, int)
        ``(lo, hi)``: the terms are the n-grams of ``lo <= n <= hi`` adjacent tokens (after
        stop-word removal), an n-gram spelled as its tokens joined by single spaces.  The
        default ``(1, 1)`` keeps single words; ``(1, 2)`` adds bigrams.  The frequency
        cut-offs apply to every term alike.
    """

    def __init__(self, min_count=1, min_df=1, max_df=1.0, max_features=None,
                 stop_words=ENGLISH_STOP_WORDS, min_length=2, ngram_range=(1, 1)):
        self.min_count = min_count
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.stop_words = stop_words
        self.min_length = min_length
        self.ngram_range = ngram_range
        self.words_: list[str] = []
        self.index_: dict[str, int] = {}

    def _tokens(self, docs):
        stop = self.stop_words if self.stop_words is not None else ()
        lo, hi = self._ngram_bounds()
        for doc in docs:
            toks = _as_token_list(doc, self.stop_words, self.min_length)
            if not isinstance(doc, str) and stop:
                toks = [t for t in toks if t not in stop]
            if (lo, hi) != (1, 1):
                toks = [" ".join(toks[i:i + n]) for n in range(lo, hi + 1)
                        for i in range(len(toks) - n + 1)]
            yield toks

    def _ngram_bounds(self):
        try:
            lo, hi = (int(v) for v in self.ngram_range)
        except (TypeError, ValueError):
            raise ValueError(f"ngram_range must be a pair of integers, got {self.ngram_range!r}")
        if not 1 <= lo <= hi:
            raise ValueError(f"ngram_range must satisfy 1 <= lo <= hi, got {self.ngram_range!r}")
        return lo, hi

    def fit(self, docs: Iterable) -> "Vocabulary":
        docs = list(docs)
        if len(docs) == 0:
            raise ValueError("cannot build a vocabulary from an empty corpus")
        tf: Counter = Counter()
        df: Counter = Counter()
        for toks in self._tokens(docs):
            tf.update(toks)
            df.update(set(toks))
        n = len(docs)
        min_df = self.min_df if isinstance(self.min_df, (int, np.integer)) else int(np.ceil(self.min_df * n))
        max_df = self.max_df if isinstance(self.max_df, (int, np.integer)) else int(np.floor(self.max_df * n))
        words = [w for w, c in tf.items()
                 if c >= self.min_count and min_df <= df[w] <= max_df]
        words.sort(key=lambda w: (-tf[w], w))
        if self.max_features is not None:
            words = words[: int(self.max_features)]
        words.sort()
        if not words:
            raise ValueError("the vocabulary is empty after applying the frequency cut-offs")
        self.words_ = words
        self.index_ = {w: i for i, w in enumerate(words)}
        return self

    def __len__(self) -> int:
        return len(self.words_)

    def transform(self, docs: Iterable) -> sp.csr_matrix:
        """Document-term count matrix (CSR, int64).  Unknown words are dropped."""
        if not self.index_:
            raise ValueError("the vocabulary is not fitted")
        index = self.index_
        indptr = [0]
        indices: list[int] = []
        data: list[int] = []
        for toks in self._tokens(docs):
            c = Counter(index[t] for t in toks if t in index)
            for j in sorted(c):
                indices.append(j)
                data.append(c[j])
            indptr.append(len(indices))
        X = sp.csr_matrix((np.asarray(data, dtype=np.int64), np.asarray(indices, dtype=np.int32),
                           np.asarray(indptr, dtype=np.int64)), shape=(len(indptr) - 1, len(self.words_)))
        return X

    def fit_transform(self, docs: Iterable) -> sp.csr_matrix:
        docs = list(docs)
        return self.fit(docs).transform(docs)


def is_text_input(X) -> bool:
    """True if ``X`` is a sequence of raw strings or of token lists (not a count matrix)."""
    if sp.issparse(X) or isinstance(X, np.ndarray):
        return X.dtype == object and X.ndim == 1
    if isinstance(X, (list, tuple)) and len(X) > 0:
        first = X[0]
        return isinstance(first, str) or (isinstance(first, (list, tuple))
                                          and (len(first) == 0 or isinstance(first[0], str)))
    return False


#: values within this distance of an integer count as whole counts (``2.0``, ``3 - 1e-12``)
INTEGER_TOLERANCE = 1e-8
#: the largest single count the token arrays accept (their indices are 32-bit)
MAX_COUNT = 2**31 - 1
#: bytes the samplers keep per token: the flat word (int32) and document (int32) ids and
#: the topic assignment (int64), plus the temporary copies made while building them
BYTES_PER_TOKEN = 24


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (``None`` where ``os.sysconf`` cannot say)."""
    try:
        n = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return int(n) if n > 0 else None


def _format_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1000.0
    return f"{n:.3g} PB"  # pragma: no cover


def check_token_budget(total, *, name="X") -> None:
    """``ValueError`` if ``total`` word tokens would not fit in this machine's memory.

    The Gibbs samplers keep one entry per token (:data:`BYTES_PER_TOKEN` bytes), so a
    matrix of absurd counts (e.g. ``1e15`` in a cell) is refused here, before any
    allocation, rather than failing with a petabyte-sized ``MemoryError``.
    """
    total = float(total)
    need = total * BYTES_PER_TOKEN
    mem = physical_memory()
    if mem is not None and need > mem:
        raise ValueError(f"{name} holds {total:.1e} word tokens; the samplers keep one entry per "
                         f"token, which needs ~{_format_bytes(need)}, more than this machine's "
                         f"{_format_bytes(mem)} of memory: are these counts? (give raw word "
                         f"counts, e.g. from CountVectorizer)")


def _cell(X: sp.csr_matrix, k: int) -> tuple[int, int]:
    """Row and column of the ``k``-th stored entry of the CSR matrix ``X``."""
    row = int(np.searchsorted(X.indptr, k, side="right") - 1)
    return row, int(X.indices[k])


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
        X = sp.csr_matrix(X)
        data = X.data
    else:
        X = np.asarray(X)
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
    """Read a (gzipped) JSON-lines file into a list of dicts."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


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
