"""Scale experiment: the memory-efficient dual extragradient on Dask (thesis sec. 2.5).

    python benchmarks/scale_dask.py                          # 10k, 30k, 100k x 1, 2 workers
    python benchmarks/scale_dask.py --sizes 10000 --workers 2 --iterations 30
    python benchmarks/scale_dask.py --report                 # the table of what has run

Model M is trained on N automatically labelled sentences of the bundled Hansards
bitext (the lines after the 484 gold sentences; at most 40 tokens a side), with the
labels of ``align unsupervised`` (our HMM trained by agreement, grow-diag-final-and at
its default threshold) and the bitext-statistics features (the labeller is left out of
the features, as with ``align train --labels hmm --aligners none``).

The examples are :class:`structpred.RemoteExamples`: the driver reads the bitext in
parts of 2,500 pairs and sends each part to a worker, which labels it and builds its
examples there; the featurizer (with the statistics) goes to every worker once.  Each
iteration then moves only |w|-sized vectors.  Every (N, workers) run is a fresh process
on a fresh ``LocalCluster`` of single-threaded workers, so that its peak memory is its
own.  It records:

* seconds per iteration (median over the iterations after the first) and the time to
  build and scatter the examples and estimate the step size;
* the driver's peak and post-scatter resident memory and each worker's peak;
* the bytes sent per iteration (``result.info["transfer"]``);
* the AER on the last 247 Hansards test sentences (no gold sentence is used in
  training), beside the labeller's own AER;
* ``w`` after ``--compare-at`` iterations, to check that 1 and 2 workers give the same
  iterates.

Results are appended to ``runs/scale_dask/results.jsonl`` (a run already there with
the same settings is skipped, so an interrupted experiment resumes).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "runs" / "scale_dask"
PART = 2500          # sentence pairs per part (a part is built on one worker)
MAX_LEN = 40
N_TEST = 247         # the last 247 Hansards test sentences


def pair_parts(src_path, tgt_path, skip, n, part=PART, max_len=MAX_LEN):
    """The first ``n`` usable pairs after line ``skip`` (at most ``max_len`` tokens a side,
    length ratio at most 3), in lists of ``part`` pairs, read lazily (the driver holds
    one part)."""
    from alignment.data.corpus import iter_bitext

    block, seen = [], 0
    for _, s, t in iter_bitext(src_path, tgt_path, skip_first=skip, max_len=max_len,
                               max_ratio=3):
        block.append((s, t))
        seen += 1
        if len(block) == part or seen == n:
            yield block
            block = []
        if seen == n:
            return
    if block:
        yield block
    if seen < n:
        raise ValueError(f"{src_path}: only {seen} usable pairs after line {skip}, "
                         f"asked for {n}")


class _Parts:
    """Picklable ``parts`` factory of :class:`RemoteExamples`."""

    def __init__(self, src, tgt, skip, n):
        self.src, self.tgt, self.skip, self.n = str(src), str(tgt), skip, n

    def __call__(self):
        return pair_parts(self.src, self.tgt, self.skip, self.n)


def build_part(shared, part):
    """Label one part with the unsupervised aligner and build model M's examples."""
    from alignment.data.formats import Alignment

    model, labeller = shared
    out = []
    for s, t in part:
        links = frozenset(labeller.align_pair(s, t)[0])
        out.append(model._example(s, t, Alignment(links, links)))
    return out


def _setup(cache_dir):
    from alignment.evaluate.protocol import hansards_statistics
    from alignment.data.hansards import load_hansards
    from alignment.data.formats import read_parallel
    from alignment.model import MatchingAligner
    from alignment.aligners.unsupervised import UnsupervisedAligner

    data = load_hansards()
    stats = hansards_statistics(data, None, cache_dir=cache_dir, verbose=False)
    bt = [(s, t) for s, t in read_parallel(data.bitext_src, data.bitext_tgt) if s and t]
    labeller = UnsupervisedAligner().fit([s for s, _ in bt], [t for _, t in bt],
                                         cache_dir=Path(cache_dir) / "unsupervised")
    del bt
    model = MatchingAligner(aligners=())
    model.feature_names_ = model._featurizers(stats, None, None, None)
    model.stats_ = stats
    return data, stats, labeller, model


