"""The MedLDA multi-class SVM dual (eq. 12): against cvxpy, KKT conditions, exact blocks."""

import cvxpy as cp
import numpy as np
import pytest

from topics.multiclass_svm import _solve_block, fit_multiclass_svm_dual, kappa_from_lambda, svm_objectives


def cvxpy_dual(F, y, C, cost, M):
    D = F.shape[0]
    Y = np.zeros((D, M))
    Y[np.arange(D), y] = 1.0
    lam = cp.Variable((D, M), nonneg=True)
    kappa = (cp.multiply(Y, cp.sum(lam, axis=1, keepdims=True)) - lam).T @ F
    obj = -0.5 * cp.sum_squares(kappa) + cp.sum(cp.multiply(lam, cost * (1 - Y)))
    prob = cp.Problem(cp.Maximize(obj), [cp.sum(lam, axis=1) <= C / D, cp.multiply(lam, Y) == 0])
    prob.solve(solver="CLARABEL")
    return prob.value, kappa.value


def problem(seed, D=40, K=6, M=4, simplex=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, M, D)
    if simplex:   # E[z-bar]-like features, class-dependent
        conc = np.full((M, K), 0.3)
        conc[np.arange(M), np.arange(M) % K] = 3.0
        F = np.array([rng.dirichlet(conc[c]) for c in y])
    else:
        F = rng.normal(size=(D, K)) + 2.0 * np.eye(M, K)[y]
    return F, y


@pytest.mark.parametrize("seed,C,cost,simplex", [(0, 2.0, 16.0, True), (1, 200.0, 16.0, True),
                                                   (2, 5000.0, 16.0, True), (3, 30.0, 1.0, False),
                                                   (4, 1e4, 1.0, False)])
def test_matches_cvxpy(seed, C, cost, simplex):
    F, y = problem(seed, simplex=simplex)
    res = fit_multiclass_svm_dual(F, y, C, cost, tol=1e-10, max_epochs=20000)
    ref_value, ref_kappa = cvxpy_dual(F, y, C, cost, 4)
    assert res.status == "converged"
    assert res.dual == pytest.approx(ref_value, rel=1e-5, abs=1e-6)
    # the dual is strictly concave in kappa, so kappa is unique even where lambda is not
    np.testing.assert_allclose(res.kappa, ref_kappa, atol=1e-3 * max(1.0, np.abs(ref_kappa).max()))
    assert res.gap <= 1e-8 * max(1.0, abs(res.primal)) + 1e-9
    np.testing.assert_allclose(res.kappa, kappa_from_lambda(F, y, res.lam, 4), atol=1e-9)


@pytest.mark.parametrize("seed,C", [(5, 3.0), (6, 300.0), (7, 1e5)])
def test_kkt_conditions(seed, C):
    F, y = problem(seed, D=60)
    D = F.shape[0]
    res = fit_multiclass_svm_dual(F, y, C, 16.0, tol=1e-12, max_epochs=50000)
    lam = res.lam.toarray()
    cap = C / D
    assert np.all(lam >= 0) and np.all(lam[np.arange(D), y] == 0)
    assert np.all(lam.sum(axis=1) <= cap * (1 + 1e-12))
    scores = F @ res.kappa.T
    g = 16.0 - (scores[np.arange(D), y][:, None] - scores)   # l_d(y) - kappa' Delta f
    g[np.arange(D), y] = -np.inf
    _, _, xi = svm_objectives(F, y, res.kappa, res.lam, C, 16.0)
    tol = 1e-5 * max(1.0, np.abs(g[np.isfinite(g)]).max())
    # complementary slackness: lambda_d^y > 0  =>  constraint (d, y) is tight
    active = lam > 1e-9 * cap
    assert np.all(np.abs(g[active] - np.broadcast_to(xi[:, None], g.shape)[active]) <= tol)
    # slack xi_d > 0  =>  the sum constraint of d is tight
    assert np.all(lam.sum(axis=1)[xi > tol] >= cap * (1 - 1e-6))
    # primal feasibility: xi_d >= max_y g_y and >= 0 by construction
    assert np.all(xi >= 0)


def test_block_solver_is_exact():
    rng = np.random.default_rng(0)
    for _ in range(30):
        m = int(rng.integers(1, 8))
        b, s, cap = rng.normal(size=m) * 3, float(rng.uniform(0.1, 3)), float(rng.uniform(0.05, 2))
        out = np.empty(m)
        _solve_block(b, s, cap, out)
        lam = cp.Variable(m, nonneg=True)
        prob = cp.Problem(cp.Maximize(b @ lam - s / 2 * (cp.sum_squares(lam) + cp.square(cp.sum(lam)))),
                          [cp.sum(lam) <= cap])
        prob.solve(solver="CLARABEL")
        val = b @ out - s / 2 * (out @ out + out.sum() ** 2)
        assert out.min() >= 0 and out.sum() <= cap * (1 + 1e-12)
        assert val == pytest.approx(prob.value, abs=1e-7)
        np.testing.assert_allclose(out, lam.value, atol=1e-5)


def test_warm_start_and_determinism():
    F, y = problem(8)
    a = fit_multiclass_svm_dual(F, y, 50.0, 16.0, tol=1e-10, max_epochs=5000, random_state=3)
    b = fit_multiclass_svm_dual(F, y, 50.0, 16.0, tol=1e-10, max_epochs=5000, random_state=3)
    np.testing.assert_array_equal(a.kappa, b.kappa)
    warm = fit_multiclass_svm_dual(F, y, 50.0, 16.0, lam0=a.lam, tol=1e-10, max_epochs=5000)
    assert warm.n_epochs <= 2
    assert warm.dual == pytest.approx(a.dual, rel=1e-9)


def test_zero_C_gives_zero_solution():
    F, y = problem(9)
    res = fit_multiclass_svm_dual(F, y, 0.0, 16.0)
    assert res.lam.nnz == 0 and np.all(res.kappa == 0)


def test_bad_input():
    F, y = problem(10)
    with pytest.raises(ValueError):
        fit_multiclass_svm_dual(np.where(F > 0.5, np.nan, F), y, 1.0)
    with pytest.raises(ValueError):
        fit_multiclass_svm_dual(F, y[:-1], 1.0)
    with pytest.raises(ValueError):
        fit_multiclass_svm_dual(F, np.zeros(len(y), int), 1.0)
    with pytest.raises(ValueError):
        fit_multiclass_svm_dual(F, y, -1.0)
    with pytest.raises(ValueError):
        fit_multiclass_svm_dual(np.zeros((0, 3)), np.zeros(0, int), 1.0)


def test_ties_keep_the_sum_constraint():
    """Many tied multipliers (sparse features, all constraints violated): the exact block
    step must keep sum_y lambda_d^y <= C/D (regression: a tie once left it infeasible)."""
    rng = np.random.default_rng(0)
    D, K, M = 800, 20, 20
    y = rng.integers(0, M, D)
    F = rng.dirichlet(np.full(K, 0.1), size=D)
    res = fit_multiclass_svm_dual(F, y, 2e3, 16.0, max_epochs=5, tol=0)
    assert res.lam.toarray().sum(axis=1).max() <= 2e3 / D * (1 + 1e-9)
    assert res.gap >= -1e-9 * abs(res.primal)
    out = np.empty(6)
    _solve_block(np.array([5.0, 5.0, 5.0 + 1e-14, 5.0, 5.0 - 1e-14, 5.0]), 0.5, 0.1, out)
    assert out.sum() == pytest.approx(0.1) and np.ptp(out) < 1e-12
