"""``structpred align demo``: the Hansards protocol of thesis ch. 3 (Table 3.1)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from structpred.cli import UserError, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_output
from structpred.io import release_notes

from .common import _check_cache_path, _summary

__all__ = ["align_demo"]


@_wrap_format_errors
def align_demo(args):
    """``structpred align demo``: the ch. 3 protocol on the bundled Hansards."""
    from alignment.evaluate.table import format_table
    from alignment.evaluate.protocol import hansards_setup, run_protocol
    from alignment.data.hansards import load_hansards
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
        check_output(args.plot, "--plot", create_parent=True, figure=True)
    if args.cache_dir:
        if Path(args.cache_dir).exists() and not Path(args.cache_dir).is_dir():
            raise UserError(f"{args.cache_dir}: --cache-dir is not a folder")
        _check_cache_path(str(args.cache_dir) + os.sep, "--cache-dir", [])
    data = load_hansards(args.data_dir)
    if args.bitext_pairs is not None:
        from structpred.io import file_fingerprint

        n = file_fingerprint(data.bitext_src)["lines"]
        if args.bitext_pairs > n:
            raise UserError(f"--bitext-pairs {args.bitext_pairs}: out of range, the bitext "
                            f"{data.bitext_src} has {n} pairs")
    if len(data.test_pairs) <= 200 or not data.trial_pairs:
        raise UserError(f"{args.data_dir or 'data/hansards'}: the protocol needs trial "
                        f"sentences and more than 200 test sentences "
                        f"(found {len(data.trial_pairs)} and {len(data.test_pairs)})")
    release_notes()   # the inputs are checked: the work begins
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
