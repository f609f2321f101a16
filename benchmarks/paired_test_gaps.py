"""How large are the test-set gaps between our defaults and the peers, beside their noise?

For each comparison named in ``--what`` this trains the two systems exactly as the
benchmark tables do, predicts the test part once, and reports the paired bootstrap of the
difference (ours minus the peer) over the test items, with the central 95 % interval and
the share of resamples in which ours is not better (:func:`structpred.selection.paired_bootstrap`,
2,000 resamples, seed 0). Nothing is chosen here: the defaults were fixed on validation
before, and this only says whether a test-set gap of a few items is distinguishable from
the sampling noise of a test set of that size.

* ``treebank``, ``conll2000``: ``SequenceTagger`` with the ``tag train`` defaults (every 10th
  sentence validates, then the refit on all) against CRFsuite (L-BFGS, c1 = c2 = 0.1, at
  most 100 iterations) on the same feature strings, as ``bench_sequence.py``; items are
  sentences, statistics (right tokens, tokens) or (correct, predicted, gold) chunks.
* ``brown``: the default ``structpred topics train`` command against scikit-learn's
  ``TfidfVectorizer`` + ``LinearSVC``, as ``bench_text_classifiers.py``; items are documents.
* ``--segmentation FILE``: a result file of ``scripts/bench_segmentation_peers.py --methods
  mrf``, which stores every guard candidate's per-image (intersection, union) on the test
  images: the kept model against the guard's unary-only candidate (items are images, the
  score the pooled foreground IoU), and the percentile interval of the kept model's IoU
  itself (for a target on the IoU, not on a difference).

    python benchmarks/paired_test_gaps.py --what brown,treebank,conll2000 \
        --segmentation runs/gaps_seg/zjw.json --out docs/results/paired_test_gaps.json

Predictions are cached in ``--cache`` (one JSON file per data set and system), so a rerun
only recomputes the intervals.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from structpred.io import atomic_write  # noqa: E402
from structpred.selection import paired_bootstrap  # noqa: E402


def _cached(cache, key, make):
    path = Path(cache) / f"{key}.json"
    if path.exists():
        return json.loads(path.read_text())
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(str(path)) as fh:
        json.dump(value, fh)
    return value


def sequence_gap(name, cache):
    """Ours (the ``tag train`` defaults) against CRFsuite on ``name``'s test part."""
    from bench_sequence import fit_crfsuite, load
    from sequence.data import deterministic_split
    from sequence.evaluate import is_iob, sentence_stats
    from sequence.features import token_features
    from sequence.model import SequenceTagger

    X, y, Xt, yt = load(name)

    def crf():
        model, _ = fit_crfsuite(X, y, "full", 100)
        return [list(map(str, s)) for s in model.predict(token_features(Xt, "full"))]

    def ours():
        tr, va = deterministic_split(len(X))
        model = SequenceTagger(refit=True, patience=4).fit(
            [X[i] for i in tr], [y[i] for i in tr],
            eval_set=([X[i] for i in va], [y[i] for i in va]))
        return [list(map(str, s)) for s in model.predict(Xt)]

    iob = is_iob({t for s in yt for t in s})
    peer = sentence_stats(yt, _cached(cache, f"{name}-crfsuite", crf), iob)
    mine = sentence_stats(yt, _cached(cache, f"{name}-ours", ours), iob)

    def score(summed):
        summed = np.asarray(summed, dtype=np.float64)
        if summed.shape[-1] == 3:
            c, p, g = summed[..., 0], summed[..., 1], summed[..., 2]
            return 200.0 * c / np.maximum(p + g, 1)
        return 100.0 * summed[..., 0] / np.maximum(summed[..., 1], 1)

    return _report(name, "chunk F1" if iob else "token accuracy", "CRFsuite",
                   peer, mine, score, len(yt))


def brown_gap(cache, data_dir):
    """The default ``topics train`` against ``TfidfVectorizer`` + ``LinearSVC`` on Brown."""
    from bench_text_classifiers import _read, run_ours, write_data

    out = Path(cache) / "text"
    write_data("brown", Path(data_dir), out)
    train, test = out / "data" / "brown-train.jsonl.gz", out / "data" / "brown-test.jsonl.gz"
    te, yte = _read(test)

    def svc():
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.svm import LinearSVC
        tr, ytr = _read(train)
        vec = TfidfVectorizer()
        clf = LinearSVC().fit(vec.fit_transform(tr), ytr)
        return [str(v) for v in clf.predict(vec.transform(te))]

    def ours():
        from topics._persist import load_model
        with tempfile.TemporaryDirectory() as work:
            run_ours("auto", train, test, Path(work))
            saved = load_model(Path(work) / "auto.npz")
            pred = saved.estimator.predict(saved.vocabulary.transform(te))
        return [str(v) for v in np.asarray(pred).astype(str)]

    peer = (np.asarray(_cached(cache, "brown-linearsvc", svc)) == yte).astype(np.int64)
    mine = (np.asarray(_cached(cache, "brown-ours", ours)) == yte).astype(np.int64)
    return _report("brown", "accuracy", "LinearSVC", peer, mine,
                   lambda s: 100.0 * np.asarray(s)[..., 0] / len(yte), len(yte))


def segmentation_gap(path):
    """The kept MRF against unary-only, and the kept model's IoU, from a bench result file."""
    splits = json.loads(Path(path).read_text())["splits"]
    out = []
    for name, row in splits.items():
        res = row["mrf"]
        kept, unary = np.asarray(res["final_stats"]), np.asarray(res["test_stats"]["unary"])

        def iou(s):
            s = np.asarray(s, dtype=np.float64)
            return 100.0 * s[..., 0] / np.maximum(s[..., 1], 1)

        rep = _report(name, "foreground IoU", "unary-only",
                      unary, kept, iou, len(kept))
        rng = np.random.default_rng(0)
        idx = rng.integers(0, len(kept), (2000, len(kept)))
        rep["ours_interval"] = [float(v) for v in np.quantile(iou(kept[idx].sum(1)), [0.025, 0.975])]
        print(json.dumps({"ours_interval": rep["ours_interval"]}), flush=True)
        out.append(rep)
    return out


def _report(name, metric, peer_name, peer, mine, score, items):
    r = paired_bootstrap(peer, mine, score=score, n_boot=2000, random_state=0)
    row = {"data": name, "metric": metric, "peer": peer_name, "items": items,
           "ours": float(score(np.asarray(mine).reshape(len(mine), -1).sum(0))),
           "peer_score": float(score(np.asarray(peer).reshape(len(peer), -1).sum(0))),
           "difference": r.difference, "interval": list(r.interval),
           "p_not_better": r.p_not_better}
    print(json.dumps(row), flush=True)
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--what", default="brown,treebank,conll2000")
    p.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data" / "text"))
    p.add_argument("--segmentation", nargs="*", default=[],
                   help="result files of scripts/bench_segmentation_peers.py --methods mrf")
    p.add_argument("--cache", default="runs/paired_gaps")
    p.add_argument("--out", default="runs/paired_gaps/gaps.json")
    args = p.parse_args(argv)
    rows = [brown_gap(args.cache, args.data_dir) if w == "brown" else sequence_gap(w, args.cache)
            for w in args.what.split(",") if w]
    for path in args.segmentation:
        rows += segmentation_gap(path)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.out) as fh:
        json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
