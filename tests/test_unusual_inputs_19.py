"""Unusual inputs of the command line, nineteenth sweep (issue 28, docs/errors.md): the
command line as a new user tries it, by class.

Fixed in this sweep:

- the command line itself: ``structpred tag`` without its command named argparse's
  internal name ("the following arguments are required: tag_command"); an option of
  ``structpred`` given after the command (``tag predict ... --debug``) or an option of the
  command given before it (``structpred -q tag predict``) was "unrecognized arguments"
  alone; ``--data -- x.txt`` ('--' before a file name) was "expected one argument" alone:
  each now says where to write it;
- options the chosen mode does not use, given with their default value (``aer --sentences
  1`` without ``--plot``, ``tag train --valid-fraction 0.1`` beside ``--valid-data``):
  ignored silently, where any other value was refused; now refused alike;
- compressed or archived documents (``topics --data docs.tsv.bz2``, ``docs.zip``):
  "cannot tell the format from the file name: give --format tsv", and only with it was
  the cause named; now the file is named as what it is at once;
- an explicit statistics file of another kind (``align train --interaction-stats
  tagger.npz``): refused after the statistics, the HMM and the start of training (many
  lines, seconds to hours of work); ``--stats model.npz`` after a progress line. Both are
  refused before any work now, in one line;
- a file of one tokenised sentence per line given to ``tag predict``/``tag eval`` of a
  model that reads a POS column: lines of two words were read as one sentence of tokens
  ``word POS`` and tagged, exit 0; a column 2 holding under a tenth of the values the
  model saw there is refused (with the hint of the layout when the file is one sentence);
- an output under a ``~`` or ``$VAR`` the shell did not expand (quoted): "folder ./~ does
  not exist", without the hint the inputs get;
- ``segment predict -o out.png`` (``--side-by-side sbs.jpg``): a folder ``out.png`` was
  made, exit 0; a new output folder named like a file is refused;
- outputs that replace a file of another kind: ``tag train --data train.txt -o test.txt``
  replaced the test data by a model, ``tag predict -o other.npz`` a model by labels, exit
  0; refused, judged by the file's first bytes;
- ``segment eval --masks pred/`` (the folder ``segment predict`` wrote): the model was
  scored against its own predictions, "IoU 100.00%"; now one warning.

The other inputs tried (recorded below as regression tests) were already handled: a
model of another kind for every command, seeds and sizes at the edges of their types
(``0x10``, ``1e3``, ``2**64``, ``inf``, ``nan``, ``1e-400``, ``.5``), comma lists with
empty items, ``aer`` options out of range, gzip data without a ``.gz`` name, bzip2 and
xz text, a gzipped model, file names with spaces and accents, hard links of an input as
an output or as the other side, ``/dev/stdout``, values attached to options and
abbreviated options, input arriving slowly on standard input, a folder of 5,000 tiny
documents, an unset or missing ``TMPDIR``.
"""

import bz2
import gzip
import lzma
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import DOCS, one_line_error, run_cli

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

CHUNKS = ("He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ndeficit NN I-NP\n. . O\n\n"
          "Mary NNP B-NP\nsaw VBD B-VP\nthe DT B-NP\nbig JJ I-NP\ndog NN I-NP\n. . O\n\n") * 4
