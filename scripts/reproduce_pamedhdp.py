"""Reproduce the paMedHDP experiment of Shi & Zhu (ICML 2014, sec. 5.1) on 20 Newsgroups.

Parts (``--parts``, default both):

* ``hdp`` -- one pass of paMedHDP (:class:`topics.pamedhdp.PaMedHDPClassifier`, native
  ``partial_fit`` on mini-batches of ``--batch-size`` documents of a random permutation of the
  training set): test accuracy and number of topics against the number of documents seen
  (the paper's fig. 1, right, and fig. 3), with the cumulative update time.
* ``lda`` -- one pass of paMedLDA (:class:`topics.bayespa.PaMedLDA`) with the same mini-batches,
  ``(I, J, beta)`` and fold-in, for each ``K`` of ``--lda-k``: the accuracy of its best ``K``
  is the target's reference (paMedHDP within 2 points of it, in one pass).
* ``select`` -- the choice of ``(gamma, eta)``: one pass of paMedHDP for every pair of
  ``--grid-gamma`` x ``--grid-eta`` (and of paMedLDA for every ``--lda-k``) on the training
  set without its last ``--heldout`` documents, accuracy on those (the test set is not used).

Settings: ``alpha = 5`` (the paper's), ``gamma = 10`` and ``eta = 0.01`` (chosen by ``select``;
the paper's ``gamma = 1, eta = 0.45`` leave about 10 topics here, all but one small, and
held-out accuracy near chance), ``epsilon = 164``, ``c = 1``; the prior scale of the weights
is ``v = 10`` for both models (the paper's ``v = 1`` collapses paMedLDA's topics on this data;
see :mod:`topics.bayespa`); ``(I, J, beta) = (1, 2, 0)`` as in the paper's fig. 1;
paMedLDA's ``alpha = 1/K``, ``gamma = 0.5``.
Vocabulary: words in at least ``--min-df`` training documents after the 318-word stop list,
Subject line kept, other headers dropped (as ``scripts/reproduce_bayespa.py``).  Data: the
full bydate split from ``--data-dir`` (11,314 / 7,532 documents, 20 classes; the paper used
11,269 / 7,505), or with ``--bundled`` the 400 / 200-document, 4-class slice in ``data/text``
(a smoke test: the paper's figures are for the full set).

The paper gives no number for paMedHDP in its text: fig. 3 plots its accuracy against the
inferred number of topics (axis from 20 to 30 topics) next to batch MedHDP, and fig. 1
shows it converging within one pass.  For paMedLDA its Table 1 reports 0.783-0.808
(K = 40, |B| = 512).

    python scripts/reproduce_pamedhdp.py --json runs/pamedhdp.json          # full 20NG
    python scripts/reproduce_pamedhdp.py --bundled                           # the bundled slice
    python scripts/reproduce_pamedhdp.py --from-json runs/pamedhdp.json --plot runs/pamedhdp.png

Times are seconds of ``partial_fit`` (wall-clock and process CPU) after a warm-up fit that
loads numba's compiled kernels; test-set evaluations are not counted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from structpred import atomic_write  # noqa: E402
from topics.bayespa import PaMedLDA  # noqa: E402
from topics.corpus import (DEFAULT_SHARED_DATA_DIR, Vocabulary, load_20newsgroups,  # noqa: E402
                           load_bundled_20ng)
from topics.pamedhdp import PaMedHDPClassifier  # noqa: E402

#: the paper's Table 1 range for paMedLDA (K = 40, |B| = 512, one pass)
PAPER_PAMEDLDA = (0.783, 0.808)
PAPER_HDP_NOTE = ("not in the text: fig. 3 plots paMedHDP's accuracy against 20-30 inferred "
                  "topics; fig. 1 shows it converged after one pass")


def log(msg):
    print(msg, flush=True)


def load(args):
    if args.bundled:
        tr, ytr, names = load_bundled_20ng("train")
        te, yte, _ = load_bundled_20ng("test")
    else:
        tr, ytr, names = load_20newsgroups(args.data_dir, "train")
        te, yte, _ = load_20newsgroups(args.data_dir, "test")
    vocab = Vocabulary(min_df=args.min_df).fit(tr)
    Xtr, Xte = vocab.transform(tr), vocab.transform(te)
    log(f"20 Newsgroups{' (bundled slice)' if args.bundled else ''}: {Xtr.shape[0]} train / "
        f"{Xte.shape[0]} test documents, V = {len(vocab)}, {int(Xtr.sum())} / {int(Xte.sum())} "
        f"tokens, {len(np.unique(ytr))} classes")
    order = np.random.default_rng(args.seed).permutation(Xtr.shape[0])   # files sorted by label
    return Xtr[order], ytr[order], Xte, yte


def common(args):
    return dict(batch_size=args.batch_size, n_samples=args.n_samples, burn_in=args.burn_in,
                n_gibbs=args.n_gibbs, epsilon=args.epsilon, c=args.c, v=args.v,
                n_transform_burn=args.transform_burn, n_transform_samples=args.transform_samples,
                random_state=args.seed)


def make_hdp(args):
    return PaMedHDPClassifier(alpha=args.alpha, gamma=args.gamma, eta=args.eta, **common(args))


def make_lda(args, K):
    return PaMedLDA(n_topics=K, **common(args))


def one_pass(model, data, batch_size, eval_every, label):
    """Stream the training set once; evaluate every ``eval_every`` batches and at the end."""
    Xtr, ytr, Xte, yte = data
    classes = np.unique(ytr)
    n_batches = -(-Xtr.shape[0] // batch_size)
    curve, cpu = [], 0.0
    for i, s in enumerate(range(0, Xtr.shape[0], batch_size)):
        t = time.process_time()
        model.partial_fit(Xtr[s:s + batch_size], ytr[s:s + batch_size], classes=classes)
        cpu += time.process_time() - t
        if (eval_every and (i + 1) % eval_every == 0) or i + 1 == n_batches:
            acc = float(model.score(Xte, yte))
            row = {"docs_seen": int(model.n_docs_seen_), "fit_time": float(model.fit_time_),
                   "cpu_time": cpu, "accuracy": acc,
                   "n_topics": int(getattr(model, "n_topics_", getattr(model, "n_topics", 0)))}
            curve.append(row)
            log(f"  {label}: {row['docs_seen']:6d} docs  K = {row['n_topics']:3d}  accuracy "
                f"{acc:.3f}  update time {row['fit_time']:6.1f} s (CPU {cpu:6.1f} s)")
    return curve


def warm_up(make_model, data):
    """A fit on 60 documents first, so that timings exclude loading numba's kernels."""
    Xtr, ytr, Xte, _ = data
    make_model().fit(Xtr[:60], ytr[:60]).predict(Xte[:5])


