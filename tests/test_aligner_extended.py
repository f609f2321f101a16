"""Models M+F, M+Q and M+F+Q end to end on a few real Hansards sentences.

Statistics come from the first 4,000 bitext pairs (fixtures in conftest.py).
"""

import numpy as np
import pytest

from alignment.evaluate.aer import score_alignments
from alignment.stats.interactions import InteractionStatistics
from alignment.features.interactions import NodeFeaturizer, PairFeaturizer
from alignment.model import MODELS, MatchingAligner, gold_fertility_matching, model_name
from structpred import adjacent_pairs


@pytest.fixture(scope="module")
def inter(hansards, small_stats):
    from conftest import TEST_BITEXT_PAIRS

    return InteractionStatistics.from_files(small_stats, hansards.bitext_src, hansards.bitext_tgt,
                                           max_pairs=TEST_BITEXT_PAIRS)


def test_interaction_statistics(inter, small_stats, hansards):
    assert np.all((inter.src_fert_share >= 0) & (inter.src_fert_share <= 1))
    assert inter.src_count.sum() > 0 and inter.pair_keys.size > 1000
    assert np.all(np.diff(inter.pair_keys) > 0)
    s, t = hansards.test_pairs[0]
    e, f = small_stats.encode(s, t)
    sh = inter.pattern_shares(small_stats, e, f)
    assert sh.shape == (len(s), len(t), 3, 4) and np.all((sh >= 0) & (sh <= 1))


def test_interaction_statistics_in_two_threads_are_the_same(inter, small_stats, hansards):
    """The fixture counted the two halves of the pairs in two threads (integer counts,
    added): one thread gives the same arrays."""
    from conftest import TEST_BITEXT_PAIRS

    import alignment.stats.interactions as mod
    from alignment.data.corpus import load_bitext

    bt = load_bitext(hansards.bitext_src, hansards.bitext_tgt, max_pairs=TEST_BITEXT_PAIRS,
                     max_len=80)
    one = InteractionStatistics.from_sentences(small_stats, bt.src, bt.tgt, n_jobs=1)
    for name in ("src_fert_share", "tgt_fert_share", "src_count", "tgt_count", "pair_keys",
                 "pattern_share"):
        np.testing.assert_array_equal(getattr(one, name), getattr(inter, name))
    work = np.cumsum([0] + [len(s) * len(t) for s, t in zip(bt.src, bt.tgt)])
    assert len(mod.chunk_ranges(work, 1_000_000)) > 1          # the fixture used two threads


def test_interaction_statistics_roundtrip(inter, tmp_path):
    inter.save(tmp_path / "i.npz")
    back = InteractionStatistics.load(tmp_path / "i.npz")
    np.testing.assert_array_equal(back.pair_keys, inter.pair_keys)
    np.testing.assert_allclose(back.pattern_share, inter.pattern_share, atol=1e-3)  # float16


def test_node_features_are_nonnegative_and_monotone(inter, small_stats, hansards):
    s, t = hansards.test_pairs[3]
    nf = NodeFeaturizer(small_stats, inter, max_fertility=3, multi_src={"the"},
                        train_src_counts={"the": 5})
    F = nf.transform(s, t).toarray()
    m, n = len(s), len(t)
    assert F.shape == (nf.n_features, 2 * (m + n)) and F.min() >= 0
    # level-3 columns dominate level-2 columns: penalties s_3 >= s_2 for any w >= 0
    assert np.all(F[:, m:2 * m] >= F[:, :m])
    w = np.random.default_rng(0).uniform(size=nf.n_features)
    pen = w @ F
    assert np.all(pen[m:2 * m] >= pen[:m])


