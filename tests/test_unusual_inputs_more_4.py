"""Unusual inputs of segmentation, topics and sequence labelling, sweep 4: each class gets a
one-line refusal naming the cause, or the correct result.

Classes: standard output closed or full; a FIFO given to ``topics --data`` (read once);
n-gram lengths far beyond use (``--ngrams``, ``Vocabulary.ngram_range``); labels that are
one label spelled twice (case, white space, invisible characters, Unicode form) in training,
against a model, and in the Python API; ``tag train`` on fewer sentences than the held-out
step; tagged columns and labels that a column file cannot hold; documents given as a
generator, a set or a dict; vocabulary cut-offs
that are not counts or fractions; positive parameters given as arrays, strings or ``inf``;
topic counts whose tables exceed the machine's memory, in the Python API.
"""

import errno
import os
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred import check_label_spellings, check_positive

from cli_helpers import one_line_error, run_cli

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

CHUNKS = ("a DT B-NP\nb NN I-NP\nc VB B-VP\n\nd DT B-NP\ne NN I-NP\nf VB B-VP\n\n"
          "g DT B-NP\nh NN I-NP\n\n")
DOCS = ['{"label": "fruit", "text": "apple pear plum fig"}',
        '{"label": "car", "text": "road gear fuel wheel"}'] * 3


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A tagger and a topic classifier trained on tiny files, with their data."""
    from sequence.data import read_conll
    from sequence.model import SequenceTagger
    from structpred.cli import main

    d = tmp_path_factory.mktemp("models")
    (d / "chunks.txt").write_text(CHUNKS)
    X, y = read_conll(d / "chunks.txt")
    SequenceTagger(learner="perceptron", n_iter=2).fit(X, y).save(d / "tagger.npz")
    (d / "docs.jsonl").write_text("\n".join(DOCS) + "\n")
    with open(os.devnull, "w") as null:
        old, sys.stdout = sys.stdout, null
        try:
            rc = main(["topics", "train", "--data", str(d / "docs.jsonl"), "--model", "nbsvm",
                       "--min-df", "1", "-q", "-o", str(d / "topics.npz")])
        finally:
            sys.stdout = old
    assert rc == 0
    return d


def _structpred(args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "structpred", *args], env=env, cwd=ROOT,
                          stderr=subprocess.PIPE, text=True, timeout=60, **kw)


# ---------------------------------------------------------------- class: standard output
def test_stdout_closed_is_one_line(models):
    """``>&-``: a traceback (``sys.stdout`` is None) before."""
    r = _structpred(["tag", "eval", "-m", str(models / "tagger.npz"), "--data",
                     str(models / "chunks.txt")], preexec_fn=lambda: os.close(1))
    assert one_line_error(r.returncode, r.stderr, "standard output is closed")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("cmd", ["tag-eval", "topics-eval"])
def test_stdout_full_is_one_line(models, cmd):
    """``> /dev/full``: a traceback (tag) or status 0 with the results lost (topics) before."""
    args = (["tag", "eval", "-m", str(models / "tagger.npz"), "--data",
             str(models / "chunks.txt")] if cmd == "tag-eval" else
            ["topics", "eval", "-q", "-m", str(models / "topics.npz"), "--data",
             str(models / "docs.jsonl")])
    with open("/dev/full", "w") as full:
        r = _structpred(args, stdout=full)
    assert one_line_error(r.returncode, r.stderr, "standard output", "no space left")


def test_atomic_write_names_its_file_on_a_failed_write(tmp_path):
    from structpred.io import atomic_write

    target = tmp_path / "out.txt"
    with pytest.raises(OSError) as info:
        with atomic_write(target) as fh:
            fh.write("x")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert info.value.filename == str(target)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- class: inputs read once
@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_topics_reads_a_fifo_once(models, tmp_path, fmt):
    """The binary check opened the FIFO a second time and the command hung."""
    fifo = tmp_path / f"docs.{fmt}"
    os.mkfifo(fifo)
    text = ("fruit\tapple pear\n" if fmt == "tsv" else DOCS[0] + "\n")

    def feed():
        with open(fifo, "w") as fh:
            fh.write(text)

    threading.Thread(target=feed, daemon=True).start()
    r = _structpred(["topics", "predict", "-m", str(models / "topics.npz"), "--data",
                     str(fifo), "-q"], stdout=subprocess.PIPE)
    assert r.returncode == 0 and r.stdout.split() == ["fruit"]


# ---------------------------------------------------------------- class: n-gram lengths
@SETTINGS
@given(n=st.integers(11, 10**7))
def test_ngrams_beyond_use_refused(models, capsys, n):
    rc, _, err = run_cli(["topics", "train", "--data", str(models / "docs.jsonl"), "-o",
                          str(models / "never.npz"), "--model", "nbsvm", "--ngrams", str(n)],
                         capsys)
    assert one_line_error(rc, err, "--ngrams", "at most 10")


@pytest.mark.parametrize("rng", [(1, 11), (1, 10**6), (1, 2.5), (True, 2), (1.0, 2)])
def test_vocabulary_ngram_range_refused(rng):
    from topics.corpus import Vocabulary

    with pytest.raises(ValueError, match="ngram_range"):
        Vocabulary(ngram_range=rng).fit(["apple pear", "pear plum"])


# ---------------------------------------------------------------- class: label spellings
def _respelled(label, how):
    if how == "upper":
        return label.upper()
    if how == "title":
        return label.title()
    if how == "space":
        return label + " "
    if how == "zero-width":
        return label[:1] + "\u200b" + label[1:]
    return unicodedata.normalize("NFD", label)   # a combining accent instead of one letter


LABELS = st.text(st.sampled_from("abcdefgh-"), min_size=2, max_size=6).filter(
    lambda s: s.strip("-") and s.lower() == s)
HOWS = st.sampled_from(["upper", "title", "space", "zero-width", "nfd"])


@SETTINGS
@given(label=LABELS, how=HOWS)
def test_label_spellings_shared_check(label, how):
    if how == "nfd":
        label = label.replace("e", "\u00e9")
    other = _respelled(label, how)
    if other == label:
        return
    with pytest.raises(ValueError, match="two Unicode normal forms" if how == "nfd" else
                       "differ only in case"):   # the NFD one looked alike, named otherwise
        check_label_spellings([label, "zz", other])
    with pytest.raises(ValueError, match="the model's label"):
        check_label_spellings([other], known=[label, "zz"])
    check_label_spellings([label, "zz"], known=[label, "zz"])      # the same labels: fine


@SETTINGS
@given(how=st.sampled_from(["upper", "title", "zero-width"]))
def test_topics_eval_refuses_labels_spelled_otherwise(models, tmp_path, capsys, how):
    """Before: 'accuracy 0.00%' with a note."""
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(d.replace('"fruit"', f'"{_respelled("fruit", how)}"')
                              for d in DOCS) + "\n")
    rc, _, err = run_cli(["topics", "eval", "-q", "-m", str(models / "topics.npz"), "--data",
                          str(gold)], capsys)
    assert one_line_error(rc, err, f"{gold}:1:", "differ only in case")


def test_topics_train_refuses_class_folders_spelled_twice(tmp_path, capsys):
    for name, words in (("Fruit", "apple pear"), ("fruit", "plum fig"), ("car", "road gear")):
        (tmp_path / "d" / name).mkdir(parents=True)
        for i in range(2):
            (tmp_path / "d" / name / f"{i}.txt").write_text(words)
    rc, _, err = run_cli(["topics", "train", "--data", str(tmp_path / "d"), "--model",
                          "nbsvm", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "'fruit'", "'Fruit'", "differ only in case")
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("cmd", ["train", "eval"])
def test_tag_refuses_labels_spelled_otherwise(models, tmp_path, capsys, cmd):
    """Before: eval scored b-np as a label the model never predicts (chunk F1 near 0);
    train learnt I-NP and i-np as two labels."""
    data = tmp_path / "chunks.txt"
    text = CHUNKS.replace("I-NP", "i-np", 1 if cmd == "train" else -1)
    if cmd == "eval":
        text = text.replace("B-NP", "b-np")
    data.write_text(text)
    argv = (["tag", "train", "--data", str(data), "-q", "--iterations", "2", "-o",
             str(tmp_path / "m.npz")] if cmd == "train" else
            ["tag", "eval", "-m", str(models / "tagger.npz"), "--data", str(data)])
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, str(data), "differ only in case")


@pytest.mark.parametrize("owner", ["SdemNaiveBayes", "NBSVM", "tagger"])
def test_api_refuses_labels_spelled_twice(owner):
    if owner == "tagger":
        from sequence.model import SequenceTagger

        with pytest.raises(ValueError, match="differ only in case"):
            SequenceTagger(learner="perceptron", n_iter=1).fit(
                [[("a",), ("b",)], [("c",)]], [["B-NP", "O"], ["b-np"]])
        return
    import topics

    docs = ["apple pear", "road gear", "plum fig", "fuel car"]
    for y in (["fruit", "car", "Fruit", "car"], np.array(["fruit", "car", "fruit ", "car"])):
        with pytest.raises(ValueError, match="differ only in case"):
            getattr(topics, owner)().fit(docs, y)


# ---------------------------------------------------------------- class: tiny corpora
@pytest.mark.parametrize("n", [2, 3, 9])
def test_tag_train_on_fewer_sentences_than_the_step(tmp_path, capsys, n):
    """Every 10th sentence validates: with 2-9 sentences none did, and the refusal said that
    no validation label occurs in training."""
    data = tmp_path / "few.txt"
    data.write_text("".join(f"w{i} X\nv{i} Y\n\n" for i in range(n)))
    rc, out, err = run_cli(["tag", "train", "--data", str(data), "-q", "--iterations", "2",
                            "-o", str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err
    assert f"trained on all {n} sentences" in out


# ---------------------------------------------------------------- class: unwritable tokens
SPACES = st.text(st.sampled_from(" \t\n\u00a0\u3000"), min_size=1, max_size=2)


@SETTINGS
@given(left=st.text("ab", max_size=2), space=SPACES, right=st.text("ab", max_size=2),
       where=st.sampled_from(["word", "label", "predict"]))
def test_tagger_refuses_what_a_column_file_cannot_hold(models, left, space, right, where):
    from sequence.model import SequenceTagger, load_tagger

    bad = left + space + right
    X = [[("a",), ("b",)], [("c",)]]
    y = [["B-NP", "O"], ["B-NP"]]
    with pytest.raises(ValueError, match="empty or holds white space"):
        if where == "predict":
            load_tagger(models / "tagger.npz").predict([[("x", "DT"), (bad, "NN")]])
        elif where == "word":
            SequenceTagger(n_iter=1).fit([[("a",), (bad,)]] + X[1:], y)
        else:
            SequenceTagger(n_iter=1).fit(X, [["B-NP", bad]] + y[1:])


@pytest.mark.parametrize("bad", ["", "I NP"])
def test_tagger_refuses_empty_labels(bad):
    from sequence.model import SequenceTagger

    with pytest.raises(ValueError, match="the label"):
        SequenceTagger(n_iter=1).fit([[("a",), ("b",)]], [["B-NP", bad]])


# ---------------------------------------------------------------- class: document containers
TOPIC_DOCS = ["apple pear plum", "road gear fuel", "apple fig pear", "car road fuel"] * 2
TOPIC_Y = ["fruit", "car"] * 4


@pytest.mark.parametrize("owner", ["SdemNaiveBayes", "NBSVM", "LDA"])
def test_generators_of_documents_are_read(owner):
    """Before: scikit-learn's 'Expected 2D array, got scalar array'."""
    import topics

    est = getattr(topics, owner)(**({"n_topics": 2, "n_iter": 2} if owner == "LDA" else {}))
    if owner == "LDA":
        est.fit(d for d in TOPIC_DOCS)
        assert est.transform(TOPIC_DOCS[:2]).shape == (2, 2)
    else:
        est.fit((d for d in TOPIC_DOCS), (t for t in TOPIC_Y))
        assert list(est.predict(d for d in TOPIC_DOCS[:2])) == TOPIC_Y[:2]


