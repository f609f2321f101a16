"""Input validation shared by the scikit-learn style topic-model classifiers.

Count matrices go through scikit-learn's ``validate_data`` (2-D, numeric, finite, not
complex, not empty, ``n_features_in_`` bookkeeping, scikit-learn's error messages) and
``check_non_negative``; texts and token lists are left to the vocabulary.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_non_negative, column_or_1d, validate_data

from .corpus import is_text_input

__all__ = ["validate_count_input", "validate_labels"]


def validate_count_input(estimator, X, *, reset):
    """Validate a document-term matrix (returned as CSR or ndarray); texts pass unchanged."""
    if is_text_input(X):
        return X
    X = validate_data(estimator, X, reset=reset, accept_sparse="csr", dtype="numeric")
    check_non_negative(X, type(estimator).__name__)
    return X


def validate_labels(estimator, y, n_docs):
    """Labels: not None, 1-D (a column vector is raveled with a warning), classification targets."""
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None")
    y = np.asarray(y)
    if y.ndim > 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1 or y.shape[0] != n_docs:
        raise ValueError(f"y must be 1-D with one label per document ({n_docs}), got shape {y.shape}")
    check_classification_targets(y)
    return y
