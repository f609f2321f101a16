"""Model M prediction on a batch of sentence pairs at once (``align predict``'s fast path).

:meth:`MatchingAligner.predict_matrix` builds, for each sentence pair, the sparse feature
matrix ``F`` of :class:`~alignment.features.EdgeFeaturizer` (and of
:class:`~alignment.link_features.AlignerFeaturizer`), takes the scores ``F' w`` and decodes
them with the OR-Tools min-cost flow: a few milliseconds of Python and scipy per pair.
Here the same scores are computed for a whole batch without building ``F``:

1. the words of the batch are looked up once per word type (ids, frequencies,
   orthographic cues), and the pairs are laid end to end in flat arrays (CSR offsets);
2. one numba kernel (:func:`_pair_tables`) runs the per-pair kernels of the statistics
   (IBM Model 2 posteriors, Dice, HMM posteriors) for every pair of the batch;
3. the log-scaled probabilities are taken with numpy on the flat arrays (the same
   ``np.log`` as the per-pair featurizer);
4. a second kernel (:func:`_score_and_decode`) computes every edge's dense features,
   adds ``value * weight`` feature by feature in the order of the feature names (the
   order of the sparse product ``F' w``, so the scores are the same floating-point
   numbers) and decodes each pair with the Hungarian method
   (:func:`structpred.polytopes.matching.hungarian_matching`).

Model M takes this path with any of the other aligners of
:mod:`alignment.link_features` as features (our HMM, eflomal, fast_align: the default
model, ``--aligners none``, ``--preset thesis``).  The external aligners' links are looked
up (or computed for new pairs, a batch at a time, by :meth:`AlignerLinks.prepare`) and
laid out as flat 0/1 arrays beside the statistics'.  The other models (fertility,
interactions, ``--external`` link files) keep the per-pair path (:func:`supports`).
"""

from __future__ import annotations

import functools
import threading

import numba as nb
import numpy as np

from structpred.polytopes.matching._decode import hungarian_matching

from .dice import _dice_matrix
from .features import (DENSE_FEATURES, HMM_FEATURES, OPTIONAL_FEATURES, _is_number, _is_punct,
                       _log_scaled)
from .formats import Alignment
from .hmm import hmm_posteriors
from .ibm import _pair_posteriors
from .interactions import _viterbi
from .external import _key, symmetrize
from .link_features import HMM_THRESHOLD, SOURCES

__all__ = ["BatchPredictor", "supports", "BATCH"]

#: sentence pairs featurized at once (the flat arrays of a batch stay a few MB)
BATCH = 256
#: cached word types per side before the caches are emptied (memory stays bounded)
_MAX_TYPES = 500_000
#: characters of the lower-cased words compared for the prefix cues (prefix3, cognate4)
_PREFIX = 4


#: the edge features :func:`_score_and_decode` computes, in its order (a feature added to
#: :mod:`alignment.features` or to the ``hmm`` source without the kernel's update sends the
#: models to the per-pair path instead of giving other scores)
_KERNEL_FEATURES = (
    "bias", "dice", "dice_row_best", "dice_col_best", "dice_both_best",
    "post_fwd", "post_bwd", "post_prod", "post_min", "vit_fwd", "vit_bwd", "vit_inter",
    "vit_union", "dist", "dist_sq", "exact", "prefix3", "cognate4", "len_ratio",
    "both_punct", "punct_mismatch", "both_number", "src_logfreq", "tgt_logfreq",
    "logpost_fwd", "logpost_bwd", "logdice", "nbr_diag", "nbr_anti", "nbr_vit_diag",
    "null_fwd", "null_bwd", "dist_lt_05", "dist_lt_10", "dist_lt_20", "near_diag_word",
    "dice_row_rank2", "dice_col_rank2",
    "hmm_fwd", "hmm_bwd", "hmm_prod", "hmm_min", "hmm_inter", "hmm_union",
    "loghmm_fwd", "loghmm_bwd", "hmm_nbr_diag", "hmm_nbr_anti",
    "farther_src_occ", "farther_tgt_occ")
