"""Vocabularies and flat (CSR-style) integer encodings of a sentence-aligned bitext.

The unsupervised alignment statistics (:mod:`alignment.stats.ibm`, :mod:`alignment.stats.dice`)
run numba kernels over flat ``int32`` arrays of word ids, so a corpus of sentence
pairs is stored like a CSR matrix: the ids of all source sentences concatenated in
``src_ids`` with sentence ``i`` at ``src_ids[src_offsets[i]:src_offsets[i + 1]]``, and
likewise for the target side.

Conventions
-----------
* Every :class:`Vocabulary` reserves two ids: ``NULL_ID = 0`` for the empty word of the
  IBM models (a pseudo-token; :meth:`Vocabulary.encode` never produces it, the IBM
  code adds it itself as source position 0) and ``UNK_ID = 1`` for unknown words (words
  absent from the vocabulary, or rarer than ``min_count`` when it was built).  Real
  words get ids ``2, 3, ...`` in order of decreasing corpus frequency (ties broken by
  the token string), so the encoding is deterministic.
* "Source" is English (index ``j``, length ``m``), "target" is French (index ``k``,
  length ``n``), as in the Hansards gold files (``src_pos tgt_pos``).
* :func:`load_bitext` reads the two gzipped, whitespace-tokenised files of a bitext and
  can drop long or badly aligned pairs for training, except the first ``protect_first``
  lines (none by default; the Hansards experiment, :mod:`alignment.evaluate.protocol`, protects
  its gold sentences, the first lines of ``bitext.36-2.*.gz``, so that they are always
  present and encodable); it reports how many pairs it dropped and why.
"""

from __future__ import annotations

import itertools
import numbers
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from structpred import FormatError, check_flag, check_whole, read_lines
from structpred.io import OTHER_SPACE as _OTHER_SPACE
from structpred.io import blank_tail_hint, counted, split_tokens, word_text

from .cooc import build_cooc, doc_frequencies, find_in_row
from .layouts import check_layout_line

__all__ = [
    "check_bitext_files",
    "paired_lines",
    "NULL_ID",
    "UNK_ID",
    "NULL_TOKEN",
    "UNK_TOKEN",
    "Vocabulary",
    "EncodedCorpus",
    "encode_sentences",
    "Bitext",
    "load_bitext",
    "filter_bitext",
    "length_filter",
    "iter_bitext",
    "read_tokenized",
    "build_cooc",
    "doc_frequencies",
    "find_in_row",
]

NULL_ID = 0
UNK_ID = 1
NULL_TOKEN = "<NULL>"
UNK_TOKEN = "<UNK>"


def read_tokenized(path, max_lines=None):
    """Read a (possibly gzipped) file of whitespace-tokenised sentences.

    Parameters
    ----------
    path : str or path-like
        File with one sentence per line; ``.gz`` files are decompressed.
    max_lines : int, optional
        Read at most this many lines.

    Returns
    -------
    list of list of str
    """
    return [line.split() for line in _read_texts(path, 0, max_lines)]


def _iter_texts(path, skip, stop):
    """Lines ``skip + 1 .. stop`` (1-based, ``stop=None``: to the end) of a text file, read
    with :func:`structpred.read_lines` (bad bytes or truncated gzip: a :class:`FormatError`
    naming the line)."""
    for lineno, text in read_lines(path):
        if stop is not None and lineno > stop:
            break
        if lineno > skip:
            if _OTHER_SPACE.search(text):
                split_tokens(text, path, lineno)   # raises: ASCII spaces and tabs only
            check_layout_line(text, path, lineno)   # markup (Europarl), XML, JSON lines
            yield word_text(text, path, lineno)


def _read_texts(path, skip, stop):
    return list(_iter_texts(path, skip, stop))


def _line_count_error(src_path, tgt_path, n_src, n_tgt, skip_first=0, extra=()):
    """``extra``: the texts of the longer file's surplus lines, if read (a hint when they
    are all blank)."""
    longer, shorter, short_n = ((src_path, tgt_path, n_tgt) if n_src > n_tgt
                                else (tgt_path, src_path, n_src))
    return FormatError(longer, skip_first + short_n + 1, f"line counts differ: {shorter} has "
                       f"only {skip_first + short_n} lines{blank_tail_hint(extra)}")


