"""Sparse co-occurrence tables of an encoded bitext (numba), shared by
:mod:`alignment.stats.ibm`, :mod:`alignment.stats.dice` and the HMM.

A sparse (source word, target word) table is stored CSR-style by source word e: the
target words co-occurring with e are ``cols[row_ptr[e]:row_ptr[e + 1]]``, sorted
increasingly, so one entry is found by binary search inside its row
(:func:`find_in_row`).  The corpus arrays are those of
:class:`alignment.data.corpus.EncodedCorpus`.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["build_cooc", "cooc_block", "doc_frequencies", "find_in_row", "row_bucket_sizes"]

@numba.njit(cache=True)
def find_in_row(cols, lo, hi, f):
    """Index of ``f`` in the sorted slice ``cols[lo:hi]``, or -1."""
    while lo < hi:
        mid = (lo + hi) >> 1
        v = cols[mid]
        if v < f:
            lo = mid + 1
        elif v > f:
            hi = mid
        else:
            return mid
    return -1


@numba.njit(cache=True)
def _sentence_uniques(ids, lo, hi, stamp, s, mask, buf):
    """Write the distinct ids of ``ids[lo:hi]`` allowed by ``mask`` into ``buf``."""
    u = 0
    for p in range(lo, hi):
        w = ids[p]
        if stamp[w] != s and mask[w]:
            stamp[w] = s
            buf[u] = w
            u += 1
    return u


@numba.njit(cache=True)
def _sentence_buffers(src_off, tgt_off):
    """Scratch arrays for the distinct ids of the longest source / target sentence."""
    max_m = 1
    max_n = 1
    for s in range(len(src_off) - 1):
        max_m = max(max_m, src_off[s + 1] - src_off[s])
        max_n = max(max_n, tgt_off[s + 1] - tgt_off[s])
    return np.empty(max_m, dtype=np.int32), np.empty(max_n, dtype=np.int32)


@numba.njit(cache=True)
def _row_bucket_sizes(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, with_null,
                      src_mask, tgt_mask, sizes):
    """Add to ``sizes``, per source word, the sum over the sentences of ``src_off`` /
    ``tgt_off`` (a slice of the corpus's offsets) containing it of the number of distinct
    (allowed) target words of the sentence.  Row 0 (NULL) counts every sentence when
    ``with_null``."""
    n_sent = len(src_off) - 1
    stamp_e = np.full(n_src, -1, dtype=np.int64)
    stamp_f = np.full(n_tgt, -1, dtype=np.int64)
    ue, uf = _sentence_buffers(src_off, tgt_off)
    for s in range(n_sent):
        nf = _sentence_uniques(tgt_ids, tgt_off[s], tgt_off[s + 1], stamp_f, s, tgt_mask, uf)
        if nf == 0:
            continue
        ne = _sentence_uniques(src_ids, src_off[s], src_off[s + 1], stamp_e, s, src_mask, ue)
        for i in range(ne):
            sizes[ue[i]] += nf
        if with_null:
            sizes[0] += nf


def row_bucket_sizes(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, with_null,
                     src_mask, tgt_mask):
    """Per source word: sum over sentences containing it of the number of distinct
    (allowed) target words of the sentence.  Row 0 (NULL) counts every sentence when
    ``with_null``.  (Computed in chunks of sentences: Ctrl-C is noticed between them.)"""
    sizes = np.zeros(n_src, dtype=np.int64)
    for lo, hi in _token_chunks(src_off, tgt_off):
        _row_bucket_sizes(src_ids, src_off[lo:hi + 1], tgt_ids, tgt_off[lo:hi + 1], n_src,
                          n_tgt, with_null, src_mask, tgt_mask, sizes)
    return sizes


def _token_chunks(src_off, tgt_off, per_chunk=2_000_000):
    """Sentence ranges of about ``per_chunk`` tokens (both sides)."""
    from .._runtime import chunk_ranges

    return chunk_ranges(np.asarray(src_off, np.int64) + np.asarray(tgt_off, np.int64),
                        per_chunk)


@numba.njit(cache=True)
def _cooc_fill(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, e_lo, e_hi, with_null,
               src_mask, tgt_mask, bucket, pos):
    """Append the distinct target words of each sentence of ``src_off`` / ``tgt_off`` (a
    slice) to the buckets of its source words ``e_lo <= e < e_hi`` (``pos``: next free slot
    of each row)."""
    n_sent = len(src_off) - 1
    stamp_e = np.full(n_src, -1, dtype=np.int64)
    stamp_f = np.full(n_tgt, -1, dtype=np.int64)
    ue, uf = _sentence_buffers(src_off, tgt_off)
    for s in range(n_sent):
        nf = _sentence_uniques(tgt_ids, tgt_off[s], tgt_off[s + 1], stamp_f, s, tgt_mask, uf)
        if nf == 0:
            continue
        ne = _sentence_uniques(src_ids, src_off[s], src_off[s + 1], stamp_e, s, src_mask, ue)
        for i in range(ne + (1 if with_null else 0)):
            e = ue[i] if i < ne else 0
            if e < e_lo or e >= e_hi:
                continue
            r = e - e_lo
            p = pos[r]
            for q in range(nf):
                bucket[p + q] = uf[q]
            pos[r] = p + nf


@numba.njit(cache=True)
def _cooc_compact(bucket, start, r_lo, r_hi, n_tgt, counts, row_ptr, w):
    """Rows ``r_lo .. r_hi - 1`` of the filled buckets: count each target word, keep the
    distinct ones sorted, compacted to the left from position ``w``; returns the new ``w``."""
    cnt = np.zeros(n_tgt, dtype=np.int32)
    tmp = np.empty(n_tgt, dtype=np.int32)
    for r in range(r_lo, r_hi):
        u = 0
        for p in range(start[r], start[r + 1]):
            f = bucket[p]
            if cnt[f] == 0:
                tmp[u] = f
                u += 1
            cnt[f] += 1
        row = np.sort(tmp[:u])
        for i in range(u):
            f = row[i]
            bucket[w + i] = f
            counts[w + i] = cnt[f]
            cnt[f] = 0
        w += u
        row_ptr[r + 1] = w
    return w


def cooc_block(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, e_lo, e_hi, with_null,
               src_mask, tgt_mask, sizes):
    """Co-occurrence table restricted to source rows ``e_lo <= e < e_hi``.

    Returns ``(row_ptr, cols, counts)`` with ``row_ptr`` local to the block (length
    ``e_hi - e_lo + 1``), ``cols`` sorted within each row and ``counts[i]`` the number
    of sentence pairs in which the pair occurs.  (The kernels run on chunks of sentences,
    then of rows, so that Ctrl-C is noticed between them.)
    """
    n_rows = e_hi - e_lo
    start = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(sizes[e_lo:e_hi], out=start[1:])
    bucket = np.empty(start[n_rows], dtype=np.int32)
    pos = start[:n_rows].copy()
    for lo, hi in _token_chunks(src_off, tgt_off):
        _cooc_fill(src_ids, src_off[lo:hi + 1], tgt_ids, tgt_off[lo:hi + 1], n_src, n_tgt,
                   e_lo, e_hi, with_null, src_mask, tgt_mask, bucket, pos)
    counts = np.empty(start[n_rows], dtype=np.int32)
    row_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    from .._runtime import chunk_ranges

    w = 0
    for r_lo, r_hi in chunk_ranges(start, 4_000_000):
        w = _cooc_compact(bucket, start, r_lo, r_hi, n_tgt, counts, row_ptr, w)
    return row_ptr, bucket[:w].copy(), counts[:w].copy()


def build_cooc(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, with_null=False,
               src_mask=None, tgt_mask=None, max_bucket=1 << 27):
    """Sentence-level co-occurrence table of a corpus as CSR over source words.

    Rows are processed in blocks whose temporary bucket holds at most ``max_bucket``
    entries (one block unless the corpus is very large), one corpus pass per block.

    Returns
    -------
    row_ptr : ndarray of int64, shape (n_src + 1,)
    cols : ndarray of int32
    counts : ndarray of int32
        Number of sentence pairs containing both words (``with_null``: row 0 holds
        every target word with the number of sentences containing it).
    """
    if src_mask is None:
        src_mask = np.ones(n_src, dtype=np.uint8)
    if tgt_mask is None:
        tgt_mask = np.ones(n_tgt, dtype=np.uint8)
    src_mask = np.ascontiguousarray(src_mask, dtype=np.uint8)
    tgt_mask = np.ascontiguousarray(tgt_mask, dtype=np.uint8)
    sizes = row_bucket_sizes(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, with_null,
                             src_mask, tgt_mask)
    row_ptrs, cols, counts = [np.zeros(1, dtype=np.int64)], [], []
    e_lo = 0
    csum = np.cumsum(sizes)
    while e_lo < n_src:
        base = csum[e_lo - 1] if e_lo > 0 else 0
        e_hi = int(np.searchsorted(csum, base + max_bucket, side="right"))
        e_hi = min(max(e_hi, e_lo + 1), n_src)
        rp, c, k = cooc_block(src_ids, src_off, tgt_ids, tgt_off, n_src, n_tgt, e_lo, e_hi,
                              with_null, src_mask, tgt_mask, sizes)
        row_ptrs.append(rp[1:] + row_ptrs[-1][-1])
        cols.append(c)
        counts.append(k)
        e_lo = e_hi
    return (np.concatenate(row_ptrs), np.concatenate(cols) if cols else np.zeros(0, np.int32),
            np.concatenate(counts) if counts else np.zeros(0, np.int32))


@numba.njit(cache=True)
def doc_frequencies(ids, off, n_types):
    """Number of sentences containing each id."""
    n_sent = len(off) - 1
    df = np.zeros(n_types, dtype=np.int64)
    stamp = np.full(n_types, -1, dtype=np.int64)
    for s in range(n_sent):
        for p in range(off[s], off[s + 1]):
            w = ids[p]
            if stamp[w] != s:
                stamp[w] = s
                df[w] += 1
    return df