SRC, TGT = "the house is small\nthe house\n", "la maison est petite\nla maison\n"
GOLD = "0-0 1-1 2-2 3-3\n0-0 1-1\n"


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with a tagger, a topic model, an aligner and the data they read."""
    from alignment import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics
    from structpred.cli import main

    d = tmp_path_factory.mktemp("sweep19")
    for name, text in (("chunks.txt", CHUNKS), ("docs.tsv", DOCS), ("a.en", SRC),
                       ("a.fr", TGT), ("gold.txt", GOLD)):
        (d / name).write_text(text, encoding="utf-8")
    assert main(["tag", "train", "--data", str(d / "chunks.txt"), "-o", str(d / "tag.npz"),
                 "--iterations", "2", "-q"]) == 0
    assert main(["topics", "train", "--data", str(d / "docs.tsv"), "--model", "nbsvm",
                 "--min-df", "1", "-q", "-o", str(d / "topics.npz")]) == 0
    pairs = [(s.split(), t.split()) for s, t in zip(SRC.splitlines(), TGT.splitlines())]
    stats = AlignmentStatistics.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                              verbose=False)
    MatchingAligner(n_iter=2).fit(pairs, [[(0, 0), (1, 1), (2, 2), (3, 3)], [(0, 0), (1, 1)]],
                                  stats=stats).save(d / "align.npz")
    return d


@pytest.fixture
def at(work, monkeypatch):
    monkeypatch.chdir(work)
    return work


# ------------------------------------------------------- class: the command line itself
GROUPS = {"tag": "train, predict, eval", "topics": "train, predict, eval",
          "segment": "train, predict, eval",
          "align": "train, predict, demo, unsupervised, compare"}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_a_command_group_alone_names_its_commands(group, capsys):
    """``structpred tag`` said "the following arguments are required: tag_command"."""
    rc, _, err = run_cli([group], capsys)
    assert one_line_error(rc, err, f"'structpred {group}' needs a command: one of "
                          + GROUPS[group]), err
    assert "_command" not in err


COMMANDS = [["tag", "predict", "-m", "tag.npz", "-i", "chunks.txt"],
            ["tag", "eval", "-m", "tag.npz", "--data", "chunks.txt"],
            ["topics", "predict", "-m", "topics.npz", "--data", "docs.tsv"],
            ["topics", "eval", "-m", "topics.npz", "--data", "docs.tsv"],
            ["align", "predict", "-m", "align.npz", "--src", "a.en", "--tgt", "a.fr"],
            ["aer", "--test", "gold.txt", "--gold", "gold.txt"]]


@SETTINGS
@given(argv=st.sampled_from(COMMANDS), option=st.sampled_from(["--debug", "--version"]))
def test_an_option_of_structpred_after_the_command_says_where_it_goes(at, capsys, argv,
                                                                      option):
    """``tag predict ... --debug`` was "unrecognized arguments: --debug" alone."""
    rc, out, err = run_cli(argv + [option], capsys)
    command = " ".join(argv[:2] if argv[0] != "aer" else argv[:1])
    assert one_line_error(rc, err, f"unrecognized arguments: {option}",
                          f"{option} is an option of structpred itself: write it before the "
                          f"command (structpred {option} {command} ...)"), err
    assert out == ""


@SETTINGS
@given(argv=st.sampled_from(COMMANDS), option=st.sampled_from(["-q", "--quiet",
                                                               "--encoding=latin-1"]),
       where=st.sampled_from([0, 1]))
def test_an_option_of_the_command_before_it_says_where_it_goes(at, capsys, argv, option,
                                                               where):
    """``structpred -q tag predict ...`` (or ``tag -q predict``) was "unrecognized
    arguments: -q" alone."""
    if argv[0] == "aer":   # a command of its own, without -q
        where, option = 0, "--encoding=latin-1"
    rc, out, err = run_cli(argv[:where] + [option] + argv[where:], capsys)
    command = " ".join(argv[:2] if argv[0] != "aer" else argv[:1])
    name = option.split("=")[0]
    assert one_line_error(rc, err, f"{name} is an option of '{command}': write it after "
                          f"'{command}'"), err
    assert out == ""


def test_other_unrecognized_arguments_get_no_hint(at, capsys):
    for extra in (["extra.txt"], ["--bogus"]):
        rc, _, err = run_cli(COMMANDS[0] + extra, capsys)
        assert one_line_error(rc, err, f"unrecognized arguments: {extra[0]} (see"), err


DASH_CASES = [(["topics", "eval", "-m", "topics.npz"], "--data", "docs.tsv"),
              (["tag", "predict", "-m", "tag.npz"], "-i", "chunks.txt"),
              (["tag", "eval", "-m", "tag.npz"], "--data", "chunks.txt"),
              (["aer", "--gold", "gold.txt"], "--test", "gold.txt"),
              (["align", "predict", "-m", "align.npz", "--tgt", "a.fr"], "--src", "a.en"),
              (["segment", "predict", "-m", "m.npz", "-o", "out"], "--images", "x.png")]


@pytest.mark.parametrize("prefix,option,value", DASH_CASES)
def test_double_dash_before_a_file_name_says_what_it_does(at, capsys, prefix, option, value):
    """``--data -- docs.tsv``: argparse's "expected one argument" alone."""
    rc, _, err = run_cli(prefix + [option, "--", value], capsys)
    assert one_line_error(rc, err, "expected", f"'--' ends the options and gives {option} no "
                          f"value: write the value right after {option}"), err


