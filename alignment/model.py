"""Model M: word alignment as max-weight bipartite matching (thesis secs. 2.2.3, 3.2).

The *model* lives here (features, gold encoding, loss, decoding into
links); the *learners* are the problem-agnostic solvers of :mod:`structpred`.
"""

from __future__ import annotations

import json

import numpy as np

from structpred.base import ParamsMixin
from structpred.io import atomic_write
from structpred.matching import decode_matching
from structpred.monitor import Monitor
from structpred.parameter_set import L2Ball
from structpred.problem import MatchingExample

from .aer import score_alignments
from .features import EdgeFeaturizer
from .formats import Alignment

__all__ = ["MatchingAligner", "gold_matching", "LEARNERS"]

LEARNERS = ("dual-extragradient", "projected-gradient", "perceptron", "subgradient")


def gold_matching(alignment, shape, target="sure"):
    """Encode a gold alignment as a matching ``z(y)`` in the polytope.

    The Hansards gold is not one-to-one, but model M can only represent
    matchings, and the dual extragradient's centre ``z(y_i)`` must lie in
    ``Z_i``.  We take a maximum matching of the sure links (``target="sure"``),
    or of sure links first and possible links second (``"sure+possible"``).
    """
    m, n = shape
    w = np.zeros(shape)
    if target == "sure+possible":
        for j, k in alignment.possible:
            w[j, k] = 0.01
    elif target != "sure":
        raise ValueError(f"unknown target {target!r}")
    for j, k in alignment.sure:
        w[j, k] = 1.0
    return decode_matching(w).astype(np.float64)


def _matrix_to_alignment(z):
    links = frozenset((int(j), int(k)) for j, k in zip(*np.nonzero(z > 0.5)))
    return Alignment(sure=links, possible=links)


