"""sdEM (Masegosa) for multinomial naive Bayes and the LDA classifier: accuracy by epoch.

For each data set (20 Newsgroups bydate, and Reuters R8 or the movie reviews) this prints the
test accuracy after every epoch of

* sdEM-NB with the NCLL loss, with the hinge loss (1-nat margin; ``hinge``: Table 1's +-1
  weights, ``hinge-p``: Algorithm 4's ``(1 - p_y) / -p_ybar``) and with the NLL loss
  (generative online EM, ``lambda = 1``, i.e. ``rho_t = 1/(1+t)``);
* plain multinomial NB with the Laplace prior (``alpha = 1``, ``--mnb-alpha``), closed form;
* scikit-learn's liblinear ``LogisticRegression`` (one-vs-rest, as LIBLINEAR) and
  ``LinearSVC`` (L2-regularised).

Every method sees the **same** document-term matrix (``--features``): raw counts, ``log1p``
(``ln(1 + count)``), ``log1p-l2`` (``ln(1 + count)``, each document rescaled to a Euclidean
norm of ``--doc-norm``; the rescaling keeps the features count-like, which naive Bayes needs)
or ``tfidf-l2`` (the same with ``ln(1 + count) * idf``, ``idf = ln((n + 1) / (df + 1)) + 1``
from the training documents).
The vocabulary is the terms in at least ``--min-df`` training documents (the project's stop
list and tokenizer); a term is a word, or with ``--ngrams 2`` also a pair of adjacent words.

With ``--select`` every choice is made on a stratified validation split of the training set
(``--val-frac``, seed ``--seed``), never on the test set:

* the features (over ``--min-df-candidates`` x ``--ngram-candidates`` x ``--feature-kinds``
  x ``--doc-norms``) by the
  best validation accuracy of sdEM-NB NCLL over the ``--priors`` x ``--lambdas`` grid -- the chosen features are then
  used by *every* method;
* for each sdEM loss, the prior, ``lambda`` and the epoch (the best validation epoch; its
  test accuracy is reported beside the curve);
* the liblinear ``C`` (over ``--cs``).

On the second data set ``--lda-seeds`` also runs the 2-topic sdEM-LDA classifier
(:class:`topics.sdem_lda.SdemLDAClassifier`, NCLL and hinge; raw counts, as its Gibbs
chains need whole tokens) for each seed, and the LDA+SVM baseline
(:class:`topics.baselines.LDASVM`, ``--ldasvm-topics`` topics, the SVM's ``C`` chosen on its
own validation split) on the same counts.

    python scripts/reproduce_sdem.py --select                 # 20NG + R8 (README figures)
    python scripts/reproduce_sdem.py --second movies --features counts
    python scripts/reproduce_sdem.py --select --out results/sdem.json
    python scripts/reproduce_sdem.py --select --second none --ngram-candidates 1 2   # + bigrams
    python scripts/reproduce_sdem.py --select --second none --min-df-candidates 1 2  # + no cut-off
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import LinearSVC

from structpred import atomic_write
from topics.baselines import LDASVM
from topics.corpus import (DEFAULT_SHARED_DATA_DIR, Vocabulary, load_20newsgroups,
                           load_movie_reviews, load_reuters_r8)
from topics.sdem import SdemNaiveBayes
from topics.sdem_lda import SdemLDAClassifier


def load(name, data_dir, headers="subject"):
    if name == "20ng":
        tr, ytr, _ = load_20newsgroups(data_dir, "train", headers=headers)
        te, yte, _ = load_20newsgroups(data_dir, "test", headers=headers)
    elif name == "r8":
        tr, ytr, _ = load_reuters_r8(data_dir, "train")
        te, yte, _ = load_reuters_r8(data_dir, "test")
    elif name == "movies":
        tr, ytr, te, yte, _ = load_movie_reviews(data_dir)
    else:
        raise ValueError(name)
    return tr, np.asarray(ytr), te, np.asarray(yte)


def featurize(X, kind, doc_norm, idf=None):
    """Counts -> features: ``counts``, ``log1p``, ``log1p-l2`` or ``tfidf-l2`` (``log1p``
    times ``idf``, then each document rescaled to Euclidean norm ``doc_norm``)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    if kind == "counts":
        return X
    X = X.copy()
    X.data = np.log1p(X.data)
    if kind == "log1p":
        return X
    if kind == "tfidf-l2":
        X = sp.csr_matrix(X @ sp.diags(idf))
    if kind in ("log1p-l2", "tfidf-l2"):
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sp.csr_matrix(sp.diags(doc_norm / norms) @ X)
    raise ValueError(kind)


