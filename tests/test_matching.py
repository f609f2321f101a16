"""Projection onto the bipartite matching polytope and max-weight matching decoding.

References used here, all independent of the default projection:

* cvxpy + OSQP with polishing (``eps = 1e-10``).  When the polishing step
  succeeds OSQP is exact to ~1e-15; when it fails (degenerate instances) it is
  only ADMM-accurate, so the objective values are compared instead (and the
  distance too where the inputs are of moderate size).  Clarabel is not used:
  its answers are only ~1e-5 accurate on 30-80 sized instances.
* the min-cost-flow projection (OR-Tools; its grid phase is independent, its
  exact polish shares the Newton kernel),
* KKT certificates built from the returned multipliers,
* closed forms (all-equal inputs, non-positive inputs, feasible inputs,
  vertices of the polytope for huge generic inputs),
* brute-force enumeration, scipy's ``linear_sum_assignment`` and ``linprog``
  for the decoder.
"""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linear_sum_assignment, linprog

from structpred import decode_matching, matching_lp_value, matching_violation, project_matching, project_matching_cvxpy, project_matching_flow

AGREE = 1e-6  # required agreement (max abs) with the reference
HYP = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def make_feasible(z):
    """Clip to [0, 1] and rescale rows, then columns, whose sum exceeds 1."""
    z = np.clip(np.asarray(z, dtype=float), 0.0, 1.0)
    z = z / np.maximum(z.sum(axis=1, keepdims=True), 1.0)
    return z / np.maximum(z.sum(axis=0, keepdims=True), 1.0)


def objective_gap(z1, z2, zp):
    """f(z1) - f(z2) for f(z) = 1/2 ||z - zp||^2, without cancellation."""
    return float(np.sum((z1 - z2) * (0.5 * (z1 + z2) - zp)))


def scale_of(zp):
    return max(1.0, float(np.abs(zp).max())) if zp.size else 1.0


def assert_feasible(z, tol=1e-9):
    assert np.all(np.isfinite(z))
    assert z.min() >= 0.0 and z.max() <= 1.0
    assert z.sum(axis=1).max() <= 1.0 + tol
    assert z.sum(axis=0).max() <= 1.0 + tol
    assert matching_violation(z) <= tol


def assert_kkt(zp, z, info):
    """Optimality certificate from the multipliers returned with return_info."""
    m, n = zp.shape
    a, b = info["alpha"], info["beta"]
    assert a.shape == (m,) and b.shape == (n,)
    tol = 10.0 * max(info["tol_used"], 1e-10)
    assert info["residual"] <= info["tol_used"]
    assert a.min() >= 0.0 and b.min() >= 0.0  # dual feasibility
    zz = np.clip(zp - a[:, None] - b[None, :], 0.0, 1.0)  # Lagrangian minimiser
    rs, cs = zz.sum(axis=1), zz.sum(axis=0)
    assert rs.max() <= 1.0 + tol and cs.max() <= 1.0 + tol  # primal feasibility
    assert np.all((a <= tol) | (np.abs(rs - 1.0) <= tol))  # complementary slackness
    assert np.all((b <= tol) | (np.abs(cs - 1.0) <= tol))
    assert np.abs(z - zz).max() <= 2.0 * tol  # returned z is that minimiser


