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

import numpy as np

from structpred import ParamsMixin
from structpred import atomic_write
from structpred import LEARNERS, check_learner, run_learner
from structpred import MinCutExample, decode_mincut
from structpred import Monitor
from structpred import L2Ball
from structpred import ExampleStream

from .metrics import segmentation_scores

__all__ = ["MRFSegmenter", "LEARNERS", "build_example", "class_weights", "parse_class_weight"]



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
    size = np.asarray(graph.sizes, dtype=np.float64) / size_unit
    if use_edges:
        edges, Xe = graph.edges, (feature_scale * edge_scale) * np.asarray(graph.edge_features,
                                                                           dtype=np.float64)
    else:
        edges, Xe = np.zeros((0, 2), np.int64), np.zeros((0, graph.edge_features.shape[1]))
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


class MRFSegmenter(ParamsMixin):
    """Binary associative MRF trained by max-margin estimation, scikit-learn style.

    Parameters
    ----------
    learner : one of ``LEARNERS``
        ``"dual-extragradient"`` (memory-efficient form, the default),
        ``"projected-gradient"``, ``"perceptron"`` (averaged) or ``"subgradient"``.
    n_iter : int
        Iterations (epochs for the perceptron).
    use_edges : bool
        ``False`` gives the unary-only linear model (same node features, no
        edges; decoding is then thresholding ``s_j > 0``).
    class_weight : None, "balanced" or float
        Loss weighting, see the module docstring.
    radius : float
        ``gamma`` of the parameter ball; ``inf`` follows the unregularised
        path and selects along it on validation (sec. 2.6).
    learning_rate : float or None
        Step size ``eta`` (default ``eta_scale / ||F||_2``) or perceptron rate
        (default 1).
    eta_scale : float
        Default step ``eta = eta_scale / ||F||_2`` of the dual extragradient and
        projected gradient.  ``1`` is the thesis' choice and the largest step
        covered by the convergence guarantee of eq. 2.19; larger values move
        along the path faster, without that guarantee.
    validate_every : int
        Record hinge loss / validation error every so many iterations.
    validation_metric : {"iou", "error"}
        Selection criterion on the validation set: ``1 - IoU`` or pixel error.
    edge_scale : float
        Multiplies the edge features.  With a shared step size and an
        unregularised path, this sets how fast the edge weights grow relative
        to the node weights (a prior on smoothing strength).
    feature_scale : float
        Multiplies every feature (default 0.02).  Predictions depend only on the direction
        of ``w``, so this only changes the geometry of the saddle point: with
        ``eta = 1/||F||`` the ``w``-steps grow and the ``z``-steps shrink by
        this factor (their product stays ``1/||F||^2``).  With 1, the w-steps
        are so short relative to the z-steps that 100 dual-ex iterations on
        40 horse images left ``||w|| < 1`` and the MRF below unary-only;
        0.02 reached 69 % validation IoU in the same 100 iterations.
    memory_efficient : bool
        Stream training examples from an on-disk cache (one at a time), so
        that memory does not grow with the number of images.
    cache_dir : str or None
        Where the streamed graphs go (a temporary directory by default).
    n_segments, compactness : SLIC parameters (images only).
    voxel, k_graph : thinning voxel size (metres) and neighbours per node
        (point clouds only, see :mod:`segmentation.points`).
    random_state : int
    verbose : bool
    """

    def __init__(self, learner="dual-extragradient", n_iter=100, use_edges=True,
                 class_weight="balanced", radius=np.inf, learning_rate=None, eta_scale=1.0,
                 validate_every=5, validation_metric="iou", edge_scale=1.0, feature_scale=0.02,
                 memory_efficient=False, cache_dir=None, n_segments=1000, compactness=10.0,
                 voxel=0.25, k_graph=6, random_state=0, verbose=False):
        self.learner = learner
        self.n_iter = n_iter
        self.use_edges = use_edges
        self.class_weight = class_weight
        self.radius = radius
        self.learning_rate = learning_rate
        self.eta_scale = eta_scale
        self.validate_every = validate_every
        self.validation_metric = validation_metric
        self.edge_scale = edge_scale
        self.feature_scale = feature_scale
        self.memory_efficient = memory_efficient
        self.cache_dir = cache_dir
        self.n_segments = n_segments
        self.compactness = compactness
        self.voxel = voxel
        self.k_graph = k_graph
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------- graphs
    def image_graph(self, image, mask=None):
        """Superpixel graph of one image (see :mod:`segmentation.features`)."""
        from .features import superpixel_graph

        return superpixel_graph(image, mask, n_segments=self.n_segments, compactness=self.compactness)

    def point_graph(self, xyz, labels=None):
        """Thinned kNN graph of a point cloud (see :mod:`segmentation.points`)."""
        from .points import point_graph

        return point_graph(xyz, labels, voxel=self.voxel, k_graph=self.k_graph)

    # ---------------------------------------------------------------- fit
    def fit(self, images, masks, valid_images=None, valid_masks=None):
        """Train on RGB images (``(H, W, 3)`` uint8) and boolean masks.

        ``images`` and ``masks`` may be iterators: with ``memory_efficient``
        each image is turned into a graph, written to the cache and dropped.
        """
        graphs = (self.image_graph(im, m) for im, m in _zip_strict(images, masks, "images", "masks"))
        valid = None
        if valid_images is not None:
            valid = [self.image_graph(im, m)
                     for im, m in _zip_strict(valid_images, valid_masks, "validation images", "masks")]
        return self.fit_graphs(graphs, valid, kind="image")

    def fit_graphs(self, graphs, valid_graphs=None, kind="image", track_graphs=None):
        """Train on graphs (:class:`~segmentation.features.SuperpixelGraph` or
        :class:`~segmentation.points.PointGraph`) with ``fg_fraction`` set.

        Parameters
        ----------
        graphs : iterable of graphs
            Consumed once.  With ``memory_efficient`` each graph is written to
            the cache as it comes, so a generator keeps one graph in memory.
        valid_graphs : list of graphs, optional
            Validation set: the parameters with the best validation score
            along the path are kept (sec. 2.6).
        track_graphs : list of graphs, optional
            Also record the error and IoU on these graphs at every recorded
            iteration (``history_["track_error"]``, ``["track_iou"]``), for
            plots of test error against ``||w||`` (fig. 2.7).
        """
        from structpred import power_iteration_norm

        check_learner(self.learner)
        if self.validation_metric not in ("iou", "error"):
            raise ValueError(f"validation_metric must be 'iou' or 'error', got {self.validation_metric!r}")
        self.kind_ = kind
        tmp = None
        paths = []
        kept = []
        if self.memory_efficient:
            from .graph_io import save_graph

            root = self.cache_dir or (tmp := tempfile.mkdtemp(prefix="structpred-seg-"))
            os.makedirs(root, exist_ok=True)
        # one pass: standardisation and loss statistics (and the on-disk cache)
        s1 = s2 = None
        cnt, fg, tot, nodes, n_edge_feat = 0, 0.0, 0.0, 0, 0
        for i, g in enumerate(graphs):
            if g.fg_fraction is None:
                raise ValueError("training graphs need ground truth (fg_fraction)")
            X = np.asarray(g.node_features, dtype=np.float64)
            if s1 is None:
                s1, s2 = np.zeros(X.shape[1]), np.zeros(X.shape[1])
                n_edge_feat = g.edge_features.shape[1]
            s1 += X.sum(0)
            s2 += (X ** 2).sum(0)
            cnt += X.shape[0]
            fg += float(np.dot(g.fg_fraction, g.sizes))
            tot += float(np.sum(g.sizes))
            nodes += g.sizes.size
            if self.memory_efficient:
                p = os.path.join(root, f"graph{i:06d}.npz")
                save_graph(g, p)
                paths.append(p)
            else:
                kept.append(g)
        if s1 is None:
            raise ValueError("no training data")
        mean = s1 / cnt
        scale = np.sqrt(np.maximum(s2 / cnt - mean ** 2, 0.0))
        const = scale < 1e-9
        mean[const], scale[const] = 0.0, 1.0  # constant columns (the bias) stay as they are
        self.feature_mean_, self.feature_std_ = mean, scale
        self.fg_share_ = fg / tot
        self.size_unit_ = tot / nodes
        self.class_weights_ = class_weights(self.class_weight, self.fg_share_)
        self.n_node_features_ = mean.size
        self.n_edge_features_ = n_edge_feat if self.use_edges else 0
        self.n_train_ = len(paths) + len(kept)
        args = (mean, scale, bool(self.use_edges), *self.class_weights_, self.size_unit_,
                float(self.edge_scale), float(self.feature_scale))
        if self.memory_efficient:
            examples = ExampleStream(functools.partial(_stream_examples, paths, *args), len(paths))
        else:
            examples = [build_example(g, *args) for g in kept]
            del kept

        validation = None
        if valid_graphs:
            valid_graphs = list(valid_graphs)

            def validation(w):
                sc = self._scores_on_graphs(w, valid_graphs)
                return 1.0 - sc.iou if self.validation_metric == "iou" else sc.error

        track = {"track_error": [], "track_iou": []}
        callback = None
        if track_graphs:
            track_graphs = list(track_graphs)

            def callback(t, w, rec):
                sc = self._scores_on_graphs(w, track_graphs)
                track["track_error"].append(sc.error)
                track["track_iou"].append(sc.iou)
                return False

        monitor = Monitor(every=self.validate_every, hinge=True, validation=validation,
                          callback=callback)
        dn, de = self.n_node_features_, self.n_edge_features_
        W = L2Ball(radius=self.radius, nonneg=tuple(range(dn, dn + de)))
        eta = self.learning_rate
        self.lipschitz_ = None
        if eta is None and self.learner in ("dual-extragradient", "projected-gradient"):
            # eta = eta_scale / ||F||_2 (thesis: eta_scale = 1)
            self.lipschitz_ = power_iteration_norm(examples, random_state=self.random_state)
            eta = float(self.eta_scale) / self.lipschitz_
        try:
            res = run_learner(self.learner, examples, W, n_iter=self.n_iter, eta=eta,
                              monitor=monitor, verbose=self.verbose,
                              random_state=self.random_state)
        finally:
            if tmp is not None:
                import shutil

                shutil.rmtree(tmp, ignore_errors=True)
        self.result_ = res
        self.coef_ = res.w
        self.history_ = dict(res.history)
        if track_graphs:
            self.history_.update(track)
        return self

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
        X = (np.asarray(graph.node_features, dtype=np.float64) - self.feature_mean_) / self.feature_std_
        X *= self.feature_scale
        s = X @ w[:dn]
        if self.n_edge_features_ and graph.edges.shape[0]:
            lam = np.maximum(self.feature_scale * self.edge_scale * (graph.edge_features @ w[dn:]), 0.0)
            return decode_mincut(s, lam, graph.edges).astype(bool)
        return s > 0

    def _scores_on_graphs(self, w, graphs):
        preds, truths = [], []
        for g in graphs:
            yhat = self._predict_graph(w, g)
            if getattr(g, "labels", None) is not None and getattr(g, "mask", None) is not None:
                preds.append(g.to_pixels(yhat))
                truths.append(g.mask)
            else:  # no pixel/point map: score the nodes
                preds.append(yhat)
                truths.append(g.node_labels().astype(bool))
        return segmentation_scores(preds, truths)

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
        """Weights, standardisation, hyperparameters and history in one ``.npz``."""
        self._check_fitted()
        params = self.get_params()
        params["radius"] = None if not np.isfinite(self.radius) else float(self.radius)
        meta = {"format": "structpred-mrf-segmenter", "version": 1, "params": params,
                "kind": self.kind_, "n_node_features": self.n_node_features_,
                "n_edge_features": self.n_edge_features_, "fg_share": self.fg_share_,
                "size_unit": self.size_unit_, "class_weights": list(self.class_weights_),
                "history": {k: list(map(float, v)) for k, v in self.history_.items()},
                "best_iter": self.result_.best_iter if hasattr(self, "result_") else None}
        with atomic_write(path, mode="wb") as fh:
            np.savez_compressed(fh, coef=self.coef_, feature_mean=self.feature_mean_,
                                feature_std=self.feature_std_,
                                meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8))

    @classmethod
    def load(cls, path):
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode("utf-8"))
                coef = np.array(data["coef"])
                mean = np.array(data["feature_mean"])
                scale = np.array(data["feature_std"])
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a structpred segmentation model ({exc})") from None
        if meta.get("format") != "structpred-mrf-segmenter":
            raise ValueError(f"{path}: not a structpred segmentation model")
        params = meta["params"]
        if params["radius"] is None:
            params["radius"] = np.inf
        model = cls(**params)
        model.coef_, model.feature_mean_, model.feature_std_ = coef, mean, scale
        model.kind_ = meta["kind"]
        model.n_node_features_ = meta["n_node_features"]
        model.n_edge_features_ = meta["n_edge_features"]
        model.fg_share_ = meta["fg_share"]
        model.size_unit_ = meta["size_unit"]
        model.class_weights_ = tuple(meta["class_weights"])
        model.history_ = meta["history"]
        if coef.size != model.n_node_features_ + model.n_edge_features_:
            raise ValueError(f"{path}: weight vector has the wrong size")
        return model

