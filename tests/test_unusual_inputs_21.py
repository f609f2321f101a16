"""Unusual inputs of the command line, sweep 21 (issue 28, docs/errors.md), by class.

Fixed in this sweep:

- short text in GB18030 or Big5 (a line or three of Chinese) given ``--encoding gb18030``
  (``big5``) was refused as "this file looks like UTF-8 text" whenever its bytes were also
  valid UTF-8 (``毛`` is ``ë`` in UTF-8, ``石头`` is ``ʯͷ``), while longer files were
  read: a file valid in the encoding given is read now unless its UTF-8 reading shows it
  is UTF-8 (``structpred.io._encoding.utf8_evidence``);
- without ``--encoding``, such a file was read silently as those UTF-8 letters (``ʯͷ``),
  or, invalid UTF-8, refused with the hint ``--encoding latin-1``; a ``topics`` document
  folder of them was read as Latin-1 without a word and trained on. Now the refusal names
  the file and line and suggests ``--encoding gb18030`` / ``big5``;
- with a single-byte ``--encoding`` (``latin-1``), each line was checked for UTF-8 on its
  own: a file whose line 3 is Latin-1 (not UTF-8) was refused at a later line that is
  valid UTF-8 with the advice to drop ``--encoding``, which then failed at line 3. The
  outcome is the file's now: all UTF-8 (refused, naming the first line), or a mix (refused
  naming a line of each), or text of the encoding (read).
"""

import gzip
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from structpred.io import read_lines

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: common characters of each script, in the encoding that writes them
HANZI = {"gb18030": "毛石头每天太好我们去学校他说不专写应展站位委为越之时全山目前品权直",
         "big5": "覺讀議聽我們今天去台北這是一個句子學習中文朋友電腦喜歡時間問題發展"}
#: words of GB18030 and Big5 whose bytes are valid UTF-8 too, each read as UTF-8 letters
#: (``毛`` as ``ë``, ``石头`` as ``ʯͷ``, ``聽議`` as ``ťĳ``): refused before with the
#: encoding given
VALID_UTF8_TOO = [("gb18030", "毛"), ("gb18030", "石"), ("gb18030", "专"), ("gb18030", "写"),
                  ("gb18030", "石头"), ("gb18030", "位委"), ("big5", "覺"), ("big5", "聽議"),
                  ("gb18030", "le 毛 x\nplain\n"), ("gb18030", "a\t石\nb\t专\n")]


def _w(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


# ------------------------------------- class: short text of GB18030 and Big5, encoding given
@pytest.mark.parametrize("enc,text", VALID_UTF8_TOO)
def test_short_chinese_valid_as_utf8_too_is_read_with_its_encoding(tmp_path, enc, text):
    raw = text.encode(enc)
    raw.decode("utf-8")                      # valid UTF-8 too, by chance
    path = _w(tmp_path / "f.txt", raw)
    assert [t for _, t in read_lines(path, enc)] == text.rstrip("\n").split("\n")


@settings(SETTINGS, max_examples=60)
@given(data=st.data(), enc=st.sampled_from(sorted(HANZI)))
def test_short_chinese_given_its_encoding_is_always_read(tmp_path_factory, data, enc):
    """One to three lines of one to three words of one to three characters."""
    word = st.text(st.sampled_from(HANZI[enc]), min_size=1, max_size=3)
    lines = data.draw(st.lists(st.lists(word, min_size=1, max_size=3).map(" ".join),
                               min_size=1, max_size=3))
    path = _w(tmp_path_factory.mktemp("enc") / "f.txt", ("\n".join(lines) + "\n").encode(enc))
    assert [t for _, t in read_lines(path, enc)] == lines


@pytest.mark.parametrize("enc", sorted(HANZI))
def test_topics_reads_short_chinese_with_its_encoding(enc, tmp_path, capsys):
    words = {"gb18030": ["毛", "石", "专", "写"], "big5": ["覺", "讀", "議", "聽"]}[enc]
    data = _w(tmp_path / "d.tsv", "".join(f"{'ab'[i % 2]}\t{words[i % 4]}{words[(i + 1) % 4]}\n"
                                          for i in range(8)).encode(enc))
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "-o",
                            str(tmp_path / "m.npz"), "--model", "svm", "-q", "--encoding", enc],
                           capsys)
    assert rc == 0, err
    assert (tmp_path / "m.npz").exists()


