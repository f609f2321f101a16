"""The reference joint convex problem (thesis eq. 2.15) through cvxpy.

Dualising each loss-augmented LP (eq. 2.14) turns the saddle point into

.. math::
    \\min_{w \\in W, \\lambda \\ge 0, \\mu \\ge 0} \\sum_i b_i'\\lambda_i + 1'\\mu_i - w'f_i(y_i)
    \\quad \\text{s.t.}\\quad F_i'w + c_i \\le A_i'\\lambda_i + \\mu_i ,

for ``Z_i = {z : A_i z <= b_i, 0 <= z <= 1}`` (eq. 2.11).  With
``W = {||w|| <= gamma}`` this is a QCQP; solving it for a grid of ``gamma``
traces the regularisation path the thesis computed with MOSEK and CPLEX.
Its size grows with the data, which is the memory problem the dual
extragradient avoids; it is meant for small problems and for checking.
"""

from __future__ import annotations

import numpy as np

from ._monitor import SolverResult
from ._parameter_set import L2Ball
from ._stream import iterate_examples

__all__ = ["solve_saddle_qp", "regularization_path"]


def solve_saddle_qp(examples, W=None, solver="CLARABEL", verbose=False, **solver_options):
    """Solve eq. 2.15 for the examples' polytopes and the parameter set ``W``.

    Returns
    -------
    :class:`~structpred.SolverResult` whose ``info`` holds the optimal
    ``objective`` of eq. 2.15, the ``hinge`` loss at the optimum (the
    objective plus the omitted constant ``sum_i d_i``, i.e. eq. 2.21) and the
    cvxpy ``status``.
    """
    import cvxpy as cp

    examples = list(iterate_examples(examples))
    W = L2Ball() if W is None else W
    d = examples[0].n_features
    w = cp.Variable(d)
    objective = 0
    constraints = []
    const = 0.0
    for ex in examples:
        A, b = ex.constraints()
        lam = cp.Variable(A.shape[0], nonneg=True)
        mu = cp.Variable(ex.n_vars, nonneg=True)
        objective = objective + b @ lam + cp.sum(mu) - ex.target_features @ w
        constraints.append(ex.F.T @ w + ex.c <= A.T @ lam + mu)
        const += ex.d
    if np.isfinite(W.radius):
        constraints.append(cp.norm(w, 2) <= W.radius)
    if W.nonneg:
        constraints.append(w[list(W.nonneg)] >= 0)
    problem = cp.Problem(cp.Minimize(objective), constraints)
    problem.solve(solver=solver, verbose=verbose, **solver_options)
    ok = problem.status in ("optimal", "optimal_inaccurate")
    if not ok:
        raise RuntimeError(f"QP solver status {problem.status!r}")
    w_opt = np.asarray(w.value, dtype=np.float64)
    info = {"objective": float(problem.value), "hinge": float(problem.value) + const,
            "status": problem.status, "solver": solver}
    return SolverResult(w=w_opt, w_final=w_opt, history={}, status=0,
                        message=f"cvxpy: {problem.status}", n_iter=0, info=info)


def regularization_path(examples, radii, solver="CLARABEL", nonneg=(), **solver_options):
    """Solve eq. 2.15 for each ``gamma`` in ``radii``; returns the list of results."""
    examples = list(iterate_examples(examples))
    return [solve_saddle_qp(examples, L2Ball(radius=g, nonneg=nonneg), solver=solver,
                            **solver_options) for g in radii]
