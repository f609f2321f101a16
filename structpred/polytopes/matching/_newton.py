"""Projected semismooth Newton steps on the dual of the matching projection (Numba kernels).

The dual of ``min 1/2 ||z - z'||^2`` over the matching polytope has one multiplier per
row and column; these kernels take exact Newton steps (Cholesky of a Schur complement)
and exact line searches along the dual's linear pieces.  Used by
:func:`structpred.polytopes.matching.project_matching`.
"""

from __future__ import annotations

import numba as nb
import numpy as np


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

