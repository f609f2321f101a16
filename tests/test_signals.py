"""Ctrl-C, closed pipes and streams (issue 17): Ctrl-C exits with status 130, one line
and no partial output file, noticed within about a second even inside the IBM EM; a
closed pipe ends quietly; ``align predict`` writes each sentence's links as soon as they
are known; the kernels' chunks and the two EM threads behave."""

import contextlib
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import group_alive

from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
ROOT = Path(__file__).resolve().parent.parent


def _default_sigint():
    """A suite started in the background (``&``, ``nohup``) has SIGINT ignored, and a child
    keeps it ignored: give the command Ctrl-C back, as a terminal would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(argv, **kw):
    return subprocess.Popen([sys.executable, "-m", "structpred", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=_default_sigint, **kw)


class _Lines:
    """The lines of a text stream, read by a thread (``select`` cannot see the lines a
    text stream has already buffered)."""

    def __init__(self, stream):
        self.queue = queue.Queue()
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream):
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def wait_for(self, marker, timeout=300):
        seen = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.queue.get(timeout=1.0)
            except queue.Empty:
                continue
            if line is None:
                break
            seen.append(line)
            if marker in line:
                return seen
        raise AssertionError(f"no {marker!r} in {seen}")

    def rest(self, timeout=60):
        self.thread.join(timeout)
        out = []
        while not self.queue.empty():
            line = self.queue.get()
            if line is not None:
                out.append(line)
        return "".join(out)


@pytest.fixture(scope="module")
def model_file(small_stats_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("sig") / "model.npz"
    assert main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
                 str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first",
                 "20", "--stats", str(small_stats_file), "--iterations", "5", "-q", "-o",
                 str(out)]) == 0
    return out


def _interrupt(proc, marker, settle=0.5):
    """Wait for ``marker`` on stderr, then Ctrl-C; returns (status, seconds to exit, rest
    of stderr)."""
    lines = _Lines(proc.stderr)
    lines.wait_for(marker)
    time.sleep(settle)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=60)
    seconds = time.monotonic() - t0
    return rc, seconds, lines.rest()


def test_ctrl_c_while_training(small_stats_file, tmp_path):
    out = tmp_path / "model.npz"
    proc = _start(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
                   str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first",
                   "60", "--stats", str(small_stats_file), "--iterations", "1000000",
                   "-o", str(out)])
    rc, seconds, rest = _interrupt(proc, "training model")
    assert rc == 130 and rest.strip().splitlines() == ["structpred: interrupted"], rest
    assert "Traceback" not in rest and seconds < 2.0, seconds
    assert not out.exists() and not list(tmp_path.iterdir())


def test_ctrl_c_while_predicting_to_a_file(model_file, tmp_path):
    out = tmp_path / "links.txt"
    proc = _start(["align", "predict", "-m", str(model_file), "--src", str(DATA / "test.en.gz"),
                   "--tgt", str(DATA / "test.fr.gz"), "--show-weights", "1", "-o", str(out)])
    rc, seconds, rest = _interrupt(proc, " ", settle=0.3)
    assert rc in (130, 0), rest          # 0 if all 447 sentences were aligned already
    if rc == 130:
        assert rest.strip().splitlines()[-1] == "structpred: interrupted" and seconds < 2.0
        assert [p for p in tmp_path.iterdir() if p != out] == []   # no temporary file
        if out.exists():   # the signal came after the atomic rename: the file is whole
            assert len(out.read_text().splitlines()) == 447
    else:
        assert len(out.read_text().splitlines()) == 447


def test_ctrl_c_once_the_output_is_written_is_never_a_silent_death(model_file, tmp_path):
    """Ctrl-C right after the output file appears lands where the interpreter used to tear
    itself down, with SIGINT back at its default: the process died of the signal without a
    word (status -2).  The command now exits as soon as its work is done: status 0, or 130
    and one line, never a death by signal or a traceback."""
    out = tmp_path / "links.txt"
    proc = subprocess.Popen([sys.executable, "-m", "structpred", "align", "predict", "-m",
                             str(model_file), "--src", str(DATA / "test.en.gz"), "--tgt",
                             str(DATA / "test.fr.gz"), "-q", "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, preexec_fn=_default_sigint)
    end = time.monotonic() + 120
    while not out.exists() and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.001)
    time.sleep(0.05)            # the teardown took about a second: well inside it
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 130), (proc.returncode, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert len(out.read_text().splitlines()) == 447


def test_ctrl_c_inside_the_ibm_em_is_noticed_within_a_second():
    """The E-step kernels run in chunks and in two threads; Ctrl-C stops both."""
    code = (
        "import os, signal, threading, time\n"
        "from alignment.data.corpus import load_bitext\n"
        "from alignment.stats.ibm import train_ibm\n"
        f"bt = load_bitext({str(DATA / 'bitext.36-2.en.gz')!r}, "
        f"{str(DATA / 'bitext.36-2.fr.gz')!r}, max_pairs=12000, max_len=80)\n"
        "c = bt.encode()\n"
        "sent = []\n"
        "def kill():\n"
        "    sent.append(time.monotonic()); os.kill(os.getpid(), signal.SIGINT)\n"
        "from alignment.stats import ibm\n"
        "orig = ibm.e_step\n"
        "lock = threading.Lock()\n"
        "def e_step(*a):\n"      # called by both E-step threads: one Ctrl-C, not two
        "    with lock:\n"
        "        if not sent and threading.active_count() >= 3:\n"
        "            sent.append(None); threading.Timer(0.5, kill).start()\n"
        "    return orig(*a)\n"
        "ibm.e_step = e_step\n"
        "try:\n"
        "    train_ibm(c, n_iter_model1=200, n_iter_model2=0)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.monotonic() - sent[-1])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, cwd=ROOT, preexec_fn=_default_sigint)
    words = out.stdout.split()
    assert words and words[0] == "interrupted", out.stdout + out.stderr[-2000:]
    assert float(words[1]) < 1.5, words


def test_closed_pipe_ends_quietly(model_file):
    proc = _start(["align", "predict", "-m", str(model_file), "--src", str(DATA / "test.en.gz"),
                   "--tgt", str(DATA / "test.fr.gz"), "-q"])
    first = proc.stdout.readline()
    proc.stdout.close()                  # like `| head -1`
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert first.strip() and "Traceback" not in err and "Exception" not in err, err


def test_predict_streams_one_line_per_sentence(model_file):
    """Each line of ``-i -`` is aligned and written before the next one arrives."""
    proc = subprocess.Popen([sys.executable, "-m", "structpred", "align", "predict", "-m",
                             str(model_file), "-i", "-", "-q"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=_default_sigint)
    try:
        for src, tgt in (("the house", "la chambre"), ("yes .", "oui .")):
            proc.stdin.write(f"{src} ||| {tgt}\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, "no output before the next input line"
            assert proc.stdout.readline().strip()
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()


def test_quiet_keeps_the_result_summary(small_stats_file, tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
                 str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "10",
                 "--valid-src", str(DATA / "trial.en.gz"), "--valid-tgt", str(DATA / "trial.fr.gz"),
                 "--valid-gold", str(DATA / "trial.naacl.gz"), "--stats", str(small_stats_file),
                 "--iterations", "4", "--validate-every", "2", "-q", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "best validation AER" in err and "% at iteration" in err
    assert f"model written to {out}" in err and "trained model M on 10 sentences in" in err
    assert "bitext read 4000 pairs, kept" in err       # pairs left out for length are counted
    assert "training model" not in err                   # chatter is hidden


# ----------------------------------------------------------------- chunks and threads
def test_chunk_ranges_cover_every_sentence_once():
    from alignment._runtime import chunk_ranges

    off = np.concatenate(([0], np.cumsum(np.random.default_rng(0).integers(0, 50, 1000))))
    for per in (1, 7, 100, 10 ** 9):
        ranges = chunk_ranges(off, per)
        assert ranges[0][0] == 0 and ranges[-1][1] == 1000
        assert all(a < b for a, b in ranges)
        assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))
    assert chunk_ranges(np.zeros(1, np.int64)) == []


def test_chunked_e_step_equals_one_call(hansards):
    from alignment._runtime import chunk_ranges
    from alignment.data.corpus import EncodedCorpus, Vocabulary, build_cooc
    from alignment.stats.ibm import _DirectionEM, e_step, pair_index

    pairs = hansards.test_pairs[:80]
    sv, tv = Vocabulary.from_pairs(pairs, 0), Vocabulary.from_pairs(pairs, 1)
    c = EncodedCorpus.from_sentences([s for s, _ in pairs], [t for _, t in pairs], sv, tv)
    rp, cols, _ = build_cooc(c.src_ids, c.src_offsets, c.tgt_ids, c.tgt_offsets, c.n_src_types,
                             c.n_tgt_types)
    pidx, off = pair_index(c.src_ids, c.src_offsets, c.tgt_ids, c.tgt_offsets, rp, cols)
    results = []
    for per in (10 ** 9, 500):
        d = _DirectionEM(c, rp, cols, "fwd", 5, True)
        ll = 0.0
        for lo, hi in chunk_ranges(off, per):
            ll += e_step(d.gen_ids, d.gen_off[lo:hi + 1], d.cond_off[lo:hi + 1], pidx,
                         off[lo:hi + 1], d.transposed, d.t, d.t_null, True, d.w, d.max_jump,
                         d.counts, d.null_counts, d.obs)
        results.append((ll, d.counts.copy(), d.null_counts.copy(), d.obs.copy()))
    (a, *ra), (b, *rb) = results
    assert a == pytest.approx(b, rel=1e-12)
    for x, y in zip(ra, rb):
        np.testing.assert_allclose(x, y, rtol=1e-12)


def test_run_threads_stops_the_other_thread_on_an_error():
    from alignment._runtime import check_stop, run_threads

    stopped = []

    def slow(stop):
        for _ in range(600):
            check_stop(stop)
            time.sleep(0.01)
        return "done"

    def failing(stop):
        time.sleep(0.05)
        raise ValueError("boom")

    def watch(stop):
        try:
            return slow(stop)
        finally:
            stopped.append(stop.is_set())

    t0 = time.monotonic()
    with pytest.raises(ValueError, match="boom"):
        run_threads(watch, failing)
    assert stopped == [True] and time.monotonic() - t0 < 3
    assert run_threads(lambda s: 1, lambda s: 2) == [1, 2]


def test_no_progress_bars_off_a_terminal(capsys):
    from alignment._runtime import progress_enabled

    assert not progress_enabled(False)
    assert not progress_enabled(True)          # pytest's stderr is not a terminal


def test_ctrl_c_inside_the_bayesian_sampler_is_noticed(tmp_path):
    """The sampler runs one compiled call per sweep, so Ctrl-C during a long run of the
    Bayesian aligner (here millions of sweeps of a few pairs, in the main thread) exits 130
    at once instead of being held until the sampler ends."""
    out = tmp_path / "links.txt"
    proc = _start(["align", "unsupervised", "--model", "bayes", "--src", str(DATA / "test.en.gz"),
                   "--tgt", str(DATA / "test.fr.gz"), "--iterations", "1,1,5000000",
                   "--jobs", "1", "-o", str(out)])
    time.sleep(6.0)          # started, kernels loaded, sampling (it prints nothing before)
    assert proc.poll() is None, proc.communicate()
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=60)
    seconds = time.monotonic() - t0
    rest = proc.stderr.read()
    assert rc == 130 and rest.strip().splitlines()[-1] == "structpred: interrupted", rest
    assert "Traceback" not in rest and seconds < 5.0, seconds
    assert not out.exists()


def test_an_error_exit_skips_the_interpreter_teardown(monkeypatch, tmp_path, capsys):
    # through the teardown SIGINT is back at its default: a Ctrl-C there would end the
    # process by the signal (status -2) after the error line, so the program leaves at once
    import os as _os

    from structpred.cli import _main

    left = []
    monkeypatch.setattr(_main, "_exit_now", lambda status: left.append(status))
    monkeypatch.setattr(_main, "_has_child_processes", lambda: False)
    monkeypatch.setattr("sys.argv", ["structpred", "topics", "train", "--data",
                                     str(tmp_path / "missing.jsonl"), "-o",
                                     str(tmp_path / "m.npz")])
    assert _main.main() == 2
    assert left == [2]
    assert "missing.jsonl" in capsys.readouterr().err
    assert _os.path.exists(tmp_path) and not (tmp_path / "m.npz").exists()


_FORK_SIGNAL_SCRIPT = """
import os, signal, time
fired = []
def inject():                       # a signal arriving while os.fork runs its hooks
    if not fired:
        fired.append(1)
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):       # bytecode, where Python runs the signal's handler
            pass
