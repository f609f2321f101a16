"""``#`` as a token of a column file (a Penn Treebank token and tag): read and tagged when
its line has the file's columns and a label the file (or the model) knows, refused as a
comment otherwise; the feature-column overlap warning judges the values the model can
know (seen ``min_count`` times), so data sharing its values with training is never warned
of; short lower-case ``word_tag`` text is read by ``tag predict`` when its tags are the
model's."""

import contextlib
import io
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import test_predict_layouts as _shared

from sequence.data import read_conll
from sequence.model import SequenceTagger, load_tagger
from structpred import FormatError
from structpred.cli import main

#: two perceptron taggers, of the word alone and of the word and its POS (a fixture)
models = _shared.models
POS, TAGS = _shared.POS, _shared.TAGS

#: letters only (never '#', a number or a chunk tag)
WORDS = st.text(st.characters(categories=("L",), max_codepoint=0x7A), min_size=1,
                max_size=5).filter(lambda w: w not in POS + TAGS + ["O"])
#: a comment's last word: lower-case letters, none of the labels
COMMENT = st.text(st.sampled_from("abcdefghij"), min_size=3, max_size=8)


def _hash_file(sentences, hashes, labels):
    """Lines of ``word label`` sentences with a ``#`` token inserted at each ``(sentence,
    position, label index)`` of ``hashes`` (its label one of ``labels``, or ``#``)."""
    out = [list(s) for s in sentences]
    for k, at, which in hashes:
        s = out[k % len(out)]
        s.insert(at % (len(s) + 1), ("#", (labels + ["#"])[which % (len(labels) + 1)]))
    return out


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(POS)), min_size=1, max_size=5),
                min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9)),
                min_size=1, max_size=4))
@settings(max_examples=40, deadline=None)
def test_hash_tokens_with_the_files_labels_are_read_and_tagged(models, tmp_path_factory,
                                                               sentences, hashes):
    # '# NN' anywhere (a sentence start, a sentence's middle) with a label of the file's
    # own; '# #' (the Penn tag of '#')
    used = sorted({p for s in sentences for _, p in s})
    tagged = _hash_file(sentences, hashes, used)
    path = tmp_path_factory.mktemp("hash") / "pos.txt"
    path.write_text("".join("".join(f"{w} {p}\n" for w, p in s) + "\n" for s in tagged),
                    encoding="utf-8")
    assert read_conll(path) == ([[(w,) for w, _ in s] for s in tagged],
                                [[p for _, p in s] for s in tagged])
    # predicted by a model of word and POS (every POS here is one it knows): each line
    # gets its label, the '#' lines too
    out = _shared._predict(models[2], path)
    kept = [[(w, p) for w, p in s] for s in tagged]
    pred = load_tagger(models[2]).predict(kept)
    assert out.read_text(encoding="utf-8") == "".join(
        "".join(f"{w} {p} {t}\n" for (w, p), t in zip(s, ts)) + "\n"
        for s, ts in zip(tagged, pred))


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(POS)), min_size=1, max_size=5),
                min_size=2, max_size=4),
       st.integers(0, 9), st.integers(0, 9), COMMENT, st.booleans())
@settings(max_examples=40, deadline=None)
def test_hash_lines_of_an_unknown_label_are_refused_as_comments(
        models, tmp_path_factory, sentences, k, at, comment, start):
    # '# note' at a sentence start (or '#' alone and a word in a sentence's middle), its
    # last column none of the file's labels (or of the model's): read as a token labelled
    # 'note' before in the middle of a sentence, and by tag predict anywhere
    lines = [[f"{w} {p}" for w, p in s] for s in sentences]
    s = lines[k % len(lines)]
    at = 0 if start or len(s) < 2 else 1 + at % (len(s) - 1)
    s.insert(at, f"# {comment}")
    lineno = sum(len(x) + 1 for x in lines[:k % len(lines)]) + at + 1
    path = tmp_path_factory.mktemp("comment") / "pos.txt"
    path.write_text("".join("".join(x + "\n" for x in s) + "\n" for s in lines),
                    encoding="utf-8")
    with pytest.raises(FormatError, match=rf"pos.txt:{lineno}: a line that starts .*with '#' "
                                          rf"and whose label '{comment}' .*a comment\?"):
        read_conll(path)
    for model, text in [(models[2], path.read_text(encoding="utf-8")),   # its POS column
                        (models[1], "".join(   # as the label column of a word-only model
                            "".join(f"{x.split()[0]} {TAGS[0] if x[0] != '#' else comment}\n"
                                    for x in s) + "\n" for s in lines))]:
        path.write_text(text, encoding="utf-8")
        err = _stderr(["tag", "predict", "-m", str(model), "-i", str(path), "-q"], 2)
        assert len(err) == 1 and err[0].startswith(f"structpred: error: {path}:{lineno}: a "
                                                   "line that starts with '#'")
        assert repr(comment) in err[0] and "a comment?" in err[0]


