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

from dataclasses import dataclass

__all__ = ["AERScore", "score_alignments", "format_scores"]


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
