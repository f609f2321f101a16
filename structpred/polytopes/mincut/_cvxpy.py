"""The min-cut projection as a generic QP (cvxpy): the independent reference.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._decode import check_graph

__all__ = ['project_mincut_cvxpy', 'mincut_constraints']


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