# --------------------------------------- class: options given with their default value
@pytest.mark.parametrize("argv,words", [
    (["aer", "--test", "gold.txt", "--gold", "gold.txt", "--sentences", "1"],
     "--sentences chooses the sentences that --plot draws"),
    (["aer", "--test", "gold.txt", "--gold", "gold.txt", "--sentences", "2"],
     "--sentences chooses the sentences that --plot draws"),
    (["tag", "train", "--data", "chunks.txt", "--valid-data", "v.txt", "-o", "m2.npz",
      "--valid-fraction", "0.1"], "--valid-fraction holds training sentences out"),
    (["tag", "train", "--data", "chunks.txt", "--valid-data", "v.txt", "-o", "m2.npz",
      "--valid-fraction", "0.3"], "--valid-fraction holds training sentences out")])
def test_an_unused_option_is_refused_also_at_its_default(at, capsys, argv, words):
    """An option the mode does not use was refused unless given its default value, which
    was ignored silently (``aer --sentences 1`` without ``--plot``, exit 0)."""
    (at / "v.txt").write_text(CHUNKS)
    rc, out, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, words), err
    assert out == "" and not (at / "m2.npz").exists()


def test_options_given_counts_an_option_given_its_default():
    from structpred.cli import build_parser, options_given

    for extra, named in ((["--sentences", "1"], ["--sentences"]), ([], [])):
        argv = ["aer", "--test", "t", "--gold", "g"] + extra
        args = build_parser(argv).parse_args(argv)
        assert options_given(args, "sentences", "errors") == named


# ------------------------------------------- class: compressed and archived documents
def _compressed(path, kind):
    data = DOCS.encode()
    if kind == "bz2":
        path.write_bytes(bz2.compress(data))
    elif kind == "xz":
        path.write_bytes(lzma.compress(data))
    else:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("docs.tsv", data)


@pytest.mark.parametrize("name,kind,words", [
    ("docs.tsv.bz2", "bz2", "bzip2 data (decompress it first"),
    ("docs.tsv.xz", "xz", "xz data (decompress it first"),
    ("docs.txt.bz2", "bz2", "bzip2 data"),
    ("docs.zip", "zip", "a zip archive")])
@pytest.mark.parametrize("command", ["train", "predict", "eval"])
def test_compressed_documents_are_named_by_what_they_are(at, capsys, name, kind, words,
                                                        command):
    """``topics --data docs.tsv.bz2`` was "cannot tell the format from the file name ...:
    give --format tsv", and only then "bzip2 data"."""
    _compressed(at / name, kind)
    argv = {"train": ["topics", "train", "-o", "t2.npz", "--model", "nbsvm"],
            "predict": ["topics", "predict", "-m", "topics.npz", "-o", "-"],
            "eval": ["topics", "eval", "-m", "topics.npz"]}[command]
    rc, out, err = run_cli(argv + ["--data", name], capsys)
    assert one_line_error(rc, err, name, f"not a text file: {words}"), err
    assert "cannot tell the format" not in err and out == ""


def test_a_text_file_of_another_suffix_still_asks_for_the_format(at, capsys):
    """A ``*.txt`` file is texts without labels (``topics._layouts.read_text_lines``): its
    evaluation asks for ``--format tsv``; another suffix still asks for the format."""
    (at / "docs.dat").write_text(DOCS)
    rc, _, err = run_cli(["topics", "eval", "-m", "topics.npz", "--data", "docs.dat"], capsys)
    assert one_line_error(rc, err, "docs.dat", "cannot tell the format"), err
    (at / "docs.txt").write_text(DOCS)
    rc, _, err = run_cli(["topics", "eval", "-m", "topics.npz", "--data", "docs.txt"], capsys)
    assert one_line_error(rc, err, "docs.txt:1:", "without labels", "--format tsv"), err


# ----------------------------------------- class: statistics files of another kind
def test_statistics_files_of_another_kind_are_refused_before_any_work(at, capsys):
    """``--interaction-stats tagger.npz`` was refused after the statistics, the HMM and the
    start of training, below a dozen progress lines; ``--stats model.npz`` after one."""
    base = ["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold", "gold.txt",
            "-o", "m2.npz", "--iterations", "1"]
    cases = [(["--interaction-stats", "tag.npz", "--model", "M+Q", "--bitext-src", "a.en",
               "--bitext-tgt", "a.fr", "--aligners", "none"],
              "tag.npz: not interaction statistics (a structpred-sequence-tagger file)"),
             (["--stats", "align.npz"],
              "align.npz: not alignment statistics (a structpred-matching-aligner file)"),
             (["--stats", "docs.tsv", "--bitext-src", "a.en", "--bitext-tgt", "a.fr",
               "--aligners", "none"], "docs.tsv: not alignment statistics")]
    for extra, words in cases:
        start = time.perf_counter()
        rc, out, err = run_cli(base + extra, capsys)
        assert one_line_error(rc, err, words), err
        assert out == "" and time.perf_counter() - start < 3
        assert not (at / "m2.npz").exists()


