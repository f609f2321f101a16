"""Unusual inputs whose refusal named the wrong cause, or that were read silently in a way
a user would not expect: numbers far beyond any position in link files, point labels too
large for a class, and images with an EXIF orientation."""

import warnings
from pathlib import Path

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


@pytest.mark.parametrize("jobs", ["0", "-0", "1.5", "two"])   # -2: all CPUs but one
def test_bayes_jobs_below_one_or_not_whole_are_refused(tmp_path, capsys, jobs):
    from cli_helpers import one_line_error, run_cli

    (tmp_path / "s").write_text("a b\n")
    (tmp_path / "t").write_text("x y\n")
    rc, out, err = run_cli(["align", "unsupervised", "--model", "bayes", "--jobs", jobs,
                            "--src", str(tmp_path / "s"), "--tgt", str(tmp_path / "t")], capsys)
    assert one_line_error(rc, err, "--jobs") and out == ""


def _docs(path, rows):
    import json

    path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in rows))
    return str(path)


def test_a_refusal_after_reading_is_the_only_line_without_quiet(tmp_path, capsys):
    # "read 4 documents from ..." came before the refusal of --valid-data: two lines
    from cli_helpers import one_line_error, run_cli

    train = _docs(tmp_path / "train.jsonl", [("a b c", "x"), ("a b d", "y"), ("a q c", "x"),
                                             ("z b d", "y")])
    valid = _docs(tmp_path / "valid.jsonl", [("a b c", "w")])
    rc, out, err = run_cli(["topics", "train", "--data", train, "--valid-data", valid,
                            "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "valid.jsonl", "not in the training data")


def test_the_lines_held_back_come_in_order_when_the_command_succeeds(tmp_path, capsys):
    from cli_helpers import run_cli

    rc, out, err = run_cli(["topics", "train", "--data",
                            str(Path(__file__).parents[1] / "data/text/20ng-4groups-train.jsonl.gz"),
                            "--model", "sdem-nb", "-o", str(tmp_path / "m.npz")], capsys)
    lines = err.strip().splitlines()
    assert rc == 0 and lines[0].startswith("read 400 documents") and "written to" in lines[-1]


def test_notes_are_held_only_while_a_command_runs(capsys):
    from structpred.io import drop_notes, hold_notes, note, release_notes

    note("now")
    assert capsys.readouterr().err == "now\n"
    hold_notes()
    note("one")
    note("two")
    assert capsys.readouterr().err == ""
    release_notes()
    note("three")
    assert capsys.readouterr().err == "one\ntwo\nthree\n"
    hold_notes()
    note("lost")
    drop_notes()
    note("after")
    assert capsys.readouterr().err == "after\n"


@pytest.mark.parametrize("how", ["hardlink", "symlink", "same"])
def test_a_validation_image_that_is_a_training_one_under_any_name_is_refused(tmp_path, capsys,
                                                                              how):
    import os
    import shutil

    from cli_helpers import one_line_error, run_cli

    H = Path(__file__).parents[1] / "data/segmentation/weizmann_horse/small"
    images, masks = tmp_path / "images", tmp_path / "masks"
    shutil.copytree(H / "images", images)
    shutil.copytree(H / "masks", masks)
    first = sorted(images.iterdir())[0]
    other = tmp_path / "valid" / first.name
    other.parent.mkdir()
    {"hardlink": os.link, "symlink": os.symlink}.get(how, shutil.copy)(first, other)
    valid = other if how != "same" else first
    rc, out, err = run_cli(["segment", "train", "--images", str(images), "--masks", str(masks),
                            "--valid-images", str(valid), "--valid-masks", str(masks),
                            "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "both a training and a validation input")


def test_a_one_column_dataframe_of_texts_is_its_documents():
    pd = pytest.importorskip("pandas")
    from topics import SdemNaiveBayes

    docs = ["the cat sat", "dogs bark loud", "a cat purrs", "the dog runs"] * 5
    y = ["c", "d", "c", "d"] * 5
    frame = SdemNaiveBayes().fit(pd.DataFrame({"text": docs}), y)
    plain = SdemNaiveBayes().fit(docs, y)
    assert np.array_equal(frame.predict(pd.DataFrame({"text": docs})), plain.predict(docs))
    with pytest.raises(TypeError, match=r"2 columns.*X\['text'\]"):
        SdemNaiveBayes().fit(pd.DataFrame({"text": docs, "title": docs}), y)


def test_symmetrize_and_format_pharaoh_take_alignments_and_link_sets_alike():
    from alignment.aligners.symmetrize import SYMMETRIZATIONS, symmetrize
    from alignment.data.formats import Alignment, format_pharaoh

    fwd, bwd = {(0, 1), (1, 0), (2, 2)}, {(0, 1), (2, 2), (2, 1)}
    for method in SYMMETRIZATIONS:
        assert symmetrize(Alignment.from_links(fwd), Alignment.from_links(bwd), method) \
            == symmetrize(fwd, bwd, method)
    assert format_pharaoh([(2, 2), (0, 1)]) == format_pharaoh(Alignment.from_links(fwd & bwd))
    with pytest.raises(ValueError, match="positions"):
        format_pharaoh([(0, -1)])
    with pytest.raises(TypeError, match="format_pharaoh"):
        format_pharaoh("0-1")


def test_align_train_refuses_a_file_given_as_the_cache_even_where_nothing_is_cached(tmp_path,
                                                                                  capsys):
    from cli_helpers import one_line_error, run_cli

    H = Path(__file__).parents[1] / "data/hansards"
    cache = tmp_path / "cache"
    cache.write_text("not a folder\n")
    rc, out, err = run_cli(["align", "train", "--src", str(H / "test.en.gz"),
                            "--tgt", str(H / "test.fr.gz"), "--gold", str(H / "test.naacl.gz"),
                            "--first", "20", "--bitext-src", str(H / "bitext.36-2.en.gz"),
                            "--bitext-tgt", str(H / "bitext.36-2.fr.gz"), "--bitext-pairs",
                            "500", "--aligners", "none", "--cache-dir", str(cache),
                            "--iterations", "2", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "--cache-dir is not a folder")
    assert cache.read_text() == "not a folder\n" and not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("text, value", [("1_000", 1000), ("+5", 5), (" 5 ", 5), ("３", 3),
                                         ("٣", 3), ("१२", 12)])
def test_whole_numbers_written_other_ways_read_as_they_spell(text, value):
    from structpred.cli import positive_int

    assert positive_int(text) == value


@pytest.mark.parametrize("text", ["1e3", "0x10", "5.0", "inf", "²", "", "1 000", "0"])
def test_whole_numbers_that_are_not_are_refused(text):
    import argparse

    from structpred.cli import positive_int

    with pytest.raises(argparse.ArgumentTypeError):
        positive_int(text)


@pytest.mark.parametrize("text", ["0_5", "1_0.5"])
def test_a_decimal_with_an_underscore_is_refused(text):
    import argparse

    from structpred.cli import finite_float

    with pytest.raises(argparse.ArgumentTypeError):
        finite_float(text)


def test_a_chunk_tag_in_lower_case_beside_upper_case_ones_is_named_as_such(tmp_path):
    from sequence.data import read_conll

    path = tmp_path / "chunks.txt"
    path.write_text("He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ndeficit NN i-np\n\n")
    with pytest.raises(FormatError, match="'i-np' and the chunk tags .* differ only in case"):
        read_conll(path)


def test_segment_train_summary_gives_the_guards_figure_for_scans(tmp_path, capsys):
    # the summary gave the unscaled MRF's figure while the guard chose its edges x 2, and
    # the choice line spoke of validation "images" for point scans
    import re

    from cli_helpers import run_cli

    O = Path(__file__).parents[1] / "data/segmentation/oakland3d_part2"
    rc, out, err = run_cli(["segment", "train", "--points",
                            str(O / "oakland_part2_01.xyz_label_conf.gz"),
                            "--foreground-labels", "1300-1306", "--valid-points",
                            str(O / "oakland_part2_06.xyz_label_conf.gz"), "--voxel", "1.0",
                            "--iterations", "10", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err
    choice = next(line for line in out.splitlines() if line.startswith("edges: chose"))
    kept = re.match(r"edges: chose (.+?) on validation", choice).group(1)
    figure = re.search(rf"([0-9.]+)% with edges={re.escape(kept)}[,;)]", choice).group(1)
    assert "validation scans" in choice and "images" not in choice
    assert f"validation IoU {figure}%" in out


def test_tag_predict_names_no_wrong_line_for_a_column_count_mismatch(tmp_path, capsys):
    # the message said "line 1" whatever line the first word was on
    from cli_helpers import one_line_error, run_cli

    data = Path(__file__).parents[1] / "data/sequence/conll2000-train-300.txt.gz"
    model = tmp_path / "m.npz"
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "--iterations", "2", "-q",
                          "-o", str(model)], capsys)
    assert rc == 0, err
    words = tmp_path / "words.txt"
    words.write_text("\n\n-DOCSTART- -X- -X- -X- O\n\nHe a b c d\nreads a b c d\n")
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(words)], capsys)
    assert one_line_error(rc, err, "word lines have 5 columns") and "line 1" not in err


def test_a_manifest_whose_masks_carry_a_suffix_gets_the_hint(tmp_path):
    from segmentation.data import read_manifest

    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    Image.new("RGB", (4, 4)).save(images / "a.png")
    Image.new("L", (4, 4)).save(masks / "a_mask.png")
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("id\na\n")
    with pytest.raises(FormatError, match=r"manifest.csv:2: no mask named a\.\* .*a_mask.png"):
        read_manifest(manifest, images, masks, need_masks=True)
