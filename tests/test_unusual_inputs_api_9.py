"""Unusual inputs of the Python API, ninth sweep (issue 28, docs/errors.md), by class:

- seeds: ``NBSVM(random_state=2**64)`` (any seed of 2**63 or more) was Python's
  "OverflowError: int too big to convert" from the numba kernel, where every other
  estimator takes it;
- empty inputs: ``tree_map`` of a tree of no node returned uninitialised memory as its
  score (``9.3e-310``), ``tree_marginals`` a ``log Z`` of ``log K`` (the empty tree has one
  labelling, ``log Z = 0``).
- ``partial_fit``'s ``classes`` (``SdemNaiveBayes``, ``SdemLDAClassifier``, ``PaMedLDA``,
  ``PaMedHDPClassifier``): labels of the batch outside ``classes`` said "needs at least 2
  classes", a string or a set was one class, ``[1, 'car']`` became strings, and the sdEM
  classifiers ignored a later call's different ``classes``; ``PaMedLDA.predict`` of texts
  after a fit on counts named ``partial_fit``;
- scales: ``SequenceTagger(step_scale=1e10)`` ended in the chain projection's "node holds
  values up to 7.69e+19" (1e200 in "+inf potentials"), not naming the argument;
- unchecked hyperparameters of ``MRFSegmenter``: ``patience=0`` (or -1) stopped every
  candidate at its first validation, a model of nearly no training, silently;
  ``selection_size=-1`` was numpy's "Number of samples, -1, must be non-negative", NaN
  ``int()``'s error, 2.5 and ``"3"`` were taken; ``min_valid`` took -1, 2.5, ``"3"`` and NaN;
- ``MatchingAligner``: ``score(pairs, gold)`` refused gold given as ``(j, k)`` links, which
  ``fit`` takes; ``fit(stats="x")`` was an ``AttributeError`` ("'str' object has no
  attribute 'most_frequent'");
- steps: a ``learning_rate`` too large for the scores (``MatchingAligner``, ``MRFSegmenter``;
  any ``eta`` of :func:`structpred.run_learner`) ended in the projection's "zp holds values
  up to 3e+300" or "the point to project must be finite", naming no step;
- vocabularies (topics): documents of stop words, numbers or single letters only were "empty
  after applying the frequency cut-offs"; ``min_length=2.5`` was cut to 2 and ``"3"``
  taken; ``norm="l2"`` was Python's "could not convert string to float";
- the core: ``power_iteration_norm(n_iter=0)`` returned 0.0 (a norm of no iteration), a
  negative ``random_state`` was numpy's "expected non-negative integer"; ``n_partitions="a"``
  with an executor a ``TypeError`` of ``/``; ``weighted_hamming_terms`` (and every example's
  ``cost_pos``/``cost_neg``) made NaN or ``None`` costs a loss vector of NaN, silently, and
  arrays of another length numpy's "operands could not be broadcast together";
- predicted links (``score_alignments``, ``error_breakdown``): ``('0', '0')`` (a Pharaoh
  link split but not converted), ``(0.5, 0)``, ``(-1, 0)``, ``(0, 0, 0)`` were links that hit
  nothing, silently; an ``(n, 2)`` array of links was "unhashable type: 'numpy.ndarray'";
- sweep counts of the topic models (``LDA``, ``PaMedLDA``, ``PaMedHDPClassifier``):
  ``n_transform_samples=0`` gave topic proportions summing to 0.96, a negative
  ``n_transform_burn`` and 2.5 sweeps were taken, ``evaluate_every=-1`` was numpy's "expected
  non-negative integer" (2.5 recorded at sweep 2.5), ``batch_size="4"``, ``n_gibbs=1.5``,
  ``burn_in=0.5`` were cut or taken by ``int()``, ``c="1"`` was a ``TypeError`` of ``>``;
- ``Monitor``: a validation metric returning NaN kept the first iterate as the best,
  silently; a string, ``None`` or an array was Python's ``float()`` error; a ``validation``
  or ``callback`` that is not a function failed at the first record;
- ``SimplexExample(geometry="entropy", smoothing=nan)`` made every weight NaN (0 or -1 a
  centre off the simplex's interior); ``ChainExample(smoothing="0.1")`` a ``TypeError``.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

DOCS = ["apple banana fruit sweet", "car engine wheel road", "apple fruit juice",
        "road car drive"] * 3
LABELS = ["fruit", "car"] * 6


@SETTINGS
@given(seed=st.integers(0, 2 ** 70))
def test_nbsvm_takes_any_seed_as_its_32_bits(seed):
    from topics import NBSVM

    big = NBSVM(random_state=seed).fit(DOCS, LABELS)
    same = NBSVM(random_state=seed % 2 ** 32).fit(DOCS, LABELS)
    np.testing.assert_array_equal(big.coef_, same.coef_)


@SETTINGS
@given(k=st.integers(1, 4))
def test_tree_of_no_node_has_one_empty_labelling(k):
    import structpred as S

    node, edge, parent = np.zeros((0, k)), np.zeros((0, k, k)), np.zeros(0, int)
    labels, score = S.tree_map(node, edge, parent)
    assert labels.shape == (0,) and score == 0.0
    nm, em, logz = S.tree_marginals(node, edge, parent)
    assert nm.shape == (0, k) and em.shape == (0, k, k) and logz == 0.0


COUNTS = np.random.default_rng(0).integers(0, 3, (12, 6))


def _stream_estimator(name):
    import topics

    return {"SdemNaiveBayes": lambda: topics.SdemNaiveBayes(),
            "SdemLDAClassifier": lambda: topics.SdemLDAClassifier(n_topics=1),
            "PaMedLDA": lambda: topics.PaMedLDA(n_topics=2),
            "PaMedHDPClassifier": lambda: topics.PaMedHDPClassifier()}[name]()


STREAMS = st.sampled_from(["SdemNaiveBayes", "SdemLDAClassifier", "PaMedLDA",
                           "PaMedHDPClassifier"])


@SETTINGS
@given(name=STREAMS, missing=st.sampled_from(["car", "fruit"]))
def test_partial_fit_names_labels_outside_classes(name, missing):
    """``classes=['car']`` with a batch of 'car' and 'fruit' said "needs at least 2
    classes"."""
    other = "fruit" if missing == "car" else "car"
    with pytest.raises(ValueError, match=re.escape(f"y contains labels not in classes: "
                                                   f"[{missing!r}]")):
        _stream_estimator(name).partial_fit(COUNTS, LABELS, classes=[other])


