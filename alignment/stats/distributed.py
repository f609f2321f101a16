r"""The IBM Model 1/2 statistics of a bitext on a Dask cluster, with nothing large on the
driver.

:meth:`AlignmentStatistics.from_files(..., executor=client)
<alignment.stats.statistics.AlignmentStatistics.from_files>` with a
``dask.distributed.Client`` runs here.  The driver only reads the two files and sends
chunks of lines to the workers; everything that grows with the bitext stays on them:

1. **Parts.**  Each worker keeps one *part* of the bitext: the chunks of lines it was sent,
   length-filtered as :func:`alignment.data.corpus.load_bitext` filters them, tokenised
   and counted.  The driver adds the word counts into the vocabularies
   (:meth:`Vocabulary.from_counts <alignment.data.corpus.Vocabulary.from_counts>`, the
   same ids as in process) and sends each chunk the map from its words to their ids.
2. **Local tables.**  Each part builds the co-occurrence pattern of its own sentences (a
   CSR table over ``(e, f)``, sorted by ``e * V_f + f``), its document frequencies, its
   sentence-length contexts and its pair index (:func:`~alignment.stats.ibm.pair_index`)
   into that local table.  The E-step kernels of :mod:`alignment.stats.ibm` run unchanged
   on it, with the part's own copy of the translation probabilities of its entries.
3. **Tables sharded by source word.**  Worker ``o`` owns the rows ``e`` in
   ``[b_o, b_{o+1})`` (boundaries that balance the rows' entries) of the global table: the
   union of the parts' entries in those rows, their co-occurrence counts, and both
   directions' probabilities.  For every part it keeps the positions of that part's entries
   in its rows.
4. **EM.**  Each iteration, every part runs the E-step of both directions on its sentences
   and cuts its expected counts at the row boundaries; owner ``o`` adds the pieces of its
   rows (only the pieces of other workers travel) and runs the M-step of its rows:
   :math:`t(f \mid e) = c(e, f) / \sum_{f'} c(e, f')` needs only its rows; for
   :math:`t(e \mid f) = c(e, f) / \sum_{e'} c(e', f)` the owners' column sums (one vector
   over the French vocabulary each) are added on the driver and sent back.  The new
   probabilities of each part's entries go back to that part, piece by piece.  The NULL
   counts, the jump-bucket counts and the log-likelihoods are vectors over the vocabulary
   or the buckets: the driver adds them and runs the NULL and distortion M-steps
   (:func:`~alignment.stats.ibm.gis_update`).  No translation table is broadcast.
5. **The result.**  Each owner prunes its rows (:func:`~alignment.stats.dice.compact_tables`)
   and the driver concatenates the owners' pruned rows in order.

The result equals :meth:`from_files` in process up to the order of the floating-point
additions of the expected counts (the test suite checks this to 1e-12 on a small bitext):
the vocabularies, co-occurrence counts, document frequencies and the table layout are
the same integers, and every M-step divides the same sums.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter

import numpy as np

from structpred import FormatError
from structpred.io import split_tokens, word_text
from structpred.parallel import dask_workers

from .._runtime import log as _log
from ..data.cooc import build_cooc, doc_frequencies
from ..data.corpus import (UNK_ID, Vocabulary, check_bitext_files, length_filter,
                           paired_lines, report_line)
from ..data.layouts import check_layout_line
from .dice import DEFAULT_DICE_PRUNE_TOTAL, compact_tables
from .ibm import (DEFAULT_MAX_JUMP, DEFAULT_N_GIS, e_step, gis_update, length_contexts,
                  m_step, n_buckets, pair_index)

__all__ = ["statistics_on_cluster", "CHUNK_LINES"]

#: lines the driver reads before sending them to a worker
CHUNK_LINES = 50_000


# ------------------------------------------------------------------ worker side: parts
class _Chunk:
    """Lines of one chunk, filtered and encoded with the chunk's own word ids."""

    def __init__(self, src_lines, tgt_lines, first_line, max_len, max_ratio, protect_first,
                 src_name, tgt_name):
        for lines, name in ((src_lines, src_name), (tgt_lines, tgt_name)):
            for i, t in enumerate(lines):   # Europarl's markup, XML, JSON lines
                check_layout_line(t, name, first_line + i + 1)
        src = [split_tokens(word_text(t, src_name, first_line + i + 1), src_name,
                            first_line + i + 1) for i, t in enumerate(src_lines)]
        tgt = [split_tokens(word_text(t, tgt_name, first_line + i + 1), tgt_name,
                            first_line + i + 1) for i, t in enumerate(tgt_lines)]
        line_ids = np.arange(first_line, first_line + len(src), dtype=np.int64)
        keep, self.dropped = length_filter(src, tgt, line_ids, max_len, max_ratio,
                                           protect_first)
        kept = np.flatnonzero(keep)
        self.n_read = len(src)
        self.line_ids = line_ids[kept]
        self.src_words, self.src_ids, self.src_off = _encode_locally([src[i] for i in kept])
        self.tgt_words, self.tgt_ids, self.tgt_off = _encode_locally([tgt[i] for i in kept])

    def summary(self):
        return dict(n_read=self.n_read, dropped=self.dropped, n_kept=len(self.line_ids),
                    src=(self.src_words, np.bincount(self.src_ids, minlength=len(self.src_words))),
                    tgt=(self.tgt_words, np.bincount(self.tgt_ids, minlength=len(self.tgt_words))))


