r"""Unsupervised word-alignment statistics of a bitext, for the edge features.

:class:`AlignmentStatistics` bundles what :mod:`alignment.features.edges` needs about the
English-French Hansards:

* word frequencies of each side (:meth:`~AlignmentStatistics.most_frequent`,
  :meth:`~AlignmentStatistics.log_frequency`);
* Dice coefficients of word pairs (:mod:`alignment.stats.dice`);
* IBM Model 2 posteriors and Viterbi links in both directions
  (:mod:`alignment.stats.ibm`; Model 1 then Model 2, trained by EM).

:meth:`~AlignmentStatistics.pair_statistics` turns them into ``(m, n)`` matrices for
one sentence pair.

Storage (:meth:`~AlignmentStatistics.to_arrays`) is compact and pickle-free:

* the translation tables :math:`t(f \mid e)` (``fwd``) and :math:`t(e \mid f)`
  (``bwd``) share one sparse pattern, CSR by English word, with ``float32`` values;
  after the last EM iteration a probability below ``prune_threshold`` (default
  :math:`10^{-6}`) is pruned: an entry is kept iff *either* direction's probability
  survives, and the other one is then stored as 0.  The tables are *not* renormalised
  (a row loses less than its number of pruned entries times the threshold).  At
  look-up time every probability, stored, pruned or missing (unknown words), is raised
  to at least ``floor`` (default :math:`10^{-7}`), so all are positive;
* the Dice co-occurrence counts are a second CSR table (``int32``), pruned by
  :func:`alignment.stats.dice.prune_cooc`;
* CSR column indices are stored as differences within each row and row pointers as
  row lengths, which ``np.savez_compressed`` compresses much better.

The fitted object holds exactly what :meth:`~AlignmentStatistics.from_arrays` rebuilds,
so a saved and reloaded model gives identical :meth:`pair_statistics`.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np

from structpred import FormatError
from structpred.parallel import is_dask_client

from structpred.io import (check_format, damage_reason, is_cache_folder, load_npz, pack_json,
                           save_npz, token_form, unpack_json)

from .._cache import bitext_key, compare_keys, fit_options, load_or_compute
from .._runtime import log as _log
from ..data.corpus import (UNK_ID, EncodedCorpus, Vocabulary, filter_bitext, load_bitext,
                           report_line)
from .dice import DEFAULT_DICE_PRUNE_TOTAL, compact_tables, cooc_table, dice_matrix
from .hmm import HMMTables, hmm_key, train_hmm_files
from .ibm import DEFAULT_MAX_JUMP, DEFAULT_N_GIS, restrict_pair_index, train_ibm
from .posteriors import pair_posteriors

__all__ = ["AlignmentStatistics", "FORMAT_VERSION", "statistics_key"]

#: 2: ``format`` name and ``provenance`` (cache key and bitext report) added
FORMAT_VERSION = 2
FORMAT_NAME = "structpred-alignment-statistics"
_WHAT = "alignment statistics"
_LL_KEYS = ("ibm1_fwd", "ibm1_bwd", "ibm2_fwd", "ibm2_bwd")


def _csr_pack(row_ptr, cols):
    """Row lengths (int32) and within-row column differences (int32) of a CSR pattern."""
    row_ptr = np.asarray(row_ptr, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    lengths = np.diff(row_ptr)
    delta = np.diff(cols, prepend=0)
    starts = row_ptr[:-1][lengths > 0]
    delta[starts] = cols[starts]
    return lengths.astype(np.int32), delta.astype(np.int32)


def _csr_unpack(lengths, delta):
    """Inverse of :func:`_csr_pack`: ``(row_ptr int64, cols int32)``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    row_ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    if row_ptr[-1] != len(delta):
        raise ValueError("corrupt sparse table: row lengths do not match the columns")
    cs = np.cumsum(np.asarray(delta, dtype=np.int64))
    before = np.concatenate(([0], cs))[row_ptr[:-1]]   # cumsum just before each row
    cols = cs - np.repeat(before, lengths)
    return row_ptr, cols.astype(np.int32)


def _deprecated(old, new):
    import warnings

    warnings.warn(f"{old} is deprecated: use {new}", DeprecationWarning, stacklevel=3)


def deprecated_alias(owner, old, new):
    """A classmethod ``old`` that warns and calls the named constructor ``new``."""
    def alias(cls, *args, **kwargs):
        _deprecated(f"{owner}.{old}", f"{owner}.{new}")
        return getattr(cls, new)(*args, **kwargs)

    alias.__name__ = old
    alias.__doc__ = f"Deprecated alias of :meth:`{new}`."
    return classmethod(alias)


