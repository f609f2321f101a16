"""Data loading, features and bad-input errors of the segmentation module (real data)."""

import gzip

import numpy as np
import pytest
from PIL import Image

from segmentation.data import (bundled_data_dir, horse_items, load_mask, load_pair, load_points,
                               read_manifest)
from segmentation.features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES, superpixel_graph
from segmentation.points import POINT_FEATURE_NAMES, point_graph, vegetation_labels
from structpred import FormatError

DATA = bundled_data_dir()
OAKLAND = DATA / "oakland3d_part2" / "oakland_part2_01.xyz_label_conf.gz"


@pytest.fixture(scope="module")
def horse():
    item = horse_items(DATA, "train")[0]
    return load_pair(item.image, item.mask)


def test_manifest_lists_bundled_images():
    items = horse_items(DATA)
    assert len(items) == 40
    assert {it.split for it in items} == {"train", "test"}
    assert all(it.image.exists() and it.mask.exists() for it in items)


def test_superpixel_features_on_a_real_image(horse):
    img, mask = horse
    g = superpixel_graph(img, mask, n_segments=200)
    n = g.n_nodes
    assert 100 <= n <= 300
    assert g.node_features.shape == (n, len(NODE_FEATURE_NAMES))
    assert np.all(np.isfinite(g.node_features))
    assert g.edge_features.shape == (g.edges.shape[0], len(EDGE_FEATURE_NAMES))
    assert np.all(g.edge_features >= 0)
    assert np.all(g.edges[:, 0] < g.edges[:, 1])  # simple, undirected, unique
    assert len(np.unique(g.edges, axis=0)) == len(g.edges)
    assert g.sizes.sum() == img.shape[0] * img.shape[1]
    # the superpixel "oracle" (majority labels) is close to the pixel truth
    assert (g.to_pixels(g.node_labels()) == mask).mean() > 0.93
    # histograms sum to one per channel; the bias is constant
    names = list(NODE_FEATURE_NAMES)
    hist_L = [names.index(f"hist_L_{b}") for b in range(8)]
    np.testing.assert_allclose(g.node_features[:, hist_L].sum(1), 1.0)
    assert np.all(g.node_features[:, names.index("bias")] == 1.0)
    # deterministic
    g2 = superpixel_graph(img, mask, n_segments=200)
    np.testing.assert_array_equal(g.labels, g2.labels)
    np.testing.assert_allclose(g.node_features, g2.node_features)


def test_boundary_gradient_edge_features():
    """Low across a colour step, one inside flat regions, bounded by the boundary length."""
    img = np.zeros((60, 80, 3), np.uint8)
    img[:, :40] = (200, 40, 40)
    img[:, 40:] = (30, 30, 220)
    g = superpixel_graph(img, n_segments=24)
    names = list(EDGE_FEATURE_NAMES)
    length = g.edge_features[:, names.index("boundary_length")]
    total = g.edge_features[:, names.index("gradient_exp")]
    total_sq = g.edge_features[:, names.index("gradient_exp_sq")]
    mean = g.edge_features[:, names.index("gradient_exp_mean")]
    assert np.all(total <= length + 1e-12) and np.all(total_sq <= length + 1e-12)
    assert np.all((mean >= 0) & (mean <= 1))
    np.testing.assert_allclose(mean, total / length)
    # which side of the step each superpixel lies on
    left = np.bincount(g.labels.ravel(), weights=(np.arange(80) < 40)[None, :].repeat(60, 0).ravel()) / g.sizes
    assert np.all((left < 0.01) | (left > 0.99))  # SLIC follows the step
    side = left > 0.5
    across = side[g.edges[:, 0]] != side[g.edges[:, 1]]
    assert across.any() and (~across).any()
    assert mean[across].max() < 0.05
    # flat boundaries far from the step: no gradient at all
    cols = np.array([np.mean(np.nonzero(g.labels == j)[1]) for j in range(g.n_nodes)])
    far = ~across & (np.abs(cols[g.edges[:, 0]] - 40) > 15) & (np.abs(cols[g.edges[:, 1]] - 40) > 15)
    assert far.any()
    np.testing.assert_allclose(mean[far], 1.0)


def test_point_features_on_a_real_scan():
    xyz, lab = load_points(OAKLAND, max_points=4000)
    y = vegetation_labels(lab)
    g = point_graph(xyz, y, voxel=0.3, k_graph=5)
    assert g.node_features.shape == (g.n_nodes, len(POINT_FEATURE_NAMES))
    assert np.all(np.isfinite(g.node_features))
    assert np.all(g.edge_features >= 0) and g.edges.shape[0] >= g.n_nodes
    assert g.to_pixels(g.node_labels()).shape == (4000,)
    assert (g.to_pixels(g.node_labels()) == y.astype(bool)).mean() > 0.95
    # eigenvalue features are shares in [0, 1]
    assert g.node_features[:, :3].min() >= 0 and g.node_features[:, :3].max() <= 1 + 1e-9


# ---------------------------------------------------------------- bad input
def test_mask_of_different_size_is_rejected(tmp_path, horse):
    img, mask = horse
    p_img, p_mask = tmp_path / "a.png", tmp_path / "a_mask.png"
    Image.fromarray(img).save(p_img)
    Image.fromarray((mask[:-3] * 255).astype(np.uint8)).save(p_mask)
    with pytest.raises(FormatError, match=r"a_mask\.png.*mask is .* but image"):
        load_pair(p_img, p_mask)


def test_non_binary_mask_is_rejected(tmp_path):
    p = tmp_path / "grey.png"
    Image.fromarray(np.array([[0, 128], [255, 0]], dtype=np.uint8)).save(p)
    with pytest.raises(FormatError, match=r"grey\.png: mask is not binary"):
        load_mask(p)


def test_binary_masks_in_both_conventions_are_accepted(tmp_path):
    for vals in ((0, 255), (0, 1)):
        p = tmp_path / f"m{vals[1]}.png"
        Image.fromarray(np.array([[vals[0], vals[1]]], dtype=np.uint8)).save(p)
        np.testing.assert_array_equal(load_mask(p), [[False, True]])


def test_empty_point_file_is_rejected(tmp_path):
    p = tmp_path / "empty.xyz"
    p.write_text("")
    with pytest.raises(FormatError, match=r"empty\.xyz: point file is empty"):
        load_points(p)
    q = tmp_path / "empty.xyz.gz"
    with gzip.open(q, "wt") as fh:
        fh.write("\n")
    with pytest.raises(FormatError, match="point file is empty"):
        load_points(q)


def test_nan_coordinates_are_rejected(tmp_path):
    p = tmp_path / "nan.xyz"
    p.write_text("0 0 0 1300 2\n1 nan 0 1200 2\n")
    with pytest.raises(FormatError, match=r"nan\.xyz: 1 points have NaN"):
        load_points(p)


def test_ragged_and_non_numeric_point_files_are_rejected(tmp_path):
    p = tmp_path / "ragged.xyz"
    p.write_text("0 0 0 1300\n1 1 1\n")
    with pytest.raises(FormatError, match=r"ragged\.xyz:2: 3 columns, expected 4"):
        load_points(p)
    q = tmp_path / "text.xyz"
    q.write_text("0 0 zero 1300\n")
    with pytest.raises(FormatError, match="non-numeric"):
        load_points(q)


def test_manifest_without_id_column(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("name,split\nx,train\n")
    with pytest.raises(FormatError, match="'id' column"):
        read_manifest(p)
