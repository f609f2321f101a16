"""Unusual inputs of the command line, fourteenth sweep (issue 28, docs/errors.md), by class.

Fixed in this sweep:

- a byte-order mark at the start of a later line (files joined with ``cat``, each written
  with its mark): the mark was glued to the line's first token, so ``aer`` refused a
  Pharaoh line as "malformed link '\\ufeff0-0'", ``topics`` refused the labels as two
  spellings (or a JSON line as "Unexpected UTF-8 BOM"), and ``tag predict`` and the aligners
  read an unknown word ``\\ufeffConfidence`` with exit 0: it is dropped, as at line 1;
- ``-`` given to an input option that does not read standard input (``segment --manifest``,
  ``--images``, ``--points``, ``--masks``, ``--pred``): "-: no such file", as if no such
  file were meant; now the option is named as one that does not read standard input;
- ``topics --text-field text,text`` (or a CSV column by name and by number, or in two
  cases): the text was read twice, every word counted twice, with exit 0;
- ``topics train/eval --text-field title,label`` on JSON lines, whose label field is
  ``label`` by default: each document's label was read as a word of its text (the label
  leaked into the features), with exit 0;
- an output named ``.gz`` in capitals (``-o labels.txt.GZ``) was written as plain text,
  which ``gunzip`` refuses (``.BZ2`` was refused already), and a gold file ``GOLD.NAACL``
  was read as Pharaoh and refused;
- validation on copies of the training data (``cat a.txt a.txt`` as ``--data``): ``tag
  train`` validated on held-out sentences that were training sentences too, and ``topics
  train`` chose its model on copies of its documents, silently; both now warn;
- ``topics train --param C=1 --param C=2`` named the values ``(1 and '2')``;
- blank lines at the end of one side of a bitext, or of ``aer --test``: "line counts
  differ" gave the counts only; now it says that the surplus lines are blank;
- UTF-16 or UTF-32 text without a byte-order mark: "NUL byte at column 2: not a text
  file"; now named, with the ``iconv`` command (and UTF-32 with its mark is UTF-32);
- a CRLF file whose last line ends in a CR alone (its LF cut): refused as "CR-only (old
  Mac) line ends?"; now read.

The other inputs tried (recorded below as regression tests) were already handled: Pharaoh
links with ranges or a third column, line counts that differ, mixed CRLF and LF, UTF-16 with
and without a mark, truncated and not-gzip ``.gz``, bzip2 data, Latin-1 bytes, options given
twice, numbers at 0, negative, NaN or fractional, gold links listed twice, gold of the other
format, ``-`` for the inputs that read standard input, FIFOs as inputs, outputs in missing
folders, folders, devices and names ending in ``/``, models of another kind, a closed pipe
(``| head -1``) and an ASCII terminal for non-ASCII words.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from structpred.io import missing_reason, read_lines

ROOT = Path(__file__).resolve().parents[1]

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

BOM = "\ufeff"


def _w(path, text, encoding="utf-8"):
    Path(path).write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


# -------------------------------------------- class: byte-order marks of joined files
@SETTINGS
@given(lines=st.lists(st.text("ab é-0 ", max_size=6), min_size=1, max_size=8),
       marks=st.data(), crlf=st.booleans(), gz=st.booleans())
def test_a_byte_order_mark_at_the_start_of_any_line_is_dropped(tmp_path_factory, lines, marks,
                                                               crlf, gz):
    """``cat a.txt b.txt``, each written with a mark: the mark of ``b.txt`` starts a later
    line; it is read as the mark of line 1 is (dropped), never as a letter of a word."""
    import gzip

    marked = [(BOM if marks.draw(st.booleans()) else "") + ln for ln in lines]
    data = "".join(ln + ("\r\n" if crlf else "\n") for ln in marked).encode()
    path = tmp_path_factory.mktemp("bom") / ("f.txt.gz" if gz else "f.txt")
    path.write_bytes(gzip.compress(data) if gz else data)
    assert [t for _, t in read_lines(path)] == lines


def test_aer_reads_gold_joined_from_files_with_marks(tmp_path, capsys):
    gold = _w(tmp_path / "g.txt", "0-0 1-1\n" + BOM + "0-0\n")
    test = _w(tmp_path / "t.txt", "0-0 1-1\n0-0\n")
    rc, out, err = run_cli(["aer", "--gold", gold, "--gold-format", "pharaoh", "--test", test],
                           capsys)
    assert rc == 0 and "AER 0.00%" in out, err


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_topics_reads_documents_joined_from_files_with_marks(fmt, tmp_path):
    from topics import read_documents

    rows = [("fruit", "apple pear"), ("car", "engine road")]
    one = "".join((f"{lab}\t{txt}\n" if fmt == "tsv" else
                   f'{{"label": "{lab}", "text": "{txt}"}}\n') for lab, txt in rows)
    path = _w(tmp_path / f"d.{fmt}", BOM + one + BOM + one)
    docs = read_documents(path)
    assert list(docs.labels) == ["fruit", "car"] * 2
    assert list(docs.texts) == ["apple pear", "engine road"] * 2


# ------------------------------- class: '-' for an input that does not read standard input
def test_missing_reason_names_a_dash_as_no_standard_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "does not read standard input" in missing_reason("-")
    assert "does not read standard input" in missing_reason("-", "folder")
    assert missing_reason("other") == "no such file"
    (tmp_path / "-").write_text("x\n")    # a file named '-' is a file
    assert missing_reason("-") is None


@pytest.mark.parametrize("which", ["--pred", "--masks"])
def test_segment_eval_names_a_dash_for_a_folder(which, tmp_path, capsys):
    (tmp_path / "d").mkdir()
    other = "--masks" if which == "--pred" else "--pred"
    rc, _, err = run_cli(["segment", "eval", which, "-", other, str(tmp_path / "d")], capsys)
    assert one_line_error(rc, err, "-: no such folder", "does not read standard input"), err


def test_a_stem_index_of_a_dash_names_standard_input():
    from segmentation.data import StemIndex

    with pytest.raises(FormatError, match=re.escape("does not read standard input")):
        StemIndex("-")


# --------------------------------------------------- class: a text field named twice
def _json_docs(path, extra="title"):
    rows = [("fruit", "apple banana", "juice sweet"), ("car", "engine wheel", "road fuel")]
    return _w(path, "".join(f'{{"label": "{lab}", "{extra}": "{t}", "text": "{s} {i}"}}\n'
                            for i in range(3) for lab, t, s in rows))


@SETTINGS
@given(names=st.lists(st.sampled_from(["text", "title"]), min_size=2, max_size=4).filter(
    lambda v: len(set(v)) < len(v)))
def test_a_text_field_named_twice_is_refused(tmp_path_factory, capsys, names):
    """``--text-field text,text`` read each text twice, every word counted twice."""
    d = tmp_path_factory.mktemp("twice")
    data = _json_docs(d / "d.jsonl")
    rc, _, err = run_cli(["topics", "train", "--data", data, "--text-field", ",".join(names),
                          "-o", str(d / "m.npz")], capsys)
    assert one_line_error(rc, err, "--text-field", "a field named twice"), err
    assert not (d / "m.npz").exists()
    from topics import read_documents

    with pytest.raises(ValueError, match="names a field twice"):
        read_documents(data, text_field=names)


@pytest.mark.parametrize("fields", ["text,3", "text,TEXT", "3,3"])
def test_a_csv_column_named_twice_in_two_ways_is_refused(fields, tmp_path, capsys):
    rows = "".join(f"fruit,apple banana,juice {i}\ncar,engine wheel,road {i}\n" for i in range(3))
    data = _w(tmp_path / "d.csv", "label,title,text\n" + rows)
    rc, _, err = run_cli(["topics", "train", "--data", data, "--text-field", fields, "--model",
                          "nbsvm", "-o", str(tmp_path / "m.npz")], capsys)
    if fields == "3,3":   # refused as given, before reading
        assert one_line_error(rc, err, "a field named twice"), err
    else:
        assert one_line_error(rc, err, f"{data}:1", "names column 3 twice"), err
    assert not (tmp_path / "m.npz").exists()


def test_two_different_csv_columns_are_read():
    from topics import read_documents

    import tempfile
    with tempfile.TemporaryDirectory() as d:
        data = _w(Path(d) / "d.csv", "label,title,text\nfruit,apple,pear\n")
        docs = read_documents(data, text_field="title,text")
    assert list(docs.texts) == ["apple pear"]


# ---------------------------------------- class: the default label field read as text
@pytest.mark.parametrize("command", ["train", "eval"])
def test_the_default_label_field_among_the_text_fields_is_refused(command, topic_model,
                                                                  tmp_path, capsys):
    """JSON lines take their label from ``label`` by default; ``--text-field title,label``
    read each document's label as a word of its text (the label in the features)."""
    data = _json_docs(tmp_path / "d.jsonl")
    argv = ["topics", command, "--data", data, "--text-field", "title,label"]
    argv += (["-o", str(tmp_path / "m.npz")] if command == "train" else
             ["-m", str(topic_model / "m.npz")])
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "'label' is both the label and a text field"), err
    assert not (tmp_path / "m.npz").exists()


