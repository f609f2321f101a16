"""Choose the defaults of ``structpred tag train`` on validation splits of the training parts.

For each data set (CoNLL-2000's training file, the training 90 % of the treebank POS
sample), every 10th training sentence validates and the others train
(:func:`sequence.data.deterministic_split`); the test parts are never read.  Each
candidate setting is fitted with the same iteration budget and stopping rule, scored on
the validation sentences (chunk F1 or token accuracy, at its best validated iterate)
and compared with the default by :func:`structpred.selection.prefer_default`: the
default is kept unless a candidate wins in at least 95 % of paired bootstraps of the
validation sentences.  With several data sets (the default: both), one default for all
of them is chosen too (:func:`joint`): the candidate with the best mean validation score
replaces the default only if it wins that bootstrap on every data set.

The candidates are values of one parameter (``--param``): by default ``radius``, the
``gamma`` of ``W = {||w|| <= gamma}``, which plays the part of the regularisation
constant C of a structured SVM (a smaller ball is a stronger regulariser); ``inf``
is no bound, early stopping only.  Several parameters are joined by ``+`` and their
values by ``/`` (``--param scale_power+step_scale --values 0.5/3,0.25/10``): a grid
over two parameters whose effects interact.  Each fitted candidate's validation
statistics are cached in ``--cache`` (one JSON file per data set and setting), so an
interrupted run resumes and a grid can be extended without refitting.

    python benchmarks/select_sequence_defaults.py --param radius \\
        --values inf,100,200,400 --default inf --out runs/sequence/selection.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from sequence.data import deterministic_split
from sequence.evaluate import sentence_stats
from sequence.model import SequenceTagger
from structpred.io import atomic_write
from structpred.selection import Candidate, prefer_default

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sequence import load  # noqa: E402

#: tagger parameters added after records were cached, with the value that reproduces the
#: earlier fits: left out of the cache key at that value, so that the records stay valid
LATER_PARAMS = {"loss_scale": 1.0}

#: parameters that can be searched, and how to read a value of each from the command line
PARAMS = {"radius": float, "relative_radius": float, "min_count": int, "scale_power": float,
          "n_iter": int, "loss_scale": float,
          "step_scale": float, "smoothing": float, "feature_set": str, "scaling": str}


def _key(name, args, params):
    """The cache file of a candidate: the data set, the sentences used and every parameter
    of the tagger, so that equal settings reached through different ``--param`` and
    ``--fixed`` share one fit."""
    params = {k: (repr(v) if isinstance(v, float) else v) for k, v in params.items()
              if not (k in LATER_PARAMS and v == LATER_PARAMS[k])}
    h = hashlib.sha1(json.dumps({"first": args.first, "params": params},
                                sort_keys=True).encode()).hexdigest()[:12]
    return f"{name}-{h}.json"


def _fixed(args):
    out = {}
    for item in filter(None, (args.fixed or "").split(",")):
        k, v = item.split("=")
        out[k] = PARAMS[k](v)
    return out


def parse_value(param, text):
    """A candidate of ``--param`` from the command line: one value, or for joined
    parameters (``a+b``) a tuple of values written ``x/y``."""
    names = param.split("+")
    parts = text.split("/")
    if len(parts) != len(names):
        raise ValueError(f"{text!r}: expected {len(names)} values joined by '/' for {param}")
    values = tuple(PARAMS[n](v) for n, v in zip(names, parts))
    return values[0] if len(values) == 1 else values


def settings(param, value):
    """The tagger parameters a candidate sets."""
    names = param.split("+")
    return dict(zip(names, value if len(names) > 1 else (value,)))


def format_value(value):
    if isinstance(value, (tuple, list)):
        return "/".join(format_value(v) for v in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def candidate(args, value):
    """The (unfitted) tagger of a candidate value: the iteration budget and stopping rule
    of ``args``, the ``--fixed`` parameters and the candidate's settings."""
    kw = dict(n_iter=args.iterations, eval_every=args.eval_every, patience=args.patience)
    kw.update(_fixed(args))              # --fixed n_iter=N overrides --iterations
    kw.update(settings(args.param, value))
    return SequenceTagger(**kw)


