"""Training speed of ``structpred tag train``: two versions of the code, side by side.

Each version is a source tree (a checkout, or ``git archive REV | tar -x -C DIR``); every
(data set, version) runs in a process of its own with ``PYTHONPATH`` set to that tree, the
versions alternating (A B, then B A on the next data set), so that both see the same
machine state.  Two modes:

* ``iterations``: ``--iterations`` iterations of the learner with the ``tag train``
  defaults on the training part (the first 90 % of the treebank, CoNLL-2000's training
  file), no validation; records the CPU seconds of every iteration and the final averaged
  iterate, so the versions' iterates can be compared;
* ``train``: what ``tag train`` does with its defaults (every 10th sentence validates,
  patience 4, the refit on all sentences for ``t*`` iterations), then what ``tag eval``
  does on the test part; records the CPU and wall seconds of the whole process, the
  validation scores, ``t*``, the test scores and the model's weights.

``--data`` names data sets of :func:`bench_sequence.load` (``treebank``, ``conll2000``,
``conll2000-pos``)::

    git archive 4765b06 | tar -x -C /tmp/before
    python benchmarks/bench_sequence_speed.py --roots before=/tmp/before,after=. \\
        --mode train --data treebank,conll2000 --out runs/sequence/speed-train.json

Writes a JSON file (one record per run) and prints a comparison table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "data" / "sequence"


def _split(name):
    """``(train X, train y, test X, test y)`` of a data set (:func:`bench_sequence.load`)."""
    sys.path.insert(0, str(HERE))
    from bench_sequence import load

    return load(name, Path(os.environ.get("SEQUENCE_DATA", SHARED)))


def _tagger(**params):
    from sequence.cli import DEFAULTS
    from sequence.model import SequenceTagger

    settings = dict(feature_set=DEFAULTS["feature_set"], patience=DEFAULTS["patience"],
                    eval_every=DEFAULTS["eval_every"],
                    relative_radius=DEFAULTS["relative_radius"])
    settings.update(params)
    return SequenceTagger(**settings)


def worker_iterations(name, n_iter, out):
    """``n_iter`` iterations on the training part; CPU seconds of each (from the monitor)."""
    import sequence.model as model

    X, y, _, _ = _split(name)
    stamps = []
    monitor_class = model.Monitor

    def monitor(**kw):
        def callback(t, w, rec):
            stamps.append(time.process_time())
            return False
        kw.update(every=1, callback=callback)
        return monitor_class(**kw)

    model.Monitor = monitor
    tagger = _tagger(n_iter=n_iter, eval_every=1)
    tagger.fit(X, y)
    steps = np.diff(stamps)   # iteration 1 on: each one's own CPU seconds
    np.save(out + ".npy", tagger.coef_)
    return {"per_iteration_cpu": float(np.median(steps)), "iteration_cpu": steps.tolist(),
            "fit_cpu": tagger.fit_time_}


def worker_train(name, out):
    """``tag train`` with its defaults (validation split, patience, refit), then ``tag eval``."""
    from sequence.cli import DEFAULTS
    from sequence.data import deterministic_split
    from sequence.evaluate import evaluate

    X, y, Xt, yt = _split(name)
    tr, va = deterministic_split(len(X), DEFAULTS["valid_fraction"])
    tagger = _tagger(n_iter=DEFAULTS["n_iter"], refit=True)
    tagger.fit([X[i] for i in tr], [y[i] for i in tr],
               eval_set=([X[i] for i in va], [y[i] for i in va]))
    scores = evaluate(yt, tagger.predict(Xt), iob=tagger.iob_)
    np.save(out + ".npy", tagger.coef_)
    return {"fit_cpu": tagger.fit_time_, "n_iter": tagger.n_iter_,
            "best_iter": tagger.best_iter_, "validation": tagger.history_["validation"],
            "test": {k: scores[k] for k in ("accuracy", "f1") if k in scores}}


def run_one(root, mode, name, iterations, out):
    """One worker process on the tree ``root``: its record, with the process's CPU and
    wall seconds."""
    env = dict(os.environ, PYTHONPATH=str(Path(root).resolve()), SEQUENCE_DATA=str(SHARED))
    cmd = [sys.executable, __file__, "--worker", mode, name, str(iterations), out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{root} {mode} {name} failed:\n{proc.stderr[-3000:]}")
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    rec.update(process_cpu=(after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
               process_wall=wall, load_before=os.getloadavg()[0])
    return rec


def compare(records):
    """Per data set: the versions' weights against the first version's (largest absolute
    difference relative to the largest weight)."""
    lines = ["| data | version | process CPU s | process wall s | fit CPU s | per-iteration "
             "CPU s | iterations (best) | test | max abs weight difference / max weight |",
             "|---|---|---:|---:|---:|---:|---|---|---:|"]
    for name in dict.fromkeys(r["data"] for r in records):
        runs = [r for r in records if r["data"] == name]
        ref = np.load(runs[0]["weights"] + ".npy")
        for r in runs:
            w = np.load(r["weights"] + ".npy")
            diff = float(np.max(np.abs(w - ref)) / np.max(np.abs(ref))) if w.shape == ref.shape \
                else float("nan")
            r["weight_difference"] = diff
            per = r.get("per_iteration_cpu")
            iters = f"{r['n_iter']} ({r['best_iter']})" if "n_iter" in r else ""
            test = " ".join(f"{k} {v:.3f}" for k, v in r.get("test", {}).items())
            lines.append(f"| {name} | {r['version']} | {r['process_cpu']:.1f} | "
                         f"{r['process_wall']:.1f} | {r['fit_cpu']:.1f} | "
                         f"{'' if per is None else f'{per:.3f}'} | {iters} | {test} | {diff:.2e} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--roots", required=True, help="NAME=DIR,NAME=DIR: the versions")
    ap.add_argument("--mode", choices=["iterations", "train"], default="iterations")
    ap.add_argument("--data", default="treebank")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--out", default=None, help="JSON file of the records")
    args = ap.parse_args(argv)
    roots = [tuple(item.split("=", 1)) for item in args.roots.split(",")]
    tmp = tempfile.mkdtemp(prefix="seqspeed-")
    records = []
    for i, name in enumerate(args.data.split(",")):
        order = roots if i % 2 == 0 else roots[::-1]
        for version, root in order:
            out = os.path.join(tmp, f"{name}-{version}")
            rec = run_one(root, args.mode, name, args.iterations, out)
            rec.update(data=name, version=version, root=root, weights=out, mode=args.mode)
            records.append(rec)
            print(json.dumps({k: v for k, v in rec.items() if k != "iteration_cpu"}),
                  flush=True)
    print(compare(records))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        mode, name, iterations, out = sys.argv[2:6]
        result = (worker_iterations(name, int(iterations), out) if mode == "iterations"
                  else worker_train(name, out))
        print(json.dumps(result))
    else:
        main()
