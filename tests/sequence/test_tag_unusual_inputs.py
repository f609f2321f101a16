"""Unusual inputs of ``tag train|predict|eval``: masked Universal NER test files (read for
prediction, refused for training and scoring), sentence-per-line ``word_tag`` text with
lower-case tags (read when the tags are a small closed set), and JSON lines whose predicted
output (a ``tags`` field added beside non-standard feature fields) reads back."""

import contextlib
import gzip
import io
import json
import sys

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
import test_predict_layouts as _shared

from sequence.data import read_conll
from sequence.model import load_tagger
from structpred import FormatError
from structpred.cli import main

#: two perceptron taggers, of the word alone and of the word and its POS (a fixture)
models = _shared.models
POS, TAGS, TRAIN = _shared.POS, _shared.TAGS, _shared.TRAIN

#: plain words (Latin letters and digits: no separator of any layout, nor words of several
#: scripts, which read like GB18030 misread as UTF-8 and are refused unless said UTF-8)
WORDS = st.text(st.characters(categories=("L", "Nd"), max_codepoint=0x24F), min_size=1,
                max_size=6)


def _uner(sentences, tags, comments):
    text = ""
    for k, (words, labels) in enumerate(zip(sentences, tags)):
        if comments:
            text += f"# sent_id = s{k}\n# text = {' '.join(words)}\n"
        text += "".join(f"{i}\t{w}\t{t}\t-\t-\n" for i, (w, t) in enumerate(zip(words, labels), 1))
        text += "\n"
    return text


SENTENCES = st.lists(st.lists(WORDS, min_size=1, max_size=6), min_size=1, max_size=4)


@given(SENTENCES, st.sampled_from(["_", "-", ""]), st.booleans())
@settings(max_examples=10, deadline=None)
def test_masked_universal_ner_files_are_predicted_and_refused_as_gold(models, tmp_path_factory,
                                                                      sentences, mask, comments):
    # before: read as a column file ("expected 3 columns, found 5 ...: a comment?", or a
    # model of other columns) or refused as "column 1 numbers the tokens"
    assume(any(len(s) >= 2 for s in sentences))
    path = tmp_path_factory.mktemp("uner") / "en_ewt-ud-test-masked.iob2"
    path.write_text(_uner(sentences, [[mask] * len(s) for s in sentences], comments),
                    encoding="utf-8")
    X = [[(w,) for w in s] for s in sentences]
    assert read_conll(path, labelled=False) == (X, None)
    with pytest.raises(FormatError, match=r"masked Universal NER file .* no gold labels"):
        read_conll(path)
    out = path.parent / "out.iob2"
    assert main(["tag", "predict", "-m", str(models[1]), "-i", str(path), "-o", str(out),
                 "-q"]) == 0
    pred = load_tagger(models[1]).predict(X)
    assert out.read_text(encoding="utf-8") == _uner(sentences, pred, comments)


@pytest.mark.parametrize("command", ["train", "eval"])
def test_masked_universal_ner_files_are_refused_by_train_and_eval(models, tmp_path, capsys,
                                                                  command):
    path = tmp_path / "de_pud-ud-test-masked.iob2"
    path.write_text(_uner(TRAIN, [["_"] * 3] * 3, True), encoding="utf-8")
    more = (["-m", str(models[1])] if command == "eval"
            else ["-o", str(tmp_path / "m.npz"), "--learner", "perceptron"])
    assert main(["tag", command, "--data", str(path), *more]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}:3: a masked Universal NER file (its tag column is '_' on every word)" in err


LOWER_TAGS = ["dt", "nn", "vbz", "jj", "in", "nn$", "np-tl", ".", "``", "fw-at+nn-tl"]


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(LOWER_TAGS)), min_size=1, max_size=7),
                min_size=1, max_size=6))
