"""``structpred align train|predict|demo`` and ``structpred aer``: word alignment.

Registered in the ``structpred.commands`` entry-point group (pyproject.toml).
Conventions follow fast_align and eflomal: plain whitespace-tokenised text
in, Pharaoh ``i-j`` (0-based, source-target) out, one line per sentence.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from structpred import LEARNERS
from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors

__all__ = ["add_align_parser", "add_aer_parser", "align_train", "align_predict", "align_demo",
           "aer"]


def _add_text_inputs(p, prefix="", required=False, what="sentences"):
    p.add_argument(f"--{prefix}src", required=required, metavar="FILE",
                   help=f"source-side {what}, one tokenised sentence per line (.gz ok)")
    p.add_argument(f"--{prefix}tgt", required=required, metavar="FILE",
                   help=f"target-side {what}, one tokenised sentence per line (.gz ok)")


def _add_stats_options(p):
    g = p.add_argument_group("unsupervised statistics (Dice, IBM Model 2 both ways)")
    g.add_argument("--bitext-src", metavar="FILE", help="unlabeled parallel text, source side")
    g.add_argument("--bitext-tgt", metavar="FILE", help="unlabeled parallel text, target side")
    g.add_argument("--bitext-pairs", type=int, default=None, metavar="N",
                   help="use only the first N pairs of the bitext (default: all)")
    g.add_argument("--stats", metavar="NPZ",
                   help="statistics cache: read if it exists, else computed and written there")
    g.add_argument("--hmm", type=int, default=0, metavar="ITER",
                   help="also train the HMM aligner (ITER EM iterations per direction, e.g. 5) "
                        "and add its posteriors as edge features; kept in the --stats cache")
    g.add_argument("--hmm-agreement", action="store_true",
                   help="train the two HMM directions by agreement (Liang et al. 2006)")
    g.add_argument("--hmm-lexicon", action="store_true",
                   help="with --hmm: use the HMM only through its translation tables (Model 2 "
                        "posteriors with the HMM's lexicon; every feature stays zeroth-order, "
                        "no HMM posterior features)")
    g.add_argument("--ibm-agreement", action="store_true",
                   help="train the two IBM Model 1/2 directions by agreement (Liang et al. "
                        "2006) when the statistics are computed")


def _add_model_options(p):
    g = p.add_argument_group("model (thesis ch. 3)")
    g.add_argument("--model", default="M", choices=["M", "M+F", "M+Q", "M+F+Q"],
                   help="M: matching; +F: fertility up to 2 (eq. 3.2); +Q: pairs of adjacent "
                        "edges, a quadratic assignment decoded by integer programming (eq. 3.3)")
    g.add_argument("--max-fertility", type=int, default=None, metavar="D",
                   help="fertility limit D of the +F models (default 2)")
    g.add_argument("--decoder", default="ortools", choices=["ortools", "pulp", "lp"],
                   help="+Q models: exact ILP through OR-Tools (SCIP) or PuLP (CBC), or the "
                        "LP relaxation rounded at 1/2")
    g.add_argument("--interaction-stats", metavar="NPZ",
                   help="+F/+Q models: cache of the IBM Model 2 fertility and pattern shares "
                        "(read if it exists, else computed from the bitext and written)")
    g.add_argument("--external", action="append", default=[], metavar="NAME=FILE",
                   help="other aligners' Pharaoh links for the training sentences, e.g. "
                        "eflomal_fwd=train.fwd (repeat; use the same names at predict time)")
    g.add_argument("--valid-external", action="append", default=[], metavar="NAME=FILE",
                   help="the same link sets for the validation sentences")


def add_align_parser(subparsers, name):
    """Add ``structpred align`` (train, predict, demo) to ``subparsers``."""
    align = subparsers.add_parser(name, formatter_class=_Formatter, help="discriminative word alignment (models M, M+F, M+Q, M+F+Q)",
                           description="Train and apply the matching word aligner.")
    asub = align.add_subparsers(dest="align_command", required=True)

    tr = asub.add_parser("train", formatter_class=_Formatter, help="train an aligner on gold alignments",
        description="Train model M with the memory-efficient dual extragradient (or a "
                    "reference learner) on gold-aligned sentence pairs. Example:\n"
                    "  structpred align train --src data/hansards/test.en.gz "
                    "--tgt data/hansards/test.fr.gz --gold data/hansards/test.naacl.gz "
                    "--first 100 --bitext-src data/hansards/bitext.36-2.en.gz "
                    "--bitext-tgt data/hansards/bitext.36-2.fr.gz -o model.npz")
    _add_text_inputs(tr, required=True, what="training sentences")
    tr.add_argument("--gold", required=True, metavar="FILE",
                    help="gold alignments (NAACL 'sent src tgt S|P', 1-based; or Pharaoh)")
    tr.add_argument("--gold-format", choices=["naacl", "pharaoh"], default=None,
                    help="default: guessed from the file name (*.naacl[.gz] is NAACL)")
    tr.add_argument("--first", type=int, default=None, metavar="N",
                    help="train on the first N sentences only")
    _add_text_inputs(tr, prefix="valid-", what="validation sentences")
    tr.add_argument("--valid-gold", metavar="FILE", help="validation gold alignments")
    _add_stats_options(tr)
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    _add_model_options(tr)
    tr.add_argument("--c-pos", type=float, default=1.0, help="cost of a false positive c+")
    tr.add_argument("--c-neg", type=float, default=3.0, help="cost of a false negative c-")
    tr.add_argument("--possible-cost", type=float, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    tr.add_argument("--learner", default="dual-extragradient",
                    choices=LEARNERS,
                    help="optimiser: the memory-efficient dual extragradient or a reference learner")
    tr.add_argument("--iterations", type=int, default=200, help="iterations (perceptron: epochs)")
    tr.add_argument("--validate-every", type=int, default=10,
                    help="compute validation AER every so many iterations; the best is kept")
    tr.add_argument("--exclude-features", default="", metavar="NAMES",
                    help="comma-separated dense edge features to leave out (ablations), "
                         "e.g. nbr_diag,nbr_anti,nbr_vit_diag")
    tr.add_argument("--include-features", default="", metavar="NAMES",
                    help="comma-separated optional edge features to add: farther_src_occ, "
                         "farther_tgt_occ")
    tr.add_argument("--n-frequent", type=int, default=10, metavar="N",
                    help="identity features for the N most frequent words of each side and "
                         "their N*N pairs")
    tr.add_argument("--seed", type=int, default=0, help="random_state (example order, power iteration)")
    _add_quiet(tr)
    tr.set_defaults(handler=align_train)

    pr = asub.add_parser("predict", formatter_class=_Formatter, help="align sentence pairs with a trained model",
                         description="Writes Pharaoh 'i-j' links (0-based, source-target), "
                                     "one line per sentence pair.")
    pr.add_argument("-m", "--model", required=True, metavar="NPZ",
                    help="model written by structpred align train")
    _add_text_inputs(pr)
    pr.add_argument("-i", "--input", metavar="FILE",
                    help="fast_align-style 'src ||| tgt' file instead of --src/--tgt")
    pr.add_argument("-o", "--output", default="-", metavar="FILE", help="output file (- is stdout)")
    pr.add_argument("--show-weights", type=int, default=0, metavar="K",
                    help="print the K largest feature weights to stderr")
    pr.add_argument("--decoder", default=None, choices=["ortools", "pulp", "lp"],
                    help="+Q models: override the decoder stored in the model")
    pr.add_argument("--external", action="append", default=[], metavar="NAME=FILE",
                    help="models trained with --external: the same link sets for the input")
    _add_quiet(pr)
    pr.set_defaults(handler=align_predict)

    dm = asub.add_parser("demo", formatter_class=_Formatter, help="the Hansards protocol end to end: train, align, AER table",
                         description="Train on the first 100 and 200 Hansards test sentences, "
                                     "validate on the 37 trial sentences, test on the rest, and "
                                     "print precision, recall and AER.")
    dm.add_argument("--data-dir", default=None, help="folder with the Hansards files "
                    "(the bundled data/hansards when not given)")
    dm.add_argument("--bitext-pairs", type=int, default=None, metavar="N",
                    help="use only the first N bitext pairs for the Dice/IBM statistics "
                         "(default: all 231,648)")
    dm.add_argument("--possible-cost", type=float, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    dm.add_argument("--learners", default="all",
                    help="comma-separated learners, or 'all'")
    dm.add_argument("--models", default="M",
                    help="comma-separated models among M, M+F, M+Q, M+F+Q, or 'all'")
    dm.add_argument("--iterations", type=int, default=200)
    dm.add_argument("--c-pos", type=float, default=1.0)
    dm.add_argument("--c-neg", type=float, default=3.0)
    dm.add_argument("--cache-dir", default=".cache", help="where statistics are cached")
    dm.add_argument("--hmm", type=int, default=0, metavar="ITER",
                    help="add the HMM aligner's posteriors as edge features (HMM trained with "
                         "ITER EM iterations per direction on the bitext, cached; e.g. 5)")
    dm.add_argument("--hmm-agreement", action="store_true",
                    help="train the two HMM directions by agreement (Liang et al. 2006)")
    dm.add_argument("--hmm-lexicon", action="store_true",
                    help="with --hmm: use the HMM only through its translation tables (Model 2 "
                         "posteriors with the HMM's lexicon, no HMM posterior features)")
    dm.add_argument("--ibm-agreement", action="store_true",
                    help="train the two IBM Model 1/2 directions by agreement (cached apart)")
    dm.add_argument("--plot", metavar="PNG", help="save the validation-AER curves here")
    _add_quiet(dm)
    dm.set_defaults(handler=align_demo)
    return align


def add_aer_parser(subparsers, name):
    """Add ``structpred aer`` to ``subparsers``."""
    p = subparsers.add_parser(name, formatter_class=_Formatter, help="precision, recall and AER of alignments against gold",
                         description="Scores Pharaoh alignments against gold (NAACL or "
                                     "Pharaoh with i?j possible links), micro-averaged over "
                                     "the corpus, like score-alignments.")
    p.add_argument("--gold", required=True, metavar="FILE",
                     help="gold alignments: NAACL (*.naacl) or Pharaoh with i?j possible links")
    p.add_argument("--gold-format", choices=["naacl", "pharaoh"], default=None)
    p.add_argument("--test", required=True, metavar="FILE", help="predicted Pharaoh alignments")
    _add_text_inputs(p, what="sentences (needed for NAACL gold and for --plot)")
    p.add_argument("--errors", type=int, default=0, metavar="N",
                     help="also list the N word pairs with the most false and missed links "
                          "(needs --src and --tgt)")
    p.add_argument("--plot", metavar="PNG", help="draw alignment grids to this file")
    p.add_argument("--sentences", default="1", metavar="LIST",
                     help="1-based sentence numbers to draw, e.g. 1,5,9")
    p.set_defaults(handler=aer)
    return p


def _gold_format(path, fmt):
    """``fmt``, or guessed from the file name: ``*.naacl[.gz]`` is NAACL, anything else Pharaoh."""
    return fmt or ("naacl" if ".naacl" in Path(path).name else "pharaoh")


def _read_gold(path, fmt, pairs):
    from alignment.formats import read_naacl, read_pharaoh

    fmt = _gold_format(path, fmt)
    return read_naacl(path, pairs) if fmt == "naacl" else read_pharaoh(path, pairs)


def _statistics(args):
    from alignment.statistics import AlignmentStatistics

    if not (args.stats and Path(args.stats).exists()) and not (args.bitext_src and args.bitext_tgt):
        raise UserError("need --bitext-src and --bitext-tgt (or an existing --stats file)")
    stats = AlignmentStatistics.load_or_fit(args.stats, args.bitext_src, args.bitext_tgt,
                                            max_pairs=args.bitext_pairs, verbose=not args.quiet,
                                            agreement=getattr(args, "ibm_agreement", False))
    if getattr(args, "hmm", 0) and stats.hmm is None:
        from alignment.hmm import train_hmm_files

        if not (args.bitext_src and args.bitext_tgt):
            raise UserError("--hmm needs --bitext-src and --bitext-tgt (or a --stats file "
                            "that already holds the HMM)")
        stats.with_hmm(train_hmm_files(stats, args.bitext_src, args.bitext_tgt,
                                       max_pairs=args.bitext_pairs, n_iter=args.hmm,
                                       agreement=getattr(args, "hmm_agreement", False),
                                       verbose=not args.quiet))
        if args.stats:
            stats.save(args.stats)
    if getattr(args, "hmm_lexicon", False):
        if stats.hmm is None:
            raise UserError("--hmm-lexicon needs --hmm ITER (or a --stats file that holds the HMM)")
        stats = stats.with_lexicon(stats.hmm)
    return stats


def _feature_list(text, option, known):
    """Comma-separated feature names of ``option``; an unknown one is a UserError."""
    names = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UserError(f"{option}: unknown edge features {', '.join(unknown)} "
                        f"(known: {', '.join(known)})")
    return names


def _interaction_statistics(args, stats):
    from alignment.interactions import InteractionStatistics

    cache = args.interaction_stats
    if not (cache and Path(cache).exists()) and not (args.bitext_src and args.bitext_tgt):
        raise UserError("+F/+Q models need --bitext-src and --bitext-tgt "
                        "(or an existing --interaction-stats file)")
    try:
        return InteractionStatistics.load_or_fit(cache, stats, args.bitext_src, args.bitext_tgt,
                                                 max_pairs=args.bitext_pairs,
                                                 verbose=not args.quiet)
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def _external(specs, pairs, into=None):
    """``NAME=FILE`` options -> :class:`~alignment.external.ExternalAlignments` for ``pairs``."""
    from alignment.external import ExternalAlignments

    files = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UserError(f"--external expects NAME=FILE, got {spec!r}")
        if name in files:
            raise UserError(f"--external: {name} given twice")
        files[name] = path
    ext = ExternalAlignments.from_files([s for s, _ in pairs], [t for _, t in pairs], files)
    if into is None:
        return ext
    if ext.names != into.names:
        raise UserError(f"validation link sets {ext.names} differ from the training ones {into.names}")
    into._table.update(ext._table)
    return into


@_wrap_format_errors
def align_train(args):
    """``structpred align train``."""
    from alignment.formats import read_parallel
    from alignment.model import MatchingAligner

    pairs = read_parallel(args.src, args.tgt)
    all_pairs = pairs   # --external files are line-aligned with the whole --src/--tgt
    gold = _read_gold(args.gold, args.gold_format, pairs)
    if args.first is not None:
        pairs, gold = pairs[:args.first], gold[:args.first]
    valid_pairs = valid_gold = None
    if args.valid_gold:
        if not (args.valid_src and args.valid_tgt):
            raise UserError("--valid-gold needs --valid-src and --valid-tgt")
        valid_pairs = read_parallel(args.valid_src, args.valid_tgt)
        valid_gold = _read_gold(args.valid_gold, args.gold_format, valid_pairs)
    stats = _statistics(args)
    from alignment.features import DENSE_FEATURES, HMM_FEATURES, OPTIONAL_FEATURES
    from alignment.model import MODELS

    D, Q = MODELS[args.model]
    if args.max_fertility is not None:
        if D == 1:
            raise UserError(f"--max-fertility needs a +F model, not {args.model}")
        D = args.max_fertility
    inter = _interaction_statistics(args, stats) if (D > 1 or Q) else None
    external = None
    if args.external:
        external = _external(args.external, all_pairs)
        if valid_pairs is not None:
            if not args.valid_external:
                raise UserError("--external with validation sentences needs --valid-external")
            _external(args.valid_external, valid_pairs, into=external)
    model = MatchingAligner(max_fertility=D, interactions=Q, decoder=args.decoder,
                            use_external=bool(args.external),
                            cost_pos=args.c_pos, cost_neg=args.c_neg,
                            possible_cost=args.possible_cost, learner=args.learner,
                            n_iter=args.iterations, validate_every=args.validate_every,
                            exclude_features=_feature_list(
                                args.exclude_features, "--exclude-features",
                                DENSE_FEATURES + HMM_FEATURES),
                            include_features=_feature_list(
                                args.include_features, "--include-features", OPTIONAL_FEATURES),
                            n_frequent=args.n_frequent,
                            random_state=args.seed, verbose=not args.quiet)
    t0 = time.perf_counter()
    model.fit(pairs, gold, stats, valid_pairs, valid_gold, interaction_stats=inter,
              external=external)
    res = model.result_
    msg = f"trained on {len(pairs)} sentences in {time.perf_counter() - t0:.1f}s ({res.message})"
    if res.best_iter is not None:
        msg += f"; best validation AER {100 * res.best_score:.2f} at iteration {res.best_iter}"
    _log(args, msg)
    model.save(args.output)
    _log(args, f"model written to {args.output}")
    return 0


@_wrap_format_errors
def align_predict(args):
    """``structpred align predict``."""
    from alignment.formats import read_fast_align, read_parallel, write_pharaoh
    from alignment.model import MatchingAligner

    if args.input:
        pairs = read_fast_align(args.input)
    elif args.src and args.tgt:
        pairs = read_parallel(args.src, args.tgt)
    else:
        raise UserError("give --src and --tgt, or -i FILE in 'src ||| tgt' form")
    model = MatchingAligner.load(args.model)
    if args.decoder:
        model.decoder = args.decoder
    if model.use_external:
        if not args.external:
            raise UserError(f"{args.model} was trained with external alignments: give --external "
                            "NAME=FILE for the input")
        try:
            model.set_external(_external(args.external, pairs))
        except ValueError as exc:
            raise UserError(str(exc)) from exc
    if args.show_weights:
        for name, value in model.top_features(args.show_weights):
            print(f"{value:+.4f}  {name}", file=sys.stderr)
    from tqdm.auto import tqdm

    alignments = [model.predict([p])[0] for p in tqdm(pairs, disable=args.quiet, desc="aligning")]
    write_pharaoh(alignments, args.output)
    return 0


def align_demo(args):
    """``structpred align demo``: the ch. 3 protocol on the bundled Hansards."""
    from alignment.experiment import format_table, hansards_setup, load_hansards, run_protocol
    from alignment.model import LEARNERS

    from alignment.model import MODELS

    learners = LEARNERS if args.learners == "all" else tuple(args.learners.split(","))
    for learner in learners:
        if learner not in LEARNERS:
            raise UserError(f"unknown learner {learner!r}; choose from {', '.join(LEARNERS)}")
    models = tuple(MODELS) if args.models == "all" else tuple(args.models.split(","))
    for name in models:
        if name not in MODELS:
            raise UserError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    if args.hmm_lexicon and not args.hmm:
        raise UserError("--hmm-lexicon needs --hmm ITER")
    data = load_hansards(args.data_dir)
    t0 = time.perf_counter()
    stats, inter = hansards_setup(data, args.bitext_pairs, cache_dir=args.cache_dir,
                                  verbose=not args.quiet, ibm_agreement=args.ibm_agreement,
                                  hmm=args.hmm, hmm_agreement=args.hmm_agreement,
                                  hmm_features=not args.hmm_lexicon, hmm_lexicon=args.hmm_lexicon,
                                  interactions=any(MODELS[m] != (1, False) for m in models))
    _log(args, f"statistics ready ({time.perf_counter() - t0:.0f}s)")
    rows, fitted = run_protocol(data, stats, learners=learners, models=models,
                                interaction_stats=inter, n_iter=args.iterations,
                                cost_pos=args.c_pos, cost_neg=args.c_neg,
                                possible_cost=args.possible_cost, verbose=not args.quiet)
    print(f"Models {', '.join(models)} on the Hansards (statistics from {stats.n_pairs} bitext pairs; "
          f"c+={args.c_pos}, c-={args.c_neg}, possible-only links cost "
          f"{args.c_pos if args.possible_cost is None else args.possible_cost}; "
          f"validation on the 37 trial sentences)\n")
    print(format_table(rows))
    if args.plot:
        from structpred.io import plot_histories

        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        plot_histories({f"{name} {lr}, {n} sent.": m.result_.history
                        for (name, lr, n), m in fitted.items()},
                       args.plot, title="Validation AER on the Hansards")
        _log(args, f"validation curves written to {args.plot}")
    return 0


@_wrap_format_errors
def aer(args):
    """``structpred aer``."""
    from alignment.aer import format_scores, score_alignments
    from alignment.formats import read_parallel, read_pharaoh

    pairs = read_parallel(args.src, args.tgt) if (args.src and args.tgt) else None
    fmt = _gold_format(args.gold, args.gold_format)
    if fmt == "naacl" and pairs is None:
        raise UserError("NAACL gold needs --src and --tgt (to check positions)")
    gold = _read_gold(args.gold, fmt, pairs)
    test = read_pharaoh(args.test, pairs)
    if len(test) != len(gold):
        raise UserError(f"{args.test}: {len(test)} lines but the gold has {len(gold)} sentences")
    print(format_scores(score_alignments(test, gold)))
    if args.errors:
        if pairs is None:
            raise UserError("--errors needs --src and --tgt")
        from alignment.aer import error_breakdown, format_errors

        print(format_errors(error_breakdown(test, gold, pairs), top=args.errors))
    if args.plot:
        if pairs is None:
            raise UserError("--plot needs --src and --tgt")
        from alignment.plot import save_alignment_grids

        idx = [int(s) - 1 for s in args.sentences.split(",") if s.strip()]
        bad = [i + 1 for i in idx if not 0 <= i < len(pairs)]
        if bad:
            raise UserError(f"--sentences out of range: {bad} (there are {len(pairs)})")
        save_alignment_grids(pairs, gold, test, idx, args.plot)
    return 0
