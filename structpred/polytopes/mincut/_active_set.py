"""The exact active-set method of the min-cut projection: fused groups, their values,
merge and split steps, and the flows inside the groups.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._bk_maxflow import _bk_maxflow
from ._decode import ORTOOLS_SCALE_BITS
from ._dual_ascent import _edge_cg, _kkt_residual, _project_kernel

@nb.njit(cache=True)
def _components(n, eu, ev):
    """Connected components of the graph ``(n, edges (eu, ev))`` by union-find;
    labels ``0..k-1`` in order of first appearance.  Returns ``(k, labels)``."""
    parent = np.arange(n)
    for e in range(eu.size):
        a = eu[e]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = ev[e]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            if a < b:
                parent[b] = a
            else:
                parent[a] = b
    lab = np.empty(n, np.int64)
    k = 0
    for j in range(n):
        r = j
        while parent[r] != r:
            r = parent[r]
        if r == j:
            lab[j] = k
            k += 1
        else:
            lab[j] = lab[r]
    return k, lab


@nb.njit(cache=True)
def _groups(n, ej, ek, fused, flags, neg):
    """Groups of nodes joined by fused edges, and their bound status.

    Negative-``b'`` edges between two nodes at the same bound are fused too
    (``z_j = z_k`` there, and fusing only widens the admissible flows), and so
    are negative-``b'`` edges inside a group or between two groups at the same
    bound, until nothing changes.  Returns ``(comp, cstat, fused)``: group of
    each node, status of each group (-1: at 0, +1: at 1, 0: free) and the
    completed fused mask.
    """
    m = ej.size
    fused = fused.copy()
    for e in range(m):
        if neg[e] and flags[ej[e]] == flags[ek[e]] and flags[ej[e]] != 0:
            fused[e] = True
    while True:
        nc, comp = _components(n, ej[fused], ek[fused])
        lo = np.zeros(nc, np.bool_)
        hi = np.zeros(nc, np.bool_)
        for j in range(n):
            if flags[j] < 0:
                lo[comp[j]] = True
            elif flags[j] > 0:
                hi[comp[j]] = True
        cstat = np.zeros(nc, np.int8)
        for c in range(nc):
            if lo[c] and not hi[c]:
                cstat[c] = -1
            elif hi[c] and not lo[c]:
                cstat[c] = 1
        more = False
        for e in range(m):
            if neg[e] and not fused[e]:
                a, b = comp[ej[e]], comp[ek[e]]
                if a == b or (cstat[a] == cstat[b] and cstat[a] != 0):
                    fused[e] = True
                    more = True
        if not more:
            return comp, cstat, fused


@nb.njit(cache=True)
def _group_values(zp, bp, ej, ek, comp, cstat, sigma, active, z_prev):
    """Exact node values for a given structure: one linear solve.

    Every free group ``C`` takes one value ``x_C`` solving
    ``(diag(|C|) + L_A) x = rhs`` (the stationarity of the node problem
    summed over the group), where ``L_A`` is the Laplacian of the edges
    between groups on a quadratic piece (``p_e = d_e - sigma_e b'_e``).
    Returns ``(z, x, p)`` with ``p`` the flows of those edges (0 elsewhere).
    CG starts from the group means of ``z_prev`` (the previous step's node
    values; empty for none), which changes only its number of iterations.
    """
    n, m = zp.size, bp.size
    nc = cstat.size
    idx = np.full(nc, -1, np.int64)  # free groups numbered 0..nf-1
    nf = 0
    for c in range(nc):
        if cstat[c] == 0:
            idx[c] = nf
            nf += 1
    diag = np.zeros(nf)
    rhs = np.zeros(nf)
    zb = np.zeros(n)  # values of the nodes at a bound
    for j in range(n):
        g = idx[comp[j]]
        if g >= 0:
            diag[g] += 1.0
            rhs[g] += zp[j]
        elif cstat[comp[j]] > 0:
            zb[j] = 1.0
    diag_size = diag.copy()  # group sizes
    act = np.zeros(m, np.bool_)
    both = np.zeros(m, np.bool_)  # between two free groups
    for e in range(m):
        ct, ch = comp[ej[e]], comp[ek[e]]
        if ct == ch or not (bp[e] < 0 or active[e]):
            continue
        if cstat[ct] == cstat[ch] and cstat[ct] != 0:
            continue
        act[e] = True
        sb = sigma[e] * bp[e]
        gt, gh = idx[ct], idx[ch]
        if gt >= 0:
            rhs[gt] += sb
        if gh >= 0:
            rhs[gh] -= sb
        if gt >= 0 and gh < 0:
            diag[gt] += 1.0
            rhs[gt] += zb[ek[e]]
        elif gh >= 0 and gt < 0:
            diag[gh] += 1.0
            rhs[gh] += zb[ej[e]]
        elif gt >= 0 and gh >= 0:
            both[e] = True
    eu = idx[comp[ej[both]]]
    ev = idx[comp[ek[both]]]
    scale = 1.0
    for g in range(nf):
        scale = max(scale, abs(rhs[g]))
    x = np.zeros(nf)
    if z_prev.size == n:  # group means of the previous values
        for j in range(n):
            g = idx[comp[j]]
            if g >= 0:
                x[g] += z_prev[j]
        for g in range(nf):
            x[g] /= diag_size[g]
    else:
        for g in range(nf):
            x[g] = min(max(rhs[g] / max(diag[g], 1.0), 0.0), 1.0)
    _edge_cg(diag, eu, ev, rhs, x, 1e-15 * scale, 10 * nf + 100)
    z = zb.copy()
    for j in range(n):
        g = idx[comp[j]]
        if g >= 0:
            z[j] = x[g]
    p = np.zeros(m)
    for e in range(m):
        if act[e]:
            p[e] = z[ej[e]] - z[ek[e]] - sigma[e] * bp[e]
    return z, x, p


@nb.njit(cache=True)
def _minus_div(u, ej, ek, p):
    """``u - D'p`` with ``(D'p)_j = sum_{e=(j,.)} p_e - sum_{e=(.,j)} p_e``."""
    out = u.copy()
    for e in range(ej.size):
        out[ej[e]] -= p[e]
        out[ek[e]] += p[e]
    return out


@nb.njit(cache=True)
def _flow_network(tt, bp, ej, ek, comp, fused, sel, scale0):
    """Arcs of the max-flow network of :func:`_fused_flows` for the groups ``sel``.

    Node demands ``|tt| <= 1e-13 scale0`` count as zero (rounding of the group
    values).  Arcs, in this order: source -> j (``tt_j > 0``), j -> sink
    (``tt_j < 0``), then each fused edge of a selected group as a pair of
    arcs, forward then backward (capacity ``-b'``; only edges with both ends in
    selected groups).  Nodes are numbered compactly over the selected groups; source and sink are ``k`` and ``k + 1``.  Capacities are
    scaled so that they sum to ``2**ORTOOLS_SCALE_BITS`` (at least ``scale0``
    as the total) and floored to int64.  Returns ``(tails, heads, icaps, fe,
    term, k1, k2, nodes, scale)``: ``term`` the node of each terminal arc,
    ``k1``/``k2`` the ends of the source and sink arcs.
    """
    n = tt.size
    loc = np.full(n, -1, np.int64)
    k = 0
    for j in range(n):
        if sel[comp[j]]:
            loc[j] = k
            k += 1
    nodes = np.empty(k, np.int64)
    npos = nneg = 0
    thr = 1e-13 * scale0
    for j in range(n):
        if loc[j] >= 0:
            nodes[loc[j]] = j
            if tt[j] > thr:
                npos += 1
            elif tt[j] < -thr:
                nneg += 1
    fe = np.flatnonzero(fused & (loc[ej] >= 0) & (loc[ek] >= 0))
    nfe = fe.size
    k1, k2 = npos, npos + nneg
    na = k2 + 2 * nfe
    tails = np.empty(na, np.int64)
    heads = np.empty(na, np.int64)
    caps = np.empty(na)
    term = np.empty(k2, np.int64)
    a1, a2 = 0, k1
    for j in range(n):
        if loc[j] >= 0:
            if tt[j] > thr:
                tails[a1], heads[a1], caps[a1], term[a1] = k, loc[j], tt[j], j
                a1 += 1
            elif tt[j] < -thr:
                tails[a2], heads[a2], caps[a2], term[a2] = loc[j], k + 1, -tt[j], j
                a2 += 1
    for i in range(nfe):  # sister pairs: forward at k2 + 2i, backward at k2 + 2i + 1
        e = fe[i]
        u, v = loc[ej[e]], loc[ek[e]]
        tails[k2 + 2 * i], heads[k2 + 2 * i], caps[k2 + 2 * i] = u, v, -bp[e]
        tails[k2 + 2 * i + 1], heads[k2 + 2 * i + 1], caps[k2 + 2 * i + 1] = v, u, -bp[e]
    total = 0.0
    for a in range(na):
        total += caps[a]
    total = max(total, scale0)
    scale = 2.0 ** ORTOOLS_SCALE_BITS / total
    icaps = np.empty(na, np.int64)
    for a in range(na):
        icaps[a] = np.int64(np.floor(caps[a] * scale))
    return tails, heads, icaps, fe, term, k1, k2, nodes, scale


@nb.njit(cache=True)
def _flow_deficits(icaps, fl, term, k1, k2, comp, cstat, slack_tol):
    """Groups whose required terminal arcs are not saturated: the source arcs
    of free groups and of groups at 0, the sink arcs of free groups and of
    groups at 1 (deficit above ``slack_tol`` units per node of the group)."""
    nc = cstat.size
    src_def = np.zeros(nc)
    snk_def = np.zeros(nc)
    for a in range(k1):
        src_def[comp[term[a]]] += icaps[a] - fl[a]
    for a in range(k1, k2):
        snk_def[comp[term[a]]] += icaps[a] - fl[a]
    deg = np.zeros(nc)
    for j in range(comp.size):
        deg[comp[j]] += 1.0
    bad = np.zeros(nc, np.bool_)
    for c in range(nc):
        lim = slack_tol * deg[c]
        bad[c] = (cstat[c] <= 0 and src_def[c] > lim) or (cstat[c] >= 0 and snk_def[c] > lim)
    return bad


def _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, groups=None, flow_backend="bk"):
    """Flows on the fused edges that balance every node, by one max-flow.

    Node ``j`` needs a net outflow ``t_j = z'_j - z_j - (D'p)_j`` over the
    fused edges (capacity ``|p_e| <= -b'_e``): exactly ``t_j`` in a free
    group, at least ``t_j`` at 0, at most ``t_j`` at 1.  The groups only
    meet at the terminals of the s-t network (source -> j of capacity
    ``t_j > 0``, j -> sink of capacity ``-t_j``), so one max-flow
    decides all of them: a group is feasible iff its required terminal arcs
    are saturated (up to the integer rounding of the capacities).
    ``groups`` (boolean, per group) restricts the network to those groups.
    Returns ``(fe, pF, bad, S)``: the fused edges considered, their flows,
    the infeasible groups and the source side of the minimum cut (the nodes
    that must move up).
    """
    n = zp.size
    tt = _minus_div(zp - z, ej, ek, p)
    scale0 = max(1.0, float(np.abs(zp).max(initial=0.0)), float(np.abs(bp).max(initial=0.0)))
    sel = np.ones(cstat.size, np.bool_) if groups is None else groups
    tails, heads, icaps, fe, term, k1, k2, nodes, scale = _flow_network(
        tt, bp, ej, ek, comp, fused, sel, scale0)
    nc = cstat.size
    if icaps.size == 0:
        return fe, np.zeros(fe.size), np.zeros(nc, bool), np.zeros(n, bool)
    k = nodes.size
    S = np.zeros(n, bool)
    if flow_backend == "bk":
        fl, in_s = _bk_fused(k, tails, heads, icaps, k1, k2)
    else:
        from ortools.graph.python import max_flow

        smf = max_flow.SimpleMaxFlow()
        smf.add_arcs_with_capacity(np.r_[tails, k], np.r_[heads, k + 1], np.r_[icaps, 0])
        if smf.solve(k, k + 1) != smf.OPTIMAL:
            raise RuntimeError("OR-Tools max-flow failed")
        fl = smf.flows(np.arange(tails.size)).astype(np.float64)
        in_s = None
    # net flow of each fused edge: forward minus backward arc of its pair
    pF = (fl[k2::2] - fl[k2 + 1::2]) / scale
    # deficit of the required terminal arcs, per group (4 integer units per node:
    # the rounding of the capacities)
    bad = _flow_deficits(icaps, fl, term, k1, k2, comp, cstat, 4.0)
    if bad.any():
        if in_s is None:
            src = np.asarray(smf.get_source_side_min_cut(), dtype=np.int64)
            in_s = np.zeros(k, bool)
            in_s[src[src < k]] = True
        S[nodes[in_s]] = True
    return fe, pF, bad, S


@nb.njit(cache=True)
def _bk_fused(k, tails, heads, icaps, k1, k2):
    """Run :func:`_bk_maxflow` on the network of :func:`_flow_network` (its
    terminal arcs folded into node residuals, its sister pairs used as they are);
    returns the flow of every arc in that network's order, and the source side."""
    tr = np.zeros(k, np.int64)
    for a in range(k1):
        tr[heads[a]] += icaps[a]
    for a in range(k1, k2):
        tr[tails[a]] -= icaps[a]
    res = icaps[k2:].copy()
    _, in_s = _bk_maxflow(k, tails[k2:], heads[k2:], res, tr)
    fl = np.empty(tails.size)
    for a in range(k1):
        fl[a] = icaps[a] - max(tr[heads[a]], 0)
    for a in range(k1, k2):
        fl[a] = icaps[a] + min(tr[tails[a]], 0)
    for a in range(k2, tails.size):
        fl[a] = max(icaps[a] - res[a - k2], 0)
    return fl, in_s


def _balance_flows(zp, ej, ek, fe, cstat, comp, z, p, pF, scale):
    """Least-norm correction of the fused flows ``pF`` so that every node
    balances exactly (slacks ``s >= 0`` at the nodes at a bound):
    solves ``(L_F + diag(beta^2)) phi = r`` by :func:`_edge_cg`."""

    n = zp.size
    beta = cstat[comp].astype(np.float64)
    tt = _minus_div(zp - z, ej, ek, p)
    fu, fv = np.ascontiguousarray(ej[fe]), np.ascontiguousarray(ek[fe])
    DF = -_minus_div(np.zeros(n), fu, fv, pF)
    s0 = np.maximum(0.0, beta * (tt - DF))
    r = tt - DF - beta * s0
    if np.abs(r).max(initial=0.0) <= 1e-15 * scale:
        return pF
    # a group of fused edges with no node at a bound is singular (r sums to
    # zero on it): ground it at one node, which keeps the solution
    nc2, comp2 = _components(n, fu, fv)
    dg = beta * beta
    grounded = np.bincount(comp2, weights=dg, minlength=nc2) > 0
    first = np.full(nc2, -1)
    first[comp2[::-1]] = np.arange(n)[::-1]
    dg[first[~grounded]] = 1.0
    phi = np.zeros(n)
    _edge_cg(dg, np.ascontiguousarray(fu), np.ascontiguousarray(fv), r, phi, 1e-15 * scale,
             10 * n + 100)
    return pF + phi[fu] - phi[fv]


def _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek):
    """Split the infeasible groups along their minimum cut: the source side
    ``S`` moves up (a group at 0 frees ``S``, a group at 1 frees the rest).
    Updates ``flags`` in place; returns the new ``fused`` and ``sigma``."""
    gb = bad[comp]
    cut = fused & gb[ej] & (S[ej] != S[ek])
    st = cstat[comp]
    flags[gb & (st < 0) & S] = 0
    flags[gb & (st > 0) & ~S] = 0
    return fused & ~cut, np.where(cut, np.where(S[ej], 1.0, -1.0), sigma)


