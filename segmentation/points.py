"""k-nearest-neighbour graphs and local-geometry features for 3-D point clouds.

The Oakland scans have 100,000 points each; they are first thinned by a
voxel grid (one point per ``voxel``-sized cube, the first in file order), and
every original point is evaluated with the label of its voxel's node.

Node features ``f_n`` (per node, from its ``k`` nearest neighbours in the
*full* cloud, each position once however often the scan repeats it, at two scales
``k = 10`` and ``k = 30``; standardised with training statistics by the model):

* the eigenvalues ``l1 >= l2 >= l3`` of the neighbourhood covariance, as
  linearity ``(l1 - l2) / l1``, planarity ``(l2 - l3) / l1`` and
  scattering ``l3 / l1``;
* verticality of the normal (``|n_z|`` of the eigenvector of ``l3``) and of
  the principal direction (``|e1_z|``);
* the neighbourhood's vertical spread (standard deviation of z);
* height above the local minimum: ``z - min z`` over a 3x3 block of
  ``cell``-metre columns around the point, and that height squared / 10;
* a constant 1.

Edges: the symmetrised ``k_graph``-nearest-neighbour graph of the nodes.
Edge features (non-negative): a constant 1 and ``exp(-d^2 / (2 sigma^2))``
with ``d`` the edge length and ``sigma`` the median edge length of the scan.

The graph also keeps the scan's point spacing (:func:`point_spacing`): a fitted model
keeps its training scans', and a scan whose spacing is :data:`SPACING_FACTOR` times
larger or smaller is refused (:func:`check_spacing`): its coordinates are in other units
(feet, inches, centimetres or millimetres), which the voxel size, the 2 m ground cells and
the heights read as metres.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import SegmentationGraph

__all__ = ["PointGraph", "point_graph", "voxel_subsample", "point_spacing", "check_spacing",
           "check_training_spacings", "check_label_column",
           "SPACING_FACTOR", "POINT_FEATURE_NAMES", "POINT_EDGE_FEATURE_NAMES"]

_SCALES = (10, 30)
POINT_FEATURE_NAMES = tuple(
    [f"{name}_k{k}" for k in _SCALES for name in
     ("linearity", "planarity", "scattering", "normal_verticality", "principal_verticality", "z_std")]
    + ["height_above_min", "height_above_min_sq", "bias"])
POINT_EDGE_FEATURE_NAMES = ("constant", "distance_similarity")


@dataclass
class PointGraph(SegmentationGraph):
    """A thinned point cloud as a graph (same interface as ``SuperpixelGraph``).

    ``labels`` maps each *original* point to its node and ``mask`` holds the
    original points' binary truth, so predictions are scored on every point.
    """

    xyz: np.ndarray
    node_features: np.ndarray
    edges: np.ndarray
    edge_features: np.ndarray
    sizes: np.ndarray
    fg_fraction: np.ndarray | None = None
    labels: np.ndarray | None = None
    mask: np.ndarray | None = None
    #: :func:`point_spacing` of the scan (a 0-d array; None: a graph made by hand)
    spacing: np.ndarray | None = None

    _ARRAYS = ("xyz", "node_features", "edges", "edge_features", "sizes")
    _OPTIONAL = ("fg_fraction", "labels", "mask", "spacing")


def voxel_subsample(xyz, voxel):
    """One point per voxel (the first in order).  Returns ``(keep, assign)``:
    indices of the kept points and, for every point, the index of its node."""
    keys = np.floor((xyz - xyz.min(axis=0)) / voxel).astype(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # nodes in file order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.ravel()]


def _eigen_features(xyz_all, tree, query, k):
    _, nbr = tree.query(query, k=k)
    P = xyz_all[nbr]  # (n, k, 3)
    C = P - P.mean(axis=1, keepdims=True)
    cov = np.einsum("nki,nkj->nij", C, C) / k
    evals, evecs = np.linalg.eigh(cov)  # ascending
    l3, l2, l1 = (np.maximum(evals[:, i], 0.0) for i in range(3))
    l1s = np.maximum(l1, 1e-12)
    return np.stack([(l1 - l2) / l1s, (l2 - l3) / l1s, l3 / l1s, np.abs(evecs[:, 2, 0]),
                     np.abs(evecs[:, 2, 2]), P[:, :, 2].std(axis=1)], axis=1)


def _height_above_min(xyz, query, cell):
    xy0 = xyz[:, :2].min(axis=0)
    ij = np.floor((xyz[:, :2] - xy0) / cell).astype(np.int64)
    ni, nj = ij.max(axis=0) + 3
    zmin = np.full((ni, nj), np.inf)
    np.minimum.at(zmin, (ij[:, 0] + 1, ij[:, 1] + 1), xyz[:, 2])
    # 3x3 block minimum
    from scipy.ndimage import minimum_filter

    zmin = minimum_filter(zmin, size=3, mode="constant", cval=np.inf)
    q = np.floor((query[:, :2] - xy0) / cell).astype(np.int64) + 1
    q = np.clip(q, 0, [ni - 1, nj - 1])
    return query[:, 2] - zmin[q[:, 0], q[:, 1]]


#: the most neighbours per node of the kNN graph (memory and time grow with n x k)
MAX_K_GRAPH = 256


#: the most cells of the ground grid (``cell`` metres square) of one scan: 2**28 cells
#: of 8 bytes (2 GiB), a scan 32 km across in metres
MAX_GROUND_CELLS = 2 ** 28


def _check_sizes(xyz, voxel, k_graph, cell=2.0):
    """Refuse sizes that do not fit the data, before anything is allocated; a scan whose
    ground grid of ``cell``-metre columns exceeds :data:`MAX_GROUND_CELLS` is named as
    one whose coordinates may be in millimetres or centimetres (the features read them as
    metres; the grid ran out of memory: "out of memory: the sizes asked for ...")."""
    if not (isinstance(k_graph, (int, np.integer)) and 1 <= k_graph <= MAX_K_GRAPH):
        raise ValueError(f"k_graph={k_graph!r} (--k-graph): neighbours per node must be an "
                         f"integer from 1 to {MAX_K_GRAPH}")
    if not (np.isfinite(voxel) and voxel > 0):
        raise ValueError(f"voxel={voxel!r} (--voxel): the voxel size must be a positive number")
    extent = float(np.max(xyz.max(axis=0) - xyz.min(axis=0)))
    if extent / voxel > 2.0 ** 40:
        raise ValueError(f"voxel size {voxel:g} m (--voxel) is too small for a scan "
                         f"{extent:g} m across")
    dx, dy = (xyz.max(axis=0) - xyz.min(axis=0))[:2]
    if (dx / cell + 3) * (dy / cell + 3) > MAX_GROUND_CELLS:
        raise ValueError(f"the scan spans {dx:.0f} x {dy:.0f} in its coordinates' units, read "
                         f"as metres (the point features' unit): {dx / 1000:.0f} x "
                         f"{dy / 1000:.0f} km, beyond a scan's size; are its coordinates in "
                         "millimetres or centimetres? divide them by 1000 or 100")


#: how many times larger or smaller than the training scans' a scan's point spacing may
#: be: the ten Oakland part-2 scans are 0.040 to 0.071 m, 1.79x apart, each within 1.46x
#: of the median of the other nine (a model's), so 2.2x is that spread times a margin of
#: 1.5; any of them in feet is 2.25x to 4.4x the others' median, in inches 27x to 52x, so
#: feet, inches, centimetres and millimetres are refused (docs/results/segmentation.md);
#: it was 20x, which let feet and inches through
SPACING_FACTOR = 2.2

#: units of coordinates, by how many times a metre they are
_UNITS = {"feet": 3.2808, "inches": 39.370, "centimetres": 100.0, "millimetres": 1000.0}


def _likely_units(ratio):
    """The units (of :data:`_UNITS`) whose size against a metre is within
    :data:`SPACING_FACTOR` of ``ratio`` (>= 1), nearest first (the nearest alone when none
    is: a scan thinned or densified against the training scans moves the ratio too)."""
    gap = {u: abs(np.log(ratio / f)) for u, f in _UNITS.items()}
    near = sorted((u for u in gap if gap[u] < np.log(SPACING_FACTOR)), key=gap.get)
    return near or [min(gap, key=gap.get)]

#: the points whose nearest neighbour :func:`point_spacing` measures, at most
_SPACING_SAMPLE = 5000


def point_spacing(xyz, tree=None):
    """The scan's point spacing: the median distance from a point to its nearest other
    point (repeated points skipped), over every ``ceil(N / 5000)``-th point; ``None`` when
    every point is one place.  In the coordinates' units (metres for Oakland: 0.040 to
    0.071 in its ten part-2 scans)."""
    from scipy.spatial import cKDTree

    xyz = np.asarray(xyz, dtype=np.float64)
    if xyz.shape[0] < 2:
        return None
    tree = cKDTree(xyz) if tree is None else tree
    step = -(-xyz.shape[0] // _SPACING_SAMPLE)
    k = min(xyz.shape[0], 8)   # past a few repeats of the point itself
    dist, _ = tree.query(xyz[::step], k=k)
    # each point's nearest other place: its smallest non-zero distance
    near = np.where(dist > 0, dist, np.inf).min(axis=1)
    near = near[np.isfinite(near)]
    return float(np.median(near)) if near.size else None


def check_spacing(spacing, trained, against="the training scans'"):
    """Refuse a scan whose :func:`point_spacing` ``spacing`` is :data:`SPACING_FACTOR`
    times the training scans' ``trained`` or more, or as many times less (``None``
    for either: nothing to compare); ``against`` names whose spacing ``trained`` is."""
    if spacing is None or trained is None:
        return
    spacing, trained = float(spacing), float(trained)
    if not (spacing > 0 and trained > 0):
        return
    ratio = spacing / trained
    if 1 / SPACING_FACTOR < ratio < SPACING_FACTOR:
        return
    big = max(ratio, 1 / ratio)
    big = f"{big:.0f}" if big >= 100 else f"{big:.3g}"
    times = f"{big} times" if ratio > 1 else f"1/{big} of"
    scan = " or ".join(_likely_units(max(ratio, 1 / ratio)))
    units = (f"{scan} where those are in metres" if ratio > 1 else
             f"metres where those are in {scan}")
    raise ValueError(f"the scan's point spacing is {spacing:.4g} (median distance to the "
                     f"nearest point), {times} {against} {trained:.4g}: are its coordinates "
                     f"in other units ({units})? the features read them in the training "
                     f"scans' units (scans in one unit are within {SPACING_FACTOR:g} times "
                     "of each other's spacing; a scan thinned or densified beyond that is "
                     "refused too)")


def check_training_spacings(spacings):
    """Refuse the training scan farthest from the median of the training scans' point
    spacings when its spacing is :data:`SPACING_FACTOR` times the median of the other
    scans' or more, or as many times less (:func:`check_spacing`).

    ``spacings``: ``(position, spacing)`` of each training scan, ``position`` its 0-based
    place among the scans given.  Checked with three scans or more, where the median is a
    scan in the training scans' units whatever one scan's units are: a scan in feet among
    scans in metres is 2.25x their median at least (the densest Oakland scan), where
    against any one other scan it can be 1.83x (a sparser one).  With two scans, the
    command checks the second against the first as it reads it."""
    items = [(int(i), float(v)) for i, v in spacings if v is not None and float(v) > 0]
    if len(items) < 3:
        return
    med = float(np.median([v for _, v in items]))
    k = max(range(len(items)), key=lambda j: abs(np.log(items[j][1] / med)))
    (i, v), others = items[k], [w for j, (_, w) in enumerate(items) if j != k]
    try:   # the farthest scan against the others' median, as the model checks a new scan
        check_spacing(v, float(np.median(others)),
                      against=f"the median of the other {len(others)} training scans'")
    except ValueError as exc:
        raise ValueError(f"training scan {i + 1} (of the scans given, in order): {exc}") from None


#: more distinct values than this in the label column, all from 0 to 255: a colour channel
#: (or an intensity) read as the label, not classes
MAX_LABEL_CLASSES = 64


def check_label_column(path, labels):
    """Refuse a label column (the 4th) of more than :data:`MAX_LABEL_CLASSES` distinct
    values, all from 0 to 255: a colour channel or an intensity (``x y z r g b label``,
    ``x y z intensity``), whose values ``--foreground-labels`` would read as classes."""
    from structpred import FormatError

    values = np.unique(labels)
    if values.size > MAX_LABEL_CLASSES and values[0] >= 0 and values[-1] <= 255:
        raise FormatError(str(path), None, f"column 4, read as the label, holds {values.size} "
                          "distinct values from 0 to 255, as a colour channel or an intensity "
                          "does ('x y z r g b ...'?): point files give the class label in "
                          "column 4 ('x y z label [...]'); move it there")


def point_graph(xyz, labels=None, voxel=0.25, k_graph=6, cell=2.0, spacing=None):
    """Thinned point cloud, features and kNN graph.

    Parameters
    ----------
    xyz : ndarray, shape (N, 3)
    labels : ndarray of {0, 1}, shape (N,), optional
        Binary truth of the original points.
    voxel : float
        Voxel size (metres) of the thinning.
    k_graph : int
        Neighbours per node in the MRF graph (1 to :data:`MAX_K_GRAPH`; fewer when the
        thinned cloud has fewer other nodes).
    cell : float
        Column size (metres) for the local minimum height.
    spacing : float, optional
        The training scans' point spacing: a scan in other units (:func:`check_spacing`)
        is refused before it is thinned.
    """
    from scipy.spatial import cKDTree

    xyz = np.asarray(xyz, dtype=np.float64)
    if xyz.ndim != 2 or xyz.shape[1] != 3 or xyz.shape[0] == 0:
        raise ValueError(f"expected a non-empty (N, 3) array of points, got shape {xyz.shape}")
    if not np.all(np.isfinite(xyz)):
        raise ValueError("point coordinates contain NaN or infinite values")
    _check_sizes(xyz, voxel, k_graph, cell)
    tree = cKDTree(xyz)
    own = point_spacing(xyz, tree)
    check_spacing(own, spacing)
    keep, assign = voxel_subsample(xyz, voxel)
    nodes = xyz[keep]
    n = nodes.shape[0]
    if n < 2 and np.ptp(xyz, axis=0).max() == 0:   # "a smaller voxel size" cannot help
        what = ("holds one point" if len(xyz) == 1 else
                f"holds {len(xyz):,} points, all at {tuple(float(c) for c in xyz[0])}")
        raise ValueError(f"the scan {what}: a segmentation needs points at at least 2 "
                         "distinct positions")
    if n < 2:
        raise ValueError(f"the scan thins to {n} voxel at a voxel size of {voxel:g} m "
                         "(--voxel): at least 2 are needed; give a smaller voxel size or a "
                         "larger scan")
    # a repeated point is one place of the surface (its copies filled the k neighbours);
    # the places in file order, as the scan without the repeats lists them
    first = np.unique(xyz, axis=0, return_index=True)[1]
    places = xyz
    if first.size < xyz.shape[0]:
        places = xyz[np.sort(first)]
        tree = cKDTree(places)
    feats = [_eigen_features(places, tree, nodes, min(k, places.shape[0])) for k in _SCALES]
    h = _height_above_min(xyz, nodes, cell)
    X = np.concatenate(feats + [h[:, None], (h ** 2 / 10.0)[:, None], np.ones((n, 1))], axis=1)

    kg = min(k_graph + 1, n)
    ntree = cKDTree(nodes)
    dist, nbr = ntree.query(nodes, k=kg)
    a = np.repeat(np.arange(n), kg - 1)
    b = nbr[:, 1:].ravel()
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    ok = lo != hi
    pairs = np.unique(np.stack([lo[ok], hi[ok]], axis=1), axis=0)
    d = np.linalg.norm(nodes[pairs[:, 0]] - nodes[pairs[:, 1]], axis=1)
    sigma = max(float(np.median(d)), 1e-9) if d.size else 1.0
    Xe = np.stack([np.ones(d.size), np.exp(-d ** 2 / (2 * sigma ** 2))], axis=1)
    sizes = np.ones(n)
    fg = mask = None
    if labels is not None:
        mask = np.asarray(labels).astype(bool)
        fg = mask[keep].astype(np.float64)
    return PointGraph(xyz=nodes, node_features=X, edges=pairs.astype(np.int64), edge_features=Xe,
                      sizes=sizes, fg_fraction=fg, labels=assign.astype(np.int64), mask=mask,
                      spacing=None if own is None else np.asarray(own))
