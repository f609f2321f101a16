r"""Dice coefficients of word pairs from sentence-level co-occurrence counts.

For an English word ``e`` and a French word ``f`` of a sentence-aligned corpus,

.. math::
    \mathrm{Dice}(e, f) = \frac{2\, C(e, f)}{C(e) + C(f)},

where :math:`C(e, f)` is the number of sentence pairs whose English side contains
``e`` and whose French side contains ``f`` (a pair counts once per sentence pair,
however often the words repeat), and :math:`C(e)`, :math:`C(f)` are the numbers of
sentences containing each word (document frequencies), so :math:`0 \le
\mathrm{Dice} \le 1`.

The counts :math:`C(e, f)` are a CSR table over English words with sorted French
columns (:func:`alignment.data.cooc.build_cooc`).  To keep saved models small,
:func:`prune_cooc` can drop the pairs seen once whose Dice is small anyway: a pair
with :math:`C(e, f) = 1`, :math:`C(e) > 1`, :math:`C(f) > 1` and :math:`C(e) + C(f)
> K` is removed, so that it reads as :math:`C(e, f) = 0`; this changes any Dice value
by at most :math:`2 / (K + 1)` (``K = 100``: below 0.02), and pairs involving a word
seen in one sentence only are kept exactly.
"""

from __future__ import annotations

import numba
import numpy as np

from ..data.cooc import build_cooc, doc_frequencies, find_in_row
from ..data.corpus import UNK_ID

__all__ = ["DEFAULT_DICE_PRUNE_TOTAL", "cooc_table", "prune_cooc", "compact_tables", "dice_matrix"]

#: ``K`` of :func:`prune_cooc` used by :class:`alignment.stats.statistics.AlignmentStatistics`
DEFAULT_DICE_PRUNE_TOTAL = 100


def cooc_table(corpus):
    """Sentence-level co-occurrence counts and document frequencies of a corpus.

    Parameters
    ----------
    corpus : :class:`alignment.data.corpus.EncodedCorpus`

    Returns
    -------
    row_ptr : ndarray of int64, shape (n_src_types + 1,)
    cols : ndarray of int32
    counts : ndarray of int32
        :math:`C(e, f)` in CSR form over English words.
    src_df, tgt_df : ndarray of int64
        :math:`C(e)` and :math:`C(f)` (sentences containing each word id).
    """
    row_ptr, cols, counts = build_cooc(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                       corpus.tgt_offsets, corpus.n_src_types,
                                       corpus.n_tgt_types)
    src_df = doc_frequencies(corpus.src_ids, corpus.src_offsets, corpus.n_src_types)
    tgt_df = doc_frequencies(corpus.tgt_ids, corpus.tgt_offsets, corpus.n_tgt_types)
    return row_ptr, cols, counts, src_df, tgt_df


def prune_cooc(row_ptr, cols, counts, src_df, tgt_df, max_total=DEFAULT_DICE_PRUNE_TOTAL):
    """Drop singleton co-occurrences whose Dice is at most ``2 / (max_total + 1)``.

    Removes the entries with ``counts == 1``, ``src_df[e] > 1``, ``tgt_df[f] > 1`` and
    ``src_df[e] + tgt_df[f] > max_total``; ``max_total=None`` keeps everything.

    Returns
    -------
    row_ptr, cols, counts : the pruned CSR table (new arrays).
    max_error : float
        The largest Dice value removed (0 if none).
    """
    row_ptr = np.asarray(row_ptr, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int32)
    counts = np.asarray(counts, dtype=np.int32)
    if max_total is None:
        return row_ptr.copy(), cols.copy(), counts.copy(), 0.0
    rows = np.repeat(np.arange(len(row_ptr) - 1), np.diff(row_ptr))
    de = np.asarray(src_df, dtype=np.int64)[rows]
    df = np.asarray(tgt_df, dtype=np.int64)[cols]
    tot = de + df
    drop = (counts == 1) & (de > 1) & (df > 1) & (tot > max_total)
    keep = ~drop
    new_ptr = np.zeros_like(row_ptr)
    np.cumsum(np.bincount(rows[keep], minlength=len(row_ptr) - 1), out=new_ptr[1:])
    max_error = float((2.0 / tot[drop]).max()) if drop.any() else 0.0
    return new_ptr, cols[keep], counts[keep], max_error


