"""The Hansards protocol of thesis ch. 3 (Table 3.1), shared by the CLI demo and the scripts.

The data are read by :mod:`alignment.data.hansards`, the rows formatted by
:mod:`alignment.evaluate.table`.

Train on the first 100 (and 200) of the NAACL 2003 test sentences (447 in the
bundled data), validate on the trial sentences (37), test on the ones after the
first 200 (247; and after the first 100 when training on 100).  Counts and labels
follow the data read (``--data-dir``); the thesis's figures are in the scripts
that compare with them (``scripts/reproduce_table_3_1.py``).

Everything computed from the bitext is cached in ``cache_dir`` under names made
from what computed it (:mod:`alignment._cache`), so caches of another bitext,
another number of pairs or other options never mix.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .aer import score_alignments
from ..data.hansards import MAX_LENGTH
from ..model import MODELS, MatchingAligner

__all__ = ["hansards_statistics", "hansards_interaction_statistics", "hansards_hmm",
           "hansards_hmm_lexicon", "hansards_setup", "external_cache_path", "run_protocol"]


def _folder(cache_dir):
    """The cache folder (created), or None for no caching."""
    if not cache_dir:
        return None
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    return str(Path(cache_dir)) + os.sep


def hansards_statistics(data, n_pairs, cache_dir=".cache", verbose=True, ibm_agreement=False):
    """Dice and IBM Model 1/2 statistics on the first ``n_pairs`` bitext lines
    (``None``: all of them), cached in ``cache_dir`` under a name made from everything
    that fixes them (``stats-<hash>.npz``, :mod:`alignment._cache`); ``ibm_agreement``
    trains the two IBM directions jointly by agreement (:func:`alignment.stats.ibm.train_agreement`).
    Pairs longer than 80 tokens are left out, except the gold sentences (the first
    :attr:`HansardsData.n_gold` lines)."""
    from ..stats.statistics import AlignmentStatistics

    return AlignmentStatistics.load_or_fit(_folder(cache_dir), data.bitext_src, data.bitext_tgt,
                                           max_pairs=n_pairs, verbose=verbose,
                                           max_len=MAX_LENGTH, protect_first=data.n_gold,
                                           agreement=ibm_agreement)


def hansards_interaction_statistics(data, stats, n_pairs, cache_dir=".cache", verbose=True,
                                    ibm_agreement=False, lexicon=""):
    """IBM Model 2 fertility and pattern shares (:mod:`alignment.stats.interactions`) of the
    first ``n_pairs`` bitext lines, cached next to the statistics
    (``interactions-<hash>.npz``: the name follows the bitext and the fingerprint of
    ``stats``' Model 2 tables, so statistics trained by agreement or with the HMM lexicon
    get their own file; ``ibm_agreement`` and ``lexicon`` are kept for compatibility and
    not needed)."""
    from ..stats.interactions import InteractionStatistics

    return InteractionStatistics.load_or_fit(_folder(cache_dir), stats, data.bitext_src,
                                             data.bitext_tgt, max_pairs=n_pairs,
                                             verbose=verbose, max_len=MAX_LENGTH,
                                             protect_first=data.n_gold)


def _hansards_hmm_tables(data, stats, n_pairs, cache_dir, n_iter, verbose, agreement,
                         ibm_agreement=False):
    """The HMM of :mod:`alignment.stats.hmm` trained on the first ``n_pairs`` bitext lines from
    ``stats``' Model 2 tables, read from / written to the cache (``hmm-<hash>.npz``)."""
    from .._cache import load_or_compute
    from ..stats.hmm import HMMTables, hmm_key, train_hmm_files

    kw = dict(max_pairs=n_pairs, max_len=MAX_LENGTH, protect_first=data.n_gold)

    def train():
        return train_hmm_files(stats, data.bitext_src, data.bitext_tgt, n_iter=n_iter,
                               verbose=verbose, agreement=agreement, **kw)

    folder = _folder(cache_dir)
    if folder is None:
        return train()
    key = hmm_key(stats, data.bitext_src, data.bitext_tgt, kw["max_pairs"], kw["max_len"],
                  kw["protect_first"], n_iter, agreement)
    return load_or_compute(folder, key, train, HMMTables.load, lambda obj, path: obj.save(path),
                           "hmm", verbose=verbose, what="HMM")


def hansards_hmm(data, stats, n_pairs, cache_dir=".cache", n_iter=5, verbose=True,
                 agreement=False, ibm_agreement=False):
    """Train (or read from the cache) the HMM of :mod:`alignment.stats.hmm` on the first
    ``n_pairs`` bitext lines, starting from ``stats``' Model 2 tables (both directions
    independently, or by agreement), and attach it to ``stats``
    (:meth:`AlignmentStatistics.with_hmm`); ``ibm_agreement`` tags the cache of
    statistics trained by agreement.  Returns ``stats``."""
    return stats.with_hmm(_hansards_hmm_tables(data, stats, n_pairs, cache_dir, n_iter, verbose,
                                               agreement, ibm_agreement))


