"""The options of ``structpred segment train|predict|eval`` (:mod:`segmentation.cli` runs
them)."""

from __future__ import annotations

import argparse

from structpred import LEARNERS
from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import (int_at_least, jobs_count, nonneg_float, nonneg_int, positive_float,
                            positive_int)
from structpred.cli import add_quiet as _add_quiet, add_cluster_options, iteration_count
from structpred.cli import at_most, comma_items, seed_value

__all__ = ["add_train_parser", "add_predict_parser", "add_eval_parser"]


# ------------------------------------------------------------ option types
def _fraction(text):
    v = nonneg_float(text)
    if v >= 1:
        raise argparse.ArgumentTypeError(f"must be below 1, got {text}")
    return v


def _ignore_value(text):
    """``--ignore-value``, ``--threshold``: 1 to 65535, or ``none`` (0: for ``eval -m``,
    not the model's value; :func:`segmentation._reading.mask_reading` reads it as None)."""
    if str(text).strip().lower() == "none":
        return 0
    v = positive_int(text)
    if v > 65535:
        raise argparse.ArgumentTypeError(f"must be <= 65535, got {text}")
    return v


def _mask_suffix(text):
    """``--mask-suffix``: added to a file name's stem, so neither empty nor holding a folder
    separator or white space at its ends."""
    if not text or any(c in text for c in "/\\") or text.strip() != text:
        raise argparse.ArgumentTypeError(f"expected the end of a mask's name without its "
                                         f"extension (e.g. _segmentation), got {text!r}")
    return text


def _list_or_auto(item):
    """``"auto"``, one value, or a comma-separated list of candidates."""
    def parse(text):
        text = str(text).strip()
        if text == "auto":
            return "auto"
        vals = [item(t) for t in comma_items(text)]
        if not vals:
            raise argparse.ArgumentTypeError("expected 'auto', a value or a comma-separated list")
        return vals[0] if len(vals) == 1 else tuple(vals)
    return parse


def _max_scale():
    from segmentation._params import MAX_SCALE   # the model's checks, read when needed

    return MAX_SCALE


#: ``--feature-scale``: 1e308 made the features infinite (refused naming the data)
_scale = at_most(positive_float, _max_scale, "it multiplies standardised features")


def _feature_scale(text):
    """``--feature-scale``: :data:`_scale`, and at least ``1 / MAX_SCALE`` (1e-100 made the
    features vanish: a ``ZeroDivisionError`` of the step size, named as the mask folder's)."""
    value, lo = _scale(text), 1 / _max_scale()
    if value < lo:
        raise argparse.ArgumentTypeError(f"must be at least {lo:g} (it multiplies "
                                         f"standardised features), got {text!r}")
    return value


#: ``--eta-scale``: 1e300 overflowed the first step (numpy's warnings, then "the point to
#: project must be finite" naming the mask folder)
_eta_scale = at_most(positive_float, _max_scale, "it multiplies the step size")


def _factor_list(text):
    """Comma-separated positive factors other than 1 (``edge_factors``)."""
    vals = tuple(positive_float(t) for t in comma_items(text))
    if not vals or any(v == 1.0 for v in vals):
        raise argparse.ArgumentTypeError(f"expected positive factors other than 1, got {text!r}")
    return vals


def _auto_or(item):
    def parse(text):
        return "auto" if str(text).strip() == "auto" else item(text)
    return parse


def _class_weight_item(text):
    from segmentation.model import parse_class_weight

    try:
        v = parse_class_weight(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if isinstance(v, float) and not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"a class weight must be a positive number, got {text}")
    if isinstance(v, float):   # 1e300 overflowed the learner (named after the masks)
        from segmentation.examples import MAX_CLASS_WEIGHT as most

        if not 1 / most <= v <= most:
            raise argparse.ArgumentTypeError(
                f"a class weight must be from {1 / most:g} to {most:g} (it multiplies the "
                f"loss of the foreground), got {text}")
    return v


