"""Unusual inputs, fourteenth sweep (issue 28, docs/errors.md), by class:

- UTF-8 text read with a multi-byte ``--encoding`` (GB18030, Shift JIS, EUC-KR, Big5...):
  it decoded without an error into other characters (``你好`` as ``浣犲ソ``), exit 0; now a
  file whose text beyond ASCII is all UTF-8 (in its first 64 KB from that line) is
  refused naming its first line beyond ASCII, and text truly in the encoding reads as
  before; the files of a ``topics`` document folder are checked whole, for the
  single-byte encodings too;
- a huge line (a file without line ends): a 100 MB line was read, decoded and split
  whole, refused after 33-58 s and 3-5 GB of memory; now a line longer than
  ``structpred.io.MAX_LINE_BYTES`` (1 MiB; a topics document: 16 MiB) is refused once
  that many bytes are read, naming file and line.

(Model files edited after they were written: tests/test_model_digest.py.)"""

import gzip
import io
import itertools
import re
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from structpred.io import MAX_LINE_BYTES, read_lines

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

MULTI_BYTE = ["gb18030", "gbk", "gb2312", "shift_jis", "cp932", "euc-jp", "euc-kr", "big5",
              "cp949", "big5hkscs"]
LOOKS_UTF8 = "this file looks like UTF-8 text, not "

# ------------------------------------- class: UTF-8 text read in a multi-byte encoding
#: words beyond ASCII of one script each that show UTF-8 (sweep 21: a letter or two, or
#: accented letters without an ASCII one, are as often GB18030 or Big5 read as UTF-8, and
#: the file is read in the encoding given; structpred.io._encoding.utf8_evidence):
#: Chinese, kana, Hangul (two characters or more), accented Latin beside ASCII letters,
#: Cyrillic (four letters or more)
NON_ASCII = st.one_of(
    st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=2, max_size=6),
    st.text(st.characters(min_codepoint=0x3041, max_codepoint=0x3096), min_size=2, max_size=6),
    st.text(st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3), min_size=2, max_size=6),
    st.text(st.characters(min_codepoint=0xC0, max_codepoint=0x17F, categories=("Lu", "Ll")),
            min_size=1, max_size=5).map(lambda w: "ca" + w),
    st.text(st.characters(min_codepoint=0x410, max_codepoint=0x44F), min_size=4, max_size=6))


@SETTINGS
@given(word=NON_ASCII, encoding=st.sampled_from(MULTI_BYTE), before=st.integers(0, 3),
       after=st.integers(0, 3), gz=st.booleans())
def test_utf8_text_read_in_a_multi_byte_encoding_is_refused(tmp_path_factory, word, encoding,
                                                            before, after, gz):
    path = tmp_path_factory.mktemp("enc") / ("f.txt.gz" if gz else "f.txt")
    text = "plain words\n" * before + f"le {word} x\n" + "more words\n" * after
    raw = text.encode("utf-8")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    with pytest.raises(FormatError, match=re.escape(f"{path.name}:{before + 1}: {LOOKS_UTF8}")
                       + ".*" + re.escape("give --encoding utf-8")):
        list(read_lines(path, encoding=encoding))


#: real words of each language, in encodings that write them
WORDS = {"zh": "我们 今天 北京 天气 很好 学习 中文 朋友 电脑 喜欢 吃饭 工作 时间 问题 发展 经济".split(),
         "zh-tw": "我們 今天 臺灣 天氣 學習 中文 朋友 電腦 喜歡 吃飯 工作 時間 問題 發展".split(),
         "ja": "私は 東京 に 住んで います 日本語 を 勉強 する こんにちは ありがとう 学校 "
               "カタカナ ひらがな".split(),
         "ko": "안녕하세요 저는 한국어 를 공부 합니다 서울 학교 감사합니다 사랑".split(),
         "fr": "café à la crème élève été où garçon déjà forêt naïve cœur".split()}
TRUE_TEXT = [("zh", "gb18030"), ("zh", "gbk"), ("zh", "gb2312"), ("zh-tw", "big5"),
             ("ja", "shift_jis"), ("ja", "cp932"), ("ja", "euc-jp"), ("ko", "euc-kr"),
             ("ko", "cp949"), ("fr", "latin-1"), ("fr", "cp1252")]


