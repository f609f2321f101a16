"""Sweep 24: unusual inputs by size and extreme shape.

* A class weight beyond [1e-6, 1e6] (``segment train --class-weight``,
  ``MRFSegmenter(class_weight=...)``): it multiplies the loss of the foreground, and 1e300
  overflowed the learner's iterates, refused as "the point to project must be finite"
  named after the mask folder (1e308: "give a smaller step"); 9.2e18 trained with exit 0.
* A sentence pair too large for the exact decoder of a +Q aligner (``align predict`` of a
  M+F+Q model, ``MatchingAligner.predict``): the ILP's time has no bound in the size (300 x
  300 words took 80 s, 999 x 999 over 12 minutes and 7 GB in one call of SCIP that
  SIGTERM could not stop); pairs above ``MAX_ILP_CELLS`` word pairs are decoded by the LP
  relaxation, rounded to the nearest links within the fertility limit by a min-cost flow
  (not the ILP), and named in one warning (the command: with the first line); the choice
  of ``--model auto`` on validation decodes them so without a word.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

# ---------------------------------------------------------------- class weights

OUT_OF_RANGE = st.one_of(st.floats(min_value=1.0000001e6, max_value=1e308),
                         st.floats(min_value=1e-300, max_value=0.99999e-6))


@SETTINGS
@given(value=OUT_OF_RANGE)
def test_class_weight_out_of_range_is_refused_by_the_estimator(value):
    from segmentation import MRFSegmenter

    image = np.zeros((4, 4, 3), np.uint8)
    with pytest.raises(ValueError, match=re.escape("class_weight must be from 1e-06 to 1e+06")):
        MRFSegmenter(class_weight=value).fit([image], [np.eye(4, dtype=bool)])


@SETTINGS
@given(value=OUT_OF_RANGE, listed=st.booleans())
def test_class_weight_out_of_range_is_refused_by_segment_train(tmp_path, capsys, value,
                                                                listed):
    text = repr(value) if not listed else f"1,{value!r}"
    rc, _, err = run_cli(["segment", "train", "--images", str(tmp_path / "images"),
                          "--masks", str(tmp_path / "masks"), "--class-weight", text,
                          "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "--class-weight", "from 1e-06 to 1e+06"), err


@pytest.mark.parametrize("value", [1e-6, 1.0, 1e6])
def test_class_weight_at_the_bounds_is_taken(value):
    from segmentation.examples import class_weights

    assert class_weights(value, 0.3) == (value, 1.0)


# ------------------------------------------------- +Q aligners on very long pairs

@SETTINGS
@given(m=st.integers(1, 1000), n=st.integers(1, 1000),
       decoder=st.sampled_from(["ortools", "pulp", "lp"]), interactions=st.booleans())
def test_oversize_pairs_are_those_of_the_ilp(m, n, decoder, interactions):
    """A pair above ``MAX_ILP_CELLS`` word pairs is named (one warning) for a +Q model that
    decodes by the ILP, and for no other."""
    import warnings

    from alignment.model import MAX_ILP_CELLS, LPDecodingWarning, MatchingAligner

    model = MatchingAligner(max_fertility=2, interactions=interactions, decoder=decoder)
    named = interactions and decoder != "lp" and m * n > MAX_ILP_CELLS
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        big = model.oversize_for_ilp([_long_pair(2, 2), _long_pair(m, n)])
    assert big == ([1] if named else [])
    assert [str(w.message) for w in seen if w.category is LPDecodingWarning] == (
        [f"1 sentence pair over {MAX_ILP_CELLS:,} word pairs (the first: pair 1) decoded "
         "by the LP relaxation, rounded to the nearest links within the fertility limit: the "
         "exact decoder's time has no bound in the size (split such sentences for exact "
         "links)"] if named else [])


@settings(max_examples=40, deadline=None)
@given(data=st.data(), m=st.integers(1, 4), n=st.integers(1, 4), D=st.integers(1, 2))
def test_lp_rounding_repaired_without_the_ilp_is_the_nearest_within_fertility(data, m, n, D):
    """``decode_qap(backend="lp", exact_repair=False)``: the rounded LP edges when they keep
    every degree within ``D``, else the 0/1 edges nearest the LP's in L1 within the limit
    (brute force over every edge set), never the ILP."""
    import itertools

    from structpred.polytopes._qap import decode_qap

    floats = st.floats(-3, 3, allow_nan=False, width=32)
    s = np.array(data.draw(st.lists(floats, min_size=m * n, max_size=m * n))).reshape(m, n)
    ps = np.abs(np.array(data.draw(st.lists(floats, min_size=(D - 1) * m,
                                            max_size=(D - 1) * m)))).reshape(D - 1, m)
    pt = np.abs(np.array(data.draw(st.lists(floats, min_size=(D - 1) * n,
                                            max_size=(D - 1) * n)))).reshape(D - 1, n)
    cells = [(a, b) for a in range(m * n) for b in range(a + 1, m * n)]
    assume(cells)        # without pairs of edges the LP is a min-cost flow, integral
    pairs = np.array(data.draw(st.lists(st.sampled_from(cells), min_size=1, max_size=4,
                                        unique=True)), dtype=np.int64).reshape(-1, 2)
    q = np.array(data.draw(st.lists(floats, min_size=len(pairs), max_size=len(pairs))))
    sol = decode_qap(s, ps, pt, pairs, q, backend="lp", exact_repair=False)
    x = sol.lp_edges
    y = sol.y
    assert y.sum(1).max() <= D and y.sum(0).max() <= D
    rounded = (x > 0.5).astype(np.int64)
    if rounded.sum(1).max() <= D and rounded.sum(0).max() <= D:
        np.testing.assert_array_equal(y, rounded)
        return
    best = max(np.sum(np.reshape(c, (m, n)) * (2 * x - 1))
               for c in itertools.product((0, 1), repeat=m * n)
               if np.reshape(c, (m, n)).sum(1).max() <= D and np.reshape(c, (m, n)).sum(0).max() <= D)
    assert np.sum(y * (2 * x - 1)) >= best - 1e-6


def test_lp_rounding_repairs_are_the_nearest_within_fertility():
    """Instances (seeded) whose LP edges rounded at 1/2 give a word more than ``D = 2``
    links: the repair without the ILP is the L1-nearest 0/1 point within the limit, checked
    by brute force over every edge set (the hypothesis test above seldom draws one)."""
    from structpred.polytopes._qap import decode_qap

    rng, repaired = np.random.default_rng(0), 0
    for _ in range(400):
        m, n, D = int(rng.integers(2, 5)), int(rng.integers(2, 5)), 2
        s = rng.normal(size=(m, n))
        ps, pt = np.abs(rng.normal(size=(1, m))) * 0.3, np.abs(rng.normal(size=(1, n))) * 0.3
        cells = [(a, b) for a in range(m * n) for b in range(a + 1, m * n)]
        pairs = np.array([cells[i] for i in rng.choice(len(cells), 4, replace=False)])
        sol = decode_qap(s, ps, pt, pairs, rng.normal(size=4) * 2, backend="lp",
                         exact_repair=False)
        x = sol.lp_edges
        if (x > 0.5).sum(1).max() <= D and (x > 0.5).sum(0).max() <= D:
            continue
        repaired += 1
        every = (np.arange(2 ** (m * n))[:, None] >> np.arange(m * n)) & 1
        every = every.reshape(-1, m, n)
        ok = (every.sum(2).max(1) <= D) & (every.sum(1).max(1) <= D)
        best = (every[ok] * (2 * x - 1)).sum((1, 2)).max()
        y = sol.y
        assert y.sum(1).max() <= D and y.sum(0).max() <= D
        assert np.sum(y * (2 * x - 1)) >= best - 1e-6
    assert repaired >= 3


@pytest.fixture(scope="module")
def q_model(hansards, small_stats, tmp_path_factory):
    """A +Q model trained for one iteration on three sentences, and its file."""
    from conftest import TEST_BITEXT_PAIRS
    from alignment.model import MatchingAligner
    from alignment.stats.interactions import InteractionStatistics

    inter = InteractionStatistics.from_files(small_stats, hansards.bitext_src,
                                             hansards.bitext_tgt, max_pairs=TEST_BITEXT_PAIRS)
    model = MatchingAligner(max_fertility=1, interactions=True, n_iter=1, random_state=0)
    model.fit(hansards.test_pairs[:3], hansards.test_gold[:3], small_stats,
              interaction_stats=inter)
    path = tmp_path_factory.mktemp("q") / "q.npz"
    model.save(path)
    return model, path


def _long_pair(m, n):
    return [f"w{i}" for i in range(m)], [f"v{i}" for i in range(n)]


def test_predict_decodes_an_oversize_pair_by_the_lp_without_the_ilp(q_model, hansards,
                                                                  monkeypatch):
    """``predict`` of a +Q model on a pair above ``MAX_ILP_CELLS`` word pairs: links within
    the fertility limit, one warning, and no integer program for it (it was refused; the
    ILP before that ran without bound)."""
    import structpred.polytopes._qap as qap
    from alignment.model import MAX_ILP_CELLS, LPDecodingWarning

    model, _ = q_model
    side = int(MAX_ILP_CELLS ** 0.5) + 1
    build, integer_sizes = qap._build_lp, []

    def spy(backend, s, *args):
        if args[-1]:
            integer_sizes.append(s.size)
        return build(backend, s, *args)

    monkeypatch.setattr(qap, "_build_lp", spy)
    pairs = [hansards.test_pairs[0], _long_pair(side, side)]
    with pytest.warns(LPDecodingWarning, match=re.escape("(the first: pair 1)")) as seen:
        out = model.predict(pairs)
    assert len([w for w in seen if w.category is LPDecodingWarning]) == 1
    assert len(out) == 2 and all(s <= MAX_ILP_CELLS for s in integer_sizes)
    y = np.zeros((side, side), dtype=int)
    for j, k in out[1].sure:
        y[j, k] = 1
    assert y.sum(1).max(initial=0) <= model.max_fertility >= y.sum(0).max(initial=0)


def test_align_predict_names_the_first_line_decoded_by_the_lp(q_model, tmp_path, capsys):
    from alignment.model import MAX_ILP_CELLS

    _, path = q_model
    side = MAX_ILP_CELLS // 100 + 1          # 100 x 401 words
    src, tgt = tmp_path / "a.en", tmp_path / "a.fr"
    src.write_text("the house rose .\n" + " ".join(f"w{i}" for i in range(side)) + "\n")
    tgt.write_text("la chambre se lève .\n" + " ".join(f"v{i}" for i in range(100)) + "\n")
    rc, _, err = run_cli(["align", "predict", "-m", str(path), "--src", str(src),
                          "--tgt", str(tgt), "-o", str(tmp_path / "out.txt")], capsys)
    lines = [ln for ln in err.splitlines() if "LP relaxation" in ln]
    assert rc == 0 and len((tmp_path / "out.txt").read_text().splitlines()) == 2, err
    assert lines == [f"structpred: warning: {src} and {tgt}: 1 sentence pair over "
                     f"{MAX_ILP_CELLS:,} word pairs (the first: line 2) decoded by the LP "
                     "relaxation, rounded to the nearest links within the fertility limit: "
                     "the exact decoder's time has no bound in the size (split such "
                     "sentences for exact links)"], err


def test_model_choice_decodes_long_validation_pairs_by_the_lp_silently(q_model):
    """``--model auto``'s choice on validation sentences decodes a pair too large for the
    ILP by the LP relaxation (it ran the ILP, without bound in time), without a warning."""
    import warnings

    from alignment.model import MAX_ILP_CELLS
    from alignment.training import _predict_bounded

    model, _ = q_model
    side = int(MAX_ILP_CELLS ** 0.5) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = _predict_bounded(model, [_long_pair(3, 4), _long_pair(side, side)])
    assert len(out) == 2


# ------------------------------------ the Bayesian aligner on a handful of pairs

@pytest.mark.parametrize("n_pairs,side", [(1, ("a", "x")), (3, ("a", "x")),
                                          (20, ("a b c", "x y z"))])
def test_bayes_without_any_link_warns(tmp_path, capsys, n_pairs, side):
    """A pair alone, or copies of one pair: the samplers linked no word (eflomal too), and
    the output was empty lines, exit 0, without a word."""
    src, tgt = tmp_path / "a.en", tmp_path / "a.fr"
    src.write_text((side[0] + "\n") * n_pairs)
    tgt.write_text((side[1] + "\n") * n_pairs)
    out = tmp_path / "links.txt"
    rc, _, err = run_cli(["align", "unsupervised", "--model", "bayes", "--src", str(src),
                          "--tgt", str(tgt), "-o", str(out)], capsys)
    assert rc == 0 and out.read_text() == "\n" * n_pairs
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"structpred: warning: {src}: the "
                                                   "Bayesian aligner linked no word"), err
    assert "--bitext-src" in lines[0] and "--model hmm" in lines[0]


def test_bayes_with_links_does_not_warn(hansards, tmp_path, capsys):
    src, tgt = tmp_path / "a.en", tmp_path / "a.fr"
    pairs = hansards.test_pairs[:40]
    src.write_text("".join(" ".join(s) + "\n" for s, _ in pairs))
    tgt.write_text("".join(" ".join(t) + "\n" for _, t in pairs))
    rc, _, err = run_cli(["align", "unsupervised", "--model", "bayes", "--src", str(src),
                          "--tgt", str(tgt), "-o", str(tmp_path / "links.txt")], capsys)
    assert rc == 0 and "warning" not in err, err


# ------------------------------------------------ point clouds of one position

@SETTINGS
@given(n=st.integers(1, 40), at=st.tuples(*[st.floats(-1e4, 1e4)] * 3),
       voxel=st.sampled_from([0.01, 0.25, 1.0]))
def test_points_at_one_position_are_named_as_such(n, at, voxel):
    """Every point of a scan at one position: the refusal said "give a smaller voxel size",
    which cannot help."""
    from segmentation.points import point_graph

    xyz = np.tile(np.asarray(at, dtype=np.float64), (n, 1))
    with pytest.raises(ValueError, match=re.escape("a segmentation needs points at at "
                                                   "least 2 distinct positions")):
        point_graph(xyz, voxel=voxel)


def test_segment_train_names_a_scan_of_one_position(tmp_path, capsys):
    scan = tmp_path / "scan.txt"
    scan.write_text("".join(f"1 2 3 {1300 + 100 * (i % 2)} 1\n" for i in range(50)))
    rc, _, err = run_cli(["segment", "train", "--points", str(scan), "--foreground-labels",
                          "1300-1306", "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, str(scan), "holds 50 points, all at (1.0, 2.0, 3.0)"), err
    assert "smaller voxel" not in err


# ------------------------------------------------- taggers of very many labels

def _many_labels(n_sent, n_labels, seed=0):
    rng = np.random.default_rng(seed)
    X = [[(f"w{rng.integers(50)}",) for _ in range(6)] for _ in range(n_sent)]
    y = [[f"L{rng.integers(n_labels)}" for _ in range(6)] for _ in range(n_sent)]
    return X, y


@SETTINGS
@given(n_labels=st.integers(2, 60), memory=st.integers(10_000, 3_000_000),
       learner=st.sampled_from(["bregman", "euclidean"]))
def test_tagger_refuses_label_tables_beyond_memory_before_building_them(monkeypatch,
                                                                         n_labels, memory,
                                                                         learner):
    """16,000 labels took the machine's memory (the run was killed without a word): the
    label-pair tables are counted before any is built, and refused beyond the memory."""
    import structpred
    import sequence.model as sm
    from sequence import SequenceTagger

    X, y = _many_labels(8, n_labels)
    K = len({t for s in y for t in s})
    monkeypatch.setattr(structpred, "physical_memory", lambda: memory)
    built = []

    def build(*args, **kwargs):
        built.append(1)
        raise ZeroDivisionError   # not built here: it fits

    monkeypatch.setattr(sm, "ChainExample", build)
    tagger = SequenceTagger(n_iter=1, learner=learner, min_count=1)
    try:
        tagger.fit(X, y)
    except ValueError as exc:
        assert str(exc).startswith(f"{K:,} labels: training needs about "), exc
        assert f"machine's {memory / 2**30:,.1f} GiB" in str(exc) and not built
    except ZeroDivisionError:   # it fits: the examples are built
        assert K * K * 8 < memory
    else:
        raise AssertionError("neither refused nor built")


def test_tag_train_names_the_labels_beyond_memory(tmp_path, capsys, monkeypatch):
    import structpred

    X, y = _many_labels(30, 400)
    data = tmp_path / "train.txt"
    data.write_text("".join("".join(f"{w} {t}\n" for (w,), t in zip(s, ls)) + "\n"
                            for s, ls in zip(X, y)))
    monkeypatch.setattr(structpred, "physical_memory", lambda: 2**20)
    rc, _, err = run_cli(["tag", "train", "-q", "--data", str(data), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{data}:", "labels: training needs about",
                          "beyond this machine's 0.0 GiB of memory"), err


# ------------------------------------------------ more topics than word tokens

@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=st.integers(1, 10**7), model=st.sampled_from(["lda-svm", "medlda-gibbs"]))
def test_topics_train_refuses_more_topics_than_tokens(tmp_path, capsys, extra, model):
    """``--n-topics 1000000`` on 100 posts sampled for hours, and SIGTERM could not stop
    the sampler; a topic beyond the training tokens can never be filled.  (Counts whose
    tables pass the machine's memory: beyond it, the memory refusal comes first,
    ``tests/topics/test_topics_cli.py``.)"""
    docs = ["apple banana cherry grape melon", "banana cherry apple lemon grape",
            "car engine wheel brake motor", "engine wheel car road motor"] * 2
    data = tmp_path / "d.tsv"
    data.write_text("".join(f"{'fruit' if i % 4 < 2 else 'car'}\t{d}\n"
                            for i, d in enumerate(docs)))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", model,
                          "--n-topics", str(40 + extra), "-o", str(tmp_path / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, f"--n-topics {40 + extra}: more topics than the 40 "
                                   "word tokens"), err


def test_segment_train_without_validation_says_so(tmp_path, capsys):
    """Two training images leave none to validate: the first pass's line said "IoU - at
    iteration None"; it says there was no validation."""
    from pathlib import Path

    h = Path(__file__).resolve().parents[1] / "data/segmentation/weizmann_horse/small"
    rc, _, err = run_cli(["segment", "train", "--images", f"{h}/images", "--masks",
                          f"{h}/masks", "--limit", "2", "--iterations", "3", "-o",
                          str(tmp_path / "m.npz")], capsys)
    first = [ln for ln in err.splitlines() if "first pass" in ln]
    assert rc == 0 and len(first) == 1, err
    assert "first pass (unary, base features): no validation; colour models" in first[0]
    assert "None" not in first[0]


