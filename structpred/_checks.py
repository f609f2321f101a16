"""Argument checks shared by every estimator of the toolkit (alignment, segmentation,
sequence labelling, topics): one wording for each class of bad hyperparameter, raised
before any work, in the estimator's terms rather than numpy's (``int()`` truncating 2.5,
numpy's "expected non-negative integer" for a negative seed)."""

from __future__ import annotations

import math
import numbers
import re
import unicodedata

import numpy as np

__all__ = ["check_whole", "check_number", "check_seed", "resolve_seed", "estimator_seed",
           "seed_generator",
           "SEED_INSTANCES", "check_n_jobs", "check_positive", "check_flag",
           "label_clash", "check_label_spellings", "whole_array", "index_pairs", "dense", "unmasked", "split_comma_items",
           "physical_memory", "check_ordered", "check_unchanged_since_fit"]


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (``None`` where ``os.sysconf`` cannot say)."""
    import os

    try:
        n = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return int(n) if n > 0 else None


def check_ordered(values, name, items="items", read=True):
    """``values`` as a sequence in order (an iterator made a list, unless ``read`` is
    false: then it is returned unread): ``None``, a set, a
    mapping or a value that cannot be iterated is a ``TypeError`` naming ``name`` (a set
    has no order, so its items were paired with the wrong labels or positions silently; a
    dict was read as its keys; ``None`` and a number were Python's "not iterable")."""
    if type(values) is list or type(values) is tuple:   # the common case, per sentence
        return values
    from collections.abc import Iterator, Mapping

    if isinstance(values, (set, frozenset, Mapping)):
        raise TypeError(f"{name} must be a sequence in order (a list, tuple or array of "
                        f"{items}), got a {type(values).__name__}, which has no order")
    if values is None or not hasattr(values, "__iter__"):
        raise TypeError(f"{name} must be a list of {items}, got "
                        f"{'None' if values is None else type(values).__name__}")
    return list(values) if read and isinstance(values, Iterator) else values


def split_comma_items(text):
    """The stripped items of a comma-separated list ``"a, b,c"``; ``ValueError`` on an empty
    item (``1,,2``, ``1,2,``: a value lost to a typo, dropped silently before).  A blank
    ``text`` gives no items."""
    items = [t.strip() for t in str(text).split(",")]
    if len(items) > 1 and not all(items):
        raise ValueError(f"an empty item in the comma-separated list {text!r} "
                         "(two commas in a row, or one at an end?)")
    return [t for t in items if t]


def check_whole(name, value, lo=1, hi=None):
    """``ValueError`` unless ``value`` is an integer (not a bool, not 2.5, which ``int()``
    would cut to 2) of at least ``lo`` (and at most ``hi``, a cap that keeps a typo such
    as ``10**12`` iterations from running for ever)."""
    whole = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if hi is None:
        if not whole or value < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")
    elif not whole or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi:,}, got {value!r}")