def curve(model, epochs, Xtr, ytr, Xeval, yeval):
    """Accuracy on ``(Xeval, yeval)`` after each ``partial_fit`` epoch; seconds per epoch."""
    classes = np.unique(ytr)
    acc, secs = [], []
    for _ in range(epochs):
        t0 = time.perf_counter()
        model.partial_fit(Xtr, ytr, classes=classes, n=Xtr.shape[0])
        secs.append(time.perf_counter() - t0)
        acc.append(model.score(Xeval, yeval))
    return acc, secs


def sdem_nb(loss, prior, lam, seed):
    return SdemNaiveBayes(loss=loss.split("-")[0], prior=prior, learning_decay=lam,
                          random_state=seed,
                          hinge_weights="posterior" if loss == "hinge-p" else "pm1")


def select_sdem(loss, priors, lambdas, epochs, Xa, ya, Xv, yv, seed):
    """Best ``(val accuracy, prior, lambda, epoch)`` over the grid (NLL: lambda = 1)."""
    best = None
    for prior in priors:
        for lam in ([1.0] if loss == "nll" else lambdas):
            val, _ = curve(sdem_nb(loss, prior, lam, seed), epochs, Xa, ya, Xv, yv)
            e = int(np.argmax(val))
            if best is None or val[e] > best[0]:
                best = (val[e], prior, lam, e + 1)
    return best


def liblinear(kind, C, Xtr, ytr):
    if kind == "logreg":
        # liblinear is one-vs-rest for several classes (as LIBLINEAR itself)
        return OneVsRestClassifier(LogisticRegression(C=C, solver="liblinear", max_iter=1000)
                                   ).fit(Xtr, ytr)
    return LinearSVC(C=C, max_iter=5000).fit(Xtr, ytr)


def print_table(rows, E):
    print(f"{'method':<26}" + "".join(f"{'ep' + str(e + 1):>7}" for e in range(E)))
    for label, (acc, note) in rows.items():
        cells = [f"{a * 100:7.2f}" for a in acc] + [f"{'':>7}"] * (E - len(acc))
        print(f"{label:<26}" + "".join(cells) + "   " + note)


