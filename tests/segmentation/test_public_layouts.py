"""Image sets laid out as public segmentation data sets, read by ``segment`` as downloaded:
read right, or refused in one line naming the file and the option that reads them.

Oxford-IIIT Pets' trimaps (1 pet, 2 background, 3 border), saliency sets' JPEG masks and
antialiased PNG outlines (``--threshold``), masks named with a suffix (ISIC's
``_segmentation``, Carvana's ``_mask.gif``: ``--mask-suffix``), Cityscapes' names, PASCAL
VOC's ``ImageSets/Segmentation/train.txt`` lists of ids, per-instance masks, and a mask
saved transposed.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from PIL import Image

from cli_helpers import one_line_error, run_cli
from segmentation.data import load_mask, read_manifest
from structpred import FormatError

N = 16


def _shape(i=0):
    m = np.zeros((N, N), dtype=bool)
    m[4:12, 3 + i % 4:9 + i % 4] = True   # a different mask for each image
    return m


def _images(d, stems, ext="jpg"):
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for s in stems:
        Image.fromarray(rng.integers(0, 256, (N, N, 3), dtype=np.uint8)).save(d / f"{s}.{ext}")
    return d


def _trimaps(root, n=4):
    d = root / "annotations" / "trimaps"
    d.mkdir(parents=True)
    for i in range(n):
        t = np.where(_shape(i), 1, 2).astype(np.uint8)
        t[4, :] = 3   # the border band
        Image.fromarray(t).save(d / f"Abyssinian_{i}.png")
    _images(root / "images", [f"Abyssinian_{i}" for i in range(n)])
    return root / "images", d


def _train(capsys, tmp_path, *args):
    return run_cli(["segment", "train", "--n-segments", "20", "--iterations", "3", "--jobs", "1",
                    "-q", "-o", str(tmp_path / "m.npz"), *map(str, args)], capsys)


# ------------------------------------------------------------------ trimaps
def test_a_trimap_is_refused_naming_the_options_that_read_it(tmp_path, capsys):
    images, masks = _trimaps(tmp_path)
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", masks)
    assert one_line_error(rc, err, "Abyssinian_0.png", "trimap",
                          "--foreground-labels 1 --ignore-value 3")


def test_the_options_named_read_a_trimap(tmp_path, capsys):
    images, masks = _trimaps(tmp_path)
    mask, ignore = load_mask(masks / "Abyssinian_1.png", 3, return_ignore=True,
                             foreground=((1, 1),))
    want = _shape(1).copy()
    want[4, :] = False
    np.testing.assert_array_equal(mask, want)
    assert ignore.sum() == N and ignore[4].all()
    rc, out, err = _train(capsys, tmp_path, "--images", images, "--masks", masks,
                          "--foreground-labels", "1", "--ignore-value", "3")
    assert rc == 0, err
    assert (tmp_path / "m.npz").exists()


def test_the_pets_list_of_ids_is_a_manifest(tmp_path, capsys):
    """annotations/trainval.txt: '#' comments, then 'id class species breed' lines."""
    _trimaps(tmp_path)
    lst = tmp_path / "annotations" / "trainval.txt"
    lst.write_text("#Image CLASS-ID SPECIES BREED ID\n"
                   + "".join(f"Abyssinian_{i} 1 1 1\n" for i in (0, 2, 3)))
    items = read_manifest(lst, need_masks=True)
    assert [(it.id, it.image.name, it.mask.name, it.line) for it in items] == [
        (f"Abyssinian_{i}", f"Abyssinian_{i}.jpg", f"Abyssinian_{i}.png", k + 2)
        for k, i in enumerate((0, 2, 3))]
    rc, out, err = _train(capsys, tmp_path, "--manifest", lst, "--foreground-labels", "1",
                          "--ignore-value", "3")
    assert rc == 0 and "trained on 3 images" in out, err


def test_a_trimaps_border_is_not_read_as_background_silently(tmp_path, capsys):
    images, masks = _trimaps(tmp_path)
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", masks,
                        "--foreground-labels", "1")
    assert one_line_error(rc, err, "Abyssinian_0.png", "--ignore-value 3",
                          "--foreground-labels 1,3")
    assert load_mask(masks / "Abyssinian_0.png", foreground=((1, 1), (3, 3)))[4].all()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.sampled_from([1, 2, 3]), min_size=12, max_size=12).filter(
    lambda v: 3 in v and len(set(v)) >= 2))
def test_any_trimap_with_a_border_is_read_by_the_pets_options_only(tmp_path, values):
    """Every trimap holding the border 3 (and 1 or 2): not binary; with
    --foreground-labels 1 alone refused; with --ignore-value 3 the pet, the border left out."""
    a = np.array(values, np.uint8).reshape(3, 4)
    Image.fromarray(a).save(tmp_path / "t.png")
    with pytest.raises(FormatError, match=re.escape("--foreground-labels 1 --ignore-value 3")):
        load_mask(tmp_path / "t.png")
    with pytest.raises(FormatError, match=re.escape("give --ignore-value 3")):
        load_mask(tmp_path / "t.png", foreground=((1, 1),))
    mask, ignore = load_mask(tmp_path / "t.png", 3, return_ignore=True, foreground=((1, 1),))
    np.testing.assert_array_equal(mask, a == 1)
    np.testing.assert_array_equal(ignore, a == 3)


# ------------------------------------------------------------------ saliency sets
def _jpeg_masks(root, n=4):
    d = root / "gt"
    d.mkdir()
    for i in range(n):
        Image.fromarray(_shape(i).astype(np.uint8) * 255).save(d / f"{i}.jpg", quality=75)
    return _images(root / "images", [str(i) for i in range(n)]), d


def test_jpeg_masks_are_refused_with_the_threshold_that_reads_them(tmp_path, capsys):
    images, masks = _jpeg_masks(tmp_path)
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", masks)
    assert one_line_error(rc, err, "gt/0.jpg", "JPEG", "pixels lie between 0 and 255",
                          "--threshold 128")
    np.testing.assert_array_equal(load_mask(masks / "0.jpg", threshold=128), _shape(0))
    rc, out, err = _train(capsys, tmp_path, "--images", images, "--masks", masks,
                          "--threshold", "128")
    assert rc == 0, err
    rc, out, err = run_cli(["segment", "eval", "--pred", str(masks), "--masks", str(masks),
                            "--threshold", "128"], capsys)
    assert rc == 0 and "foreground IoU 100.00%" in out, err


def test_an_antialiased_outline_gets_the_threshold_hint(tmp_path):
    a = _shape().astype(np.uint8) * 255
    a[4, 3:9] = [30, 90, 140, 200, 220, 250]   # grey levels along the outline
    Image.fromarray(a).save(tmp_path / "x.png")
    with pytest.raises(FormatError, match=re.escape("6 pixels lie between 0 and 255: give "
                                                    "--threshold 128")):
        load_mask(tmp_path / "x.png")
    np.testing.assert_array_equal(load_mask(tmp_path / "x.png", threshold=128), a >= 128)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mask=st.lists(st.booleans(), min_size=12, max_size=12), top=st.sampled_from([1, 255]),
       threshold=st.integers(1, 65535))
def test_a_threshold_leaves_binary_masks_as_they_are(tmp_path, mask, top, threshold):
    """0/1 masks stay right under --threshold 128 (read as binary, not cut at 128)."""
    a = np.array(mask, dtype=np.uint8).reshape(3, 4) * top
    Image.fromarray(a).save(tmp_path / "m.png")
    np.testing.assert_array_equal(load_mask(tmp_path / "m.png", threshold=threshold), a > 0)


def test_a_threshold_no_value_reaches_is_refused(tmp_path):
    Image.fromarray(np.array([[0, 1, 2, 3]], np.uint8)).save(tmp_path / "m.jpg")
    with pytest.raises(FormatError, match=re.escape("no value of the mask reaches the threshold "
                                                    "128 (its largest is 3, most of the "
                                                    "others ")):
        load_mask(tmp_path / "m.jpg", threshold=128)


@pytest.mark.parametrize("option", [["--threshold", "128"], ["--mask-suffix", "_mask"],
                                    ["--ignore-value", "3"]])
def test_predict_refuses_the_options_of_reading_masks(tmp_path, capsys, option):
    """predict reads no mask: these were accepted and ignored (--threshold was refused as
    clashing with the model's --foreground-labels)."""
    rc, _, err = run_cli(["segment", "predict", "-m", str(tmp_path / "m.npz"), "--images",
                          str(tmp_path), "-o", str(tmp_path / "out"), *option], capsys)
    assert one_line_error(rc, err, option[0], "predict reads none")


def test_threshold_and_class_indices_exclude_each_other(tmp_path, capsys):
    images, masks = _jpeg_masks(tmp_path)
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", masks,
                        "--threshold", "128", "--foreground-labels", "1")
    assert one_line_error(rc, err, "--threshold", "--foreground-labels")
    with pytest.raises(ValueError, match="threshold and foreground"):
        load_mask(masks / "0.jpg", threshold=128, foreground=((1, 1),))


