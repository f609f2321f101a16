"""``structpred segment train|predict|eval``: max-margin min-cut MRF segmentation.

Registered in the ``structpred.commands`` entry-point group (pyproject.toml).

Inputs are either images (``--manifest CSV`` or ``--images DIR|FILE...`` with
``--masks DIR``; masks are matched to images by file stem, with any image
extension) or labelled point files (``--points FILE...``: ``x y z label
[...]``, plain or gzipped, with ``--foreground-labels`` naming the labels of
the foreground, e.g. ``1300-1306`` for the vegetation of the Oakland 3-D scans).

Every user error prints one line ``structpred: error: FILE[:LINE]: reason``
and exits with status 2; outputs are checked before any work and written
atomically, and a failed ``predict`` or ``eval`` removes what it wrote.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from structpred.io import gz_name, missing_reason, progress_enabled
from structpred.cli import ArgumentParser, HelpFormatter as _Formatter
from structpred.cli import UserError, check_held_out, check_output, refuse_options, log as _log
from structpred.io import counted, release_notes
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import open_cluster, with_cluster
from structpred.cli import check_separate_folders

from ._outputs import (Outputs as _Outputs, check_overwrite, planned_names, save_png,
                       warn_predicted_masks)
from ._reading import mask_reading, record_reading, use_model_reading
from .cli_options import add_eval_parser, add_predict_parser, add_train_parser

__all__ = ["add_parser", "segment_train", "segment_predict", "segment_eval"]


_wrap = _wrap_format_errors


# ------------------------------------------------------------ inputs
def _check_image_header(path):
    """A file named on the command line without an image extension must still be an image
    (a text file was looked up as an image and refused for its missing mask)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path):
            pass
    except (UnidentifiedImageError, OSError, ValueError):
        raise UserError(f"{path}: not an image file (--images takes image files, with any "
                        "extension Pillow reads, or folders of them)") from None


def _check_once(paths, what):
    """Refuse a file named twice, under any spelling (``a.png ./a.png``, a link): it
    would be scored twice."""
    seen = {}
    for p in paths:
        real = os.path.realpath(p)
        if real in seen:
            raise UserError(f"{p}: given twice ({seen[real]}); each {what} is scored once")
        seen[real] = p


def _image_files(spec, exclude=()):
    from segmentation._reading import check_subfolders
    from segmentation.data import folder_images, is_image_file

    files = []
    for s in spec:
        p = Path(s)
        if p.is_dir():
            own = folder_images(p)
            check_subfolders(p, len(own), exclude=[e for e in exclude if e] + list(spec))
            files.extend(own)
        elif p.exists():
            if not is_image_file(p):
                _check_image_header(p)
            files.append(p)
        else:
            raise UserError(f"{p}: {missing_reason(p, 'file or folder') or 'not a file'}")
    if not files:
        raise UserError(f"{' '.join(map(str, spec))}: no images found (extensions: png, jpg, ...)")
    _check_once(files, "image")
    seen = {}
    for f in files:
        if f.stem in seen:
            raise UserError(f"{f}: two images named {f.stem} ({seen[f.stem]} too); "
                            f"outputs are named by stem")
        seen[f.stem] = f
    return files


def _companion_hint(f, files):
    """For an image without a mask whose name is another image's plus a suffix (ISIC's
    ``ISIC_0000000_superpixels.png`` beside ``ISIC_0000000.jpg``): a file of the image's,
    read as an image of its own."""
    main = next((g for g in files if f.stem.startswith(g.stem) and len(f.stem) > len(g.stem)
                 and f.stem[len(g.stem)] in "_-." and f.suffix.lower() != g.suffix.lower()), None)
    return (f" (its name is the image {main.name}'s with a suffix: a file that goes with that "
            f"image, as ISIC's _superpixels.png? name the images alone, e.g. --images "
            f"{main.parent}/*{main.suffix})" if main else "")


