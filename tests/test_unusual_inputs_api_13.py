"""Unusual inputs of the Python API and stored files, thirteenth sweep (issue 28,
docs/errors.md), by class:

- segmentation graph files (``segment train --memory-efficient``, ``segmentation.graph_io``)
  were plain ``np.savez`` archives: a file edited keeping its arrays' shapes (an edge
  list or a feature value changed) was read silently; now they carry the shapes and the
  content digest of the model files (:func:`structpred.io.save_npz`) and an edited one
  is refused in one line naming it; an aligner run's ``meta.json`` and an
  ``UnsupervisedAligner``'s options file (``MODEL.npz.json``), edited, were read too: they
  carry a digest now (:func:`structpred.io.with_digest`);
- the pairs of the quadratic assignment model (``decode_qap``, ``brute_force_qap``,
  ``qap_objective``, ``qap_constraints``, ``project_relaxed_qap``,
  ``ExtendedMatchingExample``) as floats were cut to whole edges silently (``0.5`` was edge
  0), NaN was numpy's "cannot convert float NaN to integer", an ``(n, 3)`` array numpy's
  "cannot reshape"; ``qap_objective`` took no list or Series ("'list' object has no
  attribute 'shape'", "float() argument must be ...") and ``qap_constraints`` no list of
  pairs ("list indices must be integers or slices, not tuple");
- topic labels given as an object array or Series of whole numbers were scikit-learn's
  "Unknown label type: unknown";
- seeds: ``PaMedLDA``/``PaMedHDPClassifier`` with a ``random_state`` of 2**63 - 2 or more
  predicted with Python's "int too big to convert" from the numba fold-in kernel (after a
  fit with a smaller seed in the same process);
- an external-links cache and a run's ``keys.npy`` edited keeping their layout were read
  (links added, pairs given other pairs' links): a digest line, and the keys' digest in
  the model, refuse them;
- sparse matrices given to the fertility and QAP functions were numpy's "setting an array
  element with a sequence"; masked arrays with entries masked were read as the values
  under the mask, silently (core, topic models, segmenter);
- ``project_chain``'s read-only, big-endian or list warm start was a numba typing error;
  ``project_mincut``'s ``p0`` of another size numpy's "could not broadcast";
- float16 bootstrap statistics summed in float16 (stuck at 2048), AER counts of 2.5 cut
  to 2; ``deterministic_split(10, 0)`` a ``ZeroDivisionError``; ``symmetrize`` of an
  ``(n, 2)`` array "unhashable type".

Inputs tried and handled right, kept so by the tests at the end: every decoder, projection
and marginal of the core with arrays of float16, float32, long double, objects, big-endian
bytes, Fortran order, strides, negative strides, read-only, memory-mapped, masked (nothing
masked), lists and pandas objects; the topic models' counts alike; seeds near 2**32, 2**63
and 2**64 and numpy integer types in every estimator and public function.
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



EXT_SRC = [["a", "b"], ["c"], ["d", "e", "f"]]
EXT_TGT = [["x"], ["y", "z"], ["w"]]


@SETTINGS
@given(line=st.integers(0, 3), token=st.sampled_from(["0-0", "", "1-0"]))
def test_an_edited_external_links_cache_is_refused(tmp_path, line, token):
    """A line of an external-links cache changed (a link added, a name) was read, even
    beyond the sentences asked for."""
    from alignment.aligners.linkfiles import ExternalAlignments

    ext = ExternalAlignments(["fwd", "bwd"])
    for s, t, links in zip(EXT_SRC, EXT_TGT, [{(0, 0)}, set(), {(2, 0), (1, 0)}]):
        ext.add(s, t, {"fwd": links, "bwd": {(0, 0)}})
    path = tmp_path / "links.txt"
    ext.save(path, EXT_SRC, EXT_TGT)
    assert ExternalAlignments.load(path, EXT_SRC, EXT_TGT)._table == ext._table
    rows = path.read_text().split("\n")
    rows[line + 1] += ("x" if line == 0 else " " + token if token else " 0-0")
    path.write_text("\n".join(rows))
    with pytest.raises(FormatError, match=re.escape(str(path)) + ": an external-links cache "
                       "changed after it was written .*delete it to recompute"):
        ExternalAlignments.load(path, EXT_SRC[:1], EXT_TGT[:1])



@pytest.mark.parametrize("edit", ["rows swapped", "one byte"])
def test_a_keys_file_edited_keeping_its_shape_is_refused_by_the_model(tmp_path, edit):
    """A run's ``keys.npy`` with two rows swapped (the index of its sentence pairs) passed
    every check and mapped each of those pairs to the other's links; the model records
    the keys' digest now."""
    import alignment.aligners.runs as runs
    from alignment.features.links import AlignerLinks

    path = tmp_path / "bayes-0123"
    links = runs.LinkSets.from_sets([{(0, 0)}, {(0, 1)}, set()])
    run = runs.AlignerRun("bayes", {}, "0123", "1", 3, 0.0, {"fwd": links, "bwd": links})
    runs._save_run(run, path, "b" * 8)
    src, tgt = [["a"], ["b"], ["c", "d"]], [["x", "y"], ["y", "z"], ["w"]]
    trained = AlignerLinks(("bayes",), None, {"bayes": run})
    trained._set_index(src, tgt)
    meta, arrays = trained.state()
    assert AlignerLinks.from_state(meta, arrays).check()._index == trained._index
    keys = np.load(path / "keys.npy")
    if edit == "rows swapped":
        keys = keys[[1, 0, 2]]
    else:
        keys[2, 5] ^= 1
    np.save(path / "keys.npy", keys)
    with pytest.raises(RuntimeError, match=re.escape(f"{path / 'keys.npy'}: a damaged index "
                                                     "of the run's sentence pairs")):
        AlignerLinks.from_state(meta, arrays).check()


