"""Refusals that named the wrong cause, or came too late (issue 28, docs/errors.md), by class:

- shape: a document-term matrix of 0, 1, 3 or more dimensions given to a text classifier
  showed scikit-learn's "Found array with dim 3 ... required by NBSVM"; rows of different
  lengths showed numpy's "inhomogeneous shape after 1 dimensions";
- meaning: a link score that is not a number (``0-0:nan``, ``0-0:inf``, ``0-0:0,5``) was a
  "malformed link (expected 'i-j' or 'i?j')", while ``0-0:1.5`` was named as a score outside
  [0, 1];
- options that are ignored: ``MRFSegmenter(guard=False, edge_factors=(2,))`` (or with
  ``use_edges=False``) trained without them, while the command line refuses
  ``--edge-factors`` with ``--no-guard``;
- order: a parameter that only the estimator refuses (``topics train --model lda-svm
  --n-topics 1``, ``--param C=-1``) came after the progress lines; the hyperparameters are
  now checked before any data is read.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import DOCS, one_line_error, run_cli

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])



def _estimators():
    from topics import LDA, NBSVM, SdemNaiveBayes
    return [NBSVM(), SdemNaiveBayes(), LDA(n_topics=2, n_iter=1)]


# ------------------------------------------------------------- class: shape of a matrix
@SETTINGS
@given(shape=st.one_of(st.just(()), st.lists(st.integers(1, 3), min_size=1, max_size=1),
                       st.lists(st.integers(1, 3), min_size=3, max_size=4)))
def test_a_matrix_of_other_than_two_dimensions_is_named(shape):
    X = np.ones(tuple(shape))
    for est in _estimators():
        with pytest.raises(ValueError, match=r"2-D document-term matrix.*got (a )?%d-D"
                           % len(shape)):
            est.fit(X, [0, 1, 0])


@SETTINGS
@given(lengths=st.lists(st.integers(1, 4), min_size=2, max_size=5).filter(
    lambda ls: len(set(ls)) > 1))
def test_rows_of_different_lengths_are_named(lengths):
    X = [[1] * n for n in lengths]
    first_off = next(i for i, n in enumerate(lengths) if n != lengths[0])
    y = [i % 2 for i in range(len(lengths))]
    for est in _estimators():
        with pytest.raises(ValueError, match=f"rows differ in length .*row 0 has "
                           f"{lengths[0]} values, row {first_off} has {lengths[first_off]}"):
            est.fit(X, y)


# ------------------------------------------------------------- class: a link's score
@SETTINGS
@given(score=st.one_of(st.sampled_from(["nan", "NaN", "inf", "-inf", "0,5", "1.5", "-0.1",
                                        "1e3", "abc", "½"]),
                       st.text(st.characters(blacklist_categories=("Zs", "Cc", "Cs", "Zl",
                                                                   "Zp")),
                               min_size=1, max_size=6).filter(
                           # S or P after the colon is a sure/possible label, named as such
                           lambda s: not _probability(s) and s not in ("S", "P", "s", "p"))))
def test_a_score_that_is_not_a_probability_is_named(tmp_path_factory, score):
    d = tmp_path_factory.mktemp("aer")
    (d / "gold").write_text("0 1 1 S\n")
    (d / "test").write_text(f"0-0:{score}\n", encoding="utf-8")
    import contextlib
    import io

    from structpred.cli import main
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["aer", "--gold", str(d / "gold"), "--gold-format", "naacl", "--test",
                   str(d / "test")])
    assert one_line_error(rc, err.getvalue(), "test:1", "is not a probability in [0, 1]"), \
        err.getvalue()


def _probability(s):
    try:
        return 0.0 <= float(s) <= 1.0
    except ValueError:
        return False


# ------------------------------------------------------------- class: ignored options
@pytest.mark.parametrize("kw,cause", [({"guard": False}, "guard=False"),
                                      ({"use_edges": False}, "use_edges=False")])
def test_edge_factors_without_the_guard_or_edges_are_refused(kw, cause):
    from segmentation.model import DEFAULT_EDGE_FACTORS, MRFSegmenter
    with pytest.raises(ValueError, match=f"edge_factors=.*{cause}"):
        MRFSegmenter(edge_factors=(2.0,), **kw)._check_params()
    # the default factors and none at all stay valid without the guard
    MRFSegmenter(edge_factors=DEFAULT_EDGE_FACTORS, **kw)._check_params()
    MRFSegmenter(edge_factors=(), **kw)._check_params()
    MRFSegmenter(edge_factors=(2.0,))._check_params()


# ------------------------------------------------------------- class: order of messages
@pytest.mark.parametrize("extra,words", [
    (["--model", "lda-svm", "--n-topics", "1"], ("lda-svm", "n_topics must be >= 2")),
    (["--model", "lda-svm", "--param", "C=-1"], ("lda-svm", "C must be")),
    (["--model", "nbsvm", "--param", "C=-1"], ("nbsvm", "C must be")),
    (["--model", "sdem-nb", "--param", "prior=\"uniform\""], ("sdem-nb", "prior must be")),
    (["--model", "sdem-lda", "--param", "eta=-1"], ("sdem-lda", "eta")),
    (["--model", "pamedlda", "--param", "c=-1"], ("pamedlda", "c must be")),
])
def test_a_parameter_the_estimator_refuses_is_the_only_line(tmp_path, capsys, extra, words):
    """Without ``-q``: no "read 12 documents" line before the refusal, and no model."""
    (tmp_path / "docs.tsv").write_text(DOCS)
    rc, _, err = run_cli(["topics", "train", "--data", str(tmp_path / "docs.tsv"), "-o",
                          str(tmp_path / "m.npz"), *extra], capsys)
    assert one_line_error(rc, err, *words), err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_label_that_is_not_a_number_is_named_by_its_document(bad):
    """``y`` holding NaN showed scikit-learn's "Input y contains NaN"."""
    from topics import NBSVM, SdemNaiveBayes
    docs = ["apple banana cherry", "dog eel fox"] * 5
    for est in (NBSVM(), SdemNaiveBayes()):
        with pytest.raises(ValueError, match=r"y\[1\] is (nan|inf): every document needs a label"):
            est.fit(docs, [1.0, bad] * 5)