def part_hdp(args, data, res):
    warm_up(lambda: make_hdp(args).set_params(n_transform_burn=2, n_transform_samples=2), data)
    log(f"== paMedHDP, one pass: |B| = {args.batch_size}, (I, J, beta) = ({args.n_gibbs}, "
        f"{args.n_samples}, {args.burn_in}), alpha = {args.alpha}, gamma = {args.gamma}, "
        f"eta = {args.eta}, epsilon = {args.epsilon}, c = {args.c}, v = {args.v}")
    model = make_hdp(args)
    res["hdp"] = {"curve": one_pass(model, data, args.batch_size, args.eval_every, "paMedHDP"),
                  "n_topics_history": [int(k) for k in model.n_topics_history_],
                  "topic_weights": model.topic_weights_.tolist()}


def part_select(args, data, res):
    """Grid over (gamma, eta) on a held-out part of the training set (and paMedLDA's K)."""
    Xtr, ytr, _, _ = data
    n = Xtr.shape[0] - args.heldout
    split = (Xtr[:n], ytr[:n], Xtr[n:], ytr[n:])
    log(f"== select: train on {n} training documents, evaluate on the other {args.heldout}")
    sel = res.setdefault("select", {"hdp": {}, "lda": {}})
    sel["settings"] = {"heldout": args.heldout, "transform_burn": args.transform_burn,
                       "transform_samples": args.transform_samples}
    for gamma in args.grid_gamma:
        for eta in args.grid_eta:
            key = f"{gamma}/{eta}"
            if key in sel["hdp"]:
                continue
            model = make_hdp(args).set_params(gamma=gamma, eta=eta)
            sel["hdp"][key] = one_pass(model, split, args.batch_size, 0,
                                       f"paMedHDP gamma={gamma} eta={eta}")[-1]
            save(args, res)
    for K in args.lda_k:
        if str(K) not in sel["lda"]:
            sel["lda"][str(K)] = one_pass(make_lda(args, K), split, args.batch_size, 0,
                                          f"paMedLDA K={K}")[-1]
            save(args, res)


