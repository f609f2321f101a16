"""The default ``structpred align train`` on the two gold-aligned language pairs.

Runs the commands a user runs, with data arguments only (plus any ``--train-args``),
and scores the test sentences with ``structpred aer`` (the statistics are cached in
``.cache/stats/``, one file per bitext and settings):

* Hansards English-French (bundled): train on test sentences 1-100, validate on the 37
  trial sentences, test on the last 247 test sentences; unlabeled bitext
  ``data/hansards/bitext.36-2`` (231,648 pairs, which hold the gold sentences);
* Czech-English (``../shared/data/alignment/czech_en-cs``): train on dev 1-400,
  validate on 401-600, test on 601-800; unlabeled bitext of 12,500 pairs (which holds
  the dev sentences).

Usage::

    python scripts/eval_align_default.py --corpus czech
    python scripts/eval_align_default.py --corpus hansards --name none --train-args "--aligners none"
    python scripts/eval_align_default.py --corpus both --json runs/align_default/results.json
    python scripts/eval_align_default.py --corpus czech --name labels-hmm --auto 1000 \
        --train-args "--labels hmm"        # train without gold (thesis sec. 2.6.2)

The split files (Pharaoh gold with ``i?j`` possible links) are written to
``runs/align_default/<corpus>/``; models and outputs go there too, named by ``--name``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from czech_protocol import load_corpus  # noqa: E402

from alignment.data.formats import format_pharaoh  # noqa: E402

SPLITS = {"hansards": {"train": range(37, 137), "valid": range(0, 37), "test": range(237, 484)},
          "czech": {"train": range(0, 400), "valid": range(400, 600), "test": range(600, 800)}}


def write_splits(corpus, out):
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for split, lines in SPLITS[corpus.name].items():
        paths = {side: out / f"{split}.{side}" for side in ("src", "tgt", "gold")}
        if not all(p.exists() for p in paths.values()):
            with open(paths["src"], "w", encoding="utf-8") as s, \
                    open(paths["tgt"], "w", encoding="utf-8") as t, \
                    open(paths["gold"], "w", encoding="utf-8") as g:
                for i in lines:
                    s.write(corpus.src[i] + "\n")
                    t.write(corpus.tgt[i] + "\n")
                    g.write(format_pharaoh(corpus.gold[i]) + "\n")
        files[split] = paths
    return files


def run(cmd, log):
    t0 = time.perf_counter()
    with open(log, "a", encoding="utf-8") as fh:
        fh.write("$ " + " ".join(map(shlex.quote, cmd)) + "\n")
        fh.flush()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=fh, text=True)
    if proc.returncode:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}; see {log}")
    return proc.stdout, time.perf_counter() - t0


def write_auto_split(corpus, out, n):
    """``n`` bitext pairs after the gold lines, as training text without gold."""
    first = max(corpus.gold) + 1
    paths = {side: out / f"auto{n}.{side}" for side in ("src", "tgt")}
    if not all(p.exists() for p in paths.values()):
        with open(paths["src"], "w", encoding="utf-8") as s, \
                open(paths["tgt"], "w", encoding="utf-8") as t:
            for i in range(first, first + n):
                s.write(corpus.src[i] + "\n")
                t.write(corpus.tgt[i] + "\n")
    return paths


def evaluate(name, train_args, label, python, auto=None):
    corpus = load_corpus(name)
    out = ROOT / "runs" / "align_default" / name
    files = write_splits(corpus, out)
    if auto:
        # train without gold: auto-labelled bitext sentences after the gold lines
        files["train"] = dict(write_auto_split(corpus, out, auto), gold=None)
    model = out / f"{label}.npz"
    links = out / f"{label}.test.links"
    log = out / f"{label}.log"
    log.unlink(missing_ok=True)
    sp = [python, "-m", "structpred"]
    tr = files["train"]
    va = files["valid"]
    gold = ["--gold", str(tr["gold"])] if tr.get("gold") else []
    cmd = sp + ["align", "train", "--src", str(tr["src"]), "--tgt", str(tr["tgt"]),
                *gold, "--valid-src", str(va["src"]),
                "--valid-tgt", str(va["tgt"]), "--valid-gold", str(va["gold"]),
                "--bitext-src", str(corpus.src_path), "--bitext-tgt", str(corpus.tgt_path),
                "--stats", str(ROOT / ".cache" / "stats") + "/",
                "-o", str(model)] + shlex.split(train_args)
    _, t_train = run(cmd, log)
    te = files["test"]
    _, t_pred = run(sp + ["align", "predict", "-m", str(model), "--src", str(te["src"]),
                          "--tgt", str(te["tgt"]), "-o", str(links)], log)
    score, _ = run(sp + ["aer", "--gold", str(te["gold"]), "--test", str(links)], log)
    summary = [ln for ln in log.read_text().splitlines() if "best validation" in ln
               or "aligners as features" in ln or ln.startswith("labels:")]
    row = {"corpus": name, "label": label, "train_args": train_args, "aer_line": score.strip(),
           "train_seconds": round(t_train, 1), "predict_seconds": round(t_pred, 1),
           "summary": summary}
    print(json.dumps(row), flush=True)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["hansards", "czech", "both"], default="both")
    ap.add_argument("--name", default="default", help="label of this configuration")
    ap.add_argument("--train-args", default="", help="extra options of align train")
    ap.add_argument("--json", help="append the rows to this JSON-lines file")
    ap.add_argument("--auto", type=int, default=None, metavar="N",
                    help="train on N bitext pairs after the gold lines, without gold "
                         "(give --train-args '--labels hmm' or '--labels eflomal')")
    args = ap.parse_args()
    corpora = ["hansards", "czech"] if args.corpus == "both" else [args.corpus]
    for c in corpora:
        row = evaluate(c, args.train_args, args.name, sys.executable, args.auto)
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
