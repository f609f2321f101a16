"""The parameter set W and its exact Euclidean projection."""

from __future__ import annotations

from dataclasses import dataclass

import numbers

import numpy as np

from .._checks import check_positive

__all__ = ["L2Ball"]


@dataclass(frozen=True)
class L2Ball:
    """``W = {w : ||w||_2 <= radius, w_j >= 0 for j in nonneg}``.

    ``radius = inf`` is the unregularised problem that the thesis follows
    along its path (sec. 2.6).  Non-negativity on chosen coordinates is what
    keeps min-cut edge potentials associative (eq. 2.5).

    The projection is exact: the non-negativity constraints form a closed
    convex cone K and the ball B is centred at the origin, and for such a
    pair ``P_{K ∩ B}(x) = P_B(P_K(x))``: clip, then rescale
    (thesis sec. 2.4.1.2: ``pi_W(w) = gamma w / max(gamma, ||w||)``).

    Parameters
    ----------
    radius : float
        ``gamma``; ``np.inf`` for no norm constraint.
    nonneg : array_like of int or bool, optional
        Indices (or a boolean mask) of coordinates constrained to be >= 0.
    """

    radius: float = np.inf
    nonneg: tuple = ()

    def __post_init__(self):
        check_positive("radius", self.radius, allow_inf=True)   # "3" was a TypeError
        idx = np.asarray(self.nonneg)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = np.ravel(idx)
        # "no" was int()'s error, 1.5 was cut to 1 and -1 named the last coordinate
        if not all(isinstance(i, numbers.Integral) and not isinstance(i, (bool, np.bool_))
                   and i >= 0 for i in idx.tolist()):
            raise ValueError(f"nonneg must be coordinate indices (integers >= 0) or a "
                             f"boolean mask, got {self.nonneg!r:.60}")
        object.__setattr__(self, "nonneg", tuple(int(i) for i in idx))

    def project(self, w):
        """Euclidean projection of ``w`` onto W (returns a new array)."""
        w = np.array(w, dtype=np.float64, copy=True)
        if self.nonneg:
            idx = np.asarray(self.nonneg)
            w[idx] = np.maximum(w[idx], 0.0)
        if np.isfinite(self.radius):
            norm = np.linalg.norm(w)
            if norm > self.radius:
                w *= self.radius / norm
        return w

    def prox(self, w, s, eta):
        """Euclidean proximal step ``pi_W(w + eta s)``."""
        return self.project(w + eta * np.asarray(s))

    def contains(self, w, tol=1e-9):
        w = np.asarray(w, dtype=np.float64)
        ok = np.linalg.norm(w) <= self.radius * (1 + tol) + tol
        if self.nonneg:
            ok = ok and bool(np.all(w[np.asarray(self.nonneg)] >= -tol))
        return bool(ok)