def _masks_for(files, mask_dir, suffix=""):
    from segmentation.data import StemIndex

    index = StemIndex(mask_dir)
    suffixes = (suffix,) if isinstance(suffix, str) else suffix   # candidates, in order
    suffix = suffixes[0]
    out = []
    for f in files:
        m = next((m for sfx in suffixes if (m := index.find(f.stem + sfx, exclude=f))
                  is not None), None)
        if m is None:
            raise UserError(f"{f}: no mask named {f.stem}{suffix}.* in {mask_dir}"
                            f"{_companion_hint(f, files) or index.near_miss(f.stem)}")
        out.append(m)
    return out


def _check_split_spelling(manifest, items, split):
    """Refuse manifest rows whose split is ``split`` spelled another way (``Train`` for
    ``train``, ``train `` with a space): they were left out of the split silently."""
    from structpred import label_clash

    for it in items:
        if (it.split is not None and it.split != split
                and label_clash([it.split], known=[split]) is not None):
            raise UserError(f"{it.where}: the split {it.split!r} differs from the one asked "
                            f"for, {split!r}, only in case, white space or invisible characters: "
                            "the row would be left out; write every split one way")


def _image_items(args, need_masks, manifest=None, split=None, images=None, masks=None):
    """``[(id, image_path, mask_path or None, where)]`` from a manifest or images/masks."""
    from segmentation.data import read_manifest

    if manifest:
        items = read_manifest(manifest, args.image_dir, args.mask_dir, need_masks=need_masks,
                              mask_suffix=getattr(args, "mask_suffix", None) or "")
        if split:
            _check_split_spelling(manifest, items, split)
            splits = sorted({str(it.split) for it in items if it.split is not None})
            items = [it for it in items if it.split == split]
            if not items:
                raise UserError(f"{manifest}: no rows with split {split!r} (its splits: "
                                f"{', '.join(repr(v[:20]) for v in splits[:8]) or 'none'})")
        out = [(it.id, it.image, it.mask, it.where) for it in items]
    elif images:
        if masks and any(Path(s).is_dir() and Path(masks).is_dir() and Path(s).samefile(masks)
                         for s in images):
            raise UserError(f"{masks}: --images and --masks name the same folder, so its masks "
                            "would be read as images too; name the image files (--images "
                            "DIR/*.jpg) or move the masks to a folder of their own")
        files = _image_files(images, (masks, getattr(args, "output", None),   # predict -o DIR
                                      getattr(args, "side_by_side", None)))
        if need_masks and not masks:
            raise UserError("--images needs --masks (a folder of masks named like the images)")
        mfiles = (_masks_for(files, masks, getattr(args, "mask_suffix", None) or "") if masks
                  else [None] * len(files))
        out = [(f.stem, f, m, str(f)) for f, m in zip(files, mfiles)]
    else:
        return None
    return out


def _main_items(args, need_masks):
    items = _image_items(args, need_masks, args.manifest, args.split, args.images, args.masks)
    if need_masks and items:
        warn_predicted_masks(it[2] for it in items)
    if items is None and (args.split or args.image_dir or args.mask_dir):
        raise UserError("--split, --image-dir and --mask-dir need --manifest")
    if items is not None and args.limit:
        items = items[:args.limit]
    return items


def _point_items(files, limit=None):
    _check_once(files or [], "scan")
    out = []
    for p in files or []:
        f = Path(p)
        if not f.exists():
            raise UserError(f"{f}: {missing_reason(f) or 'not a file'}")
        if f.is_dir():
            raise UserError(f"{f}: is a folder, expected a point file")
        out.append(f)
    return out[:limit] if limit else out


def _read_points(path, ranges):
    from segmentation.data import binary_labels, load_points
    from segmentation.points import check_label_column

    xyz, lab = load_points(path)
    if ranges is None:
        return xyz, None
    if lab is None:
        raise UserError(f"{path}: needs a label column (x y z label)")
    check_label_column(path, lab)
    return xyz, binary_labels(lab, ranges)


def _source_name(args):
    """What to name in an error about the training data as a whole."""
    if args.manifest:
        return args.manifest
    if args.images:
        return args.masks or " ".join(args.images)
    return " ".join(args.points or [])


