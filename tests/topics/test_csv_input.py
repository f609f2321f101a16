"""CSV input and field options for ``structpred topics`` (``topics._text_io``).

CSV files (``--format csv``, ``auto`` for ``*.csv[.gz]``) are read with :mod:`csv`: the
header names the label and text columns (known names, or ``--label-field`` /
``--text-field``), a file without one takes columns by number; JSON lines take other field
names with the same options.  Bad input is refused in one line naming file and line.
"""

import csv
import gzip
import io
import json
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred.cli import main
from structpred.io import FormatError, input_encoding
from topics._layouts import MISSING_VALUES
from topics._text_io import LABEL_NAMES, TEXT_NAMES, detect_format, read_documents
from topics.corpus import BUNDLED_DATA_DIR, load_jsonl


def _csv_text(rows, header=None, **fmt):
    buf = io.StringIO(newline="")
    w = csv.writer(buf, **fmt)
    if header:
        w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """15 training documents of each bundled class (and 10 test ones) as TSV (with its
    header), JSON lines and CSV (with a header ``id,Category,text``; the test file as AG
    News without a header, ``class,title,body``); the texts keep their commas and quotes,
    their line breaks and tabs become spaces (TSV holds neither)."""
    d = tmp_path_factory.mktemp("csv")
    out = {}
    for subset, n in (("train", 15), ("test", 10)):
        seen, docs = {}, []
        for r in load_jsonl(BUNDLED_DATA_DIR / f"20ng-4groups-{subset}.jsonl.gz"):
            if seen.get(r["label"], 0) < n:
                seen[r["label"]] = seen.get(r["label"], 0) + 1
                docs.append((r["label"], " ".join(r["text"].split())))
        (d / f"{subset}.tsv").write_text("label\ttext\n" + "".join(f"{a}\t{t}\n" for a, t in docs))
        (d / f"{subset}.jsonl").write_text("".join(json.dumps({"label": a, "text": t}) + "\n"
                                                   for a, t in docs))
        (d / f"{subset}.csv").write_text(_csv_text([(i, a, t) for i, (a, t) in enumerate(docs)],
                                                   ["id", "Category", "text"]))
        out[subset] = docs
    test = out["test"]
    (d / "ag.csv").write_text(_csv_text([(a, t[:60], t[60:]) for a, t in test],
                                        quoting=csv.QUOTE_ALL))
    out["dir"] = d
    return out


def _pairs(docs):
    return list(zip(docs.texts, docs.labels))


# ----------------------------------------------------------------------- reading

def test_the_same_documents_as_tsv_jsonl_and_csv(small):
    d = small["dir"]
    want = [(t, a) for a, t in small["train"]]
    for name in ("train.tsv", "train.jsonl", "train.csv"):
        assert _pairs(read_documents(d / name)) == want, name
    assert detect_format(d / "train.csv") == "csv"
    gz = d / "train.csv.gz"
    gz.write_bytes(gzip.compress((d / "train.csv").read_bytes()))
    docs = read_documents(gz)
    assert docs.format == "csv" and _pairs(docs) == want
    assert docs.sources[0] == f"{gz}:2"


def test_the_same_model_bytes_from_tsv_jsonl_and_csv(small, tmp_path, capsys):
    d = small["dir"]
    models = []
    for name in ("train.tsv", "train.jsonl", "train.csv"):
        out = tmp_path / f"{name}.npz"
        rc, _, err = run_cli(["topics", "train", "--data", str(d / name), "--model", "sdem-nb",
                              "-q", "-o", str(out)], capsys)
        assert rc == 0, err
        models.append(out.read_bytes())
    assert models[0] == models[1] == models[2]
    # eval and predict read CSV too, AG News style by column numbers, whatever trained it
    rc, out, err = run_cli(["topics", "eval", "-m", str(tmp_path / "train.tsv.npz"), "--data",
                            str(d / "ag.csv"), "--label-field", "1", "--text-field", "2,3"],
                           capsys)
    assert rc == 0 and "accuracy" in out.lower(), err
    rc, by_csv, err = run_cli(["topics", "predict", "-m", str(tmp_path / "train.csv.npz"),
                               "--data", str(d / "test.csv")], capsys)
    assert rc == 0, err
    rc, by_tsv, _ = run_cli(["topics", "predict", "-m", str(tmp_path / "train.csv.npz"),
                             "--data", str(d / "test.tsv")], capsys)
    assert by_csv == by_tsv and len(by_csv.splitlines()) == len(small["test"])


