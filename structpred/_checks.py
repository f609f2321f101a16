"""Argument checks shared by every estimator of the toolkit (alignment, segmentation,
sequence labelling, topics): one wording for each class of bad hyperparameter, raised
before any work, in the estimator's terms rather than numpy's (``int()`` truncating 2.5,
numpy's "expected non-negative integer" for a negative seed)."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_whole", "check_seed"]


def check_whole(name, value, lo=1, hi=None):
    """``ValueError`` unless ``value`` is an integer (not a bool, not 2.5, which ``int()``
    would cut to 2) of at least ``lo`` (and at most ``hi``, a cap that keeps a typo such
    as ``10**12`` iterations from running for ever)."""
    whole = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if hi is None:
        if not whole or value < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")
    elif not whole or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi:,}, got {value!r}")


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
