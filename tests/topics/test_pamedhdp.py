"""paMedHDP: the truncation-free sampler (eqs. 22a-24) against the exact distribution of a tiny
corpus (new topics created when sampled, stick weights, table counts and the label term), the
table and stick pieces, streaming semantics, determinism, bad input and the estimator checks."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import betaln, gammaln
from sklearn.exceptions import NotFittedError
from estimator_checks import estimator_checks

from topics.bayespa import label_coefficients, second_moments
from topics.corpus import Vocabulary, load_bundled_20ng
from topics.pamedhdp import (PaMedHDPClassifier, _BatchCounts, _pad, _pad_square,
                             expected_sticks, sample_sticks, sample_tables, sample_weights,
                             stick_posterior)


# --------------------------------------------------------------------------- exact target

def _stirling_first(n_max):
    """Unsigned Stirling numbers of the first kind S(n, s), n, s <= n_max."""
    S = np.zeros((n_max + 1, n_max + 1))
    S[0, 0] = 1.0
    for n in range(1, n_max + 1):
        for s in range(1, n + 1):
            S[n, s] = S[n - 1, s - 1] + (n - 1) * S[n - 1, s]
    return S


def _canonical(z, n_old):
    """Topics ``< n_old`` keep their index; the others are renumbered by first occurrence."""
    out, names = [], {}
    for k in z:
        if k < n_old:
            out.append(int(k))
        else:
            names.setdefault(k, n_old + len(names))
            out.append(names[k])
    return tuple(out)


def _exact(docs, V, alpha, gamma, eta, omega, sticks, mu, Sigma, var0, Y, lam, c, eps):
    """``p(z | lambda)`` over the canonical assignments of the tokens of ``docs`` to the
    instantiated topics (``omega`` rows, stick ``q(pi') = Beta(sticks)``) and to new ones:

    ``E_{pi' ~ q}[sum_S p(z, S | pi)] E_{q(Phi)}[p(X | z)] prod_{d,tau} exp(-E_w[(lambda + c
    zeta)^2 / (2 lambda)])``, eq. 22, with the new topics' sticks GEM(gamma) on the remainder
    (summed over their labels: the Ewens formula) and the instantiated sticks integrated
    against their Beta distributions (Beta functions; one instantiated topic here).
    """
    Kt = omega.shape[0]
    assert Kt <= 1
    words = np.concatenate(docs)
    doc_of = np.repeat(np.arange(len(docs)), [len(d) for d in docs])
    n = words.size
    S1 = _stirling_first(n)
    out = {}
    for z in itertools.product(range(Kt + n), repeat=n):
        if _canonical(z, Kt) != tuple(z):
            continue
        z = np.array(z)
        K = z.max() + 1 if n else 0
        K = max(K, Kt)
        ndk = np.zeros((len(docs), K), int)
        np.add.at(ndk, (doc_of, z), 1)
        # sum over the table counts s_dk (eq. 17), tables pooled per topic
        logp_tables = -np.inf
        ranges = [range(1, ndk[d, k] + 1) if ndk[d, k] else range(0, 1)
                  for d in range(len(docs)) for k in range(K)]
        for s in itertools.product(*ranges):
            s = np.array(s).reshape(len(docs), K)
            lp = sum(np.log(S1[ndk[d, k], s[d, k]]) + s[d, k] * np.log(alpha)
                     for d in range(len(docs)) for k in range(K) if ndk[d, k])
            m = s.sum(axis=0)
            m_old, m_new = m[:Kt].sum(), m[Kt:]
            m_new = m_new[m_new > 0]
            M = m_new.sum()
            # new topics: Ewens sampling formula on (1 - pi'_0) GEM(gamma)
            lp += (m_new.size * np.log(gamma) + gammaln(gamma) - gammaln(gamma + M)
                   + gammaln(m_new).sum())
            if Kt:
                u, v = sticks[0]
                lp += betaln(u + m_old, v + M) - betaln(u, v)
            logp_tables = np.logaddexp(logp_tables, lp)
        lp = logp_tables
        # E_{q(Phi)} p(X | z): Polya factor of every topic
        for k in range(K):
            om = omega[k] if k < Kt else np.full(V, eta)
            ckw = np.bincount(words[z == k], minlength=V)
            lp += (gammaln(om.sum()) - gammaln(om.sum() + ckw.sum())
                   + (gammaln(om + ckw) - gammaln(om)).sum())
        # label factor: w ~ N(mu, Sigma) on the old topics, N(0, var0) on the new ones
        for d in range(len(docs)):
            zbar = ndk[d] / ndk[d].sum()
            m_ext = np.zeros((mu.shape[0], K))
            m_ext[:, :Kt] = mu
            for t in range(mu.shape[0]):
                zt = eps - Y[d, t] * m_ext[t] @ zbar
                quad = zbar[:Kt] @ Sigma[t] @ zbar[:Kt] + var0 * (zbar[Kt:] ** 2).sum()
                lp -= (lam[d, t] ** 2 + 2 * lam[d, t] * c * zt + c * c * (zt ** 2 + quad)) \
                    / (2 * lam[d, t])
        out[tuple(z)] = lp
    v = np.array(list(out.values()))
    v = np.exp(v - v.max())
    return dict(zip(out, v / v.sum()))


SETUP = dict(alpha=1.3, gamma=0.8, eta=0.6, c=1.0, eps=1.0, var0=1.5)


def _run_chain(docs, V, omega, sticks, mu, Sigma, Y, lam, n_iter, seed):
    """The local sampler of ``PaMedHDPClassifier._update_batch`` with ``lambda`` fixed: one
    sweep (eqs. 22a, 22b; new topics that die are removed), tables (eq. 23), weights (eq. 24)."""
    alpha, gamma, eta, c, eps, var0 = (SETUP[k] for k in ("alpha", "gamma", "eta", "c", "eps",
                                                          "var0"))
    words = np.concatenate(docs).astype(np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(d) for d in docs])]).astype(np.int64)
    nd = np.diff(offsets).astype(float)
    Kt = omega.shape[0]
    rng = np.random.default_rng(seed)
    st = _BatchCounts(words, offsets, V, Kt, extra=2)          # small: exercises the growth
    omega_T, omega_sum = np.ascontiguousarray(omega.T), omega.sum(axis=1)
    Li0 = np.linalg.inv(np.linalg.cholesky(np.linalg.inv(Sigma)))
    a, b = label_coefficients(Y, lam, nd, c, eps)
    u, v = sticks[:, 0], sticks[:, 1]
    st.set_weights(*sample_sticks(u, v, rng))
    hist, moments = {}, {}
    for it in range(n_iter):
        K = st.K
        if K not in moments:        # q(w) over the K topics: the new ones N(0, var0)
            mu_k, Li = _pad(mu, K, 1), _pad_square(Li0, K, np.sqrt(var0))
            moments[K] = mu_k, second_moments(mu_k, Li)
        st.sweep(omega_T, omega_sum, *moments[K], a, b, var0, alpha, gamma,
                 eta, int(rng.integers(2**31 - 1)) if it == 0 else -1)
        dead = (np.arange(st.K) >= Kt) & (st.nk[:st.K] == 0)
        if dead.any():
            st.compact(np.flatnonzero(~dead))
        K = st.K
        m = sample_tables(st.ndk, st.pi, K, alpha, int(rng.integers(2**31 - 1)))
        st.set_weights(*sample_weights(u, v, m, gamma, rng))
        key = _canonical(st.z, Kt)
        hist[key] = hist.get(key, 0) + 1
        if it % 997 == 0:           # counts stay consistent with z, weights sum to one
            ndk = np.zeros_like(st.ndk)
            np.add.at(ndk, (np.repeat(np.arange(len(docs)), nd.astype(int)), st.z), 1)
            np.testing.assert_array_equal(ndk, st.ndk)
            assert np.isclose(st.pi[:K].sum() + st.rest[0], 1.0)
            assert (st.nk[Kt:K] > 0).all()
    return {k: v / n_iter for k, v in hist.items()}


@pytest.mark.parametrize("instantiated", [0, 1])
def test_sampler_matches_exact_enumeration(instantiated):
    """One instantiated topic from an earlier batch (or none: the first batch) plus any number
    of new ones, on 4 tokens in 2 documents (52 canonical assignments)."""
    V = 3
    docs = [np.array([0, 1]), np.array([1, 2])]
    Y = np.array([[1.0, -1.0], [-1.0, 1.0]])          # 2 tasks
    lam = np.array([[0.7, 1.3], [1.1, 0.5]])
    if instantiated:
        omega = np.array([[3.0, 0.4, 1.2]])
        sticks = np.array([[2.0, 1.5]])
        mu = np.array([[1.5], [-0.8]])
        Sigma = np.array([[[0.6]], [[0.9]]])
    else:
        omega, sticks = np.zeros((0, V)), np.zeros((0, 2))
        mu, Sigma = np.zeros((2, 0)), np.zeros((2, 0, 0))
    args = (docs, V, SETUP["alpha"], SETUP["gamma"], SETUP["eta"], omega, sticks, mu, Sigma,
            SETUP["var0"], Y)
    exact = _exact(*args, lam, SETUP["c"], SETUP["eps"])
    plain = _exact(*args, lam, 0.0, SETUP["eps"])
    cells = sorted(exact)
    assert 0.5 * sum(abs(exact[k] - plain[k]) for k in cells) > 0.05   # the label term matters
    if instantiated:
        assert len(cells) == 52
    emp = _run_chain(docs, V, omega, sticks, mu, Sigma, Y, lam, 30_000, seed=3)
    assert set(emp) <= set(cells)
    tv = 0.5 * sum(abs(emp.get(k, 0.0) - exact[k]) for k in cells)
    assert tv < 0.02, tv          # Monte Carlo error about 0.01 at 30,000 sweeps


# --------------------------------------------------------------------------- pieces

def test_tables_follow_antoniak():
    """eq. 23: P(s) ∝ S(n, s) x^s, checked on a single (d, k) cell by frequency."""
    n, x = 6, 1.7
    S1 = _stirling_first(n)
    p = S1[n, 1:n + 1] * x ** np.arange(1, n + 1)
    p /= p.sum()
    draws = np.array([sample_tables(np.array([[n]]), np.array([x]), 1, 1.0, s)[0]
                      for s in range(20_000)])
    freq = np.bincount(draws.astype(int), minlength=n + 1)[1:]
    assert stats.chisquare(freq, p * draws.size).pvalue > 1e-3
    np.testing.assert_allclose(draws.mean(), (x / (x + np.arange(n))).sum(), rtol=0.02)


def test_stick_pieces():
    u, v = stick_posterior([1.0, 2.0, 1.0], [0.5, 0.5, 0.5], [3, 1, 2])
    np.testing.assert_allclose(u, [4.0, 3.0, 3.0])
    np.testing.assert_allclose(v, [3.5, 2.5, 0.5])            # + tables of the later topics
    pi, rest = sample_sticks(u, v, np.random.default_rng(0))
    assert np.isclose(pi.sum() + rest, 1.0) and (pi > 0).all()
    rng = np.random.default_rng(1)
    draws = np.array([sample_sticks(u, v, rng)[0] for _ in range(4000)])
    np.testing.assert_allclose(draws.mean(axis=0), expected_sticks(u, v), atol=0.015)
    pi0, rest0 = sample_sticks(np.zeros(0), np.zeros(0), rng)
    assert pi0.size == 0 and rest0 == 1.0


# --------------------------------------------------------------------------- estimator

@pytest.fixture(scope="module")
def slice20():
    tr, ytr, _ = load_bundled_20ng("train")
    te, yte, _ = load_bundled_20ng("test")
    v = Vocabulary(min_df=2).fit(tr)
    order = np.random.default_rng(0).permutation(len(tr))      # the file is sorted by label
    return v.transform(tr)[order], ytr[order], v.transform(te), yte


FAST = dict(n_transform_burn=20, n_transform_samples=20)


def test_learns_the_bundled_slice_and_grows_topics(slice20):
    Xtr, ytr, Xte, yte = slice20
    m = PaMedHDPClassifier(batch_size=100, **FAST).fit(Xtr, ytr)
    assert m.score(Xte, yte) > 0.65                             # chance is 0.25
    K = m.n_topics_
    assert K >= 2 and len(m.n_topics_history_) == 4 and m.n_topics_history_[-1] == K
    assert m.topic_word_.shape == (K, Xtr.shape[1]) and m.coef_.shape == (4, K)
    assert m.sticks_.shape == (K, 2) and 0 < m.topic_weights_.sum() < 1
    # every token is counted once per pass (eq. 20a), and every topic has data
    np.testing.assert_allclose(m.topic_word_.sum() - m.eta * m.topic_word_.size, Xtr.sum())
    assert (m.topic_word_.sum(axis=1) > m.eta * Xtr.shape[1]).all()
    F = m.transform(Xte)
    assert F.shape == (Xte.shape[0], K)
    np.testing.assert_allclose(F.sum(axis=1), 1.0)
    assert m.n_docs_seen_ == Xtr.shape[0] and m.fit_time_ > 0


def test_fit_equals_stream_of_partial_fits(slice20):
    Xtr, ytr, Xte, _ = slice20
    X, y = Xtr[:170], ytr[:170]
    kw = dict(batch_size=40, n_samples=3, burn_in=1, n_gibbs=2, random_state=4, **FAST)
    a = PaMedHDPClassifier(shuffle=False, **kw).fit(X, y)
    b = PaMedHDPClassifier(**kw)
    for s, e in ((0, 80), (80, 120), (120, 170)):       # chunks of whole mini-batches
        b.partial_fit(X[s:e], y[s:e], classes=np.unique(ytr))
    assert a.n_topics_ == b.n_topics_ and a.n_topics_history_ == b.n_topics_history_
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)
    np.testing.assert_array_equal(a.sticks_, b.sticks_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.predict(Xte[:30]), b.predict(Xte[:30]))
    assert b.n_batches_seen_ == 5 and b.n_docs_seen_ == 170


def test_determinism_and_per_document_transform(slice20):
    Xtr, ytr, Xte, _ = slice20
    X, y = Xtr[:150], ytr[:150]
    a = PaMedHDPClassifier(batch_size=50, random_state=7, **FAST).fit(X, y)
    b = PaMedHDPClassifier(batch_size=50, random_state=7, **FAST).fit(X, y)
    c = PaMedHDPClassifier(batch_size=50, random_state=8, **FAST).fit(X, y)
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.topic_word_.shape != c.topic_word_.shape or not np.array_equal(a.topic_word_,
                                                                              c.topic_word_)
    F = a.transform(Xte[:30])
    order = np.random.default_rng(0).permutation(30)
    np.testing.assert_array_equal(a.transform(Xte[:30][order]), F[order])
    np.testing.assert_array_equal(a.transform(Xte[5:9]), F[5:9])


def test_passes_add_the_statistics_again(slice20):
    Xtr, ytr, _, _ = slice20
    m = PaMedHDPClassifier(batch_size=200, n_passes=2, **FAST).fit(Xtr, ytr)
    np.testing.assert_allclose(m.topic_word_.sum() - m.eta * m.topic_word_.size, 2 * Xtr.sum())
    assert len(m.n_topics_history_) == 4


def test_empty_batch_and_text_input():
    tr, ytr, _ = load_bundled_20ng("train")
    idx = np.random.default_rng(0).permutation(len(tr))[:80]
    tr, ytr = [tr[i] for i in idx], ytr[idx]
    vocab = Vocabulary(min_df=3).fit(tr)
    m = PaMedHDPClassifier(batch_size=40, vocabulary=vocab, **FAST)
    m.partial_fit(["the of and", "zzzunknown"], ytr[:2], classes=np.unique(ytr))
    assert m.n_topics_ == 0 and m.transform(["nothing"]).shape == (1, 0)
    assert m.predict(tr[:3]).shape == (3,)
    m.partial_fit(tr, ytr)
    assert m.n_topics_ > 0 and m.predict(tr[:5]).shape == (5,)
    m2 = PaMedHDPClassifier(batch_size=40, **FAST).fit(tr, ytr)
    assert m2.vocabulary_ is not None and m2.predict(tr[:5]).shape == (5,)


def test_bad_input(slice20):
    Xtr, ytr, Xte, _ = slice20
    with pytest.raises(ValueError, match="no tokens"):
        PaMedHDPClassifier().fit(sp.csr_matrix((4, 6)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        PaMedHDPClassifier().fit(Xtr[:10], np.zeros(10))
    for bad in (dict(alpha=0.0), dict(gamma=-1.0), dict(eta=0.0), dict(v=0.0)):
        with pytest.raises(ValueError, match="must be a finite number > 0"):
            PaMedHDPClassifier(**bad).fit(Xtr[:10], ytr[:10])
    with pytest.raises(ValueError, match="burn_in"):
        PaMedHDPClassifier(n_samples=2, burn_in=2).fit(Xtr[:10], ytr[:10])
    with pytest.raises(NotFittedError):
        PaMedHDPClassifier().predict(Xte)
    m = PaMedHDPClassifier(batch_size=20, **FAST)
    with pytest.raises(ValueError, match="classes must be passed"):
        m.partial_fit(Xtr[:20], ytr[:20])
    m.partial_fit(Xtr[:20], ytr[:20], classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="features"):
        m.partial_fit(Xtr[20:30, :100], ytr[20:30])
    assert m.n_docs_seen_ == 20


@estimator_checks([PaMedHDPClassifier(batch_size=50, n_transform_burn=5,
                                             n_transform_samples=5, round_counts=True)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
