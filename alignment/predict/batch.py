"""Model M prediction on a batch of sentence pairs at once (``align predict``'s fast path).

:meth:`MatchingAligner.predict_matrix` builds, for each sentence pair, the sparse feature
matrix ``F`` of :class:`~alignment.features.edges.EdgeFeaturizer` (and of
:class:`~alignment.features.links.AlignerFeaturizer`), takes the scores ``F' w`` and decodes
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
:mod:`alignment.features.links` as features (our HMM, eflomal, fast_align: the default
model, ``--aligners none``, ``--preset thesis``).  The external aligners' links are looked
up (or computed for new pairs, a batch at a time, by :meth:`AlignerLinks.prepare`) and
laid out as flat 0/1 arrays beside the statistics'.  The other models (fertility,
interactions, ``--external`` link files) keep the per-pair path (:func:`supports`).
"""

from __future__ import annotations

import threading

import numpy as np

from ..features.edges import DENSE_FEATURES, HMM_FEATURES, _is_number, _is_punct, _log_scaled
from ..features.kernel import (_EFLOMAL_VIEWS, _KERNEL_FEATURES, _PREFIX, _kernel_is_current,
                               _pair_tables, _score_and_decode)
from ..data.formats import Alignment
from ..aligners.symmetrize import symmetrize
from ..features.links import HMM_THRESHOLD, SOURCES

__all__ = ["BatchPredictor", "supports", "BATCH"]

#: sentence pairs featurized at once (the flat arrays of a batch stay a few MB)
BATCH = 256
#: cached word types per side before the caches are emptied (memory stays bounded)
_MAX_TYPES = 500_000


def supports(model):
    """Whether :class:`BatchPredictor` computes ``model``'s predictions (model M, with any
    of the other aligners of :data:`~alignment.features.links.SOURCES`, no ``--external``
    link files)."""
    return (not model._extended and not model.use_external
            and set(model.aligners) <= set(SOURCES) and _kernel_is_current())


def _aligner_offsets(aligners):
    """Positions, in the model's aligner features, of the first feature of ``hmm``,
    ``eflomal`` and ``fast_align`` and of ``aligners:vote_share`` (-1: absent), and the
    number of sources."""
    from ..features.links import AlignerFeaturizer

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
        """Predicted :class:`~alignment.data.formats.Alignment` of each pair (as
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
    """The arguments of :func:`alignment.stats.hmm.hmm_posteriors` after the ids (dummies
    without an HMM, so that the kernel has one signature)."""
    if hmm is None:
        z, zi = np.zeros(1), np.zeros(2, np.int64)
        return zi, np.zeros(1, np.int64), z, z, z, z, z, z, 0.5, 0.5, 0, 1e-7
    return (st.t_row_ptr, st.t_cols, hmm.t_fwd, hmm.t_bwd, hmm.t_null_fwd, hmm.t_null_bwd,
            hmm.jump_fwd, hmm.jump_bwd, hmm.p0_fwd, hmm.p0_bwd, hmm.max_jump, hmm.floor)
