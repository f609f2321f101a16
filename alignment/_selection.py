"""Choosing the aligner's hyperparameters on validation sentences.

``align train`` fits one :class:`~alignment.model.MatchingAligner` per candidate
setting (for example each false-negative cost c-) and keeps the one whose best
validation AER is lowest; each fit already keeps its best iteration on the same
validation sentences (:class:`structpred.Monitor`).  A validation set of a few
dozen sentences is noisy, so :func:`prefer_default` leaves the default setting
only when the paired bootstrap over the validation sentences says the better
score is unlikely to be chance.  With ``jobs > 1`` the
candidates are fitted in forked worker processes, which share the statistics and
the other aligners' links with the parent instead of copying them.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass

__all__ = ["Candidate", "choose_aligner", "fit_candidates", "prefer_default"]


@dataclass
class Candidate:
    """One fitted setting: its value, the model, its best validation score (AER, a
    fraction), the iteration of that score and the seconds its fit took."""

    value: object
    model: object
    score: float
    best_iter: int | None
    seconds: float


_JOB = None   # (make, values, fit) for the forked workers


def _fit_one(i):
    make, values, fit = _JOB
    model = make(values[i])
    t0 = time.perf_counter()
    fit(model)
    res = model.result_
    score = res.best_score if res.best_score is not None else float("inf")
    return Candidate(values[i], model, float(score), res.best_iter, time.perf_counter() - t0)


def fit_candidates(make, values, fit, jobs=1):
    """Fit ``make(v)`` for each ``v`` in ``values`` and return them best first.

    Parameters
    ----------
    make : callable ``value -> unfitted model``
    values : sequence
        Candidate settings; on equal validation scores the earlier one wins, so
        put the preferred default first.
    fit : callable ``model -> None``
        Fits the model in place with validation sentences (its ``result_`` must
        carry ``best_score``, the validation AER of its kept iteration).
    jobs : int
        Fit this many candidates at once in forked processes (1: one after the
        other in this process).

    Returns
    -------
    list of Candidate
        Sorted by validation score, ties in the order of ``values``.
    """
    global _JOB
    values = list(values)
    if not values:
        raise ValueError("no candidate settings")
    jobs = max(1, min(int(jobs), len(values)))
    _JOB = (make, values, fit)
    try:
        if jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
            out = [_fit_one(i) for i in range(len(values))]
        else:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                out = pool.map(_fit_one, range(len(values)), chunksize=1)
    finally:
        _JOB = None
    order = sorted(range(len(out)), key=lambda i: (out[i].score, i))
    return [out[i] for i in order]


def prefer_default(ranked, default, counts_of, alpha=0.05, n_boot=2000, random_state=0):
    """The candidate to keep: the best, unless it is not significantly better than the
    default.

    Parameters
    ----------
    ranked : list of Candidate
        From :func:`fit_candidates`, best first.
    default : object
        The value of the default setting (one of the candidates).
    counts_of : callable ``model -> (N, 5) array``
        :func:`alignment.aer.sentence_counts` of the model on the validation sentences.
    alpha : float
        The best candidate replaces the default only if, in the paired bootstrap over
        the validation sentences (:func:`alignment.aer.paired_bootstrap`), it is not
        better than the default in fewer than ``alpha`` of the resamples.

    Returns
    -------
    (Candidate, float or None)
        The kept candidate and the bootstrap's share of resamples in which the best was
        not better than the default (None when the best is the default).
    """
    from .aer import paired_bootstrap

    best = ranked[0]
    if best.value == default:
        return best, None
    base = next(c for c in ranked if c.value == default)
    bs = paired_bootstrap(counts_of(base.model), counts_of(best.model), n_boot=n_boot,
                          random_state=random_state)
    return (best if bs.p_not_better < alpha else base), bs.p_not_better


def _choice_line(what, ranked, kept, p_chance, default, fmt):
    scores = ", ".join(f"{100 * c.score:.2f}% with {what}={fmt(c.value)}"
                       for c in sorted(ranked, key=lambda c: str(c.value)))
    if p_chance is None:
        why = "the default is best"
    elif kept is ranked[0]:
        why = (f"better than {what}={fmt(default)} in {100 * (1 - p_chance):.0f}% of "
               "bootstraps of the validation sentences")
    else:
        why = (f"{what}={fmt(ranked[0].value)} was better than the default in only "
               f"{100 * (1 - p_chance):.0f}% of bootstraps of the validation sentences")
    return f"{what}: chose {fmt(kept.value)} on validation (AER {scores}; {why})"


def choose_aligner(make, fit, c_negs, counts_of, jobs=1, extended=None):
    """Choose c-, then the model, on validation; the defaults win unless clearly beaten.

    Parameters
    ----------
    make : callable ``(c_neg, model_name or None) -> unfitted model``
        ``None`` is the base model (M).
    fit : callable ``model -> None``
    c_negs : sequence of float
        Candidate costs, the default first.
    counts_of : callable ``model -> (N, 5) array``
        Per-sentence validation counts (for :func:`prefer_default`).
    jobs : int
        c- candidates fitted at once.
    extended : str, optional
        A richer model (``"M+F+Q"``) to fit at the chosen c- and keep only if it is
        clearly better than the base model on validation.

    Returns
    -------
    (model, list of str)
        The kept fitted model and one summary line per choice made.
    """
    lines = []
    ranked = fit_candidates(lambda c: make(c, None), c_negs, fit, jobs=jobs)
    kept, p_chance = ranked[0], None
    if len(ranked) > 1:
        kept, p_chance = prefer_default(ranked, c_negs[0], counts_of)
        lines.append(_choice_line("c-", ranked, kept, p_chance, c_negs[0], lambda v: f"{v:g}"))
    if extended is not None:
        base = Candidate(kept.model.model_name, kept.model, kept.score, kept.best_iter,
                         kept.seconds)
        ext = fit_candidates(lambda c: make(c, extended), [kept.value], fit)[0]
        ext = Candidate(ext.model.model_name, ext.model, ext.score, ext.best_iter, ext.seconds)
        pair = sorted([base, ext], key=lambda c: c.score)
        kept, p_chance = prefer_default(pair, base.value, counts_of)
        lines.append(_choice_line("model", pair, kept, p_chance, base.value, str)
                     + f" [{extended}: {ext.seconds:.0f}s of training]")
    return kept.model, lines
