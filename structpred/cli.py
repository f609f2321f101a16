"""The ``structpred`` command line.

Conventions follow fast_align and eflomal: plain whitespace-tokenised text
in, Pharaoh ``i-j`` (0-based, source-target) out, one line per sentence.
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main", "build_parser"]


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Keep the examples' line breaks and show the defaults that carry information."""

    def _get_help_string(self, action):
        if action.default in (None, False, argparse.SUPPRESS) or action.help is None:
            return action.help
        return super()._get_help_string(action) if action.help else "(default: %(default)s)"


def _add_quiet(p):
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars or chatter")


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


def build_parser():
    parser = argparse.ArgumentParser(
        prog="structpred",
        description="Discriminative structured prediction: max-margin word alignment "
                    "(and, later, segmentation and topic-model classifiers).")
    sub = parser.add_subparsers(dest="command", required=True)

    # ------------------------------------------------------------- align
    align = sub.add_parser("align", formatter_class=_Formatter, help="discriminative word alignment (model M)",
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
    tr.add_argument("--c-pos", type=float, default=1.0, help="cost of a false positive c+")
    tr.add_argument("--c-neg", type=float, default=3.0, help="cost of a false negative c-")
    tr.add_argument("--possible-cost", type=float, default=None,
                    help="cost of predicting a possible-only gold link (default: c+)")
    tr.add_argument("--learner", default="dual-extragradient",
                    choices=["dual-extragradient", "projected-gradient", "perceptron", "subgradient"],
                    help="optimiser: the memory-efficient dual extragradient or a reference learner")
    tr.add_argument("--iterations", type=int, default=200, help="iterations (perceptron: epochs)")
    tr.add_argument("--validate-every", type=int, default=10,
                    help="compute validation AER every so many iterations; the best is kept")
    tr.add_argument("--seed", type=int, default=0, help="random_state (example order, power iteration)")
    _add_quiet(tr)

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
    _add_quiet(pr)

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
    dm.add_argument("--iterations", type=int, default=200)
    dm.add_argument("--c-pos", type=float, default=1.0)
    dm.add_argument("--c-neg", type=float, default=3.0)
    dm.add_argument("--cache-dir", default=".cache", help="where statistics are cached")
    dm.add_argument("--plot", metavar="PNG", help="save the validation-AER curves here")
    _add_quiet(dm)

    # --------------------------------------------------------------- aer
    aer = sub.add_parser("aer", formatter_class=_Formatter, help="precision, recall and AER of alignments against gold",
                         description="Scores Pharaoh alignments against gold (NAACL or "
                                     "Pharaoh with i?j possible links), micro-averaged over "
                                     "the corpus, like score-alignments.")
    aer.add_argument("--gold", required=True, metavar="FILE",
                     help="gold alignments: NAACL (*.naacl) or Pharaoh with i?j possible links")
    aer.add_argument("--gold-format", choices=["naacl", "pharaoh"], default=None)
    aer.add_argument("--test", required=True, metavar="FILE", help="predicted Pharaoh alignments")
    _add_text_inputs(aer, what="sentences (needed for NAACL gold and for --plot)")
    aer.add_argument("--plot", metavar="PNG", help="draw alignment grids to this file")
    aer.add_argument("--sentences", default="1", metavar="LIST",
                     help="1-based sentence numbers to draw, e.g. 1,5,9")
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    from . import commands

    try:
        if args.command == "align":
            return {"train": commands.align_train, "predict": commands.align_predict,
                    "demo": commands.align_demo}[args.align_command](args)
        if args.command == "aer":
            return commands.aer(args)
    except commands.UserError as exc:
        print(f"structpred: error: {exc}", file=sys.stderr)
        return 2
    parser.error("unknown command")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
