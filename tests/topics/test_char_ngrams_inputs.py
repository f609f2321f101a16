"""Unusual but valid inputs of character n-grams (``Vocabulary(analyzer="char_wb")``, the
``svm-chars`` candidate, ``topics train --analyzer char_wb``), by class: texts written without
spaces (Chinese, Japanese), long documents, one-character words, many classes, no time."""

import tracemalloc
import unicodedata
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from cli_helpers import run_cli, run_cli_io
from topics._persist import load_model, rebuild_vocabulary, save_model, vocabulary_params
from topics.auto import CHAR_CANDIDATE, analyze_once, choose, plan, spec_of, terms_for
from topics.corpus import ENGLISH_STOP_WORDS, Vocabulary
from topics.tokens import Tokenizer

#: Han ideographs, hiragana and katakana (each its own NFKC form)
CJK = "北京東京大学日本語天安门我爱今天气很好首都ひらがなカタカナです"
RUN = st.text(CJK, min_size=1, max_size=8)


def _char_vocab(**kw):
    return Vocabulary(**{"analyzer": "char_wb", "stop_words": None, "min_length": 1, **kw})


@settings(max_examples=60, deadline=None)
@given(st.lists(RUN, min_size=1, max_size=6), st.integers(1, 3))
def test_a_run_of_han_and_kana_is_one_token_of_character_n_grams(runs, lo):
    """Text without spaces: its n-grams cross the characters of a run, as scikit-learn's
    ``char_wb`` makes them (each ideograph was a token of its own: no n-gram of two)."""
    text = " ".join(runs)
    ref = CountVectorizer(analyzer="char_wb", ngram_range=(lo, 3),
                          lowercase=False).build_analyzer()(text)
    (terms,) = _char_vocab(ngram_range=(lo, 3)).analyze([text])
    assert Counter(terms) == Counter(ref)
    # the word terms keep one token per ideograph (word pairs come from ngram_range)
    (words,) = Vocabulary(stop_words=None).analyze([text])
    assert words == [c for c in text if c != " "]


def test_a_character_model_file_keeps_how_it_read_han_and_kana(tmp_path):
    texts, y = ["我爱北京天安门", "東京は日本の首都です", "今天天气很好", "ひらがなとカタカナ"] * 3, \
        np.array(["zh", "ja", "zh", "ja"] * 3)
    vocab = CHAR_CANDIDATE.make_vocabulary()
    X = vocab.fit_transform(texts)
    assert "北京" in vocab.index_ and "京は" in vocab.index_
    est = CHAR_CANDIDATE.make_estimator().fit(X, y)
    save_model(tmp_path / "m.npz", est, model="svm-chars", vocabulary=vocab)
    saved = load_model(tmp_path / "m.npz")
    assert (saved.vocabulary.transform(texts) != vocab.transform(texts)).nnz == 0
    # a file written when each ideograph was a token: " 北 " is still found in "北京"
    params = vocabulary_params(vocab)
    assert rebuild_vocabulary(params, [" 北", " 北 ", "京 "], vocab.idf_[:3]).transform(
        ["北京"]).nnz == 2
    del params["cjk_runs"]
    old = rebuild_vocabulary(params, [" 北", " 北 ", "京 "], vocab.idf_[:3])
    assert old.transform(["北京"]).nnz == 3


def _dense_reference(vocab, texts):
    """The counts of each term of ``vocab`` in ``texts``, from :meth:`analyze`'s lists."""
    out = np.zeros((len(texts), len(vocab)), dtype=np.int64)
    for i, terms in enumerate(vocab.analyze(texts)):
        for t, c in Counter(terms).items():
            if t in vocab.index_:
                out[i, vocab.index_[t]] = c
    return out


WORDS = st.lists(st.sampled_from(["cat", "dog", "a", "北京", "été", "x1", "zz"]), max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS.map(" ".join), min_size=1, max_size=5), st.integers(1, 4),
       st.integers(0, 2))
