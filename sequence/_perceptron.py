"""The averaged structured perceptron's pass over the training sentences (Collins 2002),
compiled with numba: Viterbi under the current weights, then the update of the weights
and of their running sum for the lazy average.

:meth:`sequence.model.SequenceTagger._fit_perceptron` calls :func:`_perceptron_epoch`
once an iteration (``learner="perceptron"``), on the sparse features of the tokens and
the weights laid out as :class:`structpred.ChainExample` reads them.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _perceptron_epoch(indptr, indices, data, starts, labels, order, K, n_obs, w, u, counter):
    """One pass of the averaged structured perceptron (Collins 2002) over the sentences
    in ``order``, with the lazy averaging trick: ``u`` accumulates ``c * update``, and the
    average after ``c`` steps is ``w - u / c``."""
    trans = n_obs * K
    start = trans + K * K
    end = start + K
    maxlen = 0
    for i in range(starts.size - 1):
        if starts[i + 1] - starts[i] > maxlen:
            maxlen = starts[i + 1] - starts[i]
    node = np.empty((maxlen, K))
    delta = np.empty((maxlen, K))
    back = np.zeros((maxlen, K), dtype=np.int64)
    pred = np.empty(maxlen, dtype=np.int64)
    for oi in range(order.size):
        si = order[oi]
        s, e = starts[si], starts[si + 1]
        n = e - s
        for i in range(n):
            for k in range(K):
                acc = 0.0
                for p in range(indptr[s + i], indptr[s + i + 1]):
                    acc += data[p] * w[indices[p] * K + k]
                node[i, k] = acc
        for k in range(K):
            node[0, k] += w[start + k]
            node[n - 1, k] += w[end + k]
            delta[0, k] = node[0, k]
        for i in range(1, n):
            for b in range(K):
                m = -np.inf
                arg = 0
                for a in range(K):
                    v = delta[i - 1, a] + w[trans + a * K + b]
                    if v > m:
                        m = v
                        arg = a
                delta[i, b] = m + node[i, b]
                back[i, b] = arg
        m = -np.inf
        for k in range(K):
            if delta[n - 1, k] > m:
                m = delta[n - 1, k]
                pred[n - 1] = k
        for i in range(n - 1, 0, -1):
            pred[i - 1] = back[i, pred[i]]
        c = counter[0]
        for i in range(n):
            g, h = labels[s + i], pred[i]
            if g != h:
                for p in range(indptr[s + i], indptr[s + i + 1]):
                    f = indices[p]
                    w[f * K + g] += data[p]
                    u[f * K + g] += c * data[p]
                    w[f * K + h] -= data[p]
                    u[f * K + h] -= c * data[p]
            if i > 0:
                ga, ha = labels[s + i - 1], pred[i - 1]
                if ga != ha or g != h:
                    w[trans + ga * K + g] += 1.0
                    u[trans + ga * K + g] += c
                    w[trans + ha * K + h] -= 1.0
                    u[trans + ha * K + h] -= c
        if labels[s] != pred[0]:
            w[start + labels[s]] += 1.0
            u[start + labels[s]] += c
            w[start + pred[0]] -= 1.0
            u[start + pred[0]] -= c
        if labels[e - 1] != pred[n - 1]:
            w[end + labels[e - 1]] += 1.0
            u[end + labels[e - 1]] += c
            w[end + pred[n - 1]] -= 1.0
            u[end + pred[n - 1]] -= c
        counter[0] = c + 1.0