def save(args, res):
    if args.json:
        with atomic_write(args.json) as fh:
            json.dump(res, fh, indent=1)


def part_lda(args, data, res):
    warm_up(lambda: make_lda(args, 5).set_params(n_transform_burn=2, n_transform_samples=2),
            data)
    res["lda"] = {}
    for K in args.lda_k:
        log(f"== paMedLDA, one pass: K = {K}, same settings")
        res["lda"][str(K)] = one_pass(make_lda(args, K), data, args.batch_size, 0,
                                      f"paMedLDA K={K}")


def report(args, res):
    log("\n## Results")
    sel = res.get("select")
    if sel:
        gammas = sorted({float(k.split("/")[0]) for k in sel["hdp"]})
        etas = sorted({float(k.split("/")[1]) for k in sel["hdp"]}, reverse=True)
        st = sel.get("settings", {})
        log(f"\nselect: accuracy on {st.get('heldout', '?')} held-out training documents "
            f"[number of topics] after one pass ({st.get('transform_burn', '?')} + "
            f"{st.get('transform_samples', '?')} fold-in sweeps), paMedHDP:\n\n"
            "| gamma \\ eta | " + " | ".join(f"{e:g}" for e in etas) + " |\n|---|"
            + "---:|" * len(etas))
        for g in gammas:
            cells = []
            for e in etas:
                r = sel["hdp"].get(f"{g}/{e}") or sel["hdp"].get(f"{g:g}/{e:g}")
                cells.append(f"{r['accuracy']:.3f} [{r['n_topics']}]" if r else "")
            log(f"| {g:g} | " + " | ".join(cells) + " |")
        if sel["lda"]:
            log("\npaMedLDA on the same split: " + ", ".join(
                f"K = {K}: {r['accuracy']:.3f}" for K, r in sel["lda"].items()))
    hdp, lda = res.get("hdp"), res.get("lda")
    if hdp:
        log("\npaMedHDP, one pass (accuracy and number of topics against documents seen):\n\n"
            "| documents seen | topics | accuracy | update time (s) | CPU time (s) |\n"
            "|---:|---:|---:|---:|---:|")
        for r in hdp["curve"]:
            log(f"| {r['docs_seen']} | {r['n_topics']} | {r['accuracy']:.3f} | "
                f"{r['fit_time']:.1f} | {r['cpu_time']:.1f} |")
        w = np.sort(np.asarray(hdp["topic_weights"]))[::-1]
        if w.size:
            log(f"\nE[pi] of the {w.size} topics: largest {w[0]:.3f}, the top 10 hold "
                f"{w[:10].sum():.3f}, unused mass {1 - w.sum():.3f}")
    best = None
    if lda:
        log("\npaMedLDA, one pass, by K:\n\n| K | accuracy | update time (s) | CPU time (s) |\n"
            "|---:|---:|---:|---:|")
        for K, curve in lda.items():
            r = curve[-1]
            log(f"| {K} | {r['accuracy']:.3f} | {r['fit_time']:.1f} | {r['cpu_time']:.1f} |")
            if best is None or r["accuracy"] > best[1]:
                best = (int(K), r["accuracy"])
    if hdp and best:
        h = hdp["curve"][-1]
        gap = 100 * (best[1] - h["accuracy"])
        log(f"\n| model (one pass) | topics | accuracy | paper |\n|---|---:|---:|---|\n"
            f"| paMedHDP | {h['n_topics']} (inferred) | {h['accuracy']:.3f} | {PAPER_HDP_NOTE} |\n"
            f"| paMedLDA, best K | {best[0]} | {best[1]:.3f} | {PAPER_PAMEDLDA[0]:.3f}-"
            f"{PAPER_PAMEDLDA[1]:.3f} (Table 1, K = 40) |")
        log(f"\nTarget (paMedHDP within 2 points of paMedLDA's best K, one pass): "
            f"{gap:+.1f} points -> {'MET' if gap <= 2.0 else 'MISSED'}")


