"""Grey or colour images: a model trained on grey images only (one channel, or three
equal ones) segments colour images much worse (foreground IoU 55 on grey test images, 43
on the same images in colour), and one trained on colour images sees no colour in grey
ones; the model keeps which kind it was trained on (``MRFSegmenter.grey_``), and
``predict`` (``segment predict``, ``segment eval``) warns once when images of the other
kind are given."""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["ImageKindWarning", "is_grey", "training_kind", "image_kind_message",
           "warn_image_kind"]


class ImageKindWarning(UserWarning):
    """Images of the other kind (grey or colour) than the model's training images."""


def is_grey(image):
    """Whether an RGB image (``(H, W, 3)``, as :func:`segmentation.features.as_rgb8` gives
    it; grey files and arrays are read as three equal channels) has no colour."""
    image = np.asarray(image)
    if image.ndim == 2 or (image.ndim == 3 and image.shape[-1] == 1):
        return True
    return bool(np.array_equal(image[..., 0], image[..., 1])
                and np.array_equal(image[..., 1], image[..., 2]))


def training_kind(flags):
    """``True`` when every training image was grey, ``False`` when every one was in
    colour, ``None`` when they were of both kinds or some kind is unknown (a graph
    made by hand or read from an older cache): nothing to warn of then."""
    flags = list(flags)
    if not flags or any(f is None for f in flags):
        return None
    return True if all(flags) else False if not any(flags) else None


def image_kind_message(trained_grey, flags, names=None):
    """The warning (a string) when some of the images whose kinds are ``flags`` (``True``
    grey, ``False`` colour, ``None`` unknown) are of the other kind than the model's
    training images (``trained_grey``; ``None``: both kinds, or a model written before
    the kind was kept), else ``None``.  ``names`` name the images (default: their
    places, from 0)."""
    if trained_grey is None:
        return None
    other = [i for i, f in enumerate(flags) if f is not None and bool(f) != bool(trained_grey)]
    if not other:
        return None
    n, total = len(other), len(flags)
    kind, trained = ("colour", "grey") if trained_grey else ("grey", "colour")
    first = names[other[0]] if names is not None else f"image {other[0]}"
    which = (f"the image ({first}) is" if total == 1 else
             f"every one of the {total} images is" if n == total else
             f"{n} of the {total} images (the first: {first}) are")
    why = ("its colour features were learnt without colour, and it segments colour images "
           "much worse than grey ones" if trained_grey else
           "its colour features find none in grey images, and it segments them worse")
    return (f"{which} {kind}, but the model was trained on {trained} images only (one "
            f"channel, or three equal ones, being grey): {why}; train it on images of "
            "their kind")


def warn_image_kind(trained_grey, flags, names=None):
    """:func:`image_kind_message` as one :class:`ImageKindWarning`, if any."""
    message = image_kind_message(trained_grey, flags, names)
    if message is not None:
        warnings.warn(message, ImageKindWarning, stacklevel=3)
