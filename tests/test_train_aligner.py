"""The training pipeline as one library call (``alignment.train_aligner``, issue 27 point 3)
and the estimator convention of the aligners (point 4): scikit-learn's ``BaseEstimator``,
validation data through ``eval_set=``, statistics from named constructors."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_no_attributes_set_in_init

import alignment
from alignment.aligners.unsupervised import UnsupervisedAligner
from alignment.model import MatchingAligner
from alignment.stats.statistics import AlignmentStatistics


def test_the_pipeline_is_exported():
    assert {"train_aligner", "TrainingReport"} <= set(alignment.__all__)
    assert alignment.train_aligner is alignment.training.train_aligner


@pytest.mark.parametrize("estimator", [MatchingAligner(cost_neg=2.0, aligners=("hmm",)),
                                       UnsupervisedAligner(prefix=0, threshold=0.3)])
def test_aligners_are_scikit_learn_estimators(estimator):
    name = type(estimator).__name__
    check_no_attributes_set_in_init(name, estimator)
    twin = clone(estimator)
    assert twin is not estimator and twin.get_params() == estimator.get_params()
    twin.set_params(verbose=True)
    assert twin.verbose and not estimator.verbose
    assert not [k for k in vars(type(estimator)()) if k.endswith("_")]   # nothing fitted yet


def test_unsupervised_aligner_fit_and_predict(hansards):
    src = [s for s, _ in hansards.test_pairs[:120]]
    tgt = [t for _, t in hansards.test_pairs[:120]]
    model = UnsupervisedAligner(hmm_iterations=1, ibm1_iterations=2, ibm2_iterations=2)
    assert model.fit(src, tgt) is model and hasattr(model, "stats_")
    pred = model.predict(hansards.test_pairs[:10])
    assert len(pred) == 10 and any(a.sure for a in pred)
    for a, (s, t) in zip(pred, hansards.test_pairs[:10]):
        assert a.sure == a.possible == frozenset(model.align_pair(s, t)[0])


def test_train_aligner_is_the_fits_it_reports(hansards, small_stats):
    """One call: the c- grid fitted and chosen on validation with the bootstrap guard;
    the kept model is the plain fit at the chosen c-, and the report says why."""
    pairs, gold = hansards.test_pairs[:6], hansards.test_gold[:6]
    valid = (hansards.trial_pairs[:12], hansards.trial_gold[:12])
    model, report = alignment.train_aligner(pairs, gold, stats=small_stats, eval_set=valid,
                                            c_neg=(3.0, 2.0), model="M", n_iter=3, jobs=1,
                                            validate_every=1)
    assert isinstance(report, alignment.TrainingReport)
    assert report.model_name == model.model_name == "M"
    assert (report.n_train, report.n_valid, report.aligners) == (6, 12, "none")
    assert len(report.choices) == 1 and report.choices[0].startswith("c-: chose ")
    assert report.best_iter == model.result_.best_iter
    lines = report.lines()
    assert lines[0] == report.choices[0] and lines[1].startswith("trained model M on 6 ")
    ref = MatchingAligner(cost_neg=model.cost_neg, n_iter=3, validate_every=1, patience=10)
    ref.fit(pairs, gold, small_stats, eval_set=valid)
    np.testing.assert_array_equal(ref.coef_, model.coef_)


def test_train_aligner_checks_its_arguments(hansards, small_stats):
    pairs, gold = hansards.test_pairs[:3], hansards.test_gold[:3]
    with pytest.raises(ValueError, match="gold alignments or a labeller"):
        alignment.train_aligner(pairs, None, stats=small_stats)
    with pytest.raises(ValueError, match="several c- values need validation"):
        alignment.train_aligner(pairs, gold, stats=small_stats, c_neg=(3.0, 2.0))
    with pytest.raises(ValueError, match="unknown preset"):
        alignment.train_aligner(pairs, gold, stats=small_stats, preset="fast")
    with pytest.raises(ValueError, match="stats="):
        MatchingAligner().fit(pairs, gold)


def test_statistics_have_named_constructors():
    src, tgt = [["a", "b"], ["a"]], [["x", "y"], ["x"]]
    stats = AlignmentStatistics.from_sentences(src, tgt, verbose=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = AlignmentStatistics.fit(src, tgt, verbose=False)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert old.fingerprint() == stats.fingerprint()