def _encode_locally(sentences):
    """``(words, ids, offsets)``: ids numbered by first occurrence in ``sentences``."""
    index = {}
    flat = np.fromiter((index.setdefault(w, len(index))
                        for w in itertools.chain.from_iterable(sentences)), dtype=np.int32)
    off = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sentences], out=off[1:])
    return list(index), flat, off


def _read_chunk(lines, first_line, options):
    return _Chunk(*lines, first_line, *options)


def _chunk_summary(chunk):
    return chunk.summary()


class _Part:
    """The sentences one worker holds (global word ids) and their local table."""

    def __init__(self, chunks, remaps):
        src, tgt = [], []
        for c, (rs, rt) in zip(chunks, remaps):
            src.append((rs[c.src_ids], c.src_off))
            tgt.append((rt[c.tgt_ids], c.tgt_off))
        self.src_ids, self.src_off = _concat(src)
        self.tgt_ids, self.tgt_off = _concat(tgt)

    def index(self, n_src, n_tgt, max_jump):
        """Build the local table and pair index; returns what the driver needs."""
        row_ptr, cols, counts = build_cooc(self.src_ids, self.src_off, self.tgt_ids,
                                           self.tgt_off, n_src, n_tgt)
        self.row_ptr, self.cols, self.cooc = row_ptr, cols, counts
        self.pidx, self.pair_off = pair_index(self.src_ids, self.src_off, self.tgt_ids,
                                              self.tgt_off, row_ptr, cols)
        uniform = (1.0 / n_tgt, 1.0 / n_src)
        self.t = [np.full(len(cols), uniform[0]), np.full(len(cols), uniform[1])]
        self.n_gen = (n_tgt, n_src)
        self.max_jump = int(max_jump)
        return dict(row_sizes=np.diff(row_ptr),
                    src_df=doc_frequencies(self.src_ids, self.src_off, n_src),
                    tgt_df=doc_frequencies(self.tgt_ids, self.tgt_off, n_tgt),
                    ctx_fwd=length_contexts(self.src_off, self.tgt_off),
                    ctx_bwd=length_contexts(self.tgt_off, self.src_off),
                    n_pairs=len(self.src_off) - 1, n_entries=len(cols))

    def rows(self, lo, hi):
        """The entries of rows ``lo .. hi - 1``: a slice of the local table."""
        return slice(int(self.row_ptr[lo]), int(self.row_ptr[hi]))

    def e_step(self, t_null, w, model2):
        """Both directions' E-steps; keeps the entry counts, returns the small sums."""
        out = []
        self.counts = []
        for d, (gen_ids, gen_off, cond_off, transposed) in enumerate(
                ((self.tgt_ids, self.tgt_off, self.src_off, False),
                 (self.src_ids, self.src_off, self.tgt_off, True))):
            counts = np.zeros(len(self.cols))
            null = np.zeros(self.n_gen[d])
            obs = np.zeros(n_buckets(self.max_jump))
            ll = e_step(gen_ids, gen_off, cond_off, self.pidx, self.pair_off, transposed,
                        self.t[d], t_null[d], bool(model2), w[d], self.max_jump, counts, null,
                        obs)
            self.counts.append(counts)
            out.append((ll, null, obs))
        return out


