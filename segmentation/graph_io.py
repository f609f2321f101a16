"""Saving graphs (superpixels or points) to ``.npz`` for the streamed training of
:class:`~segmentation.model.MRFSegmenter` (one graph in memory at a time).

A graph file is written by :func:`structpred.io.save_npz`, with the recorded shapes and
content digest of the model files: a graph file edited keeping its shapes (an edge list
or a feature value changed) was read silently; now it is refused naming the file."""

from __future__ import annotations

from structpred import FormatError

__all__ = ["save_graph", "load_graph", "GRAPH_FORMAT", "GRAPH_VERSION", "RUN_FILE_HINT"]

#: what a graph file is, in the messages
WHAT = "a segmentation graph file (segment train --memory-efficient)"

#: the format name and version of a graph file's header
GRAPH_FORMAT, GRAPH_VERSION = "structpred-segmentation-graph", 1

#: the advice of a refusal of a graph file a training run wrote in its own folder
RUN_FILE_HINT = "this run wrote it: was it changed on disk? run it again"


def save_graph(graph, path):
    """Write ``graph`` (a ``SuperpixelGraph`` or ``PointGraph``) to ``path``, atomically,
    with its content digest."""
    from structpred.io import save_npz

    save_npz(path, graph.to_arrays(), {"format": GRAPH_FORMAT, "version": GRAPH_VERSION,
                                       "kind": type(graph).__name__}, compressed=False)


def load_graph(path, hint=RUN_FILE_HINT):
    """The graph of a file written by :func:`save_graph`; a truncated, empty, foreign or
    edited file (a graph file changed on disk during the run) is a :class:`FormatError`
    naming it and ending in ``hint`` (what to do), never a bare ``BadZipFile`` or
    ``KeyError``, nor a graph read silently from an edited file."""
    from structpred.io import damaged_cache, load_npz

    from .features import SuperpixelGraph
    from .points import PointGraph

    try:
        header, arrays = load_npz(path, GRAPH_FORMAT, (GRAPH_VERSION,), what=WHAT)
    except FormatError as exc:
        raise damaged_cache(exc, hint) from None
    kinds = {"SuperpixelGraph": SuperpixelGraph, "PointGraph": PointGraph}
    kind = header.get("kind")
    if kind not in kinds:
        raise FormatError(path, None, f"{WHAT} of no known kind of graph ({hint})")
    try:
        return kinds[kind].from_arrays(arrays)
    except (KeyError, ValueError, TypeError, IndexError):
        raise FormatError(path, None, f"{WHAT} without the arrays of a {kind} "
                          f"({hint})") from None
