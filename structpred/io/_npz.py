"""Model and cache files: arrays plus a JSON header with a format name and a version.

Every file a package writes (fitted models, statistics, tables) goes through one pair:
:func:`save_npz` writes the arrays and a header (a JSON object holding at least
``format`` and ``version``) into one ``.npz`` archive, atomically, and :func:`load_npz`
reads them back with ``allow_pickle=False`` (:func:`~structpred.io.read_npz`), checks the
format name and the version, and names the file in every error.

The header is the ``meta`` entry (JSON as ``uint8``: an ``.npz`` holds no strings without
pickles).  The format name and the version are also written as two entries of their own
(``format``, ``version``), the layout of the files written before this module (statistics,
HMM tables), so that those files still load here and the new ones still load in older
versions of structpred.
"""

from __future__ import annotations

import json
import os

from ._files import FormatError, read_npz
from ._outputs import atomic_write

__all__ = ["save_npz", "load_npz", "content_digest", "with_digest", "check_digest", "damage_reason", "pack_json", "unpack_json", "check_format", "found_format", "check_npz_kind",
           "CLOCK_KEYS", "drop_clock_readings"]

#: the entry that holds the JSON header
HEADER = "meta"

#: the header field holding :func:`content_digest` of the arrays and the rest of the header
DIGEST = "digest"


def pack_json(obj, sort_keys=True):
    """``obj`` as JSON in a ``uint8`` array (``.npz`` holds no strings without pickles)."""
    import numpy as np

    return np.frombuffer(json.dumps(obj, sort_keys=sort_keys).encode("utf-8"), dtype=np.uint8)


def unpack_json(arr, path, what):
    """Inverse of :func:`pack_json`; a bad array is a :class:`FormatError` on ``path``."""
    import numpy as np

    try:
        return json.loads(bytes(np.asarray(arr, dtype=np.uint8)).decode("utf-8"))
    except (ValueError, TypeError, UnicodeDecodeError):
        raise FormatError(path, None, f"{what} whose header is unreadable (a damaged or "
                                      "edited file)") from None


def _text(arr):
    import numpy as np

    a = np.asarray(arr)
    if a.dtype.kind == "U" and a.ndim == 0:
        return str(a)
    if a.dtype == np.uint8:
        try:
            return bytes(a).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def content_digest(arrays, header):
    """``"sha256:..."`` over ``header`` (less its :data:`DIGEST`, as sorted JSON) and each
    array's name, dtype, shape and bytes, in the order of the names: what :func:`save_npz`
    records and :func:`load_npz` checks (a file edited after it was written)."""
    import hashlib

    import numpy as np

    h = hashlib.sha256()
    rest = json.loads(json.dumps({k: v for k, v in header.items() if k != DIGEST}))
    h.update(json.dumps(rest, sort_keys=True).encode("utf-8"))
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(json.dumps([key, a.dtype.str, list(a.shape)]).encode("utf-8"))
        h.update(a.data if a.dtype.kind in "biuf" else a.tobytes())   # numbers: no copy
    return "sha256:" + h.hexdigest()


def found_format(arrays):
    """The format name a structpred ``.npz`` file declares, whatever its layout (a JSON
    ``meta`` header, a ``format`` entry, the topic models' ``__meta__`` string), or None:
    for the message that names the kind of file given in place of another ("a
    structpred-matching-aligner file"), never a missing key."""
    import numpy as np

    for key in (HEADER, "__meta__"):
        if key in arrays:
            a = np.asarray(arrays[key])
            text = str(a[()]) if a.dtype.kind == "U" and a.ndim == 0 else _text(a)
            try:
                header = json.loads(text) if text else None
            except ValueError:
                header = None
            if isinstance(header, dict) and isinstance(header.get("format"), str):
                return header["format"]
    if "format" in arrays:
        return _text(arrays["format"])
    return None


