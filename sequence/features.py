"""Feature templates, defined once and used by training, prediction and the CRFsuite peer.

Each token gets a list of feature strings (binary features).  Feature sets:

``"window"``
    bias, the lower-cased word at offsets -2..2, the word itself, and when the file has a
    second column (POS), the tag at offsets -2..2 and the tag bigrams around the token,
    and the value of every further column (the chunk tag of CoNLL-2003's ``word POS chunk
    NER``, say) at the token itself (``c3[0]=I-NP``: it was read and never used);
``"full"`` (the default of ``structpred tag train``)
    ``"window"`` plus prefixes and suffixes of length 1..4, the word shape
    (``Xxxx`` -> ``Xx``, digits ``d``) at offsets -1..1, and word bigrams
    ``w[-1]|w[0]``, ``w[0]|w[1]``.

:class:`FeatureIndex` maps the strings of the training data to columns and builds the
sparse token-by-feature matrices; unseen strings are dropped at prediction time.
"""

from __future__ import annotations

import re

import numpy as np
import scipy.sparse as sp

from structpred.io import word_form

__all__ = ["FEATURE_SETS", "token_features", "sentence_features", "FeatureIndex", "FeatureCodes",
           "word_shape", "column_values"]

FEATURE_SETS = ("window", "full")
_SHAPE = [(re.compile(r"[A-Z]+"), "X"), (re.compile(r"[a-z]+"), "x"), (re.compile(r"[0-9]+"), "d")]


def word_shape(word):
    """Compressed shape: runs of capitals, lower-case letters and digits become ``X``, ``x``
    and ``d`` (``"McDonald's"`` -> ``"XxXx'x"``, ``"1,234.5"`` -> ``"d,d.d"``), in every
    script with letter case (``"Москва"`` -> ``"Xx"``, ``"Über"`` -> ``"Xx"``: the shape of
    a word of Cyrillic or Greek letters was the word itself, and ``Ü`` stayed ``Ü``);
    letters without case (Chinese, Arabic) are kept."""
    if word.isascii():
        for pat, rep in _SHAPE:
            word = pat.sub(rep, word)
        return word
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdecimal() else ch
        if not (out and c in "Xxd" and out[-1] == c):
            out.append(c)
    return "".join(out)


def _nfc(tokens):
    """``tokens`` with every column as :func:`structpred.io.word_form` gives it: in Unicode
    normal form NFC, so that a word spelled with a combining accent (``cafe`` + U+0301) and
    precomposed (``café``) gets one set of features (they were two words: a model trained
    on one form did not know the other), and without the invisible format characters that
    carry no meaning inside a word (``maison`` + U+200F, a right-to-left mark, was another
    word than ``maison``). The tokens written out stay as they were read."""
    if all(c.isascii() for t in tokens for c in t):
        return tokens
    return [tuple(word_form(c) for c in t) for t in tokens]


def sentence_features(tokens, feature_set="full", shapes=None):
    """Feature strings of every token of a sentence (a list of column tuples).

    ``shapes``, a dict, caches :func:`word_shape` per word form across calls."""
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"feature_set must be one of {FEATURE_SETS}, got {feature_set!r}")
    tokens = _nfc(tokens)
    n = len(tokens)
    words = [t[0] for t in tokens]
    lower = [w.lower() for w in words]
    pos = [t[1] for t in tokens] if tokens and len(tokens[0]) > 1 else None
    full = feature_set == "full"
    if full:
        cache = {} if shapes is None else shapes
        shapes = [cache.get(w) or cache.setdefault(w, word_shape(w)) for w in words]

    def at(seq, i, pad):
        return seq[i] if 0 <= i < n else pad

    out = []
    for i in range(n):
        f = ["b", "W=" + words[i]]
        for o in (-2, -1, 0, 1, 2):
            f.append(f"w[{o}]=" + at(lower, i + o, "<s>" if o < 0 else "</s>"))
        if pos is not None:
            for o in (-2, -1, 0, 1, 2):
                f.append(f"p[{o}]=" + at(pos, i + o, "<s>" if o < 0 else "</s>"))
            f.append("p[-1]|p[0]=" + at(pos, i - 1, "<s>") + "|" + pos[i])
            f.append("p[0]|p[1]=" + pos[i] + "|" + at(pos, i + 1, "</s>"))
        for k in range(2, len(tokens[i])):
            f.append(f"c{k + 1}[0]=" + tokens[i][k])
        if full:
            w = words[i]
            for k in range(1, 5):
                if len(w) >= k:
                    f.append(f"pre{k}=" + w[:k])
                    f.append(f"suf{k}=" + w[-k:])
            for o in (-1, 0, 1):
                f.append(f"s[{o}]=" + at(shapes, i + o, "<s>" if o < 0 else "</s>"))
            f.append("w[-1]|w[0]=" + at(lower, i - 1, "<s>") + "|" + lower[i])
            f.append("w[0]|w[1]=" + lower[i] + "|" + at(lower, i + 1, "</s>"))
        out.append(f)
    return out


def column_values(names, column):
    """The values of feature column ``column`` (2: the POS column, 3, ...; the word is 1)
    among feature ``names``: those of the ``p[0]=`` template of :func:`sentence_features`
    for column 2, of ``c3[0]=``, ``c4[0]=`` ... for the further columns."""
    prefix = "p[0]=" if column == 2 else f"c{column}[0]="
    return {n[len(prefix):] for n in names if n.startswith(prefix)}


