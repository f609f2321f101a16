"""Train the aligner on automatic labels instead of gold (thesis sec. 2.6.2), any corpus.

A thin caller of ``structpred align train --labels hmm|eflomal``: for each N it takes
the first N usable sentence pairs of the unlabeled bitext (after ``--skip`` lines),
trains the default model on their labels (the labeller is left out of the features),
aligns the test sentences with ``structpred align predict`` and scores them with
``structpred aer``.  The labeller alone on the same test sentences is the reference.

    # the bundled Hansards (the defaults): the bitext's first 484 lines are the gold ones
    python scripts/train_without_gold.py --labels eflomal --sizes 1000,5000

    # any corpus: a bitext, and gold test sentences (Pharaoh with i?j possible links,
    # or NAACL with --gold-format naacl)
    python scripts/train_without_gold.py --labels hmm --sizes 1000 \\
        --bitext-src bitext.en --bitext-tgt bitext.cs --skip 800 \\
        --test-src test.en --test-tgt test.cs --test-gold test.pharaoh \\
        --valid-src valid.en --valid-tgt valid.cs --valid-gold valid.pharaoh

With validation sentences the iteration is chosen on their gold (as ``align train``
does); without them no gold is used in training at all and the model runs 200
iterations.  Files, models and logs go to ``--out`` (default ``runs/without_gold/``).
"""

from __future__ import annotations

import argparse
import itertools
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alignment.evaluate.aer import score_alignments  # noqa: E402
from alignment.data.corpus import iter_bitext  # noqa: E402
from alignment.data.formats import read_naacl, read_parallel, read_pharaoh  # noqa: E402

HANSARDS = ROOT / "data" / "hansards"


def _usable(path_src, path_tgt, skip, n, max_len=80):
    """The first ``n`` pairs after line ``skip`` with both sides non-empty and at most
    ``max_len`` tokens."""
    out = [(s, t) for _, s, t in itertools.islice(
        iter_bitext(path_src, path_tgt, skip_first=skip, max_len=max_len), n)]
    if len(out) < n:
        raise SystemExit(f"{path_src}: only {len(out)} usable pairs after line {skip}, "
                         f"asked for {n}")
    return out


def _write(pairs, stem):
    for side, k in (("src", 0), ("tgt", 1)):
        Path(f"{stem}.{side}").write_text("".join(" ".join(p[k]) + "\n" for p in pairs),
                                          encoding="utf-8")
    return f"{stem}.src", f"{stem}.tgt"


def _run(cmd, log):
    with open(log, "a") as fh:
        fh.write("$ " + shlex.join(cmd) + "\n")
        fh.flush()
        t0 = time.perf_counter()
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=fh, text=True)
        fh.write(out.stdout)
    if out.returncode:
        raise SystemExit(f"{shlex.join(cmd)} failed (exit {out.returncode}); see {log}")
    return out.stdout, time.perf_counter() - t0


def labeller_alone(labeller, test_pairs, bitext_src, bitext_tgt, cache_dir):
    """The labeller's own links on the test sentences (trained on the bitext + test)."""
    from alignment.features.links import AlignerLinks

    bt = [(s, t) for s, t in read_parallel(bitext_src, bitext_tgt) if s and t]
    links = AlignerLinks.from_sources((labeller,), test_pairs, [s for s, _ in bt],
                             [t for _, t in bt], cache_dir=cache_dir)
    if labeller == "hmm":
        return [links.unsupervised.align_pair(s, t)[0] for s, t in test_pairs]
    idx = [links.position(s, t) for s, t in test_pairs]
    return links.runs[labeller].links("intersection", idx)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--labels", choices=["hmm", "eflomal"], default="eflomal")
    ap.add_argument("--sizes", default="1000")
    ap.add_argument("--bitext-src", default=str(HANSARDS / "bitext.36-2.en.gz"))
    ap.add_argument("--bitext-tgt", default=str(HANSARDS / "bitext.36-2.fr.gz"))
    ap.add_argument("--skip", type=int, default=484,
                    help="bitext lines to leave out of the training pool (the gold ones)")
    ap.add_argument("--test-src", default=str(HANSARDS / "test.en.gz"))
    ap.add_argument("--test-tgt", default=str(HANSARDS / "test.fr.gz"))
    ap.add_argument("--test-gold", default=str(HANSARDS / "test.naacl.gz"))
    ap.add_argument("--valid-src", default=str(HANSARDS / "trial.en.gz"))
    ap.add_argument("--valid-tgt", default=str(HANSARDS / "trial.fr.gz"))
    ap.add_argument("--valid-gold", default=str(HANSARDS / "trial.naacl.gz"))
    ap.add_argument("--no-valid", action="store_true", help="use no gold at all")
    ap.add_argument("--gold-format", choices=["naacl", "pharaoh"], default=None,
                    help="default: naacl for *.naacl[.gz], else pharaoh")
    ap.add_argument("--train-args", default="", help="more options of align train")
    ap.add_argument("--cache-dir", default=str(ROOT / ".cache"))
    ap.add_argument("--out", default=str(ROOT / "runs" / "without_gold"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    fmt = args.gold_format or ("naacl" if ".naacl" in Path(args.test_gold).name else "pharaoh")
    test_pairs = read_parallel(args.test_src, args.test_tgt)
    read_gold = read_naacl if fmt == "naacl" else read_pharaoh
    test_gold = read_gold(args.test_gold, test_pairs)
    sizes = [int(x) for x in args.sizes.split(",")]
    pool = _usable(args.bitext_src, args.bitext_tgt, args.skip, max(sizes))
    ref = score_alignments(labeller_alone(args.labels, test_pairs, args.bitext_src,
                                          args.bitext_tgt, args.cache_dir), test_gold)
    print("| training | N | precision | recall | AER | train time (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| {args.labels} alone (the labeller) | – | {100 * ref.precision:.2f} | "
          f"{100 * ref.recall:.2f} | {100 * ref.aer:.2f} | – |", flush=True)
    sp = [sys.executable, "-m", "structpred"]
    valid = [] if args.no_valid else [
        "--valid-src", args.valid_src, "--valid-tgt", args.valid_tgt,
        "--valid-gold", args.valid_gold]
    for n in sizes:
        stem = out / f"{args.labels}-{n}"
        src, tgt = _write(pool[:n], stem)
        log = Path(f"{stem}.log")
        log.unlink(missing_ok=True)
        _, secs = _run(sp + ["align", "train", "--labels", args.labels, "--src", src,
                             "--tgt", tgt, *valid, "--gold-format", fmt,
                             "--bitext-src", args.bitext_src, "--bitext-tgt", args.bitext_tgt,
                             "--stats", str(Path(args.cache_dir) / "stats") + "/",
                             "--cache-dir", args.cache_dir, "-o", f"{stem}.npz"]
                       + shlex.split(args.train_args), log)
        _run(sp + ["align", "predict", "-m", f"{stem}.npz", "--src", args.test_src,
                   "--tgt", args.test_tgt, "-o", f"{stem}.test.links"], log)
        pred = read_pharaoh(f"{stem}.test.links", test_pairs)
        sc = score_alignments(pred, test_gold)
        print(f"| align train --labels {args.labels} | {n} | {100 * sc.precision:.2f} | "
              f"{100 * sc.recall:.2f} | {100 * sc.aer:.2f} | {secs:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
