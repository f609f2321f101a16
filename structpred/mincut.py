"""Binary associative Markov networks: min-cut decoding and the min-cut polytope.

The model of thesis sec. 2.2.2.  Binary labels ``y_j`` on the nodes of a
graph ``(V, E)``, node scores ``s_j`` and non-negative edge penalties
``s_jk >= 0``; the score of a labelling is

.. math::
    s(y) = \\sum_{j \\in V} s_j y_j - \\sum_{jk \\in E} s_{jk} \\mathbb{I}(y_j \\ne y_k),

and its maximisation is the LP over the *min-cut polytope* (eq. 2.5)

.. math::
    Z = \\{ z : 0 \\le z \\le 1,\\; z_{jk} \\ge z_j - z_k,\\; z_{jk} \\ge z_k - z_j \\},

whose vertices are the labellings (``z_jk = |y_j - y_k|``).  The encoding
used throughout is ``z = [z_V, z_E]``: node variables first, then one
variable per edge in the order of the ``edges`` array.  The box bound
``z_jk <= 1`` of the protocol (``Z = {A z <= b, 0 <= z <= 1}``, eq. 2.11) is
redundant at every vertex and never binds for the scores the learners use
(edge scores ``-s_jk <= 0``); it is kept so that decoding, projection and the
cvxpy reference all describe the same polytope.

This module provides

* :func:`decode_mincut` -- exact MAP by an s-t minimum cut: OR-Tools' integer
  push-relabel max-flow (default), PyMaxflow's Boykov-Kolmogorov (optional
  extra ``structpred[maxflow]``) or networkx (for checking);
* :func:`decode_mincut_bruteforce` -- enumeration, for tests (n <= 20);
* :func:`project_mincut` -- the exact Euclidean projection onto ``Z``
  (eq. 2.22): coordinate ascent on its dual (Numba) to guess the structure of
  the optimum, then an exact active-set method (merge/split of fused groups,
  one sparse SPD solve per step, a Boykov-Kolmogorov max-flow in Numba for the
  flows inside the groups)
  with a KKT certificate;
* :func:`project_mincut_cvxpy` -- the same projection by a generic QP solver;
* :class:`MinCutExample` -- the problem class of the structpred protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np
import scipy.sparse as sp

from .problem import StructuredExample

__all__ = [
    "MinCutExample",
    "check_graph",
    "mincut_score",
    "decode_mincut",
    "decode_mincut_bruteforce",
    "project_mincut",
    "project_mincut_cvxpy",
    "mincut_constraints",
    "maxflow_available",
    "ORTOOLS_SCALE_BITS",
]

#: Capacities are scaled so that their total is ``2**ORTOOLS_SCALE_BITS``
#: before rounding to int64 for OR-Tools (see :func:`decode_mincut`).
ORTOOLS_SCALE_BITS = 50
#: max-flow used inside the projection's active-set method: "bk" (Boykov-Kolmogorov in
#: Numba, the default) or "ortools" (push-relabel; kept as a cross-check in the tests)
_PROJECTION_MAXFLOW = "bk"
_THIRD = 1.0 / 3.0


# ----------------------------------------------------------------- graphs
def check_graph(edges, n_nodes):
    """Validate an edge list: ``(m, 2)`` int64 array of distinct nodes in range.

    Returns the edges as a C-contiguous ``int64`` array.
    """
    edges = np.asarray(edges)
    if edges.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if edges.ndim != 2 or edges.shape[1] != 2:
        raise ValueError(f"edges must have shape (m, 2), got {edges.shape}")
    if not np.issubdtype(edges.dtype, np.integer):
        raise ValueError("edges must be integer node indices")
    edges = np.ascontiguousarray(edges, dtype=np.int64)
    if edges.min() < 0 or edges.max() >= n_nodes:
        raise ValueError(f"edge endpoints must lie in [0, {n_nodes}), got "
                         f"[{edges.min()}, {edges.max()}]")
    if np.any(edges[:, 0] == edges[:, 1]):
        raise ValueError("self-loops are not allowed in the min-cut graph")
    return edges


def mincut_score(y, node_scores, edge_penalties, edges):
    """``s(y) = sum_j s_j y_j - sum_jk s_jk |y_j - y_k|`` (eq. 2.5 at a vertex)."""
    y = np.asarray(y, dtype=np.float64)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    cut = np.abs(y[edges[:, 0]] - y[edges[:, 1]])
    return float(np.dot(node_scores, y) - np.dot(edge_penalties, cut))


def _check_scores(node_scores, edge_penalties, edges):
    s = np.ascontiguousarray(node_scores, dtype=np.float64).ravel()
    lam = np.ascontiguousarray(edge_penalties, dtype=np.float64).ravel()
    edges = check_graph(edges, s.size)
    if lam.size != edges.shape[0]:
        raise ValueError(f"{lam.size} edge penalties for {edges.shape[0]} edges")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(lam))):
        raise ValueError("scores must be finite")
    if np.any(lam < 0):
        raise ValueError("edge penalties must be non-negative (associative potentials, eq. 2.4)")
    return s, lam, edges


# --------------------------------------------------------------- decoding
def maxflow_available():
    """Whether the optional PyMaxflow back end can be imported."""
    try:
        import maxflow  # noqa: F401
    except ImportError:
        return False
    return True


def _st_arcs(s, lam, edges):
    """Arcs of the s-t graph whose minimum cuts are the maximisers of ``s(y)``.

    Source ``n``, sink ``n + 1``; a node on the source side has ``y_j = 1``.
    ``s_j > 0``: arc source->j of capacity ``s_j`` (cut when ``y_j = 0``);
    ``s_j < 0``: arc j->sink of capacity ``-s_j`` (cut when ``y_j = 1``);
    each edge: arcs j->k and k->j of capacity ``s_jk`` (one is cut when
    ``y_j != y_k``).  A cut's capacity is ``sum_j max(s_j, 0) - s(y)``.
    """
    n = s.size
    pos = np.flatnonzero(s > 0)
    neg = np.flatnonzero(s < 0)
    keep = np.flatnonzero(lam > 0)
    e = edges[keep]
    tails = np.concatenate([np.full(pos.size, n), neg, e[:, 0], e[:, 1]])
    heads = np.concatenate([pos, np.full(neg.size, n + 1), e[:, 1], e[:, 0]])
    caps = np.concatenate([s[pos], -s[neg], lam[keep], lam[keep]])
    return tails.astype(np.int64), heads.astype(np.int64), caps


def _decode_ortools(s, lam, edges):
    from ortools.graph.python import max_flow

    n = s.size
    tails, heads, caps = _st_arcs(s, lam, edges)
    total = float(caps.sum())
    if caps.size == 0 or total <= 0:
        return np.zeros(n, dtype=np.int8)
    # OR-Tools takes int64 capacities: scale so that the total is 2**50 and round.
    # Each arc is off by at most 1/2 unit, so the cut found is optimal to within
    # (number of arcs) * total / 2**50 of the exact maximum (see decode_mincut).
    scale = 2.0 ** ORTOOLS_SCALE_BITS / total
    icaps = np.rint(caps * scale).astype(np.int64)
    smf = max_flow.SimpleMaxFlow()
    # a zero-capacity arc source->sink makes sure both terminals exist: OR-Tools
    # reports an empty cut when the sink has no arcs.
    smf.add_arcs_with_capacity(np.r_[tails, n], np.r_[heads, n + 1], np.r_[icaps, 0])
    status = smf.solve(n, n + 1)
    if status != smf.OPTIMAL:
        raise RuntimeError(f"OR-Tools max-flow failed with status {status}")
    src = np.asarray(smf.get_source_side_min_cut(), dtype=np.int64)
    y = np.zeros(n + 2, dtype=np.int8)
    y[src] = 1
    return y[:n]


def _decode_pymaxflow(s, lam, edges):
    import maxflow

    n = s.size
    g = maxflow.Graph[float](n, max(edges.shape[0], 1))
    nodes = g.add_nodes(n)
    if edges.shape[0]:
        g.add_edges(nodes[edges[:, 0]], nodes[edges[:, 1]], lam, lam)
    g.add_grid_tedges(nodes, np.maximum(s, 0.0), np.maximum(-s, 0.0))
    g.maxflow()
    return (~g.get_grid_segments(nodes)).astype(np.int8)  # source segment = label 1


def _decode_networkx(s, lam, edges):
    import networkx as nx

    n = s.size
    tails, heads, caps = _st_arcs(s, lam, edges)
    G = nx.DiGraph()
    G.add_nodes_from(range(n + 2))
    for t, h, c in zip(tails.tolist(), heads.tolist(), caps.tolist()):
        if G.has_edge(t, h):  # parallel edges: capacities add
            G[t][h]["capacity"] += c
        else:
            G.add_edge(t, h, capacity=c)
    _, (src, _) = nx.minimum_cut(G, n, n + 1)
    y = np.zeros(n, dtype=np.int8)
    y[[v for v in src if v < n]] = 1
    return y


_BACKENDS = {"ortools": _decode_ortools, "maxflow": _decode_pymaxflow, "networkx": _decode_networkx}


def decode_mincut(node_scores, edge_penalties, edges, backend="ortools"):
    """Exact MAP labelling ``argmax_y sum_j s_j y_j - sum_jk s_jk |y_j - y_k|``.

    Solved as an s-t minimum cut (Greig et al. 1989; thesis sec. 2.2.2):
    source-side nodes take label 1.

    Parameters
    ----------
    node_scores : array_like, shape (n,)
        ``s_j``, any sign.
    edge_penalties : array_like, shape (m,)
        ``s_jk >= 0`` (regular potentials, eq. 2.4).
    edges : array_like of int, shape (m, 2)
    backend : {"ortools", "maxflow", "networkx", "auto"}
        ``"ortools"``: OR-Tools' push-relabel max-flow on int64 capacities.
        The capacities are multiplied by ``2**50 / C`` (``C`` their total) and
        rounded, so each is off by at most ``C 2**-51``; the labelling returned
        is then optimal to within ``(number of arcs) * C * 2**-50`` in score
        (about ``1e-15 * n_arcs`` relative), i.e. exact up to ties closer
        than that.  ``"maxflow"``: PyMaxflow (Boykov-Kolmogorov, float
        capacities), if installed.  ``"networkx"``: pure Python, for checks.
        ``"auto"``: PyMaxflow when installed, else OR-Tools.

    Returns
    -------
    ndarray of int8, shape (n,)
    """
    s, lam, edges = _check_scores(node_scores, edge_penalties, edges)
    if backend == "auto":
        backend = "maxflow" if maxflow_available() else "ortools"
    if backend not in _BACKENDS:
        raise ValueError(f"unknown min-cut backend {backend!r}; choose from {sorted(_BACKENDS)}")
    if s.size == 0:
        return np.zeros(0, dtype=np.int8)
    return _BACKENDS[backend](s, lam, edges)


def decode_mincut_bruteforce(node_scores, edge_penalties, edges):
    """Exhaustive maximisation of ``s(y)`` over all ``2**n`` labellings (n <= 20).

    Returns ``(y, best_score)``; the first maximiser in binary order.
    """
    s, lam, edges = _check_scores(node_scores, edge_penalties, edges)
    n = s.size
    if n > 20:
        raise ValueError("brute force is limited to 20 nodes")
    Y = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)
    scores = Y @ s - np.abs(Y[:, edges[:, 0]] - Y[:, edges[:, 1]]) @ lam
    best = int(np.argmax(scores))
    return Y[best].astype(np.int8), float(scores[best])


# ------------------------------------------------------------- projection
@nb.njit(cache=True)
def _clip01(x):
    return min(max(x, 0.0), 1.0)


@nb.njit(cache=True)
def _g(p, A, B, a, side):
    """``R(p) - h*'(p)`` for one edge (see :func:`_edge_update`).

    ``R(p) = clip(A - p) - clip(B + p)``; ``h*'`` on the branch ``side``:
    ``+1``: ``p + a`` (a > 0, p > 0), ``-1``: ``p - a`` (a > 0, p < 0),
    ``0``: ``sign(p) max(|p| + a, 0)`` (a <= 0).
    """
    r = _clip01(A - p) - _clip01(B + p)
    if side == 1:
        return r - (p + a)
    if side == -1:
        return r - (p - a)
    t = abs(p) + a
    if t <= 0.0:
        return r
    return r - t if p > 0 else r + t


@nb.njit(cache=True, inline="always")
def _bracket(b, A, B, a, side, lo, hi, glo, ghi):
    """Tighten the bracket ``[lo, hi]`` (``g(lo) >= 0 >= g(hi)``) with point ``b``."""
    if lo < b < hi:
        gb = _g(b, A, B, a, side)
        if gb >= 0.0:
            return b, hi, gb, ghi
        return lo, b, glo, gb
    return lo, hi, glo, ghi


@nb.njit(cache=True, inline="always")
def _edge_update(A, B, a, p_old, omega):
    """Exact maximisation of the dual over one edge flow ``p`` (others fixed).

    With the node values ``z_j = clip(A - p)``, ``z_k = clip(B + p)``, the
    optimality condition is ``z_j - z_k in d h*(p)``, where
    ``h*(p) = 1/2 (|p| + a)_+^2 - a^2/2`` is the conjugate of the squared
    hinge ``h(d) = 1/2 (|d| - a)_+^2`` of the eliminated edge variable.
    The left side is non-increasing and the right side non-decreasing and
    piecewise linear in ``p`` with at most six breakpoints, so the root is
    bracketed by the breakpoints and found exactly by linear interpolation
    (the difference is linear between consecutive breakpoints).

    Fast path: when both node values stay strictly inside (0, 1) at the root,
    ``R(p) = A - B - 2p`` and the root of the piece of ``h*'`` it falls on is
    closed-form (``(A - B)/2`` on the flat piece ``|p| <= -a``, ``(A - B -+ a)/3``
    on the sloped ones, 0 at the kink of ``a > 0``); the brackets are only
    searched when a node is clipped.
    """
    d = A - B
    kink = False
    if a <= 0.0:
        if abs(d) <= -2.0 * a:
            root, plo, phi = 0.5 * d, a, -a
        elif d > 0.0:
            root, plo, phi = (d - a) * _THIRD, -a, np.inf
        else:
            root, plo, phi = (d + a) * _THIRD, -np.inf, a
    elif abs(d) <= a:
        root, plo, phi, kink = 0.0, 0.0, 0.0, True
    elif d > 0.0:
        root, plo, phi = (d - a) * _THIRD, 0.0, np.inf
    else:
        root, plo, phi = (d + a) * _THIRD, -np.inf, 0.0
    if 0.0 < A - root < 1.0 and 0.0 < B + root < 1.0:
        if omega != 1.0 and not kink:
            over = p_old + omega * (root - p_old)
            if plo <= over <= phi and 0.0 <= A - over <= 1.0 and 0.0 <= B + over <= 1.0:
                return over
        return root
    # both nodes at the same bound for every p of an interval on which h*' = 0
    # (the flat piece |p| <= -a, or p = 0 when a > 0): g = 0 there, so every such
    # p is a maximiser; keep the one closest to p_old (as the bracket search does)
    fl, fh = (a, -a) if a <= 0.0 else (0.0, 0.0)
    if A + B >= 2.0:  # both at 1 for p in [1 - B, A - 1]
        lo1, hi1 = max(1.0 - B, fl), min(A - 1.0, fh)
        if lo1 <= hi1:
            return min(max(p_old, lo1), hi1)
    elif A + B <= 0.0:  # both at 0 for p in [A, -B]
        lo1, hi1 = max(A, fl), min(-B, fh)
        if lo1 <= hi1:
            return min(max(p_old, lo1), hi1)
    if a > 0.0:
        r0 = _clip01(A) - _clip01(B)
        if -a <= r0 <= a:
            return 0.0
        if r0 > a:
            side = 1
            lo, hi = 0.0, r0 - a
        else:
            side = -1
            lo, hi = r0 + a, 0.0
    else:
        side = 0
        lo, hi = a - 1.0, 1.0 - a  # |p| <= |a| + 1 since |z_j - z_k| <= 1
    glo = _g(lo, A, B, a, side)
    ghi = _g(hi, A, B, a, side)
    lo, hi, glo, ghi = _bracket(A - 1.0, A, B, a, side, lo, hi, glo, ghi)
    lo, hi, glo, ghi = _bracket(A, A, B, a, side, lo, hi, glo, ghi)
    lo, hi, glo, ghi = _bracket(-B, A, B, a, side, lo, hi, glo, ghi)
    lo, hi, glo, ghi = _bracket(1.0 - B, A, B, a, side, lo, hi, glo, ghi)
    if side == 0:
        lo, hi, glo, ghi = _bracket(a, A, B, a, side, lo, hi, glo, ghi)
        lo, hi, glo, ghi = _bracket(-a, A, B, a, side, lo, hi, glo, ghi)
    if glo <= 0.0:  # g(lo) == 0
        if ghi >= 0.0:  # flat zero piece: stay as close as possible to p_old
            return min(max(p_old, lo), hi)
        return lo
    if ghi >= 0.0:
        return hi
    root = lo + (hi - lo) * glo / (glo - ghi)
    # Over-relaxation (SOR): step past the root by (omega - 1) times the move,
    # but only inside the bracket, where the 1-D dual is one quadratic piece.
    # Fixed points are unchanged: p_old == root iff the step is zero.
    if omega != 1.0:
        over = p_old + omega * (root - p_old)
        if lo <= over <= hi:
            return over
    return root


@nb.njit(cache=True)
def _project_kernel(zp, a_e, ej, ek, p, tol, max_iter, omega):
    n = zp.size
    m = a_e.size
    u = zp.copy()  # u = z' - D'p
    for e in range(m):
        u[ej[e]] -= p[e]
        u[ek[e]] += p[e]
    it = 0
    delta_max = 0.0
    for it in range(1, max_iter + 1):
        delta_max = 0.0
        for e in range(m):
            j = ej[e]
            k = ek[e]
            pe = p[e]
            pn = _edge_update(u[j] + pe, u[k] - pe, a_e[e], pe, omega)
            d = pn - pe
            if d != 0.0:
                p[e] = pn
                u[j] -= d
                u[k] += d
                if abs(d) > delta_max:
                    delta_max = abs(d)
        if delta_max <= tol:
            break
    z = np.empty(n)
    for j in range(n):
        z[j] = _clip01(u[j])
    return z, it, delta_max


# ------------------------------------------------ exact active-set polish
@nb.njit(cache=True)
def _lap_matvec(diag, eu, ev, y, out):
    """``out = (diag(diag) + L) y`` for the Laplacian ``L`` of the edges ``(eu, ev)``."""
    for i in range(diag.size):
        out[i] = diag[i] * y[i]
    for e in range(eu.size):
        t = y[eu[e]] - y[ev[e]]
        out[eu[e]] += t
        out[ev[e]] -= t


@nb.njit(cache=True)
def _edge_cg(diag, eu, ev, rhs, x, tol, max_iter):
    """Jacobi-preconditioned conjugate gradients for ``(diag(diag) + L) x = rhs``.

    ``L = sum_e (e_u - e_v)(e_u - e_v)'`` is the Laplacian of the edge list
    ``(eu, ev)``; it may be singular (then ``rhs`` must lie in the range and
    any solution is returned).  ``x`` is the start and is overwritten.
    Stops when ``||r||_inf <= tol``.  Returns the number of iterations.
    """
    n = diag.size
    m = eu.size
    dg = diag.copy()
    for e in range(m):
        dg[eu[e]] += 1.0
        dg[ev[e]] += 1.0
    for i in range(n):
        if dg[i] <= 0.0:
            dg[i] = 1.0

    r = np.empty(n)
    q = np.empty(n)
    _lap_matvec(diag, eu, ev, x, q)
    rmax = 0.0
    for i in range(n):
        r[i] = rhs[i] - q[i]
        rmax = max(rmax, abs(r[i]))
    if rmax <= tol:
        return 0
    s = r / dg
    d = s.copy()
    rs = np.dot(r, s)
    for it in range(1, max_iter + 1):
        _lap_matvec(diag, eu, ev, d, q)
        dq = np.dot(d, q)
        if dq <= 0.0:
            return it
        alpha = rs / dq
        rmax = 0.0
        for i in range(n):
            x[i] += alpha * d[i]
            r[i] -= alpha * q[i]
            rmax = max(rmax, abs(r[i]))
        if rmax <= tol:
            return it
        for i in range(n):
            s[i] = r[i] / dg[i]
        rs_new = np.dot(r, s)
        beta = rs_new / rs
        rs = rs_new
        for i in range(n):
            d[i] = s[i] + beta * d[i]
    return max_iter


@nb.njit(cache=True)
def _kkt_residual(zp, bp, ej, ek, z, p):
    """Largest violation of the optimality conditions of the node problem.

    With ``u = z' - D'p``: ``|z_j - clip(u_j)|`` on the nodes and
    ``|d - prox_h(d + p)|`` on the edges (``d = z_j - z_k``), which vanish
    exactly when ``z = clip(z' - D'p)`` and ``p in dh(d)``.
    """
    n = zp.size
    u = zp.copy()
    for e in range(ej.size):
        u[ej[e]] -= p[e]
        u[ek[e]] += p[e]
    res = 0.0
    for j in range(n):
        res = max(res, abs(z[j] - _clip01(u[j])))
    for e in range(ej.size):
        d = z[ej[e]] - z[ek[e]]
        x = d + p[e]
        b = bp[e]
        ax = abs(x)
        if b >= 0.0:
            pr = x if ax <= b else np.sign(x) * (ax + b) / 2.0
        else:
            pr = np.sign(x) * max(ax + b, 0.0) / 2.0
        res = max(res, abs(d - pr))
    return res


@nb.njit(cache=True)
def _components(n, eu, ev):
    """Connected components of the graph ``(n, edges (eu, ev))`` by union-find;
    labels ``0..k-1`` in order of first appearance.  Returns ``(k, labels)``."""
    parent = np.arange(n)
    for e in range(eu.size):
        a = eu[e]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = ev[e]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            if a < b:
                parent[b] = a
            else:
                parent[a] = b
    lab = np.empty(n, np.int64)
    k = 0
    for j in range(n):
        r = j
        while parent[r] != r:
            r = parent[r]
        if r == j:
            lab[j] = k
            k += 1
        else:
            lab[j] = lab[r]
    return k, lab


@nb.njit(cache=True)
def _groups(n, ej, ek, fused, flags, neg):
    """Groups of nodes joined by fused edges, and their bound status.

    Negative-``b'`` edges between two nodes at the same bound are fused too
    (``z_j = z_k`` there, and fusing only widens the admissible flows), and so
    are negative-``b'`` edges inside a group or between two groups at the same
    bound, until nothing changes.  Returns ``(comp, cstat, fused)``: group of
    each node, status of each group (-1: at 0, +1: at 1, 0: free) and the
    completed fused mask.
    """
    m = ej.size
    fused = fused.copy()
    for e in range(m):
        if neg[e] and flags[ej[e]] == flags[ek[e]] and flags[ej[e]] != 0:
            fused[e] = True
    while True:
        nc, comp = _components(n, ej[fused], ek[fused])
        lo = np.zeros(nc, np.bool_)
        hi = np.zeros(nc, np.bool_)
        for j in range(n):
            if flags[j] < 0:
                lo[comp[j]] = True
            elif flags[j] > 0:
                hi[comp[j]] = True
        cstat = np.zeros(nc, np.int8)
        for c in range(nc):
            if lo[c] and not hi[c]:
                cstat[c] = -1
            elif hi[c] and not lo[c]:
                cstat[c] = 1
        more = False
        for e in range(m):
            if neg[e] and not fused[e]:
                a, b = comp[ej[e]], comp[ek[e]]
                if a == b or (cstat[a] == cstat[b] and cstat[a] != 0):
                    fused[e] = True
                    more = True
        if not more:
            return comp, cstat, fused


@nb.njit(cache=True)
def _group_values(zp, bp, ej, ek, comp, cstat, sigma, active, z_prev):
    """Exact node values for a given structure: one linear solve.

    Every free group ``C`` takes one value ``x_C`` solving
    ``(diag(|C|) + L_A) x = rhs`` (the stationarity of the node problem
    summed over the group), where ``L_A`` is the Laplacian of the edges
    between groups on a quadratic piece (``p_e = d_e - sigma_e b'_e``).
    Returns ``(z, x, p)`` with ``p`` the flows of those edges (0 elsewhere).
    CG starts from the group means of ``z_prev`` (the previous step's node
    values; empty for none), which changes only its number of iterations.
    """
    n, m = zp.size, bp.size
    nc = cstat.size
    idx = np.full(nc, -1, np.int64)  # free groups numbered 0..nf-1
    nf = 0
    for c in range(nc):
        if cstat[c] == 0:
            idx[c] = nf
            nf += 1
    diag = np.zeros(nf)
    rhs = np.zeros(nf)
    zb = np.zeros(n)  # values of the nodes at a bound
    for j in range(n):
        g = idx[comp[j]]
        if g >= 0:
            diag[g] += 1.0
            rhs[g] += zp[j]
        elif cstat[comp[j]] > 0:
            zb[j] = 1.0
    diag_size = diag.copy()  # group sizes
    act = np.zeros(m, np.bool_)
    both = np.zeros(m, np.bool_)  # between two free groups
    for e in range(m):
        ct, ch = comp[ej[e]], comp[ek[e]]
        if ct == ch or not (bp[e] < 0 or active[e]):
            continue
        if cstat[ct] == cstat[ch] and cstat[ct] != 0:
            continue
        act[e] = True
        sb = sigma[e] * bp[e]
        gt, gh = idx[ct], idx[ch]
        if gt >= 0:
            rhs[gt] += sb
        if gh >= 0:
            rhs[gh] -= sb
        if gt >= 0 and gh < 0:
            diag[gt] += 1.0
            rhs[gt] += zb[ek[e]]
        elif gh >= 0 and gt < 0:
            diag[gh] += 1.0
            rhs[gh] += zb[ej[e]]
        elif gt >= 0 and gh >= 0:
            both[e] = True
    eu = idx[comp[ej[both]]]
    ev = idx[comp[ek[both]]]
    scale = 1.0
    for g in range(nf):
        scale = max(scale, abs(rhs[g]))
    x = np.zeros(nf)
    if z_prev.size == n:  # group means of the previous values
        for j in range(n):
            g = idx[comp[j]]
            if g >= 0:
                x[g] += z_prev[j]
        for g in range(nf):
            x[g] /= diag_size[g]
    else:
        for g in range(nf):
            x[g] = min(max(rhs[g] / max(diag[g], 1.0), 0.0), 1.0)
    _edge_cg(diag, eu, ev, rhs, x, 1e-15 * scale, 10 * nf + 100)
    z = zb.copy()
    for j in range(n):
        g = idx[comp[j]]
        if g >= 0:
            z[j] = x[g]
    p = np.zeros(m)
    for e in range(m):
        if act[e]:
            p[e] = z[ej[e]] - z[ek[e]] - sigma[e] * bp[e]
    return z, x, p


@nb.njit(cache=True)
def _minus_div(u, ej, ek, p):
    """``u - D'p`` with ``(D'p)_j = sum_{e=(j,.)} p_e - sum_{e=(.,j)} p_e``."""
    out = u.copy()
    for e in range(ej.size):
        out[ej[e]] -= p[e]
        out[ek[e]] += p[e]
    return out


@nb.njit(cache=True)
def _flow_network(tt, bp, ej, ek, comp, fused, sel, scale0):
    """Arcs of the max-flow network of :func:`_fused_flows` for the groups ``sel``.

    Node demands ``|tt| <= 1e-13 scale0`` count as zero (rounding of the group
    values).  Arcs, in this order: source -> j (``tt_j > 0``), j -> sink
    (``tt_j < 0``), then each fused edge of a selected group as a pair of
    arcs, forward then backward (capacity ``-b'``; only edges with both ends in
    selected groups).  Nodes are numbered compactly over the selected groups; source and sink are ``k`` and ``k + 1``.  Capacities are
    scaled so that they sum to ``2**ORTOOLS_SCALE_BITS`` (at least ``scale0``
    as the total) and floored to int64.  Returns ``(tails, heads, icaps, fe,
    term, k1, k2, nodes, scale)``: ``term`` the node of each terminal arc,
    ``k1``/``k2`` the ends of the source and sink arcs.
    """
    n = tt.size
    loc = np.full(n, -1, np.int64)
    k = 0
    for j in range(n):
        if sel[comp[j]]:
            loc[j] = k
            k += 1
    nodes = np.empty(k, np.int64)
    npos = nneg = 0
    thr = 1e-13 * scale0
    for j in range(n):
        if loc[j] >= 0:
            nodes[loc[j]] = j
            if tt[j] > thr:
                npos += 1
            elif tt[j] < -thr:
                nneg += 1
    fe = np.flatnonzero(fused & (loc[ej] >= 0) & (loc[ek] >= 0))
    nfe = fe.size
    k1, k2 = npos, npos + nneg
    na = k2 + 2 * nfe
    tails = np.empty(na, np.int64)
    heads = np.empty(na, np.int64)
    caps = np.empty(na)
    term = np.empty(k2, np.int64)
    a1, a2 = 0, k1
    for j in range(n):
        if loc[j] >= 0:
            if tt[j] > thr:
                tails[a1], heads[a1], caps[a1], term[a1] = k, loc[j], tt[j], j
                a1 += 1
            elif tt[j] < -thr:
                tails[a2], heads[a2], caps[a2], term[a2] = loc[j], k + 1, -tt[j], j
                a2 += 1
    for i in range(nfe):  # sister pairs: forward at k2 + 2i, backward at k2 + 2i + 1
        e = fe[i]
        u, v = loc[ej[e]], loc[ek[e]]
        tails[k2 + 2 * i], heads[k2 + 2 * i], caps[k2 + 2 * i] = u, v, -bp[e]
        tails[k2 + 2 * i + 1], heads[k2 + 2 * i + 1], caps[k2 + 2 * i + 1] = v, u, -bp[e]
    total = 0.0
    for a in range(na):
        total += caps[a]
    total = max(total, scale0)
    scale = 2.0 ** ORTOOLS_SCALE_BITS / total
    icaps = np.empty(na, np.int64)
    for a in range(na):
        icaps[a] = np.int64(np.floor(caps[a] * scale))
    return tails, heads, icaps, fe, term, k1, k2, nodes, scale


@nb.njit(cache=True)
def _flow_deficits(icaps, fl, term, k1, k2, comp, cstat, slack_tol):
    """Groups whose required terminal arcs are not saturated: the source arcs
    of free groups and of groups at 0, the sink arcs of free groups and of
    groups at 1 (deficit above ``slack_tol`` units per node of the group)."""
    nc = cstat.size
    src_def = np.zeros(nc)
    snk_def = np.zeros(nc)
    for a in range(k1):
        src_def[comp[term[a]]] += icaps[a] - fl[a]
    for a in range(k1, k2):
        snk_def[comp[term[a]]] += icaps[a] - fl[a]
    deg = np.zeros(nc)
    for j in range(comp.size):
        deg[comp[j]] += 1.0
    bad = np.zeros(nc, np.bool_)
    for c in range(nc):
        lim = slack_tol * deg[c]
        bad[c] = (cstat[c] <= 0 and src_def[c] > lim) or (cstat[c] >= 0 and snk_def[c] > lim)
    return bad


_BK_TERMINAL = -1
_BK_ORPHAN = -2
_BK_NONE = -3


@nb.njit(cache=True)
def _bk_maxflow(n, tails, heads, cap, tr):
    """Maximum flow by Boykov & Kolmogorov's algorithm (2004) on integer capacities.

    Internal arcs come in sister pairs ``(2i, 2i + 1)`` of opposite directions
    (``tails``/``heads``); ``cap`` holds their residual capacities.  The
    terminal arcs are folded into ``tr``: ``tr[j] > 0`` is the residual of
    source -> j, ``tr[j] < 0`` minus that of j -> sink.  Both arrays are
    updated in place.  Two search trees grow from the terminals (S from the
    source, T to the sink); when they touch, the path is augmented and the
    nodes cut off by saturated arcs are re-attached (adoption) or freed.  The
    distance/timestamp heuristic of the paper keeps the trees shallow.
    Returns the flow value and ``in_s``: the nodes of the final source tree,
    i.e. those reachable from the source in the residual network (the source
    side of the minimum cut).
    """
    m2 = tails.size
    off = np.zeros(n + 1, np.int64)
    for a in range(m2):
        off[tails[a] + 1] += 1
    for u in range(n):
        off[u + 1] += off[u]
    fill = off[:-1].copy()
    adj = np.empty(m2, np.int64)
    for a in range(m2):
        adj[fill[tails[a]]] = a
        fill[tails[a]] += 1
    tree = np.zeros(n, np.int8)          # 0 free, 1 source tree, 2 sink tree
    parent = np.full(n, _BK_NONE, np.int64)  # arc from the node to its parent
    ts = np.zeros(n, np.int64)
    dist = np.zeros(n, np.int64)
    queue = np.empty(n + 1, np.int64)    # active nodes (circular)
    inq = np.zeros(n, np.bool_)
    qh = 0
    qn = 0
    orphans = np.empty(n, np.int64)
    for j in range(n):
        if tr[j] != 0:
            tree[j] = 1 if tr[j] > 0 else 2
            parent[j] = _BK_TERMINAL
            ts[j] = 0
            dist[j] = 1
            queue[(qh + qn) % (n + 1)] = j
            qn += 1
            inq[j] = True
    time_ = 0
    flow = 0
    cur = -1  # node being grown
    while True:
        # next active node
        i = -1
        if cur >= 0 and parent[cur] != _BK_NONE:
            i = cur
        else:
            cur = -1
            while qn > 0:
                c = queue[qh]
                qh = (qh + 1) % (n + 1)
                qn -= 1
                inq[c] = False
                if parent[c] != _BK_NONE:
                    i = c
                    break
        if i < 0:
            break
        # grow the tree of i: the source tree along arcs i -> j with residual
        # capacity, the sink tree along arcs j -> i
        a_mid = -1
        side = tree[i]
        for t in range(off[i], off[i + 1]):
            a0 = adj[t]
            if cap[a0 if side == 1 else a0 ^ 1] <= 0:
                continue
            j = heads[a0]
            if parent[j] == _BK_NONE:
                tree[j] = side
                parent[j] = a0 ^ 1
                ts[j] = ts[i]
                dist[j] = dist[i] + 1
                if not inq[j]:
                    queue[(qh + qn) % (n + 1)] = j
                    qn += 1
                    inq[j] = True
            elif tree[j] != side:
                a_mid = a0 if side == 1 else a0 ^ 1  # from the source tree to the sink tree
                break
            elif ts[j] <= ts[i] and dist[j] > dist[i]:
                parent[j] = a0 ^ 1
                ts[j] = ts[i]
                dist[j] = dist[i] + 1
        time_ += 1
        if a_mid < 0:
            cur = -1
            continue
        cur = i
        # augment along source -> ... -> tails[a_mid] -> heads[a_mid] -> ... -> sink
        b = cap[a_mid]
        k = tails[a_mid]
        while parent[k] != _BK_TERMINAL:
            b = min(b, cap[parent[k] ^ 1])
            k = heads[parent[k]]
        b = min(b, tr[k])
        k = heads[a_mid]
        while parent[k] != _BK_TERMINAL:
            b = min(b, cap[parent[k]])
            k = heads[parent[k]]
        b = min(b, -tr[k])
        cap[a_mid] -= b
        cap[a_mid ^ 1] += b
        no = 0
        k = tails[a_mid]
        while parent[k] != _BK_TERMINAL:
            pa = parent[k]
            cap[pa ^ 1] -= b
            cap[pa] += b
            nxt = heads[pa]
            if cap[pa ^ 1] == 0:
                parent[k] = _BK_ORPHAN
                orphans[no] = k
                no += 1
            k = nxt
        tr[k] -= b
        if tr[k] == 0:
            parent[k] = _BK_ORPHAN
            orphans[no] = k
            no += 1
        k = heads[a_mid]
        while parent[k] != _BK_TERMINAL:
            pa = parent[k]
            cap[pa] -= b
            cap[pa ^ 1] += b
            nxt = heads[pa]
            if cap[pa] == 0:
                parent[k] = _BK_ORPHAN
                orphans[no] = k
                no += 1
            k = nxt
        tr[k] += b
        if tr[k] == 0:
            parent[k] = _BK_ORPHAN
            orphans[no] = k
            no += 1
        flow += b
        # adoption (orphans are processed last-in first-out; each is pushed once
        # per detachment, and a node is an orphan at most once at a time)
        while no > 0:
            no -= 1
            o = orphans[no]
            side = tree[o]
            d_min = 1 << 60
            a_min = -1
            for t in range(off[o], off[o + 1]):
                a0 = adj[t]
                ok = cap[a0 ^ 1] > 0 if side == 1 else cap[a0] > 0
                if not ok:
                    continue
                j = heads[a0]
                if tree[j] != side or parent[j] == _BK_NONE:
                    continue
                # distance of j to its terminal, if j still has one
                d = 0
                k = j
                while True:
                    if ts[k] == time_:
                        d += dist[k]
                        break
                    pa = parent[k]
                    d += 1
                    if pa == _BK_TERMINAL:
                        ts[k] = time_
                        dist[k] = 1
                        break
                    if pa == _BK_ORPHAN:
                        d = 1 << 60
                        break
                    k = heads[pa]
                if d < (1 << 60):
                    if d < d_min:
                        a_min = a0
                        d_min = d
                    k = j
                    while ts[k] != time_:
                        ts[k] = time_
                        dist[k] = d
                        d -= 1
                        k = heads[parent[k]]
            if a_min >= 0:
                parent[o] = a_min
                ts[o] = time_
                dist[o] = d_min + 1
                continue
            # no new parent: free the node; its children become orphans and the
            # neighbours of its tree that could reach it become active
            for t in range(off[o], off[o + 1]):
                a0 = adj[t]
                j = heads[a0]
                if tree[j] != side or parent[j] == _BK_NONE:
                    continue
                ok = cap[a0 ^ 1] > 0 if side == 1 else cap[a0] > 0
                if ok and not inq[j]:
                    queue[(qh + qn) % (n + 1)] = j
                    qn += 1
                    inq[j] = True
                pj = parent[j]
                if pj != _BK_TERMINAL and pj != _BK_ORPHAN and heads[pj] == o:
                    parent[j] = _BK_ORPHAN
                    orphans[no] = j
                    no += 1
            tree[o] = 0
            parent[o] = _BK_NONE
            if cur == o:
                cur = -1
    in_s = np.zeros(n, np.bool_)
    for j in range(n):
        in_s[j] = tree[j] == 1
    return flow, in_s


def _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, groups=None):
    """Flows on the fused edges that balance every node, by one max-flow.

    Node ``j`` needs a net outflow ``t_j = z'_j - z_j - (D'p)_j`` over the
    fused edges (capacity ``|p_e| <= -b'_e``): exactly ``t_j`` in a free
    group, at least ``t_j`` at 0, at most ``t_j`` at 1.  The groups only
    meet at the terminals of the s-t network (source -> j of capacity
    ``t_j > 0``, j -> sink of capacity ``-t_j``), so one max-flow
    decides all of them: a group is feasible iff its required terminal arcs
    are saturated (up to the integer rounding of the capacities).
    ``groups`` (boolean, per group) restricts the network to those groups.
    Returns ``(fe, pF, bad, S)``: the fused edges considered, their flows,
    the infeasible groups and the source side of the minimum cut (the nodes
    that must move up).
    """
    n = zp.size
    tt = _minus_div(zp - z, ej, ek, p)
    scale0 = max(1.0, float(np.abs(zp).max(initial=0.0)), float(np.abs(bp).max(initial=0.0)))
    sel = np.ones(cstat.size, np.bool_) if groups is None else groups
    tails, heads, icaps, fe, term, k1, k2, nodes, scale = _flow_network(
        tt, bp, ej, ek, comp, fused, sel, scale0)
    nc = cstat.size
    if icaps.size == 0:
        return fe, np.zeros(fe.size), np.zeros(nc, bool), np.zeros(n, bool)
    k = nodes.size
    S = np.zeros(n, bool)
    if _PROJECTION_MAXFLOW == "bk":
        fl, in_s = _bk_fused(k, tails, heads, icaps, k1, k2)
    else:
        from ortools.graph.python import max_flow

        smf = max_flow.SimpleMaxFlow()
        smf.add_arcs_with_capacity(np.r_[tails, k], np.r_[heads, k + 1], np.r_[icaps, 0])
        if smf.solve(k, k + 1) != smf.OPTIMAL:
            raise RuntimeError("OR-Tools max-flow failed")
        fl = smf.flows(np.arange(tails.size)).astype(np.float64)
        in_s = None
    # net flow of each fused edge: forward minus backward arc of its pair
    pF = (fl[k2::2] - fl[k2 + 1::2]) / scale
    # deficit of the required terminal arcs, per group (4 integer units per node:
    # the rounding of the capacities)
    bad = _flow_deficits(icaps, fl, term, k1, k2, comp, cstat, 4.0)
    if bad.any():
        if in_s is None:
            src = np.asarray(smf.get_source_side_min_cut(), dtype=np.int64)
            in_s = np.zeros(k, bool)
            in_s[src[src < k]] = True
        S[nodes[in_s]] = True
    return fe, pF, bad, S


@nb.njit(cache=True)
def _bk_fused(k, tails, heads, icaps, k1, k2):
    """Run :func:`_bk_maxflow` on the network of :func:`_flow_network` (its
    terminal arcs folded into node residuals, its sister pairs used as they are);
    returns the flow of every arc in that network's order, and the source side."""
    tr = np.zeros(k, np.int64)
    for a in range(k1):
        tr[heads[a]] += icaps[a]
    for a in range(k1, k2):
        tr[tails[a]] -= icaps[a]
    res = icaps[k2:].copy()
    _, in_s = _bk_maxflow(k, tails[k2:], heads[k2:], res, tr)
    fl = np.empty(tails.size)
    for a in range(k1):
        fl[a] = icaps[a] - max(tr[heads[a]], 0)
    for a in range(k1, k2):
        fl[a] = icaps[a] + min(tr[tails[a]], 0)
    for a in range(k2, tails.size):
        fl[a] = max(icaps[a] - res[a - k2], 0)
    return fl, in_s


def _balance_flows(zp, ej, ek, fe, cstat, comp, z, p, pF, scale):
    """Least-norm correction of the fused flows ``pF`` so that every node
    balances exactly (slacks ``s >= 0`` at the nodes at a bound):
    solves ``(L_F + diag(beta^2)) phi = r`` by :func:`_edge_cg`."""

    n = zp.size
    beta = cstat[comp].astype(np.float64)
    tt = _minus_div(zp - z, ej, ek, p)
    fu, fv = np.ascontiguousarray(ej[fe]), np.ascontiguousarray(ek[fe])
    DF = -_minus_div(np.zeros(n), fu, fv, pF)
    s0 = np.maximum(0.0, beta * (tt - DF))
    r = tt - DF - beta * s0
    if np.abs(r).max(initial=0.0) <= 1e-15 * scale:
        return pF
    # a group of fused edges with no node at a bound is singular (r sums to
    # zero on it): ground it at one node, which keeps the solution
    nc2, comp2 = _components(n, fu, fv)
    dg = beta * beta
    grounded = np.bincount(comp2, weights=dg, minlength=nc2) > 0
    first = np.full(nc2, -1)
    first[comp2[::-1]] = np.arange(n)[::-1]
    dg[first[~grounded]] = 1.0
    phi = np.zeros(n)
    _edge_cg(dg, np.ascontiguousarray(fu), np.ascontiguousarray(fv), r, phi, 1e-15 * scale,
             10 * n + 100)
    return pF + phi[fu] - phi[fv]


def _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek):
    """Split the infeasible groups along their minimum cut: the source side
    ``S`` moves up (a group at 0 frees ``S``, a group at 1 frees the rest).
    Updates ``flags`` in place; returns the new ``fused`` and ``sigma``."""
    gb = bad[comp]
    cut = fused & gb[ej] & (S[ej] != S[ek])
    st = cstat[comp]
    flags[gb & (st < 0) & S] = 0
    flags[gb & (st > 0) & ~S] = 0
    return fused & ~cut, np.where(cut, np.where(S[ej], 1.0, -1.0), sigma)


