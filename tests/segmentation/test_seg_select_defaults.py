"""scripts/select_segmentation_defaults.py (replaying the guard's edge factors over two
sources) and the merged table of scripts/bench_segmentation_peers.py: no training."""

import json

import numpy as np
import pytest


@pytest.fixture(scope="module")
def select(load_script):
    return load_script("select_segmentation_defaults")


@pytest.fixture(scope="module")
def bench(load_script):
    return load_script("bench_segmentation_peers")


def _stats(n, inter, union=100):
    return np.tile([inter, union], (n, 1)).tolist()


def _horse_run(n_valid=30, n_test=40, x2_valid=70, x2_test=72):
    """A run whose validation says "edge weights x 2" is steadily best."""
    valid = {"unary": _stats(n_valid, 60), "mrf": _stats(n_valid, 65),
             "mrf x 0.5": _stats(n_valid, 63), "mrf x 1.5": _stats(n_valid, 66),
             "mrf x 2": _stats(n_valid, x2_valid), "mrf x 3": _stats(n_valid, 64)}
    test = {k: _stats(n_test, v[0][0] + 2) for k, v in valid.items()}
    test["mrf x 2"] = _stats(n_test, x2_test)
    return {"valid_stats": valid, "test_stats": test}


def test_replay_keeps_what_the_guard_would(select):
    run = _horse_run()
    assert select.replay(run["valid_stats"], (0.5,))[0] == "mrf"
    assert select.replay(run["valid_stats"], (0.5, 1.5, 2.0, 3.0))[0] == "mrf x 2"
    items, kept, _ = select.horse_items(run, (0.5, 1.5, 2.0, 3.0))
    assert kept == "mrf x 2" and items[:, 0].sum() == 40 * 72


def test_oakland_is_nested_over_the_defaults_own_folds(select):
    # 7 scans, stored fold by fold (scans 0,3,6 | 1,4 | 2,5); "mrf x 2" wins only on fold 0
    valid = {k: np.tile([50.0, 100.0], (7, 1)) for k in ("unary", "mrf", "mrf x 2")}
    valid["mrf"][:, 0] = 60
    valid["mrf x 2"][:, 0] = [90, 90, 90, 55, 55, 55, 55]
    run = {"valid_stats": {k: v.tolist() for k, v in valid.items()}}
    items, kept = select.oakland_items(run, (2.0,))
    # fold 0 is chosen on folds 1-2 (where the MRF is best), folds 1-2 on data with fold 0
    assert kept[0] == "mrf" and items[:3, 0].tolist() == [60, 60, 60]
    assert kept[1] == kept[2] == "mrf x 2" and items[3:, 0].tolist() == [55] * 4


def test_the_wider_rule_must_win_the_two_source_bootstrap(select, tmp_path, capsys):
    horses = tmp_path / "h.json"
    horses.write_text(json.dumps({"splits": {"inner0": {"mrf": _horse_run()}}}))
    oak = {k: _stats(7, 80) for k in ("unary", "mrf", "mrf x 0.5", "mrf x 1.5", "mrf x 2",
                                       "mrf x 3")}
    oakland = tmp_path / "o.json"
    oakland.write_text(json.dumps({"oakland": {"mrf": {"valid_stats": oak}}}))
    assert select.main(["--horses", str(horses), "--oakland", str(oakland)]) == \
        "(0.5, 1.5, 2, 3)"
    assert "better in 100.0% of paired bootstraps" in capsys.readouterr().out
    # a test gain that is not there: the default stays
    horses.write_text(json.dumps({"splits": {"inner0": {"mrf": _horse_run(x2_test=67)}}}))
    assert select.main(["--horses", str(horses), "--oakland", str(oakland)]) == "(0.5,)"


def test_bench_table_takes_unary_only_from_the_guards_candidate(bench):
    run = _horse_run()
    row = {"n_train": 10, "n_test": 40,
           "mrf": dict(iou=0.72, chosen="x", guard={"scores": {"mrf": 0.7}}, cpu_seconds=5.0,
                       **run)}
    text = bench.table({"splits": {"zjw": row}})
    line = text.splitlines()[-1]
    assert "| zjw | 10 / 40 | 62.00 | 72.00 | +10.00 | - |" in line and "| 5 |" in line
