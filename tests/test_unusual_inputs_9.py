"""Unusual inputs of the command line, ninth sweep (issue 28, docs/errors.md), by class:

- meaning: ``tag eval`` on a file none of whose labels the model knows (a POS file given
  to a chunker, exit 0 with "accuracy 0.00"), or whose chunks are all of types the model
  never saw (an NER file given to a chunker: chunk F1 0), or that holds no chunk at all
  (every label ``O``: "F1 0.00" for an undefined F1), is refused; some unknown labels
  (BILOU's ``L-``/``U-`` given to an IOBES model) get a warning; a column count that
  differs from the model's was "expected 2 columns, found 3", naming neither the model nor
  which side was wrong;
- meaning: ``topics predict``/``eval`` on documents none of which has a word the model's
  vocabulary keeps (a corpus in another language) labelled every one with the same class,
  exit 0: refused; some such documents get a warning;
- sizes: ``topics train --min-df 1.0`` (a count of 1 by the help, "a fraction if N < 1")
  was read as scikit-learn reads 1.0, the fraction 100 %, and ``--min-df 2.0`` refused;
- paths: a link to nothing, a loop of links or a FIFO inside a ``topics`` class folder was
  skipped silently (a document lost); an empty class folder left its class out without a
  word (now a warning);
- formats of other tools: a semicolon-separated CSV (``label;text``) was "no label column
  ... (no header)", and Excel's first line ``sep=;`` was read as the header; a ``.json`` file holding one JSON array of records was "got a JSON
  array"; a TSV header ``category<TAB>text`` was a document of class "category",
  ``text`` alone before unlabelled texts one more document, and ``text<TAB>label`` was
  refused only as "every document has a label of its own"; ``--stop-words English`` was "no such file"; a CoNLL-U (or GermEval 2014)
  file given to ``tag predict`` came out as ``form label`` lines (comments, multiword
  tokens, empty nodes and the other columns lost), and ``index token`` lines (GermEval
  without its entity columns) were tagged from the numbers, the words dropped as labels;
- meaning: a probability map given as a mask was hinted as a class-index mask; a manifest
  row of split ``Train`` was left out of ``--split train`` silently, and an unknown split
  named none of the manifest's; ``tag train --valid-data`` of other columns than
  ``--data`` was "expected 3 columns, found 2" (or a model "trained on" before any);
- sizes: ``segment train --valid-fraction 0.9`` on four images held every one out and
  said "no training data"; ``tag train`` wrote a model that scored 0 at every validation
  (``--radius 1e-300`` on a random NER file) without a warning, and
  ``--relative-radius 1e308`` gave numpy's "overflow encountered in scalar multiply";
- labels that matplotlib reads as formulas (``$5 and $6``): ``topics eval --plot`` was a
  traceback after the evaluation;
- images of several frames (an animated GIF, a multi-page TIFF image or mask) were read as
  their first frame without a word (now a warning).
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import DOCS, one_line_error, run_cli

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

CHUNKS = ("the DT B-NP\ncat NN I-NP\nsat VBD B-VP\n. . O\n\n"
          "a DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n") * 4
IOBES = ("John S-PER\nwent O\nto O\nNew B-LOC\nYork E-LOC\n\n"
         "Mary S-PER\nsaw O\nthe O\nBig B-ORG\nCorp E-ORG\n\n") * 4


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    from structpred.cli import main

    d = tmp_path_factory.mktemp("models9")
    (d / "chunks.txt").write_text(CHUNKS)
    (d / "iobes.txt").write_text(IOBES)
    (d / "docs.tsv").write_text(DOCS)
    for name in ("chunks", "iobes"):
        assert main(["tag", "train", "--data", str(d / f"{name}.txt"), "-o",
                     str(d / f"{name}.npz"), "--iterations", "5", "-q"]) == 0
    assert main(["topics", "train", "--data", str(d / "docs.tsv"), "--model", "nbsvm",
                 "--min-df", "1", "-q", "-o", str(d / "topics.npz")]) == 0
    return d


# ------------------------------------------------- class: labels the tagger does not know
@SETTINGS
@given(labels=st.lists(st.sampled_from(["NOUN", "VERB", "DET", "ADJ", "X", "PUNCT"]),
                       min_size=3, max_size=3))
def test_tag_eval_of_labels_the_model_does_not_know_is_refused(models, tmp_path, capsys,
                                                                 labels):
    """A file of another tag set (POS given to a chunker) was scored "accuracy 0.00"
    with exit status 0."""
    f = tmp_path / "pos.txt"
    f.write_text("".join(f"w{i} DT {lab}\n" for i, lab in enumerate(labels)) + "\n")
    rc, out, err = run_cli(["tag", "eval", "-m", str(models / "chunks.npz"), "--data",
                            str(f)], capsys)
    assert one_line_error(rc, err, str(f), "no token has a label the model knows"), err
    assert out == ""


def test_tag_eval_of_chunks_of_types_the_model_does_not_know_is_refused(models, tmp_path,
                                                                         capsys):
    """An NER file given to a chunker shares ``O`` only: chunk F1 was 0, exit 0."""
    f = tmp_path / "ner.txt"
    f.write_text("John NNP B-PER\nran VBD O\n\nParis NNP B-LOC\n. . O\n\n")
    rc, out, err = run_cli(["tag", "eval", "-m", str(models / "chunks.npz"), "--data",
                            str(f)], capsys)
    assert one_line_error(rc, err, str(f), "no chunk has a type the model knows",
                          "'LOC', 'PER'"), err


def test_tag_eval_of_bilou_labels_with_an_iobes_model_warns(models, tmp_path, capsys):
    """BILOU's ``L-``/``U-`` are IOBES's ``E-``/``S-``: chunk F1 reads them alike, token
    accuracy counts them as errors; it did so without a word."""
    f = tmp_path / "bilou.txt"
    f.write_text(IOBES.replace(" S-", " U-").replace(" E-", " L-"))
    rc, out, err = run_cli(["tag", "eval", "-m", str(models / "iobes.npz"), "--data",
                            str(f)], capsys)
    # the file holds the training sentences (their words): that warning comes too
    # (tests/test_unusual_inputs_12.py)
    warning = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")
               and "is the data the model was trained on" not in ln]
    assert rc == 0 and len(warning) == 1, err
    assert "'L-LOC'" in warning[0] and "BILOU" in warning[0] and "counted as errors" in warning[0]
    assert "F1" in out


def test_tag_eval_of_known_labels_gets_no_warning(models, capsys):
    train = models / "chunks.txt"
    rc, out, err = run_cli(["tag", "eval", "-m", str(models / "chunks.npz"), "--data",
                            str(train)], capsys)
    # the training file: only the warning that says so (tests/test_unusual_inputs_12.py)
    assert rc == 0 and "F1" in out
    assert err.splitlines() == [f"structpred: warning: {train} is the data the model was "
                                "trained on (all of its 8 sentences); its score is not a "
                                "test score"], err


@pytest.mark.parametrize("model, lines, found", [
    ("iobes", "John NNP S-PER\nran VBD O\n\n", "3 columns"),
    ("chunks", "the B-NP\ncat I-NP\n\n", "2 columns")])
def test_tag_eval_column_count_names_the_model(models, tmp_path, capsys, model, lines, found):
    """It was "FILE:1: expected 2 columns, found 3": the file seemed inconsistent."""
    f = tmp_path / "cols.txt"
    f.write_text(lines)
    rc, _, err = run_cli(["tag", "eval", "-m", str(models / f"{model}.npz"), "--data",
                          str(f)], capsys)
    assert one_line_error(rc, err, str(f), found, "the model was trained on"), err


# ------------------------------------------------- class: documents without a known word
def test_topics_predict_of_documents_without_a_known_word_is_refused(models, tmp_path,
                                                                      capsys):
    """Russian posts given to an English model: every one got the same label, exit 0."""
    f = tmp_path / "ru.tsv"
    f.write_text("ракета полетела в космос\nкомпьютерная графика алгоритм\n")
    out_file = tmp_path / "labels.txt"
    rc, _, err = run_cli(["topics", "predict", "-m", str(models / "topics.npz"), "--data",
                          str(f), "-o", str(out_file)], capsys)
    assert one_line_error(rc, err, str(f), "no document has a word"), err
    assert not out_file.exists()


@pytest.mark.parametrize("command", ["predict", "eval"])
def test_topics_documents_some_without_a_known_word_warn(models, tmp_path, capsys, command):
    f = tmp_path / "mixed.tsv"
    f.write_text("pets\tthe cat sat on the mat\nmoney\tграфика алгоритм\n")
    rc, out, err = run_cli(["topics", command, "-m", str(models / "topics.npz"), "--data",
                            str(f), "-q"], capsys)
    warning = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")]
    assert rc == 0 and len(warning) == 1, err
    assert f"{f}:2: 1 of the 2 documents has no word" in warning[0]


# ------------------------------------------------- class: --min-df written as a decimal
@SETTINGS
@given(count=st.integers(1, 3))
def test_min_df_whole_decimal_is_a_count(models, tmp_path, capsys, count):
    """``--min-df 1.0`` was the fraction 100 % (2 terms kept, "nothing tells the classes
    apart"); ``2.0`` was refused as a fraction above 1."""
    out = tmp_path / "m.npz"
    rc, _, err = run_cli(["topics", "train", "--data", str(models / "docs.tsv"), "--model",
                          "nbsvm", "--min-df", f"{count}.0", "-q", "-o", str(out)], capsys)
    assert rc == 0, err
    from topics._options import _df

    assert _df(f"{count}.0") == count and isinstance(_df(f"{count}.0"), int)


@pytest.mark.parametrize("value", ["1.5", "0.0_1", "nan", "-0.5"])
def test_min_df_neither_count_nor_fraction_is_refused(models, tmp_path, capsys, value):
    rc, _, err = run_cli(["topics", "train", "--data", str(models / "docs.tsv"), "--model",
                          "nbsvm", "--min-df", value, "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "--min-df"), err


# ------------------------------------------------- class: odd entries of a class folder
@pytest.fixture
def class_folder(tmp_path):
    root = tmp_path / "corpus"
    for label, texts in (("pets", ["the cat sat on the mat", "dogs chase cats"]),
                         ("money", ["stocks fell today", "the bank raised rates"])):
        (root / label).mkdir(parents=True)
        for i, text in enumerate(texts * 2):
            (root / label / f"{i}.txt").write_text(text)
    return root


@pytest.mark.parametrize("kind", ["dangling", "loop", "fifo"])
def test_topics_folder_entry_that_is_not_a_file_is_refused(class_folder, tmp_path, capsys,
                                                            kind):
    """A link to nothing, a loop of links and a FIFO were skipped: a document lost."""
    odd = class_folder / "pets" / "odd.txt"
    if kind == "dangling":
        odd.symlink_to(tmp_path / "missing.txt")
    elif kind == "loop":
        odd.symlink_to(odd)
    else:
        os.mkfifo(odd)
    rc, _, err = run_cli(["topics", "train", "--data", str(class_folder), "--model", "nbsvm",
                          "--min-df", "1", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, str(odd), {"dangling": "a symbolic link to a missing",
                                              "loop": "a loop of symbolic links",
                                              "fifo": "FIFO"}[kind]), err
    assert not (tmp_path / "m.npz").exists()


def test_topics_empty_class_folder_warns(class_folder, tmp_path, capsys):
    (class_folder / "sport").mkdir()
    rc, _, err = run_cli(["topics", "train", "--data", str(class_folder), "--model", "nbsvm",
                          "--min-df", "1", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    warning = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")]
    assert rc == 0 and len(warning) == 1 and "'sport' is left out" in warning[0], err


# ------------------------------------------------- class: formats of other tools
@SETTINGS
@given(quoted=st.booleans(), extra=st.sampled_from(["", ";id"]))
def test_semicolon_separated_csv_is_read(models, tmp_path_factory, capsys, quoted, extra):
    """A spreadsheet's CSV in a locale with a decimal comma (``label;text``) was refused as
    "no label column among 'label;text' (no header)"."""
    d = tmp_path_factory.mktemp("semi")
    rows = [line.split("\t") for line in DOCS.splitlines()]
    q = '"' if quoted else ""
    body = "".join(f"{label};{q}{text}{q}{';7' if extra else ''}\n" for label, text in rows)
    f = d / "docs.csv"
    f.write_text(f"label;text{extra}\n" + body)
    rc, out, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                            str(f)], capsys)
    assert rc == 0, err
    assert f"({len(rows)} of {len(rows)} documents)" in out


def test_semicolon_csv_with_a_stray_semicolon_names_it(models, tmp_path, capsys):
    f = tmp_path / "docs.csv"
    f.write_text("label;text\npets;the cat; sat\n")
    rc, _, err = run_cli(["topics", "predict", "-m", str(models / "topics.npz"), "--data",
                          str(f)], capsys)
    assert one_line_error(rc, err, f"{f}:2", "a semicolon in an unquoted field"), err


def test_a_comma_header_is_still_read_with_commas(models, tmp_path, capsys):
    f = tmp_path / "docs.csv"
    f.write_text("label,text\npets,the cat sat; on the mat\nmoney,the bank raised rates\n")
    rc, out, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                            str(f)], capsys)
    assert rc == 0 and "(2 of 2 documents)" in out, err


@SETTINGS
@given(indent=st.sampled_from([None, 1, 4]))
def test_a_json_array_of_records_is_read(models, tmp_path_factory, capsys, indent):
    """A ``.json`` file that is one array of records (``json.dump`` of a list) was refused
    as "expected a JSON object ..., got a JSON array"."""
    import json

    d = tmp_path_factory.mktemp("arr")
    rows = [dict(zip(("label", "text"), line.split("\t"))) for line in DOCS.splitlines()]
    f = d / "docs.json"
    f.write_text(json.dumps(rows, indent=indent))
    rc, out, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                            str(f)], capsys)
    assert rc == 0, err
    assert f"({len(rows)} of {len(rows)} documents)" in out


