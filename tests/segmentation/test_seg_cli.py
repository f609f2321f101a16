"""``structpred segment train|predict|eval`` end to end on bundled real data, and
its error messages on bad input."""

import numpy as np
import pytest
from PIL import Image

from segmentation.data import bundled_data_dir
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
    assert "1 images" in capsys.readouterr().out


def test_points_train_predict_eval(tmp_path, capsys):
    small = tmp_path / "scan.xyz"
    lines = [ln for i, ln in zip(range(3000), __import__("gzip").open(OAKLAND, "rt"))]
    small.write_text("".join(lines))
    model = tmp_path / "pts.npz"
    assert main(["segment", "train", "--points", str(small), "--voxel", "0.4", "--iterations", "5",
                 "--learner", "perceptron", "-o", str(model), "-q"]) == 0
    assert main(["segment", "predict", "-m", str(model), "--points", str(small), "-o",
                 str(tmp_path / "out"), "-q"]) == 0
    pred = np.loadtxt(tmp_path / "out" / "scan.xyz.pred.txt")
    assert pred.shape == (3000, 4) and set(np.unique(pred[:, 3])) <= {0, 1}
    assert main(["segment", "eval", "-m", str(model), "--points", str(small), "-q"]) == 0
    assert "1 scans: accuracy" in capsys.readouterr().out


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
    assert main(["segment", "train", "--points", str(empty), "-o", out, "-q"]) == 2
    assert "empty.xyz: point file is empty" in _err(capsys)
    nan = tmp_path / "nan.xyz"
    nan.write_text("0 0 0 1300 2\nnan 1 1 1200 2\n")
    assert main(["segment", "train", "--points", str(nan), "-o", out, "-q"]) == 2
    assert "nan.xyz" in _err(capsys)
    assert main(["segment", "eval", "-m", str(tmp_path / "missing.npz"), "--points", str(nan), "-q"]) == 2
    assert "missing.npz" in _err(capsys)