# ----------------------------------------------------- class: the pairs of the QAP model
BAD_PAIRS = [([[0.5, 1]], "pairs must hold integers, got 0.5"),
             ([[0, 1.9]], "pairs must hold integers, got 1.9"),
             ([[float("nan"), 1]], "pairs must hold integers, got nan"),
             ([[0, 1, 2]], "pairs must be an (n_pairs, 2) array of edge indices, got shape (1, 3)"),
             (np.array([[True, False]]), "pairs must hold integers, got True"),
             ([[0, 6]], "pair refers to an edge outside the sentence pair (pairs must hold edge "
                        "indices from 0 to 5)")]


def _qap_call(where, pairs):
    import structpred as S

    scores, q = np.ones((2, 3)), [1.0] * (len(np.asarray(pairs).reshape(-1)) // 2 or 1)
    if where == "decode_qap":
        return S.decode_qap(scores, pairs=pairs, pair_scores=q)
    if where == "brute_force_qap":
        return S.brute_force_qap(scores, pairs=pairs, pair_scores=q)
    if where == "qap_objective":
        return S.qap_objective(np.eye(2, 3), scores, None, None, pairs, q)
    if where == "qap_constraints":
        return S.qap_constraints((2, 3), 1, pairs)
    if where == "project_relaxed_qap":
        return S.project_relaxed_qap(np.zeros(6 + len(q)), (2, 3), 1, pairs)
    return S.ExtendedMatchingExample(np.ones((2, 6 + len(q))), np.zeros(6 + len(q)),
                                     shape=(2, 3), pairs=pairs)


QAP_WHERE = ["decode_qap", "brute_force_qap", "qap_objective", "qap_constraints",
             "project_relaxed_qap", "ExtendedMatchingExample"]


@SETTINGS
@given(where=st.sampled_from(QAP_WHERE), case=st.sampled_from(BAD_PAIRS))
def test_pairs_that_are_not_edge_indices_are_refused(where, case):
    """``[[0.5, 1]]`` was the pair of edges 0 and 1, silently."""
    pairs, message = case
    with pytest.raises(ValueError, match=re.escape(message)):
        _qap_call(where, pairs)


@SETTINGS
@given(make=st.sampled_from([lambda a: a.tolist(), lambda a: a.astype(float),
                             lambda a: a.astype(object), lambda a: a.astype(">i8"),
                             lambda a: a.ravel().tolist()]))
def test_qap_functions_take_pairs_and_scores_in_every_container(make):
    """``qap_objective`` of a list was "'list' object has no attribute 'shape'" and
    ``qap_constraints`` of a list "list indices must be integers or slices, not tuple"."""
    import pandas as pd

    import structpred as S

    rng = np.random.default_rng(0)
    scores, src, tgt = rng.normal(size=(3, 4)), rng.random((1, 3)), rng.random((1, 4))
    pairs, q = np.array([[0, 1], [5, 6]]), np.array([0.5, -0.25])
    y = S.decode_qap(scores, src, tgt, pairs, q).y
    base = S.qap_objective(y, scores, src, tgt, pairs, q)
    assert S.qap_objective(y, scores.tolist(), pd.DataFrame(src), tgt.tolist(), make(pairs),
                           pd.Series(q)) == pytest.approx(base)
    A, b = S.qap_constraints((3, 4), 2, pairs)
    A2, b2 = S.qap_constraints((3, 4), 2, make(pairs))
    assert (A != A2).nnz == 0 and np.array_equal(b, b2)


# ------------------------------------------- class: topic labels in an array of objects
@SETTINGS
@given(name=st.sampled_from(["NBSVM", "SdemNaiveBayes", "LDASVM", "PaMedLDA"]),
       make=st.sampled_from(["object", "Series of objects", "column of objects"]))
def test_whole_number_labels_in_an_object_array_are_numbers(name, make):
    """``np.array([0, 1, ...], dtype=object)`` was scikit-learn's "Unknown label type"."""
    import pandas as pd

    import topics

    X = np.random.default_rng(0).integers(0, 4, (16, 8))
    X[:, 0] += 1
    y = np.array([0, 1] * 8)
    given_ = {"object": y.astype(object), "Series of objects": pd.Series(y, dtype=object),
              "column of objects": y.astype(object).reshape(-1, 1)}[make]
    base = getattr(topics, name)(random_state=0).fit(X, y)
    model = getattr(topics, name)(random_state=0).fit(X, given_)
    np.testing.assert_array_equal(model.predict(X), base.predict(X))
    assert model.classes_.dtype.kind == "i"


@pytest.mark.parametrize("labels, message", [
    ([None, 1] * 8, "y[0] is None: every document needs a label"),
    ([1, "1"] * 8, "y mixes labels that are strings and numbers"),
    ([True, 1] * 8, "y mixes labels that are booleans and numbers")])
def test_an_object_array_of_labels_is_checked_as_a_list_is(labels, message):
    from topics import NBSVM

    X = np.random.default_rng(0).integers(1, 4, (16, 8))
    with pytest.raises(ValueError, match=re.escape(message)):
        NBSVM().fit(X, np.array(labels, dtype=object))


def test_string_labels_in_an_object_array_stay_objects():
    from topics import NBSVM

    X = np.random.default_rng(0).integers(1, 4, (16, 8))
    model = NBSVM().fit(X, np.array(["a", "b"] * 8, dtype=object))
    assert model.classes_.dtype == object and list(model.classes_) == ["a", "b"]


# ------------------------------------------------------ class: seeds of 63 bits and more
@pytest.mark.parametrize("name", ["PaMedLDA", "PaMedHDPClassifier"])
@pytest.mark.parametrize("seed", [2 ** 63 - 2, 2 ** 63 - 1, 2 ** 63, 2 ** 64, 10 ** 30,
                                  np.uint64(2 ** 64 - 1)])
def test_fold_in_takes_any_seed(name, seed):
    """A seed from 2**63 - 2 was "int too big to convert" in ``predict`` once the fold-in
    kernel had run with a smaller one; the same seed repeats its result."""
    import topics

    X = np.random.default_rng(0).integers(0, 4, (16, 8))
    X[:, 0] += 1
    y = [0, 1] * 8
    cls = getattr(topics, name)
    cls(random_state=1).fit(X, y).predict(X)     # the kernel compiled for an int64 seed
    first = cls(random_state=seed).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(cls(random_state=seed).fit(X, y).decision_function(X), first)


# ------------------------- kept so: arrays of every layout, byte order and container
def _layout(a, how):
    """``a`` (float64) as another array of the same values."""
    if how == "noncontiguous":
        b = np.zeros(a.shape[:-1] + (2 * a.shape[-1],))
        b[..., ::2] = a
        return b[..., ::2]
    if how == "reversed":
        return a[::-1].copy()[::-1]
    if how == "read-only":
        a = a.copy()
        a.flags.writeable = False
        return a
    if how == "masked":
        return np.ma.masked_array(a)
    if how == "list":
        return a.tolist()
    if how == "Fortran":
        return np.asfortranarray(a)
    return a.astype({"float16": np.float16, "float32": np.float32, "longdouble": np.longdouble,
                     "object": object, "big-endian": ">f8"}[how])


LAYOUTS = ["noncontiguous", "reversed", "read-only", "masked", "list", "float16", "float32",
           "longdouble", "object", "big-endian", "Fortran"]


def _core_calls():
    import structpred as S

    starts, parent = np.array([0, 2, 6]), np.array([-1, 0, 0, 1, 1])
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
    return {
        "project_simplex": (S.project_simplex, {"v": (5,)}),
        "project_matching": (S.project_matching, {"zp": (3, 4)}),
        "decode_matching": (S.decode_matching, {"scores": (3, 4)}),
        "chain_marginals": (lambda node, edge: S.chain_marginals(node, edge, starts),
                            {"node": (6, 3), "edge": (4, 3, 3)}),
        "chain_viterbi": (lambda node, edge: S.chain_viterbi(node, edge, starts),
                          {"node": (6, 3), "edge": (4, 3, 3)}),
        "tree_marginals": (lambda node, edge: S.tree_marginals(node, edge, parent),
                           {"node": (5, 3), "edge": (4, 3, 3)}),
        "decode_mincut": (lambda n, e: S.decode_mincut(n, np.abs(e), edges),
                          {"n": (5,), "e": (4,)}),
        "decode_qap": (lambda s, q: S.decode_qap(s, pairs=[[0, 1], [1, 2]],
                                                 pair_scores=q).y, {"s": (3, 4), "q": (2,)}),
    }


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(_core_calls())), how=st.sampled_from(LAYOUTS),
       seed=st.integers(0, 2 ** 32 - 1), data=st.data())
