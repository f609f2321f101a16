"""Reading images, masks, manifests and labelled point clouds, with clear errors on bad input.

* Images and binary figure/ground masks (``{0, 255}`` or ``{0, 1}``), optionally
  with a "don't care" value (``ignore_value``, e.g. 128 for a band at object
  boundaries, or 255 in masks holding ``{0, 1}`` as in PASCAL VOC), listed by a
  manifest CSV or found by file stem in folders;
* labelled point clouds: ``x y z label [...]`` text files, plain or gzipped;
  which labels make the foreground is the caller's choice
  (:func:`parse_label_ranges`; for the Oakland 3-D scans' vegetation, for
  example, ``"1300-1306"``).

Every error names the offending file, and the line where there is one
(:class:`structpred.io.FormatError`); readers raise nothing else on bad bytes.
"""

from __future__ import annotations

import csv
import itertools
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from structpred import FormatError, read_lines, split_comma_items
from structpred.io import binary_kind, counted, missing_reason, odd_entry_reason

from segmentation._mask_layouts import (COCO_HINT, check_classes, check_jpeg_classes,
                                        check_trimap,
                                        jpeg_colour_hint, jpeg_ignore_band, is_binary,
                                        palette_greys,
                                        json_hint, near_grey_jpeg, near_miss_hint, two_colour_hint,
                                        not_binary_hint, thresholded)

__all__ = ["load_image", "load_mask", "load_pair", "load_example", "read_manifest", "horse_items",
           "load_points", "parse_label_ranges", "format_label_ranges", "binary_labels",
           "default_data_dir", "bundled_data_dir", "ImageItem", "IMAGE_EXTENSIONS",
           "StemIndex", "folder_images"]

#: File extensions read as images (any letter case).
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".gif", ".webp", ".ppm",
                    ".pgm", ".pnm", ".jfif", ".jpe")

#: extensions of image formats not read (their files in an image or mask folder are
#: refused, naming them: they were passed over as if they were notes, an image lost)
OTHER_IMAGE_EXTENSIONS = {".heic": "HEIC", ".heif": "HEIF", ".avif": "AVIF", ".jxl": "JPEG XL",
                          ".jp2": "JPEG 2000", ".j2k": "JPEG 2000", ".tga": "TGA",
                          ".psd": "Photoshop", ".xcf": "GIMP", ".svg": "SVG", ".exr": "OpenEXR",
                          ".dng": "raw camera", ".cr2": "raw camera", ".nef": "raw camera",
                          ".arw": "raw camera", ".ico": "icon", ".qoi": "QOI", ".pbm": "PBM",
                          ".dib": "DIB", ".apng": "APNG"}


def bundled_data_dir():
    """``data/segmentation`` of the repository (the small slice shipped with it)."""
    return Path(__file__).resolve().parent.parent / "data" / "segmentation"


def default_data_dir():
    """``../shared/data/segmentation`` relative to the repository root when it
    exists (the full sets), else the bundled slice."""
    full = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "segmentation"
    return full if full.is_dir() else bundled_data_dir()


def is_image_file(path):
    """True for a file name with one of :data:`IMAGE_EXTENSIONS` (any case)."""
    return Path(path).suffix.lower() in IMAGE_EXTENSIONS


def folder_images(folder):
    """The image files of ``folder``, sorted: the entries with an image extension
    (:func:`is_image_file`), hidden ones left out (macOS's AppleDouble ``._x.png`` beside
    each file copied from a Mac, ``.DS_Store``: an AppleDouble file was read as an image
    of its own, "no mask named ._x.*"), as the document folders of ``topics`` leave them
    out. An entry of an image name that is not a file (a link to nothing, a loop of links,
    a FIFO, a folder) is a :class:`FormatError` naming it: it was passed over silently,
    an image (or a mask: "no mask named x.*") lost; so is an image of a format not read
    (:data:`OTHER_IMAGE_EXTENSIONS`: ``x.heic``)."""
    out = []
    for f in Path(folder).iterdir():
        if not f.name.startswith(".") and f.suffix.lower() in OTHER_IMAGE_EXTENSIONS:
            raise FormatError(str(f), None, "an image of a format not read here "
                              f"({OTHER_IMAGE_EXTENSIONS[f.suffix.lower()]}; read are "
                              f"{', '.join(e[1:] for e in IMAGE_EXTENSIONS)}): convert it to "
                              "PNG, or move it out of the folder (it would be passed over)")
        if f.name.startswith(".") or not is_image_file(f):
            continue
        if not f.is_file():
            reason = ("a folder, not an image file" if f.is_dir()
                      else odd_entry_reason(f, ", not an image file"))
            raise FormatError(str(f), None, reason)
        out.append(f)
    return sorted(out)


