"""sdEM LDA classifier: the variational p(y|d) and the Gibbs statistics against exact
enumeration, the Z = 1 reduction to sdEM naive Bayes, hinge chains, the estimator API."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from sklearn.exceptions import NotFittedError
from estimator_checks import estimator_checks

from topics.corpus import load_bundled_20ng
from topics.lda import _seed
from topics.sdem import SdemNaiveBayes
from topics.sdem_lda import SdemLDAClassifier, chain_statistics, class_log_posterior_vb, \
    sdem_lda_epoch, vb_log_evidence


def _exact_log_evidence(doc, log_beta, a):
    """``ln p(d | beta)`` by summing over all ``Z^|d|`` topic assignments (theta integrated)."""
    Z, n = log_beta.shape[0], len(doc)
    terms = []
    for zs in itertools.product(range(Z), repeat=n):
        nz = np.bincount(zs, minlength=Z)
        terms.append(gammaln(Z * a) - gammaln(n + Z * a) + (gammaln(nz + a) - gammaln(a)).sum()
                     + sum(log_beta[z, w] for z, w in zip(zs, doc)))
    return logsumexp(terms)


def _exact_topic_word_expectation(doc, beta, a, V):
    """``E[sum_n I(z_n = z, w_n = w) | d]`` by enumeration (Z x V)."""
    Z = beta.shape[0]
    logs, stats = [], []
    for zs in itertools.product(range(Z), repeat=len(doc)):
        nz = np.bincount(zs, minlength=Z)
        logs.append((gammaln(nz + a)).sum() + sum(np.log(beta[z, w]) for z, w in zip(zs, doc)))
        s = np.zeros((Z, V))
        for z, w in zip(zs, doc):
            s[z, w] += 1
        stats.append(s)
    p = np.exp(np.array(logs) - logsumexp(logs))
    return np.tensordot(p, np.array(stats), axes=1)


def _tiny(seed, K=3, Z=2, V=5):
    rng = np.random.default_rng(seed)
    beta = rng.dirichlet(np.full(V, 0.4), size=(K, Z))
    return beta


def test_vb_bound_against_exact_enumeration():
    beta = _tiny(0)
    a = 0.5
    rng = np.random.default_rng(1)
    C = np.array([2.0, 1.0, 1.5])
    for n in (1, 3, 5, 7):
        doc = rng.integers(0, 5, size=n)
        X = sp.csr_matrix(np.bincount(doc, minlength=5)[None, :].astype(float))
        words = X.indices
        exact = []
        for k in range(3):
            lb = np.log(beta[k][:, words])
            bound = vb_log_evidence(lb, X.data, a, 500, 1e-12)
            ex = _exact_log_evidence(doc, np.log(beta[k]), a)
            assert bound <= ex + 1e-9                       # a lower bound
            assert ex - bound < 0.6                         # gap KL(q || posterior)
            exact.append(np.log(C[k]) + ex)
        exact = np.array(exact) - logsumexp(exact)
        # the classifier's estimate (N = beta, M = 1, gamma = 0 gives exactly beta)
        est = class_log_posterior_vb(X, beta.copy(), np.ones((3, 2)), C, 0.0, a, 500, 1e-12)[0]
        # the class-dependent gaps (0.04-0.56 nats here) move p(y|d) by at most 0.1
        np.testing.assert_allclose(np.exp(est), np.exp(exact), atol=0.11)


def test_vb_is_exact_with_one_topic():
    rng = np.random.default_rng(2)
    beta = rng.dirichlet(np.ones(6), size=(1,))
    counts = np.array([3.0, 1.0, 2.0])
    lb = np.log(beta[:, [0, 2, 5]])
    assert vb_log_evidence(lb, counts, 1.0, 50, 1e-10) == pytest.approx((counts * lb[0]).sum())
    assert vb_log_evidence(lb, np.zeros(3), 1.0, 50, 1e-10) == 0.0     # empty document


def test_gibbs_statistics_against_exact_enumeration():
    beta = _tiny(3, K=2, Z=2, V=4)
    a = 0.5
    doc = [0, 2, 2, 3, 1]
    X = sp.csr_matrix(np.bincount(doc, minlength=4)[None, :].astype(float))
    _seed(7)
    s = chain_statistics(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, 0,
                         beta.copy(), np.ones((2, 2)), 0.0, np.array([1, 0]), a, 50, 40_000)
    for g, k in enumerate([1, 0]):
        exact = _exact_topic_word_expectation(doc, beta[k], a, 4)[:, X.indices]
        np.testing.assert_allclose(s[g], exact, atol=0.03)
        np.testing.assert_allclose(s[g].sum(axis=0), X.data)        # every token counted once


def _counts(seed, n=40, V=8, K=3):
    rng = np.random.default_rng(seed)
    X = sp.csr_matrix(rng.poisson(1.2, size=(n, V)) * (rng.random((n, V)) < 0.7))
    y = rng.integers(0, K, size=n)
    return X, y


@pytest.mark.parametrize("loss,weights", [("ncll", "pm1"), ("hinge", "pm1"),
                                          ("hinge", "posterior")])
def test_one_topic_reduces_to_sdem_naive_bayes(loss, weights):
    # Z = 1: the chains are trivial (s = counts) and the bound is exact, so with eta = alpha
    # every update equals Algorithm 2 / 4 of naive Bayes.
    X, y = _counts(0)
    kw = dict(loss=loss, hinge_weights=weights, learning_decay=0.05, n_epochs=3,
              random_state=4)
    lda = SdemLDAClassifier(n_topics=1, eta=1.0, **kw).fit(X, y)
    nb = SdemNaiveBayes(prior="laplace", **kw).fit(X, y)
    np.testing.assert_allclose(lda.topic_word_counts_[:, 0, :], nb.word_counts_)
    np.testing.assert_allclose(lda.topic_totals_[:, 0], nb.word_totals_)
    np.testing.assert_allclose(lda.class_counts_, nb.class_counts_)
    assert lda.gamma_ == pytest.approx(nb.gamma_)
    np.testing.assert_allclose(lda.loss_history_, nb.loss_history_)
    np.testing.assert_allclose(lda.predict_log_proba(X), nb.predict_log_proba(X), atol=1e-10)


def _one_step(loss, N, C, doc_counts, y, lam=1.0, n=1.0, seed=0):
    X = sp.csr_matrix(np.asarray(doc_counts, float)[None, :])
    K, Z, V = N.shape
    M = N.sum(axis=2)
    state = np.zeros(2)
    _seed(seed)
    ell = sdem_lda_epoch(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data,
                         np.array([y]), np.array([0]), N, M, C, state, 0.05, lam, n, loss,
                         0.5, 2, 3, 100, 1e-8)
    return ell, M


def test_hinge_updates_only_y_and_ybar_and_ncll_updates_every_class():
    rng = np.random.default_rng(5)
    N0 = rng.gamma(2.0, 1.0, size=(3, 2, 4))
    N0[2] *= 0.5                                   # class 2 less likely -> ybar = 1
    doc = [1, 0, 2, 1]
    for loss in (1, 3):
        N, C = N0.copy(), np.ones(3)
        ell, M = _one_step(loss, N, C, doc, 0)
        assert ell > 0                             # symmetric-ish model: margin violated
        np.testing.assert_array_equal(N[2], N0[2])                 # untouched
        assert C[2] == 1.0
        assert (N[0] >= N0[0]).all() and (N[1] <= N0[1]).all()
        np.testing.assert_allclose(M, N.sum(axis=2))
        if loss == 1:                              # +1: y gains rho |w|_d spread over topics
            np.testing.assert_allclose((N[0] - N0[0]).sum(axis=0), 0.5 * np.array(doc))
    N, C = N0.copy(), np.ones(3)
    _one_step(0, N, C, doc, 0)
    for k in range(3):
        assert not np.allclose(N[k], N0[k])        # one chain per class


def test_clamp_keeps_counts_feasible_and_totals_exact():
    X, y = _counts(1, n=60)
    m = SdemLDAClassifier(loss="ncll", learning_decay=0.0, n_epochs=6, random_state=0).fit(X, y)
    assert (m.topic_word_counts_ >= 0).all() and (m.class_counts_ >= 0).all()
    assert (m.topic_word_counts_ == 0).any()                   # the clamp was exercised
    np.testing.assert_allclose(m.topic_totals_, m.topic_word_counts_.sum(axis=2))


def test_learns_bundled_20ng_deterministically():
    texts, y, _ = load_bundled_20ng("train")
    tt, yt, _ = load_bundled_20ng("test")
    a = SdemLDAClassifier(loss="hinge", n_epochs=2, random_state=1).fit(texts, y)
    b = SdemLDAClassifier(loss="hinge", n_epochs=2, random_state=1).fit(texts, y)
    c = SdemLDAClassifier(loss="hinge", n_epochs=2, random_state=2).fit(texts, y)
    np.testing.assert_array_equal(a.topic_word_counts_, b.topic_word_counts_)
    assert not np.array_equal(a.topic_word_counts_, c.topic_word_counts_)
    assert a.score(tt, yt) > 0.7                               # chance is 0.25
    proba = a.predict_proba(tt[:5] + ["the of and"])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    prior = (a.class_counts_ + a.gamma_) / (a.class_counts_ + a.gamma_).sum()
    np.testing.assert_allclose(proba[-1], prior)               # no word kept (stop words) -> the prior


def test_partial_fit_streams_and_rejects_bad_input():
    X, y = _counts(2)
    m = SdemLDAClassifier()
    with pytest.raises(ValueError, match="classes"):
        m.partial_fit(X[:10], y[:10])
    m.partial_fit(X[:20], y[:20], classes=[0, 1, 2], n=40).partial_fit(X[20:], y[20:])
    assert m._state[0] == 40 and m.n_stream_ == 40
    with pytest.raises(ValueError, match="not seen"):
        m.partial_fit(X[:2], np.array([0, 7]))
    with pytest.raises(ValueError, match="NaN"):
        SdemLDAClassifier().fit(np.array([[1.0, np.nan], [0.0, 1.0]]), [0, 1])
    with pytest.raises(ValueError):
        SdemLDAClassifier().fit(np.zeros((0, 3)), [])
    with pytest.raises(ValueError, match="loss"):
        SdemLDAClassifier(loss="nll").fit(X, y)
    with pytest.raises(NotFittedError):
        SdemLDAClassifier().predict(X)


@pytest.mark.parametrize("loss", ["ncll", "hinge"])
def test_partial_fit_over_chunks_equals_one_fit_pass(loss):
    X, y = _counts(8, n=36)
    kw = dict(n_topics=2, loss=loss, learning_decay=0.1, n_burn=2, n_samples=3, random_state=5)
    a = SdemLDAClassifier(n_epochs=1, shuffle=False, **kw).fit(X, y)
    b = SdemLDAClassifier(shuffle=False, **kw)
    for s, e in ((0, 5), (5, 17), (17, 36)):                     # uneven chunks
        b.partial_fit(X[s:e], y[s:e], classes=[0, 1, 2], n=36)
    np.testing.assert_allclose(b.topic_word_counts_, a.topic_word_counts_, rtol=1e-12)
    np.testing.assert_allclose(b.class_counts_, a.class_counts_, rtol=1e-12)
    np.testing.assert_array_equal(b.predict(X), a.predict(X))
    # the Gibbs chains are seeded per document of the stream, not per call
    c = SdemLDAClassifier(n_epochs=1, shuffle=False, **{**kw, "random_state": 6}).fit(X, y)
    assert not np.allclose(c.topic_word_counts_, a.topic_word_counts_)
    # shuffling: E partial_fit calls on the whole data are fit's E epochs
    d = SdemLDAClassifier(n_epochs=2, **kw).fit(X, y)
    e = SdemLDAClassifier(**kw)
    for _ in range(2):
        e.partial_fit(X, y, classes=[0, 1, 2])
    np.testing.assert_array_equal(e.topic_word_counts_, d.topic_word_counts_)


@estimator_checks([SdemLDAClassifier(n_epochs=2, n_burn=1, n_samples=2,
                                            round_counts=True)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
