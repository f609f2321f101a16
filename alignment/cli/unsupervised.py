"""``structpred align unsupervised``: word alignment without gold, fast_align-style.

Reads tokenised parallel text (two files, or ``src ||| tgt`` lines from a file or
stdin), trains the HMM by agreement (:mod:`alignment.aligners.unsupervised`) on it plus any
extra unlabeled bitext, and writes Pharaoh ``i-j`` links (0-based, source-target), one
line per input pair, streamed to stdout or a file::

    structpred align unsupervised --src text.en --tgt text.fr > links.txt
    paste -d '|' a b | ... ; structpred align unsupervised -i corpus.src-tgt -o links.txt
    structpred align unsupervised -i - --symmetrize grow-diag-final-and < corpus.src-tgt
    structpred align unsupervised --src t.en --tgt t.fr --soft --threshold 0.1   # i-j:p

Registered from :func:`alignment.cli.add_align_parser` by :func:`add_unsupervised_parser`.
"""

from __future__ import annotations

import time
from pathlib import Path

from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, iteration_count, log as _log
from structpred.cli import at_most, finite_float, nonneg_int, refuse_options, whole_number
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.io import counted, release_notes

from .common import _check_inputs, _read_input, check_bitext_memory, max_length

__all__ = ["add_unsupervised_parser", "align_unsupervised"]


#: ``--prefix``: the estimator's bound (it was named as ``prefix``, not the option)
_prefix = at_most(nonneg_int, 10_000_000, "a prefix longer than every word is the whole word")


def add_unsupervised_parser(asub):
    """Add ``unsupervised`` to the ``structpred align`` subparsers ``asub``."""
    from alignment.aligners.unsupervised import DEFAULTS, SYMMETRIZE

    p = asub.add_parser(
        "unsupervised", formatter_class=_Formatter,
        help="align without gold (HMM trained by agreement; optionally with eflomal)",
        description="Train the HMM alignment model in both directions by agreement (Liang "
                    "et al. 2006) on the input (plus --bitext-src/--bitext-tgt), then write "
                    "posterior-decoded Pharaoh links 'i-j' (0-based, source-target), one "
                    "line per input pair, as fast_align and eflomal do. Examples:\n"
                    "  structpred align unsupervised --src text.en --tgt text.fr > links\n"
                    "  structpred align unsupervised -i - < corpus.en-fr   # 'src ||| tgt'\n"
                    "  structpred align unsupervised --src a.en --tgt a.fr --soft --threshold 0.1")
    g = p.add_argument_group("input and output")
    g.add_argument("--src", metavar="FILE", help="source sentences, one tokenised sentence per "
                                                 "line (.gz ok)")
    g.add_argument("--tgt", metavar="FILE", help="target sentences (same number of lines)")
    g.add_argument("-i", "--input", metavar="FILE",
                   help="fast_align-style 'src ||| tgt' lines instead of --src/--tgt "
                        "(- reads stdin)")
    g.add_argument("-o", "--output", default="-", metavar="FILE",
                   help="where the links go (- is stdout, written as they are decoded)")
    d = p.add_argument_group("decoding")
    d.add_argument("--direction", choices=["fwd", "bwd"], default=None,
                   help="one direction's links only (fwd: each target word's source, "
                        "bwd: each source word's target) instead of --symmetrize")
    d.add_argument("--symmetrize", choices=list(SYMMETRIZE), default=None,
                   help="how the two directions' thresholded links are combined "
                        f"(default: {DEFAULTS['symmetrize']}); intersect/union threshold the "
                        "minimum/maximum posterior")
    d.add_argument("--threshold", type=finite_float, default=None, metavar="T",
                   help="link posterior threshold in (0, 1] (default: "
                        f"{DEFAULTS['threshold']}, or {DEFAULTS['eflomal_threshold']} when "
                        "combined with eflomal)")
    d.add_argument("--soft", action="store_true",
                   help="write 'i-j:p' with each link's posterior p (the score it was chosen "
                        "by: the direction's, the minimum for intersect, the maximum for "
                        "union, the mean for grow-diag*)")
    m = p.add_argument_group("model")
    m.add_argument("--hmm-iterations", type=iteration_count, default=DEFAULTS["hmm_iterations"],
                   metavar="N", help="EM iterations of the agreement-trained HMM")
    m.add_argument("--no-lowercase", action="store_true",
                   help="keep case (by default words are lower-cased for the model)")
    m.add_argument("--prefix", type=_prefix, default=DEFAULTS["prefix"], metavar="N",
                   help="model only the first N characters of each word (0: whole words; "
                        "a crude stemmer for inflected languages)")
    m.add_argument("--max-len", type=max_length, default=80, metavar="N",
                   help="leave pairs with a side longer than N out of HMM training (they "
                        "are still aligned)")
    m.add_argument("--with", dest="with_", choices=["auto", "none", "eflomal"], default="none",
                   help="combine with eflomal's links (eflomal: required; auto: when it is "
                        "installed); each direction's posterior becomes (1-W)*posterior + "
                        "W*[eflomal link]")
    m.add_argument("--eflomal-weight", type=finite_float, default=DEFAULTS["eflomal_weight"],
                   metavar="W", help="W of --with eflomal")
    b = p.add_argument_group("extra unlabeled text (the input is always included)")
    b.add_argument("--bitext-src", metavar="FILE", help="more source sentences to train on")
    b.add_argument("--bitext-tgt", metavar="FILE", help="their translations")
    b.add_argument("--bitext-pairs", type=whole_number, default=None, metavar="N",
                   help="use only the first N pairs of the extra bitext")
    p.add_argument("--cache-dir", metavar="DIR", default=None,
                   help="keep the trained model and eflomal's links here, keyed by a "
                        "fingerprint of the training text and options (reused when they "
                        "match)")
    from alignment.cli.bayes import add_bayes_arguments

    p.add_argument("--model", choices=["hmm", "bayes"], default="hmm",
                   help="hmm: the HMM trained by agreement; bayes: the seeded Bayesian "
                        "aligner (IBM-1, HMM, fertility by collapsed Gibbs sampling)")
    bayes_only = add_bayes_arguments(p)._group_actions
    # the options that belong to one --model only: given with the other, they are refused
    # (not silently ignored)
    hmm_only = [a for a in p._actions if a.dest in
                ("threshold", "soft", "hmm_iterations", "max_len", "with_", "eflomal_weight")]
    p.set_defaults(model_only={"bayes": [a.dest for a in bayes_only],
                               "hmm": [a.dest for a in hmm_only]})
    _add_quiet(p)
    p.set_defaults(handler=align_unsupervised)
    return p


