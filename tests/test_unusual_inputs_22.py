"""Unusual inputs of the command line, sweep 22 (issue 28, docs/errors.md), by class: valid
but unusual data of a kind the defaults were not chosen on, run with the default commands.

Fixed in this sweep:

- ``topics train`` on fewer training documents than cross-validation folds (2 documents per
  class: 4 documents, 5 folds) stopped with sklearn's words, "Found array with 0 sample(s)
  (shape=(0, 996)) while a minimum of 1 is required by NBSVM": a fold that no document was
  dealt to was fitted and predicted on nothing. Such folds are left out now
  (``topics.auto.cross_validation_folds``), and the summary names the folds used;
- ``tag train``/``eval``/``predict`` on a tab-separated column file whose field holds a
  space (``New York<TAB>NNP<TAB>B-NP``) or is empty (``a<TAB><TAB>O``) was refused as
  "expected 3 columns, found 4 (line 1 has 3)", naming no cause: columns are split at
  spaces and tabs alike. The refusal now names the field and why;
- ``tag eval`` of gold chunk tags in IOB with a model trained on IOBES (or BILOU), or the
  other way round, printed a token accuracy of 44.50 beside a chunk F1 of 87.45 without a
  word when every gold label was one the model knows (the IOB file to the IOBES model):
  token accuracy counts each chunk end written the other way as an error. A warning says
  so now (``sequence.evaluate.chunk_scheme``); BILOU's ``L-``/``U-`` given to an IOBES
  model got its hint only when no other label was unknown too (``B-CONJP``): it gets it
  whenever one of them is IOBES's ``E-``/``S-`` tag of the model.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from sequence.data import read_conll
from sequence.evaluate import chunk_scheme, chunks
from topics.auto import cross_validation_folds

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: words of two classes, one text a document
TEXTS = {"sport": ["the team won the match with a late goal : football at its best",
                   "a football match of two halves , a goal and a win for the team",
                   "the team scored a goal in the match and football fans cheered"],
         "food": ["the soup was hot , the bread fresh : good food and coffee",
                  "bread , soup and coffee : simple food done well",
                  "we had soup with bread and coffee , the food was good"]}


# ------------------------------------- class: fewer training documents than folds (topics)
@SETTINGS
@given(sizes=st.lists(st.integers(1, 6), min_size=2, max_size=4).filter(lambda s: max(s) > 1),
       seed=st.integers(0, 50))
def test_cross_validation_folds_hold_out_something_in_every_fold(sizes, seed):
    # (every class of one document is refused before: nothing to hold out)
    y = np.array([f"c{k}" for k, n in enumerate(sizes) for _ in range(n)])
    folds = cross_validation_folds(y, 5, seed)
    assert folds and all(v.size > 0 for _, v in folds)
    held = np.concatenate([v for _, v in folds])
    # every document of a class of two or more held out exactly once; a class of one never
    single = {c for c, n in zip(*np.unique(y, return_counts=True)) if n == 1}
    assert sorted(held.tolist()) == [i for i in range(y.size) if y[i] not in single]
    for fit, val in folds:
        assert set(fit.tolist()).isdisjoint(val.tolist())
        assert set(y[fit]) == set(y)           # every class is fitted on in every fold


@pytest.mark.parametrize("per_class", [2, 3])
def test_topics_train_on_fewer_documents_than_folds(tmp_path, capsys, per_class):
    data = tmp_path / "train.tsv"
    data.write_text("".join(f"{label}\t{text}\n" for label, texts in TEXTS.items()
                            for text in texts[:per_class]), encoding="utf-8")
    model = tmp_path / "m.npz"
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "-o", str(model), "-q"],
                           capsys)
    assert rc == 0, err
    assert model.exists() and "Found array" not in err
    n = 2 * per_class
    assert f"{min(n, 5)}-fold cross-validation over the {n} training documents" in out + err


# ------------------------------------- class: tab-separated fields holding a space (tag)
_WORD = st.text("abcdefghij", min_size=1, max_size=5)


@SETTINGS
@given(words=st.lists(_WORD, min_size=2, max_size=5), at=st.integers(0, 10),
       where=st.sampled_from(["word", "label"]), first=st.booleans())
def test_tab_separated_field_with_a_space_is_named(tmp_path, words, at, where, first):
    rows = [[w, "N", "O"] for w in words]
    k = 0 if first else 1 + at % (len(rows) - 1)
    rows[k][0 if where == "word" else 2] = ("New York" if where == "word" else "B-NP x")
    path = tmp_path / "f.txt"
    path.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    spaced = "New York" if where == "word" else "B-NP x"
    with pytest.raises(FormatError, match=re.escape(f"line {k + 1} is tab-separated and its "
                                                    f"field {spaced!r} holds a space")):
        read_conll(path)


@SETTINGS
@given(words=st.lists(_WORD, min_size=2, max_size=5), at=st.integers(0, 10),
       column=st.integers(1, 2))
def test_tab_separated_empty_field_is_named(tmp_path, words, at, column):
    rows = [[w, "N", "O"] for w in words]
    k = at % len(rows)                       # the first line too: it fixed a count of 2
    rows[k][column] = ""
    path = tmp_path / "f.txt"
    path.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"line {k + 1} is tab-separated and its "
                                                    f"field {column + 1} is empty")):
        read_conll(path)


def test_space_separated_count_error_keeps_its_words(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("a N O\nb N\n", encoding="utf-8")
    with pytest.raises(FormatError) as info:
        read_conll(path)
    assert str(info.value).endswith("expected 3 columns, found 2 (line 1 has 3)")


def test_tag_train_names_the_spaced_field(tmp_path, capsys):
    path = tmp_path / "train.txt"
    path.write_text("Confidence\tNN\tB-NP\nin\tIN\tB-PP\nNew York\tNNP\tB-NP\n\n"
                    "a\tDT\tB-NP\ncat\tNN\tI-NP\n", encoding="utf-8")
    rc, _, err = run_cli(["tag", "train", "--data", str(path), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "train.txt:3", "'New York' holds a space")
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------- class: gold chunk tags of another scheme (tag eval)
#: chunks (type, length) of a sentence, between O tokens
_CHUNKS = st.lists(st.tuples(st.sampled_from(["NP", "VP", "PER"]), st.integers(1, 4),
                             st.integers(0, 2)), min_size=1, max_size=5)


def _write(chunk_list, scheme):
    """Labels of ``chunk_list`` ((type, length, O tokens after)) in IOB, IOBES or BILOU."""
    end, single = {"IOB": ("I", "B"), "IOBES": ("E", "S"), "BILOU": ("L", "U")}[scheme]
    out = []
    for type_, n, gap in chunk_list:
        if n == 1:
            out.append(f"{single}-{type_}")
        else:
            out += [f"B-{type_}"] + [f"I-{type_}"] * (n - 2) + [f"{end}-{type_}"]
        out += ["O"] * gap
    return out


@SETTINGS
@given(sentences=st.lists(_CHUNKS, min_size=1, max_size=4))
def test_chunk_scheme_names_the_scheme_and_chunks_agree(sentences):
    by = {k: [_write(c, k) for c in sentences] for k in ("IOB", "IOBES", "BILOU")}
    assert chunk_scheme(by["IOB"]) == "IOB"
    assert chunk_scheme(by["IOBES"]) == chunk_scheme(by["BILOU"]) == "IOBES (BILOU)"
    for a, b, c in zip(by["IOB"], by["IOBES"], by["BILOU"]):
        assert chunks(a) == chunks(b) == chunks(c)
    assert chunk_scheme([["O", "O"]]) is None


SCHEME_SENTENCES = [[("PER", 1, 1), ("LOC", 2, 0)], [("PER", 2, 1), ("ORG", 3, 1)],
                    [("LOC", 1, 2), ("PER", 1, 0)]]
WORDS = "john went to new york mary saw the big corp inc in paris and london bob".split()


def _tag_file(path, scheme, repeat=1):
    lines = []
    for k, c in enumerate(SCHEME_SENTENCES * repeat):
        labels = _write(c, scheme)
        lines += [f"{WORDS[(k * 3 + i) % len(WORDS)]} {t}" for i, t in enumerate(labels)] + [""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scheme_models(tmp_path_factory):
    from structpred.cli import main

    d = tmp_path_factory.mktemp("models22")
    for scheme in ("IOB", "IOBES"):
        data = _tag_file(d / f"{scheme}.txt", scheme, repeat=4)
        assert main(["tag", "train", "--data", str(data), "-o", str(d / f"{scheme}.npz"),
                     "--iterations", "5", "-q"]) == 0
    return d


@pytest.mark.parametrize("model, gold, theirs, ours", [
    ("IOBES", "IOB", "IOB", "IOBES (BILOU)"), ("IOB", "IOBES", "IOBES (BILOU)", "IOB"),
    ("IOB", "BILOU", "IOBES (BILOU)", "IOB")])
def test_tag_eval_of_gold_of_another_scheme_warns(scheme_models, tmp_path, capsys, model,
                                                  gold, theirs, ours):
    f = _tag_file(tmp_path / "gold.txt", gold)
    rc, out, err = run_cli(["tag", "eval", "-m", str(scheme_models / f"{model}.npz"),
                            "--data", str(f)], capsys)
    assert rc == 0 and "F1" in out, err
    assert (f"{f}: the gold chunk tags are {theirs}, the model's {ours}: chunk F1 reads "
            "both schemes alike") in err


@pytest.mark.parametrize("model", ["IOB", "IOBES"])
def test_tag_eval_of_gold_of_the_models_scheme_does_not_warn(scheme_models, tmp_path, capsys,
                                                             model):
    f = _tag_file(tmp_path / "gold.txt", model)
    rc, out, err = run_cli(["tag", "eval", "-m", str(scheme_models / f"{model}.npz"),
                            "--data", str(f)], capsys)
    assert rc == 0 and "the gold chunk tags are" not in err, err


def test_bilou_gold_with_other_unknown_labels_gets_the_bilou_hint(scheme_models, tmp_path,
                                                                   capsys):
    f = _tag_file(tmp_path / "gold.txt", "BILOU")
    f.write_text(f.read_text(encoding="utf-8") + "or U-CONJP\n\n", encoding="utf-8")
    rc, out, err = run_cli(["tag", "eval", "-m", str(scheme_models / "IOBES.npz"),
                            "--data", str(f)], capsys)
    assert rc == 0, err
    assert "'U-CONJP'" in err and "as BILOU's L-/U- or IOBES's E-/S-" in err
