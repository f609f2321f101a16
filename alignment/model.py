"""Discriminative word alignment: models M, M+F, M+Q and M+F+Q (thesis secs. 2.2.3, 3.2).

* M: maximum-weight bipartite matching (eq. 3.1);
* M+F: fertility up to ``D`` with learned, monotone penalties (eq. 3.2);
* M+Q: bonuses for pairs of adjacent edges, a quadratic assignment (eq. 3.3);
* M+F+Q: both.

The *model* lives here (features, gold encoding, loss, decoding into
links); the *learners* are the problem-agnostic solvers of :mod:`structpred`,
and the polytopes, projections and decoders are in
:mod:`structpred.polytopes.matching` and :mod:`structpred.polytopes` (fertility, relaxed QAP).
"""

from __future__ import annotations

import copy
import warnings
from collections import Counter

import numpy as np
import scipy.sparse as sp

from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from structpred import FormatError, check_unchanged_since_fit
from structpred.io import MAX_WORDS, check_sentence_pairs, load_npz, save_npz

from ._runtime import (MAX_COST, MAX_FREQUENT, MAX_ILP_CELLS, LPDecodingWarning,
                       lp_decoding_message)
from structpred import (LEARNERS, check_flag, check_learner, check_number,
                        check_whole, estimator_seed, run_learner, text_digests)
from structpred import decode_matching
from structpred import Monitor
from structpred import L2Ball
from structpred import MatchingExample
from structpred import DECODERS, ExtendedMatchingExample, adjacent_pairs

from ._gold import (_as_list, _check_sure, _matrix_to_alignment, as_alignments,
                    gold_fertility_matching, gold_matching)
from .evaluate.aer import score_alignments
from .features.edges import EdgeFeaturizer
from .features.links import ExternalFeaturizer
from .stats.interactions import InteractionStatistics
from .features.interactions import NodeFeaturizer, PairFeaturizer

__all__ = ["MatchingAligner", "MAX_ILP_CELLS", "LPDecodingWarning", "gold_matching",
           "gold_fertility_matching", "LEARNERS", "MODELS", "model_name"]


_MODEL_FORMAT = "structpred-matching-aligner"

#: the hyperparameters that make the model's parts (its features and polytope): changed by
#: set_params after fit, predict refuses them (:meth:`MatchingAligner._check_fitted`)
_STRUCTURE = ("max_fertility", "interactions", "use_external", "aligners")

#: model name -> (max_fertility, interactions)
MODELS = {"M": (1, False), "M+F": (2, False), "M+Q": (1, True), "M+F+Q": (2, True)}


def model_name(max_fertility, interactions):
    """``"M"``, ``"M+F"``, ``"M+Q"`` or ``"M+F+Q"`` (``"M+F3"`` etc. for ``D > 2``)."""
    name = "M"
    if max_fertility > 1:
        name += "+F" if max_fertility == 2 else f"+F{max_fertility}"
    return name + ("+Q" if interactions else "")


def pair_texts(pairs):
    """Each sentence pair as one text, ``"src words ||| tgt words"`` in word form: what the
    aligner keeps digests of (:func:`structpred.text_digests`) for ``align predict`` to find
    its training pairs among those it aligns."""
    from structpred.io import word_form

    return [word_form(" ".join(s)) + " ||| " + word_form(" ".join(t)) for s, t in pairs]


