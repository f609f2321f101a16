"""``structpred align train``: the discriminative aligner trained on gold (or automatically
labelled) sentences, with the choices made on validation (:mod:`alignment.selection`).

The pipeline is the library's :func:`alignment.train_aligner`; this command checks the
options and paths, reads the files, builds (or reads back) the cached statistics, calls it
and prints its report.

The parser is built by :func:`alignment.cli.add_align_parser`; the conventions (one-line
errors with exit status 2, outputs checked before anything is read, caches keyed by their
inputs) are those of :mod:`alignment.cli`, whose helpers (:mod:`alignment.cli.common`) this
module uses.
"""

from __future__ import annotations

import os
from pathlib import Path

from structpred.cli import UserError, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_held_out, check_output, check_stdin, options_given, refuse_options
from structpred.cli import open_cluster, with_cluster
from structpred.io import check_npz_kind, read_npz, reading_in_bulk, release_notes

from .common import (SEGMENTED_SAMPLE, _bitext, _check_cache_path, _check_direction,
                     _check_case, _check_inputs, _check_segmented, _check_sure_links, _external,
                     _external_specs, _feature_list, _inputs, _interaction_statistics, _is_file,
                     _option_name, _read_gold, _read_pairs, _statistics, _summary,
                     _within_length, check_bitext_memory)

__all__ = ["align_train"]


@_wrap_format_errors
@with_cluster
def align_train(args):
    """``structpred align train``."""
    from alignment.training import start_aligner_runs, train_aligner

    opts = _check_options(args)
    have_bitext = _check_paths(args, opts["sources"])
    with reading_in_bulk():    # the bitext's token lists: no collector passes over them
        pairs, gold, valid, external, bitext, lines = _read_data(args, have_bitext,
                                                                 "bayes" in opts["sources"])
    release_notes()   # the inputs are read and checked: the lines held so far come now
    executor = open_cluster(args)   # --workers/--scheduler: None without them
    started = {}
    if executor is None:    # the Bayesian aligner samples while the statistics are built
        started = start_aligner_runs(pairs, valid[0] if valid else None, bitext,
                                     aligners=opts["sources"], labels=args.labels,
                                     preset=args.preset, cache_dir=args.cache_dir,
                                     random_state=args.seed, jobs=args.jobs,
                                     verbose=not args.quiet)
    stats = _statistics(args, have_bitext, executor, lines)
    _check_direction(pairs, stats)
    _check_case(pairs, stats)
    if valid is not None:
        _check_case(valid[0], stats, "--valid-src", "--valid-tgt")
    try:
        model, report = train_aligner(
            pairs, gold, stats=stats, eval_set=valid, bitext=bitext,
            aligners=opts["sources"], labels=args.labels, model=args.model,
            max_fertility=args.max_fertility, c_neg=args.c_neg, preset=args.preset,
            interaction_stats=_interaction_loader(args, have_bitext, lines),
            external=external, cache_dir=args.cache_dir, max_len=args.max_length,
            n_iter=args.iterations, jobs=1 if executor is not None else args.jobs,
            executor=executor, random_state=args.seed, started=started,
            verbose=not args.quiet,
            decoder=args.decoder, pair_candidates=args.pair_candidates,
            patience=args.patience, cost_pos=args.c_pos,
            possible_cost=args.possible_cost, learner=args.learner,
            validate_every=args.validate_every, exclude_features=opts["exclude"],
            include_features=opts["include"], n_frequent=args.n_frequent)
    except ImportError as exc:
        raise UserError(f"--aligners: {exc}") from None
    for line in report.lines():
        _summary(line)
    model.save(args.output)
    _summary(f"model written to {args.output}")
    return 0


def _interaction_loader(args, have_bitext, lines=None):
    """The interaction statistics of ``--interaction-stats`` / the bitext, read or counted
    when a +F/+Q model is first fitted (``None`` when there are none to be had); ``lines``:
    the bitext's lines as already read."""
    if not (have_bitext or _is_file(args.interaction_stats)):
        return None

    def load(stats):
        inter = _interaction_statistics(args, stats, have_bitext, lines)
        inter.check_statistics(stats, args.interaction_stats or "--interaction-stats")
        return inter

    return load


