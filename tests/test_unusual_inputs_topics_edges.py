"""Unusual inputs to ``structpred topics train|predict|eval``, each read as it stands for
or refused in one line naming the file and line:

- a model file written before, whose stored classes are whole numbers written as decimals
  (``1.0``): ``predict`` wrote ``1.0`` where ``eval`` scored ``1``; the stored classes are
  read through :func:`topics._layouts.label_name` once, when the model is loaded;
- ``--valid-data`` is read with ``--format`` as ``--data`` is (it was always ``auto``);
- ``0.5`` beside ``0.50`` stays refused (``3.1`` and ``3.10`` may be versions), saying why;
- a ``*.txt`` file whose first line is a header of columns (``text,label``) is refused
  naming ``--format csv`` (or ``tsv``): the header was read as a document;
- a label of white space and invisible characters only (a class folder ``' '``, a
  zero-width space) is refused in every format (``predict`` wrote a blank line for it);
- ``--valid-fraction`` that holds out no document, or leaves one a class to fit on, is
  refused naming the option (the data was blamed, or the vocabulary found empty);
- ``nan`` (``None``, ``<NA>``, ...) beside class numbers is refused: a missing value;
- a TSV file whose every field is quoted (R's ``write.table``) is refused at line 1;
- JSON lines or CSV given as ``--format fasttext`` are refused at line 1 (each raw line was
  a text), ``label<TAB>text`` lines one warning;
- JSON lines given as ``--format csv`` are refused at line 1 (split at their commas);
- ``great film,pos`` without a header (text first, class names second) is refused;
- ``eval --plot`` of hundreds of classes, or of a class name of thousands of characters,
  draws a figure of bounded size in seconds, its matrix visible;
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from topics._persist import load_model, save_model

from cli_helpers import DOCS, one_line_error, run_cli

SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: the classes of :data:`DOCS` as class numbers
NUMBERED = DOCS.replace("pets\t", "1\t").replace("money\t", "0\t")


@pytest.fixture(scope="module")
def numbered_model(tmp_path_factory):
    """A model trained on :data:`NUMBERED` (classes ``0`` and ``1``), and its data file."""
    d = tmp_path_factory.mktemp("numbered")
    data = d / "train.tsv"
    data.write_text(NUMBERED)
    model = d / "m.npz"
    from structpred.cli import main
    assert main(["topics", "train", "--data", str(data), "--model", "nbsvm", "--min-df", "1",
                 "-q", "-o", str(model)]) == 0
    return model, data


def _rewrite_classes(model, out, spell):
    """``model`` written again to ``out`` with each stored class ``c`` spelt ``spell(c)``,
    as an older version stored pandas' ``1.0``."""
    saved = load_model(model)
    est = saved.estimator
    est.classes_ = np.asarray([spell(str(c)) for c in est.classes_])
    save_model(out, est, model=saved.model, vocabulary=saved.vocabulary)
    return out


def _accuracy(out):
    m = re.search(r"accuracy: [\d.]+% \((\d+) of (\d+) document", out)
    return int(m.group(1)), int(m.group(2))


# ------------------------------------------- class: stored classes written as decimals
@SETTINGS
@given(zeros=st.integers(1, 3), sign=st.sampled_from(["", "+"]))
def test_stored_decimal_classes_are_predicted_and_scored_as_numbers(
        tmp_path_factory, capsys, numbered_model, zeros, sign):
    """``predict`` writes the class names ``eval`` scores: ``1`` for a stored ``1.0``
    (``1.00``, ``+1.0``), and ``eval`` counts correct exactly the documents whose
    prediction is their label."""
    model, data = numbered_model
    old = _rewrite_classes(model, tmp_path_factory.mktemp("old") / "old.npz",
                           lambda c: f"{sign}{c}." + "0" * zeros)
    assert load_model(old).labels == ["0", "1"]
    rc, out, err = run_cli(["topics", "predict", "-m", str(old), "--data", str(data)], capsys)
    assert rc == 0, err
    pred = out.splitlines()
    gold = [line.partition("\t")[0] for line in NUMBERED.splitlines()]
    assert set(pred) <= {"0", "1"} and len(pred) == len(gold)
    rc, out, err = run_cli(["topics", "eval", "-m", str(old), "--data", str(data)], capsys)
    assert rc == 0, err
    assert _accuracy(out) == (sum(p == g for p, g in zip(pred, gold)), len(gold))


