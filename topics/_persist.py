"""Save and load fitted topic-model classifiers as ``.npz`` files, without pickle.

:func:`save_model` writes, through :func:`structpred.io.save_npz` (no pickles):

* the header (JSON): the format name and version, the model name, the estimator's class
  and ``get_params()`` (as JSON), the description of its fitted state, the vocabulary
  settings and free-form ``info`` (version 1 files kept it as a ``__meta__`` string
  entry; they still load);
* ``vocabulary``: the words (column ``j`` of the count matrix is word ``j``) and, for a
  tf-idf vocabulary, ``vocabulary_idf``: their inverse document frequencies;
* ``labels``: the class labels as strings (the estimator's ``classes_``; :func:`load_model`
  reads them as :func:`topics._layouts.label_name` reads labels, so the ``1.0`` of a model
  written before is ``1`` in ``predict`` and ``eval`` alike);
* ``state/...``: one array per fitted array.

The fitted state is every instance attribute that is not a hyperparameter: arrays,
numpy and Python scalars, strings, ``None``, lists / tuples / dicts of these, SciPy
sparse matrices, NumPy random generators, and -- recursively, by their parameters and
their own state -- estimators and dataclasses defined in ``topics`` or scikit-learn
(so that ``LDASVM``'s inner ``LDA`` and its ``StandardScaler`` + ``LinearSVC`` pipeline
are stored as their arrays, e.g. ``coef_``, ``intercept_``, ``classes_``, ``mean_``,
``scale_``, and rebuilt on load).  Attributes of any other type are left out and listed
under ``skipped`` in the metadata.

:func:`load_model` rebuilds the estimator: only classes from the ``topics`` package and
from scikit-learn are ever instantiated, from their parameters, and the stored state is
set on them.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os

import numpy as np
import scipy.sparse as sp

from structpred import SEED_INSTANCES, estimator_seed, text_digests
from structpred.io import (CLOCK_KEYS, FormatError, damage_reason, load_npz, read_npz,
                          refuse_stdin_model, save_npz)

from ._layouts import label_name
from .corpus import ENGLISH_STOP_WORDS, Vocabulary

__all__ = ["FORMAT", "FORMAT_VERSION", "SavedModel", "save_model", "load_model", "text_digests",
           "vocabulary_params", "rebuild_vocabulary"]

FORMAT = "structpred-topics-model"
FORMAT_VERSION = 2
#: version 1: the same content, the header as a ``__meta__`` string entry (still read)
_LEGACY_VERSION = 1

#: modules whose classes a model file may name
_ALLOWED_MODULES = ("topics", "sklearn")
_TAG = "__t__"


class _Unsupported(Exception):
    """A value that this format cannot store."""


# ------------------------------------------------------------------------ encoding

def _allowed(cls):
    mod = cls.__module__ or ""
    return any(mod == m or mod.startswith(m + ".") for m in _ALLOWED_MODULES)


def _is_plain(v):
    return v is None or isinstance(v, (bool, int, float, str)) and not isinstance(v, np.generic)


class _Encoder:
    def __init__(self):
        self.arrays = {}
        self.skipped = []

    def array(self, key, a):
        a = np.asarray(a)
        desc = {_TAG: "array", "key": key}
        if a.dtype == object:
            if not all(isinstance(x, str) for x in a.ravel()):
                raise _Unsupported("an object array that is not all strings")
            desc["object"] = True
            a = a.astype(str) if a.size else np.zeros(a.shape, dtype="U1")
        elif a.dtype.hasobject or a.dtype.kind == "V":
            raise _Unsupported(f"an array of dtype {a.dtype}")
        self.arrays[key] = a
        return desc

    def encode(self, v, key):
        """A JSON-able description of ``v``; arrays go to ``self.arrays`` under ``key``."""
        if _is_plain(v):
            return v
        if isinstance(v, np.ndarray):
            return self.array(key, v)
        if isinstance(v, np.generic):
            return {_TAG: "scalar", **self.array(key, np.asarray(v))}
        if sp.issparse(v):
            m = sp.csr_matrix(v)
            return {_TAG: "sparse", "format": v.format, "shape": list(m.shape),
                    "data": self.array(key + ".data", m.data)["key"],
                    "indices": self.array(key + ".indices", m.indices)["key"],
                    "indptr": self.array(key + ".indptr", m.indptr)["key"]}
        if isinstance(v, (list, tuple)):
            kind = "list" if isinstance(v, list) else "tuple"
            if type(v) not in (list, tuple):
                raise _Unsupported(type(v).__name__)
            return {_TAG: kind, "items": [self.encode(x, f"{key}.{i}") for i, x in enumerate(v)]}
        if type(v) is dict:
            return {_TAG: "dict", "items": [[self.encode(k, f"{key}.k{i}"),
                                             self.encode(x, f"{key}.{i}")]
                                            for i, (k, x) in enumerate(v.items())]}
        if isinstance(v, (set, frozenset)):
            return {_TAG: type(v).__name__, "items": [self.encode(x, f"{key}.{i}")
                                                      for i, x in enumerate(sorted(v, key=repr))]}
        if isinstance(v, np.random.Generator):
            bg = v.bit_generator
            return {_TAG: "generator", "bit_generator": type(bg).__name__,
                    "state": self.encode(bg.state, key + ".state")}
        if isinstance(v, Vocabulary):
            d = {_TAG: "vocabulary", "params": vocabulary_params(v),
                 "words": self.array(key + ".words", np.asarray(v.words_, dtype=str))["key"]}
            if v.idf_ is not None:
                d["idf"] = self.array(key + ".idf", v.idf_)["key"]
            return d
        cls = type(v)
        if dataclasses.is_dataclass(v) and _allowed(cls):
            return {_TAG: "dataclass", "class": _class_path(cls),
                    "fields": {f.name: self.encode(getattr(v, f.name), f"{key}.{f.name}")
                               for f in dataclasses.fields(v)}}
        if hasattr(v, "get_params") and _allowed(cls):
            return self.estimator(v, key)
        raise _Unsupported(cls.__name__)

    def estimator(self, est, key):
        params = est.get_params(deep=False)
        if isinstance(params.get("random_state"), SEED_INSTANCES):   # the seed drawn from it
            params["random_state"] = estimator_seed(est)
        desc = {_TAG: "estimator", "class": _class_path(type(est)),
                "params": {k: self.encode(p, f"{key}.params.{k}") for k, p in params.items()},
                "state": {}}
        for name, value in vars(est).items():
            # no clock readings (same bytes), nor the instance a seed was drawn from
            if name in params or name in CLOCK_KEYS or name == "_drawn_seed":
                continue
            try:
                desc["state"][name] = self.encode(value, f"{key}.{name}")
            except _Unsupported as exc:
                self.skipped.append(f"{key}.{name} ({exc})")
        return desc


def _class_path(cls):
    return f"{cls.__module__}:{cls.__qualname__}"


# ------------------------------------------------------------------------ decoding

class _Decoder:
    def __init__(self, arrays, where):
        self.arrays = arrays
        self.where = where

    def fail(self, why):
        raise FormatError(self.where, None, f"not a valid topic model file ({why})")

    def array(self, key):
        if key not in self.arrays:
            self.fail(f"array {key!r} is missing")
        return self.arrays[key]

    def decode(self, d):
        if not isinstance(d, dict):
            if isinstance(d, list):
                self.fail("untagged list")
            return d
        t = d.get(_TAG)
        if t == "array":
            a = self.array(d["key"])
            return a.astype(object) if d.get("object") else a
        if t == "scalar":
            return self.array(d["key"])[()]
        if t == "sparse":
            m = sp.csr_matrix((self.array(d["data"]), self.array(d["indices"]),
                               self.array(d["indptr"])), shape=tuple(d["shape"]))
            return m.asformat(d["format"])
        if t in ("list", "tuple", "set", "frozenset"):
            items = [self.decode(x) for x in d["items"]]
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[t](items)
        if t == "dict":
            return {self.decode(k): self.decode(v) for k, v in d["items"]}
        if t == "generator":
            bg_cls = getattr(np.random, d["bit_generator"], None)
            if not (isinstance(bg_cls, type) and issubclass(bg_cls, np.random.BitGenerator)):
                self.fail(f"unknown bit generator {d['bit_generator']!r}")
            bg = bg_cls()
            bg.state = self.decode(d["state"])
            return np.random.Generator(bg)
        if t == "vocabulary":
            return rebuild_vocabulary(d["params"], self.array(d["words"]),
                                      self.array(d["idf"]) if "idf" in d else None)
        if t == "dataclass":
            cls = self.cls(d["class"])
            if not dataclasses.is_dataclass(cls):
                self.fail(f"{d['class']} is not a dataclass")
            return cls(**{k: self.decode(v) for k, v in d["fields"].items()})
        if t == "estimator":
            cls = self.cls(d["class"])
            est = cls(**{k: self.decode(v) for k, v in d["params"].items()})
            for name, v in d["state"].items():
                est.__dict__[name] = self.decode(v)
            return est
        self.fail(f"unknown entry type {t!r}")

    def cls(self, path):
        mod_name, _, qual = str(path).partition(":")
        if not any(mod_name == m or mod_name.startswith(m + ".") for m in _ALLOWED_MODULES):
            self.fail(f"class {path!r} is outside the topics package and scikit-learn")
        try:
            obj = importlib.import_module(mod_name)
            for part in qual.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            self.fail(f"class {path!r} does not exist in this version")
        if not isinstance(obj, type):
            self.fail(f"{path!r} is not a class")
        return obj


# ------------------------------------------------------------------------ vocabulary

def vocabulary_params(vocab):
    """The settings of a :class:`Vocabulary` as JSON (the stop list as ``"english"``,
    ``null`` or a word list)."""
    stop = vocab.stop_words
    if stop is None:
        stop_desc = None
    elif isinstance(stop, str) or frozenset(stop) == ENGLISH_STOP_WORDS:
        stop_desc = "english"
    else:
        stop_desc = sorted(stop)
    return {"min_count": vocab.min_count, "min_df": vocab.min_df, "max_df": vocab.max_df,
            "max_features": vocab.max_features, "stop_words": stop_desc,
            "min_length": vocab.min_length, "ngram_range": list(vocab.ngram_range),
            "lowercase": bool(vocab.lowercase), "digits": bool(vocab.digits),
            "alphabet": vocab.alphabet, "weighting": vocab.weighting,
            "sublinear_tf": bool(vocab.sublinear_tf),
            "norm": None if vocab.norm is None else float(vocab.norm),
            "analyzer": vocab.analyzer,
            # character n-grams of whole runs of Han ideographs and kana (written only for
            # char_wb, so that a word vocabulary's file is as before)
            **({"cjk_runs": True} if vocab.analyzer == "char_wb" else {}),
            # a stop word in any case (written only where the case is kept, likewise)
            **({"stop_any_case": True} if not vocab.lowercase else {})}


def rebuild_vocabulary(params, words, idf=None):
    """A fitted :class:`Vocabulary` from :func:`vocabulary_params`, its word list and (tf-idf)
    its ``idf_``.  Files written before the Unicode tokens (no ``alphabet`` entry) keep the
    ASCII tokens they were fitted with, character vocabularies written before runs of
    Han ideographs and kana were one token (no ``cjk_runs`` entry) keep each one a token, and
    vocabularies that keep the case, written before a stop word was stopped in any case (no
    ``stop_any_case`` entry), stop it as written."""
    p = dict(params)
    p.setdefault("alphabet", "ascii")
    cjk_runs, any_case = p.pop("cjk_runs", False), p.pop("stop_any_case", False)
    stop = p.pop("stop_words", "english")
    p["stop_words"] = ENGLISH_STOP_WORDS if stop == "english" else (
        None if stop is None else frozenset(stop))
    if "ngram_range" in p:
        p["ngram_range"] = tuple(p["ngram_range"])
    vocab = Vocabulary(**p)
    if vocab.analyzer == "char_wb" and not cjk_runs:   # written when each ideograph was one
        vocab._cjk_runs = False
    if not vocab.lowercase and not any_case:   # written when 'The' was not 'the'
        vocab._stop_any_case = False
    vocab.words_ = [str(w) for w in words]
    vocab.index_ = {w: i for i, w in enumerate(vocab.words_)}
    if vocab.weighting == "tfidf":
        if idf is None or len(idf) != len(vocab.words_):
            raise ValueError("a tf-idf vocabulary needs one idf value per word")
        vocab.idf_ = np.asarray(idf, dtype=np.float64)
    return vocab


# ------------------------------------------------------------------------ files

@dataclasses.dataclass
class SavedModel:
    """What :func:`load_model` returns."""

    estimator: object
    vocabulary: Vocabulary
    labels: list
    model: str
    info: dict
    meta: dict
    #: :func:`text_digests` of the training documents (``None``: a model written before)
    training_digests: object = None
    #: each class as the estimator stores it -> its name as labels are read now
    #: (:func:`topics._layouts.label_name`: ``1.0`` of a model written before is ``1``)
    class_names: dict = dataclasses.field(default_factory=dict)

    def predict(self, X):
        """The class names (:attr:`labels`' spelling) the estimator predicts for ``X``."""
        return [self.class_names.get(str(p), str(p)) for p in self.estimator.predict(X)]


def save_model(path, estimator, *, model, vocabulary, info=None, texts=None):
    """Write a fitted ``estimator`` with its ``vocabulary`` to ``path`` (atomically).

    ``model`` is the name the estimator was chosen by (e.g. ``"sdem-nb"``); ``info``
    any JSON-able facts to keep with it (data file, sizes, training time); ``texts`` the
    training documents, kept as :func:`text_digests` only.  Returns the
    list of attributes that could not be stored (see the module docstring).
    """
    enc = _Encoder()
    desc = enc.estimator(estimator, "state")
    labels = [str(c) for c in getattr(estimator, "classes_", [])]
    meta = {
        "format": FORMAT, "version": FORMAT_VERSION, "model": model,
        "class": desc["class"], "params": desc["params"], "state": desc["state"],
        "skipped": enc.skipped, "vocabulary_params": vocabulary_params(vocabulary),
        "info": info or {},
    }
    arrays = dict(enc.arrays)
    arrays["vocabulary"] = np.asarray(vocabulary.words_, dtype=str)
    if vocabulary.idf_ is not None:
        arrays["vocabulary_idf"] = np.asarray(vocabulary.idf_, dtype=np.float64)
    arrays["labels"] = np.asarray(labels, dtype=str)
    if texts is not None:
        arrays["training_digests"] = text_digests(texts)
    save_npz(path, arrays, meta)
    return enc.skipped


def _read_meta(where):
    """``(meta, arrays)`` of a model file of either version, or a :class:`FormatError`."""
    what = "a topic model file (written by 'structpred topics train')"
    try:
        return load_npz(where, FORMAT, (FORMAT_VERSION,), what=what)
    except FormatError as exc:
        arrays = read_npz(where, what)             # unreadable: its own FormatError
        if "__meta__" not in arrays:               # not version 1 either
            raise exc from None
    try:                                           # version 1: the header as a string
        meta = json.loads(str(arrays.pop("__meta__")[()]))
    except (json.JSONDecodeError, TypeError, ValueError):
        raise FormatError(where, None, "not a topic model file (unreadable metadata)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise FormatError(where, None, "not a topic model file (written by 'structpred topics "
                                       "train')")
    if meta.get("format_version") != _LEGACY_VERSION:
        raise FormatError(where, None, f"model file format version {meta.get('format_version')} "
                                       f"is not supported (this version reads {_LEGACY_VERSION} "
                                       f"and {FORMAT_VERSION})")
    return meta, arrays


def _probe(estimator, n_words, where):
    """Predict one document of the vocabulary's first and last words: arrays of the model
    that do not fit one another (an edited or damaged file) failed at ``predict`` in an
    ``IndexError`` traceback, after the data was read."""
    probe = sp.csr_matrix((np.ones(min(n_words, 2)), ([0] * min(n_words, 2),
                                                      sorted({0, n_words - 1}))),
                          shape=(1, n_words)) if n_words else sp.csr_matrix((1, 0))
    try:
        estimator.predict(probe)
    except (IndexError, ValueError, TypeError):
        raise FormatError(where, None, "a topic model file whose arrays do not fit one "
                                       "another (a damaged or edited file)") from None


def load_model(path):
    """Read a file written by :func:`save_model`.

    Raises :class:`FormatError` (one line, naming the file) if ``path`` is missing or is
    not such a model file, and ``FileNotFoundError`` if it does not exist.
    """
    where = os.fspath(path)
    refuse_stdin_model(where, "a topic model")
    if not os.path.exists(where):
        raise FormatError(where, None, "no such model file")
    if os.path.isdir(where):
        raise FormatError(where, None, "is a folder, not a model file")
    meta, arrays = _read_meta(where)
    dec = _Decoder(arrays, where)
    try:
        est = dec.decode({_TAG: "estimator", "class": meta["class"], "params": meta["params"],
                          "state": meta["state"]})
        vocab = rebuild_vocabulary(meta["vocabulary_params"], dec.array("vocabulary"),
                                   arrays.get("vocabulary_idf"))
        stored = [str(x) for x in dec.array("labels")]
    except FormatError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(where, None, f"not a valid topic model file ({damage_reason(exc)})"
                          ) from None
    _probe(est, len(vocab.words_), where)
    names = _class_names(stored, where)
    return SavedModel(estimator=est, vocabulary=vocab, labels=[names[c] for c in stored],
                      model=meta.get("model", "?"), info=meta.get("info", {}), meta=meta,
                      training_digests=arrays.get("training_digests"), class_names=names)


def _class_names(stored, where):
    """Each stored class name -> its name as labels are read now (:func:`label_name`), once
    for ``predict`` and ``eval`` alike: a model written before stored pandas' ``1.0`` as it
    was, and ``predict`` wrote ``1.0`` where ``eval`` scored ``1``.  Two classes that are
    one name now (``1`` and ``1.0``) are refused: no input can tell them apart."""
    names = {c: label_name(c) for c in stored}
    seen = {}
    for c in stored:
        other = seen.setdefault(names[c], c)
        if other != c:
            raise FormatError(where, None, f"the model's classes {other!r:.40} and {c!r:.40} are "
                                           f"one class as labels are read now ({names[c]!r:.40}):"
                                           " retrain the model")
    return names
