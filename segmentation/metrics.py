"""Accuracy and foreground IoU, pooled over all pixels (or points) of a set."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SegmentationScores", "segmentation_scores", "format_scores", "iou_statistics"]


@dataclass
class SegmentationScores:
    """Pooled counts and the derived rates.

    ``accuracy = (TP + TN) / N``; foreground ``iou = TP / (TP + FP + FN)``,
    both pooled over every pixel or point of the set (not averaged per image);
    ``mean_image_iou`` averages the per-image IoU (1 for an image whose truth and
    prediction both lack foreground).
    """

    tp: int
    fp: int
    fn: int
    tn: int
    mean_image_iou: float

    @property
    def n(self):
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self):
        return (self.tp + self.tn) / max(self.n, 1)

    @property
    def error(self):
        return 1.0 - self.accuracy

    @property
    def iou(self):
        return self.tp / max(self.tp + self.fp + self.fn, 1)


def segmentation_scores(predictions, truths, ignores=None):
    """Scores of a list of predicted masks (or label arrays) against the truths.

    ``ignores`` (optional): one bool array or None per truth; its True pixels
    ("don't care") are left out of every count.
    """
    predictions = list(predictions)
    truths = list(truths)
    if len(predictions) != len(truths):
        raise ValueError(f"{len(predictions)} predictions for {len(truths)} ground truths")
    ignores = [None] * len(truths) if ignores is None else list(ignores)
    if len(ignores) != len(truths):
        raise ValueError(f"{len(ignores)} ignore maps for {len(truths)} ground truths")
    tp = fp = fn = tn = 0
    ious = []
    for p, t, ign in zip(predictions, truths, ignores):
        p = np.asarray(p, dtype=bool)
        t = np.asarray(t, dtype=bool)
        if p.shape != t.shape:
            raise ValueError(f"prediction shape {p.shape} differs from truth shape {t.shape}")
        if ign is not None:
            keep = ~np.asarray(ign, dtype=bool)
            if keep.shape != t.shape:
                raise ValueError(f"ignore shape {keep.shape} differs from truth shape {t.shape}")
            p, t = p[keep], t[keep]
        a = int(np.sum(p & t))
        b = int(np.sum(p & ~t))
        c = int(np.sum(~p & t))
        tp, fp, fn, tn = tp + a, fp + b, fn + c, tn + int(p.size) - a - b - c
        # an image without foreground in the truth and the prediction is segmented
        # perfectly: IoU 1 (it was 0, lowering the mean of a perfect prediction)
        ious.append(a / (a + b + c) if a + b + c else 1.0)
    return SegmentationScores(tp, fp, fn, tn, float(np.mean(ious)) if ious else 0.0)


def format_scores(scores):
    """One line: accuracy, error, foreground IoU and mean per-image IoU, in percent."""
    return (f"accuracy {100 * scores.accuracy:.2f}%  error {100 * scores.error:.2f}%  "
            f"foreground IoU {100 * scores.iou:.2f}%  (mean per-image IoU "
            f"{100 * scores.mean_image_iou:.2f}%)")


def iou_statistics(predictions, truths, ignores=None):
    """Per-item foreground ``(intersection, union)`` counts, shape ``(N, 2)``: the
    sufficient statistics of the pooled IoU, ``sum_i I_i / sum_i U_i``, for the paired
    bootstrap of :mod:`structpred.selection`."""
    ignores = [None] * len(truths) if ignores is None else list(ignores)
    out = np.zeros((len(truths), 2), dtype=np.int64)
    for i, (p, t, ign) in enumerate(zip(predictions, truths, ignores)):
        p = np.asarray(p, dtype=bool)
        t = np.asarray(t, dtype=bool)
        if ign is not None:
            keep = ~np.asarray(ign, dtype=bool)
            p, t = p[keep], t[keep]
        out[i] = int(np.sum(p & t)), int(np.sum(p | t))
    return out
