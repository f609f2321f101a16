"""The numba kernels of the batch featurizer (:mod:`alignment.predict.batch`): the
statistics' tables of every pair of a batch (:func:`_pair_tables`), and every edge's dense
and aligner features, their scores and the decoding (:func:`_score_and_decode`), with the
names of the features they compute, in their order."""

from __future__ import annotations

import functools

import numba as nb
import numpy as np

from structpred.polytopes.matching import hungarian_matching

from ..stats.dice import _dice_matrix
from .edges import DENSE_FEATURES, HMM_FEATURES, OPTIONAL_FEATURES
from ..stats.hmm import hmm_posteriors
from ..stats.ibm import _pair_posteriors
from ..stats.interactions import _viterbi
from .links import SOURCES

__all__ = []

#: characters of the lower-cased words compared for the prefix cues (prefix3, cognate4)
_PREFIX = 4


#: the edge features :func:`_score_and_decode` computes, in its order (a feature added to
#: :mod:`alignment.features.edges` or to the ``hmm`` source without the kernel's update sends the
#: models to the per-pair path instead of giving other scores)
_KERNEL_FEATURES = (
    "bias", "dice", "dice_row_best", "dice_col_best", "dice_both_best",
    "post_fwd", "post_bwd", "post_prod", "post_min", "vit_fwd", "vit_bwd", "vit_inter",
    "vit_union", "dist", "dist_sq", "exact", "prefix3", "cognate4", "len_ratio",
    "both_punct", "punct_mismatch", "both_number", "src_logfreq", "tgt_logfreq",
    "logpost_fwd", "logpost_bwd", "logdice", "nbr_diag", "nbr_anti", "nbr_vit_diag",
    "null_fwd", "null_bwd", "dist_lt_05", "dist_lt_10", "dist_lt_20", "near_diag_word",
    "dice_row_rank2", "dice_col_rank2",
    "hmm_fwd", "hmm_bwd", "hmm_prod", "hmm_min", "hmm_inter", "hmm_union",
    "loghmm_fwd", "loghmm_bwd", "hmm_nbr_diag", "hmm_nbr_anti",
    "farther_src_occ", "farther_tgt_occ")


#: values per edge in the kernel (all of them, whether or not the model has them)
_N_ALL = len(_KERNEL_FEATURES)


#: the aligner features the kernel computes (all sources), in their order
_KERNEL_ALIGNER_FEATURES = (
    "hmm:fwd", "hmm:bwd", "hmm:min", "hmm:inter", "hmm:nbr_diag", "hmm:nbr_anti",
    "eflomal:fwd", "eflomal:bwd", "eflomal:intersection", "eflomal:grow-diag-final-and",
    "eflomal:union", "eflomal:nbr_diag", "eflomal:nbr_anti",
    "fast_align:sym", "aligners:vote_share")


#: the eflomal link sets, in the order of their rows in the kernel's ``ef`` argument
_EFLOMAL_VIEWS = ("fwd", "bwd", "intersection", "grow-diag-final-and", "union")


