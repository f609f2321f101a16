"""The sequence tagger: a linear-chain max-margin model trained by the dual extragradient.

The estimator follows scikit-learn's conventions: hyperparameters only in ``__init__``,
fitted attributes end in ``_``; ``X`` is a list of sentences (lists of column tuples,
the word first), ``y`` a list of label lists.
"""

from __future__ import annotations

import math
import time

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from structpred import (check_flag, check_label_spellings, check_number, check_ordered,
                        check_positive, check_whole, estimator_seed, text_digests)
from structpred.learners import check_iterations
from structpred.selection import unwrap_eval_set
from structpred import (ChainExample, L2Ball, Monitor, chain_kl_prox, chain_viterbi,
                        dual_extragradient_streaming, operator_norm)
from structpred.io import FormatError, counted, load_npz, note, save_npz

from ._perceptron import _perceptron_epoch
from ._tagged_sentences import check_tagged_sentences
from .evaluate import (check_scheme, check_valid_scheme, iob_variant, is_iob, warn_iob_mix,
                       label_kind_error, score_from_stats, sentence_stats, sentence_texts)
from .features import FEATURE_SETS, FeatureCodes, FeatureIndex, token_features

__all__ = ["SequenceTagger", "LEARNERS", "load_tagger"]

#: seconds of projected training beyond which the tagger says how long an iteration takes
LONG_RUN = 600.0

#: the larger timed sample of :func:`_kernel_cost`: at most this many tokens, and at most
#: about this many token-label pairs (tokens x K²): a millisecond at 45 labels, about a
#: second at 2,500 (whose training takes hours)
SAMPLE_TOKENS = 300
SAMPLE_PAIRS = 1e8


def _kernel_seconds(starts, K, learner):
    """CPU seconds of one call of the chain kernel that ``learner`` runs on each batch (the
    KL step's sum-product for the extragradient learners, Viterbi for the perceptron) on
    the chains ``starts`` (offsets) with ``K`` labels.  Its cost depends on the shape
    only, so the scores are a fixed pattern (nothing is drawn: the model is the same)."""
    n = int(starts[-1])
    theta = (np.arange(n * K + K * K) % 7) * 0.01
    t = time.process_time()
    if learner == "perceptron":
        chain_viterbi(theta[:n * K].reshape(n, K), theta[n * K:].reshape(K, K), starts)
    else:
        chain_kl_prox(theta, np.zeros_like(theta), 1.0, starts, n, K)
    return time.process_time() - t