def _concat(pieces):
    ids = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros(0, np.int32)
    off = [np.zeros(1, dtype=np.int64)]
    base = 0
    for _, o in pieces:
        off.append(o[1:] + base)
        base += int(o[-1])
    return np.ascontiguousarray(ids, dtype=np.int32), np.concatenate(off)


def _make_part(remaps, *chunks):
    return _Part(chunks, remaps)


def _index_part(part, n_src, n_tgt, max_jump):
    return part.index(n_src, n_tgt, max_jump)


def _part_e_step(part, t_null, w, model2, _after):
    return part.e_step(t_null, w, model2)


def _part_pieces(part, bounds):
    """The part's entry keys (first call) cut at the owners' row boundaries."""
    n_tgt = part.n_gen[0]
    rows = np.repeat(np.arange(len(part.row_ptr) - 1, dtype=np.int64), np.diff(part.row_ptr))
    keys = rows * n_tgt + part.cols
    return [(keys[part.rows(lo, hi)], part.cooc[part.rows(lo, hi)])
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def _count_piece(part, o, bounds, _after):
    sl = part.rows(bounds[o], bounds[o + 1])
    return part.counts[0][sl], part.counts[1][sl]


def _set_t(part, *pieces):
    part.t = [np.concatenate([p[0] for p in pieces]), np.concatenate([p[1] for p in pieces])]
    return True


# ------------------------------------------------------------------ worker side: owners
class _Owner:
    """Rows ``lo .. hi - 1`` of the global table, both directions' probabilities."""

    def __init__(self, lo, hi, n_tgt, pieces):
        self.lo, self.hi, self.n_tgt = lo, hi, n_tgt
        keys = np.concatenate([k for k, _ in pieces])
        cooc = np.concatenate([c for _, c in pieces]).astype(np.int64)
        self.keys, inverse = np.unique(keys, return_inverse=True)
        self.cooc = np.bincount(inverse, weights=cooc, minlength=len(self.keys)).astype(np.int32)
        rows = self.keys // n_tgt
        self.cols = (self.keys - rows * n_tgt).astype(np.int32)
        self.row_ptr = np.zeros(hi - lo + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows - lo, minlength=hi - lo), out=self.row_ptr[1:])
        self.group = (rows - lo).astype(np.int32)
        # where each part's entries of these rows sit here
        self.where, start = [], 0
        for k, _ in pieces:
            self.where.append(inverse[start:start + len(k)])
            start += len(k)
        self.t = [None, None]

    def add(self, pieces):
        """Add the parts' expected counts; M-step of ``t(f | e)``; the column sums of the
        counts of ``t(e | f)``."""
        acc = [np.zeros(len(self.keys)), np.zeros(len(self.keys))]
        n_tgt = self.n_tgt
        for where, (cf, cb) in zip(self.where, pieces):
            acc[0][where] += cf        # ``where`` has no repeats within one part
            acc[1][where] += cb
        self.t[0] = np.empty(len(self.keys))
        m_step(acc[0], self.group, self.hi - self.lo, self.t[0])
        self.acc_bwd = acc[1]
        return np.bincount(self.cols, weights=acc[1], minlength=n_tgt)

    def normalise_bwd(self, col_sums):
        s = np.zeros(len(self.cols))
        np.take(col_sums, self.cols, out=s)
        self.t[1] = np.divide(self.acc_bwd, s, out=np.zeros_like(s), where=s > 0.0)
        del self.acc_bwd
        return True

    def t_piece(self, k):
        return self.t[0][self.where[k]], self.t[1][self.where[k]]

    def compact(self, src_df, tgt_df, prune_threshold, dice_prune_total):
        out = compact_tables(self.row_ptr, self.cols, self.cooc, self.t[0], self.t[1],
                             src_df[self.lo:self.hi], tgt_df, prune_threshold,
                             dice_prune_total)
        out["t_rows"] = np.diff(out.pop("t_ptr"))
        # the dtypes the statistics store (the same rounding as there, half the bytes)
        out["t_fwd"] = out["t_fwd"].astype(np.float32)
        out["t_bwd"] = out["t_bwd"].astype(np.float32)
        out["d_rows"] = np.diff(out.pop("d_ptr"))
        out["n_entries"] = len(self.keys)
        return out


