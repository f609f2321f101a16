"""``structpred align predict`` on an executor: chunks of sentence pairs aligned by the
workers, written in input order as they come back (:func:`structpred._parallel.map_ordered`).

The trained model (with its statistics) is sent to the workers once; each task carries a
chunk of sentence pairs and brings back their alignments.  At most a few chunks per
worker are in flight, so the driver's memory stays flat on a long input.
"""

from __future__ import annotations

import itertools

from structpred._parallel import map_ordered

__all__ = ["predict_chunks", "CLUSTER_CHUNK"]

#: sentence pairs per task on a cluster (enough work to hide the round trip)
CLUSTER_CHUNK = 32


def _predict(model, chunk):
    return model.predict(chunk)


def predict_chunks(model, chunks, executor=None, max_in_flight=None):
    """``(chunk, model.predict(chunk))`` for each chunk of sentence pairs, in order.

    Without ``executor`` the chunks are predicted here, one after the other, as they
    are read (exactly ``model.predict(chunk)``); with one, several chunks are aligned at
    once on the workers and yielded in input order.
    """
    if executor is None:
        for chunk in chunks:
            yield chunk, model.predict(chunk)
        return
    # the chunks are read once; tee keeps those in flight for the zip (a bounded number)
    ahead, mine = itertools.tee(chunks)
    results = map_ordered(_predict, ahead, executor, chunk_size=1, max_in_flight=max_in_flight,
                          shared=model)
    yield from zip(mine, results)
