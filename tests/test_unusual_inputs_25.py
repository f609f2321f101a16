"""Sweep 25: a tag set of thousands of labels says how long training may take before the
first iteration.

``tag train`` with 2,500 labels printed nothing for over 90 s: its projected-time line
waited for two measured iterations, and an iteration costs ``tokens x K²``.  Now the
chain kernel is timed on a sample of the first tokens before training
(``sequence.model._kernel_cost``), extrapolated to an iteration and to the cap, and one
line comes at once when that passes the same 10 minutes (``LONG_RUN``); the later line
then begins "measured:".  The clock is replaced by a clock-free cost here
(``_kernel_seconds``): no test depends on timing.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cli_helpers import run_cli
from structpred.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "sequence"
EARLY = re.compile(r"about ([0-9.]+) s per iteration \(([0-9,]+) labels; estimated from the "
                   r"label-pair kernel on [0-9,]+ tokens?, before training\): up to "
                   r"([0-9,]+) min for the cap of ([0-9]+) iterations")


class _Stop(Exception):
    """Raised where the first iteration would begin."""


def _fake_seconds(per_pair, per_table):
    """A clock-free :func:`sequence.model._kernel_seconds`: ``per_pair`` seconds for each
    token-label pair and ``per_table`` for each entry of the ``K x K`` table of a call."""
    def seconds(starts, K, learner):
        return per_pair * K * K * int(starts[-1]) + per_table * K * K
    return seconds


def _stop_before_training(monkeypatch):
    import sequence.model as sm

    def stop(*args, **kwargs):
        raise _Stop

    monkeypatch.setattr(sm, "operator_norm", stop)
    monkeypatch.setattr(sm.SequenceTagger, "_fit_perceptron", stop)


def _many_labels(n_sent, n_labels, length=5, seed=0):
    """Sentences of ``length`` words, each word's label drawn from ``n_labels`` (seeded)."""
    rng = np.random.default_rng(seed)
    X = [[(f"w{rng.integers(40)}",) for _ in range(length)] for _ in range(n_sent)]
    y = [[f"L{rng.integers(n_labels)}" for _ in range(length)] for _ in range(n_sent)]
    return X, y


def _write(path, X, y):
    path.write_text("".join("".join(f"{w} {t}\n" for (w,), t in zip(s, ls)) + "\n"
                            for s, ls in zip(X, y)))
    return path


