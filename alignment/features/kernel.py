"""The alignment features, defined once: the numba kernels that compute every edge's
features (:func:`_edge_values`, :func:`_aligner_values`) with the table of their names
beside them (:data:`EDGE_FEATURES`, :data:`ALIGNER_FEATURES`: name <-> kernel slot).

Both prediction paths and training read them from here:

* the per-pair path (:meth:`MatchingAligner._structure`, used by training and
  :meth:`MatchingAligner.predict_matrix`) runs :func:`_edge_features` and
  :func:`_aligner_features` on a batch of one pair and builds the sparse ``F`` from them;
* the batch path (:class:`alignment.predict.batch.BatchPredictor`) runs
  :func:`_edge_scores` (the same values, summed with the weights in the order of the
  model's features) on many pairs and decodes them (:func:`_decode`).

:class:`KernelInputs` lays a batch of sentence pairs out as the kernels' flat arrays: the
per-word-type attributes, the statistics' tables of every pair (:func:`_pair_tables`) and the
other aligners' links.
"""

from __future__ import annotations

import threading
import unicodedata

import numba as nb
import numpy as np

from structpred.polytopes.matching import hungarian_matching

from ..aligners.symmetrize import FLAT_VIEWS, link_views_flat, links_flat
from ..stats.dice import _dice_matrix
from ..stats.hmm import hmm_posteriors
from ..stats.posteriors import _pair_posteriors
from ..stats.interactions import _viterbi

__all__ = ["EDGE_FEATURES", "ALIGNER_FEATURES", "KernelInputs", "aligner_features",
           "lexical_entries"]

#: the threshold of ``hmm:inter`` (the unsupervised subcommand's default)
HMM_THRESHOLD = 0.4


def _is_punct(tok):
    return all(unicodedata.category(ch).startswith("P") or unicodedata.category(ch).startswith("S")
               for ch in tok)


def _is_number(tok):
    return any(ch.isdigit() for ch in tok) and all(ch.isdigit() or ch in ".,:-/" for ch in tok)


#: the edge features: ``EDGE_FEATURES[i]`` is slot ``v[i]`` of :func:`_edge_values`
EDGE_FEATURES = (
    "bias",                                                          # 0
    "dice", "dice_row_best", "dice_col_best", "dice_both_best",      # 1-4
    "post_fwd", "post_bwd", "post_prod", "post_min",                 # 5-8
    "vit_fwd", "vit_bwd", "vit_inter", "vit_union",                  # 9-12
    "dist", "dist_sq",                                               # 13-14
    "exact", "prefix3", "cognate4", "len_ratio",                     # 15-18
    "both_punct", "punct_mismatch", "both_number",                   # 19-21
    "src_logfreq", "tgt_logfreq",                                    # 22-23
    "logpost_fwd", "logpost_bwd", "logdice",                         # 24-26
    "nbr_diag", "nbr_anti", "nbr_vit_diag",                          # 27-29
    "null_fwd", "null_bwd",                                          # 30-31
    "dist_lt_05", "dist_lt_10", "dist_lt_20", "near_diag_word",      # 32-35
    "dice_row_rank2", "dice_col_rank2",                              # 36-37
    # with the statistics' HMM tables (AlignmentStatistics.with_hmm)
    "hmm_fwd", "hmm_bwd", "hmm_prod", "hmm_min", "hmm_inter", "hmm_union",   # 38-43
    "loghmm_fwd", "loghmm_bwd", "hmm_nbr_diag", "hmm_nbr_anti",              # 44-47
    # only on request (EdgeFeaturizer(include=...))
    "farther_src_occ", "farther_tgt_occ",                            # 48-49
)
#: the slices of :data:`EDGE_FEATURES`: always, with the HMM tables, on request
N_DENSE, N_HMM = 38, 10

#: the other aligners' edge features: ``ALIGNER_FEATURES[i]`` is slot ``a[i]`` of
#: :func:`_aligner_values`
ALIGNER_FEATURES = (
    "hmm:fwd", "hmm:bwd", "hmm:min", "hmm:inter", "hmm:nbr_diag", "hmm:nbr_anti",   # 0-5
    "eflomal:fwd", "eflomal:bwd", "eflomal:intersection",                          # 6-8
    "eflomal:grow-diag-final-and", "eflomal:union",                                # 9-10
    "eflomal:nbr_diag", "eflomal:nbr_anti",                                        # 11-12
    "fast_align:sym",                                                              # 13
    "aligners:vote_share",                                                         # 14
    "bayes:fwd", "bayes:bwd", "bayes:intersection",                                # 15-17
    "bayes:grow-diag-final-and", "bayes:union",                                    # 18-19
    "bayes:nbr_diag", "bayes:nbr_anti",                                            # 20-21
)

_N_ALL = len(EDGE_FEATURES)
_N_ALIGNER = len(ALIGNER_FEATURES)

#: the eflomal (and bayes) link sets, in the order of their rows in the kernel's ``ef``
#: (``by``) argument
_EFLOMAL_VIEWS = FLAT_VIEWS

#: floor of the log-scaled probabilities: log(max(p, 1e-6)) / log(1e6) + 1 lies in [0, 1]
_LOG_FLOOR = 1e-6


