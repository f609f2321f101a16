"""The relaxed-QAP projection by dual block-coordinate ascent (structpred.polytopes._qap_dual)
against cvxpy (Clarabel), an LP optimality certificate and the OSQP projection."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from structpred import (DualQAPProjector, ExtendedMatchingExample, RelaxedQAPProjector,
                        adjacent_pairs, fertility_indicators, project_relaxed_qap,
                        qap_constraints)


def _instance(seed, m, n, D, keep=1.0, spread=1.0):
    """A random point and pair set: all adjacent pairs, or a random share ``keep`` of them."""
    rng = np.random.default_rng(seed)
    pairs, _ = adjacent_pairs(m, n, one_to_two=D > 1)
    if keep < 1.0:
        pairs = pairs[rng.random(len(pairs)) < keep]
    N = m * n + (D - 1) * (m + n) + len(pairs)
    return rng.normal(0.3, spread, N), pairs


def _cvxpy_projection(zp, A, b):
    import cvxpy as cp

    x = cp.Variable(A.shape[1])
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(x - zp)), [A @ x <= b, x >= 0, x <= 1]).solve(
        solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return x.value


def _violation(A, b, z):
    return max(float(np.max(A @ z - b, initial=0.0)), float(-z.min()), float(z.max() - 1.0))


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 5), n=st.integers(1, 5), D=st.integers(1, 3),
       keep=st.sampled_from([1.0, 0.5]), seed=st.integers(0, 2**31 - 1),
       spread=st.floats(0.1, 3.0))
def test_dual_projection_matches_cvxpy(m, n, D, keep, seed, spread):
    zp, pairs = _instance(seed, m, n, D, keep, spread)
    A, b = qap_constraints((m, n), D, pairs)
    z, info = project_relaxed_qap(zp, (m, n), D, pairs, tol=1e-12, return_info=True)
    assert info["residual"] <= 1e-12
    np.testing.assert_allclose(z, _cvxpy_projection(zp, A, b), atol=1e-6)
    assert _violation(A, b, z) <= 1e-12


@pytest.mark.parametrize("m,n,D,seed", [(4, 5, 2, 0), (6, 6, 2, 1), (5, 3, 1, 2), (7, 8, 3, 3)])
def test_dual_projection_satisfies_the_projection_inequality(m, n, D, seed):
    """``x = pi(z')`` iff ``(z' - x)'(v - x) <= 0`` for every ``v`` of the polytope, i.e.
    for the LP maximiser ``v`` of ``(z' - x)'v`` (HiGHS), independently of cvxpy."""
    from scipy.optimize import linprog

    zp, pairs = _instance(seed, m, n, D, spread=1.5)
    A, b = qap_constraints((m, n), D, pairs)
    x = project_relaxed_qap(zp, (m, n), D, pairs, tol=1e-12)
    c = zp - x
    lp = linprog(-c, A_ub=A, b_ub=b, bounds=(0, 1), method="highs")
    assert lp.status == 0
    assert c @ (lp.x - x) <= 1e-9
    assert _violation(A, b, x) <= 1e-12


def test_dual_projection_fixes_points_inside_and_is_idempotent():
    m, n, D = 3, 4, 2
    pairs, _ = adjacent_pairs(m, n)
    y = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    fs, ft = fertility_indicators(y, D)
    flat = y.ravel()
    z = np.concatenate([flat, fs.ravel(), ft.ravel(), flat[pairs[:, 0]] * flat[pairs[:, 1]]])
    np.testing.assert_allclose(project_relaxed_qap(z, (m, n), D, pairs, tol=1e-12), z,
                               atol=1e-12)
    zp, _ = _instance(5, m, n, D, spread=2.0)
    x = project_relaxed_qap(zp, (m, n), D, pairs, tol=1e-12)
    np.testing.assert_allclose(project_relaxed_qap(x, (m, n), D, pairs, tol=1e-12), x,
                               atol=1e-9)


def test_dual_projection_pairs_follow_their_edges():
    """A pair wanted at 1 whose edges are wanted at 0 meets them at 1/3 (the
    average of (1, 0, 0) on the line z_p = z_a = z_b)."""
    pairs = np.array([[0, 3]])   # monotone pair <(0,0), (1,1)> of a 2 x 2 sentence pair
    zp = np.array([0.0, -5.0, -5.0, 0.0, 1.0])
    z = project_relaxed_qap(zp, (2, 2), 1, pairs, tol=1e-14)
    np.testing.assert_allclose(z, [1 / 3, 0, 0, 1 / 3, 1 / 3], atol=1e-12)


def test_dual_projection_warm_start_gives_the_same_points():
    m, n, D = 6, 7, 2
    zp, pairs = _instance(7, m, n, D)
    rng = np.random.default_rng(8)
    warm = {}
    for _ in range(6):
        zp = zp + rng.normal(0.0, 0.05, zp.size)
        hot, info = project_relaxed_qap(zp, (m, n), D, pairs, tol=1e-12, warm=warm,
                                        return_info=True)
        cold = project_relaxed_qap(zp, (m, n), D, pairs, tol=1e-12)
        np.testing.assert_allclose(hot, cold, atol=1e-9)
    assert len(warm["qap_slots"]) == 2
    # a repeated input restarts at its own multipliers: nothing left to do
    again = project_relaxed_qap(zp, (m, n), D, pairs, tol=1e-12, warm=warm, return_info=True)
    assert again[1]["sweeps"] == 0
    np.testing.assert_allclose(again[0], hot, atol=1e-12)


def test_dual_projection_rejects_bad_input():
    pairs, _ = adjacent_pairs(2, 2, one_to_two=False)
    with pytest.raises(ValueError):
        project_relaxed_qap(np.zeros(5), (2, 2), 1, pairs)
    with pytest.raises(ValueError):
        project_relaxed_qap(np.full(4 + len(pairs), np.nan), (2, 2), 1, pairs)
    with pytest.raises(ValueError):
        project_relaxed_qap(np.zeros(4 + len(pairs)), (2, 2), 1, pairs, omega=2.0)
    with pytest.raises(ValueError):
        project_relaxed_qap(np.zeros(5), (2, 2), 1, np.array([[0, 4]]))


def test_example_projection_default_and_osqp_agree():
    m, n, D = 5, 6, 2
    zp, pairs = _instance(9, m, n, D)
    F = sp.csr_matrix(np.ones((1, zp.size)))

    def example(projector=None):
        return ExtendedMatchingExample(F=F, z_gold=np.zeros(zp.size), shape=(m, n),
                                       max_fertility=D, pairs=pairs, projector=projector)

    ex = example()
    z = ex.project(zp)
    assert isinstance(ex.projector, DualQAPProjector) and ex.projector.n_solves == 1
    z_osqp = example(RelaxedQAPProjector(eps=1e-9)).project(zp)
    np.testing.assert_allclose(z, z_osqp, atol=1e-5)
