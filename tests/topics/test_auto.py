"""The validation choice of ``structpred topics train`` (topics.auto) and its bootstrap guard."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topics.auto import (CANDIDATES, DEFAULT_CANDIDATE, CandidateSpec, choose,
                         cross_validation_folds, plan, spec_of, validation_split)

WORDS = {"a": "apple banana cherry grape lemon mango", "b": "piston engine wheel brake gear clutch"}
SHARED = "report today people think really".split()


def corpus(n, seed=0, noise=0.35):
    """Two classes of short texts: class words, shared words and words of the other class."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        c = "ab"[i % 2]
        other = "ab"[1 - i % 2]
        toks = [rng.choice(WORDS[c].split()) if rng.random() > noise
                else rng.choice(WORDS[other].split()) for _ in range(6)]
        toks += list(rng.choice(SHARED, 4))
        texts.append(" ".join(toks))
        labels.append(c)
    return texts, np.array(labels)


def test_splits_are_deterministic_and_stratified():
    y = np.array(["x"] * 50 + ["y"] * 10 + ["z"])
    fit, val = validation_split(y, 0.2, seed=3)
    assert np.array_equal(val, validation_split(y, 0.2, seed=3)[1])
    assert sorted(np.concatenate([fit, val]).tolist()) == list(range(y.size))
    assert (y[val] == "x").sum() == 10 and (y[val] == "y").sum() == 2 and "z" not in y[val]
    folds = cross_validation_folds(y, 5, seed=0)
    held = np.concatenate([v for _, v in folds])
    # each document once, but the class of one ('z'), which every fold trains on
    assert sorted(held.tolist()) == list(range(y.size - 1))
    assert all(y.size - 1 in fit for fit, _ in folds)
    assert all((y[v] == "x").sum() == 10 for _, v in folds)
    with pytest.raises(ValueError, match="fraction"):
        validation_split(y, 1.5)


def test_plan_leaves_out_slow_and_small_cases():
    take, skipped = plan(300, 1e6, 10, budget=30)
    names = [s.name for s in take]
    assert names[0] == DEFAULT_CANDIDATE and "pamedlda" not in names and "sdem-lda" not in names
    why = dict(skipped)
    assert "fewer than 2000" in why["pamedlda"] and "over the time budget" in why["sdem-lda"]
    take, _ = plan(5000, 1e5, 2, budget=1000)
    assert [s.name for s in take] == [s.name for s in CANDIDATES]


def test_the_default_is_kept_on_a_tie():
    """A candidate as good as the default (the same model) never replaces it."""
    texts, y = corpus(120)
    d = spec_of(DEFAULT_CANDIDATE)
    twin = CandidateSpec("twin", d.model, d.vocabulary, d.params)
    choice = choose(texts, y, specs=[twin, d], default=d.name, seed=0)
    assert choice.spec.name == DEFAULT_CANDIDATE
    assert [c.value for c in choice.ranked][0] == "twin"               # tie: the first listed
    assert choice.p_not_better == 1.0 and "kept the default" in choice.reason
    assert "5-fold cross-validation over the 120" in choice.lines()[0]


def test_a_clearly_better_candidate_replaces_a_poor_default():
    texts, y = corpus(300, seed=1)
    poor = CandidateSpec("poor", "sdem-nb", {"min_df": 1, "max_features": 1},
                         {"loss": "nll", "prior": "laplace", "learning_decay": 1.0,
                          "n_epochs": 1})
    good = spec_of("sdem-nb-hinge")
    lines = []
    choice = choose(texts, y, specs=[poor, good], default="poor", log=lines.append)
    assert choice.spec.name == "sdem-nb-hinge"
    assert choice.p_not_better < 0.05 and "better than the default poor" in choice.reason
    assert len(lines) == 2 and all("on validation" in ln for ln in lines)
    printed = choice.lines()
    assert any(ln.strip().startswith("poor") and ln.endswith("(default)") for ln in printed)
    assert printed[-1].startswith("chose sdem-nb-hinge: ")


def test_a_slightly_better_candidate_does_not_replace_the_default():
    """Better on validation but not in 95% of bootstraps: the default stays."""
    texts, y = corpus(60, seed=2, noise=0.45)
    d = spec_of(DEFAULT_CANDIDATE)
    nb = spec_of("naive-bayes")
    choice = choose(texts, y, specs=[d, nb], default=d.name)
    best, second = choice.ranked
    if best.value != d.name and best.score > second.score:
        assert choice.spec.name == d.name and choice.p_not_better >= 0.05
    else:
        assert choice.spec.name == d.name and choice.p_not_better in (None, 1.0)


