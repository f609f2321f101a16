"""Monitoring, model selection along the path, and the solvers' result object."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .._checks import check_flag, check_whole
from ._stream import iterate_examples

__all__ = ["Monitor", "SolverResult", "structured_hinge_loss"]


def structured_hinge_loss(examples, w):
    """Training objective of eq. 2.21: ``sum_i max_y [w'f_i(y) + l_i(y)] - w'f_i(y_i)``.

    Uses exact loss-augmented inference on every example.  ``examples`` may
    also be a backend of :mod:`structpred.learners._executor` (examples on
    other workers): the sum is then computed by its map-reduce.
    """
    if hasattr(examples, "map_reduce"):
        from ._executor import hinge_term

        return float(examples.map_reduce(hinge_term, w)[0])
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)):   # named "scores contains NaN values" by the decoder
        raise ValueError("w contains NaN or infinite weights")
    total = 0.0
    for i, ex in enumerate(iterate_examples(examples)):
        if w.shape != (ex.n_features,):
            raise ValueError(f"w has shape {w.shape}; example {i} has {ex.n_features} features")
        total += ex.hinge_loss(w)
    return float(total)


@dataclass(eq=False)   # compared by identity: ``==`` of its arrays was numpy's "truth
class SolverResult:    # value of an array with more than one element is ambiguous"
    """What every learner returns (in the spirit of ``scipy.optimize.OptimizeResult``).

    Attributes
    ----------
    w : ndarray
        The selected parameters: the best iterate on the validation metric when
        one was monitored (the "unregularised path" selection of sec. 2.6),
        otherwise the final output.
    w_final : ndarray
        The output of the last iteration (for dual extragradient, the running
        average ``u_bar_w``).
    history : dict of lists
        Per monitored iteration: ``iteration``, ``time``, ``w_norm``, and when
        requested ``hinge`` (eq. 2.21) and ``validation``.
    status : int
        0: ran all iterations; 1: stopped early by the monitor's patience;
        2: stopped by the callback.
    message : str
    n_iter : int
        Iterations run.
    best_iter : int or None
        Iteration whose parameters are ``w`` when validation was monitored.
    best_score : float or None
    info : dict
        Solver-specific extras (step size, Lipschitz estimate, ...).
    """

    w: np.ndarray
    w_final: np.ndarray
    history: dict
    status: int
    message: str
    n_iter: int
    best_iter: int | None = None
    best_score: float | None = None
    info: dict = field(default_factory=dict)

    @property
    def success(self):
        return self.status in (0, 1)


def _score(value, t):
    """The validation metric's ``value`` at iteration ``t`` as a float; ``ValueError`` for a
    string, ``None``, an array of several values (Python's ``float()`` errors) and NaN,
    which compares false with every score (the first iterate was kept as the best)."""
    if isinstance(value, (str, bytes, bool)) or np.ndim(value) != 0:
        raise ValueError(f"validation must return a number, got {type(value).__name__} "
                         f"{value!r:.40} at iteration {t}")
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"validation must return a number, got {type(value).__name__} "
                         f"at iteration {t}") from None
    if math.isnan(score):
        raise ValueError(f"validation returned NaN at iteration {t}: no iterate can be "
                         "compared with it")
    return score


class Monitor:
    """Records the quantities of sec. 2.6 along a learner's path.

    Parameters
    ----------
    every : int
        Record every ``every`` iterations (the last iteration is always recorded).
    hinge : bool
        Record the training structured hinge loss (eq. 2.21).  Costs one
        loss-augmented inference per training example.
    validation : callable ``w -> float``, optional
        A user metric, for example AER on a validation set.
    greater_is_better : bool
        Direction of ``validation``.
    patience : int, optional
        Stop after this many recorded iterations without improvement of the
        validation metric.
    callback : callable ``(iteration, w, record) -> bool``, optional
        Called after each record; returning True stops the learner.
    """

    def __init__(self, every=1, hinge=False, validation: Callable | None = None,
                 greater_is_better=False, patience=None, callback=None):
        # 2.5 was cut to 2, "3" a TypeError; patience 0 and "no" (read as True) were taken
        check_whole("every", every)
        if patience is not None:
            check_whole("patience", patience)
        self.every = int(every)
        self.hinge = check_flag("hinge", hinge)
        for name, f in (("validation", validation), ("callback", callback)):
            if f is not None and not callable(f):   # it failed at the first record
                raise TypeError(f"{name} must be a function or None, got {type(f).__name__}")
        self.validation = validation
        self.greater_is_better = check_flag("greater_is_better", greater_is_better)
        self.patience = patience
        self.callback = callback
        self.reset()

    def reset(self):
        self.history = {"iteration": [], "time": [], "w_norm": []}
        if self.hinge:
            self.history["hinge"] = []
        if self.validation is not None:
            self.history["validation"] = []
        self.best_w = None
        self.best_iter = None
        self.best_score = None
        self._since_best = 0
        self._t0 = time.perf_counter()

    def wants(self, t, last):
        return last or (t % self.every == 0)

    def after_iteration(self, t, n_iter, w, examples):
        """Record iteration ``t`` of ``n_iter`` if it is due; return the stop status."""
        if not self.wants(t, t == n_iter - 1):
            return 0
        return self.record(t, w, examples)

    def record(self, t, w, examples):
        """Record iteration ``t`` at parameters ``w``; return a stop status (0, 1 or 2)."""
        rec = {"iteration": t, "time": time.perf_counter() - self._t0,
               "w_norm": float(np.linalg.norm(w))}
        if self.hinge:
            rec["hinge"] = structured_hinge_loss(examples, w)
        status = 0
        if self.validation is not None:
            score = _score(self.validation(w), t)
            rec["validation"] = score
            better = (self.best_score is None
                      or (score > self.best_score if self.greater_is_better else score < self.best_score))
            if better:
                self.best_score, self.best_iter, self.best_w = score, t, np.array(w, copy=True)
                self._since_best = 0
            else:
                self._since_best += 1
                if self.patience is not None and self._since_best >= self.patience:
                    status = 1
        for k, v in rec.items():
            self.history[k].append(v)
        if self.callback is not None and self.callback(t, w, rec):
            status = 2
        return status

    def result(self, w_final, n_iter, status, info=None):
        messages = {0: "ran all iterations", 1: "stopped: validation did not improve within patience",
                    2: "stopped by callback"}
        w = self.best_w if self.best_w is not None else np.array(w_final, copy=True)
        return SolverResult(w=w, w_final=np.array(w_final, copy=True), history=self.history,
                            status=status, message=messages[status], n_iter=n_iter,
                            best_iter=self.best_iter, best_score=self.best_score, info=info or {})
