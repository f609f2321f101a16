"""More unusual inputs by class, for ``segment``, ``topics`` and ``tag`` (and what they
share in :mod:`structpred.cli` and :mod:`structpred.io`): each is refused with exit status
2 and one line naming the cause, or handled correctly -- before, each of these was a
traceback, a wrong message, a file named ``-`` or a silent wrong result.

Classes: paths (empty option values, a model written to ``-o -``, standard input closed,
a link to nothing), sizes (seeds beyond 32 bits or negative), meaning (every document a
class of its own, documents that are all the same, one topic for a classifier on topic
proportions, images without foreground in truth and prediction, gold without foreground).
"""

import json
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from structpred.io import FormatError, open_text, read_lines

from cli_helpers import one_line_error as _one_line_error
from cli_helpers import run_cli as _run

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


# ------------------------------------------------------------------------ class: paths
def _train_argv(command, d, output):
    data = d / "data.txt"
    data.write_text("a B-NP\nb I-NP\n\nc O\n")
    return {"tag": ["tag", "train", "--data", str(data), "-o", output, "--iterations", "2"],
            "topics": ["topics", "train", "--data", str(data), "--format", "tsv", "--model",
                       "nbsvm", "-o", output],
            "segment": ["segment", "train", "--points", str(data), "--foreground-labels", "1",
                        "-o", output]}[command]


@pytest.mark.parametrize("command", ["tag", "topics", "segment"])
def test_a_model_is_never_written_to_a_file_named_dash(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    rc, _, err = _run(_train_argv(command, tmp_path, "-") + ["-q"], capsys)
    assert _one_line_error(rc, err, "-o -", "standard output")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("where", ["output", "input", "one of several"])
@pytest.mark.parametrize("command", ["tag", "topics", "segment"])
def test_an_empty_value_is_refused_naming_the_option(command, where, tmp_path, monkeypatch,
                                                     capsys):
    monkeypatch.chdir(tmp_path)
    if where == "output":
        argv = _train_argv(command, tmp_path, "")
    elif command == "segment":
        argv = ["segment", "predict", "-m", "m.npz", "-o", "out", "--points"]
        argv += ["", "p.xyz"] if where == "input" else ["p.xyz", ""]
    else:
        argv = [command, "predict", "-m", "m.npz", "--data", ""]
    before = {p.name for p in tmp_path.parent.iterdir()}
    rc, _, err = _run(argv, capsys)
    # before: a hidden temporary file of the folder above was named, or '.' read as a scan
    assert _one_line_error(rc, err, "an empty value")
    assert {p.name for p in tmp_path.parent.iterdir()} == before
    assert {p.name for p in tmp_path.iterdir()} <= {"data.txt"}


def test_a_file_named_by_a_space_is_still_a_file_name():
    import argparse

    from structpred.cli._common import empty_option_values

    args = argparse.Namespace(output=" ", data="", _option_defaults={
        "output": ("--output", "-"), "data": ("--data", "")})
    assert empty_option_values(args) == []   # ' ' is a name; '' left at its default is fine


def test_closed_standard_input_is_a_format_error(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)   # the process was started with <&-
    with pytest.raises(FormatError, match="standard input is closed"):
        list(read_lines("-"))
    with pytest.raises(FormatError, match="standard input is closed"):
        open_text("-")


@pytest.mark.parametrize("kind", ["loop", "dangling"])
def test_a_link_to_nothing_is_named_as_such(kind, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    if kind == "loop":
        a.symlink_to(b)
        b.symlink_to(a)
    else:
        a.symlink_to(tmp_path / "gone")
    with pytest.raises(FormatError, match="symbolic link"):
        list(read_lines(a))


# ------------------------------------------------------------------------ class: sizes
@SETTINGS
@given(seed=st.one_of(st.integers(max_value=-1), st.integers(min_value=2 ** 32)),
       command=st.sampled_from(["tag", "topics", "segment"]))
def test_seeds_beyond_32_bits_or_negative_are_refused_as_seeds(seed, command, tmp_path,
                                                               capsys):
    # before: a numba traceback (topics), or "DATA: expected non-negative integer" naming
    # the data file (tag, segment)
    rc, _, err = _run(_train_argv(command, tmp_path, str(tmp_path / "m.npz"))
                      + [f"--seed={seed}"], capsys)
    assert _one_line_error(rc, err, "argument --seed")


@given(st.integers(0, 2 ** 32 - 1))
def test_every_32_bit_seed_is_accepted(seed):
    from structpred.cli import seed_value

    assert seed_value(str(seed)) == seed


# ------------------------------------------------------------------------ class: meaning
def _jsonl(path, labels, texts):
    path.write_text("".join(json.dumps({"label": lab, "text": t}) + "\n"
                            for lab, t in zip(labels, texts)))


@SETTINGS
@given(n=st.integers(3, 12), tsv=st.booleans())
def test_every_document_a_class_of_its_own_is_refused(n, tsv, tmp_path, capsys):
    texts = [f"word{i} other{i} common" for i in range(n)]
    data = tmp_path / ("d.tsv" if tsv else "d.jsonl")
    if tsv:   # 'text<TAB>label' read as 'label<TAB>text': the texts became the labels
        data.write_text("".join(f"{t}\tlab{i % 2}\n" for i, t in enumerate(texts)))
    else:
        _jsonl(data, [f"c{i}" for i in range(n)], texts)
    rc, _, err = _run(["topics", "train", "--data", str(data), "--model", "nbsvm",
                       "-o", str(tmp_path / "m.npz"), "-q"], capsys)
    # the swapped columns are named where the texts are one word of a few (lab0, lab1)
    assert (_one_line_error(rc, err, "a label of its own")
            or tsv and n >= 4 and _one_line_error(rc, err, "the other way round")), err
    assert not (tmp_path / "m.npz").exists()


@SETTINGS
@given(n=st.integers(2, 10), words=st.lists(st.sampled_from(["apple", "pear", "plum", "fig"]),
                                             min_size=1, max_size=6))
def test_documents_that_are_all_the_same_are_refused(n, words, tmp_path, capsys):
    # before: trained, and predicted one class for everything
    data = tmp_path / "d.jsonl"
    _jsonl(data, ["a", "b"] * n, [" ".join(words)] * (2 * n))
    rc, _, err = _run(["topics", "train", "--data", str(data), "--model", "nbsvm",
                       "--min-df", "1", "-o", str(tmp_path / "m.npz"), "-q"], capsys)
    assert _one_line_error(rc, err, "have the same text")
    # with the choice on validation too, refused before any candidate is fitted
    rc, out, err = _run(["topics", "train", "--data", str(data), "-o", str(tmp_path / "m.npz")],
                        capsys)
    assert _one_line_error(rc, err, "have the same text") and out == ""


@pytest.mark.parametrize("name", ["LDASVM", "GibbsMedLDA", "ImportanceMedLDA", "PaMedLDA"])
def test_one_topic_for_a_classifier_on_topic_proportions_is_refused(name):
    import topics

    est = getattr(topics, name)(n_topics=1)
    X = ["apple pear plum", "car wheel road", "apple plum fig", "road car gear"]
    with pytest.raises(ValueError, match="n_topics must be >= 2"):
        est.fit(X, ["f", "c", "f", "c"])


@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(0, 2 ** 16 - 1),
                          st.floats(0, 1)), min_size=1, max_size=5))
