"""Monte Carlo MedLDA: the eq. 21 sampler against its exact target (lambda = 0: plain LDA),
the importance sampler, eq. 19's 1/J factor, determinism and bad input."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import gammaln
from scipy.stats import chisquare
from sklearn.exceptions import NotFittedError
from estimator_checks import estimator_checks

from topics.corpus import Vocabulary, load_bundled_20ng
from topics.lda import _seed, gibbs_sweep, gibbs_sweep_biased, init_counts
from topics.medlda import GibbsMedLDA, ImportanceMedLDA, importance_step, topic_bias

# ---------------------------------------------------------------- exact target on a tiny corpus
WORDS = np.array([0, 1, 1, 2, 0], np.int32)       # doc 0: 3 tokens, doc 1: 2 tokens
DOCS = np.array([0, 0, 0, 1, 1], np.int32)
K, V, ALPHA, BETA = 2, 3, 0.5, 0.3


def exact_distribution(c):
    """``p(Z) ∝ p(W, Z) exp(sum_dk c_dk z-bar_dk)`` (eq. 20) over all K^N assignments."""
    nd = np.bincount(DOCS)
    logp = []
    for z in itertools.product(range(K), repeat=WORDS.size):
        z = np.array(z)
        ndk = np.zeros((2, K))
        nkw = np.zeros((K, V))
        np.add.at(ndk, (DOCS, z), 1)
        np.add.at(nkw, (z, WORDS), 1)
        lp = (gammaln(ndk + ALPHA).sum() - gammaln(nd + K * ALPHA).sum()
              + gammaln(nkw + BETA).sum() - gammaln(nkw.sum(1) + V * BETA).sum())
        logp.append(lp + np.sum(c * ndk / nd[:, None]))
    p = np.exp(np.array(logp) - max(logp))
    return p / p.sum()


def sampled_frequencies(bias_row, exp_bias, n_samples=30000, thin=3, seed=0):
    rng = np.random.default_rng(seed)
    _seed(seed)
    z = rng.integers(0, K, WORDS.size).astype(np.int64)
    ndk, nwk, nk = init_counts(WORDS, DOCS, z, 2, K, V)
    counts = np.zeros(K ** WORDS.size)
    code = K ** np.arange(WORDS.size)[::-1]
    for s in range(n_samples * thin):
        gibbs_sweep_biased(WORDS, DOCS, z, ndk, nwk, nk, ALPHA, BETA, bias_row, exp_bias)
        if s % thin == 0:
            counts[int(z @ code)] += 1
    return counts


def test_sampler_with_zero_multipliers_is_plain_lda_in_distribution():
    """lambda = 0: no bias rows; the chain's state frequencies match the exact LDA posterior."""
    bias_row, exp_bias = topic_bias(sp.csr_matrix((2, 3)), np.zeros((3, K)), np.array([0, 1]),
                                    np.array([3.0, 2.0]))
    assert np.all(bias_row == -1)
    counts = sampled_frequencies(bias_row, exp_bias)
    p = exact_distribution(np.zeros((2, K)))
    assert chisquare(counts, counts.sum() * p).pvalue > 1e-3


def test_sampler_with_zero_multipliers_equals_lda_sweep_exactly():
    rng = np.random.default_rng(1)
    words = rng.integers(0, 7, 200).astype(np.int32)
    docs = np.sort(rng.integers(0, 10, 200)).astype(np.int32)
    z0 = rng.integers(0, 4, 200).astype(np.int64)
    out = []
    for biased in (False, True):
        z = z0.copy()
        ndk, nwk, nk = init_counts(words, docs, z, 10, 4, 7)
        _seed(5)
        for _ in range(5):
            if biased:
                gibbs_sweep_biased(words, docs, z, ndk, nwk, nk, 0.1, 0.01,
                                   np.full(10, -1, np.int64), np.ones((1, 4)))
            else:
                gibbs_sweep(words, docs, z, ndk, nwk, nk, 0.1, 0.01)
        out.append(z)
    np.testing.assert_array_equal(out[0], out[1])


