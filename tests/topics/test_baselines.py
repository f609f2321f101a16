"""LDA+SVM baseline: real-data fit, C selection, determinism, bad input, estimator checks."""

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from estimator_checks import estimator_checks

from topics.baselines import LDASVM, fit_linear_svm
from topics.corpus import load_bundled_20ng


def test_bundled_slice_beats_chance_and_is_deterministic():
    Xtr, ytr, _ = load_bundled_20ng("train")
    Xte, yte, _ = load_bundled_20ng("test")
    a = LDASVM(n_topics=20, n_iter=60, random_state=0).fit(Xtr, ytr)
    assert a.score(Xte, yte) > 0.5            # chance is 0.25
    assert a.C_ in a.validation_errors_
    b = LDASVM(n_topics=20, n_iter=60, random_state=0).fit(Xtr, ytr)
    np.testing.assert_array_equal(a.predict(Xte), b.predict(Xte))
    F = a.transform(Xte[:3])
    np.testing.assert_allclose(F.sum(axis=1), 1.0)


def test_fit_linear_svm_picks_C_on_validation():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    F = rng.normal(size=(120, 5)) + np.eye(3, 5)[y] * 2
    svm, C, errors = fit_linear_svm(F, y, C_grid=(0.001, 1.0))
    assert set(errors) == {0.001, 1.0} and C == min(errors, key=lambda c: (errors[c], c))
    assert np.mean(svm.predict(F) == y) > 0.8
    _, C2, errors2 = fit_linear_svm(F, y, C=0.5)
    assert C2 == 0.5 and errors2 == {}


@pytest.mark.parametrize("X,y,msg", [
    (np.array([[1.0, np.nan], [1.0, 2.0]]), [0, 1], "NaN"),
    (np.zeros((0, 4)), [], "0 sample"),
    (np.zeros((2, 4)), [0, 1], "no tokens"),
    (np.ones((2, 4)), [0, 0], "at least 2 classes"),
])
def test_bad_input(X, y, msg):
    with pytest.raises(ValueError, match=msg):
        LDASVM(n_topics=2, n_iter=2).fit(X, y)


def test_unseen_labels_and_unfitted():
    X = np.random.default_rng(0).poisson(2.0, size=(20, 6))
    y = np.arange(20) % 2
    m = LDASVM(n_topics=2, n_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="not seen in training"):
        m.score(X, np.full(20, 5))
    with pytest.raises(NotFittedError):
        LDASVM().predict(X)


@estimator_checks([LDASVM(n_topics=3, n_iter=5, n_transform_burn=2, n_transform_samples=3,
                                 round_counts=True)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