def _check_paths(args):
    """Before any work: ``-o`` is not one of the inputs (it would replace the text being
    aligned) and ``--cache-dir`` is a folder (or a new path)."""
    from structpred.cli import check_output

    inputs = [(opt, getattr(args, name, None)) for opt, name in
              (("--src", "src"), ("--tgt", "tgt"), ("-i", "input"),
               ("--bitext-src", "bitext_src"), ("--bitext-tgt", "bitext_tgt"))]
    cache = getattr(args, "cache_dir", None)
    check_output(args.output, "-o", inputs, outputs=[("--cache-dir", cache)],
                 kind="text")
    _check_inputs(inputs)
    if cache and Path(cache).exists() and not Path(cache).is_dir():
        raise UserError(f"{cache}: --cache-dir is not a folder")


def _check_args(args):
    from alignment.aligners.unsupervised import DEFAULTS

    if args.direction and args.symmetrize:
        raise UserError("give --direction or --symmetrize, not both")
    if args.threshold is not None and not 0.0 < args.threshold <= 1.0:
        raise UserError(f"--threshold must lie in (0, 1], not {args.threshold}")
    if not 0.0 <= args.eflomal_weight <= 1.0:
        raise UserError(f"--eflomal-weight must lie in [0, 1], not {args.eflomal_weight}")
    if args.hmm_iterations < 1:
        raise UserError("--hmm-iterations must be at least 1")
    if args.max_len < 1:
        raise UserError("--max-len must be >= 1")
    if bool(args.bitext_src) != bool(args.bitext_tgt):
        raise UserError("give both --bitext-src and --bitext-tgt")
    if args.bitext_pairs is not None and args.bitext_pairs < 1:
        raise UserError("--bitext-pairs must be at least 1")
    if not args.bitext_src:
        refuse_options(args, ("bitext_pairs",), "needs --bitext-src and --bitext-tgt")
    use_eflomal = False
    if args.with_ == "none":
        refuse_options(args, ("eflomal_weight",), "weighs eflomal's links, which --with none "
                       "leaves out: give --with eflomal (or auto)")
    else:
        from alignment.aligners.runs import available_aligners

        installed = "eflomal" in available_aligners()
        if args.with_ == "eflomal" and not installed:
            raise UserError("--with eflomal: eflomal is not installed "
                            "(pip install 'structpred[aligners]')")
        use_eflomal = installed
    threshold = args.threshold
    if threshold is None:
        threshold = DEFAULTS["eflomal_threshold"] if use_eflomal else DEFAULTS["threshold"]
    sym = args.symmetrize or DEFAULTS["symmetrize"]
    return use_eflomal, threshold, sym