def test_biased_sampler_targets_eq_20():
    """Non-zero multipliers: the chain matches eq. 20 (per-token factor exp(c_dk / N_d)),
    and the same test rejects the factor without the 1/N_d normalisation."""
    lam = sp.csr_matrix(np.array([[0.0, 0.8, 0.0], [0.0, 0.0, 0.0]]))   # doc 0 (label 0) only
    kappa = np.array([[1.5, -1.0], [-0.5, 1.0], [0.0, 0.0]])
    y, nd = np.array([0, 1]), np.array([3.0, 2.0])
    bias_row, exp_bias = topic_bias(lam, kappa, y, nd)
    assert bias_row.tolist() == [0, -1]
    c = np.zeros((2, K))
    c[0] = 0.8 * (kappa[0] - kappa[1])
    lb = np.log(exp_bias[0])
    np.testing.assert_allclose(lb - lb[0], (c[0] - c[0, 0]) / 3.0)   # up to a constant per document
    c *= 2.0   # a strong bias so that the wrong normalisation is detectable
    exp_bias = np.exp(np.log(exp_bias) * 2.0)
    counts = sampled_frequencies(bias_row, exp_bias, seed=3)
    assert chisquare(counts, counts.sum() * exact_distribution(c)).pvalue > 1e-3
    wrong = exact_distribution(c * 3.0)          # exp(c_dk) per token instead of exp(c_dk / N_d)
    assert chisquare(counts, counts.sum() * wrong).pvalue < 1e-6


def test_topic_bias_matches_dense_formula():
    rng = np.random.default_rng(2)
    D, M, Kt = 12, 4, 5
    lam = rng.uniform(size=(D, M)) * (rng.uniform(size=(D, M)) < 0.3)
    y = rng.integers(0, M, D)
    lam[np.arange(D), y] = 0
    kappa = rng.normal(size=(M, Kt))
    nd = rng.integers(1, 30, D).astype(float)
    bias_row, exp_bias = topic_bias(sp.csr_matrix(lam), kappa, y, nd)
    for d in range(D):
        B = sum(lam[d, c] * (kappa[y[d]] - kappa[c]) for c in range(M)) / nd[d]
        if lam[d].sum() == 0:
            assert bias_row[d] == -1
        else:
            lb = np.log(exp_bias[bias_row[d]])
            np.testing.assert_allclose(lb - lb.max(), B - B.max(), atol=1e-12)


def test_importance_step_approximates_exact_conditional():
    rng = np.random.default_rng(4)
    theta = rng.dirichlet(np.ones(3), size=2)
    phi = rng.dirichlet(np.ones(V), size=3)
    exp_bias = np.exp(rng.normal(size=(1, 3)))
    bias_row = np.array([0, -1])
    ndk, nkw, ll = importance_step(WORDS, DOCS, theta, phi, bias_row, exp_bias, 20000, 7, True)
    exact = np.zeros((2, 3))
    for w, d in zip(WORDS, DOCS):
        p = theta[d] * phi[:, w] * (exp_bias[0] if d == 0 else 1.0)
        exact[d] += p / p.sum()
    np.testing.assert_allclose(ndk, exact, atol=0.03)
    np.testing.assert_allclose(nkw.sum(), WORDS.size)
    assert ll == pytest.approx(sum(np.log(theta[d] @ phi[:, w]) for w, d in zip(WORDS, DOCS)))
    again = importance_step(WORDS, DOCS, theta, phi, bias_row, exp_bias, 20000, 7, True)[0]
    np.testing.assert_array_equal(ndk, again)        # the same samples are reused


# ---------------------------------------------------------------- estimators on the bundled slice
@pytest.fixture(scope="module")
def slice20():
    tr, ytr, _ = load_bundled_20ng("train")
    te, yte, _ = load_bundled_20ng("test")
    vocab = Vocabulary(min_df=3).fit(tr)
    return vocab.transform(tr), ytr, vocab.transform(te), yte


def test_gibbs_medlda_fits_and_is_deterministic(slice20):
    Xtr, ytr, Xte, yte = slice20
    kw = dict(n_topics=8, C=1e3, n_iter=15, n_burn_in=20, random_state=3)
    a = GibbsMedLDA(**kw).fit(Xtr, ytr)
    b = GibbsMedLDA(**kw).fit(Xtr, ytr)
    np.testing.assert_array_equal(a.kappa_, b.kappa_)
    np.testing.assert_array_equal(a.components_, b.components_)
    np.testing.assert_array_equal(a.predict(Xte), b.predict(Xte))
    assert a.score(Xte, yte) > 0.6                    # 4 classes
    assert sp.issparse(a.lambda_) and a.lambda_.shape == (Xtr.shape[0], 4)
    assert 0 < a.lambda_sparsity_ < 1
    F = a.transform(Xte)
    np.testing.assert_allclose(F.sum(axis=1), 1.0)
    np.testing.assert_allclose(a.components_.sum(axis=1), 1.0)
    assert 1 <= a.n_iter_ <= 15 and len(a.objective_history_) == a.n_iter_
    assert 0 < a.inference_time_ < a.fit_time_