def _nfc(text):
    """``text`` in Unicode normal form NFC (ASCII as it is)."""
    import unicodedata

    return text if text.isascii() else unicodedata.normalize("NFC", text)


class StemIndex:
    """The image files of one folder by stem: ``index.find("horse001")`` finds
    ``horse001.png``, ``horse001.JPG``, ...; two files of one stem (``a.png`` and
    ``a.bmp``) are a :class:`FormatError`, since either could be the one meant.  Stems are
    compared in Unicode normal form NFC: ``café`` spelt with a combining accent (NFD, as
    macOS writes names) is ``café`` with the precomposed letter (an image and its mask
    named so were "no mask named café.*", the two names printed alike)."""

    def __init__(self, folder):
        self.folder = Path(folder)
        if (why := missing_reason(self.folder, "folder")) is not None:
            raise FormatError(self.folder, None, why)
        if not self.folder.is_dir():
            raise FormatError(self.folder, None, "expected a folder" + (
                f" ({COCO_HINT})" if self.folder.suffix.lower() == ".json" else ""))
        rank = {e: i for i, e in enumerate(IMAGE_EXTENSIONS)}
        self._by_stem = {}
        for f in folder_images(self.folder):
            self._by_stem.setdefault(_nfc(f.stem), []).append((rank[f.suffix.lower()], f.name,
                                                               f))
        for v in self._by_stem.values():
            v.sort()

    def find(self, stem, exclude=None):
        """The file for ``stem`` (a name with an image extension is also accepted), or None;
        a file ``exclude`` (the image itself, when the masks share its folder) is passed over."""
        stem = str(stem)
        hit = self._by_stem.get(_nfc(stem))
        if hit and exclude is not None:
            hit = [h for h in hit if not h[2].exists() or not h[2].samefile(exclude)]
        if hit and len(hit) > 1:
            raise FormatError(self.folder, None, f"two files for {stem}: "
                              f"{' and '.join(h[1] for h in hit[:2])}; keep one")
        if hit:
            return hit[0][2]
        if is_image_file(stem):
            p = self.folder / stem
            if p.is_file():
                return p
        return None

    def near_miss(self, stem, masks=True):
        """For a ``stem`` that :meth:`find` does not find: the files of the folder that look
        like its mask under another rule (``horse001_mask.png``, ``x_0.png`` and ``x_1.png``
        of instances, Cityscapes' names), named with a way out (``--mask-suffix`` for
        ``masks``, not for predictions); else ``""``."""
        return (near_miss_hint(self.folder, str(stem),
                               [name for hits in self._by_stem.values() for _, name, _ in hits],
                               masks) or json_hint(self.folder))


def _image_error(path, what, exc):
    """The reason Pillow could not read ``path``, in words: what the file is when Pillow
    does not know its format (text, a PDF, a NumPy array...), else Pillow's own reason
    (a truncated file), never the name of Pillow's exception class."""
    if type(exc).__name__ == "UnidentifiedImageError":
        return FormatError(path, None, f"cannot read {what}: not an image file "
                           f"({_file_kind(path)})")
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return FormatError(path, None, f"cannot read {what}: not an image file or truncated "
                       f"({reason})")


def _file_kind(path):
    """What the file ``path`` holds, from its first 8 KB, for :func:`_image_error`."""
    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except OSError:
        return "it cannot be read"
    kind = binary_kind(head)
    if kind:
        return f"it is {kind}"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:   # not only a character cut at the 8 KB boundary
            return "a format Pillow does not read"
    return "it is text"


