"""Decomposable structured losses written as linear functions of the encoding z.

A loss that decomposes over the binary variables of the encoding can be
written ``l(y_i, y') = d_i + c_i' z(y')`` (thesis eq. 2.12), which is what
turns loss-augmented inference into an LP over the same polytope as
prediction.  Both alignment and segmentation use the weighted Hamming loss
below.
"""

from __future__ import annotations

import numpy as np

from ._checks import unmasked

__all__ = ["weighted_hamming_terms", "hamming_loss"]


def weighted_hamming_terms(z_gold, cost_pos=1.0, cost_neg=1.0):
    """Linear terms of the weighted Hamming loss (thesis eq. 2.10).

    With false positives costing ``c+`` and false negatives ``c-``,

    .. math::
        l(y, y') = \\sum_{e} c^- y_e (1 - y'_e) + c^+ y'_e (1 - y_e)
                 = \\underbrace{\\sum_e c^- y_e}_{d}
                   + \\sum_e \\underbrace{[c^+ - (c^- + c^+) y_e]}_{c_e} y'_e .

    Parameters
    ----------
    z_gold : array_like of {0, 1}
        Encoding z(y) of the target structure.
    cost_pos, cost_neg : float or array_like
        ``c+`` (cost of a false positive) and ``c-`` (cost of a false
        negative).  Arrays broadcast against ``z_gold``, which is how
        per-variable weights (for example class-balanced segmentation) are
        expressed.

    Returns
    -------
    c : ndarray
        The loss vector ``c_i``.
    d : float
        The constant ``d_i``.
    """
    y = np.asarray(unmasked(z_gold, "z_gold"), dtype=np.float64)
    cp = _costs("cost_pos", cost_pos, y.shape)
    cn = _costs("cost_neg", cost_neg, y.shape)
    if np.any(cp < 0) or np.any(cn < 0):
        raise ValueError("loss costs must be non-negative")
    c = cp - (cn + cp) * y
    d = float(np.sum(cn * y))
    return c, d


def _costs(name, value, shape):
    """``value`` as float64 costs broadcast to ``shape``; ``ValueError`` naming ``name`` for
    a value that is not numbers (``float()``'s "could not convert"), an array that does not
    broadcast (numpy's "operands could not be broadcast together with remapped shapes") and
    NaN or infinite costs (``None`` and NaN gave a loss vector of NaN, silently)."""
    unmasked(value, name)
    try:
        if value is None:   # float64 reads it as NaN
            raise TypeError
        arr = np.broadcast_to(np.asarray(value, dtype=np.float64), shape)
    except (TypeError, ValueError):
        got = np.shape(value) if isinstance(value, (np.ndarray, list, tuple)) else None
        raise ValueError(f"{name} must be a number >= 0 or an array of them that broadcasts "
                         f"to z_gold's shape {shape}, got "
                         + (f"shape {got}" if got is not None else f"{value!r:.60}")) from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {float(arr[~np.isfinite(arr)][0])}")
    return arr


def hamming_loss(z_gold, z_pred, cost_pos=1.0, cost_neg=1.0):
    """Value of the weighted Hamming loss of eq. 2.10 for 0/1 (or fractional) z."""
    c, d = weighted_hamming_terms(z_gold, cost_pos, cost_neg)
    z = np.asarray(unmasked(z_pred, "z_pred"), dtype=np.float64)
    if z.shape != c.shape:   # numpy's "shapes (2,) and (3,) not aligned" before
        raise ValueError(f"z_pred has shape {z.shape} and z_gold {c.shape}: the two encodings "
                         "must describe the same variables")
    return d + float(np.dot(c.ravel(), z.ravel()))
