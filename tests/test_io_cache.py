"""structpred.io's model files (save_npz / load_npz), file fingerprints and load_or_compute."""

import numpy as np
import pytest

from structpred.io import (CacheMismatch, FormatError, file_fingerprint, load_npz,
                           load_or_compute, save_npz)


def test_the_fingerprint_sees_a_change_anywhere_in_the_file(tmp_path):
    # issue 28 item 4: the key hashed only the first and last MB (and size and line count)
    rng = np.random.default_rng(0)
    text = "\n".join(" ".join(rng.choice(list("abcdefgh"), 20)) for _ in range(150_000)) + "\n"
    assert len(text) > 3 << 20
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text)
    mid = len(text) // 2
    mid += 1 if text[mid] in " \n" else 0
    b.write_text(text[:mid] + ("a" if text[mid] != "a" else "b") + text[mid + 1:])
    fa, fb = file_fingerprint(a), file_fingerprint(b)
    assert (fa["size"], fa["lines"]) == (fb["size"], fb["lines"])
    assert fa["hash"] != fb["hash"]
    assert file_fingerprint(a) == fa                      # stable


def test_save_and_load_npz(tmp_path):
    path = tmp_path / "m.npz"
    save_npz(path, {"w": np.arange(3.0), "names": np.array(["a", "b"])},
             {"format": "demo-model", "version": 2, "params": {"c": 1.5}})
    header, arrays = load_npz(path, "demo-model", (1, 2), "a demo model")
    assert header == {"format": "demo-model", "version": 2, "params": {"c": 1.5}}
    assert arrays["w"].tolist() == [0.0, 1.0, 2.0] and arrays["names"].tolist() == ["a", "b"]
    with pytest.raises(FormatError, match="m.npz: not a other model .a demo-model file."):
        load_npz(path, "other-model", (2,), "a other model")
    with pytest.raises(FormatError, match="format version 2, which this structpred cannot read"):
        load_npz(path, "demo-model", (1,), "a demo model")
    with pytest.raises(TypeError, match="pickles"):
        save_npz(path, {"o": np.array([{}], dtype=object)}, {"format": "x", "version": 1})
    with pytest.raises(ValueError, match="format"):
        save_npz(path, {}, {"version": 1})


def test_load_npz_reads_the_older_layout(tmp_path):
    # format and version as entries of their own (statistics, HMM tables before structpred.io)
    path = tmp_path / "old.npz"
    np.savez(path, format=np.array("demo-tables"), version=np.array(1), t=np.ones(2))
    header, arrays = load_npz(path, "demo-tables", (1,), "demo tables")
    assert header == {"format": "demo-tables", "version": 1} and set(arrays) == {"t"}
    np.savez(path, version=np.array(1), t=np.ones(2))                  # before the format name
    with pytest.raises(FormatError, match="not demo tables"):
        load_npz(path, "demo-tables", (1,), "demo tables")
    assert load_npz(path, "demo-tables", (1,), "demo tables", legacy_ok=True)[0]["version"] == 1


class _Obj:
    def __init__(self, value):
        self.value = value
        self.cache_key = None


def _save(obj, path):
    save_npz(path, {"v": np.array(obj.value)},
             {"format": "obj", "version": 1, "key": obj.cache_key})


def _load(path):
    header, arrays = load_npz(path, "obj", (1,))
    obj = _Obj(float(arrays["v"]))
    obj.cache_key = header["key"]
    return obj


def test_load_or_compute(tmp_path):
    calls = []

    def compute(v=1.0):
        calls.append(v)
        return _Obj(v)

    key = {"input": {"hash": "abc"}, "n": 3}
    # no cache: computed each time
    assert load_or_compute(None, key, compute, _load, _save, "obj").cache_key == key
    # a folder: one file per key
    folder = str(tmp_path / "cache") + "/"
    for _ in range(2):
        assert load_or_compute(folder, key, compute, _load, _save, "obj").value == 1.0
    load_or_compute(folder, {**key, "n": 4}, lambda: compute(2.0), _load, _save, "obj")
    assert len(calls) == 3 and len(list((tmp_path / "cache").glob("obj-*.npz"))) == 2
    # a file: written when missing, read when its key agrees, never rewritten otherwise
    path = tmp_path / "one.npz"
    load_or_compute(path, key, compute, _load, _save, "obj")
    assert load_or_compute(path, key, compute, _load, _save, "obj").value == 1.0
    assert len(calls) == 4
    with pytest.raises(CacheMismatch, match="one.npz: made with other settings: n: 3 in the "
                                            "cache, 4 asked"):
        load_or_compute(path, {**key, "n": 4}, compute, _load, _save, "obj")
    # without the inputs, an existing file is used as it is
    assert load_or_compute(path, None, compute, _load, _save, "obj").value == 1.0
    with pytest.raises(ValueError, match="a cache folder needs"):
        load_or_compute(folder, None, compute, _load, _save, "obj")


def test_a_key_of_an_older_fingerprint_is_named_as_such():
    from alignment._cache import compare_keys

    old = {"bitext_src": {"size": 10, "lines": 2, "hash": "ab"}}
    new = {"bitext_src": {"size": 10, "lines": 2, "hash": "cd", "hashed": "whole file"}}
    (diff,) = compare_keys(old, new)
    assert diff.startswith("--bitext-src: ") and "first and last MB only" in diff