# ------------------------------------- class: short text of GB18030 and Big5, no encoding
def test_chinese_valid_as_utf8_of_no_text_is_refused_suggesting_the_encoding(tmp_path, capsys):
    """``石头`` in GB18030 is ``ʯͷ`` in UTF-8 (a Latin and a Greek letter in one word): it
    was read so, silently."""
    data = _w(tmp_path / "d.tsv", "a\t石头\nb\t专写\n".encode("gb18030"))
    with pytest.raises(FormatError, match=re.escape("d.tsv:1: not UTF-8 text?") + ".*"
                       + re.escape("give --encoding gb18030")):
        list(read_lines(data))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "d.tsv:1", "--encoding gb18030",
                          "if it is UTF-8, give --encoding utf-8"), err
    assert not (tmp_path / "m.npz").exists()
    # the way out: UTF-8 given is read as such
    assert [t for _, t in read_lines(data, "utf-8")] == [
        f"{k}\t{w.encode('gb18030').decode('utf-8')}" for k, w in (("a", "石头"), ("b", "专写"))]


@pytest.mark.parametrize("enc", sorted(HANZI))
def test_chinese_not_utf8_gets_the_hint_of_its_encoding(enc, tmp_path, capsys):
    """It got the hint ``--encoding latin-1`` alone, which read it as other letters."""
    data = _w(tmp_path / "d.tsv", "".join(f"{'ab'[i % 2]}\t{HANZI[enc][i:i + 4]}\n"
                                          for i in range(8)).encode(enc))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "d.tsv:", "UTF-8", f"--encoding {enc}"), err
    assert "not valid UTF-8" in err or "not UTF-8 text?" in err


@pytest.mark.parametrize("enc", sorted(HANZI))
def test_a_topics_folder_of_chinese_without_encoding_is_refused(enc, tmp_path, capsys):
    """Each file was decoded as Latin-1, silently, and the model trained on those letters."""
    for i in range(8):
        sub = tmp_path / "docs" / "ab"[i % 2]
        sub.mkdir(parents=True, exist_ok=True)
        _w(sub / f"{i}.txt", (HANZI[enc][i:i + 5] + "\n").encode(enc))
    rc, _, err = run_cli(["topics", "train", "--data", str(tmp_path / "docs"), "-o",
                          str(tmp_path / "m.npz"), "--model", "svm", "-q"], capsys)
    assert one_line_error(rc, err, ".txt", f"--encoding {enc}"), err
    assert not (tmp_path / "m.npz").exists()
    rc, _, err = run_cli(["topics", "train", "--data", str(tmp_path / "docs"), "-o",
                          str(tmp_path / "m.npz"), "--model", "svm", "-q", "--encoding", enc],
                         capsys)
    assert rc == 0, err


def test_latin1_text_keeps_its_hint(tmp_path):
    path = _w(tmp_path / "f.txt", "le café noir\n".encode("latin-1"))
    with pytest.raises(FormatError, match=re.escape("--encoding latin-1")):
        list(read_lines(path))


# ----------------------------------------- class: a single-byte encoding, per file
def test_a_latin1_file_with_a_line_valid_as_utf8_is_refused_as_mixed(tmp_path, capsys):
    """Line 2 is Latin-1 (not UTF-8): the refusal of line 4 (``MÃ©xico``, valid UTF-8) said
    "drop --encoding", which then failed at line 2."""
    raw = "plain\ncafé noir\nmore\nMÃ©xico\n".encode("latin-1")
    path = _w(tmp_path / "f.txt", raw)
    with pytest.raises(FormatError, match=re.escape("f.txt:4: this line is UTF-8 text, but "
                                                    "line 2 is not: the file mixes UTF-8")):
        list(read_lines(path, "latin-1"))


def test_a_mixed_file_is_refused_whichever_comes_first(tmp_path):
    raw = "MÃ©xico\nplain\n".encode("latin-1") + "café noir\n".encode("latin-1")
    path = _w(tmp_path / "f.txt", raw)
    with pytest.raises(FormatError, match=re.escape("f.txt:1: this line is UTF-8 text, but "
                                                    "line 3 is not")):
        list(read_lines(path, "latin-1"))