def test_core_functions_read_every_layout_of_the_same_values(name, how, seed, data):
    """Values exact in float16 (multiples of 1/8), so that every dtype holds them."""
    func, shapes = _core_calls()[name]
    rng = np.random.default_rng(seed)
    args = {k: np.round(rng.normal(size=s) * 8) / 8 for k, s in shapes.items()}
    changed = data.draw(st.sampled_from(sorted(args)))
    base = func(**args)
    out = func(**dict(args, **{changed: _layout(args[changed], how)}))
    for a, b in zip(*(x if isinstance(x, tuple) else (x,) for x in (base, out))):
        np.testing.assert_allclose(np.asarray(b, float), np.asarray(a, float), atol=1e-9)


@settings(max_examples=10, deadline=None)
@given(how=st.sampled_from(["big-endian", "longdouble", "float16", "noncontiguous",
                            "reversed", "read-only", "masked"]))
def test_topic_counts_of_every_layout_give_the_same_model(how):
    from topics import NBSVM, PaMedLDA

    X = np.random.default_rng(0).integers(0, 4, (16, 8)).astype(float)
    X[:, 0] += 1
    y = [0, 1] * 8
    for cls in (NBSVM, PaMedLDA):
        np.testing.assert_array_equal(
            cls(random_state=0).fit(_layout(X, how), y).predict(_layout(X, how)),
            cls(random_state=0).fit(X, y).predict(X))


