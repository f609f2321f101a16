"""Unusual inputs of the Python API, fourteenth sweep (issue 28, docs/errors.md), by class.

Fixed in this sweep: words given to the API as tokens were not read as the command line
reads the same words from a file (:func:`structpred.io.word_form`: the invisible format
characters and variation selectors inside a word removed, NFC; the zero-width joiner
kept), so the same text gave other results through the API:

- ``BayesianAligner.fit``/``align`` (token lists or strings), ``UnsupervisedAligner.fit``,
  ``predict`` and ``posteriors``, and every estimator whose pairs pass
  :func:`structpred.io.check_sentence_pairs` (``MatchingAligner``), and
  ``AlignmentStatistics.from_sentences``, whose tables those pairs are looked up in, and
  the sides given to eflomal and fast_align as token lists or strings:
  ``chat`` with a variation selector was another word than ``chat``;
- ``topics.Vocabulary`` given token lists (a text was read so already);
- (the tagger's features were in word form already: kept so by a test)
- a token of invisible characters only (a right-to-left mark alone), which a file's
  reader refuses, was a word through the API (aligners) or a column of a tagger's token:
  a ``ValueError`` naming it now.
"""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import run_cli
from structpred.io import check_sentence_pairs, token_form, word_form

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

#: invisible characters that carry no meaning inside a word: a variation selector (text and
#: emoji style, an ideographic one), a right-to-left mark, a soft hyphen, a word joiner
IGNORABLE = st.sampled_from(["\ufe0f", "\ufe0e", "\U000e0100", "\u200f", "\xad", "\u2060"])
SRC = [["le", "chat", "noir"], ["le", "chien"], ["chat", "blanc"], ["un", "chien", "noir"]]
TGT = [["the", "black", "cat"], ["the", "dog"], ["white", "cat"], ["a", "black", "dog"]]


def _marked(sentences, mark, at):
    """``sentences`` with ``mark`` inside every word of two letters or more, after ``at``
    letters (cut to the word)."""
    return [[w[:min(at, len(w) - 1)] + mark + w[min(at, len(w) - 1):] if len(w) > 1 else w
             for w in s] for s in sentences]


# ----------------------------------------------- class: invisible characters inside words
@SETTINGS
@given(mark=IGNORABLE, at=st.integers(1, 3))
def test_bayesian_aligner_reads_api_tokens_as_a_file(mark, at):
    from alignment.aligners.bayes import BayesianAligner

    marked = _marked(SRC, mark, at)
    a = BayesianAligner(random_state=0, n_samplers=1).fit(marked, TGT)
    b = BayesianAligner(random_state=0, n_samplers=1).fit(SRC, TGT)
    assert a.links_ == b.links_ and a.src_vocab_ == b.src_vocab_
    assert a.align(marked, TGT) == b.align(SRC, TGT)
    strings = [" ".join(s) for s in marked]   # the sentences given as strings
    assert BayesianAligner(random_state=0, n_samplers=1).fit(strings, TGT).links_ == b.links_


@SETTINGS
@given(mark=IGNORABLE, at=st.integers(1, 3))
def test_unsupervised_aligner_reads_api_tokens_as_a_file(mark, at):
    import numpy as np

    from alignment.aligners.unsupervised import UnsupervisedAligner

    marked = _marked(SRC, mark, at)
    a = UnsupervisedAligner(hmm_iterations=2, prefix=0).fit(marked, TGT)
    b = UnsupervisedAligner(hmm_iterations=2, prefix=0).fit(SRC, TGT)
    assert a.predict(list(zip(marked, TGT))) == b.predict(list(zip(SRC, TGT)))
    assert b.predict(list(zip(marked, TGT))) == b.predict(list(zip(SRC, TGT)))
    for x, y in zip(b.posteriors(marked[0], TGT[0]), b.posteriors(SRC[0], TGT[0])):
        np.testing.assert_array_equal(x, y)


@SETTINGS
@given(mark=IGNORABLE, at=st.integers(1, 3), as_tuple=st.booleans())
def test_checked_sentence_pairs_are_in_word_form(mark, at, as_tuple):
    marked = _marked(SRC, mark, at)
    pairs = [(s, t) if as_tuple else [s, t] for s, t in zip(marked, TGT)]
    got = check_sentence_pairs(pairs)
    assert [list(map(list, p)) for p in got] == [[s, t] for s, t in zip(SRC, TGT)]
    assert all(type(g) is type(p) for g, p in zip(got, pairs))