# ---------------------------------------- signals during a long compiled solver call

class _Stop(Exception):
    pass


def test_interruptible_call_stops_the_call_on_a_signal():
    """A signal's handler runs while the call goes on in its helper thread (OR-Tools' SCIP
    held Ctrl-C for the whole solve, over 100 s on one large quadratic assignment): the
    exception comes at once, and ``stop`` (the solver's ``InterruptSolve``) is called."""
    import os
    import signal
    import threading

    from structpred.parallel import interruptible_call

    def handler(signum, frame):
        raise _Stop()

    release, stopped = threading.Event(), []
    old = signal.signal(signal.SIGUSR1, handler)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1))
    try:
        timer.start()
        with pytest.raises(_Stop):
            interruptible_call(lambda: release.wait(60), stop=lambda: (stopped.append(1),
                                                                         release.set()))
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR1, old)
    assert stopped == [1]


def test_interruptible_call_returns_and_raises_as_the_call():
    import threading

    from structpred.parallel import interruptible_call

    assert interruptible_call(lambda: 41 + 1) == 42
    with pytest.raises(ZeroDivisionError):
        interruptible_call(lambda: 1 / 0)
    out = []                           # outside the main thread: called directly
    t = threading.Thread(target=lambda: out.append(
        interruptible_call(threading.current_thread)))
    t.start()
    t.join()
    assert out == [t]


