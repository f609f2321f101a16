"""One entry point for the four learners of the saddle-point problem (thesis sec. 2.6).

Problem modules (alignment, segmentation) build their examples and the parameter set
``W`` and hand them here; the learner is chosen by name:

* ``"dual-extragradient"`` -- the memory-efficient dual extragradient (sec. 2.5, fig. 2.6);
* ``"projected-gradient"`` -- averaged projected gradient (eq. 2.16);
* ``"perceptron"`` -- averaged structured perceptron (``n_iter`` counts epochs);
* ``"subgradient"`` -- the subgradient method on the regularised hinge (Ratliff et al.).
"""

from __future__ import annotations

__all__ = ["LEARNERS", "check_learner", "run_learner"]


LEARNERS = ("dual-extragradient", "projected-gradient", "perceptron", "subgradient")


def check_learner(learner):
    """Raise ``ValueError`` unless ``learner`` is one of :data:`LEARNERS`."""
    if learner not in LEARNERS:
        raise ValueError(f"learner must be one of {LEARNERS}, got {learner!r}")


def run_learner(learner, examples, W, *, n_iter, eta=None, regularization=1e-3, monitor=None,
                verbose=False, random_state=0, executor=None):
    """Run the learner named ``learner`` and return its :class:`~structpred.SolverResult`.

    ``eta`` is the step size of the dual extragradient and projected gradient (default
    ``1/||F||_2``), the perceptron's learning rate (default 1) and the subgradient
    method's initial step (default ``1/||F||_2``); ``regularization`` is the subgradient
    method's ``lambda``.

    ``executor`` (a ``dask.distributed.Client`` or a :class:`concurrent.futures.Executor`)
    runs the passes over the examples of the dual extragradient and of the subgradient
    method there (:mod:`structpred.learners._executor`); the projected gradient and the
    perceptron take no executor and always run in this process.
    """
    from ..polytopes._magnitude import MagnitudeError

    check_learner(learner)
    common = dict(W=W, monitor=monitor, verbose=verbose, random_state=random_state)
    try:
        return _run(learner, examples, n_iter, eta, regularization, executor, common)
    except MagnitudeError as exc:   # "zp holds values up to 3e+300", naming no step
        if eta is None:
            raise
        raise ValueError(f"{learner}: with the step eta={eta:g} the iterates grew beyond what "
                         f"the projection resolves ({exc}): give a smaller step (the learning "
                         "rate, or its scale)") from None


def _run(learner, examples, n_iter, eta, regularization, executor, common):
    # imported here so that the command line can list LEARNERS without loading the solvers
    from ._dual_extragradient import dual_extragradient_streaming
    from ._reference import averaged_perceptron, averaged_projected_gradient, subgradient_method

    if learner == "dual-extragradient":
        return dual_extragradient_streaming(examples, n_iter=n_iter, eta=eta, executor=executor,
                                            **common)
    if learner == "projected-gradient":
        return averaged_projected_gradient(examples, n_iter=n_iter, eta=eta, **common)
    if learner == "perceptron":
        return averaged_perceptron(examples, n_epochs=n_iter, learning_rate=eta or 1.0, **common)
    return subgradient_method(examples, regularization=regularization, n_iter=n_iter, step0=eta,
                              executor=executor, **common)
