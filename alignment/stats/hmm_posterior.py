"""The HMM's link posteriors of one sentence pair from trained tables (prediction): the
jump matrix, the emissions of both directions and a forward-backward pass that keeps only
the posteriors (:func:`hmm_posteriors`).

Training (:mod:`alignment.stats.hmm`) runs :func:`alignment.stats.hmm.hmm_forward_backward`,
which also accumulates the expected jumps, NULL transitions and the log-likelihood; the
posteriors of :func:`_gamma` are the same floating-point numbers (the same products and
sums in the same order), without that bookkeeping.
"""

from __future__ import annotations

import numba
import numpy as np

from ..data.cooc import find_in_row

__all__ = ["hmm_forward", "hmm_posteriors"]


@numba.njit(cache=True, nogil=True, inline="always")
def _jump_index(d, max_jump):
    """Index of the jump ``d`` (clipped to ``-D..D``) in the jump weights."""
    return min(max(d, -max_jump), max_jump) + max_jump


@numba.njit(cache=True, nogil=True)
def _jump_matrix(C, w, p0, max_jump):
    """``J[r, i]``: probability of a jump from remembered position ``r`` (0..C, 0 =
    before the sentence) to real position ``i`` (1..C, stored at ``i - 1``),
    times ``1 - p0``."""
    J = np.empty((C + 1, C))
    for r in range(C + 1):
        tot = 0.0
        for i in range(C):
            v = w[_jump_index(i + 1 - r, max_jump)]
            J[r, i] = v
            tot += v
        f = (1.0 - p0) / tot if tot > 0.0 else 0.0
        for i in range(C):
            J[r, i] *= f
    return J


@numba.njit(cache=True, nogil=True)
def _emissions(e_ids, f_ids, row_ptr, cols, t_fwd, t_bwd, t_null_fwd, t_null_bwd, floor):
    """The emissions of both directions: ``(Ef, enf, Eb, enb)`` with ``Ef[k, j]`` =
    ``t_fwd(f_k | e_j)`` and ``Eb[j, k]`` = ``t_bwd(e_j | f_k)`` (at least ``floor``; the
    table entry of ``(e_j, f_k)`` is looked up once for both), ``enf``/``enb`` the NULL
    emissions of the French and English words."""
    m, n = len(e_ids), len(f_ids)
    Ef, Eb = np.empty((n, m)), np.empty((m, n))
    enf, enb = np.empty(n), np.empty(m)
    nrows = len(row_ptr) - 1
    for k in range(n):
        x = f_ids[k]
        enf[k] = max(t_null_fwd[x], floor) if 0 <= x < len(t_null_fwd) else floor
    for j in range(m):
        e = e_ids[j]
        enb[j] = max(t_null_bwd[e], floor) if 0 <= e < len(t_null_bwd) else floor
        for k in range(n):
            p = -1
            if 0 <= e < nrows:
                p = find_in_row(cols, row_ptr[e], row_ptr[e + 1], f_ids[k])
            if p >= 0:
                Ef[k, j] = max(t_fwd[p], floor)
                Eb[j, k] = max(t_bwd[p], floor)
            else:
                Ef[k, j] = floor
                Eb[j, k] = floor
    return Ef, enf, Eb, enb


@numba.njit(cache=True, nogil=True)
def hmm_forward(E, e_null, J, p0):
    """The scaled forward pass of :func:`alignment.stats.hmm.hmm_forward_backward`:
    ``(a_real, a_null, scale)``, the forward variables of the real states ``(G, C)`` and
    of the NULL states by remembered position ``(G, C + 1)``, each row divided by its
    ``scale``."""
    G, C = E.shape
    # alpha over real states (G, C) and NULL states by remembered position (G, C + 1)
    a_real = np.zeros((G, C))
    a_null = np.zeros((G, C + 1))
    scale = np.zeros(G)
    A = np.zeros(C + 1)  # mass by remembered position at k - 1
    A[0] = 1.0
    acc = np.empty(C)
    for k in range(G):
        # acc[i] = sum_r A[r] J[r, i], row by row of J (contiguous, vectorised), each
        # acc[i] summed over r = 0..C in order as before: the same floating-point result
        acc[:] = 0.0
        for r in range(C + 1):
            a = A[r]
            for i in range(C):
                acc[i] += a * J[r, i]
        s = 0.0
        for i in range(C):
            v = acc[i] * E[k, i]
            a_real[k, i] = v
            s += v
        for r in range(C + 1):
            v = A[r] * p0 * e_null[k]
            a_null[k, r] = v
            s += v
        if s <= 0.0:
            s = 1e-300
        scale[k] = s
        inv = 1.0 / s
        for i in range(C):
            a_real[k, i] *= inv
        for r in range(C + 1):
            a_null[k, r] *= inv
        # remembered position after k: real state i -> i + 1, NULL_r -> r
        for r in range(C + 1):
            A[r] = a_null[k, r]
        for i in range(C):
            A[i + 1] += a_real[k, i]
    return a_real, a_null, scale


@numba.njit(cache=True, nogil=True)
def _gamma(E, e_null, J, p0):
    """The posteriors ``gamma`` ``(G, C)`` of :func:`alignment.stats.hmm.hmm_forward_backward`
    (the same arithmetic in the same order), without the expected counts."""
    G, C = E.shape
    a_real, _, scale = hmm_forward(E, e_null, J, p0)
    # backward: B[r] depends only on the remembered position r; the sums over i of the
    # C + 1 positions r are taken side by side (each in the order of i, as before)
    JT = np.ascontiguousarray(J.T)
    B = np.ones(C + 1)
    Bn = np.empty(C + 1)
    gamma = np.empty((G, C))
    for k in range(G - 1, -1, -1):
        for i in range(C):
            gamma[k, i] = a_real[k, i] * B[i + 1]
        if k == 0:
            break
        inv = 1.0 / scale[k]
        Bn[:] = 0.0
        for i in range(C):
            e, b = E[k, i], B[i + 1]
            for r in range(C + 1):
                Bn[r] += JT[i, r] * e * b * inv
        en = e_null[k]
        for r in range(C + 1):
            B[r] = Bn[r] + p0 * en * B[r] * inv
    return gamma


@numba.njit(cache=True, nogil=True)
def hmm_posteriors(e_ids, f_ids, row_ptr, cols, t_fwd, t_bwd, t_null_fwd, t_null_bwd,
                   jump_fwd, jump_bwd, p0_fwd, p0_bwd, max_jump, floor):
    """HMM link posteriors of one sentence pair, both directions, as ``(m, n)`` arrays."""
    m, n = len(e_ids), len(f_ids)
    if m == 0 or n == 0:
        return np.zeros((m, n)), np.zeros((m, n))
    Ef, enf, Eb, enb = _emissions(e_ids, f_ids, row_ptr, cols, t_fwd, t_bwd, t_null_fwd,
                                  t_null_bwd, floor)
    post_f = np.ascontiguousarray(_gamma(Ef, enf, _jump_matrix(m, jump_fwd, p0_fwd, max_jump),
                                         p0_fwd).T)
    post_b = _gamma(Eb, enb, _jump_matrix(n, jump_bwd, p0_bwd, max_jump), p0_bwd)
    return post_f, post_b
