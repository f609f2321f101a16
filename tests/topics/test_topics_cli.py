"""``structpred topics train|predict|eval`` on the bundled 20 Newsgroups slice, the input
formats (JSON lines, TSV, folder per class), the model file and bad input."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from structpred.cli import main
from topics._persist import load_model, save_model
from topics._text_io import read_documents
from topics.auto import CANDIDATES
from topics.cli import DEFAULT_MODEL, MODELS, make_estimator
from topics.corpus import BUNDLED_DATA_DIR, Vocabulary, load_jsonl

ROOT = Path(__file__).resolve().parents[2]
STRUCTPRED = Path(sys.executable).parent / "structpred"

#: per model: the fewest iterations / samples that still exercise every code path
FAST = {
    "nbsvm": dict(iterations=5),
    "svm": dict(iterations=5),
    "sdem-nb": dict(iterations=2),
    "sdem-lda": dict(n_topics=2, iterations=1, params={"n_burn": 1, "n_samples": 2}),
    "lda-svm": dict(n_topics=4, iterations=5, params={"n_transform_burn": 2,
                                                      "n_transform_samples": 2, "C": 1.0}),
    "disclda": dict(n_topics=6, iterations=5, params={"n_burn": 2, "n_samples": 3}),
    "medlda-gibbs": dict(n_topics=4, iterations=3, params={"n_burn_in": 2, "n_predict_burn": 2,
                                                           "n_predict_samples": 2}),
    "medlda-is": dict(n_topics=4, iterations=3, params={"n_predict_iter": 2}),
    "pamedlda": dict(n_topics=4, iterations=1, params={"n_transform_burn": 2,
                                                       "n_transform_samples": 2}),
    "pamedhdp": dict(iterations=1, params={"n_transform_burn": 2, "n_transform_samples": 2,
                                           "batch_size": 64}),
}


def _rows(subset, per_class):
    rows = load_jsonl(BUNDLED_DATA_DIR / f"20ng-4groups-{subset}.jsonl.gz")
    out, seen = [], {}
    for r in rows:
        if seen.get(r["label"], 0) < per_class:
            seen[r["label"]] = seen.get(r["label"], 0) + 1
            out.append({"label": r["label"], "text": r["text"]})
    return out


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A 120-document training and 40-document test subset, as JSON lines, TSV and folders."""
    d = tmp_path_factory.mktemp("topics_cli")
    sets = {"train": _rows("train", 30), "test": _rows("test", 10)}
    for name, rows in sets.items():
        with gzip.open(d / f"{name}.jsonl.gz", "wt", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
        (d / f"{name}.tsv").write_text(
            "".join(f"{r['label']}\t{' '.join(r['text'].split())}\n" for r in rows),
            encoding="utf-8")
        for i, r in enumerate(rows):
            f = d / name / r["label"] / f"{i:04d}"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(r["text"], encoding="utf-8")
    return d


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _train(data, tmp_path, capsys, model="sdem-nb", data_file="train.jsonl.gz", extra=()):
    path = tmp_path / f"{model}.npz"
    rc, _, err = _run(["topics", "train", "--data", str(data / data_file), "--model", model,
                       "--iterations", "2", "-o", str(path), *extra], capsys)
    assert rc == 0, err
    return path


# ----------------------------------------------------------------- end to end

def test_train_eval_predict_jsonl(data, tmp_path, capsys):
    model = tmp_path / "m.npz"
    rc, out, err = _run(["topics", "train", "--data", str(data / "train.jsonl.gz"), "-o",
                         str(model)], capsys)
    assert rc == 0, err
    assert "vocabulary of" in err and "model written to" in err
    assert DEFAULT_MODEL == "auto" and "chose " in out
    saved = load_model(model)
    assert saved.model in [c.name for c in CANDIDATES]
    assert saved.info["validation"]["chosen"] == saved.model
    assert saved.labels == ["alt.atheism", "comp.graphics", "sci.space", "talk.religion.misc"]

    rc, out, _ = _run(["topics", "eval", "-m", str(model), "--data", str(data / "test.jsonl.gz"),
                       "--plot", str(tmp_path / "cm.png")], capsys)
    assert rc == 0
    assert "accuracy: " in out and "% (" in out and "of 40 documents" in out
    lines = out.splitlines()
    head = lines.index("confusion matrix (rows: true label, columns: predicted label):")
    table = lines[head + 1:head + 6]
    assert all(lab in table[0] for lab in saved.labels)                 # columns named
    rows = [ln.split() for ln in table[1:]]
    assert [r[0] for r in rows] == saved.labels                         # rows named
    cm = np.array([[int(x) for x in r[1:]] for r in rows])
    assert cm.sum() == 40 and (cm.sum(axis=1) == 10).all()
    acc = float(out.split("accuracy: ")[1].split("%")[0])
    assert acc == pytest.approx(100 * np.trace(cm) / 40, abs=0.01)
    assert (tmp_path / "cm.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    rc, out, _ = _run(["topics", "predict", "-m", str(model), "--data",
                       str(data / "test.jsonl.gz")], capsys)
    pred = out.splitlines()
    assert rc == 0 and len(pred) == 40 and set(pred) <= set(saved.labels)
    truth = [r["label"] for r in load_jsonl(data / "test.jsonl.gz")]
    assert 100 * np.mean(np.array(pred) == np.array(truth)) == pytest.approx(acc, abs=0.01)
    # -o FILE and -o - give the same lines
    rc, _, _ = _run(["topics", "predict", "-q", "-m", str(model), "--data",
                     str(data / "test.jsonl.gz"), "-o", str(tmp_path / "p.txt")], capsys)
    assert (tmp_path / "p.txt").read_text().splitlines() == pred
    rc, out, _ = _run(["topics", "predict", "-m", str(model), "--data",
                       str(data / "test.jsonl.gz"), "-o", "-"], capsys)
    assert out.splitlines() == pred


