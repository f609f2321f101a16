"""The seeded Bayesian aligner as a cached run, like eflomal's (``align train``'s ``bayes``
feature source).

:func:`run_bayes` fits :class:`alignment.aligners.bayes.BayesianAligner` on a bitext with a
fixed ``random_state`` and keeps, in ``<cache_dir>/bayes-<fingerprint>/``, its two
directions' links (``links.npz`` and ``meta.json``, the layout of
:mod:`alignment.aligners.runs`, so :func:`~alignment.aligners.runs.load_run` reads it back)
and its Dirichlet priors (``priors.npz``: the expected word-pair counts, jump and fertility
counts of both directions, and the two vocabularies).  The fingerprint
(:func:`~alignment.aligners.runs.run_fingerprint`) hashes the whole normalised text of both
sides, every option, the seed and :data:`BAYES_RUN_VERSION`; the files are written
atomically and ``meta.json`` last.  ``n_jobs`` is not part of it: the links do not depend
on the threads.

**New sentences** (:func:`align_new_bayes`) are aligned with the fitted counts as priors
(:meth:`BayesianAligner.align`), without resampling the bitext, as eflomal's priors do.
Each new pair is sampled on its own, from the fixed seed, so its links depend only on the
pair and the run: not on the other pairs of the batch, nor on how ``align predict`` cuts
its input into chunks (files, standard input, ``--jobs``).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from structpred import resolve_seed
from structpred.io import counted, load_npz, save_npz
from .._runtime import log as _log
from ._cache_entry import _delete_entry, _entry_dir, _save_run
from .runs import (AlignerRun, LinkSets, _as_lines, _check_bitext, _cpu_seconds,
                   bitext_fingerprint, load_run, run_fingerprint)

__all__ = ["run_bayes", "align_new_bayes", "bayes_options", "BAYES_RUN_VERSION",
           "SOURCE_OPTIONS"]

#: bump when the sampler's output for the same inputs changes (part of the fingerprint)
BAYES_RUN_VERSION = 1
#: the priors file of a cache entry (:func:`structpred.io.save_npz`)
PRIORS_FORMAT, PRIORS_VERSION = "structpred-bayes-priors", 1
_PRIOR_ARRAYS = ("keys", "counts", "e_totals", "jump", "fert")
#: options that fix the links (``n_jobs`` and ``verbose`` do not)
_EXCLUDED = ("n_jobs", "verbose")
#: the options of ``align train``'s ``bayes`` feature source that differ from
#: :data:`~alignment.aligners.bayes.BAYES_DEFAULTS` (the stand-alone aligner's): one IBM-1
#: sweep after the EM start instead of four, three HMM sweeps instead of four (the fertility
#: sweeps and the three samplers per direction as the aligner's defaults): 9 sweeps per
#: sampler instead of 12, for the pipeline's time (issue 31, point 4). Chosen by the rule
#: for a cheaper setting on the validation sentences of both pairs
#: (``scripts/select_bayes_cost.py``; docs/results/alignment.md, "Sweeps and samplers per
#: direction"): no sign of a loss on either (worse in 41 % and 55 % of the resamples). One
#: sampler, and 1 + 2 + 4 sweeps after 3 EM iterations, were worse on Czech's validation
#: sentences in 87 % and 91 % of the resamples; two samplers bought no pipeline time
SOURCE_OPTIONS = {"ibm1_iterations": 1, "hmm_iterations": 3}


def bayes_options(random_state=0, **options):
    """Every option of :class:`BayesianAligner` that fixes the links, defaults filled in
    (``ValueError`` for an unknown one)."""
    from .bayes import BayesianAligner

    params = {k: v for k, v in BayesianAligner().get_params().items() if k not in _EXCLUDED}
    unknown = sorted(set(options) - set(params))
    if unknown:
        raise ValueError(f"unknown bayes options {unknown}; known: {sorted(params)}")
    if random_state is None:   # fresh entropy: a seed drawn now, kept in the run's options
        random_state = np.random.default_rng()
    return {**params, **options, "random_state": resolve_seed(random_state)}


def _version():
    return f"structpred-bayes-{BAYES_RUN_VERSION}"


def _save_priors(path, aligner):
    arrays = {}
    for d, pri in aligner.priors_.items():
        arrays.update({f"{d}/{k}": pri[k] for k in _PRIOR_ARRAYS})
    for side, voc in (("src", aligner.src_vocab_), ("tgt", aligner.tgt_vocab_)):
        words = sorted(voc, key=voc.get)
        arrays[f"vocab/{side}"] = np.array(words, dtype=str) if words else np.zeros(0, "<U1")
    shape = {d: {"n_gen": int(p["n_gen"]), "n_ali": int(p["n_ali"])}
             for d, p in aligner.priors_.items()}
    save_npz(path / "priors.npz", arrays, {"format": PRIORS_FORMAT, "version": PRIORS_VERSION,
                                           "shape": shape})


def _fitted_aligner(run):
    """A :class:`BayesianAligner` with the priors and vocabularies of a cached run."""
    from .bayes import BayesianAligner

    if run.path is None or not (Path(run.path) / "priors.npz").exists():
        raise ValueError("bayes: the run kept no priors (run it with a cache_dir)")
    from structpred import FormatError
    from structpred.io import damaged_cache

    try:   # a file of a cache folder: deleted and recomputed, not restored
        header, a = load_npz(Path(run.path) / "priors.npz", PRIORS_FORMAT, (PRIORS_VERSION,),
                             what="a bayes run's priors")
    except FormatError as exc:
        raise damaged_cache(exc, _delete_entry(run.path)) from None
    opts = {k: v for k, v in run.options.items()}
    al = BayesianAligner(**opts)
    al.priors_ = {d: {**{k: a[f"{d}/{k}"] for k in _PRIOR_ARRAYS}, **header["shape"][d]}
                  for d in ("fwd", "bwd")}
    al.src_vocab_ = {str(w): i + 1 for i, w in enumerate(a["vocab/src"])}
    al.tgt_vocab_ = {str(w): i + 1 for i, w in enumerate(a["vocab/tgt"])}
    return al


def run_bayes(src, tgt, cache_dir, random_state=0, n_jobs=1, refresh=False, verbose=False,
              **options):
    """Fit the Bayesian aligner on a bitext once and cache its links and priors.

    Parameters
    ----------
    src, tgt : path, list of token lists or list of strings
        The two sides of the bitext (every pair non-empty).
    cache_dir : path or None
        Where runs are kept (``None``: no cache, always run; new pairs then cannot be
        aligned from it).
    random_state : int, None, numpy RandomState or Generator
        Seed of every sampler (part of the fingerprint): a ``RandomState`` or ``Generator``
        stands for the seed :func:`structpred.resolve_seed` draws from it, ``None`` for a
        seed drawn from fresh entropy (kept in the run's ``options``).
    n_jobs : int or None
        Threads (2: the two directions at once; ``None``: 1, as scikit-learn reads it);
        the links do not depend on it.
    refresh : bool
        Run again and overwrite the cached entry.
    verbose : bool
        Progress on stderr.
    **options
        :class:`BayesianAligner` parameters (``n_samplers``, ``prefix``, ...).

    Returns
    -------
    AlignerRun
        ``aligner="bayes"``, directions ``fwd`` and ``bwd``.
    """
    from .bayes import BayesianAligner

    opts = bayes_options(random_state, **options)
    src_lines, tgt_lines = _as_lines(src), _as_lines(tgt)
    _check_bitext(src_lines, tgt_lines)
    bfp = bitext_fingerprint(src_lines, tgt_lines)
    fp = run_fingerprint("bayes", opts, bfp, _version())
    path = _entry_dir(cache_dir, "bayes", fp) if cache_dir is not None else None
    if path is not None and (path / "meta.json").exists() and not refresh:
        _log(verbose, f"bayes: cached run {path}")
        return load_run(path)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    al = BayesianAligner(**opts, n_jobs=n_jobs, verbose=verbose)
    al.fit(src_lines, tgt_lines)
    dirs = {"fwd": al.fwd_link_sets_, "bwd": al.bwd_link_sets_}
    secs = time.perf_counter() - t0
    run = AlignerRun("bayes", opts, fp, _version(), len(src_lines), secs, dirs,
                     meta={"cpu_seconds": _cpu_seconds() - c0})
    _log(verbose, f"bayes: {counted(len(src_lines), 'pair')} in {secs:.0f}s")
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        _save_priors(path, al)          # before meta.json, which marks the entry complete
        _save_run(run, path, bfp)
    else:
        run.meta["bitext"] = bfp
    return run


def align_new_bayes(run, src, tgt):
    """Align new pairs with the priors of a cached bayes run (the bitext is not
    resampled); an uncached :class:`~alignment.aligners.runs.AlignerRun` with ``fwd`` and
    ``bwd``."""
    al = _fitted_aligner(run)
    src_lines, tgt_lines = _as_lines(src), _as_lines(tgt)
    _check_bitext(src_lines, tgt_lines)
    t0 = time.perf_counter()
    fwd, bwd = [], []
    for s, t in zip(src_lines, tgt_lines):     # one pair at a time: independent links
        _, f, b = al.align([s], [t], return_directions=True)
        fwd += f
        bwd += b
    bfp = bitext_fingerprint(src_lines, tgt_lines)
    fp = run_fingerprint("bayes", run.options, bfp, run.version,
                         extra={"model": run.fingerprint})
    return AlignerRun("bayes", run.options, fp, run.version, len(src_lines),
                      time.perf_counter() - t0,
                      {"fwd": LinkSets.from_sets(fwd), "bwd": LinkSets.from_sets(bwd)},
                      meta={"bitext": bfp})
