"""The chain and tree marginal polytopes: sum-product marginals (log space; with shared
edge potentials, probability space with per-position scaling), the
Bregman (KL) proximal step, Viterbi / max-product decoding, the Euclidean projection
(accelerated dual ascent, with a cvxpy reference) and the problem class
:class:`ChainExample` for label sequences.
"""

from ._example import (ChainExample, chain_kl_prox, chain_marginals, chain_viterbi,
                       n_chain_weights, project_chain, tree_potentials_of)
from ._tree import tree_marginals, tree_map
from ._norm import operator_norm
from ._cvxpy import chain_kl_prox_cvxpy, project_chain_cvxpy

__all__ = ["ChainExample", "chain_marginals", "chain_viterbi", "chain_kl_prox",
           "project_chain", "tree_potentials_of", "tree_marginals", "tree_map",
           "n_chain_weights", "operator_norm", "project_chain_cvxpy", "chain_kl_prox_cvxpy"]
