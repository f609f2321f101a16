"""Implementations of the ``structpred`` subcommands (see :mod:`structpred.cli`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

__all__ = ["UserError", "align_train", "align_predict", "align_demo", "aer"]


class UserError(Exception):
    """An error caused by the user's input; printed without a traceback."""


def _log(args, msg):
    if not getattr(args, "quiet", False):
        print(msg, file=sys.stderr, flush=True)


def _gold_format(path, fmt):
    """``fmt``, or guessed from the file name: ``*.naacl[.gz]`` is NAACL, anything else Pharaoh."""
    return fmt or ("naacl" if ".naacl" in Path(path).name else "pharaoh")


def _read_gold(path, fmt, pairs):
    from alignment.formats import read_naacl, read_pharaoh

    fmt = _gold_format(path, fmt)
    return read_naacl(path, pairs) if fmt == "naacl" else read_pharaoh(path, pairs)


def _wrap_format_errors(func):
    def inner(args):
        from alignment.formats import FormatError

        try:
            return func(args)
        except (FormatError, FileNotFoundError) as exc:
            raise UserError(str(exc)) from exc
    inner.__doc__ = func.__doc__
    return inner


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
        from .plotting import plot_histories

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
