"""``structpred segment train|predict|eval`` end to end on bundled real data, and
its error messages on bad input."""

import re

import numpy as np
import pytest
from PIL import Image

from segmentation.data import bundled_data_dir
from segmentation.model import MRFSegmenter
from structpred.cli import main

MANIFEST = bundled_data_dir() / "weizmann_horse" / "manifest.csv"
OAKLAND = bundled_data_dir() / "oakland3d_part2" / "oakland_part2_01.xyz_label_conf.gz"


@pytest.fixture(scope="module")
def image_model(tmp_path_factory):
    out = tmp_path_factory.mktemp("segcli") / "model.npz"
    rc = main(["segment", "train", "--manifest", str(MANIFEST), "--split", "train", "--limit", "4",
               "--n-segments", "120", "--iterations", "8", "-o", str(out), "-q"])
    assert rc == 0 and out.exists()
    return out


def test_train_predict_eval_images(image_model, tmp_path, capsys):
    pred_dir, sbs = tmp_path / "pred", tmp_path / "sbs"
    rc = main(["segment", "predict", "-m", str(image_model), "--manifest", str(MANIFEST),
               "--split", "test", "--limit", "2", "-o", str(pred_dir), "-q"])
    assert rc == 0
    files = sorted(pred_dir.glob("*.png"))
    assert [f.name for f in files] == ["horse279.png", "horse280.png"]
    m = np.asarray(Image.open(files[0]))
    truth = np.asarray(Image.open(bundled_data_dir() / "weizmann_horse/small/masks/horse279.png"))
    assert m.shape == truth.shape and set(np.unique(m)) <= {0, 255}
    rc = main(["segment", "eval", "-m", str(image_model), "--manifest", str(MANIFEST),
               "--split", "test", "--limit", "2", "--side-by-side", str(sbs), "-q"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "2 images: accuracy" in out and "foreground IoU" in out
    panel = np.asarray(Image.open(sbs / "horse279.png"))
    assert panel.shape == (truth.shape[0], 3 * truth.shape[1] + 8, 3)


def test_images_and_masks_folders(image_model, tmp_path, capsys):
    img_dir = bundled_data_dir() / "weizmann_horse/small/images"
    mask_dir = bundled_data_dir() / "weizmann_horse/small/masks"
    rc = main(["segment", "eval", "-m", str(image_model), "--images", str(img_dir / "horse281.png"),
               "--masks", str(mask_dir), "-q"])
    assert rc == 0
    assert "1 image: accuracy" in capsys.readouterr().out


def test_points_train_predict_eval(tmp_path, capsys):
    small = tmp_path / "scan.xyz"
    # every 33rd point: the scan's first 3,000 points are all building
    lines = [ln for i, ln in enumerate(__import__("gzip").open(OAKLAND, "rt")) if i % 33 == 0][:3000]
    small.write_text("".join(lines))
    model = tmp_path / "pts.npz"
    assert main(["segment", "train", "--points", str(small), "--foreground-labels", "1300-1306",
                 "--voxel", "0.4", "--iterations", "5",
                 "--learner", "perceptron", "-o", str(model), "-q"]) == 0
    assert main(["segment", "predict", "-m", str(model), "--points", str(small), "-o",
                 str(tmp_path / "out"), "-q"]) == 0
    pred = np.loadtxt(tmp_path / "out" / "scan.xyz.pred.txt")
    assert pred.shape == (3000, 4) and set(np.unique(pred[:, 3])) <= {0, 1}
    assert main(["segment", "eval", "-m", str(model), "--points", str(small), "-q"]) == 0
    assert "1 scan: accuracy" in capsys.readouterr().out


def _err(capsys):
    return capsys.readouterr().err


def test_cli_errors_on_bad_images(tmp_path, capsys):
    imgs, masks = tmp_path / "img", tmp_path / "mask"
    imgs.mkdir()
    masks.mkdir()
    Image.fromarray(np.zeros((10, 12, 3), np.uint8)).save(imgs / "a.png")
    Image.fromarray(np.zeros((10, 11), np.uint8)).save(masks / "a.png")
    out = str(tmp_path / "m.npz")
    assert main(["segment", "train", "--images", str(imgs), "--masks", str(masks), "-o", out, "-q"]) == 2
    err = _err(capsys)
    assert "mask" in err and "a.png" in err and "11x10" in err and "12x10" in err
    Image.fromarray(np.full((10, 12), 7, np.uint8)).save(masks / "a.png")
    assert main(["segment", "train", "--images", str(imgs), "--masks", str(masks), "-o", out, "-q"]) == 2
    assert "mask is not binary" in _err(capsys)
    assert main(["segment", "train", "--images", str(imgs), "-o", out, "-q"]) == 2
    assert "--masks" in _err(capsys)


def test_cli_errors_on_bad_points(tmp_path, capsys):
    empty = tmp_path / "empty.xyz"
    empty.write_text("")
    out = str(tmp_path / "m.npz")
    assert main(["segment", "train", "--points", str(empty), "--foreground-labels", "1300-1306",
                 "-o", out, "-q"]) == 2
    assert "empty.xyz: point file is empty" in _err(capsys)
    nan = tmp_path / "nan.xyz"
    nan.write_text("0 0 0 1300 2\nnan 1 1 1200 2\n")
    assert main(["segment", "train", "--points", str(nan), "--foreground-labels", "1300-1306",
                 "-o", out, "-q"]) == 2
    assert "nan.xyz" in _err(capsys)
    assert main(["segment", "eval", "-m", str(tmp_path / "missing.npz"), "--points", str(nan), "-q"]) == 2
    assert "missing.npz" in _err(capsys)


# ------------------------------------------------------------ inputs users have
FAST = ["--n-segments", "40", "--iterations", "3", "--class-weight", "none", "--eta-scale", "1"]


def _small_set(root, ids=("horse001", "horse002", "horse003", "horse004", "horse005"), size=48,
               image_ext=".png", mask_ext=".png", band=None):
    """Centre crops of bundled horses; masks optionally with a 128 band along the outline."""
    from scipy import ndimage

    (root / "images").mkdir(parents=True)
    (root / "masks").mkdir()
    src = bundled_data_dir() / "weizmann_horse" / "small"
    for i in ids:
        img = np.asarray(Image.open(src / "images" / f"{i}.png"))
        m = np.asarray(Image.open(src / "masks" / f"{i}.png"))
        r0, c0 = (m.shape[0] - size) // 2, (m.shape[1] - size) // 2
        img, m = img[r0:r0 + size, c0:c0 + size], m[r0:r0 + size, c0:c0 + size].copy()
        if band:
            fg = m > 0
            edge = ndimage.binary_dilation(fg, iterations=band) & ~ndimage.binary_erosion(fg, iterations=band)
            m[edge] = 128
        Image.fromarray(img).save(root / "images" / f"{i}{image_ext}", quality=95)
        Image.fromarray(m).save(root / "masks" / f"{i}{mask_ext}")
    return root


def test_ignore_value_band_in_train_and_eval(tmp_path, capsys):
    root = _small_set(tmp_path / "d", band=2)
    model = tmp_path / "m.npz"
    args = ["--images", str(root / "images"), "--masks", str(root / "masks")]
    assert main(["segment", "train", *args, *FAST, "-o", str(model), "-q"]) == 2
    assert "mask is not binary" in capsys.readouterr().err
    assert main(["segment", "train", *args, "--ignore-value", "128", *FAST, "-o", str(model),
                 "-q"]) == 0
    capsys.readouterr()
    assert main(["segment", "eval", "-m", str(model), *args, "--ignore-value", "128", "-q"]) == 0
    with_band = capsys.readouterr().out
    assert "5 images: accuracy" in with_band
    # scores without the band's pixels differ from scores that count them as background
    from segmentation.data import load_mask
    from segmentation.metrics import segmentation_scores

    m = MRFSegmenter.load(model)
    preds, truths, ignores = [], [], []
    for f in sorted((root / "images").iterdir()):
        preds.append(m.predict([np.asarray(Image.open(f).convert("RGB"))])[0])
        t, ig = load_mask(root / "masks" / f.name, 128, return_ignore=True)
        truths.append(t)
        ignores.append(ig)
    sc = segmentation_scores(preds, truths, ignores)
    assert f"foreground IoU {100 * sc.iou:.2f}%" in with_band
    assert sc.n == sum(int((~ig).sum()) for ig in ignores)


def test_masks_by_stem_with_any_extension_and_manifest_case(tmp_path, capsys):
    root = _small_set(tmp_path / "d", image_ext=".JPG", mask_ext=".Png")
    (root / "manifest.csv").write_text("id,split\nhorse001,train\nhorse002,train\nhorse003,test\n")
    model = tmp_path / "m.npz"
    assert main(["segment", "train", "--manifest", str(root / "manifest.csv"), "--split", "train",
                 *FAST, "--valid-fraction", "0", "-o", str(model), "-q"]) == 0
    assert main(["segment", "eval", "-m", str(model), "--images", str(root / "images"),
                 "--masks", str(root / "masks"), "-q"]) == 0
    assert "5 images" in capsys.readouterr().out


def test_images_with_validation_images_and_fraction(tmp_path, capsys):
    root = _small_set(tmp_path / "d")
    imgs = sorted((root / "images").iterdir())
    model = tmp_path / "m.npz"
    assert main(["segment", "train", "--images", *map(str, imgs[:3]), "--masks", str(root / "masks"),
                 "--valid-images", *map(str, imgs[3:]), "--n-segments", "40", "--iterations", "4",
                 "--validate-every", "2", "--class-weight", "none,balanced", "--eta-scale", "1",
                 "--no-guard", "-o", str(model)]) == 0
    out, err = capsys.readouterr()
    # chatter (one line per candidate) on stderr, the summary on stdout
    assert "class weight none, step 1/||F||: validation IoU" in err
    assert "class weight balanced, step 1/||F||: validation IoU" in err
    assert re.search(r"trained on 3 images in .*; chose 40 superpixels, class weight \w+, step 1/\|\|F\|\|, "
                     r"iteration \d+: validation IoU \d+\.\d\d%; model written to", out), out
    m = MRFSegmenter.load(model)
    assert len(m.selection_) == 2 and m.chosen_["class_weight"] in (None, "balanced")
    best = max(r["valid_score"] for r in m.selection_)
    assert m.chosen_["valid_score"] == best
    # no validation set: every 1/F-th image is held out (here one of five)
    assert main(["segment", "train", "--images", str(root / "images"), "--masks", str(root / "masks"),
                 *FAST, "--valid-fraction", "0.2", "--no-guard", "-o", str(model), "-q"]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # -q: no chatter, but the summary stays
    assert "trained on 4 images (1 more held out for validation)" in out


def test_guarded_choice_by_cross_validation_end_to_end(tmp_path, capsys):
    """The default: too few validation images, so unary-only, the MRF and the MRF with its
    edge weights rescaled are compared by 3-fold cross-validation, the choice and its
    evidence printed, and the chosen model trained on all five images; predict and eval
    read it back."""
    root = _small_set(tmp_path / "d")
    model = tmp_path / "m.npz"
    with pytest.raises(SystemExit) as exc:
        main(["segment", "train", "--images", str(root / "images"), "--masks",
              str(root / "masks"), *FAST, "--edge-factors", "1", "-o", str(model)])
    assert exc.value.code == 2
    assert "--edge-factors" in capsys.readouterr().err and not model.exists()
    assert main(["segment", "train", "--images", str(root / "images"), "--masks",
                 str(root / "masks"), *FAST, "--edge-factors", "0.5,2", "--jobs", "2",
                 "-o", str(model)]) == 0
    out, err = capsys.readouterr()
    assert "3-fold cross-validation" in err
    assert re.search(r"edges: chose (unary|mrf|mrf x [\d.]+) on validation \(IoU .*bootstraps of the "
                     r"validation images \(cross-validated\)|the default is best", out), out
    assert re.search(r"trained on 5 images in .*; chose .*: cross-validated IoU \d+\.\d\d%", out), out
    m = MRFSegmenter.load(model)
    assert m.guard_["cv_folds"] == 3 and m.chosen_["n_train"] == 5
    assert m.first_pass_coef_ is not None
    assert m.edge_factors == (0.5, 2.0) and m.n_jobs == 2
    assert set(m.guard_["scores"]) == {"unary", "mrf", "mrf x 0.5", "mrf x 2"}
    assert main(["segment", "eval", "-m", str(model), "--images", str(root / "images"),
                 "--masks", str(root / "masks"), "-q"]) == 0
    assert "5 images: accuracy" in capsys.readouterr().out


def test_point_foreground_labels_are_an_option_recorded_in_the_model(tmp_path, capsys):
    small = tmp_path / "scan.xyz"
    lines = [ln for i, ln in enumerate(__import__("gzip").open(OAKLAND, "rt")) if i % 33 == 0][:3000]
    small.write_text("".join(lines))
    model = tmp_path / "m.npz"
    assert main(["segment", "train", "--points", str(small), "--voxel", "0.5", "-o", str(model),
                 "-q"]) == 2
    assert "--points needs --foreground-labels" in capsys.readouterr().err
    assert main(["segment", "train", "--points", str(small), "--foreground-labels", "1200-1207",
                 "--voxel", "0.5", "--iterations", "3", "--class-weight", "none", "--eta-scale", "1",
                 "--valid-fraction", "0", "-o", str(model), "-q"]) == 0
    assert MRFSegmenter.load(model).foreground_labels == "1200-1207"
    capsys.readouterr()
    assert main(["segment", "eval", "-m", str(model), "--points", str(small), "-q"]) == 0
    ground = capsys.readouterr().out
    assert main(["segment", "eval", "-m", str(model), "--points", str(small),
                 "--foreground-labels", "1300-1306", "-q"]) == 0
    assert capsys.readouterr().out != ground  # another task, another score


def test_no_progress_bars_when_stderr_is_not_a_terminal(tmp_path, capsys):
    root = _small_set(tmp_path / "d", ids=("horse001", "horse002"))
    assert main(["segment", "train", "--images", str(root / "images"), "--masks", str(root / "masks"),
                 *FAST, "-o", str(tmp_path / "m.npz")]) == 0
    err = capsys.readouterr().err
    assert "it/s" not in err and "\r" not in err
