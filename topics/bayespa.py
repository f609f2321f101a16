"""Online Bayesian passive-aggressive MedLDA (paMedLDA; Shi & Zhu, ICML 2014, Algorithm 1).

Model
-----
LDA with topics ``phi_k ~ Dir(gamma)`` and document proportions ``theta_d ~ Dir(alpha)``
(integrated out), and, for each of ``T`` one-vs-all binary tasks ``tau`` (one per class,
``y_d^tau = +1`` if ``y_d`` is class ``tau`` else ``-1``), a Gibbs classifier
``f = w_tau' zbar_d`` on the empirical topic frequencies ``zbar_dk = (1/n_d) sum_i I[z_di = k]``.
All tasks share the topics; each task has its own ``w_tau`` and augmentation variables
``lambda_d^tau``.  The expected hinge loss enters as the pseudo-likelihood
``psi(y_d | z_d, w) = exp(-2c (zeta_d)_+)``, ``zeta_d = epsilon - y_d w' zbar_d``, which is the
marginal of the augmented (eq. 10)

.. math::
    \\psi(y_d, \\lambda_d \\mid z_d, w) = (2\\pi\\lambda_d)^{-1/2}
    \\exp\\Big(-\\frac{(\\lambda_d + c\\zeta_d)^2}{2\\lambda_d}\\Big).

Global state (kept between mini-batches): ``q(Phi_k) = Dir(gamma_k)`` (``topic_word_``, K x V)
and, per task, ``q(w_tau) = N(mu_tau, Sigma_tau)`` stored as the precision
``P_tau = Sigma_tau^{-1}`` with its Cholesky factor and the linear term ``P_tau mu_tau``
(natural parameters, so that eq. 13 is an addition).  Start: ``Dir(gamma 1)`` and
``N(0, v^2 I)``.

Mini-batch update (Algorithm 1)
-------------------------------
With ``q = q_t`` the local Gibbs sampler draws ``J`` samples of ``(Z, lambda)``; the first
``burn_in`` (the paper's beta) are discarded and the ``S = J - burn_in`` kept pairs give

* eq. 12: ``gamma_kw = gamma^t_kw + (1/S) sum_s sum_{d,i} I[z^s_di = k, x_di = w]``;
* eq. 13 (per task): ``P = P_t + c^2 (1/S) sum_s sum_d zbar^s_d zbar^s_d' / lambda^s_d`` and
  ``P mu = P_t mu_t + c (1/S) sum_s sum_d y_d (1 + c epsilon / lambda^s_d) zbar^s_d``,

the joint expectations ``E[lambda^{-1} zbar zbar']`` being averaged over *paired* samples.
This is repeated ``n_gibbs`` (I) times, the chain continuing and each repetition starting
again from ``q_t`` plus the new statistics; then ``q_{t+1} = q``.  ``Z`` is initialised by
drawing each token from ``exp(Lambda_{k, x_di})`` (the current topics without the document
term; uniform for the first batch), then ``lambda`` is drawn given that ``Z``.  Each sample is
one sweep of ``Z | lambda`` followed by one draw of ``lambda | Z``.

The conditionals of the local sampler and the global update (eqs. 13-16, with the
signs the extraction lost restored) are derived in ``docs/derivations/pamedlda.md``.

Prediction
----------
Test documents get ``E[zbar_d]`` by Gibbs fold-in with the topics fixed at the posterior
mean ``phi_kw = gamma_kw / sum_w gamma_kw`` (:func:`fold_in_documents`: one chain per document,
seeded from the document's tokens, average of ``n_transform_samples`` sweeps after
``n_transform_burn``), then
``y = argmax_tau w_tau' E[zbar_d]`` with ``w_tau`` either one draw
``w^_tau ~ N(mu_tau, Sigma_tau)`` (``prediction='gibbs'``, the paper's Gibbs classifier; drawn
after every update from ``random_state``) or the mean ``mu_tau`` (``prediction='average'``).
The default is ``'gibbs'`` as in the paper; after a pass over 20 Newsgroups ``Sigma`` is so
concentrated that both give the same accuracy (see ``scripts/reproduce_bayespa.py``).

Prior scale ``v``
-----------------
The paper uses ``v = 1``; the default is ``v = 10``, because ``v = 1`` collapses the
topics on many-class one-vs-all tasks (``docs/results/topic-model-defaults.md``).

Code shared with paMedHDP
-------------------------
:mod:`topics.pamedhdp` uses the same passive-aggressive part, so each equation is written
once, here: the label factor of eq. 15 (:func:`label_coefficients`, :func:`label_terms`,
:func:`label_move`, :func:`second_moments`), eq. 16 (:func:`sample_lambda`,
:func:`draw_lambda`), eq. 12 (:func:`topic_dirichlet_update`), eq. 13
(:func:`gaussian_update`), the fold-in (:func:`fold_in_documents`) and the estimator's
stream, one-vs-all labels and prediction (``_BayesPAClassifier``).

Passes
------
``partial_fit`` is the native mode: it cuts its input into mini-batches of ``batch_size``
documents and applies the update above to each, in order.  ``fit`` resets the state and makes
``n_passes`` passes, each over a fresh random permutation (``shuffle=True``).  As in the
paper, a later pass *adds the statistics of every document again* (the documents are treated
as new ones; nothing is subtracted), so ``n_passes = p`` counts the data ``p`` times and the
posterior is correspondingly more concentrated.
"""

