"""Word alignment data for a language pair nobody tuned on (branch align-pairs): scripts
without spaces, right-to-left marks, Unicode normal forms, and gold files from other tools
(GIZA++ A3.final, labelled links, NULL links, NAACL numbered from 0).  Each test fails on
the code before the branch."""

from __future__ import annotations

import unicodedata

from cli_helpers import one_line_error, run_cli


def _files(tmp_path, **texts):
    paths = {}
    for name, text in texts.items():
        path = tmp_path / name.replace("_", ".")
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    return paths


def _aer(paths, capsys, *extra):
    return run_cli(["aer", "--gold", paths["gold"], "--test", paths["test"], *extra], capsys)


def test_unsegmented_chinese_is_named_as_such(tmp_path, capsys):
    """Chinese (or Thai) text without spaces is one 'word' a sentence: the refusal said only
    'the source sentence has 1 words'."""
    p = _files(tmp_path, zh_src="我爱北京\n今天很好\n", en_tgt="I love Beijing\ntoday is good\n",
               gold="0-0 1-1 2-2\n0-0 1-1 2-2\n", test="0-0\n0-0\n")
    rc, out, err = _aer(p, capsys, "--src", p["zh_src"], "--tgt", p["en_tgt"])
    assert one_line_error(rc, err, f"{p['gold']}:1:", "one 'word' of 4 characters",
                          "split Chinese, Japanese or Thai text into words")
    th = _files(tmp_path, th_src="ฉันรักคุณ\nสวัสดี\n", gold="0-0 1-1\n0-0\n", test="0-0\n0-0\n")
    rc, out, err = run_cli(["aer", "--gold", th["gold"], "--test", th["test"], "--src",
                            th["th_src"], "--tgt", p["en_tgt"]], capsys)
    assert one_line_error(rc, err, "one 'word' of 9 characters")


def test_a_token_of_a_right_to_left_mark_alone_is_refused(tmp_path, capsys):
    """A right-to-left mark set off by a space counted as a word, shifting every link of the
    line (scored silently); a mark inside a word is text, as before."""
    p = _files(tmp_path, ar_src="\u200f كتاب جديد\nبيت كبير\n", en_tgt="new book\nbig house\n",
               gold="0-1 1-0\n0-1 1-0\n", test="0-1 1-0\n0-1 1-0\n")
    rc, out, err = _aer(p, capsys, "--src", p["ar_src"], "--tgt", p["en_tgt"])
    assert one_line_error(rc, err, f"{p['ar_src']}:1:", "right-to-left mark, U+200F",
                          "column 1", "would count as a word")
    (tmp_path / "ar.src").write_text("\u200fكتاب جديد\nبيت كبير\n", encoding="utf-8")
    rc, out, err = _aer(p, capsys, "--src", p["ar_src"], "--tgt", p["en_tgt"])
    assert rc == 0 and "AER 0.00%" in out


def test_nfd_and_nfc_spellings_are_one_word():
    """A word spelt with a combining accent (NFD) in one file and precomposed (NFC) in
    another were two words: the bitext's statistics did not reach the gold sentences."""
    from alignment.data.corpus import load_bitext
    from alignment.data.formats import read_parallel

    import pathlib
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        a, b = pathlib.Path(d, "a.fr"), pathlib.Path(d, "a.en")
        a.write_text(unicodedata.normalize("NFD", "café résumé\n"), encoding="utf-8")
        b.write_text("coffee summary\n", encoding="utf-8")
        (src, _tgt), = read_parallel(a, b)
        bt = load_bitext(a, b)
    nfc = unicodedata.normalize("NFC", "café")
    assert src[0] == nfc and bt.src[0][0] == nfc


def test_giza_a3_final_is_named(tmp_path, capsys):
    """A GIZA++ A3.final file given as gold (or predictions) was 'malformed link #'."""
    a3 = ("# Sentence pair (1) source length 2 target length 2 alignment score : 0.01\n"
          "new book\nNULL ({ }) كتاب ({ 2 }) جديد ({ 1 })\n")
    p = _files(tmp_path, gold=a3, test="0-1 1-0\n")
    for argv in (["aer", "--gold", p["gold"], "--test", p["test"]],
                 ["aer", "--gold", p["gold"], "--test", p["test"], "--gold-format", "naacl"]):
        rc, out, err = run_cli(argv, capsys)
        assert one_line_error(rc, err, f"{p['gold']}:1:", "GIZA++", "A3.final")
    q = _files(tmp_path, gold="0-1 1-0\n", test=a3)
    rc, out, err = _aer(q, capsys)
    assert one_line_error(rc, err, f"{q['test']}:1:", "GIZA++")


def test_labelled_and_null_links_are_named(tmp_path, capsys):
    """'i-j-P' (possible links spelt with a label) and '-1-j' (a link to NULL) were only
    'malformed link'."""
    p = _files(tmp_path, gold="0-1 1-0-P\n", test="0-1\n")
    rc, out, err = _aer(p, capsys)
    assert one_line_error(rc, err, f"{p['gold']}:1:", "'1-0-P'", "possible links 'i?j'")
    p = _files(tmp_path, gold="0-1 -1-0\n", test="0-1\n")
    rc, out, err = _aer(p, capsys)
    assert one_line_error(rc, err, f"{p['gold']}:1:", "'-1-0'", "NULL")


def test_naacl_numbered_from_zero_is_named(tmp_path, capsys):
    """NAACL sentences numbered from 0 were 'sentence number 0 out of range'."""
    p = _files(tmp_path, gold_naacl="0 1 2 S\n0 2 1 S\n1 1 2 S\n", test="0-1 1-0\n0-1\n")
    rc, out, err = run_cli(["aer", "--gold", p["gold_naacl"], "--test", p["test"]], capsys)
    assert one_line_error(rc, err, f"{p['gold_naacl']}:1:", "numbered from 1")
