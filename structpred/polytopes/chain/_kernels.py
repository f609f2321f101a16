"""Numba kernels of the chain and tree marginal polytopes.

Chains come in batches: ``starts`` (``n_chains + 1`` token offsets) cuts the
``N`` tokens into chains; the edge between tokens ``t`` and ``t + 1`` of chain
``c`` has index ``t - c``, so a batch has ``E = N - n_chains`` edges.  Node
arrays are ``(N, K)``, edge arrays ``(E, K, K)`` indexed ``[left, right]``.

Trees are one at a time: ``parent[0] = -1`` and ``parent[i] < i``; edge
``i - 1`` joins ``parent[i]`` (first index) and ``i`` (second index).

Sum-product on chains with one potential per edge (:func:`chain_sum_product`)
and on trees runs in log space.  On chains the ``K^2`` exponentials of each
edge are computed once per call and reused by the forward pass, the backward
pass and the edge marginals (row maxima are factored out so that every
product is of numbers in ``[0, 1]``); a message or marginal that would
underflow falls back to an exact log-sum-exp, so the result is exact for any
potentials and any length.  With the same potentials on every edge (the
learners' case, :func:`chain_sum_product_shared`) a chain is summed in
probability space with per-position scaling, which needs no logarithm in its
``K^2`` loops, and in log space only when its potentials span more than
``-_LOG_FLOOR`` nats.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_TINY = 1e-250   # below this a fast sum may have lost digits: recompute exactly
_BIG = 650.0     # exp(_BIG) * 1e-308 is still negligible
_LOG_FLOOR = -600.0   # the widest range of potentials the scaled (probability-space) sums take


@njit(cache=True)
def _logsumexp(x):
    m = -np.inf
    for v in x:
        if v > m:
            m = v
    if m == -np.inf:
        return m
    s = 0.0
    for v in x:
        s += np.exp(v - m)
    return m + np.log(s)


@njit(cache=True)
def chain_sum_product(node, edge, starts, node_marg, edge_marg):
    """Node and edge marginals and ``log Z`` of each chain (log-space forward-backward).

    ``node_marg`` (N, K) and ``edge_marg`` (E, K, K) are filled in place;
    returns ``log Z`` per chain.
    """
    N, K = node.shape
    n_chains = starts.size - 1
    logz = np.empty(n_chains)
    alpha = np.empty((N, K))
    beta = np.empty((N, K))
    rowmax = np.empty((edge.shape[0], K))
    p = np.empty(K)
    tmp = np.empty(K)
    for c in range(n_chains):
        s, e = starts[c], starts[c + 1]
        n = e - s
        if n == 0:
            logz[c] = 0.0
            continue
        for k in range(K):
            alpha[s, k] = node[s, k]
        # forward; expE (row-max shifted) is stored in edge_marg for reuse
        for i in range(1, n):
            t = s + i
            j = t - 1 - c
            for a in range(K):
                m = -np.inf
                for b in range(K):
                    if edge[j, a, b] > m:
                        m = edge[j, a, b]
                rowmax[j, a] = m
                for b in range(K):
                    edge_marg[j, a, b] = np.exp(edge[j, a, b] - m) if m > -np.inf else 0.0
            G = -np.inf
            for a in range(K):
                tmp[a] = alpha[t - 1, a] + rowmax[j, a]
                if tmp[a] > G:
                    G = tmp[a]
            for a in range(K):
                p[a] = np.exp(tmp[a] - G) if G > -np.inf else 0.0
            for b in range(K):
                acc = 0.0
                for a in range(K):
                    acc += p[a] * edge_marg[j, a, b]
                if acc > _TINY:
                    alpha[t, b] = node[t, b] + G + np.log(acc)
                else:
                    for a in range(K):
                        tmp[a] = alpha[t - 1, a] + edge[j, a, b]
                    alpha[t, b] = node[t, b] + _logsumexp(tmp)
        lz = _logsumexp(alpha[e - 1])
        logz[c] = lz
        # backward
        for k in range(K):
            beta[e - 1, k] = 0.0
        for i in range(n - 2, -1, -1):
            t = s + i
            j = t - c
            H = -np.inf
            for b in range(K):
                tmp[b] = node[t + 1, b] + beta[t + 1, b]
                if tmp[b] > H:
                    H = tmp[b]
            for b in range(K):
                p[b] = np.exp(tmp[b] - H) if H > -np.inf else 0.0
            for a in range(K):
                acc = 0.0
                for b in range(K):
                    acc += edge_marg[j, a, b] * p[b]
                if acc > _TINY:
                    beta[t, a] = rowmax[j, a] + H + np.log(acc)
                else:
                    # exact: log sum_b exp(edge + node + beta)
                    m = -np.inf
                    for b in range(K):
                        v = edge[j, a, b] + tmp[b]
                        if v > m:
                            m = v
                    if m == -np.inf:
                        beta[t, a] = m
                    else:
                        acc2 = 0.0
                        for b in range(K):
                            acc2 += np.exp(edge[j, a, b] + tmp[b] - m)
                        beta[t, a] = m + np.log(acc2)
            # edge marginals of (t, t+1): p[b] holds exp(node+beta - H) of t+1
            G = -np.inf
            for a in range(K):
                tmp[a] = alpha[t, a] + rowmax[j, a]
                if tmp[a] > G:
                    G = tmp[a]
            const = G + H - lz
            if const < _BIG and G > -np.inf:
                scale = np.exp(const)
                for a in range(K):
                    pa = np.exp(tmp[a] - G) * scale
                    for b in range(K):
                        edge_marg[j, a, b] *= pa * p[b]
            else:
                for a in range(K):
                    for b in range(K):
                        edge_marg[j, a, b] = np.exp(alpha[t, a] + edge[j, a, b] + node[t + 1, b]
                                                    + beta[t + 1, b] - lz)
        for i in range(n):
            t = s + i
            for k in range(K):
                node_marg[t, k] = np.exp(alpha[t, k] + beta[t, k] - lz)
    return logz


@njit(cache=True)
def chain_viterbi(node, edge, starts, shared_edge, labels):
    """MAP labels of each chain by max-product (Viterbi); returns the best scores.

    ``edge`` is (E, K, K), or (1, K, K) with ``shared_edge`` (the same
    transition scores on every edge).  ``labels`` (N,) is filled in place.
    """
    N, K = node.shape
    n_chains = starts.size - 1
    best = np.empty(n_chains)
    delta = np.empty((N, K))
    back = np.empty((N, K), dtype=np.int64)
    for c in range(n_chains):
        s, e = starts[c], starts[c + 1]
        if e == s:
            best[c] = 0.0
            continue
        for k in range(K):
            delta[s, k] = node[s, k]
        for t in range(s + 1, e):
            j = 0 if shared_edge else t - 1 - c
            for b in range(K):
                m = -np.inf
                arg = 0
                for a in range(K):
                    v = delta[t - 1, a] + edge[j, a, b]
                    if v > m:
                        m = v
                        arg = a
                delta[t, b] = m + node[t, b]
                back[t, b] = arg
        arg = 0
        m = -np.inf
        for k in range(K):
            if delta[e - 1, k] > m:
                m = delta[e - 1, k]
                arg = k
        best[c] = m
        labels[e - 1] = arg
        for t in range(e - 1, s, -1):
            labels[t - 1] = back[t, labels[t]]
    return best


@njit(cache=True)
def tree_sum_product(node, edge, parent):
    """Node and edge marginals and ``log Z`` of one tree (log-space sum-product)."""
    n, K = node.shape
    inbelow = np.zeros((n, K))
    up = np.zeros((n, K))
    tmp = np.empty(K)
    for i in range(n - 1, 0, -1):
        for a in range(K):
            for b in range(K):
                tmp[b] = edge[i - 1, a, b] + node[i, b] + inbelow[i, b]
            up[i, a] = _logsumexp(tmp)
        for a in range(K):
            inbelow[parent[i], a] += up[i, a]
    for k in range(K):
        tmp[k] = node[0, k] + inbelow[0, k]
    lz = _logsumexp(tmp)
    outside = np.zeros((n, K))
    excl = np.empty((n, K))
    for i in range(1, n):
        q = parent[i]
        for a in range(K):
            excl[i, a] = outside[q, a] + node[q, a] + inbelow[q, a] - up[i, a]
        for b in range(K):
            for a in range(K):
                tmp[a] = excl[i, a] + edge[i - 1, a, b]
            outside[i, b] = _logsumexp(tmp)
    node_marg = np.empty((n, K))
    for i in range(n):
        for k in range(K):
            node_marg[i, k] = np.exp(node[i, k] + inbelow[i, k] + outside[i, k] - lz)
    edge_marg = np.empty((max(n - 1, 0), K, K))
    for i in range(1, n):
        for a in range(K):
            for b in range(K):
                edge_marg[i - 1, a, b] = np.exp(excl[i, a] + edge[i - 1, a, b] + node[i, b]
                                                + inbelow[i, b] - lz)
    return node_marg, edge_marg, lz


@njit(cache=True)
def tree_max_product(node, edge, parent):
    """MAP labels of one tree by max-product; returns ``(labels, best score)``."""
    n, K = node.shape
    inbelow = np.zeros((n, K))
    arg = np.zeros((n, K), dtype=np.int64)   # arg[i, a]: best label of i given parent label a
    for i in range(n - 1, 0, -1):
        for a in range(K):
            m = -np.inf
            best = 0
            for b in range(K):
                v = edge[i - 1, a, b] + node[i, b] + inbelow[i, b]
                if v > m:
                    m = v
                    best = b
            arg[i, a] = best
            inbelow[parent[i], a] += m
    labels = np.zeros(n, dtype=np.int64)
    m = -np.inf
    for k in range(K):
        v = node[0, k] + inbelow[0, k]
        if v > m:
            m = v
            labels[0] = k
    for i in range(1, n):
        labels[i] = arg[i, labels[parent[i]]]
    return labels, m


# ------------------------------------------------------------ Euclidean projection
@njit(cache=True)
def _project_simplex_inplace(v, out):
    """Euclidean projection of ``v`` onto the simplex (Michelot's active-set passes)."""
    n = v.size
    total = 0.0
    for i in range(n):
        total += v[i]
    tau = (total - 1.0) / n
    count = n
    for _ in range(n + 1):
        acc = 0.0
        active = 0
        for i in range(n):
            if v[i] > tau:
                acc += v[i]
                active += 1
        tau = (acc - 1.0) / active
        if active == count:
            break
        count = active
    for i in range(n):
        d = v[i] - tau
        out[i] = d if d > 0.0 else 0.0


@njit(cache=True)
def _primal_from_duals(vn, ve, lam, nu, starts, mn, me, bufK, bufKK):
    """Minimiser of the Lagrangian for given multipliers: simplex projections."""
    N, K = vn.shape
    n_chains = starts.size - 1
    for c in range(n_chains):
        s, e = starts[c], starts[c + 1]
        for t in range(s, e):
            for k in range(K):
                x = vn[t, k]
                if t < e - 1:
                    x += lam[t - c, k]
                if t > s:
                    x += nu[t - 1 - c, k]
                bufK[k] = x
            _project_simplex_inplace(bufK, mn[t])
        for t in range(s, e - 1):
            j = t - c
            for a in range(K):
                for b in range(K):
                    bufKK[a * K + b] = ve[j, a, b] - lam[j, a] - nu[j, b]
            _project_simplex_inplace(bufKK, me[j].ravel())


@njit(cache=True)
def chain_project_euclidean(vn, ve, starts, lam, nu, max_iter, tol, mn, me):
    """Euclidean projection onto the chain marginal polytope by accelerated dual ascent.

    Minimises ``1/2 ||mu - v||^2`` over node marginals on the simplex and edge
    marginals on the simplex whose row and column sums equal the node
    marginals.  Dualising the marginalisation constraints (multipliers
    ``lam`` for row sums, ``nu`` for column sums, updated in place, so they
    warm-start the next call) leaves independent simplex projections; the
    dual is concave with a ``(2K + 2)``-Lipschitz gradient and is maximised by
    FISTA with adaptive restart.  Stops when the largest constraint violation
    is below ``tol``.  Fills ``mn``, ``me``; returns ``(iterations, violation)``.
    """
    N, K = vn.shape
    E = ve.shape[0]
    n_chains = starts.size - 1
    step = 1.0 / (2.0 * K + 2.0)
    bufK = np.empty(K)
    bufKK = np.empty(K * K)
    ylam = lam.copy()
    ynu = nu.copy()
    plam = lam.copy()
    pnu = nu.copy()
    glam = np.empty((E, K))
    gnu = np.empty((E, K))
    theta = 1.0
    viol = np.inf
    it = 0
    for it in range(max_iter):
        _primal_from_duals(vn, ve, ylam, ynu, starts, mn, me, bufK, bufKK)
        viol = 0.0
        for c in range(n_chains):
            s, e = starts[c], starts[c + 1]
            for t in range(s, e - 1):
                j = t - c
                for a in range(K):
                    r = 0.0
                    q = 0.0
                    for b in range(K):
                        r += me[j, a, b]
                        q += me[j, b, a]
                    glam[j, a] = r - mn[t, a]
                    gnu[j, a] = q - mn[t + 1, a]
                    if abs(glam[j, a]) > viol:
                        viol = abs(glam[j, a])
                    if abs(gnu[j, a]) > viol:
                        viol = abs(gnu[j, a])
        if viol < tol:
            for j in range(E):
                for a in range(K):
                    lam[j, a] = ylam[j, a]
                    nu[j, a] = ynu[j, a]
            return it + 1, viol
        new_theta = (1.0 + np.sqrt(1.0 + 4.0 * theta * theta)) / 2.0
        mom = (theta - 1.0) / new_theta
        # gradient ascent step from y, then momentum; restart when it points backwards
        dot = 0.0
        for j in range(E):
            for a in range(K):
                nl = ylam[j, a] + step * glam[j, a]
                nn = ynu[j, a] + step * gnu[j, a]
                dot += (nl - plam[j, a]) * glam[j, a] + (nn - pnu[j, a]) * gnu[j, a]
                lam[j, a] = nl
                nu[j, a] = nn
        if dot < 0.0:
            new_theta = 1.0
            mom = 0.0
        for j in range(E):
            for a in range(K):
                ylam[j, a] = lam[j, a] + mom * (lam[j, a] - plam[j, a])
                ynu[j, a] = nu[j, a] + mom * (nu[j, a] - pnu[j, a])
                plam[j, a] = lam[j, a]
                pnu[j, a] = nu[j, a]
        theta = new_theta
    _primal_from_duals(vn, ve, lam, nu, starts, mn, me, bufK, bufKK)
    return it + 1, viol


# ------------------------------------------------------------- feature operators
@njit(cache=True)
def emission_scores(indptr, indices, values, W, out):
    """``out[t, k] = sum_f x[t, f] W[f, k]`` for the CSR token features ``x``."""
    N, K = out.shape
    for t in range(N):
        for k in range(K):
            out[t, k] = 0.0
        for p in range(indptr[t], indptr[t + 1]):
            f = indices[p]
            x = values[p]
            for k in range(K):
                out[t, k] += x * W[f, k]


@njit(cache=True)
def emission_gradient(indptr, indices, values, Z, G):
    """``G[f, k] += sum_t x[t, f] Z[t, k]`` (the transpose of :func:`emission_scores`)."""
    N, K = Z.shape
    for t in range(N):
        for p in range(indptr[t], indptr[t + 1]):
            f = indices[p]
            x = values[p]
            for k in range(K):
                G[f, k] += x * Z[t, k]


@njit(cache=True)
def chain_sum_product_shared(node, edge, starts, node_marg, edge_sum):
    """:func:`chain_sum_product` when every edge has the same potentials ``edge`` (K, K).

    Fills the node marginals and adds the edge marginals of all edges into
    ``edge_sum`` (K, K); returns ``log Z`` per chain.  Each chain is summed in
    probability space with per-position scaling (:func:`_scaled_chain`):
    ``alpha_t = normalise((alpha_{t-1} E) * psi_t)`` with ``E = exp(edge - max)``
    computed once per call and ``psi_t = exp(node_t - max_t)``, so a position
    costs ``3 K^2`` multiply-adds and ``K`` exponentials.  A chain whose
    potentials span too wide a range for that (:func:`_chain_shifts`), or hold
    an infinity or NaN, is summed exactly in log space instead, by
    :func:`chain_sum_product` on its edges.
    """
    N, K = node.shape
    n_chains = starts.size - 1
    logz = np.empty(n_chains)
    emax, log_emin = _range_of(edge)
    E = np.empty((K, K))
    for a in range(K):
        for b in range(K):
            E[a, b] = np.exp(edge[a, b] - emax)
    ET = np.ascontiguousarray(E.T)
    maxlen = 1
    for c in range(n_chains):
        maxlen = max(maxlen, starts[c + 1] - starts[c])
    buf = np.empty((4, maxlen, K))     # psi, alpha, beta, and the shifts in buf[3, :, 0]
    for c in range(n_chains):
        s, e = starts[c], starts[c + 1]
        if e == s:
            logz[c] = 0.0
        elif _chain_shifts(node, s, e, log_emin, buf[3, :, 0]):
            logz[c] = _scaled_chain(node, s, e, E, ET, emax, buf, node_marg, edge_sum)
        else:
            logz[c] = _log_space_chain(node, edge, s, e, node_marg, edge_sum)
    return logz


@njit(cache=True)
def _range_of(edge):
    """``(max, min - max)`` of the edge potentials (``min - max`` is NaN or -inf when
    one is not finite, which sends every chain to the log-space path)."""
    hi = -np.inf
    lo = np.inf
    for v in edge.ravel():
        hi = max(hi, v)
        lo = min(lo, v)
    if not (np.isfinite(hi) and np.isfinite(lo)):
        return 0.0, -np.inf
    return hi, lo - hi


@njit(cache=True)
def _chain_shifts(node, s, e, log_emin, shift):
    """Row maxima of the chain's node potentials into ``shift``; whether the scaled
    sum may be used.

    With ``E = exp(edge - max)`` (entries at least ``exp(log_emin)``) and
    ``psi_t = exp(node_t - max_t)`` (at least ``exp(min_t - max_t)``), every
    product of the scaled recursions whose terms matter is then a normal number
    (at least ``exp(_LOG_FLOOR) / K``): terms that underflow change a message by
    less than ``K 1e-308`` relative to its largest entry, which is at least
    ``exp(log_emin + min_t - max_t)``, so the marginals are exact to rounding.
    """
    for i in range(e - s):
        hi = -np.inf
        lo = np.inf
        for v in node[s + i]:
            hi = max(hi, v)
            lo = min(lo, v)
        if not (lo - hi + log_emin > _LOG_FLOOR):   # also false for NaN and infinities
            return False
        shift[i] = hi
    return True


@njit(cache=True)
def _scaled_chain(node, s, e, E, ET, emax, buf, node_marg, edge_sum):
    """Forward-backward in probability space on one chain (positions ``s..e-1``).

    Messages are normalised to a largest entry of 1 at every position (their
    logarithms kept in ``log Z``); the node marginals are normalised per
    position, the edge marginals ``alpha_t(a) E(a, b) psi_{t+1}(b) beta_{t+1}(b)``
    by the same sum.  Returns ``log Z``.
    """
    n = e - s
    K = E.shape[0]
    psi, alpha, beta = buf[0], buf[1], buf[2]
    shift = buf[3, :, 0]
    for i in range(n):
        for k in range(K):
            psi[i, k] = np.exp(node[s + i, k] - shift[i])
            alpha[i, k] = 0.0
    for k in range(K):
        alpha[0, k] = psi[0, k]
    lz = shift[0]
    for i in range(1, n):          # forward: alpha_i = normalise((alpha_{i-1} E) * psi_i)
        for a in range(K):
            pa = alpha[i - 1, a]
            for b in range(K):
                alpha[i, b] += pa * E[a, b]
        m = 0.0
        for b in range(K):
            alpha[i, b] *= psi[i, b]
            m = max(m, alpha[i, b])
        inv = 1.0 / m
        for b in range(K):
            alpha[i, b] *= inv
        lz += shift[i] + emax + np.log(m)
    total = 0.0
    for k in range(K):
        total += alpha[n - 1, k]
        beta[n - 1, k] = 1.0
    lz += np.log(total)
    for k in range(K):
        node_marg[e - 1, k] = alpha[n - 1, k] / total
    r = np.empty(K)
    for i in range(n - 2, -1, -1):   # backward: beta_i = normalise(E (psi_{i+1} * beta_{i+1}))
        for b in range(K):
            r[b] = psi[i + 1, b] * beta[i + 1, b]
            beta[i, b] = 0.0
        for b in range(K):
            rb = r[b]
            for a in range(K):
                beta[i, a] += ET[b, a] * rb
        m = 0.0
        for a in range(K):
            m = max(m, beta[i, a])
        inv = 1.0 / m
        d = 0.0
        for a in range(K):
            beta[i, a] *= inv
            d += alpha[i, a] * beta[i, a]
        for b in range(K):
            r[b] *= inv
        for a in range(K):
            node_marg[s + i, a] = alpha[i, a] * beta[i, a] / d
            pa = alpha[i, a] / d
            for b in range(K):
                edge_sum[a, b] += pa * E[a, b] * r[b]
    return lz


@njit(cache=True)
def _log_space_chain(node, edge, s, e, node_marg, edge_sum):
    """One chain of :func:`chain_sum_product_shared` in log space: the shared
    potentials on each of its edges, summed by :func:`chain_sum_product`.  Each node row
    and the edge potentials are first shifted by their (finite) maxima, which leaves the
    distribution unchanged and keeps the logarithms small (the log-space sums' rounding
    grows with their size: about 1e-9 in the marginals for potentials near 1e4), and
    added back to log Z."""
    n = e - s
    K = edge.shape[0]
    emax = edge.max()
    if not np.isfinite(emax):
        emax = 0.0
    edges = np.empty((n - 1, K, K))
    for j in range(n - 1):
        edges[j] = edge - emax
    sub = np.empty((n, K))
    total = (n - 1) * emax
    for t in range(n):
        m = node[s + t].max()
        if not np.isfinite(m):
            m = 0.0
        sub[t] = node[s + t] - m
        total += m
    marg = np.empty((n - 1, K, K))
    starts = np.zeros(2, dtype=np.int64)
    starts[1] = n
    lz = chain_sum_product(sub, edges, starts, node_marg[s:e], marg)
    for j in range(n - 1):
        for a in range(K):
            for b in range(K):
                edge_sum[a, b] += marg[j, a, b]
    return lz[0] + total