# ------------------------------------------------------------ outputs
def _resolved(p):
    try:
        return Path(p).resolve()
    except OSError:
        return Path(os.path.abspath(p))


def _input_paths(args, items=None, points=None):
    """Every file and folder the command reads (an output must be none of them)."""
    paths = set()
    for attr in ("manifest", "valid_manifest", "model", "image_dir", "mask_dir", "masks",
                 "valid_masks", "pred"):
        v = getattr(args, attr, None)
        if v:
            paths.add(_resolved(v))
    for attr in ("images", "valid_images", "points", "valid_points"):
        for v in getattr(args, attr, None) or []:
            paths.add(_resolved(v))
    for it in items or []:
        for p in it[1:3]:
            if p is not None:
                paths.add(_resolved(p))
                paths.add(_resolved(p).parent)
    for f in points or []:
        paths.add(_resolved(f))
    return paths


#: suffixes of files, not folders: a new output folder named so was meant as a file
_FILE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp", ".txt",
                  ".npz", ".csv", ".gz", ".xyz", ".pdf", ".svg")


def _check_output_dir(path, inputs, flag):
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise UserError(f"{d}: exists and is not a folder ({flag} needs a folder)")
    if d.exists():
        if not os.access(d, os.W_OK | os.X_OK):
            raise UserError(f"{d}: folder is not writable")
    else:
        if d.suffix.lower() in _FILE_SUFFIXES:   # '-o out.png' made a folder 'out.png'
            raise UserError(f"{d}: {flag} names a folder, to hold a file for each input "
                            f"(<id>.png, <name>.pred.txt), and '{d.name}' is named like a "
                            f"file: give a folder name")
        parent = d.parent if str(d.parent) else Path(".")
        if not parent.is_dir():   # a loop of links was "does not exist"
            raise UserError(f"{d}: folder {parent}: "
                            f"{missing_reason(parent, 'folder') or 'not a folder'}")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UserError(f"{d}: folder {parent} is not writable")
    if _resolved(d) in inputs:
        raise UserError(f"{d}: {flag} is also an input folder; predictions would overwrite inputs")


# ------------------------------------------------------------ train
def _count(n, kind):
    """``"1 image"``, ``"3 images"``, ``"1 scan"``, ..."""
    return counted(n, "image" if kind == "image" else "scan")


def _progress(args):
    """Progress bars only on a terminal, never with --quiet."""
    return progress_enabled(not args.quiet)


def _model_from_args(args):
    from segmentation.data import format_label_ranges
    from segmentation.model import MRFSegmenter

    fl = getattr(args, "foreground_labels", None)
    model = MRFSegmenter(learner=args.learner, n_iter=args.iterations, use_edges=not args.no_edges,
                         class_weight=args.class_weight, eta_scale=args.eta_scale,
                         feature_scale=args.feature_scale, validate_every=args.validate_every,
                         patience=args.patience or None, valid_fraction=args.valid_fraction,
                         tol=args.tol, guard=not args.no_guard,
                         n_jobs=-1 if args.jobs is None else args.jobs,
                         **({} if args.edge_factors is None else {"edge_factors": args.edge_factors}),
                         colour_model=not args.no_colour_model,
                         memory_efficient=args.memory_efficient, n_segments=args.n_segments,
                         voxel=args.voxel, k_graph=args.k_graph,
                         foreground_labels=format_label_ranges(fl) if fl else None,
                         random_state=args.seed, verbose=_progress(args))
    return record_reading(model, args)   # how its masks were read, kept in its file


def _image_source(model, items, reading):
    """``make(n_segments)``: graphs of ``items`` read from disk one at a time (their masks
    as ``reading`` says, :func:`~segmentation._reading.mask_reading`)."""
    from segmentation.data import load_example

    def make(ns):
        for _, img, mask, _ in items:
            im, m, ig = load_example(img, mask, **reading)
            yield model.image_graph(im, m, ig, n_segments=ns)
    return make


