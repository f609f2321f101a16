"""Unusual inputs of the Python API, fifteenth sweep (issue 28, docs/errors.md): the
scikit-learn conventions of every public estimator.

Fixed in this sweep, both a hyperparameter changed by ``set_params`` on a fitted model:

- ``BayesianAligner.links_`` kept the symmetrised links of its first access: after
  ``set_params(symmetrize=...)`` it gave the old combination while :meth:`align` used the
  new one, and an unpickled model likewise (the cache travels in the pickle); whether the
  attribute was read before decided what it held.  It is formed under the current
  ``symmetrize`` now, and a ``symmetrize`` that is not one of the five names is the
  ``ValueError`` of ``fit`` (a list was Python's "unhashable type" once keyed);
- ``SequenceTagger`` read its templates from ``feature_set`` at predict: a tagger fitted
  with ``"full"`` and set to ``"window"`` gave the full model's weights the window
  features (96.1 F1 on its training sentences became 87.8, silently), and ``save`` wrote
  ``window`` into the model file, so the loaded tagger kept the worse predictions.  The
  fitted templates are ``feature_set_`` now, used by ``predict`` and ``save``;
- the topic models: ``LDA``, ``PaMedLDA`` and the two MedLDAs read their prior
  (``50 / n_topics``, ``1 / n_topics`` or ``alpha``) anew at transform, ``NBSVM`` its ``binarize`` at predict
  (counts for weights fitted on 0/1 features), and ``ImportanceMedLDA`` with ``n_topics``
  changed was numpy's "matmul: Input operand 1 has a mismatch in its core dimension": each
  keeps the fitted value until the next fit;
- ``UnsupervisedAligner`` and ``BayesianAligner`` read the words of ``predict``/``align``
  with the current ``prefix`` and ``lowercase``, looking up words the fitted tables never
  held, and ``UnsupervisedAligner.save`` recorded the new options: the fitted ones now;
- ``MatchingAligner`` with ``max_fertility``, ``interactions``, ``use_external`` or
  ``aligners`` changed after fit predicted with Python's "object has no attribute
  'pair_featurizer_'" (or other internals): a ``ValueError`` naming the parameter now;
  ``MRFSegmenter`` likewise for the hyperparameters of its features (``colour_model``,
  ``colour_components``, ``compactness``, ``feature_scale``, ``edge_scale``,
  ``use_edges``; ``voxel`` and ``k_graph`` for point clouds), which predict read anew.

Tried and handled right, kept so by the tests below: ``clone`` (unfitted, equal
parameters), ``get_params``/``set_params`` (an unknown name refused), an ``__init__`` that
stores its arguments unchecked, ``fit`` returning ``self`` and replacing the first fit,
``NotFittedError`` before ``fit``, predictions of a pickled and a deep-copied model, sides
and pairs as tuples, generators, numpy arrays and pandas Series, and the seed classes.
"""

import copy
import pickle
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
SYMMETRIZE = ("intersection", "union", "grow-diag", "grow-diag-final", "grow-diag-final-and")
SRC = [["le", "chat", "noir"], ["le", "chien"], ["chat", "blanc"], ["un", "chien", "noir"]] * 2
TGT = [["the", "black", "cat"], ["the", "dog"], ["white", "cat"], ["a", "black", "dog"]] * 2


def _bayes(**kw):
    from alignment.aligners.bayes import BayesianAligner

    return BayesianAligner(**{"random_state": 0, "n_samplers": 1, **kw})


# ------------------------------------------- class: hyperparameters changed after fit
@SETTINGS
@given(first=st.sampled_from(SYMMETRIZE), then=st.sampled_from(SYMMETRIZE),
       pickled=st.booleans())
