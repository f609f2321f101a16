"""Unusual inputs of the command line and the Python API, twelfth sweep (issue 28,
docs/errors.md): data that does not fit the model, or means something else, by class:

- units: a point cloud in centimetres or millimetres that is small enough to pass the
  ground-grid check of ``segment`` (a crop 20 m across in millimetres, any scan in
  centimetres) was predicted with exit 0 (the voxels, the 2 m ground cells and the
  heights read its coordinates as metres: most points one class); the model now keeps
  its training scans' point spacing (median distance to the nearest point) and a scan
  whose spacing is 20 times it or more, or 1/20 or less, is refused naming both
  (``segment predict``/``eval``; ``segment train`` against the first training scan;
  ``MRFSegmenter.predict_points``/``predict_graph``/``score_graphs`` raise ``ValueError``;
  on a cluster the workers' refusal names the scan, where it named the model file);
- label spaces: ``SequenceTagger.fit`` on chunk tags of two schemes (IOB and IOBES) trained
  a tagger with two labels for one chunk shape (``tag train`` refused them); now one check
  (``sequence.evaluate.check_scheme``) serves both;
- files in the wrong role: ``tag eval`` on the tagger's training file printed its score as
  any other; the tagger now keeps a 64-bit digest of each training sentence (the topic
  models' :func:`structpred.text_digests`) and warns in one line.
"""

import functools
import gzip
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from test_unusual_inputs_11 import _write as _tags   # chunk spans written in a scheme
from segmentation.data import bundled_data_dir, load_points

SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

OAKLAND = bundled_data_dir() / "oakland3d_part2"
#: the project's data store beside the checkout (``../shared``), where it is
STORE = bundled_data_dir().parents[2] / "shared" / "data" / "segmentation" / "oakland3d_part2"
VEGETATION = (1300, 1306)


@functools.lru_cache(maxsize=None)
def _scan(name):
    xyz, lab = load_points(OAKLAND / name)
    return xyz, (lab >= VEGETATION[0]) & (lab <= VEGETATION[1])


def _labelled(name, step=1):
    """``(xyz, labels 0/1 vegetation)`` of every ``step``-th point of a bundled scan."""
    xyz, veg = _scan(name)
    return xyz[::step], veg[::step]


def _crop(xyz, lab, size):
    """The points of a ``size`` m square at the scan's middle (x, y)."""
    mid = np.median(xyz[:, :2], axis=0)
    keep = np.all(np.abs(xyz[:, :2] - mid) <= size / 2, axis=1)
    return xyz[keep], lab[keep]


def _write(path, xyz, lab):
    path.write_text("".join(f"{x:.4f} {y:.4f} {z:.4f} {1300 if v else 1400}\n"
                            for (x, y, z), v in zip(xyz, lab)))
    return path


# -------------------------------------------------------------- class: other units
@pytest.fixture(scope="module")
def scan_model():
    """A model trained (API) on every 10th point of scan 01 (its spacing 0.19 m)."""
    from segmentation.model import MRFSegmenter

    xyz, lab = _labelled("oakland_part2_01.xyz_label_conf.gz", 10)
    m = MRFSegmenter(learner="perceptron", n_iter=3, voxel=0.4, guard=False,
                     valid_fraction=0.0)
    return m.fit([m.point_graph(xyz, lab)])


def test_the_real_scans_spacings_are_near():
    """Every real Oakland scan (the bundled three, the store's ten where present) is
    within the factor of the others: the check refuses none of them."""
    from segmentation.points import SPACING_FACTOR, point_spacing

    files = {f.name: f for f in sorted(OAKLAND.glob("*.gz"))}
    files.update({f.name: f for f in sorted(STORE.glob("*.gz"))} if STORE.is_dir() else {})
    files = list(files.values())
    spacings = [point_spacing(load_points(f)[0]) for f in files]
    assert len(spacings) >= 3
    assert 0.03 < min(spacings) and max(spacings) < 0.08   # metres (docs/results/segmentation.md)
    assert max(spacings) / min(spacings) < SPACING_FACTOR / 1.2   # 1.79 (factor 2.2)


