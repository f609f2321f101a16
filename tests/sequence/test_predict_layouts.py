"""``tag predict`` writes its output in the layout its input was read in, as a Unix filter
does: WikiNER lines with the predicted tag in each token's tag slot (or added), slash-tagged
and word_TAG text with it after the separator, JSON lines with it in the label field (or a
field added), Universal NER files with it in their tag column; everything else as it was.
Read back by the same reader, the output gives the input's tokens and the predicted tags.

Universal NER files (``index token tag - -``) are read; files whose first column numbers
the tokens and whose other columns are not those of Universal NER are still refused.
``word_TAG`` text is read when every token's part after its last ``_`` is a tag."""

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sequence.data import read_conll
from sequence.model import SequenceTagger, load_tagger
from structpred import FormatError
from structpred.cli import main
from structpred.io import input_encoding

#: the labels of the model of one column (a chunk tag set: the output of Universal NER
#: must read back as one)
TAGS = ["O", "B-PER", "I-PER", "B-LOC"]
POS = ["NNP", "VBZ", "DT", "JJ"]
TRAIN = [["Lotte", "Vermeer", "sleeps"], ["in", "Paris", "today"], ["the", "big", "dog"]]
TRAIN_TAGS = [["B-PER", "I-PER", "O"], ["O", "B-LOC", "O"], ["O", "O", "O"]]
TRAIN_POS = [["NNP", "NNP", "VBZ"], ["DT", "NNP", "JJ"], ["DT", "JJ", "NNP"]]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two perceptron taggers (fast): of the word alone, and of the word and its POS."""
    folder = tmp_path_factory.mktemp("models")
    paths = {}
    for n, X in [(1, [[(w,) for w in s] for s in TRAIN]),
                 (2, [[(w, p) for w, p in zip(s, ps)] for s, ps in zip(TRAIN, TRAIN_POS)])]:
        tagger = SequenceTagger(learner="perceptron", n_iter=2).fit(X * 4, TRAIN_TAGS * 4)
        paths[n] = folder / f"m{n}.npz"
        tagger.save(paths[n])
    return paths


def _predict(model, path, *more):
    """``tag predict`` of ``path``: its output's path (the status must be 0)."""
    out = path.parent / ("out-" + path.name)
    assert main(["tag", "predict", "-m", str(model), "-i", str(path), "-o", str(out), "-q",
                 *more]) == 0
    return out


def _round_trip(model, path, kept, *more):
    """Predict ``path`` (``more``: options of ``tag predict``) and read the output back: its
    tokens are ``kept`` (the input's without their label), its labels the model's
    predictions of them."""
    out = _predict(model, path, *more)
    X, y = read_conll(out)
    assert X == kept
    assert y == load_tagger(model).predict(kept)
    return out


#: words of any printable characters (letters, digits, punctuation, symbols, in any script)
WORDS = st.text(st.characters(categories=("L", "N", "P", "S"), max_codepoint=0x2FFF),
                min_size=1, max_size=6).filter(lambda w: w != "-DOCSTART-")


def _share(words, mark):
    return sum(mark in w for w in words) / len(words)


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(POS), st.sampled_from(TAGS)),
                         min_size=1, max_size=6), min_size=1, max_size=4), st.booleans())
@settings(max_examples=30, deadline=None)
def test_wikiner_is_written_back_as_wikiner(models, tmp_path_factory, sentences, labelled):
    # before: written as columns ('Lotte NNP B-PER', a token per line)
    words = [w for s in sentences for w, _, _ in s]
    assume(_share(words, "|") < 0.5 and any(len(s) >= 2 for s in sentences))
    path = tmp_path_factory.mktemp("wikiner") / "aij-wikiner-en"
    path.write_text("".join(" ".join("|".join(t if labelled else t[:2]) for t in s) + "\n"
                            for s in sentences), encoding="utf-8")
    out = _round_trip(models[2], path, [[(w, p) for w, p, _ in s] for s in sentences])
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [[t.rsplit("|", 1)[0] for t in line.split(" ")] for line in lines] == \
        [[f"{w}|{p}" for w, p, _ in s] for s in sentences]


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(TAGS)), min_size=1, max_size=6),
                min_size=1, max_size=4), st.sampled_from(["/", "_"]))
@settings(max_examples=40, deadline=None)
def test_slash_and_underscore_text_is_written_back_in_its_layout(models, tmp_path_factory,
                                                                  sentences, sep):
    # word/TAG and word_TAG (split at the last separator): the tag after it is the
    # prediction, the word as it was
    words = [w for s in sentences for w, _ in s]
    assume(any(len(s) >= 2 for s in sentences) and _share(words, "|") < 1)
    assume(all("\\" not in w and w not in "[]" for w in words))   # Penn's escape, brackets
    if sep == "_":   # not slash text, no chunk tag written with '_' (Lotte_B_PER)
        assume(_share(words, "/") < 1 and not any(w[-2:-1] == "_" for w in words))
    path = tmp_path_factory.mktemp("tagged") / "tagged.txt"
    path.write_text("".join(" ".join(w + sep + t for w, t in s) + "\n" for s in sentences),
                    encoding="utf-8")
    out = _round_trip(models[1], path, [[(w,) for w, _ in s] for s in sentences])
    pred = load_tagger(models[1]).predict([[(w,) for w, _ in s] for s in sentences])
    assert out.read_text(encoding="utf-8") == "".join(
        " ".join(w + sep + t for (w, _), t in zip(s, p)) + "\n" for s, p in zip(sentences, pred))


