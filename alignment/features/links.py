"""Other aligners as features of the discriminative aligner (``align train --aligners``).

The thesis went from 6.2 to 3.8 AER on the Hansards by adding the predictions of other
aligners as edge features (sec. 3.4.1, "beyond Model 2").  This module makes that the
default, with no link files made by hand and no magic names:

* **``hmm``** -- our own unsupervised aligner (:class:`alignment.aligners.unsupervised.UnsupervisedAligner`:
  the HMM trained by agreement on lower-cased 4-character prefixes).  It is trained on the
  unlabeled bitext plus the training and validation sentences, is deterministic, and
  gives link *posteriors* for any sentence pair, new ones included, without retraining.
* **``bayes``** -- our seeded Bayesian aligner (:class:`alignment.aligners.bayes.BayesianAligner`:
  collapsed Gibbs sampling of IBM-1, HMM and fertility models; three samplers per
  direction of 1 + 3 + 4 sweeps, :data:`alignment.aligners.bayes_run.SOURCE_OPTIONS`), run once on
  the same text with a
  fixed ``random_state`` and cached by fingerprint
  (:func:`alignment.aligners.bayes_run.run_bayes`), in a background thread while the
  statistics and our HMM are built (:func:`start_sources`); a new pair is aligned with the
  fitted counts as priors, in batches.
* **``eflomal``** and **``fast_align``** -- the strong unsupervised aligners of
  :mod:`alignment.aligners.runs`, run once on the same text and cached by fingerprint.  A
  sentence pair that was part of that text gets the run's links; a new pair is aligned
  with what the run learnt (eflomal's priors, fast_align's parameter files), in batches.

:class:`AlignerLinks` is the source of those outputs for any sentence pair (it is fitted
data, like the statistics, and is passed to ``MatchingAligner.fit``);
:class:`AlignerFeaturizer` turns them into edge features (and pair features for the +Q
models).  ``align train`` uses the built-in sources ``hmm`` and ``bayes`` by default (no
other package, the same features on every run); ``--aligners auto`` adds every installed
external aligner, ``--aligners none`` keeps only ``hmm`` (:func:`resolve_sources`).

Feature names (edge features, one row each):

* ``hmm``: ``hmm:fwd``, ``hmm:bwd`` (the two directions' posteriors), ``hmm:min`` (their
  minimum: the intersection's score), ``hmm:inter`` (``hmm:min >= 0.4``, the unsupervised
  subcommand's default links), and the support of ``hmm:min`` from the two diagonal
  neighbours, ``hmm:nbr_diag`` and ``hmm:nbr_anti``;
* ``bayes``: ``bayes:fwd``, ``bayes:bwd``, ``bayes:intersection``,
  ``bayes:grow-diag-final-and``, ``bayes:union`` (0/1), ``bayes:nbr_diag``,
  ``bayes:nbr_anti`` (as eflomal's);
* ``eflomal``: ``eflomal:fwd``, ``eflomal:bwd``, ``eflomal:intersection``,
  ``eflomal:grow-diag-final-and``, ``eflomal:union`` (0/1), ``eflomal:nbr_diag``,
  ``eflomal:nbr_anti`` (diagonal support of the intersection);
* ``fast_align``: ``fast_align:sym`` (0/1);
* with two sources or more, ``aligners:vote_share``: the share of the sources whose
  default links (``hmm:inter``, ``bayes:intersection``, ``eflomal:intersection``,
  ``fast_align:sym``) hold the edge.

Link files of any other aligner (``--external NAME=FILE``,
:class:`alignment.aligners.linkfiles.ExternalAlignments`) give the features of
:class:`ExternalFeaturizer`.  Every one of these values is computed by the kernels of
:mod:`alignment.features.kernel` (:data:`~alignment.features.kernel.ALIGNER_FEATURES`).

Pair features (+Q models): for each pattern of :mod:`alignment.stats.interactions` and each of
``hmm:min``, ``bayes:intersection``, ``bayes:grow-diag-final-and``,
``eflomal:intersection``, ``eflomal:grow-diag-final-and`` and ``fast_align:sym``, the product of the two edges' values.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from structpred import check_n_jobs, resolve_seed
from structpred.io import content_digest, note

from .._runtime import log as _log
from ..aligners.linkfiles import _key
from .kernel import HMM_THRESHOLD

__all__ = ["AlignerLinks", "AlignerFeaturizer", "ExternalFeaturizer", "resolve_sources",
           "start_sources",
           "SOURCES", "BUILTIN", "EXTERNAL", "HMM_THRESHOLD"]

#: every source this module knows, in feature order
SOURCES = ("hmm", "bayes", "eflomal", "fast_align")
#: the sources built in (no other package; deterministic): the default is all of them
BUILTIN = ("hmm", "bayes")
#: the external aligners (opt-in: ``--aligners auto`` or by name)
EXTERNAL = ("eflomal", "fast_align")
#: how many new pairs are sent to eflomal/fast_align at once when predicting
BATCH = 2000


def resolve_sources(spec="default", own_hmm=True):
    """Source names from a user's ``--aligners`` value (the aligners besides our HMM).

    ``"default"`` (or ``None``): our Bayesian aligner (``bayes``; built in, seeded, so the
    same data give the same features); ``"auto"``: ``bayes`` and every installed external
    aligner (eflomal, fast_align); ``"none"`` (or ``""``): none; otherwise a
    comma-separated list of ``bayes``, ``eflomal`` and ``fast_align`` (an external one
    that is not installed is an ``ImportError`` with the install hint; an unknown name a
    ``ValueError``).  With ``own_hmm``, ``hmm`` (our unsupervised HMM, which needs no
    other package) comes first; naming ``hmm`` in the list is allowed and changes nothing.
    Returned in :data:`SOURCES` order.
    """
    from ..aligners.runs import available_aligners, resolve_aligners

    names = []
    if spec is None:
        spec = "default"
    if isinstance(spec, str):
        spec = spec.strip()
        if spec == "default":
            names = ["bayes"]
        elif spec == "auto":
            names = ["bayes"] + [a for a in EXTERNAL if a in available_aligners()]
        elif spec not in ("", "none"):
            names = [s.strip() for s in spec.split(",") if s.strip()]
    else:
        names = list(spec)
    unknown = [n for n in names if n not in SOURCES]
    if unknown:
        keyword = unknown[0] in ("default", "auto", "none")
        raise ValueError(f"unknown aligner {unknown[0]!r}; known: {', '.join(SOURCES[1:])}"
                         + (f" ({unknown[0]!r} is a whole value of its own, not an item of a "
                            "list)" if keyword else ", or default, auto or none alone"))
    resolve_aligners([n for n in names if n in EXTERNAL])   # ImportError when not installed
    if own_hmm:
        names = ["hmm"] + names
    return tuple(n for n in SOURCES if n in names)


def _source_text(pairs, bitext_src, bitext_tgt):
    """The text every source runs on: the bitext plus ``pairs``, empty pairs left out."""
    from ..aligners.unsupervised import training_text

    src, tgt, _ = training_text(pairs, bitext_src, bitext_tgt)
    keep = [i for i, (s, t) in enumerate(zip(src, tgt)) if s and t]
    if len(keep) != len(src):
        src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
    return src, tgt


class _Started:
    """A source's run going on in a daemon thread (a process that exits, e.g. on a bad
    option found meanwhile, does not wait for it; the cache entries are written
    atomically, so an interrupted run leaves none)."""

    def __init__(self, key, func, *args, **kwargs):
        self.key = key
        self._out = self._exc = None
        self._thread = threading.Thread(target=self._work, args=(func, args, kwargs),
                                        daemon=True)
        self._thread.start()

    def _work(self, func, args, kwargs):
        try:
            self._out = func(*args, **kwargs)
        except BaseException as exc:    # re-raised in the thread that asks for the result
            self._exc = exc

    def result(self):
        """Wait for the run; its result (or its exception)."""
        self._thread.join()
        if self._exc is not None:
            raise self._exc
        return self._out


def _start_bayes(key, n_jobs, verbose, beside):
    from ..aligners.bayes_run import SOURCE_OPTIONS, run_bayes

    src, tgt, where, random_state = key
    _log(verbose, f"bayes: aligning {len(src)} pairs (cached by fingerprint)"
                  + (f", {beside}" if beside else ""))
    return _Started(key, run_bayes, src, tgt, None if where is None else Path(where),
                    random_state=random_state, n_jobs=n_jobs, verbose=verbose,
                    **SOURCE_OPTIONS)


def start_sources(sources, pairs, bitext_src=None, bitext_tgt=None, cache_dir=".cache",
                  random_state=0, n_jobs=1, verbose=False):
    """Start, in the background, the runs of :meth:`AlignerLinks.from_sources` that need nothing
    else, so that they go on while the caller builds the statistics: the ``bayes`` run
    (numba, without the GIL) when ``n_jobs > 1``.  The arguments are those of
    :meth:`AlignerLinks.from_sources`; pass the result to it as ``started``.  The runs' outputs do
    not depend on it (the same seed gives the same links).

    Returns
    -------
    dict
        ``{"bayes": handle}``, or empty when nothing was started.
    """
    n_jobs = check_n_jobs(n_jobs)   # -1: every CPU, -2: all but one
    if "bayes" not in tuple(sources) or n_jobs < 2 or bitext_src is None:
        return {}
    src, tgt = _source_text(pairs, bitext_src, bitext_tgt)
    where = None if cache_dir is None else str(Path(cache_dir) / "aligners")
    random_state = resolve_seed(random_state)   # a RandomState: the seed drawn from it
    return {"bayes": _start_bayes((src, tgt, where, random_state), n_jobs, verbose,
                                  "beside the statistics and our HMM")}


def _moved_entry(path):
    """Where a cache entry recorded at ``path`` (``ROOT/aligners/NAME``) is looked for
    once its cache has moved: ``NAME`` under ``$STRUCTPRED_CACHE`` (``.cache`` without it)."""
    root = os.environ.get("STRUCTPRED_CACHE") or ".cache"
    return Path(root) / "aligners" / Path(path or "").name


def _find_run(path, model_dir=None):
    """The folder of a recorded aligner run: where it was written (a path relative to the
    model file's folder ``model_dir``, or an absolute one in older models), or else the same
    entry in the current cache root (:func:`_moved_entry`); ``None`` when neither holds it."""
    if not path:
        return None
    here = [Path(model_dir) / path] if model_dir is not None else []
    for p in (*here, Path(path), _moved_entry(path)):
        if (p / "meta.json").exists():
            return p
    return None


def _recorded_path(run_path, model_path):
    """How a model records the cache folder of an aligner run: relative to the model file's
    folder, so that the same command gives the same model bytes wherever it is run (the
    absolute path differed between two working folders); absolute without a model path."""
    target = Path(run_path).resolve()
    if model_path is None:
        return str(target)
    return os.path.relpath(target, Path(model_path).resolve().parent)


class AlignerLinks:
    """The outputs of other aligners for any sentence pair.

    Build it with :meth:`from_sources` (runs or reads from the caches every source on the
    unlabeled bitext plus the given sentences), or :meth:`from_state` (a saved model).

    Attributes
    ----------
    sources : tuple of str
    unsupervised : UnsupervisedAligner or None
        The ``hmm`` source.
    runs : dict of str to AlignerRun
        The external aligners' runs on the training text.
    """

    def __init__(self, sources=(), unsupervised=None, runs=None, cache_dir=None, verbose=False):
        self.sources = tuple(sources)
        self.unsupervised = unsupervised
        self.runs = dict(runs or {})
        self.cache_dir = cache_dir
        self.verbose = verbose
        self._index = {}      # key -> position in the runs' text
        self._extra = {}      # aligner -> {key: {view: links}} for pairs aligned later

    # ------------------------------------------------------------------ building
    @classmethod
    def from_sources(cls, sources, pairs, bitext_src=None, bitext_tgt=None, cache_dir=".cache",
                     max_len=80, random_state=0, n_jobs=1, started=None, verbose=False):
        """Run (or read back) every source on the bitext plus ``pairs``.

        Parameters
        ----------
        sources : iterable of str
            Names from :data:`SOURCES` (see :func:`resolve_sources`).
        pairs : list of (src_tokens, tgt_tokens)
            The sentences the model is trained and validated on; those not in the bitext
            are appended to it (:func:`alignment.aligners.unsupervised.training_text`).
        bitext_src, bitext_tgt : list of token lists, optional
            The unlabeled bitext.
        cache_dir : path
            ``<cache_dir>/unsupervised`` holds the ``hmm`` model and
            ``<cache_dir>/aligners`` the runs of ``bayes`` and the external aligners,
            each keyed by a fingerprint of the text and the options.
        random_state : int, None, numpy RandomState or Generator
            Seed of the ``bayes`` run (part of its fingerprint; see :func:`run_bayes`).
        n_jobs : int or None
            Threads of the ``bayes`` run and of the ``hmm`` source's training (neither's
            output depends on them); with more than one, the ``bayes`` run also runs
            beside the ``hmm`` source's training (``None``: 1, as scikit-learn reads it).
        started : dict, optional
            What :func:`start_sources` started on the same arguments (a run started on
            other text is waited for, then ignored).
        """
        from ..aligners.runs import run_aligner
        from ..aligners.unsupervised import UnsupervisedAligner

        sources, n_jobs = tuple(sources), check_n_jobs(n_jobs)
        src, tgt = _source_text(pairs, bitext_src, bitext_tgt)
        cache = Path(cache_dir) if cache_dir is not None else None
        where = None if cache is None else cache / "aligners"
        # the Bayesian run samples (numba, without the GIL) in a thread while our HMM
        # trains in this one (with n_jobs > 1): they are independent, and neither's output
        # depends on the threads or on the other
        random_state = resolve_seed(random_state)   # a RandomState: the seed drawn from it
        key = (src, tgt, None if where is None else str(where), random_state)
        bayes_job = (started or {}).get("bayes")
        if bayes_job is not None and bayes_job.key != key:     # started on other text
            bayes_job.result()
            bayes_job = None
        if bayes_job is None and "bayes" in sources and "hmm" in sources and n_jobs > 1:
            bayes_job = _start_bayes(key, n_jobs, verbose, "beside our HMM")
        un = None
        if "hmm" in sources:
            un = UnsupervisedAligner(max_len=max_len, n_jobs=n_jobs, verbose=verbose)
            un.fit(src, tgt, cache_dir=None if cache is None else cache / "unsupervised")
        runs = {}
        for name in sources:
            if name == "hmm":
                continue
            if name == "bayes":
                run = (bayes_job or _start_bayes(key, n_jobs, verbose, None)).result()
            else:
                _log(verbose, f"{name}: aligning {len(src)} pairs (cached by fingerprint)")
                run = run_aligner(name, src, tgt, cache_dir=where, verbose=False)
            if name == "eflomal" and run.path is not None:
                run.priors_file(src, tgt, verbose=verbose)   # for new sentences later
            runs[name] = run
        out = cls(sources, un, runs, cache, verbose)
        out._set_index(src, tgt)
        return out

    def _set_index(self, src, tgt):
        self._index = {}
        for i, (s, t) in enumerate(zip(src, tgt)):
            self._index.setdefault(_key(s, t), i)
        if self.runs:
            keys = np.frombuffer(b"".join(_key(s, t) for s, t in zip(src, tgt)),
                                 dtype=np.uint8).reshape(-1, 12)
            self._keys_digest = _keys_digest(keys)   # recorded in the model (state)
            for run in self.runs.values():
                if run.path is not None:
                    _write_keys(run.path / "keys.npy", keys)

    def subset(self, sources):
        """The same outputs restricted to ``sources`` (e.g. without a labeller)."""
        sources = tuple(x for x in SOURCES if x in set(sources))
        out = AlignerLinks(sources, self.unsupervised if "hmm" in sources else None,
                           {k: v for k, v in self.runs.items() if k in sources},
                           self.cache_dir, self.verbose)
        out._index = self._index
        out._extra = {k: v for k, v in self._extra.items() if k in sources}
        return out

    # ------------------------------------------------------------------ persistence
    def state(self, model_path=None):
        """``(meta, arrays)`` to save with a model: the ``hmm`` tables are embedded; the
        external runs are recorded by their cache folder (relative to the folder of the
        model file ``model_path``) and fingerprint."""
        meta = {"sources": list(self.sources), "runs": {}}
        arrays = {}
        if self.unsupervised is not None:
            meta["hmm_options"] = self.unsupervised.options()
            arrays.update({f"uhmm/{k}": v for k, v in self.unsupervised.stats_.to_arrays().items()})
        for name, run in self.runs.items():
            meta["runs"][name] = {"path": None if run.path is None
                                  else _recorded_path(run.path, model_path),
                                  "fingerprint": run.fingerprint, "version": run.version,
                                  "n_pairs": run.n_pairs}
            if getattr(self, "_keys_digest", None):   # keys.npy edited later: refused
                meta["runs"][name]["keys_digest"] = self._keys_digest
        return meta, arrays

    @classmethod
    def from_state(cls, meta, arrays, path="<model>"):
        """Inverse of :meth:`state`.  The external runs are read from their cache
        folders lazily (:meth:`check`), so a model loads without them."""
        from ..stats.statistics import AlignmentStatistics
        from ..aligners.unsupervised import UnsupervisedAligner

        un = None
        if "hmm" in meta["sources"]:
            opts = dict(meta["hmm_options"])
            opts.pop("format", None)
            un = UnsupervisedAligner(**opts)
            un.stats_ = AlignmentStatistics.from_arrays(
                {k[len("uhmm/"):]: v for k, v in arrays.items() if k.startswith("uhmm/")}, path)
        out = cls(meta["sources"], un)
        out._recorded_runs = dict(meta.get("runs", {}))
        out._model_dir = (Path(path).resolve().parent if path not in (None, "<model>")
                          else None)
        return out

    def check(self):
        """Make sure every external run the model needs is at hand: the aligner is
        installed and its cache entry exists and is the recorded one.  Raises
        ``RuntimeError`` with one line saying what is missing."""
        from ..aligners.runs import _install_hint, _version, load_run

        for name, rec in getattr(self, "_recorded_runs", {}).items():
            if name in self.runs:
                continue
            if name != "bayes" and _version(name) is None:
                raise RuntimeError(f"the model uses {name}, which is not installed: "
                                   + _install_hint(name))
            model_dir = getattr(self, "_model_dir", None)
            p = _find_run(rec.get("path"), model_dir)
            if p is None:
                kept = (Path(model_dir) / rec["path"] if model_dir is not None
                        and rec.get("path") else rec.get("path"))
                raise RuntimeError(f"the model uses the {name} run {rec.get('fingerprint')} "
                                   f"kept in {kept}, which is missing, and "
                                   f"{_moved_entry(rec.get('path'))} is not there either "
                                   "(set $STRUCTPRED_CACHE to the cache it moved to, train "
                                   "the model again on this machine, or copy that folder)")
            run = load_run(p)
            if run.fingerprint != rec.get("fingerprint"):
                raise RuntimeError(f"{p}: the {name} run there is not the one the model was "
                                   "trained with")
            if not (Path(p) / "keys.npy").exists():
                raise RuntimeError(f"{p}: the {name} run has no index of its sentence pairs "
                                   "(keys.npy)")
            self.runs[name] = run
        if self.runs and not self._index:
            name, run = next(iter(self.runs.items()))
            keys = _read_keys(Path(run.path) / "keys.npy")
            recorded = getattr(self, "_recorded_runs", {}).get(name, {}).get("keys_digest")
            if keys is not None and recorded and _keys_digest(keys) != recorded:
                keys = None   # edited keeping its shape: pairs mapped to other pairs' links
            if keys is None:
                raise RuntimeError(f"{Path(run.path) / 'keys.npy'}: a damaged index of the "
                                   "run's sentence pairs (delete it; align train on the "
                                   "same bitext writes it again)")
            self._index = {}
            for i, row in enumerate(keys):
                self._index.setdefault(row.tobytes(), i)
        return self

    # ------------------------------------------------------------------ look-up
    def prepare(self, pairs):
        """Align, in batches, the pairs of ``pairs`` that the runs have not seen (eflomal
        and bayes with their priors, fast_align with its parameters; the batches are
        ``pairs``' new pairs in order, so the same input gives the same links).  Call it before
        :meth:`outputs` on new sentences; :meth:`outputs` does it one pair at a time
        otherwise (correct, but slow for eflomal)."""
        if not self.runs:
            return
        self.check()
        from ..aligners.bayes_run import align_new_bayes
        from ..aligners.runs import align_new

        for name, run in self.runs.items():
            done = self._extra.setdefault(name, {})
            todo, seen = [], set()
            for s, t in pairs:
                k = _key(s, t)
                if k in self._index or k in done or k in seen or not s or not t:
                    continue
                seen.add(k)
                todo.append((s, t))
            for a in range(0, len(todo), BATCH):
                chunk = todo[a:a + BATCH]
                _log(self.verbose, f"{name}: aligning {len(chunk)} new pairs with what its "
                                   "run learnt")
                new = (align_new_bayes if name == "bayes" else align_new)(
                    run, [" ".join(s) for s, _ in chunk], [" ".join(t) for _, t in chunk])
                for i, (s, t) in enumerate(chunk):
                    done[_key(s, t)] = {v: new.directions[v][i] for v in new.directions}

    def position(self, src, tgt):
        """Position of a pair in the text the external runs were made on (None if absent)."""
        return self._index.get(_key(src, tgt))

    def _external(self, name, src, tgt):
        """``{direction: links}`` of the external aligner ``name`` for one pair."""
        k = _key(src, tgt)
        i = self._index.get(k)
        run = self.runs[name]
        if i is not None:
            return {v: run.directions[v][i] for v in run.directions}
        extra = self._extra.get(name, {})
        if k not in extra:
            self.prepare([(src, tgt)])
        return self._extra[name][k]

    def _external_arrays(self, name, src, tgt):
        """``{direction: (L, 2) int array}``: :meth:`_external` without building sets (the
        rows of the run's :class:`alignment.aligners.runs.LinkSets` for pairs of the run)."""
        i = self._index.get(_key(src, tgt))
        if i is not None:
            out = {}
            for v, d in self.runs[name].directions.items():
                out[v] = d.links[d.offsets[i]:d.offsets[i + 1]]
            return out
        return {v: np.array(sorted(x), dtype=np.int64).reshape(-1, 2)
                for v, x in self._external(name, src, tgt).items()}

    def outputs(self, src, tgt):
        """``{feature name: (m, n) array}`` of every source's edge features for one pair
        (the kernel's values, :func:`alignment.features.kernel.aligner_features`)."""
        from .kernel import ALIGNER_FEATURES, aligner_features

        if any(s != "hmm" for s in self.sources) and not self.runs:
            self.check()
        values = aligner_features(self, [(src, tgt)])
        names = set(AlignerFeaturizer(self.sources).edge_names)
        return {name: values[:, i].reshape(len(src), len(tgt))
                for i, name in enumerate(ALIGNER_FEATURES) if name in names}


_EDGE = {"hmm": ("hmm:fwd", "hmm:bwd", "hmm:min", "hmm:inter", "hmm:nbr_diag", "hmm:nbr_anti"),
         "bayes": ("bayes:fwd", "bayes:bwd", "bayes:intersection",
                   "bayes:grow-diag-final-and", "bayes:union", "bayes:nbr_diag",
                   "bayes:nbr_anti"),
         "eflomal": ("eflomal:fwd", "eflomal:bwd", "eflomal:intersection",
                     "eflomal:grow-diag-final-and", "eflomal:union", "eflomal:nbr_diag",
                     "eflomal:nbr_anti"),
         "fast_align": ("fast_align:sym",)}
_PAIR = {"hmm": ("hmm:min",), "bayes": ("bayes:intersection", "bayes:grow-diag-final-and"),
         "eflomal": ("eflomal:intersection", "eflomal:grow-diag-final-and"),
         "fast_align": ("fast_align:sym",)}


class AlignerFeaturizer:
    """Edge and pair features of :class:`AlignerLinks` (names in the module docstring).

    Parameters
    ----------
    sources : tuple of str
        Names from :data:`SOURCES`.
    """

    def __init__(self, sources):
        from ..stats.interactions import _PATTERN_NAMES

        self.sources = tuple(sources)
        unknown = [s for s in self.sources if s not in SOURCES]
        if unknown:
            raise ValueError(f"unknown aligner {unknown[0]!r}; known: {', '.join(SOURCES)}")
        self._raw = [n for s in self.sources for n in _EDGE[s]]
        self.edge_names = self._raw + (["aligners:vote_share"] if len(self.sources) > 1 else [])
        self._pair_sets = [n for s in self.sources for n in _PAIR[s]]
        self.pair_names = [f"{p}:{n}" for p in _PATTERN_NAMES for n in self._pair_sets]

    @property
    def slots(self):
        """Kernel slots (:data:`~alignment.features.kernel.ALIGNER_FEATURES`) of
        :attr:`edge_names`, in their order."""
        from .kernel import ALIGNER_FEATURES

        return np.array([ALIGNER_FEATURES.index(n) for n in self.edge_names], np.int64)

    def edge_block(self, links, src, tgt, values=None):
        """``(n_edge_features, m*n)`` dense block for one pair; ``values``: the pair's
        ``(m*n, len(ALIGNER_FEATURES))`` kernel values if the caller has them."""
        if values is None:
            from .kernel import aligner_features

            values = aligner_features(links, [(src, tgt)])
        return np.ascontiguousarray(values[:, self.slots].T)

    def pair_block(self, links, src, tgt, pairs, pattern, values=None):
        """``(n_pair_features, P)`` dense block: for each pattern and pair link set, the
        product of the pair's two edges' values (``values`` as in :meth:`edge_block`)."""
        from .kernel import ALIGNER_FEATURES, aligner_features

        if values is None:
            values = aligner_features(links, [(src, tgt)])
        flat = np.stack([values[:, ALIGNER_FEATURES.index(name)] for name in self._pair_sets])
        return _pair_products(flat, pairs, pattern)


def _pair_products(flat, pairs, pattern):
    """``(4 * S, P)``: for each of the 4 patterns and each of the ``S`` rows of ``flat``
    (edge values), the product of the two edges of each pair of that pattern."""
    S = len(flat)
    both = flat[:, pairs[:, 0]] * flat[:, pairs[:, 1]]
    res = np.zeros((4 * S, len(pairs)))
    for p in range(4):
        sel = pattern == p
        res[p * S:(p + 1) * S, sel] = both[:, sel]
    return res


class ExternalFeaturizer:
    """Edge and pair features of other aligners' link files (``--external``,
    :class:`alignment.aligners.linkfiles.ExternalAlignments`), computed by the kernel of
    :func:`alignment.features.kernel._link_set_features`.

    Edge features (one row each, 0/1 unless noted): every link set ``ext:<name>``; for the
    eflomal directions also their intersection, grow-diag-final-and and union; the share
    of the files that have the edge (``ext:vote_share``); and the intersection's support
    from the two diagonal neighbours (``ext:inter_nbr_diag``, ``ext:inter_nbr_anti``, 0/0.5/1).
    Pair features (+Q models): for each pattern and each of the link sets above, whether
    both edges of the pair are linked.
    """

    def __init__(self, names):
        from ..stats.interactions import _PATTERN_NAMES

        self.names = list(names)
        self.derived = []
        if {"eflomal_fwd", "eflomal_bwd"} <= set(self.names):
            self.derived = ["eflomal_inter", "eflomal_gdfa", "eflomal_union"]
        sets = self.names + self.derived
        self.edge_names = ([f"ext:{n}" for n in sets]
                           + ["ext:vote_share", "ext:inter_nbr_diag", "ext:inter_nbr_anti"])
        self.pair_names = [f"{p}:ext:{n}" for p in _PATTERN_NAMES for n in sets]

    def link_sets(self, external, src, tgt):
        """``(n_sets, m, n)`` 0/1 links: the files' sets then the derived ones."""
        from ..aligners.symmetrize import links_matrix, symmetrize

        if (src, tgt) not in external:
            raise ValueError("no external alignment for the sentence pair "
                             f"{' '.join(src)[:60]!r}: run the external aligners on it "
                             "(scripts/run_external_aligners.py)")
        mats = external.matrices(src, tgt)
        if not self.derived:
            return mats
        shape = (len(src), len(tgt))
        f = {(j, k) for j, k in zip(*np.nonzero(mats[self.names.index("eflomal_fwd")]))}
        b = {(j, k) for j, k in zip(*np.nonzero(mats[self.names.index("eflomal_bwd")]))}
        extra = [links_matrix(symmetrize(f, b, m), shape)
                 for m in ("intersection", "grow-diag-final-and", "union")]
        return np.concatenate([mats, np.stack(extra)])

    def edge_block(self, external, src, tgt):
        """``(n_edge_features, m*n)`` dense block."""
        from .kernel import _link_set_features

        L = self.link_sets(external, src, tgt)
        m, n = L.shape[1:]
        off = np.array([0, m], np.int64), np.array([0, n], np.int64)
        inter = len(self.names) if self.derived else -1
        flat = np.ascontiguousarray(L.reshape(len(L), m * n), np.float64)
        return np.ascontiguousarray(_link_set_features(*off, flat, len(self.names), inter).T)

    def pair_block(self, external, src, tgt, pairs, pattern):
        """``(n_pair_features, P)`` dense block."""
        L = self.link_sets(external, src, tgt)
        return _pair_products(L.reshape(L.shape[0], -1), pairs, pattern)


def _read_keys(path):
    """The pair keys of a run's ``keys.npy`` (``uint8``, 12 bytes a row), or None when the
    file is damaged (cut short, garbage, of another shape): it was read as it was, and a
    ``keys.npy`` edited keeping its shape mapped sentence pairs to other pairs' links."""
    try:
        keys = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if not isinstance(keys, np.ndarray) or keys.dtype != np.uint8 or keys.ndim != 2 \
            or keys.shape[1] != 12:
        return None
    return keys


def _keys_digest(keys):
    """The content digest (:func:`structpred.io.content_digest`) of a run's pair keys, which
    a model records to refuse a ``keys.npy`` edited keeping its shape."""
    return content_digest({"keys": keys}, {})


def _write_keys(path, keys):
    """Write a run's ``keys.npy`` unless it holds these keys already; a damaged one (or
    one of other pairs: the run folder is named by the pairs, so never a valid one) is
    rewritten with a note (it was kept, and read as the index of the run)."""
    from structpred import atomic_write

    if path.exists():
        old = _read_keys(path)
        if old is not None and np.array_equal(old, keys):
            return
        note(f"{path}: damaged (not the index of this run's sentence pairs): written again")
    with atomic_write(path, mode="wb") as fh:
        np.save(fh, keys)