def paired_lines(src_path, tgt_path, max_pairs=None):
    """``(line number, source text, target text)`` of the two files read side by side
    (1-based line numbers; at most ``max_pairs``); unequal line counts raise the
    :class:`FormatError` of :func:`load_bitext` (both counts, at the shorter file's end)
    once the shorter file ends."""
    end = object()
    pairs = itertools.zip_longest(read_lines(src_path), read_lines(tgt_path), fillvalue=end)
    if max_pairs is not None:
        pairs = itertools.islice(pairs, int(max_pairs))
    n = 0
    for a, b in pairs:
        if a is end or b is end:
            # the texts of the lines left in the longer file
            rest = [(x if y is end else y)[1] for x, y in itertools.chain([(a, b)], pairs)]
            n_src, n_tgt = (n + len(rest), n) if b is end else (n, n + len(rest))
            raise _line_count_error(src_path, tgt_path, n_src, n_tgt, extra=rest)
        n += 1
        yield a[0], a[1], b[1]


def check_bitext_files(src_path, tgt_path, max_pairs=None, skip_first=0):
    """Raise the :class:`FormatError` that :func:`load_bitext` raises about the two files
    (unreadable bytes, separators other than ASCII spaces and tabs, unequal line counts),
    in the same order (the source file first, then the target file, then the counts),
    without holding the lines; return the number of lines otherwise.  Readers that read the
    two files side by side (:mod:`alignment.stats.distributed`) call it on an error, so that
    the user sees the error the in-process reader gives."""
    stop = None if max_pairs is None else skip_first + max_pairs
    n_src = sum(1 for _ in _iter_texts(src_path, skip_first, stop))
    n_tgt = sum(1 for _ in _iter_texts(tgt_path, skip_first, stop))
    if n_src != n_tgt:
        raise _line_count_error(src_path, tgt_path, n_src, n_tgt, skip_first)
    return n_src


