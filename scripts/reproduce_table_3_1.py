"""Reproduce thesis Table 3.1: models M, M+F, M+Q and M+F+Q on the Hansards.

    python scripts/reproduce_table_3_1.py                 # the four models, 100 and 200 sentences
    python scripts/reproduce_table_3_1.py --external      # + eflomal/fast_align features and baselines
    python scripts/reproduce_table_3_1.py --qcqp          # + the thesis's QCQP route (eq. 2.15) for M+Q
    python scripts/reproduce_table_3_1.py --bitext full --models "" --external   # statistics and
        # external aligners on the full 1.13M-pair bitext of ../shared/data (M+F+Q + external only)

Protocol (thesis ch. 3): train on the first 100 / 200 of the 447 Hansards test
sentences, validate on the 37 trial sentences (best iterate along the path),
test on the last 247.  Statistics (Dice, IBM Model 2 both ways, the fertility
and pattern shares) come from the whole bundled bitext (231,648 pairs), or with
``--bitext full`` from the 1,130,588 pairs in ``../shared/data``, and are cached
in ``.cache`` under names that say which bitext.  Besides the table the script
measures, on the test set, whether the two exact ILP back ends (OR-Tools SCIP,
PuLP CBC) return the same optimum for every sentence, and how often the LP
relaxation is fractional, its AER after rounding and its time against the ILP's.
Results are also written as JSON (``--json``).
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from alignment.evaluate.aer import (AERScore, error_breakdown, format_errors, score_alignments,  # noqa: E402
                                    sentence_counts)
from structpred import atomic_write
from alignment.data.hansards import BITEXTS, load_hansards  # noqa: E402
from alignment.evaluate.protocol import external_cache_path, hansards_setup  # noqa: E402
from alignment.data.formats import Alignment  # noqa: E402
from alignment.model import MODELS, MatchingAligner  # noqa: E402

#: Table 3.1 (precision, recall, AER)
THESIS = {
    (100, "M"): (94.1, 88.5, 8.5), (100, "M+F"): (93.9, 89.4, 8.1),
    (100, "M+Q"): (94.4, 91.9, 6.7), (100, "M+F+Q"): (94.8, 92.5, 6.2),
    (200, "M"): (93.4, 89.7, 8.2), (200, "M+F"): (93.6, 90.1, 8.0),
    (200, "M+Q"): (95.0, 91.1, 6.8), (200, "M+F+Q"): (95.2, 92.4, 6.1),
    (100, "M+F+Q+IBM4"): (96.4, 94.4, 4.5), (100, "M+F+Q+IBM4+Liang"): (96.7, 95.5, 3.8),
    (200, "M+F+Q+IBM4"): (96.0, 95.0, 4.4),
}


def _row(label, n_train, score, seconds=None, thesis=None, extra=""):
    t = "–" if thesis is None else f"{thesis[0]:.1f} / {thesis[1]:.1f} / {thesis[2]:.1f}"
    s = "" if seconds is None else f"{seconds:.0f}"
    return (f"| {label} | {n_train} | {100 * score.precision:.1f} | {100 * score.recall:.1f} | "
            f"{100 * score.aer:.1f} | {t} | {s} | {extra} |")


def decoder_study(model, pairs, gold):
    """ILP back ends against each other, and the LP relaxation with rounding."""
    from structpred import decode_qap

    agree, max_gap, frac_sent, frac_edges, n_edges = 0, 0.0, 0, 0, 0
    t_ilp = t_pulp = t_lp = 0.0
    pred_ilp, pred_lp = [], []
    for s, t in pairs:
        F, pr, _ = model._structure(s, t)
        shape = (len(s), len(t))
        ex = model._make_example(F, pr, shape, np.zeros(shape), 1.0, "ortools")
        e, fs, ft, q = ex.split(np.asarray(F.T @ model.coef_).ravel())
        a = decode_qap(e, -fs, -ft, pr, q, backend="ortools")
        b = decode_qap(e, -fs, -ft, pr, q, backend="pulp")
        c = decode_qap(e, -fs, -ft, pr, q, backend="lp")
        t_ilp += a.seconds
        t_pulp += b.seconds
        t_lp += c.seconds
        gap = abs(a.objective - b.objective)
        max_gap = max(max_gap, gap)
        agree += gap <= 1e-6 * max(1.0, abs(a.objective))
        frac_sent += c.fractional
        le = c.lp_edges
        frac_edges += int(np.sum((le > 1e-6) & (le < 1 - 1e-6)))
        n_edges += le.size
        pred_ilp.append(Alignment.from_links(zip(*np.nonzero(a.y))))
        pred_lp.append(Alignment.from_links(zip(*np.nonzero(c.y))))
    n = len(pairs)
    return {"sentences": n, "backends_agree": agree, "max_objective_gap": max_gap,
            "fractional_sentences": frac_sent, "fractional_edge_share": frac_edges / max(n_edges, 1),
            "aer_ilp": 100 * score_alignments(pred_ilp, gold).aer,
            "aer_lp_rounded": 100 * score_alignments(pred_lp, gold).aer,
            "seconds_ortools": t_ilp, "seconds_pulp": t_pulp, "seconds_lp": t_lp}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--bitext", default="36-2", choices=BITEXTS,
                    help="unlabeled bitext of the statistics (and default external cache)")
    ap.add_argument("--models", default="M,M+F,M+Q,M+F+Q",
                    help="comma-separated; empty with --external: only M+F+Q + external")
    ap.add_argument("--train-sizes", default="100,200")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--c-neg", type=float, default=3.0, help="c- (c+ = 1)")
    ap.add_argument("--external", action="store_true",
                    help="also M+F+Q with eflomal/fast_align features, and those aligners alone")
    ap.add_argument("--external-cache", default=None,
                    help="default: CACHE_DIR/external-hansards[-BITEXT].tsv.gz")
    ap.add_argument("--pair-candidates", default="all", choices=["all", "likely"],
                    help="pair set of the +Q models: all of Q, or pairs of likely edges")
    ap.add_argument("--qcqp", action="store_true", help="also train M+Q by the QCQP of eq. 2.15")
    ap.add_argument("--hmm", type=int, default=0, metavar="ITER",
                    help="add the edge features of our HMM aligner (alignment.stats.hmm), trained "
                         "with ITER EM iterations per direction on the same bitext (0: off)")
    ap.add_argument("--hmm-agreement", action="store_true",
                    help="train the two HMM directions by agreement (Liang et al. 2006)")
    ap.add_argument("--hmm-lexicon", type=int, default=0, metavar="ITER",
                    help="replace the IBM Model 2 translation tables by those of our HMM "
                         "(ITER EM iterations; --hmm-agreement applies): Model 2 positions, HMM "
                         "lexicon, every feature still zeroth-order (0: off); with --hmm ITER as "
                         "well, the same HMM's posterior features are added")
    ap.add_argument("--ibm-agreement", action="store_true",
                    help="train the two IBM Model 1/2 directions jointly by agreement")
    ap.add_argument("--exclude-features", default="",
                    help="comma-separated dense edge features to leave out (ablation), e.g. "
                         "nbr_diag,nbr_anti,nbr_vit_diag")
    ap.add_argument("--include-features", default="",
                    help="comma-separated optional edge features to add: farther_src_occ, "
                         "farther_tgt_occ")
    ap.add_argument("--n-frequent", type=int, default=10,
                    help="bilexical features for the N most frequent words of each side "
                         "(N + N + N*N indicator features)")
    ap.add_argument("--errors", type=int, default=0, metavar="N",
                    help="print each row's N word pairs with the most false and missed test links")
    ap.add_argument("--no-decoder-study", action="store_true")
    ap.add_argument("--cache-dir", default=".cache")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)

    data = load_hansards(args.data_dir, bitext=args.bitext)
    verbose = not args.quiet
    if args.hmm and args.hmm_lexicon and args.hmm != args.hmm_lexicon:
        ap.error("--hmm and --hmm-lexicon together must name the same ITER (one HMM)")
    stats, inter = hansards_setup(data, None, cache_dir=args.cache_dir, verbose=verbose,
                                  ibm_agreement=args.ibm_agreement,
                                  hmm=args.hmm or args.hmm_lexicon,
                                  hmm_agreement=args.hmm_agreement, hmm_features=bool(args.hmm),
                                  hmm_lexicon=bool(args.hmm_lexicon))
    external = None
    if args.external:
        from alignment.aligners.linkfiles import ExternalAlignments

        cache = Path(args.external_cache or external_cache_path(data, args.cache_dir))
        if not cache.exists():
            sys.exit(f"{cache} is missing: run scripts/run_external_aligners.py first")
        from structpred import FormatError

        try:
            if not ExternalAlignments.check_cache(cache, data.bitext_src, data.bitext_tgt):
                print(f"warning: {cache} records no bitext fingerprint (written before "
                      "format version 2); its links are matched by sentence text",
                      file=sys.stderr)
        except FormatError as exc:
            sys.exit(str(exc))
        src = [s for s, _ in data.trial_pairs + data.test_pairs]
        tgt = [t for _, t in data.trial_pairs + data.test_pairs]
        from structpred import open_text

        header = 2 if ExternalAlignments.read_key(cache) is not None else 1
        with open_text(cache) as fh:
            n_lines = sum(1 for _ in fh) - header
        from alignment.data.corpus import load_bitext

        bt = load_bitext(data.bitext_src, data.bitext_tgt, max_pairs=n_lines, max_len=None)
        external = ExternalAlignments.load(cache, bt.src[:n_lines], bt.tgt[:n_lines])
        missing = sum((s, t) not in external for s, t in zip(src, tgt))
        if missing:
            sys.exit(f"{cache}: {missing} gold sentences have no external links")

    test_pairs, test_gold = data.test_pairs[200:], data.test_gold[200:]
    lines = ["| model | train | precision | recall | AER | thesis P / R / AER | train time (s) | notes |",
             "|---|---:|---:|---:|---:|---|---:|---|"]
    results = {"rows": [], "decoders": {}, "settings": vars(args)}
    configs = [(name, False) for name in args.models.split(",") if name.strip()]
    if args.external:
        configs.append(("M+F+Q", True))
    exclude, include = (tuple(f.strip() for f in text.split(",") if f.strip())
                        for text in (args.exclude_features, args.include_features))
    error_lists = []
    for n_train in map(int, args.train_sizes.split(",")):
        for name, use_ext in configs:
            D, Q = MODELS[name]
            label = (name + (" (IBM 2 by agreement)" if args.ibm_agreement else "")
                     + ((" + HMM (agreement)" if args.hmm_agreement else " + HMM")
                             if args.hmm else "")
                     + ((" with the HMM (agreement) lexicon" if args.hmm_agreement
                         else " with the HMM lexicon") if args.hmm_lexicon else "")
                     + (" + eflomal/fast_align" if use_ext else "")
                     + (f" − {{{args.exclude_features}}}" if exclude else "")
                     + (f", {args.n_frequent} frequent words" if args.n_frequent != 10 else "")
                     + (f" + {{{args.include_features}}}" if include else ""))
            t0 = time.perf_counter()
            model = MatchingAligner(max_fertility=D, interactions=Q, use_external=use_ext,
                                    pair_candidates=args.pair_candidates,
                                    n_iter=args.iterations, cost_neg=args.c_neg,
                                    validate_every=10, exclude_features=exclude,
                                    n_frequent=args.n_frequent, include_features=include,
                                    random_state=0, verbose=False)
            model.fit(data.test_pairs[:n_train], data.test_gold[:n_train], stats,
                      eval_set=(data.trial_pairs, data.trial_gold), interaction_stats=inter,
                      external=external)
            secs = time.perf_counter() - t0
            predicted = model.predict(test_pairs)
            counts = sentence_counts(predicted, test_gold)
            score = AERScore.from_sentence_counts(counts)
            if args.errors:
                error_lists.append(f"\n{label}, {n_train} training sentences, test errors:\n"
                                   + format_errors(error_breakdown(predicted, test_gold, test_pairs),
                                                   top=args.errors))
            row = {"model": label, "name": name + (" + external" if use_ext else ""),
                   "train": n_train, "c_neg": args.c_neg, "precision": 100 * score.precision,
                   "recall": 100 * score.recall, "aer": 100 * score.aer, "seconds": secs,
                   "best_iter": model.result_.best_iter,
                   "valid_aer": 100 * model.result_.best_score,
                   # per test sentence (|A|, |S|, |P|, |A∩S|, |A∩P|), for significance tests
                   "sentence_counts": counts.tolist()}
            results["rows"].append(row)
            lines.append(_row(label, n_train, score, secs, THESIS.get((n_train, name)) if not use_ext
                              else THESIS.get((n_train, "M+F+Q+IBM4")),
                              f"best iter {row['best_iter']}, valid AER {row['valid_aer']:.1f}"))
            if verbose:
                print(lines[-1], file=sys.stderr, flush=True)
            if Q and n_train == 100 and not use_ext and not args.no_decoder_study:
                results["decoders"][label] = decoder_study(model, test_pairs, test_gold)
            if args.qcqp and name == "M+Q" and n_train == 100:
                results["qcqp"] = qcqp_route(model, data, stats, inter, n_train, test_pairs,
                                             test_gold, args)
                q = results["qcqp"]
                lines.append(f"| M+Q (QCQP, eq. 2.15) | {n_train} | {q['precision']:.1f} | "
                             f"{q['recall']:.1f} | {q['aer']:.1f} | – | {q['seconds']:.0f} | "
                             f"radius {q['radius']:.3g} chosen on validation |")
    if args.external:
        lines += external_baselines(external, test_pairs, test_gold, data.bitext)
    print("\n".join(lines))
    for text in error_lists:
        print(text)
    for label, d in results["decoders"].items():
        print(f"\n{label}, 100 training sentences, decoding the {d['sentences']} test sentences: "
              f"OR-Tools SCIP and PuLP CBC agree on {d['backends_agree']}/{d['sentences']} "
              f"optima (max gap {d['max_objective_gap']:.1e}); LP relaxation fractional on "
              f"{d['fractional_sentences']} sentences ({100 * d['fractional_sentences'] / d['sentences']:.0f}%), "
              f"{100 * d['fractional_edge_share']:.2f}% of edges; AER ILP {d['aer_ilp']:.2f} vs "
              f"LP+rounding {d['aer_lp_rounded']:.2f}; time SCIP {d['seconds_ortools']:.1f}s, "
              f"CBC {d['seconds_pulp']:.1f}s, LP {d['seconds_lp']:.1f}s "
              f"(LP/SCIP = {d['seconds_lp'] / max(d['seconds_ortools'], 1e-9):.2f})")
    if args.json:
        with atomic_write(args.json) as fh:   # creates missing folders; never half-written
            fh.write(json.dumps(results, indent=1))


def external_baselines(external, test_pairs, test_gold, bitext="36-2"):
    from alignment.aligners.symmetrize import symmetrize

    out = []
    for label, fn in [
        ("eflomal forward", lambda e: e["eflomal_fwd"]),
        ("eflomal backward", lambda e: e["eflomal_bwd"]),
        ("eflomal intersection", lambda e: symmetrize(e["eflomal_fwd"], e["eflomal_bwd"],
                                                      "intersection")),
        ("eflomal grow-diag-final-and", lambda e: symmetrize(e["eflomal_fwd"], e["eflomal_bwd"],
                                                             "grow-diag-final-and")),
        ("fast_align (systran-align, symmetrised)", lambda e: e["fast_align"]),
    ]:
        pred = []
        for s, t in test_pairs:
            mats = external.matrices(s, t)
            entry = {n: {(j, k) for j, k in zip(*np.nonzero(mats[i]))}
                     for i, n in enumerate(external.names)}
            pred.append(Alignment.from_links(fn(entry)))
        sc = score_alignments(pred, test_gold)
        out.append(_row(label, "unsup.", sc, None, None,
                        f"unsupervised, whole bitext ({bitext})"))
    return out


def qcqp_route(model_de, data, stats, inter, n_train, test_pairs, test_gold, args):
    """Train M+Q by the joint QCQP of eq. 2.15 (cvxpy), for a few radii chosen on validation."""
    from structpred import L2Ball
    from structpred import solve_saddle_qp

    model = MatchingAligner(max_fertility=1, interactions=True, cost_neg=args.c_neg,
                            pair_candidates=args.pair_candidates)
    model.stats_ = stats
    model.external_ = None
    model.feature_names_ = model._featurizers(stats, inter, data.test_pairs[:n_train],
                                              data.test_gold[:n_train])
    t0 = time.perf_counter()
    examples = [model._example(s, t, g) for (s, t), g in zip(data.test_pairs[:n_train],
                                                             data.test_gold[:n_train])]
    nonneg = tuple(range(model.n_edge_features_, len(model.feature_names_)))
    best = None
    w_norm = float(np.linalg.norm(model_de.coef_))
    for radius in (0.5 * w_norm, w_norm, 2 * w_norm):
        res = solve_saddle_qp(examples, L2Ball(radius=radius, nonneg=nonneg), solver="CLARABEL")
        model.coef_ = L2Ball(radius=radius, nonneg=nonneg).project(res.w)
        v = score_alignments(model.predict(data.trial_pairs), data.trial_gold).aer
        if best is None or v < best[0]:
            best = (v, radius, model.coef_.copy())
    secs = time.perf_counter() - t0
    model.coef_ = best[2]
    sc = score_alignments(model.predict(test_pairs), test_gold)
    return {"precision": 100 * sc.precision, "recall": 100 * sc.recall, "aer": 100 * sc.aer,
            "seconds": secs, "radius": best[1], "valid_aer": 100 * best[0]}


if __name__ == "__main__":
    main()