def test_check_npz_kind_reads_the_header_only(at, tmp_path):
    import numpy as np

    from structpred import FormatError
    from structpred.io import check_npz_kind

    check_npz_kind(at / "tag.npz", "structpred-sequence-tagger", "a tagger")
    with pytest.raises(FormatError, match="not a tagger .a structpred-topics-model"):
        check_npz_kind(at / "topics.npz", "structpred-sequence-tagger", "a tagger")
    np.savez(tmp_path / "plain.npz", a=np.zeros(2))   # no declared kind: the loader judges
    check_npz_kind(tmp_path / "plain.npz", "x", "x")
    (tmp_path / "cut.npz").write_bytes((at / "tag.npz").read_bytes()[:40])
    check_npz_kind(tmp_path / "cut.npz", "x", "x")     # damaged: the loader names it
    with pytest.raises(FormatError, match="empty file"):
        (tmp_path / "e.npz").write_bytes(b"")
        check_npz_kind(tmp_path / "e.npz", "x", "x")


# ------------------------------------ class: one sentence per line given to the tagger
WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=7)


@SETTINGS
@given(lines=st.lists(st.tuples(WORD, WORD), min_size=10, max_size=20),
       command=st.sampled_from(["predict", "eval"]))
def test_a_file_of_one_sentence_per_line_is_refused(at, capsys, lines, command):
    """Lines of two words were one sentence of ``word POS`` tokens, tagged with exit 0
    (three words: ``word POS label`` in ``tag eval``)."""
    width = 2 if command == "predict" else 3
    rows = [" ".join(pair + ((pair[0],) if width == 3 else ())) for pair in lines]
    (at / "plain.txt").write_text("".join(r + "\n" for r in rows))
    option = "-i" if command == "predict" else "--data"
    rc, out, err = run_cli(["tag", command, "-m", "tag.npz", option, "plain.txt"], capsys)
    assert one_line_error(rc, err, "plain.txt: column 2 holds values the model never saw",
                          f"its {len(rows)} lines are one sentence"), err
    assert out == ""


def test_a_pos_column_the_model_knows_is_tagged(at, capsys):
    rc, out, err = run_cli(["tag", "predict", "-m", "tag.npz", "-i", "chunks.txt"], capsys)
    assert rc == 0 and out.startswith("He PRP B-NP\n"), err
    (at / "other.txt").write_text("".join(f"w{i} XX\n" for i in range(12)) + "\n"
                                  + "".join(f"w{i} YY\n" for i in range(12)) + "\n")
    rc, out, err = run_cli(["tag", "predict", "-m", "tag.npz", "-i", "other.txt"], capsys)
    assert one_line_error(rc, err, "other.txt: column 2 holds values the model never saw",
                          "0 of 24 tokens known, e.g. 'XX', 'YY'"), err
    assert "one sentence" not in err


# ----------------------------------------- class: outputs under an unexpanded ~ or $VAR
@SETTINGS
@given(argv=st.sampled_from([["tag", "predict", "-m", "tag.npz", "-i", "chunks.txt"],
                             ["topics", "predict", "-m", "topics.npz", "--data", "docs.tsv"],
                             ["align", "predict", "-m", "align.npz", "--src", "a.en",
                              "--tgt", "a.fr"],
                             ["tag", "train", "--data", "chunks.txt"]]),
       head=st.sampled_from(["~", "~user", "$HOME", "${HOME}", "$TMPDIR/x"]))
def test_an_output_under_an_unexpanded_name_gets_the_hint(at, capsys, argv, head):
    out_name = f"{head}/out.npz"
    rc, out, err = run_cli(argv + ["-o", out_name], capsys)
    hint = "did not expand '~'" if head.startswith("~") else "a variable the shell did not"
    assert one_line_error(rc, err, out_name, "does not exist", hint), err


