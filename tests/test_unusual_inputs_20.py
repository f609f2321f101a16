"""Unusual inputs of the word-alignment side, twentieth sweep (issue 28, docs/errors.md):
``align ...``, ``aer``, the gold formats, eflomal's priors, by class.

Fixed in this sweep:

- the gold given twice (``aer --test gold.txt --gold gold.txt``, any spelling of the path,
  a copy, the gold gzipped): "AER 0.00%" with no word; now one warning, the score still
  printed;
- predictions given as gold: the links that ``align predict`` and ``align unsupervised``
  write were read as gold by ``aer`` and ``align train`` with no word; they now carry the
  extended attribute ``user.structpred.written_by`` (Pharaoh text has no place for a mark,
  as the PNG masks of ``segment predict`` have their text chunk) and a gold file that has
  it gets one warning (gold with sure links only, written by other tools, is read as
  before);
- eflomal's priors kept in a run's cache folder had no digest: a priors file cut short or
  edited was read into other priors; their sha256 is recorded beside them (with
  ``with_digest``), and a file that does not give it is refused naming it; a priors file
  without a record (an older cache entry, ``eflomal-makepriors``' own) is read as before,
  its lines checked now (a bad line was eflomal's "can only concatenate str (not "int")
  to str", "list index out of range" or "invalid literal for int()", a prior of ``nan``
  or ``-5`` was sampled with); our Bayesian aligner's priors (``priors.npz``), already
  digested, were refused with a model file's advice, now with the cache entry's;
- a file of links given as a side of the sentence pairs (``align unsupervised --src
  pred.txt``): its links were aligned, trained on or counted as words, with exit 0 (``align
  predict``: a warning of unknown words); now refused as links;
- gold with possible links given as ``--test`` (``aer``, the two files exchanged): its
  possible links were left out of the score with no word; now one warning;
- NAACL gold of sentences given with swapped sides: "is this the gold of other sentences?";
  now "are --src and --tgt swapped?";
- the gold given as another aligner's links (``align train --external x=gold.txt``, or
  ``--valid-external`` the ``--valid-gold`` file): a model that copies the gold, trained
  with exit 0; now refused;
- sentences with the punctuation glued to the words (untokenised) against tokenised gold
  (``aer --src``, ``align train``): "is this the gold of other sentences?"; now the glued
  word is named;
- scored links (``align unsupervised --soft``) or gold's possible links given as
  ``--external``: "bad link (expected 'i-j')" alone; now saying which they are;
- predictions without a single link (``aer --test`` of empty lines): "precision 100.00%"
  with no word (0/0); now one warning;
- ``align train --stats FIFO`` (or ``/dev/null``, ``--interaction-stats``) without the
  bitext: "need --bitext-src and --bitext-tgt (or an existing --stats file)"; now named as
  a pipe or device;
- a file of sentences given for links (``aer --gold a.en``, ``--external x=a.fr``):
  "malformed link 'the'" alone; now named as words;
- ``read_pharaoh``/``read_naacl`` given ``pairs`` of another shape: "not enough values to
  unpack (expected 2, got 1)"; now a ``TypeError`` naming them.

Tried and already handled (kept as they were): directories, FIFOs, empty files and
one-pair files as gold and test; UTF-16, Latin-1 (``--encoding``), BOM and CRLF gold;
lines over a megabyte; duplicated links (read as one); gold indices out of range with the
sentences; a model, statistics or a tagger given as gold; gold of more or fewer sentences;
a truncated or foreign ``--stats`` file.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred import FormatError

from cli_helpers import SPELLINGS, one_line_error, other_spelling, run_cli

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

SRC = "the house is small .\ni agree .\nthe house is big .\n"
TGT = "la maison est petite .\nje suis d' accord .\nla maison est grande .\n"
GOLD = "0-0 1-1 2-2 3-3 4-4\n0-0 1-1 2-3 2-2\n0-0 1-1 2-2 3-3 4-4\n"
PRED = "0-0 1-1 2-2 3-3 4-4\n0-0 1-1 2-2\n0-0 1-1 2-2 3-3\n"


def _has_xattrs(folder):
    """Whether files in ``folder`` keep extended attributes of the ``user.`` namespace."""
    probe = Path(folder) / ".xattr-probe"
    probe.write_text("")
    try:
        os.setxattr(probe, "user.probe", b"1")
        return True
    except (OSError, AttributeError):
        return False
    finally:
        probe.unlink()


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A folder with the sentences, gold, predictions, statistics and a model."""
    from alignment import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics

    d = tmp_path_factory.mktemp("sweep20")
    for name, text in (("a.en", SRC), ("a.fr", TGT), ("gold.txt", GOLD), ("pred.txt", PRED),
                       ("v.en", "the house is big .\n"), ("v.fr", "la maison est grande .\n")):
        (d / name).write_text(text, encoding="utf-8")
    pairs = [(s.split(), t.split()) for s, t in zip(SRC.splitlines(), TGT.splitlines())]
    stats = AlignmentStatistics.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                              verbose=False)
    stats.save(d / "stats.npz")
    gold = [[tuple(map(int, x.split("-"))) for x in ln.split()] for ln in GOLD.splitlines()]
    MatchingAligner(n_iter=2).fit(pairs, gold, stats=stats).save(d / "align.npz")
    return d


