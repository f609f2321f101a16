"""Digests of the texts a model was trained on, kept in its file, so that an evaluation
on them can say so (``topics eval``, ``tag eval``): a score measured on training data is
not a test score, and it was printed as if it were."""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["text_digests", "training_overlap"]


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
    if trained is None or not len(texts):
        return None
    seen = np.isin(text_digests(texts), np.asarray(trained, dtype=np.uint64))
    n = int(seen.sum())
    if n >= 2 and n >= share * len(texts):
        return n, int(np.argmax(seen))
    return None
