"""Naive Bayes features + a max-margin linear classifier (NBSVM; Wang & Manning, ACL 2012).

For class ``c`` and binary (or weighted) document vectors ``x_d``, the naive Bayes log-count
ratio is

.. math::
    r_c = \\ln \\frac{p_c / \\|p_c\\|_1}{q_c / \\|q_c\\|_1},\\qquad
    p_c = \\alpha + \\sum_{d: y_d = c} x_d,\\quad q_c = \\alpha + \\sum_{d: y_d \\ne c} x_d
    \\qquad (1)

(``r_c`` is the weight vector of a two-class multinomial naive Bayes "c against the rest"
with Laplace/Lidstone smoothing ``alpha``).  A linear SVM is then trained on the scaled
features ``z_d = r_c \\circ x_d`` with labels ``s_d = +1`` if ``y_d = c`` else ``-1``:

.. math::
    \\min_{w, b}\\; \\tfrac12 (\\|w\\|^2 + b^2)
      + C \\sum_d \\max(0, 1 - s_d (w^\\top z_d + b))^2 \\qquad (2)

(the L2-regularised squared-hinge SVM, bias regularised as LIBLINEAR does), solved by dual
coordinate descent (Hsieh et al., ICML 2008; numba, below).  Wang & Manning interpolate the
SVM weights towards their mean magnitude, which keeps the model close to naive Bayes when
the data are few:

.. math::
    w' = (1 - \\beta)\\, \\bar w + \\beta\\, w, \\qquad \\bar w = \\|w\\|_1 / |V| \\qquad (3)

The score of class ``c`` is ``w'_c^T (r_c \\circ x) + b_c`` and the prediction its argmax
(one against the rest; with two classes one SVM, as in the paper).  ``beta = 1`` is the
plain SVM on naive Bayes features, ``beta`` near 0 approaches naive Bayes.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from structpred import check_number, check_positive
from structpred.learners import check_iterations

from ._validation import (CountClassifierTags, check_has_tokens, check_known_labels,
                          count_matrix, seed_of, validate_labels)

__all__ = ["NBSVM", "svm_dual_cd", "log_count_ratio"]


@nb.njit(cache=True)
def svm_dual_cd(indptr, indices, data, s, C, max_iter, tol, seed, w):
    """Dual coordinate descent for eq. 2 (in place on ``w``); returns ``(b, iterations)``.

    The dual of eq. 2 is ``min_a 1/2 a^T Qbar a - 1^T a``, ``a >= 0``, with
    ``Qbar_ij = s_i s_j (z_i^T z_j + 1) + delta_ij / (2C)``; ``w = sum_i a_i s_i z_i`` and
    ``b = sum_i a_i s_i``.  One coordinate step is exact (Hsieh et al. 2008, Algorithm 1);
    a pass visits the documents in a random order and the loop stops when the projected
    gradient's spread falls below ``tol``.
    """
    n = indptr.size - 1
    alpha = np.zeros(n)
    diag = 0.5 / C
    qd = np.empty(n)
    for i in range(n):
        q = 1.0 + diag
        for k in range(indptr[i], indptr[i + 1]):
            q += data[k] * data[k]
        qd[i] = q
    np.random.seed(seed)
    order = np.arange(n)
    b = 0.0
    it = 0
    for it in range(1, max_iter + 1):
        np.random.shuffle(order)
        pg_max = -np.inf
        pg_min = np.inf
        for i in order:
            g = b
            for k in range(indptr[i], indptr[i + 1]):
                g += w[indices[k]] * data[k]
            g = g * s[i] - 1.0 + alpha[i] * diag
            pg = g if alpha[i] > 0.0 else min(g, 0.0)
            if pg > pg_max:
                pg_max = pg
            if pg < pg_min:
                pg_min = pg
            if pg != 0.0:
                old = alpha[i]
                new = old - g / qd[i]
                if new < 0.0:
                    new = 0.0
                alpha[i] = new
                d = (new - old) * s[i]
                if d != 0.0:
                    for k in range(indptr[i], indptr[i + 1]):
                        w[indices[k]] += d * data[k]
                    b += d
        if pg_max - pg_min < tol:
            break
    return b, it


def log_count_ratio(X, in_class, alpha):
    """Eq. 1: ``r = ln(p / |p|_1) - ln(q / |q|_1)`` for the rows ``in_class`` against the rest."""
    p = alpha + np.asarray(X[in_class].sum(axis=0)).ravel()
    q = alpha + np.asarray(X[~in_class].sum(axis=0)).ravel()
    return np.log(p / p.sum()) - np.log(q / q.sum())


class NBSVM(CountClassifierTags, ClassifierMixin, BaseEstimator):
    """NBSVM: an SVM on naive Bayes log-count-ratio features (eqs. 1-3), one per class.

    Parameters
    ----------
    alpha : float
        Smoothing of the counts in eq. 1.
    C : float
        Cost of eq. 2.
    beta : float
        Interpolation of eq. 3 (1: the SVM weights as trained).
    binarize : bool
        Use ``1{x_dw > 0}`` in place of ``x_dw`` (Wang & Manning's choice); ``False`` uses the
        given values (counts or tf-idf weights).
    nb_scaling : bool
        Scale the features by the log-count ratios of eq. 1; ``False`` sets ``r_c = 1``: the
        plain linear SVM of eq. 2 on the given features (with ``beta = 1``), what the default
        of ``structpred topics train`` fits on sublinear tf-idf words.
    max_iter : int
        Passes of dual coordinate descent (at most) per class.
    tol : float
        Stop when the projected gradient's spread is below this.
    vocabulary : Vocabulary or None
        Used when ``fit`` receives raw texts or token lists.
    random_state : int, None, numpy RandomState or Generator
        Seeds the order of the coordinate passes.

    Attributes
    ----------
    classes_ : ndarray (K,)
    log_ratios_ : ndarray (K', V)   ``r_c`` (``K' = 1`` with two classes: class 1 against 0)
    coef_ : ndarray (K', V)         ``w'_c \\circ r_c``, the weights on ``x`` itself
    intercept_ : ndarray (K',)      ``b_c``
    n_iter_ : ndarray (K',)         coordinate-descent passes used per class
    """

    def __init__(self, alpha=1.0, C=1.0, beta=0.25, binarize=True, max_iter=200, tol=0.1,
                 vocabulary=None, random_state=0, nb_scaling=True):
        self.alpha = alpha
        self.nb_scaling = nb_scaling
        self.C = C
        self.beta = beta
        self.binarize = binarize
        self.max_iter = max_iter
        self.tol = tol
        self.vocabulary = vocabulary
        self.random_state = random_state

    def _features(self, X, fitting):
        if not fitting and not hasattr(self, "coef_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet")
        X = sp.csr_matrix(count_matrix(self, X, fitting=fitting, integer=False), dtype=np.float64)
        if fitting:   # the fitted weights' features: set_params(binarize=...) is for the next fit
            self._fitted_binarize = bool(self.binarize)
        if self.__dict__.get("_fitted_binarize", self.binarize):
            X = X.copy()
            X.data[:] = 1.0
        return X

    def _check_params(self):
        """The hyperparameters, checked before any data is read."""
        for name in ("alpha", "C"):   # inf smoothed every ratio to 0: one class for all
            check_positive(name, getattr(self, name))
        check_number("beta", self.beta)
        if not 0.0 <= float(self.beta) <= 1.0:
            raise ValueError(f"beta must lie in [0, 1], got {self.beta!r}")
        check_iterations(self.max_iter, "max_iter")   # 0 passes gave a zero SVM
        if not float(self.tol) >= 0:
            raise ValueError(f"tol must be >= 0, got {self.tol!r}")

    def fit(self, X, y):
        """Eq. 1 and eq. 2 for every class against the rest, then eq. 3."""
        self._check_params()
        self.__dict__.pop("coef_", None)
        X = self._features(X, fitting=True)
        check_has_tokens(X)
        y = validate_labels(self, y, X.shape[0])
        self.classes_ = np.unique(y)
        K = self.classes_.size
        if K < 2:
            raise ValueError(f"NBSVM needs at least 2 classes, got {K} class")
        yi = np.searchsorted(self.classes_, y)
        targets = [1] if K == 2 else range(K)
        V = X.shape[1]
        ratios, coefs, icpt, iters = [], [], [], []
        seed = seed_of(self)
        for c in targets:
            # numba's np.random.seed reads 32 bits: a seed of 2**63 or more (2**64) did not
            # fit the kernel's int64 (OverflowError); the same bits as before for the others
            c_seed = (seed + int(c)) % 2 ** 32
            inc = yi == c
            r = log_count_ratio(X, inc, float(self.alpha)) if self.nb_scaling else np.ones(V)
            Z = sp.csr_matrix(X.multiply(r[None, :]))
            Z.sort_indices()
            w = np.zeros(V)
            b, it = svm_dual_cd(Z.indptr.astype(np.int64), Z.indices.astype(np.int64), Z.data,
                                np.where(inc, 1.0, -1.0), float(self.C), int(self.max_iter),
                                float(self.tol), c_seed, w)
            w_bar = np.abs(w).sum() / V
            w = (1.0 - float(self.beta)) * w_bar + float(self.beta) * w           # eq. 3
            ratios.append(r)
            coefs.append(w * r)
            icpt.append(b)
            iters.append(it)
        self.log_ratios_ = np.vstack(ratios)
        self.intercept_ = np.asarray(icpt)
        self.n_iter_ = np.asarray(iters)
        self.coef_ = np.vstack(coefs)
        return self

    def decision_function(self, X):
        """Scores ``w'_c^T (r_c \\circ x) + b_c`` (n, K); with two classes the score of class 1."""
        X = self._features(X, fitting=False)
        S = np.asarray(X @ self.coef_.T) + self.intercept_
        return S[:, 0] if self.classes_.size == 2 else S

    def predict(self, X):
        S = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(S > 0).astype(int)]
        return self.classes_[np.argmax(S, axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy; labels not seen in training raise ``ValueError``."""
        if not hasattr(self, "coef_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet")
        check_known_labels(self.classes_, y)
        return super().score(X, y, sample_weight=sample_weight)
