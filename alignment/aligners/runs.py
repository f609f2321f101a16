"""Other aligners as first-class parts: eflomal and fast_align, run once and cached.

The two strong unsupervised aligners are run through their Python packages (no shell
scripts, no link files made by hand):

* **eflomal** (Östling & Tiedemann 2016; ``pip install eflomal``): a Bayesian HMM with
  fertilities sampled by collapsed Gibbs, run in both directions; every derived link set
  comes from its two directions;
* **fast_align** (Dyer et al. 2013) through ``systran-align``, whose Python API returns
  only its symmetrised links (no separate directions), named ``fast_align:sym``.

Both are the ``aligners`` extra: ``pip install 'structpred[aligners]'``;
:func:`available_aligners` says which are installed (``"auto"`` in
:func:`resolve_aligners` means all of them).

**Link-set names.** ``"<aligner>:<view>"``, e.g. ``"eflomal:intersection"``,
``"eflomal:fwd"``, ``"eflomal:grow-diag-final-and"``, ``"fast_align:sym"``; the views of
eflomal are :data:`EFLOMAL_VIEWS` (``fwd``, ``bwd`` and the symmetrisations of
:func:`alignment.aligners.symmetrize.symmetrize`; short forms ``inter``, ``gd``, ``gdf``, ``gdfa``).
The names used by :mod:`alignment.aligners.linkfiles` so far (``eflomal_fwd``, ``eflomal_bwd``,
``eflomal_inter``, ``eflomal_gdfa``, ``eflomal_union``, ``fast_align``) are accepted
as aliases (:data:`LEGACY_NAMES`).

**Cache.** :func:`run_aligner` runs an aligner once on a bitext and keeps its links in
``<cache_dir>/<aligner>-<fingerprint>/``.  The fingerprint (:func:`run_fingerprint`)
hashes everything that fixes the output: the number of pairs, the line count, byte size
and a hash of the whole normalised text of each side (tokens joined by single spaces;
files are read, so a path and the same sentences in memory share a cache entry), the
aligner's name, its options, the installed package's version and the cache format.
Any change of an input or an option gives another fingerprint, so the run is redone;
the same inputs reuse the stored links.  The files are written atomically and
``meta.json`` last, so an interrupted run leaves no entry that looks complete (the files
of an entry and their checks: :mod:`alignment.aligners._cache_entry`).

**eflomal cannot be seeded**: two runs on the same text differ a little (measured in
``docs/results/alignment.md``: AER spread over three runs on the Hansards).  The
cache makes everything downstream deterministic; ``replicate=k`` (part of the
fingerprint) asks for the k-th independent run when the spread itself is wanted.

**New sentences without rerunning on the whole bitext.** eflomal's Dirichlet priors
(``eflomal-makepriors``: counts of linked word pairs, jumps and fertilities of a
finished run; :meth:`AlignerRun.priors_file`) are computed from the cached links and kept
with them; :func:`align_with_priors` aligns only the new pairs, sampling with those
priors.  For fast_align the trained parameter files are kept instead and new pairs are
aligned with them (:func:`align_new` dispatches on the aligner).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import resource
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

from structpred import FormatError, atomic_write, open_text, read_lines
from structpred.io import counted, split_tokens, token_form, with_digest, word_text
from .._runtime import log as _log
from ._cache_entry import (LINKS_FORMAT, LINKS_VERSION, _check_priors, _delete_entry, _entry_dir,
                           _priors_record, _run_files, _save_run, _sha256)

__all__ = ["available_aligners", "resolve_aligners", "parse_link_set_name", "LinkSets",
           "AlignerRun", "run_aligner", "load_run", "align_with_priors", "align_new",
           "bitext_fingerprint", "run_fingerprint", "link_sets", "external_alignments",
           "EFLOMAL_VIEWS", "FAST_ALIGN_VIEWS", "LEGACY_NAMES", "DEFAULT_CACHE_DIR",
           "CACHE_FORMAT", "ALIGNERS", "LINKS_FORMAT", "LINKS_VERSION"]

#: bump when the layout of a cache entry changes (part of every fingerprint)
CACHE_FORMAT = 1
DEFAULT_CACHE_DIR = Path(".cache") / "aligners"

EFLOMAL_VIEWS = ("fwd", "bwd", "intersection", "union", "grow-diag", "grow-diag-final",
                 "grow-diag-final-and")
FAST_ALIGN_VIEWS = ("sym",)
_VIEW_ALIASES = {"inter": "intersection", "intersect": "intersection", "gd": "grow-diag",
                 "gdf": "grow-diag-final", "gdfa": "grow-diag-final-and",
                 "forward": "fwd", "backward": "bwd", "rev": "bwd", "reverse": "bwd"}
#: names :mod:`alignment.aligners.linkfiles` used before this module
LEGACY_NAMES = {"eflomal_fwd": "eflomal:fwd", "eflomal_bwd": "eflomal:bwd",
                "eflomal_inter": "eflomal:intersection",
                "eflomal_gdfa": "eflomal:grow-diag-final-and",
                "eflomal_union": "eflomal:union", "fast_align": "fast_align:sym"}


@dataclass(frozen=True)
class _AlignerInfo:
    module: str          # import name
    dist: str            # distribution name (for the version)
    views: tuple
    default_view: str
    defaults: dict       # options and their defaults (all of them enter the fingerprint)


ALIGNERS = {
    "eflomal": _AlignerInfo("eflomal", "eflomal", EFLOMAL_VIEWS, "intersection",
                            {"model": 3, "n_samplers": 3, "rel_iterations": 1.0,
                             "null_prior": 0.2, "source_prefix_len": 0,
                             "source_suffix_len": 0, "target_prefix_len": 0,
                             "target_suffix_len": 0}),
    "fast_align": _AlignerInfo("systran_align", "systran-align", FAST_ALIGN_VIEWS, "sym",
                               {"iterations": 5, "favor_diagonal": True,
                                "optimize_tension": True, "diagonal_tension": 4.0,
                                "prob_align_null": 0.08}),
}


def _install_hint(name):
    return (f"{name} is not installed: pip install 'structpred[aligners]' "
            f"(or pip install {ALIGNERS[name].dist})")


def _version(name):
    """Installed version of the aligner's package, or None when it cannot be imported."""
    info = ALIGNERS[name]
    try:
        importlib.import_module(info.module)
    except ImportError:
        return None
    try:
        return metadata.version(info.dist)
    except metadata.PackageNotFoundError:   # pragma: no cover - importable but not installed
        return "unknown"


