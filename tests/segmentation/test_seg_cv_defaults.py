"""scripts/cv_segmentation_defaults.py: resuming, the deadline and the table (no training)."""

import json

import pytest

from segmentation.data import bundled_data_dir


@pytest.fixture(scope="module")
def script(load_script):
    return load_script("cv_segmentation_defaults")


def _row(valid, test, cpu=100.0, wall=120.0):
    return dict(valid_iou=valid, iou=test, cpu_seconds=cpu, seconds=wall,
                chosen="1000 superpixels, class weight none, step 3/||F||, iteration 45")


def test_table_means_over_folds(script):
    res = {f"default/fold{k}": _row(0.70 + 0.01 * k, 0.75) for k in range(3)}
    res["fs0.05/fold0"] = _row(0.60, 0.70)
    text = script.table(res)
    line = next(ln for ln in text.splitlines() if ln.startswith("| default |"))
    assert "| 71.00 | 75.00 | 100 | 120 |" in line
    partial = next(ln for ln in text.splitlines() if ln.startswith("| fs0.05 |"))
    assert "60.00 (1 folds)" in partial and "–" in partial


def test_finished_runs_are_skipped_and_the_deadline_holds(script, tmp_path, capsys):
    out = tmp_path / "cv.json"
    # every default run done; one variant expected to take far longer than any deadline allows
    res = {f"default/fold{k}": _row(0.7, 0.75, wall=1e9) for k in range(3)}
    out.write_text(json.dumps(res))
    script.main(["--data-dir", str(bundled_data_dir()), "--out", str(out),
                 "--variants", "default", "fs0.01", "--folds", "fold0", "--deadline", "23:59",
                 "--cache-dir", str(tmp_path / "cache")])
    err = capsys.readouterr().err
    assert "skip fs0.01/fold0" in err
    assert json.loads(out.read_text()) == res  # nothing was trained or rewritten
