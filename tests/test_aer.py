"""AER, precision and recall on hand-made examples (Och & Ney 2003)."""

import pytest

from alignment.aer import AERScore, format_scores, score_alignments
from alignment.formats import Alignment


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


def test_format_matches_score_alignments_tool():
    out = format_scores(AERScore(4, 2, 4, 1, 3))
    assert out.splitlines() == ["Precision = 0.7500", "Recall = 0.5000", "AER = 0.3333"]


def test_error_breakdown_counts_what_aer_counts():
    from collections import Counter

    from alignment.aer import error_breakdown, format_errors

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
