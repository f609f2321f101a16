"""``structpred align predict|demo`` and ``structpred aer``: word alignment (``align train``
is :mod:`alignment.cli_train`).

Registered in the ``structpred.commands`` entry-point group (pyproject.toml).
Conventions follow fast_align and eflomal: plain whitespace-tokenised text
in, Pharaoh ``i-j`` (0-based, source-target) out, one line per sentence.

Every user error is one line ``structpred: error: FILE[:LINE]: reason`` (or naming
the option) and exit status 2, found before any computing where possible: numbers
are checked when the options are parsed, outputs (their folder exists and is
writable, they are not one of the inputs) before anything is read.  Caches are
used only when made from the same inputs and options (:mod:`alignment._cache`).
The result summary (best validation AER, training time, files written) is printed
to stderr even with ``-q``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

from structpred import LEARNERS
from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import (check_output, check_stdin, int_list, nonneg_float, nonneg_int,
                            positive_int)
from structpred.cli import add_cluster_options, open_cluster, with_cluster

__all__ = ["add_align_parser", "add_aer_parser", "align_predict", "align_demo", "aer"]


#: the false-negative costs ``align train`` tries by default (the thesis's 3 first)
C_NEG_GRID = (3.0, 2.0, 5.0)


def _c_neg_values(text):
    """argparse ``type=`` of --c-neg: ``auto`` or comma-separated costs >= 0."""
    if str(text).strip() == "auto":
        return "auto"
    items = [t for t in str(text).split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"expected a cost, a comma-separated list or auto, "
                                         f"got {text!r}")
    return tuple(dict.fromkeys(nonneg_float(t.strip()) for t in items))


def _add_text_inputs(p, prefix="", required=False, what="sentences"):
    p.add_argument(f"--{prefix}src", required=required, metavar="FILE",
                   help=f"source-side {what}, one tokenised sentence per line (.gz ok; "
                        "- reads standard input)")
    p.add_argument(f"--{prefix}tgt", required=required, metavar="FILE",
                   help=f"target-side {what}, one tokenised sentence per line (.gz ok)")


def _add_stats_options(p):
    g = p.add_argument_group("unsupervised statistics (Dice, IBM Model 2 both ways)")
    g.add_argument("--bitext-src", metavar="FILE", help="unlabeled parallel text, source side")
    g.add_argument("--bitext-tgt", metavar="FILE", help="unlabeled parallel text, target side")
    g.add_argument("--bitext-pairs", type=positive_int, default=None, metavar="N",
                   help="use only the first N pairs of the bitext (default: all)")
    g.add_argument("--max-length", type=positive_int, default=80, metavar="N",
                   help="leave bitext pairs with more than N tokens on a side out of the "
                        "statistics (counted in the summary)")
    g.add_argument("--stats", metavar="NPZ|DIR",
                   help="statistics cache.  A file: used if it was made from the same bitext "
                        "and options (else refused, naming what differs; never rewritten), "
                        "computed and written if missing.  A folder (or a path ending in /): "
                        "one file per bitext and settings, named by their fingerprint")
    g.add_argument("--hmm", type=nonneg_int, default=0, metavar="ITER",
                   help="also train the HMM aligner (ITER EM iterations per direction, e.g. 5) "
                        "and add its posteriors as edge features; kept in the --stats cache "
                        "(a file made without --hmm ITER is refused, not extended)")
    g.add_argument("--hmm-agreement", action="store_true",
                   help="train the two HMM directions by agreement (Liang et al. 2006)")
    g.add_argument("--hmm-lexicon", action="store_true",
                   help="with --hmm: use the HMM only through its translation tables (Model 2 "
                        "posteriors with the HMM's lexicon; every feature stays zeroth-order, "
                        "no HMM posterior features)")
    g.add_argument("--ibm-agreement", action="store_true",
                   help="train the two IBM Model 1/2 directions by agreement (Liang et al. "
                        "2006) when the statistics are computed")


def _add_model_options(p, auto=False):
    g = p.add_argument_group("model (thesis ch. 3)")
    g.add_argument("--model", default="auto" if auto else "M",
                   choices=(["auto"] if auto else []) + ["M", "M+F", "M+Q", "M+F+Q"],
                   help="M: matching; +F: fertility up to 2 (eq. 3.2); +Q: pairs of adjacent "
                        "edges, a quadratic assignment decoded by integer programming (eq. 3.3)"
                        + ("; auto: M, and M+F+Q kept only if clearly better on the "
                           "validation sentences (M without them)" if auto else ""))
    g.add_argument("--max-fertility", type=positive_int, default=None, metavar="D",
                   help="fertility limit D of the +F models (default 2)")
    g.add_argument("--decoder", default="ortools", choices=["ortools", "pulp", "lp"],
                   help="+Q models: exact ILP through OR-Tools (SCIP) or PuLP (CBC), or the "
                        "LP relaxation rounded at 1/2")
    g.add_argument("--pair-candidates", choices=["all", "likely"], default=None,
                   help="+Q models: 'likely' keeps only the pairs of edges that a cheap cue "
                        "proposes (Dice first/second choice, an IBM/HMM link or posterior "
                        ">= 0.1, another aligner's link): a much smaller QP and ILP (default: "
                        "all for an explicit +Q model, likely for the one --model auto tries)")
    g.add_argument("--interaction-stats", metavar="NPZ|DIR",
                   help="+F/+Q models: cache of the IBM Model 2 fertility and pattern shares "
                        "(a file or a folder, as --stats)")
    g.add_argument("--aligners", default="auto", metavar="LIST",
                   help="other aligners whose links become features: eflomal, fast_align "
                        "(comma-separated), 'auto' (default: those installed) or 'none'.  "
                        "They run once on the bitext plus the training and validation "
                        "sentences, cached in --cache-dir.  Our own HMM trained by "
                        "agreement (as in 'align unsupervised') is always a feature, "
                        "except with --preset thesis")
    g.add_argument("--preset", choices=["default", "thesis"], default="default",
                   help="thesis: the feature set of thesis ch. 3 (Dice, IBM Model 2, ...: no "
                        "HMM, no other aligners), 200 iterations, no early stopping")
    g.add_argument("--cache-dir", default=os.environ.get("STRUCTPRED_CACHE", ".cache"),
                   metavar="DIR",
                   help="where the aligners' models and links are kept, keyed by a "
                        "fingerprint of their input text and options (default: "
                        "$STRUCTPRED_CACHE or .cache)")
    g.add_argument("--external", action="append", default=[], metavar="NAME=FILE",
                   help="any other aligner's Pharaoh links for the training sentences, "
                        "line by line with --src (repeat; use the same names at predict time)")
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
    tr.add_argument("--gold", metavar="FILE",
                    help="gold alignments (NAACL 'sent src tgt S|P', 1-based; or Pharaoh)")
    tr.add_argument("--labels", choices=["hmm", "eflomal"], default=None,
                    help="train without gold (thesis sec. 2.6.2): label the --src/--tgt "
                         "sentences with our unsupervised aligner (hmm: intersect at 0.4) or "
                         "eflomal's intersection, run on the bitext, and leave that aligner "
                         "out of the features")
    tr.add_argument("--gold-format", choices=["naacl", "pharaoh"], default=None,
                    help="default: guessed from the file name (*.naacl[.gz] is NAACL)")
    tr.add_argument("--first", type=positive_int, default=None, metavar="N",
                    help="train on the first N sentences only")
    _add_text_inputs(tr, prefix="valid-", what="validation sentences")
    tr.add_argument("--valid-gold", metavar="FILE", help="validation gold alignments")
    _add_stats_options(tr)
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    _add_model_options(tr, auto=True)
    tr.add_argument("--c-pos", type=nonneg_float, default=1.0, help="cost of a false positive c+")
    tr.add_argument("--c-neg", type=_c_neg_values, default="auto", metavar="C|C1,C2,..|auto",
                    help="cost of a false negative c-; several values (or auto = "
                         f"{','.join(f'{c:g}' for c in C_NEG_GRID)}) are each trained and the best on "
                         "the validation sentences kept (without them, or with --preset "
                         "thesis: 3)")
    tr.add_argument("--jobs", type=positive_int, default=2, metavar="N",
                    help="train this many c- candidates at once (processes)")
    tr.add_argument("--possible-cost", type=nonneg_float, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    tr.add_argument("--learner", default="dual-extragradient",
                    choices=LEARNERS,
                    help="optimiser: the memory-efficient dual extragradient or a reference learner")
    tr.add_argument("--iterations", type=positive_int, default=None,
                    help="at most this many iterations (perceptron: epochs); default 1000 "
                         "with a validation set (stopped early, see --patience), else 200")
    tr.add_argument("--validate-every", type=positive_int, default=10,
                    help="compute validation AER every so many iterations; the best is kept")
    tr.add_argument("--patience", type=positive_int, default=10, metavar="N",
                    help="stop when validation AER has not improved for N validations")
    tr.add_argument("--exclude-features", default="", metavar="NAMES",
                    help="comma-separated dense edge features to leave out (ablations), "
                         "e.g. nbr_diag,nbr_anti,nbr_vit_diag")
    tr.add_argument("--include-features", default="", metavar="NAMES",
                    help="comma-separated optional edge features to add: farther_src_occ, "
                         "farther_tgt_occ")
    tr.add_argument("--n-frequent", type=nonneg_int, default=10, metavar="N",
                    help="identity features for the N most frequent words of each side and "
                         "their N*N pairs")
    tr.add_argument("--seed", type=nonneg_int, default=0,
                    help="random_state (example order, power iteration)")
    add_cluster_options(tr, "the IBM/HMM statistics and the learner's passes over the examples")
    _add_quiet(tr)
    from alignment.cli_train import align_train

    tr.set_defaults(handler=align_train)

    pr = asub.add_parser("predict", formatter_class=_Formatter, help="align sentence pairs with a trained model",
                         description="Writes Pharaoh 'i-j' links (0-based, source-target), "
                                     "one line per sentence pair.")
    pr.add_argument("-m", "--model", required=True, metavar="NPZ",
                    help="model written by structpred align train")
    _add_text_inputs(pr)
    pr.add_argument("-i", "--input", metavar="FILE",
                    help="fast_align-style 'src ||| tgt' file instead of --src/--tgt "
                         "(- reads standard input, aligned line by line as it arrives)")
    pr.add_argument("-o", "--output", default="-", metavar="FILE",
                    help="output file, written atomically at the end (- is stdout, written "
                         "and flushed one sentence at a time)")
    pr.add_argument("--show-weights", type=nonneg_int, default=0, metavar="K",
                    help="print the K largest feature weights to stderr")
    pr.add_argument("--decoder", default=None, choices=["ortools", "pulp", "lp"],
                    help="+Q models: override the decoder stored in the model")
    pr.add_argument("--external", action="append", default=[], metavar="NAME=FILE",
                    help="models trained with --external: the same link sets for the input")
    pr.add_argument("-j", "--jobs", type=positive_int, default=None, metavar="N",
                    help="align chunks of sentence pairs in N processes on this machine, "
                         "written in input order as they are done (default: every CPU this "
                         "process may use, once the input has more than one chunk; 1 for "
                         "standard input)")
    add_cluster_options(pr, "the alignment of chunks of sentence pairs")
    _add_quiet(pr)
    pr.set_defaults(handler=align_predict)

    dm = asub.add_parser("demo", formatter_class=_Formatter, help="the Hansards protocol end to end: train, align, AER table",
                         description="Train on the first 100 and 200 Hansards test sentences, "
                                     "validate on the trial sentences, test on the rest, and "
                                     "print precision, recall and AER.")
    dm.add_argument("--data-dir", default=None, help="folder with the Hansards files "
                    "(the bundled data/hansards when not given)")
    dm.add_argument("--bitext-pairs", type=positive_int, default=None, metavar="N",
                    help="use only the first N bitext pairs for the Dice/IBM statistics "
                         "(default: all of them)")
    dm.add_argument("--possible-cost", type=nonneg_float, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    dm.add_argument("--learners", default="all",
                    help="comma-separated learners, or 'all'")
    dm.add_argument("--models", default="M",
                    help="comma-separated models among M, M+F, M+Q, M+F+Q, or 'all'")
    dm.add_argument("--iterations", type=positive_int, default=200)
    dm.add_argument("--c-pos", type=nonneg_float, default=1.0)
    dm.add_argument("--c-neg", type=nonneg_float, default=3.0)
    dm.add_argument("--cache-dir", default=".cache",
                    help="where statistics are cached (one file per bitext and settings, named "
                         "by their fingerprint)")
    dm.add_argument("--hmm", type=nonneg_int, default=0, metavar="ITER",
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
    from alignment.cli_compare import add_compare_parser
    from alignment.cli_unsupervised import add_unsupervised_parser

    add_unsupervised_parser(asub)
    add_compare_parser(asub)
    return align


def add_aer_parser(subparsers, name):
    """Add ``structpred aer`` to ``subparsers``."""
    p = subparsers.add_parser(name, formatter_class=_Formatter, help="precision, recall and AER of alignments against gold",
                         description="Scores Pharaoh alignments against gold (NAACL or "
                                     "Pharaoh with i?j possible links), micro-averaged over "
                                     "the corpus, like score-alignments; prints precision, "
                                     "recall and AER in percent on one line.")
    p.add_argument("--gold", required=True, metavar="FILE",
                     help="gold alignments: NAACL (*.naacl) or Pharaoh with i?j possible links")
    p.add_argument("--gold-format", choices=["naacl", "pharaoh"], default=None)
    p.add_argument("--test", required=True, metavar="FILE", help="predicted Pharaoh alignments")
    _add_text_inputs(p, what="sentences (optional: with them, link positions are checked "
                                "and --errors and --plot are possible)")
    p.add_argument("--errors", type=nonneg_int, default=0, metavar="N",
                     help="also list the N word pairs with the most false and missed links "
                          "(needs --src and --tgt)")
    p.add_argument("--plot", metavar="PNG", help="draw alignment grids to this file "
                                                 "(needs --src and --tgt)")
    p.add_argument("--sentences", type=int_list, default=[1], metavar="LIST",
                     help="1-based sentence numbers to draw, e.g. 1,5,9")
    p.set_defaults(handler=aer)
    return p


# ------------------------------------------------------------------------------ helpers
def _summary(msg):
    """A line of the result summary: on stderr, even with ``-q``."""
    print(msg, file=sys.stderr, flush=True)


def _gold_format(path, fmt):
    """``fmt``, or guessed from the file name: ``*.naacl[.gz]`` is NAACL, anything else Pharaoh."""
    return fmt or ("naacl" if ".naacl" in Path(str(path)).name else "pharaoh")


def _read_gold(path, fmt, pairs, n_sentences=None):
    from alignment.formats import read_naacl, read_pharaoh

    fmt = _gold_format(path, fmt)
    if fmt == "naacl":
        return read_naacl(path, pairs, n_sentences=n_sentences if pairs is None else None)
    return read_pharaoh(path, pairs)


def _read_pairs(src, tgt, src_opt="--src", tgt_opt="--tgt"):
    """Sentence pairs of two files; none at all is an error."""
    from alignment.formats import read_parallel

    if bool(src) != bool(tgt):
        raise UserError(f"{src_opt} and {tgt_opt} go together: give both")
    pairs = read_parallel(src, tgt)
    if not pairs:
        raise UserError(f"{src}: no sentences (the file is empty)")
    return pairs


def _is_file(path):
    return path is not None and str(path) != "-" and Path(path).is_file()


def _inputs(args, *names):
    """``(option, path)`` of the given argparse attributes (for :func:`check_output`)."""
    out = []
    for name in names:
        value = getattr(args, name, None)
        if value is None:
            continue
        for v in (value if isinstance(value, list) else [value]):
            if isinstance(v, str) and "=" in v and name.endswith("external"):
                v = v.partition("=")[2]
            out.append(("--" + name.replace("_", "-"), v))
    return out


def _check_inputs(inputs):
    """Every input file exists and is a file, before anything is read or computed."""
    for option, path in inputs:
        if path is None or str(path) == "-":
            continue
        if Path(path).is_dir():
            raise UserError(f"{path}: is a folder, not a file ({option})")
        if not Path(path).exists():
            raise UserError(f"{path}: no such file ({option})")


def _check_cache_path(path, option, inputs):
    """A cache given as a file that does not exist yet will be written: check it now."""
    if path is None:
        return
    from alignment._cache import is_cache_folder

    if str(path) == "-":
        raise UserError(f"{option}: a cache cannot be standard input or output")
    if is_cache_folder(path):
        folder = Path(path)
        if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
            raise UserError(f"{path}: cannot write {option}: folder is not writable")
        if not folder.exists():
            probe = folder.resolve()
            while not probe.exists():
                probe = probe.parent
            if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
                raise UserError(f"{path}: cannot create the {option} folder ({probe} is not "
                                "a writable folder)")
        return
    if Path(path).exists():
        for name, other in inputs:
            if other is not None and _same(path, other):
                raise UserError(f"{path}: {option} is also given as {name}")
        return
    check_output(path, option, inputs)


def _same(a, b):
    from structpred.cli import same_file

    return same_file(a, b)


def _bitext(args):
    """Check the bitext options (both or neither; files, not stdin; --bitext-pairs in range)."""
    src, tgt = args.bitext_src, args.bitext_tgt
    if bool(src) != bool(tgt):
        raise UserError("--bitext-src and --bitext-tgt go together: give both")
    if not src:
        if args.bitext_pairs is not None:
            raise UserError("--bitext-pairs needs --bitext-src and --bitext-tgt")
        return False
    for opt, path in (("--bitext-src", src), ("--bitext-tgt", tgt)):
        if str(path) == "-":
            raise UserError(f"{opt}: the bitext cannot be read from standard input "
                            "(it is read more than once)")
    if args.bitext_pairs is not None:
        from structpred.io._files import file_fingerprint

        n = min(file_fingerprint(src)["lines"], file_fingerprint(tgt)["lines"])
        if args.bitext_pairs > n:
            raise UserError(f"--bitext-pairs {args.bitext_pairs}: out of range, the bitext "
                            f"{src} has {n} pairs")
    return True


def _statistics(args, have_bitext, executor=None):
    from alignment.statistics import AlignmentStatistics

    stats = AlignmentStatistics.load_or_fit(
        args.stats, args.bitext_src if have_bitext else None,
        args.bitext_tgt if have_bitext else None, max_pairs=args.bitext_pairs,
        verbose=not args.quiet, max_len=args.max_length, agreement=args.ibm_agreement,
        hmm=args.hmm, hmm_agreement=args.hmm_agreement, executor=executor)
    if args.hmm_lexicon:
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


def _interaction_statistics(args, stats, have_bitext):
    from alignment.interactions import InteractionStatistics

    cache = args.interaction_stats
    return InteractionStatistics.load_or_fit(cache, stats, args.bitext_src if have_bitext else None,
                                             args.bitext_tgt if have_bitext else None,
                                             max_pairs=args.bitext_pairs, verbose=not args.quiet,
                                             max_len=args.max_length)


def _external_specs(specs, option="--external"):
    """``NAME=FILE`` options -> ``{name: file}``."""
    files = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UserError(f"{option} expects NAME=FILE, got {spec!r}")
        if name in files:
            raise UserError(f"{option}: {name} given twice")
        files[name] = path
    return files


def _external(specs, pairs, into=None, option="--external"):
    """``NAME=FILE`` options -> :class:`~alignment.external.ExternalAlignments` for ``pairs``."""
    from alignment.external import ExternalAlignments

    files = _external_specs(specs, option)
    ext = ExternalAlignments.from_files([s for s, _ in pairs], [t for _, t in pairs], files)
    if into is None:
        return ext
    if ext.names != into.names:
        raise UserError(f"{option}: link sets {', '.join(ext.names)} differ from the training "
                        f"ones ({', '.join(into.names)})")
    into._table.update(ext._table)
    return into


# ----------------------------------------------------------------------------- commands

def _input_pairs(args):
    """The sentence pairs to align, one at a time (read as they are needed)."""
    from alignment.formats import iter_fast_align, iter_parallel

    if args.input:
        return args.input, iter_fast_align(args.input)
    return args.src, iter_parallel(args.src, args.tgt)


@_wrap_format_errors
@with_cluster
def align_predict(args):
    """``structpred align predict``: streams, one Pharaoh line per sentence pair."""
    from alignment._parallel_predict import (CLUSTER_CHUNK, LOCAL_CHUNK, default_jobs,
                                             predict_stream, stdin_waiting)
    from alignment.formats import format_pharaoh
    from alignment.model import MatchingAligner
    from structpred import open_output

    check_stdin(**{"-i": args.input, "--src": args.src, "--tgt": args.tgt, "-m": args.model})
    if args.input and (args.src or args.tgt):
        raise UserError("give -i FILE or --src and --tgt, not both")
    if not args.input and not (args.src and args.tgt):
        raise UserError("give --src and --tgt, or -i FILE in 'src ||| tgt' form")
    specs = _external_specs(args.external)
    inputs = _inputs(args, "model", "input", "src", "tgt", "external")
    _check_inputs(inputs)
    check_output(args.output, "-o", inputs)
    model = MatchingAligner.load(args.model)
    if args.decoder:
        model.decoder = args.decoder
    name, pairs = _input_pairs(args)
    if model.use_external:
        if not specs:
            raise UserError(f"{args.model} was trained with external alignments: give --external "
                            "NAME=FILE for the input")
        pairs = list(pairs)
        ext = _external(args.external, pairs)
        if list(ext.names) != model.external_featurizer_.names:
            raise UserError(f"--external: link sets {', '.join(ext.names)} differ from those "
                            f"the model was trained with "
                            f"({', '.join(model.external_featurizer_.names)})")
        model.set_external(ext)
    elif specs:
        raise UserError(f"--external: {args.model} was trained without external alignments")
    if model.aligners:
        try:
            model.aligner_links_.check()
        except RuntimeError as exc:
            raise UserError(f"{args.model}: {exc}") from None
    if args.show_weights:
        for fname, value in model.top_features(args.show_weights):
            print(f"{value:+.4f}  {fname}", file=sys.stderr)
    from tqdm.auto import tqdm

    from alignment._runtime import progress_enabled

    to_stdout = str(args.output) == "-"
    interactive = args.input == "-" or "-" in (args.src, args.tgt)
    jobs = args.jobs or (1 if interactive else default_jobs())
    # eflomal/fast_align align new pairs in batches: read that many pairs at a time; the
    # others a batch of the fast path at a time; from standard input, the lines waiting
    # (each line as it arrives when they come one by one)
    batch = 2000 if model.aligner_links_ is not None and model.aligner_links_.runs else LOCAL_CHUNK
    waiting = stdin_waiting if interactive else None
    n = 0
    with open_output(args.output) as fh:
        bar = tqdm(disable=not progress_enabled(not args.quiet), desc="aligning", unit="pair")
        executor = open_cluster(args)   # --workers/--scheduler: None without them
        if executor is not None:
            batch = max(batch, CLUSTER_CHUNK)
        stream = predict_stream(model, pairs, batch, jobs, executor, waiting)
        with contextlib.closing(stream):
            for predicted in stream:
                fh.write("".join(format_pharaoh(links) + "\n" for links in predicted))
                if to_stdout:
                    fh.flush()
                n += len(predicted)
                bar.update(len(predicted))
        bar.close()
        if n == 0:
            raise UserError(f"{name}: no sentences to align (the input is empty)")
    if to_stdout:
        _log(args, f"aligned {n} sentence pairs")
    else:
        _summary(f"aligned {n} sentence pairs; links written to {args.output}")
    return 0


@_wrap_format_errors
def align_demo(args):
    """``structpred align demo``: the ch. 3 protocol on the bundled Hansards."""
    from alignment.experiment import format_table, hansards_setup, load_hansards, run_protocol
    from alignment.model import LEARNERS, MODELS

    learners = LEARNERS if args.learners == "all" else tuple(
        x.strip() for x in args.learners.split(",") if x.strip())
    for learner in learners:
        if learner not in LEARNERS:
            raise UserError(f"--learners: unknown learner {learner!r}; choose from "
                            f"{', '.join(LEARNERS)}")
    models = tuple(MODELS) if args.models == "all" else tuple(
        x.strip() for x in args.models.split(",") if x.strip())
    for name in models:
        if name not in MODELS:
            raise UserError(f"--models: unknown model {name!r}; choose from {', '.join(MODELS)}")
    if not learners or not models:
        raise UserError("--learners and --models need at least one name each")
    if args.hmm_lexicon and not args.hmm:
        raise UserError("--hmm-lexicon needs --hmm ITER")
    if args.hmm_agreement and not args.hmm:
        raise UserError("--hmm-agreement needs --hmm ITER")
    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        raise UserError(f"{args.data_dir}: --data-dir is not a folder")
    if args.plot:
        check_output(args.plot, "--plot", create_parent=True)
    if args.cache_dir:
        if Path(args.cache_dir).exists() and not Path(args.cache_dir).is_dir():
            raise UserError(f"{args.cache_dir}: --cache-dir is not a folder")
        _check_cache_path(str(args.cache_dir) + os.sep, "--cache-dir", [])
    data = load_hansards(args.data_dir)
    if args.bitext_pairs is not None:
        from structpred.io._files import file_fingerprint

        n = file_fingerprint(data.bitext_src)["lines"]
        if args.bitext_pairs > n:
            raise UserError(f"--bitext-pairs {args.bitext_pairs}: out of range, the bitext "
                            f"{data.bitext_src} has {n} pairs")
    if len(data.test_pairs) <= 200 or not data.trial_pairs:
        raise UserError(f"{args.data_dir or 'data/hansards'}: the protocol needs trial "
                        f"sentences and more than 200 test sentences "
                        f"(found {len(data.trial_pairs)} and {len(data.test_pairs)})")
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
    print(f"Models {', '.join(models)} on the Hansards (statistics from {stats.n_pairs} bitext "
          f"pairs; c+={args.c_pos}, c-={args.c_neg}, possible-only links cost "
          f"{args.c_pos if args.possible_cost is None else args.possible_cost}; "
          f"validation on the {len(data.trial_pairs)} trial sentences; scores in %)\n")
    print(format_table(rows), flush=True)
    _summary(stats.summary())
    if args.plot:
        from structpred.io import plot_histories

        plot_histories({f"{name} {lr}, {n} sent.": m.result_.history
                        for (name, lr, n), m in fitted.items()},
                       args.plot, title="Validation AER on the Hansards")
        _summary(f"validation curves written to {args.plot}")
    return 0


@_wrap_format_errors
def aer(args):
    """``structpred aer``."""
    from alignment.aer import format_scores, score_alignments
    from alignment.formats import read_pharaoh
    from structpred import FormatError

    check_stdin(**{"--gold": args.gold, "--test": args.test, "--src": args.src,
                   "--tgt": args.tgt})
    if bool(args.src) != bool(args.tgt):
        raise UserError("--src and --tgt go together: give both")
    have_text = bool(args.src)
    _check_inputs(_inputs(args, "gold", "test", "src", "tgt"))
    if args.errors and not have_text:
        raise UserError("--errors needs --src and --tgt")
    if args.plot:
        if not have_text:
            raise UserError("--plot needs --src and --tgt")
        check_output(args.plot, "--plot", _inputs(args, "gold", "test", "src", "tgt"))
    pairs = _read_pairs(args.src, args.tgt) if have_text else None
    test = read_pharaoh(args.test, pairs)
    if not test:
        raise UserError(f"{args.test}: no alignment lines (the file is empty)")
    try:
        gold = _read_gold(args.gold, args.gold_format, pairs, n_sentences=len(test))
    except FormatError as exc:
        if pairs is None and "sentence number" in exc.reason:
            raise FormatError(exc.path, exc.line, f"{exc.reason} ({args.test} has "
                              f"{len(test)} lines)") from None
        raise
    if not gold:
        raise UserError(f"{args.gold}: no gold alignments (the file is empty)")
    if len(test) != len(gold):
        raise UserError(f"{args.test}: {len(test)} lines but the gold {args.gold} has "
                        f"{len(gold)} sentences")
    if not any(g.possible for g in gold):
        raise UserError(f"{args.gold}: no gold links at all: AER is undefined")
    if args.plot:
        bad = [i for i in args.sentences if i > len(pairs)]
        if bad:
            raise UserError(f"--sentences: {', '.join(map(str, bad))} out of range "
                            f"(there are {len(pairs)} sentences)")
    score = score_alignments(test, gold)
    print(f"{format_scores(score)}  ({len(gold)} sentences)", flush=True)
    if args.errors:
        from alignment.aer import error_breakdown, format_errors

        print(format_errors(error_breakdown(test, gold, pairs), top=args.errors))
    if args.plot:
        from alignment.plot import save_alignment_grids

        save_alignment_grids(pairs, gold, test, [i - 1 for i in args.sentences], args.plot)
        _summary(f"alignment grids written to {args.plot}")
    return 0
