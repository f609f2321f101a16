"""Figure/ground segmentation with max-margin associative MRFs (thesis secs. 2.2.2, 2.6.1).

* :mod:`segmentation.data` -- images, masks, manifests and point files, with clear errors;
* :mod:`segmentation.features` -- SLIC superpixel graphs and their features (images);
* :mod:`segmentation.points` -- thinned kNN graphs and local-geometry features (3-D scans);
* :mod:`segmentation.colour_model` -- per-image colour models of a first unary pass (GrabCut's
  idea), the second pass's node features;
* :mod:`segmentation.model` -- :class:`~segmentation.model.MRFSegmenter`, the estimator;
* :mod:`segmentation.metrics` -- pooled accuracy and foreground IoU.

The min-cut decoding, the min-cut polytope projection and the problem class
shared with the solvers are in :mod:`structpred.polytopes.mincut`.

The public names are re-exported here (``from segmentation import MRFSegmenter``) and
imported on first use.
"""

from __future__ import annotations

from structpred.lazy import lazy_exports

#: public name -> module of this package that defines it
_EXPORTS = {
    "MRFSegmenter": "model",
    "LEARNERS": "model",
    "load_image": "data",
    "load_mask": "data",
    "load_example": "data",
    "read_manifest": "data",
    "horse_items": "data",
    "load_points": "data",
    "superpixel_graph": "features",
    "SuperpixelGraph": "features",
    "point_graph": "points",
    "PointGraph": "points",
    "segmentation_scores": "metrics",
    "SegmentationScores": "metrics",
    "iou_statistics": "metrics",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
