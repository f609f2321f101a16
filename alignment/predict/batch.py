"""Model M prediction on a batch of sentence pairs at once (``align predict``'s fast path).

:meth:`MatchingAligner.predict_matrix` builds, for each sentence pair, the sparse feature
matrix ``F`` of :class:`~alignment.features.edges.EdgeFeaturizer` (and of
:class:`~alignment.features.links.AlignerFeaturizer`), takes the scores ``F' w`` and decodes
them with the OR-Tools min-cost flow: a few milliseconds of Python and scipy per pair.
Here the same scores are computed for a whole batch without building ``F``:

1. the words of the batch are looked up once per word type (ids, frequencies,
   orthographic cues), and the pairs are laid end to end in flat arrays (CSR offsets);
2. one numba kernel (:func:`~alignment.features.kernel._pair_tables`) runs the per-pair kernels of the statistics
   (IBM Model 2 posteriors, Dice, HMM posteriors) for every pair of the batch;
3. the log-scaled probabilities are taken with numpy on the flat arrays (the same
   ``np.log`` as the per-pair featurizer);
4. a second kernel (:func:`~alignment.features.kernel._edge_scores`) computes every
   edge's features with the functions that define them (those the per-pair path runs on
   a batch of one pair), adds ``value * weight`` feature by feature in the order of the
   feature names (the order of the sparse product ``F' w``, so the scores are the same
   floating-point numbers), and a third decodes each pair with the Hungarian method
   (:func:`structpred.polytopes.matching.hungarian_matching`).

Model M takes this path with any of the other aligners of
:mod:`alignment.features.links` as features (our HMM, eflomal, fast_align: the default
model, ``--aligners none``, ``--preset thesis``).  The external aligners' links are looked
up (or computed for new pairs, a batch at a time, by :meth:`AlignerLinks.prepare`) and
laid out as flat 0/1 arrays beside the statistics'.  The other models (fertility,
interactions, ``--external`` link files) keep the per-pair path (:func:`supports`).
"""

from __future__ import annotations

import numpy as np

from ..data.formats import Alignment
from ..features.kernel import ALIGNER_FEATURES, KernelInputs, _decode
from ..features.links import SOURCES

__all__ = ["BatchPredictor", "supports", "BATCH"]

#: sentence pairs featurized at once (the flat arrays of a batch stay a few MB)
BATCH = 256


def supports(model):
    """Whether :class:`BatchPredictor` computes ``model``'s predictions (model M, with any
    of the other aligners of :data:`~alignment.features.links.SOURCES`, no ``--external``
    link files).  Every feature of such a model is a kernel feature: the feature names are
    those of the kernel's tables, so no feature can send a model to the per-pair path."""
    return not model._extended and not model.use_external and set(model.aligners) <= set(SOURCES)


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
        self.inputs = KernelInputs(fz, model.aligner_links_ if model.aligners else None)
        # kernel slots of the model's dense and aligner features, in feature order
        self._keep = np.ascontiguousarray(fz._keep, np.int64)
        names = model.aligner_featurizer_.edge_names if model.aligners else []
        self._akeep = np.array([ALIGNER_FEATURES.index(n) for n in names], np.int64)
        self._n_top = np.array([len(fz._src_top), len(fz._tgt_top)], np.int64)
        self.coef = model.coef_        # the weights it was built for
        self._coef = np.ascontiguousarray(model.coef_, np.float64)

    def scores(self, pairs, prepared=False):
        """Flat edge scores ``F' w`` of a batch (each pair's ``m x n`` block row-major, one
        after the other) and the source and target offsets of the pairs."""
        return self.inputs.scores(pairs, self._keep, self._akeep, self._n_top, self._coef,
                                  prepared)

    def predict_links(self, pairs, prepared=False):
        """Links of each pair of a batch as flat arrays.

        Parameters
        ----------
        pairs : list of (src_tokens, tgt_tokens)
            Non-empty sentences.
        prepared : bool
            The pairs went through :meth:`KernelInputs.prepare` already (the aligners'
            runs are loaded and know every pair).

        Returns
        -------
        link_off : ndarray of int64, shape (len(pairs) + 1,)
        link_src, link_tgt : ndarray of int64
            The links ``(link_src[i], link_tgt[i])`` of pair ``p`` are those with
            ``link_off[p] <= i < link_off[p + 1]``, by source then target position.
        """
        s, soff, toff = self.scores(pairs, prepared)
        return _decode(soff, toff, s)

    def predict(self, pairs):
        """Predicted :class:`~alignment.data.formats.Alignment` of each pair (as
        :meth:`MatchingAligner.predict`)."""
        pairs = list(pairs)
        self.inputs.prepare(pairs)    # the new pairs through eflomal/fast_align at once
        out = []
        for a in range(0, len(pairs), BATCH):
            off, ls, lt = self.predict_links(pairs[a:a + BATCH], prepared=True)
            ls, lt, off = ls.tolist(), lt.tolist(), off.tolist()
            # the decoder's positions are ints >= 0: the constructor's checks are skipped
            out.extend(Alignment._predicted(ls[off[p]:off[p + 1]], lt[off[p]:off[p + 1]])
                       for p in range(len(off) - 1))
        return out