def test_predict_takes_a_field_named_label_as_text(tmp_path):
    """Without labels to read, a field named ``label`` may be a text field."""
    from topics import read_documents

    data = _json_docs(tmp_path / "d.jsonl")
    docs = read_documents(data, labels="optional", text_field="title,label")
    assert docs.texts[0] == "apple banana fruit"


# ------------------------------------------- regression: inputs that were already handled
GOLD = "0-0 1-1\n0-0\n"


@pytest.mark.parametrize("name,data,words", [
    ("range.txt", "0-0-1 1-1\n0-0\n", "malformed link '0-0-1'"),
    ("extra.txt", "0-0 1-1 x\n0-0\n", "malformed link 'x'"),
    ("three.txt", GOLD + "0-0\n", "3 lines but the gold"),
    ("u16.txt", GOLD.encode("utf-16"), "UTF-16"),
    ("u16le.txt", GOLD.encode("utf-16-le"), "UTF-16 encoded, without a byte-order mark"),
    ("trunc.txt.gz", None, "corrupt or truncated gzip data"),
    ("plain.txt.gz", GOLD, "not gzip data"),
    ("b.txt.bz2", None, "bzip2 data"),
    ("g.naacl", "1 1 1 S\n1 2 2 S\n2 1 1 S\n", "looks like NAACL gold")])
