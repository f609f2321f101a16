"""Reproduce the paMedLDA experiments of Shi & Zhu (ICML 2014) on 20 Newsgroups.

Parts (``--parts``, default all):

* ``curve``  -- one pass of paMedLDA (:class:`topics.bayespa.PaMedLDA`, native
  ``partial_fit`` on mini-batches of ``--batch-size`` documents of a random permutation of the
  training set): test accuracy against the number of documents seen (fig. 1 of the paper,
  left), with the cumulative update time; the Gibbs classifier (one ``w^ ~ N(mu, Sigma)``) and
  the averaging classifier (``mu``) from the same fold-in.
* ``gmedlda`` -- batch gMedLDA (:class:`topics.medlda.GibbsMedLDA` with its defaults and
  ``n_topics = --k``) on the same vocabulary and split: accuracy and training time.
* ``table``  -- the (J, beta) grid of the paper's Table 1 (``K = 40``, ``|B| = 512``, one pass,
  ``I = 1``): test accuracy and update time for every pair (``--table-j`` limits the J values).

Prior scale: ``--v 10`` by default (the paper's ``v = 1`` collapses the topics on this data;
chosen on a held-out part of the training set, see :mod:`topics.bayespa`).
Times: ``partial_fit`` / ``fit`` only, after a warm-up fit that loads numba's compiled kernels;
both wall-clock and process CPU time are reported, and the speed target is judged on CPU time
(the machine's cores are shared, so wall-clock time depends on the load).
Vocabulary: words in at least ``--min-df`` training documents after the 318-word stop list
(the same as ``scripts/reproduce_medlda.py``); Subject line kept, other headers dropped;
standard bydate split (11,314 / 7,532; the paper used 11,269 / 7,505).  Update times count
``partial_fit`` only (not the test-set evaluations).

    python scripts/reproduce_bayespa.py                       # everything, K = 40, |B| = 512
    python scripts/reproduce_bayespa.py --parts curve gmedlda --plot runs/bayespa.png
    python scripts/reproduce_bayespa.py --parts table --table-j 1 3 5

``--plot`` writes accuracy against documents seen (PNG); ``--json`` the raw results, which
``--from-json FILE --plot out.png`` turns back into the tables and the plot without rerunning.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from structpred import atomic_write
from topics.bayespa import PaMedLDA  # noqa: E402
from topics.corpus import DEFAULT_SHARED_DATA_DIR, Vocabulary, load_20newsgroups  # noqa: E402

#: the paper's Table 1 (K = 40, |B| = 512): accuracy for (J, beta)
PAPER_TABLE_1 = {(1, 0): 0.783, (3, 0): 0.803, (3, 2): 0.799, (5, 0): 0.808, (5, 2): 0.803,
                 (5, 4): 0.792, (9, 0): 0.806, (9, 2): 0.806, (9, 4): 0.806, (9, 6): 0.804,
                 (9, 8): 0.796}


def log(msg):
    print(msg, flush=True)


def load(args):
    tr, ytr, names = load_20newsgroups(args.data_dir, "train")
    te, yte, _ = load_20newsgroups(args.data_dir, "test")
    vocab = Vocabulary(min_df=args.min_df).fit(tr)
    Xtr, Xte = vocab.transform(tr), vocab.transform(te)
    log(f"20 Newsgroups: {Xtr.shape[0]} train / {Xte.shape[0]} test documents, V = {len(vocab)}, "
        f"{int(Xtr.sum())} / {int(Xte.sum())} tokens, {len(names)} classes")
    order = np.random.default_rng(args.seed).permutation(Xtr.shape[0])   # the file is sorted by label
    return Xtr[order], ytr[order], Xte, yte


def make(args, n_samples, burn_in, seed=None):
    return PaMedLDA(n_topics=args.k, batch_size=args.batch_size, n_samples=n_samples,
                    burn_in=burn_in, n_gibbs=args.n_gibbs, epsilon=args.epsilon, c=args.c,
                    v=args.v, n_transform_burn=args.transform_burn,
                    n_transform_samples=args.transform_samples,
                    random_state=args.seed if seed is None else seed)


def accuracies(model, Xte, yte):
    """Test accuracy of the Gibbs classifier (``coef_``, one draw) and of the averaging
    classifier (``coef_mean_``), from one fold-in."""
    F = model.transform(Xte)
    return {name: float(np.mean(model.classes_[(F @ w.T).argmax(1)] == yte))
            for name, w in (("gibbs", model.coef_), ("average", model.coef_mean_))}


def warm_up(make_model, data):
    """Fit on 60 documents first so that timings exclude loading numba's compiled kernels."""
    Xtr, ytr, Xte, _ = data
    make_model().fit(Xtr[:60], ytr[:60]).predict(Xte[:5])


