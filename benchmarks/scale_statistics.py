"""Scale experiment: the IBM Model 1/2 statistics of the full 1.13M-pair Hansards bitext
on Dask.

    python benchmarks/scale_statistics.py                    # 2 workers, then 1 worker
    python benchmarks/scale_statistics.py --workers 2 --max-pairs 100000
    python benchmarks/scale_statistics.py --report           # the table of what has run

The statistics are those of ``align train`` (:meth:`AlignmentStatistics.from_files`:
co-occurrence and Dice counts, then 5 + 5 EM iterations of IBM Models 1 and 2 in each
direction, pairs longer than 80 tokens left out except the 484 gold lines).  With a Dask
client they run as :mod:`alignment.stats.distributed` lays them out, on a fresh
``LocalCluster`` of single-threaded worker processes: the driver reads the two files and
sends chunks of lines to the workers, which tokenise, encode, build their local tables and
pair indexes and run the E-steps; the translation tables are sharded by source word over
the workers (no table is broadcast), and the driver only adds vectors over the
vocabularies.  ``--workers 0`` runs in-process as without ``--workers`` (the two
directions on two threads).

Every run is a fresh process; it records the wall time of each phase, the driver's peak
memory and each worker's peak, and saves the statistics, so that runs with different
numbers of workers can be compared table by table (``--report``).  Results are appended to
``runs/scale_statistics/results.jsonl``; a run already there is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

OUT = ROOT / "runs" / "scale_statistics"


def run_one(workers, max_pairs, key):
    from alignment.data.hansards import MAX_LENGTH, load_hansards
    from alignment.stats.statistics import AlignmentStatistics
    from scale_dask import _peak_mb, _vm_hwm_mb

    data = load_hansards(bitext="full")
    cluster = client = None
    if workers:
        import distributed

        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, dashboard_address=None,
                                           memory_limit=0, silence_logs=40)
        client = distributed.Client(cluster)
    try:
        t0 = time.perf_counter()
        stats = AlignmentStatistics.from_files(data.bitext_src, data.bitext_tgt,
                                              max_pairs=max_pairs, verbose=True,
                                              max_len=MAX_LENGTH, protect_first=data.n_gold,
                                              executor=client)
        total = time.perf_counter() - t0
        worker_peaks = sorted(client.run(_vm_hwm_mb).values()) if client else []
    finally:
        if client is not None:
            client.close()
            cluster.close()
    path = OUT / f"stats-{key}.npz"
    stats.save(path)
    return {"key": key, "workers": workers, "max_pairs": max_pairs,
            "pairs": stats.bitext_report["kept"], "read": stats.bitext_report["read"],
            "sec_total": total, "timings": stats.timings_,
            "driver_peak_mb": _peak_mb(), "worker_peak_mb": worker_peaks,
            "stats_file": path.name, "load": os.getloadavg()[0]}


def _done():
    path = OUT / "results.jsonl"
    if not path.exists():
        return {}
    return {r["key"]: r for r in (json.loads(x) for x in path.read_text().splitlines()
                                  if x.strip())}


def max_difference(a, b):
    """The largest relative difference ``|u - v| / max(|u|, |v|)`` between two statistics
    files, over their float arrays (integer arrays must be equal); ``inf`` where the
    arrays' names, shapes or integers differ.  The translation tables are stored in
    float32, whose one unit in the last place is a relative 6e-8."""
    from alignment.stats.statistics import AlignmentStatistics

    xa = AlignmentStatistics.load(OUT / a).to_arrays()
    xb = AlignmentStatistics.load(OUT / b).to_arrays()
    if set(xa) != set(xb):
        return float("inf")
    worst = 0.0
    for name, u in xa.items():
        u, v = np.asarray(u), np.asarray(xb[name])
        if u.shape != v.shape:
            return float("inf")
        if u.dtype.kind == "f":
            u, v = u.astype(np.float64), v.astype(np.float64)
            scale = np.maximum(np.abs(u), np.abs(v))
            nz = scale > 0
            if nz.any():
                worst = max(worst, float((np.abs(u - v)[nz] / scale[nz]).max()))
        elif not np.array_equal(u, v):
            return float("inf")
    return worst


def report():
    rows = sorted(_done().values(), key=lambda r: (r["max_pairs"] or 0, r["workers"]))
    print("| pairs | workers | total (s) | load + encode (s) | co-occurrence (s) "
          "| EM (s) | driver peak MB | worker peak MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        t = r["timings"]
        wp = ", ".join(f"{x:,.0f}" for x in r["worker_peak_mb"]) or "–"
        print(f"| {r['pairs']:,} | {r['workers']} | {r['sec_total']:.0f} "
              f"| {t['load'] + t.get('encode', 0.0):.0f} | {t['cooc']:.0f} | {t['em']:.0f} "
              f"| {r['driver_peak_mb']:,.0f} | {wp} |")
    by = {}
    for r in rows:
        by.setdefault(r["max_pairs"], {})[r["workers"]] = r
    for n, runs in by.items():
        ws = sorted(runs)
        for w in ws[1:]:
            a, b = runs[ws[0]], runs[w]
            print(f"max_pairs={n}: {w} workers vs {ws[0]}: "
                  f"{a['sec_total'] / b['sec_total']:.2f}x in total, "
                  f"{a['timings']['em'] / b['timings']['em']:.2f}x in EM; "
                  f"largest relative difference between the tables "
                  f"{max_difference(a['stats_file'], b['stats_file']):.1e}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="2,1",
                    help="comma-separated numbers of Dask workers (0: in-process)")
    ap.add_argument("--max-pairs", type=int, default=None,
                    help="the first N bitext lines only (default: all 1.13M)")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.report:
        report()
        return 0
    tag = f"n{args.max_pairs or 'all'}"
    if args.one:
        w = int(args.workers)
        rec = run_one(w, args.max_pairs, f"{tag}-w{w}")
        with open(OUT / "results.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)
        return 0
    done = _done()
    for w in [int(x) for x in args.workers.split(",")]:
        key = f"{tag}-w{w}"
        if key in done:
            print(f"{key}: done", flush=True)
            continue
        print(f"{key}: running", flush=True)
        cmd = [sys.executable, __file__, "--one", "--workers", str(w)]
        if args.max_pairs:
            cmd += ["--max-pairs", str(args.max_pairs)]
        subprocess.run(cmd, check=True)
    report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
