"""Max-weight partial matching decoding (OR-Tools min-cost flow, then an exact fix-up).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._common import _as_matrix

__all__ = ['decode_matching', 'decode_matching_hungarian', 'hungarian_matching',
           'matching_lp_value']


# ---------------------------------------------------------------------------
# max-weight matching decoding
# ---------------------------------------------------------------------------


@nb.njit(cache=True)
def _improve_matching(s, y, eps):
    """Cancel improving alternating cycles/paths, in floating point.

    Residual graph (minimising negated gain): nodes are the m sources, the n
    targets and a hub r.  Arcs: j -> k (add edge, cost -s_jk, for unmatched
    pairs with s_jk > 0); k -> j (remove matched edge, cost +s_jk);
    r -> j for free sources and j -> r for matched ones; k -> r for free
    targets and r -> k for matched ones (all cost 0).  Simple cycles of this
    graph are exactly the alternating paths and cycles, so ``y`` is a maximum
    weight matching iff there is no negative cycle.  Bellman-Ford (improvement
    threshold ``eps`` per relaxation) finds one; it is applied if its gain is
    > eps.  Returns the number of cycles cancelled.
    """
    m, n = s.shape
    V = m + n + 1
    r = m + n
    maxe = m * n + 2 * (m + n)
    tail = np.empty(maxe, np.int64)
    head = np.empty(maxe, np.int64)
    w = np.empty(maxe)
    dist = np.empty(V)
    pred = np.empty(V, np.int64)
    cancelled = 0
    for _outer in range(m * n + 1):
        # build residual graph
        E = 0
        rowm = np.full(m, -1, np.int64)
        colm = np.full(n, -1, np.int64)
        for j in range(m):
            for k in range(n):
                if y[j, k]:
                    rowm[j] = k
                    colm[k] = j
        for j in range(m):
            for k in range(n):
                if y[j, k]:
                    tail[E] = m + k
                    head[E] = j
                    w[E] = s[j, k]
                    E += 1
                elif s[j, k] > 0.0:
                    tail[E] = j
                    head[E] = m + k
                    w[E] = -s[j, k]
                    E += 1
        for j in range(m):
            if rowm[j] < 0:
                tail[E] = r
                head[E] = j
            else:
                tail[E] = j
                head[E] = r
            w[E] = 0.0
            E += 1
        for k in range(n):
            if colm[k] < 0:
                tail[E] = m + k
                head[E] = r
            else:
                tail[E] = r
                head[E] = m + k
            w[E] = 0.0
            E += 1
        dist[:] = 0.0
        pred[:] = -1
        last = -1
        for _it in range(V):
            last = -1
            for e in range(E):
                nd = dist[tail[e]] + w[e]
                if nd < dist[head[e]] - eps:
                    dist[head[e]] = nd
                    pred[head[e]] = e
                    last = head[e]
            if last < 0:
                break
        if last < 0:
            return cancelled
        # walk back V steps to land on a cycle of the predecessor graph
        x = last
        for _ in range(V):
            if pred[x] < 0:
                return cancelled
            x = tail[pred[x]]
        # collect the cycle (guarded: the predecessor walk must close within V arcs)
        gain = 0.0
        c = x
        closed = False
        for _ in range(V):
            e = pred[c]
            if e < 0:
                break
            gain -= w[e]
            c = tail[e]
            if c == x:
                closed = True
                break
        if not closed or gain <= eps:
            return cancelled
        c = x
        while True:
            e = pred[c]
            a, b = tail[e], head[e]
            if a < m and m <= b < m + n:
                y[a, b - m] = 1
            elif m <= a < m + n and b < m:
                y[b, a - m] = 0
            c = a
            if c == x:
                break
        cancelled += 1
    return cancelled


@nb.njit(cache=True, nogil=True)
def hungarian_matching(s):
    """Maximum-weight partial matching by shortest augmenting paths (numba, no OR-Tools).

    The Hungarian method (Kuhn-Munkres with potentials, O(r^2 c) for ``r <= c``) on
    the costs ``-max(s, 0)``: every row of the smaller side is assigned, and an
    assignment to an edge with ``s <= 0`` means the word stays unaligned.  Rows whose
    scores are all ``<= 0`` are left out.  Callable from other numba kernels (the
    batch decoder of :mod:`alignment.features.kernel`); :func:`decode_matching_hungarian`
    is the checked entry point from Python.

    Parameters
    ----------
    s : ndarray of float64, shape (m, n)
        Finite edge scores.

    Returns
    -------
    y : ndarray of int64, shape (m, n)
        0/1 matrix of the chosen edges (only edges with ``s > 0``).
    """
    m, n = s.shape
    y = np.zeros((m, n), np.int64)
    if m == 0 or n == 0:
        return y
    tr = m > n                     # rows: the smaller side
    R, C = (n, m) if tr else (m, n)
    rows = np.empty(R, np.int64)
    nr = 0
    for i in range(R):
        for j in range(C):
            v = s[j, i] if tr else s[i, j]
            if v > 0.0:
                rows[nr] = i
                nr += 1
                break
    if nr == 0:
        return y
    # 1-based potentials and matching of the e-maxx formulation; column 0 is virtual
    u = np.zeros(nr + 1)
    v = np.zeros(C + 1)
    p = np.zeros(C + 1, np.int64)      # p[j]: row (1-based, into rows) matched to column j
    way = np.zeros(C + 1, np.int64)
    minv = np.empty(C + 1)
    used = np.empty(C + 1, np.bool_)
    for i in range(1, nr + 1):
        p[0] = i
        j0 = 0
        minv[:] = np.inf
        used[:] = False
        while True:
            used[j0] = True
            i0 = p[j0]
            r0 = rows[i0 - 1]
            delta = np.inf
            j1 = 0
            for j in range(1, C + 1):
                if not used[j]:
                    sv = s[j - 1, r0] if tr else s[r0, j - 1]
                    cur = -(sv if sv > 0.0 else 0.0) - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(C + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    for j in range(1, C + 1):
        if p[j] > 0:
            r = rows[p[j] - 1]
            a, b = (j - 1, r) if tr else (r, j - 1)
            if s[a, b] > 0.0:
                y[a, b] = 1
    return y


def decode_matching_hungarian(scores):
    """:func:`decode_matching` by the numba Hungarian method (:func:`hungarian_matching`).

    The same maximum-weight partial matching problem, solved in floating point without
    OR-Tools (fast on the small matrices of word alignment).  When several matchings
    are optimal the two decoders may return different ones.

    Parameters
    ----------
    scores : array_like, shape (m, n)
        Finite edge scores.

    Returns
    -------
    y : ndarray of int64, shape (m, n)

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D or contains NaN/inf.
    """
    return hungarian_matching(np.ascontiguousarray(_as_matrix(scores, "scores"), np.float64))


_DECODE_COST_BITS = 40


def decode_matching(scores):
    """Maximum-weight partial bipartite matching (exact decoding).

    Solves

    .. math::
        \\max_{y \\in \\{0,1\\}^{m \\times n}} \\sum_{jk} s_{jk} y_{jk}
        \\quad\\text{s.t.}\\quad \\textstyle\\sum_k y_{jk} \\le 1,\\;
        \\sum_j y_{jk} \\le 1,

    i.e. the LP over the matching polytope ``Z`` (integral, thesis sec.
    2.2.3); words may stay unaligned, so only edges with ``s_jk > 0`` can
    ever be chosen (edges with ``s_jk <= 0`` are never selected).

    OR-Tools ``SimpleMinCostFlow`` (source -> rows -> columns -> sink plus a
    zero-cost bypass, unit capacities, arcs only for positive scores) solves
    the problem with integer costs ``round(s_jk * 2**40 / max s)``; the
    rounding can only make the matching suboptimal by at most
    ``min(m, n) * 2**-40 * max s`` (~1e-10 max s).  The result is then fixed
    up in floating point: improving alternating paths/cycles for the
    *float* scores are searched (Bellman-Ford on the residual graph) and
    cancelled until none improves by more than ``1e-13 * max|s|``; the final
    matching is optimal for the float scores to within about
    ``(m + n) * 1e-13 * max|s|``.

    Parameters
    ----------
    scores : array_like, shape (m, n)
        Finite edge scores.

    Returns
    -------
    y : ndarray of int64, shape (m, n)
        0/1 matrix of the chosen edges.

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D or contains NaN/inf.
    """
    from ortools.graph.python import min_cost_flow

    s = _as_matrix(scores, "scores")
    m, n = s.shape
    y = np.zeros((m, n), np.int64)
    if s.size == 0:
        return y
    smax = float(s.max())
    if smax <= 0.0:
        return y
    jj, kk = np.nonzero(s > 0.0)
    # (s / smax first: 2**40 / smax overflows for subnormal smax)
    costs = -np.rint((s[jj, kk] / smax) * 2.0 ** _DECODE_COST_BITS).astype(np.int64)
    flow = min(m, n)
    src, snk = 0, m + n + 1
    smcf = min_cost_flow.SimpleMinCostFlow()
    smcf.add_arcs_with_capacity_and_unit_cost(
        np.full(m, src), np.arange(1, m + 1), np.ones(m, np.int64), np.zeros(m, np.int64)
    )
    smcf.add_arcs_with_capacity_and_unit_cost(
        np.arange(m + 1, m + n + 1), np.full(n, snk), np.ones(n, np.int64), np.zeros(n, np.int64)
    )
    smcf.add_arc_with_capacity_and_unit_cost(src, snk, flow, 0)
    first = smcf.num_arcs()
    smcf.add_arcs_with_capacity_and_unit_cost(
        1 + jj, m + 1 + kk, np.ones(jj.size, np.int64), costs
    )
    smcf.set_node_supply(src, flow)
    smcf.set_node_supply(snk, -flow)
    status = smcf.solve()
    if status != smcf.OPTIMAL:
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    fl = smcf.flows(np.arange(first, first + jj.size))
    sel = fl > 0
    y[jj[sel], kk[sel]] = 1
    eps = 1e-13 * float(np.abs(s).max())
    _improve_matching(s, y, eps)
    return y


def matching_lp_value(scores):
    """Optimal value :math:`\\max_{z \\in Z} s^\\top z` of the matching LP.

    The polytope is integral, so this is the weight of the maximum-weight
    partial matching returned by :func:`decode_matching`.
    """
    s = _as_matrix(scores, "scores")
    y = decode_matching(s)
    return float((s * y).sum())

