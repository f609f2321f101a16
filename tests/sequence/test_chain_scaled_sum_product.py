"""The chain sum-product with shared edge potentials (probability space, per-position
scaling) against the log-space kernel and brute-force enumeration, on both of its paths:
the scaled sums and the log-space fallback for potentials of too wide a range."""

import functools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from structpred import ChainExample, L2Ball
from structpred.learners._dual_extragradient import (_reduce_sums, _steps_in_place,
                                                     dual_extragradient_streaming,
                                                     example_step)
from structpred.polytopes.chain import _kernels as kern
from test_chain_polytope import brute_tree


def shared(node, edge, starts):
    nm = np.full_like(node, np.nan)
    es = np.zeros(edge.shape)
    logz = kern.chain_sum_product_shared(node, edge, starts, nm, es)
    return nm, es, logz


def log_space(node, edge, starts):
    """The reference: the log-space kernel with ``edge`` on every edge (edge marginals
    summed), given the potentials less their row maxima and ``edge`` less its maximum:
    the same distribution, with the smallest logarithms (the log-space kernel's rounding
    grows with their size: 1e-9 on potentials of some 1e5 in sum)."""
    lengths = np.diff(starts)
    rowmax = node.max(axis=1)
    emax = edge.max()
    edges = np.ascontiguousarray(np.broadcast_to(edge - emax, (int(np.sum(lengths - 1)),)
                                                 + edge.shape))
    nm = np.empty_like(node)
    em = np.empty_like(edges)
    logz = kern.chain_sum_product(node - rowmax[:, None], edges, starts, nm, em)
    return nm, em.sum(0), logz + np.add.reduceat(rowmax, starts[:-1]) + (lengths - 1) * emax


def scaled_path_taken(node, edge, starts):
    """Whether every chain passes the range check that sends it to the scaled sums."""
    _, log_emin = kern._range_of(edge)
    shift = np.empty(node.shape[0])
    return all(kern._chain_shifts(node, starts[c], starts[c + 1], log_emin, shift)
               for c in range(starts.size - 1))


def assert_same(got, want, rtol=1e-9):
    nm, es, logz = got
    rn, re, rz = want
    assert np.all(np.isfinite(nm)) and np.all(np.isfinite(es))
    assert np.allclose(nm, rn, rtol=rtol, atol=1e-12)
    assert np.allclose(es, re, rtol=rtol, atol=1e-12 * max(1.0, np.abs(re).max()))
    assert np.allclose(logz, rz, rtol=1e-12, atol=1e-9)


@st.composite
def batches(draw):
    K = draw(st.integers(1, 7))
    lengths = draw(st.lists(st.integers(1, 40), min_size=1, max_size=6))
    node_scale = draw(st.sampled_from([0.0, 1.0, 10.0, 40.0, 150.0, 1e3]))
    edge_scale = draw(st.sampled_from([0.0, 1.0, 10.0, 100.0, 1e3]))
    offset = draw(st.sampled_from([0.0, -500.0, 1e4]))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    node = offset + node_scale * rng.standard_normal((sum(lengths), K))
    edge = offset + edge_scale * rng.standard_normal((K, K))
    return node, edge, np.cumsum([0] + lengths).astype(np.int64)


@settings(max_examples=150, deadline=None)
@given(batches())
def test_shared_kernel_matches_the_log_space_kernel(case):
    """Random batches, potentials from 0 to 1e3 in scale and shifted by up to 1e4: the
    marginals, the summed edge marginals and log Z are those of the log-space kernel."""
    node, edge, starts = case
    assert_same(shared(node, edge, starts), log_space(node, edge, starts))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 3), st.sampled_from([0.3, 3.0, 30.0, 400.0]),
       st.integers(0, 2**31 - 1))
