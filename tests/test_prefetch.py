"""The prefetch of the alignment kernels (``alignment.stats._prefetch``) compiles and
changes nothing: the same arrays and the same results, whatever the indices (negative
ones, "no entry", are skipped)."""

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.stats._prefetch import prefetch_entries


@numba.njit(cache=False)
def _sum_after_prefetch(table, index):
    prefetch_entries(table, index, 0, len(index))
    total = 0.0
    for p in index:
        if p >= 0:
            total += table[p]
    return total


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 50), index=st.lists(st.integers(-1, 49), max_size=60))
def test_prefetching_changes_no_value(n, index):
    table = np.arange(n, dtype=np.float64) * 0.5
    index = np.array([p if p < n else -1 for p in index], dtype=np.int32)
    before, idx_before = table.copy(), index.copy()
    expected = float(sum(table[p] for p in index if p >= 0))
    assert _sum_after_prefetch(table, index) == expected
    assert np.array_equal(table, before) and np.array_equal(index, idx_before)