LATIN1_WORD = st.text(st.one_of(st.characters(min_codepoint=0xE0, max_codepoint=0xFF),
                                st.sampled_from("abcxyz")), min_size=1, max_size=5)


@SETTINGS
@given(lines=st.lists(st.lists(LATIN1_WORD, min_size=1, max_size=4).map(" ".join),
                      min_size=1, max_size=6),
       encoding=st.sampled_from(["latin-1", "cp1252"]), gz=st.booleans())
def test_single_byte_outcome_is_the_files(tmp_path_factory, lines, encoding, gz):
    """Read as written when no line beyond ASCII is UTF-8; refused as UTF-8 (first line)
    when every one is; refused as mixed otherwise: never "drop --encoding" for a file
    that has a line UTF-8 cannot read."""
    raw = "".join(line + "\n" for line in lines).encode(encoding)
    path = tmp_path_factory.mktemp("enc") / ("f.txt.gz" if gz else "f.txt")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    if raw[:2] in (b"\xfe\xff", b"\xff\xfe"):   # 'þÿ', 'ÿþ': the bytes of a UTF-16 mark
        with pytest.raises(FormatError, match="UTF-16 encoded"):
            list(read_lines(path, encoding))
        return

    def utf8(line):
        try:
            return not line.isascii() and bool(line.encode(encoding).decode("utf-8"))
        except UnicodeDecodeError:
            return False

    kinds = [utf8(line) for line in lines if not line.isascii()]
    if not any(kinds):
        assert [t for _, t in read_lines(path, encoding)] == lines
        return
    with pytest.raises(FormatError) as exc:
        list(read_lines(path, encoding))
    if all(kinds):
        assert "drop --encoding" in str(exc.value)
    else:
        assert "the file mixes UTF-8" in str(exc.value)
        assert "drop --encoding" not in str(exc.value)


@pytest.fixture(scope="module")
def tagger(tmp_path_factory):
    """A tagger of one column (the word), trained on six sentences."""
    from sequence.model import SequenceTagger

    sents = [[("le", "DT"), ("chat", "NN")], [("un", "DT"), ("chien", "NN")]] * 3
    model = SequenceTagger(n_iter=2, min_count=1).fit([[t[:1] for t in s] for s in sents],
                                                      [[t[1] for t in s] for s in sents])
    path = tmp_path_factory.mktemp("tagger") / "m.npz"
    model.save(path)
    return path


def test_tag_predict_names_the_mix_in_one_line(tagger, tmp_path, capsys):
    data = _w(tmp_path / "in.txt", "café\nle\n\nMÃ©xico\n\n".encode("latin-1"))
    out = tmp_path / "out.txt"
    rc, _, err = run_cli(["tag", "predict", "-m", str(tagger), "-i", str(data),
                          "-o", str(out), "--encoding", "latin-1"], capsys)
    assert one_line_error(rc, err, "in.txt:4", "mixes UTF-8 and", "line 1"), err
    assert not out.exists()


# ------------------------------- class: UTF-8 whose only character beyond ASCII is a space
@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "gb18030", "big5"])
@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2009"])
def test_utf8_with_only_a_no_break_space_beyond_ascii_is_named(encoding, space, tagger,
                                                               tmp_path, capsys):
    """``le<NBSP>chat`` in UTF-8 given a single-byte ``--encoding`` was a ``StopIteration``
    traceback (the word beyond ASCII was looked for among words split on every space).
    Where the UTF-8 bytes are not even valid in ``encoding`` (U+202F in GB18030, U+00A0 in
    Big5), the same line names them."""
    path = _w(tmp_path / "f.txt", f"le{space}chat\n\n")
    with pytest.raises(FormatError, match=re.escape("f.txt:1: this ") + "(line is|file looks "
                       "like) UTF-8 text"):
        list(read_lines(path, encoding))
    rc, _, err = run_cli(["tag", "predict", "-m", str(tagger), "-i", str(path),
                          "--encoding", encoding], capsys)
    assert one_line_error(rc, err, "f.txt:1", "UTF-8 text"), err


