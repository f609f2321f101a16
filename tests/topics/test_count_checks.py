"""Whole-count checks of the topic models (issue 17, item 5): non-integer counts (e.g.
TF-IDF) are refused unless ``round_counts=True``; absurd counts are refused before any
allocation; sdEM naive Bayes keeps accepting fractional counts."""

import time

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from topics._persist import load_model, save_model
from topics.baselines import LDASVM
from topics.bayespa import PaMedLDA
from topics.corpus import MAX_COUNT, Vocabulary, check_counts, token_arrays
from topics.disclda import DiscLDA
from topics.lda import LDA
from topics.medlda import GibbsMedLDA, ImportanceMedLDA
from topics.pamedhdp import PaMedHDPClassifier
from topics.sdem import SdemNaiveBayes
from topics.sdem_lda import SdemLDAClassifier


def _data():
    """12 documents over 8 words; class 0 uses words 0-3, class 1 words 4-7."""
    rng = np.random.default_rng(0)
    X = np.zeros((12, 8))
    y = np.repeat([0, 1], 6)
    for d in range(12):
        X[d, 4 * y[d]:4 * y[d] + 4] = rng.integers(1, 4, size=4)
    return X.astype(np.int64), y


X_INT, Y = _data()
X_TFIDF = X_INT / np.linalg.norm(X_INT, axis=1, keepdims=True)   # TF-IDF-like: 0 < x < 1

ESTIMATORS = {
    "LDA": lambda **kw: LDA(n_topics=2, n_iter=3, n_transform_burn=1, n_transform_samples=2,
                            evaluate_every=0, **kw),
    "LDASVM": lambda **kw: LDASVM(n_topics=2, n_iter=3, n_transform_burn=1,
                                  n_transform_samples=2, C=1.0, **kw),
    "DiscLDA": lambda **kw: DiscLDA(n_class_topics=1, n_shared_topics=1, n_iter=3, n_burn=1,
                                    n_samples=2, **kw),
    "GibbsMedLDA": lambda **kw: GibbsMedLDA(n_topics=2, n_iter=2, n_burn_in=1, n_predict_burn=1,
                                            n_predict_samples=2, C=10.0, **kw),
    "ImportanceMedLDA": lambda **kw: ImportanceMedLDA(n_topics=2, n_iter=2, n_predict_iter=2,
                                                      C=10.0, **kw),
    "PaMedLDA": lambda **kw: PaMedLDA(n_topics=2, batch_size=6, n_transform_burn=1,
                                      n_transform_samples=2, **kw),
    "PaMedHDPClassifier": lambda **kw: PaMedHDPClassifier(batch_size=6, n_transform_burn=1,
                                                          n_transform_samples=2, **kw),
    "SdemLDAClassifier": lambda **kw: SdemLDAClassifier(n_epochs=1, n_burn=1, n_samples=2, **kw),
}


def _fit(est, X):
    return est.fit(X) if isinstance(est, LDA) else est.fit(X, Y)


def _use(est, X):
    return est.transform(X) if isinstance(est, LDA) else est.predict(X)


# ----------------------------------------------------------------- check_counts itself

def test_check_counts_refuses_non_integer_and_names_the_cell():
    X = np.array([[1.0, 0, 2.0], [0, 0.37, 1.0]])
    with pytest.raises(ValueError, match=r"non-integer counts \(e\.g\. 0\.37 in row 1, column 1\)"
                                         r".*round_counts=True"):
        check_counts(X, integer=True)
    with pytest.raises(ValueError, match="round_counts"):
        check_counts(sp.csr_matrix(X), integer=True)
    R = check_counts(X, integer=True, round_counts=True)
    assert R.dtype == np.int64 and R.toarray().tolist() == [[1, 0, 2], [0, 0, 1]]
    # without integer=True fractional counts pass unchanged
    assert check_counts(X).toarray()[1, 1] == 0.37


def test_check_counts_tolerance():
    X = np.array([[2.0, 3.0 - 1e-12, 1.0 + 1e-10]])
    assert check_counts(X, integer=True).toarray().tolist() == [[2, 3, 1]]
    with pytest.raises(ValueError, match="non-integer"):
        check_counts(np.array([[2.0, 1.0 + 1e-6]]), integer=True)


