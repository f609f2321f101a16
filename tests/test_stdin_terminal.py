"""A command that reads standard input from a terminal says so first, in one line on
standard error (``tag predict -m model`` without ``-i`` waited silently for the user to
type); piped or redirected input is read without a word, and so is a terminal in the
Python API.  The terminal is a pseudo-terminal (:mod:`pty`), its input written before the
command reads it and ended by Ctrl-D."""

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from sequence.model import SequenceTagger
from structpred.cli._common import STDIN_NOTICE
from structpred.io import read_lines, terminal_stdin_notice

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("stdin") / "m.npz"
    X = [[("the",), ("dog",)], [("a",), ("cat",), ("sleeps",)]] * 3
    y = [["DT", "NN"], ["DT", "NN", "VB"]] * 3
    SequenceTagger(learner="perceptron", n_iter=1).fit(X, y).save(path)
    return path


def _run(argv, text, terminal):
    """``structpred ARGV`` with ``text`` on standard input, from a pseudo-terminal (ended by
    Ctrl-D) or a pipe: ``(status, stdout, stderr)``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "structpred", *argv]
    if not terminal:
        done = subprocess.run(cmd, input=text.encode(), capture_output=True, cwd=ROOT, env=env,
                              timeout=300)
        return done.returncode, done.stdout.decode(), done.stderr.decode()
    master, slave = pty.openpty()
    try:
        os.write(master, text.encode() + b"\x04")   # the terminal's line buffer holds it
        proc = subprocess.Popen(cmd, stdin=slave, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=ROOT, env=env)
        os.close(slave)
        out, err = proc.communicate(timeout=300)
    finally:
        os.close(master)
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("terminal", [True, False])
def test_tag_predict_says_it_reads_a_terminal(model, terminal):
    status, out, err = _run(["tag", "predict", "-m", str(model), "-q"], "the DT\ndog NN\n",
                            terminal)
    assert status == 0 and len(out.splitlines()) == 2
    said = [line for line in err.splitlines() if "standard input" in line]
    assert said == ([STDIN_NOTICE] if terminal else [])
    assert STDIN_NOTICE == "structpred: reading standard input (end with Ctrl-D)"


@pytest.mark.parametrize("api", [False, True])
def test_the_readers_of_standard_input_say_it(monkeypatch, capsys, api):
    # the one helper of structpred.io, under every command's reader of '-' (tag, topics,
    # align, aer); nothing in the Python API
    master, slave = pty.openpty()
    try:
        os.write(master, b"one\ntwo\n\x04")
        with open(slave, "r", encoding="utf-8", closefd=False) as fh:
            monkeypatch.setattr(sys, "stdin", fh)
            if api:
                lines = list(read_lines("-"))
            else:
                with terminal_stdin_notice("said"):
                    lines = list(read_lines("-"))
    finally:
        os.close(slave)
        os.close(master)
    assert [t for _, t in lines] == ["one", "two"]
    assert capsys.readouterr().err == ("" if api else "said\n")