def available_aligners():
    """``{name: version}`` of the aligners whose packages are installed (importable)."""
    out = {}
    for name in ALIGNERS:
        v = _version(name)
        if v is not None:
            out[name] = v
    return out


def resolve_aligners(spec):
    """Aligner names from a user's choice.

    ``"auto"``: every installed aligner (possibly none); ``"none"`` or ``""``: none; a
    comma-separated list: those, each of which must be installed (``ImportError`` with
    the install hint otherwise; ``ValueError`` for an unknown name).
    """
    if spec is None:
        return []
    if isinstance(spec, str):
        spec = spec.strip()
        if spec == "auto":
            return list(available_aligners())
        if spec in ("", "none"):
            return []
        spec = [s.strip() for s in spec.split(",") if s.strip()]
    names = list(dict.fromkeys(spec))
    for n in names:
        if n not in ALIGNERS:
            raise ValueError(f"unknown aligner {n!r}; known: {', '.join(ALIGNERS)}")
        if _version(n) is None:
            raise ImportError(_install_hint(n))
    return names


def parse_link_set_name(name):
    """``(aligner, view)`` of a link-set name such as ``"eflomal:intersection"``,
    ``"eflomal"`` (its default view), ``"fast_align"`` or a legacy name (``eflomal_fwd``)."""
    name = LEGACY_NAMES.get(name, name)
    aligner, sep, view = name.partition(":")
    if aligner not in ALIGNERS:
        raise ValueError(f"unknown aligner in link set {name!r}; known: {', '.join(ALIGNERS)}")
    info = ALIGNERS[aligner]
    view = _VIEW_ALIASES.get(view, view) if sep else info.default_view
    if view not in info.views:
        raise ValueError(f"{aligner} has no link set {view!r}; it has "
                         f"{', '.join(info.views)}")
    return aligner, view


