"""Data formats: round trips (hypothesis) and every error, located by file and line."""

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.data.formats import (Alignment, FormatError, read_fast_align, read_naacl,
                                    read_parallel, read_pharaoh, write_fast_align, write_naacl,
                                    write_parallel, write_pharaoh)
from structpred.io import input_encoding, word_form


def _write(path, text, gz=False):
    data = text.encode("utf-8") if isinstance(text, str) else text
    if gz:
        with gzip.open(path, "wb") as fh:
            fh.write(data)
    else:
        path.write_bytes(data)
    return path


#: a word holds a visible character (variation selectors, marks the readers remove from a
#: word as they remove format characters, alone would be a token of invisible characters)
words = st.text(alphabet=st.characters(blacklist_categories=("Z", "C"), blacklist_characters="|"),
                min_size=1, max_size=6).filter(word_form)
sentences = st.lists(words, min_size=1, max_size=6)


@st.composite
def corpus_with_alignments(draw):
    pairs = draw(st.lists(st.tuples(sentences, sentences), min_size=1, max_size=5))
    aligns = []
    for src, tgt in pairs:
        links = st.tuples(st.integers(0, len(src) - 1), st.integers(0, len(tgt) - 1))
        sure = draw(st.frozensets(links, max_size=6))
        extra = draw(st.frozensets(links, max_size=6))
        aligns.append(Alignment(sure, sure | extra))
    return pairs, aligns


@settings(max_examples=40, deadline=None)
@given(corpus_with_alignments())
def test_round_trips(tmp_path_factory, data):
    pairs, aligns = data
    d = tmp_path_factory.mktemp("rt")
    _write(d / "s", "".join(" ".join(s) + "\n" for s, _ in pairs))
    _write(d / "t", "".join(" ".join(t) + "\n" for _, t in pairs), gz=True)
    # the readers give words in NFC (a compatibility ideograph such as U+F9xx is its unified
    # one) without variation selectors (structpred.io.word_form)
    pairs = [tuple([word_form(w) for w in side] for side in p) for p in pairs]
    # the files are UTF-8, said so (--encoding utf-8): a short file of random words such as
    # 'á𪷡' reads like Chinese in GB18030 misread, which the readers refuse when not told
    with input_encoding("utf-8"):
        assert read_parallel(d / "s", d / "t") == pairs
        write_fast_align(pairs, d / "fa")
        assert read_fast_align(d / "fa") == pairs
        write_parallel(pairs, d / "s2", d / "t2.gz")
        assert read_parallel(d / "s2", d / "t2.gz") == pairs
        write_pharaoh(aligns, d / "a.pharaoh")
        assert read_pharaoh(d / "a.pharaoh", pairs) == aligns
        write_naacl(aligns, d / "a.naacl")
        assert read_naacl(d / "a.naacl", pairs) == aligns


def test_alignment_possible_contains_sure():
    a = Alignment({(0, 1)}, {(1, 1)})
    assert a.possible == {(0, 1), (1, 1)}


def test_naacl_original_format_null_and_confidence(tmp_path):
    pairs = [(["a", "b"], ["x", "y", "z"])] * 2
    p = _write(tmp_path / "g.naacl", "1 1 1 S\n1 0 2 S\n1 2 0 P\n1 2 3 P 0.7\n2 2 2\n\n")
    g = read_naacl(p, pairs)
    assert g[0] == Alignment({(0, 0)}, {(1, 2)})
    assert g[1] == Alignment({(1, 1)}, set())


def test_naacl_without_pairs_uses_max_sentence(tmp_path):
    p = _write(tmp_path / "g.naacl", "3 1 1 S\n")
    g = read_naacl(p)
    assert len(g) == 3 and g[0] == Alignment() and g[2].sure == {(0, 0)}


def test_bundled_hansards_gold():
    pairs = read_parallel("data/hansards/test.en.gz", "data/hansards/test.fr.gz")
    gold = read_naacl("data/hansards/test.naacl.gz", pairs)
    assert len(pairs) == 447
    assert sum(len(a.sure) for a in gold) == 4038          # data README figures
    assert sum(len(a.possible) for a in gold) == 17438


def _err(exc_info, path, line):
    e = exc_info.value
    assert e.path == str(path) and e.line == line, str(e)
    assert str(e).startswith(f"{path}:{line}:")


