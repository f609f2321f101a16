r"""Matchings with fertility: the LP of thesis eq. 3.2 (model M+F).

Variables, for an ``m x n`` bipartite graph and maximum fertility ``D``:

* ``z_jk`` in [0, 1], the edges;
* ``z_dj.`` in [0, 1] for ``2 <= d <= D``, "source word j has fertility at
  least d" (array ``src``, shape ``(D-1, m)``), and ``z_d.k`` likewise for
  target words (``tgt``, shape ``(D-1, n)``).

The polytope (eq. 3.2) is

.. math::
    \sum_k z_{jk} \le 1 + \sum_{d=2}^{D} z_{dj\bullet}, \qquad
    \sum_j z_{jk} \le 1 + \sum_{d=2}^{D} z_{d\bullet k}, \qquad 0 \le z \le 1 .

It is the flow polytope of fig. 3.1(b): the source feeds word ``j`` through
one free arc and ``D - 1`` arcs that carry the fertility indicators (cost
``s_dj.``), and likewise into the sink.  It is therefore integral, and

* :func:`decode_fertility_matching` solves the LP (prediction and
  loss-augmented inference) as an OR-Tools min-cost flow;
* :func:`project_fertility_matching` is the exact Euclidean projection
  (needed by the dual extragradient, sec. 2.4.1.2), by dual block-coordinate
  ascent: each row (column) multiplier solves a one-dimensional monotone
  piecewise-linear equation exactly, and sweeps alternate until the KKT
  residual is below ``tol``;
* :func:`project_fertility_matching_cvxpy` is the reference QP and
  :func:`fertility_constraints` its ``A z <= b`` form.

With ``D = 1`` all of this reduces to the matching polytope of model M.
"""

from __future__ import annotations

import warnings

import numba as nb
import numpy as np
import scipy.sparse as sp

from .._checks import check_whole, dense, unmasked

__all__ = ["fertility_constraints", "project_fertility_matching",
           "project_fertility_matching_cvxpy", "decode_fertility_matching",
           "fertility_indicators", "split_fertility_vector"]


