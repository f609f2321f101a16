"""``tag predict`` keeps its input line for line (``-DOCSTART-`` lines, runs of blank lines,
CoNLL-U comments), warns of a feature column whose values overlap little with training's
(another third column), and names a CoNLL-U file of comment lines alone as holding no
sentences."""

import contextlib
import io
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import test_predict_layouts as _shared

from sequence.data import read_conll
from sequence.model import SequenceTagger, load_tagger
from structpred.cli import main

#: two perceptron taggers, of the word alone and of the word and its POS (a fixture)
models = _shared.models
POS, TAGS = _shared.POS, _shared.TAGS

#: letters only: words of digits 1, 2, 3 would be refused as an index column
WORDS = st.text(st.characters(categories=("L",), max_codepoint=0x7A), min_size=1,
                max_size=5)
#: a word line's (word, POS, label); a run of blank lines; a -DOCSTART- line; a comment
ITEM = st.one_of(st.tuples(WORDS, st.sampled_from(POS), st.sampled_from(TAGS)),
                 st.integers(1, 3), st.just("docstart"), st.just("comment"))


def _file(items, conllu, labelled):
    """The lines of a column file (``word POS [TAG]``) or a CoNLL-U file of ``items``."""
    lines, k = [], 0
    for item in items:
        if isinstance(item, int):
            lines += [""] * item
            k = 0
        elif item == "docstart":
            if not conllu:
                lines.append("-DOCSTART- -X- O" if labelled else "-DOCSTART- -X-")
                k = 0
        elif item == "comment":
            if conllu and k == 0:
                lines.append("# sent_id = s1")
        elif conllu:
            k += 1
            lines.append("\t".join([str(k), item[0], "_", item[1], "_", "_", "0", "_", "_",
                                    "_"]))
        else:
            lines.append(" ".join(item if labelled else item[:2]))
    return lines


@given(st.lists(ITEM, min_size=1, max_size=14), st.booleans(), st.booleans(), st.booleans())
@settings(max_examples=25, deadline=None)
def test_predict_output_lines_up_with_its_input(models, tmp_path_factory, items, conllu,
                                                 labelled, final_newline):
    # before: -DOCSTART- lines and runs of blank lines were dropped (a blank line after
    # each sentence only), so the output no longer lined up with the input
    lines = _file(items, conllu, labelled)
    if not any(line and not line.startswith(("#", "-DOCSTART-")) for line in lines):
        return   # no word line: refused as holding no sentences (below)
    path = tmp_path_factory.mktemp("align") / ("in.conllu" if conllu else "in.txt")
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()   # the last "" without its "\n"
    model = models[1 if conllu else 2]
    out = _shared._predict(model, path)
    written = out.read_text(encoding="utf-8").split("\n")
    assert written[-1] == ""
    written = written[:-1]
    assert len(written) == len(lines)
    for given_line, out_line in zip(lines, written):
        assert given_line.split()[:1] == out_line.split()[:1]
    X, y = read_conll(out)   # tag eval and tag train read it back
    kept = [[tok[:1] if conllu else tok[:2] for tok in s]
            for s in read_conll(path, labelled=False)[0]]
    assert X == kept and y == load_tagger(model).predict(kept)


NER = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG"]
CHUNKS = ["B-NP", "I-NP", "B-VP", "O", "B-PP"]


@pytest.fixture(scope="module")
def chunk_model(tmp_path_factory):
    """A perceptron tagger of ``word POS chunk`` (labels: NER tags), and its training file."""
    folder = tmp_path_factory.mktemp("chunk")
    X = [[(w, POS[(i + j) % 4], CHUNKS[(i * j + j) % 5]) for j, w in enumerate(s)]
         for i, s in enumerate(_shared.TRAIN * 10)]
    y = [[("O", "B-PER", "B-LOC", "O", "B-ORG")[(i + j) % 5] for j in range(len(s))]
         for i, s in enumerate(X)]
    path = folder / "train.txt"
    path.write_text("".join("".join(" ".join(t) + f" {g}\n" for t, g in zip(s, gs)) + "\n"
                            for s, gs in zip(X, y)), encoding="utf-8")
    model = folder / "m.npz"
    SequenceTagger(learner="perceptron", n_iter=1).fit(X, y).save(model)
    return model, path


