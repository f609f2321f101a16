"""The layouts public sequence-labelling corpora are downloaded in, given to ``tag``: each is
read as its columns say, or refused in one line naming file and line, never misread.

CoNLL-2002/2003 column files, WikiNER (``word|POS|TAG``, a sentence per line), slash-tagged
text (NLTK's Brown ``The/at``, Penn ``.pos`` files with ``\\/``), JSON lines as HuggingFace
``datasets`` export them (string tags read, integer ids refused), OntoNotes ``*_conll``
files and bracket-notation columns (refused), chunk tags written BMES (``M-`` read as
``I-``), prefix last (``PER-B``: chunk F1, as seqeval's ``suffix=True``) or two ways (BILOU beside IOBES, ``B-PER``
beside ``B_PER``: a warning),
``#`` comment lines in column files (refused), and the line ends and blank lines of other
editors (read)."""

import json
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from sequence.data import read_conll
from sequence.evaluate import chunk_spelling, chunks, is_iob, label_kind_error
from sequence.evaluate import check_scheme, scheme_mix, tag_form_message
from structpred import FormatError

WORDS = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e, blacklist_characters="|"),
                min_size=1, max_size=6)
POS = st.sampled_from(["NN", "VBZ", "DT", "JJ", "NNP", "."])
TAGS = st.sampled_from(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])
SENTENCES = st.lists(st.lists(st.tuples(WORDS, POS, TAGS), min_size=1, max_size=6),
                     min_size=1, max_size=5).filter(lambda ss: any(len(s) >= 2 for s in ss))


def _columns(sentences):
    """What the sentences ``(word, POS, TAG)`` are read as: ``(X, y)``."""
    return ([[(w, p) for w, p, _ in s] for s in sentences],
            [[t for _, _, t in s] for s in sentences])


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _train(tmp_path, path, capsys, *more):
    """``tag train`` (the perceptron, for speed) of ``path``: ``(status, stdout, stderr)``."""
    return run_cli(["tag", "train", "--data", str(path), "-o", str(tmp_path / "m.npz"),
                    "--learner", "perceptron", "--iterations", "2", "-q", *more], capsys)


CONLL = [[("Lotte", "NNP", "I-NP", "I-PER"), ("schläft", "VBZ", "I-VP", "O")],
         [("EU", "NNP", "I-NP", "I-ORG"), ("rejects", "VBZ", "I-VP", "O"),
          ("German", "JJ", "I-NP", "I-MISC"), ("call", "NN", "I-NP", "O")]]


@pytest.mark.parametrize("corpus", ["conll2003", "conll2002-nl", "conll2002-es"])
def test_conll_2002_and_2003_files_are_read_as_their_columns(tmp_path, corpus):
    keep = {"conll2003": (0, 1, 2, 3), "conll2002-nl": (0, 1, 3), "conll2002-es": (0, 3)}[corpus]
    docstart = {"conll2003": "-DOCSTART- -X- -X- O\n\n",
                "conll2002-nl": "-DOCSTART- -DOCSTART- O\n", "conll2002-es": ""}[corpus]
    text = docstart + "".join("".join(" ".join(t[k] for k in keep) + "\n" for t in s) + "\n"
                              for s in CONLL * 3)
    X, y = read_conll(_write(tmp_path, "train.txt", text))
    assert X == [[tuple(t[k] for k in keep[:-1]) for t in s] for s in CONLL * 3]
    assert y == [[t[3] for t in s] for s in CONLL * 3]


@given(SENTENCES)
@settings(max_examples=40, deadline=None)
def test_wikiner_lines_are_read_as_sentences_of_word_pos_tag(tmp_path_factory, sentences):
    # before: the first line fixed a count of "columns" (its tokens), and the next line of
    # another length was "expected 6 columns, found 5"; lines of one length were one token
    # per line, the last token of the sentence its label
    path = tmp_path_factory.mktemp("wikiner") / "aij-wikiner-en"
    path.write_text("".join(" ".join("|".join(t) for t in s) + "\n" for s in sentences),
                    encoding="utf-8")
    assert read_conll(path) == _columns(sentences)
    X, labels = read_conll(path, labelled=False)
    assert labels is None and X == [[tuple(t) for t in s] for s in sentences]


def test_wikiner_token_of_other_parts_is_refused_with_its_line(tmp_path):
    path = _write(tmp_path, "wikiner.txt", "Lotte|NNP|I-PER sleeps|VBZ|O\nEr|PRP|O läuft|O\n")
    with pytest.raises(FormatError, match=r"wikiner.txt:2: the token 'läuft\|O' is not 3 "
                                          r"parts separated by '\|' \(word\|POS\|TAG"):
        read_conll(path)


