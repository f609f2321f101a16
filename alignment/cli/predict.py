"""``structpred align predict``: links for new sentence pairs with a saved model."""

from __future__ import annotations

import contextlib

from structpred.cli import UserError, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_output, check_stdin
from structpred import OverlapCounter
from structpred.io import counted, note, reading_in_bulk
from structpred.cli import open_cluster, with_cluster

from .common import (DIRECTION_SAMPLE, _check_case, _check_direction, _check_inputs,
                     _check_segmented, _check_unknown, _external, _external_specs, _input_pairs, _inputs, _summary)

__all__ = ["align_predict"]


@_wrap_format_errors
@with_cluster
def align_predict(args):
    """``structpred align predict``: streams, one Pharaoh line per sentence pair."""
    from alignment.predict.parallel import (CLUSTER_CHUNK, LOCAL_CHUNK, default_jobs,
                                            predict_stream, stdin_waiting)
    from alignment.data.formats import format_pharaoh, mark_written_by
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
    check_output(args.output, "-o", inputs, kind="text")
    with reading_in_bulk():    # the model's tables: no collector passes over them here
        model = MatchingAligner.load(args.model)   # or in the processes forked to predict
    if args.decoder:
        if not model.interactions:   # only the ILP of a +Q model has a decoder to choose
            raise UserError(f"--decoder is for +Q models, not {args.model} (model "
                            f"{model.model_name})")
        model.decoder = args.decoder
    name, pairs = _input_pairs(args)
    pairs, big = _direction_checked(args, pairs, model), []
    seen = OverlapCounter(getattr(model, "training_digests_", None))
    pairs = _counted(pairs, seen, big if model.interactions and model.decoder != "lp" else None)
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
    _check_runs(args, model)
    if args.show_weights:
        for fname, value in model.top_features(args.show_weights):
            note(f"{value:+.4f}  {fname}")
    from tqdm.auto import tqdm

    from alignment._runtime import progress_enabled

    to_stdout = str(args.output) == "-"
    interactive = args.input == "-" or "-" in (args.src, args.tgt)
    jobs = args.jobs or (1 if interactive else default_jobs())
    _note_jobs(args, jobs, default_jobs())
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
        stream = _without_lp_warnings(predict_stream(model, pairs, batch, jobs, executor, waiting))
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
    mark_written_by(args.output, "structpred align predict")   # not gold (aer, align train)
    _warn_after(name if args.input else f"{args.src} and {args.tgt}", seen, big)
    if to_stdout:
        _log(args, f"aligned {counted(n, 'sentence pair')}")
    else:
        _summary(f"aligned {counted(n, 'sentence pair')}; links written to {args.output}")
    return 0


def _counted(pairs, seen, big=None, every=256):
    """``pairs`` as they come, each counted by ``seen`` (an :class:`OverlapCounter` of the
    model's training pairs), ``every`` pairs at a time and the rest at the end; the lines
    (from 1) of pairs above the exact decoder's size added to ``big`` (a list; None: a
    model without the ILP)."""
    from alignment.model import MAX_ILP_CELLS, pair_texts

    # a model without digests (written before they were kept) has nothing to count: the
    # texts are not made
    texts = pair_texts if seen.trained is not None else (lambda held: ())
    held = []
    for lineno, pair in enumerate(pairs, 1):
        if big is not None and len(pair[0]) * len(pair[1]) > MAX_ILP_CELLS:
            big.append(lineno)
        held.append(pair)
        if len(held) == every:
            seen.add(texts(held))
            held = []
        yield pair
    seen.add(texts(held))


def _without_lp_warnings(stream):
    """``stream`` with the model's :class:`LPDecodingWarning` of each batch left out (in the
    processes forked while it runs too): the command says it once (:func:`_warn_after`)."""
    import warnings

    from alignment.model import LPDecodingWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LPDecodingWarning)
        yield from stream


def _warn_after(name, seen, big):
    """The warnings that need every pair seen: pairs decoded by the LP relaxation
    (``big``, their lines; the API's :class:`LPDecodingWarning` of each batch, from the
    processes that predict, is left out for this one line), then training pairs."""
    import warnings

    from alignment._runtime import lp_decoding_message

    if big:
        warnings.warn(f"{name}: " + lp_decoding_message(len(big), big[0], "line"))
    _warn_training_pairs(name, seen)


def _warn_training_pairs(name, seen, share=0.05):
    """One warning when 5 % or more of the pairs aligned (2 at least) are pairs the model
    was trained on (the training sentences given to align): an AER of these links is not
    one on unseen text.  A model written before the training pairs' digests were kept
    (``training_digests_`` None) says nothing."""
    import warnings

    found = seen.result(share)
    if found is None:
        return
    n, first = found
    if n == seen.total:
        warnings.warn(f"{name}: every one of the {counted(n, 'sentence pair')} is a pair the "
                      "model was trained on; an AER of these links is not a test score")
    else:
        warnings.warn(f"{name}: {n} of the {counted(seen.total, 'sentence pair')} (the first: "
                      f"pair {first + 1}) are pairs the model was trained on; an AER of "
                      "these links overstates that on unseen text")


def _check_runs(args, model):
    """The aligner runs whose links are the model's features are at hand (in its cache)."""
    if model.aligners:
        try:
            model.aligner_links_.check()
        except RuntimeError as exc:
            raise UserError(f"{args.model}: {exc}") from None


def _direction_checked(args, pairs, model):
    """``pairs`` (an iterator), its first pairs checked for swapped sides against the
    model's statistics (:func:`_check_direction`), for a case other than the model's
    (:func:`_check_case`, a warning), for words the model does not know (:func:`_check_unknown`,
    a warning) and for unsegmented text (:func:`_check_segmented`);
    standard input is not looked ahead."""
    if "-" in (args.input, args.src, args.tgt):
        return pairs
    import itertools

    head = list(itertools.islice(pairs, DIRECTION_SAMPLE))
    sides = ("the source side of -i", "its target side") if args.input else ("--src", "--tgt")
    _check_direction(head, model.stats_, *sides)
    _check_segmented(head, args.input or args.src, None if args.input else args.tgt)
    _check_case(head, model.stats_, *sides)
    _check_unknown(head, model.stats_, *sides)
    return itertools.chain(head, pairs)


def _note_jobs(args, jobs, cpus):
    """A note when ``--jobs`` asks for more processes than the CPUs: the local pool starts
    no more than that (``-j 100000`` forked until the machine's load passed 1,600)."""
    if jobs > cpus and not (getattr(args, "workers", None) or getattr(args, "scheduler", None)):
        _log(args, f"note: --jobs {jobs}: this process may use {counted(cpus, 'CPU')}; "
                   f"starting {counted(cpus, 'process', 'processes')}")
