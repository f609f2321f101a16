"""Corpora of other languages and tasks given to the tagger: GermEval 2014 files are read as
words and outer named entities, CoNLL-2003's feature columns after the POS tag are used,
untyped BIO tags are scored as chunks, labels that mix chunk tags with others and
Latin-1 files (CoNLL-2002) are refused naming file and line."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from sequence.data import read_conll
from sequence.evaluate import chunks, evaluate, is_iob
from sequence.features import sentence_features
from sequence.model import SequenceTagger
from structpred import FormatError

GERMEVAL = ("#\thttp://de.wikipedia.org/wiki/Beispiel [2010-08-21]\n"
            "1\tGestern\tO\tO\n"
            "2\tbesuchte\tO\tO\n"
            "3\tLotte\tB-PER\tO\n"
            "4\tden\tO\tO\n"
            "5\tKölner\tB-LOCderiv\tB-LOC\n"
            "6\tDom\tI-LOCderiv\tO\n"
            "\n"
            "#\thttp://de.wikipedia.org/wiki/Zweites [2010-08-22]\n"
            "1\tJa\tO\tO\n"
            "\n")


@pytest.mark.parametrize("comments", [True, False])
def test_germeval_is_read_as_words_and_outer_entities(tmp_path, comments):
    text = GERMEVAL if comments else "".join(
        line for line in GERMEVAL.splitlines(True) if not line.startswith("#"))
    path = tmp_path / "germeval.tsv"
    path.write_text(text, encoding="utf-8")
    X, y = read_conll(path)
    # before: the index was the word, the token a POS tag, the outer NE a feature and the
    # inner NE the label (or "expected 3 columns, found 4" after the comment line)
    assert X == [[("Gestern",), ("besuchte",), ("Lotte",), ("den",), ("Kölner",), ("Dom",)],
                 [("Ja",)]]
    assert y == [["O", "O", "B-PER", "O", "B-LOCderiv", "I-LOCderiv"], ["O"]]


def test_germeval_with_a_wrong_index_is_refused_with_its_line(tmp_path):
    path = tmp_path / "germeval.tsv"
    path.write_text(GERMEVAL.replace("4\tden", "7\tden"), encoding="utf-8")
    with pytest.raises(FormatError, match=r"germeval.tsv:5: expected a GermEval 2014 word "
                                          r"line .* the ID '7'"):
        read_conll(path)


def test_the_columns_after_the_pos_tag_are_features():
    # CoNLL-2003: word POS chunk NER; the chunk column was read and never used
    f = sentence_features([("Lotte", "NNP", "I-NP"), ("schläft", "VBZ", "I-VP")], "window")
    assert "c3[0]=I-NP" in f[0] and "c3[0]=I-VP" in f[1]


@given(st.lists(st.sampled_from(["B", "I", "O"]), min_size=1, max_size=12))
@settings(max_examples=30, deadline=None)
def test_untyped_bio_tags_are_chunks_of_one_type(tags):
    # conlleval gives a tag without "-" the type "": B I O B is two chunks
    typed = [t if t == "O" else t + "-X" for t in tags]
    assert {(a, b) for a, b, _ in chunks(tags)} == {(a, b) for a, b, _ in chunks(typed)}
    if set(tags) != {"O"}:
        assert is_iob(set(tags)) and "f1" in evaluate([tags], [tags])


@pytest.mark.parametrize("odd, hint", [("NOUN", "label column"), ("0", "a zero")])
def test_chunk_tags_mixed_with_other_labels_are_refused(tmp_path, capsys, odd, hint):
    path = tmp_path / "mixed.txt"
    sentence = f"Lotte B-PER\nVermeer I-PER\nschläft {odd}\n\n"
    path.write_text(sentence * 12, encoding="utf-8")
    with pytest.raises(FormatError, match=rf"mixed.txt:3: the label '{odd}' is neither O"):
        read_conll(path)
    rc, _, err = run_cli(["tag", "train", "--data", str(path), "--iterations", "1",
                          "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "mixed.txt:3:", repr(odd), hint)   # before: accuracy
    X = [[("Lotte",), ("schläft",)]] * 2
    with pytest.raises(ValueError, match="neither O nor a chunk tag"):
        SequenceTagger(n_iter=1).fit(X, [["B-PER", odd]] * 2)


def test_a_latin1_file_is_refused_with_a_hint(tmp_path, capsys):
    path = tmp_path / "esp.train"
    path.write_bytes("-DOCSTART- O\n\nLa O\nCoruña B-LOC\n\n".encode("latin-1"))
    rc, _, err = run_cli(["tag", "train", "--data", str(path), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "esp.train:4: bad encoding", "Latin-1", "iconv")


def test_a_column_count_error_names_the_line_that_fixed_it(tmp_path):
    path = tmp_path / "commented.txt"
    path.write_text("# a comment line\nLa DET O\nCoruña NOUN B-LOC\n\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"commented.txt:2: expected 4 columns, found 3 "
                                          r"\(line 1 has 4\)"):
        read_conll(path)