def _rss_mb():
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _vm_hwm_mb():
    """This process's peak resident memory (``VmHWM``), in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def run_one(n, workers, iterations, compare_at, cache_dir, key):
    """One (N, workers) run in this process; returns the record."""
    import distributed

    from alignment.evaluate.aer import score_alignments
    from alignment.data.formats import Alignment
    from structpred import L2Ball, Monitor, RemoteExamples, dual_extragradient_streaming

    t0 = time.perf_counter()
    data, stats, labeller, model = _setup(cache_dir)
    t_setup = time.perf_counter() - t0
    rss_setup = _rss_mb()
    examples = RemoteExamples(build_part, _Parts(data.bitext_src, data.bitext_tgt,
                                                 data.n_gold, n),
                              shared=(model, labeller), length=n)
    names = model.feature_names_
    W = L2Ball(radius=model.radius, nonneg=np.arange(model.n_edge_features_, len(names)))
    stamps, kept = [], {}

    def callback(t, w, rec):
        stamps.append(time.perf_counter())
        if t + 1 == compare_at:
            kept["w"] = np.array(w, copy=True)
        if len(stamps) == 1:
            kept["rss_after_scatter"] = _rss_mb()
        return False

    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       memory_limit=0, silence_logs=40)
    client = distributed.Client(cluster)
    try:
        t1 = time.perf_counter()
        res = dual_extragradient_streaming(examples, W, n_iter=iterations,
                                           monitor=Monitor(every=1, callback=callback),
                                           executor=client)
        t_total = time.perf_counter() - t1

        worker_peaks = sorted(client.run(_vm_hwm_mb).values())
    finally:
        client.close()
        cluster.close()
    per_iter = np.diff(stamps)
    model.coef_ = W.project(res.w)
    model.result_ = res
    model.external_ = None
    model.aligner_links_ = None
    test_pairs, test_gold = data.test_pairs[-N_TEST:], data.test_gold[-N_TEST:]
    aer = score_alignments(model.predict(test_pairs), test_gold).aer
    lab = [frozenset(labeller.align_pair(s, t)[0]) for s, t in test_pairs]
    lab_aer = score_alignments([Alignment(x, x) for x in lab], test_gold).aer
    transfer = res.info["transfer"]
    calls = transfer["calls"]
    w_path = OUT / f"w-{key}.npy"
    if "w" in kept:
        np.save(w_path, kept["w"])
    return {
        "key": key, "n": n, "workers": workers, "iterations": res.n_iter,
        "n_features": len(names),
        "sec_per_iter": float(np.median(per_iter)) if per_iter.size else None,
        "sec_first_iter_incl_build": stamps[0] - t1,
        "sec_total": t_total, "sec_setup": t_setup,
        "driver_rss_setup_mb": rss_setup,
        "driver_rss_after_scatter_mb": kept.get("rss_after_scatter"),
        "driver_peak_mb": _peak_mb(), "worker_peak_mb": worker_peaks,
        "bytes_out_per_call": transfer["bytes_out"] / calls,
        "bytes_between_workers_per_call": transfer["bytes_between_workers"] / calls,
        "bytes_back_per_call": transfer["bytes_back"] / calls,
        "calls": calls, "aer": 100 * aer, "labeller_aer": 100 * lab_aer,
        "w_file": w_path.name if "w" in kept else None,
        "load": os.getloadavg()[0],
    }


def _done():
    path = OUT / "results.jsonl"
    if not path.exists():
        return {}
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return {r["key"]: r for r in rows}


def report():
    rows = sorted(_done().values(), key=lambda r: (r["n"], r["workers"]))
    print("| N | workers | iterations | s/iter | build+scatter+step size (s) | driver peak MB "
          "| driver RSS after scatter MB | worker peak MB | bytes out/iter | bytes back/iter "
          "| AER | labeller AER |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in rows:
        wp = ", ".join(f"{x:.0f}" for x in r["worker_peak_mb"])
        print(f"| {r['n']} | {r['workers']} | {r['iterations']} | {r['sec_per_iter']:.2f} "
              f"| {r['sec_first_iter_incl_build']:.0f} | {r['driver_peak_mb']:.0f} "
              f"| {r['driver_rss_after_scatter_mb']:.0f} | {wp} "
              f"| {r['bytes_out_per_call']:.0f} "
              f"| {r['bytes_back_per_call'] + r['bytes_between_workers_per_call']:.0f} "
              f"| {r['aer']:.2f} | {r['labeller_aer']:.2f} |")
    proj = projection(rows)
    if proj:
        print(f"\nprojection: {1e3 * proj['c_per_example']:.3f} ms per example, "
              f"{proj['fixed']:.2f} s fixed per iteration, {proj['vector_bytes']:.0f} bytes per "
              "partial sum")
        print("| N | machines (2 workers each) | compute s | communication s | scheduling s "
              "| fixed s | s per iteration |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for p in proj["rows"]:
            print(f"| {p['n']:,} | {p['machines']} | {p['compute']:.3f} | {p['comm']:.4f} "
                  f"| {p['sched']:.3f} | {p['fixed']:.2f} | {p['total']:.2f} |")
    by = {(r["n"], r["workers"]): r for r in rows}
    for n in sorted({r["n"] for r in rows}):
        a, b = by.get((n, 1)), by.get((n, 2))
        if a and b:
            line = f"N={n}: 2 workers {a['sec_per_iter'] / b['sec_per_iter']:.2f}x faster per iteration"
            if a.get("w_file") and b.get("w_file"):
                wa, wb = np.load(OUT / a["w_file"]), np.load(OUT / b["w_file"])
                line += f"; max |w1 - w2| after the same iterations {np.abs(wa - wb).max():.1e}"
            print(line)


#: assumptions of the projection to more machines (stated in the results page)
TASK_OVERHEAD_S = 1e-3      # scheduler + worker cost of one Dask task
LATENCY_S = 0.5e-3          # one network hop between machines
BANDWIDTH_BPS = 125e6       # 1 Gbit/s
WORKERS_PER_MACHINE = 2     # machines like this one: 2 cores, one worker per core


def projection(rows, machines=(8, 32, 128), sizes=(100_000, 1_000_000)):
    """Seconds per iteration on more machines, from the measured compute per example and
    bytes per iteration (see the module's doc and the results page for the model)."""
    one = sorted((r for r in rows if r["workers"] == 1 and r.get("sec_per_iter")),
                 key=lambda r: r["n"])
    if len(one) < 2:
        return None
    a, b = one[0], one[-1]
    c = (b["sec_per_iter"] - a["sec_per_iter"]) / (b["n"] - a["n"])   # s per example
    fixed = max(a["sec_per_iter"] - c * a["n"], 0.0)                 # s per iteration
    vec = max(r["bytes_back_per_call"] for r in rows)                # one |w|-sized sum
    out = []
    for n in sizes:
        for m in machines:
            w = m * WORKERS_PER_MACHINE
            parts = max(w, -(-n // PART))
            hops = int(np.ceil(np.log2(w)))
            compute = c * n / w
            comm = 2 * hops * (LATENCY_S + vec / BANDWIDTH_BPS)       # broadcast + tree reduce
            sched = TASK_OVERHEAD_S * (2 * parts + w) / w + hops * TASK_OVERHEAD_S
            out.append({"n": n, "machines": m, "compute": compute, "comm": comm,
                        "sched": sched, "fixed": fixed,
                        "total": compute + comm + sched + fixed})
    return {"c_per_example": c, "fixed": fixed, "vector_bytes": vec, "rows": out}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,30000,100000")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--iterations", type=int, default=6)
    ap.add_argument("--compare-at", type=int, default=5,
                    help="keep w after this many iterations (1 vs 2 workers)")
    ap.add_argument("--cache-dir", default=".cache")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.report:
        report()
        return 0
    if args.one:
        n, w = int(args.sizes), int(args.workers)
        key = f"n{n}-w{w}-it{args.iterations}"
        rec = run_one(n, w, args.iterations, args.compare_at, args.cache_dir, key)
        with open(OUT / "results.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)
        return 0
    done = _done()
    for n in [int(x) for x in args.sizes.split(",")]:
        for w in [int(x) for x in args.workers.split(",")]:
            key = f"n{n}-w{w}-it{args.iterations}"
            if key in done:
                print(f"{key}: done", flush=True)
                continue
            print(f"{key}: running", flush=True)
            subprocess.run([sys.executable, __file__, "--one", "--sizes", str(n), "--workers",
                            str(w), "--iterations", str(args.iterations), "--compare-at",
                            str(args.compare_at), "--cache-dir", args.cache_dir], check=True)
    report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
