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

from structpred.selection import Candidate, describe_choice
from structpred.selection import fit_candidates as _fit_candidates
from structpred.selection import prefer_default as _prefer_default

__all__ = ["Candidate", "choose_aligner", "fit_candidates", "prefer_default"]


def fit_candidates(make, values, fit, jobs=1):
    """:func:`structpred.selection.fit_candidates` scored by validation AER (lower is
    better), read from ``model.result_.best_score``."""
    return _fit_candidates(make, values, fit, jobs=jobs, greater_is_better=False)


def prefer_default(ranked, default, counts_of, alpha=0.05, n_boot=2000, random_state=0):
    """:func:`structpred.selection.prefer_default` on the validation AER.

    ``counts_of(model)`` gives the model's :func:`alignment.evaluate.aer.sentence_counts` on the
    validation sentences; the bootstrap resamples sentences and recomputes the
    micro-averaged AER (:func:`alignment.evaluate.aer.paired_bootstrap`).
    """
    from .evaluate.aer import _aer_of_counts

    return _prefer_default(ranked, default, counts_of, _aer_of_counts, greater_is_better=False,
                           alpha=alpha, n_boot=n_boot, random_state=random_state)


def _choice_line(what, ranked, kept, p_chance, default, fmt):
    return describe_choice(what, ranked, kept, p_chance, default, fmt, metric="AER",
                           items="sentences")


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
