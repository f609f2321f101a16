"""Unusual inputs of the Python API, twelfth sweep (issue 28, docs/errors.md), by class:

- seeds of functions: the estimators took a numpy ``RandomState`` or ``Generator`` as the
  seed :func:`structpred.resolve_seed` draws from it (sweep 10), but the functions did not:
  ``run_bayes`` refused one ("the bayes run needs an integer random_state"), and the
  solvers, the bootstraps, the colour model, the topic splits and SVMs passed it to
  ``numpy.random.default_rng``, which uses a ``RandomState``'s own bit generator, so
  ``RandomState(7)`` gave another result than the seed drawn from it; now every public
  function taking ``random_state``/``seed`` goes through :func:`structpred.seed_generator`
  or :func:`structpred.resolve_seed`;
- ``NUMBA_*`` values numba cannot use, at the import of the packages (not only in the
  command);
- point clouds in other units than the model's training scans: feet (3.28 times the
  spacing) and inches (39.4 times) passed the 20x check; now 2.2x, the likely unit named;
- hyperparameters whose huge or tiny finite values made a fit run without bound or fail
  inside: ``LDASVM(C=1e300)`` (and ``1e-300``) ran liblinear without end,
  ``BayesianAligner(alpha_fert=1e-17)`` and ``MRFSegmenter(feature_scale=1e-100)`` were
  ``ZeroDivisionError``s; every other float hyperparameter of the estimators was tried at
  1e300 and 1e-300 (see docs/errors.md);
- sparse count matrices with duplicate entries of a cell gave the topic models another
  model than the matrix they stand for, and the checks rewrote a caller's CSR matrix.

Inputs tried and handled right, kept so by the tests at the end: count matrices in every
sparse format, with int64 or unsorted indices, stored zeros, dense read-only,
memory-mapped, Fortran-ordered, strided, float16/uint8/object arrays and DataFrames;
labels as pandas Series (categorical, reversed index), numpy string and object arrays,
tuples, generators, columns and one-column DataFrames; pickling, cloning,
``set_params(**get_params())`` and refitting; predicting before fit (``NotFittedError``);
the core's feature matrices in every sparse format and layout; images read-only,
Fortran-ordered, strided, int64 or float in [0, 1], masks of 0/255, 0/1, floats.
"""

import re

import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import structpred as sp
import structpred.selection  # noqa: F401  - sp.selection
from structpred import resolve_seed

#: ``random_state`` values of every class, made fresh from a seed
KINDS = {"int": lambda s: s, "RandomState": np.random.RandomState,
         "Generator": np.random.default_rng}


def _matching_examples():
    rng = np.random.default_rng(0)
    out = []
    for _ in range(4):
        y = np.zeros(6)
        y[[0, 4]] = 1
        out.append(sp.MatchingExample(sps.csr_matrix(rng.normal(size=(4, 6))), y, shape=(2, 3)))
    return out


def _stats():
    rng = np.random.default_rng(1)
    return rng.integers(0, 2, 40).astype(float), rng.integers(0, 2, 40).astype(float)


def _counts():
    rng = np.random.default_rng(2)
    a, b = rng.integers(1, 9, (30, 5)), rng.integers(1, 9, (30, 5))
    b[:, 1:3] = a[:, 1:3]   # the same gold
    return a, b


def _candidates():
    a, b = _stats()
    return [sp.selection.Candidate("best", b, 0.9, None, 0.0),
            sp.selection.Candidate("default", a, 0.5, None, 0.0)]


def _boot(result):
    return result.interval, result.p_not_better


def _gmm(rs):
    from segmentation.colour_model import weighted_gmm

    X = np.random.default_rng(3).normal(size=(60, 3))
    return weighted_gmm(X, np.ones(60), n_components=3, n_iter=1, random_state=rs)


def _colour(rs):
    from segmentation.colour_model import colour_model_features

    rng = np.random.default_rng(4)
    n = 12
    edges = np.array([(i, i + 1) for i in range(n - 1)])
    return colour_model_features(rng.uniform(0, 100, (n, 3)), rng.integers(5, 50, n), edges,
                                 np.ones(n - 1), rng.normal(size=n), random_state=rs)


def _svm_dual(rs):
    from topics.multiclass_svm import fit_multiclass_svm_dual

    rng = np.random.default_rng(5)
    res = fit_multiclass_svm_dual(rng.random((20, 3)), rng.integers(0, 3, 20), 1.0,
                                  max_epochs=1, random_state=rs)
    return res.lam


def _linear_svm(rs):
    from topics.baselines import fit_linear_svm

    rng = np.random.default_rng(6)
    y = np.array([0, 1] * 10)
    F = rng.normal(size=(20, 3)) + y[:, None]
    return fit_linear_svm(F, y, C_grid=(0.01, 1.0), random_state=rs)[1]


def _run_bayes(rs):
    from alignment.aligners.bayes_run import run_bayes

    src = ["a b c", "b c", "c a b d", "d a"] * 2
    tgt = ["x y z", "y z", "z x y w", "w x"] * 2
    run = run_bayes(src, tgt, None, random_state=rs, em_iterations=1, ibm1_iterations=1,
                    hmm_iterations=1, fertility_iterations=1, n_samplers=1)
    links = run.directions["fwd"]
    return run.options["random_state"], links.offsets, links.links


def _started_seed(rs, monkeypatch, call):
    """The seed the ``bayes`` run is started with, by ``call``."""
    import alignment.features.links as links

    seen = []
    monkeypatch.setattr(links, "_start_bayes", lambda key, *a: seen.append(key[3]) or {})
    call(rs)
    return seen[-1]


def _start_sources(rs, monkeypatch):
    from alignment.features.links import start_sources

    pairs = [(["a"], ["x"])]
    return _started_seed(rs, monkeypatch, lambda r: start_sources(
        ["bayes"], pairs, [["a"]], [["x"]], cache_dir=None, random_state=r, n_jobs=2))


def _start_runs(rs, monkeypatch):
    from alignment.training import start_aligner_runs

    pairs = [(["a"], ["x"])]
    return _started_seed(rs, monkeypatch, lambda r: start_aligner_runs(
        pairs, bitext=([["a"]], [["x"]]), cache_dir=None, random_state=r, jobs=2))


