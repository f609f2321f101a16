"""Inputs of ``structpred topics train|predict|eval`` found by the sweep of the last session:

- the refit of ``topics train`` on many classes of one document each printed scikit-learn's
  guess "The number of unique classes is greater than 50% ... a regression problem" (twice):
  left out exactly (:func:`topics._validation.quiet_class_count_guess`), other warnings kept;
- a ``*.txt`` file or fastText lines whose first document is one word naming a text column
  (``review``, ``text``) was refused as a header: it is one only before lines of a layout
  it lacks (labels, CSV's quotes), else a document;
- a token-per-line (CoNLL) file given on standard input or as a FIFO was not looked at, and
  one of fewer than 6 token lines or without blank lines was read as documents: refused
  as a file is, judged on the lines as they are read; small files of texts, labelled
  (``great film,pos``, ``pos<TAB>great film``) or not, are read as before;
- JSON records pretty-printed one after another (``jq .``) were refused as "malformed JSON
  ... expected one JSON object per line": read, each named by the line where it starts; one
  object holding the records in a field, or pandas' table of columns, is refused in one line
  saying what it is.
"""

import io
import json
import os
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topics._layouts import FASTTEXT_PREFIX, TEXT_NAMES

from cli_helpers import DOCS, docs_model, one_line_error, run_cli

