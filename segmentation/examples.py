"""Training examples of the segmenter: loss weights, standardisation, candidates.

The pieces :class:`segmentation.model.MRFSegmenter` builds its training on: the class
weights of the weighted Hamming loss (eq. 2.10), the :class:`~structpred.MinCutExample`
of a graph, running feature moments, the deterministic validation hold-out, the pass
over the training graphs that prepares them (:func:`prepare_graphs`) and the candidate
lists of the hyperparameters chosen on validation.
"""

from __future__ import annotations

import numbers
import os

import numpy as np

from structpred import MinCutExample, check_positive
from structpred.io import counted

from ._image_kind import training_kind
from .graph_io import save_graph
from .model_io import feature_names as _feature_names

__all__ = ["parse_class_weight", "class_weights", "build_example", "is_validation_item",
           "describe_choice", "AUTO_CLASS_WEIGHTS", "AUTO_ETA_SCALES", "DegenerateDataError",
           "keep_graphs", "prepare_graphs", "MAX_CLASS_WEIGHT"]

#: the largest numeric ``class_weight`` (and ``1 / MAX_CLASS_WEIGHT`` the smallest): it
#: multiplies the loss of every foreground pixel, and 1e300 overflowed the learner's
#: iterates (refused as "the point to project must be finite", named after the masks)
MAX_CLASS_WEIGHT = 1e6


def parse_class_weight(text):
    """The ``class_weight`` of a command-line value: ``"none"`` -> None, ``"balanced"``, or a number."""
    text = str(text).strip()
    if text in ("none", "balanced"):
        return None if text == "none" else text
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"class weight must be 'none', 'balanced' or a number, got {text!r}") from None


def class_weights(class_weight, fg_share):
    """``(w_fg, w_bg)`` for the loss (see the module docstring)."""
    if class_weight is None:
        return 1.0, 1.0
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be None, 'balanced' or a number, got {class_weight!r}")
        pi = min(max(float(fg_share), 1e-6), 1 - 1e-6)
        return 0.5 / pi, 0.5 / (1.0 - pi)
    if isinstance(class_weight, (numbers.Real, np.ndarray)) and np.ndim(class_weight) == 0 \
            and not isinstance(class_weight, (bool, np.bool_)):
        class_weight = float(class_weight)    # a numpy scalar or 0-d array
    w = check_positive("class_weight", class_weight)   # inf: NaN scores before
    if not 1 / MAX_CLASS_WEIGHT <= w <= MAX_CLASS_WEIGHT:
        raise ValueError(f"class_weight must be from {1 / MAX_CLASS_WEIGHT:g} to "
                         f"{MAX_CLASS_WEIGHT:g} (it multiplies the loss of the foreground), "
                         f"got {class_weight!r}")
    return w, 1.0


def build_example(graph, mean, scale, use_edges, w_fg, w_bg, size_unit, edge_scale=1.0,
                  feature_scale=1.0):
    """A :class:`MinCutExample` from a graph (superpixels or points).

    Node features are standardised ``(x - mean) / scale``; the loss weights
    are ``size / size_unit`` times the class weight of the gold label.
    """
    X = (np.asarray(graph.node_features, dtype=np.float64) - mean) / scale * feature_scale
    y = graph.node_labels()
    size = graph.loss_sizes() / size_unit
    if use_edges:
        edges, Xe = graph.edges, (feature_scale * edge_scale) * np.asarray(graph.edge_features,
                                                                           dtype=np.float64)
    else:  # the unary-only model has no edge weights at all
        edges, Xe = np.zeros((0, 2), np.int64), np.zeros((0, 0))
    return MinCutExample.from_features(X, Xe, edges, y, cost_pos=size * w_bg, cost_neg=size * w_fg)


def _zip_strict(a, b, what_a, what_b):
    """``zip`` that raises when the two iterables have different lengths."""
    sentinel = object()
    ia, ib = iter(a), iter(b)
    while True:
        x, y = next(ia, sentinel), next(ib, sentinel)
        if x is sentinel and y is sentinel:
            return
        if x is sentinel or y is sentinel:
            raise ValueError(f"{what_a} and {what_b} have different lengths")
        yield x, y


def _load_graph(path):
    from .graph_io import load_graph

    return load_graph(path)


def _stream_examples(paths, *args):
    """Factory of an :class:`ExampleStream`: one example at a time from disk."""
    for p in paths:
        yield build_example(_load_graph(p), *args)


#: What "auto" means: the candidates tried on validation, in order (ties keep the first).
AUTO_CLASS_WEIGHTS = (None, "balanced")
AUTO_ETA_SCALES = (3.0, 10.0)