def _log_scaled(p):
    """``log(max(p, 1e-6)) / log(1e6) + 1``: probabilities on a [0, 1] log scale."""
    return np.log(np.maximum(p, _LOG_FLOOR)) / -np.log(_LOG_FLOOR) + 1.0


#: characters of the lower-cased words compared for the prefix cues (prefix3, cognate4)
_PREFIX = 4


@nb.njit(cache=True, nogil=True)
def _pair_tables(soff, toff, s_ids, t_ids, s_uids, t_uids, m2, dc, h, uh, use_hmm, use_uhmm):
    """The statistics' matrices of every pair, flat (row-major ``m x n`` per pair, one
    after the other): Dice, Model 2 posteriors and Viterbi links of both directions and
    NULL posteriors (per word), the statistics' HMM posteriors (``use_hmm``) and those of
    the unsupervised aligner (``use_uhmm``); empty arrays for what is not used."""
    P = len(soff) - 1
    E = 0
    for p in range(P):
        E += (soff[p + 1] - soff[p]) * (toff[p + 1] - toff[p])
    dice, pf, pb = np.empty(E), np.empty(E), np.empty(E)
    vf, vb = np.zeros(E), np.zeros(E)
    nf, nbk = np.empty(toff[P]), np.empty(soff[P])
    hf, hb = np.empty(E if use_hmm else 0), np.empty(E if use_hmm else 0)
    uf, ub = np.empty(E if use_uhmm else 0), np.empty(E if use_uhmm else 0)
    e0 = 0
    for p in range(P):
        a0, a1, b0, b1 = soff[p], soff[p + 1], toff[p], toff[p + 1]
        m, n = a1 - a0, b1 - b0
        e, f = s_ids[a0:a1].astype(np.int32), t_ids[b0:b1].astype(np.int32)
        post_f, null_f, post_b, null_b = _pair_posteriors(
            e, f, m2[0], m2[1], m2[2], m2[3], m2[4], m2[5], m2[6], m2[7], m2[8], m2[9])
        d = _dice_matrix(s_ids[a0:a1], t_ids[b0:b1], dc[0], dc[1], dc[2], dc[3], dc[4])
        nf[b0:b1] = null_f
        nbk[a0:a1] = null_b
        for j in range(m):
            for k in range(n):
                dice[e0 + j * n + k] = d[j, k]
                pf[e0 + j * n + k] = post_f[j, k]
                pb[e0 + j * n + k] = post_b[j, k]
        # Viterbi links, as AlignmentStatistics.pair_statistics (the same kernel)
        vfm = np.zeros((m, n))
        vbm = np.zeros((m, n))
        _viterbi(post_f, null_f, post_b, null_b, vfm, vbm)
        for j in range(m):
            for k in range(n):
                vf[e0 + j * n + k] = vfm[j, k]
                vb[e0 + j * n + k] = vbm[j, k]
        if use_hmm:
            x, y = hmm_posteriors(e, f, h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
                                  h[8], h[9], h[10], h[11])
            for j in range(m):
                for k in range(n):
                    hf[e0 + j * n + k] = x[j, k]
                    hb[e0 + j * n + k] = y[j, k]
        if use_uhmm:
            x, y = hmm_posteriors(s_uids[a0:a1].astype(np.int32), t_uids[b0:b1].astype(np.int32),
                                  uh[0], uh[1], uh[2], uh[3], uh[4], uh[5], uh[6], uh[7],
                                  uh[8], uh[9], uh[10], uh[11])
            for j in range(m):
                for k in range(n):
                    uf[e0 + j * n + k] = x[j, k]
                    ub[e0 + j * n + k] = y[j, k]
        e0 += m * n
    return dice, pf, pb, nf, nbk, vf, vb, hf, hb, uf, ub


@nb.njit(cache=True, nogil=True, inline="always")
def _at(x, e0, n, m, j, k):
    """``x[j, k]`` of the pair's ``m x n`` block at ``e0``; 0 outside the grid."""
    if j < 0 or j >= m or k < 0 or k >= n:
        return 0.0
    return x[e0 + j * n + k]


@nb.njit(cache=True, nogil=True, inline="always")
def _nbr(a, b, e0, n, m, j, k, s):
    """Neighbour support ``max(a b at (j-1, k-s), a b at (j+1, k+s))``: the diagonal
    (``s = 1``) or anti-diagonal (``s = -1``) neighbours of edge ``(j, k)``."""
    return max(_at(a, e0, n, m, j - 1, k - s) * _at(b, e0, n, m, j - 1, k - s),
               _at(a, e0, n, m, j + 1, k + s) * _at(b, e0, n, m, j + 1, k + s))


@nb.njit(cache=True, nogil=True, inline="always")
def _top2(x, start, step, count):
    """Largest and second largest of ``count`` values (duplicates counted twice)."""
    t1, t2 = -np.inf, -np.inf
    for i in range(count):
        v = x[start + i * step]
        if v > t1:
            t2, t1 = t1, v
        elif v > t2:
            t2 = v
    return t1, t2