# ------------------------------------ class: sparse matrices given to the dense decoders
SPARSE = ["csr_matrix", "csc_matrix", "coo_matrix", "lil_matrix", "dok_matrix", "bsr_matrix",
          "csr_array", "coo_array"]


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(["decode_qap", "decode_fertility_matching",
                             "project_fertility_matching", "fertility_indicators",
                             "qap_objective"]),
       fmt=st.sampled_from(SPARSE), seed=st.integers(0, 2 ** 32 - 1))
def test_the_fertility_and_qap_functions_read_a_sparse_matrix_as_its_values(name, fmt, seed):
    """A sparse matrix was numpy's "setting an array element with a sequence" (``dok``:
    "float() argument must be ... not 'dok_matrix'"); the matching decoders took them."""
    import scipy.sparse as sps

    import structpred as S

    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=(3, 4)) * 8) / 8
    a[rng.random((3, 4)) < 0.4] = 0
    calls = {"decode_qap": lambda s: S.decode_qap(s, pairs=[[0, 1]], pair_scores=[0.5]).y,
             "decode_fertility_matching": lambda s: S.decode_fertility_matching(s)[0],
             "project_fertility_matching": lambda s: S.project_fertility_matching(s)[0],
             "fertility_indicators": lambda s: S.fertility_indicators(s, 3),
             "qap_objective": lambda s: S.qap_objective(np.eye(3, 4, dtype=int), s, None,
                                                        None, None, None)}
    given_ = (a != 0).astype(np.int64) if name == "fertility_indicators" else a
    out = calls[name](getattr(sps, fmt)(given_))
    for x, y in zip(*(v if isinstance(v, tuple) else (v,) for v in (calls[name](given_), out))):
        np.testing.assert_allclose(np.asarray(y, float), np.asarray(x, float))


