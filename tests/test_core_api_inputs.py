"""The core's public functions refuse inputs that disagree with themselves, by name.

Before these checks ``chain_viterbi``/``chain_marginals`` with ``starts`` that did not
cover the tokens returned uninitialised memory, NaN potentials gave NaN marginals, a
potential of 1e308 gave marginals that did not sum to one, ``ChainExample(y=[0, 0.5])``
cut 0.5 to label 0, ``repr(ChainExample)`` raised AttributeError, a negative
``regularization`` ran the subgradient method on an unbounded objective, and examples of
two feature widths failed inside numpy's matmul.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import given, settings, strategies as st

import structpred as sp
from structpred._checks import whole_array


def _chain(lengths, K=3, seed=0):
    rng = np.random.default_rng(seed)
    N = int(sum(lengths))
    starts = np.concatenate([[0], np.cumsum(lengths)])
    return rng.normal(size=(N, K)), rng.normal(size=(N - len(lengths), K, K)), starts


@settings(max_examples=40, deadline=None)
@given(lengths=st.lists(st.integers(1, 5), min_size=1, max_size=4),
       shift=st.integers(-3, 3).filter(lambda s: s != 0),
       where=st.sampled_from(["first", "last", "order"]))
def test_starts_that_do_not_cover_the_tokens_are_refused(lengths, shift, where):
    node, edge, starts = _chain(lengths)
    bad = starts.copy()
    if where == "first":
        bad[0] += shift
    elif where == "last":
        bad[-1] += shift
    elif len(bad) > 2:
        bad[1], bad[2] = bad[2], bad[1]
    else:
        bad = np.array([0, 0, bad[-1]])
    for fn in (sp.chain_marginals, sp.chain_viterbi):
        with pytest.raises(ValueError, match="starts"):
            fn(node, edge, bad)


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.integers(1, 5), min_size=1, max_size=4),
       value=st.sampled_from([np.nan, np.inf, 1e200, -1e200]),
       in_edge=st.booleans(), data=st.data())
def test_nan_infinite_or_huge_potentials_are_refused(lengths, value, in_edge, data):
    node, edge, starts = _chain(lengths)
    target = edge if in_edge and edge.size else node
    i = data.draw(st.integers(0, target.size - 1))
    target.flat[i] = value
    for fn in (sp.chain_marginals, sp.chain_viterbi):
        with pytest.raises(ValueError, match="potentials"):
            fn(node, edge, starts)


def test_minus_infinity_forbids_labels_but_not_every_labelling():
    node, edge, starts = _chain([3])
    node[1, 0] = -np.inf
    nm, em, logz = sp.chain_marginals(node, edge, starts)
    assert nm[1, 0] == 0.0 and np.allclose(nm.sum(1), 1.0) and np.isfinite(logz).all()
    assert sp.chain_viterbi(node, edge, starts)[0][1] != 0
    node[1, :] = -np.inf
    for fn in (sp.chain_marginals, sp.chain_viterbi):
        with pytest.raises(ValueError, match="no labelling of finite score"):
            fn(node, edge, starts)


@pytest.mark.parametrize("edge_shape", [(3, 3, 3), (1, 3, 3), (2, 3), (2, 2, 3, 3)])
def test_edge_arrays_of_the_wrong_shape_are_refused(edge_shape):
    node, _, starts = _chain([3])
    with pytest.raises(ValueError, match="edge must have shape"):
        sp.chain_marginals(node, np.zeros(edge_shape), starts)
    with pytest.raises(ValueError, match="edge must have shape"):
        sp.tree_marginals(node, np.zeros(edge_shape), [-1, 0, 1])


def test_a_tree_with_one_edge_potential_per_node_is_refused():
    # n nodes have n - 1 edges; an (n, K, K) array was read as its first n - 1 silently
    with pytest.raises(ValueError, match=r"\(2, 2, 2\)"):
        sp.tree_map(np.zeros((3, 2)), np.zeros((3, 2, 2)), [-1, 0, 0])


def test_chain_example_repr_and_integer_labels():
    x = sps.csr_matrix(np.eye(3))
    ex = sp.ChainExample(x, [2, 1], y=[0, 1, 0], n_labels=2)
    assert repr(ex).startswith("ChainExample(n_chains=2, n_tokens=3, n_labels=2")
    assert np.array_equal(sp.ChainExample(x, [2.0, 1.0], y=[0.0, 1.0, 0.0]).y, [0, 1, 0])
    with pytest.raises(ValueError, match="y must hold integers, got 0.5"):
        sp.ChainExample(x, [2, 1], y=[0, 0.5, 0], n_labels=2)
    with pytest.raises(ValueError, match="lengths must hold integers"):
        sp.ChainExample(x, [1.5, 1.5], y=[0, 1, 0], n_labels=2)
    with pytest.raises(ValueError, match="n_labels must be an integer"):
        sp.ChainExample(x, [2, 1], y=[0, 1, 0], n_labels=2.5)
    x_nan = sps.csr_matrix(np.array([[np.nan, 0, 0], [0, 1, 0], [0, 0, 1]]))
    with pytest.raises(ValueError, match="NaN"):
        sp.ChainExample(x_nan, [2, 1], y=[0, 1, 0], n_labels=2)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(-10, 10), st.floats(allow_nan=True),
                          st.booleans(), st.text(max_size=2)), max_size=6))
def test_whole_array_keeps_whole_numbers_and_names_the_first_other_entry(values):
    # numpy reads [0, False] as integers before any check sees it; all-bool lists are refused
    if any(isinstance(v, bool) for v in values) and not all(isinstance(v, bool) for v in values):
        values = [v for v in values if not isinstance(v, bool)]
    def whole(v):
        return (not isinstance(v, (bool, str)) and abs(v) <= 2 ** 53 and v == int(v))
    if all(whole(v) for v in values):
        assert whole_array("y", values).tolist() == [int(v) for v in values]
    else:
        with pytest.raises(ValueError, match="y must hold integers"):
            whole_array("y", values)


def _matching(width):
    F = sps.csr_matrix(np.arange(1, 4 * width + 1, dtype=float).reshape(width, 4))
    return sp.MatchingExample(F, np.array([1.0, 0, 0, 1]), shape=(2, 2))


@pytest.mark.parametrize("learner", [sp.dual_extragradient, sp.averaged_projected_gradient,
                                     sp.subgradient_method])
def test_examples_of_two_feature_widths_are_refused_by_index(learner):
    with pytest.raises(ValueError, match="example 1 has 3 features and example 0 has 2"):
        learner([_matching(2), _matching(3)], n_iter=2)


@pytest.mark.parametrize("kwargs, match", [
    ({"regularization": -1.0}, "regularization"), ({"regularization": np.nan}, "regularization"),
    ({"step0": 0.0}, "step0"), ({"step0": np.inf}, "step0")])
def test_subgradient_method_refuses_meaningless_constants(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sp.subgradient_method([_matching(2)], n_iter=2, **kwargs)


@pytest.mark.parametrize("rate", [0.0, -1.0, np.nan, np.inf, "1"])
def test_averaged_perceptron_refuses_a_learning_rate_that_is_not_positive(rate):
    with pytest.raises(ValueError, match="learning_rate"):
        sp.averaged_perceptron([_matching(2)], n_epochs=1, learning_rate=rate)


def test_subgradient_method_names_a_parameter_set_given_as_regularization():
    # the other learners take W second; here the second argument is lambda
    with pytest.raises(TypeError, match="pass it as W="):
        sp.subgradient_method([_matching(2)], sp.L2Ball(10.0), n_iter=2)


@pytest.mark.parametrize("call, match", [
    (lambda: sp.adjacent_pairs(-1, 2), "m must be an integer >= 0"),
    (lambda: sp.adjacent_pairs(2, 2.5), "n must be an integer >= 0"),
    (lambda: sp.fertility_constraints((2, 2), 0), "max_fertility must be an integer >= 1"),
    (lambda: sp.fertility_constraints((2,), 2), r"shape must be \(m, n\)"),
    (lambda: sp.split_fertility_vector(np.zeros(3), (2, 2), 1), "has 4 entries"),
    (lambda: sp.fertility_indicators(np.array([[2, 0], [1, 1]]), 3), "0/1 edge matrix"),
    (lambda: sp.mincut_score([2, 0], [1.0, 1.0], [1.0], [[0, 1]]), "0/1 labelling of the 2"),
    (lambda: sp.mincut_score([1, 0, 1], [1.0, 1.0], [1.0], [[0, 1]]), "0/1 labelling of the 2"),
    (lambda: sp.structured_hinge_loss([_matching(2)], np.zeros(3)), "example 0 has 2 features"),
])
def test_polytope_helpers_refuse_sizes_and_values_outside_their_domain(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@settings(max_examples=30, deadline=None)
@given(m=st.integers(0, 4), n=st.integers(0, 4), D=st.integers(1, 3), data=st.data())
def test_fertility_helpers_agree_on_valid_shapes(m, n, D, data):
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=m * n, max_size=m * n)),
                 dtype=np.int64).reshape(m, n)
    src, tgt = sp.fertility_indicators(y, D)
    z = np.concatenate([y.ravel(), src.ravel(), tgt.ravel()]).astype(float)
    edges, s2, t2 = sp.split_fertility_vector(z, (m, n), D)
    assert np.array_equal(edges, y) and np.array_equal(s2, src) and np.array_equal(t2, tgt)
    A, b = sp.fertility_constraints((m, n), D)
    assert A.shape == (m + n, z.size)
    if not ((y.sum(1) > D).any() or (y.sum(0) > D).any()):
        assert np.all(A @ z <= b + 1e-12)


def test_a_tagger_takes_sentences_of_bare_words_as_one_column_tokens():
    from sequence.model import SequenceTagger

    X = [["the", "dog", "runs"], ["a", "cat"]] * 5
    y = [["D", "N", "V"], ["D", "N"]] * 5
    bare = SequenceTagger(n_iter=5, min_count=1).fit(X, y)
    tupled = SequenceTagger(n_iter=5, min_count=1).fit([[(w,) for w in s] for s in X], y)
    assert np.array_equal(bare.coef_, tupled.coef_) if hasattr(bare, "coef_") else True
    assert bare.predict([["the", "cat"]]) == tupled.predict([[("the",), ("cat",)]])
    with pytest.raises(TypeError, match="looks like one tokenised sentence; pass a list"):
        bare.predict(["the", "cat"])
    with pytest.raises(ValueError, match="1 column, but 2 were expected"):
        SequenceTagger(n_iter=5, min_count=1).fit([[("the", "DT"), ("dog", "NN")]] * 4,
                                                 [["D", "N"]] * 4).predict([["the", "dog"]])


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_sequence_scores_refuse_predictions_that_do_not_line_up(lengths, data):
    from sequence.evaluate import evaluate, token_accuracy

    gold = [["B-NP"] + ["I-NP"] * (n - 1) for n in lengths]
    pred = [list(s) for s in gold]
    fault = data.draw(st.sampled_from(["fewer sentences", "shorter", "longer", "string"]))
    i = data.draw(st.integers(0, len(gold) - 1))
    if fault == "fewer sentences":
        pred = pred[:-1]
    elif fault == "shorter":
        pred[i] = pred[i][:-1]
    elif fault == "longer":
        pred[i] = pred[i] + ["O"]
    else:
        pred[i] = " ".join(pred[i])
    for fn in (evaluate, token_accuracy):
        with pytest.raises(ValueError, match="gold") as info:
            fn(gold, pred)
        assert "\n" not in str(info.value)
    assert evaluate(gold, gold)["f1"] == 100.0
    assert all(type(v) in (int, float) for v in evaluate(gold, gold).values())


# ------------------------------------------------------------- magnitudes and kinds of number
@settings(max_examples=40, deadline=None)
@given(v=st.lists(st.floats(-5, 5), min_size=1, max_size=8),
       shift=st.floats(-1e6, 1e6))
def test_the_simplex_projection_moves_with_a_shift_of_every_coordinate(v, shift):
    """``Proj(v + t) = Proj(v)`` (the threshold moves with ``t``); it is computed shifted by
    the largest coordinate, so values near the float range are projected too."""
    v = np.asarray(v)
    a, b = sp.project_simplex(v), sp.project_simplex(v + shift)
    assert abs(a.sum() - 1) < 1e-12 and a.min() >= 0
    np.testing.assert_allclose(a, b, atol=1e-9 * max(1.0, abs(shift)))


@pytest.mark.parametrize("v,expected", [([1e308, 1e308], [0.5, 0.5]),
                                        ([1e308, -1e308, 0.0], [1.0, 0.0, 0.0]),
                                        ([-1e308, -1e308, -1e308], [1 / 3] * 3)])
def test_the_simplex_projection_of_values_near_the_float_range(v, expected):
    """1e308 twice overflowed the cumulative sum and was an ``IndexError``."""
    np.testing.assert_allclose(sp.project_simplex(np.array(v)), expected, atol=1e-15)


@pytest.mark.parametrize("project", [sp.project_matching, sp.project_matching_flow,
                                     lambda z: sp.project_matching_batch([z])[0]])
@pytest.mark.parametrize("zp", [np.full((2, 2), 1e16), np.array([[1e300, 0.5], [0.2, 0.1]]),
                                np.array([[-3e15, 0.0, 1.0]])])
def test_matching_projections_refuse_magnitudes_float64_cannot_resolve(project, zp):
    """Beyond 1e15 the projection (in [0, 1]) is lost to rounding: the Newton kernel divided
    by zero (``ZeroDivisionError``) and the min-cost flow returned zeros."""
    with pytest.raises(ValueError, match=r"up to .* in magnitude: beyond 1e\+15"):
        project(zp)


@pytest.mark.parametrize("project", [sp.project_matching, sp.project_matching_flow])
def test_matching_projections_keep_large_finite_magnitudes_below_the_limit(project):
    z = project(np.full((2, 2), 9e14))
    np.testing.assert_allclose(z, 0.5, atol=1e-6)
    assert sp.matching_violation(z) <= 1e-9


@pytest.mark.parametrize("call", [lambda: sp.project_matching(np.array([[1j, 0], [0, 1]])),
                                  lambda: sp.decode_matching(np.array([[1 + 0j, 0], [0, 1]])),
                                  lambda: sp.project_simplex(np.array([0.5j, 1.0]))])
def test_complex_scores_are_refused_not_cut_to_their_real_part(call):
    with pytest.raises(ValueError, match="complex"):
        call()


def test_hamming_loss_refuses_encodings_of_two_sizes():
    with pytest.raises(ValueError, match=r"z_pred has shape \(3,\) and z_gold \(2,\)"):
        sp.hamming_loss(np.array([1, 0]), np.array([1, 0, 1]))
    assert sp.hamming_loss(np.array([1, 0]), np.array([1, 1]), cost_pos=2.0) == 2.0


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 5), n=st.integers(1, 5), exponent=st.integers(0, 14),
       seed=st.integers(0, 2**16))
def test_the_fertility_projection_with_one_slot_is_the_matching_projection(m, n, exponent,
                                                                           seed):
    """D = 1 is the matching polytope: its exact Newton projection at every magnitude (the
    block-coordinate ascent needed about max|z'| sweeps, and at 1e7 returned another vertex
    without a warning)."""
    zp = np.random.default_rng(seed).normal(size=(m, n)) * 10.0 ** exponent
    z, zs, zt = sp.project_fertility_matching(zp)
    np.testing.assert_array_equal(z, sp.project_matching(zp))
    assert zs.shape == (0, m) and zt.shape == (0, n)


def test_the_fertility_projection_warns_when_it_stops_short():
    rng = np.random.default_rng(0)
    zp, src, tgt = rng.normal(size=(4, 5)) * 3, rng.normal(size=(1, 4)), rng.normal(size=(1, 5))
    with pytest.warns(RuntimeWarning, match="KKT residual"):
        sp.project_fertility_matching(zp, src, tgt, max_iter=1)
    with pytest.raises(ValueError, match="complex"):
        sp.project_fertility_matching(zp.astype(complex))


@pytest.mark.parametrize("node,starts,match", [
    (np.full((2, 3), 1e300), [0, 2], r"beyond 1e\+15"),
    (np.array([[1j, 0, 0], [0, 0, 1]]), [0, 2], "real, finite"),
    (np.array([[-np.inf, 0, 0], [0, 0, 1]]), [0, 2], "real, finite"),
    (np.zeros((2, 3)), [0, 3], "starts must be token offsets"),
])
def test_the_chain_projection_checks_its_point(node, starts, match):
    """``project_chain`` checked nothing: 1e300 was a ``ZeroDivisionError``, starts past the
    tokens read other memory."""
    with pytest.raises(ValueError, match=match):
        sp.project_chain(node, np.zeros((1, 3, 3)), np.array(starts))


def test_the_chain_projection_warns_when_it_stops_short():
    rng = np.random.default_rng(1)
    with pytest.warns(RuntimeWarning, match="constraint violation"):
        sp.project_chain(rng.normal(size=(3, 3)), rng.normal(size=(2, 3, 3)), np.array([0, 3]),
                         max_iter=1)


@pytest.mark.parametrize("parent", [[-1, 0.5, 0], [-1, 0, np.nan]])
def test_tree_parents_that_are_not_whole_numbers_are_refused(parent):
    """``np.asarray(parent, dtype=int64)`` cut 0.5 to node 0 and read NaN as a huge
    negative number."""
    with pytest.raises(ValueError, match="parent"):
        sp.tree_marginals(np.zeros((3, 2)), np.zeros((2, 2, 2)), np.array(parent))


def _matching_examples(widths=(4, 4, 4)):
    rng = np.random.default_rng(0)
    out = []
    for d in widths:
        y = np.zeros(6)
        y[[0, 4]] = 1
        out.append(sp.MatchingExample(sps.csr_matrix(rng.normal(size=(d, 6))), y, shape=(2, 3)))
    return out


def test_learners_name_a_monitor_and_nonneg_coordinates_that_do_not_fit():
    """``monitor=5`` was an ``AttributeError`` ('reset'); ``L2Ball(nonneg=(10,))`` with 4
    features an ``IndexError`` inside the first step."""
    ex = _matching_examples()
    with pytest.raises(TypeError, match="monitor must be a Monitor or None, got int"):
        sp.dual_extragradient(ex, n_iter=2, monitor=5)
    with pytest.raises(ValueError, match=r"W.nonneg names coordinate 10, but the examples "
                                         r"have 4 features"):
        sp.dual_extragradient(ex, W=sp.L2Ball(nonneg=(10,)), n_iter=2)
    assert sp.dual_extragradient(ex, W=sp.L2Ball(nonneg=(3,)), n_iter=2).w[3] >= 0
    with pytest.raises(ValueError, match="w contains NaN"):
        sp.structured_hinge_loss(ex, np.full(4, np.nan))