#: every public function taking ``random_state`` (or ``seed``), as ``rs -> result``; the
#: estimators are added below (their numba kernels' integer seeds, such as
#: ``gibbs_direction``'s, are internal and take no instance)
FUNCTIONS = {
    "power_iteration_norm": lambda rs: sp.power_iteration_norm(_matching_examples(), n_iter=1,
                                                               random_state=rs),
    "operator_norm": lambda rs: sp.operator_norm(_matching_examples(), n_iter=1,
                                                 random_state=rs),
    "step_size": lambda rs: sp.step_size(_matching_examples(), random_state=rs),
    "dual_extragradient": lambda rs: sp.dual_extragradient(
        _matching_examples(), n_iter=2, random_state=rs).w,
    "dual_extragradient_streaming": lambda rs: sp.dual_extragradient_streaming(
        _matching_examples(), n_iter=2, random_state=rs).w,
    "averaged_perceptron": lambda rs: sp.averaged_perceptron(
        _matching_examples(), n_epochs=1, random_state=rs).w,
    "averaged_projected_gradient": lambda rs: sp.averaged_projected_gradient(
        _matching_examples(), n_iter=2, random_state=rs).w,
    "subgradient_method": lambda rs: sp.subgradient_method(
        _matching_examples(), n_iter=2, random_state=rs).w,
    "run_learner": lambda rs: sp.run_learner("perceptron", _matching_examples(), None,
                                             n_iter=1, random_state=rs).w,
    "selection.paired_bootstrap": lambda rs: _boot(sp.selection.paired_bootstrap(
        *_stats(), n_boot=50, random_state=rs)),
    "selection.prefer_default": lambda rs: sp.selection.prefer_default(
        _candidates(), "default", lambda m: m, n_boot=50, random_state=rs)[1],
    "aer.paired_bootstrap": lambda rs: _boot(__import__(
        "alignment.evaluate.aer", fromlist=["x"]).paired_bootstrap(
        *_counts(), n_boot=50, random_state=rs)),
    "weighted_gmm": _gmm,
    "colour_model_features": _colour,
    "validation_split": lambda rs: __import__("topics.auto", fromlist=["x"]).validation_split(
        np.array(list("aabbbcccc") * 2), seed=rs),
    "cross_validation_folds": lambda rs: __import__(
        "topics.auto", fromlist=["x"]).cross_validation_folds(np.array(list("aabbbcccc") * 2),
                                                              n_folds=3, seed=rs),
    "fit_multiclass_svm_dual": _svm_dual,
    "fit_linear_svm": _linear_svm,
    "derive_seed": lambda rs: __import__("topics.lda", fromlist=["x"]).derive_seed(rs, 1, 2),
    "run_bayes": _run_bayes,
}
def _train_aligner(rs, monkeypatch):
    """The seed ``train_aligner`` gives its aligner runs and fits (one, drawn once)."""
    import alignment.training as training

    seen = []

    def stop(*args, random_state, **kwargs):
        seen.append(random_state)
        raise LookupError("stop")

    monkeypatch.setattr(training, "_aligner_features", stop)
    with pytest.raises(LookupError):
        training.train_aligner([(["a"], ["x"])], [[(0, 0)]], stats=object(), cache_dir=None,
                               random_state=rs)
    return seen[-1]


def _docs():
    return ["apple pear plum fig apple", "car road gear fuel car", "apple plum fig pear",
            "road car fuel gear", "pear fig apple", "gear road car"] * 3, \
        ["f", "c", "f", "c", "f", "c"] * 3


def _fit_spec(rs):
    from topics.auto import fit_spec, spec_of

    docs, y = _docs()
    vocab, est = fit_spec(spec_of("sdem-nb-hinge"), docs, y, seed=rs)
    return est.predict_proba(vocab.transform(docs))


def _choose(rs):
    from topics.auto import choose, spec_of

    docs, y = _docs()
    found = choose(docs, y, seed=rs, specs=[spec_of("sdem-nb-hinge"), spec_of("nbsvm")],
                   default="sdem-nb-hinge", time_budget=5)
    return [c.model.correct for c in found.ranked] + [found.p_not_better is None]


def _make_estimator(rs):
    from topics.registry import make_estimator

    docs, y = _docs()
    est = make_estimator("lda-svm", n_topics=2, iterations=3, seed=rs)
    return est.fit(docs, y).transform(docs)


def _estimator(name):
    """``rs -> output`` of the estimator ``name`` fitted with ``random_state=rs``."""
    def fit(rs):
        if name == "SequenceTagger":
            from sequence.model import SequenceTagger

            X = [[("a", "N"), ("b", "V"), ("c", "N")], [("c", "N"), ("a", "V")]] * 3
            y = [["B-NP", "O", "B-NP"], ["B-NP", "O"]] * 3
            return SequenceTagger(n_iter=3, random_state=rs).fit(X, y).coef_
        if name == "MRFSegmenter":
            from segmentation.model import MRFSegmenter

            rng = np.random.default_rng(0)
            images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(3)]
            masks = [rng.random((6, 7)) < 0.5 for _ in range(3)]
            return MRFSegmenter(n_iter=2, guard=False, valid_fraction=0.34,
                                random_state=rs).fit(images, masks).coef_
        if name == "BayesianAligner":
            from alignment.aligners.bayes import BayesianAligner

            src, tgt = ["a b c", "b c", "a c d"] * 2, ["x y z", "y z", "x z w"] * 2
            return BayesianAligner(random_state=rs, n_samplers=1).fit_align(src, tgt)
        import topics

        X, y = _corpus()
        cls = getattr(topics, name)
        kw = {k: v for k, v in dict(n_iter=3, n_topics=2).items() if k in cls().get_params()}
        model = cls(random_state=rs, **kw)
        model = model.fit(X) if name == "LDA" else model.fit(X, y)
        for method in ("predict_proba", "decision_function", "transform"):
            if hasattr(model, method):
                return getattr(model, method)(X)
    return fit


ESTIMATORS = ["LDA", "LDASVM", "NBSVM", "GibbsMedLDA", "ImportanceMedLDA", "DiscLDA",
              "PaMedLDA", "PaMedHDPClassifier", "SdemLDAClassifier", "SdemNaiveBayes",
              "SequenceTagger", "MRFSegmenter", "BayesianAligner"]
FUNCTIONS.update({"fit_spec": _fit_spec, "make_estimator": _make_estimator,
                  "choose": _choose})
FUNCTIONS.update({name: _estimator(name) for name in ESTIMATORS})
NEEDS_MONKEYPATCH = {"start_sources": _start_sources, "start_aligner_runs": _start_runs,
                     "train_aligner": _train_aligner}


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "get_params"):   # a fitted pipeline: its SVM's C and weights
        return _same(a[-1].coef_, b[-1].coef_) and a[-1].C == b[-1].C
    if sps.issparse(a):
        a, b = a.toarray(), b.toarray()
    return np.array_equal(np.asarray(a), np.asarray(b))


