"""Edge and pair features from the link files of other aligners (``--external``,
:class:`alignment.aligners.linkfiles.ExternalAlignments`).

A near-copy of :class:`alignment.features.links.AlignerFeaturizer`, which computes the
same features from cached runs of the aligners; the two are to be merged."""

from __future__ import annotations

import numpy as np

from ..aligners.symmetrize import links_matrix, symmetrize

__all__ = ["ExternalFeaturizer"]


# ----------------------------------------------------------------------- features
class ExternalFeaturizer:
    """Edge and pair features from :class:`ExternalAlignments`.

    Edge features (one row each, 0/1 unless noted): every link set
    ``ext:<name>``; for the eflomal directions also their intersection,
    grow-diag-final-and and union; the number of link sets that have the
    edge (divided by their count); and the intersection's support from the
    two diagonal neighbours (monotone and inverted, 0/0.5/1).  Pair
    features (non-negative, for :class:`~alignment.features.interactions.PairFeaturizer`'s
    patterns): for each pattern and each of the link sets above, whether both
    edges of the pair are linked.
    """

    def __init__(self, names):
        self.names = list(names)
        self.derived = []
        if {"eflomal_fwd", "eflomal_bwd"} <= set(self.names):
            self.derived = ["eflomal_inter", "eflomal_gdfa", "eflomal_union"]
        sets = self.names + self.derived
        self.edge_names = ([f"ext:{n}" for n in sets]
                           + ["ext:vote_share", "ext:inter_nbr_diag", "ext:inter_nbr_anti"])
        from ..stats.interactions import _PATTERN_NAMES

        self.pair_names = [f"{p}:ext:{n}" for p in _PATTERN_NAMES for n in sets]

    def link_sets(self, external, src, tgt):
        """``(n_sets, m, n)`` 0/1 links: the raw sets then the derived ones."""
        if (src, tgt) not in external:
            raise ValueError("no external alignment for the sentence pair "
                             f"{' '.join(src)[:60]!r}: run the external aligners on it "
                             "(scripts/run_external_aligners.py)")
        mats = external.matrices(src, tgt)
        if not self.derived:
            return mats
        shape = (len(src), len(tgt))
        f = {(j, k) for j, k in zip(*np.nonzero(mats[self.names.index("eflomal_fwd")]))}
        b = {(j, k) for j, k in zip(*np.nonzero(mats[self.names.index("eflomal_bwd")]))}
        extra = [links_matrix(symmetrize(f, b, m), shape)
                 for m in ("intersection", "grow-diag-final-and", "union")]
        return np.concatenate([mats, np.stack(extra)])

    def edge_block(self, external, src, tgt):
        """``(n_edge_features, m*n)`` dense block."""
        L = self.link_sets(external, src, tgt)
        m, n = L.shape[1:]
        inter = L[len(self.names)] if self.derived else L.min(0)
        pad = np.pad(inter, 1)
        diag = 0.5 * (pad[:-2, :-2] + pad[2:, 2:])
        anti = 0.5 * (pad[:-2, 2:] + pad[2:, :-2])
        rows = [*L, L[: len(self.names)].mean(0), diag, anti]
        return np.stack(rows).reshape(len(rows), m * n)

    def pair_block(self, external, src, tgt, pairs, pattern):
        """``(n_pair_features, P)`` dense block."""
        L = self.link_sets(external, src, tgt)
        S = L.shape[0]
        flat = L.reshape(S, -1)
        both = flat[:, pairs[:, 0]] * flat[:, pairs[:, 1]]    # (S, P)
        out = np.zeros((len(self.pair_names), len(pairs)))
        for p in range(4):
            sel = pattern == p
            out[p * S:(p + 1) * S, sel] = both[:, sel]
        return out
