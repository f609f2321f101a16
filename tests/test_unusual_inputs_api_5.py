"""Unusual inputs to the Python API, fifth sweep (docs/errors.md): boolean options given
strings, numbers given as strings or fractions, token lists with numbers, ragged nested
lists of pixels, ``predict`` before ``fit``, one-shot iterators where the examples are
read many times, and the core's projections, step sizes and parameter sets."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

import structpred as S
from alignment import BayesianAligner, MatchingAligner, UnsupervisedAligner, read_naacl, \
    read_pharaoh, write_naacl, write_pharaoh
from alignment.data.corpus import Vocabulary as AlignVocabulary
from alignment.data.formats import Alignment
from segmentation.model import MRFSegmenter
from sequence.data import read_conll
from sequence.model import SequenceTagger
from topics import NBSVM, SdemNaiveBayes, Tokenizer, Vocabulary

FEW = settings(max_examples=15, deadline=None)

DOCS = ["apple banana fruit sweet", "car engine wheel road"] * 3
LABELS = ["fruit", "car"] * 3
SRC = [["the", "house"], ["a", "car"]] * 2
TGT = [["das", "haus"], ["ein", "auto"]] * 2
SENTS = [[("the",), ("cat",)], [("a",), ("dog",)]] * 2
TAGS = [["B", "I"], ["B", "O"]] * 2
BAYES = dict(em_iterations=1, ibm1_iterations=1, hmm_iterations=1, fertility_iterations=1,
             n_samplers=1)
FAST_SEG = dict(n_iter=2, n_segments=10, guard=False, colour_model=False, patience=None)


def _images(n=2):
    rng = np.random.default_rng(0)
    masks = [np.zeros((8, 9), bool) for _ in range(n)]
    for m in masks:
        m[:4] = True
    return [rng.integers(0, 256, (8, 9, 3), dtype=np.uint8) for _ in range(n)], masks


@pytest.fixture
def conll(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("the DT B-NP\ncat NN I-NP\n\na DT B-NP\n")
    return path


# every boolean option, each through the call that reads it
FLAG_CALLS = {
    "Tokenizer.lowercase": lambda v: Tokenizer(lowercase=v),
    "Tokenizer.digits": lambda v: Tokenizer(digits=v),
    "Vocabulary.sublinear_tf": lambda v: Vocabulary(sublinear_tf=v).fit(DOCS).transform(DOCS),
    "NBSVM.binarize": lambda v: NBSVM(binarize=v).fit(DOCS, LABELS),
    "NBSVM.nb_scaling": lambda v: NBSVM(nb_scaling=v).fit(DOCS, LABELS),
    "SdemNaiveBayes.shuffle": lambda v: SdemNaiveBayes(shuffle=v).fit(DOCS, LABELS),
    "SequenceTagger.refit": lambda v: SequenceTagger(n_iter=1, refit=v).fit(SENTS, TAGS),
    "SequenceTagger.verbose": lambda v: SequenceTagger(n_iter=1, verbose=v).fit(SENTS, TAGS),
    "read_conll.labelled": None,   # needs a file: test_read_conll_options
    "UnsupervisedAligner.lowercase": lambda v: UnsupervisedAligner(lowercase=v).fit(SRC, TGT),
    "BayesianAligner.lowercase": lambda v: BayesianAligner(lowercase=v, **BAYES).fit(SRC, TGT),
    "MatchingAligner.interactions": lambda v: MatchingAligner(interactions=v).fit(
        [(SRC[0], TGT[0])], [[(0, 0)]], stats=object()),
    "MatchingAligner.use_external": lambda v: MatchingAligner(use_external=v).fit(
        [(SRC[0], TGT[0])], [[(0, 0)]], stats=object()),
    "alignment.Vocabulary.lowercase": lambda v: AlignVocabulary(lowercase=v),
    "MRFSegmenter.use_edges": lambda v: MRFSegmenter(**{**FAST_SEG, "use_edges": v}).fit(
        *_images()),
    "MRFSegmenter.memory_efficient": lambda v: MRFSegmenter(
        **{**FAST_SEG, "memory_efficient": v}).fit(*_images()),
    "Monitor.hinge": lambda v: S.Monitor(hinge=v),
    "Monitor.greater_is_better": lambda v: S.Monitor(greater_is_better=v),
}


@FEW
@given(st.sampled_from(["no", "false", "False", "0", "", "off", "yes", "2"]) | st.none()
       | st.integers(2, 10) | st.floats(allow_nan=True))
def test_check_flag_refuses_what_is_not_true_or_false(value):
    # before: no shared check; every flag was read by its truth ("no" is True)
    with pytest.raises(ValueError, match="must be True or False"):
        S.check_flag("lowercase", value)


@pytest.mark.parametrize("value", [True, False, np.True_, np.False_, 0, 1, np.int64(1)])
def test_check_flag_takes_booleans(value):
    assert S.check_flag("x", value) is bool(value)


@pytest.mark.parametrize("where", [k for k, v in FLAG_CALLS.items() if v is not None])
def test_a_string_given_for_a_boolean_option_is_refused(where):
    # before: "no" and "false" switched the option on (lowercase="no" lower-cased)
    name = where.rpartition(".")[2]
    with pytest.raises(ValueError, match=f"{name} must be True or False, got 'no'"):
        FLAG_CALLS[where]("no")


@pytest.mark.parametrize("doc", [["apple", 1], [1, "apple"], ["apple", None], ("x", 2.5)])
def test_topic_token_lists_with_a_non_string_are_refused(doc):
    # before: 1 and None were read as the words "1" and "none" (or, first, as counts)
    docs = [doc] + [["car", "road"], ["apple", "fruit"]] * 3
    with pytest.raises(TypeError, match="document 0: a token must be a string"):
        NBSVM().fit(docs, ["a"] + ["b", "a"] * 3)
    X = [[1, 0], [0, 2]] * 3   # rows of numbers only are still a count matrix
    assert NBSVM().fit(X, ["a", "b"] * 3).predict([[3, 0]]).tolist() == ["a"]


@pytest.mark.parametrize("n", ["3", 3.0, True, 0, 1, -2])
def test_read_conll_n_columns_must_be_a_whole_number_of_columns(conll, n):
    # before: "3" gave "expected 3 columns, found 3", 1 read labels without tokens
    with pytest.raises(ValueError, match="n_columns must be an integer >= 2"):
        read_conll(conll, n_columns=n)


def test_read_conll_options(conll):
    assert read_conll(conll, n_columns=np.int64(3))[1] == [["B-NP", "I-NP"], ["B-NP"]]
    assert read_conll(conll, labelled=False, n_columns=3)[1] is None
    with pytest.raises(ValueError, match="labelled must be True or False"):
        read_conll(conll, labelled="no")


@pytest.mark.parametrize("name, value", [
    ("step_scale", "3"), ("step_scale", 0), ("loss_scale", "2"), ("smoothing", "0.1"),
    ("scale_power", "0.5"), ("batch_size", 2.5), ("min_count", 1.5), ("max_time", -1),
    ("max_time", float("nan")), ("max_time", "1")])
def test_tagger_numbers_of_the_wrong_kind_are_named(name, value):
    # before: "3" and 2.5 were taken (float(), int()), step_scale 0 was named "eta"
    with pytest.raises(ValueError, match=f"^{name} must be"):
        SequenceTagger(n_iter=1, **{name: value}).fit(SENTS, TAGS)


@pytest.mark.parametrize("name, value", [
    ("cv_folds", 2.5), ("n_jobs", 0), ("n_jobs", 1.5), ("valid_fraction", "0.1"),
    ("learning_rate", float("nan")), ("eta_scale", float("inf")), ("compactness", "10")])
def test_segmenter_numbers_of_the_wrong_kind_are_named(name, value):
    with pytest.raises(ValueError, match=f"^{name} must be"):
        MRFSegmenter(**{**FAST_SEG, name: value}).fit(*_images())


def test_segmenter_n_iter_true_is_not_one_iteration():
    with pytest.raises(ValueError, match="n_iter must be 'auto' or a whole number"):
        MRFSegmenter(**{**FAST_SEG, "n_iter": True}).fit(*_images())


RAGGED = [[[0, 0, 0], [0, 0, 0]], [[0, 0, 0]]]


@pytest.mark.parametrize("which, bad, error, match", [
    ("image", RAGGED, ValueError, "an image given as nested lists has rows of different"),
    ("mask", [[True, False], [True]], ValueError, "a mask given as nested lists has rows"),
    ("image", None, TypeError, "an image must be an array, got NoneType"),
    ("image", "a.png", TypeError, "an image must be an array, got str 'a.png'; read files"),
    ("mask", None, TypeError, "mask 0 is None: every image needs its mask")])
def test_segmenter_images_and_masks_that_are_not_arrays_are_named(which, bad, error, match):
    # before: numpy's "inhomogeneous shape after 1 dimensions", "got ()", or "training
    # graphs need ground truth (fg_fraction)"
    images, masks = _images()
    (images if which == "image" else masks)[0] = bad
    with pytest.raises(error, match=match):
        MRFSegmenter(**FAST_SEG).fit(images, masks)


def test_segmenter_predict_names_a_ragged_image():
    model = MRFSegmenter(**FAST_SEG).fit(*_images())
    with pytest.raises(ValueError, match="rows of different lengths"):
        model.predict([RAGGED])


@pytest.mark.parametrize("call", [
    lambda: MatchingAligner().predict([(SRC[0], TGT[0])]),
    lambda: UnsupervisedAligner().predict([(SRC[0], TGT[0])]),
    lambda: BayesianAligner(**BAYES).align(SRC, TGT)])
def test_every_aligner_says_not_fitted_as_scikit_learn_does(call):
    # before: a RuntimeError (MatchingAligner) or a plain ValueError
    with pytest.raises(NotFittedError, match="not (fitted|trained)"):
        call()


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2"])
def test_bayesian_aligner_n_jobs_is_a_whole_number(n_jobs):
    with pytest.raises(ValueError, match="n_jobs must be an integer >= 1"):
        BayesianAligner(n_jobs=n_jobs, **BAYES).fit(SRC, TGT)


@pytest.mark.parametrize("name", ["alpha", "C"])
def test_nbsvm_infinite_smoothing_or_cost_is_refused(name):
    # before: alpha=inf made every log-count ratio 0 and predicted one class for all
    with pytest.raises(ValueError, match=f"{name} must be a finite number > 0"):
        NBSVM(**{name: float("inf")}).fit(DOCS, LABELS)


@pytest.mark.parametrize("v, match", [
    ([np.nan, 1.0], "NaN"), ([np.inf, 1.0], "infinite"), ([], "no coordinates"),
    (np.ones((2, 2)), "1-D array"), (["a", "b"], "numeric 1-D array")])
def test_project_simplex_refuses_what_is_not_a_finite_vector(v, match):
    # before: an IndexError (NaN, inf, empty) or numpy's broadcasting error (2-D)
    with pytest.raises(ValueError, match=match):
        S.project_simplex(v)


@FEW
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=8), st.data())
def test_project_simplex_lands_on_the_simplex_or_names_a_nan(v, data):
    z = S.project_simplex(v)
    assert z.min() >= 0 and abs(z.sum() - 1) < 1e-9
    at = data.draw(st.integers(0, len(v) - 1))
    bad = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    with pytest.raises(ValueError, match="v contains (NaN|infinite) values"):
        S.project_simplex(v[:at] + [bad] + v[at:])


@pytest.mark.parametrize("fmt", ["csr", "coo", "lil", "dok"])
def test_projections_and_decoders_read_sparse_scores(fmt):
    # before: "zp must be a numeric 2-D array: setting an array element with a sequence"
    a = np.array([[3.0, 1.0], [0.0, 2.0]])
    s = sp.csr_matrix(a).asformat(fmt)
    np.testing.assert_allclose(S.project_matching(s), S.project_matching(a))
    np.testing.assert_array_equal(S.decode_matching(s), S.decode_matching(a))


def _simplex_examples():
    rng = np.random.default_rng(0)
    out = []
    for k in range(3):
        z = np.zeros(3)
        z[k] = 1
        out.append(S.SimplexExample(F=sp.csr_matrix(rng.normal(size=(4, 3))), z_gold=z))
    return out


@pytest.mark.parametrize("eta", [float("inf"), "1", True, 0, -1.0, float("nan")])
def test_a_step_size_that_is_not_a_positive_number_is_refused(eta):
    # before: inf was an IndexError, "1" a TypeError, True a step of 1
    with pytest.raises(ValueError, match="eta must be a finite number > 0"):
        S.dual_extragradient(_simplex_examples(), S.L2Ball(10), n_iter=2, eta=eta)


@pytest.mark.parametrize("learner", [S.dual_extragradient, S.dual_extragradient_streaming,
                                     S.averaged_projected_gradient, S.subgradient_method])
@pytest.mark.parametrize("seed", [-1, "a", 2.5, True])
def test_learner_seeds_are_refused_in_the_shared_words(learner, seed):
    # before: numpy's "expected non-negative integer" or SeedSequence's error
    with pytest.raises(ValueError, match="random_state must be an integer >= 0"):
        learner(_simplex_examples(), W=S.L2Ball(10), n_iter=2, random_state=seed)


def test_learner_seeds_may_be_numpy_generators_but_not_negative():
    exs = _simplex_examples()
    a = S.dual_extragradient(exs, S.L2Ball(10), n_iter=3, random_state=0).w
    b = S.dual_extragradient(exs, S.L2Ball(10), n_iter=3,
                             random_state=np.random.default_rng(0)).w
    np.testing.assert_allclose(a, b)
    with pytest.raises(ValueError, match="random_state must be an integer >= 0, None, a "
                                         "SeedSequence or a numpy Generator, got -1"):
        S.dual_extragradient(exs, S.L2Ball(10), n_iter=3, random_state=-1)


def test_the_streaming_learner_refuses_a_one_shot_iterator():
    # before: the step size's power iteration read it, and training said "all feature
    # matrices are zero: the problem is trivial"
    with pytest.raises(TypeError, match="iterator, which can be read once"):
        S.dual_extragradient_streaming(iter(_simplex_examples()), S.L2Ball(10), n_iter=2)


def test_a_parameter_set_that_is_not_one_is_named():
    with pytest.raises(TypeError, match="W must be a parameter set such as L2Ball"):
        S.dual_extragradient(_simplex_examples(), 3.0, n_iter=2)


@pytest.mark.parametrize("kw, match", [
    (dict(radius="3"), "radius must be a number > 0"),
    (dict(nonneg="no"), "nonneg must be coordinate indices"),
    (dict(nonneg=[1.5]), "nonneg must"), (dict(nonneg=[-1]), "nonneg must")])
def test_l2ball_arguments(kw, match):
    with pytest.raises(ValueError, match=match):
        S.L2Ball(**kw)


def test_l2ball_takes_masks_and_numpy_indices_not_fractions():
    assert S.L2Ball(nonneg=np.array([False, True])).nonneg == (1,)
    assert S.L2Ball(radius=np.float32(2), nonneg=np.arange(2)).nonneg == (0, 1)
    with pytest.raises(ValueError, match="nonneg must"):   # was cut to coordinate 0
        S.L2Ball(nonneg=[0.5])


@pytest.mark.parametrize("kw", [dict(every=2.5), dict(every="3"), dict(patience=0),
                                dict(patience=1.5)])
def test_monitor_counts_are_whole_numbers(kw):
    with pytest.raises(ValueError, match="must be an integer >= 1"):
        S.Monitor(**kw)


@pytest.mark.parametrize("n", ["2", 2.5, -1, True])
def test_read_naacl_n_sentences_is_a_count(tmp_path, n):
    path = tmp_path / "g.naacl"
    write_naacl([Alignment(sure={(0, 0)})] * 2, path)
    with pytest.raises(ValueError, match="n_sentences must be an integer >= 0"):
        read_naacl(path, n_sentences=n)


def test_readers_take_the_sentence_pairs_from_a_generator(tmp_path):
    # before: "object of type 'generator' has no len()"
    pairs = list(zip(SRC[:2], TGT[:2]))
    gold = [Alignment(sure={(0, 0), (1, 1)})] * 2
    write_pharaoh(gold, tmp_path / "a.txt")
    write_naacl(gold, tmp_path / "a.naacl")
    assert read_pharaoh(tmp_path / "a.txt", pairs=(p for p in pairs)) == gold
    assert read_naacl(tmp_path / "a.naacl", pairs=(p for p in pairs)) == gold
