"""The prediction kernels that were rearranged for speed (issue 31) give the same
floating-point numbers as the arithmetic they replaced:

* :func:`alignment.stats.hmm_posterior.hmm_posteriors` (both directions' emissions from one
  table look-up, a forward-backward pass without the expected counts, the backward sums
  taken side by side) against the training pass
  :func:`alignment.stats.hmm.hmm_forward_backward` on the emissions built one direction at
  a time, as prediction did before;
* the positions' places of :func:`alignment.features.kernel._pair_bests` (divided once per
  pair) against the per-edge divisions of the features ``dist`` and ``near_diag_word``.

Equality is bit for bit (``np.array_equal``), not approximate: the links of
``align predict`` must not change.
"""

import numpy as np
from hypothesis import given, settings, strategies as st

from alignment.data.cooc import find_in_row
from alignment.features.kernel import _pair_bests
from alignment.stats.hmm import hmm_forward_backward
from alignment.stats.hmm_posterior import _jump_matrix, hmm_posteriors


def _emissions(gen, cond, row_ptr, cols, t, t_null, floor, gen_is_tgt):
    """One direction's emissions, as prediction built them before (one look-up each)."""
    E = np.empty((len(gen), len(cond)))
    en = np.empty(len(gen))
    nrows = len(row_ptr) - 1
    for g, x in enumerate(gen):
        en[g] = max(t_null[x], floor) if 0 <= x < len(t_null) else floor
        for c, y in enumerate(cond):
            e, f = (y, x) if gen_is_tgt else (x, y)
            p = find_in_row(cols, row_ptr[e], row_ptr[e + 1], f) if 0 <= e < nrows else -1
            E[g, c] = max(t[p], floor) if p >= 0 else floor
    return E, en


def _reference(e, f, row_ptr, cols, t_f, t_b, tn_f, tn_b, w_f, w_b, p0_f, p0_b, D, floor):
    E, en = _emissions(f, e, row_ptr, cols, t_f, tn_f, floor, True)
    gf = hmm_forward_backward(E, en, _jump_matrix(len(e), w_f, p0_f, D), p0_f)[0]
    E, en = _emissions(e, f, row_ptr, cols, t_b, tn_b, floor, False)
    gb = hmm_forward_backward(E, en, _jump_matrix(len(f), w_b, p0_b, D), p0_b)[0]
    return gf.T, gb


@st.composite
def _tables_and_pair(draw):
    """A random translation table (CSR, sorted distinct columns per row, float32 values,
    some rows empty) and a sentence pair whose ids include unknown ones (-1, past the
    table)."""
    n_src, n_tgt = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mask = rng.random((n_src, n_tgt)) < draw(st.floats(0.0, 1.0))
    row_ptr = np.concatenate([[0], np.cumsum(mask.sum(1))]).astype(np.int64)
    cols = np.nonzero(mask)[1].astype(np.int32)
    nnz = len(cols)
    tables = [rng.random(nnz).astype(np.float32) for _ in range(2)]
    nulls = [rng.random(n).astype(np.float32) for n in (n_tgt, n_src)]
    D = draw(st.integers(1, 4))
    w = [rng.random(2 * D + 1) + 1e-3 for _ in range(2)]
    p0 = [draw(st.floats(1e-3, 0.5)) for _ in range(2)]
    e = np.array(draw(st.lists(st.integers(-1, n_src), min_size=1, max_size=9)), np.int32)
    f = np.array(draw(st.lists(st.integers(-1, n_tgt), min_size=1, max_size=9)), np.int32)
    floor = draw(st.sampled_from([1e-7, 1e-3, 0.2]))
    return (e, f, row_ptr, cols, *tables, *nulls, *w, *p0, D, floor)


@settings(max_examples=150, deadline=None)
@given(_tables_and_pair())
def test_hmm_posteriors_are_the_training_pass_posteriors_bit_for_bit(args):
    pf, pb = hmm_posteriors(*args)
    rf, rb = _reference(*args)
    assert pf.shape == rf.shape and pb.shape == rb.shape
    assert np.array_equal(pf, rf) and np.array_equal(pb, rb)
    assert pf.flags.c_contiguous and pb.flags.c_contiguous


def test_hmm_posteriors_of_an_empty_side_are_empty():
    args = (np.zeros(0, np.int32), np.zeros(3, np.int32), np.zeros(2, np.int64),
            np.zeros(0, np.int32), np.zeros(0, np.float32), np.zeros(0, np.float32),
            np.ones(1, np.float32), np.ones(1, np.float32), np.ones(3), np.ones(3), 0.2, 0.2,
            1, 1e-7)
    pf, pb = hmm_posteriors(*args)
    assert pf.shape == pb.shape == (0, 3)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 120), st.integers(1, 120))
def test_pair_places_are_the_per_edge_divisions(m, n):
    dice = np.random.default_rng(m * 1000 + n).random(m * n + 3)
    *_, rel_j, rel_k, diag_j = _pair_bests(dice, 3, m, n)
    for j in range(m):
        assert rel_j[j] == (j + 0.5) / m
        assert diag_j[j] == (j + 0.5) * n / m
    for k in range(n):
        assert rel_k[k] == (k + 0.5) / n