@pytest.mark.parametrize("kind", [set, dict.fromkeys, frozenset])
def test_unordered_documents_refused(kind):
    import topics

    with pytest.raises(TypeError, match="document order"):
        topics.SdemNaiveBayes().fit(kind(TOPIC_DOCS[:4]), TOPIC_Y[:4])


# ---------------------------------------------------------------- class: vocabulary cut-offs
@pytest.mark.parametrize("params", [{"min_df": float("nan")}, {"min_df": -1}, {"min_df": 2.0},
                                    {"max_df": 1.5}, {"max_features": 1.5},
                                    {"max_features": 0}, {"min_count": 0.5},
                                    {"min_df": True}])
def test_vocabulary_cutoffs_refused(params):
    from topics.corpus import Vocabulary

    name = next(iter(params))
    with pytest.raises(ValueError, match=name):
        Vocabulary(**params).fit(TOPIC_DOCS)


# ---------------------------------------------------------------- class: positive numbers
BAD_POSITIVE = st.one_of(st.just(np.array([0.1, 0.2])), st.just(float("inf")),
                         st.just(float("nan")), st.just({"a": 1}), st.just(True),
                         st.floats(max_value=0.0), st.just("0.1"))


@SETTINGS
@given(value=BAD_POSITIVE)
def test_positive_parameters_refused(value):
    with pytest.raises(ValueError, match="must be a .*number > 0"):
        check_positive("alpha", value)
    from segmentation.examples import class_weights

    with pytest.raises(ValueError, match="class_weight"):
        class_weights(value, 0.3)


