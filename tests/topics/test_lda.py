"""LDA collapsed Gibbs sampler: exact enumeration on a tiny corpus, estimator behaviour."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from topics.lda import LDA, _seed, collapsed_log_joint, gibbs_sweep, init_counts


def test_gibbs_chain_matches_exact_posterior():
    # 2 topics, 3 words, 2 documents (5 tokens): enumerate all 2^5 assignments.
    words = np.array([0, 1, 1, 2, 2], np.int32)
    docs = np.array([0, 0, 0, 1, 1], np.int32)
    K, V, alpha, beta = 2, 3, 0.7, 0.4
    states = list(itertools.product(range(K), repeat=words.size))
    logp = []
    for s in states:
        ndk, nwk, _ = init_counts(words, docs, np.array(s, np.int64), 2, K, V)
        logp.append(collapsed_log_joint(ndk, nwk, alpha, beta))
    exact = np.exp(np.array(logp) - max(logp))
    exact /= exact.sum()

    _seed(123)
    z = np.zeros(words.size, np.int64)
    ndk, nwk, nk = init_counts(words, docs, z, 2, K, V)
    index = {s: i for i, s in enumerate(states)}
    hist = np.zeros(len(states))
    n = 60_000
    for t in range(n + 500):
        gibbs_sweep(words, docs, z, ndk, nwk, nk, alpha, beta)
        if t >= 500:
            hist[index[tuple(z)]] += 1
    hist /= n
    assert 0.5 * np.abs(hist - exact).sum() < 0.02   # total variation


def test_counts_stay_consistent():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(1.0, size=(20, 15)))
    model = LDA(n_topics=4, n_iter=30, random_state=0).fit(X)
    assert model.topic_word_counts_.sum() == X.sum()
    np.testing.assert_array_equal(model.topic_word_counts_.sum(axis=0), np.asarray(X.sum(axis=0)).ravel())
    np.testing.assert_array_equal(model.doc_topic_counts_.sum(axis=1), np.asarray(X.sum(axis=1)).ravel())
    np.testing.assert_allclose(model.components_.sum(axis=1), 1.0)


def test_recovers_planted_topics_and_likelihood_rises():
    rng = np.random.default_rng(1)
    phi = np.zeros((2, 10))
    phi[0, :5] = 0.2
    phi[1, 5:] = 0.2
    docs = []
    for d in range(60):
        k = d % 2
        docs.append(rng.multinomial(40, phi[k]))
    X = sp.csr_matrix(np.array(docs))
    model = LDA(n_topics=2, alpha=0.1, beta=0.01, n_iter=100, evaluate_every=10, random_state=0).fit(X)
    top = [set(t) for t in model.top_words(5)]
    assert sorted(map(sorted, top)) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    ll = [v for _, v in model.log_likelihood_]
    assert ll[-1] > ll[0]
    theta = model.transform(X)
    assert np.allclose(theta.sum(axis=1), 1.0)
    assert (theta.max(axis=1) > 0.8).mean() > 0.9


def test_determinism_and_texts_with_unknown_and_empty_docs():
    texts = ["space shuttle launch orbit nasa", "god religion atheism belief", "orbit launch nasa",
             "belief god church"]
    a = LDA(n_topics=2, n_iter=20, random_state=5).fit(texts)
    b = LDA(n_topics=2, n_iter=20, random_state=5).fit(texts)
    np.testing.assert_array_equal(a.components_, b.components_)
    theta = a.transform(["unseenword zzz", "nasa orbit", "the of and"])
    np.testing.assert_allclose(theta[0], 0.5)          # no known words: prior mean
    np.testing.assert_allclose(theta[2], 0.5)
    np.testing.assert_array_equal(theta, a.transform(["unseenword zzz", "nasa orbit", "the of and"]))


@pytest.mark.parametrize("X,msg", [
    (np.array([[1.0, np.nan]]), "NaN"),
    (np.zeros((0, 4)), "empty corpus"),
    (np.zeros((3, 4)), "no tokens"),
])
def test_bad_input(X, msg):
    with pytest.raises(ValueError, match=msg):
        LDA(n_topics=2, n_iter=2).fit(X)


def test_streams_do_not_depend_on_call_history_or_the_other_documents():
    rng = np.random.default_rng(3)
    X = sp.csr_matrix(rng.poisson(1.0, size=(30, 12)))
    a = LDA(n_topics=3, n_iter=15, evaluate_every=5, random_state=2).fit(X)
    F = a.transform(X)
    _seed(999)                       # numba's process-wide generator left in another state
    LDA(n_topics=4, n_iter=3, random_state=7).fit(X[:10]).transform(X[:5])
    b = LDA(n_topics=3, n_iter=15, evaluate_every=5, random_state=2).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(b.transform(X), F)
    # one chain per document: subsets and permutations give the same rows
    order = rng.permutation(30)
    np.testing.assert_array_equal(a.transform(X[order]), F[order])
    np.testing.assert_array_equal(a.transform(X[7:9]), F[7:9])
    # another random_state gives other chains
    c = LDA(n_topics=3, n_iter=15, evaluate_every=5, random_state=3).fit(X)
    assert not np.array_equal(c.components_, a.components_)