@pytest.mark.parametrize("text, line, words", [
    ('[\n{"label": "pets", "text": "the cat"},\n{"label": "pets"}\n]', 3, "no 'text' field"),
    ('[{"label": "pets", "text": "the cat"},]', 1, "malformed JSON"),
    ('[{"label": "pets", "text": "the cat"}]\n{"a": 1}', 2, "more after the JSON array"),
    ('[\n{"label": "pets",\n "text": "a", "text": "b"}]', 2, "given twice")])
def test_a_malformed_json_array_names_the_line(models, tmp_path, capsys, text, line, words):
    f = tmp_path / "docs.json"
    f.write_text(text)
    rc, _, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                          str(f)], capsys)
    assert one_line_error(rc, err, f"{f}:{line}:", words), err


@pytest.mark.parametrize("value", ["English", "NONE", "None"])
def test_stop_words_keyword_in_another_case(models, tmp_path, capsys, value):
    """``--stop-words English`` was "English: no such file"."""
    rc, _, err = run_cli(["topics", "train", "--data", str(models / "docs.tsv"), "--model",
                          "nbsvm", "--min-df", "1", "--stop-words", value, "-q", "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err


def test_stop_words_file_named_like_the_keyword_is_a_file(models, tmp_path, capsys,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "English").write_text("cat\n")
    from topics.cli import _stop_words

    assert _stop_words("English") == frozenset({"cat"})


# ------------------------------------------------- class: soft maps given as masks
@pytest.mark.parametrize("kind", ["grey", "float"])
def test_segment_eval_of_a_soft_map_names_it(tmp_path, capsys, kind):
    """A probability map (200 grey values) was hinted as a class-index mask (PASCAL VOC)."""
    import numpy as np
    from PIL import Image

    gold, pred = tmp_path / "gold", tmp_path / "pred"
    gold.mkdir()
    pred.mkdir()
    m = np.zeros((20, 30), np.uint8)
    m[5:15, 10:20] = 255
    Image.fromarray(m).save(gold / "a.png")
    soft = np.linspace(0, 1, 600, dtype=np.float32).reshape(20, 30)
    if kind == "grey":
        Image.fromarray((soft * 255).astype(np.uint8)).save(pred / "a.png")
    else:
        Image.fromarray(soft, mode="F").save(pred / "a.tif")
    rc, _, err = run_cli(["segment", "eval", "--pred", str(pred), "--masks", str(gold)], capsys)
    assert one_line_error(rc, err, "a probability or score map"), err
    assert "PASCAL" not in err


def _image_folders(images, masks, names):
    """Random 12 x 16 RGB images and one rectangle masks, ``NAME.png`` in two new folders."""
    import numpy as np
    from PIL import Image

    images.mkdir()
    masks.mkdir()
    rng = np.random.default_rng(0)
    for name in names:
        Image.fromarray(rng.integers(0, 255, (12, 16, 3)).astype(np.uint8)).save(
            images / f"{name}.png")
        m = np.zeros((12, 16), np.uint8)
        m[3:9, 4:12] = 255
        Image.fromarray(m).save(masks / f"{name}.png")


# ------------------------------------------------- class: a validation share of everything
def test_segment_valid_fraction_holding_out_every_image_names_it(tmp_path, capsys):
    """Four images with ``--valid-fraction 0.9``: every one held out, and the refusal said
    "MASKS: no training data"."""
    _image_folders(tmp_path / "img", tmp_path / "mask", [str(i) for i in range(4)])
    rc, _, err = run_cli(["segment", "train", "--images", str(tmp_path / "img"), "--masks",
                          str(tmp_path / "mask"), "--valid-fraction", "0.9", "--iterations",
                          "2", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "holds out every one of the 4 training images",
                          "--valid-fraction"), err
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------------------- class: manifest splits spelled two ways
@pytest.mark.parametrize("spelling", ["Train", "TRAIN", "tra\u200bin"])
def test_segment_manifest_split_spelled_another_way_is_refused(tmp_path, capsys, spelling):
    """A row of split ``Train`` was left out of ``--split train`` silently (trained on 2
    images of 3)."""
    _image_folders(tmp_path / "images", tmp_path / "masks", [f"im{i}" for i in range(3)])
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"id,split\nim0,train\nim1,train\nim2,{spelling}\n")
    rc, _, err = run_cli(["segment", "train", "--manifest", str(manifest), "--split", "train",
                          "--valid-fraction", "0", "--iterations", "2", "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{manifest}:4", repr(spelling)), err


def test_segment_manifest_unknown_split_lists_the_splits(tmp_path, capsys):
    """It was "no rows with split 'trian'", naming no split the manifest has."""
    manifest = tmp_path / "m.csv"
    manifest.write_text("id,split\na,train\nb,test\n")
    for d in ("images", "masks"):
        (tmp_path / d).mkdir()
        for name in "ab":
            (tmp_path / d / f"{name}.png").write_bytes(b"")
    rc, _, err = run_cli(["segment", "train", "--manifest", str(manifest), "--split", "trian",
                          "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "no rows with split 'trian' (its splits: 'test', 'train')"), err


# ------------------------------------------------- class: TSV headers of other names
@pytest.mark.parametrize("header", ["category\ttext", "Sentiment\tReview", "y\tdocument",
                                    "label\ttext"])
def test_tsv_header_of_known_column_names_is_skipped(models, tmp_path, capsys, header):
    """``category<TAB>text`` was a document of the class "category" (a class more)."""
    f = tmp_path / "docs.tsv"
    f.write_text(header + "\n" + DOCS)
    rc, out, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                            str(f)], capsys)
    assert rc == 0 and "(12 of 12 documents)" in out, err


def test_tsv_header_with_the_text_first_is_read_by_its_names(models, tmp_path, capsys):
    """``text<TAB>label`` (SST-2's ``sentence<TAB>label``) was refused as the columns the
    other way round; the header names them, and the file is read by those names."""
    f = tmp_path / "docs.tsv"
    f.write_text("text\tlabel\n" + "".join(
        "\t".join(reversed(line.split("\t"))) + "\n" for line in DOCS.splitlines()))
    rc, out, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                            str(f)], capsys)
    assert rc == 0 and "(12 of 12 documents)" in out, err


def test_tsv_text_header_before_texts_without_labels_is_skipped(models, tmp_path, capsys):
    """A first line ``text`` was labelled as a document: one label more than documents."""
    f = tmp_path / "texts.tsv"
    f.write_text("text\nthe cat sat on the mat\nthe bank raised interest rates\n")
    out = tmp_path / "labels.txt"
    rc, _, err = run_cli(["topics", "predict", "-m", str(models / "topics.npz"), "--data",
                          str(f), "-o", str(out)], capsys)
    assert rc == 0, err
    assert out.read_text().split() == ["pets", "money"]


# ------------------------------------------------- class: CoNLL-U in, CoNLL-U out
CONLLU = ("# sent_id = 1\n# text = del mundo\n"
          "1-2\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n"
          "1\tde\tde\tADP\t_\t_\t3\tcase\t_\t_\n"
          "2\tel\tel\tDET\t_\t_\t3\tdet\t_\t_\n"
          "3\tmundo\tmundo\tNOUN\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
          "3.1\tvive\tvivir\tVERB\t_\t_\t_\t_\t0:root\t_\n\n"
          "# sent_id = 2\n"
          "1\tLa\tel\tDET\t_\t_\t2\tdet\t_\t_\n"
          "2\tcasa\tcasa\tNOUN\t_\t_\t0\troot\t_\t_\n\n") * 3


@pytest.mark.parametrize("stdin", [False, True])
def test_tag_predict_writes_conllu_back_as_conllu(tmp_path, capsys, monkeypatch, stdin):
    """A CoNLL-U file came out as ``form label`` lines: comments, multiword tokens, empty
    nodes and the other nine columns lost (the help says the input columns are repeated)."""
    import io
    import sys

    data = tmp_path / "ud.conllu"
    data.write_text(CONLLU)
    model = tmp_path / "ud.npz"
    assert run_cli(["tag", "train", "--data", str(data), "-o", str(model), "--iterations",
                    "5", "-q"], capsys)[0] == 0
    out = tmp_path / "out.conllu"
    argv = ["tag", "predict", "-m", str(model), "-o", str(out), "-q"]
    if stdin:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CONLLU.encode())))
    else:
        argv += ["-i", str(data)]
    rc, _, err = run_cli(argv, capsys)
    assert rc == 0, err
    got, want = out.read_text().splitlines(), CONLLU.splitlines()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        gf, wf = g.split("\t"), w.split("\t")
        assert len(gf) == len(wf)
        if len(wf) == 10 and wf[0].isdigit():
            assert gf[:3] + gf[4:] == wf[:3] + wf[4:] and gf[3] in {"ADP", "DET", "NOUN"}
        else:
            assert g == w


