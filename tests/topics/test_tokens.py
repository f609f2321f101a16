"""Unicode word tokens (:class:`topics.tokens.Tokenizer`) and the vocabulary's weighting."""

import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structpred.io import CEDILLA_TO_COMMA, IGNORABLE_FORMAT
from topics.corpus import Vocabulary, tokenize
from topics.tokens import _CJK_CHAR, ENGLISH_STOP_WORDS, Tokenizer


def test_letters_of_every_script_stay_whole():
    toks = Tokenizer()("L'économie de Москва: λόγος, हिन्दी और Straße — ﬁne ＡＢＣ!")
    assert toks == ["économie", "москва", "λόγος", "हिन्दी", "और", "straße", "fine", "abc"]


def test_han_and_kana_are_one_token_per_character():
    assert Tokenizer()("東京大学です") == ["東", "京", "大", "学", "で", "す"]


def test_digits_are_an_option():
    assert Tokenizer()("Windows 3.1 and X11 in 2024") == ["windows"]        # 'x' too short
    assert Tokenizer(digits=True)("Windows 3.1 and X11 in 2024") == ["windows", "x11", "2024"]


def test_stop_words_case_and_length():
    assert Tokenizer(stop_words=None, min_length=1)("The A b") == ["the", "a", "b"]
    assert Tokenizer(stop_words=["Foo"])("foo bar") == ["bar"]
    assert Tokenizer(lowercase=False, stop_words=None)("Paris et Lyon") == ["Paris", "et", "Lyon"]
    assert "the" in ENGLISH_STOP_WORDS and len(ENGLISH_STOP_WORDS) == 318
    with pytest.raises(ValueError, match="stop_words"):
        Tokenizer(stop_words="french")
    with pytest.raises(TypeError):
        Tokenizer()(b"bytes")


def test_ascii_alphabet_is_the_former_rule():
    assert tokenize("The Shuttle's 2nd launch, in 1993: NASA!") == ["shuttle", "nd", "launch", "nasa"]
    assert Tokenizer(alphabet="ascii")("économie") == ["conomie"]


def _is_letter(ch):
    return unicodedata.category(ch)[0] in "LM"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_tokens_are_lowercased_letter_runs_of_the_normalised_text(text):
    tok = Tokenizer(stop_words=None, min_length=1)
    # NFKC, with the format characters that carry no meaning inside a word removed
    # (structpred.io.word_form; the zero-width space separates words here)
    kept_inside = re.compile("[" + IGNORABLE_FORMAT.replace(r"\u200b", "") + "]")
    norm = unicodedata.normalize("NFKC", kept_inside.sub("", text)).translate(
        CEDILLA_TO_COMMA).lower()
    toks = tok(text)
    for t in toks:
        assert t and all(_is_letter(c) for c in t)
        assert t in norm
    # every letter of the normalised text is in some token, in order
    assert "".join(toks) == "".join(c for c in norm if _is_letter(c))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(categories=["Lu", "Ll", "Lo"]), min_size=2,
                        max_size=8), min_size=1, max_size=8))
def test_words_of_any_script_separated_by_spaces_round_trip(words):
    tok = Tokenizer(stop_words=None, min_length=1)
    toks = tok(" ".join(words))
    # Romanian's s and t with a cedilla are read as those with a comma below (sweep 23)
    norm = [unicodedata.normalize("NFKC", w).translate(CEDILLA_TO_COMMA).lower()
            for w in words]
    assert "".join(toks) == "".join(c for w in norm for c in w if _is_letter(c))
    for w in norm:
        if all(_is_letter(c) for c in w) and not any(_CJK_CHAR.match(c) for c in w):
            assert w in toks                       # a word of letters comes back whole


def test_vocabulary_weightings():
    docs = ["apple apple banana", "banana cherry", "cherry cherry cherry"]
    counts = Vocabulary().fit_transform(docs).toarray()
    assert counts.tolist() == [[2, 1, 0], [0, 1, 1], [0, 0, 3]]
    binary = Vocabulary(weighting="binary").fit_transform(docs).toarray()
    assert binary.tolist() == [[1, 1, 0], [0, 1, 1], [0, 0, 1]]
    v = Vocabulary(weighting="tfidf", sublinear_tf=True, norm=3.0)
    X = v.fit_transform(docs).toarray()
    idf = np.log(4.0 / (1.0 + np.array([1, 2, 2]))) + 1.0                    # eq. 1
    raw = np.log1p(counts) * idf
    assert np.allclose(v.idf_, idf)
    assert np.allclose(X, 3.0 * raw / np.linalg.norm(raw, axis=1, keepdims=True))   # eq. 2
    assert np.allclose(v.transform(["durian"]).toarray(), 0.0)               # empty row stays 0
    with pytest.raises(ValueError, match="weighting"):
        Vocabulary(weighting="bm25").fit(docs)


def test_vocabulary_analyses_once_and_ngrams():
    v = Vocabulary(ngram_range=(1, 2), stop_words=None)
    assert list(v.analyze(["a b c"], )) == [[]]                              # too short
    assert list(v.analyze(["ab cd ef"])) == [["ab", "cd", "ef", "ab cd", "cd ef"]]
    terms = list(v.analyze(["ab cd", "cd ef ab"]))
    assert (v.fit_terms(terms).transform_terms(terms) != v.fit_transform(["ab cd", "cd ef ab"])).nnz == 0
