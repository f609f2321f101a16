"""cvxpy references for the chain polytope's proximal steps (tests and comparisons)."""

from __future__ import annotations

import numpy as np

__all__ = ["project_chain_cvxpy", "chain_kl_prox_cvxpy"]


def _variables(n, K):
    import cvxpy as cp

    zn = cp.Variable((n, K), nonneg=True)
    ze = [cp.Variable((K, K), nonneg=True) for _ in range(n - 1)]
    cons = [cp.sum(zn, axis=1) == 1]
    for t, e in enumerate(ze):
        cons += [cp.sum(e, axis=1) == zn[t], cp.sum(e, axis=0) == zn[t + 1]]
    return zn, ze, cons


def project_chain_cvxpy(node, edge):
    """Euclidean projection of one chain's ``(node (n, K), edge (n-1, K, K))`` onto its
    marginal polytope, as a QP in cvxpy (Clarabel)."""
    import cvxpy as cp

    n, K = node.shape
    zn, ze, cons = _variables(n, K)
    obj = cp.sum_squares(zn - node) + sum(cp.sum_squares(e - edge[t]) for t, e in enumerate(ze))
    cp.Problem(cp.Minimize(obj), cons).solve(solver=cp.CLARABEL)
    return zn.value, np.array([e.value for e in ze]).reshape(n - 1, K, K)


def chain_kl_prox_cvxpy(node_marg, edge_marg, s_node, s_edge, eta):
    """``argmax_{z'} s'z' - KL(P_z' || P_z) / eta`` over one chain's marginal polytope.

    The negative entropy of a chain distribution is written as
    ``sum_a z_1(a) log z_1(a) + sum_t sum_ab rel_entr(z_t,t+1(a, b), z_t(a))``
    (entropy of the first node plus the conditional entropies), which cvxpy
    accepts as convex; ``-sum_y P_z'(y) log P_z(y)`` is linear in ``z'``.
    """
    import cvxpy as cp

    n, K = node_marg.shape
    zn, ze, cons = _variables(n, K)
    q = np.full(n, 2.0)
    q[0] -= 1
    q[-1] -= 1
    neg_h = -cp.sum(cp.entr(zn[0])) + sum(
        cp.sum(cp.rel_entr(e, cp.reshape(zn[t], (K, 1), order="C") @ np.ones((1, K))))
        for t, e in enumerate(ze))
    cross = (cp.sum(cp.multiply(zn, (1 - q)[:, None] * np.log(node_marg)))
             + sum(cp.sum(cp.multiply(e, np.log(edge_marg[t]))) for t, e in enumerate(ze)))
    lin = cp.sum(cp.multiply(zn, s_node)) + sum(cp.sum(cp.multiply(e, s_edge[t]))
                                                for t, e in enumerate(ze))
    # KL(P_z' || P_z) = -H(z') - cross(z')
    obj = lin - (neg_h - cross) / eta
    cp.Problem(cp.Maximize(obj), cons).solve(solver=cp.CLARABEL)
    return zn.value, np.array([e.value for e in ze]).reshape(n - 1, K, K)
