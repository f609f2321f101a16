"""Saving graphs (superpixels or points) to ``.npz`` for the streamed training of
:class:`~segmentation.model.MRFSegmenter` (one graph in memory at a time)."""

from __future__ import annotations

import numpy as np

from structpred import atomic_write

__all__ = ["save_graph", "load_graph"]


def save_graph(graph, path):
    kind = type(graph).__name__
    with atomic_write(path, mode="wb") as fh:
        np.savez(fh, __kind__=np.array(kind), **graph.to_arrays())


def load_graph(path):
    from .features import SuperpixelGraph
    from .points import PointGraph

    with np.load(path, allow_pickle=False) as data:
        kind = str(data["__kind__"])
        arrays = {k: data[k] for k in data.files if k != "__kind__"}
    cls = {"SuperpixelGraph": SuperpixelGraph, "PointGraph": PointGraph}[kind]
    return cls.from_arrays(arrays)
