"""AER, precision and recall on hand-made examples (Och & Ney 2003)."""

import pytest

from alignment.evaluate.aer import AERScore, format_scores, score_alignments
from alignment.data.formats import Alignment


def test_hand_example():
    # S = {00, 11}, P = S ∪ {12, 21};  A = {00, 12, 22}
    gold = [Alignment({(0, 0), (1, 1)}, {(1, 2), (2, 1)})]
    pred = [Alignment.from_links({(0, 0), (1, 2), (2, 2)})]
    s = score_alignments(pred, gold)
    assert (s.n_predicted, s.n_sure, s.n_possible, s.hit_sure, s.hit_possible) == (3, 2, 4, 1, 2)
    assert s.precision == pytest.approx(2 / 3)
    assert s.recall == pytest.approx(1 / 2)
    assert s.aer == pytest.approx(1 - (1 + 2) / (3 + 2))


def test_micro_average_is_not_mean_of_sentences():
    gold = [Alignment({(0, 0)}, ()), Alignment({(0, 0), (1, 1), (2, 2)}, ())]
    pred = [Alignment.from_links({(0, 1)}), Alignment.from_links({(0, 0), (1, 1), (2, 2)})]
    s = score_alignments(pred, gold)
    assert s.aer == pytest.approx(1 - (3 + 3) / (4 + 4))   # 0.25, while the mean would be 0.5
    assert s == score_alignments(pred[:1], gold[:1]) + score_alignments(pred[1:], gold[1:])


def test_perfect_and_empty():
    gold = [Alignment({(0, 0)}, {(0, 1)})]
    assert score_alignments([Alignment.from_links({(0, 0)})], gold).aer == 0.0
    # predicting only possible links: precision 1, recall 0, AER 1 - 1/2
    s = score_alignments([Alignment.from_links({(0, 1)})], gold)
    assert (s.precision, s.recall, s.aer) == (1.0, 0.0, 0.5)
    s = score_alignments([Alignment()], gold)
    assert s.aer == 1.0 and s.precision == 1.0


def test_sets_accepted_and_length_mismatch():
    gold = [Alignment({(0, 0)}, ())]
    assert score_alignments([{(0, 0)}], gold).aer == 0.0
    with pytest.raises(ValueError, match="1 gold"):
        score_alignments([], gold)


def test_format_is_one_line_of_percentages():
    out = format_scores(AERScore(4, 2, 4, 1, 3))
    assert out == "precision 75.00%  recall 50.00%  AER 33.33%"


def test_error_breakdown_counts_what_aer_counts():
    from collections import Counter

    from alignment.evaluate.aer import error_breakdown, format_errors

    pairs = [(["the", "house", "."], ["la", "maison", "."]),
             (["the", "the"], ["le", "le"])]
    # sentence 1: S = {00, 11}, P = S ∪ {22}; A = {00, 12, 22}: 12 false, 11 missed
    # sentence 2: S = {00}, P = S;        A = {11}: 11 false (both words free), 00 missed
    gold = [Alignment({(0, 0), (1, 1)}, {(2, 2)}), Alignment({(0, 0)}, ())]
    pred = [Alignment.from_links({(0, 0), (1, 2), (2, 2)}), Alignment.from_links({(1, 1)})]
    e = error_breakdown(pred, gold, pairs)
    assert e.false_links == Counter({("house", "."): 1, ("the", "le"): 1})
    assert e.missed_links == Counter({("house", "maison"): 1, ("the", "le"): 1})
    assert e.false_between_unlinked == 1      # the second 'the' - 'le': no sure gold link
    assert e.missed_between_unlinked == 1     # the first 'the' - 'le': both left unlinked
    # the totals are exactly AER's error terms |A| - |A ∩ P| and |S| - |A ∩ S|
    s = score_alignments(pred, gold)
    assert sum(e.false_links.values()) == s.n_predicted - s.hit_possible
    assert sum(e.missed_links.values()) == s.n_sure - s.hit_sure
    text = format_errors(e, top=1)
    assert text.splitlines()[0].startswith("False links (predicted, not even possible): 2, 1 ")
    assert len(text.splitlines()) == 4
    with pytest.raises(ValueError, match="1 predicted alignments, 2 gold"):
        error_breakdown(pred[:1], gold, pairs)


# ---------------------------------------------------------------- paired bootstrap
import itertools  # noqa: E402

import numpy as np  # noqa: E402

from alignment.evaluate.aer import paired_bootstrap, sentence_counts  # noqa: E402


def test_sentence_counts_sum_to_the_corpus_score():
    gold = [Alignment({(0, 0), (1, 1)}, {(1, 2), (2, 1)}), Alignment({(0, 1)}, set())]
    pred = [{(0, 0), (1, 2), (2, 2)}, {(0, 0)}]
    c = sentence_counts(pred, gold)
    s = score_alignments(pred, gold)
    assert c.shape == (2, 5)
    assert tuple(c.sum(0)) == (s.n_predicted, s.n_sure, s.n_possible, s.hit_sure, s.hit_possible)
    with pytest.raises(ValueError, match="1 predicted alignments for 2 gold"):
        sentence_counts(pred[:1], gold)


def _aer(c):
    return 1.0 - (c[3] + c[4]) / (c[0] + c[1])


def test_paired_bootstrap_matches_exact_enumeration():
    # three sentences: every one of the 3^3 equally likely resamples enumerated exactly
    a = np.array([[4, 4, 6, 3, 4], [3, 2, 5, 1, 2], [5, 5, 5, 5, 5]])
    b = np.array([[4, 4, 6, 4, 4], [2, 2, 5, 1, 1], [5, 5, 5, 4, 4]])
    exact = np.array([_aer(a[list(i)].sum(0)) - _aer(b[list(i)].sum(0))
                      for i in itertools.product(range(3), repeat=3)])
    r = paired_bootstrap(a, b, n_boot=40000, random_state=1)
    assert r.difference == pytest.approx(_aer(a.sum(0)) - _aer(b.sum(0)))
    assert r.p_not_better == pytest.approx(np.mean(exact <= 0), abs=0.01)
    assert exact.min() - 1e-12 <= r.interval[0] <= r.interval[1] <= exact.max() + 1e-12
    assert r.n_boot == 40000 and r.level == 0.95


def test_paired_bootstrap_is_seeded_and_sees_a_clear_winner():
    rng = np.random.default_rng(0)
    n_sure = rng.integers(5, 15, 200)
    worse = np.stack([n_sure, n_sure, 2 * n_sure, n_sure - 3, n_sure - 2], 1)
    better = np.stack([n_sure, n_sure, 2 * n_sure, n_sure - 1, n_sure], 1)
    r = paired_bootstrap(worse, better, n_boot=2000, random_state=3)
    assert r.difference > 0 and r.interval[0] > 0 and r.p_not_better == 0.0
    assert r == paired_bootstrap(worse, better, n_boot=2000, random_state=3)
    same = paired_bootstrap(worse, worse, n_boot=500)
    assert same.difference == 0.0 and same.interval == (0.0, 0.0) and same.p_not_better == 1.0


def test_paired_bootstrap_refuses_counts_of_other_sentences():
    a = np.array([[1, 1, 1, 1, 1]])
    with pytest.raises(ValueError, match="same gold sentences"):
        paired_bootstrap(a, np.array([[1, 2, 2, 1, 1]]))
    with pytest.raises(ValueError, match="two \\(N, 5\\) arrays"):
        paired_bootstrap(a, np.ones((2, 5)))
