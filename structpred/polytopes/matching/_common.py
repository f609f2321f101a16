"""Input validation and the constraint violation of the matching polytope.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..._checks import unmasked


__all__ = ['matching_violation']


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------


def _as_matrix(a, name, ndim=2):
    """Return ``a`` as a C-contiguous float64 array of ``ndim`` dimensions (2: ``m x n``,
    1: a vector) or raise ``ValueError``; a scipy sparse matrix is made dense (numpy read it
    as one object: "setting an array element with a sequence")."""
    if sp.issparse(a):
        a = a.toarray()
    unmasked(a, name)
    if np.iscomplexobj(a):   # numpy dropped the imaginary parts with a ComplexWarning
        raise ValueError(f"{name} must be a real {ndim}-D array, got complex values")
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric {ndim}-D array: {exc}") from None
    if arr.ndim != ndim:
        shape = "m x n" if ndim == 2 else "n"
        raise ValueError(f"{name} must be a {ndim}-D array ({shape}), got {arr.ndim}-D with "
                         f"shape {arr.shape}")
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