def _point_source(model, files, ranges, first=None):
    """``make(n_segments)``: graphs of the scans ``files``; each scan's point spacing must
    be near the first training scan's (``first``, shared with the validation scans'
    source, holds its name and spacing once read): one in other units is refused."""
    from segmentation.points import check_spacing

    first = [] if first is None else first

    def make(ns):
        for f in files:
            xyz, lab = _read_points(f, ranges)
            g = model.point_graph(xyz, lab)
            if first:
                try:
                    check_spacing(g.spacing, first[0][1], against=f"{first[0][0]}'s")
                except ValueError as exc:
                    raise UserError(f"{f}: {exc}") from None
            elif g.spacing is not None:
                first.append((f, float(g.spacing)))
            yield g
    return make


def _valid_items(args):
    """The validation images given on the command line, or None."""
    if args.valid_images:
        masks = args.valid_masks or args.masks
        if not masks:
            raise UserError("--valid-images needs --valid-masks (or --masks)")
        return _image_items(args, True, images=args.valid_images, masks=masks)
    if args.valid_manifest or args.valid_split:
        manifest = args.valid_manifest or args.manifest
        if not manifest:
            raise UserError("--valid-split needs --manifest or --valid-manifest")
        return _image_items(args, True, manifest=manifest, split=args.valid_split)
    if args.valid_masks:
        raise UserError("--valid-masks needs --valid-images")
    return None


def _check_listed_inputs(args, items, vitems, points, vpoints):
    """The images, masks and scans that manifests and folders list (the files named on the
    command line were checked before reading): none is the output, and no validation
    image or scan is a training one (a setting chosen on training examples prefers
    whatever fits them most)."""
    check_output(args.output, "-o", [("image, mask or scan it reads", p) for p in
                                     _input_paths(args, (items or []) + (vitems or []),
                                                  (points or []) + (vpoints or []))])
    check_held_out([(("training data", [it[1] for it in items or []] + list(points or [])),
                     ("the validation data", [it[1] for it in vitems or []]
                      + list(vpoints or [])))])


def _ignore_hint(args):
    """For a missing foreground: the ignore value may be the masks' own foreground value."""
    v = getattr(args, "ignore_value", None)
    return (f" (--ignore-value {v} is the foreground value of 0/{v} masks, so none is left: "
            f"leave it out (eval -m: --ignore-value none, if it is the model's), or give it "
            f"only with {'0/1' if v == 255 else '0/255'} masks)"
            if v in (1, 255) else "")


