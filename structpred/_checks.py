"""Argument checks shared by every estimator of the toolkit (alignment, segmentation,
sequence labelling, topics): one wording for each class of bad hyperparameter, raised
before any work, in the estimator's terms rather than numpy's (``int()`` truncating 2.5,
numpy's "expected non-negative integer" for a negative seed)."""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["check_whole", "check_number", "check_seed"]


def check_whole(name, value, lo=1):
    """``ValueError`` unless ``value`` is an integer (not a bool, not 2.5, which ``int()``
    would cut to 2) of at least ``lo``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")


def check_number(name, value, lo=0.0, strict=False, infinite=False):
    """``ValueError`` unless ``value`` is a real number (not a bool, a string or NaN) of
    at least ``lo`` (above it with ``strict``), finite unless ``infinite`` (a cost of NaN was
    a learner's "zp contains NaN values", a negative one a "loss costs" error)."""
    ok = (not isinstance(value, bool) and isinstance(value, numbers.Real)
          and not math.isnan(value) and (infinite or math.isfinite(value))
          and (value > lo if strict else value >= lo))
    if not ok:
        kind = "a number" if infinite else "a finite number"
        raise ValueError(f"{name} must be {kind} {'>' if strict else '>='} {lo:g}, "
                         f"got {value!r}")


def check_seed(value, name="random_state", seed_sequence=False):
    """``ValueError`` unless ``value`` is ``None`` or an integer >= 0 (or, with
    ``seed_sequence``, a :class:`numpy.random.SeedSequence`): what every stochastic
    component takes as its seed."""
    if value is None or (seed_sequence and isinstance(value, np.random.SeedSequence)):
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        kinds = "an integer >= 0, None or a SeedSequence" if seed_sequence else \
            "an integer >= 0 or None"
        raise ValueError(f"{name} must be {kinds}, got {value!r}")
