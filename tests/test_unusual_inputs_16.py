"""Unusual inputs, sixteenth sweep (issue 28, docs/errors.md): caches, and runs that are
interrupted or share a cache.

Fixed in this sweep:

- a damaged file of a cache folder (``align train --stats DIR/``, the unsupervised HMM's
  ``hmm-<hash>.npz``): cut short, empty, garbage or edited, it was refused with the advice
  of a model file ("retrain it or restore the file", or nothing to do); the file is named
  by its key, so it now says "a damaged cache file: delete it to recompute";
- a statistics file without HMM tables as the unsupervised HMM's cache: read as the HMM;
  now refused as a damaged cache file;
- the unsupervised HMM cache's ``.npz.json`` (training times) cut short or garbage:
  "Expecting value: line 1 column 1 (char 0)" (no file named), and the run stopped; now a
  note names the file and the times are not reported;
- a segmentation graph file (``segment train --memory-efficient``) damaged on disk during
  the run: a bare ``BadZipFile``, ``KeyError: '__kind__'`` or a ``TypeError`` of the
  graph's constructor; now a one-line FormatError naming the file;
- an aligner run's ``keys.npy`` damaged (cut short, garbage, another shape, or edited
  keeping its shape): it was never written again, and a model read it as it was (numpy's
  error, or pairs mapped to other pairs' links); ``align train`` now writes it again with
  a note, and a model refuses a damaged one naming it;
- an aligner run folder of the cache (``bayes-<fp>/``) whose ``meta.json`` or
  ``links.npz`` is cut short, garbage or missing: json's "Expecting value", a
  ``KeyError`` or a model file's advice; now refused naming the folder to delete.

Already handled (recorded as regression tests): a damaged explicit ``--stats`` file (not
a folder: refused, its advice kept), a cache folder under a regular file, an interrupted
cache write (no file and no hidden temporary file left; the next run computes), two runs
writing the same cache at once (both succeed, one valid file), ``--cache-dir`` or
``$STRUCTPRED_CACHE`` naming a file or a path under one (refused before any work), an
output whose folder is removed before the write (made again).  Tried by hand, not kept as
tests (a short ``align train`` with caches takes 4 to 50 s): two ``align train`` runs
started at once on one ``--stats DIR/`` and ``--cache-dir`` (both exit 0, byte-identical
models, no temporary file left), and SIGTERM at 1.8 to 4 s into the run (exit 143, no
hidden temporary file left; the next run completes the cache, including a bayes entry
left without ``keys.npy``, and predicts the same links as an uninterrupted run).
"""

import multiprocessing
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred.io import FormatError, load_npz, load_or_compute, save_npz

#: the advice of a damaged file of a cache folder (structpred.io.DAMAGED_CACHE_HINT)
DAMAGED_CACHE_HINT = "a damaged cache file: delete it to recompute"

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"


class _Obj:
    def __init__(self, value):
        self.value = value
        self.cache_key = None


def _save(obj, path):
    save_npz(path, {"v": np.arange(50.0) * obj.value},
             {"format": "obj", "version": 1, "key": obj.cache_key})


def _load(path):
    header, arrays = load_npz(path, "obj", (1,), "an obj cache")
    obj = _Obj(float(arrays["v"][1]))
    obj.cache_key = header["key"]
    return obj


KEY = {"input": {"hash": "abc"}, "n": 3}


def _damage(path, how, cut):
    raw = Path(path).read_bytes()
    if how == "truncated":
        Path(path).write_bytes(raw[:max(1, int(len(raw) * cut))])
    elif how == "empty":
        Path(path).write_bytes(b"")
    elif how == "garbage":
        Path(path).write_bytes(bytes(range(256)) * 4)
    elif how == "other kind":
        save_npz(path, {"w": np.ones(3)}, {"format": "other-model", "version": 1})
    else:   # edited keeping its shape: the digest catches it
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["v"] = arrays["v"] + 1.0
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)


DAMAGES = st.sampled_from(["truncated", "empty", "garbage", "other kind", "edited"])