def test_stored_classes_that_are_one_class_now_are_refused(tmp_path, capsys, numbered_model):
    """A model whose classes ``1`` and ``1.0`` are one name as labels are read now: no input
    can tell them apart, refused naming both."""
    model, data = numbered_model
    old = _rewrite_classes(model, tmp_path / "two.npz", lambda c: "1" if c == "1" else "1.0")
    for cmd in ("predict", "eval"):
        rc, _, err = run_cli(["topics", cmd, "-m", str(old), "--data", str(data)], capsys)
        assert one_line_error(rc, err, str(old), "'1'", "'1.0'", "retrain"), err


# ------------------------------------------------ class: --valid-data with --format
def _as(fmt, rows):
    """``(label, text)`` rows written in ``fmt``."""
    import csv
    import io
    import json

    if fmt == "jsonl":
        return "".join(json.dumps({"label": lab, "text": t}) + "\n" for lab, t in rows)
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([("label", "text"), *rows])
        return out.getvalue()
    if fmt == "fasttext":
        return "".join(f"__label__{lab} {t}\n" for lab, t in rows)
    return "".join(f"{lab}\t{t}\n" for lab, t in rows)


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl", "fasttext"])
def test_validation_data_is_read_with_the_format_given(tmp_path, capsys, fmt):
    """``--valid-data`` is read with ``--format`` as ``--data`` is (it was always read with
    ``auto``: a ``*.txt`` validation file of ``label<TAB>text`` lines, given beside
    ``--format tsv``, was refused as texts without labels). The validation file here holds
    a label training lacks, refused only once its labels are read."""
    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    train, valid = tmp_path / "train.txt", tmp_path / "valid.txt"
    train.write_text(_as(fmt, rows))
    valid.write_text(_as(fmt, rows[:4] + [("birds", "the owl flew over the barn")]))
    rc, _, err = run_cli(["topics", "train", "--data", str(train), "--format", fmt,
                          "--valid-data", str(valid), "-q", "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, str(valid), "not in the training data", "birds"), err


@pytest.mark.slow
def test_validation_data_of_the_format_given_trains(tmp_path, capsys):
    """The whole choice on a ``*.txt`` validation file read with ``--format tsv``."""
    train, valid = tmp_path / "train.txt", tmp_path / "valid.txt"
    train.write_text(DOCS)
    valid.write_text(DOCS.replace("the ", "a "))
    model = tmp_path / "m.npz"
    rc, out, err = run_cli(["topics", "train", "--data", str(train), "--format", "tsv",
                            "--valid-data", str(valid), "-q", "-o", str(model)], capsys)
    assert rc == 0, err
    assert "12 validation documents given" in out
    assert load_model(model).labels == ["money", "pets"]


# --------------------------------------- class: one decimal written with other zeros
@SETTINGS
@given(whole=st.integers(0, 9), frac=st.integers(1, 9), zeros=st.integers(1, 3),
       fmt=st.sampled_from(["tsv", "csv"]))
def test_a_decimal_written_two_ways_is_refused_saying_why(tmp_path_factory, capsys, whole,
                                                          frac, zeros, fmt):
    """``0.5`` beside ``0.50`` in one file (or a test file's ``0.50`` against a model's
    ``0.5``) stays refused, now saying why it is not read as one class as ``1.0`` and ``1``
    are: a decimal other than a whole number is a name as written (``3.1`` and ``3.10`` may
    be two versions, which one class would merge in silence)."""
    d = tmp_path_factory.mktemp("half")
    short, long = f"{whole}.{frac}", f"{whole}.{frac}" + "0" * zeros
    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    data = d / f"train.{fmt}"
    data.write_text(_as(fmt, [(short if lab == "pets" and i % 4 else
                               long if lab == "pets" else lab, t)
                              for i, (lab, t) in enumerate(rows)]))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", "nbsvm",
                          "-q", "-o", str(d / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{data}:", repr(long), repr(short),
                          "one number written two ways", "3.1 and 3.10"), err


def test_whole_decimals_with_other_zeros_are_one_class(tmp_path, capsys):
    """``2.0`` beside ``2.00`` and ``2`` is the class ``2``, in one file (no hint: whole)."""
    data = tmp_path / "t.tsv"
    data.write_text(DOCS.replace("pets\t", "2.00\t", 2).replace("pets\t", "2.0\t", 2)
                    .replace("pets\t", "2\t"))
    model = tmp_path / "m.npz"
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", "nbsvm",
                          "--min-df", "1", "-q", "-o", str(model)], capsys)
    assert rc == 0, err
    assert load_model(model).labels == ["2", "money"]


