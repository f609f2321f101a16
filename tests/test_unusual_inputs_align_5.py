"""Unusual inputs of the word-alignment side, fifth sweep (held-out language pairs, sizes,
options, encodings; docs/errors.md), by class:

- options (numeric values): ``--c-pos``/``--c-neg``/``--possible-cost`` of 1e30 were a
  ``ZeroDivisionError`` traceback of the learner's projection (``--c-neg 1e300`` a model of
  59 % AER, without a word), now capped at 1e6 (``MatchingAligner``'s ``cost_pos``,
  ``cost_neg``, ``possible_cost`` too); ``--c-pos 0 --c-neg 0`` (a zero loss) trained a model
  that predicts no link, now refused; ``--n-frequent 5000`` adds 25 million pair features
  (17 GB of memory and 3.5 minutes on 3,000 pairs before the first iteration), now at most
  1,000 (``n_frequent`` too);
- gold files of other tools: awesome-align's (and lilt/alignment-scripts') possible links
  ``11p42`` were refused as malformed, now read as possible links (``i?j``); its 1-based gold
  with the sides exchanged (the NAACL 2003 Romanian set as awesome-align ships it: Romanian
  first) was "target position 3 out of range" without a hint, now named as 1-based and
  exchanged;
- a fast_align ``src ||| tgt`` file given as one side (``--src``, ``--tgt``,
  ``--bitext-src``, ``aer --src``) was aligned, trained on and scored with exit status 0,
  every word of both languages a word of that side; now refused with the hint to use ``-i``;
- options (process counts): ``align predict -j 100000`` forked processes until the
  machine's load passed 1,600, ``--workers 100000`` started Dask processes for minutes and
  ended in a traceback; now at most one process per CPU (the links are the same);
- held-out language pairs: ``align predict`` with a model of another pair (a Czech model
  given Romanian: 69 % of the words unknown to its statistics) aligned by word forms and
  positions alone with no word; now one warning line per side;
- ``aer`` without ``--src``/``--tgt`` scored a gold with its sides exchanged (88 % for a
  model of 14 %) or a 0-based NAACL file (50 %) as read, with no word; now a warning that
  gives the AER of the other reading;
- empty lines in the unlabeled bitext (one side empty, as OPUS and Europarl files have):
  ``align train`` refused them as "empty sentence" although its bitext reader and the
  statistics meant to leave such pairs out; now left out and counted in the summary; a
  bitext of empty lines only was "no sentence pairs left ... after leaving out those longer
  than 80 tokens", now named by what left them out;
- sizes: ``--max-length``/``--max-len`` (``UnsupervisedAligner.max_len``) above 1,000
  let longer bitext pairs into the HMM's training, cubic in the length (``--max-length
  100000`` and one bitext line of 2,454 words: more than 5 minutes), now refused;
  ``--max-length 1`` said "longer than 1 tokens"; ``align unsupervised`` on pairs all
  longer than ``--max-len`` said only "no sentence pair with both sides of at most 80
  tokens", now naming the option.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment import MatchingAligner, UnsupervisedAligner
from alignment.data.formats import read_pharaoh
from structpred import FormatError

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

SRC = ["the house is small .", "i agree .", "the house is big ."]
TGT = ["la maison est petite .", "je suis d' accord .", "la maison est grande ."]
GOLD = ["0-0 1-1 2-2 3-3 4-4", "0-0 1-1 2?3 2-2", "0-0 1-1 2-2 3-3 4-4"]


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    return {"src": _write(tmp_path / "a.en", SRC), "tgt": _write(tmp_path / "a.fr", TGT),
            "gold": _write(tmp_path / "gold.txt", GOLD),
            "fa": _write(tmp_path / "a.fa", [f"{s} ||| {t}" for s, t in zip(SRC, TGT)]),
            "tmp": tmp_path}


def _pairs():
    return [(s.split(), t.split()) for s, t in zip(SRC, TGT)]


@pytest.fixture(scope="module")
def stats():
    from alignment.stats.statistics import AlignmentStatistics

    pairs = _pairs()
    return AlignmentStatistics.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                              verbose=False)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, stats):
    """Model M fitted for 2 iterations on the pairs, with statistics of the same pairs."""
    pairs = _pairs()
    path = tmp_path_factory.mktemp("model") / "m.npz"
    MatchingAligner(n_iter=2).fit(pairs, [[(0, 0), (1, 1)]] * 3, stats=stats).save(path)
    return str(path)


def _train(files, *extra, bitext_src=None):
    return ["align", "train", "--src", files["src"], "--tgt", files["tgt"], "--gold",
            files["gold"], "--gold-format", "pharaoh", "--bitext-src", bitext_src or files["src"],
            "--bitext-tgt", files["tgt"], "--aligners", "none", "--iterations", "2",
            "-o", str(files["tmp"] / "m.npz"), "-q", *extra]


# ------------------------------------------------------------ class: option values
@SETTINGS
@given(option=st.sampled_from(["--c-pos", "--c-neg", "--possible-cost"]),
       exponent=st.integers(7, 308))
def test_costs_beyond_the_cap_are_refused_at_the_option(files, capsys, option, exponent):
    """A cost of 1e30 was a ZeroDivisionError traceback of the projection; now any cost
    above 1e6 is refused naming the option, before any work."""
    rc, _, err = run_cli(_train(files, option, f"1e{exponent}"), capsys)
    assert one_line_error(rc, err, option, "at most 1e+06"), err
    assert not (files["tmp"] / "m.npz").exists()


def test_a_cost_at_the_cap_trains(files, capsys):
    rc, _, err = run_cli(_train(files, "--c-pos", "1e6", "--c-neg", "1e6",
                                "--possible-cost", "1e6"), capsys)
    assert rc == 0, err


@pytest.mark.parametrize("name", ["cost_pos", "cost_neg", "possible_cost"])
def test_api_costs_beyond_the_cap_are_refused(name, stats):
    with pytest.raises(ValueError, match=f"{name} must be at most"):
        MatchingAligner(**{name: 1e30}).fit(_pairs(), [[(0, 0)]] * 3, stats=stats)


def test_zero_loss_is_refused(files, capsys, stats):
    """c+ = c- = 0: the loss is zero and the model learnt to predict no link (exit 0)."""
    rc, _, err = run_cli(_train(files, "--c-pos", "0", "--c-neg", "0"), capsys)
    assert one_line_error(rc, err, "--c-pos 0", "--c-neg 0", "no link"), err
    with pytest.raises(ValueError, match="both 0"):
        MatchingAligner(cost_pos=0, cost_neg=0).fit(_pairs(), [[(0, 0)]] * 3, stats=stats)
    # one of them zero is a choice of the user's (c- = 0: few links), still accepted
    rc, _, err = run_cli(_train(files, "--c-pos", "0", "--c-neg", "1"), capsys)
    assert rc == 0, err


def test_n_frequent_beyond_the_cap_is_refused(files, capsys, stats):
    """N*N pair features: 5,000 took 17 GB before the first iteration."""
    rc, _, err = run_cli(_train(files, "--n-frequent", "5000"), capsys)
    assert one_line_error(rc, err, "--n-frequent", "at most 1,000"), err
    with pytest.raises(ValueError, match="n_frequent must be at most"):
        MatchingAligner(n_frequent=5000).fit(_pairs(), [[(0, 0)]] * 3, stats=stats)


# ------------------------------------------------------ class: gold of other tools
LINKS = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.booleans()),
                 max_size=12)


@SETTINGS
@given(lines=st.lists(LINKS, min_size=1, max_size=4))
def test_awesome_align_possible_links_read_as_question_marks(tmp_path, lines):
    """``ipj`` (awesome-align's possible link) reads as ``i?j``; it was 'malformed'."""
    def text(mark):
        return [" ".join(f"{j}{'-' if sure else mark}{k}" for j, k, sure in links)
                for links in lines]
    awesome = read_pharaoh(_write(tmp_path / "p.txt", text("p")))
    pharaoh = read_pharaoh(_write(tmp_path / "q.txt", text("?")))
    assert awesome == pharaoh


def test_aer_reads_awesome_align_gold(files, capsys):
    gold_p = _write(files["tmp"] / "gold_p.txt", [g.replace("?", "p") for g in GOLD])
    test = _write(files["tmp"] / "test.txt", ["0-0 1-1", "0-0 2-3", "0-0"])
    rc, out_p, err = run_cli(["aer", "--gold", gold_p, "--test", test, "--src", files["src"],
                              "--tgt", files["tgt"]], capsys)
    assert rc == 0, err
    rc, out_q, err = run_cli(["aer", "--gold", files["gold"], "--test", test], capsys)
    assert rc == 0 and out_p == out_q and "AER" in out_p


def test_one_based_gold_with_sides_exchanged_is_named(tmp_path):
    """awesome-align's Romanian gold: 'ro-en', 1-based; read against en/ro sentences."""
    pairs = [("a b".split(), "x y z w".split())]
    # the Romanian (4 words) first, 1-based: links 4-2 and 3-1 (position 3 beyond 'a b')
    path = _write(tmp_path / "g.txt", ["4-2 3-1"])
    with pytest.raises(FormatError, match="1-based and with its sides exchanged"):
        read_pharaoh(path, pairs)


# ---------------------------------------------- class: one-file bitext as one side
@pytest.mark.parametrize("side", ["--src", "--tgt"])
def test_fast_align_file_as_a_side_of_predict_is_refused(files, capsys, tiny_model, side):
    args = {"--src": files["src"], "--tgt": files["tgt"], side: files["fa"]}
    out = str(files["tmp"] / "out.txt")
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", args["--src"],
                          "--tgt", args["--tgt"], "-o", out, "-q"], capsys)
    assert one_line_error(rc, err, "a.fa", "|||", "-i FILE"), err
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "-i", files["fa"], "-o", out,
                          "-q"], capsys)
    assert rc == 0, err