@pytest.mark.parametrize("train, valid, words", [
    ("chunks.txt", "the B-NP\ncat I-NP\n\n", "its word lines have 2 columns"),
    ("chunks.txt", CONLLU, "a CoNLL-U file"),
    ("conllu", "the DT B-NP\ncat NN I-NP\n\n", "--data's are CoNLL-U word lines")])
def test_tag_train_validation_columns_name_both_files(models, tmp_path, capsys, train, valid,
                                                      words):
    """``--valid-data`` of other columns than ``--data`` was "expected 3 columns, found 2",
    or for a CoNLL-U file "the model was trained on a file with feature columns" before any
    model was trained."""
    if train == "conllu":
        data = tmp_path / "train.conllu"
        data.write_text(CONLLU)
    else:
        data = models / train
    v = tmp_path / ("valid.conllu" if valid is CONLLU else "valid.txt")
    v.write_text(valid)
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "--valid-data", str(v), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, str(v), words, "validation sentences need the columns"), err
    assert "the model was trained" not in err


# ------------------------------------------------- class: labels matplotlib reads as formulas
@SETTINGS
@given(labels=st.lists(st.text("$\\^_{}ab1 ", min_size=1, max_size=8).filter(str.strip),
                       min_size=2, max_size=4, unique=True))
