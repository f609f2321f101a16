"""The guarded choice (unary-only unless the MRF wins the paired bootstrap), the choice by
cross-validation with few validation images, the stopping rule and the per-image colour
models (issue 30)."""

import numpy as np
import pytest

from segmentation.colour_model import colour_model_features, gmm_log_density, weighted_gmm
from segmentation.model import MRFSegmenter, describe_choice
from segmentation.points import PointGraph


def _graph(rng, n=40, noise=0.3, smooth=False):
    """A chain of ``n`` nodes; the first node feature is the label (+-1) plus noise.
    ``smooth``: labels come in runs of 8, so that neighbours agree (the MRF can help)."""
    if smooth:
        y = np.repeat(rng.integers(0, 2, n // 8 + 1), 8)[:n].astype(float)
    else:
        y = rng.integers(0, 2, n).astype(float)
    y[0], y[1] = 0.0, 1.0
    x = np.column_stack([2 * y - 1 + noise * rng.standard_normal(n), rng.standard_normal(n),
                         np.ones(n)])
    edges = np.column_stack([np.arange(n - 1), np.arange(1, n)]).astype(np.int64)
    ef = np.column_stack([np.ones(n - 1), rng.random(n - 1)])
    return PointGraph(xyz=np.zeros((n, 3)), node_features=x, edges=edges, edge_features=ef,
                      sizes=np.ones(n), fg_fraction=y, labels=np.arange(n), mask=y.astype(bool))


FAST = dict(class_weight=None, eta_scale=3.0, validate_every=2, patience=3, n_iter=40,
            feature_scale=1.0)


def test_guard_keeps_unary_only_when_the_mrf_does_not_win():
    """Labels independent of the neighbours and a perfect node feature: the MRF can at best
    tie with unary-only, so the guard keeps unary-only, edge weights fixed at 0."""
    rng = np.random.default_rng(0)
    train = [_graph(rng, noise=0.05) for _ in range(12)]
    valid = [_graph(rng, noise=0.05) for _ in range(6)]
    lines = []
    m = MRFSegmenter(min_valid=5, **FAST).fit(train, eval_set=valid, log=lines.append)
    assert m.guard_["kept"] == "unary", m.guard_
    assert m.chosen_["edges"] == "unary"
    assert np.all(m.edge_weights_ == 0)
    assert "unary-only" in describe_choice(m.chosen_)
    assert m.guard_["line"].startswith("edges: chose unary"), m.guard_
    # the unary-only model trained with the same choices predicts the same
    u = MRFSegmenter(min_valid=5, use_edges=False, **FAST).fit(train, eval_set=valid)
    for g in valid:
        np.testing.assert_array_equal(m.predict_graph(g), u.predict_graph(g))


def test_guard_decision_follows_the_paired_bootstrap():
    m = MRFSegmenter()
    n = 30
    unary = np.tile([50, 100], (n, 1))
    steady = np.tile([60, 100], (n, 1))                 # better on every image
    kept, info = m._guard({"unary": unary, "mrf x 0.5": unary, "mrf": steady}, {}, lambda s: None)
    assert kept == "mrf" and info["p_not_better"] < 0.05
    rng = np.random.default_rng(1)                      # better on the whole set, not steadily
    noisy = np.column_stack([50 + rng.choice([-30, 31], n), np.full(n, 100)])
    assert noisy[:, 0].sum() > unary[:, 0].sum()
    kept, info = m._guard({"unary": unary, "mrf x 0.5": unary, "mrf": noisy}, {}, lambda s: None)
    assert kept == "unary" and info["p_not_better"] >= 0.05
    assert "better than the default in only" in info["line"]


def test_few_validation_items_choose_by_cross_validation_and_train_on_all():
    rng = np.random.default_rng(2)
    graphs = [_graph(rng, noise=1.2, smooth=True) for _ in range(9)]
    lines = []
    m = MRFSegmenter(cv_folds=3, **FAST).fit(graphs, log=lines.append)  # 15 %: 1 held out
    assert m.guard_["cv_folds"] == 3 and m.guard_["n_items"] == 9
    assert m.n_train_ == 9                               # the final model saw every graph
    assert m.chosen_["final"] and m.chosen_["n_iter"] >= 1
    assert any("3-fold cross-validation" in line for line in lines)
    folds = {r["cv_fold"] for r in m.selection_ if "cv_fold" in r}
    assert folds == {0, 1, 2}
    assert m.guard_["kept"] in ("unary", "mrf", "mrf x 0.5", "mrf x 1.5", "mrf x 2", "mrf x 3")
    if m.guard_["kept"] == "unary":
        assert np.all(m.edge_weights_ == 0)


def test_stopping_rule_and_the_cap_report():
    m = MRFSegmenter(patience=3, tol=0.01)
    stop = m._stopping_rule(valid=[object()])
    scores = [0.5, 0.6, 0.605, 0.607, 0.608, 0.609]
    fired = [stop(t, None, {"validation": v}) for t, v in enumerate(scores)]
    assert fired == [False, False, False, False, True, True]
    rng = np.random.default_rng(3)
    train = [_graph(rng) for _ in range(6)]
    valid = [_graph(rng) for _ in range(3)]
    lines = []
    m = MRFSegmenter(guard=False, **dict(FAST, n_iter=2000)).fit(train, eval_set=valid,
                                                                log=lines.append)
    assert m.chosen_["n_iter"] < 2000 and not m.chosen_["capped"]
    m = MRFSegmenter(guard=False, tol=0.0, **dict(FAST, n_iter=3, validate_every=1, patience=50)
                     ).fit(train, eval_set=valid, log=lines.append)
    assert m.chosen_["capped"] and any("reached the iteration cap (3)" in line for line in lines)
    assert MRFSegmenter().iteration_cap(10) == 70 and MRFSegmenter().iteration_cap(10 ** 4) == 300
    assert MRFSegmenter().iteration_cap(10, use_edges=False) == 350


def test_weighted_gmm_and_colour_features():
    rng = np.random.default_rng(4)
    a = rng.normal([0.3, 0.1, 0.1], 0.02, (200, 3))
    b = rng.normal([0.7, -0.2, 0.3], 0.02, (200, 3))
    X = np.vstack([a, b])
    w = np.r_[np.ones(200), np.zeros(200)]
    p = weighted_gmm(X, w, n_components=2, random_state=0)
    assert np.all(np.abs(p[1] - [0.3, 0.1, 0.1]).max(axis=1) < 0.02)   # zero weight: ignored
    assert gmm_log_density(a[:5], p).min() > gmm_log_density(b[:5], p).max()
    # features: foreground-coloured superpixels get a positive log-likelihood ratio, even
    # where the first pass got them wrong (10 % of the scores flipped)
    y = np.r_[np.ones(200), np.zeros(200)]
    scores = np.where(rng.random(400) < 0.1, -1, 1) * (2 * y - 1)
    edges = np.column_stack([np.arange(399), np.arange(1, 400)])
    f1 = colour_model_features(X, np.ones(400), edges, np.ones(399), scores, random_state=0)
    f2 = colour_model_features(X, np.ones(400), edges, np.ones(399), scores, random_state=0)
    np.testing.assert_array_equal(f1, f2)                 # seeded: deterministic
    assert f1.shape == (400, 2)
    assert np.mean(f1[:200, 0] > 0) > 0.95 and np.mean(f1[200:, 0] < 0) > 0.95


@pytest.fixture(scope="module")
def horses():
    from segmentation.data import bundled_data_dir, horse_items, load_pair

    items = horse_items(bundled_data_dir(), "train")[:5]
    proto = MRFSegmenter(n_segments=120)
    pairs = [load_pair(it.image, it.mask) for it in items]
    return pairs, [proto.image_graph(img, mask) for img, mask in pairs]


def test_colour_model_second_pass_roundtrip(horses, tmp_path):
    """Images get a first (unary) pass and two colour-model features; the saved model
    recomputes them when predicting from images and from base graphs."""
    pairs, graphs = horses
    m = MRFSegmenter(n_segments=120, n_iter=6, class_weight=None, eta_scale=3.0,
                     valid_fraction=0, validate_every=2).fit(graphs[:4])
    base = graphs[0].node_features.shape[1]
    assert m.first_pass_coef_.shape == (base,)
    assert m.n_node_features_ == base + 2
    assert m.node_feature_names_[-2:] == ["colour_model_llr", "context_colour_model_llr"]
    m.save(tmp_path / "m.npz")
    m2 = MRFSegmenter.load(tmp_path / "m.npz")
    img, mask = pairs[4]
    np.testing.assert_array_equal(m.predict([img])[0], m2.predict([img])[0])
    g = graphs[4]
    np.testing.assert_array_equal(m2.predict_graph(g), m.predict_graph(g))
    off = MRFSegmenter(n_segments=120, n_iter=6, class_weight=None, eta_scale=3.0,
                       valid_fraction=0, colour_model=False).fit(graphs[:4])
    assert off.n_node_features_ == base and not hasattr(off, "first_pass_coef_")


def test_is_a_scikit_learn_estimator():
    from sklearn.base import BaseEstimator, clone

    m = MRFSegmenter(cv_folds=4, edge_factors=(0.25, 0.5))
    assert isinstance(m, BaseEstimator)
    c = clone(m)
    assert c.get_params() == m.get_params() and not hasattr(c, "coef_")


@pytest.mark.slow
def test_memory_efficient_two_passes_and_cross_validation_match_in_memory(horses, tmp_path):
    """The first pass, the colour features and the cross-validated guard on graphs streamed
    from the disk cache give the same model as in memory."""
    _, graphs = horses
    kw = dict(n_segments=120, n_iter=4, class_weight=None, eta_scale=3.0, validate_every=2)
    a = MRFSegmenter(**kw).fit(graphs)
    b = MRFSegmenter(memory_efficient=True, cache_dir=str(tmp_path), **kw).fit(iter(graphs))
    assert a.guard_["cv_folds"] == 3 and b.guard_["kept"] == a.guard_["kept"]
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    np.testing.assert_allclose(a.first_pass_coef_, b.first_pass_coef_, atol=1e-10)


def test_edge_factors_rescale_the_mrf_and_a_stronger_one_can_be_kept():
    """Factors above 1 are candidates as well as below; the guard keeps a rescaled MRF only
    by the same paired bootstrap against unary-only, and ties keep the unscaled MRF."""
    m = MRFSegmenter(edge_factors=(0.5, 2.0, 1.5))
    w = np.array([1.0, -2.0, 0.5, 0.25])
    cands = m._guard_candidates(w, np.array([1.0, -2.0, 0.0, 0.0]), dn=2)
    assert list(cands) == ["unary", "mrf", "mrf x 1.5", "mrf x 0.5", "mrf x 2"]
    np.testing.assert_array_equal(cands["mrf x 2"], [1.0, -2.0, 1.0, 0.5])
    np.testing.assert_array_equal(cands["mrf x 0.5"][:2], w[:2])
    n = 30
    unary, mrf = np.tile([50, 100], (n, 1)), np.tile([55, 100], (n, 1))
    stats = {"unary": unary, "mrf": mrf, "mrf x 1.5": mrf, "mrf x 0.5": unary,
             "mrf x 2": np.tile([60, 100], (n, 1))}
    kept, info = m._guard(stats, {}, lambda s: None)
    assert kept == "mrf x 2" and info["p_not_better"] < 0.05
    stats["mrf x 2"] = mrf                              # a tie: the MRF as trained
    assert m._guard(stats, {}, lambda s: None)[0] == "mrf"
    for bad in (1.0, 0.0, -2.0, float("inf")):
        with pytest.raises(ValueError, match="edge_factors"):
            MRFSegmenter(edge_factors=(bad,))._check_params()


def test_candidates_in_forked_processes_give_the_serial_model():
    """``n_jobs=2`` trains the grid (and the unary-only search) in two forked processes;
    the choice, the weights, the evidence and the logged lines (in order) are those of one
    process."""
    import re

    rng = np.random.default_rng(5)
    train = [_graph(rng, n=24, noise=1.0, smooth=True) for _ in range(6)]
    valid = [_graph(rng, n=24, noise=1.0, smooth=True) for _ in range(5)]
    kw = dict(FAST, class_weight="auto", eta_scale="auto", n_iter=6, min_valid=5)
    la, lb = [], []
    a = MRFSegmenter(n_jobs=1, **kw).fit(train, eval_set=valid, log=la.append)
    b = MRFSegmenter(n_jobs=2, **kw).fit(train, eval_set=valid, log=lb.append)
    assert len(a.selection_) == len(b.selection_) == 8      # 4 MRF and 4 unary-only candidates
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.guard_ == b.guard_ and a.chosen_["class_weight"] == b.chosen_["class_weight"]
    assert [r["valid_score"] for r in a.selection_] == [r["valid_score"] for r in b.selection_]
    assert set(a.candidates_) == {"unary", "mrf", "mrf x 0.5", "mrf x 1.5", "mrf x 2", "mrf x 3"}
    untimed = (lambda lines: [re.sub(r"\d+s\)", "s)", x) for x in lines])
    assert untimed(la) == untimed(lb) and len(la) >= 8
    assert MRFSegmenter(n_jobs=3)._jobs(2) == 2
    # joblib's and scikit-learn's convention: None one job, -1 (the default) every CPU
    from structpred.parallel import usable_cpus

    assert MRFSegmenter(n_jobs=None)._jobs(100) == 1
    assert MRFSegmenter()._jobs(100) == MRFSegmenter(n_jobs=-1)._jobs(100) == usable_cpus()


def test_refit_trains_the_kept_candidate_on_all_training_items():
    """``refit=True``: with validation items held out of the training items, the kept
    candidate is trained again on all of them for 1 + its best iteration (eq. 7), with its
    class weight, step and edge factor, by the same fixed-iteration training that the
    cross-validated choice ends with; with ``eval_set`` nothing is refitted."""
    rng = np.random.default_rng(7)
    graphs = [_graph(rng, noise=1.0, smooth=True) for _ in range(24)]
    kw = dict(FAST, min_valid=3, valid_fraction=0.25)
    lines = []
    a = MRFSegmenter(**kw).fit(graphs)
    b = MRFSegmenter(refit=True, **kw).fit(graphs, log=lines.append)
    assert a.n_valid_ == b.n_valid_ == 6 and a.n_train_ == 18
    assert b.n_train_ == 24                                  # the held-out items went back
    kept = a.chosen_["edges"]
    assert b.chosen_["edges"] == kept and b.guard_ == a.guard_   # the same choice
    t = a.chosen_["best_iter"] + 1
    assert b.chosen_["refit"] and b.chosen_["refit_iterations"] == t
    final = [r for r in b.selection_ if r.get("refit")]
    assert len(final) == 1 and final[0]["n_iter"] == t and final[0]["n_train"] == 24
    assert any(f"trained again on all 24 scans (6 of them the validation ones) for {t} "
               "iterations (refit)" in line for line in lines), lines
    assert not np.array_equal(a.coef_, b.coef_)
    if kept == "unary":
        assert np.all(b.edge_weights_ == 0)
    # eval_set: nothing held out of the training items, nothing refitted
    c = MRFSegmenter(refit=True, **kw).fit(graphs[:18], eval_set=graphs[18:])
    assert c.n_train_ == 18 and not c.chosen_.get("refit")
    with pytest.raises(ValueError, match="refit"):
        MRFSegmenter(refit="yes")._check_params()



def test_segment_train_without_jobs_uses_every_cpu():
    """``--jobs`` not given is the estimator's default, -1 (every CPU): ``MRFSegmenter``'s
    default was ``None`` read as every CPU, which scikit-learn reads as one job."""
    import argparse

    from segmentation.cli import _model_from_args, add_parser

    ap = argparse.ArgumentParser()
    add_parser(ap.add_subparsers(), "segment")
    for given, expected in (([], -1), (["--jobs", "1"], 1), (["--jobs", "3"], 3)):
        args = ap.parse_args(["segment", "train", "--images", "i", "--masks", "m", "-o",
                              "x.npz", *given])
        assert _model_from_args(args).n_jobs == expected


def _first_pass_setup(graphs, **kw):
    """An unfitted segmenter and the prepared training graphs, as ``fit`` has them before
    its first pass (no validation held out)."""
    from segmentation.examples import prepare_graphs

    m = MRFSegmenter(n_segments=120, n_iter=6, class_weight=None, eta_scale=3.0,
                     valid_fraction=0, validate_every=2, **kw)
    m._check_params()
    m.kind_ = "image"
    prep, _ = prepare_graphs(list(graphs), False, 0.0, None, "s0", "image", True)
    return m, prep


def test_training_colour_models_are_fitted_to_out_of_fold_scores(horses):
    """With ``colour_folds`` K, training image i's colour features come from the first pass
    trained on the other folds (eq. 8): equal to augmenting the base graph with that model,
    and different from the in-sample first pass's; ``colour_folds=0`` is in-sample."""
    _, graphs = horses
    m, prep = _first_pass_setup(graphs, colour_folds=2)
    base = [g.node_features.copy() for g in prep.kept]
    m._colour_pass(prep, None, lambda s: None)
    full = (m.first_pass_coef_, m.first_pass_mean_, m.first_pass_std_)
    for f in range(2):
        rest = [g for i, g in enumerate(graphs) if i % 2 != f]
        ref = MRFSegmenter(n_segments=120, n_iter=6, class_weight=None, eta_scale=3.0,
                           valid_fraction=0, validate_every=2, colour_model=False,
                           use_edges=False, guard=False).fit(rest)
        assert not np.allclose(ref.coef_, full[0])
        for i in range(f, len(graphs), 2):
            want = m._augment(graphs[i], (ref.coef_, ref.feature_mean_, ref.feature_std_))
            np.testing.assert_allclose(prep.kept[i].node_features, want.node_features,
                                       rtol=1e-9, atol=1e-9)
            np.testing.assert_array_equal(prep.kept[i].node_features[:, :base[i].shape[1]],
                                          base[i])
    m0, prep0 = _first_pass_setup(graphs, colour_folds=0)
    m0._colour_pass(prep0, None, lambda s: None)
    for g, g0 in zip(graphs, prep0.kept):
        np.testing.assert_array_equal(g0.node_features, m0._augment(g).node_features)
    assert any(not np.allclose(a.node_features, b.node_features)
               for a, b in zip(prep.kept, prep0.kept))


def test_colour_folds_is_checked():
    for bad in (-1, 2.5, "3", True):
        with pytest.raises((ValueError, TypeError), match="colour_folds"):
            MRFSegmenter(colour_folds=bad)._check_params()
    MRFSegmenter(colour_folds=0)._check_params()


def test_cross_fitted_first_pass_from_the_disk_cache_matches_in_memory(horses, tmp_path):
    """``colour_folds`` on graphs streamed from the disk cache (``memory_efficient``) gives
    the model trained in memory."""
    _, graphs = horses
    kw = dict(n_segments=120, n_iter=3, class_weight=None, eta_scale=3.0, valid_fraction=0,
              colour_folds=2, guard=False)
    a = MRFSegmenter(**kw).fit(graphs[:4])
    b = MRFSegmenter(memory_efficient=True, cache_dir=str(tmp_path), **kw).fit(iter(graphs[:4]))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    c = MRFSegmenter(**dict(kw, colour_folds=0)).fit(graphs[:4])
    assert not np.allclose(a.coef_, c.coef_)
