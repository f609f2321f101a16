"""Unusual inputs, seventeenth sweep (issue 28, docs/errors.md): the content of text, by
class.

Fixed in this sweep:

- invisible format characters stuck to a word (a direction mark U+200E/U+200F, a bidi
  embedding or isolate, a zero-width space, a word joiner, a soft hyphen, a byte-order mark
  inside a line), and variation selectors (``❤`` + U+FE0F, a Han ideograph's variant): ``maison`` + U+200F and ``maison`` were two words for the aligners'
  readers (bitexts, training and validation sentences, the files an external aligner and
  eflomal's priors are computed from), for the tagger's features and for ``topics``'
  tokenizer (``mai`` + U+00AD + ``son`` was two tokens, ``mai`` and ``son``). They are now
  removed before a word is looked up or counted (``structpred.io.word_form``); the tokens
  stay as many (a token of such characters only is refused; a variation selector alone,
  or the word form of a CoNLL-U or GermEval line made of such characters, was a word), ``tag predict`` writes
  the tokens as given, and the zero-width joiner and non-joiner are kept (they are
  spelling: ``topics`` split the Persian ``می‌خواهم`` in two at its non-joiner);
- the external aligners' reader (``alignment.aligners.runs._as_lines``, for eflomal and
  fast_align runs and the priors) and ``topics.load_jsonl`` read lines with no cap (a file
  without line ends was read whole); they now read through ``structpred.read_lines`` with
  the caps of the other readers (1 MiB, and 16 MiB for ``topics``' documents), and a line
  of ``load_jsonl`` that is not JSON names its file and line (it was json's "Expecting
  value: line 1 column 1 (char 0)");
- a ``topics`` stop word (``--stop-words FILE``, ``Tokenizer(stop_words=...)``) written in
  NFD, or with a format character or a variation selector, stopped nothing: the tokens were
  normalised (NFKC, the marks removed) and the stop words were only lower-cased;
- a genuine GB18030 (Big5, EUC-KR) file of a word or two whose bytes are valid UTF-8 by
  chance was refused as UTF-8 text (``--encoding gb18030`` on ``同``, whose two bytes are a
  combining mark alone in UTF-8); a UTF-8 reading made mostly of words that no text holds
  (a control character, an unassigned code point, a leading combining mark) is now taken
  for text of the encoding. A word or two whose UTF-8 reading is made of letters (``去``,
  ``ȥ`` in UTF-8) is still refused, with the advice to convert the file: it cannot be told
  from UTF-8.

Already handled (recorded as regression tests): text of Chinese, Japanese and Korean in
GB18030, Shift JIS, EUC-KR and Big5 read as written; UTF-8 text of those languages given
with ``--encoding`` of any of them refused in one line; an ideographic, no-break, thin or
other Unicode space between words refused by ``align``'s and ``tag``'s readers with file,
line and column, and a word boundary for ``topics``; tabs between Pharaoh links read as
separators, and a tab inside a link refused as a malformed link. Tried, not kept as tests:
lone surrogates cannot come from a file (every reader decodes strictly), and a file name
of undecodable bytes is named as ``\xff`` in the one-line refusal.
"""

import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from structpred.io import read_lines, word_form, word_text

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: the invisible format characters removed from words, by class
BIDI = ["\u200e", "\u200f", "\u061c", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
        "\u2066", "\u2067", "\u2068", "\u2069"]
OTHER_MARKS = ["\u200b", "\u2060", "\ufeff", "\xad"]
SELECTORS = ["\ufe0f", "\ufe0e", "\ufe00", "\U000e0100", "\U000e01ef"]
MARKS = BIDI + OTHER_MARKS + SELECTORS
JOINERS = ["\u200c", "\u200d"]


def _visible(c):
    return not ("\ufe00" <= c <= "\ufe0f" or "\U000e0100" <= c <= "\U000e01ef")


#: a word of any characters but white space, controls, format characters and variation
#: selectors
WORD = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Zs", "Zl", "Zp"))
               .filter(_visible), min_size=1, max_size=8)


def _insert(word, marks, where):
    """``word`` with each of ``marks`` inserted at a position drawn from ``where``."""
    for mark, at in zip(marks, where):
        k = at % (len(word) + 1)
        word = word[:k] + mark + word[k:]
    return word


def _w(path, text, encoding="utf-8"):
    Path(path).write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