def _check_options(args):
    """Everything that needs no file: options that do not go together.  Returns the
    feature lists and the other aligners (``sources``)."""
    from alignment.features.edges import DENSE_FEATURES, HMM_FEATURES, OPTIONAL_FEATURES
    from alignment.features.links import resolve_sources
    from alignment.model import MODELS

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
    thesis = args.preset == "thesis"
    if args.labels and thesis:
        raise UserError("--labels needs our HMM or eflomal: not with --preset thesis")
    for flag, name in ((args.hmm_lexicon, "--hmm-lexicon"), (args.hmm_agreement,
                                                             "--hmm-agreement")):
        if flag and not args.hmm:
            raise UserError(f"{name} needs --hmm ITER")
    valid = [args.valid_src, args.valid_tgt, args.valid_gold]
    if any(valid) and not all(valid):
        raise UserError("validation needs all of --valid-src, --valid-tgt and --valid-gold")
    if all(valid):
        check_held_out([(("--gold", args.gold), ("--valid-gold", args.valid_gold)),
                        (("--src", args.src), ("--valid-src", args.valid_src))],
                       hint="give other sentences, or no validation options")
    auto_model = args.model == "auto"
    D, Q = MODELS["M" if auto_model else args.model]
    if args.max_fertility is not None and D == 1:
        raise UserError(f"--max-fertility needs a +F model, not {args.model}")
    if not (Q or (auto_model and all(valid))):
        refuse_options(args, ("decoder", "pair_candidates"), "is for +Q models, not " + (
            "M (--model auto tries M+F+Q only with validation sentences)" if auto_model
            else args.model))
    _check_external_options(args, all(valid))
    if args.c_pos == 0 and args.c_neg != "auto" and 0 in args.c_neg:
        raise UserError("--c-pos 0 with --c-neg 0: the loss is zero and the model learns to "
                        "predict no link")
    if args.c_neg != "auto" and len(args.c_neg) > 1 and not all(valid):
        raise UserError("several --c-neg values need validation sentences to choose from "
                        "(--valid-src, --valid-tgt, --valid-gold)")
    if thesis and args.aligners.strip() not in ("default", "auto", "none"):
        raise UserError("--preset thesis uses no other aligners: leave out --aligners")
    try:
        sources = resolve_sources("none" if thesis else args.aligners, own_hmm=not thesis)
    except (ValueError, ImportError) as exc:
        raise UserError(f"--aligners: {exc}") from None
    if sources and not (args.bitext_src and args.bitext_tgt):
        if args.aligners.strip() not in ("default", "auto", "none"):
            raise UserError("--aligners needs the unlabeled bitext (--bitext-src and "
                            "--bitext-tgt) to run on")
        _log(args, "no --bitext-src/--bitext-tgt: no aligner features (our HMM and the "
                   "other aligners need the bitext)")
        sources = ()
    if args.interaction_stats and not (args.max_fertility or D > 1 or Q
                                       or (auto_model and all(valid))):
        raise UserError("--interaction-stats is for +F/+Q models, not "
                        + ("M (--model auto tries M+F+Q only with validation sentences)"
                           if auto_model else args.model))
    return {"sources": sources, "extended": D > 1 or Q,
            "exclude": _feature_list(args.exclude_features, "--exclude-features",
                                     DENSE_FEATURES + HMM_FEATURES),
            "include": _feature_list(args.include_features, "--include-features",
                                     OPTIONAL_FEATURES)}


def _check_external_options(args, have_valid):
    _external_specs(args.external)
    _external_specs(args.valid_external, "--valid-external")
    if args.external and have_valid and not args.valid_external:
        raise UserError("--external with validation sentences needs --valid-external")
    if args.valid_external and not args.external:
        raise UserError("--valid-external needs --external")
    if args.valid_external and not have_valid:
        raise UserError("--valid-external needs the validation sentences (--valid-src, "
                        "--valid-tgt, --valid-gold)")


def _check_paths(args, sources):
    """The outputs and caches, before any reading or computing.  Returns whether the
    bitext is given."""
    from alignment.model import MODELS

    inputs = _inputs(args, "src", "tgt", "gold", "valid_src", "valid_tgt", "valid_gold",
                     "bitext_src", "bitext_tgt", "external", "valid_external")
    _check_inputs(inputs)
    check_output(args.output, "-o", inputs + _inputs(args, "stats", "interaction_stats"),
                 outputs=[(_option_name(args.cache_dir, "--cache-dir"), args.cache_dir)]
                 if sources else (), kind="model")
    _check_cache_path(args.stats, "--stats", inputs + [("-o", args.output)])
    _check_cache_path(args.interaction_stats, "--interaction-stats",
                      inputs + [("-o", args.output), ("--stats", args.stats)])
    option = _option_name(args.cache_dir, "--cache-dir")
    if ((sources or options_given(args, "cache_dir")) and Path(args.cache_dir).exists()
            and not Path(args.cache_dir).is_dir()):
        # a file named as the cache: refused also where nothing is cached (a mistake either way)
        raise UserError(f"{args.cache_dir}: {option} is not a folder")
    if sources:
        _check_cache_path(str(args.cache_dir) + os.sep, option, [])
    have_bitext = _bitext(args)
    from alignment.stats import interactions, statistics
    for path, mod in ((args.stats, statistics), (args.interaction_stats, interactions)):
        if _is_file(path):   # a file of another kind: refused now, not after the work
            check_npz_kind(path, mod.FORMAT_NAME, mod._WHAT)
        elif path and os.path.exists(path) and not os.path.isdir(path):
            read_npz(path, mod._WHAT)   # a FIFO, a device: "need --bitext-src" named no cause
    if not have_bitext and not _is_file(args.stats):
        if args.stats and Path(args.stats).is_dir():
            raise UserError(f"--stats {args.stats} is a folder: the statistics are computed "
                            "there from --bitext-src and --bitext-tgt, which are missing")
        raise UserError("need --bitext-src and --bitext-tgt (or an existing --stats file)")
    D, Q = MODELS["M" if args.model == "auto" else args.model]
    if (D > 1 or Q) and not have_bitext and not _is_file(args.interaction_stats):
        raise UserError("+F/+Q models need --bitext-src and --bitext-tgt "
                        "(or an existing --interaction-stats file)")
    return have_bitext


