"""The hyperparameter checks of :class:`~segmentation.model.MRFSegmenter`, run before any
work (:func:`check_params`): one line naming the parameter, in the estimator's terms."""

from __future__ import annotations

import numpy as np

from structpred import check_flag, check_learner, check_number, check_positive, check_n_jobs
from structpred import check_whole, estimator_seed

from .examples import AUTO_CLASS_WEIGHTS, AUTO_ETA_SCALES, _candidates, class_weights

__all__ = ["check_params", "MAX_SCALE", "DEFAULT_EDGE_FACTORS"]

#: the largest ``feature_scale``/``edge_scale``: it multiplies standardised features, and
#: 1e308 made them infinite (refused as "feature matrix contains NaN or infinite values",
#: named after the data)
MAX_SCALE = 1e6
#: the guard's factors of the chosen MRF's edge weights (``edge_factors``), chosen by
#: cross-validation over the horses and the Oakland scans
DEFAULT_EDGE_FACTORS = (0.5, 1.5, 2.0, 3.0)


def check_params(model):
    """Refuse the hyperparameters of ``model`` (an ``MRFSegmenter``) that do not fit."""
    check_learner(model.learner)
    if model.validation_metric not in ("iou", "error"):
        raise ValueError(f"validation_metric must be 'iou' or 'error', got {model.validation_metric!r}")
    if not (model.n_iter == "auto" or (isinstance(model.n_iter, (int, np.integer))
                                       and not isinstance(model.n_iter, bool)
                                       and model.n_iter >= 1)):   # True was 1 iteration
        raise ValueError(f"n_iter must be 'auto' or a whole number >= 1, got {model.n_iter!r}")
    for name in ("use_edges", "guard", "refit", "colour_model", "memory_efficient", "verbose"):
        check_flag(name, getattr(model, name))   # "no" switched the option on
    # float() and int() took "0.1", "2" and cut 2.5 to 2 before
    for name in ("valid_fraction", "guard_alpha", "compactness", "feature_scale",
                 "edge_scale", "tol"):
        check_number(name, getattr(model, name))
    check_whole("cv_folds", model.cv_folds, 2)
    check_whole("colour_folds", model.colour_folds, 0)
    if model.learning_rate is not None:   # NaN was named "eta"
        check_positive("learning_rate", model.learning_rate)
    check_n_jobs(model.n_jobs)   # -1: every CPU, -2: all but one, None: 1
    # patience 0 (or -1) stopped every candidate at its first validation (a model of
    # nearly no training, silently; the command line's 0 is None), NaN was int()'s
    # error; a negative selection_size numpy's "Number of samples, -1"; 2.5 was cut
    for name, lo in (("patience", 1), ("selection_size", 1)):
        if getattr(model, name) is not None:
            check_whole(name, getattr(model, name), lo)
    check_whole("min_valid", model.min_valid, 0)
    if not 0 <= float(model.valid_fraction) < 1:
        raise ValueError(f"valid_fraction must lie in [0, 1), got {model.valid_fraction!r}")
    for cw in _candidates(model.class_weight, AUTO_CLASS_WEIGHTS, "class_weight"):
        class_weights(cw, 0.5)
    for e in _candidates(model.eta_scale, AUTO_ETA_SCALES, "eta_scale"):
        check_positive("eta_scale", e)
        if float(e) > MAX_SCALE:   # the first step overflowed
            raise ValueError(f"eta_scale must be at most {MAX_SCALE:g} (it multiplies the "
                             f"step size), got {e!r}")
    if not 0 < float(model.guard_alpha) < 1:
        raise ValueError(f"guard_alpha must lie in (0, 1), got {model.guard_alpha!r}")
    for s in model.edge_factors or ():
        if not (0 < float(s) < np.inf) or float(s) == 1.0:
            raise ValueError(f"edge_factors must be positive, finite and not 1, got {s!r}")
    given = tuple(float(s) for s in model.edge_factors or ())
    if given and given != DEFAULT_EDGE_FACTORS and not (model.guard and model.use_edges):
        # they were accepted and ignored
        raise ValueError(
            f"edge_factors={model.edge_factors!r} rescale the MRF's edge weights among the "
            f"guard's candidates, but " + ("use_edges=False trains no edge weights"
                                           if not model.use_edges else
                                           "guard=False runs no guard")
            + ": leave edge_factors at its default or pass edge_factors=()")
    # each was a ZeroDivisionError, a complex number or a silent NaN before
    for ns in _candidates(model.n_segments, (1000,), "n_segments"):
        check_whole("n_segments", ns)
    check_whole("validate_every", model.validate_every)
    check_whole("colour_components", model.colour_components)
    for name, lo_ok in (("compactness", False), ("feature_scale", False),
                        ("edge_scale", True), ("tol", True)):
        v = getattr(model, name)
        if not (0 <= float(v) < np.inf and (lo_ok or float(v) > 0)):
            raise ValueError(f"{name} must be {'>= 0' if lo_ok else 'positive'} and "
                             f"finite, got {v!r}")
        if name.endswith("_scale") and float(v) > MAX_SCALE:   # the features overflowed
            raise ValueError(f"{name} must be at most {MAX_SCALE:g} (it multiplies "
                             f"standardised features), got {v!r}")
        if name == "feature_scale" and float(v) < 1 / MAX_SCALE:   # 1e-100: the features
            # vanished, and the step 1/||F|| was a ZeroDivisionError
            raise ValueError(f"feature_scale must be at least {1 / MAX_SCALE:g} (it multiplies "
                             f"standardised features), got {v!r}")
    estimator_seed(model)   # a RandomState or Generator: drawn before any fork