def _read_array(path, what):
    """Pixels of an image file; every decoding problem becomes a :class:`FormatError`."""
    from PIL import Image

    path = Path(path)
    if path.is_dir():
        raise FormatError(path, None, f"is a folder, expected an {what} file")
    if not path.exists():
        raise FormatError(path, None, missing_reason(path) or "not a file")
    if path.stat().st_size == 0:
        raise FormatError(path, None, f"{what} file is empty")
    try:
        with Image.open(path) as im:
            _check_pixels(path, what, im.size)
            frames = int(getattr(im, "n_frames", 1) or 1)   # before load: it seeks
            im.seek(0)
            im.load()
            if frames > 1:   # an animated GIF or a multi-page TIFF: its first frame, silently
                article = "an" if what[:1] in "aeiou" else "a"
                warnings.warn(f"{path}: {article} {what} of {frames} frames (an animation or a "
                              "multi-page file): only the first is read", stacklevel=3)
            return im
    except Image.DecompressionBombError:
        raise FormatError(path, None, _too_large(what)) from None
    except (OSError, ValueError, SyntaxError, EOFError, TypeError, IndexError, KeyError,
            ZeroDivisionError, MemoryError) as exc:
        raise _image_error(path, what, exc) from None


#: the most pixels an image or mask may have (read before the pixels are decoded)
MAX_PIXELS = 40_000_000


def _too_large(what, size=None):
    shown = f" ({size[0]} x {size[1]} pixels)" if size else ""
    return (f"{what} too large{shown}: at most {MAX_PIXELS // 1_000_000} million pixels are "
            "segmented; downscale it first (e.g. 'magick IN -resize 25% OUT')")


def _check_pixels(path, what, size):
    if int(size[0]) * int(size[1]) > MAX_PIXELS:
        raise FormatError(path, None, _too_large(what, size))


def _to_rgb8(im):
    """8-bit RGB pixels of an image of any mode Pillow reads.

    16- and 32-bit grey (``I;16*``, ``I``) are scaled from their 16-bit range (or from
    their largest value, above it), floating-point grey (``F``) from [0, 1] (or its
    largest value), not clipped; palette, alpha (dropped), CMYK, YCbCr, LAB and HSV are
    converted by Pillow.
    """
    mode = im.mode
    if mode.startswith("I") or mode == "F":
        a = np.asarray(im, dtype=np.float64)
        if a.ndim == 3:
            a = a[..., 0]
        finite = a[np.isfinite(a)]
        top = float(finite.max()) if finite.size else 0.0
        if mode == "F":
            scale = 255.0 if top <= 1.0 else 255.0 / top
        else:
            scale = 255.0 / 65535.0 if top <= 65535 else 255.0 / top
        g = np.clip(np.nan_to_num(a * scale), 0, 255).round().astype(np.uint8)
        return np.repeat(g[..., None], 3, axis=2)
    if mode in ("LAB", "HSV"):
        from PIL import ImageCms  # noqa: F401 - LAB needs a colour profile conversion

        if mode == "HSV":
            return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()
        lab = ImageCms.createProfile("LAB")
        srgb = ImageCms.createProfile("sRGB")
        rgb = ImageCms.profileToProfile(im, lab, srgb, outputMode="RGB")
        return np.asarray(rgb, dtype=np.uint8).copy()
    if mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in im.info):
        im = im.convert("RGBA")   # the colour under the alpha channel, as Pillow stores it
    return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()


#: EXIF orientations (tag 0x0112) a viewer shows rotated or mirrored; 5-8 exchange width and height
_EXIF_ORIENTATION = 0x0112


def _exif_orientation(im):
    """The EXIF orientation of an opened image (1, or None without one: shown as stored)."""
    try:
        value = im.getexif().get(_EXIF_ORIENTATION)
        return int(value) if value is not None else None
    except Exception:  # noqa: BLE001 - a broken EXIF block: the pixels are read as stored
        return None


def _orientation_note(path, orientation):
    return (f"{path} carries the EXIF orientation {orientation}: viewers show it rotated or "
            "mirrored, but its pixels are read, and its mask read or written, as stored; to "
            "work on the image as shown, rotate its pixels first (e.g. 'magick IN "
            "-auto-orient OUT')")


def load_image(path):
    """RGB image as a ``(H, W, 3)`` uint8 array (grey images are replicated), from any mode
    Pillow reads (:func:`_to_rgb8`: 16-bit grey is scaled, not clipped); more than
    :data:`MAX_PIXELS` pixels are refused before decoding.  The pixels are read as stored;
    an EXIF orientation that viewers apply is named in a warning."""
    a, orientation = _load_image(path)
    if orientation not in (None, 1):
        warnings.warn(_orientation_note(path, orientation), stacklevel=2)
    return a