#: values per edge in the kernel (all of them, whether or not the model has them)
_N_ALL = len(_KERNEL_FEATURES)
#: the aligner features the kernel computes (all sources), in their order
_KERNEL_ALIGNER_FEATURES = (
    "hmm:fwd", "hmm:bwd", "hmm:min", "hmm:inter", "hmm:nbr_diag", "hmm:nbr_anti",
    "eflomal:fwd", "eflomal:bwd", "eflomal:intersection", "eflomal:grow-diag-final-and",
    "eflomal:union", "eflomal:nbr_diag", "eflomal:nbr_anti",
    "fast_align:sym", "aligners:vote_share")
#: the eflomal link sets, in the order of their rows in the kernel's ``ef`` argument
_EFLOMAL_VIEWS = ("fwd", "bwd", "intersection", "grow-diag-final-and", "union")


@functools.lru_cache(maxsize=1)
def _kernel_is_current():
    from .link_features import AlignerFeaturizer

    return (DENSE_FEATURES + HMM_FEATURES + OPTIONAL_FEATURES == _KERNEL_FEATURES
            and tuple(AlignerFeaturizer(SOURCES).edge_names) == _KERNEL_ALIGNER_FEATURES)


def supports(model):
    """Whether :class:`BatchPredictor` computes ``model``'s predictions (model M, with any
    of the other aligners of :data:`~alignment.link_features.SOURCES`, no ``--external``
    link files)."""
    return (not model._extended and not model.use_external
            and set(model.aligners) <= set(SOURCES) and _kernel_is_current())


def _aligner_offsets(aligners):
    """Positions, in the model's aligner features, of the first feature of ``hmm``,
    ``eflomal`` and ``fast_align`` and of ``aligners:vote_share`` (-1: absent), and the
    number of sources."""
    from .link_features import AlignerFeaturizer

    names = AlignerFeaturizer(tuple(aligners)).edge_names if aligners else []
    pos = [names.index(n) if n in names else -1
           for n in ("hmm:fwd", "eflomal:fwd", "fast_align:sym", "aligners:vote_share")]
    return np.array(pos + [max(1, len(aligners))], np.int64)


class _Side:
    """Per-word-type attributes of one side (source or target), cached across batches."""

    def __init__(self, side, featurizer, unsupervised, lowered, pad):
        self.side = side
        self.featurizer = featurizer
        self.stats = featurizer.stats
        self.vocab = self.stats._vocab(side)
        self.top = featurizer._src_top if side == "src" else featurizer._tgt_top
        self.scale = featurizer._logfreq_scale[side]
        self.unsupervised = unsupervised
        self.lowered = lowered          # shared: lower-cased word -> id (both sides)
        self.pad = pad                  # prefix code of a missing character
        self.cache = {}

    def attributes(self, words):
        """``(ints, floats)`` of the distinct ``words``: ints ``(T, 10)`` = statistics id,
        HMM (unsupervised) id, frequent-word index (-1: none), lower-cased word id, the
        first 4 lower-cased characters (code points), and the punctuation and number
        flags; floats ``(T, 2)`` = scaled log-frequency, length."""
        missing = [w for w in words if w not in self.cache]
        if missing:
            if len(self.cache) + len(missing) > _MAX_TYPES:
                self.cache.clear()
                missing = list(words)
            ids = self.vocab.encode(missing)
            lf = self.stats.log_frequency(self.side, missing) / self.scale
            uid = np.full(len(missing), -1, np.int64)
            if self.unsupervised is not None:
                un = self.unsupervised
                vocab = un.stats_._vocab(self.side)
                uid = vocab.encode([un.normalize([w])[0] for w in missing])
            for i, w in enumerate(missing):
                lo = w.lower()
                code = [ord(lo[p]) if len(lo) > p else self.pad for p in range(_PREFIX)]
                self.cache[w] = ((int(ids[i]), int(uid[i]), self.top.get(w, -1),
                                  self.lowered.setdefault(lo, len(self.lowered)), *code,
                                  int(_is_punct(w)), int(_is_number(w))),
                                 (float(lf[i]), float(len(w))))
        rows = [self.cache[w] for w in words]
        return (np.array([r[0] for r in rows], np.int64).reshape(-1, 6 + _PREFIX),
                np.array([r[1] for r in rows], np.float64).reshape(-1, 2))


