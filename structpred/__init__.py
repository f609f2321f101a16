"""structpred: discriminative structured prediction by saddle-point max-margin estimation.

Max-margin estimation is written as a convex-concave saddle point (thesis
eq. 2.13) and solved by Nesterov's dual extragradient.  The core knows no
problem: a problem supplies examples that follow the protocol of
:class:`StructuredExample` (features, loss, polytope), and the learners only
call its methods.

Subpackages
-----------
:mod:`structpred.learners`
    Dual extragradient (Euclidean, Bregman and memory-efficient forms), the
    reference learners, the QP path, the registry, the monitor, the step size
    and the parameter set.
:mod:`structpred.polytopes`
    Matching, fertility, relaxed QAP, min-cut, simplex and chain/tree marginals: projections,
    decoders and problem classes.
:mod:`structpred.cli`
    The ``structpred`` command line; problem packages add their subcommands
    through the ``structpred.commands`` entry-point group.
:mod:`structpred.io`
    Readers, atomic writers and plotting.
:mod:`structpred.parallel`
    Executors (Dask or :mod:`concurrent.futures`) and ordered, streaming maps on them.

Every public name is re-exported here, so ``from structpred import
dual_extragradient_streaming, MatchingExample`` works.
"""

from . import _startup

_startup.install()   # Ctrl-C during the imports below: one line, status 130 (the command only)

from ._checks import (SEED_INSTANCES, check_flag, check_label_spellings,  # noqa: E402
                      check_n_jobs, check_ordered,
                      check_number, check_positive, check_seed, check_whole, estimator_seed,
                      resolve_seed, seed_generator, label_clash, physical_memory,
                      split_comma_items, unmasked, whole_array,
                      check_unchanged_since_fit)
from ._digests import OverlapCounter, text_digests, training_overlap
from ._example import StructuredExample
from ._loss import hamming_loss, weighted_hamming_terms
from ._version import __version__
from .io import FormatError, atomic_write, open_output, open_text, read_lines
from .learners import *  # noqa: F401,F403
from .learners import __all__ as _learners_all
from .polytopes import *  # noqa: F401,F403
from .polytopes import __all__ as _polytopes_all

__all__ = (["__version__", "StructuredExample", "check_flag", "check_label_spellings",
            "check_number", "check_positive", "check_seed", "check_whole", "label_clash",
            "check_n_jobs", "check_ordered", "unmasked", "whole_array", "estimator_seed", "resolve_seed", "SEED_INSTANCES",
            "seed_generator",
            "split_comma_items", "physical_memory", "text_digests", "training_overlap",
            "OverlapCounter", "hamming_loss", "weighted_hamming_terms", "FormatError", "atomic_write", "open_output",
            "open_text", "read_lines"]
           + list(_learners_all) + list(_polytopes_all))