def test_shared_kernel_matches_enumeration(n, K, scale, seed):
    rng = np.random.default_rng(seed)
    node = scale * rng.standard_normal((n, K))
    edge = scale * rng.standard_normal((K, K))
    nm, es, logz = shared(node, edge, np.array([0, n]))
    bn, be, blogz, _, _ = brute_tree(node, np.broadcast_to(edge, (max(n - 1, 0), K, K)),
                                     np.arange(-1, n - 1))
    assert np.allclose(nm, bn, atol=1e-9)
    assert np.allclose(es, be.sum(0), atol=1e-9)
    assert logz[0] == pytest.approx(blogz, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("span", [10.0, 300.0, 590.0])
def test_scaled_path_is_exact_up_to_the_edge_of_its_range(span):
    """Potentials that use nearly all the range the scaled sums accept (node rows and
    the transition matrix each spanning up to ``span`` nats together): the scaled path
    is taken and agrees with the log-space kernel to rounding."""
    rng = np.random.default_rng(int(span))
    K, lengths = 12, [1, 2, 50, 300]
    starts = np.cumsum([0] + lengths).astype(np.int64)
    node = rng.uniform(0, 0.7 * span, (starts[-1], K))
    node[:, 0] = 0.0
    node[:, 1] = 0.7 * span               # every row spans 0.7 span
    edge = rng.uniform(0, 0.29 * span, (K, K))
    edge[0, 0], edge[1, 1] = 0.0, 0.29 * span
    assert scaled_path_taken(node, edge, starts)
    assert_same(shared(node, edge, starts), log_space(node, edge, starts), rtol=1e-12)


@pytest.mark.parametrize("bad", ["wide", "-inf node", "-inf edge", "+inf node"])
def test_chains_outside_the_range_fall_back_to_log_space(bad):
    rng = np.random.default_rng(1)
    K, starts = 5, np.array([0, 7, 8, 20])
    node = rng.standard_normal((20, K))
    edge = rng.standard_normal((K, K))
    if bad == "wide":
        node[9, 2] = -700.0     # one row of the third chain spans 700 nats
    elif bad == "-inf node":
        node[3, 1] = -np.inf    # label 1 impossible at token 3
    elif bad == "-inf edge":
        edge[2, 4] = -np.inf    # a forbidden transition
    else:
        node[0, 0] = np.inf
    assert not scaled_path_taken(node, edge, starts)
    if bad == "+inf node":
        return   # no distribution; only the refusal of the scaled path is checked
    got, want = shared(node, edge, starts), log_space(node, edge, starts)
    assert_same(got, want)
    if bad == "-inf node":
        assert got[0][3, 1] == 0.0
    if bad == "-inf edge":
        assert got[1][2, 4] == 0.0


def test_long_chain_with_moderate_potentials_stays_scaled_and_exact():
    """10,000 tokens, 45 labels: the scaled messages neither underflow nor overflow."""
    rng = np.random.default_rng(3)
    n, K = 10_000, 45
    node = 8.0 * rng.standard_normal((n, K))
    edge = 2.0 * rng.standard_normal((K, K))
    starts = np.array([0, n])
    assert scaled_path_taken(node, edge, starts)
    got = shared(node, edge, starts)
    assert_same(got, log_space(node, edge, starts), rtol=1e-8)
    assert np.allclose(got[0].sum(1), 1.0) and got[1].sum() == pytest.approx(n - 1)


def _chain_examples(n_examples=3, K=5, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_examples):
        lengths = rng.integers(1, 9, 6)
        N = int(lengths.sum())
        x = sp.random(N, 11, density=0.4, random_state=rng.integers(1 << 30), format="csr")
        out.append(ChainExample(x, lengths, y=rng.integers(0, K, N), n_labels=K,
                                loss_scale=2.0))
    return out


def test_in_place_pass_is_the_map_and_reduce():
    """The learner's in-process pass (``F z`` scattered into the sums) gives the sums of
    the per-example map of fig. 2.6."""
    examples = _chain_examples()
    d = examples[0].n_features
    rng = np.random.default_rng(5)
    ubar_w, v_w = rng.standard_normal((2, d))
    step = functools.partial(example_step, ubar_w=ubar_w, v_w=v_w, t=7, eta=0.2)
    r_ref, q_ref = _reduce_sums(map(step, examples), d)
    r, q, target = _steps_in_place(examples, ubar_w, v_w, 7, 0.2, d, None)
    assert np.allclose(r, r_ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(q, q_ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(target, sum(ex.target_features for ex in examples))
    r2, _, _ = _steps_in_place(examples, ubar_w, v_w, 7, 0.2, d, target)
    assert np.array_equal(r2, r)


def test_streaming_learner_iterates_do_not_depend_on_the_reduce():
    examples = _chain_examples(seed=2)

    def listing_map(f, items):   # any map but the builtin takes the map-reduce path
        return list(map(f, items))

    runs = [dual_extragradient_streaming(examples, L2Ball(), n_iter=12, eta=0.3, map_fn=m)
            for m in (map, listing_map)]
    assert np.allclose(runs[0].w, runs[1].w, rtol=1e-10, atol=1e-12)
