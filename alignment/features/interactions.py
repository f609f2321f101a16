"""Fertility (node) and first-order interaction (pair) features, thesis sec. 3.4.1.2-3:
:class:`NodeFeaturizer` and :class:`PairFeaturizer` turn the counts of
:class:`alignment.stats.interactions.InteractionStatistics` into the features of the
fertility penalties and of the pair bonuses (see that module for the statistics)."""

from __future__ import annotations

import numpy as np

from ..stats.interactions import _FREQ_BUCKETS, _PATTERN_NAMES

__all__ = ["NodeFeaturizer", "PairFeaturizer", "NODE_FEATURES", "NODE_HMM_FEATURES",
           "PAIR_FEATURES"]


def _bucket_names():
    lo = (0,) + _FREQ_BUCKETS
    hi = _FREQ_BUCKETS + (None,)
    return [f"freq[{a},{'inf' if b is None else b})" for a, b in zip(lo, hi)]


NODE_FEATURES = ("bias", "1-ibm2_fert2_share", *_bucket_names(), "train_common_never_multi",
                 "train_rare")


#: extra node feature when the statistics carry HMM tables
NODE_HMM_FEATURES = ("1-hmm_extra_fert",)


class NodeFeaturizer:
    r"""Features of the fertility penalties ``s_dj. = w' f(j, d)`` (sec. 3.4.1.2).

    ``phi(word)``: a bias; ``1 -`` the share of the word's occurrences that
    IBM Model 2 aligned to two or more words; its bitext frequency, bucketed
    (one-hot: 0, 1-9, 10-99, ..., 10^4+); and the lexical cue of the training
    gold: "frequent in the training sentences (``min_train_count`` times or
    more) but never seen with fertility >= 2" and "rare in the training
    sentences".  All are in [0, 1] and oriented so that a positive weight
    raises the penalty.  Source and target words have separate weights, and
    level ``d`` uses the cumulative blocks ``d' = 2..d`` (monotone in ``d``).
    """

    def __init__(self, stats, inter, max_fertility=2, multi_src=(), multi_tgt=(),
                 train_src_counts=None, train_tgt_counts=None, min_train_count=3):
        self.stats = stats
        self.inter = inter
        self.D = int(max_fertility)
        self.multi = {"src": set(multi_src), "tgt": set(multi_tgt)}
        self.train_counts = {"src": dict(train_src_counts or {}), "tgt": dict(train_tgt_counts or {})}
        self.min_train_count = int(min_train_count)
        self._hmm = getattr(stats, "hmm", None) is not None
        self.phi_names = NODE_FEATURES + (NODE_HMM_FEATURES if self._hmm else ())
        self.feature_names = [f"{side}:fert>={d}:{nm}" for side in ("src", "tgt")
                              for d in range(2, self.D + 1) for nm in self.phi_names]

    @property
    def n_features(self):
        return len(self.feature_names)

    def phi(self, side, tokens, ids, hmm_fert=None):
        share = self.inter.src_fert_share if side == "src" else self.inter.tgt_fert_share
        count = self.inter.src_count if side == "src" else self.inter.tgt_count
        ids = np.asarray(ids, np.int64)
        ok = (ids >= 0) & (ids < share.size)
        sh = np.where(ok, share[np.where(ok, ids, 0)], 0.0)
        cnt = np.where(ok, count[np.where(ok, ids, 0)], 0)
        b = np.searchsorted(np.array(_FREQ_BUCKETS), cnt, side="right")
        onehot = np.zeros((len(ids), len(_FREQ_BUCKETS) + 1))
        onehot[np.arange(len(ids)), b] = 1.0
        tc = np.array([self.train_counts[side].get(w, 0) for w in tokens])
        common = tc >= self.min_train_count
        never = np.array([w not in self.multi[side] for w in tokens])
        cols = [np.ones(len(ids)), 1.0 - sh, onehot, common & never, ~common]
        if self._hmm:
            # expected fertility of the word in this sentence under the HMM: a word
            # expected to take two links gets a smaller penalty
            cols.append(1.0 - np.clip(np.asarray(hmm_fert) - 1.0, 0.0, 1.0))
        return np.column_stack(cols)

    def transform(self, src, tgt, st=None):
        """``(n_features, (D-1)*(m+n))`` block of non-negative penalty features.

        Columns follow the variable order ``[src fertility (D-1, m), tgt fertility (D-1, n)]``.
        ``st``: the sentence pair's ``pair_statistics``, if already computed (only
        its HMM posteriors are used).
        """
        import scipy.sparse as sp

        e, f = self.stats.encode(src, tgt)
        m, n = len(src), len(tgt)
        L, p = self.D - 1, len(self.phi_names)
        fert = {"src": None, "tgt": None}
        if self._hmm:
            if st is None:
                st = self.stats.pair_statistics(src, tgt)
            fert = {"src": st["hmm_fwd"].sum(1), "tgt": st["hmm_bwd"].sum(0)}
        out = np.zeros((2 * L * p, L * (m + n)))
        for s_i, (side, toks, ids, size, col0) in enumerate(
                (("src", src, e, m, 0), ("tgt", tgt, f, n, L * m))):
            ph = self.phi(side, toks, ids, fert[side]).T            # (p, size)
            for d in range(L):                           # level d+2 uses blocks 0..d
                cols = slice(col0 + d * size, col0 + (d + 1) * size)
                for dd in range(d + 1):
                    rows = slice((s_i * L + dd) * p, (s_i * L + dd + 1) * p)
                    out[rows, cols] = ph
        return sp.csr_matrix(out)


