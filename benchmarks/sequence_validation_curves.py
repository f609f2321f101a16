"""Validation curves of the Bregman dual extragradient under settings of the tagger.

Why the tagger trails CRFsuite: every ``--every`` iterations this script scores, on the
validation sentences (every 10th of the first ``--first`` training sentences of
CoNLL-2000 or the treebank; the test parts are never read), the averaged iterate
``u_bar_w`` (what the tagger returns), the last ``u_w`` and ``v_w``, and records the
norm of ``u_bar_w`` and the training hinge loss (eq. 2.21).  A hinge loss falling to
zero while the validation score stalls is overfitting, not under-training.

Settings: the step (``--step``, ``eta = step / L``), the radius of ``W`` (``--radius``),
the exponent of the count scaling (``--power``, feature values ``count ** -power``) and
the minimum count of a feature string (``--min-count``).  One JSON line per evaluation
goes to ``--out`` (default ``runs/sequence/curves/<settings>.jsonl``); the design
matrices are cached next to it.

    python benchmarks/sequence_validation_curves.py --first 3000 --iters 40 --min-count 2
    python benchmarks/sequence_validation_curves.py --summarize runs/sequence/curves/*.jsonl
"""

from __future__ import annotations

import argparse
import functools
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

from sequence.data import deterministic_split
from sequence.evaluate import is_iob, score_from_stats, sentence_stats
from sequence.features import FeatureIndex, token_features
from structpred import ChainExample, L2Ball, operator_norm
from structpred.learners._dual_extragradient import _reduce_sums, example_step

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sequence import load  # noqa: E402

CACHE = Path("runs/sequence/curves")


def design(name, first, min_count):
    """Training and validation matrices (unscaled, 0/1), labels and classes; cached."""
    path = CACHE / f"design-{name}-{first}-mc{min_count}.pkl"
    if path.exists():
        with open(path, "rb") as fh:
            return pickle.load(fh)
    X, y, _, _ = load(name)
    X, y = X[:first], y[:first]
    tr, va = deterministic_split(len(X))
    Xtr, ytr = [X[i] for i in tr], [y[i] for i in tr]
    Xva, yva = [X[i] for i in va], [y[i] for i in va]
    classes = sorted({t for s in ytr for t in s})
    index = {c: i for i, c in enumerate(classes)}
    feats = token_features(Xtr, "full")
    fi = FeatureIndex.from_features(feats, min_count)
    x, lengths = fi.transform(feats)
    xv, lv = fi.transform(token_features(Xva, "full"))
    d = {"x": x, "lengths": lengths, "labels": np.array([index[t] for s in ytr for t in s]),
         "xv": xv, "lv": lv, "yva": yva, "classes": classes, "iob": is_iob(classes),
         "counts": 1.0 / fi.scale ** 2}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        pickle.dump(d, fh)
    return d


def summarize(paths):
    """A Markdown table of curves: the best validation score of ``u_bar_w`` and where, and
    the last evaluation's score, hinge loss and norm."""
    lines = ["| curve | iterations | best validation score of u_bar_w (at) | last: score, "
             "training hinge loss, norm of u_bar_w |", "|---|---:|---:|---|"]
    for path in paths:
        with open(path) as fh:
            recs = [json.loads(line) for line in fh if line.strip()]
        if not recs:
            continue
        best = max(recs, key=lambda r: r["avg"])
        last = recs[-1]
        lines.append(f"| {Path(path).stem} | {last['t']} | {best['avg']:.2f} ({best['t']}) | "
                     f"{last['avg']:.2f}, {last['hinge_avg']:.0f}, {last['norm_avg']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--summarize":
        print(summarize(argv[1:]), end="")
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="conll2000")
    p.add_argument("--first", type=int, default=3000)
    p.add_argument("--step", type=float, default=3.0)
    p.add_argument("--radius", type=float, default=np.inf)
    p.add_argument("--power", type=float, default=0.5)
    p.add_argument("--min-count", type=int, default=1)
    p.add_argument("--iters", type=int, default=40)
    p.add_argument("--every", type=int, default=5)
    p.add_argument("--batch", type=int, default=500)
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    D = design(a.data, a.first, a.min_count)
    K = len(D["classes"])
    scale = D["counts"] ** -a.power
    x, xv = D["x"].copy(), D["xv"].copy()
    x.data *= scale[x.indices]
    xv.data *= scale[xv.indices]
    label_scale = (K / x.shape[0]) ** a.power
    lengths, labels = D["lengths"], D["labels"]
    starts = np.r_[0, np.cumsum(lengths)]
    exs = []
    for i in range(0, len(lengths), a.batch):
        j = min(i + a.batch, len(lengths))
        exs.append(ChainExample(x[starts[i]:starts[j]], lengths[i:j],
                                y=labels[starts[i]:starts[j]], n_labels=K,
                                label_scale=label_scale))
    vex = ChainExample(xv, D["lv"], n_labels=K, label_scale=label_scale)
    vst = np.r_[0, np.cumsum(D["lv"])]

    def score(w):
        pred = vex.predict_labels(w)
        tags = [[D["classes"][k] for k in pred[vst[i]:vst[i + 1]]] for i in range(len(vst) - 1)]
        return score_from_stats(sentence_stats(D["yva"], tags, D["iob"]))

    t0 = time.process_time()
    eta = a.step / operator_norm(exs, random_state=0)
    W = L2Ball(radius=a.radius)
    dim = exs[0].n_features
    hat_w, s_w, ubar = W.project(np.zeros(dim)), np.zeros(dim), np.zeros(dim)
    cpu = time.process_time() - t0
    out = Path(a.out or CACHE / (f"{a.data}-{a.first}-step{a.step:g}-r{a.radius:g}-"
                                 f"p{a.power:g}-mc{a.min_count}.jsonl"))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as fh:
        for t in range(a.iters):
            t1 = time.process_time()
            v_w = W.prox(hat_w, s_w, eta)
            step = functools.partial(example_step, ubar_w=ubar, v_w=v_w, t=t, eta=eta)
            r_w, q_w = _reduce_sums(map(step, exs), dim)
            s_w = s_w - q_w
            u_w = W.prox(v_w, -r_w, eta)
            ubar = (t * ubar + u_w) / (t + 1)
            cpu += time.process_time() - t1
            if (t + 1) % a.every == 0 or t == 0:
                rec = {"t": t + 1, "learner_cpu_s": cpu, "avg": score(ubar),
                       "last": score(u_w), "v": score(v_w),
                       "norm_avg": float(np.linalg.norm(ubar)),
                       "hinge_avg": float(sum(ex.hinge_loss(ubar) for ex in exs))}
                print(json.dumps(rec), flush=True)
                fh.write(json.dumps(rec) + "\n")
                fh.flush()


if __name__ == "__main__":
    main()
