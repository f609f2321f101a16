"""Unusual inputs of the Python API, tenth sweep (issue 28, docs/errors.md), by class:

- seeds: scikit-learn's convention that ``random_state`` may be a numpy ``RandomState``
  (and a ``Generator``): every estimator (the ten topic models, ``SequenceTagger``,
  ``MRFSegmenter``, ``BayesianAligner``, ``MatchingAligner``) refused one ("random_state
  must be an integer >= 0 or None"); now it draws a 32-bit seed from it once
  (:func:`structpred.resolve_seed`, :func:`structpred.estimator_seed`), so that equal
  instances give equal results, and leaves the parameter as given (``sklearn.base.clone``);
  a model fitted so is saved with the seed drawn (``save`` of the tagger, the segmenter,
  ``MatchingAligner`` and the topic models would have been "Object of type RandomState is
  not JSON serializable");
- worker counts: joblib's ``n_jobs=-1`` (every CPU) and ``-2`` (all but one) were refused
  by ``MRFSegmenter``, ``BayesianAligner`` and ``UnsupervisedAligner`` (and ``--jobs -1`` by
  the commands), and the alignment functions taking ``n_jobs``/``jobs`` ran -1 as one
  thread (``min(2, -1)`` workers); now :func:`structpred.check_n_jobs` everywhere;
- environment: a ``NUMBA_*`` value numba cannot parse (``NUMBA_OPT=x``,
  ``NUMBA_DISABLE_JIT=maybe``, ``NUMBA_DEBUG=zz``) was a warning of nine lines with a
  traceback before the command ran on numba's default, ``NUMBA_CPU_NAME=bogus`` two lines of
  LLVM's, ``NUMBA_CPU_FEATURES=avx`` an LLVM assertion that aborted the process,
  ``NUMBA_CACHE_LOCATOR_CLASSES=zz`` a traceback at the first compilation and
  ``NUMBA_CHROME_TRACE=/tmp`` one at exit: now one line naming the variable and its value,
  exit status 2 (:mod:`structpred._numba_env`).
"""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import structpred as S
from structpred import check_n_jobs, resolve_seed
from structpred.parallel import usable_cpus

from cli_helpers import one_line_error

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

SEEDS = st.integers(0, 2 ** 32 - 1)
#: ``random_state`` values of every class an estimator takes, made fresh from a seed
KINDS = {"int": lambda s: s, "None": lambda s: None, "RandomState": np.random.RandomState,
         "Generator": np.random.default_rng}
BAD_SEEDS = st.one_of(st.booleans(), st.integers(max_value=-1),
                      st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
                      st.just(np.random.SeedSequence(0)), st.just([1, 2]))


# ---------------------------------------------------- a representative of each package
def _topics(seed):
    from topics import LDA

    docs = ["apple pear plum", "car road gear", "apple plum fig", "road car fuel"] * 2
    return LDA(n_topics=2, n_iter=5, random_state=seed).fit(docs).components_


def _sequence(seed):
    from sequence.model import SequenceTagger

    X = [[("a", "N"), ("b", "V"), ("c", "N")], [("c", "N"), ("a", "V")]] * 3
    y = [["B-NP", "O", "B-NP"], ["B-NP", "O"]] * 3
    tagger = SequenceTagger(learner="perceptron", n_iter=3, random_state=seed)
    return tagger.fit(X, y).predict(X)


def _segmentation(seed):
    from segmentation.model import MRFSegmenter

    rng = np.random.default_rng(0)
    images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(2)]
    masks = [rng.random((6, 7)) < 0.5 for _ in range(2)]
    model = MRFSegmenter(n_iter=2, guard=False, valid_fraction=0, random_state=seed)
    return model.fit(images, masks).predict(images)


def _alignment(seed):
    from alignment.aligners.bayes import BayesianAligner

    src, tgt = ["a b c", "b c", "a c d"] * 2, ["x y z", "y z", "x z w"] * 2
    return BayesianAligner(random_state=seed, n_samplers=1).fit_align(src, tgt)


def _core(seed):
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    examples = [S.SimplexExample(F=sp.csr_matrix(rng.normal(size=(4, 3))), z_gold=z)
                for z in np.eye(3)]
    return S.dual_extragradient(examples, S.L2Ball(10), n_iter=3, random_state=seed).w


FITS = {"topics": _topics, "sequence": _sequence, "segmentation": _segmentation,
        "alignment": _alignment, "core": _core}


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