def _stderr(argv, status):
    """The lines ``main(argv)`` writes to standard error (its status must be ``status``)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == status
    return err.getvalue().strip().splitlines()


def test_a_hash_token_of_a_label_the_file_holds_is_tagged(models, tmp_path):
    # tag predict: a label the file holds on another line is one of its labels, known to
    # the model or not (NN is no label of this word-only model)
    path = tmp_path / "pos.txt"
    path.write_text("# NN\nthe NN\n\nLotte B-PER\n# NN\n", encoding="utf-8")
    out = _shared._predict(models[1], path)
    pred = load_tagger(models[1]).predict([[("#",), ("the",)], [("Lotte",), ("#",)]])
    assert out.read_text(encoding="utf-8") == (
        f"# {pred[0][0]}\nthe {pred[0][1]}\n\nLotte {pred[1][0]}\n# {pred[1][1]}\n")


#: the common values of the third column of the rare-values model; the others are seen once
COMMON = ["B-NP", "I-NP", "O"]


@pytest.fixture(scope="module")
def rare_model(tmp_path_factory):
    """A perceptron tagger of ``word POS lemma-ish`` whose third column holds, on most
    tokens, a value seen once in training (pruned by ``min_count`` 2), and its sentences."""
    X, y = [], []
    for i in range(40):
        s = [(f"w{(i + j) % 9}", POS[(i * j) % 4],
              COMMON[(i + j) % 3] if (i + j) % 5 < 2 else f"v{i}x{j}") for j in range(4)]
        X.append(s)
        y.append([("N", "V", "D", "A")[(i + 2 * j) % 4] for j in range(4)])
    path = tmp_path_factory.mktemp("rare") / "m.npz"
    SequenceTagger(learner="perceptron", n_iter=1).fit(X, y).save(path)
    return path, X, y


def _warned(model, path, command):
    err = io.StringIO()
    args = (["-i", str(path), "-o", str(path.parent / "out.txt")] if command == "predict"
            else ["--data", str(path)])
    with contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["tag", command, "-m", str(model), "-q", *args]) == 0
    return [line for line in err.getvalue().splitlines() if "seldom saw" in line]


@given(st.sets(st.integers(0, 39), min_size=13, max_size=40), st.booleans())
@settings(max_examples=15, deadline=None)
def test_no_overlap_warning_on_sentences_of_the_training_data(rare_model, tmp_path_factory,
                                                               chosen, labelled):
    # before: the values seen once in training (most of column 3) counted as unknown, so
    # the training file itself (or any part of it) was "column 3 holds values the model
    # seldom saw there"
    model, X, y = rare_model
    path = tmp_path_factory.mktemp("part") / "part.txt"
    path.write_text("".join("".join(" ".join(tok) + (f" {t}" if labelled else "") + "\n"
                                    for tok, t in zip(X[i], y[i])) + "\n"
                            for i in sorted(chosen)), encoding="utf-8")
    assert _warned(model, path, "eval" if labelled else "predict") == []


def test_another_column_is_still_warned_of_beside_rare_values(rare_model, tmp_path):
    # values the model never saw, each on many tokens: warned of as before
    model, X, _ = rare_model
    path = tmp_path / "ner.txt"
    path.write_text("".join("".join(f"{w} {p} {('B-PER', 'I-PER', 'B-LOC')[j % 3]}\n"
                                    for j, (w, p, _) in enumerate(s)) + "\n" for s in X),
                    encoding="utf-8")
    found = _warned(model, path, "predict")
    assert len(found) == 1 and "column 3 holds values the model seldom saw" in found[0]


#: lower-case tags (the Brown corpus's)
LOWER = ["at", "nn", "vbd", "jj"]
LOWER_WORDS = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz"), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def lower_model(tmp_path_factory):
    """A perceptron tagger of the word alone whose labels are lower-case Brown tags."""
    X = [[("the",), ("dog",), ("barked",)], [("a",), ("big",), ("cat",)]] * 3
    y = [["at", "nn", "vbd"], ["at", "jj", "nn"]] * 3
    path = tmp_path_factory.mktemp("lower") / "brown.npz"
    SequenceTagger(learner="perceptron", n_iter=1).fit(X, y).save(path)
    return path


@given(st.lists(st.tuples(LOWER_WORDS, st.sampled_from(LOWER)), min_size=2, max_size=3),
       st.booleans())
@settings(max_examples=25, deadline=None)
def test_short_lower_case_word_tag_text_is_read_by_the_models_tags(lower_model,
                                                                  tmp_path_factory, line,
                                                                  known):
    # one short line 'the_at dog_nn' was refused as too short to tell its tags from words:
    # tags the model knows tell it; parts it does not know are refused as before
    tags = [t if known else t + "q" for _, t in line]
    path = tmp_path_factory.mktemp("short") / "brown.txt"
    path.write_text(" ".join(f"{w}_{t}" for (w, _), t in zip(line, tags)) + "\n",
                    encoding="utf-8")
    argv = ["tag", "predict", "-m", str(lower_model), "-i", str(path), "-o",
            str(path.parent / "out.txt"), "-q"]
    if not known:
        err = _stderr(argv, 2)
        assert len(err) == 1 and "are not told to be tags" in err[0]
        return
    assert _stderr(argv, 0) == []
    pred = load_tagger(lower_model).predict([[(w,) for w, _ in line]])[0]
    assert (path.parent / "out.txt").read_text(encoding="utf-8") == " ".join(
        f"{w}_{t}" for (w, _), t in zip(line, pred)) + "\n"
