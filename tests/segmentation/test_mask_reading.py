"""How masks are read, kept with the model and derived from the masks themselves:
``segment eval -m`` reads the gold masks as the model's training masks were read
(``--threshold``, ``--ignore-value``, ``--mask-suffix``, ``--foreground-labels``), an option
given to eval winning; ``segment predict`` refuses every option of reading masks; the
``--threshold`` a JPEG mask is refused with is derived from its values (0/1 masks saved as
JPEG hold 0..3, and 128 reads none of them)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from PIL import Image

from cli_helpers import one_line_error, run_cli
from segmentation.data import load_mask
from segmentation.model import MRFSegmenter
from structpred import FormatError

N = 32


def _shape(i=0, n=N):
    m = np.zeros((n, n), dtype=bool)
    m[n // 4:3 * n // 4, n // 5 + i % 4:n // 2 + i % 4] = True
    return m


def _set(root, level=255, ext="jpg", suffix="", n=4):
    """``n`` images and masks of 0/``level`` saved as ``ext`` (JPEG: compressed)."""
    rng = np.random.default_rng(0)
    (root / "images").mkdir(parents=True)
    (root / "masks").mkdir()
    for i in range(n):
        Image.fromarray(rng.integers(0, 256, (N, N, 3), dtype=np.uint8)).save(
            root / "images" / f"{i}.png")
        Image.fromarray(_shape(i).astype(np.uint8) * level).save(
            root / "masks" / f"{i}{suffix}.{ext}", **({"quality": 75} if ext == "jpg" else {}))
    return root / "images", root / "masks"


def _train(capsys, tmp_path, *args):
    return run_cli(["segment", "train", "--n-segments", "20", "--iterations", "3", "--jobs", "1",
                    "-q", "-o", str(tmp_path / "m.npz"), *map(str, args)], capsys)


def _eval(capsys, tmp_path, images, masks, *args):
    return run_cli(["segment", "eval", "-m", str(tmp_path / "m.npz"), "--images", str(images),
                    "--masks", str(masks), *map(str, args)], capsys)


# ------------------------------------------------------------------ the model's reading
def test_eval_reads_the_masks_as_the_model_was_trained_to(tmp_path, capsys):
    """Trained with --threshold 128 on JPEG masks that need it: eval without the option
    reads them the same way and says so (it refused them as not binary); an option given
    to eval wins."""
    images, masks = _set(tmp_path)
    assert _train(capsys, tmp_path, "--images", images, "--masks", masks)[0] == 2
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", masks,
                        "--threshold", "128")
    assert rc == 0, err
    assert MRFSegmenter.load(tmp_path / "m.npz").mask_reading_ == {
        "threshold": 128, "ignore_value": None, "mask_suffix": None,
        "background_labels": None}
    rc, out, err = _eval(capsys, tmp_path, images, masks)
    assert rc == 0 and "4 images" in out, err
    assert "--threshold 128 (the model's" in err and len(err.strip().splitlines()) == 1
    rc, given_out, err = _eval(capsys, tmp_path, images, masks, "--threshold", "128")
    assert rc == 0 and given_out == out and "the model's" not in err
    rc, _, err = _eval(capsys, tmp_path, images, masks, "--threshold", "1000")
    assert one_line_error(rc, err, "no value of the mask reaches the threshold 1000")
    rc, _, err = _eval(capsys, tmp_path, images, masks, "--threshold", "none")
    assert one_line_error(rc, err, "0.jpg", "not binary", "--threshold 128")
    # the reading of class indices given to eval replaces the model's grey levels
    rc, _, err = _eval(capsys, tmp_path, images, masks, "--foreground-labels", "128-255")
    assert rc == 0 and "the model's" not in err, err
    # class 255 alone: JPEG moved pixels of it to 249..254, which would be background
    rc, _, err = _eval(capsys, tmp_path, images, masks, "--foreground-labels", "255")
    assert one_line_error(rc, err, "0.jpg: a JPEG mask read as class indices",
                          "--threshold 128 instead")


def test_the_mask_suffix_and_ignore_value_are_the_models_too(tmp_path, capsys):
    images, masks = _set(tmp_path, ext="png", suffix="_mask")
    for i in range(4):   # a "don't care" band of 128
        a = np.asarray(Image.open(masks / f"{i}_mask.png")).copy()
        a[N // 4, :] = 128
        Image.fromarray(a).save(masks / f"{i}_mask.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", masks,
                        "--mask-suffix", "_mask", "--ignore-value", "128")
    assert rc == 0, err
    rc, out, err = _eval(capsys, tmp_path, images, masks)
    assert rc == 0 and "4 images" in out, err
    assert "--ignore-value 128 --mask-suffix _mask (the model's" in err
    # 'none' turns the model's ignore value off: the band of 128 is refused as not binary
    rc, _, err = _eval(capsys, tmp_path, images, masks, "--ignore-value", "none")
    assert one_line_error(rc, err, "0_mask.png", "not binary", "128")
    rc, _, err = _eval(capsys, tmp_path, images, masks, "--mask-suffix", "_gt")
    assert one_line_error(rc, err, "no mask named 0_gt.*")
    # masks named like the images: the model's suffix is used where such masks exist
    for i in range(4):
        (masks / f"{i}_mask.png").rename(masks / f"{i}.png")
    rc, named_out, err = _eval(capsys, tmp_path, images, masks)
    assert rc == 0 and named_out == out, err
    (masks / "1.png").rename(masks / "1_mask.png")   # one of each
    rc, mixed_out, err = _eval(capsys, tmp_path, images, masks)
    assert rc == 0 and mixed_out == out, err


def test_a_model_written_before_reads_masks_by_the_defaults(tmp_path, capsys):
    """A model file without the record (written before it was kept) loads, and eval reads
    its masks by the defaults, as before."""
    images, masks = _set(tmp_path)
    assert _train(capsys, tmp_path, "--images", images, "--masks", masks,
                  "--threshold", "128")[0] == 0
    from segmentation.model_io import FORMAT, FORMAT_VERSION
    from structpred.io import load_npz, save_npz

    meta, data = load_npz(tmp_path / "m.npz", FORMAT, [FORMAT_VERSION])
    assert meta.pop("mask_reading") == {"threshold": 128, "ignore_value": None,
                                        "mask_suffix": None, "background_labels": None}
    meta.pop("digest", None)   # save_npz records it anew
    save_npz(tmp_path / "m.npz", {k: data[k] for k in data}, meta)
    assert MRFSegmenter.load(tmp_path / "m.npz").mask_reading_ == {}
    rc, _, err = _eval(capsys, tmp_path, images, masks)
    assert one_line_error(rc, err, "0.jpg", "not binary", "--threshold 128")


def test_eval_with_points_is_not_given_the_models_image_options(tmp_path, capsys):
    """An image model's reading is not carried to --points (refused for the model's kind,
    not as '--threshold is for images')."""
    images, masks = _set(tmp_path)
    assert _train(capsys, tmp_path, "--images", images, "--masks", masks,
                  "--threshold", "128")[0] == 0
    (tmp_path / "s.xyz").write_text("0 0 0 1\n1 0 0 2\n")
    rc, _, err = run_cli(["segment", "eval", "-m", str(tmp_path / "m.npz"), "--points",
                          str(tmp_path / "s.xyz")], capsys)
    assert one_line_error(rc, err, "trained on images, not point clouds")


@pytest.mark.parametrize("option", [["--masks", "."], ["--mask-dir", "."],
                                    ["--mask-suffix", "_m"], ["--foreground-labels", "1"],
                                    ["--background-labels", "0"]])
def test_predict_refuses_every_option_of_reading_masks(tmp_path, capsys, option):
    """--masks and --mask-dir were accepted and ignored by predict (--masks was even
    looked up, refusing an image without a mask)."""
    images, masks = _set(tmp_path, ext="png")
    assert _train(capsys, tmp_path, "--images", images, "--masks", masks)[0] == 0
    rc, _, err = run_cli(["segment", "predict", "-m", str(tmp_path / "m.npz"), "--images",
                          str(images), "-o", str(tmp_path / "out"), *option], capsys)
    assert one_line_error(rc, err, option[0], "predict reads none")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ the threshold hinted
def _hinted(path):
    with pytest.raises(FormatError) as info:
        load_mask(path)
    found = re.search(r"give --threshold (\d+)", info.value.reason)
    assert found, info.value.reason
    return int(found.group(1)), info.value.reason


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(level=st.sampled_from([1, 255]), quality=st.integers(75, 95),
       box=st.tuples(st.integers(0, 14), st.integers(0, 14), st.integers(12, 18),
                     st.integers(12, 18)))
def test_the_threshold_hinted_for_a_jpeg_mask_reads_it(tmp_path, level, quality, box):
    """0/1 and 0/255 masks saved as JPEG: the hint's threshold lies between their two
    levels and reads the mask back about as well as any threshold can (JPEG blurs the
    edges of a 0/1 mask; the hint said --threshold 128 for 0/1 masks, whose largest value
    is 3, which reads no pixel)."""
    y, x, h, w = box
    m = np.zeros((N, N), dtype=bool)
    m[y:y + h, x:x + w] = True
    Image.fromarray(m.astype(np.uint8) * level).save(tmp_path / "m.jpg", quality=quality)
    a = np.asarray(Image.open(tmp_path / "m.jpg"))
    try:
        read = load_mask(tmp_path / "m.jpg")   # still binary after compression
    except FormatError:
        cut, reason = _hinted(tmp_path / "m.jpg")
        assert 1 <= cut <= a.max() and (cut == 128 if level == 255 else cut < 128), reason
        read = load_mask(tmp_path / "m.jpg", threshold=cut)
        best = min((((a >= t) != m).mean() for t in range(1, int(a.max()) + 1)))
        assert (read != m).mean() <= best + 0.02
    assert (read != m).mean() <= 0.25   # JPEG blurs a 0/1 mask of 12 pixels across


def test_a_threshold_beyond_a_01_jpeg_mask_names_the_one_that_reads_it(tmp_path):
    yy, xx = np.mgrid[:64, :64]
    a = ((yy - 30) ** 2 + (xx - 27) ** 2 < 300).astype(np.uint8)   # a disc of 1 on 0
    Image.fromarray(a).save(tmp_path / "m.jpg", quality=75)
    assert np.asarray(Image.open(tmp_path / "m.jpg")).max() > 1   # compressed: not 0/1
    with pytest.raises(FormatError, match=r"largest is \d, most of the others 1\): is it a "
                                          r"0/1 mask\? give --threshold 1$"):
        load_mask(tmp_path / "m.jpg", threshold=128)
    assert _hinted(tmp_path / "m.jpg")[0] == 1


@given(level=st.sampled_from([1, 2, 3, 255]), noise=st.integers(0, 1),
       seed=st.integers(0, 2 ** 16))
@settings(max_examples=30, deadline=None)
def test_the_colour_jpeg_hint_derives_the_threshold_too(level, noise, seed):
    """A grey mask saved as colour JPEG (channels a few levels apart: their mean read) was
    hinted --threshold 128 whatever its values; the hint now takes the threshold halfway
    to the mean's most common value other than 0."""
    from segmentation._mask_layouts import jpeg_colour_hint

    rng = np.random.default_rng(seed)
    m = _shape(seed % 4)
    off = (rng.random(m.shape) < 0.05) * min(noise, (level - 1) // 2)   # JPEG's noise
    grey = (m.astype(int) * level + off * (1 - 2 * m)).astype(np.uint8)
    cut = re.search(r"give --threshold (\d+) ", jpeg_colour_hint(grey)).group(1)
    assert int(cut) == level // 2 + 1   # 128 for 255, 1 for 1
    assert np.array_equal(grey >= int(cut), m)


@settings(max_examples=60, deadline=None)
@given(spread=st.integers(0, 2), gap=st.integers(1, 8), share=st.floats(0.05, 0.95),
       noise=st.floats(0.0, 0.9), seed=st.integers(0, 2 ** 16))
def test_the_threshold_hinted_lies_between_the_two_clusters_found(spread, gap, share, noise,
                                                                  seed):
    """Lossy small-integer masks (0/2, 0/3, ... after JPEG): background values 0..r,
    foreground values around a level L at least 4r + 1 (two clusters apart); the threshold
    hinted is midway between the clusters, so it reads the foreground exactly whatever
    their shares. The hint took half of the most common value other than 0, which the
    background's noise (many 1s) can be: its 1s and 2s were read as foreground."""
    from segmentation._mask_layouts import suggested_threshold

    rng = np.random.default_rng(seed)
    level = 4 * spread + gap
    m = rng.random((24, 24)) < share
    m.flat[0], m.flat[1] = True, False        # both clusters present
    noisy = rng.random(m.shape) < noise
    bg = np.where(noisy, rng.integers(0, spread + 1, m.shape), 0)
    fg = level + np.where(noisy, rng.integers(-spread, spread + 1, m.shape), 0)
    a = np.where(m, fg, bg).astype(np.uint8)
    lvl, cut = suggested_threshold(a)
    assert np.array_equal(a >= cut, m), (lvl, cut, np.unique(a))
    assert cut <= lvl and level - spread <= lvl <= level + spread


@pytest.mark.parametrize("level", [2, 3, 4, 5])
def test_the_threshold_hinted_for_small_integer_jpeg_masks(level):
    """0/2 ... 0/5 masks saved as JPEG (boxes and discs, quality 60 to 95): read with the
    threshold hinted, they are on average within 2 % of pixels of the best threshold's
    reading. Half the most common value other than 0 (the hint before) was 14 % off on
    average: the background's noise (1s) was often that value, and it was read as
    foreground."""
    import io

    from segmentation._mask_layouts import suggested_threshold

    rng = np.random.default_rng(level)
    excess = []
    for i in range(40):
        m = np.zeros((64, 64), dtype=bool)
        if i % 2:
            yy, xx = np.mgrid[:64, :64]
            m = (yy - rng.integers(10, 50)) ** 2 + (xx - rng.integers(10, 50)) ** 2 < \
                rng.integers(50, 600)
        else:
            (y, x), (h, w) = rng.integers(0, 30, 2), rng.integers(8, 34, 2)
            m[y:y + h, x:x + w] = True
        buf = io.BytesIO()
        Image.fromarray(m.astype(np.uint8) * level).save(buf, "JPEG",
                                                         quality=int(rng.integers(60, 96)))
        a = np.asarray(Image.open(buf))
        best = min(((a >= t) != m).mean() for t in range(1, int(a.max()) + 1))
        excess.append(((a >= suggested_threshold(a)[1]) != m).mean() - best)
    assert np.mean(excess) <= 0.02, np.round(excess, 3)


def test_a_0_255_jpeg_mask_holding_1_is_hinted_a_threshold(tmp_path):
    """A 0/255 mask whose JPEG compression left only 0, 1 and 255 got PASCAL VOC's hint,
    '255 around 0 and 1: void border? --ignore-value 255', which reads its foreground as
    ignored: a JPEG mask is hinted the threshold."""
    m = np.zeros((N, N), dtype=np.uint8)
    m[:16, :17] = 255
    Image.fromarray(m).save(tmp_path / "m.jpg", quality=85)
    assert set(np.unique(np.asarray(Image.open(tmp_path / "m.jpg")))) == {0, 1, 255}
    cut, reason = _hinted(tmp_path / "m.jpg")
    assert cut == 128 and "void border" not in reason, reason


# ---------------------------------------------- class: a binary mask drawn in colour
#: PASCAL VOC's colours of classes 1-20 and the void border: black and one of them is read
#: as a class-index mask saved as RGB (its own hint, test below)
_VOC_CLASS_COLOURS = {(128, 0, 0), (0, 128, 0), (128, 128, 0), (0, 0, 128), (128, 0, 128),
                      (0, 128, 128), (128, 128, 128), (64, 0, 0), (192, 0, 0), (64, 128, 0),
                      (192, 128, 0), (64, 0, 128), (192, 0, 128), (64, 128, 128),
                      (192, 128, 128), (0, 64, 0), (128, 64, 0), (0, 192, 0), (128, 192, 0),
                      (0, 64, 128), (224, 224, 192)}


@pytest.mark.parametrize("colour", [(0, 0, 128), (192, 128, 128)])
def test_black_and_one_voc_class_colour_gets_the_class_index_hint(tmp_path, colour):
    rgb = np.zeros((N, N, 3), dtype=np.uint8)
    rgb[_shape(0)] = colour
    Image.fromarray(rgb).save(tmp_path / "m.png")
    with pytest.raises(FormatError, match="PASCAL VOC's class colours"):
        load_mask(tmp_path / "m.png")


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(colour=st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
       .filter(lambda c: len(set(c)) > 1 and c not in _VOC_CLASS_COLOURS), i=st.integers(0, 7))
@example(colour=(1, 0, 0), i=0)   # grey level 0 once converted to 'L' alone
def test_a_mask_drawn_in_one_colour_on_black_is_refused_with_its_conversion(tmp_path,
                                                                           colour, i):
    """Red on black (or any one colour that is not grey): never guessed (the black could
    be the object), refused naming both colours, with a conversion that reads back as
    the coloured region."""
    import os

    shape = _shape(i)
    rgb = np.zeros((N, N, 3), dtype=np.uint8)
    rgb[shape] = colour
    path = tmp_path / "m.png"
    Image.fromarray(rgb).save(path)
    with pytest.raises(FormatError, match=re.escape(f"two colours, black and {colour}")) as info:
        load_mask(path)
    command = re.search(r'python -c "(.*)"\)$', str(info.value)).group(1)
    here = os.getcwd()
    os.chdir(tmp_path.parent)   # the message names the path as given
    try:
        exec(command, {})
    finally:
        os.chdir(here)
    assert np.array_equal(load_mask(tmp_path.parent / "grey.png"), shape)
