"""A new structured problem on the structpred protocol, trained by the
memory-efficient dual extragradient.

The problem: rank lists of items.  Each example is a list of ``n`` items with
feature vectors ``x_j``; the output puts every item at one of ``n`` rank
positions, i.e. it is an assignment of items to positions, so its polytope is
the bipartite matching polytope.  Part ``(j, k)`` (item ``j`` at position
``k``) has the features ``[a_k x_j, 1]``, with ``a_k`` falling from 1 at the
top position to -1 at the bottom, and the score of a ranking is the sum of its
parts' scores.  The hidden truth sorts the items by ``u'x_j`` plus a little
noise.

A problem only has to say what its parts' features are (``F``), what the
target is (``z_gold``), how to project onto its polytope (``project``) and
how to find the best vertex for given part scores (``decode_scores``).  The
learners never see anything else.

Run from the repository root (about 10 s):  python docs/examples/custom_problem.py
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from structpred import (L2Ball, Monitor, StructuredExample,
                        averaged_perceptron, decode_matching,
                        dual_extragradient_streaming, project_matching)

N_ITEMS = 6        # items per list (and rank positions)
N_FEATURES = 4     # features per item
HIDDEN_U = np.random.default_rng(2024).normal(size=N_FEATURES)


@dataclass
class RankingExample(StructuredExample):
    """One list of items; ``z[j * n + k] = 1`` puts item ``j`` at position ``k``."""

    n_items: int = 0

    def project(self, z):
        """Euclidean projection onto the matching polytope (exact)."""
        n = self.n_items
        return project_matching(np.reshape(z, (n, n))).ravel()

    def decode_scores(self, s):
        """The best assignment of items to positions for part scores ``s``."""
        n = self.n_items
        return decode_matching(np.reshape(s, (n, n))).ravel().astype(np.float64)


def make_example(rng):
    """Draw one list of items and its true ranking."""
    n, p = N_ITEMS, N_FEATURES
    X = rng.normal(size=(n, p))
    relevance = X @ HIDDEN_U + 0.1 * rng.normal(size=n)
    position = np.empty(n, dtype=int)
    position[np.argsort(-relevance)] = np.arange(n)       # most relevant item first
    z_gold = np.zeros((n, n))
    z_gold[np.arange(n), position] = 1.0
    # column j * n + k holds the features of part (j, k): [a_k x_j, 1], where
    # a_k falls from +1 (top position) to -1 (bottom); with weights w the
    # best assignment sorts the items by w'x (the rearrangement inequality)
    a = 1.0 - 2.0 * np.arange(n) / (n - 1)
    parts = np.concatenate([a[None, :, None] * X[:, None, :],        # (item, position, p)
                            np.ones((n, n, 1))], axis=2)
    F = sp.csr_matrix(parts.reshape(n * n, p + 1).T)
    return RankingExample(F=F, z_gold=z_gold.ravel(), n_items=n)


def make_examples(n_lists, seed):
    rng = np.random.default_rng(seed)
    return [make_example(rng) for _ in range(n_lists)]


def accuracy(w, examples):
    """Share of items put at their true position by the decoded ranking."""
    hits = total = 0
    for ex in examples:
        z = ex.decode(w)
        hits += int(np.sum(z * ex.z_gold))
        total += ex.n_items
    return hits / total


def main():
    train = make_examples(200, 0)
    # To stream examples from disk or build them on demand instead of holding
    # them in a list, pass ExampleStream(factory, length): the factory is
    # called once per pass, and this learner then holds one example at a time.
    valid = make_examples(50, 1)
    test = make_examples(200, 2)

    monitor = Monitor(every=10, hinge=True, validation=lambda w: 1.0 - accuracy(w, valid))
    res = dual_extragradient_streaming(train, L2Ball(radius=np.inf), n_iter=100,
                                       monitor=monitor)
    print(f"dual extragradient: {res.message}, best iterate {res.best_iter} "
          f"(validation accuracy {1 - res.best_score:.3f})")
    print(f"  training hinge loss along the path: "
          f"{res.history['hinge'][0]:.1f} -> {res.history['hinge'][-1]:.1f}")
    print(f"  train accuracy {accuracy(res.w, train):.3f}, test accuracy {accuracy(res.w, test):.3f}")

    # A reference learner on the same examples, for comparison.
    per = averaged_perceptron(train, n_epochs=10)
    print(f"averaged perceptron: test accuracy {accuracy(per.w, test):.3f}")

    print(f"chance: {1 / N_ITEMS:.3f}")


if __name__ == "__main__":
    main()
