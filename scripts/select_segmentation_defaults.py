#!/usr/bin/env python
"""Choose ``MRFSegmenter``'s default ``edge_factors`` by cross-validation over two sources.

The edge factors only enter after training: the guard compares unary-only, the MRF and the
MRF with its edge weights times each factor on validation, and keeps the best if it beats
unary-only in 95 % of paired bootstraps.  So one training run per fold, made with a wide set
of factors (``scripts/bench_segmentation_peers.py --param 'edge_factors=[0.5,1.5,2,3]'``,
which stores every candidate's per-item (intersection, union) on the validation items and on
the test items), lets every narrower set be replayed exactly, without training again.

Selection data (never the standard split's test images, horse279-327):

* horses: the folds ``inner0..2`` of the bench script, contiguous thirds of the standard
  split's training images horse001-278; each trains on two thirds (15 % of them held out
  for the guard's validation) and is scored on the third, so every training image is a test
  item exactly once;
* Oakland: the 3-fold cross-validation that the default itself runs over the 7 training
  scans 01-07 (its per-scan out-of-fold statistics), nested: for each fold the factor is
  chosen by the guard on the other folds' scans and scored on this fold's scans.

Each rule (a set of factors) gives per-item statistics of the kept candidate on the test
items of both sources.  The score is the mean of the two sources' pooled IoUs; the wider
rule replaces the default only if it is better in at least 95 % of paired bootstraps over
all items (:func:`structpred.selection.paired_bootstrap`).

Example::

    python scripts/select_segmentation_defaults.py --horses runs/s30b/inner0.json \\
        runs/s30b/inner1.json runs/s30b/inner2.json --oakland runs/s30b/oakland.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from segmentation.model import MRFSegmenter  # noqa: E402
from structpred.selection import paired_bootstrap  # noqa: E402

#: the rules compared: the current default first (kept unless another wins)
RULES = {"(0.5,)": (0.5,), "(0.5, 1.5, 2, 3)": (0.5, 1.5, 2.0, 3.0)}


def _cands(stats, factors):
    """The guard's candidates of a rule, in its tie-breaking order."""
    keys = ["unary", "mrf"] + [f"mrf x {s:g}" for s in
                               sorted(factors, key=lambda s: (abs(np.log(s)), s))]
    return {k: np.asarray(stats[k], dtype=np.float64) for k in keys if k in stats}


def replay(valid_stats, factors):
    """The candidate the guard keeps with ``edge_factors=factors`` (and its evidence)."""
    m = MRFSegmenter(edge_factors=tuple(factors))
    return m._guard(_cands(valid_stats, factors), {}, lambda msg: None)


def horse_items(run, factors):
    """Per-test-image (I, U) of the candidate the rule keeps in one horse run."""
    kept, guard = replay(run["valid_stats"], factors)
    return np.asarray(run["test_stats"][kept], dtype=np.float64), kept, guard


def oakland_items(run, factors, n_scans=7, k=3):
    """Nested over the default's own folds: per-scan (I, U) of the candidate kept on the
    other folds' scans (fold f holds scans i with i mod k == f, concatenated fold by fold)."""
    order = np.concatenate([np.arange(n_scans)[np.arange(n_scans) % k == f] for f in range(k)])
    fold = order % k
    stats = {key: np.asarray(v, dtype=np.float64) for key, v in run["valid_stats"].items()}
    out, kept_by_fold = np.zeros((n_scans, 2)), []
    for f in range(k):
        rest = {key: v[fold != f] for key, v in stats.items()}
        kept, _ = replay(rest, factors)
        out[fold == f] = stats[kept][fold == f]
        kept_by_fold.append(kept)
    return out, kept_by_fold


def _two_source_score(s):
    """Mean of the pooled IoUs of the two sources; ``s[..., :2]`` horses, ``s[..., 2:]`` Oakland."""
    return 0.5 * (s[..., 0] / np.maximum(s[..., 1], 1.0) + s[..., 2] / np.maximum(s[..., 3], 1.0))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--horses", nargs="+", required=True, help="bench JSONs of inner0..2")
    ap.add_argument("--oakland", required=True, help="bench JSON with the Oakland run")
    ap.add_argument("--alpha", type=float, default=0.05)
    args = ap.parse_args(argv)
    horse_runs = []
    for p in args.horses:
        for name, row in json.loads(Path(p).read_text())["splits"].items():
            horse_runs.append((name, row["mrf"]))
    oak = json.loads(Path(args.oakland).read_text())["oakland"]["mrf"]
    table, stats = [], {}
    for rule, factors in RULES.items():
        h = []
        for name, run in horse_runs:
            items, kept, _ = horse_items(run, factors)
            h.append(items)
            table.append(f"| {rule} | horses {name} | {kept} | {100 * items[:, 0].sum() / items[:, 1].sum():.2f} |")
        h = np.concatenate(h)
        o, kept_o = oakland_items(oak, factors)
        table.append(f"| {rule} | Oakland (nested over 3 folds of scans 01-07) | {', '.join(kept_o)} | "
                     f"{100 * o[:, 0].sum() / o[:, 1].sum():.2f} |")
        stats[rule] = np.concatenate([np.c_[h, np.zeros_like(h)], np.c_[np.zeros_like(o), o]])
        table.append(f"| {rule} | horses, all {len(h)} held-out training images | | "
                     f"{100 * h[:, 0].sum() / h[:, 1].sum():.2f} |")
    print("| edge_factors | selection data | kept | IoU (%) |")
    print("|---|---|---|---|")
    print("\n".join(table))
    rules = list(RULES)
    base = stats[rules[0]]
    verdict = rules[0]
    for r in rules[1:]:
        bs = paired_bootstrap(base, stats[r], _two_source_score, n_boot=2000, random_state=0)
        print(f"\n{r} against {rules[0]}: mean of the two sources' IoU {100 * bs.difference:+.2f} "
              f"points (95% interval {100 * bs.interval[0]:+.2f} to {100 * bs.interval[1]:+.2f}); "
              f"better in {100 * (1 - bs.p_not_better):.1f}% of paired bootstraps")
        if bs.p_not_better < args.alpha and verdict == rules[0]:
            verdict = r
    print(f"default edge_factors: {verdict}")
    return verdict


if __name__ == "__main__":
    main()
