"""sdEM for multinomial naive Bayes: a hand-derived step, the check-step invariants,
the estimator API and bad input."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from topics.corpus import load_bundled_20ng
from topics.sdem import SdemNaiveBayes, class_log_posterior, sdem_nb_epoch


def _csr(rows):
    X = sp.csr_matrix(np.array(rows, dtype=float))
    return X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data


def test_one_ncll_step_by_hand():
    # 2 classes, 3 words, one document of class 0 with counts (2, 0, 1); alpha = 1, lambda = 1, n = 4
    indptr, indices, data = _csr([[2, 0, 1]])
    N = np.ones((2, 3)); M = np.full(2, 3.0); C = np.ones(2); state = np.zeros(2)
    sdem_nb_epoch(indptr, indices, data, np.array([0]), np.array([0]), N, M, C, state,
                  1.0, 1.0, 4.0, 0)
    rho = 1 / (1 + 1 * 1)          # t = 1
    gamma = 1.0 * rho / 4           # gamma accumulated before the posterior is computed
    # the posterior at theta_t (before any update): the classes are symmetric -> 1/2 each
    p0 = 0.5
    N_exp = np.ones((2, 3))
    N_exp[0, [0, 2]] += rho * np.array([2, 1]) * (1 - p0)
    N_exp[1, [0, 2]] -= rho * np.array([2, 1]) * p0
    np.testing.assert_allclose(N, N_exp)
    np.testing.assert_allclose(M, N_exp.sum(axis=1))
    np.testing.assert_allclose(C, [1 + rho * (1 - p0), 1 - rho * p0])
    np.testing.assert_allclose(state, [1.0, gamma])


def test_posterior_formula():
    N = np.array([[3.0, 1.0, 0.0], [1.0, 1.0, 2.0]]); M = N.sum(axis=1); C = np.array([2.0, 1.0])
    gamma = 0.5
    X = sp.csr_matrix(np.array([[1.0, 0.0, 2.0]]))
    lp = class_log_posterior(X, N, M, C, gamma)[0]
    raw = [math.log(C[k] + gamma) + math.log(N[k, 0] + gamma) + 2 * math.log(N[k, 2] + gamma)
           - 3 * math.log(M[k] + 3 * gamma) for k in range(2)]
    expected = np.array(raw) - np.logaddexp(*raw)
    np.testing.assert_allclose(lp, expected)


@pytest.mark.parametrize("loss", ["ncll", "hinge"])
def test_check_step_keeps_counts_feasible_and_totals_exact(loss):
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(2.0, size=(60, 12)))
    y = rng.integers(0, 3, size=60)
    model = SdemNaiveBayes(loss=loss, learning_decay=0.0, n_epochs=8, random_state=0).fit(X, y)
    assert (model.word_counts_ >= 0).all() and (model.class_counts_ >= 0).all()
    assert (model.word_counts_ == 0).any()              # the clamp was exercised
    np.testing.assert_allclose(model.word_totals_, model.word_counts_.sum(axis=1))


def test_hinge_skips_documents_beyond_the_margin():
    indptr, indices, data = _csr([[5, 0]])
    N = np.array([[50.0, 1.0], [1.0, 50.0]]); M = N.sum(axis=1); C = np.ones(2); state = np.zeros(2)
    before = N.copy()
    loss = sdem_nb_epoch(indptr, indices, data, np.array([0]), np.array([0]), N, M, C, state,
                         1.0, 0.0, 1.0, 1)
    assert loss == 0.0
    np.testing.assert_array_equal(N, before)


def test_learns_bundled_20ng_and_is_deterministic():
    texts, y, _ = load_bundled_20ng("train")
    tt, yt, _ = load_bundled_20ng("test")
    a = SdemNaiveBayes(n_epochs=3, random_state=1).fit(texts, y)
    b = SdemNaiveBayes(n_epochs=3, random_state=1).fit(texts, y)
    np.testing.assert_array_equal(a.word_counts_, b.word_counts_)
    assert a.score(tt, yt) > 0.75
    proba = a.predict_proba(tt[:5] + [""])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert a.loss_history_[-1] < a.loss_history_[0]


def test_partial_fit_streams_and_rejects_unseen_labels():
    rng = np.random.default_rng(2)
    X = sp.csr_matrix(rng.poisson(1.0, size=(40, 6)))
    y = rng.integers(0, 2, size=40)
    m = SdemNaiveBayes()
    with pytest.raises(ValueError, match="classes"):
        m.partial_fit(X[:10], y[:10])
    m.partial_fit(X[:20], y[:20], classes=[0, 1], n=40).partial_fit(X[20:], y[20:])
    assert m._state[0] == 40
    with pytest.raises(ValueError, match="not seen"):
        m.partial_fit(X[:2], np.array([0, 7]))


@pytest.mark.parametrize("X,msg", [(np.array([[1.0, np.nan]]), "NaN"),
                                   (np.zeros((0, 3)), "empty corpus")])
def test_bad_input(X, msg):
    with pytest.raises(ValueError, match=msg):
        SdemNaiveBayes().fit(X, np.zeros(X.shape[0]))
