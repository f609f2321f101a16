"""sdEM for multinomial naive Bayes: a hand-derived step, the check-step invariants,
the estimator API and bad input."""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from topics.corpus import load_bundled_20ng
from estimator_checks import estimator_checks

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
    proba = a.predict_proba(tt[:5] + ["the of and"])
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


@pytest.mark.parametrize("loss", ["ncll", "hinge", "nll"])
def test_partial_fit_over_chunks_equals_one_fit_pass(loss):
    rng = np.random.default_rng(6)
    X = sp.csr_matrix(rng.poisson(1.0, size=(45, 7)))
    y = rng.integers(0, 3, size=45)
    kw = dict(loss=loss, learning_decay=0.1, random_state=3)
    a = SdemNaiveBayes(n_epochs=1, shuffle=False, **kw).fit(X, y)
    b = SdemNaiveBayes(shuffle=False, **kw)
    for s, e in ((0, 7), (7, 20), (20, 21), (21, 45)):          # uneven chunks
        b.partial_fit(X[s:e], y[s:e], classes=[0, 1, 2], n=45)
    np.testing.assert_allclose(b.word_counts_, a.word_counts_, rtol=1e-12)
    np.testing.assert_allclose(b.class_counts_, a.class_counts_, rtol=1e-12)
    assert b.gamma_ == pytest.approx(a.gamma_, rel=1e-12)
    np.testing.assert_array_equal(b.predict(X), a.predict(X))
    # shuffling: E partial_fit calls on the whole data are fit's E epochs
    c = SdemNaiveBayes(n_epochs=3, **kw).fit(X, y)
    d = SdemNaiveBayes(**kw)
    for _ in range(3):
        d.partial_fit(X, y, classes=[0, 1, 2])
    np.testing.assert_array_equal(d.word_counts_, c.word_counts_)
    assert not np.allclose(c.word_counts_, SdemNaiveBayes(n_epochs=3, shuffle=False, **kw)
                           .fit(X, y).word_counts_)


@pytest.mark.parametrize("X,msg", [(np.array([[1.0, np.nan]]), "NaN"),
                                   (np.zeros((0, 3)), "0 sample")])
def test_bad_input(X, msg):
    with pytest.raises(ValueError, match=msg):
        SdemNaiveBayes().fit(X, np.zeros(X.shape[0]))


# ------------------------------------------------------------------------ NLL (online EM)

def test_one_nll_step_by_hand():
    # Table 1, NLL with nu = 0, in count space N = n mu:
    #   N <- (1 - rho) N + rho n s(y, d),  gamma <- (1 - rho) gamma + rho alpha
    indptr, indices, data = _csr([[2, 0, 1], [0, 3, 0]])
    N = np.ones((2, 3)); M = np.full(2, 3.0); C = np.ones(2); state = np.zeros(2)
    alpha, lam, n = 1.0, 0.5, 4.0
    sdem_nb_epoch(indptr, indices, data, np.array([0, 1]), np.array([0, 1]), N, M, C, state,
                  alpha, lam, n, 2)
    rho1, rho2 = 1 / (1 + lam * 1), 1 / (1 + lam * 2)
    N_exp = np.ones((2, 3)); C_exp = np.ones(2); g = 0.0
    N_exp *= 1 - rho1; C_exp *= 1 - rho1; g = (1 - rho1) * g + rho1 * alpha
    N_exp[0] += rho1 * n * np.array([2, 0, 1]); C_exp[0] += rho1 * n
    N_exp *= 1 - rho2; C_exp *= 1 - rho2; g = (1 - rho2) * g + rho2 * alpha
    N_exp[1] += rho2 * n * np.array([0, 3, 0]); C_exp[1] += rho2 * n
    np.testing.assert_allclose(N, N_exp)
    np.testing.assert_allclose(M, N_exp.sum(axis=1))
    np.testing.assert_allclose(C, C_exp)
    np.testing.assert_allclose(state, [2.0, g])


def test_nll_loss_is_the_joint_negative_log_likelihood():
    indptr, indices, data = _csr([[2, 0, 1]])
    N = np.array([[3.0, 1.0, 2.0], [1.0, 2.0, 2.0]]); M = N.sum(axis=1); C = np.array([2.0, 1.0])
    state = np.array([0.0, 0.5])
    loss = sdem_nb_epoch(indptr, indices, data, np.array([1]), np.array([0]), N.copy(), M.copy(),
                         C.copy(), state, 1.0, 1.0, 1.0, 2)
    g = 0.5
    expected = -(math.log((C[1] + g) / (C.sum() + 2 * g))
                 + 2 * math.log((N[1, 0] + g) / (M[1] + 3 * g))
                 + math.log((N[1, 2] + g) / (M[1] + 3 * g)))
    assert loss == pytest.approx(expected)


def test_nll_rho_one_keeps_only_the_last_document():
    # lambda = 0 -> rho = 1: the decay wipes the statistics (the lazy scale must survive it)
    indptr, indices, data = _csr([[1, 1, 0], [0, 2, 5]])
    N = np.ones((2, 3)); M = np.full(2, 3.0); C = np.ones(2); state = np.zeros(2)
    sdem_nb_epoch(indptr, indices, data, np.array([0, 1]), np.array([0, 1]), N, M, C, state,
                  1.0, 0.0, 2.0, 2)
    np.testing.assert_allclose(N, [[0, 0, 0], [0, 4, 10]])
    np.testing.assert_allclose(M, [0, 14])
    np.testing.assert_allclose(C, [0, 2])
    np.testing.assert_allclose(state, [2.0, 1.0])