from __future__ import annotations

import math
import time

import numba as nb
import numpy as np
from scipy.special import digamma
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.exceptions import NotFittedError


from ._validation import (CountClassifierTags, check_classifier_topics, check_fitted_settings,
                          check_known_labels, check_sweep_counts, count_matrix,
                          keep_fitted_settings, seed_of, stream_classes, validate_count_input,
                          validate_labels)
from .corpus import as_count_matrix, is_text_input, token_arrays
from .lda import _draw_cumulative, _seed, fold_in_per_document

__all__ = ["PaMedLDA", "pa_sweep", "fold_in_documents", "sample_lambda", "gaussian_update",
           "draw_lambda", "label_coefficients", "second_moments", "label_terms", "label_move",
           "topic_dirichlet_update", "PREDICTIONS"]

PREDICTIONS = ("gibbs", "average")


# --------------------------------------------------------------------------- kernels

@nb.njit(cache=True)
def label_terms(a_d, b_d, mu, second, counts, n_topics, fresh_var, N, A, h):
    """The label factor of eq. 15 for one document, in the form the samplers use.

    With ``a_d``, ``b_d`` (T,) the document's coefficients (:func:`label_coefficients`),
    the log-factor of ``z_di = k`` is ``A_k - 2 h_k`` where ``N = sum_tau b_tau M_tau``
    (``M = mu mu' + Sigma``, ``second``), ``A_k = sum_tau a_tau mu_tau,k - N_kk`` and
    ``h = N C`` with ``C = counts`` the document's topic counts without the token.  Fills
    ``N``, ``A`` and ``h`` for the first ``n_topics`` topics.  Topics ``k >= mu.shape[1]``
    are not in ``q(w)`` yet (paMedHDP's new topics): ``mu_k = 0``, ``Sigma_kk = fresh_var``
    and no correlation, so ``N_kk = fresh_var sum_tau b_tau`` is their only entry.
    Returns ``sum_tau b_tau``.
    """
    T, Kq = mu.shape
    for k in range(n_topics):
        for j in range(n_topics):
            N[k, j] = 0.0
    bsum = 0.0
    for t in range(T):
        bt = b_d[t]
        bsum += bt
        for k in range(Kq):
            for j in range(Kq):
                N[k, j] += bt * second[t, k, j]
    for k in range(Kq, n_topics):
        N[k, k] = fresh_var * bsum
    for k in range(n_topics):
        s = 0.0
        if k < Kq:
            for t in range(T):
                s += a_d[t] * mu[t, k]
        A[k] = s - N[k, k]
        s = 0.0
        for j in range(n_topics):
            s += N[k, j] * counts[j]
        h[k] = s
    return bsum


@nb.njit(cache=True)
def label_move(N, h, k, n_topics, sign):
    """``h += sign N[k]``: a token joins (``sign = 1``) or leaves (``-1``) topic ``k``."""
    for j in range(n_topics):
        h[j] += sign * N[k, j]


