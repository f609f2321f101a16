"""Character n-gram terms (``Vocabulary(analyzer="char_wb")``) and the ``svm-chars``
candidate of ``structpred topics train``'s validation choice."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from cli_helpers import run_cli
from topics._persist import load_model, save_model
from topics.auto import CHAR_CANDIDATE, choose, plan, spec_of
from topics.corpus import Vocabulary, char_ngrams

WORD = st.text("abcdefghijklmnopqrstuvwxyzéšž", min_size=3, max_size=9)


@settings(max_examples=60, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=12), st.integers(1, 4), st.integers(0, 2))
def test_char_ngrams_are_scikit_learns_char_wb(words, lo, width):
    """The same multiset of terms as scikit-learn's ``char_wb`` analyzer (an independent
    implementation) wherever every padded word is at least ``hi`` long."""
    hi = min(lo + width, 5)
    ref = CountVectorizer(analyzer="char_wb", ngram_range=(lo, hi),
                          lowercase=False).build_analyzer()(" ".join(words))
    assert Counter(char_ngrams(words, lo, hi)) == Counter(ref)


def test_char_vocabulary_terms_and_its_words_settings():
    v = Vocabulary(analyzer="char_wb", ngram_range=(2, 3), stop_words=None, min_length=1)
    assert list(v.analyze(["Ab c"])) == [[" a", "ab", "b ", " ab", "ab ", " c", "c ", " c "]]
    # the tokens are the word analyzer's: lower-cased, stop words and short ones dropped
    v = Vocabulary(analyzer="char_wb", ngram_range=(3, 3), min_length=2)
    assert list(v.analyze(["The CAT x"])) == [[" ca", "cat", "at "]]
    with pytest.raises(ValueError, match="analyzer must be one of"):
        list(Vocabulary(analyzer="char").analyze(["a b"]))


def test_a_char_model_file_predicts_as_the_model_did(tmp_path):
    texts = ["le chat noir", "der schwarze hund", "la maison", "das haus ist alt"] * 5
    y = np.array(["fr", "de", "fr", "de"] * 5)
    spec = CHAR_CANDIDATE
    vocab = spec.make_vocabulary()
    est = spec.make_estimator().fit(vocab.fit_transform(texts), y)
    save_model(tmp_path / "m.npz", est, model=spec.model, vocabulary=vocab)
    saved = load_model(tmp_path / "m.npz")
    assert saved.vocabulary.analyzer == "char_wb"
    new = ["une maison noire", "ein alter hund"]       # words never seen: their n-grams were
    assert list(saved.predict(saved.vocabulary.transform(new))) == ["fr", "de"]
    assert list(est.predict(vocab.transform(new))) == ["fr", "de"]


def test_eval_and_predict_name_character_n_grams(tmp_path, capsys):
    """``eval``'s model line and ``predict``'s warning of documents without a known term say
    what the terms are, and give examples from inside words (not ``' '``, ``' a'``)."""
    texts = ["le chat noir", "der schwarze hund", "la maison", "das haus ist alt"] * 5
    y = np.array(["fr", "de", "fr", "de"] * 5)
    vocab = CHAR_CANDIDATE.make_vocabulary()
    est = CHAR_CANDIDATE.make_estimator().fit(vocab.fit_transform(texts), y)
    save_model(tmp_path / "m.npz", est, model="svm-chars", vocabulary=vocab)
    (tmp_path / "t.tsv").write_text("fr\tune maison\nde\tein hund\n")
    rc, out, err = run_cli(["topics", "eval", "-m", str(tmp_path / "m.npz"), "--data",
                            str(tmp_path / "t.tsv")], capsys)
    assert rc == 0 and f"2 classes, {len(vocab)} character n-grams" in out, out
    (tmp_path / "d.txt").write_text("la maison\n\u263a\u263a\n")
    rc, out, err = run_cli(["topics", "predict", "-m", str(tmp_path / "m.npz"), "--data",
                            str(tmp_path / "d.txt")], capsys)
    shown = err.split("e.g. ")[1].split(")")[0]
    assert rc == 0 and "character n-grams" in err and " '" not in shown.replace(", '", ""), err


def test_words_option_ngrams_leaves_the_char_candidate_alone():
    """``--ngrams 2`` (word pairs) is not the character n-grams' range."""
    v = CHAR_CANDIDATE.make_vocabulary({"ngram_range": (1, 2), "min_df": 2})
    assert v.ngram_range == (1, 4) and v.min_df == 2
    assert spec_of("sdem-nb-hinge").make_vocabulary({"ngram_range": (1, 2)}).ngram_range == (1, 2)


