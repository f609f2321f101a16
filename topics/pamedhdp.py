"""Online Bayesian passive-aggressive MedHDP (paMedHDP; Shi & Zhu, ICML 2014, section 4).

The nonparametric counterpart of :mod:`topics.bayespa` (paMedLDA): the number of topics is
not fixed but grows when the sampler assigns a token to a topic no document has used yet.
The middle of the paper's section 4 (eqs. 17-20) was lost in the text extraction; it is
reconstructed (in ``docs/derivations/pamedhdp.md``) from the HDP of Teh et al. (2006, the stick-breaking construction and the
table counts of Antoniak 1974) and the truncation-free inference of Wang & Blei (2012), and
checked against what survives of section 4 (the Gibbs conditionals after eq. 21, eq. 23, and
the fragment ``... sum_{j>k} s_dj] for k = {1, 2, ...}`` of eq. 20).  Numbers (17)-(20) are
our reconstruction of the paper's; (21)-(23) are the paper's; (22a), (22b), (24a) and (24b)
label displays the paper leaves unnumbered; (P1), (P2) are the prediction rule.  The
passive-aggressive part (the label factor of eq. 15, ``lambda`` by eq. 16, ``q(w)`` by eq. 13)
is paMedLDA's, and so is its code (:mod:`topics.bayespa`).

The derivation (the batch model, eqs. 17-18, the online update, eqs. 19-20, the Gibbs
conditionals, eqs. 21-24, and the prediction rule, P1-P2) is written out in
``docs/derivations/pamedhdp.md``; the code cites its equation numbers.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .bayespa import (_BayesPAClassifier, _doc_lengths, draw_lambda, fold_in_documents,
                      gaussian_update, label_coefficients, label_move, label_terms,
                      second_moments, topic_dirichlet_update)
from ._validation import check_sweep_counts
from .lda import _draw_cumulative

__all__ = ["PaMedHDPClassifier", "hdp_sweep", "sample_tables", "stick_posterior",
           "sample_sticks", "sample_weights", "expected_sticks"]


# --------------------------------------------------------------------------- kernels

@nb.njit(cache=True)
def hdp_sweep(words, offsets, start, z, ndk, nwk, nk, omega_T, omega_sum, pi, rest, n_topics,
              mu, second, a, b, fresh_var, alpha, gamma, eta, seed):
    """One Gibbs sweep of ``z`` (eqs. 22a, 22b) over a mini-batch, creating topics (in place).

    Parameters
    ----------
    words, offsets : flat tokens of the batch (:func:`topics.corpus.token_arrays`).
    start : first token to visit (0, or where an interrupted sweep resumes).
    z : int64 (N,) topic of each token; ``-1`` for a token not assigned yet (the initial
        sequential sweep), which is then only added.
    ndk, nwk, nk : int64 batch counts (B x cap), word-major (W x cap) and (cap,); ``cap`` is
        the capacity for topics.
    omega_T, omega_sum : (W x K_t) the Dirichlet parameters of ``q_t(Phi)``, word-major, and
        their row sums; topics ``k >= K_t`` have the prior ``Dir(eta)``.
    pi : (cap,) weights of the instantiated topics; ``rest`` (1,) the remainder ``pi_{>K}``;
        ``n_topics`` (1,) ``K``.  All three are updated: a new topic takes slot ``K``; a topic
        born in the batch (``k >= K_t``) that loses its last token returns its weight to the
        remainder and keeps weight 0 (it can no longer be drawn; :meth:`_BatchCounts.compact`
        removes it).
    mu, second : ``q(w)`` means (T x K_q) and second moments (T x K_q x K_q); topics
        ``k >= K_q`` have ``mu = 0``, ``Sigma_kk = fresh_var`` (the prior ``v^2``).
    a, b : (B x T) label coefficients (:func:`topics.bayespa.label_coefficients`); zeros give
        no label term.
    seed : seeds numba's generator first when ``>= 0``.

    Returns the index of the first token not visited: ``N`` when the sweep is complete, less
    when the topic capacity ran out (grow the count arrays and resume from there).
    """
    if seed >= 0:
        np.random.seed(seed)
    n_docs = offsets.size - 1
    cap = ndk.shape[1]
    V = nwk.shape[0]
    Kt = omega_T.shape[1]
    K = n_topics[0]
    r = rest[0]
    veta = V * eta
    N = np.empty((cap, cap))
    A = np.empty(cap)
    h = np.empty(cap)
    logit = np.empty(cap)
    p = np.empty(cap)
    inv = np.empty(cap)
    for k in range(K):
        inv[k] = 1.0 / (nk[k] + (omega_sum[k] if k < Kt else veta))
    d0 = 0
    while d0 < n_docs and offsets[d0 + 1] <= start:
        d0 += 1
    for d in range(d0, n_docs):
        lo, hi = max(offsets[d], start), offsets[d + 1]
        if lo >= hi:
            continue
        # eq. 15's label factor for topics 0..K, the last being the next new one
        bsum = label_terms(a[d], b[d], mu, second, ndk[d], K + 1, fresh_var, N, A, h)
        fresh = fresh_var * bsum
        for i in range(lo, hi):
            if K + 2 > cap:
                n_topics[0] = K
                rest[0] = r
                return i
            w, k = words[i], z[i]
            if k >= 0:
                ndk[d, k] -= 1
                nwk[w, k] -= 1
                nk[k] -= 1
                inv[k] = 1.0 / (nk[k] + (omega_sum[k] if k < Kt else veta))
                label_move(N, h, k, K + 1, -1.0)
                if k >= Kt and nk[k] == 0:      # a topic born in the batch died: its weight
                    r += pi[k]                  # goes back to the remainder
                    pi[k] = 0.0
            mx = -np.inf
            for j in range(K + 1):
                logit[j] = A[j] - 2.0 * h[j]
                if logit[j] > mx:
                    mx = logit[j]
            total = 0.0
            for j in range(K):                                                   # eq. 22a
                om = omega_T[w, j] if j < Kt else eta
                total += ((alpha * pi[j] + ndk[d, j]) * (nwk[w, j] + om) * inv[j]
                          * math.exp(logit[j] - mx))
                p[j] = total
            total += alpha * r / V * math.exp(logit[K] - mx)                      # eq. 22b
            p[K] = total
            k = _draw_cumulative(p[:K + 1])
            if k == K:          # a new topic: size-biased pick from the remaining sticks
                bk = np.random.beta(1.0, gamma)
                pi[K] = bk * r
                r *= 1.0 - bk
                K += 1
                for j in range(K + 1):          # the next new topic's label terms
                    N[K, j] = 0.0
                    N[j, K] = 0.0
                N[K, K] = fresh
                A[K] = -fresh
                h[K] = 0.0
            z[i] = k
            ndk[d, k] += 1
            nwk[w, k] += 1
            nk[k] += 1
            inv[k] = 1.0 / (nk[k] + (omega_sum[k] if k < Kt else veta))
            label_move(N, h, k, K + 1, 1.0)
    n_topics[0] = K
    rest[0] = r
    return words.size


@nb.njit(cache=True)
def sample_tables(ndk, pi, n_topics, alpha, seed):
    """Draw every ``s_dk | Z, pi`` (eq. 23) and return ``m_k = sum_d s_dk`` for the first
    ``n_topics`` topics: ``s_dk = sum_{i=1}^{n_dk} Bernoulli(alpha pi_k / (alpha pi_k + i - 1))``,
    the number of tables of a Chinese restaurant with concentration ``alpha pi_k`` and
    ``n_dk`` customers, whose law is ``∝ S(n_dk, s) (alpha pi_k)^s``.  Seeds numba's
    generator with ``seed`` first."""
    np.random.seed(seed)
    m = np.zeros(n_topics)
    for d in range(ndk.shape[0]):
        for k in range(n_topics):
            n = ndk[d, k]
            if n == 0:
                continue
            x = alpha * pi[k]
            s = 1                                   # the first customer opens a table
            for i in range(1, n):
                if np.random.random() * (x + i) < x:                             # eq. 23
                    s += 1
            m[k] += s
    return m


# --------------------------------------------------------------------------- pieces

def stick_posterior(u, v, m):
    """Beta parameters ``(u_k + m_k, v_k + sum_{j>k} m_j)``: eq. 20b with ``m`` the expected
    table totals ``sum_d E[s_dk]``, and eq. 24a with one sample's ``sum_d s_dk``."""
    m = np.asarray(m, float)
    beyond = np.cumsum(m[::-1])[::-1] - m                # sum_{j>k} m_j
    return np.asarray(u, float) + m, np.asarray(v, float) + beyond


