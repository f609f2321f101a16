#!/usr/bin/env python
"""Max-margin min-cut MRFs on Weizmann horses and Oakland 3-D (thesis sec. 2.6.1).

For each data set the script trains, with validation-based selection along
the path (sec. 2.6),

* ``unary``: the linear model on the same node features without edges
  (dual extragradient, same loss);
* ``ave-perc``: the averaged perceptron MRF;
* ``proj-grad``: averaged projected gradient (eq. 2.16);
* ``dual-ex``: the memory-efficient dual extragradient (fig. 2.6);

prints test accuracy and foreground IoU (pooled over all test pixels or
points), and plots the training hinge loss (eq. 2.21) and the test error
against ``||w||`` (fig. 2.7 a, d) to ``<out-dir>/<dataset>_path.png``.

Splits.  Horses: the manifest's ``train`` rows horse001-horse278, of which the
last ``--n-valid`` (default 40: horse239-278) are the validation set, and
the 49 ``test`` rows horse279-327.  Oakland: scans 01-05 train, 06-07
validation, 08-10 test (the README's suggested 01-05 / 06-10 split, with the
first two of the second half for validation).

Data.  ``--data-dir`` (default ``../shared/data/segmentation`` relative to the
repository root, falling back to the bundled slice ``data/segmentation``)
holds ``weizmann_horse/`` and ``oakland3d_part2/``.

Example::

    python scripts/reproduce_segmentation.py --dataset horses --iterations 100
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from segmentation.data import (binary_labels, default_data_dir, horse_items, load_pair,  # noqa: E402
                               load_points, parse_label_ranges)
from segmentation.model import MRFSegmenter, parse_class_weight  # noqa: E402

FEATURE_VERSION = 5  # bump when the feature code changes (graph cache keys)
#: The Oakland task of this experiment: vegetation (fine labels 1300-1306) against the rest.
OAKLAND_VEGETATION = "1300-1306"
OAKLAND_SPLIT = {"train": [1, 2, 3, 4, 5], "valid": [6, 7], "test": [8, 9, 10]}
METHODS = ("unary", "ave-perc", "proj-grad", "dual-ex")


def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def _cached_graphs(cache_dir, key, build):
    """Graphs from the cache (``.npz`` per graph) or built and written there."""
    from segmentation.graph_io import load_graph, save_graph

    d = Path(cache_dir) / key
    done = d / "done.json"
    if done.exists():
        from structpred import FormatError

        n = json.loads(done.read_text())["n"]
        try:
            return [load_graph(d / f"{i:05d}.npz", hint="a damaged cache file")
                    for i in range(n)]
        except FormatError as exc:   # an edited or damaged cache file: computed again
            _log(f"{exc}: computing the graphs of {d} again")
            done.unlink()
    graphs = build()
    d.mkdir(parents=True, exist_ok=True)
    for i, g in enumerate(graphs):
        save_graph(g, d / f"{i:05d}.npz")
    done.write_text(json.dumps({"n": len(graphs)}))
    return graphs


def horse_graphs(data_dir, n_train, n_valid, cache_dir, n_segments):
    items = horse_items(data_dir)
    train = [it for it in items if it.split == "train"]
    test = [it for it in items if it.split == "test"]
    if n_valid > len(train) // 4:  # the bundled slice has 30 training images
        n_valid = max(1, len(train) // 4)
        _log(f"only {len(train)} training images: using the last {n_valid} for validation")
    valid, train = train[len(train) - n_valid:], train[:len(train) - n_valid]
    if n_train:
        train = train[:n_train]
    proto = MRFSegmenter(n_segments=n_segments)

    def build(its):
        return lambda: [proto.image_graph(*load_pair(it.image, it.mask)) for it in its]

    out = {}
    for name, its in (("train", train), ("valid", valid), ("test", test)):
        h = hashlib.sha1(("|".join(str(it.image) for it in its) + f"|{n_segments}|{FEATURE_VERSION}").encode()).hexdigest()[:12]
        t0 = time.perf_counter()
        out[name] = _cached_graphs(cache_dir, f"horses-{name}-{h}", build(its))
        _log(f"horses {name}: {len(its)} images ({time.perf_counter() - t0:.0f}s)")
    return out, dict(train=len(train), valid=len(valid), test=len(test))


def oakland_graphs(data_dir, cache_dir, voxel, k_graph):
    vegetation = parse_label_ranges(OAKLAND_VEGETATION)
    folder = Path(data_dir) / "oakland3d_part2"
    files = {i: folder / f"oakland_part2_{i:02d}.xyz_label_conf.gz" for i in range(1, 11)}
    proto = MRFSegmenter(voxel=voxel, k_graph=k_graph)
    out, counts = {}, {}
    for name, ids in OAKLAND_SPLIT.items():
        ids = [i for i in ids if files[i].exists()]
        if not ids:
            raise SystemExit(f"no Oakland scans for the {name} split under {folder}")

        def build(ids=ids):
            gs = []
            for i in ids:
                xyz, lab = load_points(files[i])
                gs.append(proto.point_graph(xyz, binary_labels(lab, vegetation)))
            return gs

        t0 = time.perf_counter()
        out[name] = _cached_graphs(cache_dir, f"oakland-{name}-{'-'.join(map(str, ids))}-v{voxel}-k{k_graph}-f{FEATURE_VERSION}",
                                   build)
        counts[name] = ids
        _log(f"oakland {name}: scans {ids}, {sum(g.n_nodes for g in out[name])} nodes "
             f"({time.perf_counter() - t0:.0f}s)")
    return out, counts


def parse_class_weights(text):
    """``"none,balanced,1.5"`` -> ``[None, "balanced", 1.5]`` (the candidates of ``--class-weight``)."""
    return [parse_class_weight(cw) for cw in text.split(",")]


def _make_model(method, args, class_weight):
    # one fixed setting per run (the candidates are looped over here) and the whole path
    # (no early stopping), as in the thesis' experiments
    common = dict(validate_every=args.validate_every, class_weight=class_weight, patience=None,
                  eta_scale=args.eta_scale, feature_scale=args.feature_scale,
                  random_state=args.seed, voxel=args.voxel,
                  k_graph=args.k_graph, n_segments=args.n_segments,
                  guard=False, colour_model=False)  # the thesis protocol: one fixed model
    if method == "unary":
        return MRFSegmenter(learner="dual-extragradient", n_iter=args.iterations, use_edges=False, **common)
    if method == "ave-perc":
        return MRFSegmenter(learner="perceptron", n_iter=args.epochs,
                            learning_rate=args.perceptron_rate, **{**common, "validate_every": 1})
    if method == "proj-grad":
        return MRFSegmenter(learner="projected-gradient", n_iter=args.iterations, **common)
    return MRFSegmenter(learner="dual-extragradient", n_iter=args.iterations,
                        memory_efficient=args.memory_efficient, **common)


def run_methods(graphs, kind, args, methods):
    """Train every method; with several ``--class-weight`` candidates, each method keeps
    the one whose selected iterate scores best on validation (test scores play no part)."""
    rows, models = [], {}
    for method in methods:
        best = None
        for cw in args.class_weight:
            m = _make_model(method, args, cw)
            t0 = time.perf_counter()
            m.fit(graphs["train"], eval_set=graphs["valid"], kind=kind, track=graphs["test"])
            secs = time.perf_counter() - t0
            valid_iou = float(m.result_.best_score)
            if len(args.class_weight) > 1:
                _log(f"  {method}, class weight {cw}: validation IoU {100 * valid_iou:.2f}% ({secs:.0f}s)")
            if best is None or valid_iou > best[1]:
                best = (m, valid_iou, cw, secs)
        m, valid_iou, cw, secs = best
        sc = m._scores_on_graphs(m.coef_, graphs["test"])
        rows.append(dict(method=method, accuracy=sc.accuracy, iou=sc.iou, mean_image_iou=sc.mean_image_iou,
                         seconds=secs, best_iter=m.result_.best_iter, w_norm=float(np.linalg.norm(m.coef_)),
                         edge_weights=[float(x) for x in m.edge_weights_], valid_iou=valid_iou,
                         class_weight="none" if cw is None else cw))
        models[method] = m
        _log(f"  {method}: test accuracy {100 * sc.accuracy:.2f}%, IoU {100 * sc.iou:.2f}% "
             f"({secs:.0f}s, best iteration {m.result_.best_iter}, class weight {cw}, "
             f"validation IoU {100 * valid_iou:.2f}%)")
    return rows, models


def table(rows, title):
    lines = [f"### {title}", "", "| method | test accuracy (%) | test error (%) | foreground IoU (%) "
             "| mean image IoU (%) | train time (s) | selected iteration | ||w|| | class weight "
             "| validation IoU (%) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['method']} | {100 * r['accuracy']:.2f} | {100 * (1 - r['accuracy']):.2f} "
                     f"| {100 * r['iou']:.2f} | {100 * r['mean_image_iou']:.2f} | {r['seconds']:.0f} "
                     f"| {r['best_iter']} | {r['w_norm']:.2f} | {r['class_weight']} "
                     f"| {100 * r['valid_iou']:.2f} |")
    return "\n".join(lines)


def plot(models, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from structpred.io import save_figure

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name, m in models.items():
        h = m.history_
        if name == "unary" or "hinge" not in h:
            continue
        axes[0].plot(h["w_norm"], h["hinge"], label=name, marker=".")
        axes[1].plot(h["w_norm"], 100 * np.asarray(h["track_error"]), label=name, marker=".")
    axes[0].set(xlabel="||w||", ylabel="training hinge loss (eq. 2.21)", title="(a) hinge loss vs ||w||")
    axes[1].set(xlabel="||w||", ylabel="test error (%)", title="(d) test error vs ||w||")
    if "unary" in models:
        u = models["unary"]
        axes[1].axhline(100 * u.history_["track_error"][int(np.argmax(u.history_["validation"]))],
                        color="grey", ls="--", label="unary (selected)")
    for ax in axes:
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlim(left=0)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, path)


def memory_check(data_dir, sizes, iterations):
    """Peak traced memory of memory-efficient dual-ex training against the number of images.

    Images are read lazily (a generator), turned into graphs, written to the
    on-disk cache one at a time and streamed back at every iteration; the
    held-out validation graphs are cached and streamed too.
    """
    import tracemalloc

    items = [it for it in horse_items(data_dir) if it.split == "train"]
    # warm-up (imports, Numba, caches) so that one-off allocations are not counted
    MRFSegmenter(n_iter=1, memory_efficient=True).fit(*zip(*(load_pair(it.image, it.mask) for it in items[:5])))
    rows = []
    for n in sizes:
        its = items[:n]
        # the default choices (class weight, step, iteration on a held-out 15 %), streamed
        model = MRFSegmenter(n_iter=iterations, memory_efficient=True, validate_every=1)
        images = (load_pair(it.image, it.mask)[0] for it in its)
        masks = (load_pair(it.image, it.mask)[1] for it in its)
        tracemalloc.start()
        t0 = time.perf_counter()
        model.fit(images, masks)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append((len(its), peak / 2**20, time.perf_counter() - t0))
        _log(f"  memory check: {len(its)} images, peak {peak / 2**20:.1f} MiB")
    print("| training images | peak traced memory (MiB) | time (s) |\n|---|---|---|")
    for n, mb, secs in rows:
        print(f"| {n} | {mb:.1f} | {secs:.0f} |")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None,
                    help="folder with weizmann_horse/ and oakland3d_part2/ (default: "
                         "../shared/data/segmentation, else the bundled data/segmentation)")
    ap.add_argument("--dataset", choices=["horses", "oakland", "both"], default="both")
    ap.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of " + ",".join(METHODS))
    ap.add_argument("--iterations", type=int, default=100, help="dual-ex / proj-grad / unary iterations")
    ap.add_argument("--epochs", type=int, default=20, help="perceptron epochs")
    ap.add_argument("--perceptron-rate", type=float, default=1.0)
    ap.add_argument("--eta-scale", type=float, default=3.0,
                    help="eta = ETA_SCALE / ||F||_2 (1 is the thesis' step)")
    ap.add_argument("--feature-scale", type=float, default=0.02,
                    help="multiplies all features: the balance of w- and z-steps (see MRFSegmenter)")
    ap.add_argument("--validate-every", type=int, default=5)
    ap.add_argument("--class-weight", default="none,balanced",
                    help="'balanced', 'none' or the foreground weight; a comma-separated list "
                         "trains each method with every candidate and keeps the one best on validation")
    ap.add_argument("--n-train", type=int, default=None, help="horses: first N training images only")
    ap.add_argument("--n-valid", type=int, default=40, help="horses: validation images (end of train)")
    ap.add_argument("--n-segments", type=int, default=1000,
                    help="SLIC superpixels per image (default 1000: with 400 the superpixels "
                         "already smooth the unary model and the MRF gained less on validation)")
    ap.add_argument("--voxel", type=float, default=0.25, help="Oakland thinning voxel (m)")
    ap.add_argument("--k-graph", type=int, default=6, help="Oakland kNN graph degree")
    ap.add_argument("--memory-efficient", action="store_true",
                    help="dual-ex streams its examples from disk (one at a time)")
    ap.add_argument("--memory-check", type=int, nargs="*", metavar="N", default=None,
                    help="only measure the peak memory of memory-efficient dual-ex training on "
                         "N horse images for each N given (default 20 80), then exit")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache-dir", default=str(ROOT / ".cache" / "segmentation"))
    ap.add_argument("--out-dir", default=str(ROOT / "runs" / "segmentation"))
    args = ap.parse_args(argv)
    args.class_weight = parse_class_weights(args.class_weight)
    methods = [m for m in args.methods.split(",") if m]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        ap.error(f"unknown methods {bad}")
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir()
    if args.memory_check is not None:
        memory_check(data_dir, args.memory_check or [20, 80], iterations=3)
        return
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    results = {}
    if args.dataset in ("horses", "both"):
        graphs, counts = horse_graphs(data_dir, args.n_train, args.n_valid, args.cache_dir, args.n_segments)
        rows, models = run_methods(graphs, "image", args, methods)
        title = (f"Weizmann horses ({counts['train']} train / {counts['valid']} validation / "
                 f"{counts['test']} test images, SLIC superpixels, pixel-level scores)")
        print(table(rows, title) + "\n", flush=True)
        plot(models, out / "horses_path.png", "Weizmann horses")
        results["horses"] = dict(rows=rows, counts=counts,
                                 histories={k: m.history_ for k, m in models.items()})
    if args.dataset in ("oakland", "both"):
        graphs, counts = oakland_graphs(data_dir, args.cache_dir, args.voxel, args.k_graph)
        rows, models = run_methods(graphs, "points", args, methods)
        title = (f"Oakland 3-D vegetation vs rest (scans {counts['train']} train / {counts['valid']} "
                 f"validation / {counts['test']} test, {args.voxel} m voxels, scored on every point)")
        print(table(rows, title) + "\n", flush=True)
        plot(models, out / "oakland_path.png", "Oakland 3-D, vegetation")
        results["oakland"] = dict(rows=rows, counts=counts,
                                  histories={k: m.history_ for k, m in models.items()})
    results["args"] = {k: v for k, v in vars(args).items()}
    results["seconds"] = time.perf_counter() - t_all
    (out / "results.json").write_text(json.dumps(results, indent=1, default=float))
    print(f"total time {results['seconds']:.0f}s; figures and results.json in {out}")


if __name__ == "__main__":
    main()