# ------------------------------------------------------------- class: gold of other sentences
def _pairs(n=8):
    return [(["w"] * (3 + i % 2), ["v"] * (3 + i % 3)) for i in range(n)]


@pytest.mark.parametrize("naacl", [True, False])
def test_gold_of_other_sentences_is_named_as_such(tmp_path, naacl):
    """Gold written for longer sentences (another file's): the range error of its first line
    now says that many sentences' links fall outside them (it named one position only)."""
    from alignment.data.formats import read_naacl, read_pharaoh
    from structpred.io import FormatError

    pairs = _pairs()
    path = tmp_path / "g.txt"
    if naacl:
        path.write_text("".join(f"{s + 1} {p} {p} S\n" for s in range(8) for p in (1, 7)))
    else:
        path.write_text("".join("0-0 6-6\n" for _ in range(8)))
    read = read_naacl if naacl else read_pharaoh
    with pytest.raises(FormatError, match=r"the links of 8 of its 8 sentences fall outside "
                                          r"them: is this the gold of other sentences"):
        read(path, pairs=pairs)
    # one bad line among good ones keeps the plain message
    if naacl:
        path.write_text("".join(f"{s + 1} 1 1 S\n" for s in range(8)) + "3 9 1 S\n")
    else:
        path.write_text("0-0\n" * 2 + "0-9\n" + "0-0\n" * 5)
    with pytest.raises(FormatError) as err:
        read(path, pairs=pairs)
    assert "out of range" in str(err.value) and "other sentences" not in str(err.value)


# ------------------------------------------------------------- class: sizes against memory
def test_a_bitext_whose_token_pairs_cannot_fit_in_memory_is_refused_before_the_statistics(
        tmp_path, capsys, monkeypatch):
    """The statistics keep about 12 bytes per token pair (source x target words of every
    pair): a bitext beyond the machine's memory was killed or swapped deep inside them."""
    import structpred

    (tmp_path / "a.en").write_text("the house is small\ni agree\n" * 20)
    (tmp_path / "a.fr").write_text("la maison est petite\nje suis d' accord\n" * 20)
    (tmp_path / "g.txt").write_text("0-0 1-1 2-2 3-3\n0-0 1-1\n" * 20)
    monkeypatch.setattr(structpred, "physical_memory", lambda: 1000)
    argv = ["align", "train", "--src", str(tmp_path / "a.en"), "--tgt", str(tmp_path / "a.fr"),
            "--gold", str(tmp_path / "g.txt"), "--bitext-src", str(tmp_path / "a.en"),
            "--bitext-tgt", str(tmp_path / "a.fr"), "-o", str(tmp_path / "m.npz")]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "a.en", "480 token pairs", "--bitext-pairs",
                          "--max-length"), err
    assert not (tmp_path / "m.npz").exists()


def test_align_unsupervised_checks_the_token_pairs_against_memory(tmp_path, capsys,
                                                                  monkeypatch):
    import structpred

    (tmp_path / "a.en").write_text("the house is small\ni agree\n" * 20)
    (tmp_path / "a.fr").write_text("la maison est petite\nje suis d' accord\n" * 20)
    monkeypatch.setattr(structpred, "physical_memory", lambda: 1000)
    rc, _, err = run_cli(["align", "unsupervised", "--src", str(tmp_path / "a.en"), "--tgt",
                          str(tmp_path / "a.fr"), "-o", str(tmp_path / "out.txt")], capsys)
    assert one_line_error(rc, err, "a.en", "480 token pairs", "--max-len"), err
    assert not (tmp_path / "out.txt").exists()