SETTINGS = settings(max_examples=5, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: words of letters only (every model's tokens), all in the vocabulary of :func:`model`
WORDS = "cat sat mat stocks fell market dogs chase cats park bank raised interest rates".split()


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


# ---------------------------- class: token-per-line files, small, or not read from a file
POS_TAGS = ["NN", "VBD", "DT", "JJ", "IN", "NNP", "PRP$", ".", ",", "-LRB-"]
CHUNK_TAGS = ["B-NP", "I-NP", "B-VP", "O", "B-PER", "I-LOC", "S-ORG", "E-MISC"]


def _through(kind, folder, name, data, monkeypatch):
    """``(--data value, --format options)`` for ``data`` given as a file, on standard input
    or through a FIFO (written by a thread as the command reads it)."""
    if kind == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        return "-", ["--format", "tsv"]
    path = folder / name
    if kind == "file":
        path.write_bytes(data)
    else:
        os.mkfifo(path)

        def write():
            with open(path, "wb") as fh:
                fh.write(data)
        threading.Thread(target=write, daemon=True).start()
    return str(path), ["--format", "tsv"] if name.endswith(".tsv") else []


@st.composite
def _token_file(draw):
    """``(text, line of the first token)``: ``word TAG`` (or ``word POS CHUNK``, with an
    entity column too) lines of one sentence of 2 to 5 tokens, without a blank line, or of
    sentences of 6 tokens or more between blank lines."""
    width = draw(st.integers(2, 4))
    small = draw(st.booleans())
    lengths = [draw(st.integers(2, 5))] if small else draw(
        st.lists(st.integers(3, 8), min_size=2, max_size=4).filter(lambda v: sum(v) >= 6))
    words = iter(draw(st.permutations(WORDS)) * 4)
    sep = draw(st.sampled_from([" ", "\t"]))

    def token(i):
        tags = [draw(st.sampled_from(POS_TAGS)) for _ in range(width - 2)]
        last = draw(st.sampled_from(POS_TAGS if width == 2 else CHUNK_TAGS))
        word = next(words)
        return sep.join([word.title() if i == 0 else word, *tags, last]) + "\n"

    lead = draw(st.integers(0, 1))
    text = "\n" * lead + "\n".join("".join(token(i) for i in range(n)) for n in lengths)
    return text, lead + 1


@SETTINGS
@given(case=_token_file(), kind=st.sampled_from(["file", "stdin", "fifo"]),
       name=st.sampled_from(["tokens.txt", "tokens.tsv"]), cmd=st.sampled_from(["predict",
                                                                              "train"]))
def test_a_token_per_line_file_is_refused_however_it_comes(tmp_path_factory, capsys,
                                                           monkeypatch, model, case, kind,
                                                           name, cmd):
    """CoNLL lines on standard input or through a FIFO, and a file of a sentence of a few
    tokens (no blank line, fewer than 6 lines), were documents, one a token: refused at the
    first token, naming ``structpred tag``."""
    text, line = case
    folder = tmp_path_factory.mktemp("tok")
    data, fmt = _through(kind, folder, name, text.encode(), monkeypatch)
    argv = (["predict", "-m", str(model)] if cmd == "predict" else
            ["train", "--model", "nbsvm", "-o", str(folder / "m.npz")])
    rc, out, err = run_cli(["topics", *argv, "--data", data, *fmt], capsys)
    assert one_line_error(rc, err, f"{data}:{line}:", "token-per-line", "structpred tag"), err
    assert out == ""


@st.composite
def _small_texts(draw):
    """``(text, documents, labelled)``: 1 to 5 short texts in lower case, a line each:
    ``great film,pos`` (a text and a class name after a comma, read as a text), ``pos<TAB>great
    film`` (TSV), or texts alone, of one to four words (a capital first, or not)."""
    n = draw(st.integers(1, 5))
    style = draw(st.sampled_from(["comma", "tsv", "plain"]))
    lines = []
    for _ in range(n):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
        if draw(st.booleans()):
            words[0] = words[0].title()
        label = draw(st.sampled_from(["pos", "neg", "pets", "money"]))
        text = " ".join(words)
        lines.append({"comma": f"{text},{label}", "tsv": f"{label}\t{text}",
                      "plain": text}[style])
    return "".join(f"{line}\n" for line in lines), n, style == "tsv"


@SETTINGS
@given(case=_small_texts(), kind=st.sampled_from(["file", "stdin", "fifo"]))
def test_small_files_of_texts_are_read(tmp_path_factory, capsys, monkeypatch, model, case,
                                       kind):
    """A few lines of texts, labelled or not, are documents as before, however they come."""
    text, n, labelled = case
    folder = tmp_path_factory.mktemp("small")
    data, fmt = _through(kind, folder, "new.tsv" if labelled else "new.txt", text.encode(),
                         monkeypatch)
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", data, *fmt],
                           capsys)
    assert rc == 0, err
    assert len(out.splitlines()) == n


# ------------------------------------- class: JSON records over several lines each
@st.composite
def _records(draw):
    """``(text, records, first lines)``: 1 to 8 records of DOCS' classes written one after
    another, each on one line or pretty-printed over several (any indent, key order)."""
    n = draw(st.integers(1, 8))
    records, parts, starts, line = [], [], [], 1 + draw(st.integers(0, 2))
    for _ in range(n):
        rec = {"label": draw(st.sampled_from(["pets", "money"])),
               "text": " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1,
                                              max_size=6)))}
        if draw(st.booleans()):
            rec = dict(reversed(list(rec.items())))
        indent = draw(st.sampled_from([None, 0, 1, 2, 4, "\t"]))
        if not parts:
            indent = indent if indent is not None else 2   # the first spread over lines
        body = json.dumps(rec, indent=indent)
        records.append(rec)
        starts.append(line)
        gap = "\n" * draw(st.integers(1, 2))
        parts.append(body + gap)
        line += body.count("\n") + len(gap)
    return "\n" * (starts[0] - 1) + "".join(parts), records, starts


@SETTINGS
@given(case=_records(), suffix=st.sampled_from([".json", ".jsonl"]))
def test_json_records_over_several_lines_are_read(tmp_path_factory, case, suffix):
    """Each record read, named by its first line."""
    from topics._text_io import read_documents

    text, records, starts = case
    f = tmp_path_factory.mktemp("pretty") / f"docs{suffix}"
    f.write_text(text)
    docs = read_documents(f, labels="required")
    assert docs.texts == [r["text"] for r in records]
    assert docs.labels == [r["label"] for r in records]
    assert docs.sources == [f"{f}:{n}" for n in starts]


