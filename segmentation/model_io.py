"""The segmentation model file: arrays and a JSON header with a format version, no pickles.

:func:`save_segmenter` writes what :class:`segmentation.model.MRFSegmenter` learned
(weights, feature standardisation, hyperparameters, history, the choices made on
validation); :func:`load_segmenter` reads it back and refuses, with one ``ValueError``
naming the file, anything that is not such a model or was trained with other features.
"""

from __future__ import annotations

import os

import numpy as np

from structpred import estimator_seed
from structpred.io import FormatError, damage_reason, load_npz, refuse_stdin_model, save_npz

__all__ = ["FORMAT", "FORMAT_VERSION", "save_segmenter", "load_segmenter", "feature_names",
           "current_feature_names"]

FORMAT = "structpred-mrf-segmenter"
FORMAT_VERSION = 3


def save_segmenter(model, path):
    """Write a fitted segmenter to ``path`` (``.npz``, atomically)."""
    params = model.get_params()
    params["random_state"] = estimator_seed(model)   # a RandomState: the seed drawn
    params["radius"] = None if not np.isfinite(model.radius) else float(model.radius)
    meta = {"format": FORMAT, "version": FORMAT_VERSION, "params": params,
            "kind": model.kind_, "n_node_features": model.n_node_features_,
            "n_edge_features": model.n_edge_features_, "fg_share": model.fg_share_,
            "node_feature_names": list(model.node_feature_names_ or []),
            "edge_feature_names": list(model.edge_feature_names_ or []),
            "size_unit": model.size_unit_, "point_spacing": getattr(model, "spacing_", None),
            "grey_images": getattr(model, "grey_", None),
            "class_weights": list(model.class_weights_),
            "history": {k: [None if v is None else float(v) for v in vals]
                        for k, vals in model.history_.items()},
            "best_iter": model.result_.best_iter if hasattr(model, "result_") else None,
            "chosen": _jsonable(getattr(model, "chosen_", None)),
            "selection": _jsonable(getattr(model, "selection_", None)),
            "guard": _jsonable(getattr(model, "guard_", None)),
            "mask_reading": _jsonable(getattr(model, "mask_reading_", None))}
    arrays = dict(coef=model.coef_, feature_mean=model.feature_mean_,
                  feature_std=model.feature_std_)
    if getattr(model, "first_pass_coef_", None) is not None:
        arrays.update(first_pass_coef=model.first_pass_coef_,
                      first_pass_mean=model.first_pass_mean_,
                      first_pass_std=model.first_pass_std_)
    save_npz(path, arrays, meta)


def _read_archive(spath, bad):
    """``(meta, coef, mean, scale, first)`` of a model file (:func:`structpred.io.load_npz`),
    or a ``ValueError``."""
    try:
        meta, data = load_npz(spath, FORMAT, range(1, FORMAT_VERSION + 1),
                              what="a structpred segmentation model")
    except FormatError as exc:
        raise ValueError(str(exc)) from None
    try:
        coef = np.array(data["coef"], dtype=np.float64)
        mean = np.array(data["feature_mean"], dtype=np.float64)
        scale = np.array(data["feature_std"], dtype=np.float64)
        first = None
        if "first_pass_coef" in data:
            first = tuple(np.array(data[k], dtype=np.float64) for k in
                          ("first_pass_coef", "first_pass_mean", "first_pass_std"))
    except KeyError as exc:
        raise ValueError(f"{bad} (no {exc.args[0]!r} entry)") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{bad} (unreadable entries: {exc})") from None
    return meta, coef, mean, scale, first


def _format_version(meta, spath, bad):
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(bad)
    version = meta.get("version")
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"{bad} (no format version)")
    if version > FORMAT_VERSION:
        raise ValueError(f"{spath}: model format version {version} is newer than this "
                         f"structpred reads ({FORMAT_VERSION}); upgrade structpred")
    return version


