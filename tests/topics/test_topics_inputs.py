"""Inputs of ``structpred topics train|predict|eval`` found by the sweep of the last session:

- the refit of ``topics train`` on many classes of one document each printed scikit-learn's
  guess "The number of unique classes is greater than 50% ... a regression problem" (twice):
  left out exactly (:func:`topics._validation.quiet_class_count_guess`), other warnings kept;
- a ``*.txt`` file or fastText lines whose first document is one word naming a text column
  (``review``, ``text``) was refused as a header: it is one only before lines of a layout
  it lacks (labels, CSV's quotes), else a document;
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topics._layouts import FASTTEXT_PREFIX, TEXT_NAMES

from cli_helpers import docs_model, run_cli

SETTINGS = settings(max_examples=5, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: words of letters only (every model's tokens)
WORDS = "cat dog bank stock film park rain snow tree lake road ship star moon gold iron".split()


# ----------------------------- class: many classes of one document (scikit-learn's guess)
@SETTINGS
@given(singles=st.integers(15, 30), pairs=st.integers(3, 6),
       model=st.sampled_from(["sdem-nb", "svm", "nbsvm"]), seed=st.integers(0, 99))
def test_training_on_classes_of_one_document_prints_no_library_guess(
        tmp_path_factory, capsys, singles, pairs, model, seed):
    """More than 20 documents, more classes than half of them: the refit printed
    scikit-learn's "could represent a regression problem" (labels read from a file are
    class names); standard error holds the summary line alone now."""
    rng = np.random.default_rng(seed)
    sizes = [1] * singles + [2] * pairs
    lines = [f"c{k}\tw{k} {' '.join(rng.choice(WORDS, 5))}\n"
             for k, n in enumerate(sizes) for _ in range(n)]
    assert len(lines) > 20 and len(sizes) > len(lines) / 2
    d = tmp_path_factory.mktemp("many")
    (d / "many.tsv").write_text("".join(lines))
    rc, _, err = run_cli(["topics", "train", "--data", str(d / "many.tsv"), "--model", model,
                          "--min-df", "1", "-q", "-o", str(d / "m.npz")], capsys)
    assert rc == 0 and [line for line in err.splitlines()
                        if not line.startswith(f"trained {model} in ")] == [], err


def test_the_guess_is_left_out_in_the_block_only():
    """Exactly the guess, inside the block: another UserWarning there, and the guess after
    the block, are still warnings."""
    from topics._validation import CLASS_COUNT_GUESS, quiet_class_count_guess

    guess = CLASS_COUNT_GUESS + ". `y` could represent a regression problem"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with quiet_class_count_guess():
            warnings.warn(guess, UserWarning)
            warnings.warn("another warning", UserWarning)
            warnings.warn(guess, DeprecationWarning)
        warnings.warn(guess, UserWarning)
    assert [(str(w.message)[:15], w.category) for w in seen] == [
        ("another warning", UserWarning), (guess[:15], DeprecationWarning),
        (guess[:15], UserWarning)]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A model of the classes ``pets`` and ``money`` (:data:`cli_helpers.DOCS`)."""
    return docs_model(tmp_path_factory.mktemp("docs"))


# ------------------------------------ class: a first document of one word (no header)
#: one word: a text column's name in any case, or other letters
ONE_WORD = st.one_of(st.sampled_from(TEXT_NAMES).flatmap(
    lambda w: st.sampled_from([w, w.title(), w.upper()])), st.from_regex(r"[A-Za-z]{1,12}",
                                                                          fullmatch=True))


@SETTINGS
@given(first=ONE_WORD, n=st.integers(1, 25), layout=st.sampled_from(["txt", "fasttext",
                                                                       "labelled"]),
       blank=st.booleans(), seed=st.integers(0, 99))
def test_a_first_document_of_one_word_is_read(tmp_path_factory, capsys, model, first, n,
                                              layout, blank, seed):
    """A review ``review`` (or any one word) first in a ``*.txt`` file or in fastText lines,
    before texts as plain as it, or with its label in labelled fastText lines, is a
    document: one label is written for it (it was refused as a header)."""
    rng = np.random.default_rng(seed)
    texts = [first] + [" ".join(rng.choice(WORDS, rng.integers(2, 8))) for _ in range(n)]
    if layout == "labelled":
        texts = [f"{FASTTEXT_PREFIX}{rng.choice(['pets', 'money'])} {t}" for t in texts]
    f = tmp_path_factory.mktemp("one") / ("new.txt" if layout == "txt" else "new.ft")
    f.write_text(("\n" if blank else "") + "\n".join(texts) + "\n")
    fmt = [] if layout == "txt" else ["--format", "fasttext"]
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(f), *fmt],
                           capsys)
    assert rc == 0, err
    assert len(out.splitlines()) == len(texts)