def _call(name, rs, monkeypatch):
    if name in NEEDS_MONKEYPATCH:
        return NEEDS_MONKEYPATCH[name](rs, monkeypatch)
    return FUNCTIONS[name](rs)


ALL = sorted(FUNCTIONS) + sorted(NEEDS_MONKEYPATCH)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("kind", ["RandomState", "Generator"])
def test_every_function_takes_an_instance_as_the_seed_drawn_from_it(name, kind, monkeypatch):
    """A ``RandomState``/``Generator`` gives the result of the seed
    :func:`structpred.resolve_seed` draws from an equal instance (``run_bayes`` refused
    one; the others used its own bit generator, another result), and an int repeats."""
    drawn = resolve_seed(KINDS[kind](7))
    assert _same(_call(name, KINDS[kind](7), monkeypatch), _call(name, drawn, monkeypatch))
    assert _same(_call(name, 11, monkeypatch), _call(name, 11, monkeypatch))


@pytest.mark.parametrize("name", ALL)
def test_every_function_takes_none(name, monkeypatch):
    """``None``: fresh entropy (a run of ``run_bayes`` keeps the seed it drew)."""
    _call(name, None, monkeypatch)


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("bad", [-1, 2.5, True, "7"])
def test_every_function_refuses_a_bad_seed_naming_it(name, bad, monkeypatch):
    with pytest.raises(ValueError, match=r"(random_state|seed) must be an integer >= 0"):
        _call(name, bad, monkeypatch)


def test_run_bayes_none_draws_a_seed_it_keeps():
    """``None`` was refused ("needs an integer random_state"): now a fresh seed, kept in
    the run's options (so the run can be repeated), and two runs differ in it."""
    seeds = {_run_bayes(None)[0] for _ in range(3)}
    assert all(isinstance(s, int) and 0 <= s < 2 ** 32 for s in seeds) and len(seeds) > 1


# ------------------------------- class: NUMBA_* values at the import of the packages
def _import_with(package, name, value):
    """``import package`` (and one of its modules that compiles) in a fresh interpreter
    with ``name=value`` and no other ``NUMBA_*`` variable."""
    import os
    import subprocess
    import sys
    import tempfile

    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update({name: value, "PYTHONPATH": os.pathsep.join(
        [os.path.abspath(os.path.join(os.path.dirname(__file__), "..")),
         env.get("PYTHONPATH", "")])})
    code = (f"import sys\ntry:\n    import {package}\nexcept ImportError as exc:\n"
            "    print(type(exc).__name__, exc, sep=': ')\n    sys.exit(3)\n"
            "print('numba' in sys.modules)\n")
    with tempfile.TemporaryDirectory() as cwd:
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                              capture_output=True, text=True, timeout=120)


PACKAGES = ["structpred", "alignment", "segmentation", "topics", "sequence"]


@pytest.mark.subprocess
@pytest.mark.parametrize("package", PACKAGES)
@pytest.mark.parametrize("name, value", [
    ("NUMBA_OPT", "x"), ("NUMBA_DISABLE_JIT", "maybe"), ("NUMBA_CPU_FEATURES", "avx"),
    ("NUMBA_CPU_NAME", "bogus"), ("NUMBA_NUM_THREADS", "0")])
def test_importing_a_package_refuses_a_numba_value_it_cannot_use(package, name, value):
    """A program importing the toolkit got numba's warning of nine lines and a run on its
    default (``NUMBA_OPT=x``), LLVM's lines, an abort at the first compilation
    (``NUMBA_CPU_FEATURES=avx``) or a traceback of numba's import: only the command checked.
    Now the import raises an ``ImportError`` naming the variable and its value, before numba
    has written anything."""
    res = _import_with(package, name, value)
    assert res.returncode == 3, (res.stdout, res.stderr)
    assert res.stdout.startswith("NumbaEnvironmentError: ") and len(res.stdout.splitlines()) == 1
    assert f"${name}" in res.stdout and repr(value) in res.stdout, res.stdout
    assert "Traceback" not in res.stderr and "parsed" not in res.stderr, res.stderr


@pytest.mark.subprocess
@pytest.mark.parametrize("package", ["alignment", "topics"])
def test_packages_stay_light_without_numba_variables_and_import_with_good_ones(package):
    """``import alignment``/``topics`` import no numba unless a ``NUMBA_*`` variable is set
    (then structpred checks it first); a value numba reads is taken silently."""
    res = _import_with(package, "NUMBA_OPT", "3")
    assert res.returncode == 0 and res.stdout.strip() == "True", (res.stdout, res.stderr)
    assert not res.stderr.strip(), res.stderr
    res = _import_with(package, "NOT_NUMBA", "x")
    assert res.returncode == 0 and res.stdout.strip() == "False", (res.stdout, res.stderr)


# ------------------------------------------- class: point clouds in feet and inches
def _oakland_spacings():
    """``{name: point spacing}`` of every real Oakland scan (the store's ten where present,
    else the three bundled)."""
    from pathlib import Path

    from segmentation.data import bundled_data_dir
    from segmentation.points import point_spacing
    from structpred.io import open_text

    bundled = bundled_data_dir() / "oakland3d_part2"
    store = Path(__file__).resolve().parents[2] / "shared" / "data" / "segmentation" \
        / "oakland3d_part2"
    files = {f.name: f for f in sorted(bundled.glob("*.gz"))}
    files.update({f.name: f for f in sorted(store.glob("*.gz"))} if store.is_dir() else {})
    out = {}
    for name, f in files.items():
        with open_text(f) as fh:
            xyz = np.loadtxt(fh, usecols=(0, 1, 2), comments="#")
        out[name] = point_spacing(xyz)
    return out


@pytest.fixture(scope="module")
def oakland_spacings():
    return _oakland_spacings()


def test_every_real_scan_passes_against_a_model_of_the_others(oakland_spacings):
    """A model keeps the median spacing of its training scans; each real scan is within
    the factor of the others' median (1.46x at most), and of any one other (1.79x)."""
    from segmentation.points import SPACING_FACTOR, check_spacing

    names = sorted(oakland_spacings)
    assert len(names) >= 3
    for name in names:
        others = [oakland_spacings[n] for n in names if n != name]
        check_spacing(oakland_spacings[name], float(np.median(others)))
        for other in others:
            check_spacing(oakland_spacings[name], other)   # the command's scan-to-scan check
    loo = [max(r, 1 / r) for r in (oakland_spacings[n] / np.median(
        [oakland_spacings[m] for m in names if m != n]) for n in names)]
    assert max(loo) * 1.5 < SPACING_FACTOR                      # 1.46 x 1.5 < 2.2


