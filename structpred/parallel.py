"""Executors: which one was given, its workers, and ordered, streaming maps on it.

Everything that runs work elsewhere takes an ``executor``: ``None`` (in this process), a
``dask.distributed.Client`` or a :class:`concurrent.futures.Executor`.
:func:`check_executor` refuses anything else (one message for every caller),
:func:`is_dask_client` tells a Dask client apart, :func:`dask_workers` lists a cluster's
workers and threads, and :func:`executor_slots` counts how many tasks it runs at once.
The learners' map-reduce backends (:mod:`structpred.learners`), the sharded E-steps of
the alignment statistics and parallel prediction all dispatch through these.

:func:`map_ordered` applies a function to a stream of inputs on an executor and yields
the results **in input order**, as soon as the chunk holding them is done.  The inputs are
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
import signal

__all__ = ["map_ordered", "is_dask_client", "check_executor", "dask_workers",
           "executor_slots", "ignore_interrupt", "usable_cpus", "interruptible_call"]


def usable_cpus():
    """The CPUs this process may run on (its affinity mask where the platform has one), at
    least 1: the default of every ``n_jobs``/``--jobs`` and the most worker processes a
    command starts."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:   # not on Linux
        return max(1, os.cpu_count() or 1)

_NOTHING = object()


def ignore_interrupt():
    """Initializer of a local worker process: ignore Ctrl-C (SIGINT).

    A terminal sends Ctrl-C to every process of the foreground group, the workers too;
    the driver handles it (it stops the pool and exits with one line), so a worker must
    not print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def interruptible_call(func, stop=None, poll=0.05):
    """``func()``, run in a helper thread while the main thread waits in short joins, so
    that a signal's Python handler (Ctrl-C, SIGTERM: :mod:`structpred.cli`) runs at once.

    A compiled call that releases the GIL but does not return on a signal held the
    handler until it ended: OR-Tools' SCIP ran 70 s after Ctrl-C on one large quadratic
    assignment.  On any exception raised in the main thread meanwhile, ``stop()`` (the
    solver's ``InterruptSolve``) is called and the exception raised; the helper thread is
    a daemon, abandoned if it does not stop.  Outside the main thread ``func()`` is
    called directly (no handler runs there)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return func()
    box = {}

    def run():
        try:
            box["value"] = func()
        except BaseException as exc:   # raised in the caller's thread below
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="structpred-solve")
    worker.start()
    try:
        while worker.is_alive():
            worker.join(poll)
    except BaseException:
        if stop is not None:
            stop()
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def is_dask_client(executor):
    """Whether ``executor`` looks like a ``dask.distributed.Client``."""
    return hasattr(executor, "scheduler_info") and hasattr(executor, "scatter")


def check_executor(executor):
    """Refuse an ``executor`` that is not ``None``, a ``dask.distributed.Client`` or a
    :class:`concurrent.futures.Executor` (:class:`TypeError`)."""
    if executor is None or is_dask_client(executor) or hasattr(executor, "submit"):
        return
    raise TypeError(f"executor must be None, a dask.distributed.Client or a "
                    f"concurrent.futures.Executor, not {type(executor).__name__}")


def dask_workers(client):
    """``(worker addresses, sorted; total worker threads)`` of a Dask cluster.

    Raises :class:`ValueError` when the cluster has no workers."""
    info = client.scheduler_info()
    workers = sorted(info.get("workers", {}))
    if not workers:
        raise ValueError("the Dask cluster has no workers")
    threads = sum(w.get("nthreads", 1) for w in info["workers"].values())
    return workers, threads


def executor_slots(executor):
    """How many tasks ``executor`` runs at once: the worker threads of a Dask cluster (at
    least 1), the workers of a :class:`concurrent.futures.Executor` (2 when it does not
    say), 1 for ``None``."""
    if executor is None:
        return 1
    if is_dask_client(executor):
        workers = executor.scheduler_info().get("workers", {})
        return sum(w.get("nthreads", 1) for w in workers.values()) or 1
    return getattr(executor, "_max_workers", None) or 2


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
    check_executor(executor)
    dask = is_dask_client(executor)
    if max_in_flight is None:
        max_in_flight = max(2, 2 * executor_slots(executor))
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
