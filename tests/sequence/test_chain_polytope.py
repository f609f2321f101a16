"""The chain and tree marginal polytopes against brute-force enumeration and cvxpy."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from structpred import (ChainExample, chain_kl_prox_cvxpy, chain_marginals, chain_viterbi,
                        project_chain, project_chain_cvxpy, tree_marginals, tree_map)


def brute_tree(node, edge, parent):
    """Marginals, log Z and MAP of a tree by enumerating all labellings."""
    n, K = node.shape
    nm = np.zeros((n, K))
    em = np.zeros((n - 1, K, K))
    scores, ys = [], []
    for y in itertools.product(range(K), repeat=n):
        s = sum(node[i, y[i]] for i in range(n)) + sum(edge[i - 1, y[parent[i]], y[i]]
                                                      for i in range(1, n))
        scores.append(s)
        ys.append(y)
    scores = np.array(scores)
    logz = np.logaddexp.reduce(scores)
    p = np.exp(scores - logz)
    for y, pr in zip(ys, p):
        for i in range(n):
            nm[i, y[i]] += pr
        for i in range(1, n):
            em[i - 1, y[parent[i]], y[i]] += pr
    return nm, em, logz, ys[int(np.argmax(scores))], scores.max()


@st.composite
def trees(draw, chain=False):
    n = draw(st.integers(1, 5))
    K = draw(st.integers(1, 3))
    parent = [-1] + [i - 1 if chain else draw(st.integers(0, i - 1)) for i in range(1, n)]
    scale = draw(st.sampled_from([1.0, 5.0, 60.0]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    node = scale * rng.standard_normal((n, K))
    edge = scale * rng.standard_normal((max(n - 1, 0), K, K))
    return node, edge, np.array(parent)


@settings(max_examples=60, deadline=None)
@given(trees())
def test_tree_sum_product_and_max_product_match_enumeration(case):
    node, edge, parent = case
    nm, em, logz = tree_marginals(node, edge, parent)
    bn, be, blogz, by, bbest = brute_tree(node, edge, parent)
    assert np.allclose(nm, bn, atol=1e-9)
    assert np.allclose(em, be, atol=1e-9)
    assert logz == pytest.approx(blogz, rel=1e-9, abs=1e-9)
    labels, best = tree_map(node, edge, parent)
    assert best == pytest.approx(bbest, rel=1e-9, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(trees(chain=True), min_size=1, max_size=3))
def test_chain_batch_sum_product_and_viterbi_match_enumeration(cases):
    K = cases[0][0].shape[1]
    cases = [(n[:, :K] if n.shape[1] >= K else np.pad(n, ((0, 0), (0, K - n.shape[1]))),
              e, p) for n, e, p in cases]
    cases = [(n, np.resize(e, (max(n.shape[0] - 1, 0), K, K)), p) for n, e, p in cases]
    node = np.vstack([c[0] for c in cases])
    edge = np.concatenate([c[1] for c in cases]).reshape(-1, K, K)
    starts = np.cumsum([0] + [c[0].shape[0] for c in cases])
    nm, em, logz = chain_marginals(node, edge, starts)
    labels, best = chain_viterbi(node, edge, starts)
    for c, (n_, e_, p_) in enumerate(cases):
        bn, be, blogz, by, bbest = brute_tree(n_, e_, p_)
        s, e = starts[c], starts[c + 1]
        assert np.allclose(nm[s:e], bn, atol=1e-9)
        assert np.allclose(em[s - c:e - c - 1], be, atol=1e-9)
        assert logz[c] == pytest.approx(blogz, rel=1e-9, abs=1e-9)
        assert best[c] == pytest.approx(bbest, rel=1e-9, abs=1e-9)
        y = labels[s:e]
        score = n_[np.arange(len(y)), y].sum() + sum(e_[i - 1, y[i - 1], y[i]]
                                                      for i in range(1, len(y)))
        assert score == pytest.approx(bbest, rel=1e-9, abs=1e-9)


def test_long_chain_with_sharp_potentials_is_stable():
    """10,000 tokens with potentials of magnitude 1e3: marginals stay exact and finite."""
    rng = np.random.default_rng(0)
    n, K = 10_000, 4
    node = 1e3 * rng.standard_normal((n, K))
    edge = 1e3 * rng.standard_normal((n - 1, K, K))
    nm, em, logz = chain_marginals(node, edge, np.array([0, n]))
    assert np.all(np.isfinite(nm)) and np.all(np.isfinite(em)) and np.isfinite(logz[0])
    assert np.allclose(nm.sum(1), 1) and np.allclose(em.sum((1, 2)), 1)
    assert np.allclose(em.sum(2), nm[:-1], atol=1e-9)
    assert np.allclose(em.sum(1), nm[1:], atol=1e-9)
    # the same chain as a tree
    tn, te, tz = tree_marginals(node[:200], edge[:199], np.arange(-1, 199))
    cn, ce, cz = chain_marginals(node[:200], edge[:199], np.array([0, 200]))
    assert np.allclose(tn, cn, atol=1e-9) and np.allclose(te, ce, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_euclidean_projection_matches_cvxpy(seed):
    rng = np.random.default_rng(seed)
    n, K = 4, 3
    node = rng.standard_normal((n, K))
    edge = 0.5 * rng.standard_normal((n - 1, K, K))
    mn, me, info = project_chain(node, edge, np.array([0, n]), tol=1e-10)
    rn, re = project_chain_cvxpy(node, edge)
    assert info["violation"] < 1e-9
    assert np.allclose(mn, rn, atol=1e-5) and np.allclose(me, re, atol=1e-5)


@pytest.mark.parametrize("seed", [0, 1])
def test_kl_prox_matches_cvxpy(seed):
    """The multiplicative update + sum-product solves argmax s'z - KL(P_z'||P_z)/eta."""
    rng = np.random.default_rng(seed)
    n, K, eta = 4, 3, 0.7
    x = sp.identity(n, format="csr")
    ex = ChainExample(x, [n], y=rng.integers(0, K, n), n_labels=K, geometry="entropy",
                      compact=False)
    z = ex.center()
    s = rng.standard_normal(ex.n_vars)
    z_new = np.asarray(ex.prox(z, s, eta))
    zn, ze = ex.split(np.asarray(z))
    sn, se = ex.split(s)
    rn, re = chain_kl_prox_cvxpy(zn, ze, sn, se, eta)
    nn, ne = ex.split(z_new)
    assert np.allclose(nn, rn, atol=1e-4) and np.allclose(ne, re, atol=1e-4)
    # from plain marginals (no carried potentials) the step is the same
    z_plain = np.array(z)
    assert np.allclose(np.asarray(ex.prox(z_plain, s, eta)), z_new, atol=1e-10)
    # and a second step from the result composes: potentials add up
    z2 = np.asarray(ex.prox(ex.prox(z, s, eta), s, eta))
    assert np.allclose(z2, np.asarray(ex.prox(z, 2 * s, eta)), atol=1e-10)


@pytest.mark.parametrize("scale", [1.0, 300.0])
def test_compact_kl_steps_are_the_full_steps_summed_over_edges(scale):
    """With shared edge scores (the learners' case) the compact encoding's KL steps give
    the full encoding's node marginals and its edge marginals summed over the edges."""
    rng = np.random.default_rng(4)
    lengths, K, n_obs = [5, 1, 7, 2], 4, 6
    N = sum(lengths)
    x = sp.random(N, n_obs, density=0.6, random_state=2, format="csr")
    y = rng.integers(0, K, N)
    full = ChainExample(x, lengths, y=y, n_labels=K, compact=False)
    comp = ChainExample(x, lengths, y=y, n_labels=K)
    w1, w2 = scale * rng.standard_normal((2, full.n_features))
    zf = full.prox(full.prox(full.center(), full.loss_augmented_scores(w1), 0.3),
                   full.scores(w2), 0.3)
    zc = comp.prox(comp.prox(comp.center(), comp.loss_augmented_scores(w1), 0.3),
                   comp.scores(w2), 0.3)
    nf, ef = full.split(np.asarray(zf))
    nc, ec = comp.split(np.asarray(zc))
    assert np.all(np.isfinite(nc)) and np.allclose(nc, nf, atol=1e-9)
    assert np.allclose(ec, ef.sum(0), atol=1e-8)
    assert np.allclose(full.features_of(zf), comp.features_of(zc), atol=1e-8)
    assert full.loss(zf) == pytest.approx(comp.loss(zc))
    # decoding agrees too
    assert np.array_equal(full.predict_labels(w1), comp.predict_labels(w1))
    assert np.allclose(full.features_of(full.loss_augmented_inference(w1)),
                       comp.features_of(comp.loss_augmented_inference(w1)))
    with pytest.raises(ValueError):
        comp.prox(np.asarray(zc), comp.scores(w2), 0.3)


def test_chain_example_operators_are_adjoint_and_decode_is_loss_augmented_viterbi():
    rng = np.random.default_rng(3)
    lengths = [3, 1, 4]
    N, K, n_obs = sum(lengths), 3, 5
    x = sp.random(N, n_obs, density=0.5, random_state=1, format="csr")
    y = rng.integers(0, K, N)
    ex = ChainExample(x, lengths, y=y, n_labels=K, geometry="euclidean")
    w = rng.standard_normal(ex.n_features)
    z = rng.standard_normal(ex.n_vars)
    assert float(ex.scores(w) @ z) == pytest.approx(float(w @ ex.features_of(z)))
    scaled = ChainExample(x, lengths, y=y, n_labels=K, geometry="euclidean", label_scale=0.3)
    assert float(scaled.scores(w) @ z) == pytest.approx(float(w @ scaled.features_of(z)))
    assert ex.loss(ex.z_gold) == 0.0
    assert ex.loss(ex.encode((y + 1) % K)) == N
    heavy = ChainExample(x, lengths, y=y, n_labels=K, geometry="euclidean", loss_scale=2.5)
    assert heavy.loss(heavy.encode((y + 1) % K)) == pytest.approx(2.5 * N)
    assert heavy.hinge_loss(np.zeros(ex.n_features)) == pytest.approx(2.5 * N)
    with pytest.raises(ValueError, match="loss_scale"):
        ChainExample(x, lengths, y=y, n_labels=K, loss_scale=0.0)
    # loss-augmented inference by brute force over all labellings of every chain
    s = ex.loss_augmented_scores(w)
    z_hat = ex.loss_augmented_inference(w)
    best = max(float(s @ ex.encode(np.array(lab)))
               for lab in itertools.product(range(K), repeat=N))
    assert float(s @ z_hat) == pytest.approx(best)
    # the hinge is non-negative; the gold encoding satisfies the constraints
    assert ex.hinge_loss(w) >= -1e-12
    A, b = ex.constraints()
    assert np.all(A @ ex.z_gold <= b + 1e-12)
    assert np.all(A @ ex.project(rng.standard_normal(ex.n_vars)) <= b + 1e-5)
    comp = ChainExample(x, lengths, y=y, n_labels=K)
    assert float(comp.scores(w) @ comp.encode(y)) == pytest.approx(float(ex.scores(w) @ ex.z_gold))


def test_operator_norm_matches_the_dense_operator():
    from structpred import operator_norm

    x = sp.random(10, 6, density=0.5, random_state=0, format="csr")
    ex = ChainExample(x, [4, 6], y=np.arange(10) % 3, n_labels=3)
    B = np.column_stack([ex.scores(e) for e in np.eye(ex.n_features)])
    assert operator_norm([ex], tol=1e-10) == pytest.approx(np.linalg.norm(B, 2), rel=1e-6)