@pytest.mark.parametrize("factor, unit", [(3.2808, "feet"), (39.370, "inches"),
                                          (100.0, "centimetres"),
                                          (1000.0, "millimetres")])
@pytest.mark.parametrize("direction", ["scan", "model"])
def test_real_scans_in_feet_or_inches_are_refused_naming_the_unit(oakland_spacings, factor,
                                                                 unit, direction):
    """Feet (3.28x the spacing in metres) and inches (39.4x) passed the 20x check: the
    features read them as metres, silently.  Now refused, naming both spacings and the
    likely unit; a scan in metres against a model trained in feet likewise."""
    from segmentation.points import check_spacing

    for name, s in oakland_spacings.items():
        others = float(np.median([v for n, v in oakland_spacings.items() if n != name]))
        scan, model = (s * factor, others) if direction == "scan" else (s, others * factor)
        named = rf"(\w+ or )*{unit}( or \w+)*"   # the nearest unit first, or another near
        words = (rf"other units \({named} where those are in metres\)" if direction == "scan"
                 else rf"other units \(metres where those are in {named}\)")
        with pytest.raises(ValueError, match=words) as info:
            check_spacing(scan, model)
        assert f"{scan:.4g}" in str(info.value) and f"{model:.4g}" in str(info.value)


def test_a_scan_in_feet_is_refused_by_predict_points_and_the_command(tmp_path, capsys):
    """End to end: a model trained on a slice of scan 01 in metres; scan 06 in feet was
    predicted (exit 0) and is now refused, by the API and in one line by the command,
    naming the file."""
    from segmentation.data import bundled_data_dir
    from segmentation.model import MRFSegmenter
    from structpred.cli import main
    from structpred.io import open_text

    from cli_helpers import one_line_error, run_cli

    def scan(name, step):
        with open_text(bundled_data_dir() / "oakland3d_part2" / name) as fh:
            a = np.loadtxt(fh, comments="#")[::step]
        return a[:, :3], np.isin(a[:, 3], np.arange(1300, 1307))

    xyz, lab = scan("oakland_part2_01.xyz_label_conf.gz", 20)
    xyz6, lab6 = scan("oakland_part2_06.xyz_label_conf.gz", 20)
    model = MRFSegmenter(learner="perceptron", n_iter=2, voxel=0.4, guard=False,
                         valid_fraction=0.0).fit([MRFSegmenter(voxel=0.4).point_graph(xyz, lab)])
    assert model.predict_points(xyz6).shape == (len(xyz6),)       # in metres: read
    with pytest.raises(ValueError, match=re.escape("feet where those are in metres")):
        model.predict_points(xyz6 * 3.2808)
    train, feet = tmp_path / "train.xyz", tmp_path / "feet.xyz"
    for path, (x, y) in ((train, (xyz, lab)), (feet, (xyz6 * 3.2808, lab6))):
        path.write_text("".join(f"{a:.4f} {b:.4f} {c:.4f} {1300 if v else 1400}\n"
                                for (a, b, c), v in zip(x, y)))
    assert main(["segment", "train", "--points", str(train), "--foreground-labels",
                 "1300-1306", "--voxel", "0.4", "--iterations", "2", "--learner",
                 "perceptron", "-o", str(tmp_path / "m.npz"), "-q"]) == 0
    rc, _, err = run_cli(["segment", "eval", "-m", str(tmp_path / "m.npz"), "--points",
                          str(feet), "-q"], capsys)
    assert one_line_error(rc, err, f"{feet}:", "point spacing", "feet where those are in metres"), err


def test_each_training_scan_is_checked_against_the_others_median(oakland_spacings):
    """Training scans were each checked against the first one only: a scan in feet passed
    beside a sparser first scan (1.83x).  Now each scan is checked against the median of
    the others; every real scan passes, and any one of them in feet among the others
    (2.25x their median at least) is refused, naming its place."""
    from segmentation.points import check_training_spacings

    names = sorted(oakland_spacings)
    check_training_spacings(list(enumerate(oakland_spacings[n] for n in names)))
    for k in range(len(names)):
        spacings = [(i, oakland_spacings[n] * (3.2808 if i == k else 1.0))
                    for i, n in enumerate(names)]
        with pytest.raises(ValueError, match=rf"^training scan {k + 1} \(of the scans given"
                                             r".*feet where those are in metres"):
            check_training_spacings(spacings)
    check_training_spacings([(0, 1.0), (1, 3.2808)])     # two scans: the command's check


def test_a_scan_in_feet_beside_a_sparse_first_scan_is_refused_by_fit():
    """End to end through ``MRFSegmenter.fit``: the first scan thinned 4x more than the
    others (its spacing about twice theirs) let a scan in feet pass the check against the
    first; against the others' median it is refused."""
    from segmentation.data import bundled_data_dir
    from segmentation.model import MRFSegmenter
    from structpred.io import open_text

    def scan(name, step):
        with open_text(bundled_data_dir() / "oakland3d_part2" / name) as fh:
            a = np.loadtxt(fh, comments="#")[::step]
        return a[:, :3], np.isin(a[:, 3], np.arange(1300, 1307))

    seg = MRFSegmenter(voxel=0.4)
    names = sorted(p.name for p in (bundled_data_dir() / "oakland3d_part2").glob("*.gz"))
    sparse = seg.point_graph(*scan(names[0], 80))
    dense = [seg.point_graph(*scan(n, 20)) for n in names[:3]]
    xyz, lab = scan(names[1], 20)
    feet = seg.point_graph(xyz * 3.2808, lab)
    assert 1 / 2.2 < float(feet.spacing) / float(sparse.spacing) < 2.2   # passes the first's check
    model = MRFSegmenter(learner="perceptron", n_iter=1, voxel=0.4, guard=False, valid_fraction=0.0)
    model.fit([sparse, *dense])                                          # in metres: trained
    with pytest.raises(ValueError, match=r"training scan 5 \(of the scans given.*feet"):
        model.fit([sparse, *dense, feet])


# -------------------------------- class: huge or tiny finite hyperparameters (LDASVM)
OUT_OF_RANGE_C = st.one_of(st.floats(1.001e8, 1e308), st.floats(1e-320, 0.999e-8))


