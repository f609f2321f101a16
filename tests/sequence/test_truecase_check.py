"""The truecasing check of ``benchmarks/bench_sequence.py`` (a task no default was chosen
on, docs/results/sequence.md): the labels are the words' letter case, and the tokens carry
no case, so nothing of the label leaks into the features."""

import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "bench_sequence", ROOT / "benchmarks" / "bench_sequence.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

LETTERS = st.characters(categories=("Ll",)).filter(lambda c: c.upper() != c
                                                   and c.upper().lower() == c
                                                   and len(c.upper()) == 1)


def test_case_classes_of_examples():
    cases = {"praha": "lower", "Praha": "Title", "ČR": "UPPER", "McDonald": "mixed",
             "1991": "none", ",": "none", "A": "Title", "iPhone": "mixed", "Žluťoučký": "Title",
             "2x": "lower", "X-ray": "Title", "NATO-": "UPPER"}
    assert {w: bench.case_class(w) for w in cases} == cases


@given(st.text(LETTERS, min_size=1, max_size=8), st.text("0123456789-.'", max_size=3))
def test_each_casing_of_a_word_gets_its_class(word, tail):
    assert bench.case_class(word + tail) == "lower"
    assert bench.case_class(word[0].upper() + word[1:] + tail) == "Title"
    assert bench.case_class(word.upper() + tail) == ("UPPER" if len(word) > 1 else "Title")
    assert bench.case_class(tail) == "none"
    if len(word) > 1:
        assert bench.case_class(word[:-1] + word[-1].upper() + tail) == "mixed"


def test_tokens_are_lower_case_and_labels_their_case(tmp_path):
    folder = tmp_path / "alignment" / "czech_en-cs"
    folder.mkdir(parents=True)
    import gzip
    lines = [f"Věta {i} v Praze , ČR ." for i in range(10003)] + [""]
    with gzip.open(folder / "bitext.cs.gz", "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    X, y, Xt, yt = bench.truecase_task("czech", tmp_path)
    assert (len(X), len(Xt)) == (10000, 3)      # the empty line is dropped
    assert X[0] == [("věta",), ("0",), ("v",), ("praze",), (",",), ("čr",), (".",)]
    assert y[0] == ["Title", "none", "lower", "Title", "none", "UPPER", "none"]
