"""Point clouds that repeat points (tiles merged twice, a scanner's repeated returns): a
position is one place of the surface however often the scan lists it, so the graph of a
scan with repeats is the graph of the scan without them (the copies filled the k nearest
neighbours of the shape features, and the same scan twice was segmented otherwise)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from segmentation.points import point_graph


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 16), n=st.integers(40, 200), share=st.floats(0.0, 1.0),
       times=st.integers(1, 3))
def test_repeated_points_leave_the_graph_as_it_is(seed, n, share, times):
    rng = np.random.default_rng(seed)
    xyz = np.round(rng.random((n, 3)) * [4.0, 4.0, 2.0], 2)
    xyz = np.unique(xyz, axis=0)[rng.permutation(len(np.unique(xyz, axis=0)))]
    chosen = rng.random(len(xyz)) < share
    more = np.concatenate([xyz, *([xyz[chosen]] * times)])
    one, two = (point_graph(a, voxel=0.25, k_graph=4) for a in (xyz, more))
    assert np.allclose(one.node_features, two.node_features)
    assert np.array_equal(one.edges, two.edges) and np.array_equal(one.xyz, two.xyz)
    assert np.array_equal(two.labels, np.concatenate([one.labels,   # each copy its node
                                                      *([one.labels[chosen]] * times)]))