def test_ortools_solves_are_interruptible(monkeypatch):
    """The QAP decoder's OR-Tools solve (SCIP, or GLOP for the LP) goes through
    :func:`structpred.parallel.interruptible_call` with the solver's ``InterruptSolve``."""
    import structpred.polytopes._qap as qap

    calls = []

    def spy(func, stop=None, poll=0.05):
        calls.append((func.__name__, getattr(stop, "__name__", None)))
        return func()

    monkeypatch.setattr(qap, "interruptible_call", spy)
    s = np.array([[1.0, 0.5], [0.5, 1.0]])
    for backend in ("ortools", "lp"):
        qap.decode_qap(s, None, None, np.array([[0, 3]]), np.array([0.5]), backend=backend)
    assert calls == [("Solve", "InterruptSolve")] * 2


@pytest.mark.parametrize("scale", [1e-10, 1e-300, 1e8])
@pytest.mark.parametrize("backend", ["lp", "ortools"])
def test_scores_far_from_one_are_decoded_as_at_one(backend, scale):
    """Scores of 1e-10 (a random example) ended GLOP "ABNORMAL" (status 4, a
    ``RuntimeError``): the objective is scaled by a power of two, which leaves the
    maximiser as it is; the links are those of the same scores at unit scale."""
    from structpred.polytopes._qap import decode_qap

    rng = np.random.default_rng(3)
    s, pt = rng.normal(size=(3, 3)), np.abs(rng.normal(size=(1, 3)))
    ps, q = np.abs(rng.normal(size=(1, 3))), rng.normal(size=4)
    pairs = np.array([[0, 4], [1, 5], [3, 7], [2, 8]])
    unit = decode_qap(s, ps, pt, pairs, q, backend=backend).y
    np.testing.assert_array_equal(
        decode_qap(s * scale, ps * scale, pt * scale, pairs, q * scale, backend=backend).y, unit)
    tiny = decode_qap(np.zeros((1, 2)), np.zeros((1, 1)), np.array([[0.0, 1e-10]]),
                      np.array([[0, 1]]), np.array([1e-10]), backend=backend)
    assert tiny.y.shape == (1, 2)
    mixed = decode_qap(np.array([[0.0, 0.0], [1e-10, 0.0]]), np.zeros((1, 2)),   # beside 1
                       np.array([[1e-10, 1.0]]), np.array([[0, 1]]), np.array([0.0]),
                       backend=backend)
    assert mixed.y.shape == (2, 2)


def test_an_ascii_control_character_does_not_make_a_word_impossible():
    """``'¡,\\x1b'`` (a random CSV document: an inverted mark and an ESC) was "a word no text
    holds" and its file refused as GB18030 or Big5: only C1 controls (U+0080 to U+009F),
    which GB18030 read as UTF-8 gives, mark such a word."""
    from structpred.io._encoding import _impossible_word, implausible_utf8_reason

    assert not _impossible_word("¡,\x1b") and _impossible_word("a\x85b")
    assert implausible_utf8_reason("¡,\x1b\n".encode()) is None
