"""Unusual inputs whose refusal named the wrong cause, or that were read silently in a way
a user would not expect: numbers far beyond any position in link files, point labels too
large for a class, and images with an EXIF orientation."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from alignment.data.formats import read_naacl, read_pharaoh
from segmentation.data import load_example, load_image, load_points
from structpred import FormatError


@settings(max_examples=25, deadline=None)
@given(digits=st.integers(10, 40), side=st.sampled_from(["src", "tgt"]),
       kind=st.sampled_from(["-", "?"]))
def test_a_link_position_of_many_digits_is_called_too_large_not_malformed(
        tmp_path_factory, digits, side, kind):
    big = "9" * digits
    link = f"{big}{kind}0" if side == "src" else f"0{kind}{big}"
    path = tmp_path_factory.mktemp("links") / "links.txt"
    path.write_text(f"0-0 {link}\n")
    with pytest.raises(FormatError) as err:
        read_pharaoh(path)
    msg = str(err.value)
    assert "far beyond" in msg and "malformed" not in msg and ":1:" in msg


def test_a_short_malformed_link_is_still_called_malformed(tmp_path):
    for tok in ("0-1x", "0-1:5", "1--2"):
        path = tmp_path / "links.txt"
        path.write_text(f"{tok}\n")
        with pytest.raises(FormatError, match="malformed link"):
            read_pharaoh(path)


@pytest.mark.parametrize("line", ["1 1 123456789012345678901 S", "123456789012345678901 1 1",
                                  "1 99999999999 1 P"])
def test_a_naacl_number_of_many_digits_is_called_too_large(tmp_path, line):
    path = tmp_path / "gold.naacl"
    path.write_text(line + "\n")
    with pytest.raises(FormatError) as err:
        read_naacl(path)
    assert "far beyond" in str(err.value) and "must be integers" not in str(err.value)


@pytest.mark.parametrize("label, cause", [("1e20", "too large"), ("-5e30", "too large"),
                                          ("1.5", "not a whole number"),
                                          ("inf", "not a whole number")])
def test_a_point_label_names_its_real_fault(tmp_path, label, cause):
    path = tmp_path / "scan.xyz"
    path.write_text(f"0 0 0 1\n1 1 1 {label}\n")
    with pytest.raises(FormatError) as err:
        load_points(path)
    assert cause in str(err.value) and ":2:" in str(err.value)


def _exif_jpeg(path, orientation, size=(30, 20)):
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 255, size=(size[1], size[0], 3), dtype=np.uint8)
    exif = Image.Exif()
    exif[0x0112] = orientation
    Image.fromarray(pixels).save(path, exif=exif.tobytes())


def _mask(path, size):
    a = np.zeros((size[1], size[0]), np.uint8)
    a[: size[1] // 2] = 255
    Image.fromarray(a).save(path)


def test_an_exif_rotated_image_whose_mask_fits_the_view_gets_a_hint(tmp_path):
    _exif_jpeg(tmp_path / "a.jpg", 6, (30, 20))
    _mask(tmp_path / "a.png", (20, 30))            # drawn on the image as viewers show it
    with pytest.raises(FormatError) as err:
        load_example(tmp_path / "a.jpg", tmp_path / "a.png")
    msg = str(err.value)
    assert "EXIF orientation 6" in msg and "auto-orient" in msg


@pytest.mark.parametrize("orientation", [2, 3, 6, 8])
def test_an_exif_orientation_is_named_in_a_warning_never_silent(tmp_path, orientation):
    # the pixels are read as stored (as Pillow, scikit-image and NumPy users expect), but
    # a viewer shows them otherwise: a mask of the same shape could be upside down
    _exif_jpeg(tmp_path / "a.jpg", orientation, (30, 30))
    _mask(tmp_path / "a.png", (30, 30))
    for load in (lambda: load_image(tmp_path / "a.jpg"),
                 lambda: load_example(tmp_path / "a.jpg", tmp_path / "a.png")):
        with pytest.warns(UserWarning, match=f"EXIF orientation {orientation}"):
            load()


def test_an_image_without_rotation_reads_without_a_warning(tmp_path):
    _exif_jpeg(tmp_path / "a.jpg", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_image(tmp_path / "a.jpg").shape == (20, 30, 3)