def test_a_missing_output_folder_gets_no_hint(at, capsys):
    rc, _, err = run_cli(COMMANDS[0] + ["-o", "nodir/x.txt"], capsys)
    assert one_line_error(rc, err, "folder", "nodir does not exist"), err
    assert "(" not in err.split("does not exist")[1].split("(see")[0]


# --------------------------------------------------- regression: already handled
@pytest.mark.parametrize("argv,words", [
    (["topics", "predict", "-m", "tag.npz", "--data", "docs.tsv", "-o", "-"],
     "not a topic model file"),
    (["tag", "predict", "-m", "topics.npz", "-i", "chunks.txt"], "not a sequence tagger"),
    (["align", "predict", "-m", "tag.npz", "--src", "a.en", "--tgt", "a.fr"],
     "not a word-alignment model"),
    (["topics", "train", "--data", "docs.tsv", "-o", "x.npz", "--seed", "0x10"],
     "must be an integer"),
    (["topics", "train", "--data", "docs.tsv", "-o", "x.npz", "--seed", "1e3"],
     "must be an integer"),
    (["topics", "train", "--data", "docs.tsv", "-o", "x.npz", "--seed", str(2 ** 64)],
     "at most 4294967295"),
    (["tag", "train", "--data", "chunks.txt", "-o", "x.npz", "--valid-fraction", "nan"],
     "finite"),
    (["segment", "train", "--images", "i", "--masks", "m", "-o", "x.npz", "--tol", "-1"],
     ">= 0"),
    (["segment", "train", "--images", "i", "--masks", "m", "-o", "x.npz", "--n-segments",
      "1e9"], "an integer"),
    (["segment", "train", "--images", "i", "--masks", "m", "-o", "x.npz", "--edge-factors",
      "1,,2"], "an empty item"),
    (["segment", "train", "--images", "i", "--masks", "m", "-o", "x.npz", "--class-weight",
      "inf"], "positive number"),
    (["segment", "train", "--images", "i", "--masks", "m", "-o", "x.npz", "--eta-scale",
      "1e-3,inf"], "finite"),
    (["align", "unsupervised", "--src", "a.en", "--tgt", "a.fr", "--threshold", "1e-400"],
     "too small for a float"),
    (["align", "unsupervised", "--src", "a.en", "--tgt", "a.fr", "--model", "bayes",
      "--iterations", "1,1"], "three counts"),
    (["align", "unsupervised", "--src", "a.en", "--tgt", "a.fr", "--model", "bayes",
      "--null-prob", "1"], "(0, 1)"),
    (["aer", "--test", "gold.txt", "--gold", "gold.txt", "--errors", "-1"], ">= 0"),
    (["aer", "--test", "gold.txt", "--gold", "gold.txt", "--src", "a.en", "--tgt", "a.fr",
      "--plot", "p.png", "--sentences", "1,1"], "given twice"),
    (["aer", "--test", "gold.txt", "--gold", "gold.txt", "--src", "a.en", "--tgt", "a.fr",
      "--plot", "p.png", "--sentences", "3"], "out of range"),
    (["aer", "--test", "gold.txt", "--gold", "gold.txt", "--plot", "p.png"],
     "--plot needs --src and --tgt"),
    (["aer", "--test", "chunks.txt", "--gold", "gold.txt"], "malformed link 'He'"),
    (["topics", "predict", "-m", "topics.npz", "--data", "docs.tsv", "-o", "-", "--format",
      "TSV"], "invalid choice: 'TSV'"),
    (["topics", "eval", "-m", "topics.npz", "--data", "chunks.txt", "--format", "tsv"],
     "such files are for structpred tag"),   # a CoNLL file named as such (was "no tab")
    (["align", "predict", "-m", "align.npz", "-i", "gold.txt"], "found no '|||'"),
    (["align", "predict", "-m", "align.npz", "--src", "a.en", "--tgt", "a.fr", "-o",
      "/dev/stdout"], "names standard output"),
    (["tag", "predict", "-m", "tag.npz", "-i", "chunks.txt", "extra"],
     "unrecognized arguments: extra")])
def test_inputs_refused_already(at, capsys, argv, words):
    rc, out, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, words), err
    assert out == ""


