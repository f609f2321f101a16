"""Min-cut decoding and the min-cut polytope projection (structpred.mincut),
checked against brute force, networkx and cvxpy."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from structpred import MinCutExample, decode_mincut, decode_mincut_bruteforce, maxflow_available, mincut_constraints, mincut_score, project_mincut, project_mincut_cvxpy
from segmentation.features import grid_edges

BACKENDS = ["ortools", "networkx"] + (["maxflow"] if maxflow_available() else [])


@st.composite
def graphs(draw, max_nodes=12, with_edges_values=True):
    n = draw(st.integers(1, max_nodes))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=min(len(pairs), 30))) if pairs else []
    edges = np.array(chosen, dtype=np.int64).reshape(-1, 2)
    seed = draw(st.integers(0, 2**32 - 1))
    return n, edges, np.random.default_rng(seed)


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_decode_matches_brute_force(g):
    n, edges, rng = g
    s = rng.normal(size=n) * rng.choice([0.01, 1.0, 100.0])
    lam = rng.exponential(size=len(edges)) * rng.choice([0.0, 0.1, 1.0, 10.0])
    _, best = decode_mincut_bruteforce(s, lam, edges)
    tol = 1e-9 * (1 + np.abs(s).sum() + lam.sum())
    for backend in BACKENDS:
        y = decode_mincut(s, lam, edges, backend=backend)
        assert set(np.unique(y)) <= {0, 1}
        assert mincut_score(y, s, lam, edges) >= best - tol, backend


@pytest.mark.parametrize("seed", [2368, 7472])
def test_networkx_back_end_is_exact_where_float_capacities_failed(seed):
    """With float capacities networkx's max-flow returned cuts below the optimum on these
    random graphs (by 0.35 and 0.02); it now runs on integer capacities."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 13))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    idx = rng.choice(len(pairs), size=int(rng.integers(0, min(len(pairs), 12) + 1)),
                     replace=False)
    edges = np.array([pairs[i] for i in idx], dtype=np.int64).reshape(-1, 2)
    s = rng.normal(size=n) * rng.choice([0.01, 1.0, 100.0])
    lam = rng.exponential(size=len(edges)) * rng.choice([0.0, 0.1, 1.0, 10.0])
    _, best = decode_mincut_bruteforce(s, lam, edges)
    for backend in BACKENDS:
        y = decode_mincut(s, lam, edges, backend=backend)
        assert mincut_score(y, s, lam, edges) == pytest.approx(best, abs=1e-9), backend


def test_decode_on_grid_agrees_between_backends():
    rng = np.random.default_rng(3)
    e = grid_edges(15, 12)
    s = rng.normal(size=180)
    lam = rng.exponential(0.7, size=len(e))
    vals = [mincut_score(decode_mincut(s, lam, e, backend=b), s, lam, e) for b in BACKENDS]
    np.testing.assert_allclose(vals, vals[0], atol=1e-9)


def test_decode_rejects_negative_penalties():
    with pytest.raises(ValueError, match="non-negative"):
        decode_mincut([1.0, -1.0], [-0.5], [[0, 1]])


def _polytope_violation(zv, ze, edges):
    d = np.abs(zv[edges[:, 0]] - zv[edges[:, 1]]) if len(edges) else np.zeros(0)
    return max(0.0, -zv.min(), zv.max() - 1, *(d - ze), *(ze - 1), *(-ze))