@settings(max_examples=10, deadline=None)
@given(c=OUT_OF_RANGE_C, where=st.sampled_from(["C", "C_grid", "fit_linear_svm"]))
@example(c=1e300, where="C")
@example(c=1e-300, where="C_grid")
def test_lda_svm_refuses_a_c_its_solver_cannot_end_with(c, where):
    """``LDASVM(C=1e300)`` (and ``1e-300``, or such a value in ``C_grid``) ran liblinear
    without bound (minutes, then on); now a ``ValueError`` at fit naming ``C`` and the
    range, before any work."""
    from topics import LDASVM
    from topics.baselines import C_RANGE, fit_linear_svm

    name = "C_grid" if where == "C_grid" else "C"
    with pytest.raises(ValueError, match=re.escape(f"{name} must lie in [{C_RANGE[0]:g}, "
                                                   f"{C_RANGE[1]:g}]")):
        if where == "fit_linear_svm":
            fit_linear_svm(np.eye(4), [0, 1, 0, 1], C=c)
        else:
            LDASVM(n_topics=2, n_iter=2, **({"C": c} if where == "C" else {"C_grid": (1.0, c)})
                   ).fit(["apple pear", "car road"] * 3, ["f", "c"] * 3)


@settings(max_examples=6, deadline=None)
@given(c=st.floats(1e-8, 1e8))
def test_lda_svm_takes_a_c_in_range(c):
    from topics.baselines import fit_linear_svm

    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 10)
    _, chosen, _ = fit_linear_svm(rng.normal(size=(20, 3)) + y[:, None], y, C=c)
    assert chosen == c


def test_lda_svm_c_out_of_range_in_the_command(tmp_path, capsys):
    from cli_helpers import one_line_error, run_cli

    data = tmp_path / "docs.tsv"
    data.write_text("apple pear\tf\ncar road\tc\n")
    for value in ("1e300", "1e-300"):
        rc, _, err = run_cli(["topics", "train", "--model", "lda-svm", "--param", f"C={value}",
                              "--data", str(data), "-o", str(tmp_path / "m.npz"), "-q"], capsys)
        assert one_line_error(rc, err, "C must lie in [1e-08, 1e+08]", repr(float(value))), err


@settings(max_examples=6, deadline=None)
@given(value=st.floats(5e-324, 0.99e-10))
@example(value=1e-17)
def test_bayesian_aligner_refuses_a_vanishing_prior(value):
    """``BayesianAligner(alpha_fert=1e-17)`` (and less) was a ``ZeroDivisionError`` inside
    the sampler; every Dirichlet concentration is now at least 1e-10, named."""
    from alignment.aligners.bayes import MIN_ALPHA, BayesianAligner

    src, tgt = ["a b c", "b c", "a c d"] * 2, ["x y z", "y z", "x z w"] * 2
    for name in ("alpha_fert", "alpha_lex", "alpha_jump"):
        with pytest.raises(ValueError, match=re.escape(f"{name} must be at least "
                                                       f"{MIN_ALPHA:g}")):
            BayesianAligner(n_samplers=1, **{name: value}).fit_align(src, tgt)
    BayesianAligner(n_samplers=1, alpha_fert=MIN_ALPHA).fit_align(src, tgt)   # the bound: runs


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.floats(5e-324, 0.99e-6))
@example(value=1e-100)
def test_segmenter_refuses_a_vanishing_feature_scale(value, tmp_path_factory, capsys):
    """``MRFSegmenter(feature_scale=1e-100)`` was a ``ZeroDivisionError`` of the step size
    (the features vanished), and ``segment train --feature-scale 1e-100`` named it as an
    error of the mask folder; now at least 1e-6 (1 / the largest scale), in both."""
    from segmentation.model import MRFSegmenter

    from cli_helpers import one_line_error, run_cli

    rng = np.random.default_rng(0)
    images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(2)]
    masks = [rng.random((6, 7)) < 0.5 for _ in range(2)]
    with pytest.raises(ValueError, match=re.escape("feature_scale must be at least 1e-06")):
        MRFSegmenter(n_iter=2, guard=False, valid_fraction=0, feature_scale=value).fit(
            images, masks)
    d = tmp_path_factory.mktemp("fs")
    rc, _, err = run_cli(["segment", "train", "--images", str(d), "--masks", str(d),
                          "--feature-scale", repr(value), "-o", str(d / "m.npz")], capsys)
    assert one_line_error(rc, err, "--feature-scale", "must be at least 1e-06"), err


# ---------------------------- class: sparse count matrices stored in unusual ways
def _stored(X, how):
    """``X`` (CSR counts) stored another way, holding the same matrix."""
    coo = X.tocoo()
    if how == "duplicates":   # every count of 2 or more split in two entries, unsorted
        r, c, v = [], [], []
        for i, j, x in zip(coo.row, coo.col, coo.data):
            parts = [x - 1, 1] if x >= 2 else [x]
            r += [i] * len(parts)
            c += [j] * len(parts)
            v += parts
        order = np.lexsort((-np.array(c), np.array(r)))
        indptr = np.r_[0, np.cumsum(np.bincount(np.array(r), minlength=X.shape[0]))]
        out = sps.csr_matrix((np.array(v, float)[order], np.array(c)[order], indptr),
                             shape=X.shape)
        out.has_sorted_indices = False
        return out
    if how == "explicit zeros":   # a stored 0 in every row
        dense = X.toarray().astype(float)
        out = sps.csr_matrix(dense + 1)
        out.data -= 1
        return out
    if how == "coo with duplicates":
        return sps.coo_matrix((np.r_[coo.data, coo.data * 0], (np.r_[coo.row, coo.row],
                                                                np.r_[coo.col, coo.col])),
                              shape=X.shape)
    if how == "int64 indices":
        out = X.astype(float)
        out.indices, out.indptr = out.indices.astype(np.int64), out.indptr.astype(np.int64)
        return out
    return {"lil": X.tolil, "dok": X.todok, "csc": X.tocsc, "bsr": X.tobsr}[how]()


STORAGES = ["duplicates", "explicit zeros", "coo with duplicates", "int64 indices", "lil",
            "dok", "csc", "bsr"]
TOPIC_MODELS = ["NBSVM", "SdemNaiveBayes", "LDA", "GibbsMedLDA", "PaMedHDPClassifier",
                "SdemLDAClassifier", "DiscLDA"]


