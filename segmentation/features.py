"""Superpixel graphs and features for figure/ground segmentation of images.

Nodes are SLIC superpixels (Achanta et al. 2012), not pixels: a 200x150
image has 30,000 pixels and 60,000 4-neighbour pairs but only a few hundred
superpixels, so every projection and min-cut is ~100 times smaller, the
region statistics (colour histograms, texture) are less noisy than per-pixel
values, and SLIC boundaries follow image edges, so little is lost (the
superpixel "oracle" -- each superpixel given its majority label -- reaches
about 97-98 % pixel accuracy on the horses).  The superpixel MRF is the
4-neighbour pixel MRF restricted to labellings that are constant on each
superpixel: its edge features are sums over the pixel pairs that cross the
boundary between two superpixels.

Node features ``f_n`` (all computed per superpixel, then standardised with
training statistics):

* CIE Lab colour: mean and standard deviation, and per-channel 8-bin
  histograms;
* a filter bank on L: Gaussian gradient magnitude and Laplacian of Gaussian
  at sigma = 1, 2, 4 (mean absolute response);
* a background model: the mean over the superpixel's pixels of
  ``log p_border(colour) - log p_image(colour)`` (64-bin joint Lab
  histograms of the image's border strip and of the whole image);
* position: the centroid (x, y in [0, 1]), and 16 Gaussian bumps on a 4x4
  grid of the image;
* texture: the histogram of rotation-invariant uniform local binary patterns
  (8 neighbours, radius 1; 10 codes) of L;
* shape: area relative to the image's mean superpixel, elongation
  ``1 - sqrt(l2 / l1)`` of the pixel-coordinate covariance, bounding-box fill,
  and the share of the superpixel's pixels on the image border
  (``border_contact``: objects seldom touch the frame);
* colour relative to the image: Lab mean minus the image's mean Lab;
* context: the boundary-weighted mean over the neighbouring superpixels of
  the Lab mean, of the border log-ratio and of the flat-LBP share;
* a centre model: like the background model, with the histogram of the
  central box (the middle half of the width and height) in place of the
  border strip, ``log p_centre(colour) - log p_image(colour)``; with its
  neighbourhood mean, and the means over the neighbours' neighbours (two
  rings) of both log-ratios;
* a constant 1.

Edge features ``f_e >= 0`` (eq. 2.5), for superpixels ``j, k`` sharing
boundary pixel pairs ``B_jk`` (4-neighbourhood):

* ``|B_jk| / 10`` (the constant Potts feature summed over the boundary);
* ``sum_{(p,q) in B_jk} exp(-f beta ||Lab_p - Lab_q||^2) / 10`` for
  ``f = 1/2, 1, 2``, with ``beta = 1 / (2 mean ||Lab_p - Lab_q||^2)`` over
  all 4-neighbour pairs of the image (contrast-sensitive, Boykov & Jolly
  2001; Rother et al. 2004);
* ``|B_jk| exp(-||mu_j - mu_k||^2 / (2 m)) / 10``: boundary length times the
  similarity of the superpixels' mean Lab colours ``mu`` (``m``: the mean of
  ``||mu_j - mu_k||^2`` over the image's edges);
* boundary-gradient features: with ``G`` the Gaussian (sigma = 1) gradient
  magnitude of the Lab image (all three channels) and ``g_pq = max(G_p, G_q)``,
  normalised by its mean ``bar g`` over the image's boundary pairs,
  ``sum_{B_jk} exp(-g_pq / bar g) / 10``, ``sum_{B_jk} exp(-(g_pq / bar g)^2) / 10``
  and the boundary mean ``(1/|B_jk|) sum_{B_jk} exp(-g_pq / bar g)`` (in [0, 1],
  not scaled by the boundary length).  The smoothed gradient is less noisy than
  the single pixel-pair differences of the contrast features;
* texture and colour contrast: ``|B_jk| exp(-chi2(h_j, h_k)) / 10`` for the
  LBP histograms and for the concatenated Lab histograms ``h`` of the two
  superpixels (``chi2(h, h') = 1/2 sum (h - h')^2 / (h + h')``, in [0, 1]
  per histogram; averaged over the three channels for colour).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from structpred import unmasked

__all__ = ["SuperpixelGraph", "superpixel_graph", "as_rgb8", "NODE_FEATURE_NAMES", "EDGE_FEATURE_NAMES",
           "grid_edges"]

_HIST_BINS = 8
_SIGMAS = (1.0, 2.0, 4.0)
_GRID = 4

_LBP_P = 8
_LBP_BINS = _LBP_P + 2  # "uniform" LBP codes

NODE_FEATURE_NAMES = (
    [f"lab_mean_{c}" for c in "Lab"] + [f"lab_std_{c}" for c in "Lab"]
    + [f"hist_{c}_{b}" for c in "Lab" for b in range(_HIST_BINS)]
    + [f"gradmag_s{s:g}" for s in _SIGMAS] + [f"log_s{s:g}" for s in _SIGMAS]
    + ["border_colour_llr", "x", "y"]
    + [f"pos_{i}_{j}" for i in range(_GRID) for j in range(_GRID)]
    + [f"lbp_{b}" for b in range(_LBP_BINS)]
    + ["shape_area", "shape_elongation", "shape_fill", "border_contact"]
    + [f"lab_rel_{c}" for c in "Lab"]
    + [f"context_lab_{c}" for c in "Lab"] + ["context_border_llr", "context_lbp_flat"]
    + ["centre_colour_llr", "context_centre_llr", "context2_border_llr", "context2_centre_llr"]
    + ["bias"]
)
_BETA_FACTORS = (0.5, 1.0, 2.0)
EDGE_FEATURE_NAMES = ("boundary_length", "contrast_beta/2", "contrast_beta", "contrast_2beta",
                      "region_similarity", "gradient_exp", "gradient_exp_sq", "gradient_exp_mean",
                      "texture_similarity", "colour_hist_similarity")
_GRADIENT_SIGMA = 1.0


def grid_edges(height, width):
    """4-neighbour edges of a ``height x width`` grid (row-major node ids), shape (m, 2)."""
    idx = np.arange(height * width, dtype=np.int64).reshape(height, width)
    horiz = np.stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()], axis=1)
    vert = np.stack([idx[:-1, :].ravel(), idx[1:, :].ravel()], axis=1)
    return np.concatenate([horiz, vert])


class SegmentationGraph:
    """What superpixel graphs and point-cloud graphs share: nodes with features,
    edges with non-negative features, node sizes, and the map back to pixels/points.

    Subclasses are dataclasses with the fields ``labels`` (pixel or point ->
    node), ``node_features``, ``edges``, ``edge_features``, ``sizes``,
    ``fg_fraction`` and ``mask``; ``_ARRAYS`` names the always-present arrays.
    """

    _ARRAYS = ("node_features", "edges", "edge_features", "sizes")
    _OPTIONAL = ("fg_fraction", "mask", "ignore")

    @property
    def n_nodes(self):
        return self.sizes.size

    def loss_sizes(self):
        """Pixels (points) per node that count in the loss: ``sizes`` less the
        "don't care" pixels of ``ignore`` (a node of ignored pixels only gets 0)."""
        ign = getattr(self, "ignore", None)
        if ign is None or self.labels is None:
            return np.asarray(self.sizes, dtype=np.float64)
        n_ign = np.bincount(np.asarray(self.labels).ravel(), weights=np.asarray(ign).ravel(),
                            minlength=self.sizes.size)
        return np.maximum(np.asarray(self.sizes, dtype=np.float64) - n_ign, 0.0)

    def node_labels(self):
        """Majority label of each node (ties go to foreground)."""
        return (self.fg_fraction >= 0.5).astype(np.int8)

    def to_pixels(self, node_labels):
        """Labels of the original pixels (``(H, W)``) or points of a node labelling."""
        return np.asarray(node_labels, dtype=bool)[self.labels]

    def to_arrays(self):
        out = {k: getattr(self, k) for k in self._ARRAYS}
        for k in self._OPTIONAL:
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        return out

    @classmethod
    def from_arrays(cls, arrays):
        return cls(**{k: np.asarray(arrays[k]) for k in arrays})


@dataclass
class SuperpixelGraph(SegmentationGraph):
    """One image as a graph of superpixels.

    Attributes
    ----------
    labels : ndarray of int32, shape (H, W)
        Superpixel id of each pixel (``0 .. n-1``).
    node_features : ndarray, shape (n, len(NODE_FEATURE_NAMES))
        Raw (unstandardised) node features.
    edges : ndarray of int64, shape (m, 2)
    edge_features : ndarray, shape (m, len(EDGE_FEATURE_NAMES)), non-negative
    sizes : ndarray, shape (n,)
        Pixels per superpixel.
    fg_fraction : ndarray, shape (n,) or None
        Share of each superpixel's scored pixels that are foreground in the
        mask (a superpixel of "don't care" pixels only takes the boundary-weighted
        mean of its neighbours', so that its gold label agrees with them).
    mask : ndarray of bool, shape (H, W) or None
    ignore : ndarray of bool, shape (H, W) or None
        "Don't care" pixels: left out of the loss and of the scores.
    grey : ndarray of bool, shape (), or None
        Whether the image had no colour (three equal channels; None: a graph of an
        older cache, or made by hand): the model keeps its training images' kind.
    """

    labels: np.ndarray
    node_features: np.ndarray
    edges: np.ndarray
    edge_features: np.ndarray
    sizes: np.ndarray
    fg_fraction: np.ndarray | None = None
    mask: np.ndarray | None = None
    ignore: np.ndarray | None = None
    grey: np.ndarray | None = None

    _ARRAYS = ("labels", "node_features", "edges", "edge_features", "sizes")
    _OPTIONAL = ("fg_fraction", "mask", "ignore", "grey")


def _rgb_to_lab(image):
    from skimage.color import rgb2lab

    return rgb2lab(np.asarray(image, dtype=np.float64) / 255.0)


def _means(labels_flat, n, values):
    """Per-superpixel means of the columns of ``values`` (``(P, c)``)."""
    counts = np.bincount(labels_flat, minlength=n).astype(np.float64)
    out = np.empty((n, values.shape[1]))
    for c in range(values.shape[1]):
        out[:, c] = np.bincount(labels_flat, weights=values[:, c], minlength=n)
    return out / np.maximum(counts, 1.0)[:, None]


def _histograms(labels_flat, n, binned, n_bins):
    """Normalised per-superpixel histograms of integer codes ``binned`` (``(P,)``)."""
    h = np.bincount(labels_flat * n_bins + binned, minlength=n * n_bins).reshape(n, n_bins)
    return h / np.maximum(h.sum(axis=1, keepdims=True), 1)


def _lab_bins(lab, n_bins):
    """Quantise L in [0, 100] and a, b in [-100, 100] (clipped) into ``n_bins`` each."""
    lo = np.array([0.0, -100.0, -100.0])
    span = np.array([100.0, 200.0, 200.0])
    q = np.floor((lab - lo) / span * n_bins).astype(np.int64)
    return np.clip(q, 0, n_bins - 1)


def _border_llr(lab, border=8, n_bins=4, centre=False):
    """Per-pixel ``log p_region(c) - log p_image(c)`` with 64-bin joint Lab histograms;
    the region is the image's border strip, or (``centre``) its central box."""
    q = _lab_bins(lab, n_bins)
    code = (q[..., 0] * n_bins + q[..., 1]) * n_bins + q[..., 2]
    k = n_bins ** 3
    mask = np.zeros(code.shape, dtype=bool)
    if centre:
        H, W = code.shape
        mask[H // 4:H - H // 4, W // 4:W - W // 4] = True
    else:
        b = max(1, min(border, min(code.shape) // 4))
        mask[:b, :] = mask[-b:, :] = mask[:, :b] = mask[:, -b:] = True
    h_border = np.bincount(code[mask], minlength=k) + 1.0
    h_all = np.bincount(code.ravel(), minlength=k) + 1.0
    llr = np.log(h_border / h_border.sum()) - np.log(h_all / h_all.sum())
    return llr[code]


def _boundary_gradient_features(lab, pairs, inv, n_edges, length):
    """The three boundary-gradient edge features (see the module docstring), shape ``(n_edges, 3)``.

    ``pairs``: the 4-neighbour pixel pairs (flat pixel ids) that cross a superpixel
    boundary; ``inv``: the superpixel edge of each pair; ``length``: pairs per edge.
    """
    grad = np.sqrt(sum(ndimage.gaussian_gradient_magnitude(lab[..., c], _GRADIENT_SIGMA) ** 2
                       for c in range(3))).ravel()
    g = np.maximum(grad[pairs[:, 0]], grad[pairs[:, 1]])
    g = g / max(float(g.mean()) if g.size else 1.0, 1e-12)
    total = np.bincount(inv, weights=np.exp(-g), minlength=n_edges)
    total_sq = np.bincount(inv, weights=np.exp(-g ** 2), minlength=n_edges)
    return np.stack([total / 10.0, total_sq / 10.0, total / np.maximum(length, 1.0)], axis=1)


def _lbp_histograms(L, labels_flat, n):
    """Per-superpixel histograms of uniform LBP codes of the lightness channel."""
    from skimage.feature import local_binary_pattern

    grey = np.clip(L * 2.55, 0, 255).astype(np.uint8)
    codes = local_binary_pattern(grey, _LBP_P, 1, method="uniform").astype(np.int64).ravel()
    return _histograms(labels_flat, n, np.clip(codes, 0, _LBP_BINS - 1), _LBP_BINS)


def _shape_features(seg, labels_flat, n, sizes, xx, yy):
    """Relative area, elongation, bounding-box fill and border contact per superpixel."""
    H, W = seg.shape
    x, y = xx.ravel().astype(np.float64), yy.ravel().astype(np.float64)
    cnt = np.maximum(sizes, 1.0)

    def m(v):
        return np.bincount(labels_flat, weights=v, minlength=n) / cnt

    mx, my = m(x), m(y)
    cxx, cyy, cxy = m(x * x) - mx ** 2, m(y * y) - my ** 2, m(x * y) - mx * my
    tr, det = cxx + cyy, cxx * cyy - cxy ** 2
    disc = np.sqrt(np.maximum(tr ** 2 / 4 - det, 0.0))
    l1, l2 = tr / 2 + disc, np.maximum(tr / 2 - disc, 0.0)
    elong = 1.0 - np.sqrt(l2 / np.maximum(l1, 1e-12))
    xmin = np.full(n, np.inf)
    xmax = np.full(n, -np.inf)
    ymin, ymax = xmin.copy(), xmax.copy()
    np.minimum.at(xmin, labels_flat, x)
    np.maximum.at(xmax, labels_flat, x)
    np.minimum.at(ymin, labels_flat, y)
    np.maximum.at(ymax, labels_flat, y)
    fill = sizes / np.maximum((xmax - xmin + 1) * (ymax - ymin + 1), 1.0)
    on_border = ((xx == 0) | (yy == 0) | (xx == W - 1) | (yy == H - 1)).ravel().astype(np.float64)
    contact = np.bincount(labels_flat, weights=on_border, minlength=n) / np.sqrt(cnt)
    area = sizes / sizes.mean()
    return np.stack([area, elong, fill, contact], axis=1)


def _chi2(a, b):
    """Chi-squared distance of histogram rows, ``1/2 sum (a - b)^2 / (a + b)``."""
    s = a + b
    return 0.5 * np.sum(np.where(s > 0, (a - b) ** 2 / np.where(s > 0, s, 1.0), 0.0), axis=1)


def _neighbour_mean(values, edges, weights):
    """Boundary-weighted mean of the neighbours' rows (a node without neighbours: its own)."""
    n = values.shape[0]
    a, b = edges[:, 0], edges[:, 1]
    den = np.bincount(a, weights=weights, minlength=n) + np.bincount(b, weights=weights, minlength=n)
    out = np.empty_like(values)
    for c in range(values.shape[1]):
        num = (np.bincount(a, weights=weights * values[b, c], minlength=n)
               + np.bincount(b, weights=weights * values[a, c], minlength=n))
        out[:, c] = np.where(den > 0, num / np.where(den > 0, den, 1.0), values[:, c])
    return out


def _fill_from_neighbours(values, known, edges, weights):
    """``values`` with the unknown entries replaced by the ``weights``-weighted mean of
    their known (or already filled) neighbours, spreading outwards; isolated ones get 0."""
    values = np.where(known, values, 0.0)
    known = known.copy()
    n = values.size
    while not known.all():
        a, b = edges[:, 0], edges[:, 1]
        num = (np.bincount(a, weights=weights * values[b] * known[b], minlength=n)
               + np.bincount(b, weights=weights * values[a] * known[a], minlength=n))
        den = (np.bincount(a, weights=weights * known[b], minlength=n)
               + np.bincount(b, weights=weights * known[a], minlength=n))
        new = ~known & (den > 0)
        if not new.any():
            break
        values[new] = num[new] / den[new]
        known |= new
    return values


def _unary_statistics(lab, seg, lf, n, sizes):
    """Per-superpixel statistics of one image: Lab mean and spread, colour histograms,
    texture, border likelihood ratio, position, position bumps, LBP, shape."""
    H, W = seg.shape
    P = H * W
    labf = lab.reshape(P, 3)
    mean = _means(lf, n, labf)
    sq = _means(lf, n, labf ** 2)
    std = np.sqrt(np.maximum(sq - mean ** 2, 0.0))
    q = _lab_bins(labf, _HIST_BINS)
    hists = [_histograms(lf, n, q[:, c], _HIST_BINS) for c in range(3)]
    L = lab[..., 0]
    tex = []
    for s in _SIGMAS:
        tex.append(np.abs(ndimage.gaussian_gradient_magnitude(L, s)).ravel())
    for s in _SIGMAS:
        tex.append(np.abs(ndimage.gaussian_laplace(L, s)).ravel())
    tex = _means(lf, n, np.stack(tex, axis=1))
    llr = _means(lf, n, _border_llr(lab).reshape(P, 1))
    yy, xx = np.mgrid[0:H, 0:W]
    pos = _means(lf, n, np.stack([(xx.ravel() + 0.5) / W, (yy.ravel() + 0.5) / H], axis=1))
    centres = (np.arange(_GRID) + 0.5) / _GRID
    bumps = np.exp(-((pos[:, 1, None, None] - centres[None, :, None]) ** 2
                     + (pos[:, 0, None, None] - centres[None, None, :]) ** 2) / (2 * (0.5 / _GRID) ** 2 * 2))
    lbp = _lbp_histograms(lab[..., 0], lf, n)
    shape = _shape_features(seg, lf, n, sizes, xx, yy)
    rel = (mean - labf.mean(axis=0)) / 100.0
    return dict(mean=mean, std=std, hists=hists, tex=tex, llr=llr, pos=pos, bumps=bumps,
                lbp=lbp, shape=shape, rel=rel)


def _edge_statistics(lab, lf, n, mean, lbp, hists):
    """The superpixel adjacency graph and its edge features: boundary length,
    contrast-sensitive Potts terms at several ``beta`` factors, region similarity, boundary
    gradients, texture and colour similarity."""
    H, W = lab.shape[:2]
    labf = lab.reshape(H * W, 3)
    # edges: 4-neighbour pixel pairs that cross a superpixel boundary
    e = grid_edges(H, W)
    diff2 = np.sum((labf[e[:, 0]] - labf[e[:, 1]]) ** 2, axis=1)
    # (a one-pixel image has no pixel pairs: no contrast to normalise by)
    beta = 1.0 / (2.0 * max(float(diff2.mean()) if diff2.size else 0.0, 1e-12))
    a, b = lf[e[:, 0]], lf[e[:, 1]]
    cross = a != b
    a, b = a[cross], b[cross]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = lo * n + hi
    uniq, inv = np.unique(key, return_inverse=True)
    edges = np.stack([uniq // n, uniq % n], axis=1).astype(np.int64)
    length = np.bincount(inv, minlength=uniq.size).astype(np.float64)
    contrast = [np.bincount(inv, weights=np.exp(-f * beta * diff2[cross]), minlength=uniq.size)
                for f in _BETA_FACTORS]
    dmean = np.sum((mean[edges[:, 0]] - mean[edges[:, 1]]) ** 2, axis=1)
    region = length * np.exp(-dmean / (2.0 * max(float(dmean.mean()), 1e-12))) if dmean.size else length
    gradient = _boundary_gradient_features(lab, e[cross], inv, uniq.size, length)
    hist_all = np.concatenate(hists, axis=1)
    tex_sim = length * np.exp(-_chi2(lbp[edges[:, 0]], lbp[edges[:, 1]]))
    col_sim = length * np.exp(-_chi2(hist_all[edges[:, 0]], hist_all[edges[:, 1]]) / 3.0)
    edge_features = np.concatenate([np.stack([length, *contrast, region], axis=1) / 10.0, gradient,
                                    np.stack([tex_sim, col_sim], axis=1) / 10.0], axis=1)
    return edges, length, edge_features


def _node_feature_matrix(lab, lf, n, u, edges, length):
    """The node feature matrix: the unary statistics, their neighbourhood context and a
    bias column."""
    P = lf.size
    mean, llr, lbp = u["mean"], u["llr"], u["lbp"]
    context = _neighbour_mean(np.concatenate([mean / 100.0, llr, lbp[:, -2:-1]], axis=1),
                              edges, length)
    cllr = _means(lf, n, _border_llr(lab, centre=True).reshape(P, 1))
    ring1 = _neighbour_mean(np.concatenate([llr, cllr], axis=1), edges, length)
    ring2 = _neighbour_mean(ring1, edges, length)
    return np.concatenate([mean / 100.0, u["std"] / 100.0, *u["hists"], u["tex"] / 10.0, llr,
                           u["pos"], u["bumps"].reshape(n, -1), lbp, u["shape"], u["rel"],
                           context, cllr, ring1[:, 1:], ring2, np.ones((n, 1))], axis=1)


def _pixel_array(value, what):
    """``value`` as an array, or a one-line error: ``None``, a string (a file name?) or a
    nested list whose rows differ in length (numpy's "inhomogeneous shape after 1
    dimensions") is named as such."""
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{what} must be an array, got {type(value).__name__} {value!r:.40}"
                        + ("; read files with segmentation.data.load_image"
                           if isinstance(value, (str, bytes)) and what == "an image" else ""))
    unmasked(value, what)
    try:
        return np.asarray(value)
    except ValueError:
        raise ValueError(f"{what} given as nested lists has rows of different lengths "
                         "(every row must have the same number of pixels)") from None


def as_binary_mask(mask):
    """A ground-truth mask as a bool array: booleans, or numbers that are all 0 and 1 (or
    0 and 255); other values (0.5, 2, NaN, the 0/128/255 of a "don't care" band) are a
    ``ValueError`` rather than foreground wherever they are not 0."""
    m = _pixel_array(mask, "a mask")
    if m.dtype == bool:
        return m
    values = np.unique(m) if m.dtype.kind in "iuf" else None
    if values is None or not (set(values.tolist()) <= {0, 1} or set(values.tolist()) <= {0, 255}):
        shown = ("values of type " + str(m.dtype) if values is None else
                 ", ".join(f"{v:g}" for v in values[:6]) + (", ..." if len(values) > 6 else ""))
        raise ValueError(f"a mask must be boolean or hold only 0 and 1 (or 0 and 255), got "
                         f"{shown}")
    return m > 0


def as_rgb8(image):
    """An image array as ``(H, W, 3)`` uint8 RGB, the features' scale, or a one-line
    ``ValueError``: 8-bit values held in a wider integer type are taken as they are,
    floating-point images in [0, 1] (scikit-image's convention) are scaled to 0-255;
    anything else (16-bit values, floats beyond [0, 1], NaN, booleans) is refused rather
    than read on the wrong scale (files go through :func:`segmentation.data.load_image`,
    which converts every mode).  A grey image, ``(H, W)`` or ``(H, W, 1)``, is taken on the
    same scales and replicated to three channels, and an RGBA image ``(H, W, 4)`` is taken
    without its alpha channel, as the file reader converts grey and RGBA files (they were
    refused)."""
    a = _pixel_array(image, "an image")
    if a.ndim == 3 and a.shape[2] in (1, 4):
        a = a[..., 0] if a.shape[2] == 1 else a[..., :3]
    if a.ndim == 2:
        return as_rgb8(np.repeat(a[..., None], 3, axis=2))
    if a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"expected an RGB image of shape (H, W, 3) (RGBA: (H, W, 4)) or a "
                         f"grey one of shape (H, W), got {a.shape}")
    if a.size == 0:   # numpy's "zero-size array to reduction operation" before
        raise ValueError(f"the image has no pixels (shape {a.shape})")
    if a.dtype == np.uint8:
        return a
    hint = "; read files with segmentation.data.load_image, which converts every mode"
    if a.dtype.kind in "iu":
        lo, hi = (int(a.min()), int(a.max())) if a.size else (0, 0)
        if lo >= 0 and hi <= 255:
            return a.astype(np.uint8)
        why = ("16-bit? scale them to 0-255" if hi > 255 else   # int8: -128 to 127
               "signed 8-bit? add 128, or read them as unsigned (a.view(np.uint8))")
        raise ValueError(f"expected 8-bit RGB values 0-255, got {a.dtype} values from {lo} "
                         f"to {hi} ({why}){hint}")
    if a.dtype.kind == "f":
        if not np.isfinite(a).all():
            raise ValueError("the image holds NaN or infinite values")
        lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
        if lo >= 0.0 and hi <= 1.0:
            return np.round(a * 255.0).astype(np.uint8)
        raise ValueError(f"a floating-point image must hold values in [0, 1], got {lo:g} to "
                         f"{hi:g} (for 0-255 values pass uint8){hint}")
    raise ValueError(f"expected an RGB image of uint8 values, got {a.dtype} values{hint}")


def superpixel_graph(image, mask=None, n_segments=1000, compactness=10.0, ignore=None):
    """Superpixels, their features and their adjacency graph for one image.

    Parameters
    ----------
    image : ndarray, shape (H, W, 3), uint8 RGB
    mask : ndarray of bool, shape (H, W), optional
        Ground truth; gives ``fg_fraction``.
    ignore : ndarray of bool, shape (H, W), optional
        "Don't care" pixels of the ground truth (not counted in ``fg_fraction``).
    n_segments, compactness : SLIC parameters (on Lab, deterministic).

    Returns
    -------
    :class:`SuperpixelGraph`
    """
    from skimage.segmentation import slic

    from structpred import check_positive, check_whole

    check_whole("n_segments", n_segments)   # 0 was Python's "float division by zero"
    check_positive("compactness", compactness)
    image = as_rgb8(image)
    H, W = image.shape[:2]
    if mask is not None:
        mask = as_binary_mask(mask)   # a ragged nested list is named before its shape
    if mask is not None and np.shape(mask) != (H, W):
        raise ValueError(f"mask shape {np.shape(mask)} differs from image shape {(H, W)}")
    lab = _rgb_to_lab(image)
    # more superpixels than pixels cannot be: SLIC would lay out (and loop over) a grid
    # of n_segments centres however small the image (--n-segments 10**9 ran without bound)
    n_segments = int(min(n_segments, H * W))
    seg = slic(image, n_segments=n_segments, compactness=compactness, start_label=0,
               convert2lab=True, enforce_connectivity=True)
    # relabel to 0..n-1 (SLIC may skip ids)
    _, seg = np.unique(seg, return_inverse=True)
    seg = seg.reshape(H, W).astype(np.int32)
    n = int(seg.max()) + 1
    lf = seg.ravel().astype(np.int64)
    sizes = np.bincount(lf, minlength=n).astype(np.float64)
    unary = _unary_statistics(lab, seg, lf, n, sizes)
    edges, length, edge_features = _edge_statistics(lab, lf, n, unary["mean"], unary["lbp"],
                                                    unary["hists"])
    feats = _node_feature_matrix(lab, lf, n, unary, edges, length)

    fg = None
    if ignore is not None:
        ignore = np.asarray(ignore, dtype=bool)
        if ignore.shape != (H, W):
            raise ValueError(f"ignore shape {ignore.shape} differs from image shape {(H, W)}")
        if not ignore.any():
            ignore = None
    if mask is not None:
        mask = as_binary_mask(mask)
        if ignore is None:
            fg = np.bincount(lf, weights=mask.ravel().astype(np.float64), minlength=n) / sizes
        else:
            scored = (~ignore).ravel().astype(np.float64)
            cnt = np.bincount(lf, weights=scored, minlength=n)
            fgc = np.bincount(lf, weights=(mask & ~ignore).ravel().astype(np.float64), minlength=n)
            fg = _fill_from_neighbours(fgc / np.maximum(cnt, 1.0), cnt > 0, edges, length)
    from ._image_kind import is_grey

    return SuperpixelGraph(labels=seg, node_features=feats, edges=edges,
                           edge_features=edge_features, sizes=sizes, fg_fraction=fg,
                           mask=mask, ignore=ignore, grey=np.array(is_grey(image)))