class BatchPredictor:
    """Predicts the links of model M for batches of sentence pairs (see the module doc).

    Parameters
    ----------
    model : MatchingAligner
        A fitted model for which :func:`supports` holds.
    """

    def __init__(self, model):
        if not supports(model):
            raise ValueError(f"the batch predictor covers model M without --external links, "
                             f"not {model.model_name} (external links: {model.use_external})")
        model._check_fitted()
        fz = model.featurizer_
        self.model = model
        self.stats = fz.stats
        self.links = model.aligner_links_ if model.aligners else None
        un = self.links.unsupervised if "hmm" in model.aligners else None
        self.unsupervised = un
        lowered = {}
        self._sides = (_Side("src", fz, un, lowered, -1), _Side("tgt", fz, un, lowered, -2))
        self._lowered = lowered
        self._lock = threading.Lock()
        # kernel position of each of the model's dense features, in feature order
        names = list(DENSE_FEATURES) + (list(HMM_FEATURES) if fz._use_hmm else [])
        names += list(fz._include)
        allpos = {f: i for i, f in enumerate(_KERNEL_FEATURES)}
        self._keep = np.array([allpos[names[i]] for i in fz._keep], np.int64)
        self._flags = np.array([fz._use_hmm, "farther_src_occ" in fz._include,
                                "farther_tgt_occ" in fz._include, un is not None], np.bool_)
        self._n_top = np.array([len(fz._src_top), len(fz._tgt_top)], np.int64)
        self._offsets = _aligner_offsets(model.aligners)
        self._eflomal = "eflomal" in model.aligners
        self._fast_align = "fast_align" in model.aligners
        self.coef = model.coef_        # the weights it was built for
        self._coef = np.ascontiguousarray(model.coef_, np.float64)

    # ------------------------------------------------------------------ batches
    def _encode(self, pairs):
        """Flat per-token arrays and offsets of a batch (the word caches are shared by
        the threads that may call :meth:`predict` at once: one batch at a time)."""
        with self._lock:
            return self._encode_locked(pairs)

    def _encode_locked(self, pairs):
        out = {}
        for side, sents in zip(self._sides, ([s for s, _ in pairs], [t for _, t in pairs])):
            lens = np.fromiter((len(x) for x in sents), np.int64, len(sents))
            off = np.zeros(len(sents) + 1, np.int64)
            np.cumsum(lens, out=off[1:])
            types = {}
            index = np.fromiter((types.setdefault(w, len(types)) for x in sents for w in x),
                                np.int64, int(off[-1]))
            ints, floats = side.attributes(list(types))
            out[side.side] = (off, ints[index], floats[index])
        if len(self._lowered) > 2 * _MAX_TYPES:
            # the cached words hold lower-cased ids: emptied together
            self._lowered.clear()
            for side in self._sides:
                side.cache.clear()
        return out

    def predict_links(self, pairs, prepared=False):
        """Links of each pair of a batch as flat arrays.

        Parameters
        ----------
        pairs : list of (src_tokens, tgt_tokens)
            Non-empty sentences.
        prepared : bool
            The pairs went through :meth:`_prepare` already (the aligners' runs are
            loaded and know every pair).

        Returns
        -------
        link_off : ndarray of int64, shape (len(pairs) + 1,)
        link_src, link_tgt : ndarray of int64
            The links ``(link_src[i], link_tgt[i])`` of pair ``p`` are those with
            ``link_off[p] <= i < link_off[p + 1]``, by source then target position.
        """
        if not prepared:
            self._prepare(pairs)
        enc = self._encode(pairs)
        soff, sint, sflt = enc["src"]
        toff, tint, tflt = enc["tgt"]
        st, un = self.stats, self.unsupervised
        hmm, uhmm = st.hmm if self._flags[0] else None, un.stats_ if un is not None else None
        tables = _pair_tables(
            soff, toff, sint[:, 0].copy(), tint[:, 0].copy(), sint[:, 1].copy(),
            tint[:, 1].copy(), _model2_args(st), _dice_args(st),
            _hmm_args(st, hmm), _hmm_args(uhmm, None if uhmm is None else uhmm.hmm),
            self._flags[0], self._flags[3])
        dice, pf, pb, nf, nb_, vf, vb, hf, hb, uf, ub = tables
        # the log scale with numpy's log on the flat arrays, as the per-pair featurizer
        logs = tuple(_log_scaled(x) for x in (pf, pb, dice, hf, hb))
        ef, fa = self._external_links(pairs, len(dice))
        return _score_and_decode(soff, toff, sint, tint, sflt, tflt, (dice, pf, pb, vf, vb),
                                 (nf, nb_), (hf, hb, uf, ub), (ef, fa), logs, self._keep,
                                 self._flags, self._n_top, self._offsets, self._coef,
                                 HMM_THRESHOLD)

    def _prepare(self, pairs):
        """Load the external aligners' runs (a saved model finds them lazily) and align
        the pairs they never saw."""
        if self._eflomal or self._fast_align:
            self.links.check()
            self.links.prepare(pairs)

    def _external_links(self, pairs, n_edges):
        """The eflomal link sets (rows of ``ef``, :data:`_EFLOMAL_VIEWS`) and fast_align's
        symmetrised links of every pair as flat 0/1 arrays (each pair's ``m x n`` block
        row-major, as the statistics'); empty for an aligner the model does not use.
        The pairs have been through :meth:`_prepare`."""
        ef = np.zeros((len(_EFLOMAL_VIEWS), n_edges if self._eflomal else 0))
        fa = np.zeros(n_edges if self._fast_align else 0)
        if not (self._eflomal or self._fast_align):
            return ef, fa
        links = self.links
        e0 = 0
        for s, t in pairs:
            m, n = len(s), len(t)
            sets = []
            if self._eflomal:
                d = links._external("eflomal", s, t)
                f, b = d["fwd"], d["bwd"]
                sets += [(ef[r], x) for r, x in enumerate(
                    (f, b, *(symmetrize(f, b, v) for v in _EFLOMAL_VIEWS[2:])))]
            if self._fast_align:
                sets.append((fa, links._external("fast_align", s, t)["sym"]))
            for row, ls in sets:
                for j, k in ls:
                    if not (0 <= j < m and 0 <= k < n):
                        raise ValueError(f"link {j}-{k} outside a {m}x{n} sentence pair")
                    row[e0 + j * n + k] = 1.0
            e0 += m * n
        return ef, fa

    def predict(self, pairs):
        """Predicted :class:`~alignment.formats.Alignment` of each pair (as
        :meth:`MatchingAligner.predict`)."""
        pairs = list(pairs)
        self._prepare(pairs)      # the new pairs through eflomal/fast_align at once
        out = []
        for a in range(0, len(pairs), BATCH):
            off, ls, lt = self.predict_links(pairs[a:a + BATCH], prepared=True)
            ls, lt, off = ls.tolist(), lt.tolist(), off.tolist()
            for p in range(len(off) - 1):
                links = frozenset(zip(ls[off[p]:off[p + 1]], lt[off[p]:off[p + 1]]))
                out.append(Alignment(sure=links, possible=links))
        return out