def _candidates(value, auto, what):
    """The candidate list of a hyperparameter that may be a value, a list or ``"auto"``."""
    if isinstance(value, str) and value == "auto":
        return list(auto)
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{what}: empty list of candidates")
        return list(value)
    return [value]


def is_validation_item(i, fraction):
    """Whether item ``i`` (0-based) of a stream goes to the held-out validation set:
    about every ``1/fraction``-th item, deterministically (``fraction`` in [0, 1)); with
    0.15 items 3, 9, 16, 23, ... (none among the first three, so one to three
    images are all trained on)."""
    return int(np.floor((i + 1) * fraction + 0.5)) > int(np.floor(i * fraction + 0.5))


class _Prepared:
    """Training graphs turned into what every candidate needs: standardisation,
    loss statistics, and the graphs (in memory or as paths of an on-disk cache)."""

    def __init__(self, kept, paths, mean, scale, fg_share, size_unit, n_node, n_edge, n_train,
                 node_names, edge_names):
        self.kept, self.paths = kept, paths
        self.mean, self.scale = mean, scale
        self.fg_share, self.size_unit = fg_share, size_unit
        self.n_node, self.n_edge, self.n_train = n_node, n_edge, n_train
        self.node_names, self.edge_names = node_names, edge_names
        self.lipschitz = {}
        #: the training scans' median point spacing (None: images, or graphs made by hand)
        self.spacing = None
        #: whether the training images were all grey (True), all in colour (False), or
        #: neither, or unknown (None): segmentation._image_kind.training_kind
        self.grey = None

    def subset(self, k):
        """The same statistics with ``k`` evenly spaced training graphs."""
        n = self.n_train
        idx = sorted({int(i) for i in np.linspace(0, n - 1, k).round()})
        kept = [self.kept[i] for i in idx] if self.kept else []
        paths = [self.paths[i] for i in idx] if self.paths else []
        sub = _Prepared(kept, paths, self.mean, self.scale, self.fg_share, self.size_unit,
                        self.n_node, self.n_edge, len(idx), self.node_names, self.edge_names)
        sub.n_valid = getattr(self, "n_valid", None)
        sub.spacing, sub.grey = self.spacing, self.grey
        return sub


class _Moments:
    """Running sums over training graphs: feature means and spreads, and the loss
    statistics (foreground share, scored pixels per node)."""

    def __init__(self):
        self.s1 = self.s2 = None
        self.cnt, self.fg, self.tot, self.nodes = 0, 0.0, 0.0, 0
        self.spacings = []   # (the graph's place in the input, its scan's point spacing)
        self.greys = []      # whether each image was grey (None: unknown, or a scan)

    def add(self, g, i=0):
        X = np.asarray(g.node_features, dtype=np.float64)
        if self.s1 is None:
            self.s1, self.s2 = np.zeros(X.shape[1]), np.zeros(X.shape[1])
        elif X.shape[1] != self.s1.size:
            raise ValueError(f"graph {i} has {X.shape[1]} node features, the first {self.s1.size}")
        self.s1 += X.sum(0)
        self.s2 += (X ** 2).sum(0)
        self.cnt += X.shape[0]
        ls = g.loss_sizes()
        self.fg += float(np.dot(g.fg_fraction, ls))
        self.tot += float(np.sum(ls))
        self.nodes += int(np.count_nonzero(ls))
        if getattr(g, "spacing", None) is not None:
            self.spacings.append((i, float(g.spacing)))
        grey = getattr(g, "grey", None)
        self.greys.append(None if grey is None else bool(grey))

    def spacing(self):
        """The median of the scans' point spacings (None: no scan has one); a scan far
        from the others' is refused (:func:`segmentation.points.check_training_spacings`)."""
        from .points import check_training_spacings

        check_training_spacings(self.spacings)
        return float(np.median([v for _, v in self.spacings])) if self.spacings else None

    def standardisation(self):
        """``(mean, scale)``; constant columns (the bias) stay as they are."""
        mean = self.s1 / self.cnt
        scale = np.sqrt(np.maximum(self.s2 / self.cnt - mean ** 2, 0.0))
        const = scale < 1e-9
        mean[const], scale[const] = 0.0, 1.0
        return mean, scale


class _GraphFiles:
    """A re-iterable list of graphs cached on disk (loaded one at a time)."""

    def __init__(self, paths):
        self.paths = list(paths)

    def __len__(self):
        return len(self.paths)

    def __iter__(self):
        for p in self.paths:
            yield _load_graph(p)


def _describe(row):
    parts = []
    if row.get("n_segments") is not None:
        parts.append(f"{row['n_segments']} superpixels")
    cw = row["class_weight"]
    parts.append(f"class weight {'none' if cw is None else cw}")
    parts.append(f"step {row['eta_scale']:g}/||F||")
    return ", ".join(parts)


