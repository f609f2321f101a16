"""Ctrl-C and SIGTERM at random moments (issue 28, class 3: interrupts in compiled code).

Each long-running command is started and interrupted again and again, at a moment drawn
at random from the start of the process (imports included) to well inside the work (numba
kernels, the learners, the writers).  Every time: status 130 (SIGINT) or 143 (SIGTERM),
the last stderr line ``structpred: interrupted`` / ``structpred: terminated``, no
traceback, no ``SystemError``, the process gone within 2 s of the signal with no worker
process left behind, and no file left in the output folder (temporary or final; but the
whole output when the signal came after it was in place).  A run that finished before the signal
(status 0) is allowed, but never one that was interrupted and went on.

``STRUCTPRED_SIGNAL_REPEATS`` sets the interruptions per command: 4 in the suite, so that CI
stays short; ``STRUCTPRED_SIGNAL_REPEATS=20`` is the full check (100 interruptions, about
12 minutes), run before a release.  The file takes minutes either way, hence ``slow``.
"""

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from cli_helpers import group_alive

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
H = DATA / "hansards"
REPEATS = int(os.environ.get("STRUCTPRED_SIGNAL_REPEATS", "4"))

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]


def _commands(stats, model):
    """``name -> (argv builder(out_dir), latest moment to interrupt, in s)``."""
    return {
        "align-train": (lambda d: [
            "align", "train", "--src", str(H / "test.en.gz"), "--tgt", str(H / "test.fr.gz"),
            "--gold", str(H / "test.naacl.gz"), "--first", "40", "--stats", str(stats),
            "--iterations", "100000", "-q", "-o", str(d / "m.npz")], 14.0),
        "align-predict": (lambda d: [
            "align", "predict", "-m", str(model), "--src", str(H / "test.en.gz"), "--tgt",
            str(H / "test.fr.gz"), "-q", "-o", str(d / "links.txt")], 10.0),
        "segment-train": (lambda d: [
            "segment", "train", "--manifest",
            str(DATA / "segmentation" / "weizmann_horse" / "manifest.csv"), "--split", "train",
            "-q", "-o", str(d / "seg.npz")], 14.0),
        "topics-train": (lambda d: [
            "topics", "train", "--data", str(DATA / "text" / "20ng-4groups-train.jsonl.gz"),
            "-q", "-o", str(d / "topics.npz")], 14.0),
        "tag-train": (lambda d: [
            "tag", "train", "--data", str(DATA / "sequence" / "conll2000-train-300.txt.gz"),
            "-q", "-o", str(d / "tagger.npz")], 12.0),
    }


@pytest.fixture(scope="module")
def trained(small_stats_file, tmp_path_factory):
    from structpred.cli import main

    model = tmp_path_factory.mktemp("sigmodel") / "model.npz"
    assert main(["align", "train", "--src", str(H / "test.en.gz"), "--tgt",
                 str(H / "test.fr.gz"), "--gold", str(H / "test.naacl.gz"), "--first", "20",
                 "--stats", str(small_stats_file), "--iterations", "5", "-q", "-o",
                 str(model)]) == 0
    return small_stats_file, model


def _default_sigint():
    """A test run started in the background (``&`` in a script) has SIGINT ignored, and
    the command, like any program, keeps it ignored: give the child Ctrl-C back."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_once(argv, out_dir, delay, sig):
    """``(status, seconds from the signal to the exit, stderr, a worker outlived it)``.

    Standard error goes to a file, not a pipe, so that a worker process left behind
    cannot keep the test waiting; the command runs in its own session, so that such a
    worker is seen (and killed).  A command still running 30 s after the signal gets
    SIGABRT, and its stacks (``PYTHONFAULTHANDLER``) are part of the failure message."""
    err_file = out_dir.parent / f"{out_dir.name}.stderr"
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    with open(err_file, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "structpred", *argv], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=err, env=env,
                                preexec_fn=_default_sigint, start_new_session=True)
    try:
        time.sleep(delay)
        sent = time.monotonic()
        proc.send_signal(sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)       # its stacks, on its standard error
            proc.wait(timeout=30)
        seconds = time.monotonic() - sent
        orphans = group_alive(proc.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.returncode, seconds, err_file.read_text(errors="replace"), orphans


def _complete_output(path, argv):
    """Whether ``path`` is the command's output file (``-o``), written whole: the links of
    all 447 test pairs, or a model file that loads."""
    if str(path) != argv[argv.index("-o") + 1]:
        return False
    if path.suffix == ".txt":
        return len(path.read_text().splitlines()) == 447
    with zipfile.ZipFile(path) as z:   # .npz
        return z.testzip() is None


@pytest.mark.parametrize("name", ["align-train", "align-predict", "segment-train",
                                  "topics-train", "tag-train"])
def test_every_interrupt_exits_130_in_one_line(name, trained, tmp_path):
    build, latest = _commands(*trained)[name]
    rng = random.Random(f"{name}-28")
    for i in range(REPEATS):
        sig = signal.SIGTERM if i % 5 == 4 else signal.SIGINT
        out = tmp_path / f"run{i}"
        out.mkdir()
        delay = rng.uniform(0.5, latest)   # from when structpred code runs
        rc, seconds, err, orphans = _interrupt_once(build(out), out, delay, sig)
        what = f"{name} run {i} ({sig.name} after {delay:.2f} s): rc={rc} stderr={err[-3000:]!r}"
        assert not orphans, what + ": a worker process outlived the command"
        if rc == 0:                       # finished before the signal arrived
            assert "interrupted" not in err and "terminated" not in err, what
            continue
        expected = 143 if sig == signal.SIGTERM else 130
        word = "terminated" if sig == signal.SIGTERM else "interrupted"
        assert rc == expected, what
        assert err.strip().splitlines()[-1] == f"structpred: {word}", what
        assert "Traceback" not in err and "SystemError" not in err, what
        assert seconds < 2.0, what
        # nothing left, but the whole output of a run that the signal reached after its
        # output was in place (test_signals.py, "once the output is written"), never a
        # partial one nor a temporary file
        left = sorted(out.iterdir())
        assert all(_complete_output(p, build(out)) for p in left), what + f" left {left}"
