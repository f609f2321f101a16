#!/usr/bin/env python
"""Cross-validate the remaining defaults of ``MRFSegmenter`` over the horse folds.

For every fold of the horses (``fold0`` .. ``fold2`` of
``scripts/bench_segmentation_peers.py``: contiguous thirds of the 327 horses in
id order; each fold trains on the other 218 images, of which the default 15 %
-- 33 images -- are held out for validation) the script trains
:class:`~segmentation.model.MRFSegmenter` with its defaults and with
one-at-a-time variations of one default (a small design, not a full grid):

* ``feature_scale`` 0.01 / 0.05 (default 0.02);
* iteration cap and patience (120, 8) (default (60, 4));
* the grid subset ``selection_size`` 96 (default 48);
* ``n_segments`` 700 / 1400 (default 1000; needs new superpixel graphs, so
  these run last).

Each run records the fold's VALIDATION IoU (the held-out training images:
what the defaults are chosen on), the test IoU (reported, never used to
choose), CPU seconds (``time.process_time``), wall seconds, the load average,
and what the model chose on validation.  Results go to ``--out`` (JSON) after
every run, and runs already there are skipped, so an interrupted run loses
little.  ``--deadline`` (UTC ``HH:MM``) stops starting runs that would not end
before it (estimated from the CPU time of the finished runs).

Example::

    nice -n 10 python scripts/cv_segmentation_defaults.py --out runs/segmentation/cv_defaults.json
    python scripts/cv_segmentation_defaults.py --out runs/segmentation/cv_defaults.json --table
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_segmentation_peers import GraphCache, _log, horse_splits, run_model  # noqa: E402
from segmentation.data import default_data_dir  # noqa: E402

#: variant name -> MRFSegmenter parameters that differ from the defaults
VARIANTS = {
    "default": {},
    "iter120-pat8": {"n_iter": 120, "patience": 8},
    "fs0.01": {"feature_scale": 0.01},
    "fs0.05": {"feature_scale": 0.05},
    "subset96": {"selection_size": 96},
    "seg700": {"n_segments": 700},
    "seg1400": {"n_segments": 1400},
}
#: which default each variant varies (for the table)
FACTOR = {"default": "-", "iter120-pat8": "iteration cap, patience", "fs0.01": "feature_scale",
          "fs0.05": "feature_scale", "subset96": "grid subset", "seg700": "superpixels",
          "seg1400": "superpixels"}
#: the most informative first
ORDER = ["default", "iter120-pat8", "fs0.01", "fs0.05", "subset96", "seg700", "seg1400"]
FOLDS = ["fold0", "fold1", "fold2"]


def _deadline(text):
    if text is None:
        return None
    h, m = (int(x) for x in text.split(":"))
    now = dt.datetime.now(dt.timezone.utc)
    d = now.replace(hour=h, minute=m, second=0, microsecond=0)
    if d < now - dt.timedelta(hours=12):
        d += dt.timedelta(days=1)
    return d


def _estimate(results, variant, slowdown):
    """Expected wall seconds of one run of ``variant`` (from finished runs; None: unknown)."""
    own = [r["seconds"] for k, r in results.items() if k.split("/")[0] == variant]
    if own:
        return max(own)
    base = [r["seconds"] for k, r in results.items() if k.split("/")[0] == "default"]
    return max(base) * slowdown.get(variant, 1.0) if base else None


def table(results):
    lines = ["| setting | varies | " + " | ".join(f"{f} valid / test" for f in FOLDS)
             + " | mean valid IoU | mean test IoU | mean CPU s | mean wall s |",
             "|---|---|" + "---|" * len(FOLDS) + "---|---|---|---|"]
    for v in ORDER:
        rows = [results.get(f"{v}/{f}") for f in FOLDS]
        if not any(rows):
            continue
        cells = [f"{100 * r['valid_iou']:.2f} / {100 * r['iou']:.2f}" if r else "–" for r in rows]
        done = [r for r in rows if r]

        def mean(key):
            return sum(r[key] for r in done) / len(done)

        full = len(done) == len(FOLDS)
        m = (lambda key, pct: (f"{100 * mean(key):.2f}" if pct else f"{mean(key):.0f}")
             + ("" if full else f" ({len(done)} folds)"))
        lines.append(f"| {v} | {FACTOR[v]} | " + " | ".join(cells) + f" | {m('valid_iou', True)} | "
                     f"{m('iou', True)} | {m('cpu_seconds', False)} | {m('seconds', False)} |")
    lines.append("")
    lines.append("| setting | " + " | ".join(f"{f} choice" for f in FOLDS) + " |")
    lines.append("|---|" + "---|" * len(FOLDS))
    for v in ORDER:
        rows = [results.get(f"{v}/{f}") for f in FOLDS]
        if any(rows):
            lines.append(f"| {v} | " + " | ".join(r["chosen"] if r else "–" for r in rows) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--variants", nargs="*", default=ORDER, choices=ORDER)
    ap.add_argument("--folds", nargs="*", default=FOLDS, choices=FOLDS)
    ap.add_argument("--by-fold", action="store_true",
                    help="order the runs fold by fold instead of variant by variant")
    ap.add_argument("--deadline", default=None, metavar="HH:MM",
                    help="UTC; start no run that is not expected to end before it")
    ap.add_argument("--cache-dir", default=str(ROOT / ".cache" / "segmentation"))
    ap.add_argument("--out", default=str(ROOT / "runs" / "segmentation" / "cv_defaults.json"))
    ap.add_argument("--table", action="store_true", help="print the table of --out and exit")
    args = ap.parse_args(argv)
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    if args.table:
        print(table(results))
        return results
    out.parent.mkdir(parents=True, exist_ok=True)
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    cache = GraphCache(args.cache_dir)
    splits = horse_splits(data_dir, FOLDS, 3)
    deadline = _deadline(args.deadline)
    slowdown = {"iter120-pat8": 2.0, "subset96": 1.5, "seg700": 2.5, "seg1400": 4.0}
    runs = ([(v, f) for f in args.folds for v in args.variants] if args.by_fold
            else [(v, f) for v in args.variants for f in args.folds])
    for v, f in runs:
        key = f"{v}/{f}"
        if key in results:
            continue
        if deadline is not None:
            est = _estimate(results, v, slowdown)
            left = (deadline - dt.datetime.now(dt.timezone.utc)).total_seconds()
            if est is not None and est > left:
                _log(f"skip {key}: expected {est:.0f}s, {left:.0f}s left before the deadline")
                continue
        train, test = splits[f]
        _log(f"== {key}: {VARIANTS[v]} ({len(train)} train incl. validation, {len(test)} test)")
        load0 = os.getloadavg()
        row = run_model(cache, train, test, True, **VARIANTS[v])
        row.update(variant=v, fold=f, params=VARIANTS[v], load_start=load0, load_end=os.getloadavg(),
                   finished=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
        results[key] = row
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(results, indent=1, default=str))
        tmp.replace(out)
        _log(f"{key}: validation IoU {100 * row['valid_iou']:.2f}%, test IoU {100 * row['iou']:.2f}% "
             f"({row['cpu_seconds']:.0f}s CPU, {row['seconds']:.0f}s wall, load {load0[0]:.1f}; "
             f"{row['chosen']})")
    print(table(results))
    return results


if __name__ == "__main__":
    main()