def test_given_validation_documents_are_used():
    texts, y = corpus(100, seed=3)
    vt, vy = corpus(40, seed=4)
    choice = choose(texts, y, valid_texts=vt, valid_labels=vy,
                    specs=[spec_of(DEFAULT_CANDIDATE), spec_of("naive-bayes")])
    assert choice.n_valid == 40 and choice.how.startswith("40 validation documents given")


def test_the_defaults_tokens_keep_negations_and_numbers():
    """The default (and the svm candidate) count every word and number: no stop list, which
    would drop "not"; ``--stop-words english`` and ``--no-digits`` override it."""
    from topics.cli import _vocabulary_overrides

    text = ["this is not a good x11 release of 2024"]
    for name in (DEFAULT_CANDIDATE, "svm"):
        v = spec_of(name).make_vocabulary().fit(text)
        assert {"not", "x11", "2024", "this"} <= set(v.words_)
    args = type("A", (), dict(min_df=None, max_features=None, ngrams=None, weighting=None,
                              digits=False, keep_case=False, stop_words="english",
                              analyzer=None))()
    v = spec_of(DEFAULT_CANDIDATE).make_vocabulary(_vocabulary_overrides(args)).fit(text)
    assert "not" not in v.words_ and "x11" not in v.words_ and "good" in v.words_
    assert "not" not in spec_of("naive-bayes").make_vocabulary().fit(text * 2).words_


def test_candidates_fitted_at_once_choose_the_same():
    texts, y = corpus(120, seed=5)
    specs = [spec_of(DEFAULT_CANDIDATE), spec_of("svm"), spec_of("naive-bayes")]
    one = choose(texts, y, specs=specs, jobs=1)
    two = choose(texts, y, specs=specs, jobs=2)
    assert [(c.value, c.score) for c in one.ranked] == [(c.value, c.score) for c in two.ranked]
    assert one.spec.name == two.spec.name


def test_the_default_makes_more_passes_over_a_small_corpus_only():
    from topics.auto import MIN_UPDATES, fit_spec

    spec = spec_of(DEFAULT_CANDIDATE)
    assert spec.params["min_updates"] == MIN_UPDATES == 6000
    texts, y = corpus(300)
    _, est = fit_spec(spec, texts, y)
    assert est.n_epochs_ == 20                   # 6,000 visits of 300 documents
    texts, y = corpus(1200)
    _, est = fit_spec(spec, texts, y)
    assert est.n_epochs_ == spec.params["n_epochs"] == 6


@settings(max_examples=10, deadline=None)
@given(sizes=st.lists(st.integers(1, 4), min_size=3, max_size=8).filter(
           lambda s: any(n >= 2 for n in s)),
       seed=st.integers(0, 3))
def test_classes_too_small_to_hold_out_from_are_cross_validated(sizes, seed):
    """From ``cv_below`` documents on, a corpus whose every class has one or two documents
    (the default 20% of each rounds to none) was refused ("too few documents to hold out a
    validation set"); by default, a corpus where the held-out share misses most classes
    of two documents or more is cross-validated as a small corpus is, and says so. A
    fraction given is used as given (refused where it holds out none)."""
    texts, _ = corpus(sum(sizes) + 2, seed=seed)
    y = np.array([f"c{k}" for k, n in enumerate(sizes) for _ in range(n)])
    texts = texts[:len(y)]
    nb = spec_of("naive-bayes")
    choice = choose(texts, y, cv_below=3, specs=[nb], default=nb.name, seed=seed)
    several = sum(n >= 2 for n in sizes)
    missed = sum(n == 2 for n in sizes)               # round(0.2 * 2) == 0
    if 2 * missed > several:
        assert "cross-validation" in choice.how and "would hold out" in choice.how
        assert ("would hold out none" in choice.how) == (max(sizes) <= 2)
        assert choice.n_valid == sum(n for n in sizes if n >= 2)   # each once
    else:
        assert choice.how.endswith("documents held out, candidates fitted on "
                                   f"{len(y) - choice.n_valid}")
        assert choice.n_valid == sum(round(0.2 * n) for n in sizes)
    assert choice.how == choose(texts, y, cv_below=3, specs=[nb], default=nb.name,
                                seed=seed).how
    if max(sizes) <= 2:
        with pytest.raises(ValueError, match="too few documents to hold out"):
            choose(texts, y, cv_below=3, specs=[nb], default=nb.name, valid_fraction=0.2)
    else:
        given = choose(texts, y, cv_below=3, specs=[nb], default=nb.name, valid_fraction=0.2)
        assert given.how.endswith(f"fitted on {len(y) - given.n_valid}")