@nb.njit(cache=True, nogil=True)
def _pair_bests(dice, e0, m, n):
    """Largest and second largest Dice score of each row and column of a pair's block, and
    the positions' places, divided once per pair rather than once per edge (the same
    numbers): the word centres ``(j + 0.5) / m`` and ``(k + 0.5) / n``, and each source
    word's centre on the target side, ``(j + 0.5) * n / m``."""
    rmax, rsec = np.empty(m), np.empty(m)
    cmax, csec = np.empty(n), np.empty(n)
    rel_j, diag_j, rel_k = np.empty(m), np.empty(m), np.empty(n)
    for j in range(m):
        rmax[j], rsec[j] = _top2(dice, e0 + j * n, 1, n)
        rel_j[j] = (j + 0.5) / m
        diag_j[j] = (j + 0.5) * n / m
    for k in range(n):
        cmax[k], csec[k] = _top2(dice, e0 + k, n, m)
        rel_k[k] = (k + 0.5) / n
    return rmax, rsec, cmax, csec, rel_j, rel_k, diag_j


@nb.njit(cache=True, nogil=True, inline="always")
def _edge_values(v, a0, b0, e0, m, n, j, k, sint, tint, sflt, tflt, mats, nulls, hmms, logs,
                 bests, flags):
    """The edge features of edge ``(j, k)`` of the pair whose tokens start at ``a0``/``b0``
    and edges at ``e0``, into ``v`` (slot ``i`` is :data:`EDGE_FEATURES` ``[i]``).

    ``sint``/``tint`` and ``sflt``/``tflt`` are the per-token attributes of
    :meth:`KernelInputs.encode`; ``mats``, ``nulls``, ``hmms`` the tables of
    :func:`_pair_tables`, ``logs`` their log scale; ``bests`` the pair's
    :func:`_pair_bests`; ``flags`` = (statistics' HMM, farther_src_occ, farther_tgt_occ, ...).
    The HMM and ``farther_*`` slots are written only when their flag is set."""
    dice, pf, pb, vf, vb = mats
    nf, nbk = nulls
    hf, hb = hmms[0], hmms[1]
    lpf, lpb, ldice, lhf, lhb = logs
    rmax, rsec, cmax, csec, rel_j, rel_k, diag_j = bests
    sj, tk = a0 + j, b0 + k
    i = e0 + j * n + k
    d = dice[i]
    jj = rel_j[j]
    kk = rel_k[k]
    dist = abs(jj - kk)
    exact = sint[sj, 3] == tint[tk, 3]
    cp = 0
    while cp < _PREFIX and sint[sj, 4 + cp] == tint[tk, 4 + cp]:
        cp += 1
    rb = d >= rmax[j] and d > 0
    cb = d >= cmax[k] and d > 0
    ps, pt = sint[sj, 4 + _PREFIX] != 0, tint[tk, 4 + _PREFIX] != 0
    ns, nt = sint[sj, 5 + _PREFIX] != 0, tint[tk, 5 + _PREFIX] != 0
    ls, lt = sflt[sj, 1], tflt[tk, 1]
    v[0] = 1.0                                  # bias
    v[1] = d                                    # dice
    v[2] = rb                                   # dice_row_best
    v[3] = cb                                   # dice_col_best
    v[4] = rb and cb                            # dice_both_best
    v[5] = pf[i]                                # post_fwd
    v[6] = pb[i]                                # post_bwd
    v[7] = pf[i] * pb[i]                        # post_prod
    v[8] = min(pf[i], pb[i])                    # post_min
    v[9] = vf[i]                                # vit_fwd
    v[10] = vb[i]                               # vit_bwd
    v[11] = vf[i] * vb[i]                       # vit_inter
    v[12] = max(vf[i], vb[i])                   # vit_union
    v[13] = dist                                # dist: |j/m - k/n| at the word centres
    v[14] = dist * dist                         # dist_sq
    v[15] = exact                               # exact (lower-cased)
    v[16] = cp >= 3 and not exact               # prefix3
    v[17] = cp >= 4 and not exact               # cognate4
    v[18] = min(ls, lt) / max(ls, lt)           # len_ratio
    v[19] = ps and pt                           # both_punct
    v[20] = ps != pt                            # punct_mismatch
    v[21] = ns and nt and exact                 # both_number
    v[22] = sflt[sj, 0]                         # src_logfreq (scaled)
    v[23] = tflt[tk, 0]                         # tgt_logfreq (scaled)
    v[24] = lpf[i]                              # logpost_fwd
    v[25] = lpb[i]                              # logpost_bwd
    v[26] = ldice[i]                            # logdice
    v[27] = _nbr(pf, pb, e0, n, m, j, k, 1)     # nbr_diag
    v[28] = _nbr(pf, pb, e0, n, m, j, k, -1)    # nbr_anti
    v[29] = _nbr(vf, vb, e0, n, m, j, k, 1)     # nbr_vit_diag
    v[30] = nf[tk]                              # null_fwd
    v[31] = nbk[sj]                             # null_bwd
    v[32] = dist < 0.05                         # dist_lt_05
    v[33] = dist < 0.10                         # dist_lt_10
    v[34] = dist < 0.20                         # dist_lt_20
    v[35] = abs(diag_j[j] - (k + 0.5)) <= 1.0                        # near_diag_word
    v[36] = n >= 2 and d >= rsec[j] and d > 0 and not rb              # dice_row_rank2
    v[37] = m >= 2 and d >= csec[k] and d > 0 and not cb              # dice_col_rank2
    if flags[0]:
        x, y = hf[i], hb[i]
        v[38] = x                               # hmm_fwd
        v[39] = y                               # hmm_bwd
        v[40] = x * y                           # hmm_prod
        v[41] = min(x, y)                       # hmm_min
        v[42] = x >= 0.5 and y >= 0.5           # hmm_inter
        v[43] = x >= 0.5 or y >= 0.5            # hmm_union
        v[44] = lhf[i]                          # loghmm_fwd
        v[45] = lhb[i]                          # loghmm_bwd
        v[46] = _nbr(hf, hb, e0, n, m, j, k, 1)     # hmm_nbr_diag
        v[47] = _nbr(hf, hb, e0, n, m, j, k, -1)    # hmm_nbr_anti
    if flags[1]:
        # farther_src_occ: another occurrence of the source word nearer the diagonal
        other = np.inf
        for j2 in range(m):
            if j2 != j and sint[a0 + j2, 3] == sint[sj, 3]:
                other = min(other, abs((j2 + 0.5) / m - kk))
        v[48] = dist > other + 1e-12
    if flags[2]:
        # farther_tgt_occ: the same for the target word
        other = np.inf
        for k2 in range(n):
            if k2 != k and tint[b0 + k2, 3] == tint[tk, 3]:
                other = min(other, abs(jj - (k2 + 0.5) / n))
        v[49] = dist > other + 1e-12


