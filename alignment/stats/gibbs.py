"""Collapsed Gibbs sampling of Bayesian IBM-1, HMM and fertility alignment models (numba).

The kernels behind :class:`alignment.aligners.bayes.BayesianAligner`, written from the
description in Östling & Tiedemann, *Efficient Word Alignment with Markov Chain Monte
Carlo* (PBML 106, 2016) (no code of eflomal was read or used).

One *direction* aligns every token ``f_j`` of the "aligned" side (length ``n``) to a
position ``a_j`` of the "generating" side (positions ``1..m``; ``0`` is the NULL word).
The corpus is flat and CSR-like (as in :mod:`alignment.data.corpus`): the generating
tokens of sentence ``s`` are ``e_ids[e_off[s]:e_off[s + 1]]``, the aligned ones
``f_ids[f_off[s]:f_off[s + 1]]``, and every (aligned token, generating position) cell has
a word-pair id ``pid[c_off[s] + j * (m + 1) + i]`` (``i = 0``: NULL), an index into the
lexical count table.

**The model** (the collapsed weight of an alignment ``a`` of the whole corpus):

* lexical: ``f ~ Cat(theta_e)``, ``theta_e ~ Dir(alpha_lex)`` for every generating word
  type ``e`` (NULL included);
* positions: ``a_j = 0`` (NULL) with probability ``p_null``; otherwise IBM-1 picks one of
  the ``m`` positions uniformly, and the HMM draws the *jump* ``a_j - a_prev`` from the
  last non-NULL position before ``j`` (``0`` at the start) from ``Cat(psi)``,
  ``psi ~ Dir(alpha_jump)`` over jump buckets ``-J..J`` (clipped);
* fertility (model 3): the number ``phi_i`` of tokens aligned to generating token ``i``
  (bucketed at ``max_fert``) ``~ Cat(xi_e)``, ``xi_e ~ Dir(alpha_fert)``.

Integrating the Dirichlets out, each factor of the conditional of ``a_j`` (all other
links fixed, counts ``c`` without ``j``'s contribution) is a predictive (Pólya urn)
probability, times any prior pseudo-counts ``r`` (zero in training; fitted counts when
new sentences are aligned with priors):

* lexical: ``(alpha_lex + r(e, f) + c(e, f)) / (V_f alpha_lex + r(e) + c(e))``;
* jumps (HMM), with ``d1 = i - prev``, ``d2 = a_next - i`` and ``next`` the first
  non-NULL token after ``j``: ``(1 - p_null) P(d1) P(d2 | d1)`` for ``i > 0`` and
  ``p_null P(a_next - prev)`` for NULL (without a ``next``, the ``d2`` factors drop), with
  ``P(d) = (alpha_jump + r(d) + c(d)) / (B alpha_jump + r + c)`` and ``P(d2 | d1)`` the
  same after adding ``d1`` to the counts;
* fertility: ``(alpha_fert + c'(e, phi + 1)) / (alpha_fert + c'(e, phi))`` where ``phi``
  is ``i``'s fertility without ``j`` and ``c'`` the fertility counts without token ``i``.

So the sampler's stationary distribution is exactly the normalised product of these
Dirichlet-multinomial terms (``tests/alignment/test_bayes_aligner.py`` checks it against
enumeration).  The random numbers come from a splitmix64 generator whose state is
explicit, so a seed fixes the samples whatever the threads.
"""

from __future__ import annotations

import numba
import numpy as np

from .._runtime import check_stop
from ._prefetch import prefetch_entries

__all__ = ["gibbs_direction", "ibm1_em", "cell_keys", "cell_offsets", "dense_pair_ids",
           "pair_totals", "alignment_links", "argmax_rows", "link_counts",
           "MODEL_IBM1", "MODEL_HMM", "MODEL_FERT"]