def test_counted_character_n_grams_are_the_lists_counts(texts, lo, width):
    """Each document's n-grams are counted once for each distinct token (repeated words
    included): the same matrix as counting :meth:`analyze`'s lists."""
    texts = texts + ["cat dog"]
    vocab = _char_vocab(ngram_range=(lo, min(lo + width, 5)))
    X = vocab.fit_transform(texts)
    assert np.array_equal(X.toarray(), _dense_reference(vocab, texts))
    assert np.array_equal(vocab.transform(texts).toarray(), X.toarray())
    assert np.array_equal(vocab.fit(texts).transform(texts).toarray(), X.toarray())


def test_a_long_document_is_not_held_as_its_n_grams():
    """One document of 20,000 words: the peak memory of fitting and transforming it is a
    few times its size (its 1- to 4-grams as lists were 170 times)."""
    text = " ".join(["alpha", "beta", "gamma", "delta"] * 5000)
    vocab = _char_vocab(ngram_range=(1, 4)).fit(["xy"])
    tracemalloc.start()
    try:
        vocab.fit_transform([text, "beta"])
        vocab.transform([text])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * len(text), peak


def test_the_chooser_counts_the_n_grams_of_a_long_document():
    """``svm-chars`` in the choice: the n-grams made once for all candidates are counted
    per document too (a time budget of minutes held tens of GB of them as lists), and they
    give the vocabulary's own matrix."""
    text = " ".join(["alpha", "beta", "gamma", "delta"] * 5000)
    texts = [text, "beta gamma", "x y"]
    tracemalloc.start()
    try:
        analyses = analyze_once(texts, [CHAR_CANDIDATE])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * len(text), peak
    vocab = CHAR_CANDIDATE.make_vocabulary().fit(texts)
    X = vocab.transform_terms(terms_for(vocab, analyses))
    assert (X != vocab.transform(texts)).nnz == 0
    narrow = Vocabulary(**{**vocab.get_params(), "ngram_range": (1, 3)}).fit(texts)
    X = narrow.transform_terms(terms_for(narrow, analyses, rows=[2, 0]))
    assert (X != narrow.transform([texts[2], text])).nnz == 0


def test_analyzer_char_wb_keeps_one_character_words_as_svm_chars(tmp_path, capsys):
    """``--model svm --analyzer char_wb`` is ``svm-chars``: its tokens of one character
    ("a", "y") are kept (they were dropped, with the word models' min_length 2)."""
    rows = [("es", "y el perro a la casa"), ("en", "a dog and a cat"),
            ("es", "y la casa o el gato"), ("en", "I saw a dog")] * 5
    data, model = tmp_path / "tr.tsv", tmp_path / "m.npz"
    data.write_text("".join(f"{lab}\t{text}\n" for lab, text in rows))
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--model", "svm",
                            "--analyzer", "char_wb", "-o", str(model)], capsys)
    assert rc == 0, err
    ref = CHAR_CANDIDATE.make_vocabulary().fit([text for _, text in rows])
    vocab = load_model(model).vocabulary
    assert vocab.min_length == 1 and list(vocab.words_) == list(ref.words_)
    assert " y " in vocab.index_
    # the progress line names the terms as eval does (it said "terms")
    assert f"vocabulary of {len(vocab)} character n-grams;" in err, err


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 3000), st.floats(1e3, 1e6))
def test_svm_chars_estimate_grows_with_the_classes_beyond_56(n_classes, entries):
    """One SVM per class: beyond 56 classes the estimate grows with them (1,000 classes of
    short texts took 35 s where 2 s were estimated); up to 56 it is as measured, 45 s per
    million entries."""
    est = max(45.0, 0.8 * n_classes) * entries / 1e6
    for budget, tried in ((est * 1.01, True), (est * 0.99, False)):
        take, skipped = plan(5000, entries, n_classes, budget, specs=[CHAR_CANDIDATE])
        assert (CHAR_CANDIDATE in take) == tried
    take, _ = plan(5000, entries, n_classes, 45.0 * entries / 1e6 * 1.01,
                   specs=[CHAR_CANDIDATE])
    assert (CHAR_CANDIDATE in take) == (n_classes <= 56)


@settings(max_examples=40, deadline=None)
@given(st.floats(1.0, 2e4))
def test_time_budget_0_names_the_estimate(entries):
    """``--time-budget 0``: the estimate left out is shown as it is, not as "about 0s"."""
    _, skipped = plan(5000, entries, 2, 0.0, specs=[CHAR_CANDIDATE])
    why = dict(skipped)[CHAR_CANDIDATE.name]
    shown = float(why.split("about ")[1].split("s ")[0])
    assert shown > 0 and abs(shown - 45.0 * entries / 1e6) <= 0.05 * shown, why