@nb.njit(cache=True)
def _structure_update(z, x, comp, cstat, bp, ej, ek, neg, tol, flags, fused, sigma, active):
    """The structure corrections of one active-set step (in place).

    A free group whose value leaves ``[0, 1]`` goes to the bound (``flags``);
    two groups joined by a negative-``b'`` edge whose difference has the
    wrong sign merge (``fused``); a squared-hinge edge between groups switches
    piece when its difference leaves the piece by more than ``tol``
    (``active``, ``sigma``: the Newton step on the smooth part).  Returns
    ``(touched, changed)``: the nodes whose groups change, and whether any did.
    """
    n, m = z.size, ej.size
    nc = cstat.size
    touched = np.zeros(n, np.bool_)
    changed = False
    out = np.zeros(nc, np.int8)
    g = 0
    for c in range(nc):
        if cstat[c] == 0:
            if x[g] < -tol:
                out[c] = -1
            elif x[g] > 1.0 + tol:
                out[c] = 1
            g += 1
    for j in range(n):
        if out[comp[j]] != 0:
            flags[j] = out[comp[j]]
            touched[j] = True
            changed = True
    for e in range(m):
        u, v = ej[e], ek[e]
        if comp[u] == comp[v]:
            continue
        d = z[u] - z[v]
        if neg[e]:
            if sigma[e] * d < -tol:
                fused[e] = True
                touched[u] = touched[v] = changed = True
        elif bp[e] > 0.0:
            if (active[e] and sigma[e] * d < bp[e] - tol) or (not active[e] and abs(d) > bp[e] + tol):
                active[e] = abs(d) > bp[e]
                sigma[e] = 1.0 if d >= 0 else -1.0
                touched[u] = touched[v] = changed = True
    return touched, changed