def _model2_args(st):
    return (st.t_row_ptr, st.t_cols, st.t_fwd, st.t_bwd, st.t_null_fwd, st.t_null_bwd,
            np.ascontiguousarray(st.dist_fwd, np.float64),
            np.ascontiguousarray(st.dist_bwd, np.float64), int(st.max_jump), float(st.floor))


def _dice_args(st):
    return st.dice_row_ptr, st.dice_cols, st.dice_counts, st.src_df, st.tgt_df


def _hmm_args(st, hmm):
    """The arguments of :func:`alignment.hmm.hmm_posteriors` after the ids (dummies
    without an HMM, so that the kernel has one signature)."""
    if hmm is None:
        z, zi = np.zeros(1), np.zeros(2, np.int64)
        return zi, np.zeros(1, np.int64), z, z, z, z, z, z, 0.5, 0.5, 0, 1e-7
    return (st.t_row_ptr, st.t_cols, hmm.t_fwd, hmm.t_bwd, hmm.t_null_fwd, hmm.t_null_bwd,
            hmm.jump_fwd, hmm.jump_bwd, hmm.p0_fwd, hmm.p0_bwd, hmm.max_jump, hmm.floor)


# ---------------------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _pair_tables(soff, toff, s_ids, t_ids, s_uids, t_uids, m2, dc, h, uh, use_hmm, use_uhmm):
    """The statistics' matrices of every pair, flat (row-major ``m x n`` per pair, one
    after the other): Dice, Model 2 posteriors and Viterbi links of both directions and
    NULL posteriors (per word), the statistics' HMM posteriors (``use_hmm``) and those of
    the unsupervised aligner (``use_uhmm``); empty arrays for what is not used."""
    P = len(soff) - 1
    E = 0
    for p in range(P):
        E += (soff[p + 1] - soff[p]) * (toff[p + 1] - toff[p])
    dice, pf, pb = np.empty(E), np.empty(E), np.empty(E)
    vf, vb = np.zeros(E), np.zeros(E)
    nf, nbk = np.empty(toff[P]), np.empty(soff[P])
    hf, hb = np.empty(E if use_hmm else 0), np.empty(E if use_hmm else 0)
    uf, ub = np.empty(E if use_uhmm else 0), np.empty(E if use_uhmm else 0)
    e0 = 0
    for p in range(P):
        a0, a1, b0, b1 = soff[p], soff[p + 1], toff[p], toff[p + 1]
        m, n = a1 - a0, b1 - b0
        e, f = s_ids[a0:a1].astype(np.int32), t_ids[b0:b1].astype(np.int32)
        post_f, null_f, post_b, null_b = _pair_posteriors(
            e, f, m2[0], m2[1], m2[2], m2[3], m2[4], m2[5], m2[6], m2[7], m2[8], m2[9])
        d = _dice_matrix(s_ids[a0:a1], t_ids[b0:b1], dc[0], dc[1], dc[2], dc[3], dc[4])
        nf[b0:b1] = null_f
        nbk[a0:a1] = null_b
        for j in range(m):
            for k in range(n):
                dice[e0 + j * n + k] = d[j, k]
                pf[e0 + j * n + k] = post_f[j, k]
                pb[e0 + j * n + k] = post_b[j, k]
        # Viterbi links, as AlignmentStatistics.pair_statistics (the same kernel)
        vfm = np.zeros((m, n))
        vbm = np.zeros((m, n))
        _viterbi(post_f, null_f, post_b, null_b, vfm, vbm)
        for j in range(m):
            for k in range(n):
                vf[e0 + j * n + k] = vfm[j, k]
                vb[e0 + j * n + k] = vbm[j, k]
        if use_hmm:
            x, y = hmm_posteriors(e, f, h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
                                  h[8], h[9], h[10], h[11])
            for j in range(m):
                for k in range(n):
                    hf[e0 + j * n + k] = x[j, k]
                    hb[e0 + j * n + k] = y[j, k]
        if use_uhmm:
            x, y = hmm_posteriors(s_uids[a0:a1].astype(np.int32), t_uids[b0:b1].astype(np.int32),
                                  uh[0], uh[1], uh[2], uh[3], uh[4], uh[5], uh[6], uh[7],
                                  uh[8], uh[9], uh[10], uh[11])
            for j in range(m):
                for k in range(n):
                    uf[e0 + j * n + k] = x[j, k]
                    ub[e0 + j * n + k] = y[j, k]
        e0 += m * n
    return dice, pf, pb, nf, nbk, vf, vb, hf, hb, uf, ub