@settings(max_examples=15, deadline=None)
def test_lower_case_word_tag_text_of_a_closed_tag_set_is_read(models, tmp_path_factory, lines):
    # before: refused ("not every part after the last '_' is a tag"), or, lines of one
    # length, read as a column file: a token per line whose last word_tag was the label
    tokens = [t for line in lines for t in line]
    assume(len(tokens) >= 4 and len({t for _, t in tokens}) <= len(tokens) / 2)
    assume(any(len(line) >= 2 for line in lines))
    path = tmp_path_factory.mktemp("lower") / "brown.txt"
    path.write_text("".join(" ".join(f"{w}_{t}" for w, t in line) + "\n" for line in lines),
                    encoding="utf-8")
    X = [[(w,) for w, _ in line] for line in lines]
    assert read_conll(path) == (X, [[t for _, t in line] for line in lines])
    out = path.parent / "out.txt"
    assert main(["tag", "predict", "-m", str(models[1]), "-i", str(path), "-o", str(out),
                 "-q"]) == 0
    pred = load_tagger(models[1]).predict(X)
    assert out.read_text(encoding="utf-8") == "".join(
        " ".join(f"{w}_{t}" for (w, _), t in zip(line, p)) + "\n" for line, p in zip(lines, pred))


@pytest.mark.parametrize("text", ["the_at jury_nn said_vbd\nit_pps is_bez\n",   # 5 of 5
                                  "get_value set_name\nhas_key\n",               # 3 of 3
                                  "the_dt dog_nn\n"])   # before: 'dog_nn' the label of 'the_dt'
def test_lower_case_word_tag_text_of_no_closed_tag_set_is_refused(tmp_path, text):
    path = tmp_path / "under.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=r"under.txt:1: every token is written word_TAG, .*"
                                          r"not told to be tags: neither upper case .* nor a "
                                          r"small set of lower-case ones \(the_dt: 4 tokens "
                                          r"at least, .*awk "):
        read_conll(path)


#: names of a per-token feature field that is none of HuggingFace's
FIELDS = st.from_regex(r"\A[a-z][a-z_]{0,11}\Z").filter(
    lambda k: k not in ("tokens", "words", "pos_tags", "chunk_tags", "ner_tags"))


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(POS)), min_size=1, max_size=5),
                min_size=1, max_size=4), FIELDS)
@example([[("Lotte", "NNP"), ("sleeps", "VBZ")]], "tags")             # gets 'predicted_tags'
@example([[("Lotte", "NNP"), ("sleeps", "VBZ")]], "predicted_tags")   # gets 'tags'
@settings(max_examples=10, deadline=None)
def test_predicted_json_lines_of_a_feature_field_read_back(models, tmp_path_factory, sentences,
                                                           field):
    # before: the output held the feature field and the added 'tags', refused by tag
    # eval and tag predict as "which is the label is not told"
    path = tmp_path_factory.mktemp("json") / "test.jsonl"
    path.write_text("".join(json.dumps({"tokens": [w for w, _ in s], field: [p for _, p in s]})
                            + "\n" for s in sentences), encoding="utf-8")
    out = path.parent / "out.jsonl"
    assert main(["tag", "predict", "-m", str(models[2]), "-i", str(path), "-o", str(out),
                 "-q"]) == 0
    X = [[(w, p) for w, p in s] for s in sentences]
    pred = load_tagger(models[2]).predict(X)
    assert read_conll(out) == (X, pred)
    if any(t != "O" for p in pred for t in p):   # eval refuses gold without a chunk
        assert main(["tag", "eval", "-m", str(models[2]), "--data", str(out), "-q"]) == 0
    again = path.parent / "again.jsonl"
    assert main(["tag", "predict", "-m", str(models[2]), "-i", str(out), "-o", str(again),
                 "-q"]) == 0
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


