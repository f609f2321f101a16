"""The core on matching examples (the alignment polytope), with synthetic data
whose optimum we can check independently: the cvxpy QP of eq. 2.15."""

import multiprocessing
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from structpred import dual_extragradient, dual_extragradient_streaming
from structpred import Monitor, structured_hinge_loss
from structpred import L2Ball
from structpred import MatchingExample
from structpred import solve_saddle_qp


def make_matching_data(n_examples=6, d=5, seed=0):
    rng = np.random.default_rng(seed)
    w_true = rng.normal(size=d)
    out = []
    for _ in range(n_examples):
        m, n = rng.integers(2, 6, size=2)
        F = rng.normal(size=(d, m * n))
        F[rng.random(F.shape) < 0.3] = 0.0
        scores = (w_true @ F).reshape(m, n) + 0.5 * rng.normal(size=(m, n))
        from structpred import decode_matching
        z = decode_matching(scores).ravel()
        out.append(MatchingExample(F=sp.csr_matrix(F), z_gold=z, cost_pos=1.0, cost_neg=3.0,
                                   shape=(int(m), int(n))))
    return out


def _trace(store):
    def cb(t, w, record):
        store.append(np.array(w))
        return False
    return cb


@pytest.mark.parametrize("radius", [np.inf, 1.5])
def test_streaming_equals_full_state_on_matchings(radius):
    examples = make_matching_data()
    W = L2Ball(radius=radius)
    a, b = [], []
    dual_extragradient(examples, W, n_iter=60, monitor=Monitor(callback=_trace(a)))
    dual_extragradient_streaming(examples, W, n_iter=60, monitor=Monitor(callback=_trace(b)))
    assert len(a) == len(b) == 60
    np.testing.assert_allclose(np.array(a), np.array(b), atol=1e-8, rtol=0)


def test_dual_extragradient_reaches_qp_on_matchings():
    examples = make_matching_data(n_examples=8, seed=1)
    W = L2Ball(radius=1.0)
    qp = solve_saddle_qp(examples, W)
    res = dual_extragradient_streaming(examples, W, n_iter=3000)
    gap = structured_hinge_loss(examples, res.w) - qp.info["hinge"]
    assert -1e-5 <= gap < 0.01 * qp.info["hinge"] + 1e-3


def test_examples_pickle_and_map_can_be_sharded():
    examples = make_matching_data(seed=2)
    clone = pickle.loads(pickle.dumps(examples))
    ref = dual_extragradient_streaming(examples, n_iter=20)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        res = dual_extragradient_streaming(clone, n_iter=20, map_fn=pool.imap)
    np.testing.assert_allclose(res.w, ref.w, atol=1e-12)


def test_matching_example_checks_input():
    with pytest.raises(ValueError, match="NaN"):
        MatchingExample(F=sp.csr_matrix(np.array([[np.nan, 1.0]])), z_gold=np.array([1.0, 0.0]),
                        shape=(1, 2))
    with pytest.raises(ValueError, match="entries"):
        MatchingExample(F=sp.csr_matrix(np.ones((1, 3))), z_gold=np.ones(3), shape=(1, 2))