@SETTINGS
@given(mark=IGNORABLE, at=st.integers(1, 3))
def test_alignment_statistics_read_words_as_the_pairs_are(mark, at):
    """The tables of ``from_sentences`` are looked up with the pairs an aligner checked
    (in word form): their words must be in word form too."""
    from alignment.stats.statistics import AlignmentStatistics

    kw = {"verbose": False, "n_iter_model1": 1, "n_iter_model2": 1, "n_jobs": 1}
    a = AlignmentStatistics.from_sentences(_marked(SRC, mark, at), TGT, **kw)
    b = AlignmentStatistics.from_sentences(SRC, TGT, **kw)
    assert a.src_vocab.itos == b.src_vocab.itos


@SETTINGS
@given(mark=IGNORABLE, at=st.integers(1, 3), as_strings=st.booleans())
def test_external_aligners_get_the_lines_a_file_gives(tmp_path_factory, mark, at, as_strings):
    """eflomal and fast_align (``align_new``, ``align_with_priors``, ``link_sets``) read
    the lines of a side given as token lists or strings (``_as_lines``) as of a file."""
    from alignment.aligners.runs import _as_lines

    marked = _marked(SRC, mark, at)
    path = tmp_path_factory.mktemp("side") / "src.txt"
    path.write_text("".join(" ".join(s) + "\n" for s in marked), encoding="utf-8")
    side = [" ".join(s) for s in marked] if as_strings else marked
    assert _as_lines(side) == _as_lines(str(path)) == [" ".join(s) for s in SRC]


@SETTINGS
@given(mark=IGNORABLE, at=st.integers(1, 3))
def test_vocabulary_of_token_lists_is_that_of_the_text(mark, at):
    from topics import Vocabulary

    marked = _marked(SRC, mark, at)
    words = Vocabulary().fit(marked).words_
    assert words == Vocabulary().fit([" ".join(s) for s in marked]).words_
    assert words == Vocabulary().fit(SRC).words_


def test_the_zero_width_joiner_is_kept_by_the_api_and_the_cli(tmp_path, capsys):
    """U+200D is spelling (Persian, emoji sequences): a word of its own, in the API as in a
    file; a variation selector is not: the command line and the API give the same links."""
    from alignment.aligners.bayes import BAYES_DEFAULTS, BayesianAligner

    src = [["le", "chat\u200dnoir", "c\ufe0fhien"], ["le", "c\ufe0fhien"],
           ["chatnoir", "blanc"]] * 2
    tgt = [["the", "black", "dog"], ["the", "dog"], ["white", "cat"]] * 2
    model = BayesianAligner(ibm1_iterations=2, hmm_iterations=2, fertility_iterations=2,
                            random_state=3, prefix=BAYES_DEFAULTS["prefix"])
    links = model.fit(src, tgt).links_
    assert "chat\u200dno"[:BAYES_DEFAULTS["prefix"]] in model.src_vocab_
    assert not any("\ufe0f" in w for w in model.src_vocab_)
    (tmp_path / "s.txt").write_text("".join(" ".join(s) + "\n" for s in src), encoding="utf-8")
    (tmp_path / "t.txt").write_text("".join(" ".join(t) + "\n" for t in tgt), encoding="utf-8")
    rc, out, err = run_cli(["align", "unsupervised", "--model", "bayes", "--src",
                            str(tmp_path / "s.txt"), "--tgt", str(tmp_path / "t.txt"),
                            "--iterations", "2,2,2", "--seed", "3", "-q"], capsys)
    assert rc == 0, err
    cli = [set(tuple(map(int, x.split("-"))) for x in line.split()) for line in
           out.splitlines()]
    assert cli == [set(x) for x in links]


def test_tagger_predicts_alike_with_a_selector_inside_a_word():
    from sequence.model import SequenceTagger

    X = [[("le",), ("chat",), ("dort",)], [("un",), ("chien",), ("mange",)]] * 3
    y = [["D", "N", "V"]] * 6
    tagger = SequenceTagger(n_iter=3, min_count=1).fit(X, y)
    marked = [[("le",), ("ch\ufe0fat",), ("do\u200frt",)]]
    assert tagger.predict(marked) == tagger.predict([X[0]])


