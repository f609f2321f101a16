"""Per-image colour models, the idea behind GrabCut (Rother et al. 2004).

A linear unary model scores every superpixel with weights shared by all images; what
tells figure from ground in *one* image (this horse is brown, this background is green)
differs between images, object classes and sources.  After a first pass of the unary
model, a small Gaussian mixture is fitted to the colours of the superpixels it
predicts as foreground and another to those it predicts as background, and the
log-likelihood ratio

.. math::

    r_j = \\log p_{fg}(\\mu_j) - \\log p_{bg}(\\mu_j), \\qquad
    p_c(x) = \\sum_{k=1}^{K} \\pi_{ck}\\, \\mathcal{N}(x \\mid m_{ck}, S_{ck})          \\tag{1}

of each superpixel's mean Lab colour :math:`\\mu_j` becomes a node feature of a second
pass (with its boundary-weighted neighbourhood mean, eq. 2).  The mixtures are fitted
by EM with every superpixel weighted by its pixel count :math:`n_j`, so that they model
the image's pixels, not its superpixels:

.. math::

    \\gamma_{jk} \\propto \\pi_k \\mathcal{N}(\\mu_j \\mid m_k, S_k), \\quad
    \\pi_k \\propto \\sum_j n_j \\gamma_{jk}, \\quad
    m_k = \\frac{\\sum_j n_j \\gamma_{jk} \\mu_j}{\\sum_j n_j \\gamma_{jk}}, \\quad
    S_k = \\frac{\\sum_j n_j \\gamma_{jk} (\\mu_j - m_k)(\\mu_j - m_k)^\\top}
               {\\sum_j n_j \\gamma_{jk}} + \\epsilon I.                              \\tag{3}

The initial means are drawn by weighted k-means++ seeding from a generator seeded by
``random_state``, so the features are deterministic.  The context feature is

.. math::

    \\bar r_j = \\frac{\\sum_{k \\sim j} |B_{jk}|\\, r_k}{\\sum_{k \\sim j} |B_{jk}|}     \\tag{2}

with :math:`|B_{jk}|` the boundary length between superpixels ``j`` and ``k``.
"""

from __future__ import annotations

import numpy as np

from structpred import seed_generator

__all__ = ["COLOUR_FEATURE_NAMES", "weighted_gmm", "gmm_log_density", "colour_model_features"]

#: the node features the second pass adds (appended after the base features)
COLOUR_FEATURE_NAMES = ("colour_model_llr", "context_colour_model_llr")

_EPS = 1e-4          # covariance ridge, in (Lab / 100)^2 units: 1 Lab unit of spread
_CLIP = 20.0         # |log-likelihood ratio| is clipped here
_MIN_SHARE = 0.02    # a side with less than this share of the pixels is re-seeded


def _seed_means(X, w, k, rng):
    """Weighted k-means++ seeding: ``k`` rows of ``X``."""
    p = w / w.sum()
    idx = [int(rng.choice(len(X), p=p))]
    d2 = np.sum((X - X[idx[0]]) ** 2, axis=1)
    for _ in range(1, k):
        q = w * d2
        if q.sum() <= 0:
            break
        idx.append(int(rng.choice(len(X), p=q / q.sum())))
        d2 = np.minimum(d2, np.sum((X - X[idx[-1]]) ** 2, axis=1))
    return X[idx].copy()


def gmm_log_density(X, params):
    """``log p(x)`` of every row of ``X`` under a mixture ``(pi, means, covs)`` (eq. 1)."""
    pi, means, covs = params
    d = X.shape[1]
    logs = np.empty((X.shape[0], len(pi)))
    for k in range(len(pi)):
        L = np.linalg.cholesky(covs[k])
        z = np.linalg.solve(L, (X - means[k]).T)                      # (d, n)
        logs[:, k] = (np.log(pi[k]) - 0.5 * np.sum(z * z, axis=0)
                      - np.sum(np.log(np.diag(L))) - 0.5 * d * np.log(2 * np.pi))
    m = logs.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(logs - m).sum(axis=1, keepdims=True))).ravel()


