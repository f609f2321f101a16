#!/usr/bin/env python
"""Does training the kept candidate again on the validation images help? (training images only)

``MRFSegmenter`` holds 15 % of its training images out to choose the class weight, the
step, the iteration and (the guard) the kind of model.  With ``refit=True`` the kept
candidate is then trained again on all the training images for ``1 + t*`` iterations
(eq. 7 of :class:`segmentation.model.MRFSegmenter`).  Whether that helps is decided on the
selection folds ``inner0..2`` (thirds of the standard split's 278 training images, so the
test images horse279-327 are never touched): ``scripts/bench_segmentation_peers.py`` runs
the default with and without the refit on each fold, storing every test image's
(intersection, union) of the model kept (``final_stats``), and this script pools the 278
images of the three folds' test blocks and runs the paired bootstrap of the pooled IoU
(:func:`structpred.selection.paired_bootstrap`, 10,000 resamples, seeded): the share of
resamples in which the refit is not better.  Oakland's 7 training scans are chosen on by
cross-validation, whose final model is already trained on all of them (eq. 6), so the
refit does not apply there.

    for s in inner0 inner1 inner2; do
      python scripts/bench_segmentation_peers.py --splits $s --methods mrf --param n_jobs=1 \\
          --out runs/refit/${s}_base.json
      python scripts/bench_segmentation_peers.py --splits $s --methods mrf --param n_jobs=1 \\
          --param refit=true --out runs/refit/${s}_refit.json
    done
    python scripts/check_segmentation_refit.py runs/refit

``--candidate NAME`` compares ``{split}_NAME.json`` with the base in the same way, for any
other setting run like this (``--candidate patience8`` for runs with ``--param patience=8``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from segmentation.examples import _iou_score  # noqa: E402
from structpred.selection import paired_bootstrap  # noqa: E402

SPLITS = ("inner0", "inner1", "inner2")


def _run(path, split):
    """The ``mrf`` row of ``split`` in a result file of ``bench_segmentation_peers.py``."""
    return json.loads(Path(path).read_text())["splits"][split]["mrf"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="the folder of {split}_base.json and {split}_refit.json")
    ap.add_argument("--candidate", default="refit",
                    help="the other runs: {split}_CANDIDATE.json (default: refit)")
    ap.add_argument("--n-boot", type=int, default=10_000)
    args = ap.parse_args(argv)
    base_all, refit_all = [], []
    name = args.candidate
    print(f"| fold (test images) | kept | validated run IoU (%) | {name} IoU (%) | difference | "
          f"refit iterations | {name} CPU s (whole run) |")
    print("|---|---|---:|---:|---:|---:|---|")
    for split in SPLITS:
        b = _run(Path(args.folder) / f"{split}_base.json", split)
        r = _run(Path(args.folder) / f"{split}_{name}.json", split)
        sb, sr = np.asarray(b["final_stats"], float), np.asarray(r["final_stats"], float)
        base_all.append(sb)
        refit_all.append(sr)
        ib, ir = 100 * _iou_score(sb.sum(0)), 100 * _iou_score(sr.sum(0))
        final = [x for x in r["selection"] if x.get("refit")]
        print(f"| {split} ({len(sb)}) | {b['chosen']} | {ib:.2f} | {ir:.2f} | {ir - ib:+.2f} | "
              f"{final[0]['n_iter'] if final else '-'} | {r['cpu_seconds']:.0f} "
              f"(without: {b['cpu_seconds']:.0f}) |")
    sb, sr = np.vstack(base_all), np.vstack(refit_all)
    res = paired_bootstrap(sb, sr, _iou_score, n_boot=args.n_boot, random_state=0)
    lo, hi = (100 * v for v in res.interval)
    print(f"\npooled over {len(sb)} images: validated run {100 * _iou_score(sb.sum(0)):.2f}, "
          f"{name} {100 * _iou_score(sr.sum(0)):.2f}, difference {100 * res.difference:+.2f} "
          f"[{lo:+.2f}, {hi:+.2f}]; {name} not better in {100 * res.p_not_better:.1f}% of "
          f"{args.n_boot:,} paired bootstraps")
    verdict = "adopt" if res.p_not_better < 0.05 else "keep the default"
    print(f"rule ({name} kept when better in >= 95% of the bootstraps): {verdict}")


if __name__ == "__main__":
    main()