def sample_sticks(u, v, rng):
    """``pi'_k ~ Beta(u_k, v_k)``; returns the weights ``pi_k = pi'_k prod_{j<k} (1 - pi'_j)``
    (eq. 17) and the remainder ``pi_{>K} = prod_k (1 - pi'_k)``."""
    b = rng.beta(u, v) if len(u) else np.zeros(0)
    left = np.concatenate([[1.0], np.cumprod(1.0 - b)])
    return b * left[:-1], float(left[-1])                                       # eq. 17


def sample_weights(u, v, m, gamma, rng):
    """``pi | S`` (eqs. 24a, 24b) for the ``K_t = len(u)`` ordered topics of ``q_t`` followed by the
    topics born in the batch; ``m`` (K,) the table totals ``sum_d s_dk``.

    (24a) ``pi'_k ~ Beta(u_k + m_k, v_k + sum_{j>k} m_j)`` for ``k < K_t``, the tables of the
    new topics counting as beyond every old one (:func:`stick_posterior`); (24b) the new topics
    with tables and the rest share the remainder ``pi_{>K_t}`` by
    ``Dir(m_{K_t}, ..., m_{K-1}, gamma)``; a new topic without tables gets 0.
    Returns ``(pi, rest)``.
    """
    Kt, m = len(u), np.asarray(m, float)
    ua, va = stick_posterior(u, v, m[:Kt])
    pi_old, r0 = sample_sticks(ua, va + m[Kt:].sum(), rng)       # eq. 24a; new tables beyond
    alive = np.flatnonzero(m[Kt:] > 0)
    rho = rng.dirichlet(np.concatenate([m[Kt:][alive], [gamma]]))                # eq. 24b
    pi = np.zeros(m.size)
    pi[:Kt] = pi_old
    pi[Kt + alive] = r0 * rho[:-1]
    return pi, r0 * rho[-1]


