"""Unusual inputs of the Python API, sixteenth sweep (docs/errors.md): scikit-learn's
conventions, continued from the fifteenth.

Fixed in this sweep:

- ``DiscLDA``, ``PaMedLDA`` and ``PaMedHDPClassifier`` seeded the chains of prediction from
  ``random_state`` read at predict, and ``PaMedHDPClassifier`` its fold-in prior from
  ``alpha``: ``set_params`` after fit changed the predictions of the same fitted model,
  silently.  Prediction (and ``partial_fit``) refuses them now, naming the parameter
  (``structpred.check_unchanged_since_fit``); the chain lengths of prediction
  (``n_burn``/``n_samples``, ``n_transform_burn``/``n_transform_samples``) may change.
  ``BayesianAligner.align`` likewise for ``alpha_lex``, ``alpha_jump``, ``alpha_fert``,
  ``null_prob`` and ``random_state`` (its iterations and ``n_samplers`` may change);
- ``n_jobs=None``, scikit-learn's one job, was refused by the aligners and the alignment
  functions ("n_jobs must be an integer >= 1 or negative"): it is 1 now;
- ``SequenceTagger.score`` was a percentage (100 for a perfect tagger): a fraction in
  [0, 1] now, as scikit-learn's ``score``; ``tag eval`` prints percentages as before;
- ``topics.Vocabulary`` was no scikit-learn estimator (no ``get_params``: ``clone`` made a
  deep copy, a fitted one included, and ``Pipeline`` refused it), and the topic models
  fitted the ``vocabulary`` they were given in place: one ``Vocabulary`` given to two
  models gave the first the second's columns.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from test_unusual_inputs_api_15 import SRC, TGT, _refused_then_restored

from structpred import check_n_jobs

SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
DOCS = ["apple pear plum fig apple", "car road gear fuel car", "apple plum fig pear",
        "road car fuel gear", "pear fig apple", "gear road car"] * 3
LABELS = ["f", "c"] * 9


# ------------------------------------------- inference settings changed after fit
def _topic_model(name):
    import topics

    kw = {"DiscLDA": dict(n_class_topics=1, n_shared_topics=1, n_iter=3, n_burn=2,
                          n_samples=3),
          "PaMedLDA": dict(n_topics=2, n_transform_burn=2, n_transform_samples=3),
          "PaMedHDPClassifier": dict(n_transform_burn=2, n_transform_samples=3)}[name]
    model = getattr(topics, name)(random_state=0, **kw).fit(DOCS, LABELS)
    method = "predict_proba" if name == "DiscLDA" else "decision_function"
    return model, lambda m: getattr(m, method)(DOCS)


@pytest.fixture(scope="module", params=["DiscLDA", "PaMedLDA", "PaMedHDPClassifier"])
def topic_model(request):
    return _topic_model(request.param)


@SETTINGS
@given(seed=st.integers(1, 2 ** 31))
def test_topic_models_refuse_random_state_changed_after_fit(topic_model, seed):
    """``set_params(random_state=...)`` after fit: prediction seeded its chains from the
    new value (other probabilities of the same fitted model, silently); now a
    ``ValueError`` naming it, and set back, the fitted model's output."""
    model, predict = topic_model
    before = predict(model)
    np.testing.assert_array_equal(_refused_then_restored(model, predict, "random_state", seed),
                                  before)


@pytest.mark.parametrize("name", ["DiscLDA", "PaMedLDA", "PaMedHDPClassifier"])
def test_the_seed_changed_the_predictions_before(name):
    """What prediction read before the fix (a model that keeps no settings, as one fitted
    before, is not checked): another seed, other output of the same fitted model."""
    model, predict = _topic_model(name)
    before = predict(model)
    del model._fitted_settings
    model.set_params(random_state=5)
    assert not np.array_equal(predict(model), before)