# ------------------------------------------------------------------ class: seeds
@SETTINGS
@given(package=st.sampled_from(sorted(FITS)), kind=st.sampled_from(sorted(KINDS)), seed=SEEDS)
@example(package="segmentation", kind="RandomState", seed=0)
@example(package="alignment", kind="RandomState", seed=0)
def test_random_state_of_every_class_is_taken_and_repeats(package, kind, seed):
    """A numpy ``RandomState`` was "random_state must be an integer >= 0 or None" (the core's
    learners took it): now two equal fresh instances give one result, as an int does."""
    make = KINDS[kind]
    first, second = make(seed), make(seed)
    a, b = FITS[package](first), FITS[package](second)
    if kind != "None":   # None: fresh entropy in some estimators
        assert _same(a, b)
    if kind in ("RandomState", "Generator"):  # advanced alike: by the one draw of its seed
        assert _same(first.random(3), second.random(3))


@SETTINGS
@given(package=st.sampled_from(["topics", "sequence", "segmentation", "alignment"]),
       kind=st.sampled_from(["RandomState", "Generator"]), seed=SEEDS)
def test_an_instance_stands_for_the_seed_drawn_from_it(package, kind, seed):
    """The estimators take the 32-bit seed :func:`structpred.resolve_seed` draws, once."""
    drawn = resolve_seed(KINDS[kind](seed))
    assert 0 <= drawn < 2 ** 32
    assert _same(FITS[package](KINDS[kind](seed)), FITS[package](drawn))


@SETTINGS
@given(seed=BAD_SEEDS, package=st.sampled_from(["topics", "sequence", "segmentation",
                                                "alignment", "matching", "core"]))
def test_bad_random_state_is_refused_naming_it(seed, package):
    """A bool, a negative or fractional number, a string: refused, naming ``random_state``
    (the aligner and the core, which take a ``SeedSequence``, refuse the others)."""
    if package in ("alignment", "core") and isinstance(seed, np.random.SeedSequence):
        return
    with pytest.raises(ValueError, match=r"random_state must be an integer >= 0, None"):
        if package == "matching":
            from alignment.model import MatchingAligner

            MatchingAligner(random_state=seed)._check_params()
        else:
            FITS[package](seed)


@pytest.mark.parametrize("make", [np.random.RandomState, np.random.default_rng])
def test_clone_and_get_params_keep_the_instance(make):
    """``sklearn.base.clone`` copies the instance as given (its state, not a seed), and a
    clone fitted on the copy gives the original's result."""
    from sklearn.base import clone
    from topics import LDA

    docs = ["apple pear plum", "car road gear", "apple plum fig", "road car fuel"] * 2
    rs = make(7)
    model = LDA(n_topics=2, n_iter=5, random_state=rs)
    twin = clone(model)
    assert model.get_params()["random_state"] is rs
    assert type(twin.random_state) is type(rs) and twin.random_state is not rs
    np.testing.assert_array_equal(model.fit(docs).components_, twin.fit(docs).components_)
    assert model.get_params()["random_state"] is rs          # fit left it as given
    before = model.fit(docs).components_                      # drawn once: a refit repeats
    np.testing.assert_array_equal(before, model.fit(docs).components_)


def test_matching_aligner_takes_an_instance():
    from alignment.model import MatchingAligner

    for rs in (np.random.RandomState(0), np.random.default_rng(0)):
        MatchingAligner(random_state=rs)._check_params()