class Vocabulary:
    """Bidirectional token <-> integer id map with corpus frequencies.

    Ids ``0`` (``<NULL>``, the IBM empty word) and ``1`` (``<UNK>``) are reserved;
    words get ids from 2 in order of decreasing frequency (ties by string).

    Parameters
    ----------
    tokens : sequence of str
        The real words, in id order (``tokens[i]`` gets id ``i + 2``).
    counts : array_like of int, optional
        Frequencies of ``tokens`` (same order).  ``counts_`` of the vocabulary holds
        them at the word ids, with the number of tokens mapped to ``<UNK>`` while
        building at index 1 and 0 at index 0.
    lowercase : bool
        Lower-case tokens before look-up (in :meth:`build` and :meth:`encode`).
    unk_count : int
        Tokens that were mapped to ``<UNK>`` when the vocabulary was built.
    """

    def __init__(self, tokens=(), counts=None, lowercase=False, unk_count=0):
        tokens = list(tokens)
        self.lowercase = check_flag("lowercase", lowercase)
        self.itos = [NULL_TOKEN, UNK_TOKEN] + tokens
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("duplicate tokens (or a reserved token) in the vocabulary")
        c = np.zeros(len(self.itos), dtype=np.int64)
        if counts is not None:
            counts = np.asarray(counts, dtype=np.int64)
            if counts.shape != (len(tokens),):
                raise ValueError("counts must have one entry per token")
            c[2:] = counts
        c[UNK_ID] = unk_count
        self.counts_ = c

    # -- construction -------------------------------------------------------------
    @classmethod
    def build(cls, sentences, min_count=1, lowercase=False):
        """Build a vocabulary from tokenised sentences.

        Parameters
        ----------
        sentences : iterable of sequence of str
        min_count : int
            Words seen fewer times map to ``<UNK>``.
        lowercase : bool
            Lower-case tokens first.

        Returns
        -------
        Vocabulary
        """
        flat = itertools.chain.from_iterable(sentences)
        if check_flag("lowercase", lowercase):
            flat = (w.lower() for w in flat)
        return cls.from_counts(Counter(flat), min_count=min_count, lowercase=lowercase)

    @classmethod
    def from_counts(cls, cnt, min_count=1, lowercase=False):
        """:meth:`build` from word counts (a mapping word -> count, e.g. the sum of the
        :class:`~collections.Counter` of several parts of a corpus)."""
        cnt = dict(cnt)
        for reserved in (NULL_TOKEN, UNK_TOKEN):
            cnt.pop(reserved, None)
        items = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))
        keep = [(w, c) for w, c in items if c >= min_count]
        unk = sum(c for _, c in items if c < min_count)
        return cls([w for w, _ in keep], [c for _, c in keep], lowercase=lowercase,
                   unk_count=unk)

    @classmethod
    def from_pairs(cls, pairs, side, min_count=1, lowercase=False):
        """Build from a list of ``(src_tokens, tgt_tokens)`` pairs; ``side`` is 0 or 1."""
        return cls.build((p[side] for p in pairs), min_count=min_count, lowercase=lowercase)

    # -- look-up ----------------------------------------------------------------------
    def __len__(self):
        return len(self.itos)

    def __contains__(self, token):
        return self._norm(token) in self.stoi

    def __getitem__(self, token):
        return self.stoi.get(self._norm(token), UNK_ID)

    def _norm(self, token):
        return token.lower() if self.lowercase else token

    def token(self, idx):
        """The string of id ``idx``."""
        return self.itos[idx]

    @property
    def tokens(self):
        """All tokens in id order (including the two reserved ones)."""
        return list(self.itos)

    def encode(self, tokens):
        """Map a token sequence to an ``int32`` id array (unknown words -> ``UNK_ID``)."""
        get = self.stoi.get
        if self.lowercase:
            ids = [get(w.lower(), UNK_ID) for w in tokens]
        else:
            ids = [get(w, UNK_ID) for w in tokens]
        return np.array(ids, dtype=np.int32)

    def decode(self, ids):
        """Map ids back to tokens."""
        return [self.itos[int(i)] for i in ids]

    def __eq__(self, other):
        return (isinstance(other, Vocabulary) and self.itos == other.itos
                and self.lowercase == other.lowercase
                and np.array_equal(self.counts_, other.counts_))

    def __repr__(self):
        return f"Vocabulary({len(self)} ids, lowercase={self.lowercase})"

    # -- (de)serialisation to plain arrays (for .npz files) ---------------------------------
    def to_arrays(self, prefix):
        """Plain-array form: tokens as one UTF-8, newline-joined ``uint8`` buffer."""
        buf = "\n".join(self.itos[2:]).encode("utf-8")
        return {
            f"{prefix}tokens": np.frombuffer(buf, dtype=np.uint8),
            f"{prefix}counts": self.counts_,
            f"{prefix}lowercase": np.array(self.lowercase),
        }

    @classmethod
    def from_arrays(cls, arrays, prefix):
        """Inverse of :meth:`to_arrays`."""
        buf = np.asarray(arrays[f"{prefix}tokens"], dtype=np.uint8).tobytes().decode("utf-8")
        tokens = buf.split("\n") if buf else []
        counts = np.asarray(arrays[f"{prefix}counts"], dtype=np.int64)
        return cls(tokens, counts[2:], lowercase=bool(arrays[f"{prefix}lowercase"]),
                   unk_count=int(counts[UNK_ID]))