def _active_set(zp, bp, ej, ek, flags, fused, sigma, active, max_steps, kkt_tol):
    """Exact active-set method on groups of fused nodes (merge and split).

    Each step solves for the node values of the current structure
    (:func:`_group_values`), then

    * merges the two groups of a negative-``b'`` edge whose difference has
      the wrong sign, puts a group whose value leaves ``[0, 1]`` at the
      bound, and updates the pieces of the squared-hinge edges;
    * otherwise looks for flows on the fused edges (:func:`_fused_flows`);
      an infeasible group is split along its minimum cut (the source side
      moves up), which is the fused-lasso splitting rule.

    When every condition holds, the flows are balanced exactly
    (:func:`_balance_flows`) and the KKT residual is measured.
    Returns ``(z, p, ok, steps, residual)``.
    """
    n = zp.size
    neg = bp < 0
    scale = max(1.0, float(np.abs(zp).max(initial=0.0)), float(np.abs(bp).max(initial=0.0)))
    tol = 1e-13 * scale
    flags = flags.copy()
    sigma = sigma.copy()
    active = active.copy()
    res = np.inf
    z = p = None
    # nodes whose group changed since its flows were last found feasible:
    # only their groups go to the max-flow, until all of them are feasible;
    # then one max-flow over all groups certifies the whole structure
    dirty = np.ones(n, bool)
    for step in range(1, max_steps + 1):
        comp, cstat, fused = _groups(n, ej, ek, fused, flags, neg)
        z, x, p = _group_values(zp, bp, ej, ek, comp, cstat, sigma, active,
                                np.zeros(0) if z is None else z)
        touched, changed = _structure_update(z, x, comp, cstat, bp, ej, ek, neg, tol, flags,
                                             fused, sigma, active)
        if changed:
            # the flows of the other pending groups are still checked now
            tg = np.zeros(cstat.size, bool)
            tg[comp[touched]] = True
            dirty |= touched
            pend = dirty & ~tg[comp]
            if not pend.any():
                continue
            cand = np.zeros(cstat.size, bool)
            cand[comp[pend]] = True
            fe, pF, bad, S = _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, cand)
            dirty &= ~pend
            if bad.any():
                dirty |= bad[comp]
                fused, sigma = _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek)
            continue
        # flows on the fused edges by one max-flow; an infeasible group is
        # split along its minimum cut
        full = bool(dirty.all())
        cand = None
        if not full:
            cand = np.zeros(cstat.size, bool)
            cand[comp[dirty]] = True
        fe, pF, bad, S = _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, cand)
        dirty[:] = False
        if bad.any():
            dirty |= bad[comp]
            fused, sigma = _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek)
            continue
        if not full:  # the changed groups are feasible: check all of them
            dirty[:] = True
            fe, pF, bad, S = _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p)
            dirty[:] = False
            if bad.any():
                dirty |= bad[comp]
                fused, sigma = _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek)
                continue
        # certify; the max-flow's flows are rounded to 2**-50 of the total
        # capacity, so balance them exactly first if that is not enough
        c = -bp[fe]
        z = np.clip(z, 0.0, 1.0)
        p[fe] = np.clip(pF, -c, c)
        res = _kkt_residual(zp, bp, ej, ek, z, p)
        if res > kkt_tol:
            p[fe] = 0.0
            pF = _balance_flows(zp, ej, ek, fe, cstat, comp, z, p, pF, scale)
            p[fe] = np.clip(pF, -c, c)
            res = _kkt_residual(zp, bp, ej, ek, z, p)
        return z, p, res <= kkt_tol, step, res
    return z, p, False, max_steps, res