# ------------------------------------------------------------------ names
@pytest.mark.parametrize("suffix,ext", [("_segmentation", "png"), ("_mask", "gif")])
def test_masks_named_with_a_suffix_pair_with_their_own_image(tmp_path, capsys, suffix, ext):
    """ISIC's ISIC_0000000_segmentation.png, Carvana's x_mask.gif: the hint names
    --mask-suffix, which pairs each image with its own mask (a perfect prediction named
    like the images scores 100: no image took another's mask)."""
    stems = ["ISIC_0000000", "ISIC_0000001", "ISIC_00000012"]
    images = _images(tmp_path / "images", stems)
    (tmp_path / "gt").mkdir()
    (tmp_path / "pred").mkdir()
    for i, s in enumerate(stems):
        m = Image.fromarray(_shape(i).astype(np.uint8) * 255)
        (m.convert("P") if ext == "gif" else m).save(tmp_path / "gt" / f"{s}{suffix}.{ext}")
        m.save(tmp_path / "pred" / f"{s}.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", tmp_path / "gt")
    assert one_line_error(rc, err, "ISIC_0000000.jpg", f"--mask-suffix {suffix}")
    for gold in (["--images", images], []):
        rc, out, err = run_cli(["segment", "eval", "--pred", str(tmp_path / "pred"), *map(
            str, gold), "--masks", str(tmp_path / "gt"), "--mask-suffix", suffix], capsys)
        assert rc == 0 and "3 images" in out and "foreground IoU 100.00%" in out, err