def _check(a, name, shape=None):
    a = unmasked(dense(a), name)   # a sparse matrix: numpy's "setting an array element
    # with a sequence"
    if np.iscomplexobj(a):   # numpy dropped the imaginary parts with a ComplexWarning
        raise ValueError(f"{name} must be real, got complex values")
    a = np.asarray(a, dtype=np.float64)
    if shape is not None and a.shape != shape:
        raise ValueError(f"{name} has shape {a.shape}, expected {shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def _fert_arrays(edges, src, tgt):
    edges = _check(edges, "edge values")
    if edges.ndim != 2:
        raise ValueError("edge values must be a 2-D (m, n) array")
    m, n = edges.shape
    src = _check(np.zeros((0, m)) if src is None else src, "source fertility values")
    if src.ndim != 2 or src.shape[1] != m:
        raise ValueError(f"source fertility values must have shape (D-1, {m})")
    tgt = _check(np.zeros((src.shape[0], n)) if tgt is None else tgt, "target fertility values",
                 (src.shape[0], n))
    return edges, src, tgt


def _fertility_shape(shape, max_fertility):
    """``(m, n, D - 1)``, or ``ValueError`` naming a shape or a fertility that is not a
    whole number of the right range (0 was numpy's "negative dimensions")."""
    if len(tuple(shape)) != 2:
        raise ValueError(f"shape must be (m, n), got {shape!r}")
    m, n = shape
    check_whole("m", m, 0)
    check_whole("n", n, 0)
    check_whole("max_fertility", max_fertility, 1)
    return m, n, max_fertility - 1


def split_fertility_vector(z, shape, max_fertility):
    """Split a flat ``[edges, src (D-1)*m, tgt (D-1)*n, ...]`` vector into its three arrays
    (entries after them, such as the QAP's pair variables, are not read)."""
    m, n, e = _fertility_shape(shape, max_fertility)
    z = np.asarray(dense(z), dtype=np.float64)
    if z.ndim != 1 or z.size < m * n + e * (m + n):   # pair variables may follow (QAP)
        raise ValueError(f"z has shape {z.shape}; a {m} x {n} pair with max_fertility "
                         f"{max_fertility} has {m * n + e * (m + n)} entries")
    edges = z[: m * n].reshape(m, n)
    src = z[m * n: m * n + e * m].reshape(e, m)
    tgt = z[m * n + e * m: m * n + e * (m + n)].reshape(e, n)
    return edges, src, tgt


def fertility_indicators(y, max_fertility):
    """Indicators ``z_dj. = [deg_j >= d]`` for ``2 <= d <= D`` of a 0/1 edge matrix."""
    check_whole("max_fertility", max_fertility, 1)
    y = np.asarray(dense(y))
    if y.ndim != 2 or not np.isin(y, (0, 1)).all():
        raise ValueError(f"y must be a 0/1 edge matrix (m x n), got shape {y.shape} with "
                         f"values {np.unique(y)[:5].tolist()}")
    d = np.arange(2, max_fertility + 1)[:, None]
    return ((y.sum(1)[None, :] >= d).astype(np.float64),
            (y.sum(0)[None, :] >= d).astype(np.float64))


def fertility_constraints(shape, max_fertility):
    """``(A, b)`` with the polytope of eq. 3.2 written ``A z <= b`` (plus ``0 <= z <= 1``).

    The variable order is ``[edges (row-major), src (D-1, m), tgt (D-1, n)]``.
    """
    m, n, e = _fertility_shape(shape, max_fertility)
    rows = sp.kron(sp.eye(m), np.ones((1, n)))           # sum_k z_jk
    cols = sp.kron(np.ones((1, m)), sp.eye(n))           # sum_j z_jk
    # - sum_d z_dj.  and  - sum_d z_d.k
    fs = -sp.kron(np.ones((1, e)), sp.eye(m)) if e else sp.csr_matrix((m, 0))
    ft = -sp.kron(np.ones((1, e)), sp.eye(n)) if e else sp.csr_matrix((n, 0))
    A = sp.bmat([[rows, fs, None], [cols, None, ft]], format="csr")
    if A.shape[1] != m * n + e * (m + n):   # bmat drops empty blocks' width when e == 0
        A = sp.hstack([A, sp.csr_matrix((m + n, m * n + e * (m + n) - A.shape[1]))]).tocsr()
    return A, np.ones(m + n)


# --------------------------------------------------------------------------- projection
@nb.njit(cache=True)
def _line_root(a, b):
    """Smallest ``t >= 0`` with ``sum clip(a - t) - sum clip(b + t) - 1 <= 0`` (exact).

    ``g(t) = sum_k clip(a_k - t, 0, 1) - sum_d clip(b_d + t, 0, 1) - 1`` is
    continuous, non-increasing and piecewise linear; its breakpoints are
    ``a_k - 1, a_k`` and ``-b_d, 1 - b_d``.  We walk them in increasing order
    keeping ``g`` and its slope, and interpolate linearly in the last piece.
    """
    g = -1.0
    slope = 0.0
    for v in a:
        g += min(max(v, 0.0), 1.0)
        if v - 1.0 <= 0.0 < v:      # active just right of t = 0
            slope -= 1.0
    for v in b:
        g -= min(max(v, 0.0), 1.0)
        if -v <= 0.0 < 1.0 - v:
            slope -= 1.0
    if g <= 0.0:
        return 0.0
    na, nbk = a.size, b.size
    K = 2 * (na + nbk)
    pos = np.empty(K)
    dsl = np.empty(K)   # change of slope when t passes the breakpoint
    c = 0
    for v in a:
        pos[c] = v - 1.0
        dsl[c] = -1.0
        pos[c + 1] = v
        dsl[c + 1] = 1.0
        c += 2
    for v in b:
        pos[c] = -v
        dsl[c] = -1.0
        pos[c + 1] = 1.0 - v
        dsl[c + 1] = 1.0
        c += 2
    order = np.argsort(pos)
    t = 0.0
    for i in order:
        p = pos[i]
        if p <= 0.0:
            continue
        gn = g + slope * (p - t)
        if gn <= 0.0:
            return t + g / (-slope)
        g = gn
        t = p
        slope += dsl[i]
    # g > 0 past every breakpoint would need a slope of 0 with g > 0: impossible,
    # since past max(a) every edge term is 0 and g <= -1 there.
    return t + g / (-slope) if slope < 0.0 else t


@nb.njit(cache=True)
def _primal(zp, sp_, tp, alpha, beta, z, zs, zt):
    m, n = zp.shape
    for j in range(m):
        for k in range(n):
            z[j, k] = min(max(zp[j, k] - alpha[j] - beta[k], 0.0), 1.0)
    for d in range(sp_.shape[0]):
        for j in range(m):
            zs[d, j] = min(max(sp_[d, j] + alpha[j], 0.0), 1.0)
        for k in range(n):
            zt[d, k] = min(max(tp[d, k] + beta[k], 0.0), 1.0)


@nb.njit(cache=True)
def _kkt_residual(z, zs, zt, alpha, beta):
    """Max over rows/columns of the constraint violation and of complementary slackness."""
    m, n = z.shape
    r = 0.0
    for j in range(m):
        s = -1.0
        for k in range(n):
            s += z[j, k]
        for d in range(zs.shape[0]):
            s -= zs[d, j]
        r = max(r, s, alpha[j] * abs(s) if alpha[j] > 0.0 else 0.0)
    for k in range(n):
        s = -1.0
        for j in range(m):
            s += z[j, k]
        for d in range(zt.shape[0]):
            s -= zt[d, k]
        r = max(r, s, beta[k] * abs(s) if beta[k] > 0.0 else 0.0)
    return r


@nb.njit(cache=True)
def _active_set_step(zp, sp_, tp, alpha, beta, out_a, out_b):
    """Solve the dual optimality equations on the current active set (exact polish).

    With the sets of free variables (strictly inside (0, 1)) and of positive
    multipliers fixed, the row and column equations ``g_j = 0``, ``h_k = 0``
    are linear in ``(alpha_R, beta_C)``:
    ``alpha_j (#free_j) + sum_{k in free_j, k in C} beta_k = rhs_j``.
    Returns False when the system is singular (then the sweeps go on).
    """
    m, n = zp.shape
    e = sp_.shape[0]
    ridx = -np.ones(m, np.int64)
    cidx = -np.ones(n, np.int64)
    N = 0
    for j in range(m):
        if alpha[j] > 0.0:
            ridx[j] = N
            N += 1
    for k in range(n):
        if beta[k] > 0.0:
            cidx[k] = N
            N += 1
    if N == 0:
        return False
    A = np.zeros((N, N))
    rhs = np.zeros(N)
    for j in range(m):
        for k in range(n):
            v = zp[j, k] - alpha[j] - beta[k]
            free = 0.0 < v < 1.0
            one = v >= 1.0
            for r, other in ((ridx[j], cidx[k]), (cidx[k], ridx[j])):
                if r < 0:
                    continue
                if free:
                    A[r, r] += 1.0
                    rhs[r] += zp[j, k]
                    if other >= 0:
                        A[r, other] += 1.0
                elif one:
                    rhs[r] += 1.0
    for d in range(e):
        for j in range(m):
            r = ridx[j]
            if r >= 0:
                v = sp_[d, j] + alpha[j]
                if 0.0 < v < 1.0:
                    A[r, r] += 1.0
                    rhs[r] -= sp_[d, j]
                elif v >= 1.0:
                    rhs[r] -= 1.0
        for k in range(n):
            r = cidx[k]
            if r >= 0:
                v = tp[d, k] + beta[k]
                if 0.0 < v < 1.0:
                    A[r, r] += 1.0
                    rhs[r] -= tp[d, k]
                elif v >= 1.0:
                    rhs[r] -= 1.0
    for r in range(N):
        rhs[r] -= 1.0
        if A[r, r] == 0.0:
            return False
    # least squares (SVD) never raises; a singular system shows up as a residual
    x = np.linalg.lstsq(A, rhs)[0]
    if np.max(np.abs(A @ x - rhs)) > 1e-9 * (1.0 + np.max(np.abs(rhs))):
        return False
    out_a[:] = 0.0
    out_b[:] = 0.0
    for j in range(m):
        if ridx[j] >= 0:
            if x[ridx[j]] < 0.0:
                return False
            out_a[j] = x[ridx[j]]
    for k in range(n):
        if cidx[k] >= 0:
            if x[cidx[k]] < 0.0:
                return False
            out_b[k] = x[cidx[k]]
    return True


@nb.njit(cache=True)
def _fert_project_kernel(zp, sp_, tp, tol, max_iter, alpha0, beta0):
    m, n = zp.shape
    alpha = alpha0.copy()
    beta = beta0.copy()
    na = np.empty(m)
    nbeta = np.empty(n)
    a = np.empty(n)
    ac = np.empty(m)
    z = np.empty((m, n))
    zs = np.empty(sp_.shape)
    zt = np.empty(tp.shape)
    it = 0
    res = np.inf
    while it < max_iter:
        it += 1
        # rows: alpha_j solves g_j(alpha_j) = 0 given beta (exact line search)
        for j in range(m):
            for k in range(n):
                a[k] = zp[j, k] - beta[k]
            alpha[j] = _line_root(a, sp_[:, j].copy())
        for k in range(n):
            for j in range(m):
                ac[j] = zp[j, k] - alpha[j]
            beta[k] = _line_root(ac, tp[:, k].copy())
        if it % 4 == 0 or it == max_iter:
            _primal(zp, sp_, tp, alpha, beta, z, zs, zt)
            res = _kkt_residual(z, zs, zt, alpha, beta)
            if res <= tol:
                break
            if res < 1e-3 and _active_set_step(zp, sp_, tp, alpha, beta, na, nbeta):
                # the active set has (probably) settled: jump to the exact solution on it
                _primal(zp, sp_, tp, na, nbeta, z, zs, zt)
                r2 = _kkt_residual(z, zs, zt, na, nbeta)
                if r2 <= tol:
                    alpha[:] = na
                    beta[:] = nbeta
                    res = r2
                    break
    _primal(zp, sp_, tp, alpha, beta, z, zs, zt)
    res = _kkt_residual(z, zs, zt, alpha, beta)
    return z, zs, zt, alpha, beta, it, res


def project_fertility_matching(edges, src=None, tgt=None, tol=1e-11, max_iter=100000,
                               return_info=False, warm=None):
    r"""Euclidean projection onto the M+F polytope of eq. 3.2.

    Solves :math:`\min_z \tfrac12\|z - z'\|^2` over the polytope, through its
    dual in the row and column multipliers :math:`\alpha, \beta \ge 0`:

    .. math::
        z_{jk} = [z'_{jk} - \alpha_j - \beta_k]_0^1, \quad
        z_{dj\bullet} = [z'_{dj\bullet} + \alpha_j]_0^1, \quad
        z_{d\bullet k} = [z'_{d\bullet k} + \beta_k]_0^1 .

    Block-coordinate ascent maximises the (concave, differentiable) dual one
    multiplier at a time, each by an exact one-dimensional root find; once
    the KKT residual is below 1e-3 it also tries, every few sweeps, to solve
    the dual equations exactly on the current active set (a linear system in
    the positive multipliers), and accepts that point if its residual is
    below ``tol``.  It stops when the largest constraint violation and
    complementary-slackness product are at most ``tol`` (then the primal
    point is feasible and optimal to that accuracy).

    Parameters
    ----------
    edges : array_like, shape (m, n)
        ``z'_jk``.
    src, tgt : array_like, shapes (D-1, m) and (D-1, n), optional
        ``z'`` of the fertility indicators; omitted means ``D = 1`` (model M).

    warm : dict, optional
        Starts from the multipliers stored there by the previous call and
        stores the new ones (the dual extragradient projects each example's
        slowly moving points again and again).  The result does not depend
        on the start, only the number of sweeps does.

    Returns
    -------
    edges, src, tgt : ndarrays
        The projection; with ``return_info`` also a dict with ``alpha``,
        ``beta``, ``n_iter`` and ``residual``.
    """
    edges, src, tgt = _fert_arrays(edges, src, tgt)
    m, n = edges.shape
    if src.shape[0] == 0:
        # D = 1: the matching polytope, whose projection has an exact Newton method; the
        # block-coordinate ascent below needs about max|z'| sweeps (1e7 gave another vertex)
        from .matching import project_matching

        z, info = project_matching(edges, tol=tol, max_iter=min(int(max_iter), 20000),
                                   return_info=True)
        if warm is not None:
            warm["alpha"], warm["beta"] = info["alpha"], info["beta"]
        if return_info:
            return z, src.copy(), tgt.copy(), {"alpha": info["alpha"], "beta": info["beta"],
                                               "n_iter": info["iterations"],
                                               "residual": info["residual"]}
        return z, src.copy(), tgt.copy()
    a0, b0 = np.zeros(m), np.zeros(n)
    if warm is not None and "alpha" in warm and warm["alpha"].shape == (m,):
        a0, b0 = warm["alpha"], warm["beta"]
    z, zs, zt, alpha, beta, it, res = _fert_project_kernel(
        np.ascontiguousarray(edges), np.ascontiguousarray(src), np.ascontiguousarray(tgt),
        float(tol), int(max_iter), a0, b0)
    if warm is not None:
        warm["alpha"], warm["beta"] = alpha, beta
    if res > tol:   # it returned a point short of the projection without a word
        warnings.warn(f"project_fertility_matching: KKT residual {res:.3g} > tol={tol:g} after "
                      f"{it} sweeps (values up to {np.abs(edges).max():.3g} in magnitude: the "
                      "sweeps it needs grow with it)", RuntimeWarning, stacklevel=2)
    if return_info:
        return z, zs, zt, {"alpha": alpha, "beta": beta, "n_iter": int(it), "residual": float(res)}
    return z, zs, zt


def project_fertility_matching_cvxpy(edges, src=None, tgt=None, solver="OSQP", **opts):
    """Reference projection: the QP of :func:`project_fertility_matching` in cvxpy."""
    import cvxpy as cp

    from .matching._cvxpy import _cvxpy_solver_opts

    edges, src, tgt = _fert_arrays(edges, src, tgt)
    (m, n), D = edges.shape, src.shape[0] + 1
    zp = np.concatenate([edges.ravel(), src.ravel(), tgt.ravel()])
    A, b = fertility_constraints((m, n), D)
    z = cp.Variable(zp.size)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(z - zp)), [A @ z <= b, z >= 0, z <= 1])
    kw = _cvxpy_solver_opts(solver)
    kw.update(opts)
    prob.solve(solver=solver, **kw)
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy status {prob.status}")
    return split_fertility_vector(np.clip(z.value, 0.0, 1.0), (m, n), D)