# ----------------------------------------------- class: format characters stuck to words
@SETTINGS
@given(word=WORD, marks=st.lists(st.sampled_from(MARKS), min_size=1, max_size=4),
       where=st.lists(st.integers(0, 20), min_size=4, max_size=4))
def test_a_word_with_format_characters_anywhere_is_the_word(word, marks, where):
    marked = _insert(word, marks, where)
    assert word_form(marked) == word_form(word)
    assert not any(m in word_form(marked) for m in MARKS)


@SETTINGS
@given(words=st.lists(WORD, min_size=1, max_size=6),
       marks=st.lists(st.sampled_from(MARKS), min_size=1, max_size=6),
       where=st.lists(st.integers(0, 50), min_size=6, max_size=6))
def test_a_line_keeps_its_tokens_and_loses_the_marks(words, marks, where):
    """Marks inside the tokens of a line: as many tokens, each the token without them
    (positions, Pharaoh links, never shift)."""
    marked = [_insert(w, marks[i::len(words)], where[i:]) for i, w in enumerate(words)]
    tokens = word_text(" ".join(marked)).split()
    assert tokens == [word_form(w) for w in words]


@SETTINGS
@given(word=st.text(st.characters(whitelist_categories=("Ll", "Lo", "Mn")), min_size=2,
                    max_size=8),
       joiners=st.lists(st.sampled_from(JOINERS), min_size=1, max_size=3),
       where=st.lists(st.integers(0, 20), min_size=3, max_size=3))
def test_zero_width_joiners_are_spelling_and_kept(word, joiners, where):
    marked = _insert(word, joiners, where)
    assert sum(word_form(marked).count(j) for j in JOINERS) == len(joiners)


@pytest.mark.parametrize("token", ["\u200f", "\u200b\xad", "\ufe0f", "\U000e0100\u200e"])
def test_a_token_of_invisible_characters_only_is_refused(token):
    """A format character was refused already; a variation selector set off from its emoji
    (``❤ U+FE0F``) was a word of its own, and would now vanish, shifting every later word."""
    with pytest.raises(FormatError, match=re.escape("f.txt:3: a token of invisible characters "
                                                    "only") + ".*" + re.escape("column 8")):
        word_text(f"maison {token} bleue", "f.txt", 3)


def test_a_variation_selector_does_not_make_another_word():
    from topics.tokens import Tokenizer

    assert word_text("❤\ufe0f love\ufe0e 葛\U000e0100城") == "❤ love 葛城"
    assert Tokenizer()("love\ufe0f") == ["love"]       # was 'love' + U+FE0F


def _align_readers(tmp_path, src, tgt):
    """The tokens of the one pair ``src``/``tgt`` as every reader of sentences reads them."""
    from alignment.aligners.runs import _as_lines
    from alignment.data.corpus import iter_bitext, load_bitext, read_tokenized
    from alignment.data.formats import read_fast_align, read_parallel

    s, t = _w(tmp_path / "s.txt", src + "\n"), _w(tmp_path / "t.txt", tgt + "\n")
    fa = _w(tmp_path / "fa.txt", f"{src} ||| {tgt}\n")
    bitext = load_bitext(s, t)
    return {"load_bitext": (bitext.src[0], bitext.tgt[0]),
            "iter_bitext": tuple(next(iter_bitext(s, t))[1:]),
            "read_tokenized": (read_tokenized(s)[0], read_tokenized(t)[0]),
            "read_parallel": tuple(read_parallel(s, t)[0]),
            "read_fast_align": tuple(read_fast_align(fa)[0]),
            "external aligners": (_as_lines(s)[0].split(), _as_lines(t)[0].split())}


def test_every_aligner_reader_reads_a_marked_word_as_the_word(tmp_path):
    plain = _align_readers(tmp_path, "la maison bleue", "the blue house")
    marked = _align_readers(tmp_path, "la\u2069 \u2067maison\u200f bl\xadeue\u200b",
                            "\u202bthe blue\u2060 house\ufeff")
    assert marked == plain
    assert plain["load_bitext"] == (["la", "maison", "bleue"], ["the", "blue", "house"])


def test_the_tagger_sees_a_marked_word_as_the_word():
    from sequence.features import sentence_features

    plain = [("la", "DT"), ("maison", "NN")]
    marked = [("la\u200e", "DT"), ("mai\xadson\u200f", "N\u2060N")]
    assert sentence_features(marked) == sentence_features(plain)
    assert sentence_features([("می\u200cخواهم",)])[0][1] == "W=می\u200cخواهم"