def describe_choice(row):
    """``"class weight none, step 3/||F||, iteration 45"`` for a ``chosen_`` row."""
    out = _describe(row) + ("" if row.get("best_iter") is None else f", iteration {row['best_iter']}")
    if row.get("cv_folds"):
        out += f", {row['n_iter']} iterations"
    edges = row.get("edges")
    if edges == "unary":
        out += ", unary-only (edge weights 0)"
    elif edges and edges != "mrf":
        out += f", edge weights x {edges.split(' ')[-1]}"
    return out


def _pad(w, n_edge):
    """Unary weights with ``n_edge`` edge weights fixed at 0 appended."""
    return np.concatenate([np.asarray(w, dtype=np.float64), np.zeros(int(n_edge))])


def _iou_score(s):
    """Foreground IoU of summed ``(intersection, union)`` statistics, vectorised."""
    s = np.asarray(s, dtype=np.float64)
    return s[..., 0] / np.maximum(s[..., 1], 1.0)


def _iou(s):
    return float(_iou_score(s))


class DegenerateDataError(ValueError):
    """Training data that cannot define the task (no foreground, or no background)."""


def keep_graphs(graphs, root, tag):
    """A list of graphs, or (memory-efficient) a re-iterable over cached files."""
    if graphs is None:
        return None
    if root is None:
        return list(graphs)
    paths = []
    for i, g in enumerate(graphs):
        p = os.path.join(root, f"{tag}-{i:06d}.npz")
        save_graph(g, p)
        paths.append(p)
    return _GraphFiles(paths)

def prepare_graphs(graphs, hold_out, frac, root, tag, kind, use_edges):
    """One pass over the training graphs: standardisation and loss statistics,
    the kept graphs (or the on-disk cache under ``root``) and the held-out validation
    graphs (every item :func:`is_validation_item` picks, when ``hold_out``).

    Returns ``(prep, valid)``: a :class:`_Prepared` and the validation graphs (None
    without ``hold_out``).  Raises :class:`DegenerateDataError` when the training masks
    (``kind`` ``"image"``) or scans have no foreground or no background."""
    paths, kept, valid, vpaths = [], [], [], []
    acc, n_edge_feat = _Moments(), 0
    node_names = edge_names = None
    n_train = 0
    for i, g in enumerate(graphs):
        if g.fg_fraction is None:
            raise ValueError("training graphs need ground truth (fg_fraction)")
        if hold_out and is_validation_item(i, frac):
            if root is None:
                valid.append(g)
            else:
                p = os.path.join(root, f"{tag}-valid-{i:06d}.npz")
                save_graph(g, p)
                vpaths.append(p)
            continue
        if acc.s1 is None:
            n_edge_feat = g.edge_features.shape[1]
            node_names, edge_names = _feature_names(g)
        acc.add(g, i)
        n_train += 1
        if root is not None:
            p = os.path.join(root, f"{tag}-{i:06d}.npz")
            save_graph(g, p)
            paths.append(p)
        else:
            kept.append(g)
    fg, tot, nodes = acc.fg, acc.tot, acc.nodes
    if acc.s1 is None:
        n_held = len(valid) + len(vpaths)
        if n_held:   # it was "no training data", naming the mask folder
            what = "image" if kind == "image" else "scan"
            held = (f"every one of the {counted(n_held, 'training ' + what)}" if n_held > 1
                    else f"the only training {what}")
            raise ValueError(f"the validation fraction {frac:g} holds out {held}, leaving "
                             "none to train "
                             "on: give a smaller one (--valid-fraction, valid_fraction) or "
                             "validation data")
        raise ValueError("no training data")
    if tot <= 0:
        raise ValueError("every training pixel is marked \"don't care\"")
    for side, none in (("foreground", fg <= 0), ("background", fg >= tot)):
        if none:
            unit, what = ("pixel", "mask") if kind == "image" else ("point", "scan")
            where = (f"any of the {n_train} training {what}s" if n_train != 1
                     else f"the training {what}")
            raise DegenerateDataError(f"no {side} {unit} in {where}")
    mean, scale = acc.standardisation()
    prep = _Prepared(kept, paths, mean, scale, fg / tot, tot / max(nodes, 1), mean.size,
                     n_edge_feat if use_edges else 0, n_train, node_names,
                     edge_names if use_edges else [])
    prep.spacing = acc.spacing()
    prep.grey = training_kind(acc.greys) if kind == "image" else None
    out_valid = None
    if hold_out:
        out_valid = valid if root is None else _GraphFiles(vpaths)
        prep.n_valid = len(out_valid)
    return prep, out_valid
