"""Latent Dirichlet allocation by collapsed Gibbs sampling (Griffiths & Steyvers 2004).

Model: ``theta_d ~ Dir(alpha)``, ``phi_k ~ Dir(beta)``, ``z_dn ~ theta_d``,
``w_dn ~ phi_{z_dn}``, symmetric ``alpha`` and ``beta``.  Integrating out
``theta`` and ``phi`` gives the collapsed conditional of one token

.. math::
    p(z_{dn} = k \\mid z_{-dn}, w) \\propto
    (n_{dk}^{-dn} + \\alpha)\\,
    \\frac{n_{kw}^{-dn} + \\beta}{n_k^{-dn} + V\\beta},

which one sweep (:func:`gibbs_sweep`, numba) applies to every token of the
flat token array in turn.  ``Phi`` is read out as its posterior mean given the
last sample (thesis eq. 4.27), ``phi_kw = (n_kw + beta) / (n_k + V beta)``.
Held-out documents are folded in with ``Phi`` fixed:
``p(z = k) ∝ (n_dk + alpha) phi_kw``, and ``E[theta_d]`` is averaged over the
samples after burn-in (:meth:`LDA.transform`).

Random streams.  No kernel relies on numba's process-wide random state being left as
some earlier call left it.  Training sweeps seed it at their start from the estimator's
``random_state`` (:func:`derive_seed`), and fold-in runs one chain per document,
seeded from ``random_state`` and the document's own tokens (:func:`doc_seed`,
:func:`fold_in_per_document`), so a document's features do not depend on the other
documents of the call, on their order, or on what ran before.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from structpred.learners import check_iterations

from structpred import check_positive, estimator_seed, resolve_seed, unmasked

from ._validation import (check_documents_have_text, check_sweep_counts, check_whole,
                          documents_or_counts, validate_count_input)
from .corpus import (Vocabulary, as_count_matrix, check_topic_tables, is_text_input,
                     token_arrays)

__all__ = ["LDA", "gibbs_sweep", "gibbs_sweep_biased", "fold_in_sweep", "fold_in_sweep_grouped",
           "fold_in_per_document", "doc_seed", "counter_seed", "derive_seed", "collapsed_log_joint",
           "init_counts"]


@nb.njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


def derive_seed(random_state, *keys):
    """A seed in ``[0, 2**31 - 1)`` for numba's generator, a function of ``random_state``
    (an int; ``None`` draws fresh entropy) and the integer ``keys`` only (e.g. a purpose and a
    sweep or document counter), so that each stream can be rebuilt without replaying others."""
    entropy = np.random.SeedSequence(resolve_seed(random_state)).entropy   # a RandomState too
    return int(np.random.default_rng([entropy, *[int(k) for k in keys]]).integers(2**31 - 1))


@nb.njit(cache=True)
def counter_seed(seed, counter):
    """A seed in ``[1, 2**31 - 1)`` from ``seed`` and an integer counter (splitmix64), for
    streams indexed by a position in a data stream rather than by what ran before."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(counter)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return np.int64(x % np.uint64(2147483646)) + 1


@nb.njit(cache=True)
def doc_seed(seed, words, start, stop):
    """A seed from ``seed`` and the tokens ``words[start:stop]`` of one document (a content
    hash with no position in it), so that the document's chain does not depend on the other
    documents of the batch or their order."""
    h = np.int64(seed) % 2147483647
    for i in range(start, stop):
        h = (h * 1000003 + words[i] + 1) % 2147483647
    return h + 1


@nb.njit(cache=True)
def _draw_cumulative(cum):
    """Index drawn with probability proportional to the increments of ``cum``
    (the running sums of the unnormalised weights)."""
    u = np.random.random() * cum[cum.size - 1]
    k = 0
    while k < cum.size - 1 and cum[k] <= u:
        k += 1
    return k


