"""Bipartite matchings: Euclidean projection onto the matching polytope and
max-weight matching decoding (thesis sec. 2.2.3 and sec. 2.4.1.2, fig. 2.3).

For a sentence pair with ``m`` source and ``n`` target words an alignment is
encoded by an ``m x n`` matrix ``z`` (flattened row-major, index ``j*n + k``,
when used as a vector).  The matching polytope is

.. math::
    Z = \\{ z \\in \\mathbb{R}^{m \\times n} : 0 \\le z_{jk} \\le 1,\\;
          \\textstyle\\sum_k z_{jk} \\le 1 \\;\\forall j,\\;
          \\sum_j z_{jk} \\le 1 \\;\\forall k \\},

whose vertices are exactly the partial matchings (the constraint matrix is
totally unimodular).  The dual extragradient method needs the Euclidean
projection

.. math::
    \\Pi_Z(z') = \\arg\\min_{z \\in Z} \\tfrac12 \\lVert z - z' \\rVert^2

twice per example and iteration, so it is the hot spot of training.

Contents
--------
:func:`project_matching`
    Default, exact and fast: projected semismooth Newton method on the dual
    (row and column multipliers), with exact Newton systems (Cholesky of a
    Schur complement) and exact steps along the linear pieces of the dual,
    Numba compiled.
:func:`project_matching_flow`
    The min-cost flow formulation of fig. 2.3 solved with OR-Tools, using a
    piecewise-linear approximation of the quadratic arc costs with
    proximity-scaling refinement, followed by an exact polish.
:func:`project_matching_cvxpy`
    Independent reference QP (cvxpy, OSQP with polishing by default).
:func:`decode_matching`, :func:`matching_lp_value`
    Max-weight partial matching (OR-Tools min-cost flow with integer-scaled
    costs, then a floating-point optimality fix-up).
"""

from __future__ import annotations

import warnings

import numba as nb
import numpy as np

__all__ = [
    "project_matching",
    "project_matching_batch",
    "project_matching_flow",
    "project_matching_cvxpy",
    "decode_matching",
    "matching_lp_value",
    "matching_violation",
]


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------


def _as_matrix(a, name):
    """Return ``a`` as a C-contiguous float64 2-D array or raise ``ValueError``."""
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 2-D array: {exc}") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (m x n), got {arr.ndim}-D with shape {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        bad = "NaN" if np.isnan(arr).any() else "infinite"
        raise ValueError(f"{name} contains {bad} values; all entries must be finite")
    return np.ascontiguousarray(arr)


def matching_violation(z):
    """Largest violation of the constraints of ``Z`` by ``z`` (0 if feasible).

    ``max(-min z, max z - 1, max_j sum_k z_jk - 1, max_k sum_j z_jk - 1, 0)``.
    """
    z = np.asarray(z, dtype=np.float64)
    if z.size == 0:
        return 0.0
    return float(
        max(
            0.0,
            -z.min(),
            z.max() - 1.0,
            z.sum(axis=1).max() - 1.0,
            z.sum(axis=0).max() - 1.0,
        )
    )



