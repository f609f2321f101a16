"""The largest values a Euclidean projection onto a polytope of [0, 1] points can resolve.

The projection lies in [0, 1], and float64 resolves ``z' - multipliers`` there only to about
``2.2e-16 * max|z'|``: beyond :data:`MAX_MAGNITUDE` the error is of order 1 (the matching
kernel's steps vanish, a ``ZeroDivisionError``; the min-cost flow's integer costs lose every
difference).  The matching and chain projections refuse such points by :func:`check_magnitude`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_MAGNITUDE", "MagnitudeError", "check_magnitude"]

#: the magnitude of ``zp`` beyond which the projection's steps fall below float64's
#: resolution (a ``ZeroDivisionError`` inside the kernel, reported as ``ValueError``)
MAX_MAGNITUDE = 1e15


class MagnitudeError(ValueError):
    """A point too large (or infinite) for a projection to resolve: inside a learner, the
    sign of a step too large for the scores (:func:`structpred.run_learner` says so)."""


def check_magnitude(zp, name="zp"):
    """``ValueError`` when ``zp`` holds values beyond :data:`MAX_MAGNITUDE`: the
    projection lies in [0, 1], and float64 resolves ``z' - alpha - beta`` there only to about
    ``2.2e-16 * max|z'|``, an error of order 1 (the kernel's steps also vanish: a
    ``ZeroDivisionError``; the flow's integer costs lose every difference)."""
    top = float(np.abs(zp).max()) if zp.size else 0.0
    if top > MAX_MAGNITUDE:
        raise MagnitudeError(f"{name} holds values up to {top:.3g} in magnitude: beyond "
                         f"{MAX_MAGNITUDE:.0e} float64 cannot resolve the projection (which "
                         "lies in [0, 1]); rescale the scores")
