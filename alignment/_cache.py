"""What every file the alignment package writes records, and how caches are keyed.

Every ``.npz`` file written here (models, statistics, HMM tables, interaction
statistics) holds a ``format`` name and a ``version`` number, checked on load, and
is read with ``allow_pickle=False`` (:func:`structpred.io.read_npz`).

A cache (statistics, HMM, interaction statistics, external links) also records a
*key*: a flat JSON dict of everything that made it, namely the fingerprint of each input
file (:func:`structpred.io.file_fingerprint`: size, hash of the first and last MB,
line count), the number of pairs read, the length filter, and every option that
changes the result (IBM or HMM agreement, HMM iterations, the lexicon choice, the
fingerprint of the Model 2 tables something was computed from).  A cache is used only
when its key equals the one asked for; otherwise

* a cache *folder* gets a new file named by the key's hash
  (``stats-<hash>.npz``, ``hmm-<hash>.npz``, ``interactions-<hash>.npz``), and
* an explicit cache *file* is refused with :class:`CacheMismatch`, which names each
  differing option; it is never rewritten in place.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from pathlib import Path

import numpy as np

from structpred import FormatError
from structpred.io import file_fingerprint, read_npz

__all__ = ["CacheMismatch", "pack_json", "unpack_json", "check_format", "key_hash",
           "bitext_key", "compare_keys", "cache_file", "is_cache_folder", "fit_options",
           "load_arrays", "cached"]

#: key field -> how the user sets it (for the messages of :class:`CacheMismatch`)
OPTION_NAMES = {
    "bitext_src": "--bitext-src", "bitext_tgt": "--bitext-tgt", "n_pairs": "--bitext-pairs",
    "max_length": "--max-length", "protect_first": "first lines kept unfiltered",
    "ibm_agreement": "--ibm-agreement", "ibm_options": "IBM training options",
    "hmm_iterations": "--hmm", "hmm_agreement": "--hmm-agreement",
    "hmm_options": "HMM training options", "lexicon": "--hmm-lexicon",
    "statistics": "the IBM Model 2 statistics", "aligners": "aligner settings",
}


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


def pack_json(obj):
    """``obj`` as JSON in a ``uint8`` array (``.npz`` holds no strings without pickles)."""
    return np.frombuffer(json.dumps(obj, sort_keys=True).encode("utf-8"), dtype=np.uint8)


def unpack_json(arr, path, what):
    """Inverse of :func:`pack_json`; a bad array is a :class:`FormatError` on ``path``."""
    try:
        return json.loads(bytes(np.asarray(arr, dtype=np.uint8)).decode("utf-8"))
    except (ValueError, TypeError, UnicodeDecodeError):
        raise FormatError(path, None, f"corrupt {what} (unreadable metadata)") from None


def _text(arr):
    a = np.asarray(arr)
    if a.dtype.kind == "U" and a.ndim == 0:
        return str(a)
    if a.dtype == np.uint8:
        try:
            return bytes(a).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def check_format(arrays, path, fmt, versions, what, prefix="", legacy_ok=False):
    """Check the ``format`` and ``version`` entries of ``arrays`` (prefixed).

    ``legacy_ok``: files from before the ``format`` entry (version only) pass.
    Returns the version.  Raises :class:`FormatError` naming ``path``.
    """
    name = arrays.get(prefix + "format")
    if name is None:
        if not legacy_ok or prefix + "version" not in arrays:
            raise FormatError(path, None, f"not {what}")
    elif _text(name) != fmt:
        found = _text(name)
        raise FormatError(path, None, f"not {what}"
                          + (f" (a {found} file)" if found else ""))
    try:
        version = int(np.asarray(arrays[prefix + "version"]))
    except (KeyError, TypeError, ValueError):
        raise FormatError(path, None, f"not {what} (no format version)") from None
    if version not in versions:
        raise FormatError(path, None, f"{what} of format version {version}, which this "
                          f"structpred cannot read (it reads {', '.join(map(str, versions))})")
    return version


def load_arrays(path, what):
    """:func:`structpred.io.read_npz` with ``what`` in the messages."""
    return read_npz(path, what)


def key_hash(key):
    """Short hex hash of a key (for cache file names)."""
    return hashlib.blake2b(json.dumps(key, sort_keys=True).encode("utf-8"),
                           digest_size=8).hexdigest()


def fit_options(func, kw, drop=("verbose", "n_jobs")):
    """The keyword parameters of ``func`` with their defaults, updated by ``kw``, minus
    those that do not change the result: the options part of a cache key."""
    sig = inspect.signature(func)
    out = {k: p.default for k, p in sig.parameters.items()
           if p.default is not inspect.Parameter.empty and k not in drop}
    out.update({k: v for k, v in kw.items() if k not in drop})
    return {k: (None if isinstance(v, float) and not np.isfinite(v) else v)
            for k, v in sorted(out.items())
            if isinstance(v, (int, float, str, bool, type(None)))}


def bitext_key(src_path, tgt_path, max_pairs=None, max_len=None, protect_first=0):
    """The data part of a cache key: both files' fingerprints, the number of pairs read,
    the length filter and the protected lines.

    ``max_pairs`` beyond the end of the files reads them whole (the same data as
    ``None``).  Raises :class:`FormatError` for an empty bitext or, when the pairs read
    reach past the shorter file, for files of different lengths.
    """
    fs, ft = file_fingerprint(src_path), file_fingerprint(tgt_path)
    lines = min(fs["lines"], ft["lines"])
    n = lines if max_pairs is None else min(int(max_pairs), lines)
    if fs["lines"] != ft["lines"] and (max_pairs is None or int(max_pairs) > lines):
        longer, shorter = ((src_path, tgt_path) if fs["lines"] > ft["lines"]
                           else (tgt_path, src_path))
        raise FormatError(longer, lines + 1, f"line counts differ: {shorter} has only "
                          f"{lines} lines")
    if n == 0:
        raise FormatError(src_path if fs["lines"] == 0 else tgt_path, None,
                          "empty: no sentence pairs")
    return {"bitext_src": fs, "bitext_tgt": ft, "n_pairs": n,
            "max_length": None if max_len is None else int(max_len),
            "protect_first": int(protect_first)}


def _show(field, value):
    if isinstance(value, dict) and "hash" in value:
        return f"a file of {value.get('lines')} lines, {value.get('size')} bytes"
    if isinstance(value, bool):
        return "on" if value else "off"
    if field == "hmm_iterations" and not value:
        return "none"
    if field == "max_length" and value is None:
        return "no limit"
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return "none" if value is None else str(value)


def compare_keys(recorded, wanted):
    """The differences between two keys, one readable string per differing field
    (``"--bitext-pairs: 4000 in the cache, 1500 asked"``); empty if they agree."""
    out = []
    for field in sorted(set(recorded) | set(wanted), key=lambda f: (f not in OPTION_NAMES, f)):
        a, b = recorded.get(field), wanted.get(field)
        if a != b:
            out.append(f"{OPTION_NAMES.get(field, field)}: {_show(field, a)} in the cache, "
                       f"{_show(field, b)} asked")
    return out


def is_cache_folder(cache):
    """Whether the cache path names a folder (an existing one, or ending in ``/``)."""
    return cache is not None and (os.path.isdir(cache) or str(cache).endswith(os.sep))


def cache_file(folder, kind, key):
    """``folder/<kind>-<hash of key>.npz``."""
    return Path(folder) / f"{kind}-{key_hash(key)}.npz"


def cached(path, key, load, compute, save, verbose=False, what="cache"):
    """``load(path)`` if that file exists and records ``key`` (its ``cache_key``), else
    ``compute()``, then ``save(obj, path)``.  A file recording another key is a
    :class:`CacheMismatch` (in a folder of files named by their keys, a damaged file)."""
    import sys

    path = Path(path)
    if path.exists():
        obj = load(path)
        recorded = getattr(obj, "cache_key", None)
        if recorded != key:
            raise CacheMismatch(path, compare_keys(recorded, key) if recorded is not None
                                else ["it records no key (an older file)"],
                                "delete it to recompute")
        if verbose:
            print(f"{what}: read {path}", file=sys.stderr, flush=True)
        return obj
    obj = compute()
    obj.cache_key = key
    path.parent.mkdir(parents=True, exist_ok=True)
    save(obj, path)
    if verbose:
        print(f"{what} written to {path}", file=sys.stderr, flush=True)
    return obj