def whole_array(name, values):
    """``values`` as a 1-D int64 array, or ``ValueError`` unless every entry is a whole
    number (``np.asarray(.., dtype=np.int64)`` cut 0.5 to 0 and NaN to a huge negative)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of integers, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind == "f" and np.all(np.abs(arr) <= _EXACT) and np.all(arr == np.round(arr)):
        return arr.astype(np.int64)          # also np.asarray([]), which is float
    bad = [v for v in arr.tolist() if not _is_whole(v)]
    if not bad and arr.dtype.kind != "b":
        return arr.astype(np.int64)          # an object array of whole numbers
    got = bad[0] if bad else arr.tolist()[0]
    raise ValueError(f"{name} must hold integers, got {got!r} ({arr.dtype})")


def unmasked(values, name):
    """``values`` as they are, unless a numpy masked array with an entry masked: a
    ``ValueError`` naming ``name`` (numpy reads a masked array as the values under its
    mask, so the masked entries were used as numbers, silently)."""
    mask = np.ma.getmask(values) if isinstance(values, np.ma.MaskedArray) else np.ma.nomask
    if mask is not np.ma.nomask and mask.any():
        n = int(np.count_nonzero(mask))
        raise ValueError(f"{name} is a masked array with {n} masked "
                         f"{'entry' if n == 1 else 'entries'}: fill {'it' if n == 1 else 'them'}"
                         f" with the values to use (.filled(value)); the values under the "
                         f"mask would be read")
    return values


def dense(values):
    """``values``, a scipy sparse matrix or array made a dense numpy array (numpy reads one
    as a single object: "setting an array element with a sequence", "float() argument must
    be ... not 'dok_matrix'"); anything else as it is."""
    import scipy.sparse as sp

    return values.toarray() if sp.issparse(values) else values


def index_pairs(name, values, n):
    """``values`` as an ``(P, 2)`` int64 array of indices in ``[0, n)`` (a flat sequence of
    even length is read as its pairs); ``ValueError`` naming ``name`` for another shape, a
    value that is not a whole number (``0.5`` was cut to edge 0, ``True`` read as 1, NaN
    was numpy's "cannot convert float NaN to integer") or an index out of range."""
    arr = np.asarray(values)
    if arr.size % 2 or (arr.ndim == 2 and arr.shape[1] != 2) or arr.ndim > 2:
        raise ValueError(f"{name} must be an (n_pairs, 2) array of edge indices, got shape "
                         f"{arr.shape}")
    out = whole_array(name, arr.reshape(-1)).reshape(-1, 2)
    if len(out) and (out.min() < 0 or out.max() >= n):
        raise ValueError(f"pair refers to an edge outside the sentence pair ({name} must "
                         f"hold edge indices from 0 to {n - 1})")
    return out


#: the largest magnitude of a float that stands for an exact integer (2**53)
_EXACT = 2.0 ** 53


def _is_whole(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, numbers.Integral):
        return -2 ** 63 <= v < 2 ** 63
    return isinstance(v, numbers.Real) and abs(v) <= _EXACT and v == int(v)


def check_number(name, value, lo=0.0, strict=False, infinite=False, hi=None):
    """``ValueError`` unless ``value`` is a real number (not a bool, a string or NaN) of
    at least ``lo`` (above it with ``strict``), finite unless ``infinite`` (a cost of NaN was
    a learner's "zp contains NaN values", a negative one a "loss costs" error), and at most
    ``hi`` when given (a cap on a scale whose overflow would surface deep in a solver)."""
    ok = (not isinstance(value, bool) and isinstance(value, numbers.Real)
          and not math.isnan(value) and (infinite or math.isfinite(value))
          and (value > lo if strict else value >= lo) and (hi is None or value <= hi))
    if not ok:
        kind = "a number" if infinite else "a finite number"
        most = "" if hi is None else f" and at most {hi:g}"
        raise ValueError(f"{name} must be {kind} {'>' if strict else '>='} {lo:g}{most}, "
                         f"got {value!r}")


#: the numpy generator objects every estimator takes as its ``random_state``
SEED_INSTANCES = (np.random.RandomState, np.random.Generator)


def check_seed(value, name="random_state", seed_sequence=False, generators=False):
    """``ValueError`` unless ``value`` is ``None``, an integer >= 0 or a numpy
    ``RandomState``/``Generator`` (or, with ``seed_sequence``, a
    :class:`numpy.random.SeedSequence`; with ``generators``, anything
    :func:`numpy.random.default_rng` takes: a ``SeedSequence``, ``Generator``, bit
    generator or ``RandomState``): what every stochastic component takes as its seed.  A
    bool, a negative or fractional number and a string are refused, naming ``name``."""
    accepted = SEED_INSTANCES + ((np.random.SeedSequence,) if seed_sequence or generators
                                 else ()) + ((np.random.BitGenerator,) if generators else ())
    if value is None or isinstance(value, accepted):
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        kinds = ("an integer >= 0, None, a SeedSequence or a numpy Generator" if generators
                 else "an integer >= 0, None, a SeedSequence, a numpy RandomState or "
                 "Generator" if seed_sequence else
                 "an integer >= 0, None, a numpy RandomState or Generator")
        raise ValueError(f"{name} must be {kinds}, got {value!r:.60}")


def resolve_seed(value, name="random_state", seed_sequence=False):
    """``value`` (a ``random_state``, checked by :func:`check_seed`) as the seed a component
    takes: ``None`` and an integer as they are (a ``SeedSequence`` too with
    ``seed_sequence``), a numpy ``RandomState`` or ``Generator`` as an integer in
    ``[0, 2**32)`` drawn from it.  The draw advances the instance, and two instances in
    one state give one seed, so equal fresh ``RandomState(0)`` give equal results."""
    check_seed(value, name, seed_sequence=seed_sequence)
    if isinstance(value, np.random.RandomState):
        return int(value.randint(0, 2 ** 32, dtype=np.uint64))
    if isinstance(value, np.random.Generator):
        return int(value.integers(0, 2 ** 32, dtype=np.uint64))
    return value if value is None or isinstance(value, np.random.SeedSequence) else int(value)


def seed_generator(value, name="random_state", generators=False):
    """The numpy ``Generator`` a function draws from for its ``random_state`` ``value``
    (checked by :func:`check_seed`): a ``RandomState`` or ``Generator`` stands for the seed
    :func:`resolve_seed` draws from it, as in every estimator (``default_rng`` used a
    ``RandomState``'s own bit generator, and a ``Generator`` itself, so ``RandomState(7)``
    did not give the result of the seed drawn from it); ``None`` is fresh entropy."""
    check_seed(value, name, generators=generators)
    if isinstance(value, SEED_INSTANCES):
        value = resolve_seed(value, name)
    return np.random.default_rng(value)


def estimator_seed(estimator, name="random_state", seed_sequence=False):
    """The seed of ``estimator``'s ``random_state`` (:func:`resolve_seed`), its parameter
    left as given (``sklearn.base.clone`` and ``get_params`` see it unchanged).  From a
    ``RandomState`` or ``Generator`` the seed is drawn once, at the estimator's first use
    of that instance, and kept for its later fits and predictions (so that they agree);
    another instance given later is drawn from again."""
    value = getattr(estimator, name)
    if not isinstance(value, SEED_INSTANCES):
        return resolve_seed(value, name, seed_sequence)
    kept = estimator.__dict__.get("_drawn_seed")
    if kept is None or kept[0] is not value:
        kept = (value, resolve_seed(value, name, seed_sequence))
        estimator.__dict__["_drawn_seed"] = kept
    return kept[1]


def check_n_jobs(value, name="n_jobs", none=False, hi=10 ** 7):
    """The number of workers ``value`` stands for, by joblib's convention: an integer from 1
    to ``hi`` itself, -1 every CPU this process may use
    (:func:`structpred.parallel.usable_cpus`), -2 all but one, ``-k`` all but ``k - 1``, never
    fewer than 1; ``None`` is 1, as scikit-learn reads it outside a joblib context (it was
    refused), or stays ``None`` where ``none`` (the caller's default).  0, a bool, a
    fraction and a string are refused (``ValueError`` naming ``name``)."""
    if value is None:
        return None if none else 1
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value == 0:
        raise ValueError(f"{name} must be an integer >= 1 or negative (-1: every CPU, -2: all "
                         f"but one), or None, got {value!r:.60}")
    if not -hi <= value <= hi:
        raise ValueError(f"{name} must be at most {hi:,} in size, got {value!r}")
    if value > 0:
        return int(value)
    from .parallel import usable_cpus

    return max(1, usable_cpus() + 1 + int(value))


def check_flag(name, value):
    """``value`` as a bool, or ``ValueError`` unless it is ``True`` or ``False`` (a numpy
    bool, or the integers 0 and 1, too): any other value was read by its truth, so
    ``lowercase="no"`` or ``shuffle="false"`` switched the option on."""
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)
                                              and value in (0, 1)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {value!r:.60}")


