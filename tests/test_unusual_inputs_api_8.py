"""Unusual inputs of the Python API, eighth sweep (issue 28, docs/errors.md), by class:

- sizes: ``SequenceTagger.score(X, y)`` with fewer label lists than sentences scored the
  sentences ``zip`` reached (100 % on 2 of 10 sentences): now a ``ValueError``;
- ``predict`` before ``fit``: ``LDA.transform`` raised a ``RuntimeError`` where every
  other estimator raises scikit-learn's ``NotFittedError``.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

X = [[("the",), ("cat",)], [("a",), ("dog",)]] * 5
Y = [["D", "N"], ["D", "N"]] * 5


@pytest.fixture(scope="module")
def tagger():
    from sequence.model import SequenceTagger

    return SequenceTagger(n_iter=2).fit(X, Y)


@SETTINGS
@given(n=st.integers(0, 9))
def test_tagger_score_with_too_few_label_lists_is_refused(tagger, n):
    with pytest.raises(ValueError, match=f"10 sentences but {n} label lists"):
        tagger.score(X, Y[:n])


def test_tagger_score_with_a_short_label_list_is_refused(tagger):
    with pytest.raises(ValueError, match="sentence 3 has 2 tokens but 1 labels"):
        tagger.score(X, Y[:3] + [["D"]] + Y[4:])


def test_tagger_score_of_matching_labels(tagger):
    assert tagger.score(X, Y) == pytest.approx(100.0)


def test_lda_transform_before_fit_is_not_fitted_error():
    from topics import LDA

    with pytest.raises(NotFittedError, match="this LDA is not fitted yet"):
        LDA(n_topics=2).transform(["the cat sat"])