@nb.njit(cache=True, nogil=True, inline="always")
def _aligner_values(a, e0, m, n, j, k, hmms, exts, flags, n_src, threshold):
    """The other aligners' features of edge ``(j, k)`` into ``a`` (slot ``i`` is
    :data:`ALIGNER_FEATURES` ``[i]``): our HMM's posteriors (``hmms[2:]``, flag 3), the
    eflomal link sets (rows of ``exts[0]``, :data:`_EFLOMAL_VIEWS`; flag 4),
    fast_align's links (``exts[1]``, flag 5) and our Bayesian aligner's link sets (rows of
    ``exts[2]``, as eflomal's; flag 6); ``n_src`` sources share the vote."""
    uf, ub = hmms[2], hmms[3]
    ef, fa, by = exts
    i = e0 + j * n + k
    vote = 0.0
    if flags[3]:
        x, y = uf[i], ub[i]
        mn = min(x, y)
        inter = 1.0 if mn >= threshold else 0.0
        a[0] = x                                # hmm:fwd
        a[1] = y                                # hmm:bwd
        a[2] = mn                               # hmm:min
        a[3] = inter                            # hmm:inter
        a[4] = 0.5 * (_min_at(uf, ub, e0, n, m, j - 1, k - 1)
                      + _min_at(uf, ub, e0, n, m, j + 1, k + 1))      # hmm:nbr_diag
        a[5] = 0.5 * (_min_at(uf, ub, e0, n, m, j - 1, k + 1)
                      + _min_at(uf, ub, e0, n, m, j + 1, k - 1))      # hmm:nbr_anti
        vote += inter
    if flags[4]:
        for r in range(5):
            a[6 + r] = ef[r, i]                 # eflomal:fwd ... eflomal:union
        # eflomal:nbr_diag, eflomal:nbr_anti: support of the intersection (row 2)
        a[11], a[12] = _link_support(ef, 2, 5, e0, n, m, j, k)
        vote += ef[2, i]
    if flags[5]:
        a[13] = fa[i]                           # fast_align:sym
        vote += fa[i]
    if flags[6]:
        for r in range(5):
            a[15 + r] = by[r, i]                # bayes:fwd ... bayes:union
        # bayes:nbr_diag, bayes:nbr_anti: support of the intersection (row 2)
        a[20], a[21] = _link_support(by, 2, 5, e0, n, m, j, k)
        vote += by[2, i]
    a[14] = vote / n_src                        # aligners:vote_share


@nb.njit(cache=True, nogil=True, inline="always")
def _link_at(L, row, n_raw, e0, n, m, j, k):
    """Link set ``row`` of ``L`` (rows of flat 0/1 links) at ``(j, k)`` of the pair's block;
    ``row < 0``: the intersection (minimum) of the first ``n_raw`` rows; 0 outside the grid."""
    if j < 0 or j >= m or k < 0 or k >= n:
        return 0.0
    i = e0 + j * n + k
    if row >= 0:
        return L[row, i]
    x = L[0, i]
    for r in range(1, n_raw):
        x = min(x, L[r, i])
    return x


