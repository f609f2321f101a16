"""Multi-class (Crammer-Singer) SVM dual with per-document multipliers, as MedLDA needs it.

Step A of Monte Carlo MedLDA (Jiang, Zhu, Sun & Xing, NIPS 2012, eqs. 10-12): given the
document features ``f_d = E[z-bar_d]`` (K-vectors) and labels ``y_d``, with the joint
feature ``f(y, f_d)`` (``f_d`` in block ``y`` of an ``M K`` vector) and
``Delta f(y, f_d) = f(y_d, f_d) - f(y, f_d)``, solve

.. math::
    \\max_\\lambda\\; -\\tfrac12 \\kappa^\\top\\kappa + \\sum_d \\sum_y \\lambda_d^y \\ell_d(y)
    \\quad\\text{s.t.}\\quad \\lambda_d^y \\ge 0,\\; \\sum_y \\lambda_d^y \\le C / D,
    \\qquad \\kappa = \\sum_d \\sum_y \\lambda_d^y \\Delta f(y, f_d)        \\quad (12)

with the cost ``l_d(y) = l * I(y != y_d)``.  It is the dual of the primal

.. math::
    \\min_{\\eta, \\xi}\\; \\tfrac12 \\|\\eta\\|^2 + \\frac{C}{D} \\sum_d \\xi_d
    \\quad\\text{s.t.}\\quad \\eta^\\top \\Delta f(y, f_d) \\ge \\ell_d(y) - \\xi_d,\\ \\xi_d \\ge 0,

and ``p(eta) = N(kappa, I)`` (eq. 11).  ``lambda_d^{y_d}`` multiplies ``Delta f = 0`` and
``l = 0``, so it is fixed at 0.

Solver: dual block-coordinate ascent, one block per document (numba).  With ``s = ||f_d||^2``
the Hessian of block ``d`` is ``s (I + 1 1^T)`` on the ``M - 1`` free multipliers, so the
block problem ``max_lam b^T lam - s/2 (||lam||^2 + (1^T lam)^2)`` over the scaled simplex
``{lam >= 0, 1^T lam <= C/D}`` is solved *exactly*: its KKT conditions give
``lam_y = (b_y - tau)_+ / s`` with a threshold ``tau`` that solves one piecewise-linear
equation (``tau = sum_y (b_y - tau)_+`` when the sum constraint is slack, else
``sum_y (b_y - tau)_+ = s C / D``), found after sorting ``b``.  Epochs visit the documents
in a random order and stop when the duality gap falls below ``tol`` (relative).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba as nb
import numpy as np
import scipy.sparse as sp

from structpred import seed_generator

__all__ = ["MulticlassSVMResult", "fit_multiclass_svm_dual", "svm_objectives", "kappa_from_lambda"]


@dataclass
class MulticlassSVMResult:
    """Solution of eq. 12.

    Attributes
    ----------
    kappa : ndarray (M, K)
        Posterior mean of ``eta`` (row ``y`` is ``kappa_y``).
    lam : scipy.sparse.csr_matrix (D, M)
        The multipliers ``lambda_d^y`` (zero on ``y = y_d``).
    dual, primal, gap : float
        Dual objective (eq. 12), primal objective at ``eta = kappa`` and their difference.
    n_epochs : int
    status : str
        ``"converged"`` (relative gap below ``tol``) or ``"max_iter"``.
    history : list of (epoch, primal, dual)
    """

    kappa: np.ndarray
    lam: sp.csr_matrix
    dual: float
    primal: float
    gap: float
    n_epochs: int
    status: str
    history: list = field(default_factory=list)


@nb.njit(cache=True)
def _solve_block(b, s, cap, out):
    """``argmax_{lam >= 0, sum lam <= cap} b'lam - s/2 (||lam||^2 + (sum lam)^2)`` into ``out``.

    Stationarity: ``lam_y = (b_y - tau)_+ / s`` with ``tau = s sum(lam) + mu`` and ``mu >= 0``
    the multiplier of the sum constraint.  Case ``mu = 0``: ``tau = sum_y (b_y - tau)_+``;
    if that gives ``sum lam > cap``, then ``sum_y (b_y - tau)_+ = s cap``.
    """
    m = b.size
    for i in range(m):
        out[i] = 0.0
    if cap <= 0.0 or s <= 0.0:
        return
    srt = -np.sort(-b)          # descending
    if srt[0] <= 0.0:
        return
    # case mu = 0: tau = (sum of the top r+1 of b) / (r + 2) for the largest r with
    # b_(r) > that value (the admissible r form a prefix, as in the simplex projection,
    # so taking the last one is robust to ties and round-off)
    tau = 0.0
    csum = 0.0
    for r in range(m):
        csum += srt[r]
        t = csum / (r + 2.0)
        if srt[r] > t:
            tau = t
    total = 0.0
    for i in range(m):
        if b[i] > tau:
            total += b[i] - tau
    if total / s > cap:
        # sum constraint active: sum_{top r+1} (b - tau) = s cap, same prefix rule
        target = s * cap
        csum = 0.0
        for r in range(m):
            csum += srt[r]
            t = (csum - target) / (r + 1.0)
            if srt[r] > t:
                tau = t
    for i in range(m):
        if b[i] > tau:
            out[i] = (b[i] - tau) / s


@nb.njit(cache=True)
def _bca_epoch(F, y, cost, cap, lam, kappa, order, sq):
    """One pass of exact block updates over the documents in ``order`` (in place)."""
    D, K = F.shape
    M = kappa.shape[0]
    b = np.empty(M - 1)
    new = np.empty(M - 1)
    idx = np.empty(M - 1, np.int64)
    for o in range(order.size):
        d = order[o]
        s = sq[d]
        if s <= 0.0:
            continue
        yd = y[d]
        j = 0
        old_sum = 0.0
        for c in range(M):
            if c != yd:
                idx[j] = c
                old_sum += lam[d, c]
                j += 1
        # gradient g_y = l - (kappa_yd - kappa_y)' f_d ; b = g + s (lam + 1 sum lam)
        for j in range(M - 1):
            c = idx[j]
            m = 0.0
            for k in range(K):
                m += (kappa[yd, k] - kappa[c, k]) * F[d, k]
            b[j] = cost - m + s * (lam[d, c] + old_sum)
        _solve_block(b, s, cap, new)
        new_sum = 0.0
        for j in range(M - 1):
            c = idx[j]
            delta = new[j] - lam[d, c]
            if delta != 0.0:
                for k in range(K):
                    kappa[c, k] -= delta * F[d, k]
            lam[d, c] = new[j]
            new_sum += new[j]
        dsum = new_sum - old_sum
        if dsum != 0.0:
            for k in range(K):
                kappa[yd, k] += dsum * F[d, k]


@nb.njit(cache=True)
def _kappa(F, y, lam):
    D, K = F.shape
    M = lam.shape[1]
    kappa = np.zeros((M, K))
    for d in range(D):
        tot = 0.0
        for c in range(M):
            a = lam[d, c]
            if a != 0.0:
                tot += a
                for k in range(K):
                    kappa[c, k] -= a * F[d, k]
        if tot != 0.0:
            for k in range(K):
                kappa[y[d], k] += tot * F[d, k]
    return kappa


@nb.njit(cache=True)
def _margins(F, y, kappa, cost):
    """``max_y l_d(y) - kappa' Delta f(y, f_d)`` over ``y != y_d`` for every document."""
    D, K = F.shape
    M = kappa.shape[0]
    out = np.empty(D)
    sc = np.empty(M)
    for d in range(D):
        for c in range(M):
            a = 0.0
            for k in range(K):
                a += kappa[c, k] * F[d, k]
            sc[c] = a
        best = -np.inf
        for c in range(M):
            if c != y[d]:
                best = max(best, cost - (sc[y[d]] - sc[c]))
        out[d] = best
    return out


