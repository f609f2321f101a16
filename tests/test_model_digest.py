"""Model files edited after they were written (issue 28): every file of
:func:`structpred.io.save_npz` records a content digest (``sha256`` over its arrays' names,
dtypes, shapes and bytes and over its header), and :func:`structpred.io.load_npz` refuses a
file whose content no longer gives it.  An edit that kept every shape and every value
finite (one weight changed) was read silently: the model predicted with the edited weight.

The models are trained here once, small, through the command line, as a user would."""

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from structpred.io import content_digest, load_npz, save_npz

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
HORSE = DATA / "segmentation" / "weizmann_horse" / "small"
CHANGED = "changed after it was written (its content digest does not match"

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module")
def models(tmp_path_factory, small_stats_file):
    """``{kind: (model, loader, predict argv)}``: a model of each kind, trained small."""
    from alignment import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics
    from segmentation.model import MRFSegmenter
    from sequence import load_tagger
    from topics import load_model

    d = tmp_path_factory.mktemp("models")
    h = DATA / "hansards"
    src, tgt = d / "s.en", d / "s.fr"
    from structpred import open_text
    for path, name in ((src, "test.en.gz"), (tgt, "test.fr.gz")):
        with open_text(h / name) as fh:
            path.write_text("".join(fh.readline() for _ in range(3)), encoding="utf-8")
    rows = [("fruit", "apple banana pear juice sweet"), ("car", "engine wheel road fuel bus")]
    (d / "t.tsv").write_text("".join(f"{lab}\t{txt} {i}\n" for i in range(6) for lab, txt in rows))
    with open_text(DATA / "sequence" / "conll2000-train-300.txt.gz") as fh:
        (d / "tag.txt").write_text("".join(fh.readline() for _ in range(400)))
    runs = {
        "align": (["align", "train", "--src", str(h / "test.en.gz"), "--tgt",
                   str(h / "test.fr.gz"), "--gold", str(h / "test.naacl.gz"), "--first", "10",
                   "--stats", str(small_stats_file), "--iterations", "2", "-q"],
                  MatchingAligner.load, ["align", "predict", "--src", str(src), "--tgt",
                                         str(tgt), "-q"]),
        "tag": (["tag", "train", "--data", str(d / "tag.txt"), "--iterations", "2", "-q"],
                load_tagger, ["tag", "predict", "-i", str(d / "tag.txt")]),
        "topics": (["topics", "train", "--data", str(d / "t.tsv"), "--model", "sdem-nb", "-q"],
                   load_model, ["topics", "predict", "--data", str(d / "t.tsv")]),
        "segment": (["segment", "train", "-q", "--iterations", "2", "--images",
                     str(HORSE / "images"), "--masks", str(HORSE / "masks"), "--limit", "2",
                     "--no-colour-model", "--memory-efficient"],
                    MRFSegmenter.load, ["segment", "predict", "--images", str(HORSE / "images")])}
    from structpred.cli import main
    out = {}
    for kind, (train, loader, predict) in runs.items():
        model = d / f"{kind}.npz"
        assert main([*train, "-o", str(model)]) in (0, None), kind
        out[kind] = (model, loader, predict)
    out["stats"] = (Path(small_stats_file), AlignmentStatistics.load, None)
    return out


def _arrays(path):
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _changed(a, i):
    """``a`` with its element ``i`` changed, its shape, dtype and finiteness kept."""
    a = a.copy()
    flat = a.reshape(-1)
    if a.dtype.kind == "b":
        flat[i] = not flat[i]
    elif a.dtype.kind in "iu":
        flat[i] = flat[i] + 1 if flat[i] < np.iinfo(a.dtype).max else flat[i] - 1
    elif a.dtype.kind == "f":
        flat[i] = flat[i] + 1 if abs(flat[i]) < 1e6 else flat[i] / 2
    else:                                    # a string of the array's width
        old = str(flat[i])
        flat[i] = ("Y" if old[:1] == "Z" else "Z") + old[1:]
    return a


@SETTINGS
@given(data=st.data())
def test_one_value_changed_in_any_array_of_any_model_is_refused(models, data, tmp_path_factory):
    """The class: any model kind, any array, any element, a change that keeps the shape and
    a finite value (a model file edited with numpy and written back)."""
    kind = data.draw(st.sampled_from(sorted(models)), label="kind")
    model, loader, _ = models[kind]
    arrays = _arrays(model)
    names = sorted(k for k, v in arrays.items()
                   if k not in ("meta", "format", "version") and v.size)
    key = data.draw(st.sampled_from(names), label="array")
    i = data.draw(st.integers(0, arrays[key].size - 1), label="element")
    edited = _changed(arrays[key], i)
    assert not np.array_equal(edited, arrays[key]) and edited.shape == arrays[key].shape
    arrays[key] = edited
    bad = tmp_path_factory.mktemp("edited") / "m.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match=re.escape(f"{bad}: ") + ".*" + re.escape(CHANGED)):
        loader(bad)


