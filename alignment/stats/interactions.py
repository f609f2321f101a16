r"""The statistics of the fertility (node) and first-order interaction (pair) features,
thesis sec. 3.4.1.2-3.

:class:`InteractionStatistics` runs IBM Model 2 Viterbi alignment (both
directions, and their intersection) over the unlabeled bitext once and counts

* for each source (target) word type, the share of its occurrences that the
  forward (backward) model aligned to two or more words;
* for each linked word-pair type ``(e, f)`` and each version of Model 2
  (forward, backward, intersected), the share of its links that take part in
  each pair pattern of fig. 3.1(c) (monotone, inverted, one-to-two on either
  side) with a neighbouring link.

:class:`~alignment.features.interactions.NodeFeaturizer` and
:class:`~alignment.features.interactions.PairFeaturizer` (in :mod:`alignment.features.interactions`) turn these into the
features of the fertility penalties ``s_dj. = w'f(j, d)`` and of the pair
bonuses ``s_jklm = w'f(jklm)``.  Both have to be non-negative (eqs. 3.2, 3.3),
which the model gets from non-negative features and weights (``w >= 0`` on
these blocks, :class:`structpred.L2Ball`).  A feature that
should *lower* a penalty is therefore given in complemented form (e.g.
``1 - share``): a positive weight on it then raises the penalty of words
without the property.  Monotonicity in ``d`` (``s_2 <= s_3 <= ...``) comes
from cumulative level blocks: ``f(j, d) = sum_{d' <= d} e_{d'} (x) phi(j)``.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from structpred import FormatError, check_n_jobs

from structpred.io import (check_format, damage_reason, load_npz, note, pack_json, read_npz, save_npz,
                           unpack_json)

from .._cache import bitext_key, load_or_compute
from .._runtime import add_parts, check_stop, chunk_ranges, run_parts
from .statistics import deprecated_alias
from ..data.corpus import EncodedCorpus, filter_bitext, find_in_row, load_bitext
from .posteriors import _pair_posteriors

__all__ = ["InteractionStatistics", "VERSIONS", "interaction_key"]

FORMAT_NAME = "structpred-interaction-statistics"
#: 2: ``format``, ``version`` and ``provenance`` (the cache key) added
FORMAT_VERSION = 2
_WHAT = "interaction statistics"

VERSIONS = ("fwd", "bwd", "inter")
_PATTERN_NAMES = ("monotone", "inverted", "src-one-to-two", "tgt-one-to-two")
# neighbour offsets (dj, dk) that make a link part of each pattern, in either role
_OFFSETS = np.array([[[1, 1], [-1, -1]],      # monotone
                     [[1, -1], [-1, 1]],      # inverted
                     [[0, 1], [0, -1]],       # same source word, consecutive targets
                     [[1, 0], [-1, 0]]],      # same target word, consecutive sources
                    dtype=np.int64)
_FREQ_BUCKETS = (1, 10, 100, 1000, 10000)   # count thresholds: [0,1), [1,10), ... [1e4, inf)


@numba.njit(cache=True)
def _viterbi(post_f, null_f, post_b, null_b, vf, vb):
    m, n = post_f.shape
    for k in range(n):
        best, arg = null_f[k], -1
        for j in range(m):
            if post_f[j, k] > best:
                best, arg = post_f[j, k], j
        if arg >= 0:
            vf[arg, k] = 1
    for j in range(m):
        best, arg = null_b[j], -1
        for k in range(n):
            if post_b[j, k] > best:
                best, arg = post_b[j, k], k
        if arg >= 0:
            vb[j, arg] = 1


@numba.njit(cache=True, nogil=True)
def _corpus_pass(src_ids, src_off, tgt_ids, tgt_off, row_ptr, cols, t_fwd, t_bwd, t_null_fwd,
                 t_null_bwd, w_fwd, w_bwd, max_jump, floor, n_src, n_tgt, offsets, src_occ,
                 src_multi, tgt_occ, tgt_multi, links, pat):
    """Viterbi-align the sentences of ``src_off``/``tgt_off`` (a slice of the corpus's
    offsets) and add their counts to the accumulators (the last six arguments)."""
    nrows = row_ptr.size - 1
    for s in range(src_off.size - 1):
        e = src_ids[src_off[s]:src_off[s + 1]]
        f = tgt_ids[tgt_off[s]:tgt_off[s + 1]]
        m, n = e.size, f.size
        if m == 0 or n == 0:
            continue
        pf, nf, pb, nb_ = _pair_posteriors(e, f, row_ptr, cols, t_fwd, t_bwd, t_null_fwd,
                                           t_null_bwd, w_fwd, w_bwd, max_jump, floor)
        v = np.zeros((3, m, n), np.int8)
        _viterbi(pf, nf, pb, nb_, v[0], v[1])
        for j in range(m):
            for k in range(n):
                v[2, j, k] = v[0, j, k] & v[1, j, k]
        for j in range(m):
            deg = 0
            for k in range(n):
                deg += v[0, j, k]
            if 0 <= e[j] < n_src:
                src_occ[e[j]] += 1
                if deg >= 2:
                    src_multi[e[j]] += 1
        for k in range(n):
            deg = 0
            for j in range(m):
                deg += v[1, j, k]
            if 0 <= f[k] < n_tgt:
                tgt_occ[f[k]] += 1
                if deg >= 2:
                    tgt_multi[f[k]] += 1
        for j in range(m):
            if not (0 <= e[j] < nrows):
                continue
            for k in range(n):
                if v[0, j, k] == 0 and v[1, j, k] == 0:
                    continue
                p = find_in_row(cols, row_ptr[e[j]], row_ptr[e[j] + 1], f[k])
                if p < 0:
                    continue
                for ver in range(3):
                    if v[ver, j, k] == 0:
                        continue
                    links[p, ver] += 1
                    for q in range(4):
                        hit = 0
                        for r in range(2):
                            jj = j + offsets[q, r, 0]
                            kk = k + offsets[q, r, 1]
                            if 0 <= jj < m and 0 <= kk < n and v[ver, jj, kk]:
                                hit = 1
                        pat[p, ver, q] += hit


def _count_chunks(stats, e_ids, src_off, f_ids, tgt_off, chunks, stop=None):
    """:func:`_corpus_pass` over the sentence ranges ``chunks`` into new accumulators:
    ``(src_occ, src_multi, tgt_occ, tgt_multi, links, pat)``."""
    n_src, n_tgt, nnz = len(stats.src_vocab), len(stats.tgt_vocab), stats.t_cols.size
    acc = (np.zeros(n_src, np.int64), np.zeros(n_src, np.int64), np.zeros(n_tgt, np.int64),
           np.zeros(n_tgt, np.int64), np.zeros((nnz, 3), np.int32),
           np.zeros((nnz, 3, 4), np.int32))
    w_fwd, w_bwd = np.ascontiguousarray(stats.dist_fwd), np.ascontiguousarray(stats.dist_bwd)
    for lo, hi in chunks:
        check_stop(stop)
        _corpus_pass(e_ids, src_off[lo:hi + 1], f_ids, tgt_off[lo:hi + 1], stats.t_row_ptr,
                     stats.t_cols, stats.t_fwd, stats.t_bwd, stats.t_null_fwd, stats.t_null_bwd,
                     w_fwd, w_bwd, stats.max_jump, stats.floor, n_src, n_tgt, _OFFSETS, *acc)
    return acc


class InteractionStatistics:
    """IBM Model 2 fertility and pair-pattern statistics of a bitext (see the module doc).

    Attributes
    ----------
    src_fert_share, tgt_fert_share : ndarray of float32, by word id of ``stats``'s vocabularies
        Share of occurrences aligned to >= 2 words (forward model for source
        words, backward model for target words); 0 for unseen words.
    src_count, tgt_count : ndarray of int64
        Occurrences of each word in the bitext.
    pair_keys : ndarray of int64
        Positions in ``stats``'s translation-table pattern of the word pairs that
        Model 2 linked at least once.
    pattern_share : ndarray of float32, shape (len(pair_keys), 3, 4)
        Share of the links of each version (fwd, bwd, inter) that take part in
        each pattern; 0 when the version never linked the pair.
    stats_fingerprint : str
        :meth:`AlignmentStatistics.fingerprint` of the statistics they were computed
        from ("" for files written before it was recorded).
    cache_key : dict or None
        What they were computed from (:func:`interaction_key`), when known.
    """

    def __init__(self, src_fert_share, tgt_fert_share, src_count, tgt_count, pair_keys,
                 pattern_share, n_pairs=0, stats_fingerprint=""):
        self.src_fert_share = np.asarray(src_fert_share, np.float32)
        self.tgt_fert_share = np.asarray(tgt_fert_share, np.float32)
        self.src_count = np.asarray(src_count, np.int64)
        self.tgt_count = np.asarray(tgt_count, np.int64)
        self.pair_keys = np.asarray(pair_keys, np.int64)
        self.pattern_share = np.asarray(pattern_share, np.float32).reshape(-1, 3, 4)
        self.n_pairs = int(n_pairs)
        self.stats_fingerprint = str(stats_fingerprint)
        self.cache_key = None

    def check_statistics(self, stats, source=None):
        """Raise ``ValueError`` if these were computed from other Model 2 statistics
        than ``stats`` (unknown provenance passes)."""
        if self.stats_fingerprint and self.stats_fingerprint != stats.fingerprint():
            msg = ("interaction statistics were computed from other IBM Model 2 statistics "
                   "(another bitext, --ibm-agreement or --hmm-lexicon); recompute them "
                   "(another cache file, or a cache folder)")
            if source:
                raise FormatError(source, None, msg)
            raise ValueError(msg)
        return self

    @classmethod
    def from_sentences(cls, stats, src_sentences, tgt_sentences, verbose=False, n_jobs=2):
        """Viterbi-align every sentence pair with ``stats``'s Model 2 and count.

        With ``n_jobs >= 2`` the two halves of the pairs are counted in two threads, each
        into counts of its own, then added (integer counts: the same result as one
        thread, at the cost of one more copy of the link and pattern counts); ``None`` is
        one thread, as scikit-learn reads it."""
        t0, n_jobs = time.perf_counter(), check_n_jobs(n_jobs)
        corpus = EncodedCorpus.from_sentences(src_sentences, tgt_sentences, stats.src_vocab,
                                              stats.tgt_vocab)
        e_ids, src_off, f_ids, tgt_off = (corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                          corpus.tgt_offsets)
        del corpus
        work = np.zeros(len(src_off), np.int64)
        np.cumsum(np.diff(src_off) * np.diff(tgt_off), out=work[1:])
        chunks = chunk_ranges(work, 1_000_000)     # Ctrl-C is noticed between chunks
        args = (stats, e_ids, src_off, f_ids, tgt_off)
        half = len(chunks) // 2
        parts = [chunks[:half], chunks[half:]] if n_jobs >= 2 and half else [chunks]
        src_occ, src_multi, tgt_occ, tgt_multi, links, pat = add_parts(run_parts(
            [lambda stop, c=c: _count_chunks(*args, c, stop) for c in parts], n_jobs))
        keys = np.flatnonzero(links.sum(1) > 0)
        share = pat[keys] / np.maximum(links[keys], 1)[:, :, None]
        res = cls(src_multi / np.maximum(src_occ, 1), tgt_multi / np.maximum(tgt_occ, 1),
                  src_occ, tgt_occ, keys, share, n_pairs=len(src_off) - 1,
                  stats_fingerprint=stats.fingerprint())
        if verbose:
            note(f"interaction statistics: {res.n_pairs} pairs, {keys.size} linked word pairs "
                 f"({time.perf_counter() - t0:.1f}s)")
        return res

    @classmethod
    def from_files(cls, stats, src_path, tgt_path, max_pairs=None, verbose=False, max_len=80,
                  protect_first=0, lines=None):
        """:meth:`from_sentences` on the first ``max_pairs`` lines of a bitext, leaving out pairs
        longer than ``max_len`` (except the first ``protect_first`` lines) as the
        statistics do.  The result records its :func:`interaction_key`.  ``lines``: the
        token lists of those lines, already read (``(src, tgt)``, see
        :func:`alignment.data.corpus.filter_bitext`): the files are then not read again."""
        key = interaction_key(stats, src_path, tgt_path, max_pairs, max_len, protect_first)
        if lines is not None:
            bitext = filter_bitext(*lines, max_len=max_len, protect_first=protect_first)
        else:
            bitext = load_bitext(src_path, tgt_path, max_pairs=max_pairs, max_len=max_len,
                                 protect_first=protect_first)
        res = cls.from_sentences(stats, bitext.src, bitext.tgt, verbose=verbose)
        res.cache_key = key
        return res

    fit = deprecated_alias("InteractionStatistics", "fit", "from_sentences")

    fit_files = deprecated_alias("InteractionStatistics", "fit_files", "from_files")

    @classmethod
    def load_or_fit(cls, cache, stats, src_path, tgt_path, max_pairs=None, verbose=False,
                    max_len=80, protect_first=0, lines=None):
        """The interaction statistics of ``stats`` on a bitext, from a cache made from
        exactly these statistics and bitext, else computed (and cached).

        ``cache``: ``None`` (no cache), a folder (``interactions-<hash>.npz`` in it, one
        file per setting) or one file (used only if it was made from the same statistics
        and bitext, else :class:`~alignment._cache.CacheMismatch` naming what differs;
        written if missing).  Without the bitext an existing file is only checked against
        the fingerprint of ``stats``' Model 2 tables.  ``lines``: as in :meth:`from_files`.
        """
        have_bitext = src_path is not None and tgt_path is not None
        key = (interaction_key(stats, src_path, tgt_path, max_pairs, max_len, protect_first)
               if have_bitext else None)

        def fit():
            if not have_bitext:
                raise ValueError("no interaction-statistics cache and no bitext to compute "
                                 "them from")
            return cls.from_files(stats, src_path, tgt_path, max_pairs=max_pairs,
                                 verbose=verbose, max_len=max_len, protect_first=protect_first,
                                 lines=lines)

        def load(path):
            return cls.load(path).check_statistics(stats, path)

        def save(obj, path):
            obj.save(path)

        return load_or_compute(cache, key, fit, load, save, "interactions", verbose=verbose,
                               what="interaction statistics")

    def to_arrays(self):
        out = {"format": np.array(FORMAT_NAME), "version": np.array(FORMAT_VERSION),
               "src_fert_share": self.src_fert_share, "tgt_fert_share": self.tgt_fert_share,
               "src_count": self.src_count, "tgt_count": self.tgt_count,
               "pair_keys": self.pair_keys, "pattern_share": self.pattern_share.astype(np.float16),
               "n_pairs": np.array(self.n_pairs),
               "stats_fingerprint": np.array(self.stats_fingerprint)}
        if self.cache_key is not None:
            out["provenance"] = pack_json(self.cache_key)
        return out

    @classmethod
    def from_arrays(cls, a, path="<arrays>"):
        """Inverse of :meth:`to_arrays` (files from before the format version pass);
        missing or inconsistent arrays are a :class:`~structpred.FormatError` on ``path``."""
        if "format" in a or "version" in a:
            check_format(a, path, FORMAT_NAME, (FORMAT_VERSION,), _WHAT)
        try:
            out = cls(a["src_fert_share"], a["tgt_fert_share"], a["src_count"], a["tgt_count"],
                      a["pair_keys"], np.asarray(a["pattern_share"], np.float32),
                      int(a["n_pairs"]),
                      str(a["stats_fingerprint"]) if "stats_fingerprint" in a else "")
        except Exception as exc:  # noqa: BLE001 - any inconsistency is a damaged file
            raise FormatError(path, None, f"corrupt {_WHAT} ({damage_reason(exc)})") from None
        if len(out.pattern_share) != len(out.pair_keys):
            raise FormatError(path, None, f"corrupt {_WHAT} (inconsistent sizes)")
        if "provenance" in a:
            out.cache_key = unpack_json(a["provenance"], path, _WHAT)
            if not isinstance(out.cache_key, (dict, type(None))):
                raise FormatError(path, None, f"corrupt {_WHAT} (bad provenance)")
        return out

    def save(self, path):
        """Write :meth:`to_arrays` to ``path`` (:func:`structpred.io.save_npz`)."""
        arrays = self.to_arrays()
        header = {"format": FORMAT_NAME, "version": int(arrays.pop("version"))}
        arrays.pop("format")
        save_npz(path, arrays, header)

    @classmethod
    def load(cls, path):
        """Read a file written by :meth:`save` (never unpickling); a file that is not one
        is a :class:`~structpred.FormatError`.  Files from before the format version
        (no ``format`` entry) are read too."""
        try:
            header, a = load_npz(path, FORMAT_NAME, (FORMAT_VERSION,), _WHAT)
        except FormatError:
            a = read_npz(path, _WHAT)
            if "format" in a or "version" in a or "src_fert_share" not in a:
                raise
            return cls.from_arrays(a, path)
        a.update(format=np.array(FORMAT_NAME), version=np.array(header["version"]))
        return cls.from_arrays(a, path)

    def pattern_shares(self, stats, e_ids, f_ids):
        """``(m, n, 3, 4)`` pattern shares of each edge's word pair (0 if never linked)."""
        m, n = len(e_ids), len(f_ids)
        out = np.zeros((m, n, 3, 4), np.float32)
        pos = _table_positions(np.asarray(e_ids, np.int32), np.asarray(f_ids, np.int32),
                               stats.t_row_ptr, stats.t_cols)
        ok = pos >= 0
        if ok.any():
            loc = np.searchsorted(self.pair_keys, pos[ok])
            loc = np.minimum(loc, max(self.pair_keys.size - 1, 0))
            hit = self.pair_keys.size > 0
            if hit:
                found = self.pair_keys[loc] == pos[ok]
                vals = np.zeros((loc.size, 3, 4), np.float32)
                vals[found] = self.pattern_share[loc[found]]
                out[ok] = vals
        return out


@numba.njit(cache=True)
def _table_positions(e, f, row_ptr, cols):
    m, n = e.size, f.size
    out = -np.ones((m, n), np.int64)
    nrows = row_ptr.size - 1
    for j in range(m):
        if 0 <= e[j] < nrows:
            for k in range(n):
                out[j, k] = find_in_row(cols, row_ptr[e[j]], row_ptr[e[j] + 1], f[k])
    return out


def interaction_key(stats, src_path, tgt_path, max_pairs=None, max_len=80, protect_first=0):
    """The cache key of :meth:`InteractionStatistics.from_files`: the bitext
    (:func:`alignment._cache.bitext_key`) and the Model 2 tables used
    (:meth:`AlignmentStatistics.fingerprint`, with the options that made them:
    IBM agreement, the HMM lexicon)."""
    made = stats.cache_key or {}
    return {**bitext_key(src_path, tgt_path, max_pairs, max_len, protect_first),
            "statistics": stats.fingerprint(),
            "ibm_agreement": bool(made.get("ibm_agreement", False)),
            "lexicon": made.get("lexicon", "ibm2")}
