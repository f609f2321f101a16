"""Choosing a setting on validation data, guarded by a paired bootstrap.

Every problem package chooses its defaults the same way: fit one model per candidate
setting, score each on the same validation items (sentences, documents, images), and keep
the *default* setting unless the best candidate beats it in at least ``1 - alpha`` (95%)
of paired bootstrap resamples of the validation items (Koehn 2004's paired bootstrap). A
validation set of a few dozen items is noisy; without the guard a lucky candidate would
replace a default that generalises better.

The resampled statistic is any corpus-level score computed from per-item sufficient
statistics summed over the items: per-document correctness for accuracy, per-image
``(intersection, union)`` for IoU, per-sentence ``(correct, predicted, gold)`` chunks for
F1, per-sentence link counts for AER.

Functions
---------
paired_bootstrap
    The paired bootstrap of a score difference.
fit_candidates
    Fit one model per setting (optionally in forked processes), best first.
prefer_default
    The kept candidate: the best, unless the bootstrap cannot tell it from the default.
describe_choice
    One line that states the choice and its evidence, for command-line summaries.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from dataclasses import dataclass

import numpy as np

from structpred._checks import seed_generator
from structpred.parallel import ignore_interrupt

__all__ = ["BootstrapResult", "Candidate", "describe_choice", "fit_candidates", "unwrap_eval_set",
           "paired_bootstrap", "prefer_default"]


@dataclass(frozen=True)
class BootstrapResult:
    """Paired bootstrap of the improvement of ``b`` over ``a``.

    Attributes
    ----------
    difference : float
        The improvement on the whole set: ``score(b) - score(a)`` when greater is better,
        ``score(a) - score(b)`` when lower is better (positive: ``b`` is better).
    interval : tuple of float
        The central ``level`` interval of the resampled improvements (percentile method).
    p_not_better : float
        Share of resamples in which ``b`` is not better than ``a`` (improvement <= 0): a
        one-sided p-value for "``b`` is better".
    level : float
    n_boot : int
    """

    difference: float
    interval: tuple
    p_not_better: float
    level: float
    n_boot: int


def unwrap_eval_set(eval_set):
    """``eval_set`` as the estimators take it: scikit-learn's form, a list holding one
    ``(X, y)`` pair, becomes that pair; anything else is returned as it is."""
    if isinstance(eval_set, list) and len(eval_set) == 1 and isinstance(eval_set[0], tuple):
        return eval_set[0]
    return eval_set


def _as_stats(x, name):
    a = np.asarray(x)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise ValueError(f"{name} must be a numeric array of per-item statistics")
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or len(a) == 0:
        raise ValueError(f"{name} must be an (N,) or (N, k) array with N >= 1, not shape "
                         f"{np.shape(x)}")
    if a.dtype.kind == "f":   # float16 (and float32) sums stopped at 2048 (16.7 million):
        return a.astype(np.float64)   # the statistics of more items were read as fewer
    return a.astype(np.int64) if a.dtype == bool else a


def paired_bootstrap(stats_a, stats_b, score=None, *, greater_is_better=True, n_boot=2000,
                     level=0.95, random_state=0):
    r"""Paired bootstrap over items of the score difference of two models.

    Resamples the ``N`` items with replacement ``n_boot`` times; each resample sums both
    models' statistics over the *same* items and recomputes the corpus-level score, so the
    difference keeps the pairing.

    Parameters
    ----------
    stats_a, stats_b : (N,) or (N, k) arrays
        Per-item sufficient statistics of the two models on the same items.
    score : callable, optional
        Maps summed statistics ``(..., k)`` to the score ``(...)``; vectorised over the
        leading axes. Default: the mean of the first column (accuracy from 0/1 correctness).
    greater_is_better : bool
        ``False`` for error rates (AER).
    n_boot : int
    level : float
        Coverage of the reported interval.
    random_state : int, None, numpy RandomState or Generator
        (an instance: the seed :func:`structpred.resolve_seed` draws from it)

    Returns
    -------
    BootstrapResult
    """
    a, b = _as_stats(stats_a, "stats_a"), _as_stats(stats_b, "stats_b")
    if a.shape != b.shape:
        raise ValueError(f"the two statistics arrays differ in shape: {a.shape} and {b.shape}")
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    n = len(a)
    if score is None:
        def score(s):
            return s[..., 0] / n
    sign = 1.0 if greater_is_better else -1.0

    def improvement(sa, sb):
        return sign * (score(sb) - score(sa))

    rng = seed_generator(random_state, generators=True)   # a RandomState: its drawn seed
    diffs = np.empty(int(n_boot))
    for start in range(0, int(n_boot), 1000):          # bounded memory: 1000 resamples at a time
        stop = min(start + 1000, int(n_boot))
        idx = rng.integers(0, n, (stop - start, n))    # (B, N) resampled item indices
        diffs[start:stop] = improvement(a[idx].sum(1), b[idx].sum(1))
    alpha = (1.0 - level) / 2
    lo, hi = np.quantile(diffs, [alpha, 1.0 - alpha])
    return BootstrapResult(float(improvement(a.sum(0), b.sum(0))), (float(lo), float(hi)),
                           float(np.mean(diffs <= 0.0)), float(level), int(n_boot))


@dataclass
class Candidate:
    """One fitted setting: its value, the model, its validation score, the iteration of
    that score (None where the model has none) and the seconds its fit took."""

    value: object
    model: object
    score: float
    best_iter: int | None
    seconds: float


def _result_best_score(model):
    res = model.result_
    return res.best_score, res.best_iter


_JOB = None   # (make, values, fit, score_of, greater_is_better) for the forked workers


def _fit_one(i):
    make, values, fit, score_of, greater = _JOB
    model = make(values[i])
    t0 = time.perf_counter()
    fit(model)
    seconds = time.perf_counter() - t0
    got = score_of(model)
    score, best_iter = got if isinstance(got, tuple) else (got, None)
    if score is None:
        score = -np.inf if greater else np.inf
    return Candidate(values[i], model, float(score), best_iter, seconds)


def fit_candidates(make, values, fit, jobs=1, score_of=None, greater_is_better=True):
    """Fit ``make(v)`` for each ``v`` in ``values`` and return them best first.

    Parameters
    ----------
    make : callable ``value -> unfitted model``
    values : sequence
        Candidate settings; on equal validation scores the earlier one wins, so put the
        preferred default first.
    fit : callable ``model -> None``
        Fits the model in place.
    jobs : int
        Fit this many candidates at once in forked processes (1: one after the other in
        this process). Candidates are fitted one after the other whenever this process
        runs other threads, which a fork would leave holding their locks.
    score_of : callable ``model -> float or (float, int or None)``, optional
        The validation score of a fitted model (and the iteration it was reached at).
        Default: ``model.result_.best_score`` and ``model.result_.best_iter``, what the
        learners' monitor keeps.
    greater_is_better : bool

    Returns
    -------
    list of Candidate
        Sorted by validation score, best first, ties in the order of ``values``.
    """
    global _JOB
    values = list(values)
    if not values:
        raise ValueError("no candidate settings")
    jobs = max(1, min(int(jobs), len(values)))
    _JOB = (make, values, fit, score_of or _result_best_score, bool(greater_is_better))
    try:
        # forking while other threads run (a Dask client's, a progress monitor's) can copy
        # a lock they hold into the child, which then waits forever: fit one after the
        # other then (the same candidates and scores, only slower)
        if (jobs == 1 or "fork" not in multiprocessing.get_all_start_methods()
                or threading.active_count() > 1):
            out = [_fit_one(i) for i in range(len(values))]
        else:
            with multiprocessing.get_context("fork").Pool(jobs, initializer=ignore_interrupt) as pool:
                out = pool.map(_fit_one, range(len(values)), chunksize=1)
    finally:
        _JOB = None
    sign = -1.0 if greater_is_better else 1.0
    order = sorted(range(len(out)), key=lambda i: (sign * out[i].score, i))
    return [out[i] for i in order]


def prefer_default(ranked, default, stats_of, score=None, *, greater_is_better=True,
                   alpha=0.05, n_boot=2000, random_state=0):
    """The candidate to keep: the best, unless it is not clearly better than the default.

    Parameters
    ----------
    ranked : list of Candidate
        Best first (:func:`fit_candidates`).
    default : object
        The value of the default setting (one of the candidates).
    stats_of : callable ``model -> (N,) or (N, k) array``
        Per-item validation statistics of a fitted model (see :func:`paired_bootstrap`).
    score : callable, optional
        Summed statistics to score (see :func:`paired_bootstrap`).
    greater_is_better : bool
    alpha : float
        The best candidate replaces the default only if, in the paired bootstrap over the
        validation items, it is not better than the default in fewer than ``alpha`` of the
        resamples (it wins in at least ``1 - alpha`` of them).

    Returns
    -------
    (Candidate, float or None)
        The kept candidate and the share of resamples in which the best was not better
        than the default (None when the best is the default).
    """
    best = ranked[0]
    if best.value == default:
        return best, None
    base = next(c for c in ranked if c.value == default)
    bs = paired_bootstrap(stats_of(base.model), stats_of(best.model), score,
                          greater_is_better=greater_is_better, n_boot=n_boot,
                          random_state=random_state)
    return (best if bs.p_not_better < alpha else base), bs.p_not_better


def describe_choice(what, ranked, kept, p_chance, default, fmt=str, metric="accuracy",
                    items="items"):
    """One line stating a choice made on validation and its evidence.

    ``"c-: chose 3 on validation (AER 4.90% with c-=2, 4.80% with c-=3; the default is
    best)"``. Scores are shown in percent.
    """
    scores = ", ".join(f"{100 * c.score:.2f}% with {what}={fmt(c.value)}"
                       for c in sorted(ranked, key=lambda c: str(c.value)))
    if p_chance is None:
        why = "the default is best"
    elif kept is ranked[0]:
        why = (f"better than {what}={fmt(default)} in {100 * (1 - p_chance):.0f}% of "
               f"bootstraps of the validation {items}")
    else:
        why = (f"{what}={fmt(ranked[0].value)} was better than the default in only "
               f"{100 * (1 - p_chance):.0f}% of bootstraps of the validation {items}")
    return f"{what}: chose {fmt(kept.value)} on validation ({metric} {scores}; {why})"
