"""The validation experiments behind the defaults of ``structpred topics train``.

Only the TRAINING part of each corpus is used: the deterministic stratified 80/20 split of
:func:`topics.auto.validation_split` (seed 0).  For each feature setting (the
:class:`topics.corpus.Vocabulary` of each candidate, and variants: word pairs, no stop
list) it prints the validation accuracy of sdEM naive Bayes after every epoch (NCLL with the
Laplace prior, hinge with the log prior; ``lambda = 1e-5``) and of NBSVM (binary features)
at a few ``C`` / ``beta``.  The chosen defaults are in :data:`topics.auto.CANDIDATES`.

    python benchmarks/validate_text_defaults.py --corpora brown movies r8 20ng

``--chooser`` instead runs the variants of :data:`VARIANTS` on the chooser's own protocol
(5-fold cross-validation under 2,000 training documents, else the 20% held out), prints each
one's validation accuracy and the share of 2,000 paired bootstraps in which it beats
``--baseline``, and caches each result under ``--out``:

    python benchmarks/validate_text_defaults.py --chooser --corpora brown movies r8 20ng
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FEATURES = {
    "words tf-idf": dict(min_df=1, weighting="tfidf", sublinear_tf=True, norm=3.0),
    "words tf-idf, no stop list": dict(min_df=1, weighting="tfidf", sublinear_tf=True,
                                       norm=3.0, stop_words=None),
    "words + pairs tf-idf": dict(ngram_range=(1, 2), min_df=2, weighting="tfidf",
                                 sublinear_tf=True, norm=3.0),
    "words + pairs binary": dict(ngram_range=(1, 2), min_df=2, weighting="binary"),
    "words binary": dict(min_df=1, weighting="binary"),
}
SDEM = (("ncll", "laplace"), ("hinge", "log"))

_HINGE = {"loss": "hinge", "prior": "log", "learning_decay": 1e-5, "n_epochs": 6}
_TFIDF = {"ngram_range": (1, 1), "min_df": 1, "weighting": "tfidf", "sublinear_tf": True,
          "norm": 3.0, "stop_words": "english", "digits": False}
_ALL = {"stop_words": None}
_SVM = {"C": 1.0, "max_iter": 100}
#: ``--chooser``: name -> (model, vocabulary, estimator settings); "sdem-stop" is the former
#: default, "sdem-all-digits" the new one, "svm-all-digits" the svm candidate
VARIANTS = {
    "sdem-stop": ("sdem-nb", _TFIDF, _HINGE),
    "sdem-all": ("sdem-nb", {**_TFIDF, **_ALL}, _HINGE),
    "sdem-all-digits": ("sdem-nb", {**_TFIDF, **_ALL, "digits": True}, _HINGE),
    "sdem-all-lambda1e-6": ("sdem-nb", {**_TFIDF, **_ALL}, {**_HINGE, "learning_decay": 1e-6}),
    "sdem-all-norm5": ("sdem-nb", {**_TFIDF, **_ALL, "norm": 5.0}, _HINGE),
    "sdem-all-10epochs": ("sdem-nb", {**_TFIDF, **_ALL}, {**_HINGE, "n_epochs": 10}),
    "svm-all": ("svm", {**_TFIDF, **_ALL, "norm": 1.0}, _SVM),
    "svm-all-digits": ("svm", {**_TFIDF, **_ALL, "norm": 1.0, "digits": True}, _SVM),
    "svm-stop": ("svm", {**_TFIDF, "norm": 1.0}, _SVM),
    "svm-all-C3": ("svm", {**_TFIDF, **_ALL, "norm": 1.0}, {**_SVM, "C": 3.0}),
    "nbsvm-all": ("nbsvm", {"ngram_range": (1, 2), "min_df": 2, "weighting": "binary", **_ALL},
                  {"C": 0.1, "beta": 1.0, "max_iter": 30}),
}


def chooser(args):
    """``--chooser``: the variants on the chooser's folds, against ``--baseline``."""
    from structpred.selection import paired_bootstrap
    from topics import auto
    from topics.corpus import load_text_corpus

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = args.variants or list(VARIANTS)
    for corpus in args.corpora:
        texts, y = load_text_corpus(corpus, "train", args.data_dir)
        y = np.asarray(y).astype(str)
        folds = (auto.cross_validation_folds(y, 5, 0) if y.size < 2000
                 else [auto.validation_split(y, 0.2, 0)])
        correct = {}
        for name in dict.fromkeys([args.baseline, *names]):
            path = out / f"{corpus}__{name}.npy"
            if not path.exists():
                spec = auto.CandidateSpec(name, *VARIANTS[name])
                trial = auto._Trial(spec)
                t0 = time.process_time()
                auto._fit_trial(trial, auto.analyze_once(texts, [spec]), folds, y, y, 0, None)
                np.save(path, trial.correct)
                print(f"# {corpus} {name}: {time.process_time() - t0:.1f}s CPU", flush=True)
            correct[name] = np.load(path)
        for name, c in correct.items():
            beats = ("" if name == args.baseline else
                     f"\tbetter than {args.baseline} in "
                     f"{100 * (1 - paired_bootstrap(correct[args.baseline], c).p_not_better):.1f}%")
            print(f"{corpus}\t{name}\t{100 * c.mean():.2f}{beats}", flush=True)
NBSVM_GRID = ((1.0, 0.25), (1.0, 1.0), (0.1, 0.25), (0.1, 1.0))


def main(argv=None):
    from topics.auto import validation_split
    from topics.corpus import Vocabulary, load_text_corpus
    from topics.nbsvm import NBSVM
    from topics.sdem import SdemNaiveBayes

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", nargs="+", default=["brown", "movies", "r8", "20ng"])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--chooser", action="store_true",
                    help="the VARIANTS on the chooser's protocol instead")
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS))
    ap.add_argument("--baseline", default="sdem-stop", choices=list(VARIANTS))
    ap.add_argument("--out", default="runs/validate_text", help="cache of --chooser")
    args = ap.parse_args(argv)
    if args.chooser:
        return chooser(args)
    for corpus in args.corpora:
        texts, y = load_text_corpus(corpus, "train", args.data_dir)
        fit, val = validation_split(y, 0.2, seed=0)
        tr, va = [texts[i] for i in fit], [texts[i] for i in val]
        for fname, kw in FEATURES.items():
            voc = Vocabulary(**kw)
            Xa, Xv = voc.fit_transform(tr), voc.transform(va)
            if kw.get("weighting") == "binary":
                for C, beta in NBSVM_GRID:
                    t0 = time.process_time()
                    acc = NBSVM(C=C, beta=beta).fit(Xa, y[fit]).score(Xv, y[val])
                    print(f"{corpus}\t{fname}\tNBSVM C={C} beta={beta}\t{100 * acc:.2f}\t"
                          f"{time.process_time() - t0:.1f}s CPU", flush=True)
                continue
            for loss, prior in SDEM:
                m = SdemNaiveBayes(loss=loss, prior=prior, learning_decay=1e-5, random_state=0)
                curve = []
                t0 = time.process_time()
                for _ in range(args.epochs):
                    m.partial_fit(Xa, y[fit], classes=np.unique(y), n=Xa.shape[0])
                    curve.append(f"{100 * m.score(Xv, y[val]):.2f}")
                print(f"{corpus}\t{fname}\tsdEM-NB {loss}/{prior} by epoch\t{' '.join(curve)}\t"
                      f"{time.process_time() - t0:.1f}s CPU", flush=True)


if __name__ == "__main__":
    main()
