"""Inputs of segment read as they mean. Point clouds that repeat points (tiles merged
twice, a scanner's repeated returns): a position is one place of the surface however often the scan lists it, so the graph of a
scan with repeats is the graph of the scan without them (the copies filled the k nearest
neighbours of the shape features, and the same scan twice was segmented otherwise). Every
file of an image folder is read, refused naming it, or not an image."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from segmentation.points import point_graph


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 16), n=st.integers(40, 200), share=st.floats(0.0, 1.0),
       times=st.integers(1, 3))
@example(seed=1011, n=194, share=1.0, times=1)   # neighbours at equal distances
def test_repeated_points_leave_the_graph_as_it_is(seed, n, share, times):
    rng = np.random.default_rng(seed)
    xyz = np.round(rng.random((n, 3)) * [4.0, 4.0, 2.0], 2)
    xyz = np.unique(xyz, axis=0)[rng.permutation(len(np.unique(xyz, axis=0)))]
    chosen = rng.random(len(xyz)) < share
    more = np.concatenate([xyz, *([xyz[chosen]] * times)])
    one, two = (point_graph(a, voxel=0.25, k_graph=4) for a in (xyz, more))
    assert np.allclose(one.node_features, two.node_features)
    assert np.array_equal(one.edges, two.edges) and np.array_equal(one.xyz, two.xyz)
    assert np.array_equal(two.labels, np.concatenate([one.labels,   # each copy its node
                                                      *([one.labels[chosen]] * times)]))


# ------------------------------------------------------------ files of image folders
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["a", "my image", "ünï"]),
       ext=st.sampled_from([".png", ".jpg", ".JFIF", ".jpe", ".heic", ".AVIF", ".jp2", ".tga",
                            ".psd", ".txt", ".csv", ""]))
def test_every_file_of_an_image_folder_is_read_refused_or_not_an_image(tmp_path_factory,
                                                                       name, ext):
    """A file of an image folder is read (an image extension; .jfif and .jpe are JPEG),
    refused naming it (an image of a format not read: it was passed over as if it were a
    note, one image fewer without a word), or passed over (notes, lists)."""
    from PIL import Image

    from segmentation.data import (IMAGE_EXTENSIONS, OTHER_IMAGE_EXTENSIONS, folder_images,
                                   load_image)
    from structpred import FormatError

    folder = tmp_path_factory.mktemp("imgs")
    Image.new("RGB", (4, 3), (200, 10, 10)).save(folder / "b.png")
    path = folder / f"{name}{ext}"
    if ext.lower() in IMAGE_EXTENSIONS:
        Image.new("RGB", (4, 3), (10, 10, 200)).save(path, format="JPEG" if "j" in ext.lower()
                                                     else "PNG")
        assert folder_images(folder) == sorted([folder / "b.png", path])
        assert load_image(path).shape == (3, 4, 3)
    elif ext.lower() in OTHER_IMAGE_EXTENSIONS:
        path.write_bytes(b"\0" * 16)
        with pytest.raises(FormatError, match="an image of a format not read here") as info:
            folder_images(folder)
        assert info.value.path == str(path)
    else:
        path.write_text("notes\n")
        assert folder_images(folder) == [folder / "b.png"]


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(word=st.sampled_from(["café", "Ångström", "naïve crème", "über_1"]),
       forms=st.tuples(st.sampled_from(["NFC", "NFD"]), st.sampled_from(["NFC", "NFD"])))
def test_a_mask_is_found_whatever_the_unicode_form_of_its_name(tmp_path_factory, word,
                                                               forms):
    """An image named in NFD (macOS) and its mask in NFC were 'no mask named café.*', the
    two names printed alike: stems are compared in NFC."""
    import unicodedata

    from PIL import Image

    from segmentation.data import StemIndex

    folder = tmp_path_factory.mktemp("masks")
    image_name, mask_name = (unicodedata.normalize(f, word) for f in forms)
    Image.new("L", (3, 3)).save(folder / f"{mask_name}.png")
    assert StemIndex(folder).find(image_name) == folder / f"{mask_name}.png"


@settings(max_examples=40, deadline=None)
@given(n_classes=st.integers(1, 300), low=st.integers(-5, 2000), seed=st.integers(0, 2 ** 16))
def test_a_colour_channel_is_not_read_as_labels(n_classes, low, seed):
    """Column 4 is the label: of more than 64 distinct values, all from 0 to 255, it is a
    colour channel or an intensity ('x y z r g b label', 'x y z intensity'), refused (each
    red level was read as a class: '--foreground-labels 5' took the points of red 5)."""
    from segmentation.points import MAX_LABEL_CLASSES, check_label_column
    from structpred import FormatError

    rng = np.random.default_rng(seed)
    labels = low + rng.permutation(np.arange(max(n_classes, 1)).repeat(3))
    values = np.unique(labels)
    if values.size > MAX_LABEL_CLASSES and values[0] >= 0 and values[-1] <= 255:
        with pytest.raises(FormatError, match=f"column 4, read as the label, holds "
                                              f"{values.size} distinct values from 0 to 255"):
            check_label_column("s.xyz", labels)
    else:
        check_label_column("s.xyz", labels)


def test_train_refuses_colours_in_the_label_column(tmp_path, capsys):
    from cli_helpers import one_line_error, run_cli

    rng = np.random.default_rng(0)
    rows = [f"{x:.2f} {y:.2f} {z:.2f} {r} {g} {b} 1300\n" for (x, y, z), r, g, b in
            zip(rng.random((300, 3)), *rng.integers(0, 256, (3, 300)))]
    (tmp_path / "s.xyz").write_text("".join(rows))
    rc, _, err = run_cli(["segment", "train", "--points", str(tmp_path / "s.xyz"),
                          "--foreground-labels", "5", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "s.xyz: column 4, read as the label", "move it there")


# ------------------------------------------------------------ images in subfolders
def _png(path):
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 3), (10, 200, 30)).save(path)
    return path


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(own=st.integers(0, 2), subs=st.lists(st.sampled_from(["horse", "cow", "a/b", "x y",
                                                              "ünï/deep/er"]),
                                            min_size=1, max_size=3, unique=True),
       named=st.booleans(), masks_inside=st.booleans())
def test_images_in_subfolders_are_never_left_out_in_silence(tmp_path_factory, own, subs,
                                                           named, masks_inside):
    """``--images DIR`` reads DIR's own images only: images in its subfolders (class
    folders, at any depth) are refused when DIR has none of its own ("no images found",
    as if there were none) and warned of when it has; subfolders named too, and the
    masks' folder inside DIR, are read or left out as meant, without a word."""
    import warnings

    from segmentation.cli import _image_files
    from structpred.cli import UserError

    d = tmp_path_factory.mktemp("imgs")
    for i in range(own):
        _png(d / f"own{i}.png")
    for s in subs:
        _png(d / s / f"{s.replace('/', '_')}.png")
    masks = d / "masks" if masks_inside else None   # or predict's -o DIR inside DIR
    if masks:
        _png(masks / "own0.png")
    spec = [str(d)] + ([str(d / s) for s in subs] if named else [])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if not own and not named:
            with pytest.raises(UserError, match=r"no images in the folder itself; its "
                               rf"subfolders hold {len(subs)} \(the first: "):
                _image_files(spec, [masks])
            return
        files = _image_files(spec, [masks])
    notes = [str(w.message) for w in seen]
    assert len(files) == own + (len(subs) if named else 0)
    if named or not own:
        assert notes == [], notes
    else:
        assert len(notes) == 1 and f"{len(subs)} images in its subfolders" in notes[0], notes