def check_npz_kind(path, fmt, what):
    """Refuse, before any work, an existing file ``path`` given for ``what`` (a cache of
    the statistics, ``--stats FILE``) that is not of the format ``fmt``: only its header
    is read. A file of another kind was refused by its loader after the work that came
    before (``align train --interaction-stats tagger.npz``: after the statistics, the HMM
    and the start of training). A damaged archive is left to the loader."""
    import numpy as np

    name = os.fspath(path)
    with open(name, "rb") as fh:
        head = fh.read(4)
    if head != b"PK\x03\x04":
        read_npz(name, what)          # empty, gzipped, not an archive: its own refusal
    try:
        with np.load(name, allow_pickle=False) as z:
            found = found_format(z) if hasattr(z, "files") else None
    except Exception:  # noqa: BLE001 - a damaged archive: the loader names it
        return
    if found is not None and found != fmt:
        raise FormatError(name, None, f"not {what} (a {found} file)")


def check_format(arrays, path, fmt, versions, what, prefix="", legacy_ok=False):
    """Check the ``format`` and ``version`` entries of ``arrays`` (the older layout, whose
    names may carry a ``prefix`` when several objects share a file).

    ``legacy_ok``: files from before the ``format`` entry (version only) pass.
    Returns the version.  Raises :class:`FormatError` naming ``path``.
    """
    import numpy as np

    name = arrays.get(prefix + "format")
    if name is None:
        if not legacy_ok or prefix + "version" not in arrays:
            found = found_format(arrays)
            raise FormatError(path, None, f"not {what}"
                              + (f" (a {found} file)" if found else ""))
    elif _text(name) != fmt:
        found = _text(name)
        raise FormatError(path, None, f"not {what}"
                          + (f" (a {found} file)" if found else ""))
    try:
        version = int(np.asarray(arrays[prefix + "version"]))
    except (KeyError, TypeError, ValueError):
        raise FormatError(path, None, f"not {what} (no format version)") from None
    _check_version(path, version, versions, what)
    return version


def _check_version(path, version, versions, what):
    if version not in versions:
        newer = versions and version > max(versions)
        raise FormatError(path, None, f"{what} of format version {version}, which this "
                          f"structpred cannot read (it reads {', '.join(map(str, versions))})"
                          + ("; it is newer than this structpred reads: upgrade structpred"
                             if newer else ""))


#: header entries that hold clock readings (wall or CPU seconds of a run): a model file
#: keeps none, so that the same command on the same data writes the same bytes
CLOCK_KEYS = frozenset({"time", "seconds", "cpu_seconds", "fit_seconds", "total_seconds",
                        "fit_time", "fit_time_", "inference_time_", "svm_time_", "seconds_"})


def drop_clock_readings(obj):
    """``obj`` (JSON-like: dicts, lists, scalars) without the entries of any dict whose
    key is in :data:`CLOCK_KEYS`, at any depth."""
    if isinstance(obj, dict):
        return {k: drop_clock_readings(v) for k, v in obj.items() if k not in CLOCK_KEYS}
    if isinstance(obj, (list, tuple)):
        return [drop_clock_readings(v) for v in obj]
    return obj