def test_a_topics_document_mixing_latin1_and_utf8_is_refused(tmp_path, capsys):
    """A document file of a folder is decided whole, as a file of lines is: it was read as
    Latin-1, its UTF-8 line as ``MÃ©xico``."""
    for label, texts in (("a", ["café noir\nMÃ©xico city\n", "the cat\n"]),
                         ("b", ["dogs run\n", "big dogs\n"])):
        (tmp_path / "docs" / label).mkdir(parents=True)
        for i, text in enumerate(texts):
            _w(tmp_path / "docs" / label / f"{i}.txt", text.encode("latin-1"))
    rc, _, err = run_cli(["topics", "train", "--data", str(tmp_path / "docs"), "-o",
                          str(tmp_path / "m.npz"), "--model", "svm", "-q", "--encoding",
                          "latin-1"], capsys)
    assert one_line_error(rc, err, "0.txt: line 2: this line is UTF-8 text, but line 1 "
                          "is not"), err


# ------------------------------------- class: UTF-16 without a byte-order mark, beyond Latin-1
@SETTINGS
@given(text=st.lists(st.text(st.sampled_from(HANZI["gb18030"] + "ab"), min_size=1,
                             max_size=6), min_size=2, max_size=4).map(" ".join),
       order=st.sampled_from(["LE", "BE"]), command=st.sampled_from(["tag", "topics"]))
def test_utf16_of_chinese_without_a_mark_is_named(tmp_path_factory, text, order, command):
    """Chinese characters have no NUL byte in UTF-16: such a file was "binary data (it
    holds NUL bytes)" (ASCII alone was named UTF-16 already)."""
    import io
    from contextlib import redirect_stderr

    from structpred.cli import main

    d = tmp_path_factory.mktemp("u16")
    line = f"a\t{text}\n" if command == "topics" else f"{text.split()[0]} N\n"
    path = _w(d / ("f.tsv" if command == "topics" else "f.txt"),
              (line * 4).encode(f"utf-16-{order.lower()}"))
    argv = (["topics", "train", "--data", str(path), "-o", str(d / "m.npz")]
            if command == "topics" else ["tag", "train", "--data", str(path), "-o",
                                         str(d / "m.npz")])
    err = io.StringIO()
    with redirect_stderr(err):
        rc = main(argv)
    assert one_line_error(rc, err.getvalue(), path.name, "UTF-16 encoded, without a "
                          f"byte-order mark", f"iconv -f UTF-16{order}"), err.getvalue()


@pytest.mark.parametrize("first, what", [
    ("不不不不不 N", "UTF-16 encoded, without a byte-order mark"),   # the UTF-32 pass cut it
    ("不 N", "UTF-16 encoded, without a byte-order mark"),          # three code units
])
def test_utf16_first_lines_of_odd_unit_counts_are_named(tmp_path, capsys, first, what):
    """The UTF-16 check looked at the bytes the UTF-32 check had cut to whole 4-byte units,
    so a first line of 7 UTF-16 units lost one and was "NUL byte at column 12"."""
    path = _w(tmp_path / "f.txt", (f"{first}\n" * 4).encode("utf-16-le"))
    rc, _, err = run_cli(["tag", "train", "--data", str(path), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "f.txt", what, "iconv -f UTF-16LE"), err


def test_a_nul_byte_in_a_short_line_is_not_taken_for_utf16():
    """Two bytes of one lane are too few to call a line UTF-16: 'a<NUL>b c' is a NUL
    byte in text."""
    from structpred.io._magic import _wide_without_mark

    assert _wide_without_mark(b"a\x00b c\n") is None
    assert _wide_without_mark("不 N\n".encode("utf-16-le")).startswith("UTF-16")


@pytest.mark.parametrize("line", ["el artículo nº 5 de la 2ª ley", "мʼясо і пʼять",
                                  "ºá ºá", "µm à 3 µm"])
def test_utf8_with_ordinals_and_modifier_letters_is_read(tmp_path, line):
    """'º', 'ª' (Latin letters named "ORDINAL INDICATOR") and the Ukrainian apostrophe 'ʼ'
    (a modifier letter) made a word of "several scripts", and a UTF-8 line of Spanish
    whose bytes also read as GB2312 was refused as Chinese."""
    path = _w(tmp_path / "es.txt", (line + "\n").encode("utf-8"))
    assert [t for _, t in read_lines(path)] == [line]