# ------------------------------------------------------ class: a damaged cache file
@SETTINGS
@given(how=DAMAGES, cut=st.floats(0.05, 0.95))
def test_a_damaged_file_of_a_cache_folder_is_refused_as_a_cache_to_delete(tmp_path_factory,
                                                                          how, cut):
    folder = str(tmp_path_factory.mktemp("cache")) + os.sep
    load_or_compute(folder, KEY, lambda: _Obj(1.0), _load, _save, "obj")
    (path,) = Path(folder).glob("obj-*.npz")
    _damage(path, how, cut)
    with pytest.raises(FormatError, match=re.escape(str(path)) + ".*"
                       + re.escape(DAMAGED_CACHE_HINT)) as info:
        load_or_compute(folder, KEY, lambda: _Obj(1.0), _load, _save, "obj")
    assert "\n" not in str(info.value) and "retrain" not in str(info.value)
    path.unlink()                                 # what the message says: recomputed
    assert load_or_compute(folder, KEY, lambda: _Obj(2.0), _load, _save, "obj").value == 2.0


@SETTINGS
@given(how=DAMAGES)
def test_a_damaged_explicit_cache_file_is_refused_and_kept(tmp_path_factory, how):
    """A cache *file* the user named is not called a cache to delete (it may be the only
    copy of a model's statistics); it is refused and left as it is."""
    path = tmp_path_factory.mktemp("one") / "stats.npz"
    load_or_compute(path, KEY, lambda: _Obj(1.0), _load, _save, "obj")
    _damage(path, how, 0.5)
    before = path.read_bytes()
    with pytest.raises(FormatError, match=re.escape(str(path))) as info:
        load_or_compute(path, KEY, lambda: _Obj(1.0), _load, _save, "obj")
    assert DAMAGED_CACHE_HINT not in str(info.value)
    assert path.read_bytes() == before


def test_the_command_line_refuses_a_damaged_statistics_cache_in_one_line(tmp_path, capsys):
    from structpred.cli import main

    folder = tmp_path / "stats"
    folder.mkdir()
    bad = folder / "stats-0000000000000000.npz"
    bad.write_bytes(b"PK\x03\x04" + b"\0" * 40)
    args = ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
            str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "5",
            "--stats", str(bad), "--iterations", "2", "-q", "-o", str(tmp_path / "m.npz")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(bad) in err and "Traceback" not in err
    assert not (tmp_path / "m.npz").exists()


# ----------------------------------------------------- class: the cache folder itself
def test_a_cache_folder_under_a_regular_file_is_refused_naming_it(tmp_path):
    (tmp_path / "file").write_text("x\n")
    folder = str(tmp_path / "file" / "cache") + os.sep
    with pytest.raises(OSError, match=re.escape(str(tmp_path / "file"))):
        load_or_compute(folder, KEY, lambda: _Obj(1.0), _load, _save, "obj")
    assert (tmp_path / "file").read_text() == "x\n"


# ------------------------------------------------ class: interrupted and shared runs
@pytest.mark.parametrize("signal_like", [KeyboardInterrupt, SystemExit])
def test_an_interrupted_cache_write_leaves_nothing_a_later_run_reads(tmp_path, signal_like):
    from structpred import atomic_write

    folder = str(tmp_path / "cache") + os.sep

    def save_then_stop(obj, path):
        with atomic_write(path, mode="wb") as fh:
            fh.write(b"PK\x03\x04 half an archive")
            raise signal_like()

    with pytest.raises(signal_like):
        load_or_compute(folder, KEY, lambda: _Obj(1.0), _load, save_then_stop, "obj")
    assert os.listdir(folder) == []                       # no cache, no hidden temp file
    assert load_or_compute(folder, KEY, lambda: _Obj(3.0), _load, _save, "obj").value == 3.0


def _one_run(folder):
    return load_or_compute(folder, KEY, lambda: _Obj(1.0), _load, _save, "obj").value


def test_two_runs_started_at_once_on_one_cache_both_succeed(tmp_path):
    folder = str(tmp_path / "cache") + os.sep
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        assert pool.map(_one_run, [folder] * 6) == [1.0] * 6
    (path,) = Path(folder).glob("obj-*")                  # one file, no temporary left
    assert _load(path).value == 1.0


# -------------------------------------------- class: the unsupervised HMM's cache
SRC = [["the", "house"], ["yes"], ["we", "agree"]] * 3
TGT = [["la", "maison"], ["oui"], ["nous", "accord"]] * 3


@pytest.fixture(scope="module")
def hmm_cache(tmp_path_factory):
    from alignment.aligners.unsupervised import UnsupervisedAligner

    d = tmp_path_factory.mktemp("unsup")
    UnsupervisedAligner().fit(SRC, TGT, cache_dir=d)
    (path,) = d.glob("hmm-*.npz")
    return path