def _structure_from_dual(zp, bp, ej, ek, p):
    """Initial structure guess from (approximate) dual flows ``p``."""
    u = _minus_div(zp, ej, ek, p)
    z = np.clip(u, 0.0, 1.0)
    d = z[ej] - z[ek]
    neg = bp < 0
    flag = np.where(u <= 0, -1, np.where(u >= 1, 1, 0)).astype(np.int8)
    fused = neg & (np.abs(p) <= -bp)
    sigma = np.where(neg, np.where(p >= 0, 1.0, -1.0), np.where(d >= 0, 1.0, -1.0))
    active = ~neg & ((np.abs(d) > bp) | (bp == 0))
    return flag, fused, sigma, active


def _project_active_set(zv, ze, ej, ek, edges, p, tol, max_iter, omega, sweeps, max_steps):
    """Sweeps of :func:`_project_kernel` alternated with exact active-set solves.

    Returns ``(z, p, info)``; ``p`` is modified in place by the sweeps.
    """
    bp = np.minimum(ze, 1.0)
    scale = max(1.0, float(np.abs(zv).max(initial=0.0)), float(np.abs(bp).max(initial=0.0)))
    kkt_tol = 1e-10 * scale
    total = 0
    steps = 0
    k = max(int(sweeps), 1)
    while True:
        z, it, delta = _project_kernel(zv, ze, ej, ek, p, float(tol), min(k, max_iter - total), omega)
        total += it
        flags, fused, sigma, active = _structure_from_dual(zv, bp, ej, ek, p)
        zc, pc, ok, st_, res = _active_set(zv, bp, ej, ek, flags, fused, sigma, active,
                                           max_steps, kkt_tol)
        steps += st_
        if ok:
            p[:] = pc
            return zc, p, dict(iterations=total, delta=float(delta), active_set_steps=steps,
                               kkt_residual=float(res), exact=True)
        if delta <= tol or total >= max_iter:
            res = _kkt_residual(zv, bp, ej, ek, z, p)
            return z, p, dict(iterations=total, delta=float(delta), active_set_steps=steps,
                              kkt_residual=float(res), exact=False)
        k *= 2


