"""Layouts of public text-classification corpora, as downloaded, given to ``structpred topics``:
each is read correctly or refused (or warned of) in one line naming the file, never misread.

IMDB's ``aclImdb/train`` (``pos/``, ``neg/``, ``unsup/`` and files beside them) and the
corpus folder above it; fastText lines (``__label__pos text``, several labels); TREC
questions (``DESC:manner How ...``); GLUE's test TSV (``index<TAB>sentence``); Kaggle's AG
News CSV (a header ``Class Index,Title,Description`` above numbered labels); HuggingFace's
JSON exports (``sentence``, ``content``, ``labels``: [1, 4]); labels holding several names
(``a,b``).
"""

import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred.io import FormatError
from topics._layouts import label_name
from topics._persist import load_model
from topics._text_io import read_documents

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

POS = ["great film loved it wonderful acting", "superb movie fantastic story brilliant",
       "excellent fun enjoyable great cast", "loved every minute amazing film",
       "wonderful and moving a great watch", "brilliant superb direction great"]
NEG = ["terrible film hated it awful acting", "boring movie dull story bad",
       "worst waste of time awful cast", "hated every minute poor film",
       "dreadful and dull a bad watch", "awful plot terrible direction bad"]

#: labels and texts fastText lines can hold: words without white space, texts of words (not
#: true/false, read in any case as the booleans' classes)
LABEL = st.text(st.characters(whitelist_categories=("L", "N"), max_codepoint=0x2FF),
                min_size=1, max_size=8).filter(lambda s: s.lower() not in ("true", "false"))
WORD = st.text(st.characters(whitelist_categories=("L",), max_codepoint=0x2FF), min_size=1,
               max_size=8).filter(lambda w: not w.startswith("__label__"))


def _imdb(root, test=False):
    """A small ``aclImdb/train`` (or ``test``): class folders, ``unsup/`` and stray files."""
    split = root / ("test" if test else "train")
    for label, texts in (("pos", POS), ("neg", NEG)) + ((("unsup", POS + NEG),) if not test
                                                         else ()):
        (split / label).mkdir(parents=True)
        for i, t in enumerate(texts):
            (split / label / f"{i}_{7 if label == 'pos' else 2}.txt").write_text(t)
    (split / "urls_pos.txt").write_text("http://www.imdb.com/title/tt0453418/usercomments\n")
    (split / "labeledBow.feat").write_text("9 0:9 1:1 2:4\n")
    (root / "imdb.vocab").write_text("the\nand\n")
    return split


def test_imdb_train_folder_leaves_out_unsup_and_stray_files(tmp_path, capsys):
    """The default command on ``aclImdb/train``: refused before ("labeledBow.feat: not in a
    class folder"), and with the stray files moved away ``unsup`` became a third class of
    50,000 documents.  Now both are left out, each with one warning naming it."""
    train = _imdb(tmp_path / "aclImdb")
    model = tmp_path / "m.npz"
    rc, _, err = run_cli(["topics", "train", "--data", str(train), "-o", str(model), "-q"],
                         capsys)
    assert rc == 0, err
    assert load_model(model).labels == ["neg", "pos"]
    warned = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")]
    assert any(f"{train}: 2 files beside the class folders" in ln and "labeledBow.feat" in ln
               for ln in warned), err
    assert any(str(train / "unsup") in ln and "12 documents without a label" in ln
               for ln in warned), err
    # predict: the unlabelled reviews are documents to classify, the stray files are not
    rc, out, err = run_cli(["topics", "predict", "--data", str(train), "-m", str(model)],
                           capsys)
    assert rc == 0 and len(out.splitlines()) == 24, err
    test = _imdb(tmp_path / "imdb2", test=True)
    rc, out, err = run_cli(["topics", "eval", "--data", str(test), "-m", str(model)], capsys)
    assert rc == 0 and "of 12 documents" in out, err