def test_aer_refuses_test_links_of_another_shape(name, data, words, tmp_path, capsys):
    import bz2
    import gzip

    if name == "trunc.txt.gz":
        data = gzip.compress(GOLD.encode())[:20]
    if name == "b.txt.bz2":
        data = bz2.compress(GOLD.encode())
    test = _w(tmp_path / name, data)
    gold = _w(tmp_path / "gold.txt", GOLD)
    rc, _, err = run_cli(["aer", "--gold", gold, "--gold-format", "pharaoh", "--test", test],
                         capsys)
    assert one_line_error(rc, err, name, words), err


@pytest.mark.parametrize("test", ["0-0 1-1\r\n0-0\n", "0-0 0-0 1-1\n0-0\n",
                                  "1-1 0-0\n0-0\r\n"])
def test_aer_reads_mixed_line_ends_and_links_listed_twice(test, tmp_path, capsys):
    gold = _w(tmp_path / "gold.txt", GOLD)
    rc, out, err = run_cli(["aer", "--gold", gold, "--gold-format", "pharaoh", "--test",
                            _w(tmp_path / "t.txt", test)], capsys)
    assert rc == 0 and "AER 0.00%" in out, err


@pytest.mark.parametrize("extra,words", [
    (["--errors", "-1"], "--errors: must be an integer >= 0"),
    (["--errors", "nan"], "--errors: must be an integer"),
    (["--errors", "2.5"], "--errors: must be an integer"),
    (["--test", "x"], "--test: given twice"),
    (["--plot", "nod/p.png"], "does not exist"),
    (["--plot", "."], "is a folder"),
    (["--plot", "/dev/full"], "it is a device"),
    (["--plot", "p.png", "--sentences", "0"], "--sentences: must be an integer >= 1"),
    (["--plot", "p.png", "--sentences", "1-2"], "--sentences: must be an integer"),
    (["--plot", "p.png", "--sentences", "99"], "99 out of range")])
