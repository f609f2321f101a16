"""Unusual inputs of the Python API, ninth sweep (issue 28, docs/errors.md), by class:

- seeds: ``NBSVM(random_state=2**64)`` (any seed of 2**63 or more) was Python's
  "OverflowError: int too big to convert" from the numba kernel, where every other
  estimator takes it;
- empty inputs: ``tree_map`` of a tree of no node returned uninitialised memory as its
  score (``9.3e-310``), ``tree_marginals`` a ``log Z`` of ``log K`` (the empty tree has one
  labelling, ``log Z = 0``).
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

DOCS = ["apple banana fruit sweet", "car engine wheel road", "apple fruit juice",
        "road car drive"] * 3
LABELS = ["fruit", "car"] * 6


@SETTINGS
@given(seed=st.integers(0, 2 ** 70))
def test_nbsvm_takes_any_seed_as_its_32_bits(seed):
    from topics import NBSVM

    big = NBSVM(random_state=seed).fit(DOCS, LABELS)
    same = NBSVM(random_state=seed % 2 ** 32).fit(DOCS, LABELS)
    np.testing.assert_array_equal(big.coef_, same.coef_)


@SETTINGS
@given(k=st.integers(1, 4))
def test_tree_of_no_node_has_one_empty_labelling(k):
    import structpred as S

    node, edge, parent = np.zeros((0, k)), np.zeros((0, k, k)), np.zeros(0, int)
    labels, score = S.tree_map(node, edge, parent)
    assert labels.shape == (0,) and score == 0.0
    nm, em, logz = S.tree_marginals(node, edge, parent)
    assert nm.shape == (0, k) and em.shape == (0, k, k) and logz == 0.0
