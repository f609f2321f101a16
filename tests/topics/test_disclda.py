"""DiscLDA: the samplers and the label posterior against exact enumeration, bridge sampling
against the harmonic mean, the T-gradient against finite differences, estimator behaviour."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln, logsumexp
from sklearn.exceptions import NotFittedError
from estimator_checks import estimator_checks

from topics.corpus import load_bundled_20ng, token_arrays
from topics.disclda import (DiscLDA, _pairs, _sample_u, _softmax_columns, block_transform,
                            exact_label_posterior, harmonic_log_posterior, joint_sweep,
                            label_chains, label_log_posterior)
from topics.lda import _seed, init_counts


def _tiny_model(seed, C=2, Bc=1, Bs=1, V=5, dense=False):
    rng = np.random.default_rng(seed)
    T = block_transform(C, Bc, Bs)
    if dense:
        T = _softmax_columns(3 * T - 2 + 0.5 * rng.normal(size=T.shape))
    phi = rng.dirichlet(np.full(V, 0.5), size=T.shape[1])
    return phi, T


def _offsets(docs):
    words = np.concatenate([np.asarray(d, np.int32) for d in docs])
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])]).astype(np.int64)
    return words, offsets


def test_block_transform_shape_and_columns():
    T = block_transform(3, 2, 4)
    assert T.shape == (3, 10, 6)
    np.testing.assert_allclose(T.sum(axis=1), 1.0)
    assert T[1, 2, 0] == 1 and T[1, 9, 5] == 1 and T[0, 2, 0] == 0


@pytest.mark.parametrize("dense", [False, True])
def test_label_posterior_matches_exact_enumeration(dense):
    phi, T = _tiny_model(0, C=3, V=6, dense=dense)
    alpha, prior = 0.5, np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(1)
    docs = [rng.integers(0, 6, size=n) for n in (3, 5, 6)] + [[]]
    words, offsets = _offsets(docs)
    st = label_chains(words, offsets, phi, T, alpha, 50, 20_000, seed=3)
    for ref in ("last", "adaptive", "mean"):
        post = np.exp(label_log_posterior(st, np.log(prior), ref))
        for d, doc in enumerate(docs):
            exact = exact_label_posterior(doc, phi, T, alpha, prior) if len(doc) else prior
            np.testing.assert_allclose(post[d], exact, atol=0.02)
    np.testing.assert_allclose(np.exp(harmonic_log_posterior(st, np.log(prior)))[-1], prior)


def test_bridge_more_accurate_than_harmonic_mean():
    # appendix 4.B.1: on short synthetic documents (exact answer by enumeration) the
    # geometric-bridge estimate is much closer to the truth than the harmonic mean.
    errs = {"bridge": [], "hm": []}
    for seed in range(4):
        phi, T = _tiny_model(10 + seed, C=2, Bc=1, Bs=1, V=8)
        alpha, prior = 0.3, np.array([0.5, 0.5])
        rng = np.random.default_rng(seed)
        docs = [rng.integers(0, 8, size=10) for _ in range(3)]
        words, offsets = _offsets(docs)
        exact = np.array([exact_label_posterior(d, phi, T, alpha, prior) for d in docs])
        for rep in range(5):
            st = label_chains(words, offsets, phi, T, alpha, 20, 200, seed=100 * seed + rep)
            errs["bridge"].append(np.abs(np.exp(label_log_posterior(st, np.log(prior))) - exact)[:, 0])
            errs["hm"].append(np.abs(np.exp(harmonic_log_posterior(st, np.log(prior))) - exact)[:, 0])
    bridge, hm = np.mean(errs["bridge"]), np.mean(errs["hm"])
    assert bridge < 0.5 * hm, (bridge, hm)
    assert bridge < 0.03


def _log_joint_uz(words, docs, labels, z, u, T, alpha, beta, L, K, V):
    """log p(w, u, z | y, T) with theta and Phi integrated out (eqs. 4.18, 4.19)."""
    lp = 0.0
    for d in np.unique(docs):
        nl = np.bincount(z[docs == d], minlength=L)
        lp += gammaln(L * alpha) - gammaln(nl.sum() + L * alpha) + (gammaln(nl + alpha) - gammaln(alpha)).sum()
    lp += np.log(T[labels[docs], u, z]).sum()
    m = np.zeros((K, V))
    np.add.at(m, (u, words), 1)
    lp += (K * gammaln(V * beta) - gammaln(m.sum(1) + V * beta).sum()
           + (gammaln(m + beta) - gammaln(beta)).sum())
    return lp


def test_joint_sweep_matches_exact_posterior():
    # eq. 4.25 on a tiny corpus with a dense T: enumerate all (u, z) assignments
    words = np.array([0, 1, 1, 2], np.int32)
    docs = np.array([0, 0, 1, 1], np.int32)
    labels = np.array([0, 1], np.int64)
    _, T = _tiny_model(4, C=2, Bc=1, Bs=1, V=3, dense=True)     # K = 3, L = 2
    C, K, L = T.shape
    V, alpha, beta = 3, 0.6, 0.5
    pairs = list(itertools.product(range(K), range(L)))
    states = list(itertools.product(range(len(pairs)), repeat=words.size))
    logp = []
    for s in states:
        u = np.array([pairs[j][0] for j in s]); z = np.array([pairs[j][1] for j in s])
        logp.append(_log_joint_uz(words, docs, labels, z, u, T, alpha, beta, L, K, V))
    exact = np.exp(np.array(logp) - logsumexp(logp))
    _seed(5)
    z = np.zeros(words.size, np.int64); u = np.zeros(words.size, np.int64)
    ndl = np.zeros((2, L), np.int64); np.add.at(ndl, (docs, z), 1)
    _, nwk, nk = init_counts(words, docs, u, 2, K, V)
    pk, pl, pt, npairs = _pairs(T)
    index = {s: i for i, s in enumerate(states)}
    code = {p: j for j, p in enumerate(pairs)}
    hist = np.zeros(len(states))
    n = 60_000
    for t in range(n + 200):
        joint_sweep(words, docs, labels, z, u, ndl, nwk, nk, pk, pl, pt, npairs, alpha, beta)
        if t >= 200:
            hist[index[tuple(code[(a, b)] for a, b in zip(u, z))]] += 1
    assert 0.5 * np.abs(hist / n - exact).sum() < 0.03


def test_fixed_T_sampler_is_restricted_lda():
    # with the block T of eq. 4.11, u is a function of (y, z): class block or shared block
    X, y = _synthetic(0)
    m = DiscLDA(n_class_topics=2, n_shared_topics=3, n_iter=20, random_state=0).fit(X, y)
    counts = m.topic_word_counts_.sum(axis=1)
    assert counts.sum() == X.sum()
    words, docs, _ = token_arrays(sp.csr_matrix(X))
    # class-1 documents never produce class-0 topics and vice versa
    Xc = [sp.csr_matrix(X)[y == c].sum() for c in range(2)]
    assert counts[0:2].sum() <= Xc[0] and counts[2:4].sum() <= Xc[1]


def test_sample_u_distribution():
    # eq. 4.24: p(u = k | z, y, w) ∝ phi_kw T^y_kz
    phi, T = _tiny_model(7, C=2, V=3, dense=True)
    words = np.zeros(40_000, np.int32) + 2
    docs = np.zeros(words.size, np.int32)
    z = np.ones(words.size, np.int64)
    u = np.empty_like(z)
    _seed(0)
    _sample_u(words, docs, np.array([1]), z, np.ascontiguousarray(phi.T), T, u)
    p = phi[:, 2] * T[1, :, 1]
    np.testing.assert_allclose(np.bincount(u, minlength=3) / u.size, p / p.sum(), atol=0.01)


def test_gradient_matches_finite_differences():
    # eq. 4.17 (summed over documents) against d/dT of the exact log p(y_d | w_d)
    phi, T = _tiny_model(3, C=2, Bc=1, Bs=1, V=4, dense=True)
    alpha, prior = 0.5, np.array([0.6, 0.4])
    docs = [[0, 1, 1, 3], [2, 2, 0]]
    labels = np.array([0, 1])
    words, offsets = _offsets(docs)
    st = label_chains(words, offsets, phi, T, alpha, 50, 40_000, seed=1, log_prior=np.log(prior),
                      grad_labels=labels)

    def objective(T):
        return sum(np.log(exact_label_posterior(d, phi, T, alpha, prior)[y]) for d, y in zip(docs, labels))

    num = np.zeros_like(T)
    eps = 1e-5
    for idx in np.ndindex(T.shape):
        Tp, Tm = T.copy(), T.copy()
        Tp[idx] += eps; Tm[idx] -= eps
        num[idx] = (objective(Tp) - objective(Tm)) / (2 * eps)
    np.testing.assert_allclose(st["grad"], num, atol=0.05 * np.abs(num).max())


# --------------------------------------------------------------------------- estimator

def _synthetic(seed, n=60, V=12):
    """Two classes with class-specific words 0..3 / 4..7 and shared words 8..11."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = np.zeros((n, V), int)
    for d in range(n):
        own = rng.integers(0, 4, size=8) + 4 * y[d]
        shared = rng.integers(8, 12, size=8)
        np.add.at(X[d], np.concatenate([own, shared]), 1)
    return X, y