def test_aer_option_values_that_are_refused(extra, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, text in (("g.txt", GOLD), ("s.txt", "a b\nc\n"), ("t.txt", "x y\nz\n")):
        _w(name, text)
    rc, _, err = run_cli(["aer", "--gold", "g.txt", "--gold-format", "pharaoh", "--test",
                          "g.txt", "--src", "s.txt", "--tgt", "t.txt"] + extra, capsys)
    assert one_line_error(rc, err, words), err
    assert not (tmp_path / "p.png").exists()


def test_aer_reads_standard_input_and_a_fifo(tmp_path, capsys, monkeypatch):
    import io
    import threading

    gold = _w(tmp_path / "g.txt", GOLD)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOLD.encode())))
    rc, out, err = run_cli(["aer", "--gold", gold, "--gold-format", "pharaoh", "--test", "-"],
                           capsys)
    assert rc == 0 and "AER 0.00%" in out, err
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(GOLD))
    writer.start()
    rc, out, err = run_cli(["aer", "--gold", gold, "--gold-format", "pharaoh", "--test",
                            str(fifo)], capsys)
    writer.join()
    assert rc == 0 and "AER 0.00%" in out, err


@pytest.mark.parametrize("argv,words", [
    (["tag", "train", "--data", "d", "-o", "m.npz", "--iterations", "0"], ">= 1"),
    (["tag", "train", "--data", "d", "-o", "m.npz", "--iterations", "1e9"], "an integer"),
    (["tag", "train", "--data", "d", "-o", "m.npz", "--iterations", "2", "--iterations", "3"],
     "given twice"),
    (["tag", "train", "--data", "d", "-o", "m.npz", "--radius", "nan"], "finite"),
    (["tag", "train", "--data", "d", "-o", "m.npz", "--radius", "-1"], "> 0"),
    (["tag", "train", "--data", "d", "-o", "m.npz", "--valid-fraction", "1"], "(0, 0.5)"),
    (["topics", "train", "--data", "d", "-o", "m.npz", "--ngrams", "99999"], "at most 10"),
    (["topics", "train", "--data", "d", "-o", "m.npz", "--jobs", "0"], ">= 1 or negative"),
    (["topics", "train", "--data", "d", "-o", "m.npz", "--time-budget", "inf"], "finite"),
    (["segment", "predict", "-m", "m", "--images", "i", "-o", "o", "--limit", "-1"], ">= 1"),
    (["align", "predict", "-m", "m", "--show-weights", "-1"], ">= 0"),
    (["align", "predict", "-m", "m", "-j", "0"], ">= 1 or negative"),
    (["align", "train", "--src", "s", "--tgt", "t", "-o", "m.npz", "--max-length", "0"],
     ">= 1"),
    (["align", "train", "--src", "s", "--tgt", "t", "-o", "m.npz", "--max-fertility", "2.5"],
     "an integer"),
    (["align", "train", "--src", "s", "--tgt", "t", "-o", "m.npz", "--c-pos", "nan"],
     "finite"),
    (["align", "train", "--src", "s", "--tgt", "t", "-o", "m.npz", "--hmm", "1e3"],
     "an integer")])