def _projection(per_pair, per_table, K, N, n_sent, learner, n_iter, batch=500):
    """The formula of ``SequenceTagger._announce_projection`` under :func:`_fake_seconds`:
    ``calls * (B * c0 + N * c1) * n_iter``."""
    c0, c1 = per_table * K * K, per_pair * K * K
    calls, B = (1, 1) if learner == "perceptron" else (2, -(-n_sent // batch))
    per = calls * (B * c0 + N * c1)
    return per, per * n_iter


def test_tag_train_says_the_projection_of_1500_labels_before_the_first_iteration(
        tmp_path, capsys, monkeypatch):
    """1,500 labels over 400 sentences: the line comes before any iteration, off a
    terminal, once, with the formula's figures."""
    import sequence.model as sm

    monkeypatch.setattr(sm, "_kernel_seconds", _fake_seconds(1e-8, 1e-7))
    _stop_before_training(monkeypatch)
    X, y = _many_labels(400, 1500, length=6)
    data = _write(tmp_path / "train.txt", X, y)
    with pytest.raises(_Stop):
        run_cli(["tag", "train", "--data", str(data), "-o", str(tmp_path / "m.npz")], capsys)
    err = capsys.readouterr().err
    found = [m for m in map(EARLY.search, err.splitlines()) if m]
    assert len(found) == 1, err
    held = [i for i in range(400) if i % 10 != 9]   # tag train validates on every 10th
    K = len({t for i in held for t in y[i]})
    per, total = _projection(1e-8, 1e-7, K, 6 * len(held), len(held), "bregman", 300)
    assert found[0].group(1) == f"{per:.1f}" and found[0].group(2) == str(K), err
    assert found[0].group(3) == f"{total / 60:.0f}" and found[0].group(4) == "300", err
    assert not (tmp_path / "m.npz").exists()


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_labels=st.integers(2, 300), n_iter=st.integers(1, 3000),
       per_pair=st.sampled_from([1e-9, 1e-8, 1e-6]),
       learner=st.sampled_from(["bregman", "euclidean", "perceptron"]))
def test_the_early_line_comes_when_the_extrapolation_passes_ten_minutes(
        monkeypatch, capsys, n_labels, n_iter, per_pair, learner):
    """The line comes exactly when ``calls * (B * c0 + N * c1) * n_iter`` passes
    ``LONG_RUN``; never without ``verbose``."""
    import sequence.model as sm
    from sequence import SequenceTagger

    monkeypatch.setattr(sm, "_kernel_seconds", _fake_seconds(per_pair, 1e-7))
    _stop_before_training(monkeypatch)
    X, y = _many_labels(40, n_labels, length=4)
    K = len({t for s in y for t in s})
    per, total = _projection(per_pair, 1e-7, K, 160, 40, learner, n_iter)
    assume(abs(total - sm.LONG_RUN) > 1.0)
    for verbose in (True, False):
        capsys.readouterr()
        with pytest.raises(_Stop):
            SequenceTagger(learner=learner, n_iter=n_iter, min_count=1,
                           verbose=verbose).fit(X, y)
        found = [m for m in map(EARLY.search, capsys.readouterr().err.splitlines()) if m]
        assert len(found) == (1 if verbose and total > sm.LONG_RUN else 0), (per, total)
        if found:
            assert found[0].group(1) == f"{per:.1f}"


@pytest.mark.parametrize("name", ["conll2000-train-300.txt.gz", "treebank-pos-200.txt.gz"])
def test_bundled_data_prints_no_projection(tmp_path, capsys, monkeypatch, name):
    """CoNLL-2000 (23 labels) and the treebank (45): nothing new, even at a clock five
    times slower per label pair than the 2-core machine's kernel (about 2e-9 s)."""
    import sequence.model as sm

    calls = []
    fake = _fake_seconds(1e-8, 1e-7)

    def spy(starts, K, learner):
        calls.append(K)
        return fake(starts, K, learner)

    monkeypatch.setattr(sm, "_kernel_seconds", spy)
    _stop_before_training(monkeypatch)
    with pytest.raises(_Stop):
        run_cli(["tag", "train", "--data", str(DATA / name), "-o", str(tmp_path / "m.npz")],
                capsys)
    err = capsys.readouterr().err
    assert calls and max(calls) <= 45, calls    # measured, and nothing said
    assert "per iteration" not in err, err


def test_the_measurement_is_small_and_real():
    """The real clock (no figure asserted): a sample of at most ``SAMPLE_TOKENS`` tokens,
    and costs that are finite and not negative, for each learner's kernel."""
    import sequence.model as sm

    lengths = np.array([7, 30, 1, 400], dtype=np.int64)
    for learner in ("bregman", "perceptron"):
        m, c0, c1 = sm._kernel_cost(lengths, 45, learner)
        assert m == sm.SAMPLE_TOKENS and np.isfinite([c0, c1]).all() and min(c0, c1) >= 0
    m, _, _ = sm._kernel_cost(np.array([1]), 1000, "bregman")
    assert m == 1


@pytest.mark.parametrize("learner", ["bregman", "perceptron"])
def test_the_measurement_leaves_the_model_unchanged(tmp_path, monkeypatch, capsys, learner):
    """The same model file, byte for byte (its CPU time aside), whether the kernel was
    timed and the line printed (``LONG_RUN`` 0) or the measurement left out."""
    import sequence.model as sm
    from sequence import SequenceTagger
    from sequence.data import read_conll

    X, y = read_conll(DATA / "conll2000-train-300.txt.gz")[:2]
    files = []
    for timed in (True, False):
        monkeypatch.setattr(sm, "LONG_RUN", 0.0)
        if not timed:
            monkeypatch.setattr(sm.SequenceTagger, "_announce_projection",
                                lambda self, *args: None)
        capsys.readouterr()
        tagger = SequenceTagger(learner=learner, n_iter=3, eval_every=1, verbose=True,
                                random_state=3).fit(X[:50], y[:50], eval_set=(X[50:60],
                                                                            y[50:60]))
        assert bool(EARLY.search(capsys.readouterr().err)) == timed
        tagger.fit_time_ = 0.0
        tagger.save(tmp_path / f"{timed}.npz")
        history = {k: v for k, v in tagger.history_.items() if k != "time"}
        files.append((tagger.coef_.tobytes(), history,
                      (tmp_path / f"{timed}.npz").read_bytes()))
    assert files[0][:2] == files[1][:2]
    assert files[0][2] == files[1][2]


def test_the_later_line_says_it_is_measured_after_the_early_one(monkeypatch, capsys):
    """Both lines with ``LONG_RUN`` 0: the early estimate, then "measured:" (not the same
    line twice)."""
    import sequence.model as sm
    from sequence import SequenceTagger

    monkeypatch.setattr(sm, "LONG_RUN", 0.0)
    X, y = _many_labels(12, 6, length=4)
    SequenceTagger(n_iter=4, eval_every=1, min_count=1, verbose=True).fit(X, y)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "per iteration" in ln]
    assert len(lines) == 2 and EARLY.search(lines[0]), lines
    assert "measured: about " in lines[1] and "estimated" not in lines[1], lines