def run_dataset(name, args, lda):
    t_start = time.perf_counter()
    tr, ytr, te, yte = load(name, args.data_dir, args.headers)
    itr, ival = train_test_split(np.arange(len(tr)), test_size=args.val_frac,
                                 random_state=args.seed, stratify=ytr)
    ya, yv = ytr[itr], ytr[ival]
    out = {"dataset": name, "n_train": len(tr), "n_test": len(te), "features": args.features}

    counts = {}   # (min_df, n) -> (vocabulary, train counts, test counts, idf)

    def count(min_df, n):
        if (min_df, n) not in counts:
            vocab = Vocabulary(min_df=min_df, ngram_range=(1, n)).fit(tr)
            Ctr = vocab.transform(tr)
            df = np.asarray((Ctr > 0).sum(axis=0)).ravel()
            idf = np.log((Ctr.shape[0] + 1) / (df + 1)) + 1.0
            counts[(min_df, n)] = (vocab, Ctr, vocab.transform(te), idf)
        return counts[(min_df, n)]

    # ---- the features, chosen by sdEM-NB NCLL on the validation split
    kind, doc_norm, ngrams, min_df = args.features, args.doc_norm, args.ngrams, args.min_df
    cands = [(d, n, k, nm) for d in (args.min_df_candidates or [args.min_df])
             for n in args.ngram_candidates for k in args.feature_kinds for nm in args.doc_norms]
    if args.select and len(cands) > 1:
        print(f"\n--- {name}: choosing the features by NCLL validation accuracy")
        scores = {}
        for d, n, k, nm in cands:
            _, C, _, idf = count(d, n)
            F = featurize(C, k, nm, idf)
            scores[(d, n, k, nm)] = select_sdem("ncll", args.priors, args.lambdas, args.epochs,
                                                F[itr], ya, F[ival], yv, args.seed)
            v, prior, lam, e = scores[(d, n, k, nm)]
            print(f"  min_df {d}, 1..{n}-grams (|W| = {C.shape[1]}) {k} norm {nm:<6g} "
                  f"val {v * 100:.2f} (prior {prior}, lambda {lam:g}, epoch {e})", flush=True)
        min_df, ngrams, kind, doc_norm = max(scores, key=lambda c: scores[c][0])
        out["feature_validation"] = {f"min_df {d} {n}-grams {k} {nm:g}": v[0]
                                     for (d, n, k, nm), v in scores.items()}
    vocab, Ctr, Cte, idf = count(min_df, ngrams)
    out["features"], out["doc_norm"], out["ngrams"] = kind, doc_norm, ngrams
    out["min_df"] = min_df
    out["vocabulary"] = len(vocab)
    Xtr, Xte = featurize(Ctr, kind, doc_norm, idf), featurize(Cte, kind, doc_norm, idf)
    Xa, Xv = Xtr[itr], Xtr[ival]
    print(f"\n=== {name}: {Xtr.shape[0]} train / {Xte.shape[0]} test docs, |W| = {len(vocab)} "
          f"(min_df {min_df}, 1..{ngrams}-grams), features = {kind}"
          + (f" (norm {doc_norm:g})" if kind.endswith("-l2") else "") + " ===", flush=True)

    rows = {}
    base = {}
    for kind, label in (("logreg", "LogReg (liblinear)"), ("svm", "LinearSVC (liblinear)")):
        C = args.c_logreg if kind == "logreg" else args.c_svm
        note = f"C={C:g}"
        if args.select:
            sc = {c: liblinear(kind, c, Xa, ya).score(Xv, yv) for c in args.cs}
            C = max(sc, key=sc.get)
            note = f"C={C:g} (val {sc[C] * 100:.2f})"
        base[label] = liblinear(kind, C, Xtr, ytr).score(Xte, yte)
        rows[label] = ([base[label]], note)
    mnb_label = f"MNB (alpha={args.mnb_alpha:g})"
    mnb_acc = MultinomialNB(alpha=args.mnb_alpha).fit(Xtr, ytr).score(Xte, yte)
    rows[mnb_label] = ([mnb_acc], "closed form, Laplace")

    timing, chosen = {}, {}
    for loss in args.losses:
        prior, lam, ep = args.prior, (1.0 if loss == "nll" else args.lam), None
        note = ""
        if args.select:
            v, prior, lam, ep = select_sdem(loss, args.priors, args.lambdas, args.epochs,
                                            Xa, ya, Xv, yv, args.seed)
            note = f" (val {v * 100:.2f} at epoch {ep})"
        acc, secs = curve(sdem_nb(loss, prior, lam, args.seed), args.epochs, Xtr, ytr, Xte, yte)
        note = f"prior={prior}, lambda={lam:g}" + note
        if ep is not None:
            note += f"; test at epoch {ep}: {acc[ep - 1] * 100:.2f}"
        rows[f"sdEM-NB {loss.upper()}"] = (acc, note)
        timing[loss] = float(np.mean(secs))
        chosen[loss] = acc[ep - 1] if ep is not None else acc[-1]
    print_table(rows, args.epochs)
    print("mean seconds per sdEM-NB epoch (whole training set): "
          + ", ".join(f"{k.upper()} {v:.2f}s" for k, v in timing.items()))
    if "ncll" in chosen:
        best_base = max(base.values())
        what = "validation-chosen epoch" if args.select else "last epoch"
        print(f"NCLL ({what}) {chosen['ncll'] * 100:.2f}: vs best liblinear "
              f"{100 * (chosen['ncll'] - best_base):+.2f} points (target >= -2), vs MNB "
              f"{100 * (chosen['ncll'] - mnb_acc):+.2f} points (target >= +2)")
    out["nb"] = {k: {"test_by_epoch": v[0], "note": v[1]} for k, v in rows.items()}
    out["seconds_per_epoch"] = timing
    out["chosen_test"] = chosen

    if lda:
        _, C1tr, C1te, _ = count(min_df, 1)   # single words: the Gibbs chains' tokens
        out["lda"] = run_lda(name, args, C1tr, ytr, C1te, yte, itr, ival)
    print(f"[{name}: {time.perf_counter() - t_start:.0f}s]", flush=True)
    return out