def _type_ids(sentences):
    """``(words, ids, offsets)``: the word types of tokenised sentences in order of first
    appearance, every token's index into them (one dictionary look-up per token) and the
    sentences' CSR offsets."""
    n = len(sentences)
    lengths = np.fromiter(map(len, sentences), dtype=np.int64, count=n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    types = defaultdict()
    types.default_factory = types.__len__    # a new word gets the next type id
    ids = np.fromiter(map(types.__getitem__, itertools.chain.from_iterable(sentences)),
                      dtype=np.int64, count=int(offsets[-1]))
    return list(types), ids, offsets


def _flatten_encode(sentences, vocab):
    """``(ids, offsets)`` of tokenised sentences in ``vocab`` (lower-cased first if it
    lower-cases; unknown words: ``UNK_ID``), each word type looked up once."""
    words, raw, offsets = _type_ids(sentences)
    get = vocab.stoi.get
    forms = (w.lower() for w in words) if vocab.lowercase else words
    lut = np.fromiter((get(w, UNK_ID) for w in forms), dtype=np.int32, count=len(words))
    return lut[raw], offsets


def encode_sentences(sentences, normalize=None, min_count=1):
    """``(vocabulary, ids, offsets)`` of tokenised sentences: :meth:`Vocabulary.build` and
    the encoding of :meth:`EncodedCorpus.from_sentences` (the same vocabulary and ids),
    with each word type looked up, counted and normalised once.

    ``normalize``: a function of one word (lower-casing, a prefix) applied before the
    vocabulary is built, as if the sentences had been normalised first; ``None``: the
    tokens as they are.  Every token is mapped to an id of its word type in order of first
    appearance (one dictionary look-up), and the vocabulary and the ids of the types come
    from the types' counts, so the work per token is one look-up and one array index."""
    words, raw, offsets = _type_ids(sentences)
    forms = words if normalize is None else [normalize(w) for w in words]
    counts = {}
    for form, c in zip(forms, np.bincount(raw, minlength=len(words)).tolist()):
        counts[form] = counts.get(form, 0) + c
    vocab = Vocabulary.from_counts(counts, min_count=min_count)
    get = vocab.stoi.get     # the reserved <NULL> and <UNK> keep their ids, as in encoding
    lut = np.fromiter((get(f, UNK_ID) for f in forms), dtype=np.int32, count=len(forms))
    return vocab, lut[raw], offsets


class EncodedCorpus:
    """Sentence pairs as flat ``int32`` id arrays with ``int64`` CSR offsets.

    Parameters
    ----------
    src_ids, tgt_ids : ndarray of int32
        Concatenated word ids of the source / target sentences.
    src_offsets, tgt_offsets : ndarray of int64, shape (n_pairs + 1,)
        Sentence ``i`` is ``src_ids[src_offsets[i]:src_offsets[i + 1]]`` (resp. target).
    src_vocab, tgt_vocab : Vocabulary, optional
        Vocabularies the ids refer to.
    line_ids : ndarray of int64, optional
        0-based line number of every pair in the file it came from.

    Attributes
    ----------
    n_src_types, n_tgt_types : int
        Id space sizes (vocabulary sizes, or ``max id + 1`` without a vocabulary).
    """

    def __init__(self, src_ids, src_offsets, tgt_ids, tgt_offsets, src_vocab=None,
                 tgt_vocab=None, line_ids=None):
        self.src_ids = np.ascontiguousarray(src_ids, dtype=np.int32)
        self.tgt_ids = np.ascontiguousarray(tgt_ids, dtype=np.int32)
        self.src_offsets = np.ascontiguousarray(src_offsets, dtype=np.int64)
        self.tgt_offsets = np.ascontiguousarray(tgt_offsets, dtype=np.int64)
        if len(self.src_offsets) != len(self.tgt_offsets):
            raise ValueError("source and target must have the same number of sentences")
        if (self.src_offsets[-1] != len(self.src_ids)
                or self.tgt_offsets[-1] != len(self.tgt_ids)):
            raise ValueError("offsets do not match the id arrays")
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab
        n = len(self.src_offsets) - 1
        self.line_ids = (np.arange(n, dtype=np.int64) if line_ids is None
                         else np.asarray(line_ids, dtype=np.int64))
        self.n_src_types = self._n_types(self.src_ids, src_vocab)
        self.n_tgt_types = self._n_types(self.tgt_ids, tgt_vocab)

    @staticmethod
    def _n_types(ids, vocab):
        top = int(ids.max()) + 1 if len(ids) else 2
        if vocab is not None:
            if top > len(vocab):
                raise ValueError("ids exceed the vocabulary size")
            return len(vocab)
        return max(top, 2)

    @classmethod
    def from_sentences(cls, src_sents, tgt_sents, src_vocab, tgt_vocab, line_ids=None):
        """Encode tokenised sentences (lists of str) with the given vocabularies."""
        if len(src_sents) != len(tgt_sents):
            raise ValueError("source and target must have the same number of sentences")
        s_ids, s_off = _flatten_encode(src_sents, src_vocab)
        t_ids, t_off = _flatten_encode(tgt_sents, tgt_vocab)
        return cls(s_ids, s_off, t_ids, t_off, src_vocab, tgt_vocab, line_ids)

    @classmethod
    def build(cls, src_sents, tgt_sents, normalize=None, min_count=1):
        """Build the vocabularies of tokenised sentences and encode them
        (:func:`encode_sentences`; ``normalize``: a function of one word applied first)."""
        if len(src_sents) != len(tgt_sents):
            raise ValueError("source and target must have the same number of sentences")
        src_vocab, s_ids, s_off = encode_sentences(src_sents, normalize, min_count)
        tgt_vocab, t_ids, t_off = encode_sentences(tgt_sents, normalize, min_count)
        return cls(s_ids, s_off, t_ids, t_off, src_vocab, tgt_vocab)

    @classmethod
    def from_id_lists(cls, src_list, tgt_list, n_src_types=None, n_tgt_types=None):
        """Build from lists of integer id sequences (no vocabularies; for tests)."""
        def flat(lst):
            off = np.zeros(len(lst) + 1, dtype=np.int64)
            np.cumsum([len(x) for x in lst], out=off[1:])
            ids = (np.concatenate([np.asarray(x, dtype=np.int32) for x in lst])
                   if off[-1] else np.zeros(0, dtype=np.int32))
            return ids, off
        s, so = flat(src_list)
        t, to = flat(tgt_list)
        c = cls(s, so, t, to)
        if n_src_types is not None:
            c.n_src_types = max(c.n_src_types, int(n_src_types))
        if n_tgt_types is not None:
            c.n_tgt_types = max(c.n_tgt_types, int(n_tgt_types))
        return c

    def __len__(self):
        return len(self.src_offsets) - 1

    def pair(self, i):
        """``(src_ids, tgt_ids)`` views of sentence pair ``i``."""
        if i < 0:
            i += len(self)
        return (self.src_ids[self.src_offsets[i]:self.src_offsets[i + 1]],
                self.tgt_ids[self.tgt_offsets[i]:self.tgt_offsets[i + 1]])

    def __iter__(self):
        for i in range(len(self)):
            yield self.pair(i)

    @property
    def src_lengths(self):
        return np.diff(self.src_offsets)

    @property
    def tgt_lengths(self):
        return np.diff(self.tgt_offsets)

    def swapped(self):
        """The same corpus with source and target exchanged (shares the arrays)."""
        c = EncodedCorpus.__new__(EncodedCorpus)
        c.src_ids, c.tgt_ids = self.tgt_ids, self.src_ids
        c.src_offsets, c.tgt_offsets = self.tgt_offsets, self.src_offsets
        c.src_vocab, c.tgt_vocab = self.tgt_vocab, self.src_vocab
        c.n_src_types, c.n_tgt_types = self.n_tgt_types, self.n_src_types
        c.line_ids = self.line_ids
        return c

    def subset(self, indices):
        """A new corpus holding the pairs ``indices`` (in that order)."""
        idx = np.asarray(indices)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.int64)

        def take(ids, off):
            starts, ends = off[idx], off[idx + 1]
            lens = ends - starts
            new_off = np.zeros(len(idx) + 1, dtype=np.int64)
            np.cumsum(lens, out=new_off[1:])
            pos = np.repeat(starts - new_off[:-1], lens) + np.arange(new_off[-1])
            return ids[pos], new_off
        s, so = take(self.src_ids, self.src_offsets)
        t, to = take(self.tgt_ids, self.tgt_offsets)
        c = EncodedCorpus(s, so, t, to, self.src_vocab, self.tgt_vocab, self.line_ids[idx])
        c.n_src_types, c.n_tgt_types = self.n_src_types, self.n_tgt_types
        return c

    def __repr__(self):
        return (f"EncodedCorpus({len(self)} pairs, {len(self.src_ids)} src / "
                f"{len(self.tgt_ids)} tgt tokens, {self.n_src_types} / {self.n_tgt_types} types)")


