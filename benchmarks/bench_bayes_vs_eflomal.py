"""Our Bayesian aligner's default run against eflomal alone on one bitext, CPU and wall time.

Both run in this process, alternating (eflomal, ours, ours, eflomal, ... for ``--repeat``
rounds), so that both see the same machine state: eflomal with the options ``structpred``
gives it (``alignment.aligners.runs.run_aligner``, no cache), ours with its defaults
(``alignment.aligners.bayes_run.run_bayes``: three samplers, the two directions in
``--jobs`` threads, seed 0, no cache).  CPU time is that of the process and its children
(eflomal runs as a child)::

    python benchmarks/bench_bayes_vs_eflomal.py --repeat 2 --out runs/bayes_vs_eflomal.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HANSARDS = ROOT / "data" / "hansards"


def _read(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def _cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main(argv=None):
    from alignment.aligners.bayes_run import run_bayes
    from alignment.aligners.runs import run_aligner

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=str(HANSARDS / "bitext.36-2.en.gz"))
    ap.add_argument("--tgt", default=str(HANSARDS / "bitext.36-2.fr.gz"))
    ap.add_argument("--repeat", type=int, default=2, help="rounds (default 2)")
    ap.add_argument("--jobs", type=int, default=2, help="threads of our run (default 2)")
    ap.add_argument("--out", help="JSON file for the records")
    args = ap.parse_args(argv)
    src, tgt = _read(args.src), _read(args.tgt)
    keep = [i for i in range(len(src)) if src[i].split() and tgt[i].split()]
    src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
    records = []
    for rep in range(args.repeat):
        for name in (("eflomal", "ours") if rep % 2 == 0 else ("ours", "eflomal")):
            c0, w0 = _cpu(), time.perf_counter()
            if name == "eflomal":
                run_aligner("eflomal", src, tgt, cache_dir=None)
            else:
                run_bayes(src, tgt, None, random_state=0, n_jobs=args.jobs)
            rec = {"system": name, "pairs": len(src), "cpu_s": round(_cpu() - c0, 1),
                   "wall_s": round(time.perf_counter() - w0, 1)}
            records.append(rec)
            print(json.dumps(rec), flush=True)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
