"""The saddle-point core on a problem with known structure (multiclass = simplex)."""

import gc
import tracemalloc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp

from structpred import dual_extragradient, dual_extragradient_streaming
from structpred import hamming_loss, weighted_hamming_terms
from structpred import Monitor, structured_hinge_loss
from structpred import L2Ball
from structpred import SimplexExample, project_simplex
from structpred import regularization_path, solve_saddle_qp
from structpred import averaged_perceptron, averaged_projected_gradient, subgradient_method
from structpred import ExampleStream, power_iteration_norm


def make_example(x, label, n_classes, geometry="euclidean", cost=1.0):
    F = sp.kron(sp.eye(n_classes), sp.csr_matrix(x.reshape(-1, 1)))
    z = np.zeros(n_classes)
    z[label] = 1
    return SimplexExample(F=F, z_gold=z, cost_pos=cost, cost_neg=cost, geometry=geometry)


def make_data(m=30, p=4, k=3, seed=0, geometry="euclidean", noise=1.0):
    centers = np.random.default_rng(12345).normal(size=(k, p)) * 2
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=m)
    X = centers[y] + noise * rng.normal(size=(m, p))
    return [make_example(X[i], y[i], k, geometry) for i in range(m)]


def test_weighted_hamming_terms_match_definition():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 20).astype(float)
    yp = rng.integers(0, 2, 20).astype(float)
    direct = np.sum(3.0 * y * (1 - yp) + 1.0 * yp * (1 - y))  # eq. 2.10, c+=1, c-=3
    assert hamming_loss(y, yp, 1.0, 3.0) == pytest.approx(direct)
    c, d = weighted_hamming_terms(y, 1.0, 3.0)
    assert d + c @ y == pytest.approx(0.0)  # the target has zero loss


def test_l2ball_projection_exact_vs_cvxpy():
    import cvxpy as cp

    rng = np.random.default_rng(2)
    for _ in range(5):
        v = rng.normal(size=8) * 3
        ball = L2Ball(radius=1.5, nonneg=(0, 3, 5))
        w = cp.Variable(8)
        cp.Problem(cp.Minimize(cp.sum_squares(w - v)),
                   [cp.norm(w, 2) <= 1.5, w[[0, 3, 5]] >= 0]).solve(solver="CLARABEL")
        mine = ball.project(v)
        assert ball.contains(mine, tol=1e-12)
        # exact: never worse than the interior-point solution, and the same point
        assert np.sum((mine - v) ** 2) <= np.sum((w.value - v) ** 2) + 1e-9
        np.testing.assert_allclose(mine, w.value, atol=2e-4)
    assert np.allclose(L2Ball().project(v), v)


def test_simplex_projection_vs_cvxpy():
    import cvxpy as cp

    rng = np.random.default_rng(3)
    v = rng.normal(size=6) * 2
    z = cp.Variable(6)
    cp.Problem(cp.Minimize(cp.sum_squares(z - v)), [z >= 0, cp.sum(z) == 1]).solve(solver="CLARABEL")
    np.testing.assert_allclose(project_simplex(v), z.value, atol=1e-6)


def test_power_iteration_matches_dense_svd():
    examples = make_data(m=12)
    B = sp.hstack([ex.F for ex in examples]).toarray()
    assert power_iteration_norm(examples, n_iter=500, tol=1e-12) == pytest.approx(
        np.linalg.norm(B, 2), rel=1e-6)


def _trace(result_holder):
    def cb(t, w, rec):
        result_holder.append(np.array(w))
        return False
    return cb


@pytest.mark.parametrize("geometry", ["euclidean", "entropy"])
@pytest.mark.parametrize("radius", [np.inf, 0.7])
def test_streaming_iterates_equal_full_state(geometry, radius):
    examples = make_data(m=15, geometry=geometry)
    W = L2Ball(radius=radius, nonneg=(0,))
    a, b = [], []
    r1 = dual_extragradient(examples, W, n_iter=40, monitor=Monitor(callback=_trace(a)))
    r2 = dual_extragradient_streaming(examples, W, n_iter=40, monitor=Monitor(callback=_trace(b)))
    assert len(a) == len(b) == 40
    for wa, wb in zip(a, b):
        np.testing.assert_allclose(wa, wb, atol=1e-8, rtol=0)
    np.testing.assert_allclose(r1.w, r2.w, atol=1e-8)
    assert r1.info["eta"] == r2.info["eta"]


