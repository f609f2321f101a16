"""The probability simplex: its projection and the multiclass problem class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._checks import check_number
from .._example import StructuredExample
from .matching._common import _as_matrix

__all__ = ['SimplexExample', 'project_simplex']


def project_simplex(v):
    """Euclidean projection onto the probability simplex (sort-based, O(n log n)).  ``v``
    must be a non-empty, finite 1-D vector (NaN, ``inf`` and no coordinates were an
    ``IndexError``, a 2-D array numpy's broadcasting error)."""
    v = _as_matrix(v, "v", ndim=1)
    if v.size == 0:
        raise ValueError("v has no coordinates: the simplex of dimension 0 is empty")
    # The projection max(v - tau, 0) is the same for v + t (tau moves with it), and tau lies in
    # [max v - 1, max v): coordinates more than 1 below the largest are 0 whatever their value.
    # Shifted by the largest and cut at -2, the sums below neither overflow (1e308 twice was
    # an IndexError) nor lose the coordinates that count to a far-off one.
    with np.errstate(over="ignore"):   # 1e308 - (-1e308) is -inf: cut at -2 all the same
        v = np.maximum(v - v.max(), -2.0)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    rho = np.flatnonzero(u - css / k > 0)[-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


@dataclass
class SimplexExample(StructuredExample):
    """An example whose outputs are one of ``K`` labels: ``Z`` is the simplex.

    This is multiclass max-margin classification written in the protocol
    (the one-node tree).  ``geometry="entropy"`` uses the Bregman (KL)
    proximal step of sec. 2.4.2, ``T_eta(z, s) ∝ z exp(eta s)``, with the
    centre moved into the interior of the simplex (``smoothing`` towards the
    uniform distribution), as the non-Euclidean dual extragradient requires.
    """

    geometry: str = "euclidean"
    smoothing: float = 0.1

    def __post_init__(self):
        if self.geometry not in ("euclidean", "entropy"):
            raise ValueError(f"unknown geometry {self.geometry!r}")
        if self.geometry == "entropy":   # NaN made every weight NaN, 0 or -1 a centre on
            check_number("smoothing", self.smoothing, strict=True, hi=1.0)   # the boundary
        super().__post_init__()

    def project(self, z):
        return project_simplex(z)

    def decode_scores(self, s):
        z = np.zeros(self.n_vars)
        z[int(np.argmax(s))] = 1.0
        return z

    def constraints(self):
        one = np.ones((1, self.n_vars))
        return sp.csr_matrix(np.vstack([one, -one])), np.array([1.0, -1.0])

    def center(self):
        if self.geometry == "euclidean":
            return self.z_gold
        k = self.n_vars
        return (1 - self.smoothing) * self.z_gold + self.smoothing / k

    def prox(self, z, s, eta):
        if self.geometry == "euclidean":
            return self.project(z + eta * s)
        # KL proximal step: multiplicative update, computed in log space.
        logits = np.log(np.maximum(z, 1e-300)) + eta * s
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()

