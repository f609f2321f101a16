"""Text classifiers on four corpora: scikit-learn's peers against ``structpred topics train``.

For each corpus (20 Newsgroups, Reuters R8, movie-review polarity, Brown genres; splits in
:data:`topics.corpus.TEXT_CORPORA`) this writes the training and test parts as JSON lines,
then fits on the training part and scores on the test part:

* the scikit-learn peers as a new user writes them, default settings:
  ``CountVectorizer`` + ``MultinomialNB`` / ``ComplementNB``, ``TfidfVectorizer`` +
  ``LinearSVC`` / ``LogisticRegression(max_iter=1000)``;
* ``structpred topics train --model X`` for every model ``X`` at its defaults, and the
  default ``structpred topics train`` (``--model auto``: chosen on a validation split of the
  training part, see :mod:`topics.auto`) -- run as the command, so that the time includes
  reading and tokenising, as the peers' includes vectorising.

The test part is used only for the reported accuracy.  Each job runs in its own process
under a time limit (``--timeout``); ``--jobs`` of them at once.  Results are cached as one
JSON file per (corpus, method) under ``--out`` and the tables are printed as Markdown.

    python benchmarks/bench_text_classifiers.py --data-dir ../shared/data/text --jobs 1
    python benchmarks/bench_text_classifiers.py --corpora brown movies --methods peers auto
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PEERS = ("MultinomialNB", "ComplementNB", "LinearSVC", "LogisticRegression")
OURS = ("auto", "sdem-nb", "svm", "nbsvm", "sdem-lda", "pamedlda", "lda-svm", "disclda",
        "medlda-gibbs", "medlda-is", "pamedhdp")
CORPORA = ("20ng", "r8", "movies", "brown")


def write_data(corpus, data_dir, out):
    """``out/data/<corpus>-{train,test}.jsonl.gz`` (once)."""
    from topics.corpus import load_text_corpus

    d = out / "data"
    d.mkdir(parents=True, exist_ok=True)
    for subset in ("train", "test"):
        path = d / f"{corpus}-{subset}.jsonl.gz"
        if path.exists():
            continue
        texts, labels = load_text_corpus(corpus, subset, data_dir)
        tmp = path.with_suffix(".tmp")
        with gzip.open(tmp, "wt", encoding="utf-8") as fh:
            for t, y in zip(texts, labels):
                fh.write(json.dumps({"label": str(y), "text": t}) + "\n")
        os.replace(tmp, path)


def _read(path):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def run_peer(name, train, test):
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import ComplementNB, MultinomialNB
    from sklearn.svm import LinearSVC

    make = {"MultinomialNB": (CountVectorizer, MultinomialNB),
            "ComplementNB": (CountVectorizer, ComplementNB),
            "LinearSVC": (TfidfVectorizer, LinearSVC),
            "LogisticRegression": (TfidfVectorizer,
                                   lambda: LogisticRegression(max_iter=1000))}[name]
    tr, ytr = _read(train)
    te, yte = _read(test)
    t0 = time.perf_counter()
    vec, clf = make[0](), make[1]()
    clf.fit(vec.fit_transform(tr), ytr)
    secs = time.perf_counter() - t0
    acc = float(np.mean(clf.predict(vec.transform(te)) == yte))
    return {"accuracy": acc, "train_seconds": secs}


def run_ours(model, train, test, work):
    from topics._persist import load_model

    path = work / f"{model}.npz"
    cmd = [sys.executable, __file__, "--topics-train", "--data", str(train), "-o", str(path)]
    if model != "auto":
        cmd += ["--model", model]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    secs = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed")
    saved = load_model(path)
    te, yte = _read(test)
    pred = saved.estimator.predict(saved.vocabulary.transform(te))
    out = {"accuracy": float(np.mean(np.asarray(pred).astype(str) == yte)),
           "train_seconds": secs, "model": saved.model,
           "fit_seconds": saved.info.get("fit_seconds")}
    if "validation" in saved.info:
        out["validation"] = saved.info["validation"]
        out["summary"] = [ln for ln in proc.stdout.splitlines()]
    return out


def topics_train(argv):
    """``structpred topics train ARGV`` without the installed entry points (as the command
    line runs it: one-line errors, exit status 2)."""
    from structpred.cli import UserError
    from topics.cli import add_parser

    ap = argparse.ArgumentParser(prog="structpred")
    add_parser(ap.add_subparsers(), "topics")
    args = ap.parse_args(["topics", "train", *argv])
    try:
        return args.handler(args)
    except UserError as exc:
        print(f"structpred: error: {exc}", file=sys.stderr)
        return 2


def merge(out, dst):
    """All cached results in one JSON file (``--merge``)."""
    rows = [json.loads(p.read_text()) for p in sorted((Path(out) / "results").glob("*.json"))]
    tmp = Path(str(dst) + ".tmp")
    tmp.write_text(json.dumps(rows, indent=1))
    os.replace(tmp, dst)


def one(args):
    """``--one CORPUS METHOD``: run one job, write its JSON."""
    corpus, method = args.one
    out = Path(args.out)
    train, test = out / "data" / f"{corpus}-train.jsonl.gz", out / "data" / f"{corpus}-test.jsonl.gz"
    work = out / "models" / corpus
    work.mkdir(parents=True, exist_ok=True)
    res = run_peer(method, train, test) if method in PEERS else run_ours(method, train, test, work)
    res.update(corpus=corpus, method=method, cpu_count=os.cpu_count())
    dst = out / "results" / f"{corpus}__{method}.json"
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(".tmp")
    tmp.write_text(json.dumps(res, indent=1))
    os.replace(tmp, dst)


def job(corpus, method, args):
    dst = Path(args.out) / "results" / f"{corpus}__{method}.json"
    if dst.exists() and not args.force:
        return
    cmd = [sys.executable, __file__, "--out", args.out, "--one", corpus, method]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        err = None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]
    except subprocess.TimeoutExpired:
        err = f"not finished in {args.timeout:.0f} s"
    if err is not None:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(json.dumps({"corpus": corpus, "method": method, "error": err,
                                   "seconds": time.perf_counter() - t0}))
    print(f"{corpus:7s} {method:20s} {'ok' if err is None else err} "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)


def table(corpus, args):
    rows = []
    for m in [*PEERS, *OURS]:
        p = Path(args.out) / "results" / f"{corpus}__{m}.json"
        if p.exists():
            rows.append(json.loads(p.read_text()))
    lines = ["| method | test accuracy (%) | training time (s) |", "|---|---:|---:|"]
    for r in rows:
        name = r["method"] if r["method"] in PEERS else (
            f"`topics train` (default: chose {r.get('model', '?')})" if r["method"] == "auto"
            else f"`topics train --model {r['method']}`")
        if "error" in r:
            lines.append(f"| {name} | – | {r['error']} |")
        else:
            lines.append(f"| {name} | {100 * r['accuracy']:.2f} | {r['train_seconds']:.1f} |")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--topics-train"]:
        sys.exit(topics_train(argv[1:]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None, help="the text data store (default "
                    "../shared/data/text)")
    ap.add_argument("--out", default="runs/bench_text", help="cache and results folder")
    ap.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=CORPORA)
    ap.add_argument("--methods", nargs="+", default=["peers", *OURS],
                    help="'peers' and/or our --model names ('auto': the default)")
    ap.add_argument("--jobs", type=int, default=1, help="jobs at once")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per job")
    ap.add_argument("--force", action="store_true", help="rerun cached jobs")
    ap.add_argument("--merge", metavar="JSON", help="only write every cached result to JSON")
    ap.add_argument("--table", action="store_true", help="only print the tables of the cache")
    ap.add_argument("--one", nargs=2, metavar=("CORPUS", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        return one(args)
    if args.merge:
        return merge(args.out, args.merge)
    if args.table:
        for c in args.corpora:
            print(f"\n### {c}\n\n{table(c, args)}")
        return None
    methods = [m for x in args.methods for m in (PEERS if x == "peers" else [x])]
    for c in args.corpora:
        write_data(c, args.data_dir, Path(args.out))
    slow = ("disclda", "lda-svm", "medlda-gibbs", "medlda-is", "pamedhdp", "pamedlda", "sdem-lda")
    todo = sorted(((c, m) for c in args.corpora for m in methods),    # the longest jobs first
                  key=lambda cm: (cm[1] not in slow, CORPORA.index(cm[0])))
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        list(pool.map(lambda cm: job(*cm, args), todo))
    for c in args.corpora:
        print(f"\n### {c}\n\n{table(c, args)}")


if __name__ == "__main__":
    main()
