"""Time the EM of our HMM trained by agreement (the ``hmm`` source of ``align train``).

The HMM is trained as :class:`alignment.aligners.unsupervised.UnsupervisedAligner` trains
it (lower-cased 4-character prefixes, IBM 1/2 first, pairs longer than 80 tokens left out
of the EM); only the EM (:func:`alignment.stats.hmm.train_hmm` with ``agreement=True``) is
timed, wall and CPU (user + system of the whole process, all threads).  The IBM 1/2
statistics are computed once and kept in ``--stats`` (``.npz``), so that several
processes (e.g. two code trees picked by ``PYTHONPATH``) time the EM from the same tables.

Each ``--jobs`` value is run ``--repeats`` times, alternating; one line per run, with a
hash of the trained tables (equal hashes: bit-identical tables)::

    PYTHONPATH=. python benchmarks/bench_hmm_agreement.py --pairs 50000 --jobs 1,2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "hansards"


def _tables_hash(hmm):
    h = hashlib.blake2b(digest_size=8)
    for name in ("t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd", "jump_fwd", "jump_bwd"):
        h.update(getattr(hmm, name).tobytes())
    h.update(repr((hmm.p0_fwd, hmm.p0_bwd)).encode())
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=50_000, help="first N Hansards bitext pairs")
    ap.add_argument("--jobs", default="1,2", help="n_jobs values to time, comma-separated")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--stats", default=None,
                    help="IBM 1/2 statistics file (written if missing)")
    ap.add_argument("--label", default="", help="printed on every line")
    args = ap.parse_args()

    from alignment.aligners.unsupervised import UnsupervisedAligner
    from alignment.data.corpus import load_bitext
    from alignment.stats.hmm import train_hmm
    from alignment.stats.statistics import AlignmentStatistics

    bt = load_bitext(DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz",
                     max_pairs=args.pairs, max_len=None)
    un = UnsupervisedAligner()
    ns = [un.normalize(s) for s in bt.src]
    nt = [un.normalize(t) for t in bt.tgt]
    if args.stats and os.path.exists(args.stats):
        stats = AlignmentStatistics.load(args.stats)
    else:
        stats = AlignmentStatistics.from_sentences(ns, nt, verbose=False)
        if args.stats:
            stats.save(args.stats)
    keep = [i for i, (s, t) in enumerate(zip(ns, nt)) if len(s) <= 80 and len(t) <= 80]
    ns, nt = [ns[i] for i in keep], [nt[i] for i in keep]
    jobs = [int(j) for j in args.jobs.split(",")]
    for _ in range(args.repeats):
        for n_jobs in jobs:
            t0, c0 = time.perf_counter(), time.process_time()
            hmm = train_hmm(stats, ns, nt, n_iter=args.iterations, agreement=True,
                            n_jobs=n_jobs)
            row = {"label": args.label, "pairs": len(ns), "n_jobs": n_jobs,
                   "wall_s": round(time.perf_counter() - t0, 2),
                   "cpu_s": round(time.process_time() - c0, 2),
                   "tables": _tables_hash(hmm)}
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