def test_a_perfect_prediction_has_mean_image_iou_1(masks):
    from segmentation.metrics import segmentation_scores

    truths = [np.random.default_rng(s).random((h, w)) < p for h, w, s, p in masks]
    sc = segmentation_scores(truths, truths)
    # before: an image without foreground counted 0 (two empty images of four: 50 %)
    assert sc.mean_image_iou == 1.0
    assert sc.accuracy == 1.0


def test_eval_against_gold_without_foreground_is_refused(tmp_path, capsys):
    for sub in ("i", "m", "p"):
        (tmp_path / sub).mkdir()
    for k in range(2):
        Image.fromarray(np.full((4, 5, 3), 90, np.uint8)).save(tmp_path / "i" / f"x{k}.png")
        Image.fromarray(np.zeros((4, 5), np.uint8)).save(tmp_path / "m" / f"x{k}.png")
        Image.fromarray(np.zeros((4, 5), np.uint8)).save(tmp_path / "p" / f"x{k}.png")
    rc, out, err = _run(["segment", "eval", "--pred", str(tmp_path / "p"), "--images",
                         str(tmp_path / "i"), "--masks", str(tmp_path / "m"), "-q"], capsys)
    # before: "accuracy 100.00% ... foreground IoU 0.00%"
    assert _one_line_error(rc, err, "no foreground pixel", "undefined")
    assert out == ""


