"""Text classifiers built on topic models, as scikit-learn-style estimators.

* :class:`LDA` (collapsed Gibbs) and :class:`LDASVM` (LDA features + linear SVM);
* :class:`DiscLDA` (thesis ch. 4);
* :class:`SdemNaiveBayes` and :class:`SdemLDAClassifier` (stochastic discriminative EM);
* :class:`GibbsMedLDA` and :class:`ImportanceMedLDA` (Monte Carlo MedLDA);
* :class:`PaMedLDA` (online Bayesian passive-aggressive MedLDA);
* :class:`NBSVM` (naive Bayes log-count-ratio features + SVM, Wang & Manning 2012);
* corpus handling: :class:`Tokenizer` (letters of every script), :func:`tokenize`,
  :class:`Vocabulary` (n-grams, binary / tf-idf weights) and the data loaders;
* :mod:`topics.auto`: the validation choice of ``structpred topics train``;
* :func:`read_documents` (folder / TSV / CSV / JSON-lines input), :func:`save_model` and
  :func:`load_model` (``.npz`` model files without pickle), as used by
  ``structpred topics``.

The names are imported on first use, so ``import topics`` stays light.
"""

from __future__ import annotations

import importlib
import os as _os

if any(_k.startswith("NUMBA_") for _k in _os.environ):
    # a NUMBA_* value numba cannot use is refused by structpred's import, before numba's
    import structpred  # noqa: F401

_EXPORTS = {
    # estimators
    "LDA": "lda",
    "LDASVM": "baselines",
    "DiscLDA": "disclda",
    "SdemNaiveBayes": "sdem",
    "SdemLDAClassifier": "sdem_lda",
    "GibbsMedLDA": "medlda",
    "ImportanceMedLDA": "medlda",
    "PaMedLDA": "bayespa",
    "PaMedHDPClassifier": "pamedhdp",
    "NBSVM": "nbsvm",
    "Tokenizer": "tokens",
    # corpus handling and loaders
    "tokenize": "corpus",
    "Vocabulary": "corpus",
    "ENGLISH_STOP_WORDS": "corpus",
    "load_jsonl": "corpus",
    "load_20newsgroups": "corpus",
    "load_reuters_r8": "corpus",
    "load_movie_reviews": "corpus",
    "load_bundled_20ng": "corpus",
    "strip_newsgroup_headers": "corpus",
    # command-line input and model files
    "read_documents": "_text_io",
    "save_model": "_persist",
    "load_model": "_persist",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
