"""The files of one cache entry of :mod:`alignment.aligners.runs`: where an entry lives,
how its ``links.npz`` and ``meta.json`` are written and read back, and the checks of
eflomal's priors files kept beside them.

An entry is the folder ``<cache_dir>/<aligner>-<fingerprint>/`` (:func:`_entry_dir`);
:func:`_save_run` writes the links and, last, ``meta.json`` with its digest;
:func:`_run_files` reads both back, refusing a damaged file; :func:`_check_priors`
refuses a priors file that differs from the digest recorded beside it, or, without a
record, a line eflomal's reader would fail on.  :func:`alignment.aligners.runs.load_run`
and :func:`alignment.aligners.runs.run_aligner` use them.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

from structpred import FormatError, atomic_write, read_lines
from structpred.io import check_digest, load_npz, read_npz, save_npz, with_digest

#: the links file of a cache entry (:func:`structpred.io.save_npz`)
LINKS_FORMAT, LINKS_VERSION = "structpred-aligner-run-links", 1


def _entry_dir(cache_dir, aligner, fp):
    return Path(cache_dir) / f"{aligner}-{fp}"


def _delete_entry(path):
    return f"a damaged cache entry: delete the folder {path} to recompute"


#: the lines of eflomal's priors files: kind, then the kinds of the fields before alpha
_PRIOR_FIELDS = {"LEX": (str, str), "FERF": (str, int), "FERR": (str, int), "HMMF": (int,),
                 "HMMR": (int,)}
_INT_FIELD = re.compile(r"-?[0-9]{1,9}")


def _check_priors_lines(priors):
    """Refuse a priors file without a record (``eflomal-makepriors``' own, or another's)
    with a line eflomal's reader would fail on (with Python's "can only concatenate str",
    "list index out of range", "invalid literal for int()") or read into a prior that is
    not a finite number >= 0: a :class:`FormatError` naming the file and line."""
    import math

    for lineno, text in read_lines(priors):
        fields = text.split("\t")
        kinds = _PRIOR_FIELDS.get(fields[0])
        why = None
        if kinds is None or len(fields) != len(kinds) + 2:
            why = ("not a line of eflomal priors (expected LEX src tgt alpha, FERF/FERR "
                   "word fertility alpha or HMMF/HMMR jump alpha, tab-separated)")
        elif any(k is int and not _INT_FIELD.fullmatch(f) for k, f in zip(kinds, fields[1:])):
            why = f"an {fields[0]} line whose {'jump' if fields[0][0] == 'H' else 'fertility'} "\
                  "is not a whole number"
        else:
            try:
                alpha = float(fields[-1])
            except ValueError:
                alpha = math.nan
            if not (alpha >= 0 and math.isfinite(alpha)):
                why = f"the prior {fields[-1][:30]!r} is not a finite number >= 0"
        if why:
            raise FormatError(priors, lineno, why)


#: sha256 of the priors files without a record whose lines were checked in this process
_LINES_CHECKED = set()


def _priors_record(priors):
    """The JSON file beside the priors file ``priors`` (:meth:`AlignerRun.priors_file`)
    that records its sha256 (:func:`structpred.io.with_digest`)."""
    return priors.with_name(priors.name + ".json")


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _check_priors(priors, data):
    """Refuse the priors file ``priors`` (its bytes ``data``) when they do not give the
    sha256 recorded beside it (:func:`_priors_record`): a file cut short or edited was
    read into other priors.  A file without a record (written before it, or by
    ``eflomal-makepriors``) is read as it is, as the other digests do."""
    from structpred.io import damaged_cache

    rec = _priors_record(priors)
    if not rec.is_file():
        key = _sha256(data)   # checked once a process: align predict aligns in batches
        if key not in _LINES_CHECKED:
            _check_priors_lines(priors)
            _LINES_CHECKED.add(key)
        return
    try:
        record = json.loads(rec.read_text(encoding="utf-8"))
        if not isinstance(record, dict):
            raise ValueError
        record = check_digest(record, rec, "the record of an eflomal priors file")
    except FormatError as exc:
        raise damaged_cache(exc, _delete_entry(priors.parent)) from None
    except (ValueError, UnicodeDecodeError):
        raise FormatError(rec, None, "not the JSON record of an eflomal priors file "
                          f"({_delete_entry(priors.parent)})") from None
    if record.get("sha256") != _sha256(data):
        raise FormatError(priors, None, "eflomal priors changed after they were written "
                          "(their content digest does not match the one recorded in "
                          f"{rec.name}): {_delete_entry(priors.parent)}")


def _run_files(path):
    """``(meta, arrays)`` of a run folder: its ``meta.json`` (a dict) and ``links.npz``."""
    try:
        with open(path / "meta.json", encoding="utf-8") as fh:
            meta = json.load(fh)
    except (ValueError, UnicodeDecodeError):
        raise FormatError(path / "meta.json", None, "not the JSON of an aligner run") from None
    if not isinstance(meta, dict):
        raise FormatError(path / "meta.json", None, "not the JSON of an aligner run")
    meta = check_digest(meta, path / "meta.json", "an aligner run's meta.json")
    if meta.get("links_format") == LINKS_FORMAT:
        _, a = load_npz(path / "links.npz", LINKS_FORMAT, (LINKS_VERSION,),
                        what="an aligner run's links")
    else:   # an entry written before the links file had a header: plain arrays
        a = read_npz(path / "links.npz", what="an aligner run's links")
    return meta, a


def _save_run(run, path, bitext_fp):
    path.mkdir(parents=True, exist_ok=True)
    arrays = {}
    for d, ls in run.directions.items():
        arrays.update(ls.to_arrays(d + "_"))
    save_npz(path / "links.npz", arrays, {"format": LINKS_FORMAT, "version": LINKS_VERSION,
                                          "aligner": run.aligner})
    meta = {"aligner": run.aligner, "options": run.options, "fingerprint": run.fingerprint,
            "links_format": LINKS_FORMAT,
            "version": run.version, "n_pairs": run.n_pairs, "seconds": run.seconds,
            "directions": list(run.directions), "replicate": run.replicate,
            "bitext": bitext_fp, "created": time.strftime("%Y-%m-%d %H:%M:%S")}
    meta.update({k: v for k, v in run.meta.items() if k not in meta})
    with atomic_write(path / "meta.json") as fh:   # last: marks the entry complete
        json.dump(with_digest(meta), fh, indent=1, sort_keys=True)
    run.meta = meta
    run.path = path
