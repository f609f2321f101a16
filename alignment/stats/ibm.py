r"""IBM Models 1 and 2 trained by EM, with numba kernels, in both directions.

The models of Brown et al. (1993) generate the words of one side of a sentence
pair from the other.  We write the *generated* sentence ``g_1..g_G`` and the
*conditioning* sentence ``c_1..c_C`` with the empty word ``c_0 = NULL``:

* direction ``"fwd"`` is :math:`p(f \mid e)`: French (target, ``k``, ``n``) is
  generated from English (source, ``j``, ``m``), so ``G = n`` and ``C = m``;
* direction ``"bwd"`` is :math:`p(e \mid f)`: English generated from French.

Each generated word ``g_k`` picks a conditioning position :math:`a_k \in \{0, \dots,
C\}` and is drawn from the translation table :math:`t(g \mid c)`:

.. math::
    p(g_1^G \mid c_0^C) = \prod_{k=1}^{G} \sum_{j=0}^{C} a(j \mid k, C, G)\,
    t(g_k \mid c_j),
    \qquad
    P(a_k = j \mid g, c) = \frac{a(j \mid k, C, G)\, t(g_k \mid c_j)}
                                {\sum_{j'=0}^{C} a(j' \mid k, C, G)\, t(g_k \mid c_{j'})}.

(The sentence-length factor :math:`\epsilon(G \mid C)` is constant and dropped.)

Model 1 has :math:`a(j \mid k, C, G) = 1 / (C + 1)`.

Model 2 uses a *jump* parameterisation of the distortion that generalises to
sentence lengths never seen in training.  Position ``k`` of the generated sentence
maps to the "diagonal" point :math:`\hat\jmath_k = (k - \tfrac12)\, C / G + \tfrac12`
of the conditioning sentence, and position ``j`` has the signed jump bucket

.. math::
    d(j, k, C, G) = \operatorname{clip}\bigl(\lfloor j - \hat\jmath_k + \tfrac12 \rfloor,
                    -D, D\bigr)
                  = \operatorname{clip}\Bigl(\Bigl\lfloor \frac{2jG - (2k - 1)C}{2G}
                    \Bigr\rfloor, -D, D\Bigr)

(integer arithmetic, so exact; ``D = max_jump``, for ``C = G`` simply ``j - k``).  With
one positive weight :math:`w_d` per bucket :math:`d \in \{-D, \dots, D\}` and a weight
:math:`w_\varnothing` for the NULL word,

.. math::
    a(j \mid k, C, G) = \frac{w_{d(j, k, C, G)}}{Z_k}\ (j \ge 1), \qquad
    a(0 \mid k, C, G) = \frac{w_\varnothing}{Z_k}, \qquad
    Z_k = w_\varnothing + \sum_{j=1}^{C} w_{d(j, k, C, G)},

a log-linear model with one-hot bucket features (Vogel et al. 1996 use the same
jump-width normalisation for their HMM; the NULL probability is learned, and it
shrinks for long sentences, as in :math:`a(0 \mid k, C, G)` tables).

EM (Brown et al. 1993, eqs. 17 and 27).  The E-step collects the expected counts

.. math::
    c(g \mid c) = \sum_{s}\sum_{k, j:\, g_k = g,\, c_j = c} P(a_k = j \mid g, c),
    \qquad
    o_d = \sum_s \sum_{k} \sum_{j:\, d(j, k, C, G) = d} P(a_k = j \mid g, c)

(and :math:`o_\varnothing` for ``j = 0``); the M-step sets

.. math::
    t(g \mid c) = \frac{c(g \mid c)}{\sum_{g'} c(g' \mid c)}

for every conditioning word, NULL included.  The distortion M-step maximises
:math:`\sum_d o_d \log w_d - \sum_{\text{tokens}} \log Z_k` (concave in
:math:`\log w`); its optimum matches observed and expected bucket counts, and we run
``n_gis`` steps of Generalised Iterative Scaling (Darroch & Ratcliff 1972; the bucket
features of every position sum to 1, so the step is exactly)

.. math::
    w_d \leftarrow w_d \, \frac{o_d}{\sum_{\text{tokens}} \sum_{j:\, d(j) = d}
    a_w(j \mid k, C, G)},

each of which increases the expected complete-data log-likelihood (a generalised EM
step), so the likelihood still never decreases.  The expected bucket counts depend
only on the multiset of ``(C, G)`` sentence-length pairs, so they are cheap.

Initialisation: Model 1 starts from a uniform :math:`t(g \mid c) = 1 / V_g` (``V_g``
the generated vocabulary size, which makes the first posteriors uniform); Model 2
starts from Model 1's final t-table with uniform bucket weights (its first E-step is
then a Model 1 E-step).

Data layout.  Translation tables live on the sentence-level co-occurrence pattern of
the corpus (:func:`alignment.data.cooc.build_cooc`): a CSR table over (English word
``e``, French word ``f``) pairs, shared by both directions, with one value array per
direction (``t_fwd[p]`` :math:`= t(f \mid e)`, ``t_bwd[p]`` :math:`= t(e \mid f)`);
the NULL rows are dense arrays over the generated vocabulary.  Before EM every
token pair ``(j, k)`` of every sentence gets the index of its table entry once
(:func:`pair_index`, one ``int32`` per pair), so the E-steps do no searching.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numba
import numpy as np
from structpred import check_n_jobs
from tqdm.auto import tqdm

from .._runtime import check_stop, chunk_ranges, progress_enabled, run_threads
from .._runtime import log as _log
from ..data.cooc import build_cooc
from ._prefetch import prefetch_entries
from .pair_index import pair_index, restrict_pair_index  # re-exported

__all__ = [
    "DEFAULT_MAX_JUMP",
    "DEFAULT_N_GIS",
    "DirectionModel",
    "IBMTables",
    "jump_bucket",
    "restrict_pair_index",
    "n_buckets",
    "pair_index",
    "length_contexts",
    "e_step",
    "e_step_agree",
    "m_step",
    "expected_buckets",
    "gis_update",
    "train_direction",
    "train_agreement",
    "train_ibm",
]

#: buckets -D..D of the Model 2 jump distortion
DEFAULT_MAX_JUMP = 10
#: GIS steps per distortion M-step
DEFAULT_N_GIS = 10


def n_buckets(max_jump):
    """Number of distortion weights: ``2 * max_jump + 1`` jumps plus NULL (the last)."""
    return 2 * int(max_jump) + 2


# ---------------------------------------------------------------------------------------
# numba kernels
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def jump_bucket(j, k, C, G, max_jump):
    """Bucket index ``d(j, k, C, G) + D`` in ``0 .. 2D`` of 1-based positions.

    ``j`` is the conditioning position (``1..C``), ``k`` the generated one (``1..G``).
    """
    d = (2 * j * G - (2 * k - 1) * C) // (2 * G)
    if d > max_jump:
        d = max_jump
    elif d < -max_jump:
        d = -max_jump
    return d + max_jump


@numba.njit(cache=True, nogil=True, inline="always")
def _first_jump(k, C, G):
    """The unclamped jump ``d(1, k, C, G)`` of :func:`jump_bucket`: the numerator grows by
    ``2G`` from ``j`` to ``j + 1``, so ``d(j, k, C, G) = d(1, k, C, G) + j - 1`` exactly,
    and a sentence's buckets need one division per generated word, not one per cell."""
    return (2 * G - (2 * k - 1) * C) // (2 * G)