@nb.njit(cache=True)
def init_counts(words, docs, z, n_docs, n_topics, n_words):
    """Count matrices ``n_dk`` (D x K), ``n_wk`` (V x K, word-major so that the
    K counts of one word are contiguous in the sweep) and ``n_k`` of ``z``."""
    ndk = np.zeros((n_docs, n_topics), np.int64)
    nwk = np.zeros((n_words, n_topics), np.int64)
    nk = np.zeros(n_topics, np.int64)
    for i in range(words.size):
        ndk[docs[i], z[i]] += 1
        nwk[words[i], z[i]] += 1
        nk[z[i]] += 1
    return ndk, nwk, nk


@nb.njit(cache=True)
def gibbs_sweep_biased(words, docs, z, ndk, nwk, nk, alpha, beta, bias_row, exp_bias):
    """One collapsed Gibbs sweep with a per-document topic bias (in place).

    ``p(z_dn = k | ...) ∝ (n_dk + alpha) (n_kw + beta) / (n_k + V beta) * exp_bias[r, k]``
    with ``r = bias_row[d]``; documents with ``bias_row[d] < 0`` get no bias, which is the
    plain LDA conditional (and the very same arithmetic and random draws as
    :func:`gibbs_sweep`).  MedLDA's sampler (Jiang et al. 2012, eq. 21) stores
    ``exp(B_dk)`` only for the documents with non-zero multipliers.

    The denominators ``1 / (n_k + V beta)`` are cached and updated only for the
    two topics a token leaves and joins, so the inner loop over topics is one
    fused multiply over contiguous memory (``n_dk`` row, ``n_wk`` row).
    """
    n_words, n_topics = nwk.shape
    vbeta = n_words * beta
    p = np.empty(n_topics)
    inv = np.empty(n_topics)
    for t in range(n_topics):
        inv[t] = 1.0 / (nk[t] + vbeta)
    for i in range(words.size):
        w, d, k = words[i], docs[i], z[i]
        ndk[d, k] -= 1
        nwk[w, k] -= 1
        nk[k] -= 1
        inv[k] = 1.0 / (nk[k] + vbeta)
        total = 0.0
        r = bias_row[d]
        if r < 0:
            for t in range(n_topics):
                total += (ndk[d, t] + alpha) * (nwk[w, t] + beta) * inv[t]
                p[t] = total
        else:
            for t in range(n_topics):
                total += (ndk[d, t] + alpha) * (nwk[w, t] + beta) * inv[t] * exp_bias[r, t]
                p[t] = total
        k = _draw_cumulative(p)
        z[i] = k
        ndk[d, k] += 1
        nwk[w, k] += 1
        nk[k] += 1
        inv[k] = 1.0 / (nk[k] + vbeta)


@nb.njit(cache=True)
def gibbs_sweep(words, docs, z, ndk, nwk, nk, alpha, beta):
    """One collapsed Gibbs sweep over all tokens (in place): :func:`gibbs_sweep_biased`
    with no document biased."""
    gibbs_sweep_biased(words, docs, z, ndk, nwk, nk, alpha, beta,
                       np.full(ndk.shape[0], -1, np.int64), np.ones((1, nwk.shape[1])))


@nb.njit(cache=True)
def fold_in_sweep_grouped(words, docs, z, ndk, phis, doc_group, alpha):
    """One Gibbs sweep of held-out tokens with topic-word tables fixed (in place).

    Document ``d`` uses the table ``phis[doc_group[d]]`` (``phis`` is G x K x V):
    ``p(z = k) ∝ (n_dk + alpha) phis[g, k, w]``.  With one group this is the
    plain LDA fold-in (:func:`fold_in_sweep`); DiscLDA uses one group per class,
    ``phis[y] = (Phi T^y)^T``, which is its conditional (thesis eq. 4.22).
    """
    n_topics = phis.shape[1]
    p = np.empty(n_topics)
    for i in range(words.size):
        w, d, k = words[i], docs[i], z[i]
        g = doc_group[d]
        ndk[d, k] -= 1
        total = 0.0
        for t in range(n_topics):
            total += (ndk[d, t] + alpha) * phis[g, t, w]
            p[t] = total
        k = _draw_cumulative(p)
        z[i] = k
        ndk[d, k] += 1


