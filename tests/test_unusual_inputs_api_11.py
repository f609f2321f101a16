"""Unusual inputs of the Python API, eleventh sweep (issue 28, docs/errors.md), by class:

- containers without order, ``None`` and values that are not containers, given as the
  sentences, a sentence, a label list, a side of a sentence pair, the images or the
  examples (``structpred.check_ordered``): a set given as a sentence or a side was aligned
  or tagged in the set's order, silently (``MatchingAligner``, ``UnsupervisedAligner``,
  ``BayesianAligner``); a dict was read as its keys ("got int", "got ()"); ``None`` was
  Python's "'NoneType' object is not iterable" or "has no len()"; an ``int`` among the
  learners' examples was "'int' object has no attribute 'n_features'";
- a tagged sentence given as an ``(n_tokens, n_columns)`` numpy array of strings (its rows
  1-D arrays) was refused while the same rows as lists were taken;
- ``SequenceTagger().save(path)`` before ``fit`` was an ``AttributeError`` ('classes_');
- topic labels mixing booleans and numbers (``[1, True, 0, 2]``) made ``True`` and ``1`` one
  class silently; a boolean document-term matrix (presence/absence) was "X must be numeric";
  ``LDA().transform([])`` said "got 1-D";
- feature matrices of complex numbers were cut to their real part silently, of strings
  Python's "could not convert string to float";
- ``SolverResult == SolverResult`` was numpy's "truth value of an array ... is ambiguous";
- an ``int8`` image was refused with the hint "16-bit?".
"""

import os
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import structpred as S

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

SRC = [["the", "house"], ["a", "car"], ["the", "car"]] * 2
TGT = [["das", "haus"], ["ein", "auto"], ["das", "auto"]] * 2
GOLD = [[(0, 0), (1, 1)]] * 6
TAG_X = [[("a", "N"), ("b", "V"), ("c", "N")], [("c", "N"), ("a", "V")]] * 3
TAG_Y = [["B-NP", "O", "B-NP"], ["B-NP", "O"]] * 3
DOCS = ["apple banana fruit sweet", "car engine wheel road", "apple fruit juice",
        "road car drive"] * 3
LABELS = ["fruit", "car"] * 6


@pytest.fixture(scope="module")
def stats():
    from alignment.stats.statistics import AlignmentStatistics

    return AlignmentStatistics.from_sentences(SRC, TGT, verbose=False)


def _tagger():
    from sequence import SequenceTagger

    return SequenceTagger(learner="perceptron", n_iter=3, random_state=0)


def _images():
    rng = np.random.default_rng(0)
    return ([rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(2)],
            [rng.random((6, 7)) < 0.5 for _ in range(2)])


def _examples():
    rng = np.random.default_rng(0)
    return [S.SimplexExample(F=sp.csr_matrix(rng.normal(size=(4, 3))), z_gold=z)
            for z in np.eye(3)]


# ------------------------------------------ class: containers without order, None, scalars
def _call(where, value, stats):
    """Give ``value`` in place of one argument (``where``) of a call of each package."""
    from alignment import BayesianAligner, MatchingAligner, UnsupervisedAligner
    from segmentation import MRFSegmenter

    pairs = [list(p) for p in zip(SRC, TGT)]
    if where == "matching pairs":
        return MatchingAligner(n_iter=2).fit(value, GOLD, stats=stats)
    if where == "matching side":
        pairs[1][0] = value
        return MatchingAligner(n_iter=2).fit(pairs, GOLD, stats=stats)
    if where == "unsupervised src":
        return UnsupervisedAligner().fit(value, TGT)
    if where == "unsupervised sentence":
        return UnsupervisedAligner().fit(SRC[:1] + [value] + SRC[2:], TGT)
    if where == "bayes src":
        return BayesianAligner(n_samplers=1).fit(value, TGT)
    if where == "bayes sentence":
        return BayesianAligner(n_samplers=1).fit(SRC[:1] + [value] + SRC[2:], TGT)
    if where == "tagger X":
        return _tagger().fit(value, TAG_Y)
    if where == "tagger y":
        return _tagger().fit(TAG_X, value)
    if where == "tagger label list":
        return _tagger().fit(TAG_X, TAG_Y[:1] + [value] + TAG_Y[2:])
    if where == "segmenter images":
        return MRFSegmenter(n_iter=1, guard=False, valid_fraction=0).fit(value, _images()[1])
    return S.dual_extragradient(value, S.L2Ball(10), n_iter=2)   # "examples"


WHERE = ["matching pairs", "matching side", "unsupervised src", "unsupervised sentence",
         "bayes src", "bayes sentence", "tagger X", "tagger y", "tagger label list",
         "segmenter images", "examples"]
UNORDERED = st.sampled_from([set, frozenset, lambda v: dict(enumerate(v))])