@numba.njit(cache=True, nogil=True, inline="always")
def _clamped(d, max_jump):
    """Bucket index of the jump ``d``, clamped to ``-max_jump .. max_jump``."""
    if d > max_jump:
        d = max_jump
    elif d < -max_jump:
        d = -max_jump
    return d + max_jump


@numba.njit(cache=True, nogil=True)
def _word_posteriors(gen_ids, g0, G, C, pidx, base, transposed, t, t_null, model2, w,
                     max_jump, out):
    """Link posteriors of one sentence's generated words (the module docstring's
    :math:`P(a_k = j \\mid g, c)`): ``out[g, 0]`` for NULL, ``out[g, c + 1]`` for
    position ``c``.  A word that no position can generate gets a zero row and adds
    ``-inf``.  Returns the sentence's log-likelihood."""
    null_b = 2 * max_jump + 1
    ll = 0.0
    for g in range(G):
        word = gen_ids[g0 + g]
        z = w[null_b] if model2 else C + 1.0
        tot = (w[null_b] if model2 else 1.0) * t_null[word]
        out[g, 0] = tot
        d = _first_jump(g + 1, C, G)
        for c in range(C):
            p = pidx[base + g * C + c] if transposed else pidx[base + c * G + g]
            a = w[_clamped(d + c, max_jump)] if model2 else 1.0
            if model2:
                z += a
            v = a * t[p]
            out[g, c + 1] = v
            tot += v
        if tot <= 0.0:
            ll += -np.inf
            for c in range(C + 1):
                out[g, c] = 0.0
            continue
        ll += math.log(tot / z)
        inv = 1.0 / tot
        for c in range(C + 1):
            out[g, c] *= inv
    return ll