def run_lda(name, args, Ctr, ytr, Cte, yte, itr, ival):
    """2-topic sdEM-LDA (NCLL, hinge) over seeds, and LDA+SVM, on raw counts."""
    E = args.lda_epochs
    res = {}

    def make(loss, lam, seed):
        return SdemLDAClassifier(n_topics=args.lda_topics, loss=loss, learning_decay=lam,
                                 n_burn=args.lda_burn, n_samples=args.lda_samples,
                                 random_state=seed)

    print(f"\n=== {name}: {args.lda_topics}-topic sdEM-LDA classifier (raw counts), seeds "
          f"{args.lda_seeds}, {args.lda_burn}+{args.lda_samples} sweeps per chain ===",
          flush=True)
    rows = {}
    for loss in ("ncll", "hinge"):
        lam = args.lda_lam
        if args.select and len(args.lda_lambdas) > 1:   # seed 0, validation split
            sc = {}
            for cand in args.lda_lambdas:
                val, _ = curve(make(loss, cand, args.seed), E, Ctr[itr], ytr[itr], Ctr[ival],
                               ytr[ival])
                sc[cand] = max(val)
                print(f"  {loss} lambda {cand:g}: validation "
                      + " ".join(f"{a * 100:.2f}" for a in val), flush=True)
            lam = max(sc, key=sc.get)
        accs, secs = [], []
        for seed in args.lda_seeds:
            m = make(loss, lam, seed)
            acc, sec = curve(m, E, Ctr, ytr, Cte, yte)
            accs.append(acc)
            secs += sec
            rows[f"sdEM-LDA {loss.upper()} s{seed}"] = (acc, f"{np.mean(sec):.1f}s/epoch")
            print(f"  {loss} seed {seed}: " + " ".join(f"{a * 100:.2f}" for a in acc),
                  flush=True)
        A = np.array(accs)
        rows[f"sdEM-LDA {loss.upper()} mean"] = (list(A.mean(axis=0)),
                                                 f"mean over seeds, lambda={lam:g}")
        rows[f"sdEM-LDA {loss.upper()} min"] = (list(A.min(axis=0)), "")
        rows[f"sdEM-LDA {loss.upper()} max"] = (list(A.max(axis=0)), "")
        res[loss] = {"test_by_epoch_per_seed": A.tolist(), "lambda": lam,
                     "seconds_per_epoch": float(np.mean(secs))}
    svm_acc = []
    for seed in args.lda_seeds[:args.ldasvm_seeds]:
        t0 = time.perf_counter()
        m = LDASVM(n_topics=args.ldasvm_topics, n_iter=args.ldasvm_iter, random_state=seed)
        svm_acc.append(m.fit(Ctr, ytr).score(Cte, yte))
        rows[f"LDA+SVM K={args.ldasvm_topics} s{seed}"] = (
            [svm_acc[-1]], f"C={m.C_:g}, {args.ldasvm_iter} sweeps, "
                           f"{time.perf_counter() - t0:.0f}s")
    res["ldasvm"] = svm_acc
    print_table(rows, E)
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", default=str(DEFAULT_SHARED_DATA_DIR),
                    help="folder with 20newsgroups/, reuters21578/, movie_review_polarity/ "
                         "(default ../shared/data/text)")
    ap.add_argument("--second", choices=["r8", "movies", "none"], default="r8")
    ap.add_argument("--only-second", action="store_true", help="skip 20 Newsgroups")
    ap.add_argument("--headers", choices=["subject", "keep", "strip"], default="subject",
                    help="20 Newsgroups: keep only the Subject line of the header (default), "
                         "the whole header, or none of it")
    kinds = ["counts", "log1p", "log1p-l2", "tfidf-l2"]
    ap.add_argument("--features", choices=kinds, default="log1p-l2")
    ap.add_argument("--feature-kinds", nargs="+", choices=kinds,
                    default=["log1p-l2", "tfidf-l2"], help="candidates (with --select)")
    ap.add_argument("--doc-norm", type=float, default=3.0)
    ap.add_argument("--doc-norms", type=float, nargs="+", default=[3.0, 10.0],
                    help="candidates for the document norm (with --select)")
    ap.add_argument("--min-df", type=int, default=2,
                    help="vocabulary: terms in at least this many training documents")
    ap.add_argument("--min-df-candidates", type=int, nargs="+", default=None,
                    help="candidates for --min-df (with --select; default: --min-df alone)")
    ap.add_argument("--ngrams", type=int, default=1,
                    help="terms are runs of 1..N adjacent words (2: words and bigrams)")
    ap.add_argument("--ngram-candidates", type=int, nargs="+", default=[1],
                    help="candidates for --ngrams (with --select)")
    ap.add_argument("--losses", nargs="+", default=["ncll", "hinge", "hinge-p", "nll"],
                    choices=["ncll", "hinge", "hinge-p", "nll"],
                    help="hinge: +-1 weights (Table 1); hinge-p: (1 - p_y) / -p_ybar (Alg. 4)")
    ap.add_argument("--prior", choices=["laplace", "log"], default="laplace")
    ap.add_argument("--priors", nargs="+", choices=["laplace", "log"],
                    default=["laplace", "log"], help="candidates (with --select)")
    ap.add_argument("--lam", type=float, default=1e-5)
    ap.add_argument("--lambdas", type=float, nargs="+", default=[1e-5, 1e-6],
                    help="candidates for lambda (with --select)")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--mnb-alpha", type=float, default=1.0)
    ap.add_argument("--c-logreg", type=float, default=10.0)
    ap.add_argument("--c-svm", type=float, default=0.1)
    ap.add_argument("--select", action="store_true",
                    help="choose norm / prior / lambda / epoch / C on a validation split")
    ap.add_argument("--cs", type=float, nargs="+", default=[0.01, 0.1, 1.0, 10.0])
    ap.add_argument("--val-frac", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lda-seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4],
                    help="seeds of the sdEM-LDA runs on the second data set (none: skip)")
    ap.add_argument("--lda-topics", type=int, default=2)
    ap.add_argument("--lda-epochs", type=int, default=5)
    ap.add_argument("--lda-lam", type=float, default=1e-3)
    ap.add_argument("--lda-lambdas", type=float, nargs="+", default=[1e-3, 1e-4],
                    help="candidates for the sdEM-LDA lambda (with --select; seed --seed)")
    ap.add_argument("--lda-burn", type=int, default=5)
    ap.add_argument("--lda-samples", type=int, default=10)
    ap.add_argument("--ldasvm-topics", type=int, default=50)
    ap.add_argument("--ldasvm-iter", type=int, default=200)
    ap.add_argument("--ldasvm-seeds", type=int, default=3)
    ap.add_argument("--out", help="write the figures as JSON (atomically)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    names = ([] if args.only_second else ["20ng"]) + ([] if args.second == "none"
                                                      else [args.second])
    results = [run_dataset(n, args, lda=(n != "20ng" and bool(args.lda_seeds))) for n in names]
    print(f"\ntotal {time.perf_counter() - t0:.0f}s")
    if args.out:
        with atomic_write(args.out) as f:
            json.dump({"args": vars(args), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