def test_confusion_plot_shows_labels_literally(tmp_path_factory, labels):
    """Labels holding two ``$`` (``$\\frac{a}$``, ``$5 and $6``) were parsed as mathtext: a
    traceback after the evaluation, no figure."""
    import numpy as np

    from topics.cli import _plot_confusion

    path = tmp_path_factory.mktemp("plot") / "cm.png"
    _plot_confusion(np.eye(len(labels), dtype=np.int64), labels, 1.0, str(path), "nbsvm")
    assert path.stat().st_size > 0


def test_topics_eval_plot_of_dollar_labels(tmp_path, capsys):
    f = tmp_path / "docs.tsv"
    f.write_text(DOCS.replace("pets\t", "$\\frac{a}$\t").replace("money\t", "$5 and $6\t"))
    model = tmp_path / "m.npz"
    assert run_cli(["topics", "train", "--data", str(f), "--model", "nbsvm", "--min-df", "1",
                    "-q", "-o", str(model)], capsys)[0] == 0
    rc, _, err = run_cli(["topics", "eval", "-m", str(model), "--data", str(f), "--plot",
                          str(tmp_path / "cm.png"), "-q"], capsys)
    assert rc == 0 and (tmp_path / "cm.png").stat().st_size > 0, err


# ------------------------------------------------- class: sizes of the tagger's bound
@pytest.mark.parametrize("radius", [None, "1e-300"])
def test_tag_train_that_scores_zero_at_every_validation_warns(models, tmp_path, capsys,
                                                             monkeypatch, radius):
    """A model that scored 0 at every validation (``--radius 1e-300`` on a file where the
    learner then found nothing) was written with only "validation chunk F1 0.00" in the
    summary.  The learner's scores are fixed here, so the test does not hang on its
    numerics."""
    from sequence.model import SequenceTagger

    fit = SequenceTagger.fit

    def zero_fit(self, *a, **k):
        fit(self, *a, **k)
        self.history_["validation"] = [0.0] * len(self.history_["validation"])
        return self

    monkeypatch.setattr(SequenceTagger, "fit", zero_fit)
    argv = ["tag", "train", "--data", str(models / "iobes.txt"), "-o", str(tmp_path / "m.npz"),
            "--iterations", "5", "-q"] + (["--radius", radius] if radius else [])
    rc, out, err = run_cli(argv, capsys)
    warning = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")]
    assert rc == 0 and len(warning) == 1, err
    assert "is 0 at every validation" in warning[0]
    assert ("--radius 1e-300" in warning[0]) == bool(radius)