@numba.njit(cache=True, nogil=True)
def _add_buckets(post, G, C, max_jump, obs):
    """Add one sentence's expected jump-bucket counts ``o_d`` (and NULL's) to ``obs``."""
    null_b = 2 * max_jump + 1
    for g in range(G):
        obs[null_b] += post[g, 0]
        d = _first_jump(g + 1, C, G)
        for c in range(C):
            obs[_clamped(d + c, max_jump)] += post[g, c + 1]


@numba.njit(cache=True, nogil=True)
def _max_length(off):
    mx = 0
    for s in range(len(off) - 1):
        mx = max(mx, off[s + 1] - off[s])
    return mx


@numba.njit(cache=True, nogil=True)
def e_step(gen_ids, gen_off, cond_off, pidx, pair_off, transposed, t, t_null, model2, w,
           max_jump, counts, null_counts, obs):
    """One E-step over the corpus; adds expected counts in place.

    Parameters
    ----------
    gen_ids, gen_off : generated side (flat ids, CSR offsets).
    cond_off : offsets of the conditioning side (its lengths ``C``).
    pidx, pair_off : from :func:`pair_index`, laid out ``[j * n + k]`` (``j`` English);
        ``transposed`` is False for ``"fwd"`` (index ``c * G + g``) and True for
        ``"bwd"`` (index ``g * C + c``).
    t : float64 array over table entries, ``t(g | c)`` of this direction.
    t_null : float64 array over generated word ids, ``t(g | NULL)``.
    model2 : bool
        Use the jump distortion ``w`` (Model 2) instead of the uniform ``1/(C+1)``.
    w : float64 array of length ``2 * max_jump + 2`` (NULL weight last).
    counts, null_counts, obs : float64 accumulators (table entries, generated words,
        distortion buckets; ``obs`` is only touched for Model 2).

    Returns
    -------
    float
        Log-likelihood :math:`\\sum_k \\log \\sum_j a(j|k) t(g_k|c_j)` of the corpus under
        the current parameters.
    """
    post = np.empty((_max_length(gen_off), _max_length(cond_off) + 1))
    ll = 0.0
    n_sent = len(gen_off) - 1
    for s in range(n_sent):
        g0 = gen_off[s]
        G = gen_off[s + 1] - g0
        C = cond_off[s + 1] - cond_off[s]
        base = pair_off[s]
        if s + 1 < n_sent:      # the next sentence's table entries, fetched meanwhile
            prefetch_entries(t, pidx, pair_off[s + 1], pair_off[s + 2])
            prefetch_entries(counts, pidx, pair_off[s + 1], pair_off[s + 2])
        ll += _word_posteriors(gen_ids, g0, G, C, pidx, base, transposed, t, t_null, model2, w,
                               max_jump, post)
        for g in range(G):
            null_counts[gen_ids[g0 + g]] += post[g, 0]
            for c in range(C):
                p = pidx[base + g * C + c] if transposed else pidx[base + c * G + g]
                counts[p] += post[g, c + 1]
        if model2:
            _add_buckets(post, G, C, max_jump, obs)
    return ll


