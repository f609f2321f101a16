"""Exact Euclidean projection onto the matching polytope: :func:`project_matching`.

An active-set refinement of the dual Newton iterate (:mod:`._newton`), the primal
recovered from the row and column multipliers, and a batch helper.
"""

from __future__ import annotations

import warnings

import numba as nb
import numpy as np

from .._magnitude import MAX_MAGNITUDE, check_magnitude
from ._common import _as_matrix
from ._newton import _dual_solve, _find

__all__ = ['project_matching', 'project_matching_batch']


@nb.njit(cache=True)
def _lu_solve(A, b):
    """Solve ``A x = b`` by Gaussian elimination with partial pivoting.

    Returns ``(x, ok)``; ``ok`` is False exactly when ``A`` is singular (a zero
    pivot), the one failure the caller recovers from.  ``A`` and ``b`` are
    overwritten.
    """
    n = b.size
    for c in range(n):
        p = c
        big = abs(A[c, c])
        for r in range(c + 1, n):
            if abs(A[r, c]) > big:
                big = abs(A[r, c])
                p = r
        if big == 0.0:
            return b, False
        if p != c:
            for k in range(c, n):
                t = A[c, k]
                A[c, k] = A[p, k]
                A[p, k] = t
            t = b[c]
            b[c] = b[p]
            b[p] = t
        piv = A[c, c]
        for r in range(c + 1, n):
            f = A[r, c] / piv
            if f != 0.0:
                for k in range(c + 1, n):
                    A[r, k] -= f * A[c, k]
                b[r] -= f * b[c]
    for c in range(n - 1, -1, -1):
        acc = b[c]
        for k in range(c + 1, n):
            acc -= A[c, k] * b[k]
        b[c] = acc / A[c, c]
    return b, True


