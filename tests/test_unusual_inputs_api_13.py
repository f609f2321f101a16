"""Unusual inputs of the Python API and stored files, thirteenth sweep (issue 28,
docs/errors.md), by class:

- segmentation graph files (``segment train --memory-efficient``, ``segmentation.graph_io``)
  were plain ``np.savez`` archives: a file edited keeping its arrays' shapes (an edge
  list or a feature value changed) was read silently; now they carry the shapes and the
  content digest of the model files (:func:`structpred.io.save_npz`) and an edited one
  is refused in one line naming it;
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred import FormatError

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


# ------------------------------------------------- class: graph files edited on disk
def _graph(kind):
    from segmentation.features import SuperpixelGraph
    from segmentation.points import PointGraph

    rng = np.random.default_rng(0)
    n, m = 5, 4
    common = dict(node_features=rng.normal(size=(n, 3)),
                  edges=np.array([[0, 1], [1, 2], [2, 3], [3, 4]], dtype=np.int64),
                  edge_features=rng.random((m, 2)), sizes=rng.integers(1, 9, n).astype(float),
                  fg_fraction=rng.random(n), mask=rng.random(12) < 0.5)
    if kind == "SuperpixelGraph":
        return SuperpixelGraph(labels=rng.integers(0, n, (3, 4)).astype(np.int32),
                               ignore=np.zeros((3, 4), bool), **dict(common, mask=np.ones((3, 4), bool)))
    return PointGraph(xyz=rng.normal(size=(12, 3)), labels=rng.integers(0, n, 12),
                      spacing=np.array(0.05), **common)


def _edit(path, key, index):
    """Rewrite the graph file at ``path`` with one value of its array ``key`` changed
    (its shape and dtype kept), the rest of the archive as it was."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k].copy() for k in z.files}
    flat = arrays[key].reshape(-1)
    i = index % flat.size
    flat[i] = (not flat[i]) if flat.dtype == bool else flat[i] + 1
    np.savez(path, **arrays)


@SETTINGS
@given(kind=st.sampled_from(["SuperpixelGraph", "PointGraph"]), data=st.data())
def test_a_graph_file_with_any_value_changed_is_refused(tmp_path, kind, data):
    """An edge or a feature value changed in a graph file (shapes kept) was read."""
    from segmentation.graph_io import load_graph, save_graph

    graph = _graph(kind)
    path = tmp_path / "g.npz"
    save_graph(graph, path)
    keys = sorted(graph.to_arrays())
    _edit(path, data.draw(st.sampled_from(keys)), data.draw(st.integers(0, 10**6)))
    with pytest.raises(FormatError, match=re.escape(str(path)) + ".* changed after it was "
                       "written .*was it changed on disk") as info:
        load_graph(path)
    assert "\n" not in str(info.value) and "retrain" not in str(info.value)


@pytest.mark.parametrize("kind", ["SuperpixelGraph", "PointGraph"])
def test_a_graph_file_reads_back_as_written(tmp_path, kind):
    from segmentation.graph_io import load_graph, save_graph

    graph = _graph(kind)
    save_graph(graph, tmp_path / "g.npz")
    back = load_graph(tmp_path / "g.npz")
    assert type(back) is type(graph)
    for k, v in graph.to_arrays().items():
        np.testing.assert_array_equal(getattr(back, k), v)


def test_a_plain_archive_of_a_graph_is_not_a_graph_file(tmp_path):
    """The layout before the digest (``__kind__`` and the arrays, no header) is refused:
    nothing could tell an edited one."""
    from segmentation.graph_io import load_graph

    path = tmp_path / "g.npz"
    np.savez(path, __kind__=np.array("PointGraph"), **_graph("PointGraph").to_arrays())
    with pytest.raises(FormatError, match=re.escape(str(path)) + ": not a segmentation graph"):
        load_graph(path)


# ---------------------- class: the JSON files beside the arrays (options, cache entries)
@SETTINGS
@given(field=st.sampled_from(["n_pairs", "aligner", "directions", "options", "fingerprint"]))
def test_an_edited_meta_json_of_an_aligner_run_is_refused(tmp_path, field):
    """A cache entry's ``meta.json`` edited (its pair count, its directions) was read."""
    import json

    import alignment.aligners.runs as runs

    path = tmp_path / "entry"
    fwd = runs.LinkSets.from_sets([{(0, 0)}, {(0, 1)}])
    runs._save_run(runs.AlignerRun("eflomal", {"a": 1}, "f" * 8, "1.0", 2, 0.0,
                                   {"fwd": fwd, "bwd": fwd}), path, "b" * 8)
    assert runs.load_run(path).directions["fwd"] == fwd
    meta = json.loads((path / "meta.json").read_text())
    meta[field] = {"n_pairs": 3, "aligner": "fast_align", "directions": ["fwd"],
                   "options": {"a": 2}, "fingerprint": "e" * 8}[field]
    (path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(FormatError, match=re.escape(str(path / "meta.json")) + ".* changed "
                       "after it was written .*" + re.escape(f"delete the folder {path}")):
        runs.load_run(path)


def test_edited_options_of_an_unsupervised_aligner_are_refused(tmp_path):
    """The options beside an ``UnsupervisedAligner``'s tables (``<model>.json``) were read
    as edited (another ``prefix`` normalised the words otherwise)."""
    import json

    from alignment import UnsupervisedAligner

    src, tgt = [["the", "house"], ["a", "car"]] * 2, [["das", "haus"], ["ein", "auto"]] * 2
    path = tmp_path / "m.npz"
    UnsupervisedAligner(hmm_iterations=1, ibm1_iterations=1, ibm2_iterations=0).fit(
        src, tgt).save(path)
    assert UnsupervisedAligner.load(path).prefix == 4
    side = tmp_path / "m.npz.json"
    record = json.loads(side.read_text())
    record["options"]["prefix"] = 2
    side.write_text(json.dumps(record))
    with pytest.raises(FormatError, match=re.escape(str(side)) + ": the options of an "
                       "unsupervised aligner changed after it was written"):
        UnsupervisedAligner.load(path)