def osqp_reference(zp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cvxpy "solution may be inaccurate"
        zr, info = project_matching_cvxpy(zp, solver="OSQP", return_info=True)
    assert info["status"] in ("optimal", "optimal_inaccurate")
    return zr, info


def assert_matches_reference(z, zp, ref):
    zr, info = ref
    scale = scale_of(zp)
    m, n = zp.shape
    # z is optimal, the reference (made feasible) can only be worse
    assert objective_gap(z, make_feasible(zr), zp) <= 1e-9 * scale * (m + n)
    if info["polished"] or scale <= 10.0:
        assert np.abs(z - zr).max() <= AGREE
    else:  # OSQP not polished on huge inputs: ADMM accuracy only
        assert np.abs(z - zr).max() <= 1e-3


def check_both_methods(zp):
    zp = np.asarray(zp, dtype=float)
    ref = osqp_reference(zp)
    z, info = project_matching(zp, return_info=True)
    assert_feasible(z)
    assert_kkt(zp, z, info)
    assert_matches_reference(z, zp, ref)
    zf = project_matching_flow(zp)
    assert_feasible(zf)
    assert_matches_reference(zf, zp, ref)
    assert np.abs(z - zf).max() <= AGREE
    return z


# ---------------------------------------------------------------------------
# projection vs. the cvxpy reference
# ---------------------------------------------------------------------------

SHAPES = [(1, 1), (1, 6), (6, 1), (2, 2), (3, 17), (17, 3), (10, 10), (25, 40), (40, 25),
          (30, 30), (80, 80)]


@pytest.mark.parametrize("shape", SHAPES, ids=[f"{m}x{n}" for m, n in SHAPES])
def test_projection_matches_reference_random(shape):
    rng = np.random.default_rng(sum(shape))
    check_both_methods(rng.normal(0.3, 1.0, size=shape))


def test_projection_matches_reference_many_small_shapes():
    rng = np.random.default_rng(7)
    for _ in range(15):
        m, n = rng.integers(1, 13, size=2)
        loc, sd = rng.choice([(0.3, 1.0), (0.0, 0.3), (1.0, 2.0)])
        check_both_methods(rng.normal(loc, sd, size=(m, n)))


def _degenerate_cases():
    rng = np.random.default_rng(11)
    return {
        "all-equal-0.5-5x5": np.full((5, 5), 0.5),
        "all-equal-2-4x7": np.full((4, 7), 2.0),
        "all-equal-0.1-6x3": np.full((6, 3), 0.1),
        "all-equal-1-1x1": np.ones((1, 1)),
        "repeated-values-8x8": rng.choice([0.2, 0.7, 1.3], size=(8, 8)),
        "repeated-rows-6x6": np.tile(rng.normal(0.5, 1.0, size=(1, 6)), (6, 1)),
        "integer-grid-9x12": rng.integers(-2, 4, size=(9, 12)).astype(float),
        "integer-grid-12x9": rng.integers(0, 3, size=(12, 9)).astype(float),
        "all-negative-7x5": -rng.uniform(0.1, 2.0, size=(7, 5)),
        "all-above-1-6x9": rng.uniform(1.5, 4.0, size=(6, 9)),
        "zero-5x8": np.zeros((5, 8)),
        "zero-one-10x10": rng.integers(0, 2, size=(10, 10)).astype(float),
        "identity-plus-ones-6x6": np.eye(6) + np.ones((6, 6)),
        "half-integers-7x7": rng.integers(0, 4, size=(7, 7)) / 2.0,
        "tiny-1e-8-6x6": rng.uniform(0.0, 1e-8, size=(6, 6)),
        "huge-normal-8x6": rng.normal(0.0, 1e6, size=(8, 6)),
        "huge-ties-7x9": rng.choice([-1e6, 0.0, 1e6], size=(7, 9)),
        "huge-equal-4x4": np.full((4, 4), 1e6),
    }


DEGENERATE = _degenerate_cases()


@pytest.mark.parametrize("name", list(DEGENERATE))
def test_projection_matches_reference_degenerate(name):
    zp = DEGENERATE[name]
    z = check_both_methods(zp)
    m, n = zp.shape
    if name.startswith(("all-negative", "zero-5")):
        assert np.all(z == 0.0)
    if "equal" in name:  # symmetric input -> constant projection
        c = zp[0, 0]
        np.testing.assert_allclose(z, np.clip(c, 0.0, 1.0 / max(m, n)), rtol=0, atol=1e-12)
    if name.startswith("tiny"):  # all row/column sums < 1: nothing to project
        np.testing.assert_array_equal(z, zp)
    if name == "huge-normal-8x6":  # huge generic input: the max-weight matching vertex
        np.testing.assert_allclose(z, decode_matching(zp), rtol=0, atol=1e-9)


def test_projection_huge_generic_is_max_weight_vertex():
    rng = np.random.default_rng(3)
    for shape in [(5, 5), (9, 4), (12, 15)]:
        zp = 1e6 * rng.normal(size=shape)
        z, info = project_matching(zp, return_info=True)
        assert_kkt(zp, z, info)
        np.testing.assert_allclose(z, decode_matching(zp), rtol=0, atol=1e-9)
        np.testing.assert_allclose(project_matching_flow(zp), z, rtol=0, atol=1e-9)


def test_projection_empty_and_info():
    for shape in [(0, 3), (3, 0), (0, 0)]:
        z, info = project_matching(np.zeros(shape), return_info=True)
        assert z.shape == shape
        assert info["iterations"] == 0
    zp = np.random.default_rng(0).normal(0.3, 1.0, size=(12, 20))
    z, info = project_matching(zp, return_info=True)
    assert set(info) >= {"alpha", "beta", "residual", "tol_used", "iterations", "newton_steps",
                         "ray_steps", "sweeps", "line_search_evals"}
    assert info["iterations"] == info["newton_steps"] + info["ray_steps"] + info["sweeps"]
    assert info["residual"] <= 1e-10
    # list input, non-contiguous and float32 input give the same answer
    np.testing.assert_array_equal(project_matching(zp.tolist()), z)
    big = np.zeros((24, 40))
    big[::2, ::2] = zp
    np.testing.assert_array_equal(project_matching(big[::2, ::2]), z)
    np.testing.assert_allclose(project_matching(zp.astype(np.float32)), z, atol=1e-6)


def test_cvxpy_reference_info():
    zp = np.random.default_rng(1).normal(0.3, 1.0, size=(4, 5))
    z, info = project_matching_cvxpy(zp, return_info=True)
    assert info["solver"] == "OSQP" and info["polished"] in (True, False)
    np.testing.assert_allclose(z, project_matching(zp), atol=AGREE)
    z2 = project_matching_cvxpy(zp, solver="CLARABEL")
    np.testing.assert_allclose(z2, z, atol=1e-5)


# ---------------------------------------------------------------------------
# hypothesis properties of the projection
# ---------------------------------------------------------------------------

_values = st.one_of(
    st.floats(-4.0, 4.0, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 0.5, 1.0, -1.0, 2.0, 1.0 / 3.0]),
)
_matrices = arrays(np.float64, st.tuples(st.integers(1, 9), st.integers(1, 9)), elements=_values)