@nb.njit(cache=True, nogil=True, inline="always")
def _link_support(L, row, n_raw, e0, n, m, j, k):
    """Support of edge ``(j, k)`` from the links of its two diagonal neighbours
    (monotone, inverted; 0, 1/2 or 1 each) in link set ``row`` (see :func:`_link_at`)."""
    return (0.5 * (_link_at(L, row, n_raw, e0, n, m, j - 1, k - 1)
                   + _link_at(L, row, n_raw, e0, n, m, j + 1, k + 1)),
            0.5 * (_link_at(L, row, n_raw, e0, n, m, j - 1, k + 1)
                   + _link_at(L, row, n_raw, e0, n, m, j + 1, k - 1)))


@nb.njit(cache=True, nogil=True)
def _link_set_features(soff, toff, L, n_raw, inter_row):
    """The features of link files (:class:`alignment.features.links.ExternalFeaturizer`)
    of every edge: each link set of ``L`` (0/1), the share of the first ``n_raw`` sets that
    hold the edge, and the support of the intersection (set ``inter_row``; ``-1``: the
    minimum of the raw sets) from the diagonal neighbours.  ``(E, len(L) + 3)``."""
    P = len(soff) - 1
    S = L.shape[0]
    out = np.zeros((L.shape[1], S + 3))
    e0 = 0
    for p in range(P):
        m, n = soff[p + 1] - soff[p], toff[p + 1] - toff[p]
        for j in range(m):
            for k in range(n):
                i = e0 + j * n + k
                vote = 0.0
                for r in range(S):
                    out[i, r] = L[r, i]
                for r in range(n_raw):
                    vote += L[r, i]
                out[i, S] = vote / n_raw
                out[i, S + 1], out[i, S + 2] = _link_support(L, inter_row, n_raw, e0, n, m,
                                                             j, k)
        e0 += m * n
    return out


@nb.njit(cache=True, nogil=True)
def _edge_features(soff, toff, sint, tint, sflt, tflt, mats, nulls, hmms, logs, flags):
    """Every edge's :data:`EDGE_FEATURES` (``(E, len(EDGE_FEATURES))``, the pairs' ``m x n``
    blocks row-major one after the other; the slots of unset flags are 0)."""
    P = len(soff) - 1
    out = np.zeros((len(mats[0]), _N_ALL))
    e0 = 0
    for p in range(P):
        a0, b0 = soff[p], toff[p]
        m, n = soff[p + 1] - a0, toff[p + 1] - b0
        bests = _pair_bests(mats[0], e0, m, n)
        for j in range(m):
            for k in range(n):
                _edge_values(out[e0 + j * n + k], a0, b0, e0, m, n, j, k, sint, tint, sflt,
                             tflt, mats, nulls, hmms, logs, bests, flags)
        e0 += m * n
    return out


@nb.njit(cache=True, nogil=True)
def _aligner_features(soff, toff, hmms, exts, flags, n_src, threshold):
    """Every edge's :data:`ALIGNER_FEATURES` (``(E, len(ALIGNER_FEATURES))``, as
    :func:`_edge_features`)."""
    P = len(soff) - 1
    E = 0
    for p in range(P):
        E += (soff[p + 1] - soff[p]) * (toff[p + 1] - toff[p])
    out = np.zeros((E, _N_ALIGNER))
    e0 = 0
    for p in range(P):
        m, n = soff[p + 1] - soff[p], toff[p + 1] - toff[p]
        for j in range(m):
            for k in range(n):
                _aligner_values(out[e0 + j * n + k], e0, m, n, j, k, hmms, exts, flags,
                                n_src, threshold)
        e0 += m * n
    return out


@nb.njit(cache=True, nogil=True, inline="always")
def _lexical_slots(si, ti, nS, nT):
    """The lexical indicators of one edge: rows ``src=e``, ``tgt=f`` and ``pair=e|f``,
    counted from the first lexical feature (``-1``: not among the ``nS`` / ``nT``
    frequent words, so no indicator), for the source and target words' ranks ``si``,
    ``ti`` among the frequent words (``-1``: not frequent).  The one definition of the
    lexical features: the per-pair path (:func:`lexical_entries`) and the batch path
    (:func:`_edge_scores`) both read it."""
    a = si if si >= 0 else -1
    b = nS + ti if ti >= 0 else -1
    c = nS + nT + si * nT + ti if (si >= 0 and ti >= 0) else -1
    return a, b, c


@nb.njit(cache=True, nogil=True)
def lexical_entries(si, ti, nS, nT):
    """``(rows, cols)`` of the ones of the lexical block of ``F_i`` for one sentence pair:
    rows from :func:`_lexical_slots`, column ``j * n + k`` for the edge of source word
    ``j`` (rank ``si[j]``) and target word ``k`` (rank ``ti[k]``)."""
    m, n = len(si), len(ti)
    rows = np.empty(3 * m * n, np.int64)
    cols = np.empty(3 * m * n, np.int64)
    c = 0
    for j in range(m):
        for k in range(n):
            slots = _lexical_slots(si[j], ti[k], nS, nT)
            for r in slots:
                if r >= 0:
                    rows[c] = r
                    cols[c] = j * n + k
                    c += 1
    return rows[:c], cols[:c]


