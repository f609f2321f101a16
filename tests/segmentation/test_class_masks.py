"""Class-index masks whose classes mean what the user says: ``--background-labels`` with
``--foreground-labels`` lists every class (a mask of 1, 2 and 3 whose 3 is the background
could not be read: it was refused as an Oxford-IIIT Pets trimap, whose 3 is the border,
with ways out that read 3 as ignored or as foreground); a class in neither list is refused
naming the file and the values, never read as background by default."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image

from cli_helpers import one_line_error, run_cli
from segmentation.data import load_mask
from segmentation.model import MRFSegmenter
from structpred import FormatError

N = 24


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(classes=st.sets(st.sampled_from([0, 1, 2, 3, 15, 254, 255]), min_size=2, max_size=5),
       data=st.data())
def test_every_class_is_foreground_background_or_refused(tmp_path, classes, data):
    """Each class drawn goes to the foreground, the background or neither; the mask reads
    as exactly its foreground classes when each is listed, and is refused naming the file
    and the classes in neither list otherwise."""
    classes = sorted(classes)
    fg = data.draw(st.sets(st.sampled_from(classes), min_size=1, max_size=len(classes) - 1))
    rest = [c for c in classes if c not in fg]
    bg = data.draw(st.sets(st.sampled_from(rest), min_size=1, max_size=len(rest)))
    seed = data.draw(st.integers(0, 2 ** 16))
    a = np.random.default_rng(seed).choice(classes, size=(N, N)).astype(np.uint8)
    a.flat[:len(classes)] = classes   # every class present
    Image.fromarray(a).save(tmp_path / "m.png")
    ranges = (lambda cs: tuple((c, c) for c in sorted(cs)))
    neither = [c for c in classes if c not in fg and c not in bg]
    if neither:
        with pytest.raises(FormatError, match="in neither --foreground-labels nor "
                                              f"--background-labels \\({neither[0]}"):
            load_mask(tmp_path / "m.png", foreground=ranges(fg), background=ranges(bg))
        return
    read = load_mask(tmp_path / "m.png", foreground=ranges(fg), background=ranges(bg))
    assert np.array_equal(read, np.isin(a, sorted(fg)))


def _set(root):
    """Images and masks of 1 (figure), 2 (its shadow, foreground too) and 3 (background)."""
    (root / "images").mkdir()
    (root / "masks").mkdir()
    rng = np.random.default_rng(0)
    for i in range(3):
        m = np.full((N, N), 3, dtype=np.uint8)
        m[4:16, 5 + i:14 + i] = 1
        m[16:20, 5 + i:14 + i] = 2
        img = rng.integers(0, 80, (N, N, 3)).astype(np.uint8)
        img[m != 3] += 150
        Image.fromarray(img).save(root / "images" / f"{i}.png")
        Image.fromarray(m).save(root / "masks" / f"{i}.png")
    return root / "images", root / "masks"


def test_a_mask_of_1_2_3_whose_3_is_the_background(tmp_path, capsys):
    """Before, every way to read it was refused or wrong: '--foreground-labels 1,2' was
    refused as a Pets trimap ('--ignore-value 3', which drops the background, or
    '--foreground-labels 1,3'). The model records the background classes, and eval -m reads
    the gold masks with them."""
    images, masks = _set(tmp_path)
    train = ["segment", "train", "--images", str(images), "--masks", str(masks),
             "--n-segments", "20", "--iterations", "3", "--jobs", "1", "-q", "-o",
             str(tmp_path / "m.npz")]
    rc, _, err = run_cli(train + ["--foreground-labels", "1,2"], capsys)
    assert one_line_error(rc, err, "0.png", "trimap", "--background-labels")
    rc, _, err = run_cli(train + ["--foreground-labels", "1"], capsys)
    assert one_line_error(rc, err, "0.png", "--background-labels")
    rc, _, err = run_cli(train + ["--foreground-labels", "1", "--background-labels", "3"],
                         capsys)
    assert one_line_error(rc, err, "0.png", "1 value in neither", "(2; it holds 1, 2, 3)")
    rc, _, err = run_cli(train + ["--background-labels", "3"], capsys)
    assert one_line_error(rc, err, "give the foreground classes as --foreground-labels")
    rc, _, err = run_cli(train + ["--foreground-labels", "1-2", "--background-labels", "2,3"],
                         capsys)
    assert one_line_error(rc, err, "class 2 is in both")
    rc, _, err = run_cli(train + ["--foreground-labels", "1,2", "--background-labels", "3"],
                         capsys)
    assert rc == 0, err
    assert MRFSegmenter.load(tmp_path / "m.npz").mask_reading_["background_labels"] == "3"
    rc, out, err = run_cli(["segment", "eval", "-m", str(tmp_path / "m.npz"), "--images",
                            str(images), "--masks", str(masks)], capsys)
    assert rc == 0 and "3 images" in out, err
    assert "--background-labels 3 --foreground-labels 1,2 (the model's" in err
    rc, _, err = run_cli(["segment", "eval", "-m", str(tmp_path / "m.npz"), "--images",
                          str(images), "--masks", str(masks), "--threshold", "2"], capsys)
    assert rc == 0 and "the model's" not in err, err   # grey levels: the classes not used


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fg_index=st.integers(0, 5), bg_index=st.integers(0, 5), fg_grey=st.sampled_from([255, 1]),
       seed=st.integers(0, 2 ** 16))
def test_a_palette_mask_of_greys_is_read_as_shown(tmp_path, fg_index, bg_index, fg_grey, seed):
    """A figure/ground mask saved as a palette PNG whose palette holds the figure's white
    (or 1) at index 0 and the background's black at index 1 was read by its indices:
    inverted, without a word. A palette of greys is read as its greys; class indices with
    --foreground-labels are still read as indices."""
    if fg_index == bg_index:
        bg_index = (fg_index + 1) % 6
    rng = np.random.default_rng(seed)
    m = rng.random((N, N)) < 0.3
    m.flat[0], m.flat[1] = True, False
    palette = rng.integers(0, 256, (256, 3))
    palette[fg_index], palette[bg_index] = fg_grey, 0
    im = Image.fromarray(np.where(m, fg_index, bg_index).astype(np.uint8), mode="P")
    im.putpalette(palette.astype(np.uint8).ravel().tolist())
    im.save(tmp_path / "m.png")
    assert np.array_equal(load_mask(tmp_path / "m.png"), m)
    read = load_mask(tmp_path / "m.png", foreground=((fg_index, fg_index),),
                     background=((bg_index, bg_index),))
    assert np.array_equal(read, m)


def test_a_voc_palette_mask_is_read_by_its_indices(tmp_path):
    from segmentation.data import _voc_palette

    a = np.zeros((N, N), dtype=np.uint8)
    a[3:9, 3:9], a[9, :] = 15, 255
    im = Image.fromarray(a, mode="P")
    im.putpalette(np.asarray(_voc_palette(), dtype=np.uint8).ravel().tolist())
    im.save(tmp_path / "voc.png")
    read = load_mask(tmp_path / "voc.png", foreground=((15, 15),), ignore_value=255)
    assert np.array_equal(read, a == 15)
    with pytest.raises(FormatError, match="class-index mask"):
        load_mask(tmp_path / "voc.png")


def test_a_palette_of_greys_in_the_indices_order_is_read_by_the_indices(tmp_path):
    """Black at index 0 and a grey 128 at index 1: a 0/1 mask as before (read by its
    greys, it would be refused as 0/128)."""
    a = np.zeros((N, N), dtype=np.uint8)
    a[2:9, 2:9] = 1
    im = Image.fromarray(a, mode="P")
    im.putpalette([0, 0, 0, 128, 128, 128] + [0] * 762)
    im.save(tmp_path / "m.png")
    assert np.array_equal(load_mask(tmp_path / "m.png"), a == 1)


def test_a_palette_of_one_grey_for_every_index_is_read_by_the_indices(tmp_path):
    """A palette left black (every entry (0, 0, 0)) shows no figure: the indices are read
    (read by its greys, the figure was all background)."""
    a = np.zeros((N, N), dtype=np.uint8)
    a[2:9, 2:9] = 1
    im = Image.fromarray(a, mode="P")
    im.putpalette([0, 0, 0, 0, 0, 0])
    im.save(tmp_path / "m.png")
    assert np.array_equal(load_mask(tmp_path / "m.png"), a == 1)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cls=st.sampled_from([1, 15, 255]), quality=st.integers(70, 95),
       ignore=st.booleans())
def test_a_jpeg_mask_read_as_class_indices_is_refused(tmp_path, cls, quality, ignore):
    """Class indices saved as JPEG: compression moves pixels of class 15 to 13..19 (and
    the void 255 to 249..254), which --foreground-labels 15 read as background (447 of
    625 pixels of the class were left), silently; refused naming the values moved, with
    PNG or the threshold of a figure/ground mask as the way out."""
    a = np.zeros((N, N), dtype=np.uint8)
    a[4:18, 3:15] = cls
    if ignore and cls != 255:
        a[20, :] = 255
    Image.fromarray(a).save(tmp_path / "m.jpg", quality=quality)
    b = np.asarray(Image.open(tmp_path / "m.jpg"))
    listed = {0, cls} | ({255} if ignore and cls != 255 else set())
    moved = [v for v in np.unique(b).tolist() if v and v not in listed
             and any(abs(v - c) <= 8 for c in listed - {0})]
    kwargs = {"foreground": ((cls, cls),),
              "ignore_value": 255 if ignore and cls != 255 else None}
    if moved:
        with pytest.raises(FormatError, match=r"m\.jpg: a JPEG mask read as class indices: .*"
                                              r"give --threshold \d+ instead"):
            load_mask(tmp_path / "m.jpg", **kwargs)
    else:
        assert np.array_equal(load_mask(tmp_path / "m.jpg", **kwargs), b == cls)