def _corpus():
    from sklearn.feature_extraction.text import CountVectorizer

    docs = ["apple pear plum fig apple", "car road gear fuel car", "apple plum fig pear",
            "road car fuel gear", "pear fig apple", "gear road car"] * 3
    return CountVectorizer().fit_transform(docs).astype(np.int64).tocsr(), \
        ["f", "c", "f", "c", "f", "c"] * 3


def _output(name, X, y):
    import topics

    cls = getattr(topics, name)
    kw = {k: v for k, v in dict(n_iter=3, n_topics=2, random_state=0).items()
          if k in cls().get_params()}
    model = cls(**kw).fit(X, y) if name != "LDA" else cls(**kw).fit(X)
    for method in ("predict_proba", "decision_function", "transform"):
        if hasattr(model, method):
            return getattr(model, method)(X)


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(TOPIC_MODELS), how=st.sampled_from(STORAGES))
@example(name="NBSVM", how="duplicates")
@example(name="LDA", how="explicit zeros")
def test_a_count_matrix_gives_one_model_however_it_is_stored(name, how):
    """Duplicate entries of a cell were tokens (or, binarized, presences) of their own, so
    the topic models depended on how the matrix was stored (``PaMedHDPClassifier``: numpy's
    "operands could not be broadcast"); and the checks rewrote the caller's arrays (a CSR
    float matrix with a stored zero came back holding other values).  Now each cell is
    summed, and the caller's matrix is left as it was."""
    X, y = _corpus()
    stored = _stored(X, how)
    assert np.array_equal(stored.toarray(), X.toarray())
    copy = stored.copy()
    np.testing.assert_allclose(_output(name, stored, y), _output(name, X, y))
    assert np.array_equal(stored.toarray(), copy.toarray())
    for a in ("data", "indices", "indptr", "row", "col"):
        if hasattr(copy, a):
            assert np.array_equal(getattr(stored, a), getattr(copy, a)), a


def test_check_counts_leaves_the_callers_matrix_alone():
    from topics.corpus import check_counts

    X = sps.csr_matrix((np.array([1.0, 0.0, 2.0, 3.0]), np.array([0, 1, 2, 0]),
                        np.array([0, 3, 4])), shape=(2, 3))
    for integer in (False, True):
        before = X.copy()
        out = check_counts(X, integer=integer)
        assert np.array_equal(out.toarray(), [[1, 0, 2], [3, 0, 0]])
        assert np.array_equal(X.data, before.data) and np.array_equal(X.indices, before.indices)
        assert np.array_equal(X.toarray(), before.toarray())


# -------------------- inputs tried that were handled right (recorded, kept so)
def _dense_variant(D, how, tmp_path):
    import pandas as pd

    if how == "read-only":
        out = D.copy()
        out.flags.writeable = False
        return out
    if how == "memmap":
        mm = np.memmap(tmp_path / "X.dat", dtype=np.float64, mode="w+", shape=D.shape)
        mm[:] = D
        mm.flush()
        return np.memmap(tmp_path / "X.dat", dtype=np.float64, mode="r", shape=D.shape)
    if how == "strided view":
        big = np.zeros((D.shape[0], 2 * D.shape[1]))
        big[:, ::2] = D
        return big[:, ::2]
    return {"Fortran": np.asfortranarray, "float32": lambda a: a.astype(np.float32),
            "float16": lambda a: a.astype(np.float16), "uint8": lambda a: a.astype(np.uint8),
            "object": lambda a: a.astype(object), "DataFrame": pd.DataFrame}[how](D)


@pytest.mark.parametrize("how", ["read-only", "memmap", "strided view", "Fortran", "float32",
                                 "float16", "uint8", "object", "DataFrame"])
@pytest.mark.parametrize("name", ["NBSVM", "SdemNaiveBayes"])
def test_dense_count_matrices_of_any_layout_give_one_model(name, how, tmp_path):
    X, y = _corpus()
    np.testing.assert_allclose(_output(name, _dense_variant(X.toarray(), how, tmp_path), y),
                               _output(name, X, y))


@pytest.mark.parametrize("how", ["Series", "categorical", "numpy str", "tuple", "generator",
                                 "object array", "column", "DataFrame", "reversed index"])
def test_topic_labels_of_any_container_give_one_model(how):
    """Labels as a pandas Series (categorical, or with an index in another order), a numpy
    string or object array, a tuple, a generator, an ``(n, 1)`` column or a one-column
    DataFrame: the classes and predictions of a plain list (labels as bytes are refused by
    scikit-learn: "labels represented as bytes is not supported")."""
    import pandas as pd
    from topics import NBSVM

    _, ys = _corpus()
    docs = ["apple pear plum fig apple", "car road gear fuel car", "apple plum fig pear",
            "road car fuel gear", "pear fig apple", "gear road car"] * 3
    y = {"Series": lambda: pd.Series(ys), "categorical": lambda: pd.Series(ys, dtype="category"),
         "numpy str": lambda: np.array(ys), "tuple": lambda: tuple(ys),
         "generator": lambda: (s for s in ys), "object array": lambda: np.array(ys, object),
         "column": lambda: np.array(ys)[:, None], "DataFrame": lambda: pd.DataFrame({"y": ys}),
         "reversed index": lambda: pd.Series(ys, index=np.arange(len(ys))[::-1])}[how]()
    model = NBSVM().fit(docs, y)
    assert [str(c) for c in model.classes_] == ["c", "f"]
    assert list(model.predict(docs)) == list(NBSVM().fit(docs, ys).predict(docs))


@pytest.mark.parametrize("name", ["NBSVM", "SdemNaiveBayes", "LDA", "PaMedLDA"])
def test_topic_models_pickle_clone_and_refit_alike(name):
    """Predict before fit is scikit-learn's ``NotFittedError``; a pickled model, a clone
    fitted again, ``set_params(**get_params())`` and a second fit give the first result."""
    import pickle

    import topics
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError

    X, y = _corpus()
    cls = getattr(topics, name)
    kw = {k: v for k, v in dict(n_iter=3, n_topics=2, random_state=0).items()
          if k in cls().get_params()}
    with pytest.raises(NotFittedError):
        getattr(cls(**kw), "transform" if name == "LDA" else "predict")(X)
    first = _output(name, X, y)
    model = cls(**kw).fit(X, y) if name != "LDA" else cls(**kw).fit(X)
    method = next(m for m in ("predict_proba", "decision_function", "transform")
                  if hasattr(model, m))
    np.testing.assert_allclose(getattr(pickle.loads(pickle.dumps(model)), method)(X), first)
    twin = clone(model).set_params(**model.get_params())
    twin = twin.fit(X, y) if name != "LDA" else twin.fit(X)
    np.testing.assert_allclose(getattr(twin, method)(X), first)
    again = model.fit(X, y) if name != "LDA" else model.fit(X)
    np.testing.assert_allclose(getattr(again, method)(X), first)