@SETTINGS
@given(name=STREAMS, classes=st.sampled_from([["a", "b"], ["car"], ["car", "fruit", "veg"]]))
def test_partial_fit_classes_other_than_the_first_calls_are_refused(name, classes):
    """The sdEM classifiers ignored a later call's different ``classes``."""
    model = _stream_estimator(name).partial_fit(COUNTS, LABELS, classes=["car", "fruit"])
    with pytest.raises(ValueError, match="differs from the classes of the first call"):
        model.partial_fit(COUNTS[:2], LABELS[:2], classes=classes)


@SETTINGS
@given(name=STREAMS, classes=st.sampled_from(["car", b"car"]))
def test_partial_fit_classes_given_as_a_string_is_a_type_error(name, classes):
    """A string was one class ("needs at least 2 classes, got 1 class")."""
    with pytest.raises(TypeError, match="classes must be a list of every label"):
        _stream_estimator(name).partial_fit(COUNTS, LABELS, classes=classes)


@SETTINGS
@given(name=STREAMS, kind=st.sampled_from([set, frozenset, tuple, iter]))
def test_partial_fit_classes_as_a_set_are_its_labels(name, kind):
    """A set was one class (numpy made it a 0-d object array)."""
    model = _stream_estimator(name).partial_fit(COUNTS, LABELS, classes=kind(["fruit", "car"]))
    assert model.classes_.tolist() == ["car", "fruit"]


