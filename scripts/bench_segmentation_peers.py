#!/usr/bin/env python
"""The default segmentation command against unary-only and scikit-image's trainable
segmentation, on the standard horse split, on several folds of the horses, and on Oakland.

For every split the script trains, on the same training images,

* ``mrf``: :class:`~segmentation.model.MRFSegmenter` with its defaults -- what
  ``structpred segment train`` does without tuning flags: the class weight,
  the step and the iteration chosen on validation IoU, the validation set
  being every 1/0.15-th training image, held out;
* ``unary``: the same with ``use_edges=False`` (same features, same choices);
* ``peer``: scikit-image's trainable segmentation
  (``skimage.future.fit_segmenter`` / ``predict_segmenter`` with
  ``skimage.feature.multiscale_basic_features`` and a scikit-learn
  ``RandomForestClassifier``, the settings of scikit-image's example), trained on
  ``--peer-pixels`` random pixels of every training image;

and prints the test foreground IoU (pooled over all test pixels, in percent).

Splits.  ``zjw``: horse001-278 train, horse279-327 test (the manifest's split).
``fold{k}``: the 327 horses in ``--folds`` contiguous blocks of the id order;
block k is the test set, the rest the training set.  ``inner{k}``: the same on the
standard split's 278 training images only (what defaults are chosen on; see
``scripts/select_segmentation_defaults.py``).  ``small{s}``: 50 of those 278 images drawn
with the seed ``s``, 25 to train and 25 to test: a source as small as a user's own, where
the default chooses by cross-validation.  Every MRF run also stores each guard
candidate's per-item (intersection, union) on validation and test (``valid_stats``,
``test_stats``); ``--table FILES`` merges result files into one table, unary-only taken from
the guard's own unary-only candidate when there is no separate run.  Oakland (``--oakland``):
scans 01-05 + 06-07 train (the default hold-out picks the validation scans),
08-10 test, vegetation (1300-1306) against the rest, 1 m voxels.

Example::

    python scripts/bench_segmentation_peers.py --splits zjw fold0 fold1 fold2 --oakland
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from segmentation.data import (binary_labels, default_data_dir, horse_items,  # noqa: E402
                               load_example, load_points, parse_label_ranges)
from segmentation.features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES  # noqa: E402
from segmentation.metrics import segmentation_scores  # noqa: E402
from segmentation.model import MRFSegmenter, describe_choice  # noqa: E402

OAKLAND_VEGETATION = "1300-1306"  # the Oakland experiment's foreground (not a library default)


def cpu_seconds():
    """CPU seconds of this process and of its finished children (the forked candidates)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def feature_key():
    """The cache folder's key: the feature names and the full source of the modules that
    compute, read and write a graph, so that a change to any of them (a graph file format
    with a header, say) starts a new folder instead of reading stale files."""
    h = hashlib.sha1(("|".join(NODE_FEATURE_NAMES) + "#" + "|".join(EDGE_FEATURE_NAMES))
                     .encode())
    for name in ("features.py", "data.py", "graph_io.py", "examples.py"):
        h.update((ROOT / "segmentation" / name).read_bytes())
    return h.hexdigest()[:10]


class GraphCache:
    """One ``.npz`` per (image, n_segments, feature set): features are computed once."""

    def __init__(self, root):
        self.root = Path(root) / f"graphs-{feature_key()}"
        self.root.mkdir(parents=True, exist_ok=True)

    def graph(self, item, n_segments):
        from segmentation.graph_io import load_graph, save_graph

        p = self.root / f"{item.id}-s{n_segments}.npz"
        if p.exists():
            return load_graph(p)
        img, mask, ign = load_example(item.image, item.mask)
        g = MRFSegmenter().image_graph(img, mask, ign, n_segments=n_segments)
        save_graph(g, p)
        return g

    def source(self, items):
        return lambda ns: (self.graph(it, ns or 1000) for it in items)


def horse_splits(data_dir, names, n_folds):
    items = horse_items(data_dir)
    out = {}
    for name in names:
        if name == "zjw":
            out[name] = ([it for it in items if it.split == "train"],
                         [it for it in items if it.split == "test"])
        elif name.startswith("inner"):
            # the training images of the standard split only (horse001-278), in contiguous
            # blocks: what defaults are chosen on, never touching the test images 279-327
            k = int(name[5:])
            pool = [it for it in items if it.split == "train"]
            blocks = np.array_split(np.arange(len(pool)), n_folds)
            test = set(blocks[k].tolist())
            out[name] = ([it for i, it in enumerate(pool) if i not in test],
                         [it for i, it in enumerate(pool) if i in test])
        elif name.startswith("small"):
            # a small source as a user of another image set has it: 25 training and 25 test
            # images drawn (seeded by the number) from the standard split's training images
            # only, so the default's small-data path (cross-validation) is what is measured
            pool = [it for it in items if it.split == "train"]
            pick = np.random.default_rng(int(name[5:])).choice(len(pool), 50, replace=False)
            out[name] = ([pool[i] for i in pick[:25]], [pool[i] for i in pick[25:]])
        elif name.startswith("fold"):
            k = int(name[4:])
            blocks = np.array_split(np.arange(len(items)), n_folds)
            test = set(blocks[k].tolist())
            out[name] = ([it for i, it in enumerate(items) if i not in test],
                         [it for i, it in enumerate(items) if i in test])
        else:
            raise SystemExit(f"unknown split {name!r}")
    return out