def project_mincut(zp_nodes, zp_edges, edges, tol=1e-10, max_iter=100000, p0=None,
                   omega=1.7, return_info=False, method="active_set", sweeps=60, max_steps=100):
    """Exact Euclidean projection onto the min-cut polytope (thesis eq. 2.22).

    Solves

    .. math::
        \\min_z \\tfrac12 \\|z_V - z'_V\\|^2 + \\tfrac12 \\|z_E - z'_E\\|^2
        \\quad\\text{s.t.}\\quad 0 \\le z \\le 1,\\; z_{jk} \\ge |z_j - z_k| .

    At the optimum ``z_jk = min(1, max(z'_jk, |z_j - z_k|))``; what is left is
    the strictly convex node problem

    .. math::
        \\min_{z_V \\in [0,1]^n} \\tfrac12 \\|z_V - z'_V\\|^2
        + \\sum_{jk} h_{jk}(z_j - z_k), \\qquad
        h_{jk}(d) = \\tfrac12 (|d| - b'_{jk})_+^2, \\qquad b'_{jk} = \\min(z'_{jk}, 1)

    When ``z'_jk < 0`` (the usual case: edge scores are ``-s_jk <= 0``), ``h``
    has a kink at ``d = 0``, so coordinate descent on the nodes can stall.
    We solve the Fenchel dual instead (the analogue of the flow dual, eqs.
    2.23-2.24, with one signed flow ``p_jk`` per edge):

    .. math::
        \\max_p\\; -G^*(-D^\\top p) - \\sum_{jk} h^*_{jk}(p_{jk}), \\qquad
        z_V = \\mathrm{clip}(z'_V - D^\\top p, 0, 1),

    with ``(D z)_jk = z_j - z_k``, ``G(z) = 1/2||z - z'||^2`` on the box and
    ``h*(p) = 1/2 (|p| + z'_jk)_+^2 - z'^2_jk / 2``.  ``G*`` is smooth and the
    non-smooth part of ``h*`` is separable over edges, so exact cyclic
    coordinate ascent -- each one-dimensional problem is piecewise quadratic
    and solved in closed form -- converges to the optimum (Tseng 2001), each
    exact step over-relaxed by ``omega`` when the relaxed point stays on the
    same quadratic piece (SOR).  Convergence is linear and slow where large
    fused regions must exchange flow (``method="sweeps"`` runs only this, until
    no flow moves by more than ``tol``).

    The default ``method="active_set"`` is exact at termination.  A few
    sweeps (``sweeps``) give a first guess of the structure of the optimum:
    which negative-``b'`` edges are *fused* (``z_j = z_k``, ``|p_jk| <= -b'``),
    which nodes sit at 0 or 1, and the sign or piece of every other edge.
    Given the structure, the node values solve one sparse SPD system
    ``(diag(|C|) + L_A) x = rhs`` over the groups ``C`` of fused nodes (``L_A``
    the Laplacian of the unfused edges between groups), solved by
    Jacobi-preconditioned CG to machine precision.  The structure is then
    corrected as in active-set methods for the fused lasso: two groups whose
    edge difference has the wrong sign merge; a group leaving ``[0, 1]`` goes
    to the bound; squared-hinge edges switch pieces (a Newton step on the
    smooth part); and the flows inside the groups are found by one max-flow
    (Boykov-Kolmogorov, :func:`_bk_maxflow`; OR-Tools when the module's
    ``_PROJECTION_MAXFLOW`` is ``"ortools"``; capacities ``-b'``, node demands
    from the stationarity conditions) -- a group without feasible flows is split along its
    minimum cut, the source side moving up.  When everything is consistent
    the max-flow's flows are balanced exactly (least-norm correction by CG)
    and the KKT residual ``max(|z - clip(z' - D'p)|, |d - prox_h(d + p)|)`` is
    measured; the result is returned only if it is below
    ``1e-10 max(1, |z'|_inf)``.  Otherwise (the structure updates did not
    settle within ``max_steps``) the sweeps continue from the flows reached,
    with twice as many sweeps, and the active-set method is tried again; if
    the sweeps reach ``tol`` first their result is returned (``info["exact"]``
    is then False).

    Parameters
    ----------
    zp_nodes : array_like, shape (n,)
    zp_edges : array_like, shape (m,)
    edges : array_like of int, shape (m, 2)
    tol : float
        Stop when a sweep changes no flow by more than ``tol`` (the error in
        ``z`` was within a few times ``tol`` in our checks against cvxpy).
    max_iter : int
        Maximum number of sweeps.
    p0 : array_like, shape (m,), optional
        Warm start for the dual flows.
    omega : float in (0, 2)
        Over-relaxation factor (1: plain exact coordinate ascent).
    return_info : bool
        Also return ``info``: ``iterations`` (sweeps), ``delta`` (last flow
        change), ``active_set_steps``, ``kkt_residual``, ``exact`` (the KKT
        check passed; active-set method only) and ``flows`` (dual flows ``p``).
    method : {"active_set", "sweeps"}
        The exact active-set method (default) or the coordinate ascent alone.
    sweeps : int
        Sweeps before the first active-set attempt (doubled after a failure).
    max_steps : int
        Structure updates per active-set attempt.

    Returns
    -------
    z_nodes : ndarray, shape (n,)
    z_edges : ndarray, shape (m,)
    info : dict, only if ``return_info``
    """
    zv = np.ascontiguousarray(zp_nodes, dtype=np.float64).ravel()
    ze = np.ascontiguousarray(zp_edges, dtype=np.float64).ravel()
    edges = check_graph(edges, zv.size)
    if ze.size != edges.shape[0]:
        raise ValueError(f"{ze.size} edge values for {edges.shape[0]} edges")
    if not (np.all(np.isfinite(zv)) and np.all(np.isfinite(ze))):
        raise ValueError("the point to project must be finite")
    p = np.zeros(ze.size) if p0 is None else np.array(p0, dtype=np.float64).ravel()
    ej = np.ascontiguousarray(edges[:, 0])
    ek = np.ascontiguousarray(edges[:, 1])
    if method == "active_set" and ze.size == 0:
        z, info = np.clip(zv, 0.0, 1.0), dict(iterations=0, delta=0.0, active_set_steps=0,
                                              kkt_residual=0.0, exact=True)
    elif method == "active_set":
        z, p, info = _project_active_set(zv, ze, ej, ek, edges, p, float(tol), int(max_iter),
                                         float(omega), sweeps, max_steps)
    elif method == "sweeps":
        z, it, delta = _project_kernel(zv, ze, ej, ek, p, float(tol), int(max_iter), float(omega))
        info = dict(iterations=int(it), delta=float(delta), active_set_steps=0)
    else:
        raise ValueError(f"unknown projection method {method!r}; choose 'active_set' or 'sweeps'")
    cut = np.abs(z[ej] - z[ek])
    z_e = np.minimum(1.0, np.maximum(ze, cut))
    if return_info:
        info["flows"] = p
        return z, z_e, info
    return z, z_e


