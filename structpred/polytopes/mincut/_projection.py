"""Exact Euclidean projection onto the min-cut polytope: :func:`project_mincut`.
"""

from __future__ import annotations

import numpy as np

from ..._checks import dense, unmasked
from .._magnitude import MagnitudeError
from ._active_set import _project_active_set
from ._decode import check_graph
from ._dual_ascent import _project_kernel

__all__ = ['project_mincut']


def project_mincut(zp_nodes, zp_edges, edges, tol=1e-10, max_iter=100000, p0=None,
                   omega=1.7, return_info=False, method="active_set", sweeps=60, max_steps=100,
                   flow_backend="bk"):
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
    (Boykov-Kolmogorov, :func:`_bk_maxflow`, by default; OR-Tools with
    ``flow_backend="ortools"``; capacities ``-b'``, node demands
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
    flow_backend : {"bk", "ortools"}
        Max-flow used for the flows inside fused groups: the Numba
        Boykov-Kolmogorov code (default) or OR-Tools.  Both give the same
        projection (tested); the choice only changes speed.

    Returns
    -------
    z_nodes : ndarray, shape (n,)
    z_edges : ndarray, shape (m,)
    info : dict, only if ``return_info``
    """
    zv = np.ascontiguousarray(unmasked(zp_nodes, "zp_nodes"), dtype=np.float64).ravel()
    ze = np.ascontiguousarray(unmasked(zp_edges, "zp_edges"), dtype=np.float64).ravel()
    edges = check_graph(edges, zv.size)
    if ze.size != edges.shape[0]:
        raise ValueError(f"{ze.size} edge values for {edges.shape[0]} edges")
    if not (np.all(np.isfinite(zv)) and np.all(np.isfinite(ze))):
        nan = np.isnan(zv).any() or np.isnan(ze).any()   # infinite: a step overflowed
        raise (ValueError if nan else MagnitudeError)("the point to project must be finite")
    p = np.zeros(ze.size) if p0 is None else _check_p0(p0, ze.size)
    ej = np.ascontiguousarray(edges[:, 0])
    ek = np.ascontiguousarray(edges[:, 1])
    if method == "active_set" and ze.size == 0:
        z, info = np.clip(zv, 0.0, 1.0), dict(iterations=0, delta=0.0, active_set_steps=0,
                                              kkt_residual=0.0, exact=True)
    elif method == "active_set":
        z, p, info = _project_active_set(zv, ze, ej, ek, edges, p, float(tol), int(max_iter),
                                         float(omega), sweeps, max_steps, flow_backend)
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


def _check_p0(p0, m):
    """The warm start ``p0`` as a fresh float64 vector of the ``m`` edge flows; another
    size was numpy's "could not broadcast input array from shape (2,) into shape (1,)",
    NaN a projection of NaN."""
    try:
        p = np.array(unmasked(dense(p0), "p0"), dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        if "masked" in str(exc):
            raise
        raise ValueError(f"p0 must be an array of {m} dual flows (one per edge)") from None
    if p.size != m:
        raise ValueError(f"p0 must be an array of {m} dual flows (one per edge), got {p.size}")
    if not np.all(np.isfinite(p)):
        raise ValueError("p0 must hold finite dual flows")
    return p