@SETTINGS
@given(name=STREAMS, number=st.integers(0, 9))
def test_partial_fit_classes_of_strings_and_numbers_are_refused(name, number):
    """``[1, 'car', 'fruit']`` became the strings '1', 'car', 'fruit' (``fit`` refuses such
    labels)."""
    with pytest.raises(ValueError, match="classes mixes labels that are strings and numbers"):
        _stream_estimator(name).partial_fit(COUNTS, LABELS, classes=[number, "car", "fruit"])


@pytest.mark.parametrize("name", ["PaMedLDA", "PaMedHDPClassifier"])
def test_texts_to_a_stream_model_fitted_on_counts_do_not_name_partial_fit(name):
    model = _stream_estimator(name).fit(COUNTS, LABELS)
    with pytest.raises(ValueError, match=f"this {name} was fitted on a count matrix"):
        model.predict(["apple banana"])


SENTS = [[("the", "DT"), ("cat", "NN")], [("a", "DT"), ("dog", "NN")]] * 3
TAGS = [["B", "I"], ["B", "O"]] * 3


@SETTINGS
@given(scale=st.floats(1.01e6, 1e308), learner=st.sampled_from(["bregman", "euclidean"]))
def test_tagger_step_scale_beyond_its_cap_is_named(scale, learner):
    """``step_scale=1e10`` was the chain projection's "node holds values up to 7.69e+19",
    1e200 "node potentials contain NaN or +inf": neither named the argument."""
    from sequence.model import SequenceTagger

    with pytest.raises(ValueError, match=re.escape(f"step_scale must be a finite number > 0 "
                                                   f"and at most 1e+06, got {scale!r}")):
        SequenceTagger(n_iter=2, step_scale=scale, learner=learner).fit(SENTS, TAGS)


def test_tagger_step_scale_at_its_cap_trains():
    from sequence.model import SequenceTagger

    model = SequenceTagger(n_iter=2, step_scale=1e6, learner="euclidean").fit(SENTS, TAGS)
    assert model.score(SENTS, TAGS) == pytest.approx(1.0)


def _images(n):
    rng = np.random.default_rng(0)
    masks = [np.zeros((8, 9), bool) for _ in range(n)]
    for m in masks:
        m[:4] = True
    return [rng.integers(0, 256, (8, 9, 3), dtype=np.uint8) for _ in range(n)], masks


BAD_WHOLE = st.one_of(st.integers(-5, 0), st.sampled_from([2.5, "3", True, float("nan")]))


@SETTINGS
@given(name=st.sampled_from(["patience", "selection_size", "min_valid"]), value=BAD_WHOLE)
def test_segmenter_counts_are_whole_numbers_in_range(name, value):
    from segmentation.model import MRFSegmenter

    lo = 0 if name == "min_valid" else 1
    if name == "min_valid" and type(value) is int and value == 0:   # a valid count
        value = -1
    images, masks = _images(2)
    with pytest.raises(ValueError, match=re.escape(f"{name} must be an integer >= {lo}, "
                                                   f"got {value!r}")):
        MRFSegmenter(n_iter=2, n_segments=10, **{name: value}).fit(images, masks)


def test_segmenter_selection_size_below_the_training_images_still_selects():
    from segmentation.model import MRFSegmenter

    images, masks = _images(6)
    model = MRFSegmenter(n_iter=2, n_segments=10, guard=False, colour_model=False, n_jobs=1,
                         eta_scale=[1.0, 2.0], selection_size=2, patience=1)
    model.fit(images[:4], masks[:4], eval_set=(images[4:], masks[4:]))
    assert model.predict(images[:1])[0].shape == (8, 9)


@pytest.fixture(scope="module")
def bitext():
    from alignment.stats.statistics import AlignmentStatistics

    src = [["the", "house"], ["a", "car"], ["the", "car"]] * 2
    tgt = [["das", "haus"], ["ein", "auto"], ["das", "auto"]] * 2
    stats = AlignmentStatistics.from_sentences(src, tgt, verbose=False)
    return list(zip(src, tgt)), [[(0, 0), (1, 1)]] * 6, stats


