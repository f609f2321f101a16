"""Tree-shaped Markov networks: the same message passing on any tree."""

from __future__ import annotations

import numpy as np

from . import _kernels as kern
from ..._checks import whole_array
from ._checks import check_feasible, check_potentials

__all__ = ["tree_marginals", "tree_map"]


def _check_tree(parent, n):
    parent = whole_array("parent", parent)   # 0.5 was cut to 0
    if parent.shape != (n,) or (n and parent[0] != -1):
        raise ValueError("parent must have one entry per node, parent[0] = -1")
    if np.any(parent[1:] < 0) or np.any(parent[1:] >= np.arange(1, n)):
        raise ValueError("nodes must be numbered so that parent[i] < i")
    return parent


def tree_marginals(node, edge, parent):
    """Node and edge marginals and ``log Z`` of a tree-structured Gibbs distribution.

    ``P(y) ∝ exp(sum_i node[i, y_i] + sum_{i>0} edge[i-1, y_parent(i), y_i])``;
    sum-product in log space.  ``parent[0] = -1`` and ``parent[i] < i``.  A tree of no
    node has one labelling, the empty one (``log Z = 0``; it was ``log K``).
    """
    node, edge = check_potentials(node, edge, max(np.shape(node)[0] - 1, 0))
    parent = _check_tree(parent, node.shape[0])
    if node.shape[0] == 0:                  # one labelling, the empty one: log Z = log 1
        return node.copy(), edge.copy(), 0.0
    nm, em, logz = kern.tree_sum_product(node, edge, parent)
    check_feasible(np.atleast_1d(logz))
    return nm, em, logz


def tree_map(node, edge, parent):
    """MAP labelling of a tree by max-product; returns ``(labels, score)``."""
    node, edge = check_potentials(node, edge, max(np.shape(node)[0] - 1, 0))
    parent = _check_tree(parent, node.shape[0])
    if node.shape[0] == 0:                  # the empty labelling scores 0 (the kernel's
        return np.zeros(0, np.int64), 0.0    # score was uninitialised memory)
    labels, best = kern.tree_max_product(node, edge, parent)
    check_feasible(np.atleast_1d(best), "best score")
    return labels, float(best)