def _load_image(path):
    """:func:`load_image`'s pixels and the image's EXIF orientation, without the warning."""
    im = _read_array(path, "image")
    orientation = _exif_orientation(im)
    try:
        a = _to_rgb8(im)
    except (OSError, ValueError, TypeError, ImportError) as exc:
        raise FormatError(path, None, f"image mode {im.mode} cannot be converted to RGB "
                          f"({exc})") from None
    if a.ndim != 3 or a.shape[0] == 0 or a.shape[1] == 0:
        raise FormatError(path, None, f"image has no pixels (shape {a.shape})")
    return a, orientation


def load_mask(path, ignore_value=None, return_ignore=False, foreground=None, threshold=None,
              background=None):
    """Binary mask as a bool ``(H, W)`` array.

    Accepts single-channel (or RGB with equal channels) images holding only
    two values, ``{0, 255}`` or ``{0, 1}`` (or a single one of them).  With
    ``ignore_value``, pixels of that value are "don't care": they are not
    part of the binary check, and with ``return_ignore`` the function returns
    ``(mask, ignore)`` with ``ignore`` a bool array (None when no pixel has
    the value); ignored pixels are False in ``mask``.  With ``foreground``, label
    ranges (:func:`parse_label_ranges`, e.g. ``((15, 15),)``), the mask holds class
    indices (PASCAL VOC's palette PNGs): those in the ranges are the foreground, the
    others the background, unless ``background`` ranges are given too: then every class is
    in one of the two (:func:`~segmentation._mask_layouts.check_classes`).  With
    ``threshold`` (``--threshold``), a mask that is not binary (a JPEG mask, antialiased
    edges) is the foreground where its value is at least it.
    """
    if threshold is not None and foreground is not None:
        raise ValueError("threshold and foreground (class indices) exclude each other: a mask "
                         "holds either grey levels or classes")
    im = _read_array(path, "mask")
    try:
        a = np.asarray(im)
    except (OSError, ValueError, TypeError) as exc:
        raise _image_error(path, "mask", exc) from None
    if a.ndim == 3 and im.mode in ("LA", "La", "PA", "RGBA", "RGBa"):
        a = _drop_alpha(path, a)
    if im.mode == "P" and foreground is None:   # a palette of greys: read as shown
        a = palette_greys(im, a)
    if a.ndim == 3:
        grey = near_grey_jpeg(path, a)
        if grey is not None and threshold is not None:
            a = grey[..., None]
        elif not np.all(a[..., :3] == a[..., :1]):
            raise FormatError(path, None, "mask is a colour image; expected a binary grey mask"
                              + (jpeg_colour_hint(grey) if grey is not None
                                 else _voc_colour_hint(a) or two_colour_hint(path, a)))
        a = a[..., 0]
    if a.ndim != 2 or a.size == 0:
        raise FormatError(path, None, f"mask has no pixels (shape {a.shape})")
    if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all((a == 0) | (a == 1) | (a == 255)):
        a = a.astype(np.uint8)   # a floating-point mask (TIFF) of 0.0 and 1.0 (or 255.0)
    if a.dtype.kind not in "biu":
        raise FormatError(path, None, f"mask holds {a.dtype} values; expected whole numbers 0 "
                          "and 255" + (_SOFT_HINT if a.dtype.kind == "f" else ""))
    ignore = None
    if ignore_value is not None:
        top = 1 if a.dtype.kind == "b" else int(np.iinfo(a.dtype).max)
        if not 0 <= ignore_value <= top:
            raise FormatError(path, None, f"the ignore value {ignore_value} cannot occur in this "
                              f"mask (its values go from 0 to {top}): is it the value of "
                              "another mask format?")
        # a JPEG mask to threshold: the band compression spread the ignored value into
        ignore = (jpeg_ignore_band(path, a, ignore_value) if threshold is not None
                  else a == ignore_value)
        if not ignore.any():
            ignore = None
    values = np.unique(a if ignore is None else a[~ignore])
    if foreground is not None:
        check_jpeg_classes(path, a, values, foreground, background, ignore_value, ignore)
        if background is not None:   # every class said: no guess about 3 or 255
            check_classes(path, values, foreground, background, ignore_value)
        else:
            _check_void(path, values, foreground)
            check_trimap(path, values, foreground, ignore_value)
        mask = binary_labels(a, foreground).astype(bool)
        if ignore is not None:
            mask &= ~ignore
        return (mask, ignore) if return_ignore else mask
    if threshold is not None and (cut := thresholded(path, a, values, threshold)) \
            is not None:
        a = cut
    elif not is_binary(set(values.tolist()), a.dtype.itemsize):
        shown = ", ".join(map(str, values[:6].tolist())) + (", ..." if values.size > 6 else "")
        extra = "" if ignore_value is None else f" besides the ignore value {ignore_value}"
        hint = not_binary_hint(path, im.mode, a, values, ignore_value, ignore, _SOFT_HINT,
                               _MAX_CLASS_VALUES)
        raise FormatError(path, None, f"mask is not binary: it holds {values.size} values{extra} "
                          f"({shown}); expected only 0 and 255 (or 0 and 1, or 0 and 65535 in "
                          f"16-bit masks){hint}")
    mask = a > 0
    if ignore is not None:
        mask &= ~ignore
    return (mask, ignore) if return_ignore else mask


