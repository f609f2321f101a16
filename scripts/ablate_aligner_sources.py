"""What each feature source of ``align train`` adds (issue 31, point 3).

Runs the commands of ``scripts/eval_align_default.py`` (the protocols of the alignment
results page: Hansards train on the first 100 gold sentences, validate on trial, test on the
last 247; Czech train on dev 1-400, validate on 401-600, test on 601-800) one after
another, for these rows:

* ``thesis``: the thesis's features (``--preset thesis``);
* ``hmm``: + our HMM (``--aligners none``);
* ``bayes``: + our Bayesian aligner (the default);
* ``bayes+eflomal``: ``--aligners bayes,eflomal``;
* ``bayes+eflomal+fast_align``: ``--aligners auto`` (with both installed).

Each finished row is kept in ``runs/ablate_sources/<corpus>.jsonl`` and not run again
(the script resumes after an interruption); the aligners' runs are cached in ``.cache``
as ``align train`` does.  Every row records the wall time of ``align train`` and
``align predict`` and, from the cache entries the model names, the time of each aligner
run it used (made once, by the first row that needed it).  At the end the rows are written
to ``runs/ablate_sources/ablation.json`` and as a markdown table to
``runs/ablate_sources/ablation.md``, each row with the paired bootstrap of its test AER
against the row before it (:func:`alignment.evaluate.aer.paired_bootstrap`, 10,000
resamples of the test sentences, seeded): the difference in AER points (positive: this row
is better), its 95 % interval and the share of resamples in which it is not better.

Usage::

    python scripts/ablate_aligner_sources.py --corpus hansards
    python scripts/ablate_aligner_sources.py --corpus both --rows thesis,hmm,bayes
    python scripts/ablate_aligner_sources.py --report      # the tables of the rows done
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from eval_align_default import evaluate  # noqa: E402

ROWS = {"thesis": "--preset thesis", "hmm": "--aligners none", "bayes": "",
        "bayes+eflomal": "--aligners bayes,eflomal",
        "bayes+eflomal+fast_align": "--aligners bayes,eflomal,fast_align",
        "hmm+eflomal+fast_align": "--aligners eflomal,fast_align"}
DEFAULT_ROWS = ("thesis", "hmm", "bayes", "bayes+eflomal", "bayes+eflomal+fast_align")
OUT = ROOT / "runs" / "ablate_sources"


def _run_seconds(model_path):
    """``{source: (wall s, cpu s)}`` of the aligner runs the model names (their cache
    entries' ``meta.json``)."""
    from structpred.io import load_npz

    meta, _ = load_npz(model_path, "structpred-matching-aligner", (2, 3, 4), "a model")
    runs = ((meta.get("aligners") or {}).get("runs")) or {}
    out = {}
    for name, rec in runs.items():
        p = Path(rec["path"]) / "meta.json"
        if p.exists():
            m = json.loads(p.read_text())
            out[name] = [round(m["seconds"], 1), round(m.get("cpu_seconds", 0.0), 1)]
    return out


def _aer(row):
    """The AER (%) in ``structpred aer``'s line."""
    m = re.search(r"AER\D*?([0-9]+\.[0-9]+)", row["aer_line"])
    return float(m.group(1)) if m else None


def run_rows(corpus, rows):
    OUT.mkdir(parents=True, exist_ok=True)
    done_file = OUT / f"{corpus}.jsonl"
    done = {}
    if done_file.exists():
        for ln in done_file.read_text().splitlines():
            r = json.loads(ln)
            done[r["row"]] = r
    for name in rows:
        if name in done:
            print(f"{corpus} {name}: done before ({done[name]['aer']})", flush=True)
            continue
        label = "ablate-" + name.replace("+", "-")
        r = evaluate(corpus, ROWS[name], label, sys.executable)
        r["row"] = name
        r["aer"] = _aer(r)
        r["aligner_runs"] = _run_seconds(ROOT / "runs" / "align_default" / corpus
                                         / f"{label}.npz")
        with open(done_file, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(r) + "\n")
        done[name] = r
    return [done[n] for n in rows if n in done]


def _bootstrap(results):
    """Each row's paired bootstrap against the row before it on the same corpus (from the
    links files and the gold of ``runs/align_default/<corpus>/``)."""
    from alignment.data.formats import read_pharaoh, read_parallel
    from alignment.evaluate.aer import paired_bootstrap, sentence_counts

    counts, prev = {}, {}
    for r in results:
        d = ROOT / "runs" / "align_default" / r["corpus"]
        if r["corpus"] not in counts:
            pairs = read_parallel(d / "test.src", d / "test.tgt")
            counts[r["corpus"]] = (pairs, read_pharaoh(d / "test.gold", pairs))
        pairs, gold = counts[r["corpus"]]
        label = "ablate-" + r["row"].replace("+", "-")
        c = sentence_counts(read_pharaoh(d / f"{label}.test.links", pairs), gold)
        before = prev.get(r["corpus"])
        if before is not None:
            b = paired_bootstrap(before, c, n_boot=10000, random_state=0)
            r["vs_previous"] = [round(100 * b.difference, 2),
                                [round(100 * x, 2) for x in b.interval],
                                round(b.p_not_better, 4)]
        prev[r["corpus"]] = c


def table(results):
    head = ("| row (`align train` options) | corpus | test AER (%) | vs the row before: "
            "points [95 %], P(not better) | train (s) | predict (s) "
            "| aligner runs: wall / CPU (s) |\n|---|---|---:|---|---:|---:|---|")
    body = []
    for r in results:
        runs = ", ".join(f"{k} {w:g} / {c:g}" for k, (w, c) in r["aligner_runs"].items())
        vs = "-"
        if r.get("vs_previous"):
            d, (lo, hi), p = r["vs_previous"]
            vs = f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}], {p:.3f}"
        body.append(f"| {r['row']} (`{r['train_args'] or 'default'}`) | {r['corpus']} | "
                    f"{r['aer']:.2f} | {vs} | {r['train_seconds']:.0f} | "
                    f"{r['predict_seconds']:.0f} | {runs or '-'} |")
    return "\n".join([head] + body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["hansards", "czech", "both"], default="both")
    ap.add_argument("--rows", default=",".join(DEFAULT_ROWS),
                    help=f"comma-separated rows of {', '.join(ROWS)}")
    ap.add_argument("--report", action="store_true",
                    help="run nothing: write the tables of the rows done so far")
    args = ap.parse_args()
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    bad = [r for r in rows if r not in ROWS]
    if bad:
        ap.error(f"unknown row {bad[0]!r}; known: {', '.join(ROWS)}")
    corpora = ["hansards", "czech"] if args.corpus == "both" else [args.corpus]
    for c in corpora if not args.report else ():
        run_rows(c, rows)
    results = []     # every corpus run so far, in row order
    for c in ("hansards", "czech"):
        f = OUT / f"{c}.jsonl"
        if f.exists():
            got = {r["row"]: r for r in map(json.loads, f.read_text().splitlines())}
            results += [got[n] for n in ROWS if n in got]
    _bootstrap(results)
    (OUT / "ablation.json").write_text(json.dumps(results, indent=1) + "\n")
    md = table(results)
    (OUT / "ablation.md").write_text(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