@SETTINGS
@given(kind=st.sampled_from([list, set, frozenset, tuple]))
def test_aligner_score_takes_gold_links_as_fit_does(bitext, kind):
    from alignment import MatchingAligner

    pairs, gold, stats = bitext
    model = MatchingAligner(n_iter=2).fit(pairs, gold, stats=stats)
    assert model.score(pairs, [kind(g) for g in gold]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="6 sentence pairs but 2 gold alignments"):
        model.score(pairs, gold[:2])


@pytest.mark.parametrize("stats", ["x", 3, object()])
def test_aligner_stats_of_another_type_is_named(bitext, stats):
    from alignment import MatchingAligner

    pairs, gold, _ = bitext
    with pytest.raises(TypeError, match="stats must be the AlignmentStatistics of the bitext"):
        MatchingAligner(n_iter=2).fit(pairs, gold, stats=stats)


@SETTINGS
@given(eta=st.floats(1e20, 1e300), learner=st.sampled_from(["dual-extragradient",
                                                           "projected-gradient"]))
def test_aligner_step_too_large_is_named(bitext, eta, learner):
    from alignment import MatchingAligner

    pairs, gold, stats = bitext
    with pytest.raises(ValueError, match=re.escape(f"{learner}: with the step eta={eta:g} the "
                                                   "iterates grew beyond")):
        MatchingAligner(n_iter=5, learning_rate=eta, learner=learner).fit(pairs, gold,
                                                                           stats=stats)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_segmenter_step_too_large_is_named():
    from segmentation.model import MRFSegmenter

    images, masks = _images(2)
    with pytest.raises(ValueError, match=re.escape("with the step eta=1e+300 the iterates")):
        MRFSegmenter(n_iter=3, n_segments=10, guard=False, colour_model=False,
                     learning_rate=1e300).fit(images, masks)


def test_projections_given_nan_or_huge_points_still_raise_value_errors():
    import structpred as S

    with pytest.raises(ValueError, match="holds values up to"):
        S.project_matching(np.full((2, 2), 1e300))
    with pytest.raises(ValueError, match="the point to project must be finite"):
        S.project_mincut(np.array([np.nan, 0.0]), np.zeros(1), np.array([[0, 1]]))


@SETTINGS
@given(docs=st.sampled_from([["a b c", "d e f"], ["the and of", "is it"], ["123 456", "7 89"]]),
       digits=st.booleans())
def test_vocabulary_without_terms_names_the_tokenizer_not_the_cut_offs(docs, digits):
    """Single letters, stop words or numbers only were "empty after applying the frequency
    cut-offs" (there were none to apply)."""
    from topics import Vocabulary

    if digits and docs[0][0].isdigit():
        docs = ["1 2", "3 4"]
    with pytest.raises(ValueError, match="the documents hold no term: every token is a stop"):
        Vocabulary(digits=digits).fit(docs)


@SETTINGS
@given(min_df=st.integers(3, 9))
def test_vocabulary_emptied_by_its_cut_offs_names_them(min_df):
    from topics import Vocabulary

    with pytest.raises(ValueError, match=re.escape(f"frequency cut-offs (min_df={min_df}, ")):
        Vocabulary(min_df=min_df).fit(["apple pie", "apple tart"])


@SETTINGS
@given(value=st.sampled_from([2.5, "3", True, 0, -1, float("nan")]))
def test_tokenizer_min_length_is_a_whole_number(value):
    """``int()`` cut 2.5 to 2 and took ``"3"``; NaN was its error."""
    from topics import Tokenizer, Vocabulary

    with pytest.raises(ValueError, match=re.escape(f"min_length must be an integer >= 1, "
                                                   f"got {value!r}")):
        Tokenizer(min_length=value)
    with pytest.raises(ValueError, match="min_length must be an integer >= 1"):
        Vocabulary(min_length=value).fit(["apple pie"])


