"""Choose the decoding of ``structpred align unsupervised`` on tuning gold only.

    python scripts/tune_unsupervised.py --corpus hansards [--prefix 0] [--no-lowercase]
    python scripts/tune_unsupervised.py --corpus czech --prefix 5

Trains the HMM by agreement on the whole bitext of the corpus (cached in
``.cache/unsupervised``), computes the link posteriors of the gold sentences, and for
every threshold, symmetrisation and eflomal weight (eflomal's cached links from
``.cache/aligners``; weight 0 = the HMM alone) prints AER on each split of
``scripts/czech_protocol.py``.  Choose on ``tune`` (Hansards trial, Czech dev 1-400)
only; the other columns are for the report.  ``--json FILE`` keeps every row.

    python scripts/tune_unsupervised.py --select H.json C.json [H2.json C2.json ...]

ranks the settings of the saved runs by the mean of their ``tune`` AERs over the files
of one model configuration (pairs of Hansards and Czech runs with the same options),
the rule the subcommand's defaults were chosen by.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from czech_protocol import ROOT, load_corpus, score  # noqa: E402

from alignment.aligners.unsupervised import SYMMETRIZE, UnsupervisedAligner, combine_votes, decode  # noqa: E402

THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def eflomal_links(corpus, lines, replicate=0):
    """eflomal's ``(fwd, bwd)`` links of ``lines`` from the cache (None if not cached)."""
    from alignment.aligners.runs import (ALIGNERS, _entry_dir, _version, bitext_fingerprint,
                                         load_run, run_fingerprint)

    fp = run_fingerprint("eflomal", dict(ALIGNERS["eflomal"].defaults),
                         bitext_fingerprint(corpus.src, corpus.tgt), _version("eflomal"),
                         replicate)
    path = _entry_dir(ROOT / ".cache" / "aligners", "eflomal", fp)
    if not (path / "meta.json").exists():
        return None
    run = load_run(path)
    return {i: (f, b) for i, f, b in zip(lines, run.links("fwd", lines), run.links("bwd", lines))}


def select(files, top=15):
    """Rank (configuration, eflomal weight, decoding, threshold) by the mean tune AER over
    the corpora of each configuration (a configuration = HMM iterations, case, prefix)."""
    by_conf = {}
    for f in files:
        with open(f) as fh:
            run = json.load(fh)
        a = run["args"]
        conf = (a["hmm_iterations"], not a["no_lowercase"], a["prefix"])
        for r in run["rows"]:
            if r["threshold"] is None:
                continue
            key = conf + (r["weight"], r["sym"], r["threshold"])
            by_conf.setdefault(key, {})[a["corpus"]] = r
    rows = []
    for key, per in by_conf.items():
        if len(per) < 2:
            continue
        rows.append((sum(r["tune"] for r in per.values()) / len(per), key, per))
    rows.sort(key=lambda x: x[0])
    for w0 in sorted({k[3] for _, k, _ in rows}):
        print(f"\neflomal weight {w0}:")
        print("| HMM it. | lower-case | prefix | decoding | threshold | mean tune AER | "
              "Hansards tune / test | Czech tune / test |")
        print("|---:|---|---:|---|---:|---:|---|---|")
        for mean, key, per in [x for x in rows if x[1][3] == w0][:top]:
            h, c = per["hansards"], per["czech"]
            print(f"| {key[0]} | {key[1]} | {key[2]} | {key[4]} | {key[5]} | {mean:.2f} | "
                  f"{h['tune']:.2f} / {h['test']:.2f} | {c['tune']:.2f} / {c['test']:.2f} |")


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--select":
        return select(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=["hansards", "czech"], default="hansards")
    ap.add_argument("--hmm-iterations", type=int, default=5)
    ap.add_argument("--no-lowercase", action="store_true")
    ap.add_argument("--prefix", type=int, default=0)
    ap.add_argument("--weights", default="0,0.25,0.5,0.75")
    ap.add_argument("--replicate", type=int, default=0, help="eflomal run to combine with")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    corpus = load_corpus(args.corpus)
    model = UnsupervisedAligner(hmm_iterations=args.hmm_iterations,
                                lowercase=not args.no_lowercase, prefix=args.prefix,
                                verbose=True)
    t0 = time.perf_counter()
    model.fit([s.split() for s in corpus.src], [t.split() for t in corpus.tgt],
              cache_dir=ROOT / ".cache" / "unsupervised")
    print(f"trained in {time.perf_counter() - t0:.0f}s {model.seconds_}", file=sys.stderr)
    lines = sorted(corpus.gold)
    post = {i: model.posteriors(corpus.src[i].split(), corpus.tgt[i].split()) for i in lines}
    ef = eflomal_links(corpus, lines, args.replicate)
    weights = [float(w) for w in args.weights.split(",")]
    if ef is None:
        print("eflomal's links are not cached yet: HMM alone", file=sys.stderr)
        weights = [0.0]
    splits = list(corpus.splits)
    rows = []
    for w in weights:
        mixed = {i: (combine_votes(pf, ef[i][0], w), combine_votes(pb, ef[i][1], w))
                 if w else (pf, pb) for i, (pf, pb) in post.items()}
        for sym in ("fwd", "bwd") + SYMMETRIZE:
            for t in THRESHOLDS:
                kw = {"direction": sym} if sym in ("fwd", "bwd") else {"symmetrize": sym}
                links = {i: decode(pf, pb, t, **kw)[0] for i, (pf, pb) in mixed.items()}
                sc = {s: score(corpus, links, s) for s in splits}
                rows.append({"weight": w, "sym": sym, "threshold": t,
                             **{s: 100 * v.aer for s, v in sc.items()},
                             **{f"{s}_p": 100 * v.precision for s, v in sc.items()},
                             **{f"{s}_r": 100 * v.recall for s, v in sc.items()}})
    if ef is not None:
        from alignment.aligners.symmetrize import symmetrize

        for sym in ("intersection", "grow-diag-final-and"):
            links = {i: symmetrize(f, b, sym) for i, (f, b) in ef.items()}
            sc = {s: score(corpus, links, s) for s in splits}
            rows.append({"weight": 1.0, "sym": f"eflomal {sym}", "threshold": None,
                         **{s: 100 * v.aer for s, v in sc.items()}})
    rows.sort(key=lambda r: r["tune"])
    print("| eflomal weight | decoding | threshold | " + " | ".join(splits) + " |")
    print("|---:|---|---:|" + "---:|" * len(splits))
    for r in rows[:25] + [r for r in rows if r["threshold"] is None]:
        print(f"| {r['weight']} | {r['sym']} | {r['threshold']} | "
              + " | ".join(f"{r[s]:.2f}" for s in splits) + " |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump({"args": vars(args), "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