# --------------------------------------------------- class: tokens of invisible characters
@pytest.mark.parametrize("token", ["\u200f", "\ufe0f", "\u200b\u200f", "\u200d"])
def test_a_token_of_invisible_characters_only_is_refused(token):
    from alignment.aligners.bayes import BayesianAligner
    from alignment.aligners.unsupervised import UnsupervisedAligner
    from sequence.model import SequenceTagger

    src = [["le", token, "chat"], ["le", "chien"]]
    tgt = [["the", "cat"], ["the", "dog"]]
    msg = re.escape(f"token {token!r} is made of invisible characters only")
    with pytest.raises(ValueError, match="source sentence 0: " + msg):
        BayesianAligner(random_state=0).fit(src, tgt)
    with pytest.raises(ValueError, match="sentence pair 0: source: " + msg):
        UnsupervisedAligner(hmm_iterations=1).fit(src, tgt)
    with pytest.raises(ValueError, match=msg):
        check_sentence_pairs(list(zip(src, tgt)))
    with pytest.raises(ValueError, match=r"sentence 0, token 1: the column: " + msg):
        SequenceTagger(n_iter=1).fit([[(w,) for w in s] for s in src],
                                     [["D"] * len(s) for s in src])


@SETTINGS
@given(word=st.text(min_size=1, max_size=8).filter(lambda w: not any(c.isspace() for c in w)))
def test_token_form_is_word_form_or_a_refusal(word):
    try:
        got = token_form(word)
    except ValueError as exc:
        import unicodedata

        assert "invisible characters only" in str(exc)
        assert all(unicodedata.category(c) == "Cf" or 0xFE00 <= ord(c) <= 0xFE0F
                   or 0xE0100 <= ord(c) <= 0xE01EF for c in word)
    else:
        assert got == word_form(word) and got


# --------------------------------------------- class: a token list's token of two words
@SETTINGS
@given(space=st.sampled_from([" ", "\t", "\u00a0", "\u3000", "\n"]),
       ngrams=st.sampled_from([(1, 1), (1, 2)]))
def test_a_vocabulary_token_holding_white_space_is_refused(space, ngrams):
    """``"big cat"`` as one token was the bigram of ``big`` and ``cat`` (with n-grams, the
    same term; without, a term no text gives)."""
    from topics import Vocabulary

    with pytest.raises(ValueError, match=r"document 1: the token 'big.{1,2}cat' holds white space"):
        Vocabulary(ngram_range=ngrams).fit([["a", "cat"], ["big" + space + "cat"]])


# ------------------------------------------------------ class: counts that are all zero
@SETTINGS
@given(model=st.sampled_from(["SdemNaiveBayes", "NBSVM", "SdemLDAClassifier"]),
       dense=st.booleans(), n_docs=st.integers(2, 6))
def test_counts_of_no_word_are_refused(model, dense, n_docs):
    """Documents none of whose words is in the vocabulary: the naive Bayes and NBSVM models
    were fitted to their prior and predicted one class for everything (the topic models
    refused such counts)."""
    import numpy as np
    import scipy.sparse as sp

    import topics

    X = np.zeros((n_docs, 5), dtype=np.int64)
    y = ["a", "b"] * (n_docs // 2) + ["a"] * (n_docs % 2)
    with pytest.raises(ValueError, match="the corpus has no tokens"):
        getattr(topics, model)().fit(X if dense else sp.csr_matrix(X), y)


# ------------------------------------- class: sentences given as strings, other white space
@SETTINGS
@given(space=st.sampled_from(["\u00a0", "\u2009", "\u3000", "\n", "\x0b", "\u2028"]),
       which=st.integers(0, 3))
def test_string_sentences_split_as_a_file_line(space, which):
    """``"le\\xa0chat"`` was two words through the API (``str.split``) and a refusal in a
    file (tokens are separated by ASCII spaces and tabs only)."""
    from alignment.aligners.bayes import BayesianAligner
    from alignment.aligners.runs import _as_lines

    src = [" ".join(s) for s in SRC]
    src[which] = src[which].replace(" ", space, 1)
    with pytest.raises(ValueError, match=rf"source sentence {which}: .*U\+{ord(space):04X}"):
        BayesianAligner(random_state=0).fit(src, TGT)
    with pytest.raises(ValueError, match=rf"sentence {which}: .*U\+{ord(space):04X}"):
        _as_lines(src)
    tabs = [s.replace(" ", "\t") for s in (" ".join(x) for x in SRC)]   # tabs split, as in a file
    assert _as_lines(tabs) == [" ".join(s) for s in SRC]