# ---------------------------------------------------------------------------
# Numba kernels: projected semismooth Newton on the dual
# ---------------------------------------------------------------------------
#
# The bound z <= 1 is implied by z >= 0 and the row sums, so it is dropped.
# With multipliers alpha_j >= 0 (rows) and beta_k >= 0 (columns) the
# Lagrangian is minimised over z >= 0 by
#     z_jk(alpha, beta) = max(u_jk, 0),   u_jk = z'_jk - alpha_j - beta_k,
# and the dual problem is  min_{alpha, beta >= 0} h(alpha, beta)  with the
# convex, C^1, piecewise-quadratic
#     h = 1/2 sum_jk max(u_jk, 0)^2 + sum_j alpha_j + sum_k beta_k,
#     dh/dalpha_j = 1 - sum_k z_jk,   dh/dbeta_k = 1 - sum_j z_jk.
# A generalised Hessian of h is the signless Laplacian of the bipartite graph
# of the "free" entries (u_jk >= 0):  [[D_r, A], [A^T, D_c]].
#
# Each iteration (Bertsekas' projected Newton method for bound constraints):
#   * multipliers at (or within eps of) 0 whose gradient pushes them below 0
#     are "binding" and take a projected gradient step; the others are free;
#   * connected components of the free-entry graph restricted to the free
#     multipliers that have no free entry to a binding multiplier make the
#     Newton system singular (h is linear along  rows +t, columns -t  on such
#     a component, with slope #rows - #columns):
#       - if the slope is non-zero the component is moved exactly along this
#         ray to the next breakpoint (an entry becomes free or a multiplier
#         reaches 0) -- an exact line minimisation, no Newton step (if a
#         multiplier of the component is already at 0 in the descent
#         direction, that multiplier is pinned instead);
#       - if it is zero one column of the component is pinned, and the
#         solution is afterwards shifted along the ray into alpha, beta >= 0;
#   * otherwise the Newton system of the free multipliers is solved exactly:
#     the row block is diagonal and eliminated, and the Schur complement over
#     the free columns (m >= n is arranged by the caller) is factorised by a
#     Cholesky decomposition; an Armijo line search along the projected path
#     globalises the step (a block-coordinate sweep is the safeguard if it
#     fails).
# The start is the column-only projection (alpha = 0, beta_k = threshold of
# column k).  Once the active set is identified the Newton step is exact, so
# the method stops with a KKT residual at rounding level: typically 3-7
# iterations on normal(0.3, 1) data, each costing a few O(mn) passes plus an
# O(n^3) factorisation.  Inputs of large magnitude need more iterations, mostly
# cheap ray steps (30 x 30: ~20 at scale 10, ~45 at scale 1000).

_FREE = 0
_BIND = 1
_PIN = 2
# floating-point reassociation is only allowed inside the dense Cholesky
# (no inf/NaN assumptions, unlike ``fastmath=True``)
_FASTMATH = {"reassoc", "contract", "nsz", "arcp"}
_EPS = np.finfo(np.float64).eps


@nb.njit(cache=True)
def _block_threshold(row, shift, a0):
    """Exact minimiser over a >= 0 of the dual along one multiplier.

    Solves ``phi(a) = sum_k max(v_k - a, 0) = 1`` with ``v = row - shift``
    (``a = 0`` when ``phi(0) <= 1``) by Newton steps from the left (Michelot's
    algorithm): from any ``a`` left of the root,
    ``a <- (sum_{v_k > a} v_k - 1) / #{v_k > a}`` moves right without
    overshooting (phi is convex), and the root is reached when the support
    no longer changes.  The start is the lower bound ``max(v) - 1`` or the warm
    start ``a0`` (or one tangent step from it when it lies right of the root).
    The passes are branch-free.
    """
    n = row.shape[0]
    s = 0.0
    c = 0
    vmax = -np.inf
    for k in range(n):
        v = row[k] - shift[k]
        s += v if v > 0.0 else 0.0
        c += 1 if v > 0.0 else 0
        vmax = v if v > vmax else vmax
    if s <= 1.0:
        return 0.0
    a = vmax - 1.0
    if a0 > a:
        s0 = 0.0
        c0 = 0
        for k in range(n):
            v = row[k] - shift[k]
            s0 += v if v > a0 else 0.0
            c0 += 1 if v > a0 else 0
        if c0 > 0:
            if s0 - c0 * a0 >= 1.0:
                a = a0  # phi(a0) >= 1: a0 is left of the root
            else:
                a = max(a, (s0 - 1.0) / c0)
    if a > 0.0:
        s = 0.0
        c = 0
        for k in range(n):
            v = row[k] - shift[k]
            s += v if v > a else 0.0
            c += 1 if v > a else 0
    an = 0.0
    for _ in range(n + 2):
        an = (s - 1.0) / c
        s2 = 0.0
        c2 = 0
        for k in range(n):
            v = row[k] - shift[k]
            s2 += v if v > an else 0.0
            c2 += 1 if v > an else 0
        if c2 == c:
            break
        s = s2
        c = c2
    return an if an > 0.0 else 0.0


@nb.njit(cache=True)
def _sweep(zp, zpT, alpha, beta):
    """One exact block-coordinate sweep (all rows, then all columns)."""
    m, n = zp.shape
    for j in range(m):
        alpha[j] = _block_threshold(zp[j], beta, alpha[j])
    for k in range(n):
        beta[k] = _block_threshold(zpT[k], alpha, beta[k])