@nb.njit(cache=True, nogil=True, inline="always")
def _at(x, e0, n, m, j, k):
    """``x[j, k]`` of the pair's ``m x n`` block at ``e0``; 0 outside the grid."""
    if j < 0 or j >= m or k < 0 or k >= n:
        return 0.0
    return x[e0 + j * n + k]


@nb.njit(cache=True, nogil=True, inline="always")
def _nbr(a, b, e0, n, m, j, k, s):
    """Neighbour support ``max(a b at (j-1, k-s), a b at (j+1, k+s))``: the diagonal
    (``s = 1``) or anti-diagonal (``s = -1``) neighbours of edge ``(j, k)``."""
    return max(_at(a, e0, n, m, j - 1, k - s) * _at(b, e0, n, m, j - 1, k - s),
               _at(a, e0, n, m, j + 1, k + s) * _at(b, e0, n, m, j + 1, k + s))


@nb.njit(cache=True, nogil=True, inline="always")
def _top2(x, start, step, count):
    """Largest and second largest of ``count`` values (duplicates counted twice)."""
    t1, t2 = -np.inf, -np.inf
    for i in range(count):
        v = x[start + i * step]
        if v > t1:
            t2, t1 = t1, v
        elif v > t2:
            t2 = v
    return t1, t2


