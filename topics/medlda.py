"""Monte Carlo MedLDA: max-margin supervised topic models (Jiang, Zhu, Sun & Xing, NIPS 2012).

LDA with a multi-class max-margin posterior constraint.  The discriminant is
``eta' f(y, z-bar_d)`` with ``z-bar_dk = (1/N_d) sum_n I(z_dn = k)``, the prior is
``p0(eta) = N(0, I)``, so ``p(eta) = N(kappa, I)``.  Training alternates

* **step A** (eqs. 10-12): given ``E[z-bar_d]``, solve the multi-class SVM dual for the
  per-document, per-class multipliers ``lambda_d^y`` (``sum_y lambda_d^y <= C / D``, cost
  ``l_d(y) = l I(y != y_d)``) and ``kappa = sum_d sum_y lambda_d^y Delta f(y, E[z-bar_d])``
  (:func:`topics.multiclass_svm.fit_multiclass_svm_dual`);
* **step B** (eq. 14): ``p(Theta, Z, Phi) ∝ p(W, Z, Theta, Phi) exp(kappa' sum_d sum_y
  lambda_d^y Delta f(y, z-bar_d))``, sampled by collapsed Gibbs (:class:`GibbsMedLDA`,
  eq. 21) or by importance sampling around MAP ``(Theta, Phi)`` (:class:`ImportanceMedLDA`,
  eqs. 16-19).

**How the max-margin term enters the token conditional.**  The exponent of eq. 14 is
``sum_d sum_k c_dk z-bar_dk`` with ``c_dk = sum_y lambda_d^y (kappa_{y_d k} - kappa_{yk})``.
Since ``z-bar_dk = n_dk / N_d``, moving one token of document ``d`` to topic ``k`` changes the
exponent by ``c_dk / N_d`` (relative to the other topics), so each token's conditional is
LDA's times ``exp(B_dk)`` with ``B_dk = c_dk / N_d`` -- the ``1/N_d`` is inside ``B``, once
per token, not ``exp(c_dk)``, and the whole document picks up ``exp(sum_k B_dk n_dk)``
(eqs. 16 and 21).  Documents with ``lambda_d = 0`` (most of them) have ``B_d = 0``; only
the others get a bias row (``bias_row_[d] >= 0``, sparse storage).

Stopping rule (sec. 5): at most ``n_iter`` alternations (100), or a relative change of the
objective ``|L_t - L_{t-1}| / |L_{t-1}| < tol``, with ``L`` the negative log joint of the
topic model (collapsed ``-log p(W, Z)`` for Gibbs, ``-log p(W | Theta, Phi)`` at the MAP
point for importance sampling) plus the SVM primal ``||kappa||^2 / 2 + (C/D) sum_d xi_d``
(problem 8).

Prediction (sec. 4.3): ``Phi`` fixed, ``E[z-bar]`` of a new document by Gibbs fold-in
(averaging ``n_predict_samples`` samples after ``n_predict_burn`` sweeps) or by
importance weights without the label term; ``y = argmax_y kappa_y' E[z-bar]`` (eq. 5).
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.exceptions import NotFittedError

from structpred import check_positive, estimator_seed

from ._validation import (CountClassifierTags, check_classifier_topics, check_known_labels,
                          count_matrix, labelled_corpus)
from .corpus import token_arrays
from .lda import (_seed, collapsed_log_joint, derive_seed, doc_seed, fold_in_per_document,
                  gibbs_sweep_biased, init_counts)
from .multiclass_svm import fit_multiclass_svm_dual

__all__ = ["GibbsMedLDA", "ImportanceMedLDA", "topic_bias", "importance_step",
           "importance_step_per_document"]


def topic_bias(lam, kappa, y, doc_lengths):
    """Sparse ``B`` of eq. 21: ``(bias_row, exp_bias)``.

    ``B_dk = (1/N_d) sum_y lambda_d^y (kappa_{y_d k} - kappa_{yk})`` for the documents with
    non-zero multipliers; ``bias_row[d]`` indexes their row of ``exp_bias = exp(B)`` and is
    ``-1`` for every other document (and for empty ones).  Each row is stored as
    ``exp(B_d - max_k B_dk)``, which leaves the normalised conditional unchanged and cannot
    overflow.
    """
    lam = sp.csr_matrix(lam)
    D = lam.shape[0]
    tot = np.asarray(lam.sum(axis=1)).ravel()
    rows = np.flatnonzero((tot > 0) & (doc_lengths > 0))
    bias_row = np.full(D, -1, np.int64)
    bias_row[rows] = np.arange(rows.size)
    sub = lam[rows]
    B = (tot[rows, None] * kappa[y[rows]] - sub @ kappa) / doc_lengths[rows, None]
    # a per-document constant cancels in the token conditional: shift by the row maximum
    exp_bias = np.exp(B - B.max(axis=1, keepdims=True)) if rows.size else np.ones((1, kappa.shape[1]))
    return bias_row, np.ascontiguousarray(exp_bias)


# --------------------------------------------------------------------------- importance sampler

@nb.njit(cache=True)
def _mix64(x):
    """splitmix64 finaliser: a counter-based hash, so the proposal samples need no storage."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def _importance_pass(words, docs, keys, starts, theta, phi, bias_row, exp_bias, n_samples,
                     want_phi):
    """The body of :func:`importance_step`: token ``i`` of document ``d`` draws its proposals
    from the counter ``keys[d] + (i - starts[d]) golden`` (splitmix64)."""
    D, K = theta.shape
    V = phi.shape[1]
    ndk = np.zeros((D, K))
    nkw = np.zeros((K, V)) if want_phi else np.zeros((1, 1))
    cnt = np.zeros(K)
    wt = np.zeros(K)
    golden = np.uint64(0x9E3779B97F4A7C15)
    ll = 0.0
    for i in range(words.size):
        w, d = words[i], docs[i]
        r = bias_row[d]
        lik = 0.0
        for k in range(K):
            cnt[k] = 0.0
            wt[k] = theta[d, k] * phi[k, w]
            lik += wt[k]
            if r >= 0:
                wt[k] *= exp_bias[r, k]
        ll += np.log(lik)
        state = _mix64(keys[d] + np.uint64(i - starts[d]) * golden)
        for j in range(n_samples):
            state += golden
            cnt[_mix64(state) % np.uint64(K)] += 1.0
        tot = 0.0
        for k in range(K):
            tot += cnt[k] * wt[k]
        if tot <= 0.0:      # every draw has zero weight: fall back to the exact conditional
            for k in range(K):
                cnt[k] = 1.0
                tot += wt[k]
        if tot <= 0.0:
            continue
        for k in range(K):
            e = cnt[k] * wt[k] / tot
            ndk[d, k] += e
            if want_phi:
                nkw[k, w] += e
    return ndk, nkw, ll


