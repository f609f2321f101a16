"""Edge features for the matching aligner (thesis sec. 3.4.1.1; Taskar et al. 2005).

For a sentence pair ``(e_1..e_m, f_1..f_n)`` every candidate edge ``jk`` gets
a sparse, named feature vector; stacked as columns (row-major over ``j, k``)
they form ``F_i`` of the structured example.  The features:

* ``bias``;
* association: ``dice`` and whether it is the best Dice score of its row /
  column / both (competitive linking cues);
* IBM Model 2, both directions: posteriors ``post_fwd``, ``post_bwd``, their
  product and minimum; Viterbi predictions ``vit_fwd``, ``vit_bwd``, their
  intersection and union;
* position: ``|j/m - k/n|``, its square, and indicators of closeness to the
  diagonal;
* log-scaled posteriors and Dice, the posterior support of the neighbouring
  edges on the diagonal and anti-diagonal, and the IBM Model 2 NULL
  posteriors of each word;
* orthography: lower-cased exact match, common prefix of 3 and of 4+
  characters (cognates), the length ratio, punctuation and number cues;
* frequency: log-frequency of each word, divided by that of the most
  frequent word (so in [0, 1]);
* lexical identity indicators ``pair=e|f``, ``src=e`` and ``tgt=f`` for the
  most frequent words of each language.

Each dense feature is defined once, in the numba kernel of
:mod:`alignment.features.kernel` (:data:`~alignment.features.kernel.EDGE_FEATURES`, the
table of names and kernel slots); :class:`EdgeFeaturizer` runs it on one pair and adds the
lexical indicators.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .kernel import EDGE_FEATURES, N_DENSE, N_HMM

__all__ = ["EdgeFeaturizer", "DENSE_FEATURES", "HMM_FEATURES", "OPTIONAL_FEATURES"]

#: the features of every model (:data:`~alignment.features.kernel.EDGE_FEATURES`)
DENSE_FEATURES = EDGE_FEATURES[:N_DENSE]

#: extra rows when the statistics carry HMM tables (:meth:`AlignmentStatistics.with_hmm`)
HMM_FEATURES = EDGE_FEATURES[N_DENSE:N_DENSE + N_HMM]

#: extra rows only on request (``include=``): the edge joins a word that occurs more than once
#: in its sentence, and another occurrence of it lies nearer the diagonal position of the other
#: end (which of the repeated function words goes with which)
OPTIONAL_FEATURES = EDGE_FEATURES[N_DENSE + N_HMM:]


class EdgeFeaturizer:
    """Builds ``F_i`` (features x edges, sparse) for sentence pairs.

    Parameters
    ----------
    stats : :class:`alignment.stats.statistics.AlignmentStatistics`
        Dice and IBM Model 2 tables (both directions) and word frequencies.
    n_frequent : int
        Number of most frequent words on each side that get identity
        indicators (pairs of them as well).
    exclude : iterable of str
        Names of dense features (:data:`DENSE_FEATURES`, :data:`HMM_FEATURES`) to
        leave out, for ablations; an unknown name is an error.
    include : iterable of str
        Names of :data:`OPTIONAL_FEATURES` to add; an unknown name is an error.
    """

    def __init__(self, stats, n_frequent=10, exclude=(), include=()):
        self.stats = stats
        self.n_frequent = int(n_frequent)
        src_top = stats.most_frequent("src", self.n_frequent)
        tgt_top = stats.most_frequent("tgt", self.n_frequent)
        self._src_top = {w: i for i, w in enumerate(src_top)}
        self._tgt_top = {w: i for i, w in enumerate(tgt_top)}
        # log-frequencies are divided by that of the most frequent word, so that
        # every dense feature lies in [0, 1] and none dominates the operator norm
        # ||F|| that sets the step size 1/L.
        self._logfreq_scale = {
            side: max(float(np.max(stats.log_frequency(side, top), initial=0.0)), 1.0)
            for side, top in (("src", src_top[:1]), ("tgt", tgt_top[:1]))}
        self._use_hmm = getattr(stats, "hmm", None) is not None
        include = set(include)
        unknown = sorted(include - set(OPTIONAL_FEATURES))
        if unknown:
            raise ValueError(f"unknown optional edge features: {', '.join(unknown)} "
                             f"(known: {', '.join(OPTIONAL_FEATURES)})")
        self._include = tuple(f for f in OPTIONAL_FEATURES if f in include)
        dense = DENSE_FEATURES + (HMM_FEATURES if self._use_hmm else ()) + self._include
        exclude = set(exclude)
        unknown = sorted(exclude - set(dense))
        if unknown:
            raise ValueError(f"unknown edge features to exclude: {', '.join(unknown)} "
                             f"(known: {', '.join(dense)})")
        # kernel slots (EDGE_FEATURES) of the kept dense features, in feature order
        self._keep = np.array([EDGE_FEATURES.index(f) for f in dense if f not in exclude],
                              dtype=np.int64)
        dense = tuple(EDGE_FEATURES[i] for i in self._keep)
        names = list(dense)
        names += [f"src={w}" for w in src_top]
        names += [f"tgt={w}" for w in tgt_top]
        names += [f"pair={e}|{f}" for e in src_top for f in tgt_top]
        self.feature_names = names
        self._n_dense = len(dense)

    @property
    def n_features(self):
        return len(self.feature_names)

    def _inputs(self):
        from .kernel import KernelInputs

        if getattr(self, "_kernel_inputs", None) is None:
            self._kernel_inputs = KernelInputs(self)
        return self._kernel_inputs

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_kernel_inputs", None)     # word caches and a lock
        return state

    def dense_block(self, src, tgt):
        """The dense features as an array of shape ``(n_dense, m, n)`` (the kernel's
        values, :meth:`KernelInputs.features`)."""
        edge, _ = self._inputs().features([(src, tgt)])
        return edge[:, self._keep].T.reshape(self._n_dense, len(src), len(tgt))

    def transform(self, src, tgt, edge_values=None):
        """``F_i`` for one sentence pair: CSR of shape ``(n_features, m*n)``.

        ``edge_values``: the pair's ``(m*n, len(EDGE_FEATURES))`` kernel values, if the
        caller has them (:meth:`KernelInputs.features`; computed here otherwise)."""
        m, n = len(src), len(tgt)
        if m == 0 or n == 0:
            raise ValueError("empty sentence")
        if edge_values is None:
            edge_values = self._inputs().features([(src, tgt)])[0]
        dense = np.ascontiguousarray(edge_values[:, self._keep].T)
        if not np.all(np.isfinite(dense)):
            raise ValueError("non-finite edge feature")
        # lexical indicators src=e, tgt=f, pair=e|f of the frequent words (the kernel's
        # definition, alignment.features.kernel._lexical_slots)
        from .kernel import lexical_entries

        si = np.array([self._src_top.get(w, -1) for w in src], dtype=np.int64)
        ti = np.array([self._tgt_top.get(w, -1) for w in tgt], dtype=np.int64)
        rows, cols = lexical_entries(si, ti, len(self._src_top), len(self._tgt_top))
        lex = sp.csr_matrix((np.ones(rows.size), (rows, cols)),
                            shape=(self.n_features - self._n_dense, m * n))
        return sp.vstack([sp.csr_matrix(dense), lex], format="csr")
