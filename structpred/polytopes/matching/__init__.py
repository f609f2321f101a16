"""The matching polytope: projections (dual Newton, min-cost flow, cvxpy reference),
max-weight matching decoding and the problem class.
"""

from ._common import matching_violation
from ._cvxpy import project_matching_cvxpy
from ._decode import decode_matching, decode_matching_hungarian, hungarian_matching, matching_lp_value
from ._example import MatchingExample
from ._flow import project_matching_flow
from ._projection import project_matching, project_matching_batch

__all__ = [
    "MatchingExample",
    "project_matching",
    "project_matching_batch",
    "project_matching_flow",
    "project_matching_cvxpy",
    "decode_matching",
    "decode_matching_hungarian",
    "hungarian_matching",
    "matching_lp_value",
    "matching_violation",
]