@SETTINGS
@given(where=st.sampled_from(WHERE), make=UNORDERED)
def test_a_container_without_order_is_refused_naming_it(stats, where, make):
    """A set given as a sentence or a side was aligned in the set's order, silently; a
    dict was read as its keys."""
    value = make(["x", "y"] if "side" in where or "sentence" in where or "list" in where
                 else ["a", "b"])
    kind = type(value).__name__
    with pytest.raises(TypeError, match=re.escape(f"got a {kind}, which has no order")):
        _call(where, value, stats)


@SETTINGS
@given(where=st.sampled_from(WHERE), value=st.sampled_from([None, 3, 2.5]))
def test_none_or_a_number_for_a_list_is_named(stats, where, value):
    """``None`` was "'NoneType' object is not iterable" (or "has no len()")."""
    shown = "None" if value is None else type(value).__name__
    with pytest.raises(TypeError, match=rf"must be a list of .*, got {shown}$"):
        _call(where, value, stats)


def test_an_example_that_is_not_one_is_named():
    with pytest.raises(TypeError, match="example 0 must be a StructuredExample .*got int"):
        S.dual_extragradient([1, 2], S.L2Ball(10), n_iter=2)


def test_ordered_containers_and_iterators_still_give_the_same_result(stats):
    from alignment import BayesianAligner, MatchingAligner

    pairs = list(zip(SRC, TGT))
    base = MatchingAligner(n_iter=2).fit(pairs, GOLD, stats=stats).predict(pairs)
    again = MatchingAligner(n_iter=2).fit(iter(pairs), iter(GOLD), stats=stats)
    assert again.predict(tuple(pairs)) == base
    b = BayesianAligner(n_samplers=1, random_state=0)
    assert b.fit_align(iter(SRC), iter(TGT)) == b.fit_align(SRC, TGT)
    w = S.dual_extragradient(iter(_examples()), S.L2Ball(10), n_iter=3).w
    np.testing.assert_array_equal(w, S.dual_extragradient(_examples(), S.L2Ball(10),
                                                          n_iter=3).w)


# ---------------------------------------------- class: tagged tokens as numpy rows
@SETTINGS
@given(dtype=st.sampled_from(["U", object]))
def test_a_tagged_sentence_as_a_numpy_array_is_its_rows(dtype):
    base = _tagger().fit(TAG_X, TAG_Y).predict(TAG_X)
    arrays = [np.array(s, dtype=dtype) for s in TAG_X]
    assert _tagger().fit(arrays, TAG_Y).predict(arrays) == base


