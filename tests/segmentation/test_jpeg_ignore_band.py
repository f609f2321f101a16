"""A JPEG mask read with ``--threshold`` and ``--ignore-value V``: lossy compression spreads
the "don't care" band of V into values around it (128 into 120..136), which were
thresholded as figure or ground, silently; the band within
``segmentation._mask_layouts._JPEG_DRIFT`` of V is ignored now (never 0 or the mask's top
value).  A lossless mask ignores V alone, as before."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from PIL import Image

from segmentation._mask_layouts import _JPEG_DRIFT
from segmentation.data import load_mask


def _trimap(size, border, inner, ignore_value):
    """A 0/``ignore_value``/255 mask: a square of foreground in a band of the ignore value."""
    a = np.zeros((size, size), np.uint8)
    a[inner - border:size - inner + border, inner - border:size - inner + border] = ignore_value
    a[inner:size - inner, inner:size - inner] = 255
    return a


@given(st.integers(40, 80), st.integers(2, 6), st.integers(10, 16), st.integers(40, 90),
       st.sampled_from([128, 100, 200]), st.integers(1, 254))
@settings(max_examples=40, deadline=None)
def test_the_band_jpeg_spreads_around_the_ignore_value_is_ignored(tmp_path_factory, size,
                                                                   border, inner, quality,
                                                                   ignore_value, threshold):
    path = tmp_path_factory.mktemp("jpeg") / "mask.jpg"
    Image.fromarray(_trimap(size, border, inner, ignore_value)).save(path, quality=quality)
    decoded = np.asarray(Image.open(path).convert("L")).astype(int)
    near = (np.abs(decoded - ignore_value) <= _JPEG_DRIFT) & (decoded != 0) & (decoded != 255)
    assume((near & (decoded != ignore_value)).any())   # compression spread the band
    assume((decoded[~near] >= threshold).any())        # something reaches the threshold
    mask, ignore = load_mask(path, ignore_value=ignore_value, threshold=threshold,
                             return_ignore=True)
    # before: only the pixels of exactly the ignore value were ignored
    assert np.array_equal(ignore, near)
    assert np.array_equal(mask, (decoded >= threshold) & ~near)


@given(st.integers(1, _JPEG_DRIFT), st.sampled_from([128, 100]))
@settings(max_examples=10, deadline=None)
def test_a_lossless_mask_ignores_the_value_alone(tmp_path_factory, offset, ignore_value):
    # a PNG's values are as drawn: a value near the ignored one is a grey level to threshold
    a = _trimap(40, 3, 12, ignore_value)
    a[0, :5] = ignore_value + offset
    path = tmp_path_factory.mktemp("png") / "mask.png"
    Image.fromarray(a).save(path)
    mask, ignore = load_mask(path, ignore_value=ignore_value, threshold=ignore_value,
                             return_ignore=True)
    assert np.array_equal(ignore, a == ignore_value)
    assert mask[0, :5].all() and np.array_equal(mask, (a >= ignore_value) & (a != ignore_value))