@SETTINGS
@given(scale=st.sampled_from([100.0, 1000.0, 0.01, 0.001]), size=st.sampled_from([12.0, 20.0]))
def test_scans_in_other_units_are_refused(scan_model, scale, size):
    from segmentation.points import point_graph

    xyz, lab = _crop(*_labelled("oakland_part2_06.xyz_label_conf.gz", 10), size)
    scaled = xyz * scale
    if scale > 1:
        point_graph(scaled, voxel=0.4)     # read: the size check of a scan's span passes it
    with pytest.raises(ValueError, match="are its coordinates in other units") as info:
        scan_model.predict_points(scaled)
    assert f"{scan_model.spacing_:.4g}" in str(info.value)
    assert bool(re.search("(centimetres|millimetres) where", str(info.value))) == (scale > 1)
    if scale > 1:     # a graph made without the model's spacing: refused at prediction
        with pytest.raises(ValueError, match="other units"):
            scan_model.predict_graph(scan_model.point_graph(scaled))


@SETTINGS
@given(scale=st.floats(0.8, 1.25), step=st.sampled_from([5, 10, 20]))
def test_scans_in_metres_are_read(scan_model, scale, step):
    """Scans of about the training scans' density (the model's: every 10th point), in
    metres; a scan thinned or densified beyond 2.2 times the spacing (about 5 times the
    points) is refused, as its units are (tests/test_unusual_inputs_api_12.py)."""
    xyz, _ = _labelled("oakland_part2_06.xyz_label_conf.gz", step)
    pred = scan_model.predict_points(xyz * scale)
    assert pred.shape == (xyz.shape[0],) and pred.dtype == bool


def test_graph_files_keep_the_spacing(tmp_path, scan_model):
    """The on-disk graphs of ``memory_efficient`` training keep the spacing."""
    from segmentation.graph_io import load_graph, save_graph

    xyz, lab = _labelled("oakland_part2_08.xyz_label_conf.gz", 20)
    g = scan_model.point_graph(xyz, lab)
    save_graph(g, tmp_path / "g.npz")
    assert float(load_graph(tmp_path / "g.npz").spacing) == pytest.approx(float(g.spacing))


@pytest.fixture(scope="module")
def scan_files(tmp_path_factory):
    """A model trained by the command line on a 3,000-point slice of scan 01, and scans
    of 06: in metres, and in centimetres and millimetres (a crop 20 m across)."""
    from structpred.cli import main

    d = tmp_path_factory.mktemp("scans12")
    xyz, lab = _labelled("oakland_part2_01.xyz_label_conf.gz", 33)
    train = _write(d / "train.xyz", xyz[:3000], lab[:3000])
    assert main(["segment", "train", "--points", str(train), "--foreground-labels",
                 "1300-1306", "--voxel", "0.4", "--iterations", "3", "--learner",
                 "perceptron", "-o", str(d / "m.npz"), "-q"]) == 0
    xyz, lab = _crop(*_labelled("oakland_part2_06.xyz_label_conf.gz", 5), 20.0)
    for name, scale in (("m", 1.0), ("cm", 100.0), ("mm", 1000.0)):
        _write(d / f"scan_{name}.xyz", xyz * scale, lab)
    return d


@pytest.mark.parametrize("unit", ["cm", "mm"])
@pytest.mark.parametrize("command", ["predict", "eval"])
def test_segment_refuses_a_scan_in_other_units(scan_files, tmp_path, capsys, unit, command):
    from segmentation.model import MRFSegmenter

    trained = MRFSegmenter.load(scan_files / "m.npz").spacing_
    scan = scan_files / f"scan_{unit}.xyz"
    argv = ["segment", command, "-m", str(scan_files / "m.npz"), "--points", str(scan)]
    argv += ["-o", str(tmp_path / "out")] if command == "predict" else []
    rc, _, err = run_cli(argv + ["-q"], capsys)
    assert one_line_error(rc, err, f"{scan}:", "point spacing", f"{trained:.4g}",
                          "other units", "centimetres" if unit == "cm" else "millimetres"), err
    assert not (tmp_path / "out").exists()


def test_segment_predict_on_a_cluster_names_the_scan(scan_files, dask_client, tmp_path,
                                                    capsys):
    """The workers' refusal names the scan, not the model (``--scheduler``)."""
    scan = scan_files / "scan_mm.xyz"
    rc, _, err = run_cli(["segment", "predict", "-m", str(scan_files / "m.npz"), "--points",
                          str(scan_files / "scan_m.xyz"), str(scan), "-o", str(tmp_path / "out"),
                          "--scheduler", dask_client.scheduler.address, "-q"], capsys)
    assert one_line_error(rc, err, f"{scan}:", "other units"), err
    assert not (tmp_path / "out").exists()


def test_segment_reads_a_scan_in_metres(scan_files, tmp_path, capsys):
    scan = scan_files / "scan_m.xyz"
    rc, out, err = run_cli(["segment", "eval", "-m", str(scan_files / "m.npz"), "--points",
                            str(scan), "-q"], capsys)
    assert rc == 0 and "1 scan: accuracy" in out, err


