"""The validation experiments behind the defaults of ``structpred topics train``.

Only the TRAINING part of each corpus is used: the deterministic stratified 80/20 split of
:func:`topics.auto.validation_split` (seed 0).  For each feature setting (the
:class:`topics.corpus.Vocabulary` of each candidate, and variants: word pairs, no stop
list) it prints the validation accuracy of sdEM naive Bayes after every epoch (NCLL with the
Laplace prior, hinge with the log prior; ``lambda = 1e-5``) and of NBSVM (binary features)
at a few ``C`` / ``beta``.  The chosen defaults are in :data:`topics.auto.CANDIDATES`.

    python benchmarks/validate_text_defaults.py --corpora brown movies r8 20ng
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
    args = ap.parse_args(argv)
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
