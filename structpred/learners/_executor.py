"""Where the per-example *map* of a streaming learner runs.

The memory-efficient dual extragradient (thesis sec. 2.5, fig. 2.6) and the
batch reference learners touch the examples only through sums over examples
of a per-example function: ``sum_i g(example_i, *vectors)``.  A *backend*
evaluates such a map-reduce:

* :class:`InProcess` -- a loop in this process (what ``executor=None`` means);
* :class:`FuturesBackend` -- a :mod:`concurrent.futures` executor: the
  examples are cut into partitions held by the driver and shipped with every
  call (simple, but not O(|w|) in communication);
* :class:`DaskBackend` -- a ``dask.distributed.Client``: the examples are
  partitioned and scattered to the workers **once**; each call ships only
  the vectors (broadcast once per call), every partition sums its own
  examples on its worker, the partial sums are added pairwise on the workers
  (a tree reduce), and only the final sum comes back.  The driver never holds
  more than one partition while scattering, so its memory does not grow with
  the number of examples.

:func:`make_backend` picks one from what the caller passes.  All three add
the same terms; only the order of the floating-point additions differs.
"""

from __future__ import annotations

import math
import pickle

import numpy as np

from .._checks import check_whole
from ..parallel import check_executor, dask_workers, executor_slots, is_dask_client
from ._stream import RemoteExamples, ff_product, iterate_examples

__all__ = ["InProcess", "FuturesBackend", "DaskBackend", "make_backend", "WorkerLost",
           "ff_product", "hinge_term"]


class WorkerLost(RuntimeError):
    """A worker holding training examples died: the run stops instead of continuing
    with some examples missing (which would give a silently wrong ``w``)."""


def _add(a, b):
    """Element-wise sum of two tuples of arrays or floats (the reduce)."""
    return tuple(x + y for x, y in zip(a, b))


def _shard_apply(shard, func, *args):
    """``sum_{ex in shard} func(ex, *args)`` for a tuple-valued ``func``."""
    acc = None
    for ex in shard:
        out = func(ex, *args)
        acc = out if acc is None else _add(acc, out)
    return acc


class InProcess:
    """Evaluate the map-reduce in this process, streaming the examples once per call."""

    def __init__(self, examples):
        self.examples = examples
        self.stats = {"calls": 0, "bytes_out": 0, "bytes_between_workers": 0, "bytes_back": 0}

    def map_reduce(self, func, *args):
        """``sum_i func(example_i, *args)`` (a tuple, one entry per output of ``func``)."""
        self.stats["calls"] += 1
        out = _shard_apply(iterate_examples(self.examples), func, *args)
        if out is None:
            raise ValueError("no training examples")
        return out

    def close(self):
        pass


def _partitions(examples, n_partitions, max_size=256):
    """Cut a sequence or stream into contiguous blocks, lazily.

    ``n_partitions`` blocks of equal size when the length is known, but never
    more than ``max_size`` examples in a block (so that the driver holds at
    most one block while scattering); blocks of ``max_size`` for a stream of
    unknown length.
    """
    try:
        n = len(examples)
    except TypeError:
        n = None
    size = max_size if n is None else max(1, min(max_size, math.ceil(n / n_partitions)))
    block = []
    for ex in iterate_examples(examples):
        block.append(ex)
        if len(block) == size:
            yield block
            block = []
    if block:
        yield block


class FuturesBackend:
    """Evaluate the map-reduce on a :class:`concurrent.futures.Executor`.

    The partitions stay in the driver and are sent with each call; use
    :class:`DaskBackend` when the examples should stay on the workers.
    """

    def __init__(self, examples, executor, n_partitions=None):
        self.executor = executor
        self.shards = list(_partitions(examples, n_partitions or executor_slots(executor)))
        self.stats = {"calls": 0, "bytes_out": 0, "bytes_between_workers": 0, "bytes_back": 0}

    def map_reduce(self, func, *args):
        self.stats["calls"] += 1
        futures = [self.executor.submit(_shard_apply, s, func, *args) for s in self.shards]
        acc = None
        for f in futures:   # summed in partition order: deterministic
            out = f.result()
            acc = out if acc is None else _add(acc, out)
        return acc

    def close(self):
        pass