@_wrap
@with_cluster
def segment_train(args):
    """``structpred segment train``."""
    from segmentation.model import describe_choice

    # the files named on the command line, before any is read (the images a manifest or
    # folder lists are checked once they are known, below)
    named = []
    for k in ("manifest", "images", "points", "valid_manifest", "valid_images", "valid_points"):
        v = getattr(args, k)
        for f in (v if isinstance(v, (list, tuple)) else [v]) if v else []:
            if os.path.isfile(f):
                named.append((f"--{k.replace('_', '-')}", f))
    check_output(args.output, "-o", named, stdout=False)
    if args.no_guard or args.no_edges:   # it was accepted and ignored
        refuse_options(args, ("edge_factors",), "rescales the MRF's edge weights in the "
                       "guard's comparison: " + ("--no-edges trains no edge weights"
                                                 if args.no_edges else "--no-guard runs none"))
    items = _main_items(args, need_masks=True)
    points = _point_items(args.points, args.limit)
    if items and points:
        raise UserError("give images (--manifest/--images) or --points, not both")
    if not items and not points:
        raise UserError("no training data: give --manifest, --images with --masks, or --points")
    kind = "image" if items else "points"
    _refuse_other_kind(args, kind)
    if kind == "points":
        if args.foreground_labels is None:
            raise UserError("--points needs --foreground-labels (the labels of the foreground, "
                            "e.g. 1300-1306 for Oakland vegetation)")
        vpoints = _point_items(args.valid_points)
        vitems = None
    else:
        vitems = _valid_items(args)
        vpoints = None
    _check_listed_inputs(args, items, vitems, points, vpoints)
    model = _model_from_args(args)
    if kind == "image":
        reading = mask_reading(args)
        train_src = _image_source(model, items, reading)
        valid_src = _image_source(model, vitems, reading) if vitems else None
    else:
        first = []   # the first training scan and its point spacing
        train_src = _point_source(model, points, args.foreground_labels, first)
        valid_src = (_point_source(model, vpoints, args.foreground_labels, first) if vpoints
                     else None)
    t0 = time.perf_counter()
    try:
        # fit's first line comes once every image or scan is read and checked: the lines
        # held so far come with it
        model.fit(train_src, eval_set=valid_src, kind=kind,
                  log=lambda m: (release_notes(), _log(args, m)), executor=open_cluster(args))
    except ValueError as exc:
        from structpred import FormatError

        if isinstance(exc, FormatError):
            raise
        hint = _ignore_hint(args) if str(exc).startswith("no foreground") else ""
        raise UserError(f"{_source_name(args)}: {exc}{hint}") from exc
    if model.n_iter == "auto" or model.chosen_.get("capped"):
        capped = [r for r in model.selection_ if r.get("capped")]
        if capped:
            _log(args, f"{len(capped)} of {len(model.selection_)} candidates reached the "
                       f"iteration cap ({capped[0]['cap']}) before the stopping rule")
    msg = f"trained on {_count(model.n_train_, kind)}"
    if model.n_valid_:
        msg += f" ({model.n_valid_} more held out for validation)"
    msg += f" in {time.perf_counter() - t0:.1f}s"
    ch = model.chosen_
    cv = bool(getattr(model, "guard_", None) and model.guard_.get("cv_folds"))
    if model.validated_ and cv:
        msg += f"; chose {describe_choice(ch)}: cross-validated IoU {100 * ch['valid_score']:.2f}%"
    elif model.validated_:
        msg += (f"; chose {describe_choice(ch)}: validation IoU "
                f"{100 * ch['valid_score']:.2f}%" if model.validation_metric == "iou" else
                f"; chose {describe_choice(ch)}: validation error {100 * ch['valid_score']:.2f}%")
    else:
        msg += f" ({model.result_.message}; no validation, nothing chosen)"
    if getattr(model, "guard_", None):
        print(model.guard_["line"], flush=True)
    model.save(args.output)
    print(f"{msg}; model written to {args.output}", flush=True)
    return 0


# ------------------------------------------------------------ predict / eval
def _load_model(path):
    from segmentation.model import MRFSegmenter

    try:
        return MRFSegmenter.load(path)
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def _side_by_side(image, truth, pred, path):
    """Input | truth | prediction, written as one PNG."""
    import numpy as np

    from structpred import atomic_write

    panels = [image]
    for m in ([truth] if truth is not None else []) + [pred]:
        panels.append(np.repeat((np.asarray(m, dtype=np.uint8) * 255)[..., None], 3, axis=2))
    gap = np.full((image.shape[0], 4, 3), 128, dtype=np.uint8)
    row = [panels[0]]
    for p in panels[1:]:
        row += [gap, p]
    with atomic_write(path, mode="wb") as fh:
        save_png(np.concatenate(row, axis=1), fh)


def _write_mask(mask, path):
    import numpy as np

    from structpred import atomic_write

    with atomic_write(path, mode="wb") as fh:
        save_png(np.asarray(mask, dtype=np.uint8) * 255, fh)


def _predict_or_fail(model, fn, where):
    try:
        return fn()
    except ValueError as exc:
        from structpred import FormatError

        if isinstance(exc, FormatError):
            raise
        raise UserError(f"{where}: {exc}") from exc