MODEL_IBM1, MODEL_HMM, MODEL_FERT = 1, 2, 3

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@numba.njit(cache=True, nogil=True)
def _uniform(state):
    """splitmix64: next double in [0, 1) (``state`` is a 1-element uint64 array)."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _INV53


@numba.njit(cache=True, nogil=True)
def cell_keys(e_ids, e_off, f_ids, f_off, n_f_types):
    """``(keys, c_off)``: the word-pair key ``e * n_f_types + f`` of every (aligned token,
    generating position) cell, NULL (``e = 0``) first in each token's row."""
    n_sent = len(e_off) - 1
    c_off = cell_offsets(e_off, f_off)
    keys = np.empty(c_off[n_sent], dtype=np.int64)
    for s in range(n_sent):
        e0, m = e_off[s], e_off[s + 1] - e_off[s]
        f0, n = f_off[s], f_off[s + 1] - f_off[s]
        c = c_off[s]
        for j in range(n):
            f = f_ids[f0 + j]
            keys[c] = f
            c += 1
            for i in range(m):
                keys[c] = np.int64(e_ids[e0 + i]) * n_f_types + f
                c += 1
    return keys, c_off


@numba.njit(cache=True, nogil=True)
def cell_offsets(e_off, f_off):
    """Where each sentence's cells start: sentence ``s`` has ``n_s (m_s + 1)`` cells, one
    per (aligned token, generating position or NULL)."""
    n_sent = len(e_off) - 1
    c_off = np.zeros(n_sent + 1, dtype=np.int64)
    for s in range(n_sent):
        c_off[s + 1] = c_off[s] + (f_off[s + 1] - f_off[s]) * (e_off[s + 1] - e_off[s] + 1)
    return c_off


@numba.njit(cache=True, nogil=True)
def _dense_cells(e_ids, e_off, f_ids, f_off, c_off, n_f_types, table, pid, mark):
    """With ``mark``: set ``table[key] = 1`` for the key of every cell (the keys of
    :func:`cell_keys`); else write ``pid[cell] = table[key]``."""
    for s in range(len(e_off) - 1):
        e0, m = e_off[s], e_off[s + 1] - e_off[s]
        f0, n = f_off[s], f_off[s + 1] - f_off[s]
        c = c_off[s]
        for j in range(n):
            f = f_ids[f0 + j]
            for i in range(m + 1):
                key = f if i == 0 else np.int64(e_ids[e0 + i - 1]) * n_f_types + f
                if mark:
                    table[key] = 1
                else:
                    pid[c] = table[key]
                c += 1


def dense_pair_ids(e_ids, e_off, f_ids, f_off, n_e_types, n_f_types):
    """``(uniq, pid, c_off)`` as ``np.unique(cell_keys(...)[0], return_inverse=True)``
    gives them, found with a table of all ``n_e_types x n_f_types`` possible keys instead
    of a sort, and without forming the keys (one int32 per possible key)."""
    c_off = cell_offsets(e_off, f_off)
    table = np.zeros(int(n_e_types) * int(n_f_types), dtype=np.int32)
    pid = np.empty(c_off[-1], dtype=np.int32)
    _dense_cells(e_ids, e_off, f_ids, f_off, c_off, np.int64(n_f_types), table, pid, True)
    uniq = np.flatnonzero(table)
    table[uniq] = np.arange(len(uniq), dtype=np.int32)
    _dense_cells(e_ids, e_off, f_ids, f_off, c_off, np.int64(n_f_types), table, pid, False)
    return uniq, pid, c_off


@numba.njit(cache=True, nogil=True)
def pair_totals(pid, marg, n_pairs):
    """``np.bincount(pid, weights=marg, minlength=n_pairs)``, added in the same order,
    without a float64 copy of ``marg``."""
    out = np.zeros(n_pairs, dtype=np.float64)
    for c in range(len(pid)):
        out[pid[c]] += marg[c]
    return out


