r"""The HMM alignment model (Vogel et al. 1996; Och & Ney 2003) in both directions.

IBM Model 2 places each link independently; the HMM makes the position of link
``k`` depend on the position of link ``k - 1`` through a *jump* distribution, so
its posteriors prefer monotone runs of links.  As in :mod:`alignment.stats.ibm`, the
*generated* sentence is ``g_1..g_G`` and the *conditioning* one ``c_1..c_C``
(direction ``"fwd"``: French generated from English).

States.  Following Och & Ney (2003, sec. 3.2) the hidden state of position ``k``
is a real position ``i`` in ``1..C`` or one of ``C`` NULL states ``C + r``, where
the NULL state remembers the last real position ``r`` (so that the next jump is
measured from it).  Transitions from a state whose remembered position is ``r``:

.. math::
    p(i \mid r) = (1 - p_0)\, \frac{w_{d(i - r)}}{\sum_{i'=1}^{C} w_{d(i' - r)}},
    \qquad p(\text{NULL}_r \mid r) = p_0,

with ``d`` the jump clipped to ``-D..D`` (the buckets of :mod:`alignment.stats.ibm`);
the first position jumps from ``r = 0`` (before the sentence).  Emissions are
:math:`t(g_k \mid c_i)` for real states and :math:`t(g_k \mid \text{NULL})` for
NULL states.  The backward variables depend only on the remembered position,
which makes forward-backward ``O(G C^2)`` per sentence.

EM.  The E-step accumulates the link posteriors :math:`\gamma_k(i)` into the
translation counts (as for Model 2), the expected jumps per bucket and the
expected number of NULL transitions; the M-step renormalises ``t``, fits the
jump weights :math:`w_d` by GIS to the expected jump counts with the per-``r``
normalisation (the exact M-step of this log-linear jump model; counts
proportional to :math:`w_d` alone, as in GIZA++, made the likelihood fall after
two iterations on the Hansards) and sets :math:`p_0` to the share of NULL
transitions.  Training starts from the
Model 2 translation tables of :class:`~alignment.stats.statistics.AlignmentStatistics`
(pruned pairs have probability ``floor`` and are not re-estimated).

Training by agreement (``train_hmm(..., agreement=True)``; Liang, Taskar & Klein
2006): the two directions are trained jointly, and in each E-step the link counts
of both translation tables are the product of the two directions' link posteriors
(their approximate E-step), so each direction is pulled toward links the other one
also predicts; jump and NULL-transition counts stay each direction's own.  This
is a heuristic EM (the likelihood of each direction is not monotone); on the
Hansards (bundled bitext, 5 iterations) the links of the two directions differ on
547 instead of 2,765 links of the 247 test sentences (posterior decoding at 1/2).

Posterior decoding (Liang et al. 2006) links ``(j, k)`` when the posterior of
the link is at least ``threshold`` (1/2 by default) in the direction asked for.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numba
import numpy as np
from tqdm.auto import tqdm

from structpred import FormatError, check_n_jobs

from structpred.io import counted, damage_reason, load_npz, note, pack_json, save_npz, unpack_json

from .._cache import bitext_key, fit_options

from .._runtime import (add_parts, check_stop, chunk_ranges, progress_enabled, run_parts,
                        run_threads)
from ..data.corpus import EncodedCorpus
from .hmm_posterior import _jump_index, _jump_matrix, hmm_forward, hmm_posteriors
from .ibm import m_step
from .ibm import pair_index as _pair_index

__all__ = ["HMMTables", "train_hmm", "train_hmm_files", "hmm_posteriors", "hmm_forward_backward",
           "hmm_key"]

FORMAT_NAME = "structpred-hmm-tables"
FORMAT_VERSION = 1


@numba.njit(cache=True, nogil=True)
def hmm_forward_backward(E, e_null, J, p0):
    """Posteriors of one sentence pair under the HMM.

    Parameters
    ----------
    E : ndarray, shape (G, C)
        Emission probabilities :math:`t(g_k \\mid c_i)` of the real states.
    e_null : ndarray, shape (G,)
        :math:`t(g_k \\mid \\text{NULL})`.
    J : ndarray, shape (C + 1, C)
        From :func:`_jump_matrix` (rows: remembered position 0..C).
    p0 : float

    Returns
    -------
    gamma : ndarray, shape (G, C)
        :math:`P(a_k = i \\mid g, c)`.
    gamma_null : ndarray, shape (G,)
        :math:`P(a_k = \\text{NULL} \\mid g, c)`; rows of ``gamma`` plus it sum to 1.
    jumps : ndarray, shape (C + 1, C)
        Expected number of real transitions ``r -> i`` (r = 0: the first position).
    n_null : float
        Expected number of NULL transitions.
    ll : float
        Log-likelihood of the generated sentence.
    """
    G, C = E.shape
    a_real, a_null, scale = hmm_forward(E, e_null, J, p0)
    A = np.empty(C + 1)
    # backward: B[r] depends only on the remembered position r; the sums over i of the
    # C + 1 positions r are taken side by side (each in the order of i, as one at a time
    # would: the same floating-point numbers), with J and the jump counts transposed
    JT = np.ascontiguousarray(J.T)
    B = np.ones(C + 1)
    gamma = np.zeros((G, C))
    gamma_null = np.zeros(G)
    jumps_t = np.zeros((C, C + 1))
    n_null = 0.0
    Bn = np.empty(C + 1)
    for k in range(G - 1, -1, -1):
        # posteriors at k: alpha_k * beta_k (beta_k of a real state i is B[i + 1])
        gn = 0.0
        for i in range(C):
            gamma[k, i] = a_real[k, i] * B[i + 1]
        for r in range(C + 1):
            gn += a_null[k, r] * B[r]
        gamma_null[k] = gn
        # A_{k-1}: mass by remembered position before k
        if k > 0:
            for r in range(C + 1):
                A[r] = a_null[k - 1, r]
            for i in range(C):
                A[i + 1] += a_real[k - 1, i]
        else:
            A[:] = 0.0
            A[0] = 1.0
        inv = 1.0 / scale[k]
        # expected transitions into position k, and beta_{k-1}
        Bn[:] = 0.0
        for i in range(C):
            e, b = E[k, i], B[i + 1]
            for r in range(C + 1):
                t = JT[i, r] * e * b * inv
                Bn[r] += t
                jumps_t[i, r] += A[r] * t
        for r in range(C + 1):
            tn = p0 * e_null[k] * B[r] * inv
            n_null += A[r] * tn
            Bn[r] += tn
        for r in range(C + 1):
            B[r] = Bn[r]
    ll = 0.0
    for k in range(G):
        ll += math.log(scale[k])
    return gamma, gamma_null, np.ascontiguousarray(jumps_t.T), n_null, ll


@numba.njit(cache=True, nogil=True)
def _e_step(gen_ids, gen_off, cond_off, pidx, pair_off, transposed, t, t_null, w, p0,
            max_jump, floor, counts, null_counts, jump_obs, ctx):
    """One HMM E-step over the corpus (see the module docstring); accumulates in place.

    ``ctx[C, r]`` collects the expected number of real transitions out of
    remembered position ``r`` in sentences with ``C`` conditioning words (for
    the jump M-step, :func:`_jump_gis`).

    Returns ``(log-likelihood, expected NULL transitions, expected transitions)``.
    """
    n_sent = len(gen_off) - 1
    ll = 0.0
    n_null = 0.0
    n_trans = 0.0
    for s in range(n_sent):
        g0 = gen_off[s]
        G = gen_off[s + 1] - g0
        C = cond_off[s + 1] - cond_off[s]
        if G == 0 or C == 0:
            continue
        base = pair_off[s]
        E, en = _pair_emissions(gen_ids, g0, G, C, pidx, base, transposed, t, t_null, floor)
        J = _jump_matrix(C, w, p0, max_jump)
        gamma, gnull, jumps, nn, lls = hmm_forward_backward(E, en, J, p0)
        ll += lls
        n_null += nn
        n_trans += G
        for g in range(G):
            null_counts[gen_ids[g0 + g]] += gnull[g]
            for c in range(C):
                p = pidx[base + g * C + c] if transposed else pidx[base + c * G + g]
                if p >= 0:
                    counts[p] += gamma[g, c]
        _add_jumps(jumps, C, max_jump, jump_obs, ctx)
    return ll, n_null, n_trans


@numba.njit(cache=True, nogil=True)
def _pair_emissions(gen_ids, g0, G, C, pidx, base, transposed, t, t_null, floor):
    """Emissions ``E[g, c] = t(g | c)`` and ``t(g | NULL)`` of one sentence pair, read
    through its table indices (``pidx`` laid out ``[j * n + k]``, English ``j``;
    ``transposed`` when the generated side is English); at least ``floor``."""
    E = np.empty((G, C))
    en = np.empty(G)
    for g in range(G):
        en[g] = max(t_null[gen_ids[g0 + g]], floor)
        for c in range(C):
            p = pidx[base + g * C + c] if transposed else pidx[base + c * G + g]
            E[g, c] = max(t[p], floor) if p >= 0 else floor
    return E, en


@numba.njit(cache=True, nogil=True)
def _add_jumps(jumps, C, max_jump, jump_obs, ctx):
    """Add a sentence's expected transitions ``jumps[r, i]`` to the jump counts and
    to the transitions out of each remembered position (``ctx[C, r]``)."""
    for r in range(C + 1):
        for i in range(C):
            jump_obs[_jump_index(i + 1 - r, max_jump)] += jumps[r, i]
            ctx[C, r] += jumps[r, i]


@numba.njit(cache=True, nogil=True)
def _e_step_agree(src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off, t_f, t_b, tn_f, tn_b,
                  w_f, w_b, p0_f, p0_b, max_jump, floor, counts, null_f, null_b,
                  jump_f, jump_b, ctx_f, ctx_b):
    """Joint E-step of the two directions trained by agreement (Liang et al. 2006).

    Each direction runs its own forward-backward; the link counts of both
    translation tables are the product of the two directions' link posteriors,
    ``q_jk = P_fwd(a_k = j) P_bwd(b_j = k)``, so both tables share one count array
    ``counts`` (the two tables live on the same entries); a word's NULL count is what
    its links leave (``1 - sum q``).  The jump and NULL-transition counts stay each
    direction's own.  Returns ``(ll_f, ll_b, null_trans_f, null_trans_b, n_f, n_b)``.
    """
    n_sent = len(src_off) - 1
    ll_f = ll_b = nn_f = nn_b = ntr_f = ntr_b = 0.0
    for s in range(n_sent):
        e0, f0 = src_off[s], tgt_off[s]
        m = src_off[s + 1] - e0
        n = tgt_off[s + 1] - f0
        if m == 0 or n == 0:
            continue
        base = pair_off[s]
        Ef, enf = _pair_emissions(tgt_ids, f0, n, m, pidx, base, False, t_f, tn_f, floor)
        Eb, enb = _pair_emissions(src_ids, e0, m, n, pidx, base, True, t_b, tn_b, floor)
        gf, _, jf, a, lf = hmm_forward_backward(Ef, enf, _jump_matrix(m, w_f, p0_f, max_jump), p0_f)
        gb, _, jb, b, lb = hmm_forward_backward(Eb, enb, _jump_matrix(n, w_b, p0_b, max_jump), p0_b)
        ll_f += lf
        ll_b += lb
        nn_f += a
        nn_b += b
        ntr_f += n
        ntr_b += m
        rowq = np.zeros(m)
        for k in range(n):
            colq = 0.0
            for j in range(m):
                q = gf[k, j] * gb[j, k]
                colq += q
                rowq[j] += q
                p = pidx[base + j * n + k]
                if p >= 0:
                    counts[p] += q
            null_f[tgt_ids[f0 + k]] += max(1.0 - colq, 0.0)
        for j in range(m):
            null_b[src_ids[e0 + j]] += max(1.0 - rowq[j], 0.0)
        _add_jumps(jf, m, max_jump, jump_f, ctx_f)
        _add_jumps(jb, n, max_jump, jump_b, ctx_b)
    return ll_f, ll_b, nn_f, nn_b, ntr_f, ntr_b


@numba.njit(cache=True, nogil=True)
def _jump_gis(w, obs, ctx, max_jump, n_gis):
    """Jump M-step: maximise ``sum_d obs_d log w_d - sum_{C,r} ctx[C,r] log Z(C,r)``
    with ``Z(C, r) = sum_i w_{d(i - r)}`` by ``n_gis`` GIS steps (each jump has one
    bucket feature, so the step ``w_d *= obs_d / expected_d`` is exact GIS; as
    for Model 2's buckets in :mod:`alignment.stats.ibm`)."""
    nb = 2 * max_jump + 1
    w = w.copy()
    exp = np.zeros(nb)
    for _ in range(n_gis):
        exp[:] = 0.0
        for C in range(1, ctx.shape[0]):
            for r in range(C + 1):
                mass = ctx[C, r]
                if mass <= 0.0:
                    continue
                z = 0.0
                for i in range(C):
                    z += w[_jump_index(i + 1 - r, max_jump)]
                f = mass / z
                for i in range(C):
                    b = _jump_index(i + 1 - r, max_jump)
                    exp[b] += w[b] * f
        tot = 0.0
        for b in range(nb):
            if exp[b] > 0.0:
                w[b] *= obs[b] / exp[b]
            tot += w[b]
        for b in range(nb):
            w[b] /= tot
    return w


@dataclass
class HMMTables:
    """HMM parameters of both directions on the translation-table pattern of an
    :class:`~alignment.stats.statistics.AlignmentStatistics` (same vocabularies).

    Attributes
    ----------
    t_fwd, t_bwd : ndarray of float32
        :math:`t(f \\mid e)`, :math:`t(e \\mid f)` over the entries of ``stats.t_cols``.
    t_null_fwd, t_null_bwd : ndarray of float32
    jump_fwd, jump_bwd : ndarray of float64, shape (2 * max_jump + 1,)
        Jump weights ``w_d`` (sum 1).
    p0_fwd, p0_bwd : float
    max_jump : int
    floor : float
    history : dict
        Corpus log-likelihood per EM iteration (``"fwd"``, ``"bwd"``).
    seconds : float
        Training wall time.
    cache_key : dict or None
        What the tables were trained from (:func:`hmm_key`), when known.
    """

    t_fwd: np.ndarray
    t_bwd: np.ndarray
    t_null_fwd: np.ndarray
    t_null_bwd: np.ndarray
    jump_fwd: np.ndarray
    jump_bwd: np.ndarray
    p0_fwd: float
    p0_bwd: float
    max_jump: int
    floor: float
    history: dict = field(default_factory=dict)
    seconds: float = 0.0
    cache_key: dict = None

    def posteriors(self, stats, src_tokens, tgt_tokens):
        """Link posteriors of one sentence pair in both directions.

        Returns ``(post_fwd, post_bwd)``, each of shape ``(m, n)``: ``post_fwd[j, k]``
        is :math:`P(a_k = j)` of :math:`p(f \\mid e)` and ``post_bwd[j, k]`` is
        :math:`P(b_j = k)` of :math:`p(e \\mid f)`.
        """
        e, f = stats.encode(src_tokens, tgt_tokens)
        return hmm_posteriors(np.asarray(e, np.int32), np.asarray(f, np.int32),
                              stats.t_row_ptr, stats.t_cols, self.t_fwd, self.t_bwd,
                              self.t_null_fwd, self.t_null_bwd, self.jump_fwd, self.jump_bwd,
                              self.p0_fwd, self.p0_bwd, self.max_jump, self.floor)

    def links(self, stats, src_tokens, tgt_tokens, threshold=0.5):
        """Posterior-decoded links ``(fwd, bwd)``: sets of 0-based ``(j, k)`` whose
        posterior in that direction is at least ``threshold``."""
        pf, pb = self.posteriors(stats, src_tokens, tgt_tokens)
        return ({(int(j), int(k)) for j, k in zip(*np.nonzero(pf >= threshold))},
                {(int(j), int(k)) for j, k in zip(*np.nonzero(pb >= threshold))})

    # ------------------------------------------------------------------ persistence
    _ARRAYS = ("t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd", "jump_fwd", "jump_bwd")

    def to_arrays(self, prefix=""):
        """Plain arrays for ``np.savez`` (names prefixed with ``prefix``)."""
        out = {prefix + k: np.asarray(getattr(self, k)) for k in self._ARRAYS}
        out[prefix + "scalars"] = np.array([self.p0_fwd, self.p0_bwd, self.max_jump, self.floor])
        if self.cache_key is not None:
            out[prefix + "provenance"] = pack_json(self.cache_key)
        return out

    @classmethod
    def from_arrays(cls, a, prefix="", path="<arrays>"):
        """Inverse of :meth:`to_arrays`; missing or inconsistent arrays are a
        :class:`~structpred.FormatError` on ``path``."""
        try:
            p0f, p0b, mj, floor = np.asarray(a[prefix + "scalars"], dtype=np.float64)
            out = cls(*(np.asarray(a[prefix + k]) for k in cls._ARRAYS), float(p0f), float(p0b),
                      int(mj), float(floor))
        except Exception as exc:  # noqa: BLE001 - any inconsistency is a damaged file
            raise FormatError(path, None, f"corrupt HMM tables ({damage_reason(exc)})") from None
        if not (len(out.t_fwd) == len(out.t_bwd) and len(out.jump_fwd) == len(out.jump_bwd)
                == 2 * out.max_jump + 1):
            raise FormatError(path, None, "corrupt HMM tables (inconsistent sizes)")
        if prefix + "provenance" in a:
            out.cache_key = unpack_json(a[prefix + "provenance"], path, "HMM tables")
            if not isinstance(out.cache_key, (dict, type(None))):
                raise FormatError(path, None, "corrupt HMM tables (bad provenance)")
        return out

    def save(self, path):
        """Write the tables to ``path`` (``.npz``, atomically, with format and version)."""
        save_npz(path, self.to_arrays(), {"format": FORMAT_NAME, "version": FORMAT_VERSION})

    @classmethod
    def load(cls, path):
        """Read a file written by :meth:`save` (never unpickling); a file that is not one
        is a :class:`~structpred.FormatError`."""
        _, a = load_npz(path, FORMAT_NAME, (FORMAT_VERSION,), "HMM tables")
        return cls.from_arrays(a, "", path)


class _Direction:
    """Parameters and EM bookkeeping of one direction (``"fwd"``: French generated
    from English), starting from the Model 2 tables of ``stats``."""

    def __init__(self, corpus, stats, direction, p0):
        self.direction = direction
        self.max_jump = stats.max_jump
        if direction == "fwd":
            self.gen_ids, self.gen_off, self.cond_off = (corpus.tgt_ids, corpus.tgt_offsets,
                                                         corpus.src_offsets)
            self.t = stats.t_fwd.astype(np.float64)
            self.t_null = stats.t_null_fwd.astype(np.float64)
            self.group = np.repeat(np.arange(len(stats.t_row_ptr) - 1, dtype=np.int32),
                                   np.diff(stats.t_row_ptr))
            self.n_groups = len(stats.t_row_ptr) - 1
            self.transposed = False
        else:
            self.gen_ids, self.gen_off, self.cond_off = (corpus.src_ids, corpus.src_offsets,
                                                         corpus.tgt_offsets)
            self.t = stats.t_bwd.astype(np.float64)
            self.t_null = stats.t_null_bwd.astype(np.float64)
            self.group = stats.t_cols
            self.n_groups = len(stats.tgt_vocab)
            self.transposed = True
        # jumps start favouring +1 (a monotone prior): Model 2's buckets do not carry over
        w = np.exp(-np.abs(np.arange(-self.max_jump, self.max_jump + 1) - 1.0))
        self.w = w / w.sum()
        self.p0 = float(p0)
        self.max_c = int(np.diff(self.cond_off).max(initial=0))
        self.history = []

    def accumulators(self, counts=True):
        """Zeroed ``(counts, null_counts, jump_obs, ctx)`` for one E-step; without
        ``counts`` (by agreement, where both directions share one count array) only
        ``(null_counts, jump_obs, ctx)``."""
        rest = (np.zeros_like(self.t_null), np.zeros(2 * self.max_jump + 1),
                np.zeros((self.max_c + 1, self.max_c + 1)))
        return ((np.zeros_like(self.t),) + rest) if counts else rest

    def m_step(self, acc, ll, n_null, n_trans, n_gis):
        """Translation tables by renormalised counts, jump weights by GIS, ``p0`` the
        share of NULL transitions."""
        counts, null_counts, jump_obs, ctx = acc
        self.history.append(float(ll))
        m_step(counts, self.group, self.n_groups, self.t)
        if null_counts.sum() > 0:
            self.t_null = null_counts / null_counts.sum()
        self.w = _jump_gis(self.w, jump_obs, ctx, self.max_jump, n_gis)
        self.p0 = float(np.clip(n_null / max(n_trans, 1.0), 1e-3, 0.5))

    def result(self):
        return (self.t.astype(np.float32), self.t_null.astype(np.float32), self.w, self.p0,
                self.history)


#: token pairs per HMM kernel call (forward-backward costs a sentence length more per
#: pair than an IBM E-step)
_HMM_CHUNK_PAIRS = 250_000


def _train_direction(corpus, stats, pidx, pair_off, direction, n_iter, p0, n_gis, verbose,
                     stop=None, shards=None):
    d = _Direction(corpus, stats, direction, p0)
    # with shards (alignment.stats.shards) the E-step runs on an executor: no local chunks
    chunks = chunk_ranges(pair_off, _HMM_CHUNK_PAIRS) if shards is None else ()
    for _ in tqdm(range(int(n_iter)), disable=not progress_enabled(verbose),
                  desc=f"HMM EM {direction}", unit="iter",
                  position=0 if direction == "fwd" else 1):
        acc = d.accumulators()
        ll = n_null = n_trans = 0.0
        if shards is not None:

            ll, n_null, n_trans, *acc = shards.map_reduce(
                hmm_shard, direction, d.t, d.t_null, d.w, d.p0, d.max_jump, stats.floor,
                d.max_c, stop=stop)
        for lo, hi in chunks:
            check_stop(stop)
            a, b, c = _e_step(d.gen_ids, d.gen_off[lo:hi + 1], d.cond_off[lo:hi + 1], pidx,
                              pair_off[lo:hi + 1], d.transposed, d.t, d.t_null, d.w, d.p0,
                              d.max_jump, stats.floor, *acc)
            ll, n_null, n_trans = ll + a, n_null + b, n_trans + c
        d.m_step(acc, ll, n_null, n_trans, n_gis)
    return d.result()


#: the agreement E-step cuts the pairs into this many parts of about equal work, whatever
#: the number of threads; each part accumulates into arrays of its own and the parts are
#: added in this order, so one thread and two give the same tables bit for bit
_AGREE_PARTS = 2


def _agree_parts(pair_off, n_parts=None):
    """The fixed partition of the agreement E-step: for each of ``n_parts`` (default
    :data:`_AGREE_PARTS`) consecutive runs of sentences of about equal work (token pairs,
    ``pair_off``), its chunks of about ``_HMM_CHUNK_PAIRS / 2`` token pairs
    (:func:`alignment._runtime.chunk_ranges`); runs with no sentence are left out."""
    n_parts = _AGREE_PARTS if n_parts is None else int(n_parts)
    off = np.asarray(pair_off, dtype=np.int64)
    n = len(off) - 1
    cuts = np.searchsorted(off, off[-1] * np.arange(1, n_parts) / n_parts, side="left")
    bounds = np.unique(np.concatenate(([0], np.clip(cuts, 0, n), [n]))).astype(np.int64)
    return [[(lo + a, lo + b) for a, b in chunk_ranges(off[lo:hi + 1], _HMM_CHUNK_PAIRS // 2)]
            for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()) if hi > lo]


def _agree_part(corpus, pidx, pair_off, chunks, f, b, floor, stop=None):
    """The agreement E-step on one part's ``chunks``: ``(totals, counts, (null, jump,
    ctx) of fwd, the same of bwd)``, with the six totals of :func:`_e_step_agree`."""
    counts, af, ab = np.zeros_like(f.t), f.accumulators(False), b.accumulators(False)
    tot = np.zeros(6)
    for lo, hi in chunks:
        check_stop(stop)
        tot += np.array(_e_step_agree(
            corpus.src_ids, corpus.src_offsets[lo:hi + 1], corpus.tgt_ids,
            corpus.tgt_offsets[lo:hi + 1], pidx, pair_off[lo:hi + 1],
            f.t, b.t, f.t_null, b.t_null, f.w, b.w, f.p0, b.p0, f.max_jump, floor,
            counts, af[0], ab[0], af[1], ab[1], af[2], ab[2]))
    return [tot, counts, *af, *ab]


def _train_agreement(corpus, stats, pidx, pair_off, n_iter, p0, n_gis, verbose, shards=None,
                     n_jobs=2):
    """EM of both directions by agreement: each E-step on the fixed parts of
    :func:`_agree_parts` (or on ``shards``), then each direction's M-step."""
    f, b = _Direction(corpus, stats, "fwd", p0), _Direction(corpus, stats, "bwd", p0)
    parts = _agree_parts(pair_off) if shards is None else ()
    for _ in tqdm(range(int(n_iter)), disable=not progress_enabled(verbose),
                  desc="HMM EM (agreement)", unit="iter"):
        if shards is not None:
            out = list(shards.map_reduce(hmm_agree_shard, f.t, b.t, f.t_null, b.t_null, f.w,
                                         b.w, f.p0, b.p0, f.max_jump, stats.floor, f.max_c,
                                         b.max_c))
            out[0] = np.array(out[:6])
            del out[1:6]
        else:
            out = _agree_parts_e_step(corpus, pidx, pair_off, parts, f, b, stats.floor, n_jobs)
        tot, counts, af, ab = out[0], out[1], out[2:5], out[5:8]
        lf, lb, nf, nb, tf, tb = (float(x) for x in tot)
        f.m_step((counts, *af), lf, nf, tf, n_gis)
        b.m_step((counts, *ab), lb, nb, tb, n_gis)
    return f.result(), b.result()


def _agree_parts_e_step(corpus, pidx, pair_off, parts, f, b, floor, n_jobs):
    """:func:`_agree_part` on each part (each in a thread of its own with ``n_jobs >= 2``,
    else one after the other), the results added in part order into the first part's."""
    return add_parts(run_parts(
        [lambda stop, c=c: _agree_part(corpus, pidx, pair_off, c, f, b, floor, stop)
         for c in parts], n_jobs))


def train_hmm(stats, src_sentences, tgt_sentences, n_iter=5, p0=0.2, n_gis=10, n_jobs=2,
              agreement=False, verbose=False, executor=None, corpus=None, pair_index=None):
    """Train the HMM in both directions, starting from ``stats``' Model 2 tables.

    Parameters
    ----------
    stats : :class:`alignment.stats.statistics.AlignmentStatistics`
    src_sentences, tgt_sentences : list of list of str
        The bitext (usually the one ``stats`` was trained on).
    n_iter : int
        EM iterations per direction.
    p0 : float
        Initial NULL transition probability.
    n_gis : int
        GIS steps of each jump M-step.
    agreement : bool
        Train the two directions jointly by agreement (see the module docstring).
        Both directions' forward-backward then run together on each sentence pair, and
        the E-step cuts the pairs into two fixed halves of about equal work, each
        accumulating its own counts, added in order afterwards.
    n_jobs : int or None
        2: the two directions in two threads (by agreement: the two halves of each
        E-step in two threads); the kernels release the GIL; ``None``: 1, as scikit-learn
        reads it.  The tables do not depend on it (the same partition and order of
        additions with one thread).
    executor : dask.distributed.Client or concurrent.futures.Executor, optional
        Run the E-steps on shards of the bitext there: the shards are placed once, each
        iteration sends the current tables and adds the shards' expected counts in a
        fixed order; the M-steps stay here (:mod:`alignment.stats.shards`).  The result
        equals the in-process one up to the order of floating-point additions.
        ``None``: in this process.
    corpus : :class:`alignment.data.corpus.EncodedCorpus`, optional
        The bitext already encoded with ``stats``' vocabularies, in place of
        ``src_sentences`` and ``tgt_sentences`` (then ``None``).
    pair_index : (ndarray, ndarray), optional
        :func:`alignment.stats.ibm.pair_index` of ``corpus`` on ``stats``' translation
        table, if already made (:func:`alignment.stats.ibm.restrict_pair_index`).

    Returns
    -------
    HMMTables
    """
    if corpus is None:
        if len(src_sentences) != len(tgt_sentences):
            raise ValueError(f"{len(src_sentences)} source but {len(tgt_sentences)} target "
                             "sentences")
        if not src_sentences:
            raise ValueError("empty bitext")
        corpus = EncodedCorpus.from_sentences(src_sentences, tgt_sentences, stats.src_vocab,
                                              stats.tgt_vocab)
    elif src_sentences is not None or tgt_sentences is not None:
        raise ValueError("give the sentences or their corpus, not both")
    elif not len(corpus):
        raise ValueError("empty bitext")
    t0, n_jobs = time.perf_counter(), check_n_jobs(n_jobs)
    if pair_index is not None:
        pidx, pair_off = pair_index
        if len(pair_off) != len(corpus) + 1 or pair_off[-1] != len(pidx):
            raise ValueError("pair_index does not fit the corpus")
    else:
        pidx, pair_off = _pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                     corpus.tgt_offsets, stats.t_row_ptr, stats.t_cols)
    args = [(corpus, stats, pidx, pair_off, d, n_iter, p0, n_gis, verbose) for d in ("fwd", "bwd")]
    shards = None
    if executor is not None:
        from .shards import BitextShards

        shards = BitextShards(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                              corpus.tgt_offsets, pidx, pair_off, executor)
    try:
        if agreement:
            fwd, bwd = _train_agreement(corpus, stats, pidx, pair_off, n_iter, p0, n_gis, verbose,
                                        shards=shards, n_jobs=n_jobs)
        elif n_jobs >= 2:
            fwd, bwd = run_threads(*(lambda stop, a=a: _train_direction(*a, stop=stop,
                                                                        shards=shards)
                                     for a in args))
        else:
            fwd, bwd = (_train_direction(*a, shards=shards) for a in args)
    finally:
        if shards is not None:
            shards.close()
    secs = time.perf_counter() - t0
    if verbose:
        note(f"HMM: {counted(len(corpus), 'pair')}, {counted(n_iter, 'iteration')} per direction in {secs:.0f}s "
             f"(p0 fwd {fwd[3]:.3f}, bwd {bwd[3]:.3f})")
    return HMMTables(fwd[0], bwd[0], fwd[1], bwd[1], fwd[2], bwd[2], fwd[3], bwd[3],
                     stats.max_jump, stats.floor, {"fwd": fwd[4], "bwd": bwd[4]}, secs)


def train_hmm_files(stats, src_path, tgt_path, max_pairs=None, max_len=80, protect_first=0,
                    **kw):
    """:func:`train_hmm` on the first ``max_pairs`` lines of a (gzipped) tokenised
    bitext, leaving out pairs longer than ``max_len`` (except the first
    ``protect_first`` lines) as the statistics do (:func:`alignment.data.corpus.load_bitext`).
    The tables record their :func:`hmm_key`."""
    from ..data.corpus import load_bitext

    key = hmm_key(stats, src_path, tgt_path, max_pairs, max_len, protect_first,
                  kw.get("n_iter", 5), kw.get("agreement", False),
                  **{k: v for k, v in kw.items() if k not in ("n_iter", "agreement")})
    bt = load_bitext(src_path, tgt_path, max_pairs=max_pairs, max_len=max_len,
                     protect_first=protect_first)
    hmm = train_hmm(stats, bt.src, bt.tgt, **kw)
    hmm.cache_key = key
    return hmm


def hmm_key(stats, src_path, tgt_path, max_pairs=None, max_len=80, protect_first=0, n_iter=5,
            agreement=False, **kw):
    """The cache key of :func:`train_hmm_files`: the bitext
    (:func:`alignment._cache.bitext_key`), the Model 2 tables it starts from
    (:meth:`AlignmentStatistics.fingerprint`, and whether they were trained by agreement),
    the EM iterations, agreement and the other training options."""
    return {**bitext_key(src_path, tgt_path, max_pairs, max_len, protect_first),
            "statistics": stats.fingerprint(),
            "ibm_agreement": bool((stats.cache_key or {}).get("ibm_agreement", False)),
            "hmm_iterations": int(n_iter), "hmm_agreement": bool(agreement),
            "hmm_options": fit_options(train_hmm, kw,
                                       drop=("verbose", "n_jobs", "n_iter", "agreement",
                                             "executor"))}


def hmm_shard(shard, direction, t, t_null, w, p0, max_jump, floor, max_c):
    """One direction's HMM E-step on a shard:
    ``(ll, n_null, n_trans, counts, null_counts, jump_obs, ctx)``."""

    src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off = shard
    if direction == "fwd":
        gen_ids, gen_off, cond_off, transposed = tgt_ids, tgt_off, src_off, False
    else:
        gen_ids, gen_off, cond_off, transposed = src_ids, src_off, tgt_off, True
    acc = (np.zeros_like(t), np.zeros_like(t_null), np.zeros(2 * int(max_jump) + 1),
           np.zeros((max_c + 1, max_c + 1)))
    ll, n_null, n_trans = _e_step(gen_ids, gen_off, cond_off, pidx, pair_off, transposed, t,
                                  t_null, w, float(p0), int(max_jump), float(floor), *acc)
    return (ll, n_null, n_trans) + acc


def hmm_agree_shard(shard, t_f, t_b, tn_f, tn_b, w_f, w_b, p0_f, p0_b, max_jump, floor,
                    max_m, max_n):
    """The joint HMM E-step (agreement) on a shard: the six totals of
    :func:`alignment.stats.hmm._e_step_agree`, the link counts both directions share,
    then the accumulators of fwd and bwd ``(null, jump, ctx)`` each."""

    src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off = shard
    nb = 2 * int(max_jump) + 1
    counts = np.zeros_like(t_f)
    af = (np.zeros_like(tn_f), np.zeros(nb), np.zeros((max_m + 1, max_m + 1)))
    ab = (np.zeros_like(tn_b), np.zeros(nb), np.zeros((max_n + 1, max_n + 1)))
    tot = _e_step_agree(src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off, t_f, t_b, tn_f,
                        tn_b, w_f, w_b, float(p0_f), float(p0_b), int(max_jump), float(floor),
                        counts, af[0], ab[0], af[1], ab[1], af[2], ab[2])
    return tuple(tot) + (counts,) + af + ab
