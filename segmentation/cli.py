"""``structpred segment train|predict|eval``: max-margin min-cut MRF segmentation.

Registered in the ``structpred.commands`` entry-point group (pyproject.toml).

Inputs are either images (``--manifest CSV`` or ``--images DIR|FILE...`` with
``--masks DIR``; masks are matched to images by file stem) or labelled point
files (``--points FILE...``: ``x y z label [conf]``, plain or gzipped; the
task is vegetation, labels 1300-1306, against the rest).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from structpred import LEARNERS
from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors

__all__ = ["add_parser", "segment_train", "segment_predict", "segment_eval"]

_IMAGE_EXT = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"}



def _add_segment_inputs(p, masks=True):
    g = p.add_argument_group("inputs: images (a manifest, or files/folders) or labelled point files")
    g.add_argument("--manifest", metavar="CSV",
                   help="manifest with an 'id' column (and 'split'/'split_zjw'); images in "
                        "small/images/<id>.png and masks in small/masks/<id>.png next to it")
    g.add_argument("--split", metavar="NAME", help="use only the manifest rows of this split")
    g.add_argument("--image-dir", metavar="DIR", help="override the manifest's image folder")
    g.add_argument("--mask-dir", metavar="DIR", help="override the manifest's mask folder")
    g.add_argument("--images", nargs="+", metavar="PATH", help="image files or folders")
    if masks:
        g.add_argument("--masks", metavar="DIR",
                       help="folder of binary masks (0/255 PNG) named like the images")
    else:
        g.add_argument("--masks", metavar="DIR", help=argparse.SUPPRESS)
    g.add_argument("--points", nargs="+", metavar="FILE",
                   help="point files 'x y z label [conf]' (.gz ok); task: vegetation (1300-1306) vs rest")
    g.add_argument("--limit", type=int, default=None, metavar="N", help="first N images only")


def add_parser(subparsers, name):
    """Add ``structpred segment`` (train, predict, eval) to ``subparsers``."""
    seg = subparsers.add_parser(name, formatter_class=_Formatter,
                         help="binary segmentation with max-margin min-cut MRFs",
                         description="Train and apply associative MRFs (thesis sec. 2.2.2) on "
                                     "images (SLIC superpixels) or 3-D point clouds (kNN graphs).")
    ssub = seg.add_subparsers(dest="segment_command", required=True)

    tr = ssub.add_parser("train", formatter_class=_Formatter, help="train a segmentation MRF",
        description="Train with the memory-efficient dual extragradient (or a reference "
                    "learner). Example:\n"
                    "  structpred segment train --manifest data/segmentation/weizmann_horse/"
                    "manifest.csv --split train -o horse.npz")
    _add_segment_inputs(tr)
    tr.add_argument("--valid-manifest", metavar="CSV", help="validation manifest (default: --manifest)")
    tr.add_argument("--valid-split", metavar="NAME",
                    help="validation rows of the manifest: the best iterate on them is kept")
    tr.add_argument("--valid-points", nargs="+", metavar="FILE", help="validation point files")
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    tr.add_argument("--learner", default="dual-extragradient",
                    choices=LEARNERS)
    tr.add_argument("--iterations", type=int, default=100, help="iterations (perceptron: epochs)")
    tr.add_argument("--eta-scale", type=float, default=1.0, help="step eta = ETA_SCALE / ||F||_2")
    tr.add_argument("--feature-scale", type=float, default=0.02,
                    help="multiplies all features: balances the w- and z-steps of the extragradient")
    tr.add_argument("--validate-every", type=int, default=5)
    tr.add_argument("--no-edges", action="store_true", help="unary-only linear model (no MRF edges)")
    tr.add_argument("--class-weight", default="balanced",
                    help="Hamming loss class weights: 'balanced', 'none' or the foreground weight")
    tr.add_argument("--memory-efficient", action="store_true",
                    help="stream training graphs from a disk cache (memory independent of their number)")
    tr.add_argument("--n-segments", type=int, default=1000,
                    help="SLIC superpixels per image (1000: chosen on the horse validation images)")
    tr.add_argument("--voxel", type=float, default=0.25, help="point thinning voxel size (m)")
    tr.add_argument("--k-graph", type=int, default=6, help="neighbours per point in the kNN graph")
    tr.add_argument("--seed", type=int, default=0)
    _add_quiet(tr)
    tr.set_defaults(handler=segment_train)

    pr = ssub.add_parser("predict", formatter_class=_Formatter, help="write predicted masks or point labels",
                         description="Writes <id>.png masks (0/255) for images, or "
                                     "'x y z label' files (<name>.pred.txt) for point clouds.")
    pr.add_argument("-m", "--model", required=True, metavar="NPZ")
    _add_segment_inputs(pr, masks=False)
    pr.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder")
    pr.add_argument("--side-by-side", metavar="DIR",
                    help="also write input | prediction images to this folder")
    _add_quiet(pr)
    pr.set_defaults(handler=segment_predict)

    ev = ssub.add_parser("eval", formatter_class=_Formatter, help="accuracy and foreground IoU",
                         description="Pixel (or point) accuracy and foreground IoU, pooled over "
                                     "all inputs.")
    ev.add_argument("-m", "--model", required=True, metavar="NPZ")
    _add_segment_inputs(ev)
    ev.add_argument("--side-by-side", metavar="DIR",
                    help="also write input | truth | prediction images to this folder")
    _add_quiet(ev)
    ev.set_defaults(handler=segment_eval)
    return seg


_wrap = _wrap_format_errors


def _image_files(spec):
    files = []
    for s in spec:
        p = Path(s)
        if p.is_dir():
            files.extend(sorted(f for f in p.iterdir() if f.suffix.lower() in _IMAGE_EXT))
        elif p.exists():
            files.append(p)
        else:
            raise UserError(f"{p}: no such file or folder")
    if not files:
        raise UserError(f"no images found in {' '.join(map(str, spec))}")
    return files


def _mask_for(image, mask_dir):
    for ext in (".png", image.suffix):
        cand = Path(mask_dir) / (image.stem + ext)
        if cand.exists():
            return cand
    raise UserError(f"{image}: no mask named {image.stem}.png in {mask_dir}")


def _image_items(args, need_masks):
    """``[(id, image_path, mask_path or None)]`` from --manifest or --images/--masks."""
    from segmentation.data import read_manifest

    if getattr(args, "manifest", None):
        items = read_manifest(args.manifest, args.image_dir, args.mask_dir)
        if args.split:
            items = [it for it in items if it.split == args.split]
            if not items:
                raise UserError(f"{args.manifest}: no rows with split {args.split!r}")
        out = [(it.id, it.image, it.mask) for it in items]
        if need_masks:
            missing = [str(i) for i, _, m in out if m is None]
            if missing:
                raise UserError(f"{args.manifest}: no mask for {', '.join(missing[:5])}")
    elif getattr(args, "images", None):
        files = _image_files(args.images)
        if need_masks and not args.masks:
            raise UserError("--images needs --masks (a folder of masks named like the images)")
        out = [(f.stem, f, _mask_for(f, args.masks) if args.masks else None) for f in files]
    else:
        return None
    if args.limit:
        out = out[:args.limit]
    return out


def _point_items(args):
    files = [Path(p) for p in (args.points or [])]
    for f in files:
        if not f.exists():
            raise UserError(f"{f}: no such file")
    return files


def _read_points(path, need_labels):
    from segmentation.data import load_points
    from segmentation.points import vegetation_labels

    xyz, lab = load_points(path)
    if need_labels and lab is None:
        raise UserError(f"{path}: needs a label column (x y z label)")
    return xyz, (None if lab is None else vegetation_labels(lab))


def _model_from_args(args):
    from segmentation.model import MRFSegmenter, parse_class_weight

    cw = parse_class_weight(args.class_weight)
    return MRFSegmenter(learner=args.learner, n_iter=args.iterations, use_edges=not args.no_edges,
                        class_weight=cw, eta_scale=args.eta_scale, feature_scale=args.feature_scale,
                        validate_every=args.validate_every,
                        memory_efficient=args.memory_efficient, n_segments=args.n_segments,
                        voxel=args.voxel, k_graph=args.k_graph, random_state=args.seed,
                        verbose=not args.quiet)


def _graphs(model, items, kind, need_labels=True):
    """Lazily build graphs (a generator, so memory-efficient training holds one)."""
    from segmentation.data import load_pair

    if kind == "image":
        for _, img, mask in items:
            yield model.image_graph(*load_pair(img, mask if need_labels else None))
    else:
        for f in items:
            xyz, lab = _read_points(f, need_labels)
            yield model.point_graph(xyz, lab)


@_wrap
def segment_train(args):
    """``structpred segment train``."""
    items = _image_items(args, need_masks=True)
    points = _point_items(args)
    if items and points:
        raise UserError("give images (--manifest/--images) or --points, not both")
    if not items and not points:
        raise UserError("no training data: give --manifest, --images with --masks, or --points")
    kind = "image" if items else "points"
    model = _model_from_args(args)
    valid = None
    if kind == "image" and (args.valid_manifest or args.valid_split):
        class V:  # the validation selection, read with the same options
            manifest = args.valid_manifest or args.manifest
            image_dir, mask_dir, split, limit = args.image_dir, args.mask_dir, args.valid_split, None
            images = masks = None
        vitems = _image_items(V, need_masks=True)
        valid = list(_graphs(model, vitems, "image"))
    elif kind == "points" and args.valid_points:
        valid = list(_graphs(model, [Path(p) for p in args.valid_points], "points"))
    t0 = time.perf_counter()
    model.fit_graphs(_graphs(model, items or points, kind), valid, kind=kind)
    res = model.result_
    msg = f"trained on {model.n_train_} {'images' if kind == 'image' else 'scans'} in " \
          f"{time.perf_counter() - t0:.1f}s ({res.message})"
    if res.best_iter is not None:
        msg += f"; best validation score {res.best_score:.4f} at iteration {res.best_iter}"
    _log(args, msg)
    model.save(args.output)
    _log(args, f"model written to {args.output}")
    return 0


def _load_model(path):
    from segmentation.model import MRFSegmenter

    try:
        return MRFSegmenter.load(path)
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def _side_by_side(image, truth, pred, path):
    """Input | truth | prediction, written as one PNG."""
    import numpy as np
    from PIL import Image

    from structpred import atomic_write

    panels = [image]
    for m in ([truth] if truth is not None else []) + [pred]:
        panels.append(np.repeat((np.asarray(m, dtype=np.uint8) * 255)[..., None], 3, axis=2))
    gap = np.full((image.shape[0], 4, 3), 128, dtype=np.uint8)
    row = [panels[0]]
    for p in panels[1:]:
        row += [gap, p]
    with atomic_write(path, mode="wb") as fh:
        Image.fromarray(np.concatenate(row, axis=1)).save(fh, format="PNG")


def _write_mask(mask, path):
    import numpy as np
    from PIL import Image

    from structpred import atomic_write

    with atomic_write(path, mode="wb") as fh:
        Image.fromarray(np.asarray(mask, dtype=np.uint8) * 255).save(fh, format="PNG")


def _run_images(args, model, items, need_masks):
    """Predict every image; write masks / side-by-sides; return (preds, truths)."""
    from segmentation.data import load_pair

    out_dir = Path(args.output) if getattr(args, "output", None) else None
    sbs = Path(args.side_by_side) if args.side_by_side else None
    for d in (out_dir, sbs):
        if d is not None:
            d.mkdir(parents=True, exist_ok=True)
    preds, truths = [], []
    for ident, img_path, mask_path in items:
        img, mask = load_pair(img_path, mask_path if need_masks or mask_path else None)
        pred = model.predict([img])[0]
        if out_dir is not None:
            _write_mask(pred, out_dir / f"{ident}.png")
        if sbs is not None:
            _side_by_side(img, mask, pred, sbs / f"{ident}.png")
        preds.append(pred)
        truths.append(mask)
    return preds, truths


def _run_points(args, model, files, need_labels):
    import numpy as np

    from structpred import atomic_write

    out_dir = Path(args.output) if getattr(args, "output", None) else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    preds, truths = [], []
    for f in files:
        xyz, lab = _read_points(f, need_labels)
        pred = model.predict_points(xyz)
        if out_dir is not None:
            name = f.name[:-3] if f.name.endswith(".gz") else f.name
            with atomic_write(out_dir / f"{name}.pred.txt") as fh:
                np.savetxt(fh, np.column_stack([xyz, pred.astype(int)]), fmt="%.4f %.4f %.4f %d")
        preds.append(pred)
        truths.append(lab)
    return preds, truths


def _inputs_for(args, model, need_masks):
    items = _image_items(args, need_masks=need_masks)
    points = _point_items(args)
    if items and points:
        raise UserError("give images (--manifest/--images) or --points, not both")
    if not items and not points:
        raise UserError("no input: give --manifest, --images or --points")
    kind = "image" if items else "points"
    if kind != model.kind_:
        raise UserError(f"the model was trained on {model.kind_} data, not {kind}")
    return kind, items or points


@_wrap
def segment_predict(args):
    """``structpred segment predict``."""
    model = _load_model(args.model)
    kind, inputs = _inputs_for(args, model, need_masks=False)
    if kind == "image":
        _run_images(args, model, inputs, need_masks=False)
    else:
        if args.side_by_side:
            raise UserError("--side-by-side is for images")
        _run_points(args, model, inputs, need_labels=False)
    _log(args, f"predictions for {len(inputs)} inputs written to {args.output}")
    return 0


@_wrap
def segment_eval(args):
    """``structpred segment eval``: accuracy and foreground IoU."""
    from segmentation.metrics import format_scores, segmentation_scores

    model = _load_model(args.model)
    kind, inputs = _inputs_for(args, model, need_masks=True)
    if kind == "image":
        preds, truths = _run_images(args, model, inputs, need_masks=True)
    else:
        preds, truths = _run_points(args, model, inputs, need_labels=True)
    sc = segmentation_scores(preds, truths)
    print(f"{len(inputs)} {'images' if kind == 'image' else 'scans'}: {format_scores(sc)}")
    sys.stdout.flush()
    return 0