@numba.njit(cache=True, nogil=True)
def alignment_links(a, ali_off, gen_off, ali_is_target):
    """The links of one direction's alignment ``a`` (one position per aligned token,
    0 = NULL) as ``(offsets, links)``: pair ``s``'s 0-based (source, target) links are
    ``links[offsets[s]:offsets[s + 1]]``, sorted.  ``ali_is_target``: the aligned tokens
    are the target side (the fwd direction)."""
    n_sent = len(ali_off) - 1
    offsets = np.zeros(n_sent + 1, dtype=np.int64)
    max_m = 0
    for s in range(n_sent):
        k = 0
        for p in range(ali_off[s], ali_off[s + 1]):
            if a[p] > 0:
                k += 1
        offsets[s + 1] = offsets[s] + k
        max_m = max(max_m, gen_off[s + 1] - gen_off[s])
    links = np.empty((offsets[n_sent], 2), dtype=np.int32)
    start = np.empty(max_m + 2, dtype=np.int64)
    for s in range(n_sent):
        a0, n = ali_off[s], ali_off[s + 1] - ali_off[s]
        o = offsets[s]
        if not ali_is_target:           # (p, a_p - 1): already sorted by p
            for p in range(n):
                if a[a0 + p] > 0:
                    links[o, 0], links[o, 1] = p, a[a0 + p] - 1
                    o += 1
            continue
        m = gen_off[s + 1] - gen_off[s]  # (a_p - 1, p): a counting sort by a_p
        start[:m + 2] = 0
        for p in range(n):
            start[a[a0 + p] + 1] += 1
        start[1] = o                     # (the NULL count, at start[1], is dropped)
        for i in range(2, m + 2):
            start[i] += start[i - 1]
        for p in range(n):
            i = a[a0 + p]
            if i > 0:
                links[start[i], 0], links[start[i], 1] = i - 1, p
                start[i] += 1
    return offsets, links


@numba.njit(cache=True, nogil=True, inline="always")
def _jb(d, max_jump):
    if d < -max_jump:
        d = -max_jump
    elif d > max_jump:
        d = max_jump
    return d + max_jump


@numba.njit(cache=True, nogil=True, inline="always")
def _fb(phi, n_fert):
    return phi if phi < n_fert else n_fert - 1


@numba.njit(cache=True, nogil=True)
def ibm1_em(e_ids, e_off, f_off, pid, c_off, n_e_types, lex_prior, p_null, n_iter):
    """Word-pair probabilities of IBM Model 1 after ``n_iter`` EM iterations (the
    sampler's start; ``lex_prior`` pseudo-counts added to the expected counts, and
    ``1e-3`` smoothing), one float per word-pair id."""
    n_pairs = len(lex_prior)
    t = np.ones(n_pairs, dtype=np.float64)
    cnt = np.empty(n_pairs, dtype=np.float64)
    tot = np.empty(n_e_types, dtype=np.float64)
    gen = np.empty(n_pairs, dtype=np.int64)
    max_m = 0
    for s in range(len(e_off) - 1):   # the generating word of every pair id
        e0, m = e_off[s], e_off[s + 1] - e_off[s]
        max_m = max(max_m, m)
        for j in range(f_off[s + 1] - f_off[s]):
            row = c_off[s] + j * (m + 1)
            gen[pid[row]] = 0
            for i in range(1, m + 1):
                gen[pid[row + i]] = e_ids[e0 + i - 1]
    buf = np.empty(max_m + 1, dtype=np.float64)
    for _ in range(n_iter):
        cnt[:] = lex_prior + 1e-3
        for s in range(len(e_off) - 1):
            m = e_off[s + 1] - e_off[s]
            k = (1.0 - p_null) / m if m > 0 else 0.0
            for j in range(f_off[s + 1] - f_off[s]):
                row = c_off[s] + j * (m + 1)
                # each cell's term p(a_j = i) t(f_j | e_i) once, kept for both loops
                buf[0] = p_null * t[pid[row]]
                z = buf[0]
                for i in range(1, m + 1):
                    buf[i] = k * t[pid[row + i]]
                    z += buf[i]
                for i in range(m + 1):
                    cnt[pid[row + i]] += buf[i] / z
        tot[:] = 0.0
        for c in range(n_pairs):
            tot[gen[c]] += cnt[c]
        for c in range(n_pairs):
            t[c] = cnt[c] / tot[gen[c]]
    return t