def _run_images(args, model, items, need_masks, outs, executor=None):
    """Predict every image; write masks / side-by-sides; return (preds, truths, ignores).
    With ``executor`` the images are read here and predicted there, in order."""
    from segmentation.data import load_example

    out_dir = outs.folder(args.output) if getattr(args, "output", None) else None
    sbs = outs.folder(args.side_by_side) if args.side_by_side else None
    reading = mask_reading(args, model)
    preds, truths, ignores = [], [], []
    if executor is not None:
        from segmentation._parallel_predict import predict_images

        done = predict_images(model, items, need_masks, reading, executor,
                              lambda fn: _predict_or_fail(model, fn, args.model))
    from segmentation._image_kind import is_grey, warn_image_kind
    from segmentation._parallel_predict import _predict_image

    greys = []   # the images' kinds: one warning for them all, after the last
    for ident, img_path, mask_path, _ in items:
        if executor is not None:
            img, mask, ign, pred = next(done)
        else:
            img, mask, ign = load_example(img_path, mask_path if need_masks else None,
                                          **reading)
            pred = _predict_or_fail(model, lambda: _predict_image(model, img), img_path)
        greys.append(is_grey(img))
        if out_dir is not None:
            _write_mask(pred, outs.add(out_dir / f"{ident}.png"))
        if sbs is not None:
            _side_by_side(img, mask, pred, outs.add(sbs / f"{ident}.png"))
        preds.append(pred)
        truths.append(mask)
        ignores.append(ign)
    warn_image_kind(getattr(model, "grey_", None), greys, [str(i[1]) for i in items])
    return preds, truths, ignores


def _run_points(args, model, files, ranges, outs, executor=None):
    import numpy as np

    from structpred import atomic_write

    out_dir = outs.folder(args.output) if getattr(args, "output", None) else None
    preds, truths = [], []
    if executor is not None:
        from segmentation._parallel_predict import predict_points

        # a worker's refusal names the scan it was given (a scan in other units)
        done = predict_points(model, (_read_points(f, ranges) for f in files), executor)
    for f in files:
        if executor is not None:
            xyz, lab, pred = _predict_or_fail(model, lambda: next(done), f)
        else:
            xyz, lab = _read_points(f, ranges)
            pred = _predict_or_fail(model, lambda: model.predict_points(xyz), f)
        if out_dir is not None:
            name = f.name[:-3] if gz_name(f.name) else f.name
            with atomic_write(outs.add(out_dir / f"{name}.pred.txt")) as fh:
                np.savetxt(fh, np.column_stack([xyz, pred.astype(int)]), fmt="%.4f %.4f %.4f %d")
        preds.append(pred)
        truths.append(lab)
    return preds, truths, [None] * len(preds)


#: options for images only, and for point clouds only (refused with the other kind)
IMAGE_ONLY = ("n_segments", "no_colour_model", "ignore_value", "threshold", "image_dir",
              "mask_dir", "mask_suffix", "split", "masks", "valid_split", "valid_images",
              "valid_masks", "valid_manifest", "side_by_side", "background_labels")
POINTS_ONLY = ("voxel", "k_graph", "valid_points")
#: the options of reading masks (refused by predict, which reads none)
MASK_OPTIONS = ("foreground_labels", "background_labels", "ignore_value", "threshold",
                "mask_suffix", "masks", "mask_dir")


def _refuse_other_kind(args, kind):
    """An option for images given with point clouds, or the reverse: refused, never
    silently ignored."""
    known = getattr(args, "_option_defaults", {})
    if kind == "points":
        refuse_options(args, [d for d in IMAGE_ONLY if d in known],
                       "is for images, not point clouds (--points)")
    else:
        refuse_options(args, [d for d in POINTS_ONLY if d in known],
                       "is for point clouds (--points), not images")


def _inputs_for(args, model, need_masks):
    items = _main_items(args, need_masks=need_masks)
    points = _point_items(args.points, args.limit)
    if items and points:
        raise UserError("give images (--manifest/--images) or --points, not both")
    if not items and not points:
        raise UserError("no input: give --manifest, --images or --points")
    kind = "image" if items else "points"
    _refuse_other_kind(args, kind)
    if model is not None and kind != model.kind_:
        names = {"image": "images", "points": "point clouds"}
        raise UserError(f"{args.model}: the model was trained on {names[model.kind_]}, not "
                        f"{names[kind]}")
    return kind, items or points