@nb.njit(cache=True)
def _evaluate(zp, alpha, beta, delta, rs, cs, fidx, Dr, Dc):
    """Dual objective h; fills the row/column sums of z(alpha, beta) and, per
    row, the list of free entries (``u_jk >= -delta``) and their counts.
    (Branch-free inner loop: the index is always written, the count only
    advanced for free entries.)"""
    m, n = zp.shape
    for k in range(n):
        cs[k] = 0.0
        Dc[k] = 0
    h = 0.0
    for j in range(m):
        aj = alpha[j]
        acc = 0.0
        q = 0.0
        cnt = 0
        for k in range(n):
            u = zp[j, k] - aj - beta[k]
            f = 1 if u >= -delta else 0
            fidx[j, cnt] = k
            cnt += f
            Dc[k] += f
            p = u if u > 0.0 else 0.0
            acc += p
            q += p * p
            cs[k] += p
        Dr[j] = cnt
        rs[j] = acc
        h += 0.5 * q + aj
    for k in range(n):
        h += beta[k]
    return h


@nb.njit(cache=True)
def _natural_residual(alpha, beta, rs, cs):
    """KKT residual ``max_i |x_i - max(x_i - grad_i, 0)|`` of the dual.

    Per constraint this is ``sum - 1`` when the row/column sum exceeds 1 and
    ``min(multiplier, 1 - sum)`` otherwise (primal feasibility and
    complementary slackness; stationarity and dual feasibility hold by
    construction of z(alpha, beta) and alpha, beta >= 0).
    """
    r = 0.0
    for j in range(alpha.shape[0]):
        g = 1.0 - rs[j]
        v = -g if g < 0.0 else min(alpha[j], g)
        if v > r:
            r = v
    for k in range(beta.shape[0]):
        g = 1.0 - cs[k]
        v = -g if g < 0.0 else min(beta[k], g)
        if v > r:
            r = v
    return r


@nb.njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@nb.njit(cache=True, fastmath=_FASTMATH)
def _chol_solve(S, rhs, nf):
    """Solve ``S[:nf, :nf] x = rhs[:nf]`` in place (S symmetric PSD) by a
    Cholesky factorisation; a numerically zero pivot pins that unknown at 0
    (cannot happen for the non-singular systems built by the caller, kept as
    a safeguard)."""
    for p in range(nf):
        d = S[p, p]
        for q in range(p):
            d -= S[p, q] * S[p, q]
        if d <= 1e-13 * (1.0 + S[p, p]):
            S[p, p] = 0.0
            for i in range(p + 1, nf):
                S[i, p] = 0.0
            continue
        d = np.sqrt(d)
        S[p, p] = d
        for i in range(p + 1, nf):
            v = S[i, p]
            for q in range(p):
                v -= S[i, q] * S[p, q]
            S[i, p] = v / d
    for p in range(nf):
        if S[p, p] == 0.0:
            rhs[p] = 0.0
            continue
        v = rhs[p]
        for q in range(p):
            v -= S[p, q] * rhs[q]
        rhs[p] = v / S[p, p]
    for p in range(nf - 1, -1, -1):
        if S[p, p] == 0.0:
            rhs[p] = 0.0
            continue
        v = rhs[p]
        for q in range(p + 1, nf):
            v -= S[q, p] * rhs[q]
        rhs[p] = v / S[p, p]