@numba.njit(cache=True, nogil=True)
def _init_state(e_ids, e_off, f_off, pid, c_off, a, fert, lex_c, e_c, jump_c, fert_c,
                t_init, p_null, max_jump, n_fert, probs, state, inv_den, jump_w, den0):
    """The initial alignment ``a``, each link drawn from IBM-1's posterior under the
    word-pair probabilities ``t_init`` (EM's, :func:`ibm1_em`; a uniformly random start
    creates word-pair counts that the sparse lexical prior then keeps for many sweeps),
    and every count it implies."""
    for s in range(len(e_off) - 1):
        e0, m = e_off[s], e_off[s + 1] - e_off[s]
        for i in range(m):
            fert_c[e_ids[e0 + i], 0] += 1
    for s in range(len(e_off) - 1):
        e0, m = e_off[s], e_off[s + 1] - e_off[s]
        f0, n = f_off[s], f_off[s + 1] - f_off[s]
        prev = 0
        for j in range(n):
            row = c_off[s] + j * (m + 1)
            probs[0] = p_null * t_init[pid[row]]
            z = probs[0]
            for i in range(1, m + 1):
                probs[i] = (1.0 - p_null) / m * t_init[pid[row + i]]
                z += probs[i]
            i = _draw(probs, m, z, state)
            a[f0 + j] = i
            _move(i, 1, prev, -1, row, e0, e_ids, pid, fert, lex_c, e_c, jump_c, fert_c,
                  max_jump, n_fert, inv_den, jump_w, den0)
            if i > 0:
                prev = i


@numba.njit(cache=True, nogil=True, inline="always")
def _neighbours(a, f0, n, j):
    """``(prev, next)``: the positions of the last non-NULL link before token ``j`` (0 if
    none) and of the first after it (-1 if none)."""
    prev = 0
    for jj in range(j - 1, -1, -1):
        if a[f0 + jj] != 0:
            prev = a[f0 + jj]
            break
    nxt = -1
    for jj in range(j + 1, n):
        if a[f0 + jj] != 0:
            nxt = a[f0 + jj]
            break
    return prev, nxt


@numba.njit(cache=True, nogil=True, inline="always")
def _move(i, sign, prev, nxt, row, e0, e_ids, pid, fert, lex_c, e_c, jump_c, fert_c,
          max_jump, n_fert, inv_den, jump_w, den0):
    """Add (``sign = 1``) or remove (``-1``) the link ``a_j = i`` from the counts: its
    lexical pair, its generating word's fertility, the jump into it and the jump from it
    into the next link (for NULL: the jump from ``prev`` into the next link).  Returns the
    change of the number of jumps.  Keeps the sampler's derived arrays current:
    ``inv_den[e] = 1 / (den0[e] + c(e))`` (``den0[e] = V_f alpha_lex + r(e)``) and
    ``jump_w[b] = alpha_jump + r(b) + c(b)``, so that :func:`_conditional` needs no
    division per cell."""
    lex_c[pid[row + i]] += sign
    dj = 0
    if i == 0:
        e_c[0] += sign
        inv_den[0] = 1.0 / (den0[0] + e_c[0])
        if nxt >= 0:
            b = _jb(nxt - prev, max_jump)
            jump_c[b] += sign
            jump_w[b] += sign
            dj = sign
        return dj
    e = e_ids[e0 + i - 1]
    e_c[e] += sign
    inv_den[e] = 1.0 / (den0[e] + e_c[e])
    phi = fert[e0 + i - 1]
    fert_c[e, _fb(phi, n_fert)] -= 1
    fert_c[e, _fb(phi + sign, n_fert)] += 1
    fert[e0 + i - 1] = phi + sign
    b = _jb(i - prev, max_jump)
    jump_c[b] += sign
    jump_w[b] += sign
    dj = sign
    if nxt >= 0:
        b = _jb(nxt - i, max_jump)
        jump_c[b] += sign
        jump_w[b] += sign
        dj += sign
    return dj