def test_sizes_of_every_command_are_refused_as_given(argv, words, capsys):
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, words), err


@pytest.fixture(scope="module")
def topic_model(tmp_path_factory):
    from structpred.cli import main

    d = tmp_path_factory.mktemp("topics14")
    rows = [("fruit", "apple banana pear juice sweet"), ("car", "engine wheel road fuel bus")]
    (d / "t.tsv").write_text("".join(f"{lab}\t{txt} {i}\n" for i in range(6)
                                     for lab, txt in rows))
    assert main(["topics", "train", "--data", str(d / "t.tsv"), "--model", "nbsvm",
                 "-o", str(d / "m.npz"), "-q"]) == 0
    return d


@pytest.mark.parametrize("argv,words", [
    (["tag", "predict", "-i", "t.tsv", "-o", "o.txt"], "not a sequence tagger model"),
    (["align", "predict", "--src", "t.tsv", "--tgt", "m.npz"], "not a word-alignment model"),
    (["segment", "predict", "--images", ".", "-o", "out"], "not a structpred segmentation")])
def test_a_topic_model_given_to_other_commands(topic_model, argv, words, capsys,
                                               monkeypatch):
    monkeypatch.chdir(topic_model)
    rc, _, err = run_cli(argv[:2] + ["-m", "m.npz"] + argv[2:], capsys)
    assert one_line_error(rc, err, "m.npz", words), err
    assert not (topic_model / "o.txt").exists() and not (topic_model / "out").exists()


@pytest.mark.parametrize("output,words", [
    ("t.tsv", "would overwrite the input"), ("nodir/o.txt", "does not exist"),
    (".", "is a folder"), ("o.txt/", "ends in a slash"), ("/dev/full", "it is a device")])
def test_topics_predict_outputs_that_are_refused(topic_model, output, words, capsys,
                                                 monkeypatch):
    monkeypatch.chdir(topic_model)
    rc, _, err = run_cli(["topics", "predict", "-m", "m.npz", "--data", "t.tsv", "-o", output],
                         capsys)
    assert one_line_error(rc, err, words), err


@pytest.mark.subprocess
def test_a_closed_pipe_and_an_ascii_terminal(tmp_path):
    """``| head -1`` closes the pipe after one line: status 0 and no traceback; a terminal
    of ASCII only (``LANG=C``, ``PYTHONIOENCODING=ascii``) still gets non-ASCII words."""
    for name, text in (("g.txt", GOLD), ("s.txt", "café au\nlait\n"), ("t.txt", "ça x\ny\n")):
        _w(tmp_path / name, text)
    _w(tmp_path / "p.txt", "0-1 1-0\n0-0\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), LANG="C", LC_ALL="C",
               PYTHONIOENCODING="ascii")
    cmd = [sys.executable, "-m", "structpred", "aer", "--gold", "g.txt", "--gold-format",
           "pharaoh", "--test", "p.txt", "--src", "s.txt", "--tgt", "t.txt", "--errors", "5"]
    p = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    head = [p.stdout.readline() for _ in range(3)]
    p.stdout.close()      # as '| head -3' does
    err = p.stderr.read()
    assert p.wait(timeout=60) == 0 and head[0].startswith(b"precision"), err
    assert "café - x".encode() in head[2], head
    assert b"Traceback" not in err and b"Broken pipe" not in err, err