def test_fast_align_file_as_a_side_of_train_unsupervised_and_aer_is_refused(files, capsys):
    cases = [
        _train({**files, "src": files["fa"]}),
        _train(files, bitext_src=files["fa"]),
        ["align", "unsupervised", "--src", files["src"], "--tgt", files["fa"], "-o",
         str(files["tmp"] / "u.txt"), "-q"],
        ["aer", "--gold", files["gold"], "--test", files["gold"], "--src", files["fa"],
         "--tgt", files["tgt"]],
    ]
    for argv in cases:
        rc, _, err = run_cli(argv, capsys)
        assert one_line_error(rc, err, "a.fa", "'|||' token"), (argv, err)


def test_a_few_bars_in_a_side_are_words(tmp_path, capsys):
    """A side with '|||' on a line or two (under 90 % of its lines) is text as before."""
    src = _write(tmp_path / "s.txt", ["a ||| b", "c d", "e f", "g h"])
    tgt = _write(tmp_path / "t.txt", ["x y", "z w", "u v", "q r"])
    rc, _, err = run_cli(["align", "unsupervised", "--src", src, "--tgt", tgt, "-o",
                          str(tmp_path / "u.txt"), "-q"], capsys)
    assert rc == 0, err


# ------------------------------------------------------------------- class: sizes
def test_max_length_one_counts_one_token(files, capsys):
    rc, _, err = run_cli(_train(files, "--max-length", "1"), capsys)
    assert one_line_error(rc, err, "longer than 1 token"), err
    assert "1 tokens" not in err


