"""The topic classifiers by name: what ``structpred topics train --model NAME`` fits.

:data:`MODELS` maps each name to its estimator class, the parameters that ``--iterations``
and ``--n-topics`` set, and the command line's own defaults; :func:`make_estimator` builds
the unfitted estimator. The command line (:mod:`topics.cli`) and the choice on validation
(:mod:`topics.auto`) both use it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from structpred import check_seed

__all__ = ["ModelSpec", "MODELS", "make_estimator"]


@dataclass(frozen=True)
class ModelSpec:
    """How a ``--model`` name maps onto an estimator class of ``topics``."""

    module: str
    cls: str
    iterations: str            # the parameter --iterations sets
    topics: str | None         # the parameter --n-topics sets (None: no topics)
    defaults: dict = field(default_factory=dict)   # the command line's own defaults
    help: str = ""

    def load(self):
        return getattr(importlib.import_module(self.module), self.cls)


#: below this many training documents (and without validation documents) ``topics train``
#: chooses its model by cross-validation over them all, not on a held-out share
#: (``valid_fraction``); here so that the help text states it without importing the chooser
CV_BELOW = 2000
#: the folds of that cross-validation
CV_FOLDS = 5
#: the share of each class held out from ``CV_BELOW`` documents on (``--valid-fraction``'s
#: default); where it rounds to no document of most classes of two documents or more (of
#: two: 20% of 2 is none), the default cross-validates as below ``CV_BELOW`` instead
VALID_FRACTION = 0.2

MODELS = {
    "nbsvm": ModelSpec(
        "topics.nbsvm", "NBSVM", "max_iter", None,
        help="NBSVM: naive Bayes log-count ratios + a squared-hinge SVM per class (Wang & "
             "Manning 2012); binary words + word pairs; --iterations: coordinate-descent "
             "passes (at most)"),
    "svm": ModelSpec(
        "topics.nbsvm", "NBSVM", "max_iter", None,
        {"nb_scaling": False, "binarize": False, "beta": 1.0},
        help="linear SVM: the squared-hinge SVM of NBSVM without its naive Bayes scaling, one "
             "per class against the rest, on tf-idf words; --iterations: coordinate-descent "
             "passes (at most)"),
    "sdem-nb": ModelSpec(
        "topics.sdem", "SdemNaiveBayes", "n_epochs", None,
        help="multinomial naive Bayes trained by sdEM (hinge loss, log prior, tf-idf words; "
             "the default's model); --iterations: epochs (default 6, and at least 6,000 "
             "document visits on a smaller corpus)"),
    "sdem-lda": ModelSpec(
        "topics.sdem_lda", "SdemLDAClassifier", "n_epochs", "n_topics",
        help="one LDA per class trained by sdEM; --n-topics: topics per class (default 2); "
             "--iterations: epochs"),
    "lda-svm": ModelSpec(
        "topics.baselines", "LDASVM", "n_iter", "n_topics", {"n_topics": 20},
        help="LDA topic proportions + linear SVM; --iterations: Gibbs sweeps"),
    "disclda": ModelSpec(
        "topics.disclda", "DiscLDA", "n_iter", "n_topics",
        help="DiscLDA (fixed class/shared topic blocks); --n-topics K: about K topics in "
             "all, half of them shared (default: 5 per class + 10 shared); --iterations: "
             "Gibbs sweeps"),
    "medlda-gibbs": ModelSpec(
        "topics.medlda", "GibbsMedLDA", "n_iter", "n_topics",
        help="MedLDA by collapsed Gibbs sampling; --iterations: alternations (at most)"),
    "medlda-is": ModelSpec(
        "topics.medlda", "ImportanceMedLDA", "n_iter", "n_topics",
        help="MedLDA by importance sampling; --iterations: alternations (at most)"),
    "pamedlda": ModelSpec(
        "topics.bayespa", "PaMedLDA", "n_passes", "n_topics",
        {"n_topics": 20, "batch_size": 64, "n_passes": 5},
        help="online Bayesian passive-aggressive MedLDA (40 topics, mini-batches of 64); "
             "--iterations: passes over the data (default 3)"),
    "pamedhdp": ModelSpec(
        "topics.pamedhdp", "PaMedHDPClassifier", "n_passes", None,
        help="online Bayesian passive-aggressive max-margin HDP: the number of topics is "
             "inferred; --iterations: passes over the data"),
}

def make_estimator(model, *, n_topics=None, iterations=None, seed=0, n_classes=None, params=None):
    """The unfitted estimator that ``structpred topics train --model MODEL`` fits.

    Parameters
    ----------
    model : str
        A key of :data:`MODELS`.
    n_topics : int, optional
        ``--n-topics`` (for ``disclda``: the total, split between ``n_classes`` class blocks
        and the shared topics).
    iterations : int, optional
        ``--iterations``.
    seed : int, None, numpy RandomState or Generator
        ``random_state``.
    n_classes : int, optional
        Needed by ``disclda`` with ``n_topics``.
    params : dict, optional
        Any other constructor parameters (applied last).

    Raises ``ValueError`` on an unknown model or parameter.
    """
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")
    spec = MODELS[model]
    est = spec.load()()
    names = set(est.get_params())
    kw = dict(spec.defaults)
    if n_topics is not None:
        if spec.topics is None:
            raise ValueError(f"{model} has no topics: leave out --n-topics")
        if model == "disclda":
            if n_classes is None:
                raise ValueError("disclda with n_topics needs n_classes")
            per_class = max(1, int(round(n_topics / (2.0 * n_classes))))
            kw["n_class_topics"] = per_class
            kw["n_shared_topics"] = max(0, int(n_topics) - per_class * int(n_classes))
        else:
            kw[spec.topics] = int(n_topics)
    if iterations is not None:
        kw[spec.iterations] = int(iterations)
    check_seed(seed, "seed")   # an instance is kept: the estimator draws its seed once
    kw["random_state"] = seed
    for k, v in (params or {}).items():
        if k not in names or k == "vocabulary":
            valid = ", ".join(sorted(names - {"vocabulary"}))
            raise ValueError(f"{model} ({spec.cls}) has no parameter {k!r}; its parameters: "
                             f"{valid}")
        kw[k] = v
    if isinstance(kw.get("C_grid"), list):
        kw["C_grid"] = tuple(kw["C_grid"])
    return est.set_params(**kw)