@SETTINGS
@given(mark=st.sampled_from(["\u200f", "\u200b", "\u00ad", "\u2060", "\u200e\u200f"]),
       where=st.integers(0, 2))
def test_a_tag_token_of_invisible_characters_only_is_refused(tmp_path_factory, mark, where):
    """A line whose word is a right-to-left mark (or another format character) alone was
    read as a word, as the aligners' readers already refuse."""
    from sequence.data import read_conll
    from structpred.io import FormatError

    words = ["the", "big", "cat"]
    words[where] = mark
    path = tmp_path_factory.mktemp("inv") / "d.txt"
    path.write_text("".join(f"{w} X\n" for w in words) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match=rf"d\.txt:{where + 1}: a token of invisible "
                                          r"characters only"):
        read_conll(path)


@SETTINGS
@given(n=st.integers(3, 10), data=st.data())
def test_the_other_sentences_hint_follows_the_share_of_sentences_out_of_range(tmp_path_factory,
                                                                              n, data):
    """Any number of gold sentences and any of them with a link past their pair: a range
    error always, and the hint exactly when a quarter or more of them are out of range."""
    from alignment.data.formats import read_pharaoh
    from structpred.io import FormatError

    pairs = [(["w"] * 3, ["v"] * 3)] * n
    bad = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    path = tmp_path_factory.mktemp("gold") / "g.txt"
    path.write_text("".join("0-0 5-5\n" if i in bad else "0-0 1-1\n" for i in range(n)))
    with pytest.raises(FormatError) as err:
        read_pharaoh(path, pairs=pairs)
    assert f"g.txt:{min(bad) + 1}: source position 5 out of range" in str(err.value)
    hinted = f"the links of {len(bad)} of its {n} sentences fall outside them" in str(err.value)
    assert hinted == (len(bad) >= 0.25 * n), str(err.value)


@SETTINGS
@given(lengths=st.lists(st.tuples(st.integers(1, 120), st.integers(1, 120)), min_size=1,
                        max_size=30),
       limit=st.integers(1, 100), memory=st.integers(1, 10**6), bayes=st.booleans())
def test_the_bitext_memory_check_counts_the_token_pairs_within_the_limit(monkeypatch, lengths,
                                                                         limit, memory, bayes):
    """Refused exactly when 12 bytes per token pair (38, as measured, with our Bayesian
    aligner on the bitext) of the pairs within the length limit exceed the machine's memory;
    pairs beyond the limit are not counted."""
    import structpred
    from alignment.cli.common import (BYTES_PER_TOKEN_PAIR, BYTES_PER_TOKEN_PAIR_WITH_BAYES,
                                      check_bitext_memory)
    from structpred.cli import UserError

    monkeypatch.setattr(structpred, "physical_memory", lambda: memory)
    bt = [(["a"] * m, ["b"] * k) for m, k in lengths]
    cells = sum(m * k for m, k in lengths if m <= limit and k <= limit)
    per = BYTES_PER_TOKEN_PAIR_WITH_BAYES if bayes else BYTES_PER_TOKEN_PAIR
    if cells * per > memory:
        with pytest.raises(UserError, match=re.escape(f"the bitext has {cells:.3g} token "
                                                      "pairs") + f".*--max-length {limit}"
                           + f".*\\({per} bytes each\\)"
                           + (".*--aligners none" if bayes else "")):
            check_bitext_memory(bt, limit, "--max-length", "b.en", bayes)
    else:
        check_bitext_memory(bt, limit, "--max-length", "b.en", bayes)


def test_align_train_checks_the_memory_of_its_bayesian_run(monkeypatch, tmp_path, capsys):
    """``align train`` with its default sources checks the bitext at the measured 38 bytes
    a token pair, and at the statistics' 12 with ``--aligners none``."""
    import structpred
    from cli_helpers import one_line_error, run_cli

    src, tgt = tmp_path / "b.en", tmp_path / "b.fr"
    src.write_text("a b c\n" * 10)
    tgt.write_text("x y z\n" * 10)
    gold = tmp_path / "g"
    gold.write_text("0-0\n" * 10)
    monkeypatch.setattr(structpred, "physical_memory", lambda: 90 * 20)   # 90 token pairs
    base = ["align", "train", "--src", str(src), "--tgt", str(tgt), "--gold", str(gold),
            "--bitext-src", str(src), "--bitext-tgt", str(tgt),
            "--cache-dir", str(tmp_path / "c"), "-o", str(tmp_path / "m.npz"), "-q"]
    rc, _, err = run_cli(base, capsys)
    assert one_line_error(rc, err, "b.en", "90 token pairs", "38 bytes each",
                          "--aligners none"), err
    monkeypatch.setattr(structpred, "physical_memory", lambda: 90 * 11)
    rc, _, err = run_cli(base + ["--aligners", "none"], capsys)
    assert one_line_error(rc, err, "90 token pairs", "12 bytes each"), err