@SETTINGS
@given(data=st.data(), which=st.sampled_from(TRUE_TEXT), n=st.integers(1, 4))
def test_text_truly_in_the_encoding_reads_as_written(tmp_path_factory, data, which, n):
    """Chinese in GB18030 and Big5, Japanese in Shift JIS and EUC-JP, Korean in EUC-KR,
    French in Latin-1: each sentence of three words or more."""
    lang, encoding = which
    if lang == "fr" and encoding == "latin-1":
        words = [w for w in WORDS[lang] if w != "cœur"]
    else:
        words = WORDS[lang]
    lines = [" ".join(data.draw(st.lists(st.sampled_from(words), min_size=3, max_size=8)))
             for _ in range(n)]
    path = tmp_path_factory.mktemp("enc") / "f.txt"
    path.write_bytes(("id 1\n" + "\n".join(lines) + "\n").encode(encoding))
    assert [t for _, t in read_lines(path, encoding=encoding)] == ["id 1", *lines]


def test_an_ascii_file_reads_in_any_encoding(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("the house\nla maison\n")
    for encoding in MULTI_BYTE:
        assert [t for _, t in read_lines(path, encoding=encoding)] == ["the house", "la maison"]


class _Stream(io.RawIOBase):
    """Standard input that repeats ``line`` forever, failing the test after ``limit`` bytes
    read: what is held back is bounded, and a reader still streams."""

    def __init__(self, line, limit=4 << 20):
        self.line, self.limit, self.read_so_far = line, limit, 0

    def readable(self):
        return True

    def readinto(self, buf):
        assert self.read_so_far < self.limit, "read on and on"
        n = len(buf)
        chunk = (self.line * (n // len(self.line) + 2))[self.read_so_far % len(self.line):]
        buf[:] = chunk[:n]
        self.read_so_far += n
        return n


@pytest.mark.parametrize("encoding,lang", [("gb18030", "zh"), ("shift_jis", "ja")])
def test_standard_input_still_streams(monkeypatch, encoding, lang):
    """Text truly in the encoding, from a stream without an end: its first lines come at
    once; UTF-8 text from such a stream is refused after a bounded read."""
    line = (" ".join(WORDS[lang][:5]) + "\n").encode(encoding)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Stream(line))))
    got = list(itertools.islice(read_lines("-", encoding=encoding), 3))
    assert [t for _, t in got] == [line.decode(encoding).rstrip("\n")] * 3
    utf8 = (" ".join(WORDS[lang][:5]) + "\n").encode("utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Stream(utf8))))
    with pytest.raises(FormatError, match=re.escape(f"-:1: {LOOKS_UTF8}")):
        list(read_lines("-", encoding=encoding))


@pytest.fixture
def topics_data(tmp_path):
    rows = [("fruit", "apple banana 苹果 香蕉 橘子 水果"), ("car", "engine wheel 汽车 轮子 道路")]
    text = "".join(f"{lab}\t{txt} {i}\n" for i in range(6) for lab, txt in rows)
    return tmp_path, text


def test_topics_train_refuses_utf8_given_gb18030_and_reads_gb18030(topics_data, capsys):
    d, text = topics_data
    (d / "utf8.tsv").write_text(text, encoding="utf-8")
    (d / "gb.tsv").write_bytes(text.encode("gb18030"))
    train = ["topics", "train", "--model", "sdem-nb", "-q", "--encoding", "gb18030"]
    rc, _, err = run_cli([*train, "--data", str(d / "utf8.tsv"), "-o", str(d / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "utf8.tsv:1: " + LOOKS_UTF8 + "gb18030"), err
    assert not (d / "m.npz").exists()
    rc, _, err = run_cli([*train, "--data", str(d / "gb.tsv"), "-o", str(d / "m.npz")], capsys)
    assert rc in (0, None), err


@pytest.mark.parametrize("encoding", ["gb18030", "shift_jis", "latin-1"])
def test_a_utf8_document_of_a_folder_is_refused_in_another_encoding(topics_data, encoding,
                                                                     capsys):
    d, _ = topics_data
    for label, words in (("fruit", "苹果 café"), ("car", "汽车 naïve")):
        (d / "docs" / label).mkdir(parents=True)
        for i in range(3):
            (d / "docs" / label / f"{i}.txt").write_text(f"{words} {i} words here\n",
                                                         encoding="utf-8")
    rc, _, err = run_cli(["topics", "train", "--data", str(d / "docs"), "--model", "sdem-nb",
                          "-q", "--encoding", encoding, "-o", str(d / "m.npz")], capsys)
    assert one_line_error(rc, err, ".txt: " + LOOKS_UTF8), err


def test_a_folder_of_gb18030_documents_reads(topics_data, capsys):
    d, _ = topics_data
    for label, words in (("fruit", "苹果 香蕉 橘子 水果"), ("car", "汽车 轮子 道路 司机")):
        (d / "docs" / label).mkdir(parents=True)
        for i in range(3):
            (d / "docs" / label / f"{i}.txt").write_bytes(f"{words} {i}\n".encode("gb18030"))
    rc, _, err = run_cli(["topics", "train", "--data", str(d / "docs"), "--model", "sdem-nb",
                          "-q", "--encoding", "gb18030", "-o", str(d / "m.npz")], capsys)
    assert rc in (0, None), err


# --------------------------------------------------------------- class: a huge line
@SETTINGS
@given(cap=st.sampled_from([64, 4096, 70000]), extra=st.integers(1, 5000),
       lineno=st.integers(1, 3), end=st.sampled_from(["", "\n", "\r\n"]), gz=st.booleans(),
       char=st.sampled_from(["a", "é", "中", "a b "]))
def test_a_line_longer_than_the_cap_is_refused_naming_it(tmp_path_factory, monkeypatch, cap,
                                                         extra, lineno, end, gz, char):
    monkeypatch.setattr("structpred.io._files.MAX_LINE_BYTES", cap)
    monkeypatch.setattr("structpred.io._files._CHUNK", 1024)   # several chunks to a line
    path = tmp_path_factory.mktemp("long") / ("f.txt.gz" if gz else "f.txt")
    long = (char * (cap + extra)).encode("utf-8")[:cap + extra]
    long = long.decode("utf-8", errors="ignore").encode("utf-8")
    rest = end.encode() + b"last line\n" if end else b""       # no line end: the last line
    raw = b"a line\n" * (lineno - 1) + long + rest
    path.write_bytes(gzip.compress(raw) if gz else raw)
    if len(long) <= cap:
        assert len(list(read_lines(path))) == lineno + (1 if end else 0)
        return
    with pytest.raises(FormatError, match=re.escape(f"{path.name}:{lineno}: a line longer than "
                                                    f"{cap:,} bytes")):
        list(read_lines(path))
    # a line of the cap itself, its line end left out, is read
    raw = b"a line\n" * (lineno - 1) + b"x" * cap + rest
    path.write_bytes(gzip.compress(raw) if gz else raw)
    assert len(list(read_lines(path))) == lineno + (1 if end else 0)


def test_a_stream_without_line_ends_is_refused_after_a_bounded_read(monkeypatch):
    """A huge line from standard input (``yes | tr -d '\\n'``): refused after about the cap,
    not read until the memory runs out."""
    stream = _Stream(b"word ", limit=MAX_LINE_BYTES + (3 << 20))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    with pytest.raises(FormatError, match=re.escape(f"-:1: a line longer than "
                                                    f"{MAX_LINE_BYTES:,} bytes")):
        list(read_lines("-"))


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    """A file whose second line is one byte longer than the cap (the real one)."""
    d = tmp_path_factory.mktemp("huge")
    (d / "huge.txt").write_bytes(b"the house\n" + b"w " * (MAX_LINE_BYTES // 2) + b"x\n")
    (d / "two.txt").write_text("the house\nla maison\n")
    return d


@pytest.mark.parametrize("argv", [
    ["align", "train", "--src", "{huge}", "--tgt", "{two}", "--gold", "{gold}",
     "--bitext-src", "{b_en}", "--bitext-tgt", "{b_fr}"],
    ["align", "train", "--src", "{two}", "--tgt", "{huge}", "--gold", "{gold}",
     "--bitext-src", "{b_en}", "--bitext-tgt", "{b_fr}"],
    ["align", "train", "--src", "{b_en}", "--tgt", "{two}", "--gold", "{gold}",
     "--bitext-src", "{huge}", "--bitext-tgt", "{b_fr}"],
    ["tag", "train", "--data", "{huge}"],
    ["aer", "--gold", "{gold}", "--test", "{gold}", "--src", "{huge}", "--tgt", "{two}"]])
def test_the_cli_refuses_a_huge_line_at_once(huge, argv, tmp_path, capsys):
    (tmp_path / "gold.txt").write_text("0-0\n0-0\n")
    for name in ("b.en", "b.fr"):
        (tmp_path / name).write_text("the house\nla maison\n")
    paths = {"huge": str(huge / "huge.txt"), "two": str(huge / "two.txt"),
             "gold": str(tmp_path / "gold.txt"), "b_en": str(tmp_path / "b.en"),
             "b_fr": str(tmp_path / "b.fr")}
    t0 = time.perf_counter()
    argv = [a.format(**paths) for a in argv] + (["-o", str(tmp_path / "o")]
                                                 if argv[0] != "aer" else [])
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "huge.txt:2: a line longer than 1,048,576 bytes"), err
    assert time.perf_counter() - t0 < 30
    assert not (tmp_path / "o").exists()


def test_topics_reads_a_document_longer_than_a_sentence_and_refuses_a_huge_one(
        tmp_path, monkeypatch, capsys):
    """A document may be longer than a sentence's cap (a book in one line); above
    ``MAX_DOCUMENT_BYTES`` (made smaller here) it is refused, in a line of a TSV file and
    as a file of a document folder."""
    from topics import _text_io

    rows = "".join(f"{lab}\t{txt} {i}\n" for i in range(6)
                   for lab, txt in [("fruit", "apple banana pear"), ("car", "engine wheel")])
    long = "fruit\t" + "apple pear " * (MAX_LINE_BYTES // 10) + "\n"
    (tmp_path / "t.tsv").write_text(rows + long)
    train = ["topics", "train", "--model", "sdem-nb", "-q"]
    rc, _, err = run_cli([*train, "--data", str(tmp_path / "t.tsv"), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert rc in (0, None), err
    monkeypatch.setattr(_text_io, "MAX_DOCUMENT_BYTES", MAX_LINE_BYTES)
    rc, _, err = run_cli([*train, "--data", str(tmp_path / "t.tsv"), "-o",
                          str(tmp_path / "m2.npz")], capsys)
    assert one_line_error(rc, err, "t.tsv:13: a line longer than 1,048,576 bytes"), err
    for label in ("fruit", "car"):
        (tmp_path / "docs" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "docs" / label / f"{i}.txt").write_text(f"{label} words {i}\n")
    (tmp_path / "docs" / "fruit" / "big.txt.gz").write_bytes(gzip.compress(long.encode()))
    rc, _, err = run_cli([*train, "--data", str(tmp_path / "docs"), "-o",
                          str(tmp_path / "m3.npz")], capsys)
    assert one_line_error(rc, err, "big.txt.gz: a document longer than 1,048,576 bytes"), err


def test_a_json_array_on_one_line_may_be_longer_than_a_document(tmp_path, monkeypatch, capsys):
    """``json.dump`` of a list of records writes a whole corpus on one line: it is read
    (up to ``MAX_JSON_ARRAY_BYTES``), while a line of JSON lines holds one document."""
    import json

    from topics import _text_io

    monkeypatch.setattr(_text_io, "MAX_DOCUMENT_BYTES", 1 << 16)
    records = [{"label": lab, "text": f"{txt} " * 400 + str(i)} for i in range(40)
               for lab, txt in [("fruit", "apple banana pear"), ("car", "engine wheel")]]
    (tmp_path / "a.json").write_text(json.dumps(records))
    assert (tmp_path / "a.json").stat().st_size > 1 << 16
    train = ["topics", "train", "--model", "sdem-nb", "-q"]
    rc, _, err = run_cli([*train, "--data", str(tmp_path / "a.json"), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert rc in (0, None), err
    big = dict(records[0], text="apple " * (1 << 14))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records[:4])
                                      + json.dumps(big) + "\n")
    rc, _, err = run_cli([*train, "--data", str(tmp_path / "b.jsonl"), "-o",
                          str(tmp_path / "m2.npz")], capsys)
    assert one_line_error(rc, err, "b.jsonl:5: a line longer than 65,536 bytes"), err
    monkeypatch.setattr(_text_io, "MAX_JSON_ARRAY_BYTES", 1 << 16)
    rc, _, err = run_cli([*train, "--data", str(tmp_path / "a.json"), "-o",
                          str(tmp_path / "m3.npz")], capsys)
    assert one_line_error(rc, err, "a.json:1: a line longer than 65,536 bytes"), err

