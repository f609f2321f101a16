"""Coordinate ascent on the dual of the min-cut projection (eq. 2.22), Numba kernels.

It guesses the structure (fused groups) of the projection, which
:mod:`._active_set` then makes exact.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._decode import _THIRD

# ------------------------------------------------------------- projection
@nb.njit(cache=True)
def _clip01(x):
    return min(max(x, 0.0), 1.0)


@nb.njit(cache=True)
def _g(p, A, B, a, side):
    """``R(p) - h*'(p)`` for one edge (see :func:`_edge_update`).

    ``R(p) = clip(A - p) - clip(B + p)``; ``h*'`` on the branch ``side``:
    ``+1``: ``p + a`` (a > 0, p > 0), ``-1``: ``p - a`` (a > 0, p < 0),
    ``0``: ``sign(p) max(|p| + a, 0)`` (a <= 0).
    """
    r = _clip01(A - p) - _clip01(B + p)
    if side == 1:
        return r - (p + a)
    if side == -1:
        return r - (p - a)
    t = abs(p) + a
    if t <= 0.0:
        return r
    return r - t if p > 0 else r + t


@nb.njit(cache=True, inline="always")
def _bracket(b, A, B, a, side, lo, hi, glo, ghi):
    """Tighten the bracket ``[lo, hi]`` (``g(lo) >= 0 >= g(hi)``) with point ``b``."""
    if lo < b < hi:
        gb = _g(b, A, B, a, side)
        if gb >= 0.0:
            return b, hi, gb, ghi
        return lo, b, glo, gb
    return lo, hi, glo, ghi


@nb.njit(cache=True, inline="always")
def _edge_update(A, B, a, p_old, omega):
    """Exact maximisation of the dual over one edge flow ``p`` (others fixed).

    With the node values ``z_j = clip(A - p)``, ``z_k = clip(B + p)``, the
    optimality condition is ``z_j - z_k in d h*(p)``, where
    ``h*(p) = 1/2 (|p| + a)_+^2 - a^2/2`` is the conjugate of the squared
    hinge ``h(d) = 1/2 (|d| - a)_+^2`` of the eliminated edge variable.
    The left side is non-increasing and the right side non-decreasing and
    piecewise linear in ``p`` with at most six breakpoints, so the root is
    bracketed by the breakpoints and found exactly by linear interpolation
    (the difference is linear between consecutive breakpoints).

    Fast path: when both node values stay strictly inside (0, 1) at the root,
    ``R(p) = A - B - 2p`` and the root of the piece of ``h*'`` it falls on is
    closed-form (``(A - B)/2`` on the flat piece ``|p| <= -a``, ``(A - B -+ a)/3``
    on the sloped ones, 0 at the kink of ``a > 0``); the brackets are only
    searched when a node is clipped.
    """
    d = A - B
    kink = False
    if a <= 0.0:
        if abs(d) <= -2.0 * a:
            root, plo, phi = 0.5 * d, a, -a
        elif d > 0.0:
            root, plo, phi = (d - a) * _THIRD, -a, np.inf
        else:
            root, plo, phi = (d + a) * _THIRD, -np.inf, a
    elif abs(d) <= a:
        root, plo, phi, kink = 0.0, 0.0, 0.0, True
    elif d > 0.0:
        root, plo, phi = (d - a) * _THIRD, 0.0, np.inf
    else:
        root, plo, phi = (d + a) * _THIRD, -np.inf, 0.0
    if 0.0 < A - root < 1.0 and 0.0 < B + root < 1.0:
        if omega != 1.0 and not kink:
            over = p_old + omega * (root - p_old)
            if plo <= over <= phi and 0.0 <= A - over <= 1.0 and 0.0 <= B + over <= 1.0:
                return over
        return root
    # both nodes at the same bound for every p of an interval on which h*' = 0
    # (the flat piece |p| <= -a, or p = 0 when a > 0): g = 0 there, so every such
    # p is a maximiser; keep the one closest to p_old (as the bracket search does)
    fl, fh = (a, -a) if a <= 0.0 else (0.0, 0.0)
    if A + B >= 2.0:  # both at 1 for p in [1 - B, A - 1]
        lo1, hi1 = max(1.0 - B, fl), min(A - 1.0, fh)
        if lo1 <= hi1:
            return min(max(p_old, lo1), hi1)
    elif A + B <= 0.0:  # both at 0 for p in [A, -B]
        lo1, hi1 = max(A, fl), min(-B, fh)
        if lo1 <= hi1:
            return min(max(p_old, lo1), hi1)
    if a > 0.0:
        r0 = _clip01(A) - _clip01(B)
        if -a <= r0 <= a:
            return 0.0
        if r0 > a:
            side = 1
            lo, hi = 0.0, r0 - a
        else:
            side = -1
            lo, hi = r0 + a, 0.0
    else:
        side = 0
        lo, hi = a - 1.0, 1.0 - a  # |p| <= |a| + 1 since |z_j - z_k| <= 1
    glo = _g(lo, A, B, a, side)
    ghi = _g(hi, A, B, a, side)
    lo, hi, glo, ghi = _bracket(A - 1.0, A, B, a, side, lo, hi, glo, ghi)
    lo, hi, glo, ghi = _bracket(A, A, B, a, side, lo, hi, glo, ghi)
    lo, hi, glo, ghi = _bracket(-B, A, B, a, side, lo, hi, glo, ghi)
    lo, hi, glo, ghi = _bracket(1.0 - B, A, B, a, side, lo, hi, glo, ghi)
    if side == 0:
        lo, hi, glo, ghi = _bracket(a, A, B, a, side, lo, hi, glo, ghi)
        lo, hi, glo, ghi = _bracket(-a, A, B, a, side, lo, hi, glo, ghi)
    if glo <= 0.0:  # g(lo) == 0
        if ghi >= 0.0:  # flat zero piece: stay as close as possible to p_old
            return min(max(p_old, lo), hi)
        return lo
    if ghi >= 0.0:
        return hi
    root = lo + (hi - lo) * glo / (glo - ghi)
    # Over-relaxation (SOR): step past the root by (omega - 1) times the move,
    # but only inside the bracket, where the 1-D dual is one quadratic piece.
    # Fixed points are unchanged: p_old == root iff the step is zero.
    if omega != 1.0:
        over = p_old + omega * (root - p_old)
        if lo <= over <= hi:
            return over
    return root


@nb.njit(cache=True)
def _project_kernel(zp, a_e, ej, ek, p, tol, max_iter, omega):
    n = zp.size
    m = a_e.size
    u = zp.copy()  # u = z' - D'p
    for e in range(m):
        u[ej[e]] -= p[e]
        u[ek[e]] += p[e]
    it = 0
    delta_max = 0.0
    for it in range(1, max_iter + 1):
        delta_max = 0.0
        for e in range(m):
            j = ej[e]
            k = ek[e]
            pe = p[e]
            pn = _edge_update(u[j] + pe, u[k] - pe, a_e[e], pe, omega)
            d = pn - pe
            if d != 0.0:
                p[e] = pn
                u[j] -= d
                u[k] += d
                if abs(d) > delta_max:
                    delta_max = abs(d)
        if delta_max <= tol:
            break
    z = np.empty(n)
    for j in range(n):
        z[j] = _clip01(u[j])
    return z, it, delta_max


# ------------------------------------------------ exact active-set polish
@nb.njit(cache=True)
def _lap_matvec(diag, eu, ev, y, out):
    """``out = (diag(diag) + L) y`` for the Laplacian ``L`` of the edges ``(eu, ev)``."""
    for i in range(diag.size):
        out[i] = diag[i] * y[i]
    for e in range(eu.size):
        t = y[eu[e]] - y[ev[e]]
        out[eu[e]] += t
        out[ev[e]] -= t


@nb.njit(cache=True)
def _edge_cg(diag, eu, ev, rhs, x, tol, max_iter):
    """Jacobi-preconditioned conjugate gradients for ``(diag(diag) + L) x = rhs``.

    ``L = sum_e (e_u - e_v)(e_u - e_v)'`` is the Laplacian of the edge list
    ``(eu, ev)``; it may be singular (then ``rhs`` must lie in the range and
    any solution is returned).  ``x`` is the start and is overwritten.
    Stops when ``||r||_inf <= tol``.  Returns the number of iterations.
    """
    n = diag.size
    m = eu.size
    dg = diag.copy()
    for e in range(m):
        dg[eu[e]] += 1.0
        dg[ev[e]] += 1.0
    for i in range(n):
        if dg[i] <= 0.0:
            dg[i] = 1.0

    r = np.empty(n)
    q = np.empty(n)
    _lap_matvec(diag, eu, ev, x, q)
    rmax = 0.0
    for i in range(n):
        r[i] = rhs[i] - q[i]
        rmax = max(rmax, abs(r[i]))
    if rmax <= tol:
        return 0
    s = r / dg
    d = s.copy()
    rs = np.dot(r, s)
    for it in range(1, max_iter + 1):
        _lap_matvec(diag, eu, ev, d, q)
        dq = np.dot(d, q)
        if dq <= 0.0:
            return it
        alpha = rs / dq
        rmax = 0.0
        for i in range(n):
            x[i] += alpha * d[i]
            r[i] -= alpha * q[i]
            rmax = max(rmax, abs(r[i]))
        if rmax <= tol:
            return it
        for i in range(n):
            s[i] = r[i] / dg[i]
        rs_new = np.dot(r, s)
        beta = rs_new / rs
        rs = rs_new
        for i in range(n):
            d[i] = s[i] + beta * d[i]
    return max_iter


@nb.njit(cache=True)
def _kkt_residual(zp, bp, ej, ek, z, p):
    """Largest violation of the optimality conditions of the node problem.

    With ``u = z' - D'p``: ``|z_j - clip(u_j)|`` on the nodes and
    ``|d - prox_h(d + p)|`` on the edges (``d = z_j - z_k``), which vanish
    exactly when ``z = clip(z' - D'p)`` and ``p in dh(d)``.
    """
    n = zp.size
    u = zp.copy()
    for e in range(ej.size):
        u[ej[e]] -= p[e]
        u[ek[e]] += p[e]
    res = 0.0
    for j in range(n):
        res = max(res, abs(z[j] - _clip01(u[j])))
    for e in range(ej.size):
        d = z[ej[e]] - z[ek[e]]
        x = d + p[e]
        b = bp[e]
        ax = abs(x)
        if b >= 0.0:
            pr = x if ax <= b else np.sign(x) * (ax + b) / 2.0
        else:
            pr = np.sign(x) * max(ax + b, 0.0) / 2.0
        res = max(res, abs(d - pr))
    return res

