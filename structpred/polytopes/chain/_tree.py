"""Tree-shaped Markov networks: the same message passing on any tree."""

from __future__ import annotations

import numpy as np

from . import _kernels as kern

__all__ = ["tree_marginals", "tree_map"]


def _check_tree(parent, n):
    parent = np.asarray(parent, dtype=np.int64)
    if parent.shape != (n,) or (n and parent[0] != -1):
        raise ValueError("parent must have one entry per node, parent[0] = -1")
    if np.any(parent[1:] < 0) or np.any(parent[1:] >= np.arange(1, n)):
        raise ValueError("nodes must be numbered so that parent[i] < i")
    return parent


def tree_marginals(node, edge, parent):
    """Node and edge marginals and ``log Z`` of a tree-structured Gibbs distribution.

    ``P(y) ∝ exp(sum_i node[i, y_i] + sum_{i>0} edge[i-1, y_parent(i), y_i])``;
    sum-product in log space.  ``parent[0] = -1`` and ``parent[i] < i``.
    """
    node = np.ascontiguousarray(node, dtype=np.float64)
    edge = np.ascontiguousarray(edge, dtype=np.float64)
    return kern.tree_sum_product(node, edge, _check_tree(parent, node.shape[0]))


def tree_map(node, edge, parent):
    """MAP labelling of a tree by max-product; returns ``(labels, score)``."""
    node = np.ascontiguousarray(node, dtype=np.float64)
    edge = np.ascontiguousarray(edge, dtype=np.float64)
    labels, best = kern.tree_max_product(node, edge, _check_tree(parent, node.shape[0]))
    return labels, float(best)