def test_cityscapes_names_are_pointed_out(tmp_path, capsys):
    images = _images(tmp_path / "img", ["aachen_000000_000019_leftImg8bit"], "png")
    (tmp_path / "gt").mkdir()
    Image.fromarray(np.where(_shape(), 26, 7).astype(np.uint8)).save(
        tmp_path / "gt" / "aachen_000000_000019_gtFine_labelIds.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", tmp_path / "gt")
    assert one_line_error(rc, err, "aachen_000000_000019_leftImg8bit.png",
                          "holds aachen_000000_000019_gtFine_labelIds.png", "rename")


def test_per_instance_masks_are_refused_as_such(tmp_path, capsys):
    images = _images(tmp_path / "images", ["x0", "x1"])
    (tmp_path / "masks").mkdir()
    for s in ("x0", "x1"):
        for j in range(2):
            Image.fromarray(_shape(j).astype(np.uint8) * 255).save(tmp_path / "masks" / f"{s}_{j}.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", tmp_path / "masks")
    assert one_line_error(rc, err, "x0.jpg", "x0_0.png and x0_1.png", "one mask per instance")
    assert "--mask-suffix" not in err


# ------------------------------------------------------------------ PASCAL VOC
def _voc(root, ids):
    _images(root / "JPEGImages", ids)
    (root / "SegmentationClass").mkdir()
    for i, s in enumerate(ids):
        a = np.where(_shape(i), 15, 0).astype(np.uint8)
        a[4, :] = 255
        p = Image.fromarray(a, "P")
        p.putpalette([v for c in range(256) for v in (c, 255 - c, c // 2)])   # kept as given
        p.save(root / "SegmentationClass" / f"{s}.png")
    lists = root / "ImageSets" / "Segmentation"
    lists.mkdir(parents=True)
    (lists / "train.txt").write_text("".join(f"{s}\n" for s in ids[:3]))
    return lists / "train.txt"


def test_a_voc_list_of_ids_is_a_manifest(tmp_path, capsys):
    ids = [f"2007_00000{i}" for i in range(5)]
    train = _voc(tmp_path, ids)
    items = read_manifest(train, need_masks=True)
    assert [it.id for it in items] == ids[:3]
    assert [it.image.name for it in items] == [f"{s}.jpg" for s in ids[:3]]
    assert [it.mask for it in items] == [tmp_path / "SegmentationClass" / f"{s}.png"
                                         for s in ids[:3]]
    assert items[1].line == 2
    (tmp_path / "SegmentationClass" / f"{ids[0]}.png").rename(
        tmp_path / "SegmentationClass" / f"{ids[0]}_gt.png")
    assert read_manifest(train, mask_suffix="_gt")[0].mask.name == f"{ids[0]}_gt.png"
    with pytest.raises(FormatError, match=re.escape(f"{train}:1: no mask named {ids[0]}.*")):
        read_manifest(train, need_masks=True)
    (tmp_path / "SegmentationClass" / f"{ids[0]}_gt.png").rename(
        tmp_path / "SegmentationClass" / f"{ids[0]}.png")
    rc, out, err = _train(capsys, tmp_path, "--manifest", train, "--foreground-labels", "15",
                          "--ignore-value", "255")
    assert rc == 0 and "trained on 3 images" in out, err
    train.write_text("2007_000000\n2007_000009\n")
    with pytest.raises(FormatError, match=re.escape(f"{train}:2: no image named 2007_000009.*")):
        read_manifest(train)


# ------------------------------------------------------------------ sizes
def test_a_transposed_mask_is_named_as_such(tmp_path, capsys):
    rng = np.random.default_rng(1)
    (tmp_path / "images").mkdir()
    (tmp_path / "masks").mkdir()
    Image.fromarray(rng.integers(0, 256, (N, N + 4, 3), dtype=np.uint8)).save(
        tmp_path / "images" / "a.jpg")
    Image.fromarray(np.zeros((N + 4, N), np.uint8)).save(tmp_path / "masks" / "a.png")
    rc, _, err = _train(capsys, tmp_path, "--images", tmp_path / "images", "--masks",
                        tmp_path / "masks")
    assert one_line_error(rc, err, "masks/a.png", "width and height exchanged")


@pytest.mark.parametrize("how", ["file", "folder", "manifest"])
def test_coco_json_annotations_are_refused_as_such(tmp_path, capsys, how):
    images = _images(tmp_path / "images", ["x0"])
    (tmp_path / "ann").mkdir()
    js = tmp_path / "ann" / "instances_train2017.json"
    js.write_text('{"images": [], "annotations": [], "categories": []}\n')
    where = {"file": ["--images", images, "--masks", js],
             "folder": ["--images", images, "--masks", tmp_path / "ann"],
             "manifest": ["--manifest", js]}[how]
    rc, _, err = _train(capsys, tmp_path, *where)
    assert one_line_error(rc, err, str(js) if how != "folder" else "x0.jpg",
                          "COCO-style annotations", "are not read")


def test_a_single_numbered_mask_is_named_as_a_possible_instance(tmp_path, capsys):
    images = _images(tmp_path / "images", ["x0"])
    (tmp_path / "masks").mkdir()
    Image.fromarray(_shape().astype(np.uint8) * 255).save(tmp_path / "masks" / "x0_0.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", tmp_path / "masks")
    assert one_line_error(rc, err, "x0.jpg", "one mask per instance", "--mask-suffix _0")


def test_a_file_going_with_an_image_is_named_as_such(tmp_path, capsys):
    """ISIC 2017's image folder holds ISIC_0000000_superpixels.png beside each .jpg: read as
    an image of its own, it had no mask ('no mask named ISIC_0000000_superpixels.*')."""
    images = _images(tmp_path / "images", ["ISIC_0000000"])
    _images(images, ["ISIC_0000000_superpixels"], "png")
    (tmp_path / "gt").mkdir()
    Image.fromarray(_shape().astype(np.uint8) * 255).save(tmp_path / "gt" / "ISIC_0000000.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", tmp_path / "gt")
    assert one_line_error(rc, err, "ISIC_0000000_superpixels.png", "image ISIC_0000000.jpg's",
                          f"--images {images}/*.jpg")


@pytest.mark.parametrize("mask_stem,words", [
    ("img_001", ["differs from the image's in letter case"]),
    ("IMG_002", []),   # another image's mask: no hint that would pair them
])
def test_names_differing_in_case_only_are_named_and_others_not(tmp_path, capsys, mask_stem,
                                                                words):
    images = _images(tmp_path / "images", ["IMG_001"])
    (tmp_path / "masks").mkdir()
    Image.fromarray(_shape().astype(np.uint8) * 255).save(tmp_path / "masks" / f"{mask_stem}.png")
    rc, _, err = _train(capsys, tmp_path, "--images", images, "--masks", tmp_path / "masks")
    assert one_line_error(rc, err, "IMG_001.jpg", "no mask named IMG_001.*", *words)
    assert ("holds" in err) == bool(words)


def test_a_manifest_of_an_empty_first_line_is_refused_by_name(tmp_path):
    """The JSON hint looked at the header's first field, which an empty line lacks."""
    p = tmp_path / "m.csv"
    p.write_text("\nhorse001\n")
    with pytest.raises(FormatError, match=re.escape("manifest needs an 'id'")):
        read_manifest(p)


def test_a_grey_mask_saved_as_colour_jpeg_is_read_with_the_threshold(tmp_path):
    """Channels a few levels apart (a colour JPEG of a grey mask): refused as a colour image
    without a way out before; now named, and read by --threshold (a red mask is not)."""
    m = _shape().astype(np.uint8) * 255
    tint = np.array([0, 10, -10])   # a slight colour cast, as some tools' exports have
    Image.fromarray(np.clip(m[..., None].astype(int) + tint, 0, 255).astype(np.uint8)).save(
        tmp_path / "m.jpg", quality=95)
    with pytest.raises(FormatError, match=re.escape("saved as colour JPEG")):
        load_mask(tmp_path / "m.jpg")
    np.testing.assert_array_equal(load_mask(tmp_path / "m.jpg", threshold=128), m > 0)
    Image.fromarray(np.dstack([m, m * 0, m * 0])).save(tmp_path / "red.jpg")
    with pytest.raises(FormatError, match=r"colour image; expected a binary grey mask$"):
        load_mask(tmp_path / "red.jpg", threshold=128)