def test_bayesian_links_follow_symmetrize_set_after_fit(first, then, pickled):
    """``links_`` read, ``symmetrize`` changed: the links of the new combination, as
    :meth:`align` gives (before: those of the first access)."""
    model = _bayes(symmetrize=first).fit(SRC, TGT)
    assert model.links_ == _bayes(symmetrize=first).fit(SRC, TGT).links_
    if pickled:
        model = pickle.loads(pickle.dumps(model))
    model.set_params(symmetrize=then)
    fresh = _bayes(symmetrize=then).fit(SRC, TGT)
    assert model.links_ == fresh.links_
    assert model.align(SRC, TGT) == fresh.align(SRC, TGT)


def test_union_and_intersection_differ_on_these_sentences():
    """The data above tells the combinations apart (else the test above proves nothing)."""
    assert _bayes(symmetrize="union").fit(SRC, TGT).links_ != _bayes().fit(SRC, TGT).links_


@pytest.mark.parametrize("value", [["union"], "bogus", None])
def test_bayesian_links_refuse_an_unknown_symmetrize(value):
    model = _bayes().fit(SRC, TGT)
    model.set_params(symmetrize=value)
    with pytest.raises(ValueError, match=re.escape(f"symmetrize must be one of {SYMMETRIZE}, "
                                                   f"not {value!r}")):
        model.links_


@pytest.fixture(scope="module")
def chunks():
    from sequence import read_conll

    X, y = read_conll("data/sequence/conll2000-train-300.txt.gz")
    return X[:80], y[:80]


@SETTINGS
@given(fitted=st.sampled_from(["full", "window"]), then=st.sampled_from(["full", "window"]))
def test_tagger_predicts_with_the_templates_it_was_fitted_with(chunks, fitted, then,
                                                               tmp_path_factory):
    """``set_params(feature_set=...)`` after fit changes the next fit only: predict and the
    saved model keep the fitted templates (before: other features for the same weights,
    96.1 F1 became 87.8, and the model file named the other templates)."""
    from sequence import SequenceTagger, load_tagger

    X, y = chunks
    kw = dict(learner="perceptron", n_iter=3, random_state=0, feature_set=fitted)
    model = SequenceTagger(**kw).fit(X, y)
    before = model.predict(X)
    model.set_params(feature_set=then)
    assert model.feature_set_ == fitted and model.predict(X) == before
    path = tmp_path_factory.mktemp("tagger") / "t.npz"
    model.save(path)
    loaded = load_tagger(path)
    assert loaded.feature_set == loaded.feature_set_ == fitted
    assert loaded.predict(X) == before
    assert model.fit(X, y).feature_set_ == then   # the next fit takes the new value
    assert model.predict(X) == SequenceTagger(**{**kw, "feature_set": then}).fit(X, y).predict(X)


def test_the_feature_sets_give_other_predictions(chunks):
    from sequence import SequenceTagger

    X, y = chunks
    kw = dict(learner="perceptron", n_iter=3, random_state=0)
    full = SequenceTagger(**kw).fit(X, y)
    full.feature_set_ = "window"   # what predict read before the fix
    assert full.predict(X) != SequenceTagger(**kw).fit(X, y).predict(X)


TOPIC_CHANGES = [("LDA", "n_topics"), ("LDA", "alpha"), ("GibbsMedLDA", "n_topics"),
                 ("ImportanceMedLDA", "n_topics"), ("GibbsMedLDA", "alpha"),
                 ("ImportanceMedLDA", "alpha"), ("PaMedLDA", "n_topics"), ("PaMedLDA", "alpha"),
                 ("NBSVM", "binarize")]


