"""The learners: Nesterov's dual extragradient (Euclidean, Bregman and memory-efficient
forms), the reference learners, the QP path, the learner registry, the monitor and
its result object, the step size and the parameter set.
"""

from ._dual_extragradient import (check_iterations, dual_extragradient,
                                  dual_extragradient_streaming, example_step, step_size)
from ._monitor import Monitor, SolverResult, structured_hinge_loss
from ._parameter_set import L2Ball
from ._qp import solve_saddle_qp, regularization_path
from ._reference import averaged_perceptron, averaged_projected_gradient, subgradient_method
from ._registry import LEARNERS, check_learner, run_learner
from ._stream import ExampleStream, RemoteExamples, iterate_examples, n_features_of, power_iteration_norm, first_example

__all__ = [
    "check_iterations",
    "dual_extragradient",
    "dual_extragradient_streaming",
    "example_step",
    "step_size",
    "averaged_perceptron",
    "averaged_projected_gradient",
    "subgradient_method",
    "solve_saddle_qp",
    "regularization_path",
    "LEARNERS",
    "check_learner",
    "run_learner",
    "Monitor",
    "SolverResult",
    "structured_hinge_loss",
    "L2Ball",
    "ExampleStream",
    "RemoteExamples",
    "iterate_examples",
    "n_features_of",
    "power_iteration_norm",
    "first_example",
]