def mincut_constraints(n_nodes, edges):
    """``(A, b)`` with ``Z = {A z <= b, 0 <= z <= 1}`` for ``z = [z_V, z_E]`` (eq. 2.11).

    Rows ``z_j - z_k - z_jk <= 0`` and ``z_k - z_j - z_jk <= 0``.
    """
    edges = check_graph(edges, n_nodes)
    m = edges.shape[0]
    r = np.arange(m)
    D = sp.csr_matrix((np.r_[np.ones(m), -np.ones(m)], (np.r_[r, r], np.r_[edges[:, 0], edges[:, 1]])),
                      shape=(m, n_nodes))
    I = sp.eye(m, format="csr")
    A = sp.vstack([sp.hstack([D, -I]), sp.hstack([-D, -I])]).tocsr()
    return A, np.zeros(2 * m)


def project_mincut_cvxpy(zp_nodes, zp_edges, edges, solver="CLARABEL", **solver_opts):
    """Reference projection onto the min-cut polytope by cvxpy (eq. 2.22 with the box).

    Returns ``(z_nodes, z_edges)``.
    """
    import cvxpy as cp

    if solver == "CLARABEL" and not solver_opts:
        solver_opts = dict(tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, max_iter=500)
    zv = np.asarray(zp_nodes, dtype=np.float64).ravel()
    ze = np.asarray(zp_edges, dtype=np.float64).ravel()
    edges = check_graph(edges, zv.size)
    x = cp.Variable(zv.size)
    y = cp.Variable(ze.size)
    cons = [x >= 0, x <= 1, y <= 1]
    if ze.size:
        diff = x[edges[:, 0]] - x[edges[:, 1]]
        cons += [y >= diff, y >= -diff]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(x - zv) + 0.5 * cp.sum_squares(y - ze)), cons)
    prob.solve(solver=solver, **solver_opts)
    if x.value is None:
        raise RuntimeError(f"cvxpy/{solver} failed: status {prob.status}")
    ye = np.asarray(y.value, dtype=np.float64) if ze.size else np.zeros(0)
    return np.asarray(x.value, dtype=np.float64), ye