#: more values than this in a grey mask that is not binary: a soft map, not class indices
#: (PASCAL VOC has 21 classes and the void border; ADE20K's 150 come as palette PNGs)
_MAX_CLASS_VALUES = 64

_SOFT_HINT = (" (a probability or score map rather than a mask? threshold it into 0 and 255 "
              "first, e.g. at the middle of its range)")


def _voc_palette():
    """PASCAL VOC's colour of each class index 0-255 (bits of the index spread over the
    colours' high bits): 1 is (128, 0, 0), 15 (person) (192, 128, 128), 255 (void)
    (224, 224, 192)."""
    out = np.zeros((256, 3), np.uint8)
    for i in range(256):
        c, rgb = i, [0, 0, 0]
        for j in range(8):
            for k in range(3):
                rgb[k] |= ((c >> k) & 1) << (7 - j)
            c >>= 3
        out[i] = rgb
    return out


def _voc_colour_hint(a):
    """For a colour mask all of whose colours are PASCAL VOC's class colours: a class-index
    mask saved as RGB."""
    colours = np.unique(a[..., :3].reshape(-1, 3), axis=0)
    palette = _voc_palette()
    codes = palette.astype(np.int64) @ [65536, 256, 1]
    index = {int(c): i for i, c in enumerate(codes) if i <= 20 or i == 255}
    found = [index.get(int(c)) for c in colours.astype(np.int64) @ [65536, 256, 1]]
    if len(found) > 8 or None in found:
        return ""
    shown = ", ".join(f"{tuple(int(v) for v in palette[i])} is "
                      + ("the void border 255" if i == 255 else f"class {i}")
                      for i in sorted(found) if i)
    return (f" (its colours are PASCAL VOC's class colours, {shown}: a class-index mask saved "
            "as RGB; save the class indices as a palette or grey PNG, as VOC's "
            "SegmentationClass PNGs are, and give --foreground-labels with the classes wanted)")


def _check_void(path, values, foreground):
    """A class-index mask (``foreground`` labels given) holding 255, PASCAL VOC's void
    border, that is neither foreground nor ignored: it would be read as background."""
    inner = values[(values > 0) & (values < 255)]
    if values.size and int(values[-1]) == 255 and inner.size and not any(
            a <= 255 <= b for a, b in foreground):
        raise FormatError(path, None, "mask holds 255 besides the class indices "
                          f"{', '.join(map(str, values[:-1][:6].tolist()))}: PASCAL VOC's void "
                          "border? give --ignore-value 255 (it would be read as background; "
                          "if 255 is the background, say so: --background-labels with every "
                          "background class)")


def _drop_alpha(path, a):
    """A mask's pixels without its alpha channel, which is not read; a mask whose figure is
    drawn only in its alpha channel (a cut-out: one colour everywhere) is refused."""
    alpha, colour = a[..., -1], a[..., :-1]
    if np.all(colour == colour.flat[0]) and not np.all(alpha == alpha.flat[0]):
        raise FormatError(path, None, "mask is one colour everywhere and its figure is drawn "
                          "only in its alpha channel, which is not read; save the alpha "
                          "channel as a grey mask (e.g. 'magick IN -alpha extract OUT')")
    return colour if colour.shape[-1] > 1 else colour[..., 0]


