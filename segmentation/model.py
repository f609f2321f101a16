"""Max-margin associative MRF segmenter (thesis secs. 2.2.2, 2.3, 2.6.1).

The *model* lives here (graphs, features, loss weights, decoding into masks);
the *learners* are the problem-agnostic solvers of :mod:`structpred`, fed
:class:`~structpred.MinCutExample` objects.

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
import os
import tempfile
import time

import numpy as np

from sklearn.base import BaseEstimator

from structpred import LEARNERS, check_ordered, run_learner
from structpred import decode_mincut
from structpred import Monitor
from structpred import L2Ball
from structpred import ExampleStream
from structpred import check_unchanged_since_fit, estimator_seed
from structpred.selection import unwrap_eval_set

from .examples import (AUTO_CLASS_WEIGHTS, AUTO_ETA_SCALES, _candidates, _describe,
                       _stream_examples, _zip_strict, build_example,
                       class_weights, describe_choice, is_validation_item,
                       parse_class_weight, DegenerateDataError, keep_graphs, prepare_graphs)
from .choice import CandidateSearch
from ._colour_pass import ColourPass
from ._image_kind import warn_image_kind
from .metrics import segmentation_scores

__all__ = ["MRFSegmenter", "LEARNERS", "build_example", "class_weights", "parse_class_weight",
           "DegenerateDataError", "describe_choice", "is_validation_item", "AUTO_CLASS_WEIGHTS",
           "AUTO_ETA_SCALES"]



from ._params import DEFAULT_EDGE_FACTORS, check_params

#: the hyperparameters that make the features the weights are for, by kind of data: changed
#: by set_params after fit, predict refuses them (they were read anew: other features)
_FEATURE_PARAMS = {"image": ("use_edges", "colour_model", "colour_components", "compactness",
                             "feature_scale", "edge_scale"),
                   "points": ("use_edges", "voxel", "k_graph", "feature_scale", "edge_scale")}


def _check_image_list(images, what="images"):
    """Refuse one image array given where a sequence of images is expected: iterated, its
    rows would be read as images (and refused with a message about their shape); ``None``,
    a set or a dict (:func:`structpred.check_ordered`)."""
    check_ordered(images, what, "images", read=False)
    if isinstance(images, np.ndarray) and images.dtype != object and (
            images.ndim == 2 or (images.ndim == 3 and images.shape[-1] in (3, 4))):
        raise TypeError(f"{what}: expected a list of images, got one image array of shape "
                        f"{images.shape}: wrap it in a list ([image])")



class MRFSegmenter(ColourPass, CandidateSearch, BaseEstimator):
    r"""Binary associative MRF trained by max-margin estimation, scikit-learn style.

    The model.  A labelling :math:`y \in \{0, 1\}^n` of the nodes (superpixels or
    thinned points) of a graph with edges :math:`E` scores

    .. math::

        s(y) = \sum_j y_j\, w_n^\top f_n(x_j)
               - \sum_{(j,k) \in E} [y_j \ne y_k]\, w_e^\top f_e(x_{jk}),
        \qquad w_e \ge 0,\ f_e \ge 0,                                              \tag{1}

    (associative, thesis eq. 2.5), decoded by an s-t minimum cut and trained by the
    dual extragradient on the max-margin saddle point with the weighted Hamming loss
    of the module docstring (eq. 2.10).  ``use_edges=False`` is the unary-only model,
    :math:`w_e = 0`: :math:`y_j = [w_n^\top f_n(x_j) > 0]`.

    Two passes (images, ``colour_model``).  A first unary model :math:`w^{(1)}` on
    the base features scores every superpixel; per image, Gaussian mixtures are fitted
    to the colours of its predicted foreground and background and their log-likelihood
    ratio (with its neighbourhood mean) is appended to :math:`f_n`
    (:mod:`segmentation.colour_model`, eqs. 1-2 there).  Everything below runs on
    the augmented features; :meth:`predict` repeats the first pass on new images.
    With ``colour_folds`` = K >= 2 the colour models of a *training* image are
    fitted to out-of-fold scores instead (cross-fitting): with image ``i`` in fold
    ``i mod K``,

    .. math::

        s_i = w^{(1)}_{-k(i)} {}^\top f_n(x_i),                                    \tag{8}

    where :math:`w^{(1)}_{-k}` is the first pass trained on the other folds, with the
    settings and for the iterations of the full first pass, so that the second pass
    learns from colour features as noisy as those of new images.  The default, 0, fits
    them to the first pass's in-sample scores: K = 3 was no better on the horses' held-out
    training images (pooled IoU -0.20 over 528 images, 25-image draws included; not
    better in 72.6 % of the paired bootstraps), as each fold's first pass, trained on
    fewer images, is noisier than the one that scores new images.

    Choices on validation.  ``class_weight`` and ``eta_scale`` (and ``n_segments``)
    take a value, a list of candidates or ``"auto"`` (:data:`AUTO_CLASS_WEIGHTS`,
    :data:`AUTO_ETA_SCALES`).  Every combination is trained and stopped by the rule

    .. math::

        \max_{r' \le r} v_{r'} - \max_{r' \le r - p} v_{r'} \le \mathrm{tol}   \tag{2}

    on the validation IoUs :math:`v_r` recorded every ``validate_every`` iterations
    (``p = patience``), or at the cap

    .. math::

        T_{\max} = \min(300,\ 60 + n_{\mathrm{train}})
        \quad (\times 5 \text{ for unary-only candidates})                        \tag{3}

    (``n_iter="auto"``; reaching it is logged and recorded as ``capped``), and the
    best combination is kept at its best recorded iterate (sec. 2.6).  With more
    training graphs than ``selection_size`` the grid runs on that many and the winner
    is trained again on all of them.  Validation is ``eval_set``, or else every
    ``1/valid_fraction``-th training item (:func:`is_validation_item`), held out.

    The guard (``guard``).  Unary-only (the same search with :math:`w_e = 0`), the
    chosen MRF, and the MRF with its edge weights rescaled, :math:`(w_n, s\,w_e)` for
    each ``s`` in ``edge_factors`` (weaker or stronger smoothing than training stopped
    at), are compared on the validation items by the pooled IoU of the per-item
    intersections and unions :math:`(I_i, U_i)`,

    .. math::

        \mathrm{IoU}(S) = \frac{\sum_{i \in S} I_i}{\sum_{i \in S} U_i}.    \tag{4}

    The best candidate replaces unary-only only when it is better in at least
    ``1 - guard_alpha`` (95 %) of paired bootstrap resamples :math:`S^{(b)}` of the
    items (:func:`structpred.selection.prefer_default`), i.e. when

    .. math::

        \frac{1}{B} \sum_{b=1}^{B} \big[\mathrm{IoU}_{\mathrm{best}}(S^{(b)})
        \le \mathrm{IoU}_{\mathrm{unary}}(S^{(b)})\big] < \alpha.               \tag{5}

    With fewer than ``min_valid`` validation items the validation items go back
    into training and the choice is made by ``cv_folds``-fold cross-validation
    (item ``i`` in fold ``i mod K``): each fold runs both searches on the other folds
    and contributes its items' :math:`(I_i, U_i)` under every candidate; eq. 5 runs
    on all :math:`n_{\mathrm{train}}` items, and the kept kind of model is trained on
    all of them with the settings most folds chose, for

    .. math::

        T = 1 + \operatorname{median}_k t^{*}_k                                    \tag{6}

    iterations (:math:`t^*_k`: the best iteration of fold ``k``).  ``selection_``
    lists every candidate, ``chosen_`` the kept one and ``guard_`` the evidence
    (``line`` is what the command line prints).

    The refit (``refit``).  When the validation items were held out of the training
    items, the kept candidate (its class weight, step and edge factor) is trained again
    on all of them, with the standardisation of all of them, for

    .. math::

        T = 1 + t^{*}                                                              \tag{7}

    iterations (:math:`t^*`: its best validated iteration), as eq. 6 does after the
    cross-validation; the first pass of the colour models stays the one trained on the
    items not held out.

    Parameters
    ----------
    learner : one of ``LEARNERS``
        ``"dual-extragradient"`` (memory-efficient form, the default),
        ``"projected-gradient"``, ``"perceptron"`` (averaged) or ``"subgradient"``.
    n_iter : int or "auto"
        Most iterations (epochs for the perceptron) of one candidate; ``"auto"``: eq. 3.
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
        ``p`` of the stopping rule (eq. 2), in records (>= 1); None runs to the cap.
    tol : float
        Smallest gain of the best validation score over ``patience`` records that
        keeps a candidate going (eq. 2; 0.0025 is 0.25 IoU points).
    valid_fraction : float
        Share of the training images held out for validation when none is
        given (0: no validation; the last iterate of the fixed settings).
    validation_metric : {"iou", "error"}
        Selection criterion on the validation set: foreground IoU or pixel error.
    guard : bool
        Keep the MRF only when it beats unary-only by eq. 5 (and choose by
        cross-validation with few validation items); False keeps the MRF.
    guard_alpha : float
        :math:`\alpha` of eq. 5.
    edge_factors : tuple of float
        Factors ``s > 0`` of the chosen MRF's edge weights, candidates of the guard
        (the best on validation is kept, if it beats unary-only by eq. 5).  Factors other
        than the default with ``guard=False`` or ``use_edges=False`` are refused (there
        is no guard to use them).  The default
        (0.5, 1.5, 2, 3) replaced (0.5,) by cross-validation over the horses and the
        Oakland scans (``scripts/select_segmentation_defaults.py``): training stopped
        early on validation leaves the edge weights short of their best strength.
    min_valid : int
        Fewer validation items than this: the choice by cross-validation (eq. 6).
    cv_folds : int
        ``K`` of the cross-validation.
    refit : bool
        Train the kept candidate again on all the training items, the held-out
        validation items included (eq. 7); nothing is refitted with ``eval_set``.
    colour_model : bool
        Images: the two-pass model with per-image colour models.
    colour_components : int
        Gaussian components per colour model.
    colour_folds : int
        K of the cross-fitted first pass (eq. 8); 0 (the default) or 1: the training
        images' colour models are fitted to the first pass's in-sample scores.
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
        A list needs images that can be read again (:meth:`fit` with lists of
        images, or a factory).
    voxel, k_graph : thinning voxel size (metres) and neighbours per node
        (point clouds only, see :mod:`segmentation.points`).
    selection_size : int or None
        With several candidates and more training graphs than this, the
        candidates are compared on this many evenly spaced training graphs
        (with the full validation set), and only the winner is trained on all
        of them, again stopped early on validation.  None: every candidate on
        all training graphs.
    n_jobs : int or None
        Candidates trained at once, in forked processes (-1, the default: as many as the
        CPUs this process may use, -2 all but one; 1 or None, as scikit-learn reads it: one
        after the other).  The results are the same; without
        ``fork``, or while this process runs other threads (a Dask client), one after the
        other.
    foreground_labels : str or None
        Point clouds: the fine labels that make the foreground
        (``"1300-1306"``); recorded with the model so that ``eval`` reads
        labelled scans the same way.  Not used by the estimator itself.
    random_state : int, None, numpy RandomState or Generator
    verbose : bool
        Progress bars.
    """

    def __init__(self, learner="dual-extragradient", n_iter="auto", use_edges=True,
                 class_weight="auto", radius=np.inf, learning_rate=None, eta_scale="auto",
                 validate_every=5, patience=4, tol=0.0025, valid_fraction=0.15,
                 validation_metric="iou", guard=True, guard_alpha=0.05,
                 edge_factors=DEFAULT_EDGE_FACTORS,
                 min_valid=20, cv_folds=3, refit=False, colour_model=True, colour_components=3,
                 colour_folds=0,
                 edge_scale=1.0, feature_scale=0.02, memory_efficient=False, cache_dir=None,
                 n_segments=1000, compactness=10.0, voxel=0.25, k_graph=6,
                 foreground_labels=None, selection_size=48, n_jobs=-1, random_state=0,
                 verbose=False):
        self.learner = learner
        self.n_iter = n_iter
        self.tol = tol
        self.guard = guard
        self.guard_alpha = guard_alpha
        self.edge_factors = edge_factors
        self.min_valid = min_valid
        self.cv_folds = cv_folds
        self.refit = refit
        self.colour_model = colour_model
        self.colour_components = colour_components
        self.colour_folds = colour_folds
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
        self.n_jobs = n_jobs
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

    def point_graph(self, xyz, labels=None, spacing=None):
        """Thinned kNN graph of a point cloud (see :mod:`segmentation.points`; ``spacing``:
        the training scans' point spacing, a scan in other units refused)."""
        from .points import point_graph

        return point_graph(xyz, labels, voxel=self.voxel, k_graph=self.k_graph, spacing=spacing)

    # ---------------------------------------------------------------- fit
    def fit(self, X, y=None, *, eval_set=None, ignore=None, eval_ignore=None, kind=None,
            track=None, log=None, executor=None):
        """Choose and train the model (the whole procedure of the class docstring).

        Parameters
        ----------
        X : sequence of images, iterable of graphs, or callable
            * RGB images (``(H, W, 3)`` uint8) with their masks in ``y``;
            * graphs (:class:`~segmentation.features.SuperpixelGraph` or
              :class:`~segmentation.points.PointGraph`) with ``fg_fraction`` set, ``y``
              None; an iterator is consumed once (with ``memory_efficient`` each graph
              is written to the cache as it comes);
            * a factory ``n_segments -> iterable of graphs`` (``y`` None), called once
              per ``n_segments`` candidate: how the command line streams images from disk.
        y : sequence of bool masks ``(H, W)``, optional
            Ground truth of images.
        eval_set : optional
            Validation data in one of the forms of ``X``: ``(images, masks)``, a list
            ``[(images, masks)]``, graphs, or a factory.  Default: every
            ``1/valid_fraction``-th training item, held out (:func:`is_validation_item`).
        ignore, eval_ignore : sequence of bool arrays or None, optional
            "Don't care" pixels of the masks.
        kind : {"image", "points"}, optional
            Of a factory's graphs (default ``"image"``); graphs and images say it themselves.
        track : list of graphs, optional
            Also record error and IoU on these graphs along the path
            (``history_["track_error"]``, ``["track_iou"]``), for fig. 2.7 of the thesis.
        log : callable, optional
            Receives one line per candidate and the choice with its evidence.
        executor : ``dask.distributed.Client`` or :class:`concurrent.futures.Executor`
            Runs the learner's passes over the examples there (:func:`structpred.run_learner`).

        Returns
        -------
        self
        """
        self.__dict__.pop("_fitted_features", None)   # this fit's are set at its end
        make_train, kind = self._as_source(X, y, ignore, kind, "images")
        make_valid = None
        if eval_set is not None:
            eval_set = unwrap_eval_set(eval_set)
            if isinstance(eval_set, tuple) and len(eval_set) == 2 and not callable(eval_set[0]):
                make_valid, _ = self._as_source(eval_set[0], eval_set[1], eval_ignore, kind,
                                                "validation images")
            else:
                make_valid, _ = self._as_source(eval_set, None, None, kind, "validation graphs")
        segs = _candidates(self.n_segments, (1000,), "n_segments") if kind == "image" else [None]
        if len(segs) > 1 and getattr(make_train, "single_use", False):
            raise ValueError("choosing n_segments needs images or a factory (read once per "
                             "candidate), not graphs or iterators of images")
        self._executor = executor
        try:
            return self._fit(make_train, make_valid, kind, segs, track, log)
        finally:
            self._executor = None

    def _as_source(self, X, y, ignore, kind, what):
        """``(factory n_segments -> graphs, kind)`` of one of the input forms of :meth:`fit`."""
        import itertools

        from .features import SegmentationGraph
        from .points import PointGraph

        if callable(X):
            if y is not None:
                raise ValueError("a factory of graphs takes no y")
            return X, kind or "image"
        _check_image_list(X, what)
        if y is None:
            it = iter(X)
            first = next(it, None)
            if first is not None and not isinstance(first, SegmentationGraph):
                raise ValueError(f"{what}: images need their masks (y)")
            graphs = X if isinstance(X, (list, tuple)) else itertools.chain(
                [] if first is None else [first], it)
            found = "points" if isinstance(first, PointGraph) else "image"

            def make(ns):
                return graphs
            make.single_use = not isinstance(X, (list, tuple))
            return make, found if first is not None else (kind or "image")
        reread = all(isinstance(v, (list, tuple)) for v in (X, y))

        def make(ns):
            igs = ignore if ignore is not None else itertools.repeat(None)
            for i, ((im, m), ig) in enumerate(zip(_zip_strict(X, y, what, "masks"), igs)):
                if m is None:   # "training graphs need ground truth (fg_fraction)" before
                    raise TypeError(f"{what}: mask {i} is None: every image needs its mask")
                yield self.image_graph(im, m, ig, n_segments=ns)
        make.single_use = not reread
        return make, "image"

    def _check_params(self):
        check_params(self)

    def iteration_cap(self, n_train, use_edges=True):
        """Most iterations of one candidate: ``n_iter``, or with ``"auto"`` eq. 3,
        ``min(300, 60 + n_train)``: more images take more iterations.  Unary-only
        candidates (no min-cut, no projection onto the min-cut polytope; about 50 times
        cheaper per iteration) get five times as many."""
        if self.n_iter != "auto":
            return int(self.n_iter)
        return int(min(300, 60 + int(n_train))) * (1 if use_edges else 5)

    def _fit(self, make_train, make_valid, kind, segs, track_graphs, log):
        log = log or (lambda msg: None)
        self._check_params()
        self.kind_ = kind
        frac = float(self.valid_fraction)
        tmp = None
        root = None
        if self.memory_efficient:
            root = self.cache_dir or (tmp := tempfile.mkdtemp(prefix="structpred-seg-"))
            os.makedirs(root, exist_ok=True)
        rows, best = [], None
        try:
            for si, ns in enumerate(segs):
                held = make_valid is None and frac > 0
                prep, valid = prepare_graphs(make_train(ns), held, frac, root, f"s{si}",
                                             self.kind_, self.use_edges)
                if make_valid is not None:
                    valid = keep_graphs(make_valid(ns), root, f"s{si}-valid")
                if valid is not None and not len(valid):
                    valid = None
                first = None
                if self._uses_colour_model(kind):
                    first = self._colour_pass(prep, valid, log)
                cv = (bool(self.guard) and valid is not None
                      and len(valid) < int(self.min_valid)
                      and prep.n_train + len(valid) >= int(self.cv_folds))
                if cv:
                    prep = self._merged(prep, valid, held)
                    out = self._fit_cv(prep, ns, log)
                else:
                    out = self._fit_on_validation(prep, valid, ns, track_graphs, log)
                    if self.refit and held and out["validated"]:
                        out = self._refit(out, self._merged(prep, valid, held), len(valid),
                                          ns, log)
                out["first"] = first
                rows.extend(out["rows"])
                if best is None or out["score"] > best["score"] + 1e-12:
                    best = out
        finally:
            if tmp is not None:
                import shutil

                shutil.rmtree(tmp, ignore_errors=True)
        self._set_fitted(best, rows)
        return self

    def _set_fitted(self, best, rows):
        prep, row, res = best["prep"], best["row"], best["res"]
        self.selection_ = rows
        self.chosen_ = dict(row)
        self.validated_ = best["validated"]
        self.guard_ = best.get("guard")
        # not saved: the per-item validation (intersection, union) of every candidate of
        # the guard, and the weights of the candidates trained on all the data
        self.guard_stats_ = best.get("stats")
        self.candidates_ = best.get("cands")
        first = best.get("first")
        if first is not None:
            self.first_pass_coef_, self.first_pass_mean_, self.first_pass_std_ = first
        self.feature_mean_, self.feature_std_ = prep.mean, prep.scale
        self.fg_share_, self.size_unit_ = prep.fg_share, prep.size_unit
        self.spacing_ = prep.spacing   # the training scans' point spacing (points.check_spacing)
        self.grey_ = getattr(prep, "grey", None)   # grey training images (_image_kind)
        self.class_weights_ = class_weights(row["class_weight"], prep.fg_share)
        self.n_node_features_, self.n_edge_features_ = prep.n_node, prep.n_edge
        self.node_feature_names_, self.edge_feature_names_ = prep.node_names, prep.edge_names
        self.n_train_ = prep.n_train
        self.n_valid_ = getattr(prep, "n_valid", None)
        self.result_ = res
        if first is None:
            for a in ("first_pass_coef_", "first_pass_mean_", "first_pass_std_"):
                self.__dict__.pop(a, None)
        self.coef_ = best["w"]
        self.history_ = best["hist"]
        self._fitted_features = {k: getattr(self, k)
                                 for k in _FEATURE_PARAMS.get(self.kind_, ())}

    def _use(self, prep):
        """Predict with the standardisation and feature counts of ``prep`` (edges included)."""
        self.n_node_features_, self.n_edge_features_ = prep.n_node, prep.n_edge
        self.feature_mean_, self.feature_std_ = prep.mean, prep.scale

    def _candidate(self, prep, cw, eta_scale, ns, valid, track_graphs, log, tag="",
                   use_edges=None, n_iter=None):
        t0, c0 = time.perf_counter(), time.process_time()
        res, hist, cap = self._train_candidate(prep, cw, eta_scale, valid, track_graphs,
                                               use_edges=use_edges, n_iter=n_iter)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        capped = res.status == 0 and valid is not None and n_iter is None
        row = dict(n_segments=ns, class_weight=cw, eta_scale=float(eta_scale),
                   best_iter=res.best_iter, n_iter=res.n_iter, n_train=prep.n_train,
                   valid_score=res.best_score, seconds=secs, cpu_seconds=cpu, cap=cap,
                   capped=capped)
        if valid is not None:
            log(f"  {_describe(row)}{tag}: validation {self._metric_name()} "
                f"{100 * res.best_score:.2f}% at iteration {res.best_iter} "
                f"({res.n_iter} run, {secs:.0f}s)")
            if capped:
                log(f"    reached the iteration cap ({cap}) before the stopping rule: not "
                    f"converged; raise --iterations")
        return row, res, hist

    def _score_of(self, res):
        score = res.best_score if res.best_score is not None else 0.0
        return -score if self.validation_metric == "error" else score

    def _metric_name(self):
        return "IoU" if self.validation_metric == "iou" else "error"

    def _examples(self, prep, cw, use_edges):
        args = (prep.mean, prep.scale, bool(use_edges), *class_weights(cw, prep.fg_share),
                prep.size_unit, float(self.edge_scale), float(self.feature_scale))
        if prep.paths:
            return ExampleStream(functools.partial(_stream_examples, prep.paths, *args),
                                 len(prep.paths))
        return [build_example(g, *args) for g in prep.kept]

    def _stopping_rule(self, valid):
        """The callback that stops a candidate when its best validation score has
        improved by at most ``tol`` over the last ``patience`` records (eq. 4)."""
        if valid is None or self.patience is None:
            return None
        sign = 1.0 if self.validation_metric == "iou" else -1.0
        best = []

        def stop(t, w, rec):
            v = sign * rec["validation"]
            best.append(v if not best else max(best[-1], v))
            p = int(self.patience)
            return len(best) > p and best[-1] - best[-1 - p] <= float(self.tol)
        return stop

    def _lipschitz(self, prep, use_edges, cw, examples=None):
        """``||F||_2`` of the training examples of ``prep`` (cached on ``prep``; it does
        not depend on the loss, so not on the class weight)."""
        from structpred import power_iteration_norm

        key = ("F", bool(use_edges))
        if key not in prep.lipschitz:
            if examples is None:
                examples = self._examples(prep, cw, use_edges)
            prep.lipschitz[key] = power_iteration_norm(examples, random_state=estimator_seed(self))
        return prep.lipschitz[key]

    def _train_candidate(self, prep, cw, eta_scale, valid, track_graphs, use_edges=None,
                         n_iter=None):

        use_edges = bool(self.use_edges) if use_edges is None else bool(use_edges)
        examples = self._examples(prep, cw, use_edges)
        n_edge = prep.n_edge if use_edges else 0
        self.n_node_features_, self.n_edge_features_ = prep.n_node, n_edge
        self.feature_mean_, self.feature_std_ = prep.mean, prep.scale
        validation = None
        if valid is not None:
            def validation(w):
                sc = self._scores_on_graphs(w, valid)
                return sc.iou if self.validation_metric == "iou" else sc.error

        track = {"track_error": [], "track_iou": []}
        rule = self._stopping_rule(valid)
        track_graphs = list(track_graphs) if track_graphs else None

        def callback(t, w, rec):
            if track_graphs:
                sc = self._scores_on_graphs(w, track_graphs)
                track["track_error"].append(sc.error)
                track["track_iou"].append(sc.iou)
            return bool(rule(t, w, rec)) if rule is not None else False

        monitor = Monitor(every=self.validate_every, hinge=bool(track_graphs) or valid is None,
                          validation=validation,
                          greater_is_better=self.validation_metric == "iou",
                          patience=None, callback=callback)
        dn, de = prep.n_node, n_edge
        W = L2Ball(radius=self.radius, nonneg=tuple(range(dn, dn + de)))
        eta = self.learning_rate
        if eta is None and self.learner in ("dual-extragradient", "projected-gradient"):
            # eta = eta_scale / ||F||_2 (thesis: eta_scale = 1); ||F|| does not depend on the loss
            self.lipschitz_ = self._lipschitz(prep, use_edges, cw, examples)
            eta = float(eta_scale) / self.lipschitz_
        cap = int(n_iter) if n_iter is not None else self.iteration_cap(prep.n_train, use_edges)
        res = run_learner(self.learner, examples, W, n_iter=cap, eta=eta, monitor=monitor,
                          verbose=self.verbose, random_state=estimator_seed(self),
                          executor=getattr(self, "_executor", None))
        hist = dict(res.history)
        if track_graphs:
            hist.update(track)
        return res, hist, cap

    # ------------------------------------------------------------- predict
    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            from sklearn.exceptions import NotFittedError   # a ValueError, as scikit-learn's

            raise NotFittedError("this MRFSegmenter is not fitted yet: call fit first")
        check_unchanged_since_fit(self, self.__dict__.get("_fitted_features", {}),
                                  "the weights are for the fitted features")

    @property
    def node_weights_(self):
        return self.coef_[:self.n_node_features_]

    @property
    def edge_weights_(self):
        return self.coef_[self.n_node_features_:]

    def _predict_graph(self, w, graph):
        dn = self.n_node_features_
        Xraw = np.asarray(graph.node_features, dtype=np.float64)
        first = getattr(self, "first_pass_mean_", None)
        if first is not None and Xraw.shape[1] == first.size and dn > first.size:
            graph = self._augment(graph)   # a base graph: the second pass's features first
            Xraw = np.asarray(graph.node_features, dtype=np.float64)
        if Xraw.shape[1] != dn:
            raise ValueError(f"the model expects {dn} node features per node, the input has "
                             f"{Xraw.shape[1]}: it was trained with other features")
        X = (Xraw - self.feature_mean_) / self.feature_std_
        X *= self.feature_scale
        s = X @ w[:dn]
        if self.n_edge_features_ and graph.edges.shape[0] and np.any(w[dn:] > 0):
            if graph.edge_features.shape[1] != self.n_edge_features_:
                raise ValueError(f"the model expects {self.n_edge_features_} edge features, the "
                                 f"input has {graph.edge_features.shape[1]}")
            lam = np.maximum(self.feature_scale * self.edge_scale * (graph.edge_features @ w[dn:]), 0.0)
            return decode_mincut(s, lam, graph.edges).astype(bool)
        return s > 0

    def _predictions(self, w, graphs):
        """``(predictions, truths, ignores)`` of graphs with ground truth: pixel (point)
        maps where the graph has them, else the nodes."""
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
        return preds, truths, ignores

    def _scores_on_graphs(self, w, graphs):
        return segmentation_scores(*self._predictions(w, graphs))

    def _image_stats(self, w, graphs):
        """Per-item ``(intersection, union)`` of the foreground, shape ``(N, 2)``."""
        from .metrics import iou_statistics

        return iou_statistics(*self._predictions(w, graphs))

    def score_graphs(self, graphs):
        """:class:`~segmentation.metrics.SegmentationScores` of the fitted model on graphs
        with ground truth (base-feature graphs get the second pass's features first)."""
        self._check_fitted()
        return self._scores_on_graphs(self.coef_, (self._spaced(g) for g in graphs))

    def _spaced(self, graph):
        """``graph``, once its point spacing is found near the training scans' (a scan in
        other units is a ``ValueError``: :func:`segmentation.points.check_spacing`)."""
        from .points import check_spacing

        check_spacing(getattr(graph, "spacing", None), getattr(self, "spacing_", None))
        return graph

    def predict_graph(self, graph):
        """Node labels (bool) of one graph."""
        self._check_fitted()
        return self._predict_graph(self.coef_, self._spaced(graph))

    def predict(self, images):
        """Boolean masks for RGB images."""
        _check_image_list(images)
        self._check_fitted()
        out, greys = [], []
        for im in images:
            g = self.image_graph(im)
            out.append(g.to_pixels(self._predict_graph(self.coef_, g)))
            greys.append(None if getattr(g, "grey", None) is None else bool(g.grey))
        warn_image_kind(getattr(self, "grey_", None), greys)   # of the training's kind?
        return out

    def predict_points(self, xyz):
        """Boolean labels of every point of a cloud."""
        self._check_fitted()
        g = self.point_graph(xyz, spacing=getattr(self, "spacing_", None))
        return g.to_pixels(self._predict_graph(self.coef_, g))

    def score(self, images, masks):
        """Foreground IoU (greater is better)."""
        return segmentation_scores(self.predict(images), masks).iou

    # ------------------------------------------------------------ persist
    def save(self, path):
        """Weights, standardisation, hyperparameters and history in one ``.npz``
        (no pickles: arrays and a JSON header with a format version;
        :func:`segmentation.model_io.save_segmenter`)."""
        from .model_io import save_segmenter

        self._check_fitted()
        save_segmenter(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`; raises ``ValueError`` naming ``path``
        on anything that is not such a model (never unpickles)."""
        from .model_io import load_segmenter

        return load_segmenter(cls, path)