def test_dual_extragradient_converges_to_qp_optimum():
    examples = make_data(m=20, noise=2.0, seed=4)
    W = L2Ball(radius=1.0)
    qp = solve_saddle_qp(examples, W)
    gaps = []
    for n_iter in (500, 2000):
        res = dual_extragradient_streaming(examples, W, n_iter=n_iter)
        assert np.linalg.norm(res.w) <= 1.0 + 1e-9
        gaps.append(structured_hinge_loss(examples, res.w) - qp.info["hinge"])
    # the gap bound (eq. 2.19) decays as O(1/t): 4x the iterations, ~1/4 the gap
    assert -1e-6 <= gaps[1] < 0.35 * gaps[0]
    assert gaps[1] < 0.005 * qp.info["hinge"]


def test_bregman_dual_extragradient_reaches_qp_optimum():
    examples = make_data(m=20, noise=2.0, seed=4, geometry="entropy")
    W = L2Ball(radius=1.0)
    qp = solve_saddle_qp(examples, W)
    gaps = []
    for n_iter in (500, 2000):
        res = dual_extragradient_streaming(examples, W, n_iter=n_iter)
        gaps.append(structured_hinge_loss(examples, res.w) - qp.info["hinge"])
    assert -1e-6 <= gaps[1] < 0.35 * gaps[0]
    assert gaps[1] < 0.02 * qp.info["hinge"]


def test_regularization_path_is_monotone():
    examples = make_data(m=15, noise=2.0, seed=5)
    path = regularization_path(examples, [0.1, 0.5, 2.0])
    hinges = [r.info["hinge"] for r in path]
    assert hinges[0] >= hinges[1] >= hinges[2] - 1e-6
    for r, g in zip(path, [0.1, 0.5, 2.0]):
        assert np.linalg.norm(r.w) <= g * (1 + 1e-5)


def test_reference_learners_reduce_hinge_and_select_on_validation():
    train = make_data(m=40, seed=6)
    valid = make_data(m=40, seed=7)

    def valid_error(w):
        return np.mean([not np.allclose(ex.decode(w), ex.z_gold) for ex in valid])

    h0 = structured_hinge_loss(train, np.zeros(train[0].n_features))
    for run in (
        lambda mon: averaged_projected_gradient(train, n_iter=50, monitor=mon),
        lambda mon: averaged_perceptron(train, n_epochs=5, monitor=mon, random_state=0),
        lambda mon: subgradient_method(train, n_iter=50, monitor=mon),
        lambda mon: dual_extragradient_streaming(train, n_iter=50, monitor=mon),
    ):
        mon = Monitor(every=5, hinge=True, validation=valid_error)
        res = run(mon)
        assert res.history["hinge"][-1] < h0
        assert res.best_score == min(res.history["validation"])
        assert res.best_score < 0.25
        assert res.success


def test_perceptron_is_deterministic_given_seed():
    train = make_data(m=20, seed=8)
    a = averaged_perceptron(train, n_epochs=3, random_state=3).w
    b = averaged_perceptron(train, n_epochs=3, random_state=3).w
    np.testing.assert_array_equal(a, b)


class _LiveCounter:
    def __init__(self):
        self.live = 0
        self.peak = 0

    def born(self, obj):
        self.live += 1
        self.peak = max(self.peak, self.live)
        weakref.finalize(obj, self._died)

    def _died(self):
        self.live -= 1


def _stream(m, counter, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(3, 4)) * 2
    labels = rng.integers(0, 3, size=m)

    def factory():
        for i in range(m):
            x = centers[labels[i]] + np.random.default_rng(1000 + i).normal(size=4)
            ex = make_example(x, labels[i], 3)
            counter.born(ex)
            yield ex
    return ExampleStream(factory, length=m)


def _streaming_peaks(ms=(20, 400)):
    """Peak traced memory of the streaming learner on ``m`` examples, for each ``m``, and
    the most examples alive at once."""
    peaks, alive = {}, 0
    for m in ms:
        counter = _LiveCounter()
        stream = _stream(m, counter)
        gc.collect()
        tracemalloc.start()
        dual_extragradient_streaming(stream, n_iter=3)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks[m] = peak
        alive = max(alive, counter.peak)
    return peaks, alive


def test_streaming_state_does_not_grow_with_m():
    # in a fresh interpreter: tracemalloc counts every thread's allocations, and a test
    # process that ran other test files may hold threads of its own (one gave 664 kB
    # against 256 kB on the loaded CI machine)
    import concurrent.futures
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        peaks, alive = pool.submit(_streaming_peaks).result(timeout=600)
    # never more than the example being processed (plus one awaiting GC)
    assert alive <= 2
    # 20x more examples, same peak memory up to allocator noise
    assert peaks[400] < 1.5 * peaks[20] + 50_000