# ---------------------------------------------------- class: Python API, values of a kind
def _seq(**kw):
    from sequence.model import SequenceTagger
    return SequenceTagger(learner="perceptron", **kw)


def _topic(name, **kw):
    import topics
    return getattr(topics, name)(**kw)


def _seg(**kw):
    from segmentation.model import MRFSegmenter
    return MRFSegmenter(**{"n_iter": 2, "guard": False, "valid_fraction": 0, **kw})


# each was taken (a silent 0 passes, int(1.5), NaN), or a ZeroDivisionError, a complex
# number, numpy's "expected non-negative integer" or "every must be >= 1"
BAD_PARAMETERS = [
    ("tagger", "n_iter", [0, 1.5, True, float("nan")]),
    ("tagger", "eval_every", [0, 2.5]),
    ("tagger", "patience", [0, -1]),
    ("tagger", "random_state", [-1]),
    ("NBSVM", "max_iter", [0, 1.5]),
    ("NBSVM", "tol", [-1.0, float("nan")]),
    ("SdemNaiveBayes", "n_epochs", [0, 1.5]),
    ("LDASVM", "n_iter", [0, 2.5]),
    ("LDASVM", "n_topics", [2.5, True]),
    ("LDASVM", "beta", [float("inf")]),
    ("GibbsMedLDA", "beta", [float("inf")]),
    ("segmenter", "n_segments", [0, -5, 2.5, [50, 0]]),
    ("segmenter", "compactness", [0, float("nan")]),
    ("segmenter", "feature_scale", [0, float("inf")]),
    ("segmenter", "edge_scale", [-1, float("nan")]),
    ("segmenter", "tol", [float("nan"), -1]),
    ("segmenter", "validate_every", [0]),
    ("segmenter", "colour_components", [0]),
    ("segmenter", "random_state", [-1]),
]


def _fit_with(owner, name, value):
    rng = np.random.default_rng(0)
    if owner == "tagger":
        X = [[("a", "N"), ("b", "V")], [("c", "N")], [("b", "V"), ("a", "N")]]
        y = [["B-NP", "O"], ["B-NP"], ["O", "B-NP"]]
        return _seq(**{name: value}).fit(X, y, eval_set=(X, y))
    if owner == "segmenter":
        images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(2)]
        masks = [rng.random((6, 7)) < 0.5 for _ in range(2)]
        return _seg(**{name: value}).fit(images, masks)
    docs = ["apple pear plum", "car road gear", "apple plum fig", "road car fuel"] * 2
    return _topic(owner, **{name: value}).fit(docs, ["f", "c"] * 4)


@pytest.mark.parametrize("owner,name,value", [(o, n, v) for o, n, vs in BAD_PARAMETERS
                                               for v in vs])
def test_api_parameters_out_of_range_are_refused_naming_them(owner, name, value):
    with pytest.raises(ValueError, match=name):
        _fit_with(owner, name, value)


def test_labels_that_are_not_strings_are_refused_naming_the_token():
    X = [[("a", "N"), ("b", "V")], [("c", "N")]]
    for bad in (0, None, 1.5):
        # before: "object of type 'int' has no len()", or a TypeError of sorting None
        with pytest.raises(TypeError, match=r"sentence 1, token 0: a label must be a string"):
            _seq(n_iter=2).fit(X, [["B-NP", "O"], [bad]])


@pytest.mark.parametrize("y,match", [(["f", "c", None, "c"], r"y\[2\] is None"),
                                     ([1, "1", 2, "2"], "strings and numbers")])
def test_topic_labels_none_or_of_two_kinds_are_refused(y, match):
    # before: a TypeError of sorting None; 1 and "1" merged ("needs at least 2 classes")
    with pytest.raises(ValueError, match=match):
        _topic("NBSVM").fit(["apple pear", "car road", "plum fig", "gear fuel"], y)


def test_documents_given_as_bytes_are_named():
    # before: scikit-learn's "Expected 2D array, got 1D array instead"
    with pytest.raises(TypeError, match="a document must be a string or a list of tokens, got "
                                        "bytes"):
        _topic("NBSVM").fit([b"apple pear", b"car road"], ["f", "c"])


