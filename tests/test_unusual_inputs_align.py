"""Unusual inputs to the word aligner, third pass (issue 28): classes that the earlier
passes (tests/test_input_classes.py, tests/test_cli_errors_align.py,
tests/test_fuzz_readers.py) did not try.  Each class is refused in one line (command line)
or with a plain ``TypeError``/``ValueError``/``FormatError`` (Python API), or handled
correctly; before the fixes each gave a wrong result, a traceback or a misleading message.

Classes: inputs that are FIFOs (a shell's ``<(...)``), closed standard input, names with a
line break or a trailing slash, control characters in text, NAACL files read as Pharaoh,
``align unsupervised --soft`` links given to ``aer``, iteration counts beyond the cap in
``align unsupervised``, and the Python API's links, scores, writers and estimator options
of the wrong kind.
"""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment.aligners.bayes import BayesianAligner
from alignment.aligners.unsupervised import UnsupervisedAligner, decode
from alignment.data.corpus import load_bitext
from alignment.data.formats import (Alignment, read_parallel, read_pharaoh, write_fast_align,
                                    write_parallel)
from alignment.evaluate.aer import score_alignments
from structpred import FormatError
from structpred.io import check_output_path, read_lines, split_tokens
from cli_helpers import run_cli as _run
from cli_helpers import one_line_error as _one_line_error

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
ROOT = Path(__file__).resolve().parent.parent

SRC = "the house .\nyes .\nwe agree .\n"
TGT = "la maison .\noui .\nnous sommes d' accord .\n"
GOLD = "0-0 1-1 2-2\n0-0 1-1\n0-0 1-1 2-4\n"
NAACL = "1 1 1 S\n1 2 2 S\n1 3 3 S\n2 1 1 S\n2 2 2 S\n3 1 1 S\n3 2 2 S\n3 3 5 S\n"


@pytest.fixture
def corpus(tmp_path):
    for name, text in (("s.en", SRC), ("s.fr", TGT), ("gold.txt", GOLD),
                       ("gold.naacl", NAACL)):
        (tmp_path / name).write_text(text)
    return tmp_path


def _fifo(path, data):
    """A FIFO at ``path`` that a thread fills with ``data`` once it is opened: one byte
    first, the rest a moment later (so the reader cannot see the magic bytes at once)."""
    os.mkfifo(path)

    def feed():
        with open(path, "wb") as fh:
            fh.write(data[:1])
            fh.flush()
            time.sleep(0.02)
            fh.write(data[1:])

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


# ------------------------------------------------------- class: inputs that are FIFOs
@SETTINGS
@given(lines=st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=12)
                      .filter(str.strip), min_size=1, max_size=6),
       gz=st.booleans())
def test_a_fifo_is_read_whole_plain_or_gzipped(lines, gz, tmp_path_factory):
    """A FIFO can be read once: the gzip check opened it a first time and threw away what
    it read, so ``--src <(cat f)`` was an empty file (``no sentences``)."""
    import gzip

    d = tmp_path_factory.mktemp("fifo")
    data = "".join(x + "\n" for x in lines).encode()
    t = _fifo(d / "in", gzip.compress(data) if gz else data)
    assert [text for _, text in read_lines(d / "in")] == lines
    t.join(5)


def test_aer_reads_gold_from_a_fifo(corpus, capsys):
    t = _fifo(corpus / "fifo", GOLD.encode())
    rc, out, err = _run(["aer", "--gold", str(corpus / "fifo"), "--gold-format", "pharaoh",
                         "--test", str(corpus / "gold.txt"), "--src", str(corpus / "s.en"),
                         "--tgt", str(corpus / "s.fr")], capsys)
    t.join(5)
    assert rc == 0 and "AER 0.00%" in out, err


# ------------------------------------------------------- class: closed standard input
@pytest.mark.parametrize("argv", [["aer", "--gold", "-", "--test", "{d}/gold.txt"],
                                  ["align", "unsupervised", "-i", "-", "-q"]])
def test_closed_standard_input_is_one_line(argv, corpus):
    """``<&-``: ``sys.stdin`` is None, which was an ``AttributeError`` traceback."""
    argv = [a.format(d=corpus) for a in argv]
    out = subprocess.run([sys.executable, "-m", "structpred", *argv], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=120, cwd=corpus,
                         env={**os.environ, "PYTHONPATH": str(ROOT)},
                         preexec_fn=lambda: os.close(0))
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == "structpred: error: -: standard input is closed", out.stderr