def test_quoted_commas_line_breaks_doubled_quotes_and_bom(tmp_path):
    f = _write(tmp_path / "x.csv", '\ufefflabel,text\r\nsport,"one, two"\r\n'
                                   'news,"a ""quoted""\r\nword\n\nand a blank line"\r\n\r\n'
                                   'sport,plain\r\n', "utf-8")
    docs = read_documents(f)
    assert docs.labels == ["sport", "news", "sport"]
    assert docs.texts == ["one, two", 'a "quoted"\nword\n\nand a blank line', "plain"]
    assert docs.sources == [f"{f}:2", f"{f}:3", f"{f}:8"]


@pytest.mark.parametrize("header, label, text", [
    (["Review", "Sentiment"], "Sentiment", "Review"),
    (["id", "TEXT", "stars"], "stars", "TEXT"),
    (["y", "sentence", "source"], "y", "sentence"),
    (["message", "class"], "class", "message"),
])
def test_header_columns_found_by_name(tmp_path, header, label, text):
    rows = [{label: "pos", text: "good, very good"}, {label: "neg", text: "bad"}]
    f = _write(tmp_path / "x.csv", _csv_text([[r.get(h, "9") for h in header] for r in rows],
                                             header))
    assert _pairs(read_documents(f)) == [("good, very good", "pos"), ("bad", "neg")]
    assert {label.lower(), text.lower()} <= set(LABEL_NAMES) | set(TEXT_NAMES)


def test_without_a_header_two_columns_are_label_and_text(tmp_path):
    f = _write(tmp_path / "x.csv", '1,"first, text"\n2,second\n')
    assert _pairs(read_documents(f)) == [("first, text", "1"), ("second", "2")]
    one = _write(tmp_path / "one.csv", 'just a text\n"another, text"\n')
    docs = read_documents(one, labels="optional")
    assert docs.texts == ["just a text", "another, text"] and docs.labels == [None, None]


def test_header_or_numbers_for_the_fields(tmp_path):
    f = _write(tmp_path / "x.csv", "stars,title,comment\n5,Nice,\"Good, fast\"\n1,Bad,Slow\n")
    docs = read_documents(f, text_field="title,comment")
    assert _pairs(docs) == [("Nice Good, fast", "5"), ("Bad Slow", "1")]
    docs = read_documents(f, label_field="1", text_field=[3])   # 'stars': a header, skipped
    assert _pairs(docs) == [("Good, fast", "5"), ("Slow", "1")]
    # a header of unknown names is one when an option names one of its columns
    g = _write(tmp_path / "y.csv", "rating,title,comment\n5,Nice,Good\n")
    docs = read_documents(g, label_field="Rating", text_field="comment")
    assert _pairs(docs) == [("Good", "5")]
    # predict: no label column (labels optional)
    docs = read_documents(g, labels="optional", text_field="COMMENT")
    assert docs.texts == ["Good"] and docs.labels == [None]


