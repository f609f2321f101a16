"""The problem class of the min-cut polytope in the example protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..._example import StructuredExample
from ._cvxpy import mincut_constraints
from ._decode import check_graph, decode_mincut
from ._projection import project_mincut

__all__ = ['MinCutExample']


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