@numba.njit(cache=True, nogil=True)
def e_step_agree(src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off, t_f, t_b, tn_f, tn_b,
                 model2, w_f, w_b, max_jump, counts_f, counts_b, null_f, null_b, obs_f, obs_b):
    """Joint E-step of the two directions trained by agreement (Liang, Taskar & Klein 2006).

    Each direction computes its own link posteriors; the link counts of *both*
    translation tables are their product, ``q_jk = P_fwd(a_k = j) P_bwd(b_j = k)``
    (large only where the directions agree), and a word's NULL count is what its links
    leave, ``1 - sum q``.  The jump-bucket counts stay each direction's own (as in the
    HMM's agreement training, :mod:`alignment.stats.hmm`).  Returns the two directions'
    log-likelihoods ``(ll_fwd, ll_bwd)`` under the current parameters.
    """
    max_m, max_n = _max_length(src_off), _max_length(tgt_off)
    pf = np.empty((max_n, max_m + 1))   # fwd: French words generated from English
    pb = np.empty((max_m, max_n + 1))   # bwd: English words generated from French
    ll_f = ll_b = 0.0
    n_sent = len(src_off) - 1
    for s in range(n_sent):
        e0, f0 = src_off[s], tgt_off[s]
        m = src_off[s + 1] - e0
        n = tgt_off[s + 1] - f0
        base = pair_off[s]
        if s + 1 < n_sent:      # the next sentence's table entries, fetched meanwhile
            lo, hi = pair_off[s + 1], pair_off[s + 2]
            prefetch_entries(t_f, pidx, lo, hi)
            prefetch_entries(t_b, pidx, lo, hi)
            prefetch_entries(counts_f, pidx, lo, hi)
            prefetch_entries(counts_b, pidx, lo, hi)
        ll_f += _word_posteriors(tgt_ids, f0, n, m, pidx, base, False, t_f, tn_f, model2, w_f,
                                 max_jump, pf)
        ll_b += _word_posteriors(src_ids, e0, m, n, pidx, base, True, t_b, tn_b, model2, w_b,
                                 max_jump, pb)
        for j in range(m):
            rowq = 0.0
            for k in range(n):
                q = pf[k, j + 1] * pb[j, k + 1]
                rowq += q
                p = pidx[base + j * n + k]
                counts_f[p] += q
                counts_b[p] += q
            null_b[src_ids[e0 + j]] += max(1.0 - rowq, 0.0)
        for k in range(n):
            colq = 0.0
            for j in range(m):
                colq += pf[k, j + 1] * pb[j, k + 1]
            null_f[tgt_ids[f0 + k]] += max(1.0 - colq, 0.0)
        if model2:
            _add_buckets(pf, n, m, max_jump, obs_f)
            _add_buckets(pb, m, n, max_jump, obs_b)
    return ll_f, ll_b


@numba.njit(cache=True, nogil=True)
def m_step(counts, group, n_groups, t):
    """``t[p] = counts[p] / sum_{q: group[q] == group[p]} counts[q]`` (in place).

    ``group`` is the conditioning word of each table entry (its row for ``"fwd"``,
    its column for ``"bwd"``); groups with no counts get 0.
    """
    tot = np.zeros(n_groups, dtype=np.float64)
    for p in range(len(counts)):
        tot[group[p]] += counts[p]
    for p in range(len(counts)):
        s = tot[group[p]]
        t[p] = counts[p] / s if s > 0.0 else 0.0


@numba.njit(cache=True, nogil=True)
def expected_buckets(ctx_C, ctx_G, ctx_count, w, max_jump):
    """Expected bucket counts :math:`\\sum_{tokens} \\sum_{j: d(j)=d} a_w(j|k,C,G)`.

    ``(ctx_C[i], ctx_G[i])`` are the distinct ``(C, G)`` length pairs of the corpus and
    ``ctx_count[i]`` how many sentences have them.
    """
    nb = 2 * max_jump + 2
    null_b = nb - 1
    out = np.zeros(nb, dtype=np.float64)
    loc = np.zeros(nb, dtype=np.float64)
    for i in range(len(ctx_C)):
        C = ctx_C[i]
        G = ctx_G[i]
        cnt = ctx_count[i]
        for k in range(1, G + 1):
            loc[:] = 0.0
            z = w[null_b]
            loc[null_b] = w[null_b]
            for j in range(1, C + 1):
                b = jump_bucket(j, k, C, G, max_jump)
                loc[b] += w[b]
                z += w[b]
            f = cnt / z
            for b in range(nb):
                out[b] += loc[b] * f
    return out


