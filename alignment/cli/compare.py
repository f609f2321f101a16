"""``structpred align compare``: our aligners beside eflomal and fast_align (``make demo``).

On the Hansards (the bundled data, or ``--data-dir``) it trains and runs, on the same
unlabeled bitext and the same held-out sentences (the last 247 gold test sentences):

* eflomal alone (its intersection, the best of its symmetrisations there) and fast_align
  alone (its symmetrised output), when the ``aligners`` extra is installed;
* ``structpred align unsupervised`` with its defaults (our HMM trained by agreement) and
  with ``--model bayes`` (our seeded Bayesian aligner, intersection);
* model M with the thesis's features (``align train --preset thesis``);
* our default (``align train`` with data arguments only: model M with the built-in
  sources, our HMM and our Bayesian aligner, as features, early-stopped on validation);

the two supervised ones on the first 100 test sentences, validated on the 37 trial
sentences.  It prints precision, recall and AER of each, and the seconds each step took.
Everything is cached in ``--cache-dir`` (statistics, our HMM, the other aligners' runs),
so a second run takes seconds.

Registered from :func:`alignment.cli.add_align_parser` by :func:`add_compare_parser`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, log as _log
from structpred.cli import positive_int, wrap_format_errors as _wrap_format_errors
from structpred.io import release_notes

from .common import _cache_default, _option_name

__all__ = ["add_compare_parser", "align_compare", "DEMO_BITEXT_PAIRS"]

#: bitext pairs of ``make demo`` (under 10 minutes on a fresh 2-core machine)
DEMO_BITEXT_PAIRS = 50_000


def add_compare_parser(asub):
    """Add ``compare`` to the ``structpred align`` subparsers ``asub``."""
    p = asub.add_parser(
        "compare", formatter_class=_Formatter,
        help="our aligners beside eflomal and fast_align on the Hansards (make demo)",
        description="Train and run eflomal, fast_align, 'align unsupervised', model M with "
                    "the thesis's features and the default 'align train' on the same "
                    "Hansards bitext, and print precision, recall and AER on the last 247 "
                    "gold test sentences (training: the first 100; validation: the 37 "
                    "trial sentences).")
    p.add_argument("--data-dir", default=None,
                   help="folder with the Hansards files (default: the bundled data/hansards)")
    p.add_argument("--bitext-pairs", default=str(DEMO_BITEXT_PAIRS), metavar="N|all",
                   help=f"unlabeled bitext pairs every aligner trains on (default "
                        f"{DEMO_BITEXT_PAIRS}, which keeps the run under 10 minutes on 2 "
                        "cores; 'all' = the 231,648 pairs of the results page)")
    p.add_argument("--first", type=positive_int, default=100, metavar="N",
                   help="gold test sentences to train the supervised models on")
    p.add_argument("--cache-dir", default=_cache_default(),
                   metavar="DIR", help="where statistics and aligner runs are cached")
    _add_quiet(p)
    p.set_defaults(handler=align_compare)
    return p


def _row(name, links, gold, seconds, note=""):
    from alignment.evaluate.aer import score_alignments

    s = score_alignments(links, gold)
    return (name, 100 * s.precision, 100 * s.recall, 100 * s.aer, seconds, note)


def format_rows(rows):
    head = "| system | precision | recall | **AER** | seconds |\n|---|---:|---:|---:|---:|"
    body = [f"| {n} | {p:.2f} | {r:.2f} | **{a:.2f}** | {s:.0f}{(' ' + note) if note else ''} |"
            for n, p, r, a, s, note in rows]
    return "\n".join([head] + body)


@_wrap_format_errors
def align_compare(args):
    """``structpred align compare``."""
    from alignment.features.links import AlignerLinks, resolve_sources
    from alignment.model import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics
    from alignment.aligners.unsupervised import DEFAULTS

    n_pairs, cache = _check_compare_args(args)
    t0 = time.perf_counter()
    data, (train, train_gold), (valid, valid_gold), (test, test_gold), (bsrc, btgt) = \
        _compare_data(args, n_pairs)
    release_notes()   # the inputs are checked: the work begins
    verbose = not args.quiet
    sources = resolve_sources("auto")
    # our HMM, our Bayesian aligner and the external aligners, on the bitext plus every
    # sentence scored below (the default's features are the built-in ones)
    ta = time.perf_counter()
    links = AlignerLinks.from_sources(sources, train + valid + test, bsrc, btgt, cache_dir=cache,
                             verbose=verbose)
    t_links = time.perf_counter() - ta
    rows = _unsupervised_rows(links, test, test_gold)
    ts = time.perf_counter()
    stats = AlignmentStatistics.load_or_fit(str(cache / "stats") + os.sep, data.bitext_src,
                                            data.bitext_tgt, max_pairs=n_pairs,
                                            verbose=verbose)
    t_stats = time.perf_counter() - ts
    tt = time.perf_counter()
    thesis = MatchingAligner(n_iter=200, verbose=verbose).fit(
        train, train_gold, stats, eval_set=(valid, valid_gold))
    rows.append(_row(f"model M, thesis features ({args.first} gold sentences)",
                     thesis.predict(test), test_gold, t_stats + time.perf_counter() - tt))
    td = time.perf_counter()
    builtin = resolve_sources()
    default = MatchingAligner(aligners=builtin, n_iter=1000, patience=10, verbose=verbose)
    default.fit(train, train_gold, stats, eval_set=(valid, valid_gold),
                aligner_links=links.subset(builtin))
    rows.append(_row(f"**ours: align train default** ({args.first} gold sentences)",
                     default.predict(test), test_gold,
                     t_stats + t_links + time.perf_counter() - td))
    print(f"Word alignment on the Hansards: {len(bsrc)} unlabeled bitext pairs, "
          f"test = the last {len(test)} gold test sentences; supervised models trained on the "
          f"first {args.first} and validated on the {len(valid)} trial sentences; "
          f"aligners as features of the default: {', '.join(builtin)}; unsupervised decoding "
          f"{DEFAULTS['symmetrize']} at {DEFAULTS['threshold']}; scores in %\n")
    print(format_rows(rows), flush=True)
    _log(args, f"done in {time.perf_counter() - t0:.0f}s (seconds: the step's own time; "
               "cached steps show the time of the run that made them)")
    return 0


def _check_compare_args(args):
    """``(bitext pairs or None, cache folder)`` from the options, checked."""
    if args.data_dir is not None and not Path(args.data_dir).is_dir():
        raise UserError(f"{args.data_dir}: --data-dir is not a folder")
    n_pairs = None
    if args.bitext_pairs.strip().lower() != "all":   # 'ALL' was "expected a number or 'all'"
        try:
            n_pairs = int(args.bitext_pairs)
        except ValueError:
            raise UserError(f"--bitext-pairs: expected a number or 'all', got "
                            f"{args.bitext_pairs!r}") from None
        if n_pairs < 1:
            raise UserError("--bitext-pairs must be at least 1")
    cache = Path(args.cache_dir)
    if cache.exists() and not cache.is_dir():
        raise UserError(f"{cache}: {_option_name(args.cache_dir, '--cache-dir')} is not a "
                        "folder")
    return n_pairs, cache


def _compare_data(args, n_pairs):
    """The Hansards and the splits of the comparison: ``(data, train, valid, test,
    bitext)``, each split a ``(pairs, gold)`` pair and the bitext ``(src, tgt)``."""
    from alignment.data.formats import read_parallel
    from alignment.data.hansards import load_hansards

    data = load_hansards(args.data_dir)
    if len(data.test_pairs) < args.first + 1 or not data.trial_pairs:
        raise UserError(f"{args.data_dir or 'data/hansards'}: needs trial sentences and more "
                        f"than {args.first} test sentences")
    n_test = min(247, len(data.test_pairs) - args.first)
    train = data.test_pairs[:args.first], data.test_gold[:args.first]
    test = data.test_pairs[-n_test:], data.test_gold[-n_test:]
    valid = data.trial_pairs, data.trial_gold
    bt = read_parallel(data.bitext_src, data.bitext_tgt)
    if n_pairs is not None:
        if n_pairs > len(bt):
            raise UserError(f"--bitext-pairs {n_pairs}: out of range, the bitext "
                            f"{data.bitext_src} has {len(bt)} pairs")
        bt = bt[:n_pairs]
    bt = [(s, t) for s, t in bt if s and t]
    return data, train, valid, test, ([s for s, _ in bt], [t for _, t in bt])


def _unsupervised_rows(links, test, test_gold):
    """The rows of eflomal, fast_align (or why they are missing) and our unsupervised
    aligner on the test sentences."""
    rows = []
    for name, label, view in (("eflomal", "eflomal alone (intersection)", "intersection"),
                              ("fast_align", "fast_align alone (symmetrised)", "sym"),
                              ("bayes", "ours: align unsupervised --model bayes "
                                        "(intersection)", "intersection")):
        if name in links.runs:
            run = links.runs[name]
            idx = [links.position(s, t) for s, t in test]
            rows.append(_row(label, run.links(view, idx), test_gold,
                             run.seconds, "(run once, cached)" if run.from_cache else ""))
        else:
            rows.append((label, float("nan"), float("nan"), float("nan"), 0,
                         "(not installed: pip install 'structpred[aligners]')"))
    un = links.unsupervised
    rows.append(_row("ours: align unsupervised (HMM by agreement)",
                     [un.align_pair(s, t)[0] for s, t in test], test_gold,
                     sum(v for k, v in un.seconds_.items() if k in ("ibm", "hmm"))))
    return rows
