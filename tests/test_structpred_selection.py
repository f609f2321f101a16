"""structpred.selection: the paired bootstrap against exact enumeration, and the guarded
choice of a default in both score directions."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structpred.selection import (Candidate, describe_choice, fit_candidates,
                                  paired_bootstrap, prefer_default)


def _exact_p_not_better(a, b, score, greater):
    n = len(a)
    sign = 1.0 if greater else -1.0
    hits = 0
    total = 0
    for idx in itertools.product(range(n), repeat=n):
        idx = list(idx)
        d = sign * (score(b[idx].sum(0)) - score(a[idx].sum(0)))
        hits += d <= 0
        total += 1
    return hits / total


def test_accuracy_bootstrap_matches_enumeration():
    a = np.array([1, 0, 0])          # default: 1 of 3 right
    b = np.array([1, 1, 0])          # candidate: 2 of 3 right
    exact = _exact_p_not_better(a[:, None], b[:, None], lambda s: s[..., 0] / 3, True)
    r = paired_bootstrap(a, b, n_boot=40000, random_state=1)
    assert r.difference == pytest.approx(1 / 3)
    assert r.p_not_better == pytest.approx(exact, abs=0.01)
    assert r == paired_bootstrap(a, b, n_boot=40000, random_state=1)


def test_ratio_score_lower_is_better_matches_enumeration():
    # per-item (errors, total): an error rate, lower is better
    a = np.array([[2, 5], [1, 4], [3, 3]])
    b = np.array([[1, 5], [1, 4], [1, 3]])

    def rate(s):
        return s[..., 0] / s[..., 1]

    exact = _exact_p_not_better(a, b, rate, False)
    r = paired_bootstrap(a, b, rate, greater_is_better=False, n_boot=40000, random_state=2)
    assert r.difference == pytest.approx(rate(a.sum(0)) - rate(b.sum(0)))
    assert r.difference > 0
    assert r.p_not_better == pytest.approx(exact, abs=0.01)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=30), st.integers(0, 2**31 - 1))
def test_bootstrap_is_antisymmetric_in_its_mean(flags, seed):
    a = np.array(flags, int)
    b = 1 - a
    r = paired_bootstrap(a, b, n_boot=200, random_state=seed)
    s = paired_bootstrap(b, a, n_boot=200, random_state=seed)
    assert r.difference == pytest.approx(-s.difference)
    assert 0.0 <= r.p_not_better <= 1.0
    assert r.interval[0] <= r.difference + 1e-12 or r.interval[0] <= r.interval[1]


def test_bootstrap_refuses_mismatched_or_empty():
    with pytest.raises(ValueError, match="shape"):
        paired_bootstrap(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="N >= 1"):
        paired_bootstrap(np.ones(0), np.ones(0))
    with pytest.raises(ValueError, match="numeric"):
        paired_bootstrap(np.array(["a"]), np.array(["b"]))


class _Model:
    def __init__(self, value):
        self.value = value

    def fit(self):
        # validation correctness on 200 items: the value is the accuracy
        rng = np.random.default_rng(0)
        u = rng.random(200)
        self.correct_ = (u < self.value).astype(int)


def _fit(m):
    m.fit()


def _acc(m):
    return float(m.correct_.mean())


@pytest.mark.parametrize("jobs", [1, 2])
def test_fit_candidates_ranks_best_first(jobs):
    ranked = fit_candidates(_Model, [0.5, 0.9, 0.7], _fit, jobs=jobs, score_of=_acc)
    assert [c.value for c in ranked] == [0.9, 0.7, 0.5]
    low = fit_candidates(_Model, [0.5, 0.9, 0.7], _fit, score_of=_acc, greater_is_better=False)
    assert [c.value for c in low] == [0.5, 0.7, 0.9]
    with pytest.raises(ValueError):
        fit_candidates(_Model, [], _fit, score_of=_acc)


def test_prefer_default_keeps_default_unless_clearly_beaten():
    def ranked(values):
        return fit_candidates(_Model, values, _fit, score_of=_acc)

    # a clear win replaces the default
    r = ranked([0.5, 0.9])
    kept, p = prefer_default(r, 0.5, lambda m: m.correct_)
    assert kept.value == 0.9 and p < 0.05
    # a hair's difference (1 item of 200) does not
    r = [Candidate("default", _Model(0), 0.50, None, 0.0),
         Candidate("other", _Model(0), 0.505, None, 0.0)]
    a = np.zeros(200, int)
    a[:100] = 1
    b = a.copy()
    b[100] = 1
    stats = {"default": a, "other": b}
    r[0].model.key, r[1].model.key = "default", "other"
    ordered = sorted(r, key=lambda c: -c.score)
    kept, p = prefer_default(ordered, "default", lambda m: stats[m.key])
    assert kept.value == "default" and p >= 0.05
    line = describe_choice("C", ordered, kept, p, "default")
    assert "chose default" in line and "only" in line
    # the default being best needs no bootstrap
    kept, p = prefer_default(sorted(r, key=lambda c: c.score), "default", None)
    assert kept.value == "default" and p is None


class _Box:
    """A model that records whether Ctrl-C is ignored in the process that fits it."""

    def __init__(self, value):
        self.value = value
        self.ignored = None


def _record_sigint(model):
    import signal

    model.ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_forked_candidate_workers_leave_ctrl_c_to_the_driver():
    # a terminal sends Ctrl-C to the whole process group: a worker that handled it would
    # print its own traceback ("Process ForkPoolWorker-2: ...") beside the driver's one line
    import threading

    if threading.active_count() > 1:
        pytest.skip("candidates are fitted in this process while other threads run")
    ranked = fit_candidates(_Box, [1, 2], _record_sigint, jobs=2,
                            score_of=lambda m: float(m.ignored))
    assert [c.model.ignored for c in ranked] == [True, True]