@pytest.mark.parametrize("case", TOPIC_CHANGES)
@settings(SETTINGS, max_examples=3)
@given(k=st.integers(3, 5))
def test_topic_models_predict_with_the_fitted_model_after_set_params(case, k):
    """The topics' count, the prior and NBSVM's binarisation changed by ``set_params``
    after fit: the fitted model's output until the next fit (before: LDA's and PaMedLDA's
    prior ``50 / n_topics``, ``1 / n_topics`` or ``alpha`` read anew at transform, NBSVM's
    weights given counts, and ImportanceMedLDA numpy's "matmul: Input operand 1 has a
    mismatch in its core dimension")."""
    name, param = case
    cls, kw, fit, output = _topic(name)
    value = {"n_topics": k, "alpha": k / 10, "binarize": False}[param]
    model = cls(**kw)
    fit(model)
    before = output(model)
    model.set_params(**{param: value})
    np.testing.assert_array_equal(output(model), before)
    fresh = cls(**{**kw, param: value})
    fit(fresh)
    fit(model)
    np.testing.assert_array_equal(output(model), output(fresh))


WORDS_SRC = [["Le", "chatons", "noirs"], ["le", "chiens"], ["chatons", "blancs"],
             ["un", "chiens", "noirs"]] * 2
WORDS_TGT = [["the", "blacks", "kittens"], ["the", "doggies"], ["whites", "kittens"],
             ["a", "blacks", "doggies"]] * 2


@SETTINGS
@given(prefix=st.sampled_from([0, 1, 2, 5]), lowercase=st.booleans())
def test_aligners_read_words_as_they_were_fitted(prefix, lowercase, tmp_path_factory):
    """``prefix`` and ``lowercase`` changed by ``set_params`` after fit: the words are read
    as the fitted tables hold them, also in a saved ``UnsupervisedAligner`` (before: other
    words looked up in the same tables, and the file recorded the new options)."""
    from alignment import UnsupervisedAligner

    pairs = list(zip(WORDS_SRC, WORDS_TGT))
    model = UnsupervisedAligner(verbose=False).fit(WORDS_SRC, WORDS_TGT)
    before = model.predict(pairs)
    model.set_params(prefix=prefix, lowercase=lowercase)
    assert model.predict(pairs) == before
    path = tmp_path_factory.mktemp("unsup") / "u.npz"
    model.save(path)
    loaded = UnsupervisedAligner.load(path)
    assert (loaded.prefix, loaded.lowercase) == (4, True) and loaded.predict(pairs) == before
    fresh = UnsupervisedAligner(verbose=False, prefix=prefix, lowercase=lowercase)
    assert model.fit(WORDS_SRC, WORDS_TGT).predict(pairs) == \
        fresh.fit(WORDS_SRC, WORDS_TGT).predict(pairs)

    bayes = _bayes().fit(WORDS_SRC, WORDS_TGT)
    aligned = bayes.align(WORDS_SRC, WORDS_TGT)
    bayes.set_params(prefix=prefix, lowercase=lowercase)
    assert bayes.align(WORDS_SRC, WORDS_TGT) == aligned
    assert bayes.fit(WORDS_SRC, WORDS_TGT).links_ == \
        _bayes(prefix=prefix, lowercase=lowercase).fit(WORDS_SRC, WORDS_TGT).links_


def _refused_then_restored(model, predict, name, value):
    """``set_params(name=value)`` on the fitted ``model``: ``predict(model)`` raises the
    ``ValueError`` naming the parameter; set back, returns ``predict(model)``."""
    was = model.get_params()[name]
    model.set_params(**{name: value})
    try:
        with pytest.raises(ValueError, match=re.escape(f"{name} was {was!r} at fit and is "
                                                       f"{value!r} now (set_params)")):
            predict(model)
    finally:
        model.set_params(**{name: was})
    return predict(model)


def _fitted_case(name):
    """The estimator ``name`` of :func:`_case`, fitted, and its predict."""
    cls, kw, fit, predict = _case(name)
    model = cls(**kw)
    fit(model)
    return model, predict


@pytest.fixture(scope="module")
def matching():
    return _fitted_case("MatchingAligner")


@SETTINGS
@given(change=st.sampled_from([("max_fertility", 2), ("max_fertility", 3),
                               ("interactions", True), ("use_external", True),
                               ("aligners", ("hmm",)), ("aligners", ["bayes"])]))