def gis_update(w, obs, ctx, max_jump, n_gis=DEFAULT_N_GIS):
    """Distortion M-step: ``n_gis`` GIS steps from ``w``; returns new weights (sum 1).

    A bucket that no token can reach (expected count 0) keeps its weight.
    """
    w = np.array(w, dtype=np.float64)
    ctx_C, ctx_G, ctx_count = ctx
    for _ in range(int(n_gis)):
        exp = expected_buckets(ctx_C, ctx_G, ctx_count, w, max_jump)
        reach = exp > 0
        w[reach] *= obs[reach] / exp[reach]
        w /= w.sum()
    return w


def length_contexts(cond_off, gen_off):
    """Distinct ``(C, G)`` sentence-length pairs with their counts (for the GIS step)."""
    C = np.diff(np.asarray(cond_off, dtype=np.int64))
    G = np.diff(np.asarray(gen_off, dtype=np.int64))
    keep = G > 0
    base = int(G.max(initial=0)) + 1
    uniq, cnt = np.unique(C[keep] * base + G[keep], return_counts=True)
    return uniq // base, uniq % base, cnt.astype(np.float64)


# ---------------------------------------------------------------------------------------
# training drivers
# ---------------------------------------------------------------------------------------


@dataclass
class DirectionModel:
    """Parameters of one direction after training.

    Attributes
    ----------
    direction : {"fwd", "bwd"}
    t : ndarray of float64
        :math:`t(g \\mid c)` over the entries of the shared co-occurrence table.
    t_null : ndarray of float64
        :math:`t(g \\mid NULL)` over the generated vocabulary.
    dist : ndarray of float64, shape (2 * max_jump + 2,)
        Model 2 bucket weights (jumps ``-D..D``, then NULL), summing to 1; uniform
        if Model 2 was not trained.
    history : dict
        ``{"ibm1": [...], "ibm2": [...]}``: corpus log-likelihood (nats) computed in
        each E-step, i.e. under the parameters *before* that iteration's M-step.
    seconds : dict
        ``{"ibm1": s, "ibm2": s}``: wall time of the EM iterations of each model.
    """

    direction: str
    t: np.ndarray
    t_null: np.ndarray
    dist: np.ndarray
    history: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)


@dataclass
class IBMTables:
    """Both directions on a shared co-occurrence pattern.

    Attributes
    ----------
    row_ptr, cols, counts : CSR over (source word, target word) of the sentence-level
        co-occurrence counts (:func:`alignment.data.cooc.build_cooc`).
    fwd, bwd : DirectionModel
    max_jump : int
    seconds : dict
        Wall times: ``"cooc"`` (co-occurrence table, if built here), ``"pair_index"``,
        ``"em"`` (both directions, concurrently when ``n_jobs=2``).
    """

    row_ptr: np.ndarray
    cols: np.ndarray
    counts: np.ndarray
    fwd: DirectionModel
    bwd: DirectionModel
    max_jump: int
    seconds: dict = field(default_factory=dict)
    #: ``(pidx, pair_off)`` of :func:`pair_index` on the corpus, kept when asked
    #: (``train_ibm(keep_index=True)``), else None
    index: tuple = None


class _DirectionEM:
    """One direction's parameters and expected-count accumulators during EM."""

    def __init__(self, corpus, row_ptr, cols, direction, max_jump, with_model2):
        if direction == "fwd":
            self.gen_ids, self.gen_off = corpus.tgt_ids, corpus.tgt_offsets
            self.cond_off = corpus.src_offsets
            n_gen, self.n_cond = corpus.n_tgt_types, corpus.n_src_types
            self.group = np.repeat(np.arange(len(row_ptr) - 1, dtype=np.int32), np.diff(row_ptr))
            self.transposed = False
        elif direction == "bwd":
            self.gen_ids, self.gen_off = corpus.src_ids, corpus.src_offsets
            self.cond_off = corpus.tgt_offsets
            n_gen, self.n_cond = corpus.n_src_types, corpus.n_tgt_types
            self.group = cols
            self.transposed = True
        else:
            raise ValueError(f"direction must be 'fwd' or 'bwd', not {direction!r}")
        self.direction, self.max_jump = direction, int(max_jump)
        self.t = np.full(len(cols), 1.0 / n_gen)
        self.t_null = np.full(n_gen, 1.0 / n_gen)
        nb = n_buckets(max_jump)
        self.w = np.full(nb, 1.0 / nb)
        self.counts, self.null_counts, self.obs = np.zeros(len(cols)), np.zeros(n_gen), np.zeros(nb)
        self.history = {"ibm1": [], "ibm2": []}
        self.seconds = {"ibm1": 0.0, "ibm2": 0.0}
        self.ctx = length_contexts(self.cond_off, self.gen_off) if with_model2 else None

    def reset(self):
        self.counts[:] = 0.0
        self.null_counts[:] = 0.0
        self.obs[:] = 0.0

    def m_step(self, name, ll, n_gis, seconds):
        self.history[name].append(float(ll))
        m_step(self.counts, self.group, self.n_cond, self.t)
        tot = self.null_counts.sum()
        if tot > 0:
            self.t_null = self.null_counts / tot
        if name == "ibm2":
            self.w = gis_update(self.w, self.obs, self.ctx, self.max_jump, n_gis)
        self.seconds[name] += seconds

    def result(self):
        return DirectionModel(self.direction, self.t, self.t_null, self.w, self.history,
                              self.seconds)