@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "no hmm"])
def test_a_damaged_unsupervised_hmm_cache_is_a_cache_to_delete(hmm_cache, tmp_path, how):
    import shutil

    from alignment.aligners.unsupervised import UnsupervisedAligner
    from alignment.stats.statistics import AlignmentStatistics

    path = tmp_path / hmm_cache.name
    shutil.copy(hmm_cache, path)
    if how == "no hmm":
        stats = AlignmentStatistics.load(hmm_cache)
        stats.hmm = None
        path.unlink()
        stats.save(path)
    else:
        raw = path.read_bytes()
        path.write_bytes({"truncated": raw[:len(raw) // 2], "empty": b"",
                          "garbage": b"\x00\x01" * 300}[how])
    with pytest.raises(FormatError, match=re.escape(str(path)) + ".*"
                       + re.escape(DAMAGED_CACHE_HINT)):
        UnsupervisedAligner().fit(SRC, TGT, cache_dir=tmp_path)
    path.unlink()
    assert UnsupervisedAligner().fit(SRC, TGT, cache_dir=tmp_path).stats_.hmm is not None


@pytest.mark.parametrize("text", ["", "{\"seconds\": ", "[1, 2]", "{\"seconds\": [3]}",
                                  "\udcff"])
def test_a_damaged_timing_file_of_the_hmm_cache_is_noted_not_fatal(hmm_cache, tmp_path,
                                                                    capsys, text):
    import shutil

    from alignment.aligners.unsupervised import UnsupervisedAligner

    shutil.copy(hmm_cache, tmp_path / hmm_cache.name)
    meta = tmp_path / (hmm_cache.name + ".json")
    meta.write_bytes(text.encode("utf-8", "surrogateescape"))
    model = UnsupervisedAligner().fit(SRC, TGT, cache_dir=tmp_path)
    assert model.seconds_ == {"cached": True}
    err = capsys.readouterr().err
    assert str(meta) in err and "Expecting" not in err and "Traceback" not in err


# ---------------------------------------------- class: segmentation's graph files
@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "no kind", "other kind",
                                 "no arrays", "kind not a string"])
