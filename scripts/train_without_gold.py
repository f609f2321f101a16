"""Train the aligner on automatic labels instead of gold (thesis sec. 2.6.2).

    python scripts/train_without_gold.py --labels ibm2 --sizes 500,1000,5000
    python scripts/train_without_gold.py --labels eflomal --sizes 500,1000,5000,20000

The thesis trained on GIZA++ intersected alignments of unlabeled sentences.
Here the labels of N unlabeled bitext sentences (lines after the 484 gold
ones) are the intersection of IBM Model 2's two Viterbi directions, or of
eflomal's two directions (from ``scripts/run_external_aligners.py``'s cache).
No gold alignment is used in training or model selection: the last iterate is
kept.  The model is then tested on the 447 gold test sentences (none of them
was used), and the script prints precision, recall and AER for each N,
with the labeller alone (its intersection on the same test set) as reference.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from alignment.aer import score_alignments  # noqa: E402
from alignment.corpus import load_bitext  # noqa: E402
from alignment.experiment import (hansards_interaction_statistics,  # noqa: E402
                                  hansards_statistics, load_hansards)
from alignment.formats import Alignment  # noqa: E402
from alignment.model import MODELS, MatchingAligner  # noqa: E402



def ibm2_labels(stats, pairs):
    out = []
    for s, t in pairs:
        st = stats.pair_statistics(s, t)
        out.append(Alignment.from_links(zip(*np.nonzero(st["vit_fwd"] * st["vit_bwd"]))))
    return out


def eflomal_labels(external, pairs):
    from alignment.external import symmetrize

    out = []
    for s, t in pairs:
        mats = external.matrices(s, t)
        f = set(zip(*np.nonzero(mats[external.names.index("eflomal_fwd")])))
        b = set(zip(*np.nonzero(mats[external.names.index("eflomal_bwd")])))
        out.append(Alignment.from_links(symmetrize(f, b, "intersection")))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--labels", choices=["ibm2", "eflomal"], default="ibm2")
    ap.add_argument("--sizes", default="500,1000,5000")
    ap.add_argument("--model", default="M", choices=list(MODELS))
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--c-neg", type=float, default=3.0)
    ap.add_argument("--max-len", type=int, default=40, help="skip longer unlabeled sentences")
    ap.add_argument("--external-cache", default=".cache/external-hansards.tsv.gz")
    ap.add_argument("--cache-dir", default=".cache")
    args = ap.parse_args(argv)

    data = load_hansards(args.data_dir)
    n_gold_lines = data.n_gold   # the bitext starts with the trial and test gold sentences
    stats = hansards_statistics(data, None, cache_dir=args.cache_dir)
    sizes = [int(x) for x in args.sizes.split(",")]
    need = max(sizes)
    bt = load_bitext(data.bitext_src, data.bitext_tgt, max_pairs=need * 2 + 10000,
                     skip_first=n_gold_lines, protect_first=0, max_len=args.max_len,
                     max_ratio=3.0)
    pool = [(s, t) for s, t in zip(bt.src, bt.tgt) if s and t]
    external = None
    if args.labels == "eflomal":
        from alignment.external import ExternalAlignments
        from structpred import open_text

        from structpred import FormatError

        try:
            if not ExternalAlignments.check_cache(args.external_cache, data.bitext_src,
                                                  data.bitext_tgt):
                print(f"warning: {args.external_cache} records no bitext fingerprint",
                      file=sys.stderr)
        except FormatError as exc:
            sys.exit(str(exc))
        header = 2 if ExternalAlignments.read_key(args.external_cache) is not None else 1
        with open_text(args.external_cache) as fh:
            n_lines = sum(1 for _ in fh) - header
        full = load_bitext(data.bitext_src, data.bitext_tgt, max_pairs=n_lines, max_len=None)
        external = ExternalAlignments.load(args.external_cache, full.src, full.tgt)
        pool = [p for p in pool if p in external]
    if len(pool) < need:
        sys.exit(f"only {len(pool)} usable unlabeled pairs for N = {need}")
    label = (lambda ps: ibm2_labels(stats, ps)) if args.labels == "ibm2" else \
        (lambda ps: eflomal_labels(external, ps))
    test_pairs, test_gold = data.test_pairs, data.test_gold
    inter = None
    D, Q = MODELS[args.model]
    if D > 1 or Q:
        inter = hansards_interaction_statistics(data, stats, None, cache_dir=args.cache_dir)
    if args.labels == "eflomal":
        ref = score_alignments(eflomal_labels(external, test_pairs), test_gold)
    else:
        ref = score_alignments(ibm2_labels(stats, test_pairs), test_gold)
    print(f"| labels | N | precision | recall | AER | train time (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| {args.labels} intersection alone | – | {100 * ref.precision:.1f} | "
          f"{100 * ref.recall:.1f} | {100 * ref.aer:.1f} | – |", flush=True)
    for n in sizes:
        pairs = pool[:n]
        labels = label(pairs)
        t0 = time.perf_counter()
        model = MatchingAligner(max_fertility=D, interactions=Q, n_iter=args.iterations,
                                cost_neg=args.c_neg, validate_every=args.iterations,
                                random_state=0)
        model.fit(pairs, labels, stats, interaction_stats=inter)
        secs = time.perf_counter() - t0
        sc = score_alignments(model.predict(test_pairs), test_gold)
        print(f"| {args.model} on {args.labels} labels | {n} | {100 * sc.precision:.1f} | "
              f"{100 * sc.recall:.1f} | {100 * sc.aer:.1f} | {secs:.0f} |", flush=True)


if __name__ == "__main__":
    main()