def _assert_as_cvxpy(zv, ze, edges, ours, theirs):
    """Our projection ``ours`` against cvxpy's ``theirs``: cvxpy's interior point stops
    about 1e-6 from the optimum, relative to the data (a node at 1.05e-6 against our exact
    0 was seen), so the points agree to 1e-5 * scale, and our objective is never worse than
    cvxpy's, its point put into the polytope."""
    (a, b), (c, d) = ours, theirs
    scale = max(1.0, np.abs(zv).max(), np.abs(ze).max() if len(ze) else 0.0)
    np.testing.assert_allclose(a, c, atol=1e-5 * scale)
    np.testing.assert_allclose(b, d, atol=1e-5 * scale)
    obj = lambda x, y: 0.5 * np.sum((x - zv) ** 2) + 0.5 * np.sum((y - ze) ** 2)  # noqa: E731
    cc = np.clip(c, 0, 1)
    dd = np.clip(np.maximum(d, np.abs(cc[edges[:, 0]] - cc[edges[:, 1]])) if len(edges) else d, 0, 1)
    assert obj(a, b) <= obj(cc, dd) + 1e-12


@settings(max_examples=40, deadline=None)
@given(graphs(max_nodes=10))
def test_projection_matches_cvxpy_on_random_graphs(g):
    n, edges, rng = g
    zv = rng.normal(0.5, 1.0, n)
    ze = rng.normal(-0.2, 1.0, len(edges))
    a, b = project_mincut(zv, ze, edges, tol=1e-12)
    c, d = project_mincut_cvxpy(zv, ze, edges)
    assert _polytope_violation(a, b, edges) <= 1e-12
    _assert_as_cvxpy(zv, ze, edges, (a, b), (c, d))