def token_features(sentences, feature_set="full"):
    """:func:`sentence_features` of every sentence."""
    shapes = {}
    return [sentence_features(s, feature_set, shapes) for s in sentences]


class FeatureIndex:
    """Feature strings of the training data -> column numbers.

    Parameters
    ----------
    names : list of str
        The column of each feature string.
    scale : array_like, optional
        The value of each feature under ``transform(..., scaled=True)``: ``1 / sqrt(count)``
        (its count in the training data) from :meth:`from_features`; the tagger may replace it by
        another power of the count.
    """

    def __init__(self, names, scale=None):
        self.names = list(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.scale = None if scale is None else np.asarray(scale, dtype=np.float64)

    @classmethod
    def from_features(cls, feats, min_count=1):
        """The strings occurring at least ``min_count`` times in ``feats`` (sentences of
        tokens of strings), in order of first occurrence."""
        counts = {}
        for sent in feats:
            for tok in sent:
                for f in tok:
                    counts[f] = counts.get(f, 0) + 1
        kept = [(f, c) for f, c in counts.items() if c >= min_count]
        return cls([f for f, _ in kept], scale=1.0 / np.sqrt([c for _, c in kept]))

    def __len__(self):
        return len(self.names)

    def transform(self, feats, scaled=False):
        """``(x, lengths)``: the CSR token-by-feature matrix of all sentences, one after another.

        With ``scaled``, feature ``f`` has value ``scale[f]`` instead of 1 (from
        :meth:`from_features`, ``1 / sqrt(count_f)``, so that every column of ``F`` has about unit
        norm).
        """
        index = self.index
        indptr = [0]
        indices = []
        lengths = []
        for sent in feats:
            lengths.append(len(sent))
            for tok in sent:
                indices.extend(j for j in (index.get(f) for f in tok) if j is not None)
                indptr.append(len(indices))
        indices = np.asarray(indices, dtype=np.int32)
        x = sp.csr_matrix((np.ones(indices.size), indices, np.asarray(indptr, dtype=np.int64)),
                          shape=(len(indptr) - 1, len(self.names)))
        x.sum_duplicates()
        if scaled:
            x.data *= self.scale[x.indices]
        return x, np.asarray(lengths, dtype=np.int64)


class FeatureCodes:
    """The feature strings of several groups of sentences as integer codes.

    ``add`` encodes a group (the output of :func:`token_features`); every distinct string
    gets the next code when first met, so the codes of the strings that the groups
    ``0..g`` hold are in their order of first occurrence over those groups, one group after
    another.  :meth:`index` and :meth:`transform` then give what
    :meth:`FeatureIndex.from_features` and :meth:`FeatureIndex.transform` give on the
    concatenated strings of the groups, without the strings: the tagger's refit, which
    trains on the training and the validation sentences together, reuses the codes of the
    validated run.
    """

    def __init__(self):
        self.vocab = {}
        self.groups = []   # (codes, token indptr, sentence lengths) per group

    def add(self, feats):
        """Encode one group of sentences; returns its number."""
        vocab = self.vocab
        codes, indptr, lengths = [], [0], []
        for sent in feats:
            lengths.append(len(sent))
            for tok in sent:
                for f in tok:
                    c = vocab.get(f)
                    if c is None:
                        c = vocab[f] = len(vocab)
                    codes.append(c)
                indptr.append(len(codes))
        self.groups.append((np.asarray(codes, dtype=np.int64),
                            np.asarray(indptr, dtype=np.int64),
                            np.asarray(lengths, dtype=np.int64)))
        return len(self.groups) - 1

    def _codes(self, groups):
        return np.concatenate([self.groups[g][0] for g in groups])

    def index(self, groups, min_count=1):
        """``FeatureIndex.from_features`` of the groups' strings, and the column of every
        code (-1: not kept)."""
        counts = np.bincount(self._codes(groups), minlength=len(self.vocab))
        kept = np.flatnonzero(counts >= min_count)   # codes: first-occurrence order
        names = np.empty(len(self.vocab), dtype=object)
        names[list(self.vocab.values())] = list(self.vocab.keys())
        columns = np.full(len(self.vocab), -1, dtype=np.int64)
        columns[kept] = np.arange(kept.size)
        index = FeatureIndex(names[kept].tolist(), scale=1.0 / np.sqrt(counts[kept]))
        return index, columns

    def transform(self, groups, index, columns, scaled=False):
        """``index.transform`` of the groups' strings, one group after another."""
        cols = columns[self._codes(groups)]
        per_token = np.concatenate([np.diff(self.groups[g][1]) for g in groups])
        keep = cols >= 0
        token_of = np.repeat(np.arange(per_token.size), per_token)[keep]
        indptr = np.r_[0, np.cumsum(np.bincount(token_of, minlength=per_token.size))]
        indices = cols[keep].astype(np.int32)
        x = sp.csr_matrix((np.ones(indices.size), indices, indptr.astype(np.int64)),
                          shape=(per_token.size, len(index.names)))
        x.sum_duplicates()
        if scaled:
            x.data *= index.scale[x.indices]
        return x, np.concatenate([self.groups[g][2] for g in groups])