@nb.njit(cache=True)
def pa_sweep(words, offsets, z, ndk, exp_lam, mu, second, a, b, alpha):
    """One Gibbs sweep of ``z`` over a mini-batch given ``lambda`` (eq. 15, in place).

    Parameters
    ----------
    words, offsets : flat tokens of the batch (:func:`topics.corpus.token_arrays`).
    z : int64 (N,) topic of each token; ``ndk`` (B x K) its document-topic counts.
    exp_lam : (V, K) ``exp(Lambda)^T``, word-major.
    mu : (T, K) task means; ``second`` (T, K, K) ``mu mu' + Sigma`` per task.
    a, b : (B, T) ``c y (c eps + lambda) / (n_d lambda)`` and ``c^2 / (2 n_d^2 lambda)``.
    alpha : document Dirichlet parameter.
    """
    n_docs, K = ndk.shape
    N = np.empty((K, K))
    A = np.empty(K)
    h = np.empty(K)
    logit = np.empty(K)
    p = np.empty(K)
    for d in range(n_docs):
        start, stop = offsets[d], offsets[d + 1]
        if stop == start:
            continue
        label_terms(a[d], b[d], mu, second, ndk[d], K, 0.0, N, A, h)
        for i in range(start, stop):
            w, k = words[i], z[i]
            ndk[d, k] -= 1
            label_move(N, h, k, K, -1.0)
            mx = -np.inf
            for j in range(K):
                logit[j] = A[j] - 2.0 * h[j]
                if logit[j] > mx:
                    mx = logit[j]
            total = 0.0
            for j in range(K):
                total += (ndk[d, j] + alpha) * exp_lam[w, j] * math.exp(logit[j] - mx)
                p[j] = total
            k = _draw_cumulative(p)
            z[i] = k
            ndk[d, k] += 1
            label_move(N, h, k, K, 1.0)


@nb.njit(cache=True)
def _draw_from_topics(words, z, exp_lam):
    """``z_i ∝ exp(Lambda_{k, x_i})``: the initial assignment of a new mini-batch."""
    for i in range(words.size):
        row = exp_lam[words[i]]
        p = np.empty(row.size)
        total = 0.0
        for k in range(row.size):
            total += row[k]
            p[k] = total
        z[i] = _draw_cumulative(p)


def fold_in_documents(words, offsets, phi, alpha, n_burn, n_samples, seed):
    """``E[zbar_d]`` of each document by Gibbs fold-in with ``Phi`` fixed, averaged over
    ``n_samples`` sweeps after ``n_burn`` (:func:`topics.lda.fold_in_per_document`: every
    document runs its own chain, seeded from ``seed`` and its tokens, so the result does not
    depend on the other documents or their order).  ``alpha`` is a scalar or a per-topic
    vector (paMedHDP's ``alpha E[pi_k]``).  An empty document gets the normalised prior."""
    K = phi.shape[0]
    prior = np.broadcast_to(np.asarray(alpha, float), (K,)).copy()
    # the kernel's seed is an int64: a random_state of 2**63 - 2 or more (with the offset of
    # transform) was Python's "int too big to convert" (the same value below it)
    counts = fold_in_per_document(words, offsets, np.ascontiguousarray(phi), prior,
                                  int(n_burn), int(n_samples), int(seed) % 2 ** 63)
    nd = np.diff(offsets).astype(float)
    out = np.empty_like(counts)
    out[:] = prior / prior.sum()
    ok = nd > 0
    out[ok] = counts[ok] / nd[ok, None]
    return out


# --------------------------------------------------------------------------- pieces

def sample_lambda(zeta_mean, quad, c, rng):
    """Draw ``lambda ~ GIG(1/2, 1, c^2 (zeta~^2 + zbar' Sigma zbar))`` (eq. 16).

    ``1/lambda`` is inverse Gaussian with mean ``1 / (c sqrt(zeta~^2 + zbar'Sigma zbar))`` and
    shape 1 (``Generator.wald``).  Arrays broadcast; returns ``lambda``.
    """
    s = c * np.sqrt(np.asarray(zeta_mean, float) ** 2 + np.asarray(quad, float))
    if not np.isfinite(s).all():   # epsilon = 1e300: numpy's "mean <= 0" in wald
        raise OverflowError("the margin's scale overflowed")
    s = np.maximum(s, 1e-12)
    return 1.0 / rng.wald(1.0 / s, 1.0)