# ------------------------------------------- class: masked arrays with entries masked
def _masked(a, rng):
    a = np.ma.masked_array(np.asarray(a, float))
    a[tuple(rng.integers(0, s) for s in a.shape)] = np.ma.masked
    return a


def _masked_calls():
    import structpred as S
    import topics
    from segmentation import superpixel_graph

    sc, chain = np.ones((3, 4)), ([0, 2, 4], np.zeros((2, 3, 3)))
    return {
        "v": lambda m: S.project_simplex(m(np.ones(4))),
        "scores": lambda m: S.decode_matching(m(sc)),
        "zp": lambda m: S.project_matching(m(sc)),
        "scores ": lambda m: S.decode_qap(m(sc)),
        "edge values": lambda m: S.decode_fertility_matching(m(sc)),
        "node": lambda m: S.chain_marginals(m(np.ones((4, 3))), chain[1], chain[0]),
        "edge": lambda m: S.chain_viterbi(np.ones((4, 3)), m(chain[1]), chain[0]),
        "node_scores": lambda m: S.decode_mincut(m(np.ones(3)), np.ones(2), [[0, 1], [1, 2]]),
        "zp_edges": lambda m: S.project_mincut(np.ones(3), m(np.ones(2)), [[0, 1], [1, 2]]),
        "z_pred": lambda m: S.hamming_loss(np.ones(3), m(np.ones(3))),
        "cost_pos": lambda m: S.weighted_hamming_terms(np.ones(3), cost_pos=m(np.ones(3))),
        "the feature matrix": lambda m: S.SimplexExample(m(np.ones((4, 3))), np.eye(3)[0]),
        "z_gold": lambda m: S.SimplexExample(np.ones((4, 3)), m(np.eye(3)[0])),
        "NBSVM: X": lambda m: topics.NBSVM().fit(m(np.ones((16, 8))), [0, 1] * 8),
        "LDA: X": lambda m: topics.LDA().fit(m(np.ones((16, 8)))),
        "an image": lambda m: superpixel_graph(m(np.full((8, 8, 3), 0.5)), n_segments=4),
        "a mask": lambda m: superpixel_graph(np.full((8, 8, 3), 0.5), n_segments=4,
                                             mask=m(np.eye(8))),
    }


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(_masked_calls())), seed=st.integers(0, 2 ** 32 - 1))
def test_a_masked_array_with_entries_masked_is_refused_naming_it(name, seed):
    """numpy reads a masked array as the values under its mask: each masked entry was used
    as a number, silently (a masked score decoded, a masked count trained on)."""
    rng = np.random.default_rng(seed)
    with pytest.raises(ValueError, match=re.escape(name.strip()) + r" is a masked array with "
                       r"1 masked entry: fill it with the values to use \(\.filled\(value\)\)"):
        _masked_calls()[name](lambda a: _masked(a, rng))


