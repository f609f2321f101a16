"""Bitexts and gold alignments as public corpora lay them out (Europarl's raw text, OPUS's
TMX/XCES/Moses downloads, Tatoeba's and ParaCrawl's TSV, HuggingFace's JSON lines, gold
links of ISI, Blinker, awesome-align): ``align unsupervised`` and ``aer`` read them, or
refuse them in one line naming the file and line, never aligning markup as words."""

import gzip
import json
import os
import re
import tempfile
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment.data.corpus import iter_bitext, load_bitext
from alignment.data.formats import read_fast_align, read_parallel, read_pharaoh
from alignment.data.layouts import check_layout_line, check_tab_pairs
from structpred.io import FormatError

from cli_helpers import one_line_error, run_cli

FAST = ["--hmm-iterations", "1", "--with", "none", "-q"]


def _put(folder, name, text):
    p = folder / name
    if name.endswith(".gz"):
        p.write_bytes(gzip.compress(text.encode("utf-8")))
    else:
        p.write_text(text, encoding="utf-8")
    return str(p)


def _unsup(tmp_path, capsys, src, tgt=None):
    args = ["align", "unsupervised"] + (["--src", src, "--tgt", tgt] if tgt else ["-i", src])
    return run_cli(args + FAST + ["-o", str(tmp_path / "links")], capsys)


# ------------------------------------------------------------------ Europarl's markup
def test_europarl_markup_line_is_refused_at_its_line(tmp_path, capsys):
    en = _put(tmp_path, "europarl-v7.fr-en.en", '<CHAPTER ID="1">\nResumption of the session\n'
              '<SPEAKER ID="2" NAME="President">\nI declare resumed the session .\n')
    fr = _put(tmp_path, "europarl-v7.fr-en.fr", "Reprise de la session\n"
              "Je déclare reprise la session .\nMerci .\nMerci bien .\n")
    rc, _, err = _unsup(tmp_path, capsys, fr, en)
    assert one_line_error(rc, err, "europarl-v7.fr-en.en:1:", "markup line", "<CHAPTER")
    assert not (tmp_path / "links").exists() or not (tmp_path / "links").read_text()


_NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda n: n.lower() not in ("unk", "s", "pad", "eos", "bos", "mask", "null", "cls",
                                "sep", "num"))
_ATTRS = st.lists(st.tuples(st.from_regex(r"[A-Za-z]{1,6}", fullmatch=True),
                            st.from_regex(r"[A-Za-z0-9 .]{0,10}", fullmatch=True)), max_size=3)


@given(name=_NAME, attrs=_ATTRS, close=st.booleans(), lineno=st.integers(1, 50))
@settings(max_examples=60, deadline=None)
def test_any_line_of_one_tag_is_refused(name, attrs, close, lineno):
    """``<P>``, ``</CHAPTER>``, ``<SPEAKER ID="2" NAME="x y">``: markup, not words."""
    tag = "<" + ("/" if close else "") + name + "".join(f' {a}="{v}"' for a, v in attrs) + ">"
    with pytest.raises(FormatError, match=re.escape(f"f.txt:{lineno}:") + ".*markup"):
        check_layout_line(tag, "f.txt", lineno)


@given(words=st.lists(st.from_regex(r"[a-z<>/{}\"]{1,6}", fullmatch=True), min_size=1,
                      max_size=8))
@settings(max_examples=200, deadline=None)
def test_sentences_and_special_tokens_are_words(words):
    """A sentence that does not start with a tag and end with a closing one, a special token
    (``<unk>``, ``<s> ... </s>``) and a '<' or '{' set off as a token are read as words."""
    for line in (" ".join(words), "<unk> " + " ".join(words), "<s> " + " ".join(words) + " </s>",
                 "< 5 > { x }"):
        stripped = line.strip()
        if (stripped.startswith("<") and not stripped.startswith(("<unk>", "<s>", "< "))) \
                or stripped.startswith("{"):
            continue   # may be markup or JSON by construction
        check_layout_line(line, "f.txt", 1)


