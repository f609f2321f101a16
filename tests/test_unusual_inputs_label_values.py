"""Label values as exporters write them, given to ``structpred topics train|predict|eval``
(``topics._layouts.label_name``): each is read as the class it stands for, alike in every
format and command, or refused in one line naming the file and line.

- JSON booleans (``{"text": ..., "label": true}``: HuggingFace's exports of BoolQ-like or
  ``is_spam`` fields) were refused ("must be a string or a finite number, got boolean"):
  they are the classes ``true`` and ``false`` (the JSON spelling, which ``predict``
  writes), as is the text ``True``/``False`` of pandas' CSV; the string ``"true"`` is the
  same class, and ``true`` beside ``0``/``1`` in one file is refused (one class or two?);
- whole numbers written as decimals (``1.0``, ``0.0``: pandas' ``to_csv`` of a column of
  class numbers holding a NaN) were classes of their own beside ``1`` (refused in one file
  and against a model of ``1``): they are the number, in CSV, TSV, JSON lines, fastText
  and folders; other decimals (``0.5``) are classes as written;
- a ``*.txt`` file under ``--format auto`` was "cannot tell the format from the file
  name": it is one text a line without a label, whatever tabs it holds, for ``predict``,
  and refused for ``train`` and ``eval`` naming the file, the line and ``--format tsv``.
"""

import csv
import io
import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred.io import FormatError
from topics._persist import load_model
from topics._text_io import read_documents

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: texts of three classes, four documents each
TEXTS = (("great film loved it", "wonderful acting superb cast", "brilliant story great fun",
          "excellent cast loved every minute"),
         ("terrible boring film", "awful acting dull plot", "waste of time bad story",
          "horrible cast poor direction"),
         ("engine wheel road drive", "bus engine fuel road", "car wheel drive fast",
          "truck road fuel engine"))


def _write(path, fmt, rows):
    """Rows ``(label value, text)`` as ``fmt`` writes them: JSON lines with the value as a
    JSON value, CSV and TSV with the text of a Python value (``True``, ``1.0``), as pandas'
    ``to_csv`` writes them."""
    if fmt == "jsonl":
        path.write_text("".join(json.dumps({"text": t, "label": v}) + "\n" for v, t in rows))
    elif fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["label", "text"])
        w.writerows([(repr(v) if isinstance(v, float) else str(v), t) for v, t in rows])
        path.write_text(out.getvalue())
    else:
        path.write_text("".join(f"{repr(v) if isinstance(v, float) else v}\t{t}\n"
                                for v, t in rows))
    return path


def _train(tmp_path, capsys, data, *more):
    model = tmp_path / "m.npz"
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", "nbsvm",
                          "--min-df", "1", "-q", "-o", str(model), *more], capsys)
    assert rc == 0, err
    return model


def _predict(capsys, model, data):
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(data),
                            "-o", "-"], capsys)
    assert rc == 0, err
    return out.splitlines()


def _eval(capsys, model, data):
    """The number of documents ``topics eval`` counts correct, and how many it scored."""
    rc, out, err = run_cli(["topics", "eval", "-m", str(model), "--data", str(data)], capsys)
    assert rc == 0, err
    m = re.search(r"accuracy: [\d.]+% \((\d+) of (\d+) document", out)
    return int(m.group(1)), int(m.group(2))