@nb.njit(cache=True)
def _newton_step(zp, alpha, beta, rs, cs, fidx, Dr, Dc, eps, delta, da, db,
                 st, parent, leak, nR, nC, cidx, S, rhs, lst, lo, hi):
    """Search direction of one projected-Newton iteration (see above).

    Fills ``da``/``db`` and the status ``st`` (free / binding / pinned) of the
    m + n multipliers.  Returns ``(mode, pred)``: mode 1 is an exact ray step
    (``da``/``db`` already scaled to the breakpoint, take it as is); mode 0 is
    a Newton direction with ``pred = -grad^T d`` over the non-binding
    multipliers (for the Armijo test).
    """
    m, n = zp.shape
    N = m + n
    for j in range(m):
        g = 1.0 - rs[j]
        st[j] = _BIND if (alpha[j] <= eps and g > 0.0) else _FREE
    for k in range(n):
        g = 1.0 - cs[k]
        st[m + k] = _BIND if (beta[k] <= eps and g > 0.0) else _FREE
    # components of the free-entry graph among free multipliers; "leak" marks
    # components with a free entry to a binding multiplier (non-singular)
    for i in range(N):
        parent[i] = i
        leak[i] = False
        nR[i] = 0
        nC[i] = 0
    for j in range(m):
        fj = st[j] == _FREE
        for p in range(Dr[j]):
            k = fidx[j, p]
            fk = st[m + k] == _FREE
            if fj and fk:
                a = _find(parent, j)
                b = _find(parent, m + k)
                if a != b:
                    parent[a] = b
            elif fj:
                leak[j] = True
            elif fk:
                leak[m + k] = True
    for i in range(N):
        if st[i] == _FREE:
            r = _find(parent, i)
            if i < m:
                nR[r] += 1
            else:
                nC[r] += 1
            if leak[i]:
                leak[r] = True
    any_sing = False
    for i in range(N):
        if st[i] == _FREE and parent[i] == i and not leak[i]:
            any_sing = True
            break
    n_ray = 0
    if any_sing:
        # unbalanced singular components: ray direction (rows by sgn, columns
        # by -sgn, sgn = -1 if more rows than columns); a component whose ray
        # is blocked by a multiplier already at 0 pins that multiplier instead
        for j in range(m):
            da[j] = 0.0
        for k in range(n):
            db[k] = 0.0
        for i in range(N):
            lo[i] = 0.0  # 1.0: component blocked
        for i in range(N):
            if st[i] != _FREE:
                continue
            r = _find(parent, i)
            if leak[r] or nR[r] == nC[r] or lo[r] != 0.0:
                continue
            if i < m:
                if nR[r] > nC[r] and alpha[i] <= 0.0:
                    lo[r] = 1.0
                    st[i] = _PIN
            elif nR[r] < nC[r] and beta[i - m] <= 0.0:
                lo[r] = 1.0
                st[i] = _PIN
        for i in range(N):
            if st[i] != _FREE:
                continue
            r = _find(parent, i)
            if leak[r] or nR[r] == nC[r] or lo[r] != 0.0:
                continue
            sgn = -1.0 if nR[r] > nC[r] else 1.0
            n_ray += 1
            if i < m:
                da[i] = sgn
            else:
                db[i - m] = -sgn
    if n_ray > 0:
        # h decreases linearly (slope |#rows - #columns| per component) along
        # the rays until the first breakpoint: a decreasing multiplier reaches
        # 0 or an entry u_jk < 0 becomes free.  All components move by the same
        # step (moving each to its own breakpoint at once was tried: it causes
        # many more, smaller steps, like simultaneous bidding in an auction).
        tau = np.inf
        for j in range(m):
            if da[j] < 0.0 and alpha[j] < tau:
                tau = alpha[j]
        for k in range(n):
            if db[k] < 0.0 and beta[k] < tau:
                tau = beta[k]
        for j in range(m):
            aj = alpha[j]
            dj = da[j]
            for k in range(n):
                rho = -(dj + db[k])
                if rho > 0.0:
                    u = zp[j, k] - aj - beta[k]
                    if u < -delta:
                        t = -u / rho
                        if t < tau:
                            tau = t
        for j in range(m):
            da[j] *= tau
        for k in range(n):
            db[k] *= tau
        return 1, 0.0
    if any_sing:
        # balanced singular components: pin one column each
        for i in range(N):
            hi[i] = 0.0
        for i in range(N):
            if st[i] == _PIN:
                hi[_find(parent, i)] = 1.0
        for k in range(n):
            i = m + k
            if st[i] != _FREE:
                continue
            r = _find(parent, i)
            if leak[r] or hi[r] != 0.0:
                continue
            st[i] = _PIN
            hi[r] = 1.0
    # Schur complement over the free columns:
    #   S = D_c - sum_j a_j a_j^T / D_j,  rhs = -g_c + sum_j a_j g_j / D_j
    nf = 0
    for k in range(n):
        if st[m + k] == _FREE:
            cidx[k] = nf
            nf += 1
        else:
            cidx[k] = -1
    for a in range(nf):
        for b in range(nf):
            S[a, b] = 0.0
    for k in range(n):
        i = cidx[k]
        if i >= 0:
            S[i, i] = Dc[k]
            rhs[i] = -(1.0 - cs[k])
    for j in range(m):
        if st[j] != _FREE:
            continue
        w = 1.0 / Dr[j]
        gj = w * (1.0 - rs[j])
        L = 0
        for p in range(Dr[j]):
            c = cidx[fidx[j, p]]
            if c >= 0:
                lst[L] = c
                L += 1
        for p in range(L):
            ip = lst[p]
            rhs[ip] += gj
            for q in range(L):
                S[ip, lst[q]] -= w
    _chol_solve(S, rhs, nf)
    for k in range(n):
        s = st[m + k]
        if s == _BIND:
            db[k] = -(1.0 - cs[k])
        elif s == _PIN:
            db[k] = 0.0
        else:
            db[k] = rhs[cidx[k]]
    for j in range(m):
        s = st[j]
        if s == _BIND:
            da[j] = -(1.0 - rs[j])
        elif s == _PIN:
            da[j] = 0.0
        else:
            acc = -(1.0 - rs[j])
            for p in range(Dr[j]):
                k = fidx[j, p]
                if st[m + k] == _FREE:
                    acc -= db[k]
            da[j] = acc / Dr[j]
    if any_sing:
        # shift balanced singular components (alpha + t, beta - t leaves h
        # unchanged) so that their new multipliers are >= 0 where possible
        for i in range(N):
            lo[i] = -np.inf
            hi[i] = np.inf
        for j in range(m):
            if st[j] != _BIND:
                r = _find(parent, j)
                if not leak[r]:
                    v = -(alpha[j] + da[j])
                    if v > lo[r]:
                        lo[r] = v
        for k in range(n):
            if st[m + k] != _BIND:
                r = _find(parent, m + k)
                if not leak[r]:
                    v = beta[k] + db[k]
                    if v < hi[r]:
                        hi[r] = v
        for j in range(m):
            if st[j] != _BIND:
                r = _find(parent, j)
                if not leak[r] and nR[r] == nC[r]:
                    da[j] += min(max(0.0, lo[r]), hi[r])
        for k in range(n):
            if st[m + k] != _BIND:
                r = _find(parent, m + k)
                if not leak[r] and nR[r] == nC[r]:
                    db[k] -= min(max(0.0, lo[r]), hi[r])
    pred = 0.0
    for j in range(m):
        if st[j] != _BIND:
            pred -= (1.0 - rs[j]) * da[j]
    for k in range(n):
        if st[m + k] != _BIND:
            pred -= (1.0 - cs[k]) * db[k]
    return 0, max(pred, 0.0)