def test_wikiner_trains_evaluates_and_predicts(tmp_path, capsys):
    sentences = [[("Lotte", "NNP", "I-PER"), ("sleeps", "VBZ", "O")],
                 [("Paris", "NNP", "I-LOC"), ("is", "VBZ", "O"), ("big", "JJ", "O")]] * 6
    path = _write(tmp_path, "wikiner.txt",
                  "".join(" ".join("|".join(t) for t in s) + "\n" for s in sentences))
    rc, out, err = _train(tmp_path, path, capsys)
    assert rc == 0 and "2 labels" not in out and "3 labels" in out, err
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data", str(path)],
                           capsys)
    assert rc == 0 and "12 sentences, 30 tokens" in out and "chunks" in out, err
    rc, out, err = run_cli(["tag", "predict", "-m", str(tmp_path / "m.npz"), "-i", str(path)],
                           capsys)
    # written back as WikiNER, the predicted tag in the tag slot (before: as columns)
    assert rc == 0 and out.splitlines()[:2] == ["Lotte|NNP|I-PER sleeps|VBZ|O",
                                                "Paris|NNP|I-LOC is|VBZ|O big|JJ|O"], err


# a backslash of the word itself cannot be told from Penn's escape, nor '|' in every token
# from WikiNER's parts
SLASH_WORDS = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e,
                                    blacklist_characters="\\|"),
                      min_size=1, max_size=6).filter(lambda w: w not in "[]")


@given(st.lists(st.lists(st.tuples(SLASH_WORDS, POS), min_size=2, max_size=6),
                min_size=1, max_size=5))
@settings(max_examples=40, deadline=None)
def test_slash_tagged_lines_are_read_as_sentences_of_word_and_tag(tmp_path_factory, sents):
    # Brown (NLTK): a tab before each sentence line, blank lines between; Penn escapes a
    # slash in a word as \/ (before: "expected 6 columns, found 5", or one token per line)
    path = tmp_path_factory.mktemp("brown") / "ca01"
    path.write_text("".join("\n\t" + " ".join(w.replace("/", "\\/") + "/" + p for w, p in s)
                            + "\n" for s in sents), encoding="utf-8")
    assert read_conll(path) == ([[(w,) for w, _ in s] for s in sents],
                                [[p for _, p in s] for s in sents])


def test_penn_pos_files_are_read_by_blocks_without_their_brackets(tmp_path):
    path = _write(tmp_path, "wsj_0001.pos",
                  "\n======================================\n\n[ Pierre/NNP Vinken/NNP ]\n,/, \n"
                  "[ 61/CD years/NNS ]\nold/JJ 1\\/2/CD ./. \n\n[ Mr./NNP Vinken/NNP ]\n"
                  "is/VBZ ./.\n")
    X, y = read_conll(path)
    assert X == [[("Pierre",), ("Vinken",), (",",), ("61",), ("years",), ("old",), ("1/2",),
                  (".",)], [("Mr.",), ("Vinken",), ("is",), (".",)]]
    assert y == [["NNP", "NNP", ",", "CD", "NNS", "JJ", "CD", "."], ["NNP", "NNP", "VBZ", "."]]


ONTONOTES = ("#begin document (bc/cctv/00/cctv_0001); part 000\n"
             "bc/cctv/00/cctv_0001 0 0 Lotte NNP (TOP(S(NP*) - - - Speaker#1 (PERSON) * -\n"
             "bc/cctv/00/cctv_0001 0 1 sleeps VBZ (VP*)) sleep 01 - Speaker#1 * (V*) -\n"
             "\n#end document\n")


def test_ontonotes_conll_files_are_refused_naming_the_bracket_column(tmp_path, capsys):
    # before: "expected 5 columns, found 13 ...; line 1 starts with '#': a comment?"; with
    # the #begin lines removed, the coreference column was read as labels
    path = _write(tmp_path, "cctv_0001.v4_gold_conll", ONTONOTES)
    with pytest.raises(FormatError, match=r"cctv_0001.v4_gold_conll:1: an OntoNotes / "
                                          r"CoNLL-2012 \*_conll file .*BIO tags"):
        read_conll(path)
    rc, _, err = _train(tmp_path, path, capsys)
    assert one_line_error(rc, err, "cctv_0001.v4_gold_conll:1:", "bracket notation")


@pytest.mark.parametrize("spans, line", [(["*", "(PERSON*", "*)", "(ORG)"], 2),
                                         (["-", "(12", "12)", "(3)"], 2)])