@pytest.mark.parametrize("compress", [gzip.compress, bytes])
def test_gzip_data_on_standard_input_is_read(models, monkeypatch, capsys, compress):
    # before: "-:1: bad encoding: byte 0x8b ... (Windows-1252 ...? give --encoding cp1252"
    text = "".join(f"{w}\tB-PER\n" for w in TRAIN[0]) + "\n"
    data = compress(text.encode("utf-8"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    assert main(["tag", "predict", "-m", str(models[1]), "-i", "-", "-q"]) == 0
    pred = load_tagger(models[1]).predict([[(w,) for w in TRAIN[0]]])[0]
    assert capsys.readouterr().out == "".join(f"{w} {t}\n" for w, t in zip(TRAIN[0], pred)) + "\n"


@pytest.mark.parametrize("n, sentences", [(99, 1), (100, 1), (400, 1), (400, 2)])
@pytest.mark.parametrize("command", ["predict", "eval"])
def test_a_file_of_one_long_sentence_gets_a_warning(models, tmp_path, capsys, n, sentences,
                                                    command):
    # before: a file without blank lines was tagged and scored as one sentence, no word
    words = (TRAIN[0] * n)[:n]
    path = tmp_path / "noblank.txt"
    path.write_text("".join(f"{w} B-PER\n" + ("\n" if k == n // 2 and sentences == 2 else "")
                            for k, w in enumerate(words)), encoding="utf-8")
    option = "-i" if command == "predict" else "--data"
    assert main(["tag", command, "-m", str(models[1]), option, str(path), "-q"]) == 0
    err = capsys.readouterr().err
    warned = f"{path}: its {n} tokens are one sentence, tagged as one: are sentences separated"
    assert (warned in err) == (n >= 100 and sentences == 1)


def test_an_index_first_file_of_an_empty_third_column_is_no_masked_universal_ner(tmp_path):
    # masked Universal NER holds placeholders in its last two columns too: POS tags there
    # are another format, still refused as index-first
    path = tmp_path / "indexed.txt"
    path.write_text("1\tThe\t_\tDT\t_\n2\tcat\t_\tNN\t_\n\n1\tA\t_\tDT\t_\n\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"indexed.txt:1: column 1 numbers the tokens"):
        read_conll(path)


def _conlleval_counts(gold, pred):
    """``(correct, gold, predicted)`` chunks as conlleval.pl counts them, line for line (IOB
    tags: its endOfChunk and startOfChunk, a blank line between sentences read as O)."""
    def split(t):
        return tuple(t.split("-", 1)) if "-" in t else (t, "")

    def end(p, t, pt, tt):
        return ((p, t) in {("B", "B"), ("B", "O"), ("I", "B"), ("I", "O")}
                or p not in ("O", ".") and pt != tt)

    def start(p, t, pt, tt):
        return ((p, t) in {("B", "B"), ("I", "B"), ("O", "B"), ("O", "I")}
                or t not in ("O", ".") and pt != tt)

    correct = found_gold = found_pred = 0
    in_correct, last_g, last_p = False, ("O", ""), ("O", "")
    for g_tag, p_tag in [pair for g, p in zip(gold, pred) for pair in list(zip(g, p))
                         + [("O", "O")]]:
        g, p = split(g_tag), split(p_tag)
        if in_correct:
            eg, ep = end(last_g[0], g[0], last_g[1], g[1]), end(last_p[0], p[0], last_p[1], p[1])
            if eg and ep and last_g[1] == last_p[1]:
                in_correct, correct = False, correct + 1
            elif eg != ep or g[1] != p[1]:
                in_correct = False
        sg, sp = start(last_g[0], g[0], last_g[1], g[1]), start(last_p[0], p[0], last_p[1], p[1])
        in_correct = in_correct or (sg and sp and g[1] == p[1])
        found_gold, found_pred = found_gold + sg, found_pred + sp
        last_g, last_p = g, p
    return correct + in_correct, found_gold, found_pred


IOB = st.sampled_from(["O", "B-NP", "I-NP", "B-VP", "I-VP", "B", "I"])


@given(st.lists(st.lists(st.tuples(IOB, IOB), min_size=1, max_size=8), min_size=1, max_size=4))
@settings(max_examples=200, deadline=None)
def test_chunk_counts_are_those_of_conlleval(sentences):
    # an I- after O (or after another type) starts a chunk; a chunk is correct when it
    # starts, ends and is typed as the gold one
    from sequence.evaluate import evaluate

    gold = [[g for g, _ in s] for s in sentences]
    pred = [[p for _, p in s] for s in sentences]
    s = evaluate(gold, pred, iob=True)
    assert (s["chunks_correct"], s["chunks_gold"], s["chunks_predicted"]) == \
        _conlleval_counts(gold, pred)


@pytest.mark.parametrize("command, option", [("predict", "-i"), ("eval", "--data"),
                                             ("train", "--data"), ("train", "--valid-data")])
def test_label_names_and_data_both_from_standard_input_are_refused(models, tmp_path, capsys,
                                                                   command, option):
    # before: the names read the sentences ("'Rockwell NNP B-NP' holds white space: a label
    # name is one word"), or the data was read as empty
    more = {"predict": ["-m", str(models[1])], "eval": ["-m", str(models[1])],
            "train": ["-o", str(tmp_path / "m.npz")]}[command]
    if option == "--valid-data":
        more += ["--data", str(tmp_path / "train.txt")]
    assert main(["tag", command, *more, option, "-", "--label-names", "-"]) == 2
    assert capsys.readouterr().err == ("structpred: error: only one input can be read from "
                                       f"standard input ('-'), not --label-names and {option}\n")


def _render(kind, sentences):
    """``sentences`` (lists of ``(word, tag)``) written in the layout ``kind``."""
    if kind == "lower":
        return "".join(" ".join(f"{w}_{t}" for w, t in s) + "\n" for s in sentences)
    line = {"columns": "{w} {t}", "uner": "{i}\t{w}\t{t}\t-\t-",
            "masked": "{i}\t{w}\t_\t-\t-",
            "conllu": "{i}\t{w}\t{w}\t{t}\t_\t_\t0\tdep\t_\t_"}[kind]
    return "".join("# c\n" * (kind != "columns")
                   + "".join(line.format(i=i, w=w, t=t) + "\n" for i, (w, t) in enumerate(s, 1))
                   + "\n" for s in sentences)


#: what editors, spreadsheets and other operating systems do to a text file
EDITS = {"crlf": lambda t: t.replace("\n", "\r\n"), "bom": lambda t: "\ufeff" + t,
         "trailing spaces": lambda t: t.replace("\n", "  \n").replace("\n  \n", "\n\n"),
         "trailing tab": lambda t: "\n".join(k + "\t" if k.strip() else k
                                             for k in t.split("\n")),
         "no last line end": lambda t: t.rstrip("\n"),
         "blank lines around": lambda t: "\n \n" + t + "\n\t\n\n"}


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(["O", "B-PER", "I-PER"])),
                         min_size=2, max_size=5), min_size=2, max_size=4),
       st.sampled_from(["columns", "uner", "masked", "conllu", "lower"]), st.sampled_from(list(EDITS)))
