"""Fertility (M+F) and quadratic-assignment (M+Q, M+F+Q) polytopes, decoders and projections.

Every decoder is checked against exhaustive enumeration on tiny sentence pairs
(up to 4 x 4, every fertility level and pair pattern), the two ILP back ends
against each other, and the projections against cvxpy QPs.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structpred import decode_fertility_matching, fertility_constraints, fertility_indicators, project_fertility_matching, project_fertility_matching_cvxpy
from structpred import decode_matching, project_matching
from structpred import PATTERNS, RelaxedQAPProjector, adjacent_pairs, brute_force_qap, decode_qap, qap_constraints, qap_objective


def _instance(rng, m, n, D, one_to_two=True, with_pairs=True):
    s = rng.normal(0.0, 1.0, (m, n))
    # non-negative penalties, non-decreasing in d (eq. 3.2's convexity condition)
    ps = np.cumsum(rng.uniform(0.0, 1.0, (D - 1, m)), axis=0)
    pt = np.cumsum(rng.uniform(0.0, 1.0, (D - 1, n)), axis=0)
    if with_pairs:
        pairs, pat = adjacent_pairs(m, n, one_to_two)
        q = rng.uniform(0.0, 1.5, len(pairs))
    else:
        pairs, q = np.zeros((0, 2), np.int64), np.zeros(0)
    return s, ps, pt, pairs, q


SHAPES = [(m, n) for m in range(1, 5) for n in range(1, 5)]


# --------------------------------------------------------------------------- pair set
@pytest.mark.parametrize("m,n", SHAPES)
def test_pair_set_is_Q(m, n):
    pairs, pat = adjacent_pairs(m, n)
    got = {tuple(p) for p in pairs}
    # Q = {jklm : |j-l| <= 1, |k-m| <= 1}, unordered pairs of distinct edges
    want = set()
    for (j, k), (l, mm) in itertools.combinations(itertools.product(range(m), range(n)), 2):
        if abs(j - l) <= 1 and abs(k - mm) <= 1:
            want.add((j * n + k, l * n + mm))
    assert got == want and len(got) == len(pairs)
    assert len(pairs) == 2 * max(m - 1, 0) * max(n - 1, 0) + m * max(n - 1, 0) + max(m - 1, 0) * n
    for (a, b), p in zip(pairs, pat):
        (j, k), (l, mm) = divmod(int(a), n), divmod(int(b), n)
        dj, dk = l - j, mm - k
        assert PATTERNS[p] == {(1, 1): "monotone", (1, -1): "inverted",
                               (0, 1): "src-one-to-two", (1, 0): "tgt-one-to-two"}[(dj, dk)]
    pairs2, pat2 = adjacent_pairs(m, n, one_to_two=False)
    assert set(pat2.tolist()) <= {0, 1}
    assert {tuple(p) for p in pairs2} <= got


# ------------------------------------------------------------------------ decoding
@pytest.mark.parametrize("D", [1, 2, 3])
@pytest.mark.parametrize("m,n", SHAPES)
def test_fertility_flow_matches_brute_force(m, n, D):
    rng = np.random.default_rng(100 * m + 10 * n + D)
    for _ in range(3):
        s, ps, pt, _, _ = _instance(rng, m, n, D, with_pairs=False)
        best, _ = brute_force_qap(s, ps, pt)
        y, zs, zt = decode_fertility_matching(s, ps, pt)
        assert qap_objective(y, s, ps, pt, np.zeros((0, 2), np.int64), np.zeros(0)) == \
            pytest.approx(best, abs=1e-9)
        # the flow's fertility arcs are the indicators of the degrees
        fs, ft = fertility_indicators(y, D)
        np.testing.assert_array_equal(zs, fs)
        np.testing.assert_array_equal(zt, ft)


def test_fertility_one_is_matching():
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = rng.normal(size=(5, 6))
        y, _, _ = decode_fertility_matching(s)
        assert (s * y).sum() == pytest.approx((s * decode_matching(s)).sum())


@pytest.mark.parametrize("D", [1, 2, 3])
@pytest.mark.parametrize("m,n", SHAPES)
def test_qap_ilp_backends_match_brute_force(m, n, D):
    rng = np.random.default_rng(1000 + 100 * m + 10 * n + D)
    s, ps, pt, pairs, q = _instance(rng, m, n, D, one_to_two=D > 1)
    best, _ = brute_force_qap(s, ps, pt, pairs, q)
    for backend in ("ortools", "pulp"):
        sol = decode_qap(s, ps, pt, pairs, q, backend=backend)
        assert sol.objective == pytest.approx(best, abs=1e-7), backend
        assert sol.bound == pytest.approx(best, abs=1e-6), backend
    lp = decode_qap(s, ps, pt, pairs, q, backend="lp")
    assert lp.bound >= best - 1e-7          # the relaxation is an upper bound
    assert lp.objective <= best + 1e-9      # the rounded point is feasible
    if not lp.fractional:
        assert lp.objective == pytest.approx(best, abs=1e-7)


def test_qap_one_to_two_pairs_need_fertility():
    # with D = 1 a one-to-two pair can never be on: the pair bonus is lost
    s = np.array([[1.0, 1.0]])
    pairs, _ = adjacent_pairs(1, 2)
    q = np.array([5.0])
    assert decode_qap(s, None, None, pairs, q).objective == pytest.approx(1.0)
    pen = np.array([[0.5]])
    sol = decode_qap(s, pen, np.zeros((1, 2)), pairs, q)
    assert sol.objective == pytest.approx(2.0 + 5.0 - 0.5)
    np.testing.assert_array_equal(sol.y, [[1, 1]])


def test_qap_negative_pair_scores_stay_exact():
    rng = np.random.default_rng(5)
    for _ in range(10):
        s = rng.normal(0.5, 1.0, (3, 3))
        pairs, _ = adjacent_pairs(3, 3, one_to_two=False)
        q = rng.normal(0.0, 1.0, len(pairs))
        best, _ = brute_force_qap(s, None, None, pairs, q)
        for backend in ("ortools", "pulp"):
            assert decode_qap(s, None, None, pairs, q, backend).objective == \
                pytest.approx(best, abs=1e-7)


def test_decoders_reject_bad_scores():
    pairs, _ = adjacent_pairs(2, 2)
    with pytest.raises(ValueError, match="NaN"):
        decode_qap(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="pair scores"):
        decode_qap(np.ones((2, 2)), pairs=pairs, pair_scores=np.ones(2))
    with pytest.raises(ValueError, match="outside"):
        decode_qap(np.ones((2, 2)), pairs=np.array([[0, 9]]), pair_scores=np.ones(1))
    with pytest.raises(ValueError, match="backend"):
        decode_qap(np.ones((2, 2)), backend="cplex")


# ------------------------------------------------------------------------ polytopes
def _in_polytope(A, b, z, tol=1e-9):
    return bool(np.all(A @ z <= b + tol) and np.all(z >= -tol) and np.all(z <= 1 + tol))


@pytest.mark.parametrize("D", [1, 2, 3])
def test_fertility_constraints_describe_the_flow_polytope(D):
    rng = np.random.default_rng(D)
    m, n = 3, 4
    A, b = fertility_constraints((m, n), D)
    assert A.shape == (m + n, m * n + (D - 1) * (m + n))
    for _ in range(10):
        s, ps, pt, _, _ = _instance(rng, m, n, D, with_pairs=False)
        y, zs, zt = decode_fertility_matching(s, ps, pt)
        assert _in_polytope(A, b, np.concatenate([y.ravel(), zs.ravel(), zt.ravel()]))
    # a word with D + 1 links is outside
    y = np.zeros((m, n))
    y[0, : min(n, D + 1)] = 1
    fs, ft = fertility_indicators(y, D)
    assert not _in_polytope(A, b, np.concatenate([y.ravel(), fs.ravel(), ft.ravel()]))


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 6), n=st.integers(1, 6), D=st.integers(1, 3),
       seed=st.integers(0, 2**31 - 1), spread=st.floats(0.1, 3.0))
def test_fertility_projection_matches_cvxpy(m, n, D, seed, spread):
    rng = np.random.default_rng(seed)
    zp = rng.normal(0.3, spread, (m, n))
    sp_ = rng.normal(0.0, spread, (D - 1, m))
    tp = rng.normal(0.0, spread, (D - 1, n))
    got = project_fertility_matching(zp, sp_, tp, return_info=True)
    assert got[3]["residual"] <= 1e-10
    ref = project_fertility_matching_cvxpy(zp, sp_, tp)
    for a, r in zip(got[:3], ref):
        np.testing.assert_allclose(a, r, atol=1e-6)
    A, b = fertility_constraints((m, n), D)
    assert _in_polytope(A, b, np.concatenate([g.ravel() for g in got[:3]]), tol=1e-9)


def test_fertility_projection_with_D1_is_the_matching_projection():
    rng = np.random.default_rng(3)
    for _ in range(10):
        zp = rng.normal(0.3, 1.0, (7, 9))
        np.testing.assert_allclose(project_fertility_matching(zp)[0], project_matching(zp),
                                   atol=1e-9)


def test_fertility_projection_fixes_points_inside():
    y = np.zeros((3, 3))
    y[0, :2] = 1
    y[1, 2] = 1
    fs, ft = fertility_indicators(y, 2)
    out = project_fertility_matching(y, fs, ft)
    for a, r in zip(out, (y, fs, ft)):
        np.testing.assert_allclose(a, r, atol=1e-12)


@pytest.mark.parametrize("m,n,D", [(3, 4, 1), (4, 4, 2), (6, 5, 2)])
def test_relaxed_qap_projection_matches_cvxpy(m, n, D):
    import cvxpy as cp

    rng = np.random.default_rng(m * n * D)
    pairs, _ = adjacent_pairs(m, n, one_to_two=D > 1)
    A, b = qap_constraints((m, n), D, pairs)
    proj = RelaxedQAPProjector(eps=1e-9)
    warm = {}
    for _ in range(3):
        zp = rng.normal(0.3, 0.8, A.shape[1])
        z = proj.project(zp, ("t", m, n, D), (A, b), warm=warm)
        x = cp.Variable(A.shape[1])
        cp.Problem(cp.Minimize(0.5 * cp.sum_squares(x - zp)),
                   [A @ x <= b, x >= 0, x <= 1]).solve(
            solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        np.testing.assert_allclose(z, x.value, atol=1e-6)
        assert _in_polytope(A, b, z, tol=1e-6)
    assert "x" in warm and proj.n_solves == 3


def test_qap_constraints_are_the_product_semantics():
    m, n = 2, 3
    pairs, _ = adjacent_pairs(m, n)
    A, b = qap_constraints((m, n), 2, pairs)
    y = np.array([[1, 1, 0], [0, 0, 1]])
    fs, ft = fertility_indicators(y, 2)
    flat = y.ravel()
    z = np.concatenate([flat, fs.ravel(), ft.ravel(), flat[pairs[:, 0]] * flat[pairs[:, 1]]])
    assert _in_polytope(A, b, z)
    z_bad = z.copy()
    z_bad[-1] = 1.0   # a pair whose edges are not both on
    if flat[pairs[-1, 0]] * flat[pairs[-1, 1]] == 0:
        assert not _in_polytope(A, b, z_bad)


def test_fertility_projection_warm_start_gives_the_same_point():
    rng = np.random.default_rng(11)
    warm = {}
    for _ in range(5):
        zp, sp_, tp = rng.normal(0.3, 1, (8, 9)), rng.normal(0, 1, (1, 8)), rng.normal(0, 1, (1, 9))
        cold = project_fertility_matching(zp, sp_, tp, return_info=True)
        hot = project_fertility_matching(zp + 0.01, sp_, tp, warm=warm)
        again = project_fertility_matching(zp + 0.01, sp_, tp, warm=warm, return_info=True)
        ref = project_fertility_matching(zp + 0.01, sp_, tp)
        for a, b, c in zip(hot, again[:3], ref):
            np.testing.assert_allclose(a, c, atol=1e-9)
            np.testing.assert_allclose(b, c, atol=1e-9)
        assert again[3]["n_iter"] <= cold[3]["n_iter"]
