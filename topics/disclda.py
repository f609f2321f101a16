"""DiscLDA: discriminative LDA with class-dependent topic transformations
(Lacoste-Julien, Sha & Jordan 2009; Lacoste-Julien thesis 2009, chapter 4).

Model (thesis fig. 4.3, eq. 4.1).  Each class ``y`` owns a transformation
``T^y`` (``K x L``, columns on the simplex).  For a document of class ``y``::

    theta_d ~ Dir(alpha)                     (L-dim)
    z_dn    ~ Multi(theta_d)                 (z-topics, 1..L)
    u_dn    ~ Multi(T^y[:, z_dn])            (u-topics, 1..K), p(u=k | z=l) = T^y_kl
    w_dn    ~ Multi(phi_{u_dn}),  phi_k ~ Dir(beta)

Marginalising ``u`` gives class-dependent word distributions
``Phi^y = Phi T^y`` (eq. 4.3, 4.20); marginalising ``z`` gives the transformed
proportions ``T^y theta`` (eq. 4.21).

Two modes
---------
* **Fixed T** (``learn_transform=False``): the block matrices of eq. 4.11 --
  ``B_c`` class-specific topics per class and ``B_s`` shared topics,
  ``K = C B_c + B_s``, ``L = B_c + B_s``.  Given ``z`` the topic ``u`` is then
  deterministic, and the joint sampler (eq. 4.25) is exactly collapsed LDA on
  the ``K`` topics in which a document of class ``y`` may only use its class
  block and the shared block.  :func:`joint_sweep` visits only the non-zero
  entries of ``T^y``, so a sweep costs ``L`` (not ``K L``) per token.
* **Learned T** (``learn_transform=True``): the algorithm of thesis Table 4.1,
  with ``T^y`` parametrised column-wise by a softmax (appendix 4.A.1.2),
  initialised at ``t_0^y = 3 T^y - 2`` (footnote 10), gradient ascent on the
  conditional log-likelihood (eq. 4.17), local ``Phi`` updates (eqs. 4.22,
  4.24, 4.27) and the iterate with the smallest validation error returned.

Label posterior
---------------
``p(y | w_d) ∝ p(y) Z_y`` with ``Z_y = p(w_d | y, T, Phi) = sum_z p(w_d | z, y) p(z)``.
For every document we run one Gibbs chain per class on ``p(z_d | y, w_d)``
(eq. 4.22, the LDA fold-in kernel with the table ``Phi^y``) and estimate

* **bridge sampling** with the geometric bridge ``sqrt(q_a q_b)`` (eq. 4.33)::

      Z_a / Z_b ≈ sum_i h_ab(z^(i)b) / sum_i h_ba(z^(i)a),
      h_ab(z) = prod_n sqrt(Phi^a_{w_n z_n} / Phi^b_{w_n z_n}),

  every pair ``(a, b)`` is available from the same chains; ``reference``
  chooses how the pairs are combined into ``log Z_y`` (the thesis uses the last
  class as the reference);
* the **harmonic-mean** estimator (Newton & Raftery 1994)
  ``Z_y ≈ [ (1/M) sum_i 1 / p(w_d | z^(i)y, y) ]^{-1}`` (thesis app. 4.B.1).

The chains and these estimators are in :mod:`topics._disclda_posterior`.

Each document's chains are seeded from ``random_state`` and the document's
tokens, so results do not depend on the batch a document comes in.

Reduced representation (eqs. 4.9, 4.10, 4.29)::

    E[T^y theta_d | w_d]_k ≈ sum_y p(y | w_d) sum_l T^y_kl (alpha + n_l(y)) / (L alpha + N_d),

with ``n_l(y)`` the mean z-counts of the class-``y`` chain.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.exceptions import NotFittedError


from ._disclda_posterior import (REFERENCES, class_topic_tables, exact_label_posterior,
                                 harmonic_log_posterior, label_chains, label_log_posterior)
from ._validation import (CountClassifierTags, check_fitted_settings, count_matrix,
                          keep_fitted_settings, labelled_corpus, seed_of)
from .corpus import token_arrays
from .lda import _draw_cumulative, _seed, fold_in_sweep_grouped, init_counts

__all__ = ["DiscLDA", "block_transform", "class_topic_tables", "joint_sweep",
           "label_chains", "label_log_posterior", "harmonic_log_posterior",
           "exact_label_posterior", "REFERENCES"]


# --------------------------------------------------------------------------- T^y

def block_transform(n_classes, n_class_topics, n_shared_topics):
    """The fixed block transformations of thesis eq. 4.11 (eq. 4.5 for C = 2).

    Returns ``T`` of shape ``(C, K, L)`` with ``K = C B_c + B_s`` and
    ``L = B_c + B_s``: ``T[y]`` maps the first ``B_c`` z-topics onto the
    u-topics ``y B_c, ..., y B_c + B_c - 1`` and the last ``B_s`` z-topics onto
    the shared u-topics ``C B_c, ..., K - 1``.
    """
    C, Bc, Bs = int(n_classes), int(n_class_topics), int(n_shared_topics)
    K, L = C * Bc + Bs, Bc + Bs
    T = np.zeros((C, K, L))
    for y in range(C):
        T[y, y * Bc + np.arange(Bc), np.arange(Bc)] = 1.0
        T[y, C * Bc + np.arange(Bs), Bc + np.arange(Bs)] = 1.0
    return T


def _softmax_columns(t):
    """``T_kl = exp(t_kl) / sum_r exp(t_rl)`` for each class (app. 4.A.1.2)."""
    e = np.exp(t - t.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _pairs(T, tol=0.0):
    """Non-zero entries ``(k, l, T^y_kl)`` of each ``T^y``, padded to a common length."""
    C = T.shape[0]
    lists = [np.argwhere(T[y] > tol) for y in range(C)]
    P = max(len(a) for a in lists)
    pk = np.zeros((C, P), np.int64)
    pl = np.zeros((C, P), np.int64)
    pt = np.zeros((C, P))
    n = np.zeros(C, np.int64)
    for y, a in enumerate(lists):
        n[y] = len(a)
        pk[y, :len(a)] = a[:, 0]
        pl[y, :len(a)] = a[:, 1]
        pt[y, :len(a)] = T[y, a[:, 0], a[:, 1]]
    return pk, pl, pt, n


# --------------------------------------------------------------------------- numba kernels

@nb.njit(cache=True)
def joint_sweep(words, docs, labels, z, u, ndl, nwk, nk, pair_k, pair_l, pair_t, n_pairs,
                alpha, beta):
    """One Rao-Blackwellised Gibbs sweep of ``(u, z)`` with ``theta`` and ``Phi``
    integrated out (thesis eq. 4.25), in place::

        p(u_dn = k, z_dn = l | rest) ∝ (m_kw + beta) / (m_k + V beta) T^y_kl (n_dl + alpha)

    ``ndl`` (D x L) counts z-topics per document, ``nwk`` (V x K, word-major)
    and ``nk`` count u-topics.  Only the ``n_pairs[y]`` non-zero entries
    ``(pair_k, pair_l, pair_t)`` of ``T^y`` are visited; with the block ``T``
    of eq. 4.11 this is collapsed LDA restricted to the class and shared blocks.
    """
    n_words = nwk.shape[0]
    n_topics = nk.size
    vbeta = n_words * beta
    p = np.empty(pair_k.shape[1])
    inv = np.empty(n_topics)
    for t in range(n_topics):
        inv[t] = 1.0 / (nk[t] + vbeta)
    for i in range(words.size):
        w, d, k, l = words[i], docs[i], u[i], z[i]
        y = labels[d]
        ndl[d, l] -= 1
        nwk[w, k] -= 1
        nk[k] -= 1
        inv[k] = 1.0 / (nk[k] + vbeta)
        total = 0.0
        npy = n_pairs[y]
        for j in range(npy):
            kk = pair_k[y, j]
            total += (ndl[d, pair_l[y, j]] + alpha) * (nwk[w, kk] + beta) * inv[kk] * pair_t[y, j]
            p[j] = total
        j = _draw_cumulative(p[:npy])
        k = pair_k[y, j]
        l = pair_l[y, j]
        u[i] = k
        z[i] = l
        ndl[d, l] += 1
        nwk[w, k] += 1
        nk[k] += 1
        inv[k] = 1.0 / (nk[k] + vbeta)


@nb.njit(cache=True)
def _run_joint(words, docs, labels, z, u, ndl, nwk, nk, pk, pl, pt, npairs, alpha, beta, n_sweeps):
    for _ in range(n_sweeps):
        joint_sweep(words, docs, labels, z, u, ndl, nwk, nk, pk, pl, pt, npairs, alpha, beta)


@nb.njit(cache=True)
def _run_fold_in(words, docs, z, ndk, phis, groups, alpha, n_sweeps):
    for _ in range(n_sweeps):
        fold_in_sweep_grouped(words, docs, z, ndk, phis, groups, alpha)


@nb.njit(cache=True)
def _sample_u(words, docs, labels, z, phi_wk, T, u):
    """Draw every ``u_dn`` from ``p(u = k | z_dn, y_d, w_dn) ∝ phi_kw T^y_{k z}``
    (eq. 4.24); ``phi_wk`` is V x K, or 1 x K for a uniform ``Phi``."""
    n_topics = T.shape[1]
    p = np.empty(n_topics)
    uniform = phi_wk.shape[0] == 1
    for i in range(words.size):
        w = 0 if uniform else words[i]
        y, l = labels[docs[i]], z[i]
        total = 0.0
        for k in range(n_topics):
            total += phi_wk[w, k] * T[y, k, l]
            p[k] = total
        u[i] = _draw_cumulative(p)


# --------------------------------------------------------------------------- estimator

class DiscLDA(CountClassifierTags, ClassifierMixin, TransformerMixin, BaseEstimator):
    """DiscLDA classifier and supervised dimensionality reduction (thesis ch. 4).

    Parameters
    ----------
    n_class_topics : int
        ``B_c``, class-specific topics per class.
    n_shared_topics : int
        ``B_s``, shared topics.  ``K = C B_c + B_s`` u-topics, ``L = B_c + B_s`` z-topics.
    learn_transform : bool
        False: fixed block ``T^y`` (eq. 4.11).  True: learn ``T`` (Table 4.1).
    alpha : float or None
        Symmetric Dirichlet on ``theta`` (L-dim); ``None`` means ``10 / K`` (thesis).
    beta : float
        Symmetric Dirichlet on the topics ``phi_k``.
    n_iter : int
        ``N``: joint (u, z) Gibbs sweeps of step 2 (eq. 4.25).
    n_burn, n_samples : int
        Burn-in sweeps and ``M`` samples of each per-class chain used for the
        label posterior and :meth:`transform` (thesis: 200 and 2,500; on 20
        Newsgroups the error is flat from ``M`` = 30 and burn-in 10 on, see
        ``--task mb``).
    label_estimator : {'bridge', 'harmonic'}
        Estimator of ``p(y | w_d)``.
    reference : {'mean', 'last', 'adaptive'}
        How the pairwise bridge ratios are combined: the least-squares mean
        over all pairs (default), ratios to the last class (thesis), or to the
        arg-max of that first estimate.  On 1,000 20 Newsgroups test documents
        'mean' had 0.3-1.3 points less error than 'last' at every burn-in and
        ``M`` tried (``scripts/reproduce_disclda.py --task mb``).
    n_outer, n_grad : int
        Learned mode: outer iterations of step 3, and ``N_g`` gradient steps each
        (thesis ``N_g = 10``).
    step_size : float
        ``eta``: the step on ``t`` is ``eta`` times the gradient averaged over
        the training documents.
    n_z_sweeps : int
        Learned mode: ``N`` sweeps of ``z`` given ``Phi`` in step 3b (eq. 4.22;
        thesis 200 -- the chain continues from the previous iterate's ``z``).
    grad_burn, grad_samples : int
        Learned mode: burn-in and samples of the per-class chains of each
        gradient step (the chains are warm-started between steps).
    validation_fraction : float
        Learned mode: stratified fraction of the training set held out to
        choose the iterate (thesis: 20%).
    init_gap : float
        Learned mode: ``t_0^y = g (T^y - 1) + 1`` for the block ``T^y``, i.e. a
        logit gap ``g`` between the block entries and the others; ``g = 3``
        is the thesis's ``3 T - 2`` (footnote 10), larger values start closer
        to the fixed block ``T``.
    vocabulary : Vocabulary or None
        Used when ``fit`` gets texts or token lists (default ``Vocabulary()``).
    random_state : int, None, numpy RandomState or Generator
        Seeds the fit and the chains of prediction: changed by ``set_params`` after fit,
        prediction refuses it (``ValueError``; set it back or fit again), while ``n_burn``,
        ``n_samples``, ``label_estimator`` and ``reference``, how long and how the chains
        of new documents are read, may change (the prior is ``alpha_``, the fit's).
    round_counts : bool, default False
        Round non-integer counts (e.g. TF-IDF weights) to the nearest integer.  By
        default such a matrix raises ``ValueError``: the Gibbs samplers need whole
        word counts.  Values within ``1e-8`` of an integer (e.g. ``2.0``) are always
        accepted; absurd counts (a cell above ``2**31 - 1``, or more tokens than this
        machine's memory can hold) are always refused.

    Attributes
    ----------
    classes_ : ndarray (C,)
    class_prior_ : ndarray (C,)
        ``p(y)``, the training class frequencies.
    transform_ : ndarray (C, K, L)
        ``T^y``.
    components_ : ndarray (K, V)
        ``Phi`` (posterior mean, eq. 4.27).
    validation_errors_ : list of float
        Learned mode: validation error of each iterate (0 = initial ``T``).
    """

    def __init__(self, n_class_topics=5, n_shared_topics=10, learn_transform=False, alpha=None,
                 beta=0.01, n_iter=200, n_burn=50, n_samples=100, label_estimator="bridge",
                 reference="mean", n_outer=5, n_grad=10, step_size=1.0, n_z_sweeps=20,
                 grad_burn=5, grad_samples=20, validation_fraction=0.2, init_gap=3.0,
                 vocabulary=None, random_state=0, round_counts=False):
        self.n_class_topics = n_class_topics
        self.n_shared_topics = n_shared_topics
        self.learn_transform = learn_transform
        self.alpha = alpha
        self.beta = beta
        self.n_iter = n_iter
        self.n_burn = n_burn
        self.n_samples = n_samples
        self.label_estimator = label_estimator
        self.reference = reference
        self.n_outer = n_outer
        self.n_grad = n_grad
        self.step_size = step_size
        self.n_z_sweeps = n_z_sweeps
        self.grad_burn = grad_burn
        self.grad_samples = grad_samples
        self.validation_fraction = validation_fraction
        self.init_gap = init_gap
        self.vocabulary = vocabulary
        self.random_state = random_state
        self.round_counts = round_counts

    # ------------------------------------------------------------------ helpers
    def _check_params(self):
        if int(self.n_class_topics) < 1 or int(self.n_shared_topics) < 0:
            raise ValueError("n_class_topics must be >= 1 and n_shared_topics >= 0")
        if self.alpha is not None and not self.alpha > 0:
            raise ValueError("alpha must be positive")
        if not self.beta > 0:
            raise ValueError("beta must be positive")
        if self.label_estimator not in ("bridge", "harmonic"):
            raise ValueError("label_estimator must be 'bridge' or 'harmonic'")
        if self.reference not in REFERENCES:
            raise ValueError(f"reference must be one of {sorted(REFERENCES)}")
        if int(self.n_samples) < 1 or int(self.n_burn) < 0:
            raise ValueError("n_samples must be >= 1 and n_burn >= 0")

    def _alpha(self, K):
        return 10.0 / K if self.alpha is None else float(self.alpha)

    def _counts(self, X, fitting):
        if not fitting and not hasattr(self, "components_"):
            raise NotFittedError("this DiscLDA is not fitted yet")
        if not fitting:
            check_fitted_settings(self)   # random_state changed since fit
        return count_matrix(self, X, fitting=fitting)

    def _seed(self, salt):
        rs = seed_of(self)
        return int(np.random.default_rng([rs, salt]).integers(2**31 - 1))

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Fit on texts, token lists or a document-term matrix ``X`` with labels ``y``."""
        self._check_params()
        keep_fitted_settings(self, ("random_state",))
        X, yi, _ = labelled_corpus(self, X, y)
        C = self.classes_.size
        self.class_prior_ = np.bincount(yi, minlength=C) / yi.size
        T0 = block_transform(C, self.n_class_topics, self.n_shared_topics)
        self.n_topics_, self.n_z_topics_ = T0.shape[1], T0.shape[2]
        self.alpha_ = self._alpha(self.n_topics_)
        rng = np.random.default_rng(self._seed(0))
        if not self.learn_transform:
            self.transform_ = T0
            self.components_ = self._fit_phi(X, yi, T0, rng)[0]
            self.validation_errors_ = []
            return self
        return self._fit_learned(X, yi, T0, rng)

    def _fit_phi(self, X, yi, T, rng):
        """Steps 2a-b of Table 4.1: ``n_iter`` joint sweeps (eq. 4.25), then
        ``Phi`` = posterior mean given the last ``u`` (eqs. 4.6, 4.27)."""
        words, docs, _ = token_arrays(X)
        C, K, L = T.shape
        V = X.shape[1]
        _seed(int(rng.integers(2**31 - 1)))
        z = rng.integers(0, L, size=words.size).astype(np.int64)
        u = np.empty_like(z)
        yi = yi.astype(np.int64)
        _sample_u(words, docs, yi, z, np.ones((1, K)), T, u)
        ndl = np.zeros((X.shape[0], L), np.int64)
        np.add.at(ndl, (docs, z), 1)
        _, nwk, nk = init_counts(words, docs, u, X.shape[0], K, V)
        pk, pl, pt, npairs = _pairs(T)
        _run_joint(words, docs, yi, z, u, ndl, nwk, nk, pk, pl, pt, npairs, self.alpha_,
                   float(self.beta), int(self.n_iter))
        self.topic_word_counts_ = np.ascontiguousarray(nwk.T)
        phi = (self.topic_word_counts_ + self.beta) / (nk[:, None] + V * self.beta)  # eq. 4.27
        return phi, z, ndl

    def _fit_learned(self, X, yi, T0, rng):
        """Table 4.1 with softmax-parametrised ``T`` (app. 4.A.1.2)."""
        C, K, L = T0.shape
        # stratified validation split (thesis: 20% of the training set)
        val = np.zeros(X.shape[0], bool)
        if self.validation_fraction and self.validation_fraction > 0:
            for c in range(C):
                idx = np.flatnonzero(yi == c)
                nv = int(round(self.validation_fraction * idx.size))
                if 0 < nv < idx.size:
                    val[rng.choice(idx, nv, replace=False)] = True
        tr = ~val
        Xtr, ytr = X[tr], yi[tr].astype(np.int64)
        t = float(self.init_gap) * (T0 - 1.0) + 1.0            # footnote 10: 3 T - 2
        T = _softmax_columns(t)
        phi, z, ndl = self._fit_phi(Xtr, ytr, T, rng)           # step 2
        words, docs, offsets = token_arrays(Xtr)
        log_prior = np.log(self.class_prior_)
        V = X.shape[1]
        Xval, yval = X[val], yi[val]

        def val_error(phi, T):
            if not val.any():
                return np.nan
            self.transform_, self.components_ = T, phi
            return float(np.mean(self.predict_log_proba(Xval).argmax(axis=1) != yval))

        self.validation_errors_ = [val_error(phi, T)]
        best = (self.validation_errors_[0], T.copy(), phi.copy())
        z_state = None
        step = 0
        for it in range(int(self.n_outer)):
            for _ in range(int(self.n_grad)):                   # step 3a, eq. 4.7
                st = label_chains(words, offsets, phi, T, self.alpha_,
                                  self.grad_burn if z_state is not None else max(self.grad_burn, self.n_burn),
                                  self.grad_samples, self._seed(1000 + step),
                                  log_prior=log_prior, grad_labels=ytr, reference=self.reference,
                                  z_state=z_state)
                z_state = st["z_state"]
                g = st["grad"]                                  # d/dT, eq. 4.17
                # chain rule through the column softmax (full Jacobian; the thesis
                # writes only its diagonal T(1 - T))
                gt = T * (g - (T * g).sum(axis=1, keepdims=True))
                t = t + self.step_size * gt / max(ytr.size, 1)
                T = _softmax_columns(t)
                step += 1
            phis, _ = class_topic_tables(phi, T)                # step 3b, eq. 4.22
            ndl = np.zeros((Xtr.shape[0], L), np.int64)
            np.add.at(ndl, (docs, z), 1)
            _seed(int(rng.integers(2**31 - 1)))
            _run_fold_in(words, docs, z, ndl, phis, ytr, self.alpha_, int(self.n_z_sweeps))
            u = np.empty_like(z)                                # step 3c, eq. 4.24
            _sample_u(words, docs, ytr, z, np.ascontiguousarray(phi.T), T, u)
            m = np.zeros((K, V))                                # step 3d, eq. 4.27
            np.add.at(m, (u, words), 1)
            phi = (m + self.beta) / (m.sum(axis=1, keepdims=True) + V * self.beta)
            err = val_error(phi, T)
            self.validation_errors_.append(err)
            if not err >= best[0]:
                best = (err, T.copy(), phi.copy())
        self.transform_, self.components_ = best[1], best[2]   # step 4
        self.topic_word_counts_ = None
        return self

    # ------------------------------------------------------------------ inference
    def chain_statistics(self, X):
        """Run the per-class chains on ``X`` (a validated count matrix or raw input).

        Returns the statistics of :func:`label_chains` plus ``offsets``; pass them to
        :meth:`posterior_from_statistics` and :meth:`features_from_statistics` to
        compare estimators on the same chains.
        """
        X = self._counts(X, fitting=False)
        words, _, offsets = token_arrays(X)
        st = label_chains(words, offsets, self.components_, self.transform_, self.alpha_,
                          self.n_burn, self.n_samples, self._seed(1))
        st["offsets"] = offsets
        return st

    def posterior_from_statistics(self, st, label_estimator=None, reference=None):
        """``log p(y | w_d)`` from :meth:`chain_statistics` (defaults: the estimator's settings)."""
        lp = np.log(self.class_prior_)
        if (label_estimator or self.label_estimator) == "harmonic":
            return harmonic_log_posterior(st, lp)
        return label_log_posterior(st, lp, reference or self.reference)

    def features_from_statistics(self, st, logpost):
        """``E[T^y theta_d | w_d]`` (eq. 4.29) from the chains' mean z-counts and ``log p(y | w_d)``."""
        nd = np.diff(st["offsets"]).astype(float)
        L = self.n_z_topics_
        Eth = (self.alpha_ + st["nbar"] / st["n_samples"]) / (L * self.alpha_ + nd)[:, None, None]
        return np.einsum("dc,ckl,dcl->dk", np.exp(logpost), self.transform_, Eth)

    def _log_posterior(self, X, with_features=False):
        st = self.chain_statistics(X)
        logpost = self.posterior_from_statistics(st)
        return logpost, (self.features_from_statistics(st, logpost) if with_features else None)

    def predict_log_proba(self, X):
        """``log p(y | w_d, T, Phi)`` (bridge sampling or harmonic mean)."""
        return self._log_posterior(X)[0]

    def predict_proba(self, X):
        """``p(y | w_d, T, Phi)``, columns in the order of ``classes_``."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """``argmax_y p(y | w_d)``; an empty document gets the most frequent class."""
        logpost = self.predict_log_proba(X)
        return self.classes_[logpost.argmax(axis=1)]

    def transform(self, X):
        """``E[T^y theta_d | w_d, T, Phi]`` (eqs. 4.9, 4.10, 4.29), shape (D, K)."""
        return self._log_posterior(X, True)[1]

    def infer(self, X):
        """``(predict_proba(X), transform(X))`` from one set of chains."""
        logpost, feats = self._log_posterior(X, True)
        return np.exp(logpost), feats

    def score(self, X, y, sample_weight=None):
        """Accuracy; labels not seen in training raise ``ValueError``."""
        if not hasattr(self, "classes_"):
            raise NotFittedError("this DiscLDA is not fitted yet")
        unseen = np.setdiff1d(np.asarray(y), self.classes_)
        if unseen.size:
            raise ValueError(f"y contains labels not seen in training: {unseen[:5].tolist()}")
        return super().score(X, y, sample_weight=sample_weight)

    # ------------------------------------------------------------------ topics
    def topic_groups(self, shared=0.9, low=0.4, kind=None):
        """Groups of u-topics: each class's specific topics and the shared ones.

        ``kind='block'`` (the default with a fixed ``T``): the blocks of eq. 4.11
        (for a learned ``T``: the blocks it was initialised from).
        ``kind='strength'`` (the default with a learned ``T``): with the strength
        ``s_k^y = sum_l T^y_kl``, topics with ``s_k^y >= shared`` for every class
        are "strongly shared"; those with ``s_k^y >= shared`` for one class and
        ``<= low`` for all the others are "strongly" specific to it (sec. 4.4.3).
        Returns a dict ``{class label or 'shared': [topic ids]}``.
        """
        C = self.classes_.size
        kind = kind or ("strength" if self.learn_transform else "block")
        if kind == "block":
            Bc = int(self.n_class_topics)
            groups = {self.classes_[c]: list(range(c * Bc, (c + 1) * Bc)) for c in range(C)}
            groups["shared"] = list(range(C * Bc, self.n_topics_))
            return groups
        if kind != "strength":
            raise ValueError("kind must be 'block' or 'strength'")
        s = self.transform_.sum(axis=2)                              # (C, K)
        groups = {self.classes_[c]: [] for c in range(C)}
        groups["shared"] = [int(k) for k in np.flatnonzero((s >= shared).all(axis=0))]
        for c in range(C):
            others = np.delete(s, c, axis=0)
            groups[self.classes_[c]] = [int(k) for k in
                                        np.flatnonzero((s[c] >= shared) & (others <= low).all(axis=0))]
        return groups

    def top_words_by_group(self, k=10, groups=None):
        """Table 4.3: the ``k`` words with the largest ``s_v^G = V/|G| sum_{j in G} Phi_vj``.

        Returns ``{group: [(word or id, s_v^G), ...]}``.
        """
        groups = self.topic_groups() if groups is None else groups
        V = self.components_.shape[1]
        out = {}
        for name, ks in groups.items():
            if not ks:
                out[name] = []
                continue
            s = V / len(ks) * self.components_[ks].sum(axis=0)
            order = np.argsort(-s)[:k]
            vocab = getattr(self, "vocabulary_", None)
            out[name] = [((vocab.words_[i] if vocab is not None else int(i)), float(s[i]))
                         for i in order]
        return out
