"""Exact MAP of a binary associative MRF by an s-t minimum cut (thesis sec. 2.2.2).
"""

from __future__ import annotations

import numpy as np

from ..._checks import unmasked


__all__ = ['check_graph', 'mincut_score', 'decode_mincut', 'decode_mincut_bruteforce', 'maxflow_available', 'ORTOOLS_SCALE_BITS']


#: Capacities are scaled so that their total is ``2**ORTOOLS_SCALE_BITS``
#: before rounding to int64 for OR-Tools (see :func:`decode_mincut`).
ORTOOLS_SCALE_BITS = 50
#: max-flow used inside the projection's active-set method: "bk" (Boykov-Kolmogorov in
#: Numba, the default) or "ortools" (push-relabel; kept as a cross-check in the tests)
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
    s, lam, edges = _check_scores(node_scores, edge_penalties, edges)
    y = np.asarray(y)
    if y.shape != s.shape or not np.isin(y, (0, 1)).all():
        raise ValueError(f"y must be a 0/1 labelling of the {s.size} nodes, got shape "
                         f"{y.shape} with values {np.unique(y)[:5].tolist()}")
    y = y.astype(np.float64)
    cut = np.abs(y[edges[:, 0]] - y[edges[:, 1]])
    return float(np.dot(s, y) - np.dot(lam, cut))


def _check_scores(node_scores, edge_penalties, edges):
    s = np.ascontiguousarray(unmasked(node_scores, "node_scores"), dtype=np.float64).ravel()
    lam = np.ascontiguousarray(unmasked(edge_penalties, "edge_penalties"),
                               dtype=np.float64).ravel()
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
        import maxflow
    except ImportError:
        return False
    del maxflow
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
    total = float(caps.sum())
    if caps.size == 0 or total <= 0:
        return np.zeros(n, dtype=np.int8)
    # networkx's max-flow is exact only on integer capacities (with floats, its residual
    # tests can cut the wrong arcs: a cut far from the minimum): the same integer scaling
    # as OR-Tools, and the same bound on the error (see decode_mincut)
    caps = [int(c) for c in np.rint(caps * (2.0 ** ORTOOLS_SCALE_BITS / total))]
    G = nx.DiGraph()
    G.add_nodes_from(range(n + 2))
    for t, h, c in zip(tails.tolist(), heads.tolist(), caps):
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
    backend : {"ortools", "maxflow", "networkx"}
        ``"ortools"``: OR-Tools' push-relabel max-flow on int64 capacities.
        The capacities are multiplied by ``2**50 / C`` (``C`` their total) and
        rounded, so each is off by at most ``C 2**-51``; the labelling returned
        is then optimal to within ``(number of arcs) * C * 2**-50`` in score
        (about ``1e-15 * n_arcs`` relative), i.e. exact up to ties closer
        than that.  ``"maxflow"``: PyMaxflow (Boykov-Kolmogorov, float
        capacities), if installed.  ``"networkx"``: pure Python, for checks (on the
        integer capacities of ``"ortools"``: its max-flow is exact only on integers).
        The default never depends on what is installed, so labellings at
        near-ties are the same in every environment.

    Returns
    -------
    ndarray of int8, shape (n,)
    """
    s, lam, edges = _check_scores(node_scores, edge_penalties, edges)
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