@nb.njit(cache=True, nogil=True)
def _score_and_decode(soff, toff, sint, tint, sflt, tflt, mats, nulls, hmms, exts, logs, keep,
                      flags, n_top, offsets, w, hmm_threshold):
    """Edge scores ``F' w`` of every pair, summed feature by feature in the order of the
    model's features, and the maximum-weight matching of each pair.

    ``sint``/``tint`` and ``sflt``/``tflt`` are the per-token attributes of
    :meth:`_Side.attributes`; ``exts`` the external aligners' flat link arrays
    (:meth:`BatchPredictor._external_links`); ``keep`` the kernel positions of the model's
    dense features; ``flags`` = (statistics' HMM, farther_src_occ, farther_tgt_occ, the
    ``hmm`` aligner); ``n_top`` the numbers of frequent source and target words;
    ``offsets`` those of :func:`_aligner_offsets`.
    Returns ``(link_off, link_src, link_tgt)`` (see :meth:`BatchPredictor.predict_links`).
    """
    dice, pf, pb, vf, vb = mats
    nf, nbk = nulls
    hf, hb, uf, ub = hmms
    ef, fa = exts
    o_ef, o_fa, o_vote, n_src = offsets[1], offsets[2], offsets[3], offsets[4]
    lpf, lpb, ldice, lhf, lhb = logs
    use_hmm, far_s, far_t, use_uhmm = flags[0], flags[1], flags[2], flags[3]
    P = len(soff) - 1
    nS, nT = n_top[0], n_top[1]
    K = len(keep)
    lex = K + nS + nT + nS * nT          # first weight after the lexical indicators
    total = 0
    for p in range(P):
        total += min(soff[p + 1] - soff[p], toff[p + 1] - toff[p])
    link_off = np.zeros(P + 1, np.int64)
    link_s = np.empty(total, np.int64)
    link_t = np.empty(total, np.int64)
    v = np.zeros(_N_ALL)
    nl = 0
    e0 = 0
    for p in range(P):
        a0, b0 = soff[p], toff[p]
        m, n = soff[p + 1] - a0, toff[p + 1] - b0
        rmax, rsec = np.empty(m), np.empty(m)
        cmax, csec = np.empty(n), np.empty(n)
        for j in range(m):
            rmax[j], rsec[j] = _top2(dice, e0 + j * n, 1, n)
        for k in range(n):
            cmax[k], csec[k] = _top2(dice, e0 + k, n, m)
        s = np.empty((m, n))
        for j in range(m):
            sj = a0 + j
            jj = (j + 0.5) / m
            for k in range(n):
                tk = b0 + k
                i = e0 + j * n + k
                d = dice[i]
                kk = (k + 0.5) / n
                dist = abs(jj - kk)
                exact = sint[sj, 3] == tint[tk, 3]
                cp = 0
                while cp < _PREFIX and sint[sj, 4 + cp] == tint[tk, 4 + cp]:
                    cp += 1
                rb = d >= rmax[j] and d > 0
                cb = d >= cmax[k] and d > 0
                pp = pf[i] * pb[i]
                ps, pt = sint[sj, 4 + _PREFIX] != 0, tint[tk, 4 + _PREFIX] != 0
                ns, nt = sint[sj, 5 + _PREFIX] != 0, tint[tk, 5 + _PREFIX] != 0
                ls, lt = sflt[sj, 1], tflt[tk, 1]
                v[0] = 1.0
                v[1] = d
                v[2] = rb
                v[3] = cb
                v[4] = rb and cb
                v[5] = pf[i]
                v[6] = pb[i]
                v[7] = pp
                v[8] = min(pf[i], pb[i])
                v[9] = vf[i]
                v[10] = vb[i]
                v[11] = vf[i] * vb[i]
                v[12] = max(vf[i], vb[i])
                v[13] = dist
                v[14] = dist * dist
                v[15] = exact
                v[16] = cp >= 3 and not exact
                v[17] = cp >= 4 and not exact
                v[18] = min(ls, lt) / max(ls, lt)
                v[19] = ps and pt
                v[20] = ps != pt
                v[21] = ns and nt and exact
                v[22] = sflt[sj, 0]
                v[23] = tflt[tk, 0]
                v[24] = lpf[i]
                v[25] = lpb[i]
                v[26] = ldice[i]
                v[27] = _nbr(pf, pb, e0, n, m, j, k, 1)
                v[28] = _nbr(pf, pb, e0, n, m, j, k, -1)
                v[29] = _nbr(vf, vb, e0, n, m, j, k, 1)
                v[30] = nf[tk]
                v[31] = nbk[sj]
                v[32] = dist < 0.05
                v[33] = dist < 0.10
                v[34] = dist < 0.20
                v[35] = abs((j + 0.5) * n / m - (k + 0.5)) <= 1.0
                v[36] = n >= 2 and d >= rsec[j] and d > 0 and not rb
                v[37] = m >= 2 and d >= csec[k] and d > 0 and not cb
                if use_hmm:
                    x, y = hf[i], hb[i]
                    v[38] = x
                    v[39] = y
                    v[40] = x * y
                    v[41] = min(x, y)
                    v[42] = x >= 0.5 and y >= 0.5
                    v[43] = x >= 0.5 or y >= 0.5
                    v[44] = lhf[i]
                    v[45] = lhb[i]
                    v[46] = _nbr(hf, hb, e0, n, m, j, k, 1)
                    v[47] = _nbr(hf, hb, e0, n, m, j, k, -1)
                if far_s:
                    # another occurrence of the source word nearer the diagonal
                    other = np.inf
                    for j2 in range(m):
                        if j2 != j and sint[a0 + j2, 3] == sint[sj, 3]:
                            other = min(other, abs((j2 + 0.5) / m - kk))
                    v[48] = dist > other + 1e-12
                if far_t:
                    other = np.inf
                    for k2 in range(n):
                        if k2 != k and tint[b0 + k2, 3] == tint[tk, 3]:
                            other = min(other, abs(jj - (k2 + 0.5) / n))
                    v[49] = dist > other + 1e-12
                # F' w: feature rows in order (dense, src=, tgt=, pair=, aligners)
                acc = 0.0
                for q in range(K):
                    acc += v[keep[q]] * w[q]
                si, ti = sint[sj, 2], tint[tk, 2]
                if si >= 0:
                    acc += w[K + si]
                if ti >= 0:
                    acc += w[K + nS + ti]
                if si >= 0 and ti >= 0:
                    acc += w[K + nS + nT + si * nT + ti]
                # the aligners' features (alignment.link_features, in its order)
                vote = 0.0
                if use_uhmm:
                    x, y = uf[i], ub[i]
                    mn = min(x, y)
                    inter = 1.0 if mn >= hmm_threshold else 0.0
                    acc += x * w[lex]
                    acc += y * w[lex + 1]
                    acc += mn * w[lex + 2]
                    acc += inter * w[lex + 3]
                    acc += 0.5 * (_min_at(uf, ub, e0, n, m, j - 1, k - 1)
                                  + _min_at(uf, ub, e0, n, m, j + 1, k + 1)) * w[lex + 4]
                    acc += 0.5 * (_min_at(uf, ub, e0, n, m, j - 1, k + 1)
                                  + _min_at(uf, ub, e0, n, m, j + 1, k - 1)) * w[lex + 5]
                    vote += inter
                if o_ef >= 0:
                    b = lex + o_ef
                    for r in range(5):
                        acc += ef[r, i] * w[b + r]
                    x = ef[2]
                    acc += 0.5 * (_at(x, e0, n, m, j - 1, k - 1)
                                  + _at(x, e0, n, m, j + 1, k + 1)) * w[b + 5]
                    acc += 0.5 * (_at(x, e0, n, m, j - 1, k + 1)
                                  + _at(x, e0, n, m, j + 1, k - 1)) * w[b + 6]
                    vote += x[i]
                if o_fa >= 0:
                    acc += fa[i] * w[lex + o_fa]
                    vote += fa[i]
                if o_vote >= 0:
                    acc += vote / n_src * w[lex + o_vote]
                s[j, k] = acc
        y = hungarian_matching(s)
        for j in range(m):
            for k in range(n):
                if y[j, k]:
                    link_s[nl] = j
                    link_t[nl] = k
                    nl += 1
        link_off[p + 1] = nl
        e0 += m * n
    return link_off, link_s[:nl], link_t[:nl]


@nb.njit(cache=True, nogil=True, inline="always")
def _min_at(x, y, e0, n, m, j, k):
    """``min(x[j, k], y[j, k])`` of the pair's block; 0 outside the grid."""
    if j < 0 or j >= m or k < 0 or k >= n:
        return 0.0
    return min(x[e0 + j * n + k], y[e0 + j * n + k])
