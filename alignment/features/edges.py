"""Edge features for the matching aligner (thesis sec. 3.4.1.1; Taskar et al. 2005).

For a sentence pair ``(e_1..e_m, f_1..f_n)`` every candidate edge ``jk`` gets
a sparse, named feature vector; stacked as columns (row-major over ``j, k``)
they form ``F_i`` of the structured example.  The features:

* ``bias``;
* association: ``dice`` and whether it is the best Dice score of its row /
  column / both (competitive linking cues);
* IBM Model 2, both directions: posteriors ``post_fwd``, ``post_bwd``, their
  product and minimum; Viterbi predictions ``vit_fwd``, ``vit_bwd``, their
  intersection and union;
* position: ``|j/m - k/n|``, its square, and indicators of closeness to the
  diagonal;
* log-scaled posteriors and Dice, the posterior support of the neighbouring
  edges on the diagonal and anti-diagonal, and the IBM Model 2 NULL
  posteriors of each word;
* orthography: lower-cased exact match, common prefix of 3 and of 4+
  characters (cognates), the length ratio, punctuation and number cues;
* frequency: log-frequency of each word, divided by that of the most
  frequent word (so in [0, 1]);
* lexical identity indicators ``pair=e|f``, ``src=e`` and ``tgt=f`` for the
  most frequent words of each language.
"""

from __future__ import annotations

import unicodedata

import numpy as np
import scipy.sparse as sp

__all__ = ["EdgeFeaturizer", "DENSE_FEATURES", "HMM_FEATURES", "OPTIONAL_FEATURES"]

DENSE_FEATURES = (
    "bias",
    "dice", "dice_row_best", "dice_col_best", "dice_both_best",
    "post_fwd", "post_bwd", "post_prod", "post_min",
    "vit_fwd", "vit_bwd", "vit_inter", "vit_union",
    "dist", "dist_sq",
    "exact", "prefix3", "cognate4", "len_ratio",
    "both_punct", "punct_mismatch", "both_number",
    "src_logfreq", "tgt_logfreq",
    "logpost_fwd", "logpost_bwd", "logdice",
    "nbr_diag", "nbr_anti", "nbr_vit_diag",
    "null_fwd", "null_bwd",
    "dist_lt_05", "dist_lt_10", "dist_lt_20", "near_diag_word",
    "dice_row_rank2", "dice_col_rank2",
)

#: extra rows when the statistics carry HMM tables (:meth:`AlignmentStatistics.with_hmm`)
HMM_FEATURES = (
    "hmm_fwd", "hmm_bwd", "hmm_prod", "hmm_min", "hmm_inter", "hmm_union",
    "loghmm_fwd", "loghmm_bwd", "hmm_nbr_diag", "hmm_nbr_anti",
)

#: extra rows only on request (``include=``): the edge joins a word that occurs more than once
#: in its sentence, and another occurrence of it lies nearer the diagonal position of the other
#: end (which of the repeated function words goes with which)
OPTIONAL_FEATURES = ("farther_src_occ", "farther_tgt_occ")

#: floor of the log-scaled probabilities: log(max(p, 1e-6)) / log(1e6) + 1 lies in [0, 1]
_LOG_FLOOR = 1e-6


def _is_punct(tok):
    return all(unicodedata.category(ch).startswith("P") or unicodedata.category(ch).startswith("S")
               for ch in tok)


def _is_number(tok):
    return any(ch.isdigit() for ch in tok) and all(ch.isdigit() or ch in ".,:-/" for ch in tok)


def _common_prefix_len(a, b):
    """Common prefix lengths of every pair of words in ``a`` x ``b`` (vectorised by length)."""
    m, n = len(a), len(b)
    out = np.zeros((m, n), dtype=np.int32)
    if m == 0 or n == 0:
        return out
    maxlen = max(max(map(len, a)), max(map(len, b)))
    alive = np.ones((m, n), dtype=bool)
    for p in range(1, maxlen + 1):
        ca = np.array([w[p - 1] if len(w) >= p else "\0a" for w in a], dtype=object)
        cb = np.array([w[p - 1] if len(w) >= p else "\0b" for w in b], dtype=object)
        alive &= np.equal.outer(ca, cb)
        if not alive.any():
            break
        out += alive
    return out


def _log_scaled(p):
    """``log(max(p, 1e-6)) / log(1e6) + 1``: probabilities on a [0, 1] log scale."""
    return np.log(np.maximum(p, _LOG_FLOOR)) / -np.log(_LOG_FLOOR) + 1.0


def _neighbour_max(x, dj, dk):
    """``max(x[j-dj, k-dk], x[j+dj, k+dk])`` with 0 outside the grid."""
    m, n = x.shape
    pad = np.zeros((m + 2, n + 2))
    pad[1:-1, 1:-1] = x
    a = pad[1 - dj:m + 1 - dj, 1 - dk:n + 1 - dk]
    b = pad[1 + dj:m + 1 + dj, 1 + dk:n + 1 + dk]
    return np.maximum(a, b)