def _make_owner(lo, hi, n_tgt, *pieces):
    return _Owner(lo, hi, n_tgt, pieces)


def _owner_add(owner, *pieces):
    return owner.add(pieces)


def _owner_normalise(owner, col_sums):
    return owner.normalise_bwd(col_sums)


def _owner_t_piece(owner, k, _after):
    return owner.t_piece(k)


def _owner_compact(owner, src_df, tgt_df, prune_threshold, dice_prune_total):
    return owner.compact(src_df, tgt_df, prune_threshold, dice_prune_total)


def _getitem(x, i):
    return x[i]


def _wait_for(futures):
    """Wait until ``futures`` are done, without fetching their results; raise the first
    error of one that failed."""
    from distributed import wait

    wait(futures)
    for f in futures:
        if f.status == "error":
            f.result()


# ------------------------------------------------------------------ driver
def _read_pairs(src_path, tgt_path, max_pairs):
    """Chunks ``(first_line, src_lines, tgt_lines)`` of the two files, checked as
    :func:`~alignment.data.corpus.load_bitext` checks them."""
    first, src, tgt = 0, [], []
    n = 0
    for _, a, b in paired_lines(src_path, tgt_path, max_pairs):
        src.append(a)
        tgt.append(b)
        n += 1
        if len(src) == CHUNK_LINES:
            yield first, src, tgt
            first, src, tgt = n, [], []
    if src:
        yield first, src, tgt


def _merge_contexts(parts_ctx):
    """The :func:`~alignment.stats.ibm.length_contexts` of the whole bitext from those of its
    parts: the distinct ``(C, G)`` pairs, sorted, with their counts added."""
    C = np.concatenate([c[0] for c in parts_ctx])
    G = np.concatenate([c[1] for c in parts_ctx])
    base = int(G.max(initial=0)) + 1
    uniq, inv = np.unique(C * base + G, return_inverse=True)
    cnt = np.bincount(inv, weights=np.concatenate([c[2] for c in parts_ctx]),
                      minlength=len(uniq))
    return uniq // base, uniq % base, cnt


def _balanced_bounds(row_sizes, n):
    """``n + 1`` row boundaries that give each owner about the same number of entries."""
    csum = np.cumsum(row_sizes)
    total = int(csum[-1]) if len(csum) else 0
    cuts = [int(np.searchsorted(csum, total * i / n, side="left")) + 1 for i in range(1, n)]
    bounds = [0] + [min(max(c, 0), len(row_sizes)) for c in cuts] + [len(row_sizes)]
    return sorted(bounds)