@HYP
@given(zp=_matrices, scale=st.sampled_from([1.0, 1.0, 1e-3, 1e3]))
def test_projection_feasible_and_optimal(zp, scale):
    zp = zp * scale
    z, info = project_matching(zp, return_info=True)
    assert_feasible(z)
    assert_kkt(zp, z, info)
    # same optimum as the min-cost-flow method (objective and point)
    zf = project_matching_flow(zp)
    assert_feasible(zf)
    tol = 1e-9 * scale_of(zp) * sum(zp.shape)
    assert abs(objective_gap(z, zf, zp)) <= tol
    assert np.abs(z - zf).max() <= AGREE
    # transposition symmetry
    np.testing.assert_allclose(project_matching(zp.T), z.T, rtol=0, atol=1e-9)


@HYP
@given(a=arrays(np.float64, st.tuples(st.integers(1, 10), st.integers(1, 10)),
                elements=st.floats(0.0, 1.0, allow_nan=False)))
def test_projection_idempotent_on_feasible_points(a):
    z0 = a / max(1.0, a.sum(axis=1).max(), a.sum(axis=0).max())  # a point of Z
    z = project_matching(z0)
    np.testing.assert_allclose(z, z0, rtol=0, atol=1e-12)
    # and projecting twice changes nothing
    zz = project_matching(2.0 * a - 0.5)
    np.testing.assert_allclose(project_matching(zz), zz, rtol=0, atol=1e-9)


@st.composite
def _partial_matchings(draw):
    m = draw(st.integers(1, 12))
    n = draw(st.integers(1, 12))
    rows = draw(st.permutations(range(m)))
    cols = draw(st.permutations(range(n)))
    k = draw(st.integers(0, min(m, n)))
    y = np.zeros((m, n))
    y[rows[:k], cols[:k]] = 1.0
    return y


@HYP
@given(y=_partial_matchings())
def test_projection_of_matching_is_itself(y):
    np.testing.assert_array_equal(project_matching(y), y)
    np.testing.assert_allclose(project_matching_flow(y), y, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------
# decoding: max-weight partial matching
# ---------------------------------------------------------------------------


def brute_force_value(s):
    """Best weight over all partial matchings (rows pick distinct columns or none)."""
    m, n = s.shape
    best = 0.0
    for choice in itertools.product(range(-1, n), repeat=m):
        used = [c for c in choice if c >= 0]
        if len(used) != len(set(used)):
            continue
        best = max(best, sum(s[j, c] for j, c in enumerate(choice) if c >= 0))
    return best


def assert_valid_decoding(s, y):
    assert y.shape == s.shape and y.dtype.kind == "i"
    assert set(np.unique(y)) <= {0, 1}
    assert y.sum(axis=1).max(initial=0) <= 1 and y.sum(axis=0).max(initial=0) <= 1
    assert np.all(s[y == 1] > 0.0)  # never a non-positive edge


_tiny_shapes = st.one_of(st.tuples(st.integers(1, 4), st.integers(1, 4)),
                         st.sampled_from([(3, 5), (5, 3)]))
_tiny_values = st.one_of(
    st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False),
    st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0]),
)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(s=arrays(np.float64, _tiny_shapes, elements=_tiny_values))
def test_decode_matches_brute_force(s):
    y = decode_matching(s)
    assert_valid_decoding(s, y)
    value = float((s * y).sum())
    tol = 1e-12 * (1.0 + np.abs(s).max()) * s.size
    assert abs(value - brute_force_value(s)) <= tol
    assert value == matching_lp_value(s)