@nb.njit(cache=True)
def _active_set_solve(zp, alpha0, beta0, cls, rmask, cmask, alpha_out, beta_out):
    """One exact Newton step for a guessed active set.

    ``cls[j, k]`` is 0 (z at 0), 1 (free) or 2 (z at 1); ``rmask``/``cmask``
    flag the rows/columns assumed saturated (sum = 1).  Assuming this active
    set, ``z_jk = z'_jk - alpha_j - beta_k`` on free entries and the saturated
    rows/columns give the linear system (a signless graph Laplacian of the free
    edges)

        |F_j| alpha_j + sum_{k in F_j, k sat} beta_k = sum_{F_j} z'_jk + #ones_j - 1,

    and its column analogue.  The row block is diagonal, so it is eliminated
    and only a Schur complement over the saturated columns is factorised.
    Connected components of saturated rows/columns with no free edge leaving
    them are singular (only alpha_j + beta_k is determined); one node is
    pinned at its current value and the component is afterwards shifted
    (alpha + t, beta - t) to keep the multipliers non-negative when possible.

    The step is solved as a correction from (alpha0, beta0) (alpha0 = 0 off
    ``rmask``, beta0 = 0 off ``cmask``).  Outputs are clipped at 0.
    Returns False if the linear system could not be solved.

    Used to warm-start the polish of :func:`project_matching_flow` from the
    grid solution's active set (with ``cls`` in {0, 1}: the dual solved by
    :func:`_dual_solve` has no ``z <= 1`` bound, an entry at 1 is free).
    """
    m, n = zp.shape
    fr = np.zeros(m, np.int64)
    frc = np.zeros(m, np.int64)
    fc = np.zeros(n, np.int64)
    fcr = np.zeros(n, np.int64)
    gr = np.full(m, -1.0)
    gc = np.full(n, -1.0)
    parent = np.arange(m + n)
    for j in range(m):
        for k in range(n):
            c = cls[j, k]
            if c == 1:
                u = zp[j, k] - alpha0[j] - beta0[k]
                gr[j] += u
                gc[k] += u
                fr[j] += 1
                fc[k] += 1
                if cmask[k]:
                    frc[j] += 1
                if rmask[j]:
                    fcr[k] += 1
                if rmask[j] and cmask[k]:
                    a = _find(parent, j)
                    b = _find(parent, m + k)
                    if a != b:
                        parent[a] = b
            elif c == 2:
                gr[j] += 1.0
                gc[k] += 1.0
    is_open = np.zeros(m + n, np.bool_)
    for j in range(m):
        if rmask[j] and fr[j] > frc[j]:
            is_open[_find(parent, j)] = True
    for k in range(n):
        if cmask[k] and fc[k] > fcr[k]:
            is_open[_find(parent, m + k)] = True
    pin = np.full(m + n, -1, np.int64)
    pinned = np.zeros(m + n, np.bool_)
    for k in range(n):
        if cmask[k]:
            r = _find(parent, m + k)
            if not is_open[r] and pin[r] < 0:
                pin[r] = m + k
                pinned[m + k] = True
    for j in range(m):
        if rmask[j]:
            r = _find(parent, j)
            if not is_open[r] and pin[r] < 0:
                pin[r] = j
                pinned[j] = True
    # Schur complement on the unpinned saturated columns
    idx = np.full(n, -1, np.int64)
    nv = 0
    for k in range(n):
        if cmask[k] and not pinned[m + k]:
            idx[k] = nv
            nv += 1
    S = np.zeros((nv, nv))
    rhs = np.zeros(nv)
    for k in range(n):
        if idx[k] >= 0:
            S[idx[k], idx[k]] = fc[k]
            rhs[idx[k]] = gc[k]
    cols = np.empty(n, np.int64)
    for j in range(m):
        if not rmask[j] or pinned[j]:
            continue
        inv = 1.0 / fr[j]
        nc = 0
        for k in range(n):
            if cls[j, k] == 1 and idx[k] >= 0:
                cols[nc] = idx[k]
                nc += 1
        gj = gr[j] * inv
        for a in range(nc):
            ia = cols[a]
            rhs[ia] -= gj
            for b in range(nc):
                S[ia, cols[b]] -= inv
    ok = True
    dbeta = np.zeros(n)
    if nv > 0:
        x, ok = _lu_solve(S, rhs)
        if ok:  # a singular system gives up this step; any other error propagates
            for k in range(n):
                if idx[k] >= 0:
                    dbeta[k] = x[idx[k]]
    for k in range(n):
        beta_out[k] = beta0[k] + dbeta[k] if cmask[k] else beta0[k]
    for j in range(m):
        if rmask[j] and not pinned[j]:
            acc = gr[j]
            for k in range(n):
                if cls[j, k] == 1 and cmask[k]:
                    acc -= dbeta[k]
            alpha_out[j] = alpha0[j] + acc / fr[j]
        else:
            alpha_out[j] = alpha0[j]
    # restore non-negativity inside singular components: alpha + t, beta - t
    lo = np.full(m + n, -np.inf)
    hi = np.full(m + n, np.inf)
    has_r = np.zeros(m + n, np.bool_)
    has_c = np.zeros(m + n, np.bool_)
    for j in range(m):
        if rmask[j]:
            r = _find(parent, j)
            if not is_open[r]:
                has_r[r] = True
                if -alpha_out[j] > lo[r]:
                    lo[r] = -alpha_out[j]
    for k in range(n):
        if cmask[k]:
            r = _find(parent, m + k)
            if not is_open[r]:
                has_c[r] = True
                if beta_out[k] < hi[r]:
                    hi[r] = beta_out[k]
    for j in range(m):
        if rmask[j]:
            r = _find(parent, j)
            if has_r[r] and has_c[r]:
                t = min(max(0.0, lo[r]), hi[r])
                alpha_out[j] += t
    for k in range(n):
        if cmask[k]:
            r = _find(parent, m + k)
            if has_r[r] and has_c[r]:
                t = min(max(0.0, lo[r]), hi[r])
                beta_out[k] -= t
    for j in range(m):
        if alpha_out[j] < 0.0:
            alpha_out[j] = 0.0
    for k in range(n):
        if beta_out[k] < 0.0:
            beta_out[k] = 0.0
    return ok


@nb.njit(cache=True)
def _primal_from_dual(zp, alpha, beta):
    """z = clip(z' - alpha - beta, 0, 1), then rows/columns whose sum exceeds 1
    (by at most the solver tolerance) are rescaled so that ``z`` is feasible."""
    m, n = zp.shape
    z = np.empty((m, n))
    cs = np.zeros(n)
    for j in range(m):
        aj = alpha[j]
        s = 0.0
        for k in range(n):
            u = zp[j, k] - aj - beta[k]
            u = u if u > 0.0 else 0.0
            u = u if u < 1.0 else 1.0
            z[j, k] = u
            s += u
        if s > 1.0:
            for k in range(n):
                z[j, k] /= s
    for j in range(m):
        for k in range(n):
            cs[k] += z[j, k]
    for k in range(n):
        cs[k] = 1.0 / cs[k] if cs[k] > 1.0 else 1.0
    for j in range(m):
        for k in range(n):
            z[j, k] *= cs[k]
    return z


