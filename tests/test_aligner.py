"""Model M end to end on a small real slice: training lowers the hinge loss and
beats zero weights; decoding, persistence and the edge features."""

import numpy as np
import pytest

from alignment.evaluate.aer import score_alignments
from alignment.data.formats import Alignment
from alignment.model import LEARNERS, MatchingAligner, gold_matching
from structpred import decode_matching


def _zero_weight_aer(model, pairs, gold):
    # w = 0: every edge scores 0, so no edge is positive and nothing is aligned -> AER 1;
    # the weights to beat are therefore the untrained model (also AER 1).
    pred = [Alignment.from_links(set()) for _ in pairs]
    return score_alignments(pred, gold).aer


@pytest.fixture(scope="module")
def trained(hansards, small_stats):
    model = MatchingAligner(n_iter=60, validate_every=10, random_state=0)
    model.fit(hansards.test_pairs[:40], hansards.test_gold[:40], small_stats,
              eval_set=(hansards.trial_pairs, hansards.trial_gold))
    return model


def test_training_lowers_hinge_and_beats_zero_weights(trained, hansards):
    h = trained.result_.history
    assert h["hinge"][-1] < 0.7 * h["hinge"][0]
    trial_aer = score_alignments(trained.predict(hansards.trial_pairs), hansards.trial_gold).aer
    assert trial_aer < 0.5 < _zero_weight_aer(trained, hansards.trial_pairs, hansards.trial_gold)
    # the kept parameters are the best on validation along the path (sec. 2.6)
    assert trained.result_.best_score == pytest.approx(min(h["validation"]))
    assert trial_aer == pytest.approx(trained.result_.best_score)


def test_named_weights(trained):
    names = [n for n, _ in trained.top_features(40)]
    assert len(trained.feature_names_) == trained.coef_.size
    assert any(n.startswith(("post_", "vit_", "dice")) for n in names[:5])
    assert "bias" in trained.feature_names_


def test_save_load_round_trip(trained, hansards, tmp_path):
    path = tmp_path / "m.npz"
    trained.save(path)
    loaded = MatchingAligner.load(path)
    pairs = hansards.test_pairs[300:320]
    assert loaded.predict(pairs) == trained.predict(pairs)
    np.testing.assert_array_equal(loaded.coef_, trained.coef_)


def test_excluded_edge_features_are_dropped_and_persist(hansards, small_stats, tmp_path):
    from alignment.features.edges import EdgeFeaturizer

    src, tgt = hansards.test_pairs[0]
    drop = ("nbr_diag", "nbr_anti", "nbr_vit_diag")
    full, cut = EdgeFeaturizer(small_stats), EdgeFeaturizer(small_stats, exclude=drop)
    assert cut.n_features == full.n_features - 3
    assert not set(drop) & set(cut.feature_names)
    Ff, Fc = full.transform(src, tgt).toarray(), cut.transform(src, tgt).toarray()
    keep = [full.feature_names.index(n) for n in cut.feature_names]
    np.testing.assert_array_equal(Fc, Ff[keep])
    with pytest.raises(ValueError, match="unknown edge features to exclude: nbr_typo"):
        EdgeFeaturizer(small_stats, exclude=("nbr_typo",))
    model = MatchingAligner(n_iter=10, exclude_features=drop).fit(
        hansards.test_pairs[:10], hansards.test_gold[:10], small_stats)
    assert not set(drop) & set(model.feature_names_)
    model.save(tmp_path / "m.npz")
    loaded = MatchingAligner.load(tmp_path / "m.npz")
    assert loaded.feature_names_ == model.feature_names_
    pairs = hansards.test_pairs[300:310]
    assert loaded.predict(pairs) == model.predict(pairs)