@pytest.mark.parametrize("kind", ["random", "training-like"])
def test_projection_matches_cvxpy_on_grid(kind):
    rng = np.random.default_rng(0)
    e = grid_edges(12, 10)
    if kind == "random":
        zv, ze = rng.normal(0.5, 1, 120), rng.normal(0, 1, len(e))
    else:
        y = (rng.random(120) < 0.3).astype(float)
        zv, ze = y + 0.1 + 0.05 * rng.normal(size=120), -0.05 * rng.exponential(size=len(e))
    a, b = project_mincut(zv, ze, e, tol=1e-12)
    c, d = project_mincut_cvxpy(zv, ze, e)
    np.testing.assert_allclose(a, c, atol=1e-6)
    np.testing.assert_allclose(b, d, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(graphs(max_nodes=10))
def test_projection_fixes_polytope_points_and_warm_start(g):
    n, edges, rng = g
    y = rng.integers(0, 2, n).astype(float)
    zv = rng.random(n) * 0.5 + 0.25 * y
    ze = np.abs(zv[edges[:, 0]] - zv[edges[:, 1]]) + rng.random(len(edges)) * 0.1 if len(edges) else np.zeros(0)
    ze = np.minimum(ze, 1.0)
    a, b = project_mincut(zv, ze, edges)
    np.testing.assert_allclose(a, zv, atol=1e-9)
    np.testing.assert_allclose(b, ze, atol=1e-9)
    # any warm start gives the same projection
    zp, zq = rng.normal(0.5, 1, n), rng.normal(-0.3, 1, len(edges))
    a1, b1 = project_mincut(zp, zq, edges, tol=1e-12)
    a2, b2 = project_mincut(zp, zq, edges, tol=1e-12, p0=rng.normal(size=len(edges)))
    np.testing.assert_allclose(a1, a2, atol=1e-8)
    np.testing.assert_allclose(b1, b2, atol=1e-8)


def _random_example(rng, n=7, dn=3, de=2, cost_neg=2.0):
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    edges = pairs[rng.random(len(pairs)) < 0.4]
    X = rng.normal(size=(n, dn))
    Xe = rng.random((len(edges), de))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return MinCutExample.from_features(X, Xe, edges, y, cost_pos=1.0, cost_neg=cost_neg)


def test_example_layout_and_lp_decoding():
    from scipy.optimize import linprog

    rng = np.random.default_rng(1)
    ex = _random_example(rng)
    A, b = ex.constraints()
    assert np.all(A @ ex.z_gold <= b + 1e-12)
    # edge variables cost nothing; edge columns hold -f_e
    n = ex.n_nodes
    assert np.all(ex.c[n:] == 0)
    assert (ex.F[:, n:].toarray() <= 0).all()
    for _ in range(5):
        w = rng.normal(size=ex.n_features)
        w[3:] = np.abs(w[3:])
        s = ex.loss_augmented_scores(w)
        z = ex.decode_scores(s)
        lp = linprog(-s, A_ub=A.toarray(), b_ub=b, bounds=[(0, 1)] * ex.n_vars, method="highs")
        assert s @ z >= -lp.fun - 1e-8
        assert np.all(A @ z <= 1e-12)


def test_dual_extragradient_reaches_qp_and_keeps_edge_weights_nonnegative():
    from structpred import dual_extragradient_streaming
    from structpred import Monitor, structured_hinge_loss
    from structpred import L2Ball
    from structpred import solve_saddle_qp
    from structpred import averaged_perceptron, averaged_projected_gradient

    rng = np.random.default_rng(2)
    examples = [_random_example(rng) for _ in range(4)]
    W = L2Ball(radius=2.0, nonneg=(3, 4))
    qp = solve_saddle_qp(examples, W)
    seen = []
    mon = Monitor(callback=lambda t, w, rec: seen.append(np.array(w)) and False)
    res = dual_extragradient_streaming(examples, W, n_iter=1500, monitor=mon)
    gap = structured_hinge_loss(examples, res.w) - qp.info["hinge"]
    assert -1e-5 <= gap < 0.01 * qp.info["hinge"] + 1e-3
    assert min(float(w[3:].min()) for w in seen) >= 0.0
    for learner in (averaged_projected_gradient, averaged_perceptron):
        seen.clear()
        kw = {"n_iter": 50} if learner is averaged_projected_gradient else {"n_epochs": 20}
        r = learner(examples, W=W, monitor=Monitor(callback=lambda t, w, rec: seen.append(np.array(w)) and False), **kw)
        assert r.w[3:].min() >= 0.0
        assert min(float(w[3:].min()) for w in seen) >= 0.0


def test_example_rejects_bad_edges_and_features():
    with pytest.raises(ValueError, match="non-negative"):
        MinCutExample.from_features(np.ones((2, 1)), [[-1.0]], [[0, 1]], [0, 1])
    with pytest.raises(ValueError, match="self-loops"):
        MinCutExample.from_features(np.ones((2, 1)), [[1.0]], [[1, 1]], [0, 1])
    with pytest.raises(ValueError, match="0/1"):
        MinCutExample.from_features(np.ones((2, 1)), [[1.0]], [[0, 1]], [0, 2])


# ------------------------------------------ exact active-set projection
def _projection_cases(rng, n, edges, kind):
    m = len(edges)
    if kind == "random":
        return rng.normal(0.5, 1.0, n), rng.normal(0.0, 1.0, m)
    if kind == "training-like":
        y = (rng.random(n) < 0.4).astype(float)
        return y + 0.1 + 0.05 * rng.normal(size=n), -0.05 * rng.exponential(size=m)
    if kind == "ties":  # all-equal node values, equal edge values: one fused group
        return np.full(n, 0.3), np.full(m, -0.2)
    if kind == "outside":  # far outside the box, mixed edge signs
        return rng.normal(0.5, 5.0, n), rng.normal(0.0, 3.0, m)
    if kind == "rounded":  # values on a coarse lattice: many exact ties
        return np.round(rng.normal(0.5, 0.6, n), 1), np.round(rng.normal(-0.1, 0.3, m), 1)
    raise ValueError(kind)


@settings(max_examples=60, deadline=None)
@given(graphs(max_nodes=12), st.sampled_from(["random", "training-like", "ties", "outside", "rounded"]))
def test_active_set_is_exact_against_cvxpy_on_random_graphs(g, kind):
    n, edges, rng = g
    zv, ze = _projection_cases(rng, n, edges, kind)
    a, b, info = project_mincut(zv, ze, edges, return_info=True)
    c, d = project_mincut_cvxpy(zv, ze, edges)
    assert info["exact"] and info["kkt_residual"] < 1e-10 * max(1.0, np.abs(zv).max())
    assert _polytope_violation(a, b, edges) <= 1e-12
    _assert_as_cvxpy(zv, ze, edges, (a, b), (c, d))


@pytest.mark.parametrize("kind", ["random", "training-like", "ties", "outside", "rounded"])
def test_active_set_is_exact_against_cvxpy_on_grids(kind):
    rng = np.random.default_rng(11)
    e = grid_edges(20, 15)
    zv, ze = _projection_cases(rng, 300, e, kind)
    # few sweeps, so that the structure updates (merge, split, bounds) do the work
    a, b, info = project_mincut(zv, ze, e, return_info=True, sweeps=5, max_steps=200)
    scale = max(1.0, np.abs(zv).max(), np.abs(ze).max())
    assert info["exact"] and info["kkt_residual"] < 1e-10 * scale
    c, d = project_mincut_cvxpy(zv, ze, e)
    # cvxpy's interior point is accurate relative to the size of the data (up
    # to ~15 for "outside"), so the comparison tolerance is 1e-6 * scale;
    # our objective is never worse than cvxpy's
    np.testing.assert_allclose(a, c, atol=1e-6 * scale)
    np.testing.assert_allclose(b, d, atol=1e-6 * scale)
    obj = lambda x, y: 0.5 * np.sum((x - zv) ** 2) + 0.5 * np.sum((y - ze) ** 2)  # noqa: E731
    assert obj(a, b) <= obj(np.clip(c, 0, 1), np.maximum(d, np.abs(c[e[:, 0]] - c[e[:, 1]]))) + 1e-12
    # the coordinate ascent alone agrees
    a2, b2 = project_mincut(zv, ze, e, method="sweeps", tol=1e-12)
    np.testing.assert_allclose(a, a2, atol=1e-8)


def test_active_set_kkt_certificate_and_bad_method():
    rng = np.random.default_rng(5)
    e = grid_edges(30, 30)
    y = np.zeros((30, 30))
    y[8:22, 5:20] = 1.0
    zv = y.ravel() + 0.1 + 0.05 * rng.normal(size=900)
    ze = -0.05 * rng.exponential(size=len(e))
    a, b, info = project_mincut(zv, ze, e, return_info=True, sweeps=10, max_steps=200)
    assert info["exact"] and info["kkt_residual"] < 1e-10
    # the certificate: z = clip(z' - D'p) and the edge conditions hold for the returned flows
    p = info["flows"]
    u = zv.copy()
    np.subtract.at(u, e[:, 0], p)
    np.add.at(u, e[:, 1], p)
    assert np.abs(a - np.clip(u, 0, 1)).max() < 1e-10
    dd = a[e[:, 0]] - a[e[:, 1]]
    fused = np.abs(dd) < 1e-12
    assert np.all(np.abs(p[fused]) <= -ze[fused] + 1e-12)
    np.testing.assert_allclose(p[~fused], dd[~fused] + np.sign(dd[~fused]) * (-ze[~fused]), atol=1e-10)
    with pytest.raises(ValueError, match="method"):
        project_mincut(zv, ze, e, method="newton")


def test_example_project_uses_exact_method_with_warm_start():
    rng = np.random.default_rng(4)
    e = grid_edges(8, 9)
    n = 72
    y = (rng.random(n) < 0.5).astype(int)
    ex = MinCutExample.from_features(rng.normal(size=(n, 3)), rng.random((len(e), 2)), e, y)
    for _ in range(3):  # repeated projections reuse the flows of the previous ones
        z = ex.z_gold + 0.3 * rng.normal(size=ex.n_vars)
        zv, ze = ex.split(ex.project(z))
        c, d = project_mincut_cvxpy(*ex.split(z), e)
        np.testing.assert_allclose(zv, c, atol=1e-6)
        np.testing.assert_allclose(ze, d, atol=1e-6)


def _ortools_maxflow(n, tails, heads, caps, tr):
    from ortools.graph.python import max_flow

    smf = max_flow.SimpleMaxFlow()
    src, snk = n, n + 1
    t = list(tails) + [src] * int((tr > 0).sum()) + list(np.flatnonzero(tr < 0)) + [src]
    h = list(heads) + list(np.flatnonzero(tr > 0)) + [snk] * int((tr < 0).sum()) + [snk]
    c = list(caps) + list(tr[tr > 0]) + list(-tr[tr < 0]) + [0]
    smf.add_arcs_with_capacity(np.array(t), np.array(h), np.array(c, dtype=np.int64))
    assert smf.solve(src, snk) == smf.OPTIMAL
    side = np.zeros(n + 2, bool)
    side[smf.get_source_side_min_cut()] = True
    return smf.optimal_flow(), side[:n]


@pytest.mark.parametrize("seed", range(40))
def test_boykov_kolmogorov_maxflow_matches_ortools(seed):
    """The projection's Boykov-Kolmogorov max-flow: same flow value and the same
    (minimal) source side as OR-Tools, a feasible flow, on random graphs and grids."""
    from structpred.polytopes.mincut._bk_maxflow import _bk_maxflow

    rng = np.random.default_rng(seed)
    if seed % 2:
        side = int(rng.integers(2, 9))
        e = grid_edges(side, side)
        n = side * side
    else:
        n = int(rng.integers(2, 25))
        e = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.3]
        if not e:
            e = [(0, 1)]
    e = np.asarray(e, np.int64)
    m = len(e)
    tails = np.empty(2 * m, np.int64)
    heads = np.empty(2 * m, np.int64)
    tails[0::2], heads[0::2] = e[:, 0], e[:, 1]
    tails[1::2], heads[1::2] = e[:, 1], e[:, 0]
    caps = rng.integers(0, 6, size=2 * m).astype(np.int64)
    tr = rng.integers(-8, 9, size=n).astype(np.int64)
    cap0, tr0 = caps.copy(), tr.copy()
    flow, in_s = _bk_maxflow(n, tails, heads, caps, tr)
    ref_flow, ref_side = _ortools_maxflow(n, tails, heads, cap0, tr0)
    assert flow == ref_flow
    np.testing.assert_array_equal(in_s, ref_side)
    # residuals describe a feasible flow: capacity and conservation
    assert np.all(caps >= 0) and np.all(caps[0::2] + caps[1::2] == cap0[0::2] + cap0[1::2])
    net = np.zeros(n, np.int64)
    f = cap0[0::2] - caps[0::2]
    np.add.at(net, e[:, 0], f)
    np.subtract.at(net, e[:, 1], f)
    terminal = tr0 - tr   # flow in from the source (> 0) or out to the sink (< 0)
    np.testing.assert_array_equal(net, terminal)
    assert np.all(np.sign(tr) * np.sign(tr0) >= 0)


def test_projection_same_with_both_internal_maxflows():
    rng = np.random.default_rng(5)
    side = 30
    e = grid_edges(side, side)
    yy, xx = np.mgrid[0:side, 0:side] / side
    zv = (((xx - 0.4) ** 2 + (yy - 0.6) ** 2) < 0.1).astype(float).ravel() + 0.1 \
        + 0.05 * rng.normal(size=side * side)
    ze = -0.05 * rng.exponential(size=len(e))
    out = {}
    for backend in ("bk", "ortools"):
        out[backend] = project_mincut(zv, ze, e, return_info=True, flow_backend=backend)
        assert out[backend][2]["exact"]
    np.testing.assert_allclose(out["bk"][0], out["ortools"][0], atol=1e-9)
    c, _ = project_mincut_cvxpy(zv, ze, e)
    np.testing.assert_allclose(out["bk"][0], c, atol=1e-6)