@pytest.mark.parametrize("owner,param", [("LDA", "alpha"), ("LDA", "beta"),
                                         ("GibbsMedLDA", "beta")])
def test_topic_priors_given_as_arrays_refused(owner, param):
    """Before: numpy's 'truth value of an array is ambiguous'."""
    import topics

    est = getattr(topics, owner)(n_topics=2, n_iter=1, **{param: np.array([0.1, 0.2])})
    with pytest.raises(ValueError, match=f"{param} must be a .*number > 0"):
        est.fit(TOPIC_DOCS, *([TOPIC_Y] if owner != "LDA" else []))


def test_tagger_radius_given_as_an_array_refused():
    from sequence.model import SequenceTagger

    with pytest.raises(ValueError, match="radius must be a .*number > 0"):
        SequenceTagger(n_iter=1, radius=np.array([1.0, 2.0])).fit([[("a",), ("b",)]],
                                                                   [["X", "Y"]])


# ---------------------------------------------------------------- class: topic tables
@pytest.mark.parametrize("owner", ["LDA", "GibbsMedLDA"])
def test_topics_beyond_memory_refused_in_python(owner):
    """Before: numpy's MemoryError 'Allocation failed'."""
    import topics

    est = getattr(topics, owner)(n_topics=10**10, n_iter=1)
    with pytest.raises(ValueError, match="topic tables alone"):
        est.fit(TOPIC_DOCS, *([TOPIC_Y] if owner != "LDA" else []))