@SETTINGS
@given(n=st.integers(1, 5), data=st.data())
def test_a_sentence_without_tokens_is_predicted_as_no_labels(n, data):
    X = [[("a", "N"), ("b", "V")], [("c", "N")], [("b", "V"), ("a", "N")]]
    y = [["B-NP", "O"], ["B-NP"], ["O", "B-NP"]]
    tagger = _seq(n_iter=2).fit(X, y)
    sents = [X[i % 3] for i in range(n)]
    where = data.draw(st.sets(st.integers(0, n), max_size=n + 1))
    mixed = list(sents)
    for k in sorted(where, reverse=True):
        mixed.insert(k, [])
    # before: "every chain needs at least one token"
    got = tagger.predict(mixed)
    assert [g for g, s in zip(got, mixed) if s] == tagger.predict(sents)
    assert all(g == [] for g, s in zip(got, mixed) if not s)


@SETTINGS
@given(values=st.sets(st.sampled_from([0, 1, 2, 128, 255, 0.5, float("nan"), -1]),
                      min_size=1, max_size=3),
       as_float=st.booleans())
def test_a_mask_of_other_values_than_0_1_or_0_255_is_refused(values, as_float):
    from segmentation.features import as_binary_mask

    vals = sorted(values, key=str)
    mask = np.array([vals * 2], dtype=float if as_float or any(
        isinstance(v, float) for v in vals) else np.int64)
    ok = set(values) <= {0, 1} or set(values) <= {0, 255}
    if ok:
        assert (as_binary_mask(mask) == (mask > 0)).all()
    else:
        # before: every value other than 0 was foreground (0.5, 2, NaN, 128 of a band)
        with pytest.raises(ValueError, match="a mask must be boolean"):
            as_binary_mask(mask)


@pytest.mark.parametrize("shape", [(0, 0, 3), (0, 5, 3), (4, 0, 3)])
def test_an_image_of_no_pixels_is_refused(shape):
    from segmentation.features import as_rgb8

    # before: numpy's "zero-size array to reduction operation minimum"
    with pytest.raises(ValueError, match="no pixels"):
        as_rgb8(np.zeros(shape, np.int64))


# ------------------------------------------------------- class: line breaks in names
LINE_BREAKS = ["\n", "\r", "\v", "\f", "\x1c", "\x85", "\u2028", "\u2029"]


@SETTINGS
@given(brk=st.sampled_from(LINE_BREAKS + ["\t", "\x01", "\x7f"]), folder=st.booleans())
def test_a_label_with_a_line_break_or_control_character_is_refused(brk, folder, tmp_path,
                                                                   capsys):
    # before: trained, and 'topics predict' wrote 'fru' and 'it' on two lines for one document
    if folder:
        data = tmp_path / "docs"
        for label, words in ((f"fru{brk}it", ["apple pear", "pear plum"]),
                             ("cars", ["car road", "road gear"])):
            (data / label).mkdir(parents=True, exist_ok=True)
            for i, w in enumerate(words):
                (data / label / f"{i}.txt").write_text(w)
    else:
        data = tmp_path / "d.jsonl"
        _jsonl(data, [f"fru{brk}it", "cars"] * 3, ["apple pear", "car road", "pear plum",
                                                   "road gear", "plum fig", "gear fuel"])
    rc, _, err = _run(["topics", "train", "--data", str(data), "--model", "nbsvm", "--min-df",
                       "1", "-o", str(tmp_path / "m.npz"), "-q"], capsys)
    assert _one_line_error(rc, err, "control character")


@SETTINGS
@given(brk=st.sampled_from(LINE_BREAKS))
def test_a_file_name_with_a_line_break_keeps_the_error_on_one_line(brk, tmp_path, capsys):
    # before: "structpred: error: a" and "b.txt: no such file" on two lines
    rc, _, err = _run(["tag", "train", "--data", str(tmp_path / f"a{brk}b.txt"), "-o",
                       str(tmp_path / "m.npz")], capsys)
    assert _one_line_error(rc, err, "no such file")


def test_documents_the_same_in_the_vocabulary_only_are_refused(tmp_path, capsys):
    # the texts differ in stop words only: nbsvm's English stop list leaves the same words
    data = tmp_path / "d.jsonl"
    _jsonl(data, ["a", "b"] * 4, ["apple pear the", "apple pear a"] * 4)
    rc, _, err = _run(["topics", "train", "--data", str(data), "--model", "nbsvm",
                       "--min-df", "1", "-o", str(tmp_path / "m.npz"), "-q"], capsys)
    assert _one_line_error(rc, err, "have the same words in the vocabulary")