@SETTINGS
@given(alpha=st.floats(0.5, 50.0).filter(lambda a: a != 5.0))
def test_pamedhdp_refuses_alpha_changed_after_fit(alpha):
    """``alpha`` is the prior of the fold-in (``alpha * topic_weights_``) of the fitted
    model: read anew at transform before."""
    model, predict = _pamedhdp()
    before = predict(model)
    np.testing.assert_array_equal(_refused_then_restored(model, predict, "alpha", alpha),
                                  before)


_HDP = []


def _pamedhdp():
    if not _HDP:
        _HDP.append(_topic_model("PaMedHDPClassifier"))
    return _HDP[0]


@pytest.mark.parametrize("name", ["DiscLDA", "PaMedLDA", "PaMedHDPClassifier"])
def test_chain_lengths_of_prediction_may_change(name):
    """How long the chains of new documents run is a setting of prediction only: taken
    after fit without a refusal, and a seed given as ``None`` (0 for these models) is
    the same setting as 0."""
    model, predict = _topic_model(name)
    names = ("n_burn", "n_samples") if name == "DiscLDA" else ("n_transform_burn",
                                                                "n_transform_samples")
    model.set_params(**{names[0]: 1, names[1]: 2}, random_state=None)
    assert np.all(np.isfinite(predict(model)))
    if name != "DiscLDA":
        model.partial_fit(DOCS[:4], LABELS[:4])


def test_partial_fit_refuses_random_state_changed():
    """``partial_fit`` goes on with the fitted stream: a changed seed mixed two models."""
    model, _ = _topic_model("PaMedLDA")
    model.set_params(random_state=3)
    with pytest.raises(ValueError, match=re.escape("random_state was 0 at fit and is 3 now")):
        model.partial_fit(DOCS[:4], LABELS[:4])


def test_a_saved_topic_model_keeps_its_settings(tmp_path):
    """A model written and read back predicts as fitted and refuses a changed seed; one
    fitted with a ``RandomState`` is saved with the seed drawn from it, the same setting."""
    from topics import PaMedLDA, Vocabulary
    from topics._persist import load_model, save_model

    vocab = Vocabulary().fit(DOCS)
    X = vocab.transform(DOCS)
    model = PaMedLDA(n_topics=2, n_transform_burn=2, n_transform_samples=3,
                     random_state=np.random.RandomState(4)).fit(X, LABELS)
    save_model(tmp_path / "m.npz", model, model="pamedlda", vocabulary=vocab)
    loaded = load_model(tmp_path / "m.npz").estimator
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    loaded.set_params(random_state=loaded.random_state + 1)
    with pytest.raises(ValueError, match="random_state was .* at fit and is .* now"):
        loaded.predict(X)


@pytest.fixture(scope="module")
def bayes():
    from alignment import BayesianAligner

    model = BayesianAligner(random_state=0, n_samplers=1).fit(SRC, TGT)
    return model, lambda m: m.align(SRC, TGT)


@SETTINGS
@given(change=st.one_of(
    st.tuples(st.sampled_from(["alpha_lex", "alpha_jump", "alpha_fert"]),
              st.floats(1e-3, 10.0).filter(lambda v: v not in (0.001, 0.5))),
    st.tuples(st.just("null_prob"), st.floats(0.01, 0.99).filter(lambda v: v != 0.2)),
    st.tuples(st.just("random_state"), st.integers(1, 2 ** 31))))
def test_bayesian_aligner_refuses_priors_changed_after_fit(bayes, change):
    """The Dirichlet concentrations, ``null_prob`` and the seed changed after fit: align
    sampled with them beside the fitted counts (other links of the same model, silently);
    now a ``ValueError`` naming the parameter, and set back, the fitted model's links."""
    model, align = bayes
    before = align(model)
    assert _refused_then_restored(model, align, *change) == before


def test_bayesian_aligner_sampling_effort_may_change(bayes):
    """The sweeps and samplers of align are how it samples: taken after fit."""
    model, align = bayes
    model.set_params(n_samplers=2, fertility_iterations=2)
    try:
        assert len(align(model)) == len(SRC)
    finally:
        model.set_params(n_samplers=1, fertility_iterations=4)