def save_npz(path, arrays, header, compressed=True):
    """Write ``arrays`` and ``header`` to one ``.npz`` file, atomically.

    The header is written without clock readings (:func:`drop_clock_readings`), and the
    archive members carry a fixed time stamp: the bytes depend only on the content.

    Parameters
    ----------
    path : str or path-like, or a binary file object
    arrays : dict of str to array-like
        Numeric or fixed-width string arrays (no objects: they would need pickles).
    header : dict
        JSON-serialisable; holds at least ``format`` (the kind of file) and ``version``.
    compressed : bool
        ``np.savez_compressed`` (default) or ``np.savez``.

    Raises
    ------
    ValueError
        A float array holds NaN or an infinity (:func:`load_npz` would refuse the file):
        nothing is written.
    """
    import numpy as np

    if not isinstance(header, dict) or "format" not in header or "version" not in header:
        raise ValueError("the header must be a dict with 'format' and 'version'")
    taken = {HEADER, "format", "version"} & set(arrays)
    if taken:
        raise ValueError(f"{', '.join(sorted(taken))}: names of the header's entries, not of "
                         "arrays")
    out = {k: np.asarray(v) for k, v in arrays.items()}
    bad = [k for k, v in out.items() if v.dtype == object]
    if bad:
        raise TypeError(f"object arrays cannot be saved without pickles: {', '.join(bad)}")
    # load_npz refuses NaN and infinities as a damaged file: a file is never written with
    # one (a topic model trained with c=1e300 was written, then refused as "damaged")
    bad = _non_finite(out)
    if bad is not None:
        where = "the file" if hasattr(path, "write") else str(path)
        raise ValueError(f"{where}: not written: its array {bad!r} would hold NaN or an "
                         "infinite value, which no structpred file may hold (did the training "
                         "diverge?)")
    # the shape of every array, checked when the file is read: an array cut short or
    # grown by an edit was used silently where it broadcast (a topic model's counts)
    header = dict(header, shapes={k: list(v.shape) for k, v in out.items()})
    header = drop_clock_readings({k: v for k, v in header.items() if k != DIGEST})
    # a digest of the content, checked when the file is read: an edit that keeps every
    # shape and finite value (one weight changed) was read silently
    header[DIGEST] = content_digest(out, header)
    out[HEADER] = pack_json(header, sort_keys=False)
    out["format"] = np.array(str(header["format"]))
    out["version"] = np.array(int(header["version"]), dtype=np.int64)
    if hasattr(path, "write"):
        _write_npz(path, out, compressed)
        return
    with atomic_write(path, mode="wb") as fh:
        _write_npz(fh, out, compressed)


#: the time stamp of every archive member: the same arrays give the same bytes
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _write_npz(fh, arrays, compressed):
    """``np.savez(_compressed)``'s archive, but with fixed member time stamps, so that a
    file's bytes depend only on its content (numpy stamps the time of writing)."""
    import zipfile

    import numpy as np

    method = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(fh, mode="w", compression=method, allowZip64=True) as zf:
        for name, arr in arrays.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_TIME)
            info.compress_type = method
            _fast_deflate(info)
            info.external_attr = 0o600 << 16
            with zf.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=False)


#: zlib level of the archive members: level 1 deflates the float tables of an aligner's
#: model (125 MB of arrays) to 48.5 MB in 1.4 CPU s, the default level 6 to 45.6 MB in 5.5 s
_DEFLATE_LEVEL = 1


def _fast_deflate(info):
    """Set the member's zlib level to :data:`_DEFLATE_LEVEL` (``ZipInfo.compress_level``
    from Python 3.13, ``_compresslevel`` before)."""
    for attr in ("compress_level", "_compresslevel"):
        if hasattr(info, attr):
            setattr(info, attr, _DEFLATE_LEVEL)
            return


def damage_reason(exc):
    """What an exception raised while rebuilding an object from a file's arrays says about
    the file, without Python's words ("KeyError: 'n_pairs'"): an entry missing, or arrays
    that do not fit one another."""
    if isinstance(exc, KeyError) and exc.args:
        return f"no {exc.args[0]!r} entry; a damaged or edited file"
    return "arrays that do not fit one another; a damaged or edited file"


def _non_finite(arrays):
    """The name of the first array of floats holding NaN or an infinity, else ``None``."""
    import numpy as np

    return next((k for k, a in arrays.items()
                 if a.dtype.kind in "fc" and a.size and not np.isfinite(a).all()), None)


def _check_finite(arrays, path, what):
    """Refuse an array of floats holding NaN or an infinity: no file structpred writes
    holds one (:func:`save_npz` refuses them; an infinite radius is kept in the header),
    so it is a damaged or edited
    file; a NaN weight made ``tag predict`` a traceback, ``topics predict`` label every
    document without a word, ``segment predict`` blame the image ("scores must be
    finite")."""
    import numpy as np

    key = _non_finite(arrays)
    if key is not None:
        which = "NaN" if np.isnan(arrays[key]).any() else "an infinite value"
        raise FormatError(path, None, f"{what} whose array {key!r} holds {which} (a "
                                      "damaged or edited file)")