def test_field_options_on_json_lines(tmp_path, capsys):
    f = tmp_path / "yelp.jsonl"
    f.write_text('{"stars": 5.0, "text": "great", "useful": 1}\n'
                 '{"stars": 1, "text": "awful", "useful": 0}\n')
    assert _pairs(read_documents(f, label_field="stars")) == [("great", "5"), ("awful", "1")]
    g = tmp_path / "news.jsonl"
    g.write_text('{"category": "a", "title": "T1", "content": "c1"}\n'
                 '{"category": "b", "title": "T2", "content": "c2"}\n')
    docs = read_documents(g, label_field="category", text_field=["title", "content"])
    assert _pairs(docs) == [("T1 c1", "a"), ("T2 c2", "b")]
    rc, _, err = run_cli(["topics", "train", "--data", str(g), "--label-field", "category",
                          "--text-field", "content", "--model", "sdem-nb", "-q", "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err


def test_ag_news_style_by_column_numbers(small, tmp_path, capsys):
    d = small["dir"]
    docs = read_documents(d / "ag.csv", label_field=1, text_field="2,3")
    assert _pairs(docs) == [(t[:60] + " " + t[60:], a) for a, t in small["test"]]
    rc, _, err = run_cli(["topics", "train", "--data", str(d / "ag.csv"), "--label-field", "1",
                          "--text-field", "2,3", "--model", "sdem-nb", "-q", "-o",
                          str(tmp_path / "ag.npz")], capsys)
    assert rc == 0, err


# ----------------------------------------------------------------------- refusals

def _error(argv, capsys):
    rc, _, err = run_cli(argv, capsys)
    return rc, err


BAD = [
    ("fields.csv", "label,text\na,one\nb,two,three\n", (), ":3:",
     "3 fields where the header has 2"),
    ("fields2.csv", "1,one\n2,two,three\n", (), ":2:", "first row (line 1) has 2"),
    ("quote.csv", 'label,text\na,one\nb,"never closed\nat all\n', (), ":3:", "never closed"),
    ("empty.csv", "label,text\na,one\nb,  \n", (), ":3:", "empty text"),
    ("nolabel.csv", "label,text\na,one\n,two\n", (), ":3:", "empty label ('label')"),
    ("nolabel2.csv", "label,text\n,one\na,two\n", (), ":2:", "empty label"),
    ("emptycol.csv", "label,text\n,one\n,two\n", (), ":2:", "empty in every row"),
    ("nocol.csv", "stars,body\n1,x\n", ("--text-field", "review"), ":1:",
     "no column of that name", "'stars', 'body'"),
    ("range.csv", "1,x\n2,y\n", ("--label-field", "1", "--text-field", "3"), ":1:",
     "--text-field 3: no such column", "2 fields"),
    ("twotext.csv", "label,title,text,body\na,b,c,d\n", (), ":1:", "2 text-like columns",
     "'text', 'body'", "--text-field"),
    ("notext.csv", "label,title,abstract\na,b,c\n", (), ":1:", "no column named text",
     "'abstract'", "--text-field"),
    ("twolabel.csv", "label,category,text\na,b,c\n", (), ":1:", "2 label-like columns",
     "--label-field"),
    ("nolabelcol.csv", "id,text\n1,a\n", (), ":1:", "no label column", "--label-field"),
    ("noheader.csv", "1,a,b\n2,c,d\n", (), ":1:", "no header", "--text-field 2,3"),
    ("name.csv", "1,a\n2,b\n", ("--text-field", "text"), ":1:", "not a header"),
    ("tsv.csv", "label\ttext\na\tone, two\n", (), ":1:", "--format tsv"),
    ("tsv2.csv", "sport\tone, two\nnews\tthree\n", (), ":1:", "--format tsv"),
    ("malformed.csv", 'label,text\na,"one" two\n', (), ":2:", "malformed CSV"),
    ("header.csv", "label,text\n", (), ":1:", "only a header"),
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A model trained on four short documents (classes ``a`` and ``b``)."""
    d = tmp_path_factory.mktemp("tiny")
    data = _write(d / "tiny.tsv", "a\tapples and pears\nb\tcars and trucks\n"
                                  "a\tpears and plums\nb\ttrucks and buses\n")
    out = d / "tiny.npz"
    assert main(["topics", "train", "--data", str(data), "--model", "sdem-nb", "--min-df", "1",
                 "-q", "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
@pytest.mark.parametrize("command", ["train", "eval"])
def test_bad_csv_is_refused_naming_file_and_line(case, command, tiny_model, tmp_path, capsys):
    name, content, opts, *words = case
    f = _write(tmp_path / name, content)
    argv = (["topics", "train", "-o", str(tmp_path / "m.npz")] if command == "train" else
            ["topics", "eval", "-m", str(tiny_model)])
    rc, err = _error(argv + ["--data", str(f), *opts], capsys)
    assert one_line_error(rc, err, f"{f}{words[0]}", *words[1:]), err


def test_predict_takes_missing_labels_but_not_bad_rows(tiny_model, tmp_path, capsys):
    model = tiny_model
    f = _write(tmp_path / "new.csv", "label,text\n,apples\nb,\"cars, trucks\"\n")
    rc, out, err = run_cli(["topics", "predict", "-m", str(model), "--data", str(f)], capsys)
    assert rc == 0 and out.splitlines() == ["a", "b"], err
    bad = _write(tmp_path / "bad.csv", "text\napples\n\"unclosed\n")
    rc, err = _error(["topics", "predict", "-m", str(model), "--data", str(bad)], capsys)
    assert one_line_error(rc, err, f"{bad}:3:", "never closed"), err


def test_csv_read_as_tsv_and_tsv_read_as_csv_are_refused(tiny_model, tmp_path, capsys):
    model = tiny_model
    # predict reads a line without a tab as a text: a CSV header would be one document
    f = _write(tmp_path / "x.txt", 'review,sentiment\n"apples, pears",a\n')
    rc, err = _error(["topics", "predict", "-m", str(model), "--data", str(f), "--format",
                      "tsv"], capsys)
    assert one_line_error(rc, err, f"{f}:1:", "--format csv"), err
    g = _write(tmp_path / "y.csv", 'a,"apples, pears"\nb,cars\n')
    rc, err = _error(["topics", "predict", "-m", str(model), "--data", str(g), "--format",
                      "tsv"], capsys)
    assert one_line_error(rc, err, f"{g}:1:", "--format csv"), err
    rc, err = _error(["topics", "train", "--data", str(g), "--format", "tsv", "-o",
                      str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{g}:1:", "--format csv"), err
    t = _write(tmp_path / "z.tsv", "a\tapples\nb\tcars\n")
    rc, err = _error(["topics", "predict", "-m", str(model), "--data", str(t), "--format",
                      "csv"], capsys)
    assert one_line_error(rc, err, f"{t}:1:", "--format tsv"), err


def test_field_options_refused_where_they_do_not_apply(tmp_path, capsys):
    t = _write(tmp_path / "x.ft", "__label__a apples\n__label__b cars\n")
    rc, err = _error(["topics", "train", "--data", str(t), "--text-field", "body", "-o",
                      str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, str(t), "--text-field", "CSV, TSV and JSON lines"), err
    t = _write(tmp_path / "x.tsv", "a\tapples\nb\tcars\n")   # TSV: its columns, as CSV's
    rc, err = _error(["topics", "train", "--data", str(t), "--text-field", "body", "-o",
                      str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{t}:1:", "--text-field body: no column of that name"), err
    j = _write(tmp_path / "x.jsonl", '{"label": "a", "body": "apples"}\n')
    rc, err = _error(["topics", "train", "--data", str(j), "--text-field", "content", "-o",
                      str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{j}:1:", "no 'content' field", "'label', 'body'"), err
    rc, err = _error(["topics", "train", "--data", str(j), "--label-field", "stars",
                      "--text-field", "body", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{j}:1:", "no 'stars' field", "'label', 'body'"), err
    rc, err = _error(["topics", "train", "--data", str(j), "--label-field", "a,b", "-o",
                      str(tmp_path / "m.npz")], capsys)
    assert rc == 2 and "--label-field" in err and "one field" in err, err
    n = _write(tmp_path / "n.jsonl", '{"stars": NaN, "text": "x"}\n')
    with pytest.raises(FormatError, match="finite number, got nan"):
        read_documents(n, label_field="stars")
    with pytest.raises(FormatError, match="no column of that name"):
        read_documents(_write(tmp_path / "h.csv", "label,text\na,b\n"), label_field="Cls")


# ----------------------------------------------------------------------- round trip

#: labels read back as written: not a whole number written as a decimal (``1.0`` is ``1``)
#: nor true/false in another case (``True`` is ``true``), nor a missing value's spelling
#: (``nan``: refused beside class numbers), and with a character to see (a label of a soft
#: hyphen alone is refused)
_LABEL = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                 max_size=8).filter(lambda s: s == s.strip() and not re.fullmatch(
                     r"[+-]?[0-9]+\.0*|true|false", s, re.IGNORECASE)
                     and s.lower() not in MISSING_VALUES
                     and any(not c.isspace() and unicodedata.category(c) not in ("Cf", "Mn")
                             for c in s))
_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00"),
                min_size=1, max_size=40).filter(lambda s: s.strip())


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=st.lists(st.tuples(_LABEL, _TEXT), min_size=1, max_size=6),
       end=st.sampled_from(["\r\n", "\n"]),
       quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC]),
       bom=st.booleans())
def test_random_documents_written_by_csv_writer_read_back(tmp_path, docs, end, quoting, bom):
    f = tmp_path / "r.csv"
    text = _csv_text(docs, ["label", "text"], lineterminator=end, quoting=quoting)
    f.write_bytes(text.encode("utf-8-sig" if bom else "utf-8"))
    with input_encoding("utf-8"):   # said, as --encoding utf-8: random words of several
        got = read_documents(f)      # scripts ('á𥽡') look like misread GB18030 otherwise
    assert got.labels == [a for a, _ in docs]
    assert got.texts == [t for _, t in docs]