def test_char_wb_n_grams_longer_than_the_tokens_are_named():
    """Character n-grams from ``lo`` characters: the refusal names the tokens' length (it
    said "no document has 5 tokens")."""
    import pytest

    with pytest.raises(ValueError, match="no token has 3 characters or more") as info:
        _char_vocab(ngram_range=(5, 6)).fit(["ab cd", "x"])
    assert "tokens (ngram_range)" not in str(info.value)


def test_the_word_analyzer_for_every_candidate_leaves_svm_chars_out():
    """``choose(overrides={"analyzer": "word"})``: svm-chars was tried as word 1- to
    4-grams under its own name."""
    texts = [f"{w} words here" for w in ("alpha", "beta") * 20]
    y = np.array(["a", "b"] * 20)
    specs = [spec_of("sdem-nb-hinge"), CHAR_CANDIDATE]
    choice = choose(texts, y, specs=specs, time_budget=1e6, overrides={"analyzer": "word"})
    assert [c.value for c in choice.ranked] == ["sdem-nb-hinge"] and not choice.skipped


def _no_letter(c):
    """No letter, mark or number in its NFKC form (``℃`` is ``°C``, ``¸`` a combining mark)."""
    return not any(unicodedata.category(x)[0] in "LMN"
                   for x in unicodedata.normalize("NFKC", c))