@nb.njit(cache=True, nogil=True)
def _edge_scores(soff, toff, sint, tint, sflt, tflt, mats, nulls, hmms, exts, logs, flags,
                 n_src, threshold, keep, akeep, n_top, w):
    """Edge scores ``F' w`` of every pair (flat, as :func:`_edge_features`): the values of
    :func:`_edge_values` and :func:`_aligner_values` times the weights, summed in the order
    of the model's features (dense features at kernel slots ``keep``, the lexical
    indicators ``src=``, ``tgt=``, ``pair=`` of the ``n_top`` frequent words, aligner
    features at slots ``akeep``), as the sparse product of the per-pair path."""
    P = len(soff) - 1
    nS, nT = n_top[0], n_top[1]
    K = len(keep)
    lex = K + nS + nT + nS * nT          # first weight after the lexical indicators
    scores = np.empty(len(mats[0]))
    v = np.zeros(_N_ALL)
    a = np.zeros(_N_ALIGNER)
    e0 = 0
    for p in range(P):
        a0, b0 = soff[p], toff[p]
        m, n = soff[p + 1] - a0, toff[p + 1] - b0
        bests = _pair_bests(mats[0], e0, m, n)
        for j in range(m):
            for k in range(n):
                _edge_values(v, a0, b0, e0, m, n, j, k, sint, tint, sflt, tflt, mats, nulls,
                             hmms, logs, bests, flags)
                acc = 0.0
                for q in range(K):
                    acc += v[keep[q]] * w[q]
                slots = _lexical_slots(sint[a0 + j, 2], tint[b0 + k, 2], nS, nT)
                for r in slots:
                    if r >= 0:
                        acc += w[K + r]
                if len(akeep):
                    _aligner_values(a, e0, m, n, j, k, hmms, exts, flags, n_src, threshold)
                    for q in range(len(akeep)):
                        acc += a[akeep[q]] * w[lex + q]
                scores[e0 + j * n + k] = acc
        e0 += m * n
    return scores


@nb.njit(cache=True, nogil=True)
def _decode(soff, toff, scores):
    """The maximum-weight matching of each pair's scores (Hungarian method).
    Returns ``(link_off, link_src, link_tgt)`` (see :meth:`BatchPredictor.predict_links`)."""
    P = len(soff) - 1
    total = 0
    for p in range(P):
        total += min(soff[p + 1] - soff[p], toff[p + 1] - toff[p])
    link_off = np.zeros(P + 1, np.int64)
    link_s = np.empty(total, np.int64)
    link_t = np.empty(total, np.int64)
    nl = 0
    e0 = 0
    for p in range(P):
        m, n = soff[p + 1] - soff[p], toff[p + 1] - toff[p]
        s = np.empty((m, n))
        for j in range(m):
            for k in range(n):
                s[j, k] = scores[e0 + j * n + k]
        y = hungarian_matching(s)
        for j in range(m):
            for k in range(n):
                if y[j, k]:
                    link_s[nl] = j
                    link_t[nl] = k
                    nl += 1
        link_off[p + 1] = nl
        e0 += m * n
    return link_off, link_s[:nl], link_t[:nl]


@nb.njit(cache=True, nogil=True, inline="always")
def _min_at(x, y, e0, n, m, j, k):
    """``min(x[j, k], y[j, k])`` of the pair's block; 0 outside the grid."""
    if j < 0 or j >= m or k < 0 or k >= n:
        return 0.0
    return min(x[e0 + j * n + k], y[e0 + j * n + k])


# ----------------------------------------------------------------------- the kernels' inputs
#: cached word types per side before the caches are emptied (memory stays bounded)
_MAX_TYPES = 500_000


class _Side:
    """Per-word-type attributes of one side (source or target), cached across batches."""

    def __init__(self, side, featurizer, unsupervised, lowered, pad):
        self.side = side
        self.stats = featurizer.stats
        self.vocab = self.stats._vocab(side)
        self.top = featurizer._src_top if side == "src" else featurizer._tgt_top
        self.scale = featurizer._logfreq_scale[side]
        self.unsupervised = unsupervised
        self.lowered = lowered          # shared: lower-cased word -> id (both sides)
        self.pad = pad                  # prefix code of a missing character
        self.cache = {}

    def attributes(self, words):
        """``(ints, floats)`` of the distinct ``words``: ints ``(T, 10)`` = statistics id,
        HMM (unsupervised) id, frequent-word index (-1: none), lower-cased word id, the
        first 4 lower-cased characters (code points), and the punctuation and number
        flags; floats ``(T, 2)`` = scaled log-frequency, length."""
        missing = [w for w in words if w not in self.cache]
        if missing:
            if len(self.cache) + len(missing) > _MAX_TYPES:
                self.cache.clear()
                missing = list(words)
            ids = self.vocab.encode(missing)
            lf = self.stats.log_frequency(self.side, missing) / self.scale
            uid = np.full(len(missing), -1, np.int64)
            if self.unsupervised is not None:
                un = self.unsupervised
                vocab = un.stats_._vocab(self.side)
                uid = vocab.encode([un.normalize([w])[0] for w in missing])
            for i, w in enumerate(missing):
                lo = w.lower()
                code = [ord(lo[p]) if len(lo) > p else self.pad for p in range(_PREFIX)]
                self.cache[w] = ((int(ids[i]), int(uid[i]), self.top.get(w, -1),
                                  self.lowered.setdefault(lo, len(self.lowered)), *code,
                                  int(_is_punct(w)), int(_is_number(w))),
                                 (float(lf[i]), float(len(w))))
        rows = [self.cache[w] for w in words]
        return (np.array([r[0] for r in rows], np.int64).reshape(-1, 6 + _PREFIX),
                np.array([r[1] for r in rows], np.float64).reshape(-1, 2))