@SETTINGS
@given(norm=st.sampled_from(["l2", "2", 0, -1.0, float("inf"), [2.0]]))
def test_vocabulary_norm_is_a_positive_number(norm):
    """``norm="l2"`` (scikit-learn's spelling) was "could not convert string to float", and
    ``"2"`` was taken."""
    from topics import Vocabulary

    with pytest.raises(ValueError, match="norm must be a"):
        Vocabulary(norm=norm).fit(["apple pie"])


def _matching_examples():
    import scipy.sparse as sp

    import structpred as S

    out = []
    for seed in range(3):
        F = sp.random(4, 6, density=0.7, random_state=seed, format="csr")
        z = np.zeros(6)
        z[[0, 4]] = 1
        out.append(S.MatchingExample(F, z, shape=(2, 3)))
    return out


@SETTINGS
@given(kw=st.sampled_from([dict(n_iter=0), dict(n_iter=2.5), dict(tol=-1.0),
                           dict(tol=float("nan")), dict(random_state=-1),
                           dict(random_state="0")]))
def test_power_iteration_norm_checks_its_arguments(kw):
    import structpred as S

    name = next(iter(kw))
    with pytest.raises(ValueError, match=f"{name} must be"):
        S.power_iteration_norm(_matching_examples(), **kw)


@SETTINGS
@given(n=st.sampled_from([0, -1, 1.5, "a", True]))
def test_streaming_learner_partitions_are_whole_numbers(n):
    from concurrent.futures import ThreadPoolExecutor

    import structpred as S

    with ThreadPoolExecutor(1) as executor, pytest.raises(ValueError, match="n_partitions must"):
        S.dual_extragradient_streaming(_matching_examples(), n_iter=2, executor=executor,
                                       n_partitions=n)


BAD_COSTS = st.sampled_from([float("nan"), float("inf"), None, "a", [1.0, 2.0],
                             np.ones((6, 1)), np.full(6, np.nan)])


@SETTINGS
@given(cost=BAD_COSTS, name=st.sampled_from(["cost_pos", "cost_neg"]))
def test_loss_costs_that_are_not_finite_numbers_of_the_right_shape_are_named(cost, name):
    import structpred as S

    with pytest.raises(ValueError, match=f"{name} must be"):
        S.weighted_hamming_terms(np.zeros(6), **{name: cost})
    example = _matching_examples()[0]
    with pytest.raises(ValueError, match=f"{name} must be"):
        S.MatchingExample(example.F, example.z_gold, shape=(2, 3), **{name: cost})


def test_loss_costs_that_broadcast_are_taken():
    import structpred as S

    c, d = S.weighted_hamming_terms(np.array([1.0, 0.0]), np.array([2.0, 3.0]), 0.5)
    assert c.tolist() == [-0.5, 3.0] and d == 0.5


BAD_LINKS = st.sampled_from([("0", "0"), (0.5, 0), (-1, 0), (0, 0, 0), (None, 0), 0, (True, 0)])


@SETTINGS
@given(link=BAD_LINKS, i=st.integers(0, 3))
def test_predicted_links_that_are_not_two_positions_are_named(link, i):
    from alignment import Alignment, score_alignments

    gold = [Alignment(sure={(0, 0)}, possible={(1, 1)})] * 4
    predicted = [{(0, 0)}] * 4
    predicted[i] = {(1, 1), link}
    with pytest.raises((TypeError, ValueError), match=f"predicted alignment {i}: "):
        score_alignments(predicted, gold)


@SETTINGS
@given(n=st.integers(0, 3))
def test_predicted_links_as_an_array_are_its_rows(n):
    from alignment import Alignment, score_alignments

    gold = [Alignment(sure={(0, 0)}, possible={(1, 1)})]
    rows = np.array([(0, 0), (1, 1), (2, 2)][:n], dtype=np.int64).reshape(n, 2)
    score = score_alignments([rows], gold)
    assert (score.n_predicted, score.hit_sure) == (n, min(n, 1))