@pytest.mark.parametrize("s, expected", [
    (np.full((4, 4), 0.7), 4 * 0.7),
    (np.full((3, 5), 2.0), 3 * 2.0),
    (np.zeros((4, 3)), 0.0),
    (-np.ones((3, 4)), 0.0),
    (np.array([[1.0, 1.0], [1.0, 1.0]]), 2.0),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), 4.0),
    (np.array([[3.0, 2.0], [2.0, -1.0]]), 4.0),
], ids=["equal-4x4", "equal-3x5", "zero", "negative", "ties-2x2", "anti-diagonal", "one-negative"])
def test_decode_ties_and_signs(s, expected):
    y = decode_matching(s)
    assert_valid_decoding(s, y)
    assert float((s * y).sum()) == pytest.approx(expected, abs=1e-12)
    assert matching_lp_value(s) == pytest.approx(expected, abs=1e-12)
    if expected == 0.0:
        assert y.sum() == 0


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (5, 5), (7, 12), (12, 7), (20, 20),
                                   (30, 17), (30, 30)])
def test_decode_matches_linear_sum_assignment(shape):
    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    for trial in range(3):
        s = rng.normal(0.0, 1.0, size=shape)
        if trial == 2:
            s = np.round(s, 1)  # many ties
        y = decode_matching(s)
        assert_valid_decoding(s, y)
        N = max(shape)
        padded = np.zeros((N, N))
        padded[: shape[0], : shape[1]] = np.maximum(s, 0.0)
        r, c = linear_sum_assignment(padded, maximize=True)
        best = float(padded[r, c].sum())
        value = float((s * y).sum())
        assert value == pytest.approx(best, abs=1e-9)
        assert matching_lp_value(s) == pytest.approx(best, abs=1e-9)


def test_decode_matches_lp_relaxation():
    """The LP over Z (scipy/HiGHS) has the same value (Z is integral)."""
    rng = np.random.default_rng(5)
    for shape in [(4, 6), (8, 8), (10, 7)]:
        s = rng.normal(0.2, 1.0, size=shape)
        m, n = shape
        A = np.vstack([np.kron(np.eye(m), np.ones((1, n))), np.kron(np.ones((1, m)), np.eye(n))])
        res = linprog(-s.ravel(), A_ub=A, b_ub=np.ones(m + n), bounds=(0, 1), method="highs")
        assert res.status == 0
        assert matching_lp_value(s) == pytest.approx(-res.fun, abs=1e-9)


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------

_BAD = {
    "nan": np.array([[0.5, np.nan], [1.0, 0.0]]),
    "inf": np.array([[np.inf, 0.0]]),
    "-inf": np.array([[0.0], [-np.inf]]),
    "1-D": np.array([0.1, 0.2, 0.3]),
    "3-D": np.zeros((2, 2, 2)),
    "scalar": np.float64(0.5),
    "strings": [["a", "b"]],
}
_FUNCS = {
    "project_matching": project_matching,
    "project_matching_flow": project_matching_flow,
    "project_matching_cvxpy": project_matching_cvxpy,
    "decode_matching": decode_matching,
    "matching_lp_value": matching_lp_value,
}


@pytest.mark.parametrize("bad", list(_BAD))
@pytest.mark.parametrize("func", list(_FUNCS))
def test_invalid_input_raises_value_error(func, bad):
    with pytest.raises(ValueError):
        _FUNCS[func](_BAD[bad])


def test_nan_message_is_specific():
    with pytest.raises(ValueError, match="NaN"):
        project_matching(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="infinite"):
        project_matching(np.array([[1.0, -np.inf]]))


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(s=arrays(np.float64, _tiny_shapes, elements=_tiny_values))
def test_hungarian_decoder_matches_brute_force(s):
    from structpred.polytopes.matching import decode_matching_hungarian

    y = decode_matching_hungarian(s)
    assert_valid_decoding(s, y)
    tol = 1e-12 * (1.0 + np.abs(s).max()) * s.size
    assert abs(float((s * y).sum()) - brute_force_value(s)) <= tol


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (5, 5), (7, 12), (12, 7), (20, 20),
                                   (30, 17), (30, 30), (0, 4)])
def test_hungarian_decoder_agrees_with_flow_decoder(shape):
    from structpred.polytopes.matching import decode_matching_hungarian

    rng = np.random.default_rng(shape[0] * 100 + shape[1] + 7)
    for trial in range(4):
        s = rng.normal(0.0, 1.0, size=shape)
        if trial == 2:
            s = np.round(s, 1)  # many ties: the same value, maybe another matching
        y, ref = decode_matching_hungarian(s), decode_matching(s)
        assert_valid_decoding(s, y)
        assert float((s * y).sum()) == pytest.approx(float((s * ref).sum()), abs=1e-9)
        if trial != 2:  # a unique optimum (continuous scores): the same links
            np.testing.assert_array_equal(y, ref)