def test_char_candidate_is_last_and_left_out_over_the_budget():
    take, skipped = plan(11000, 1.4e6, 20, budget=30)       # 20 Newsgroups' size
    assert CHAR_CANDIDATE.name not in [s.name for s in take]
    assert "over the time budget" in dict(skipped)[CHAR_CANDIDATE.name]
    take, _ = plan(1400, 2e5, 4, budget=30)                  # short sentences
    assert take[-1].name == CHAR_CANDIDATE.name


def test_char_terms_are_made_only_when_the_candidate_is_tried(monkeypatch):
    """Character n-grams (ten times the terms) are not made for a candidate left out."""
    import topics.corpus as corpus

    made, orig = [], corpus.char_ngrams

    def counted(tokens, lo, hi):
        made.append(len(tokens))
        return orig(tokens, lo, hi)

    monkeypatch.setattr(corpus, "char_ngrams", counted)
    texts = [f"{w} words here" for w in ("alpha", "beta") * 30]
    y = np.array(["a", "b"] * 30)
    specs = [spec_of("sdem-nb-hinge"), CHAR_CANDIDATE]
    choice = choose(texts, y, specs=specs, time_budget=0.0)
    assert not made and dict(choice.skipped).keys() == {"svm-chars"}
    choice = choose(texts, y, specs=specs, time_budget=1e6)
    assert made and {c.value for c in choice.ranked} == {"sdem-nb-hinge", "svm-chars"}


def _langs(tmp_path):
    rows = [("fr", "le chat est noir"), ("de", "der hund ist alt"), ("fr", "une maison"),
            ("de", "ein haus und ein garten")] * 15
    path = tmp_path / "tr.tsv"
    path.write_text("".join(f"{lab}\t{text}\n" for lab, text in rows))
    return path


def test_analyzer_option_trains_one_model_on_character_n_grams(tmp_path, capsys):
    data, model = _langs(tmp_path), tmp_path / "m.npz"
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--model", "svm",
                            "--analyzer", "char_wb", "--ngrams", "3", "-o", str(model), "-q"],
                           capsys)
    assert rc == 0, err
    vocab = load_model(model).vocabulary
    assert vocab.analyzer == "char_wb" and vocab.ngram_range == (1, 3)
    assert max(map(len, vocab.words_)) == 3
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--model", "svm",
                            "--analyzer", "char_wb", "-o", str(model), "-q"], capsys)
    assert rc == 0 and load_model(model).vocabulary.ngram_range == (1, 4)


def test_analyzer_char_wb_under_auto_is_refused_and_word_leaves_out_svm_chars(tmp_path,
                                                                               capsys):
    data, model = _langs(tmp_path), tmp_path / "m.npz"
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--analyzer", "char_wb",
                            "-o", str(model)], capsys)
    assert rc == 2 and err.startswith("structpred: error: --analyzer char_wb trains one "
                                      "model") and err.count("\n") == 1 and not model.exists()
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "-o", str(model)], capsys)
    assert rc == 0 and "svm-chars" in out
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--analyzer", "word",
                            "-o", str(model)], capsys)
    assert rc == 0 and "svm-chars" not in out and "sdem-nb-hinge" in out