@nb.njit(cache=True)
def _structure_update(z, x, comp, cstat, bp, ej, ek, neg, tol, flags, fused, sigma, active):
    """The structure corrections of one active-set step (in place).

    A free group whose value leaves ``[0, 1]`` goes to the bound (``flags``);
    two groups joined by a negative-``b'`` edge whose difference has the
    wrong sign merge (``fused``); a squared-hinge edge between groups switches
    piece when its difference leaves the piece by more than ``tol``
    (``active``, ``sigma``: the Newton step on the smooth part).  Returns
    ``(touched, changed)``: the nodes whose groups change, and whether any did.
    """
    n, m = z.size, ej.size
    nc = cstat.size
    touched = np.zeros(n, np.bool_)
    changed = False
    out = np.zeros(nc, np.int8)
    g = 0
    for c in range(nc):
        if cstat[c] == 0:
            if x[g] < -tol:
                out[c] = -1
            elif x[g] > 1.0 + tol:
                out[c] = 1
            g += 1
    for j in range(n):
        if out[comp[j]] != 0:
            flags[j] = out[comp[j]]
            touched[j] = True
            changed = True
    for e in range(m):
        u, v = ej[e], ek[e]
        if comp[u] == comp[v]:
            continue
        d = z[u] - z[v]
        if neg[e]:
            if sigma[e] * d < -tol:
                fused[e] = True
                touched[u] = touched[v] = changed = True
        elif bp[e] > 0.0:
            if (active[e] and sigma[e] * d < bp[e] - tol) or (not active[e] and abs(d) > bp[e] + tol):
                active[e] = abs(d) > bp[e]
                sigma[e] = 1.0 if d >= 0 else -1.0
                touched[u] = touched[v] = changed = True
    return touched, changed