def test_markup_in_a_training_bitext_is_refused(tmp_path):
    """``--bitext-src/--bitext-tgt`` (:func:`load_bitext`) and the streamed reader."""
    en = _put(tmp_path, "b.en.gz", "the house\n<P>\nthe cat\n")
    fr = _put(tmp_path, "b.fr.gz", "la maison\nle lion\nle chat\n")
    for read in (lambda: load_bitext(en, fr), lambda: list(iter_bitext(en, fr))):
        with pytest.raises(FormatError, match=re.escape(f"{en}:2:") + ".*markup line '<P>'"):
            read()


# ------------------------------------------------------------------ OPUS
TMX = ('<?xml version="1.0" encoding="utf-8"?>\n<tmx version="1.4">\n<body>\n'
       '<tu><tuv xml:lang="en"><seg>the house</seg></tuv><tuv xml:lang="fr"><seg>la maison'
       '</seg></tuv></tu>\n</body>\n</tmx>\n')
XCES = ('<?xml version="1.0" encoding="utf-8"?>\n<cesAlign version="1.0">\n<linkGrp '
        'targType="s" fromDoc="en/1.xml.gz" toDoc="fr/1.xml.gz">\n<link xtargets="1;1" />\n'
        '</linkGrp>\n</cesAlign>\n')


@pytest.mark.parametrize("text", [TMX, XCES, TMX.split("\n", 1)[1], XCES.split("\n", 1)[1]],
                         ids=["tmx", "xces", "tmx-no-declaration", "xces-no-declaration"])
@pytest.mark.parametrize("how", ["sides", "input"])
def test_opus_xml_is_never_aligned(tmp_path, capsys, text, how):
    a = _put(tmp_path, "en-fr.a.xml", text)
    b = _put(tmp_path, "en-fr.b.xml", text)
    rc, _, err = _unsup(tmp_path, capsys, a, b if how == "sides" else None)
    assert one_line_error(rc, err, "en-fr.a.xml:1:", "XML", "TMX and XCES")


def test_opus_moses_download_gz_is_read(tmp_path, capsys):
    en = _put(tmp_path, "OpenSubtitles.en-fr.en.gz", "the house\nthe cat\n")
    fr = _put(tmp_path, "OpenSubtitles.en-fr.fr.gz", "la maison\nle chat\n")
    rc, _, err = _unsup(tmp_path, capsys, en, fr)
    assert rc == 0, err
    assert len((tmp_path / "links").read_text().splitlines()) == 2


# ------------------------------------------------------------------ TSV and JSON lines
@pytest.mark.parametrize("line, fields", [
    ("the house\tla maison", 2),
    ("Go .\tVa !\tCC-BY 2.0 (France) Attribution: tatoeba.org #2877272 (CM) & #1158250 (W)",
     3)])
def test_tab_separated_bitext_given_to_input_is_named(tmp_path, capsys, line, fields):
    path = _put(tmp_path, "eng-fra.txt", line + "\n")
    rc, _, err = _unsup(tmp_path, capsys, path)
    assert one_line_error(rc, err, "eng-fra.txt:1:", "no '|||'", f"{fields} tab-separated",
                          "Tatoeba")


@given(row=st.fixed_dictionaries({"translation": st.fixed_dictionaries(
    {"en": st.text(min_size=1, max_size=10), "fr": st.text(min_size=1, max_size=10)})}))
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_json_lines_are_refused_as_sentences(tmp_path, row):
    """HuggingFace's ``{"translation": {...}}`` rows, as ``-i`` or as one side."""
    line = json.dumps(row, ensure_ascii=True)
    path = _put(tmp_path, "train.jsonl", line + "\n")
    other = _put(tmp_path, "other.txt", "x\n")
    for read in (lambda: read_fast_align(path), lambda: read_parallel(path, other),
                 lambda: read_parallel(other, path)):
        with pytest.raises(FormatError, match=re.escape(f"{path}:1:") + " a JSON line"):
            read()


