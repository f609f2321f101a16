"""``structpred align predict`` on an executor: chunks of sentence pairs aligned by the
workers, written in input order as they come back (:func:`structpred.parallel.map_ordered`).

Two kinds of executors:

* a Dask cluster (``--workers``/``--scheduler``): the trained model (with its statistics)
  is sent to the workers once (scattered); each task carries a chunk of sentence pairs
  and brings back their alignments;
* local processes (``--jobs``, :func:`local_pool`): the worker processes get the model
  when they start (forked from this one where the platform can, so the model and the
  compiled kernels are not copied), and each task carries a chunk.

At most a few chunks per worker are in flight, so the driver's memory stays flat on a
long input.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import multiprocessing
import select
import sys
from concurrent.futures import ProcessPoolExecutor

from structpred.parallel import ignore_interrupt, map_ordered

__all__ = ["predict_chunks", "predict_stream", "chunked", "stdin_waiting", "local_pool",
           "default_jobs", "CLUSTER_CHUNK", "LOCAL_CHUNK"]

#: sentence pairs per task on a cluster (enough work to hide the round trip)
CLUSTER_CHUNK = 32
#: sentence pairs per task of the local processes (one batch of the fast path)
LOCAL_CHUNK = 256

#: the model of a local worker process (set by :func:`_set_model` when it starts)
_WORKER_MODEL = None


def default_jobs():
    """The processes ``align predict`` uses by default: the CPUs this process may run on."""
    from structpred.parallel import usable_cpus

    return usable_cpus()


def _set_model(model):
    global _WORKER_MODEL
    _WORKER_MODEL = model
    ignore_interrupt()


def _predict_local(chunk):
    return _WORKER_MODEL.predict(chunk)


def _predict(model, chunk):
    return model.predict(chunk)


class _LocalPool(ProcessPoolExecutor):
    """A process pool whose workers hold the model (see :func:`local_pool`)."""


@contextlib.contextmanager
def local_pool(model, jobs):
    """A pool of ``jobs`` worker processes holding ``model``, for :func:`predict_chunks`
    (at most :func:`default_jobs`, the CPUs this process may use: the links are the same).

    The workers are forked where the platform allows (they share the model and the
    numba kernels compiled here: call ``model.predict`` on a pair first); elsewhere they
    are spawned and get the model pickled once each.  Closed (workers stopped, pending
    chunks cancelled) on leaving the ``with`` block.
    """
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    # no more processes than CPUs: a forking pool starts all its workers at once, and
    # 'align predict -j 100000' forked processes until the machine's load passed 1,600
    pool = _LocalPool(max_workers=min(int(jobs), default_jobs()), mp_context=ctx,
                      initializer=_set_model,
                      initargs=(model,))
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def predict_chunks(model, chunks, executor=None, max_in_flight=None):
    """``(chunk, model.predict(chunk))`` for each chunk of sentence pairs, in order.

    Without ``executor`` the chunks are predicted here, one after the other, as they
    are read (exactly ``model.predict(chunk)``); with one (a Dask client or a
    :func:`local_pool`), several chunks are aligned at once on the workers and yielded
    in input order.
    """
    if executor is None:
        for chunk in chunks:
            yield chunk, model.predict(chunk)
        return
    # the chunks are read once; tee keeps those in flight for the zip (a bounded number)
    ahead, mine = itertools.tee(chunks)
    if isinstance(executor, _LocalPool):
        results = map_ordered(_predict_local, ahead, executor, chunk_size=1,
                              max_in_flight=max_in_flight)
    else:
        results = map_ordered(_predict, ahead, executor, chunk_size=1,
                              max_in_flight=max_in_flight, shared=model)
    yield from zip(mine, results)


def chunked(items, size, waiting=None):
    """Lists of up to ``size`` consecutive items of an iterable (read lazily).

    ``waiting``, if given, is called after each item: a chunk is cut short when it says
    that no more input is waiting (:func:`stdin_waiting`), so that the lines of an
    interactive stream are aligned as they arrive and those of a long pipe in chunks.
    """
    it = iter(items)
    while True:
        if waiting is None:
            chunk = list(itertools.islice(it, int(size)))
        else:
            chunk = []
            for item in it:
                chunk.append(item)
                if len(chunk) >= size or not waiting():
                    break
        if not chunk:
            return
        yield chunk


def stdin_waiting():
    """Whether standard input has bytes to read now (False where that cannot be told)."""
    try:
        return bool(select.select([sys.stdin.buffer], [], [], 0)[0])
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def predict_stream(model, pairs, batch, jobs=1, executor=None, waiting=None):
    """The predicted alignments of ``pairs``, a list per chunk of ``batch`` pairs, in order.

    Parameters
    ----------
    model : MatchingAligner
    pairs : iterable of (src_tokens, tgt_tokens)
        Read lazily, a chunk at a time.
    batch : int
        Sentence pairs per chunk.
    jobs : int
        Without ``executor``: with ``jobs > 1`` the first chunk is aligned here (which
        compiles or loads the kernels that the forked workers then share) and, if the
        input goes on, the others by a :func:`local_pool` of ``jobs`` processes.
    executor : dask.distributed.Client, optional
        Align the chunks there instead (:func:`predict_chunks`).
    waiting : callable, optional
        Cut a chunk short when it returns False (see :func:`chunked`).

    Yields
    ------
    list of Alignment
        Close the generator (``contextlib.closing``) to stop the worker processes
        early.
    """
    chunks = chunked(pairs, batch, waiting)
    with contextlib.ExitStack() as stack:
        if executor is None and jobs > 1:
            first = next(chunks, None)
            if first is None:
                return
            yield model.predict(first)
            second = next(chunks, None)
            if second is None:
                return
            chunks = itertools.chain([second], chunks)
            executor = stack.enter_context(local_pool(model, jobs))
        for _, predicted in predict_chunks(model, chunks, executor):
            yield predicted
