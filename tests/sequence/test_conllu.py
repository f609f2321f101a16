"""Universal Dependencies' CoNLL-U files read by the tagger: the word form is the token and
UPOS (or XPOS) the label; comments, multiword tokens and empty nodes are skipped; the same
sentences in two-column form give the same model."""

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sequence.data import read_conll
from sequence.model import load_tagger
from sequence.evaluate import chunks, evaluate, is_iob
from structpred import FormatError

DATA = Path(__file__).parents[2] / "data" / "sequence"

SAMPLE = """# newdoc id = a
# sent_id = 1
# text = Vámonos al mar.
1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_
1\tVamos\tir\tVERB\tvmip1p0\t_\t0\troot\t_\t_
2\tnos\tnosotros\tPRON\tpp1cp000\t_\t1\tobj\t_\t_
3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_
3\ta\ta\tADP\tsps00\t_\t5\tcase\t_\t_
4\tel\tel\tDET\tda0ms0\t_\t5\tdet\t_\t_
5\tmar\tmar\tNOUN\tncms000\t_\t1\tobl\t_\tSpaceAfter=No
5.1\tfue\tir\tVERB\t_\t_\t_\t_\t1:conj\t_
6\t.\t.\tPUNCT\tfp\t_\t1\tpunct\t_\t_

# sent_id = 2
1\t1 000\t1000\tNUM\tz\t_\t0\troot\t_\t_
2\t#\t#\tSYM\tsym\t_\t1\tdep\t_\t_

"""


def test_conllu_is_read_as_word_forms_and_upos(tmp_path):
    path = tmp_path / "sample.conllu"
    path.write_text(SAMPLE, encoding="utf-8")
    X, y = read_conll(path)
    assert X == [[("Vamos",), ("nos",), ("a",), ("el",), ("mar",), (".",)],
                 [("1_000",), ("#",)]]
    assert y == [["VERB", "PRON", "ADP", "DET", "NOUN", "PUNCT"], ["NUM", "SYM"]]
    assert read_conll(path, conllu_label="xpos")[1][0][0] == "vmip1p0"
    assert read_conll(path, labelled=False) == (X, None)


def test_a_conllu_word_without_the_label_is_refused_with_its_line(tmp_path):
    path = tmp_path / "sample.conllu"
    path.write_text(SAMPLE.replace("\tPRON\t", "\t_\t"), encoding="utf-8")
    with pytest.raises(FormatError, match=r"sample.conllu:6: .*'nos'.* no UPOS label"):
        read_conll(path)
    assert read_conll(path, labelled=False)[0][0][1] == ("nos",)   # predicting needs none


def test_a_broken_conllu_line_is_refused_with_its_line(tmp_path):
    path = tmp_path / "sample.conllu"
    path.write_text(SAMPLE.replace("4\tel\tel\tDET\tda0ms0\t_\t5\tdet\t_\t_",
                                   "4\tel\tel\tDET"), encoding="utf-8")
    with pytest.raises(FormatError, match=r":9: expected a CoNLL-U word line .* found 4"):
        read_conll(path)


def test_a_model_of_feature_columns_refuses_conllu(tmp_path):
    path = tmp_path / "sample.conllu"
    path.write_text(SAMPLE, encoding="utf-8")
    with pytest.raises(FormatError, match="CoNLL-U"):
        read_conll(path, n_columns=3)


def test_pound_sign_tokens_of_conll2000_are_not_taken_for_comments(tmp_path):
    path = tmp_path / "chunks.txt"
    path.write_text("# # B-NP\n1 CD I-NP\n\n")
    assert read_conll(path) == ([[("#", "#"), ("1", "CD")]], [["B-NP", "I-NP"]])


def _as_conllu(src, dst):
    """The two-column ``word TAG`` file ``src`` written as CoNLL-U, the tag as UPOS."""
    with gzip.open(src, "rt", encoding="utf-8") as fh, open(dst, "w", encoding="utf-8") as out:
        i = 0
        out.write("# sent_id = 1\n")
        for line in fh:
            if not line.strip():
                out.write("\n# a comment\n")
                i = 0
                continue
            word, tag = line.split()
            i += 1
            out.write(f"{i}\t{word}\t_\t{tag}\t_\t_\t_\t_\t_\t_\n")


def test_tag_train_on_conllu_writes_the_model_of_the_same_sentences_in_columns(tmp_path,
                                                                                capsys):
    from cli_helpers import run_cli

    conllu = tmp_path / "treebank.conllu"
    _as_conllu(DATA / "treebank-pos-200.txt.gz", conllu)
    models = []
    for data in (DATA / "treebank-pos-200.txt.gz", conllu):
        out = tmp_path / f"{data.name}.npz"
        rc, _, err = run_cli(["tag", "train", "--data", str(data), "--iterations", "5", "-q",
                              "-o", str(out)], capsys)
        assert rc == 0, err
        models.append(load_tagger(out))
    a, b = models
    assert a.classes_ == b.classes_ and a.features_.names == b.features_.names
    assert a.n_columns_ == b.n_columns_ == 1
    assert np.array_equal(a.coef_, b.coef_)
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / f"{conllu.name}.npz"),
                            "--data", str(conllu)], capsys)
    assert rc == 0 and "accuracy" in out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("BIO"), st.sampled_from(["NP", "VP"])),
                min_size=1, max_size=12))
def test_bilou_tags_give_the_chunks_of_their_iobes_spelling(tags):
    iobes = [t if t == "O" else f"{t}-{k}" for t, k in tags]
    iobes = ["O" if t.startswith("O") else t for t in iobes]
    bilou = [t.replace("E-", "L-", 1).replace("S-", "U-", 1) if t[:2] in ("E-", "S-") else t
             for t in iobes]
    assert chunks(bilou) == chunks(iobes)


def test_bilou_labels_are_scored_by_chunk_f1():
    gold = [["U-PER", "O", "B-LOC", "L-LOC"]]
    pred = [["U-PER", "O", "U-LOC", "U-LOC"]]   # two one-word chunks, not one of two
    assert is_iob({"U-PER", "O", "B-LOC", "L-LOC", "U-LOC"})
    scores = evaluate(gold, pred)
    precision, recall = 1 / 3, 1 / 2
    assert scores["f1"] == pytest.approx(100 * 2 * precision * recall / (precision + recall))


def test_tag_predict_names_a_conllu_file_given_to_a_model_of_feature_columns(tmp_path, capsys):
    """A CoNLL-U file is read as its word forms alone; to a model of word and POS columns
    it was refused by its column count only ("1 column"), which hid the cause."""
    from cli_helpers import one_line_error, run_cli

    model = tmp_path / "chunker.npz"
    rc, _, err = run_cli(["tag", "train", "--data", str(DATA / "conll2000-train-300.txt.gz"),
                          "--iterations", "2", "-q", "-o", str(model)], capsys)
    assert rc == 0, err
    path = tmp_path / "sample.conllu"
    path.write_text(SAMPLE, encoding="utf-8")
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(path),
                          "-o", str(tmp_path / "out.txt")], capsys)
    assert one_line_error(rc, err, "sample.conllu", "a CoNLL-U file", "trained on 2"), err
