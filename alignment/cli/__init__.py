"""``structpred align predict|demo`` and ``structpred aer``: word alignment (``align train``
is :mod:`alignment.cli.train`).

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

from structpred import LEARNERS
from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import add_quiet as _add_quiet
from structpred.cli import (at_most, comma_items, int_list, jobs_count, nonneg_float, nonneg_int,
                            positive_int)
from structpred.cli import add_cluster_options
from structpred.cli import iteration_count, seed_value

from .evaluate import aer
from .common import C_NEG_GRID, _cache_default, max_length
from .._runtime import MAX_COST, MAX_FREQUENT
from structpred.io import MAX_WORDS
from .demo import align_demo
from .predict import align_predict

__all__ = ["add_align_parser", "add_aer_parser", "align_predict", "align_demo", "aer"]


#: --c-pos, --possible-cost and each --c-neg value: 1e30 was a ``ZeroDivisionError``
#: traceback of the learner's projection, 1e300 for c- a model of 59 % AER without a word
_cost = at_most(nonneg_float, MAX_COST, "larger costs overflow the learner")
#: --n-frequent: it adds N*N pair features (5,000 took 17 GB and minutes before the first
#: iteration)
_n_frequent = at_most(nonneg_int, MAX_FREQUENT, "it adds N*N word-pair features")


def _c_neg_values(text):
    """argparse ``type=`` of --c-neg: ``auto`` or comma-separated costs >= 0."""
    if str(text).strip() == "auto":
        return "auto"
    items = comma_items(text)
    if not items:
        raise argparse.ArgumentTypeError(f"expected a cost, a comma-separated list or auto, "
                                         f"got {text!r}")
    return tuple(dict.fromkeys(_cost(t.strip()) for t in items))


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
    g.add_argument("--max-length", type=max_length, default=80, metavar="N",
                   help="leave bitext pairs with more than N tokens on a side out of the "
                        "statistics (counted in the summary); at most "
                        f"{MAX_WORDS:,}")
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
    g.add_argument("--aligners", default="default", metavar="LIST",
                   help="aligners whose links become features besides our own HMM trained "
                        "by agreement (always a feature, except with --preset thesis): "
                        "'default' = bayes, our seeded Bayesian aligner (built in: the "
                        "same command gives the same model); 'auto' = bayes and every "
                        "installed external aligner (eflomal, fast_align: pip install "
                        "'structpred[aligners]'); 'none' = our HMM only; or a "
                        "comma-separated list of bayes, eflomal, fast_align.  They run "
                        "once on the bitext plus the training and validation sentences "
                        "(bayes with --seed), cached in --cache-dir")
    g.add_argument("--preset", choices=["default", "thesis"], default="default",
                   help="thesis: the feature set of thesis ch. 3 (Dice, IBM Model 2, ...: no "
                        "HMM, no other aligners), 200 iterations, no early stopping")
    g.add_argument("--cache-dir", default=_cache_default(), metavar="DIR",
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

    _add_train_parser(asub)
    _add_predict_parser(asub)
    _add_demo_parser(asub)
    from alignment.cli.compare import add_compare_parser
    from alignment.cli.unsupervised import add_unsupervised_parser

    add_unsupervised_parser(asub)
    add_compare_parser(asub)
    return align


def _add_train_parser(asub):
    """``structpred align train``: the options of :func:`alignment.train_aligner`."""
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
    tr.add_argument("--allow-unaligned", action="store_true",
                    help="accept gold that leaves sentences out (or Pharaoh gold with empty "
                         "lines): they are trained as sentences without links")
    tr.add_argument("--first", type=positive_int, default=None, metavar="N",
                    help="train on the first N sentences only")
    _add_text_inputs(tr, prefix="valid-", what="validation sentences")
    tr.add_argument("--valid-gold", metavar="FILE", help="validation gold alignments")
    _add_stats_options(tr)
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    _add_model_options(tr, auto=True)
    tr.add_argument("--c-pos", type=_cost, default=1.0, help="cost of a false positive c+")
    tr.add_argument("--c-neg", type=_c_neg_values, default="auto", metavar="C|C1,C2,..|auto",
                    help="cost of a false negative c-; several values (or auto = "
                         f"{','.join(f'{c:g}' for c in C_NEG_GRID)}) are each trained and the best on "
                         "the validation sentences kept (without them, or with --preset "
                         "thesis: 3)")
    tr.add_argument("--jobs", type=jobs_count, default=2, metavar="N",
                    help="train this many c- candidates at once (processes; -1: every CPU, -2: all "
                         "but one)")
    tr.add_argument("--possible-cost", type=_cost, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    tr.add_argument("--learner", default="dual-extragradient",
                    choices=LEARNERS,
                    help="optimiser: the memory-efficient dual extragradient or a reference learner")
    tr.add_argument("--iterations", type=iteration_count, default=None,
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
    tr.add_argument("--n-frequent", type=_n_frequent, default=10, metavar="N",
                    help="identity features for the N most frequent words of each side and "
                         "their N*N pairs")
    tr.add_argument("--seed", type=seed_value, default=0,
                    help="random_state (example order, power iteration)")
    add_cluster_options(tr, "the IBM/HMM statistics and the learner's passes over the examples")
    _add_quiet(tr)
    from alignment.cli.train import align_train

    tr.set_defaults(handler=align_train)


def _add_predict_parser(asub):
    """``structpred align predict``."""
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
    pr.add_argument("-j", "--jobs", type=jobs_count, default=None, metavar="N",
                    help="align chunks of sentence pairs in N processes on this machine, "
                         "written in input order as they are done (default: every CPU this "
                         "process may use, once the input has more than one chunk; 1 for "
                         "standard input; -1: every CPU, -2: all but one)")
    add_cluster_options(pr, "the alignment of chunks of sentence pairs")
    _add_quiet(pr)
    pr.set_defaults(handler=align_predict)


def _add_demo_parser(asub):
    """``structpred align demo``: the Table 3.1 protocol."""
    dm = asub.add_parser("demo", formatter_class=_Formatter, help="the Hansards protocol end to end: train, align, AER table",
                         description="Train on the first 100 and 200 Hansards test sentences, "
                                     "validate on the trial sentences, test on the rest, and "
                                     "print precision, recall and AER.")
    dm.add_argument("--data-dir", default=None, help="folder with the Hansards files "
                    "(the bundled data/hansards when not given)")
    dm.add_argument("--bitext-pairs", type=positive_int, default=None, metavar="N",
                    help="use only the first N bitext pairs for the Dice/IBM statistics "
                         "(default: all of them)")
    dm.add_argument("--possible-cost", type=_cost, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    dm.add_argument("--learners", default="all",
                    help="comma-separated learners, or 'all'")
    dm.add_argument("--models", default="M",
                    help="comma-separated models among M, M+F, M+Q, M+F+Q, or 'all'")
    dm.add_argument("--iterations", type=iteration_count, default=200)
    dm.add_argument("--c-pos", type=_cost, default=1.0)
    dm.add_argument("--c-neg", type=_cost, default=3.0)
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
    p.add_argument("--allow-unaligned", action="store_true",
                   help="accept gold that leaves sentences out: they are scored as sentences "
                        "without gold links")
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


