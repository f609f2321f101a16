"""Stochastic discriminative EM (sdEM, Masegosa) for multinomial naive Bayes.

sdEM updates the expected sufficient statistics ``mu`` of an exponential-family
model with the gradient of a discriminative loss taken with respect to the
natural parameters (eq. 15),

.. math::
    \\mu_{t+1} = \\mu_t - \\rho_t \\,\\partial \\bar\\ell(y_t, x_t, \\theta(\\mu_t)) / \\partial\\theta,
    \\qquad \\rho_t = 1 / (1 + \\lambda t),

with ``t`` counting documents over all epochs.  For multinomial naive Bayes the
statistics are the class counts ``C[k]`` and the word-per-class counts
``N[k][w]`` (with cached totals ``M[k] = sum_w N[k][w]``), and the natural
parameters are ``ln p(k)`` and ``ln p(w | k)``.  With the class posterior
``p_k = p(Y = k | d)`` computed **once per document, before any update**:

* NCLL, ``-ln p(y | d)`` (Table 1; Algorithm 2): the true class gains
  ``rho (1 - p_y) |w|_d`` on each word count and ``rho (1 - p_y)`` on its
  class count; every other class ``k`` loses ``rho p_k |w|_d`` and ``rho p_k``.
* Hinge on the log-ratio with a margin of 1 nat,
  ``max(0, 1 - (ln p(y|d) - ln p(ybar|d)))`` with ``ybar`` the best wrong class
  (Table 1; Algorithm 4): when the margin is violated, ``y`` gains
  ``rho |w|_d`` and ``rho``, ``ybar`` loses them.  We use Table 1's weights
  (+1 / -1: the gradient of this loss with respect to the natural
  parameters) by default; ``hinge_weights="posterior"`` gives the ``(1 - p_y)`` /
  ``-p_ybar`` of Algorithms 4 and 7 instead.

* NLL, ``-ln p(y, d)`` (Table 1 with ``nu = 0``): the generative online EM,
  ``mu <- (1 - rho) mu + rho (s(y_t, d_t) + alpha / n)``.  We keep the statistics
  in count space (``N = n mu``): every count decays by ``(1 - rho)``, the true
  class gains ``rho n |w|_d`` and ``rho n``, and ``gamma <- (1 - rho) gamma +
  rho alpha``.  With ``rho_t = 1/(1 + t)`` (``learning_decay=1``) this is the
  running average, so ``N + gamma`` tends to the smoothed MNB counts
  ``sum_d |w|_d + alpha`` (class counts ``n_k + alpha``); a smaller ``lambda``
  forgets old documents exponentially.  The decay is applied lazily through a
  common scale factor (the class posterior does not change when ``N, M, C,
  gamma`` are scaled together), so a step stays O(|d|).

**Check-step.**  A decrease is clamped at 0 so the counts stay feasible, and
``M`` is updated by the change actually made (Algorithm 2, lines 13-16).

**Prior.**  Each word count starts at ``alpha`` (``M[k] = alpha |W|``), and the
Dirichlet prior enters through ``gamma``, accumulated as
``gamma += alpha rho_t / n`` per document for NCLL and hinge (the per-sample loss is
``l - (1/n) ln p(theta | alpha)``; see the papers' README for the sign typo).
Laplace: ``alpha = 1``; Log: ``alpha = ln |W|``.

**Prediction** (Algorithm 3 with its typos fixed: ``N[k][w]`` and
``gamma |W|``)::

    ln p(k | d) = ln(C[k] + gamma) + sum_w |w|_d ln(N[k][w] + gamma)
                  - |d| ln(M[k] + gamma |W|)      + const.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError


from structpred.learners import check_iterations

from ._validation import (CountClassifierTags, check_has_tokens, check_known_labels,
                          count_matrix, seed_of, stream_classes, validate_labels)

__all__ = ["SdemNaiveBayes", "class_log_posterior", "fit_epochs", "loss_weights",
           "sdem_nb_epoch"]

_LOSSES = {"ncll": 0, "hinge": 1, "nll": 2}


@nb.njit(cache=True)
def normalize_log(out):
    """Subtract ``logsumexp(out)`` from ``out`` in place (log-probabilities); return it."""
    mx = out.max()
    tot = 0.0
    for k in range(out.size):
        tot += math.exp(out[k] - mx)
    lse = mx + math.log(tot)
    for k in range(out.size):
        out[k] -= lse
    return lse


@nb.njit(cache=True)
def _log_posterior(indptr, indices, data, d, N, M, C, gamma, out):
    K, V = N.shape
    n_tok = 0.0
    for i in range(indptr[d], indptr[d + 1]):
        n_tok += data[i]
    for k in range(K):
        s = math.log(C[k] + gamma)
        for i in range(indptr[d], indptr[d + 1]):
            s += data[i] * math.log(N[k, indices[i]] + gamma)
        out[k] = s - n_tok * math.log(M[k] + gamma * V)
    return normalize_log(out)


@nb.njit(cache=True)
def _add(indptr, indices, data, d, N, M, k, step):
    """``N[k][w] += step |w|_d`` for the words of ``d``, clamped at 0; ``M[k]`` by the change made."""
    for i in range(indptr[d], indptr[d + 1]):
        w = indices[i]
        old = N[k, w]
        new = old + step * data[i]
        if new < 0.0:
            new = 0.0
        N[k, w] = new
        M[k] += new - old


@nb.njit(cache=True)
def loss_weights(logp, y, loss, w):
    """Per-class step weights ``varpi_k`` of one document (filled into ``w``); returns its loss.

    ``logp`` is ``ln p(k | d)`` at ``theta_t``.  ``loss``: 0 NCLL (``w_y = 1 - p_y``,
    ``w_k = -p_k``); 1 hinge with Table 1's weights (``w_y = 1``, ``w_ybar = -1``); 3 hinge
    with Algorithms 4 and 7's (``w_y = 1 - p_y``, ``w_ybar = -p_ybar``).  The hinge weights
    are all 0 when the margin ``ln p(y|d) - ln p(ybar|d)`` exceeds 1 nat.  Shared by the
    naive Bayes and the LDA classifiers (Tables 1 and 2).
    """
    K = logp.size
    for k in range(K):
        w[k] = 0.0
    if loss == 0:
        for k in range(K):
            pk = math.exp(logp[k])
            w[k] = (1.0 - pk) if k == y else -pk
        return -logp[y]
    ybar = -1
    for k in range(K):
        if k != y and (ybar < 0 or logp[k] > logp[ybar]):
            ybar = k
    margin = logp[y] - logp[ybar]
    if margin > 1.0:
        return 0.0
    if loss == 3:
        w[y] = 1.0 - math.exp(logp[y])
        w[ybar] = -math.exp(logp[ybar])
    else:
        w[y] = 1.0
        w[ybar] = -1.0
    return 1.0 - margin


def fit_epochs(n_epochs, min_updates, n_docs):
    """The passes :meth:`SdemNaiveBayes.fit` makes over ``n_docs`` documents.

    Parameters
    ----------
    n_epochs : int
        The passes asked for.
    min_updates : int or None
        The fewest document visits (steps of sdEM) wanted; None: no floor.
    n_docs : int
        Documents of the fit.

    Returns
    -------
    int
        ``max(n_epochs, ceil(min_updates / n_docs))``: ``n_epochs`` on a corpus of at least
        ``min_updates / n_epochs`` documents, more passes on a smaller one (with
        ``min_updates = 6000``, the default of ``topics train``: 20 passes over 300
        documents, 6 from 1,000 documents on).
    """
    check_iterations(n_epochs, "n_epochs")   # 0 epochs left the prior as the model
    if min_updates is None:
        return int(n_epochs)
    check_iterations(min_updates, "min_updates")
    return max(int(n_epochs), -(-int(min_updates) // max(int(n_docs), 1)))


@nb.njit(cache=True)
def _rescale(N, M, C, state, f):
    """Multiply every statistic (and ``gamma``) by ``f``: the posterior is invariant to it."""
    K, V = N.shape
    for k in range(K):
        for w in range(V):
            N[k, w] *= f
        M[k] *= f
        C[k] *= f
    state[1] *= f


@nb.njit(cache=True)
def _nll_epoch(indptr, indices, data, labels, order, N, M, C, state, alpha, lam, n, logp):
    """NLL (Table 1, nu = 0), in count space ``N = n mu``:

    ``N <- (1 - rho) N + rho (n s(y_t, x_t) + alpha)``, the prior part ``alpha`` kept in ``gamma``.

    The global decay ``(1 - rho)`` is applied lazily through a scale factor (the class
    posterior is invariant to a common scale of ``N, M, C, gamma``), so a step costs
    O(|d|) and not O(K |W|); the scale is folded back in at the end of the pass or when
    it underflows.  No clamp is needed: this is a convex combination of feasible counts.
    """
    K, V = N.shape
    total_loss = 0.0
    scale = 1.0                               # true statistics = scale * stored ones
    for d in order:
        state[0] += 1.0
        rho = 1.0 / (1.0 + lam * state[0])
        gamma = state[1]
        lse = _log_posterior(indptr, indices, data, d, N, M, C, gamma, logp)
        y = labels[d]
        c_tot = 0.0
        for k in range(K):
            c_tot += C[k] + gamma
        # -ln p(y, d | theta) up to the multinomial coefficient (scale-invariant)
        total_loss -= logp[y] + lse - math.log(c_tot)
        new_scale = scale * (1.0 - rho)
        if new_scale < 1e-100:
            _rescale(N, M, C, state, new_scale)
            scale = 1.0
        else:
            scale = new_scale
        step = rho * n / scale
        for i in range(indptr[d], indptr[d + 1]):
            N[y, indices[i]] += step * data[i]
            M[y] += step * data[i]
        C[y] += step
        state[1] += rho * alpha / scale
    if scale != 1.0:
        _rescale(N, M, C, state, scale)
    return total_loss


@nb.njit(cache=True)
def sdem_nb_epoch(indptr, indices, data, labels, order, N, M, C, state, alpha, lam, n, loss):
    """One pass of sdEM over the documents in ``order`` (in place).

    ``state = [t, gamma]`` is carried across epochs and calls (``t`` is global).
    ``loss``: 0 NCLL, 1 hinge (+-1 weights), 2 NLL, 3 hinge with Algorithm 4's weights.
    Returns the summed loss of the pass, each term evaluated before its update.
    """
    K, V = N.shape
    logp = np.empty(K)
    total_loss = 0.0
    if loss == 2:
        return _nll_epoch(indptr, indices, data, labels, order, N, M, C, state, alpha, lam, n,
                          logp)
    w = np.empty(K)
    for d in order:
        state[0] += 1.0
        rho = 1.0 / (1.0 + lam * state[0])
        state[1] += alpha * rho / n
        gamma = state[1]
        _log_posterior(indptr, indices, data, d, N, M, C, gamma, logp)   # once, before updates
        total_loss += loss_weights(logp, labels[d], loss, w)
        for k in range(K):
            if w[k] != 0.0:
                _add(indptr, indices, data, d, N, M, k, rho * w[k])
                C[k] = max(C[k] + rho * w[k], 0.0)
    return total_loss


@nb.njit(cache=True)
def _predict_log_proba(indptr, indices, data, N, M, C, gamma):
    n_docs = indptr.size - 1
    out = np.empty((n_docs, N.shape[0]))
    for d in range(n_docs):
        _log_posterior(indptr, indices, data, d, N, M, C, gamma, out[d])
    return out


def class_log_posterior(X, N, M, C, gamma):
    """``ln p(Y = k | d)`` of every row of the count matrix ``X`` (Algorithm 3, fixed)."""
    X = X.tocsr()
    return _predict_log_proba(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                              X.data.astype(np.float64), N, M, C, float(gamma))


class _SdemMixin(CountClassifierTags):
    """What the sdEM classifiers share: input checks, loss options, fit / partial_fit /
    score and predict.  A subclass names its fitted count array (``_fitted_attr``), says
    whether it needs whole tokens (``_integer_counts``) and defines ``_init_state``,
    ``_epoch`` and ``predict_log_proba``."""

    _losses = _LOSSES
    _fitted_attr = "word_counts_"
    _integer_counts = False

    def _check_params(self):
        """The hyperparameters, checked before any data is read (``topics train`` calls it
        before its progress lines)."""
        check_iterations(self.n_epochs, "n_epochs")   # 0 epochs left the prior as the model
        if getattr(self, "min_updates", None) is not None:
            check_iterations(self.min_updates, "min_updates")
        self._check_loss()
        self._check_model_params()

    def _check_model_params(self):
        """The hyperparameters of the model itself (the subclass's)."""

    def _check_loss(self):
        if self.loss not in self._losses:
            raise ValueError(f"loss must be one of {sorted(self._losses)}, got {self.loss!r}")
        if self.hinge_weights not in ("pm1", "posterior"):
            raise ValueError(f"hinge_weights must be 'pm1' or 'posterior', "
                             f"got {self.hinge_weights!r}")

    @property
    def gamma_(self):
        return float(self._state[1])

    def _loss_code(self):
        """The ``loss`` argument of :func:`loss_weights` (3: hinge with Algorithm 4/7 weights)."""
        if self.loss == "hinge" and self.hinge_weights == "posterior":
            return 3
        return self._losses[self.loss]

    # ----------------------------------------------------------------- data
    def _counts(self, X, fitting):
        """Validated float64 CSR counts (texts go through the vocabulary, fitted if ``fitting``)."""
        if not fitting and not hasattr(self, self._fitted_attr):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet")
        X = count_matrix(self, X, fitting=fitting, integer=self._integer_counts)
        return sp.csr_matrix(X, dtype=np.float64)

    def _label_index(self, y, n_docs):
        y = validate_labels(self, y, n_docs)
        unseen = np.setdiff1d(y, self.classes_)
        if unseen.size:
            raise ValueError(f"labels not seen in the first fit/partial_fit: "
                             f"{unseen[:5].tolist()}")
        return np.searchsorted(self.classes_, y).astype(np.int64)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """``n_epochs`` passes of sdEM over ``(X, y)`` from the prior (``n`` = number of
        documents), or more where ``min_updates`` asks for them (:func:`fit_epochs`; the
        passes made are ``n_epochs_``)."""
        self.__dict__.pop(self._fitted_attr, None)
        self._check_params()
        X = self._counts(X, fitting=True)
        check_has_tokens(X)
        # only SdemNaiveBayes has min_updates; sdEM-LDA makes n_epochs passes
        epochs = fit_epochs(self.n_epochs, getattr(self, "min_updates", None), X.shape[0])
        y = validate_labels(self, y, X.shape[0])
        self._init_state(y, X.shape[1])
        yi = self._label_index(y, X.shape[0])
        self.n_stream_ = X.shape[0]
        self.n_epochs_ = epochs
        for _ in range(epochs):
            self._epoch(X, yi, self.n_stream_)
        return self

    def partial_fit(self, X, y, classes=None, n=None):
        """One sdEM pass over a batch of a stream.

        ``classes`` must be given on the first call; ``n`` is the size of the whole
        stream, which scales the prior (``gamma += alpha rho / n``); default: the size of
        the first batch.  Later batches with labels outside ``classes`` raise.  The batch is
        visited in a random order when ``shuffle`` is true, in the given order otherwise.

        The state (statistics, the step counter ``t`` of ``rho_t``, ``gamma``, and the random
        streams, which are indexed by ``t``) carries over from call to call, so with
        ``shuffle=False`` consecutive chunks of a stream give the same model as one
        :meth:`fit` pass (``n_epochs=1``) over their concatenation with ``n`` its length; and
        ``partial_fit`` on the whole data ``E`` times equals ``fit`` with ``n_epochs=E``.
        """
        first = not hasattr(self, self._fitted_attr)
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        X = self._counts(X, fitting=first)
        y = validate_labels(self, y, X.shape[0])
        classes = stream_classes(self, classes, y, first)
        if first:
            self._init_state(classes, X.shape[1])
            self.n_stream_ = int(n) if n is not None else X.shape[0]
            if self.n_stream_ < 1:
                raise ValueError(f"n must be >= 1, got {n}")
        self._epoch(X, self._label_index(y, X.shape[0]), self.n_stream_)
        return self

    def _order(self, n_docs):
        """The visiting order of a pass: a fresh permutation (``shuffle``) or as given."""
        if self.shuffle:
            return self._rng.permutation(n_docs).astype(np.int64)
        return np.arange(n_docs, dtype=np.int64)

    def _set_classes(self, classes):
        self._check_params()
        self.classes_ = np.unique(np.asarray(classes))
        if self.classes_.size < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes, got "
                             f"{self.classes_.size} class")
        self._state = np.zeros(2)   # [t, gamma]
        self.loss_history_ = []
        rs = seed_of(self)
        self._rng = np.random.default_rng(rs)                       # document order
        return self.classes_.size

    # -------------------------------------------------------------- predict
    def predict_proba(self, X):
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        log_proba = self.predict_log_proba(X)
        return self.classes_[np.argmax(log_proba, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy; labels not seen in training raise ``ValueError``."""
        if not hasattr(self, self._fitted_attr):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet")
        check_known_labels(self.classes_, y)
        return super().score(X, y, sample_weight=sample_weight)


class SdemNaiveBayes(_SdemMixin, ClassifierMixin, BaseEstimator):
    """Multinomial naive Bayes trained by sdEM with the NCLL, hinge or NLL loss.

    Parameters
    ----------
    loss : {"ncll", "hinge", "nll"}
        ``"nll"`` is generative online EM; use ``learning_decay=1`` for the MLE/MAP
        (``rho_t = 1/(1+t)``).
    prior : {"laplace", "log"}
        Dirichlet pseudo-count per word: 1, or ``ln |W|``.
    hinge_weights : {"pm1", "posterior"}
        Hinge step weights: ``+1 / -1`` (Table 1) or ``(1 - p_y) / -p_ybar`` (Algorithm 4).
    learning_decay : float
        ``lambda`` of ``rho_t = 1 / (1 + lambda t)``.
    n_epochs : int
        Passes over the data in :meth:`fit`.
    min_updates : int or None
        At least this many document visits in :meth:`fit`: ``max(n_epochs, ceil(min_updates
        / n_documents))`` passes (:func:`fit_epochs`); None: ``n_epochs`` passes.  The
        default of ``topics train`` sets 6,000, which gives a corpus of fewer than 1,000
        documents more than its 6 passes (evidence: "Small corpora" in
        ``docs/results/topics.md``).
    vocabulary : Vocabulary or None
        Used when ``fit`` receives raw texts or token lists.
    random_state : int, None, numpy RandomState or Generator
    shuffle : bool
        Visit the documents of each pass (and of each :meth:`partial_fit` batch) in a fresh
        random order; ``False`` keeps the given order (a stream).

    Attributes
    ----------
    classes_ : ndarray
    word_counts_ : ndarray (K, V)   ``N``
    class_counts_ : ndarray (K,)    ``C``
    gamma_ : float
    loss_history_ : list of float   mean loss of each pass (before each update)
    n_epochs_ : int                 passes made by :meth:`fit`
    """

    def __init__(self, loss="ncll", prior="laplace", learning_decay=1e-3, n_epochs=5,
                 vocabulary=None, random_state=0, hinge_weights="pm1", shuffle=True,
                 min_updates=None):
        self.shuffle = shuffle
        self.min_updates = min_updates
        self.loss = loss
        self.hinge_weights = hinge_weights
        self.prior = prior
        self.learning_decay = learning_decay
        self.n_epochs = n_epochs
        self.vocabulary = vocabulary
        self.random_state = random_state

    def _check_model_params(self):
        if self.prior not in ("laplace", "log"):
            raise ValueError(f"prior must be 'laplace' or 'log', got {self.prior!r}")

    def _init_state(self, classes, V):
        K = self._set_classes(classes)
        self.alpha_ = 1.0 if self.prior == "laplace" else math.log(V)
        self.word_counts_ = np.full((K, V), self.alpha_)                # Algorithm 2, line 1
        self.word_totals_ = np.full(K, self.alpha_ * V)
        self.class_counts_ = np.ones(K)

    # ------------------------------------------------------------------ fit
    def _epoch(self, X, y_idx, n):
        total = sdem_nb_epoch(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                              X.data.astype(np.float64), y_idx, self._order(X.shape[0]),
                              self.word_counts_,
                              self.word_totals_, self.class_counts_, self._state,
                              self.alpha_, float(self.learning_decay), float(n),
                              self._loss_code())
        self.loss_history_.append(total / max(X.shape[0], 1))

    def predict_log_proba(self, X):
        """``ln p(k | d)`` (Algorithm 3, fixed); empty documents get the class prior."""
        X = self._counts(X, fitting=False)
        return class_log_posterior(X, self.word_counts_, self.word_totals_, self.class_counts_,
                                   self.gamma_)