def _active_set(zp, bp, ej, ek, flags, fused, sigma, active, max_steps, kkt_tol,
                flow_backend="bk"):
    """Exact active-set method on groups of fused nodes (merge and split).

    Each step solves for the node values of the current structure
    (:func:`_group_values`), then

    * merges the two groups of a negative-``b'`` edge whose difference has
      the wrong sign, puts a group whose value leaves ``[0, 1]`` at the
      bound, and updates the pieces of the squared-hinge edges;
    * otherwise looks for flows on the fused edges (:func:`_fused_flows`);
      an infeasible group is split along its minimum cut (the source side
      moves up), which is the fused-lasso splitting rule.

    When every condition holds, the flows are balanced exactly
    (:func:`_balance_flows`) and the KKT residual is measured.
    Returns ``(z, p, ok, steps, residual)``.
    """
    n = zp.size
    neg = bp < 0
    scale = max(1.0, float(np.abs(zp).max(initial=0.0)), float(np.abs(bp).max(initial=0.0)))
    tol = 1e-13 * scale
    flags = flags.copy()
    sigma = sigma.copy()
    active = active.copy()
    res = np.inf
    z = p = None
    # nodes whose group changed since its flows were last found feasible:
    # only their groups go to the max-flow, until all of them are feasible;
    # then one max-flow over all groups certifies the whole structure
    dirty = np.ones(n, bool)
    for step in range(1, max_steps + 1):
        comp, cstat, fused = _groups(n, ej, ek, fused, flags, neg)
        z, x, p = _group_values(zp, bp, ej, ek, comp, cstat, sigma, active,
                                np.zeros(0) if z is None else z)
        touched, changed = _structure_update(z, x, comp, cstat, bp, ej, ek, neg, tol, flags,
                                             fused, sigma, active)
        if changed:
            # the flows of the other pending groups are still checked now
            tg = np.zeros(cstat.size, bool)
            tg[comp[touched]] = True
            dirty |= touched
            pend = dirty & ~tg[comp]
            if not pend.any():
                continue
            cand = np.zeros(cstat.size, bool)
            cand[comp[pend]] = True
            fe, pF, bad, S = _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, cand, flow_backend)
            dirty &= ~pend
            if bad.any():
                dirty |= bad[comp]
                fused, sigma = _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek)
            continue
        # flows on the fused edges by one max-flow; an infeasible group is
        # split along its minimum cut
        full = bool(dirty.all())
        cand = None
        if not full:
            cand = np.zeros(cstat.size, bool)
            cand[comp[dirty]] = True
        fe, pF, bad, S = _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, cand, flow_backend)
        dirty[:] = False
        if bad.any():
            dirty |= bad[comp]
            fused, sigma = _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek)
            continue
        if not full:  # the changed groups are feasible: check all of them
            dirty[:] = True
            fe, pF, bad, S = _fused_flows(zp, bp, ej, ek, comp, cstat, fused, z, p, None, flow_backend)
            dirty[:] = False
            if bad.any():
                dirty |= bad[comp]
                fused, sigma = _split(bad, comp, cstat, S, fused, sigma, flags, ej, ek)
                continue
        # certify; the max-flow's flows are rounded to 2**-50 of the total
        # capacity, so balance them exactly first if that is not enough
        c = -bp[fe]
        z = np.clip(z, 0.0, 1.0)
        p[fe] = np.clip(pF, -c, c)
        res = _kkt_residual(zp, bp, ej, ek, z, p)
        if res > kkt_tol:
            p[fe] = 0.0
            pF = _balance_flows(zp, ej, ek, fe, cstat, comp, z, p, pF, scale)
            p[fe] = np.clip(pF, -c, c)
            res = _kkt_residual(zp, bp, ej, ek, z, p)
        return z, p, res <= kkt_tol, step, res
    return z, p, False, max_steps, res