def draw_lambda(ndk, nd, Y, mu, chol_inv, c, epsilon, rng):
    """``lambda | Z`` for every document and task (eq. 16); returns ``(lambda, zbar)``.

    ``ndk`` (B x K) topic counts, ``nd`` (B,) lengths, ``Y`` (B x T) signs, ``mu`` (T x K) and
    ``chol_inv`` (T x K x K) the inverse Cholesky factors (``Sigma = L^-T L^-1``).
    """
    zbar = ndk / np.maximum(nd, 1.0)[:, None]
    zeta = float(epsilon) - Y * (zbar @ mu.T)                                # B x T
    quad = (np.einsum("tjk,bk->btj", chol_inv, zbar) ** 2).sum(axis=2)       # zbar' Sigma zbar
    return sample_lambda(zeta, quad, float(c), rng), zbar


def label_coefficients(Y, lam, nd, c, epsilon):
    """The (B x T) coefficients of eq. 15's label factor: ``a = c y (c eps + lambda) /
    (n_d lambda)`` and ``b = c^2 / (2 n_d^2 lambda)`` (see :func:`label_terms`)."""
    nd_safe = np.maximum(nd, 1.0)[:, None]
    a = c * Y * (c * epsilon + lam) / (nd_safe * lam)
    b = c * c / (2.0 * nd_safe ** 2 * lam)
    return a, b


def second_moments(mu, chol_inv):
    """``M_tau = mu_tau mu_tau' + Sigma_tau`` (T x K x K) from the inverse Cholesky factors."""
    return mu[:, :, None] * mu[:, None, :] + np.swapaxes(chol_inv, 1, 2) @ chol_inv


def topic_dirichlet_update(prior, z_samples, words):
    """Eq. 12: ``gamma_kw = gamma^t_kw + (1/S) sum_s sum_{d,i} I[z^s_di = k, x_di = w]``
    for the kept samples ``z_samples`` (S arrays of token topics); ``prior`` is ``gamma^t``
    (K x V)."""
    K, V = prior.shape
    acc = np.zeros(K * V)
    for z in z_samples:
        acc += np.bincount(z * V + words, minlength=K * V)
    return prior + acc.reshape(K, V) / len(z_samples)


def gaussian_update(precision, linear, zbar, lam, y, c, epsilon):
    """Eq. 13 for every task in natural parameters, from ``S`` paired samples.

    Parameters
    ----------
    precision : (T, K, K) ``Sigma_t^{-1}``; ``linear`` (T, K) ``Sigma_t^{-1} mu_t``.
    zbar : (S, B, K) topic frequencies of each kept sample; ``lam`` (S, B, T) the paired
        ``lambda`` draws; ``y`` (B, T) labels in {-1, +1}.

    Returns
    -------
    (precision, linear, mean, chol) after the update; ``chol`` holds the lower Cholesky
    factors ``L L' = Sigma^{-1}``.
    """
    zbar = np.asarray(zbar, float)
    inv = 1.0 / np.asarray(lam, float)
    S = zbar.shape[0]
    P = precision + c * c * np.einsum("sbk,sbt,sbj->tkj", zbar, inv, zbar) / S
    h = linear + c * np.einsum("bt,sbt,sbk->tk", y, 1.0 + c * epsilon * inv, zbar) / S
    L = np.linalg.cholesky(P)
    Li = np.linalg.inv(L)
    mu = np.einsum("tjk,tj->tk", Li, np.einsum("tjk,tk->tj", Li, h))   # L^-T L^-1 h
    return P, h, mu, L


def _doc_lengths(offsets):
    return np.diff(offsets).astype(float)


# --------------------------------------------------------------------------- estimators

#: the arrays of the weights' Gaussian posterior, finite after every mini-batch
_GAUSSIAN_STATE = ("precision_", "linear_", "coef_mean_", "precision_chol_")