def test_labels_in_bracket_notation_are_refused(tmp_path, spans, line):
    # the NE column (or OntoNotes' coreference column) cut to the last place: its spans
    # were trained as labels '(PERSON*', '*', '*)' with exit 0
    words = ["Lotte", "Vermeer", "sleeps", "here"]
    path = _write(tmp_path, "ne.txt", "".join(f"{w} {t}\n" for w, t in zip(words, spans)))
    with pytest.raises(FormatError, match=rf"ne.txt:{line}: the label .* is a span in bracket "
                                          r"notation"):
        read_conll(path)


def _jsonl(tmp_path, rows, name="train.jsonl"):
    return _write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in rows))


def test_json_lines_of_string_tags_are_read_in_the_conll_column_order(tmp_path):
    # HuggingFace's conll2003 as strings: NER the label, POS and chunk features, as in the
    # CoNLL-2003 column file; its -DOCSTART- examples are no sentences
    rows = [{"id": "0", "tokens": ["-DOCSTART-"], "pos_tags": ["-X-"], "chunk_tags": ["O"],
             "ner_tags": ["O"]}] + [
        {"id": str(k), "tokens": [t[0] for t in s], "ner_tags": [t[3] for t in s],
         "pos_tags": [t[1] for t in s], "chunk_tags": [t[2] for t in s]}
        for k, s in enumerate(CONLL, 1)]
    X, y = read_conll(_jsonl(tmp_path, rows))
    assert X == [[t[:3] for t in s] for s in CONLL] and y == [[t[3] for t in s] for s in CONLL]
    X, y = read_conll(_jsonl(tmp_path, [{"tokens": ["New York", "x"], "upos": ["PROPN", "X"]}]))
    assert X == [[("New_York",), ("x",)]] and y == [["PROPN", "X"]]


def test_json_lines_of_integer_tag_ids_are_refused(tmp_path, capsys):
    # before: "expected 16 columns, found 14"; lines of one length: JSON text as tokens
    path = _jsonl(tmp_path, [{"id": "0", "tokens": ["EU", "rejects"], "ner_tags": [3, 0]}] * 4)
    rc, _, err = _train(tmp_path, path, capsys)
    assert one_line_error(rc, err, "train.jsonl:1:", "'ner_tags' are integer ids",
                          "--label-names FILE")


NER_NAMES = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
ID_ROWS = [{"tokens": ["Lotte", "Vermeer", "sleeps"], "ner_tags": [1, 2, 0]},
           {"tokens": ["Paris", "is", "big"], "ner_tags": [3, 0, 0]}] * 6


@pytest.mark.parametrize("as_json", [False, True])
def test_json_lines_of_tag_ids_are_read_with_label_names(tmp_path, capsys, as_json):
    # Dataset.to_json writes ClassLabel tags as ids; their names, one a line or as a JSON
    # list (features["ner_tags"].feature.names), make them labels again
    names = _write(tmp_path, "names.txt", json.dumps(NER_NAMES) if as_json
                   else "\n".join(NER_NAMES) + "\n")
    path = _jsonl(tmp_path, ID_ROWS)
    assert read_conll(path, label_names=NER_NAMES)[1][:2] == [["B-PER", "I-PER", "O"],
                                                             ["B-LOC", "O", "O"]]
    rc, out, err = _train(tmp_path, path, capsys, "--label-names", str(names))
    assert rc == 0 and "4 labels" in out, err
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data", str(path),
                            "--label-names", str(names)], capsys)
    assert rc == 0 and "chunks: precision" in out, err


@pytest.mark.parametrize("names, words", [
    ("O\nB-PER\n", "train.jsonl:1: the tag id 2 of 'ner_tags' has no name: 2 label names"),
    ("O\nB-PER\nO\n", "--label-names holds 'O' twice"),
    ("O\nB PER\n", "names.txt:2: 'B PER' holds white space"),
    ("\n", "names.txt: --label-names holds no name")])
def test_label_names_that_do_not_name_the_ids_are_refused(tmp_path, capsys, names, words):
    path = _jsonl(tmp_path, ID_ROWS)
    rc, _, err = _train(tmp_path, path, capsys, "--label-names",
                        str(_write(tmp_path, "names.txt", names)))
    assert one_line_error(rc, err, words), err


def test_label_names_for_a_column_file_are_refused(tmp_path, capsys):
    path = _write(tmp_path, "train.txt", "Lotte B-PER\nsleeps O\n\n" * 4)
    rc, _, err = _train(tmp_path, path, capsys, "--label-names",
                        str(_write(tmp_path, "names.txt", "O\nB-PER\n")))
    assert one_line_error(rc, err, "train.txt: label names are given", "a column file"), err


