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
from sequence.data import deterministic_split, read_conll
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
    assert tagger.min_count == 2 and tagger.scale_power == 0.25 and tagger.loss_scale == 2.0
    assert tagger.n_iter == DEFAULTS["n_iter"] == 300 and tagger.smoothing == 0.1
    assert tagger.step_scale == 3.0 and tagger.scaling == "count"
    assert tagger.relative_radius == np.inf and tagger.learner == "bregman"
    assert DEFAULTS["relative_radius"] == np.inf
    assert (DEFAULTS["patience"], DEFAULTS["eval_every"]) == (4, 5)
    with open(RESULTS / "sequence_selection_min_count.json") as fh:
        results = json.load(fh)["results"]
    assert {r["data"] for r in results} == {"conll2000", "treebank"}
    assert all(r["kept"] == tagger.min_count for r in results)
    # the power, the iteration cap and the loss weight, chosen together (the last
    # selection): one value for both data sets, better than the previous default on each
    with open(RESULTS / "sequence_selection_loss_scale.json") as fh:
        rec = json.load(fh)
    assert {r["data"] for r in rec["results"]} == {"conll2000", "treebank"}
    assert rec["args"]["param"] == "scale_power+n_iter+loss_scale"
    assert rec["args"]["fixed"] == f"min_count={tagger.min_count}"
    assert (rec["args"]["patience"], rec["args"]["eval_every"]) == (DEFAULTS["patience"],
                                                                   DEFAULTS["eval_every"])
    choice = rec["joint"]
    new = [tagger.scale_power, tagger.n_iter, tagger.loss_scale]
    assert choice["kept"] == choice["best"] == new != choice["default"]
    assert set(choice["p_not_better"]) == {"conll2000", "treebank"}
    assert all(p < 0.05 for p in choice["p_not_better"].values())
    means = {tuple(m["value"]): m["mean_score"] for m in choice["mean_scores"]}
    assert max(means, key=means.get) == tuple(new)
    # the previous default it replaced is the one the earlier selections had kept
    with open(RESULTS / "sequence_selection_scale_power.json") as fh:
        previous_power = json.load(fh)["joint"]["kept"]
    assert choice["default"] == [previous_power, 100, 1.0]
    # neither a norm bound, nor a larger budget alone, nor another prox-centre won
    for name, default in [("radius", np.inf), ("iterations", [previous_power, 100]),
                          ("budget", [previous_power, 100]), ("smoothing", tagger.smoothing)]:
        with open(RESULTS / f"sequence_selection_{name}.json") as fh:
            rec = json.load(fh)
        assert rec["joint"]["kept"] == rec["joint"]["default"] == default, name


def test_default_training_stops_on_the_validation_plateau_before_the_cap():
    """With the defaults of ``tag train`` (cap 300, validation every 5 iterations,
    patience 4) the run on the bundled CoNLL-2000 slice ends when the validation score
    has not improved for 4 validations, well before the cap, and keeps the best
    validated iterate."""
    X, y = read_conll(ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz")
    tr, va = deterministic_split(len(X))
    tagger = SequenceTagger(eval_every=DEFAULTS["eval_every"], patience=DEFAULTS["patience"])
    tagger.fit([X[i] for i in tr], [y[i] for i in tr],
               eval_set=([X[i] for i in va], [y[i] for i in va]))
    hist = tagger.history_
    assert tagger.n_iter_ < tagger.n_iter
    assert tagger.n_iter_ == tagger.best_iter_ + 1 + DEFAULTS["patience"] * DEFAULTS["eval_every"]
    best = hist["validation"][hist["iteration"].index(tagger.best_iter_)]
    assert best == max(hist["validation"])
    assert all(v <= best for v in hist["validation"][-DEFAULTS["patience"]:])
