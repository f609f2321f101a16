"""DiscLDA's label posterior: the per-document, per-class Gibbs chains and the
estimators of ``p(y | w_d)`` read from them (thesis eqs. 4.16-4.18, 4.22, 4.33, app. 4.B.1).

:func:`label_chains` runs, for every document and class ``y``, a chain on
``p(z_d | y, w_d)`` with the class-dependent topics of :func:`class_topic_tables`, and
collects the statistics of bridge sampling (:func:`label_log_posterior`, combined as
:data:`REFERENCES` says), of the harmonic mean (:func:`harmonic_log_posterior`) and, when
``T`` is learned, the gradient of eq. 4.17; :func:`exact_label_posterior` enumerates a
short document's topics for the tests.  The estimator that uses them is
:class:`topics.disclda.DiscLDA`, which re-exports these names.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .lda import fold_in_sweep_grouped
from .lda import doc_seed as _doc_seed

__all__ = ["REFERENCES", "class_topic_tables", "label_chains", "label_log_posterior",
           "harmonic_log_posterior", "exact_label_posterior"]

#: ways of combining the pairwise bridge-sampling ratios into log Z_y
REFERENCES = {"last": 0, "adaptive": 1, "mean": 2}


# --------------------------------------------------------------------------- chains

def class_topic_tables(phi, T):
    """Class-dependent topics ``Phi^y = Phi T^y`` (eq. 4.3 / 4.20).

    Parameters
    ----------
    phi : ndarray (K, V)
    T : ndarray (C, K, L)

    Returns
    -------
    phis : ndarray (C, L, V)
        ``phis[y, l, w] = sum_k T^y_kl phi_kw`` (the layout of
        :func:`topics.lda.fold_in_sweep_grouped`).
    logphis_t : ndarray (V, L, C)
        ``log phis`` transposed so that the ``C`` classes of one (word, topic)
        are contiguous (used by the bridge statistics).
    """
    phis = np.ascontiguousarray(np.matmul(T.transpose(0, 2, 1), phi))
    logphis_t = np.ascontiguousarray(np.log(phis).transpose(2, 1, 0))
    return phis, logphis_t


@nb.njit(cache=True)
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@nb.njit(cache=True)
def _bridge_log_posterior(blse_d, log_prior, ref_mode, out):
    """Label log-posterior of one document from its pairwise bridge statistics.

    ``blse_d[c, a] = log sum_i h_ac(z^(i)c)`` (chain ``c``), so that
    ``log Z_a - log Z_b ≈ blse_d[b, a] - blse_d[a, b]`` (eq. 4.33; the ``log M``
    terms cancel).  ``ref_mode`` 0: reference class ``C - 1`` (thesis);
    1: the arg-max of that first estimate; 2: least-squares combination of all
    pairs (``log Z_a ≈ mean_b (log Z_a - log Z_b)``).
    """
    C = log_prior.size
    ref = C - 1
    for a in range(C):
        out[a] = log_prior[a] + blse_d[ref, a] - blse_d[a, ref]
    if ref_mode == 1:
        ref = 0
        for a in range(C):
            if out[a] > out[ref]:
                ref = a
        for a in range(C):
            out[a] = log_prior[a] + blse_d[ref, a] - blse_d[a, ref]
    elif ref_mode == 2:
        for a in range(C):
            s = 0.0
            for b in range(C):
                s += blse_d[b, a] - blse_d[a, b]
            out[a] = log_prior[a] + s / C
    m = out.max()
    s = 0.0
    for a in range(C):
        s += math.exp(out[a] - m)
    lse = m + math.log(s)
    for a in range(C):
        out[a] -= lse


@nb.njit(cache=True)
def _label_chains(words, offsets, phis, logphis_t, alpha, n_burn, n_samples, seed,
                  z_state, warm, blse, hmlse, nbar,
                  grad_mode, labels, log_prior, phi_wk, ref_mode, grad):
    """Per-document Gibbs chains of ``z_d`` given each class (eq. 4.22) and the
    statistics of the label-posterior estimators.

    For document ``d`` and class ``c`` a chain runs ``n_burn + n_samples``
    sweeps of :func:`topics.lda.fold_in_sweep_grouped` with the table
    ``phis[c]``.  After burn-in, with ``s_a = sum_n log Phi^a_{w_n z_n}``:

    * ``blse[d, c, a]  = log sum_i exp(0.5 (s_a - s_c))``  (geometric bridge, eq. 4.33)
    * ``hmlse[d, c]    = log sum_i exp(-s_c)``             (harmonic mean)
    * ``nbar[d, c, l] += n_dl``                            (for eq. 4.29)

    With ``grad_mode`` the per-document gradient of ``log p(y_d | w_d)`` with
    respect to ``T`` (eq. 4.17) is added to ``grad`` (C x L x K, transposed),
    using ``p(y | z, w) ∝ p(y) prod_n Phi^y_{w_n z_n}`` (eq. 4.16) and the
    bridge estimate of ``p(y' | w_d)`` (``ref_mode``).  ``z_state`` holds the
    chains (``C N_d`` entries per document, from ``C offsets[d]``) and is
    updated; with ``warm`` the chains continue from it.
    """
    n_docs = offsets.size - 1
    C, L, V = phis.shape
    K = phi_wk.shape[1]
    stats = np.empty(C)
    py = np.empty(C)
    post = np.empty(C)
    groups = np.arange(C)
    for d in range(n_docs):
        start, stop = offsets[d], offsets[d + 1]
        n = stop - start
        np.random.seed(_doc_seed(seed, words, start, stop))
        vw = np.empty(C * n, np.int32)
        vd = np.empty(C * n, np.int64)
        zl = np.empty(C * n, np.int64)
        ndk = np.zeros((C, L), np.int64)
        base = C * start
        for c in range(C):
            for j in range(n):
                vw[c * n + j] = words[start + j]
                vd[c * n + j] = c
                zl[c * n + j] = z_state[base + c * n + j] if warm else np.random.randint(0, L)
                ndk[c, zl[c * n + j]] += 1
        if grad_mode:
            acc = np.zeros((C, C, L, K))
            own = np.zeros((L, K))
        else:
            acc = np.zeros((1, 1, 1, 1))
            own = np.zeros((1, 1))
        for s in range(n_burn + n_samples):
            fold_in_sweep_grouped(vw, vd, zl, ndk, phis, groups, alpha)
            if s < n_burn:
                continue
            for c in range(C):
                for a in range(C):
                    stats[a] = 0.0
                for j in range(n):
                    w, l = vw[c * n + j], zl[c * n + j]
                    for a in range(C):
                        stats[a] += logphis_t[w, l, a]
                sc = stats[c]
                for a in range(C):
                    blse[d, c, a] = _logaddexp(blse[d, c, a], 0.5 * (stats[a] - sc))
                hmlse[d, c] = _logaddexp(hmlse[d, c], -sc)
                for l in range(L):
                    nbar[d, c, l] += ndk[c, l]
                if grad_mode:
                    m = -np.inf
                    for a in range(C):
                        py[a] = log_prior[a] + stats[a]          # eq. 4.16
                        m = max(m, py[a])
                    tot = 0.0
                    for a in range(C):
                        py[a] = math.exp(py[a] - m)
                        tot += py[a]
                    for y in range(C):
                        wy = py[y] / tot
                        own_term = c == labels[d] and y == labels[d]
                        for j in range(n):
                            w, l = vw[c * n + j], zl[c * n + j]
                            inv = 1.0 / phis[y, l, w]
                            for k in range(K):
                                g = phi_wk[w, k] * inv       # d log Phi^y_{wl} / d T^y_kl
                                acc[c, y, l, k] += wy * g
                                if own_term:
                                    own[l, k] += g
        for j in range(C * n):
            z_state[base + j] = zl[j]
        if grad_mode:
            _bridge_log_posterior(blse[d], log_prior, ref_mode, post)
            yd = labels[d]
            for y in range(C):
                for l in range(L):
                    for k in range(K):
                        g = own[l, k] if y == yd else 0.0
                        for c in range(C):
                            g -= math.exp(post[c]) * acc[c, y, l, k]
                        grad[y, l, k] += g / n_samples


@nb.njit(cache=True)
def _all_bridge_log_posteriors(blse, log_prior, ref_mode):
    out = np.empty((blse.shape[0], log_prior.size))
    for d in range(blse.shape[0]):
        _bridge_log_posterior(blse[d], log_prior, ref_mode, out[d])
    return out


# --------------------------------------------------------------------------- label posterior API

def label_chains(words, offsets, phi, T, alpha, n_burn, n_samples, seed, *, log_prior=None,
                 grad_labels=None, reference="last", z_state=None):
    """Run the per-document, per-class chains and return their statistics.

    Returns a dict with ``blse`` (D x C x C), ``hmlse`` (D x C), ``nbar``
    (D x C x L, summed z-counts), ``n_samples``, ``z_state`` and, when
    ``grad_labels`` is given, ``grad`` (C x K x L, the sum over documents of
    eq. 4.17 with respect to ``T``).
    """
    phi = np.ascontiguousarray(phi, dtype=np.float64)
    T = np.ascontiguousarray(T, dtype=np.float64)
    phis, logphis_t = class_topic_tables(phi, T)
    C, K, L = T.shape
    D = offsets.size - 1
    if int(n_samples) < 1:
        raise ValueError("n_samples must be >= 1")
    warm = z_state is not None
    if z_state is None:
        z_state = np.zeros(C * words.size, np.int64)
    blse = np.full((D, C, C), -np.inf)
    hmlse = np.full((D, C), -np.inf)
    nbar = np.zeros((D, C, L))
    grad_mode = grad_labels is not None
    lp = np.full(C, -np.log(C)) if log_prior is None else np.asarray(log_prior, np.float64)
    grad = np.zeros((C, L, K) if grad_mode else (1, 1, 1))
    phi_wk = np.ascontiguousarray(phi.T) if grad_mode else np.ones((1, K))
    labels = (np.asarray(grad_labels, np.int64) if grad_mode else np.zeros(1, np.int64))
    _label_chains(words, offsets.astype(np.int64), phis, logphis_t, float(alpha), int(n_burn),
                  int(n_samples), int(seed), z_state, warm, blse, hmlse, nbar, grad_mode, labels,
                  lp, phi_wk, REFERENCES[reference], grad)
    out = {"blse": blse, "hmlse": hmlse, "nbar": nbar, "n_samples": int(n_samples),
           "z_state": z_state}
    if grad_mode:
        out["grad"] = grad.transpose(0, 2, 1)
    return out


def label_log_posterior(stats, log_prior, reference="last"):
    """``log p(y | w_d)`` by bridge sampling (eq. 4.33) from :func:`label_chains` statistics."""
    if reference not in REFERENCES:
        raise ValueError(f"reference must be one of {sorted(REFERENCES)}, got {reference!r}")
    return _all_bridge_log_posteriors(stats["blse"], np.asarray(log_prior, np.float64),
                                      REFERENCES[reference])


def harmonic_log_posterior(stats, log_prior):
    """``log p(y | w_d)`` with the harmonic-mean estimate of ``p(w_d | y)``."""
    log_lik = -(stats["hmlse"] - np.log(stats["n_samples"]))
    a = np.asarray(log_prior)[None, :] + log_lik
    return a - np.logaddexp.reduce(a, axis=1, keepdims=True)


def exact_label_posterior(doc_words, phi, T, alpha, prior):
    """``p(y | w)`` for one short document by enumerating all ``L^N`` z-vectors.

    ``p(w | y) = sum_z p(z) prod_n Phi^y_{w_n z_n}`` with the Dirichlet-multinomial
    ``p(z) = Gamma(L alpha) / Gamma(N + L alpha) prod_l Gamma(n_l + alpha) / Gamma(alpha)``
    (eq. 4.18).  For tests only (exponential cost).
    """
    import itertools

    from scipy.special import gammaln, logsumexp

    phis, _ = class_topic_tables(np.asarray(phi, float), np.asarray(T, float))
    C, L, _ = phis.shape
    N = len(doc_words)
    logs = np.full(C, -np.inf)
    for zs in itertools.product(range(L), repeat=N):
        nl = np.bincount(np.array(zs, int), minlength=L)
        lpz = gammaln(L * alpha) - gammaln(N + L * alpha) + (gammaln(nl + alpha) - gammaln(alpha)).sum()
        for y in range(C):
            lw = sum(np.log(phis[y, l, w]) for l, w in zip(zs, doc_words))
            logs[y] = np.logaddexp(logs[y], lpz + lw)
    a = np.log(np.asarray(prior, float)) + logs
    return np.exp(a - logsumexp(a))
