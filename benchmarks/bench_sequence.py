"""Sequence labelling peers in one table: CRFsuite, the averaged perceptron and ours.

On CoNLL-2000 chunking (train / test as distributed) and NLTK's treebank POS sample
(first 90 % of the sentences train, the last 10 % test; a deterministic split), and on two
checks no default was chosen on (``--data conll2000-pos``: CoNLL-2000's POS column from the
words; ``czech-truecase`` and ``english-truecase``: the letter case of the Czech-English
bitext's words, :func:`truecase_task`), every
method sees the same feature strings (:func:`sequence.features.sentence_features`,
``full`` templates) and is trained and timed in this one run:

* ``crfsuite``: sklearn-crfsuite, L-BFGS, c1 = c2 = 0.1, at most ``--crf-iterations``
  (100) iterations, on all training sentences (the ``crf`` extra:
  ``pip install -e '.[crf]'``);
* ``perceptron``: the averaged structured perceptron (Collins 2002), epochs chosen on
  the validation sentences;
* ``bregman``: ours, the dual extragradient with KL steps over chain marginals (the
  ``structpred tag train`` default), stopped by validation or after 10 minutes;
* ``euclidean``: ours with Euclidean projections onto the chain marginal polytope, under
  a time budget and on the first ``--euclidean-sentences`` training sentences only
  (each projection is a QP: one iteration on all of CoNLL-2000 would take about half an
  hour).

Ours and the perceptron hold out every 10th training sentence for validation (early
stopping), then train again on all the training sentences for the chosen number of
iterations (``refit``, as ``tag train`` does); CRFsuite trains on all of them at once.  Training times are CPU seconds of the
training process (feature extraction included; every method is single-threaded), so
that they mean the same on a shared machine.  Scores: chunk F1 (conlleval rules) for
CoNLL-2000, token accuracy for the treebank.  Writes a Markdown table and a JSON file.

    python benchmarks/bench_sequence.py --out docs/results/sequence_table.md
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from sequence.data import deterministic_split, read_conll
from sequence.evaluate import evaluate
from sequence.features import token_features
from sequence.model import SequenceTagger
from structpred.io import atomic_write

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "sequence"
METHODS = ("crfsuite", "perceptron", "bregman", "euclidean")


def load(name, data=SHARED):
    """``(train X, train y, test X, test y)`` of a data set."""
    if name == "conll2000":
        X, y = read_conll(data / "conll2000" / "train.txt.gz")
        Xt, yt = read_conll(data / "conll2000" / "test.txt.gz")
        return X, y, Xt, yt
    if name == "conll2000-pos":   # a task no default was chosen on: the POS column as labels
        X, y = read_conll(data / "conll2000" / "train.txt.gz")
        Xt, yt = read_conll(data / "conll2000" / "test.txt.gz")
        return ([[(t[0],) for t in s] for s in X], [[t[1] for t in s] for s in X],
                [[(t[0],) for t in s] for s in Xt], [[t[1] for t in s] for s in Xt])
    if name.endswith("-truecase"):   # another language and task: restore letter case
        return truecase_task(name.split("-")[0], data.parent)
    X, y = read_conll(data / "treebank_pos" / "wsj.conll.gz")
    cut = int(round(0.9 * len(X)))
    return X[:cut], y[:cut], X[cut:], y[cut:]


def case_class(word):
    """The letter case of ``word``: ``lower``, ``Title``, ``UPPER`` (two or more cased
    letters, all capitals), ``mixed`` (``McDonald``, ``iPhone``) or ``none`` (no cased
    letter: numbers, punctuation)."""
    cased = [c for c in word if c.lower() != c.upper()]
    if not cased:
        return "none"
    if all(c.islower() for c in cased):
        return "lower"
    if all(c.isupper() for c in cased):
        return "UPPER" if len(cased) > 1 else "Title"
    if cased[0].isupper() and all(c.islower() for c in cased[1:]):
        return "Title"
    return "mixed"


def truecase_task(language, data):
    """Truecasing of the Czech-English bitext's ``czech`` or ``english`` side: the words
    lower-cased are the tokens and each word's :func:`case_class` its label.  No default
    was chosen on this task, nor on Czech.  The first 10,000 sentences train, the last
    2,500 test (a deterministic split)."""
    import gzip

    side = {"czech": "cs", "english": "en"}[language]
    with gzip.open(data / "alignment" / "czech_en-cs" / f"bitext.{side}.gz", "rt",
                   encoding="utf-8") as fh:
        sents = [line.split() for line in fh]
    sents = [s for s in sents if s]
    X = [[(w.lower(),) for w in s] for s in sents]
    y = [[case_class(w) for w in s] for s in sents]
    return X[:10000], y[:10000], X[10000:], y[10000:]


def fit_crfsuite(X, y, feature_set, max_iterations=100):
    """CRFsuite (L-BFGS, c1 = c2 = 0.1) on the same feature strings, with at most
    ``max_iterations`` L-BFGS iterations.

    Without a cap, CRFsuite's L-BFGS runs until the objective improves by less than
    ``delta = 1e-5`` over 10 iterations, which on these features takes hundreds of
    iterations: the uncapped fits of earlier sessions did not finish on the shared machine.
    """
    import sklearn_crfsuite

    crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1,
                               max_iterations=max_iterations)
    t0 = time.process_time()
    crf.fit(token_features(X, feature_set), y)
    return crf, time.process_time() - t0


def _settings(text):
    """``--set`` ``k=v,k=v``: tagger parameters of our Bregman row (numbers or strings)."""
    out = {}
    for item in filter(None, (text or "").split(",")):
        k, v = item.split("=")
        try:
            out[k] = int(v) if v.lstrip("-").isdigit() else float(v)
        except ValueError:
            out[k] = v
    return out


def _cache_path(args, name, method):
    return Path(args.cache) / f"{name}-{method}.json"


def run(name, methods, args):
    X, y, Xt, yt = load(name)
    tr, va = deterministic_split(len(X))
    Xtr, ytr = [X[i] for i in tr], [y[i] for i in tr]
    Xva, yva = [X[i] for i in va], [y[i] for i in va]
    rows = []
    for method in methods:
        cached = _cache_path(args, name, method)
        if args.cache and not args.rerun and cached.exists():
            with open(cached) as fh:
                row = json.load(fh)
            print(f"(cached {cached})", json.dumps(row), flush=True)
            rows.append(row)
            continue
        if args.cached_only:
            print(f"(no cached row {cached}: left out)", flush=True)
            rows.append({"data": name, "method": method, "missing": True})
            continue
        w0 = time.perf_counter()
        if method == "crfsuite":
            model, seconds = fit_crfsuite(X, y, args.feature_set, args.crf_iterations)
            pred = model.predict(token_features(Xt, args.feature_set))
            log = model.training_log_
            # active_attributes: attribute strings with a non-zero weight (the L1 term prunes)
            extra = {"train_sentences": len(X), "max_iterations": args.crf_iterations,
                     "iterations": len(log.iterations) if log else None, "best_iter": None,
                     "active_attributes": model.num_attributes_}
        else:
            kw = {"learner": method, "feature_set": args.feature_set}
            train = (Xtr, ytr)
            if method == "perceptron":
                kw.update(n_iter=args.epochs, eval_every=1, patience=3, refit=True)
            elif method == "euclidean":
                kw.update(n_iter=args.iterations, max_time=args.euclidean_budget, eval_every=1)
                # one Euclidean iteration on all sentences takes about half an hour (a QP
                # per sentence per step): it trains on the first sentences only
                train = (Xtr[:args.euclidean_sentences], ytr[:args.euclidean_sentences])
            else:
                kw.update(n_iter=args.iterations, patience=args.patience, refit=True,
                          max_time=args.bregman_budget, **_settings(args.set))
            model = SequenceTagger(**kw).fit(*train, eval_set=(Xva, yva))
            seconds = model.fit_time_
            pred = model.predict(Xt)
            extra = {"iterations": model.n_iter_, "best_iter": model.best_iter_,
                     "train_sentences": model.refit_sentences_ or len(train[0]),
                     "params": {k: v for k, v in model.get_params().items()
                                if k in ("min_count", "relative_radius", "radius", "n_iter",
                                         "scale_power", "step_scale", "loss_scale",
                                         "max_time")}}
        wall = time.perf_counter() - w0
        s = evaluate(yt, pred)
        row = {"data": name, "method": method, "seconds": seconds, "wall_seconds": wall,
               "accuracy": s["accuracy"], "f1": s.get("f1"), **extra}
        print(json.dumps(row), flush=True)
        if args.cache:
            cached.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(str(cached)) as fh:
                json.dump(row, fh)
        rows.append(row)
    return rows


def table(rows):
    lines = ["| data | method | training sentences | test chunk F1 | test token accuracy | "
             "training CPU s | training wall s (shared machine) | iterations (best) |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if r.get("missing"):
            lines.append(f"| {r['data']} | {r['method']} | not finished | | | | | |")
            continue
        f1 = "" if r["f1"] is None else f"{r['f1']:.2f}"
        it = "" if r.get("iterations") is None else (
            f"{r['iterations']}" if r.get("best_iter") is None
            else f"{r['iterations']} ({r['best_iter']})")
        wall = f"{r['wall_seconds']:.0f}" if "wall_seconds" in r else ""
        lines.append(f"| {r['data']} | {r['method']} | {r.get('train_sentences', '')} | {f1} | "
                     f"{r['accuracy']:.2f} | {r['seconds']:.0f} | {wall} | {it} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="conll2000,treebank")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--feature-set", default="full")
    p.add_argument("--iterations", type=int, default=SequenceTagger().n_iter,
                   help="iterations at most of our learners (default: the tagger's)")
    p.add_argument("--patience", type=int, default=4)
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--crf-iterations", type=int, default=100,
                   help="L-BFGS iterations of CRFsuite, at most")
    p.add_argument("--euclidean-budget", type=float, default=300.0,
                   help="CPU seconds for the Euclidean learner")
    p.add_argument("--euclidean-sentences", type=int, default=200,
                   help="the Euclidean learner trains on the first N training sentences")
    p.add_argument("--bregman-budget", type=float, default=600.0,
                   help="seconds for our default learner (the 10-minute target)")
    p.add_argument("--set", default="", metavar="K=V,...",
                   help="parameters of our Bregman row other than the tagger's defaults")
    p.add_argument("--out", default="runs/sequence/bench.md")
    p.add_argument("--cache", default="runs/sequence/bench-cache",
                   help="folder of one JSON row per data set and method: a finished row is "
                        "read back instead of rerun, so an interrupted run resumes ('' = off)")
    p.add_argument("--rerun", action="store_true", help="ignore cached rows (and rewrite them)")
    p.add_argument("--cached-only", action="store_true",
                   help="write the table from the cached rows only; others are marked "
                        "'not finished'")
    args = p.parse_args(argv)
    rows = []
    for name in args.data.split(","):
        rows += run(name, args.methods.split(","), args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as fh:
        fh.write(table(rows))
    with atomic_write(str(Path(args.out).with_suffix(".json"))) as fh:
        json.dump({"rows": rows, "args": vars(args)}, fh, indent=1)
    print(table(rows))


if __name__ == "__main__":
    main()
