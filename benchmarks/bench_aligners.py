"""Unsupervised aligners side by side: eflomal, fast_align and ours, time and AER.

    python benchmarks/bench_aligners.py                      # Hansards, 231,648 pairs
    python benchmarks/bench_aligners.py --corpus czech       # Czech-English, 12,500 pairs
    python benchmarks/bench_aligners.py --eflomal-runs 3 --priors --json runs/bench.json

Every aligner is trained on the whole bitext of the corpus (which holds the gold
sentences; no gold is seen) and scored on the test split of
``scripts/czech_protocol.py`` (Hansards: the last 247 test sentences; Czech: dev
sentences 601-800), with the tuning split (Hansards trial, Czech dev 1-400) as a second
column.  Runs are cached (``.cache/aligners`` for eflomal and fast_align,
``.cache/unsupervised`` for our HMM): a cached run reports the wall and CPU time it took
when it was made (``--fresh`` reruns everything).  Ours also reports the time to decode
every bitext pair (what ``structpred align unsupervised`` does on the same input).

* ``--eflomal-runs K``: K independent eflomal runs (eflomal has no seed); the table gets
  the spread of their intersection AER, and our ``--with eflomal`` rows use run 1.
* ``--pipeline``: the whole supervised pipeline from an empty cache, with the commands a
  user runs: ``structpred align train`` with data arguments only (statistics, our HMM and
  our Bayesian aligner on the bitext, training on the gold training split with
  validation) and ``structpred align predict --jobs 2`` on *every* bitext pair; the eflomal
  and fast_align rows are then timed on their own, in the same run (from the same empty
  cache).  Files go to ``runs/bench_pipeline/<corpus>/`` (``pipeline.log`` holds the
  commands' progress lines, with each stage's time).
* ``--priors``: eflomal trained on the bitext *without* the gold sentences, its priors
  (``eflomal-makepriors``) then used to align only the gold sentences
  (:func:`alignment.aligners.runs.align_with_priors`), against the full run.

Prints a markdown table (and ``--json FILE`` keeps the figures).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from czech_protocol import ROOT, load_corpus, score  # noqa: E402

from alignment.aligners.runs import align_with_priors, available_aligners, run_aligner  # noqa: E402
from alignment.aligners.unsupervised import DEFAULTS, UnsupervisedAligner, combine_votes, decode  # noqa: E402

#: gold lines the "new sentences" of --priors are; the priors' run leaves them out
PRIORS_HOLDOUT = {"hansards": 484, "czech": 800}


def _row(name, corpus, links, secs=None, cpu=None, note=""):
    tune = score(corpus, links, "tune")
    test = score(corpus, links, "test")
    return {"system": name, "tune_aer": 100 * tune.aer, "precision": 100 * test.precision,
            "recall": 100 * test.recall, "aer": 100 * test.aer, "seconds": secs,
            "cpu_seconds": cpu, "note": note}


def _fmt(x, nd=1):
    return "" if x is None else f"{x:.{nd}f}"


def bench_pipeline(corpus, args, rows, extra):
    """``align train`` (default) + ``align predict`` on all bitext pairs, from an empty
    cache; returns the cache folder of the aligners it ran."""
    import resource
    import shutil

    from eval_align_default import SPLITS, run, write_splits

    out = ROOT / "runs" / "bench_pipeline" / corpus.name
    cache = out / "cache"
    if cache.exists():
        shutil.rmtree(cache)
    files = write_splits(corpus, out)
    log = out / "pipeline.log"
    log.unlink(missing_ok=True)
    sp = [sys.executable, "-m", "structpred"]
    tr, va = files["train"], files["valid"]
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, t_train = run(sp + ["align", "train", "--src", str(tr["src"]), "--tgt", str(tr["tgt"]),
                           "--gold", str(tr["gold"]), "--valid-src", str(va["src"]),
                           "--valid-tgt", str(va["tgt"]), "--valid-gold", str(va["gold"]),
                           "--bitext-src", str(corpus.src_path),
                           "--bitext-tgt", str(corpus.tgt_path),
                           "--stats", str(cache / "stats") + "/", "--cache-dir", str(cache),
                           "-o", str(out / "model.npz")], log)
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    links_path = out / "all.links"
    _, t_pred = run(sp + ["align", "predict", "-m", str(out / "model.npz"),
                          "--src", str(corpus.src_path), "--tgt", str(corpus.tgt_path),
                          "--jobs", "2", "-o", str(links_path)], log)
    cpu2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    from alignment.data.formats import read_pharaoh

    pred = read_pharaoh(links_path)
    if len(pred) != len(corpus.src):
        raise SystemExit(f"{links_path}: {len(pred)} lines for {len(corpus.src)} pairs")
    links = {i: pred[i] for i in sorted(corpus.gold)}
    cpu = lambda a, b: (b.ru_utime + b.ru_stime) - (a.ru_utime + a.ru_stime)  # noqa: E731
    text = log.read_text()
    trained = [ln for ln in text.splitlines() if ln.startswith("trained model")]
    n_train = len(SPLITS[corpus.name]["train"])
    rows.append(_row(f"**ours: align train default ({n_train} gold sentences) + align "
                     f"predict on all {len(corpus.src):,} pairs**", corpus, links,
                     t_train + t_pred, cpu(cpu0, cpu2),
                     f"train {t_train:.0f}s (statistics, our HMM, our Bayesian aligner and "
                     f"{trained[0].split(' in ')[1].split('s ')[0] if trained else '?'}s of "
                     f"training), predict {t_pred:.0f}s = "
                     f"{len(corpus.src) / t_pred:.0f} pairs/s (model loading included)"))
    extra["pipeline"] = {"train_seconds": t_train, "predict_seconds": t_pred,
                         "train_cpu": cpu(cpu0, cpu1), "predict_cpu": cpu(cpu1, cpu2),
                         "summary": [ln for ln in text.splitlines()
                                     if ln.startswith(("trained model", "c-:", "aligners as",
                                                       "statistics:"))]}
    return cache / "aligners"


def bench_external(corpus, args, rows, extra, cache=None):
    gold = sorted(corpus.gold)
    if cache is None:
        cache = None if args.fresh else ROOT / ".cache" / "aligners"
    have = available_aligners()
    ef_runs = []
    if "eflomal" in have:
        for r in range(args.eflomal_runs):
            t0 = time.perf_counter()
            run = run_aligner("eflomal", corpus.src, corpus.tgt, cache_dir=cache, replicate=r,
                              verbose=args.verbose)
            ef_runs.append(run)
            print(f"eflomal run {r + 1}: {run.seconds:.0f}s"
                  f"{' (cached)' if run.from_cache else ''}, {time.perf_counter() - t0:.0f}s now",
                  file=sys.stderr)
        run = ef_runs[0]
        cpu = run.meta.get("cpu_seconds")
        for view in ("intersection", "grow-diag-final-and", "fwd", "bwd"):
            links = dict(zip(gold, run.links(view, gold)))
            rows.append(_row(f"eflomal {view}", corpus, links, run.seconds, cpu,
                             f"eflomal {run.version}, {run.options['n_samplers']} samplers, "
                             "run 1"))
        if len(ef_runs) > 1:
            a = [100 * score(corpus, dict(zip(gold, r.links("intersection", gold))), "test").aer
                 for r in ef_runs]
            g = [100 * score(corpus, dict(zip(gold, r.links("grow-diag-final-and", gold))),
                             "test").aer for r in ef_runs]
            extra["eflomal_spread"] = {"intersection_test_aer": a, "min": min(a), "max": max(a),
                                       "mean": float(np.mean(a)), "std": float(np.std(a, ddof=1)),
                                       "gdfa_test_aer": g,
                                       "seconds": [r.seconds for r in ef_runs],
                                       "cpu_seconds": [r.meta.get("cpu_seconds")
                                                       for r in ef_runs]}
    if "fast_align" in have and "fast_align" not in args.skip.split(","):
        run = run_aligner("fast_align", corpus.src, corpus.tgt, cache_dir=cache,
                          refresh="fast_align" in args.refresh, verbose=args.verbose)
        rows.append(_row("fast_align (systran-align, symmetrised)", corpus,
                         dict(zip(gold, run.links("sym", gold))), run.seconds,
                         run.meta.get("cpu_seconds"), f"systran-align {run.version}"))
    return ef_runs


def bench_priors(corpus, args, rows, extra, full_run):
    """eflomal on the bitext without the gold lines, then only the gold lines with its
    priors, against the full run."""
    h = PRIORS_HOLDOUT[corpus.name]
    cache = ROOT / ".cache" / "aligners"
    t0 = time.perf_counter()
    train = run_aligner("eflomal", corpus.src[h:], corpus.tgt[h:], cache_dir=cache,
                        verbose=args.verbose)
    pri = train.priors_file(corpus.src[h:], corpus.tgt[h:], verbose=True)
    gold = sorted(corpus.gold)
    res = []
    for r in range(args.priors_runs):
        new = align_with_priors([corpus.src[i] for i in gold], [corpus.tgt[i] for i in gold],
                                pri, cache_dir=cache, replicate=r, verbose=args.verbose)
        links = dict(zip(gold, new.links("intersection")))
        res.append((new, _row(f"eflomal intersection, new sentences with priors (run {r + 1})",
                              corpus, links, new.seconds, new.meta.get("cpu_seconds"),
                              f"priors from eflomal on bitext lines {h + 1}+ "
                              f"({train.seconds:.0f}s); {len(gold)} sentences aligned")))
        for view in ("grow-diag-final-and",):
            res[-1][1].setdefault("other", {})[view] = 100 * score(
                corpus, dict(zip(gold, new.links(view))), "test").aer
    rows.extend(r for _, r in res)
    # the same sentences aligned by eflomal alone, without priors (what the priors add)
    alone = run_aligner("eflomal", [corpus.src[i] for i in gold], [corpus.tgt[i] for i in gold],
                        cache_dir=cache, verbose=args.verbose)
    rows.append(_row("eflomal intersection, new sentences alone (no priors)", corpus,
                     dict(zip(gold, alone.links("intersection"))), alone.seconds,
                     alone.meta.get("cpu_seconds"), f"{len(gold)} sentences"))
    # ours: trained on the same lines as the priors' run, then applied to the new sentences
    model = UnsupervisedAligner(hmm_iterations=args.hmm_iterations, prefix=args.prefix,
                                lowercase=not args.no_lowercase, verbose=args.verbose)
    model.fit([s.split() for s in corpus.src[h:]], [t.split() for t in corpus.tgt[h:]],
              cache_dir=ROOT / ".cache" / "unsupervised")
    t1, c1 = time.perf_counter(), time.process_time()
    links = {i: decode(*model.posteriors(corpus.src[i].split(), corpus.tgt[i].split()),
                       threshold=args.threshold, symmetrize=args.symmetrize)[0] for i in gold}
    sec = model.seconds_
    rows.append(_row(f"ours, new sentences with the model trained on lines {h + 1}+", corpus,
                     links, time.perf_counter() - t1, time.process_time() - c1,
                     f"{args.symmetrize} at {args.threshold}; training on lines {h + 1}+ took "
                     f"{sec.get('ibm', 0) + sec.get('hmm', 0):.0f}s; time: decoding only"))
    a = [r["aer"] for _, r in res]
    extra["priors"] = {"train_seconds": train.seconds, "new_aer": a,
                       "new_seconds": [n.seconds for n, _ in res],
                       "full_run_aer": None if full_run is None else 100 * score(
                           corpus, dict(zip(gold, full_run.links("intersection", gold))),
                           "test").aer}
    print(f"priors: {time.perf_counter() - t0:.0f}s", file=sys.stderr)


def bench_ours(corpus, args, rows, ef_run):
    gold = sorted(corpus.gold)
    model = UnsupervisedAligner(hmm_iterations=args.hmm_iterations, prefix=args.prefix,
                                lowercase=not args.no_lowercase, verbose=args.verbose)
    src = [s.split() for s in corpus.src]
    tgt = [t.split() for t in corpus.tgt]
    cache = ROOT / ".cache" / "unsupervised"
    if "ours" in args.refresh:      # retrain (and re-time), replacing the cached model
        cached = cache / f"hmm-{model.fingerprint(src, tgt)}.npz"
        for f in (cached, Path(str(cached) + ".json")):
            f.unlink(missing_ok=True)
    model.fit(src, tgt, cache_dir=None if args.fresh else cache)
    sec = model.seconds_
    train_s = sec.get("ibm", 0) + sec.get("hmm", 0)
    dec_s = dec_cpu = None
    if not args.no_decode_all:      # what the subcommand does on the same input
        t0, c0 = time.perf_counter(), time.process_time()
        for s, t in zip(src, tgt):
            decode(*model.posteriors(s, t), threshold=args.threshold, symmetrize=args.symmetrize)
        dec_s, dec_cpu = time.perf_counter() - t0, time.process_time() - c0
    post = {i: model.posteriors(src[i], tgt[i]) for i in gold}
    tot = None if dec_s is None else train_s + dec_s
    tot_cpu = None if dec_cpu is None or "cpu" not in sec else sec["cpu"] + dec_cpu
    opts = (f"{args.hmm_iterations} HMM it., {'cased' if args.no_lowercase else 'lower-cased'}"
            f"{f', prefix {args.prefix}' if args.prefix else ''}")
    note = (f"{opts}; train {train_s:.0f}s"
            + ("" if dec_s is None else f" + decode all {len(src)} pairs {dec_s:.0f}s")
            + (" (training cached)" if sec.get("cached") else ""))
    for sym, t in ((args.symmetrize, args.threshold), ("grow-diag-final-and", 0.5)):
        links = {i: decode(pf, pb, t, sym)[0] for i, (pf, pb) in post.items()}
        rows.append(_row(f"ours: HMM by agreement, {sym} at {t}", corpus, links, tot,
                         tot_cpu, note))
    if ef_run is not None:
        w, t = args.eflomal_weight, args.eflomal_threshold
        ef = {i: (f, b) for i, f, b in zip(gold, ef_run.links("fwd", gold),
                                           ef_run.links("bwd", gold))}
        links = {i: decode(combine_votes(pf, ef[i][0], w), combine_votes(pb, ef[i][1], w), t,
                           args.symmetrize)[0] for i, (pf, pb) in post.items()}
        both = None if tot is None else tot + ef_run.seconds
        ef_cpu = ef_run.meta.get("cpu_seconds")
        both_cpu = None if tot_cpu is None or ef_cpu is None else tot_cpu + ef_cpu
        rows.append(_row(f"ours --with eflomal (weight {w}), {args.symmetrize} at {t}", corpus,
                         links, both, both_cpu, "time: ours + eflomal run 1"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=["hansards", "czech"], default="hansards")
    ap.add_argument("--eflomal-runs", type=int, default=1)
    ap.add_argument("--pipeline", action="store_true",
                    help="time the whole supervised pipeline from an empty cache (see above)")
    ap.add_argument("--priors", action="store_true")
    ap.add_argument("--priors-runs", type=int, default=1)
    ap.add_argument("--fresh", action="store_true", help="ignore the caches (rerun and time)")
    ap.add_argument("--refresh", default="",
                    help="comma-separated among fast_align, ours: rerun (and re-time) these, "
                         "replacing their cache entries (eflomal's runs are kept: their links "
                         "are what the defaults were tuned with)")
    ap.add_argument("--hmm-iterations", type=int, default=DEFAULTS["hmm_iterations"])
    ap.add_argument("--prefix", type=int, default=None,
                    help="default: the subcommand's default for the corpus' pair (see the doc)")
    ap.add_argument("--no-lowercase", action="store_true")
    ap.add_argument("--threshold", type=float, default=DEFAULTS["threshold"])
    ap.add_argument("--symmetrize", default=DEFAULTS["symmetrize"])
    ap.add_argument("--eflomal-weight", type=float, default=DEFAULTS["eflomal_weight"])
    ap.add_argument("--eflomal-threshold", type=float, default=DEFAULTS["eflomal_threshold"])
    ap.add_argument("--no-decode-all", action="store_true",
                    help="skip timing our decoding of every bitext pair")
    ap.add_argument("--skip", default="",
                    help="comma-separated: external (eflomal and fast_align), fast_align, ours")
    ap.add_argument("--json", default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.prefix is None:
        args.prefix = DEFAULTS["prefix"]
    skip = set(filter(None, args.skip.split(",")))
    t0 = time.perf_counter()
    corpus = load_corpus(args.corpus)
    rows, extra = [], {}
    ef_cache = bench_pipeline(corpus, args, rows, extra) if args.pipeline else None
    ef_runs = (bench_external(corpus, args, rows, extra, ef_cache)
               if "external" not in skip else [])
    if "pipeline" in extra and ef_runs and not ef_runs[0].from_cache:
        p, ef = extra["pipeline"], ef_runs[0]      # issue 31: at most twice eflomal alone
        p["eflomal_seconds"], p["eflomal_cpu"] = ef.seconds, ef.meta.get("cpu_seconds")
        p["ratio_to_eflomal"] = (p["train_seconds"] + p["predict_seconds"]) / ef.seconds
    if args.priors and "eflomal" in available_aligners():
        bench_priors(corpus, args, rows, extra, ef_runs[0] if ef_runs else None)
    if "ours" not in skip:
        bench_ours(corpus, args, rows, ef_runs[0] if ef_runs else None)
    test = {"hansards": "last 247 Hansards test sentences",
            "czech": "Czech dev sentences 601-800"}[args.corpus]
    tune = {"hansards": "37 trial sentences", "czech": "dev 1-400"}[args.corpus]
    print(f"\n{args.corpus}: {len(corpus.src):,} bitext pairs; test = {test}, "
          f"tune = {tune}; {platform.machine()}, {time.strftime('%Y-%m-%d')}\n")
    print("| system | tune AER | test P | test R | test AER | wall (s) | CPU (s) | notes |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['system']} | {r['tune_aer']:.2f} | {r['precision']:.1f} | "
              f"{r['recall']:.1f} | **{r['aer']:.2f}** | {_fmt(r['seconds'], 0)} | "
              f"{_fmt(r['cpu_seconds'], 0)} | {r['note']} |")
    if "eflomal_spread" in extra:
        s = extra["eflomal_spread"]
        print(f"\neflomal intersection over {len(s['intersection_test_aer'])} runs: "
              + ", ".join(f"{a:.2f}" for a in s["intersection_test_aer"])
              + f" (mean {s['mean']:.2f}, std {s['std']:.2f}, range {s['max'] - s['min']:.2f});"
              " grow-diag-final-and " + ", ".join(f"{a:.2f}" for a in s["gdfa_test_aer"])
              + "; wall / CPU seconds per run: "
              + ", ".join(f"{w:.0f} / {_fmt(c, 0) or 'n/a'}"
                          for w, c in zip(s["seconds"], s["cpu_seconds"])))
    if "priors" in extra:
        p = extra["priors"]
        print("\neflomal with priors, new sentences only: intersection test AER "
              + ", ".join(f"{a:.2f}" for a in p["new_aer"])
              + f" ({', '.join(f'{s:.0f}s' for s in p['new_seconds'])}); full re-run "
              f"{_fmt(p['full_run_aer'], 2)}")
    if "pipeline" in extra:
        p = extra["pipeline"]
        print(f"\npipeline: align train {p['train_seconds']:.0f}s wall / {p['train_cpu']:.0f}s "
              f"CPU, align predict {p['predict_seconds']:.0f}s wall / {p['predict_cpu']:.0f}s "
              "CPU; " + "; ".join(p["summary"]))
        if "ratio_to_eflomal" in p:
            print(f"pipeline / eflomal alone (wall): {p['ratio_to_eflomal']:.2f} "
                  f"(eflomal {p['eflomal_seconds']:.0f}s wall / "
                  f"{_fmt(p['eflomal_cpu'], 0) or 'n/a'}s CPU)")
    print(f"\n(bench wall time {time.perf_counter() - t0:.0f}s)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump({"args": vars(args), "rows": rows, **extra}, fh, indent=1)


if __name__ == "__main__":
    main()