@pytest.mark.parametrize("text, words", [
    ('{"tokens": ["a"], "lemmas": ["a"], "upos": ["X"]}\n', "which is the label is not told"),
    ('[{"tokens": ["a"], "tags": ["X"]}]\n', "a JSON array"),
    ('{"tokens": ["a", "b"], "tags": ["X", "Y"]}\n{"tokens": ["a"], "tags": ["X", "Y"]}\n',
     "does not hold one value for each of the 1 tokens"),
    ('{"tokens": ["a", "b"], "tags": ["X", "Y"]}\n{"tokens": ["a"\n', "not a JSON object"),
    ('{"text": "a b", "tags": ["X", "Y"]}\n', "without a 'tokens'"),
    ('{"text": "Lotte sleeps", "label": [[0, 5, "PER"]]}\n', "character-offset spans")])
def test_json_lines_that_do_not_tell_tokens_and_labels_are_refused(tmp_path, capsys, text,
                                                                    words):
    path = _write(tmp_path, "train.jsonl", text)
    rc, _, err = _train(tmp_path, path, capsys)
    assert one_line_error(rc, err, "train.jsonl:", words), err


@given(st.lists(st.sampled_from(["O", "B-PER", "I-PER", "E-PER", "S-PER", "S-LOC"]),
                min_size=1, max_size=12))
@settings(max_examples=40, deadline=None)
def test_bmes_middle_tags_are_read_as_inside(tags):
    # Chinese NER corpora write IOBES's I- as M- (B-NAME M-NAME E-NAME); before, a file of
    # them was refused as "the label 'M-NAME' is neither O nor a chunk tag"
    bmes = [("M" + t[1:]) if t.startswith("I") else t for t in tags]
    assert chunks(bmes) == chunks(tags)
    if set(tags) != {"O"}:
        assert is_iob(set(bmes))


def test_a_bmes_file_is_read(tmp_path):
    path = _write(tmp_path, "resume.char.bmes", "张 B-NAME\n三 M-NAME\n丰 E-NAME\n是 O\n\n")
    assert read_conll(path)[1] == [["B-NAME", "M-NAME", "E-NAME", "O"]]


@pytest.mark.parametrize("sep", ["-", "_"])
def test_chunk_tags_with_the_prefix_last_are_scored_by_chunk_f1(tmp_path, capsys, sep):
    # before: scored by token accuracy (with a warning) where seqeval (suffix=True) reads
    # chunks; a user of a PER-B corpus expects chunk F1, as for B-PER
    text = f"Lotte PER{sep}B\nVermeer PER{sep}I\nsleeps O\n\nParis LOC{sep}B\nis O\n\n" * 6
    rc, out, err = _train(tmp_path, _write(tmp_path, "suffix.txt", text), capsys)
    assert rc == 0 and "validation chunk F1" in out, err
    assert "prefix" not in err and "accuracy" not in out
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                            str(_write(tmp_path, "test.txt", text))], capsys)
    assert rc == 0 and "chunks: precision" in out, err
    first = re.sub(rf"\b([A-Z]+){sep}([BI])$", r"\2-\1", text, flags=re.M)
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                            str(_write(tmp_path, "first.txt", first))], capsys)
    assert rc == 0 and "chunks: precision" in out, err
    assert f"chunk tags otherwise than the model (B-LOC for LOC{sep}B)" in err
    # an IOBES model written prefix last, BILOU gold prefix last: named as such
    iobes = text.replace(f"PER{sep}I", f"PER{sep}E").replace(f"LOC{sep}B", f"LOC{sep}S")
    _train(tmp_path, _write(tmp_path, "iobes.txt", iobes), capsys)
    bilou = iobes.replace(f"{sep}E\n", f"{sep}L\n").replace(f"{sep}S\n", f"{sep}U\n")
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                            str(_write(tmp_path, "bilou.txt", bilou))], capsys)
    assert rc == 0 and "BILOU's L-/U- or IOBES's E-/S-" in err, err


def _suffixed(tag):
    """``PER-B`` for ``B-PER`` (``PER_B`` for ``B_PER``); ``O`` and untyped tags as they are."""
    return tag[2:] + tag[1] + tag[0] if len(tag) > 2 else tag


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("BIESLUM"), st.sampled_from("-_"),
                          st.sampled_from(["PER", "LOC", "Q", "ORG-X"])).map("".join)
                | st.just("O"), min_size=1, max_size=12))
