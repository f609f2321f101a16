"""Max-margin associative MRF segmenter (thesis secs. 2.2.2, 2.3, 2.6.1).

The *model* lives here (graphs, features, loss weights, decoding into masks);
the *learners* are the problem-agnostic solvers of :mod:`structpred`, fed
:class:`~structpred.mincut.MinCutExample` objects.

Loss.  The weighted Hamming loss of eq. 2.10 on the nodes: mislabelling node
``j`` costs ``size_j / mean_size * w_class(y_j)``, where ``size_j`` is the
number of pixels of the superpixel (1 for points), so that the loss
approximates the pixel Hamming loss, and ``w_class`` re-weights the classes:

* ``class_weight=None``: 1 for both classes (plain Hamming, as in the thesis);
* ``"balanced"``: ``w_fg = 1 / (2 pi_fg)``, ``w_bg = 1 / (2 pi_bg)`` with
  ``pi_fg`` the foreground share of the training pixels (so both classes
  carry half of the total loss; with 25 % horse pixels a missed horse
  pixel costs 3 times a false alarm);
* a number ``r``: ``w_fg = r``, ``w_bg = 1``.

A false negative (gold 1, predicted 0) costs ``c- = size * w_fg`` and a false
positive ``c+ = size * w_bg`` (per-variable arrays of the protocol).

Parameters.  ``w = [w_n, w_e]``; ``w_e >= 0`` is enforced by the parameter
set ``L2Ball(radius, nonneg=edge coordinates)`` of every learner, which with
non-negative edge features keeps the potentials associative (eq. 2.5).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import time

import numpy as np

from structpred import ParamsMixin
from structpred import atomic_write
from structpred import LEARNERS, check_learner, run_learner
from structpred import MinCutExample, decode_mincut
from structpred import Monitor
from structpred import L2Ball
from structpred import ExampleStream

from .metrics import segmentation_scores

__all__ = ["MRFSegmenter", "LEARNERS", "build_example", "class_weights", "parse_class_weight",
           "DegenerateDataError", "describe_choice", "is_validation_item", "AUTO_CLASS_WEIGHTS",
           "AUTO_ETA_SCALES"]



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
    r = float(class_weight)
    if not r > 0:
        raise ValueError(f"class_weight must be positive, got {r}")
    return r, 1.0


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

FORMAT = "structpred-mrf-segmenter"
FORMAT_VERSION = 2


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

    def subset(self, k):
        """The same statistics with ``k`` evenly spaced training graphs."""
        n = self.n_train
        idx = sorted({int(i) for i in np.linspace(0, n - 1, k).round()})
        kept = [self.kept[i] for i in idx] if self.kept else []
        paths = [self.paths[i] for i in idx] if self.paths else []
        sub = _Prepared(kept, paths, self.mean, self.scale, self.fg_share, self.size_unit,
                        self.n_node, self.n_edge, len(idx), self.node_names, self.edge_names)
        sub.n_valid = getattr(self, "n_valid", None)
        return sub


class MRFSegmenter(ParamsMixin):
    """Binary associative MRF trained by max-margin estimation, scikit-learn style.

    Choices on validation.  ``class_weight``, ``eta_scale`` and ``n_segments``
    take a value, a list of candidates or ``"auto"`` (the defaults: class
    weights :data:`AUTO_CLASS_WEIGHTS`, steps :data:`AUTO_ETA_SCALES`); every
    combination is trained, each with early stopping on the validation IoU
    (``patience``), and the one with the best validation IoU is kept, at its
    best iteration (sec. 2.6).  Validation is what :meth:`fit` is given, or
    else a deterministic ``valid_fraction`` of the training images (every
    ``1/valid_fraction``-th one, :func:`is_validation_item`), which are then
    not trained on.  Without any validation (``valid_fraction=0``, or fewer
    than four training images) the first candidate of each list is used
    (class weight none, step 3/||F||) for all ``n_iter`` iterations.
    ``selection_`` lists every candidate's validation IoU and ``chosen_`` the
    winner.

    Parameters
    ----------
    learner : one of ``LEARNERS``
        ``"dual-extragradient"`` (memory-efficient form, the default),
        ``"projected-gradient"``, ``"perceptron"`` (averaged) or ``"subgradient"``.
    n_iter : int
        Most iterations (epochs for the perceptron) of one candidate.
    use_edges : bool
        ``False`` gives the unary-only linear model (same node features, no
        edges; decoding is then thresholding ``s_j > 0``).
    class_weight : None, "balanced", float, list of them, or "auto"
        Loss weighting, see the module docstring.
    radius : float
        ``gamma`` of the parameter ball; ``inf`` follows the unregularised
        path and selects along it on validation (sec. 2.6).
    learning_rate : float or None
        Step size ``eta`` (default ``eta_scale / ||F||_2``) or perceptron rate
        (default 1).
    eta_scale : float, list of floats, or "auto"
        Default step ``eta = eta_scale / ||F||_2`` of the dual extragradient and
        projected gradient.  ``1`` is the thesis' choice and the largest step
        covered by the convergence guarantee of eq. 2.19; larger values move
        along the path faster, without that guarantee.
    validate_every : int
        Record hinge loss / validation score every so many iterations.
    patience : int or None
        Stop a candidate after this many records without a better validation
        score (early stopping); None runs all ``n_iter`` iterations.
    valid_fraction : float
        Share of the training images held out for validation when none is
        given (0: no validation; the last iterate of the fixed settings).
    validation_metric : {"iou", "error"}
        Selection criterion on the validation set: foreground IoU or pixel error.
    edge_scale : float
        Multiplies the edge features.
    feature_scale : float
        Multiplies every feature (default 0.02).  Predictions depend only on the direction
        of ``w``, so this only changes the geometry of the saddle point: with
        ``eta = 1/||F||`` the ``w``-steps grow and the ``z``-steps shrink by
        this factor (their product stays ``1/||F||^2``).
    memory_efficient : bool
        Stream training (and validation) graphs from an on-disk cache, one at
        a time, so that memory does not grow with the number of images.
    cache_dir : str or None
        Where the streamed graphs go (a temporary directory by default).
    n_segments : int, list of ints or "auto"; compactness : SLIC parameters (images only).
        A list needs images that can be read again (:meth:`fit` with lists,
        or :meth:`fit_sources`).
    voxel, k_graph : thinning voxel size (metres) and neighbours per node
        (point clouds only, see :mod:`segmentation.points`).
    selection_size : int or None
        With several candidates and more training graphs than this, the
        candidates are compared on this many evenly spaced training graphs
        (with the full validation set), and only the winner is trained on all
        of them, again stopped early on validation.  None: every candidate on
        all training graphs.
    foreground_labels : str or None
        Point clouds: the fine labels that make the foreground
        (``"1300-1306"``); recorded with the model so that ``eval`` reads
        labelled scans the same way.  Not used by the estimator itself.
    random_state : int
    verbose : bool
        Progress bars.
    """

    def __init__(self, learner="dual-extragradient", n_iter=60, use_edges=True,
                 class_weight="auto", radius=np.inf, learning_rate=None, eta_scale="auto",
                 validate_every=5, patience=4, valid_fraction=0.15, validation_metric="iou",
                 edge_scale=1.0, feature_scale=0.02, memory_efficient=False, cache_dir=None,
                 n_segments=1000, compactness=10.0, voxel=0.25, k_graph=6,
                 foreground_labels=None, selection_size=48, random_state=0, verbose=False):
        self.learner = learner
        self.n_iter = n_iter
        self.use_edges = use_edges
        self.class_weight = class_weight
        self.radius = radius
        self.learning_rate = learning_rate
        self.eta_scale = eta_scale
        self.validate_every = validate_every
        self.patience = patience
        self.valid_fraction = valid_fraction
        self.validation_metric = validation_metric
        self.edge_scale = edge_scale
        self.feature_scale = feature_scale
        self.memory_efficient = memory_efficient
        self.cache_dir = cache_dir
        self.n_segments = n_segments
        self.compactness = compactness
        self.voxel = voxel
        self.k_graph = k_graph
        self.foreground_labels = foreground_labels
        self.selection_size = selection_size
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- graphs
    def _segments(self):
        """The SLIC size used for prediction: the chosen one after a fit."""
        chosen = getattr(self, "chosen_", None)
        if chosen and chosen.get("n_segments") is not None:
            return int(chosen["n_segments"])
        c = _candidates(self.n_segments, (1000,), "n_segments")
        return int(c[0])

    def image_graph(self, image, mask=None, ignore=None, n_segments=None):
        """Superpixel graph of one image (see :mod:`segmentation.features`)."""
        from .features import superpixel_graph

        return superpixel_graph(image, mask, n_segments=n_segments or self._segments(),
                                compactness=self.compactness, ignore=ignore)

    def point_graph(self, xyz, labels=None):
        """Thinned kNN graph of a point cloud (see :mod:`segmentation.points`)."""
        from .points import point_graph

        return point_graph(xyz, labels, voxel=self.voxel, k_graph=self.k_graph)

    # ---------------------------------------------------------------- fit
    def fit(self, images, masks, valid_images=None, valid_masks=None, ignores=None,
            valid_ignores=None):
        """Train on RGB images (``(H, W, 3)`` uint8) and boolean masks.

        ``images`` and ``masks`` may be iterators: with ``memory_efficient``
        each image is turned into a graph, written to the cache and dropped.
        ``ignores`` (optional, one bool array or None per mask) marks "don't
        care" pixels.  Several ``n_segments`` candidates need lists.
        """
        segs = _candidates(self.n_segments, (1000,), "n_segments")
        if len(segs) > 1 and not all(isinstance(x, (list, tuple)) for x in (images, masks)):
            raise ValueError("choosing n_segments needs lists of images and masks (read twice)")

        def pairs(ims, ms, igs, what):
            igs = igs if igs is not None else (None for _ in iter(int, 1))
            for (im, m), ig in zip(_zip_strict(ims, ms, what, "masks"), igs):
                yield im, m, ig

        def make(ims, ms, igs, what):
            if ims is None:
                return None
            return lambda ns: (self.image_graph(im, m, ig, n_segments=ns)
                               for im, m, ig in pairs(ims, ms, igs, what))

        return self.fit_sources(make(images, masks, ignores, "images"),
                                make(valid_images, valid_masks, valid_ignores, "validation images"),
                                kind="image")

    def fit_graphs(self, graphs, valid_graphs=None, kind="image", track_graphs=None, log=None):
        """Train on graphs (:class:`~segmentation.features.SuperpixelGraph` or
        :class:`~segmentation.points.PointGraph`) with ``fg_fraction`` set.

        Parameters
        ----------
        graphs : iterable of graphs
            Consumed once.  With ``memory_efficient`` each graph is written to
            the cache as it comes, so a generator keeps one graph in memory.
        valid_graphs : iterable of graphs, optional
            Validation set (default: ``valid_fraction`` of ``graphs``).
        track_graphs : list of graphs, optional
            Also record the error and IoU on these graphs at every recorded
            iteration (``history_["track_error"]``, ``["track_iou"]``), for
            plots of test error against ``||w||`` (fig. 2.7).
        log : callable, optional
            Receives one line per candidate tried (for a command line).
        """
        if len(_candidates(self.n_segments, (1000,), "n_segments")) > 1 and kind == "image":
            raise ValueError("choosing n_segments needs images (fit or fit_sources), not graphs")
        segs = [None]
        return self._fit(lambda ns: graphs,
                         None if valid_graphs is None else (lambda ns: valid_graphs),
                         kind, segs, track_graphs, log)

    def fit_sources(self, make_train, make_valid=None, kind="image", track=None, log=None,
                    executor=None):
        """Train from graph factories: ``make_train(n_segments)`` returns an
        iterable of training graphs built with that many superpixels (called
        once per ``n_segments`` candidate), ``make_valid`` likewise (or None).
        ``executor`` (a ``dask.distributed.Client`` or a
        :class:`concurrent.futures.Executor`) runs the learner's passes over the
        examples there (:func:`structpred.run_learner`)."""
        segs = _candidates(self.n_segments, (1000,), "n_segments") if kind == "image" else [None]
        self._executor = executor
        try:
            return self._fit(make_train, make_valid, kind, segs, track, log)
        finally:
            self._executor = None

    def _check_params(self):
        check_learner(self.learner)
        if self.validation_metric not in ("iou", "error"):
            raise ValueError(f"validation_metric must be 'iou' or 'error', got {self.validation_metric!r}")
        if not (isinstance(self.n_iter, (int, np.integer)) and self.n_iter >= 1):
            raise ValueError(f"n_iter must be a whole number >= 1, got {self.n_iter!r}")
        if not 0 <= float(self.valid_fraction) < 1:
            raise ValueError(f"valid_fraction must lie in [0, 1), got {self.valid_fraction!r}")
        for cw in _candidates(self.class_weight, AUTO_CLASS_WEIGHTS, "class_weight"):
            class_weights(cw, 0.5)
        for e in _candidates(self.eta_scale, AUTO_ETA_SCALES, "eta_scale"):
            if not float(e) > 0:
                raise ValueError(f"eta_scale must be positive, got {e!r}")

    def _fit(self, make_train, make_valid, kind, segs, track_graphs, log):
        log = log or (lambda msg: None)
        self._check_params()
        self.kind_ = kind
        cws = _candidates(self.class_weight, AUTO_CLASS_WEIGHTS, "class_weight")
        etas = _candidates(self.eta_scale, AUTO_ETA_SCALES, "eta_scale")
        if self.learner not in ("dual-extragradient", "projected-gradient") or self.learning_rate:
            etas = etas[:1]  # the step scale only sets eta = eta_scale / ||F||
        frac = float(self.valid_fraction)
        tmp = None
        root = None
        if self.memory_efficient:
            root = self.cache_dir or (tmp := tempfile.mkdtemp(prefix="structpred-seg-"))
            os.makedirs(root, exist_ok=True)
        rows, best = [], None
        try:
            for si, ns in enumerate(segs):
                train_src = make_train(ns)
                held = make_valid is None and frac > 0
                prep, valid = self._prepare(train_src, held, frac, root, f"s{si}")
                if make_valid is not None:
                    valid = self._keep_graphs(make_valid(ns), root, f"s{si}-valid")
                if valid is not None and not len(valid):
                    valid = None
                # without validation there is nothing to choose on: the first candidates
                grid = [(cw, e) for cw in cws for e in etas] if valid is not None \
                    else [(cws[0], etas[0])]
                sub = prep
                if len(grid) > 1 and valid is not None and self.selection_size \
                        and prep.n_train > int(self.selection_size):
                    sub = prep.subset(int(self.selection_size))
                for cw, eta_scale in grid:
                    row, res, hist = self._candidate(sub, cw, eta_scale, ns, valid, track_graphs,
                                                     log, tag="" if sub is prep else
                                                     f" (on {sub.n_train} training graphs)")
                    rows.append(row)
                    score = self._score_of(res)
                    if best is None or score > best[0] + 1e-12:
                        best = (score, row, res, hist, sub, valid is not None, valid)
                if sub is not prep and best[4] is sub:  # the winner, trained on everything
                    _, row0, _, _, _, _, _ = best
                    row, res, hist = self._candidate(prep, row0["class_weight"], row0["eta_scale"],
                                                     ns, valid, track_graphs, log,
                                                     tag=f" (on all {prep.n_train})")
                    row["final"] = True
                    rows.append(row)
                    best = (self._score_of(res), row, res, hist, prep, True, valid)
        finally:
            if tmp is not None:
                import shutil

                shutil.rmtree(tmp, ignore_errors=True)
        _, row, res, hist, prep, validated, _ = best
        self.selection_ = rows
        self.chosen_ = dict(row)
        self.validated_ = validated
        self.feature_mean_, self.feature_std_ = prep.mean, prep.scale
        self.fg_share_, self.size_unit_ = prep.fg_share, prep.size_unit
        self.class_weights_ = class_weights(row["class_weight"], prep.fg_share)
        self.n_node_features_, self.n_edge_features_ = prep.n_node, prep.n_edge
        self.node_feature_names_, self.edge_feature_names_ = prep.node_names, prep.edge_names
        self.n_train_ = prep.n_train
        self.n_valid_ = getattr(prep, "n_valid", None)
        self.result_ = res
        self.coef_ = res.w
        self.history_ = hist
        return self

    def _score_of(self, res):
        score = res.best_score if res.best_score is not None else 0.0
        return -score if self.validation_metric == "error" else score

    def _candidate(self, prep, cw, eta_scale, ns, valid, track_graphs, log, tag=""):
        t0 = time.perf_counter()
        res, hist = self._train_candidate(prep, cw, eta_scale, valid, track_graphs)
        secs = time.perf_counter() - t0
        row = dict(n_segments=ns, class_weight=cw, eta_scale=float(eta_scale),
                   best_iter=res.best_iter, n_iter=res.n_iter, n_train=prep.n_train,
                   valid_score=res.best_score, seconds=secs)
        if valid is not None:
            log(f"  {_describe(row)}{tag}: validation {self._metric_name()} "
                f"{100 * res.best_score:.2f}% at iteration {res.best_iter} "
                f"({res.n_iter} run, {secs:.0f}s)")
        return row, res, hist

    def _metric_name(self):
        return "IoU" if self.validation_metric == "iou" else "error"

    def _keep_graphs(self, graphs, root, tag):
        """A list of graphs, or (memory-efficient) a re-iterable over cached files."""
        if graphs is None:
            return None
        if root is None:
            return list(graphs)
        from .graph_io import save_graph

        paths = []
        for i, g in enumerate(graphs):
            p = os.path.join(root, f"{tag}-{i:06d}.npz")
            save_graph(g, p)
            paths.append(p)
        return _GraphFiles(paths)

    def _prepare(self, graphs, hold_out, frac, root, tag):
        """One pass over the training graphs: standardisation and loss statistics,
        the kept graphs (or the on-disk cache) and the held-out validation graphs."""
        from .graph_io import save_graph

        paths, kept, valid, vpaths = [], [], [], []
        s1 = s2 = None
        cnt, fg, tot, nodes, n_edge_feat = 0, 0.0, 0.0, 0, 0
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
            X = np.asarray(g.node_features, dtype=np.float64)
            if s1 is None:
                s1, s2 = np.zeros(X.shape[1]), np.zeros(X.shape[1])
                n_edge_feat = g.edge_features.shape[1]
                node_names, edge_names = _feature_names(g)
            elif X.shape[1] != s1.size:
                raise ValueError(f"graph {i} has {X.shape[1]} node features, the first {s1.size}")
            s1 += X.sum(0)
            s2 += (X ** 2).sum(0)
            cnt += X.shape[0]
            ls = g.loss_sizes()
            fg += float(np.dot(g.fg_fraction, ls))
            tot += float(np.sum(ls))
            nodes += int(np.count_nonzero(ls))
            n_train += 1
            if root is not None:
                p = os.path.join(root, f"{tag}-{i:06d}.npz")
                save_graph(g, p)
                paths.append(p)
            else:
                kept.append(g)
        if s1 is None:
            raise ValueError("no training data")
        if tot <= 0:
            raise ValueError("every training pixel is marked \"don't care\"")
        if fg <= 0:
            raise DegenerateDataError(f"no foreground {'pixel' if self.kind_ == 'image' else 'point'} "
                                      f"in any of the {n_train} training "
                                      f"{'masks' if self.kind_ == 'image' else 'scans'}")
        if fg >= tot:
            raise DegenerateDataError(f"no background {'pixel' if self.kind_ == 'image' else 'point'} "
                                      f"in any of the {n_train} training "
                                      f"{'masks' if self.kind_ == 'image' else 'scans'}")
        mean = s1 / cnt
        scale = np.sqrt(np.maximum(s2 / cnt - mean ** 2, 0.0))
        const = scale < 1e-9
        mean[const], scale[const] = 0.0, 1.0  # constant columns (the bias) stay as they are
        prep = _Prepared(kept, paths, mean, scale, fg / tot, tot / max(nodes, 1), mean.size,
                         n_edge_feat if self.use_edges else 0, n_train, node_names,
                         edge_names if self.use_edges else [])
        out_valid = None
        if hold_out:
            out_valid = valid if root is None else _GraphFiles(vpaths)
            prep.n_valid = len(out_valid)
        return prep, out_valid

    def _examples(self, prep, cw):
        args = (prep.mean, prep.scale, bool(self.use_edges), *class_weights(cw, prep.fg_share),
                prep.size_unit, float(self.edge_scale), float(self.feature_scale))
        if prep.paths:
            return ExampleStream(functools.partial(_stream_examples, prep.paths, *args),
                                 len(prep.paths))
        return [build_example(g, *args) for g in prep.kept]

    def _train_candidate(self, prep, cw, eta_scale, valid, track_graphs):
        from structpred import power_iteration_norm

        examples = self._examples(prep, cw)
        self.n_node_features_, self.n_edge_features_ = prep.n_node, prep.n_edge
        self.feature_mean_, self.feature_std_ = prep.mean, prep.scale
        validation = None
        if valid is not None:
            def validation(w):
                sc = self._scores_on_graphs(w, valid)
                return sc.iou if self.validation_metric == "iou" else sc.error

        track = {"track_error": [], "track_iou": []}
        callback = None
        if track_graphs:
            track_graphs = list(track_graphs)

            def callback(t, w, rec):
                sc = self._scores_on_graphs(w, track_graphs)
                track["track_error"].append(sc.error)
                track["track_iou"].append(sc.iou)
                return False

        monitor = Monitor(every=self.validate_every, hinge=bool(track_graphs) or valid is None,
                          validation=validation,
                          greater_is_better=self.validation_metric == "iou",
                          patience=self.patience if valid is not None else None, callback=callback)
        dn, de = prep.n_node, prep.n_edge
        W = L2Ball(radius=self.radius, nonneg=tuple(range(dn, dn + de)))
        eta = self.learning_rate
        if eta is None and self.learner in ("dual-extragradient", "projected-gradient"):
            # eta = eta_scale / ||F||_2 (thesis: eta_scale = 1); ||F|| does not depend on the loss
            if "F" not in prep.lipschitz:
                prep.lipschitz["F"] = power_iteration_norm(examples, random_state=self.random_state)
            self.lipschitz_ = prep.lipschitz["F"]
            eta = float(eta_scale) / self.lipschitz_
        res = run_learner(self.learner, examples, W, n_iter=self.n_iter, eta=eta, monitor=monitor,
                          verbose=self.verbose, random_state=self.random_state,
                          executor=getattr(self, "_executor", None))
        hist = dict(res.history)
        if track_graphs:
            hist.update(track)
        return res, hist

    # ------------------------------------------------------------- predict
    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            raise RuntimeError("this MRFSegmenter is not fitted yet")

    @property
    def node_weights_(self):
        return self.coef_[:self.n_node_features_]

    @property
    def edge_weights_(self):
        return self.coef_[self.n_node_features_:]

    def _predict_graph(self, w, graph):
        dn = self.n_node_features_
        Xraw = np.asarray(graph.node_features, dtype=np.float64)
        if Xraw.shape[1] != dn:
            raise ValueError(f"the model expects {dn} node features per node, the input has "
                             f"{Xraw.shape[1]}: it was trained with other features")
        X = (Xraw - self.feature_mean_) / self.feature_std_
        X *= self.feature_scale
        s = X @ w[:dn]
        if self.n_edge_features_ and graph.edges.shape[0]:
            if graph.edge_features.shape[1] != self.n_edge_features_:
                raise ValueError(f"the model expects {self.n_edge_features_} edge features, the "
                                 f"input has {graph.edge_features.shape[1]}")
            lam = np.maximum(self.feature_scale * self.edge_scale * (graph.edge_features @ w[dn:]), 0.0)
            return decode_mincut(s, lam, graph.edges).astype(bool)
        return s > 0

    def _scores_on_graphs(self, w, graphs):
        preds, truths, ignores = [], [], []
        for g in graphs:
            yhat = self._predict_graph(w, g)
            if getattr(g, "labels", None) is not None and getattr(g, "mask", None) is not None:
                preds.append(g.to_pixels(yhat))
                truths.append(g.mask)
                ignores.append(getattr(g, "ignore", None))
            else:  # no pixel/point map: score the nodes
                preds.append(yhat)
                truths.append(g.node_labels().astype(bool))
                ignores.append(None)
        return segmentation_scores(preds, truths, ignores)

    def predict_graph(self, graph):
        """Node labels (bool) of one graph."""
        self._check_fitted()
        return self._predict_graph(self.coef_, graph)

    def predict(self, images):
        """Boolean masks for RGB images."""
        self._check_fitted()
        out = []
        for im in images:
            g = self.image_graph(im)
            out.append(g.to_pixels(self._predict_graph(self.coef_, g)))
        return out

    def predict_points(self, xyz):
        """Boolean labels of every point of a cloud."""
        self._check_fitted()
        g = self.point_graph(xyz)
        return g.to_pixels(self._predict_graph(self.coef_, g))

    def score(self, images, masks):
        """Foreground IoU (greater is better)."""
        return segmentation_scores(self.predict(images), masks).iou

    # ------------------------------------------------------------ persist
    def save(self, path):
        """Weights, standardisation, hyperparameters and history in one ``.npz``
        (no pickles: arrays and a JSON header with a format version)."""
        self._check_fitted()
        params = self.get_params()
        params["radius"] = None if not np.isfinite(self.radius) else float(self.radius)
        meta = {"format": FORMAT, "version": FORMAT_VERSION, "params": params,
                "kind": self.kind_, "n_node_features": self.n_node_features_,
                "n_edge_features": self.n_edge_features_, "fg_share": self.fg_share_,
                "node_feature_names": list(self.node_feature_names_ or []),
                "edge_feature_names": list(self.edge_feature_names_ or []),
                "size_unit": self.size_unit_, "class_weights": list(self.class_weights_),
                "history": {k: [None if v is None else float(v) for v in vals]
                            for k, vals in self.history_.items()},
                "best_iter": self.result_.best_iter if hasattr(self, "result_") else None,
                "chosen": _jsonable(getattr(self, "chosen_", None)),
                "selection": _jsonable(getattr(self, "selection_", None))}
        with atomic_write(path, mode="wb") as fh:
            np.savez_compressed(fh, coef=self.coef_, feature_mean=self.feature_mean_,
                                feature_std=self.feature_std_,
                                meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8))

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`; raises ``ValueError`` naming ``path``
        on anything that is not such a model (never unpickles)."""
        import zipfile

        spath = os.fspath(path)
        if os.path.isdir(spath):
            raise ValueError(f"{spath}: is a folder, expected a model file (.npz)")
        if not os.path.exists(spath):
            raise ValueError(f"{spath}: no such model file")
        bad = f"{spath}: not a structpred segmentation model"
        try:
            if os.path.getsize(spath) == 0:
                raise ValueError("empty file")
            with np.load(spath, allow_pickle=False) as data:
                if not hasattr(data, "files"):
                    raise ValueError("a single array, not an .npz archive")
                meta = json.loads(bytes(data["meta"]).decode("utf-8"))
                coef = np.array(data["coef"], dtype=np.float64)
                mean = np.array(data["feature_mean"], dtype=np.float64)
                scale = np.array(data["feature_std"], dtype=np.float64)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, TypeError,
                AttributeError, UnicodeDecodeError, RuntimeError) as exc:
            raise ValueError(f"{bad} ({type(exc).__name__}: {exc})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(bad)
        version = meta.get("version")
        if not isinstance(version, int) or version < 1:
            raise ValueError(f"{bad} (no format version)")
        if version > FORMAT_VERSION:
            raise ValueError(f"{spath}: model format version {version} is newer than this "
                             f"structpred reads ({FORMAT_VERSION}); upgrade structpred")
        try:
            params = dict(meta["params"])
            if params.get("radius") is None:
                params["radius"] = np.inf
            known = set(cls._param_names())
            params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()
                      if k in known}
            model = cls(**params)
            model.coef_, model.feature_mean_, model.feature_std_ = coef, mean, scale
            model.kind_ = meta["kind"]
            model.n_node_features_ = int(meta["n_node_features"])
            model.n_edge_features_ = int(meta["n_edge_features"])
            model.fg_share_ = float(meta["fg_share"])
            model.size_unit_ = float(meta["size_unit"])
            model.class_weights_ = tuple(meta["class_weights"])
            model.history_ = meta["history"]
            model.node_feature_names_ = meta.get("node_feature_names")
            model.edge_feature_names_ = meta.get("edge_feature_names")
            model.chosen_ = meta.get("chosen")
            model.selection_ = meta.get("selection")
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{bad} (damaged header: {type(exc).__name__}: {exc})") from None
        if model.kind_ not in ("image", "points"):
            raise ValueError(f"{bad} (unknown kind {model.kind_!r})")
        dn, de = model.n_node_features_, model.n_edge_features_
        if version == 1 and not model.use_edges and coef.size > dn and not np.any(coef[dn:]):
            model.coef_ = coef[:dn]  # version-1 unary models stored unused zero edge weights
        if model.coef_.shape != (dn + de,) or mean.shape != (dn,) or scale.shape != (dn,):
            raise ValueError(f"{spath}: weight vector has the wrong size ({model.coef_.size} "
                             f"weights for {dn} node and {de} edge features)")
        want_n, want_e = _current_feature_names(model.kind_)
        have_n = model.node_feature_names_
        if have_n is not None and list(have_n) != list(want_n):
            raise ValueError(f"{spath}: the model was trained with other {model.kind_} features "
                             f"({len(have_n)} node features; this version computes "
                             f"{len(want_n)}): train it again")
        if have_n is None and dn != len(want_n):
            raise ValueError(f"{spath}: the model has {dn} node features, this version computes "
                             f"{len(want_n)} for {model.kind_} inputs: train it again")
        if de and model.edge_feature_names_ is not None and \
                list(model.edge_feature_names_) != list(want_e):
            raise ValueError(f"{spath}: the model was trained with other edge features: "
                             f"train it again")
        return model