@given(value=st.one_of(st.integers(-2 ** 40, 2 ** 40), BAD_SEEDS))
def test_resolve_seed_of_every_class(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        with pytest.raises(ValueError, match=re.escape("random_state must be")):
            resolve_seed(value)
    else:
        assert resolve_seed(value) == value


# ------------------------------------------------------------------ class: n_jobs
@given(value=st.integers(-10 ** 7, 10 ** 7))
def test_n_jobs_follows_joblib(value):
    """-1: every CPU, -2: all but one, never fewer than 1; 0 refused."""
    if value == 0:
        with pytest.raises(ValueError, match=re.escape("n_jobs must be an integer >= 1 or "
                                                       "negative (-1: every CPU")):
            check_n_jobs(value)
        return
    expected = value if value > 0 else max(1, usable_cpus() + 1 + value)
    assert check_n_jobs(value) == expected


@given(value=st.one_of(st.just(0), st.booleans(), st.floats(), st.text(max_size=3),
                       st.integers(10 ** 7 + 1), st.integers(max_value=-10 ** 7 - 1)))
def test_bad_n_jobs_are_refused(value):
    big = isinstance(value, int) and not isinstance(value, bool) and value != 0
    with pytest.raises(ValueError, match=re.escape(
            "n_jobs must be at most 10,000,000 in size" if big else
            "n_jobs must be an integer >= 1 or negative (-1: every CPU, -2: all but one)")):
        check_n_jobs(value)


@SETTINGS
@given(value=st.integers(-4, -1))
def test_estimators_take_negative_n_jobs(value):
    """``MRFSegmenter``, ``BayesianAligner``, ``UnsupervisedAligner`` refused -1 ("n_jobs
    must be an integer >= 1"); the links do not depend on the count."""
    from alignment.aligners.bayes import BayesianAligner
    from alignment.aligners.unsupervised import UnsupervisedAligner
    from segmentation.model import MRFSegmenter

    model = MRFSegmenter(n_jobs=value)
    model._check_params()
    assert model._jobs(100) == check_n_jobs(value) and model.n_jobs == value
    src, tgt = ["a b c", "b c", "a c d"] * 2, ["x y z", "y z", "x z w"] * 2
    links = BayesianAligner(random_state=0, n_samplers=1, n_jobs=value).fit_align(src, tgt)
    assert links == BayesianAligner(random_state=0, n_samplers=1).fit_align(src, tgt)
    UnsupervisedAligner(n_jobs=value).options()
    for bad in (0, 1.5, "2", True):
        with pytest.raises(ValueError, match="n_jobs must be"):
            BayesianAligner(n_jobs=bad).fit(src, tgt)


def test_alignment_functions_take_negative_jobs():
    """``start_sources`` (and ``train_ibm``, ``train_hmm``, ``train_aligner``) read -1 as one
    worker (``-1 >= 2`` is false) and took 0; now -1 is every CPU and 0 is refused."""
    from alignment.features.links import start_sources

    assert start_sources(["bayes"], [], n_jobs=-1) == {}     # no bitext: nothing to start
    with pytest.raises(ValueError, match=re.escape("n_jobs must be an integer >= 1 or neg")):
        start_sources(["bayes"], [], n_jobs=0)


@given(text=st.one_of(st.integers(-20, 20).map(str), st.sampled_from(["x", "1.5", ""])))
def test_jobs_option_takes_negative_counts(text):
    import argparse

    from structpred.cli import jobs_count

    if text.lstrip("-").isdigit() and int(text) != 0:
        assert jobs_count(text) == check_n_jobs(int(text))
    else:
        with pytest.raises(argparse.ArgumentTypeError, match="must be an integer"):
            jobs_count(text)


def test_jobs_option_in_a_command(capsys):
    from cli_helpers import run_cli

    rc, _, err = run_cli(["topics", "train", "--jobs", "0"], capsys)
    assert one_line_error(rc, err, "--jobs", "-1: every CPU", "'0'"), err
    rc, _, err = run_cli(["segment", "train", "--jobs", "-1"], capsys)
    assert rc == 2 and "--jobs" not in err, err          # refused for the missing -o alone


# ---------------------------------------------- class: NUMBA_* variables numba can't use
def _version_with(name, value):
    """``structpred --version`` with ``name=value``, in a folder of its own (a relative
    ``NUMBA_CHROME_TRACE`` or ``NUMBA_CACHE_DIR`` writes there)."""
    import tempfile

    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update({name: value, "PYTHONPATH": os.pathsep.join(
        [os.path.abspath(os.path.join(os.path.dirname(__file__), "..")),
         env.get("PYTHONPATH", "")])})
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run([sys.executable, "-m", "structpred", "--version"], env=env,
                              cwd=cwd, capture_output=True, text=True, timeout=120)


#: variables numba reads at import, by the kind of value each takes
NUMBA_VARIABLES = ["NUMBA_OPT", "NUMBA_DISABLE_JIT", "NUMBA_DEBUG", "NUMBA_BOUNDSCHECK",
                   "NUMBA_LOOP_VECTORIZE", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES",
                   "NUMBA_CACHE_LOCATOR_CLASSES", "NUMBA_CACHE_DIR", "NUMBA_THREADING_LAYER",
                   "NUMBA_CHROME_TRACE", "NUMBA_DEVELOPER_MODE", "NUMBA_FULL_TRACEBACKS"]
NUMBA_VALUES = st.one_of(st.sampled_from(["x", "maybe", "9", "-1", "1.5", "0", "1", "max",
                                          "bogus", "avx", "+bogus", "/nonexistent/ro path",
                                          "/tmp", "", " "]),
                         st.text(st.characters(codec="ascii", exclude_categories=["Cc"]),
                                 max_size=5))


@pytest.mark.subprocess
@settings(max_examples=8, deadline=None)
@given(name=st.sampled_from(NUMBA_VARIABLES), value=NUMBA_VALUES)
@example(name="NUMBA_OPT", value="x")
@example(name="NUMBA_CPU_FEATURES", value="avx")
def test_numba_variables_run_or_are_named_in_one_line(name, value):
    """Either the command runs (what the variable asks numba for, e.g. ``NUMBA_DEBUG=9``'s
    output, but no warning of a value numba cannot use, of LLVM's, or traceback), or it
    exits 2 with one line naming the variable and its value."""
    res = _version_with(name, value)
    if res.returncode == 0:
        assert "structpred 0" in res.stdout, res.stdout
        assert not re.search("could not be parsed|not a recognized|Traceback|Exception",
                             res.stderr), res.stderr
    else:
        assert one_line_error(res.returncode, res.stderr, f"${name}", repr(value)[:80]), \
            res.stderr


@pytest.mark.subprocess
@pytest.mark.parametrize("name, value", [
    ("NUMBA_OPT", "x"), ("NUMBA_DISABLE_JIT", "maybe"), ("NUMBA_DEBUG", "zz"),
    ("NUMBA_CPU_NAME", "bogus"), ("NUMBA_CPU_FEATURES", "avx"),
    ("NUMBA_CPU_FEATURES", "+bogus"), ("NUMBA_CACHE_LOCATOR_CLASSES", "zz"),
    ("NUMBA_CHROME_TRACE", "/")])
def test_numba_values_it_cannot_use_are_refused(name, value):
    """Each was a warning with a traceback, LLVM's lines, or an abort (status -6)."""
    res = _version_with(name, value)
    assert one_line_error(res.returncode, res.stderr, f"${name}", repr(value)), res.stderr


@pytest.mark.subprocess
@pytest.mark.parametrize("name, value", [("NUMBA_OPT", "max"), ("NUMBA_CPU_NAME", "generic"),
                                         ("NUMBA_CACHE_DIR", "/nonexistent/ro path")])
def test_numba_values_it_reads_run(name, value):
    res = _version_with(name, value)
    assert res.returncode == 0 and not res.stderr.strip(), res.stderr


# ------------------------------------------- class: models fitted with an instance, saved
@pytest.mark.parametrize("owner", ["tagger", "segmenter", "topics"])
def test_a_model_fitted_with_an_instance_saves_the_seed_drawn(owner, tmp_path):
    """Saving was "Object of type RandomState is not JSON serializable" (the topic models:
    an internal ``_Unsupported``); now the file records the seed drawn from the instance, and
    the model loads and predicts as before."""
    rs = np.random.RandomState(11)
    seed = resolve_seed(np.random.RandomState(11))
    path = tmp_path / "m.npz"
    if owner == "tagger":
        from sequence.model import SequenceTagger, load_tagger

        X = [[("a", "N"), ("b", "V")], [("c", "N")]]
        model = SequenceTagger(learner="perceptron", n_iter=2, random_state=rs)
        model.fit(X, [["B-NP", "O"], ["B-NP"]]).save(path)
        loaded = load_tagger(path)
        assert loaded.predict(X) == model.predict(X)
    elif owner == "segmenter":
        from segmentation.model import MRFSegmenter

        rng = np.random.default_rng(0)
        images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(2)]
        masks = [rng.random((6, 7)) < 0.5 for _ in range(2)]
        model = MRFSegmenter(n_iter=1, guard=False, valid_fraction=0, random_state=rs)
        model.fit(images, masks).save(path)
        loaded = MRFSegmenter.load(path)
        assert _same(loaded.predict(images), model.predict(images))
    else:
        from topics import NBSVM, Vocabulary
        from topics._persist import load_model, save_model

        docs = ["apple pear plum", "car road gear", "apple plum fig", "road car fuel"] * 2
        vocab = Vocabulary()
        X = vocab.fit_transform(docs)
        model = NBSVM(random_state=rs).fit(X, ["f", "c"] * 4)
        assert save_model(path, model, model="nbsvm", vocabulary=vocab) == []
        loaded = load_model(path).estimator
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.random_state == seed
