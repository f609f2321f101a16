"""Baselines for the topic-model classifiers: LDA features + a linear SVM.

``LDASVM`` is the "LDA+SVM" column of thesis Table 4.4 and fig. 4.7: an
unsupervised LDA (:class:`topics.lda.LDA`, collapsed Gibbs) gives each document
its expected topic proportions ``E[theta_d | w_d, Phi]`` (Gibbs fold-in with
``Phi`` fixed), and a multiclass linear SVM (scikit-learn ``LinearSVC``,
one-vs-rest, on standardised features) is trained on them.  The SVM
regularisation ``C`` is chosen on a stratified validation split of the
training set (the thesis searched a geometric grid on its 20% validation set),
then the SVM is refitted on the whole training set.

:func:`fit_linear_svm` is the same SVM stage on any feature matrix; the
DiscLDA+SVM result uses it on :meth:`topics.disclda.DiscLDA.transform`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC


from structpred import check_positive, estimator_seed, seed_generator

from ._validation import (CountClassifierTags, check_classifier_topics, validate_count_input,
                          validate_labels)
from .lda import LDA

__all__ = ["LDASVM", "fit_linear_svm", "DEFAULT_C_GRID", "C_RANGE"]

#: geometric grid for the SVM's ``C`` (features are standardised first)
DEFAULT_C_GRID = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)

#: the SVM's ``C`` allowed, far beyond the grid: liblinear on standardised features ran
#: without bound for ``C=1e100`` and ``C=1e-300`` (``LDASVM(C=1e300)``: minutes, then on)
C_RANGE = (1e-8, 1e8)


def _check_c(name, c):
    """``ValueError`` unless ``c`` is a real number within :data:`C_RANGE`."""
    c = check_positive(name, c)   # a bool, a string, NaN, inf, 0 or less: the usual wording
    lo, hi = C_RANGE
    if not lo <= c <= hi:
        raise ValueError(f"{name} must lie in [{lo:g}, {hi:g}] (the SVM's solver runs without "
                         f"bound far outside it), got {c!r}")


def _stratified_holdout(y, fraction, rng):
    val = np.zeros(y.size, bool)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        n = int(round(fraction * idx.size))
        if 0 < n < idx.size:
            val[rng.choice(idx, n, replace=False)] = True
    return val


def fit_linear_svm(F, y, C=None, C_grid=DEFAULT_C_GRID, validation_fraction=0.2, random_state=0):
    """Fit ``StandardScaler + LinearSVC`` on features ``F``.

    With ``C=None`` each value of ``C_grid`` is scored on a stratified
    ``validation_fraction`` hold-out and the best (smallest error, then
    smallest ``C``) is refitted on all of ``F``.  Returns ``(pipeline, C, errors)``
    where ``errors`` maps each tried ``C`` to its validation error.
    """
    for c in ([C] if C is not None else list(C_grid)):
        _check_c("C" if C is not None else "C_grid", c)
    F = np.asarray(F, float)
    y = np.asarray(y)

    def make(c):
        return make_pipeline(StandardScaler(), LinearSVC(C=c, max_iter=5000, random_state=0))

    errors = {}
    if C is None:
        val = _stratified_holdout(y, validation_fraction, seed_generator(random_state, generators=True))
        if val.any() and np.unique(y[~val]).size > 1:
            for c in C_grid:
                errors[float(c)] = float(np.mean(make(c).fit(F[~val], y[~val]).predict(F[val]) != y[val]))
            C = min(errors, key=lambda c: (errors[c], c))
        else:
            C = 1.0
    return make(C).fit(F, y), float(C), errors


class LDASVM(CountClassifierTags, ClassifierMixin, TransformerMixin, BaseEstimator):
    """LDA topic proportions + linear SVM (the thesis's LDA+SVM baseline).

    Parameters
    ----------
    n_topics : int
        ``K`` (thesis: 110, the DiscLDA ``K``).
    alpha : float or None
        LDA document prior; ``None`` means ``10 / K`` (thesis sec. 4.4.2).
    beta : float
    n_iter : int
        Gibbs sweeps of the LDA fit (thesis: 200).
    n_transform_burn, n_transform_samples : int
        Fold-in sweeps discarded / averaged for ``E[theta_d]``.
    C : float or None
        SVM regularisation; ``None`` chooses it from ``C_grid`` on a
        ``validation_fraction`` hold-out of the training set.
    C_grid : tuple of float
    validation_fraction : float
    vocabulary : Vocabulary or None
        For text input (see :class:`topics.lda.LDA`).
    random_state : int, None, numpy RandomState or Generator
    round_counts : bool, default False
        Round non-integer counts (e.g. TF-IDF weights) to the nearest integer.  By
        default such a matrix raises ``ValueError``: the LDA Gibbs sampler needs whole
        word counts.  Values within ``1e-8`` of an integer (e.g. ``2.0``) are always
        accepted; absurd counts (a cell above ``2**31 - 1``, or more tokens than this
        machine's memory can hold) are always refused.

    Attributes
    ----------
    lda_ : LDA
    svm_ : sklearn Pipeline (StandardScaler, LinearSVC)
    C_ : float
    classes_ : ndarray
    """

    def __init__(self, n_topics=110, alpha=None, beta=0.01, n_iter=200, n_transform_burn=20,
                 n_transform_samples=30, C=None, C_grid=DEFAULT_C_GRID, validation_fraction=0.2,
                 vocabulary=None, random_state=0, round_counts=False):
        self.n_topics = n_topics
        self.alpha = alpha
        self.beta = beta
        self.n_iter = n_iter
        self.n_transform_burn = n_transform_burn
        self.n_transform_samples = n_transform_samples
        self.C = C
        self.C_grid = C_grid
        self.validation_fraction = validation_fraction
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts

    def _lda(self):
        alpha = 10.0 / int(self.n_topics) if self.alpha is None else self.alpha
        return LDA(n_topics=self.n_topics, alpha=alpha, beta=self.beta, n_iter=self.n_iter,
                   n_transform_burn=self.n_transform_burn,
                   n_transform_samples=self.n_transform_samples, evaluate_every=0,
                   vocabulary=self.vocabulary, random_state=estimator_seed(self),
                   round_counts=self.round_counts)

    def _check_params(self):
        """The hyperparameters (the LDA's too), checked before any data is read."""
        check_classifier_topics(self.n_topics)
        self._lda()._check_params()
        for c in ([self.C] if self.C is not None else list(self.C_grid)):
            # LinearSVC's own message came from inside the fit; 1e300 ran without bound
            _check_c("C" if self.C is not None else "C_grid", c)

    def fit(self, X, y):
        """Fit LDA on ``X`` (texts, token lists or counts), then the SVM on ``E[theta_d]``."""
        X = validate_count_input(self, X, reset=True)
        self._check_params()
        self.lda_ = self._lda()
        n_docs = len(X) if isinstance(X, (list, tuple)) else X.shape[0]
        y = validate_labels(self, y, n_docs)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError("LDASVM needs at least 2 classes in y, got 1 class")
        self.lda_.fit(X)
        self.n_features_in_ = self.lda_.n_features_in_
        F = self.lda_.transform(X)
        self.svm_, self.C_, self.validation_errors_ = fit_linear_svm(
            F, y, self.C, self.C_grid, self.validation_fraction, estimator_seed(self))
        return self

    def _check_fitted(self):
        if not hasattr(self, "svm_"):
            raise NotFittedError("this LDASVM is not fitted yet")

    def transform(self, X):
        """The LDA features ``E[theta_d | w_d, Phi]``."""
        self._check_fitted()
        X = validate_count_input(self, X, reset=False)
        return self.lda_.transform(X)

    def decision_function(self, X):
        F = self.transform(X)
        return self.svm_.decision_function(F)

    def predict(self, X):
        F = self.transform(X)
        return self.svm_.predict(F)

    def score(self, X, y, sample_weight=None):
        """Accuracy; labels not seen in training raise ``ValueError``."""
        self._check_fitted()
        unseen = np.setdiff1d(np.asarray(y), self.classes_)
        if unseen.size:
            raise ValueError(f"y contains labels not seen in training: {unseen[:5].tolist()}")
        return super().score(X, y, sample_weight=sample_weight)
