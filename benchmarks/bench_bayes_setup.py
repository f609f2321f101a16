"""What the Bayesian aligner's run costs around its sampling: two versions side by side.

Each version is a source tree (a checkout, or ``git archive REV | tar -x -C DIR``); every
run is a process of its own with that tree first on ``sys.path``, the versions
alternating (A B A B ...), so that both see the same machine state.  A run is
:func:`alignment.aligners.bayes_run.run_bayes` on a bitext with one sampler and one IBM-1
sweep (``--full`` for the default schedule and samplers), in one thread, uncached: with
one sweep, what it measures is mostly what surrounds the sampling (reading the words,
the pair ids, IBM Model 1's EM start, the priors and the links).  Each run records its CPU
seconds, wall seconds and peak resident memory, and a digest of its links, which must be
the same for every version::

    git archive HEAD~1 | tar -x -C /tmp/before
    python benchmarks/bench_bayes_setup.py --roots before=/tmp/before,after=. --repeat 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HANSARDS = HERE.parents[1] / "shared" / "data" / "alignment" / "hansards_en-fr"

_CHILD = r"""
import gzip, hashlib, json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from alignment.aligners.bayes_run import run_bayes
def read(p):
    with gzip.open(p, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]
src, tgt = read(sys.argv[2]), read(sys.argv[3])
keep = [i for i in range(len(src)) if src[i].split() and tgt[i].split()]
src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
opts = {} if sys.argv[4] == "full" else dict(n_samplers=1, ibm1_iterations=1,
                                             hmm_iterations=0, fertility_iterations=0)
c0, w0 = time.process_time(), time.perf_counter()
run = run_bayes(src, tgt, None, random_state=0, n_jobs=1, **opts)
cpu, wall = time.process_time() - c0, time.perf_counter() - w0
h = hashlib.sha256()
for d in ("fwd", "bwd"):
    h.update(run.directions[d].offsets.tobytes())
    h.update(run.directions[d].links.tobytes())
print(json.dumps({"pairs": len(src), "cpu_s": cpu, "wall_s": wall,
                  "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
                  "links": h.hexdigest()[:16]}))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--roots", required=True, help="name=tree,name=tree")
    ap.add_argument("--src", default=str(HANSARDS / "bitext.36-2.en.gz"))
    ap.add_argument("--tgt", default=str(HANSARDS / "bitext.36-2.fr.gz"))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--full", action="store_true", help="the default schedule and samplers")
    ap.add_argument("--out", help="JSON file for the records")
    args = ap.parse_args(argv)
    roots = [r.split("=", 1) for r in args.roots.split(",")]
    records = []
    for rep in range(args.repeat):
        for name, root in (roots if rep % 2 == 0 else roots[::-1]):
            out = subprocess.run([sys.executable, "-c", _CHILD, str(Path(root).resolve()),
                                  args.src, args.tgt, "full" if args.full else "one"],
                                 check=True, capture_output=True, text=True).stdout
            rec = {"version": name, **json.loads(out.strip().splitlines()[-1])}
            records.append(rec)
            print(f"{name:>10}  {rec['pairs']} pairs  cpu {rec['cpu_s']:7.1f} s  wall "
                  f"{rec['wall_s']:7.1f} s  peak RSS {rec['peak_rss_gb']:5.2f} GB  links "
                  f"{rec['links']}", flush=True)
    if len({r["links"] for r in records}) != 1:
        sys.exit("the versions' links differ")
    if args.out:
        Path(args.out).write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
