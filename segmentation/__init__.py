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
"""
