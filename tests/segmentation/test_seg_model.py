"""The MRF segmenter end to end on a few real (bundled) horse images."""

import numpy as np
import pytest

from segmentation.data import bundled_data_dir, horse_items, load_pair
from segmentation.model import LEARNERS, MRFSegmenter

SETTINGS = dict(n_segments=150, feature_scale=0.02, validate_every=10)


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
        m = MRFSegmenter(n_iter=60, use_edges=use_edges, **SETTINGS).fit_graphs(graphs)
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
    m = MRFSegmenter(learner=learner, n_iter=4, **SETTINGS).fit_graphs(graphs[:3], graphs[3:4])
    assert m.coef_.shape == (m.n_node_features_ + m.n_edge_features_,)
    assert np.all(m.edge_weights_ >= 0)
    assert len(m.history_["validation"]) >= 1


def test_memory_efficient_streaming_matches_in_memory(horses, tmp_path):
    _, graphs = horses
    a = MRFSegmenter(n_iter=6, **SETTINGS).fit_graphs(graphs[:3])
    b = MRFSegmenter(n_iter=6, memory_efficient=True, cache_dir=str(tmp_path),
                     **SETTINGS).fit_graphs(iter(graphs[:3]))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)
    assert len(list(tmp_path.glob("*.npz"))) == 3


def test_save_load_predict_roundtrip(horses, tmp_path):
    pairs, graphs = horses
    m = MRFSegmenter(n_iter=5, **SETTINGS).fit_graphs(graphs[:3])
    m.save(tmp_path / "m.npz")
    m2 = MRFSegmenter.load(tmp_path / "m.npz")
    assert m2.get_params() == m.get_params()
    img, mask = pairs[4]
    p1, p2 = m.predict([img])[0], m2.predict([img])[0]
    assert p1.shape == mask.shape and p1.dtype == bool
    np.testing.assert_array_equal(p1, p2)
    assert 0.0 <= m2.score([img], [mask]) <= 1.0
    with pytest.raises(ValueError, match="not a structpred segmentation model"):
        MRFSegmenter.load(tmp_path / "missing.npz")


def test_bad_arguments():
    with pytest.raises(ValueError, match="learner"):
        MRFSegmenter(learner="svm").fit_graphs([])
    with pytest.raises(ValueError, match="no training data"):
        MRFSegmenter().fit_graphs([])
    img = np.zeros((10, 10, 3), np.uint8)
    with pytest.raises(ValueError, match="different lengths"):
        MRFSegmenter().fit([img, img], [np.zeros((10, 10), bool)])