def _schedule(n_iter_model1, n_iter_model2):
    return ["ibm1"] * int(n_iter_model1) + ["ibm2"] * int(n_iter_model2)


def train_direction(corpus, row_ptr, cols, pidx, pair_off, direction, n_iter_model1=5,
                    n_iter_model2=5, max_jump=DEFAULT_MAX_JUMP, n_gis=DEFAULT_N_GIS,
                    verbose=False, stop=None, executor=None, shards=None):
    """EM for Model 1 then Model 2 in one direction.

    Parameters
    ----------
    corpus : :class:`alignment.data.corpus.EncodedCorpus`
    row_ptr, cols : the co-occurrence pattern the tables live on.
    pidx, pair_off : from :func:`pair_index` on the same corpus and pattern.
    direction : {"fwd", "bwd"}
    n_iter_model1, n_iter_model2 : int
    max_jump : int
        ``D`` of the jump buckets.
    n_gis : int
        GIS steps per distortion M-step.
    stop : threading.Event, optional
        Checked between chunks of the E-step: when set, :class:`alignment._runtime.Cancelled`
        is raised (see :func:`alignment._runtime.run_threads`).
    executor : dask.distributed.Client or concurrent.futures.Executor, optional
        Run the E-steps on shards of the corpus there (:mod:`alignment.stats.shards`; the
        M-step stays here).  ``None``: in this process.
    shards : :class:`alignment.stats.shards.BitextShards`, optional
        Shards already placed on ``executor`` (by :func:`train_ibm`, for both directions).

    Returns
    -------
    DirectionModel
    """
    own = shards is None and executor is not None
    if own:
        shards = _shards(corpus, pidx, pair_off, executor)
    try:
        return _train_direction(corpus, row_ptr, cols, pidx, pair_off, direction, n_iter_model1,
                                n_iter_model2, max_jump, n_gis, verbose, stop, shards)
    finally:
        if own:
            shards.close()


def _shards(corpus, pidx, pair_off, executor):
    from .shards import BitextShards

    return BitextShards(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids, corpus.tgt_offsets,
                        pidx, pair_off, executor)


def _train_direction(corpus, row_ptr, cols, pidx, pair_off, direction, n_iter_model1,
                     n_iter_model2, max_jump, n_gis, verbose, stop, shards):
    d = _DirectionEM(corpus, row_ptr, cols, direction, max_jump, n_iter_model2 > 0)
    bar = tqdm(_schedule(n_iter_model1, n_iter_model2), disable=not progress_enabled(verbose),
               desc=f"IBM EM {direction}", unit="iter",
               position=0 if direction == "fwd" else 1, leave=True)
    chunks = chunk_ranges(pair_off) if shards is None else ()   # sharded: no local chunks
    for name in bar:
        t0 = time.perf_counter()
        d.reset()
        ll = 0.0
        if shards is not None:

            ll, d.counts[:], d.null_counts[:], d.obs[:] = shards.map_reduce(
                ibm_shard, direction, d.t, d.t_null, name == "ibm2", d.w, d.max_jump, stop=stop)
        for lo, hi in chunks:
            check_stop(stop)
            ll += e_step(d.gen_ids, d.gen_off[lo:hi + 1], d.cond_off[lo:hi + 1], pidx,
                         pair_off[lo:hi + 1], d.transposed, d.t, d.t_null, name == "ibm2", d.w,
                         d.max_jump, d.counts, d.null_counts, d.obs)
        d.m_step(name, ll, n_gis, time.perf_counter() - t0)
        bar.set_postfix_str(f"{name} log-likelihood {ll:.5e}")
    return d.result()