@nb.njit(cache=True)
def _sums_above(zp, a, s, c):
    """For each active column ``k`` (``a[k] >= 0``): the sum ``s[k]`` and number
    ``c[k]`` of its entries above the threshold ``a[k]`` (row-major, branch-free)."""
    m, n = zp.shape
    for k in range(n):
        s[k] = 0.0
        c[k] = 0.0
    for j in range(m):
        for k in range(n):
            v = zp[j, k]
            w = v > a[k] and a[k] >= 0.0
            s[k] += v if w else 0.0
            c[k] += 1.0 if w else 0.0


@nb.njit(cache=True)
def _column_thresholds(zp, beta):
    """Column-only projection: ``beta_k`` = threshold of column k with
    alpha = 0 (Michelot's iteration for all columns at once, in row-major
    branch-free passes).  Returns ``(max(1, max|z'|), all entries finite)``."""
    m, n = zp.shape
    s = np.zeros(n)
    c = np.zeros(n)
    vmax = np.full(n, -np.inf)
    scale = 1.0
    finite = True
    for j in range(m):
        for k in range(n):
            v = zp[j, k]
            s[k] += v if v > 0.0 else 0.0
            c[k] += 1.0 if v > 0.0 else 0.0
            vmax[k] = v if v > vmax[k] else vmax[k]
            av = abs(v)
            finite = finite and av <= 1.7976931348623157e308
            scale = av if av > scale else scale
    if not finite:
        return scale, False
    a = np.empty(n)
    active = 0
    for k in range(n):
        if s[k] <= 1.0:
            a[k] = -1.0  # done: beta_k = 0
            beta[k] = 0.0
        else:
            a[k] = max(vmax[k] - 1.0, 0.0)  # lower bound of the root
            active += 1
    if active == 0:
        return scale, True
    _sums_above(zp, a, s, c)
    s2 = np.empty(n)
    c2 = np.empty(n)
    for _ in range(m + 2):
        for k in range(n):
            if a[k] >= 0.0:
                a[k] = max((s[k] - 1.0) / c[k], 0.0)
        _sums_above(zp, a, s2, c2)
        active = 0
        for k in range(n):
            if a[k] >= 0.0:
                if c2[k] == c[k]:
                    beta[k] = a[k]
                    a[k] = -1.0
                else:
                    s[k] = s2[k]
                    c[k] = c2[k]
                    active += 1
        if active == 0:
            break
    for k in range(n):
        if a[k] >= 0.0:  # not reached
            beta[k] = a[k]
    return scale, True


@nb.njit(cache=True)
def _project_kernel(zp, tol, max_iter):
    """Projection for ``m >= n``: start from the column-only projection
    (beta_k = threshold of column k, alpha = 0), then projected Newton.
    The first element of the result is False (and nothing is computed) if
    ``zp`` has a non-finite entry."""
    m, n = zp.shape
    alpha = np.zeros(m)
    beta = np.empty(n)
    scale, finite = _column_thresholds(zp, beta)
    if not finite:
        return False, zp, alpha, beta, np.inf, 0, 0, 0, 0, 0, tol
    res, it, nn, nr, ns, nls, tol_used = _dual_solve(zp, alpha, beta, tol, max_iter, scale)
    return True, _primal_from_dual(zp, alpha, beta), alpha, beta, res, it, nn, nr, ns, nls, tol_used


# ---------------------------------------------------------------------------
# public projection API
# ---------------------------------------------------------------------------