def _overlap_warnings(model, path, command, out):
    """The overlap warnings of ``tag predict`` (output to ``out``) or ``tag eval``."""
    args = (["-i", str(path), "-o", str(out)] if command == "predict"
            else ["--data", str(path)])
    err = io.StringIO()
    with contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("always")   # the same warning of predict and eval: both said
        assert main(["tag", command, "-m", str(model), "-q", *args]) == 0
    return [line for line in err.getvalue().splitlines() if "seldom saw" in line]


@given(st.lists(st.sampled_from(NER), min_size=50, max_size=80),
       st.sampled_from([0.0, 0.3, 0.45]))
@settings(max_examples=8, deadline=None)
def test_another_third_column_is_warned_of(chunk_model, tmp_path_factory, tags, share):
    # before: only column 2 was checked; a word POS NER file given to a model of
    # word POS chunk was tagged silently from chunk features it never saw
    model, _ = chunk_model
    n_known = int(share * len(tags))
    third = [CHUNKS[k % 5] for k in range(n_known)] + [t if t != "O" else "B-MISC"
                                                        for t in tags[n_known:]]
    path = tmp_path_factory.mktemp("ner") / "test.txt"
    path.write_text("".join(f"w{k} {POS[k % 4]} {t}\n" + ("\n" if k % 7 == 6 else "")
                            for k, t in enumerate(third)), encoding="utf-8")
    for command in "predict", "eval":
        if command == "eval":   # labelled: a fourth column
            path.write_text("".join(f"w{k} {POS[k % 4]} {t} {NER[k % 6]}\n"
                                    + ("\n" if k % 7 == 6 else "")
                                    for k, t in enumerate(third)), encoding="utf-8")
        found = _overlap_warnings(model, path, command, path.parent / "out.txt")
        assert found == [found[0]]
        assert found[0].startswith(f"structpred: warning: {path}: column 3 holds")
        assert "\n" not in found[0] and f"({n_known} of {len(third)} tokens known" in found[0]


def test_ner_sharing_only_o_with_the_chunk_tags_is_warned_of(chunk_model, tmp_path):
    # most tokens O, a value the chunk column holds too: more than half the tokens are
    # known, but of the values that recur only O is
    model, _ = chunk_model
    third = (["O"] * 5 + ["B-PER", "I-PER", "B-LOC", "O", "B-MISC"]) * 6
    path = tmp_path / "ner.txt"
    path.write_text("".join(f"w {POS[k % 4]} {t}\n" + ("\n" if k % 9 == 8 else "")
                            for k, t in enumerate(third)), encoding="utf-8")
    found = _overlap_warnings(model, path, "predict", tmp_path / "out.txt")
    assert len(found) == 1 and "column 3 holds" in found[0] and "B-" in found[0]


def test_no_overlap_warning_on_the_training_file_and_the_bundled_data(chunk_model, tmp_path):
    model, train = chunk_model
    out = tmp_path / "out.txt"
    assert _overlap_warnings(model, train, "predict", out) == []
    assert _overlap_warnings(model, train, "eval", out) == []
    data = Path(_shared.__file__).resolve().parents[2] / "data" / "sequence"
    X, y = read_conll(data / "conll2000-train-300.txt.gz")
    bundled = tmp_path / "conll.npz"
    SequenceTagger(learner="perceptron", n_iter=1).fit(X[:100], y[:100]).save(bundled)
    for name in "conll2000-train-300.txt.gz", "conll2000-test-100.txt.gz":
        assert _overlap_warnings(bundled, data / name, "predict", out) == []
        assert _overlap_warnings(bundled, data / name, "eval", out) == []


@pytest.mark.parametrize("text", ["# sent_id = 1\n# text = Hello world .\n\n",
                                  "# newdoc id = d1\n# sent_id = 1\n",
                                  "# a comment\n#\n\n# another one\n"])
@pytest.mark.parametrize("command", ["train", "predict", "eval"])
def test_a_file_of_comment_lines_has_no_sentences(models, tmp_path, capsys, text, command):
    # before: "expected 4 columns, found 6 (line 1 has 4); line 1 starts with '#': a comment?"
    path = tmp_path / "only-comments.conllu"
    path.write_text(text, encoding="utf-8")
    args = {"train": ["--data", str(path), "-o", str(tmp_path / "m.npz")],
            "predict": ["-m", str(models[1]), "-i", str(path)],
            "eval": ["-m", str(models[1]), "--data", str(path)]}[command]
    assert main(["tag", command, *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"structpred: error: {path}: no sentences found")
    assert "a comment?" not in err[0]