def test_farther_occurrence_features_by_brute_force(hansards, small_stats, tmp_path):
    from alignment.features.edges import OPTIONAL_FEATURES, EdgeFeaturizer

    feat = EdgeFeaturizer(small_stats, include=OPTIONAL_FEATURES)
    plain = EdgeFeaturizer(small_stats)
    assert feat.feature_names[:plain._n_dense] == plain.feature_names[:plain._n_dense]
    rows = [feat.feature_names.index(f) for f in OPTIONAL_FEATURES]
    # sentences with repeated words ('the', 'de', ','), checked against a direct loop
    flagged = [0, 0]
    for src, tgt in hansards.test_pairs[:20]:
        m, n = len(src), len(tgt)
        F = feat.transform(src, tgt).toarray().reshape(feat.n_features, m, n)
        d = lambda j, k: abs((j + 0.5) / m - (k + 0.5) / n)   # noqa: E731
        for j in range(m):
            for k in range(n):
                fs = any(src[i].lower() == src[j].lower() and d(i, k) < d(j, k) - 1e-12
                         for i in range(m) if i != j)
                ft = any(tgt[i].lower() == tgt[k].lower() and d(j, i) < d(j, k) - 1e-12
                         for i in range(n) if i != k)
                assert (F[rows[0], j, k], F[rows[1], j, k]) == (fs, ft)
                flagged[0] += fs
                flagged[1] += ft
    assert flagged[0] > 0 and flagged[1] > 0   # the slice has repeated words on both sides
    with pytest.raises(ValueError, match="unknown optional edge features: nearest"):
        EdgeFeaturizer(small_stats, include=("nearest",))
    model = MatchingAligner(n_iter=10, include_features=("farther_src_occ",)).fit(
        hansards.test_pairs[:10], hansards.test_gold[:10], small_stats)
    assert "farther_src_occ" in model.feature_names_ and "farther_tgt_occ" not in model.feature_names_
    model.save(tmp_path / "m.npz")
    loaded = MatchingAligner.load(tmp_path / "m.npz")
    assert loaded.get_params() == model.get_params()
    pairs = hansards.test_pairs[300:310]
    assert loaded.predict(pairs) == model.predict(pairs)


def test_determinism(hansards, small_stats):
    fits = [MatchingAligner(n_iter=15, learner="perceptron", random_state=3).fit(
        hansards.test_pairs[:15], hansards.test_gold[:15], small_stats) for _ in range(2)]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)


@pytest.mark.parametrize("learner", LEARNERS[1:])
def test_reference_learners_train(hansards, small_stats, learner):
    model = MatchingAligner(n_iter=20, learner=learner, random_state=0)
    model.fit(hansards.test_pairs[:30], hansards.test_gold[:30], small_stats,
              eval_set=(hansards.trial_pairs, hansards.trial_gold))
    assert model.result_.best_score < 0.6


def test_gold_matching_is_a_matching_of_sure_links():
    gold = Alignment({(0, 0), (0, 1), (1, 1)}, {(2, 2)})
    z = gold_matching(gold, (3, 3))
    assert z.sum(axis=0).max() <= 1 and z.sum(axis=1).max() <= 1
    assert z.sum() == 2 and z[2, 2] == 0
    z = gold_matching(gold, (3, 3), target="sure+possible")
    assert z.sum() == 3 and z[2, 2] == 1


def test_prediction_is_max_weight_matching(trained, hansards):
    src, tgt = hansards.test_pairs[250]
    s = trained.edge_scores(src, tgt)
    pred = trained.predict([(src, tgt)])[0]
    y = decode_matching(s)
    assert pred.sure == {(int(j), int(k)) for j, k in zip(*np.nonzero(y))}
    assert all(s[j, k] > 0 for j, k in pred.sure)


def test_features_are_finite_and_unknown_words_work(trained):
    F = trained.featurizer_.transform(["zzqx", "the"], ["le", "wwqz", "."])
    assert F.shape == (len(trained.feature_names_), 6)
    assert np.all(np.isfinite(F.data))
    with pytest.raises(ValueError, match="empty"):
        trained.featurizer_.transform([], ["a"])


def test_fit_rejects_bad_input(hansards, small_stats):
    with pytest.raises(ValueError, match="gold"):
        MatchingAligner().fit(hansards.test_pairs[:3], hansards.test_gold[:2], small_stats)
    with pytest.raises(ValueError, match="learner"):
        MatchingAligner(learner="sgd").fit(hansards.test_pairs[:3], hansards.test_gold[:3],
                                           small_stats)


def test_protocol_rows_and_table(hansards, small_stats):
    from alignment.evaluate.table import format_table
    from alignment.evaluate.protocol import run_protocol

    rows, models = run_protocol(hansards, small_stats, learners=("dual-extragradient",),
                                train_sizes=(100,), n_iter=10, verbose=False,
                                reference={("M", "dual-extragradient", 100): 8.5})
    # the labels count the test sentences of the data read
    assert [r["test"] for r in rows] == ["247 (last)", "347 (last)"]
    assert all(0 < r["aer"] < 60 for r in rows) and [r["thesis"] for r in rows] == [8.5, None]
    table = format_table(rows).splitlines()
    assert table[0].startswith("| model | learner | train | test | precision | recall | AER | "
                               "thesis AER")
    assert len(table) == 4 and ("M", "dual-extragradient", 100) in models
    for r in rows:
        r["thesis"] = None
    assert "thesis" not in format_table(rows)   # no reference figures: no such column