class DaskBackend:
    """Evaluate the map-reduce on a Dask cluster, the examples scattered once.

    Parameters
    ----------
    examples : sequence or :class:`~structpred.ExampleStream`
        Iterated once, partition by partition, to scatter them.
    client : dask.distributed.Client
    n_partitions : int, optional
        Default: two per worker thread (at least 1).
    max_partition_size : int
        Most examples in one partition (the driver holds one partition at a
        time while scattering).

    Attributes
    ----------
    stats : dict
        ``calls`` and the bytes of each kind of transfer, measured as the
        pickled size of what was sent: ``bytes_out`` (the vectors broadcast
        to every worker), ``bytes_between_workers`` (the per-worker partial
        sums moved by the tree reduce; the partitions of one worker are first
        added on that worker, which moves nothing) and ``bytes_back`` (the
        final sum).  None of them depends on the number of examples.
    """

    def __init__(self, examples, client, n_partitions=None, max_partition_size=256):
        self.client = client
        workers, threads = dask_workers(client)
        n_partitions = int(n_partitions or max(1, 2 * threads))
        self.workers = workers
        self.shards = {}
        self.n_examples = 0
        if isinstance(examples, RemoteExamples):
            self._build_remote(examples)
            self.stats = {"calls": 0, "bytes_out": 0, "bytes_between_workers": 0,
                          "bytes_back": 0}
            return
        for i, block in enumerate(_partitions(examples, n_partitions, max_partition_size)):
            self.n_examples += len(block)
            worker = workers[i % len(workers)]
            # one future per partition, pinned to a worker; the driver drops the block at once
            fut = client.scatter([block], workers=[worker], hash=False)[0]
            self.shards.setdefault(worker, []).append(fut)
        if not self.shards:
            raise ValueError("no training examples")
        self.stats = {"calls": 0, "bytes_out": 0, "bytes_between_workers": 0, "bytes_back": 0}

    def _build_remote(self, examples):
        """Build the parts of a :class:`RemoteExamples` on the workers, round robin:
        ``shared`` goes to every worker once, each part to one worker."""
        from distributed import wait

        client = self.client
        shared = client.scatter(examples.shared, broadcast=True, hash=False)
        for i, part in enumerate(examples.parts()):
            worker = self.workers[i % len(self.workers)]
            raw = client.scatter([part], workers=[worker], hash=False)[0]
            fut = client.submit(examples.build, shared, raw, workers=[worker],
                                allow_other_workers=True, pure=False)
            self.shards.setdefault(worker, []).append(fut)
        futures = [f for fs in self.shards.values() for f in fs]
        if not futures:
            raise ValueError("no training examples")
        wait(futures)
        for f in futures:
            if f.status == "error":
                f.result()   # re-raises the build's exception
        sizes = client.gather([client.submit(len, f, pure=False) for f in futures])
        self.n_examples = int(sum(sizes))
        if not self.n_examples:
            raise ValueError("no training examples")

    def _tree(self, parts, worker=None):
        """Add futures pairwise until one is left (on ``worker`` when given)."""
        kw = {} if worker is None else {"workers": [worker], "allow_other_workers": True}
        while len(parts) > 1:
            nxt = [self.client.submit(_add, parts[i], parts[i + 1], pure=False, **kw)
                   for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2:
                nxt.append(parts[-1])
            parts = nxt
        return parts[0]

    def map_reduce(self, func, *args):
        from distributed import wait

        client = self.client
        self.stats["calls"] += 1
        payload = len(pickle.dumps((func, args), protocol=pickle.HIGHEST_PROTOCOL))
        if self._lost_data():
            raise WorkerLost("a Dask worker holding training examples was lost; the run "
                             "stopped rather than continue without them")
        # the vectors go once to each worker that holds partitions, as a task argument
        shipped = {w: client.submit(_identity, (func, args), workers=[w],
                                    allow_other_workers=True, pure=False)
                   for w in self.shards}
        self.stats["bytes_out"] += payload * len(shipped)
        try:
            per_worker = []
            for worker, shards in self.shards.items():
                parts = [client.submit(_apply_packed, shard, shipped[worker], pure=False,
                                       workers=[worker], allow_other_workers=True)
                         for shard in shards]
                per_worker.append(self._tree(parts, worker))
            final = self._tree(per_worker)
            while True:   # poll, so that a lost partition is noticed even if nothing errs
                try:
                    wait([final], timeout=1.0)
                    break
                except TimeoutError:
                    if self._lost_data():
                        raise WorkerLost("a Dask worker holding training examples was lost; "
                                         "the run stopped rather than continue without them")
            out = final.result()
        except WorkerLost:
            raise
        except Exception as exc:  # noqa: BLE001 - re-raised, with the cause attached
            if self._lost_data():
                raise WorkerLost("a Dask worker holding training examples was lost; the "
                                 "run stopped rather than continue without them") from exc
            raise
        size = len(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
        self.stats["bytes_between_workers"] += size * (len(per_worker) - 1)
        self.stats["bytes_back"] += size
        return out

    def _lost_data(self):
        return any(f.status != "finished" for fs in self.shards.values() for f in fs)

    def close(self):
        for fs in self.shards.values():
            for f in fs:
                f.release()   # the workers drop the partitions (no cancel: they are done)
        self.shards = {}


def _identity(x):
    return x


def _apply_packed(shard, packed):
    func, args = packed
    return _shard_apply(shard, func, *args)


def make_backend(examples, executor=None, n_partitions=None):
    """The backend for ``executor``: ``None`` (in process), a Dask client or a
    :class:`concurrent.futures.Executor`."""
    check_executor(executor)
    if n_partitions is not None:   # "a" was a TypeError of "/", -1 and 1.5 were taken
        check_whole("n_partitions", n_partitions)
    if executor is None:
        return InProcess(examples)
    if is_dask_client(executor):
        return DaskBackend(examples, executor, n_partitions)
    return FuturesBackend(examples, executor, n_partitions)


def hinge_term(example, w):
    """One example's structured hinge loss (eq. 2.21), as a 1-tuple."""
    return (np.float64(example.hinge_loss(w)),)