class DegenerateDataError(ValueError):
    """Training data that cannot define the task (no foreground, or no background)."""


class _GraphFiles:
    """A re-iterable list of graphs cached on disk (loaded one at a time)."""

    def __init__(self, paths):
        self.paths = list(paths)

    def __len__(self):
        return len(self.paths)

    def __iter__(self):
        for p in self.paths:
            yield _load_graph(p)


def _feature_names(graph):
    from .features import SuperpixelGraph

    if isinstance(graph, SuperpixelGraph):
        from .features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES

        names = (list(NODE_FEATURE_NAMES), list(EDGE_FEATURE_NAMES))
    else:
        from .points import POINT_EDGE_FEATURE_NAMES, POINT_FEATURE_NAMES

        names = (list(POINT_FEATURE_NAMES), list(POINT_EDGE_FEATURE_NAMES))
    if len(names[0]) != graph.node_features.shape[1]:
        return None, None  # hand-made graphs with their own features
    return names


def _current_feature_names(kind):
    if kind == "image":
        from .features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES

        return list(NODE_FEATURE_NAMES), list(EDGE_FEATURE_NAMES)
    from .points import POINT_EDGE_FEATURE_NAMES, POINT_FEATURE_NAMES

    return list(POINT_FEATURE_NAMES), list(POINT_EDGE_FEATURE_NAMES)


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
    return _describe(row) + ("" if row.get("best_iter") is None else f", iteration {row['best_iter']}")


def _jsonable(obj):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        return float(obj)
    if isinstance(obj, (np.integer, int)) and not isinstance(obj, bool):
        return int(obj)
    return obj