def test_tag_train_radius_inf_is_no_bound(at, capsys):
    """``--radius inf`` is no norm bound, as ``--relative-radius inf`` (the default) is: the
    same model (it was refused as "must be finite")."""
    from sequence import load_tagger
    from sequence.data import read_conll

    base = ["tag", "train", "--data", "chunks.txt", "--iterations", "2", "-q"]
    assert run_cli(base + ["-o", "inf.npz", "--radius", "inf"], capsys)[0] == 0
    assert run_cli(base + ["-o", "rel.npz", "--relative-radius", "inf"], capsys)[0] == 0
    X, _ = read_conll("chunks.txt")
    a, b = load_tagger("inf.npz"), load_tagger("rel.npz")
    assert a.radius_ == b.radius_ == float("inf")
    assert a.predict(X) == b.predict(X)
    rc, _, err = run_cli(base + ["-o", "x.npz", "--radius", "-inf"], capsys)
    assert one_line_error(rc, err, "--radius"), err


def test_compressed_inputs_read_or_named(at, capsys):
    """gzip data without a ``.gz`` name is read; xz text and a gzipped model are named."""
    (at / "chunksgz.txt").write_bytes(gzip.compress(CHUNKS.encode()))
    rc, out, err = run_cli(["tag", "predict", "-m", "tag.npz", "-i", "chunksgz.txt", "-q"],
                           capsys)
    assert rc == 0 and out.startswith("He PRP B-NP"), err
    (at / "chunks.txt.xz").write_bytes(lzma.compress(CHUNKS.encode()))
    rc, _, err = run_cli(["tag", "eval", "-m", "tag.npz", "--data", "chunks.txt.xz"], capsys)
    assert one_line_error(rc, err, "xz data (decompress it first"), err
    (at / "tagz.npz").write_bytes(gzip.compress((at / "tag.npz").read_bytes()))
    rc, _, err = run_cli(["tag", "eval", "-m", "tagz.npz", "--data", "chunks.txt"], capsys)
    assert one_line_error(rc, err, "tagz.npz: gzip data, not a sequence tagger model"), err


def test_hard_links_of_an_input_are_the_input(at, capsys):
    os.link(at / "docs.tsv", at / "docs-link.tsv")
    rc, _, err = run_cli(["topics", "predict", "-m", "topics.npz", "--data", "docs.tsv",
                          "-o", "docs-link.tsv"], capsys)
    assert one_line_error(rc, err, "would overwrite the input --data"), err
    assert (at / "docs.tsv").read_text() == DOCS
    os.link(at / "a.en", at / "a-link.en")
    rc, _, err = run_cli(["align", "predict", "-m", "align.npz", "--src", "a.en", "--tgt",
                          "a-link.en"], capsys)
    assert one_line_error(rc, err, "--tgt is the same file as --src"), err


def test_names_with_spaces_attached_and_abbreviated_options(at, capsys):
    (at / "my docs é.tsv").write_text(DOCS)
    rc, out, err = run_cli(["topics", "predict", "-m", "topics.npz", "--data",
                            "my docs é.tsv", "-o", "-", "-q"], capsys)
    assert rc == 0 and out.splitlines()[:2] == ["pets", "money"], err
    for argv in (["tag", "predict", "-mtag.npz", "-ichunks.txt", "-q"],
                 ["tag", "predict", "--model=tag.npz", "--in", "chunks.txt", "-q"]):
        rc, out, err = run_cli(argv, capsys)
        assert rc == 0 and out.startswith("He PRP B-NP"), err


def test_options_at_the_edges_of_their_type_that_are_read(at, capsys):
    rc, out, err = run_cli(["align", "unsupervised", "--src", "a.en", "--tgt", "a.fr",
                            "--threshold", ".5e0", "-q"], capsys)
    assert rc == 0 and out.splitlines()[1] == "0-0 1-1", err
    rc, out, err = run_cli(["align", "predict", "-m", "align.npz", "--src", "a.en", "--tgt",
                            "a.fr", "-j", "999", "-q"], capsys)
    assert rc == 0 and out.splitlines() == ["0-0 1-1 2-2 3-3", "0-0 1-1"], err