def test_unsupervised_on_pairs_all_too_long_names_the_option():
    pairs = [("a b c".split(), "x y z".split())] * 2
    with pytest.raises(ValueError, match="--max-len"):
        UnsupervisedAligner(max_len=2).fit([s for s, _ in pairs], [t for _, t in pairs])


# ------------------------------------------------ class: held-out language pairs
def test_words_unknown_to_the_model_get_a_warning(files, capsys, tiny_model):
    """A model of another language pair (Czech given Romanian) aligned by word forms and
    positions alone, with exit status 0 and no word; now one warning line per side."""
    other = _write(files["tmp"] / "other.ro", ["aceasta casa este mica foarte mult acum",
                                               "sunt de acord cu el si cu ea azi"] * 2)
    src = _write(files["tmp"] / "s.en", SRC[:2] * 2)
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", src, "--tgt", other,
                          "-o", str(files["tmp"] / "o.txt"), "-q"], capsys)
    assert rc == 0
    warnings = [line for line in err.splitlines() if line.startswith("structpred: warning:")]
    assert len(warnings) == 1 and "--tgt:" in warnings[0] and "unknown" in warnings[0], err
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", files["src"],
                          "--tgt", files["tgt"], "-o", str(files["tmp"] / "o.txt"), "-q"],
                         capsys)
    # the model's own training pairs: that warning (sweep 23) is another matter
    others = [ln for ln in err.splitlines() if "warning" in ln and "trained on" not in ln]
    assert rc == 0 and others == [], err


