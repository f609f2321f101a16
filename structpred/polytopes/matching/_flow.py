"""The min-cost flow projection of thesis fig. 2.3 (OR-Tools), with proximity scaling.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._common import _as_matrix
from ._newton import _dual_solve
from .._magnitude import check_magnitude
from ._projection import _active_set_solve, _primal_from_dual

__all__ = ['project_matching_flow']


# ---------------------------------------------------------------------------
# min-cost flow formulation (fig. 2.3) with proximity scaling
# ---------------------------------------------------------------------------


def _flow_round(zp, lo, hi, p, max_cost_bits=40):
    """Solve the grid problem with step ``h = 2**-p`` by OR-Tools min-cost flow.

    Variables are integers ``x_jk`` (units of ``h``) with ``lo <= x <= hi``.
    Network of fig. 2.3: source -> row j (capacity ``U - sum_k lo_jk``, with
    ``U = 2**p`` the unit capacity), row j -> column k as ``hi - lo`` parallel
    unit arcs (segment ``i`` has the marginal cost of the i-th piece of the
    convex cost ``1/2 (z'_jk - z_jk)^2``), column k -> sink, and a zero-cost
    bypass source -> sink so the total flow is free.  Costs are scaled to
    integers (the scale is chosen so that every |cost| < 2**max_cost_bits);
    consecutive segment costs differ by the scale, so the rounding only breaks
    near-ties.
    """
    from ortools.graph.python import min_cost_flow

    m, n = zp.shape
    U = 1 << p
    nseg = (hi - lo).ravel()
    pair = np.repeat(np.arange(m * n), nseg)
    tot = int(nseg.sum())
    start = np.repeat(np.cumsum(nseg) - nseg, nseg)
    seg = np.arange(tot) - start
    lo_f = lo.ravel()
    zpf = zp.ravel()
    # cost of a segment in units of h^2:  (lo + i + 1/2) - z'/h
    cost_f = (lo_f[pair] + seg + 0.5) - zpf[pair] * U
    cmax = float(np.abs(cost_f).max()) if tot else 1.0
    scale = 2.0 ** max_cost_bits / max(cmax, 1.0)
    costs = np.rint(cost_f * scale).astype(np.int64)

    src, snk = 0, m + n + 1
    row_cap = U - lo.sum(axis=1)
    col_cap = U - lo.sum(axis=0)
    if row_cap.min() < 0 or col_cap.min() < 0:
        raise RuntimeError("infeasible box in proximity scaling")  # cannot happen
    smcf = min_cost_flow.SimpleMinCostFlow()
    rows = np.arange(1, m + 1)
    colsn = np.arange(m + 1, m + n + 1)
    smcf.add_arcs_with_capacity_and_unit_cost(
        np.full(m, src), rows, row_cap.astype(np.int64), np.zeros(m, np.int64)
    )
    smcf.add_arcs_with_capacity_and_unit_cost(
        colsn, np.full(n, snk), col_cap.astype(np.int64), np.zeros(n, np.int64)
    )
    total = int(row_cap.sum())
    smcf.add_arc_with_capacity_and_unit_cost(src, snk, total, 0)
    first = smcf.num_arcs()
    if tot:
        smcf.add_arcs_with_capacity_and_unit_cost(
            1 + pair // n, m + 1 + pair % n, np.ones(tot, np.int64), costs
        )
    smcf.set_node_supply(src, total)
    smcf.set_node_supply(snk, -total)
    status = smcf.solve()
    if status != smcf.OPTIMAL:
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    x = lo.ravel().copy()
    if tot:
        fl = smcf.flows(np.arange(first, first + tot))
        x += np.bincount(pair, weights=fl, minlength=m * n).astype(np.int64)
    return x.reshape(m, n)


def project_matching_flow(zp, tol=1e-10, p0=3, refine_bits=3, final_bits=21, width=2,
                          polish=True, max_iter=20000, return_info=False):
    """Projection onto the matching polytope through min-cost flow (fig. 2.3).

    Same problem as :func:`project_matching`,
    :math:`\\min \\tfrac12\\lVert z - z'\\rVert^2` s.t. :math:`0\\le z\\le 1`,
    row and column sums :math:`\\le 1`, written as the min-cost flow of
    thesis sec. 2.4.1.2, fig. 2.3 (source -> source words -> target words ->
    sink, flow on edge jk = :math:`z_{jk}`, convex quadratic edge costs
    :math:`\\tfrac12(z'_{jk} - z_{jk})^2`) and solved with OR-Tools
    ``SimpleMinCostFlow``, which needs integer data:

    1. *Piecewise-linear grid.*  On a grid of step :math:`h = 2^{-p}` each
       edge becomes parallel unit arcs whose costs are the slopes of the
       pieces of the quadratic (convexity makes the cheapest pieces fill
       first); costs are scaled to integers.  A zero-cost bypass arc
       source -> sink leaves the total flow free.
    2. *Proximity scaling* (Hochbaum & Shanthikumar, 1990): starting from
       :math:`h = 2^{-p_0}` over the box [0, 1], the grid solution is solved,
       the box of each edge is shrunk to ``width`` old grid steps around it
       and the grid is refined by ``2**refine_bits``, until
       :math:`h = 2^{-\\text{final\\_bits}}`.  Each round has at most
       ``2 * width * 2**refine_bits`` unit arcs per edge.
    3. *Exact polish* (``polish=True``): the active set is read off the last
       grid solution (entries at 0 / positive, saturated rows and columns),
       the KKT linear system of that active set is solved exactly for the
       multipliers, and the projected Newton method of
       :func:`project_matching` is run from those multipliers until the KKT
       residual is below ``tol`` (typically zero or one iteration is needed).

    Accuracy: with ``polish=True`` the result satisfies the same KKT
    tolerance as :func:`project_matching` (max abs error vs. the exact
    projection ~1e-12, <= 1e-9 in all tests).  Without the polish the grid
    solution of the last round (step ``h = 2**-final_bits`` ~ 4.8e-7) is
    returned; its error is about ``h`` per entry in practice and bounded by
    the proximity theorem only by ``h * (#edges)`` in the worst case (and only
    if the box shrinking never cut off the optimum).

    Parameters
    ----------
    zp : array_like, shape (m, n)
    tol, max_iter : float, int
        KKT tolerance and iteration limit of the polish (see
        :func:`project_matching`).
    p0, refine_bits, final_bits, width : int
        Grid schedule (initial step ``2**-p0``, refinement factor
        ``2**refine_bits`` per round, final step ``2**-final_bits``, box
        half-width in old grid steps).
    polish : bool
        Run the exact polish (recommended).
    return_info : bool
        Also return a dict (``rounds``, ``grid_z``, ``residual``, and for the
        polish ``alpha``, ``beta``, ``iterations``, ``newton_steps``,
        ``ray_steps``, ``sweeps``).

    Returns
    -------
    z : ndarray, shape (m, n)
    """
    zp = _as_matrix(zp, "zp")
    check_magnitude(zp, "zp")   # 1e16 gave zeros: the integer costs lost every difference
    m, n = zp.shape
    if zp.size == 0:
        z = np.zeros(zp.shape)
        return (z, dict(rounds=0, grid_z=z, residual=0.0, sweeps=0)) if return_info else z
    if final_bits > 40:
        raise ValueError("final_bits must be <= 40")
    p = int(p0)
    lo = np.zeros((m, n), np.int64)
    hi = np.full((m, n), 1 << p, np.int64)
    rounds = 0
    while True:
        x = _flow_round(zp, lo, hi, p)
        rounds += 1
        if p >= final_bits:
            break
        r = min(int(refine_bits), int(final_bits) - p)
        p += r
        U = 1 << p
        x = x << r
        lo = np.maximum(x - (width << r), 0)
        hi = np.minimum(x + (width << r), U)
    h = 2.0 ** -p
    zg = x * h
    info = dict(rounds=rounds, grid_z=zg, residual=float("nan"), sweeps=0)
    if not polish:
        return (zg, info) if return_info else zg
    # ---- exact polish from the active set of the grid solution ----
    # (dual of sec. "Numba kernels": z = max(z' - alpha - beta, 0), so an entry
    # at 1 is an ordinary free entry)
    eps = 4.0 * h * max(m, n)
    cls = (zg > 0.0).astype(np.int8)
    rmask = zg.sum(axis=1) >= 1.0 - eps
    cmask = zg.sum(axis=0) >= 1.0 - eps
    alpha = np.zeros(m)
    beta = np.zeros(n)
    a2 = np.zeros(m)
    b2 = np.zeros(n)
    if _active_set_solve(zp, alpha, beta, cls, rmask, cmask, a2, b2):
        alpha, beta = a2, b2
    # projected Newton from these multipliers (0 iterations when the grid's
    # active set was right), arranged with m >= n
    scale = max(1.0, float(np.abs(zp).max()))
    if n > m:
        at, bt = beta.copy(), alpha.copy()
        res, it, nn, nr, ns, _, tol_used = _dual_solve(np.ascontiguousarray(zp.T), at, bt,
                                                       float(tol), int(max_iter), scale)
        alpha, beta = bt, at
    else:
        res, it, nn, nr, ns, _, tol_used = _dual_solve(zp, alpha, beta, float(tol), int(max_iter), scale)
    if res > tol_used:
        warnings.warn(f"project_matching_flow: KKT residual {res:.3g} > tol", RuntimeWarning, stacklevel=2)
    z = _primal_from_dual(zp, alpha, beta)
    info.update(residual=float(res), sweeps=int(ns), iterations=int(it), newton_steps=int(nn),
                ray_steps=int(nr), alpha=alpha, beta=beta)
    return (z, info) if return_info else z

