"""``structpred align train``: the discriminative aligner trained on gold (or automatically
labelled) sentences, with the choices made on validation (:mod:`alignment.selection`).

The parser is built by :func:`alignment.cli.add_align_parser`; the conventions (one-line
errors with exit status 2, outputs checked before anything is read, caches keyed by their
inputs) are those of :mod:`alignment.cli`, whose helpers (:mod:`alignment.cli.common`) this
module uses.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from structpred.cli import UserError, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_output, check_stdin
from structpred.cli import open_cluster, with_cluster

from .common import (C_NEG_GRID, _bitext, _check_cache_path, _check_inputs, _external,
                     _external_specs, _feature_list, _inputs, _interaction_statistics, _is_file,
                     _read_gold, _read_pairs, _statistics, _summary)

__all__ = ["align_train"]


@_wrap_format_errors
@with_cluster
def align_train(args):
    """``structpred align train``."""
    from alignment.features.edges import DENSE_FEATURES, HMM_FEATURES, OPTIONAL_FEATURES
    from alignment.model import MODELS, MatchingAligner

    # ---- everything that needs no file: options that do not go together
    check_stdin(**{"--src": args.src, "--tgt": args.tgt, "--gold": args.gold,
                   "--valid-src": args.valid_src, "--valid-tgt": args.valid_tgt,
                   "--valid-gold": args.valid_gold})
    if str(args.output) == "-":
        raise UserError("-o: a model cannot be written to standard output; give a file name")
    if bool(args.gold) == bool(args.labels):
        raise UserError("give --gold FILE (gold alignments) or --labels hmm|eflomal (train "
                        "without gold), one of them")
    if args.labels and not (args.bitext_src and args.bitext_tgt):
        raise UserError(f"--labels {args.labels} needs the bitext (--bitext-src and "
                        "--bitext-tgt) to run the labeller on")
    if args.labels and args.preset == "thesis":
        raise UserError("--labels needs our HMM or eflomal: not with --preset thesis")
    if args.hmm_lexicon and not args.hmm:
        raise UserError("--hmm-lexicon needs --hmm ITER")
    if args.hmm_agreement and not args.hmm:
        raise UserError("--hmm-agreement needs --hmm ITER")
    valid = [args.valid_src, args.valid_tgt, args.valid_gold]
    if any(valid) and not all(valid):
        raise UserError("validation needs all of --valid-src, --valid-tgt and --valid-gold")
    auto_model = args.model == "auto"
    D, Q = MODELS["M" if auto_model else args.model]
    if args.max_fertility is not None:
        if D == 1:
            raise UserError(f"--max-fertility needs a +F model, not {args.model}")
        D = args.max_fertility
    exclude = _feature_list(args.exclude_features, "--exclude-features",
                            DENSE_FEATURES + HMM_FEATURES)
    include = _feature_list(args.include_features, "--include-features", OPTIONAL_FEATURES)
    _external_specs(args.external)
    _external_specs(args.valid_external, "--valid-external")
    if args.external and all(valid) and not args.valid_external:
        raise UserError("--external with validation sentences needs --valid-external")
    if args.valid_external and not args.external:
        raise UserError("--valid-external needs --external")
    if args.valid_external and not all(valid):
        raise UserError("--valid-external needs the validation sentences (--valid-src, "
                        "--valid-tgt, --valid-gold)")
    from alignment.features.links import resolve_sources

    thesis = args.preset == "thesis"
    if args.c_neg != "auto" and len(args.c_neg) > 1 and not all(valid):
        raise UserError("several --c-neg values need validation sentences to choose from "
                        "(--valid-src, --valid-tgt, --valid-gold)")
    if thesis and args.aligners.strip() not in ("auto", "none"):
        raise UserError("--preset thesis uses no other aligners: leave out --aligners")
    try:
        sources = resolve_sources("none" if thesis else args.aligners, own_hmm=not thesis)
    except (ValueError, ImportError) as exc:
        raise UserError(f"--aligners: {exc}") from None
    if sources and not (args.bitext_src and args.bitext_tgt):
        if args.aligners.strip() not in ("auto", "none"):
            raise UserError("--aligners needs the unlabeled bitext (--bitext-src and "
                            "--bitext-tgt) to run on")
        _log(args, "no --bitext-src/--bitext-tgt: no aligner features (our HMM and the "
                   "other aligners need the bitext)")
        sources = ()
    if args.interaction_stats and not (D > 1 or Q or (auto_model and all(valid))):
        raise UserError("--interaction-stats is for +F/+Q models, not "
                        + ("M (--model auto tries M+F+Q only with validation sentences)"
                           if auto_model else args.model))
    # ---- the outputs, before any reading or computing
    inputs = _inputs(args, "src", "tgt", "gold", "valid_src", "valid_tgt", "valid_gold",
                     "bitext_src", "bitext_tgt", "external", "valid_external")
    _check_inputs(inputs)
    check_output(args.output, "-o", inputs + _inputs(args, "stats", "interaction_stats"))
    _check_cache_path(args.stats, "--stats", inputs + [("-o", args.output)])
    _check_cache_path(args.interaction_stats, "--interaction-stats",
                      inputs + [("-o", args.output), ("--stats", args.stats)])
    if sources:
        if Path(args.cache_dir).exists() and not Path(args.cache_dir).is_dir():
            raise UserError(f"{args.cache_dir}: --cache-dir is not a folder")
        _check_cache_path(str(args.cache_dir) + os.sep, "--cache-dir", [])
    have_bitext = _bitext(args)
    if not have_bitext and not _is_file(args.stats):
        if args.stats and Path(args.stats).is_dir():
            raise UserError(f"--stats {args.stats} is a folder: the statistics are computed "
                            "there from --bitext-src and --bitext-tgt, which are missing")
        raise UserError("need --bitext-src and --bitext-tgt (or an existing --stats file)")
    if (D > 1 or Q) and not have_bitext and not _is_file(args.interaction_stats):
        raise UserError("+F/+Q models need --bitext-src and --bitext-tgt "
                        "(or an existing --interaction-stats file)")
    # ---- the data
    pairs = _read_pairs(args.src, args.tgt)
    all_pairs = pairs   # --external files are line-aligned with the whole --src/--tgt
    gold = _read_gold(args.gold, args.gold_format, pairs) if args.gold else [None] * len(pairs)
    if args.first is not None:
        if args.first > len(pairs):
            raise UserError(f"--first {args.first}: out of range, {args.src} has "
                            f"{len(pairs)} sentences")
        pairs, gold = pairs[:args.first], gold[:args.first]
    valid_pairs = valid_gold = None
    if args.valid_gold:
        valid_pairs = _read_pairs(args.valid_src, args.valid_tgt, "--valid-src", "--valid-tgt")
        valid_gold = _read_gold(args.valid_gold, args.gold_format, valid_pairs)
    external = None
    if args.external:
        external = _external(args.external, all_pairs)
        if valid_pairs is not None:
            _external(args.valid_external, valid_pairs, into=external, option="--valid-external")
    # ---- statistics and the other aligners (cached) and training
    executor = open_cluster(args)   # --workers/--scheduler: None without them
    stats = _statistics(args, have_bitext, executor)
    links = None
    if args.labels:
        from alignment.features.links import SOURCES

        feature_sources = tuple(x for x in sources if x != args.labels)
        sources = tuple(x for x in SOURCES if x in set(sources) | {args.labels})
        links = _aligner_links(args, sources, pairs + (valid_pairs or []))
        gold = _auto_labels(links, args.labels, pairs)
        _log(args, f"labelled {len(pairs)} sentences with {args.labels} "
                   f"({sum(len(g.sure) for g in gold)} links); it is left out of the features")
        sources = feature_sources
        links = links.subset(sources) if sources else None
    elif sources:
        links = _aligner_links(args, sources, pairs + (valid_pairs or []))
    inter = None
    if D > 1 or Q:
        inter = _interaction_statistics(args, stats, have_bitext)
        inter.check_statistics(stats, args.interaction_stats or "--interaction-stats")
    n_iter = args.iterations or (1000 if valid_pairs is not None and not thesis else 200)
    choose = valid_pairs is not None and not thesis
    c_negs = args.c_neg
    if c_negs == "auto":
        c_negs = C_NEG_GRID if choose else (3.0,)
    extended = None
    if auto_model and choose:
        if have_bitext or _is_file(args.interaction_stats):
            extended = "M+F+Q"
        else:
            _log(args, "--model auto: M only (M+F+Q needs the bitext or --interaction-stats)")
    jobs = 1 if executor is not None else args.jobs
    quiet_fits = len(c_negs) > 1 and jobs > 1

    def make(c_neg, variant):
        d, q = (D, Q) if variant is None else MODELS[variant]
        # M+F+Q tried by --model auto: the pair candidates cheap cues propose (a 20x
        # smaller QP) unless --pair-candidates says otherwise
        pc = args.pair_candidates or ("likely" if variant is not None else "all")
        return MatchingAligner(max_fertility=d if variant is None else max(d, 2),
                               interactions=q, decoder=args.decoder,
                               use_external=bool(args.external), aligners=sources,
                               pair_candidates=pc,
                               patience=None if thesis else args.patience,
                               cost_pos=args.c_pos, cost_neg=c_neg,
                               possible_cost=args.possible_cost, learner=args.learner,
                               n_iter=n_iter, validate_every=args.validate_every,
                               exclude_features=exclude, include_features=include,
                               n_frequent=args.n_frequent, random_state=args.seed,
                               verbose=not args.quiet and not (quiet_fits and variant is None))

    def fit(model):
        nonlocal inter
        if (model.max_fertility > 1 or model.interactions) and inter is None:
            inter = _interaction_statistics(args, stats, have_bitext)
            inter.check_statistics(stats, args.interaction_stats or "--interaction-stats")
        model.fit(pairs, gold, stats, valid_pairs, valid_gold, interaction_stats=inter,
                  external=external, aligner_links=links, executor=executor)

    _log(args, f"training model {make(c_negs[0], None).model_name} with {args.learner} on "
               f"{len(pairs)} sentences (at most {n_iter} iterations"
               + (f"; c- in {', '.join(f'{c:g}' for c in c_negs)}, {min(jobs, len(c_negs))} "
                  "at once" if len(c_negs) > 1 else "")
               + (f"; then {extended} at the chosen c-" if extended else "") + ")")
    t0 = time.perf_counter()
    from alignment.selection import choose_aligner
    from alignment.evaluate.aer import sentence_counts

    model, choices = choose_aligner(
        make, fit, c_negs, lambda m: sentence_counts(m.predict(valid_pairs), valid_gold),
        jobs=jobs, extended=extended)
    res = model.result_
    if args.labels:
        _summary(f"labels: {args.labels} on the {len(pairs)} training sentences (no gold)")
    for line in choices:
        _summary(line)
    msg = (f"trained model {model.model_name} on {len(pairs)} sentences in "
           f"{time.perf_counter() - t0:.1f}s ({res.message})")
    if res.best_iter is not None and valid_pairs is not None:
        msg += f"; best validation AER {100 * res.best_score:.2f}% at iteration {res.best_iter}"
    _summary(msg)
    _summary(stats.summary())
    _summary("aligners as features: " + (_describe_sources(links) if links else "none"))
    model.save(args.output)
    _summary(f"model written to {args.output}")
    return 0


def _auto_labels(links, labeller, pairs):
    """Links of ``labeller`` for ``pairs``, as gold :class:`~alignment.data.formats.Alignment`."""
    import numpy as np

    from alignment.data.formats import Alignment

    out = []
    if labeller == "eflomal":
        links.prepare(pairs)
    for s, t in pairs:
        if labeller == "hmm":
            L = links.unsupervised.align_pair(s, t)[0]
        else:
            M = links.outputs(s, t)["eflomal:intersection"]
            L = {(int(j), int(k)) for j, k in np.argwhere(M > 0)}
        out.append(Alignment(frozenset(L), frozenset(L)))
    return out


def _describe_sources(links):
    parts = []
    for name in links.sources:
        if name == "hmm":
            parts.append("hmm (ours, trained by agreement)")
        else:
            run = links.runs[name]
            parts.append(f"{name} {run.version} ({'cached run' if run.from_cache else 'ran'}"
                         f" on {run.n_pairs} pairs)")
    return ", ".join(parts)


def _aligner_links(args, sources, pairs):
    """The other aligners' outputs on the bitext plus ``pairs`` (cached in --cache-dir)."""
    from alignment.data.formats import read_parallel
    from alignment.features.links import AlignerLinks

    bt = read_parallel(args.bitext_src, args.bitext_tgt)
    if args.bitext_pairs is not None:
        bt = bt[:args.bitext_pairs]
    bt = [(s, t) for s, t in bt if s and t]
    bsrc, btgt = [s for s, _ in bt], [t for _, t in bt]
    try:
        return AlignerLinks.fit(sources, pairs, bsrc, btgt, cache_dir=args.cache_dir,
                                max_len=args.max_length, verbose=not args.quiet)
    except ImportError as exc:
        raise UserError(f"--aligners: {exc}") from None