@nb.njit(cache=True)
def fold_in_sweep(words, docs, z, ndk, phi, alpha):
    """One Gibbs sweep of held-out tokens with ``Phi`` fixed (in place)."""
    phis = np.ascontiguousarray(phi).reshape((1, phi.shape[0], phi.shape[1]))
    fold_in_sweep_grouped(words, docs, z, ndk, phis, np.zeros(ndk.shape[0], np.int64), alpha)


@nb.njit(cache=True)
def fold_in_per_document(words, offsets, phi, alpha, n_burn, n_samples, seed):
    """Mean topic counts ``E[n_dk]`` (D x K) of each document by Gibbs fold-in with ``phi``
    (K x V) fixed: ``p(z = k) ∝ (n_dk + alpha_k) phi_kw`` with the per-topic prior ``alpha``
    (K,), averaged over ``n_samples`` sweeps after ``n_burn``.

    Every document runs its own chain, seeded with :func:`doc_seed` from ``seed`` and its
    tokens and started from a uniform random assignment, so its result depends on nothing
    else (the other documents, their order, earlier calls).  An empty document gets zeros.
    """
    n_docs = offsets.size - 1
    K = phi.shape[0]
    out = np.zeros((n_docs, K))
    p = np.empty(K)
    for d in range(n_docs):
        start, stop = offsets[d], offsets[d + 1]
        n = stop - start
        if n == 0:
            continue
        np.random.seed(doc_seed(seed, words, start, stop))
        z = np.empty(n, np.int64)
        ndk = np.zeros(K, np.int64)
        for i in range(n):
            z[i] = np.random.randint(0, K)
            ndk[z[i]] += 1
        for s in range(n_burn + n_samples):
            for i in range(n):
                w, k = words[start + i], z[i]
                ndk[k] -= 1
                total = 0.0
                for t in range(K):
                    total += (ndk[t] + alpha[t]) * phi[t, w]
                    p[t] = total
                k = _draw_cumulative(p)
                z[i] = k
                ndk[k] += 1
            if s >= n_burn:
                for k in range(K):
                    out[d, k] += ndk[k]
    return out / max(n_samples, 1)


@nb.njit(cache=True)
def _run(words, docs, z, ndk, nwk, nk, alpha, beta, n_sweeps):
    for _ in range(n_sweeps):
        gibbs_sweep(words, docs, z, ndk, nwk, nk, alpha, beta)


@nb.njit(cache=True)
def _run_seeded(words, docs, z, ndk, nwk, nk, alpha, beta, n_sweeps, seed):
    """``n_sweeps`` sweeps after seeding numba's generator with ``seed`` (the estimator's
    own stream, not whatever state an earlier call left)."""
    np.random.seed(seed)
    _run(words, docs, z, ndk, nwk, nk, alpha, beta, n_sweeps)


def collapsed_log_joint(ndk, nwk, alpha, beta):
    """``log p(w, z)`` with ``theta`` and ``phi`` integrated out (Griffiths & Steyvers eq. 2-3).

    ``nwk`` is the word-major (V x K) count matrix of :func:`init_counts`.
    """
    from scipy.special import gammaln

    nkw = nwk.T
    n_topics, n_words = nkw.shape
    nd = ndk.sum(axis=1)
    nk = nkw.sum(axis=1)
    doc = (gammaln(n_topics * alpha) - gammaln(nd + n_topics * alpha)).sum() \
        + (gammaln(ndk + alpha) - gammaln(alpha)).sum()
    top = n_topics * gammaln(n_words * beta) - gammaln(nk + n_words * beta).sum() \
        + (gammaln(nkw + beta) - gammaln(beta)).sum()
    return float(doc + top)