@nb.njit(cache=True)
def _dual_solve(zp, alpha, beta, tol, max_iter, scale):
    """Projected semismooth Newton on the dual from ``alpha``, ``beta`` (>= 0,
    updated in place).  Best with ``m >= n`` (the factorised system is n x n).

    ``scale`` is ``max(1, max|z'|)``: the tolerance is raised to the rounding
    floor ``4 eps scale max(m, n)`` of the row/column sums (each of up to
    max(m, n) terms ``z'_jk - alpha_j - beta_k`` carries a rounding error of
    ~eps scale) for large inputs.  Returns ``(residual, iterations,
    newton_steps, ray_steps, sweeps, line_search_evaluations, tol_used)``.
    """
    m, n = zp.shape
    N = m + n
    tol = max(tol, 4.0 * _EPS * scale * max(m, n))
    delta = 1e-13 * scale
    # work buffers (carved out of three allocations)
    fbuf = np.empty(6 * m + 5 * n + 2 * N + n * n)
    rs = fbuf[0:m]
    rs2 = fbuf[m:2 * m]
    a2 = fbuf[2 * m:3 * m]
    da = fbuf[3 * m:4 * m]
    o = 4 * m
    cs = fbuf[o:o + n]
    cs2 = fbuf[o + n:o + 2 * n]
    b2 = fbuf[o + 2 * n:o + 3 * n]
    db = fbuf[o + 3 * n:o + 4 * n]
    rhs = fbuf[o + 4 * n:o + 5 * n]
    o += 5 * n
    lo = fbuf[o:o + N]
    hi = fbuf[o + N:o + 2 * N]
    o += 2 * N
    S = fbuf[o:o + n * n].reshape((n, n))
    ibuf = np.empty(2 * m + 4 * n + 3 * N, np.int64)
    Dr = ibuf[0:m]
    Dr2 = ibuf[m:2 * m]
    o = 2 * m
    Dc = ibuf[o:o + n]
    Dc2 = ibuf[o + n:o + 2 * n]
    cidx = ibuf[o + 2 * n:o + 3 * n]
    lst = ibuf[o + 3 * n:o + 4 * n]
    o += 4 * n
    parent = ibuf[o:o + N]
    nR = ibuf[o + N:o + 2 * N]
    nC = ibuf[o + 2 * N:o + 3 * N]
    fidx = np.empty((2 * m, n), np.int32)
    fidx2 = fidx[m:]
    fidx = fidx[:m]
    st = np.empty(N, np.int8)
    leak = np.empty(N, np.bool_)
    for j in range(m):
        if alpha[j] < 0.0:
            alpha[j] = 0.0
    for k in range(n):
        if beta[k] < 0.0:
            beta[k] = 0.0
    h = _evaluate(zp, alpha, beta, delta, rs, cs, fidx, Dr, Dc)
    r = _natural_residual(alpha, beta, rs, cs)
    it = 0
    n_newton = 0
    n_ray = 0
    n_sweep = 0
    n_ls = 0
    best = r
    stall = 0
    sigma = 1e-4
    swapped = False  # alpha/beta currently live in the work buffers a2/b2
    while r > tol and it < max_iter:
        it += 1
        eps = min(1e-3, r)
        mode, pred = _newton_step(zp, alpha, beta, rs, cs, fidx, Dr, Dc, eps, delta, da, db,
                                  st, parent, leak, nR, nC, cidx, S, rhs, lst, lo, hi)
        if mode == 1:
            n_ray += 1
            for j in range(m):
                x = alpha[j] + da[j]
                alpha[j] = x if x > 0.0 else 0.0
            for k in range(n):
                x = beta[k] + db[k]
                beta[k] = x if x > 0.0 else 0.0
            h = _evaluate(zp, alpha, beta, delta, rs, cs, fidx, Dr, Dc)
            r = _natural_residual(alpha, beta, rs, cs)
            continue
        n_newton += 1
        t = 1.0
        ok = False
        r2 = r
        h2 = h
        for _ls in range(40):
            n_ls += 1
            dec_b = 0.0
            for j in range(m):
                x = alpha[j] + t * da[j]
                a2[j] = x if x > 0.0 else 0.0
                if st[j] == _BIND:
                    dec_b += (1.0 - rs[j]) * (alpha[j] - a2[j])
            for k in range(n):
                x = beta[k] + t * db[k]
                b2[k] = x if x > 0.0 else 0.0
                if st[m + k] == _BIND:
                    dec_b += (1.0 - cs[k]) * (beta[k] - b2[k])
            h2 = _evaluate(zp, a2, b2, delta, rs2, cs2, fidx2, Dr2, Dc2)
            r2 = _natural_residual(a2, b2, rs2, cs2)
            if r2 <= tol or h - h2 >= sigma * (t * pred + dec_b):
                ok = True
                break
            t *= 0.5
        if ok:
            swapped = not swapped
            alpha, a2 = a2, alpha
            beta, b2 = b2, beta
            rs, rs2 = rs2, rs
            cs, cs2 = cs2, cs
            fidx, fidx2 = fidx2, fidx
            Dr, Dr2 = Dr2, Dr
            Dc, Dc2 = Dc2, Dc
            h = h2
            r = r2
        else:
            # safeguard (never needed in tests): exact block-coordinate sweep
            n_sweep += 1
            _sweep(zp, np.ascontiguousarray(zp.T), alpha, beta)
            h = _evaluate(zp, alpha, beta, delta, rs, cs, fidx, Dr, Dc)
            r = _natural_residual(alpha, beta, rs, cs)
        # stop at the rounding floor: no progress for many iterations
        if r < best:
            best = r
            stall = 0
        else:
            stall += 1
            if stall >= 50 and r <= 1e3 * tol:
                break
    if swapped:  # the caller's arrays are a2/b2 now
        a2[:] = alpha
        b2[:] = beta
    return r, it, n_newton, n_ray, n_sweep, n_ls, tol


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
        try:
            x = np.linalg.solve(S, rhs)
            for k in range(n):
                if idx[k] >= 0:
                    dbeta[k] = x[idx[k]]
        except Exception:  # noqa: BLE001 - numerically singular: give up this step
            ok = False
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
        If ``zp`` is not 2-D or contains NaN/inf.
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
    finite, z, alpha, beta, res, it, nn, nr, ns, nls, tol_used = _project_kernel(a, float(tol), int(max_iter))
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
    h = 1.0 / U
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