def train_agreement(corpus, row_ptr, cols, pidx, pair_off, n_iter_model1=5, n_iter_model2=5,
                    max_jump=DEFAULT_MAX_JUMP, n_gis=DEFAULT_N_GIS, verbose=False,
                    executor=None, shards=None):
    """EM for Models 1 then 2 with the two directions trained jointly by agreement
    (:func:`e_step_agree`; Liang, Taskar & Klein 2006).  Parameters as in
    :func:`train_direction`; returns the two :class:`DirectionModel` ``(fwd, bwd)``.
    The recorded log-likelihoods are each direction's own; agreement EM does not
    promise that they rise.  ``executor``, ``shards``: the E-steps on shards of the corpus,
    as in :func:`train_direction`."""
    own = shards is None and executor is not None
    if own:
        shards = _shards(corpus, pidx, pair_off, executor)
    try:
        return _train_agreement(corpus, row_ptr, cols, pidx, pair_off, n_iter_model1,
                                n_iter_model2, max_jump, n_gis, verbose, shards)
    finally:
        if own:
            shards.close()


def _train_agreement(corpus, row_ptr, cols, pidx, pair_off, n_iter_model1, n_iter_model2,
                     max_jump, n_gis, verbose, shards):
    f = _DirectionEM(corpus, row_ptr, cols, "fwd", max_jump, n_iter_model2 > 0)
    b = _DirectionEM(corpus, row_ptr, cols, "bwd", max_jump, n_iter_model2 > 0)
    bar = tqdm(_schedule(n_iter_model1, n_iter_model2), disable=not progress_enabled(verbose),
               desc="IBM EM (agreement)", unit="iter")
    chunks = chunk_ranges(pair_off) if shards is None else ()   # sharded: no local chunks
    for name in bar:
        t0 = time.perf_counter()
        f.reset()
        b.reset()
        ll_f = ll_b = 0.0
        if shards is not None:

            (ll_f, ll_b, f.counts[:], b.counts[:], f.null_counts[:], b.null_counts[:], f.obs[:],
             b.obs[:]) = shards.map_reduce(ibm_agree_shard, f.t, b.t, f.t_null, b.t_null,
                                           name == "ibm2", f.w, b.w, int(max_jump))
        for lo, hi in chunks:
            a, b_ = e_step_agree(corpus.src_ids, corpus.src_offsets[lo:hi + 1], corpus.tgt_ids,
                                 corpus.tgt_offsets[lo:hi + 1], pidx, pair_off[lo:hi + 1], f.t,
                                 b.t, f.t_null, b.t_null, name == "ibm2", f.w, b.w,
                                 int(max_jump), f.counts, b.counts, f.null_counts,
                                 b.null_counts, f.obs, b.obs)
            ll_f += a
            ll_b += b_
        sec = time.perf_counter() - t0
        f.m_step(name, ll_f, n_gis, sec / 2)
        b.m_step(name, ll_b, n_gis, sec / 2)
        bar.set_postfix_str(f"{name} log-likelihood {ll_f:.4e} / {ll_b:.4e}")
    return f.result(), b.result()


