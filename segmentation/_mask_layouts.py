"""Masks of the layouts of public segmentation sets, read or refused by name: the hints of
:func:`segmentation.data.load_mask` for masks that are not binary (Oxford-IIIT Pets'
trimaps, saliency sets' JPEG masks and antialiased PNG edges, class-index masks), the
trimap check with ``--foreground-labels``, and ``--threshold``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from structpred.io import counted

__all__ = ["not_binary_hint", "check_trimap", "thresholded", "is_binary", "near_miss_hint",
           "json_hint", "COCO_HINT", "near_grey_jpeg", "jpeg_colour_hint",
           "suggested_threshold", "check_classes", "palette_greys", "check_jpeg_classes",
           "jpeg_ignore_band"]

#: the extensions of JPEG files
_JPEG = (".jpg", ".jpeg", ".jfif", ".jpe")

#: Oxford-IIIT Pets' trimaps: 1 pet, 2 background, 3 border (unclassified)
_TRIMAP = {1, 2, 3}

_CLASS_HINT = (" (a class-index mask, as PASCAL VOC's palette PNGs? give the classes of the "
               "foreground as --foreground-labels, e.g. --foreground-labels 15 --ignore-value 255)")


def is_binary(values, itemsize):
    """Whether the set ``values`` is a binary mask's: ``{0, 255}``, ``{0, 1}`` or (16-bit)
    ``{0, 65535}``, or part of one."""
    return values <= {0, 255} or values <= {0, 1} or (itemsize >= 2 and values <= {0, 65535})


def _is_trimap(vs):
    """Values of a trimap: two or three of 1, 2 and 3 (a pet without border, or without
    background, too)."""
    return vs <= _TRIMAP and len(vs) >= 2


def _grey_count(a, ignore):
    top = 65535 if a.dtype.itemsize >= 2 and int(a.max()) > 255 else 255
    grey = (a > 0) & (a < top)
    if ignore is not None:
        grey &= ~ignore
    return int(grey.sum()), top


def not_binary_hint(path, mode, a, values, ignore_value, ignore, soft_hint, max_classes):
    """The hint of a mask that is not binary: what its values look like, and the options
    that read it."""
    vs = set(values.tolist())
    if ignore_value is None and _is_trimap(vs):
        return (" (an Oxford-IIIT Pets trimap: 1 pet, 2 background, 3 border? give "
                "--foreground-labels 1 --ignore-value 3; classes meaning otherwise: "
                "--foreground-labels and --background-labels, e.g. --foreground-labels 1,2 "
                "--background-labels 3)")
    jpeg = Path(path).suffix.lower() in _JPEG
    if ignore_value is None and vs <= {0, 1, 255} and not jpeg:   # JPEG: 0/255 compressed
        return " (255 around 0 and 1: PASCAL VOC's void border? --ignore-value 255)"
    if jpeg and int(values[-1]) < _LOW_RANGE:   # a 0/1 mask saved as JPEG: 0..3, not 0..255
        level, cut = suggested_threshold(a, ignore)
        return (f" (JPEG compression is lossy: it spreads the mask's values into nearby ones; "
                f"its values go from 0 to {int(values[-1])}, most of the others {level}: a "
                f"0/{level} mask? give --threshold {cut} to read values from {cut} up as "
                "foreground, or save masks as PNG)")
    n_grey, top = _grey_count(a, ignore)
    # an antialiased outline: 0, the top and several grey levels on few pixels (a class-index
    # mask holds few levels, a soft map many pixels of them)
    edges = (mode != "P" and 0 in vs and top in vs and len(vs) >= 5 and n_grey <= 0.25 * a.size)
    if jpeg or edges:
        cut = (top + 1) // 2
        why = ("JPEG compression is lossy: it spreads 0 and 255 into nearby values" if jpeg
               else "grey pixels along the outline: an antialiased mask, as saliency sets' are")
        return (f" ({why}; {n_grey} pixels lie between 0 and {top}: give --threshold {cut} "
                f"to read values from {cut} up as foreground, or save "
                f"{'masks as PNG' if jpeg else 'binary masks'})")
    if mode != "P" and values.size > max_classes:
        return soft_hint   # a soft map (scores or probabilities) was called a class-index mask
    if mode == "P" or 1 < int(values[-1]) < 255:
        return _CLASS_HINT
    return "" if ignore_value is not None else " (a \"don't care\" value: --ignore-value)"


#: most difference between the colour channels of a grey mask saved as colour JPEG
_JPEG_CHROMA = 24

def two_colour_hint(path, a):
    """The hint of a colour mask of exactly two colours, one of them black: a binary mask
    drawn in colour (red on black). Its meaning is plain to a reader but not certain (the
    black could be the object), so it is refused with the conversion, never guessed."""
    colours = np.unique(a[..., :3].reshape(-1, 3), axis=0)
    if len(colours) != 2 or colours[0].any():
        return ""
    other = tuple(int(v) for v in colours[1])
    return (f" (two colours, black and {other}: a binary mask drawn in colour? if {other} "
            "is the foreground, save it as grey 0/255, e.g. python -c \"from PIL import Image; "
            f"Image.open('{path}').convert('RGB').point(lambda v: 255 * (v > 0)).convert('L')"
            ".point(lambda v: 255 * (v > 0)).save('grey.png')\")")


def jpeg_colour_hint(grey):
    """The hint of a grey mask saved as colour JPEG, whose channels' mean is ``grey``: the
    threshold its values call for (:func:`suggested_threshold`; 128 for a 0/255 mask)."""
    cut = suggested_threshold(grey)[1]
    return (" (a grey mask saved as colour JPEG, its channels apart by compression only? "
            f"give --threshold {cut} to read their mean from {cut} up as foreground)")


def near_grey_jpeg(path, a):
    """The channels' mean of a JPEG mask of colour channels at most :data:`_JPEG_CHROMA`
    apart (a grey mask saved as colour JPEG), as uint8; else None."""
    if Path(path).suffix.lower() not in _JPEG or a.dtype != np.uint8:
        return None
    rgb = a[..., :3].astype(np.int16)
    if int((rgb.max(axis=-1) - rgb.min(axis=-1)).max()) > _JPEG_CHROMA:
        return None
    return rgb.mean(axis=-1).round().astype(np.uint8)


def check_trimap(path, values, foreground, ignore_value):
    """A trimap (values 1, 2 and 3) read with ``--foreground-labels`` that leaves its border
    3 neither foreground nor ignored: it would be read as background."""
    from structpred import FormatError

    if (_is_trimap(vs := set(values.tolist())) and 3 in vs and ignore_value != 3
            and not any(a <= 3 <= b for a, b in foreground)):
        raise FormatError(path, None, f"mask holds {', '.join(map(str, sorted(vs)))} only: an "
                          "Oxford-IIIT Pets trimap "
                          "(3 the border)? give --ignore-value 3 to leave the border out, or "
                          "--foreground-labels 1,3 to count it as foreground (it would be read "
                          "as background; if 3 is the background, say so: --background-labels "
                          "with every background class)")


def palette_greys(im, a):
    """A palette mask ``im`` (indices ``a``) whose indices used all stand for greys
    (index 0 white, index 1 black: a figure/ground mask drawn in
    white on black and saved with its palette in the order of the colours' first use), as
    the grey levels it shows; else ``a`` (class indices: PASCAL VOC's palette of colours;
    greys equal to the indices; one grey for two indices (a palette left unset); indices 0 and 1 of greys rising with them, black and grey
    128, read alike either way)."""
    palette = im.getpalette("RGB")
    if not palette or a.ndim != 2:
        return a
    rgb = np.zeros((256, 3), dtype=np.int64)
    entries = np.asarray(palette[:768], dtype=np.int64).reshape(-1, 3)
    rgb[:len(entries)] = entries
    used = np.unique(a)
    if int(used[-1]) >= len(entries):   # an index past the palette: no colour to read
        return a
    grey = rgb[used]
    if not np.all(grey == grey[:, :1]) or np.unique(grey[:, 0]).size < used.size or \
            np.array_equal(grey[:, 0], used) or (is_binary(set(used.tolist()), 1)
                                                 and np.all(np.diff(grey[:, 0]) > 0)):
        return a   # colours (classes), one grey for two indices, or 0/1 indices of greys
                   # in their order (read alike)
    return rgb[:, 0].astype(np.uint8)[a]


#: how far JPEG's compression moves a class index, at most, for :func:`check_jpeg_classes`
_JPEG_DRIFT = 8


def check_jpeg_classes(path, a, values, foreground, background, ignore_value, ignore):
    """A JPEG mask ``a`` read as class indices (``--foreground-labels``) whose ``values``
    include some near a class listed (``foreground``, ``background`` or ``ignore_value``)
    but not listed: lossy compression moved pixels of the class there, and they would be
    read as background (15 spread into 13..19, 255 into 249..254; 0, the usual background,
    is not counted as moved); the threshold named for
    a figure/ground mask is :func:`suggested_threshold`'s."""
    from structpred import FormatError

    if Path(path).suffix.lower() not in _JPEG:
        return
    listed = [*foreground, *(background or ()),
              *(((ignore_value, ignore_value),) if ignore_value is not None else ())]
    moved = [int(v) for v in values if v and not any(a <= v <= b for a, b in listed)
             and any(a - _JPEG_DRIFT <= v <= b + _JPEG_DRIFT for a, b in listed)]
    if moved:
        shown = ", ".join(map(str, moved[:6])) + (", ..." if len(moved) > 6 else "")
        raise FormatError(path, None, f"a JPEG mask read as class indices: its lossy "
                          f"compression moved pixels of the classes listed to nearby values "
                          f"({shown}), which would be read as background (a class of its "
                          "own among them? list it in --background-labels); save class-index "
                          "masks as PNG (for a figure/ground mask, give --threshold "
                          f"{suggested_threshold(a, ignore)[1]} instead of --foreground-labels)")


def jpeg_ignore_band(path, a, ignore_value):
    """The pixels of a JPEG mask ``a`` read with ``--threshold`` that are ``ignore_value``
    or within :data:`_JPEG_DRIFT` of it (lossy compression spread a "don't care" band of
    128 into 120..136; those values were thresholded, silently, instead of ignored), never
    0 or the mask's top value (the levels of background and foreground); of other masks,
    those of ``ignore_value`` alone."""
    if Path(path).suffix.lower() not in _JPEG:
        return a == ignore_value
    top = 1 if a.dtype.kind == "b" else int(np.iinfo(a.dtype).max)
    near = np.abs(a.astype(np.int64) - int(ignore_value)) <= _JPEG_DRIFT
    return near & (a != 0) & (a != top) | (a == ignore_value)


def check_classes(path, values, foreground, background, ignore_value):
    """A class-index mask read with ``--foreground-labels`` and ``--background-labels``:
    every value (``values``, the ignored left out) is in one of the two, else refused
    naming the values in neither (no class is read as background by default)."""
    from structpred import FormatError

    def listed(v):
        return any(a <= v <= b for a, b in (*foreground, *background))

    other = [int(v) for v in values if not listed(int(v))]
    if other:
        shown = ", ".join(map(str, other[:6])) + (", ..." if len(other) > 6 else "")
        raise FormatError(path, None, f"mask holds {counted(len(other), 'value')} in neither "
                          f"--foreground-labels nor --background-labels ({shown}; it holds "
                          f"{', '.join(map(str, values[:8].tolist()))}"
                          f"{', ...' if values.size > 8 else ''}): list each class in one of "
                          "them" + ("" if ignore_value is not None else
                                    ", or give the \"don't care\" one as --ignore-value"))


#: a mask whose largest value is below this was not 0/255 before compression (0/1: 0..3)
_LOW_RANGE = 128


def suggested_threshold(a, ignore=None):
    """``(level, cut)`` for a mask of values near 0 and near one other level (a 0/1 or
    0/255 mask after JPEG compression): for masks reaching :data:`_LOW_RANGE`, ``level``
    is 255 (or 65535), their foreground, and ``cut`` 128 (32768); below, ``cut`` lies
    midway between the two clusters of the values found (:func:`_midway_cut`) and
    ``level`` is the most common value from ``cut`` up (1 for a 0/1 mask, cut 1)."""
    vals = a if ignore is None else a[~ignore]
    top = int(vals.max()) if vals.size else 0
    if top >= _LOW_RANGE:
        level = 65535 if a.dtype.itemsize >= 2 and top > 255 else 255
        return level, level // 2 + 1
    if top == 0:
        return 1, 1
    counts = np.bincount(vals.ravel().astype(np.int64), minlength=top + 1)
    cut = _midway_cut(counts)
    return int(counts[cut:].argmax()) + cut, cut


def _midway_cut(counts):
    """The smallest value above the midpoint of the two clusters' means of a histogram
    ``counts`` (values below it one cluster, the others the other): the split of most
    between-cluster variance (Otsu's; the middle one of equal splits: 2 for a pure 0/2
    or 0/3 mask), then moved to the midpoint of its two means until it stays (Ridler and
    Calvard's isodata); at least 1."""
    values = np.arange(counts.size, dtype=float)
    total, weighted = counts.cumsum(), (counts * values).cumsum()
    low, high = total[:-1], total[-1] - total[:-1]   # split before 1, 2, ..., top
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = low * high * (weighted[:-1] / low - (weighted[-1] - weighted[:-1]) / high) ** 2
    spread = np.where((low > 0) & (high > 0), spread, 0.0)   # one side empty: no spread
    ties = np.flatnonzero(spread >= spread.max() * (1 - 1e-9)) + 1
    cut = int(ties[len(ties) // 2])
    for _ in range(counts.size + 1):
        low, high = counts[:cut], counts[cut:]
        if not low.sum() or not high.sum():
            break
        mid = ((values[:cut] @ low) / low.sum() + (values[cut:] @ high) / high.sum()) / 2
        new = max(1, int(np.floor(mid)) + 1)
        if new == cut:
            break
        cut = new
    return cut


def thresholded(path, a, values, threshold):
    """``--threshold T``: a mask that is not binary is foreground where its value is at least
    ``T`` (binary masks are read as they are, so 0/1 masks stay right); None when ``a`` is
    binary."""
    if is_binary(set(values.tolist()), a.dtype.itemsize):
        return None
    if int(values[-1]) < threshold:
        from structpred import FormatError

        level, cut = suggested_threshold(a)
        raise FormatError(path, None, f"no value of the mask reaches the threshold {threshold} "
                          f"(its largest is {int(values[-1])}, most of the others {level}): is "
                          f"it a 0/{level} mask? give --threshold {cut}")
    return a >= threshold


def near_miss_hint(folder, stem, names, masks=True):
    """For an image ``stem`` without a mask of its name in ``folder`` (whose files are
    ``names``): the files that look like its mask under another rule, named with the way
    to read them; else ``""``."""
    import re

    near = sorted(n for n in names if Path(n).stem.startswith(stem)
                  and len(Path(n).stem) > len(stem) and not Path(n).stem[len(stem)].isalnum())
    rests = [Path(n).stem[len(stem):] for n in near]
    if near and all(re.fullmatch(r"[_-]\d+", r) for r in rests):
        shown = " and ".join(near[:2])
        return (f" ({folder} holds {shown}: one mask per instance? give one figure/ground mask "
                "per image, the union of its instances, named like the image"
                + (f"; if it is the image's only mask, --mask-suffix {rests[0]})" if len(near) == 1
                   else ")"))
    if near:
        way = (f"give --mask-suffix {rests[0]} to read <image name>{rests[0]}.*, or rename them"
               if masks else "rename them without the suffix")
        return (f" ({folder} holds {near[0]}: files are matched by the image's name alone "
                f"({stem}.png, {stem}.jpg, ...): {way})")
    case = sorted(n for n in names if Path(n).stem.lower() == stem.lower())
    if case:
        return (f" ({folder} holds {case[0]}: its name differs from the image's in letter case "
                "only; names are matched exactly: rename one of them)")
    # Cityscapes: the image's name and the mask's end in words of their own
    base, _, last = stem.rpartition("_")
    other = sorted(n for n in names if base and any(c.isalpha() for c in last)
                   and Path(n).stem.startswith(base + "_")
                   and any(c.isalpha() for c in Path(n).stem[len(base) + 1:]))
    if other:
        return (f" ({folder} holds {other[0]}: files are matched by the image's name alone; "
                "rename the images or the masks to the same names (Cityscapes: without "
                "_leftImg8bit and _gtFine_labelIds))")
    return ""


#: the hint for annotations of instances in JSON (COCO, LVIS, labelme): not masks
COCO_HINT = ("COCO-style annotations (polygons or RLE of instances) are not read: draw each "
             "image's instances into one figure/ground mask (0/255 PNG) named like the image")


def json_hint(folder):
    """For a mask folder without the mask sought: the JSON annotation file it holds, if
    any, named with :data:`COCO_HINT`; else ``""``."""
    found = sorted(p.name for p in Path(folder).glob("*.json") if not p.name.startswith("."))
    return f" ({folder} holds {found[0]}: {COCO_HINT})" if found else ""