def _restore(cls, meta, arrays, bad):
    """The estimator with its hyperparameters and fitted attributes from the header."""
    coef, mean, scale, first = arrays
    try:
        params = dict(meta["params"])
        if params.get("radius") is None:
            params["radius"] = np.inf
        known = set(cls._get_param_names())
        params = {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()
                  if k in known}
        model = cls(**params)
        model.coef_, model.feature_mean_, model.feature_std_ = coef, mean, scale
        model.kind_ = meta["kind"]
        model.n_node_features_ = int(meta["n_node_features"])
        model.n_edge_features_ = int(meta["n_edge_features"])
        model.fg_share_ = float(meta["fg_share"])
        model.size_unit_ = float(meta["size_unit"])
        # None: images, or a model written before the spacing was kept (not checked)
        spacing = meta.get("point_spacing")
        model.spacing_ = None if spacing is None else float(spacing)
        # None: both kinds, points, or a model written before the kind was kept
        grey = meta.get("grey_images")
        model.grey_ = None if grey is None else bool(grey)
        model.class_weights_ = tuple(meta["class_weights"])
        model.history_ = meta["history"]
        model.node_feature_names_ = meta.get("node_feature_names")
        model.edge_feature_names_ = meta.get("edge_feature_names")
        model.chosen_ = meta.get("chosen")
        model.selection_ = meta.get("selection")
        model.guard_ = meta.get("guard")
        # how the training masks were read (segmentation._reading); none: the defaults
        model.mask_reading_ = dict(meta.get("mask_reading") or {})
        if first is not None:
            model.first_pass_coef_, model.first_pass_mean_, model.first_pass_std_ = first
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{bad} (damaged header: {damage_reason(exc)})") from None
    if model.kind_ not in ("image", "points"):
        raise ValueError(f"{bad} (unknown kind {model.kind_!r})")
    return model


def _check_features(model, version, arrays, spath, bad):
    """The weights fit the features this version computes for the model's inputs."""
    coef, mean, scale, first = arrays
    dn, de = model.n_node_features_, model.n_edge_features_
    if version == 1 and not model.use_edges and coef.size > dn and not np.any(coef[dn:]):
        model.coef_ = coef[:dn]  # version-1 unary models stored unused zero edge weights
    if model.coef_.shape != (dn + de,) or mean.shape != (dn,) or scale.shape != (dn,):
        raise ValueError(f"{spath}: weight vector has the wrong size ({model.coef_.size} "
                         f"weights for {dn} node and {de} edge features)")
    want_n, want_e = current_feature_names(model.kind_)
    if first is not None:
        from .colour_model import COLOUR_FEATURE_NAMES

        if first[0].shape != first[1].shape or first[1].shape != first[2].shape:
            raise ValueError(f"{bad} (damaged first-pass weights)")
        want_n = list(want_n) + list(COLOUR_FEATURE_NAMES)
    have_n = model.node_feature_names_
    if have_n is not None and list(have_n) != list(want_n):
        raise ValueError(f"{spath}: the model was trained with other {model.kind_} features "
                         f"({len(have_n)} node features; this version computes "
                         f"{len(want_n)}): train it again")
    if have_n is None and dn != len(want_n):
        raise ValueError(f"{spath}: the model has {dn} node features, this version computes "
                         f"{len(want_n)} for {model.kind_} inputs: train it again")
    if de and model.edge_feature_names_ is not None and \
            list(model.edge_feature_names_) != list(want_e):
        raise ValueError(f"{spath}: the model was trained with other edge features: "
                         f"train it again")


def load_segmenter(cls, path):
    """Read a model written by :func:`save_segmenter` as an instance of ``cls``; raises
    ``ValueError`` naming ``path`` on anything that is not such a model (never unpickles)."""
    spath = os.fspath(path)
    refuse_stdin_model(spath, "a segmentation model")
    if os.path.isdir(spath):
        raise ValueError(f"{spath}: is a folder, expected a model file (.npz)")
    if not os.path.exists(spath):
        raise ValueError(f"{spath}: no such model file")
    bad = f"{spath}: not a structpred segmentation model"
    meta, *arrays = _read_archive(spath, bad)
    version = _format_version(meta, spath, bad)
    model = _restore(cls, meta, arrays, bad)
    _check_features(model, version, arrays, spath, bad)
    return model


def feature_names(graph):
    """The node and edge feature names of a graph made by this package's featurizers
    (``(None, None)`` for a hand-made graph with features of its own)."""
    from .features import SuperpixelGraph

    if isinstance(graph, SuperpixelGraph):
        from .features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES

        names = (list(NODE_FEATURE_NAMES), list(EDGE_FEATURE_NAMES))
    else:
        from .points import POINT_EDGE_FEATURE_NAMES, POINT_FEATURE_NAMES

        names = (list(POINT_FEATURE_NAMES), list(POINT_EDGE_FEATURE_NAMES))
    if len(names[0]) != graph.node_features.shape[1]:
        return None, None  # hand-made graphs with their own features
    return names


def current_feature_names(kind):
    """The node and edge feature names this version computes for ``kind`` inputs."""
    if kind == "image":
        from .features import EDGE_FEATURE_NAMES, NODE_FEATURE_NAMES

        return list(NODE_FEATURE_NAMES), list(EDGE_FEATURE_NAMES)
    from .points import POINT_EDGE_FEATURE_NAMES, POINT_FEATURE_NAMES

    return list(POINT_FEATURE_NAMES), list(POINT_EDGE_FEATURE_NAMES)


def _jsonable(obj):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        return float(obj)
    if isinstance(obj, (np.integer, int)) and not isinstance(obj, bool):
        return int(obj)
    return obj
