"""The pair index of a bitext on a co-occurrence table: for every token pair of every
sentence, the index of its entry in the table's CSR (:func:`pair_index`), so that the
E-steps of IBM Models 1/2 and of the HMM do no searching; and the index of a reduced table
and corpus made from it (:func:`restrict_pair_index`)."""

from __future__ import annotations

import numba
import numpy as np

from .._runtime import chunk_ranges
from ..data.cooc import find_in_row

__all__ = ["pair_index", "restrict_pair_index"]


@numba.njit(cache=True, nogil=True)
def _find_sorted_in_row(cols, lo, hi, fs, n, found):
    """``found[q]``: the index of ``fs[q]`` in the sorted row ``cols[lo:hi]`` (or -1), for
    the ``n`` sorted values ``fs``.  Each search gallops from where the previous one
    ended (the values only grow), then bisects the bracket; a repeated value copies."""
    cur = lo
    for q in range(n):
        f = fs[q]
        if q > 0 and f == fs[q - 1]:
            found[q] = found[q - 1]
            continue
        a, b, step = cur, cur, 1
        while b < hi and cols[b] < f:   # cols[a - 1] < f <= cols[b] once it stops
            a = b + 1
            b = cur + step
            step <<= 1
        r = find_in_row(cols, a, min(b + 1, hi), f)
        found[q] = r
        cur = r + 1 if r >= 0 else a


@numba.njit(cache=True, nogil=True)
def _pair_index_fill(src_ids, src_off, tgt_ids, tgt_off, row_ptr, cols, pair_off, pidx, lo, hi):
    """Fill ``pidx`` for the sentences ``lo .. hi - 1`` (see :func:`pair_index`): the
    sentence's target words sorted once, each distinct source word's row searched for
    them in one sweep (:func:`_find_sorted_in_row`), a repeated source word's row copied."""
    max_n = 1
    for s in range(lo, hi):
        max_n = max(max_n, tgt_off[s + 1] - tgt_off[s])
    fs = np.empty(max_n, dtype=np.int32)
    found = np.empty(max_n, dtype=np.int32)
    for s in range(lo, hi):
        m = src_off[s + 1] - src_off[s]
        n = tgt_off[s + 1] - tgt_off[s]
        base, e0, f0 = pair_off[s], src_off[s], tgt_off[s]
        order = np.argsort(tgt_ids[f0:f0 + n], kind="mergesort")
        for q in range(n):
            fs[q] = tgt_ids[f0 + order[q]]
        for j in range(m):
            e = src_ids[e0 + j]
            rep = -1
            for jj in range(j):
                if src_ids[e0 + jj] == e:
                    rep = jj
                    break
            if rep >= 0:
                for k in range(n):
                    pidx[base + j * n + k] = pidx[base + rep * n + k]
                continue
            _find_sorted_in_row(cols, row_ptr[e], row_ptr[e + 1], fs, n, found)
            for q in range(n):
                pidx[base + j * n + order[q]] = found[q]


def pair_index(src_ids, src_off, tgt_ids, tgt_off, row_ptr, cols):
    """Table index of every token pair of every sentence.

    Returns
    -------
    pidx : ndarray of int32
        ``pidx[pair_off[s] + j * n + k]`` is the index in ``cols`` of the pair
        ``(e_j, f_k)`` of sentence ``s`` (0-based ``j < m``, ``k < n``), or -1 if the
        table lacks it (never for the table built from the same corpus).
    pair_off : ndarray of int64, shape (n_sent + 1,)

    Notes
    -----
    Computed in chunks of sentences (:func:`alignment._runtime.chunk_ranges`), so that
    Ctrl-C is noticed between them.
    """
    src_off = np.asarray(src_off, dtype=np.int64)
    tgt_off = np.asarray(tgt_off, dtype=np.int64)
    pair_off = np.zeros(len(src_off), dtype=np.int64)
    np.cumsum(np.diff(src_off) * np.diff(tgt_off), out=pair_off[1:])
    pidx = np.empty(pair_off[-1], dtype=np.int32)
    for lo, hi in chunk_ranges(pair_off):
        _pair_index_fill(src_ids, src_off, tgt_ids, tgt_off, row_ptr, cols, pair_off, pidx,
                         lo, hi)
    return pidx, pair_off


@numba.njit(cache=True, nogil=True)
def _remap_in_place(pidx, remap):
    for i in range(len(pidx)):
        pidx[i] = remap[pidx[i]]


@numba.njit(cache=True, nogil=True)
def _keep_blocks(pidx, pair_off, keep, new_off):
    """Move the blocks of the sentences ``keep`` to the front of ``pidx`` in order (each
    block moves left, so in place) and fill their offsets ``new_off``."""
    dst = 0
    q = 0
    new_off[0] = 0
    for s in range(len(keep)):
        lo, hi = pair_off[keep[s]], pair_off[keep[s] + 1]
        for i in range(lo, hi):
            pidx[dst] = pidx[i]
            dst += 1
        q += 1
        new_off[q] = dst
    return dst


def restrict_pair_index(pidx, pair_off, kept_entries=None, kept_sentences=None):
    """:func:`pair_index` of a table reduced to the entries ``kept_entries`` (a boolean
    mask over its entries, in order: the CSR filtered row by row) and of the sentences
    ``kept_sentences`` (indices in order), from the index of the whole table and corpus,
    overwriting ``pidx``: the same arrays as :func:`pair_index` on the reduced table and
    corpus (an entry left out becomes -1), without searching the table again.  Returns
    ``(pidx, pair_off)``, ``pidx`` a view of the input."""
    if kept_entries is not None:
        remap = np.cumsum(kept_entries, dtype=np.int64) - 1
        remap = np.where(kept_entries, remap, -1).astype(np.int32)
        _remap_in_place(pidx, remap)
    if kept_sentences is None:
        return pidx, pair_off
    keep = np.asarray(kept_sentences, dtype=np.int64)
    new_off = np.empty(len(keep) + 1, dtype=np.int64)
    n = _keep_blocks(pidx, pair_off, keep, new_off)
    return pidx[:n], new_off