@settings(max_examples=60, deadline=None)
def test_editor_changes_do_not_change_what_is_read(tmp_path_factory, sentences, kind, edit):
    # before: a tab at the end of each line (a spreadsheet's export) made a Universal NER
    # or CoNLL-U file "expected 4 columns, found 5", and a masked Universal NER file a
    # column file of 4 columns (the index its first)
    if kind == "lower":
        sentences = [[(w, t.lower()) for w, t in s] for s in sentences]
        assume(len({t for s in sentences for _, t in s}) <= sum(map(len, sentences)) / 2)
    folder = tmp_path_factory.mktemp("edits")
    clean, edited = folder / "clean.txt", folder / "edited.txt"
    clean.write_text(_render(kind, sentences), encoding="utf-8", newline="")
    edited.write_text(EDITS[edit](_render(kind, sentences)), encoding="utf-8", newline="")
    read = read_conll(clean, labelled=kind != "masked")
    assert read == read_conll(edited, labelled=kind != "masked")
    assert read[0] == [[(w,) for w, _ in s] for s in sentences]


@pytest.mark.parametrize("command", ["eval", "train"])
def test_a_file_of_other_columns_is_read_once(models, tmp_path, monkeypatch, capsys, command):
    # before: the refusal read the file a second time to tell a CoNLL-U file, which a pipe
    # (a FIFO, bash's <(zcat test.conllu.gz)) cannot give again: tag eval hung
    import sequence.data
    import structpred.io

    conllu = tmp_path / "test.conllu"
    conllu.write_text("# sent_id = 1\n1\tLotte\t_\tPROPN\t_\t_\t0\troot\t_\t_\n\n",
                      encoding="utf-8")
    train = tmp_path / "train.txt"
    train.write_text("Lotte NNP B-PER\nsleeps VBZ O\n\nin IN O\n\n", encoding="utf-8")
    opened = []
    for module in (sequence.data, structpred.io):
        def counted(path, *args, _read=module.read_lines, **kwargs):
            opened.append(str(path))
            return _read(path, *args, **kwargs)
        monkeypatch.setattr(module, "read_lines", counted)
    more = (["eval", "-m", str(models[2]), "--data"] if command == "eval" else
            ["train", "-o", str(tmp_path / "m.npz"), "--data", str(train), "--valid-data"])
    assert main(["tag", *more, str(conllu)]) == 2
    assert opened.count(str(conllu)) == 1
    assert (f"{conllu}: a CoNLL-U file, read as word forms and labels (2 columns), but "
            in capsys.readouterr().err)


