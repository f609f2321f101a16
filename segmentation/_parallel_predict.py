"""``structpred segment predict`` on an executor: the inputs are read here, predicted by
the workers (the model sent to them once) and handed back in input order, a bounded number
in flight (:func:`structpred.parallel.map_ordered`)."""

from __future__ import annotations

import itertools

from structpred.parallel import map_ordered

__all__ = ["predict_images", "predict_points"]


def _predict_image(model, image):
    import warnings

    from ._image_kind import ImageKindWarning

    with warnings.catch_warnings():   # the caller warns once for all the images
        warnings.simplefilter("ignore", ImageKindWarning)
        return model.predict([image])[0]


def _predict_points(model, xyz):
    return model.predict_points(xyz)


def predict_images(model, items, need_masks, reading, executor, guard=None,
                   max_in_flight=None):
    """``(image, mask, ignore, prediction)`` of each ``(ident, image_path, mask_path, _)``
    of ``items``, in order (masks read with ``load_example``'s keywords ``reading``).  ``guard(fn)`` wraps the wait for each prediction (to turn a
    worker's error into the caller's)."""
    from segmentation.data import load_example

    guard = guard or (lambda fn: fn())
    loaded = (load_example(img, mask if need_masks else None, **reading)
              for _, img, mask, _ in items)
    ahead, mine = itertools.tee(loaded)
    preds = map_ordered(_predict_image, (img for img, _, _ in ahead), executor, chunk_size=1,
                        max_in_flight=max_in_flight, shared=model)
    for img, mask, ign in mine:
        yield img, mask, ign, guard(lambda: next(preds))


def predict_points(model, clouds, executor, guard=None, max_in_flight=None):
    """``(xyz, labels, prediction)`` of each ``(xyz, labels)`` of ``clouds``, in order."""
    guard = guard or (lambda fn: fn())
    ahead, mine = itertools.tee(clouds)
    preds = map_ordered(_predict_points, (xyz for xyz, _ in ahead), executor, chunk_size=1,
                        max_in_flight=max_in_flight, shared=model)
    for xyz, lab in mine:
        yield xyz, lab, guard(lambda: next(preds))