def test_chunks_of_tags_with_the_prefix_last_are_those_of_the_prefix_first(tags):
    last = [_suffixed(t) for t in tags]
    assert chunks(last) == chunks(tags)
    assert is_iob(last) == is_iob(tags)
    assert [chunk_spelling(t) for t in last] == [chunk_spelling(t) for t in tags]
    if is_iob(tags):
        assert tag_form_message(last) == tag_form_message(tags) or \
            "two ways" in tag_form_message(tags)
        typed = [t for t in tags if t != "O"]
        mixed = tags + [_suffixed(typed[0])] if typed and _suffixed(typed[0]) != typed[0] \
            else None
        if mixed is not None and tag_form_message(tags) is None:
            assert "prefix first and last" in tag_form_message(mixed)
        if mixed is not None:   # chunk tags of two placements: no mixture of other labels
            assert label_kind_error(mixed) is None


@pytest.mark.parametrize("labels, words", [
    (["B-PER", "L-PER", "U-LOC", "E-ORG", "S-ORG", "O"], "BILOU and IOBES"),
    (["B-PER", "M-PER", "E-PER", "I-ORG", "B-ORG", "O"], "BMES and IOB(ES)")])
def test_chunk_tags_of_one_shape_written_two_ways_get_a_warning(labels, words):
    assert words in tag_form_message(labels)
    assert tag_form_message([t for t in labels if t[0] not in "UL" and t[0] != "M"]) is None


TYPED = st.lists(st.tuples(st.sampled_from("BIES"), st.sampled_from("-_"),
                           st.sampled_from(["PER", "LOC", "ORG_X", "MISC-2"])),
                 min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(TYPED)
def test_chunk_tags_joined_by_two_separators_get_a_warning(parts):
    # before: B-PER and B_PER were two labels without a word (chunk F1 reads them alike)
    labels = ["O"] + [p + sep + t for p, sep, t in parts]
    message = tag_form_message(labels)
    both = {sep for _, sep, _ in parts} == {"-", "_"}
    assert (message is not None and "prefix and type two ways" in message) == both
    assert {chunk_spelling(t) for t in labels[1:]} == {p + "-" + t for p, _, t in parts}


def test_separators_of_chunk_tags_two_ways_are_named_by_train_and_eval(tmp_path, capsys):
    dash = "Jan B-PER\nNovák I-PER\nspí O\n\nPraha B-LOC\nje O\n\n"
    under = dash.replace("B-", "B_").replace("I-", "I_")
    rc, out, err = _train(tmp_path, _write(tmp_path, "mixed.txt", (dash + under) * 6), capsys)
    assert rc == 0 and "chunk F1" in out, err
    assert "join prefix and type two ways (B-LOC and B_LOC)" in err
    rc, out, err = _train(tmp_path, _write(tmp_path, "dash.txt", dash * 12), capsys)
    assert rc == 0 and "two ways" not in err, err
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                            str(_write(tmp_path, "under.txt", under * 3))], capsys)
    assert rc == 0 and "F1" in out, err
    assert "chunk tags otherwise than the model (B_LOC for B-LOC)" in err
    assert "chunk F1 reads both alike" in err


CZECH = st.sampled_from(["B-MĚSTO", "I-MĚSTO", "B-OSOBA", "I-OSOBA", "B-ŽENA", "O"])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(["Praha", "Brno", "Žižkov", "je", "."]),
                                   CZECH, st.booleans()), min_size=1, max_size=5),
                min_size=1, max_size=4))
def test_labels_in_nfd_are_read_as_their_nfc(tmp_path_factory, sentences):
    # before: B-MĚSTO in NFD and in NFC were two labels (trained apart), and gold in NFD
    # against a model's NFC labels was refused as "differ only in case, white space or
    # invisible characters", two labels that look alike
    folder = tmp_path_factory.mktemp("nfd")
    text = "".join("".join(f"{w} {unicodedata.normalize('NFD', t) if nfd else t}\n"
                           for w, t, nfd in s) + "\n" for s in sentences)
    labels = read_conll(_write(folder, "cs.txt", text))[1]
    assert labels == [[t for _, t, _ in s] for s in sentences]


