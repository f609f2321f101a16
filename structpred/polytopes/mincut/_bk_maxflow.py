"""Boykov-Kolmogorov max-flow in Numba, for the flows inside fused groups.
"""

from __future__ import annotations

import numba as nb
import numpy as np


_BK_TERMINAL = -1
_BK_ORPHAN = -2
_BK_NONE = -3


@nb.njit(cache=True)
def _bk_maxflow(n, tails, heads, cap, tr):
    """Maximum flow by Boykov & Kolmogorov's algorithm (2004) on integer capacities.

    Internal arcs come in sister pairs ``(2i, 2i + 1)`` of opposite directions
    (``tails``/``heads``); ``cap`` holds their residual capacities.  The
    terminal arcs are folded into ``tr``: ``tr[j] > 0`` is the residual of
    source -> j, ``tr[j] < 0`` minus that of j -> sink.  Both arrays are
    updated in place.  Two search trees grow from the terminals (S from the
    source, T to the sink); when they touch, the path is augmented and the
    nodes cut off by saturated arcs are re-attached (adoption) or freed.  The
    distance/timestamp heuristic of the paper keeps the trees shallow.
    Returns the flow value and ``in_s``: the nodes of the final source tree,
    i.e. those reachable from the source in the residual network (the source
    side of the minimum cut).
    """
    m2 = tails.size
    off = np.zeros(n + 1, np.int64)
    for a in range(m2):
        off[tails[a] + 1] += 1
    for u in range(n):
        off[u + 1] += off[u]
    fill = off[:-1].copy()
    adj = np.empty(m2, np.int64)
    for a in range(m2):
        adj[fill[tails[a]]] = a
        fill[tails[a]] += 1
    tree = np.zeros(n, np.int8)          # 0 free, 1 source tree, 2 sink tree
    parent = np.full(n, _BK_NONE, np.int64)  # arc from the node to its parent
    ts = np.zeros(n, np.int64)
    dist = np.zeros(n, np.int64)
    queue = np.empty(n + 1, np.int64)    # active nodes (circular)
    inq = np.zeros(n, np.bool_)
    qh = 0
    qn = 0
    orphans = np.empty(n, np.int64)
    for j in range(n):
        if tr[j] != 0:
            tree[j] = 1 if tr[j] > 0 else 2
            parent[j] = _BK_TERMINAL
            ts[j] = 0
            dist[j] = 1
            queue[(qh + qn) % (n + 1)] = j
            qn += 1
            inq[j] = True
    time_ = 0
    flow = 0
    cur = -1  # node being grown
    while True:
        # next active node
        i = -1
        if cur >= 0 and parent[cur] != _BK_NONE:
            i = cur
        else:
            cur = -1
            while qn > 0:
                c = queue[qh]
                qh = (qh + 1) % (n + 1)
                qn -= 1
                inq[c] = False
                if parent[c] != _BK_NONE:
                    i = c
                    break
        if i < 0:
            break
        # grow the tree of i: the source tree along arcs i -> j with residual
        # capacity, the sink tree along arcs j -> i
        a_mid = -1
        side = tree[i]
        for t in range(off[i], off[i + 1]):
            a0 = adj[t]
            if cap[a0 if side == 1 else a0 ^ 1] <= 0:
                continue
            j = heads[a0]
            if parent[j] == _BK_NONE:
                tree[j] = side
                parent[j] = a0 ^ 1
                ts[j] = ts[i]
                dist[j] = dist[i] + 1
                if not inq[j]:
                    queue[(qh + qn) % (n + 1)] = j
                    qn += 1
                    inq[j] = True
            elif tree[j] != side:
                a_mid = a0 if side == 1 else a0 ^ 1  # from the source tree to the sink tree
                break
            elif ts[j] <= ts[i] and dist[j] > dist[i]:
                parent[j] = a0 ^ 1
                ts[j] = ts[i]
                dist[j] = dist[i] + 1
        time_ += 1
        if a_mid < 0:
            cur = -1
            continue
        cur = i
        # augment along source -> ... -> tails[a_mid] -> heads[a_mid] -> ... -> sink
        b = cap[a_mid]
        k = tails[a_mid]
        while parent[k] != _BK_TERMINAL:
            b = min(b, cap[parent[k] ^ 1])
            k = heads[parent[k]]
        b = min(b, tr[k])
        k = heads[a_mid]
        while parent[k] != _BK_TERMINAL:
            b = min(b, cap[parent[k]])
            k = heads[parent[k]]
        b = min(b, -tr[k])
        cap[a_mid] -= b
        cap[a_mid ^ 1] += b
        no = 0
        k = tails[a_mid]
        while parent[k] != _BK_TERMINAL:
            pa = parent[k]
            cap[pa ^ 1] -= b
            cap[pa] += b
            nxt = heads[pa]
            if cap[pa ^ 1] == 0:
                parent[k] = _BK_ORPHAN
                orphans[no] = k
                no += 1
            k = nxt
        tr[k] -= b
        if tr[k] == 0:
            parent[k] = _BK_ORPHAN
            orphans[no] = k
            no += 1
        k = heads[a_mid]
        while parent[k] != _BK_TERMINAL:
            pa = parent[k]
            cap[pa] -= b
            cap[pa ^ 1] += b
            nxt = heads[pa]
            if cap[pa] == 0:
                parent[k] = _BK_ORPHAN
                orphans[no] = k
                no += 1
            k = nxt
        tr[k] += b
        if tr[k] == 0:
            parent[k] = _BK_ORPHAN
            orphans[no] = k
            no += 1
        flow += b
        # adoption (orphans are processed last-in first-out; each is pushed once
        # per detachment, and a node is an orphan at most once at a time)
        while no > 0:
            no -= 1
            o = orphans[no]
            side = tree[o]
            d_min = 1 << 60
            a_min = -1
            for t in range(off[o], off[o + 1]):
                a0 = adj[t]
                ok = cap[a0 ^ 1] > 0 if side == 1 else cap[a0] > 0
                if not ok:
                    continue
                j = heads[a0]
                if tree[j] != side or parent[j] == _BK_NONE:
                    continue
                # distance of j to its terminal, if j still has one
                d = 0
                k = j
                while True:
                    if ts[k] == time_:
                        d += dist[k]
                        break
                    pa = parent[k]
                    d += 1
                    if pa == _BK_TERMINAL:
                        ts[k] = time_
                        dist[k] = 1
                        break
                    if pa == _BK_ORPHAN:
                        d = 1 << 60
                        break
                    k = heads[pa]
                if d < (1 << 60):
                    if d < d_min:
                        a_min = a0
                        d_min = d
                    k = j
                    while ts[k] != time_:
                        ts[k] = time_
                        dist[k] = d
                        d -= 1
                        k = heads[parent[k]]
            if a_min >= 0:
                parent[o] = a_min
                ts[o] = time_
                dist[o] = d_min + 1
                continue
            # no new parent: free the node; its children become orphans and the
            # neighbours of its tree that could reach it become active
            for t in range(off[o], off[o + 1]):
                a0 = adj[t]
                j = heads[a0]
                if tree[j] != side or parent[j] == _BK_NONE:
                    continue
                ok = cap[a0 ^ 1] > 0 if side == 1 else cap[a0] > 0
                if ok and not inq[j]:
                    queue[(qh + qn) % (n + 1)] = j
                    qn += 1
                    inq[j] = True
                pj = parent[j]
                if pj != _BK_TERMINAL and pj != _BK_ORPHAN and heads[pj] == o:
                    parent[j] = _BK_ORPHAN
                    orphans[no] = j
                    no += 1
            tree[o] = 0
            parent[o] = _BK_NONE
            if cur == o:
                cur = -1
    in_s = np.zeros(n, np.bool_)
    for j in range(n):
        in_s[j] = tree[j] == 1
    return flow, in_s

