"""The defaults of ``structpred tag train`` and the selection that chose them.

``benchmarks/select_sequence_defaults.py`` keeps the current default unless a candidate
wins in at least 95 % of paired bootstraps of the validation sentences; these tests run
its ``select`` on cached validation records (no fitting) and check that the defaults in
the code are the ones its recorded results in ``docs/results`` kept on both data sets.
"""

import argparse
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from sequence.cli import DEFAULTS
from sequence.data import read_conll
from sequence.model import SequenceTagger

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"


@pytest.fixture(scope="module")
def selection():
    path = ROOT / "benchmarks" / "select_sequence_defaults.py"
    spec = importlib.util.spec_from_file_location("select_sequence_defaults", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _args(tmp_path, param, values, default):
    return argparse.Namespace(param=param, values=values, default=default,
                              fixed="min_count=2", first=None, iterations=100, patience=4,
                              eval_every=5, cache=str(tmp_path / "cache"))


def _write(selection, args, value, stats):
    """A cached validation record of ``value`` whose per-sentence chunk counts are ``stats``."""
    stats = np.asarray(stats)
    path = selection.cache_path("conll2000", args, value)
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = {"value": list(value) if isinstance(value, tuple) else value,
           "score": float(selection._score(stats.sum(0))), "best_iter": 10, "n_iter": 30,
           "cpu_seconds": 1.0, "wall_seconds": 1.0, "history": [], "stats": stats.tolist()}
    path.write_text(json.dumps(rec))


def test_select_keeps_the_default_unless_a_candidate_wins_the_bootstrap(
        selection, tmp_path, monkeypatch):
    X, y = read_conll(ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz")
    monkeypatch.setattr(selection, "load", lambda name: (X[:200], y[:200], None, None))
    n_valid = 20                                      # every 10th of 200 sentences
    # per validation sentence: (correct chunks, predicted chunks, gold chunks)
    base = np.tile([8, 10, 10], (n_valid, 1))
    hair = base.copy()
    hair[0, 0] = 9                                    # one chunk more in one sentence
    clear = base.copy()
    clear[:, 0] = 10                                  # every chunk right
    args = _args(tmp_path, "scale_power+step_scale", "0.5/3,0.25/3,0.25/10", "0.5/3")
    _write(selection, args, (0.5, 3.0), base)
    _write(selection, args, (0.25, 3.0), hair)
    _write(selection, args, (0.25, 10.0), base)
    res = selection.select("conll2000", args)
    assert res["validation_sentences"] == n_valid
    assert res["candidates"][0]["value"] == (0.25, 3.0)       # the best ...
    assert res["kept"] == (0.5, 3.0) and res["p_not_better"] >= 0.05   # ... is not kept
    _write(selection, args, (0.25, 10.0), clear)
    res = selection.select("conll2000", args)
    assert res["kept"] == (0.25, 10.0) and res["p_not_better"] < 0.05
    assert "0.25/10" in selection.table([res])
    with pytest.raises(ValueError, match="2 values"):
        selection.parse_value("scale_power+step_scale", "0.5")


def test_tag_train_defaults_are_the_ones_kept_on_validation():
    """The tagger's and the command line's defaults are those that the recorded
    selections (docs/results/sequence_selection_*.json) kept on both data sets: a
    changed default fails here until a selection that keeps it is recorded."""
    tagger = SequenceTagger()
    assert tagger.min_count == 2 and tagger.scale_power == 0.35
    assert tagger.step_scale == 3.0 and tagger.scaling == "count"
    assert tagger.relative_radius == np.inf and tagger.learner == "bregman"
    assert DEFAULTS["relative_radius"] == np.inf and DEFAULTS["n_iter"] == tagger.n_iter
    with open(RESULTS / "sequence_selection_min_count.json") as fh:
        results = json.load(fh)["results"]
    assert {r["data"] for r in results} == {"conll2000", "treebank"}
    assert all(r["kept"] == tagger.min_count for r in results)
    with open(RESULTS / "sequence_selection_scale_power.json") as fh:
        rec = json.load(fh)
    assert {r["data"] for r in rec["results"]} == {"conll2000", "treebank"}
    assert rec["args"]["fixed"] == f"min_count={tagger.min_count}"
    assert rec["args"]["iterations"] == tagger.n_iter
    choice = rec["joint"]
    # one value for both data sets, better than the previous default on each (the guard)
    assert choice["kept"] == choice["best"] == tagger.scale_power != choice["default"]
    assert set(choice["p_not_better"]) == {"conll2000", "treebank"}
    assert all(p < 0.05 for p in choice["p_not_better"].values())
    means = {m["value"]: m["mean_score"] for m in choice["mean_scores"]}
    assert max(means, key=means.get) == tagger.scale_power
    # the norm bound at that power did not win: no bound stays
    with open(RESULTS / "sequence_selection_radius.json") as fh:
        rec = json.load(fh)
    assert rec["args"]["fixed"] == f"min_count={tagger.min_count},scale_power={tagger.scale_power}"
    assert rec["joint"]["kept"] == rec["joint"]["default"] == tagger.relative_radius
    # nor did a lower power with a larger iteration budget
    with open(RESULTS / "sequence_selection_iterations.json") as fh:
        rec = json.load(fh)
    assert rec["joint"]["kept"] == rec["joint"]["default"] == [tagger.scale_power,
                                                               tagger.n_iter]
