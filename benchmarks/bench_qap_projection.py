"""Seconds per dual-extragradient iteration of model M+F+Q on the Czech dev set.

Builds the M+F+Q training examples of the Czech protocol (train = dev sentences
1-400, :mod:`czech_protocol`) with the thesis feature set (Dice, IBM Model 2 and
the interaction statistics of the 12,500-pair bitext, cached in ``.cache/stats/``
as ``structpred align train --stats .cache/stats/`` does), then times a few
iterations of the memory-efficient dual extragradient (two relaxed-QAP
projections per example and iteration, thesis fig. 2.6) for each pair-candidate
set.

    python benchmarks/bench_qap_projection.py                    # all and likely, 5 iterations
    python benchmarks/bench_qap_projection.py --candidates likely --iterations 3 --sentences 100
    python benchmarks/bench_qap_projection.py --projector osqp   # the OSQP projection, for comparison

The cost per iteration grows over the first tens of iterations (the points to
project move away from the targets), so compare runs over the same iterations.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

from czech_protocol import load_corpus  # noqa: E402


def build(candidates, n_sentences, projector):
    from alignment.stats.interactions import InteractionStatistics
    from alignment.model import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics

    corpus = load_corpus("czech")
    lines = corpus.splits["tune"][:n_sentences]
    pairs = corpus.pairs(lines)
    gold = [corpus.gold[i] for i in lines]
    cache = str(ROOT / ".cache" / "stats") + "/"
    stats = AlignmentStatistics.load_or_fit(cache, corpus.src_path, corpus.tgt_path,
                                            verbose=False)
    inter = InteractionStatistics.load_or_fit(cache, stats, corpus.src_path, corpus.tgt_path)
    model = MatchingAligner(max_fertility=2, interactions=True, pair_candidates=candidates)
    model._featurizers(stats, inter, pairs, gold)
    examples = [model._example(s, t, g) for (s, t), g in zip(pairs, gold)]
    if projector is not None:
        for ex in examples:
            ex.projector = projector()
    return examples


def time_iterations(examples, n_iter):
    """Wall and CPU seconds of each of ``n_iter`` dual-extragradient iterations (the first
    also holds the power iteration that sets the step size).  The CPU time of this
    process is the fairer figure on a shared machine."""
    from structpred import L2Ball
    from structpred.learners._dual_extragradient import dual_extragradient_streaming
    from structpred.learners._monitor import Monitor

    stamps = []

    class Stamp(Monitor):
        def after_iteration(self, t, n, w, ex):
            stamps.append((time.perf_counter(), time.process_time()))
            return super().after_iteration(t, n, w, ex)

    d = examples[0].F.shape[0]
    nonneg = np.arange(0, d)   # timing only: which weights are non-negative does not matter
    t0 = (time.perf_counter(), time.process_time())
    dual_extragradient_streaming(examples, W=L2Ball(nonneg=nonneg), n_iter=n_iter,
                                 monitor=Stamp(every=10**9, hinge=False))
    wall, cpu = np.diff(np.array([t0] + stamps), axis=0).T
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--candidates", choices=["all", "likely", "both"], default="both")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--sentences", type=int, default=400)
    ap.add_argument("--projector", choices=["default", "osqp"], default="default",
                    help="default: the dual block-coordinate ascent (DualQAPProjector); "
                         "osqp: RelaxedQAPProjector")
    ap.add_argument("--tol", type=float, default=None,
                    help="KKT tolerance of the default projector (default: its own, 1e-7)")
    args = ap.parse_args()
    projector = None
    if args.projector == "osqp":
        from structpred.polytopes._qap import RelaxedQAPProjector

        projector = lambda: RelaxedQAPProjector(max_cache=1)  # noqa: E731
    elif args.tol is not None:
        from structpred import DualQAPProjector

        projector = lambda: DualQAPProjector(tol=args.tol)  # noqa: E731
    for cand in (["all", "likely"] if args.candidates == "both" else [args.candidates]):
        t0 = time.perf_counter()
        examples = build(cand, args.sentences, projector)
        n_pairs = sum(len(ex.pairs) for ex in examples)
        n_vars = sum(ex.n_vars for ex in examples)
        print(f"{cand}: {len(examples)} examples, {n_vars} variables, {n_pairs} pairs "
              f"(built in {time.perf_counter() - t0:.1f}s)", flush=True)
        wall, cpu = time_iterations(examples, args.iterations)
        proj = examples[0].projector
        sweeps = sum(getattr(ex.projector, "n_sweeps", 0) for ex in examples)
        solves = sum(ex.projector.n_solves for ex in examples)
        what = (f"{sweeps / solves:.1f} sweeps per projection" if hasattr(proj, "n_sweeps") else
                f"{sum(ex.projector.n_osqp_iter for ex in examples) / solves:.1f} OSQP "
                "iterations per projection")
        print(f"{cand}: seconds per iteration, wall {np.round(wall, 2).tolist()}, CPU "
              f"{np.round(cpu, 2).tolist()}; median of iterations 2+: wall "
              f"{np.median(wall[1:]):.2f}, CPU {np.median(cpu[1:]):.2f}; last 5: wall "
              f"{np.mean(wall[-5:]):.2f}, CPU {np.mean(cpu[-5:]):.2f} ({what})", flush=True)


if __name__ == "__main__":
    main()