def test_sdem_nb_on_the_bundled_slice_is_better_than_chance(tmp_path, capsys):
    model = tmp_path / "nb.npz"
    rc, _, _ = _run(["topics", "train", "-q", "--data",
                     str(BUNDLED_DATA_DIR / "20ng-4groups-train.jsonl.gz"), "--model", "sdem-nb",
                     "-o", str(model)], capsys)
    assert rc == 0
    rc, out, _ = _run(["topics", "eval", "-q", "-m", str(model), "--data",
                       str(BUNDLED_DATA_DIR / "20ng-4groups-test.jsonl.gz")], capsys)
    assert float(out.split("accuracy: ")[1].split("%")[0]) > 60.0


def test_tsv_train_and_unlabelled_predict(data, tmp_path, capsys):
    model = _train(data, tmp_path, capsys, data_file="train.tsv")
    rc, out, _ = _run(["topics", "predict", "-m", str(model), "--data", str(data / "test.tsv")],
                      capsys)
    labelled = out.splitlines()
    # the same texts without the label column: a line without a tab is the text
    texts = [ln.split("\t", 1)[1] for ln in (data / "test.tsv").read_text().splitlines()]
    unl = tmp_path / "new.tsv"
    unl.write_text("\n".join(texts) + "\n")
    rc, out, _ = _run(["topics", "predict", "-m", str(model), "--data", str(unl)], capsys)
    assert rc == 0 and out.splitlines() == labelled and len(labelled) == 40
    rc, out, _ = _run(["topics", "eval", "-m", str(model), "--data", str(data / "test.tsv")],
                      capsys)
    assert rc == 0 and "accuracy: " in out


def test_folder_per_class(data, tmp_path, capsys):
    model = _train(data, tmp_path, capsys, data_file="train")
    docs = read_documents(data / "train")
    assert docs.format == "folder" and len(docs) == 120 and docs.classes()[0] == "alt.atheism"
    rc, out, _ = _run(["topics", "eval", "-m", str(model), "--data", str(data / "test")], capsys)
    assert rc == 0 and "of 40 documents" in out
    # prediction: loose files directly in the folder, then the class folders' files
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "a.txt").write_text("the space shuttle orbit launch nasa")
    (loose / "b.txt").write_bytes("graphics image jpeg caf\xe9".encode("latin-1"))
    (loose / ".hidden").write_text("skipped")
    rc, out, _ = _run(["topics", "predict", "-m", str(model), "--data", str(loose)], capsys)
    assert rc == 0 and len(out.splitlines()) == 2


