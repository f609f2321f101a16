"""How model M's AER moves with the size of the unlabeled bitext behind its statistics.

For each size N, the Dice and IBM Model 1/2 statistics are computed on the first N
lines of ``data/hansards/bitext.36-2`` (always including the 484 gold sentences),
model M is trained with the memory-efficient dual extragradient on the first 100 gold
test sentences (validation on the 37 trial sentences) and tested on the last 247.
Also reported: the AER of the intersected IBM Model 2 Viterbi alignments alone.

    python benchmarks/aer_vs_bitext_size.py --sizes 10000 25000 50000 100000 231648
"""

import argparse
import time

from alignment.evaluate.aer import score_alignments
from alignment.evaluate.protocol import hansards_statistics
from alignment.data.hansards import load_hansards
from alignment.data.formats import Alignment
from alignment.model import MatchingAligner


def ibm2_intersection(stats, pairs):
    out = []
    for src, tgt in pairs:
        st = stats.pair_statistics(src, tgt)
        both = (st["vit_fwd"] > 0) & (st["vit_bwd"] > 0)
        out.append(Alignment.from_links(zip(*both.nonzero())))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 25_000, 50_000, 100_000, 231_648])
    ap.add_argument("--train", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--cache-dir", default=".cache")
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args(argv)
    data = load_hansards(args.data_dir)
    test_pairs, test_gold = data.test_pairs[200:], data.test_gold[200:]
    print("| bitext pairs | statistics (s) | IBM2 intersection AER | model M AER | precision | recall |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        t0 = time.perf_counter()
        stats = hansards_statistics(data, n, cache_dir=args.cache_dir, verbose=False)
        t_stats = time.perf_counter() - t0
        inter = score_alignments(ibm2_intersection(stats, test_pairs), test_gold)
        model = MatchingAligner(n_iter=args.iterations, random_state=0)
        model.fit(data.test_pairs[:args.train], data.test_gold[:args.train], stats,
                  eval_set=(data.trial_pairs, data.trial_gold))
        s = score_alignments(model.predict(test_pairs), test_gold)
        print(f"| {n:,} | {t_stats:.0f} | {100 * inter.aer:.1f} | {100 * s.aer:.1f} | "
              f"{100 * s.precision:.1f} | {100 * s.recall:.1f} |", flush=True)


if __name__ == "__main__":
    main()