# --------------------------------------------------------------------------- decoding
_COST_BITS = 40


def decode_fertility_matching(scores, src_penalty=None, tgt_penalty=None):
    r"""Solve the LP of eq. 3.2 (integral) as the min-cost flow of fig. 3.1(b).

    .. math::
        \max_{y} \sum_{jk} s_{jk} y_{jk} - \sum_{j, d \ge 2} s_{dj\bullet} z_{dj\bullet}
                 - \sum_{k, d \ge 2} s_{d\bullet k} z_{d\bullet k}

    Graph: source -> source word ``j`` through one arc of cost 0 and ``D - 1``
    arcs of cost ``s_dj.`` (capacity 1 each), word pair arcs ``j -> k`` of
    cost ``-s_jk`` (only for ``s_jk > 0``: other edges never help), target
    words to the sink likewise, and a free source -> sink bypass so that any
    amount of flow may be sent.  Costs are scaled to integers
    (``round(c * 2**40 / max|c|)``), so the result is optimal to within
    ``(m + n) * D * 2**-40 * max|c|`` (about ``1e-12 (m + n) D max|c|``).

    Parameters
    ----------
    scores : array_like, shape (m, n)
    src_penalty, tgt_penalty : array_like, shapes (D-1, m) and (D-1, n), optional
        Penalties ``s_dj.`` and ``s_d.k``.  The indicator semantics of eq. 3.2
        need them non-decreasing in ``d`` (the flow then uses the cheaper arc
        first); the LP itself is solved for any values.

    Returns
    -------
    y : ndarray of int64, shape (m, n)
    src, tgt : ndarray of float64
        The fertility-arc flows (the indicators ``z_dj.``, ``z_d.k``).
    """
    from ortools.graph.python import min_cost_flow

    s, ps, pt = _fert_arrays(scores, src_penalty, tgt_penalty)
    m, n = s.shape
    e = ps.shape[0]
    y = np.zeros((m, n), np.int64)
    # A negative penalty is a reward the LP collects whether or not the word
    # uses it: that indicator is 1 and its arc is free.
    zs = (ps < 0).astype(np.float64)
    zt = (pt < 0).astype(np.float64)
    ps, pt = np.maximum(ps, 0.0), np.maximum(pt, 0.0)
    jj, kk = np.nonzero(s > 0.0)
    if jj.size == 0:
        return y, zs, zt
    scale = max(float(np.abs(s[jj, kk]).max()), float(np.abs(ps).max(initial=0.0)),
                float(np.abs(pt).max(initial=0.0)))
    cost = lambda c: np.rint(np.asarray(c) / scale * 2.0 ** _COST_BITS).astype(np.int64)  # noqa: E731
    src, snk = 0, m + n + 1
    flow = min(m, n) * (e + 1)
    smcf = min_cost_flow.SimpleMinCostFlow()
    rows = np.arange(1, m + 1)
    colsn = np.arange(m + 1, m + n + 1)
    smcf.add_arcs_with_capacity_and_unit_cost(np.full(m, src), rows, np.ones(m, np.int64),
                                              np.zeros(m, np.int64))
    smcf.add_arcs_with_capacity_and_unit_cost(colsn, np.full(n, snk), np.ones(n, np.int64),
                                              np.zeros(n, np.int64))
    first_fs = smcf.num_arcs()
    if e:
        smcf.add_arcs_with_capacity_and_unit_cost(
            np.full(e * m, src), np.tile(rows, e), np.ones(e * m, np.int64), cost(ps.ravel()))
        smcf.add_arcs_with_capacity_and_unit_cost(
            np.tile(colsn, e), np.full(e * n, snk), np.ones(e * n, np.int64), cost(pt.ravel()))
    smcf.add_arc_with_capacity_and_unit_cost(src, snk, flow, 0)
    first = smcf.num_arcs()
    smcf.add_arcs_with_capacity_and_unit_cost(1 + jj, m + 1 + kk, np.ones(jj.size, np.int64),
                                              -cost(s[jj, kk]))
    smcf.set_node_supply(src, flow)
    smcf.set_node_supply(snk, -flow)
    status = smcf.solve()
    if status != smcf.OPTIMAL:
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    fl = smcf.flows(np.arange(first, first + jj.size))
    y[jj[fl > 0], kk[fl > 0]] = 1
    if e:
        zs = np.maximum(zs, smcf.flows(np.arange(first_fs, first_fs + e * m)).reshape(e, m))
        zt = np.maximum(zt, smcf.flows(np.arange(first_fs + e * m,
                                                 first_fs + e * (m + n))).reshape(e, n))
    return y, zs, zt