def test_tag_eval_of_gold_in_nfd_scores_as_in_nfc(tmp_path, capsys):
    text = "V O\nPraze B-MĚSTO\nprší O\n\nBrno B-MĚSTO\nje O\n\nJana B-OSOBA\nspí O\n\n"
    _train(tmp_path, _write(tmp_path, "cs.txt", text * 6), capsys)
    scores = []
    for form in ("NFC", "NFD"):
        gold = _write(tmp_path, f"{form}.txt", unicodedata.normalize(form, text))
        rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                                str(gold), "--json"], capsys)
        assert rc == 0, err
        scores.append(json.loads(out))
    assert scores[0] == scores[1]
    # --label-names in NFD name the model's NFC labels (they were "does not name every label")
    names = _write(tmp_path, "names.txt", unicodedata.normalize("NFD", "O\nB-MĚSTO\nB-OSOBA\n"))
    lines = _write(tmp_path, "cs.jsonl", json.dumps({"tokens": ["Brno", "je"]}) + "\n")
    rc, _, err = run_cli(["tag", "predict", "-m", str(tmp_path / "m.npz"), "-i", str(lines),
                          "-o", str(tmp_path / "out.jsonl"), "--label-names", str(names), "-q"],
                         capsys)
    assert rc == 0, err
    ids = json.loads((tmp_path / "out.jsonl").read_text())["tags"]
    assert len(ids) == 2 and all(i in (0, 1, 2) for i in ids)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["\u00a0", "\u2009", "\u202f", "\u3000"]), st.booleans(),
       st.text("0123456789Kč", min_size=1, max_size=4))
def test_other_space_inside_a_token_is_named_with_a_fix_that_keeps_the_token(
        tmp_path_factory, space, inside, digits):
    # before: "replace it with a space" also for '10<NBSP>000 O', where a space makes
    # three columns of a two-column line ("expected 2 columns, found 3" next)
    line = f"10{space}{digits} O" if inside else f"10 O{space}"
    path = _write(tmp_path_factory.mktemp("sp"), "cs.txt", f"Mám O\n{line}\n\n")
    with pytest.raises(FormatError) as info:
        read_conll(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: ") and "\n" not in message
    assert ("or with '_' to keep " + repr(f"10{space}{digits}")) in message if inside else \
        message.endswith("(replace it with a space)")


#: a sentence as its pieces: a chunk of a type and a length, or None for a token outside
PIECES = st.lists(st.one_of(st.none(), st.tuples(st.sampled_from(["NP", "VP"]),
                                                 st.integers(1, 3))), min_size=1, max_size=8)


def _ioe(pieces, scheme):
    """The tags of ``pieces`` in IOE1 (``E-`` only before a chunk of its type) or IOE2
    (``E-`` at every chunk's end), and its chunks ``(start, end, type)``."""
    tags, found = [], set()
    for k, piece in enumerate(pieces):
        if piece is None:
            tags.append("O")
            continue
        kind, n = piece
        after = pieces[k + 1] if k + 1 < len(pieces) else None
        end = scheme == "IOE2" or (after is not None and after[0] == kind)
        found.add((len(tags), len(tags) + n - 1, kind))
        tags += [f"I-{kind}"] * (n - 1) + [f"{'E' if end else 'I'}-{kind}"]
    return tags, found


@settings(max_examples=80, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=4), st.sampled_from(["IOE1", "IOE2"]))
def test_ioe_chunk_tags_are_one_scheme_and_read_as_chunks(sentences, scheme):
    # before: IOE1 (CoNLL-2000's representation, conlleval reads it) was refused as IOB mixed
    # with IOBES whenever a chunk ended at I- beside an E- ("ends a chunk as IOB writes it")
    encoded = [_ioe(p, scheme) for p in sentences]
    tags = [t for t, _ in encoded]
    assert scheme_mix(tags) is None
    check_scheme(tags, "ioe.txt")
    assert all(chunks(t) == found for t, found in encoded)


def test_an_ioe1_file_trains_on_chunk_f1(tmp_path, capsys):
    text = "the I-NP\ncat E-NP\na I-NP\ndog I-NP\nsleeps I-VP\n\nhe I-NP\nruns I-VP\n\n"
    rc, out, err = _train(tmp_path, _write(tmp_path, "ioe1.txt", text * 6), capsys)
    assert rc == 0 and "validation chunk F1" in out, err
    # gold of IOE1 whose chunks are never adjacent writes no E-: no "other scheme" warning
    gold = _write(tmp_path, "gold.txt", "he I-NP\nruns I-VP\n\na I-NP\ndog I-NP\n\n")
    rc, out, err = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                            str(gold)], capsys)
    assert rc == 0 and "chunks: precision" in out, err
    assert "the gold chunk tags are" not in err


@pytest.mark.parametrize("comment", ["# 2", "#sent_id 7", "#text The_cat"])
def test_comment_lines_in_column_files_are_refused_as_comments(tmp_path, comment):
    # before: a comment of as many fields as the columns was a token, its last field a label
    body = "The DT\ncat NN\n\n"
    path = _write(tmp_path, "pos.txt", body + comment + "\n" + body)
    with pytest.raises(FormatError, match=r"pos.txt:4: .*a comment\? column files have none"):
        read_conll(path)