# ------------------------------------------------------------------ empty sides
def test_empty_line_on_one_side_is_named_as_an_untranslated_sentence(tmp_path, capsys):
    en = _put(tmp_path, "e.en", "the house\nthe cat\n")
    fr = _put(tmp_path, "e.fr", "la maison\n\n")
    rc, _, err = _unsup(tmp_path, capsys, en, fr)
    assert one_line_error(rc, err, "e.fr:2: empty sentence while line 2 of", "e.en",
                          "without its translation")
    both = _put(tmp_path, "both.en", "the house\n\n")
    with pytest.raises(FormatError, match=r"both\.en:2: empty sentence$"):
        read_parallel(both, fr)


# ------------------------------------------------------------------ gold of other layouts
@pytest.mark.parametrize("fmt, gold, words", [
    ("pharaoh", "0:0 1:1\n0:0\n", ["g.txt:1:", "'i:j'"]),
    ("pharaoh", "S-0-0 P-1-1\n0-0\n", ["g.txt:1:", "'S-0-0'", "a label before the link"]),
    ("pharaoh", '<sentence id="1" status="">\n1 1 1\n</sentence>\n', ["g.txt:1:", "ISI/LDC"]),
    ("naacl", '<sentence id="1" status="">\n1 1 1\n</sentence>\n', ["g.txt:1:", "ISI/LDC"]),
    ("pharaoh", "1 1\n2 2\n", ["g.txt:1:", "Blinker"]),
    ("naacl", "1 1\n2 2\n", ["g.txt:1:", "Blinker"]),
    ("pharaoh", "1\t0-0 1-1\n2\t0-0\n", ["g.txt:1:", "sentence number", "awesome-align"]),
])
def test_gold_of_other_layouts_is_named(tmp_path, capsys, fmt, gold, words):
    g = _put(tmp_path, "g.txt", gold)
    t = _put(tmp_path, "t.txt", "0-0\n0-0\n")
    rc, _, err = run_cli(["aer", "--gold", g, "--test", t, "--gold-format", fmt], capsys)
    assert one_line_error(rc, err, *words)


def test_one_based_pharaoh_with_sentences_is_not_called_other_sentences(tmp_path):
    pairs = [(["a", "b"], ["x", "y"]), (["a", "b"], ["x", "y"]), (["a"], ["x"])]
    g = _put(tmp_path, "g1.txt", "1-1 2-2\n1-1 2-2\n1-1\n")
    with pytest.raises(FormatError, match=re.escape("these look 1-based)") + "$"):
        read_pharaoh(g, pairs)


@pytest.mark.parametrize("text, words", [
    ('[\n  {"translation": {"en": "a", "fr": "b"}}\n]\n', ["x.txt:1:", "a JSON file"]),
    ('[{"translation": {"en": "a", "fr": "b"}}]\n', ["x.txt:1:", "a JSON line"]),
    ('<srcset setid="t" srclang="any">\n<doc docid="1">\n<seg id="1">the house</seg>\n',
     ["x.txt:1:", "XML", "WMT's .sgm"]),
    ('<seg id="1">the house</seg>\n', ["x.txt:1:", "XML", "WMT's .sgm"]),
    ('<s id="1">\n<w id="1.1">the</w>\n', ["x.txt:1:", "XML", "OPUS"]),   # OPUS's xml/
])
def test_json_files_and_wmt_sgm_are_refused_as_a_side(tmp_path, capsys, text, words):
    src = _put(tmp_path, "x.txt", text)
    tgt = _put(tmp_path, "y.txt", "a\nb\nc\n"[:2 * text.count("\n")])
    rc, _, err = _unsup(tmp_path, capsys, src, tgt)
    assert one_line_error(rc, err, *words)


def test_csv_bitext_given_to_input_is_named(tmp_path, capsys):
    path = _put(tmp_path, "pairs.csv", '"the house","la maison"\n')
    rc, _, err = _unsup(tmp_path, capsys, path)
    assert one_line_error(rc, err, "pairs.csv:1:", "no '|||'", "looks like CSV")