def compact_tables(row_ptr, cols, counts, t_fwd, t_bwd, src_df, tgt_df, prune_threshold,
                   dice_prune_total):
    """The stored tables of a co-occurrence table in CSR over source words (``row_ptr`` may
    cover a range of rows, with ``src_df`` over the same rows): the translation entries
    with a probability of at least ``prune_threshold`` in either direction (the other
    direction's value set to 0 where it is below) and the Dice counts that
    :func:`~alignment.stats.dice.prune_cooc` keeps.

    Returns a dict of ``t_ptr``, ``t_cols``, ``t_fwd``, ``t_bwd``, ``d_ptr``, ``d_cols``,
    ``d_counts``, ``max_err`` (the largest Dice value removed) and ``t_kept`` (the mask of
    the translation entries kept, over ``cols``).
    """
    keep = (t_fwd >= prune_threshold) | (t_bwd >= prune_threshold)
    rows = np.repeat(np.arange(len(row_ptr) - 1), np.diff(row_ptr))
    t_ptr = np.zeros_like(row_ptr)
    np.cumsum(np.bincount(rows[keep], minlength=len(row_ptr) - 1), out=t_ptr[1:])
    d_ptr, d_cols, d_counts, max_err = prune_cooc(row_ptr, cols, counts, src_df, tgt_df,
                                                  dice_prune_total)
    t_fwd, t_bwd = t_fwd[keep], t_bwd[keep]
    t_fwd[t_fwd < prune_threshold] = 0.0         # pruned in this direction only
    t_bwd[t_bwd < prune_threshold] = 0.0
    return dict(t_ptr=t_ptr, t_cols=cols[keep], t_fwd=t_fwd, t_bwd=t_bwd, d_ptr=d_ptr,
                d_cols=d_cols, d_counts=d_counts, max_err=max_err, t_kept=keep)


@numba.njit(cache=True)
def _dice_matrix(e_ids, f_ids, row_ptr, cols, counts, src_df, tgt_df):
    m = len(e_ids)
    n = len(f_ids)
    out = np.zeros((m, n), dtype=np.float64)
    n_rows = len(row_ptr) - 1
    for j in range(m):
        e = e_ids[j]
        if e <= UNK_ID or e >= n_rows or e >= len(src_df):
            continue
        lo = row_ptr[e]
        hi = row_ptr[e + 1]
        for k in range(n):
            f = f_ids[k]
            if f <= UNK_ID or f >= len(tgt_df):
                continue
            p = find_in_row(cols, lo, hi, f)
            if p >= 0:
                den = src_df[e] + tgt_df[f]
                if den > 0:
                    out[j, k] = 2.0 * counts[p] / den
    return out


def dice_matrix(e_ids, f_ids, row_ptr, cols, counts, src_df, tgt_df):
    """Dice coefficients of all word pairs of one sentence pair.

    Parameters
    ----------
    e_ids, f_ids : array_like of int
        Word ids of the English and French sentence; ``NULL_ID`` and ``UNK_ID`` (and
        out-of-range ids) get Dice 0.
    row_ptr, cols, counts : co-occurrence table (:func:`cooc_table`, maybe pruned).
    src_df, tgt_df : document frequencies.

    Returns
    -------
    ndarray of float64, shape (len(e_ids), len(f_ids))
    """
    return _dice_matrix(np.ascontiguousarray(e_ids, dtype=np.int64),
                        np.ascontiguousarray(f_ids, dtype=np.int64),
                        row_ptr, cols, counts, src_df, tgt_df)