class LDA(BaseEstimator):
    """Latent Dirichlet allocation fitted by collapsed Gibbs sampling.

    Parameters
    ----------
    n_topics : int
        ``K``.
    alpha : float or None
        Symmetric document-topic prior; ``None`` means ``50 / K`` (Griffiths &
        Steyvers 2004).
    beta : float
        Symmetric topic-word prior.
    n_iter : int
        Gibbs sweeps over the training tokens.
    n_transform_burn, n_transform_samples : int
        Sweeps discarded / averaged when folding in documents in :meth:`transform`.
    evaluate_every : int
        Record ``log p(w, z)`` every so many sweeps (0: never).
    vocabulary : :class:`~topics.corpus.Vocabulary` or None
        Used when ``fit`` gets raw texts or token lists (default: ``Vocabulary()``).
    random_state : int, None, numpy RandomState or Generator
    round_counts : bool, default False
        Round non-integer counts (e.g. TF-IDF weights) to the nearest integer.  By
        default such a matrix raises ``ValueError``: the Gibbs sampler needs whole
        word counts.  Values within ``1e-8`` of an integer (e.g. ``2.0``) are always
        accepted; absurd counts (a cell above ``2**31 - 1``, or more tokens than this
        machine's memory can hold) are always refused.

    Attributes
    ----------
    components_ : ndarray (K, V)
        Posterior mean of ``Phi`` given the last sample (eq. 4.27).
    log_likelihood_ : list of (sweep, log p(w, z))
    vocabulary_ : Vocabulary or None
    seed_ : int
        ``random_state`` (fresh entropy when it is ``None``): the root of the training
        sweeps' and the fold-in chains' random streams.
    """

    def __init__(self, n_topics=20, alpha=None, beta=0.01, n_iter=200, n_transform_burn=20,
                 n_transform_samples=30, evaluate_every=10, vocabulary=None, random_state=0,
                 round_counts=False):
        self.n_topics = n_topics
        self.alpha = alpha
        self.beta = beta
        self.n_iter = n_iter
        self.n_transform_burn = n_transform_burn
        self.n_transform_samples = n_transform_samples
        self.evaluate_every = evaluate_every
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts


    @property
    def alpha_(self):
        """The prior of the fitted model (``50 / n_topics`` for ``alpha=None``), fixed at fit:
        ``set_params(n_topics=..., alpha=...)`` takes effect at the next fit (transform read
        them anew: another prior for the fitted topics)."""
        kept = self.__dict__.get("_fitted_alpha")
        if kept is not None:
            return kept
        return 50.0 / self.n_topics if self.alpha is None else float(self.alpha)

    def _check_params(self):
        check_whole("n_topics", self.n_topics)
        check_iterations(self.n_iter)   # 0 sweeps left the topics at random
        check_sweep_counts(self, {"n_transform_burn": 0, "n_transform_samples": 1}
                           if self.evaluate_every is None else
                           {"n_transform_burn": 0, "n_transform_samples": 1,
                            "evaluate_every": 0})
        if self.alpha is not None:
            check_positive("alpha", self.alpha)
        check_positive("beta", self.beta)

    def _counts(self, X, fitting):
        X = unmasked(documents_or_counts(self, X), "LDA: X")
        if isinstance(X, (str, bytes)) or (getattr(X, "ndim", 2) != 2
                                           and not is_text_input(X)):
            # the classifiers' words ("got a single string; wrap it in a list", "got a 1-D
            # array ... Reshape"): LDA said "got 0-D" and "got 1-D"
            validate_count_input(self, X, reset=False)
        if isinstance(X, (list, tuple)) and len(X) == 0:   # was "got 1-D" (a matrix's words)
            raise ValueError(f"LDA: X holds no documents (an empty {type(X).__name__})")
        if is_text_input(X):
            check_documents_have_text(self, X)
        if fitting:
            self.vocabulary_ = None
            if is_text_input(X):
                # a copy (topics._validation.count_matrix): the one given stays a setting
                self.vocabulary_ = (clone(self.vocabulary, safe=False) if self.vocabulary
                                    is not None else Vocabulary()).fit(list(X))
        return as_count_matrix(X, getattr(self, "vocabulary_", None), integer=True,
                               round_counts=self.round_counts)

    def fit(self, X, y=None):
        """Run ``n_iter`` sweeps on the corpus ``X`` (texts, token lists or counts)."""
        self._check_params()
        self.__dict__.pop("_fitted_alpha", None)
        X = self._counts(X, fitting=True)
        words, docs, _ = token_arrays(X)
        if words.size == 0:
            raise ValueError("the corpus has no tokens")
        K, V = int(self.n_topics), X.shape[1]
        check_topic_tables(K, V, X.shape[0])
        self.seed_ = int(np.random.SeedSequence(estimator_seed(self)).entropy)
        rng = np.random.default_rng(self.seed_)
        first_seed = int(rng.integers(2**31 - 1))
        z = rng.integers(0, K, size=words.size).astype(np.int64)
        ndk, nwk, nk = init_counts(words, docs, z, X.shape[0], K, V)
        alpha, beta = self.alpha_, float(self.beta)
        self.log_likelihood_ = []
        if self.evaluate_every:  # the random initialisation, for reference
            self.log_likelihood_.append((0, collapsed_log_joint(ndk, nwk, alpha, beta)))
        done = 0
        step = self.evaluate_every if self.evaluate_every else self.n_iter
        while done < self.n_iter:
            n = min(step, self.n_iter - done)
            # each block of sweeps seeds numba's generator from this estimator's stream
            seed = first_seed if done == 0 else derive_seed(self.seed_, 0, done)
            _run_seeded(words, docs, z, ndk, nwk, nk, alpha, beta, n, seed)
            done += n
            if self.evaluate_every:
                self.log_likelihood_.append((done, collapsed_log_joint(ndk, nwk, alpha, beta)))
        self.n_features_in_ = V
        self.topic_word_counts_ = np.ascontiguousarray(nwk.T)
        self.doc_topic_counts_ = ndk
        self.components_ = (self.topic_word_counts_ + beta) / (nk[:, None] + V * beta)  # eq. 4.27
        self._fitted_alpha = alpha
        return self

    def transform(self, X):
        """``E[theta_d | w_d, Phi]`` for each document, by Gibbs fold-in with ``Phi`` fixed
        (:func:`fold_in_per_document`: one chain per document, seeded from ``random_state`` and
        the document's tokens, so the result for a document does not depend on the others).

        Unknown words are dropped; a document left without a word (unknown or stop words
        only, or an empty count row) gets the prior mean ``1/K``; a text that is empty or
        blank is refused, as by the command line (:func:`topics._validation.check_documents_have_text`).
        """
        if not hasattr(self, "components_"):
            raise NotFittedError("this LDA is not fitted yet")
        X = self._counts(X, fitting=False)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} columns, the model has {self.n_features_in_}")
        words, _, offsets = token_arrays(X)
        K = self.components_.shape[0]   # the fitted topics, not n_topics set since
        mean_counts = fold_in_per_document(words, offsets, self.components_,
                                           np.full(K, self.alpha_), int(self.n_transform_burn),
                                           int(self.n_transform_samples),
                                           derive_seed(self.seed_, 1))
        nd = np.asarray(X.sum(axis=1)).ravel()
        return (mean_counts + self.alpha_) / (nd[:, None] + K * self.alpha_)

    def fit_transform(self, X, y=None):
        return self.fit(X).transform(X)

    def top_words(self, k=10):
        """The ``k`` most probable words of each topic (ids, or words with a vocabulary)."""
        order = np.argsort(-self.components_, axis=1)[:, :k]
        if getattr(self, "vocabulary_", None) is None:
            return order.tolist()
        return [[self.vocabulary_.words_[i] for i in row] for row in order]