def _structure_from_dual(zp, bp, ej, ek, p):
    """Initial structure guess from (approximate) dual flows ``p``."""
    u = _minus_div(zp, ej, ek, p)
    z = np.clip(u, 0.0, 1.0)
    d = z[ej] - z[ek]
    neg = bp < 0
    flag = np.where(u <= 0, -1, np.where(u >= 1, 1, 0)).astype(np.int8)
    fused = neg & (np.abs(p) <= -bp)
    sigma = np.where(neg, np.where(p >= 0, 1.0, -1.0), np.where(d >= 0, 1.0, -1.0))
    active = ~neg & ((np.abs(d) > bp) | (bp == 0))
    return flag, fused, sigma, active


def _project_active_set(zv, ze, ej, ek, edges, p, tol, max_iter, omega, sweeps, max_steps,
                        flow_backend="bk"):
    """Sweeps of :func:`_project_kernel` alternated with exact active-set solves.

    Returns ``(z, p, info)``; ``p`` is modified in place by the sweeps.
    """
    bp = np.minimum(ze, 1.0)
    scale = max(1.0, float(np.abs(zv).max(initial=0.0)), float(np.abs(bp).max(initial=0.0)))
    kkt_tol = 1e-10 * scale
    total = 0
    steps = 0
    k = max(int(sweeps), 1)
    while True:
        z, it, delta = _project_kernel(zv, ze, ej, ek, p, float(tol), min(k, max_iter - total), omega)
        total += it
        flags, fused, sigma, active = _structure_from_dual(zv, bp, ej, ek, p)
        zc, pc, ok, st_, res = _active_set(zv, bp, ej, ek, flags, fused, sigma, active,
                                           max_steps, kkt_tol, flow_backend)
        steps += st_
        if ok:
            p[:] = pc
            return zc, p, dict(iterations=total, delta=float(delta), active_set_steps=steps,
                               kkt_residual=float(res), exact=True)
        if delta <= tol or total >= max_iter:
            res = _kkt_residual(zv, bp, ej, ek, z, p)
            return z, p, dict(iterations=total, delta=float(delta), active_set_steps=steps,
                              kkt_residual=float(res), exact=False)
        k *= 2