@pytest.fixture
def at(work, monkeypatch):
    monkeypatch.chdir(work)
    return work


def _warnings(err):
    return [ln for ln in err.strip().splitlines() if ln.startswith("structpred: warning: ")]


# ------------------------------------------------------- class: the gold given as --test
@SETTINGS
@given(how=st.sampled_from(SPELLINGS))
def test_aer_of_the_gold_file_against_itself_warns(at, capsys, how):
    """``aer --test gold.txt --gold gold.txt`` printed "AER 0.00%" with no word."""
    test = other_spelling(at / "gold.txt", how, at)
    rc, out, err = run_cli(["aer", "--test", test, "--gold", "gold.txt"], capsys)
    assert rc == 0 and "AER 0.00%" in out, err
    (line,) = _warnings(err)
    assert f"{test}: --test is the gold file gold.txt itself" in line
    assert "instead of the predictions?" in line


@SETTINGS
@given(gz=st.booleans(), crlf=st.booleans(), bom=st.booleans())
def test_aer_of_a_copy_of_the_gold_warns(at, capsys, gz, crlf, bom):
    """A copy of the gold (gzipped, with CRLF line ends, a byte-order mark) as --test was
    "AER 0.00%" with no word too."""
    text = ("\ufeff" if bom else "") + GOLD.replace("\n", "\r\n" if crlf else "\n")
    copy = at / ("copy.txt.gz" if gz else "copy.txt")
    data = text.encode("utf-8")
    copy.write_bytes(gzip.compress(data) if gz else data)
    rc, out, err = run_cli(["aer", "--test", str(copy), "--gold", "gold.txt"], capsys)
    assert rc == 0 and "AER 0.00%" in out, err
    (line,) = _warnings(err)
    assert f"{copy}: --test holds the links of the gold gold.txt, sentence by sentence" in line


def test_aer_of_predictions_has_no_such_warning(at, capsys):
    """Predictions that differ from the gold in one sentence: no warning."""
    rc, out, err = run_cli(["aer", "--test", "pred.txt", "--gold", "gold.txt"], capsys)
    assert rc == 0 and "AER" in out and _warnings(err) == [], err


# ------------------------------------------------- class: predictions given as gold
def _predict(at, capsys, out, src="a.en", tgt="a.fr"):
    rc, _, err = run_cli(["align", "predict", "-m", "align.npz", "--src", src, "--tgt", tgt,
                          "-o", out, "-q"], capsys)
    assert rc == 0, err