#: punctuation, symbols and emoji: no letter, no digit
NO_LETTERS = st.text(st.characters(whitelist_categories=("Po", "Ps", "Pe", "Pd", "Sm", "Sc",
                                                         "Sk", "So")).filter(_no_letter),
                     min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(st.lists(NO_LETTERS, min_size=2, max_size=5), st.sampled_from(["word", "char_wb"]),
       st.booleans())
def test_documents_of_symbols_and_emoji_are_refused_saying_why(texts, analyzer, digits):
    """Emoji-only (or punctuation-only) documents hold no token: the refusal says what a
    token is (it blamed stop words and ``min_length`` only)."""
    import pytest

    with pytest.raises(ValueError, match="the documents hold no term") as info:
        Vocabulary(analyzer=analyzer, digits=digits, min_length=1).fit(texts)
    assert "symbols and emoji make none" in str(info.value)


CASED = st.lists(st.sampled_from(["The", "THE", "the", "Paris", "AND", "cat", "Été", "Ox"]),
                 min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(CASED, st.sampled_from(["word", "char_wb"]))
def test_keep_case_still_stops_the_stop_words_and_keeps_the_case_of_token_lists(words,
                                                                               analyzer):
    """``lowercase=False`` (``--keep-case``): the stop list, lower-cased, stops ``The`` and
    ``THE`` (they were kept), and a token list keeps its case as the text does (``Paris``
    was ``paris`` given as a token, ``Paris`` in a text)."""
    tok = Tokenizer(lowercase=False, stop_words="english")
    assert tok(" ".join(words)) == [w for w in words
                                    if w.lower() not in ENGLISH_STOP_WORDS and len(w) >= 2]
    vocab = Vocabulary(analyzer=analyzer, lowercase=False, stop_words="english")
    from_tokens, from_text = vocab.analyze([words, " ".join(words)])
    assert from_tokens == from_text


def test_ngrams_beyond_the_limit_with_char_wb_names_characters(tmp_path, capsys):
    """``--analyzer char_wb --ngrams 11``: the one line names runs of characters too (it
    spoke of words only)."""
    from cli_helpers import one_line_error

    data = tmp_path / "tr.tsv"
    data.write_text("a\tle chat\nb\tder hund\n" * 3)
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--model", "svm",
                            "--analyzer", "char_wb", "--ngrams", "11", "-o",
                            str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "--ngrams", "at most 10", "of characters"), err


@settings(max_examples=8, deadline=None)
@given(st.lists(st.text("abcdefghéßж", min_size=2, max_size=6).filter(
    lambda w: w.upper().lower() == w and w.upper() != w and w not in ENGLISH_STOP_WORDS),
    min_size=1, max_size=4), st.sampled_from(["word", "char_wb"]))
def test_keep_case_trains_on_texts_that_differ_in_case_only(tmp_path_factory, words,
                                                            analyzer):
    """``--keep-case``: texts that differ only in case are different texts (they were
    refused as "all 4 documents have the same text"); without it, they are one text."""
    tmp = tmp_path_factory.mktemp("case")
    lower, upper = " ".join(words), " ".join(words).upper()
    data, model = tmp / "tr.tsv", tmp / "m.npz"
    data.write_text(f"a\t{upper}\nb\t{lower}\n" * 2)
    # random words of several scripts ('éж') read like misread GB18030: say the encoding
    argv = ["topics", "train", "--data", str(data), "--model", "svm", "--analyzer", analyzer,
            "--encoding", "utf-8", "-o", str(model), "-q"]
    rc, _, err = run_cli_io(argv + ["--keep-case"])
    assert rc == 0, err
    saved = load_model(model)
    assert list(saved.predict(saved.vocabulary.transform([upper, lower]))) == ["a", "b"]
    rc, _, err = run_cli_io(argv)
    assert rc == 2 and "have the same text" in err, err



def test_a_model_file_that_keeps_the_case_keeps_its_stop_rule():
    """A vocabulary of kept case written before stop words were stopped in any case (no
    ``stop_any_case`` in its settings) still has its ``The`` as a term; one written now
    stops it, as it was fitted."""
    vocab = Vocabulary(lowercase=False).fit(["The Cat THE dog"])
    assert list(vocab.words_) == ["Cat", "dog"]
    params = vocabulary_params(vocab)
    now = rebuild_vocabulary(params, ["The", "Cat"])
    assert now.transform(["The Cat"]).toarray().tolist() == [[0, 1]]
    del params["stop_any_case"]
    before = rebuild_vocabulary(params, ["The", "Cat"])
    assert before.transform(["The Cat"]).toarray().tolist() == [[1, 1]]
    assert "stop_any_case" not in vocabulary_params(Vocabulary().fit(["cat dog"]))


#: letters and combining marks of scripts written with them: Thai (no spaces between
#: words), Arabic with its diacritics, Devanagari
SCRIPT_WORD = st.text("ภาษาไทยเป็นสวัสดีครับمَرْحَبًابِكُمْالسَّلَامُहिन्दीभाषा", min_size=2,
                      max_size=9).filter(
    lambda w: unicodedata.normalize("NFKC", w) == w and unicodedata.category(w[0])[0] == "L")


@settings(max_examples=60, deadline=None)
@given(st.lists(SCRIPT_WORD, min_size=1, max_size=8), st.integers(1, 2))
def test_words_of_marks_are_scikit_learns_char_wb(words, lo):
    """Words whose letters carry combining marks (Thai vowels, Arabic diacritics, Devanagari
    signs): the marks stay in the n-grams, as scikit-learn's ``char_wb`` makes them."""
    text = " ".join(words)
    ref = CountVectorizer(analyzer="char_wb", ngram_range=(lo, 4),
                          lowercase=False).build_analyzer()(text)
    (terms,) = _char_vocab(ngram_range=(lo, 4)).analyze([text])
    assert Counter(terms) == Counter(ref)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3000), st.integers(2000, 20000), st.floats(1e3, 1e6), st.integers(1, 5))
def test_pamedlda_estimate_grows_with_documents_times_classes(n_classes, n_docs, entries,
                                                               n_fits):
    """paMedLDA's margins are per document and class: 20 s per million (document, class)
    pairs of its fits are added to its estimate (1,000 classes of short texts took 240 s
    where 1.3 s were estimated)."""
    spec = spec_of("pamedlda")
    est = (40.0 * entries + 20.0 * n_docs * n_fits * n_classes) / 1e6
    for budget, tried in ((est * 1.01, True), (est * 0.99, False)):
        take, _ = plan(n_docs, entries, n_classes, budget, specs=[spec], n_fits=n_fits)
        assert (spec in take) == tried
    # the 1,000 classes: 4,000 training documents of about 8 words, once held out
    take, skipped = plan(4000, 32000, 1000, 30.0, specs=[spec])
    assert not take and "about 81s estimated" in dict(skipped)["pamedlda"]