@given(n=st.integers(3, 6), perms=st.lists(st.permutations(range(6)), min_size=3, max_size=5))
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_gold_of_square_pairs_the_other_way_round_is_warned_of_with_sentences(tmp_path, capsys,
                                                                              n, perms):
    """Sentence pairs as long on both sides: every link is in range either way round, so the
    range checks of --src/--tgt cannot catch a gold written for the other direction."""
    rows = [[(j, p[j]) for j in range(n) if p[j] < n and p[p[j]] != j] for p in perms]
    # a link 0-0 in every sentence: without one at position 0 on a side, the files read as
    # 1-based, which is refused first (a random draw of permutations found it)
    rows = [[(0, 0)] + (r or [(0, 1)]) for r in rows]
    g = _put(tmp_path, "g.txt", "".join(" ".join(f"{j}-{k}" for j, k in r) + "\n" for r in rows))
    t = _put(tmp_path, "t.txt", "".join(" ".join(f"{k}-{j}" for j, k in r) + "\n" for r in rows))
    words = " ".join("w" * (i + 1) for i in range(n)) + "\n"
    src = _put(tmp_path, "s.fr", words * len(rows))
    tgt = _put(tmp_path, "s.en", words.replace("w", "v") * len(rows))
    rc, _, err = run_cli(["aer", "--gold", g, "--test", t, "--src", src, "--tgt", tgt], capsys)
    assert rc == 0 and "read with its sides exchanged" in err and "other way round" in err, err


def test_markup_in_a_chunk_of_the_cluster_reader_is_refused():
    """The statistics read on a cluster (``alignment.stats.distributed``) read the lines of
    a chunk themselves."""
    from alignment.stats.distributed import _Chunk

    with pytest.raises(FormatError, match=re.escape("a.fr:12:") + ".*markup line '<P>'"):
        _Chunk(["the house", "the cat"], ["la maison", "<P>"], 10, 80, None, 0, "a.en", "a.fr")


_SENT = st.lists(st.lists(st.sampled_from(["the", "maison", "ï", "中文", "."]), min_size=1,
                          max_size=4), min_size=1, max_size=4)


@given(src=_SENT, bom=st.tuples(st.booleans(), st.booleans()),
       crlf=st.tuples(st.booleans(), st.booleans()), last=st.tuples(st.booleans(), st.booleans()),
       sep=st.sampled_from(["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c"]),
       at=st.integers(0, 3))
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_line_ends_of_each_side_never_shift_the_pairs(tmp_path, src, bom, crlf, last, sep, at):
    """A byte-order mark, CRLF line ends and a last line without its line end on one side
    only read as the plain files; a Unicode line break inside a line (which str.splitlines
    would split, shifting every later pair) is refused at its line."""
    tgt = [list(reversed(s)) for s in src]
    files = []
    for i, side in enumerate((src, tgt)):
        end = "\r\n" if crlf[i] else "\n"
        text = end.join(" ".join(s) for s in side) + (end if last[i] else "")
        p = tmp_path / f"side{i}.txt"
        p.write_bytes(("\ufeff" if bom[i] else "").encode() + text.encode("utf-8"))
        files.append(str(p))
    assert read_parallel(*files) == list(zip(src, tgt))
    line = at % len(src)
    broken = [" ".join(s) for s in src]
    broken[line] = (broken[line].replace(" ", sep, 1) if " " in broken[line]
                    else broken[line] + sep + "x")
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(broken) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"bad.txt:{line + 1}:")):
        read_parallel(str(bad), files[1])


# ------------------------------------------------------------------ a TSV bitext as one side
_WORD = st.from_regex(r"[a-zé]{1,8}|[.,!?]", fullmatch=True)
_SENT = st.lists(_WORD, min_size=1, max_size=8).map(" ".join)


@given(pairs=st.lists(st.tuples(_SENT, _SENT), min_size=2, max_size=120),
       third=st.booleans(), side=st.sampled_from(["--src", "--tgt"]))
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_tab_separated_bitext_given_as_one_side_is_refused(tmp_path, capsys, pairs, third,
                                                            side):
    """``source<TAB>target`` lines (Tatoeba's ``<TAB>attribution`` too) given as --src or
    --tgt: refused at the first line, naming -i's layout (the tab was a space between
    words, and the file was aligned with exit status 0)."""
    tsv = _put(tmp_path, "pairs.tsv", "".join(
        f"{s}\t{t}" + ("\tCC-BY 2.0 (France)" if third else "") + "\n" for s, t in pairs))
    other = _put(tmp_path, "other.txt", "".join(f"{t}\n" for _, t in pairs))
    src, tgt = (tsv, other) if side == "--src" else (other, tsv)
    rc, _, err = _unsup(tmp_path, capsys, src, tgt)
    n = min(len(pairs), 100)
    assert one_line_error(rc, err, "pairs.tsv:1:", f"{n} non-empty lines", "tab-separated "
                          "bitext", "cut -f1", "'source ||| target'", "-i")


