"""Inputs to ``structpred topics train|predict|eval`` that are unusual in their size or
their layout:

- 2,000 training documents or more whose classes all have one or two documents, so that
  the default 20% of each class holds out none: cross-validated by default, as a smaller
  corpus is (refused before); ``--valid-fraction`` given is still refused;
- ``eval`` of a model of more than 30 classes prints the commonest confusions, not a
  matrix of megabytes, unless ``--confusion`` asks for it; 30 classes print the matrix;
- a token-per-line file (CoNLL style: ``word TAG`` lines, blank lines between sentences)
  is refused at its first line, naming ``structpred tag``: each line was a document.
"""

import gzip
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topics._confusion import MAX_PRINTED_CLASSES, TOP_CONFUSIONS, top_confusions

from cli_helpers import docs_model as trained_docs_model, one_line_error, run_cli

SETTINGS = settings(max_examples=5, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: words of letters only (every model's tokens)
WORDS = ["".join(p) for p in itertools.product("bdfklmprstv", "aeiou", "nrs")]


def _class_name(k):
    return "".join(WORDS[k // 100 % len(WORDS)] + WORDS[k % 100])


def _write_classes(path, sizes, seed=0):
    """A TSV file of ``sizes[k]`` documents of class ``k``: a word of its class and five
    others."""
    rng = np.random.default_rng(seed)
    path.write_text("".join(f"{_class_name(k)}\t{_class_name(k)}x "
                            f"{' '.join(rng.choice(WORDS, 5))}\n"
                            for k, n in enumerate(sizes) for _ in range(n)))
    return path


# ----------------------------- class: classes too small for the held-out share
@pytest.fixture(scope="module")
def pairs_corpus(tmp_path_factory):
    """``CV_BELOW`` documents, two of each class."""
    from topics.registry import CV_BELOW

    return _write_classes(tmp_path_factory.mktemp("pairs") / "pairs.tsv", [2] * (CV_BELOW // 2))


@pytest.mark.parametrize("fraction", ["0.2", "0.1"])
def test_a_given_fraction_that_holds_out_none_is_still_refused(tmp_path, capsys, pairs_corpus,
                                                               fraction):
    """The user's ``--valid-fraction`` (the default's value too) is used as given: one
    that holds out no document is refused naming it."""
    rc, _, err = run_cli(["topics", "train", "--data", str(pairs_corpus), "--valid-fraction",
                          fraction, "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"--valid-fraction {float(fraction)}",
                          "holds out no document"), err


@pytest.mark.slow
def test_classes_of_two_documents_are_cross_validated_by_default(tmp_path, capsys,
                                                                 pairs_corpus):
    """With data arguments only, 2,000 documents of classes of two were refused ("--valid-
    fraction 0.2 holds out no document"), an option the user never gave; they are
    cross-validated as a smaller corpus is, and the line on validation says why."""
    from topics._persist import load_model

    model = tmp_path / "m.npz"
    rc, out, err = run_cli(["topics", "train", "--data", str(pairs_corpus), "-o", str(model)],
                           capsys)
    assert rc == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("validation: "))
    assert line.startswith("validation: 5-fold cross-validation over the 2000 training "
                           "documents (20% of each class would hold out none"), line
    assert "unique classes" not in err                  # scikit-learn's guess, each fold
    assert load_model(model).info["validation"]["n_valid"] == 2000


# ------------------------------------------- class: eval of many classes
@pytest.fixture(scope="module")
def models_of(tmp_path_factory):
    """``n -> (model, data)``: an NBSVM model trained on 3 documents of each of ``n``
    classes, and its data."""
    made = {}

    def make(n):
        if n not in made:
            d = tmp_path_factory.mktemp(f"classes{n}")
            data = _write_classes(d / "docs.tsv", [3] * n, seed=n)
            from structpred.cli import main
            assert main(["topics", "train", "--data", str(data), "--model", "nbsvm",
                         "--min-df", "1", "-q", "-o", str(d / "m.npz")]) == 0
            made[n] = d / "m.npz", data
        return made[n]
    return make


@pytest.mark.parametrize("n", [2, MAX_PRINTED_CLASSES, MAX_PRINTED_CLASSES + 1])
def test_eval_prints_a_matrix_of_few_classes_and_the_confusions_of_many(models_of, capsys, n):
    """1,000 classes printed a confusion matrix of megabytes; beyond
    ``MAX_PRINTED_CLASSES`` the commonest confusions come instead, ``--confusion`` prints
    the matrix as before, and up to it the matrix is printed unasked."""
    model, data = models_of(n)
    rc, out, err = run_cli(["topics", "eval", "-m", str(model), "--data", str(data)], capsys)
    assert rc == 0, err
    head = "confusion matrix (rows: true label, columns: predicted label):"
    lines = out.splitlines()
    if n <= MAX_PRINTED_CLASSES:
        assert lines[2] == head and len(lines) == 3 + 1 + n          # the matrix's rows
        return
    assert head not in lines and lines[2].startswith("most confused")
    assert f"the matrix of {n:,} classes is printed with --confusion" in lines[2]
    assert 1 <= len(lines) - 3 <= TOP_CONFUSIONS
    rc, full, _ = run_cli(["topics", "eval", "-m", str(model), "--data", str(data),
                           "--confusion"], capsys)
    assert rc == 0 and full.splitlines()[2] == head and len(full.splitlines()) == 3 + 1 + n


@settings(max_examples=30, deadline=None)
@given(cm=st.integers(2, 40).flatmap(lambda n: st.lists(
    st.lists(st.integers(0, 5), min_size=n, max_size=n), min_size=n, max_size=n)))
def test_the_commonest_confusions_are_the_largest_cells_off_the_diagonal(cm):
    cm = np.array(cm)
    cm += np.diag(cm.sum(axis=1) == 0)      # every class has a document
    labels = [f"L{i}" for i in range(len(cm))]
    lines = top_confusions(cm, labels)
    off = cm - np.diag(np.diag(cm))
    if not off.any():
        assert len(lines) == 1 and "no document" in lines[0]
        return
    shown = [ln.split() for ln in lines]              # true -> predicted: count (...)
    counts = [int(s[3]) for s in shown]
    assert len(lines) == min(TOP_CONFUSIONS, int((off > 0).sum()))
    assert counts == sorted(off.ravel().tolist(), reverse=True)[:len(counts)]
    for s in shown:
        i, j = labels.index(s[0]), labels.index(s[2].rstrip(":"))
        assert i != j and cm[i, j] == int(s[3])


# ------------------------------------------- class: token-per-line (CoNLL) files
@pytest.fixture(scope="module")
def docs_model(tmp_path_factory):
    return trained_docs_model(tmp_path_factory.mktemp("docs"))


@SETTINGS
@given(sentences=st.lists(st.integers(4, 8), min_size=2, max_size=6),
       n_tags=st.integers(2, 4), width=st.integers(2, 3), sep=st.sampled_from([" ", "\t"]),
       lead=st.integers(0, 1), suffix=st.sampled_from([".txt", ".txt.gz", ".tsv"]),
       cmd=st.sampled_from(["predict", "train"]), seed=st.integers(0, 99))
def test_a_token_per_line_file_is_refused(tmp_path_factory, capsys, docs_model, sentences,
                                          n_tags, width, sep, lead, suffix, cmd, seed):
    """``word TAG`` lines with blank lines between sentences (``data/sequence/*.txt.gz``)
    were read by ``predict`` as one document a line (a label for each token); refused at
    the first line, naming ``structpred tag``."""
    rng = np.random.default_rng(seed)
    tags = ["NN", "VB", "DT", "JJ"][:n_tags]
    k = itertools.count()
    text = "\n" * lead + "\n".join(
        "".join(sep.join([WORDS[next(k) % len(WORDS)]] + list(rng.choice(tags, width - 1)))
                + "\n" for _ in range(n)) for n in sentences)
    path = tmp_path_factory.mktemp("conll") / f"tokens{suffix}"
    path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    argv = (["predict", "-m", str(docs_model)] if cmd == "predict" else
            ["train", "--model", "nbsvm", "-o", str(path.parent / "m.npz")])
    rc, _, err = run_cli(["topics", *argv, "--data", str(path)], capsys)
    assert one_line_error(rc, err, f"{path}:{lead + 1}:", "token-per-line",
                          "structpred tag"), err


@pytest.mark.parametrize("bundled", ["conll2000-train-300.txt.gz", "treebank-pos-200.txt.gz"])
def test_the_bundled_tagging_files_are_refused(capsys, docs_model, bundled):
    rc, _, err = run_cli(["topics", "predict", "-m", str(docs_model), "--data",
                          f"data/sequence/{bundled}"], capsys)
    assert one_line_error(rc, err, f"data/sequence/{bundled}:1:", "structpred tag"), err


@SETTINGS
@given(paragraphs=st.lists(st.integers(1, 4), min_size=2, max_size=5),
       words=st.integers(3, 8), seed=st.integers(0, 99))
def test_texts_with_blank_lines_between_them_are_read(tmp_path_factory, capsys, docs_model,
                                                      paragraphs, words, seed):
    """Texts of several words a line, in paragraphs, are documents as before."""
    rng = np.random.default_rng(seed)
    known = "the cat sat on mat stocks fell market dogs chase cats park bank".split()
    text = "\n".join("".join(" ".join(rng.choice(known, words)) + "\n" for _ in range(n))
                     for n in paragraphs)
    path = tmp_path_factory.mktemp("texts") / "texts.txt"
    path.write_text(text)
    rc, out, err = run_cli(["topics", "predict", "-m", str(docs_model), "--data", str(path)],
                           capsys)
    assert rc == 0 and len(out.splitlines()) == sum(paragraphs), err