def cache_path(name, args, value):
    """Where the validation record of a candidate on data set ``name`` is cached."""
    return Path(args.cache) / _key(name, args, candidate(args, value).get_params())


def select(name, args):
    X, y, _, _ = load(name)          # the test part is not used
    X, y = X[:args.first], y[:args.first]
    tr, va = deterministic_split(len(X))
    Xt, yt = [X[i] for i in tr], [y[i] for i in tr]
    Xv, yv = [X[i] for i in va], [y[i] for i in va]
    values = [parse_value(args.param, v) for v in args.values.split(",")]
    default = parse_value(args.param, args.default)
    if default not in values:
        values.insert(0, default)
    ranked, stats = [], {}
    for value in values:
        model = candidate(args, value)
        path = cache_path(name, args, value)
        if path.exists():
            with open(path) as fh:
                rec = json.load(fh)
            print(f"(cached {path})", flush=True)
        else:
            w0 = time.perf_counter()
            model.fit(Xt, yt, eval_set=(Xv, yv))
            wall = time.perf_counter() - w0
            st = sentence_stats(yv, model.predict(Xv), model.iob_)
            rec = {"value": list(value) if isinstance(value, tuple) else value,
                   "score": float(_score(st.sum(0))),
                   "best_iter": model.best_iter_, "n_iter": model.n_iter_,
                   "cpu_seconds": model.fit_time_, "wall_seconds": wall,
                   "history": model.history_.get("validation", []), "stats": st.tolist()}
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(str(path)) as fh:
                json.dump(rec, fh)
        print(json.dumps({k: v for k, v in rec.items() if k not in ("stats", "history")}),
              flush=True)
        stats[value] = np.asarray(rec["stats"])
        ranked.append(Candidate(value, value, rec["score"], rec["best_iter"],
                                rec["cpu_seconds"]))
        ranked[-1].record = rec
    ranked.sort(key=lambda c: -c.score)          # stable: ties keep the order of values
    kept, p = prefer_default(ranked, default, lambda v: stats[v], score=_score)
    base = next(c for c in ranked if c.value == default)
    for c in ranked:         # each candidate against the default alone (for the joint choice)
        c.p = prefer_default([c, base], default, lambda v: stats[v], score=_score)[1]
    return {"data": name, "param": args.param, "sentences": len(X),
            "training_sentences": len(tr), "validation_sentences": len(va),
            "candidates": [{"value": c.value, "score": c.score, "best_iter": c.best_iter,
                            "n_iter": c.record["n_iter"], "cpu_seconds": c.seconds,
                            "wall_seconds": c.record["wall_seconds"],
                            "p_not_better": c.p} for c in ranked],
            "default": default, "kept": kept.value, "p_not_better": p}


def joint(results, alpha=0.05):
    """One default for all data sets: the candidate with the best mean validation score
    over the data sets, kept only if it wins the paired bootstrap against the default
    (in at least ``1 - alpha`` of the resamples) on *every* data set; else the default.

    ``results``: :func:`select`'s results for the same candidates on each data set.
    """
    per_data = [{_hashable(c["value"]): c for c in r["candidates"]} for r in results]
    values = [v for v in per_data[0] if all(v in d for d in per_data)]
    means = {v: float(np.mean([d[v]["score"] for d in per_data])) for v in values}
    best = max(values, key=lambda v: means[v])            # ties: the first in the grid
    default = _hashable(results[0]["default"])
    p = None if best == default else {r["data"]: d[best]["p_not_better"]
                                      for r, d in zip(results, per_data)}
    wins = p is not None and all(x < alpha for x in p.values())
    return {"mean_scores": [{"value": v, "mean_score": means[v]} for v in values],
            "best": best, "default": default, "p_not_better": p,
            "kept": best if wins else default}


def _hashable(value):
    return tuple(value) if isinstance(value, list) else value


