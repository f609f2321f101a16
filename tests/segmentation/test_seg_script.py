"""scripts/reproduce_segmentation.py end to end on the bundled horse slice (small settings)."""

import json

import pytest

from segmentation.data import bundled_data_dir


@pytest.fixture(scope="module")
def script(load_script):
    return load_script("reproduce_segmentation")


def test_parse_class_weights(script):
    assert script.parse_class_weights("none,balanced,1.5") == [None, "balanced", 1.5]
    assert script.parse_class_weights("balanced") == ["balanced"]
    with pytest.raises(ValueError):
        script.parse_class_weights("heavy")


def test_class_weight_candidates_are_chosen_on_validation(script, tmp_path, capsys):
    script.main(["--dataset", "horses", "--data-dir", str(bundled_data_dir()), "--methods", "unary",
                 "--class-weight", "none,balanced", "--iterations", "6", "--validate-every", "2",
                 "--n-train", "6", "--n-valid", "3", "--n-segments", "120",
                 "--cache-dir", str(tmp_path / "cache"), "--out-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    valid = {}
    for cw in ("None", "balanced"):
        line = next(ln for ln in err.splitlines() if f"unary, class weight {cw}: validation IoU" in ln)
        valid[cw] = float(line.split("validation IoU ")[1].split("%")[0])
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    (row,) = res["horses"]["rows"]
    chosen = "None" if row["class_weight"] == "none" else row["class_weight"]
    assert valid[chosen] == max(valid.values())
    assert abs(100 * row["valid_iou"] - valid[chosen]) < 0.006
    assert res["args"]["class_weight"] == [None, "balanced"]
