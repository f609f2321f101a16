"""Alignment error rate, precision and recall (Och & Ney 2003; thesis sec. 2.6.2).

For a predicted link set ``A`` and gold sure / possible sets ``S ⊆ P``:

.. math::
    \\mathrm{precision} = \\frac{|A \\cap P|}{|A|},\\qquad
    \\mathrm{recall} = \\frac{|A \\cap S|}{|S|},\\qquad
    \\mathrm{AER} = 1 - \\frac{|A \\cap S| + |A \\cap P|}{|A| + |S|}.

The counts are summed over the corpus before dividing (micro-average), as in
the JHU and SFU ``score-alignments`` tools.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from structpred import check_ordered, whole_array
from structpred.selection import BootstrapResult
from structpred.selection import paired_bootstrap as _bootstrap

__all__ = ["AERScore", "score_alignments", "sentence_counts", "format_scores",
           "AlignmentErrors", "error_breakdown", "format_errors", "BootstrapResult",
           "paired_bootstrap"]


@dataclass(frozen=True)
class AERScore:
    """Corpus-level link counts and the measures derived from them."""

    n_predicted: int   # |A|
    n_sure: int        # |S|
    n_possible: int    # |P|
    hit_sure: int      # |A ∩ S|
    hit_possible: int  # |A ∩ P|

    @property
    def precision(self):
        return self.hit_possible / self.n_predicted if self.n_predicted else 1.0

    @property
    def recall(self):
        return self.hit_sure / self.n_sure if self.n_sure else 1.0

    @property
    def aer(self):
        return float(_aer_of_counts(np.array(self._counts())))

    def __add__(self, other):
        return AERScore(*(a + b for a, b in zip(self._counts(), other._counts())))

    def _counts(self):
        return (self.n_predicted, self.n_sure, self.n_possible, self.hit_sure, self.hit_possible)

    @classmethod
    def from_sentence_counts(cls, counts):
        """The corpus score of :func:`sentence_counts` (their column sums)."""
        return cls(*(int(c) for c in np.asarray(counts).sum(0)))


def score_alignments(predicted, gold):
    """Micro-averaged precision, recall and AER of predicted alignments.

    Parameters
    ----------
    predicted : sequence of Alignment or of sets of (j, k)
        The predicted links ``A`` of each sentence (for an Alignment, its
        ``sure`` links are used).
    gold : sequence of Alignment
        Gold sure and possible links.

    Returns
    -------
    AERScore
    """
    score = AERScore.from_sentence_counts(sentence_counts(predicted, gold))
    if not score.n_sure:   # recall 0/0 was 1 and AER 0: a perfect score against nothing
        raise ValueError("gold holds no sure link (no gold, or possible links only): recall "
                         "and AER are undefined")
    return score


def _predicted_links(links, i):
    """The links of predicted alignment ``i`` given as a collection of ``(j, k)`` (or an
    ``(n, 2)`` array), checked as :class:`~alignment.data.formats.Alignment` checks them:
    ``('0', '0')``, ``(0.5, 0)``, ``(-1, 0)`` or ``(0, 0, 0)`` were counted as links that
    hit nothing, silently, and an array's rows were "unhashable type"."""
    from alignment.data.formats import Alignment

    if isinstance(links, np.ndarray):
        links = [tuple(row) for row in links.tolist()] if links.ndim == 2 else links.tolist()
    try:
        return Alignment(sure=links).sure
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"predicted alignment {i}: {exc}") from None


def sentence_counts(predicted, gold):
    """Per-sentence link counts ``(|A|, |S|, |P|, |A ∩ S|, |A ∩ P|)``, an ``(N, 5)`` int
    array; its column sums are the :class:`AERScore` of the corpus (arguments as in
    :func:`score_alignments`)."""
    predicted = list(check_ordered(predicted, "predicted", "alignments"))   # a set: no order
    gold = list(check_ordered(gold, "gold", "alignments"))
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predicted alignments for {len(gold)} gold ones")
    out = np.zeros((len(gold), 5), np.int64)
    for i, (a, g) in enumerate(zip(predicted, gold)):
        if not hasattr(g, "sure") or not hasattr(g, "possible"):
            raise TypeError(f"gold alignment {i} is a {type(g).__name__}, not an Alignment "
                            "(with sure and possible links)")
        if isinstance(a, (str, bytes)):
            # a Pharaoh line: its characters were counted as links
            raise TypeError(f"predicted alignment {i} is a string ({a[:40]!r}), not an "
                            "Alignment or a set of (j, k) links (read Pharaoh lines with "
                            "read_pharaoh)")
        links = a.sure if hasattr(a, "sure") else _predicted_links(a, i)
        possible = g.possible | g.sure
        out[i] = (len(links), len(g.sure), len(possible), len(links & g.sure),
                  len(links & possible))
    return out


def _aer_of_counts(c):
    """AER of summed counts ``c[..., 5]``, ``(|A|, |S|, |P|, |A ∩ S|, |A ∩ P|)``, over any
    leading axes (0 when ``|A| + |S| = 0``)."""
    denom = c[..., 0] + c[..., 1]
    return np.where(denom > 0, 1.0 - (c[..., 3] + c[..., 4]) / np.maximum(denom, 1), 0.0)