class MatchingAligner(BaseEstimator):
    """Discriminative word aligner (models M, M+F, M+Q, M+F+Q), scikit-learn style.

    Parameters
    ----------
    max_fertility : int
        ``D`` of eq. 3.2: 1 is model M, 2 adds fertility-2 arcs (M+F).
    interactions : bool
        Add the first-order pair variables of eq. 3.3 (M+Q, M+F+Q).  Training
        then uses the LP relaxation (eq. 3.6), projected by dual block-coordinate
        ascent (:class:`structpred.polytopes.DualQAPProjector`).
    decoder : {"ortools", "pulp", "lp"}
        How QAP models decode: exact ILP with OR-Tools (SCIP) or PuLP (CBC),
        or the LP relaxation rounded at 1/2.  Models without interactions
        decode the matching exactly (min-cost flow, or the Hungarian method on
        the batch prediction path).
    pair_candidates : {"all", "likely"}
        ``"all"``: the whole pair set Q of eq. 3.3.  ``"likely"``: only pairs
        whose two edges are proposed by a cheap cue (Dice first/second choice,
        an IBM Model 2 Viterbi link or posterior >= 0.1, an external link);
        a much smaller QP and ILP, at the price of exactness on other pairs.
    use_external : bool
        Add other aligners' links read from files (``--external NAME=FILE``) as edge
        and pair features (:mod:`alignment.aligners.linkfiles`).
    aligners : tuple of str
        Other aligners whose output becomes edge (and pair) features, from
        :data:`alignment.features.links.SOURCES`: ``"hmm"`` (our unsupervised HMM trained
        by agreement), ``"eflomal"``, ``"fast_align"``.  :meth:`fit` then needs an
        :class:`alignment.features.links.AlignerLinks` built for them.
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
    patience : int or None
        Stop when the validation AER has not improved for this many validations
        (``None``: run all ``n_iter`` iterations).
    n_frequent : int
        Lexical identity indicators for this many frequent words per side.
    exclude_features : tuple of str
        Dense edge features to leave out (names from
        :data:`alignment.features.edges.DENSE_FEATURES` / ``HMM_FEATURES``), for ablations.
    include_features : tuple of str
        Optional edge features to add (names from
        :data:`alignment.features.edges.OPTIONAL_FEATURES`).
    random_state : int, None, numpy RandomState or Generator
    verbose : bool
    """

    def __init__(self, max_fertility=1, interactions=False, decoder="ortools", use_external=False,
                 aligners=(), pair_candidates="all", cost_pos=1.0,
                 cost_neg=3.0, possible_cost=None, target="sure",
                 learner="dual-extragradient", n_iter=200, radius=np.inf, learning_rate=None,
                 regularization=1e-3, validate_every=10, patience=None, n_frequent=10,
                 exclude_features=(),
                 include_features=(), random_state=0, verbose=False):
        self.max_fertility = max_fertility
        self.interactions = interactions
        self.decoder = decoder
        self.use_external = use_external
        self.aligners = aligners
        self.pair_candidates = pair_candidates
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
        self.patience = patience
        self.n_frequent = n_frequent
        self.exclude_features = exclude_features
        self.include_features = include_features
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        """The hyperparameters in the estimator's words, before any work (a NaN cost was the
        learner's "zp contains NaN values", max_fertility 2.5 a model "M+F2.5")."""
        check_whole("max_fertility", self.max_fertility, 1)
        check_whole("validate_every", self.validate_every, 1)
        check_whole("n_frequent", self.n_frequent, 0)
        if self.n_frequent > MAX_FREQUENT:   # N*N pair features: 5,000 took 17 GB and minutes
            raise ValueError(f"n_frequent must be at most {MAX_FREQUENT:,} (it adds "
                             f"n_frequent**2 pair features), got {self.n_frequent!r}")
        if self.patience is not None:
            check_whole("patience", self.patience, 1)
        estimator_seed(self)   # a RandomState or Generator: drawn from now
        for name in ("interactions", "use_external", "verbose"):   # "no" switched one on
            check_flag(name, getattr(self, name))
        for name in ("cost_pos", "cost_neg") + (("possible_cost",) if self.possible_cost
                                                 is not None else ()):
            check_number(name, getattr(self, name))
            if getattr(self, name) > MAX_COST:   # 1e30 was a ZeroDivisionError of the projection
                raise ValueError(f"{name} must be at most {MAX_COST:g} (larger costs overflow "
                                 f"the learner), got {getattr(self, name)!r}")
        if self.cost_pos == 0 and self.cost_neg == 0:
            raise ValueError("cost_pos and cost_neg are both 0: the loss is zero and the model "
                             "learns to predict no link")
        check_number("regularization", self.regularization)
        check_number("radius", self.radius, strict=True, infinite=True)
        if self.learning_rate is not None:
            check_number("learning_rate", self.learning_rate, strict=True)

    # ------------------------------------------------------------ structure
    @property
    def model_name(self):
        return model_name(self.max_fertility, self.interactions)

    @property
    def _extended(self):
        return self.max_fertility > 1 or self.interactions

    def _structure(self, src, tgt):
        """Feature matrix ``F`` (features x variables) and the pair set of one sentence pair.

        Variables: ``[edges (m*n), src fertility ((D-1)*m), tgt fertility
        ((D-1)*n), pairs (P)]``; feature rows: ``[edge, node, pair]``.  The
        fertility columns hold ``-f(j, d)``: their score is minus the penalty.
        """
        # the edge and aligner features: the kernels of alignment.features.kernel on a
        # batch of one pair (those of the batch path)
        edge = aligner = None
        if len(src) and len(tgt):
            edge, aligner = self._kernel_inputs().features([(src, tgt)])
        F_edge = self.featurizer_.transform(src, tgt, edge)
        if self.use_external:
            F_edge = sp.vstack([F_edge, sp.csr_matrix(
                self.external_featurizer_.edge_block(self.external_, src, tgt))], format="csr")
        if self.aligners:
            F_edge = sp.vstack([F_edge, sp.csr_matrix(self.aligner_featurizer_.edge_block(
                self.aligner_links_, src, tgt, aligner))], format="csr")
        if not self._extended:
            return F_edge, None, None
        m, n = len(src), len(tgt)
        D = self.max_fertility
        n_fert = (D - 1) * (m + n)
        if self.interactions:
            pairs, pattern = adjacent_pairs(m, n, one_to_two=D > 1)
            if self.pair_candidates == "likely":
                keep = self._likely_edges(F_edge, m * n)
                sel = keep[pairs[:, 0]] & keep[pairs[:, 1]]
                pairs, pattern = pairs[sel], pattern[sel]
        else:
            pairs, pattern = np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
        blocks = [[F_edge, sp.csr_matrix((F_edge.shape[0], n_fert + len(pairs)))]]
        # the Dice / IBM 2 / HMM matrices of the pair, once for the node and pair features
        st = self.featurizer_.stats.pair_statistics(src, tgt)
        if D > 1:
            Fn = self.node_featurizer_.transform(src, tgt, st)
            blocks.append([sp.csr_matrix((Fn.shape[0], m * n)), -Fn,
                           sp.csr_matrix((Fn.shape[0], len(pairs)))])
        if self.interactions:
            Fp = self.pair_featurizer_.transform(src, tgt, pairs, pattern, st)
            if self.use_external:
                Fp = sp.vstack([Fp, sp.csr_matrix(self.external_featurizer_.pair_block(
                    self.external_, src, tgt, pairs, pattern))])
            if self.aligners:
                Fp = sp.vstack([Fp, sp.csr_matrix(self.aligner_featurizer_.pair_block(
                    self.aligner_links_, src, tgt, pairs, pattern, aligner))])
            blocks.append([sp.csr_matrix((Fp.shape[0], m * n + n_fert)), Fp])
        F = sp.vstack([sp.hstack(b) for b in blocks], format="csr")
        return F, pairs, pattern

    def _kernel_inputs(self):
        """The feature kernels' inputs for this model (word caches; rebuilt when the
        featurizer or the aligners change, and not pickled)."""
        from .features.kernel import KernelInputs

        links = self.aligner_links_ if self.aligners else None
        ki = self.__dict__.get("_kernel_cache")
        if ki is None or ki.featurizer is not self.featurizer_ or ki.links is not links:
            ki = self._kernel_cache = KernelInputs(self.featurizer_, links)
        return ki

    #: edge features that make an edge a pair candidate (``pair_candidates="likely"``)
    _CANDIDATE_FEATURES = ("dice_row_best", "dice_col_best", "dice_row_rank2", "dice_col_rank2",
                           "vit_fwd", "vit_bwd")

    def _likely_edges(self, F_edge, n_edges):
        """Edges that some cheap cue proposes: a first or second Dice choice of its row or
        column, an IBM Model 2 Viterbi link, a Model 2 or HMM posterior >= 0.1, or an
        external link."""
        names = self.featurizer_.feature_names
        rows = [names.index(f) for f in self._CANDIDATE_FEATURES]
        keep = np.asarray(F_edge[rows].max(axis=0).todense()).ravel()[:n_edges] > 0
        for f in ("post_fwd", "post_bwd", "hmm_fwd", "hmm_bwd"):
            if f in names:
                keep |= np.asarray(F_edge[names.index(f)].todense()).ravel()[:n_edges] >= 0.1
        i0 = len(names)
        if self.use_external:
            ext = self.external_featurizer_.edge_names
            keep |= np.asarray(F_edge[i0 + ext.index("ext:vote_share")].todense()).ravel() > 0
            i0 += len(ext)
        if self.aligners:
            al = self.aligner_featurizer_.edge_names
            for f in ("hmm:fwd", "hmm:bwd"):
                if f in al:
                    keep |= np.asarray(F_edge[i0 + al.index(f)].todense()).ravel() >= 0.1
            for f in ("eflomal:union", "fast_align:sym"):
                if f in al:
                    keep |= np.asarray(F_edge[i0 + al.index(f)].todense()).ravel() > 0
        return keep

    def _make_example(self, F, pairs, shape, y, cost_pos, decoder):
        if not self._extended:
            return MatchingExample(F=F, z_gold=y.ravel(), cost_pos=cost_pos,
                                   cost_neg=float(self.cost_neg), shape=shape)
        from structpred import fertility_indicators

        D = self.max_fertility
        fs, ft = fertility_indicators(y, D)
        flat = y.ravel()
        pv = flat[pairs[:, 0]] * flat[pairs[:, 1]] if len(pairs) else np.zeros(0)
        z = np.concatenate([flat, fs.ravel(), ft.ravel(), pv])
        n_other = z.size - flat.size
        cp = np.concatenate([np.broadcast_to(cost_pos, flat.shape), np.zeros(n_other)])
        cn = np.concatenate([np.full(flat.size, float(self.cost_neg)), np.zeros(n_other)])
        return ExtendedMatchingExample(F=F, z_gold=z, cost_pos=cp, cost_neg=cn, shape=shape,
                                       max_fertility=D, pairs=pairs, decoder=decoder)

    def _example(self, src, tgt, gold):
        shape = (len(src), len(tgt))
        y = gold_fertility_matching(gold, shape, self.max_fertility, self.target)
        cost_pos = np.full(y.size, float(self.cost_pos))
        if self.possible_cost is not None:
            poss = np.zeros(shape, dtype=bool)
            for j, k in gold.possible:
                poss[j, k] = True
            cost_pos[poss.ravel() & (y.ravel() == 0)] = float(self.possible_cost)
        F, pairs, _ = self._structure(src, tgt)
        # training works on the LP relaxation (eq. 3.6): loss-augmented
        # inference for the hinge is the relaxed LP
        return self._make_example(F, pairs, shape, y, cost_pos, decoder="lp")

    def _featurizers(self, stats, interaction_stats, pairs, gold, external_names=None):
        self.featurizer_ = EdgeFeaturizer(stats, n_frequent=self.n_frequent,
                                          exclude=self.exclude_features,
                                          include=self.include_features)
        names = list(self.featurizer_.feature_names)
        if self.use_external:
            if external_names is None:
                raise ValueError("use_external=True needs external alignments "
                                 "(alignment.aligners.linkfiles.ExternalAlignments)")
            self.external_featurizer_ = ExternalFeaturizer(external_names)
            names += self.external_featurizer_.edge_names
        if self.aligners:
            from .features.links import AlignerFeaturizer

            self.aligner_featurizer_ = AlignerFeaturizer(tuple(self.aligners))
            names += self.aligner_featurizer_.edge_names
        n_edge = len(names)
        if self._extended and interaction_stats is None:
            raise ValueError(f"model {self.model_name} needs interaction_stats "
                             "(alignment.stats.interactions.InteractionStatistics of the bitext)")
        if self._extended:
            interaction_stats.check_statistics(stats)
        self.interaction_stats_ = interaction_stats if self._extended else None
        if self.max_fertility > 1:
            if pairs is not None:
                # lexical fertility cue of sec. 3.4.1.2 from the training gold
                multi_src, multi_tgt = set(), set()
                for (s, t), g in zip(pairs, gold):
                    ds, dt = Counter(j for j, _ in g.sure), Counter(k for _, k in g.sure)
                    multi_src.update(s[j] for j, c in ds.items() if c >= 2)
                    multi_tgt.update(t[k] for k, c in dt.items() if c >= 2)
                self.fertility_lexicon_ = {
                    "multi_src": sorted(multi_src), "multi_tgt": sorted(multi_tgt),
                    "src_counts": dict(Counter(w for s, _ in pairs for w in s)),
                    "tgt_counts": dict(Counter(w for _, t in pairs for w in t))}
            lex = self.fertility_lexicon_
            self.node_featurizer_ = NodeFeaturizer(
                stats, interaction_stats, self.max_fertility, lex["multi_src"], lex["multi_tgt"],
                lex["src_counts"], lex["tgt_counts"])
            names += self.node_featurizer_.feature_names
        if self.interactions:
            self.pair_featurizer_ = PairFeaturizer(stats, interaction_stats)
            names += self.pair_featurizer_.feature_names
            if self.use_external:
                names += self.external_featurizer_.pair_names
            if self.aligners:
                names += self.aligner_featurizer_.pair_names
        self.n_edge_features_ = n_edge
        return names

    def fit(self, pairs, gold, stats=None, *, eval_set=None, interaction_stats=None,
            external=None, aligner_links=None, executor=None):
        """Train on sentence pairs with gold alignments.

        The whole pipeline (statistics, other aligners, choice of c- and of the model on
        validation) is :func:`alignment.train_aligner`; this fits one model.

        Parameters
        ----------
        pairs : list of (src_tokens, tgt_tokens)
        gold : list of :class:`~alignment.data.formats.Alignment`
        stats : :class:`~alignment.stats.statistics.AlignmentStatistics`
            The statistics of the unlabeled bitext (required).
        eval_set : (valid_pairs, valid_gold), optional
            Validation sentences; the parameters with the best validation AER along the
            path are kept (sec. 2.6).
        interaction_stats : :class:`~alignment.stats.interactions.InteractionStatistics`
            Needed by the fertility and interaction models.
        external : :class:`~alignment.aligners.linkfiles.ExternalAlignments`
            Other aligners' links (``use_external=True``); they must cover the
            training, validation and, at :meth:`predict`, the test pairs.
        aligner_links : :class:`~alignment.features.links.AlignerLinks`
            The other aligners' outputs (``aligners``), built on the bitext plus the
            training and validation pairs (:meth:`AlignerLinks.from_sources`).
        executor : dask.distributed.Client or concurrent.futures.Executor, optional
            Where the learner's passes over the examples run (the dual extragradient
            and the subgradient method; :func:`structpred.run_learner`).
        """
        if stats is None:
            raise ValueError("fit needs the statistics of the bitext (stats=AlignmentStatistics)")
        self._check_params()
        if eval_set is not None and (isinstance(eval_set, (str, bytes))
                                     or not hasattr(eval_set, "__len__") or len(eval_set) != 2):
            raise ValueError("eval_set must be (validation pairs, their gold alignments)")
        valid_pairs, valid_gold = eval_set if eval_set is not None else (None, None)
        pairs = check_sentence_pairs(pairs, max_words=MAX_WORDS)
        gold = _as_list(gold, "gold")
        if len(pairs) != len(gold):
            raise ValueError(f"{len(pairs)} sentence pairs but {len(gold)} gold alignments")
        gold = as_alignments(pairs, gold, "gold")
        if valid_pairs is not None:
            valid_pairs = check_sentence_pairs(valid_pairs, "validation sentence pair",
                                               max_words=MAX_WORDS)
            valid_gold = _as_list(valid_gold, "eval_set gold")
            if len(valid_pairs) != len(valid_gold):
                raise ValueError(f"eval_set: {len(valid_pairs)} sentence pairs but "
                                 f"{len(valid_gold)} gold alignments")
            valid_gold = as_alignments(valid_pairs, valid_gold, "eval_set gold")
        if not pairs:
            raise ValueError("no training sentences")
        _check_sure(gold, "gold", "the model would learn to predict no link")
        if valid_pairs is not None:
            _check_sure(valid_gold, "eval_set gold", "validation AER is undefined")
        from .stats.statistics import AlignmentStatistics
        if not isinstance(stats, AlignmentStatistics):   # "'str' object has no attribute ..."
            raise TypeError(f"stats must be the AlignmentStatistics of the bitext, got "
                            f"{type(stats).__name__}")
        check_learner(self.learner)
        if self.pair_candidates not in ("all", "likely"):
            raise ValueError(f"pair_candidates must be 'all' or 'likely', got {self.pair_candidates!r}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, got {self.decoder!r}")
        if int(self.max_fertility) < 1:
            raise ValueError("max_fertility must be >= 1")
        self.stats_ = stats
        self.external_ = external
        if self.aligners:
            if aligner_links is None or tuple(aligner_links.sources) != tuple(self.aligners):
                raise ValueError(f"aligners={tuple(self.aligners)} needs aligner_links built "
                                 "for them (alignment.features.links.AlignerLinks.from_sources)")
        self.aligner_links_ = aligner_links if self.aligners else None
        self.feature_names_ = self._featurizers(stats, interaction_stats, pairs, gold,
                                                None if external is None else external.names)
        examples = [self._example(s, t, g) for (s, t), g in zip(pairs, gold)]
        validation = None
        if valid_pairs is not None:
            valid = [(self._structure(s, t)[:2], (len(s), len(t))) for s, t in valid_pairs]

            def validate(w):
                # QAP models validate with the LP relaxation + rounding (sec. 3.4:
                # same AER as the ILP at a fraction of the time)
                pred = [_matrix_to_alignment(self._decode(F, pr, sh, w, "lp"))
                        for (F, pr), sh in valid]
                return score_alignments(pred, valid_gold).aer

            validation = validate

        # the hinge of a QAP model needs an LP per example: not tracked for them
        monitor = Monitor(every=self.validate_every, hinge=not self.interactions,
                          validation=validation,
                          patience=self.patience if validation is not None else None)
        nonneg = np.arange(self.n_edge_features_, len(self.feature_names_))
        W = L2Ball(radius=self.radius, nonneg=nonneg)
        res = run_learner(self.learner, examples, W, n_iter=self.n_iter, eta=self.learning_rate,
                          regularization=self.regularization, monitor=monitor,
                          verbose=self.verbose, random_state=estimator_seed(self),
                          executor=executor)
        self.result_ = res
        self.coef_ = W.project(res.w)
        # digests of the training pairs, kept in the model file: align predict warns of them
        self.training_digests_ = text_digests(pair_texts(pairs))
        self._fitted_structure = {k: copy.copy(getattr(self, k)) for k in _STRUCTURE}
        return self

    # ------------------------------------------------------------- predict
    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            # scikit-learn's NotFittedError (a ValueError), as every estimator's
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit")
        # the model's parts changed by set_params since: the weights are another model's
        # (it was "object has no attribute 'pair_featurizer_'", or other links silently)
        check_unchanged_since_fit(self, self.__dict__.get("_fitted_structure", {}),
                                  "the weights are the fitted model's")

    def _decode(self, F, pairs, shape, w, decoder=None):
        s = np.asarray(F.T @ w).ravel()
        if not self._extended:
            return decode_matching(np.reshape(s, shape))
        big = shape[0] * shape[1] > MAX_ILP_CELLS    # the LP, rounded without the ILP
        ex = self._make_example(F, pairs, shape, np.zeros(shape), 1.0,
                                "lp" if big else decoder or self.decoder)
        return ex.decode_edges(s, exact_repair=not big)

    def edge_scores(self, src, tgt):
        """Edge scores ``w' f(x_jk)`` as an ``(m, n)`` matrix."""
        self._check_fitted()
        F = self._structure(src, tgt)[0][: self.n_edge_features_]
        return np.reshape(F[:, : len(src) * len(tgt)].T @ self.coef_[: self.n_edge_features_],
                          (len(src), len(tgt)))

    def set_external(self, external):
        """Use these external alignments for prediction (a loaded model has none)."""
        if self.use_external and list(external.names) != self.external_featurizer_.names:
            raise ValueError(f"external link sets {external.names} differ from the trained "
                             f"{self.external_featurizer_.names}")
        self.external_ = external
        return self

    def oversize_for_ilp(self, pairs, decoder=None):
        """Indices of ``pairs`` that this +Q model decodes by the LP relaxation instead of
        its exact ILP (above :data:`MAX_ILP_CELLS` word pairs), named in one
        :class:`LPDecodingWarning`; none for a model without the ILP or decoding by the LP."""
        if not self.interactions or (decoder or self.decoder) == "lp":
            return []
        big = [i for i, (s, t) in enumerate(pairs) if len(s) * len(t) > MAX_ILP_CELLS]
        if big:
            warnings.warn(lp_decoding_message(len(big), big[0]), LPDecodingWarning, 3)
        return big

    def predict_matrix(self, src, tgt, decoder=None):
        """The predicted 0/1 ``(m, n)`` link matrix of one sentence pair (its words as a
        file's reader gives them, :func:`structpred.io.check_sentence_pairs`)."""
        self._check_fitted()
        if self.use_external and getattr(self, "external_", None) is None:
            raise RuntimeError("this model uses external alignments: call set_external() first")
        ((src, tgt),) = check_sentence_pairs([(src, tgt)], max_words=MAX_WORDS)
        self.oversize_for_ilp([(src, tgt)], decoder)
        F, pairs, _ = self._structure(src, tgt)
        return self._decode(F, pairs, (len(src), len(tgt)), self.coef_, decoder)

    def predict(self, pairs, decoder=None):
        """Predicted alignment of each pair (list of Alignments); ``decoder``
        overrides the QAP back end for this call.

        Model M with at most our HMM as other aligner is featurized and decoded a batch
        at a time (:class:`alignment.predict.batch.BatchPredictor`: the same links, many
        times faster); the other models one pair at a time (:meth:`predict_pairwise`).
        """
        from .predict.batch import supports

        pairs = check_sentence_pairs(pairs, max_words=MAX_WORDS)
        self._check_fitted()
        if supports(self) and all(len(s) and len(t) for s, t in pairs):
            bp = getattr(self, "_batch_predictor", None)
            if bp is None or bp.coef is not self.coef_:   # (re)fitted since
                from .predict.batch import BatchPredictor

                self._batch_predictor = BatchPredictor(self)
            return self._batch_predictor.predict(pairs)
        return self.predict_pairwise(pairs, decoder)

    def predict_pairwise(self, pairs, decoder=None):
        """:meth:`predict` one pair at a time through the feature matrices ``F`` of
        :meth:`predict_matrix` (the reference of the batch path)."""
        pairs = list(pairs)
        if self.aligners:
            self.aligner_links_.prepare(pairs)   # new pairs through eflomal/fast_align at once
        self.oversize_for_ilp(pairs, decoder)     # said once here, not per pair
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LPDecodingWarning)
            return [_matrix_to_alignment(self.predict_matrix(s, t, decoder)) for s, t in pairs]

    def __getstate__(self):
        # the batch predictor's word caches are rebuilt where the model is unpickled
        state = dict(super().__getstate__())
        state.pop("_batch_predictor", None)
        state.pop("_kernel_cache", None)
        return state

    def score(self, pairs, gold):
        """``1 - AER`` (greater is better, as scikit-learn expects).  ``gold`` as in
        :meth:`fit`: ``Alignment`` objects or collections of ``(j, k)`` links (links were
        refused here while :meth:`fit` took them)."""
        pairs, gold = list(pairs), _as_list(gold, "gold")   # predict spends a generator
        if len(gold) != len(pairs):
            raise ValueError(f"{len(pairs)} sentence pairs but {len(gold)} gold alignments")
        return 1.0 - score_alignments(self.predict(pairs), as_alignments(pairs, gold)).aer

    def top_features(self, k=15):
        """The ``k`` features with the largest absolute weight, by name."""
        self._check_fitted()
        order = np.argsort(-np.abs(self.coef_))[:k]
        return [(self.feature_names_[i], float(self.coef_[i])) for i in order]

    # ------------------------------------------------------------ persist
    #: 3: records the fingerprint and key of the statistics it was trained with;
    #: 4: other aligners as features (``aligners``)
    FORMAT_VERSION = 4

    def save(self, path):
        """Write weights, feature names, hyperparameters and statistics to one ``.npz``
        (atomically).  The file records the fingerprint of the statistics the model was
        trained with, which :meth:`load` checks."""
        self._check_fitted()
        arrays = {f"stats/{k}": v for k, v in self.stats_.to_arrays().items()}
        if self.interaction_stats_ is not None:
            arrays.update({f"inter/{k}": v for k, v in self.interaction_stats_.to_arrays().items()})
        params = self.get_params()
        params["random_state"] = estimator_seed(self)   # a RandomState: the seed drawn
        params["radius"] = None if not np.isfinite(self.radius) else float(self.radius)
        params["aligners"] = list(self.aligners)
        aligners_state = None
        if self.aligners:
            aligners_state, al_arrays = self.aligner_links_.state(path)
            arrays.update(al_arrays)
        meta = {"format": _MODEL_FORMAT, "version": self.FORMAT_VERSION, "params": params,
                "feature_names": self.feature_names_,
                "fertility_lexicon": getattr(self, "fertility_lexicon_", None),
                "external_names": (self.external_featurizer_.names if self.use_external else None),
                "aligners": aligners_state,
                # save_npz leaves out the clock readings ("time")
                "history": {k: list(map(float, v)) for k, v in self.result_.history.items()},
                "best_iter": self.result_.best_iter,
                "statistics": {"fingerprint": self.stats_.fingerprint(),
                               "key": self.stats_.cache_key}}
        if getattr(self, "training_digests_", None) is not None:
            arrays["training_digests"] = self.training_digests_
        save_npz(path, {"coef": self.coef_, **arrays}, meta)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save` (never unpickling).

        Raises
        ------
        FormatError
            The file is not a word-alignment model (empty, a folder, truncated, another
            kind of file), is of an unknown format version, or is inconsistent: its
            statistics are not those it was trained with, or its weights do not fit its
            features.
        """
        try:
            return cls._load(path)
        except FormatError:
            raise
        except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
            raise FormatError(path, None, f"corrupt model ({type(exc).__name__}: {exc})"
                              ) from None

    @classmethod
    def _load(cls, path):
        from .stats.statistics import AlignmentStatistics

        what = "a word-alignment model"
        meta, data = load_npz(path, _MODEL_FORMAT, (2, 3, cls.FORMAT_VERSION), what)
        if "coef" not in data:
            raise FormatError(path, None, f"not {what} (no weights)")
        version = meta["version"]
        stats = AlignmentStatistics.from_arrays(
            {k[len("stats/"):]: v for k, v in data.items() if k.startswith("stats/")}, path)
        inter_arrays = {k[len("inter/"):]: v for k, v in data.items() if k.startswith("inter/")}
        coef = np.asarray(data["coef"], dtype=np.float64)
        recorded = (meta.get("statistics") or {}).get("fingerprint")
        if version >= 3 and recorded != stats.fingerprint():
            raise FormatError(path, None, "the statistics in the model are not those it was "
                              "trained with (a damaged or edited file)")
        try:
            params = dict(meta["params"])
            if params.get("radius") is None:
                params["radius"] = np.inf
            # JSON has no tuples: give back the hyperparameter as it was passed by default
            params["exclude_features"] = tuple(params.get("exclude_features", ()))
            params["include_features"] = tuple(params.get("include_features", ()))
            params["aligners"] = tuple(params.get("aligners", ()))
            model = cls(**params)
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError(path, None, f"corrupt model (bad parameters: {exc})") from None
        model.stats_ = stats
        inter = InteractionStatistics.from_arrays(inter_arrays, path) if inter_arrays else None
        if meta.get("fertility_lexicon") is not None:
            model.fertility_lexicon_ = meta["fertility_lexicon"]
        model.external_ = None
        model.aligner_links_ = None
        if model.aligners:
            from .features.links import AlignerLinks

            state = meta.get("aligners")
            if not state or tuple(state.get("sources", ())) != model.aligners:
                raise FormatError(path, None, "corrupt model (its aligners are not recorded)")
            model.aligner_links_ = AlignerLinks.from_state(state, data, path)
        try:
            names = model._featurizers(stats, inter, None, None, meta.get("external_names"))
        except (ValueError, KeyError, TypeError) as exc:
            raise FormatError(path, None, f"the model's features do not fit its statistics "
                              f"({exc})") from None
        if names != meta.get("feature_names"):
            raise FormatError(path, None, "the model's feature names do not match its "
                              "statistics (a damaged or edited file)")
        if coef.shape != (len(names),) or not np.all(np.isfinite(coef)):
            raise FormatError(path, None, f"the model has {coef.size} weights for "
                              f"{len(names)} features (a damaged or edited file)")
        model.feature_names_ = names
        model.coef_ = coef
        model.history_ = meta.get("history", {})
        model.stats_key_ = (meta.get("statistics") or {}).get("key")
        # None: a model written before the training pairs' digests were kept
        digests = data.get("training_digests")
        model.training_digests_ = None if digests is None else np.asarray(digests, np.uint64)
        return model
