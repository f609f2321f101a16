"""The min-cut polytope of binary associative MRFs: min-cut decoding, the exact
projection (dual ascent + active set + Boykov-Kolmogorov flows), the cvxpy
reference and the problem class.
"""

from ._cvxpy import project_mincut_cvxpy, mincut_constraints
from ._decode import check_graph, mincut_score, decode_mincut, decode_mincut_bruteforce, maxflow_available
from ._example import MinCutExample
from ._projection import project_mincut

__all__ = [
    "MinCutExample",
    "check_graph",
    "mincut_score",
    "decode_mincut",
    "decode_mincut_bruteforce",
    "project_mincut",
    "project_mincut_cvxpy",
    "mincut_constraints",
    "maxflow_available",
]