@functools.lru_cache(maxsize=1)
def _kernel_is_current():
    from .links import AlignerFeaturizer

    return (DENSE_FEATURES + HMM_FEATURES + OPTIONAL_FEATURES == _KERNEL_FEATURES
            and tuple(AlignerFeaturizer(SOURCES).edge_names) == _KERNEL_ALIGNER_FEATURES)


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
def _score_and_decode(soff, toff, sint, tint, sflt, tflt, mats, nulls, hmms, exts, logs, keep,
                      flags, n_top, offsets, w, hmm_threshold):
    """Edge scores ``F' w`` of every pair, summed feature by feature in the order of the
    model's features, and the maximum-weight matching of each pair.

    ``sint``/``tint`` and ``sflt``/``tflt`` are the per-token attributes of
    :meth:`_Side.attributes`; ``exts`` the external aligners' flat link arrays
    (:meth:`BatchPredictor._external_links`); ``keep`` the kernel positions of the model's
    dense features; ``flags`` = (statistics' HMM, farther_src_occ, farther_tgt_occ, the
    ``hmm`` aligner); ``n_top`` the numbers of frequent source and target words;
    ``offsets`` those of :func:`_aligner_offsets`.
    Returns ``(link_off, link_src, link_tgt)`` (see :meth:`BatchPredictor.predict_links`).
    """
    dice, pf, pb, vf, vb = mats
    nf, nbk = nulls
    hf, hb, uf, ub = hmms
    ef, fa = exts
    o_ef, o_fa, o_vote, n_src = offsets[1], offsets[2], offsets[3], offsets[4]
    lpf, lpb, ldice, lhf, lhb = logs
    use_hmm, far_s, far_t, use_uhmm = flags[0], flags[1], flags[2], flags[3]
    P = len(soff) - 1
    nS, nT = n_top[0], n_top[1]
    K = len(keep)
    lex = K + nS + nT + nS * nT          # first weight after the lexical indicators
    total = 0
    for p in range(P):
        total += min(soff[p + 1] - soff[p], toff[p + 1] - toff[p])
    link_off = np.zeros(P + 1, np.int64)
    link_s = np.empty(total, np.int64)
    link_t = np.empty(total, np.int64)
    v = np.zeros(_N_ALL)
    nl = 0
    e0 = 0
    for p in range(P):
        a0, b0 = soff[p], toff[p]
        m, n = soff[p + 1] - a0, toff[p + 1] - b0
        rmax, rsec = np.empty(m), np.empty(m)
        cmax, csec = np.empty(n), np.empty(n)
        for j in range(m):
            rmax[j], rsec[j] = _top2(dice, e0 + j * n, 1, n)
        for k in range(n):
            cmax[k], csec[k] = _top2(dice, e0 + k, n, m)
        s = np.empty((m, n))
        for j in range(m):
            sj = a0 + j
            jj = (j + 0.5) / m
            for k in range(n):
                tk = b0 + k
                i = e0 + j * n + k
                d = dice[i]
                kk = (k + 0.5) / n
                dist = abs(jj - kk)
                exact = sint[sj, 3] == tint[tk, 3]
                cp = 0
                while cp < _PREFIX and sint[sj, 4 + cp] == tint[tk, 4 + cp]:
                    cp += 1
                rb = d >= rmax[j] and d > 0
                cb = d >= cmax[k] and d > 0
                pp = pf[i] * pb[i]
                ps, pt = sint[sj, 4 + _PREFIX] != 0, tint[tk, 4 + _PREFIX] != 0
                ns, nt = sint[sj, 5 + _PREFIX] != 0, tint[tk, 5 + _PREFIX] != 0
                ls, lt = sflt[sj, 1], tflt[tk, 1]
                v[0] = 1.0
                v[1] = d
                v[2] = rb
                v[3] = cb
                v[4] = rb and cb
                v[5] = pf[i]
                v[6] = pb[i]
                v[7] = pp
                v[8] = min(pf[i], pb[i])
                v[9] = vf[i]
                v[10] = vb[i]
                v[11] = vf[i] * vb[i]
                v[12] = max(vf[i], vb[i])
                v[13] = dist
                v[14] = dist * dist
                v[15] = exact
                v[16] = cp >= 3 and not exact
                v[17] = cp >= 4 and not exact
                v[18] = min(ls, lt) / max(ls, lt)
                v[19] = ps and pt
                v[20] = ps != pt
                v[21] = ns and nt and exact
                v[22] = sflt[sj, 0]
                v[23] = tflt[tk, 0]
                v[24] = lpf[i]
                v[25] = lpb[i]
                v[26] = ldice[i]
                v[27] = _nbr(pf, pb, e0, n, m, j, k, 1)
                v[28] = _nbr(pf, pb, e0, n, m, j, k, -1)
                v[29] = _nbr(vf, vb, e0, n, m, j, k, 1)
                v[30] = nf[tk]
                v[31] = nbk[sj]
                v[32] = dist < 0.05
                v[33] = dist < 0.10
                v[34] = dist < 0.20
                v[35] = abs((j + 0.5) * n / m - (k + 0.5)) <= 1.0
                v[36] = n >= 2 and d >= rsec[j] and d > 0 and not rb
                v[37] = m >= 2 and d >= csec[k] and d > 0 and not cb
                if use_hmm:
                    x, y = hf[i], hb[i]
                    v[38] = x
                    v[39] = y
                    v[40] = x * y
                    v[41] = min(x, y)
                    v[42] = x >= 0.5 and y >= 0.5
                    v[43] = x >= 0.5 or y >= 0.5
                    v[44] = lhf[i]
                    v[45] = lhb[i]
                    v[46] = _nbr(hf, hb, e0, n, m, j, k, 1)
                    v[47] = _nbr(hf, hb, e0, n, m, j, k, -1)
                if far_s:
                    # another occurrence of the source word nearer the diagonal
                    other = np.inf
                    for j2 in range(m):
                        if j2 != j and sint[a0 + j2, 3] == sint[sj, 3]:
                            other = min(other, abs((j2 + 0.5) / m - kk))
                    v[48] = dist > other + 1e-12
                if far_t:
                    other = np.inf
                    for k2 in range(n):
                        if k2 != k and tint[b0 + k2, 3] == tint[tk, 3]:
                            other = min(other, abs(jj - (k2 + 0.5) / n))
                    v[49] = dist > other + 1e-12
                # F' w: feature rows in order (dense, src=, tgt=, pair=, aligners)
                acc = 0.0
                for q in range(K):
                    acc += v[keep[q]] * w[q]
                si, ti = sint[sj, 2], tint[tk, 2]
                if si >= 0:
                    acc += w[K + si]
                if ti >= 0:
                    acc += w[K + nS + ti]
                if si >= 0 and ti >= 0:
                    acc += w[K + nS + nT + si * nT + ti]
                # the aligners' features (alignment.features.links, in its order)
                vote = 0.0
                if use_uhmm:
                    x, y = uf[i], ub[i]
                    mn = min(x, y)
                    inter = 1.0 if mn >= hmm_threshold else 0.0
                    acc += x * w[lex]
                    acc += y * w[lex + 1]
                    acc += mn * w[lex + 2]
                    acc += inter * w[lex + 3]
                    acc += 0.5 * (_min_at(uf, ub, e0, n, m, j - 1, k - 1)
                                  + _min_at(uf, ub, e0, n, m, j + 1, k + 1)) * w[lex + 4]
                    acc += 0.5 * (_min_at(uf, ub, e0, n, m, j - 1, k + 1)
                                  + _min_at(uf, ub, e0, n, m, j + 1, k - 1)) * w[lex + 5]
                    vote += inter
                if o_ef >= 0:
                    b = lex + o_ef
                    for r in range(5):
                        acc += ef[r, i] * w[b + r]
                    x = ef[2]
                    acc += 0.5 * (_at(x, e0, n, m, j - 1, k - 1)
                                  + _at(x, e0, n, m, j + 1, k + 1)) * w[b + 5]
                    acc += 0.5 * (_at(x, e0, n, m, j - 1, k + 1)
                                  + _at(x, e0, n, m, j + 1, k - 1)) * w[b + 6]
                    vote += x[i]
                if o_fa >= 0:
                    acc += fa[i] * w[lex + o_fa]
                    vote += fa[i]
                if o_vote >= 0:
                    acc += vote / n_src * w[lex + o_vote]
                s[j, k] = acc
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