def run_model(cache, train, test, use_edges, **params):
    m = MRFSegmenter(use_edges=use_edges, **params)
    t0, c0 = time.perf_counter(), cpu_seconds()
    m.fit(cache.source(train), kind="image", log=_log)
    secs, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    ns = m._segments()
    graphs = [cache.graph(it, ns) for it in test]
    sc = m.score_graphs(graphs)
    return dict(iou=sc.iou, accuracy=sc.accuracy, mean_image_iou=sc.mean_image_iou, seconds=secs,
                cpu_seconds=cpu, chosen=describe_choice(m.chosen_), valid_iou=m.chosen_["valid_score"],
                guard=getattr(m, "guard_", None),
                selection=[{k: v for k, v in r.items()} for r in m.selection_],
                **candidate_stats(m, graphs))


def candidate_stats(m, graphs):
    """Per-item (intersection, union) of every candidate of the guard: on the validation
    items (what the guard chose on) and on ``graphs`` (the test items), so that other sets
    of candidates can be replayed without training again."""
    out = {"valid_stats": None, "test_stats": None,
           "final_stats": m._image_stats(m.coef_, graphs).tolist()}   # the model kept
    if getattr(m, "guard_stats_", None):
        out["valid_stats"] = {k: np.asarray(v).tolist() for k, v in m.guard_stats_.items()}
    if getattr(m, "candidates_", None):
        out["test_stats"] = {k: m._image_stats(w, graphs).tolist() for k, w in m.candidates_.items()}
    return out


def _peer_features(img):
    from skimage.feature import multiscale_basic_features

    return multiscale_basic_features(img, channel_axis=-1, intensity=True, edges=True, texture=True,
                                     sigma_min=1, sigma_max=16)


def run_peer(train, test, pixels_per_image, seed):
    """scikit-image's trainable segmentation on the same images."""
    from skimage.future import fit_segmenter, predict_segmenter
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(seed)
    X, y = [], []
    t0 = time.perf_counter()
    for it in train:
        img, mask, _ = load_example(it.image, it.mask)
        f = _peer_features(img)
        f = f.reshape(-1, f.shape[-1])
        idx = rng.choice(f.shape[0], size=min(pixels_per_image, f.shape[0]), replace=False)
        X.append(f[idx])
        y.append(mask.ravel()[idx])
    X = np.concatenate(X)[:, None, :]
    labels = (np.concatenate(y).astype(np.uint8) + 1)[:, None]  # 1 background, 2 horse
    clf = RandomForestClassifier(n_estimators=50, n_jobs=-1, max_depth=10, max_samples=0.05,
                                 random_state=seed)
    clf = fit_segmenter(labels, X, clf)
    preds, truths = [], []
    for it in test:
        img, mask, _ = load_example(it.image, it.mask)
        preds.append(predict_segmenter(_peer_features(img), clf) == 2)
        truths.append(mask)
    sc = segmentation_scores(preds, truths)
    return dict(iou=sc.iou, accuracy=sc.accuracy, mean_image_iou=sc.mean_image_iou,
                seconds=time.perf_counter() - t0)


def oakland(data_dir, cache_root, params):
    folder = Path(data_dir) / "oakland3d_part2"
    files = {i: folder / f"oakland_part2_{i:02d}.xyz_label_conf.gz" for i in range(1, 11)}
    have = [i for i in files if files[i].exists()]
    test_ids = [i for i in have if i >= 8]
    train_ids = [i for i in have if i < 8]
    fg = parse_label_ranges(OAKLAND_VEGETATION)
    proto = MRFSegmenter(voxel=1.0, k_graph=6)
    from segmentation.graph_io import load_graph, save_graph

    def graph(i):
        p = Path(cache_root) / f"oakland-{i:02d}-v1.0-k6.npz"
        if p.exists():
            return load_graph(p)
        xyz, lab = load_points(files[i])
        g = proto.point_graph(xyz, binary_labels(lab, fg))
        p.parent.mkdir(parents=True, exist_ok=True)
        save_graph(g, p)
        return g

    rows = {}
    for name, edges in (("mrf", True), ("unary", False)):
        m = MRFSegmenter(use_edges=edges, voxel=1.0, k_graph=6, foreground_labels=OAKLAND_VEGETATION,
                         **params)
        t0, c0 = time.perf_counter(), cpu_seconds()
        m.fit(lambda ns: (graph(i) for i in train_ids), kind="points", log=_log)
        secs = time.perf_counter() - t0
        graphs = [graph(i) for i in test_ids]
        sc = m.score_graphs(graphs)
        rows[name] = dict(iou=sc.iou, accuracy=sc.accuracy, seconds=secs,
                          cpu_seconds=cpu_seconds() - c0,
                          chosen=describe_choice(m.chosen_), valid_iou=m.chosen_["valid_score"],
                          guard=getattr(m, "guard_", None), **candidate_stats(m, graphs))
        _log(f"oakland {name}: IoU {100 * sc.iou:.2f}% ({secs:.0f}s, {rows[name]['chosen']})")
    return rows