os.register_at_fork(before=inject)  # registered before the command's own fork hooks
from structpred.cli._main import _signal_handlers
with _signal_handlers():
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(2.0)
        print("not interrupted")
    except KeyboardInterrupt:
        print("interrupted")
"""


def test_ctrl_c_during_a_fork_interrupts_after_it():
    """Ctrl-C while ``os.fork`` ran its hooks (logging's lock hooks; a command forks to fit
    candidates or predict at once) raised inside the hook, where Python prints "Exception
    ignored" and drops it: the run went on and printed a traceback (seen in ``topics
    train``).  The signal is now held until the fork's hooks are done, then delivered."""
    # a suite run in the background has SIGINT ignored, which the script would inherit
    # (and rightly leave ignored: "not interrupted"); a terminal gives it the default
    out = subprocess.run([sys.executable, "-c", _FORK_SIGNAL_SCRIPT], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, preexec_fn=_default_sigint)
    assert out.stdout.strip() == "interrupted", (out.stdout, out.stderr)
    assert "Exception ignored" not in out.stderr, out.stderr


_ORPHAN_SCRIPT = """
import os, signal, sys
window, sys.argv = sys.argv[1], ["structpred", *sys.argv[2:]]   # run as the command
import multiprocessing.popen_fork as popen_fork
import multiprocessing.process as process
owner, name = ((process.BaseProcess, "start") if window == "listed"
               else (popen_fork.Popen, "_launch"))
original = getattr(owner, name)
def patched(self, *args):            # Ctrl-C right after the pool's first worker is forked:
    original(self, *args)            # once multiprocessing lists it, or before it does
    if not getattr(process, "fired", False):
        process.fired = True
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):        # bytecode, where Python runs the signal's handler
            pass
setattr(owner, name, patched)
from structpred.cli import main
sys.exit(main())
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="align predict forks no pool on one CPU")
@pytest.mark.parametrize("window", ["listed", "unlisted"])
def test_ctrl_c_between_a_pools_forks_leaves_no_worker_and_no_hang(window, model_file, tmp_path):
    """Ctrl-C after ``ProcessPoolExecutor`` forked its first worker and before it ran the
    thread that feeds and stops the workers (``align predict`` with two or more CPUs): the
    worker waited on the pool's queue forever, and the command, joining it in the
    interpreter's exit, never ended (seen in the randomised interrupts of
    ``test_signals_random.py``).  A worker forked just before the signal may not be in
    multiprocessing's list yet (``unlisted``): it was left waiting after the command
    ended.  The command now stops all its children after a signal."""
    err_file = tmp_path / "stderr.txt"
    with open(err_file, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _ORPHAN_SCRIPT, window, "align", "predict", "-m",
             str(model_file), "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
             "--jobs", "2", "-q", "-o", str(tmp_path / "links.txt")],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=_default_sigint,
            start_new_session=True)
    try:
        rc = proc.wait(timeout=60)
        rest = err_file.read_text()
        assert rc == 130, (rc, rest)
        assert rest.strip().splitlines()[-1] == "structpred: interrupted", rest
        assert "Traceback" not in rest and "Exception ignored" not in rest, rest
        assert not group_alive(proc.pid), "a worker process outlived the command"
        assert not (tmp_path / "links.txt").exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