# ------------------------------------------- n_jobs=None
def test_n_jobs_none_is_one_job():
    """scikit-learn's ``n_jobs=None`` (one job outside a joblib context) was refused."""
    from alignment import AlignmentStatistics, BayesianAligner, UnsupervisedAligner
    from alignment.features.links import start_sources
    from alignment.stats.interactions import InteractionStatistics

    assert check_n_jobs(None) == 1 and check_n_jobs(None, none=True) is None
    links = BayesianAligner(random_state=0, n_samplers=1, n_jobs=None).fit_align(SRC, TGT)
    assert links == BayesianAligner(random_state=0, n_samplers=1, n_jobs=1).fit_align(SRC, TGT)
    pairs = list(zip(SRC, TGT))
    un = UnsupervisedAligner(n_jobs=None, verbose=False).fit(SRC, TGT)
    assert un.predict(pairs) == UnsupervisedAligner(n_jobs=1, verbose=False).fit(
        SRC, TGT).predict(pairs)
    stats = AlignmentStatistics.from_sentences(SRC, TGT, verbose=False, n_jobs=None)
    InteractionStatistics.from_sentences(stats, SRC, TGT, n_jobs=None)
    assert start_sources(["bayes"], [], n_jobs=None) == {}


@given(value=st.one_of(st.just(0), st.booleans(), st.floats(), st.text(max_size=3)))
def test_nonsense_n_jobs_is_still_refused(value):
    from alignment import BayesianAligner

    with pytest.raises(ValueError, match=re.escape(
            "n_jobs must be an integer >= 1 or negative (-1: every CPU, -2: all but one), "
            "or None, got")):
        BayesianAligner(n_jobs=value).fit(SRC, TGT)


# ------------------------------------------- SequenceTagger.score
TAG_X = [[("the", "D"), ("dog", "N"), ("runs", "V")], [("a", "D"), ("cat", "N")],
         [("the", "D"), ("cat", "N"), ("sleeps", "V")]] * 3
TAG_Y = [["B-NP", "I-NP", "O"], ["B-NP", "I-NP"], ["B-NP", "I-NP", "O"]] * 3


@pytest.fixture(scope="module")
def tagger():
    from sequence import SequenceTagger

    return SequenceTagger(learner="perceptron", n_iter=2, random_state=0).fit(TAG_X, TAG_Y)


@SETTINGS
@given(flips=st.lists(st.tuples(st.integers(0, len(TAG_X) - 1), st.integers(0, 1)),
                      max_size=6))
def test_tagger_score_is_a_fraction(tagger, flips):
    """``score`` is chunk F1 (or token accuracy) in [0, 1], as scikit-learn's; it was in %
    (100 for a perfect tagger).  ``tag eval`` prints the same F1 in % as before."""
    from sequence.evaluate import evaluate

    y = [list(s) for s in TAG_Y]
    for i, j in flips:   # wrong gold labels: scores below 1
        y[i][j] = "O"
    got = tagger.score(TAG_X, y)
    assert 0.0 <= got <= 1.0
    assert got == pytest.approx(evaluate(y, tagger.predict(TAG_X))["f1"] / 100.0)


def test_tag_eval_prints_percentages(tagger, tmp_path, capsys):
    import json

    from cli_helpers import run_cli
    from sequence.data import write_conll

    tagger.save(tmp_path / "m.npz")
    y = [list(s) for s in TAG_Y]
    y[0][2] = "B-NP"
    with open(tmp_path / "test.txt", "w") as fh:
        write_conll(fh, TAG_X, y)
    rc, out, _ = run_cli(["tag", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                          str(tmp_path / "test.txt"), "--json"], capsys)
    assert rc == 0
    f1 = json.loads(out)["f1"]
    assert 1.0 < f1 <= 100.0 and f1 == pytest.approx(100.0 * tagger.score(TAG_X, y))


