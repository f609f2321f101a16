"""Symmetrisation of two directional alignments (Koehn et al. 2003): intersection, union,
grow-diag and grow-diag-final(-and), and link sets as 0/1 matrices."""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["symmetrize", "links_matrix", "link_views_flat", "links_flat", "SYMMETRIZATIONS",
           "FLAT_VIEWS"]


SYMMETRIZATIONS = ("intersection", "union", "grow-diag", "grow-diag-final",
                   "grow-diag-final-and")


_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def _links(direction):
    """The set of ``(j, k)`` links of one direction: an ``Alignment``'s sure links, or a
    collection of links, each two integer positions >= 0 (``(0.5, 1)`` was kept as it was,
    and ``"01"`` read as a link); ``TypeError``/``ValueError`` otherwise."""
    from ..data.formats import _position_pair

    sure = getattr(direction, "sure", None)
    if sure is not None:
        return set(sure)
    if isinstance(direction, (str, bytes)) or not hasattr(direction, "__iter__"):
        raise TypeError(f"expected a set of (j, k) links or an Alignment, got "
                        f"{type(direction).__name__}")
    if hasattr(direction, "tolist") and getattr(direction, "ndim", 0) == 2:
        direction = direction.tolist()   # an (n, 2) array: its rows ("unhashable type")
    try:
        links = set(direction)
    except TypeError:   # links as lists ([[0, 0], [1, 1]]): "unhashable type: 'list'"
        links = {tuple(link) if isinstance(link, list) else link for link in direction}
    try:   # the common case, ints >= 0, checked without a call per link
        if all(type(j) is int and type(k) is int and j >= 0 and k >= 0 for j, k in links):
            return links
    except (TypeError, ValueError):   # not pairs: named below
        pass
    return {_position_pair(link) for link in links}


def symmetrize(fwd, bwd, method="grow-diag-final-and"):
    """Combine the links of the two directions of one sentence pair.

    Parameters
    ----------
    fwd, bwd : set of (j, k), or Alignment
        Source-target links (0-based) of each direction (of an ``Alignment``, its sure
        links: a predicted alignment's links are all sure).
    method : one of :data:`SYMMETRIZATIONS`
    """
    if method not in SYMMETRIZATIONS:
        raise ValueError(f"unknown symmetrization {method!r}; one of "
                         f"{', '.join(SYMMETRIZATIONS)}")
    fwd, bwd = _links(fwd), _links(bwd)
    if method == "intersection":
        return fwd & bwd
    union = fwd | bwd
    if method == "union":
        return union
    links = fwd & bwd
    src_aligned = {j for j, _ in links}
    tgt_aligned = {k for _, k in links}
    changed = True
    while changed:   # grow-diag: add neighbours of links that align an unaligned word
        changed = False
        for j, k in sorted(links):
            for dj, dk in _NEIGHBOURS:
                c = (j + dj, k + dk)
                if c in union and c not in links and (c[0] not in src_aligned
                                                      or c[1] not in tgt_aligned):
                    links.add(c)
                    src_aligned.add(c[0])
                    tgt_aligned.add(c[1])
                    changed = True
    if method == "grow-diag":
        return links
    both = method == "grow-diag-final-and"
    for d in (fwd, bwd):   # final(-and): add links of unaligned words
        for j, k in sorted(d):
            free = ((j not in src_aligned and k not in tgt_aligned) if both
                    else (j not in src_aligned or k not in tgt_aligned))
            if free:
                links.add((j, k))
                src_aligned.add(j)
                tgt_aligned.add(k)
    return links


def links_matrix(links, shape):
    """0/1 ``(m, n)`` matrix of a link set (links outside the shape are an error)."""
    y = np.zeros(shape)
    for j, k in links:
        if not (0 <= j < shape[0] and 0 <= k < shape[1]):
            raise ValueError(f"link {j}-{k} outside a {shape[0]}x{shape[1]} sentence pair")
        y[j, k] = 1.0
    return y


#: the views that :func:`link_views_flat` writes, in its rows' order
FLAT_VIEWS = ("fwd", "bwd", "intersection", "grow-diag-final-and", "union")

_NB_DJ = np.array([d[0] for d in _NEIGHBOURS], dtype=np.int64)
_NB_DK = np.array([d[1] for d in _NEIGHBOURS], dtype=np.int64)


