"""The problem protocol: what a structured example exposes to the solvers.

Max-margin estimation is written as the saddle-point problem (thesis eq. 2.13)

.. math::
    \\min_{w \\in W} \\max_{z \\in Z} \\sum_i w^\\top F_i z_i + c_i^\\top z_i
        - w^\\top f_i(y_i),

where, for example ``i``,

* ``F_i`` (``d x |z_i|``, sparse) holds the features of every part of the
  structure, so that the score of an encoding is ``w' F_i z``;
* ``c_i``, ``d_i`` express the loss as ``l_i(z) = d_i + c_i' z`` (eq. 2.12);
* ``f_i(y_i) = F_i z(y_i)`` are the target features;
* ``Z_i`` is a polytope whose vertices are the encodings of the outputs.

The solvers in :mod:`structpred` only ever call the methods of
:class:`StructuredExample`; problem modules (alignment, segmentation) subclass
it and never see the optimiser.  Examples are plain data (arrays and sparse
matrices), so they pickle and can be shipped to worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._checks import unmasked
from ._loss import weighted_hamming_terms

__all__ = ["StructuredExample"]


def _check_features(F, n_vars):
    unmasked(F, "the feature matrix")
    kind = (F.dtype if sp.issparse(F) else np.asarray(F).dtype).kind
    if kind not in "biuf" and not (kind == "O" and not sp.issparse(F)):
        # complex: cut to its real part, silently; strings: float()'s "could not convert"
        what = {"c": "complex numbers", "U": "strings", "S": "bytes", "M": "dates",
                "m": "time spans"}.get(kind, "values that are not numbers")
        raise TypeError(f"the feature matrix must hold real numbers, got {what}")
    try:
        F = sp.csr_matrix(F, dtype=np.float64)
    except (TypeError, ValueError) as exc:   # an object array holding a string or None
        raise TypeError("the feature matrix must hold real numbers") from exc
    if F.shape[1] != n_vars:
        raise ValueError(f"feature matrix has {F.shape[1]} columns, expected {n_vars}")
    if F.nnz and not np.all(np.isfinite(F.data)):
        raise ValueError("feature matrix contains NaN or infinite values")
    return F


def _check_gold(z):
    """``z_gold`` as a flat float array, refused unless finite and inside the unit box
    that holds every polytope of :mod:`structpred.polytopes` (a target outside it makes
    the saddle point meaningless, and the learners would still report convergence)."""
    unmasked(z, "z_gold")
    try:
        z = np.asarray(z, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError("z_gold must be an array of numbers") from None
    if not np.all(np.isfinite(z)):
        raise ValueError("z_gold contains NaN or infinite values")
    if z.size and (z.min() < -1e-9 or z.max() > 1 + 1e-9):
        raise ValueError(f"z_gold is outside the polytope: its values must lie in [0, 1], "
                         f"got values from {z.min():g} to {z.max():g}")
    return z


@dataclass
class StructuredExample:
    """One training example of a linear structured model (thesis sec. 2.3).

    Subclasses implement :meth:`project`, :meth:`decode_scores` and, when a
    reference QP is wanted, :meth:`constraints`.

    Parameters
    ----------
    F : scipy.sparse matrix, shape (n_features, n_vars)
        Column ``e`` holds the features of part ``e`` of the structure.
    z_gold : ndarray, shape (n_vars,)
        Encoding ``z(y_i)`` of the target; also the centre ``u_hat_z`` of the
        dual extragradient.  Finite values in [0, 1] (``ValueError`` otherwise).
    cost_pos, cost_neg : float or ndarray
        Weighted Hamming loss costs ``c+`` and ``c-`` (eq. 2.10).
    """

    F: sp.csr_matrix
    z_gold: np.ndarray
    cost_pos: float | np.ndarray = 1.0
    cost_neg: float | np.ndarray = 1.0
    c: np.ndarray = field(init=False, repr=False)
    d: float = field(init=False)
    target_features: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.z_gold = _check_gold(self.z_gold)
        self.F = _check_features(self.F, self.z_gold.size)
        self.c, self.d = weighted_hamming_terms(self.z_gold, self.cost_pos, self.cost_neg)
        # f_i(y_i) = F_i z(y_i)
        self.target_features = np.asarray(self.F @ self.z_gold).ravel()
        self._check_gold_feasible()

    def _check_gold_feasible(self, tol=1e-6):
        """Refuse a ``z_gold`` outside the polytope ``{z : A z <= b}`` of :meth:`constraints`
        (eq. 2.11); the unit box is checked already.  Skipped when the subclass gives no
        constraints, or when its sizes do not match yet (the subclass then refuses the size)."""
        try:
            A, b = self.constraints()
        except NotImplementedError:
            return
        A = sp.csr_matrix(A)
        if A.shape[1] != self.z_gold.size or A.shape[0] == 0:
            return
        excess = np.asarray(A @ self.z_gold).ravel() - np.asarray(b, dtype=np.float64).ravel()
        i = int(np.argmax(excess))
        if excess[i] > tol:
            raise ValueError(f"z_gold is outside the polytope: it violates constraint {i} of "
                             f"A z <= b (eq. 2.11) by {excess[i]:g}; a target must be a point "
                             f"of the polytope, e.g. the encoding of a feasible structure")

    # ------------------------------------------------------------------ sizes
    @property
    def n_features(self) -> int:
        return self.F.shape[0]

    @property
    def n_vars(self) -> int:
        return self.F.shape[1]

    # ------------------------------------------------------------ operators
    def scores(self, w):
        """Part scores ``F_i' w``."""
        return np.asarray(self.F_T @ w).ravel()

    @property
    def F_T(self):
        """``F_i'``, a view of ``F``'s arrays made once per ``F`` (scipy builds, and checks,
        a new transposed matrix on every ``F.T``: a fifth of the learners' time on small
        alignment problems).  The same product, computed the same way."""
        cached = self.__dict__.get("_F_T")
        if cached is None or cached[0] is not self.F:
            cached = (self.F, self.F.T)
            self.__dict__["_F_T"] = cached
        return cached[1]

    def __getstate__(self):
        # the transposed view is not sent (a Dask worker makes its own)
        state = dict(self.__dict__)
        state.pop("_F_T", None)
        return state

    def loss_augmented_scores(self, w):
        """``F_i' w + c_i``: the objective of loss-augmented inference (eq. 2.12)."""
        return self.scores(w) + self.c

    def features_of(self, z):
        """``F_i z``: the (expected) features of an encoding."""
        return np.asarray(self.F @ z).ravel()

    def add_features_of(self, z, out):
        """``out += F_i z`` in place (the learners' reduce); a subclass may scatter into
        ``out`` directly instead of forming a vector of size |w|."""
        out += self.features_of(z)

    # -------------------------------------------------- problem-specific part
    def project(self, z):
        """Euclidean projection onto the polytope ``Z_i``."""
        raise NotImplementedError

    def decode_scores(self, s):
        """``argmax_{z in vertices(Z_i)} s' z`` for arbitrary part scores ``s``."""
        raise NotImplementedError

    def constraints(self):
        """``(A_i, b_i)`` with ``Z_i = {z : A_i z <= b_i, 0 <= z <= 1}`` (eq. 2.11)."""
        raise NotImplementedError

    # ------------------------------------------------------------ geometry
    def center(self):
        """The centre ``u_hat_z`` of the dual extragradient: the target encoding (sec. 2.4.1.1)."""
        return self.z_gold

    def prox(self, z, s, eta):
        """Proximal step ``T_eta(z, s) = argmax_{z' in Z} s'(z'-z) - d(z, z')/eta``.

        In the Euclidean geometry this is ``pi_Z(z + eta s)`` (fig. 2.2);
        subclasses with a Bregman geometry override it (fig. 2.4).
        """
        return self.project(z + eta * s)

    # -------------------------------------------------------------- derived
    def decode(self, w):
        """Prediction: ``argmax_y w' f_i(y)``, returned as its encoding."""
        return self.decode_scores(self.scores(w))

    def loss_augmented_inference(self, w):
        """Exact loss-augmented inference ``argmax_z (F_i'w + c_i)'z`` (eq. 2.9)."""
        return self.decode_scores(self.loss_augmented_scores(w))

    def hinge_and_argmax(self, w):
        """Structured hinge loss (one term of eq. 2.21) and the loss-augmented argmax.

        ``max_y [w'f_i(y) + l_i(y)] - w'f_i(y_i) = d_i + max_z (F_i'w+c_i)'z - w'f_i(y_i)``.
        It is non-negative, and zero when the target wins by the loss margin.
        Returns ``(hinge, z*)``, so subgradient methods need one inference, not two.
        """
        s = self.loss_augmented_scores(w)
        z = self.decode_scores(s)
        return self.d + float(s @ z) - float(w @ self.target_features), z

    def hinge_loss(self, w):
        """Structured hinge loss of this example (one term of eq. 2.21)."""
        return self.hinge_and_argmax(w)[0]

    def loss(self, z):
        """Weighted Hamming loss ``d_i + c_i' z`` of an encoding."""
        return self.d + float(self.c @ np.asarray(z, dtype=np.float64).ravel())