def check_positive(name, value, allow_inf=False):
    """``value`` as a float, or ``ValueError`` unless it is a real number > 0 and finite
    (``allow_inf``: or ``inf``): :func:`check_number` with ``lo=0, strict=True``; not a
    bool, a string or an array (numpy's "truth value of an array is ambiguous")."""
    if isinstance(value, np.ndarray) or isinstance(value, (list, tuple, dict)):
        raise ValueError(f"{name} must be a number > 0, got {type(value).__name__} "
                         f"{value!r:.60}")
    check_number(name, value, 0.0, strict=True, infinite=allow_inf)
    return float(value)


_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"))


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?")


def _spelling(label):
    """What two spellings of one label share: NFKC form, case folded, white space around
    and invisible characters (zero-width, soft hyphen) removed, and a decimal number
    written as its value (``1``, ``01``, ``1.0``, ``+1`` are one label, as a spreadsheet or
    pandas writes a class number)."""
    text = unicodedata.normalize("NFKC", str(label)).translate(_INVISIBLE).casefold().strip()
    if _NUMBER.fullmatch(text) and math.isfinite(float(text)):
        return repr(float(text) + 0.0)
    return text


def _is_number(label):
    text = str(label).strip()
    return bool(_NUMBER.fullmatch(text.casefold())) and math.isfinite(float(text))