# ------------------------------------------------------------ class: JSON booleans
def test_json_booleans_are_the_classes_true_and_false(tmp_path, capsys):
    rows = [(i % 2 == 0, TEXTS[i % 2][i // 2 % 4]) for i in range(8)]
    data = _write(tmp_path / "train.jsonl", "jsonl", rows)
    model = _train(tmp_path, capsys, data)
    assert load_model(model).labels == ["false", "true"]
    pred = _predict(capsys, model, data)
    assert set(pred) <= {"false", "true"}
    gold = ["true" if v else "false" for v, _ in rows]
    assert _eval(capsys, model, data) == (sum(p == g for p, g in zip(pred, gold)), 8)
    # pandas' CSV of the same column writes True/False: the same classes
    assert _eval(capsys, model, _write(tmp_path / "test.csv", "csv", rows)) == \
        _eval(capsys, model, data)


def test_a_json_boolean_and_its_string_are_one_class(tmp_path):
    f = tmp_path / "d.jsonl"
    f.write_text('{"text": "a fine film", "label": true}\n'
                 '{"text": "a poor film", "label": "true"}\n'
                 '{"text": "a dull film", "label": false}\n'
                 '{"text": "a long film", "label": "False"}\n')
    assert read_documents(f).labels == ["true", "true", "false", "false"]


@pytest.mark.parametrize("other", ['1', '0', '"1"', '0.0'])
def test_json_booleans_beside_class_numbers_are_refused(tmp_path, capsys, other):
    """``true`` beside ``1``: two exports of one column joined (Python's ``True == 1``)
    would be four classes."""
    f = tmp_path / "d.jsonl"
    f.write_text('{"text": "a fine film", "label": true}\n'
                 '{"text": "a poor film", "label": false}\n'
                 f'{{"text": "a dull film", "label": {other}}}\n'
                 '{"text": "a long film", "label": 1}\n')
    rc, _, err = run_cli(["topics", "train", "--data", str(f), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, f"{f}:3: the label 'true' (a boolean) beside the label "
                          f"'{json.loads(other)!s:.1}'", "one class or two?"), err
    # predict reads no label: the same file is texts to label
    assert len(read_documents(f, labels="optional")) == 4


# --------------------------------------------- class: whole numbers written as decimals
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_class_numbers_written_as_decimals_are_the_numbers(tmp_path, capsys, fmt):
    """Training on ``1.0``/``0.0`` (pandas after a NaN), predicting, and scoring a file of
    ``1``/``0`` agree: one set of classes, ``0`` and ``1``."""
    rows = [(float(i % 2), TEXTS[i % 2][i // 2 % 4]) for i in range(8)]
    data = _write(tmp_path / f"train.{fmt}", fmt, rows)
    model = _train(tmp_path, capsys, data)
    assert load_model(model).labels == ["0", "1"]
    pred = _predict(capsys, model, data)
    assert set(pred) <= {"0", "1"}
    ints = _write(tmp_path / "test.tsv", "tsv", [(int(v), t) for v, t in rows])
    gold = [str(int(v)) for v, _ in rows]
    assert _eval(capsys, model, ints) == (sum(p == g for p, g in zip(pred, gold)), 8)
    assert _eval(capsys, model, data) == _eval(capsys, model, ints)


def test_a_model_of_classes_written_as_decimals_scores_them_as_numbers(tmp_path, capsys):
    """A model written before, whose classes are ``0.0`` and ``1.0`` (through the Python
    API, or ``topics train`` of earlier versions), scores a test file of ``1.0`` or of ``1``
    alike, and ``predict`` writes ``0``/``1``: its classes are read as
    :func:`topics._layouts.label_name` reads labels, once, when it is loaded."""
    from topics import NBSVM, Vocabulary
    from topics._persist import save_model

    rows = [(float(i % 2), TEXTS[i % 2][i // 2 % 4]) for i in range(8)]
    vocab = Vocabulary(min_df=1)
    est = NBSVM().fit(vocab.fit_transform([t for _, t in rows]), [repr(v) for v, _ in rows])
    model = tmp_path / "old.npz"
    save_model(model, est, model="nbsvm", vocabulary=vocab)
    assert load_model(model).labels == ["0", "1"]   # read as labels are read now
    decimals = _write(tmp_path / "test.tsv", "tsv", rows)
    ints = _write(tmp_path / "test.csv", "csv", [(int(v), t) for v, t in rows])
    pred = _predict(capsys, model, ints)
    assert set(pred) <= {"0", "1"}     # predict writes the classes eval scores
    right = sum(p == str(int(v)) for p, (v, _) in zip(pred, rows))
    assert _eval(capsys, model, decimals) == _eval(capsys, model, ints) == (right, 8)


def test_one_file_mixing_1_and_1_0_is_two_classes_not_three(tmp_path, capsys):
    rows = [((1, 1.0)[i // 2 % 2] if i % 2 else 0, TEXTS[i % 2][i // 2 % 4]) for i in range(8)]
    model = _train(tmp_path, capsys, _write(tmp_path / "mixed.tsv", "tsv", rows))
    assert load_model(model).labels == ["0", "1"]


@pytest.mark.parametrize("text,name", [("1.0", "1"), ("-1.0", "-1"), ("3.", "3"),
                                       ("2.00", "2"), ("0.5", "0.5"), ("1e0", "1e0"),
                                       ("01", "01"), ("TRUE", "true"), ("١.0", "١.0")])
def test_label_texts_and_their_class_names(tmp_path, text, name):
    """Only a whole number written as a decimal changes (and ``true``/``false`` in another
    case); ``0.5`` is a class as written, ``01`` and ``1e0`` too (refused beside ``1`` as
    one number written two ways), and digits of other scripts are not numbers here."""
    for fmt, line in (("tsv", f"{text}\ta fine film\n"), ("csv", f"{text},a fine film\n"),
                      ("fasttext", f"__label__{text} a fine film\n")):
        f = tmp_path / f"d.{fmt}"
        f.write_text(line, encoding="utf-8")
        assert read_documents(f, fmt).labels == [name]
    (tmp_path / "folder" / text).mkdir(parents=True)
    (tmp_path / "folder" / text / "1.txt").write_text("a fine film")
    assert read_documents(tmp_path / "folder").labels == [name]


# ------------------------------------------------------------ class: the three commands
def _value(kind, n):
    """A label value of the class ``n`` (0, 1 or 2) of ``kind``."""
    return {"bool": st.just(n == 1), "int": st.just(n),
            "float": st.sampled_from([n, float(n)]),
            "half": st.sampled_from([n + 0.5])}[kind]


@st.composite
def _labelled(draw):
    """``(kind, [(class, value)])``: the class of each of 8 documents (both of the first
    two at least; three classes but for booleans) and a value written for it."""
    kind = draw(st.sampled_from(["bool", "int", "float", "half"]))
    top = 1 if kind == "bool" else draw(st.integers(1, 2))
    classes = [0, 1] + draw(st.lists(st.integers(0, top), min_size=6, max_size=6))
    return kind, [(n, draw(_value(kind, n))) for n in classes]


def _name(kind, n):
    return {"bool": "true" if n else "false", "half": repr(n + 0.5)}.get(kind, str(n))


@SETTINGS
@given(labelled=_labelled(), train_fmt=st.sampled_from(["jsonl", "csv", "tsv"]),
       test_fmt=st.sampled_from(["jsonl", "csv", "tsv"]), again=st.data())
def test_label_values_agree_across_formats_and_commands(tmp_path_factory, capsys, labelled,
                                                       train_fmt, test_fmt, again):
    """Random label values (integers, whole and other decimals, booleans) written in a
    random format for training and another for testing, each document's value drawn anew
    for the test file: the model's classes are the classes' names, ``predict`` writes them,
    and ``eval`` counts correct exactly the documents whose prediction is their class."""
    d = tmp_path_factory.mktemp("labels")
    kind, docs = labelled
    texts = [TEXTS[n][i % 4] for i, (n, _) in enumerate(docs)]
    data = _write(d / f"train.{train_fmt}", train_fmt,
                  [(v, t) for (_, v), t in zip(docs, texts)])
    model = _train(d, capsys, data)
    assert load_model(model).labels == sorted({_name(kind, n) for n, _ in docs})
    test = _write(d / f"test.{test_fmt}", test_fmt,
                  [(again.draw(_value(kind, n)), t) for (n, _), t in zip(docs, texts)])
    pred = _predict(capsys, model, test)
    assert pred == _predict(capsys, model, data)
    gold = [_name(kind, n) for n, _ in docs]
    assert _eval(capsys, model, test) == (sum(p == g for p, g in zip(pred, gold)), 8)


# -------------------------------------------------------- class: *.txt under auto
TABBED = "a great film\tloved it\nterrible\tboring\tfilm\n\nno tab in this one\n"


def test_a_txt_file_is_texts_to_label_whatever_tabs_they_hold(tmp_path, capsys):
    """Each line of ``*.txt`` is one document, tabs and all: ``predict`` labels the texts
    as ``--format tsv`` does the same texts without their tabs."""
    model = _train(tmp_path, capsys, _write(
        tmp_path / "train.tsv", "tsv", [(("pos", "neg")[i % 2], TEXTS[i % 2][i // 2])
                                        for i in range(8)]))
    txt = tmp_path / "new.txt"
    txt.write_text(TABBED)
    docs = read_documents(txt, labels="optional")
    assert docs.format == "text" and docs.labels == [None] * 3
    assert docs.texts == ["a great film\tloved it", "terrible\tboring\tfilm",
                          "no tab in this one"]
    assert docs.sources == [f"{txt}:1", f"{txt}:2", f"{txt}:4"]
    plain = tmp_path / "plain.tsv"
    plain.write_text(TABBED.replace("\t", " "))
    assert _predict(capsys, model, txt) == _predict(capsys, model, plain)


@pytest.mark.parametrize("command", ["train", "eval"])
def test_a_txt_file_to_train_on_names_the_format_that_reads_labels(tmp_path, capsys,
                                                                   command):
    model = _train(tmp_path, capsys, _write(
        tmp_path / "train.tsv", "tsv", [(("pos", "neg")[i % 2], TEXTS[i % 2][i // 2])
                                        for i in range(8)]))
    txt = tmp_path / "labelled.txt"
    txt.write_text(f"\npos\t{TEXTS[0][0]}\nneg\t{TEXTS[1][0]}\npos\t{TEXTS[0][1]}\n")
    argv = (["-o", str(tmp_path / "m2.npz"), "--model", "nbsvm"] if command == "train"
            else ["-m", str(model)])
    rc, _, err = run_cli(["topics", command, "--data", str(txt), *argv], capsys)
    assert one_line_error(rc, err, f"{txt}:2:", "without labels", "--format tsv"), err
    rc, _, err = run_cli(["topics", command, "--data", str(txt), "--format", "tsv", *argv],
                         capsys)
    assert rc == 0, err


def test_fasttext_lines_in_a_txt_file_are_still_fasttext(tmp_path):
    f = tmp_path / "train.ft.txt"
    f.write_text("__label__pos a great film\n__label__neg a poor film\n")
    docs = read_documents(f)
    assert docs.format == "fasttext" and docs.labels == ["pos", "neg"]
    txt = tmp_path / "x.txt"
    txt.write_text("a fine film\n")
    with pytest.raises(FormatError, match="--label-field and --text-field apply"):
        read_documents(txt, labels="optional", text_field="text")


def test_a_txt_file_of_json_lines_is_refused_naming_the_format(tmp_path):
    f = tmp_path / "new.txt"
    f.write_text('\n{"text": "a fine film"}\n{"text": "a poor film"}\n')
    with pytest.raises(FormatError, match=re.escape(f"{f}:2: a JSON object: the file holds "
                                                    "JSON lines")):
        read_documents(f, labels="optional")


@pytest.mark.parametrize("lines,warned", [
    (["pos\ta fine film", "neg\ta poor film", "pos\tloved it", "neg\thated it"], True),
    (["pos\ta fine film", "neg\ta poor film", "pos\tloved it", "a long film"], False),
    (["a b\tc", "a b\td", "a b\te"], False),
    (["one\ta", "two\tb", "three\tc", "four\td"], False)])
def test_a_txt_file_that_looks_labelled_is_one_warning(tmp_path, lines, warned):
    """Lines ``label<TAB>text`` in a ``*.txt`` file are texts (the label a word of each):
    one warning naming ``--format tsv`` when every line starts with one of a few words and
    a tab."""
    f = tmp_path / "new.txt"
    f.write_text("".join(line + "\n" for line in lines))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = read_documents(f, labels="optional")
    assert docs.texts == lines
    said = [str(w.message) for w in caught]
    assert said == ([f"{f}: every line starts with a word and a tab ('pos', ...), read as a "
                     "word of its text (a *.txt file is texts without labels): if it is a "
                     "label, give --format tsv"] if warned else []), said
