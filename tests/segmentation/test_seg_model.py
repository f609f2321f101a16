"""The MRF segmenter end to end on a few real (bundled) horse images."""

import numpy as np
import pytest

from segmentation.data import bundled_data_dir, horse_items, load_pair
from segmentation.model import LEARNERS, MRFSegmenter

SETTINGS = dict(n_segments=150, feature_scale=0.02, validate_every=10, class_weight="balanced",
                eta_scale=1.0, valid_fraction=0, colour_model=False)


@pytest.fixture(scope="module")
def horses():
    items = horse_items(bundled_data_dir(), "train")[:6]
    pairs = [load_pair(it.image, it.mask) for it in items]
    proto = MRFSegmenter(**SETTINGS)
    return pairs, [proto.image_graph(img, mask) for img, mask in pairs]


def test_mrf_beats_unary_only_on_training_images(horses):
    _, graphs = horses
    ious = {}
    for use_edges in (False, True):
        m = MRFSegmenter(n_iter=60, use_edges=use_edges, **SETTINGS).fit(graphs)
        ious[use_edges] = m._scores_on_graphs(m.coef_, graphs).iou
        if use_edges:
            assert np.all(m.edge_weights_ >= 0)
            assert m.edge_weights_.max() > 0
            # the training hinge loss went down along the path
            assert m.history_["hinge"][-1] < 0.5 * m.history_["hinge"][0]
    assert ious[True] > ious[False], ious


@pytest.mark.parametrize("learner", LEARNERS)
def test_every_learner_keeps_edge_weights_nonnegative(horses, learner):
    _, graphs = horses
    m = MRFSegmenter(learner=learner, n_iter=4, guard=False, **SETTINGS).fit(graphs[:3], eval_set=graphs[3:4])
    assert m.coef_.shape == (m.n_node_features_ + m.n_edge_features_,)
    assert np.all(m.edge_weights_ >= 0)
    assert len(m.history_["validation"]) >= 1


def test_memory_efficient_streaming_matches_in_memory(horses, tmp_path):
    _, graphs = horses
    a = MRFSegmenter(n_iter=6, **SETTINGS).fit(graphs[:3])
    b = MRFSegmenter(n_iter=6, memory_efficient=True, cache_dir=str(tmp_path),
                     **SETTINGS).fit(iter(graphs[:3]))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    assert len(list(tmp_path.glob("*.npz"))) == 3


def test_save_load_predict_roundtrip(horses, tmp_path):
    pairs, graphs = horses
    m = MRFSegmenter(n_iter=5, **SETTINGS).fit(graphs[:3])
    m.save(tmp_path / "m.npz")
    m2 = MRFSegmenter.load(tmp_path / "m.npz")
    assert m2.get_params() == m.get_params()
    img, mask = pairs[4]
    p1, p2 = m.predict([img])[0], m2.predict([img])[0]
    assert p1.shape == mask.shape and p1.dtype == bool
    np.testing.assert_array_equal(p1, p2)
    assert 0.0 <= m2.score([img], [mask]) <= 1.0
    with pytest.raises(ValueError, match="missing.npz: no such model file"):
        MRFSegmenter.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(ValueError, match="junk.npz: .*not a structpred segmentation model"):
        MRFSegmenter.load(tmp_path / "junk.npz")


def test_bad_arguments():
    with pytest.raises(ValueError, match="learner"):
        MRFSegmenter(learner="svm").fit([])
    with pytest.raises(ValueError, match="no training data"):
        MRFSegmenter().fit([])
    img = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(ValueError, match="different lengths"):
        MRFSegmenter().fit([img, img], [np.zeros((10, 10), bool)])


def test_choices_are_made_on_validation(horses):
    """class weight x step grid, each with early stopping; the best validation IoU wins;
    with more training graphs than selection_size the grid runs on a subset and only the
    winner is trained on all of them."""
    _, graphs = horses
    m = MRFSegmenter(n_segments=150, n_iter=6, validate_every=2, patience=2,
                     class_weight=(None, "balanced"), eta_scale=(1.0, 3.0), selection_size=3,
                     guard=False, colour_model=False)
    m.fit(graphs[:4], eval_set=graphs[4:])
    grid = [r for r in m.selection_ if not r.get("final")]
    assert [(r["class_weight"], r["eta_scale"]) for r in grid] == [
        (None, 1.0), (None, 3.0), ("balanced", 1.0), ("balanced", 3.0)]
    assert all(r["n_train"] == 3 for r in grid)
    best = max(grid, key=lambda r: r["valid_score"])
    final = m.selection_[-1]
    assert final["final"] and final["n_train"] == 4
    assert (final["class_weight"], final["eta_scale"]) == (best["class_weight"], best["eta_scale"])
    assert m.chosen_ == final and m.validated_
    # without validation data, every 1/0.15-th graph is held out (here graph 3 of 5)
    m2 = MRFSegmenter(n_segments=150, n_iter=2, validate_every=1, class_weight=None,
                      eta_scale=1.0, guard=False).fit(graphs[:5])
    assert m2.n_train_ == 4 and m2.n_valid_ == 1 and m2.validated_
