"""Nesterov's dual extragradient for the max-margin saddle point (thesis ch. 2).

Two implementations of the same iteration:

* :func:`dual_extragradient` keeps the full state ``(s_w, s_z, u_bar_w,
  u_bar_z)`` and follows the expanded form of eq. 2.17 (fig. 2.2) or, with
  Bregman proximal steps, fig. 2.4.
* :func:`dual_extragradient_streaming` is the memory-efficient form of
  sec. 2.5 (fig. 2.6): between iterations it keeps only ``u_bar_w`` and
  ``s_w``, rebuilding ``s_{z_i}^{t-1} = t (F_i' u_bar_w^{t-1} + c_i)`` on the
  fly, so its memory is four vectors of size |w| plus one example.  Each
  pass over the examples is a *map* (:func:`example_step`, a pure function
  of picklable data) followed by a *reduce* (two sums), so the map can be
  handed to ``multiprocessing.Pool.imap`` or a Dask client unchanged.

Both produce identical iterates (tested to 1e-8).  The geometry is whatever
the examples' and W's ``prox`` implement: the Euclidean projection by
default, a Bregman step when an example class overrides it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np
from tqdm.auto import tqdm

from .._checks import check_positive, check_seed
from ..io import progress_enabled
from ._monitor import Monitor
from ._parameter_set import L2Ball
from ._executor import make_backend
from ._stream import iterate_examples, n_features_of, power_iteration_norm

__all__ = ["dual_extragradient", "dual_extragradient_streaming", "example_step", "step_size"]


def step_size(examples, eta=None, random_state=0, backend=None):
    """``eta = 1/L`` with ``L = ||F||_2`` estimated by power iteration, unless given."""
    if eta is not None:   # inf was an IndexError, "1" a TypeError, True a step of 1
        return check_positive("eta", eta), None
    L = power_iteration_norm(examples, random_state=random_state, backend=backend)
    if L <= 0:
        raise ValueError("all feature matrices are zero: the problem is trivial")
    return 1.0 / L, L


#: the most iterations a learner accepts (far beyond any convergence; a typo such as
#: ``10**12`` would otherwise run for ever)
MAX_ITERATIONS = 10 ** 7


def check_iterations(n_iter, name="n_iter"):
    """Raise ``ValueError`` unless ``n_iter`` is an integer from 1 to :data:`MAX_ITERATIONS`
    (``n_iter=0`` would return the starting point as if it had converged)."""
    from .._checks import check_whole

    check_whole(name, n_iter, 1, MAX_ITERATIONS)


def _prepare(examples, W, monitor, n_iter=None, name="n_iter", random_state=0):
    if n_iter is not None:
        check_iterations(n_iter, name)
    # -1 and "a" were numpy's "expected non-negative integer" and SeedSequence errors
    check_seed(random_state, generators=True)
    if W is not None and not callable(getattr(W, "prox", None)):   # 3.0 had no .project
        raise TypeError(f"W must be a parameter set such as L2Ball(radius) or None, got "
                        f"{type(W).__name__} {W!r:.40}")
    W = L2Ball() if W is None else W
    if monitor is not None and not callable(getattr(monitor, "reset", None)):
        raise TypeError(f"monitor must be a Monitor or None, got {type(monitor).__name__} "
                        f"{monitor!r:.40}")   # an AttributeError ('reset') before
    monitor = Monitor(every=10**9) if monitor is None else monitor
    monitor.reset()
    if isinstance(examples, (list, tuple)):
        _check_widths(examples)
    n = n_features_of(examples)
    nonneg = getattr(W, "nonneg", ())
    if nonneg and isinstance(n, (int, np.integer)) and max(nonneg) >= n:   # an IndexError before
        raise ValueError(f"W.nonneg names coordinate {max(nonneg)}, but the examples have "
                         f"{n} features (coordinates 0..{n - 1})")
    return W, monitor, n


def _check_widths(examples):
    """``ValueError`` naming the first example whose feature count differs from example
    0's (numpy's "matmul: dimension mismatch" named neither)."""
    widths = [getattr(ex, "n_features", None) for ex in examples]
    for i, d in enumerate(widths[1:], 1):
        if d is not None and widths[0] is not None and d != widths[0]:
            raise ValueError(f"example {i} has {d} features and example 0 has {widths[0]}: "
                             "every example must use the same feature space (one w)")


def dual_extragradient(examples, W=None, n_iter=100, eta=None, monitor=None,
                       verbose=False, random_state=0):
    """Dual extragradient with full state (eq. 2.17 expanded; fig. 2.2 / fig. 2.4).

    With ``u = (w, z_1, ..., z_m)``, centre ``u_hat = (pi_W(0), z(y_1), ...)``
    and ``s^{-1} = 0``, iteration ``t = 0..n_iter-1`` computes::

        v_w   = T(u_hat_w,  s_w)                 v_zi  = T(u_hat_zi, s_zi)
        u_w   = T(v_w, -[sum_i F_i v_zi - f_i])  u_zi  = T(v_zi, F_i' v_w + c_i)
        s_w  -= sum_i F_i u_zi - f_i             s_zi += F_i' u_w + c_i

    where ``T(u, s) = pi(u + eta s)`` in the Euclidean case, and outputs
    the running average ``u_bar`` of the ``u``'s.  The gap of ``u_bar`` after
    tau iterations is at most ``(D_w + D_z) L / (tau + 1)`` (eq. 2.19).

    Parameters
    ----------
    examples : sequence of :class:`~structpred.StructuredExample`
    W : :class:`~structpred.L2Ball`, optional
        Parameter set; default unconstrained.
    n_iter : int
    eta : float, optional
        Step size; default ``1/||F||_2`` by power iteration.
    monitor : :class:`~structpred.Monitor`, optional
        Evaluated at ``u_bar_w``.
    verbose : bool
        tqdm progress bar over iterations.

    Returns
    -------
    :class:`~structpred.SolverResult` with ``info['u_bar_z']`` (the
    averaged z's), ``info['eta']`` and ``info['lipschitz']``.
    """
    examples = list(iterate_examples(examples))
    W, monitor, d = _prepare(examples, W, monitor, n_iter, random_state=random_state)
    eta, L = step_size(examples, eta, random_state)
    m = len(examples)
    hat_w = W.project(np.zeros(d))
    hat_z = [ex.center() for ex in examples]
    s_w = np.zeros(d)
    s_z = [np.zeros(ex.n_vars) for ex in examples]
    ubar_w = np.zeros(d)
    ubar_z = [np.zeros(ex.n_vars) for ex in examples]
    status, t = 0, -1
    for t in tqdm(range(n_iter), disable=not progress_enabled(verbose), desc="dual-ex"):
        v_w = W.prox(hat_w, s_w, eta)
        v_z = [examples[i].prox(hat_z[i], s_z[i], eta) for i in range(m)]
        grad_w = sum(ex.features_of(v) - ex.target_features for ex, v in zip(examples, v_z))
        u_w = W.prox(v_w, -grad_w, eta)
        u_z = [ex.prox(v, ex.loss_augmented_scores(v_w), eta) for ex, v in zip(examples, v_z)]
        s_w = s_w - sum(ex.features_of(u) - ex.target_features for ex, u in zip(examples, u_z))
        for i, ex in enumerate(examples):
            s_z[i] = s_z[i] + ex.loss_augmented_scores(u_w)
            ubar_z[i] = (t * ubar_z[i] + u_z[i]) / (t + 1)
        ubar_w = (t * ubar_w + u_w) / (t + 1)
        status = monitor.after_iteration(t, n_iter, ubar_w, examples)
        if status:
            break
    return monitor.result(ubar_w, t + 1, status,
                          info={"eta": eta, "lipschitz": L, "u_bar_z": ubar_z})


def _prox_steps(example, ubar_w, v_w, t, eta):
    """Rebuilds ``s_zi^{t-1} = t (F_i' u_bar_w + c_i)`` (sec. 2.5) and takes the two
    proximal steps on ``z_i``: returns ``(v_zi, u_zi)``."""
    s_z = t * example.loss_augmented_scores(ubar_w)
    v_z = example.prox(example.center(), s_z, eta)
    return v_z, example.prox(v_z, example.loss_augmented_scores(v_w), eta)


def example_step(example, ubar_w, v_w, t, eta):
    """The per-example *map* of the memory-efficient dual extragradient (fig. 2.6).

    Takes the two proximal steps on ``z_i`` (:func:`_prox_steps`) and returns the
    example's contributions ``(F_i v_zi - f_i, F_i u_zi - f_i)`` to ``r_w`` and to ``s_w``.
    """
    v_z, u_z = _prox_steps(example, ubar_w, v_w, t, eta)
    f = example.target_features
    return example.features_of(v_z) - f, example.features_of(u_z) - f


def _steps_in_place(examples, ubar_w, v_w, t, eta, d, target):
    """The map and the reduce in one pass, in process: ``F_i v_zi`` and ``F_i u_zi`` are
    added into ``r_w`` and ``s_w``'s increment in place (``add_features_of``) and
    ``target = sum_i f_i`` is subtracted once, so no vector of size |w| is formed per
    example.  ``target`` is None on the first pass, which sums it; returns
    ``(r_w, q_w, target)``."""
    r = np.zeros(d)
    q = np.zeros(d)
    first = target is None
    if first:
        target = np.zeros(d)
    for ex in iterate_examples(examples):
        v_z, u_z = _prox_steps(ex, ubar_w, v_w, t, eta)
        ex.add_features_of(v_z, r)
        ex.add_features_of(u_z, q)
        if first:
            target += ex.target_features
    r -= target
    q -= target
    return r, q, target


def _reduce_sums(parts, d):
    """The *reduce*: ``r = sum_i F_i v_zi - f_i`` and ``q = sum_i F_i u_zi - f_i``."""
    r = np.zeros(d)
    q = np.zeros(d)
    for r_i, q_i in parts:
        r += r_i
        q += q_i
    return r, q


def dual_extragradient_streaming(examples, W=None, n_iter=100, eta=None, monitor=None,
                                 verbose=False, random_state=0, map_fn=map, executor=None,
                                 n_partitions=None):
    """Memory-efficient dual extragradient (sec. 2.5, fig. 2.6).

    State between iterations: ``u_bar_w`` and ``s_w`` only.  Iteration t::

        v_w = T(u_hat_w, s_w)
        for each example i (streamed; the map):
            v_zi = T(z(y_i), t (F_i' u_bar_w + c_i))
            u_zi = T(v_zi, F_i' v_w + c_i)
        r_w = sum_i F_i v_zi - f_i ;  s_w -= sum_i F_i u_zi - f_i   (the reduce)
        u_w = T(v_w, -r_w)
        u_bar_w = (t u_bar_w + u_w) / (t + 1)

    It produces the same iterates as :func:`dual_extragradient`.

    Parameters
    ----------
    examples : sequence or :class:`~structpred.ExampleStream`
        Iterated once per iteration (plus once per monitored hinge loss).
    map_fn : callable, default :func:`map`
        ``map_fn(func, iterable)``; pass ``pool.imap`` (multiprocessing) or
        a Dask/concurrent.futures map to shard the examples.  ``func`` is a
        :func:`functools.partial` of the module-level :func:`example_step`,
        so it pickles.  Ignored when ``executor`` is given.  With the default the
        map and the reduce run as one pass in process (:func:`_steps_in_place`).
    executor : None, dask.distributed.Client or concurrent.futures.Executor
        Where the map runs (:mod:`structpred.learners._executor`).  With a
        Dask client the examples are partitioned and scattered to the workers
        once; each iteration ships ``u_bar_w`` and ``v_w`` out and brings one
        ``(r_w, s_w)`` increment back after a tree reduce on the workers, so
        communication per iteration is O(|w|) and the driver's memory does not
        grow with the number of examples.  The step size's power iteration and
        the monitor's hinge loss use the same map.  ``result.info["transfer"]``
        records the bytes moved.
    n_partitions : int, optional
        Partitions of the examples with an executor (default: two per worker
        thread).

    Other parameters and the return value are as in :func:`dual_extragradient`
    (without ``u_bar_z``, which this form never stores).
    """
    if executor is not None:
        return _dual_extragradient_distributed(examples, W, n_iter, eta, monitor, verbose,
                                               random_state, executor, n_partitions)
    if isinstance(examples, Iterator):   # the step size read it, and no example was left
        raise TypeError("examples is an iterator, which can be read once; the streaming "
                        "learner reads the examples once per iteration: give a list or an "
                        "ExampleStream(factory, length)")
    W, monitor, d = _prepare(examples, W, monitor, n_iter, random_state=random_state)
    eta, L = step_size(examples, eta, random_state)
    hat_w = W.project(np.zeros(d))
    s_w = np.zeros(d)
    ubar_w = np.zeros(d)
    target = None   # sum_i f_i, summed by the first in-process pass
    status, t = 0, -1
    for t in tqdm(range(n_iter), disable=not progress_enabled(verbose),
                  desc="dual-ex (streaming)"):
        v_w = W.prox(hat_w, s_w, eta)
        if map_fn is map:
            r_w, q_w, target = _steps_in_place(examples, ubar_w, v_w, t, eta, d, target)
        else:
            step = functools.partial(example_step, ubar_w=ubar_w, v_w=v_w, t=t, eta=eta)
            r_w, q_w = _reduce_sums(map_fn(step, iterate_examples(examples)), d)
        s_w = s_w - q_w
        u_w = W.prox(v_w, -r_w, eta)
        ubar_w = (t * ubar_w + u_w) / (t + 1)
        status = monitor.after_iteration(t, n_iter, ubar_w, examples)
        if status:
            break
    return monitor.result(ubar_w, t + 1, status, info={"eta": eta, "lipschitz": L})


def _dual_extragradient_distributed(examples, W, n_iter, eta, monitor, verbose, random_state,
                                    executor, n_partitions):
    """Fig. 2.6 with the map on an executor: the same iterates as the in-process loop."""
    W, monitor, d = _prepare(examples, W, monitor, n_iter, random_state=random_state)
    backend = make_backend(examples, executor, n_partitions)
    backend.n_features = d
    try:
        eta, L = step_size(examples, eta, random_state, backend=backend)
        hat_w = W.project(np.zeros(d))
        s_w = np.zeros(d)
        ubar_w = np.zeros(d)
        status, t = 0, -1
        for t in tqdm(range(n_iter), disable=not progress_enabled(verbose),
                      desc="dual-ex (distributed)"):
            v_w = W.prox(hat_w, s_w, eta)
            r_w, q_w = backend.map_reduce(example_step, ubar_w, v_w, t, eta)
            s_w = s_w - q_w
            u_w = W.prox(v_w, -r_w, eta)
            ubar_w = (t * ubar_w + u_w) / (t + 1)
            status = monitor.after_iteration(t, n_iter, ubar_w, backend)
            if status:
                break
        info = {"eta": eta, "lipschitz": L, "transfer": dict(backend.stats)}
    finally:
        backend.close()
    return monitor.result(ubar_w, t + 1, status, info=info)