# -------------------------------------------- class: a header line in a *.txt file
#: what follows a first line naming the text column alone, by the hint of its refusal: a
#: layout that line lacks (labels before a tab, CSV's quotes, fastText labels)
_AFTER_NAME = {"--format tsv": "pos\tthe cat sat\nneg\tstocks fell\n",
               "--format csv": 'the cat sat\n"stocks fell, ""sharply"""\n',
               "fastText lines have no header": "__label__a the cat sat\n__label__b stocks fell\n"}


@st.composite
def _header(draw):
    """``(line, words of the refusal, the lines after it)``: a header of a label and a text
    column (ids too), any case, separated by commas, tabs or semicolons, before texts; or a
    text column's name alone before texts of a layout it lacks."""
    from topics._text_io import ID_NAMES, LABEL_NAMES, TEXT_NAMES

    text = draw(st.sampled_from(TEXT_NAMES))
    if draw(st.booleans()):
        hint = draw(st.sampled_from(sorted(_AFTER_NAME)))
        return (draw(st.sampled_from([text, text.title(), text.upper()])), hint,
                _AFTER_NAME[hint])
    other = draw(st.sampled_from(LABEL_NAMES + ID_NAMES))
    sep = draw(st.sampled_from([",", "\t", ";"]))
    fields = draw(st.permutations([text, other]))
    line = sep.join(draw(st.sampled_from([f, f.title(), f.upper()])) for f in fields)
    return (line, f"--format {'tsv' if sep == chr(9) else 'csv'}",
            'the cat sat\nstocks fell, "sharply"\n')


@SETTINGS
@given(header=_header(), blank=st.booleans(), cmd=st.sampled_from(["predict", "eval"]))
def test_a_header_line_in_a_txt_file_is_refused_naming_the_format(
        tmp_path_factory, capsys, numbered_model, header, blank, cmd):
    """A ``*.txt`` file (texts, one a line) whose first line is a header of columns
    (``text,label``, ``label<TAB>text``; ``text`` before lines of labels or quotes) was read
    with the header as a document: ``predict`` wrote one label more than the texts. Refused
    at that line, naming the format that reads the header (not read as CSV unasked: the
    other lines' commas and quotes would be read anew)."""
    line, words, after = header
    model, _ = numbered_model
    f = tmp_path_factory.mktemp("hdr") / "new.txt"
    f.write_text(("\n" if blank else "") + line + "\n" + after)
    rc, out, err = run_cli(["topics", cmd, "-m", str(model), "--data", str(f)], capsys)
    assert one_line_error(rc, err, f"{f}:{2 if blank else 1}:", "header", words), err
    assert out == ""


@pytest.mark.parametrize("first", ["the text, the label", "text label", "texts,labels",
                                   "label,category", "reviews"])
def test_a_txt_file_of_texts_like_column_names_is_read(tmp_path, capsys, numbered_model,
                                                       first):
    """A first line of words that is no header (prose around column names, names of no
    text column, other words) is a text, labelled with the others."""
    model, _ = numbered_model
    f = tmp_path / "new.txt"
    f.write_text(f"{first}\nthe cat sat\n")
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(f)], capsys)
    assert rc == 0, err
    assert len(out.splitlines()) == 2


# ------------------------------------- class: confusion figures of many or long classes
def _png_size(path):
    from PIL import Image

    with Image.open(path) as im:
        return im.size


