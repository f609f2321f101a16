"""The Hansards protocol of thesis ch. 3, shared by the CLI demo and the scripts.

Train on the first 100 (and 200) of the 447 NAACL 2003 test sentences,
validate on the 37 trial sentences, test on the remaining 247 (and on the
last 347 when training on 100).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .aer import score_alignments
from .formats import read_naacl, read_parallel
from .model import MODELS, MatchingAligner

__all__ = ["default_data_dir", "shared_hansards_dir", "load_hansards", "hansards_statistics",
           "hansards_interaction_statistics", "hansards_hmm", "hansards_hmm_lexicon", "hansards_setup",
           "external_cache_path", "run_protocol", "format_table", "THESIS_AER",
           "BITEXTS"]

#: Named Hansards bitexts: ``"36-2"`` (231,648 pairs, bundled in ``data/hansards``) and
#: ``"full"`` (1,130,588 pairs, read from ``../shared/data/alignment/hansards_en-fr``; too
#: large to bundle).  Both start with the 484 trial + test gold sentences.
BITEXTS = ("36-2", "full")

#: Thesis figures for model M (Table 3.1 and sec. 2.6.2), AER in percent.
THESIS_AER = {
    ("M", "dual-extragradient", 100): 8.5, ("M", "dual-extragradient", 200): 8.2,
    ("M+F", "dual-extragradient", 100): 8.1, ("M+F", "dual-extragradient", 200): 8.0,
    ("M+Q", "dual-extragradient", 100): 6.7, ("M+Q", "dual-extragradient", 200): 6.8,
    ("M+F+Q", "dual-extragradient", 100): 6.2, ("M+F+Q", "dual-extragradient", 200): 6.1,
}


def default_data_dir():
    return Path(__file__).resolve().parent.parent / "data" / "hansards"


def shared_hansards_dir():
    """``../shared/data/alignment/hansards_en-fr`` next to the repository (the full bitext)."""
    return Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "alignment" / \
        "hansards_en-fr"


@dataclass
class HansardsData:
    trial_pairs: list
    trial_gold: list
    test_pairs: list
    test_gold: list
    bitext_src: Path
    bitext_tgt: Path
    bitext: str = "36-2"

    @property
    def cache_tag(self):
        """Suffix of cache file names: empty for the bundled bitext (the historical names),
        ``"-full"`` etc. otherwise, so caches of different bitexts never mix."""
        return "" if self.bitext == "36-2" else f"-{self.bitext}"


def load_hansards(data_dir=None, bitext="36-2"):
    """The trial and test gold sets and the paths of the unlabeled bitext.

    Parameters
    ----------
    data_dir : path, optional
        Folder of ``trial.*``, ``test.*`` and the bitext (default: ``data/hansards``).
    bitext : {"36-2", "full"}
        Which bitext: the bundled 231k pairs, or the full 1.13M pairs, looked up in
        ``data_dir`` and then in :func:`shared_hansards_dir`.
    """
    if bitext not in BITEXTS:
        raise ValueError(f"unknown Hansards bitext {bitext!r}; expected one of {BITEXTS}")
    d = Path(data_dir) if data_dir else default_data_dir()

    def find(name, dirs=(d,)):
        for folder in dirs:
            for cand in (folder / f"{name}.gz", folder / name):
                if cand.exists():
                    return cand
        raise FileNotFoundError(f"{', '.join(map(str, dirs))}: missing {name}[.gz]")

    trial = read_parallel(find("trial.en"), find("trial.fr"))
    test = read_parallel(find("test.en"), find("test.fr"))
    dirs = (d,) if bitext == "36-2" else (d, shared_hansards_dir())
    return HansardsData(trial, read_naacl(find("trial.naacl"), trial),
                        test, read_naacl(find("test.naacl"), test),
                        find(f"bitext.{bitext}.en", dirs), find(f"bitext.{bitext}.fr", dirs),
                        bitext)


def _ibm_tag(n_pairs, ibm_agreement, lexicon=""):
    return (f"{'all' if n_pairs is None else n_pairs}{'-ibmagree' if ibm_agreement else ''}"
            f"{'-lex' + lexicon if lexicon else ''}")


def hansards_statistics(data, n_pairs, cache_dir=".cache", verbose=True, ibm_agreement=False):
    """Dice and IBM Model 1/2 statistics on the first ``n_pairs`` bitext lines
    (``None``: all of them), cached in ``cache_dir``; ``ibm_agreement`` trains the two
    IBM directions jointly by agreement (:func:`alignment.ibm.train_agreement`)."""
    from .statistics import AlignmentStatistics

    name = f"hansards-stats{data.cache_tag}-{_ibm_tag(n_pairs, ibm_agreement)}.npz"
    return AlignmentStatistics.load_or_fit(Path(cache_dir) / name if cache_dir else None,
                                           data.bitext_src, data.bitext_tgt, max_pairs=n_pairs,
                                           verbose=verbose, agreement=ibm_agreement)


def hansards_interaction_statistics(data, stats, n_pairs, cache_dir=".cache", verbose=True,
                                    ibm_agreement=False, lexicon=""):
    """IBM Model 2 fertility and pattern shares (:mod:`alignment.interactions`) of the
    first ``n_pairs`` bitext lines, cached next to the statistics (``ibm_agreement``:
    the tag of statistics trained by agreement, as in :func:`hansards_statistics`;
    ``lexicon``: a tag for statistics whose translation tables were replaced, see
    :func:`hansards_hmm_lexicon`)."""
    from .interactions import InteractionStatistics

    name = (f"hansards-interactions{data.cache_tag}-"
            f"{_ibm_tag(n_pairs, ibm_agreement, lexicon)}.npz")
    return InteractionStatistics.load_or_fit(Path(cache_dir) / name if cache_dir else None,
                                             stats, data.bitext_src, data.bitext_tgt,
                                             max_pairs=n_pairs, verbose=verbose)


def _hansards_hmm_tables(data, stats, n_pairs, cache_dir, n_iter, verbose, agreement,
                         ibm_agreement):
    """The HMM of :mod:`alignment.hmm` trained on the first ``n_pairs`` bitext lines from
    ``stats``' Model 2 tables, read from / written to the cache."""
    from .hmm import HMMTables, train_hmm_files

    name = (f"hansards-hmm{data.cache_tag}-{_ibm_tag(n_pairs, ibm_agreement)}"
            f"-{n_iter}{'-agree' if agreement else ''}.npz")
    path = Path(cache_dir) / name if cache_dir else None
    if path is not None and path.exists():
        return HMMTables.load(path)
    hmm = train_hmm_files(stats, data.bitext_src, data.bitext_tgt, max_pairs=n_pairs,
                          n_iter=n_iter, verbose=verbose, agreement=agreement)
    if path is not None:
        hmm.save(path)
    return hmm