class MatchingAligner(ParamsMixin):
    """Discriminative matching word aligner (model M), scikit-learn style.

    Parameters
    ----------
    cost_pos, cost_neg : float
        Weighted Hamming loss: cost of a false positive (``c+``) and of a
        false negative (``c-``), eq. 2.10.
    possible_cost : float or None
        Cost of predicting a *possible-only* gold link that is not in the
        target matching.  AER does not penalise such links; ``None`` means
        ``cost_pos`` (plain eq. 2.10).
    target : {"sure", "sure+possible"}
        Which gold links the target matching is built from.
    learner : one of ``LEARNERS``
        ``"dual-extragradient"`` (memory-efficient form, the default),
        ``"projected-gradient"``, ``"perceptron"`` or ``"subgradient"``.
    n_iter : int
        Iterations (epochs for the perceptron).
    radius : float
        ``gamma`` of the parameter ball; ``inf`` follows the unregularised path.
    learning_rate : float or None
        Step size (``eta``) or perceptron rate; default ``1/||F||`` and 1.
    regularization : float
        ``lambda`` of the subgradient method.
    validate_every : int
        Evaluate validation AER every so many iterations and keep the best.
    n_frequent : int
        Lexical identity indicators for this many frequent words per side.
    random_state : int
    verbose : bool
    """

    def __init__(self, cost_pos=1.0, cost_neg=3.0, possible_cost=None, target="sure",
                 learner="dual-extragradient", n_iter=200, radius=np.inf, learning_rate=None,
                 regularization=1e-3, validate_every=10, n_frequent=10, random_state=0,
                 verbose=False):
        self.cost_pos = cost_pos
        self.cost_neg = cost_neg
        self.possible_cost = possible_cost
        self.target = target
        self.learner = learner
        self.n_iter = n_iter
        self.radius = radius
        self.learning_rate = learning_rate
        self.regularization = regularization
        self.validate_every = validate_every
        self.n_frequent = n_frequent
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------ examples
    def _example(self, featurizer, src, tgt, gold):
        shape = (len(src), len(tgt))
        z = gold_matching(gold, shape, self.target).ravel()
        cost_pos = np.full(z.size, float(self.cost_pos))
        if self.possible_cost is not None:
            poss = np.zeros(shape, dtype=bool)
            for j, k in gold.possible:
                poss[j, k] = True
            cost_pos[poss.ravel() & (z == 0)] = float(self.possible_cost)
        return MatchingExample(F=featurizer.transform(src, tgt), z_gold=z, cost_pos=cost_pos,
                               cost_neg=float(self.cost_neg), shape=shape)

    def fit(self, pairs, gold, stats, valid_pairs=None, valid_gold=None):
        """Train on sentence pairs with gold alignments.

        Parameters
        ----------
        pairs : list of (src_tokens, tgt_tokens)
        gold : list of :class:`~alignment.formats.Alignment`
        stats : :class:`~alignment.statistics.AlignmentStatistics`
        valid_pairs, valid_gold : optional validation set; the parameters with
            the best validation AER along the path are kept (sec. 2.6).
        """
        from structpred.dual_extragradient import dual_extragradient_streaming
        from structpred.reference_learners import (averaged_perceptron,
                                                   averaged_projected_gradient, subgradient_method)

        if len(pairs) != len(gold):
            raise ValueError(f"{len(pairs)} sentence pairs but {len(gold)} gold alignments")
        if not pairs:
            raise ValueError("no training sentences")
        if self.learner not in LEARNERS:
            raise ValueError(f"learner must be one of {LEARNERS}, got {self.learner!r}")
        featurizer = EdgeFeaturizer(stats, n_frequent=self.n_frequent)
        self.stats_ = stats
        self.featurizer_ = featurizer
        self.feature_names_ = list(featurizer.feature_names)
        examples = [self._example(featurizer, s, t, g) for (s, t), g in zip(pairs, gold)]
        validation = None
        if valid_pairs is not None:
            valid_F = [featurizer.transform(s, t) for s, t in valid_pairs]
            shapes = [(len(s), len(t)) for s, t in valid_pairs]

            def validation(w):
                pred = [_matrix_to_alignment(decode_matching(np.reshape(F.T @ w, sh)))
                        for F, sh in zip(valid_F, shapes)]
                return score_alignments(pred, valid_gold).aer

        monitor = Monitor(every=self.validate_every, hinge=True, validation=validation)
        W = L2Ball(radius=self.radius)
        common = dict(monitor=monitor, verbose=self.verbose)
        if self.learner == "dual-extragradient":
            res = dual_extragradient_streaming(examples, W, n_iter=self.n_iter, eta=self.learning_rate,
                                               random_state=self.random_state, **common)
        elif self.learner == "projected-gradient":
            res = averaged_projected_gradient(examples, W, n_iter=self.n_iter, eta=self.learning_rate,
                                              random_state=self.random_state, **common)
        elif self.learner == "perceptron":
            res = averaged_perceptron(examples, n_epochs=self.n_iter, W=W,
                                      learning_rate=self.learning_rate or 1.0,
                                      random_state=self.random_state, **common)
        else:
            res = subgradient_method(examples, regularization=self.regularization,
                                     n_iter=self.n_iter, step0=self.learning_rate, W=W,
                                     random_state=self.random_state, **common)
        self.result_ = res
        self.coef_ = res.w
        return self

    # ------------------------------------------------------------- predict
    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            raise RuntimeError("this MatchingAligner is not fitted yet")

    def edge_scores(self, src, tgt):
        """Edge scores ``w' f(x_jk)`` as an ``(m, n)`` matrix."""
        self._check_fitted()
        F = self.featurizer_.transform(src, tgt)
        return np.reshape(F.T @ self.coef_, (len(src), len(tgt)))

    def predict(self, pairs):
        """Max-weight matching of each pair; returns a list of Alignments."""
        return [_matrix_to_alignment(decode_matching(self.edge_scores(s, t))) for s, t in pairs]

    def score(self, pairs, gold):
        """``1 - AER`` (greater is better, as scikit-learn expects)."""
        return 1.0 - score_alignments(self.predict(pairs), gold).aer

    def top_features(self, k=15):
        """The ``k`` features with the largest absolute weight, by name."""
        self._check_fitted()
        order = np.argsort(-np.abs(self.coef_))[:k]
        return [(self.feature_names_[i], float(self.coef_[i])) for i in order]

    # ------------------------------------------------------------ persist
    def save(self, path):
        """Write weights, feature names, hyperparameters and statistics to one ``.npz``."""
        self._check_fitted()
        arrays = {f"stats/{k}": v for k, v in self.stats_.to_arrays().items()}
        params = self.get_params()
        params["radius"] = None if not np.isfinite(self.radius) else float(self.radius)
        meta = {"format": "structpred-matching-aligner", "version": 1, "params": params,
                "feature_names": self.feature_names_,
                "history": {k: list(map(float, v)) for k, v in self.result_.history.items()},
                "best_iter": self.result_.best_iter}
        with atomic_write(path, mode="wb") as fh:
            np.savez_compressed(fh, coef=self.coef_, meta=np.frombuffer(
                json.dumps(meta).encode("utf-8"), dtype=np.uint8), **arrays)

    @classmethod
    def load(cls, path):
        from .statistics import AlignmentStatistics

        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(bytes(data["meta"]).decode("utf-8"))
            if meta.get("format") != "structpred-matching-aligner":
                raise ValueError(f"{path}: not a structpred matching-aligner model")
            stats = AlignmentStatistics.from_arrays(
                {k[len("stats/"):]: data[k] for k in data.files if k.startswith("stats/")})
            coef = np.array(data["coef"])
        params = meta["params"]
        if params["radius"] is None:
            params["radius"] = np.inf
        model = cls(**params)
        model.stats_ = stats
        model.featurizer_ = EdgeFeaturizer(stats, n_frequent=model.n_frequent)
        model.feature_names_ = meta["feature_names"]
        if model.featurizer_.feature_names != model.feature_names_:
            raise ValueError(f"{path}: feature names do not match the statistics")
        model.coef_ = coef
        model.history_ = meta["history"]
        return model
