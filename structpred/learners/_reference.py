"""Reference learners on the same problem protocol, for comparison (thesis sec. 2.6).

* :func:`averaged_projected_gradient` -- eq. 2.16, with averaging;
* :func:`averaged_perceptron` -- Collins (2002), online, order reshuffled
  every pass, using plain decoding;
* :func:`subgradient_method` -- Ratliff, Bagnell & Zinkevich (2007): subgradient
  steps on the L2-regularised structured hinge loss (eq. 2.21 plus
  ``lambda/2 ||w||^2``), using loss-augmented inference.

They return the same :class:`~structpred.SolverResult` and accept the
same :class:`~structpred.Monitor` as the dual extragradient.
"""

from __future__ import annotations

import numpy as np
from tqdm.auto import tqdm

from .._checks import check_number, check_positive, seed_generator
from ..io import progress_enabled
from ._dual_extragradient import _prepare, step_size
from ._executor import make_backend
from ._stream import iterate_examples

__all__ = ["averaged_projected_gradient", "averaged_perceptron", "subgradient_method"]


def averaged_projected_gradient(examples, W=None, n_iter=100, eta=None, monitor=None,
                                verbose=False, random_state=0):
    """Averaged projected gradient for the saddle point (eq. 2.16)::

        w^{t+1}  = pi_W(w^t - eta sum_i (F_i z_i^t - f_i))
        z_i^{t+1} = pi_Zi(z_i^t + eta (F_i' w^t + c_i))

    started at ``(pi_W(0), z(y_i))``; the output is the running average of
    the ``w^t`` (which, unlike the iterates, converges for bilinear problems).
    ``eta`` defaults to ``1/||F||_2`` like the dual extragradient.
    """
    examples = list(iterate_examples(examples))
    W, monitor, d = _prepare(examples, W, monitor, n_iter, random_state=random_state)
    eta, L = step_size(examples, eta, random_state)
    w = W.project(np.zeros(d))
    z = [ex.center().copy() for ex in examples]
    wbar = np.zeros(d)
    status, t = 0, -1
    for t in tqdm(range(n_iter), disable=not progress_enabled(verbose), desc="proj-grad"):
        grad_w = sum(ex.features_of(zi) - ex.target_features for ex, zi in zip(examples, z))
        z = [ex.project(zi + eta * ex.loss_augmented_scores(w)) for ex, zi in zip(examples, z)]
        w = W.project(w - eta * grad_w)
        wbar = (t * wbar + w) / (t + 1)
        status = monitor.after_iteration(t, n_iter, wbar, examples)
        if status:
            break
    return monitor.result(wbar, t + 1, status, info={"eta": eta, "lipschitz": L})


def averaged_perceptron(examples, n_epochs=10, learning_rate=1.0, W=None, monitor=None,
                        verbose=False, random_state=0):
    """Averaged structured perceptron (Collins 2002), online.

    For each example, in an order reshuffled every pass::

        y_hat = argmax_y w' f_i(y)                 (decoding, no loss)
        w    <- pi_W(w + rate (f_i(y_i) - f_i(y_hat)))

    The output is the average of ``w`` over all steps so far.  An epoch is
    one "iteration" for the monitor.
    """
    learning_rate = check_positive("learning_rate", learning_rate)
    examples = list(iterate_examples(examples))
    W, monitor, d = _prepare(examples, W, monitor, n_epochs, "n_epochs",
                             random_state=random_state)
    rng = seed_generator(random_state, generators=True)   # a RandomState: its drawn seed
    w = W.project(np.zeros(d))
    wsum = np.zeros(d)
    steps = 0
    status, t = 0, -1
    for t in tqdm(range(n_epochs), disable=not progress_enabled(verbose), desc="ave-perc"):
        for i in rng.permutation(len(examples)):
            ex = examples[i]
            z_hat = ex.decode(w)
            w = W.project(w + learning_rate * (ex.target_features - ex.features_of(z_hat)))
            wsum += w
            steps += 1
        status = monitor.after_iteration(t, n_epochs, wsum / steps, examples)
        if status:
            break
    return monitor.result(wsum / max(steps, 1), t + 1, status, info={"steps": steps})