def _farther_occurrence(words, dist):
    """``out[j, k]``: another occurrence of ``words[j]`` has a smaller ``dist[., k]``.

    ``dist`` is the (rows = ``words``) matrix of distances to the diagonal; words that occur
    once are never flagged, and of equally near occurrences none is.
    """
    same = np.equal.outer(np.array(words, dtype=object), np.array(words, dtype=object))
    np.fill_diagonal(same, False)
    # nearest other occurrence of row j's word, for every column k: min over j' of dist[j', k]
    other = np.where(same[:, :, None], dist[None, :, :], np.inf).min(axis=1)
    return dist > other + 1e-12


def _second_mask(x, axis):
    """Whether an entry is the second largest (and positive) along ``axis``."""
    if x.shape[axis] < 2:
        return np.zeros(x.shape, dtype=bool)
    second = -np.sort(-x, axis=axis).take([1], axis=axis)
    return (x >= second) & (x > 0) & ~_best_mask(x, axis)


def _best_mask(x, axis):
    mx = x.max(axis=axis, keepdims=True)
    return (x >= mx) & (x > 0)


class EdgeFeaturizer:
    """Builds ``F_i`` (features x edges, sparse) for sentence pairs.

    Parameters
    ----------
    stats : :class:`alignment.stats.statistics.AlignmentStatistics`
        Dice and IBM Model 2 tables (both directions) and word frequencies.
    n_frequent : int
        Number of most frequent words on each side that get identity
        indicators (pairs of them as well).
    exclude : iterable of str
        Names of dense features (:data:`DENSE_FEATURES`, :data:`HMM_FEATURES`) to
        leave out, for ablations; an unknown name is an error.
    include : iterable of str
        Names of :data:`OPTIONAL_FEATURES` to add; an unknown name is an error.
    """

    def __init__(self, stats, n_frequent=10, exclude=(), include=()):
        self.stats = stats
        self.n_frequent = int(n_frequent)
        src_top = stats.most_frequent("src", self.n_frequent)
        tgt_top = stats.most_frequent("tgt", self.n_frequent)
        self._src_top = {w: i for i, w in enumerate(src_top)}
        self._tgt_top = {w: i for i, w in enumerate(tgt_top)}
        # log-frequencies are divided by that of the most frequent word, so that
        # every dense feature lies in [0, 1] and none dominates the operator norm
        # ||F|| that sets the step size 1/L.
        self._logfreq_scale = {
            side: max(float(np.max(stats.log_frequency(side, top), initial=0.0)), 1.0)
            for side, top in (("src", src_top[:1]), ("tgt", tgt_top[:1]))}
        self._use_hmm = getattr(stats, "hmm", None) is not None
        include = set(include)
        unknown = sorted(include - set(OPTIONAL_FEATURES))
        if unknown:
            raise ValueError(f"unknown optional edge features: {', '.join(unknown)} "
                             f"(known: {', '.join(OPTIONAL_FEATURES)})")
        self._include = tuple(f for f in OPTIONAL_FEATURES if f in include)
        dense = DENSE_FEATURES + (HMM_FEATURES if self._use_hmm else ()) + self._include
        exclude = set(exclude)
        unknown = sorted(exclude - set(dense))
        if unknown:
            raise ValueError(f"unknown edge features to exclude: {', '.join(unknown)} "
                             f"(known: {', '.join(dense)})")
        # rows of dense_block's stack that are kept
        self._keep = np.array([i for i, f in enumerate(dense) if f not in exclude], dtype=np.intp)
        dense = tuple(dense[i] for i in self._keep)
        names = list(dense)
        names += [f"src={w}" for w in src_top]
        names += [f"tgt={w}" for w in tgt_top]
        names += [f"pair={e}|{f}" for e in src_top for f in tgt_top]
        self.feature_names = names
        self._n_dense = len(dense)

    @property
    def n_features(self):
        return len(self.feature_names)

    def dense_block(self, src, tgt, st=None):
        """The dense features as an array of shape ``(n_dense, m, n)``.

        ``st``: the sentence pair's :meth:`AlignmentStatistics.pair_statistics`, if
        the caller already has them (computed here otherwise).

        With HMM tables attached to the statistics the rows of :data:`HMM_FEATURES`
        follow: the HMM posteriors of both directions, their product and minimum,
        their intersection and union at 1/2 (posterior decoding), log-scaled
        posteriors, and the product's support from the diagonal neighbours.
        """
        m, n = len(src), len(tgt)
        if st is None:
            st = self.stats.pair_statistics(src, tgt)
        dice = st["dice"]
        pf, pb = st["post_fwd"], st["post_bwd"]
        vf, vb = st["vit_fwd"].astype(float), st["vit_bwd"].astype(float)
        j = (np.arange(m)[:, None] + 0.5) / m
        k = (np.arange(n)[None, :] + 0.5) / n
        dist = np.abs(j - k)
        lo_s = [w.lower() for w in src]
        lo_t = [w.lower() for w in tgt]
        exact = np.equal.outer(np.array(lo_s, dtype=object), np.array(lo_t, dtype=object))
        cp = _common_prefix_len(lo_s, lo_t)
        ls = np.array([len(w) for w in src], dtype=float)[:, None]
        lt = np.array([len(w) for w in tgt], dtype=float)[None, :]
        p_s = np.array([_is_punct(w) for w in src])[:, None]
        p_t = np.array([_is_punct(w) for w in tgt])[None, :]
        n_s = np.array([_is_number(w) for w in src])[:, None]
        n_t = np.array([_is_number(w) for w in tgt])[None, :]
        fs = self.stats.log_frequency("src", src)[:, None] / self._logfreq_scale["src"]
        ft = self.stats.log_frequency("tgt", tgt)[None, :] / self._logfreq_scale["tgt"]
        row_best, col_best = _best_mask(dice, 1), _best_mask(dice, 0)
        pp, vv = pf * pb, vf * vb   # posterior product and Viterbi intersection
        ones = np.ones((m, n))
        block = [
            ones,
            dice, row_best, col_best, row_best & col_best,
            pf, pb, pp, np.minimum(pf, pb),
            vf, vb, vv, np.maximum(vf, vb),
            dist, dist ** 2,
            exact, (cp >= 3) & ~exact, (cp >= 4) & ~exact,
            np.minimum(ls, lt) / np.maximum(ls, lt),
            p_s & p_t, p_s ^ p_t, n_s & n_t & exact,
            fs * ones, ft * ones,
            # log-scale association: a matching score adds edge scores, as a
            # log-probability adds over links
            _log_scaled(pf), _log_scaled(pb), _log_scaled(dice),
            # support from the neighbouring edges (monotone and inverted diagonals)
            _neighbour_max(pp, 1, 1), _neighbour_max(pp, 1, -1),
            _neighbour_max(vv, 1, 1),
            # probability that the word is unaligned (NULL) under each IBM model 2
            st["null_fwd"][None, :] * ones, st["null_bwd"][:, None] * ones,
            dist < 0.05, dist < 0.10, dist < 0.20,
            np.abs((np.arange(m)[:, None] + 0.5) * n / m - (np.arange(n)[None, :] + 0.5)) <= 1.0,
            _second_mask(dice, 1), _second_mask(dice, 0),
        ]
        if self._use_hmm:
            hf, hb = st["hmm_fwd"], st["hmm_bwd"]
            hp = hf * hb
            block += [hf, hb, hp, np.minimum(hf, hb), (hf >= 0.5) & (hb >= 0.5),
                      (hf >= 0.5) | (hb >= 0.5), _log_scaled(hf), _log_scaled(hb),
                      _neighbour_max(hp, 1, 1), _neighbour_max(hp, 1, -1)]
        if self._include:
            farther = {"farther_src_occ": _farther_occurrence(lo_s, dist),
                       "farther_tgt_occ": _farther_occurrence(lo_t, dist.T).T}
            block += [farther[f] for f in self._include]
        return np.stack([np.asarray(block[i], dtype=np.float64) * ones for i in self._keep])

    def transform(self, src, tgt, st=None):
        """``F_i`` for one sentence pair: CSR of shape ``(n_features, m*n)``
        (``st`` as in :meth:`dense_block`)."""
        m, n = len(src), len(tgt)
        if m == 0 or n == 0:
            raise ValueError("empty sentence")
        dense = self.dense_block(src, tgt, st).reshape(self._n_dense, m * n)
        if not np.all(np.isfinite(dense)):
            raise ValueError("non-finite edge feature")
        # lexical indicators, rows counted from the first lexical feature:
        # src=e (one per source word), then tgt=f, then pair=e|f
        n_src_top, n_tgt_top = len(self._src_top), len(self._tgt_top)
        si = np.array([self._src_top.get(w, -1) for w in src])
        ti = np.array([self._tgt_top.get(w, -1) for w in tgt])
        row_src = np.broadcast_to(si[:, None], (m, n))
        row_tgt = np.broadcast_to(n_src_top + ti[None, :], (m, n))
        row_pair = n_src_top + n_tgt_top + si[:, None] * n_tgt_top + ti[None, :]
        hit_src = np.broadcast_to(si[:, None] >= 0, (m, n))
        hit_tgt = np.broadcast_to(ti[None, :] >= 0, (m, n))
        edge = np.arange(m * n).reshape(m, n)
        rows = np.concatenate([row_src[hit_src], row_tgt[hit_tgt], row_pair[hit_src & hit_tgt]])
        cols = np.concatenate([edge[hit_src], edge[hit_tgt], edge[hit_src & hit_tgt]])
        lex = sp.csr_matrix((np.ones(rows.size), (rows, cols)),
                            shape=(self.n_features - self._n_dense, m * n))
        return sp.vstack([sp.csr_matrix(dense), lex], format="csr")
