"""The same command on the same data writes the same bytes, for every problem package
(the aligner's own check is ``tests/test_align_deterministic.py``).

Model files keep no clock readings (:data:`structpred.io.CLOCK_KEYS`: the wall and CPU
seconds of a fit, a learner's time column, the chooser's timings); before, every ``topics``,
``tag`` and ``segment`` model file differed from run to run in those numbers alone.
"""

import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli_helpers import run_cli
from structpred.io import CLOCK_KEYS, drop_clock_readings, load_npz, save_npz

DATA = __import__("pathlib").Path(__file__).resolve().parents[1] / "data"


def _twice(argv_of, tmp_path, capsys):
    """Run the command twice (outputs ``1.npz`` and ``2.npz``); their bytes.  The first
    run is in this process, the second in a fresh one with another string-hash seed
    (``PYTHONHASHSEED``), so that an order taken from a set or a dict of strings shows."""
    path = tmp_path / "1.npz"
    rc, _, err = run_cli(argv_of(str(path)), capsys)
    assert rc == 0, err
    again = tmp_path / "2.npz"
    other = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    env = {**os.environ, "PYTHONHASHSEED": other}
    proc = subprocess.run([sys.executable, "-m", "structpred", *argv_of(str(again))],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return path.read_bytes(), again.read_bytes()


def _small_text(tmp_path, n=25):
    """The first ``n`` documents of each class of the bundled 20 Newsgroups slice."""
    seen, keep = {}, []
    with gzip.open(DATA / "text" / "20ng-4groups-train.jsonl.gz", "rt") as fh:
        for line in fh:
            lab = json.loads(line)["label"]
            if seen.get(lab, 0) < n:
                seen[lab] = seen.get(lab, 0) + 1
                keep.append(line)
    path = tmp_path / "small.jsonl"
    path.write_text("".join(keep))
    return path


@pytest.mark.slow
def test_topics_train_default_twice_writes_the_same_bytes(tmp_path, capsys):
    # the default chooser, its candidates fitted in two forked processes
    data = _small_text(tmp_path)
    a, b = _twice(lambda o: ["topics", "train", "--data", str(data), "--jobs", "2",
                             "-q", "-o", o], tmp_path, capsys)
    assert a == b


@pytest.mark.parametrize("model", ["pamedlda", "medlda-gibbs"])
def test_topic_models_with_timed_fits_twice_write_the_same_bytes(model, tmp_path, capsys):
    # their estimators time the fit (fit_time_, inference_time_, svm_time_)
    data = _small_text(tmp_path, 15)
    a, b = _twice(lambda o: ["topics", "train", "--data", str(data), "--model", model,
                             "--n-topics", "4", "--iterations", "2", "-q", "-o", o],
                  tmp_path, capsys)
    assert a == b


def test_tag_train_twice_writes_the_same_bytes(tmp_path, capsys):
    a, b = _twice(lambda o: ["tag", "train", "--data",
                             str(DATA / "sequence" / "conll2000-train-300.txt.gz"),
                             "--first", "80", "--iterations", "10", "-q", "-o", o],
                  tmp_path, capsys)
    assert a == b


@pytest.mark.parametrize("kind", [pytest.param("images", marks=pytest.mark.slow), "points"])
def test_segment_train_twice_writes_the_same_bytes(kind, tmp_path, capsys):
    if kind == "images":
        h = DATA / "segmentation" / "weizmann_horse" / "small"
        argv = ["segment", "train", "--images", str(h / "images"), "--masks",
                str(h / "masks"), "--limit", "3", "--n-segments", "100", "--iterations", "3"]
    else:
        o = DATA / "segmentation" / "oakland3d_part2"
        argv = ["segment", "train", "--points", str(o / "oakland_part2_01.xyz_label_conf.gz"),
                "--foreground-labels", "1300-1306", "--voxel", "2.0", "--iterations", "4"]
    a, b = _twice(lambda out: argv + ["-q", "-o", out], tmp_path, capsys)
    assert a == b


# ------------------------------------------------------------ the shared rule itself
_json = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                               st.text(max_size=4)),
                     lambda inner: st.one_of(
                         st.lists(inner, max_size=3),
                         st.dictionaries(st.one_of(st.sampled_from(sorted(CLOCK_KEYS)),
                                                   st.text(max_size=4)), inner, max_size=4)),
                     max_leaves=20)


def _keys(obj):
    if isinstance(obj, dict):
        return set(obj) | set().union(*(_keys(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(_keys(v) for v in obj)) if obj else set()
    return set()


@given(_json)
def test_clock_readings_are_dropped_at_every_depth_and_nothing_else(obj):
    kept = drop_clock_readings(obj)
    assert not (_keys(kept) & CLOCK_KEYS)
    assert _keys(kept) <= _keys(obj)
    assert drop_clock_readings(kept) == kept


def test_save_npz_writes_no_clock_reading(tmp_path):
    header = {"format": "x", "version": 1, "history": {"time": [0.1], "loss": [2.0]},
              "chosen": {"seconds": 3.0, "value": 5}}
    save_npz(tmp_path / "a.npz", {"w": np.zeros(2)}, header)
    got, _ = load_npz(tmp_path / "a.npz", "x", (1,))
    assert got["history"] == {"loss": [2.0]} and got["chosen"] == {"value": 5}
