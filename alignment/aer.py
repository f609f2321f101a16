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

__all__ = ["AERScore", "score_alignments", "format_scores", "AlignmentErrors",
           "error_breakdown", "format_errors"]


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
        denom = self.n_predicted + self.n_sure
        return 1.0 - (self.hit_sure + self.hit_possible) / denom if denom else 0.0

    def __add__(self, other):
        return AERScore(*(a + b for a, b in zip(self._counts(), other._counts())))

    def _counts(self):
        return (self.n_predicted, self.n_sure, self.n_possible, self.hit_sure, self.hit_possible)


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
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predicted alignments for {len(gold)} gold ones")
    counts = [0, 0, 0, 0, 0]
    for a, g in zip(predicted, gold):
        links = a.sure if hasattr(a, "sure") else frozenset(a)
        possible = g.possible | g.sure
        counts[0] += len(links)
        counts[1] += len(g.sure)
        counts[2] += len(possible)
        counts[3] += len(links & g.sure)
        counts[4] += len(links & possible)
    return AERScore(*counts)


def format_scores(score):
    """The three measures as ``score-alignments`` prints them."""
    return (f"Precision = {score.precision:.4f}\n"
            f"Recall = {score.recall:.4f}\n"
            f"AER = {score.aer:.4f}")


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
    for a, g, (src, tgt) in zip(predicted, gold, pairs):
        links = a.sure if hasattr(a, "sure") else frozenset(a)
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
