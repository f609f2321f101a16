"""Input validation and the constraint violation of the matching polytope.
"""

from __future__ import annotations

import numpy as np


__all__ = ['matching_violation']


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

