"""Reproduce the DiscLDA experiments of the thesis (Lacoste-Julien 2009, ch. 4).

Tasks (``--task``):

* ``fixed``  -- Table 4.4: 20 Newsgroups (bydate split), fixed block ``T^y`` (eq. 4.11,
  ``B_c = 5``, ``B_s = 10``, ``K = 110``), errors of LDA+SVM, DiscLDA+SVM, DiscLDA alone and
  smoothed naive Bayes, beside the thesis's numbers; and the top words of each
  class-specific group and of the shared group (Table 4.3).
* ``mb``     -- how the DiscLDA-alone error depends on the bridge-sampling sample count
  ``M`` and the burn-in (on a random subset of the test set; same fitted model as
  ``fixed``), for the bridge estimator (three ways of combining the pairwise ratios) and
  the harmonic-mean estimator.
* ``binary`` -- fig. 4.7: learned ``T^y`` (Table 4.1) on binary tasks of Table 4.2, error of
  DiscLDA alone and DiscLDA+SVM against LDA+SVM (``K = 60``, ``B_c = B_s = 20``), and the
  "strongly" class-specific / shared topic groups (Table 4.5).

All runs use ``alpha = 10 / K``, ``beta = 0.01``, the same vocabulary (words in at least
``--min-df`` training documents, the 318-word English stop list) and split for every
method, and ``random_state = --seed``.

    python scripts/reproduce_disclda.py --task fixed
    python scripts/reproduce_disclda.py --task mb --mb-docs 1000
    python scripts/reproduce_disclda.py --task binary --pairs 1-20 4-5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.naive_bayes import MultinomialNB

from topics.baselines import LDASVM, fit_linear_svm
from topics.corpus import DEFAULT_SHARED_DATA_DIR, Vocabulary, load_20newsgroups, token_arrays
from topics.disclda import DiscLDA, harmonic_log_posterior, label_chains, label_log_posterior

THESIS_TABLE_4_4 = {"LDA+SVM": 27.0, "DiscLDA+SVM": 19.2, "DiscLDA alone": 19.2,
                    "smoothed NB": 19.9}

GROUPS = ["alt.atheism", "comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
          "comp.sys.mac.hardware", "comp.windows.x", "misc.forsale", "rec.autos",
          "rec.motorcycles", "rec.sport.baseball", "rec.sport.hockey", "sci.crypt",
          "sci.electronics", "sci.med", "sci.space", "soc.religion.christian",
          "talk.politics.guns", "talk.politics.mideast", "talk.politics.misc",
          "talk.religion.misc"]


def log(msg):
    print(msg, flush=True)


def load(data_dir, min_df, categories=None):
    tr, ytr, names = load_20newsgroups(data_dir, "train", categories)
    te, yte, _ = load_20newsgroups(data_dir, "test", categories)
    vocab = Vocabulary(min_df=min_df).fit(tr)
    Xtr, Xte = vocab.transform(tr), vocab.transform(te)
    log(f"  {len(tr)} train / {len(te)} test documents, V = {len(vocab)}, "
        f"{int(Xtr.sum())} / {int(Xte.sum())} tokens")
    return Xtr, ytr, Xte, yte, names, vocab


def print_groups(model, vocab, names, k=10, kind=None, scale=1.0):
    model.vocabulary_ = vocab
    groups = model.topic_groups(kind=kind)
    for g, ws in model.top_words_by_group(k, groups).items():
        label = names[g] if not isinstance(g, str) else g
        log(f"  {label:26s} ({len(groups[g]):2d} topics): "
            + " ".join(f"{w}:{s / scale:.0f}" for w, s in ws))


def lda_svm(Xtr, ytr, Xte, yte, K, sweeps, seed):
    t = time.time()
    m = LDASVM(n_topics=K, n_iter=sweeps, random_state=seed).fit(Xtr, ytr)
    err = 1 - m.score(Xte, yte)
    log(f"  LDA+SVM: error {100 * err:.1f}%  (C = {m.C_:g}, {time.time() - t:.0f} s)")
    return err


def disclda_errors(model, Xtr, ytr, Xte, yte, seed):
    """DiscLDA alone (every label-posterior estimator, on the same chains) and DiscLDA+SVM
    (features of eq. 4.29 with the model's own estimator)."""
    t = time.time()
    st = model.chain_statistics(Xte)
    errs = {}
    for name, est, ref in [("bridge/last", "bridge", "last"), ("bridge/adaptive", "bridge", "adaptive"),
                           ("bridge/mean", "bridge", "mean"), ("harmonic mean", "harmonic", None)]:
        lp = model.posterior_from_statistics(st, est, ref)
        errs[name] = float(np.mean(model.classes_[lp.argmax(1)] != yte))
    own = "harmonic mean" if model.label_estimator == "harmonic" else f"bridge/{model.reference}"
    err_alone = errs[own]
    Fte = model.features_from_statistics(st, model.posterior_from_statistics(st))
    log(f"  DiscLDA alone: error {100 * err_alone:.1f}% with {own} (test inference "
        f"{time.time() - t:.0f} s); all estimators: "
        + ", ".join(f"{k} {100 * v:.1f}%" for k, v in errs.items()))
    t = time.time()
    _, Ftr = model.infer(Xtr)
    svm, C, _ = fit_linear_svm(Ftr, ytr, random_state=seed)
    err_svm = float(np.mean(svm.predict(Fte) != yte))
    log(f"  DiscLDA+SVM: error {100 * err_svm:.1f}%  (C = {C:g}, train inference "
        f"{time.time() - t:.0f} s)")
    return err_alone, err_svm


def task_fixed(args):
    log(f"== Table 4.4: 20 Newsgroups, fixed T (B_c = 5, B_s = 10, K = 110), "
        f"{args.sweeps} sweeps, bridge M = {args.n_samples} after {args.n_burn} burn-in")
    Xtr, ytr, Xte, yte, names, vocab = load(args.data_dir, args.min_df)
    res = {}
    nb = MultinomialNB(alpha=args.nb_alpha).fit(Xtr, ytr)
    res["smoothed NB"] = 1 - nb.score(Xte, yte)
    log(f"  smoothed NB (alpha = {args.nb_alpha}): error {100 * res['smoothed NB']:.1f}%")
    t = time.time()
    model = DiscLDA(n_class_topics=5, n_shared_topics=10, n_iter=args.sweeps, n_burn=args.n_burn,
                    n_samples=args.n_samples, reference=args.reference,
                    random_state=args.seed).fit(Xtr, ytr)
    log(f"  DiscLDA fit: {time.time() - t:.0f} s")
    res["DiscLDA alone"], res["DiscLDA+SVM"] = disclda_errors(model, Xtr, ytr, Xte, yte, args.seed)
    if not args.skip_lda:
        res["LDA+SVM"] = lda_svm(Xtr, ytr, Xte, yte, 110, args.sweeps, args.seed)
    log("\n| method | error (ours) | error (thesis Table 4.4) |\n|---|---|---|")
    for k in ["LDA+SVM", "DiscLDA+SVM", "DiscLDA alone", "smoothed NB"]:
        if k in res:
            log(f"| {k} | {100 * res[k]:.1f}% | {THESIS_TABLE_4_4[k]:.1f}% |")
    log("\nTop words of each group (Table 4.3; s_v^G in hundreds):")
    print_groups(model, vocab, names, scale=100.0)
    return model


def task_mb(args):
    log(f"== bridge sampling: error vs M and burn-in ({args.mb_docs} random test documents)")
    Xtr, ytr, Xte, yte, names, vocab = load(args.data_dir, args.min_df)
    t = time.time()
    model = DiscLDA(n_class_topics=5, n_shared_topics=10, n_iter=args.sweeps,
                    random_state=args.seed).fit(Xtr, ytr)
    log(f"  DiscLDA fit: {time.time() - t:.0f} s")
    rng = np.random.default_rng(args.seed)
    idx = np.sort(rng.choice(Xte.shape[0], min(args.mb_docs, Xte.shape[0]), replace=False))
    words, _, offsets = token_arrays(Xte[idx])
    y = yte[idx]
    lp = np.log(model.class_prior_)
    checkpoints = sorted(args.mb_samples)
    log("\n| burn-in | M | bridge, ref. last (thesis) | bridge, adaptive ref. | bridge, mean of pairs "
        "| harmonic mean | time (s) |\n|---|---|---|---|---|---|---|")
    for burn in sorted(args.mb_burn):
        t = time.time()
        st, done = None, 0
        for M in checkpoints:
            new = label_chains(words, offsets, model.components_, model.transform_, model.alpha_,
                               burn if st is None else 0, M - done, model._seed(7 + done),
                               z_state=None if st is None else st["z_state"])
            if st is None:
                st = new
            else:
                st = {"blse": np.logaddexp(st["blse"], new["blse"]),
                      "hmlse": np.logaddexp(st["hmlse"], new["hmlse"]),
                      "nbar": st["nbar"] + new["nbar"], "n_samples": M, "z_state": new["z_state"]}
            done = M
            errs = [np.mean(label_log_posterior(st, lp, r).argmax(1) != y)
                    for r in ("last", "adaptive", "mean")]
            errs.append(np.mean(harmonic_log_posterior(st, lp).argmax(1) != y))
            log(f"| {burn} | {M} | " + " | ".join(f"{100 * e:.1f}%" for e in errs)
                + f" | {time.time() - t:.0f} |")


def task_binary(args):
    for pair in args.pairs:
        a, b = (int(x) for x in pair.split("-"))
        cats = [GROUPS[a - 1], GROUPS[b - 1]]
        log(f"== fig. 4.7 task {a} vs. {b}: {cats[0]} vs. {cats[1]} (learned T, B_c = B_s = 20, "
            f"K = 60)")
        Xtr, ytr, Xte, yte, names, vocab = load(args.data_dir, args.min_df, cats)
        res = {"LDA+SVM": lda_svm(Xtr, ytr, Xte, yte, 60, args.sweeps, args.seed)}
        common = dict(n_class_topics=20, n_shared_topics=20, n_iter=args.sweeps, n_burn=args.n_burn,
                      n_samples=args.n_samples, reference=args.reference, random_state=args.seed)
        t = time.time()
        fixed = DiscLDA(**common).fit(Xtr, ytr)
        log(f"  DiscLDA (fixed T) fit: {time.time() - t:.0f} s")
        res["DiscLDA alone (fixed T)"], res["DiscLDA+SVM (fixed T)"] = disclda_errors(
            fixed, Xtr, ytr, Xte, yte, args.seed)
        # learned T: the step size eta by grid search on the validation error (as in the thesis)
        best = None
        for eta in args.step_sizes:
            t = time.time()
            m = DiscLDA(learn_transform=True, n_outer=args.n_outer, n_grad=args.n_grad,
                        step_size=eta, n_z_sweeps=args.n_z_sweeps, init_gap=args.init_gap,
                        **common).fit(Xtr, ytr)
            verr = min(m.validation_errors_)
            log(f"  DiscLDA (learned T, eta = {eta:g}) fit: {time.time() - t:.0f} s; validation error "
                f"per iterate: " + " ".join(f"{100 * e:.1f}" for e in m.validation_errors_)
                + f"; chosen iterate {int(np.argmin(m.validation_errors_))}")
            if best is None or verr < best[0]:
                best = (verr, eta, m)
        _, eta, model = best
        log(f"  chosen eta = {eta:g}")
        res[f"DiscLDA alone (learned T, eta={eta:g})"], res[f"DiscLDA+SVM (learned T, eta={eta:g})"] = \
            disclda_errors(model, Xtr, ytr, Xte, yte, args.seed)
        log(f"\n| method | error, {a} vs. {b} |\n|---|---|")
        for k, v in res.items():
            log(f"| {k} | {100 * v:.1f}% |")
        log("\n'Strongly' class-specific and shared topic groups of the learned T (Table 4.5; "
            "s_k^y >= 0.9 / <= 0.4):")
        print_groups(model, vocab, names, kind="strength")
        log("Groups by the block pattern T was initialised from:")
        print_groups(model, vocab, names, kind="block")
        log("")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", choices=["fixed", "mb", "binary"], default="fixed")
    p.add_argument("--data-dir", default=str(DEFAULT_SHARED_DATA_DIR))
    p.add_argument("--min-df", type=int, default=2)
    p.add_argument("--sweeps", type=int, default=200, help="Gibbs sweeps of the fits (thesis N = 200)")
    p.add_argument("--n-burn", type=int, default=50, help="bridge-sampling burn-in (thesis 200)")
    p.add_argument("--n-samples", type=int, default=100, help="bridge-sampling M (thesis 2500)")
    p.add_argument("--reference", default="mean", choices=["last", "adaptive", "mean"])
    p.add_argument("--nb-alpha", type=float, default=0.01)
    p.add_argument("--skip-lda", action="store_true")
    p.add_argument("--mb-docs", type=int, default=1000)
    p.add_argument("--mb-burn", type=int, nargs="+", default=[10, 50, 200])
    p.add_argument("--mb-samples", type=int, nargs="+", default=[10, 30, 100, 300])
    p.add_argument("--pairs", nargs="+", default=["1-20", "4-5"])
    p.add_argument("--n-outer", type=int, default=5)
    p.add_argument("--n-grad", type=int, default=10)
    p.add_argument("--n-z-sweeps", type=int, default=20)
    p.add_argument("--step-sizes", type=float, nargs="+", default=[0.1, 0.3, 1.0],
                   help="grid for the learned-T step size eta (chosen on the validation error)")
    p.add_argument("--init-gap", type=float, default=3.0,
                   help="learned T: logit gap of the initial T (thesis: 3, i.e. t0 = 3T - 2)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    t = time.time()
    {"fixed": task_fixed, "mb": task_mb, "binary": task_binary}[args.task](args)
    log(f"total {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