def test_a_confusion_figure_of_many_classes_is_bounded(tmp_path, n=120):
    """``eval --plot`` of hundreds of classes drew a count in every cell and grew half an
    inch a class (300 classes: 2 min 40 s and a 15,000-pixel figure; 1,000: none after
    8 min). The figure's side is bounded, the counts are left out beyond
    ``MAX_CELL_NUMBERS`` classes and the names beyond ``MAX_TICK_LABELS``."""
    from topics.cli import _plot_confusion as plot_confusion

    rng = np.random.default_rng(n)
    cm = rng.integers(0, 3, (n, n))
    path = tmp_path / "cm.png"
    plot_confusion(cm, [f"class {i}" for i in range(n)], 0.5, str(path), "nbsvm")
    assert max(_png_size(path)) <= 31 * 100    # 30 inches and the colour bar's, at 100 dpi


@SETTINGS
@given(length=st.integers(41, 3000), n=st.integers(2, 4))
def test_a_confusion_figure_of_long_class_names_has_room_for_the_matrix(
        tmp_path_factory, length, n):
    """A class name of thousands of characters took the whole figure (matplotlib's "Tight
    layout not applied", a warning line, and no matrix to see): names are cut to 40
    characters along the axes, so the layout holds and no warning is given."""
    import warnings

    from topics.cli import _plot_confusion as plot_confusion

    path = tmp_path_factory.mktemp("long") / "cm.png"
    names = ["x" * length] + [f"c{i}" for i in range(1, n)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_confusion(np.eye(n, dtype=np.int64), names, 1.0, str(path), "nbsvm")
    assert max(_png_size(path)) <= 1000


# ------------------------------------------------ class: labels with nothing to see
@SETTINGS
@given(label=st.text(st.sampled_from(" \u00a0\u200b\u2060\ufeff\u200e\ufe0f\u3000"),
                     min_size=1, max_size=4),
       fmt=st.sampled_from(["tsv", "csv", "jsonl", "fasttext", "folder"]))
def test_a_label_of_invisible_characters_is_refused(tmp_path_factory, capsys, label, fmt):
    """A label of white space and invisible characters only (a class folder named ``' '``
    or a no-break space, a zero-width space before a tab) was a class whose name
    ``predict`` wrote as a blank line; refused in every format naming the file, as an empty
    label is."""
    d = tmp_path_factory.mktemp("blank")
    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    rows = [(label if lab == "pets" else lab, t) for lab, t in rows]
    if fmt == "folder":
        data = d / "docs"
        for i, (lab, t) in enumerate(rows):
            (data / lab).mkdir(parents=True, exist_ok=True)
            (data / lab / f"{i}.txt").write_text(t)
    else:
        data = d / f"docs.{fmt}"
        data.write_text(_as(fmt, rows))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", "nbsvm",
                          "-q", "-o", str(d / "m.npz")], capsys)
    assert one_line_error(rc, err, str(data)), err
    assert "no visible character" in err or "empty" in err, err