@SETTINGS
@given(data=st.data())
def test_a_header_value_changed_is_refused(models, data, tmp_path_factory):
    """The header's fields (settings, vocabulary sizes, feature names) are in the digest."""
    kind = data.draw(st.sampled_from(sorted(models)), label="kind")
    model, loader, _ = models[kind]
    arrays = _arrays(model)
    meta = json.loads(bytes(arrays["meta"]).decode())
    key = data.draw(st.sampled_from(sorted(k for k in meta if k not in ("digest", "format",
                                                                         "version"))))
    meta[key] = [meta[key], "edited"]
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    bad = tmp_path_factory.mktemp("edited") / "m.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match=re.escape(CHANGED)):
        loader(bad)


@pytest.mark.parametrize("kind", ["align", "tag", "topics", "segment"])
def test_predict_with_an_edited_model_is_one_line(models, kind, tmp_path, capsys):
    model, loader, predict = models[kind]
    arrays = _arrays(model)
    key = max((k for k, v in arrays.items() if v.dtype.kind == "f"), key=lambda k: arrays[k].size)
    arrays[key] = _changed(arrays[key], 0)
    bad = tmp_path / "edited.npz"
    np.savez(bad, **arrays)
    out = tmp_path / "out"
    rc, _, err = run_cli([*predict, "-m", str(bad), "-o", str(out)], capsys)
    assert one_line_error(rc, err, str(bad), CHANGED, "retrain it or restore the file"), err
    assert not out.exists()
    rc, _, err = run_cli([*predict, "-m", str(model), "-o", str(out)], capsys)
    assert rc in (0, None), err


def test_every_model_file_records_its_digest_and_loads(models):
    for kind, (model, loader, _) in models.items():
        meta = json.loads(bytes(_arrays(model)["meta"]).decode())
        assert str(meta.get("digest", "")).startswith("sha256:"), kind
        loader(model)


def test_a_file_written_before_digests_still_loads(tmp_path):
    """Files written before the digest was recorded (none in the header) load unchecked:
    users' models keep working (no model file is bundled: see the test below)."""
    path = tmp_path / "m.npz"
    save_npz(path, {"coef": np.arange(4.0)}, {"format": "demo", "version": 1})
    arrays = _arrays(path)
    meta = json.loads(bytes(arrays["meta"]).decode())
    del meta["digest"]
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    arrays["coef"] = arrays["coef"] + 1
    np.savez(path, **arrays)
    header, out = load_npz(path, "demo", (1,))
    assert out["coef"].tolist() == [1.0, 2.0, 3.0, 4.0] and "digest" not in header


def test_every_npz_file_of_the_repository_carries_a_digest():
    """Accepting files without a digest is safe for what is shipped: every ``.npz`` file
    tracked in the repository (none today) is one of save_npz with its digest."""
    try:
        listed = subprocess.run(["git", "ls-files", "*.npz"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    for name in listed:
        meta = json.loads(bytes(_arrays(ROOT / name)["meta"]).decode())
        assert str(meta.get("digest", "")).startswith("sha256:"), name


def test_the_same_content_gives_the_same_digest_and_bytes(tmp_path):
    arrays = {"coef": np.linspace(0, 1, 7), "names": np.array(["a", "bé"]), "n": np.int64(3)}
    header = {"format": "demo", "version": 1, "radius": float("inf"), "params": {"c": 0.1}}
    save_npz(tmp_path / "a.npz", arrays, header)
    save_npz(tmp_path / "b.npz", arrays, dict(header, time=5.0))    # a clock reading: dropped
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    h, a = load_npz(tmp_path / "b.npz", "demo", (1,))
    assert content_digest(a, dict(h, shapes={k: list(v.shape) for k, v in a.items()})) == \
        json.loads(bytes(_arrays(tmp_path / "a.npz")["meta"]).decode())["digest"]
    with pytest.raises(FormatError, match=re.escape(CHANGED)):
        arrays2 = _arrays(tmp_path / "a.npz")
        arrays2["names"] = np.array(["a", "be"])
        np.savez(tmp_path / "c.npz", **arrays2)
        load_npz(tmp_path / "c.npz", "demo", (1,))
