"""``structpred segment train|predict|eval`` (see :mod:`structpred.cli`).

Inputs are either images (``--manifest CSV`` or ``--images DIR|FILE...`` with
``--masks DIR``; masks are matched to images by file stem) or labelled point
files (``--points FILE...``: ``x y z label [conf]``, plain or gzipped; the
task is vegetation, labels 1300-1306, against the rest).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .commands import UserError, _log, _wrap_format_errors

__all__ = ["segment_train", "segment_predict", "segment_eval"]

_IMAGE_EXT = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff"}


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

    from .io import atomic_write

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

    from .io import atomic_write

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

    from .io import atomic_write

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