# ------------------------------------------------------- class: odd names
@pytest.mark.parametrize("ch", ["\n", "\r", "\x1b", "\u2028"])
def test_a_name_with_a_line_break_gives_one_line(ch, corpus, capsys):
    """The name is shown with its line break escaped (the error was two lines)."""
    name = str(corpus / f"no{ch}such")
    rc, out, err = _run(["aer", "--gold", name, "--test", str(corpus / "gold.txt")], capsys)
    assert _one_line_error(rc, err), err
    assert ascii(ch)[1:-1] in err


@pytest.mark.parametrize("tail", ["/", "/sub/"])
def test_an_output_name_ending_in_a_slash_is_refused(tail, corpus, capsys):
    """It named the writer's hidden temporary file (``.x.1a2b.tmp: not a directory``)."""
    plot = str(corpus / "newdir") + tail
    rc, out, err = _run(["aer", "--gold", str(corpus / "gold.txt"), "--test",
                         str(corpus / "gold.txt"), "--src", str(corpus / "s.en"), "--tgt",
                         str(corpus / "s.fr"), "--plot", plot], capsys)
    assert _one_line_error(rc, err) and f"{plot}: " in err and "ends in a slash" in err, err
    with pytest.raises(FormatError, match="ends in a slash"):
        check_output_path(str(corpus) + "/")
    assert sorted(p.name for p in corpus.iterdir()) == ["gold.naacl", "gold.txt", "s.en",
                                                        "s.fr"]


# ------------------------------------------------------- class: control characters
CONTROL = st.sampled_from(["\x01", "\x07", "\x08", "\x1b", "\x7f", "\x80", "\x9b"])


@SETTINGS
@given(ch=CONTROL, at=st.integers(0, 200), where=st.sampled_from(["s.en", "s.fr"]))
def test_control_characters_in_text_are_refused_with_line_and_column(ch, at, where,
                                                                     tmp_path_factory, capsys):
    """ESC, BEL, DEL and the C1 controls were read as letters of a word."""
    corpus = tmp_path_factory.mktemp("ctl")
    for name, text in (("s.en", SRC), ("s.fr", TGT), ("gold.txt", GOLD)):
        (corpus / name).write_text(text)
    path = corpus / where
    text = path.read_text()
    at = at % len(text.rstrip("\n"))
    if text[at] == "\n":
        at -= 1
    path.write_text(text[:at] + ch + text[at:])
    line = text[:at].count("\n") + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    rc, out, err = _run(["aer", "--gold", str(corpus / "gold.txt"), "--test",
                         str(corpus / "gold.txt"), "--src", str(corpus / "s.en"), "--tgt",
                         str(corpus / "s.fr")], capsys)
    assert _one_line_error(rc, err), err
    assert f"{path}:{line}: control character U+{ord(ch):04X} at column {col}" in err, err


def test_printable_unicode_is_still_text():
    """Zero-width, combining and right-to-left letters are parts of words."""
    assert split_tokens("e\u0301te\u0301 \u05e9\u05dc\u05d5\u05dd a\u200bb") == [
        "e\u0301te\u0301", "\u05e9\u05dc\u05d5\u05dd", "a\u200bb"]


# ------------------------------------------------------- class: Pharaoh variants
def test_a_naacl_file_read_as_pharaoh_gets_a_hint(corpus, capsys):
    for argv in (["aer", "--gold", "-", "--test", str(corpus / "gold.txt")],
                 ["aer", "--gold", str(corpus / "gold.naacl"), "--gold-format", "pharaoh",
                  "--test", str(corpus / "gold.txt")]):
        sys.stdin = open(corpus / "gold.naacl")   # noqa: SIM115 - closed by the reader's exit
        try:
            rc, out, err = _run(argv, capsys)
        finally:
            sys.stdin.close()
            sys.stdin = sys.__stdin__
        assert _one_line_error(rc, err) and "--gold-format naacl" in err, err