def label_clash(labels, known=None):
    """Two different labels that differ only in case, white space around them, invisible
    characters or Unicode normal form (``'Sport'`` and ``'sport'``, ``'B-NP'`` and
    ``'b-np'``): ``(label, other)``, else ``None``.  Without ``known``, among ``labels``; with
    ``known`` (a model's classes), a label of ``labels`` not in ``known`` against one that
    is.  Such labels are one class spelled twice, far more often than two classes: counted
    as two, a class is split in training, or every document of it is an error in scoring."""
    seen = {}
    if known is not None:
        known = set(known)
        for k in known:
            seen.setdefault(_spelling(k), k)
    for label in labels:
        if known is not None and label in known:
            continue
        other = seen.setdefault(_spelling(label), label)
        if other != label:
            return label, other
    return None


def check_label_spellings(labels, known=None, name="y", where=None):
    """``ValueError`` naming the pair that :func:`label_clash` finds, after ``name`` (or
    ``where(label)``, e.g. the file and line of the label)."""
    clash = label_clash(labels, known)
    if clash is not None:
        whose = "the model's label" if known is not None else "the label"
        name = name if where is None else where(clash[0])
        nfc = {unicodedata.normalize("NFC", str(t)) for t in clash}
        how = ("are one number written two ways" if all(map(_is_number, clash)) else
               "are one text in two Unicode normal forms (NFC and NFD: an accented letter "
               "as one character or as a letter and a combining accent)" if len(nfc) == 1 else
               "differ only in case, white space or invisible characters")
        raise ValueError(f"{name}: the label {clash[0]!r:.40} and {whose} {clash[1]!r:.40} "
                         f"{how}: one class or two? spell them alike")


def _differs(now, was):
    """``now != was`` as one truth value (arrays and the like: by their repr)."""
    if now is was:
        return False
    try:
        return bool(now != was)
    except (TypeError, ValueError):   # arrays: no single truth value
        return repr(now) != repr(was)


def check_unchanged_since_fit(estimator, fitted, why):
    """``ValueError`` for the first hyperparameter of ``fitted`` (name -> its value at
    ``fit``) that ``set_params`` has changed since, ``why`` saying what was fitted on it
    (``"the weights are the fitted model's"``): scikit-learn's estimators take a changed
    hyperparameter at the next ``fit``, never half of it at ``predict``."""
    for name, was in fitted.items():
        now = getattr(estimator, name)
        if _differs(now, was):
            raise ValueError(f"{name} was {was!r} at fit and is {now!r} now (set_params): "
                             f"{why}; set it back or fit again")