def test_hashtags_that_start_sentences_are_no_comments(tmp_path):
    # tweets tagged HT for a hashtag: '#word' lines of one label at many sentence starts
    path = _write(tmp_path, "tweets.txt", "#fail HT\nagain RB\n\n#win HT\nnow RB\n\n")
    assert read_conll(path)[1] == [["HT", "RB"], ["HT", "RB"]]


def test_comment_line_of_other_columns_is_named_as_a_comment(tmp_path):
    path = _write(tmp_path, "pos.txt", "The DT\ncat NN\n\n# sent_id = 2\nA DT\n\n")
    with pytest.raises(FormatError, match=r"pos.txt:4: expected 2 columns, found 4 .*line 4 "
                                          r"starts with '#': a comment\?"):
        read_conll(path)


def test_editor_line_ends_and_blank_lines_of_white_space_are_read(tmp_path):
    # a tab at each line end (an empty last field), Windows line ends, and a blank line
    # of spaces and tabs between sentences
    path = tmp_path / "win.txt"
    path.write_bytes(b"Lotte\tNNP\tB-PER\t\r\nsleeps\tVBZ\tO\t\r\n \t \r\nEr\tPRP\tO\t\r\n\r\n")
    assert read_conll(path) == ([[("Lotte", "NNP"), ("sleeps", "VBZ")], [("Er", "PRP")]],
                                [["B-PER", "O"], ["O"]])


def test_label_first_files_are_refused(tmp_path, capsys):
    # the MIT Movie corpus (engtrain.bio) writes 'TAG<TAB>word': its words were trained as
    # labels of the tags, exit 0
    path = _write(tmp_path, "engtrain.bio", "B-Actor\tsteve\nI-Actor\tmcqueen\nO\tprovided\n\n"
                                            "O\twhat\nB-Genre\tmovies\n\n" * 4)
    rc, _, err = _train(tmp_path, path, capsys)
    assert one_line_error(rc, err, "engtrain.bio:1: column 1 holds chunk tags", "swap"), err


@pytest.mark.parametrize("header, body", [("word\ttag", "The\tDT\ncat\tNN\n\n"),
                                          ("Token POS Label", "The DT O\ncat NN O\n\n")])
def test_header_lines_of_column_names_are_refused(tmp_path, header, body):
    # before: a token 'word' labelled 'tag' (a POS file) or a refusal blaming the label
    path = _write(tmp_path, "pos.tsv", header + "\n" + body * 2)
    with pytest.raises(FormatError, match=r"pos.tsv:1: the line .* looks like a header"):
        read_conll(path)


@pytest.mark.parametrize("text, line", [("a,DT,O\nb,NN,B-NP\n", 1),
                                        ("Sentence #,Word,POS,Tag\nSentence: 1,Thousands,NNS,O\n"
                                         ",of,IN,O\n", 3)])
def test_comma_separated_files_get_a_hint(tmp_path, text, line):
    with pytest.raises(FormatError, match=rf"ner.csv:{line}: .*a CSV file\? columns are "
                                          "separated by spaces or tabs"):
        read_conll(_write(tmp_path, "ner.csv", text))


CUPT = ("# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC PARSEME:MWE\n"
        + "# text = Worse is it\n1\tWorse\tbad\tADJ\tJJR\t_\t0\troot\t_\t_\t*\n"
        "2\tis\tbe\tAUX\tVBZ\t_\t1\tcop\t_\t_\t1:VID\n3\tit\tit\tPRON\tPRP\t_\t1\tnsubj\t_\t_\t1\n\n"
        "# text = it is\n1\tit\tit\tPRON\tPRP\t_\t2\tnsubj\t_\t_\t*\n"
        "2\tis\tbe\tAUX\tVBZ\t_\t0\troot\t_\t_\t*\n\n")


def test_conllu_plus_files_are_read_by_their_column_names(tmp_path, capsys):
    # PARSEME's .cupt: before, "expected 14 columns, found 4 ...: a comment?", and with the
    # comments removed the eleventh column (the MWE codes) was read as the label
    path = _write(tmp_path, "train.cupt", CUPT * 3)
    X, y = read_conll(path)
    assert X[:2] == [[("Worse",), ("is",), ("it",)], [("it",), ("is",)]]
    assert y[:2] == [["ADJ", "AUX", "PRON"], ["PRON", "AUX"]]
    assert read_conll(path, conllu_label="xpos")[1][0] == ["JJR", "VBZ", "PRP"]
    rc, _, err = _train(tmp_path, path, capsys)
    assert rc == 0, err
    rc, out, err = run_cli(["tag", "predict", "-m", str(tmp_path / "m.npz"), "-i", str(path)],
                           capsys)
    assert rc == 0 and out.splitlines()[:3] == CUPT.splitlines()[:3], err
    plain = _write(tmp_path, "other.cupt", "# global.columns = ID FORM HEAD PARSEME:MWE\n"
                                           "1\tWorse\t0\t*\n\n")
    with pytest.raises(FormatError, match=r"other.cupt:1: a CoNLL-U Plus file without a UPOS"):
        read_conll(plain)