@given(lines=st.lists(st.tuples(_SENT, _SENT, st.booleans()), min_size=1, max_size=40),
       plain=st.integers(0, 39))
@settings(max_examples=60, deadline=None)
def test_text_with_a_stray_tab_is_one_side(lines, plain):
    """Normal text with tabs in some lines (a tab between words, not in every line) passes;
    so does a file of one line holding a tab."""
    texts = [f"{a}\t{b}" if tab else f"{a} {b}" for a, b, tab in lines]
    if len(texts) > 1:
        texts[plain % len(texts)] = lines[plain % len(lines)][0]   # one line without a tab
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "side.txt")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(t + "\n" for t in texts))
        check_tab_pairs(path)   # no error


# ------------------------------------------------------------------ 1-based gold of 1 or 2 sentences
def _links_of(draw_pairs, data, base):
    """Gold lines of links (``base``-based, none at the base position 0 unless ``base`` is 0
    and drawn so) for the pairs drawn, and whether a link reaches a sentence's last word."""
    lines, at_end = [], False
    for src, tgt in draw_pairs:
        links = data.draw(st.sets(st.tuples(st.integers(0, len(src) - 1),
                                            st.integers(0, len(tgt) - 1)), min_size=1))
        at_end |= any(j == len(src) - 1 or k == len(tgt) - 1 for j, k in links)
        lines.append(" ".join(f"{j + base}-{k + base}" for j, k in sorted(links)))
    return lines, at_end


_PAIRS = st.lists(st.tuples(st.lists(_WORD, min_size=2, max_size=8),
                            st.lists(_WORD, min_size=2, max_size=8)), min_size=1, max_size=2)


