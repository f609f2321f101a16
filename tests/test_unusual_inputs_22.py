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
  spaces and tabs alike. The refusal now names the field and why.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from sequence.data import read_conll
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