@pytest.mark.parametrize("prior", ["laplace", "log"])
def test_nll_with_rho_1_over_t_converges_to_smoothed_mnb(prior):
    from sklearn.naive_bayes import MultinomialNB
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(rng.poisson(1.5, size=(50, 9)) * (rng.random((50, 9)) < 0.6))
    y = rng.integers(0, 3, size=50)
    n_epochs = 40
    m = SdemNaiveBayes(loss="nll", prior=prior, learning_decay=1.0, n_epochs=n_epochs).fit(X, y)
    a = m.alpha_
    counts = np.vstack([np.asarray(X[y == k].sum(axis=0)).ravel() for k in range(3)])
    T = n_epochs * 50                      # rho_t = 1/(1+t): N_T = (N_0 + n sum_t s_t) / (T + 1)
    np.testing.assert_allclose(m.word_counts_ + m.gamma_,
                               (a + n_epochs * 50 * counts) / (T + 1) + a * T / (T + 1))
    np.testing.assert_allclose(m.word_counts_ + m.gamma_, counts + a, rtol=0.02, atol=0.02)
    np.testing.assert_allclose(m.class_counts_ + m.gamma_, np.bincount(y) + a, rtol=0.02, atol=0.02)
    np.testing.assert_allclose(m.word_totals_, m.word_counts_.sum(axis=1))
    mnb = MultinomialNB(alpha=a, class_prior=(np.bincount(y) + a) / (50 + 3 * a)).fit(X, y)
    np.testing.assert_allclose(m.predict_log_proba(X), mnb.predict_log_proba(X), atol=0.05)
    np.testing.assert_array_equal(m.predict(X), mnb.predict(X))
    # the loss is the mean joint NLL; it goes down from the prior initialisation
    assert m.loss_history_[-1] < m.loss_history_[0]


def test_nll_learns_bundled_20ng():
    texts, y, _ = load_bundled_20ng("train")
    tt, yt, _ = load_bundled_20ng("test")
    m = SdemNaiveBayes(loss="nll", learning_decay=1.0, n_epochs=1).fit(texts, y)
    assert m.score(tt, yt) > 0.75


def test_hinge_step_weights_pm1_and_algorithm4():
    # one violated document of class 0; symmetric model -> p = 1/2 each, margin 0 < 1
    for code, (wy, wbar) in [(1, (1.0, 1.0)), (3, (0.5, 0.5))]:
        indptr, indices, data = _csr([[2, 0, 1]])
        N = np.ones((2, 3)); M = np.full(2, 3.0); C = np.ones(2); state = np.zeros(2)
        loss = sdem_nb_epoch(indptr, indices, data, np.array([0]), np.array([0]), N, M, C, state,
                             1.0, 1.0, 4.0, code)
        rho = 0.5
        assert loss == pytest.approx(1.0)
        np.testing.assert_allclose(N[0], 1 + rho * wy * np.array([2, 0, 1]))
        np.testing.assert_allclose(N[1], 1 - rho * wbar * np.array([2, 0, 1]))
        np.testing.assert_allclose(C, [1 + rho * wy, 1 - rho * wbar])
        np.testing.assert_allclose(M, N.sum(axis=1))


def test_hinge_weights_option_is_validated_and_used():
    rng = np.random.default_rng(4)
    X = sp.csr_matrix(rng.poisson(1.0, size=(30, 5)))
    y = rng.integers(0, 2, size=30)
    a = SdemNaiveBayes(loss="hinge", n_epochs=2).fit(X, y)
    b = SdemNaiveBayes(loss="hinge", hinge_weights="posterior", n_epochs=2).fit(X, y)
    assert not np.allclose(a.word_counts_, b.word_counts_)
    with pytest.raises(ValueError, match="hinge_weights"):
        SdemNaiveBayes(hinge_weights="bad").fit(X, y)


@estimator_checks([SdemNaiveBayes(n_epochs=3), SdemNaiveBayes(loss="hinge", n_epochs=3)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_min_updates_sets_the_passes_on_small_corpora():
    from topics.sdem import fit_epochs

    # topics train's default (6 passes, at least 6,000 visits): Brown's 303-document folds
    assert fit_epochs(6, 6000, 303) == 20
    assert fit_epochs(6, 6000, 379) == 16
    assert fit_epochs(6, 6000, 999) == 7
    assert [fit_epochs(6, 6000, n) for n in (1000, 1120, 11314)] == [6, 6, 6]
    assert fit_epochs(6, None, 10) == 6
    with pytest.raises(ValueError):
        fit_epochs(6, 0, 10)


def test_min_updates_is_the_same_as_asking_for_the_passes():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(1.0, (12, 8)).astype(float))
    y = np.array(["a", "b", "c"] * 4)
    floor = SdemNaiveBayes(loss="hinge", prior="log", n_epochs=2, min_updates=100).fit(X, y)
    plain = SdemNaiveBayes(loss="hinge", prior="log", n_epochs=9).fit(X, y)
    assert floor.n_epochs_ == plain.n_epochs_ == 9          # ceil(100 / 12)
    np.testing.assert_array_equal(floor.word_counts_, plain.word_counts_)
    few = SdemNaiveBayes(loss="hinge", prior="log", n_epochs=2, min_updates=10).fit(X, y)
    assert few.n_epochs_ == 2
