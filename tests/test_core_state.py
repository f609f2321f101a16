"""The core keeps no hidden state between models, and fails loudly on real errors."""

import numpy as np
import pytest

from structpred import ExtendedMatchingExample, adjacent_pairs, decode_mincut
from structpred.polytopes.matching._cvxpy import _cvxpy_problem
from structpred.polytopes.matching._projection import _lu_solve


@pytest.mark.parametrize("n", [1, 2, 5, 17])
def test_lu_solve_matches_numpy(n):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n)) + n * np.eye(n)
    b = rng.normal(size=n)
    x, ok = _lu_solve(A.copy(), b.copy())
    assert ok
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-10, atol=1e-12)


def test_lu_solve_reports_only_singularity():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    _, ok = _lu_solve(A.copy(), np.ones(2))
    assert not ok


def test_cvxpy_problem_cache_is_bounded():
    info = _cvxpy_problem.cache_info()
    assert info.maxsize is not None and info.maxsize <= 64


def _qap_example(seed):
    rng = np.random.default_rng(seed)
    shape = (3, 3)
    pairs, _ = adjacent_pairs(*shape)
    n = shape[0] * shape[1] + len(pairs)
    F = np.abs(rng.normal(size=(4, n)))
    import scipy.sparse as sp

    return ExtendedMatchingExample(F=sp.csr_matrix(F), z_gold=np.zeros(n), shape=shape,
                                   max_fertility=1, pairs=pairs)


def test_qap_projection_state_belongs_to_each_example():
    a, b = _qap_example(0), _qap_example(1)
    z = np.random.default_rng(2).normal(size=a.z_gold.size)
    pa, pb = a.project(z), b.project(z)
    np.testing.assert_allclose(pa, pb, atol=1e-4)
    assert a.projector is not None and a.projector is not b.projector
    # a fresh example gives the same projection whatever was projected before
    c = _qap_example(0)
    np.testing.assert_allclose(c.project(z), pa, atol=1e-4)


def test_mincut_default_backend_is_fixed():
    import inspect

    assert inspect.signature(decode_mincut).parameters["backend"].default == "ortools"
    with pytest.raises(ValueError):
        decode_mincut(np.ones(2), np.ones(1), np.array([[0, 1]]), backend="auto")


def test_the_transposed_features_follow_F_and_are_not_pickled():
    """``F_T`` is made once per ``F`` (a new ``F`` gets its own) and left out of pickles."""
    import pickle

    import numpy as np
    import scipy.sparse as sp

    from structpred import MatchingExample

    rng = np.random.default_rng(0)
    F = sp.csr_matrix(rng.random((5, 4)) * (rng.random((5, 4)) < 0.5))
    ex = MatchingExample(F, np.array([1.0, 0, 0, 1.0]), shape=(2, 2))
    w = rng.random(5)
    assert ex.F_T is ex.F_T
    assert np.array_equal(ex.scores(w), np.asarray(F.T @ w).ravel())
    ex.F = sp.csr_matrix(2.0 * F.toarray())
    assert np.array_equal(ex.scores(w), 2.0 * np.asarray(F.T @ w).ravel())
    state = pickle.loads(pickle.dumps(ex)).__dict__
    assert "_F_T" not in state
