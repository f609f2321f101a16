"""``encode_sentences`` / ``EncodedCorpus.build`` (each word type looked up, counted and
normalised once) against the reference: normalise every token, ``Vocabulary.build``, then
encode token by token."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.data.corpus import (NULL_TOKEN, UNK_TOKEN, EncodedCorpus, Vocabulary,
                                   _flatten_encode, encode_sentences)

# few letters (repeated words, ties of counts), cases, the reserved tokens as words
WORDS = st.one_of(st.text("aAbBé", min_size=1, max_size=4),
                  st.sampled_from([NULL_TOKEN, UNK_TOKEN, "<null>", "ÉTÉ", "été"]))
SENTENCES = st.lists(st.lists(WORDS, max_size=6), max_size=8)


def _reference(sentences, normalize, min_count):
    normed = [[normalize(w) for w in s] if normalize else list(s) for s in sentences]
    vocab = Vocabulary.build(normed, min_count=min_count)
    return (vocab, *_one_by_one(normed, vocab))


def _one_by_one(sentences, vocab):
    """Each sentence encoded on its own (``Vocabulary.encode``), then concatenated."""
    ids = [vocab.encode(s) for s in sentences]
    offsets = np.cumsum([0] + [len(s) for s in sentences]).astype(np.int64)
    return (np.concatenate(ids).astype(np.int32) if ids else np.zeros(0, np.int32)), offsets


def _lower_prefix(w):
    return w.lower()[:2]


@settings(max_examples=200, deadline=None)
@given(SENTENCES, st.sampled_from([None, str.lower, _lower_prefix]), st.integers(1, 3))
def test_encoding_equals_normalising_every_token(sentences, normalize, min_count):
    vocab, ids, offsets = encode_sentences(sentences, normalize, min_count)
    ref_vocab, ref_ids, ref_offsets = _reference(sentences, normalize, min_count)
    assert vocab == ref_vocab
    assert vocab.itos == ref_vocab.itos
    np.testing.assert_array_equal(vocab.counts_, ref_vocab.counts_)
    assert ids.dtype == ref_ids.dtype == np.int32
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_array_equal(offsets, ref_offsets)


@settings(max_examples=50, deadline=None)
@given(SENTENCES, SENTENCES)
def test_corpus_build_equals_from_sentences(src, tgt):
    n = min(len(src), len(tgt))
    src, tgt = src[:n], tgt[:n]
    built = EncodedCorpus.build(src, tgt, normalize=str.lower)
    lower = [[w.lower() for w in s] for s in src], [[w.lower() for w in t] for t in tgt]
    ref = EncodedCorpus.from_sentences(*lower, Vocabulary.build(lower[0]),
                                       Vocabulary.build(lower[1]))
    for a in ("src_ids", "src_offsets", "tgt_ids", "tgt_offsets"):
        np.testing.assert_array_equal(getattr(built, a), getattr(ref, a))
    assert (built.n_src_types, built.n_tgt_types) == (ref.n_src_types, ref.n_tgt_types)
    assert built.src_vocab.itos == ref.src_vocab.itos


@settings(max_examples=100, deadline=None)
@given(SENTENCES, SENTENCES, st.booleans(), st.integers(1, 2))
def test_encoding_in_a_vocabulary_equals_encoding_each_sentence(built_on, sentences,
                                                                lowercase, min_count):
    vocab = Vocabulary.build(built_on, min_count=min_count, lowercase=lowercase)
    ids, offsets = _flatten_encode(sentences, vocab)
    ref_ids, ref_offsets = _one_by_one(sentences, vocab)
    assert ids.dtype == np.int32
    np.testing.assert_array_equal(ids, ref_ids)
    np.testing.assert_array_equal(offsets, ref_offsets)


# -- the bitext read once: the statistics counted from the lines already read ---------------

def _bitext_files(tmp_path):
    """A small bitext with an empty line, a pair longer than the limit and repeated words."""
    src = ["the house", "", "the green house", "a house", " ".join(["w"] * 12), "house the"]
    tgt = ["la maison", "vide", "la maison verte", "une maison", "x y", "maison la"]
    sp, tp = tmp_path / "b.en", tmp_path / "b.fr"
    sp.write_text("\n".join(src * 4) + "\n", encoding="utf-8")
    tp.write_text("\n".join(tgt * 4) + "\n", encoding="utf-8")
    return sp, tp


def _arrays_equal(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def _lines(sp, tp, max_pairs=None):
    from alignment.data.formats import read_parallel

    bt = read_parallel(sp, tp, allow_empty=True)[:max_pairs]
    return [s for s, _ in bt], [t for _, t in bt]


def test_statistics_of_lines_read_equal_those_of_the_files(tmp_path):
    from alignment.stats.interactions import InteractionStatistics
    from alignment.stats.statistics import AlignmentStatistics

    sp, tp = _bitext_files(tmp_path)
    for max_pairs in (None, 17):
        kw = dict(max_pairs=max_pairs, max_len=10, verbose=False, n_iter_model1=2,
                  n_iter_model2=1)
        files = AlignmentStatistics.from_files(sp, tp, **kw)
        lines = AlignmentStatistics.from_files(sp, tp, lines=_lines(sp, tp, max_pairs), **kw)
        assert lines.bitext_report == files.bitext_report
        assert lines.bitext_report["dropped"]["empty"] > 0
        assert lines.bitext_report["dropped"]["too_long"] > 0
        assert lines.cache_key == files.cache_key
        _arrays_equal(lines.to_arrays(), files.to_arrays())
        ikw = dict(max_pairs=max_pairs, max_len=10)
        inter_files = InteractionStatistics.from_files(files, sp, tp, **ikw)
        inter_lines = InteractionStatistics.from_files(files, sp, tp,
                                                       lines=_lines(sp, tp, max_pairs), **ikw)
        _arrays_equal(inter_lines.to_arrays(), inter_files.to_arrays())


# -- the fast paths of the bitext's checks and look-ups --------------------------------------

TOKENS = st.one_of(
    st.lists(st.sampled_from(["a", "b", "é"]), max_size=5),     # plain tokens
    st.lists(st.one_of(st.sampled_from(["a", "b", "a b", "", " ", "\n", "é"]),
                       st.integers(0, 3)), max_size=4))


def _outcome(call):
    try:
        call()
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TOKENS, TOKENS), max_size=4), st.sampled_from([None, 2, 3]))
def test_checking_plain_pairs_fast_gives_the_checks_outcome(pairs, max_words):
    """Lists of tokens take a fast path; as tuples they take the per-token checks: the
    outcome (passing, or the error and its message) is the same."""
    from structpred.io import check_sentence_pairs

    fast = _outcome(lambda: check_sentence_pairs(pairs, max_words=max_words))
    slow = _outcome(lambda: check_sentence_pairs([(tuple(s), tuple(t)) for s, t in pairs],
                                                 max_words=max_words))
    assert fast == slow


SHORT = st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SHORT, SHORT), max_size=12), st.lists(st.tuples(SHORT, SHORT),
                                                                  min_size=1, max_size=4))
def test_training_text_finds_each_input_pair_at_its_first_place(bitext, pairs):
    from alignment.aligners.unsupervised import training_text

    src, tgt, index = training_text(pairs, [s for s, _ in bitext], [t for _, t in bitext])
    n = len(bitext)
    assert src[:n] == [s for s, _ in bitext] and tgt[:n] == [t for _, t in bitext]
    for (s, t), j in zip(pairs, index):
        assert (src[j], tgt[j]) == (s, t)
        if (s, t) in bitext:     # the first place in the bitext, no copy added
            assert j == bitext.index((s, t))
    added = [(s, t) for s, t in pairs if (s, t) not in bitext]
    assert list(zip(src[n:], tgt[n:])) == added