def test_fit_predict_transform_synthetic_and_determinism():
    X, y = _synthetic(1)
    kw = dict(n_class_topics=2, n_shared_topics=2, n_iter=30, n_burn=10, n_samples=30, random_state=3)
    a = DiscLDA(**kw).fit(X, y)
    b = DiscLDA(**kw).fit(X, y)
    np.testing.assert_array_equal(a.components_, b.components_)
    P = a.predict_proba(X)
    np.testing.assert_array_equal(P, b.predict_proba(X))
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert a.score(X, y) > 0.95
    # per-document seeding: a document's result does not depend on its batch
    np.testing.assert_allclose(a.predict_proba(X[5:9]), P[5:9])
    F = a.transform(X)
    assert F.shape == (60, a.n_topics_)
    np.testing.assert_allclose(F.sum(axis=1), 1.0)
    Pc, Fc = a.infer(X[:4])
    np.testing.assert_allclose(Pc, P[:4]); np.testing.assert_allclose(Fc, F[:4])
    # the class-specific block of the true class dominates the features
    assert np.mean(F[y == 0, 0:2].sum(1) > F[y == 0, 2:4].sum(1)) > 0.9


def test_texts_unknown_words_and_empty_document_predict_prior():
    texts = ["space shuttle launch orbit nasa", "god religion atheism belief church",
             "orbit launch nasa moon", "belief god church jesus", "nasa moon orbit", "god jesus"]
    y = np.array(["sci", "rel", "sci", "rel", "sci", "rel"])
    m = DiscLDA(n_class_topics=1, n_shared_topics=1, n_iter=20, n_burn=5, n_samples=20).fit(texts, y)
    P = m.predict_proba(["the of and", "unseenword zzz", "nasa orbit"])
    prior = m.class_prior_
    np.testing.assert_allclose(P[0], prior)
    np.testing.assert_allclose(P[1], prior)
    assert m.predict(["nasa orbit launch"])[0] == "sci"
    F = m.transform(["the of and"])
    np.testing.assert_allclose(F[0], np.einsum("c,ckl->k", prior, m.transform_) / m.n_z_topics_)