def test_tag_train_that_scores_gets_no_zero_warning(models, tmp_path, capsys):
    rc, out, err = run_cli(["tag", "train", "--data", str(models / "iobes.txt"), "-o",
                            str(tmp_path / "m.npz"), "--iterations", "5", "-q"], capsys)
    assert rc == 0 and err == "", err


def test_tag_train_with_a_huge_relative_radius_has_no_numpy_warning(models, tmp_path, capsys):
    """``--relative-radius 1e308`` times the root of the tokens overflows to no bound; numpy
    said "overflow encountered in scalar multiply"."""
    rc, out, err = run_cli(["tag", "train", "--data", str(models / "iobes.txt"), "-o",
                            str(tmp_path / "m.npz"), "--relative-radius", "1e308",
                            "--iterations", "5", "-q"], capsys)
    assert rc == 0 and "overflow" not in err, err


# ------------------------------------------------- class: images of several frames
@pytest.mark.parametrize("what, suffix", [("image", ".gif"), ("image", ".tif"),
                                          ("mask", ".tif")])
def test_multi_frame_images_and_masks_warn(tmp_path, what, suffix):
    """An animated GIF or a multi-page TIFF was read as its first frame without a word (a
    TIFF mask of one page per class lost every other class)."""
    import warnings

    import numpy as np
    from PIL import Image

    from segmentation.data import load_image, load_mask

    if what == "image":
        frames = [Image.fromarray(np.full((6, 8, 3), v, np.uint8)) for v in (10, 200)]
    else:
        frames = [Image.fromarray(np.where(np.arange(48).reshape(6, 8) % (k + 2), 255, 0)
                                  .astype(np.uint8)) for k in range(2)]
    path = tmp_path / f"x{suffix}"
    frames[0].save(path, save_all=True, append_images=frames[1:])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = load_image(path) if what == "image" else load_mask(path)
    assert [str(w.message) for w in caught] == [
        f"{path}: a{'n' if what == 'image' else ''} {what} of 2 frames (an animation or a "
        "multi-page file): only the first is read"]
    want = np.asarray(frames[0].convert("RGB") if what == "image" else frames[0])
    assert np.array_equal(first, want if what == "image" else want > 0)