def test_pretty_printed_records_are_evaluated(tmp_path, capsys, model):
    records = [{"label": lab, "text": txt} for lab, txt in
               (line.split("\t") for line in DOCS.splitlines())]
    f = tmp_path / "docs.jsonl"
    f.write_text("\n".join(json.dumps(r, indent=2) for r in records) + "\n")
    rc, out, err = run_cli(["topics", "eval", "-m", str(model), "--data", str(f), "--format",
                            "jsonl"], capsys)
    assert rc == 0, err
    assert f"of {len(records)} documents)" in out


@SETTINGS
@given(indent=st.sampled_from([None, 2]), key=st.sampled_from(["data", "rows", "train"]),
       n=st.integers(1, 4), cmd=st.sampled_from(["predict", "eval"]))
def test_json_of_other_shapes_is_refused_saying_what_it_is(tmp_path_factory, capsys, model,
                                                           indent, key, n, cmd):
    """One object holding the records in a field, and pandas' ``to_json`` of a data frame
    (columns of row ids), are refused at line 1 naming what they are and how to write
    records."""
    rows = [{"text": f"the cat {i}", "label": "pets"} for i in range(n)]
    d = tmp_path_factory.mktemp("shapes")
    wrapped, columns = d / "wrapped.json", d / "columns.json"
    wrapped.write_text(json.dumps({"version": 1, key: rows}, indent=indent))
    columns.write_text(json.dumps({c: {str(i): r[c] for i, r in enumerate(rows)}
                                   for c in ("text", "label")}, indent=indent))
    for f, words in [(wrapped, (f"holding {n} record", repr(key), "jq -c")),
                     (columns, ("table of columns", "orient='records'"))]:
        rc, out, err = run_cli(["topics", cmd, "-m", str(model), "--data", str(f)], capsys)
        assert one_line_error(rc, err, f"{f}:1:", *words), err


@pytest.mark.parametrize("text, line", [
    ('{\n "label": "pets",\n "text": "the cat"\n}\n{\n "label": "pets",\n "text": \n', 7),
    ('{\n "label": "pets",\n "text": "the cat"\n},\n{"label": "pets", "text": "a"}\n', 4),
    ('{"label": "pets", "text": "the cat"}\n{"label": "pets",\n "text": "a", "text": "b"}\n', 2)])
def test_malformed_records_over_several_lines_name_the_line(tmp_path, capsys, model, text,
                                                            line):
    f = tmp_path / "docs.jsonl"
    f.write_text(text)
    rc, _, err = run_cli(["topics", "eval", "-m", str(model), "--data", str(f)], capsys)
    assert one_line_error(rc, err, f"{f}:{line}:"), err


def test_a_record_holding_a_list_of_other_objects_is_no_wrapper(tmp_path, capsys, model):
    """A list of objects without a text field (entity spans) is a field of a record: the
    message names the record's fields, as before."""
    f = tmp_path / "spans.jsonl"
    f.write_text('{"tokens": ["a"], "ner": [{"start": 0, "end": 1}]}\n')
    rc, _, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(f)], capsys)
    assert one_line_error(rc, err, f"{f}:1:", "no 'text' field", "'ner'"), err


@pytest.mark.parametrize("first", ["text", "review", "sentence"])
def test_a_one_column_tsv_header_is_said_in_the_reading_line(tmp_path, capsys, first):
    """``topics predict --format tsv`` of texts without labels takes a first line ``text``
    as the column's name; the reading line says so (a one-word first document ``text``
    would otherwise be one prediction short without a word)."""
    model = docs_model(tmp_path)
    data = tmp_path / "u.tsv"
    data.write_text(f"{first}\ndogs chase cats in the park\nstocks fell\n")
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data),
                            "--format", "tsv"], capsys)
    assert rc == 0 and len(out.split()) == 2
    assert f"read 2 documents from {data} (tsv; line 1, {first!r}, read as the header)" in err
    data.write_text("dogs chase cats in the park\nstocks fell\n")
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data),
                            "--format", "tsv"], capsys)
    assert rc == 0 and "read 2 documents from" in err and "read as the header" not in err
