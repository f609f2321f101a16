"""Throughput of ``structpred align predict`` (issue 18 point 5): sentence pairs per second
with 1 and 2 processes, and the per-pair reference path.

    python benchmarks/bench_predict.py                         # trains a quick model M first
    python benchmarks/bench_predict.py --model runs/bench/model-m.npz --pairs 20000 --jobs 1,2
    python benchmarks/bench_predict.py --model M.npz --cli     # the command line, end to end

The input is ``--pairs`` Hansards bitext pairs from line ``--offset`` on (not in the
statistics of the quick model).  For each number of processes the pairs are aligned as
``align predict`` does (:func:`alignment.predict.parallel.predict_stream`, chunks of
:data:`~alignment.predict.parallel.LOCAL_CHUNK` pairs, Pharaoh lines formatted), after
the kernels are loaded; ``--cli`` times the whole command instead (start-up, reading and
writing included).  The reference, :meth:`MatchingAligner.predict_pairwise` (one feature
matrix and one OR-Tools decoding per pair), is timed on ``--reference`` pairs, and the
links of both paths are compared on them.

The machine's load average is printed with the figures: other jobs on the same cores
lower the 2-process figure most.  The CPU seconds of all the processes (the command's
and its workers') are given too: pairs per CPU second is what one free core achieves.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alignment.predict.parallel import LOCAL_CHUNK, predict_stream  # noqa: E402
from alignment.data.formats import format_pharaoh, read_parallel  # noqa: E402
from alignment.model import MatchingAligner  # noqa: E402

DATA = ROOT / "data" / "hansards"


def quick_model(path, bitext_pairs=20000):
    """Model M on the first 100 gold sentences, no external aligner (our HMM only), 10
    iterations, statistics of the first ``bitext_pairs`` bitext pairs."""
    from structpred.cli import main

    rc = main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
               str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "100",
               "--bitext-src", str(DATA / "bitext.36-2.en.gz"), "--bitext-tgt",
               str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", str(bitext_pairs),
               "--aligners", "none", "--iterations", "10", "-q", "-o", str(path)])
    if rc != 0:
        raise SystemExit(f"training the quick model failed ({rc})")


def input_pairs(offset, n):
    pairs = read_parallel(DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz")
    return [(s, t) for s, t in pairs[offset:] if s and t][:n]


def _cpu_seconds():
    """CPU seconds of this process and of its finished children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def time_stream(model, pairs, jobs):
    """Seconds (wall, and CPU of all the processes) to align and format ``pairs`` with
    ``jobs`` processes."""
    t0, c0 = time.perf_counter(), _cpu_seconds()
    n = 0
    for predicted in predict_stream(model, iter(pairs), LOCAL_CHUNK, jobs):
        "".join(format_pharaoh(a) + "\n" for a in predicted)   # as align predict writes
        n += len(predicted)
    assert n == len(pairs)
    return time.perf_counter() - t0, _cpu_seconds() - c0


def time_cli(model_path, pairs, jobs):
    """Seconds (wall, and CPU) of ``structpred align predict --jobs`` on ``pairs``, end
    to end."""
    c0 = _cpu_seconds()
    sec = _run_cli(model_path, pairs, jobs)
    return sec, _cpu_seconds() - c0


def _run_cli(model_path, pairs, jobs):
    with tempfile.TemporaryDirectory() as tmp:
        src, tgt = Path(tmp) / "in.en", Path(tmp) / "in.fr"
        src.write_text("".join(" ".join(s) + "\n" for s, _ in pairs), encoding="utf-8")
        tgt.write_text("".join(" ".join(t) + "\n" for _, t in pairs), encoding="utf-8")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "structpred", "align", "predict", "-m",
                        str(model_path), "--src", str(src), "--tgt", str(tgt), "-q",
                        "--jobs", str(jobs), "-o", str(Path(tmp) / "out.txt")],
                       check=True, cwd=ROOT)
        return time.perf_counter() - t0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, default=None,
                   help="a model M (default: train a quick one into --workdir)")
    p.add_argument("--workdir", type=Path, default=ROOT / "runs" / "bench_predict")
    p.add_argument("--pairs", type=int, default=20000)
    p.add_argument("--offset", type=int, default=100000,
                   help="first bitext line of the input")
    p.add_argument("--jobs", default="1,2", help="comma-separated numbers of processes")
    p.add_argument("--reference", type=int, default=1000,
                   help="pairs aligned by the per-pair path (0: none)")
    p.add_argument("--cli", action="store_true",
                   help="time the align predict command end to end")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = p.parse_args(argv)

    model_path = args.model
    if model_path is None:
        args.workdir.mkdir(parents=True, exist_ok=True)
        model_path = args.workdir / "model-m.npz"
        if not model_path.exists():
            quick_model(model_path)
    model = MatchingAligner.load(model_path)
    pairs = input_pairs(args.offset, args.pairs)
    model.predict(pairs[:8])            # kernels compiled or loaded from numba's cache
    out = {"model": str(model_path), "model_name": model.model_name,
           "aligners": list(model.aligners), "pairs": len(pairs), "results": {}}
    print(f"model {model.model_name} ({model_path}), aligners {list(model.aligners) or 'none'}; "
          f"{len(pairs)} pairs from bitext line {args.offset}; "
          f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}"
          f" CPUs, load average {os.getloadavg()[0]:.1f}")
    for jobs in (int(j) for j in args.jobs.split(",")):
        sec, cpu = (time_cli(model_path, pairs, jobs) if args.cli
                    else time_stream(model, pairs, jobs))
        out["results"][f"jobs={jobs}"] = len(pairs) / sec
        out["results"][f"jobs={jobs} per CPU second"] = len(pairs) / cpu
        print(f"  {jobs} process{'es' if jobs > 1 else '':2s}: {len(pairs) / sec:8.0f} pairs/s "
              f"({sec:.1f}s{', end to end' if args.cli else ''}; {cpu:.1f} CPU s in all, "
              f"{len(pairs) / cpu:.0f} pairs per CPU second)")
    if args.reference:
        ref_pairs = pairs[:args.reference]
        t0, c0 = time.perf_counter(), _cpu_seconds()
        ref = model.predict_pairwise(ref_pairs)
        sec, cpu = time.perf_counter() - t0, _cpu_seconds() - c0
        same = ref == model.predict(ref_pairs)
        out["results"]["per-pair reference"] = len(ref_pairs) / sec
        out["results"]["per-pair reference per CPU second"] = len(ref_pairs) / cpu
        out["same_links"] = bool(same)
        print(f"  per-pair reference (1 process, {len(ref_pairs)} pairs): "
              f"{len(ref_pairs) / sec:8.0f} pairs/s ({len(ref_pairs) / cpu:.0f} per CPU "
              f"second); links {'identical' if same else 'DIFFER'}")
    out["load_average"] = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