def test_matching_aligner_refuses_parts_changed_after_fit(matching, change):
    """The model's parts (fertility, interactions, other aligners' links) changed by
    ``set_params`` after fit: a ``ValueError`` naming the parameter (before: Python's
    "'MatchingAligner' object has no attribute 'pair_featurizer_'" or "'node_featurizer_'",
    a ``RuntimeError`` asking for external links, or the weights read as another model's);
    set back, the fitted model's links again."""
    model, predict = matching
    before = predict(model)
    assert _refused_then_restored(model, predict, *change) == before


@pytest.fixture(scope="module")
def segmenter():
    return _fitted_case("MRFSegmenter")


@SETTINGS
@given(change=st.sampled_from([("colour_components", 4), ("colour_model", False),
                               ("compactness", 20.0), ("edge_scale", 2.0),
                               ("feature_scale", 0.04), ("use_edges", False)]))
def test_segmenter_refuses_features_changed_after_fit(segmenter, change):
    """The features' hyperparameters changed by ``set_params`` after fit: a ``ValueError``
    naming the parameter (before: read anew at predict, e.g. another colour model's
    features for the fitted weights, silently); set back, the fitted model's masks."""
    model, predict = segmenter
    before = predict(model)
    after = _refused_then_restored(model, predict, *change)
    assert all(np.array_equal(a, b) for a, b in zip(after, before))
    model.set_params(k_graph=7, voxel=0.5)   # a point cloud's: no part of an image model
    try:
        assert all(np.array_equal(a, b) for a, b in zip(predict(model), before))
    finally:
        model.set_params(k_graph=6, voxel=0.25)


# ------------------------------------------- class: scikit-learn's estimator conventions
def _topic(name):
    import topics

    docs = ["apple pear plum fig apple", "car road gear fuel car", "apple plum fig pear",
            "road car fuel gear", "pear fig apple", "gear road car"] * 3
    y = ["f", "c"] * 9
    cls = getattr(topics, name)
    kw = {k: v for k, v in dict(n_iter=3, n_topics=2, random_state=0, n_class_topics=1,
                                n_shared_topics=1, n_epochs=2).items()
          if k in cls().get_params()}
    if name == "LDA":
        return cls, kw, lambda m: m.fit(docs), lambda m: m.transform(docs)
    method = "predict_proba" if hasattr(cls, "predict_proba") else "decision_function"
    return cls, kw, lambda m: m.fit(docs, y), lambda m: getattr(m, method)(docs)


def _case(name):
    if name == "SequenceTagger":
        from sequence import SequenceTagger

        X = [[("the", "D"), ("dog", "N"), ("runs", "V")], [("a", "D"), ("cat", "N")]] * 3
        y = [["B-NP", "I-NP", "O"], ["B-NP", "I-NP"]] * 3
        return (SequenceTagger, dict(learner="perceptron", n_iter=3, random_state=0),
                lambda m: m.fit(X, y), lambda m: m.predict(X))
    if name == "MRFSegmenter":
        from segmentation import MRFSegmenter

        rng = np.random.default_rng(0)
        images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(3)]
        masks = [rng.random((6, 7)) < 0.5 for _ in range(3)]
        return (MRFSegmenter, dict(n_iter=2, guard=False, valid_fraction=0, random_state=0),
                lambda m: m.fit(images, masks), lambda m: m.predict(images))
    if name == "BayesianAligner":
        from alignment import BayesianAligner

        return (BayesianAligner, dict(random_state=0, n_samplers=1), lambda m: m.fit(SRC, TGT),
                lambda m: m.align(SRC, TGT))
    if name == "UnsupervisedAligner":
        from alignment import UnsupervisedAligner

        return (UnsupervisedAligner, dict(verbose=False), lambda m: m.fit(SRC, TGT),
                lambda m: m.predict(list(zip(SRC, TGT))))
    if name == "MatchingAligner":
        from alignment import AlignmentStatistics, MatchingAligner

        stats = AlignmentStatistics.from_sentences(SRC, TGT, verbose=False)
        gold = [{(0, 0), (1, 2), (2, 1)}, {(0, 0), (1, 1)}, {(0, 1), (1, 0)},
                {(0, 0), (1, 2), (2, 1)}] * 2
        pairs = list(zip(SRC, TGT))
        return (MatchingAligner, dict(n_iter=5, random_state=0),
                lambda m: m.fit(pairs, gold, stats), lambda m: m.predict(pairs))
    return _topic(name)