def plot(args, res):
    from structpred.io import plt, save_figure

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    if "hdp" in res:
        c = res["hdp"]["curve"]
        ax.plot([r["docs_seen"] for r in c], [r["accuracy"] for r in c], marker="o",
                label="paMedHDP")
        ax2.plot([r["docs_seen"] for r in c], [r["n_topics"] for r in c], marker="o")
    for i, (K, c) in enumerate(res.get("lda", {}).items()):
        ax.axhline(c[-1]["accuracy"], ls="--", lw=0.8, color=f"C{i + 1}",
                   label=f"paMedLDA, K = {K} (one pass)")
    ax.set(xlabel="documents seen", ylabel="test accuracy", title="one pass over 20 Newsgroups")
    ax.legend(loc="lower right", fontsize=8)
    ax2.set(xlabel="documents seen", ylabel="topics", title="paMedHDP: number of topics")
    save_figure(fig, args.plot)
    log(f"wrote {args.plot}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", default=str(DEFAULT_SHARED_DATA_DIR))
    p.add_argument("--bundled", action="store_true",
                   help="use the bundled 400/200-document slice (data/text) instead")
    p.add_argument("--parts", nargs="+", choices=["select", "hdp", "lda"],
                   default=["hdp", "lda"])
    p.add_argument("--heldout", type=int, default=2000,
                   help="select: training documents held out for evaluation")
    p.add_argument("--grid-gamma", type=float, nargs="+", default=[1.0, 10.0, 30.0])
    p.add_argument("--grid-eta", type=float, nargs="+", default=[0.45, 0.05, 0.01])
    p.add_argument("--min-df", type=int, default=None, help="default 5 (full), 2 (bundled)")
    p.add_argument("--batch-size", type=int, default=None, help="default 512 (full), 50 (bundled)")
    p.add_argument("--n-samples", type=int, default=2, help="J")
    p.add_argument("--burn-in", type=int, default=0, help="beta")
    p.add_argument("--n-gibbs", type=int, default=1, help="I")
    p.add_argument("--alpha", type=float, default=5.0)
    p.add_argument("--gamma", type=float, default=10.0, help="paper: 1 (see select)")
    p.add_argument("--eta", type=float, default=0.01, help="paper: 0.45 (see select)")
    p.add_argument("--epsilon", type=float, default=164.0)
    p.add_argument("--c", type=float, default=1.0)
    p.add_argument("--v", type=float, default=10.0)
    p.add_argument("--lda-k", type=int, nargs="+", default=None,
                   help="paMedLDA's K grid; default 20 40 60 80 (full), 5 10 20 (bundled)")
    p.add_argument("--transform-burn", type=int, default=100)
    p.add_argument("--transform-samples", type=int, default=100)
    p.add_argument("--eval-every", type=int, default=None,
                   help="paMedHDP: evaluate every so many batches; default 4 (full), 2 (bundled)")
    p.add_argument("--seed", type=int, default=0, help="data order and random states")
    p.add_argument("--plot", default=None, help="PNG: accuracy and topics against documents seen")
    p.add_argument("--json", default=None, help="write the results as JSON")
    p.add_argument("--from-json", default=None,
                   help="print the tables (and draw the plot) from a saved --json file")
    args = p.parse_args(argv)
    defaults = dict(min_df=(2, 5), batch_size=(50, 512), lda_k=([5, 10, 20], [20, 40, 60, 80]),
                    eval_every=(2, 4))
    for k, (bundled, full) in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, bundled if args.bundled else full)
    if args.from_json:
        with open(args.from_json) as fh:
            res = json.load(fh)
    else:
        data = load(args)
        res = {}
        if args.json and Path(args.json).exists():      # keep the other parts; continue select
            with open(args.json) as fh:
                res = {k: v for k, v in json.load(fh).items() if k not in args.parts or
                       k == "select"}
        res["args"] = vars(args)
        for part, fn in (("select", part_select), ("hdp", part_hdp), ("lda", part_lda)):
            if part in args.parts:
                fn(args, data, res)
                save(args, res)
    report(args, res)
    if args.plot:
        plot(args, res)
    return res


if __name__ == "__main__":
    main()