def test_same_model_from_every_format(data, tmp_path, capsys):
    """JSON lines, TSV (whitespace collapsed, so the same tokens) and folders give the same data."""
    a = read_documents(data / "train.jsonl.gz")
    b = read_documents(data / "train.tsv")
    c = read_documents(data / "train")
    assert a.labels == b.labels and sorted(a.labels) == sorted(c.labels)
    va, vb = Vocabulary(min_df=2).fit(a.texts), Vocabulary(min_df=2).fit(b.texts)
    assert va.words_ == vb.words_


# ----------------------------------------------------------------- model files

@pytest.mark.parametrize("model", list(MODELS))
def test_model_file_round_trip(model, data, tmp_path):
    """Every model: predictions (and every stored array) are identical after save + load;
    the file reads with allow_pickle=False."""
    train = read_documents(data / "train.jsonl.gz")
    test = read_documents(data / "test.jsonl.gz")
    vocab = Vocabulary(min_df=2)
    X = vocab.fit_transform(train.texts)
    est = make_estimator(model, seed=3, n_classes=4, **FAST[model])
    est.fit(X, np.asarray(train.labels))
    before = est.predict(vocab.transform(test.texts))
    path = tmp_path / "model.npz"
    skipped = save_model(path, est, model=model, vocabulary=vocab)
    assert skipped == []
    saved = load_model(path)
    assert type(saved.estimator) is type(est) and saved.model == model
    assert saved.estimator.get_params() == est.get_params()
    assert saved.vocabulary.words_ == vocab.words_
    after = saved.estimator.predict(saved.vocabulary.transform(test.texts))
    np.testing.assert_array_equal(after, before)
    assert saved.labels == [str(c) for c in est.classes_]
    for name, value in vars(est).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(saved.estimator, name), value, err_msg=name)
    from structpred.io import load_npz
    from topics._persist import FORMAT

    meta, arrays = load_npz(path, FORMAT, (2,))
    assert meta["model"] == model and meta["params"]["random_state"] == 3
    assert arrays["vocabulary"].tolist() == vocab.words_
    assert arrays["labels"].tolist() == saved.labels
    # a version-1 file (the header as a '__meta__' string entry) still loads
    meta1 = dict(meta, format_version=1)
    del meta1["version"]
    v1 = tmp_path / "v1.npz"
    np.savez(v1, __meta__=np.array(json.dumps(meta1)), **arrays)
    old = load_model(v1)
    np.testing.assert_array_equal(old.estimator.predict(old.vocabulary.transform(test.texts)),
                                  before)


def test_lda_svm_file_holds_the_svm_as_arrays(data, tmp_path):
    train = read_documents(data / "train.jsonl.gz")
    vocab = Vocabulary(min_df=2)
    est = make_estimator("lda-svm", n_classes=4, **FAST["lda-svm"])
    est.fit(vocab.fit_transform(train.texts), np.asarray(train.labels))
    save_model(tmp_path / "m.npz", est, model="lda-svm", vocabulary=vocab)
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        keys = set(z.files)
    assert any(k.endswith("coef_") for k in keys) and any(k.endswith("intercept_") for k in keys)
    assert any(k.endswith("lda_.components_") for k in keys)