def _label_ranges(text):
    from segmentation.data import parse_label_ranges

    try:
        return parse_label_ranges(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ------------------------------------------------------------ the parsers
def _add_segment_inputs(p, masks=True, labels=True):
    g = p.add_argument_group("inputs: images (a manifest, or files/folders) or labelled point files")
    g.add_argument("--manifest", metavar="CSV",
                   help="manifest with an 'id' (or 'image') column, optionally 'mask' and "
                        "'split'/'split_zjw'; images <id>.<any image extension> in small/images/ "
                        "or images/ next to it, masks likewise in small/masks/ or masks/; or a "
                        ".txt list of ids, the first word of each line (PASCAL VOC's "
                        "ImageSets/Segmentation/train.txt, Oxford-IIIT Pets' "
                        "annotations/trainval.txt)")
    g.add_argument("--split", metavar="NAME", help="use only the manifest rows of this split")
    g.add_argument("--image-dir", metavar="DIR", help="override the manifest's image folder")
    g.add_argument("--mask-dir", metavar="DIR", help="override the manifest's mask folder"
                   if masks else argparse.SUPPRESS)
    g.add_argument("--images", nargs="+", metavar="PATH", help="image files or folders")
    g.add_argument("--masks", metavar="DIR",
                   help="folder of binary masks (0/255 or 0/1) named like the images (any image "
                        "extension)" if masks else argparse.SUPPRESS)
    g.add_argument("--mask-suffix", type=_mask_suffix, metavar="S",
                   help="the mask of image <name>.<ext> is <name>S.<any image extension> (ISIC: "
                        "_segmentation, Carvana: _mask); with --manifest, <id>S.*; default for eval -m: "
                        "the model's, where a mask so named exists"
                   if masks else argparse.SUPPRESS)
    g.add_argument("--ignore-value", type=_ignore_value, metavar="V",
                   help="mask value meaning \"don't care\" (e.g. 128 for a band along object "
                        "boundaries, or 255 in 0/1 masks): left out of the training loss and "
                        "of the scores; default for eval -m: the model's ('none': none)"
                   if masks else argparse.SUPPRESS)
    g.add_argument("--threshold", type=_ignore_value, metavar="T",
                   help="read masks that are not binary (JPEG masks, antialiased edges of "
                        "saliency sets) as foreground where their value is at least T (e.g. "
                        "128); binary masks are read as they are; default for eval -m: the model's "
                        "('none': none)"
                   if masks else argparse.SUPPRESS)
    g.add_argument("--points", nargs="+", metavar="FILE",
                   help="point files 'x y z label [...]' (.gz ok)")
    g.add_argument("--foreground-labels", type=_label_ranges, metavar="RANGES",
                   help="point labels of the foreground, e.g. 1300-1306 (Oakland vegetation) "
                        "or 1200-1207,1400; with images, the class indices of masks that hold "
                        "classes (PASCAL VOC's palette PNGs: 15 is person; every other class is "
                        "background, --ignore-value 255 leaves out the void border); default "
                        "for eval: the model's"
                   if labels else argparse.SUPPRESS)
    g.add_argument("--background-labels", type=_label_ranges, metavar="RANGES",
                   help="with --foreground-labels, the class indices of the background: then "
                        "every class of a mask must be listed in one of the two (or be the "
                        "--ignore-value), e.g. --foreground-labels 1,2 --background-labels 3 "
                        "for masks of 1, 2 and 3 whose 3 is the background; default for eval: "
                        "the model's"
                   if masks else argparse.SUPPRESS)
    g.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="first N inputs only")