@given(st.lists(st.lists(st.tuples(WORDS, st.sampled_from(POS)), min_size=1, max_size=6),
                min_size=1, max_size=4), st.sampled_from(["/", "_"]), st.booleans())
@settings(max_examples=40, deadline=None)
def test_slash_and_underscore_text_without_a_tag_gets_one_line_for_line(
        models, tmp_path_factory, sentences, sep, blank):
    # word/POS given to a model of word and POS: no tag to replace, the predicted one is
    # added (word/POS/TAG) on the input's lines; before: written one token per line
    words = [w for s in sentences for w, _ in s]
    assume(any(len(s) >= 2 for s in sentences))
    assume(all(not set(w) & set("\\/_|[]") for w in words))   # separators, Penn's escape
    path = tmp_path_factory.mktemp("pos") / "pos.txt"
    lines = [" ".join(w + sep + p for w, p in s) for s in sentences]
    path.write_text("".join(line + ("\n\n" if blank else "\n") for line in lines),
                    encoding="utf-8")
    kept = [[(w, p) for w, p in s] for s in sentences]
    out = _round_trip(models[2], path, kept)
    pred = load_tagger(models[2]).predict(kept)
    assert out.read_text(encoding="utf-8") == "".join(
        " ".join(w + sep + p + sep + t for (w, p), t in zip(s, ts)) + ("\n\n" if blank else "\n")
        for s, ts in zip(sentences, pred))
    again = _predict(models[2], out)   # the tag written is replaced when predicted again
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_penn_pos_files_keep_their_brackets_separators_and_escapes(models, tmp_path):
    path = tmp_path / "wsj_0001.pos"
    path.write_text("======\n\n[ Pierre/NNP Vinken/NNP ]\n,/, \n\n1\\/2/CD years/NNS\n",
                    encoding="utf-8")
    p = load_tagger(models[1]).predict([[("Pierre",), ("Vinken",), (",",)],
                                        [("1/2",), ("years",)]])
    assert _predict(models[1], path).read_text(encoding="utf-8") == (
        f"======\n\n[ Pierre/{p[0][0]} Vinken/{p[0][1]} ]\n,/{p[0][2]} \n\n"
        f"1\\/2/{p[1][0]} years/{p[1][1]}\n")


#: JSON tokens: any text, quotes, backslashes and spaces inside included
JSON_WORDS = st.text(st.characters(categories=("L", "N", "P", "S", "Zs"), max_codepoint=0x2FFF),
                     min_size=1, max_size=6).filter(lambda w: w.strip() and w != "-DOCSTART-")


@given(st.lists(st.lists(st.tuples(JSON_WORDS, st.sampled_from(TAGS)), min_size=1, max_size=5),
                min_size=1, max_size=4),
       st.sampled_from([None, "ner_tags", "tags"]), st.booleans())
@settings(max_examples=40, deadline=None)
def test_json_lines_get_the_predicted_labels_as_a_field(models, tmp_path_factory, sentences,
                                                         field, pos):
    # the label field replaced, or (no label in the input) 'tags' added, or 'ner_tags'
    # after HuggingFace's pos_tags; the other fields as they were
    rows = []
    for k, s in enumerate(sentences):
        row = {"id": str(k), "tokens": [w for w, _ in s], "note": f"séance \"{k}\""}
        if pos:
            row["pos_tags"] = ["NNP"] * len(s)
        if field:
            row[field] = [t for _, t in s]
        rows.append(row)
    assume(not (pos and field == "tags"))   # two fields of a value per token, none standard
    path = tmp_path_factory.mktemp("jsonl") / "test.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    model = models[2 if pos else 1]
    kept = [[("_".join(w.split()),) + (("NNP",) if pos else ()) for w, _ in s]
            for s in sentences]
    out = _round_trip(model, path, kept)
    added = field or ("ner_tags" if pos else "tags")
    pred = load_tagger(model).predict(kept)
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == \
        [dict(r, **{added: p}) for r, p in zip(rows, pred)]


