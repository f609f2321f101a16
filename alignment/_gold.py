"""Gold alignments as the word aligner uses them: checked against their sentence pairs
(:func:`as_alignments`), and encoded as the target of training, a matching
(:func:`gold_matching`, model M) or a subgraph of bounded degree (:func:`gold_fertility_matching`,
the fertility models), whose sure links weigh more than its possible ones.

A predicted 0/1 link matrix becomes an alignment again by :func:`_matrix_to_alignment`.
:class:`alignment.model.MatchingAligner` builds its training examples, checks the gold
given to ``fit`` and ``score`` and reads its predictions with these;
:mod:`alignment.model` re-exports the public names.
"""

from __future__ import annotations

import numbers

import numpy as np

from structpred import decode_matching

from .data.formats import Alignment

__all__ = ["gold_matching", "gold_fertility_matching", "as_alignments"]


def _gold_weights(alignment, shape, target):
    """Sure links weigh 1, possible ones 0.01 with ``target="sure+possible"``, others 0."""
    w = np.zeros(shape)
    if target == "sure+possible":
        for j, k in alignment.possible:
            w[j, k] = 0.01
    elif target != "sure":
        raise ValueError(f"unknown target {target!r}")
    for j, k in alignment.sure:
        w[j, k] = 1.0
    return w


def gold_matching(alignment, shape, target="sure"):
    """Encode a gold alignment as a matching ``z(y)`` in the polytope.

    The Hansards gold is not one-to-one, but model M can only represent
    matchings, and the dual extragradient's centre ``z(y_i)`` must lie in
    ``Z_i``.  We take a maximum matching of the sure links (``target="sure"``),
    or of sure links first and possible links second (``"sure+possible"``).
    """
    return decode_matching(_gold_weights(alignment, shape, target)).astype(np.float64)


def gold_fertility_matching(alignment, shape, max_fertility, target="sure"):
    """The target of the fertility models: as many gold links as fertility ``D`` allows.

    A maximum-weight subgraph with degrees at most ``D`` (weights as in
    :func:`gold_matching`), found with the M+F flow of fig. 3.1(b) and small
    increasing fertility penalties, so that among equally large targets the
    one with the lowest fertilities is taken.
    """
    from structpred import decode_fertility_matching

    if max_fertility == 1:
        return gold_matching(alignment, shape, target)
    m, n = shape
    pen = 1e-4 * np.arange(1, max_fertility)[:, None]
    y, _, _ = decode_fertility_matching(_gold_weights(alignment, shape, target),
                                        np.repeat(pen, m, 1), np.repeat(pen, n, 1))
    return y.astype(np.float64)


def _matrix_to_alignment(z):
    links = frozenset((int(j), int(k)) for j, k in zip(*np.nonzero(z > 0.5)))
    return Alignment(sure=links, possible=links)


def as_alignments(pairs, gold, what="gold"):
    """``gold`` as :class:`~alignment.data.formats.Alignment` objects, checked against
    ``pairs``: an item may be an ``Alignment`` or a collection of ``(j, k)`` links (0-based,
    all sure).  A link outside its sentence pair, or an item of another kind, is a one-line
    ``ValueError`` naming the sentence (never an ``AttributeError`` deep in the features,
    nor a link silently dropped)."""
    from alignment.data.formats import Alignment

    out = []
    for i, (g, pair) in enumerate(zip(gold, pairs)):
        m, n = len(pair[0]), len(pair[1])
        if not isinstance(g, Alignment):
            try:
                links = frozenset((j, k) for j, k in g)
            except (TypeError, ValueError):
                raise ValueError(f"{what}[{i}]: expected an Alignment or (j, k) links, got "
                                 f"{type(g).__name__}") from None
            # whole numbers only (int() cut 0.5 to 0); the range is checked below
            whole = [(j, k) for j, k in links if isinstance(j, numbers.Integral)
                     and isinstance(k, numbers.Integral)]
            bad = [(int(j), int(k)) for j, k in whole if not (0 <= j < m and 0 <= k < n)]
            if not bad:
                try:
                    g = Alignment(sure=links, possible=links)
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"{what}[{i}]: {exc}") from None
        else:
            bad = [(j, k) for j, k in g.possible if not (0 <= j < m and 0 <= k < n)]
        if bad:
            raise ValueError(f"{what}[{i}]: link {min(bad)} outside the {m} x {n} sentence "
                             f"pair (positions are 0-based)")
        out.append(g)
    return out


def _as_list(items, what):
    """``items`` (a list, tuple, generator...) as a list; ``TypeError`` naming ``what`` for
    a string or something that is not a collection."""
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{what} must be a list of alignments, got {type(items).__name__}")
    return list(items)


def _check_sure(gold, what, why):
    """``ValueError`` when ``gold`` (non-empty) holds no link, or only possible ones."""
    if not any(g.possible for g in gold):
        raise ValueError(f"{what} holds no link at all: {why}")
    if not any(g.sure for g in gold):
        raise ValueError(f"{what} holds no sure link (only possible ones): {why}")