def test_a_damaged_graph_file_is_refused_naming_it(tmp_path, how):
    from segmentation.graph_io import load_graph

    path = tmp_path / "g0.npz"
    if how in ("truncated", "empty", "garbage"):
        np.savez(path, __kind__=np.array("PointGraph"), x=np.ones((40, 3)))
        raw = path.read_bytes()
        path.write_bytes({"truncated": raw[:len(raw) // 2], "empty": b"",
                          "garbage": b"\x07" * 500}[how])
    else:
        kind = {"no kind": None, "other kind": "Model", "no arrays": "PointGraph",
                "kind not a string": 3}[how]
        arrays = {} if kind is None else {"__kind__": np.array(kind)}
        np.savez(path, x=np.ones(2), **arrays)
    with pytest.raises(FormatError, match=re.escape(str(path))) as info:
        load_graph(path)
    assert "\n" not in str(info.value)


# ------------------------------------------------ class: an aligner run's keys.npy
KEYS = np.arange(36, dtype=np.uint8).reshape(3, 12)


@pytest.mark.parametrize("how", ["truncated", "garbage", "other shape", "other dtype",
                                 "edited", "pickled"])
def test_a_damaged_keys_file_is_written_again_and_refused_when_read(tmp_path, capsys, how):
    from alignment.features.links import _read_keys, _write_keys

    path = tmp_path / "keys.npy"
    _write_keys(path, KEYS)
    assert np.array_equal(_read_keys(path), KEYS) and capsys.readouterr().err == ""
    raw = path.read_bytes()
    if how == "truncated":
        path.write_bytes(raw[:len(raw) - 7])
    elif how == "garbage":
        path.write_bytes(b"\x93NUMPY garbage")
    elif how == "pickled":
        np.save(path, np.array([{}], dtype=object), allow_pickle=True)
    else:
        np.save(path, {"other shape": KEYS.reshape(4, 9), "other dtype": KEYS.astype(np.int64),
                       "edited": KEYS[::-1].copy()}[how])
    if how != "edited":
        assert _read_keys(path) is None
    _write_keys(path, KEYS)                       # align train on the same bitext
    assert str(path) in capsys.readouterr().err
    assert np.array_equal(np.load(path, allow_pickle=False), KEYS)
    assert [p.name for p in tmp_path.iterdir()] == ["keys.npy"]


# ---------------------------------------------- class: an aligner run's cache entry
@pytest.fixture(scope="module")
def run_entry(tmp_path_factory):
    from alignment.aligners.runs import AlignerRun, LinkSets, _save_run

    d = tmp_path_factory.mktemp("runs") / "bayes-0123"
    links = LinkSets(np.array([0, 1, 2, 2]), np.array([[0, 0], [1, 1]], dtype=np.int32))
    run = AlignerRun("bayes", {}, "0123", "1", 3, 0.0, {"fwd": links, "bwd": links},
                     meta={})
    _save_run(run, d, {"hash": "x"})
    return d


@pytest.mark.parametrize("damage", [
    ("meta.json", b""), ("meta.json", b'{"aligner": '), ("meta.json", b"[1]"),
    ("meta.json", b'{"links_format": "structpred-aligner-run-links"}'),
    ("meta.json", b"\xff\xfe"), ("links.npz", b""), ("links.npz", b"PK\x03\x04cut"),
    ("links.npz", None)])
def test_a_damaged_aligner_run_entry_is_refused_naming_the_folder_to_delete(run_entry,
                                                                            tmp_path, damage):
    import shutil

    from alignment.aligners.runs import load_run

    entry = tmp_path / run_entry.name
    shutil.copytree(run_entry, entry)
    assert load_run(entry).n_pairs == 3
    name, data = damage
    if data is None:
        (entry / name).unlink()
    else:
        (entry / name).write_bytes(data)
    with pytest.raises(FormatError, match=re.escape(str(entry)) + ".*"
                       + re.escape(f"delete the folder {entry} to recompute")) as info:
        load_run(entry)
    assert "\n" not in str(info.value) and "Expecting" not in str(info.value)


@pytest.mark.parametrize("how", ["good", "truncated", "other shape"])
def test_a_model_refuses_a_damaged_keys_file_of_its_run(run_entry, tmp_path, how):
    import shutil

    from alignment.features.links import AlignerLinks

    entry = tmp_path / run_entry.name
    shutil.copytree(run_entry, entry)
    np.save(entry / "keys.npy", KEYS if how != "other shape" else KEYS.reshape(4, 9))
    if how == "truncated":
        raw = (entry / "keys.npy").read_bytes()
        (entry / "keys.npy").write_bytes(raw[:-5])
    links = AlignerLinks(("bayes",))
    links._recorded_runs = {"bayes": {"path": str(entry), "fingerprint": "0123"}}
    links._model_dir = None
    if how == "good":
        assert len(links.check()._index) == 3
        return
    with pytest.raises(RuntimeError, match=re.escape(str(entry / "keys.npy"))
                       + ": a damaged index .*delete it"):
        links.check()


# ------------------------------------------- class: cache folders that cannot be folders
def _w(path, text):
    Path(path).write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("where", ["file", "under a file", "env file"])
def test_align_train_refuses_a_cache_folder_that_is_a_file_before_any_work(tmp_path, capsys,
                                                                           monkeypatch, where):
    from structpred.cli import main

    afile = tmp_path / "afile"
    afile.write_text("x\n")
    args = ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
            str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "5",
            "--iterations", "2", "-q", "-o", str(tmp_path / "m.npz"),
            "--bitext-src", _w(tmp_path / "b.en", "the house .\nyes .\n"),
            "--bitext-tgt", _w(tmp_path / "b.fr", "la maison .\noui .\n")]
    if where == "env file":
        monkeypatch.setenv("STRUCTPRED_CACHE", str(afile))
    else:
        args += ["--cache-dir", str(afile if where == "file" else afile / "sub")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(afile) in err
    assert afile.read_text() == "x\n" and not (tmp_path / "m.npz").exists()


def test_an_output_whose_folder_disappears_before_the_write_is_written(tmp_path):
    import shutil

    from structpred import atomic_write

    folder = tmp_path / "out"
    folder.mkdir()
    shutil.rmtree(folder)                             # removed while the run worked
    with atomic_write(folder / "links.txt") as fh:
        fh.write("0-0\n")
    assert [p.name for p in folder.iterdir()] == ["links.txt"]
