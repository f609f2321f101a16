"""Label sequences as a structured problem: the chain marginal polytope with
label-conjoined features (a linear-chain Markov network, thesis sec. 2.2).

One :class:`ChainExample` holds a *batch* of chains (one sentence or
several hundred): its polytope is the product of the chains' marginal
polytopes, so a batch is a valid example of the saddle-point problem
(eq. 2.13) whose sum splits over examples in any grouping.  Batching keeps the
per-example vectors of size |w| few when |w| is large (millions of
label-conjoined features).

The encoding ``z`` of a batch is ``[node marginals (N*K), edge marginals
(E*K*K)]`` (eqs. 2.2-2.3), or, with ``compact=True`` (the default of the
entropy geometry), ``[node marginals (N*K), edge marginals summed over the
batch's edges (K*K)]``.  The compact encoding is the image of the marginal
polytope under a linear map through which the features and the loss factor
(the transition weights are shared by all positions), so the saddle-point
problem is the same; the KL step needs only node potentials and one shared
``K x K`` edge potential, because the centre has no edge potentials and the
scores of every edge are the same (see :meth:`ChainExample.prox`).  The weights are ``[emission (n_obs*K), transition
(K*K), start (K), end (K)]``, so the part scores are::

    s_t(k)     = sum_f x_t(f) W_e(f, k)  (+ W_start(k) at t = 0, + W_end(k) at the end)
    s_t,t+1(a, b) = W_trans(a, b)

The loss is the Hamming loss: ``l(z) = sum_t sum_{k != y_t} z_t(k)``
(``c`` = 1 on the wrong labels of every node, ``d = 0``; eq. 2.12).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..._checks import check_number, check_whole, whole_array
from ..._example import StructuredExample
from . import _kernels as kern
from .._magnitude import check_magnitude
from ._checks import check_feasible, check_potentials, check_starts

__all__ = ["ChainExample", "chain_marginals", "chain_viterbi", "project_chain",
           "chain_kl_prox", "n_chain_weights", "tree_potentials_of"]


def n_chain_weights(n_obs, n_labels):
    """|w| of the linear-chain model: emission, transition, start and end weights."""
    return n_obs * n_labels + n_labels * n_labels + 2 * n_labels


def _starts_of(lengths):
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=starts[1:])
    return starts


def chain_marginals(node, edge, starts):
    """Node and edge marginals and ``log Z`` of a batch of chains (sum-product).

    Parameters
    ----------
    node : ndarray (N, K)
        Node log-potentials.
    edge : ndarray (E, K, K)
        Edge log-potentials, ``E = N - n_chains``.
    starts : ndarray (n_chains + 1,)
        Token offsets of the chains.

    Returns
    -------
    node_marg (N, K), edge_marg (E, K, K), log_z (n_chains,)
    """
    starts = check_starts(starts, np.shape(node)[0] if np.ndim(node) else -1)
    node, edge = check_potentials(node, edge, np.shape(node)[0] - starts.size + 1)
    nm = np.empty_like(node)
    em = np.empty_like(edge)
    logz = check_feasible(kern.chain_sum_product(node, edge, starts, nm, em))
    return nm, em, logz


def chain_viterbi(node, edge, starts):
    """MAP labels (N,) and best scores (n_chains,); ``edge`` may be (E, K, K) or (K, K)."""
    starts = check_starts(starts, np.shape(node)[0] if np.ndim(node) else -1)
    node, edge = check_potentials(node, edge, np.shape(node)[0] - starts.size + 1,
                                  shared_ok=True)
    shared = edge.ndim == 2
    edge = np.ascontiguousarray(edge[None] if shared else edge)
    labels = np.empty(node.shape[0], dtype=np.int64)
    best = check_feasible(kern.chain_viterbi(node, edge, starts, shared, labels), "best score")
    return labels, best


def project_chain(node, edge, starts, tol=1e-9, max_iter=20000, warm=None):
    """Euclidean projection of ``(node, edge)`` onto the chain marginal polytope.

    Accelerated dual ascent on the marginalisation constraints
    (:func:`~structpred.polytopes.chain._kernels.chain_project_euclidean`).
    ``warm`` is an optional ``(lam, nu)`` pair of (E, K) multipliers, updated
    in place.  Returns ``(node_proj, edge_proj, info)``.
    """
    starts = check_starts(starts, np.shape(node)[0] if np.ndim(node) else -1)
    for name, arr in (("node", node), ("edge", edge)):   # none was checked before
        arr = np.asarray(arr)
        if np.iscomplexobj(arr) or not np.issubdtype(arr.dtype, np.number) \
                or (arr.size and not np.all(np.isfinite(arr))):
            raise ValueError(f"{name} must hold real, finite values (a point to project)")
        check_magnitude(arr, name)   # 1e300 was a ZeroDivisionError
    node, edge = check_potentials(node, edge, np.shape(node)[0] - starts.size + 1)
    E, K = edge.shape[0], node.shape[1]
    lam, nu = _check_warm(warm, E, K) if warm is not None else (np.zeros((E, K)),
                                                                 np.zeros((E, K)))
    mn = np.empty_like(node)
    me = np.empty_like(edge)
    it, viol = kern.chain_project_euclidean(node, edge, starts, lam, nu, int(max_iter),
                                            float(tol), mn, me)
    if viol > tol:
        warnings.warn(f"project_chain: constraint violation {viol:.3g} > tol={tol:g} after "
                      f"{it} iterations", RuntimeWarning, stacklevel=2)
    return mn, me, {"iterations": int(it), "violation": float(viol)}


def _check_warm(warm, E, K):
    """``project_chain``'s ``warm`` pair, or a ``TypeError`` naming what does not fit: the
    kernel updates the arrays in place, so they must be writable native float64 arrays of
    shape ``(E, K)`` (a read-only or big-endian array, or a list, was a numba typing error;
    an array of more rows was read in part, silently)."""
    try:
        pair = tuple(warm)
    except TypeError:
        pair = ()
    if len(pair) != 2:
        got = f"a {type(warm).__name__}" + (f" of {len(pair)}" if pair else "")
    else:
        bad = [(name, a) for name, a in zip(("lam", "nu"), pair)
               if not (isinstance(a, np.ndarray) and a.dtype == np.float64
                       and a.dtype.isnative and a.shape == (E, K) and a.flags.writeable)]
        if not bad:
            return pair
        name, a = bad[0]
        got = (f"{name} of type {type(a).__name__}" if not isinstance(a, np.ndarray) else
               f"{name} read-only" if a.dtype == np.float64 and a.dtype.isnative
               and a.shape == (E, K) else f"{name} of dtype {a.dtype.str} and shape {a.shape}")
    raise TypeError(f"warm must be a pair (lam, nu) of writable float64 arrays of shape "
                    f"({E}, {K}) (the multipliers, updated in place), got {got}")


def chain_kl_prox(log_potentials, s, eta, starts, n_tokens, n_labels):
    """Bregman (KL) proximal step on the chain polytope (thesis sec. 2.4.2).

    If the current point ``z`` is the marginal vector of the Gibbs distribution
    with log-potentials ``theta`` (node then edge, in the layout of ``z``),
    ``T_eta(z, s) = argmax_{z'} s'z' - KL(P_z' || P_z) / eta`` is the marginal
    vector of the distribution with log-potentials ``theta + eta s``: the
    multiplicative update ``P(y) ∝ P_z(y) exp(eta s'z(y))``, whose marginals
    sum-product computes.  The edge part is ``(E, K, K)`` (one potential per
    edge) or ``(K, K)`` (shared by all edges; the edge marginals are then
    returned summed over the edges).  Returns ``(z', theta + eta s)``.
    """
    theta = log_potentials + eta * np.asarray(s, dtype=np.float64)
    N, K = n_tokens, n_labels
    node = theta[:N * K].reshape(N, K)
    z = np.empty_like(theta)
    zn = z[:N * K].reshape(N, K)
    if theta.size == N * K + K * K:
        ze = z[N * K:].reshape(K, K)
        ze[:] = 0.0
        kern.chain_sum_product_shared(node, theta[N * K:].reshape(K, K), starts, zn, ze)
    else:
        kern.chain_sum_product(node, theta[N * K:].reshape(-1, K, K), starts, zn,
                               z[N * K:].reshape(-1, K, K))
    return z, theta


def tree_potentials_of(node_marg, edge_marg, starts):
    """Log-potentials whose Gibbs distribution has the given chain marginals.

    ``P_z(y) = prod_e z_e(y_e) prod_j z_j(y_j)^(1 - q_j)`` (thesis sec. 2.4.2):
    edge potentials ``log z_e``, node potentials ``(1 - q_j) log z_j``.
    """
    with np.errstate(divide="ignore"):
        log_node = np.log(node_marg)
        edge = np.log(edge_marg)
    q = np.full(node_marg.shape[0], 2.0)
    q[starts[:-1]] -= 1.0
    q[starts[1:] - 1] -= 1.0
    coef = (1.0 - q)[:, None]
    # a zero node marginal is carried by its -inf edge potentials (or is -inf when alone)
    safe = np.where(node_marg > 0, log_node, 0.0)
    node = np.where(node_marg > 0, coef * safe, np.where(q[:, None] == 0, -np.inf, 0.0))
    return node, edge


class _Marginals(np.ndarray):
    """Marginals returned by the KL step, carrying their log-potentials so that the
    next KL step from this point needs no logarithms.  Arithmetic on them gives
    plain arrays (the potentials are not inherited)."""

    def __new__(cls, values, log_potentials):
        obj = np.asarray(values).view(cls)
        obj.log_potentials = log_potentials
        return obj

    def __array_finalize__(self, obj):
        self.log_potentials = None

    def __reduce__(self):
        return (np.array, (np.asarray(self),))


class ChainExample(StructuredExample):
    """A batch of label sequences on the chain marginal polytope.

    Parameters
    ----------
    x : scipy.sparse matrix (N, n_obs)
        Observation features of every token of the batch, the chains' tokens
        one after another.
    lengths : array_like of int
        Length of each chain (sentence).
    y : array_like of int (N,), optional
        Gold labels in ``0..n_labels-1``; without them the example can only
        decode.
    n_labels : int
    geometry : {"euclidean", "entropy"}
        ``"euclidean"``: the proximal step is the Euclidean projection onto
        the marginal polytope (fig. 2.2; a QP, solved by accelerated dual
        ascent with warm starts).  ``"entropy"``: the Bregman step of
        sec. 2.4.2 (fig. 2.4), one sum-product per step.
    smoothing : float
        With ``"entropy"``, the centre ``u_hat_z`` is the product distribution
        with node marginals ``(1 - smoothing) z(y_t) + smoothing / K``: near
        the gold structure and in the interior, as sec. 2.4.2 requires.
    compact : bool, optional
        Encode the edge marginals summed over the batch (default: with the
        entropy geometry).  The Euclidean projection needs every edge's
        marginals, so ``compact`` requires ``geometry="entropy"``.
    tol : float
        Tolerance of the Euclidean projection (largest marginalisation
        violation).
    label_scale : float
        The transition, start and end features have value ``label_scale``
        (default 1).  Like scaling the token features ``x``, it changes only
        the parametrisation when ``W`` has no norm bound, and it balances the
        columns of ``F`` so that ``L = ||F||_2`` is not set by the label
        features alone (a diagonal preconditioning of the step on ``w``).
    loss_scale : float
        The loss is ``loss_scale`` times the Hamming loss (default 1): ``c`` is
        ``loss_scale`` on the wrong labels of every node.
    """

    def __init__(self, x, lengths, y=None, n_labels=None, geometry="entropy", smoothing=0.1,
                 compact=None, tol=1e-6, label_scale=1.0, loss_scale=1.0):
        if geometry not in ("euclidean", "entropy"):
            raise ValueError(f"unknown geometry {geometry!r}")
        check_number("smoothing", smoothing, strict=True)   # "0.1" was a TypeError of "<"
        if not 0.0 < smoothing < 1.0:
            raise ValueError(f"smoothing must be in (0, 1), got {smoothing}")
        if not float(loss_scale) > 0.0:
            raise ValueError(f"loss_scale must be positive, got {loss_scale}")
        compact = geometry == "entropy" if compact is None else bool(compact)
        if compact and geometry != "entropy":
            raise ValueError("the compact encoding needs geometry='entropy'")
        x = sp.csr_matrix(x, dtype=np.float64)
        x.sort_indices()
        if not np.all(np.isfinite(x.data)):
            raise ValueError("x contains NaN or infinite feature values")
        self.lengths = whole_array("lengths", lengths)
        if np.any(self.lengths < 1):
            raise ValueError("every chain needs at least one token")
        self.starts = _starts_of(self.lengths)
        if x.shape[0] != self.starts[-1]:
            raise ValueError(f"x has {x.shape[0]} rows, lengths sum to {self.starts[-1]}")
        self.x = x
        y = None if y is None else whole_array("y", y)
        if n_labels is None:
            if y is None:
                raise ValueError("n_labels is needed without y")
            n_labels = int(np.max(y)) + 1
        check_whole("n_labels", n_labels, 1)
        self.n_labels = K = int(n_labels)
        self.n_obs = x.shape[1]
        self.geometry = geometry
        self.compact = compact
        self.smoothing = float(smoothing)
        self.tol = float(tol)
        self.label_scale = float(label_scale)
        self.loss_scale = float(loss_scale)
        self.n_tokens = N = int(self.starts[-1])
        self.n_edges = N - self.lengths.size
        self._nk = N * K
        self._left = np.ones(N, dtype=bool)          # tokens with a right neighbour
        self._left[self.starts[1:] - 1] = False
        self._dual = None
        self._center = None
        self.y = y
        self.d = 0.0
        if self.y is not None:
            if self.y.shape != (N,) or self.y.min() < 0 or self.y.max() >= K:
                raise ValueError("y must hold one label in 0..n_labels-1 per token")
            self.z_gold = self.encode(self.y)
            self.c = np.zeros(self.n_vars)
            c = self.c[:self._nk].reshape(N, K)
            c[:] = self.loss_scale
            c[np.arange(N), self.y] = 0.0
            self.target_features = self.features_of(self.z_gold)
        else:
            self.z_gold = None
            self.c = np.zeros(self.n_vars)
            self.target_features = None

    def __repr__(self):
        # the dataclass repr of StructuredExample reads F, which a chain never forms
        return (f"ChainExample(n_chains={self.lengths.size}, n_tokens={self.n_tokens}, "
                f"n_labels={self.n_labels}, n_obs={self.n_obs}, geometry={self.geometry!r}, "
                f"labelled={self.y is not None})")

    def __getstate__(self):
        state = dict(super().__getstate__())
        state["_center"] = None
        state["_dual"] = None
        return state

    # --------------------------------------------------------------- sizes
    @property
    def n_features(self):
        return n_chain_weights(self.n_obs, self.n_labels)

    @property
    def n_vars(self):
        K = self.n_labels
        return self._nk + (K * K if self.compact else self.n_edges * K * K)

    @property
    def F(self):
        raise AttributeError("ChainExample never forms F; use scores() and features_of()")

    # ------------------------------------------------------------ encoding
    def encode(self, labels):
        """``z(y)``: node indicators and edge indicators (or transition counts) of a labelling."""
        N, K = self.n_tokens, self.n_labels
        labels = np.asarray(labels, dtype=np.int64)
        z = np.zeros(self.n_vars)
        z[np.arange(N) * K + labels] = 1.0
        t = np.flatnonzero(self._left)
        pair = labels[t] * K + labels[t + 1]
        if self.compact:
            np.add.at(z, self._nk + pair, 1.0)
        else:
            z[self._nk + np.arange(self.n_edges) * K * K + pair] = 1.0
        return z

    def split(self, z):
        """Views ``(node (N, K), edge)`` of an encoding or score vector; ``edge`` is
        (E, K, K), or (K, K) in the compact encoding."""
        K = self.n_labels
        edge = z[self._nk:]
        return z[:self._nk].reshape(-1, K), (edge.reshape(K, K) if self.compact
                                             else edge.reshape(-1, K, K))

    def _split_w(self, w):
        K, n = self.n_labels, self.n_obs * self.n_labels
        w = np.asarray(w, dtype=np.float64)
        return (w[:n].reshape(-1, K), w[n:n + K * K].reshape(K, K),
                w[n + K * K:n + K * K + K], w[n + K * K + K:])

    # ------------------------------------------------------------ operators
    def node_scores(self, w, out=None):
        """``(N, K)`` node scores (into ``out`` when given) and the ``(K, K)`` transition
        scores for weights ``w``."""
        We, Wt, Ws, Wend = self._split_w(w)
        node = np.empty((self.n_tokens, self.n_labels)) if out is None else out
        kern.emission_scores(self.x.indptr, self.x.indices, self.x.data,
                             np.ascontiguousarray(We), node)
        a = self.label_scale
        node[self.starts[:-1]] += a * Ws
        node[self.starts[1:] - 1] += a * Wend
        return node, a * Wt

    def scores(self, w):
        s = np.empty(self.n_vars)
        node, Wt = self.node_scores(w, out=s[:self._nk].reshape(-1, self.n_labels))
        s[self._nk:].reshape(-1, self.n_labels, self.n_labels)[:] = Wt
        return s

    def loss_augmented_scores(self, w):
        s = self.scores(w)
        s += self.c
        return s

    def features_of(self, z):
        g = np.zeros(self.n_features)
        self.add_features_of(z, g)
        return g

    def add_features_of(self, z, out):
        """``out += F z`` in place: the token features scattered straight into ``out``."""
        K = self.n_labels
        zn, ze = self.split(np.asarray(z, dtype=np.float64))
        n = self.n_obs * K
        kern.emission_gradient(self.x.indptr, self.x.indices, self.x.data,
                               np.ascontiguousarray(zn), out[:n].reshape(-1, K))
        a = self.label_scale
        out[n:n + K * K] += a * (ze if self.compact else ze.sum(axis=0)).ravel()
        out[n + K * K:n + K * K + K] += a * zn[self.starts[:-1]].sum(axis=0)
        out[n + K * K + K:] += a * zn[self.starts[1:] - 1].sum(axis=0)

    # --------------------------------------------------------- the polytope
    def project(self, z):
        if self.compact:
            raise NotImplementedError("the Euclidean projection needs compact=False")
        node, edge = self.split(np.asarray(z, dtype=np.float64))
        if self._dual is None:
            self._dual = (np.zeros((self.n_edges, self.n_labels)),
                          np.zeros((self.n_edges, self.n_labels)))
        mn, me, _ = project_chain(node, edge, self.starts, tol=self.tol, warm=self._dual)
        return np.concatenate([mn.ravel(), me.ravel()])

    def decode_scores(self, s):
        node, edge = self.split(np.asarray(s, dtype=np.float64))
        labels, _ = chain_viterbi(node, edge, self.starts)
        return self.encode(labels)

    def predict_labels(self, w):
        """MAP labelling ``argmax_y w'f(y)`` of every token (N,), by Viterbi."""
        node, Wt = self.node_scores(w)
        return chain_viterbi(node, Wt, self.starts)[0]

    def constraints(self):
        """``(A, b)`` of eqs. 2.2-2.3 as inequalities (for the reference QP)."""
        if self.compact:
            raise NotImplementedError("constraints need compact=False")
        N, K = self.n_tokens, self.n_labels
        rows, cols, vals, b = [], [], [], []
        r = 0

        def add(idx, coef, rhs):
            nonlocal r
            for sign in (1, -1):
                rows.extend([r] * len(idx))
                cols.extend(idx)
                vals.extend(sign * np.asarray(coef, dtype=np.float64))
                b.append(sign * rhs)
                r += 1

        for t in range(N):                       # sum_k z_t(k) = 1
            add(list(t * K + np.arange(K)), np.ones(K), 1.0)
        coef = np.r_[np.ones(K), -1.0]
        for j, t in enumerate(np.flatnonzero(self._left)):
            base = self._nk + j * K * K
            for a in range(K):   # sum_b z_e(a, b) = z_t(a);  sum_b z_e(b, a) = z_{t+1}(a)
                add(list(base + a * K + np.arange(K)) + [t * K + a], coef, 0.0)
                add(list(base + np.arange(K) * K + a) + [(t + 1) * K + a], coef, 0.0)
        A = sp.csr_matrix((vals, (rows, cols)), shape=(r, self.n_vars))
        return A, np.asarray(b, dtype=np.float64)

    # ------------------------------------------------------------ geometry
    def center(self):
        if self.geometry == "euclidean":
            return self.z_gold
        if self._center is None:
            N, K = self.n_tokens, self.n_labels
            node = np.full((N, K), self.smoothing / K)
            node[np.arange(N), self.y] += 1.0 - self.smoothing
            # a product distribution: no edge potentials, edge marginals are outer products
            t = np.flatnonzero(self._left)
            edge = (node[t].T @ node[t + 1] if self.compact
                    else node[t][:, :, None] * node[t + 1][:, None, :])
            theta = np.concatenate([np.log(node).ravel(), np.zeros(edge.size)])
            self._center = _Marginals(np.concatenate([node.ravel(), edge.ravel()]), theta)
        return self._center

    def prox(self, z, s, eta):
        """The proximal step ``T_eta(z, s)``: Euclidean projection of ``z + eta s``, or the
        KL step of sec. 2.4.2 (:func:`chain_kl_prox`).

        The KL step uses the log-potentials that the centre and earlier KL steps
        carry (``z.log_potentials``): the learners only take KL steps from the
        centre and from points that KL steps returned.  In the full encoding a
        point without them is reparametrised from its marginals
        (:func:`tree_potentials_of`); the compact encoding cannot be, and refuses.
        """
        if self.geometry == "euclidean":
            return self.project(z + eta * np.asarray(s))
        theta = getattr(z, "log_potentials", None)
        if theta is None:
            if self.compact:
                raise ValueError("a KL step in the compact encoding starts from the centre "
                                 "or from the result of another KL step")
            node, edge = tree_potentials_of(*self.split(np.asarray(z, dtype=np.float64)),
                                            self.starts)
            theta = np.concatenate([node.ravel(), edge.ravel()])
        z_new, theta_new = chain_kl_prox(theta, s, eta, self.starts, self.n_tokens,
                                         self.n_labels)
        return _Marginals(z_new, theta_new)

    def loss(self, z):
        return self.d + float(self.c @ np.asarray(z, dtype=np.float64).ravel())