# ------------------------------------------- class: gold read the wrong way (aer)
REF = ["0-2 1-0 2-3 3-1", "0-1 1-2 2-0", "0-3 1-0 2-1 3-4 4-2", "0-2 1-3 2-1 3-0"]


@pytest.mark.parametrize("how", ["swapped", "naacl0"])
def test_aer_without_sentences_warns_of_a_gold_read_the_wrong_way(tmp_path, capsys, how):
    """Without --src/--tgt, a gold with its sides exchanged (AER 88 % of a 14 % model) or
    a 0-based NAACL file (50 %) was scored as read, with no word; now one warning line."""
    test = _write(tmp_path / "test.txt", REF)
    links = [[tuple(map(int, link.split("-"))) for link in line.split()] for line in REF]
    if how == "swapped":
        gold = _write(tmp_path / "gold.txt", [" ".join(f"{k}-{j}" for j, k in line)
                                              for line in links])
    else:
        gold = _write(tmp_path / "gold.naacl", [f"{i} {j} {k} S" for i, line in
                                                enumerate(links, 1) for j, k in line])
    rc, out, err = run_cli(["aer", "--gold", gold, "--test", test], capsys)
    assert rc == 0 and "AER" in out
    assert err.count("structpred: warning:") == 1 and "--src and --tgt" in err, err
    # the gold as written: no warning of the reading (the one that the test links are
    # the gold's, sentence by sentence, is test_unusual_inputs_20's)
    good = _write(tmp_path / "good.txt", REF)
    rc, out, err = run_cli(["aer", "--gold", good, "--test", test], capsys)
    assert rc == 0 and "AER 0.00%" in out and "--src and --tgt" not in err, err
    assert err.count("structpred: warning:") == 1 and "sentence by sentence" in err, err


# ------------------------------------------------ class: empty lines in the bitext
def test_bitext_with_empty_lines_leaves_those_pairs_out(files, capsys):
    """An empty line on one side of the unlabeled bitext (OPUS and Europarl files have
    them) was refused as "empty sentence" by align train, whose bitext reader and
    statistics meant to leave such pairs out; now they are left out and counted."""
    tmp = files["tmp"]
    src = _write(tmp / "bt.en", SRC + [""] + SRC)
    tgt = _write(tmp / "bt.fr", TGT + ["le chat"] + TGT)
    argv = _train(files, bitext_src=src)
    argv[argv.index("--bitext-tgt") + 1] = tgt
    argv.remove("-q")
    rc, _, err = run_cli(argv, capsys)
    assert rc == 0, err
    assert "1 with an empty side" in err