def load_example(image_path, mask_path=None, ignore_value=None, foreground=None,
                 threshold=None, background=None):
    """``(image, mask, ignore)``: image and (optionally) mask, checked to have the
    same size; ``ignore`` marks the mask's "don't care" pixels (or is None); ``foreground``,
    ``threshold`` and ``background`` as :func:`load_mask`'s."""
    img, orientation = _load_image(image_path)
    if mask_path is None:
        if orientation not in (None, 1):
            warnings.warn(_orientation_note(image_path, orientation), stacklevel=2)
        return img, None, None
    mask, ignore = load_mask(mask_path, ignore_value, return_ignore=True, foreground=foreground,
                             threshold=threshold, background=background)
    if mask.shape != img.shape[:2]:
        hint = ("" if mask.shape != img.shape[1::-1] else
                f" ({_orientation_note(image_path, orientation)})"
                if orientation is not None and orientation >= 5 else
                " (width and height exchanged: a mask saved transposed, or an image rotated "
                "without its mask?)")
        raise FormatError(mask_path, None, f"mask is {mask.shape[1]}x{mask.shape[0]} but image "
                          f"{image_path} is {img.shape[1]}x{img.shape[0]} (width x height){hint}")
    if orientation not in (None, 1):
        warnings.warn(_orientation_note(image_path, orientation), stacklevel=2)
    return img, mask, ignore


def load_pair(image_path, mask_path=None):
    """Image and (optionally) mask, checked to have the same size."""
    img, mask, _ = load_example(image_path, mask_path)
    return img, mask


@dataclass(frozen=True)
class ImageItem:
    """One image of a manifest (or folder): its id, files, split and manifest line."""

    id: str
    image: Path
    mask: Path | None
    split: str | None = None
    source: str | None = None
    line: int | None = None

    @property
    def where(self):
        """``MANIFEST:LINE`` (or the image file) for error messages."""
        return f"{self.source}:{self.line}" if self.source and self.line else str(self.image)


def _csv_lines(path):
    for _, text in read_lines(path):
        yield text + "\n"


def _manifest_reader(path):
    """A ``csv.reader`` of the manifest ``path``, its fields separated by commas or, when
    the header holds no comma and its fields split by ``;`` or a tab name an ``id`` or
    ``image`` column, by that (a spreadsheet's CSV where the decimal mark is a comma, a
    TSV file): those were "manifest needs an 'id' (or 'image') column".  A ``.txt`` file
    whose first word is not ``id`` or ``image`` is a list of ids, the first word of each
    line (PASCAL VOC's ``ImageSets/Segmentation/train.txt``, Oxford-IIIT Pets'
    ``annotations/trainval.txt`` of ``id class species breed``; ``#`` lines are comments):
    read under an ``id`` header of its own; the second value is the lines added before the
    file's first (0 or 1)."""
    lines = _csv_lines(path)
    first = next(lines, None)
    if (first is not None and Path(path).suffix.lower() == ".txt" and first.split()
            and not any(c in first for c in ",;")
            and first.split()[0].lstrip("\ufeff").lower() not in ("id", "image")):
        def ids():   # the first word of each line; comments blank (line numbers kept)
            for line in itertools.chain([first], lines):
                words = line.split()
                yield "\n" if not words or words[0].startswith("#") else words[0] + "\n"
        return csv.reader(itertools.chain(["id\n"], ids())), 1
    delimiter = ","
    for sep in (";", "\t"):
        if first is not None and "," not in first and sep in first and {"id", "image"} & {
                h.strip().lstrip("\ufeff").lower() for h in first.split(sep)}:
            delimiter = sep
    return csv.reader(itertools.chain([first] if first is not None else [], lines),
                      delimiter=delimiter), 0


def _manifest_folders(root, image_dir, mask_dir):
    """:func:`read_manifest`'s image and mask folders: those given, or the first of its
    defaults that exists under the manifest's folder ``root``."""
    def folder(given, parts):
        if given:
            return Path(given)
        for p in parts:
            if (root / p).is_dir():
                return Path(os.path.normpath(root / p))
        return root / parts[0]

    voc = root.parts[-2:] == ("ImageSets", "Segmentation")   # PASCAL VOC's lists of ids
    pets = root.name == "annotations"   # Oxford-IIIT Pets: annotations/trainval.txt
    return (folder(image_dir, ("small/images", "images") + ("../../JPEGImages",) * voc
                   + ("../images",) * pets),
            folder(mask_dir, ("small/masks", "masks") + ("../../SegmentationClass",) * voc
                   + ("trimaps",) * pets))