@pytest.mark.parametrize("first,second", [("1", "2"), ("1.0", "abc"), ("true", "1")])
def test_a_param_given_twice_shows_both_values_as_given(first, second, topic_model, capsys,
                                                        monkeypatch):
    """``--param C=1 --param C=2`` said "given twice (1 and '2')": the first value as
    JSON read it, the second as typed."""
    monkeypatch.chdir(topic_model)
    rc, _, err = run_cli(["topics", "train", "--data", "t.tsv", "-o", "n.npz", "--model",
                          "nbsvm", "--param", f"C={first}", "--param", f"C={second}"], capsys)
    assert one_line_error(rc, err, f"--param C given twice ({first!r} and {second!r})"), err
    assert not (topic_model / "n.npz").exists()


# ------------------------------------------- class: compressed names in another case
def _cases(suffix):
    return st.lists(st.booleans(), min_size=len(suffix), max_size=len(suffix)).map(
        lambda up: "".join(c.upper() if u else c for c, u in zip(suffix, up)))


@SETTINGS
@given(gz=_cases(".gz"), text=st.text("ab é\n", max_size=20))
def test_an_output_named_gz_in_any_case_is_gzipped(tmp_path_factory, gz, text):
    """``-o out.txt.GZ`` was written as plain text (``gunzip`` refuses it), while
    ``out.txt.BZ2`` was refused as the name of another compressor."""
    import gzip

    from structpred.io import atomic_write, gz_name

    assert gz_name(f"out.txt{gz}")
    path = tmp_path_factory.mktemp("gz") / f"out.txt{gz}"
    with atomic_write(path) as fh:
        fh.write(text)
    assert gzip.decompress(path.read_bytes()).decode() == text
    plain = path.with_name(f"plain.txt{gz}")
    plain.write_text("a\n")
    with pytest.raises(FormatError, match=re.escape("not gzip data, although the name ends "
                                                    "in .gz")):
        list(read_lines(plain))


def test_topics_predict_gzips_labels_named_gz_in_capitals(topic_model, capsys, monkeypatch):
    import gzip

    monkeypatch.chdir(topic_model)
    rc, _, err = run_cli(["topics", "predict", "-m", "m.npz", "--data", "t.tsv", "-o",
                          "labels.txt.GZ"], capsys)
    assert rc == 0, err
    assert gzip.decompress((topic_model / "labels.txt.GZ").read_bytes()).split()[:2] == [
        b"fruit", b"car"]


def test_two_scans_whose_names_differ_by_a_gz_in_capitals_are_refused():
    from segmentation._outputs import planned_names
    from structpred.cli import UserError

    assert planned_names("points", ["a/s.txt.GZ"]) == ["s.txt.pred.txt"]
    with pytest.raises(UserError, match=re.escape("its prediction would be s.txt.pred.txt")):
        planned_names("points", ["a/s.txt", "b/s.txt.Gz"])


def test_aer_reads_a_naacl_file_named_in_capitals(tmp_path, capsys):
    gold = _w(tmp_path / "GOLD.NAACL", "1 1 1 S\n1 2 2 S\n2 1 1 S\n")
    rc, out, err = run_cli(["aer", "--gold", gold, "--test", _w(tmp_path / "t.txt", GOLD)],
                           capsys)
    assert rc == 0 and "AER 0.00%" in out, err


# ------------------------------- class: validation held out from copies of training data
SENTENCES = [[("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP"), (".", ".", "O")],
             [("The", "DT", "B-NP"), ("dog", "NN", "I-NP"), ("sleeps", "VBZ", "B-VP")],
             [("A", "DT", "B-NP"), ("cat", "NN", "I-NP"), ("eats", "VBZ", "B-VP")],
             [("We", "PRP", "B-NP"), ("sing", "VBP", "B-VP"), ("!", ".", "O")],
             [("They", "PRP", "B-NP"), ("swim", "VBP", "B-VP"), (".", ".", "O")],
             [("Birds", "NNS", "B-NP"), ("fly", "VBP", "B-VP"), ("high", "RB", "B-ADVP")]]


def _conll(sentences):
    return "\n".join("".join(" ".join(tok) + "\n" for tok in s) for s in sentences)