def _duplicated_csr(F):
    """``F`` as CSR holding every entry twice, halved, unsummed."""
    c = sps.coo_matrix(F)
    r, col, d = np.r_[c.row, c.row], np.r_[c.col, c.col], np.r_[c.data, c.data] / 2
    order = np.lexsort((col, r))
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=F.shape[0]))]
    return sps.csr_matrix((d[order], col[order], indptr), shape=F.shape)


def _int64_csr(F):
    m = sps.csr_matrix(F)
    m.indices, m.indptr = m.indices.astype(np.int64), m.indptr.astype(np.int64)
    return m


def _read_only(F):
    out = F.copy()
    out.flags.writeable = False
    return out


FEATURE_LAYOUTS = {"coo": sps.coo_matrix, "lil": sps.lil_matrix, "dok": sps.dok_matrix,
                   "csc": sps.csc_matrix, "bsr": sps.bsr_matrix, "csr_array": sps.csr_array,
                   "duplicates": _duplicated_csr, "int64 indices": _int64_csr,
                   "float32": lambda F: F.astype(np.float32), "Fortran": np.asfortranarray,
                   "read-only": _read_only, "object": lambda F: F.astype(object)}


@pytest.mark.parametrize("how", sorted(FEATURE_LAYOUTS))
def test_core_feature_matrices_of_any_layout_give_one_solution(how):
    """``MatchingExample``'s ``F`` in every sparse format, with duplicate entries or int64
    indices, of float32 or object dtype, Fortran-ordered or read-only: the dual
    extragradient's ``w`` of the same matrix as a float CSR."""
    rng = np.random.default_rng(0)
    Fs = [rng.normal(size=(4, 6)) for _ in range(3)]

    def solve(make):
        y = np.zeros(6)
        y[[0, 4]] = 1
        return sp.dual_extragradient([sp.MatchingExample(make(F), y, shape=(2, 3))
                                      for F in Fs], n_iter=5).w

    expect = solve(lambda F: sps.csr_matrix(F.astype(np.float32).astype(float))
                   if how == "float32" else sps.csr_matrix(F))
    np.testing.assert_allclose(solve(FEATURE_LAYOUTS[how]), expect, rtol=1e-6, atol=1e-9)


IMAGE_LAYOUTS = {"read-only": _read_only, "Fortran": np.asfortranarray,
                 "float in [0, 1]": lambda a: a / 255.0,
                 "float32 in [0, 1]": lambda a: (a / 255.0).astype(np.float32),
                 "int64": lambda a: a.astype(np.int64),
                 "strided view": lambda a: np.repeat(a, 2, axis=1)[:, ::2]}
MASK_LAYOUTS = {"uint8 0/255": lambda m: (m * 255).astype(np.uint8),
                "int 0/1": lambda m: m.astype(int), "float": lambda m: m.astype(float),
                "read-only": _read_only}


@pytest.fixture(scope="module")
def small_segmenter():
    from segmentation.model import MRFSegmenter

    rng = np.random.default_rng(0)
    images = [rng.integers(0, 256, (12, 14, 3)).astype(np.uint8) for _ in range(3)]
    masks = [rng.random((12, 14)) < 0.5 for _ in range(3)]
    model = MRFSegmenter(n_iter=2, guard=False, valid_fraction=0, random_state=0)
    model.fit(images, masks)
    return model, images, masks, model.predict(images)


@pytest.mark.parametrize("how", sorted(IMAGE_LAYOUTS) + sorted(f"mask {k}" for k in MASK_LAYOUTS))
def test_images_and_masks_of_any_layout_give_one_segmentation(small_segmenter, how):
    """Images read-only, Fortran-ordered, strided, int64 or float in [0, 1], and masks of
    0/255, 0/1 integers, floats or read-only: the masks of the plain uint8 and bool arrays
    (float images in 0-255, uint16 and bool images are refused naming the fix, earlier)."""
    from segmentation.model import MRFSegmenter

    model, images, masks, expect = small_segmenter
    if how.startswith("mask "):
        got = MRFSegmenter(n_iter=2, guard=False, valid_fraction=0, random_state=0).fit(
            images, [MASK_LAYOUTS[how[5:]](m) for m in masks]).predict(images)
    else:
        got = model.predict([IMAGE_LAYOUTS[how](im) for im in images])
    assert all(np.array_equal(a, b) for a, b in zip(got, expect))


@pytest.mark.parametrize("how", ["y numpy arrays", "X tuples", "y tuples", "X generator",
                                 "y generator", "X numpy string rows", "labels ints",
                                 "labels bools", "no sentence", "an empty sentence"])
def test_tagger_inputs_of_other_containers(how):
    """Containers of the tagger's sentences and labels: the tuples, generators and numpy
    arrays give the model of lists; labels that are not strings, no sentence, and an
    empty sentence are refused naming the sentence (and token)."""
    from sequence.model import SequenceTagger

    X = [[("a", "N"), ("b", "V"), ("c", "N")], [("c", "N"), ("a", "V")]] * 3
    y = [["B-NP", "O", "B-NP"], ["B-NP", "O"]] * 3
    given = {"y numpy arrays": (X, [np.array(s) for s in y]),
             "X tuples": ([tuple(s) for s in X], y), "y tuples": (X, [tuple(s) for s in y]),
             "X generator": ((s for s in X), y), "y generator": (X, (s for s in y)),
             "X numpy string rows": ([np.array(s) for s in X], y),
             "labels ints": (X, [[int(t == "B-NP") for t in s] for s in y]),
             "labels bools": (X, [[t == "B-NP" for t in s] for s in y]),
             "no sentence": ([], []), "an empty sentence": (X + [[]], y + [[]])}[how]

    def fit(XX, yy):
        return SequenceTagger(learner="perceptron", n_iter=3, random_state=0).fit(XX, yy)

    refusals = {"labels ints": (TypeError, "sentence 0, token 0: a label must be a string"),
                "labels bools": (TypeError, "sentence 0, token 0: a label must be a string"),
                "no sentence": (ValueError, "X and y must be non-empty"),
                "an empty sentence": (ValueError, "sentence 6 has no tokens")}
    if how in refusals:
        with pytest.raises(refusals[how][0], match=re.escape(refusals[how][1])):
            fit(*given)
    else:
        assert [list(map(str, p)) for p in fit(*given).predict(X)] == fit(X, y).predict(X)


