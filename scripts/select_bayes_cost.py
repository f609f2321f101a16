"""Cheaper settings of the ``bayes`` feature source, judged on validation sentences only
(issue 31, point 4: the default pipeline within twice eflomal's time).

For each configuration (a label and a JSON dict of :class:`BayesianAligner` options, the
``bayes`` source's options for this run only; ``{}``: the aligner's defaults), runs
``structpred align train`` on the protocol of ``scripts/eval_align_default.py`` (Hansards: train on the first 100 gold sentences,
validate on the 37 trial sentences, whole 231,648-pair bitext; Czech: train on dev 1-400,
validate on 401-600, 12,500 pairs) with c- and the model fixed to what the default chose
on both pairs (``--c-neg 3 --model M``, so that only the feature source differs), then
``align predict`` on the *validation* sentences, and keeps their per-sentence link counts in
``runs/bayes_cost/<corpus>-<label>.json`` (with the wall time of the command and of the
Bayesian run).  The test sentences are not aligned.

``--report`` compares every configuration with ``base`` (the current defaults) by the
paired bootstrap of the validation sentences
(:func:`alignment.evaluate.aer.paired_bootstrap`, 10,000 resamples, seeded): the AER
difference (positive: the candidate is better), its 95 % interval and the share of
resamples in which the candidate is *worse* than ``base``.

Usage::

    python scripts/select_bayes_cost.py --corpus czech --label base
    python scripts/select_bayes_cost.py --corpus czech --label s1 --bayes '{"n_samplers": 1}'
    python scripts/select_bayes_cost.py --report
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from czech_protocol import load_corpus  # noqa: E402
from eval_align_default import write_splits  # noqa: E402

OUT = ROOT / "runs" / "bayes_cost"


def set_source_options(options):
    """Make ``options`` (replacing :data:`alignment.aligners.bayes_run.SOURCE_OPTIONS`)
    the options of ``align train``'s ``bayes`` source in this process: ``{}`` is the
    stand-alone aligner's defaults (:data:`~alignment.aligners.bayes.BAYES_DEFAULTS`)."""
    from alignment.aligners import bayes_run
    from alignment.aligners.bayes_run import bayes_options

    bayes_options(**options)        # ValueError for an unknown option
    bayes_run.SOURCE_OPTIONS.clear()
    bayes_run.SOURCE_OPTIONS.update(options)


def run_config(corpus_name, label, options):
    from structpred.cli import main as structpred_main

    from alignment.data.formats import read_parallel, read_pharaoh
    from alignment.evaluate.aer import sentence_counts

    set_source_options(options)
    corpus = load_corpus(corpus_name)
    d = ROOT / "runs" / "align_default" / corpus_name
    files = write_splits(corpus, d)
    OUT.mkdir(parents=True, exist_ok=True)
    model, links = OUT / f"{corpus_name}-{label}.npz", OUT / f"{corpus_name}-{label}.valid.links"
    tr, va = files["train"], files["valid"]
    t0 = time.perf_counter()
    rc = structpred_main(["align", "train", "--src", str(tr["src"]), "--tgt", str(tr["tgt"]),
                          "--gold", str(tr["gold"]), "--valid-src", str(va["src"]),
                          "--valid-tgt", str(va["tgt"]), "--valid-gold", str(va["gold"]),
                          "--bitext-src", str(corpus.src_path),
                          "--bitext-tgt", str(corpus.tgt_path), "--c-neg", "3", "--model", "M",
                          "-o", str(model)])
    t_train = time.perf_counter() - t0
    if rc:
        raise SystemExit(f"align train failed ({rc})")
    rc = structpred_main(["align", "predict", "-m", str(model), "--src", str(va["src"]),
                          "--tgt", str(va["tgt"]), "-o", str(links)])
    if rc:
        raise SystemExit(f"align predict failed ({rc})")
    pairs = read_parallel(va["src"], va["tgt"])
    counts = sentence_counts(read_pharaoh(links, pairs), read_pharaoh(va["gold"], pairs))
    from structpred.io import load_npz

    meta, _ = load_npz(model, "structpred-matching-aligner", (2, 3, 4), "a model")
    run = ((meta.get("aligners") or {}).get("runs") or {}).get("bayes", {})
    bayes_secs = None
    if run.get("path") and (Path(run["path"]) / "meta.json").exists():
        m = json.loads((Path(run["path"]) / "meta.json").read_text())
        bayes_secs = [round(m["seconds"], 1), round(m.get("cpu_seconds", 0.0), 1)]
    c = counts.sum(0)
    aer = 100 * (1 - (c[3] + c[4]) / (c[0] + c[1]))
    rec = {"corpus": corpus_name, "label": label, "options": options,
           "valid_aer": round(float(aer), 3), "train_seconds": round(t_train, 1),
           "bayes_run_wall_cpu": bayes_secs, "counts": counts.tolist()}
    (OUT / f"{corpus_name}-{label}.json").write_text(json.dumps(rec) + "\n")
    print(json.dumps({k: v for k, v in rec.items() if k != "counts"}), flush=True)


def report():
    import numpy as np

    from alignment.evaluate.aer import paired_bootstrap

    lines = ["| corpus | configuration | bayes options | validation AER (%) | vs base: points "
             "[95 %], share of resamples worse than base | align train (s) | bayes run "
             "wall / CPU (s) |", "|---|---|---|---:|---|---:|---|"]
    for corpus in ("hansards", "czech"):
        recs = {json.loads(p.read_text())["label"]: json.loads(p.read_text())
                for p in sorted(OUT.glob(f"{corpus}-*.json"))}
        base = recs.get("base")
        for label, r in sorted(recs.items(), key=lambda kv: kv[0] != "base"):
            vs = "-"
            if base is not None and label != "base":
                b = paired_bootstrap(np.array(base["counts"]), np.array(r["counts"]),
                                     n_boot=10000, random_state=0)
                worse = 1.0 - paired_bootstrap(np.array(r["counts"]), np.array(base["counts"]),
                                               n_boot=10000, random_state=0).p_not_better
                vs = (f"{100 * b.difference:+.2f} [{100 * b.interval[0]:+.2f}, "
                      f"{100 * b.interval[1]:+.2f}], {worse:.3f}")
            w = r["bayes_run_wall_cpu"]
            lines.append(f"| {corpus} | {label} | `{json.dumps(r['options'])}` | "
                         f"{r['valid_aer']:.2f} | {vs} | {r['train_seconds']:.0f} | "
                         f"{'-' if not w else f'{w[0]:.0f} / {w[1]:.0f}'} |")
    text = "\n".join(lines)
    (OUT / "report.md").write_text(text + "\n")
    print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["hansards", "czech"])
    ap.add_argument("--label", default="base")
    ap.add_argument("--bayes", default="{}", help="JSON dict of BayesianAligner options")
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args()
    if args.report:
        report()
        return
    if not args.corpus:
        ap.error("--corpus is needed (or --report)")
    run_config(args.corpus, args.label, json.loads(args.bayes))


if __name__ == "__main__":
    main()