@SETTINGS
@given(p=st.floats(0, 1), fmt=st.sampled_from(["{:.3f}", "{:g}", "{:.2e}"]))
def test_soft_links_of_align_unsupervised_are_read_their_scores_ignored(p, fmt, corpus):
    """``--soft`` writes ``i-j:p``; ``aer`` refused its own tool's output as malformed."""
    score = fmt.format(p)
    soft = "\n".join(" ".join(f"{x}:{score}" for x in line.split())
                     for line in GOLD.splitlines()) + "\n"
    (corpus / "soft.txt").write_text(soft)
    assert read_pharaoh(corpus / "soft.txt") == read_pharaoh(corpus / "gold.txt")


@pytest.mark.parametrize("bad", ["0-0:", "0-0:x", "0-0:1.5", "0-0:-0.1", "0-0:nan", "0-0:0.5:1"])
def test_malformed_or_impossible_link_scores_are_refused(bad, tmp_path):
    (tmp_path / "a.txt").write_text(bad + "\n")
    with pytest.raises(FormatError, match=r"a.txt:1: malformed link"):
        read_pharaoh(tmp_path / "a.txt")


# ------------------------------------------------------- class: iteration caps
@pytest.mark.parametrize("opts", [["--hmm-iterations", "99999999999"],
                                  ["--model", "bayes", "--iterations", "1,1,99999999999"],
                                  ["--model", "bayes", "--samplers", "99999999999"]])
def test_unsupervised_iteration_counts_beyond_the_cap_are_refused(opts, corpus, capsys):
    """They ran for ever (and 10**11 sweeps of the sampler did not stop on SIGTERM)."""
    rc, out, err = _run(["align", "unsupervised", "--src", str(corpus / "s.en"), "--tgt",
                         str(corpus / "s.fr"), "-q", *opts], capsys)
    assert _one_line_error(rc, err) and "10,000,000" in err, err


# ------------------------------------------------------- class: links (Python API)
@given(j=st.one_of(st.floats(allow_nan=True), st.integers(max_value=-1), st.booleans(),
                   st.text(max_size=3)))
def test_link_positions_must_be_integers_from_0(j):
    """``int()`` cut 0.5 to 0 and kept -1 (written back as ``-1-0``, which no reader reads)."""
    for link in ((j, 0), (0, j)):
        with pytest.raises((TypeError, ValueError), match="link"):
            Alignment({link})
        with pytest.raises((TypeError, ValueError), match="link"):
            Alignment(possible={link})


@pytest.mark.parametrize("link", [(0, 1, 2), (0,), "01", 3])
def test_a_link_must_be_a_pair(link):
    with pytest.raises(TypeError, match="pair"):
        Alignment({link})


def test_numpy_positions_are_links():
    import numpy as np

    assert Alignment({(np.int64(1), np.int32(2))}).sure == {(1, 2)}


@given(line=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=5))
def test_a_pharaoh_line_given_to_score_alignments_is_refused(line):
    """A string was a set of its characters: ``"0-0 1-1"`` scored 4 links, none right."""
    text = " ".join(f"{j}-{k}" for j, k in line)
    gold = [Alignment(set(line))]
    with pytest.raises(TypeError, match="predicted alignment 0 is a string"):
        score_alignments([text], gold)
    with pytest.raises(TypeError, match="gold alignment 0"):
        score_alignments(gold, [set(line)])
    assert score_alignments(iter(gold), iter(gold)).aer == 0.0   # iterables are fine


# ------------------------------------------------------- class: writers (Python API)
@SETTINGS
@given(bad=st.sampled_from(["a b", "a\nb", "a\tb", "", "a\u00a0b", "\ud800"]),
       side=st.integers(0, 1), writer=st.sampled_from(["parallel", "fast_align"]))
def test_tokens_that_would_not_read_back_are_refused_by_the_writers(bad, side, writer,
                                                                    tmp_path_factory):
    """A token with a space was written as two, one with a line break shifted every later
    line, an empty side wrote an empty line and a lone surrogate a UnicodeEncodeError."""
    d = tmp_path_factory.mktemp("w")
    pair = [["a", "b"], ["c"]]
    pair[side] = ["x", bad]
    with pytest.raises(ValueError, match="sentence pair 1"):
        if writer == "parallel":
            write_parallel([(["ok"], ["ok"]), tuple(pair)], d / "a", d / "b")
        else:
            write_fast_align([(["ok"], ["ok"]), tuple(pair)], d / "a")
    assert not list(d.iterdir())