def _score(summed):
    summed = np.asarray(summed, dtype=np.float64)
    if summed.shape[-1] == 3:
        c, p, g = summed[..., 0], summed[..., 1], summed[..., 2]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c > 0, 200.0 * c / (p + g), 0.0)
    return 100.0 * summed[..., 0] / np.maximum(summed[..., 1], 1)


def table(results):
    lines = ["| data (validation sentences) | " + results[0]["param"] + " | validation score | "
             "best iteration (of) | CPU s | wall s (shared machine) | kept |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for res in results:
        what = "chunk F1" if res["data"] == "conll2000" else "accuracy"
        for c in res["candidates"]:
            mark = "**kept**" if c["value"] == res["kept"] else ""
            if c["value"] == res["default"]:
                mark += " (default)"
            lines.append(f"| {res['data']} ({res['validation_sentences']}) | "
                         f"{format_value(c['value'])} | "
                         f"{c['score']:.2f} ({what}) | {c['best_iter']} ({c['n_iter']}) | "
                         f"{c['cpu_seconds']:.0f} | {c['wall_seconds']:.0f} | {mark} |")
        p = res["p_not_better"]
        lines.append(f"| | | | | | | share of bootstraps where the best is not better than the "
                     f"default: {'–' if p is None else f'{p:.3f}'} |")
    return "\n".join(lines) + "\n"


def joint_table(choice, results):
    """The joint choice: mean validation score over the data sets of every candidate, and
    the share of bootstraps in which it is not better than the default on each."""
    names = [r["data"] for r in results]
    per_data = [{_hashable(c["value"]): c for c in r["candidates"]} for r in results]
    lines = ["| " + results[0]["param"] + " | " + " | ".join(names) +
             " | mean | not better than the default in (bootstraps) | kept |",
             "|---:|" + "---:|" * (len(names) + 1) + "---|---|"]
    for m in sorted(choice["mean_scores"], key=lambda m: -m["mean_score"]):
        v = _hashable(m["value"])
        ps = [d[v]["p_not_better"] for d in per_data]
        shares = ("–" if v == _hashable(choice["default"]) else
                  ", ".join(f"{n} {p:.3f}" for n, p in zip(names, ps)))
        mark = "**kept**" if v == _hashable(choice["kept"]) else ""
        if v == _hashable(choice["default"]):
            mark += " (default)"
        lines.append(f"| {format_value(v)} | " +
                     " | ".join(f"{d[v]['score']:.2f}" for d in per_data) +
                     f" | {m['mean_score']:.2f} | {shares} | {mark} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="conll2000,treebank")
    p.add_argument("--param", default="radius",
                   help="the parameter searched, or several joined by '+' (one of "
                        f"{', '.join(sorted(PARAMS))})")
    p.add_argument("--values", default="inf,100,200,400")
    p.add_argument("--default", default="inf", help="the current default (kept unless beaten)")
    p.add_argument("--fixed", default="", help="other parameters, e.g. 'step_scale=3'")
    p.add_argument("--first", type=int, default=None,
                   help="training sentences used (the first N of the training part; "
                        "default all)")
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--patience", type=int, default=4)
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--cache", default="runs/sequence/selection-cache")
    p.add_argument("--out", default="runs/sequence/selection.json")
    args = p.parse_args(argv)
    unknown = [n for n in args.param.split("+") if n not in PARAMS]
    if unknown:
        p.error(f"--param: unknown parameter {unknown[0]!r} (one of {', '.join(sorted(PARAMS))})")
    out = []
    for name in args.data.split(","):
        res = select(name, args)
        print(json.dumps(res), flush=True)
        out.append(res)
    record = {"results": out, "args": vars(args)}
    text = table(out)
    if len(out) > 1:
        record["joint"] = joint(out)
        text += ("\nOne default for all data sets (the best mean score, kept only if it wins "
                 "on each):\n\n" + joint_table(record["joint"], out))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as fh:
        json.dump(record, fh, indent=1)
    with atomic_write(str(Path(args.out).with_suffix(".md"))) as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