def read_manifest(path, image_dir=None, mask_dir=None, need_masks=False, mask_suffix=""):
    """Read a manifest CSV with an ``id`` column (and optionally a split column).

    The image of row ``id`` is ``<image_dir>/<id>.<ext>`` for any image
    extension in any letter case (:data:`IMAGE_EXTENSIONS`), or the path in
    an ``image`` column; its mask likewise in ``mask_dir`` or a ``mask``
    column (paths relative to the manifest's folder).  The default folders
    are ``small/images`` and ``small/masks`` next to the manifest (the
    Weizmann layout) when they exist, else ``images`` and ``masks`` (for a list of ids in
    PASCAL VOC's ``ImageSets/Segmentation``, its ``JPEGImages`` and ``SegmentationClass``;
    for one in Oxford-IIIT Pets' ``annotations``, ``../images`` and ``trimaps``).
    The split is read from ``split`` or ``split_zjw``.  A ``.txt`` file of one id a line is
    read as a manifest of those ids (the first word of each line).  ``mask_suffix`` is added to the id to name its mask
    (``_segmentation`` for ISIC's ``<id>_segmentation.png``); a tuple of suffixes is tried
    in order (``segment eval``: the model's, then none).

    A row whose image is missing raises :class:`FormatError` naming the
    manifest line; so does a missing mask when ``need_masks``.
    """
    path = Path(path)
    if path.is_dir():
        raise FormatError(path, None, "is a folder, expected a manifest CSV file")
    if not path.exists():
        raise FormatError(path, None, missing_reason(path) or "not a file")
    root = path.parent
    image_dir, mask_dir = _manifest_folders(root, image_dir, mask_dir)
    indexes = {}

    def lookup(d, ident):
        if d not in indexes:
            indexes[d] = StemIndex(d) if d.is_dir() else None
        return indexes[d].find(ident) if indexes[d] is not None else None

    items = []
    try:
        reader, added = _manifest_reader(path)
        header = next(reader, None)
        if header is None:
            raise FormatError(path, None, "manifest is empty")
        header = [h.strip().lstrip("\ufeff").lower() for h in header]
        if "id" not in header and "image" not in header:
            raise FormatError(path, 1, "manifest needs an 'id' (or 'image') column" + (
                f" (a JSON file? {COCO_HINT})" if header and header[0].startswith(("{", "[")) else ""))
        col = {h: i for i, h in enumerate(header)}
        split_col = next((c for c in ("split", "split_zjw") if c in col), None)
        seen = {}
        for row in reader:
            lineno = reader.line_num - added
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise FormatError(path, lineno, f"{len(row)} fields, expected {len(header)} "
                                  f"({','.join(header)})")

            def cell(name):
                return row[col[name]].strip() if name in col else ""

            ident = cell("id")
            if "image" in col and cell("image"):
                img = root / cell("image")
                if not img.is_file():
                    raise FormatError(path, lineno, f"image {img} not found")
                ident = ident or img.stem
            else:
                if not ident:
                    raise FormatError(path, lineno, "empty id")
                img = lookup(image_dir, ident)
                if img is None:
                    raise FormatError(path, lineno, f"no image named {ident}.* in {image_dir}")
            if ident in seen:
                raise FormatError(path, lineno, f"id {ident!r} also on line {seen[ident]}")
            seen[ident] = lineno
            if "mask" in col and cell("mask"):
                mask = root / cell("mask")
                mask = mask if mask.is_file() else None
                where = f"mask {root / cell('mask')} not found"
            else:
                base = Path(ident).stem if is_image_file(ident) else ident
                suffixes = (mask_suffix,) if isinstance(mask_suffix, str) else mask_suffix
                stem = base + suffixes[0]
                mask = next((m for sfx in suffixes if (m := lookup(mask_dir, base + sfx))
                             is not None), None)
                where = f"no mask named {ident + suffixes[0]}.* in {mask_dir}" + (indexes[mask_dir].near_miss(
                    stem) if mask is None and need_masks and indexes.get(mask_dir) else "")
            if mask is None and need_masks:
                raise FormatError(path, lineno, where)
            split = cell(split_col) if split_col else None
            items.append(ImageItem(ident, img, mask, split, str(path), lineno))
    except csv.Error as exc:
        raise FormatError(path, getattr(reader, "line_num", None) or None,
                          f"not a CSV manifest ({exc})") from None
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


# ------------------------------------------------------------------ points
def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_label_ranges(text):
    """``"1300-1306,1400"`` -> ``((1300, 1306), (1400, 1400))`` (inclusive ranges).

    Raises ``ValueError`` with a message for a command line on anything else.
    """
    out = []
    for part in split_comma_items(text):   # "1300,,1306": dropped silently before
        m = re.fullmatch(r"(-?\d{1,18})(?:\s*-\s*(-?\d{1,18}))?", part)   # int64 labels
        if m is None:
            raise ValueError(f"expected labels or ranges like 1300-1306,1400, got {part!r}")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        if b < a:
            raise ValueError(f"empty label range {part!r}")
        out.append((a, b))
    if not out:
        raise ValueError("no foreground labels given")
    return tuple(out)


