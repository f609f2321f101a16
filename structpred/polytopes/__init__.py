"""The polytopes, each with its Euclidean projection and its decoder: matchings,
fertility-constrained matchings, the relaxed QAP, min-cut, the simplex, and the chain
and tree marginal polytopes (sum-product, KL step, Viterbi).
"""

from ._fertility import project_fertility_matching, project_fertility_matching_cvxpy, decode_fertility_matching, fertility_constraints, fertility_indicators, split_fertility_vector
from ._qap_dual import DualQAPProjector, project_relaxed_qap
from ._qap import ExtendedMatchingExample, RelaxedQAPProjector, QAPSolution, decode_qap, brute_force_qap, qap_objective, qap_constraints, adjacent_pairs, PATTERNS, DECODERS
from ._simplex import SimplexExample, project_simplex
from .chain import (ChainExample, chain_kl_prox, chain_kl_prox_cvxpy, chain_marginals, chain_viterbi,
                    n_chain_weights, operator_norm, project_chain, project_chain_cvxpy,
                    tree_marginals, tree_map, tree_potentials_of)
from .matching._common import matching_violation
from .matching._cvxpy import project_matching_cvxpy
from .matching._decode import decode_matching, matching_lp_value
from .matching._example import MatchingExample
from .matching._flow import project_matching_flow
from .matching._projection import project_matching, project_matching_batch
from .mincut._cvxpy import project_mincut_cvxpy, mincut_constraints
from .mincut._decode import check_graph, mincut_score, decode_mincut, decode_mincut_bruteforce, maxflow_available
from .mincut._example import MinCutExample
from .mincut._projection import project_mincut

__all__ = [
    "MatchingExample",
    "project_matching",
    "project_matching_batch",
    "project_matching_flow",
    "project_matching_cvxpy",
    "decode_matching",
    "matching_lp_value",
    "matching_violation",
    "MinCutExample",
    "check_graph",
    "mincut_score",
    "decode_mincut",
    "decode_mincut_bruteforce",
    "project_mincut",
    "project_mincut_cvxpy",
    "mincut_constraints",
    "maxflow_available",
    "project_fertility_matching",
    "project_fertility_matching_cvxpy",
    "decode_fertility_matching",
    "fertility_constraints",
    "fertility_indicators",
    "split_fertility_vector",
    "ExtendedMatchingExample",
    "RelaxedQAPProjector",
    "DualQAPProjector",
    "project_relaxed_qap",
    "QAPSolution",
    "decode_qap",
    "brute_force_qap",
    "qap_objective",
    "qap_constraints",
    "adjacent_pairs",
    "PATTERNS",
    "DECODERS",
    "SimplexExample",
    "project_simplex",
    "ChainExample",
    "chain_marginals",
    "chain_viterbi",
    "chain_kl_prox",
    "chain_kl_prox_cvxpy",
    "project_chain",
    "project_chain_cvxpy",
    "tree_marginals",
    "tree_map",
    "tree_potentials_of",
    "n_chain_weights",
    "operator_norm",
]