def test_gibbs_medlda_with_C_zero_is_lda(slice20):
    Xtr, ytr, _, _ = slice20
    m = GibbsMedLDA(n_topics=5, C=0.0, n_iter=3, n_burn_in=5).fit(Xtr, ytr)
    assert m.lambda_.nnz == 0 and np.all(m.bias_row_ == -1)


@pytest.mark.parametrize("paper", [False, True])
def test_importance_medlda_both_eq19_variants(slice20, paper):
    Xtr, ytr, Xte, yte = slice20
    m = ImportanceMedLDA(n_topics=8, C=1e3, n_iter=15, paper_1_over_J=paper).fit(Xtr, ytr)
    assert m.score(Xte, yte) > 0.6
    np.testing.assert_allclose(m.theta_.sum(axis=1), 1.0)
    again = ImportanceMedLDA(n_topics=8, C=1e3, n_iter=15, paper_1_over_J=paper).fit(Xtr, ytr)
    np.testing.assert_array_equal(m.predict(Xte), again.predict(Xte))


def test_eq19_one_over_J_equals_priors_times_J(slice20):
    """s = 1/J with (alpha, beta) is exactly s = 1 with (J alpha, J beta) in the MAP updates."""
    Xtr, ytr, Xte, _ = slice20
    J = 12
    a = ImportanceMedLDA(n_topics=4, alpha=0.01, beta=1e-5, n_samples=J, paper_1_over_J=True,
                         n_iter=4, tol=0).fit(Xtr, ytr)
    b = ImportanceMedLDA(n_topics=4, alpha=0.01 * J, beta=1e-5 * J, n_samples=J,
                         paper_1_over_J=False, n_iter=4, tol=0).fit(Xtr, ytr)
    np.testing.assert_allclose(a.components_, b.components_, rtol=1e-8)
    np.testing.assert_allclose(a.transform(Xte), b.transform(Xte), rtol=1e-7, atol=1e-12)


def test_text_input(slice20):
    tr, ytr, _ = load_bundled_20ng("train")
    m = GibbsMedLDA(n_topics=4, n_iter=2, n_burn_in=2, vocabulary=Vocabulary(min_df=5)).fit(tr[::5], ytr[::5])
    assert set(m.predict(tr[1:11])) <= set(m.classes_) and len(m.vocabulary_) > 0


@pytest.mark.parametrize("cls", [GibbsMedLDA, ImportanceMedLDA])
def test_bad_input(cls, slice20):
    Xtr, ytr, Xte, yte = slice20
    X = Xtr[::10].toarray().astype(float)
    y = ytr[::10]
    with pytest.raises(ValueError):
        cls(n_iter=1).fit(np.zeros((0, 5)), [])
    with pytest.raises(ValueError):
        cls(n_iter=1).fit([], [])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError):
        cls(n_iter=1).fit(bad, y)
    with pytest.raises(ValueError):
        cls(n_iter=1).fit(-X, y)
    with pytest.raises(ValueError):
        cls(n_iter=1).fit(X, np.zeros(40, int))            # one class
    with pytest.raises(ValueError):
        cls(n_iter=1).fit(X, y[:-1])
    with pytest.raises(ValueError):
        cls(n_iter=1).fit(np.zeros_like(X), y)             # no tokens
    with pytest.raises(ValueError):
        cls(n_iter=1, C=-1.0).fit(X, y)
    with pytest.raises(ValueError):
        cls(n_iter=1, n_topics=0).fit(X, y)
    with pytest.raises(NotFittedError):
        cls().predict(X)
    m = cls(n_topics=3, n_iter=2, **({"n_burn_in": 2} if cls is GibbsMedLDA else {})).fit(X, y)
    with pytest.raises(ValueError):
        m.predict(X[:, :-1])
    with pytest.raises(ValueError):
        m.score(X, np.full(40, 99))


@estimator_checks([GibbsMedLDA(n_topics=3, n_iter=3, n_burn_in=2, n_predict_burn=2,
                                      n_predict_samples=3, C=10.0, round_counts=True),
                          ImportanceMedLDA(n_topics=3, n_iter=3, n_predict_iter=3, C=10.0,
                                           round_counts=True)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
