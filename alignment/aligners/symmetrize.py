"""Symmetrisation of two directional alignments (Koehn et al. 2003): intersection, union,
grow-diag and grow-diag-final(-and), and link sets as 0/1 matrices."""

from __future__ import annotations

import numpy as np

__all__ = ["symmetrize", "links_matrix", "SYMMETRIZATIONS"]


SYMMETRIZATIONS = ("intersection", "union", "grow-diag", "grow-diag-final",
                   "grow-diag-final-and")


_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def symmetrize(fwd, bwd, method="grow-diag-final-and"):
    """Combine the links of the two directions of one sentence pair.

    Parameters
    ----------
    fwd, bwd : set of (j, k)
        Source-target links (0-based) of each direction.
    method : one of :data:`SYMMETRIZATIONS`
    """
    fwd, bwd = set(fwd), set(bwd)
    if method == "intersection":
        return fwd & bwd
    union = fwd | bwd
    if method == "union":
        return union
    if method not in SYMMETRIZATIONS:
        raise ValueError(f"unknown symmetrization {method!r}")
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