# ------------------------------------------------------ class: save before fit
def test_tagger_save_before_fit_is_not_fitted_error(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet: call fit before save"):
        _tagger().save(os.path.join(tmp_path, "m.npz"))


# --------------------------------------------- class: topic labels and boolean counts
TOPIC_CLASSIFIERS = ["NBSVM", "SdemNaiveBayes", "LDASVM", "DiscLDA", "GibbsMedLDA",
                     "ImportanceMedLDA", "PaMedLDA", "PaMedHDPClassifier", "SdemLDAClassifier"]


@SETTINGS
@given(name=st.sampled_from(TOPIC_CLASSIFIERS), true=st.sampled_from([True, np.True_]),
       number=st.sampled_from([1, 0, 2, np.int64(1), 1.0]))
def test_labels_mixing_booleans_and_numbers_are_refused(name, true, number):
    """``[1, True, 0, 2]``: ``True`` and ``1`` were one class."""
    import topics

    y = [true, number] * 6
    with pytest.raises(ValueError, match="mixes labels that are booleans and numbers"):
        getattr(topics, name)().fit(DOCS, y)


@SETTINGS
@given(name=st.sampled_from(TOPIC_CLASSIFIERS + ["LDA"]), sparse=st.booleans(),
       seed=st.integers(0, 3))
def test_a_boolean_count_matrix_is_its_zeros_and_ones(name, sparse, seed):
    import topics

    X = np.random.default_rng(seed).random((12, 6)) < 0.5
    X[:, 0] = True      # no document without a word
    given_ = sp.csr_matrix(X) if sparse else X

    def run(data):
        model = getattr(topics, name)(random_state=0)
        if name == "LDA":
            return model.fit(data).transform(data)
        return model.fit(data, LABELS).predict(data)

    np.testing.assert_array_equal(run(given_), run(X.astype(np.int64)))


def test_lda_transform_of_no_documents_says_so():
    from topics import LDA

    model = LDA(n_topics=2, n_iter=2).fit(DOCS)
    with pytest.raises(ValueError, match=re.escape("LDA: X holds no documents (an empty list)")):
        model.transform([])


# ------------------------------------------------ class: feature matrices of non-reals
@SETTINGS
@given(F=st.sampled_from([np.ones((4, 3)) * 1j, sp.csr_matrix(np.ones((4, 3)) * (1 + 1j)),
                          np.full((4, 3), "a"), np.array([[1, "a", 2]] * 4, dtype=object),
                          "abc"]))
def test_a_feature_matrix_of_non_real_values_is_refused(F):
    with pytest.raises(TypeError, match="the feature matrix must hold real numbers"):
        S.SimplexExample(F=F, z_gold=np.eye(3)[0])


# ---------------------------------------------------------- class: results compared
def test_solver_results_compare_by_identity():
    res = S.dual_extragradient(_examples(), S.L2Ball(10), n_iter=2)
    other = S.dual_extragradient(_examples(), S.L2Ball(10), n_iter=2)
    assert res == res and res != other and "SolverResult(" in repr(res)


# ---------------------------------------------------------- class: image value hints
def test_a_signed_8_bit_image_is_not_called_16_bit():
    from segmentation import MRFSegmenter

    images, masks = _images()
    with pytest.raises(ValueError, match=r"int8 values from -\d+ to \d+ \(signed 8-bit\?"):
        MRFSegmenter(n_iter=1, guard=False, valid_fraction=0).fit(
            [im.astype(np.int8) for im in images], masks)


# ------------------------ class: containers without order in the readers, writers and scores
def _alignment_call(where, value, tmp_path):
    from alignment import Alignment, score_alignments, write_parallel, write_pharaoh

    gold = [Alignment(sure={(0, 0), (1, 1)})] * 2
    if where == "score predicted":
        return score_alignments(value, gold)
    if where == "score gold":
        return score_alignments([{(0, 0)}] * 2, value)
    if where == "write_pharaoh":
        return write_pharaoh(value, tmp_path / "a.txt")
    if where == "write_parallel pairs":
        return write_parallel(value, tmp_path / "s.txt", tmp_path / "t.txt")
    return write_parallel([(value, ["b"])], tmp_path / "s.txt", tmp_path / "t.txt")


ALIGNMENT_WHERE = ["score predicted", "score gold", "write_pharaoh", "write_parallel pairs",
                   "write_parallel side"]


@SETTINGS
@given(where=st.sampled_from(ALIGNMENT_WHERE), make=UNORDERED)
def test_alignment_functions_refuse_a_container_without_order(tmp_path, where, make):
    """``write_parallel`` wrote a set side in the set's order, silently; a set of
    predictions was scored against the gold in no order."""
    value = make([frozenset({(0, 0)}), frozenset({(1, 1)})] if "side" not in where
                 else ["a", "b"])
    kind = type(value).__name__
    with pytest.raises(TypeError, match=re.escape(f"got a {kind}, which has no order")):
        _alignment_call(where, value, tmp_path)


@SETTINGS
@given(where=st.sampled_from(ALIGNMENT_WHERE))
def test_alignment_functions_name_none(tmp_path, where):
    """``score_alignments(None, gold)`` was "'NoneType' object is not iterable"."""
    with pytest.raises(TypeError, match=r"must be a list of .*, got None$"):
        _alignment_call(where, None, tmp_path)


@SETTINGS
@given(links=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=6))
def test_format_pharaoh_reads_an_array_of_links_as_its_rows(links):
    """An ``(n, 2)`` array was "unhashable type: 'numpy.ndarray'"."""
    from alignment import format_pharaoh

    array = np.array(links, dtype=np.int64).reshape(-1, 2)
    assert format_pharaoh(array) == format_pharaoh(set(links))


# ------------------------------------------- class: documents and labels of topics.auto.choose
AUTO_DOCS = DOCS + DOCS[:8]
AUTO_LABELS = LABELS + LABELS[:8]
BAD_CHOICES = [
    ({"labels": AUTO_LABELS[:-1]}, ValueError, "20 texts but 19 labels"),
    ({"labels": [None] + AUTO_LABELS[1:]}, ValueError, "labels[0] is None"),
    ({"labels": [float("nan")] + AUTO_LABELS[1:]}, ValueError, "labels[0] is nan"),
    ({"labels": [1, "1"] * 10}, ValueError, "labels mix numbers and strings"),
    ({"labels": [True, 1, 0, 2] * 5}, ValueError, "labels mix booleans and numbers"),
    ({"texts": set(AUTO_DOCS)}, TypeError, "texts must be a sequence in order"),
    ({"texts": None}, TypeError, "texts must be a list of documents, got None"),
    ({"valid_texts": DOCS[:4], "valid_labels": LABELS[:3]}, ValueError,
     "4 valid_texts but 3 valid_labels"),
    ({"time_budget": float("nan")}, ValueError, "time_budget must be a finite number >= 0"),
]


@SETTINGS
@given(case=st.sampled_from(BAD_CHOICES))
def test_choose_refuses_documents_and_labels_that_do_not_fit(case):
    """19 labels for 20 documents and a ``None`` label were taken; a set of texts was
    "list index out of range", a short validation list numpy's "index 23 is out of bounds"."""
    from topics.auto import choose

    kwargs, error, match = case
    args = {"texts": AUTO_DOCS, "labels": AUTO_LABELS, "time_budget": 1.0, **kwargs}
    with pytest.raises(error, match=re.escape(match)):
        choose(args.pop("texts"), args.pop("labels"), **args)