def test_a_later_token_not_lower_case_word_tag_is_named(tmp_path):
    path = tmp_path / "brown.txt"
    path.write_text("the_at jury_nn said_vbd\n" * 60 + "It_PPS is_bez\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"brown.txt:61: the token 'It_PPS' is not word_tag "
                                          r"\(a lower-case tag word_TAG file, told by line 1\)"):
        read_conll(path)


def _refusal(args):
    """The one line of ``tag`` ``args`` refused (the status must be 2)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["tag", *args, "-q"]) == 2
    assert err.getvalue().count("\n") == 1
    return err.getvalue()


@given(st.lists(WORDS, min_size=4, max_size=12), st.sampled_from([2, 3]))
@settings(max_examples=15, deadline=None)
def test_short_lines_of_words_are_not_tagged_as_columns(models, tmp_path_factory, words, n):
    # tokenised text, a sentence per line, of lines of one length: before, one sentence
    # whose last words were dropped as labels (or read as POS tags) and the rest tagged,
    # exit 0 (a file of fewer than 10 tokens escaped the check of column 2)
    lines = [words[k:k + n] for k in range(0, len(words) - n + 1, n)]
    assume(len(lines) >= 2 and not {w for line in lines for w in line[1:]} & set(TAGS + POS))
    assume(len({line[-1] for line in lines}) > len(lines) / 2)   # words, not a placeholder
    path = tmp_path_factory.mktemp("plain") / "plain.txt"
    path.write_text("".join(" ".join(line) + "\n" for line in lines), encoding="utf-8")
    for model, why in [(1, "are one sentence whose last column"),
                       (2, "are one sentence whose last column" if n == 3 else
                        "column 2 holds values the model never saw there")]:
        if model == 1 and n == 3:
            why = "its word lines have 3 columns, but the model was trained on 1"
        assert why in _refusal(["predict", "-m", str(models[model]), "-i", str(path)])


@pytest.mark.parametrize("text", ['{"tokens": ["Lotte", "sleeps"], "pos": ["NNP", "VBZ"]}\n',
                                  "Lotte/NNP sleeps/VBZ\n"])
def test_one_sentence_per_line_layouts_keep_their_tag_slot(models, tmp_path, text):
    # the refusal of short lines of words read as columns is for column files: a layout of a
    # sentence per line has its tag slot, which the prediction replaces (and a column of
    # one placeholder, 'x', is a label column: tests/test_unusual_inputs_9.py)
    path = tmp_path / "one.txt"
    path.write_text(text, encoding="utf-8")
    X, _ = read_conll(_shared._predict(models[1], path))
    assert X == [[("Lotte",), ("sleeps",)]]