def test_an_empty_side_or_a_string_side_is_refused_by_the_writers(tmp_path):
    with pytest.raises(ValueError, match="without tokens"):
        write_parallel([([], ["c"])], tmp_path / "a", tmp_path / "b")
    with pytest.raises(TypeError, match="is a string"):
        write_parallel([("a b", ["c"])], tmp_path / "a", tmp_path / "b")
    write_parallel([(["é", "\u05e9"], ["1", "2"])], tmp_path / "a", tmp_path / "b")
    assert read_parallel(tmp_path / "a", tmp_path / "b") == [(["é", "\u05e9"], ["1", "2"])]


# ------------------------------------------------------- class: options (Python API)
NOT_COUNTS = st.one_of(st.floats(allow_nan=True), st.booleans(), st.text(max_size=2), st.integers(10 ** 7 + 1, 10 ** 20),
                       st.integers(max_value=-1))


@SETTINGS
@given(name=st.sampled_from(["em_iterations", "ibm1_iterations", "hmm_iterations",
                             "fertility_iterations", "n_samplers", "max_jump", "prefix"]),
       value=NOT_COUNTS)
def test_bayesian_aligner_counts_must_be_whole_numbers_in_range(name, value):
    """2.5 ran 2 sweeps, NaN was numpy's error, 10**12 ran for ever, -1 kept whole words."""
    with pytest.raises((TypeError, ValueError), match=name):
        BayesianAligner(**{name: value})._check()


@pytest.mark.parametrize("opts,match", [({"alpha_lex": float("nan")}, "Dirichlet"),
                                        ({"null_prob": "0.2"}, "null_prob"),
                                        ({"random_state": -1}, "random_state"),
                                        ({"random_state": 1.5}, "random_state")])
def test_bayesian_aligner_refuses_other_options_in_plain_words(opts, match):
    with pytest.raises((TypeError, ValueError), match=match):
        BayesianAligner(**opts)._check()


def test_bayesian_aligner_refuses_a_string_corpus_and_tokens_that_are_not_strings():
    """A string was a corpus of one-letter sentences; an int token an AttributeError."""
    opts = dict(ibm1_iterations=1, hmm_iterations=0, fertility_iterations=0)
    with pytest.raises(TypeError, match="single string"):
        BayesianAligner(**opts).fit("ab", [["x"], ["y"]])
    with pytest.raises(TypeError, match="single string"):
        BayesianAligner(**opts).fit([["a"], ["b"]], "xy")
    with pytest.raises(TypeError, match="target sentence 1: token 6"):
        BayesianAligner(**opts).fit([["a"], ["b"]], [["x"], [6]])


@SETTINGS
@given(name=st.sampled_from(["hmm_iterations", "ibm1_iterations", "ibm2_iterations", "prefix",
                             "max_len"]), value=NOT_COUNTS)
def test_unsupervised_aligner_counts_must_be_whole_numbers_in_range(name, value):
    """-1 HMM iterations trained nothing and 1.5 was cut to 1, without an error."""
    with pytest.raises((TypeError, ValueError), match=name):
        UnsupervisedAligner(**{name: value}).fit([["a"]], [["x"]])


@given(t=st.one_of(st.floats(allow_nan=True).filter(lambda x: not 0 < x <= 1),
                   st.booleans(), st.just("0.5")))
def test_a_decoding_threshold_outside_0_1_is_refused(t):
    """NaN and 2 gave no link, 0 every link, without an error."""
    import numpy as np

    post = np.full((2, 2), 0.5)
    with pytest.raises(ValueError, match="threshold"):
        decode(post, post, t)


@pytest.mark.parametrize("opts", [{"max_len": 0}, {"max_len": float("nan")},
                                  {"max_ratio": 0.5}, {"max_ratio": float("nan")},
                                  {"max_len": "80"}])
def test_load_bitext_limits_must_be_numbers_from_1(opts, corpus):
    """NaN kept every pair and a limit below 1 dropped them all, silently."""
    with pytest.raises(ValueError, match=next(iter(opts))):
        load_bitext(corpus / "s.en", corpus / "s.fr", **opts)
