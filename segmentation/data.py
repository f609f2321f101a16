"""Reading images, masks and labelled point clouds, with clear errors on bad input.

* Weizmann horses (Borenstein & Ullman): RGB images and binary figure/ground
  masks (``{0, 255}`` or ``{0, 1}``), listed by ``manifest.csv``.
* Oakland 3-D (Munoz et al.): ``x y z label confidence`` text files, plain or
  gzipped; the binary task is vegetation (labels 1300-1306) against the rest.

Every error names the offending file (:class:`structpred.io.FormatError`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from structpred import FormatError, open_text

__all__ = ["load_image", "load_mask", "load_pair", "read_manifest", "horse_items",
           "load_points", "VEGETATION", "default_data_dir", "bundled_data_dir", "ImageItem"]

#: Oakland fine labels that make up the "vegetation" class.
VEGETATION = (1300, 1306)


def bundled_data_dir():
    """``data/segmentation`` of the repository (the small slice shipped with it)."""
    return Path(__file__).resolve().parent.parent / "data" / "segmentation"


def default_data_dir():
    """``../shared/data/segmentation`` relative to the repository root when it
    exists (the full sets), else the bundled slice."""
    full = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "segmentation"
    return full if full.is_dir() else bundled_data_dir()


def load_image(path):
    """RGB image as a ``(H, W, 3)`` uint8 array (grey images are replicated)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            im = im.convert("RGB")
            return np.asarray(im, dtype=np.uint8).copy()
    except FileNotFoundError:
        raise
    except (UnidentifiedImageError, OSError) as exc:
        raise FormatError(path, None, f"cannot read image ({exc})") from None


def load_mask(path):
    """Binary mask as a bool ``(H, W)`` array.

    Accepts single-channel (or RGB with equal channels) images holding only
    two values, ``{0, 255}`` or ``{0, 1}`` (or a single one of them).
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            a = np.asarray(im)
    except FileNotFoundError:
        raise
    except (UnidentifiedImageError, OSError) as exc:
        raise FormatError(path, None, f"cannot read mask ({exc})") from None
    if a.ndim == 3:
        if not np.all(a[..., :3] == a[..., :1]):
            raise FormatError(path, None, "mask is a colour image; expected a binary grey mask")
        a = a[..., 0]
    values = np.unique(a)
    if not (set(values.tolist()) <= {0, 255} or set(values.tolist()) <= {0, 1}):
        shown = ", ".join(map(str, values[:6].tolist())) + (", ..." if values.size > 6 else "")
        raise FormatError(path, None, f"mask is not binary: it holds {values.size} values "
                          f"({shown}); expected only 0 and 255 (or 0 and 1)")
    return a > 0


def load_pair(image_path, mask_path=None):
    """Image and (optionally) mask, checked to have the same size."""
    img = load_image(image_path)
    if mask_path is None:
        return img, None
    mask = load_mask(mask_path)
    if mask.shape != img.shape[:2]:
        raise FormatError(mask_path, None, f"mask is {mask.shape[1]}x{mask.shape[0]} but image "
                          f"{image_path} is {img.shape[1]}x{img.shape[0]} (width x height)")
    return img, mask


@dataclass(frozen=True)
class ImageItem:
    id: str
    image: Path
    mask: Path | None
    split: str | None = None


def read_manifest(path, image_dir=None, mask_dir=None):
    """Read a manifest CSV with columns ``id`` (and optionally a split column).

    Images are ``<image_dir>/<id>.png`` (or ``.jpg``), masks ``<mask_dir>/<id>.png``;
    the defaults are ``small/images`` and ``small/masks`` next to the manifest
    (the Weizmann layout).  The split is read from ``split`` or ``split_zjw``.
    """
    path = Path(path)
    root = path.parent
    image_dir = Path(image_dir) if image_dir else root / "small" / "images"
    mask_dir = Path(mask_dir) if mask_dir else root / "small" / "masks"
    items = []
    with open_text(path) as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "id" not in reader.fieldnames:
            raise FormatError(path, 1, "manifest needs an 'id' column")
        split_col = next((c for c in ("split", "split_zjw") if c in reader.fieldnames), None)
        for lineno, row in enumerate(reader, start=2):
            ident = (row.get("id") or "").strip()
            if not ident:
                raise FormatError(path, lineno, "empty id")
            img = image_dir / f"{ident}.png"
            if not img.exists() and (image_dir / f"{ident}.jpg").exists():
                img = image_dir / f"{ident}.jpg"
            mask = mask_dir / f"{ident}.png"
            split = row[split_col].strip() if split_col else None
            items.append(ImageItem(ident, img, mask if mask.exists() else None, split))
    if not items:
        raise FormatError(path, None, "manifest lists no images")
    return items


def horse_items(data_dir, split=None):
    """Weizmann horse items under ``data_dir`` (``weizmann_horse/manifest.csv``)."""
    data_dir = Path(data_dir)
    manifest = data_dir / "weizmann_horse" / "manifest.csv"
    if not manifest.exists():
        manifest = data_dir / "manifest.csv"
    if not manifest.exists():
        raise FileNotFoundError(f"no weizmann_horse/manifest.csv under {data_dir}")
    items = read_manifest(manifest)
    if split is not None:
        items = [it for it in items if it.split == split]
    return items


def load_points(path, max_points=None):
    """Read an Oakland ``x y z label [confidence]`` file (plain or gzipped).

    Returns ``(xyz, labels)``: an ``(N, 3)`` float array and an int array (or
    ``None`` when the file has only three columns).  Raises
    :class:`~structpred.io.FormatError` on empty files, ragged or non-numeric
    rows, and NaN or infinite coordinates, naming the file and line.
    """
    rows = []
    ncol = None
    with open_text(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if ncol is None:
                ncol = len(parts)
                if ncol < 3:
                    raise FormatError(path, lineno, f"expected 'x y z [label ...]', got {ncol} columns")
            elif len(parts) != ncol:
                raise FormatError(path, lineno, f"{len(parts)} columns, expected {ncol}")
            rows.append(parts[:4])
            if max_points is not None and len(rows) >= max_points:
                break
    if not rows:
        raise FormatError(path, None, "point file is empty")
    try:
        arr = np.array(rows, dtype=np.float64)
    except ValueError:
        for i, r in enumerate(rows):
            try:
                [float(x) for x in r]
            except ValueError:
                raise FormatError(path, None, f"non-numeric value in point {i + 1}: {' '.join(r)}") from None
        raise
    xyz = arr[:, :3]
    bad = ~np.all(np.isfinite(xyz), axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise FormatError(path, None, f"{int(bad.sum())} points have NaN or infinite coordinates "
                          f"(first: point {i + 1})")
    labels = arr[:, 3].astype(np.int64) if arr.shape[1] > 3 else None
    return xyz, labels
