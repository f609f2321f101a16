"""paMedLDA (Shi & Zhu 2014): the lambda sampler against the GIG density, eq. 13 against
quadrature of the unnormalised posterior, the z sweep against the exact joint of a tiny
document, streaming semantics, determinism, bad input, and a small real 20NG slice."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.special import gammaln
from sklearn.exceptions import NotFittedError
from estimator_checks import estimator_checks

from topics.bayespa import PaMedLDA, gaussian_update, pa_sweep, sample_lambda
from topics.corpus import Vocabulary, load_bundled_20ng
from topics.lda import _seed


# --------------------------------------------------------------------------- lambda | Z

@pytest.mark.parametrize("zeta,quad,c", [(2.0, 0.5, 1.0), (0.1, 0.01, 1.0), (30.0, 4.0, 0.5)])
def test_lambda_sampler_matches_gig(zeta, quad, c):
    rng = np.random.default_rng(0)
    lam = sample_lambda(np.full(100_000, zeta), np.full(100_000, quad), c, rng)
    b = c * c * (zeta ** 2 + quad)                    # GIG(1/2, a=1, b), eq. 16
    # scipy: geninvgauss(p, beta) has density ∝ x^{p-1} exp(-beta (x + 1/x) / 2); GIG(p, a, b)
    # is that with beta = sqrt(ab), scaled by sqrt(b / a).
    gig = stats.geninvgauss(0.5, np.sqrt(b), scale=np.sqrt(b))
    assert stats.kstest(lam, gig.cdf).pvalue > 1e-3
    # moments: E[lambda] = sqrt(b) + 1 (K_{3/2} / K_{1/2} = 1 + 1/x) and E[1/lambda] = 1/sqrt(b)
    se = lam.std() / np.sqrt(lam.size)
    assert abs(lam.mean() - (np.sqrt(b) + 1.0)) < 5 * se
    np.testing.assert_allclose(gig.mean(), np.sqrt(b) + 1.0, rtol=1e-8)
    inv = 1.0 / lam
    assert abs(inv.mean() - 1.0 / np.sqrt(b)) < 5 * inv.std() / np.sqrt(lam.size)


def test_lambda_sampler_is_seeded():
    a = sample_lambda(np.ones(5), np.ones(5), 1.0, np.random.default_rng(3))
    b = sample_lambda(np.ones(5), np.ones(5), 1.0, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- eq. 13

def test_gaussian_update_matches_direct_computation():
    """Posterior mean / covariance of ``q(w) ∝ q_t(w) exp(E_s[sum_d log psi(y_d, lambda_d | z_d, w)])``
    by quadrature on a 2-D grid, against eq. 13 (and against the dense-inverse formula)."""
    rng = np.random.default_rng(1)
    K, S, B, c, eps = 2, 3, 4, 0.7, 1.5
    A = rng.normal(size=(K, K))
    P0 = A @ A.T + np.eye(K)
    mu0 = rng.normal(size=K)
    zbar = rng.dirichlet(np.ones(K), size=(S, B))
    lam = rng.gamma(2.0, 1.0, size=(S, B))
    y = np.array([1.0, -1.0, 1.0, -1.0])
    P, h, mu, L = (a[0] for a in gaussian_update(P0[None], (P0 @ mu0)[None], zbar,
                                                 lam[:, :, None], y[:, None], c, eps))
    np.testing.assert_allclose(L @ L.T, P)
    Sigma = np.linalg.inv(P)
    # dense formula
    P_direct = P0 + c * c * sum(np.outer(zbar[s, d], zbar[s, d]) / lam[s, d]
                                for s in range(S) for d in range(B)) / S
    h_direct = P0 @ mu0 + c * sum(y[d] * (1 + c * eps / lam[s, d]) * zbar[s, d]
                                  for s in range(S) for d in range(B)) / S
    np.testing.assert_allclose(P, P_direct)
    np.testing.assert_allclose(mu, np.linalg.solve(P_direct, h_direct))
    # quadrature of the unnormalised density, on a grid of +-9 sd around the prior and posterior
    sd = np.sqrt(np.maximum(np.diag(Sigma), np.diag(np.linalg.inv(P0))))
    lo, hi = np.minimum(mu, mu0) - 9 * sd, np.maximum(mu, mu0) + 9 * sd
    g = [np.linspace(lo[k], hi[k], 601) for k in range(K)]
    W = np.stack(np.meshgrid(*g, indexing="ij"), axis=-1).reshape(-1, K)
    logq = -0.5 * np.einsum("nk,kj,nj->n", W - mu0, P0, W - mu0)
    for s in range(S):
        for d in range(B):
            zeta = eps - y[d] * (W @ zbar[s, d])
            logq += -((lam[s, d] + c * zeta) ** 2) / (2 * lam[s, d]) / S
    p = np.exp(logq - logq.max())
    p /= p.sum()
    m = p @ W
    C = (W - m).T @ ((W - m) * p[:, None])
    np.testing.assert_allclose(m, mu, atol=1e-4)
    np.testing.assert_allclose(C, Sigma, atol=1e-4)


# --------------------------------------------------------------------------- z | lambda

def _exact_joint(doc, alpha, logphi, mu, Sigma, Y, lam, c, eps):
    """Exact ``q(z_d | lambda)`` of a short document by enumeration (eq. 14 with lambda fixed)."""
    K = logphi.shape[0]
    n = len(doc)
    out = {}
    for zs in itertools.product(range(K), repeat=n):
        C = np.bincount(zs, minlength=K)
        zbar = C / n
        lp = gammaln(alpha + C).sum() + sum(logphi[k, w] for k, w in zip(zs, doc))
        for t in range(mu.shape[0]):
            zt = eps - Y[t] * mu[t] @ zbar
            e2 = zt ** 2 + zbar @ Sigma[t] @ zbar
            # -E_w[(lambda + c zeta)^2 / (2 lambda)]
            lp -= (lam[t] ** 2 + 2 * lam[t] * c * zt + c * c * e2) / (2 * lam[t])
        out[zs] = lp
    v = np.array(list(out.values()))
    v = np.exp(v - v.max())
    return dict(zip(out, v / v.sum()))


def test_sweep_samples_the_exact_conditional():
    rng = np.random.default_rng(2)
    K, T, V, c, eps, alpha = 3, 2, 4, 1.0, 3.0, 0.4
    doc = [0, 2, 2]
    logphi = np.log(rng.dirichlet(np.ones(V), size=K))
    mu = rng.normal(scale=2.0, size=(T, K))
    A = rng.normal(size=(T, K, K))
    Sigma = np.einsum("tij,tkj->tik", A, A) + 0.5 * np.eye(K)
    Y = np.array([1.0, -1.0])
    lam = np.array([0.7, 1.9])
    exact = _exact_joint(doc, alpha, logphi, mu, Sigma, Y, lam, c, eps)
    plain = _exact_joint(doc, alpha, logphi, mu, Sigma, Y, lam, 0.0, eps)
    cells = sorted(exact)
    assert 0.5 * sum(abs(exact[k] - plain[k]) for k in cells) > 0.1   # the label term matters

    B, n = 20_000, len(doc)
    words = np.tile(np.asarray(doc, np.int32), B)
    offsets = np.arange(B + 1, dtype=np.int64) * n
    z = rng.integers(0, K, size=words.size).astype(np.int64)
    ndk = np.zeros((B, K), np.int64)
    np.add.at(ndk, (np.repeat(np.arange(B), n), z), 1)
    second = mu[:, :, None] * mu[:, None, :] + Sigma
    a = np.tile(c * Y * (c * eps + lam) / (n * lam), (B, 1))
    b = np.tile(c * c / (2.0 * n * n * lam), (B, 1))
    exp_lam = np.ascontiguousarray(np.exp(logphi).T)
    _seed(5)
    for _ in range(25):
        pa_sweep(words, offsets, z, ndk, exp_lam, mu, second, a, b, alpha)
    zz = z.reshape(B, n)
    emp = {k: np.mean(np.all(zz == np.array(k), axis=1)) for k in cells}
    assert 0.5 * sum(abs(emp[k] - exact[k]) for k in cells) < 0.025
    np.testing.assert_array_equal(ndk, np.stack([np.bincount(r, minlength=K) for r in zz]))


# --------------------------------------------------------------------------- estimator

@pytest.fixture(scope="module")
def slice20():
    tr, ytr, _ = load_bundled_20ng("train")
    te, yte, _ = load_bundled_20ng("test")
    v = Vocabulary(min_df=2).fit(tr)
    order = np.random.default_rng(0).permutation(len(tr))      # the file is sorted by label
    return v.transform(tr)[order], ytr[order], v.transform(te), yte


def test_learns_the_bundled_slice(slice20):
    Xtr, ytr, Xte, yte = slice20
    # v = 10: the paper's v = 1 shrinks the one-vs-all weights so hard that the topics
    # collapse on 20NG (see the module docstring); one pass, 4 classes (chance about 0.25)
    m = PaMedLDA(n_topics=20, batch_size=128, n_samples=2, v=10.0).fit(Xtr, ytr)
    assert m.score(Xte, yte) > 0.7
    F = m.transform(Xte)
    assert F.shape == (Xte.shape[0], 20)
    np.testing.assert_allclose(F.sum(axis=1), 1.0)
    assert m.n_docs_seen_ == Xtr.shape[0]
    assert m.fit_time_ > 0
    avg = PaMedLDA(n_topics=20, batch_size=128, v=10.0, prediction="average").fit(Xtr, ytr)
    np.testing.assert_allclose(avg.coef_, avg.coef_mean_)
    np.testing.assert_allclose(avg.coef_mean_, m.coef_mean_)
    assert not np.allclose(m.coef_, m.coef_mean_)


def test_passes_add_the_statistics_again(slice20):
    Xtr, ytr, _, _ = slice20
    n_tokens = Xtr.sum()
    for passes in (1, 2):
        m = PaMedLDA(n_topics=5, batch_size=200, n_samples=3, burn_in=1, n_passes=passes,
                     gamma=0.5).fit(Xtr, ytr)
        added = m.topic_word_.sum() - 0.5 * m.topic_word_.size
        np.testing.assert_allclose(added, passes * n_tokens)


def test_fit_equals_stream_of_partial_fits(slice20):
    Xtr, ytr, Xte, _ = slice20
    X, y = Xtr[:150], ytr[:150]
    kw = dict(n_topics=6, batch_size=40, n_samples=3, burn_in=1, n_gibbs=2, random_state=4)
    a = PaMedLDA(shuffle=False, **kw).fit(X, y)
    b = PaMedLDA(**kw)
    for s in (0, 40, 80, 120):
        b.partial_fit(X[s:s + 40], y[s:s + 40], classes=np.unique(ytr))
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.predict(Xte[:30]), b.predict(Xte[:30]))
    assert b.n_batches_seen_ == 4 and b.n_docs_seen_ == 150


def test_determinism(slice20):
    Xtr, ytr, Xte, _ = slice20
    X, y = Xtr[:120], ytr[:120]
    kw = dict(n_topics=5, batch_size=50, n_samples=2)
    a = PaMedLDA(random_state=7, **kw).fit(X, y)
    b = PaMedLDA(random_state=7, **kw).fit(X, y)
    c = PaMedLDA(random_state=8, **kw).fit(X, y)
    np.testing.assert_array_equal(a.topic_word_, b.topic_word_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.transform(Xte[:20]), b.transform(Xte[:20]))
    assert not np.array_equal(a.topic_word_, c.topic_word_)


def test_transform_is_per_document(slice20):
    Xtr, ytr, Xte, _ = slice20
    m = PaMedLDA(n_topics=5, batch_size=100, n_transform_burn=5, n_transform_samples=5).fit(Xtr[:200], ytr[:200])
    F = m.transform(Xte[:30])
    order = np.random.default_rng(0).permutation(30)
    np.testing.assert_array_equal(m.transform(Xte[:30][order]), F[order])
    np.testing.assert_array_equal(m.transform(Xte[5:9]), F[5:9])


def test_binary_decision_function(slice20):
    Xtr, ytr, Xte, _ = slice20
    keep = ytr < 2
    m = PaMedLDA(n_topics=4, batch_size=100, n_transform_burn=5, n_transform_samples=5).fit(Xtr[keep], ytr[keep])
    d = m.decision_function(Xte[:20])
    assert d.shape == (20,)
    np.testing.assert_array_equal(m.predict(Xte[:20]), m.classes_[(d > 0).astype(int)])


def test_text_input():
    tr, ytr, _ = load_bundled_20ng("train")
    idx = np.random.default_rng(0).permutation(len(tr))[:100]
    tr, ytr = [tr[i] for i in idx], ytr[idx]
    m = PaMedLDA(n_topics=4, batch_size=100, vocabulary=Vocabulary(min_df=3)).fit(tr, ytr)
    assert m.predict(tr[:5]).shape == (5,)
    with pytest.raises(ValueError, match="vocabulary"):
        PaMedLDA(n_topics=4).partial_fit(tr[:10], ytr[:10], classes=np.unique(ytr))


def test_bad_input(slice20):
    Xtr, ytr, Xte, yte = slice20
    with pytest.raises(ValueError):
        PaMedLDA().fit(np.zeros((0, 5)), [])
    Xn = Xtr[:10].toarray().astype(float)
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError):
        PaMedLDA().fit(Xn, ytr[:10])
    with pytest.raises(ValueError):
        PaMedLDA().fit(-Xtr[:10].toarray(), ytr[:10])
    with pytest.raises(ValueError, match="no tokens"):
        PaMedLDA().fit(sp.csr_matrix((4, 6)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        PaMedLDA().fit(Xtr[:10], np.zeros(10))
    with pytest.raises(ValueError, match="burn_in"):
        PaMedLDA(n_samples=2, burn_in=2).fit(Xtr[:10], ytr[:10])
    with pytest.raises(ValueError, match="prediction"):
        PaMedLDA(prediction="mode").fit(Xtr[:10], ytr[:10])
    with pytest.raises(NotFittedError):
        PaMedLDA().predict(Xte)
    m = PaMedLDA(n_topics=3, batch_size=20)
    with pytest.raises(ValueError, match="classes must be passed"):
        m.partial_fit(Xtr[:20], ytr[:20])
    m.partial_fit(Xtr[:20], ytr[:20], classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="not in classes"):
        m.partial_fit(Xtr[20:30], np.full(10, 9))
    with pytest.raises(ValueError, match="differs"):
        m.partial_fit(Xtr[20:30], ytr[20:30], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="features"):
        m.partial_fit(Xtr[20:30, :100], ytr[20:30])
    with pytest.raises(ValueError, match="not seen in training"):
        m.score(Xte[:5], np.full(5, 7))
    assert m.n_docs_seen_ == 20          # rejected batches left the state untouched


@estimator_checks([PaMedLDA(n_topics=3, batch_size=50, n_transform_burn=5, n_transform_samples=5,
                                   round_counts=True)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