def hansards_hmm_lexicon(data, stats, n_pairs, cache_dir=".cache", n_iter=5, verbose=True,
                         agreement=False, ibm_agreement=False, keep_hmm=False):
    """``stats`` with the translation tables of the HMM of :func:`hansards_hmm`
    (:meth:`AlignmentStatistics.with_lexicon`: Model 2 positions, HMM lexicon; with
    ``keep_hmm`` the same HMM is attached as well, adding its posterior features).
    ``stats`` itself is left as it is.  Returns ``(statistics, tag)``; pass the tag as
    ``lexicon`` to :func:`hansards_interaction_statistics`."""
    hmm = _hansards_hmm_tables(data, stats, n_pairs, cache_dir, n_iter, verbose, agreement,
                               ibm_agreement)
    lex = stats.with_lexicon(hmm)
    return (lex.with_hmm(hmm) if keep_hmm else lex), f"hmm{n_iter}{'agree' if agreement else ''}"


def hansards_setup(data, n_pairs, cache_dir=".cache", verbose=True, ibm_agreement=False,
                   hmm=0, hmm_agreement=False, hmm_features=True, hmm_lexicon=False,
                   interactions=True):
    """Everything the Hansards experiments compute from the bitext, cached:
    :func:`hansards_statistics`, then with ``hmm`` (EM iterations, 0: none) the HMM, used
    through its posterior features (``hmm_features``), its lexicon (``hmm_lexicon``,
    :func:`hansards_hmm_lexicon`) or both, and with ``interactions`` the
    :func:`hansards_interaction_statistics` of the resulting Model 2 tables.

    Returns ``(statistics, interaction statistics or None)``.
    """
    if hmm_lexicon and not hmm:
        raise ValueError("hmm_lexicon needs hmm > 0 (the HMM's EM iterations)")
    stats = hansards_statistics(data, n_pairs, cache_dir=cache_dir, verbose=verbose,
                                ibm_agreement=ibm_agreement)
    lexicon = ""
    hmm_kw = dict(cache_dir=cache_dir, n_iter=hmm, verbose=verbose, agreement=hmm_agreement,
                  ibm_agreement=ibm_agreement)
    if hmm_lexicon:
        stats, lexicon = hansards_hmm_lexicon(data, stats, n_pairs, keep_hmm=hmm_features,
                                              **hmm_kw)
    elif hmm and hmm_features:
        hansards_hmm(data, stats, n_pairs, **hmm_kw)
    inter = (hansards_interaction_statistics(data, stats, n_pairs, cache_dir=cache_dir,
                                             verbose=verbose, ibm_agreement=ibm_agreement,
                                             lexicon=lexicon)
             if interactions else None)
    return stats, inter


def external_cache_path(data, cache_dir=".cache"):
    """Default cache of the external aligners' links (``scripts/run_external_aligners.py``)."""
    return Path(cache_dir) / f"external-hansards{data.cache_tag}.tsv.gz"


def run_protocol(data, stats, learners=("dual-extragradient",), train_sizes=(100, 200),
                 n_iter=200, cost_pos=1.0, cost_neg=3.0, verbose=True, models=("M",),
                 interaction_stats=None, test_from=200, reference=None, **model_params):
    """Train/validate/test as in ch. 3; returns result rows and the fitted models,
    keyed by ``(model name, learner, n_train)``.

    Each model is tested on the test sentences after the first ``test_from`` (and,
    when trained on fewer, after its training sentences too); the rows' ``"test"``
    labels count them (``"247 (last)"`` on the bundled data).  ``reference``: figures
    to show next to the AER, ``{(model, learner, n_train): AER in %}`` (e.g. the
    thesis's, in ``scripts/reproduce_table_3_1.py``), for the ``test_from`` rows."""
    if len(data.test_pairs) <= max(train_sizes):
        raise ValueError(f"{len(data.test_pairs)} test sentences: none left to test on after "
                         f"training on {max(train_sizes)}")
    rows, fitted = [], {}
    for name, learner, n_train in ((m, lr, n) for m in models for lr in learners
                                   for n in train_sizes):
        D, Q = MODELS[name]
        t0 = time.perf_counter()
        model = MatchingAligner(max_fertility=D, interactions=Q, learner=learner,
                                n_iter=n_iter, cost_pos=cost_pos, cost_neg=cost_neg,
                                verbose=verbose, **model_params)
        model.fit(data.test_pairs[:n_train], data.test_gold[:n_train], stats,
                  eval_set=(data.trial_pairs, data.trial_gold),
                  interaction_stats=interaction_stats)
        seconds = time.perf_counter() - t0
        fitted[(name, learner, n_train)] = model
        n_test = len(data.test_pairs)
        starts = [test_from] if n_train <= test_from < n_test else []
        if n_train < test_from:
            starts.append(n_train)
        for start in starts:
            label = f"{n_test - start} (last)"
            pred = model.predict(data.test_pairs[start:])
            score = score_alignments(pred, data.test_gold[start:])
            rows.append({"model": name, "learner": learner, "train": n_train, "test": label,
                         "precision": 100 * score.precision, "recall": 100 * score.recall,
                         "aer": 100 * score.aer, "best_iter": model.result_.best_iter,
                         "valid_aer": 100 * model.result_.best_score, "seconds": seconds,
                         "thesis": ((reference or {}).get((name, learner, n_train))
                                    if start == test_from else None)})
    return rows, fitted