def _check_shapes(arrays, shapes, path, what):
    """Refuse an array whose shape is not the one :func:`save_npz` recorded (files written
    before it recorded shapes pass)."""
    if not isinstance(shapes, dict):
        return
    for key, a in arrays.items():
        want = shapes.get(key)
        if isinstance(want, list) and list(a.shape) != want:
            raise FormatError(path, None, f"{what} whose array {key!r} has the shape "
                                          f"{tuple(a.shape)}, not the {tuple(want)} it was "
                                          "written with (a damaged or edited file)")


#: what a changed model file's refusal advises (:func:`structpred.io.damaged_cache` puts a
#: cache's advice in its place)
RESTORE_ADVICE = "retrain it or restore the file"


def _check_digest(arrays, header, path, what):
    """Refuse arrays or a header that do not give the digest :func:`save_npz` recorded (an
    edit keeping every shape and finite value); files written before it recorded one (no
    :data:`DIGEST` in the header) pass.  Pops the digest from ``header``."""
    if DIGEST not in header:
        return
    if header.pop(DIGEST) != content_digest(arrays, header):
        raise FormatError(path, None, f"{what} changed after it was written (its content "
                                      f"digest does not match the one recorded): {RESTORE_ADVICE}")


def with_digest(record):
    """The JSON object ``record`` (a dict) with its :func:`content_digest` under
    :data:`DIGEST`: for the JSON files written beside the ``.npz`` ones (a model's options,
    a cache entry's ``meta.json``), checked by :func:`check_digest` when read."""
    return dict(record, **{DIGEST: content_digest({}, record)})


def check_digest(record, path, what):
    """``record`` (a dict read from the JSON file ``path``, written by :func:`with_digest`)
    without its digest; a record whose digest does not match (an edited file) is a
    :class:`FormatError` naming ``path`` that advises :data:`RESTORE_ADVICE` (files written
    before the digest, without one, pass)."""
    record = dict(record)
    _check_digest({}, record, path, what)
    return record


def load_npz(path, fmt, versions, what="a structpred file", legacy_ok=False):
    """Read a file of :func:`save_npz`: ``(header, arrays)``, the format and version checked.

    Parameters
    ----------
    path : str or path-like
    fmt : str
        The format name the header must hold.
    versions : iterable of int
        The versions this code reads.
    what : str
        The kind of file, for the messages (``"a word-alignment model"``).
    legacy_ok : bool
        Accept a file of the older layout with a ``version`` entry but no ``format``.

    Returns
    -------
    header : dict
        With ``format`` and ``version`` (for a file of the older layout, only those two).
    arrays : dict of str to numpy.ndarray
        Every other entry.

    Raises
    ------
    FormatError
        Not such a file (another format, unreadable header, damaged archive) or a version
        not in ``versions``.
    FileNotFoundError
    """
    versions = tuple(versions)
    arrays = read_npz(path, what)
    if HEADER in arrays:
        header = unpack_json(arrays.pop(HEADER), path, what)
        if not isinstance(header, dict):
            raise FormatError(path, None, f"not {what} (its header is not a JSON object)")
        if header.get("format") != fmt:
            found = header.get("format")
            raise FormatError(path, None, f"not {what}"
                              + (f" (a {found} file)" if isinstance(found, str) else ""))
        version = header.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise FormatError(path, None, f"not {what} (no format version)")
        _check_version(path, version, versions, what)
        arrays.pop("format", None)
        arrays.pop("version", None)
        _check_finite(arrays, path, what)       # once the file is known to be of its kind
        _check_shapes(arrays, header.get("shapes"), path, what)
        _check_digest(arrays, header, path, what)
        header.pop("shapes", None)
        return header, arrays
    version = check_format(arrays, path, fmt, versions, what, legacy_ok=legacy_ok)
    arrays.pop("format", None)
    arrays.pop("version", None)
    _check_finite(arrays, path, what)
    return {"format": fmt, "version": version}, arrays