# ------------------------------------- class: statistics and counts of the bootstraps
@settings(max_examples=10, deadline=None)
@given(dtype=st.sampled_from([np.float16, np.float32]), n=st.integers(3000, 6000))
def test_bootstrap_statistics_of_low_precision_are_summed_exactly(dtype, n):
    """float16 sums stop at 2048: 5000 items of 0/1 correctness in float16 gave another
    difference than the same values in float64 (0.2002 for 0.2)."""
    from structpred.selection import paired_bootstrap

    a = (np.arange(n) % 5 != 0).astype(float)
    b = np.ones(n)
    want = paired_bootstrap(a, b, n_boot=20, random_state=0)
    got = paired_bootstrap(a.astype(dtype), b.astype(dtype), n_boot=20, random_state=0)
    assert got.difference == want.difference and got.interval == want.interval


@pytest.mark.parametrize("change, message", [
    (lambda a: a + 0.5, "counts_a must hold integers, got 1.5 (float64)"),
    (lambda a: np.where(a == 1, np.nan, a), "counts_a must hold integers, got nan"),
    (lambda a: -a, "counts_a must hold counts >= 0, got -8")])
def test_aer_bootstrap_counts_must_be_whole(change, message):
    """``np.asarray(counts, np.int64)`` cut 2.5 to 2 and NaN to a huge negative count."""
    from alignment import paired_bootstrap

    a = np.tile(np.arange(1, 9)[:, None], (1, 5))
    assert paired_bootstrap(a.astype(float), a.tolist(), n_boot=5).difference == 0
    with pytest.raises(ValueError, match=re.escape(message)):
        paired_bootstrap(change(a.astype(float)), a, n_boot=5)


# --------------------------------- class: warm starts the chain projection writes into
def _read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


BAD_WARM = [(lambda: (_read_only(np.zeros((2, 3))), np.zeros((2, 3))), "got lam read-only"),
            (lambda: (np.zeros((2, 3)), np.zeros((2, 3)).astype(">f8")),
             "got nu of dtype >f8 and shape (2, 3)"),
            (lambda: (np.zeros((2, 3)).tolist(), np.zeros((2, 3))), "got lam of type list"),
            (lambda: (np.zeros((3, 3)), np.zeros((2, 3))), "got lam of dtype <f8 and shape (3, 3)"),
            (lambda: (np.zeros((2, 3), np.float32), np.zeros((2, 3))),
             "got lam of dtype <f4 and shape (2, 3)"),
            (lambda: (np.zeros((2, 3)),), "got a tuple of 1")]