class _BayesPAClassifier(CountClassifierTags, ClassifierMixin, TransformerMixin,
                         BaseEstimator):
    """What paMedLDA and paMedHDP share: input checks, the one-vs-all labels, the stream of
    mini-batches (:meth:`partial_fit`, :meth:`fit`), the Gibbs / averaging classifier and
    prediction.  A subclass defines ``_check_model_params``, ``_init_state(V)`` (the topic
    part of the state; this class adds ``q(w)``), ``_update_batch(words, offsets, Y)`` and
    ``_doc_topic(words, offsets, seed)`` (``E[zbar]`` of test documents).

    ``_FITTED_SETTINGS``: the hyperparameters that prediction reads and that belong to the
    fitted model, kept at the first fit/partial_fit; changed by ``set_params`` since,
    prediction and ``partial_fit`` refuse them (``ValueError``: set them back or fit again).
    ``n_transform_burn`` and ``n_transform_samples`` (the fold-in's length) may change."""

    #: the fold-in's seed: other features of the same fitted model when changed
    _FITTED_SETTINGS = ("random_state",)

    # ------------------------------------------------------------------ checks
    def _check_params(self):
        self._check_model_params()
        check_sweep_counts(self, {"batch_size": 1, "n_gibbs": 1, "n_passes": 1, "n_samples": 1,
                                  "burn_in": 0, "n_transform_burn": 0,
                                  "n_transform_samples": 1}, positive=("c", "v"))
        if not self.epsilon >= 0:
            raise ValueError("epsilon must be >= 0")
        if not 0 <= int(self.burn_in) < int(self.n_samples):
            raise ValueError(f"need 0 <= burn_in < n_samples, got burn_in={self.burn_in}, "
                             f"n_samples={self.n_samples}")
        if self.prediction not in PREDICTIONS:
            raise ValueError(f"prediction must be one of {PREDICTIONS}, got {self.prediction!r}")

    def _check_fitted(self):
        if not hasattr(self, "topic_word_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet")
        check_fitted_settings(self)

    def _counts(self, X, reset):
        X = validate_count_input(self, X, reset=reset)
        vocab = getattr(self, "vocabulary_", None)
        if is_text_input(X) and vocab is None:
            if not reset:         # predict named partial_fit
                raise ValueError(f"text input needs a fitted vocabulary: this "
                                 f"{type(self).__name__} was fitted on a count matrix")
            if self.vocabulary is None or not len(self.vocabulary):
                raise ValueError("text input to partial_fit needs a fitted vocabulary "
                                 "(pass vocabulary=Vocabulary().fit(texts), or use fit)")
            vocab = self.vocabulary_ = self.vocabulary
        X = as_count_matrix(X, vocab, integer=True, round_counts=self.round_counts)
        if hasattr(self, "n_features_in_") and not reset and X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input")
        self.n_features_in_ = X.shape[1]
        return X

    def _labels(self, y, n_docs, classes):
        """Labels as a (D x T) matrix of one-vs-all signs; sets ``classes_`` on the first call."""
        y = validate_labels(self, y, n_docs)
        known = stream_classes(self, classes, y, not hasattr(self, "classes_"))
        unseen = np.setdiff1d(y, known)
        if unseen.size:
            raise ValueError(f"y contains labels not in classes: {unseen[:5].tolist()}")
        self.classes_ = known
        yi = np.searchsorted(known, y)
        return np.where(yi[:, None] == np.arange(known.size)[None, :], 1.0, -1.0)

    # ------------------------------------------------------------------ state
    def _init_gaussian(self, K):
        """``q_0(w_tau) = N(0, v^2 I)`` for every task, in natural parameters."""
        T = self.classes_.size
        if not 1e-150 <= float(self.v) <= 1e150:     # v ** 2 overflows (a Python error)
            raise ValueError(self._overflow_message())
        self.precision_ = np.tile(np.eye(K) / float(self.v) ** 2, (T, 1, 1))
        self.precision_chol_ = np.tile(np.eye(K) / float(self.v), (T, 1, 1))
        self.linear_ = np.zeros((T, K))
        self.coef_mean_ = np.zeros((T, K))

    def _init_stream(self):
        self.n_docs_seen_ = 0
        self.n_batches_seen_ = 0
        self.fit_time_ = 0.0
        keep_fitted_settings(self, self._FITTED_SETTINGS)
        rs = seed_of(self)
        self.random_state_ = np.random.default_rng(rs)

    def _set_coef(self):
        """``coef_``: one draw ``w^ ~ N(mu, Sigma)`` (Gibbs classifier) or ``mu``."""
        self.components_ = self.topic_word_ / self.topic_word_.sum(axis=1, keepdims=True)
        if self.prediction == "average":
            self.coef_ = self.coef_mean_.copy()
            return
        rs = seed_of(self)
        rng = np.random.default_rng([rs, 1, self.n_batches_seen_])
        eps = rng.standard_normal(self.coef_mean_.shape)
        Li = np.linalg.inv(self.precision_chol_)                  # Sigma = L^-T L^-1
        self.coef_ = self.coef_mean_ + np.einsum("tjk,tj->tk", Li, eps)

    def _stream(self, X, Y):
        bs = int(self.batch_size)
        for s in range(0, X.shape[0], bs):
            words, _, offsets = token_arrays(X[s:s + bs])
            try:
                with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                    self._update_batch(words, offsets, Y[s:s + bs])   # checked below
            except (np.linalg.LinAlgError, OverflowError):
                raise ValueError(self._overflow_message()) from None
            # c = 1e300 (or v = 1e-300) made the posterior NaN: the model written loaded
            # as "a damaged or edited file"; refused here, naming the settings
            if not all(np.isfinite(getattr(self, k)).all() for k in _GAUSSIAN_STATE):
                raise ValueError(self._overflow_message())

    def _overflow_message(self):
        return (f"c={float(self.c):g}, v={float(self.v):g}, epsilon={float(self.epsilon):g}: "
                "the weights' Gaussian posterior overflowed (no finite weights); use values "
                "nearer the defaults (c=1, v=10, epsilon=164)")

    # ------------------------------------------------------------------ fitting
    def partial_fit(self, X, y, classes=None):
        """Update the posterior with the documents ``X`` (cut into mini-batches of
        ``batch_size``, in the given order) and labels ``y``.

        ``classes`` (all labels of the stream) is required on the first call; later labels
        outside it raise ``ValueError``.  Calls whose sizes are multiples of ``batch_size``
        give the same mini-batches, hence the same model, as one :meth:`fit` pass over their
        concatenation with ``shuffle=False``.
        """
        self._check_params()
        first = not hasattr(self, "topic_word_")
        if not first:   # the stream goes on with the fitted model's settings
            check_fitted_settings(self)
        X = self._counts(X, reset=first)
        Y = self._labels(y, X.shape[0], classes)
        t0 = time.perf_counter()
        if first:
            self._init_state(X.shape[1])
        self._stream(X, Y)
        self._set_coef()
        self.fit_time_ += time.perf_counter() - t0
        return self

    def fit(self, X, y):
        """Reset and make ``n_passes`` streaming passes over ``(X, y)``."""
        self._check_params()
        for attr in ("topic_word_", "classes_", "vocabulary_", "n_features_in_"):
            self.__dict__.pop(attr, None)
        X = count_matrix(self, X, fitting=True)
        y = validate_labels(self, y, X.shape[0])
        if X.sum() == 0:
            raise ValueError("the corpus has no tokens")
        Y = self._labels(y, X.shape[0], np.unique(y))
        t0 = time.perf_counter()
        self._init_state(X.shape[1])
        order = np.arange(X.shape[0])
        for _ in range(int(self.n_passes)):
            if self.shuffle:
                order = self.random_state_.permutation(X.shape[0])
            self._stream(X[order], Y[order])
        self._set_coef()
        self.fit_time_ = time.perf_counter() - t0
        return self

    # ------------------------------------------------------------------ inference
    def transform(self, X):
        """``E[zbar_d]`` (D x K) by Gibbs fold-in with the topics fixed at ``E[Phi]``: one
        chain per document, seeded from ``random_state`` and the document's tokens, so a
        document's features depend neither on the other documents nor on their order."""
        self._check_fitted()
        X = self._counts(X, reset=False)
        words, _, offsets = token_arrays(X)
        rs = seed_of(self)
        return self._doc_topic(words, offsets, rs + 2)

    def decision_function(self, X):
        """``w_tau' E[zbar_d]`` for each task (D x T), with ``coef_``; with two classes the
        difference of the two tasks' scores (positive means ``classes_[1]``)."""
        scores = self.transform(X) @ self.coef_.T
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X):
        """``argmax_tau w_tau' E[zbar_d]`` (one-vs-all)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[scores.argmax(axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy; labels not seen in training raise ``ValueError``."""
        self._check_fitted()
        check_known_labels(self.classes_, y)
        return super().score(X, y, sample_weight=sample_weight)