def test_corpus_folder_of_splits_is_refused(tmp_path, capsys):
    """``--data aclImdb``: its ``train`` and ``test`` folders were the classes."""
    _imdb(tmp_path / "aclImdb")
    _imdb(tmp_path / "aclImdb", test=True)
    rc, _, err = run_cli(["topics", "train", "--data", str(tmp_path / "aclImdb"), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, str(tmp_path / "aclImdb" / "test"), "named like a split",
                          f"--data {tmp_path / 'aclImdb' / 'test'}"), err


@SETTINGS
@given(rows=st.lists(st.tuples(LABEL, st.lists(WORD, min_size=1, max_size=5)), min_size=1,
                     max_size=8),
       suffix=st.sampled_from([".txt", ".ft", ".train", ".valid", ".ft.txt", ""]),
       sep=st.sampled_from([" ", "\t", "  "]))
def test_fasttext_lines_are_read_by_their_prefix(tmp_path, rows, suffix, sep):
    """fastText lines: ``cannot tell the format`` under auto, and ``--format tsv`` read
    each line as one text in ``predict`` (the label a word of it)."""
    f = tmp_path / f"data{suffix}"
    f.write_text("".join(f"__label__{lab}{sep}{' '.join(words)}\n" for lab, words in rows),
                 encoding="utf-8")
    docs = read_documents(f)
    assert docs.format == "fasttext"
    assert docs.labels == [lab for lab, _ in rows]
    assert [t.split() for t in docs.texts] == [words for _, words in rows]
    assert docs.sources == [f"{f}:{i + 1}" for i in range(len(rows))]
    for fmt in ("tsv", "csv"):
        if sep != "\t":
            with pytest.raises(FormatError, match=re.escape(f"{f}:1: a fastText label")):
                read_documents(f, fmt, labels="optional")


@pytest.mark.parametrize("line,reason", [
    ("__label__pos __label__good a fine film", "several labels (pos, good): multi-label"),
    ("__label__pos a fine __label__good film", "the word '__label__good' inside the text"),
    ("__label__ a fine film", "an empty label"),
    ("__label__pos", "empty text after the label"),
    ("a fine film", "no label: expected '__label__LABEL text'"),
])
def test_fasttext_lines_that_are_refused(tmp_path, capsys, line, reason):
    f = tmp_path / "train.ft"
    f.write_text(f"__label__neg a poor film\n{line}\n")
    rc, _, err = run_cli(["topics", "train", "--data", str(f), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, f"{f}:2: {reason}"), err


def test_fasttext_lines_without_a_label_for_predict(tmp_path):
    f = tmp_path / "test.txt"
    f.write_text("__label__neg a poor film\nno label here\n")
    docs = read_documents(f, "fasttext", labels="optional")
    assert docs.labels == ["neg", None] and docs.texts == ["a poor film", "no label here"]


@pytest.mark.parametrize("fmt,labels", [("auto", "required"), ("tsv", "optional"),
                                        ("tsv", "required"), ("csv", "optional")])
def test_trec_questions_are_refused(tmp_path, fmt, labels):
    """TREC's ``DESC:manner How did serfdom develop ?``: ``--format tsv`` in ``predict``
    read each line as a text, its gold label a word of it."""
    f = tmp_path / "train_5500.label"
    f.write_text("DESC:manner How did serfdom develop in and then leave Russia ?\n"
                 "HUM:ind Who was The Pride of the Yankees ?\n")
    with pytest.raises(FormatError, match=re.escape("TREC question classification")):
        read_documents(f, fmt, labels=labels)
    prose = tmp_path / "memo.tsv"   # a text that is not a TREC question: read
    prose.write_text("NOTE:this is a memo\nanother text\n")
    if labels == "optional" and fmt == "tsv":
        assert read_documents(prose, fmt, labels=labels).texts[0] == "NOTE:this is a memo"


def test_glue_test_tsv_of_ids_and_sentences(tmp_path):
    """SST-2's ``test.tsv`` (``index<TAB>sentence``, no labels): the header was a document
    (one prediction more) and the ids its labels."""
    f = tmp_path / "test.tsv"
    f.write_text("index\tsentence\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(POS + NEG)))
    docs = read_documents(f, labels="optional")
    assert docs.texts == POS + NEG and docs.labels == [None] * 12
    assert docs.sources[0] == f"{f}:2"
    with pytest.raises(FormatError, match=re.escape(f"{f}:1: a header 'index\\tsentence': "
                                                    "the first column holds document ids")):
        read_documents(f)   # training and evaluation


@pytest.mark.parametrize("header", ["Class Index,Title,Description", "Polarity,Title,Body Text"])
def test_csv_header_above_numbered_labels(tmp_path, header):
    """Kaggle's AG News ``train.csv``: its header names no known column, so with the
    columns given by number it was a document of the class 'Class Index'."""
    f = tmp_path / "train.csv"
    f.write_text(header + "\n" + "".join(f'"{1 + i % 2}","t{i}","{t}"\n'
                                         for i, t in enumerate(POS + NEG)))
    docs = read_documents(f, label_field="1", text_field="2,3")
    assert docs.classes() == ["1", "2"] and len(docs) == 12
    assert docs.sources[0] == f"{f}:2"


@pytest.mark.parametrize("row,label,text", [
    ({"sentence": "a fine film", "label": 0, "idx": 3}, "0", "a fine film"),
    ({"content": "a fine film", "Label": 4}, "4", "a fine film"),
    ({"review": "a fine film", "stars": 5.0}, "5", "a fine film"),
    ({"text": "a fine film", "labels": 2}, "2", "a fine film"),
])
def test_huggingface_json_fields(tmp_path, row, label, text):
    """A JSON record without ``text`` (or ``label``) but one field named like it, as in CSV
    (it was refused as "no 'text' field")."""
    for array in (False, True):
        f = tmp_path / f"data{array}.json"
        f.write_text(json.dumps([row, row]) if array else json.dumps(row) + "\n")
        docs = read_documents(f)
        assert docs.labels[0] == label and docs.texts[0] == text


def test_json_label_lists_are_refused_as_multi_label(tmp_path):
    f = tmp_path / "train.jsonl"
    f.write_text('{"content": "a fine film", "labels": [1, 4]}\n')
    with pytest.raises(FormatError, match=re.escape(f"{f}:1: the 'labels' field is a list: "
                                                    "several labels a document")):
        read_documents(f)


@SETTINGS
@given(names=st.lists(LABEL, min_size=2, max_size=3, unique=True),
       sep=st.sampled_from([",", ";", "|", ", "]))
def test_labels_of_several_names_are_warned_of(tmp_path, names, sep):
    """``a,b<TAB>text`` (a multi-label TSV file) was a class 'a,b' without a word."""
    f = tmp_path / "ml.tsv"
    joined = sep.join(names)
    f.write_text(f"{names[0]}\tone text\n{joined}\tanother text\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = read_documents(f)
    assert docs.labels == [names[0], joined]
    msgs = [str(w.message) for w in caught]
    assert any(m.startswith(f"{f}:2: the label {joined!r}") and "multi-label" in m
               for m in msgs), msgs


@pytest.mark.parametrize("header,row", [
    ("sentence\tlabel", "{text} \t{label}"),                 # SST-2's train.tsv, dev.tsv
    ("\ttext\tlabel", "{i}\t{text}\t{label}"),               # pandas' to_csv(sep='\t')
    ("id\tsentiment\treview", '"{i}_9"\t{label}\t"{text}"'),  # Kaggle's labeledTrainData.tsv
])
def test_tsv_read_by_the_names_of_its_header(tmp_path, header, row):
    """A TSV header naming its columns other than ``label<TAB>text``: SST-2's was refused
    (the text first), pandas' and Kaggle's were read as ``label<TAB>text``, the header a
    document and the label a word of the text."""
    f = tmp_path / "train.tsv"
    rows = [(t, "1") for t in POS] + [(t, "0") for t in NEG]
    f.write_text(header + "\n" + "".join(row.format(i=i, text=t, label=lab) + "\n"
                                         for i, (t, lab) in enumerate(rows)))
    docs = read_documents(f)
    assert docs.labels == [lab for _, lab in rows]
    assert [t.strip().strip('"') for t in docs.texts] == [t for t, _ in rows]
    assert docs.sources[0] == f"{f}:2"


def test_tsv_columns_given_by_option(tmp_path):
    """``--label-field``/``--text-field`` were refused for TSV: CoLA's ``in_domain_train.tsv``
    (``source<TAB>label<TAB><TAB>sentence``, no header) could not be read."""
    f = tmp_path / "in_domain_train.tsv"
    f.write_text("".join(f"gj04\t{i % 2}\t\t{t}\n" for i, t in enumerate(POS + NEG)))
    docs = read_documents(f, label_field="2", text_field="4")
    assert docs.labels == [str(i % 2) for i in range(12)] and docs.texts == POS + NEG
    with pytest.raises(FormatError, match=re.escape(f"{f}:1: every line holds 4 tab-separated "
                                                    "fields: expected 'label<TAB>text'")):
        read_documents(f)   # read as classes 'gj04', the label a word of the text


NAME = st.text(st.characters(whitelist_categories=("L", "N"), max_codepoint=0x17F), min_size=1,
               max_size=10)


@SETTINGS
@given(unlabelled=st.sampled_from(["unsup", "UNSUP", "unlabeled", "Unlabelled"]),
       stray=st.lists(NAME, max_size=3, unique_by=str.lower),
       labels=st.lists(NAME, min_size=2, max_size=3, unique_by=str.lower))
def test_folders_of_unlabelled_documents_and_files_beside_classes(tmp_path_factory, unlabelled,
                                                                  stray, labels):
    """Every folder of classes with an unlabelled folder and stray files beside it: the
    classes are the class folders, whatever the names; ``predict`` reads the unlabelled
    documents and no stray file."""
    from hypothesis import assume

    assume(not {n.lower() for n in labels} & {"unsup", "unlabeled", "unlabelled"})
    assume(not any(n.lower().endswith(tuple("-_")) or n.isdecimal() for n in labels))
    root = tmp_path_factory.mktemp("corpus")
    for i, name in enumerate(labels + [unlabelled]):
        (root / name).mkdir()
        (root / name / "1.txt").write_text(f"words of document {i}", encoding="utf-8")
    for name in stray:
        if name.lower() not in {n.lower() for n in labels + [unlabelled]}:
            (root / f"{name}.txt").write_text("not a document", encoding="utf-8")
    strays = [p for p in root.iterdir() if p.is_file()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = read_documents(root)
    # the class names as every reader writes them (a folder 'FALSE' is the class 'false')
    assert sorted(docs.labels) == sorted(label_name(n) for n in labels)
    msgs = [str(w.message) for w in caught]
    assert any(m.startswith(f"{root / unlabelled}: 1 document without a label") for m in msgs)
    assert any(m.startswith(f"{root}: ") and "beside the class folders" in m
               for m in msgs) == bool(strays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = read_documents(root, labels="optional")
    assert len(docs) == len(labels) + 1 and "not a document" not in docs.texts
    assert docs.labels.count(None) == 1


@pytest.mark.parametrize("split", ["train", "Test", "dev", "20news-bydate-train", "imdb_test"])
def test_split_folders_named_any_way_are_refused(tmp_path, split):
    (tmp_path / split / "pos").mkdir(parents=True)
    (tmp_path / split / "pos" / "1.txt").write_text("a fine film")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "1.txt").write_text("a poor film")
    with pytest.raises(FormatError, match=re.escape(f"{tmp_path / split}: a class folder named "
                                                    "like a split")):
        read_documents(tmp_path, labels="optional")


@SETTINGS
@given(coarse=st.sampled_from(["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"]),
       fine=st.text(st.characters(whitelist_categories=("Ll",), max_codepoint=0x7F), min_size=1,
                    max_size=8),
       words=st.lists(WORD, min_size=1, max_size=6))
def test_trec_lines_of_every_class_are_refused_as_tsv(tmp_path, coarse, fine, words):
    f = tmp_path / "test.tsv"
    f.write_text(f"{coarse}:{fine} {' '.join(words)} ?\n", encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{f}:1: lines 'LABEL:fine question'")):
        read_documents(f, labels="optional")


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv"])
def test_huggingface_label_minus_one_is_warned_of(tmp_path, fmt):
    """HuggingFace's ``imdb`` (train and ``unsupervised`` splits) exported together: the
    unlabelled reviews, ``"label": -1``, were a class '-1' without a word."""
    rows = [(t, 1) for t in POS] + [(t, 0) for t in NEG] + [(t, -1) for t in POS[:2]]
    f = tmp_path / f"imdb.{fmt}"
    if fmt == "jsonl":
        f.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in rows))
    else:
        sep = "," if fmt == "csv" else "\t"
        f.write_text(f"label{sep}text\n" + "".join(f"{lab}{sep}{t}\n" for t, lab in rows))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = read_documents(f)
    assert docs.classes() == ["-1", "0", "1"]
    msgs = [str(w.message) for w in caught]
    assert any(m.startswith(f"{f}:{13 if fmt == 'jsonl' else 14}: 2 documents labelled -1")
               for m in msgs), msgs
    g = tmp_path / f"three.{fmt}"   # -1, 1 (no 0): a labelling of its own, no warning
    g.write_text(f.read_text().replace("0", "1"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_documents(g)


@SETTINGS
@given(sentences=st.lists(st.lists(WORD, min_size=2, max_size=5), min_size=2, max_size=6),
       numbers=st.data(), fmt=st.sampled_from(["tsv", "csv"]),
       labels=st.sampled_from(["required", "optional"]))
def test_columns_the_other_way_round_are_refused(tmp_path, sentences, numbers, fmt, labels):
    """``great film<TAB>1`` without a header: ``predict`` classified the digits (each
    document's text), training made every sentence a class."""
    values = numbers.draw(st.lists(st.sampled_from(["0", "1", "2", "-1", "4.5"]),
                                   min_size=len(sentences), max_size=len(sentences)))
    f = tmp_path / f"swapped.{fmt}"
    sep = "\t" if fmt == "tsv" else ","
    f.write_text("".join(f"{' '.join(s)}{sep}{v}\n" for s, v in zip(sentences, values)),
                 encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{f}:1: every text is a number")):
        read_documents(f, labels=labels)


@pytest.mark.parametrize("fmt,labels", [("auto", "required"), ("tsv", "optional"),
                                        ("csv", "optional")])
def test_sentiment_treebank_trees_are_refused(tmp_path, fmt, labels):
    """SST's ``train.txt`` (``(3 (2 It) (4 ...``): ``--format tsv`` in ``predict`` read each
    tree as a text, the sentiment of every node a word of it."""
    f = tmp_path / "train.txt"
    f.write_text("(3 (2 It) (4 (4 (2 's) (4 (3 (2 a) (4 (3 lovely) (2 film))) (3 (2 with) "
                 "(4 (3 (3 lovely) (2 performances)) (2 (2 by) (2 Buy))))))) (2 .)))\n"
                 "(1 (2 A) (1 (1 dull) (2 film)))\n")
    with pytest.raises(FormatError, match=re.escape("labelled trees ('(3 (2 It) ...)', the "
                                                    "Stanford Sentiment Treebank")):
        read_documents(f, fmt, labels=labels)


def test_tsv_of_a_label_a_title_and_a_body_is_still_read(tmp_path):
    """AG News as TSV (``label<TAB>title<TAB>description``): the text is the title and the
    description, as before (not refused as CoLA's columns are)."""
    f = tmp_path / "ag.tsv"
    f.write_text("".join(f"{1 + i % 2}\ttitle of {i}\t{t}\n" for i, t in enumerate(POS + NEG)))
    docs = read_documents(f)
    assert docs.labels == [str(1 + i % 2) for i in range(12)]
    assert docs.texts[0] == f"title of 0\t{POS[0]}"