@pytest.mark.parametrize("command", ["aer", "train", "valid"])
def test_links_written_by_align_predict_given_as_gold_warn(at, capsys, command):
    """``align predict``'s links given as ``--gold`` (``aer``, ``align train``, its
    ``--valid-gold``) were read as gold with no word."""
    if not _has_xattrs(at):
        pytest.skip("this file system keeps no extended attributes")
    if command == "valid":
        _predict(at, capsys, "predicted.txt", "v.en", "v.fr")
    else:
        _predict(at, capsys, "predicted.txt")
    argv = {"aer": ["aer", "--test", "pred.txt", "--gold", "predicted.txt"],
            "train": ["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold",
                      "predicted.txt", "--stats", "stats.npz", "--iterations", "2",
                      "-o", "m.npz", "-q"],
            "valid": ["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold",
                      "gold.txt", "--valid-src", "v.en", "--valid-tgt", "v.fr",
                      "--valid-gold", "predicted.txt", "--stats", "stats.npz",
                      "--iterations", "2", "-o", "m.npz", "-q"]}[command]
    rc, _, err = run_cli(argv, capsys)
    assert rc == 0, err
    lines = [ln for ln in _warnings(err) if "predicted.txt" in ln]
    assert len(lines) == 1, err
    assert ("predicted.txt: these gold links are predictions written by 'structpred align "
            "predict'") in lines[0]


def test_links_written_to_standard_output_redirected_to_a_file_warn(at, tmp_path):
    """``align predict ... > pred.txt`` (standard output a regular file) is marked too."""
    if not _has_xattrs(tmp_path):
        pytest.skip("this file system keeps no extended attributes")
    out = tmp_path / "redirected.txt"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with open(out, "w") as fh:
        subprocess.run([sys.executable, "-m", "structpred", "align", "predict", "-m",
                        "align.npz", "--src", "a.en", "--tgt", "a.fr", "-q"], stdout=fh,
                       check=True, cwd=at, env=env)
    res = subprocess.run([sys.executable, "-m", "structpred", "aer", "--test", "pred.txt",
                          "--gold", str(out)], capture_output=True, text=True, cwd=at, env=env)
    assert res.returncode == 0, res.stderr
    assert f"{out}: these gold links are predictions written by" in res.stderr


def test_gold_with_sure_links_only_from_elsewhere_is_read_without_warning(at, capsys):
    """A Pharaoh gold of sure links only, not written by structpred (a copy of the
    predictions loses the attribute: ``cp`` keeps none), is gold as before."""
    _predict(at, capsys, "predicted2.txt")
    shutil.copyfile(at / "predicted2.txt", at / "copied.txt")
    rc, out, err = run_cli(["aer", "--test", "pred.txt", "--gold", "copied.txt"], capsys)
    assert rc == 0 and "AER" in out
    assert not any("predictions written by" in ln for ln in _warnings(err)), err


# ---------------------------------------------------------- class: eflomal's priors files
@pytest.fixture(scope="module")
def eflomal_run(tmp_path_factory):
    pytest.importorskip("eflomal", reason="eflomal is not installed (the 'aligners' extra)")
    import alignment.aligners.runs as al

    src = [ln for ln in gzip.open(ROOT / "data/hansards/trial.en.gz", "rt").read().splitlines()]
    tgt = [ln for ln in gzip.open(ROOT / "data/hansards/trial.fr.gz", "rt").read().splitlines()]
    run = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path_factory.mktemp("efl"),
                         n_samplers=1)
    run.priors_file(src, tgt)
    return run, src, tgt