def _point_ranges(args, model):
    from segmentation.data import parse_label_ranges

    if args.foreground_labels is not None:
        return args.foreground_labels
    if model is not None and model.foreground_labels:
        return parse_label_ranges(model.foreground_labels)
    raise UserError(f"{args.model}: the model records no foreground labels; give "
                    f"--foreground-labels (e.g. 1300-1306)")


def _guarded(outs, func):
    try:
        return func()
    except BaseException:
        outs.rollback()
        raise


@_wrap
@with_cluster
def segment_predict(args):
    """``structpred segment predict``."""
    refuse_options(args, MASK_OPTIONS, "is for reading masks (train, eval), and predict "
                   "reads none")
    model = _load_model(args.model)
    kind, inputs = _inputs_for(args, model, need_masks=False)
    if kind == "points" and args.side_by_side:
        raise UserError("--side-by-side is for images")
    ins = _input_paths(args, inputs if kind == "image" else None,
                       inputs if kind == "points" else None)
    _check_output_dir(args.output, ins, "-o")
    names = planned_names(kind, inputs)
    check_overwrite(args.output, names, "-o", args.overwrite)
    if args.side_by_side:
        _check_output_dir(args.side_by_side, ins, "--side-by-side")
        check_separate_folders(("-o", args.output), ("--side-by-side", args.side_by_side))
        check_overwrite(args.side_by_side, names, "--side-by-side", args.overwrite)
    outs = _Outputs()
    executor = open_cluster(args)   # --workers/--scheduler: None without them
    if kind == "image":
        _guarded(outs, lambda: _run_images(args, model, inputs, False, outs, executor))
    else:
        _guarded(outs, lambda: _run_points(args, model, inputs, None, outs, executor))
    print(f"predictions for {_count(len(inputs), kind)} written to {args.output}", flush=True)
    return 0


def _pred_masks(args, items):
    """Predictions of another tool: ``<pred>/<id>.<ext>`` for each gold item."""
    from segmentation.data import StemIndex, load_example

    index = StemIndex(args.pred)
    preds, truths, ignores = [], [], []
    for ident, img_path, mask_path, where in items:
        p = index.find(ident)
        if p is None:
            raise UserError(f"{args.pred}: no predicted mask named {ident}.* (for {where})"
                            f"{index.near_miss(ident, masks=False)}")
        reading = mask_reading(args)
        pred, pred_ign = _load_prediction(p, reading)
        _, truth, ign = load_example(img_path, mask_path, **reading) if img_path is not None \
            else (None, *_truth_only(mask_path, reading))
        if pred.shape != truth.shape:
            raise UserError(f"{p}: predicted mask is {pred.shape[1]}x{pred.shape[0]} but the gold "
                            f"mask {mask_path} is {truth.shape[1]}x{truth.shape[0]}")
        if pred_ign is not None and (ign is None or (pred_ign & ~ign).any()):
            n = int((pred_ign if ign is None else pred_ign & ~ign).sum())
            raise UserError(f"{p}: {n} pixels hold the ignore value {args.ignore_value} where the "
                            f"gold mask {mask_path} has a label; a prediction labels every pixel")
        preds.append(pred)
        truths.append(truth)
        ignores.append(ign)
    return preds, truths, ignores


def _load_prediction(path, reading):
    """A predicted mask and its ignored pixels.  With class-index gold masks
    (``--foreground-labels``) a binary prediction (``segment predict``'s 0/255) is read as
    it is, the ignore value not read in it (255 is its foreground); a prediction of class
    indices (another tool's) is read as the gold masks are."""
    from segmentation.data import load_mask
    from structpred import FormatError

    if reading["foreground"] is not None:
        try:
            return load_mask(path), None
        except FormatError:
            pass
    return load_mask(path, return_ignore=True, **reading)


