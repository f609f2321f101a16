"""Digests of the texts a model was trained on, kept in its file, so that an evaluation
on them can say so (``topics eval``, ``tag eval``): a score measured on training data is
not a test score, and it was printed as if it were."""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["text_digests", "training_overlap", "OverlapCounter"]


def text_digests(texts):
    """A 64-bit digest of each text, its white space runs read as one space (``uint64``
    array): what an evaluation compares to find the model's training texts among its own."""
    return np.array([int.from_bytes(hashlib.blake2b(" ".join(t.split()).encode("utf-8",
                                                                                 "replace"),
                                                    digest_size=8).digest(), "little")
                     for t in texts], dtype=np.uint64)


def training_overlap(texts, trained, share=0.05):
    """``(n, first)`` when ``share`` or more of ``texts`` (2 at least) have a digest among
    ``trained`` (:func:`text_digests` of the training texts; ``None``: a model written
    before they were kept): how many, and the index of the first; else ``None``."""
    counter = OverlapCounter(trained)
    counter.add(texts)
    return counter.result(share)


class OverlapCounter:
    """:func:`training_overlap` of texts that come a batch at a time (``align predict``
    streams its sentence pairs): :meth:`add` each batch, then :meth:`result`."""

    def __init__(self, trained):
        self.trained = None if trained is None else np.asarray(trained, dtype=np.uint64)
        self.total = self.seen = 0
        self.first = None

    def add(self, texts):
        """Count the texts of one batch (in order) among the training texts."""
        texts = list(texts)
        if self.trained is not None and texts:
            seen = np.isin(text_digests(texts), self.trained)
            if self.first is None and seen.any():
                self.first = self.total + int(np.argmax(seen))
            self.seen += int(seen.sum())
        self.total += len(texts)

    def result(self, share=0.05):
        """``(n, first)`` as :func:`training_overlap` gives it for every text added."""
        if self.trained is None or not self.total:
            return None
        if self.seen >= 2 and self.seen >= share * self.total:
            return self.seen, self.first
        return None
