"""Compile the numba kernels once, at install time, into numba's on-disk cache.

The kernels are compiled with ``cache=True``: the first run of a command on a fresh
install pays for compiling every kernel it uses (about three minutes on a 2-core machine
for all of them), every later run reads them from the cache (``__pycache__`` beside each
module).  ``make`` runs this script after installing, as a package with C extensions
compiles them at install time, so that neither the first command nor the first test run
pays for it.

It runs each subcommand once on a few sentences, images or documents of the bundled data
(the same code paths as real runs, so the kernels are compiled for the types they meet),
in a temporary folder; nothing is written elsewhere.  About three minutes on 2 cores from
a fresh clone, seconds when the cache is warm.

Usage::

    python scripts/compile_kernels.py [-q]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
H = ROOT / "data" / "hansards"
TEXT = ROOT / "data" / "text" / "20ng-4groups-train.jsonl.gz"
CONLL = ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz"
HORSES = ROOT / "data" / "segmentation" / "weizmann_horse" / "manifest.csv"
OAKLAND = ROOT / "data" / "segmentation" / "oakland3d_part2"


def commands(tmp):
    """``(what, argv)`` of every run, in order (later ones read earlier ones' files)."""
    t = Path(tmp)
    gold = ["--src", str(H / "test.en.gz"), "--tgt", str(H / "test.fr.gz"),
            "--gold", str(H / "test.naacl.gz"), "--first", "8"]
    valid = ["--valid-src", str(H / "trial.en.gz"), "--valid-tgt", str(H / "trial.fr.gz"),
             "--valid-gold", str(H / "trial.naacl.gz")]
    bitext = ["--bitext-src", str(H / "bitext.36-2.en.gz"),
              "--bitext-tgt", str(H / "bitext.36-2.fr.gz"), "--bitext-pairs", "400"]
    test = ["--src", str(H / "trial.en.gz"), "--tgt", str(H / "trial.fr.gz")]
    out = []
    out.append(("align train (M, the default features)",
                ["align", "train", *gold, *valid, *bitext, "--stats", str(t / "stats.npz"),
                 "--iterations", "3", "-o", str(t / "m.npz")]))
    out.append(("align predict", ["align", "predict", "-m", str(t / "m.npz"), *test,
                                  "-o", str(t / "m.txt")]))
    out.append(("align train (M+F+Q)",
                ["align", "train", "--model", "M+F+Q", *gold, *valid, *bitext,
                 "--stats", str(t / "stats.npz"), "--interaction-stats", str(t / "inter.npz"),
                 "--iterations", "3", "-o", str(t / "mfq.npz")]))
    out.append(("align predict (LP decoder)",
                ["align", "predict", "-m", str(t / "mfq.npz"), "--decoder", "lp", *test,
                 "-o", str(t / "mfq.txt")]))
    out.append(("align unsupervised",
                ["align", "unsupervised", *test, *bitext, "--hmm-iterations", "1",
                 "--with", "none", "-o", str(t / "u.txt")]))
    out.append(("aer", ["aer", "--gold", str(H / "trial.naacl.gz"), "--test",
                        str(t / "u.txt")]))
    out.append(("segment train (images)",
                ["segment", "train", "--manifest", str(HORSES), "--split", "train",
                 "--limit", "4", "--iterations", "3", "-o", str(t / "seg.npz")]))
    scans = sorted(OAKLAND.glob("*.xyz_label_conf.gz"))[:2]
    if scans:
        out.append(("segment train (points)",
                    ["segment", "train", "--points", *map(str, scans),
                     "--foreground-labels", "1300-1306", "--voxel", "1.0",
                     "--iterations", "3", "-o", str(t / "oak.npz")]))
    from topics.registry import MODELS

    for name in MODELS:
        out.append((f"topics train --model {name}",
                    ["topics", "train", "--model", name, "--data", str(TEXT),
                     "--iterations", "1", "-o", str(t / f"topics-{name}.npz")]))
    out.append(("tag train", ["tag", "train", "--data", str(CONLL), "--first", "60",
                              "--iterations", "3", "-o", str(t / "tagger.npz")]))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    args = parser.parse_args(argv)
    from structpred.cli import main as structpred

    start = time.perf_counter()
    failed = []
    with tempfile.TemporaryDirectory(prefix="structpred-compile-") as tmp:
        os.environ.setdefault("STRUCTPRED_CACHE", str(Path(tmp) / "cache"))
        for what, argv_ in commands(tmp):
            t0 = time.perf_counter()
            devnull = open(os.devnull, "w")
            saved = sys.stdout, sys.stderr
            sys.stdout = sys.stderr = devnull
            try:
                status = structpred([*argv_, "-q"] if argv_[0] != "aer" else argv_)
            except SystemExit as exc:          # argparse on an option this version lacks
                status = exc.code
            finally:
                sys.stdout, sys.stderr = saved
                devnull.close()
            if status not in (0, None):
                failed.append(what)
            if not args.quiet:
                print(f"  {time.perf_counter() - t0:6.1f}s  {what}"
                      f"{'' if status in (0, None) else f'  (exit {status})'}", flush=True)
    if not args.quiet:
        print(f"numba kernels compiled and cached in {time.perf_counter() - start:.0f}s")
    if failed:
        print(f"compile_kernels: these runs failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