# -------------------------- class: the same input twice, ambiguous files, misread formats
@pytest.mark.parametrize("other", [".bmp", ".jpg", ".PNG"])
def test_two_masks_of_one_stem_are_refused(other, tmp_path):
    # before: the .png one was taken silently
    from structpred import FormatError
    from segmentation.data import StemIndex

    (tmp_path / "a.png").write_bytes(b"x")
    (tmp_path / f"a{other}").write_bytes(b"x")
    (tmp_path / "b.png").write_bytes(b"x")
    index = StemIndex(tmp_path)
    assert index.find("b") == tmp_path / "b.png"
    with pytest.raises(FormatError, match="two files for a"):
        index.find("a")


@SETTINGS
@given(label=st.sampled_from(["sport", "é", "1"]), header=st.booleans())
def test_json_lines_read_as_tsv_are_refused(label, header, tmp_path, capsys):
    # before: every raw JSON line was classified (predict) or was one unlabeled text
    import json as _json

    path = tmp_path / "docs.jsonl"
    body = "".join(_json.dumps({"label": lab, "text": t}) + "\n"
                   for lab, t in ((label, "a b c"), ("other", "d e f")))
    path.write_text(("label\ttext\n" if header else "") + body, encoding="utf-8")
    rc, _, err = run_cli(["topics", "train", "--data", str(path), "--format", "tsv",
                          "--model", "nbsvm", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "JSON", "--format jsonl"), err


@SETTINGS
@given(key=st.sampled_from(["label", "text", "id"]))
def test_a_json_field_given_twice_is_refused(key, tmp_path, capsys):
    # before: json kept the last value silently
    values = {"label": '"a"', "text": '"x y"', "id": "1"}
    first = '{"label": "a", "text": "x y", "id": 1, "%s": %s}\n' % (key, values[key])
    path = tmp_path / "docs.jsonl"
    path.write_text(first + '{"label": "b", "text": "z w"}\n', encoding="utf-8")
    rc, _, err = run_cli(["topics", "train", "--data", str(path), "--model", "nbsvm", "-q",
                          "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{path}:1", f"'{key}' is given twice"), err
