"""``structpred aer``: precision, recall and AER of predicted links against gold."""

from __future__ import annotations


from structpred.cli import UserError
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_output, check_stdin, refuse_options
from structpred.io import counted

from .common import _check_inputs, _check_sure_links, _inputs, _read_gold, _read_pairs, _summary

__all__ = ["aer"]


@_wrap_format_errors
def aer(args):
    """``structpred aer``."""
    from alignment.evaluate.aer import format_scores, score_alignments
    from alignment.data.formats import check_index_base, read_pharaoh
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
        check_output(args.plot, "--plot", _inputs(args, "gold", "test", "src", "tgt"),
                     figure=True)
    else:
        refuse_options(args, ("sentences",), "chooses the sentences that --plot draws: give "
                       "--plot too")
    pairs = _read_pairs(args.src, args.tgt, segmented=False) if have_text else None
    try:
        test = read_pharaoh(args.test, pairs)
    except FormatError as exc:
        # the hint of a NAACL line, '--gold-format naacl', is for --gold, not --test
        reason, naacl, _ = exc.reason.partition(": this line looks like NAACL")
        if naacl:
            raise FormatError(exc.path, exc.line, f"{reason}: this line looks like NAACL gold, "
                              "but --test takes Pharaoh links, as 'align predict' writes them "
                              "(are --gold and --test exchanged?)") from None
        raise
    if not test:
        raise UserError(f"{args.test}: no alignment lines (the file is empty)")
    try:
        check_index_base(args.test, test, pairs, "pharaoh")
        gold = _read_gold(args.gold, args.gold_format, pairs, n_sentences=len(test),
                          allow_unaligned=args.allow_unaligned,
                          what=f"sentences of {args.test}")
    except FormatError as exc:
        if pairs is None and "sentence number" in exc.reason:
            raise FormatError(exc.path, exc.line, f"{exc.reason} ({args.test} has "
                              f"{counted(len(test), 'line')})") from None
        raise
    if not gold:
        raise UserError(f"{args.gold}: no gold alignments (the file is empty)")
    if len(test) != len(gold):
        raise UserError(f"{args.test}: {counted(len(test), 'line')} but the gold {args.gold} "
                        f"has {counted(len(gold), 'sentence')}")
    _check_sure_links(args.gold, gold, "AER is undefined")
    if args.plot:
        bad = [i for i in args.sentences if i > len(pairs)]
        if bad:
            raise UserError(f"--sentences: {', '.join(map(str, bad))} out of range "
                            f"(there {'is' if len(pairs) == 1 else 'are'} "
                            f"{counted(len(pairs), 'sentence')})")
    score = score_alignments(test, gold)
    print(f"{format_scores(score)}  ({counted(len(gold), 'sentence')})", flush=True)
    if args.errors:
        from alignment.evaluate.aer import error_breakdown, format_errors

        print(format_errors(error_breakdown(test, gold, pairs), top=args.errors))
    if args.plot:
        from alignment.evaluate.plot import save_alignment_grids

        save_alignment_grids(pairs, gold, test, [i - 1 for i in args.sentences], args.plot)
        _summary(f"alignment grids written to {args.plot}")
    return 0
