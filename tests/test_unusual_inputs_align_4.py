"""Unusual inputs of the word-alignment side, fourth sweep (docs/errors.md), by class:

- fast_align lines with a second ``|||`` or a ``||||``: split at the first one, a side
  gained a token ``|||`` or ``|`` and every later link shifted by one;
- decimal options written with ``_`` (``--threshold 0_1`` was read as 1.0);
- options the chosen model does not use (``--decoder``/``--pair-candidates`` with model M,
  ``align predict --decoder`` with a model M, ``align unsupervised --bitext-pairs`` without
  the bitext) were silently ignored;
- gold with possible links only given for training (the model learnt to predict no link);
- ``MatchingAligner`` arguments: hyperparameters (NaN costs, ``max_fertility=2.5``,
  negative seeds: numpy's or the learner's words), gold given as a generator (``len()``
  of a generator), ``eval_set`` of the wrong shape or length, tokens that are not strings
  (an ``AttributeError`` on ``.lower()``, ``ord()``'s error for bytes);
- sentences longer than :data:`structpred.io.MAX_WORDS` words (a 5,000-word line ran for
  hours in one compiled call that SIGTERM and Ctrl-C could not stop).
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from alignment import MatchingAligner
from alignment.data.formats import Alignment, read_fast_align
from structpred import FormatError
from structpred.io import MAX_WORDS, check_sentence_pairs

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

WORDS = st.lists(st.text("abcxyzé", min_size=1, max_size=4), min_size=1, max_size=4)
SRC = ["the house is small .", "i agree ."]
TGT = ["la maison est petite .", "je suis d' accord ."]


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def texts(tmp_path):
    return _write(tmp_path / "a.en", SRC), _write(tmp_path / "a.fr", TGT)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """Model M fitted for 2 iterations on 2 pairs with statistics of the same pairs."""
    from alignment.stats.statistics import AlignmentStatistics

    pairs = [(s.split(), t.split()) for s, t in zip(SRC, TGT)]
    stats = AlignmentStatistics.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                              verbose=False)
    gold = [[(0, 0), (1, 1)], [(0, 0)]]
    path = tmp_path_factory.mktemp("model") / "m.npz"
    MatchingAligner(n_iter=2).fit(pairs, gold, stats=stats).save(path)
    return str(path)


# ------------------------------------------------- class: fast_align separators
@SETTINGS
@given(src=WORDS, tgt=WORDS, extra=st.sampled_from(["|||", "||||", "|||||"]),
       where=st.sampled_from(["src", "tgt", "sep", "start", "end"]))
def test_a_line_with_more_than_one_separator_is_refused(tmp_path, src, tgt, extra, where):
    """One ``|||`` splits the sides; any other run of three bars or more is refused with
    the line (it was read as a token of one side, shifting the links)."""
    assume(not (where == "sep" and extra == "|||"))
    good = _write(tmp_path / "good.txt", [f"{' '.join(src)} ||| {' '.join(tgt)}"])
    assert read_fast_align(good) == [(src, tgt)]
    sep = extra if where == "sep" else "|||"
    line = {"src": f"{src[0]} {extra} {' '.join(src)} {sep} {' '.join(tgt)}",
            "tgt": f"{' '.join(src)} {sep} {' '.join(tgt)} {extra} {tgt[0]}",
            "sep": f"{' '.join(src)} {sep} {' '.join(tgt)}",
            "start": f"{extra} {' '.join(src)} {sep} {' '.join(tgt)}",
            "end": f"{' '.join(src)} {sep} {' '.join(tgt)} {extra}"}[where]
    bad = _write(tmp_path / "bad.txt", ["a ||| b", line])
    with pytest.raises(FormatError, match=re.escape("bad.txt:2: ") + ".*one '[|]{3}'"):
        read_fast_align(bad)


def test_align_unsupervised_refuses_a_doubled_separator(tmp_path, capsys):
    path = _write(tmp_path / "x.txt", ["a b ||| x y", "a ||| ||| x"])
    rc, out, err = run_cli(["align", "unsupervised", "-i", path, "-q"], capsys)
    assert one_line_error(rc, err, "x.txt:2:", "'|||'"), err
    assert out == ""


# ---------------------------------------------- class: decimals written with '_'
FLOAT_OPTIONS = [(["align", "unsupervised", "--src", "{s}", "--tgt", "{t}"], "--threshold"),
                 (["align", "unsupervised", "--src", "{s}", "--tgt", "{t}", "--with",
                   "eflomal"], "--eflomal-weight"),
                 (["align", "unsupervised", "--src", "{s}", "--tgt", "{t}", "--model",
                   "bayes"], "--null-prob"),
                 (["align", "train", "--src", "{s}", "--tgt", "{t}", "--gold", "{s}", "-o",
                   "{d}/m.npz"], "--c-pos"),
                 (["align", "train", "--src", "{s}", "--tgt", "{t}", "--gold", "{s}", "-o",
                   "{d}/m.npz"], "--possible-cost")]


@SETTINGS
@given(case=st.sampled_from(FLOAT_OPTIONS),
       digits=st.lists(st.text("0123456789", min_size=1, max_size=2), min_size=2,
                       max_size=3))
def test_a_decimal_written_with_underscores_is_refused(texts, tmp_path, capsys, case,
                                                        digits):
    """``0_1`` is 1.0 to Python (``0.1`` mistyped): refused naming the option."""
    argv, option = case
    value = "_".join(digits)
    argv = [a.format(s=texts[0], t=texts[1], d=tmp_path) for a in argv]
    rc, _, err = run_cli(argv + [option, value, "-q"], capsys)
    assert one_line_error(rc, err, option, repr(value)), err
    assert not (tmp_path / "m.npz").exists()


# -------------------------------------------------- class: options left unused
def test_train_refuses_the_decoding_options_of_plus_q_models_for_model_m(texts, tmp_path,
                                                                        capsys):
    for extra in (["--model", "M", "--decoder", "pulp"],
                  ["--model", "M+F", "--pair-candidates", "likely"],
                  ["--decoder", "lp"]):                        # auto without validation: M
        rc, _, err = run_cli(["align", "train", "--src", texts[0], "--tgt", texts[1],
                              "--gold", _write(tmp_path / "g.txt", ["0-0", "0-0"]),
                              "--bitext-src", texts[0], "--bitext-tgt", texts[1],
                              "--aligners", "none", "--iterations", "2", "--c-neg", "3",
                              "-o", str(tmp_path / "m.npz"), "-q"] + extra, capsys)
        assert one_line_error(rc, err, extra[-2], "+Q"), (extra, err)
        assert not (tmp_path / "m.npz").exists()


def test_predict_refuses_a_decoder_for_a_model_without_interactions(tiny_model, texts,
                                                                    tmp_path, capsys):
    out = tmp_path / "links"
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", texts[0], "--tgt",
                          texts[1], "--decoder", "pulp", "-o", str(out), "-q"], capsys)
    assert one_line_error(rc, err, "--decoder", "model M"), err
    assert not out.exists()


def test_unsupervised_refuses_bitext_pairs_without_a_bitext(texts, capsys):
    rc, out, err = run_cli(["align", "unsupervised", "--src", texts[0], "--tgt", texts[1],
                            "--bitext-pairs", "5", "-q"], capsys)
    assert one_line_error(rc, err, "--bitext-pairs", "--bitext-src"), err
    assert out == ""


# ------------------------------------------- class: gold with possible links only
@SETTINGS
@given(links=st.lists(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)),
                               max_size=3), min_size=2, max_size=2),
       naacl=st.booleans())
def test_training_gold_without_a_sure_link_is_refused(texts, tmp_path, capsys, links, naacl):
    """Every link possible (NAACL ``P``, Pharaoh ``i?j``), or none: the target is empty."""
    if naacl:
        gold = _write(tmp_path / "g.naacl", [f"{i + 1} {j + 1} {k + 1} P"
                                             for i, ls in enumerate(links) for j, k in ls])
    else:
        gold = _write(tmp_path / "g.txt", [" ".join(f"{j}?{k}" for j, k in ls)
                                           for ls in links])
    bitext = ["--bitext-src", texts[0], "--bitext-tgt", texts[1]]
    rc, _, err = run_cli(["align", "train", "--src", texts[0], "--tgt", texts[1], "--gold",
                          gold, "--allow-unaligned", "-o", str(tmp_path / "m.npz"), "-q",
                          "--aligners", "none"] + bitext, capsys)
    assert one_line_error(rc, err, gold, "no "), err
    assert not (tmp_path / "m.npz").exists()
    pairs = [(s.split(), t.split()) for s, t in zip(SRC, TGT)]
    possible = [Alignment(sure=set(), possible=set(ls)) for ls in links]
    with pytest.raises(ValueError, match="gold holds no"):
        MatchingAligner().fit(pairs, possible, stats=object())
    with pytest.raises(ValueError, match="eval_set gold holds no"):
        MatchingAligner().fit(pairs, [[(0, 0)]] * 2, stats=object(),
                              eval_set=(pairs, possible))


# ------------------------------------------- class: MatchingAligner's arguments
BAD_PARAMS = st.one_of(
    st.tuples(st.sampled_from(["cost_pos", "cost_neg", "possible_cost", "regularization"]),
              st.one_of(st.floats(max_value=-1e-9), st.just(float("nan")),
                        st.just(float("inf")), st.just("3"), st.booleans())),
    st.tuples(st.sampled_from(["max_fertility", "validate_every", "patience"]),
              st.one_of(st.integers(max_value=0), st.floats(0.5, 5.5).filter(
                  lambda x: x != int(x)), st.booleans())),
    st.tuples(st.just("random_state"), st.one_of(st.integers(max_value=-1),
                                                 st.just(1.5), st.just("0"))),
    st.tuples(st.sampled_from(["learning_rate", "radius"]),
              st.one_of(st.floats(max_value=0), st.just(float("nan")))))


@SETTINGS
@given(bad=BAD_PARAMS)
def test_matching_aligner_names_a_bad_hyperparameter_before_any_work(bad):
    name, value = bad
    pairs = [(["a"], ["x"])]
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        MatchingAligner(**{name: value}).fit(pairs, [[(0, 0)]], stats=object())


@SETTINGS
@given(token=st.one_of(st.integers(), st.binary(min_size=1, max_size=3), st.none(),
                       st.floats(allow_nan=False)),
       side=st.integers(0, 1), where=st.integers(0, 2))
def test_a_token_that_is_not_a_string_is_named(token, side, where):
    pair = [["a", "b"], ["x", "y"]]
    pair[side].insert(where, token)
    for call in (lambda: MatchingAligner().predict([tuple(pair)]),
                 lambda: MatchingAligner().fit([tuple(pair)], [[(0, 0)]], stats=object())):
        with pytest.raises(TypeError, match="sentence pair 0: .* token .* is not a string"):
            call()
    with pytest.raises(TypeError, match="sentence pair 0: the source side must be a list of "
                                        "tokens, got None"):
        check_sentence_pairs([(None, ["x"])])


def test_gold_and_eval_set_of_other_shapes(small_stats):
    pairs = [(["the", "house"], ["la", "maison"]), (["yes"], ["oui"])]
    gold = [[(0, 0), (1, 1)], [(0, 0)]]
    model = MatchingAligner(n_iter=2).fit(pairs, iter(gold), stats=small_stats,
                                          eval_set=(pairs, (g for g in gold)))
    assert model.predict(pairs) == MatchingAligner(n_iter=2).fit(
        pairs, gold, stats=small_stats, eval_set=(pairs, gold)).predict(pairs)
    for eval_set, words in (((pairs, gold[:1]), "eval_set: 2 sentence pairs but 1"),
                            ((pairs, gold, gold), "eval_set must be"),
                            ("ab", "eval_set must be")):
        with pytest.raises(ValueError, match=words):
            MatchingAligner().fit(pairs, gold, stats=object(), eval_set=eval_set)
    with pytest.raises(TypeError, match="gold must be a list"):
        MatchingAligner().fit(pairs, 3, stats=object())


# ------------------------------------------------ class: very long sentences
@SETTINGS
@given(extra=st.integers(1, 3000), side=st.integers(0, 1), line=st.integers(1, 3),
       one_file=st.booleans())
def test_a_sentence_beyond_max_words_is_refused_with_its_line(tmp_path, capsys, extra,
                                                               side, line, one_file):
    long = " ".join(["w"] * (MAX_WORDS + extra))
    rows = [["a b", "x y"] for _ in range(3)]
    rows[line - 1][side] = long
    if one_file:
        argv = ["-i", _write(tmp_path / "in.txt", [f"{s} ||| {t}" for s, t in rows])]
        where = "in.txt"
    else:
        argv = ["--src", _write(tmp_path / "s.txt", [s for s, _ in rows]),
                "--tgt", _write(tmp_path / "t.txt", [t for _, t in rows])]
        where = ("s.txt", "t.txt")[side]
    rc, out, err = run_cli(["align", "unsupervised", "-q"] + argv, capsys)
    assert one_line_error(rc, err, f"{where}:{line}:", f"{MAX_WORDS:,} words"), err
    assert out == ""
    pairs = [(s.split(), t.split()) for s, t in rows]
    with pytest.raises(ValueError, match=f"sentence pair {line - 1}: the "
                                         f"{('source', 'target')[side]} side"):
        MatchingAligner().predict(pairs)


def test_predict_and_train_refuse_a_sentence_beyond_max_words(tiny_model, texts, tmp_path,
                                                              capsys):
    src = _write(tmp_path / "l.en", SRC + [" ".join(["the"] * (MAX_WORDS + 1))])
    tgt = _write(tmp_path / "l.fr", TGT + ["le"])
    out = tmp_path / "links"
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", src, "--tgt", tgt,
                          "-o", str(out), "-q"], capsys)
    assert one_line_error(rc, err, "l.en:3:", "words"), err
    assert not out.exists()
    gold = _write(tmp_path / "g.txt", ["0-0", "0-0", "0-0"])
    rc, _, err = run_cli(["align", "train", "--src", src, "--tgt", tgt, "--gold", gold,
                          "--gold-format", "pharaoh", "-o", str(tmp_path / "m.npz"), "-q",
                          "--aligners", "none", "--bitext-src", texts[0], "--bitext-tgt",
                          texts[1]], capsys)
    assert one_line_error(rc, err, "l.en:3:", "words"), err
    assert not (tmp_path / "m.npz").exists()
    # exactly MAX_WORDS words is aligned
    pairs = [(["a"] * MAX_WORDS, ["b"])]
    assert check_sentence_pairs(pairs, max_words=MAX_WORDS) == pairs


@SETTINGS
@given(links=st.lists(st.sets(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=3),
                      max_size=3))
def test_scores_against_gold_without_a_sure_link_are_refused(links):
    """``score_alignments`` against no gold or possible links only gave recall 1 and AER 0
    (a perfect score against nothing)."""
    from alignment.evaluate.aer import score_alignments

    gold = [Alignment(sure=set(), possible=ls) for ls in links]
    with pytest.raises(ValueError, match="no sure link"):
        score_alignments([Alignment.from_links(ls) for ls in links], gold)


def test_unsupervised_aligner_names_a_token_that_is_not_a_string():
    from alignment import UnsupervisedAligner

    for src in ([[1, 2]], [[b"a"]], [["a", None]]):
        with pytest.raises(TypeError, match="sentence pair 0: source token .* not a string"):
            UnsupervisedAligner(hmm_iterations=1).fit(src, [["x", "y"]])