@dataclass
class Bitext:
    """Tokenised sentence pairs read by :func:`load_bitext`.

    Attributes
    ----------
    src, tgt : list of list of str
        Kept sentences.
    line_ids : ndarray of int64
        0-based line number of each kept pair in the files.
    n_read : int
        Lines read.
    dropped : dict
        Number of dropped pairs by reason (``"empty"``, ``"too_long"``, ``"ratio"``).
    """

    src: list
    tgt: list
    line_ids: np.ndarray
    n_read: int
    dropped: dict = field(default_factory=dict)

    @property
    def n_dropped(self):
        return int(sum(self.dropped.values()))

    def __len__(self):
        return len(self.src)

    def report(self, max_len=None):
        """One-line summary of what was read and dropped (``max_len``: the length limit,
        named in the summary)."""
        return report_line(self.n_read, len(self), self.dropped, max_len)

    def encode(self, src_vocab=None, tgt_vocab=None, min_count=1, lowercase=False):
        """Encode into an :class:`EncodedCorpus`, building missing vocabularies here."""
        if src_vocab is None:
            src_vocab = Vocabulary.build(self.src, min_count=min_count, lowercase=lowercase)
        if tgt_vocab is None:
            tgt_vocab = Vocabulary.build(self.tgt, min_count=min_count, lowercase=lowercase)
        return EncodedCorpus.from_sentences(self.src, self.tgt, src_vocab, tgt_vocab,
                                            line_ids=self.line_ids)