@nb.njit(cache=True)
def _doc_starts(docs, n_docs):
    starts = np.zeros(n_docs, np.int64)
    for i in range(docs.size - 1, -1, -1):
        starts[docs[i]] = i
    return starts


@nb.njit(cache=True)
def importance_step(words, docs, theta, phi, bias_row, exp_bias, n_samples, seed, want_phi):
    """One importance-sampling pass (eqs. 16-18) with a uniform proposal ``g(k) = 1/K``.

    Token ``i`` has ``J = n_samples`` proposal draws ``z^(j)_i``, the same at every call with
    the same ``seed`` (they are a hash of ``(seed, i, j)``: the paper's "draw the J samples
    once outside the loop", without storing ``J x N`` labels).  The self-normalised weights
    ``gamma^j ∝ theta_dk phi_kw exp(B_dk) / g(k)`` at ``k = z^(j)`` give
    ``E[z_i = k] = sum_j gamma^j I(z^(j) = k) / sum_j gamma^j`` (eq. 17), accumulated into
    the expected counts ``n_dk`` (D x K) and, if ``want_phi``, ``n_kw`` (K x V).

    Returns ``(n_dk, n_kw, log_lik)`` with ``log_lik = sum_i log sum_k theta_dk phi_kw``.
    """
    D = theta.shape[0]
    golden = np.uint64(0x9E3779B97F4A7C15)
    base = _mix64(np.uint64(seed))
    starts = _doc_starts(docs, D)
    keys = np.empty(D, np.uint64)
    for d in range(D):
        keys[d] = base + np.uint64(starts[d]) * golden     # counter base + i golden, as one stream
    return _importance_pass(words, docs, keys, starts, theta, phi, bias_row, exp_bias,
                            n_samples, want_phi)