def add_train_parser(ssub, handler):
    """``structpred segment train``."""
    tr = ssub.add_parser(
        "train", formatter_class=_Formatter, help="train a segmentation MRF",
        description="Train with the memory-efficient dual extragradient (or a reference learner).\n"
                    "The class weight, the step and the iteration (and the number of superpixels\n"
                    "when several are given) are chosen on validation IoU: the validation set\n"
                    "given, or else every 1/F-th training input (--valid-fraction F).\n\n"
                    "Examples:\n"
                    "  structpred segment train --manifest data/segmentation/weizmann_horse/"
                    "manifest.csv --split train -o horse.npz\n"
                    "  structpred segment train --images imgs/ --masks masks/ --valid-images "
                    "vimgs/ --valid-masks vmasks/ -o m.npz\n"
                    "  structpred segment train --points scan01.xyz.gz scan02.xyz.gz "
                    "--foreground-labels 1300-1306 --voxel 1.0 -o oak.npz")
    _add_segment_inputs(tr)
    v = tr.add_argument_group("validation (choices of class weight, step, iteration)")
    v.add_argument("--valid-manifest", metavar="CSV", help="validation manifest (default: --manifest)")
    v.add_argument("--valid-split", metavar="NAME", help="validation rows of the manifest")
    v.add_argument("--valid-images", nargs="+", metavar="PATH", help="validation image files or folders")
    v.add_argument("--valid-masks", metavar="DIR", help="their masks (default: --masks)")
    v.add_argument("--valid-points", nargs="+", metavar="FILE", help="validation point files")
    v.add_argument("--valid-fraction", type=_fraction, default=0.15, metavar="F",
                   help="without a validation set, hold out this share of the training inputs "
                        "(every 1/F-th; 0: none, no choices are made)")
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    tr.add_argument("--learner", default="dual-extragradient", choices=LEARNERS)
    tr.add_argument("--iterations", type=_auto_or(iteration_count), default="auto", metavar="N",
                    help="most iterations per candidate (perceptron: epochs); 'auto': "
                         "min(300, 60 + training images), 5 times that for unary-only")
    tr.add_argument("--patience", type=nonneg_int, default=4,
                    help="stop a candidate when its best validation IoU rose by at most --tol "
                         "over this many validations (0: never stop early)")
    tr.add_argument("--tol", type=nonneg_float, default=0.0025,
                    help="the stopping rule's smallest IoU gain (0.0025: 0.25 points)")
    tr.add_argument("--no-guard", action="store_true",
                    help="keep the MRF without testing it against unary-only on validation")
    tr.add_argument("--edge-factors", type=_factor_list, default=None, metavar="S[,S...]",
                    help="factors of the chosen MRF's edge weights that the guard also tries on "
                         "validation (default: the estimator's, see MRFSegmenter)")
    tr.add_argument("--jobs", type=jobs_count, default=None, metavar="N",
                    help="train this many candidates at once in forked processes (default: "
                         "the CPUs this process may use, as with -1; -2: all but one; the model "
                         "is the same)")
    tr.add_argument("--no-colour-model", action="store_true",
                    help="images: no per-image colour models (one pass of the unary features)")
    tr.add_argument("--eta-scale", type=_list_or_auto(_eta_scale), default="auto",
                    help="step eta = ETA_SCALE / ||F||_2; 'auto' tries 3 and 10, a comma-separated "
                         "list tries each")
    tr.add_argument("--class-weight", type=_list_or_auto(_class_weight_item), default="auto",
                    help="Hamming loss class weight: 'none', 'balanced' or the foreground weight; "
                         "'auto' tries none and balanced, a comma-separated list tries each")
    tr.add_argument("--feature-scale", type=_feature_scale, default=0.02,
                    help="multiplies all features: balances the w- and z-steps of the extragradient")
    tr.add_argument("--validate-every", type=positive_int, default=5)
    tr.add_argument("--no-edges", action="store_true", help="unary-only linear model (no MRF edges)")
    tr.add_argument("--memory-efficient", action="store_true",
                    help="stream training graphs from a disk cache (memory independent of their number)")
    tr.add_argument("--n-segments", type=_list_or_auto(int_at_least(2)), default=1000,
                    help="SLIC superpixels per image; a comma-separated list is chosen on validation")
    tr.add_argument("--voxel", type=positive_float, default=0.25, help="point thinning voxel size (m)")
    tr.add_argument("--k-graph", type=positive_int, default=6,
                    help="neighbours per point in the kNN graph")
    tr.add_argument("--seed", type=seed_value, default=0)
    add_cluster_options(tr, "the learner's passes over the training graphs")
    _add_quiet(tr)
    tr.set_defaults(handler=handler)


#: an output folder may hold files of the names predictions take that no prediction wrote
_OVERWRITE = ("replace files of the names the outputs take that are no earlier prediction "
              "(a gold mask, an input): they are refused without it")


def add_predict_parser(ssub, handler):
    """``structpred segment predict``."""
    pr = ssub.add_parser("predict", formatter_class=_Formatter, help="write predicted masks or point labels",
                         description="Writes <id>.png masks (0/255) for images, or "
                                     "'x y z label' files (<name>.pred.txt) for point clouds.")
    pr.add_argument("-m", "--model", required=True, metavar="NPZ")
    _add_segment_inputs(pr, masks=False, labels=False)
    pr.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder")
    pr.add_argument("--side-by-side", metavar="DIR",
                    help="also write input | prediction images to this folder")
    pr.add_argument("--overwrite", action="store_true", help=_OVERWRITE)
    add_cluster_options(pr, "the predictions (inputs are read here and sent to the workers)")
    _add_quiet(pr)
    pr.set_defaults(handler=handler)


def add_eval_parser(ssub, handler):
    """``structpred segment eval``."""
    ev = ssub.add_parser(
        "eval", formatter_class=_Formatter, help="accuracy and foreground IoU",
        description="Pixel (or point) accuracy and foreground IoU in percent, pooled over all\n"
                    "inputs: of a model's predictions (-m), or of a folder of predicted masks\n"
                    "made by any tool (--pred DIR, matched to the gold masks by file stem).\n\n"
                    "Examples:\n"
                    "  structpred segment eval -m horse.npz --manifest data/segmentation/"
                    "weizmann_horse/manifest.csv --split test\n"
                    "  structpred segment eval --pred other_tool_masks/ --masks gold_masks/")
    ev.add_argument("-m", "--model", metavar="NPZ", help="model to evaluate")
    ev.add_argument("--pred", metavar="DIR", help="score these predicted masks instead of a model")
    _add_segment_inputs(ev)
    ev.add_argument("--side-by-side", metavar="DIR",
                    help="also write input | truth | prediction images to this folder")
    ev.add_argument("--overwrite", action="store_true", help=_OVERWRITE)
    _add_quiet(ev)
    ev.set_defaults(handler=handler)