def test_tag_predict_tags_a_marked_word_as_the_word_and_writes_it_as_given(tmp_path,
                                                                           capsys):
    data = "".join(f"le DT B-NP\n{w} NN I-NP\nest VB O\n\n" for w in
                   ["maison", "chat", "chien", "livre"] * 3)
    train = _w(tmp_path / "train.txt", data)
    model = str(tmp_path / "m.npz")
    rc, _, err = run_cli(["tag", "train", "--data", train, "--iterations", "3", "-o", model,
                          "-q"], capsys)
    assert rc == 0, err
    outs = {}
    for how, word in (("plain", "maison"), ("marked", "\u202bmai\xadson\u200f")):
        test = _w(tmp_path / f"{how}.txt", f"le DT\n{word} NN\nest VB\n")
        out = tmp_path / f"{how}.out"
        rc, _, err = run_cli(["tag", "predict", "-m", model, "-i", test, "-o", str(out), "-q"],
                             capsys)
        assert rc == 0, err
        outs[how] = out.read_text(encoding="utf-8").splitlines()
    assert outs["marked"][1] == "\u202bmai\xadson\u200f NN " + outs["plain"][1].split()[-1]
    assert [ln.split()[-1:] for ln in outs["marked"]] == [ln.split()[-1:] for ln in outs["plain"]]


@SETTINGS
@given(word=st.text(st.characters(whitelist_categories=("Ll", "Lu", "Lo")), min_size=2,
                    max_size=8),
       marks=st.lists(st.sampled_from([m for m in MARKS if m != "\u200b"]), min_size=1,
                      max_size=3),
       where=st.lists(st.integers(0, 20), min_size=3, max_size=3))
def test_topics_tokens_of_a_marked_word_are_the_words(word, marks, where):
    from topics.tokens import Tokenizer

    tok = Tokenizer(stop_words=None)
    assert tok(_insert(word, marks, where)) == tok(word)


@pytest.mark.parametrize("text,tokens", [
    ("mai\xadson", ["maison"]),                    # was 'mai', 'son'
    ("\u2067maison\u2069 bleue\u200f", ["maison", "bleue"]),
    ("می\u200cخواهم", ["می\u200cخواهم"]),          # was 'می', 'خواهم'
    ("क्\u200dष", ["क्\u200dष"]),                  # was 'क्' alone
    ("ภาษา\u200bไทย", ["ภาษา", "ไทย"]),            # U+200B separates words (UAX #29)
    ("\u200cab\u200d x", ["ab"]),                  # a joiner is not a word's end
])
def test_topics_tokenizer_on_format_characters(text, tokens):
    from topics.tokens import Tokenizer

    assert Tokenizer(stop_words=None)(text) == tokens


@pytest.mark.parametrize("stop", ["e\u0301te\u0301", "\u200fété", "ÉTÉ", "été\ufe0f"])
def test_a_stop_word_stops_its_token_however_it_is_spelt(stop):
    """A stop word in NFD, with a direction mark or a variation selector stopped nothing:
    the tokens are normalised, the stop list was not."""
    from topics.tokens import Tokenizer

    assert Tokenizer(stop_words=[stop])("été rouge") == ["rouge"]


# ------------------------------------------------- class: readers without a line cap
def test_the_external_aligners_reader_caps_a_line(tmp_path, monkeypatch):
    import structpred.io._files as files
    from alignment.aligners.runs import _as_lines

    monkeypatch.setattr(files, "MAX_LINE_BYTES", 100)
    path = _w(tmp_path / "s.txt", "a b\n" + "w " * 60 + "\nc\n")
    with pytest.raises(FormatError, match=re.escape("s.txt:2: a line longer than 100 bytes")):
        _as_lines(path)
    assert _as_lines(_w(tmp_path / "ok.txt", "a  b\t c\n\u200fd\n")) == ["a b c", "d"]


