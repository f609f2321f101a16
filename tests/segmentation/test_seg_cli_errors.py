"""Bad input to ``structpred segment train|predict|eval``: one line, exit 2, nothing left behind.

Table-driven: each case builds its inputs in a fresh folder (small crops of
bundled horse images, a few real Oakland points), runs the command through
``structpred.cli.main`` and checks that

* the exit status is 2,
* standard error is exactly one line, ``structpred: error: FILE[:LINE]: reason``,
  naming the file (and the line where there is one), with no traceback,
* no file was added to the folder (outputs are checked before the work and a
  failed command removes what it wrote).

Then: hypothesis fuzzing of the readers (manifests, point files, masks:
random bytes and lines, truncated gzip and PNG data) -- they raise
:class:`~structpred.io.FormatError` and nothing else -- and the ``--no-edges``
train / predict / eval round trip.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from segmentation.data import bundled_data_dir, load_mask, load_points, read_manifest
from segmentation.model import MRFSegmenter
from structpred import FormatError
from structpred.cli import main
from structpred.io import content_digest

from cli_helpers import other_spelling

HORSES = bundled_data_dir() / "weizmann_horse" / "small"
OAKLAND = bundled_data_dir() / "oakland3d_part2" / "oakland_part2_01.xyz_label_conf.gz"
IDS = ("horse001", "horse002", "horse003", "horse004")
TRAIN_FAST = ["--n-segments", "40", "--iterations", "3", "--class-weight", "none",
              "--eta-scale", "1", "--valid-fraction", "0"]


def _crop(ident, size=48):
    img = np.asarray(Image.open(HORSES / "images" / f"{ident}.png"))
    mask = np.asarray(Image.open(HORSES / "masks" / f"{ident}.png"))
    h, w = mask.shape
    r0, c0 = (h - size) // 2, (w - size) // 2
    return img[r0:r0 + size, c0:c0 + size], mask[r0:r0 + size, c0:c0 + size]


def make_images(root, ids=IDS):
    """``root/images/<id>.png``, ``root/masks/<id>.png`` and ``root/manifest.csv``."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "masks").mkdir(exist_ok=True)
    for i in ids:
        img, mask = _crop(i)
        Image.fromarray(img).save(root / "images" / f"{i}.png")
        Image.fromarray(mask).save(root / "masks" / f"{i}.png")
    (root / "manifest.csv").write_text("id,split\n" + "".join(f"{i},train\n" for i in ids))
    return root


