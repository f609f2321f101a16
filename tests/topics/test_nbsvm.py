"""NBSVM: naive Bayes log-count ratios + the squared-hinge SVM (Wang & Manning 2012)."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

from topics.corpus import load_bundled_20ng
from topics.nbsvm import NBSVM, log_count_ratio, svm_dual_cd


def test_dual_coordinate_descent_matches_liblinear():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((80, 12)) * (rng.random((80, 12)) < 0.4))
    s = np.where(X @ rng.normal(size=12) > 0.3, 1.0, -1.0)
    w = np.zeros(12)
    b, _ = svm_dual_cd(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, s, 1.0,
                       2000, 1e-6, 0, w)
    ref = LinearSVC(C=1.0, loss="squared_hinge", intercept_scaling=1.0, tol=1e-8,
                    max_iter=100000).fit(X, s)
    # liblinear regularises the bias too (an extra feature of value 1): eq. 2
    assert np.allclose(w, ref.coef_.ravel(), atol=1e-3)
    assert b == pytest.approx(ref.intercept_[0], abs=1e-3)


def test_log_count_ratio():
    X = sp.csr_matrix(np.array([[1, 0], [1, 1], [0, 1]], float))
    r = log_count_ratio(X, np.array([True, True, False]), 1.0)
    p, q = np.array([3, 2.0]), np.array([1, 2.0])
    assert np.allclose(r, np.log(p / p.sum()) - np.log(q / q.sum()))       # eq. 1


def test_nbsvm_on_the_bundled_slice():
    tr, ytr, _ = load_bundled_20ng("train")
    te, yte, _ = load_bundled_20ng("test")
    m = NBSVM(C=0.1, beta=1.0).fit(tr, ytr)
    assert m.coef_.shape == (4, len(m.vocabulary_))
    assert m.score(te, yte) > 0.75
    two = np.isin(ytr, [0, 1])
    m2 = NBSVM().fit([t for t, k in zip(tr, two) if k], ytr[two])
    assert m2.coef_.shape[0] == 1 and set(m2.predict(te[:10])) <= {0, 1}


def test_nbsvm_rejects_bad_settings():
    with pytest.raises(ValueError, match="beta"):
        NBSVM(beta=2.0).fit(["a b", "c d"], [0, 1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        NBSVM().fit(["apple", "banana"], [0, 0])


@pytest.mark.parametrize("model", ["nbsvm", "sdem-nb"])
def test_texts_as_list_array_or_series(model):
    pd = pytest.importorskip("pandas")
    from topics.auto import spec_of

    tr, ytr, _ = load_bundled_20ng("train")
    te, _, _ = load_bundled_20ng("test")
    tr, ytr, te = tr[::8], ytr[::8], te[:20]
    spec = spec_of(model)
    preds = []
    for wrap in (list, np.array, lambda t: np.array(t, dtype=object), pd.Series):
        est = spec.make_estimator(0)
        est.set_params(vocabulary=spec.make_vocabulary())
        preds.append(est.fit(wrap(tr), ytr).predict(wrap(te)))
    for p in preds[1:]:
        np.testing.assert_array_equal(p, preds[0])


def test_without_nb_scaling_it_is_liblinears_svm():
    """``nb_scaling=False`` (the ``svm`` model): r = 1, the plain squared-hinge SVM of eq. 2
    on the given weights, one per class against the rest, as ``LinearSVC``."""
    rng = np.random.default_rng(1)
    X = sp.csr_matrix(rng.random((90, 10)) * (rng.random((90, 10)) < 0.5))
    y = np.array(["a", "b", "c"])[np.argmax(X @ rng.normal(size=(10, 3)), axis=1)]
    m = NBSVM(nb_scaling=False, binarize=False, beta=1.0, C=1.0, max_iter=5000, tol=1e-6).fit(X, y)
    ref = LinearSVC(C=1.0, tol=1e-8, max_iter=100000).fit(X, y)
    assert np.all(m.log_ratios_ == 1.0)
    assert np.allclose(m.coef_, ref.coef_, atol=1e-3)
    assert np.allclose(m.intercept_, ref.intercept_, atol=1e-3)
    scaled = NBSVM(binarize=False, beta=1.0, C=1.0).fit(X, y)
    assert not np.allclose(scaled.log_ratios_, 1.0)