# ----------------------------------------------------------------------------- links
class LinkSets:
    """The links of ``N`` sentence pairs, stored compactly (CSR): the links of pair ``i``
    are the rows ``offsets[i]:offsets[i + 1]`` of ``links`` (``(L, 2)`` int32, 0-based
    source-target positions, sorted within a pair)."""

    def __init__(self, offsets, links):
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.links = np.ascontiguousarray(links, dtype=np.int32).reshape(-1, 2)
        if len(self.offsets) == 0 or self.offsets[0] != 0 or self.offsets[-1] != len(self.links):
            raise ValueError("corrupt link sets: offsets do not match the links")

    @classmethod
    def from_sets(cls, sets):
        sets = [sorted(s) for s in sets]
        offsets = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in sets], out=offsets[1:])
        flat = [jk for s in sets for jk in s]
        return cls(offsets, np.array(flat, dtype=np.int32).reshape(-1, 2))

    @classmethod
    def from_pharaoh(cls, lines, src_lengths, tgt_lengths, name="<links>"):
        """Parse Pharaoh lines (``i-j`` tokens), one per pair; checks every link lies inside
        its pair (``FormatError`` naming ``name`` and the line otherwise)."""
        sets = []
        for i, line in enumerate(lines):
            if i >= len(src_lengths):
                raise FormatError(name, i + 1, f"more link lines than the {len(src_lengths)} "
                                                "sentence pairs")
            s = set()
            for tok in line.split():
                j, sep, k = tok.partition("-")
                if not sep or not j.isdigit() or not k.isdigit():
                    raise FormatError(name, i + 1, f"bad link {tok!r}")
                j, k = int(j), int(k)
                if j >= src_lengths[i] or k >= tgt_lengths[i]:
                    raise FormatError(name, i + 1, f"link {tok} outside a {src_lengths[i]}x"
                                                   f"{tgt_lengths[i]} sentence pair")
                s.add((j, k))
            sets.append(s)
        if len(sets) != len(src_lengths):
            raise FormatError(name, len(sets) + 1, f"{len(sets)} link lines for "
                                                   f"{len(src_lengths)} sentence pairs")
        return cls.from_sets(sets)

    def __len__(self):
        return len(self.offsets) - 1

    def __getitem__(self, i):
        a, b = self.offsets[i], self.offsets[i + 1]
        return {(int(j), int(k)) for j, k in self.links[a:b]}

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other):
        return (isinstance(other, LinkSets) and np.array_equal(self.offsets, other.offsets)
                and np.array_equal(self.links, other.links))

    def pharaoh(self, i):
        """Pharaoh line of pair ``i`` (no newline)."""
        a, b = self.offsets[i], self.offsets[i + 1]
        return " ".join(f"{j}-{k}" for j, k in self.links[a:b])

    def to_arrays(self, prefix):
        return {prefix + "offsets": self.offsets, prefix + "links": self.links}

    @classmethod
    def from_arrays(cls, a, prefix):
        return cls(a[prefix + "offsets"], a[prefix + "links"])


# ----------------------------------------------------------------------- fingerprints
def _as_lines(side):
    """A side of a bitext as a list of normalised lines (tokens joined by one space):
    from a path (plain or gzipped, read as every reader of sentences reads it:
    :func:`structpred.read_lines`' line cap and encoding, words as
    :func:`structpred.io.word_text` gives them), a list of token lists or a list of
    strings (each word as :func:`structpred.io.token_form` gives it)."""
    if isinstance(side, (str, os.PathLike)):
        name = os.fspath(side)
        return [" ".join(split_tokens(word_text(text, name, n), name, n))
                for n, text in read_lines(side)]
    out = []
    for i, s in enumerate(side):
        words = split_tokens(s, f"sentence {i}") if isinstance(s, str) else s
        line = " ".join(words)
        # as a file's reader gives them (a variation selector inside a word removed)
        out.append(line if line.isascii() else " ".join(map(token_form, words)))
    return out


def _side_digest(lines):
    h = hashlib.blake2b(digest_size=16)
    n_bytes = 0
    for ln in lines:
        b = ln.encode("utf-8") + b"\n"
        n_bytes += len(b)
        h.update(b)
    return {"lines": len(lines), "bytes": n_bytes, "blake2b": h.hexdigest()}


def bitext_fingerprint(src_lines, tgt_lines):
    """What identifies a bitext's content: the number of pairs and, per side, the line
    count, the byte size and a hash of the whole normalised text."""
    return {"pairs": len(src_lines), "src": _side_digest(src_lines),
            "tgt": _side_digest(tgt_lines)}


