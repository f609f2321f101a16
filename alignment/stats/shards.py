"""The E-steps of IBM Models 1/2 and of the HMM on an executor (Dask or concurrent.futures).

EM touches the bitext only in its E-step, a sum over sentence pairs of expected counts.
:class:`BitextShards` cuts the encoded corpus at sentence-pair boundaries into shards
(about the same number of token pairs each), puts them where the work runs **once**
(``client.scatter`` for a ``dask.distributed.Client``, pinned round-robin to the workers;
kept in the driver for a :class:`concurrent.futures.Executor`), and then, each iteration,
sends the current parameter tables (broadcast once per call), runs the unchanged numba
kernel on every shard, and adds the shards' expected counts **in shard order** on the
driver, where the M-step stays.

The shard kernels, beside their models (:func:`alignment.stats.ibm.ibm_shard`,
:func:`~alignment.stats.ibm.ibm_agree_shard`, :func:`alignment.stats.hmm.hmm_shard`,
:func:`~alignment.stats.hmm.hmm_agree_shard`), start from zero accumulators; in process the same kernels add
everything into one accumulator.  The terms are the same, only the order of the
floating-point additions differs (relative differences of order 1e-16 per iteration).
"""

from __future__ import annotations

import math
import time

import numpy as np

from structpred.parallel import check_executor, dask_workers, executor_slots, is_dask_client

from .._runtime import check_stop, chunk_ranges

__all__ = ["BitextShards", "is_dask_client"]

#: most seconds between checks of the stop event while waiting for a shard
_POLL = 0.05


class BitextShards:
    """An encoded bitext cut into shards of whole sentence pairs, held on an executor.

    Parameters
    ----------
    src_ids, src_off, tgt_ids, tgt_off : the corpus (flat ids and CSR offsets).
    pidx, pair_off : from :func:`alignment.stats.ibm.pair_index` on this corpus.
    executor : dask.distributed.Client or concurrent.futures.Executor
    n_shards : int, optional
        Default: two per worker thread (Dask) or per worker (futures).

    Attributes
    ----------
    bounds : list of (lo, hi)
        The sentence range of each shard, in order.
    stats : dict
        ``calls`` and ``bytes_out`` (parameters sent, counted once per worker).
    """

    def __init__(self, src_ids, src_off, tgt_ids, tgt_off, pidx, pair_off, executor,
                 n_shards=None):
        check_executor(executor)
        if executor is None:
            raise TypeError("BitextShards needs an executor")
        self.executor = executor
        self.dask = is_dask_client(executor)
        if self.dask:
            self.workers, threads = dask_workers(executor)
            default = 2 * threads
        else:
            self.workers = None
            default = executor_slots(executor)
        n_shards = max(1, int(n_shards or default))
        src_off = np.asarray(src_off, dtype=np.int64)
        tgt_off = np.asarray(tgt_off, dtype=np.int64)
        pair_off = np.asarray(pair_off, dtype=np.int64)
        n_sent = len(src_off) - 1
        total = int(pair_off[-1]) if n_sent > 0 else 0
        per = max(1, math.ceil(total / n_shards))
        self.bounds = chunk_ranges(pair_off, per) if n_sent > 0 else []
        self.shards = []
        self.shard_workers = []
        for i, (lo, hi) in enumerate(self.bounds):
            shard = (np.ascontiguousarray(src_ids[src_off[lo]:src_off[hi]]),
                     src_off[lo:hi + 1] - src_off[lo],
                     np.ascontiguousarray(tgt_ids[tgt_off[lo]:tgt_off[hi]]),
                     tgt_off[lo:hi + 1] - tgt_off[lo],
                     np.ascontiguousarray(pidx[pair_off[lo]:pair_off[hi]]),
                     pair_off[lo:hi + 1] - pair_off[lo])
            if self.dask:
                worker = self.workers[i % len(self.workers)]
                shard = executor.scatter([shard], workers=[worker], hash=False)[0]
                self.shard_workers.append(worker)
            self.shards.append(shard)
        self.stats = {"calls": 0, "bytes_out": 0}

    def __len__(self):
        return len(self.shards)

    def map_reduce(self, func, *args, stop=None):
        """``sum over shards of func(shard, *args)``, added in shard order.

        ``func`` returns a tuple of floats and arrays; the arrays of the first shard's
        result are the accumulators.  ``stop`` (a :class:`threading.Event`) is checked
        while waiting; when set, :class:`alignment._runtime.Cancelled` is raised and the
        outstanding tasks are cancelled.
        """
        self.stats["calls"] += 1
        if not self.shards:
            raise ValueError("empty bitext")
        nbytes = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
        if self.dask:
            client = self.executor
            # the parameters go to every worker once per call, not once per shard
            packed = client.scatter([args], broadcast=True, hash=False)[0]
            self.stats["bytes_out"] += nbytes * len(self.workers)
            futures = [client.submit(_apply_packed, func, shard, packed, pure=False,
                                     workers=[w], allow_other_workers=True)
                       for shard, w in zip(self.shards, self.shard_workers)]
        else:
            packed = None
            self.stats["bytes_out"] += nbytes * len(self.shards)
            futures = [self.executor.submit(func, shard, *args) for shard in self.shards]
        acc = None
        try:
            for fut in futures:          # in shard order: the sum is deterministic
                out = _wait(fut, stop)
                acc = list(out) if acc is None else _add_into(acc, out)
        except BaseException:
            for fut in futures:
                if not fut.done():       # cancelling a finished Dask future can upset the
                    fut.cancel()         # scheduler of a long-lived client; drop it instead
            raise
        finally:
            if packed is not None:
                packed.release()
        return tuple(acc)

    def close(self):
        """Release the scattered shards (Dask): this object's references are dropped, and the
        scheduler frees the data once no one else holds it (no cancel: the shards are
        finished futures, which a long-lived client's scheduler should not be asked to
        cancel)."""
        if self.dask:
            for fut in self.shards:
                fut.release()
        self.shards = []


def _wait(fut, stop):
    """The result of ``fut``, checking ``stop`` while waiting (by polling ``done()``:
    ``Future.result(timeout=...)`` of Dask can fail when it times out)."""
    if stop is None:
        return fut.result()
    delay = 0.001
    while not fut.done():
        check_stop(stop)
        time.sleep(delay)
        delay = min(2 * delay, _POLL)
    return fut.result()


def _add_into(acc, out):
    for i, x in enumerate(out):
        if isinstance(acc[i], np.ndarray):
            acc[i] += x
        else:
            acc[i] = acc[i] + x
    return acc


def _apply_packed(func, shard, packed):
    return func(shard, *packed)