# ---------------------------------- class: validation fractions that leave nothing
@pytest.fixture(scope="module")
def corpus_to_hold_out_from(tmp_path_factory):
    """A TSV file of ``CV_BELOW`` documents of three classes: ``--valid-fraction`` applies."""
    from topics.registry import CV_BELOW

    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    data = tmp_path_factory.mktemp("big") / "big.tsv"
    data.write_text("".join(f"{lab}\t{t} {i}\n" for i in range(CV_BELOW // len(rows) + 1)
                            for lab, t in rows))
    return data


@pytest.mark.parametrize("fraction,words", [("1e-9", "holds out no document"),
                                            ("0.0004", "holds out no document"),
                                            ("0.9999", "leaves one document of each class")])
def test_a_validation_fraction_that_leaves_nothing_is_refused(tmp_path, capsys,
                                                             corpus_to_hold_out_from,
                                                             fraction, words):
    """``--valid-fraction 1e-9`` held out no document ("too few documents to hold out a
    validation set", blaming the data) and ``0.9999`` fitted the candidates on one document
    a class (refused for an empty vocabulary): each refused naming the option."""
    rc, _, err = run_cli(["topics", "train", "--data", str(corpus_to_hold_out_from),
                          "--valid-fraction", fraction, "-q", "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, f"--valid-fraction {float(fraction)}", words), err


# ------------------------------------- class: missing class numbers written as text
@SETTINGS
@given(missing=st.sampled_from(["nan", "NaN", "None", "null", "NULL", "<NA>", "NA", "n/a"]),
       numbers=st.sampled_from([("0", "1"), ("1.0", "0.0"), ("-1", "1"), ("2.5", "4")]),
       fmt=st.sampled_from(["tsv", "csv", "fasttext"]), cmd=st.sampled_from(["train", "eval"]))
def test_a_missing_value_beside_class_numbers_is_refused(tmp_path_factory, capsys,
                                                         numbered_model, missing, numbers,
                                                         fmt, cmd):
    """``nan`` beside class numbers (``df.label.astype(str)`` of a column with NaN, a
    nullable integer's ``<NA>``, SQL's ``NULL``) was a class ``nan`` trained without a word;
    refused at its line, in training and evaluation."""
    d = tmp_path_factory.mktemp("nan")
    rows = [tuple(line.split("\t")) for line in NUMBERED.splitlines()]
    rows = [(missing if i == 5 else numbers[int(lab)], t) for i, (lab, t) in enumerate(rows)]
    data = d / f"docs.{fmt}"
    data.write_text(_as(fmt, rows))
    model, _ = numbered_model
    argv = (["train", "--model", "nbsvm", "-o", str(d / "m.npz")] if cmd == "train" else
            ["eval", "-m", str(model)])
    rc, _, err = run_cli(["topics", *argv, "--data", str(data)], capsys)
    line = 7 if fmt == "csv" else 6
    assert one_line_error(rc, err, f"{data}:{line}:", repr(missing), "missing value"), err


def test_none_beside_class_names_is_a_class(tmp_path, capsys):
    """Beside labels that are words, ``none`` may be a class of its own (no topic): read."""
    data = tmp_path / "docs.tsv"
    data.write_text(DOCS.replace("pets\t", "none\t"))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", "nbsvm",
                          "--min-df", "1", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err
    assert load_model(tmp_path / "m.npz").labels == ["money", "none"]


# ------------------------------------------------- class: TSV of quoted fields
@SETTINGS
@given(header=st.booleans(), row_names=st.booleans(), cmd=st.sampled_from(["train", "predict"]))
def test_tsv_of_quoted_fields_is_refused(tmp_path_factory, capsys, numbered_model, header,
                                         row_names, cmd):
    """R's ``write.table(sep="\\t")`` quotes every field (and writes row names): read as
    TSV, its header ``"label"<TAB>"text"`` was a document of a class ``"label"`` and every
    class kept its quotes. Refused at the first line, naming the way out."""
    d = tmp_path_factory.mktemp("quoted")
    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    lines = (['"label"\t"text"'] if header else []) + [
        (f'"{i + 1}"\t' if row_names else "") + f'"{lab}"\t"{t}"' for i, (lab, t) in
        enumerate(rows)]
    data = d / "docs.tsv"
    data.write_text("\n".join(lines) + "\n")
    model, _ = numbered_model
    argv = (["train", "--model", "nbsvm", "-o", str(d / "m.npz")] if cmd == "train" else
            ["predict", "-m", str(model)])
    rc, out, err = run_cli(["topics", *argv, "--data", str(data)], capsys)
    assert one_line_error(rc, err, f"{data}:1:", "double quotes", "quote=FALSE"), err
    assert out == ""


# ---------------------------- class: other formats given as --format fasttext
@pytest.mark.parametrize("fmt,words", [("jsonl", "--format jsonl"), ("csv", "--format csv")])
def test_other_formats_read_as_fasttext_are_refused(tmp_path, capsys, numbered_model, fmt,
                                                    words):
    """``predict --format fasttext`` of JSON lines or CSV read each raw line as a text
    (field names, the header and the labels words of it), exit status 0: refused at the
    first line as a ``*.txt`` file's are."""
    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    data = tmp_path / f"docs.{fmt}"
    data.write_text(_as(fmt, rows))
    model, _ = numbered_model
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data),
                            "--format", "fasttext"], capsys)
    assert one_line_error(rc, err, f"{data}:1:", words), err
    assert out == ""