def make_points(path, n=1500):
    lines = [ln for k, ln in enumerate(gzip.open(OAKLAND, "rt")) if k % 60 == 0][:n]
    path.write_text("".join(lines))
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A tiny image model and a tiny point model, trained once."""
    root = make_images(tmp_path_factory.mktemp("models"))
    img_model = root / "img.npz"
    assert main(["segment", "train", "--manifest", str(root / "manifest.csv"), *TRAIN_FAST,
                 "-o", str(img_model), "-q"]) == 0
    pts = make_points(root / "scan.xyz")
    pt_model = root / "pts.npz"
    assert main(["segment", "train", "--points", str(pts), "--foreground-labels", "1300-1306",
                 "--voxel", "1.0", "--iterations", "2", "--class-weight", "none", "--eta-scale",
                 "1", "--valid-fraction", "0", "-o", str(pt_model), "-q"]) == 0
    return {"image": img_model, "points": pt_model}


def _snapshot(root):
    return {p for p in Path(root).rglob("*")}


# ------------------------------------------------------------ the cases
# Each case: setup(root, models) -> (argv, regex the one line must match).
def _manifest(root, text):
    make_images(root)
    (root / "manifest.csv").write_text(text)
    return str(root / "manifest.csv")


def c_manifest_missing_image(r, m):
    man = _manifest(r, "id,split\nhorse001,train\nhorse999,train\n")
    return (["segment", "train", "--manifest", man, "-o", str(r / "m.npz"), *TRAIN_FAST],
            rf"{re.escape(man)}:3: no image named horse999\.\* in ")


def c_manifest_missing_mask(r, m):
    man = _manifest(r, "id,split\nhorse001,train\nhorse002,train\n")
    os.remove(r / "masks" / "horse002.png")
    return (["segment", "train", "--manifest", man, "-o", str(r / "m.npz"), *TRAIN_FAST],
            rf"{re.escape(man)}:3: no mask named horse002\.\* in ")


def c_manifest_ragged_row(r, m):
    man = _manifest(r, "id,split\nhorse001,train\nhorse002\n")
    return (["segment", "train", "--manifest", man, "-o", str(r / "m.npz")],
            rf"{re.escape(man)}:3: 1 fields, expected 2")


def c_manifest_empty(r, m):
    man = _manifest(r, "")
    return (["segment", "eval", "-m", str(m["image"]), "--manifest", man],
            rf"{re.escape(man)}: manifest is empty")


def c_manifest_is_folder(r, m):
    return (["segment", "train", "--manifest", str(r), "-o", str(r / "m.npz")],
            rf"{re.escape(str(r))}: is a folder")


def c_manifest_bad_bytes(r, m):
    make_images(r)
    (r / "manifest.csv").write_bytes(b"id,split\nhorse001,train\nhorse\xff\xfe02,train\n")
    man = str(r / "manifest.csv")
    return (["segment", "train", "--manifest", man, "-o", str(r / "m.npz")],
            rf"{re.escape(man)}:3: bad encoding")


def c_image_not_an_image(r, m):
    make_images(r)
    (r / "images" / "horse002.png").write_text("this is not a PNG\n")
    return (["segment", "train", "--images", str(r / "images"), "--masks", str(r / "masks"),
             "-o", str(r / "m.npz"), *TRAIN_FAST],
            r"images/horse002\.png: cannot read image: not an image file \(it is text\)")


def c_image_truncated(r, m):
    make_images(r)
    p = r / "images" / "horse003.png"
    p.write_bytes(p.read_bytes()[:200])
    return (["segment", "predict", "-m", str(m["image"]), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"images/horse003\.png: cannot read image")


def c_image_empty_file(r, m):
    make_images(r)
    (r / "images" / "horse001.png").write_bytes(b"")
    return (["segment", "eval", "-m", str(m["image"]), "--images", str(r / "images"),
             "--masks", str(r / "masks")],
            r"images/horse001\.png: image file is empty")


def c_mask_wrong_size(r, m):
    make_images(r)
    Image.fromarray(np.zeros((10, 11), np.uint8)).save(r / "masks" / "horse002.png")
    return (["segment", "train", "--images", str(r / "images"), "--masks", str(r / "masks"),
             "-o", str(r / "m.npz"), *TRAIN_FAST],
            r"masks/horse002\.png: mask is 11x10 but image .*horse002\.png is 48x48")


def c_mask_not_binary(r, m):
    make_images(r)
    Image.fromarray(np.full((48, 48), 128, np.uint8)).save(r / "masks" / "horse001.png")
    return (["segment", "eval", "-m", str(m["image"]), "--images", str(r / "images"),
             "--masks", str(r / "masks")],
            r"masks/horse001\.png: mask is not binary.*--ignore-value")


def c_mask_missing_for_image(r, m):
    make_images(r)
    os.remove(r / "masks" / "horse004.png")
    return (["segment", "train", "--images", str(r / "images"), "--masks", str(r / "masks"),
             "-o", str(r / "m.npz")],
            r"images/horse004\.png: no mask named horse004\.\* in ")


def c_no_foreground_in_any_mask(r, m):
    make_images(r)
    for i in IDS:
        Image.fromarray(np.zeros((48, 48), np.uint8)).save(r / "masks" / f"{i}.png")
    return (["segment", "train", "--images", str(r / "images"), "--masks", str(r / "masks"),
             "-o", str(r / "m.npz"), *TRAIN_FAST],
            r"masks: no foreground pixel in any of the 4 training masks")


def c_points_nan_label(r, m):
    p = r / "scan.xyz"
    p.write_text("0 0 0 1300 2\n1 1 1 nan 2\n")
    return (["segment", "train", "--points", str(p), "--foreground-labels", "1300-1306",
             "-o", str(r / "m.npz")],
            rf"{re.escape(str(p))}:2: label 'nan' is not a whole number")


def c_points_truncated_gzip(r, m):
    p = r / "scan.xyz.gz"
    data = gzip.compress(make_points(r / "tmp.xyz").read_bytes())
    os.remove(r / "tmp.xyz")
    p.write_bytes(data[: len(data) // 2])
    return (["segment", "train", "--points", str(p), "--foreground-labels", "1300-1306",
             "-o", str(r / "m.npz")],
            rf"{re.escape(str(p))}:\d+: corrupt or truncated gzip data")


def c_points_no_foreground(r, m):
    p = r / "scan.xyz"
    p.write_text("".join(f"{i} {i % 7} {i % 3} 1200 2\n" for i in range(200)))
    return (["segment", "train", "--points", str(p), "--foreground-labels", "1300-1306",
             "-o", str(r / "m.npz"), "--voxel", "0.5", *TRAIN_FAST[2:]],
            rf"{re.escape(str(p))}: no foreground point in the training scan")


def c_points_empty(r, m):
    p = r / "scan.xyz"
    p.write_text("# only a comment\n")
    return (["segment", "eval", "-m", str(m["points"]), "--points", str(p)],
            rf"{re.escape(str(p))}: point file is empty")


def c_output_folder_missing(r, m):
    man = _manifest(r, "id\nhorse001\n")
    out = r / "no" / "such" / "m.npz"
    return (["segment", "train", "--manifest", man, "-o", str(out)],
            rf"{re.escape(str(out))}: .*folder .* does not exist")


def c_output_is_input(r, m):
    man = _manifest(r, "id\nhorse001\n")
    return (["segment", "train", "--manifest", man, "-o", man],
            rf"{re.escape(man)}: -o would overwrite (an|the) input")


def c_output_is_folder(r, m):
    man = _manifest(r, "id\nhorse001\n")
    return (["segment", "train", "--manifest", man, "-o", str(r / "images")],
            r"images: is a folder.*-o needs a file name")


def c_predict_into_image_folder(r, m):
    make_images(r)
    return (["segment", "predict", "-m", str(m["image"]), "--images", str(r / "images"),
             "-o", str(r / "images")],
            r"images: -o is also an input folder")


def c_predict_output_is_file(r, m):
    make_images(r)
    (r / "out").write_text("x")
    return (["segment", "predict", "-m", str(m["image"]), "--images", str(r / "images"),
             "-o", str(r / "out")],
            r"out: exists and is not a folder")


def c_model_missing(r, m):
    make_images(r)
    return (["segment", "predict", "-m", str(r / "nope.npz"), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"nope\.npz: no such model file")


def c_model_empty(r, m):
    make_images(r)
    (r / "m.npz").write_bytes(b"")
    return (["segment", "eval", "-m", str(r / "m.npz"), "--manifest", str(r / "manifest.csv")],
            r"m\.npz: .*not a structpred segmentation model")


def c_model_is_folder(r, m):
    make_images(r)
    return (["segment", "predict", "-m", str(r / "images"), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"images: is a folder, expected a model file")


def c_model_text(r, m):
    make_images(r)
    (r / "m.npz").write_text("hello\n")
    return (["segment", "predict", "-m", str(r / "m.npz"), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"m\.npz: .*not a structpred segmentation model")


def c_model_with_pickle(r, m):
    make_images(r)
    with np.load(m["image"]) as z:  # a real model whose weights are a pickled object array
        arrays = {k: z[k] for k in z.files}
    arrays["coef"] = np.array([{"a": 1}], dtype=object)
    np.savez(r / "m.npz", **arrays)
    return (["segment", "predict", "-m", str(r / "m.npz"), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"m\.npz: .*not a structpred segmentation model .*pickle")


def c_model_truncated(r, m):
    make_images(r)
    data = Path(m["image"]).read_bytes()
    (r / "m.npz").write_bytes(data[: len(data) // 2])
    return (["segment", "eval", "-m", str(r / "m.npz"), "--images", str(r / "images"),
             "--masks", str(r / "masks")],
            r"m\.npz: .*not a structpred segmentation model")


def _edit_model(src, dst, edit):
    with np.load(src) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays["meta"]).decode())
    edit(meta)
    # as a structpred writing that header would have written it: its content digest
    meta["digest"] = content_digest({k: v for k, v in arrays.items()
                                     if k not in ("meta", "format", "version")}, meta)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(dst, **arrays)


def c_model_future_version(r, m):
    make_images(r)
    _edit_model(m["image"], r / "m.npz", lambda meta: meta.update(version=99))
    return (["segment", "predict", "-m", str(r / "m.npz"), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"m\.npz: .*format version 99.*newer than this structpred reads")


def c_model_other_features(r, m):
    make_images(r)
    _edit_model(m["image"], r / "m.npz",
                lambda meta: meta["node_feature_names"].__setitem__(0, "old_feature"))
    return (["segment", "predict", "-m", str(r / "m.npz"), "--images", str(r / "images"),
             "-o", str(r / "pred")],
            r"m\.npz: the model was trained with other image features")


def c_model_kind_mismatch(r, m):
    p = make_points(r / "scan.xyz", 300)
    return (["segment", "predict", "-m", str(m["image"]), "--points", str(p), "-o", str(r / "pred")],
            r"img\.npz: the model was trained on images, not point clouds")


def c_eval_pred_missing_mask(r, m):
    make_images(r)
    (r / "pred").mkdir()
    for i in IDS[:3]:
        Image.fromarray(np.zeros((48, 48), np.uint8)).save(r / "pred" / f"{i}.png")
    return (["segment", "eval", "--pred", str(r / "pred"), "--masks", str(r / "masks")],
            r"pred: no predicted mask named horse004\.\* \(for .*masks/horse004\.png\)")


def c_eval_pred_not_binary(r, m):
    make_images(r)
    (r / "pred").mkdir()
    for i in IDS:
        Image.fromarray(np.full((48, 48), 7, np.uint8)).save(r / "pred" / f"{i}.jpg")
    return (["segment", "eval", "--pred", str(r / "pred"), "--masks", str(r / "masks")],
            r"pred/horse001\.jpg: mask is not binary")


def c_eval_pred_wrong_size(r, m):
    make_images(r)
    (r / "pred").mkdir()
    for i in IDS:
        Image.fromarray(np.zeros((40, 48), np.uint8)).save(r / "pred" / f"{i}.png")
    return (["segment", "eval", "--pred", str(r / "pred"), "--masks", str(r / "masks")],
            r"pred/horse001\.png: predicted mask is 48x40 but the gold mask .* is 48x48")


def c_eval_side_by_side_into_inputs(r, m):
    make_images(r)
    return (["segment", "eval", "-m", str(m["image"]), "--images", str(r / "images"),
             "--masks", str(r / "masks"), "--side-by-side", str(r / "masks")],
            r"masks: --side-by-side is also an input folder")


def c_eval_points_label_column_missing(r, m):
    p = r / "scan.xyz"
    p.write_text("0 0 0\n1 1 1\n2 2 2\n")
    return (["segment", "eval", "-m", str(m["points"]), "--points", str(p)],
            rf"{re.escape(str(p))}: needs a label column")


def c_valid_images_without_masks(r, m):
    make_images(r)
    os.remove(r / "masks" / "horse001.png")
    return (["segment", "train", "--images", str(r / "images" / "horse002.png"),
             "--masks", str(r / "masks"), "--valid-images", str(r / "images" / "horse001.png"),
             "-o", str(r / "m.npz")],
            r"images/horse001\.png: no mask named horse001\.\* in ")


CASES = [c_manifest_missing_image, c_manifest_missing_mask, c_manifest_ragged_row,
         c_manifest_empty, c_manifest_is_folder, c_manifest_bad_bytes, c_image_not_an_image,
         c_image_truncated, c_image_empty_file, c_mask_wrong_size, c_mask_not_binary,
         c_mask_missing_for_image, c_no_foreground_in_any_mask, c_points_nan_label,
         c_points_truncated_gzip, c_points_no_foreground, c_points_empty,
         c_output_folder_missing, c_output_is_input, c_output_is_folder,
         c_predict_into_image_folder, c_predict_output_is_file, c_model_missing, c_model_empty,
         c_model_is_folder, c_model_text, c_model_with_pickle, c_model_truncated,
         c_model_future_version, c_model_other_features, c_model_kind_mismatch,
         c_eval_pred_missing_mask, c_eval_pred_not_binary, c_eval_pred_wrong_size,
         c_eval_side_by_side_into_inputs, c_eval_points_label_column_missing,
         c_valid_images_without_masks]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[2:] for c in CASES])
def test_bad_input_gives_one_line_and_exit_2(case, models, tmp_path, capsys):
    root = tmp_path / "case"
    root.mkdir()
    argv, pattern = case(root, models)
    before = _snapshot(tmp_path)
    capsys.readouterr()
    rc = main(argv)  # not quiet: no chatter may come before the error either
    out, err = capsys.readouterr()
    assert rc == 2, (argv, out, err)
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("structpred: error: "), err
    assert re.search(pattern, lines[0]), (pattern, lines[0])
    assert _snapshot(tmp_path) == before, "output left behind"


@pytest.mark.parametrize("argv, pattern", [
    (["segment", "train", "--iterations", "0"], r"argument --iterations: must be an integer >= 1, got '0'"),
    (["segment", "train", "--n-segments", "1"], r"argument --n-segments: must be an integer >= 2"),
    (["segment", "train", "--k-graph", "0"], r"argument --k-graph: must be an integer >= 1"),
    (["segment", "train", "--voxel", "0"], r"argument --voxel: must be a number > 0"),
    (["segment", "train", "--voxel", "nan"], r"argument --voxel: must be a finite number"),
    (["segment", "train", "--eta-scale", "1,-3"], r"argument --eta-scale: must be a number > 0"),
    (["segment", "train", "--feature-scale", "0"], r"argument --feature-scale: must be a number > 0"),
    (["segment", "train", "--class-weight", "-1"], r"argument --class-weight: .*positive"),
    (["segment", "train", "--valid-fraction", "1.5"], r"argument --valid-fraction: must be below 1"),
    (["segment", "train", "--foreground-labels", "veg"], r"argument --foreground-labels: expected labels"),
    (["segment", "eval", "--limit", "0"], r"argument --limit: must be an integer >= 1"),
    (["segment", "eval", "--ignore-value", "0"], r"argument --ignore-value: must be an integer >= 1"),
    (["segment", "predict", "--limit", "x"], r"argument --limit: must be an integer, got 'x'"),
])
def test_bad_numbers_are_refused_at_parse_time(argv, pattern, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["-o", "x"] if argv[1] != "eval" else argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("structpred: error: argument"), err
    assert re.search(pattern, err), err


# ------------------------------------------------------------ round trips
def test_no_edges_model_trains_predicts_and_evaluates(tmp_path, capsys):
    root = make_images(tmp_path / "d")
    model = tmp_path / "unary.npz"
    assert main(["segment", "train", "--manifest", str(root / "manifest.csv"), "--no-edges",
                 *TRAIN_FAST, "-o", str(model), "-q"]) == 0
    m = MRFSegmenter.load(model)
    assert m.n_edge_features_ == 0 and m.coef_.size == m.n_node_features_
    assert main(["segment", "predict", "-m", str(model), "--images", str(root / "images"),
                 "-o", str(tmp_path / "pred"), "-q"]) == 0
    assert sorted(p.name for p in (tmp_path / "pred").iterdir()) == [f"{i}.png" for i in IDS]
    capsys.readouterr()
    assert main(["segment", "eval", "-m", str(model), "--manifest", str(root / "manifest.csv"),
                 "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 images: accuracy") and "foreground IoU" in out
    # the predicted masks score the same through eval --pred
    assert main(["segment", "eval", "--pred", str(tmp_path / "pred"), "--masks",
                 str(root / "masks"), "-q"]) == 0
    assert capsys.readouterr().out == out


def test_version_1_unary_model_still_loads(tmp_path):
    """Version-1 files of --no-edges models stored zero edge weights: they load."""
    root = make_images(tmp_path / "d")
    model = tmp_path / "unary.npz"
    assert main(["segment", "train", "--manifest", str(root / "manifest.csv"), "--no-edges",
                 *TRAIN_FAST, "-o", str(model), "-q"]) == 0
    with np.load(model) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays["meta"]).decode())
    meta["version"] = 1
    for k in ("node_feature_names", "edge_feature_names", "chosen", "selection", "shapes",
              "digest"):
        meta.pop(k)
    arrays["coef"] = np.concatenate([arrays["coef"], np.zeros(8)])
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez(tmp_path / "v1.npz", **arrays)
    m = MRFSegmenter.load(tmp_path / "v1.npz")
    assert m.coef_.size == m.n_node_features_


# ------------------------------------------------------------ fuzzing the readers
FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
_TOKENS = st.sampled_from(["0", "1", "-2.5", "1300", "1e400", "nan", "inf", "x", "#", "",
                           "1,2", "\t", "1.0", "9" * 30, "ü", "-"])
_LINES = st.lists(st.lists(_TOKENS, max_size=6).map(" ".join), max_size=12).map("\n".join)


@FUZZ
@given(data=st.one_of(st.binary(max_size=300), _LINES.map(str.encode)))
def test_point_reader_raises_only_format_errors(tmp_path, data):
    for name, payload in (("p.xyz", data), ("p.xyz.gz", gzip.compress(data)[:max(1, len(data) // 2)])):
        p = tmp_path / name
        p.write_bytes(payload)
        try:
            xyz, lab = load_points(p)
        except FormatError as exc:
            assert str(exc).startswith(str(p))
        else:
            assert xyz.ndim == 2 and xyz.shape[1] == 3 and np.all(np.isfinite(xyz))


@FUZZ
@given(cut=st.integers(min_value=0, max_value=4000))
def test_truncated_real_point_file_raises_only_format_errors(tmp_path, cut):
    data = OAKLAND.read_bytes()[:cut]
    p = tmp_path / "cut.xyz.gz"
    p.write_bytes(data)
    try:
        load_points(p)
    except FormatError as exc:
        assert str(exc).startswith(str(p))


@FUZZ
@given(data=st.one_of(
    st.binary(max_size=300),
    st.lists(st.lists(st.sampled_from(["id", "split", "image", "mask", "horse001", "horse002",
                                       "train", "", "\"", "a\"b", "x.png", "\x00", "ü"]),
                      max_size=4).map(",".join), max_size=6).map("\n".join).map(str.encode)))
def test_manifest_reader_raises_only_format_errors(tmp_path, data):
    root = tmp_path / "m"
    if not root.exists():
        make_images(root, IDS[:2])
    p = root / "manifest.csv"
    p.write_bytes(data)
    try:
        items = read_manifest(p)
    except FormatError as exc:
        assert str(exc).startswith(str(p))
    else:
        assert items and all(it.image.is_file() for it in items)


def _png_bytes(arr):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


@FUZZ
@given(data=st.one_of(
    st.binary(max_size=200),
    st.integers(min_value=0, max_value=400).map(
        lambda k: _png_bytes((np.arange(64).reshape(8, 8) % 2 * 255).astype(np.uint8))[:k]),
    st.lists(st.integers(0, 255), min_size=16, max_size=16).map(
        lambda v: _png_bytes(np.array(v, np.uint8).reshape(4, 4)))),
    ignore=st.sampled_from([None, 128, 255]))
def test_mask_reader_raises_only_format_errors(tmp_path, data, ignore):
    p = tmp_path / "mask.png"
    p.write_bytes(data)
    try:
        mask, ign = load_mask(p, ignore, return_ignore=True)
    except FormatError as exc:
        assert str(exc).startswith(str(p))
    else:
        assert mask.dtype == bool and mask.ndim == 2


@FUZZ
@given(data=st.binary(max_size=300))
def test_model_loader_raises_only_value_errors(tmp_path, data):
    p = tmp_path / "m.npz"
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.writestr("meta.npy", data)
    for payload in (data, zbuf.getvalue()):
        p.write_bytes(payload)
        with pytest.raises(ValueError, match="m.npz: "):
            MRFSegmenter.load(p)


# ------------------------------------------------ class: the same image or scan twice
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(["absolute", "dot", "link"]), kind=st.sampled_from(["image", "points"]),
       command=st.sampled_from(["eval", "predict"]))
def test_an_image_or_scan_given_twice_is_refused(how, kind, command, models, tmp_path,
                                                 monkeypatch, capsys):
    # before: scored twice in the pooled figures ("2 images") while one file was written
    root = Path(models[kind]).parent
    monkeypatch.chdir(root)
    one = "images/0.png" if kind == "image" else "scan.xyz"
    if not Path(one).exists():
        one = sorted(str(p.relative_to(root)) for p in (root / "images").iterdir())[0]
    argv = ["segment", command, "-m", str(models[kind]),
            "--images" if kind == "image" else "--points", one,
            other_spelling(one, how, tmp_path)]
    if kind == "image" and command == "eval":
        argv += ["--masks", "masks"]
    if command == "predict":
        argv += ["-o", str(tmp_path / "out")]
    capsys.readouterr()
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "given twice" in err[0], err