@pytest.mark.parametrize("gz", [False, True])
def test_load_jsonl_caps_a_line_and_names_a_bad_one(tmp_path, monkeypatch, gz):
    import topics._text_io as text_io
    from topics.corpus import load_jsonl

    def write(name, text):
        raw = text.encode("utf-8")
        return _w(tmp_path / (name + (".jsonl.gz" if gz else ".jsonl")),
                  gzip.compress(raw) if gz else raw)

    good = write("good", '{"text": "a"}\n\n{"text": "b"}\n')
    assert load_jsonl(good) == [{"text": "a"}, {"text": "b"}]
    monkeypatch.setattr(text_io, "MAX_DOCUMENT_BYTES", 50)
    long = write("long", '{"text": "a"}\n' + json.dumps({"text": "w " * 40}) + "\n")
    with pytest.raises(FormatError, match=re.escape(":2: a line longer than 50 bytes")):
        load_jsonl(long)
    bad = write("bad", '{"text": "a"}\n{"text": \n')
    with pytest.raises(FormatError, match=re.escape(":2: not a JSON value")):
        load_jsonl(bad)


# ------------------------------------------- class: text of multi-byte encodings
#: letters of each language, in the encoding that writes them
LETTERS = {
    "gb18030": "我们今天去北京这是一个简单的句子中国人民学习工作时间问题发展经济同之知太",
    "big5": "我們今天去台北這是一個句子臺灣學習中文朋友電腦喜歡吃飯時間問題發展",
    "shift_jis": "私はとうきょうにすんでいますこれペンですカタカナ日本語学校東京大阪",
    "euc-kr": "나는서울에산다이것은펜이다안녕하세요한국어공부합니다학교사랑",
}
LOOKS_UTF8 = "this file looks like UTF-8 text, not "


def _cjk_lines(enc):
    word = st.text(st.sampled_from(LETTERS[enc]), min_size=1, max_size=5)
    return st.lists(st.lists(word, min_size=1, max_size=4).map(" ".join), min_size=1,
                    max_size=4)


@SETTINGS
@given(data=st.data(), enc=st.sampled_from(sorted(LETTERS)))
def test_text_of_a_multi_byte_encoding_is_read_as_written(tmp_path_factory, data, enc):
    """Read as written, or (bytes valid UTF-8 by chance, letters in UTF-8 too: a word or
    two) refused with the advice to convert it: never read as other text."""
    from structpred.io._encoding import unlikely_utf8

    lines = data.draw(_cjk_lines(enc))
    raw = ("\n".join(lines) + "\n").encode(enc)
    path = _w(tmp_path_factory.mktemp("enc") / "f.txt", raw)
    try:
        got = [t for _, t in read_lines(path, enc)]
    except FormatError as exc:
        assert LOOKS_UTF8 in str(exc) and f"iconv -f {enc}".replace("-kr", "_kr") in str(exc)
        assert not unlikely_utf8(raw.decode("utf-8"))
    else:
        assert got == lines


@pytest.mark.parametrize("enc,text", [("gb18030", "同"), ("gb18030", "之一"),
                                      ("gb18030", "le 太 x\nplain\n"), ("gb18030", "通 知")])
def test_a_word_of_a_multi_byte_encoding_valid_utf8_by_chance_is_read(tmp_path, enc, text):
    """Its UTF-8 reading is no text (a combining mark alone, a C1 control): it was refused
    as UTF-8 text."""
    raw = text.encode(enc)
    raw.decode("utf-8")                     # valid UTF-8, by chance
    path = _w(tmp_path / "f.txt", raw)
    assert "\n".join(t for _, t in read_lines(path, enc)) == text.rstrip("\n")


@SETTINGS
@given(data=st.data(), enc=st.sampled_from(sorted(LETTERS)),
       given_as=st.sampled_from(["gb18030", "big5", "shift_jis", "euc-kr"]))