# ---------------------------------------------------------------------------
# cvxpy reference
# ---------------------------------------------------------------------------

_CVXPY_CACHE = {}

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


def _cvxpy_problem(shape):
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
    normal(0.3, 1) instances, ``scripts/bench_projection.py``): when its
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
    key = (zp.shape, solver)
    if key not in _CVXPY_CACHE:
        _CVXPY_CACHE[key] = _cvxpy_problem(zp.shape)
    prob, P, z = _CVXPY_CACHE[key]
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


# ---------------------------------------------------------------------------
# max-weight matching decoding
# ---------------------------------------------------------------------------


@nb.njit(cache=True)
def _improve_matching(s, y, eps):
    """Cancel improving alternating cycles/paths, in floating point.

    Residual graph (minimising negated gain): nodes are the m sources, the n
    targets and a hub r.  Arcs: j -> k (add edge, cost -s_jk, for unmatched
    pairs with s_jk > 0); k -> j (remove matched edge, cost +s_jk);
    r -> j for free sources and j -> r for matched ones; k -> r for free
    targets and r -> k for matched ones (all cost 0).  Simple cycles of this
    graph are exactly the alternating paths and cycles, so ``y`` is a maximum
    weight matching iff there is no negative cycle.  Bellman-Ford (improvement
    threshold ``eps`` per relaxation) finds one; it is applied if its gain is
    > eps.  Returns the number of cycles cancelled.
    """
    m, n = s.shape
    V = m + n + 1
    r = m + n
    maxe = m * n + 2 * (m + n)
    tail = np.empty(maxe, np.int64)
    head = np.empty(maxe, np.int64)
    w = np.empty(maxe)
    dist = np.empty(V)
    pred = np.empty(V, np.int64)
    cancelled = 0
    for _outer in range(m * n + 1):
        # build residual graph
        E = 0
        rowm = np.full(m, -1, np.int64)
        colm = np.full(n, -1, np.int64)
        for j in range(m):
            for k in range(n):
                if y[j, k]:
                    rowm[j] = k
                    colm[k] = j
        for j in range(m):
            for k in range(n):
                if y[j, k]:
                    tail[E] = m + k
                    head[E] = j
                    w[E] = s[j, k]
                    E += 1
                elif s[j, k] > 0.0:
                    tail[E] = j
                    head[E] = m + k
                    w[E] = -s[j, k]
                    E += 1
        for j in range(m):
            if rowm[j] < 0:
                tail[E] = r
                head[E] = j
            else:
                tail[E] = j
                head[E] = r
            w[E] = 0.0
            E += 1
        for k in range(n):
            if colm[k] < 0:
                tail[E] = m + k
                head[E] = r
            else:
                tail[E] = r
                head[E] = m + k
            w[E] = 0.0
            E += 1
        dist[:] = 0.0
        pred[:] = -1
        last = -1
        for _it in range(V):
            last = -1
            for e in range(E):
                nd = dist[tail[e]] + w[e]
                if nd < dist[head[e]] - eps:
                    dist[head[e]] = nd
                    pred[head[e]] = e
                    last = head[e]
            if last < 0:
                break
        if last < 0:
            return cancelled
        # walk back V steps to land on a cycle of the predecessor graph
        x = last
        for _ in range(V):
            if pred[x] < 0:
                return cancelled
            x = tail[pred[x]]
        # collect the cycle (guarded: the predecessor walk must close within V arcs)
        gain = 0.0
        c = x
        closed = False
        for _ in range(V):
            e = pred[c]
            if e < 0:
                break
            gain -= w[e]
            c = tail[e]
            if c == x:
                closed = True
                break
        if not closed or gain <= eps:
            return cancelled
        c = x
        while True:
            e = pred[c]
            a, b = tail[e], head[e]
            if a < m and m <= b < m + n:
                y[a, b - m] = 1
            elif m <= a < m + n and b < m:
                y[b, a - m] = 0
            c = a
            if c == x:
                break
        cancelled += 1
    return cancelled


