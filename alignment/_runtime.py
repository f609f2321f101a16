"""Long computations that stay responsive: progress bars only on a terminal, numba
kernels called on chunks of the corpus, and two threads that both stop on Ctrl-C.

A numba kernel cannot be interrupted: Python notices Ctrl-C only when it returns.
The corpus-wide kernels (E-steps of IBM Models 1/2 and of the HMM, the token-pair
index, the interaction statistics) are therefore called on slices of sentences of
about :data:`CHUNK_PAIRS` token pairs each, well under a second of work.  When the
two directions run in two threads, :func:`run_threads` tells both to stop at their
next chunk and re-raises the ``KeyboardInterrupt`` in the main thread.
"""

from __future__ import annotations

import threading

import numpy as np

from structpred.io import note, progress_enabled

__all__ = ["progress_enabled", "chunk_ranges", "Cancelled", "check_stop", "run_threads",
           "CHUNK_PAIRS", "log", "MAX_COST", "MAX_FREQUENT", "MAX_ILP_CELLS",
           "LPDecodingWarning", "lp_decoding_message"]

#: token pairs (source word x target word) per kernel call
CHUNK_PAIRS = 1_000_000


#: the largest loss cost (``cost_pos``, ``cost_neg``, ``possible_cost``): costs of 1e30
#: overflowed the learner's projection (a ``ZeroDivisionError``), and a ``cost_neg`` of 1e300
#: trained a model of 59 % AER without a word
MAX_COST = 1e6
#: the largest ``n_frequent``: it adds ``n_frequent**2`` pair-identity features (5,000 took
#: 17 GB of memory and minutes before the first iteration; the thesis uses 10)
MAX_FREQUENT = 1000

#: the most word pairs (m x n) of a sentence pair that a +Q model decodes exactly (the ILP
#: through OR-Tools' SCIP or PuLP's CBC), whose time has no bound in the size (150 x 150
#: words took seconds, 300 x 300 80 s, 999 x 999 over 12 minutes and 7 GB in one compiled
#: call that SIGTERM could not stop); a larger pair is decoded by the LP relaxation
#: (GLOP), rounded to the nearest 0/1 links within the fertility limit (a min-cost flow)
MAX_ILP_CELLS = 40_000


class LPDecodingWarning(UserWarning):
    """Sentence pairs above :data:`MAX_ILP_CELLS` word pairs decoded by a +Q model's LP
    relaxation instead of its exact decoder."""


def lp_decoding_message(n, first, where="pair"):
    """The text of a :class:`LPDecodingWarning`: ``n`` pairs, the first at ``first``."""
    return (f"{n:,} sentence pair{'s' if n != 1 else ''} over {MAX_ILP_CELLS:,} word pairs "
            f"(the first: {where} {first}) decoded by the LP relaxation, rounded to the nearest "
            "links within the fertility limit: the exact decoder's time has no bound in the "
            "size (split such sentences for exact links)")


def log(verbose, msg):
    """A progress line on stderr when ``verbose``."""
    if verbose:
        note(msg)


def chunk_ranges(work_offsets, per_chunk=CHUNK_PAIRS):
    """Sentence ranges ``[(lo, hi), ...]`` covering ``0 .. n`` in order, each with about
    ``per_chunk`` units of work, where sentence ``s`` costs
    ``work_offsets[s + 1] - work_offsets[s]`` (a CSR offset array of length ``n + 1``)."""
    off = np.asarray(work_offsets, dtype=np.int64)
    n = len(off) - 1
    if n <= 0:
        return []
    total = int(off[-1])
    cuts = np.searchsorted(off, np.arange(per_chunk, total, per_chunk, dtype=np.int64),
                           side="left") if total > per_chunk else np.zeros(0, np.int64)
    bounds = np.unique(np.concatenate(([0], np.clip(cuts, 1, n - 1) if n > 1 else [], [n])))
    bounds = bounds.astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


class Cancelled(Exception):
    """Raised in a worker thread told to stop (the main thread was interrupted)."""


def check_stop(stop):
    """Raise :class:`Cancelled` if the event ``stop`` is set (``None``: never)."""
    if stop is not None and stop.is_set():
        raise Cancelled()


def run_threads(*calls):
    """Run ``call(stop)`` for each call in its own thread and return their results.

    ``stop`` is a :class:`threading.Event` each call checks between chunks of work
    (:func:`check_stop`).  If the main thread is interrupted (Ctrl-C) or a call fails,
    ``stop`` is set, the threads are waited for (each stops at its next check) and the
    exception is raised here.
    """
    stop = threading.Event()
    results = [None] * len(calls)
    errors = [None] * len(calls)

    def work(i):
        try:
            results[i] = calls[i](stop)
        except BaseException as exc:  # noqa: B902 - handed to the main thread
            errors[i] = exc
            stop.set()

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(len(calls))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.1)
    except BaseException:
        stop.set()
        for t in threads:
            t.join()
        raise
    for exc in errors:
        if exc is not None and not isinstance(exc, Cancelled):
            raise exc
    return results


def run_parts(calls, n_jobs):
    """``call(stop)`` for each call: each in a thread of its own with ``n_jobs >= 2``
    (:func:`run_threads`), else one after the other; the results in call order."""
    if n_jobs >= 2 and len(calls) > 1:
        return run_threads(*calls)
    return [call(None) for call in calls]


def add_parts(results):
    """The first result (a sequence of arrays) with the arrays of the others added into it,
    in order: the same sums whether the parts ran in threads or one after the other."""
    out = results[0]
    for res in results[1:]:
        for acc, x in zip(out, res):
            acc += x
    return out