def test_json_lines_of_tag_ids_are_written_as_ids_by_their_names(models, tmp_path, capsys):
    rows = [{"tokens": ["Lotte", "sleeps"], "ner_tags": [1, 0]}, {"tokens": ["-DOCSTART-"]},
            {"tokens": ["in", "Paris"], "ner_tags": [0, 3]}]
    path = tmp_path / "test.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    names = tmp_path / "names.txt"
    names.write_text("\n".join(TAGS) + "\n", encoding="utf-8")
    pred = load_tagger(models[1]).predict([[("Lotte",), ("sleeps",)], [("in",), ("Paris",)]])
    out = [json.loads(t) for t in _predict(models[1], path, "--label-names", str(names))
           .read_text(encoding="utf-8").splitlines()]
    assert out[1] == rows[1] and [o["ner_tags"] for o in out[::2]] == \
        [[TAGS.index(t) for t in p] for p in pred]
    capsys.readouterr()
    out = [json.loads(t) for t in _predict(models[1], path).read_text().splitlines()]
    assert [o["ner_tags"] for o in out[::2]] == pred
    assert "'ner_tags' are integer ids; the predicted labels are written as names" in \
        capsys.readouterr().err
    names.write_text("O\nB-PER\n", encoding="utf-8")
    assert main(["tag", "predict", "-m", str(models[1]), "-i", str(path), "--label-names",
                 str(names), "-q"]) == 2
    assert "--label-names does not name every label of the model" in capsys.readouterr().err


UNER_WORDS = st.text(st.characters(categories=("L", "N", "P", "S"), max_codepoint=0x2FFF),
                     min_size=1, max_size=6)


def _uner(sentences, tags=None):
    """The text of a Universal NER file of ``sentences`` ((word, tag) pairs; the tags
    ``tags`` in their place when given)."""
    text = ""
    for k, s in enumerate(sentences):
        text += f"# sent_id = s{k}\n# text = {' '.join(w for w, _ in s)}\n"
        row = tags[k] if tags else [t for _, t in s]
        text += "".join(f"{i}\t{w}\t{t}\t-\t-\n" for i, ((w, _), t) in enumerate(zip(s, row), 1))
        text += "\n"
    return text


@given(st.lists(st.lists(st.tuples(UNER_WORDS, st.sampled_from(TAGS)), min_size=1, max_size=6),
                min_size=1, max_size=4).filter(lambda ss: any(len(s) >= 2 for s in ss)))
@settings(max_examples=30, deadline=None)
def test_universal_ner_files_are_read_and_written_back(models, tmp_path_factory, sentences):
    # before: refused as "column 1 numbers the tokens of every sentence", or, with its
    # '# sent_id' lines, as a comment
    path = tmp_path_factory.mktemp("uner") / "en_ewt-ud-test.iob2"
    path.write_text(_uner(sentences), encoding="utf-8")
    # UTF-8, said so: a short file of random words such as 'ºѡ' reads like Chinese in
    # GB18030 misread, which the readers refuse when not told
    with input_encoding("utf-8"):
        assert read_conll(path) == ([[(w,) for w, _ in s] for s in sentences],
                                    [[t for _, t in s] for s in sentences])
        out = _round_trip(models[1], path, [[(w,) for w, _ in s] for s in sentences],
                          "--encoding", "utf-8")
    pred = load_tagger(models[1]).predict([[(w,) for w, _ in s] for s in sentences])
    assert out.read_text(encoding="utf-8") == _uner(sentences, pred)


@pytest.mark.parametrize("text", [
    "1\tThe\tthe\tDT\t_\n2\tcat\tcat\tNN\t_\n\n1\tA\ta\tDT\t_\n\n",    # 5 columns, no NE tags
    "1\tThe\tO\t-\t-\t-\n2\tcat\tO\t-\t-\t-\n\n1\tA\tO\t-\t-\t-\n\n",   # 6 columns
    "1 Lotte B-PER - -\n2 sleeps O - -\n\n1 Er O - -\n\n"])             # not tab-separated
def test_index_first_files_that_are_not_universal_ner_are_refused(tmp_path, text):
    path = tmp_path / "indexed.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError, match=r"indexed.txt:1: column 1 numbers the tokens of "
                                          r"every sentence"):
        read_conll(path)


def test_a_universal_ner_line_out_of_place_is_named(tmp_path):
    path = tmp_path / "en.iob2"
    path.write_text("1\tLotte\tB-PER\t-\t-\n2\tsleeps\tO\t-\t-\n\n1\tEr\tO\t-\t-\n3\tläuft\tO"
                    "\t-\t-\n\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"en.iob2:5: expected a Universal NER word line .* "
                                          r"the ID '3'"):
        read_conll(path)


@pytest.mark.parametrize("text", ["The_DT jury_NN said_VBD ._.\nIt_PRP is_VBZ\n",
                                  "the_ATI jury_NN said_VBD\n1\\/2_CD of_IN-TL New_York_NP\n"])
def test_underscore_tagged_lines_are_read_as_words_and_tags(tmp_path, text):
    # the Brown/LOB/ICE convention and the Stanford tagger's output (before: refused as
    # "every token is written word_TAG"): split at the last '_'
    path = tmp_path / "tagged.txt"
    path.write_text(text, encoding="utf-8")
    X, y = read_conll(path)
    assert [[w for w, in s] for s in X] == [[t.rsplit("_", 1)[0] for t in line.split()]
                                            for line in text.splitlines()]
    assert y == [[t.rsplit("_", 1)[1] for t in line.split()] for line in text.splitlines()]