def kappa_from_lambda(F, y, lam, n_classes):
    """``kappa = sum_d sum_y lambda_d^y Delta f(y, f_d)`` as an (M, K) array."""
    lam = lam.toarray() if sp.issparse(lam) else np.asarray(lam, float)
    if lam.shape[1] != n_classes:
        raise ValueError(f"lam must have {n_classes} columns")
    return _kappa(np.ascontiguousarray(F, dtype=np.float64), np.asarray(y, np.int64),
                  np.ascontiguousarray(lam))


def svm_objectives(F, y, kappa, lam, C, cost):
    """``(primal, dual, xi)``: primal at ``eta = kappa`` (slacks ``xi_d``) and dual (eq. 12)."""
    D = F.shape[0]
    F = np.ascontiguousarray(F, dtype=np.float64)
    xi = np.maximum(_margins(F, np.asarray(y, np.int64), np.ascontiguousarray(kappa), float(cost)), 0.0)
    reg = 0.5 * float(np.sum(kappa * kappa))
    lam_sum = float(lam.sum())
    primal = reg + C / D * float(xi.sum())
    dual = -reg + cost * lam_sum
    return primal, dual, xi


def fit_multiclass_svm_dual(F, y, C, cost=16.0, n_classes=None, lam0=None, tol=1e-4, max_epochs=200,
                            random_state=0):
    """Solve eq. 12 by exact dual block-coordinate ascent.

    Parameters
    ----------
    F : ndarray (D, K)
        Document features (``E[z-bar_d]``).
    y : int ndarray (D,)
        Labels in ``0..M-1``.
    C : float
        ``sum_y lambda_d^y <= C / D``.
    cost : float
        ``l`` in ``l_d(y) = l * I(y != y_d)`` (the paper uses 16).
    n_classes : int or None
        ``M`` (default ``max(y) + 1``).
    lam0 : (D, M) array or sparse matrix or None
        Warm start (projected onto the constraints by the first block updates).
    tol : float
        Stop when ``primal - dual <= tol * max(1, |primal|)``.
    max_epochs : int
    random_state : int, None, numpy RandomState or Generator
        (an instance: the seed :func:`structpred.resolve_seed` draws from it)
        Seeds the document order of each epoch.

    Returns
    -------
    MulticlassSVMResult
    """
    F = np.ascontiguousarray(F, dtype=np.float64)
    if F.ndim != 2 or F.shape[0] == 0:
        raise ValueError(f"F must be a non-empty 2-D array, got shape {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError("F contains NaN or infinite values")
    y = np.asarray(y)
    if y.shape != (F.shape[0],) or not np.issubdtype(y.dtype, np.integer):
        raise ValueError("y must be an integer array with one label per row of F")
    M = int(y.max()) + 1 if n_classes is None else int(n_classes)
    if y.min() < 0 or y.max() >= M or M < 2:
        raise ValueError(f"labels must lie in 0..{M - 1} with at least 2 classes")
    if not (np.isfinite(C) and C >= 0):
        raise ValueError(f"C must be a finite non-negative number, got {C}")
    if not (np.isfinite(cost) and cost >= 0):
        raise ValueError(f"cost must be a finite non-negative number, got {cost}")
    D = F.shape[0]
    y = y.astype(np.int64)
    cap = float(C) / D
    if lam0 is None:
        lam = np.zeros((D, M))
    else:
        lam = lam0.toarray() if sp.issparse(lam0) else np.array(lam0, dtype=np.float64)
        if lam.shape != (D, M):
            raise ValueError(f"lam0 must have shape {(D, M)}, got {lam.shape}")
        lam = np.clip(lam, 0.0, cap)
        lam[np.arange(D), y] = 0.0
        over = lam.sum(axis=1) > cap
        lam[over] *= cap / lam[over].sum(axis=1, keepdims=True)
    kappa = kappa_from_lambda(F, y, lam, M)
    sq = np.einsum("dk,dk->d", F, F)
    rng = seed_generator(random_state, generators=True)   # a RandomState: its drawn seed
    history = []
    status = "max_iter"
    epoch = 0
    primal, dual, _ = svm_objectives(F, y, kappa, lam, C, cost)
    for epoch in range(1, int(max_epochs) + 1):
        _bca_epoch(F, y, float(cost), cap, lam, kappa, rng.permutation(D).astype(np.int64), sq)
        primal, dual, _ = svm_objectives(F, y, kappa, lam, C, cost)
        history.append((epoch, primal, dual))
        if primal - dual <= tol * max(1.0, abs(primal)):
            status = "converged"
            break
    kappa = kappa_from_lambda(F, y, lam, M)       # remove round-off drift of the updates
    primal, dual, _ = svm_objectives(F, y, kappa, lam, C, cost)
    lam[lam < 1e-15 * max(cap, 1e-300)] = 0.0
    return MulticlassSVMResult(kappa=kappa, lam=sp.csr_matrix(lam), dual=dual, primal=primal,
                               gap=primal - dual, n_epochs=epoch, status=status, history=history)