def test_tfidf_vocabulary_round_trip(data, tmp_path, capsys):
    """--model sdem-nb keeps its tf-idf words + idf in the file; --weighting and --ngrams
    reach the vocabulary; old files (no 'alphabet' entry) keep their ASCII tokens."""
    path = _train(data, tmp_path, capsys, model="sdem-nb")
    saved = load_model(path)
    v = saved.vocabulary
    assert (v.weighting, v.sublinear_tf, v.norm, v.alphabet) == ("tfidf", True, 3.0, "unicode")
    assert v.idf_ is not None and v.idf_.shape == (len(v.words_),)
    test = read_documents(data / "test.jsonl.gz")
    X = v.transform(test.texts)
    assert np.allclose(np.sqrt(X.multiply(X).sum(axis=1)), 3.0)
    path2 = _train(data, tmp_path, capsys, model="nbsvm",
                   extra=("--weighting", "tfidf", "--ngrams", "1", "--digits"))
    v2 = load_model(path2).vocabulary
    assert v2.weighting == "tfidf" and v2.ngram_range == (1, 1) and v2.digits
    from topics._persist import rebuild_vocabulary, vocabulary_params

    params = vocabulary_params(Vocabulary())
    del params["alphabet"]
    assert rebuild_vocabulary(params, ["conomie"]).transform(["économie"]).sum() == 1


def test_valid_data_and_time_budget(data, tmp_path, capsys):
    model = tmp_path / "m.npz"
    rc, out, err = _run(["topics", "train", "--data", str(data / "train.tsv"), "--valid-data",
                         str(data / "test.tsv"), "-o", str(model)], capsys)
    assert rc == 0, err
    assert out.startswith("validation: 40 validation documents given, candidates fitted on 120")
    assert "(default)" in out and "not tried" in out
    info = load_model(model).info["validation"]
    assert set(info["accuracy"]) >= {"sdem-nb-hinge", "nbsvm", "sdem-nb-ncll", "naive-bayes"}
    assert "--n-topics" in _error(["topics", "train", "--data", str(data / "train.tsv"),
                                   "--n-topics", "5", "-o", str(model)], capsys)


@pytest.mark.parametrize("layout", ["tsv", "folder", "gz"])
def test_binary_files_are_refused_in_one_line(layout, data, tmp_path, capsys):
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    if layout == "tsv":
        f = tmp_path / "x.tsv"
        f.write_bytes(png)
        where = str(f)
    elif layout == "gz":
        f = tmp_path / "x.jsonl.gz"
        f.write_bytes(gzip.compress(b"\x00\x01\x02 binary"))
        where = str(f)
    else:
        f = tmp_path / "docs"
        (f / "a").mkdir(parents=True)
        (f / "b").mkdir()
        (f / "a" / "1.txt").write_text("some text")
        (f / "b" / "image.png").write_bytes(png)
        where = str(f / "b" / "image.png")
    msg = _error(["topics", "train", "--data", str(f), "-o", str(tmp_path / "m.npz")], capsys)
    assert msg.startswith(where + ": not a text file"), msg


# ----------------------------------------------------------------- bad input