# ---------------------------------------------------------------- problem
@dataclass
class MinCutExample(StructuredExample):
    """An example whose structures are binary labellings of a graph (sec. 2.2.2).

    Variables ``z = [z_V, z_E]``: ``n_nodes`` node labels, then one variable
    per edge (``z_jk = |y_j - y_k|`` at a vertex).  Build it with
    :meth:`from_features`, which lays out ``F`` so that

    * node column j holds ``[f_n(x_j); 0]`` (score ``s_j = w_n'f_n(x_j)``);
    * edge column jk holds ``[0; -f_e(x_jk)]`` (score ``-s_jk``, where
      ``s_jk = w_e'f_e(x_jk) >= 0`` when ``f_e >= 0`` and ``w_e >= 0``).

    The loss is a weighted Hamming loss on the nodes only (edge variables
    cost 0), so ``cost_pos``/``cost_neg`` are per-variable arrays with zeros
    on the edges.
    """

    n_nodes: int = 0
    edges: np.ndarray = field(default=None, repr=False)
    #: stopping tolerance of :func:`project_mincut` (largest flow change in a sweep)
    project_tol: float = 1e-8
    #: dual flows of the last projections, used as warm starts (speed only:
    #: the projection is exact from any start).  Two slots, used alternately,
    #: match the two proximal steps per example of the extragradient.
    _warm: list = field(default=None, init=False, repr=False, compare=False)
    _slot: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.edges = check_graph(np.zeros((0, 2), np.int64) if self.edges is None else self.edges,
                                 self.n_nodes)
        super().__post_init__()
        m = self.edges.shape[0]
        if self.z_gold.size != self.n_nodes + m:
            raise ValueError(f"z_gold has {self.z_gold.size} entries, expected "
                             f"{self.n_nodes} nodes + {m} edges")

    @classmethod
    def from_features(cls, node_features, edge_features, edges, y, cost_pos=1.0, cost_neg=1.0):
        """Build the example from node and edge feature matrices.

        Parameters
        ----------
        node_features : array_like or sparse, shape (n, d_n)
        edge_features : array_like, shape (m, d_e), non-negative
        edges : array_like of int, shape (m, 2)
        y : array_like of {0, 1}, shape (n,)
            Target labels.
        cost_pos, cost_neg : float or array_like of shape (n,)
            Per-node costs of a false positive / false negative (eq. 2.10).

        The weight vector is ``w = [w_n (d_n), w_e (d_e)]``; constrain
        ``w_e >= 0`` with ``L2Ball(nonneg=range(d_n, d_n + d_e))``.
        """
        Xn = sp.csr_matrix(node_features, dtype=np.float64)
        n, dn = Xn.shape
        Xe = np.asarray(edge_features, dtype=np.float64)
        edges = check_graph(edges, n)
        m = edges.shape[0]
        if Xe.ndim != 2 or Xe.shape[0] != m:
            raise ValueError(f"edge features must have shape ({m}, d_e), got {Xe.shape}")
        if np.any(Xe < 0) or not np.all(np.isfinite(Xe)):
            raise ValueError("edge features must be finite and non-negative (eq. 2.5)")
        de = Xe.shape[1]
        y = np.asarray(y).ravel()
        if y.size != n or not np.all((y == 0) | (y == 1)):
            raise ValueError("y must hold one 0/1 label per node")
        y = y.astype(np.float64)
        F = sp.vstack([sp.hstack([Xn.T, sp.csr_matrix((dn, m))]),
                       sp.hstack([sp.csr_matrix((de, n)), -sp.csr_matrix(Xe).T])]).tocsr()
        z = np.concatenate([y, np.abs(y[edges[:, 0]] - y[edges[:, 1]])])
        cp_ = np.concatenate([np.broadcast_to(np.asarray(cost_pos, float), (n,)), np.zeros(m)])
        cn_ = np.concatenate([np.broadcast_to(np.asarray(cost_neg, float), (n,)), np.zeros(m)])
        return cls(F=F, z_gold=z, cost_pos=cp_, cost_neg=cn_, n_nodes=n, edges=edges)

    # ------------------------------------------------------------ protocol
    def split(self, z):
        z = np.asarray(z, dtype=np.float64).ravel()
        return z[:self.n_nodes], z[self.n_nodes:]

    def project(self, z):
        zv, ze = self.split(z)
        if ze.size == 0:
            return np.clip(zv, 0.0, 1.0)
        if self._warm is None:
            self._warm = [None, None]
        slot = self._slot
        self._slot = 1 - slot
        a, b, info = project_mincut(zv, ze, self.edges, tol=self.project_tol, p0=self._warm[slot],
                                    return_info=True)
        self._warm[slot] = info["flows"]
        return np.concatenate([a, b])

    def decode_scores(self, s):
        """Exact LP maximiser over ``Z``: min-cut on the nodes with penalties
        ``max(-s_E, 0)``; an edge with positive score (never the case for
        ``w_e >= 0``) is set to its upper bound 1."""
        sv, se = self.split(s)
        y = decode_mincut(sv, np.maximum(-se, 0.0), self.edges).astype(np.float64)
        ze = np.abs(y[self.edges[:, 0]] - y[self.edges[:, 1]])
        ze[se > 0] = 1.0
        return np.concatenate([y, ze])

    def constraints(self):
        return mincut_constraints(self.n_nodes, self.edges)

    def labels(self, z):
        """Node labels of an encoding (thresholded at 1/2)."""
        return (self.split(z)[0] > 0.5).astype(np.int8)