@pytest.mark.parametrize("edit", ["truncate", "change", "record"])
def test_priors_changed_after_they_were_written_are_refused(eflomal_run, edit):
    """A priors file cut short or with a prior changed was sampled with silently."""
    import alignment.aligners.runs as al

    run, src, tgt = eflomal_run
    priors = run.priors_file()
    record = priors.with_name(priors.name + ".json")
    assert record.is_file()
    saved = priors.read_bytes(), record.read_bytes()
    try:
        lines = gzip.decompress(saved[0]).decode("utf-8").splitlines(keepends=True)
        if edit == "truncate":
            priors.write_bytes(gzip.compress("".join(lines[:len(lines) // 2]).encode()))
        elif edit == "change":
            lines[0] = re.sub(r"\t[^\t]*\n$", "\t1000\n", lines[0])
            priors.write_bytes(gzip.compress("".join(lines).encode()))
        else:
            record.write_text(record.read_text().replace('"sha256": "', '"sha256": "0'))
        bad = record if edit == "record" else priors
        with pytest.raises(FormatError, match=re.escape(f"{bad}: ")
                           + ".*changed after (it was|they were) written.*"
                           + re.escape(f"delete the folder {priors.parent} to recompute")):
            al.align_with_priors(src[:2], tgt[:2], run, n_samplers=1)
    finally:
        priors.write_bytes(saved[0])
        record.write_bytes(saved[1])
    assert al.align_with_priors(src[:2], tgt[:2], run, n_samplers=1).n_pairs == 2


BAD_PRIOR_LINES = st.one_of(
    st.sampled_from(["BAD\tx\t1", "LEX\ta\t1", "LEX\ta\tb\tc\t1", "HMMF\t1.5\t2",
                     "FERF\tword\tx\t1", "LEX a b 1", ""]),
    st.builds(lambda v: f"LEX\tla\tthe\t{v}",
              st.sampled_from(["nan", "inf", "-inf", "-5", "zz", "1e400", ""])))


@SETTINGS
@given(bad=BAD_PRIOR_LINES, before=st.integers(0, 3))
def test_a_priors_file_of_another_source_with_a_bad_line_is_named(tmp_path, bad, before):
    """A priors file without a record (``eflomal-makepriors``' own): a bad line was
    eflomal's "can only concatenate str (not "int") to str", "list index out of range",
    "invalid literal for int() with base 10", or (nan, -5) a prior sampled with."""
    pytest.importorskip("eflomal", reason="eflomal is not installed (the 'aligners' extra)")
    import alignment.aligners.runs as al

    path = tmp_path / "foreign.priors"
    path.write_text("LEX\tla\tthe\t2\n" * before + bad + "\nHMMF\t1\t3\n", encoding="utf-8")
    with pytest.raises(FormatError, match=re.escape(f"{path}:{before + 1}: ")):
        al.align_with_priors(["the house"], ["la maison"], path, n_samplers=1)


def test_a_priors_file_of_another_source_is_read():
    """Good lines of every kind, without a record: read as before."""
    pytest.importorskip("eflomal", reason="eflomal is not installed (the 'aligners' extra)")
    import tempfile

    import alignment.aligners.runs as al

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "good.priors"
        path.write_text("LEX\tthe\tla\t3\nFERF\tthe\t1\t2\nFERR\tla\t1\t2\nHMMF\t-1\t1\n"
                        "HMMR\t2\t0.5\n", encoding="utf-8")
        assert al.align_with_priors(["the house"], ["la maison"], path,
                                    n_samplers=1).n_pairs == 1


def test_priors_changed_after_they_were_written_are_one_line_for_align_predict(tmp_path,
                                                                              capsys):
    """``align predict`` of a model with eflomal's links aligns new pairs with the priors
    kept in the cache: an edited priors file is one line naming it."""
    pytest.importorskip("eflomal", reason="eflomal is not installed (the 'aligners' extra)")
    data = ROOT / "data/hansards"
    src, tgt = tmp_path / "b.en", tmp_path / "b.fr"
    for path, name in ((src, "trial.en.gz"), (tgt, "trial.fr.gz")):
        path.write_text(gzip.open(data / name, "rt").read(), encoding="utf-8")
    model, cache = tmp_path / "m.npz", tmp_path / "cache"
    rc, _, err = run_cli(["align", "train", "--src", str(src), "--tgt", str(tgt), "--gold",
                          str(data / "trial.naacl.gz"), "--aligners", "eflomal",
                          "--bitext-src", str(src), "--bitext-tgt", str(tgt),
                          "--cache-dir", str(cache), "--stats", str(tmp_path / "s.npz"),
                          "--iterations", "1", "-o", str(model), "-q"], capsys)
    assert rc == 0, err
    (priors,) = cache.glob("aligners/eflomal-*/priors.txt.gz")
    lines = gzip.decompress(priors.read_bytes()).splitlines(keepends=True)
    priors.write_bytes(gzip.compress(b"".join(lines[:len(lines) // 2])))
    (tmp_path / "n.en").write_text("the new house is small .\n")
    (tmp_path / "n.fr").write_text("la nouvelle maison est petite .\n")
    rc, out, err = run_cli(["align", "predict", "-m", str(model), "--src",
                            str(tmp_path / "n.en"), "--tgt", str(tmp_path / "n.fr"), "-q"],
                           capsys)
    assert one_line_error(rc, err, f"{priors}: eflomal priors changed after they were written",
                          f"delete the folder {priors.parent} to recompute"), err
    assert out == ""


def test_bayes_priors_changed_after_they_were_written_name_the_cache_entry(tmp_path):
    """Our Bayesian aligner's priors (``priors.npz`` of its cache entry) were refused with a
    model file's advice, "retrain it or restore the file"; now the cache entry's."""
    import numpy as np

    from alignment.aligners.bayes_run import align_new_bayes, run_bayes

    src = ["the house is small", "the house", "a small house", "the cat"] * 3
    tgt = ["la maison est petite", "la maison", "une petite maison", "le chat"] * 3
    run = run_bayes(src, tgt, cache_dir=tmp_path, random_state=0)
    path = Path(run.path) / "priors.npz"
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    key = next(k for k in arrays if k.endswith("/counts"))
    arrays[key] = arrays[key] + 1.0
    np.savez(path, **arrays)
    with pytest.raises(FormatError, match=re.escape(f"{path}: ") + ".*changed after it was "
                       + re.escape(f"written (its content digest does not match the one "
                                   f"recorded) (a damaged cache entry: delete the folder "
                                   f"{run.path} to recompute)")):
        align_new_bayes(run, ["the house"], ["la maison"])


# ------------------------------------------- class: a file of links given as sentences
LINK_FILES = {"pharaoh": "0-0 1-1 2-2 3-3 4-4\n0-0 1-1 2?3\n0-0 1-1 2-2 3-3 4-4\n",
              "naacl": "1 1 1 S\n1 2 2 P\n2 1 1\n"}


def _link_side_argv(command, side, bad):
    sides = {"--src": "a.en", "--tgt": "a.fr", side: bad}
    pair = ["--src", sides["--src"], "--tgt", sides["--tgt"]]
    return {"predict": ["align", "predict", "-m", "align.npz", *pair, "-q"],
            "unsupervised": ["align", "unsupervised", *pair, "-q", "-o", "out.txt"],
            "train": ["align", "train", *pair, "--gold", "gold.txt", "--stats", "stats.npz",
                      "--iterations", "1", "-o", "m.npz", "-q"],
            "aer": ["aer", "--test", "pred.txt", "--gold", "gold.txt", *pair]}[command]


@SETTINGS
@given(command=st.sampled_from(["predict", "unsupervised", "train", "aer"]),
       side=st.sampled_from(["--src", "--tgt"]), fmt=st.sampled_from(sorted(LINK_FILES)))
def test_a_file_of_links_given_as_a_side_is_refused(at, capsys, command, side, fmt):
    """``align unsupervised --src pred.txt`` aligned the links '0-0' '1-1' as words (exit
    0), ``align predict`` too (a warning of unknown words only), ``align train`` trained
    on them, ``aer --src pred.txt`` took their count as the sentence length."""
    text = LINK_FILES[fmt]
    if fmt == "naacl":   # as many lines as the sentences, to get past their count
        text = "".join(text.splitlines(keepends=True)[:3])
    (at / "links.txt").write_text(text, encoding="utf-8")
    rc, out, err = run_cli(_link_side_argv(command, side, "links.txt"), capsys)
    what = "Pharaoh links ('i-j')" if fmt == "pharaoh" else "a NAACL link ('sent src tgt"
    assert one_line_error(rc, err, "links.txt: 3 of 3 lines hold " + what,
                          "a file of alignment links, not one side of the sentence pairs"), err
    assert not (at / "out.txt").exists()


def test_sentences_with_some_numbers_and_dashes_are_sentences(at, capsys):
    """Lines like '1-2 3-4' among words (scores, dates) are words: under 90 % of the lines
    hold links only."""
    (at / "num.en").write_text("1-2 3-4 5-6 7-8 9-9\ni agree .\nthe house is big .\n")
    rc, _, err = run_cli(["aer", "--test", "pred.txt", "--gold", "gold.txt", "--src",
                          "num.en", "--tgt", "a.fr"], capsys)
    assert rc == 0, err


# ------------------------------------------ class: gold with possible links as --test
def test_possible_links_in_test_warn_that_the_files_may_be_exchanged(at, capsys):
    """``aer --test gold.txt --gold pred.txt`` with a gold of possible links: the possible
    links of --test were left out of the score with no word."""
    (at / "goldp.txt").write_text("0-0 1-1 2?2 3-3 4-4\n0-0 1-1\n0-0 1-1 2-2 3-3 4?4\n")
    rc, out, err = run_cli(["aer", "--test", "goldp.txt", "--gold", "pred.txt"], capsys)
    assert rc == 0 and "AER" in out
    (line,) = _warnings(err)
    assert ("goldp.txt:1: --test holds 2 possible links ('i?j'), as gold does: the score "
            "counts only its sure links 'i-j' as predictions (are --gold and --test "
            "exchanged?)") in line


# ------------------------------------ class: sides swapped, NAACL gold (align train)
def test_naacl_gold_of_swapped_sides_asks_whether_they_are_swapped(tmp_path, capsys):
    """``align train --src FR --tgt EN --gold EN-FR.naacl`` said "is this the gold of other
    sentences (another --src/--tgt file)?"; every link fits with the sides exchanged."""
    data = ROOT / "data/hansards"
    for name in ("trial.en", "trial.fr"):
        (tmp_path / name).write_text(gzip.open(data / f"{name}.gz", "rt").read())
    rc, _, err = run_cli(["align", "train", "--src", str(tmp_path / "trial.fr"), "--tgt",
                          str(tmp_path / "trial.en"), "--gold", str(data / "trial.naacl.gz"),
                          "--bitext-src", str(tmp_path / "trial.fr"), "--bitext-tgt",
                          str(tmp_path / "trial.en"),
                          "-o", str(tmp_path / "m.npz"), "--stats", str(tmp_path / "s.npz"),
                          "-q"], capsys)
    assert one_line_error(rc, err, "trial.naacl.gz:", "every link of the file fits its "
                          "sentence pair with the sides exchanged: are --src and --tgt "
                          "swapped?"), err
    assert "gold of other sentences" not in err


# ---------------------------------------- class: sentence pairs of the readers (API)
@SETTINGS
@given(pairs=st.sampled_from(["the house ||| la maison", [("a",)], 5, [(["a"], "b")],
                              [("a b", ["x"])]]),
       reader=st.sampled_from(["read_pharaoh", "read_naacl"]))
def test_readers_name_sentence_pairs_of_another_shape(tmp_path, pairs, reader):
    """``read_pharaoh(path, pairs="...")`` was "not enough values to unpack (expected 2,
    got 1)", an int "'int' object is not iterable"."""
    import alignment.data.formats as fm

    path = tmp_path / "g.txt"
    path.write_text("0-0\n" if reader == "read_pharaoh" else "1 1 1 S\n")
    with pytest.raises(TypeError, match="sentence pair|list of tokens") as info:
        getattr(fm, reader)(path, pairs=pairs)
    assert "unpack" not in str(info.value) and "iterable" not in str(info.value)


# --------------------------------------- class: the gold given as another aligner's links
@SETTINGS
@given(option=st.sampled_from(["--external", "--valid-external"]),
       how=st.sampled_from(["same", "copy", "link"]))
def test_the_gold_given_as_external_links_is_refused(at, capsys, option, how):
    """``align train --gold gold.txt --external x=gold.txt`` trained a model that copies the
    feature (the gold), with exit status 0; new sentences have no gold to give it."""
    gold = {"--external": "gold.txt", "--valid-external": "vgold.txt"}[option]
    (at / "vgold.txt").write_text("0-0 1-1 2-2 3-3 4-4\n")
    (at / "other.txt").write_text("0-0 1-1 2-2 3-3\n0-0 1-1\n0-0 1-1 2-2 3-3 4-4\n")
    (at / "vother.txt").write_text("0-0 1-1\n")
    given_path = gold
    if how == "copy":
        given_path = "copy-" + gold
        shutil.copyfile(at / gold, at / given_path)
    elif how == "link":
        given_path = other_spelling(at / gold, "link", at)
    ext = {"--external": f"x={given_path}", "--valid-external": "x=other.txt"}
    valid_ext = {"--external": "x=vother.txt", "--valid-external": f"x={given_path}"}
    rc, _, err = run_cli(["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold",
                          "gold.txt", "--valid-src", "v.en", "--valid-tgt", "v.fr",
                          "--valid-gold", "vgold.txt", "--external", ext[option],
                          "--valid-external", valid_ext[option], "--stats", "stats.npz",
                          "--iterations", "1", "-o", "m.npz", "-q"], capsys)
    gold_option = option.replace("external", "gold")
    what = (f"is the {gold_option} file" if how != "copy"
            else f"holds the lines of the {gold_option} file {gold}")
    assert one_line_error(rc, err, f"{given_path}: {option} x={given_path} {what}: a model "
                          "trained on it learns to copy the gold links"), err


def test_other_links_given_as_external_train(at, capsys):
    (at / "other.txt").write_text("0-0 1-1 2-2 3-3\n0-0 1-1\n0-0 1-1 2-2 3-3 4-4\n")
    rc, _, err = run_cli(["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold",
                          "gold.txt", "--external", "x=other.txt", "--stats", "stats.npz",
                          "--iterations", "1", "-o", "m.npz", "-q"], capsys)
    assert rc == 0, err


# ------------------------------------- class: untokenised sentences against tokenised gold
@SETTINGS
@given(command=st.sampled_from(["aer", "train"]), side=st.sampled_from(["--src", "--tgt"]),
       glue=st.sampled_from([" .", " ,", " :", " !", " ?"]))
def test_untokenised_sentences_are_named_as_such_not_as_other_sentences(at, capsys, command,
                                                                       side, glue):
    """Gold of tokenised text given with the punctuation glued to the words: "is this the
    gold of other sentences (another --src/--tgt file)?"; now the glued word is named."""
    base = {"--src": SRC, "--tgt": TGT}[side]
    text = "".join(ln.replace(" .", glue).replace(glue, glue[1:]) + "\n"
                   for ln in base.splitlines())
    (at / "glued.txt").write_text(text)
    sides = {"--src": "a.en", "--tgt": "a.fr", side: "glued.txt"}
    pair = ["--src", sides["--src"], "--tgt", sides["--tgt"]]
    argv = {"aer": ["aer", "--test", "gold.txt", "--gold", "gold.txt", *pair],
            "train": ["align", "train", *pair, "--gold", "gold.txt", "--stats", "stats.npz",
                      "--iterations", "1", "-o", "m.npz", "-q"]}[command]
    rc, _, err = run_cli(argv, capsys)
    glued = ("small" if side == "--src" else "petite") + glue[1:]
    which = "source" if side == "--src" else "target"
    assert one_line_error(rc, err, f"gold.txt:1: {which} position 4 out of range",
                          f"with punctuation glued on, e.g. {glued!r}: is the text "
                          "untokenised?"), err
    assert "other sentences" not in err


def test_tokens_ending_in_a_full_stop_or_apostrophe_are_no_glued_words(tmp_path):
    """``Mr.`` inside a sentence and French ``d'`` are tokens: no hint of untokenised text
    for a link that is out of range for another reason."""
    from alignment.data.formats import read_pharaoh

    path = tmp_path / "g.txt"
    path.write_text("0-0 9-0\n")
    with pytest.raises(FormatError) as info:
        read_pharaoh(path, [("Mr. Smith , d' accord .".split(), ["x"])])
    assert "untokenised" not in str(info.value)


# ------------------------------- class: scored or possible links as another aligner's links
@SETTINGS
@given(form=st.sampled_from(["score", "possible", "awesome"]), line=st.integers(1, 3))
def test_scored_or_possible_links_as_external_are_named(at, capsys, form, line):
    """``--external x=soft.txt`` (``align unsupervised --soft``'s ``i-j:p``) or gold's
    possible links ``i?j`` were "bad link '0-0:0.98' (expected 'i-j')" with no word why."""
    tok = {"score": "1-1:0.9800", "possible": "1?1", "awesome": "1p1"}[form]
    lines = ["0-0 1-1", "0-0", "0-0 2-2"]
    lines[line - 1] = "0-0 " + tok
    (at / "ext.txt").write_text("\n".join(lines) + "\n")
    rc, _, err = run_cli(["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold",
                          "gold.txt", "--external", "x=ext.txt", "--stats", "stats.npz",
                          "--iterations", "1", "-o", "m.npz", "-q"], capsys)
    why = ("a link with its score, as 'align unsupervised --soft' writes" if form == "score"
           else "a possible link, as gold has")
    assert one_line_error(rc, err, f"ext.txt:{line}: bad link {tok!r} (expected 'i-j'): "
                          + why), err


# ------------------------------------------------ class: predictions without any link
@SETTINGS
@given(n_possible=st.integers(0, 2))
def test_predictions_without_a_link_warn_that_precision_is_undefined(at, capsys, n_possible):
    """A --test file of empty lines (a run that wrote nothing) printed "precision 100.00%"
    with no word: 0/0 is shown as 100 %."""
    lines = [""] * 3
    for i in range(n_possible):
        lines[i] = "0?0"
    (at / "nolinks.txt").write_text("\n".join(lines) + "\n")
    rc, out, err = run_cli(["aer", "--test", "nolinks.txt", "--gold", "gold.txt"], capsys)
    assert rc == 0 and "recall 0.00%  AER 100.00%" in out, err
    assert any("nolinks.txt: no predicted link in its 3 lines: precision is undefined" in ln
               for ln in _warnings(err)), err


# ------------------------------- class: a statistics cache that is a FIFO or a device
@SETTINGS
@given(option=st.sampled_from(["--stats", "--interaction-stats"]),
       kind=st.sampled_from(["fifo", "device"]))
def test_a_statistics_cache_that_is_a_pipe_is_named_without_a_bitext(at, capsys, option,
                                                                     kind):
    """``align train --stats FIFO`` without the bitext said "need --bitext-src and
    --bitext-tgt (or an existing --stats file)": the FIFO exists, and is no file."""
    path = "/dev/null"
    if kind == "fifo":
        path = str(at / "stats.fifo")
        if not os.path.exists(path):
            os.mkfifo(path)
    stats = ["--stats", path] if option == "--stats" else [
        "--stats", "stats.npz", "--model", "M+Q", "--interaction-stats", path]
    rc, _, err = run_cli(["align", "train", "--src", "a.en", "--tgt", "a.fr", "--gold",
                          "gold.txt", *stats, "--iterations", "1", "-o", "m.npz", "-q"], capsys)
    assert one_line_error(rc, err, f"{path}: a pipe or device, not a file"), err


# ------------------------------------------ class: a file of sentences given as links
@SETTINGS
@given(where=st.sampled_from(["aer-test", "aer-gold", "aer-naacl", "train-gold", "external"]),
       side=st.sampled_from(["a.en", "a.fr"]))
def test_a_file_of_sentences_given_for_links_is_named(at, capsys, where, side):
    """``aer --gold a.en`` (a side of the sentences for the links) was "malformed link
    'the' (expected 'i-j' or 'i?j', 0-based positions)" with no word of the cause."""
    train = ["align", "train", "--src", "a.en", "--tgt", "a.fr", "--stats", "stats.npz",
             "--iterations", "1", "-o", "m.npz", "-q"]
    argv = {"aer-test": ["aer", "--test", side, "--gold", "gold.txt"],
            "aer-gold": ["aer", "--test", "pred.txt", "--gold", side],
            "aer-naacl": ["aer", "--test", "pred.txt", "--gold", side, "--gold-format",
                          "naacl"],
            "train-gold": train + ["--gold", side],
            "external": train + ["--gold", "gold.txt", "--external", f"x={side}"]}[where]
    rc, _, err = run_cli(argv, capsys)
    why = ("a word, not a link: a file of sentences given for links?" if where == "external"
           else "this line holds words, not links: a file of sentences given for links")
    assert one_line_error(rc, err, f"{side}:1: ", why), err