@SETTINGS
@given(copies=st.integers(2, 3), unique=st.integers(0, 2))
def test_tag_validation_sentences_that_are_training_ones_warn(copies, unique):
    """``cat a.txt a.txt`` as ``--data``: every held-out sentence is a training one too, and
    the iteration was chosen on them silently."""
    import warnings

    from sequence.cli import _warn_of_copies

    X = [[t[:2] for t in s] for s in SENTENCES]
    valid = X[:2] * copies + [[("new", "JJ")]] * unique
    with pytest.warns(UserWarning, match=re.escape("validation sentences (the first: 'He "
                                                   "runs .') are training sentences too")):
        _warn_of_copies("v.txt", X, valid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_of_copies("v.txt", X[2:], X[:2])            # no copies
        _warn_of_copies("v.txt", X, X[:1] + [[("new", "JJ")]] * 2)   # one of three


def test_tag_train_on_a_file_joined_to_itself_warns(tmp_path, capsys):
    data = _w(tmp_path / "d.txt", _conll(SENTENCES * 2))
    rc, _, err = run_cli(["tag", "train", "--data", data, "-o", str(tmp_path / "m.npz"),
                          "--iterations", "1", "--valid-fraction", "0.2", "-q"], capsys)
    lines = err.strip().splitlines()
    assert rc == 0 and len(lines) == 1 and lines[0].startswith("structpred: warning: "), err
    assert "are training sentences too" in lines[0], err


@pytest.mark.parametrize("valid", [False, True])
def test_topics_train_on_copies_of_its_documents_warns(valid, tmp_path, capsys):
    rows = [("fruit", "apple banana pear"), ("car", "engine wheel road")]
    # 5 of each class: with fewer, a second warning says the choice is made on too few
    # documents per class (sweep 23)
    one = "".join(f"{lab}\t{txt} {i}\n" for i in range(5) for lab, txt in rows)
    data = _w(tmp_path / "d.tsv", one * (1 if valid else 2))
    argv = ["topics", "train", "--data", data, "-o", str(tmp_path / "m.npz"), "-q",
            "--time-budget", "1"]
    if valid:
        argv += ["--valid-data", _w(tmp_path / "v.tsv", one)]
    rc, _, err = run_cli(argv, capsys)
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("structpred: warning")]
    words = "validation documents" if valid else "are copies of one another"
    assert rc == 0 and len(lines) == 1 and words in lines[0], err


def test_topics_train_on_distinct_documents_does_not_warn(topic_model, tmp_path, capsys):
    rc, _, err = run_cli(["topics", "train", "--data", str(topic_model / "t.tsv"), "-o",
                          str(tmp_path / "m.npz"), "-q", "--time-budget", "1"], capsys)
    assert rc == 0 and "warning" not in err, err


# ------------------------------------------------- class: blank lines at the end of a file
BLANKS = st.lists(st.sampled_from(["", " ", "\t", "  "]), min_size=1, max_size=3)


@SETTINGS
@given(blanks=BLANKS, which=st.sampled_from(["src", "tgt"]), words=st.booleans())
def test_bitext_lines_beyond_the_other_side_that_are_blank_get_a_hint(
        tmp_path_factory, blanks, which, words):
    """An editor's empty lines at the end of one side: "line counts differ" named the
    counts only; now it says that the surplus lines are blank (and only then)."""
    from alignment.data.corpus import paired_lines
    from alignment.data.formats import read_parallel

    d = tmp_path_factory.mktemp("tail")
    extra = blanks + (["word"] if words else [])
    sides = {"src": ["a b", "c"], "tgt": ["x y", "z"]}
    sides[which] = sides[which] + extra
    src = _w(d / "s.txt", "".join(ln + "\n" for ln in sides["src"]))
    tgt = _w(d / "t.txt", "".join(ln + "\n" for ln in sides["tgt"]))
    for read in (lambda: list(paired_lines(src, tgt)), lambda: read_parallel(src, tgt)):
        with pytest.raises(FormatError, match="line counts differ") as info:
            read()
        n = len(extra)
        hint = f"its last {'line is' if n == 1 else f'{n} lines are'} blank"
        assert (hint in str(info.value)) == (not words), str(info.value)