_PAIR_BASE = ("indicator", "share_fwd", "share_bwd", "share_inter", "vit_fwd", "vit_bwd",
              "vit_inter")


#: per-pattern extras when the statistics carry HMM tables
_PAIR_HMM = ("hmm_fwd", "hmm_bwd", "hmm_prod")


PAIR_FEATURES = tuple(f"{pat}:{nm}" for pat in _PATTERN_NAMES for nm in _PAIR_BASE)


class PairFeaturizer:
    r"""Features of the pair bonuses ``s_jklm = w' f(jklm)`` (sec. 3.4.1.3).

    For each of the four patterns (:data:`structpred.PATTERNS`), only
    non-zero for pairs of that pattern: an indicator; the share of times
    IBM Model 2 (forward, backward, intersected) produced the pattern for
    these word pairs in the bitext (mean over the pair's two edges); and
    whether Model 2's Viterbi alignment of this very sentence pair contains
    both edges (each version).  With HMM tables in the statistics, also the
    product of the two edges' HMM posteriors (forward, backward, and of the
    two directions' products).  All non-negative.
    """

    def __init__(self, stats, inter):
        self.stats = stats
        self.inter = inter
        self._hmm = getattr(stats, "hmm", None) is not None
        self._per = _PAIR_BASE + (_PAIR_HMM if self._hmm else ())
        self.feature_names = [f"{pat}:{nm}" for pat in _PATTERN_NAMES for nm in self._per]

    @property
    def n_features(self):
        return len(self.feature_names)

    def transform(self, src, tgt, pairs, pattern, st=None):
        """``(n_features, P)`` CSR block for the pairs of one sentence pair (``st``: its
        ``pair_statistics``, computed here if not given)."""
        import scipy.sparse as sp

        e, f = self.stats.encode(src, tgt)
        m, n = len(src), len(tgt)
        P = len(pairs)
        sh = self.inter.pattern_shares(self.stats, e, f).reshape(m * n, 3, 4)
        if st is None:
            st = self.stats.pair_statistics(src, tgt)
        vf, vb = st["vit_fwd"].ravel(), st["vit_bwd"].ravel()
        vi = vf * vb
        a, b = pairs[:, 0], pairs[:, 1]
        k = len(self._per)
        vals = np.zeros((P, k))
        vals[:, 0] = 1.0
        for ver in range(3):
            vals[:, 1 + ver] = 0.5 * (sh[a, ver, pattern] + sh[b, ver, pattern])
        for ver, v in enumerate((vf, vb, vi)):
            vals[:, 4 + ver] = v[a] * v[b]
        if self._hmm:
            hf, hb = st["hmm_fwd"].ravel(), st["hmm_bwd"].ravel()
            for ver, v in enumerate((hf, hb, hf * hb)):
                vals[:, 7 + ver] = v[a] * v[b]
        rows = (pattern[:, None] * k + np.arange(k)[None, :]).ravel()
        cols = np.repeat(np.arange(P), k)
        return sp.csr_matrix((vals.ravel(), (rows, cols)), shape=(self.n_features, P))