def test_tsv_read_as_fasttext_is_one_warning(tmp_path, capsys, numbered_model):
    """``label<TAB>text`` lines given as ``--format fasttext`` are texts whose first word is
    the label: one warning naming ``--format tsv``, as for a ``*.txt`` file."""
    data = tmp_path / "docs.ft"
    data.write_text(DOCS)
    model, _ = numbered_model
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data),
                            "--format", "fasttext", "-q"], capsys)
    assert rc == 0 and len(out.splitlines()) == 12
    assert "word and a tab ('pets'" in err and "--format tsv" in err, err


@pytest.mark.parametrize("argv", [["--format", "csv"], ["--format", "tsv", "--text-field", "text"],
                                  ["--format", "csv", "--label-field", "1"]])
def test_json_lines_read_as_columns_are_refused(tmp_path, capsys, numbered_model, argv):
    """JSON lines given as CSV (or as TSV by columns) were split at their commas, the label
    ``{"label": "pets"`` and the text ``"text": "the cat sat"}``, exit status 0."""
    rows = [tuple(line.split("\t")) for line in DOCS.splitlines()]
    data = tmp_path / "docs.jsonl"
    data.write_text(_as("jsonl", rows))
    model, _ = numbered_model
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data), *argv],
                           capsys)
    assert one_line_error(rc, err, f"{data}:1:", "a JSON object", "--format jsonl"), err


def test_validation_file_beside_a_folder_format_is_read_by_what_it_is(tmp_path, capsys):
    """``--format folder`` names the layout of ``--data``: a validation *file* beside it is
    read by its name (``--format folder`` does not fit a file), as before."""
    folder = tmp_path / "train"
    for i, line in enumerate(DOCS.splitlines()):
        lab, t = line.split("\t")
        (folder / lab).mkdir(parents=True, exist_ok=True)
        (folder / lab / f"{i}.txt").write_text(t)
    valid = tmp_path / "valid.tsv"
    valid.write_text("pets\tthe owl sat\nbirds\tthe owl flew\n")
    rc, _, err = run_cli(["topics", "train", "--data", str(folder), "--format", "folder",
                          "--valid-data", str(valid), "-q", "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, str(valid), "not in the training data", "birds"), err


@pytest.mark.parametrize("content", ["", "\n \n", "label\ttext\n", "text\n", "[\n]\n"])
def test_inputs_without_documents_say_what_they_hold(tmp_path, capsys, numbered_model,
                                                     content):
    """An empty file, blank lines, a TSV header alone or an empty JSON array: one line (it
    said "empty or blank file" of a header alone)."""
    data = tmp_path / ("docs.json" if content.startswith("[") else "docs.tsv")
    data.write_text(content)
    model, _ = numbered_model
    rc, _, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data)], capsys)
    assert one_line_error(rc, err, f"{data}:1:", "no documents",
                          "header alone" if content[:1].isalpha() else "empty"), err


# --------------------------------------- class: text first, class names second
@SETTINGS
@given(names=st.sampled_from([("pos", "neg"), ("sports", "business"), ("1", "0"),
                              ("spam", "ham")]),
       fmt=st.sampled_from(["tsv", "csv"]), cmd=st.sampled_from(["train", "predict"]))
def test_text_then_class_name_columns_are_refused(tmp_path_factory, capsys, numbered_model,
                                                  names, fmt, cmd):
    """``great film,pos`` without a header (the text first) was read as the label ``great
    film`` and the text ``pos``: ``predict`` classified the class names (numbers were
    refused already). Refused at the first line, naming the swap."""
    d = tmp_path_factory.mktemp("swapped")
    rows = [(t, names[lab == "money"]) for lab, t in
            (line.split("\t") for line in DOCS.splitlines())]
    data = d / f"docs.{fmt}"
    data.write_text("".join(f"{t}{',' if fmt == 'csv' else chr(9)}{n}\n" for t, n in rows))
    model, _ = numbered_model
    argv = (["train", "--model", "nbsvm", "-o", str(d / "m.npz")] if cmd == "train" else
            ["predict", "-m", str(model)])
    rc, _, err = run_cli(["topics", *argv, "--data", str(data)], capsys)
    assert one_line_error(rc, err, f"{data}:1:", "the other way round", repr(names[0])), err