@SETTINGS
@given(case=st.sampled_from(BAD_WARM))
def test_a_warm_start_the_projection_cannot_write_into_is_refused(case):
    """A read-only, big-endian or list ``warm`` was a numba typing error; an array of more
    rows was read in part, silently."""
    import structpred as S

    make, message = case
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match=re.escape("warm must be a pair (lam, nu) of writable "
                                                  "float64 arrays of shape (2, 3) (the "
                                                  "multipliers, updated in place), " + message)):
        S.project_chain(rng.random((4, 3)), rng.random((2, 3, 3)), [0, 2, 4], warm=make())


def test_a_warm_start_is_updated_in_place_and_gives_the_cold_result():
    import structpred as S

    rng = np.random.default_rng(0)
    node, edge = rng.random((4, 3)), rng.random((2, 3, 3))
    cold = S.project_chain(node, edge, [0, 2, 4])[0]
    for warm in ((np.zeros((2, 3)), np.zeros((2, 3))), np.zeros((2, 2, 3)),
                 (np.zeros((2, 6))[:, ::2], np.zeros((2, 3)))):
        np.testing.assert_allclose(S.project_chain(node, edge, [0, 2, 4], warm=warm)[0], cold,
                                   atol=1e-8)
        assert np.abs(warm[0]).max() > 0


@pytest.mark.parametrize("p0, message", [
    ([0.1], "p0 must be an array of 2 dual flows (one per edge), got 1"),
    ([float("nan"), 0.0], "p0 must hold finite dual flows"),
    (["a", "b"], "p0 must be an array of 2 dual flows (one per edge)")])
def test_project_mincut_names_a_warm_start_that_does_not_fit(p0, message):
    """``p0`` of another size was numpy's "could not broadcast input array"."""
    import structpred as S

    args = (np.full(3, 0.5), np.full(2, 0.2), [[0, 1], [1, 2]])
    base = S.project_mincut(*args)[0]
    np.testing.assert_allclose(S.project_mincut(*args, p0=_read_only([0.5, 0.1]))[0], base)
    with pytest.raises(ValueError, match=re.escape(message)):
        S.project_mincut(*args, p0=p0)


# ------------------------------------------------ class: sizes and fractions of a split
@SETTINGS
@given(case=st.sampled_from([(10, 0.0), (10, float("nan")), (10, 0.7), (10, True),
                             (10.0, 0.1), (True, 0.1), (-1, 0.1), ("10", 0.1)]))
def test_deterministic_split_names_a_size_or_fraction_out_of_range(case):
    """0 was "float division by zero", NaN "cannot convert float NaN to integer", 10.0
    "'float' object cannot be interpreted as an integer", 0.7 held half out, -1 and True
    were splits of no or one sentence."""
    from sequence import deterministic_split

    n, fraction = case
    name = "n" if not isinstance(n, int) or isinstance(n, bool) or n < 0 else "valid_fraction"
    with pytest.raises(ValueError, match=f"^{name} must be "):
        deterministic_split(n, fraction)
    assert deterministic_split(np.int64(10), np.float32(0.1)) == deterministic_split(10, 0.1)


# ----------------------------------------- class: links given as arrays or lists of lists
@SETTINGS
@given(links=st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=8),
       make=st.sampled_from([np.array, lambda v: [list(x) for x in v],
                             lambda v: np.array(v).astype(">i8"),
                             lambda v: np.array(v)[::-1]]),
       method=st.sampled_from(["intersection", "union", "grow-diag-final-and"]))
def test_symmetrize_reads_an_array_or_lists_of_links_as_its_rows(links, make, method):
    """An ``(n, 2)`` array was "unhashable type: 'numpy.ndarray'", ``[[0, 0], ...]``
    "unhashable type: 'list'" (``format_pharaoh`` and ``score_alignments`` took them)."""
    from alignment import symmetrize

    other = {(0, 0), (1, 2), (3, 3)}
    given_ = make(sorted(links)) if links else np.zeros((0, 2), np.int64)
    assert symmetrize(given_, other, method) == symmetrize(links, other, method)