def one_pass(args, data, n_samples, burn_in, eval_every=None, seed=None):
    """Stream the training set once; evaluate every ``eval_every`` batches (and at the end).
    ``fit_time`` is wall-clock seconds in ``partial_fit``, ``cpu_time`` its process CPU time."""
    Xtr, ytr, Xte, yte = data
    model = make(args, n_samples, burn_in, seed)
    classes = np.unique(ytr)
    curve = []
    bs = args.batch_size
    n_batches = -(-Xtr.shape[0] // bs)
    cpu = 0.0
    for i, s in enumerate(range(0, Xtr.shape[0], bs)):
        t = time.process_time()
        model.partial_fit(Xtr[s:s + bs], ytr[s:s + bs], classes=classes)
        cpu += time.process_time() - t
        if (eval_every and (i + 1) % eval_every == 0) or i + 1 == n_batches:
            acc = accuracies(model, Xte, yte)
            curve.append({"docs_seen": model.n_docs_seen_, "fit_time": model.fit_time_,
                          "cpu_time": cpu, **acc})
            if eval_every:
                log(f"  {model.n_docs_seen_:6d} docs  update time {model.fit_time_:6.1f} s "
                    f"(CPU {cpu:6.1f} s)  "
                    f"accuracy {acc['gibbs']:.3f} (Gibbs) {acc['average']:.3f} (average)")
    return model, curve


def part_curve(args, data, res):
    warm_up(lambda: make(args, 1, 0), data)
    res["curves"] = {}
    for J in args.curve_j:
        log(f"== paMedLDA, one pass: K = {args.k}, |B| = {args.batch_size}, (I, J, beta) = "
            f"({args.n_gibbs}, {J}, {args.curve_burn}), epsilon = {args.epsilon}, "
            f"c = {args.c}, v = {args.v}")
        res["curves"][str(J)] = one_pass(args, data, J, args.curve_burn, eval_every=args.eval_every)[1]


def _curves(args, res):
    """``{J: curve}``; older result files hold a single ``curve`` for ``args.curve_j``."""
    if "curves" in res:
        return {int(J): c for J, c in res["curves"].items()}
    if "curve" in res:
        J = args.curve_j[0] if isinstance(args.curve_j, list) else args.curve_j
        return {int(J): res["curve"]}
    return {}


def _target(g, acc, cpu, wall=None):
    """One row of the target check against gMedLDA (CPU time: the cores are shared)."""
    gap = 100 * (g["accuracy"] - acc)
    cpu_speed = g["cpu_time"] / cpu
    met = gap <= 2.0 and cpu_speed >= 5.0
    wall_s = "" if wall is None else f" ({g['fit_time'] / wall:.1f}x wall-clock)"
    return f"{gap:+.1f} | {cpu_speed:.1f}x{wall_s} | {'MET' if met else 'MISSED'}"


def part_gmedlda(args, data, res):
    try:
        from topics.medlda import GibbsMedLDA
    except ImportError as exc:                 # the batch baseline lives in another module
        log(f"== gMedLDA not available ({exc}); comparison skipped")
        return
    Xtr, ytr, Xte, yte = data
    log(f"== batch gMedLDA: K = {args.k} (GibbsMedLDA defaults otherwise)")
    warm_up(lambda: GibbsMedLDA(n_topics=args.k, n_iter=2, n_burn_in=1), data)
    t = time.process_time()
    m = GibbsMedLDA(n_topics=args.k, random_state=args.seed).fit(Xtr, ytr)
    cpu = time.process_time() - t
    acc_default = float(m.score(Xte, yte))
    # the same fold-in length as paMedLDA's prediction (test time only, not in the timings)
    m.set_params(n_predict_burn=args.transform_burn, n_predict_samples=args.transform_samples)
    acc = float(m.score(Xte, yte))
    res["gmedlda"] = {"accuracy": acc, "accuracy_default_prediction": acc_default,
                      "fit_time": float(m.fit_time_), "cpu_time": cpu,
                      "n_iter": int(m.n_iter_), "params": repr(m),
                      "passes": int(m.n_burn_in + m.n_iter_ * m.n_sweeps)}
    log(f"  accuracy {acc:.3f} ({args.transform_burn} + {args.transform_samples} fold-in sweeps; "
        f"{acc_default:.3f} with its default prediction), training time {m.fit_time_:.1f} s "
        f"(CPU {cpu:.1f} s), {res['gmedlda']['n_iter']} alternations")


def part_table(args, data, res):
    log(f"== Table 1: (J, beta) grid, K = {args.k}, |B| = {args.batch_size}, one pass, "
        f"I = {args.n_gibbs}, seeds {args.table_seeds}")
    warm_up(lambda: make(args, 1, 0), data)
    rows = []
    for (J, burn), paper in PAPER_TABLE_1.items():
        if J not in args.table_j:
            continue
        for seed in args.table_seeds:
            model, curve = one_pass(args, data, J, burn, seed=seed)
            row = {"J": J, "burn_in": burn, "seed": seed, "paper": paper, **curve[-1]}
            rows.append(row)
            log(f"  J = {J}, beta = {burn}, seed {seed}: accuracy {row['gibbs']:.3f} (Gibbs) "
                f"{row['average']:.3f} (average), paper {paper:.3f}; update time "
                f"{row['fit_time']:.1f} s (CPU {row['cpu_time']:.1f} s)")
    res["table"] = rows


def report(args, res):
    log("\n## Results")
    curves, g = _curves(args, res), res.get("gmedlda")
    for J, curve in curves.items():
        log(f"\npaMedLDA, one pass, J = {J}:\n\n| documents seen | update time (s) | CPU time (s) "
            f"| accuracy (Gibbs w^) | accuracy (mean mu) |\n|---:|---:|---:|---:|---:|")
        for r in curve:
            log(f"| {r['docs_seen']} | {r['fit_time']:.1f} | {r['cpu_time']:.1f} | {r['gibbs']:.3f} "
                f"| {r['average']:.3f} |")
    if g:
        log("\n| model | accuracy | training time (s) | CPU time (s) |\n|---|---:|---:|---:|")
        for J, curve in curves.items():
            pa = curve[-1]
            log(f"| paMedLDA, one pass, J = {J} | {pa['gibbs']:.3f} | {pa['fit_time']:.1f} "
                f"| {pa['cpu_time']:.1f} |")
        log(f"| gMedLDA, batch ({g.get('passes', '?')} sweeps) | {g['accuracy']:.3f} "
            f"| {g['fit_time']:.1f} | {g['cpu_time']:.1f} |")
        if curves:
            log("\nTarget (within 2 points of gMedLDA, >= 5x faster in CPU time):\n\n"
                "| paMedLDA run | gMedLDA - paMedLDA (points) | speed-up | target |\n|---|---:|---:|---|")
            for J, curve in curves.items():
                pa = curve[-1]
                log(f"| curve, J = {J}, seed {args.seed} | "
                    + _target(g, pa["gibbs"], pa["cpu_time"], pa["fit_time"]) + " |")
    if res.get("table"):
        cells = {}
        for r in res["table"]:
            cells.setdefault((r["J"], r["burn_in"]), []).append(r)
        Js = sorted({k[0] for k in cells})
        bs = sorted({k[1] for k in cells})
        n = len(next(iter(cells.values())))
        log(f"\nTable 1: accuracy of the Gibbs classifier (mean over {n} seed(s); [paper]; mean "
            f"update time, CPU s):\n")
        log("| J \\ beta | " + " | ".join(str(b) for b in bs) + " |\n|---|" + "---:|" * len(bs))
        for J in Js:
            row = []
            for b in bs:
                rs = cells.get((J, b))
                if not rs:
                    row.append("")
                    continue
                acc = np.array([r["gibbs"] for r in rs])
                sd = f" ± {acc.std(ddof=1):.3f}" if acc.size > 1 else ""
                row.append(f"{acc.mean():.3f}{sd} [{rs[0]['paper']:.3f}] "
                           f"({np.mean([r['cpu_time'] for r in rs]):.0f} s)")
            log(f"| {J} | " + " | ".join(row) + " |")
        gap = max(abs(r["gibbs"] - r["average"]) for r in res["table"])
        log(f"\nLargest |Gibbs - averaging| accuracy difference over the grid: {gap:.3f}")
        if g:
            log(f"\nTarget per Table 1 cell (mean accuracy and mean CPU time over the seeds) against "
                f"gMedLDA {g['accuracy']:.3f} / {g['cpu_time']:.1f} CPU s:\n\n"
                "| (J, beta) | gMedLDA - paMedLDA (points) | speed-up | target |\n|---|---:|---:|---|")
            for (J, b), rs in sorted(cells.items()):
                log(f"| ({J}, {b}) | " + _target(g, np.mean([r["gibbs"] for r in rs]),
                                                  np.mean([r["cpu_time"] for r in rs])) + " |")


def plot(args, res):
    from structpred.io import plt
    from structpred.io import save_figure

    fig, ax = plt.subplots(figsize=(6, 4))
    for J, c in _curves(args, res).items():
        ax.plot([r["docs_seen"] for r in c], [r["gibbs"] for r in c], marker="o",
                label=f"paMedLDA, one pass, J = {J} ({c[-1]['cpu_time']:.0f} CPU s)")
    if "gmedlda" in res:
        g = res["gmedlda"]
        passes = g.get("passes", 50 + g["n_iter"])      # GibbsMedLDA defaults: 50 LDA sweeps first
        ax.axhline(g["accuracy"], color="k", ls="--",
                   label=f"gMedLDA, batch: {passes} sweeps over the corpus ({g['cpu_time']:.0f} CPU s)")
    ax.set(xlabel="documents seen", ylabel="test accuracy",
           title=f"20 Newsgroups, K = {args.k}, |B| = {args.batch_size}")
    ax.legend(loc="lower right")
    save_figure(fig, args.plot)
    log(f"wrote {args.plot}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default=str(DEFAULT_SHARED_DATA_DIR))
    p.add_argument("--parts", nargs="+", choices=["curve", "gmedlda", "table"],
                   default=["curve", "gmedlda", "table"])
    p.add_argument("--min-df", type=int, default=5)
    p.add_argument("--k", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--n-gibbs", type=int, default=1, help="I")
    p.add_argument("--curve-j", type=int, nargs="+", default=[2, 5],
                   help="J of the accuracy-vs-documents curves (paper's fig. 1: (I, J, beta) = "
                        "(1, 2, 0); its best Table 1 cell: J = 5)")
    p.add_argument("--curve-burn", type=int, default=0, help="beta of the curve")
    p.add_argument("--table-j", type=int, nargs="+", default=[1, 3, 5, 9])
    p.add_argument("--table-seeds", type=int, nargs="+", default=[0, 1, 2],
                   help="random states of the table's runs (the mean is reported)")
    p.add_argument("--epsilon", type=float, default=PaMedLDA().epsilon)
    p.add_argument("--c", type=float, default=PaMedLDA().c)
    p.add_argument("--v", type=float, default=10.0,
                   help="prior N(0, v^2 I) of w (paper: 1, which collapses here; see topics/bayespa.py)")
    p.add_argument("--transform-burn", type=int, default=PaMedLDA().n_transform_burn)
    p.add_argument("--transform-samples", type=int, default=PaMedLDA().n_transform_samples)
    p.add_argument("--eval-every", type=int, default=2, help="curve: evaluate every so many batches")
    p.add_argument("--seed", type=int, default=0, help="data order, curve and gMedLDA random state")
    p.add_argument("--plot", default=None, help="PNG: accuracy against documents seen")
    p.add_argument("--json", default=None, help="write the results as JSON")
    p.add_argument("--from-json", default=None,
                   help="print the tables and draw the plot from a saved --json file (no runs)")
    args = p.parse_args(argv)
    if args.from_json:
        with open(args.from_json) as fh:
            res = json.load(fh)
        for k, v in res["args"].items():
            if k not in ("plot", "json", "from_json"):
                setattr(args, k, v)
    else:
        data = load(args)
        res = {"args": vars(args)}
        for part, fn in (("curve", part_curve), ("gmedlda", part_gmedlda), ("table", part_table)):
            if part in args.parts:
                fn(args, data, res)
    report(args, res)
    if args.plot:
        plot(args, res)
    if args.json and not args.from_json:
        with atomic_write(args.json) as fh:
            json.dump(res, fh, indent=1)
    return res


if __name__ == "__main__":
    main()