def hansards_hmm(data, stats, n_pairs, cache_dir=".cache", n_iter=5, verbose=True,
                 agreement=False, ibm_agreement=False):
    """Train (or read from the cache) the HMM of :mod:`alignment.hmm` on the first
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
                 interaction_stats=None, **model_params):
    """Train/validate/test as in ch. 3; returns result rows and the fitted models,
    keyed by ``(model name, learner, n_train)``."""
    rows, fitted = [], {}
    for name, learner, n_train in ((m, lr, n) for m in models for lr in learners
                                   for n in train_sizes):
        D, Q = MODELS[name]
        t0 = time.perf_counter()
        model = MatchingAligner(max_fertility=D, interactions=Q, learner=learner,
                                n_iter=n_iter, cost_pos=cost_pos, cost_neg=cost_neg,
                                verbose=verbose, **model_params)
        model.fit(data.test_pairs[:n_train], data.test_gold[:n_train], stats,
                  valid_pairs=data.trial_pairs, valid_gold=data.trial_gold,
                  interaction_stats=interaction_stats)
        seconds = time.perf_counter() - t0
        fitted[(name, learner, n_train)] = model
        test_sets = [(200, "247 (last)")] if n_train <= 200 else []
        if n_train == 100:
            test_sets.append((100, "347 (last)"))
        for start, label in test_sets:
            pred = model.predict(data.test_pairs[start:])
            score = score_alignments(pred, data.test_gold[start:])
            rows.append({"model": name, "learner": learner, "train": n_train, "test": label,
                         "precision": 100 * score.precision, "recall": 100 * score.recall,
                         "aer": 100 * score.aer, "best_iter": model.result_.best_iter,
                         "valid_aer": 100 * model.result_.best_score, "seconds": seconds,
                         "thesis": (THESIS_AER.get((name, learner, n_train))
                                    if start == 200 else None)})
    return rows, fitted


def format_table(rows):
    head = ("| model | learner | train | test | precision | recall | AER | thesis AER | "
            "valid AER | best iter | train time (s) |")
    lines = [head, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        thesis = f"{r['thesis']:.1f}" if r.get("thesis") is not None else "–"
        lines.append(f"| {r.get('model', 'M')} | {r['learner']} | {r['train']} | {r['test']} | "
                     f"{r['precision']:.1f} | "
                     f"{r['recall']:.1f} | {r['aer']:.1f} | {thesis} | {r['valid_aer']:.1f} | "
                     f"{r['best_iter']} | {r['seconds']:.0f} |")
    return "\n".join(lines)