def test_single_frame_image_has_no_warning(tmp_path):
    import warnings

    import numpy as np
    from PIL import Image

    from segmentation.data import load_image

    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / "a.gif")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_image(tmp_path / "a.gif")


@pytest.mark.parametrize("sep", [";", ","])
def test_csv_with_a_spreadsheet_separator_line_is_read(models, tmp_path, capsys, sep):
    """Excel's first line ``sep=;`` was read as the header ('no label column among
    'sep=;'')."""
    f = tmp_path / "docs.csv"
    f.write_text(f"sep={sep}\nlabel{sep}text\n" + "".join(
        line.replace("\t", sep) + "\n" for line in DOCS.splitlines()))
    rc, out, err = run_cli(["topics", "eval", "-m", str(models / "topics.npz"), "--data",
                            str(f)], capsys)
    assert rc == 0 and "(12 of 12 documents)" in out, err


@SETTINGS
@given(n=st.integers(1, 4))
def test_tag_eval_of_gold_without_chunks_is_refused(models, tmp_path_factory, capsys, n):
    """Gold labels all ``O`` for a chunker: recall and F1 are undefined; "F1 0.00" was
    printed with exit status 0."""
    f = tmp_path_factory.mktemp("allO") / "o.txt"
    f.write_text("the DT O\ncat NN O\n\n" * n)
    rc, out, err = run_cli(["tag", "eval", "-m", str(models / "chunks.npz"), "--data",
                            str(f)], capsys)
    assert one_line_error(rc, err, str(f), "no chunk in the gold labels"), err
    assert out == ""