class PaMedLDA(_BayesPAClassifier):
    """Online Bayesian passive-aggressive MedLDA with one-vs-all Gibbs classifiers.

    Parameters
    ----------
    n_topics : int
        ``K``.
    alpha : float or None
        Document Dirichlet parameter; ``None`` means ``1 / K`` (paper).
    gamma : float
        Symmetric topic Dirichlet of ``q_0(Phi_k)`` (paper: 0.5).
    epsilon : float
        Margin of the hinge loss (paper: 164).
    c : float
        Regularisation constant (pseudo-likelihood ``exp(-2c (zeta)_+)``; paper: 1).
    v : float
        Prior ``q_0(w) = N(0, v^2 I)``.  The default is 10, not the paper's 1, which
        collapses the topics on many-class one-vs-all tasks (module doc).
    batch_size : int
        ``|B|`` (paper: 64 to 512).
    n_samples : int
        ``J``, Gibbs samples of ``(Z, lambda)`` per iteration.
    burn_in : int
        The paper's ``beta``: samples discarded, ``0 <= burn_in < n_samples``.
    n_gibbs : int
        ``I``, global/local iterations per mini-batch.
    n_passes : int
        Passes of :meth:`fit` over the data (each adds the statistics again; see module doc).
    shuffle : bool
        :meth:`fit` visits the documents in a new random order each pass.
    prediction : {'gibbs', 'average'}
        One draw ``w^ ~ N(mu, Sigma)`` (default, the paper) or the posterior mean ``mu``.
    n_transform_burn, n_transform_samples : int
        Fold-in sweeps discarded / averaged for ``E[zbar]`` of test documents.  With
        ``alpha = 1/K`` the fold-in chain mixes slowly, so the defaults are long
        (``docs/results/topic-model-defaults.md``).  They may be changed by ``set_params``
        after fit (they are read at prediction only).
    vocabulary : Vocabulary or None
        For text input (fitted in :meth:`fit`; :meth:`partial_fit` needs it fitted).
    random_state : int, None, numpy RandomState or Generator
        Seeds the stream and the fold-in of prediction: changed by ``set_params`` after fit,
        prediction and ``partial_fit`` refuse it (``ValueError``; set it back or fit again).
        ``alpha`` changed takes effect at the next fit (``alpha_`` is the fit's).
    round_counts : bool, default False
        Round non-integer counts (e.g. TF-IDF weights) to the nearest integer.  By
        default such a matrix raises ``ValueError``: the Gibbs samplers need whole
        word counts.  Values within ``1e-8`` of an integer (e.g. ``2.0``) are always
        accepted; absurd counts (a cell above ``2**31 - 1``, or more tokens than this
        machine's memory can hold) are always refused.

    Attributes
    ----------
    classes_ : ndarray (T,)
    topic_word_ : ndarray (K, V)
        ``gamma`` of ``q(Phi)`` (eq. 12).
    components_ : ndarray (K, V)
        ``E[Phi]``, rows normalised ``topic_word_``.
    precision_, precision_chol_ : ndarray (T, K, K)
        ``Sigma^{-1}`` per task and its lower Cholesky factor.
    linear_ : ndarray (T, K)
        ``Sigma^{-1} mu``.
    coef_mean_ : ndarray (T, K)
        ``mu``.
    coef_ : ndarray (T, K)
        The weights used to predict (a draw or ``mu``).
    n_docs_seen_, n_batches_seen_ : int
    fit_time_ : float
        Seconds spent in updates (``fit``: the whole fit; ``partial_fit`` accumulates).
    """

    def __init__(self, n_topics=40, alpha=None, gamma=0.5, epsilon=164.0, c=1.0, v=10.0,
                 batch_size=512, n_samples=2, burn_in=0, n_gibbs=1, n_passes=1, shuffle=True,
                 prediction="gibbs", n_transform_burn=100, n_transform_samples=100,
                 vocabulary=None, random_state=0, round_counts=False):
        self.n_topics = n_topics
        self.alpha = alpha
        self.gamma = gamma
        self.epsilon = epsilon
        self.c = c
        self.v = v
        self.batch_size = batch_size
        self.n_samples = n_samples
        self.burn_in = burn_in
        self.n_gibbs = n_gibbs
        self.n_passes = n_passes
        self.shuffle = shuffle
        self.prediction = prediction
        self.n_transform_burn = n_transform_burn
        self.n_transform_samples = n_transform_samples
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts

    # ------------------------------------------------------------------ checks
    def _check_model_params(self):
        check_classifier_topics(self.n_topics)
        check_sweep_counts(self, {}, positive=("gamma",) if self.alpha is None
                           else ("alpha", "gamma"))   # "1" was a TypeError of ">"

    @property
    def alpha_(self):
        """The prior of the fitted model (``1 / n_topics`` for ``alpha=None``), fixed at
        the first fit/partial_fit: ``set_params`` takes effect at the next fit."""
        kept = self.__dict__.get("_fitted_alpha")
        if kept is not None:
            return kept
        return 1.0 / int(self.n_topics) if self.alpha is None else float(self.alpha)

    # ------------------------------------------------------------------ state
    def _init_state(self, V):
        self.__dict__.pop("_fitted_alpha", None)
        self._fitted_alpha = self.alpha_
        K = int(self.n_topics)
        self.topic_word_ = np.full((K, V), float(self.gamma))
        self._init_gaussian(K)
        self._init_stream()
        self._set_coef()

    def _update_batch(self, words, offsets, Y):
        """Algorithm 1 for one mini-batch (tokens ``words``/``offsets``, labels ``Y`` (B x T))."""
        rng = self.random_state_
        K, V = self.topic_word_.shape
        B, T = Y.shape
        c, eps, alpha = float(self.c), float(self.epsilon), self.alpha_
        J, burn = int(self.n_samples), int(self.burn_in)
        S = J - burn
        nd = _doc_lengths(offsets)
        has = nd > 0
        docs = np.repeat(np.arange(B), np.diff(offsets))
        gamma0, P0, h0 = self.topic_word_, self.precision_, self.linear_
        gamma, mu, chol = gamma0, self.coef_mean_, self.precision_chol_
        z = np.empty(words.size, np.int64)
        for it in range(int(self.n_gibbs)):
            exp_lam = np.ascontiguousarray(
                np.exp(digamma(gamma) - digamma(gamma.sum(axis=1, keepdims=True))).T)   # V x K
            Li = np.linalg.inv(chol)
            second = second_moments(mu, Li)
            if it == 0:
                _seed(int(rng.integers(2**31 - 1)))
                _draw_from_topics(words, z, exp_lam)
                ndk = np.zeros((B, K), np.int64)
                np.add.at(ndk, (docs, z), 1)
            lam, _ = draw_lambda(ndk, nd, Y, mu, Li, c, eps, rng)                     # eq. 16
            kept_z, zbars, lams = [], np.empty((S, B, K)), np.empty((S, B, T))
            for j in range(J):
                a, b = label_coefficients(Y, lam, nd, c, eps)
                _seed(int(rng.integers(2**31 - 1)))
                pa_sweep(words, offsets, z, ndk, exp_lam, mu, second, a, b, alpha)    # eq. 15
                lam, zbar = draw_lambda(ndk, nd, Y, mu, Li, c, eps, rng)               # eq. 16
                if j >= burn:
                    kept_z.append(z.copy())
                    zbars[j - burn] = zbar
                    lams[j - burn] = lam
            gamma = topic_dirichlet_update(gamma0, kept_z, words)                      # eq. 12
            P, h, mu, chol = gaussian_update(P0, h0, zbars[:, has], lams[:, has], Y[has],
                                             c, eps)                                   # eq. 13
        self.topic_word_, self.precision_, self.linear_ = gamma, P, h
        self.coef_mean_, self.precision_chol_ = mu, chol
        self.n_docs_seen_ += B
        self.n_batches_seen_ += 1

    # ------------------------------------------------------------------ inference
    def _doc_topic(self, words, offsets, seed):
        """``E[zbar_d]`` by fold-in with ``E[Phi]`` and the prior ``Dir(alpha)``; an empty
        document (after dropping unknown words) gets ``1/K``."""
        return fold_in_documents(words, offsets, self.components_, self.alpha_,
                                 int(self.n_transform_burn), int(self.n_transform_samples), seed)
