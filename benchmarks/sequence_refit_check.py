"""Does training again on the validation sentences help ``tag train``? (validation only)

``tag train`` holds every 10th sentence of ``--data`` out to choose the iteration ``t*``
(the best validated iterate).  With ``refit`` it then trains on *all* the sentences for
``t*`` iterations.  Whether that helps is decided here without the test parts: on each data
set the training part is cut as :func:`sequence.data.deterministic_split` cuts it, its 10 %
(``V``, the sentences that validate in ``select_sequence_defaults.py``) is set aside, and
``tag train``'s protocol runs on the other 90 % (``T``, which it splits again into
``T'`` and ``V'``):

* **validated run**: ``SequenceTagger().fit(T', V')`` (what ``tag train`` kept before);
* **refit**: the same ``t*`` iterations on all of ``T``.

Both are scored on ``V`` (chunk F1 or accuracy), with a paired bootstrap over its
sentences (:func:`structpred.selection.paired_bootstrap`: the share of 2,000 resamples in
which the refit is not better).  ``tag train``'s settings are used throughout.

    python benchmarks/sequence_refit_check.py --data conll2000,treebank \\
        --out docs/results/sequence_refit_check.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sequence import load  # noqa: E402
from select_sequence_defaults import _score  # noqa: E402

from sequence.cli import DEFAULTS  # noqa: E402
from sequence.data import deterministic_split  # noqa: E402
from sequence.evaluate import score_from_stats, sentence_stats  # noqa: E402
from sequence.model import SequenceTagger  # noqa: E402
from structpred.io import atomic_write  # noqa: E402
from structpred.selection import paired_bootstrap  # noqa: E402


def _pick(seq, idx):
    return [seq[i] for i in idx]


def check(name):
    X, y, _, _ = load(name)                     # the test part is never used
    t_idx, v_idx = deterministic_split(len(X))
    XT, yT, XV, yV = _pick(X, t_idx), _pick(y, t_idx), _pick(X, v_idx), _pick(y, v_idx)
    tt, vv = deterministic_split(len(XT))
    c0 = time.process_time()
    settings = {"eval_every": DEFAULTS["eval_every"], "patience": DEFAULTS["patience"]}
    first = SequenceTagger(**settings).fit(_pick(XT, tt), _pick(yT, tt),
                                          eval_set=(_pick(XT, vv), _pick(yT, vv)))
    c1 = time.process_time()
    # what SequenceTagger(refit=True) trains: the training sentences, then the validating ones
    again = SequenceTagger(n_iter=first.best_iter_ + 1).fit(
        _pick(XT, tt) + _pick(XT, vv), _pick(yT, tt) + _pick(yT, vv))
    c2 = time.process_time()
    st_a = sentence_stats(yV, first.predict(XV), first.iob_)
    st_b = sentence_stats(yV, again.predict(XV), first.iob_)
    bs = paired_bootstrap(st_a, st_b, score=_score)
    return {"data": name, "metric": "chunk F1" if first.iob_ else "accuracy",
            "train_sentences": len(tt), "inner_valid": len(vv), "refit_sentences": len(XT),
            "held_out": len(XV), "best_iter": first.best_iter_, "iterations": first.n_iter_,
            "validated": float(score_from_stats(st_a.sum(0))),
            "refit": float(score_from_stats(st_b.sum(0))),
            "difference": bs.difference, "interval": list(bs.interval),
            "not_better": bs.p_not_better, "cpu_validated": c1 - c0, "cpu_refit": c2 - c1}


def table(rows):
    out = ["| data (held-out sentences) | validated run on 81 % | refit on 90 % for t* iterations "
           "| difference [95 % interval] | refit not better in (bootstraps) | t* (of) | CPU s "
           "(validated + refit) |", "|---|---:|---:|---|---:|---|---|"]
    for r in rows:
        out.append(f"| {r['data']} ({r['held_out']}, {r['metric']}) | {r['validated']:.2f} | "
                   f"{r['refit']:.2f} | {r['difference']:+.2f} [{r['interval'][0]:+.2f}, "
                   f"{r['interval'][1]:+.2f}] | {100 * r['not_better']:.1f} % | "
                   f"{r['best_iter'] + 1} ({r['iterations']}) | "
                   f"{r['cpu_validated']:.0f} + {r['cpu_refit']:.0f} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", default="conll2000,treebank")
    p.add_argument("--out", default="runs/sequence/refit_check.md")
    args = p.parse_args(argv)
    rows = []
    for name in args.data.split(","):
        rows.append(check(name))
        print(json.dumps(rows[-1]), flush=True)
    text = table(rows)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as fh:
        fh.write(text)
    with atomic_write(str(Path(args.out).with_suffix(".json"))) as fh:
        json.dump({"rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
