"""The default aligner on a language pair that no setting was chosen on: English–Romanian.

The Romanian set of ``../shared/data/alignment/romanian_en-ro`` (see its README) is 248
hand-aligned sentence pairs, sure links only, and no unlabeled bitext.  Nothing of the
toolkit was tuned on it.  The protocol mirrors the Hansards one on a small scale:

* gold sentences 1-100 train, 101-148 validate (``align train`` chooses c- and M/M+F+Q on
  them), 149-248 test;
* the unlabeled bitext is all 248 sentence pairs (the gold is not read by the unsupervised
  aligners), which is all the parallel text the set has;
* ``structpred align train`` with data arguments only (the default: our HMM and our
  Bayesian aligner as feature sources), from an empty cache, **twice**, to check that the
  two model files are byte-identical; then ``align predict`` on the test pairs;
* eflomal (2 samplers, model 3, its three symmetrisations; two runs, as it cannot be seeded)
  and fast_align (systran-align, symmetrised), each trained on the same 248 pairs;
* AER on the 100 test sentences, and the paired bootstrap of our default against the best
  peer row (:func:`alignment.evaluate.aer.paired_bootstrap`, 10,000 resamples, seeded).

Usage::

    python scripts/check_heldout_romanian.py [--data-dir ../shared/data] [--out runs/romanian]

Writes ``OUT/table.md`` and ``OUT/results.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from alignment.aligners.linkfiles import run_eflomal, run_fast_align  # noqa: E402
from alignment.aligners.symmetrize import symmetrize  # noqa: E402
from alignment.data.formats import read_naacl, read_parallel, read_pharaoh  # noqa: E402
from alignment.evaluate.aer import (paired_bootstrap, score_alignments,  # noqa: E402
                                    sentence_counts)

SPLITS = {"train": range(0, 100), "valid": range(100, 148), "test": range(148, 248)}


def _write_split(src, tgt, gold_lines, rows, out, name):
    (out / f"{name}.en").write_text("".join(src[i] + "\n" for i in rows), encoding="utf-8")
    (out / f"{name}.ro").write_text("".join(tgt[i] + "\n" for i in rows), encoding="utf-8")
    with open(out / f"{name}.naacl", "w", encoding="utf-8") as fh:
        for k, i in enumerate(rows):
            for rest in gold_lines.get(i + 1, []):
                fh.write(f"{k + 1} {rest}\n")


def _structpred(*args):
    cmd = [sys.executable, "-m", "structpred", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)}\n{proc.stderr}")
    return proc.stdout + proc.stderr


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(ROOT / "runs" / "romanian"))
    args = ap.parse_args(argv)
    data = Path(args.data_dir) / "alignment" / "romanian_en-ro"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    src = (data / "test.en").read_text(encoding="utf-8").splitlines()
    tgt = (data / "test.ro").read_text(encoding="utf-8").splitlines()
    gold_lines = {}
    for line in (data / "test.naacl").read_text(encoding="utf-8").splitlines():
        s, rest = line.split(" ", 1)
        gold_lines.setdefault(int(s), []).append(rest)
    for name, rows in {**SPLITS, "all": range(len(src))}.items():
        _write_split(src, tgt, gold_lines, rows, out, name)
    pairs = read_parallel(out / "test.en", out / "test.ro")
    gold = read_naacl(out / "test.naacl", pairs)

    rows, counts = [], {}

    def add(system, links, seconds, note=""):
        sc = score_alignments(links, gold)
        counts[system] = sentence_counts(links, gold)
        rows.append({"system": system, "precision": 100 * sc.precision,
                     "recall": 100 * sc.recall, "aer": 100 * sc.aer,
                     "seconds": round(seconds, 1), "note": note})
        print(f"{system}: AER {100 * sc.aer:.2f}", flush=True)

    # ours, twice from an empty cache
    digests = []
    for run in (1, 2):
        # the same cache folder, emptied: the model records where its aligner runs are kept
        cache, model = out / "cache", out / f"model{run}.npz"
        subprocess.run(["rm", "-rf", str(cache)], check=True)
        t0 = time.perf_counter()
        log = _structpred("align", "train", "--src", out / "train.en", "--tgt", out / "train.ro",
                          "--gold", out / "train.naacl", "--valid-src", out / "valid.en",
                          "--valid-tgt", out / "valid.ro", "--valid-gold", out / "valid.naacl",
                          "--bitext-src", out / "all.en", "--bitext-tgt", out / "all.ro",
                          "--cache-dir", cache, "-o", model)
        secs = time.perf_counter() - t0
        (out / f"train{run}.log").write_text(log, encoding="utf-8")
        digests.append(hashlib.sha256(model.read_bytes()).hexdigest())
        links_path = out / f"test{run}.links"
        _structpred("align", "predict", "-m", model, "--src", out / "test.en", "--tgt",
                    out / "test.ro", "-o", links_path)
        if run == 1:
            add("**ours: `align train` default**", read_pharaoh(links_path, pairs), secs,
                "train 1-100, validate 101-148")
    same = digests[0] == digests[1] and \
        (out / "test1.links").read_bytes() == (out / "test2.links").read_bytes()

    all_src = [s.split() for s in src]
    all_tgt = [t.split() for t in tgt]
    test_rows = list(SPLITS["test"])
    for run in (1, 2):
        t0 = time.perf_counter()
        fwd, bwd = run_eflomal(all_src, all_tgt, verbose=False)
        secs = time.perf_counter() - t0
        for how in ("intersection", "grow-diag-final-and", "union"):
            links = [symmetrize(fwd[i], bwd[i], how) for i in test_rows]
            add(f"eflomal {how} (run {run})", links, secs, "2 samplers, model 3")
    t0 = time.perf_counter()
    fa = run_fast_align(all_src, all_tgt, test_rows, verbose=False)
    fa = fa[0] if isinstance(fa, tuple) else fa
    add("fast_align (systran-align, symmetrised)", fa, time.perf_counter() - t0)

    ours = rows[0]["system"]
    best = min(rows[1:], key=lambda r: r["aer"])
    boot = paired_bootstrap(counts[best["system"]], counts[ours], random_state=0)
    lines = ["| system | test P | test R | **test AER** | wall (s) | |",
             "|---|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['system']} | {r['precision']:.2f} | {r['recall']:.2f} | "
                     f"**{r['aer']:.2f}** | {r['seconds']} | {r['note']} |")
    lo, hi = (100 * x for x in boot.interval)
    summary = (f"Ours against the best peer row ({best['system']}): "
               f"{100 * boot.difference:+.2f} points better [95 %: {lo:+.2f}, {hi:+.2f}], not "
               f"better in {100 * boot.p_not_better:.1f} % of 10,000 paired bootstraps of the "
               f"100 test sentences. Two runs of `align train` from an empty cache: model files "
               f"and test links {'byte-identical' if same else 'DIFFERENT'} "
               f"(SHA-256 {digests[0][:8]}...).")
    (out / "table.md").write_text("\n".join(lines) + "\n\n" + summary + "\n", encoding="utf-8")
    (out / "results.json").write_text(json.dumps({"rows": rows, "identical": same,
                                                  "sha256": digests,
                                                  "bootstrap": {"difference": boot.difference,
                                                                "interval": list(boot.interval),
                                                                "p_not_better":
                                                                    boot.p_not_better}},
                                                 indent=1), encoding="utf-8")
    print("\n".join(lines))
    print(summary)


if __name__ == "__main__":
    main()