class KernelInputs:
    """The arguments of the feature kernels for batches of sentence pairs.

    Parameters
    ----------
    featurizer : :class:`alignment.features.edges.EdgeFeaturizer`
        Its statistics, frequent words and optional features.
    links : :class:`alignment.features.links.AlignerLinks`, optional
        The other aligners (their sources give the aligner features).

    The word caches are shared by the threads that may call :meth:`arguments` at once (one
    batch is encoded at a time).
    """

    def __init__(self, featurizer, links=None):
        self.featurizer = featurizer
        self.stats = featurizer.stats
        self.links = links
        sources = tuple(links.sources) if links is not None else ()
        un = links.unsupervised if "hmm" in sources else None
        self.unsupervised = un
        lowered = {}
        self._sides = (_Side("src", featurizer, un, lowered, -1),
                       _Side("tgt", featurizer, un, lowered, -2))
        self._lowered = lowered
        self._lock = threading.Lock()
        include = featurizer._include
        self.flags = np.array([featurizer._use_hmm, "farther_src_occ" in include,
                               "farther_tgt_occ" in include, un is not None,
                               "eflomal" in sources, "fast_align" in sources,
                               "bayes" in sources], np.bool_)
        self.n_src = max(1, len(sources))
        self.threshold = HMM_THRESHOLD

    def encode(self, pairs):
        """Flat per-token arrays ``(offsets, ints, floats)`` of each side of a batch
        (:meth:`_Side.attributes`)."""
        with self._lock:
            out = {}
            for side, sents in zip(self._sides, ([s for s, _ in pairs], [t for _, t in pairs])):
                lens = np.fromiter((len(x) for x in sents), np.int64, len(sents))
                off = np.zeros(len(sents) + 1, np.int64)
                np.cumsum(lens, out=off[1:])
                types = {}
                index = np.fromiter((types.setdefault(w, len(types)) for x in sents for w in x),
                                    np.int64, int(off[-1]))
                ints, floats = side.attributes(list(types))
                out[side.side] = (off, ints[index], floats[index])
            if len(self._lowered) > 2 * _MAX_TYPES:
                # the cached words hold lower-cased ids: emptied together
                self._lowered.clear()
                for side in self._sides:
                    side.cache.clear()
            return out

    def prepare(self, pairs):
        """Load the external aligners' runs (a saved model finds them lazily) and align
        the pairs they never saw (:meth:`AlignerLinks.prepare`)."""
        if self.flags[4] or self.flags[5] or self.flags[6]:
            self.links.check()
            self.links.prepare(pairs)

    def arguments(self, pairs, prepared=False):
        """The kernels' arguments for ``pairs`` (non-empty sentences): a dict with
        ``soff``, ``toff``, ``sint``, ``tint``, ``sflt``, ``tflt``, ``mats``, ``nulls``,
        ``hmms``, ``exts``, ``logs``.  ``prepared``: the pairs went through
        :meth:`prepare` already."""
        if not prepared:
            self.prepare(pairs)
        enc = self.encode(pairs)
        soff, sint, sflt = enc["src"]
        toff, tint, tflt = enc["tgt"]
        st, un = self.stats, self.unsupervised
        use_hmm, use_uhmm = self.flags[0], self.flags[3]
        hmm, uhmm = st.hmm if use_hmm else None, un.stats_ if un is not None else None
        tables = _pair_tables(
            soff, toff, sint[:, 0].copy(), tint[:, 0].copy(), sint[:, 1].copy(),
            tint[:, 1].copy(), _model2_args(st), _dice_args(st),
            _hmm_args(st, hmm), _hmm_args(uhmm, None if uhmm is None else uhmm.hmm),
            use_hmm, use_uhmm)
        dice, pf, pb, nf, nb_, vf, vb, hf, hb, uf, ub = tables
        # the log scale with numpy's log on the flat arrays
        logs = tuple(_log_scaled(x) for x in (pf, pb, dice, hf, hb))
        return dict(soff=soff, toff=toff, sint=sint, tint=tint, sflt=sflt, tflt=tflt,
                    mats=(dice, pf, pb, vf, vb), nulls=(nf, nb_), hmms=(hf, hb, uf, ub),
                    exts=self._external_links(pairs, len(dice)), logs=logs)

    def features(self, pairs, prepared=False):
        """``(edge, aligner)``: every edge's :data:`EDGE_FEATURES` and
        :data:`ALIGNER_FEATURES` (rows: the pairs' ``m x n`` blocks, row-major)."""
        x = self.arguments(pairs, prepared)
        edge = _edge_features(x["soff"], x["toff"], x["sint"], x["tint"], x["sflt"], x["tflt"],
                              x["mats"], x["nulls"], x["hmms"], x["logs"], self.flags)
        al = _aligner_features(x["soff"], x["toff"], x["hmms"], x["exts"], self.flags,
                               self.n_src, self.threshold)
        return edge, al

    def scores(self, pairs, keep, akeep, n_top, w, prepared=False):
        """Flat edge scores of ``pairs`` (:func:`_edge_scores`) and the pairs' offsets."""
        x = self.arguments(pairs, prepared)
        s = _edge_scores(x["soff"], x["toff"], x["sint"], x["tint"], x["sflt"], x["tflt"],
                         x["mats"], x["nulls"], x["hmms"], x["exts"], x["logs"], self.flags,
                         self.n_src, self.threshold, keep, akeep, n_top, w)
        return s, x["soff"], x["toff"]

    def _external_links(self, pairs, n_edges):
        return _external_link_arrays(self.links, pairs, n_edges, self.flags[4], self.flags[5],
                                     self.flags[6])