@pytest.mark.parametrize("text, words", [
    ("Lotte_B_PER sleeps_O here_O\nEr_O schläft_O\n", "writes a chunk tag with '_'"),
    ("The_at jury_nn said_vbd\nIt_pps is_bez\n", "not told to be tags.*5 kinds among 5")])
def test_underscore_tagged_lines_whose_split_is_not_told_are_refused(tmp_path, text, words):
    # word_TAG whose tags hold '_' (B_PER: 'Lotte_B' was the word) or are not written as
    # tags are (lower case): before, "expected 3 columns, found 2", or (lines of one
    # length) a token per line whose last 'word_TAG' was the label
    with pytest.raises(FormatError, match=rf"tagged.txt:1: every token is written word_TAG, "
                                          rf".*{words}.*(sed|awk) "):
        read_conll(_write(tmp_path, "tagged.txt", text))


@pytest.mark.parametrize("text", ["1 The DT\n2 cat NN\n\n1 A DT\n\n",
                                  "1\tThe\tthe\tthe\tDT\tDT\t_\t_\t2\t2\tNMOD\tNMOD\t_\t_\t_\n"
                                  "2\tcat\tcat\tcat\tNN\tNN\t_\t_\t0\t0\tROOT\tROOT\tY\tcat.01\tA0\n"
                                  "3\tsat\tsit\tsit\tVBD\tVBD\t_\t_\t0\t0\tROOT\tROOT\t_\t_\t_\n\n"])
def test_files_whose_first_column_numbers_the_tokens_are_refused(tmp_path, text):
    # 'index word tag', CoNLL-2009 (15 columns, the last a predicate's arguments): the
    # numbers were the words, and CoNLL-2009's arguments the labels
    with pytest.raises(FormatError, match=r"indexed.txt:1: column 1 numbers the tokens of "
                                          r"every sentence"):
        read_conll(_write(tmp_path, "indexed.txt", text))


def test_multiconer_id_lines_are_refused_as_comments(tmp_path):
    # MultiCoNER: '# id <uuid><TAB>domain=en' before each sentence has the 4 fields of its
    # 'word _ _ TAG' lines: it was a token labelled 'domain=en'
    sentence = "# id 2b1e\tdomain=en\nthe _ _ O\nlotte _ _ B-PER\n\n"
    with pytest.raises(FormatError, match=r"multiconer.conll:1: a line that starts a sentence "
                                          r"with '#' and whose label 'domain=en'"):
        read_conll(_write(tmp_path, "multiconer.conll", sentence * 3))


def test_chunk_types_in_lower_case_are_chunks():
    # B-per (the prefix upper-case) is a chunk of type 'per', as conlleval reads it
    assert chunks(["B-per", "I-per", "O", "B-loc"]) == {(0, 1, "per"), (3, 3, "loc")}
    assert is_iob({"B-per", "I-per", "O"})


COLUMN_WORDS = st.one_of(st.sampled_from(['{"a', '[{', '{"}', "a|b", "a/b", "a_b", "[", "]"]),
                        st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e),
                                min_size=1, max_size=8)).filter(
    lambda w: not w.startswith("#") and not w.isdigit() and w != "-DOCSTART-"
    and w != "O" and not is_iob({w}))


@given(st.lists(st.lists(st.tuples(COLUMN_WORDS, st.sampled_from(["NN", "VB", "DT", "JJ"])),
                         min_size=1, max_size=6), min_size=1, max_size=5))
@settings(max_examples=60, deadline=None)
def test_column_files_of_any_words_are_read_as_columns(tmp_path_factory, sentences):
    # the layouts told by their tokens (WikiNER's '|', the slash, word_TAG, a header, chunk
    # tags first, an index first) never take a column file for one: its label column holds
    # none of their marks (words starting with '#', numbers and chunk tags are left out:
    # they can be comments, indices or labels)
    path = tmp_path_factory.mktemp("columns") / "pos.txt"
    path.write_text("".join("".join(f"{w} {t}\n" for w, t in s) + "\n" for s in sentences),
                    encoding="utf-8")
    assert read_conll(path) == ([[(w,) for w, _ in s] for s in sentences],
                                [[t for _, t in s] for s in sentences])
