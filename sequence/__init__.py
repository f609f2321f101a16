"""Sequence labelling (chunking, part-of-speech tagging, named entities) on the chain
marginal polytope.

* :class:`SequenceTagger` -- the linear-chain max-margin tagger (Bregman or Euclidean dual
  extragradient, or the averaged perceptron), with :func:`load_tagger` for its model files;
* :func:`read_conll` and :func:`write_conll` -- CoNLL column files, CoNLL-U, GermEval
  2014, Universal NER and the layouts of :mod:`sequence.layouts`, with clear errors;
* :func:`chunks`, :func:`token_accuracy` (and :func:`sequence.evaluate.evaluate`) -- chunk
  F1 with the ``conlleval`` rules (IOB, IOBES, BILOU) and token accuracy;
* :func:`token_features` -- the feature templates train and predict share.

The names are imported on first use.
"""

from __future__ import annotations

from structpred.lazy import lazy_exports

#: public name -> module of this package that defines it
_EXPORTS = {
    "SequenceTagger": "model",
    "load_tagger": "model",
    "LEARNERS": "model",
    "read_conll": "data",
    "write_conll": "data",
    "deterministic_split": "data",
    "chunks": "evaluate",
    "token_accuracy": "evaluate",
    "FEATURE_SETS": "features",
    "token_features": "features",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
