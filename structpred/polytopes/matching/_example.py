"""The problem class of the matching polytope in the example protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..._example import StructuredExample
from ._decode import decode_matching
from ._projection import project_matching

__all__ = ['MatchingExample']


@dataclass
class MatchingExample(StructuredExample):
    """An example whose structures are partial bipartite matchings.

    Variables ``z_jk`` are the edges of a complete ``m x n`` bipartite graph,
    flattened row-major.  ``Z = {0 <= z <= 1, sum_k z_jk <= 1, sum_j z_jk <= 1}``
    (thesis sec. 2.2.3); projections and decoding come from
    :mod:`structpred.polytopes.matching`.
    """

    shape: tuple = (0, 0)

    def __post_init__(self):
        m, n = self.shape
        if m < 1 or n < 1:
            raise ValueError(f"matching shape must be positive, got {self.shape}")
        super().__post_init__()
        if self.z_gold.size != m * n:
            raise ValueError(f"z_gold has {self.z_gold.size} entries, shape is {self.shape}")

    def project(self, z):
        return project_matching(np.reshape(z, self.shape)).ravel()

    def decode_scores(self, s):
        return decode_matching(np.reshape(s, self.shape)).ravel().astype(np.float64)

    def constraints(self):
        m, n = self.shape
        rows = sp.kron(sp.eye(m), np.ones((1, n)))  # sum_k z_jk <= 1
        cols = sp.kron(np.ones((1, m)), sp.eye(n))  # sum_j z_jk <= 1
        A = sp.vstack([rows, cols]).tocsr()
        return A, np.ones(m + n)