def _truth_only(mask_path, reading):
    from segmentation.data import load_mask

    return load_mask(mask_path, return_ignore=True, **reading)


def _gold_items_for_pred(args):
    """Gold masks for ``eval --pred``: a manifest, images + masks, or a mask folder alone."""
    if args.manifest or args.images:
        return _main_items(args, need_masks=True)
    if args.masks:
        from segmentation.data import folder_images

        d = Path(args.masks)
        if not d.is_dir():
            raise UserError(f"{d}: {missing_reason(d, 'folder') or 'expected a folder'}")
        files = folder_images(d)
        if not files:
            raise UserError(f"{d}: no masks found")
        sfx = args.mask_suffix or ""   # the predictions are named like the images
        items = [(f.stem[:len(f.stem) - len(sfx)] if sfx and f.stem.endswith(sfx) else f.stem,
                  None, f, str(f)) for f in files]
        return items[:args.limit] if args.limit else items
    raise UserError("--pred needs the gold masks: --masks DIR (or --manifest / --images with --masks)")


@_wrap
def segment_eval(args):
    """``structpred segment eval``: accuracy and foreground IoU."""
    from segmentation.metrics import format_scores, segmentation_scores

    if args.pred and args.model:
        raise UserError("give -m MODEL or --pred DIR, not both")
    if not args.pred and not args.model:
        raise UserError("give -m MODEL (a trained model) or --pred DIR (predicted masks)")
    if args.overwrite and not args.side_by_side:
        raise UserError("--overwrite is for --side-by-side (eval writes no other file)")
    if args.pred:
        if args.points:
            raise UserError("--pred scores mask images; score point predictions with -m")
        if args.side_by_side:
            raise UserError("--side-by-side needs -m")
        if not Path(args.pred).is_dir():
            raise UserError(f"{args.pred}: "
                            f"{missing_reason(args.pred, 'folder') or 'expected a folder'}")
        items = _gold_items_for_pred(args)
        preds, truths, ignores = _pred_masks(args, items)
        kind, n = "image", len(items)
    else:
        model = _load_model(args.model)
        use_model_reading(args, model, lambda m: _log(args, m))
        kind, inputs = _inputs_for(args, model, need_masks=True)
        n = len(inputs)
        outs = _Outputs()
        if args.side_by_side:
            _check_output_dir(args.side_by_side, _input_paths(args, inputs if kind == "image" else None),
                              "--side-by-side")
            check_overwrite(args.side_by_side, planned_names(kind, inputs), "--side-by-side",
                            args.overwrite)
        if kind == "image":
            preds, truths, ignores = _guarded(outs, lambda: _run_images(args, model, inputs, True, outs))
        else:
            ranges = _point_ranges(args, model)
            preds, truths, ignores = _guarded(outs, lambda: _run_points(args, model, inputs, ranges, outs))
    sc = segmentation_scores(preds, truths, ignores)
    if sc.tp + sc.fn == 0:
        # every model scores IoU 0 on them (or 0/0): a wrong --masks or --foreground-labels
        what = ("pixel in their masks" if kind == "image" else
                "point in the scans (check --foreground-labels)")
        raise UserError(f"{_count(n, kind)}: no foreground {what}, so foreground IoU is "
                        f"undefined{_ignore_hint(args)}")
    print(f"{_count(n, kind)}: {format_scores(sc)}")
    sys.stdout.flush()
    return 0


def add_parser(subparsers, name):
    """Add ``structpred segment`` (train, predict, eval) to ``subparsers``."""
    seg = subparsers.add_parser(name, formatter_class=_Formatter,
                         help="binary segmentation with max-margin min-cut MRFs",
                         description="Train and apply associative MRFs (thesis sec. 2.2.2) on "
                                     "images (SLIC superpixels) or 3-D point clouds (kNN graphs).")
    ssub = seg.add_subparsers(dest="segment_command", required=True, parser_class=ArgumentParser)

    add_train_parser(ssub, segment_train)
    add_predict_parser(ssub, segment_predict)
    add_eval_parser(ssub, segment_eval)
    return seg