@numba.njit(cache=True, nogil=True, inline="always")
def _conditional(model, m, row, e0, prev, nxt, e_ids, pid, fert, lex_c, inv_den, jump_w,
                 fert_c, n_jumps, lex_prior, jump_pr_tot, fert_prior,
                 alpha_lex, alpha_jump, alpha_fert, p_null, n_jb, max_jump, n_fert,
                 probs, use_prior):
    """Fill probs[0..m] with the conditional of a_j up to a constant factor; return the sum.

    inv_den[e] = 1 / (V_f alpha_lex + r(e) + c(e)) and jump_w[b] = alpha_jump + r(b) + c(b)
    are kept current by _move, so the inner loop has no division but the fertility one."""
    jden = alpha_jump * n_jb + jump_pr_tot + n_jumps
    c0 = pid[row]
    pn = p_null * (alpha_lex + (lex_prior[c0] if use_prior else 0.0) + lex_c[c0]) * inv_den[0]
    z = 0.0
    if model == 1:
        # every non-NULL term carries (1 - p_null) / m: divide the NULL term by it instead
        pn *= m / (1.0 - p_null)
        for i in range(1, m + 1):
            c = pid[row + i]
            p = (alpha_lex + (lex_prior[c] if use_prior else 0.0) + lex_c[c]) * inv_den[e_ids[e0 + i - 1]]
            probs[i] = p
            z += p
    else:
        # non-NULL terms: (1 - p_null) / jden [/ (jden + 1)] factored out onto the NULL term
        if nxt >= 0:
            pn *= jump_w[_jb(nxt - prev, max_jump)] * (jden + 1.0) / (1.0 - p_null)
        else:
            pn *= jden / (1.0 - p_null)
        for i in range(1, m + 1):
            e = e_ids[e0 + i - 1]
            c = pid[row + i]
            b1 = _jb(i - prev, max_jump)
            p = (alpha_lex + (lex_prior[c] if use_prior else 0.0) + lex_c[c]) * inv_den[e] * jump_w[b1]
            if nxt >= 0:
                b2 = _jb(nxt - i, max_jump)
                p *= jump_w[b2] + (1.0 if b2 == b1 else 0.0)
            if model == 3:
                phi = fert[e0 + i - 1]
                bo, bn = _fb(phi, n_fert), _fb(phi + 1, n_fert)
                if bn != bo:
                    p *= (alpha_fert + (fert_prior[e, bn] if use_prior else 0.0) + fert_c[e, bn]) / (
                        alpha_fert + (fert_prior[e, bo] if use_prior else 0.0) + fert_c[e, bo]
                        - 1.0)
            probs[i] = p
            z += p
    probs[0] = pn
    return z + pn


@numba.njit(cache=True, nogil=True, inline="always")
def _draw(probs, m, z, state):
    u = _uniform(state) * z
    acc = 0.0
    for i in range(m + 1):
        acc += probs[i]
        if u < acc:
            return i
    return m