@pytest.mark.subprocess
def test_slow_standard_input_and_a_missing_tmpdir(work):
    """Sentences arriving with pauses on standard input are all tagged; a ``TMPDIR``
    that does not exist does not matter to a prediction."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(work / "no-such-folder"))
    p = subprocess.Popen([sys.executable, "-m", "structpred", "tag", "predict", "-m",
                          "tag.npz", "-i", "-", "-q"], cwd=work, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    half = CHUNKS.index("\n\n") + 2
    p.stdin.write(CHUNKS[:half].encode())
    p.stdin.flush()
    time.sleep(0.5)
    p.stdin.write(CHUNKS[half:].encode())
    p.stdin.close()
    out, err = p.stdout.read(), p.stderr.read()
    assert p.wait(timeout=60) == 0, err
    assert out.decode().count("\n\n") == CHUNKS.count("\n\n"), out


# ------------------------------- class: an output folder named like a file (segment)
HORSE = ROOT / "data" / "segmentation" / "weizmann_horse" / "small"


@pytest.fixture(scope="module")
def segmenter(tmp_path_factory):
    from structpred.cli import main

    path = tmp_path_factory.mktemp("seg19") / "seg.npz"
    assert main(["segment", "train", "--images", str(HORSE / "images"), "--limit", "3",
                 "--masks", str(HORSE / "masks"), "--n-segments", "100", "--iterations", "3",
                 "--no-guard", "-q", "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("argv,flag", [
    (["segment", "predict", "-o", "{name}"], "-o"),
    (["segment", "predict", "-o", "out", "--side-by-side", "{name}"], "--side-by-side"),
    (["segment", "eval", "--masks", str(HORSE / "masks"), "--side-by-side", "{name}"],
     "--side-by-side")])
@pytest.mark.parametrize("name", ["out.png", "pred.JPG", "labels.txt", "m.npz", "x.txt.gz"])
def test_a_new_output_folder_named_like_a_file_is_refused(segmenter, tmp_path, capsys,
                                                          monkeypatch, argv, flag, name):
    """``segment predict -o out.png`` made a folder ``out.png`` holding ``horse001.png``,
    with exit 0."""
    monkeypatch.chdir(tmp_path)
    argv = [a.format(name=name) for a in argv]
    rc, out, err = run_cli(argv[:2] + ["-m", str(segmenter), "--images",
                                       str(HORSE / "images" / "horse001.png")] + argv[2:],
                           capsys)
    assert one_line_error(rc, err, f"{name}: {flag} names a folder",
                          f"'{name}' is named like a file: give a folder name"), err
    assert not (tmp_path / name).exists() and not (tmp_path / "out").exists()


def test_an_existing_folder_named_like_a_file_is_written(segmenter, tmp_path, capsys):
    (tmp_path / "out.png").mkdir()
    rc, _, err = run_cli(["segment", "predict", "-m", str(segmenter), "--images",
                          str(HORSE / "images" / "horse001.png"), "-o",
                          str(tmp_path / "out.png"), "-q"], capsys)
    assert rc == 0 and (tmp_path / "out.png" / "horse001.png").is_file(), err


# ------------------------------------------- class: outputs named as another kind
TEXT_OUTPUTS = [["tag", "predict", "-m", "tag.npz", "-i", "chunks.txt"],
                ["topics", "predict", "-m", "topics.npz", "--data", "docs.tsv"],
                ["align", "predict", "-m", "align.npz", "--src", "a.en", "--tgt", "a.fr"],
                ["align", "unsupervised", "--src", "a.en", "--tgt", "a.fr"]]
MODEL_OUTPUTS = [["tag", "train", "--data", "chunks.txt"],
                 ["topics", "train", "--data", "docs.tsv", "--model", "nbsvm"],
                 ["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold", "gold.txt",
                  "--stats", "align.npz"],
                 ["segment", "train", "--images", "i", "--masks", "m"]]


def _existing(path, what):
    if what == "model":
        path.write_bytes((path.parent / "tag.npz").read_bytes())
    elif what == "png":
        path.write_bytes((HORSE / "images" / "horse001.png").read_bytes())
    elif what == "text":
        path.write_text("keep me\n")
    else:
        path.write_bytes(gzip.compress(b"keep me\n"))
    return path.read_bytes()


@SETTINGS
@given(argv=st.sampled_from(TEXT_OUTPUTS), what=st.sampled_from(["model", "png"]),
       name=st.sampled_from(["other.npz", "labels.txt", "out"]))
def test_text_written_over_a_model_or_image_is_refused(at, capsys, argv, what, name):
    """``tag predict -o other.npz`` replaced a model by the labels, exit 0."""
    before = _existing(at / name, what)
    rc, out, err = run_cli(argv + ["-o", name], capsys)
    words = "a zip archive" if what == "model" else "a PNG image"
    assert one_line_error(rc, err, f"{name}: is {words}, and -o would replace it by text"), err
    assert out == "" and (at / name).read_bytes() == before


@SETTINGS
@given(argv=st.sampled_from(MODEL_OUTPUTS), what=st.sampled_from(["text", "gzip"]),
       name=st.sampled_from(["test.txt", "test.conll", "m.npz", "data"]))
def test_a_model_written_over_text_is_refused(at, capsys, argv, what, name):
    """``tag train --data train.txt -o test.txt`` replaced the test data by a model."""
    before = _existing(at / name, what)
    rc, out, err = run_cli(argv + ["-o", name], capsys)
    words = "text" if what == "text" else "gzip data"
    assert one_line_error(rc, err, f"{name}: holds {words}, and -o would replace it by a "
                          "model"), err
    assert out == "" and (at / name).read_bytes() == before


def test_outputs_of_their_own_kind_new_or_empty_are_written(at, capsys):
    (at / "empty.txt").write_text("")
    (at / "old-labels.txt").write_text("B-NP\n")
    (at / "tag-again.npz").write_bytes((at / "tag.npz").read_bytes())
    for argv, name in ((TEXT_OUTPUTS[0], "new.npz"), (TEXT_OUTPUTS[0], "old-labels.txt"),
                       (TEXT_OUTPUTS[2], "empty.txt"), (MODEL_OUTPUTS[0], "tag-again.npz"),
                       (MODEL_OUTPUTS[0], "model.txt")):
        rc, _, err = run_cli(argv + ["-o", name, "-q", "--iterations", "1"]
                             if argv[1] == "train" else argv + ["-o", name, "-q"], capsys)
        assert rc == 0 and (at / name).stat().st_size > 0, err


# ------------------------------------------- regression: folders, empty devices, '-o='
@pytest.mark.parametrize("argv,words", [
    (["tag", "predict", "-m", "tag.npz", "-i", "."], "is a folder, not a file"),
    (["tag", "predict", "-m", ".", "-i", "chunks.txt"], "is a folder, not a file"),
    (["aer", "--test", ".", "--gold", "gold.txt"], "is a folder, not a file (--test)"),
    (["tag", "predict", "-m", "tag.npz", "-i", "/dev/null"], "no sentences found"),
    (["aer", "--test", "/dev/null", "--gold", "gold.txt"], "no alignment lines"),
    (["align", "predict", "-m", "align.npz", "--src", "/dev/null", "--tgt", "/dev/null"],
     "--tgt is the same file as --src")])
def test_folders_and_empty_devices_as_inputs(at, capsys, argv, words):
    rc, out, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, words), err
    assert out == ""


def test_short_options_with_an_equals_sign_and_a_file_scored_against_itself(at, capsys):
    rc, _, err = run_cli(["tag", "predict", "-m=tag.npz", "-i=chunks.txt", "-o=eq.txt", "-q"],
                         capsys)
    assert rc == 0 and (at / "eq.txt").is_file() and not (at / "=eq.txt").exists(), err
    rc, out, err = run_cli(["aer", "--test", "gold.txt", "--gold", "gold.txt"], capsys)
    assert rc == 0 and "AER 0.00%" in out, err


# ------------------------------ class: a step's output given as gold of the next (segment)
def test_predictions_given_as_gold_masks_get_a_warning(segmenter, tmp_path, capsys):
    """``segment eval --masks pred/`` (the folder ``segment predict`` wrote) scored the
    model against its own predictions, "foreground IoU 100.00%", exit 0."""
    images = [str(HORSE / "images" / f"horse00{i}.png") for i in (1, 2)]
    assert run_cli(["segment", "predict", "-m", str(segmenter), "--images", *images, "-o",
                    str(tmp_path / "pred"), "-q"], capsys)[0] == 0
    rc, out, err = run_cli(["segment", "eval", "-m", str(segmenter), "--images", *images,
                            "--masks", str(tmp_path / "pred")], capsys)
    lines = err.strip().splitlines()
    assert rc == 0 and "IoU 100.00%" in out, err
    assert len(lines) == 1 and lines[0].startswith("structpred: warning: "), err
    assert "2 of the 2 gold masks are predictions written by 'structpred segment predict'" \
        in lines[0]
    rc, out, err = run_cli(["segment", "eval", "-m", str(segmenter), "--images", *images,
                            "--masks", str(HORSE / "masks")], capsys)
    assert rc == 0 and "warning" not in err, err