class AlignmentStatistics:
    r"""Dice and IBM Model 2 statistics (both directions) of a sentence-aligned bitext.

    Build it with :meth:`from_sentences`, :meth:`from_corpus` or :meth:`from_files`; the constructor takes the
    finished (pruned, ``float32``) tables.

    Parameters
    ----------
    src_vocab, tgt_vocab : :class:`alignment.data.corpus.Vocabulary`
        English and French vocabularies, with token counts (``counts_``).
    src_df, tgt_df : ndarray of int
        Sentences containing each word id (Dice denominators).
    t_row_ptr, t_cols : CSR pattern (by English word) of the translation tables.
    t_fwd, t_bwd : ndarray of float32
        :math:`t(f \mid e)` and :math:`t(e \mid f)` on that pattern (0 where pruned).
    t_null_fwd, t_null_bwd : ndarray of float32
        :math:`t(f \mid NULL)` (over French ids) and :math:`t(e \mid NULL)`.
    dist_fwd, dist_bwd : ndarray of float64
        Model 2 jump-bucket weights (see :mod:`alignment.stats.ibm`).
    max_jump : int
    dice_row_ptr, dice_cols, dice_counts : CSR co-occurrence counts :math:`C(e, f)`.
    floor : float
        Lower bound of every translation probability at look-up time.
    prune_threshold : float
        Threshold the translation tables were pruned with (informational).
    dice_prune_total : int or None
        ``K`` the co-occurrence counts were pruned with (informational).
    log_likelihood : dict, optional
        Corpus log-likelihood of each EM iteration, keys ``"ibm1_fwd"``,
        ``"ibm1_bwd"``, ``"ibm2_fwd"``, ``"ibm2_bwd"``.
    n_pairs : int
        Number of training sentence pairs.

    Attributes
    ----------
    log_likelihood_ : dict of list of float
        EM history (also available as ``history``): the log-likelihood (nats) computed
        in each E-step, i.e. under the parameters before that iteration's M-step.
    timings_ : dict
        Wall times (s) of the stages of :meth:`from_sentences` / :meth:`from_files` (empty after
        :meth:`load`).
    """

    def __init__(self, src_vocab, tgt_vocab, src_df, tgt_df, t_row_ptr, t_cols, t_fwd, t_bwd,
                 t_null_fwd, t_null_bwd, dist_fwd, dist_bwd, max_jump, dice_row_ptr,
                 dice_cols, dice_counts, floor=1e-7, prune_threshold=1e-6,
                 dice_prune_total=DEFAULT_DICE_PRUNE_TOTAL, log_likelihood=None, n_pairs=0):
        self.src_vocab = src_vocab
        self.tgt_vocab = tgt_vocab
        self.src_df = np.ascontiguousarray(src_df, dtype=np.int32)
        self.tgt_df = np.ascontiguousarray(tgt_df, dtype=np.int32)
        self.t_row_ptr = np.ascontiguousarray(t_row_ptr, dtype=np.int64)
        self.t_cols = np.ascontiguousarray(t_cols, dtype=np.int32)
        self.t_fwd = np.ascontiguousarray(t_fwd, dtype=np.float32)
        self.t_bwd = np.ascontiguousarray(t_bwd, dtype=np.float32)
        self.t_null_fwd = np.ascontiguousarray(t_null_fwd, dtype=np.float32)
        self.t_null_bwd = np.ascontiguousarray(t_null_bwd, dtype=np.float32)
        self.dist_fwd = np.ascontiguousarray(dist_fwd, dtype=np.float64)
        self.dist_bwd = np.ascontiguousarray(dist_bwd, dtype=np.float64)
        self.max_jump = int(max_jump)
        self.dice_row_ptr = np.ascontiguousarray(dice_row_ptr, dtype=np.int64)
        self.dice_cols = np.ascontiguousarray(dice_cols, dtype=np.int32)
        self.dice_counts = np.ascontiguousarray(dice_counts, dtype=np.int32)
        self.floor = float(floor)
        self.prune_threshold = float(prune_threshold)
        self.dice_prune_total = None if dice_prune_total is None else int(dice_prune_total)
        self.log_likelihood_ = {k: [float(x) for x in (log_likelihood or {}).get(k, [])]
                                for k in _LL_KEYS}
        self.n_pairs = int(n_pairs)
        self.timings_ = {}
        #: what made these statistics (:func:`statistics_key`; None: unknown), and what
        #: was read and left out of the bitext (``{"read", "kept", "dropped", "max_length"}``)
        self.cache_key = None
        self.bitext_report = None
        #: optional :class:`alignment.stats.hmm.HMMTables` on the same pattern (see :meth:`with_hmm`)
        self.hmm = None
        self._check()

    def _check(self):
        ns, nt = len(self.src_vocab), len(self.tgt_vocab)
        if len(self.src_df) != ns or len(self.tgt_df) != nt:
            raise ValueError("document frequencies do not match the vocabularies")
        for name, ptr, n in (("t", self.t_row_ptr, len(self.t_cols)),
                             ("dice", self.dice_row_ptr, len(self.dice_cols))):
            if len(ptr) != ns + 1 or ptr[0] != 0 or ptr[-1] != n:
                raise ValueError(f"{name} table does not match the source vocabulary")
        if not (len(self.t_fwd) == len(self.t_bwd) == len(self.t_cols)):
            raise ValueError("translation tables do not match their pattern")
        if len(self.dice_counts) != len(self.dice_cols):
            raise ValueError("Dice counts do not match their pattern")
        if len(self.t_null_fwd) != nt or len(self.t_null_bwd) != ns:
            raise ValueError("NULL translation tables do not match the vocabularies")
        nb = 2 * self.max_jump + 2
        if len(self.dist_fwd) != nb or len(self.dist_bwd) != nb:
            raise ValueError("distortion weights do not match max_jump")

    def with_hmm(self, hmm):
        """Attach HMM tables trained on this pattern (:func:`alignment.stats.hmm.train_hmm`):
        :meth:`pair_statistics` then also returns the HMM posteriors, and the edge
        features gain the ``hmm_*`` rows.  Returns ``self``."""
        if hmm is not None and (len(hmm.t_fwd) != len(self.t_cols)
                                or len(hmm.t_null_fwd) != len(self.tgt_vocab)
                                or len(hmm.t_null_bwd) != len(self.src_vocab)):
            raise ValueError("the HMM tables were trained on other statistics")
        self.hmm = hmm
        return self

    def with_lexicon(self, hmm):
        r"""A copy whose translation tables are those of HMM tables trained on this
        pattern, with everything else (Model 2 distortion, Dice, vocabularies) kept.

        The Model 2 posteriors of :meth:`pair_statistics` then combine the HMM's lexicon
        :math:`t(f \mid e)`, :math:`t(e \mid f)` with Model 2's zeroth-order position
        model: the edge, fertility and pattern features stay zeroth-order (no jump
        model enters them), but their word-translation probabilities are those of the
        better-trained first-order aligner.  The copy has no HMM attached.

        Parameters
        ----------
        hmm : :class:`alignment.stats.hmm.HMMTables`

        Returns
        -------
        AlignmentStatistics
        """
        if (len(hmm.t_fwd) != len(self.t_cols) or len(hmm.t_null_fwd) != len(self.tgt_vocab)
                or len(hmm.t_null_bwd) != len(self.src_vocab)):
            raise ValueError("the HMM tables were trained on other statistics")
        out = type(self)(self.src_vocab, self.tgt_vocab, self.src_df, self.tgt_df,
                         self.t_row_ptr, self.t_cols, hmm.t_fwd, hmm.t_bwd, hmm.t_null_fwd,
                         hmm.t_null_bwd, self.dist_fwd, self.dist_bwd, self.max_jump,
                         self.dice_row_ptr, self.dice_cols, self.dice_counts, floor=self.floor,
                         prune_threshold=self.prune_threshold,
                         dice_prune_total=self.dice_prune_total,
                         log_likelihood=self.log_likelihood_, n_pairs=self.n_pairs)
        hk = hmm.cache_key or {}
        lexicon = (f"hmm{hk.get('hmm_iterations', '?')}"
                   f"{'-agreement' if hk.get('hmm_agreement') else ''}")
        out.cache_key = None if self.cache_key is None else {**self.cache_key,
                                                             "lexicon": lexicon}
        out.bitext_report = self.bitext_report
        return out

    def summary(self):
        """One line: how many bitext pairs the statistics come from, and what was left out."""
        r = self.bitext_report
        if not r:
            return f"statistics from {self.n_pairs} bitext pairs"
        return "statistics: bitext " + report_line(r["read"], r["kept"], r.get("dropped", {}),
                                                   r.get("max_length"))

    def fingerprint(self):
        """A short hash of everything that fixes Model 2's alignments (vocabulary sizes,
        translation-table pattern and values, NULL tables, distortion, floor).

        :class:`alignment.stats.interactions.InteractionStatistics` records it, so that
        interaction statistics computed from other Model 2 tables (another bitext,
        ``agreement``, :meth:`with_lexicon`) are refused instead of silently used.
        """
        h = hashlib.blake2b(digest_size=12)
        h.update(np.array([len(self.src_vocab), len(self.tgt_vocab), self.max_jump],
                          np.int64).tobytes())
        h.update(np.array([self.floor], np.float64).tobytes())
        for a in (self.t_row_ptr, self.t_cols, self.t_fwd, self.t_bwd, self.t_null_fwd,
                  self.t_null_bwd, self.dist_fwd, self.dist_bwd):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    @property
    def history(self):
        """Alias of ``log_likelihood_``."""
        return self.log_likelihood_

    # ------------------------------------------------------------------ fitting
    @classmethod
    def from_sentences(cls, src_sentences, tgt_sentences, n_iter_model1=5, n_iter_model2=5, min_count=1,
            verbose=True, max_jump=DEFAULT_MAX_JUMP, n_gis=DEFAULT_N_GIS,
            prune_threshold=1e-6, floor=1e-7, dice_prune_total=DEFAULT_DICE_PRUNE_TOTAL,
            n_jobs=2, agreement=False, executor=None):
        """Train on tokenised sentence pairs.

        Parameters
        ----------
        src_sentences, tgt_sentences : list of list of str
            English and French sentences (each word as a file's reader gives it,
            :func:`structpred.io.token_form`, as the aligners read their pairs).
        n_iter_model1, n_iter_model2 : int
            EM iterations of IBM Model 1, then of Model 2 (initialised from Model 1's
            t-table), in each direction.
        min_count : int
            Rarer words map to ``<UNK>`` (trained as one word).
        verbose : bool
            Report progress and log-likelihoods on ``stderr``.
        max_jump : int
            Jump buckets ``-max_jump .. max_jump`` of the Model 2 distortion.
        n_gis : int
            GIS steps per distortion M-step.
        prune_threshold : float
            Drop table entries whose probabilities are both below it.
        floor : float
            Smallest translation probability used at look-up time.
        dice_prune_total : int or None
            ``K`` of :func:`alignment.stats.dice.prune_cooc` (None: keep all counts).
        n_jobs : int or None
            Train the two directions concurrently (2) or in turn (1, or ``None`` as
            scikit-learn reads it).
        agreement : bool
            Train the two directions jointly by agreement (Liang, Taskar & Klein 2006;
            :func:`alignment.stats.ibm.train_agreement`).
        executor : dask.distributed.Client or concurrent.futures.Executor, optional
            Run the EM E-steps on shards of the bitext there (:func:`alignment.stats.ibm.train_ibm`);
            the same tables as in process up to the order of floating-point additions.

        Returns
        -------
        AlignmentStatistics
        """
        if len(src_sentences) != len(tgt_sentences):
            raise ValueError(f"{len(src_sentences)} source but {len(tgt_sentences)} "
                             "target sentences")
        timings = {}
        t0 = time.perf_counter()
        # the words as a file's reader gives them, as the aligners' pairs are
        corpus = EncodedCorpus.build(src_sentences, tgt_sentences, normalize=token_form,
                                     min_count=min_count)
        timings["encode"] = time.perf_counter() - t0
        _log(verbose, f"statistics: {corpus}")
        stats = cls.from_corpus(corpus, n_iter_model1=n_iter_model1, n_iter_model2=n_iter_model2,
                               verbose=verbose, max_jump=max_jump, n_gis=n_gis,
                               prune_threshold=prune_threshold, floor=floor,
                               dice_prune_total=dice_prune_total, n_jobs=n_jobs,
                               agreement=agreement, executor=executor)
        stats.timings_ = {**timings, **stats.timings_}
        return stats

    @classmethod
    def from_corpus(cls, corpus, n_iter_model1=5, n_iter_model2=5, verbose=True,
                   max_jump=DEFAULT_MAX_JUMP, n_gis=DEFAULT_N_GIS, prune_threshold=1e-6,
                   floor=1e-7, dice_prune_total=DEFAULT_DICE_PRUNE_TOTAL, n_jobs=2,
                   agreement=False, executor=None, return_pair_index=False):
        """Train on an :class:`~alignment.data.corpus.EncodedCorpus` with vocabularies.

        See :meth:`from_sentences` for the parameters.  ``return_pair_index``: return
        ``(stats, (pidx, pair_off))``, the :func:`~alignment.stats.ibm.pair_index` of the
        corpus on the stored (pruned) translation table, for a model trained next on the
        same corpus (the HMM: ``train_hmm(..., pair_index=...)``).
        """
        if corpus.src_vocab is None or corpus.tgt_vocab is None:
            raise ValueError("the corpus needs vocabularies")
        timings = {}
        t0 = time.perf_counter()
        row_ptr, cols, counts, src_df, tgt_df = cooc_table(corpus)
        timings["cooc"] = time.perf_counter() - t0
        _log(verbose, f"statistics: co-occurrence table with {len(cols)} pairs "
                      f"({timings['cooc']:.1f}s)")
        tables = train_ibm(corpus, n_iter_model1=n_iter_model1, n_iter_model2=n_iter_model2,
                           max_jump=max_jump, n_gis=n_gis, n_jobs=n_jobs,
                           cooc=(row_ptr, cols, counts), agreement=agreement,
                           verbose=verbose, executor=executor, keep_index=return_pair_index)
        timings["pair_index"] = tables.seconds["pair_index"]
        timings["em"] = tables.seconds["em"]
        for d in (tables.fwd, tables.bwd):
            for model, sec in d.seconds.items():
                timings[f"{model}_{d.direction}"] = sec
        t0 = time.perf_counter()
        c = compact_tables(row_ptr, cols, counts, tables.fwd.t, tables.bwd.t, src_df, tgt_df,
                           prune_threshold, dice_prune_total)
        ll = {f"{name}_{d.direction}": d.history[name]
              for d in (tables.fwd, tables.bwd) for name in ("ibm1", "ibm2")}
        stats = cls(corpus.src_vocab, corpus.tgt_vocab, src_df, tgt_df, c["t_ptr"], c["t_cols"],
                    c["t_fwd"], c["t_bwd"], tables.fwd.t_null,
                    tables.bwd.t_null, tables.fwd.dist, tables.bwd.dist, tables.max_jump,
                    c["d_ptr"], c["d_cols"], c["d_counts"], floor=floor,
                    prune_threshold=prune_threshold, dice_prune_total=dice_prune_total,
                    log_likelihood=ll, n_pairs=len(corpus))
        timings["compact"] = time.perf_counter() - t0
        _log(verbose, f"statistics: kept {len(c['t_cols'])} of {len(cols)} translation pairs "
                      f"(p >= {prune_threshold:g}), {len(c['d_cols'])} Dice counts "
                      f"(max Dice change {c['max_err']:.3g})")
        stats.timings_ = timings
        if return_pair_index:
            return stats, restrict_pair_index(*tables.index, kept_entries=c["t_kept"])
        return stats

    @classmethod
    def from_files(cls, src_path, tgt_path, max_pairs=None, verbose=True, max_len=80,
                  max_ratio=None, protect_first=0, lines=None, **kw):
        """Train on the first ``max_pairs`` lines of a (gzipped) tokenised bitext.

        Pairs with more than ``max_len`` tokens on a side (or a length ratio above
        ``max_ratio``) are left out of training, except the first ``protect_first``
        lines (none by default); see :func:`alignment.data.corpus.load_bitext`.  Other
        keywords go to :meth:`from_sentences`.  The result records its :func:`statistics_key`
        (``cache_key``) and what was read and left out (``bitext_report``).  ``lines``: the
        token lists of those lines, already read (``(src, tgt)``, see
        :func:`alignment.data.corpus.filter_bitext`): the files are then not read again.

        With ``executor=`` a ``dask.distributed.Client`` (and no ``agreement``), the
        bitext is read in chunks and sent to the workers, which encode it, build the
        co-occurrence tables and pair indexes and run EM with the translation tables
        sharded by source word (:mod:`alignment.stats.distributed`): the driver holds
        only vectors over the vocabularies.  The result equals the in-process one up to
        the order of floating-point additions.

        Raises
        ------
        FormatError
            An unreadable or empty bitext, or one left empty by the length filter.
        """
        key = statistics_key(src_path, tgt_path, max_pairs, max_len, protect_first, max_ratio,
                             **kw)
        if is_dask_client(kw.get("executor")) and not kw.get("agreement"):
            # on a cluster: read, encode, index and train on the workers, with the tables
            # sharded by source word (alignment.stats.distributed)
            from .distributed import statistics_on_cluster

            stats, report = statistics_on_cluster(
                cls, kw.pop("executor"), src_path, tgt_path, max_pairs=max_pairs,
                verbose=verbose, max_len=max_len, max_ratio=max_ratio,
                protect_first=protect_first, **kw)
            stats.cache_key = key
            stats.bitext_report = report
            return stats
        t0 = time.perf_counter()
        if lines is not None:
            bitext = filter_bitext(*lines, max_len=max_len, max_ratio=max_ratio,
                                   protect_first=protect_first)
        else:
            bitext = load_bitext(src_path, tgt_path, max_pairs=max_pairs, max_len=max_len,
                                 max_ratio=max_ratio, protect_first=protect_first)
        t_load = time.perf_counter() - t0
        _log(verbose, f"statistics: {bitext.report(max_len)} ({t_load:.1f}s)")
        if len(bitext) == 0:
            # "after leaving out those longer than 80 tokens" named the length for pairs
            # left out for an empty side
            raise FormatError(src_path, None, f"no sentence pairs left: {bitext.report(max_len)}")
        stats = cls.from_sentences(bitext.src, bitext.tgt, verbose=verbose, **kw)
        stats.timings_ = {"load": t_load, **stats.timings_}
        stats.cache_key = key
        stats.bitext_report = {"read": bitext.n_read, "kept": len(bitext),
                               "dropped": dict(bitext.dropped), "max_length": max_len}
        return stats

    fit = deprecated_alias("AlignmentStatistics", "fit", "from_sentences")

    fit_corpus = deprecated_alias("AlignmentStatistics", "fit_corpus", "from_corpus")

    fit_files = deprecated_alias("AlignmentStatistics", "fit_files", "from_files")

    @classmethod
    def load_or_fit(cls, cache, src_path, tgt_path, max_pairs=None, verbose=True, max_len=80,
                    protect_first=0, hmm=0, hmm_agreement=False, hmm_options=None,
                    executor=None, lines=None, **kw):
        """The statistics of a bitext (and optionally its HMM), from a cache if one was
        made from exactly these inputs and options, else computed (and cached).

        Parameters
        ----------
        cache : path, optional
            ``None``: no cache.  A folder (existing, or a path ending in ``/``): the
            statistics are ``stats-<hash>.npz`` and the HMM ``hmm-<hash>.npz`` in it,
            named by their keys, so every setting gets its own files.  Otherwise one file
            holding the statistics (and the HMM): used only if it was made from the same
            bitext and options (else :class:`~alignment._cache.CacheMismatch`, which
            names what differs: the file is never rewritten), written if missing.
        src_path, tgt_path : path, optional
            The bitext.  Without it, an existing cache file is used as it is (with the
            HMM it holds, which must match ``hmm``).
        max_pairs, max_len, protect_first, **kw
            As in :meth:`from_files`.
        hmm : int
            EM iterations of the HMM (:func:`alignment.stats.hmm.train_hmm`) to attach; 0: none.
        hmm_agreement : bool
            Train the HMM's two directions by agreement.
        hmm_options : dict, optional
            Further keywords of :func:`alignment.stats.hmm.train_hmm`.
        executor : dask.distributed.Client or concurrent.futures.Executor, optional
            Where the E-steps of IBM Models 1/2 and of the HMM run when they are computed
            (not part of the cache key: the result is the same).
        lines : (list, list), optional
            The bitext's lines as already read (:meth:`from_files`; not part of the key).

        Raises
        ------
        CacheMismatch
            The cache file was made from other inputs or options.
        FormatError
            A cache file that is not statistics, or an unreadable bitext.
        """
        have_bitext = src_path is not None and tgt_path is not None
        key = (statistics_key(src_path, tgt_path, max_pairs, max_len, protect_first, **kw)
               if have_bitext else None)
        hmm_options = dict(hmm_options or {})
        agree = bool(hmm_agreement) if hmm else False

        def fit():
            if not have_bitext:
                raise ValueError("no statistics cache and no bitext to compute them from")
            return cls.from_files(src_path, tgt_path, max_pairs=max_pairs, verbose=verbose,
                                 max_len=max_len, protect_first=protect_first,
                                 executor=executor, lines=lines, **kw)

        def train(stats):
            if not have_bitext:
                raise ValueError("the HMM needs the bitext")
            return train_hmm_files(stats, src_path, tgt_path, max_pairs=max_pairs,
                                   max_len=max_len, protect_first=protect_first, n_iter=hmm,
                                   agreement=agree, verbose=verbose, executor=executor,
                                   **hmm_options)

        def save(obj, path):
            obj.save(path)

        if is_cache_folder(cache):
            # one file per setting: the statistics and the HMM in files of their own
            stats = load_or_compute(cache, key, fit, cls.load, save, "stats", verbose=verbose,
                                    what="statistics")
            if hmm:
                hkey = hmm_key(stats, src_path, tgt_path, max_pairs, max_len, protect_first,
                               hmm, agree, **hmm_options)
                stats.with_hmm(load_or_compute(cache, hkey, lambda: train(stats),
                                               HMMTables.load, save, "hmm", verbose=verbose,
                                               what="HMM"))
            return stats

        def compute():
            stats = fit()
            return stats.with_hmm(train(stats)) if hmm else stats

        def differences(stats):
            """What differs between one cache file (statistics and maybe an HMM) and
            what was asked."""
            diffs = []
            if key is not None:
                diffs = (compare_keys(stats.cache_key, key) if stats.cache_key is not None
                         else ["it records no fingerprint of its bitext (an older file)"])
            elif stats.cache_key is not None:
                # no bitext to compare with: the options that can be checked still must agree
                asked = {"ibm_agreement": bool(kw.get("agreement", False)),
                         "max_length": max_len}
                diffs = compare_keys({k: stats.cache_key.get(k) for k in asked}, asked)
            have = stats.hmm
            if have is None and hmm:
                diffs.append(f"--hmm: none in the cache, {hmm} asked")
            elif have is not None and not hmm:
                n = (have.cache_key or {}).get("hmm_iterations", "an HMM")
                diffs.append(f"--hmm: {n} in the cache, none asked")
            elif have is not None and hmm and not diffs:
                if have.cache_key is None:
                    diffs.append("the HMM records no settings (an older file)")
                elif key is not None:
                    diffs += compare_keys(have.cache_key,
                                          hmm_key(stats, src_path, tgt_path, max_pairs, max_len,
                                                  protect_first, hmm, agree, **hmm_options))
                else:
                    diffs += compare_keys({k: have.cache_key.get(k) for k in
                                           ("hmm_iterations", "hmm_agreement")},
                                          {"hmm_iterations": hmm, "hmm_agreement": agree})
            return diffs

        return load_or_compute(cache, key, compute, cls.load, save, "stats",
                               differences=differences, verbose=verbose, what="statistics")

    # ------------------------------------------------------------------ queries
    def _vocab(self, side):
        if side == "src":
            return self.src_vocab
        if side == "tgt":
            return self.tgt_vocab
        raise ValueError(f"side must be 'src' or 'tgt', not {side!r}")

    def most_frequent(self, side, n):
        """The ``n`` most frequent word types of ``side`` (``"src"`` or ``"tgt"``)."""
        vocab = self._vocab(side)
        return vocab.tokens[2:2 + max(int(n), 0)]

    def log_frequency(self, side, tokens):
        """``log(1 + count)`` of each token in the training text (0 for unknown words).

        Returns
        -------
        ndarray of float64, shape (len(tokens),)
        """
        vocab = self._vocab(side)
        ids = vocab.encode(tokens)
        counts = vocab.counts_[ids].astype(np.float64)
        counts[ids <= UNK_ID] = 0.0
        return np.log1p(counts)

    def encode(self, src_tokens, tgt_tokens):
        """Word ids of a sentence pair (unknown words: ``UNK_ID``)."""
        return self.src_vocab.encode(src_tokens), self.tgt_vocab.encode(tgt_tokens)

    def pair_statistics(self, src_tokens, tgt_tokens):
        """Dice and IBM Model 2 matrices of one sentence pair.

        Parameters
        ----------
        src_tokens, tgt_tokens : sequence of str
            English (``m`` words) and French (``n`` words) sentence.

        Returns
        -------
        dict of ndarray of float64
            ``"dice"`` (m, n): :math:`2 C(e_j, f_k) / (C(e_j) + C(f_k))`;
            ``"post_fwd"`` (m, n): :math:`P(a_k = j \\mid e, f)` of :math:`p(f \\mid e)`,
            with ``"null_fwd"`` (n,) the NULL posterior (columns plus NULL sum to 1);
            ``"post_bwd"`` (m, n): :math:`P(b_j = k \\mid e, f)` of :math:`p(e \\mid f)`,
            with ``"null_bwd"`` (m,) (rows plus NULL sum to 1);
            ``"vit_fwd"``, ``"vit_bwd"`` (m, n): 0/1 Viterbi links of each direction,
            the argmax over NULL and the real positions (NULL wins ties, then the
            lowest position).  Unknown words get Dice 0 and translation probability
            ``floor``.
        """
        e, f = self.encode(src_tokens, tgt_tokens)
        m, n = len(e), len(f)
        post_f, null_f, post_b, null_b = pair_posteriors(
            e, f, self.t_row_ptr, self.t_cols, self.t_fwd, self.t_bwd, self.t_null_fwd,
            self.t_null_bwd, self.dist_fwd, self.dist_bwd, self.max_jump, self.floor)
        vit_f = np.zeros((m, n))
        vit_b = np.zeros((m, n))
        if m and n:
            best_f = np.argmax(np.vstack([null_f[None, :], post_f]), axis=0)   # (n,)
            k = np.flatnonzero(best_f > 0)
            vit_f[best_f[k] - 1, k] = 1.0
            best_b = np.argmax(np.hstack([null_b[:, None], post_b]), axis=1)   # (m,)
            j = np.flatnonzero(best_b > 0)
            vit_b[j, best_b[j] - 1] = 1.0
        dice = dice_matrix(e, f, self.dice_row_ptr, self.dice_cols, self.dice_counts,
                           self.src_df, self.tgt_df)
        out = {"dice": dice, "post_fwd": post_f, "post_bwd": post_b, "null_fwd": null_f,
               "null_bwd": null_b, "vit_fwd": vit_f, "vit_bwd": vit_b}
        if self.hmm is not None:
            out["hmm_fwd"], out["hmm_bwd"] = self.hmm.posteriors(self, src_tokens, tgt_tokens)
        return out

    # ------------------------------------------------------------------ persistence
    def to_arrays(self):
        """Plain numeric arrays (no objects, no pickles) for ``np.savez``.

        Returns
        -------
        dict of str to ndarray
        """
        out = {"format": np.array(FORMAT_NAME), "version": np.array(FORMAT_VERSION, dtype=np.int64)}
        if self.cache_key is not None or self.bitext_report is not None:
            out["provenance"] = pack_json({"key": self.cache_key, "report": self.bitext_report})
        out.update(self.src_vocab.to_arrays("src_"))
        out.update(self.tgt_vocab.to_arrays("tgt_"))
        t_len, t_delta = _csr_pack(self.t_row_ptr, self.t_cols)
        d_len, d_delta = _csr_pack(self.dice_row_ptr, self.dice_cols)
        out.update({
            "src_df": self.src_df, "tgt_df": self.tgt_df,
            "t_row_len": t_len, "t_col_delta": t_delta,
            "t_fwd": self.t_fwd, "t_bwd": self.t_bwd,
            "t_null_fwd": self.t_null_fwd, "t_null_bwd": self.t_null_bwd,
            "dist_fwd": self.dist_fwd, "dist_bwd": self.dist_bwd,
            "max_jump": np.array(self.max_jump, dtype=np.int64),
            "dice_row_len": d_len, "dice_col_delta": d_delta, "dice_counts": self.dice_counts,
            "floor": np.array(self.floor), "prune_threshold": np.array(self.prune_threshold),
            "dice_prune_total": np.array(-1 if self.dice_prune_total is None
                                         else self.dice_prune_total, dtype=np.int64),
            "n_pairs": np.array(self.n_pairs, dtype=np.int64),
        })
        for k in _LL_KEYS:
            out[f"ll_{k}"] = np.asarray(self.log_likelihood_[k], dtype=np.float64)
        if self.hmm is not None:
            out.update(self.hmm.to_arrays("hmm_"))
        return out

    @classmethod
    def from_arrays(cls, arrays, path="<arrays>"):
        """Inverse of :meth:`to_arrays`; anything missing, inconsistent or of another
        format is a :class:`~structpred.FormatError` on ``path``."""
        a = arrays
        check_format(a, path, FORMAT_NAME, (1, FORMAT_VERSION), _WHAT, legacy_ok=True)
        try:
            t_ptr, t_cols = _csr_unpack(a["t_row_len"], a["t_col_delta"])
            d_ptr, d_cols = _csr_unpack(a["dice_row_len"], a["dice_col_delta"])
            dpt = int(a["dice_prune_total"])
            stats = cls(Vocabulary.from_arrays(a, "src_"), Vocabulary.from_arrays(a, "tgt_"),
                        a["src_df"], a["tgt_df"], t_ptr, t_cols, a["t_fwd"], a["t_bwd"],
                        a["t_null_fwd"], a["t_null_bwd"], a["dist_fwd"], a["dist_bwd"],
                        int(a["max_jump"]), d_ptr, d_cols, a["dice_counts"],
                        floor=float(a["floor"]), prune_threshold=float(a["prune_threshold"]),
                        dice_prune_total=None if dpt < 0 else dpt,
                        log_likelihood={k: np.asarray(a[f"ll_{k}"]).tolist() for k in _LL_KEYS},
                        n_pairs=int(a["n_pairs"]))
            # any HMM entry: the tables (their first dropped, the model aligned without them)
            stats.with_hmm(HMMTables.from_arrays(a, "hmm_", path)
                           if any(k.startswith("hmm_") for k in a) else None)
        except FormatError:
            raise
        except Exception as exc:  # noqa: BLE001 - any inconsistency is a damaged file
            raise FormatError(path, None, f"corrupt {_WHAT} ({damage_reason(exc)})") from None
        if "provenance" in a:
            prov = unpack_json(a["provenance"], path, _WHAT)
            key, report = (prov.get("key"), prov.get("report")) if isinstance(prov, dict) \
                else (0, 0)
            if not (isinstance(key, (dict, type(None))) and (report is None or (
                    isinstance(report, dict) and isinstance(report.get("read"), int)
                    and isinstance(report.get("kept"), int)
                    and isinstance(report.get("dropped", {}), dict)))):
                raise FormatError(path, None, f"corrupt {_WHAT} (bad provenance)")
            stats.cache_key, stats.bitext_report = key, report
        return stats

    def save(self, path):
        """Write :meth:`to_arrays` to ``path`` (:func:`structpred.io.save_npz`)."""
        arrays = self.to_arrays()
        header = {"format": FORMAT_NAME, "version": int(arrays.pop("version"))}
        arrays.pop("format")
        save_npz(path, arrays, header)

    @classmethod
    def load(cls, path):
        """Read a file written by :meth:`save` (never unpickling); a file that is not one
        is a :class:`~structpred.FormatError`."""
        header, arrays = load_npz(path, FORMAT_NAME, (1, FORMAT_VERSION), _WHAT, legacy_ok=True)
        arrays.update(format=np.array(FORMAT_NAME), version=np.array(header["version"]))
        return cls.from_arrays(arrays, path)

    def __repr__(self):
        return (f"AlignmentStatistics({self.n_pairs} pairs, {len(self.src_vocab)} / "
                f"{len(self.tgt_vocab)} types, {len(self.t_cols)} translation pairs, "
                f"{len(self.dice_cols)} Dice counts)")


def statistics_key(src_path, tgt_path, max_pairs=None, max_len=80, protect_first=0,
                   max_ratio=None, **kw):
    """The cache key of :meth:`AlignmentStatistics.from_files` with these arguments:
    :func:`alignment._cache.bitext_key` plus IBM agreement and the other fitting options."""
    kw = dict(kw)
    agreement = bool(kw.pop("agreement", False))
    return {**bitext_key(src_path, tgt_path, max_pairs, max_len, protect_first),
            "max_ratio": None if max_ratio is None else float(max_ratio),
            "ibm_agreement": agreement,
            "ibm_options": fit_options(AlignmentStatistics.from_sentences, kw,
                                       drop=("verbose", "n_jobs", "agreement", "executor"))}
