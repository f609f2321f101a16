"""Argument checks of the public chain and tree functions: shapes that disagree with
``starts`` or ``parent`` and NaN potentials are refused by name, before a numba kernel
reads past an array or fills its output from uninitialised memory."""

from __future__ import annotations

import numpy as np

from ..._checks import unmasked, whole_array

#: the largest finite log-potential accepted: a chain of a million tokens then still sums
#: its potentials far below the float64 range (1.8e308)
LIMIT = 1e100


def check_starts(starts, n_tokens):
    """``starts`` as int64 offsets ``0 = s_0 < s_1 < ... < s_C = n_tokens``."""
    starts = whole_array("starts", starts)
    if starts.size < 1 or starts[0] != 0 or starts[-1] != n_tokens:
        first_last = f"{starts[0]}..{starts[-1]}" if starts.size else "nothing"
        raise ValueError(f"starts must be token offsets from 0 to the number of tokens "
                         f"({n_tokens}), n_chains + 1 entries; got {first_last}")
    if np.any(np.diff(starts) < 1):
        c = int(np.flatnonzero(np.diff(starts) < 1)[0])
        raise ValueError(f"starts must increase: chain {c} has "
                         f"{starts[c + 1] - starts[c]} tokens (every chain needs one)")
    return starts


def check_potentials(node, edge, n_edges, shared_ok=False):
    """``node`` (N, K) and ``edge`` (n_edges, K, K) (or (K, K) with ``shared_ok``) as
    contiguous float64 arrays without NaN or ``+inf`` (``-inf`` forbids a label)."""
    node = np.ascontiguousarray(unmasked(node, "node"), dtype=np.float64)
    edge = np.asarray(unmasked(edge, "edge"), dtype=np.float64)
    if node.ndim != 2 or node.shape[1] < 1:
        raise ValueError(f"node must be a 2-D array (tokens x labels) with at least one "
                         f"label, got shape {node.shape}")
    K = node.shape[1]
    shapes = [(n_edges, K, K)] + ([(K, K)] if shared_ok else [])
    if edge.shape not in shapes:
        want = " or ".join(str(s) for s in shapes)
        raise ValueError(f"edge must have shape {want} for node of shape {node.shape}, "
                         f"got {edge.shape}")
    for name, arr in (("node", node), ("edge", edge)):
        if np.isnan(arr).any() or np.isposinf(arr).any():
            raise ValueError(f"{name} potentials contain NaN or +inf; log-potentials must "
                             "be finite or -inf")
        finite = arr[np.isfinite(arr)]
        if finite.size and np.abs(finite).max() > LIMIT:
            raise ValueError(f"{name} potentials reach {np.abs(finite).max():.3g}: beyond "
                             f"±{LIMIT:g} a chain's sums of log-potentials overflow")
    return node, np.ascontiguousarray(edge)


def check_feasible(scores, what="log Z"):
    """``ValueError`` naming the first chain whose ``scores`` (log Z or the best score) is
    ``-inf``: its ``-inf`` potentials exclude every labelling (the marginals would be NaN)."""
    bad = np.flatnonzero(np.isneginf(scores))
    if bad.size:
        raise ValueError(f"chain {int(bad[0])} has no labelling of finite score ({what} = "
                         "-inf): its -inf potentials exclude every labelling")
    return scores
