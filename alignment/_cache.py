"""How the alignment package keys its caches.

Every ``.npz`` file written here (models, statistics, HMM tables, interaction
statistics) goes through :func:`structpred.io.save_npz` / :func:`structpred.io.load_npz`
(a format name and a version, checked on load; ``allow_pickle=False``).

A cache (statistics, HMM, interaction statistics, external links) also records a
*key*: a flat JSON dict of everything that made it, namely the fingerprint of each input
file (:func:`structpred.io.file_fingerprint`: size, line count and a hash of the whole
content), the number of pairs read, the length filter, and every option that
changes the result (IBM or HMM agreement, HMM iterations, the lexicon choice, the
fingerprint of the Model 2 tables something was computed from).  A cache is used only
when its key equals the one asked for (:func:`load_or_compute`); otherwise

* a cache *folder* gets a new file named by the key's hash
  (``stats-<hash>.npz``, ``hmm-<hash>.npz``, ``interactions-<hash>.npz``), and
* an explicit cache *file* is refused with :class:`CacheMismatch`, which names each
  differing option; it is never rewritten in place.
"""

from __future__ import annotations

import inspect
import json

import numpy as np

from structpred import FormatError
from structpred.io import WORD_RULES, CacheMismatch, file_fingerprint
from structpred.io import load_or_compute as _load_or_compute

__all__ = ["CacheMismatch", "bitext_key", "compare_keys", "fit_options", "load_or_compute"]

#: key field -> how the user sets it (for the messages of :class:`CacheMismatch`)
OPTION_NAMES = {
    "word_rules": "the rules that read words (structpred.io.WORD_RULES)",
    "bitext_src": "--bitext-src", "bitext_tgt": "--bitext-tgt", "n_pairs": "--bitext-pairs",
    "max_length": "--max-length", "protect_first": "first lines kept unfiltered",
    "ibm_agreement": "--ibm-agreement", "ibm_options": "IBM training options",
    "hmm_iterations": "--hmm", "hmm_agreement": "--hmm-agreement",
    "hmm_options": "HMM training options", "lexicon": "--hmm-lexicon",
    "statistics": "the IBM Model 2 statistics", "aligners": "aligner settings",
}


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
            "protect_first": int(protect_first), "word_rules": WORD_RULES}


def _show(field, value):
    if isinstance(value, dict) and "hash" in value:
        if "hashed" not in value:
            return (f"a file of {value.get('lines')} lines, {value.get('size')} bytes, "
                    "fingerprinted by its first and last MB only (a cache made by an older "
                    "structpred: delete it to recompute)")
        return (f"a file of {value.get('lines')} lines, {value.get('size')} bytes "
                f"(content {str(value.get('hash'))[:8]})")
    if isinstance(value, bool):
        return "on" if value else "off"
    if field == "hmm_iterations" and not value:
        return "none"
    if field == "max_length" and value is None:
        return "no limit"
    if field == "word_rules":
        return ("those of an older structpred" if value is None
                else f"version {value}" if value != WORD_RULES else "this version's")
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


def load_or_compute(cache, key, compute, load, save, kind, **kw):
    """:func:`structpred.io.load_or_compute` with the differences of two keys told by
    :func:`compare_keys` (``--bitext-pairs: 4000 in the cache, 1500 asked``)."""
    kw.setdefault("compare", compare_keys)
    kw.setdefault("inputs", "its bitext")
    return _load_or_compute(cache, key, compute, load, save, kind, **kw)
