"""``structpred align unsupervised --model bayes``: the seeded Bayesian aligner
(:class:`alignment.aligners.bayes.BayesianAligner`) on the command line.

Same input and output as the HMM (:mod:`alignment.cli.unsupervised`): tokenised parallel
text (``--src``/``--tgt``, or ``src ||| tgt`` lines from a file or stdin), extra unlabeled
bitext to train on, Pharaoh ``i-j`` links (0-based, source-target) streamed one line per
input pair; progress on stderr only when it is a terminal::

    structpred align unsupervised --model bayes --src text.en --tgt text.fr > links
    structpred align unsupervised --model bayes -i - --seed 3 < corpus.en-fr

The same input, options and ``--seed`` give byte-identical output.
"""

from __future__ import annotations

import sys
import time

from structpred.cli import UserError, finite_float, jobs_count, log as _log
from structpred.cli import seed_value, whole_number
from structpred.io import counted, release_notes

__all__ = ["add_bayes_arguments", "align_bayes"]


def add_bayes_arguments(p):
    """The ``--model bayes`` options of ``align unsupervised``."""
    from alignment.aligners.bayes import BAYES_DEFAULTS as D

    g = p.add_argument_group("--model bayes (collapsed Gibbs sampling, Östling & Tiedemann "
                             "2016)")
    g.add_argument("--seed", type=seed_value, default=0, metavar="N",
                   help="random seed of the samplers (the same seed gives the same links)")
    g.add_argument("--samplers", type=whole_number, default=D["n_samplers"], metavar="N",
                   help="independent samplers per direction, their marginals averaged")
    g.add_argument("--iterations", default=None, metavar="I,H,F",
                   help="Gibbs sweeps of IBM-1, the HMM and the fertility model (default: "
                        f"{D['ibm1_iterations']},{D['hmm_iterations']},"
                        f"{D['fertility_iterations']})")
    g.add_argument("--null-prob", type=finite_float, default=D["null_prob"], metavar="P",
                   help="probability of a NULL link")
    g.add_argument("--jobs", type=jobs_count, default=1, metavar="N",
                   help="threads: 2 or more sample the two directions in two threads (one "
                        "per direction; more are not used; -1: every CPU)")
    return g


def _model(args, verbose):
    from alignment.aligners.bayes import BAYES_DEFAULTS as D
    from alignment.aligners.bayes import MAX_SWEEPS, BayesianAligner

    if args.iterations is None:
        its = (D["ibm1_iterations"], D["hmm_iterations"], D["fertility_iterations"])
    else:
        try:
            its = tuple(int(x) for x in args.iterations.split(","))
        except ValueError:
            its = ()
        if len(its) != 3 or min(its) < 0 or sum(its) < 1 or max(its) > MAX_SWEEPS:
            raise UserError(f"--iterations must be three counts I,H,F (0 to {MAX_SWEEPS:,}, "
                            "not all 0), "
                            f"not {args.iterations!r}")
    if not 1 <= args.samplers <= MAX_SWEEPS:
        raise UserError(f"--samplers must be from 1 to {MAX_SWEEPS:,}")
    if not 0.0 < args.null_prob < 1.0:
        raise UserError(f"--null-prob must lie in (0, 1), not {args.null_prob}")
    if args.direction and args.symmetrize:
        raise UserError("give --direction or --symmetrize, not both")
    sym = {"intersect": "intersection"}.get(args.symmetrize, args.symmetrize)
    return BayesianAligner(ibm1_iterations=its[0], hmm_iterations=its[1],
                           fertility_iterations=its[2], n_samplers=args.samplers,
                           null_prob=args.null_prob, symmetrize=sym or D["symmetrize"],
                           lowercase=not args.no_lowercase and D["lowercase"],
                           prefix=args.prefix if D["prefix"] else 0,
                           random_state=args.seed, n_jobs=args.jobs,
                           verbose=verbose)


def align_bayes(args):
    """``structpred align unsupervised --model bayes`` (called by
    :func:`alignment.cli.unsupervised.align_unsupervised`)."""
    from structpred import open_output

    from alignment.data.formats import mark_written_by
    from alignment.aligners.unsupervised import training_text
    from alignment.cli.common import _read_input

    verbose = not args.quiet and sys.stderr.isatty()
    model = _model(args, verbose)
    pairs = _read_input(args)
    extra_src = extra_tgt = None
    if bool(args.bitext_src) != bool(args.bitext_tgt):
        raise UserError("give both --bitext-src and --bitext-tgt")
    if args.bitext_src:
        from alignment.cli.common import _load_extra_bitext

        bt = _load_extra_bitext(args)
        extra_src, extra_tgt = bt.src, bt.tgt
        if verbose:
            _log(args, f"extra bitext: {bt.report()}")
    src, tgt, index = training_text(pairs, extra_src, extra_tgt)
    del extra_src, extra_tgt
    release_notes()   # the inputs are read and checked: the lines held so far come now
    t0 = time.perf_counter()
    try:
        model.fit(src, tgt)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if verbose:
        _log(args, f"bayes: {counted(len(src), 'training pair')} sampled in "
                   f"{time.perf_counter() - t0:.0f}s")
    links = {"fwd": model.fwd_links_, "bwd": model.bwd_links_}.get(args.direction,
                                                                   model.links_)
    n_links = 0
    with open_output(args.output) as out:
        for n, i in enumerate(index):
            n_links += len(links[i])
            out.write(" ".join(f"{j}-{k}" for j, k in sorted(links[i])) + "\n")
            if args.output == "-" and n % 256 == 255:
                out.flush()
    mark_written_by(args.output, "structpred align unsupervised")
    if not n_links:
        _warn_no_links(args, len(index), len(src))
    return 0


def _warn_no_links(args, n_pairs, n_trained):
    """One warning line for output without a link: on a few sentence pairs (a pair alone,
    or 20 copies of one) the samplers' jump and fertility models leave every word to NULL,
    or the two directions never agree, and the output was empty lines with no word."""
    import warnings

    name = args.input or args.src
    more = "a larger" if args.bitext_src else "add"
    warnings.warn(f"{name}: the Bayesian aligner linked no word of its "
                  f"{counted(n_pairs, 'sentence pair')} (trained on "
                  f"{counted(n_trained, 'pair')}): its samplers need more text than this to "
                  f"link words (a few hundred pairs or more: {more} --bitext-src/--bitext-tgt, "
                  "or align with --model hmm)", stacklevel=2)
