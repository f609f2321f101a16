r"""IBM Model 2 link posteriors of one sentence pair, in both directions.

The posterior :math:`P(a_k = j \mid g, c)` of the model in :mod:`alignment.stats.ibm`,
computed for one pair from trained tables (the link features' statistics and the
interaction statistics read it).
"""

from __future__ import annotations

import numba
import numpy as np

from ..data.cooc import find_in_row
from .ibm import jump_bucket

__all__ = ["pair_posteriors"]


@numba.njit(cache=True, nogil=True)
def _direction_posteriors(t, gen_ids, t_null, w, max_jump, floor):
    """Model 2 posteriors of one direction: ``t[c, g]`` is the translation probability of
    generated word ``g`` from conditioning word ``c`` (``C x G``).  Returns ``post`` (C, G),
    normalised with the NULL posterior ``null`` (G,) over ``c`` for each ``g``."""
    C, G = t.shape
    null_b = 2 * max_jump + 1
    post = np.zeros((C, G), dtype=np.float64)
    null = np.zeros(G, dtype=np.float64)
    for g in range(G):
        x = gen_ids[g]
        tn = floor
        if 0 <= x < len(t_null):
            tn = max(np.float64(t_null[x]), floor)
        tot = w[null_b] * tn
        null[g] = tot
        for c in range(C):
            v = w[jump_bucket(c + 1, g + 1, C, G, max_jump)] * t[c, g]
            post[c, g] = v
            tot += v
        if tot > 0.0:
            null[g] /= tot
            for c in range(C):
                post[c, g] /= tot
        else:
            null[g] = 1.0
    return post, null


@numba.njit(cache=True, nogil=True)
def _pair_posteriors(e_ids, f_ids, row_ptr, cols, t_fwd, t_bwd, t_null_fwd, t_null_bwd,
                     w_fwd, w_bwd, max_jump, floor):
    m = len(e_ids)
    n = len(f_ids)
    nrows = len(row_ptr) - 1
    tf = np.empty((m, n), dtype=np.float64)   # t(f_k | e_j): English conditions
    tb = np.empty((n, m), dtype=np.float64)   # t(e_j | f_k): French conditions
    for j in range(m):
        e = e_ids[j]
        for k in range(n):
            p = -1
            if 0 <= e < nrows:
                p = find_in_row(cols, row_ptr[e], row_ptr[e + 1], f_ids[k])
            if p >= 0:
                tf[j, k] = max(np.float64(t_fwd[p]), floor)
                tb[k, j] = max(np.float64(t_bwd[p]), floor)
            else:
                tf[j, k] = floor
                tb[k, j] = floor
    post_f, null_f = _direction_posteriors(tf, f_ids, t_null_fwd, w_fwd, max_jump, floor)
    post_bt, null_b = _direction_posteriors(tb, e_ids, t_null_bwd, w_bwd, max_jump, floor)
    return post_f, null_f, np.ascontiguousarray(post_bt.T), null_b


def pair_posteriors(e_ids, f_ids, row_ptr, cols, t_fwd, t_bwd, t_null_fwd, t_null_bwd,
                    w_fwd, w_bwd, max_jump, floor):
    r"""Model 2 link posteriors of one sentence pair in both directions.

    Every translation probability is raised to at least ``floor``; pairs missing from
    the table (pruned, or with an unknown word) get ``t = floor``.

    Parameters
    ----------
    e_ids, f_ids : array_like of int
        Word ids of the English (``m``) and French (``n``) sentence.
    row_ptr, cols, t_fwd, t_bwd : the translation tables (CSR by English word).
    t_null_fwd, t_null_bwd : :math:`t(f \mid NULL)`, :math:`t(e \mid NULL)`.
    w_fwd, w_bwd : Model 2 jump-bucket weights of each direction.
    max_jump : int
    floor : float

    Returns
    -------
    post_fwd : ndarray, shape (m, n)
        :math:`P(a_k = j \mid e, f)` of :math:`p(f \mid e)`.
    null_fwd : ndarray, shape (n,)
        :math:`P(a_k = 0 \mid e, f)`; ``post_fwd.sum(0) + null_fwd == 1``.
    post_bwd : ndarray, shape (m, n)
        :math:`P(b_j = k \mid e, f)` of :math:`p(e \mid f)`.
    null_bwd : ndarray, shape (m,)
        ``post_bwd.sum(1) + null_bwd == 1``.
    """
    return _pair_posteriors(np.ascontiguousarray(e_ids, dtype=np.int32),
                            np.ascontiguousarray(f_ids, dtype=np.int32), row_ptr, cols,
                            t_fwd, t_bwd, t_null_fwd, t_null_bwd,
                            np.ascontiguousarray(w_fwd, dtype=np.float64),
                            np.ascontiguousarray(w_bwd, dtype=np.float64),
                            int(max_jump), float(floor))