def weighted_gmm(X, weights, n_components=3, n_iter=25, random_state=0):
    """Full-covariance Gaussian mixture fitted by weighted EM (eq. 3).

    Parameters
    ----------
    X : ndarray, shape (n, d)
    weights : ndarray, shape (n,), non-negative, not all zero
    n_components : int
        At most this many components (fewer when there are fewer distinct rows).
    n_iter : int
        EM iterations.
    random_state : int, None, numpy RandomState or Generator
        (an instance: the seed :func:`structpred.resolve_seed` draws from it)
        Seeds the k-means++ initialisation.

    Returns
    -------
    (pi, means, covs) : the mixture weights ``(K,)``, means ``(K, d)`` and covariances
    ``(K, d, d)``.
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    keep = w > 0
    X, w = X[keep], w[keep]
    n, d = X.shape
    rng = seed_generator(random_state, generators=True)   # a RandomState: its drawn seed
    k = max(1, min(int(n_components), n))
    means = _seed_means(X, w, k, rng)
    k = len(means)
    ridge = _EPS * np.eye(d)
    c0 = np.cov(X.T, aweights=w).reshape(d, d) if n > 1 else np.zeros((d, d))
    covs = np.repeat((c0 + ridge)[None], k, axis=0)
    pi = np.full(k, 1.0 / k)
    for _ in range(int(n_iter)):
        logs = np.stack([gmm_log_density(X, (np.ones(1), means[c:c + 1], covs[c:c + 1]))
                         for c in range(k)], axis=1) + np.log(pi)
        logs -= logs.max(axis=1, keepdims=True)
        resp = np.exp(logs)
        resp /= resp.sum(axis=1, keepdims=True)
        r = resp * w[:, None]                                          # (n, k)
        nk = r.sum(axis=0)
        alive = nk > 1e-9 * w.sum()
        r, nk, means, covs = r[:, alive], nk[alive], means[alive], covs[alive]
        pi = nk / nk.sum()
        means = (r.T @ X) / nk[:, None]
        diff = X[None, :, :] - means[:, None, :]                       # (k, n, d)
        covs = np.einsum("kn,kni,knj->kij", r.T, diff, diff) / nk[:, None, None] + ridge
        k = len(pi)
    return pi, means, covs


def _sides(scores, sizes):
    """Foreground / background node masks of a first pass: ``score > 0``, each side
    re-seeded with the top (bottom) fifth of the scores when it would hold less than
    ``_MIN_SHARE`` of the pixels."""
    fg = scores > 0
    total = sizes.sum()
    order = np.argsort(scores, kind="stable")
    cum = np.cumsum(sizes[order]) / total
    if sizes[fg].sum() < _MIN_SHARE * total:
        fg = np.zeros_like(fg)
        fg[order[cum > 0.8]] = True
    bg = ~fg
    if sizes[bg].sum() < _MIN_SHARE * total:
        bg = np.zeros_like(bg)
        bg[order[cum <= 0.2]] = True
    return fg, bg


def colour_model_features(lab_means, sizes, edges, lengths, scores, n_components=3,
                          random_state=0):
    """The two second-pass features of one image (eqs. 1 and 2), shape ``(n, 2)``.

    Parameters
    ----------
    lab_means : ndarray, shape (n, 3)
        Mean Lab colour of each superpixel (any fixed scale; the features use Lab / 100).
    sizes : ndarray, shape (n,)
        Pixels per superpixel.
    edges : ndarray, shape (m, 2); lengths : ndarray, shape (m,)
        Superpixel adjacency and boundary lengths (for the context mean, eq. 2).
    scores : ndarray, shape (n,)
        First-pass unary scores ``s_j``; ``s_j > 0`` is predicted foreground.
    n_components : int
    random_state : int, None, numpy RandomState or Generator
        (an instance: the seed :func:`structpred.resolve_seed` draws from it)
    """
    from .features import _neighbour_mean

    X = np.asarray(lab_means, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    fg, bg = _sides(np.asarray(scores, dtype=np.float64), sizes)
    if not (sizes * fg).sum() > 0 or not (sizes * bg).sum() > 0:
        # one side has no pixel (an image of one superpixel, e.g. a single pixel): no
        # colour model can be fitted to it, so the colour features say nothing
        return np.zeros((X.shape[0], 2))
    rng = seed_generator(random_state, generators=True)   # a RandomState: its drawn seed
    seeds = rng.integers(0, 2 ** 31 - 1, size=2)
    p_fg = weighted_gmm(X, sizes * fg, n_components, random_state=int(seeds[0]))
    p_bg = weighted_gmm(X, sizes * bg, n_components, random_state=int(seeds[1]))
    llr = np.clip(gmm_log_density(X, p_fg) - gmm_log_density(X, p_bg), -_CLIP, _CLIP)[:, None]
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    context = _neighbour_mean(llr, edges, np.asarray(lengths, dtype=np.float64))
    return np.concatenate([llr, context], axis=1) / 10.0