def expected_sticks(u, v):
    """``E[pi_k]`` under ``q(pi') = prod_k Beta(u_k, v_k)`` (eq. P1)."""
    u, v = np.asarray(u, float), np.asarray(v, float)
    stay = v / (u + v)
    return u / (u + v) * np.concatenate([[1.0], np.cumprod(stay)[:-1]])         # eq. P1


class _BatchCounts:
    """The sampler's per-batch state with room for new topics: ``z``, the counts, the weights
    ``pi`` of the instantiated topics and the remainder.  :meth:`sweep` grows the capacity
    when the kernel runs out of it and resumes where it stopped; :meth:`compact` renumbers
    the topics after dead ones are removed."""

    def __init__(self, words, offsets, V, K, extra=32):
        self.words, self.offsets = words, offsets
        self.z = np.full(words.size, -1, np.int64)
        cap = K + extra
        self.ndk = np.zeros((offsets.size - 1, cap), np.int64)
        self.nwk = np.zeros((V, cap), np.int64)
        self.nk = np.zeros(cap, np.int64)
        self.pi = np.zeros(cap)
        self.rest = np.ones(1)
        self.n_topics = np.array([K], np.int64)

    @property
    def K(self):
        return int(self.n_topics[0])

    def _grow(self):
        extra = max(self.nk.size, 32)
        self.ndk = np.hstack([self.ndk, np.zeros((self.ndk.shape[0], extra), np.int64)])
        self.nwk = np.hstack([self.nwk, np.zeros((self.nwk.shape[0], extra), np.int64)])
        self.nk = np.concatenate([self.nk, np.zeros(extra, np.int64)])
        self.pi = np.concatenate([self.pi, np.zeros(extra)])

    def set_weights(self, pi, rest):
        self.pi[:] = 0.0
        self.pi[:pi.size] = pi
        self.rest[0] = rest

    def sweep(self, omega_T, omega_sum, mu, second, a, b, fresh_var, alpha, gamma, eta, seed):
        pos = 0
        while True:
            pos = hdp_sweep(self.words, self.offsets, pos, self.z, self.ndk, self.nwk, self.nk,
                            omega_T, omega_sum, self.pi, self.rest, self.n_topics, mu, second,
                            a, b, fresh_var, alpha, gamma, eta, seed)
            if pos == self.words.size:
                return
            self._grow()
            seed = -1                      # continue the same random stream

    def compact(self, keep):
        """Keep the topics ``keep`` (increasing indices, holding every token), renumbered
        ``0 .. len(keep) - 1``; returns the map old index -> new index (-1: removed)."""
        K, n = self.K, len(keep)
        new = np.full(K, -1, np.int64)
        new[keep] = np.arange(n)
        self.z = new[self.z]
        for arr in (self.ndk, self.nwk):
            arr[:, :n] = arr[:, keep]
            arr[:, n:K] = 0
        for arr in (self.nk, self.pi):
            arr[:n] = arr[keep]
            arr[n:K] = 0
        self.n_topics[0] = n
        return new


