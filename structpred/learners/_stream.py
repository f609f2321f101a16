"""Example collections: in-memory sequences or re-iterable streams.

Learners accept either a sequence of examples or an :class:`ExampleStream`,
a re-iterable source that builds each example on demand (from disk, or from
``(x_i, y_i)``), so that the memory-efficient dual extragradient holds one
example at a time.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from .._checks import check_number, check_ordered, check_whole, seed_generator

__all__ = ["ExampleStream", "RemoteExamples", "iterate_examples", "first_example"]


class ExampleStream:
    """A re-iterable stream of examples.

    Parameters
    ----------
    factory : callable returning an iterable of examples
        Called once per pass.  It should be picklable (a module-level function
        or a :func:`functools.partial`), not a closure, if passes are to be
        sharded across processes.
    length : int, optional
        Number of examples, for progress bars.
    """

    def __init__(self, factory: Callable[[], Iterable], length=None):
        self.factory = factory
        self.length = length

    def __iter__(self):
        return iter(self.factory())

    def __len__(self):
        if self.length is None:
            raise TypeError("stream length unknown")
        return self.length


class RemoteExamples:
    """Examples built where they are used: by the workers of a cluster.

    The examples are described by small *parts* (for example, 256 raw
    sentence pairs each) and a *build* function that turns one part into a
    list of examples, given a large *shared* object (a featurizer holding the
    bitext statistics).  In process, iterating gives
    ``build(shared, part)`` for each part in turn.  On a Dask cluster
    (:class:`~structpred.learners._executor.DaskBackend`) ``shared`` is sent
    to every worker once, each part is sent to one worker and built there, and
    the examples never pass through the driver: the driver's memory stays that
    of one part, whatever the number of examples.

    Parameters
    ----------
    build : callable ``(shared, part) -> list of examples``
        Module-level (it pickles).
    parts : callable returning an iterable of parts
        Called once per pass in process, once in all on a cluster; a generator
        that reads the parts from disk keeps the driver's memory flat.
    shared : object, optional
        Passed to every ``build`` call.
    length : int, optional
        Number of examples, for progress bars.
    """

    def __init__(self, build: Callable, parts: Callable[[], Iterable], shared=None, length=None):
        self.build = build
        self.parts = parts
        self.shared = shared
        self.length = length

    def __iter__(self):
        for part in self.parts():
            yield from self.build(self.shared, part)

    def __len__(self):
        if self.length is None:
            raise TypeError("number of examples unknown")
        return self.length


def iterate_examples(examples):
    if not isinstance(examples, (list, tuple, ExampleStream, RemoteExamples)):
        # None, a dict: refused; an iterator is kept as it is (not read here)
        check_ordered(examples, "examples", "StructuredExample objects", read=False)
    return iter(examples)


def first_example(examples):
    """The first example, which must follow the protocol of
    :class:`~structpred.StructuredExample` (an ``int`` was "'int' object has no attribute
    'n_features'" deep in a learner)."""
    for ex in iterate_examples(examples):
        if not hasattr(ex, "n_features"):
            raise TypeError(f"example 0 must be a StructuredExample (features, loss, "
                            f"polytope), got {type(ex).__name__}")
        return ex
    raise ValueError("no training examples")


def n_features_of(examples):
    return first_example(examples).n_features


def ff_product(example, v):
    """``F_i F_i' v``: one example's term of the power iteration for ``||F||_2`` (a
    1-tuple, the form of a backend's ``map_reduce``)."""
    return (example.F @ (example.F_T @ v),)


def power_iteration_norm(examples, n_iter=100, tol=1e-7, random_state=0, backend=None):
    """Largest singular value of the stacked operator ``B = [F_1, ..., F_m]``.

    The dual extragradient's operator on ``u = (w, z)`` is
    ``[[0, B], [-B', 0]]``, whose singular values are those of ``B``, so
    ``L = ||B||_2`` (thesis sec. 2.4.1, eta = 1/L).  Power iteration on
    ``B B' = sum_i F_i F_i'`` never materialises ``B``: each step streams the
    examples once (through ``backend.map_reduce`` when a backend from
    :func:`~structpred.learners._executor.make_backend` is given, so that the
    examples may live on other machines).
    """
    check_whole("n_iter", n_iter)   # 0 returned 0.0, a norm of no iteration
    check_number("tol", tol)
    # -1: numpy's "expected non-negative integer"; a RandomState: the seed drawn from it
    rng = seed_generator(random_state, generators=True)
    if backend is not None:
        def BBt(v):
            return backend.map_reduce(ff_product, v)[0]
        d = getattr(backend, "n_features", None) or n_features_of(examples)
    else:
        def BBt(v):
            u = np.zeros(d)
            for ex in iterate_examples(examples):
                u += ex.F @ (ex.F_T @ v)
            return u
        d = n_features_of(examples)
    v = rng.standard_normal(d)
    v /= np.linalg.norm(v)
    lam = 0.0
    for _ in range(n_iter):
        u = BBt(v)
        new_lam = float(np.linalg.norm(u))
        if new_lam == 0.0:
            return 0.0
        v = u / new_lam
        if abs(new_lam - lam) <= tol * new_lam:
            lam = new_lam
            break
        lam = new_lam
    return float(np.sqrt(lam))