def _kernel_cost(lengths, K, learner):
    """``(m, c0, c1)``: the tokens ``m`` of the timed sample (the first sentences' lengths,
    cut to ``m = min(SAMPLE_TOKENS, SAMPLE_PAIRS / K²)`` tokens, at least 8), the CPU
    seconds ``c0`` of a call itself (the ``K x K`` table of the transition scores) and
    ``c1`` of a token (``K²`` label pairs) at this ``K``: the kernel takes
    ``c0 + c1 * tokens``, so ``c1`` is the slope between a chain of 2 tokens and the
    sample (``t(m) / m`` when the clock cannot tell them apart)."""
    _kernel_seconds(np.array([0, 2], dtype=np.int64), 2, learner)   # loads the kernel
    m = int(min(SAMPLE_TOKENS, max(8, SAMPLE_PAIRS // (K * K)), np.sum(lengths)))
    starts = np.minimum(np.r_[0, np.cumsum(lengths[:m])], m).astype(np.int64)
    starts = starts[np.r_[True, np.diff(starts) > 0]]   # the sentences cut away
    t1 = _kernel_seconds(np.array([0, 2], dtype=np.int64), K, learner)
    t2 = _kernel_seconds(starts, K, learner)
    c1 = (t2 - t1) / (m - 2) if m > 2 and t2 > t1 else t2 / max(m, 1)
    return m, max(t1 - 2 * c1, 0.0), c1


def _check_training_memory(n_obs, lengths, K, batch, geometry):
    """Refuse, before any is built, training examples that would not fit in this machine's
    memory: each batch of ``batch`` sentences holds a ``K x K`` table of label pairs (one
    per edge with ``geometry="euclidean"``), two encodings of its parts and a vector of
    every weight; the learner holds the weights and the encodings again.  8,000 labels
    took 10 GB within a minute, 16,000 more than the machine (the run was killed by the
    system, without a word)."""
    from structpred import physical_memory

    n_features = n_obs * K + K * K + 2 * K   # polytopes.chain.n_chain_weights
    n_vars = 0
    for i in range(0, len(lengths), batch):
        part = lengths[i:i + batch]
        n_tok = int(np.sum(part))
        n_vars += n_tok * K + K * K * (1 if geometry == "entropy" else n_tok - len(part))
    n_batches = -(-len(lengths) // batch)
    need = 8 * (n_batches * n_features + 2 * n_vars + 2 * n_features + n_vars)
    have = physical_memory()
    if have is not None and need > have:
        raise ValueError(
            f"{K:,} labels: training needs about {need / 2**30:,.1f} GiB (a {K:,} x {K:,} "
            f"table of label pairs for each batch of up to {batch:,} sentences, and the "
            f"weights of every feature for every label), beyond this machine's "
            f"{have / 2**30:,.1f} GiB of memory: merge rare labels, or train on fewer "
            "sentences")


#: ``bregman``: dual extragradient with the KL geometry on the chain polytope (fig. 2.4);
#: ``euclidean``: the same with Euclidean projections (fig. 2.2); ``perceptron``: the
#: averaged structured perceptron (Collins 2002).
LEARNERS = ("bregman", "euclidean", "perceptron")
#: the largest ``step_scale`` (a step a third of a million times the default's)
MAX_STEP_SCALE = 1e6
FORMAT = "structpred-sequence-tagger"
FORMAT_VERSION = 1


class SequenceTagger(BaseEstimator):
    r"""Max-margin sequence labelling on the chain marginal polytope.

    The model scores a labelling ``y`` of a sentence ``x`` by ``w'f(x, y)`` with
    label-conjoined token features (emissions), label transitions and start/end
    weights (thesis sec. 2.2, a chain-structured Markov network).  Training solves the
    saddle-point problem of eq. (2.13),

    .. math::
        \min_{\|w\| \le \gamma} \max_{z_i \in Z_i}
        \sum_i w^\top F_i z_i + c_i^\top z_i - w^\top f_i(y_i),

    whose inner maximisation is the structured hinge loss of eq. (2.21) with the
    Hamming loss ``l_i(z) = c_i'z`` (eq. 2.12), ``Z_i`` the chain marginal polytope
    (eqs. 2.2-2.3).  The memory-efficient dual extragradient (sec. 2.5, fig. 2.6) keeps
    ``u_bar_w`` and ``s_w`` only and returns the running average ``u_bar_w``, whose
    duality gap after ``tau`` iterations is at most ``(D_w + D_z) L / (tau + 1)``
    (eq. 2.19).  With ``learner="bregman"`` the steps on ``z`` are the KL proximal
    steps of sec. 2.4.2: a multiplicative update of the Gibbs distribution whose
    marginals sum-product computes, from a centre near the gold labelling
    (node marginals ``(1 - smoothing) z(y_t) + smoothing / K``).

    Parameters
    ----------
    learner : {"bregman", "euclidean", "perceptron"}
    feature_set : {"full", "window"}
        The templates of :mod:`sequence.features`.
    n_iter : int
        Dual-extragradient iterations (perceptron: epochs), at most.  The default, 300,
        is a generous cap: with validation data and ``patience`` the plateau of the
        validation score stops training first (after 96 iterations on CoNLL-2000 and 81
        on the treebank sample with the other defaults).
    radius : float or None
        ``gamma`` of ``W = {||w|| <= gamma}``, the regulariser (a structured SVM's C in
        another form: a smaller ball regularises more); ``inf`` follows the unregularised
        path and relies on the validation set for stopping (sec. 2.6).  ``None`` (the
        default): ``relative_radius * sqrt(N)``, ``N`` the training tokens.
    relative_radius : float
        The radius per square root of a training token, used when ``radius`` is None.
        The norm that the unregularised path reaches grows about as ``sqrt(N)`` (176 on
        2,700 CoNLL-2000 sentences, about 300 on 8,000), so one relative value serves
        training sets of different sizes; ``inf`` is no bound.
    smoothing : float
        Weight of the uniform distribution in the Bregman centre.
    loss_scale : float
        The weight of the Hamming loss in the structured hinge loss (and so in
        loss-augmented decoding): the margin that a labelling must keep over another
        is ``loss_scale`` times the number of tokens where they differ.  The default, 2,
        was chosen with ``scale_power`` 0.25 on the validation splits of both
        data sets (docs/results/sequence.md).
    step_scale : float
        The step is ``eta = step_scale / L``, ``L = ||[F_1 ... F_m]||_2`` (``1/L`` is the
        step of the convergence bound, eq. 2.19, in the Euclidean geometry; a larger
        step converged faster on the validation sets, docs/results/sequence.md).
    scaling : {"count", "none"}
        ``"count"``: token feature ``f`` has value ``count_f ** -scale_power`` and the
        label features (transitions, start, end) ``(N / K) ** -scale_power`` (``N``
        training tokens), so that the columns of ``F`` have more comparable norms and
        ``L`` is not set by the most frequent features alone.  With ``radius = inf``
        this is a reparametrisation of the same model (a diagonal preconditioning of
        the steps on ``w``); with a finite radius it also weights the regulariser:
        ``||w_scaled||^2 = sum_f count_f ** (2 scale_power) w_f^2``.  The perceptron
        always uses unscaled features.
    scale_power : float
        The exponent of the count scaling.  In the original (unscaled) weights, a step
        moves the weight of feature ``f`` by ``eta * count_f ** (1 - 2 scale_power)``
        times its mean error per occurrence.  0.5 equalises the column norms of ``F``
        (the fastest start, but a rare feature's weight moves as fast as a frequent
        one's, which overfits rare features); 0 is no scaling (``L`` is then set by the
        most frequent features, and the step is small for all others).  The default,
        0.25 with ``loss_scale`` 2, has the best mean validation score over CoNLL-2000
        and the treebank of the settings tried, and beats the previous default (0.35
        with ``loss_scale`` 1) in at least 99.4 % of paired bootstraps on both
        (docs/results/sequence.md).
    batch_size : int
        Sentences per example of the learner (the polytope of a batch is the product of
        its sentences' polytopes; batching only changes how the work is grouped).
    min_count : int
        Feature strings seen fewer times in the training data are dropped.  The default,
        2, drops the strings seen once: under the count scaling with power 0.5 their
        weights move as fast as those of frequent features, and the unregularised path
        memorises them
        (docs/results/sequence.md, "Feature strings seen once").
    eval_every : int
        Validation F1 (or accuracy) every this many iterations, when validation data
        are given; the best iterate is kept.
    patience : int or None
        Stop after this many validations without improvement.
    max_time : float or None
        Stop at the first validation (or iteration, without validation data) after this
        many CPU seconds of training (this process's CPU time, so that a budget means the
        same on a busy machine; the learners are single-threaded).
    refit : bool
        After the validation sentences have chosen the iteration ``t*`` (the best
        validated iterate), train again on the training **and** validation sentences for
        ``t*`` iterations, without validation, and keep that model: the final model sees
        every labelled sentence, as the other problem packages' final models do.  The
        validation record (``history_``, ``best_iter_``) is the first run's.  ``tag
        train`` sets it when its validation sentences are held out of ``--data``.
    random_state : int, None, numpy RandomState or Generator
        Seeds the power iteration of ``L`` and the perceptron's order.
    verbose : bool
        Progress bars (on a terminal only).

    Attributes
    ----------
    classes_ : list of str
    features_ : :class:`~sequence.features.FeatureIndex`
    coef_ : ndarray
        ``w``: emission (n_features x K), transition (K x K), start (K), end (K).
    iob_ : bool
        Whether the labels are IOB chunk tags (scored by chunk F1).
    n_columns_ : int
        Columns of the training tokens (without the label).
    feature_set_ : str
        The ``feature_set`` the model was fitted with, the one :meth:`predict` and
        :meth:`save` use (a ``set_params(feature_set=...)`` takes effect at the next fit).
    n_iter_, best_iter_, history_, eta_
    fit_time_ : float
        CPU seconds of :meth:`fit` (features, step size, learning, validation, refit).
    refit_sentences_ : int or None
        Sentences of the refit (``None``: the model is the validated run's).
    """

    def __init__(self, learner="bregman", feature_set="full", n_iter=300, radius=None,
                 relative_radius=np.inf, smoothing=0.1, loss_scale=2.0,
                 step_scale=3.0, scaling="count", scale_power=0.25,
                 batch_size=500, min_count=2, eval_every=5,
                 patience=None, max_time=None, refit=False, random_state=0, verbose=False):
        self.learner = learner
        self.feature_set = feature_set
        self.n_iter = n_iter
        self.radius = radius
        self.relative_radius = relative_radius
        self.smoothing = smoothing
        self.loss_scale = loss_scale
        self.step_scale = step_scale
        self.scaling = scaling
        self.scale_power = scale_power
        self.batch_size = batch_size
        self.min_count = min_count
        self.eval_every = eval_every
        self.patience = patience
        self.max_time = max_time
        self.refit = refit
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ helpers
    def _check_params(self):
        if self.learner not in LEARNERS:
            raise ValueError(f"learner must be one of {LEARNERS}, got {self.learner!r}")
        if self.feature_set not in FEATURE_SETS:
            raise ValueError(f"feature_set must be one of {FEATURE_SETS}, "
                             f"got {self.feature_set!r}")
        if self.scaling not in ("count", "none"):
            raise ValueError(f"scaling must be 'count' or 'none', got {self.scaling!r}")
        check_number("scale_power", self.scale_power)   # float() took "0.5"
        if not 0.0 <= float(self.scale_power) <= 1.0:
            raise ValueError(f"scale_power must be in [0, 1], got {self.scale_power!r}")
        for name in ("radius", "relative_radius"):
            v = getattr(self, name)
            if v is not None:
                check_positive(name, v, allow_inf=True)
        check_iterations(self.n_iter)   # 1.5, True or NaN were taken (or an int() error)
        for name in ("batch_size", "min_count"):   # int() cut 2.5 to 2
            check_whole(name, getattr(self, name))
        for name in ("step_scale", "loss_scale"):   # "3" was taken, 0 named "eta"
            check_positive(name, getattr(self, name))
        # 1e10 grew the weights past what the chain projections resolve ("node holds values
        # up to 7.69e+19"), 1e200 to +inf potentials: errors that did not name step_scale
        check_number("step_scale", self.step_scale, strict=True, hi=MAX_STEP_SCALE)
        check_number("smoothing", self.smoothing)
        if self.max_time is not None:   # -1, NaN and "1" were taken
            check_number("max_time", self.max_time, infinite=True)
        for name in ("refit", "verbose"):   # "no" switched one on
            check_flag(name, getattr(self, name))
        for name in ("eval_every", "patience"):
            if getattr(self, name) is not None:
                check_whole(name, getattr(self, name))
        estimator_seed(self)   # a RandomState or Generator: drawn from now

    def _examples(self, x, lengths, y=None, geometry="entropy"):
        starts = np.r_[0, np.cumsum(lengths)]
        out = []
        b = int(self.batch_size)
        for i in range(0, len(lengths), b):
            j = min(i + b, len(lengths))
            s0, s1 = starts[i], starts[j]
            out.append(ChainExample(x[s0:s1], lengths[i:j],
                                    y=None if y is None else y[s0:s1],
                                    n_labels=len(self.classes_), geometry=geometry,
                                    smoothing=self.smoothing, label_scale=self.label_scale_,
                                    loss_scale=self.loss_scale))
        return out

    def _encode_labels(self, y):
        index = {c: i for i, c in enumerate(self.classes_)}
        return np.array([index[t] for s in y for t in s], dtype=np.int64)

    def _design(self, X):
        # the templates the weights were fitted with: feature_set changed by set_params
        # after fit gave other features to the same weights (a silent, worse prediction)
        feature_set = getattr(self, "feature_set_", self.feature_set)
        return self.features_.transform(token_features(X, feature_set),
                                        scaled=self.scaled_)

    def _validation_metric(self, design, y_valid):
        x, lengths = design
        ex = ChainExample(x, lengths, n_labels=len(self.classes_), label_scale=self.label_scale_)
        starts = np.r_[0, np.cumsum(lengths)]

        def metric(w):
            pred = ex.predict_labels(w)
            tags = [[self.classes_[k] for k in pred[starts[i]:starts[i + 1]]]
                    for i in range(len(lengths))]
            return score_from_stats(sentence_stats(y_valid, tags, self.iob_))
        return metric

    # ---------------------------------------------------------------------- fit
    def fit(self, X, y, *, eval_set=None):
        """Train on sentences ``X`` with labels ``y``.

        Parameters
        ----------
        X : list of sentences
            Each sentence is a list of tokens, each token a tuple of string columns
            (``(word, POS)``) or a word alone (the one-column token ``(word,)``).
        y : list of label lists
            One label per token.
        eval_set : (X_valid, y_valid), optional
            Validation sentences.  The iterate with the best validation score (F1 on IOB
            labels, else accuracy) is kept; with ``refit=True`` the model is then trained
            again on ``X + X_valid`` for that many iterations.

        Returns
        -------
        self
        """
        return self._fit(X, y, eval_set)

    def _fit(self, X, y, eval_set, codes=None):
        """:meth:`fit`; ``codes``, ``(FeatureCodes, groups)``, holds the feature strings of
        ``X`` encoded (the refit's, from the validated run)."""
        X_valid, y_valid = self._split_eval_set(eval_set)
        self._check_params()
        t0 = time.process_time()
        X, y = check_tagged_sentences(X, check_ordered(y, "y", "label lists"))
        if len(X) == 0:
            raise ValueError("X and y must be non-empty lists of the same length")
        if X_valid is not None:
            X_valid, y_valid = check_tagged_sentences(X_valid, y_valid, len(X[0][0]),
                                                      "validation sentence")
        self.n_columns_ = len(X[0][0])
        self.classes_ = sorted({t for s in y for t in s})
        check_label_spellings(self.classes_)
        check_scheme(y)
        if y_valid is not None:
            check_valid_scheme(y, y_valid)
        if len(self.classes_) < 2:
            raise ValueError(f"every training token has the label {self.classes_[0]!r}: a "
                             "tagger needs at least two labels to learn anything")
        mixture = label_kind_error(self.classes_)
        if mixture is not None:
            raise ValueError(mixture[1])
        self.iob_ = is_iob(self.classes_)
        # IOB1 or IOB2 (None: neither told apart, or not IOB): tag eval warns of the other
        self.iob_variant_ = iob_variant(y) if self.iob_ else None
        warn_iob_mix(y)            # IOB1 and IOB2 mixed: said, not refused
        self.feature_set_ = self.feature_set
        # digests of the training sentences, kept in the model file: tag eval warns of them
        self.training_digests_ = text_digests(sentence_texts(X))
        codes, train, valid = self._feature_codes(X, X_valid, codes)
        self.features_, columns = codes.index(train, max(int(self.min_count), 1))
        self.scaled_ = self.scaling == "count" and self.learner != "perceptron"
        power = float(self.scale_power)
        # FeatureIndex.from_features gives 1 / sqrt(count); the value used is count ** -power (stored
        # in the model file, so prediction needs no power)
        self.features_.scale = self.features_.scale ** (2.0 * power)
        x, lengths = codes.transform(train, self.features_, columns, scaled=self.scaled_)
        n_tokens = x.shape[0]
        # a float product (math.sqrt): 1e308 times the root of the tokens is inf, no bound,
        # without numpy's "overflow encountered in scalar multiply" warning
        self.radius_ = float(float(self.relative_radius) * math.sqrt(n_tokens)
                             if self.radius is None else self.radius)
        self.label_scale_ = (float((len(self.classes_) / n_tokens) ** power) if self.scaled_
                             else 1.0)
        labels = self._encode_labels(y)
        metric = None
        if X_valid is not None:
            # labels the training sentences never show cannot be predicted: they count as errors
            metric = self._validation_metric(
                codes.transform([valid], self.features_, columns, scaled=self.scaled_),
                y_valid)
        deadline = None if self.max_time is None else t0 + float(self.max_time)
        first = {}   # the lines of the projected time: _announce_projection, _duration

        def out_of_time(t, w, rec):
            now = time.process_time()
            if self.verbose and "told" not in first:
                self._announce_duration(first, t, now, len(self.classes_))
            return deadline is not None and now > deadline

        geometry = "entropy" if self.learner == "bregman" else "euclidean"
        self._announce_projection(x.shape[1], lengths, geometry, first)
        every = int(self.eval_every) if (metric is not None or deadline is None) else 1
        monitor = Monitor(every=every, validation=metric, greater_is_better=True,
                          patience=self.patience, callback=out_of_time)
        if self.learner == "perceptron":
            self._fit_perceptron(x, lengths, labels, monitor)
        else:
            examples = self._examples(x, lengths, labels, geometry)
            L = operator_norm(examples, random_state=estimator_seed(self))
            self.eta_ = float(self.step_scale) / L
            res = dual_extragradient_streaming(examples, L2Ball(radius=self.radius_),
                                               n_iter=int(self.n_iter), eta=self.eta_,
                                               monitor=monitor, verbose=self.verbose)
            self._set_result(res.w, res.n_iter, res.best_iter, res.history)
        self.refit_sentences_ = None
        if self.refit and X_valid is not None and self.best_iter_ is not None:
            self._refit(list(X) + list(X_valid), list(y) + list(y_valid),
                        (codes, train + [valid]))
        self.fit_time_ = time.process_time() - t0
        return self

    def _announce_projection(self, n_obs, lengths, geometry, first):
        """Before the first iteration, when the chain kernel alone projects the cap of
        iterations past :data:`LONG_RUN` seconds: one line, as :meth:`_announce_duration`'s
        (2,500 labels printed nothing for minutes: an iteration costs ``tokens x K²`` and
        that line waits for two measured iterations).  From :func:`_kernel_cost`'s ``c0``
        and ``c1`` at this ``K``, one iteration over ``N`` tokens in ``B`` batches takes
        about ``calls * (B * c0 + N * c1)`` (``calls``: 2 KL steps or projections per batch
        for the extragradient learners, whose Euclidean projections cost more still; 1
        Viterbi pass for the perceptron, ``B = 1``), the run ``n_iter`` times that: a lower
        bound (the emission scores and validations come on top).  ``c1`` grows as ``K²``:
        23 or 45 labels never reach it.  Only with ``verbose``.  Sets ``first["early"]``:
        the later line then says that its figure is the measured one.  First, for every
        learner but the perceptron, the memory of the training examples is checked
        (:func:`_check_training_memory`): refused before any is built or a kernel of this
        ``K`` is timed."""
        if self.learner != "perceptron":
            _check_training_memory(n_obs, lengths, len(self.classes_), int(self.batch_size),
                                   geometry)
        if not self.verbose:
            return
        K, N = len(self.classes_), int(np.sum(lengths))
        m, c0, c1 = _kernel_cost(lengths, K, self.learner)
        calls, B = ((1, 1) if self.learner == "perceptron" else
                    (2, -(-len(lengths) // int(self.batch_size))))
        per = calls * (B * c0 + N * c1)
        total = per * int(self.n_iter)
        if total > LONG_RUN:
            first["early"] = True
            note(f"about {per:.1f} s per iteration ({counted(K, 'label')}; estimated from the "
                 f"label-pair kernel on {counted(m, 'token')}, before training): up to "
                 f"{total / 60:.0f} min for the cap of {int(self.n_iter)} iterations (the "
                 "validation stop usually ends it sooner; --iterations sets a lower cap)")

    def _announce_duration(self, first, t, now, n_labels):
        """Once, when the iterations measured so far project past :data:`LONG_RUN` seconds
        for the cap: one line with the time per iteration (off a terminal there is no
        progress bar, and 800 labels take seconds per iteration: a run of an hour said
        nothing).  After :meth:`_announce_projection`'s line it begins "measured:" (its
        figure replaces that estimate)."""
        if "t" not in first:
            first.update(t=t, cpu=now)
            return
        if t <= first["t"]:
            return
        per = (now - first["cpu"]) / (t - first["t"])
        left = per * max(int(self.n_iter) - t, 0)
        first["told"] = True
        if left > LONG_RUN:
            note(f"{'measured: ' if first.get('early') else ''}about {per:.1f} s per "
                 f"iteration ({counted(n_labels, 'label')}): up to "
                 f"{left / 60:.0f} min more for the cap of {int(self.n_iter)} iterations (the "
                 "validation stop usually ends it sooner; --iterations sets a lower cap)")

    @staticmethod
    def _split_eval_set(eval_set):
        if eval_set is None:
            return None, None
        try:
            X_valid, y_valid = unwrap_eval_set(eval_set)
        except (TypeError, ValueError):
            raise ValueError("eval_set must be a pair (X_valid, y_valid)") from None
        if len(X_valid) == 0 or len(X_valid) != len(y_valid):
            raise ValueError("eval_set must hold non-empty X_valid and y_valid of the same "
                             "length")
        return X_valid, y_valid

    def _feature_codes(self, X, X_valid, codes):
        """``(FeatureCodes, training groups, validation group)``: the feature strings of the
        training sentences and of the validation sentences, encoded (``codes`` if given:
        the refit's, all of them training)."""
        if codes is not None:
            return codes[0], list(codes[1]), None
        codes = FeatureCodes()
        train = [codes.add(token_features(X, self.feature_set))]
        valid = None if X_valid is None else codes.add(token_features(X_valid, self.feature_set))
        return codes, train, valid

    def _refit(self, X, y, codes):
        """Train on ``X`` for ``best_iter_ + 1`` iterations and take over that model.
        ``codes``: the encoded feature strings of ``X`` (see :meth:`_fit`)."""
        full = clone(self).set_params(n_iter=self.best_iter_ + 1, refit=False, patience=None,
                                      max_time=None)
        full._fit(X, y, None, codes)
        record = (self.n_iter_, self.best_iter_, self.history_)
        for name, value in vars(full).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, name, value)
        self.n_iter_, self.best_iter_, self.history_ = record
        self.refit_sentences_ = len(X)

    def _set_result(self, w, n_iter, best_iter, history):
        self.coef_ = np.asarray(w, dtype=np.float64)
        self.n_iter_ = int(n_iter)
        self.best_iter_ = None if best_iter is None else int(best_iter)
        self.history_ = {k: list(v) for k, v in history.items()}

    def _fit_perceptron(self, x, lengths, labels, monitor):
        K = len(self.classes_)
        n_obs = x.shape[1]
        d = n_obs * K + K * K + 2 * K
        w = np.zeros(d)
        u = np.zeros(d)
        starts = np.r_[0, np.cumsum(lengths)].astype(np.int64)
        rng = np.random.default_rng(estimator_seed(self))
        counter = np.ones(1)
        monitor.reset()
        status, t = 0, -1
        for t in range(int(self.n_iter)):
            order = rng.permutation(len(lengths)).astype(np.int64)
            _perceptron_epoch(x.indptr, x.indices, x.data, starts, labels, order, K, n_obs,
                              w, u, counter)
            avg = w - u / counter[0]
            status = monitor.after_iteration(t, int(self.n_iter), avg, [])
            if status:
                break
        res = monitor.result(w - u / counter[0], t + 1, status)
        self.eta_ = 1.0
        self._set_result(res.w, res.n_iter, res.best_iter, res.history)

    # ------------------------------------------------------------------ predict
    def predict(self, X):
        """Label lists of sentences ``X`` (Viterbi under ``coef_``)."""
        X, _ = check_tagged_sentences(X, n_columns=getattr(self, "n_columns_", None))
        if not hasattr(self, "coef_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit")
        full = [i for i, s in enumerate(X) if len(s)]   # a sentence of no token: no label
        out = [[] for _ in X]
        if not full:
            return out
        x, lengths = self._design([X[i] for i in full])
        K = len(self.classes_)
        ex = ChainExample(x, lengths, n_labels=K, label_scale=self.label_scale_)
        node, Wt = ex.node_scores(self.coef_)
        pred, _ = chain_viterbi(node, Wt, ex.starts)
        for j, i in enumerate(full):
            out[i] = [self.classes_[k] for k in pred[ex.starts[j]:ex.starts[j + 1]]]
        return out

    def score(self, X, y):
        """Chunk F1 (IOB labels) or token accuracy as a fraction in [0, 1], as scikit-learn's
        ``score`` (higher is better; it was in %, 100 times scikit-learn's scale: ``tag
        eval`` and the validation scores of ``history_`` stay in %).  ``y`` must hold a
        label list of each sentence's length (a shorter ``y`` was scored on the sentences
        it reached: ``zip`` cut them silently)."""
        X, y = check_tagged_sentences(X, y)
        return score_from_stats(sentence_stats(y, self.predict(X), self.iob_)) / 100.0

    # --------------------------------------------------------------- persistence
    def save(self, path, info=None):
        """Write the fitted tagger to ``path`` atomically: an ``.npz`` (no pickles) with
        the weights, the feature strings and a JSON header."""
        if not hasattr(self, "coef_"):   # it was "object has no attribute 'classes_'"
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit "
                                 "before save")
        params = dict(self.get_params(), random_state=estimator_seed(self),   # as drawn
                      feature_set=getattr(self, "feature_set_", self.feature_set))
        header = {"format": FORMAT, "version": FORMAT_VERSION,
                  "params": {k: (None if isinstance(v, float) and not np.isfinite(v) else v)
                             for k, v in params.items()},
                  "inf_params": [k for k, v in self.get_params().items()
                                 if isinstance(v, float) and np.isinf(v)],
                  "radius": (None if not np.isfinite(getattr(self, "radius_", np.inf))
                             else self.radius_),
                  "classes": list(self.classes_), "iob": bool(self.iob_),
                  "n_columns": int(self.n_columns_), "n_iter": self.n_iter_,
                  "scaled": bool(self.scaled_), "label_scale": self.label_scale_,
                  "best_iter": self.best_iter_, "eta": self.eta_,
                  "refit_sentences": getattr(self, "refit_sentences_", None),
                  "iob_variant": getattr(self, "iob_variant_", None),
                  "fit_time": getattr(self, "fit_time_", None), "info": info or {}}
        arrays = {"features": np.frombuffer("\n".join(self.features_.names).encode("utf-8"),
                                            dtype=np.uint8),
                  "coef": self.coef_, "feature_scale": self.features_.scale}
        if getattr(self, "training_digests_", None) is not None:
            arrays["training_digests"] = self.training_digests_
        save_npz(path, arrays, header)


def load_tagger(path):
    """Read a tagger written by :meth:`SequenceTagger.save`.

    Raises :class:`~structpred.io.FormatError` naming the file when it is not one.
    """
    what = "a sequence tagger model (written by 'structpred tag train')"
    header, arrays = load_npz(path, FORMAT, (FORMAT_VERSION,), what=what)
    name = str(path)
    try:
        tagger = _tagger_from(header, arrays)
    except (KeyError, TypeError, ValueError, UnicodeDecodeError, AttributeError):
        # a header entry missing (a KeyError traceback before) or of another type
        raise FormatError(name, None, f"{what} with entries missing or unreadable (a "
                                      "damaged or edited file)") from None
    K = len(tagger.classes_)
    if (tagger.coef_.size != len(tagger.features_) * K + K * K + 2 * K
            or tagger.features_.scale.size != len(tagger.features_)):
        raise FormatError(name, None, "damaged sequence tagger model (weights do not match "
                                      "the features)")
    return tagger


def _tagger_from(header, arrays):
    names = arrays["features"].tobytes().decode("utf-8")
    params = dict(header["params"])
    for k in header.get("inf_params", []):
        params[k] = np.inf
    if header.get("radius_inf"):             # files of the first format
        params["radius"] = np.inf
    tagger = SequenceTagger(**params)
    tagger.classes_ = list(header["classes"])
    tagger.iob_ = bool(header["iob"])
    tagger.feature_set_ = tagger.feature_set
    tagger.n_columns_ = int(header["n_columns"])
    tagger.features_ = FeatureIndex(names.split("\n") if names else [],
                                    scale=np.asarray(arrays["feature_scale"], dtype=np.float64))
    tagger.scaled_ = bool(header["scaled"])
    tagger.label_scale_ = float(header["label_scale"])
    tagger.coef_ = np.asarray(arrays["coef"], dtype=np.float64)
    tagger.n_iter_, tagger.best_iter_ = header["n_iter"], header["best_iter"]
    tagger.eta_ = header["eta"]
    radius = header.get("radius")
    tagger.radius_ = np.inf if radius is None else float(radius)
    tagger.fit_time_ = header.get("fit_time")
    tagger.refit_sentences_ = header.get("refit_sentences")
    # None: a model written before the training labels' IOB variant was kept
    tagger.iob_variant_ = header.get("iob_variant")
    tagger.info_ = header.get("info", {})
    # None: a model written before the training sentences' digests were kept
    digests = arrays.get("training_digests")
    tagger.training_digests_ = None if digests is None else np.asarray(digests, np.uint64)
    return tagger
