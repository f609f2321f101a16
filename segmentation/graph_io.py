"""Saving graphs (superpixels or points) to ``.npz`` for the streamed training of
:class:`~segmentation.model.MRFSegmenter` (one graph in memory at a time)."""

from __future__ import annotations

import numpy as np

from structpred import FormatError, atomic_write

__all__ = ["save_graph", "load_graph"]

#: what a graph file is, in the messages
WHAT = "a segmentation graph file (segment train --memory-efficient)"


def save_graph(graph, path):
    kind = type(graph).__name__
    with atomic_write(path, mode="wb") as fh:
        np.savez(fh, __kind__=np.array(kind), **graph.to_arrays())


def load_graph(path):
    """The graph of a file written by :func:`save_graph`; a truncated, empty or foreign
    file (a graph file changed on disk during the run) is a :class:`FormatError` naming
    it, never a bare ``BadZipFile`` or ``KeyError: '__kind__'``."""
    from structpred.io import read_npz

    from .features import SuperpixelGraph
    from .points import PointGraph

    arrays = read_npz(path, WHAT)
    kinds = {"SuperpixelGraph": SuperpixelGraph, "PointGraph": PointGraph}
    kind = arrays.pop("__kind__", None)
    kind = str(kind) if kind is not None and kind.ndim == 0 and kind.dtype.kind == "U" else None
    if kind not in kinds:
        raise FormatError(path, None, f"not {WHAT}")
    try:
        return kinds[kind].from_arrays(arrays)
    except (KeyError, ValueError, TypeError, IndexError):
        raise FormatError(path, None, f"{WHAT} without the arrays of a {kind} (this run wrote "
                          "it: was it changed on disk?)") from None