def test_bitext_of_empty_lines_only_names_them(files, capsys):
    """It said "after leaving out those longer than 80 tokens" of pairs left out for an
    empty side."""
    tmp = files["tmp"]
    src = _write(tmp / "bt.en", ["", "", ""])
    tgt = _write(tmp / "bt.fr", ["a", "b", "c"])
    argv = _train(files, bitext_src=src)
    argv[argv.index("--bitext-tgt") + 1] = tgt
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "no sentence pairs left", "3 with an empty side"), err
    assert "longer than" not in err


# ------------------------------------------- class: sizes (long bitext pairs, HMM)
def test_max_length_beyond_max_words_is_refused(files, capsys):
    """--max-length 100000 let a bitext line of 2,454 words into the HMM's training, cubic
    in the length: align train ran for more than 5 minutes on 20 pairs and that one."""
    rc, _, err = run_cli(_train(files, "--max-length", "100000"), capsys)
    assert one_line_error(rc, err, "--max-length", "at most 1,000"), err
    rc, _, err = run_cli(["align", "unsupervised", "--src", files["src"], "--tgt",
                          files["tgt"], "--max-len", "1001", "-o",
                          str(files["tmp"] / "u.txt")], capsys)
    assert one_line_error(rc, err, "--max-len", "at most 1,000"), err
    with pytest.raises(ValueError, match="max_len"):
        UnsupervisedAligner(max_len=100000).fit([s.split() for s in SRC],
                                                [t.split() for t in TGT])


def test_bitext_pairs_beyond_the_max_length_are_left_out(files, capsys):
    long_src = " ".join(SRC * 60)   # 300 words
    long_tgt = " ".join(TGT * 60)
    src = _write(files["tmp"] / "bt.en", SRC + [long_src])
    tgt = _write(files["tmp"] / "bt.fr", TGT + [long_tgt])
    argv = _train(files, "--max-length", "100", bitext_src=src)
    argv[argv.index("--bitext-tgt") + 1] = tgt
    argv.remove("-q")
    rc, _, err = run_cli(argv, capsys)
    assert rc == 0 and "1 longer than 100 tokens" in err, err


# --------------------------------------------- class: --jobs and --workers beyond CPUs
def test_jobs_beyond_the_cpus_start_no_more_processes_than_cpus(tiny_model):
    """``align predict -j 100000`` forked (a forking pool starts all its workers at once)
    until the machine's load passed 1,600; the pool now has at most one process per CPU.
    No chunk is submitted here, so no process starts, fix or not."""
    from alignment.predict.parallel import default_jobs, local_pool

    model = MatchingAligner.load(tiny_model)
    with local_pool(model, 100_000) as pool:
        assert pool._max_workers <= default_jobs()


def test_jobs_beyond_the_cpus_are_named_in_a_note(files, capsys, tiny_model):
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", files["src"],
                          "--tgt", files["tgt"], "-o", str(files["tmp"] / "o.txt"),
                          "-j", "100000"], capsys)
    assert rc == 0, err
    assert "note: --jobs 100000: this process may use" in err, err


def test_workers_beyond_the_cpus_start_no_more_than_cpus(monkeypatch, files, capsys,
                                                         tiny_model):
    """``--workers 100000`` asked Dask for 100,000 local processes (minutes, then a
    traceback); the local cluster now gets at most one per CPU."""
    distributed = pytest.importorskip("distributed")
    asked = []

    class Refused(Exception):
        pass

    def fake_cluster(n_workers, **kw):
        asked.append(n_workers)
        raise Refused("not started in this test")

    monkeypatch.setattr(distributed, "LocalCluster", fake_cluster)
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", files["src"],
                          "--tgt", files["tgt"], "-o", str(files["tmp"] / "o.txt"), "-q",
                          "--workers", "100000"], capsys)
    from structpred.parallel import usable_cpus

    assert asked and asked[0] <= usable_cpus(), (asked, err)