def report_line(n_read, n_kept, dropped, max_len=None):
    """``"read 231648 pairs, kept 230401 (left out: 1247 longer than 80 tokens)"``."""
    what = {"empty": "with an empty side",
            "too_long": f"longer than {counted(max_len, 'token')}" if max_len else "too long",
            "ratio": "with a bad length ratio"}
    parts = [f"{v} {what.get(k, k)}" for k, v in dropped.items() if v]
    return (f"read {counted(n_read, 'pair')}, kept {n_kept}"
            + (f" (left out: {', '.join(parts)})" if parts else ""))


def load_bitext(src_path, tgt_path, max_pairs=None, max_len=None, max_ratio=None,
                protect_first=0, skip_first=0):
    """Read a sentence-aligned bitext from two (gzipped) tokenised files.

    Parameters
    ----------
    src_path, tgt_path : str or path-like
        Source (English) and target (French) files, one sentence per line.
    max_pairs : int, optional
        Read only the first ``max_pairs`` lines (after ``skip_first``).
    max_len : int, optional
        Drop pairs where either side has more than ``max_len`` tokens.
    max_ratio : float, optional
        Drop pairs with ``max(m, n) > max_ratio * min(m, n)`` (badly aligned).
    protect_first : int
        Lines ``0 .. protect_first - 1`` of the files are never dropped (default: none;
        the Hansards experiment protects its 484 trial + test gold sentences, lines
        1-484 of ``bitext.36-2``).
    skip_first : int
        Skip this many lines first (e.g. 484 to train on non-gold text only).

    Returns
    -------
    Bitext
        Kept pairs, their 0-based line numbers and a count of the dropped ones per
        reason (``Bitext.report()``).  Empty pairs (one side without tokens) are
        dropped unless protected.

    Raises
    ------
    FormatError
        Invalid UTF-8, corrupt gzip data, or files of different lengths.
    """
    if max_pairs is not None:    # -2 read nothing, 1.5 one line
        check_whole("max_pairs", max_pairs, lo=0)
    check_whole("skip_first", skip_first, lo=0)
    stop = None if max_pairs is None else skip_first + max_pairs
    src_lines = _read_texts(src_path, skip_first, stop)
    tgt_lines = _read_texts(tgt_path, skip_first, stop)
    if len(src_lines) != len(tgt_lines):
        raise _line_count_error(src_path, tgt_path, len(src_lines), len(tgt_lines), skip_first)
    src = [ln.split() for ln in src_lines]
    tgt = [ln.split() for ln in tgt_lines]
    del src_lines, tgt_lines
    return filter_bitext(src, tgt, max_len, max_ratio, protect_first, skip_first)