def _read_data(args, have_bitext, bayes=False):
    """``(pairs, gold, eval_set, external, bitext, lines)`` from the files (gold ``None``
    with ``--labels``; ``eval_set`` and ``external`` ``None`` when not given; ``bitext`` the
    token lists the other aligners run on, or ``None``; ``lines`` the token lists of every
    line of the bitext read, for the statistics, or ``None``).  ``bayes``: our Bayesian aligner
    runs on the bitext (its memory is checked with the statistics')."""
    pairs = _read_pairs(args.src, args.tgt)
    all_pairs = pairs   # --external files are line-aligned with the whole --src/--tgt
    gold = None
    if args.gold:
        gold = _read_gold(args.gold, args.gold_format, pairs, cover=args.first,
                          allow_unaligned=args.allow_unaligned)
    if args.first is not None:
        if args.first > len(pairs):
            raise UserError(f"--first {args.first}: out of range, {args.src} has "
                            f"{len(pairs)} sentences")
        pairs = pairs[:args.first]
        gold = gold[:args.first] if gold is not None else None
    pairs = list(_within_length(pairs, args.src, args.tgt))
    if gold is not None:
        _check_sure_links(args.gold, gold, "the model would learn to predict no link")
    valid = None
    if args.valid_gold:
        valid_pairs = list(_within_length(_read_pairs(
            args.valid_src, args.valid_tgt, "--valid-src", "--valid-tgt"), args.valid_src,
            args.valid_tgt))
        valid = (valid_pairs, _read_gold(args.valid_gold, args.gold_format, valid_pairs,
                                         allow_unaligned=args.allow_unaligned,
                                         what="validation sentences"))
        _check_sure_links(args.valid_gold, valid[1], "validation AER is undefined")
    external = None
    if args.external:
        _check_external_is_not_gold(args.external, args.gold, "--external", "--gold")
        _check_external_is_not_gold(args.valid_external, args.valid_gold, "--valid-external",
                                    "--valid-gold")
        external = _external(args.external, all_pairs)
        if valid is not None:
            _external(args.valid_external, valid[0], into=external, option="--valid-external")
    bitext, lines = _read_bitext(args, bayes) if have_bitext else (None, None)
    return pairs, gold, valid, external, bitext, lines


def _check_external_is_not_gold(specs, gold, option, gold_option):
    """Refuse an ``--external`` (``--valid-external``) file that is the gold file of its
    sentences, or holds its lines: the model learnt to copy that feature (validation AER
    near 0), and new sentences have no gold to give it; it trained with exit status 0."""
    from structpred import read_lines
    from structpred.cli import same_file

    if not specs or not gold or str(gold) == "-":
        return
    gold_lines = None
    for name, path in _external_specs(specs, option).items():
        if same_file(path, gold):
            how = f"is the {gold_option} file"
        else:   # a FIFO or standard input is read once, by its reader
            if not (_is_file(path) and _is_file(gold)):
                continue
            if gold_lines is None:
                gold_lines = [t for _, t in read_lines(gold)]
            if [t for _, t in read_lines(path)] != gold_lines:
                continue
            how = f"holds the lines of the {gold_option} file {gold}"
        raise UserError(f"{path}: {option} {name}={path} {how}: a model trained on it learns "
                        "to copy the gold links, which new sentences do not have; give another "
                        "aligner's links")


def _read_bitext(args, bayes=False):
    """The unlabeled bitext's token lists (``--bitext-pairs`` of them), pairs with an empty
    side left out, as the statistics leave them out (an empty line, common in OPUS and
    Europarl files, was refused as "empty sentence" here while the docstring and the
    statistics left it out), and the token lists of every line read (with the empty ones),
    from which the statistics are counted without reading the files again."""
    from alignment.data.formats import read_parallel

    bt = read_parallel(args.bitext_src, args.bitext_tgt, allow_empty=True)
    if args.bitext_pairs is not None:
        bt = bt[:args.bitext_pairs]
    lines = [s for s, _ in bt], [t for _, t in bt]
    bt = [(s, t) for s, t in bt if s and t]
    _check_segmented(bt[:SEGMENTED_SAMPLE], args.bitext_src, args.bitext_tgt)
    if not (getattr(args, "workers", None) or getattr(args, "scheduler", None)):
        check_bitext_memory(bt, args.max_length, "--max-length", args.bitext_src, bayes)
    return ([s for s, _ in bt], [t for _, t in bt]), lines