@pytest.mark.parametrize("src,tgt,bad_file,line", [
    ("a b\nc\n", "x\ny\nz\n", "t", 3),     # target longer
    ("a b\nc\nd\n", "x\ny\n", "s", 3),     # source longer
])
def test_parallel_line_count_mismatch(tmp_path, src, tgt, bad_file, line):
    s, t = _write(tmp_path / "s", src), _write(tmp_path / "t", tgt)
    with pytest.raises(FormatError, match="line counts differ") as ei:
        read_parallel(s, t)
    _err(ei, tmp_path / bad_file, line)


def test_parallel_empty_sentence(tmp_path):
    s, t = _write(tmp_path / "s", "a\n  \n"), _write(tmp_path / "t", "x\ny\n")
    with pytest.raises(FormatError, match="empty sentence") as ei:
        read_parallel(s, t)
    _err(ei, s, 2)


def test_bad_encoding(tmp_path):
    s, t = _write(tmp_path / "s", b"a\n\xe9t\xe9\n"), _write(tmp_path / "t", "x\ny\n")
    with pytest.raises(FormatError, match="not valid UTF-8") as ei:
        read_parallel(s, t)
    _err(ei, s, 2)


def test_truncated_gzip(tmp_path):
    p = tmp_path / "s.gz"
    _write(p, "a b c\n" * 1000, gz=True)
    p.write_bytes(p.read_bytes()[:-30])
    with pytest.raises(FormatError, match="gzip"):
        read_parallel(p, p)


@pytest.mark.parametrize("text,line,msg", [
    ("a b ||| x\nno separator\n", 2, "expected 'source \\|\\|\\| target'"),
    ("a ||| x\n ||| x\n", 2, "empty source sentence"),
    ("a ||| x\nb |||  \n", 2, "empty target sentence"),
])
def test_fast_align_errors(tmp_path, text, line, msg):
    p = _write(tmp_path / "fa", text)
    with pytest.raises(FormatError, match=msg) as ei:
        read_fast_align(p)
    _err(ei, p, line)


PAIRS = [(["a", "b"], ["x", "y", "z"]), (["c"], ["w"])]


@pytest.mark.parametrize("text,line,msg", [
    ("0-0 1-2\n0-x\n", 2, "malformed link"),
    ("0-0 1:2\n0-0\n", 1, "malformed link"),
    ("0-0 2-1\n0-0\n", 1, "source position 2 out of range"),
    ("0-3\n0-0\n", 1, "target position 3 out of range"),
    ("0-0\n0?1\n", 2, "target position 1 out of range"),
    ("0-0\n0-0\n0-0\n", 3, "more alignment lines"),
    ("0-0\n", 2, "only 1 alignment lines"),
    ("-1-0\n0-0\n", 1, "malformed link"),
])
def test_pharaoh_errors(tmp_path, text, line, msg):
    p = _write(tmp_path / "a.pharaoh", text)
    with pytest.raises(FormatError, match=msg) as ei:
        read_pharaoh(p, PAIRS)
    _err(ei, p, line)


@pytest.mark.parametrize("text,line,msg", [
    ("1 1 1 S\n1 1\n", 2, "expected 'sent src tgt"),
    ("1 a 1 S\n", 1, "must be integers"),
    ("1 1 1 X\n", 1, "label must be S or P"),
    ("1 1 1 S zz\n", 1, "confidence must be a number"),
    ("1 1 1 S\n3 1 1 S\n", 2, "sentence number 3 out of range"),
    ("0 1 1 S\n", 1, "sentence number 0 out of range"),
    ("1 3 1 S\n", 1, "source position 3 out of range"),
    ("2 1 2 P\n", 1, "target position 2 out of range"),
    ("1 -1 2 P\n", 1, "negative position"),
])
def test_naacl_errors(tmp_path, text, line, msg):
    p = _write(tmp_path / "g.naacl", text)
    with pytest.raises(FormatError, match=msg) as ei:
        read_naacl(p, PAIRS)
    _err(ei, p, line)


def test_atomic_write_leaves_no_partial_file(tmp_path):
    out = tmp_path / "out.pharaoh"
    out.write_text("old\n")

    def bad():
        yield Alignment.from_links({(0, 0)})
        raise RuntimeError("crash while writing")

    with pytest.raises(RuntimeError):
        write_pharaoh(bad(), out)
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.pharaoh"]


def test_atomic_write_creates_missing_folders(tmp_path):
    from structpred import atomic_write

    out = tmp_path / "runs" / "new" / "figure.txt"
    with atomic_write(out) as fh:
        fh.write("x\n")
    assert out.read_text() == "x\n"
    assert [p.name for p in out.parent.iterdir()] == ["figure.txt"]
