"""How ``segment`` reads masks: the options ``--threshold``, ``--ignore-value``,
``--foreground-labels`` and ``--mask-suffix`` given, or, for ``segment eval -m``, those the
image model was trained with (:func:`record_reading` writes them into the model,
:func:`use_model_reading` takes them back; an option given to ``eval`` wins)."""

from __future__ import annotations

from structpred.cli import UserError

__all__ = ["mask_reading", "record_reading", "use_model_reading"]

#: the options of reading masks a model records: ``(dest, flag)``
RECORDED = (("threshold", "--threshold"), ("ignore_value", "--ignore-value"),
            ("mask_suffix", "--mask-suffix"), ("background_labels", "--background-labels"))


def mask_reading(args, model=None):
    """How masks are read: ``load_example``'s ``ignore_value``, ``threshold``,
    ``foreground`` (the class indices of ``--foreground-labels``, or, without it and
    without ``--threshold``, those the image model was trained with) and ``background``
    (``--background-labels``, which needs foreground labels)."""
    from segmentation.data import parse_label_ranges

    ranges = getattr(args, "foreground_labels", None)
    background = getattr(args, "background_labels", None)
    threshold = getattr(args, "threshold", None) or None   # 0: 'none' given
    if threshold is not None and (ranges is not None or background is not None):
        raise UserError(f"--threshold reads masks of grey levels, "
                        f"--{'fore' if ranges is not None else 'back'}ground-labels masks of "
                        "class indices: give one or the other")
    if ranges is None and threshold is None and model is not None and \
            model.kind_ == "image" and model.foreground_labels:
        ranges = parse_label_ranges(model.foreground_labels)
    if background is not None:
        _check_background(ranges, background)
    return {"ignore_value": getattr(args, "ignore_value", None) or None, "foreground": ranges,
            "threshold": threshold, "background": background}


def _check_background(foreground, background):
    """``--background-labels`` without foreground labels, or sharing a class with them."""
    if foreground is None:
        raise UserError("--background-labels names the background classes of class-index "
                        "masks: give the foreground classes as --foreground-labels too")
    both = [max(a, c) for a, b in foreground for c, d in background if max(a, c) <= min(b, d)]
    if both:
        raise UserError(f"class {min(both)} is in both --foreground-labels and "
                        "--background-labels: give each class in one of them")


def record_reading(model, args):
    """Keep in ``model`` (``mask_reading_``, saved in its file) how its training masks
    were read: ``{dest: value}`` of :data:`RECORDED` (None: not given); returns ``model``."""
    from segmentation.data import format_label_ranges

    model.mask_reading_ = {dest: getattr(args, dest, None) or None for dest, _ in RECORDED}
    if model.mask_reading_["background_labels"] is not None:   # kept as written: "2,3"
        model.mask_reading_["background_labels"] = format_label_ranges(
            model.mask_reading_["background_labels"])
    return model


def use_model_reading(args, model, log):
    """``segment eval -m`` on images: each option of :data:`RECORDED` not given takes the
    value the model was trained with (``--mask-suffix`` where a mask so named exists: the
    candidates ``(suffix, "")``), and the model's ``--foreground-labels`` are used
    unless ``--threshold`` or ``--foreground-labels`` is given; ``log`` gets one line
    naming the options so taken (``--background-labels`` as ``--threshold``: not with an
    option of the other kind).  ``--threshold none`` and ``--ignore-value none`` (0)
    turn the model's value off.  Models written before record none (the defaults)."""
    from segmentation.data import parse_label_ranges

    if model.kind_ != "image" or getattr(args, "points", None):
        return
    recorded = getattr(model, "mask_reading_", None) or {}
    other_kind = bool(args.threshold) or args.foreground_labels is not None
    used = []
    for dest, flag in RECORDED:
        value = recorded.get(dest)
        if value is None or getattr(args, dest) is not None or (
                dest in ("threshold", "background_labels") and other_kind):
            continue
        # the model's suffix where a mask so named exists, else the image's own name
        setattr(args, dest, (value, "") if dest == "mask_suffix" else
                parse_label_ranges(value) if dest == "background_labels" else value)
        used.append(f"{flag} {value}")
    if model.foreground_labels and not other_kind:
        used.append(f"--foreground-labels {model.foreground_labels}")
    if used:
        log(f"reading the masks as the model was trained to: {' '.join(used)} (the model's; "
            "give an option to read them otherwise)")


#: the images in subfolders counted at most (:func:`subfolder_images`)
SUBFOLDER_LIMIT = 10000


def subfolder_images(folder, exclude=()):
    """``(count, first)``: the image files in the subfolders of ``folder`` (at any depth,
    hidden entries and the folders ``exclude`` left out; counted up to
    :data:`SUBFOLDER_LIMIT`), and the first of them in sorted order, or ``(0, None)``.
    ``--images DIR`` reads only DIR's own images (:func:`segmentation.data.folder_images`)."""
    import os
    from pathlib import Path

    from segmentation.data import is_image_file

    skip = {os.path.realpath(e) for e in exclude}
    top = os.path.realpath(folder)
    count, first = 0, None
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and os.path.realpath(os.path.join(root, d)) not in skip)
        if os.path.realpath(root) == top:
            continue
        for name in sorted(files):
            p = Path(root, name)
            if not name.startswith(".") and is_image_file(p) and p.is_file():
                count += 1
                first = first or p
                if count >= SUBFOLDER_LIMIT:
                    return count, first
    return count, first


def check_subfolders(folder, n_read, exclude=()):
    """Refuse a folder whose images are all in subfolders (``--images DIR`` of class
    folders ``DIR/horse/``, ``DIR/cow/``: "no images found", as if there were none), and
    warn once when some are beside images of its own: they would be left out in silence."""
    import warnings

    count, first = subfolder_images(folder, exclude)
    if not count:
        return
    more = "+" if count >= SUBFOLDER_LIMIT else ""
    where = first.parent.relative_to(folder)
    if not n_read:
        raise UserError(f"{folder}: no images in the folder itself; its subfolders hold "
                        f"{count}{more} (the first: {first}): name them, e.g. --images "
                        f"{folder}/{where.parts[0]} (subfolders are not searched)")
    warnings.warn(f"{folder}: {count}{more} images in its subfolders (the first: {first}) are "
                  f"not read, only the folder's own {n_read}: name the subfolders too to read "
                  f"them (e.g. --images {folder} {folder}/{where.parts[0]})")
