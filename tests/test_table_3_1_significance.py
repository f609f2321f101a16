"""scripts/table_3_1_significance.py: c- chosen on validation, ordering with bootstrap."""

import json

import numpy as np
import pytest


def _counts(n_sure, miss):
    """Per-sentence counts of an aligner that predicts only sure links and misses ``miss``."""
    return np.stack([n_sure - miss, n_sure, n_sure, n_sure - miss, n_sure - miss], 1)


def _run(path, c_neg, rows, settings=None):
    n_sure = np.full(50, 10)
    out = []
    for name, valid, miss in rows:
        c = _counts(n_sure, miss)
        aer = 100 * (1 - 2 * c[:, 3].sum() / (c[:, 0].sum() + c[:, 1].sum()))
        out.append({"model": name + " (label)", "name": name, "train": 200, "c_neg": c_neg,
                    "precision": 100.0, "recall": 100 * c[:, 3].sum() / c[:, 1].sum(),
                    "aer": aer, "valid_aer": valid, "sentence_counts": c.tolist()})
    path.write_text(json.dumps({"rows": out, "settings": {"c_neg": c_neg, "hmm": 0,
                                                          **(settings or {})}}))
    return path


def test_choice_tie_rule_ordering_and_targets(tmp_path, load_script):
    sig = load_script("table_3_1_significance")
    miss3 = np.zeros(50, int)
    miss3[:12] = 1          # AER 1.2 %
    c3 = _run(tmp_path / "c3.json", 3.0, [("M", 8.0, 3), ("M+F", 7.0, miss3),
                                          ("M+Q", 9.0, 1), ("M+F+Q", 6.0, 0)])
    c10 = _run(tmp_path / "c10.json", 10.0, [("M", 8.0, 2), ("M+F", 7.5, 0),
                                             ("M+Q", 8.5, 1), ("M+F+Q", 6.5, 0)])
    summary = sig.main([str(c3), str(c10), "--n-boot", "500", "--json",
                        str(tmp_path / "out.json")])
    chosen = summary["chosen"]
    assert chosen["M@200"]["c_neg"] == 10.0          # tie on validation keeps c- = 10
    assert chosen["M+F@200"]["c_neg"] == 3.0         # lower validation AER wins
    assert chosen["M+Q@200"]["c_neg"] == 10.0 and chosen["M+F+Q@200"]["c_neg"] == 3.0
    rep = {c["pair"]: c for c in summary["ordering"][200]}
    assert rep["M > M+F"]["holds"] and rep["M > M+F"]["interval"][0] > 0
    assert not rep["M+F > M+Q"]["holds"]              # 1.2 % vs 5.3 %: broken, and clearly so
    assert rep["M+F > M+Q"]["p_not_better"] == 1.0
    assert summary["targets"][200] == {"ordering_strict": False, "mfq_at_most_7": True}
    assert json.loads((tmp_path / "out.json").read_text())["targets"]["200"][
        "mfq_at_most_7"] is True


def test_runs_with_other_settings_are_refused(tmp_path, load_script):
    sig = load_script("table_3_1_significance")
    a = _run(tmp_path / "a.json", 3.0, [("M", 8.0, 1)])
    b = _run(tmp_path / "b.json", 10.0, [("M", 8.0, 1)], settings={"hmm": 5})
    with pytest.raises(SystemExit, match="settings differ .* in hmm"):
        sig.main([str(a), str(b)])


def test_unreadable_files_are_named(tmp_path, load_script):
    sig = load_script("table_3_1_significance")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SystemExit, match="bad.json: cannot read"):
        sig.main([str(bad)])
    with pytest.raises(SystemExit, match="missing.json: cannot read"):
        sig.main([str(tmp_path / "missing.json")])
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"rows": [{"model": "M", "train": 100}], "settings": {}}))
    with pytest.raises(SystemExit, match="lack per-sentence counts"):
        sig.main([str(old)])
