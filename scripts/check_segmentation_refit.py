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

``--splits`` pools other splits of the bench script (its ``small{S}`` draws, say).
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


def _unary_stats(path, split):
    """Unary-only per-test-image (I, U) of ``split``: its own run (``--methods mrf,unary``),
    else the guard's unary-only candidate of the MRF run (None when neither was stored)."""
    row = json.loads(Path(path).read_text())["splits"][split]
    stats = (row.get("unary") or {}).get("final_stats") or \
        ((row["mrf"].get("test_stats") or {}).get("unary"))
    return None if stats is None else np.asarray(stats, float)


def _unary_iou(path, split):
    """Unary-only test IoU (%) of ``split`` (:func:`_unary_stats`), or None."""
    stats = _unary_stats(path, split)
    return None if stats is None else 100 * _iou_score(stats.sum(0))


def _gain_over_unary(folder, splits, which, n_boot):
    """The MRF default against unary-only, pooled over the splits' test images: a line."""
    mrf, unary = [], []
    for split in splits:
        path = Path(folder) / f"{split}_{which}.json"
        u = _unary_stats(path, split)
        if u is None:
            return f"{which}: no unary-only statistics stored"
        mrf.append(np.asarray(_run(path, split)["final_stats"], float))
        unary.append(u)
    m, u = np.vstack(mrf), np.vstack(unary)
    res = paired_bootstrap(u, m, _iou_score, n_boot=n_boot, random_state=0)
    lo, hi = (100 * v for v in res.interval)
    return (f"{which}: MRF default {100 * _iou_score(m.sum(0)):.2f} against unary-only "
            f"{100 * _iou_score(u.sum(0)):.2f} over {len(m)} images, {100 * res.difference:+.2f} "
            f"[{lo:+.2f}, {hi:+.2f}]; the MRF not better in {100 * res.p_not_better:.1f}%")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="the folder of {split}_base.json and {split}_refit.json")
    ap.add_argument("--candidate", default="refit",
                    help="the other runs: {split}_CANDIDATE.json (default: refit)")
    ap.add_argument("--splits", nargs="+", default=list(SPLITS),
                    help="the splits pooled (default: inner0 inner1 inner2; the bench "
                         "script's small{S} draws too)")
    ap.add_argument("--n-boot", type=int, default=10_000)
    args = ap.parse_args(argv)
    base_all, refit_all = [], []
    name = args.candidate
    print(f"| fold (test images) | kept | validated run IoU (%) | {name} IoU (%) | difference | "
          f"refit iterations | {name} CPU s (whole run) | MRF - unary-only: validated run / "
          f"{name} |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    for split in args.splits:
        b = _run(Path(args.folder) / f"{split}_base.json", split)
        r = _run(Path(args.folder) / f"{split}_{name}.json", split)
        sb, sr = np.asarray(b["final_stats"], float), np.asarray(r["final_stats"], float)
        base_all.append(sb)
        refit_all.append(sr)
        ib, ir = 100 * _iou_score(sb.sum(0)), 100 * _iou_score(sr.sum(0))
        final = [x for x in r["selection"] if x.get("refit")]
        gains = []
        for which, iou in (("base", ib), (name, ir)):
            u = _unary_iou(Path(args.folder) / f"{split}_{which}.json", split)
            gains.append("-" if u is None else f"{iou - u:+.2f}")
        print(f"| {split} ({len(sb)}) | {b['chosen']} | {ib:.2f} | {ir:.2f} | {ir - ib:+.2f} | "
              f"{final[0]['n_iter'] if final else '-'} | {r['cpu_seconds']:.0f} "
              f"(without: {b['cpu_seconds']:.0f}) | {' / '.join(gains)} |")
    sb, sr = np.vstack(base_all), np.vstack(refit_all)
    res = paired_bootstrap(sb, sr, _iou_score, n_boot=args.n_boot, random_state=0)
    lo, hi = (100 * v for v in res.interval)
    print(f"\npooled over {len(sb)} images: validated run {100 * _iou_score(sb.sum(0)):.2f}, "
          f"{name} {100 * _iou_score(sr.sum(0)):.2f}, difference {100 * res.difference:+.2f} "
          f"[{lo:+.2f}, {hi:+.2f}]; {name} not better in {100 * res.p_not_better:.1f}% of "
          f"{args.n_boot:,} paired bootstraps")
    verdict = "adopt" if res.p_not_better < 0.05 else "keep the default"
    print(f"rule ({name} kept when better in >= 95% of the bootstraps): {verdict}")
    for which in ("base", name):
        print(_gain_over_unary(args.folder, args.splits, which, args.n_boot))


if __name__ == "__main__":
    main()