def statistics_on_cluster(cls, client, src_path, tgt_path, max_pairs=None, verbose=True,
                          max_len=80, max_ratio=None, protect_first=0, n_iter_model1=5,
                          n_iter_model2=5, min_count=1, max_jump=DEFAULT_MAX_JUMP,
                          n_gis=DEFAULT_N_GIS, prune_threshold=1e-6, floor=1e-7,
                          dice_prune_total=DEFAULT_DICE_PRUNE_TOTAL, n_jobs=None,
                          agreement=False):
    """:meth:`AlignmentStatistics.from_files` on the workers of ``client`` (see the module
    docstring); ``cls`` is the statistics class.  Returns ``(stats, report)``: the
    statistics (without ``cache_key``) and what was read and left out.  ``n_jobs`` is
    not used (the workers' threads are the cluster's); ``agreement`` is refused (its
    E-step needs both directions' tables of a part at once: use the in-process path)."""
    if agreement:
        raise ValueError("IBM agreement training is not available on a cluster")
    run = _ClusterRun(client, verbose)
    report = run.read(src_path, tgt_path, max_pairs, (max_len, max_ratio, protect_first,
                                                      str(src_path), str(tgt_path)), min_count)
    run.index(max_jump)
    history = run.em(["ibm1"] * int(n_iter_model1) + ["ibm2"] * int(n_iter_model2),
                     max_jump, n_gis)
    out = run.collect(prune_threshold, dice_prune_total)
    stats = cls(run.vocab[0], run.vocab[1], run.src_df, run.tgt_df, out["t_ptr"],
                out["t_cols"], out["t_fwd"], out["t_bwd"], run.t_null[0], run.t_null[1],
                run.w_dist[0], run.w_dist[1], int(max_jump), out["d_ptr"], out["d_cols"],
                out["d_counts"], floor=floor, prune_threshold=prune_threshold,
                dice_prune_total=dice_prune_total, log_likelihood=history,
                n_pairs=run.n_pairs)
    stats.timings_ = run.timings
    return stats, report


