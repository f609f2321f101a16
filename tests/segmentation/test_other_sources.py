"""Masks and folders as other sources than the Weizmann horses bring them to ``segment``.

Each case writes small masks (and images) the way another tool or data set does --
16-bit PNGs of 0 and 65535, grey masks with an alpha channel, floating-point TIFFs,
PASCAL VOC palette PNGs (class 13, a void border of 255), images and masks in one
folder -- and scores the gold masks against themselves with ``segment eval --pred``
(a perfect prediction: IoU 100) or checks the one-line refusal names the cause.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from structpred.cli import main


def _shape(size=24):
    m = np.zeros((size, size), dtype=bool)
    m[6:18, 4:16] = True
    return m


def _masks(root, write, n=2):
    d = root / "masks"
    d.mkdir()
    for i in range(n):
        write(np.roll(_shape(), i, axis=1), d / f"im{i}")
    return d


def _eval(capsys, *args):
    rc = main(["segment", "eval", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


def _perfect(capsys, d, *extra):
    rc, out, err = _eval(capsys, "--pred", d, "--masks", d, *extra)
    assert rc == 0, err
    assert "foreground IoU 100.00%" in out


def test_16bit_masks_of_0_and_65535(tmp_path, capsys):
    d = _masks(tmp_path, lambda m, p: Image.fromarray(m.astype(np.uint16) * 65535).save(f"{p}.png"))
    _perfect(capsys, d)


def test_grey_mask_with_alpha_channel(tmp_path, capsys):
    def write(m, p):
        g = m.astype(np.uint8) * 255
        Image.fromarray(np.dstack([g, np.full_like(g, 255)]), "LA").save(f"{p}.png")
    _perfect(capsys, _masks(tmp_path, write))


def test_float_tiff_masks_of_0_and_1(tmp_path, capsys):
    d = _masks(tmp_path, lambda m, p: Image.fromarray(m.astype(np.float32), "F").save(f"{p}.tif"))
    _perfect(capsys, d)


def test_mask_drawn_only_in_its_alpha_channel_is_named(tmp_path, capsys):
    def write(m, p):
        z = np.zeros(m.shape, np.uint8)
        Image.fromarray(np.dstack([z, z, z, m.astype(np.uint8) * 255]), "RGBA").save(f"{p}.png")
    d = _masks(tmp_path, write)
    rc, _, err = _eval(capsys, "--pred", d, "--masks", d)
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "im0.png" in err and "alpha channel" in err


def _voc(m, p, fg=13):
    from scipy.ndimage import binary_dilation
    a = np.where(m, fg, 0).astype(np.uint8)
    a[binary_dilation(m) & ~m] = 255
    im = Image.fromarray(a, "P")
    im.putpalette([0, 0, 0] * 13 + [192, 0, 128] + [0, 0, 0] * 241 + [224, 224, 192])
    im.save(f"{p}.png")


def test_voc_palette_class_index_is_named(tmp_path, capsys):
    d = _masks(tmp_path, _voc)
    for extra in ([], ["--ignore-value", "255"]):
        rc, _, err = _eval(capsys, "--pred", d, "--masks", d, *extra)
        assert rc == 2 and len(err.strip().splitlines()) == 1
        assert "im0.png" in err and "class-index mask" in err


def test_voc_void_border_with_ignore_value(tmp_path, capsys):
    d = _masks(tmp_path, lambda m, p: _voc(m, p, fg=1))
    rc, _, err = _eval(capsys, "--pred", d, "--masks", d)
    assert rc == 2 and "--ignore-value 255" in err
    _perfect(capsys, d, "--ignore-value", "255")


def test_prediction_with_void_where_gold_has_labels(tmp_path, capsys):
    d = _masks(tmp_path, lambda m, p: _voc(m, p, fg=1))
    gold = tmp_path / "gold"
    gold.mkdir()
    for i in range(2):
        Image.fromarray(np.roll(_shape(), i, axis=1).astype(np.uint8)).save(gold / f"im{i}.png")
    rc, _, err = _eval(capsys, "--pred", d, "--masks", gold, "--ignore-value", "255")
    assert rc == 2 and "im0.png" in err and "ignore value 255" in err


def test_ignore_value_that_is_the_foreground_value(tmp_path, capsys):
    d = _masks(tmp_path, lambda m, p: Image.fromarray(m.astype(np.uint8) * 255).save(f"{p}.png"))
    rc, _, err = _eval(capsys, "--pred", d, "--masks", d, "--ignore-value", "255")
    assert rc == 2 and "foreground value of 0/255 masks" in err


@pytest.fixture
def one_folder(tmp_path):
    """``all/im<i>.jpg`` images beside their ``all/im<i>.png`` masks."""
    d = tmp_path / "all"
    d.mkdir()
    for i in range(2):
        m = np.roll(_shape(), i, axis=1)
        Image.fromarray(np.dstack([m.astype(np.uint8) * 200] * 3)).save(d / f"im{i}.jpg")
        Image.fromarray(m.astype(np.uint8) * 255).save(d / f"im{i}.png")
    return d


def test_images_and_masks_in_one_folder(one_folder, capsys):
    d = one_folder
    rc, _, err = _eval(capsys, "--pred", d, "--images", d, "--masks", d)
    assert rc == 2 and "name the same folder" in err
    pred = d.parent / "pred"
    pred.mkdir()
    for i in range(2):
        (pred / f"im{i}.png").write_bytes((d / f"im{i}.png").read_bytes())
    rc, out, err = _eval(capsys, "--pred", pred, "--images", d / "im0.jpg", d / "im1.jpg",
                         "--masks", d)
    assert rc == 0, err
    assert "foreground IoU 100.00%" in out
