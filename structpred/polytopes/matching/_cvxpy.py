"""The matching projection as a generic QP (cvxpy): the independent reference.
"""

from __future__ import annotations

import functools

import numpy as np

from ._common import _as_matrix

__all__ = ['project_matching_cvxpy']


# ---------------------------------------------------------------------------
# cvxpy reference
# ---------------------------------------------------------------------------

_CVXPY_DEFAULT_OPTS = {
    "CLARABEL": dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, tol_ktratio=1e-8),
    "OSQP": dict(eps_abs=1e-10, eps_rel=1e-10, max_iter=200000),  # + polishing, see below
}


def _cvxpy_solver_opts(solver):
    """Default options for ``solver`` (OSQP: polishing on, under the option
    name of the installed OSQP version: ``polish`` before 1.0, then
    ``polishing``)."""
    opts = dict(_CVXPY_DEFAULT_OPTS.get(solver.upper(), {}))
    if solver.upper() == "OSQP":
        try:
            from importlib.metadata import version

            major = int(version("osqp").split(".")[0])
        except Exception:  # noqa: BLE001 - unknown version: assume the current API
            major = 1
        opts["polishing" if major >= 1 else "polish"] = True
    return opts


@functools.lru_cache(maxsize=32)  # bounded: one parametrised problem per recent shape
def _cvxpy_problem(shape, solver=None):
    """The projection QP with ``z'`` as a cvxpy ``Parameter`` (DPP)."""
    import cvxpy as cp

    P = cp.Parameter(shape)
    z = cp.Variable(shape)
    cons = [z >= 0, z <= 1, cp.sum(z, axis=1) <= 1, cp.sum(z, axis=0) <= 1]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(z - P)), cons)
    return prob, P, z


def project_matching_cvxpy(zp, solver="OSQP", *, return_info=False, **solver_opts):
    """Reference projection onto the matching polytope by a generic QP solver.

    Solves :math:`\\min \\tfrac12\\lVert z - z'\\rVert^2` s.t.
    :math:`0 \\le z \\le 1`, :math:`z\\mathbf 1 \\le \\mathbf 1`,
    :math:`z^\\top\\mathbf 1 \\le \\mathbf 1` (thesis sec. 2.4.1.2) with cvxpy.
    The problem is built once per shape and solver with ``z'`` as a
    parameter (DPP), so repeated calls skip most of the canonicalisation.
    Tight solver tolerances are used by default (OSQP: ``eps_abs = eps_rel =
    1e-10`` with solution polishing; Clarabel: 1e-10 gap and feasibility
    tolerances); ``solver_opts`` override them.

    The default solver is OSQP because it is the more accurate reference
    (measured against the KKT-certified :func:`project_matching` on
    normal(0.3, 1) instances, ``benchmarks/bench_projection.py``): when its
    polishing step succeeds (about 70-90% of square instances) the error is
    ~1e-15, otherwise ~1e-8; Clarabel stops at a duality gap of ~1e-10, which
    for this degenerate QP leaves errors up to ~1e-5 at sizes 20-80 (the
    error of a projection grows like the square root of the gap).  OSQP is
    3-7x slower than Clarabel at 30 x 30 to 80 x 80.  Neither is reliable for
    inputs of magnitude ~1e6 (Clarabel may report "infeasible", OSQP errors of
    ~1e-5 when polishing fails).

    Parameters
    ----------
    zp : array_like, shape (m, n)
    solver : str
        Any QP solver installed for cvxpy (``"OSQP"``, ``"CLARABEL"``, ...).
    return_info : bool
        Also return a dict with ``status`` (cvxpy status), ``solver``,
        ``objective`` (``0.5 ||z - z'||^2`` as reported) and, for OSQP,
        ``polished`` (whether the polishing step succeeded).
    **solver_opts
        Passed to ``Problem.solve``.

    Returns
    -------
    z : ndarray, shape (m, n)
        The solver's primal ``z`` (not clipped).
    """
    zp = _as_matrix(zp, "zp")
    prob, P, z = _cvxpy_problem(zp.shape, solver)
    P.value = zp
    opts = _cvxpy_solver_opts(solver)
    opts.update(solver_opts)
    prob.solve(solver=solver, **opts)
    if z.value is None or prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy/{solver} failed: status {prob.status}")
    out = np.array(z.value, dtype=np.float64)
    if not return_info:
        return out
    info = dict(status=prob.status, solver=solver, objective=float(prob.value), polished=None)
    if solver.upper() == "OSQP":
        extra = getattr(prob.solver_stats, "extra_stats", None)
        st = getattr(getattr(extra, "info", None), "status_polish", None)
        info["polished"] = None if st is None else bool(st == 1)
    return out, info

