"""The ``structpred`` command line.

Conventions follow fast_align and eflomal: plain whitespace-tokenised text
in, Pharaoh ``i-j`` (0-based, source-target) out, one line per sentence.
"""

from __future__ import annotations

import argparse
import sys

from .learners import LEARNERS

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


def build_parser():
    parser = argparse.ArgumentParser(
        prog="structpred",
        description="Discriminative structured prediction: max-margin word alignment "
                    "and min-cut segmentation (the topic-model classifiers are a Python "
                    "API: topics.*).")
    sub = parser.add_subparsers(dest="command", required=True)

    # ------------------------------------------------------------- align
    align = sub.add_parser("align", formatter_class=_Formatter, help="discriminative word alignment (models M, M+F, M+Q, M+F+Q)",
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
    aer.add_argument("--errors", type=int, default=0, metavar="N",
                     help="also list the N word pairs with the most false and missed links "
                          "(needs --src and --tgt)")
    aer.add_argument("--plot", metavar="PNG", help="draw alignment grids to this file")
    aer.add_argument("--sentences", default="1", metavar="LIST",
                     help="1-based sentence numbers to draw, e.g. 1,5,9")
    _add_segment_parser(sub)
    return parser


def _add_segment_inputs(p, masks=True):
    g = p.add_argument_group("inputs: images (a manifest, or files/folders) or labelled point files")
    g.add_argument("--manifest", metavar="CSV",
                   help="manifest with an 'id' column (and 'split'/'split_zjw'); images in "
                        "small/images/<id>.png and masks in small/masks/<id>.png next to it")
    g.add_argument("--split", metavar="NAME", help="use only the manifest rows of this split")
    g.add_argument("--image-dir", metavar="DIR", help="override the manifest's image folder")
    g.add_argument("--mask-dir", metavar="DIR", help="override the manifest's mask folder")
    g.add_argument("--images", nargs="+", metavar="PATH", help="image files or folders")
    if masks:
        g.add_argument("--masks", metavar="DIR",
                       help="folder of binary masks (0/255 PNG) named like the images")
    else:
        g.add_argument("--masks", metavar="DIR", help=argparse.SUPPRESS)
    g.add_argument("--points", nargs="+", metavar="FILE",
                   help="point files 'x y z label [conf]' (.gz ok); task: vegetation (1300-1306) vs rest")
    g.add_argument("--limit", type=int, default=None, metavar="N", help="first N images only")


def _add_segment_parser(sub):
    """``structpred segment train|predict|eval`` (max-margin min-cut MRFs)."""
    seg = sub.add_parser("segment", formatter_class=_Formatter,
                         help="binary segmentation with max-margin min-cut MRFs",
                         description="Train and apply associative MRFs (thesis sec. 2.2.2) on "
                                     "images (SLIC superpixels) or 3-D point clouds (kNN graphs).")
    ssub = seg.add_subparsers(dest="segment_command", required=True)

    tr = ssub.add_parser("train", formatter_class=_Formatter, help="train a segmentation MRF",
        description="Train with the memory-efficient dual extragradient (or a reference "
                    "learner). Example:\n"
                    "  structpred segment train --manifest data/segmentation/weizmann_horse/"
                    "manifest.csv --split train -o horse.npz")
    _add_segment_inputs(tr)
    tr.add_argument("--valid-manifest", metavar="CSV", help="validation manifest (default: --manifest)")
    tr.add_argument("--valid-split", metavar="NAME",
                    help="validation rows of the manifest: the best iterate on them is kept")
    tr.add_argument("--valid-points", nargs="+", metavar="FILE", help="validation point files")
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    tr.add_argument("--learner", default="dual-extragradient",
                    choices=LEARNERS)
    tr.add_argument("--iterations", type=int, default=100, help="iterations (perceptron: epochs)")
    tr.add_argument("--eta-scale", type=float, default=1.0, help="step eta = ETA_SCALE / ||F||_2")
    tr.add_argument("--feature-scale", type=float, default=0.02,
                    help="multiplies all features: balances the w- and z-steps of the extragradient")
    tr.add_argument("--validate-every", type=int, default=5)
    tr.add_argument("--no-edges", action="store_true", help="unary-only linear model (no MRF edges)")
    tr.add_argument("--class-weight", default="balanced",
                    help="Hamming loss class weights: 'balanced', 'none' or the foreground weight")
    tr.add_argument("--memory-efficient", action="store_true",
                    help="stream training graphs from a disk cache (memory independent of their number)")
    tr.add_argument("--n-segments", type=int, default=1000,
                    help="SLIC superpixels per image (1000: chosen on the horse validation images)")
    tr.add_argument("--voxel", type=float, default=0.25, help="point thinning voxel size (m)")
    tr.add_argument("--k-graph", type=int, default=6, help="neighbours per point in the kNN graph")
    tr.add_argument("--seed", type=int, default=0)
    _add_quiet(tr)

    pr = ssub.add_parser("predict", formatter_class=_Formatter, help="write predicted masks or point labels",
                         description="Writes <id>.png masks (0/255) for images, or "
                                     "'x y z label' files (<name>.pred.txt) for point clouds.")
    pr.add_argument("-m", "--model", required=True, metavar="NPZ")
    _add_segment_inputs(pr, masks=False)
    pr.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder")
    pr.add_argument("--side-by-side", metavar="DIR",
                    help="also write input | prediction images to this folder")
    _add_quiet(pr)

    ev = ssub.add_parser("eval", formatter_class=_Formatter, help="accuracy and foreground IoU",
                         description="Pixel (or point) accuracy and foreground IoU, pooled over "
                                     "all inputs.")
    ev.add_argument("-m", "--model", required=True, metavar="NPZ")
    _add_segment_inputs(ev)
    ev.add_argument("--side-by-side", metavar="DIR",
                    help="also write input | truth | prediction images to this folder")
    _add_quiet(ev)


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
        if args.command == "segment":
            from . import commands_segment

            return {"train": commands_segment.segment_train, "predict": commands_segment.segment_predict,
                    "eval": commands_segment.segment_eval}[args.segment_command](args)
    except commands.UserError as exc:
        print(f"structpred: error: {exc}", file=sys.stderr)
        return 2
    parser.error("unknown command")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