@nb.njit(cache=True)
def importance_step_per_document(words, offsets, theta, phi, n_samples, seed):
    """:func:`importance_step` with no label term and ``Phi`` fixed, for prediction: the
    proposals of document ``d`` are a hash of ``(seed, the document's tokens, position in the
    document, j)`` (:func:`topics.lda.doc_seed`), so a document's expected counts do not
    depend on the other documents of the call or their order.  Returns ``n_dk``."""
    D, K = theta.shape
    docs = np.empty(words.size, np.int64)
    starts = np.empty(D, np.int64)
    keys = np.empty(D, np.uint64)
    for d in range(D):
        starts[d] = offsets[d]
        keys[d] = _mix64(np.uint64(doc_seed(seed, words, offsets[d], offsets[d + 1])))
        for i in range(offsets[d], offsets[d + 1]):
            docs[i] = d
    no_bias = np.full(D, -1, np.int64)
    return _importance_pass(words, docs, keys, starts, theta, phi, no_bias, np.ones((1, K)),
                            n_samples, False)[0]


# --------------------------------------------------------------------------- estimators

class _MedLDABase(CountClassifierTags, ClassifierMixin, TransformerMixin, BaseEstimator):
    """Shared input handling, SVM step, stopping rule and prediction rule."""

    # ---- validation
    def _check_params(self):
        check_classifier_topics(self.n_topics)
        check_positive("alpha", self.alpha)
        check_positive("beta", self.beta)
        if not (np.isfinite(self.C) and self.C >= 0):
            raise ValueError(f"C must be a finite non-negative number, got {self.C}")
        if not (np.isfinite(self.cost) and self.cost >= 0):
            raise ValueError(f"cost must be a finite non-negative number, got {self.cost}")
        if int(self.n_iter) < 1 or not self.tol >= 0:
            raise ValueError("n_iter must be >= 1 and tol >= 0")

    def _counts(self, X, fitting):
        return count_matrix(self, X, fitting=fitting)

    def _prepare_fit(self, X, y):
        self._check_params()
        self.__dict__.pop("components_", None)   # n_samples_ reads the fitted topics' count
        self._fitted_alpha = float(self.alpha)   # the prior of this fit (transform's too)
        X, y_idx, (words, docs, _) = labelled_corpus(self, X, y)
        # root of the prediction streams: random_state, or fresh entropy when it is None
        self.seed_ = int(np.random.SeedSequence(estimator_seed(self)).entropy)
        nd = np.asarray(X.sum(axis=1)).ravel().astype(np.float64)
        return X, y_idx, words, docs, nd

    def _svm_step(self, F, y_idx, lam, final=False):
        """Warm-started dual solve: at most ``svm_max_epochs`` epochs inside the alternation
        (the multipliers keep improving from one alternation to the next), at most
        ``20 * svm_max_epochs`` for the final ``kappa`` on the last features."""
        t = time.perf_counter()
        epochs = int(self.svm_max_epochs) * (20 if final else 1)
        with np.errstate(over="ignore", invalid="ignore"):   # checked by _topic_bias
            res = fit_multiclass_svm_dual(F, y_idx, float(self.C), float(self.cost),
                                          self.classes_.size, lam0=lam, tol=self.svm_tol,
                                          max_epochs=epochs, random_state=estimator_seed(self))
        self.svm_time_ += time.perf_counter() - t
        return res

    def _topic_bias(self, lam, kappa, y_idx, nd):
        """:func:`topic_bias`, refused when it overflowed (cost = 1e300: a model holding
        NaN was written, then refused as "a damaged or edited file")."""
        with np.errstate(over="ignore", invalid="ignore"):
            bias_row, exp_bias = topic_bias(lam, kappa, y_idx, nd)
        if not (np.isfinite(kappa).all() and np.isfinite(exp_bias).all()):
            raise ValueError(f"cost={float(self.cost):g}, C={float(self.C):g}: the topics' "
                             "label bias overflowed (no finite model); use a smaller cost "
                             "(the default: 16)")
        return bias_row, exp_bias

    def _converged(self, objective):
        """Append ``objective``; True when its relative change is below ``tol`` (sec. 5)."""
        hist = self.objective_history_
        hist.append(float(objective))
        return len(hist) > 1 and abs(hist[-1] - hist[-2]) <= self.tol * abs(hist[-2])

    def _finish(self, res, F, y_idx):
        if res.status != "converged":
            res = self._svm_step(F, y_idx, res.lam, final=True)
        self.kappa_ = res.kappa
        self.lambda_ = res.lam
        self.svm_result_ = res
        self.train_features_ = F

    @property
    def lambda_sparsity_(self):
        """Share of the free multipliers ``lambda_d^y`` (``y != y_d``) that are non-zero."""
        D, M = self.lambda_.shape
        return self.lambda_.nnz / float(D * (M - 1))

    # ---- prediction
    def _alpha(self):
        """The prior ``alpha`` of the fitted model (``set_params(alpha=...)`` takes effect at
        the next fit: transform read it anew, another prior for the fitted topics)."""
        return self.__dict__.get("_fitted_alpha", float(self.alpha))

    def _check_fitted(self):
        if not hasattr(self, "kappa_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet")

    def _scores(self, X):
        return self.transform(X) @ self.kappa_.T

    def decision_function(self, X):
        """``kappa_y' E[z-bar]`` for every class (eq. 5); with two classes, scikit-learn's
        convention: the difference, positive for ``classes_[1]``."""
        s = self._scores(X)
        return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s

    def predict(self, X):
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy; labels not seen in training raise ``ValueError``."""
        self._check_fitted()
        check_known_labels(self.classes_, y)
        return super().score(X, y, sample_weight=sample_weight)

    def _test_tokens(self, X):
        self._check_fitted()
        X = self._counts(X, fitting=False)
        words, _, offsets = token_arrays(X)
        nd = np.asarray(X.sum(axis=1)).ravel().astype(np.float64)
        return X, words, offsets, nd

    def _transform_seed(self):
        """Root seed of the per-document prediction streams (``random_state``; ``None``: the
        entropy drawn at ``fit``)."""
        return derive_seed(self.seed_, 1)

    @staticmethod
    def _zbar(counts, nd):
        """``counts / N_d`` rows; an empty document gets ``1/K``."""
        K = counts.shape[1]
        out = np.full(counts.shape, 1.0 / K)
        ok = nd > 0
        out[ok] = counts[ok] / nd[ok, None]
        return out


class GibbsMedLDA(_MedLDABase):
    """gMedLDA: MedLDA with the collapsed Gibbs sampler of eq. 21.

    Each alternation runs ``n_sweeps`` sweeps of

    .. math::
        p(z_{dn} = k \\mid Z_\\neg, W) \\propto
        \\frac{C_{k,\\neg n}^{t} + \\beta}{\\sum_t C_{k,\\neg n}^{t} + V\\beta}
        (C_{d,\\neg n}^{k} + \\alpha)\\, \\exp(B_{dk}),\\qquad
        B_{dk} = \\frac{1}{N_d} \\sum_y \\lambda_d^y (\\kappa_{y_d k} - \\kappa_{yk})   \\quad (21)

    (:func:`topics.lda.gibbs_sweep_biased`; ``B`` is stored only for documents with non-zero
    ``lambda_d``), takes ``E[z-bar_d]`` from the last sample (``J = 1`` in training, as in
    the paper) and re-solves the SVM dual (eq. 12, warm-started).  ``Phi`` is the posterior
    mean given the last sample.  Before the first SVM step, ``n_burn_in`` plain LDA sweeps
    are run.

    Parameters
    ----------
    n_topics : int
    alpha, beta : float
        Symmetric Dirichlet priors (the paper: gMedLDA prefers ``alpha >~ 0.1``; ``beta = 0.01``).
    C : float
        SVM regularisation; the constraint is ``sum_y lambda_d^y <= C / D``.  ``C`` also sets
        the size of the topic bias ``B``.  The default ``1e5`` (``C / D`` about 9 on the
        20 Newsgroups training documents) was chosen on held-out training documents; the
        paper's grid ``{1, 4, ..., 64}`` leaves ``B`` without effect
        (``docs/results/topic-model-defaults.md``).
    cost : float
        ``l`` of ``l_d(y) = l I(y != y_d)`` (16 in the paper).
    n_iter : int
        Maximum number of alternations (100 in the paper).
    tol : float
        Relative objective change that stops the alternation (``epsilon``).  The paper's
        ``1e-4`` stopped gMedLDA after 9 alternations on a 4,000-document subset (the
        objective is dominated by ``-log p(W, Z)``, whose sweep-to-sweep noise is about
        that size) with accuracy 0.61; ``1e-5`` ran 50 alternations, 0.70.
    n_sweeps : int
        Gibbs sweeps per alternation.
    n_burn_in : int
        Plain LDA sweeps before the first SVM step.
    n_predict_samples, n_predict_burn : int
        Fold-in samples averaged / discarded at prediction (``J = 20`` in the paper).
    svm_tol, svm_max_epochs : float, int
        Duality-gap tolerance and epoch cap of the SVM dual solver.
    vocabulary : Vocabulary or None
        For text input.
    random_state : int, None, numpy RandomState or Generator
    round_counts : bool, default False
        Round non-integer counts (e.g. TF-IDF weights) to the nearest integer.  By
        default such a matrix raises ``ValueError``: the Gibbs samplers need whole
        word counts.  Values within ``1e-8`` of an integer (e.g. ``2.0``) are always
        accepted; absurd counts (a cell above ``2**31 - 1``, or more tokens than this
        machine's memory can hold) are always refused.

    Attributes
    ----------
    kappa_ : ndarray (M, K)
        ``E[eta]``; row ``y`` weighs the topics for class ``classes_[y]``.
    lambda_ : scipy.sparse.csr_matrix (D, M)
        The multipliers of the last SVM step.
    components_ : ndarray (K, V)
        ``Phi``: ``(C_k^t + beta) / (C_k + V beta)``.
    n_iter_ : int
    objective_history_ : list of float
    inference_time_, svm_time_, fit_time_ : float
        Seconds spent sampling, in the SVM solver, and in all of ``fit``.
    seed_ : int
        ``random_state`` (fresh entropy when ``None``), the root of the prediction streams.
    """

    def __init__(self, n_topics=20, alpha=0.1, beta=0.01, C=1e5, cost=16.0, n_iter=100, tol=1e-5,
                 n_sweeps=1, n_burn_in=50, n_predict_samples=20, n_predict_burn=30, svm_tol=1e-3,
                 svm_max_epochs=10, vocabulary=None, random_state=0, round_counts=False):
        self.n_topics = n_topics
        self.alpha = alpha
        self.beta = beta
        self.C = C
        self.cost = cost
        self.n_iter = n_iter
        self.tol = tol
        self.n_sweeps = n_sweeps
        self.n_burn_in = n_burn_in
        self.n_predict_samples = n_predict_samples
        self.n_predict_burn = n_predict_burn
        self.svm_tol = svm_tol
        self.svm_max_epochs = svm_max_epochs
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts

    def fit(self, X, y):
        """Alternate Gibbs sweeps (eq. 21) and the SVM dual (eq. 12) on ``(X, y)``."""
        t_fit = time.perf_counter()
        X, y_idx, words, docs, nd = self._prepare_fit(X, y)
        D, V, K = X.shape[0], X.shape[1], int(self.n_topics)
        alpha, beta = self._alpha(), float(self.beta)
        rng = np.random.default_rng(estimator_seed(self))
        _seed(int(rng.integers(2**31 - 1)))
        z = rng.integers(0, K, size=words.size).astype(np.int64)
        ndk, nwk, nk = init_counts(words, docs, z, D, K, V)
        bias_row, exp_bias = np.full(D, -1, np.int64), np.ones((1, K))
        self.inference_time_ = self.svm_time_ = 0.0
        self.objective_history_ = []

        def sweeps(n):
            t = time.perf_counter()
            for _ in range(n):
                gibbs_sweep_biased(words, docs, z, ndk, nwk, nk, alpha, beta, bias_row, exp_bias)
            self.inference_time_ += time.perf_counter() - t

        sweeps(int(self.n_burn_in))
        lam = res = F = None
        for it in range(1, int(self.n_iter) + 1):
            sweeps(int(self.n_sweeps))
            F = self._zbar(ndk.astype(np.float64), nd)
            res = self._svm_step(F, y_idx, lam)
            lam = res.lam
            bias_row, exp_bias = self._topic_bias(lam, res.kappa, y_idx, nd)
            self.n_iter_ = it
            if self._converged(res.primal - collapsed_log_joint(ndk, nwk, alpha, beta)):
                break
        self._finish(res, F, y_idx)
        self.bias_row_, self.exp_bias_ = bias_row, exp_bias
        self.topic_word_counts_ = np.ascontiguousarray(nwk.T)
        self.components_ = (self.topic_word_counts_ + beta) / (nk[:, None] + V * beta)
        self.fit_time_ = time.perf_counter() - t_fit
        return self

    def transform(self, X):
        """``E[z-bar_d]`` by Gibbs fold-in with ``Phi`` fixed (sec. 4.3), averaged over
        ``n_predict_samples`` samples after ``n_predict_burn`` sweeps; one chain per document
        (:func:`topics.lda.fold_in_per_document`), seeded from ``random_state`` and the
        document's tokens, so that a document's features do not depend on the others."""
        X, words, offsets, nd = self._test_tokens(X)
        K = self.components_.shape[0]   # the fitted topics, not n_topics set since
        mean = fold_in_per_document(words, offsets, self.components_, np.full(K, self._alpha()),
                                    int(self.n_predict_burn), int(self.n_predict_samples),
                                    self._transform_seed())
        return self._zbar(mean, nd)


class ImportanceMedLDA(_MedLDABase):
    """iMedLDA: MedLDA with the importance sampler of eqs. 16-19 around MAP ``(Theta, Phi)``.

    ``Theta`` starts uniform (``Phi``: see ``init``).  Each alternation weighs the ``J`` fixed uniform-proposal
    samples of every token by ``theta_dk phi_kw exp(B_dk)`` (eqs. 16-18,
    :func:`importance_step`), updates the MAP point

    .. math::
        \\hat\\theta_{dk} \\propto s \\sum_n E[z_{dn} = k] + \\alpha,\\qquad
        \\hat\\phi_{kt} \\propto s \\sum_{d,n} E[z_{dn} = k] I(w_{dn} = t) + \\beta   \\quad (19)

    and re-solves the SVM dual on ``E[z-bar_d] = (1/N_d) sum_n E[z_dn]``.  The paper's eq. 19
    has ``s = 1/J`` although the weights are already normalised over the ``J`` samples (so
    ``sum_n E[z_dn]`` is an expected count): ``paper_1_over_J=True`` (default) keeps that factor,
    ``False`` uses ``s = 1``.  With ``s = 1/J`` the counts shrink by ``J = 3K``,
    which amounts to priors ``J alpha`` and ``J beta`` on expected counts.

    Prediction weighs the samples with no label term (``B = 0``) and ``Phi`` fixed,
    iterating the ``theta`` update of eq. 19 ``n_predict_iter`` times from uniform.

    Parameters
    ----------
    n_topics : int
    alpha, beta : float
        The paper: iMedLDA prefers ``alpha <= 0.01`` and degrades for ``beta > 1e-3``.
    C, cost, n_iter, tol, svm_tol, svm_max_epochs, vocabulary, random_state, round_counts
        As in :class:`GibbsMedLDA`.
    n_samples : int or None
        ``J``; ``None`` means ``3 K`` (the paper).
    paper_1_over_J : bool
        Keep eq. 19's ``1/J`` factor (default ``True``, better on held-out training
        documents: ``docs/results/topic-model-defaults.md``; the factor acts as the
        stronger smoothing ``J alpha``, ``J beta``).
    init : {"random", "uniform"}
        Starting ``Phi``: ``"uniform"`` is the paper's; it is a fixed point up to the
        proposal's sampling noise, from which the relative-change rule stops after a few
        iterations, so the default starts from the counts of a random topic assignment
        (plus one) instead.  ``Theta`` starts uniform.
    n_predict_iter : int
        ``theta`` updates for a new document.

    Attributes
    ----------
    kappa_, lambda_, components_, n_iter_, objective_history_, inference_time_, svm_time_,
    fit_time_
        As in :class:`GibbsMedLDA`; ``components_`` is the MAP ``Phi``.
    theta_ : ndarray (D, K)
        MAP ``Theta`` of the training documents.
    """

    def __init__(self, n_topics=20, alpha=0.01, beta=1e-5, C=1e5, cost=16.0, n_iter=100, tol=1e-5,
                 n_samples=None, paper_1_over_J=True, init="random", n_predict_iter=20, svm_tol=1e-3,
                 svm_max_epochs=10, vocabulary=None, random_state=0, round_counts=False):
        self.n_topics = n_topics
        self.alpha = alpha
        self.beta = beta
        self.C = C
        self.cost = cost
        self.n_iter = n_iter
        self.tol = tol
        self.n_samples = n_samples
        self.paper_1_over_J = paper_1_over_J
        self.init = init
        self.n_predict_iter = n_predict_iter
        self.svm_tol = svm_tol
        self.svm_max_epochs = svm_max_epochs
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts

    @property
    def n_samples_(self):
        K = self.components_.shape[0] if "components_" in self.__dict__ else int(self.n_topics)
        return 3 * K if self.n_samples is None else int(self.n_samples)

    def _scale(self):
        return 1.0 / self.n_samples_ if self.paper_1_over_J else 1.0

    def _seed_for(self, offset):
        seed = estimator_seed(self)
        rng = np.random.default_rng(None if seed is None else seed + offset)
        return int(rng.integers(2**63 - 1))

    def _theta(self, ndk):
        th = self._scale() * ndk + self._alpha()
        return th / th.sum(axis=1, keepdims=True)

    def fit(self, X, y):
        """Alternate importance sampling with MAP updates (eqs. 16-19) and the SVM dual (eq. 12)."""
        t_fit = time.perf_counter()
        X, y_idx, words, docs, nd = self._prepare_fit(X, y)
        if int(self.n_samples_) < 1:
            raise ValueError(f"n_samples must be >= 1, got {self.n_samples}")
        D, V, K = X.shape[0], X.shape[1], int(self.n_topics)
        if self.init not in ("random", "uniform"):
            raise ValueError(f"init must be 'random' or 'uniform', got {self.init!r}")
        theta, phi = np.full((D, K), 1.0 / K), np.ones((K, V))
        if self.init == "random":   # counts of a random topic assignment, plus one
            rng = np.random.default_rng(estimator_seed(self))
            np.add.at(phi, (rng.integers(0, K, words.size), words), 1.0)
        phi /= phi.sum(axis=1, keepdims=True)
        bias_row, exp_bias = np.full(D, -1, np.int64), np.ones((1, K))
        seed = self._seed_for(0)
        self.inference_time_ = self.svm_time_ = 0.0
        self.objective_history_ = []
        lam = res = F = None
        for it in range(1, int(self.n_iter) + 1):
            t = time.perf_counter()
            ndk, nkw, ll = importance_step(words, docs, theta, phi, bias_row, exp_bias,
                                           self.n_samples_, seed, True)
            theta = self._theta(ndk)
            ph = self._scale() * nkw + float(self.beta)
            phi = ph / ph.sum(axis=1, keepdims=True)
            self.inference_time_ += time.perf_counter() - t
            F = self._zbar(ndk, nd)
            res = self._svm_step(F, y_idx, lam)
            lam = res.lam
            bias_row, exp_bias = self._topic_bias(lam, res.kappa, y_idx, nd)
            self.n_iter_ = it
            if self._converged(res.primal - ll):
                break
        self._finish(res, F, y_idx)
        self.bias_row_, self.exp_bias_ = bias_row, exp_bias
        self.theta_, self.components_ = theta, phi
        self.fit_time_ = time.perf_counter() - t_fit
        return self

    def transform(self, X):
        """``E[z-bar_d]`` from importance weights with no label term and ``Phi`` fixed; each
        document's proposals are a hash of ``random_state`` and its own tokens
        (:func:`importance_step_per_document`), so they do not depend on the other documents."""
        X, words, offsets, nd = self._test_tokens(X)
        D, K = X.shape[0], self.components_.shape[0]   # the fitted topics (numpy's "matmul:
        # mismatch in its core dimension" after set_params(n_topics=...))
        theta = np.full((D, K), 1.0 / K)
        seed = self._transform_seed()
        ndk = np.zeros((D, K))
        for _ in range(max(int(self.n_predict_iter), 1)):
            ndk = importance_step_per_document(words, offsets, theta, self.components_,
                                               self.n_samples_, seed)
            theta = self._theta(ndk)
        return self._zbar(ndk, nd)