ESTIMATORS = ["LDA", "LDASVM", "DiscLDA", "SdemNaiveBayes", "SdemLDAClassifier", "GibbsMedLDA",
              "ImportanceMedLDA", "PaMedLDA", "PaMedHDPClassifier", "NBSVM", "SequenceTagger",
              "MRFSegmenter", "BayesianAligner", "UnsupervisedAligner", "MatchingAligner"]


def _same(a, b):
    return pickle.dumps(a) == pickle.dumps(b)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimators_follow_scikit_learn(name):
    cls, kw, fit, predict = _case(name)
    for param in cls().get_params():   # __init__ stores, fit checks
        assert getattr(cls(**{param: "not a value"}), param) == "not a value"
    model = cls(**kw)
    with pytest.raises(ValueError, match="Invalid parameter"):
        model.set_params(no_such_parameter=1)
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(NotFittedError, match="not (fitted|trained)"):
        predict(model)
    assert fit(model) is model
    first = predict(model)
    twin = clone(model)
    assert not [a for a in vars(twin) if a.endswith("_") and not a.startswith("_")]
    assert _same(predict(pickle.loads(pickle.dumps(model))), first)
    assert _same(predict(copy.deepcopy(model)), first)
    assert _same(predict(fit(model)), first) and _same(predict(fit(twin)), first)


CONTAINERS = {"tuple": tuple, "generator": lambda xs: (x for x in xs),
              "object array": lambda xs: np.array(list(xs) + [None], dtype=object)[:-1],
              "Series": lambda xs: __import__("pandas").Series(list(xs))}


@SETTINGS
@given(how=st.sampled_from(sorted(CONTAINERS)),
       side=st.sampled_from(["list", "tuple", "array", "string"]))
def test_aligner_sides_of_any_container_give_one_result(how, side):
    """Sentences as a tuple, a generator, an object array or a Series, each sentence a
    list, tuple, numpy string array or string: the links of the lists."""
    from alignment import UnsupervisedAligner

    shape = {"list": list, "tuple": tuple, "array": np.array, "string": " ".join}[side]
    wrap = CONTAINERS[how]
    src, tgt = [shape(s) for s in SRC], [shape(t) for t in TGT]
    bayes = _bayes().fit(SRC, TGT)
    assert _bayes().fit(wrap(src), wrap(tgt)).links_ == bayes.links_
    assert bayes.align(wrap(src), wrap(tgt)) == bayes.align(SRC, TGT)
    if side != "string":
        base = UnsupervisedAligner(verbose=False).fit(SRC, TGT)
        model = UnsupervisedAligner(verbose=False).fit(wrap(src), wrap(tgt))
        pairs = list(zip(SRC, TGT))
        assert model.predict(pairs) == base.predict(wrap(list(zip(src, tgt)))) == \
            base.predict(pairs)


@pytest.mark.parametrize("name, value", [("max_jump", 5), ("max_fertility", 3)])
def test_bayesian_align_refuses_buckets_changed_after_fit(name, value):
    """``max_jump``/``max_fertility`` set after fit: ``align`` read the fitted jump counts
    (201 buckets) at the new buckets' places (the jumps -100..-90 as -5..5), silently."""
    bayes = _bayes().fit(WORDS_SRC, WORDS_TGT)

    def align(model):
        return model.align(WORDS_SRC, WORDS_TGT)

    aligned = align(bayes)
    assert _refused_then_restored(bayes, align, name, value) == aligned