def filter_bitext(src, tgt, max_len=None, max_ratio=None, protect_first=0, skip_first=0):
    """The :class:`Bitext` that :func:`load_bitext` returns, from the token lists of the
    lines it would read (``src[i]``, ``tgt[i]``: line ``skip_first + i + 1`` of the files,
    as :func:`alignment.data.formats.read_parallel` gives them with ``allow_empty``), so
    that a bitext already read need not be read again."""
    if len(src) != len(tgt):
        raise ValueError(f"{len(src)} source but {len(tgt)} target sentences")
    n = len(src)
    line_ids = np.arange(skip_first, skip_first + n, dtype=np.int64)
    keep, dropped = length_filter(src, tgt, line_ids, max_len, max_ratio, protect_first)
    if keep.all():
        return Bitext(src, tgt, line_ids, n, dropped)
    kept = np.flatnonzero(keep)
    return Bitext([src[i] for i in kept], [tgt[i] for i in kept], line_ids[kept], n, dropped)


def length_filter(src, tgt, line_ids, max_len=None, max_ratio=None, protect_first=0):
    """The pairs :func:`load_bitext` keeps: ``(keep, dropped)``, a boolean array over the
    pairs and the count of dropped pairs per reason (``"empty"``, and ``"too_long"`` /
    ``"ratio"`` when ``max_len`` / ``max_ratio`` is given).  ``line_ids`` are the pairs'
    0-based line numbers; lines below ``protect_first`` are always kept.  ``max_len`` and
    ``max_ratio`` must be numbers >= 1 (``ValueError``: NaN kept every pair, and a value
    below 1 dropped them all)."""
    for name, limit in (("max_len", max_len), ("max_ratio", max_ratio)):
        if limit is not None and (isinstance(limit, bool) or not isinstance(
                limit, numbers.Real) or not limit >= 1):
            raise ValueError(f"{name} must be a number >= 1 (or None), not {limit!r}")
    n = len(src)
    ls = np.fromiter(map(len, src), dtype=np.int64, count=n)
    lt = np.fromiter(map(len, tgt), dtype=np.int64, count=n)
    protected = np.asarray(line_ids) < protect_first
    empty = (ls == 0) | (lt == 0)
    too_long = np.zeros(n, dtype=bool)
    if max_len is not None:
        too_long = (ls > max_len) | (lt > max_len)
    bad_ratio = np.zeros(n, dtype=bool)
    if max_ratio is not None:
        bad_ratio = np.maximum(ls, lt) > max_ratio * np.minimum(ls, lt)
    drop_empty = empty & ~protected
    drop_long = too_long & ~protected & ~drop_empty
    drop_ratio = bad_ratio & ~protected & ~drop_empty & ~drop_long
    keep = ~(drop_empty | drop_long | drop_ratio)
    dropped = {}
    if drop_empty.any():
        dropped["empty"] = int(drop_empty.sum())
    if max_len is not None:
        dropped["too_long"] = int(drop_long.sum())
    if max_ratio is not None:
        dropped["ratio"] = int(drop_ratio.sum())
    return keep, dropped


def iter_bitext(src_path, tgt_path, skip_first=0, max_len=None, max_ratio=None):
    """:func:`load_bitext` read lazily, one pair at a time (for bitexts that should not be
    held in memory at once).

    Yields ``(line, src_tokens, tgt_tokens)`` for each pair from line ``skip_first`` on
    (0-based line numbers, as ``Bitext.line_ids``) that :func:`load_bitext` keeps with the
    same ``max_len`` and ``max_ratio`` and no protected lines: pairs with an empty side,
    more than ``max_len`` tokens on a side or ``max(m, n) > max_ratio * min(m, n)`` are
    skipped.

    Raises
    ------
    FormatError
        Invalid UTF-8, corrupt gzip data, or files of different lengths (raised when the
        shorter file ends).
    """
    for line, a, b in paired_lines(src_path, tgt_path):
        i = line - 1
        if i < skip_first:
            continue
        check_layout_line(a, src_path, line)
        check_layout_line(b, tgt_path, line)
        s = split_tokens(word_text(a, src_path, line), src_path, line)
        t = split_tokens(word_text(b, tgt_path, line), tgt_path, line)
        m, n = len(s), len(t)
        if not m or not n or (max_len is not None and max(m, n) > max_len) \
                or (max_ratio is not None and max(m, n) > max_ratio * min(m, n)):
            continue
        yield i, s, t
