"""The sequence package: column files, feature templates, conlleval scoring, the tagger
(all three learners) and ``structpred tag train|predict|eval`` on the bundled slices."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone

from sequence.data import deterministic_split, read_conll
from sequence.evaluate import chunks, evaluate, f1_from_counts, is_iob, sentence_stats
from sequence.features import (FeatureCodes, FeatureIndex, sentence_features, token_features,
                               word_shape)
from sequence.model import SequenceTagger, load_tagger
from structpred.cli import main
from structpred.io import FormatError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "sequence"
TRAIN = DATA / "conll2000-train-300.txt.gz"
TEST = DATA / "conll2000-test-100.txt.gz"
POS = DATA / "treebank-pos-200.txt.gz"


@pytest.fixture(scope="module")
def chunking():
    X, y = read_conll(TRAIN)
    Xt, yt = read_conll(TEST)
    return X[:150], y[:150], Xt[:50], yt[:50]


# ------------------------------------------------------------------ files
def test_read_conll_slices():
    X, y = read_conll(TRAIN)
    assert len(X) == 300 and len(y) == 300
    assert X[0][0] == ("Confidence", "NN") and y[0][0] == "B-NP"
    Xp, yp = read_conll(POS)
    assert len(Xp) == 200 and len(Xp[0][0]) == 1


def test_read_conll_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("a DT B-NP\nb NN\n\n")
    with pytest.raises(FormatError, match=r"bad.txt:2: expected 3 columns, found 2"):
        read_conll(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(FormatError, match="no sentences"):
        read_conll(empty)
    one = tmp_path / "one.txt"
    one.write_text("word\n")
    with pytest.raises(FormatError, match="one.txt:1"):
        read_conll(one)


def test_deterministic_split_is_a_partition():
    tr, va = deterministic_split(95, 0.1)
    assert sorted(tr + va) == list(range(95)) and va[:2] == [9, 19]
    assert deterministic_split(95, 0.1) == (tr, va)


# --------------------------------------------------------------- features
def test_feature_templates():
    sent = [("He", "PRP"), ("reckons", "VBZ"), ("1,234", "CD")]
    f = sentence_features(sent, "window")
    assert "w[-1]=he" in f[1] and "p[1]=CD" in f[1] and "w[2]=</s>" in f[2]
    assert "p[-1]|p[0]=PRP|VBZ" in f[1] and not any(s.startswith("suf") for s in f[1])
    g = sentence_features(sent, "full")
    assert set(f[1]) < set(g[1]) and "suf3=ons" in g[1] and "s[1]=d,d" in g[1]
    assert word_shape("McDonald's") == "XxXx'x"
    words_only = sentence_features([("Hello",), ("world",)], "full")
    assert not any(s.startswith("p[") for s in words_only[0])
    idx = FeatureIndex.from_features([g])
    x, lengths = idx.transform([g, sentence_features([("unseen-word", "NN")])])
    assert x.shape == (4, len(idx)) and list(lengths) == [3, 1]
    assert x[3].nnz < len(sentence_features([("unseen-word", "NN")])[0])


# ---------------------------------------------------------------- scoring
def test_conlleval_chunk_rules():
    tags = ["B-NP", "I-NP", "O", "I-VP", "I-VP", "B-NP", "B-NP", "I-PP", "I-NP"]
    assert chunks(tags) == {(0, 1, "NP"), (3, 4, "VP"), (5, 5, "NP"), (6, 6, "NP"),
                            (7, 7, "PP"), (8, 8, "NP")}
    assert chunks(["O", "O"]) == set()
    assert is_iob({"B-NP", "I-NP", "O"}) and not is_iob({"NN", "VB"})
    gold = [["B-NP", "I-NP", "O"], ["B-VP"]]
    pred = [["B-NP", "B-NP", "O"], ["B-VP"]]
    s = evaluate(gold, pred)
    assert s["chunks_correct"] == 1 and s["chunks_predicted"] == 3 and s["chunks_gold"] == 2
    assert s["f1"] == pytest.approx(100 * 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert s["accuracy"] == pytest.approx(75.0)
    assert f1_from_counts(sentence_stats(gold, pred, True)) == pytest.approx(s["f1"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["NP", "VP", None])),
                min_size=1, max_size=8))
def test_chunks_of_iob2_tags_round_trip(spans):
    """Chunks written as IOB2 tags are read back exactly (None: O tokens)."""
    tags, expected, i = [], set(), 0
    for length, typ in spans:
        n = length + 1
        if typ is None:
            tags += ["O"] * n
        else:
            tags += ["B-" + typ] + ["I-" + typ] * (n - 1)
            expected.add((i, i + n - 1, typ))
        i += n
    assert chunks(tags) == expected


# ----------------------------------------------------------------- tagger
@pytest.mark.slow
@pytest.mark.parametrize("learner,n_iter", [("bregman", 15), ("perceptron", 3)])
def test_tagger_learns_and_round_trips(chunking, tmp_path, learner, n_iter):
    X, y, Xt, yt = chunking
    tagger = SequenceTagger(learner=learner, n_iter=n_iter, eval_every=5, step_scale=10.0,
                            batch_size=64)
    tagger.fit(X, y, eval_set=(Xt, yt))
    assert tagger.iob_ and tagger.n_iter_ <= n_iter
    assert tagger.score(X, y) > 0.6             # it fits its training sentences
    pred = tagger.predict(Xt)
    assert [len(p) for p in pred] == [len(s) for s in Xt]
    path = tmp_path / "m.npz"
    tagger.save(path)
    back = load_tagger(path)
    assert back.predict(Xt) == pred
    assert clone(tagger).get_params() == tagger.get_params()


def test_euclidean_learner_runs_on_a_few_sentences(chunking):
    X, y, _, _ = chunking
    tagger = SequenceTagger(learner="euclidean", n_iter=3, step_scale=10.0).fit(X[:5], y[:5])
    assert np.all(np.isfinite(tagger.coef_)) and tagger.n_iter_ == 3


def test_relative_radius_bounds_the_weights_and_round_trips(chunking, tmp_path):
    """``radius=None``: the ball's radius is ``relative_radius * sqrt(N)``; the averaged
    weights stay inside it; the count scaling uses ``count ** -scale_power``; a model
    file keeps the radius, the powers and the infinite parameters."""
    X, y, _, _ = chunking
    X, y = X[:20], y[:20]
    n_tokens = sum(len(s) for s in X)
    tagger = SequenceTagger(n_iter=4, relative_radius=0.05, scale_power=0.4,
                            batch_size=8).fit(X, y)
    assert tagger.radius_ == pytest.approx(0.05 * np.sqrt(n_tokens))
    assert np.linalg.norm(tagger.coef_) <= tagger.radius_ * (1 + 1e-9)
    counts = 1.0 / FeatureIndex.from_features([sentence_features(s) for s in X], 2).scale ** 2
    assert tagger.features_.scale == pytest.approx(counts ** -0.4)
    K = len(tagger.classes_)
    assert tagger.label_scale_ == pytest.approx((K / n_tokens) ** 0.4)
    path = tmp_path / "r.npz"
    tagger.save(path)
    back = load_tagger(path)
    assert back.radius_ == pytest.approx(tagger.radius_)
    assert back.relative_radius == 0.05 and back.scale_power == 0.4
    assert back.predict(X) == tagger.predict(X)
    unbounded = SequenceTagger(n_iter=2, radius=np.inf, batch_size=8).fit(X[:5], y[:5])
    unbounded.save(path)
    back = load_tagger(path)
    assert back.radius == np.inf and back.radius_ == np.inf
    assert back.get_params()["relative_radius"] == unbounded.relative_radius
    with pytest.raises(ValueError, match="relative_radius"):
        SequenceTagger(relative_radius=0.0).fit(X, y)
    with pytest.raises(ValueError, match="scale_power"):
        SequenceTagger(scale_power=2.0).fit(X, y)


def test_tagger_rejects_bad_parameters(chunking):
    X, y, _, _ = chunking
    with pytest.raises(ValueError, match="learner"):
        SequenceTagger(learner="sgd").fit(X, y)
    with pytest.raises(ValueError, match="feature_set"):
        SequenceTagger(feature_set="all").fit(X, y)
    with pytest.raises(TypeError):
        SequenceTagger().fit(X, y, X[:2], y[:2])   # validation only through eval_set=
    with pytest.raises(ValueError, match="eval_set"):
        SequenceTagger().fit(X, y, eval_set=(X[:2], y[:1]))
    with pytest.raises(ValueError, match="eval_set"):
        SequenceTagger().fit(X, y, eval_set=X[:3])


def test_load_tagger_rejects_other_files(tmp_path):
    p = tmp_path / "x.npz"
    np.savez(p, a=np.zeros(3))
    with pytest.raises(FormatError, match="not a sequence tagger model"):
        load_tagger(p)


@pytest.mark.parametrize("min_count", [1, 2, 3])
def test_feature_codes_give_what_the_feature_index_gives_on_the_strings(min_count):
    """The encoded groups (training, validation) give the index and the matrices that
    FeatureIndex gives on the strings: of the training group alone (validation strings
    unseen in training dropped) and of both groups together (the refit's)."""
    X, _ = read_conll(TRAIN)
    tr, va = deterministic_split(len(X))
    ft, fv = token_features([X[i] for i in tr]), token_features([X[i] for i in va])
    codes = FeatureCodes()
    groups = [codes.add(ft), codes.add(fv)]
    for train, feats in (([0], ft), (groups, ft + fv)):
        ref = FeatureIndex.from_features(feats, min_count)
        index, columns = codes.index(train, min_count)
        assert index.names == ref.names
        np.testing.assert_array_equal(index.scale, ref.scale)
        for part, part_feats in (([0], ft), ([1], fv), (groups, ft + fv)):
            for scaled in (False, True):
                x, lengths = codes.transform(part, index, columns, scaled=scaled)
                x0, lengths0 = ref.transform(part_feats, scaled=scaled)
                np.testing.assert_array_equal(lengths, lengths0)
                for a in ("indptr", "indices", "data"):
                    np.testing.assert_array_equal(getattr(x, a), getattr(x0, a))
                assert x.shape == x0.shape


def test_token_features_cache_of_shapes_changes_no_string():
    """token_features shares one word-shape cache across sentences: the same strings as
    sentence_features of each sentence alone."""
    X, _ = read_conll(TRAIN)
    X = X[:60] + [[("", "NN"), ("1,2", "CD")]]
    assert token_features(X) == [sentence_features(s) for s in X]


def test_refit_trains_on_all_sentences_for_the_validated_iterations():
    """``refit=True``: the model is the one trained on training + validation sentences for
    ``best_iter_ + 1`` iterations, the validation record stays the first run's, and a
    saved model keeps the number of sentences of the refit."""
    X, y = read_conll(TRAIN)
    tr, va = deterministic_split(len(X))
    Xt, yt = [X[i] for i in tr], [y[i] for i in tr]
    Xv, yv = [X[i] for i in va], [y[i] for i in va]
    plain = SequenceTagger(n_iter=20, eval_every=2, patience=2).fit(Xt, yt, eval_set=(Xv, yv))
    tagger = SequenceTagger(n_iter=20, eval_every=2, patience=2, refit=True).fit(Xt, yt, eval_set=(Xv, yv))
    assert tagger.best_iter_ == plain.best_iter_
    for key in ("iteration", "validation"):
        assert tagger.history_[key] == plain.history_[key]
    again = SequenceTagger(n_iter=plain.best_iter_ + 1).fit(Xt + Xv, yt + yv)
    np.testing.assert_array_equal(tagger.coef_, again.coef_)
    assert tagger.features_.names == again.features_.names
    np.testing.assert_array_equal(tagger.features_.scale, again.features_.scale)
    assert not np.array_equal(tagger.coef_, plain.coef_)
    assert tagger.refit_sentences_ == len(X) and plain.refit_sentences_ is None
    # without validation sentences there is nothing to choose on and nothing to refit
    alone = SequenceTagger(n_iter=3, refit=True).fit(Xt, yt)
    assert alone.refit_sentences_ is None


def test_tag_train_refuses_validation_sentences_without_chunks(tmp_path, capsys):
    """IOB labels whose validation sentences hold no chunk: every model scores F1 0 there,
    so nothing could be chosen; one line, exit 2, no model."""
    data = tmp_path / "d.txt"
    data.write_text("a B-NP\nb I-NP\n\nc O\n")
    model = tmp_path / "m.npz"
    assert main(["tag", "train", "--data", str(data), "-o", str(model), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hold no chunk" in err[0] and not model.exists()
    valid = tmp_path / "v.txt"
    valid.write_text("c NN O\nd NN O\n")
    assert main(["tag", "train", "--data", str(TRAIN), "--first", "20", "--valid-data",
                 str(valid), "-o", str(model), "-q"]) == 2
    assert "v.txt: the validation sentences hold no chunk" in capsys.readouterr().err


def test_tag_train_with_valid_data_does_not_refit(tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["tag", "train", "--data", str(TRAIN), "--first", "60", "--valid-data",
                 str(TEST), "--iterations", "6", "-o", str(model), "-q"]) == 0
    out = capsys.readouterr().out
    assert "trained bregman on 60 sentences" in out and "then trained on all" not in out
    assert load_tagger(model).refit_sentences_ is None


# ------------------------------------------------------------ command line
def test_tag_train_predict_eval(tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["tag", "train", "--data", str(TRAIN), "--first", "120", "--iterations", "10",
                 "-o", str(model), "-q"]) == 0
    out = capsys.readouterr().out
    assert "trained bregman on 108 sentences" in out and model.exists()
    # the validation sentences held out of --data join the final model's training data
    assert "then trained on all 120 sentences" in out
    assert load_tagger(model).refit_sentences_ == 120
    assert main(["tag", "eval", "-m", str(model), "--data", str(TEST), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["sentences"] == 100 and 0 < scores["f1"] <= 100
    tagged = tmp_path / "tagged.txt"
    assert main(["tag", "predict", "-m", str(model), "-i", str(TEST), "-o", str(tagged),
                 "-q"]) == 0
    X, labels = read_conll(tagged)
    Xt, _ = read_conll(TEST)
    assert X == Xt and len(labels) == 100
    # --data, as in tag train/eval and topics predict, is the same option as -i
    again = tmp_path / "again.txt"
    assert main(["tag", "predict", "-m", str(model), "--data", str(TEST), "-o", str(again),
                 "-q"]) == 0
    assert again.read_bytes() == tagged.read_bytes()


@pytest.mark.subprocess
def test_tag_predict_reads_stdin(tmp_path):
    model = tmp_path / "m.npz"
    assert main(["tag", "train", "--data", str(POS), "--first", "60", "--iterations", "5",
                 "-o", str(model), "-q"]) == 0
    proc = subprocess.run([sys.executable, "-m", "structpred", "tag", "predict", "-m",
                           str(model)], input="The DT\ncompany NN\n\nIt PRP\n", text=True,
                          capture_output=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("The ") and lines[2] == "" and len(lines[0].split()) == 2


@pytest.mark.subprocess
@pytest.mark.parametrize("content,expected", [
    ("a DT B-NP\nb NN\n", "bad.txt:2: expected 3 columns, found 2"),
    ("\n", "bad.txt:1: no sentences"),
])
def test_tag_train_bad_input_is_one_line_exit_2(tmp_path, content, expected):
    bad = tmp_path / "bad.txt"
    bad.write_text(content)
    proc = subprocess.run([sys.executable, "-m", "structpred", "tag", "train", "--data",
                           str(bad), "-o", str(tmp_path / "m.npz")], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and expected in proc.stderr


@pytest.mark.subprocess
def test_tag_eval_with_another_models_file_is_exit_2(tmp_path):
    p = tmp_path / "x.npz"
    np.savez(p, a=np.zeros(3))
    proc = subprocess.run([sys.executable, "-m", "structpred", "tag", "eval", "-m", str(p),
                           "--data", str(TEST)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "not a sequence tagger model" in proc.stderr


# ------------------------------------------------- input that would be misread
@settings(max_examples=10, deadline=None)
@given(label=st.sampled_from(["O", "NN", "B-NP", "x"]), n=st.integers(2, 30))
def test_one_label_only_is_refused_not_fitted(label, n):
    """Training data whose tokens all carry one label has nothing to learn: a clear error,
    never a model that scores 100 % on its validation split."""
    X = [[("w%d" % i, "T")] for i in range(n)]
    y = [[label] for _ in range(n)]
    with pytest.raises(ValueError, match="at least two labels"):
        SequenceTagger(n_iter=2).fit(X, y)


@pytest.fixture(scope="module")
def pos_chunk_model(tmp_path_factory):
    """A chunker trained on `word POS label`."""
    model = tmp_path_factory.mktemp("seq") / "m.npz"
    assert main(["tag", "train", "--data", str(TRAIN), "--first", "80", "--iterations", "5",
                 "-o", str(model), "-q"]) == 0
    return model


@settings(max_examples=8, deadline=None,
          suppress_health_check=[__import__("hypothesis").HealthCheck.function_scoped_fixture])
@given(n_sent=st.integers(1, 20), start=st.integers(0, 60))
def test_labels_in_the_feature_column_are_refused(pos_chunk_model, n_sent, start, tmp_path,
                                                   capsys):
    """`word label` given to a model of `word POS label` has as many columns as `word POS`:
    tagging it would read the labels as POS tags (a silent wrong answer).  It is refused;
    `word POS` of the same sentences is tagged."""
    X, y = read_conll(TEST)
    X, y = X[start:start + n_sent], y[start:start + n_sent]
    wrong = tmp_path / "word-label.txt"
    wrong.write_text("\n\n".join("\n".join(f"{t[0]} {lab}" for t, lab in zip(s, ls))
                                 for s, ls in zip(X, y)) + "\n")
    right = tmp_path / "word-pos.txt"
    right.write_text("\n\n".join("\n".join(f"{t[0]} {t[1]}" for t in s) for s in X) + "\n")
    capsys.readouterr()
    assert main(["tag", "predict", "-m", str(pos_chunk_model), "-i", str(wrong)]) == 2
    err = capsys.readouterr().err
    assert "column 2 holds the model's labels" in err and err.count("\n") == 1
    assert main(["tag", "predict", "-m", str(pos_chunk_model), "-i", str(right), "-q"]) == 0
