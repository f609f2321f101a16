"""``structpred aer``: precision, recall and AER of predicted links against gold."""

from __future__ import annotations


from structpred.cli import UserError
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_output, check_stdin, refuse_options
from structpred.io import blank_tail_hint, counted

from .common import (_check_inputs, _check_sure_links, _gold_format, _inputs, _read_gold,
                     _read_pairs, _summary)

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
        check_index_base(args.test, test, pairs, "pharaoh", gold=False)
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
    if len(test) != len(gold):   # an empty line is a sentence without links
        hint = blank_tail_hint("" if not a.possible else "-" for a in test[len(gold):])
        raise UserError(f"{args.test}: {counted(len(test), 'line')} but the gold {args.gold} "
                        f"has {counted(len(gold), 'sentence')}{hint}")
    _check_sure_links(args.gold, gold, "AER is undefined")
    if args.plot:
        bad = [i for i in args.sentences if i > len(pairs)]
        if bad:
            raise UserError(f"--sentences: {', '.join(map(str, bad))} out of range "
                            f"(there {'is' if len(pairs) == 1 else 'are'} "
                            f"{counted(len(pairs), 'sentence')})")
    if not _warn_test_is_gold(args, test, gold):
        _warn_possible_in_test(args, test)
    if not any(t.sure for t in test):
        import warnings

        warnings.warn(f"{args.test}: no predicted link in its {counted(len(test), 'line')}: "
                      "precision is undefined (printed as 100%), recall 0 (an aligner's run "
                      "that failed, or the wrong file?)")
    score = score_alignments(test, gold)
    _check_gold_orientation(args, test, gold, score, have_text)
    print(f"{format_scores(score)}  ({counted(len(gold), 'sentence')})", flush=True)
    if args.errors:
        from alignment.evaluate.aer import error_breakdown, format_errors

        print(format_errors(error_breakdown(test, gold, pairs), top=args.errors))
    if args.plot:
        from alignment.evaluate.plot import save_alignment_grids

        save_alignment_grids(pairs, gold, test, [i - 1 for i in args.sentences], args.plot)
        _summary(f"alignment grids written to {args.plot}")
    return 0


def _warn_possible_in_test(args, test):
    """One warning when ``--test`` holds possible links ``i?j``: predictions have none, a
    score counts only the sure ones, and gold given as ``--test`` (the two files
    exchanged) was scored with its possible links left out, with no word."""
    import warnings

    possible = [i for i, t in enumerate(test, 1) if t.possible != t.sure]
    if possible:
        n = sum(len(test[i - 1].possible - test[i - 1].sure) for i in possible)
        warnings.warn(f"{args.test}:{possible[0]}: --test holds {counted(n, 'possible link')} "
                      "('i?j'), as gold does: the score counts only its sure links 'i-j' as "
                      "predictions (are --gold and --test exchanged?)")


def _warn_test_is_gold(args, test, gold):
    """One warning when ``--test`` is the ``--gold`` file itself (any spelling of its path, a
    hard link), or a file of the same links, sentence by sentence (a copy, the gold gzipped):
    the gold given twice scored "AER 0.00%" with no word.  Returns whether it warned."""
    import warnings

    from structpred.cli import same_file

    if same_file(args.test, args.gold):
        how = f"--test is the gold file {args.gold} itself"
    elif all(t.sure == g.sure and t.possible == g.possible for t, g in zip(test, gold)):
        how = f"--test holds the links of the gold {args.gold}, sentence by sentence"
    else:
        return False
    warnings.warn(f"{args.test}: {how}: the score is the gold's against itself (was the gold "
                  "given as --test too, instead of the predictions?)")
    return True


#: without the sentences, a gold file read another way round than it was written is
#: suspected when that reading has at most this share of the AER as given (and the AER as
#: given is at least :data:`SUSPECT_AER`)
BETTER_SHARE = 0.5
SUSPECT_AER = 0.3


def _check_gold_orientation(args, test, gold, score, have_text=False):
    """Warn when the gold fits the predictions far better with its sides exchanged, or
    (NAACL) with every position one higher, as a 0-based NAACL file reads: the AER was
    reported as it came (88 % for a gold of Czech-English given to English-Czech links; 50 %
    for a 0-based NAACL file of 14 %), with exit status 0 and no word.  With ``--src/--tgt``
    the range checks catch most such files, but not sentence pairs that are as long on both
    sides (every link in range either way round), where it was silent."""
    import warnings

    from alignment.data.formats import Alignment
    from alignment.evaluate.aer import score_alignments

    if score.aer < SUSPECT_AER:
        return
    readings = [("with its sides exchanged", "are its source and target the other way round?",
                 lambda j, k: (k, j))]
    if _gold_format(args.gold, args.gold_format) == "naacl":
        readings.append(("with every position one higher", "a 0-based NAACL file? NAACL "
                         "positions start at 1, 0 is NULL", lambda j, k: (j + 1, k + 1)))
    for how, why, move in readings:
        other = [Alignment(frozenset(move(j, k) for j, k in g.sure),
                           frozenset(move(j, k) for j, k in g.possible)) for g in gold]
        better = score_alignments(test, other)
        if better.aer <= BETTER_SHARE * score.aer:
            warnings.warn(f"{args.gold}: read {how}, the gold scores AER {100 * better.aer:.2f}% "
                          f"against {100 * score.aer:.2f}% as read ({why})" + (
                              "" if have_text else "; give --src and --tgt to check the "
                              "positions"))
            return