def test_tag_predict_writes_germeval_back_as_germeval(tmp_path, capsys):
    """A GermEval 2014 file came out as ``token label``: indices, source lines and the
    inner named entities lost."""
    text = ("#\tsource 1\n1\tJohn\tB-PER\tO\n2\tlebt\tO\tO\n\n"
            "#\tsource 2\n1\tAnna\tB-PER\tB-LOC\n2\tgeht\tO\tO\n\n") * 3
    data = tmp_path / "ge.tsv"
    data.write_text(text)
    model = tmp_path / "ge.npz"
    assert run_cli(["tag", "train", "--data", str(data), "-o", str(model), "--iterations", "3",
                    "-q"], capsys)[0] == 0
    out = tmp_path / "out.tsv"
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(data), "-o", str(out),
                          "-q"], capsys)
    assert rc == 0, err
    got, want = out.read_text().splitlines(), text.splitlines()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w[:1].isdigit():
            gf, wf = g.split("\t"), w.split("\t")
            assert gf[:2] + gf[3:] == wf[:2] + wf[3:] and gf[2] in {"B-PER", "O"}
        else:
            assert g == w


def test_tag_predict_of_an_index_column_before_the_words_is_refused(tmp_path, capsys):
    """``index token`` (GermEval 2014 without its entity columns) given to a model of words:
    the words were dropped as "the label column" and the numbers tagged, exit 0."""
    data = tmp_path / "ge.tsv"
    data.write_text(("#\tsource\n1\tJohn\tB-PER\tO\n2\tlebt\tO\tO\n\n") * 4)
    model = tmp_path / "ge.npz"
    assert run_cli(["tag", "train", "--data", str(data), "-o", str(model), "--iterations", "3",
                    "-q"], capsys)[0] == 0
    bare = tmp_path / "bare.tsv"
    bare.write_text("1\tJohn\n2\tlebt\n3\theute\n\n1\tAnna\n")
    out = tmp_path / "out.txt"
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(bare), "-o", str(out)],
                         capsys)
    assert one_line_error(rc, err, str(bare), "first column numbers the tokens"), err
    assert not out.exists()
    bare.write_text("John\tx\nlebt\tx\n\n")   # a second column that is a label: dropped
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(bare), "-o", str(out),
                          "-q"], capsys)
    assert rc == 0 and out.read_text().split("\n")[0].startswith("John "), err
