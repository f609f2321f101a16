"""Unusual environments and file-system situations (issue 28, fifth sweep): names at the
file system's length limit, folders that refuse files whatever their permission bits say,
the current folder deleted, standard error closed, standard output in another encoding
than UTF-8, a locale that cannot decode a file name, two outputs on one path, an option
given twice, a library's log records.  Each is a one-line refusal before any work or the
correct result (docs/errors.md)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import one_line_error, run_cli
from structpred.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHUNKS = ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz"
H = ROOT / "data" / "hansards"


@pytest.fixture(scope="module")
def tagger(tmp_path_factory):
    """A tiny tagger and a two-sentence input with non-ASCII words."""
    d = tmp_path_factory.mktemp("tagger")
    model = d / "m.npz"
    assert main(["tag", "train", "--data", str(CHUNKS), "--first", "3", "--iterations", "2",
                 "-o", str(model), "-q"]) == 0
    text = d / "in.txt"
    text.write_text("café NN\nnaïve JJ\n\nThe DT\n", encoding="utf-8")
    return model, text


def _predict(tagger, *more):
    model, text = tagger
    return ["tag", "predict", "-m", str(model), "-i", str(text), "-q", *more]


@pytest.mark.parametrize("length", [245, 255])
def test_a_name_near_the_length_limit_is_written(tagger, tmp_path, capsys, length):
    """A name of 242 to 255 bytes is a valid file name, but the writer's hidden temporary
    file (``.NAME.xxxxxxxx.tmp``, 14 bytes more) was not: the command failed after its
    work, naming the temporary file."""
    out = tmp_path / ("a" * length)
    rc, _, err = run_cli(_predict(tagger, "-o", str(out)), capsys)
    assert rc == 0, err
    assert "café" in out.read_text(encoding="utf-8")
    assert sorted(os.listdir(tmp_path)) == [out.name]


def test_a_name_beyond_the_length_limit_is_refused_naming_it(tagger, tmp_path, capsys):
    out = tmp_path / ("b" * 256)
    rc, _, err = run_cli(_predict(tagger, "-o", str(out)), capsys)
    assert one_line_error(rc, err, "-o", "too long", "256 bytes")
    assert ".tmp" not in err and os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_folder_that_takes_no_file_is_refused_before_any_work(tagger, capsys):
    """``/proc`` takes no new file, even for root, whose permission bits say it may write
    anywhere: the refusal came after the work, naming the hidden temporary file."""
    rc, _, err = run_cli(_predict(tagger, "-o", "/proc/structpred-out.txt"), capsys)
    assert one_line_error(rc, err, "/proc/structpred-out.txt", "-o", "folder /proc")
    assert ".tmp" not in err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_a_cache_folder_that_cannot_be_made_is_named_as_the_variable(tmp_path, capsys,
                                                                      monkeypatch):
    monkeypatch.setenv("STRUCTPRED_CACHE", "/proc/structpred-cache")
    out = tmp_path / "m.npz"
    rc, _, err = run_cli(["align", "train", "--src", str(H / "trial.en.gz"), "--tgt",
                          str(H / "trial.fr.gz"), "--gold", str(H / "trial.naacl.gz"),
                          "--bitext-src", str(H / "trial.en.gz"), "--bitext-tgt",
                          str(H / "trial.fr.gz"), "--stats", str(tmp_path / "st.npz"),
                          "-o", str(out), "-q"], capsys)
    assert one_line_error(rc, err, "$STRUCTPRED_CACHE", "/proc")
    assert os.listdir(tmp_path) == []


def test_the_current_folder_deleted_is_said(tagger, tmp_path, capsys, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    rc, _, err = run_cli(_predict(tagger, "-o", "out.txt"), capsys)
    assert one_line_error(rc, err, "current folder", "deleted")


def test_standard_error_closed_keeps_messages_off_standard_output(tagger, capsys,
                                                                    monkeypatch):
    """``2>&-``: ``print(file=sys.stderr)`` printed on standard output, the summary line
    among the results and the error line in their place."""
    monkeypatch.setattr(sys, "stderr", None)
    rc, out, _ = run_cli(_predict(tagger)[:-1], capsys)   # without -q: a summary line
    assert rc == 0 and "labelled" not in out and out.startswith("café")
    rc, out, _ = run_cli(["tag", "predict", "-m", str(tagger[0]), "-i", "missing.txt"],
                         capsys)
    assert rc == 2 and out == "" and sys.stderr is None


def test_a_file_name_the_locale_cannot_decode_is_shown_as_its_bytes(tagger, capsys):
    name = os.fsdecode(b"d\xe9\xff.txt")   # Latin-1 bytes: surrogate escapes
    rc, _, err = run_cli(["tag", "predict", "-m", str(tagger[0]), "-i", name], capsys)
    assert one_line_error(rc, err, "d\\xe9\\xff.txt", "no such file")


@pytest.mark.parametrize("cmd", ["unsupervised", "train"])
def test_output_and_cache_folder_on_one_path_are_refused_before_any_work(cmd, tmp_path,
                                                                         capsys):
    """``-o X --cache-dir X``: the cache folder was made at X after the training, and
    the model (the links) could not be written."""
    same = tmp_path / "x"
    argv = ["align", cmd, "--src", str(H / "trial.en.gz"), "--tgt", str(H / "trial.fr.gz"),
            "-o", str(same), "--cache-dir", str(same), "-q"]
    if cmd == "train":
        argv += ["--gold", str(H / "trial.naacl.gz"), "--bitext-src", str(H / "trial.en.gz"),
                 "--bitext-tgt", str(H / "trial.fr.gz")]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "-o and --cache-dir name the same path")
    assert os.listdir(tmp_path) == []


def test_an_option_given_twice_with_two_values_is_refused(tagger, tmp_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    rc, _, err = run_cli(_predict(tagger, "-o", str(a), "--output", str(b)), capsys)
    assert one_line_error(rc, err, "-o/--output", "given twice")
    assert os.listdir(tmp_path) == []
    rc, _, err = run_cli(_predict(tagger, "-o", str(a), "--output", str(a)), capsys)
    assert rc == 0 and a.exists(), err   # the same value twice says nothing new


def _env(**changes):
    env = {k: v for k, v in os.environ.items() if k not in changes}
    env.update({k: v for k, v in changes.items() if v is not None})
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def test_standard_output_in_another_encoding_gets_utf8(tagger):
    """``PYTHONIOENCODING=ascii``: a word such as ``café`` was a ``UnicodeEncodeError``
    traceback (``latin-1``: bytes the commands could not read back)."""
    proc = subprocess.run([sys.executable, "-m", "structpred", *_predict(tagger)],
                          capture_output=True, env=_env(PYTHONIOENCODING="ascii"), cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode("utf-8").startswith("café")


@pytest.mark.slow
def test_matplotlib_without_a_config_folder_warns_in_one_line_and_cleans_up(tmp_path):
    """``$MPLCONFIGDIR`` (or ``$HOME``) unusable: matplotlib logged two lines of its own and
    left its temporary folder behind (the command leaves through ``os._exit``)."""
    gold = tmp_path / "g.pharaoh"
    gold.write_text("0-0 1-1\n")
    test = tmp_path / "t.pharaoh"
    test.write_text("0-0\n")
    src, tgt = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("a b\n")
    tgt.write_text("x y\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.run([sys.executable, "-m", "structpred", "aer", "--gold", str(gold),
                           "--test", str(test), "--src", str(src), "--tgt", str(tgt),
                           "--plot", str(tmp_path / "p.png")], capture_output=True, text=True,
                          env=_env(MPLCONFIGDIR=str(gold / "x"), TMPDIR=str(tmp)), cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "p.png").exists()
    lines = proc.stderr.splitlines()
    assert any("Matplotlib created a temporary" in line for line in lines)
    assert all(line.startswith("structpred: warning: ") or "written to" in line
               for line in lines), proc.stderr
    assert os.listdir(tmp) == []