SWEEPS = {"LDA": ["n_transform_burn", "n_transform_samples", "evaluate_every"],
          "PaMedLDA": ["batch_size", "n_gibbs", "n_passes", "n_samples", "burn_in",
                       "n_transform_burn", "n_transform_samples"]}


@SETTINGS
@given(model=st.sampled_from(sorted(SWEEPS)), data=st.data(),
       value=st.sampled_from([2.5, "4", True, -1, float("nan")]))
def test_topic_model_sweep_counts_are_whole_numbers(model, data, value):
    import topics

    name = data.draw(st.sampled_from(SWEEPS[model]))
    estimator = getattr(topics, model)(n_topics=2, **{name: value})
    with pytest.raises(ValueError, match=re.escape(f"{name} must be an integer from ")):
        estimator.fit(COUNTS, LABELS)


def test_lda_transform_without_samples_is_refused():
    """``n_transform_samples=0`` gave proportions that do not sum to 1."""
    from topics import LDA

    with pytest.raises(ValueError, match="n_transform_samples must be an integer from 1"):
        LDA(n_topics=2, n_iter=3, n_transform_samples=0).fit(COUNTS)


@SETTINGS
@given(model=st.sampled_from(["PaMedLDA", "PaMedHDPClassifier"]),
       name=st.sampled_from(["c", "v", "gamma"]), value=st.sampled_from(["1", 0, -1.0]))
def test_bayes_pa_positive_parameters_are_numbers(model, name, value):
    import topics

    kw = {"n_topics": 2} if model == "PaMedLDA" else {}
    with pytest.raises(ValueError, match=re.escape(f"{name} must be a finite number > 0, got "
                                                   f"{value!r}")):
        getattr(topics, model)(**kw, **{name: value}).fit(COUNTS, LABELS)


@SETTINGS
@given(value=st.sampled_from([float("nan"), "a", None, np.array([1.0, 2.0]), [0.5]]),
       at=st.integers(0, 3))
def test_monitor_validation_that_is_not_a_number_is_named(value, at):
    import structpred as S

    calls = []

    def metric(w):
        calls.append(1)
        return value if len(calls) > at else 0.5

    with pytest.raises(ValueError, match=re.escape(f"at iteration {at}")):
        S.dual_extragradient(_matching_examples(), n_iter=5,
                             monitor=S.Monitor(validation=metric))


@pytest.mark.parametrize("name", ["validation", "callback"])
def test_monitor_functions_must_be_callable(name):
    import structpred as S

    with pytest.raises(TypeError, match=f"{name} must be a function or None, got int"):
        S.Monitor(**{name: 5})


def test_monitor_takes_numpy_scalars():
    import structpred as S

    res = S.dual_extragradient(_matching_examples(), n_iter=3,
                               monitor=S.Monitor(validation=lambda w: np.float32(0.5)))
    assert res.history["validation"] == [0.5, 0.5, 0.5]


@SETTINGS
@given(smoothing=st.sampled_from([float("nan"), 0, -1.0, 2.0, "0.1"]))
def test_entropy_centre_smoothing_is_a_number_in_its_range(smoothing):
    """``SimplexExample(geometry="entropy", smoothing=nan)`` made every weight NaN, 0 or -1
    put the centre on the simplex's boundary or outside; ``ChainExample(smoothing="0.1")``
    was a ``TypeError`` of ``<``."""
    import scipy.sparse as sp

    import structpred as S

    F = sp.random(3, 4, density=0.8, random_state=0, format="csr")
    with pytest.raises(ValueError, match="smoothing must be"):
        S.SimplexExample(F, np.array([0, 1, 0, 0.0]), geometry="entropy", smoothing=smoothing)
    with pytest.raises(ValueError, match="smoothing must be"):
        S.ChainExample(np.ones((2, 3)), [2], y=[0, 1], n_labels=2, smoothing=smoothing)