def project_matching(zp, tol=1e-10, max_iter=20000, return_info=False):
    """Euclidean projection onto the bipartite matching polytope (default, exact).

    Solves (thesis sec. 2.4.1.2)

    .. math::
        \\min_z \\tfrac12 \\lVert z - z' \\rVert^2 \\quad\\text{s.t.}\\quad
        0 \\le z_{jk} \\le 1,\\; \\textstyle\\sum_k z_{jk} \\le 1,\\;
        \\sum_j z_{jk} \\le 1

    through its dual: with row multipliers :math:`\\alpha_j \\ge 0` and column
    multipliers :math:`\\beta_k \\ge 0` the primal point is
    :math:`z_{jk} = \\max(z'_{jk} - \\alpha_j - \\beta_k, 0)` (the bound
    :math:`z \\le 1` is implied by the others), and the dual is a
    bound-constrained convex piecewise-quadratic problem.  It is solved by a
    projected semismooth Newton method (Bertsekas' projected Newton with an
    Armijo search along the projected path) whose Newton systems -- signless
    Laplacians of the graph of the non-zero entries -- are solved exactly by
    a Cholesky factorisation of their Schur complement over the shorter side;
    directions along which the dual is linear (singular components) are
    followed exactly to the next breakpoint.  The start is the column-only
    projection.  Once the active set is identified the Newton step is exact,
    so the iteration ends with a KKT residual at rounding level, typically
    after 3-7 iterations on random data (Numba compiled; ~0.05 ms at 30 x 30).

    Parameters
    ----------
    zp : array_like, shape (m, n)
        The point :math:`z'` to project (finite float values).
    tol : float
        Stopping tolerance on the KKT residual of the multipliers: every
        row/column sum of :math:`\\max(z' - \\alpha - \\beta, 0)` is at most
        ``1 + tol``, and for every constraint ``min(multiplier, slack) <= tol``
        (complementary slackness).  It is raised to the rounding floor
        ``4 * eps * max|z'| * max(m, n)`` of those sums (``eps`` = 2.2e-16)
        for inputs of large magnitude (e.g. 1e6: ~1e-9 * max(m, n)); the value
        used is reported as ``tol_used``.
    max_iter : int
        Maximum number of iterations; a ``RuntimeWarning`` is issued if the
        tolerance is not reached (never observed in tests).
    return_info : bool
        Also return a dict with ``alpha``, ``beta`` (the optimal multipliers of
        the row and column constraints), ``residual``, ``tol_used``,
        ``iterations`` (= ``newton_steps`` + ``ray_steps`` + ``sweeps``),
        ``newton_steps``, ``ray_steps`` (exact steps along linear pieces of the
        dual), ``sweeps`` (safeguard block-coordinate sweeps, normally 0) and
        ``line_search_evals``.

    Returns
    -------
    z : ndarray, shape (m, n)
        The projection.  It is feasible: ``0 <= z <= 1`` and every row/column
        sum is ``<= 1`` up to one rounding error (rows/columns exceeding 1 by at
        most ``tol`` are rescaled).  In tests it agrees with OSQP (polished)
        to ~1e-15 and with an interior-point solver to the latter's accuracy.

    Raises
    ------
    ValueError
        If ``zp`` is not 2-D, is complex, contains NaN/inf, or holds values beyond
        :data:`MAX_MAGNITUDE` (1e15) in magnitude, which float64 cannot resolve.
    """
    if not (type(zp) is np.ndarray and zp.dtype == np.float64 and zp.ndim == 2):
        zp = _as_matrix(zp, "zp")  # conversions and checks (fast path: finiteness checked in Numba)
    m, n = zp.shape
    if zp.size == 0:
        z = np.zeros(zp.shape)
        info = dict(alpha=np.zeros(m), beta=np.zeros(n), residual=0.0, tol_used=float(tol),
                    iterations=0, newton_steps=0, ray_steps=0, sweeps=0, line_search_evals=0)
        return (z, info) if return_info else z
    # Work with m >= n: the Newton system is a Schur complement over columns.
    transposed = n > m
    a = np.ascontiguousarray(zp.T if transposed else zp)
    try:
        finite, z, alpha, beta, res, it, nn, nr, ns, nls, tol_used = _project_kernel(
            a, float(tol), int(max_iter))
    except ZeroDivisionError:   # a step below float64's resolution at this magnitude
        _as_matrix(zp, "zp")
        check_magnitude(a, "zp")
        raise
    if tol_used > 4.0 * 2.220446049250313e-16 * MAX_MAGNITUDE * max(m, n):
        check_magnitude(a, "zp")   # tol_used is raised with max|zp|: free for the others
    if not finite:
        _as_matrix(zp, "zp")  # raises ValueError (NaN / infinite values)
        raise ValueError("zp contains non-finite values")  # not reached
    if res > tol_used:
        warnings.warn(
            f"project_matching: KKT residual {res:.3g} > tol={tol_used:g} after {it} iterations",
            RuntimeWarning,
            stacklevel=2,
        )
    if transposed:
        z = z.T.copy()
        alpha, beta = beta, alpha
    if return_info:
        return z, dict(alpha=alpha, beta=beta, residual=float(res), tol_used=float(tol_used),
                       iterations=int(it), newton_steps=int(nn), ray_steps=int(nr),
                       sweeps=int(ns), line_search_evals=int(nls))
    return z


def project_matching_batch(matrices, **kwargs):
    """Project each matrix of a list onto its matching polytope.

    Convenience wrapper: ``[project_matching(zp, **kwargs) for zp in matrices]``.
    """
    return [project_matching(zp, **kwargs) for zp in matrices]