def format_label_ranges(ranges):
    """Inverse of :func:`parse_label_ranges`."""
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in ranges)


def binary_labels(labels, ranges):
    """1 where ``labels`` fall in any of the inclusive ``ranges``, else 0 (int8)."""
    labels = np.asarray(labels)
    out = np.zeros(labels.shape, dtype=bool)
    for a, b in ranges:
        out |= (labels >= a) & (labels <= b)
    return out.astype(np.int8)


def load_points(path, max_points=None):
    """Read an ``x y z label [...]`` point file (plain or gzipped): values separated by
    white space or, when the first line's are, by commas (``x,y,z,label``).

    Returns ``(xyz, labels)``: an ``(N, 3)`` float array and an int array (or
    ``None`` when the file has only three columns).  Raises
    :class:`~structpred.io.FormatError` -- and nothing else -- on empty files,
    bad bytes or gzip data, ragged or non-numeric rows, NaN or infinite
    coordinates and labels that are not whole numbers, naming the file and line.
    """
    if isinstance(path, bytes):   # as read_lines takes it (pathlib's "argument should be a str")
        path = os.fsdecode(path)
    path_s = str(path)
    # another type (an open file, None): read_lines names it
    if isinstance(path, (str, os.PathLike)) and Path(path).is_dir():
        raise FormatError(path_s, None, "is a folder, expected a point file")
    rows, linenos = [], []
    ncol = comma = None
    for lineno, line in read_lines(path):
        if comma is None and line.strip() and not line.lstrip().startswith("#"):
            # values separated by commas (CSV exports of CloudCompare, PDAL, pandas: 'x,y,z,
            # label', ', ' too) were one column, refused as "got 1 columns"
            items = [p.strip() for p in line.split(",")]
            comma = len(items) > 1 and all(p and not any(c.isspace() for c in p)
                                           for p in items)
        parts = [p.strip() for p in line.split(",")] if comma else line.split()
        if not parts or not parts[0] or parts[0].startswith("#"):
            continue
        if ncol is None:
            ncol = len(parts)
            if ncol < 3:
                raise FormatError(path_s, lineno, f"expected 'x y z [label ...]', got "
                                  f"{counted(ncol, 'column')}")
        elif len(parts) != ncol:
            raise FormatError(path_s, lineno, f"{len(parts)} columns, expected {ncol}")
        rows.append(parts[:4])
        linenos.append(lineno)
        if max_points is not None and len(rows) >= max_points:
            break
    if not rows:
        raise FormatError(path_s, None, "point file is empty")
    try:
        arr = np.array(rows, dtype=np.float64)
    except ValueError:
        for r, ln in zip(rows, linenos):
            for x in r:
                try:
                    float(x)
                except ValueError:
                    header = ln == linenos[0] and not any(_is_number(v) for v in r)
                    raise FormatError(path_s, ln, f"non-numeric value {x[:20]!r}" + (
                        " (a header line? point files hold numbers only: remove it)"
                        if header else " (a decimal comma? write decimal points)"
                        if _is_number(x.replace(",", ".", 1)) else "")) from None
        raise FormatError(path_s, None, "non-numeric values") from None
    xyz = arr[:, :3]
    bad = ~np.all(np.isfinite(xyz), axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        n = int(bad.sum())
        raise FormatError(path_s, linenos[i], f"{counted(n, 'point')} "
                          f"{'has' if n == 1 else 'have'} NaN or infinite coordinates (the "
                          "first here)")
    labels = None
    if arr.shape[1] > 3:
        lab = arr[:, 3]
        huge = np.isfinite(lab) & (np.abs(lab) > 2 ** 62)
        bad = ~np.isfinite(lab) | (lab != np.round(lab)) | huge
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            what = ("is too large for a class label (at most 2**62 in size)" if huge[i]
                    else "is not a whole number")
            raise FormatError(path_s, linenos[i], f"label {rows[i][3][:20]!r} {what} "
                              f"({counted(int(bad.sum()), 'such point')})")
        labels = lab.astype(np.int64)
    return xyz, labels
