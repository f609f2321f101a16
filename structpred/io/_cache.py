"""Caches keyed by everything that made them.

A cached object records a *key*: a flat JSON dict of everything that fixed it, namely the
fingerprint of each input file (:func:`~structpred.io.file_fingerprint`, a hash of the
whole content) and every option that changes the result.  :func:`load_or_compute` uses a
cache only when its key equals the one asked for; otherwise

* a cache *folder* gets a new file named by the key's hash (``<kind>-<hash>.npz``), and
* an explicit cache *file* is refused with :class:`CacheMismatch`, which names each
  differing field; it is never rewritten in place.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ._files import FormatError
from ._notes import note
from ._npz import RESTORE_ADVICE

__all__ = ["CacheMismatch", "load_or_compute", "key_hash", "cache_file", "is_cache_folder",
           "DAMAGED_CACHE_HINT", "damaged_cache"]

#: what to do with a damaged file of a cache folder (named by its key, so never a file the
#: user chose): it is recomputed once deleted
DAMAGED_CACHE_HINT = "a damaged cache file: delete it to recompute"


def damaged_cache(exc, hint=DAMAGED_CACHE_HINT):
    """The :class:`FormatError` ``exc`` (raised reading a file of a cache folder) with
    :data:`DAMAGED_CACHE_HINT` in place of its advice to retrain or restore a model file
    ("retrain it or restore the file" named no cache, and nothing said it could go);
    ``hint`` says what to delete when that is more than the file."""
    reason = str(exc.reason).removesuffix(f": {RESTORE_ADVICE}")
    return FormatError(exc.path, exc.line, f"{reason} ({hint})")


class CacheMismatch(FormatError):
    """A cache file made from other inputs or options than the ones asked for."""

    def __init__(self, path, differences, hint=None):
        self.differences = list(differences)
        reason = "made with other settings: " + "; ".join(self.differences)
        if hint:
            reason += f" ({hint})"
        super().__init__(path, None, reason)

    def __reduce__(self):
        return (type(self), (self.path, self.differences))


def key_hash(key):
    """Short hex hash of a key (for cache file names)."""
    return hashlib.blake2b(json.dumps(key, sort_keys=True).encode("utf-8"),
                           digest_size=8).hexdigest()


def is_cache_folder(cache):
    """Whether the cache path names a folder (an existing one, or ending in ``/``)."""
    return cache is not None and (os.path.isdir(cache) or str(cache).endswith(os.sep))


def cache_file(folder, kind, key):
    """``folder/<kind>-<hash of key>.npz``."""
    return Path(folder) / f"{kind}-{key_hash(key)}.npz"


def _plain_differences(recorded, wanted):
    return [] if recorded == wanted else [f"{k}: {recorded.get(k)!r} in the cache, "
                                          f"{wanted.get(k)!r} asked"
                                          for k in sorted(set(recorded) | set(wanted))
                                          if recorded.get(k) != wanted.get(k)]


def _log(verbose, msg):
    if verbose:
        note(msg)


def load_or_compute(cache, key, compute, load, save, kind, differences=None, compare=None,
                    verbose=False, what="cache", inputs="the inputs"):
    """An object from its cache when the cache was made from the same inputs and options,
    else computed (and cached).

    Parameters
    ----------
    cache : path, optional
        ``None``: no cache, ``compute()``.  A folder (an existing one, or a path ending
        in ``/``): the file ``<kind>-<hash of key>.npz`` in it, read when it exists,
        else computed and written; every key gets its own file.  Anything else: one
        file, read when it exists and its key agrees (else :class:`CacheMismatch`: the
        file is never rewritten), computed and written when it is missing.
    key : dict or None
        What the object is made from (JSON-serialisable).  ``None`` (the inputs are not
        at hand): an existing cache file is used as it is (after ``differences``); a
        folder or a missing file cannot be used.
    compute : callable
        ``compute()`` makes the object; it gets ``cache_key = key``.
    load, save : callable
        ``load(path)`` and ``save(obj, path)``.  The loaded object's ``cache_key`` is
        compared with ``key``.
    kind : str
        The prefix of the file names in a cache folder.
    differences : callable, optional
        ``differences(obj)``: the readable differences between a cache file's object and
        what was asked (default: ``compare(obj.cache_key, key)``, and "an older file"
        when the file records no key).
    compare : callable, optional
        ``compare(recorded, wanted)``: readable differences between two keys.
    verbose : bool
        Say on stderr what was read or written.
    what : str
        The object's name in those lines.
    inputs : str
        What the key fingerprints, for the messages (``"the bitext"``).

    Raises
    ------
    CacheMismatch
        The cache file was made from other inputs or options (for a file in a cache
        folder, which is named by its key: a damaged file).
    ValueError
        A cache folder or a missing cache file without a key (nothing to name the file
        by or to compute it from).
    """
    compare = compare or _plain_differences
    if cache is None:
        return _computed(compute, key)
    folder = is_cache_folder(cache)
    if folder:
        if key is None:
            raise ValueError(f"{cache}: a cache folder needs {inputs} (to name the files)")
        path = cache_file(cache, kind, key)
    else:
        path = Path(cache)
    if not path.exists():
        obj = _computed(compute, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        save(obj, path)
        _log(verbose, f"{what} written to {path}")
        return obj
    try:
        obj = load(path)
    except FormatError as exc:
        if not folder or isinstance(exc, CacheMismatch):
            raise
        raise damaged_cache(exc) from None
    if differences is not None:
        diffs = list(differences(obj))
    elif key is None:
        diffs = []
    else:
        recorded = getattr(obj, "cache_key", None)
        diffs = (compare(recorded, key) if recorded is not None
                 else [f"it records no fingerprint of {inputs} (an older file)"])
    if diffs:
        raise CacheMismatch(path, diffs, "delete it to recompute" if folder else
                            "use another cache file, or a cache folder, which keeps one "
                            "file per setting")
    _log(verbose, f"{what}: read {path}")
    return obj


def _computed(compute, key):
    obj = compute()
    if key is not None:
        obj.cache_key = key
    return obj