def _error(argv, capsys):
    rc, _, err = _run(argv, capsys)
    assert rc == 2
    lines = err.strip().splitlines()        # progress lines (no -q), then one error line
    errors = [ln for ln in lines if ln.startswith("structpred: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], err
    assert "Traceback" not in err
    return errors[0][len("structpred: error: "):]


@pytest.mark.parametrize("name,content,where", [
    ("empty.tsv", "", ":1:"),
    ("blank.jsonl", "\n  \n", ":1:"),
    ("notab.tsv", "a\tone text\nb\tanother\njust text without a label\n", ":3: no tab"),
    ("nolabel.tsv", "a\tone text\n\tno label\n", ":2: empty label"),
    ("bad.jsonl", '{"label": "a", "text": "x"}\n{"label": "b", "text": \n', ":2: malformed JSON"),
    ("nolabel.jsonl", '{"label": "a", "text": "x"}\n\n{"text": "y"}\n', ":3: no 'label' field"),
    ("notext.jsonl", '{"label": "a", "words": "x"}\n', ":1: no 'text' field"),
    ("array.jsonl", '["a", "x"]\n', ":1: expected a JSON object"),
    ("latin1.tsv", "a\tok\nb\tcaf\xe9\n", ":2: bad encoding"),
])
def test_bad_training_input_names_file_and_line(name, content, where, tmp_path, capsys):
    f = tmp_path / name
    f.write_bytes(content.encode("latin-1"))
    msg = _error(["topics", "train", "--data", str(f), "-o", str(tmp_path / "m.npz")], capsys)
    assert msg.startswith(str(f) + where), msg
    assert not (tmp_path / "m.npz").exists()


def test_other_user_errors(data, tmp_path, capsys):
    one = tmp_path / "one.tsv"
    one.write_text("a\tfirst text here\na\tsecond text here\n")
    msg = _error(["topics", "train", "--data", str(one), "-o", str(tmp_path / "m.npz")], capsys)
    assert msg.startswith(f"{one}: training needs at least 2 classes")
    odd = tmp_path / "docs.csv"
    odd.write_text("a,b\n")
    assert str(odd) in _error(["topics", "train", "--data", str(odd), "-o", "m.npz"], capsys)
    assert "no such file" in _error(["topics", "train", "--data", str(tmp_path / "missing.tsv"),
                                     "-o", "m.npz"], capsys)
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "stray.txt").write_text("text")
    assert "not in a class folder" in _error(["topics", "train", "--data", str(loose), "-o",
                                              "m.npz"], capsys)
    assert "no topics" in _error(["topics", "train", "--data", str(data / "train.tsv"), "--model",
                                  "sdem-nb", "--n-topics", "5", "-o", "m.npz"], capsys)
    assert "no parameter 'nonsense'" in _error(
        ["topics", "train", "--data", str(data / "train.tsv"), "--model", "sdem-nb", "--param",
         "nonsense=1", "-o", "m.npz"], capsys)
    # model files that are not models
    txt = tmp_path / "model.npz"
    txt.write_text("not a zip file\n")
    for bad in (txt, tmp_path / "absent.npz"):
        msg = _error(["topics", "predict", "-m", str(bad), "--data", str(data / "test.tsv")], capsys)
        assert msg.startswith(str(bad))
    other = tmp_path / "other.npz"
    np.savez(other, x=np.arange(3))
    assert "not a topic model file" in _error(
        ["topics", "eval", "-m", str(other), "--data", str(data / "test.tsv")], capsys)
    # eval needs labels
    model = _train(data, tmp_path, capsys, data_file="train.tsv")
    unl = tmp_path / "unl.tsv"
    unl.write_text("some text\n")
    assert _error(["topics", "eval", "-m", str(model), "--data", str(unl)],
                  capsys).startswith(f"{unl}:1: no tab")


def test_command_line_program(data, tmp_path):
    """The installed ``structpred`` program: predict to stdout, errors as one line, exit 2."""
    model = tmp_path / "m.npz"
    assert main(["topics", "train", "-q", "--data", str(data / "train.tsv"), "--model", "sdem-nb",
                 "-o", str(model)]) == 0
    res = subprocess.run([str(STRUCTPRED), "topics", "predict", "-m", str(model), "--data",
                          str(data / "test.jsonl.gz")], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr
    assert len(res.stdout.splitlines()) == 40
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"label": "a", "text": "x"}\n{oops}\n')
    res = subprocess.run([str(STRUCTPRED), "topics", "train", "--data", str(bad), "-o",
                          str(tmp_path / "x.npz")], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip().splitlines() == [res.stderr.strip()]
    assert res.stderr.startswith(f"structpred: error: {bad}:2: malformed JSON")


def test_package_exports():
    import topics

    for name in ("LDA", "LDASVM", "DiscLDA", "SdemNaiveBayes", "SdemLDAClassifier", "GibbsMedLDA",
                 "ImportanceMedLDA", "PaMedLDA", "Vocabulary", "tokenize", "load_bundled_20ng",
                 "load_20newsgroups", "read_documents", "load_model", "save_model"):
        assert name in topics.__all__
        assert getattr(topics, name).__name__ == name
    from topics import DiscLDA
    from topics.disclda import DiscLDA as D

    assert DiscLDA is D
    for spec in MODELS.values():
        assert spec.cls in topics.__all__


def test_text_of_other_scripts_end_to_end(tmp_path, capsys):
    """French, Russian and Greek documents: words stay whole and the default separates them."""
    words = {"fr": "économie société élève réforme marché pêche forêt",
             "ru": "экономика общество рынок реформа школа лес рыба",
             "el": "οικονομία κοινωνία αγορά μεταρρύθμιση σχολείο δάσος ψάρι"}
    rng = np.random.default_rng(0)
    for name, n in (("train.tsv", 12), ("test.tsv", 4)):
        lines = [f"{lab}\t{' '.join(rng.choice(w.split(), 5))}"
                 for _ in range(n) for lab, w in words.items()]
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    rc, out, err = _run(["topics", "train", "--data", str(tmp_path / "train.tsv"), "-o",
                         str(model)], capsys)
    assert rc == 0, err
    assert "5-fold cross-validation over the 36" in out
    vocab = load_model(model).vocabulary.words_
    assert {"économie", "экономика", "οικονομία", "μεταρρύθμιση"} <= set(vocab)
    rc, out, _ = _run(["topics", "eval", "-m", str(model), "--data", str(tmp_path / "test.tsv")],
                      capsys)
    assert rc == 0 and "accuracy: 100.00%" in out


def test_stop_word_options(data, tmp_path, capsys):
    stop = tmp_path / "stop.txt"
    stop.write_text("Space\nthe\n")
    words = {}
    for arg in ("english", "none", str(stop)):
        path = _train(data, tmp_path, capsys, model="sdem-nb",
                      extra=("--stop-words", arg, "--ngrams", "1"))
        words[arg] = set(load_model(path).vocabulary.words_)
    assert "the" not in words["english"] and "the" in words["none"]
    assert "space" in words["english"] and "space" not in words[str(stop)]
    assert "the" not in words[str(stop)] and "would" in words[str(stop)]
    assert "no such file" in _error(["topics", "train", "--data", str(data / "train.tsv"),
                                     "--stop-words", str(tmp_path / "absent.txt"), "-o",
                                     str(tmp_path / "m.npz")], capsys)


@pytest.mark.parametrize("model", ["lda-svm", "sdem-lda", "pamedlda"])
def test_a_topic_count_beyond_memory_is_refused_before_training(model, data, tmp_path, capsys):
    """--n-topics is checked against the machine's memory (K x (V + D) float64 at least)
    before anything is allocated: one line naming the option, no MemoryError."""
    out = tmp_path / "m.npz"
    msg = _error(["topics", "train", "--model", model, "--data", str(data / "train.jsonl.gz"),
                  "--n-topics", str(10**12), "-o", str(out)], capsys)
    assert msg.startswith(f"--n-topics {10**12}:") and "GiB" in msg and "fewer topics" in msg
    assert not out.exists()


# ------------------------------------------------------- classes of one document
@settings(max_examples=25, deadline=None)
@given(counts=st.lists(st.integers(1, 5), min_size=2, max_size=8))
def test_classes_of_one_document_are_trained_on_and_named(counts):
    """`--model auto` without --valid-data validates on classes of two documents or more; a
    class of one is always trained on and named in a note (R52's 'platinum' made the default
    command refuse the whole corpus); only a file whose every class has one document, with
    nothing to validate on, is refused."""
    from topics.cli import _check_held_out_classes
    from structpred.cli import UserError

    y = np.array([f"c{k}" for k, n in enumerate(counts) for _ in range(n)])
    docs = type("Docs", (), {"path": "d.jsonl"})()
    notes = []
    args = type("Args", (), {"quiet": False})()
    import topics.cli as tc
    orig = tc._log
    tc._log = lambda a, m: notes.append(m)
    try:
        if max(counts) < 2:
            with pytest.raises(UserError, match=r"d\.jsonl: every class has a single document"):
                _check_held_out_classes(args, docs, y)
        else:
            _check_held_out_classes(args, docs, y)
            singles = [f"'c{k}'" for k, n in enumerate(counts) if n == 1]
            if singles:
                assert len(notes) == 1 and singles[0] in notes[0] and "never held out" in notes[0]
            else:
                assert not notes
    finally:
        tc._log = orig


@settings(max_examples=25, deadline=None)
@given(counts=st.lists(st.integers(1, 12), min_size=2, max_size=6),
       seed=st.integers(0, 100))
def test_cross_validation_trains_every_fold_on_every_class(counts, seed):
    """Documents of classes of two or more are validated once each; the document of a
    class of one is in every fold's training part, so no fold lacks a class."""
    from topics.auto import cross_validation_folds

    y = np.array([f"c{k}" for k, n in enumerate(counts) for _ in range(n)])
    folds = cross_validation_folds(y, 5, seed)
    validated = np.concatenate([v for _, v in folds])
    singles = {f"c{k}" for k, n in enumerate(counts) if n == 1}
    assert sorted(validated.tolist()) == [i for i, c in enumerate(y) if c not in singles]
    for fit, val in folds:
        assert set(y[fit]) == set(y)
        assert not set(fit) & set(val)


def test_a_library_warning_is_one_line(capsys):
    """A warning raised by a library inside a command is one 'structpred: warning:' line,
    without the library's file and line (the command's hook, end to end through
    ``_run_command``; the formatting itself: tests/test_unusual_inputs_8.py)."""
    import argparse
    import warnings

    from structpred.cli._main import _run_command

    def handler(args):
        warnings.warn_explicit("lbfgs failed to converge (status=1):\nSTOP: TOTAL NO. OF "
                               "ITERATIONS REACHED LIMIT.", UserWarning, "sklearn/_x.py", 7)
        return 0

    status = _run_command(argparse.Namespace(debug=False), handler, False)
    err = capsys.readouterr().err
    assert status == 0
    assert err == ("structpred: warning: lbfgs failed to converge (status=1): STOP: TOTAL NO. "
                   "OF ITERATIONS REACHED LIMIT.\n"), err


@pytest.mark.subprocess
def test_the_class_count_guess_of_scikit_learn_is_not_printed(tmp_path):
    """More than half the documents with a class of their own: scikit-learn's guess that
    the labels may be a regression target is not for a user who gave class names."""
    import json as _json

    data = tmp_path / "d.jsonl"
    data.write_text("".join(_json.dumps({"text": f"w{'abcdefghij'[i % 10]}x alpha beta",
                                         "label": f"c{min(i, 19)}"}) + "\n" for i in range(30)))
    proc = subprocess.run([sys.executable, "-m", "structpred", "topics", "train", "--data",
                           str(data), "--model", "nbsvm", "-o", str(tmp_path / "m.npz"), "-q"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # -q keeps the result summary ("trained nbsvm in ..."), the one line printed
    assert [ln for ln in proc.stderr.splitlines()
            if not ln.startswith("trained nbsvm in ")] == [], proc.stderr


def test_sdem_nb_passes_on_a_small_corpus(data, tmp_path, capsys):
    # the default's floor of 6,000 document visits: 50 passes over the 120 documents;
    # --iterations N makes N passes
    path = tmp_path / "floor.npz"
    rc, _, err = _run(["topics", "train", "--data", str(data / "train.jsonl.gz"), "--model",
                       "sdem-nb", "-o", str(path)], capsys)
    assert rc == 0, err
    assert load_model(path).estimator.n_epochs_ == 50
    assert load_model(_train(data, tmp_path, capsys)).estimator.n_epochs_ == 2


def test_topics_train_with_a_class_of_one_document(tmp_path, capsys):
    """End to end: the default command trains on a corpus with a class of one document (it
    refused the corpus), names that class, and the model predicts every class."""
    rows = [("pets", "the cat sat on the mat with a dog"), ("money", "stocks fell on the market"),
            ("pets", "dogs chase cats in the park"), ("money", "the bank raised its rates"),
            ("pets", "my cat sleeps all day long"), ("money", "bond yields rose again today")] * 3
    rows.append(("weather", "heavy rain and strong wind tonight"))
    path = tmp_path / "d.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in rows))
    from cli_helpers import run_cli
    rc, out, err = run_cli(["topics", "train", "--data", str(path), "-o",
                            str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err
    assert "1 of the 3 classes has a single document ('weather')" in err
    from topics import load_model
    assert sorted(map(str, load_model(tmp_path / "m.npz").labels)) == ["money", "pets", "weather"]
