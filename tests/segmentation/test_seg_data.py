"""Data loading, features and bad-input errors of the segmentation module (real data)."""

import gzip

import numpy as np
import pytest
from PIL import Image

from segmentation.data import (binary_labels, bundled_data_dir, horse_items, load_mask, load_pair, load_points,
                               read_manifest)
from segmentation.features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES, superpixel_graph
from segmentation.data import binary_labels, parse_label_ranges
from segmentation.points import POINT_FEATURE_NAMES, point_graph

VEGETATION = parse_label_ranges("1300-1306")  # the Oakland task of the experiments
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
    y = binary_labels(lab, VEGETATION)
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
    with pytest.raises(FormatError, match=r"nan\.xyz:2: 1 point has NaN"):
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
    with pytest.raises(FormatError, match="'id' .*column"):
        read_manifest(p)


# ---------------------------------------------------------------- new features, by name
def _col(g, name):
    return g.node_features[:, list(NODE_FEATURE_NAMES).index(name)]


def _ecol(g, name):
    return g.edge_features[:, list(EDGE_FEATURE_NAMES).index(name)]


def test_texture_shape_and_context_features(horse):
    img, mask = horse
    g = superpixel_graph(img, mask, n_segments=200)
    H, W = mask.shape
    # LBP: a histogram per superpixel
    lbp = np.stack([_col(g, f"lbp_{b}") for b in range(10)], axis=1)
    np.testing.assert_allclose(lbp.sum(1), 1.0)
    assert lbp.min() >= 0
    # shape: relative area averages 1; elongation and fill in [0, 1]
    np.testing.assert_allclose(_col(g, "shape_area").mean(), 1.0)
    assert np.all((_col(g, "shape_elongation") >= 0) & (_col(g, "shape_elongation") <= 1))
    assert np.all((_col(g, "shape_fill") > 0) & (_col(g, "shape_fill") <= 1))
    # border contact: positive exactly for superpixels with a pixel on the frame
    frame = np.zeros((H, W), bool)
    frame[0, :] = frame[-1, :] = frame[:, 0] = frame[:, -1] = True
    touching = np.zeros(g.n_nodes, bool)
    touching[np.unique(g.labels[frame])] = True
    np.testing.assert_array_equal(_col(g, "border_contact") > 0, touching)
    # colour relative to the image: size-weighted mean zero
    for c in "Lab":
        assert abs(np.average(_col(g, f"lab_rel_{c}"), weights=g.sizes)) < 1e-9
    # context: the boundary-weighted neighbour mean lies within the neighbours' range
    j = int(np.argmax(np.bincount(g.edges.ravel())))
    nb = np.unique(np.concatenate([g.edges[g.edges[:, 0] == j, 1], g.edges[g.edges[:, 1] == j, 0]]))
    ctx, own = _col(g, "context_lab_L"), _col(g, "lab_mean_L")
    assert own[nb].min() - 1e-12 <= ctx[j] <= own[nb].max() + 1e-12
    # the centre colour model favours the horse on this image (it stands in the middle)
    fg = g.fg_fraction > 0.5
    assert _col(g, "centre_colour_llr")[fg].mean() > _col(g, "centre_colour_llr")[~fg].mean()
    assert _col(g, "border_colour_llr")[fg].mean() < _col(g, "border_colour_llr")[~fg].mean()


def test_texture_and_colour_contrast_edge_features():
    rng = np.random.default_rng(0)
    img = np.zeros((60, 80, 3), np.uint8)
    img[:, :40] = (200, 40, 40)
    img[:, 40:] = (30, 30, 220)
    img[:, 40:] = np.clip(img[:, 40:] + rng.integers(-40, 40, (60, 40, 3)), 0, 255)  # textured
    g = superpixel_graph(img, n_segments=24)
    length = _ecol(g, "boundary_length")
    left = np.bincount(g.labels.ravel(), weights=(np.arange(80) < 40)[None, :].repeat(60, 0).ravel()) / g.sizes
    side = left > 0.5
    across = side[g.edges[:, 0]] != side[g.edges[:, 1]]
    for name in ("texture_similarity", "colour_hist_similarity"):
        v = _ecol(g, name)
        assert np.all(v >= 0) and np.all(v <= length + 1e-12)
        # relative to the boundary length, lower across the step than within either side
        assert (v / length)[across].max() < (v / length)[~across].mean()


def test_ignored_pixels_leave_the_labels_and_the_loss(horse):
    from scipy import ndimage

    img, mask = horse
    band = ndimage.binary_dilation(mask, iterations=3) & ~ndimage.binary_erosion(mask, iterations=3)
    g = superpixel_graph(img, mask, n_segments=200, ignore=band)
    assert g.ignore is not None and g.ignore.sum() == band.sum()
    n_ign = np.bincount(g.labels.ravel(), weights=band.ravel(), minlength=g.n_nodes)
    np.testing.assert_allclose(g.loss_sizes(), g.sizes - n_ign)
    scored = g.loss_sizes() > 0
    fg_scored = np.bincount(g.labels.ravel(), weights=(mask & ~band).ravel(), minlength=g.n_nodes)
    np.testing.assert_allclose(g.fg_fraction[scored], fg_scored[scored] / g.loss_sizes()[scored])
    assert np.all((g.fg_fraction >= 0) & (g.fg_fraction <= 1))
    # a superpixel of ignored pixels only is labelled like its neighbours
    g2 = superpixel_graph(img, mask, n_segments=200, ignore=np.ones_like(mask) & (g.labels == 0))
    assert g2.loss_sizes()[0] == 0 and 0 <= g2.fg_fraction[0] <= 1


def test_foreground_label_ranges():
    assert parse_label_ranges("1300-1306, 1400") == ((1300, 1306), (1400, 1400))
    np.testing.assert_array_equal(binary_labels([1299, 1300, 1306, 1307, 1400], ((1300, 1306), (1400, 1400))),
                                  [0, 1, 1, 0, 1])
    for bad in ("", "a-b", "7-3", "1-2-3"):
        with pytest.raises(ValueError):
            parse_label_ranges(bad)