@numba.njit(cache=True, nogil=True)
def _setup(e_ids, e_off, f_ids, f_off, pid, c_off, n_e_types, n_f_types, lex_prior,
           e_prior, jump_prior, alpha_lex, alpha_jump, p_null, max_jump, n_fert, seed,
           t_init, use_prior):
    """The sampler's state after its initial alignment (:func:`_init_state`): the random
    state, the counts and the derived arrays that :func:`_sweep` updates."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed)
    n_sent = len(e_off) - 1
    lex_c = np.zeros(len(lex_prior), dtype=np.int32)
    e_c = np.zeros(n_e_types, dtype=np.int32)
    jump_c = np.zeros(2 * max_jump + 1, dtype=np.int32)
    fert_c = np.zeros((n_e_types, n_fert), dtype=np.int32)
    fert = np.zeros(len(e_ids), dtype=np.int32)
    a = np.zeros(len(f_ids), dtype=np.int32)
    max_m = 0
    for s in range(n_sent):
        max_m = max(max_m, e_off[s + 1] - e_off[s])
    probs = np.empty(max_m + 1, dtype=np.float64)
    den0 = np.empty(n_e_types, dtype=np.float64)
    for e in range(n_e_types):
        den0[e] = alpha_lex * n_f_types + (e_prior[e] if use_prior else 0.0)
    inv_den = 1.0 / den0
    jump_w = np.empty(2 * max_jump + 1, dtype=np.float64)
    for b in range(2 * max_jump + 1):
        jump_w[b] = alpha_jump + (jump_prior[b] if use_prior else 0.0)
    _init_state(e_ids, e_off, f_off, pid, c_off, a, fert, lex_c, e_c, jump_c, fert_c,
                t_init, p_null, max_jump, n_fert, probs, state, inv_den, jump_w, den0)
    return state, lex_c, e_c, jump_c, fert_c, fert, a, probs, den0, inv_den, jump_w


@numba.njit(cache=True, nogil=True)
def _sweep(model, collect, n_collect, n_jumps, e_ids, e_off, f_off, pid, c_off, lex_prior,
           jump_pr_tot, fert_prior, alpha_lex, alpha_jump, alpha_fert, p_null, max_jump,
           n_fert, marg, use_prior, state, lex_c, e_c, jump_c, fert_c, fert, a, probs, den0,
           inv_den, jump_w):
    """One Gibbs sweep of ``model`` over every aligned token (adding the conditionals to
    ``marg`` when ``collect``); returns the new number of jumps."""
    n_jb = 2 * max_jump + 1
    n_sent = len(e_off) - 1
    for s in range(n_sent):
        e0, m = e_off[s], e_off[s + 1] - e_off[s]
        f0, n = f_off[s], f_off[s + 1] - f_off[s]
        for j in range(n):
            row = c_off[s] + j * (m + 1)
            # the next token's lexical counts, fetched while this one is sampled (the
            # sweep is bound by these scattered loads)
            if j + 1 < n:
                prefetch_entries(lex_c, pid, row + m + 1, row + 2 * (m + 1))
            elif s + 1 < n_sent:
                prefetch_entries(lex_c, pid, c_off[s + 1],
                                 c_off[s + 1] + e_off[s + 2] - e_off[s + 1] + 1)
            prev, nxt = _neighbours(a, f0, n, j)
            n_jumps += _move(a[f0 + j], -1, prev, nxt, row, e0, e_ids, pid, fert,
                             lex_c, e_c, jump_c, fert_c, max_jump, n_fert, inv_den,
                             jump_w, den0)
            z = _conditional(model, m, row, e0, prev, nxt, e_ids, pid, fert, lex_c,
                             inv_den, jump_w, fert_c, n_jumps, lex_prior,
                             jump_pr_tot, fert_prior, alpha_lex,
                             alpha_jump, alpha_fert, p_null, n_jb, max_jump,
                             n_fert, probs, use_prior)
            if collect:
                w = 1.0 / (z * n_collect)
                for i in range(m + 1):
                    marg[row + i] += probs[i] * w
            new = _draw(probs, m, z, state)
            a[f0 + j] = new
            n_jumps += _move(new, 1, prev, nxt, row, e0, e_ids, pid, fert, lex_c,
                             e_c, jump_c, fert_c, max_jump, n_fert, inv_den, jump_w,
                             den0)
    return n_jumps


def gibbs_direction(e_ids, e_off, f_ids, f_off, pid, c_off, n_e_types, n_f_types,
                    lex_prior, e_prior, jump_prior, fert_prior, alpha_lex, alpha_jump,
                    alpha_fert, p_null, max_jump, n_fert, schedule, n_collect, seed, marg,
                    t_init, use_prior=True, stop=None):
    """Run one sampler of one direction and add its link marginals to ``marg``.

    ``schedule`` = iterations ``(ibm1, hmm, fert)``; the last ``n_collect`` sweeps of the
    last model with iterations add the conditional distributions of every ``a_j``
    (Rao-Blackwellised marginals), divided by ``n_collect``, to ``marg`` (one float per
    cell).  ``lex_prior`` (per pair id), ``e_prior`` (per generating type), ``jump_prior``
    (``2 max_jump + 1``) and ``fert_prior`` (``n_e_types x n_fert``) are pseudo-counts.
    ``t_init`` (word-pair probabilities, :func:`ibm1_em`) gives the initial alignment.
    ``use_prior=False`` says that every pseudo-count is zero (training): the prior arrays
    are then not read, with the same result, a third faster.

    Each sweep is one compiled call (:func:`_sweep`), so a signal is handled between
    sweeps (Ctrl-C in the main thread), and ``stop`` (a :class:`threading.Event`, for a
    sampler in a thread) is checked there: :class:`alignment._runtime.Cancelled` when set.
    Returns the final alignment (one position per aligned token, 0 = NULL).
    """
    max_jump, n_fert = int(max_jump), int(n_fert)
    st = _setup(e_ids, e_off, f_ids, f_off, pid, c_off, n_e_types, n_f_types, lex_prior,
                e_prior, jump_prior, alpha_lex, alpha_jump, p_null, max_jump, n_fert, seed,
                t_init, use_prior)
    n_jumps = int(st[3].sum())
    jump_pr_tot = float(jump_prior.sum()) if use_prior else 0.0
    sched = [int(x) for x in schedule]
    total = sum(sched)
    last_model = 3 if sched[2] > 0 else (2 if sched[1] > 0 else 1)
    it = 0
    for model in range(1, 4):
        for _ in range(sched[model - 1]):
            check_stop(stop)
            it += 1
            collect = model == last_model and it > total - n_collect
            n_jumps = _sweep(model, collect, n_collect, n_jumps, e_ids, e_off, f_off, pid,
                             c_off, lex_prior, jump_pr_tot, fert_prior, alpha_lex,
                             alpha_jump, alpha_fert, p_null, max_jump, n_fert, marg,
                             use_prior, *st)
    return st[6]


@numba.njit(cache=True, nogil=True)
def argmax_rows(marg, e_off, f_off, c_off):
    """The most probable position (0 = NULL) of every aligned token under ``marg``."""
    n_sent = len(e_off) - 1
    a = np.zeros(f_off[n_sent], dtype=np.int32)
    for s in range(n_sent):
        m = e_off[s + 1] - e_off[s]
        for j in range(f_off[s + 1] - f_off[s]):
            row = c_off[s] + j * (m + 1)
            best, bi = marg[row], 0
            for i in range(1, m + 1):
                if marg[row + i] > best:
                    best, bi = marg[row + i], i
            a[f_off[s] + j] = bi
    return a


@numba.njit(cache=True, nogil=True)
def link_counts(a, e_ids, e_off, f_off, n_e_types, max_jump, n_fert):
    """Jump counts (``2 max_jump + 1``) and fertility counts (``n_e_types x n_fert``) of
    one alignment ``a`` (as :func:`gibbs_direction` defines them)."""
    n_sent = len(e_off) - 1
    jump_c = np.zeros(2 * max_jump + 1, dtype=np.float64)
    fert_c = np.zeros((n_e_types, n_fert), dtype=np.float64)
    fert = np.zeros(len(e_ids), dtype=np.int64)
    for s in range(n_sent):
        prev = 0
        for j in range(f_off[s], f_off[s + 1]):
            i = a[j]
            if i > 0:
                jump_c[_jb(i - prev, max_jump)] += 1.0
                fert[e_off[s] + i - 1] += 1
                prev = i
        for t in range(e_off[s], e_off[s + 1]):
            fert_c[e_ids[t], _fb(fert[t], n_fert)] += 1.0
    return jump_c, fert_c

