"""The flat, all-pairs symmetrisation (:func:`alignment.aligners.symmetrize.link_views_flat`,
numba) against the reference set implementation (:func:`symmetrize`), and the single-set
form (:func:`links_flat`) against the first view, on random link sets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.aligners.symmetrize import FLAT_VIEWS, link_views_flat, links_flat, symmetrize


@st.composite
def pairs(draw):
    out = []
    for _ in range(draw(st.integers(1, 4))):
        m, n = draw(st.integers(1, 7)), draw(st.integers(1, 7))
        cells = st.tuples(st.integers(0, m - 1), st.integers(0, n - 1))
        f = draw(st.sets(cells, max_size=m * n))
        b = draw(st.sets(cells, max_size=m * n))
        out.append((m, n, f, b))
    return out


def _arr(s):
    return np.array(sorted(s), dtype=np.int64).reshape(-1, 2)


@settings(max_examples=300, deadline=None)
@given(pairs())
def test_every_view_equals_the_set_implementation(ps):
    lens = [(m, n) for m, n, _, _ in ps]
    rows = link_views_flat([_arr(f) for _, _, f, _ in ps], [_arr(b) for _, _, _, b in ps], lens)
    e0 = 0
    for m, n, f, b in ps:
        for r, view in enumerate(FLAT_VIEWS):
            block = rows[r, e0:e0 + m * n].reshape(m, n)
            want = {"fwd": f, "bwd": b}[view] if view in ("fwd", "bwd") else \
                symmetrize(f, b, view)
            got = {(int(j), int(k)) for j, k in zip(*np.nonzero(block))}
            assert got == set(want), (view, m, n, f, b)
        e0 += m * n
    assert e0 == rows.shape[1]


@pytest.mark.parametrize("bad", [(2, 0), (0, 3), (-1, 0)])
def test_a_link_outside_its_pair_is_refused(bad):
    with pytest.raises(ValueError, match="outside a 2x3 sentence pair"):
        link_views_flat([_arr({(0, 0)})], [_arr({bad})], [(2, 3)])


def test_no_pairs():
    assert link_views_flat([], [], np.zeros((0, 2))).shape == (5, 0)


@settings(max_examples=200, deadline=None)
@given(pairs())
def test_one_link_set_equals_the_first_view(ps):
    lens = [(m, n) for m, n, _, _ in ps]
    f = [_arr(f) for _, _, f, _ in ps]
    want = link_views_flat(f, f, lens)[0]
    out = np.full(len(want), 7.0)          # filled in place, stale values cleared
    assert np.array_equal(links_flat(f, lens, out=out), want)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("bad", [(2, 0), (0, 3), (-1, 0)])
def test_one_link_set_outside_its_pair_is_refused(bad):
    with pytest.raises(ValueError, match="outside a 2x3 sentence pair"):
        links_flat([_arr({(0, 0)}), _arr({bad})], [(4, 4), (2, 3)])


def test_one_link_set_of_no_pairs():
    assert links_flat([], np.zeros((0, 2))).shape == (0,)