@pytest.mark.parametrize("learner", ["dual_extragradient", "dual_extragradient_streaming",
                                     "averaged_perceptron", "averaged_projected_gradient",
                                     "subgradient_method"])
@pytest.mark.parametrize("how", ["none", "one", "tuple", "generator"])
def test_learners_on_no_one_or_streamed_examples(learner, how):
    """No example: "no training examples"; one, a tuple or a generator: the list's ``w``
    (the streaming learner refuses a generator, which it could read only once)."""
    examples = _matching_examples()[:1]
    given = {"none": [], "one": examples, "tuple": tuple(examples),
             "generator": (e for e in examples)}[how]
    run = getattr(sp, learner)
    steps = {"n_epochs" if learner == "averaged_perceptron" else "n_iter": 2}
    if how == "none":
        with pytest.raises(ValueError, match="no training examples"):
            run(given, **steps)
    elif how == "generator" and learner == "dual_extragradient_streaming":
        with pytest.raises(TypeError, match="can be read once"):
            run(given, **steps)
    else:
        np.testing.assert_allclose(run(given, **steps).w, run(examples, **steps).w)


# ------------------------------------------------ class: sample_weight of score
BAD_WEIGHTS = st.one_of(
    st.tuples(st.integers(0, 17), st.sampled_from([-1.0, -1e-9, float("nan"), float("inf"),
                                                    -float("inf")])),
    st.tuples(st.just(None), st.sampled_from(["a", b"x", None])))


@settings(max_examples=10, deadline=None)
@given(bad=BAD_WEIGHTS, name=st.sampled_from(["NBSVM", "SdemNaiveBayes"]))
@example(bad=(0, -1.0), name="NBSVM")
@example(bad=(None, "a"), name="NBSVM")
def test_score_refuses_negative_or_non_numeric_sample_weights(bad, name):
    """A negative weight was taken (``NBSVM.score(X, y, sample_weight=-ones)`` was 1.0; a
    mix gave an accuracy beyond [0, 1]) and strings were numpy's "The `dtype` and
    `signature` arguments to ufuncs ..."; now refused naming the document."""
    import topics

    X, y = _corpus()
    model = getattr(topics, name)().fit(X, y)
    where, value = bad
    if where is None:
        w = [value] * len(y)
        match = "sample_weight must hold numbers"
    else:
        w = np.ones(len(y))
        w[where] = value
        match = re.escape(f"sample_weight must be finite numbers >= 0 (document {where}: ")
    with pytest.raises(ValueError, match=match):
        model.score(X, y, sample_weight=w)


def test_every_topic_classifier_checks_sample_weight():
    """Each classifier's ``score`` reaches the check (``CountClassifierTags`` is before
    ``ClassifierMixin`` in every one's MRO); good weights give scikit-learn's accuracy."""
    import topics
    from sklearn.base import ClassifierMixin
    from topics._validation import CountClassifierTags

    classifiers = [getattr(topics, n) for n in topics.__all__
                   if isinstance(getattr(topics, n), type)
                   and issubclass(getattr(topics, n), ClassifierMixin)]
    assert len(classifiers) == 9
    for cls in classifiers:
        mro = cls.__mro__
        assert mro.index(CountClassifierTags) < mro.index(ClassifierMixin), cls
    X, y = _corpus()
    model = topics.NBSVM().fit(X, y)
    w = np.r_[np.zeros(9), np.ones(9)]
    right = (model.predict(X) == np.asarray(y)).astype(float)
    assert model.score(X, y, sample_weight=w) == pytest.approx(right[9:].mean())
    assert model.score(X, y, sample_weight=[True] * 18) == pytest.approx(right.mean())


# ----------------------------------------------- class: paths of other types (readers)
@pytest.mark.parametrize("how", ["open file", "StringIO", "int", "None"])
@pytest.mark.parametrize("reader", ["read_lines", "open_text", "load_points"])
def test_readers_name_a_path_of_another_type(tmp_path, reader, how):
    """An open file, a ``StringIO``, a file descriptor or ``None`` given as the path was
    Python's "expected str, bytes or os.PathLike object, not TextIOWrapper"; now a
    ``TypeError`` saying a path is wanted."""
    import io

    from segmentation.data import load_points
    from structpred.io import open_text, read_lines

    f = tmp_path / "p.xyz"
    f.write_text("0 0 0 1\n1 0 0 2\n")
    with open(f) as fh:
        arg = {"open file": fh, "StringIO": io.StringIO("a\n"), "int": 0, "None": None}[how]
        run = {"read_lines": lambda a: list(read_lines(a)), "open_text": open_text,
               "load_points": load_points}[reader]
        with pytest.raises(TypeError, match=re.escape("expected a file's path (str or "
                                                      "pathlib.Path; '-' for standard input)")):
            run(arg)


def test_load_points_takes_a_bytes_path_as_read_lines_does(tmp_path):
    """``load_points(b"scan.xyz")`` was pathlib's "argument should be a str object or an
    os.PathLike object returning str, not <class 'bytes'>"."""
    import os

    from segmentation.data import load_points

    f = tmp_path / "p.xyz"
    f.write_text("0 0 0 1\n1 0 0 2\n")
    xyz, labels = load_points(os.fsencode(f))[:2]
    assert xyz.shape == (2, 3) and labels.tolist() == [1, 2]


@pytest.mark.parametrize("method", ["fit", "transform"])
@pytest.mark.parametrize("how", ["a string", "a 1-D row"])
def test_lda_names_a_single_string_and_a_row_as_the_classifiers_do(method, how):
    """``LDA().fit("some text")`` said "X must be a 2-D document-term matrix, got 0-D" and a
    1-D count row "got 1-D", where every classifier says "got a single string; wrap it in
    a list" and "got a 1-D array of shape (8,). Reshape ..."."""
    from topics import LDA

    X, _ = _corpus()
    arg = "apple pear plum" if how == "a string" else X[0].toarray().ravel()
    error, words = ((TypeError, "got a single string; wrap it in a list") if how == "a string"
                    else (ValueError, "got a 1-D array of shape (8,). Reshape"))
    model = LDA(n_topics=2, n_iter=2, random_state=0)
    if method == "transform":
        model.fit(X)
    with pytest.raises(error, match=re.escape(words)):
        getattr(model, method)(arg)
