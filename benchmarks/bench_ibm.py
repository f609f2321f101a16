#!/usr/bin/env python
"""Time the unsupervised alignment statistics on the Hansards and sanity-check them.

Trains :class:`alignment.stats.statistics.AlignmentStatistics` (Dice, IBM Model 1 then
Model 2 in both directions) on the first ``--pairs`` lines of
``bitext.36-2.{en,fr}.gz``, prints the wall time of every stage and the total, the
size of the ``np.savez_compressed`` file, and the AER of the Model 2 Viterbi
alignments (each direction, their intersection and union) on the 447 NAACL 2003
test sentences (bitext lines 38-484; gold ``test.naacl.gz``).

Example::

    python benchmarks/bench_ibm.py --pairs 100000 --iterations 5
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alignment.evaluate.aer import score_alignments  # noqa: E402
from alignment.data.formats import read_naacl, read_parallel  # noqa: E402
from alignment.stats.statistics import AlignmentStatistics  # noqa: E402


def links(mat):
    return frozenset(zip(*(x.tolist() for x in mat.nonzero())))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100000, help="bitext lines to train on")
    ap.add_argument("--iterations", type=int, default=5,
                    help="EM iterations of Model 1 and of Model 2 (each direction)")
    ap.add_argument("--data-dir", default=str(ROOT / "data" / "hansards"))
    ap.add_argument("--max-len", type=int, default=80,
                    help="leave longer training pairs out (gold lines always kept)")
    ap.add_argument("--jobs", type=int, default=2, help="1: train the directions in turn")
    ap.add_argument("--save", default=None,
                    help="keep the saved statistics here (default: a temporary file)")
    ap.add_argument("--quiet", action="store_true", help="no per-iteration log")
    args = ap.parse_args(argv)

    data = Path(args.data_dir)
    src, tgt = data / "bitext.36-2.en.gz", data / "bitext.36-2.fr.gz"
    t_start = time.perf_counter()
    stats = AlignmentStatistics.from_files(src, tgt, max_pairs=args.pairs,
                                          verbose=not args.quiet, max_len=args.max_len,
                                          n_iter_model1=args.iterations,
                                          n_iter_model2=args.iterations, n_jobs=args.jobs)
    t_fit = time.perf_counter() - t_start

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.save) if args.save else Path(tmp) / "stats.npz"
        t0 = time.perf_counter()
        stats.save(path)
        t_save = time.perf_counter() - t0
        size = os.path.getsize(path)
        t0 = time.perf_counter()
        AlignmentStatistics.load(path)
        t_load_npz = time.perf_counter() - t0

    test = read_parallel(data / "test.en.gz", data / "test.fr.gz")  # = bitext lines 38-484
    gold = read_naacl(data / "test.naacl.gz", test)
    t0 = time.perf_counter()
    preds = {"fwd": [], "bwd": [], "intersection": [], "union": []}
    for e, f in test:
        st = stats.pair_statistics(e, f)
        vf, vb = links(st["vit_fwd"]), links(st["vit_bwd"])
        preds["fwd"].append(vf)
        preds["bwd"].append(vb)
        preds["intersection"].append(vf & vb)
        preds["union"].append(vf | vb)
    t_eval = time.perf_counter() - t0
    total = time.perf_counter() - t_start

    tm = stats.timings_
    print(f"\n== IBM statistics benchmark: first {args.pairs} bitext lines, "
          f"{args.iterations}+{args.iterations} EM iterations per direction ==")
    print(f"training pairs: {stats.n_pairs}   vocabularies: {len(stats.src_vocab)} en / "
          f"{len(stats.tgt_vocab)} fr   cores: {os.cpu_count()}   jobs: {args.jobs}")
    rows = [("read bitext", tm.get("load", 0.0)), ("vocabularies + encoding", tm["encode"]),
            ("co-occurrence counts", tm["cooc"]), ("token-pair index", tm["pair_index"]),
            ("  IBM1 fwd", tm["ibm1_fwd"]), ("  IBM2 fwd", tm["ibm2_fwd"]),
            ("  IBM1 bwd", tm["ibm1_bwd"]), ("  IBM2 bwd", tm["ibm2_bwd"]),
            (f"EM, both directions (wall, jobs={args.jobs})", tm["em"]),
            ("prune + pack tables", tm["compact"]), ("fit total", t_fit),
            ("save (savez_compressed)", t_save), ("load", t_load_npz),
            (f"pair_statistics x {len(test)}", t_eval), ("TOTAL", total)]
    for name, sec in rows:
        print(f"  {name:<40s} {sec:8.1f} s")
    print(f"saved size: {size / 1e6:.1f} MB ({len(stats.t_cols)} translation pairs, "
          f"{len(stats.dice_cols)} Dice counts)")
    for k in ("ibm1_fwd", "ibm2_fwd", "ibm1_bwd", "ibm2_bwd"):
        ll = stats.log_likelihood_[k]
        print(f"  log-likelihood {k}: " + " ".join(f"{x:.4e}" for x in ll))
    print(f"IBM2 Viterbi on the {len(test)} test sentences:   precision  recall    AER")
    for name, pred in preds.items():
        sc = score_alignments(pred, gold)
        print(f"  {name:<14s}                            {100 * sc.precision:6.1f}  "
              f"{100 * sc.recall:6.1f}  {100 * sc.aer:6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
