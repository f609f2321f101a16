"""Corpus handling for the topic-model classifiers (groundwork for issue 5)."""

import numpy as np
import pytest
import scipy.sparse as sp

from topics.corpus import (Vocabulary, check_counts, load_bundled_20ng, token_arrays,
                           tokenize)


def test_tokenize_lowercases_alphabetic_and_drops_stop_words():
    assert tokenize("The Shuttle's 2nd launch, in 1993: NASA!") == ["shuttle", "nd", "launch", "nasa"]


def test_vocabulary_cutoffs_and_unknown_words_dropped():
    docs = ["apple banana apple", "banana cherry", "apple durian"]
    voc = Vocabulary(min_count=2).fit(docs)
    assert len(voc) == 2
    X = voc.transform(["apple kiwi kiwi banana", "kiwi"])
    assert X.shape == (2, 2) and X.sum() == 2 and X[1].sum() == 0


def test_vocabulary_bigrams_follow_stop_word_removal_and_cutoffs():
    docs = ["apple the banana apple", "Banana apple cherry", "apple banana"]
    voc = Vocabulary(ngram_range=(1, 2), min_df=2).fit(docs)
    # "the" is dropped before the bigrams are formed, so "apple banana" occurs in docs 0 and 2
    assert voc.words_ == ["apple", "apple banana", "banana", "banana apple"]
    X = voc.transform(["banana apple banana apple", "cherry kiwi"]).toarray()
    np.testing.assert_array_equal(X, [[2, 1, 2, 2], [0, 0, 0, 0]])
    only = Vocabulary(ngram_range=(2, 2)).fit([["a1", "b1", "c1"]])
    assert only.words_ == ["a1 b1", "b1 c1"]
    assert Vocabulary().fit(docs).words_ == ["apple", "banana", "cherry"]


@pytest.mark.parametrize("bad", [(0, 1), (2, 1), (1,), ("a", "b"), None])
def test_vocabulary_bad_ngram_range(bad):
    with pytest.raises(ValueError, match="ngram_range"):
        Vocabulary(ngram_range=bad).fit(["apple banana"])


def test_token_arrays_expand_counts():
    X = sp.csr_matrix(np.array([[2, 0, 1], [0, 0, 0], [0, 3, 0]]))
    words, docs, offsets = token_arrays(X)
    assert offsets.tolist() == [0, 3, 3, 6]
    assert sorted(words[:3].tolist()) == [0, 0, 2] and words[3:].tolist() == [1, 1, 1]
    assert docs.tolist() == [0, 0, 0, 2, 2, 2]
    # trailing empty documents
    w2, d2, o2 = token_arrays(sp.csr_matrix(np.array([[1, 0], [0, 0], [0, 0]])))
    assert o2.tolist() == [0, 1, 1, 1] and w2.tolist() == [0] and d2.tolist() == [0]


@pytest.mark.parametrize("X,msg", [
    (np.array([[1.0, np.nan]]), "NaN"),
    (np.array([[1.0, -1.0]]), "negative"),
    (np.zeros((0, 3)), "empty corpus"),
])
def test_check_counts_errors(X, msg):
    with pytest.raises(ValueError, match=msg):
        check_counts(X)


def test_bundled_slice():
    texts, y, names = load_bundled_20ng("train")
    assert len(texts) == 400 and len(names) == 4 and np.bincount(y).tolist() == [100] * 4