def _options(aligner, options):
    info = ALIGNERS[aligner]
    unknown = sorted(set(options) - set(info.defaults))
    if unknown:
        raise ValueError(f"unknown {aligner} options {unknown}; known: {sorted(info.defaults)}")
    return {**info.defaults, **options}


def run_fingerprint(aligner, options, bitext_fp, version, replicate=0, extra=None):
    """Hex digest of everything that fixes an aligner run (see the module docstring)."""
    key = {"format": CACHE_FORMAT, "aligner": aligner, "version": version,
           "options": options, "bitext": bitext_fp, "replicate": int(replicate)}
    if extra:
        key["extra"] = extra
    blob = json.dumps(key, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.blake2b(blob, digest_size=12).hexdigest()


# ------------------------------------------------------------------------------- runs
@dataclass
class AlignerRun:
    """The links of one aligner run on a bitext (read back from the cache or fresh).

    Attributes
    ----------
    aligner : str
    options : dict
        Every option of the run (defaults filled in).
    fingerprint : str
    version : str
        The aligner package's version.
    n_pairs : int
    seconds : float
        Wall time of the run itself (when it was made, not when it was read back);
        ``meta["cpu_seconds"]`` holds its CPU time.
    directions : dict of str to LinkSets
        eflomal: ``"fwd"`` and ``"bwd"``; fast_align: ``"sym"``.
    path : Path or None
        Its cache folder (None for an uncached run).
    from_cache : bool
        Whether the links were read from the cache.
    replicate : int
    """

    aligner: str
    options: dict
    fingerprint: str
    version: str
    n_pairs: int
    seconds: float
    directions: dict
    path: Path | None = None
    from_cache: bool = False
    replicate: int = 0
    meta: dict = field(default_factory=dict)

    @property
    def views(self):
        return EFLOMAL_VIEWS if self.aligner == "bayes" else ALIGNERS[self.aligner].views

    def links(self, view=None, indices=None):
        """Link sets (list of sets of ``(j, k)``) of the pairs at ``indices`` (all when
        None) in ``view``: a direction or a symmetrisation of the two (eflomal), or
        ``"sym"`` (fast_align); ``None`` is the aligner's default view (the Bayesian
        aligner's views are eflomal's)."""
        from .symmetrize import symmetrize

        name = "eflomal" if self.aligner == "bayes" else self.aligner
        _, view = parse_link_set_name(f"{name}:{view}" if view else name)
        idx = range(self.n_pairs) if indices is None else indices
        if view in self.directions:
            d = self.directions[view]
            return [d[i] for i in idx]
        f, b = self.directions["fwd"], self.directions["bwd"]
        return [symmetrize(f[i], b[i], view) for i in idx]

    def pharaoh_lines(self, view=None, indices=None):
        """Pharaoh lines (no newline) of :meth:`links`."""
        return [" ".join(f"{j}-{k}" for j, k in sorted(s)) for s in self.links(view, indices)]

    # ---------------------------------------------------------------- priors
    def priors_file(self, src=None, tgt=None, verbose=False):
        """eflomal's priors of this run (``eflomal-makepriors`` on its two directions),
        computed once and kept in the cache folder as ``priors.txt.gz``; returns the path.

        ``src``/``tgt`` are the bitext the run was made on (needed the first time only,
        and checked against the run's fingerprint)."""
        if self.aligner != "eflomal":
            raise ValueError(f"priors are eflomal's; a {self.aligner} run keeps its trained "
                             "parameters instead (align_new)")
        if self.path is None:
            raise ValueError("an uncached run has no priors file: run it with a cache_dir")
        out = self.path / "priors.txt.gz"
        if out.exists():
            return out
        if src is None or tgt is None:
            raise ValueError("the priors are not computed yet: pass the run's bitext")
        import eflomal

        src_lines, tgt_lines = _as_lines(src), _as_lines(tgt)
        if bitext_fingerprint(src_lines, tgt_lines) != self.meta.get("bitext"):
            raise ValueError("this is not the bitext the eflomal run was made on")
        t0 = time.perf_counter()
        f, b = self.directions["fwd"], self.directions["bwd"]
        pri = eflomal.calculate_priors(src_lines, tgt_lines,
                                       (f.pharaoh(i) for i in range(len(f))),
                                       (b.pharaoh(i) for i in range(len(b))))
        with atomic_write(out) as fh:
            eflomal.write_priors(fh, *pri)
        with atomic_write(_priors_record(out)) as fh:   # read by align_with_priors
            json.dump(with_digest({"file": out.name, "sha256": _sha256(out.read_bytes())}), fh)
        _log(verbose, f"eflomal priors ({len(pri[0])} word pairs) in "
                      f"{time.perf_counter() - t0:.0f}s: {out}")
        return out


def _cpu_seconds():
    """CPU time (user + system) of this process and its finished children (eflomal runs
    as a child process): less sensitive than wall time to other jobs on the machine."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def load_run(path):
    """Read a finished cache entry (a folder written by :func:`run_aligner`).  A damaged
    entry (its ``meta.json`` or ``links.npz`` cut short, garbage or edited) is a
    :class:`FormatError` naming the file and saying to delete the folder (it was json's
    "Expecting value: line 1 column 1 (char 0)", a ``KeyError``, or a model file's advice
    "retrain it or restore the file")."""
    from structpred.io import damaged_cache

    path = Path(path)
    try:
        meta, a = _run_files(path)
        dirs = {d: LinkSets.from_arrays(a, d + "_") for d in meta["directions"]}
        return AlignerRun(meta["aligner"], meta["options"], meta["fingerprint"], meta["version"],
                          meta["n_pairs"], meta["seconds"], dirs, path, True,
                          meta.get("replicate", 0), meta)
    except FormatError as exc:
        raise damaged_cache(exc, _delete_entry(path)) from None
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, FileNotFoundError):
        raise FormatError(path, None, "an aligner run whose meta.json or links.npz is "
                          f"damaged or missing ({_delete_entry(path)})") from None


def _check_bitext(src_lines, tgt_lines):
    if len(src_lines) != len(tgt_lines):
        raise ValueError(f"{len(src_lines)} source but {len(tgt_lines)} target sentences")
    if not src_lines:
        raise ValueError("empty bitext")
    for i, (s, t) in enumerate(zip(src_lines, tgt_lines)):
        if not s or not t:
            raise ValueError(f"sentence pair {i + 1} has an empty side; aligners need "
                             "non-empty sentences")


def _lengths(lines):
    return np.fromiter((ln.count(" ") + 1 if ln else 0 for ln in lines), dtype=np.int64,
                       count=len(lines))


def _eflomal(src_lines, tgt_lines, opts, priors=None, verbose=False):
    """Run eflomal both ways; ``{"fwd": LinkSets, "bwd": LinkSets}``."""
    import eflomal

    aligner = eflomal.Aligner(**opts)
    ls, lt = _lengths(src_lines), _lengths(tgt_lines)
    with tempfile.TemporaryDirectory(prefix="structpred-eflomal-") as tmp:
        fwd, bwd = Path(tmp) / "fwd", Path(tmp) / "bwd"
        pri = open_text(priors) if priors is not None else None
        try:
            aligner.align([ln + "\n" for ln in src_lines], [ln + "\n" for ln in tgt_lines],
                          links_filename_fwd=str(fwd), links_filename_rev=str(bwd),
                          priors_input=pri, quiet=not verbose)
        finally:
            if pri is not None:
                pri.close()
        out = {}
        for name, p in (("fwd", fwd), ("bwd", bwd)):
            with open(p, encoding="utf-8") as fh:
                out[name] = LinkSets.from_pharaoh([ln.rstrip("\n") for ln in fh], ls, lt,
                                                  name=f"eflomal {name} output")
    return out


def _fast_align_align(aligner, src_lines, tgt_lines, chunk=20000):
    sets = []
    for a in range(0, len(src_lines), chunk):
        res = aligner.align_batch([s.split() for s in src_lines[a:a + chunk]],
                                  [t.split() for t in tgt_lines[a:a + chunk]])
        for r in res:
            sets.append({(int(x[0]), int(x[1])) for x in r["alignments"]})
    return LinkSets.from_sets(sets)


def _fast_align_train(src_lines, tgt_lines, opts, fwd_probs, bwd_probs, verbose=False):
    import systran_align

    with tempfile.TemporaryDirectory(prefix="structpred-fast-align-") as tmp:
        corpus = Path(tmp) / "corpus"
        with open(corpus, "w", encoding="utf-8") as fh:
            for s, t in zip(src_lines, tgt_lines):
                fh.write(f"{s} ||| {t}\n")
        systran_align.generate_alignment_probabilities(
            str(corpus), str(fwd_probs), str(bwd_probs), verbose=verbose,
            iterations=int(opts["iterations"]), favor_diagonal=bool(opts["favor_diagonal"]),
            optimize_tension=bool(opts["optimize_tension"]),
            diagonal_tension=float(opts["diagonal_tension"]),
            prob_align_null=float(opts["prob_align_null"]))


def run_aligner(aligner, src, tgt, cache_dir=DEFAULT_CACHE_DIR, replicate=0, refresh=False,
                verbose=False, **options):
    """Run ``aligner`` on a bitext once and cache its links; later calls with the same
    inputs read them back.

    Parameters
    ----------
    aligner : {"eflomal", "fast_align"}
    src, tgt : path, list of token lists or list of strings
        The two sides of the bitext (every pair non-empty).
    cache_dir : path or None
        Where runs are kept (``None``: no cache, always run).
    replicate : int
        Index of an independent run (eflomal cannot be seeded: ``replicate=1, 2, ...``
        give further runs on the same inputs, each cached).
    refresh : bool
        Run again and overwrite the cached entry.
    verbose : bool
        The aligner's own progress on stderr.
    **options
        The aligner's options (:data:`ALIGNERS` ``[aligner].defaults``), e.g.
        ``n_samplers=3`` for eflomal, ``iterations=5`` for fast_align.

    Returns
    -------
    AlignerRun
    """
    if aligner not in ALIGNERS:
        raise ValueError(f"unknown aligner {aligner!r}; known: {', '.join(ALIGNERS)}")
    version = _version(aligner)
    if version is None:
        raise ImportError(_install_hint(aligner))
    opts = _options(aligner, options)
    src_lines, tgt_lines = _as_lines(src), _as_lines(tgt)
    _check_bitext(src_lines, tgt_lines)
    bfp = bitext_fingerprint(src_lines, tgt_lines)
    fp = run_fingerprint(aligner, opts, bfp, version, replicate)
    path = _entry_dir(cache_dir, aligner, fp) if cache_dir is not None else None
    if path is not None and (path / "meta.json").exists() and not refresh:
        run = load_run(path)
        _log(verbose, f"{aligner}: cached run {path}")
        return run
    t0, c0 = time.perf_counter(), _cpu_seconds()
    if aligner == "eflomal":
        dirs = _eflomal(src_lines, tgt_lines, opts, verbose=verbose)
        secs = time.perf_counter() - t0
    else:
        import systran_align

        tmp = None
        if path is None:
            tmp = tempfile.TemporaryDirectory(prefix="structpred-fast-align-")
            where = Path(tmp.name)
        else:
            where = path
            where.mkdir(parents=True, exist_ok=True)
        fwd_p, bwd_p = where / "fwd.probs", where / "bwd.probs"
        try:
            _fast_align_train(src_lines, tgt_lines, opts, fwd_p, bwd_p, verbose=verbose)
            dirs = {"sym": _fast_align_align(systran_align.Aligner(str(fwd_p), str(bwd_p)),
                                             src_lines, tgt_lines)}
        finally:
            if tmp is not None:
                tmp.cleanup()
        secs = time.perf_counter() - t0
    run = AlignerRun(aligner, opts, fp, version, len(src_lines), secs, dirs,
                     replicate=int(replicate), meta={"cpu_seconds": _cpu_seconds() - c0})
    _log(verbose, f"{aligner}: {counted(len(src_lines), 'pair')} in {secs:.0f}s")
    if path is not None:
        _save_run(run, path, bfp)
    else:
        run.meta["bitext"] = bfp
    return run


def align_with_priors(src, tgt, priors, cache_dir=None, replicate=0, verbose=False,
                      **options):
    """Align new sentence pairs with eflomal, sampling with the priors of an earlier run
    instead of rerunning eflomal over the whole bitext.

    Parameters
    ----------
    src, tgt : path, list of token lists or list of strings
        The new pairs only.
    priors : path or AlignerRun
        A priors file (``eflomal-makepriors`` format, plain or gzipped) or a cached
        eflomal run whose :meth:`AlignerRun.priors_file` exists.
    cache_dir : path or None
        Cache the result too (keyed also by the priors file's content).

    Returns
    -------
    AlignerRun
        ``fwd``/``bwd`` directions of the new pairs; every eflomal view is available.
    """
    version = _version("eflomal")
    if version is None:
        raise ImportError(_install_hint("eflomal"))
    if isinstance(priors, AlignerRun):
        priors = priors.priors_file()
    priors = Path(priors)
    if not priors.exists():
        raise FileNotFoundError(f"{priors}: no such priors file")
    opts = _options("eflomal", options)
    src_lines, tgt_lines = _as_lines(src), _as_lines(tgt)
    _check_bitext(src_lines, tgt_lines)
    bfp = bitext_fingerprint(src_lines, tgt_lines)
    data = priors.read_bytes()
    _check_priors(priors, data)
    h = hashlib.blake2b(data, digest_size=12).hexdigest()
    fp = run_fingerprint("eflomal", opts, bfp, version, replicate, extra={"priors": h})
    path = _entry_dir(cache_dir, "eflomal-priors", fp) if cache_dir is not None else None
    if path is not None and (path / "meta.json").exists():
        return load_run(path)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    dirs = _eflomal(src_lines, tgt_lines, opts, priors=priors, verbose=verbose)
    run = AlignerRun("eflomal", opts, fp, version, len(src_lines), time.perf_counter() - t0,
                     dirs, replicate=int(replicate),
                     meta={"priors": str(priors), "priors_blake2b": h,
                           "cpu_seconds": _cpu_seconds() - c0})
    if path is not None:
        _save_run(run, path, bfp)
    return run


def align_new(run, src, tgt, **kw):
    """Align new pairs with what ``run`` learnt, without retraining on its bitext:
    eflomal through its priors (:func:`align_with_priors`), fast_align with its trained
    parameter files (a run of our Bayesian aligner:
    :func:`alignment.aligners.bayes_run.align_new_bayes`).  Returns an uncached
    :class:`AlignerRun` (eflomal: cached when ``cache_dir`` is given)."""
    if run.aligner == "eflomal":
        return align_with_priors(src, tgt, run, **kw)
    import systran_align

    if run.path is None or not (run.path / "fwd.probs").exists():
        raise ValueError("fast_align: the run kept no parameter files (run it with a cache_dir)")
    src_lines, tgt_lines = _as_lines(src), _as_lines(tgt)
    _check_bitext(src_lines, tgt_lines)
    t0 = time.perf_counter()
    al = systran_align.Aligner(str(run.path / "fwd.probs"), str(run.path / "bwd.probs"))
    links = _fast_align_align(al, src_lines, tgt_lines)
    bfp = bitext_fingerprint(src_lines, tgt_lines)
    fp = run_fingerprint("fast_align", run.options, bfp, run.version,
                         extra={"model": run.fingerprint})
    return AlignerRun("fast_align", run.options, fp, run.version, len(src_lines),
                      time.perf_counter() - t0, {"sym": links}, meta={"bitext": bfp})


# ------------------------------------------------------------------- link-set helpers
def link_sets(names, src, tgt, indices=None, cache_dir=DEFAULT_CACHE_DIR, runs=None,
              verbose=False):
    """``{name: list of link sets}`` for link-set names (``"eflomal:intersection"``,
    legacy names, ...) of the pairs at ``indices`` of the bitext ``src``/``tgt``; each
    aligner runs once (or is read from the cache; ``runs`` may hold ready
    :class:`AlignerRun` objects by aligner name)."""
    runs = dict(runs or {})
    out = {}
    for name in names:
        aligner, view = parse_link_set_name(name)
        if aligner not in runs:
            runs[aligner] = run_aligner(aligner, src, tgt, cache_dir=cache_dir,
                                        verbose=verbose)
        out[name] = runs[aligner].links(view, indices)
    return out


def external_alignments(names, src, tgt, indices=None, **kw):
    """An :class:`alignment.aligners.linkfiles.ExternalAlignments` with the link sets ``names`` of
    the pairs at ``indices`` (the bridge to the edge features of
    :class:`alignment.features.links.ExternalFeaturizer`, which derives the eflomal
    symmetrisations itself from ``eflomal_fwd`` and ``eflomal_bwd``)."""
    from .linkfiles import ExternalAlignments

    src_l, tgt_l = _as_lines(src), _as_lines(tgt)
    sets = link_sets(names, src_l, tgt_l, indices=indices, **kw)
    idx = range(len(src_l)) if indices is None else indices
    ext = ExternalAlignments(names)
    for n, i in enumerate(idx):
        ext.add(src_l[i].split(), tgt_l[i].split(), {name: sets[name][n] for name in names})
    return ext
