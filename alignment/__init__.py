"""Discriminative word alignment (Lacoste-Julien 2009, ch. 3), laid out by pipeline stage.

* :mod:`alignment.data`: the bitext: vocabularies and encodings (``corpus``), the
  parallel-text, Pharaoh and NAACL readers and writers (``formats``), the Hansards data of
  ch. 3 (``hansards``);
* :mod:`alignment.stats`: what is estimated on the unlabeled bitext: IBM Models 1/2
  (``ibm``), the HMM (``hmm``), Dice (``dice``), their bundle :class:`AlignmentStatistics`
  (``statistics``), the counts behind the fertility and pair features (``interactions``),
  the sharded E-steps on an executor (``shards``);
* :mod:`alignment.features`: the features of an edge (``edges``), of fertility and pairs
  (``interactions``), other aligners' links as features (``links``: cached runs and link
  files), the numba kernels that define the features (``kernel``);
* :mod:`alignment.aligners`: other aligners: eflomal and fast_align runs (``runs``), link
  files (``linkfiles``), symmetrisation (``symmetrize``), our unsupervised aligner
  (``unsupervised``), our Bayesian aligner sampled by collapsed Gibbs sampling (``bayes``,
  with its sampler in ``stats.gibbs``; cached as a feature source by ``bayes_run``);
* :mod:`alignment.model`: :class:`MatchingAligner`, the max-margin aligner (models M, M+F,
  M+Q, M+F+Q);
* :mod:`alignment.predict`: batch prediction (``batch``) and prediction in parallel
  (``parallel``);
* :mod:`alignment.evaluate`: AER (``aer``), the Table 3.1 protocol (``protocol``) and its
  table (``table``), alignment grids (``plot``);
* :mod:`alignment.selection`: the choice of c- and of the model on validation;
* :mod:`alignment.training`: the training pipeline in one call (:func:`train_aligner`);
* :mod:`alignment.cli`: the ``structpred align`` and ``structpred aer`` commands.

The names below are imported on first use (``import alignment`` stays light)::

    from alignment import MatchingAligner, AlignmentStatistics, read_parallel, score_alignments
"""

from __future__ import annotations

import importlib
import os as _os

if any(_k.startswith("NUMBA_") for _k in _os.environ):
    # a NUMBA_* value numba cannot use is refused by structpred's import, before numba's
    import structpred  # noqa: F401

#: public name -> module that defines it
_EXPORTS = {
    # data
    "Alignment": "alignment.data.formats",
    "read_parallel": "alignment.data.formats",
    "iter_parallel": "alignment.data.formats",
    "write_parallel": "alignment.data.formats",
    "read_fast_align": "alignment.data.formats",
    "iter_fast_align": "alignment.data.formats",
    "write_fast_align": "alignment.data.formats",
    "read_pharaoh": "alignment.data.formats",
    "write_pharaoh": "alignment.data.formats",
    "format_pharaoh": "alignment.data.formats",
    "read_naacl": "alignment.data.formats",
    "write_naacl": "alignment.data.formats",
    "Vocabulary": "alignment.data.corpus",
    "EncodedCorpus": "alignment.data.corpus",
    "Bitext": "alignment.data.corpus",
    "load_bitext": "alignment.data.corpus",
    "iter_bitext": "alignment.data.corpus",
    "load_hansards": "alignment.data.hansards",
    "HansardsData": "alignment.data.hansards",
    # statistics
    "AlignmentStatistics": "alignment.stats.statistics",
    "InteractionStatistics": "alignment.stats.interactions",
    "HMMTables": "alignment.stats.hmm",
    "train_hmm": "alignment.stats.hmm",
    "train_ibm": "alignment.stats.ibm",
    # features
    "EdgeFeaturizer": "alignment.features.edges",
    "NodeFeaturizer": "alignment.features.interactions",
    "PairFeaturizer": "alignment.features.interactions",
    "AlignerLinks": "alignment.features.links",
    "AlignerFeaturizer": "alignment.features.links",
    "ExternalFeaturizer": "alignment.features.links",
    # other aligners
    "UnsupervisedAligner": "alignment.aligners.unsupervised",
    "BayesianAligner": "alignment.aligners.bayes",
    "ExternalAlignments": "alignment.aligners.linkfiles",
    "symmetrize": "alignment.aligners.symmetrize",
    "available_aligners": "alignment.aligners.runs",
    "run_aligner": "alignment.aligners.runs",
    # the model and prediction
    "MatchingAligner": "alignment.model",
    "MODELS": "alignment.model",
    "BatchPredictor": "alignment.predict.batch",
    # evaluation
    "AERScore": "alignment.evaluate.aer",
    "score_alignments": "alignment.evaluate.aer",
    "sentence_counts": "alignment.evaluate.aer",
    "paired_bootstrap": "alignment.evaluate.aer",
    "error_breakdown": "alignment.evaluate.aer",
    "run_protocol": "alignment.evaluate.protocol",
    "hansards_setup": "alignment.evaluate.protocol",
    "format_table": "alignment.evaluate.table",
    "choose_aligner": "alignment.selection",
    # the whole training pipeline in one call
    "train_aligner": "alignment.training",
    "TrainingReport": "alignment.training",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