class _ClusterRun:
    """The driver's side of :func:`statistics_on_cluster`, one method per phase."""

    def __init__(self, client, verbose):
        self.client, self.verbose = client, verbose
        self.workers, _ = dask_workers(client)
        self.timings = {}

    def submit(self, func, *args, worker):
        """``func(*args)`` on worker number ``worker`` (never moved elsewhere: the parts
        and owners it touches live there)."""
        return self.client.submit(func, *args, pure=False, workers=[self.workers[worker]],
                                  allow_other_workers=False)

    def read(self, src_path, tgt_path, max_pairs, options, min_count):
        """Chunks of lines to the workers, round robin; the vocabularies; one part per
        worker.  Returns what was read and left out.

        The two files are read side by side and tokenised on the workers, so the first
        error met is not always the one the in-process reader reports (it reads the source
        file, then the target file, then compares the counts): on an error, the files are
        checked in that order here (:func:`~alignment.data.corpus.check_bitext_files`), and
        that error is raised."""
        try:
            return self._read(src_path, tgt_path, max_pairs, options, min_count)
        except FormatError as exc:
            check_bitext_files(src_path, tgt_path, max_pairs)
            raise exc

    def _read(self, src_path, tgt_path, max_pairs, options, min_count):
        t0 = time.perf_counter()
        W = len(self.workers)
        chunks, summaries = [[] for _ in range(W)], []
        for i, (first, src, tgt) in enumerate(_read_pairs(src_path, tgt_path, max_pairs)):
            w = i % W
            lines = self.client.scatter([(src, tgt)], workers=[self.workers[w]], hash=False)[0]
            fut = self.submit(_read_chunk, lines, first, options, worker=w)
            chunks[w].append(fut)
            summaries.append((w, len(chunks[w]) - 1, self.submit(_chunk_summary, fut, worker=w)))
        if not summaries:
            raise FormatError(src_path, None, "empty bitext")
        counts, n_read, n_kept, dropped = (Counter(), Counter()), 0, 0, Counter()
        gathered = []
        for w, j, fut in summaries:
            s = fut.result()
            gathered.append((w, j, s))
            n_read += s["n_read"]
            n_kept += s["n_kept"]
            dropped.update(s["dropped"])
            for cnt, (words, c) in zip(counts, (s["src"], s["tgt"])):
                for word, k in zip(words, c.tolist()):
                    cnt[word] += k
        max_len = options[0]
        if n_kept == 0:
            raise FormatError(src_path, None, "no sentence pairs left: "
                              + report_line(n_read, n_kept, dropped, max_len))
        self.vocab = tuple(Vocabulary.from_counts(c, min_count=min_count) for c in counts)
        del counts
        remaps = [[None] * len(c) for c in chunks]
        for w, j, s in gathered:
            remaps[w][j] = tuple(np.fromiter((v.stoi.get(word, UNK_ID) for word in words),
                                             dtype=np.int32, count=len(words))
                                 for v, (words, _) in zip(self.vocab, (s["src"], s["tgt"])))
        self.active = [w for w in range(W) if chunks[w]]
        self.parts = {w: self.submit(_make_part, remaps[w], *chunks[w], worker=w)
                      for w in self.active}
        self.timings["load"] = time.perf_counter() - t0
        _log(self.verbose, f"statistics: read {n_read} pairs, kept {n_kept}, on {W} workers "
                           f"({self.timings['load']:.1f}s)")
        return {"read": n_read, "kept": n_kept,
                "dropped": {k: int(v) for k, v in dropped.items()}, "max_length": max_len}

    def index(self, max_jump):
        """The parts' local tables and pair indexes; the owners of the row ranges."""
        t0 = time.perf_counter()
        n_src, n_tgt = len(self.vocab[0]), len(self.vocab[1])
        infos = [self.submit(_index_part, self.parts[w], n_src, n_tgt, max_jump, worker=w)
                 for w in self.active]
        infos = [f.result() for f in infos]
        self.src_df = sum(i["src_df"] for i in infos)
        self.tgt_df = sum(i["tgt_df"] for i in infos)
        self.ctx = (_merge_contexts([i["ctx_fwd"] for i in infos]),
                    _merge_contexts([i["ctx_bwd"] for i in infos]))
        self.n_pairs = sum(i["n_pairs"] for i in infos)
        self.bounds = _balanced_bounds(sum(i["row_sizes"] for i in infos), len(self.workers))
        keys = {w: self.submit(_part_pieces, self.parts[w], self.bounds, worker=w)
                for w in self.active}
        self.owners = []
        for o in range(len(self.workers)):
            pieces = [self.submit(_getitem, keys[w], o, worker=w) for w in self.active]
            self.owners.append(self.submit(_make_owner, self.bounds[o], self.bounds[o + 1],
                                           n_tgt, *pieces, worker=o))
        _wait_for(self.owners)               # (``result()`` would fetch them here)
        self.timings["cooc"] = time.perf_counter() - t0
        _log(self.verbose, f"statistics: local tables of {sum(i['n_entries'] for i in infos)} "
                           f"entries on the workers, rows owned as {self.bounds} "
                           f"({self.timings['cooc']:.1f}s)")

    def em(self, schedule, max_jump, n_gis):
        """EM (module docstring, step 4); returns the log-likelihoods of each iteration."""
        t0 = time.perf_counter()
        n_src, n_tgt = len(self.vocab[0]), len(self.vocab[1])
        nb = n_buckets(max_jump)
        self.t_null = [np.full(n_tgt, 1.0 / n_tgt), np.full(n_src, 1.0 / n_src)]
        self.w_dist = [np.full(nb, 1.0 / nb), np.full(nb, 1.0 / nb)]
        history = {f"{m}_{d}": [] for m in ("ibm1", "ibm2") for d in ("fwd", "bwd")}
        phases = {"e_step": 0.0, "m_step": 0.0, "exchange": 0.0}
        after = {w: None for w in self.active}
        for it, name in enumerate(schedule):
            t_it = time.perf_counter()
            for f in after.values():          # the parts have their new probabilities
                if f is not None:
                    f.result()
            phases["exchange"] += time.perf_counter() - t_it
            sums, after = self._iteration(name == "ibm2", after, n_tgt, phases)
            for d, direction in enumerate(("fwd", "bwd")):
                null = sum(s[d][1] for s in sums)
                history[f"{name}_{direction}"].append(float(sum(s[d][0] for s in sums)))
                if null.sum() > 0:
                    self.t_null[d] = null / null.sum()
                if name == "ibm2":
                    self.w_dist[d] = gis_update(self.w_dist[d], sum(s[d][2] for s in sums),
                                                self.ctx[d], max_jump, n_gis)
            _log(self.verbose, f"  EM {it + 1}/{len(schedule)} ({name}): log-likelihood "
                               f"{history[f'{name}_fwd'][-1]:.5e} / "
                               f"{history[f'{name}_bwd'][-1]:.5e}")
        t_it = time.perf_counter()
        for f in after.values():
            f.result()
        phases["exchange"] += time.perf_counter() - t_it
        self.timings["em"] = time.perf_counter() - t0
        self.timings.update({f"em_{k}": v for k, v in phases.items()})
        _log(self.verbose, "statistics: EM " + ", ".join(f"{k} {v:.1f}s"
                                                         for k, v in phases.items()))
        return history

    def _iteration(self, model2, after, n_tgt, phases):
        """One E-step on the parts, the owners' M-steps, the new probabilities sent back
        to the parts (not waited for).  Returns the parts' small sums and the futures of
        the parts' updates."""
        t0 = time.perf_counter()
        estep = {w: self.submit(_part_e_step, self.parts[w], self.t_null, self.w_dist, model2,
                                after[w], worker=w) for w in self.active}
        sums = [estep[w].result() for w in self.active]
        t1 = time.perf_counter()
        col_parts = []
        for o, owner in enumerate(self.owners):
            pieces = [self.submit(_count_piece, self.parts[w], o, self.bounds, estep[w],
                                  worker=w) for w in self.active]
            col_parts.append(self.submit(_owner_add, owner, *pieces, worker=o))
        col_sums = np.zeros(n_tgt)
        for c in col_parts:                   # in owner order: the sum is deterministic
            col_sums += c.result()
        t2 = time.perf_counter()
        normalised = [self.submit(_owner_normalise, owner, col_sums, worker=o)
                      for o, owner in enumerate(self.owners)]
        updates = {}
        for k, w in enumerate(self.active):
            pieces = [self.submit(_owner_t_piece, owner, k, normalised[o], worker=o)
                      for o, owner in enumerate(self.owners)]
            updates[w] = self.submit(_set_t, self.parts[w], *pieces, worker=w)
        phases["e_step"] += t1 - t0
        phases["m_step"] += t2 - t1
        return sums, updates

    def collect(self, prune_threshold, dice_prune_total):
        """The owners' pruned rows, in order (module docstring, step 5)."""
        t0 = time.perf_counter()
        futures = [self.submit(_owner_compact, owner, self.src_df, self.tgt_df,
                               prune_threshold, dice_prune_total, worker=o)
                   for o, owner in enumerate(self.owners)]
        self.parts = self.owners = None      # the workers release what they held
        n_src = len(self.vocab[0])
        out = {k: np.zeros(n_src + 1, dtype=np.int64) for k in ("t_ptr", "d_ptr")}
        pos = {"t": 0, "d": 0}
        n_entries, max_err = 0, 0.0
        for o, fut in enumerate(futures):    # one owner's rows at a time
            part = fut.result()
            futures[o] = None
            lo = self.bounds[o]
            for t in ("t", "d"):
                rows = part[f"{t}_rows"]
                out[f"{t}_ptr"][lo + 1:lo + 1 + len(rows)] = np.cumsum(rows) + pos[t]
                out[f"{t}_ptr"][lo + 1 + len(rows):] = pos[t] + int(rows.sum())
                pos[t] += int(rows.sum())
            for k in ("t_cols", "t_fwd", "t_bwd", "d_cols", "d_counts"):
                out[k] = part[k] if o == 0 else np.concatenate([out[k], part[k]])
            n_entries += part["n_entries"]
            max_err = max(max_err, part["max_err"])
            del part
        self.timings["compact"] = time.perf_counter() - t0
        _log(self.verbose, f"statistics: kept {len(out['t_cols'])} of {n_entries} translation "
                           f"pairs (p >= {prune_threshold:g}), {len(out['d_cols'])} Dice counts "
                           f"(max Dice change {max_err:.3g})")
        return out