@pytest.mark.parametrize("tail,hint", [("\n", True), ("\n\n", True), ("0-0\n", False)])
def test_aer_names_blank_lines_after_the_last_sentence(tail, hint, tmp_path, capsys):
    test = _w(tmp_path / "t.txt", GOLD + tail)
    rc, _, err = run_cli(["aer", "--gold", _w(tmp_path / "g.txt", GOLD), "--gold-format",
                          "pharaoh", "--test", test], capsys)
    assert one_line_error(rc, err, "but the gold", "has 2 sentences"), err
    assert ("blank: empty lines at the end? remove them" in err) == hint, err


# --------------------------------------------- class: UTF-16 and UTF-32 without a mark
@SETTINGS
@given(text=st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=2,
                    max_size=30),
       codec=st.sampled_from(["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]),
       lines=st.integers(1, 3))
def test_wide_text_without_a_byte_order_mark_is_named(tmp_path_factory, text, codec, lines):
    """Windows tools write UTF-16 without a mark; it was "NUL byte at column 2: not a text
    file" (with the mark: "UTF-16 encoded", with the iconv command)."""
    from structpred.io import binary_kind

    path = tmp_path_factory.mktemp("wide") / "f.txt"
    data = ((text + "\n") * lines).encode(codec)
    path.write_bytes(data)
    name, order = codec[:6].upper(), codec[-2:].upper()
    words = f"{name} encoded, without a byte-order mark (convert it to UTF-8, e.g. iconv -f " \
            f"{name}{order} -t UTF-8)"
    with pytest.raises(FormatError, match=re.escape(words)):
        list(read_lines(path))
    assert binary_kind(data) == words


@pytest.mark.parametrize("data,words", [
    (b"a\x00b c\n", "NUL byte at column 2"), (b"\x00\x00\x00\x00ab\n", "NUL byte at column 1"),
    ("0-0\n".encode("utf-32"), "UTF-32 encoded (convert"),
    ("0-0\n".encode("utf-16"), "UTF-16 encoded (convert")])
def test_other_nul_bytes_are_named_as_before(data, words, tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    with pytest.raises(FormatError, match=re.escape(words)):
        list(read_lines(path))


# ------------------------------------------- class: a CRLF file cut after its last CR
@SETTINGS
@given(lines=st.lists(st.text("ab -0", min_size=1, max_size=5), min_size=1, max_size=4))
def test_a_last_line_ending_in_a_carriage_return_is_read(tmp_path_factory, lines):
    """``a\\r\\nb\\r`` (a CRLF file whose last line end lost its LF) was refused as
    "carriage return (CR) ... inside a line: CR-only (old Mac) line ends?"."""
    path = tmp_path_factory.mktemp("cr") / "f.txt"
    path.write_bytes(("\r\n".join(lines) + "\r").encode())
    assert [t for _, t in read_lines(path)] == lines
    if len(lines) > 1:   # CR-only line ends are still refused
        path.write_bytes(("\r".join(lines) + "\r").encode())
        with pytest.raises(FormatError, match=re.escape("CR-only (old Mac) line ends?")):
            list(read_lines(path))


def test_folder_format_from_standard_input_names_what_stdin_can_be(tmp_path, capsys):
    """``topics train --data - --format folder`` said only "-: --format folder needs a
    folder"; standard input is one file, so the refusal names the formats it can be."""
    from cli_helpers import one_line_error, run_cli

    rc, _, err = run_cli(["topics", "train", "--data", "-", "--format", "folder", "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "--format folder needs a folder",
                          "standard input holds one file"), err