def paired_bootstrap(counts_a, counts_b, n_boot=10000, level=0.95, random_state=0):
    r"""Paired bootstrap over test sentences for the AER difference of two aligners.

    Resamples the ``N`` sentences with replacement ``n_boot`` times; each resample
    sums both aligners' counts over the *same* sentences and recomputes the corpus-level
    (micro-averaged) AER, so the difference keeps the pairing (Koehn 2004's paired
    bootstrap, applied to AER).

    Parameters
    ----------
    counts_a, counts_b : (N, 5) arrays
        :func:`sentence_counts` of the two aligners on the same gold sentences.
    n_boot : int
    level : float
        Coverage of the reported interval.
    random_state : int, None, numpy RandomState or Generator
        (an instance: the seed :func:`structpred.resolve_seed` draws from it)

    Returns
    -------
    BootstrapResult
        Differences in AER *fractions* (multiply by 100 for points).
    """
    a, b = _whole_counts(counts_a, "counts_a"), _whole_counts(counts_b, "counts_b")
    if a.shape != b.shape or a.ndim != 2 or a.shape[1] != 5:
        raise ValueError(f"counts must be two (N, 5) arrays of the same N, not {a.shape} "
                         f"and {b.shape}")
    if not np.array_equal(a[:, 1:3], b[:, 1:3]):
        raise ValueError("the two count arrays are not on the same gold sentences")
    return _bootstrap(a, b, _aer_of_counts, greater_is_better=False, n_boot=n_boot,
                      level=level, random_state=random_state)


def _whole_counts(values, name):
    """``values`` as an int64 array of counts >= 0 (``np.asarray(.., np.int64)`` cut 2.5 to
    2 and NaN to a huge negative count, silently)."""
    arr = np.asarray(values)
    arr = whole_array(name, arr.reshape(-1)).reshape(arr.shape)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must hold counts >= 0, got {int(arr.min())}")
    return arr


def format_scores(score):
    """The three measures on one line, in percent as in the result tables:
    ``"precision 93.41%  recall 89.73%  AER 8.21%"``."""
    return (f"precision {100 * score.precision:.2f}%  recall {100 * score.recall:.2f}%  "
            f"AER {100 * score.aer:.2f}%")


@dataclass(frozen=True)
class AlignmentErrors:
    """Where the AER comes from: the two kinds of error, by word pair.

    Attributes
    ----------
    false_links : Counter
        ``(source word, target word)`` of predicted links outside ``P`` (they cost precision).
    missed_links : Counter
        ``(source word, target word)`` of sure links not predicted (they cost recall).
    false_between_unlinked : int
        False links whose two words have no sure gold link at all.
    missed_between_unlinked : int
        Missed sure links whose two words the prediction left without any link.
    """

    false_links: Counter
    missed_links: Counter
    false_between_unlinked: int
    missed_between_unlinked: int


def error_breakdown(predicted, gold, pairs):
    """Count the false and the missed links of each word pair over a corpus.

    A predicted link ``(j, k)`` is *false* when it is not in ``P`` (``S ⊆ P``); a sure link is
    *missed* when it is not predicted. Together they are everything AER counts against the
    prediction: ``|A| - |A ∩ P|`` and ``|S| - |A ∩ S|``.

    Parameters
    ----------
    predicted, gold : sequences of Alignment (or of link sets, for ``predicted``)
    pairs : sequence of (source tokens, target tokens)

    Returns
    -------
    AlignmentErrors
    """
    if not len(predicted) == len(gold) == len(pairs):
        raise ValueError(f"{len(predicted)} predicted alignments, {len(gold)} gold ones and "
                         f"{len(pairs)} sentence pairs")
    false, missed = Counter(), Counter()
    n_false_free = n_missed_free = 0
    for i, (a, g, (src, tgt)) in enumerate(zip(predicted, gold, pairs)):
        links = a.sure if hasattr(a, "sure") else _predicted_links(a, i)
        possible = g.possible | g.sure
        gold_src = {j for j, _ in g.sure}
        gold_tgt = {k for _, k in g.sure}
        pred_src = {j for j, _ in links}
        pred_tgt = {k for _, k in links}
        for j, k in links - possible:
            false[src[j], tgt[k]] += 1
            n_false_free += j not in gold_src and k not in gold_tgt
        for j, k in g.sure - links:
            missed[src[j], tgt[k]] += 1
            n_missed_free += j not in pred_src and k not in pred_tgt
    return AlignmentErrors(false, missed, n_false_free, n_missed_free)


def format_errors(errors, top=10):
    """The ``top`` most frequent false and missed word pairs, as plain text."""
    n_false, n_missed = sum(errors.false_links.values()), sum(errors.missed_links.values())
    lines = [f"False links (predicted, not even possible): {n_false}, "
             f"{errors.false_between_unlinked} of them between two words with no sure gold link"]
    lines += [f"  {n:5d}  {e} - {f}" for (e, f), n in errors.false_links.most_common(top)]
    lines.append(f"Missed sure links: {n_missed}, {errors.missed_between_unlinked} of them "
                 f"between two words the prediction left unlinked")
    lines += [f"  {n:5d}  {e} - {f}" for (e, f), n in errors.missed_links.most_common(top)]
    return "\n".join(lines)
