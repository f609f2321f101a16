"""The default of ``structpred topics train`` on small corpora: validation sources built from
the TRAINING parts only, and variants of the default measured on them.

Sources (no test document is read):

* ``brown``: Brown genres' 379 training documents, stratified 5-fold cross-validation
  repeated with the shuffling seeds ``--brown-seeds`` (every document validated once per
  seed);
* ``20ng``, ``r8``, ``movies``: stratified subsamples of ``--sizes`` training documents
  (seeds ``--seeds``), each trained on in full and validated on ``--outer`` other training
  documents of the same corpus (stratified, not in the subsample).

Every variant (:data:`VARIANTS`) is fitted on the same fits and validated on the same
documents, so the per-document 0/1 correctness is paired across variants; each variant's
correctness on each source instance is cached under ``--out`` (rerun to resume).  The table
gives each variant's accuracy per source and pooled, and the share of 2,000 paired bootstraps
of the pooled validation documents in which it beats ``epochs-6`` (sdEM naive Bayes with the
hinge loss, 6 passes: the default without its floor of steps; ``updates-6k`` is the default,
``SdemNaiveBayes(min_updates=6000)``).  The project's rule adopts a change at >= 95%.

``--chooser`` also measures the chooser's rule itself on the same sources: the default
(``--chooser-default``) against the ``svm`` candidate, chosen by the guard on one 5-fold
cross-validation of the fitting part (what ``topics train`` does under 2,000 documents) or on
5-fold cross-validation repeated with 3 shuffling seeds; the chosen candidate's correctness
on the source's validation documents is compared.

    python scripts/small_corpus_study.py --data-dir ../shared/data/text
    python scripts/small_corpus_study.py --data-dir ../shared/data/text --chooser \
        --chooser-default updates-6k
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_HINGE = {"loss": "hinge", "prior": "log", "learning_decay": 1e-5, "n_epochs": 6}
#: name -> (kind, settings): "sdem" (SdemNaiveBayes on the default's features at ``norm``,
#: ``min_updates``: max(6, ceil(min_updates / documents)) passes), "svm" (the svm
#: candidate at ``C``), "mean" (epochs-6's and svm's centred scores, each over its spread)
VARIANTS = {
    "epochs-6": ("sdem", {"norm": 3.0, **_HINGE}),
    "svm": ("svm", {"norm": 1.0, "C": 1.0}),
    "updates-3k": ("sdem", {"norm": 3.0, **_HINGE, "min_updates": 3000}),
    "updates-6k": ("sdem", {"norm": 3.0, **_HINGE, "min_updates": 6000}),
    "updates-12k": ("sdem", {"norm": 3.0, **_HINGE, "min_updates": 12000}),
    "epochs-3": ("sdem", {"norm": 3.0, **_HINGE, "n_epochs": 3}),
    "lambda-1e-3": ("sdem", {"norm": 3.0, **_HINGE, "learning_decay": 1e-3}),
    "lambda-1e-6": ("sdem", {"norm": 3.0, **_HINGE, "learning_decay": 1e-6}),
    "norm-1.5": ("sdem", {"norm": 1.5, **_HINGE}),
    "norm-5": ("sdem", {"norm": 5.0, **_HINGE}),
    "norm-10": ("sdem", {"norm": 10.0, **_HINGE}),
    "prior-laplace": ("sdem", {"norm": 3.0, **_HINGE, "prior": "laplace"}),
    "svm-C0.3": ("svm", {"norm": 1.0, "C": 0.3}),
    "svm-C3": ("svm", {"norm": 1.0, "C": 3.0}),
    "mean-epochs-6-svm": ("mean", {}),
}
#: the default's vocabulary (topics.auto's ``_TFIDF_WORDS``) without its norm
_VOCAB = {"ngram_range": (1, 1), "min_df": 1, "weighting": "tfidf", "sublinear_tf": True,
          "stop_words": None, "digits": True}


def _fit_sdem(params, X, y):
    from topics.sdem import SdemNaiveBayes

    kw = {k: v for k, v in params.items() if k != "norm"}
    return SdemNaiveBayes(random_state=0, **kw).fit(X, y)


def _fit_svm(params, X, y):
    from topics.nbsvm import NBSVM

    return NBSVM(C=params["C"], max_iter=100, nb_scaling=False, binarize=False, beta=1.0,
                 random_state=0).fit(X, y)


def _centred(S, k):
    S = S.reshape(-1, 1) * np.array([-1.0, 1.0]) if S.ndim == 1 else S
    S = S - S.mean(axis=1, keepdims=True)
    return S / max(S.std(), 1e-12) if k else S


def fold_scores(name, X3, y, Xv3):
    """Fit variant ``name`` on ``(X3, y)`` (the default's features, norm 3); its predicted
    labels of ``Xv3``."""
    kind, p = VARIANTS[name]
    f = p.get("norm", 3.0) / 3.0
    if kind == "sdem":
        m = _fit_sdem(p, X3 * f, y)
        return m.predict(Xv3 * f)
    if kind == "svm":
        m = _fit_svm(p, X3 * f, y)
        return m.predict(Xv3 * f)
    a = _fit_sdem(VARIANTS["epochs-6"][1], X3, y)
    b = _fit_svm(VARIANTS["svm"][1], X3 / 3.0, y)
    S = _centred(a.predict_log_proba(Xv3), 1) + _centred(b.decision_function(Xv3 / 3.0), 1)
    return a.classes_[np.argmax(S, axis=1)]


def stratified_take(y, n, seed, among=None):
    """About ``n`` documents of ``among`` (default all), stratified by label, seeded."""
    from topics.auto import validation_split

    among = np.arange(len(y)) if among is None else np.asarray(among)
    if n >= among.size:
        return among
    _, take = validation_split(y[among], n / among.size, seed)
    return among[take]


class Source:
    """A corpus's training part, tokenised once, and its cached runs."""

    def __init__(self, corpus, data_dir, out):
        from topics.auto import CandidateSpec, analyze_once
        from topics.corpus import load_text_corpus

        texts, y = load_text_corpus(corpus, "train", data_dir)
        self.corpus, self.y, self.out = corpus, np.asarray(y).astype(str), Path(out)
        spec = CandidateSpec("default", "sdem-nb", {**_VOCAB, "norm": 3.0})
        self.vocab = spec.make_vocabulary()
        t0 = time.process_time()
        self.analyses = analyze_once(texts, [spec])
        print(f"# {corpus}: {len(texts)} training documents tokenised in "
              f"{time.process_time() - t0:.1f}s CPU", flush=True)

    def correctness(self, key, folds, names):
        """``{name: 0/1 correctness}`` on the concatenated validation parts of ``folds``."""
        from topics.auto import terms_for
        from topics.corpus import Vocabulary

        paths = {n: self.out / f"{self.corpus}__{key}__{n}.npy" for n in names}
        todo = [n for n in names if not paths[n].exists()]
        if todo:
            got = {n: [] for n in todo}
            for fit, val in folds:
                v = Vocabulary(**{**_VOCAB, "norm": 3.0})
                terms = terms_for(v, self.analyses, fit)
                X = v.fit_terms(terms).transform_terms(terms)
                Xv = v.transform_terms(terms_for(v, self.analyses, val))
                for n in todo:
                    got[n].append(fold_scores(n, X, self.y[fit], Xv) == self.y[val])
            for n in todo:
                np.save(paths[n], np.concatenate(got[n]).astype(np.int8))
        return {n: np.load(paths[n]).astype(np.int64) for n in names}


def instances(args, src):
    """``(key, folds)`` of each validation instance of ``src``."""
    from topics.auto import cross_validation_folds

    y = src.y
    if src.corpus == "brown":
        return [(f"cv{s}", cross_validation_folds(y, 5, s)) for s in args.brown_seeds]
    out = []
    for n in args.sizes:
        for s in args.seeds:
            sub = stratified_take(y, n, s)
            rest = np.setdiff1d(np.arange(y.size), sub)
            outer = np.sort(stratified_take(y, args.outer, s + 1000, rest))
            out.append((f"n{n}-s{s}", [(np.sort(sub), outer)]))
    return out


def inner_folds(y, fit, seed):
    """5 stratified folds of the documents ``fit`` (indices into ``y``)."""
    from topics.auto import cross_validation_folds

    return [(fit[a], fit[b]) for a, b in cross_validation_folds(y[fit], 5, seed)]


def chooser_rule(src, key, folds, seeds, base):
    """The guard's pick (``base`` or svm) on each fold's fitting part, validated by 5-fold
    cross-validation with each shuffling seed of ``seeds`` (pooled)."""
    from structpred.selection import paired_bootstrap

    picks = []
    for fi, (fit, _) in enumerate(folds):
        a, b = [], []
        for r in seeds:
            c = src.correctness(f"{key}-f{fi}-cv{r}", inner_folds(src.y, fit, r),
                                [base, "svm"])
            a.append(c[base])
            b.append(c["svm"])
        a, b = np.concatenate(a), np.concatenate(b)
        better = b.mean() > a.mean() and paired_bootstrap(a, b).p_not_better < 0.05
        picks.append("svm" if better else base)
    return picks


def chooser_rows(args, src):
    """``{rule: outer correctness}`` of the guard (``--chooser-default`` against svm) with one
    or three cross-validations."""
    rows = {"one 5-fold CV": [], "5-fold CV x 3 seeds": []}
    for key, folds in instances(args, src):
        outer = src.correctness(key, folds, [args.chooser_default, "svm"])
        ends = np.cumsum([0] + [v.size for _, v in folds])
        for rule, seeds in (("one 5-fold CV", [0]), ("5-fold CV x 3 seeds", [0, 1, 2])):
            picks = chooser_rule(src, key, folds, seeds, args.chooser_default)
            for fi, pick in enumerate(picks):
                rows[rule].append(outer[pick][ends[fi]:ends[fi + 1]])
                print(f"#   {src.corpus} {key} fold {fi}: {rule} picks {pick}", flush=True)
    return {k: np.concatenate(v) for k, v in rows.items()}


def table(per_source, base, label):
    """Markdown rows: accuracy per source and pooled, and bootstraps beating ``base``."""
    from structpred.selection import paired_bootstrap

    srcs = list(per_source)
    names = list(next(iter(per_source.values())))
    head = " | ".join(f"{s} ({per_source[s][names[0]].size})" for s in srcs)
    print(f"\n| {label} | {head} | pooled | Δ pooled | beats {base} |")
    print("|---|" + "---:|" * (len(srcs) + 3))
    for n in names:
        pooled = np.concatenate([per_source[s][n] for s in srcs])
        ref = np.concatenate([per_source[s][base] for s in srcs])
        cells = " | ".join(f"{100 * per_source[s][n].mean():.2f}" for s in srcs)
        win = "" if n == base else \
            f"{100 * (1 - paired_bootstrap(ref, pooled).p_not_better):.1f}%"
        print(f"| {n} | {cells} | {100 * pooled.mean():.2f} | "
              f"{100 * (pooled.mean() - ref.mean()):+.2f} | {win} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", nargs="+", default=["brown", "20ng", "r8", "movies"])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--sizes", nargs="+", type=int, default=[300, 600])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--brown-seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--outer", type=int, default=1000,
                    help="validation documents of each subsample (other training documents)")
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    ap.add_argument("--chooser", action="store_true", help="also the chooser's rule")
    ap.add_argument("--chooser-default", default="updates-6k", choices=list(VARIANTS),
                    help="the default the chooser's rule keeps against svm")
    ap.add_argument("--out", default="runs/small_corpus", help="the cache")
    args = ap.parse_args(argv)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    names = list(dict.fromkeys(["epochs-6", *args.variants]))
    per_source, chooser = {}, {}
    for corpus in args.corpora:
        src = Source(corpus, args.data_dir, args.out)
        t0 = time.process_time()
        runs = [src.correctness(k, f, names) for k, f in instances(args, src)]
        per_source[corpus] = {n: np.concatenate([r[n] for r in runs]) for n in names}
        print(f"# {corpus}: variants in {time.process_time() - t0:.1f}s CPU", flush=True)
        if args.chooser:
            chooser[corpus] = chooser_rows(args, src)
    table(per_source, "epochs-6", "variant")
    if args.chooser:
        table(chooser, "one 5-fold CV", f"chooser ({args.chooser_default} or svm)")


if __name__ == "__main__":
    main()