def _format(links, score, soft):
    if soft:
        return " ".join(f"{j}-{k}:{score[j, k]:.4f}" for j, k in sorted(links))
    return " ".join(f"{j}-{k}" for j, k in sorted(links))


@_wrap_format_errors
def align_unsupervised(args):
    """``structpred align unsupervised``."""
    from structpred import open_output

    from alignment.data.formats import mark_written_by
    from alignment.aligners.unsupervised import UnsupervisedAligner, training_text

    _check_paths(args)
    model = getattr(args, "model", "hmm")
    for other, options in getattr(args, "model_only", {}).items():
        if other != model:
            refuse_options(args, options,
                           f"is for --model {other} (this is --model {model})")
    if model == "bayes":
        from alignment.cli.bayes import align_bayes

        return align_bayes(args)
    use_eflomal, threshold, sym = _check_args(args)
    pairs = _read_input(args)
    extra_src = extra_tgt = None
    if args.bitext_src:
        from alignment.cli.common import _load_extra_bitext

        bt = _load_extra_bitext(args)
        extra_src, extra_tgt = bt.src, bt.tgt
        _log(args, f"extra bitext: {bt.report()}")
    src, tgt, index = training_text(pairs, extra_src, extra_tgt)
    del extra_src, extra_tgt
    check_bitext_memory(list(zip(src, tgt)), args.max_len, "--max-len", args.src or args.input)
    cache = Path(args.cache_dir) if args.cache_dir else None
    model = UnsupervisedAligner(hmm_iterations=args.hmm_iterations,
                                lowercase=not args.no_lowercase, prefix=args.prefix,
                                max_len=args.max_len, verbose=not args.quiet)
    release_notes()   # the inputs are read and checked: the lines held so far come now
    t0 = time.perf_counter()
    try:
        model.fit(src, tgt, cache_dir=cache)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    _log(args, f"unsupervised: model ready for {counted(len(pairs), 'input pair')} "
               f"({counted(len(src), 'training pair')}, {time.perf_counter() - t0:.0f}s)")
    ef = None
    if use_eflomal:
        from alignment.aligners.runs import run_aligner

        run = run_aligner("eflomal", src, tgt,
                          cache_dir=(cache / "aligners") if cache is not None else None,
                          verbose=not args.quiet)
        ef = (run.links("fwd", index), run.links("bwd", index))
        _log(args, f"unsupervised: eflomal links ready ({run.seconds:.0f}s"
                   f"{', cached' if run.from_cache else ''})")
    del src, tgt
    with open_output(args.output) as out:
        for i, (s, t) in enumerate(pairs):
            links, score = model.align_pair(
                s, t, threshold=threshold, symmetrize=sym, direction=args.direction,
                eflomal_links=None if ef is None else (ef[0][i], ef[1][i]),
                eflomal_weight=args.eflomal_weight)
            out.write(_format(links, score, args.soft) + "\n")
            if args.output == "-" and i % 256 == 255:
                out.flush()
    mark_written_by(args.output, "structpred align unsupervised")
    return 0