def subgradient_method(examples, regularization=1e-3, n_iter=100, step0=None, W=None,
                       monitor=None, verbose=False, random_state=0, executor=None,
                       n_partitions=None):
    """Batch subgradient method on the regularised structured hinge (Ratliff et al. 2007).

    Objective ``J(w) = lambda/2 ||w||^2 + sum_i max_y [w'f_i(y) + l_i(y)] - w'f_i(y_i)``,
    subgradient ``g = lambda w + sum_i (F_i z_i* - f_i)`` with ``z_i*`` the
    loss-augmented argmax, and diminishing steps ``alpha_t = step0/sqrt(t+1)``
    (default ``step0 = 1/||F||_2``).  The output is the iterate with the
    lowest objective seen so far (subgradient steps are not monotone).

    With ``executor`` (a ``dask.distributed.Client`` or a
    :class:`concurrent.futures.Executor`) the examples stay where
    :func:`~structpred.learners._executor.make_backend` put them and each
    iteration is one map-reduce of ``(hinge_i, F_i z_i* - f_i)``, as in
    :func:`~structpred.dual_extragradient_streaming`.
    """
    if callable(getattr(regularization, "prox", None)):   # the others take W second
        raise TypeError(f"regularization must be a number, got the parameter set "
                        f"{regularization!r}: pass it as W=")
    # a negative lambda made J unbounded below and was run to a meaningless w
    check_number("regularization", regularization, 0.0)
    if step0 is not None:
        step0 = check_positive("step0", step0)
    if executor is not None:
        return _subgradient_distributed(examples, regularization, n_iter, step0, W, monitor,
                                        verbose, random_state, executor, n_partitions)
    examples = list(iterate_examples(examples))
    W, monitor, d = _prepare(examples, W, monitor, n_iter, random_state=random_state)
    if step0 is None:
        step0, _ = step_size(examples, None, random_state)
    w = W.project(np.zeros(d))
    best_w, best_obj = w.copy(), np.inf
    objective = []
    status, t = 0, -1
    for t in tqdm(range(n_iter), disable=not progress_enabled(verbose), desc="subgradient"):
        g = regularization * w
        obj = 0.5 * regularization * float(w @ w)
        for ex in examples:
            hinge, z = ex.hinge_and_argmax(w)
            obj += hinge
            g = g + ex.features_of(z) - ex.target_features
        objective.append(obj)
        if obj < best_obj:
            best_obj, best_w = obj, w.copy()
        w = W.project(w - step0 / np.sqrt(t + 1) * g)
        status = monitor.after_iteration(t, n_iter, best_w, examples)
        if status:
            break
    return monitor.result(best_w, t + 1, status,
                          info={"objective": objective, "best_objective": best_obj})


def _subgradient_term(example, w):
    """One example's ``(hinge_i, F_i z_i* - f_i)`` at ``w`` (loss-augmented argmax)."""
    hinge, z = example.hinge_and_argmax(w)
    return np.float64(hinge), example.features_of(z) - example.target_features


def _subgradient_distributed(examples, regularization, n_iter, step0, W, monitor, verbose,
                             random_state, executor, n_partitions):
    W, monitor, d = _prepare(examples, W, monitor, n_iter, random_state=random_state)
    backend = make_backend(examples, executor, n_partitions)
    backend.n_features = d
    try:
        if step0 is None:
            step0, _ = step_size(examples, None, random_state, backend=backend)
        w = W.project(np.zeros(d))
        best_w, best_obj = w.copy(), np.inf
        objective = []
        status, t = 0, -1
        for t in tqdm(range(n_iter), disable=not progress_enabled(verbose),
                      desc="subgradient (distributed)"):
            hinge, grad = backend.map_reduce(_subgradient_term, w)
            obj = 0.5 * regularization * float(w @ w) + float(hinge)
            g = regularization * w + grad
            objective.append(obj)
            if obj < best_obj:
                best_obj, best_w = obj, w.copy()
            w = W.project(w - step0 / np.sqrt(t + 1) * g)
            status = monitor.after_iteration(t, n_iter, best_w, backend)
            if status:
                break
        info = {"objective": objective, "best_objective": best_obj,
                "transfer": dict(backend.stats)}
    finally:
        backend.close()
    return monitor.result(best_w, t + 1, status, info=info)
