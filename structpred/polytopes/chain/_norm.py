"""The step size's Lipschitz constant for examples that never form ``F``."""

from __future__ import annotations

import numpy as np

from ...learners._stream import iterate_examples, n_features_of, power_iteration_norm

__all__ = ["operator_norm"]


class _ProtocolOperator:
    """``v -> sum_i F_i F_i' v`` through the protocol's operators, in the shape of the
    learners' map-reduce backends (so :func:`power_iteration_norm` runs on it)."""

    def __init__(self, examples):
        self.examples = examples
        self.n_features = n_features_of(examples)

    def map_reduce(self, func, v):
        u = np.zeros(self.n_features)
        for ex in iterate_examples(self.examples):
            ex.add_features_of(ex.scores(v), u)
        return (u,)


def operator_norm(examples, n_iter=50, tol=1e-6, random_state=0):
    """``||[F_1 ... F_m]||_2`` by power iteration on ``sum_i F_i F_i'``.

    Uses only the protocol's operators (``F_i' w`` = ``scores``, ``F_i z`` =
    ``features_of``), so it works for examples such as
    :class:`~structpred.polytopes.chain.ChainExample` whose ``F`` is implicit.
    The dual extragradient's step is ``eta = 1 / operator_norm(examples)``.
    """
    return power_iteration_norm(examples, n_iter=n_iter, tol=tol, random_state=random_state,
                                backend=_ProtocolOperator(examples))
