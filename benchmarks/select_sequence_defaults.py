"""Choose the defaults of ``structpred tag train`` on validation splits of the training parts.

For each data set (CoNLL-2000's training file, the training 90 % of the treebank POS
sample), every 10th training sentence validates and the others train
(:func:`sequence.data.deterministic_split`); the test parts are never read.  Each
candidate setting is fitted with the same iterations, scored on the validation sentences
(chunk F1 or token accuracy) and compared with the default by
:func:`structpred.selection.prefer_default`: the simpler default is kept unless a
candidate wins in at least 95 % of paired bootstraps of the validation sentences.

    python benchmarks/select_sequence_defaults.py --first 3000 --iterations 30 \\
        --out runs/sequence/selection.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from sequence.data import deterministic_split
from sequence.evaluate import score_from_stats, sentence_stats
from sequence.model import SequenceTagger
from structpred.io import atomic_write
from structpred.selection import fit_candidates, prefer_default

sys_path = Path(__file__).resolve().parent
import sys  # noqa: E402

sys.path.insert(0, str(sys_path))
from bench_sequence import load  # noqa: E402

#: the default first (the simpler templates and the step of the convergence bound)
CANDIDATES = [("window", 1.0), ("window", 3.0), ("full", 1.0), ("full", 3.0)]


def select(name, args):
    X, y, _, _ = load(name)          # the test part is not used
    X, y = X[:args.first], y[:args.first]
    tr, va = deterministic_split(len(X))
    Xt, yt = [X[i] for i in tr], [y[i] for i in tr]
    Xv, yv = [X[i] for i in va], [y[i] for i in va]

    def make(value):
        fs, step = value
        return SequenceTagger(feature_set=fs, step_scale=step, n_iter=args.iterations,
                              eval_every=5)

    def fit(model):
        model.fit(Xt, yt, Xv, yv)

    def score_of(model):
        return model.score(Xv, yv), model.best_iter_

    def stats_of(model):
        return sentence_stats(yv, model.predict(Xv), model.iob_)

    ranked = fit_candidates(make, CANDIDATES, fit, jobs=1, score_of=score_of)
    kept, p = prefer_default(ranked, CANDIDATES[0], stats_of, score=_score)
    return {"data": name, "sentences": len(X), "validation_sentences": len(va),
            "candidates": [{"value": list(c.value), "score": c.score, "best_iter": c.best_iter,
                            "seconds": c.seconds} for c in ranked],
            "kept": list(kept.value), "p_not_better": p}


def _score(summed):
    summed = np.asarray(summed, dtype=np.float64)
    if summed.shape[-1] == 3:
        c, p, g = summed[..., 0], summed[..., 1], summed[..., 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c > 0, 200.0 * c / (p + g), 0.0)
    return 100.0 * summed[..., 0] / np.maximum(summed[..., 1], 1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="conll2000,treebank")
    p.add_argument("--first", type=int, default=3000,
                   help="training sentences used (the first N of the training part)")
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--out", default="runs/sequence/selection.json")
    args = p.parse_args(argv)
    out = []
    for name in args.data.split(","):
        res = select(name, args)
        print(json.dumps(res), flush=True)
        out.append(res)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as fh:
        json.dump({"results": out, "args": vars(args)}, fh, indent=1)


if __name__ == "__main__":
    assert score_from_stats  # the CLI's scorer; _score is its vectorised form
    main()
