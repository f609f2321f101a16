"""The first pass of :class:`segmentation.model.MRFSegmenter` on images: a unary model on
the base features whose scores fit the per-image colour models of
:mod:`segmentation.colour_model`, and its cross-fitting on the training images.  A mixin: the
estimator's ``_candidate`` trains the first pass and ``_restat`` prepares a subset of the
graphs."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from structpred import estimator_seed

from .examples import AUTO_CLASS_WEIGHTS, AUTO_ETA_SCALES, _candidates, _load_graph

__all__ = ["ColourPass"]


class ColourPass:
    """The two-pass model's first pass (see the module docstring)."""

    def _uses_colour_model(self, kind):
        return kind == "image" and bool(self.colour_model)

    def _colour_pass(self, prep, valid, log):
        """First pass: a unary model on the base features; then every graph gets the
        colour-model features of :mod:`segmentation.colour_model` (eqs. 1-2) and ``prep``
        the statistics of the augmented graphs.  With ``colour_folds`` K >= 2 the
        training graphs' colour models are fitted to out-of-fold scores (eq. 8 of the
        class docstring).  Returns ``(w1, mean1, std1)``."""
        t0 = time.perf_counter()
        cws = _candidates(self.class_weight, AUTO_CLASS_WEIGHTS, "class_weight")
        etas = _candidates(self.eta_scale, AUTO_ETA_SCALES, "eta_scale")
        row, res, _ = self._candidate(prep, cws[0], etas[0], None, valid, None, lambda m: None,
                                      use_edges=False)
        first = (np.array(res.w, copy=True), prep.mean.copy(), prep.scale.copy())
        self.first_pass_coef_, self.first_pass_mean_, self.first_pass_std_ = first
        k = min(int(self.colour_folds), prep.n_train)
        folds = self._cross_fitted(prep, cws[0], etas[0], res, k) if k >= 2 else {}
        if prep.paths:   # one graph file at a time: the memory-efficient mode's promise
            from .graph_io import save_graph

            for i, p in enumerate(prep.paths):
                save_graph(self._augment(_load_graph(p), folds.get(i)), p)
            if valid is not None:
                for p in valid.paths:
                    save_graph(self._augment(_load_graph(p)), p)
        else:
            prep.kept[:] = [self._augment(g, folds.get(i)) for i, g in enumerate(prep.kept)]
            if valid is not None:
                valid[:] = [self._augment(g) for g in valid]
        new = self._restat(prep, prep.kept, prep.paths)
        prep.mean, prep.scale, prep.n_node = new.mean, new.scale, new.n_node
        prep.lipschitz = {}
        if prep.node_names is not None:
            from .colour_model import COLOUR_FEATURE_NAMES

            prep.node_names = list(prep.node_names) + list(COLOUR_FEATURE_NAMES)
        score = ("no validation" if res.best_score is None else   # not "IoU - at iteration None"
                 f"{self._metric_name()} {100 * res.best_score:.2f}% at iteration {res.best_iter}")
        how = f", on {k}-fold out-of-fold scores of the training images" if folds else ""
        log(f"  first pass (unary, base features): {score}; colour models fitted per image"
            f"{how} ({time.perf_counter() - t0:.0f}s)")
        return first

    def _cross_fitted(self, prep, cw, eta_scale, res, k):
        """``{i: (w1, mean1, std1)}``: for each training graph ``i``, the first pass trained
        on the other of ``k`` folds (graph ``i`` in fold ``i mod k``) with the full first
        pass's settings, for its iterations (eq. 8)."""
        n = prep.n_train
        iters = res.n_iter if res.best_iter is None else int(res.best_iter) + 1
        items = prep.paths if prep.paths else prep.kept
        fold = np.arange(n) % k
        out = {}
        for f in range(k):
            rest = [items[i] for i in range(n) if fold[i] != f]
            sub = self._restat(prep, [] if prep.paths else rest, rest if prep.paths else [])
            _, r, _ = self._candidate(sub, cw, eta_scale, None, None, None, lambda m: None,
                                      use_edges=False, n_iter=max(1, int(iters)))
            model = (np.array(r.w, copy=True), sub.mean.copy(), sub.scale.copy())
            for i in np.flatnonzero(fold == f):
                out[int(i)] = model
        return out

    def _augment(self, graph, first=None):
        """``graph`` with the colour-model features of a first pass appended (a copy): of
        ``first`` ``(w1, mean1, std1)`` when given, else of the fitted first pass."""
        w1, m1, s1 = first if first is not None else (
            self.first_pass_coef_, self.first_pass_mean_, self.first_pass_std_)
        X = np.asarray(graph.node_features, dtype=np.float64)
        if X.shape[1] != m1.size:
            raise ValueError(f"the model expects {m1.size} node features per node, the input "
                             f"has {X.shape[1]}: it was trained with other features")
        scores = ((X - m1) / s1 * self.feature_scale) @ w1
        extra = self._colour_extra(X, graph, scores)
        return dataclasses.replace(graph, node_features=np.concatenate([X, extra], axis=1))

    def _colour_extra(self, X, graph, scores):
        """The colour-model features of one base-feature graph, given node scores whose
        sign says foreground."""
        from .colour_model import colour_model_features

        return colour_model_features(X[:, :3], graph.sizes, graph.edges,
                                     graph.edge_features[:, 0], scores,
                                     n_components=int(self.colour_components),
                                     random_state=estimator_seed(self))