def test_check_counts_round_counts_must_be_bool():
    with pytest.raises(ValueError, match="round_counts must be True or False"):
        check_counts(X_INT, integer=True, round_counts="yes")


def test_absurd_counts_refused_before_allocating():
    X = np.ones((3, 4))
    X[1, 2] = 1e15
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"1\.0e\+15 word tokens.*PB.*are these counts"):
        check_counts(X, integer=True)
    with pytest.raises(ValueError, match="word tokens"):
        check_counts(X, integer=True, round_counts=True)
    with pytest.raises(ValueError, match="word tokens"):
        token_arrays(sp.csr_matrix(X))
    assert time.perf_counter() - t < 5.0


def test_single_count_above_int32_refused(monkeypatch):
    # pretend the machine has plenty of memory so that only the per-cell cap applies
    import topics.corpus as corpus
    monkeypatch.setattr(corpus, "physical_memory", lambda: 2**62)
    X = np.array([[1.0, MAX_COUNT + 1.0]])
    with pytest.raises(ValueError, match=r"row 0, column 1.*2\*\*31 - 1"):
        check_counts(X, integer=True)
    assert check_counts(np.array([[1.0, float(MAX_COUNT)]]), integer=True).max() == MAX_COUNT


def test_many_large_cells_refused_by_total():
    X = sp.csr_matrix(np.full((200, 200), 2e9))          # each cell fits int32, total 8e13
    with pytest.raises(ValueError, match=r"8\.0e\+13 word tokens"):
        check_counts(X, integer=True)


# ----------------------------------------------------------------- the estimators

@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimator_refuses_tfidf_unless_round_counts(name):
    est = ESTIMATORS[name]()
    assert est.get_params()["round_counts"] is False
    with pytest.raises(ValueError, match="non-integer counts.*round_counts=True"):
        _fit(est, X_TFIDF)
    # scaled TF-IDF (values above 1 so rounding keeps tokens) fits with round_counts=True
    est = ESTIMATORS[name](round_counts=True)
    assert est.get_params()["round_counts"] is True
    assert clone(est).round_counts is True
    _fit(est, 3.0 * X_TFIDF)
    assert _use(est, 3.0 * X_TFIDF).shape[0] == X_INT.shape[0]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimator_accepts_integer_valued_floats(name):
    est = _fit(ESTIMATORS[name](), X_INT.astype(np.float64))
    _use(est, sp.csr_matrix(X_INT.astype(np.float32)))
    # a fitted model without round_counts refuses TF-IDF at prediction too
    with pytest.raises(ValueError, match="round_counts"):
        _use(est, X_TFIDF)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimator_refuses_absurd_counts_quickly(name):
    X = X_INT.astype(np.float64)
    X[0, 0] = 1e15
    t = time.perf_counter()
    with pytest.raises(ValueError, match="word tokens"):
        _fit(ESTIMATORS[name](round_counts=True), X)
    assert time.perf_counter() - t < 5.0


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("bad,msg", [(np.nan, "NaN"), (-1.0, "(?i)negative")])
def test_estimator_still_refuses_nan_and_negative(name, bad, msg):
    X = X_INT.astype(np.float64)
    X[2, 1] = bad
    with pytest.raises(ValueError, match=msg):
        _fit(ESTIMATORS[name](round_counts=True), X)


def test_sdem_naive_bayes_keeps_fractional_counts():
    assert "round_counts" not in SdemNaiveBayes().get_params()
    m = SdemNaiveBayes(n_epochs=2).fit(X_TFIDF, Y)
    assert (m.predict(X_TFIDF) == Y).mean() == 1.0


def test_round_counts_survives_save_and_load(tmp_path):
    vocab = Vocabulary().fit([[f"w{j}" for j in range(X_INT.shape[1])]])
    m = ESTIMATORS["LDASVM"](round_counts=True)
    m.fit(3.0 * X_TFIDF, Y)
    assert m.lda_.round_counts is True
    path = tmp_path / "m.npz"
    save_model(path, m, model="lda-svm", vocabulary=vocab)
    loaded = load_model(path)
    est = loaded.estimator
    assert est.round_counts is True and est.lda_.round_counts is True
    assert (est.predict(3.0 * X_TFIDF) == m.predict(3.0 * X_TFIDF)).all()