# ------------------------------------------- Vocabulary as a scikit-learn transformer
VOCAB_PARAMS = st.fixed_dictionaries({}, optional={
    "min_count": st.integers(1, 3), "min_df": st.integers(1, 2),
    "max_df": st.sampled_from([1.0, 0.9, 10]), "max_features": st.sampled_from([None, 3]),
    "stop_words": st.sampled_from([None, frozenset({"car"})]),
    "ngram_range": st.sampled_from([(1, 1), (1, 2)]),
    "weighting": st.sampled_from(["counts", "binary", "tfidf"]),
    "sublinear_tf": st.booleans(), "norm": st.sampled_from([None, 2.0])})


@SETTINGS
@given(params=VOCAB_PARAMS)
def test_vocabulary_is_a_scikit_learn_transformer(params):
    """``get_params``/``set_params``/``clone`` see the settings, ``clone`` gives an
    unfitted copy, ``fit`` alone sets the attributes ending in ``_``, and ``fit_transform``
    (with a ``y``, as a ``Pipeline`` passes it) equals ``fit`` then ``transform``."""
    from sklearn.utils.validation import check_is_fitted

    from topics import Vocabulary

    vocab = Vocabulary(**params)
    assert {k: vocab.get_params()[k] for k in params} == params
    assert not [k for k in vars(vocab) if k.endswith("_")]   # nothing fitted in __init__
    with pytest.raises(NotFittedError, match="not fitted"):
        vocab.transform(DOCS)
    X = vocab.fit_transform(DOCS, LABELS)
    check_is_fitted(vocab)
    copy = clone(vocab)
    assert copy.get_params() == vocab.get_params() and len(copy) == 0
    with pytest.raises(NotFittedError):
        check_is_fitted(copy)
    assert (copy.fit(DOCS).transform(DOCS) != X).nnz == 0
    assert copy.set_params(min_df=2) is copy and copy.min_df == 2


def test_vocabulary_in_a_pipeline_and_nested_parameters():
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    from topics import DiscLDA, Vocabulary

    pipe = make_pipeline(Vocabulary(), MultinomialNB())
    assert cross_val_score(pipe, DOCS, LABELS, cv=3).mean() > 0.9
    # the columns' names, as a Pipeline asks for them (none before fit)
    with pytest.raises(NotFittedError):
        Vocabulary().get_feature_names_out()
    vocab = pipe.fit(DOCS, LABELS)[0]
    names = pipe[:-1].get_feature_names_out()
    assert list(names) == list(vocab.words_) and len(names) == vocab.transform(DOCS).shape[1]
    model = DiscLDA(vocabulary=Vocabulary())
    assert model.get_params()["vocabulary__min_df"] == 1
    assert model.set_params(vocabulary__min_df=2).vocabulary.min_df == 2


def test_one_vocabulary_given_to_two_models():
    """The ``vocabulary`` given is a setting: fit fits a copy of it (it fitted it in place,
    so fitting a second model on other documents changed the first one's columns, and
    its predictions on texts failed or changed)."""
    from topics import LDA, NBSVM, Vocabulary

    vocab, other = Vocabulary(), ["kiwi lime mango", "bus tram train"] * 2
    first = NBSVM(vocabulary=vocab).fit(DOCS, LABELS)
    before = first.predict(DOCS)
    NBSVM(vocabulary=vocab).fit(other, ["a", "b"] * 2)
    assert len(vocab) == 0 and first.vocabulary_ is not vocab
    np.testing.assert_array_equal(first.predict(DOCS), before)
    lda = LDA(n_topics=2, n_iter=2, vocabulary=vocab).fit(DOCS)
    LDA(n_topics=2, n_iter=2, vocabulary=vocab).fit(other)
    assert len(vocab) == 0 and lda.vocabulary_.words_ == Vocabulary().fit(DOCS).words_