def _unary(row):
    """Unary-only test IoU of a split: its own run, or else the guard's unary-only candidate
    of the MRF run (the same search on the same features: what ``use_edges=False`` trains)."""
    if "unary" in row:
        return row["unary"]["iou"]
    st = (row.get("mrf") or {}).get("test_stats") or {}
    if "unary" in st:
        a = np.asarray(st["unary"], dtype=np.float64)
        return a[:, 0].sum() / max(a[:, 1].sum(), 1.0)
    return None


def table(results):
    """Markdown table: per split unary-only, MRF (default), their difference and the peer."""
    f = (lambda v: "-" if v is None else f"{100 * v:.2f}")
    lines = ["| split | train / test | unary-only IoU (%) | MRF IoU (%) | MRF - unary | "
             "scikit-image peer IoU (%) | MRF chose | guard (validation IoU) | CPU s (MRF run) |",
             "|---|---|---|---|---|---|---|---|---|"]
    rows = [(name, f"{r['n_train']} / {r['n_test']}", r) for name, r in results["splits"].items()]
    if "oakland" in results:
        rows.append(("oakland", "scans 01-07 / 08-10", results["oakland"]))
    for name, size, r in rows:
        u, m, p = _unary(r), (r.get("mrf") or {}).get("iou"), (r.get("peer") or {}).get("iou")
        d = "-" if u is None or m is None else f"{100 * (m - u):+.2f}"
        g = (r.get("mrf") or {}).get("guard") or {}
        ev = ", ".join(f"{k} {100 * v:.2f}" for k, v in sorted((g.get("scores") or {}).items()))
        cpu = (r.get("mrf") or {}).get("cpu_seconds")
        lines.append(f"| {name} | {size} | {f(u)} | {f(m)} | {d} | {f(p)} | "
                     f"{(r.get('mrf') or {}).get('chosen', '-')} | {ev} | "
                     f"{'-' if cpu is None else f'{cpu:.0f}'} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--splits", nargs="*", default=["zjw"], help="zjw, fold0 .. fold{K-1}, inner0 .. inner{K-1}, small{SEED} (none: Oakland only)")
    ap.add_argument("--folds", type=int, default=3, help="K for the fold splits")
    ap.add_argument("--methods", default="mrf,unary,peer")
    ap.add_argument("--oakland", action="store_true", help="also the Oakland check (mrf, unary)")
    ap.add_argument("--peer-pixels", type=int, default=1000, help="training pixels per image (peer)")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=JSON",
                    help="override an MRFSegmenter default, e.g. --param n_iter=60")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache-dir", default=str(ROOT / ".cache" / "segmentation"))
    ap.add_argument("--out", default=str(ROOT / "runs" / "segmentation" / "peers.json"))
    ap.add_argument("--table", nargs="+", metavar="JSON",
                    help="print the table of these result files (merged) and exit")
    args = ap.parse_args(argv)
    if args.table:
        results = {"splits": {}}
        for p in args.table:
            r = json.loads(Path(p).read_text())
            for name, row in r.get("splits", {}).items():
                results["splits"].setdefault(name, {}).update(row)
            if "oakland" in r:
                results["oakland"] = r["oakland"]
        print(table(results))
        return results
    params = {}
    for p in args.param:
        k, _, v = p.partition("=")
        params[k] = json.loads(v)
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    cache = GraphCache(args.cache_dir)
    methods = args.methods.split(",")
    results = {"params": params, "splits": {}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for name, (train, test) in horse_splits(data_dir, args.splits, args.folds).items():
        row = {"n_train": len(train), "n_test": len(test)}
        _log(f"== {name}: {len(train)} train, {len(test)} test images")
        for method in methods:
            if method == "peer":
                row[method] = run_peer(train, test, args.peer_pixels, args.seed)
            else:
                row[method] = run_model(cache, train, test, method == "mrf", **params)
            _log(f"{name} {method}: IoU {100 * row[method]['iou']:.2f}% "
                 f"({row[method]['seconds']:.0f}s{', ' + row[method]['chosen'] if 'chosen' in row[method] else ''})")
        results["splits"][name] = row
        out.write_text(json.dumps(results, indent=1, default=str))
    if args.oakland:
        results["oakland"] = oakland(data_dir, args.cache_dir, params)
        out.write_text(json.dumps(results, indent=1, default=str))
    print(table(results))
    return results


if __name__ == "__main__":
    main()