def test_segment_train_refuses_scans_of_two_units(scan_files, tmp_path, capsys):
    train, cm = scan_files / "scan_m.xyz", scan_files / "scan_cm.xyz"
    for flag in ("--points", "--valid-points"):
        argv = ["segment", "train", "--points", str(train)]
        argv += [str(cm)] if flag == "--points" else ["--valid-points", str(cm)]
        rc, _, err = run_cli(argv + ["--foreground-labels", "1300-1306", "--voxel", "0.4",
                                     "--iterations", "2", "--learner", "perceptron", "-q",
                                     "-o", str(tmp_path / "m.npz")], capsys)
        assert one_line_error(rc, err, f"{cm}:", f"{train}'s", "other units"), (flag, err)


def test_a_model_without_the_spacing_still_predicts(scan_files, tmp_path, capsys):
    """A model file written before the spacing was kept loads, and is not checked."""
    from segmentation.model import MRFSegmenter
    from structpred.io import load_npz, save_npz

    meta, arrays = load_npz(scan_files / "m.npz", "structpred-mrf-segmenter", range(1, 4))
    assert meta.pop("point_spacing") > 0
    old = tmp_path / "old.npz"
    save_npz(old, dict(arrays), meta)
    assert MRFSegmenter.load(old).spacing_ is None
    rc, out, err = run_cli(["segment", "eval", "-m", str(old), "--points",
                            str(scan_files / "scan_cm.xyz"), "-q"], capsys)
    assert rc == 0 and "accuracy" in out, err


# --------------------------------------- class: chunk tags of two schemes (Python API)
_SPANS = st.lists(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["NP", "VP"])),
                           min_size=1, max_size=4), min_size=2, max_size=5)


@SETTINGS
@given(sentences=_SPANS.filter(lambda ss: any(n for s in ss for n, _ in s)),
       other=st.sampled_from(["iobes", "bilou"]), data=st.data())
def test_fit_refuses_two_schemes(sentences, other, data):
    from sequence import SequenceTagger

    chunky = [k for k, s in enumerate(sentences) if any(n for n, _ in s)]
    iob = data.draw(st.sampled_from(chunky))
    y = [_tags(s, "iob" if k == iob else other) for k, s in enumerate(sentences)]
    y.append(_tags([(1, "NP"), (2, "VP")], other))    # the other scheme's tags occur
    X = [[f"w{i}" for i in range(len(s))] for s in y]
    with pytest.raises(ValueError, match=rf"^sentence {iob}, token \d+: the label .* ends a "
                                         "chunk as IOB writes it"):
        SequenceTagger(learner="perceptron", n_iter=1).fit(X, y)


def test_fit_reads_one_scheme():
    from sequence import SequenceTagger

    y = [_tags([(2, "NP"), (0, "O"), (1, "VP")], "iobes"), _tags([(1, "NP"), (3, "VP")], "iobes")]
    X = [[f"w{i}" for i in range(len(s))] for s in y]
    tagger = SequenceTagger(learner="perceptron", n_iter=1).fit(X, y)
    assert "S-NP" in tagger.classes_


@SETTINGS
@given(sentences=_SPANS.filter(lambda ss: all(any(n for n, _ in s) for s in ss)),
       other=st.sampled_from(["iobes", "bilou"]), valid_other=st.booleans())
def test_validation_tags_of_the_other_scheme_are_refused(sentences, other, valid_other):
    """Training labels of one scheme, validation labels of the other (each alone clean)."""
    from sequence import SequenceTagger

    half = len(sentences) // 2
    # a one-token chunk in every set: B-X in IOB, S-X (U-X) in IOBES (BILOU)
    train = [_tags(s, "iob" if valid_other else other) for s in sentences[:half]]
    valid = [_tags(s, other if valid_other else "iob") for s in sentences[half:]]
    train.append(_tags([(1, "NP"), (2, "VP")], "iob" if valid_other else other))
    valid.append(_tags([(1, "NP"), (2, "VP")], other if valid_other else "iob"))
    X = [[f"w{i}" for i in range(len(s))] for s in train]
    Xv = [[f"w{i}" for i in range(len(s))] for s in valid]
    with pytest.raises(ValueError, match="the validation chunk tags are "
                       + re.escape("IOBES (BILOU)" if valid_other else "IOB") + ", the training"):
        SequenceTagger(learner="perceptron", n_iter=1).fit(X, train, eval_set=(Xv, valid))


