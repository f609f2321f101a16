r"""Matchings with fertility and first-order interactions (thesis sec. 3.2.2).

The quadratic assignment model adds, to the edges ``z_jk`` (and the fertility
indicators of :mod:`structpred.polytopes`), one variable ``z_jklm`` for each
pair of edges in

.. math::
    \mathcal{Q} = \{jklm : |j - l| \le 1,\ |k - m| \le 1\},

whose score ``s_jklm >= 0`` is a bonus for having both edges.  The pairs come
in the patterns of fig. 3.1(c) (see :func:`adjacent_pairs`).  With the
constraints ``z_jklm <= z_jk`` and ``z_jklm <= z_lm`` the mixed integer
program of eq. 3.3 is an exact quadratic assignment; dropping integrality
gives the relaxed polytope the model is trained on (eq. 3.6).

This module holds

* :func:`adjacent_pairs`, the pair set and each pair's pattern;
* :func:`qap_constraints`, the relaxed polytope as ``A z <= b``;
* :func:`decode_qap`, exact decoding by integer programming through OR-Tools
  (SCIP) or PuLP (CBC), or the LP relaxation with rounding;
* :class:`RelaxedQAPProjector`, the Euclidean projection onto the relaxed
  polytope with OSQP (factorisation cached per sentence shape, warm-started);
  the examples use the faster dual block-coordinate ascent of
  :mod:`structpred.polytopes._qap_dual` by default;
* :func:`brute_force_qap`, exhaustive search for tests;
* :class:`ExtendedMatchingExample`, the structpred problem for models M, M+F,
  M+Q and M+F+Q.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._fertility import decode_fertility_matching, fertility_constraints, fertility_indicators, project_fertility_matching, split_fertility_vector
from ._qap_dual import DualQAPProjector
from .._checks import check_whole, dense, index_pairs, unmasked
from ..parallel import interruptible_call
from .._example import StructuredExample

__all__ = ["PATTERNS", "adjacent_pairs", "qap_constraints", "decode_qap", "QAPSolution",
           "RelaxedQAPProjector", "brute_force_qap", "ExtendedMatchingExample", "DECODERS"]


#: Pair patterns of fig. 3.1(c), in the order of the pattern ids.
PATTERNS = ("monotone", "inverted", "src-one-to-two", "tgt-one-to-two")
MONOTONE, INVERTED, SRC_ONE_TO_TWO, TGT_ONE_TO_TWO = range(4)
#: ``decode_qap`` back ends: exact ILP through OR-Tools or PuLP, or LP + rounding.
DECODERS = ("ortools", "pulp", "lp")


def adjacent_pairs(m, n, one_to_two=True):
    r"""The pair set :math:`\mathcal{Q}` of an ``m x n`` sentence pair.

    Each pair is two edges (flat row-major indices ``a < b``) whose source
    positions and target positions differ by at most one:

    * monotone ``<(j,k),(j+1,k+1)>``;
    * inverted ``<(j,k+1),(j+1,k)>``;
    * one-to-two with the same source word ``<(j,k),(j,k+1)>``;
    * one-to-two with the same target word ``<(j,k),(j+1,k)>``.

    ``one_to_two=False`` leaves out the last two patterns: without fertility
    both edges can never be on together, so they only loosen the LP
    relaxation (models M+Q use that; M+F+Q keeps them).

    Returns
    -------
    pairs : ndarray of int64, shape (P, 2)
    pattern : ndarray of int64, shape (P,)
        Index into :data:`PATTERNS`.
    """
    check_whole("m", m, 0)       # -1 gave no pairs, 2.5 a TypeError of numpy's
    check_whole("n", n, 0)
    idx = np.arange(m * n).reshape(m, n)
    blocks = [(idx[:-1, :-1], idx[1:, 1:], MONOTONE),
              (idx[:-1, 1:], idx[1:, :-1], INVERTED)]
    if one_to_two:
        blocks += [(idx[:, :-1], idx[:, 1:], SRC_ONE_TO_TWO),
                   (idx[:-1, :], idx[1:, :], TGT_ONE_TO_TWO)]
    a = np.concatenate([x.ravel() for x, _, _ in blocks]).astype(np.int64)
    b = np.concatenate([y.ravel() for _, y, _ in blocks]).astype(np.int64)
    pat = np.concatenate([np.full(x.size, p) for x, _, p in blocks]).astype(np.int64)
    pairs = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
    return pairs, pat


def qap_constraints(shape, max_fertility, pairs):
    """``(A, b)``: the relaxed polytope of eq. 3.3 (with fertility, eq. 3.2) as ``A z <= b``.

    Variable order ``[edges, src fertility, tgt fertility, pairs]``; rows are
    those of :func:`~structpred.fertility_constraints` followed by
    ``z_p - z_a <= 0`` and ``z_p - z_b <= 0`` for each pair ``p = (a, b)``.
    """
    A0, b0 = fertility_constraints(shape, max_fertility)
    pairs = index_pairs("pairs", pairs, shape[0] * shape[1])
    P = len(pairs)
    nz = A0.shape[1]
    if P == 0:
        return A0, b0
    r = np.arange(2 * P)
    cols_e = np.concatenate([pairs[:, 0], pairs[:, 1]])
    cols_p = nz + np.concatenate([np.arange(P), np.arange(P)])
    Ap = sp.csr_matrix((np.concatenate([-np.ones(2 * P), np.ones(2 * P)]),
                        (np.concatenate([r, r]), np.concatenate([cols_e, cols_p]))),
                       shape=(2 * P, nz + P))
    A = sp.vstack([sp.hstack([A0, sp.csr_matrix((A0.shape[0], P))]), Ap], format="csr")
    return A, np.concatenate([b0, np.zeros(2 * P)])


# ------------------------------------------------------------------------- decoding
@dataclass
class QAPSolution:
    """Result of :func:`decode_qap`.

    Attributes
    ----------
    y : ndarray of int64, shape (m, n)   edges
    src, tgt : fertility indicators, shapes (D-1, m), (D-1, n)
    pair_values : ndarray, shape (P,)    ``y_a y_b``
    objective : float                    value of eq. 3.3 at ``y``
    bound : float                        the LP optimum (``lp`` back end) or the ILP optimum
    fractional : bool                    the LP optimum was not integral (``lp`` back end)
    seconds : float
    """

    y: np.ndarray
    src: np.ndarray
    tgt: np.ndarray
    pair_values: np.ndarray
    objective: float
    bound: float
    fractional: bool = False
    seconds: float = 0.0
    lp_edges: np.ndarray | None = None


def qap_objective(y, scores, src_penalty, tgt_penalty, pairs, pair_scores):
    """Eq. 3.3 (with the fertility penalties of eq. 3.2) at a 0/1 edge matrix ``y``."""
    # the arrays as decode_qap takes them (a list was "'list' object has no attribute
    # 'shape'", a Series Python's "float() argument must be ...", float pairs cut)
    scores, src_penalty, tgt_penalty, pairs, pair_scores = _check_scores(
        scores, src_penalty, tgt_penalty, pairs, pair_scores)
    y = np.asarray(y)
    if y.shape != scores.shape:
        raise ValueError(f"y must be a 0/1 edge matrix of the scores' shape {scores.shape}, "
                         f"got shape {y.shape}")
    return _objective(y, scores, src_penalty, tgt_penalty, pairs, pair_scores)


def _objective(y, scores, src_penalty, tgt_penalty, pairs, pair_scores):
    """:func:`qap_objective` of arrays checked by :func:`_check_scores`."""
    D = src_penalty.shape[0] + 1
    deg_s, deg_t = y.sum(1), y.sum(0)
    if deg_s.max(initial=0) > D or deg_t.max(initial=0) > D:
        return -np.inf
    fs, ft = fertility_indicators(y, D)
    flat = y.ravel()
    val = float((scores * y).sum()) - float((src_penalty * fs).sum()) - float((tgt_penalty * ft).sum())
    if len(pairs):
        val += float(pair_scores @ (flat[pairs[:, 0]] * flat[pairs[:, 1]]))
    return val


def _prune(scores, pairs, pair_scores):
    """Edges that can be in some optimal solution: ``s_e + sum_{p ∋ e} max(s_p, 0) > 0``.

    Removing any other edge from a solution changes the objective by at least
    ``-(s_e + sum of its pair bonuses)`` >= 0 and can only lower fertility
    penalties, so an optimal solution exists among the kept edges.
    """
    flat = scores.ravel()
    best = flat.copy()
    if len(pairs):
        pos = np.maximum(pair_scores, 0.0)
        np.add.at(best, pairs[:, 0], pos)
        np.add.at(best, pairs[:, 1], pos)
    keep = best > 0.0
    pk = keep[pairs[:, 0]] & keep[pairs[:, 1]] if len(pairs) else np.zeros(0, bool)
    return keep, pk


def _solve_pulp(lp, integer):
    """Solve eq. 3.3 (the LP of :func:`_build_lp`) with PuLP/CBC; returns the values of
    the edge, fertility and pair variables."""
    import pulp

    E, P, rows_of, cols_of, pos_in_E, flat, sp, tp, pairs, pair_scores = lp
    e, m, n = sp.shape[0], len(rows_of), len(cols_of)
    prob = pulp.LpProblem("qap", pulp.LpMaximize)
    cat = "Binary" if integer else "Continuous"
    ys = [pulp.LpVariable(f"y{i}", 0, 1, cat) for i in range(E.size)]
    fsv = {(d, j): pulp.LpVariable(f"fs{d}_{j}", 0, 1, cat) for d in range(e) for j in range(m)
           if rows_of[j]}
    ftv = {(d, k): pulp.LpVariable(f"ft{d}_{k}", 0, 1, cat) for d in range(e) for k in range(n)
           if cols_of[k]}
    zp = [pulp.LpVariable(f"p{i}", 0, 1) for i in range(P.size)]
    obj = [(ys[i], float(flat[E[i]])) for i in range(E.size)]
    obj += [(v, -float(sp[d, j])) for (d, j), v in fsv.items()]
    obj += [(v, -float(tp[d, k])) for (d, k), v in ftv.items()]
    obj += [(zp[i], float(pair_scores[p])) for i, p in enumerate(P)]
    prob += pulp.LpAffineExpression(obj)
    for j in range(m):
        if rows_of[j]:
            prob += (pulp.lpSum(ys[i] for i in rows_of[j])
                     <= 1 + pulp.lpSum(fsv[d, j] for d in range(e)))
    for k in range(n):
        if cols_of[k]:
            prob += (pulp.lpSum(ys[i] for i in cols_of[k])
                     <= 1 + pulp.lpSum(ftv[d, k] for d in range(e)))
    for i, p in enumerate(P):
        a, b = pos_in_E[pairs[p, 0]], pos_in_E[pairs[p, 1]]
        prob += zp[i] <= ys[a]
        prob += zp[i] <= ys[b]
        if pair_scores[p] < 0:
            prob += zp[i] >= ys[a] + ys[b] - 1
    status = prob.solve(pulp.PULP_CBC_CMD(msg=False))
    if pulp.LpStatus[status] != "Optimal":
        raise RuntimeError(f"CBC status {pulp.LpStatus[status]}")
    return (np.array([v.value() for v in ys], dtype=np.float64),
            {key: v.value() for key, v in fsv.items()},
            {key: v.value() for key, v in ftv.items()},
            np.array([v.value() for v in zp], dtype=np.float64))


def _row_constraint(solver, ys, members, slack):
    """``sum_{i in members} y_i - sum_d slack_d <= 1`` (a node's degree, eq. 3.3)."""
    c = solver.Constraint(-solver.infinity(), 1.0)
    for i in members:
        c.SetCoefficient(ys[i], 1.0)
    for v in slack:
        c.SetCoefficient(v, -1.0)


def _objective_scale(*parts):
    """A power of two that brings the largest objective coefficient of ``parts`` near 1
    when it lies outside [1e-6, 1e6] (GLOP ended "ABNORMAL" on scores of 1e-10: below its
    tolerances), else 1.  A positive factor leaves the maximiser as it is, and a power of
    two scales every coefficient exactly; the values returned are the variables'.  A
    scaled coefficient under 1e-9 is then set to 0 (:func:`_solve_ortools`): it cannot
    move the objective beyond the solvers' tolerances, and beside 1 it ended GLOP too."""
    big = max((float(np.max(np.abs(p))) for p in parts if np.size(p)), default=0.0)
    if big == 0.0 or 1e-6 <= big <= 1e6:
        return 1.0
    return float(2.0 ** -round(np.log2(big)))


def _solve_ortools(lp, integer):
    """Solve eq. 3.3 (the LP of :func:`_build_lp`) with OR-Tools (GLOP, or SCIP for the
    ILP); returns the values of the edge, fertility and pair variables."""
    from ortools.linear_solver import pywraplp

    E, P, rows_of, cols_of, pos_in_E, flat, sp, tp, pairs, pair_scores = lp
    e, m, n = sp.shape[0], len(rows_of), len(cols_of)
    solver = pywraplp.Solver.CreateSolver("SCIP" if integer else "GLOP")
    if solver is None:
        raise RuntimeError("OR-Tools was built without SCIP/GLOP")
    inf = solver.infinity()
    mk = solver.BoolVar if integer else (lambda name: solver.NumVar(0.0, 1.0, name))
    ys = [mk(f"y{i}") for i in range(E.size)]
    fsv = {(d, j): mk(f"fs{d}_{j}") for d in range(e) for j in range(m) if rows_of[j]}
    ftv = {(d, k): mk(f"ft{d}_{k}") for d in range(e) for k in range(n) if cols_of[k]}
    zp = [solver.NumVar(0.0, 1.0, f"p{i}") for i in range(P.size)]
    obj = solver.Objective()
    scale = _objective_scale(flat[E], sp, tp, pair_scores[P])

    def c(x):   # scaled; below GLOP's tolerances (1e-10 beside 1 ended "ABNORMAL"): 0
        x = scale * float(x)
        return x if abs(x) >= 1e-9 else 0.0

    for i in range(E.size):
        obj.SetCoefficient(ys[i], c(flat[E[i]]))
    for (d, j), v in fsv.items():
        obj.SetCoefficient(v, -c(sp[d, j]))
    for (d, k), v in ftv.items():
        obj.SetCoefficient(v, -c(tp[d, k]))
    for i, p in enumerate(P):
        obj.SetCoefficient(zp[i], c(pair_scores[p]))
    obj.SetMaximization()
    for j in range(m):
        if rows_of[j]:
            _row_constraint(solver, ys, rows_of[j], [fsv[d, j] for d in range(e)])
    for k in range(n):
        if cols_of[k]:
            _row_constraint(solver, ys, cols_of[k], [ftv[d, k] for d in range(e)])
    for i, p in enumerate(P):
        a, b = pos_in_E[pairs[p, 0]], pos_in_E[pairs[p, 1]]
        for x in (a, b):
            c = solver.Constraint(-inf, 0.0)
            c.SetCoefficient(zp[i], 1.0)
            c.SetCoefficient(ys[x], -1.0)
        if pair_scores[p] < 0:
            c = solver.Constraint(-1.0, inf)
            c.SetCoefficient(zp[i], 1.0)
            c.SetCoefficient(ys[a], -1.0)
            c.SetCoefficient(ys[b], -1.0)
    if integer:
        solver.SetSolverSpecificParametersAsString("limits/gap = 0\n")
    # in a helper thread: SWIG releases the GIL, so Ctrl-C and SIGTERM stop a long solve
    status = interruptible_call(solver.Solve, solver.InterruptSolve)
    if status != pywraplp.Solver.OPTIMAL:
        raise RuntimeError(f"OR-Tools {'SCIP' if integer else 'GLOP'} status {status}")
    return (np.array([v.solution_value() for v in ys], dtype=np.float64),
            {key: v.solution_value() for key, v in fsv.items()},
            {key: v.solution_value() for key, v in ftv.items()},
            np.array([v.solution_value() for v in zp], dtype=np.float64))


def _build_lp(backend, scores, src_penalty, tgt_penalty, pairs, pair_scores, integer):
    """Build and solve eq. 3.3 over the kept edges; returns (edge values, fert values, pair values, value)."""
    m, n = scores.shape
    e = src_penalty.shape[0]
    keep, pk = _prune(scores, pairs, pair_scores)
    E = np.flatnonzero(keep)
    P = np.flatnonzero(pk)
    flat = scores.ravel()
    if E.size == 0:
        return np.zeros(m * n), np.zeros((e, m)), np.zeros((e, n)), np.zeros(len(pairs)), 0.0
    rows_of = [[] for _ in range(m)]
    cols_of = [[] for _ in range(n)]
    for i, eid in enumerate(E):
        rows_of[eid // n].append(i)
        cols_of[eid % n].append(i)
    pos_in_E = -np.ones(m * n, np.int64)
    pos_in_E[E] = np.arange(E.size)
    lp = (E, P, rows_of, cols_of, pos_in_E, flat, src_penalty, tgt_penalty, pairs, pair_scores)
    solve = _solve_pulp if backend == "pulp" else _solve_ortools
    yv, fsd, ftd, pv = solve(lp, integer)
    edges = np.zeros(m * n)
    edges[E] = yv
    fs = np.zeros((e, m))
    ft = np.zeros((e, n))
    for (d, j), v in fsd.items():
        fs[d, j] = v
    for (d, k), v in ftd.items():
        ft[d, k] = v
    pair_vals = np.zeros(len(pairs))
    pair_vals[P] = pv
    value = (float(flat @ edges) - float((src_penalty * fs).sum()) - float((tgt_penalty * ft).sum())
             + (float(pair_scores @ pair_vals) if len(pairs) else 0.0))
    return edges, fs, ft, pair_vals, value


def _check_scores(scores, src_penalty, tgt_penalty, pairs, pair_scores):
    # sparse matrices made dense (numpy's "setting an array element with a sequence"; the
    # matching decoders took them)
    scores, src_penalty, tgt_penalty, pair_scores = (
        unmasked(dense(a), name) for a, name in (
            (scores, "scores"), (src_penalty, "src_penalty"), (tgt_penalty, "tgt_penalty"),
            (pair_scores, "pair_scores")))
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2:
        raise ValueError("edge scores must be a 2-D (m, n) array")
    m, n = s.shape
    ps = np.zeros((0, m)) if src_penalty is None else np.asarray(src_penalty, dtype=np.float64)
    pt = np.zeros((ps.shape[0], n)) if tgt_penalty is None else np.asarray(tgt_penalty, np.float64)
    if ps.shape[1:] != (m,) or pt.shape != (ps.shape[0], n):
        raise ValueError("fertility penalties must have shapes (D-1, m) and (D-1, n)")
    pairs = np.zeros((0, 2), np.int64) if pairs is None else index_pairs("pairs", pairs, m * n)
    q = np.zeros(len(pairs)) if pair_scores is None else np.asarray(pair_scores, np.float64).ravel()
    if q.size != len(pairs):
        raise ValueError(f"{q.size} pair scores for {len(pairs)} pairs")
    for name, a in (("edge scores", s), ("fertility penalties", ps), ("fertility penalties", pt),
                    ("pair scores", q)):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contain NaN or infinite values")
    return s, ps, pt, pairs, q


def decode_qap(scores, src_penalty=None, tgt_penalty=None, pairs=None, pair_scores=None,
               backend="ortools", exact_repair=True):
    r"""Exact decoding of the quadratic assignment model (eq. 3.3, with eq. 3.2's fertility).

    .. math::
        \max_{y \in \{0,1\}} \sum_{jk} s_{jk} y_{jk} + \sum_{jklm \in Q} s_{jklm} z_{jklm}
        - \sum_{d \ge 2} (s_{dj\bullet} z_{dj\bullet} + s_{d\bullet k} z_{d\bullet k})

    subject to the fertility-extended matching constraints and
    ``z_jklm <= y_jk``, ``z_jklm <= y_lm`` (and ``z_jklm >= y_jk + y_lm - 1``
    for a pair with a negative score, so the product stays exact).  Edges that
    cannot be in any optimal solution (``s_e`` plus all its pair bonuses
    ``<= 0``) are dropped first; this is exact and shrinks the program a lot.

    Parameters
    ----------
    scores : (m, n) edge scores; src_penalty, tgt_penalty : (D-1, m), (D-1, n)
    pairs : (P, 2) flat edge indices; pair_scores : (P,)
    backend : {"ortools", "pulp", "lp"}
        ``"ortools"``: mixed integer program with SCIP through
        ``pywraplp``; ``"pulp"``: the same program with CBC through PuLP;
        ``"lp"``: the LP relaxation (GLOP) with each edge rounded at 1/2, the
        fast path of sec. 3.4 (``fractional`` tells whether the LP optimum
        was integral; if the rounded edges break a fertility constraint, the
        exact ILP is solved instead).
    exact_repair : bool
        With ``backend="lp"``: ``False`` repairs rounded edges that break a fertility
        constraint without the ILP (whose time has no bound in the size): the 0/1 edges
        nearest the LP's ``x`` in L1 within the fertility limit ``D``,
        ``max_y sum_e y_e (2 x_e - 1)`` subject to every word's degree ``<= D``, a
        min-cost flow (:func:`decode_fertility_matching` with no penalties).

    Returns
    -------
    :class:`QAPSolution`
    """
    if backend not in DECODERS:
        raise ValueError(f"backend must be one of {DECODERS}, got {backend!r}")
    s, ps, pt, pairs, q = _check_scores(scores, src_penalty, tgt_penalty, pairs, pair_scores)
    m, n = s.shape
    D = ps.shape[0] + 1
    t0 = time.perf_counter()
    if len(pairs) == 0 and backend != "pulp":
        # no interactions: the LP is integral and is a min-cost flow (fig. 3.1(b))
        y, fs, ft = decode_fertility_matching(s, ps, pt)
        val = _objective(y, s, ps, pt, pairs, q)
        return QAPSolution(y, fs, ft, np.zeros(0), val, val, False, time.perf_counter() - t0)
    integer = backend != "lp"
    edges, fs, ft, pv, value = _build_lp("pulp" if backend == "pulp" else "ortools", s, ps, pt,
                                         pairs, q, integer)
    fractional = False
    if integer:
        y = (edges > 0.5).astype(np.int64).reshape(m, n)
    else:
        tol = 1e-6
        fractional = bool(np.any((edges > tol) & (edges < 1 - tol)))
        y = (edges > 0.5).astype(np.int64).reshape(m, n)
        over = y.sum(1).max(initial=0) > D or y.sum(0).max(initial=0) > D
        if over and exact_repair:
            edges2, _, _, _, _ = _build_lp("ortools", s, ps, pt, pairs, q, True)
            y = (edges2 > 0.5).astype(np.int64).reshape(m, n)
        elif over:       # the L1-nearest 0/1 edges within the fertility limit
            y = decode_fertility_matching(2.0 * edges.reshape(m, n) - 1.0, np.zeros((D - 1, m)),
                                          np.zeros((D - 1, n)))[0]
    fs, ft = fertility_indicators(y, D)
    flat = y.ravel()
    pair_vals = (flat[pairs[:, 0]] * flat[pairs[:, 1]]).astype(np.float64) if len(pairs) else np.zeros(0)
    obj = _objective(y, s, ps, pt, pairs, q)
    return QAPSolution(y, fs, ft, pair_vals, obj, value, fractional, time.perf_counter() - t0,
                       lp_edges=None if integer else edges.reshape(m, n))


def brute_force_qap(scores, src_penalty=None, tgt_penalty=None, pairs=None, pair_scores=None):
    """Exhaustive search over all 0/1 edge matrices (``m * n <= 20``); for tests.

    Every one of the ``2**(m n)`` edge sets is scored at once (vectorised):
    edge scores, plus pair bonuses ``s_p y_a y_b``, minus the fertility
    penalties ``sum_{d=2}^{deg} s_d`` of each word (infeasible above ``D``).
    Fertility indicators are the degrees' (``z_dj. = [deg_j >= d]``), which is
    the LP's choice for non-negative, non-decreasing penalties.

    Returns ``(best value, best y)``.
    """
    s, ps, pt, pairs, q = _check_scores(scores, src_penalty, tgt_penalty, pairs, pair_scores)
    m, n = s.shape
    if m * n > 20:
        raise ValueError("brute force is limited to m * n <= 20")
    D = ps.shape[0] + 1
    codes = np.arange(2 ** (m * n), dtype=np.int64)
    Y = ((codes[:, None] >> np.arange(m * n)[None, :]) & 1).astype(np.float64)
    val = Y @ s.ravel()
    if len(pairs):
        val += (Y[:, pairs[:, 0]] * Y[:, pairs[:, 1]]) @ q
    Y3 = Y.reshape(-1, m, n)
    for deg, pen in ((Y3.sum(2), ps), (Y3.sum(1), pt)):
        val[(deg > D).any(1)] = -np.inf
        for d in range(2, D + 1):
            val -= (deg >= d) @ pen[d - 2]
    best = int(np.argmax(val))
    return float(val[best]), Y3[best].astype(np.int64)


# ----------------------------------------------------------------------- projection
class RelaxedQAPProjector:
    r"""Euclidean projection onto the relaxed QAP polytope, by OSQP.

    :math:`\min_z \tfrac12\|z - z'\|^2` s.t. ``A z <= b``, ``0 <= z <= 1``
    (:func:`qap_constraints`).  No flow structure is known for this polytope
    (sec. 3.3), so a QP solver is used: one OSQP workspace (and its KKT
    factorisation) per sentence shape, kept in an LRU cache, and each solve
    warm-started from the previous primal-dual solution of the same example
    (``warm``), which in the dual extragradient moves little between
    iterations.  OSQP is a first-order method: the result is accurate to about
    ``eps`` (default 1e-5; at 1e-9 it matches cvxpy/Clarabel to 1e-6 in the tests), not
    to machine precision like the flow projections.
    """

    def __init__(self, max_cache=256, eps=1e-5, max_iter=20000, rho=1.0):
        self.max_cache = int(max_cache)
        self.eps = float(eps)
        self.max_iter = int(max_iter)
        self.rho = float(rho)
        self._cache = OrderedDict()
        self.n_solves = 0
        self.n_osqp_iter = 0

    def __getstate__(self):   # OSQP workspaces do not pickle; workers rebuild them
        st = dict(self.__dict__)
        st["_cache"] = OrderedDict()
        return st

    def _workspace(self, key, constraints):
        import osqp

        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        A, b = constraints()
        N = A.shape[1]
        C = sp.vstack([A, sp.eye(N)], format="csc")
        lo = np.concatenate([np.full(A.shape[0], -np.inf), np.zeros(N)])
        hi = np.concatenate([b, np.ones(N)])
        solver = osqp.OSQP()
        solver.setup(P=sp.eye(N, format="csc"), q=np.zeros(N), A=C, l=lo, u=hi, verbose=False,
                     eps_abs=self.eps, eps_rel=self.eps, polishing=False, max_iter=self.max_iter,
                     rho=self.rho)
        self._cache[key] = solver
        if len(self._cache) > self.max_cache:
            self._cache.popitem(last=False)
        return solver

    def project(self, z, key, constraints, warm=None):
        """Project ``z`` onto ``{A z <= b, 0 <= z <= 1}``.

        ``constraints`` is ``(A, b)`` or a callable returning it (called only
        when no workspace for ``key`` is cached); ``warm`` is a dict that keeps
        this example's last primal-dual pair.
        """
        z = np.asarray(z, dtype=np.float64)
        solver = self._workspace(key, constraints if callable(constraints) else (lambda: constraints))
        solver.update(q=-z)
        if warm is not None and "x" in warm:
            solver.warm_start(x=warm["x"], y=warm["y"])
        res = solver.solve(raise_error=False)
        self.n_solves += 1
        self.n_osqp_iter += int(res.info.iter)
        if res.info.status_val not in (1, 2):   # solved, solved inaccurate
            raise RuntimeError(f"OSQP failed: {res.info.status}")
        if warm is not None:
            warm["x"], warm["y"] = res.x.copy(), res.y.copy()
        return np.clip(res.x, 0.0, 1.0)


# --------------------------------------------------------------------------- problem
@dataclass
class ExtendedMatchingExample(StructuredExample):
    """Matching example with fertility (M+F) and/or pair interactions (M+Q, M+F+Q).

    Variables: ``[edges (m*n), src fertility ((D-1)*m), tgt fertility ((D-1)*n),
    pairs (P)]``.  Columns of ``F`` for fertility indicators hold the
    *negated* node features (a penalty), so that the score of every variable
    is ``w' F_col``; with non-negative features and weights the penalties and
    bonuses are non-negative, as eqs. 3.2 and 3.3 require.

    Parameters
    ----------
    shape : (m, n)
    max_fertility : int
        ``D``; 1 is model M.
    pairs : (P, 2) ndarray or None
        Pair set (:func:`adjacent_pairs`); ``None`` for no interactions.
    decoder : {"ortools", "pulp", "lp"}
        How :meth:`decode_scores` solves the QAP (unused without pairs).
    projector : DualQAPProjector or RelaxedQAPProjector, optional
        The relaxed-QAP projection.  By default each example makes its own
        :class:`~structpred.polytopes._qap_dual.DualQAPProjector` (dual
        block-coordinate ascent, warm-started from this example's earlier
        multipliers) on first use; a :class:`RelaxedQAPProjector` projects with
        OSQP instead (pass one to share its workspaces between examples).
    """

    shape: tuple = (0, 0)
    max_fertility: int = 1
    pairs: np.ndarray | None = None
    decoder: str = "ortools"
    projector: DualQAPProjector | RelaxedQAPProjector | None = field(default=None, repr=False)
    _warm: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        m, n = self.shape
        if m < 1 or n < 1:
            raise ValueError(f"shape must be positive, got {self.shape}")
        if self.max_fertility < 1:
            raise ValueError("max_fertility must be >= 1")
        self.pairs = (np.zeros((0, 2), np.int64) if self.pairs is None
                      else index_pairs("pairs", self.pairs, m * n))
        super().__post_init__()
        if self.z_gold.size != self.n_edges + self.n_fert + len(self.pairs):
            raise ValueError("z_gold does not match the variable layout")

    @property
    def n_edges(self):
        return self.shape[0] * self.shape[1]

    @property
    def n_fert(self):
        return (self.max_fertility - 1) * (self.shape[0] + self.shape[1])

    def split(self, z):
        """``(edges (m, n), src (D-1, m), tgt (D-1, n), pairs (P,))`` views of a vector."""
        edges, src, tgt = split_fertility_vector(z, self.shape, self.max_fertility)
        return edges, src, tgt, np.asarray(z)[self.n_edges + self.n_fert:]

    def constraints(self):
        return qap_constraints(self.shape, self.max_fertility, self.pairs)

    def project(self, z):
        if len(self.pairs) == 0:
            e, s, t, _ = self.split(z)
            pe, ps, pt = project_fertility_matching(e, s, t, warm=self._warm)
            return np.concatenate([pe.ravel(), ps.ravel(), pt.ravel()])
        if self.projector is None:
            # the example owns its projector and warm start: no state shared between
            # examples or models
            self.projector = DualQAPProjector()
        proj = self.projector
        if isinstance(proj, RelaxedQAPProjector):
            key = (self.shape, self.max_fertility, len(self.pairs), hash(self.pairs.tobytes()))
            return proj.project(z, key, self.constraints, warm=self._warm)
        return proj.project(z, self.shape, self.max_fertility, self.pairs, warm=self._warm)

    def decode_scores(self, s):
        """Argmax of ``s'z``: over the integer points (exact ILP), or, with
        ``decoder="lp"``, over the relaxed polytope (possibly fractional: the
        inner maximisation of the relaxed saddle point, eq. 3.6)."""
        e, fs, ft, q = self.split(s)
        # fertility columns score -penalty
        if self.decoder == "lp" and len(self.pairs):
            _check_scores(e, -fs, -ft, self.pairs, q)
            edges, fsv, ftv, pv, _ = _build_lp("ortools", e, -fs, -ft, self.pairs, q, False)
            return np.concatenate([edges, fsv.ravel(), ftv.ravel(), pv])
        sol = decode_qap(e, -fs, -ft, self.pairs, q, backend=self.decoder)
        return np.concatenate([sol.y.ravel().astype(np.float64), sol.src.ravel(),
                               sol.tgt.ravel(), sol.pair_values])

    def decode_edges(self, s, exact_repair=True):
        """The predicted 0/1 edge matrix for part scores ``s`` (prediction;
        ``exact_repair``: :func:`decode_qap`'s)."""
        e, fs, ft, q = self.split(s)
        return decode_qap(e, -fs, -ft, self.pairs, q, backend=self.decoder,
                          exact_repair=exact_repair).y