_DECODE_COST_BITS = 40


def decode_matching(scores):
    """Maximum-weight partial bipartite matching (exact decoding).

    Solves

    .. math::
        \\max_{y \\in \\{0,1\\}^{m \\times n}} \\sum_{jk} s_{jk} y_{jk}
        \\quad\\text{s.t.}\\quad \\textstyle\\sum_k y_{jk} \\le 1,\\;
        \\sum_j y_{jk} \\le 1,

    i.e. the LP over the matching polytope ``Z`` (integral, thesis sec.
    2.2.3); words may stay unaligned, so only edges with ``s_jk > 0`` can
    ever be chosen (edges with ``s_jk <= 0`` are never selected).

    OR-Tools ``SimpleMinCostFlow`` (source -> rows -> columns -> sink plus a
    zero-cost bypass, unit capacities, arcs only for positive scores) solves
    the problem with integer costs ``round(s_jk * 2**40 / max s)``; the
    rounding can only make the matching suboptimal by at most
    ``min(m, n) * 2**-40 * max s`` (~1e-10 max s).  The result is then fixed
    up in floating point: improving alternating paths/cycles for the
    *float* scores are searched (Bellman-Ford on the residual graph) and
    cancelled until none improves by more than ``1e-13 * max|s|``; the final
    matching is optimal for the float scores to within about
    ``(m + n) * 1e-13 * max|s|``.

    Parameters
    ----------
    scores : array_like, shape (m, n)
        Finite edge scores.

    Returns
    -------
    y : ndarray of int64, shape (m, n)
        0/1 matrix of the chosen edges.

    Raises
    ------
    ValueError
        If ``scores`` is not 2-D or contains NaN/inf.
    """
    from ortools.graph.python import min_cost_flow

    s = _as_matrix(scores, "scores")
    m, n = s.shape
    y = np.zeros((m, n), np.int64)
    if s.size == 0:
        return y
    smax = float(s.max())
    if smax <= 0.0:
        return y
    jj, kk = np.nonzero(s > 0.0)
    # (s / smax first: 2**40 / smax overflows for subnormal smax)
    costs = -np.rint((s[jj, kk] / smax) * 2.0 ** _DECODE_COST_BITS).astype(np.int64)
    flow = min(m, n)
    src, snk = 0, m + n + 1
    smcf = min_cost_flow.SimpleMinCostFlow()
    smcf.add_arcs_with_capacity_and_unit_cost(
        np.full(m, src), np.arange(1, m + 1), np.ones(m, np.int64), np.zeros(m, np.int64)
    )
    smcf.add_arcs_with_capacity_and_unit_cost(
        np.arange(m + 1, m + n + 1), np.full(n, snk), np.ones(n, np.int64), np.zeros(n, np.int64)
    )
    smcf.add_arc_with_capacity_and_unit_cost(src, snk, flow, 0)
    first = smcf.num_arcs()
    smcf.add_arcs_with_capacity_and_unit_cost(
        1 + jj, m + 1 + kk, np.ones(jj.size, np.int64), costs
    )
    smcf.set_node_supply(src, flow)
    smcf.set_node_supply(snk, -flow)
    status = smcf.solve()
    if status != smcf.OPTIMAL:
        raise RuntimeError(f"OR-Tools min-cost flow failed with status {status}")
    fl = smcf.flows(np.arange(first, first + jj.size))
    sel = fl > 0
    y[jj[sel], kk[sel]] = 1
    eps = 1e-13 * float(np.abs(s).max())
    _improve_matching(s, y, eps)
    return y


def matching_lp_value(scores):
    """Optimal value :math:`\\max_{z \\in Z} s^\\top z` of the matching LP.

    The polytope is integral, so this is the weight of the maximum-weight
    partial matching returned by :func:`decode_matching`.
    """
    s = _as_matrix(scores, "scores")
    y = decode_matching(s)
    return float((s * y).sum())
