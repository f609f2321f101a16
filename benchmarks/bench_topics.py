"""Throughput of the plain LDA Gibbs sweep against tomotopy's single-thread LDA.

Both samplers run on the same document-term data (20 Newsgroups "bydate" training set,
our tokenisation and vocabulary, the same K, alpha and beta) and we report token-samples
per second (tokens x sweeps / wall time, median of ``--repeats`` timed blocks, after a
warm-up that also compiles the numba kernels).

    python benchmarks/bench_topics.py --topics 20 50 100 --sweeps 20
    python benchmarks/bench_topics.py --data-dir ../shared/data/text      # the default location

tomotopy (``pip install tomotopy``) is optional; without it only our figures are printed.
"""

import argparse
import statistics
import time

import numpy as np

from topics.corpus import Vocabulary, load_20newsgroups, token_arrays
from topics.lda import _run, _seed, init_counts


def ours(words, docs, n_docs, V, K, alpha, beta, sweeps, repeats, seed):
    rng = np.random.default_rng(seed)
    _seed(seed)
    z = rng.integers(0, K, size=words.size).astype(np.int64)
    ndk, nwk, nk = init_counts(words, docs, z, n_docs, K, V)
    _run(words, docs, z, ndk, nwk, nk, alpha, beta, 2)  # warm-up / compile
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _run(words, docs, z, ndk, nwk, nk, alpha, beta, sweeps)
        times.append(time.perf_counter() - t0)
    return words.size * sweeps / statistics.median(times)


def tomotopy_rate(X, vocab_words, K, alpha, beta, sweeps, repeats, seed):
    import tomotopy as tp

    mdl = tp.LDAModel(k=K, alpha=alpha, eta=beta, seed=seed, min_cf=0, rm_top=0)
    X = X.tocsr()
    for d in range(X.shape[0]):
        row = X[d]
        toks = [vocab_words[j] for j, c in zip(row.indices, row.data) for _ in range(int(c))]
        if toks:
            mdl.add_doc(toks)
    mdl.train(2, workers=1)
    n_tokens = sum(len(doc.words) for doc in mdl.docs)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        mdl.train(sweeps, workers=1)
        times.append(time.perf_counter() - t0)
    return n_tokens * sweeps / statistics.median(times), tp.__version__


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="folder holding 20newsgroups/ (default: ../shared/data/text)")
    ap.add_argument("--topics", type=int, nargs="+", default=[20, 50, 100])
    ap.add_argument("--sweeps", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--beta", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    texts, _, _ = load_20newsgroups(args.data_dir, subset="train")
    vocab = Vocabulary(min_df=3, max_df=0.5).fit(texts)
    X = vocab.transform(texts)
    words, docs, _ = token_arrays(X)
    print(f"20 Newsgroups train: {X.shape[0]} documents, {X.shape[1]} words, {words.size} tokens; "
          f"{args.sweeps} sweeps x {args.repeats} repeats, single thread")
    print("| K | structpred (M token-samples/s) | tomotopy (M token-samples/s) | ratio tomotopy / ours |")
    print("|---:|---:|---:|---:|")
    for K in args.topics:
        alpha = 50.0 / K
        r_ours = ours(words, docs, X.shape[0], X.shape[1], K, alpha, args.beta, args.sweeps,
                      args.repeats, args.seed)
        try:
            r_tp, version = tomotopy_rate(X, vocab.words_, K, alpha, args.beta, args.sweeps,
                                          args.repeats, args.seed)
            cells = f"{r_tp / 1e6:.2f} | {r_tp / r_ours:.2f}x"
        except ImportError:
            cells = "n/a | n/a"
        print(f"| {K} | {r_ours / 1e6:.2f} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