def _restrict_gaussian(mu, chol_inv, keep, K_w):
    """``q(w)`` of the topics ``keep`` (its marginal).  Topics from ``K_w`` on are new ones
    (``N(0, v^2)``, independent): if only such are removed the factors are simply cut."""
    removed = np.setdiff1d(np.arange(mu.shape[1]), keep)
    if removed.size == 0 or removed.min() >= K_w:
        return mu[:, keep], chol_inv[:, keep][:, :, keep]
    sigma = np.swapaxes(chol_inv, 1, 2) @ chol_inv
    sigma = sigma[:, keep][:, :, keep]
    L = np.linalg.cholesky(np.linalg.inv(sigma))
    return mu[:, keep], np.linalg.inv(L)


def _pad(x, K, axis, value=0.0):
    """``x`` extended (or cut) to ``K`` entries along ``axis``, new entries ``value``."""
    extra = K - x.shape[axis]
    if extra <= 0:
        return np.take(x, np.arange(K), axis=axis) if extra else x
    shape = list(x.shape)
    shape[axis] = extra
    return np.concatenate([x, np.full(shape, value, dtype=float)], axis=axis)


def _pad_square(x, K, diag):
    """(T, k, k) blocks extended to (T, K, K) with ``diag`` on the new diagonal entries (or
    cut to their leading K x K block)."""
    T, k, _ = x.shape
    if K <= k:
        return x[:, :K, :K] if K < k else x
    out = np.zeros((T, K, K))
    out[:, :k, :k] = x
    idx = np.arange(k, K)
    out[:, idx, idx] = diag
    return out