def _external_link_arrays(links, pairs, n_edges, use_ef, use_fa, use_by=False):
    """The eflomal link sets (rows of ``ef``, :data:`_EFLOMAL_VIEWS`), fast_align's
    symmetrised links and our Bayesian aligner's link sets (rows of ``by``, as eflomal's)
    of every pair of ``links`` as flat 0/1 arrays (each pair's ``m x n`` block row-major,
    as the statistics'); empty for an aligner not used.  The views come from each pair's two
    directions (:func:`alignment.aligners.symmetrize.link_views_flat`, one numba pass)."""
    ef = np.zeros((len(_EFLOMAL_VIEWS), n_edges if use_ef else 0))
    fa = np.zeros(n_edges if use_fa else 0)
    by = np.zeros((len(_EFLOMAL_VIEWS), n_edges if use_by else 0))
    if not (use_ef or use_fa or use_by):
        return ef, fa, by
    lens = np.array([[len(s), len(t)] for s, t in pairs], dtype=np.int64).reshape(-1, 2)
    for use, name, rows in ((use_ef, "eflomal", ef), (use_by, "bayes", by)):
        if use:
            d = [links._external_arrays(name, s, t) for s, t in pairs]
            link_views_flat([x["fwd"] for x in d], [x["bwd"] for x in d], lens, out=rows)
    if use_fa:
        links_flat([links._external_arrays("fast_align", s, t)["sym"] for s, t in pairs],
                   lens, out=fa)
    return ef, fa, by


def aligner_features(links, pairs):
    """The :data:`ALIGNER_FEATURES` of every edge of ``pairs`` for the sources of
    ``links`` (:class:`alignment.features.links.AlignerLinks`), without the statistics:
    our HMM's posteriors are taken pair by pair (the same kernel as :func:`_pair_tables`)."""
    sources = tuple(links.sources)
    flags = np.array([False, False, False, "hmm" in sources, "eflomal" in sources,
                      "fast_align" in sources, "bayes" in sources], np.bool_)
    lens = np.array([[len(s), len(t)] for s, t in pairs], np.int64).reshape(-1, 2)
    soff = np.concatenate([[0], np.cumsum(lens[:, 0])]).astype(np.int64)
    toff = np.concatenate([[0], np.cumsum(lens[:, 1])]).astype(np.int64)
    n_edges = int((lens[:, 0] * lens[:, 1]).sum())
    uf = ub = np.zeros(0)
    if flags[3]:
        post = [links.unsupervised.posteriors(s, t) for s, t in pairs]
        uf = np.concatenate([np.ravel(x) for x, _ in post] + [np.zeros(0)])
        ub = np.concatenate([np.ravel(y) for _, y in post] + [np.zeros(0)])
    exts = _external_link_arrays(links, pairs, n_edges, flags[4], flags[5], flags[6])
    empty = np.zeros(0)
    return _aligner_features(soff, toff, (empty, empty, uf, ub), exts, flags,
                             max(1, len(sources)), HMM_THRESHOLD)


def _model2_args(st):
    return (st.t_row_ptr, st.t_cols, st.t_fwd, st.t_bwd, st.t_null_fwd, st.t_null_bwd,
            np.ascontiguousarray(st.dist_fwd, np.float64),
            np.ascontiguousarray(st.dist_bwd, np.float64), int(st.max_jump), float(st.floor))


def _dice_args(st):
    return st.dice_row_ptr, st.dice_cols, st.dice_counts, st.src_df, st.tgt_df


def _hmm_args(st, hmm):
    """The arguments of :func:`alignment.stats.hmm.hmm_posteriors` after the ids (dummies
    without an HMM, so that the kernel has one signature)."""
    if hmm is None:
        z, zi = np.zeros(1), np.zeros(2, np.int64)
        return zi, np.zeros(1, np.int64), z, z, z, z, z, z, 0.5, 0.5, 0, 1e-7
    return (st.t_row_ptr, st.t_cols, hmm.t_fwd, hmm.t_bwd, hmm.t_null_fwd, hmm.t_null_bwd,
            hmm.jump_fwd, hmm.jump_bwd, hmm.p0_fwd, hmm.p0_bwd, hmm.max_jump, hmm.floor)
