"""Reproduce figs. 1(a) and 3 of Jiang, Zhu, Sun & Xing (NIPS 2012): Monte Carlo MedLDA.

Accuracy and training time against the number of topics K on 20 Newsgroups (bydate split)
for gMedLDA (:class:`topics.medlda.GibbsMedLDA`), iMedLDA
(:class:`topics.medlda.ImportanceMedLDA`) and gLDA+SVM (:class:`topics.baselines.LDASVM`),
all on the same vocabulary and split; also the share of non-zero multipliers
``lambda_d^y`` (the paper: about 1%) and the share of training time spent in inference
(the paper: 76% iMedLDA, 90% gMedLDA).  The paper's split is a random 7,505-document test
set; this script uses the standard bydate split (11,314 / 7,532).

    python scripts/reproduce_medlda.py --ks 20 40 60
    python scripts/reproduce_medlda.py --ks 20 --max-train-docs 2000 --methods gmedlda ldasvm
    python scripts/reproduce_medlda.py --ks 20 --methods imedlda --heldout 0.2 --no-1-over-J

``--plot`` writes a PNG with accuracy and training time against K; ``--json`` the raw rows.
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
from topics.baselines import LDASVM  # noqa: E402
from topics.corpus import DEFAULT_SHARED_DATA_DIR, Vocabulary, load_20newsgroups  # noqa: E402
from topics.medlda import GibbsMedLDA, ImportanceMedLDA  # noqa: E402

METHODS = ("gmedlda", "imedlda", "ldasvm")
LABELS = {"gmedlda": "gMedLDA", "imedlda": "iMedLDA", "ldasvm": "gLDA+SVM"}
#: read off the paper's fig. 1(a) (approximate; the figure has no table)
PAPER_NOTE = ("paper fig. 1(a): accuracies roughly 0.7-0.8 for K = 20..120, iMedLDA >= gMedLDA > "
              "fMedLDA, gLDA+SVM; lambda about 1% non-zero; inference 76% (iMedLDA) / 90% "
              "(gMedLDA) of training time")


def log(msg):
    print(msg, flush=True)


def subsample(X, y, n, rng):
    if n is None or n >= len(X):
        return X, y
    idx = np.sort(rng.choice(len(X), n, replace=False))
    return [X[i] for i in idx], y[idx]


def load(args):
    rng = np.random.default_rng(args.seed)
    tr, ytr, names = load_20newsgroups(args.data_dir, "train")
    tr, ytr = subsample(tr, ytr, args.max_train_docs, rng)
    if args.heldout:    # model selection: evaluate on a random part of the training set, not test
        idx = rng.permutation(len(tr))
        cut = int(round(args.heldout * len(tr)))
        te, yte = [tr[i] for i in np.sort(idx[:cut])], ytr[np.sort(idx[:cut])]
        tr, ytr = [tr[i] for i in np.sort(idx[cut:])], ytr[np.sort(idx[cut:])]
    else:
        te, yte, _ = load_20newsgroups(args.data_dir, "test")
    te, yte = subsample(te, yte, args.max_test_docs, rng)
    vocab = Vocabulary(min_df=args.min_df).fit(tr)
    Xtr, Xte = vocab.transform(tr), vocab.transform(te)
    log(f"20 Newsgroups: {Xtr.shape[0]} train / {Xte.shape[0]} {'held-out' if args.heldout else 'test'} documents, V = {len(vocab)}, "
        f"{int(Xtr.sum())} / {int(Xte.sum())} tokens, {len(names)} classes")
    return Xtr, ytr, Xte, yte


def make(method, K, args):
    if method == "gmedlda":
        return GibbsMedLDA(n_topics=K, alpha=args.alpha_g, C=args.C, cost=args.cost,
                           n_iter=args.n_iter, tol=args.tol, n_sweeps=args.n_sweeps,
                           n_burn_in=args.n_burn_in, random_state=args.seed)
    if method == "imedlda":
        return ImportanceMedLDA(n_topics=K, alpha=args.alpha_i, beta=args.beta_i, C=args.C,
                                cost=args.cost, n_iter=args.n_iter, tol=args.tol,
                                paper_1_over_J=args.paper_1_over_J, random_state=args.seed)
    sweeps = args.lda_sweeps if args.lda_sweeps else args.n_burn_in + args.n_iter * args.n_sweeps
    return LDASVM(n_topics=K, alpha=args.alpha_g, n_iter=sweeps, random_state=args.seed)


def run(method, K, data, args):
    Xtr, ytr, Xte, yte = data
    model = make(method, K, args)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit_time = time.perf_counter() - t
    t = time.perf_counter()
    acc = float(model.score(Xte, yte))
    row = {"method": LABELS[method], "K": K, "accuracy": acc, "train_s": fit_time,
           "predict_s": time.perf_counter() - t}
    if method != "ldasvm":
        row.update(lambda_nonzero=float(model.lambda_sparsity_),
                   inference_share=float(model.inference_time_ / model.fit_time_),
                   iterations=int(model.n_iter_), svm_s=float(model.svm_time_))
    else:
        row.update(svm_C=float(model.C_))
    extra = "" if method == "ldasvm" else (
        f", lambda non-zero {100 * row['lambda_nonzero']:.2f}%, inference "
        f"{100 * row['inference_share']:.0f}% of training, {row['iterations']} iterations")
    log(f"  K = {K:3d} {LABELS[method]:9s} accuracy {acc:.3f}, training {fit_time:.0f} s{extra}")
    return row


def table(rows, methods, ks):
    by = {(r["method"], r["K"]): r for r in rows}
    head = "| K | " + " | ".join(f"{LABELS[m]} acc. | {LABELS[m]} train (s)" for m in methods) + " |"
    lines = [head, "|" + "---|" * (1 + 2 * len(methods))]
    for K in ks:
        cells = []
        for m in methods:
            r = by.get((LABELS[m], K))
            cells += [f"{r['accuracy']:.3f}", f"{r['train_s']:.0f}"] if r else ["", ""]
        lines.append(f"| {K} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| K | method | lambda non-zero | inference share of training | iterations |")
    lines.append("|---|---|---|---|---|")
    for r in rows:
        if "lambda_nonzero" in r:
            lines.append(f"| {r['K']} | {r['method']} | {100 * r['lambda_nonzero']:.2f}% | "
                         f"{100 * r['inference_share']:.0f}% | {r['iterations']} |")
    return "\n".join(lines)


def plot(rows, methods, path):
    import matplotlib.pyplot as plt

    from structpred.io import save_figure

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for m in methods:
        rs = sorted((r for r in rows if r["method"] == LABELS[m]), key=lambda r: r["K"])
        if rs:
            ks = [r["K"] for r in rs]
            a.plot(ks, [r["accuracy"] for r in rs], marker="o", label=LABELS[m])
            b.plot(ks, [r["train_s"] for r in rs], marker="o", label=LABELS[m])
    a.set(xlabel="# topics", ylabel="accuracy", title="20 Newsgroups (cf. fig. 1a)")
    b.set(xlabel="# topics", ylabel="training time (s)", yscale="log", title="training time (cf. fig. 3)")
    a.legend()
    b.legend()
    fig.tight_layout()
    save_figure(fig, path)


def report(rows, methods, ks, plot_path):
    log("")
    log(table(rows, methods, ks))
    log("")
    log(PAPER_NOTE)
    if "gmedlda" in methods and "ldasvm" in methods:
        by = {(r["method"], r["K"]): r["accuracy"] for r in rows}
        pairs = [(by[("gMedLDA", K)], by[("gLDA+SVM", K)]) for K in ks
                 if ("gMedLDA", K) in by and ("gLDA+SVM", K) in by]
        wins = [g > b for g, b in pairs]
        log(f"target gMedLDA > gLDA+SVM at every K: {'MET' if all(wins) else 'MISSED'} "
            f"({sum(wins)}/{len(wins)})")
    if plot_path:
        plot(rows, methods, plot_path)
        log(f"plot written to {plot_path}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default=str(DEFAULT_SHARED_DATA_DIR))
    p.add_argument("--ks", type=int, nargs="+", default=[20, 40, 60])
    p.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    p.add_argument("--min-df", type=int, default=5, help="vocabulary: words in >= this many training docs")
    p.add_argument("--max-train-docs", type=int, default=None, help="random subset of the training set")
    p.add_argument("--max-test-docs", type=int, default=None, help="random subset of the test set")
    p.add_argument("--heldout", type=float, default=0.0,
                   help="evaluate on this random fraction of the training set instead of the test set "
                        "(for choosing settings)")
    p.add_argument("--C", type=float, default=GibbsMedLDA().C, help="MedLDA C (sum_y lambda_d^y <= C/D)")
    p.add_argument("--cost", type=float, default=16.0, help="l in l_d(y) = l I(y != y_d)")
    p.add_argument("--n-iter", type=int, default=100, help="max alternations")
    p.add_argument("--tol", type=float, default=GibbsMedLDA().tol, help="relative objective change to stop")
    p.add_argument("--n-sweeps", type=int, default=GibbsMedLDA().n_sweeps, help="gMedLDA sweeps per alternation")
    p.add_argument("--n-burn-in", type=int, default=GibbsMedLDA().n_burn_in, help="gMedLDA LDA sweeps first")
    p.add_argument("--alpha-g", type=float, default=GibbsMedLDA().alpha, help="alpha of gMedLDA and gLDA")
    p.add_argument("--alpha-i", type=float, default=ImportanceMedLDA().alpha)
    p.add_argument("--beta-i", type=float, default=ImportanceMedLDA().beta)
    p.add_argument("--no-1-over-J", dest="paper_1_over_J", action="store_false",
                   help="iMedLDA: drop eq. 19's 1/J factor (kept by default)")
    p.add_argument("--lda-sweeps", type=int, default=None,
                   help="gLDA sweeps (default: gMedLDA's maximum, n_burn_in + n_iter * n_sweeps)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", default=None, help="PNG path for accuracy / time vs K")
    p.add_argument("--json", default=None, help="write the rows as JSON")
    p.add_argument("--from-json", nargs="+", default=None,
                   help="no training: merge the rows of earlier --json files into one table / plot")
    args = p.parse_args(argv)
    if args.from_json:
        rows = [r for f in args.from_json for r in json.loads(Path(f).read_text())["rows"]]
        methods = [m for m in METHODS if any(r["method"] == LABELS[m] for r in rows)]
        ks = sorted({r["K"] for r in rows})
        report(rows, methods, ks, args.plot)
        return rows

    log(f"== Monte Carlo MedLDA on 20 Newsgroups: K in {args.ks}, C = {args.C:g}, l = {args.cost:g}, "
        f"max {args.n_iter} iterations, tol {args.tol:g}, seed {args.seed}")
    data = load(args)
    rows = []
    for K in args.ks:
        for m in args.methods:
            rows.append(run(m, K, data, args))
            if args.json:
                with atomic_write(args.json) as fh:
                    json.dump({"args": vars(args), "rows": rows}, fh, indent=1)
    report(rows, args.methods, args.ks, args.plot)
    return rows


if __name__ == "__main__":
    main()