class PaMedHDPClassifier(_BayesPAClassifier):
    """Online Bayesian passive-aggressive MedHDP: a max-margin HDP topic model with
    one-vs-all Gibbs classifiers, learnt in one pass over a stream of mini-batches.

    The number of topics is inferred: the truncation-free sampler (eqs. 22a, 22b of the
    module docstring) creates a topic when a token draws one no document has used, and the
    stick weights ``q(pi'_k) = Beta(u_k, v_k)`` (eq. 20b) carry how much each topic is used.
    The passive-aggressive part is paMedLDA's: for each task the pseudo-likelihood
    ``exp(-2c (epsilon - y w' zbar)_+)`` with the augmentation ``lambda ~ GIG(1/2, 1, c^2 (zeta~^2
    + zbar' Sigma zbar))`` (eq. 16) and ``q(w) = N(mu, Sigma)`` updated by eq. 13.

    Parameters
    ----------
    alpha : float
        Document concentration: ``theta_d ~ DP(alpha, pi)`` (paper: 5).
    gamma : float
        Stick concentration: ``pi'_k ~ Beta(1, gamma)``.  The default is 10, not the paper's 1
        (see ``eta``).
    eta : float
        Symmetric topic Dirichlet ``phi_k ~ Dir(eta)``.  The default is 0.01, not the paper's
        0.45.  In one pass the topics are mostly created in the first mini-batch: after it
        the remainder ``pi_{>K}`` is about ``gamma / (gamma + number of tables)`` and a new
        topic's word factor ``1/W``, so later batches add few.  With the paper's values the
        first batch's topics stay near-uniform until they hold ~``W eta`` tokens and nearly
        every token joins one topic: on 20 Newsgroups (``W`` = 21,864) one pass left 11 topics
        and 0.275 accuracy on 2,000 held-out training documents (trained on the other 9,314;
        ``scripts/reproduce_pamedhdp.py --parts select``).  The grid gave
        (gamma, eta) = (1, 0.45): 0.275 [11 topics], (1, 0.05): 0.441 [17], (1, 0.01): 0.471
        [19], (10, 0.45): 0.788 [69], (10, 0.05): 0.821 [87], (10, 0.01): 0.858 [87],
        (30, 0.45): 0.836 [180], (30, 0.05): 0.857 [182], (30, 0.01): 0.858 [214];
        paMedLDA's best K on the same split: 0.814 (K = 40).
    epsilon : float
        Margin of the hinge loss (paper: 164).
    c : float
        Regularisation constant of the pseudo-likelihood ``exp(-2c (zeta)_+)`` (paper: 1).
    v : float
        Prior ``w_tau ~ N(0, v^2 I)``.  10 as in :class:`topics.bayespa.PaMedLDA`, not the
        paper's 1, which collapses the topics of the one-vs-all tasks on 20 Newsgroups.
    batch_size : int
        ``|B|``.
    n_samples : int
        ``J``, Gibbs samples of ``(Z, lambda, S, pi')`` per iteration.
    burn_in : int
        The paper's ``beta``: samples discarded, ``0 <= burn_in < n_samples``.
    n_gibbs : int
        ``I``, global/local iterations per mini-batch.
    n_passes : int
        Passes of :meth:`fit` (each adds the statistics again, as in paMedLDA).
    shuffle : bool
        :meth:`fit` visits the documents in a new random order each pass.
    prediction : {'gibbs', 'average'}
        One draw ``w ~ N(mu, Sigma)`` (the paper's Gibbs classifier) or ``mu``.
    n_transform_burn, n_transform_samples : int
        Fold-in sweeps discarded / averaged for ``E[zbar]`` of a test document (eq. P2);
        they may be changed by ``set_params`` after fit (read at prediction only).
    vocabulary : Vocabulary or None
        For text input (fitted in :meth:`fit`; :meth:`partial_fit` needs it fitted).
    random_state : int, None, numpy RandomState or Generator
        Seeds every random stream of the estimator (``None`` means 0, as in PaMedLDA).
        ``random_state`` and ``alpha`` (the fold-in's prior, ``alpha * topic_weights_``)
        changed by ``set_params`` after fit are refused by prediction and ``partial_fit``
        (``ValueError``; set them back or fit again).
    round_counts : bool, default False
        Round non-integer counts (e.g. TF-IDF weights) to the nearest integer.  By
        default such a matrix raises ``ValueError``: the Gibbs samplers need whole
        word counts.  Values within ``1e-8`` of an integer (e.g. ``2.0``) are always
        accepted; absurd counts (a cell above ``2**31 - 1``, or more tokens than this
        machine's memory can hold) are always refused.

    Attributes
    ----------
    n_topics_ : int
        ``K``, the number of topics in use (every one has data).
    classes_ : ndarray (T,)
    topic_word_ : ndarray (K, V)
        ``omega`` of ``q(Phi_k) = Dir(omega_k)`` (eq. 20a).
    components_ : ndarray (K, V)
        ``E[Phi]``.
    sticks_ : ndarray (K, 2)
        ``(u_k, v_k)`` of ``q(pi'_k) = Beta(u_k, v_k)`` (eq. 20b).
    topic_weights_ : ndarray (K,)
        ``E[pi_k]`` (eq. P1); ``1 - topic_weights_.sum()`` is the mass of unused topics.
    precision_, precision_chol_ : ndarray (T, K, K)
        ``Sigma^{-1}`` per task and its lower Cholesky factor.
    linear_ : ndarray (T, K)
        ``Sigma^{-1} mu``.
    coef_mean_ : ndarray (T, K)
        ``mu``.
    coef_ : ndarray (T, K)
        The weights used to predict (a draw from ``q(w)`` or ``mu``).
    n_topics_history_ : list of int
        ``K`` after each mini-batch.
    n_docs_seen_, n_batches_seen_ : int
    fit_time_ : float
        Seconds spent in updates (``fit``: the whole fit; ``partial_fit`` accumulates).
    """

    def __init__(self, alpha=5.0, gamma=10.0, eta=0.01, epsilon=164.0, c=1.0, v=10.0,
                 batch_size=512, n_samples=2, burn_in=0, n_gibbs=1, n_passes=1, shuffle=True,
                 prediction="gibbs", n_transform_burn=100, n_transform_samples=100,
                 vocabulary=None, random_state=0, round_counts=False):
        self.alpha = alpha
        self.gamma = gamma
        self.eta = eta
        self.epsilon = epsilon
        self.c = c
        self.v = v
        self.batch_size = batch_size
        self.n_samples = n_samples
        self.burn_in = burn_in
        self.n_gibbs = n_gibbs
        self.n_passes = n_passes
        self.shuffle = shuffle
        self.prediction = prediction
        self.n_transform_burn = n_transform_burn
        self.n_transform_samples = n_transform_samples
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts

    #: the fold-in's seed and prior (:class:`topics.bayespa._BayesPAClassifier`)
    _FITTED_SETTINGS = ("random_state", "alpha")

    # ------------------------------------------------------------------ checks
    def _check_model_params(self):
        check_sweep_counts(self, {}, positive=("alpha", "gamma", "eta"))   # "1": ">"'s error

    @property
    def n_topics_(self):
        return int(self.topic_word_.shape[0])

    @property
    def topic_weights_(self):
        return expected_sticks(self.sticks_[:, 0], self.sticks_[:, 1])

    # ------------------------------------------------------------------ state
    def _init_state(self, V):
        self.topic_word_ = np.zeros((0, V))
        self.sticks_ = np.zeros((0, 2))
        self._init_gaussian(0)
        self.n_topics_history_ = []
        self._init_stream()
        self._set_coef()

    def _update_batch(self, words, offsets, Y):
        """Algorithm 1 with the local sampler of eqs. 22a-24 for one mini-batch."""
        rng = self.random_state_
        Kt, V = self.topic_word_.shape
        B, T = Y.shape
        c, eps, alpha = float(self.c), float(self.epsilon), float(self.alpha)
        gamma, eta, v0 = float(self.gamma), float(self.eta), float(self.v)
        J, burn = int(self.n_samples), int(self.burn_in)
        if words.size == 0:                          # nothing to learn from
            self._count_batch(B)
            return
        nd = _doc_lengths(offsets)
        has = nd > 0
        omega0, (u0, w0) = self.topic_word_, self.sticks_.T              # q_t(Phi), q_t(pi')
        P0, h0 = self.precision_, self.linear_
        mu, chol = self.coef_mean_, self.precision_chol_
        omega_T, omega_sum = np.ascontiguousarray(omega0.T), omega0.sum(axis=1)
        st = _BatchCounts(words, offsets, V, Kt)
        no_label = np.zeros((B, T))

        def seed():
            return int(rng.integers(2**31 - 1))

        # Topics below K_w are in the current q(w) (q_t's, then the last global update's);
        # the others are new, N(0, v^2) and independent, so their rows are padded or cut.
        K_w = Kt
        for it in range(int(self.n_gibbs)):
            Li = np.linalg.inv(chol)
            kept, used = [], np.zeros(st.K, np.int64)

            def after_sweep(mu, Li, used):
                """Remove the topics born in the batch that died and are in no kept sample."""
                nonlocal K_w
                K = st.K
                mu, Li = _pad(mu, K, 1), _pad_square(Li, K, v0)
                used = _pad(used, K, 0).astype(np.int64)
                dead = (np.arange(K) >= Kt) & (st.nk[:K] == 0) & (used == 0)
                if dead.any():
                    keep = np.flatnonzero(~dead)
                    new = st.compact(keep)
                    mu, Li = _restrict_gaussian(mu, Li, keep, K_w)
                    K_w = int((keep < K_w).sum())
                    used = used[keep]
                    for smp in kept:
                        smp["z"] = new[smp["z"]]
                        smp["zbar"] = smp["zbar"][:, keep[keep < smp["zbar"].shape[1]]]
                        smp["m"] = smp["m"][keep[keep < smp["m"].size]]
                return mu, Li, used

            if it == 0:     # pi' ~ q_t(pi'), one sequential sweep without the label term
                st.set_weights(*sample_sticks(u0, w0, rng))
                st.sweep(omega_T, omega_sum, mu, second_moments(mu, Li), no_label, no_label,
                         v0 ** 2, alpha, gamma, eta, seed())
                mu, Li, used = after_sweep(mu, Li, used)
                lam, _ = draw_lambda(st.ndk[:, :st.K], nd, Y, mu, Li, c, eps, rng)  # eq. 16
                st.set_weights(*sample_weights(u0, w0, sample_tables(
                    st.ndk, st.pi, st.K, alpha, seed()), gamma, rng))        # eqs. 23, 24a, 24b
            for j in range(J):
                a, b = label_coefficients(Y, lam, nd, c, eps)
                st.sweep(omega_T, omega_sum, mu, second_moments(mu, Li), a, b, v0 ** 2, alpha,
                         gamma, eta, seed())                                # eqs. 22a, 22b
                mu, Li, used = after_sweep(mu, Li, used)
                K = st.K
                lam, zbar = draw_lambda(st.ndk[:, :K], nd, Y, mu, Li, c, eps, rng)  # eq. 16
                m = sample_tables(st.ndk, st.pi, K, alpha, seed())                   # eq. 23
                st.set_weights(*sample_weights(u0, w0, m, gamma, rng))            # eqs. 24a, 24b
                if j >= burn:
                    kept.append({"z": st.z.copy(), "zbar": zbar, "lam": lam, "m": m})
                    used += np.bincount(st.z, minlength=K)
            # global update over the K topics instantiated now (the sampler's numbering)
            K = st.K
            omega = topic_dirichlet_update(_pad(omega0, K, 0, eta), [smp["z"] for smp in kept],
                                           words)                                   # eq. 20a
            zbars = np.stack([_pad(smp["zbar"], K, 1) for smp in kept])
            lams = np.stack([smp["lam"] for smp in kept])
            P, h, mu, chol = gaussian_update(_pad_square(P0, K, v0 ** -2), _pad(h0, K, 1),
                                             zbars[:, has], lams[:, has], Y[has], c,
                                             eps)                                   # eq. 20c
            mbar = np.mean([_pad(smp["m"], K, 0) for smp in kept], axis=0)
            K_w = K
        self._commit_batch(Kt, K, mbar, u0, w0, omega, P, h, mu)
        self._count_batch(B)

    def _commit_batch(self, Kt, K, mbar, u0, w0, omega, P, h, mu):
        """The global parameters after a batch, over its ``K`` topics: the new topics (from
        ``Kt`` on) join the ordered sticks by decreasing expected number of tables (the
        likeliest size-biased order); then eq. 20b."""
        order = np.concatenate([np.arange(Kt), Kt + np.argsort(-mbar[Kt:], kind="stable")])
        u, w = stick_posterior(_pad(u0, K, 0, 1.0), _pad(w0, K, 0, float(self.gamma)),
                               mbar[order])                                         # eq. 20b
        P, h = P[:, order][:, :, order], h[:, order]
        self.topic_word_, self.sticks_ = omega[order], np.column_stack([u, w])
        self.precision_, self.linear_ = P, h
        self.precision_chol_ = np.linalg.cholesky(P)
        self.coef_mean_ = mu[:, order]

    def _count_batch(self, B):
        """Bookkeeping after a batch of ``B`` documents."""
        self.n_docs_seen_ += B
        self.n_batches_seen_ += 1
        self.n_topics_history_.append(self.n_topics_)

    # ------------------------------------------------------------------ inference
    def _doc_topic(self, words, offsets, seed):
        """``E[zbar_d]`` by fold-in (eq. P2) over the ``K`` topics; an empty document gets the
        normalised ``E[pi]``."""
        K = self.n_topics_
        if K == 0:
            return np.zeros((offsets.size - 1, 0))
        return fold_in_documents(words, offsets, self.components_,                 # eq. P2
                                 float(self.alpha) * self.topic_weights_,
                                 int(self.n_transform_burn), int(self.n_transform_samples), seed)