@nb.njit(cache=True, nogil=True)
def _views_into(f_links, f_off, b_links, b_off, lens, rows, dj, dk):
    """Fill ``rows`` (5 x sum m n) with the :data:`FLAT_VIEWS` of every pair: each pair's
    ``m x n`` block row-major, one pair after the other.  The grow-diag-final-and view is
    :func:`symmetrize`'s, step for step (each pass visits a row-major snapshot of the links
    and the neighbours in :data:`_NEIGHBOURS`' order; then the final-and step visits the
    forward links, then the backward ones, row-major).  Returns -1, or the index of the first
    pair with a link outside its ``m x n`` grid."""
    e0 = 0
    for p in range(len(lens)):
        m, n = lens[p, 0], lens[p, 1]
        F = np.zeros((m, n), dtype=np.bool_)
        B = np.zeros((m, n), dtype=np.bool_)
        for src, off, M in ((f_links, f_off, F), (b_links, b_off, B)):
            for r in range(off[p], off[p + 1]):
                j, k = src[r, 0], src[r, 1]
                if j < 0 or j >= m or k < 0 or k >= n:
                    return p
                M[j, k] = True
        L = F & B
        sa = np.zeros(m, dtype=np.bool_)
        ta = np.zeros(n, dtype=np.bool_)
        for j in range(m):
            for k in range(n):
                if L[j, k]:
                    sa[j] = True
                    ta[k] = True
        snap = np.empty(m * n, dtype=np.int64)
        changed = True
        while changed:
            changed = False
            c = 0
            for x in range(m * n):
                if L[x // n, x % n]:
                    snap[c] = x
                    c += 1
            for q in range(c):
                j, k = snap[q] // n, snap[q] % n
                for d in range(len(dj)):
                    cj, ck = j + dj[d], k + dk[d]
                    if (0 <= cj < m and 0 <= ck < n and (F[cj, ck] or B[cj, ck])
                            and not L[cj, ck] and (not sa[cj] or not ta[ck])):
                        L[cj, ck] = True
                        sa[cj] = True
                        ta[ck] = True
                        changed = True
        for M in (F, B):
            for j in range(m):
                for k in range(n):
                    if M[j, k] and not sa[j] and not ta[k]:
                        L[j, k] = True
                        sa[j] = True
                        ta[k] = True
        for j in range(m):
            for k in range(n):
                x = e0 + j * n + k
                rows[0, x] = 1.0 if F[j, k] else 0.0
                rows[1, x] = 1.0 if B[j, k] else 0.0
                rows[2, x] = 1.0 if F[j, k] and B[j, k] else 0.0
                rows[3, x] = 1.0 if L[j, k] else 0.0
                rows[4, x] = 1.0 if F[j, k] or B[j, k] else 0.0
        e0 += m * n
    return -1


def _flat(arrays):
    off = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=off[1:])
    flat = (np.concatenate([np.asarray(a, dtype=np.int64).reshape(-1, 2) for a in arrays])
            if arrays else np.zeros((0, 2), dtype=np.int64))
    return flat, off


def link_views_flat(fwd, bwd, lens, out=None):
    """The :data:`FLAT_VIEWS` of many sentence pairs at once, as 0/1 rows.

    Parameters
    ----------
    fwd, bwd : list of (L_i, 2) int arrays
        Each pair's links (0-based source-target) of the two directions.
    lens : (P, 2) int array
        ``(m, n)`` of every pair.
    out : (5, sum m n) float array, optional
        Filled in place (a new one otherwise).

    Returns
    -------
    (5, sum m n) float array: per view, each pair's ``m x n`` block row-major, one pair
    after the other; row 3 equals :func:`symmetrize` with ``"grow-diag-final-and"``.
    """
    lens = np.asarray(lens, dtype=np.int64).reshape(-1, 2)
    if out is None:
        out = np.zeros((len(FLAT_VIEWS), int((lens[:, 0] * lens[:, 1]).sum())))
    fl, fo = _flat(fwd)
    bl, bo = _flat(bwd)
    bad = _views_into(fl, fo, bl, bo, lens, out, _NB_DJ, _NB_DK)
    if bad >= 0:
        m, n = lens[bad]
        raise ValueError(f"a link outside a {m}x{n} sentence pair")
    return out


def links_flat(links, lens, out=None):
    """One link set per sentence pair as one flat 0/1 row (each pair's ``m x n`` block
    row-major, one pair after the other): the first row of :func:`link_views_flat` for a
    single direction, without the other four views.

    ``links``: list of (L_i, 2) int arrays (0-based source-target); ``lens``: (P, 2)
    ``(m, n)`` of every pair; ``out``: a (sum m n,) float array filled in place.
    """
    lens = np.asarray(lens, dtype=np.int64).reshape(-1, 2)
    size = lens[:, 0] * lens[:, 1]
    if out is None:
        out = np.zeros(int(size.sum()))
    else:
        out[:] = 0.0
    flat, off = _flat(links)
    if not len(flat):
        return out
    pair = np.repeat(np.arange(len(lens)), np.diff(off))
    m, n = lens[pair, 0], lens[pair, 1]
    bad = np.flatnonzero((flat[:, 0] < 0) | (flat[:, 0] >= m) | (flat[:, 1] < 0)
                         | (flat[:, 1] >= n))
    if len(bad):
        p = pair[bad[0]]
        raise ValueError(f"a link outside a {lens[p, 0]}x{lens[p, 1]} sentence pair")
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    out[start[pair] + flat[:, 0] * n + flat[:, 1]] = 1.0
    return out