def test_utf8_text_of_cjk_given_with_a_multi_byte_encoding_is_refused(tmp_path_factory, data,
                                                                      enc, given_as):
    """UTF-8 text shown to be UTF-8 on its first line (a word of two Chinese characters,
    kana or Hangul or more: one character alone is as often text of the encoding given, and
    is read in it) is refused when another multi-byte encoding is given."""
    lines = data.draw(_cjk_lines(enc))
    pair = data.draw(st.text(st.sampled_from(LETTERS[enc]), min_size=2, max_size=3))
    lines[0] = f"{pair} {lines[0]}"
    path = _w(tmp_path_factory.mktemp("enc") / "f.txt", "\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=re.escape("f.txt:1: ") + "(" + re.escape(LOOKS_UTF8)
                       + "|bad encoding)"):
        list(read_lines(path, given_as))


@pytest.mark.parametrize("enc", ["gb18030", "big5", "shift_jis", "euc-kr"])
def test_the_command_line_reads_real_cjk_text_and_refuses_its_utf8(enc, tmp_path, capsys):
    lines = {"gb18030": "我们 今天 去 北京 。\n这 是 一个 简单 的 句子 。\n",
             "big5": "我們 今天 去 台北 。\n這 是 一個 句子 。\n",
             "shift_jis": "私 は 東京 に 住んで います 。\nこれ は ペン です 。\n",
             "euc-kr": "나는 서울 에 산다 .\n이것 은 펜 이다 .\n"}[enc]
    links = _w(tmp_path / "links.txt", "0-0 1-1\n0-0\n")
    tgt = _w(tmp_path / "tgt.txt", "we today go there .\nthis is a short sentence .\n")
    for name, encoding in (("src.txt", enc), ("utf8.txt", "utf-8")):
        src = _w(tmp_path / name, lines, encoding)
        rc, out, err = run_cli(["aer", "--test", links, "--gold", links, "--src", src,
                                "--tgt", tgt, "--encoding", enc], capsys)
        if encoding == enc:
            assert rc == 0, err
        else:
            assert one_line_error(rc, err, "utf8.txt:1:", "UTF-8"), err


# ------------------------------------------ class: other spaces between words, tabs in links
#: white space of category Zs other than the ASCII space (the ideographic, no-break, thin,
#: en and em spaces, the narrow no-break space)
OTHER_SPACES = ["\u3000", "\xa0", "\u2009", "\u2002", "\u2003", "\u202f", "\u205f", "\u1680"]


@pytest.mark.parametrize("space", OTHER_SPACES)
def test_other_spaces_between_words_are_refused_by_align_and_tag_and_split_by_topics(
        space, tmp_path, capsys):
    from topics.tokens import Tokenizer

    src = _w(tmp_path / "s.txt", f"la{space}maison bleue\n")
    tgt = _w(tmp_path / "t.txt", "the blue house\n")
    links = _w(tmp_path / "l.txt", "0-0 1-2\n")
    rc, _, err = run_cli(["aer", "--test", links, "--gold", links, "--src", src, "--tgt", tgt],
                         capsys)
    assert one_line_error(rc, err, "s.txt:1:", f"U+{ord(space):04X}", "column 3"), err
    data = _w(tmp_path / "d.txt", f"le DT B-NP\nmai{space}son NN I-NP\n\n")
    rc, _, err = run_cli(["tag", "train", "--data", data, "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "d.txt:2:", f"U+{ord(space):04X}"), err
    assert Tokenizer(stop_words=None)(f"maison{space}bleue") == ["maison", "bleue"]


@pytest.mark.parametrize("test,ok", [("0-0\t1-1\n", True), ("0-0 \t 1-1\t\n", True),
                                     ("0-0 1\t-1\n", False), ("0\t-0 1-1\n", False)])
def test_tabs_between_pharaoh_links_separate_them_and_inside_one_are_refused(test, ok,
                                                                            tmp_path, capsys):
    gold = _w(tmp_path / "g.txt", "0-0 1-1\n")
    rc, out, err = run_cli(["aer", "--test", _w(tmp_path / "p.txt", test), "--gold", gold],
                           capsys)
    if ok:
        assert rc == 0 and "AER 0.00%" in out, err
    else:
        assert one_line_error(rc, err, "p.txt:1:", "malformed link"), err


@pytest.mark.parametrize("form", ["\u200f", "\ufe0f", "\xad\u2060"])
@pytest.mark.parametrize("fmt", ["CoNLL-U", "GermEval"])
def test_a_tabbed_word_form_of_invisible_characters_only_is_refused(form, fmt, tmp_path,
                                                                    capsys):
    """Refused in column files already; in CoNLL-U and GermEval files it was a word (and
    would now be an empty one)."""
    if fmt == "CoNLL-U":
        rows = [["1", "Le", "le", "DET"], ["2", form, "_", "PUNCT"], ["3", "chat", "chat", "NOUN"]]
        lines = ["\t".join(r + ["_"] * 6) for r in rows]
    else:
        lines = ["1\tLe\tO\tO", f"2\t{form}\tO\tO", "3\tParis\tB-LOC\tO"]
    data = _w(tmp_path / "d.txt", "\n".join(lines * 2).replace("\n1\t", "\n\n1\t") + "\n")
    rc, _, err = run_cli(["tag", "train", "--data", data, "-o", str(tmp_path / "m.npz"), "-q"],
                         capsys)
    assert one_line_error(rc, err, "d.txt:2:", "a token of invisible characters only"), err
