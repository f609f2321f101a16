"""Ordered, streaming maps on an executor (prediction on a cluster).

:func:`map_ordered` applies a function to a stream of inputs on a
``dask.distributed.Client`` or a :class:`concurrent.futures.Executor` and yields the
results **in input order**, as soon as the chunk holding them is done.  The inputs are
read lazily, a chunk at a time, and at most ``max_in_flight`` chunks are submitted and
not yet yielded, so the memory of the driver stays flat however long the stream.  A
large object every call needs (a trained model) is passed as ``shared``: it is sent to
the workers once (Dask: scattered to every worker), not with every chunk.

Without an executor the function is applied lazily, one input at a time, in this
process.
"""

from __future__ import annotations

import collections
import itertools

__all__ = ["map_ordered", "is_dask_client"]

_NOTHING = object()


def is_dask_client(executor):
    """Whether ``executor`` looks like a ``dask.distributed.Client``."""
    return hasattr(executor, "scheduler_info") and hasattr(executor, "scatter")


def _run_chunk(func, shared, chunk):
    return [func(shared, x) for x in chunk]


def _run_plain(func, chunk):
    # (not _run_chunk with the _NOTHING marker: in another process it is another object)
    return [func(x) for x in chunk]


def map_ordered(func, items, executor=None, chunk_size=16, max_in_flight=None,
                shared=_NOTHING):
    """Yield ``func(item)`` (or ``func(shared, item)``) for each item, in input order.

    Parameters
    ----------
    func : callable
        Picklable (a module-level function) when the executor runs other processes.
    items : iterable
        Read lazily, ``chunk_size`` items at a time.
    executor : None, dask.distributed.Client or concurrent.futures.Executor
        ``None``: apply ``func`` here, one item at a time.
    chunk_size : int
        Items per task.
    max_in_flight : int, optional
        Most chunks submitted and not yet yielded (default: twice the number of worker
        threads of a Dask cluster, else twice the executor's workers, at least 2).
    shared : object, optional
        Passed as the first argument of every call; sent to the workers once.

    Raises
    ------
    Exception
        The first failing call's exception, when its chunk's turn comes (the results
        of the inputs before it have been yielded); the chunks still running are
        cancelled.
    """
    if int(chunk_size) < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size!r}")
    if executor is None:
        for x in items:
            yield func(x) if shared is _NOTHING else func(shared, x)
        return
    dask = is_dask_client(executor)
    if not dask and not hasattr(executor, "submit"):
        raise TypeError(f"executor must be None, a dask.distributed.Client or a "
                        f"concurrent.futures.Executor, not {type(executor).__name__}")
    if max_in_flight is None:
        if dask:
            workers = executor.scheduler_info().get("workers", {})
            slots = sum(w.get("nthreads", 1) for w in workers.values()) or 1
        else:
            slots = getattr(executor, "_max_workers", None) or 2
        max_in_flight = max(2, 2 * slots)
    max_in_flight = max(1, int(max_in_flight))
    shared_ref = shared
    if dask and shared is not _NOTHING:
        # once to every worker, not once per chunk
        shared_ref = executor.scatter([shared], broadcast=True, hash=False)[0]
    it = iter(items)
    pending = collections.deque()

    def submit_next():
        chunk = list(itertools.islice(it, int(chunk_size)))
        if not chunk:
            return False
        args = (_run_plain, func, chunk) if shared is _NOTHING else (_run_chunk, func,
                                                                     shared_ref, chunk)
        if dask:
            pending.append(executor.submit(*args, pure=False))
        else:
            pending.append(executor.submit(*args))
        return True

    try:
        more = True
        while more and len(pending) < max_in_flight:
            more = submit_next()
        while pending:
            results = pending.popleft().result()
            if more:
                more = submit_next()
            yield from results
    finally:
        for fut in pending:
            fut.cancel()
        if dask and shared_ref is not shared:
            shared_ref.release()