def train_ibm(corpus, n_iter_model1=5, n_iter_model2=5, max_jump=DEFAULT_MAX_JUMP,
              n_gis=DEFAULT_N_GIS, n_jobs=2, cooc=None, agreement=False, verbose=False,
              executor=None, keep_index=False):
    """Train Models 1 and 2 in both directions on an encoded corpus.

    Parameters
    ----------
    corpus : :class:`alignment.data.corpus.EncodedCorpus`
    n_iter_model1, n_iter_model2 : int
        EM iterations of each model (Model 2 starts from Model 1's t-table).
    max_jump : int
    n_gis : int
    n_jobs : int or None
        2 trains the two directions concurrently in two threads (the kernels release
        the GIL); 1 (or ``None``, as scikit-learn reads it) trains them one after the
        other.  The result is the same.
    cooc : tuple, optional
        ``(row_ptr, cols, counts)`` of :func:`alignment.data.cooc.build_cooc` on this
        corpus (without NULL), if already computed.
    agreement : bool
        Train the two directions jointly by agreement (:func:`train_agreement`)
        instead of independently.
    executor : dask.distributed.Client or concurrent.futures.Executor, optional
        Run the E-steps on shards of the corpus there: the shards are placed once (for
        both directions and both models), each iteration sends the current tables and
        adds the shards' expected counts in a fixed order (:mod:`alignment.stats.shards`).
        The result equals the in-process one up to the order of floating-point
        additions.  ``None``: in this process.
    keep_index : bool
        Keep the corpus's :func:`pair_index` in the result (``index``), for a model
        trained next on the same corpus (:func:`restrict_pair_index`).

    Returns
    -------
    IBMTables
    """
    seconds, n_jobs = {}, check_n_jobs(n_jobs)
    t0 = time.perf_counter()
    if cooc is None:
        cooc = build_cooc(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                          corpus.tgt_offsets, corpus.n_src_types, corpus.n_tgt_types)
        seconds["cooc"] = time.perf_counter() - t0
        t0 = time.perf_counter()
    row_ptr, cols, counts = cooc
    pidx, pair_off = pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                corpus.tgt_offsets, row_ptr, cols)
    if len(pidx) and pidx.min() < 0:
        raise ValueError("the co-occurrence table does not cover the corpus")
    seconds["pair_index"] = time.perf_counter() - t0
    _log(verbose, f"  pair index: {len(cols)} table entries, {len(pidx)} token pairs "
                  f"({seconds['pair_index']:.1f}s)")
    t0 = time.perf_counter()
    kw = dict(n_iter_model1=n_iter_model1, n_iter_model2=n_iter_model2, max_jump=max_jump,
              n_gis=n_gis, verbose=verbose)
    # with an executor: the shards are placed once, for both directions and both models
    kw["shards"] = _shards(corpus, pidx, pair_off, executor) if executor is not None else None
    try:
        if agreement:
            fwd, bwd = train_agreement(corpus, row_ptr, cols, pidx, pair_off, **kw)
        elif n_jobs >= 2:
            fwd, bwd = run_threads(
                *(lambda stop, d=d: train_direction(corpus, row_ptr, cols, pidx, pair_off, d,
                                                    stop=stop, **kw)
                  for d in ("fwd", "bwd")))
        else:
            fwd = train_direction(corpus, row_ptr, cols, pidx, pair_off, "fwd", **kw)
            bwd = train_direction(corpus, row_ptr, cols, pidx, pair_off, "bwd", **kw)
    finally:
        if kw["shards"] is not None:
            kw["shards"].close()
    seconds["em"] = time.perf_counter() - t0
    return IBMTables(row_ptr, cols, counts, fwd, bwd, int(max_jump), seconds,
                     (pidx, pair_off) if keep_index else None)


# ---------------------------------------------------------------------- shard kernels
def ibm_shard(shard, direction, t, t_null, model2, w, max_jump):
    """One direction's IBM E-step on a shard: ``(ll, counts, null_counts, obs)``."""

    src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off = shard
    if direction == "fwd":
        gen_ids, gen_off, cond_off, transposed = tgt_ids, tgt_off, src_off, False
    else:
        gen_ids, gen_off, cond_off, transposed = src_ids, src_off, tgt_off, True
    counts, null_counts, obs = np.zeros(len(t)), np.zeros(len(t_null)), np.zeros(len(w))
    ll = e_step(gen_ids, gen_off, cond_off, pidx, pair_off, transposed, t, t_null,
                bool(model2), w, int(max_jump), counts, null_counts, obs)
    return ll, counts, null_counts, obs


def ibm_agree_shard(shard, t_f, t_b, tn_f, tn_b, model2, w_f, w_b, max_jump):
    """The joint IBM E-step (agreement) on a shard:
    ``(ll_f, ll_b, counts_f, counts_b, null_f, null_b, obs_f, obs_b)``."""

    src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off = shard
    acc = (np.zeros(len(t_f)), np.zeros(len(t_b)), np.zeros(len(tn_f)), np.zeros(len(tn_b)),
           np.zeros(len(w_f)), np.zeros(len(w_b)))
    ll_f, ll_b = e_step_agree(src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off, t_f, t_b,
                              tn_f, tn_b, bool(model2), w_f, w_b, int(max_jump), *acc)
    return (ll_f, ll_b) + acc