def test_pair_features(inter, small_stats, hansards):
    s, t = hansards.test_pairs[1]
    pairs, pattern = adjacent_pairs(len(s), len(t))
    Fp = PairFeaturizer(small_stats, inter).transform(s, t, pairs, pattern).toarray()
    assert Fp.shape == (len(PairFeaturizer(small_stats, inter).feature_names), len(pairs)) and Fp.min() >= 0
    # exactly one pattern indicator per pair
    ind = Fp[0::7]
    np.testing.assert_array_equal(ind.sum(0), np.ones(len(pairs)))
    np.testing.assert_array_equal(ind.argmax(0), pattern)


def test_gold_fertility_target(hansards):
    for (s, t), g in zip(hansards.test_pairs[:30], hansards.test_gold[:30]):
        for D in (1, 2):
            y = gold_fertility_matching(g, (len(s), len(t)), D)
            assert y.sum(1).max() <= D and y.sum(0).max() <= D
            assert all((j, k) in g.sure for j, k in zip(*np.nonzero(y)))
        # fertility 2 keeps at least as many sure links as a matching
        assert gold_fertility_matching(g, (len(s), len(t)), 2).sum() >= \
            gold_fertility_matching(g, (len(s), len(t)), 1).sum()


@pytest.mark.parametrize("name", ["M+F", "M+Q", "M+F+Q"])
def test_extended_models_train_end_to_end(name, hansards, small_stats, inter, tmp_path):
    D, Q = MODELS[name]
    model = MatchingAligner(max_fertility=D, interactions=Q, n_iter=25, validate_every=5,
                            cost_neg=3.0, random_state=0)
    pairs, gold = hansards.test_pairs[:15], hansards.test_gold[:15]
    model.fit(pairs, gold, small_stats,
              eval_set=(hansards.trial_pairs[:10], hansards.trial_gold[:10]),
              interaction_stats=inter)
    assert model.model_name == name == model_name(D, Q)
    h = model.result_.history
    if Q:   # the QAP hinge needs an LP per example and is not tracked; validation AER is
        assert min(h["validation"]) < 0.3
    else:
        assert h["hinge"][-1] < 0.8 * h["hinge"][0]
    # W keeps the fertility penalties and pair bonuses non-negative (eqs. 3.2, 3.3)
    assert np.all(model.coef_[model.n_edge_features_:] >= 0)
    test_pairs, test_gold = hansards.test_pairs[200:230], hansards.test_gold[200:230]
    pred = model.predict(test_pairs)
    aer = score_alignments(pred, test_gold).aer
    assert aer < 0.3
    for a, (s, t) in zip(pred, test_pairs):
        y = np.zeros((len(s), len(t)), int)
        for j, k in a.sure:
            y[j, k] = 1
        assert y.sum(1).max(initial=0) <= D and y.sum(0).max(initial=0) <= D
    if Q:
        # the exact ILP back ends agree on every sentence
        for s, t in test_pairs[:5]:
            a = model.predict_matrix(s, t, decoder="ortools")
            b = model.predict_matrix(s, t, decoder="pulp")
            F, pr, _ = model._structure(s, t)
            sc = np.asarray(F.T @ model.coef_).ravel()
            from structpred import qap_objective
            ex = model._make_example(F, pr, (len(s), len(t)), np.zeros((len(s), len(t))), 1.0,
                                     "ortools")
            e, fs, ft, q = ex.split(sc)
            assert qap_objective(a, e, -fs, -ft, pr, q) == \
                pytest.approx(qap_objective(b, e, -fs, -ft, pr, q), abs=1e-6)
    path = tmp_path / f"{name}.npz"
    model.save(path)
    back = MatchingAligner.load(path)
    assert back.get_params() == model.get_params()
    assert [a.sure for a in back.predict(test_pairs[:5])] == [a.sure for a in pred[:5]]


def test_extended_model_needs_interaction_stats(hansards, small_stats):
    with pytest.raises(ValueError, match="interaction_stats"):
        MatchingAligner(max_fertility=2).fit(hansards.test_pairs[:3], hansards.test_gold[:3],
                                             small_stats)