def test_tag_train_refuses_validation_tags_of_the_other_scheme(tmp_path, capsys):
    words = [("He", "B-NP"), ("reads", "B-VP"), ("books", "B-NP"), (".", "O")]
    other = [("He", "S-NP"), ("reads", "S-VP"), ("books", "S-NP"), (".", "O")]
    data, valid = tmp_path / "train.txt", tmp_path / "valid.txt"
    data.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in words) for _ in range(4)) + "\n")
    valid.write_text("\n".join(f"{w} {t}" for w, t in other) + "\n")
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "--valid-data", str(valid),
                          "--learner", "perceptron", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{valid}: sentence 1, token 1:",
                          "the validation chunk tags are IOBES (BILOU), the training ones IOB"), err
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------------------- class: the training file as test data
@functools.lru_cache(maxsize=None)
def _sentences():
    """The 100 sentences of the bundled CoNLL-2000 slice, as text."""
    with gzip.open(bundled_data_dir().parent / "sequence" / "conll2000-test-100.txt.gz",
                   "rt") as fh:
        return tuple(s for s in fh.read().split("\n\n") if s.strip())


@pytest.fixture(scope="module")
def tagger_files(tmp_path_factory):
    """A tagger trained on the first 40 sentences of the bundled CoNLL-2000 slice."""
    from structpred.cli import main

    d = tmp_path_factory.mktemp("tag12")
    sentences = _sentences()
    (d / "train.txt").write_text("\n\n".join(sentences[:40]) + "\n")
    (d / "test.txt").write_text("\n\n".join(sentences[40:]) + "\n")
    assert main(["tag", "train", "--data", str(d / "train.txt"), "-o", str(d / "m.npz"),
                 "--learner", "perceptron", "--iterations", "2", "-q"]) == 0
    return d


def _warnings(err):
    return [line for line in err.splitlines() if line.startswith("structpred: warning:")
            and ("sentences the model was trained on" in line
                 or "the data the model was trained on" in line)]


def test_tag_eval_on_the_training_file(tagger_files, capsys):
    train = tagger_files / "train.txt"
    rc, out, err = run_cli(["tag", "eval", "-m", str(tagger_files / "m.npz"), "--data",
                            str(train)], capsys)
    assert rc == 0 and "accuracy" in out
    assert _warnings(err) == [f"structpred: warning: {train} is the data the model was "
                              "trained on (all of its 40 sentences); its score is not a test "
                              "score"], err


@SETTINGS
@given(n_seen=st.integers(0, 12), spaces=st.sampled_from([" ", "  ", "\t"]))
def test_tag_eval_counts_training_sentences(tagger_files, tmp_path_factory, capsys, n_seen,
                                            spaces):
    d, sentences = tagger_files, _sentences()
    test = tmp_path_factory.mktemp("t") / "test.txt"
    seen = [s.replace(" ", spaces) for s in sentences[:n_seen]]
    test.write_text("\n\n".join(list(sentences[40:80]) + seen) + "\n")
    rc, _, err = run_cli(["tag", "eval", "-m", str(d / "m.npz"), "--data", str(test)], capsys)
    assert rc == 0
    warned = _warnings(err)
    if n_seen >= 2 and n_seen >= 0.05 * (40 + n_seen):
        assert len(warned) == 1, err
        assert (f"{test}: {n_seen} of the {40 + n_seen} sentences (the first: sentence 41) "
                "are sentences the model was trained on") in warned[0]
    else:
        assert not warned, err


def test_an_old_tagger_is_read_without_the_warning(tagger_files, tmp_path, capsys):
    from structpred.io import load_npz, save_npz

    d = tagger_files
    meta, arrays = load_npz(d / "m.npz", "structpred-sequence-tagger", (1,))
    assert arrays.pop("training_digests").size == 40
    old = tmp_path / "old.npz"
    save_npz(old, dict(arrays), meta)
    rc, out, err = run_cli(["tag", "eval", "-m", str(old), "--data", str(d / "train.txt")],
                           capsys)
    assert rc == 0 and "accuracy" in out and not _warnings(err), err


def test_the_digests_are_one_function():
    """topics and sequence use structpred's digests (one implementation)."""
    import structpred
    from topics import _persist

    assert _persist.text_digests is structpred.text_digests
    assert structpred.training_overlap(["a  b", "c", "d"],
                                       structpred.text_digests(["a b", "c"])) == (2, 0)
    assert structpred.training_overlap(["x", "y"], None) is None
    with pytest.raises(ValueError, match=re.escape("sentence 2, token 1")):
        from sequence.evaluate import check_scheme

        check_scheme([["S-NP"], ["O"], ["O", "B-NP"]])