def test_learned_transform_mode():
    X, y = _synthetic(2, n=80)
    m = DiscLDA(n_class_topics=2, n_shared_topics=2, learn_transform=True, n_iter=20, n_burn=5,
                n_samples=10, n_outer=2, n_grad=2, grad_samples=5, n_z_sweeps=3, step_size=1.0,
                random_state=0).fit(X, y)
    assert len(m.validation_errors_) == 3
    np.testing.assert_allclose(m.transform_.sum(axis=1), 1.0)
    assert m.transform_.min() > 0
    assert m.score(X, y) > 0.8
    groups = m.topic_groups(shared=0.0, low=1.0)
    assert set(groups) == {0, 1, "shared"}
    m2 = DiscLDA(**m.get_params()).fit(X, y)
    np.testing.assert_array_equal(m.transform_, m2.transform_)


def test_bundled_slice_beats_chance():
    Xtr, ytr, names = load_bundled_20ng("train")
    Xte, yte, _ = load_bundled_20ng("test")
    m = DiscLDA(n_class_topics=3, n_shared_topics=5, n_iter=60, n_burn=10, n_samples=30,
                random_state=0).fit(Xtr, ytr)
    assert m.score(Xte, yte) > 0.6          # chance is 0.25
    top = m.top_words_by_group(5)
    assert {w for w, _ in top[names.index("sci.space")]} & {"space", "nasa", "orbit", "launch"}


@pytest.mark.parametrize("X,y,msg", [
    (np.array([[1.0, np.nan], [1.0, 2.0]]), [0, 1], "NaN"),
    (np.zeros((0, 4)), [], "0 sample"),
    (np.zeros((2, 4)), [0, 1], "no tokens"),
    (np.ones((2, 4)), [0, 0], "at least 2 classes"),
    (np.ones((3, 4)), [0, 1], "one label per document"),
    (np.ones((2, 4)), [0.5, 1.5], "Unknown label type"),
    (-np.ones((2, 4)), [0, 1], "(?i)negative"),
])
def test_bad_input(X, y, msg):
    with pytest.raises(ValueError, match=msg):
        DiscLDA(n_iter=2).fit(X, y)


def test_bad_input_after_fit():
    X, y = _synthetic(0, n=10)
    m = DiscLDA(n_class_topics=1, n_shared_topics=1, n_iter=2, n_burn=1, n_samples=2).fit(X, y)
    with pytest.raises(ValueError, match="not seen in training"):
        m.score(X, np.full(10, 7))
    with pytest.raises(ValueError, match="features"):
        m.predict(np.ones((2, 3)))
    with pytest.raises(NotFittedError, match="not fitted"):
        DiscLDA().predict(X)
    with pytest.raises(ValueError, match="label_estimator"):
        DiscLDA(label_estimator="nope").fit(X, y)


# scikit-learn's estimator checks: all of them pass (per-document seeds make the label
# posterior independent of the batch, so the subset/sample-order invariance checks hold).
@estimator_checks([DiscLDA(n_class_topics=1, n_shared_topics=2, n_iter=5, n_burn=2,
                                  n_samples=5, round_counts=True)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