@given(pairs=_PAIRS, data=st.data())
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_one_based_gold_of_one_or_two_sentences_is_never_silent(tmp_path, pairs, data):
    """Too few sentences with links for check_index_base's rule (3): a 1-based link one
    past a sentence's last word is refused with the sentences known (impossible 0-based,
    whatever the file's size); without such a link, no link at position 0 gets a warning
    (before: silent). 0-based gold with a link at position 0 gets neither."""
    from alignment.data.formats import check_index_base

    one_based = data.draw(st.booleans())
    if one_based:   # 1-based positions never use 0 (shifted from 0-based ones)
        lines, at_end = _links_of(pairs, data, 1)
    else:
        lines, _ = _links_of(pairs, data, 0)
        lines[0] = "0-0 " + lines[0] if "0-0" not in lines[0].split() else lines[0]
    g = _put(tmp_path, "g.txt", "".join(f"{line}\n" for line in lines))
    if one_based and at_end:
        with pytest.raises(FormatError, match=re.escape("these look 1-based)")):
            read_pharaoh(g, pairs)
        return
    gold = read_pharaoh(g, pairs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_index_base(g, gold, pairs, "pharaoh")
        check_index_base(g, gold, None, "pharaoh")   # the sentences not given
    msgs = [str(w.message) for w in caught]
    links = [tuple(map(int, link.split("-"))) for line in lines for link in line.split()]
    # the evidence: no position 0, and position 1 (a shifted first word) on both sides
    shifted = min(j for j, _ in links) == 1 and min(k for _, k in links) == 1
    if one_based and shifted:
        assert len(msgs) == 2 and all(m.startswith(f"{g}: no link at position 0 in its ")
                                      and "may be 1-based" in m for m in msgs), msgs
    else:
        assert not msgs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_index_base(g, gold, pairs, "pharaoh", gold=False)   # predictions: no warning
    assert not caught


def test_external_links_of_one_sentence_get_no_base_warning(tmp_path):
    """Link files of other aligners are predictions, not gold: no 'may be 1-based'."""
    from alignment.aligners.linkfiles import ExternalAlignments

    path = _put(tmp_path, "fa.txt", "1-1 2-2\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ExternalAlignments.from_files([["a", "b", "c"]], [["x", "y", "z"]], {"fa": path})
    assert not [w for w in caught if "1-based" in str(w.message)]


def test_aer_test_file_of_one_or_two_sentences_gets_no_base_warning(tmp_path, capsys):
    """The 1-based warning concerns gold: predictions of one or two sentences that leave
    the first words unlinked (``aer --test``) were warned of as 'may be 1-based'; and a gold
    link far from the first words ('3-4') is no evidence of 1-based positions."""
    src = _put(tmp_path, "s.txt", "the cat sat on the mat\nsmall dog\n")
    tgt = _put(tmp_path, "t.txt", "le chat est assis sur le tapis\npetit chien\n")
    gold = _put(tmp_path, "g.txt", "0-0 1-1 2-2\n0-0 1-1\n")
    for i, links in enumerate(("1-1 2-2\n1-1\n", "3-4\n1-1\n")):
        test = _put(tmp_path, f"p{i}.txt", links)
        rc, out, err = run_cli(["aer", "--gold", gold, "--test", test, "--src", src,
                                "--tgt", tgt], capsys)
        assert rc == 0 and "(2 sentences)" in out and "1-based" not in err, err
    rc, out, err = run_cli(["aer", "--gold", _put(tmp_path, "g2.txt", "3-4\n"), "--test",
                            _put(tmp_path, "p2.txt", "3-4\n")], capsys)
    assert rc == 0 and "(1 sentence)" in out and "1-based" not in err, err


def test_aer_warns_of_one_based_gold_of_one_sentence(tmp_path, capsys):
    src = _put(tmp_path, "s.txt", "the cat sat on the mat\n")
    tgt = _put(tmp_path, "t.txt", "le chat est assis sur le tapis\n")
    gold = _put(tmp_path, "g.txt", "1-1 2-2 3-3\n")
    test = _put(tmp_path, "p.txt", "0-0 1-1 2-2\n")
    rc, out, err = run_cli(["aer", "--gold", gold, "--test", test, "--src", src, "--tgt", tgt],
                           capsys)
    assert rc == 0 and "(1 sentence)" in out, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("structpred: warning: ")
    assert all(w in lines[0] for w in ("g.txt", "in its 1 sentence with links", "1-based",
                                       "--gold-format naacl"))
    rc, _, err = run_cli(["aer", "--gold", _put(tmp_path, "g2.txt", "1-1 6-7\n"), "--test",
                          test, "--src", src, "--tgt", tgt], capsys)
    assert one_line_error(rc, err, "g2.txt:1:", "these look 1-based")


@pytest.mark.parametrize("command", ["aer", "train-src", "train-bitext"])
def test_every_command_refuses_a_tab_separated_side(tmp_path, capsys, command):
    """The check is made where each command reads a side: aer's --src, align train's --src
    and its --bitext-src."""
    tsv = _put(tmp_path, "pairs.tsv", "the house\tla maison\na dog\tun chien\n")
    other = _put(tmp_path, "other.txt", "la maison\nun chien\n")
    plain = _put(tmp_path, "plain.txt", "the house\na dog\n")
    gold = _put(tmp_path, "g.txt", "0-0\n0-0\n")
    argv = {"aer": ["aer", "--gold", gold, "--test", gold, "--src", tsv, "--tgt", other],
            "train-src": ["align", "train", "--src", tsv, "--tgt", other, "--gold", gold,
                          "--bitext-src", plain, "--bitext-tgt", other, "-q",
                          "-o", str(tmp_path / "m.npz")],
            "train-bitext": ["align", "train", "--src", plain, "--tgt", other, "--gold", gold,
                             "--bitext-src", tsv, "--bitext-tgt", other, "-q",
                             "-o", str(tmp_path / "m.npz")]}[command]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "pairs.tsv:1:", "tab-separated bitext")
