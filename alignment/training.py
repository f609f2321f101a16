"""Training the default aligner in one call: :func:`train_aligner`.

The pipeline of ``structpred align train``, as a library function: from the training
sentences with their gold (or automatic labels), the validation sentences, the statistics
of the unlabeled bitext and the bitext itself, it builds the other aligners' outputs
(:class:`~alignment.features.links.AlignerLinks`, cached by fingerprint), the labels
(``labels=``), the grid of false-negative costs c- and the model variants, fits them and
keeps the choice made on validation with the paired-bootstrap guard
(:func:`alignment.selection.choose_aligner`, :mod:`structpred.selection`).  It returns the
fitted :class:`~alignment.model.MatchingAligner` and a :class:`TrainingReport` saying what
was chosen and why.

Example (seconds on the bundled Hansards)::

    from alignment import AlignmentStatistics, train_aligner
    from alignment.data.hansards import load_hansards

    data = load_hansards()
    stats = AlignmentStatistics.from_files(data.bitext_src, data.bitext_tgt, max_pairs=5000)
    model, report = train_aligner(data.test_pairs[:20], data.test_gold[:20], stats=stats,
                                  eval_set=(data.trial_pairs, data.trial_gold), n_iter=5)
    print("\\n".join(report.lines()))

(without ``bitext=`` no other aligner is used; docs/library.md has the example with them).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from structpred import check_n_jobs, resolve_seed
from structpred.io import counted

from ._runtime import log as _log

__all__ = ["train_aligner", "start_aligner_runs", "TrainingReport", "C_NEG_GRID"]

#: the false-negative costs tried by default (the thesis's 3 first)
C_NEG_GRID = (3.0, 2.0, 5.0)


@dataclass
class TrainingReport:
    """What :func:`train_aligner` did: what it chose and why, times and sizes.

    Attributes
    ----------
    model_name : str
        The kept model (``"M"``, ``"M+F+Q"``...).
    choices : list of str
        One line per choice made on validation (:func:`structpred.selection.describe_choice`:
        every candidate's validation AER and the bootstrap evidence).
    n_train, n_valid : int
        Training and validation sentences.
    labels : str or None
        The labeller of the training sentences when there was no gold.
    aligners : str
        The other aligners used as features (``"none"``, or their versions and runs).
    statistics : str
        :meth:`AlignmentStatistics.summary` of the statistics.
    learner_message : str
        How the kept fit ended (:class:`structpred.SolverResult` message).
    best_iter : int or None
        The kept iteration (validation AER) of the kept fit.
    best_score : float or None
        Its validation AER.
    seconds : dict of str to float
        ``"aligners"`` (other aligners and labels) and ``"training"`` (every fit).
    """

    model_name: str
    choices: list = field(default_factory=list)
    n_train: int = 0
    n_valid: int = 0
    labels: str | None = None
    aligners: str = "none"
    statistics: str = ""
    learner_message: str = ""
    best_iter: int | None = None
    best_score: float | None = None
    seconds: dict = field(default_factory=dict)

    def lines(self):
        """The summary lines ``align train`` prints."""
        out = []
        if self.labels:
            out.append(f"labels: {self.labels} on the {counted(self.n_train, 'training sentence')} "
                       "(no gold)")
        out += self.choices
        msg = (f"trained model {self.model_name} on {counted(self.n_train, 'sentence')} in "
               f"{self.seconds.get('training', 0.0):.1f}s ({self.learner_message})")
        if self.best_iter is not None and self.n_valid:
            msg += (f"; best validation AER {100 * self.best_score:.2f}% at iteration "
                    f"{self.best_iter}")
        out.append(msg)
        if self.statistics:
            out.append(self.statistics)
        out.append("aligners as features: " + self.aligners)
        return out


def train_aligner(pairs, gold=None, *, stats, eval_set=None, bitext=None, aligners="default",
                  labels=None, model="auto", max_fertility=None, c_neg="auto", preset=None,
                  interaction_stats=None, external=None, cache_dir=".cache", max_len=80,
                  n_iter=None, jobs=1, executor=None, random_state=0, started=None,
                  verbose=False, **params):
    """Train the default aligner (or the one the options name) and say what was chosen.

    Parameters
    ----------
    pairs : list of (src_tokens, tgt_tokens)
        Training sentences.
    gold : list of :class:`~alignment.data.formats.Alignment`, optional
        Their gold alignments; without gold, ``labels`` names the labeller.
    stats : :class:`~alignment.stats.statistics.AlignmentStatistics`
        The statistics of the unlabeled bitext (``AlignmentStatistics.from_files``).
    eval_set : (pairs, gold), optional
        Validation sentences: each fit keeps its best iteration on them, and with them c-
        and the model are chosen (unless ``preset="thesis"``).
    bitext : (src_sentences, tgt_sentences), optional
        The unlabeled bitext (token lists) the other aligners run on (with ``pairs`` and
        the validation sentences), and the interaction statistics are counted on.
    aligners : str or iterable of str
        The other aligners as features (:func:`alignment.features.links.resolve_sources`):
        ``"default"`` (the built-in sources: our HMM and our Bayesian aligner, seeded with
        ``random_state``), ``"auto"`` (those and every installed external aligner),
        ``"none"`` (our HMM only), or names.
        They need ``bitext``; without it, none is used.
    labels : {None, "hmm", "eflomal"}
        Train without gold on the labeller's links (it is then left out of the features).
    model : str
        ``"auto"`` (M, then M+F+Q at the chosen c- when there are validation sentences,
        kept only if clearly better) or one of :data:`alignment.model.MODELS`.
    max_fertility : int, optional
        ``D`` of the +F models.
    c_neg : "auto" or sequence of float
        The false-negative costs to choose from (the first is the default); ``"auto"``:
        :data:`C_NEG_GRID` with validation sentences, else 3.
    preset : {None, "default", "thesis"}
        ``"thesis"``: the thesis's setting: no other aligners, no choice, no early stopping, 200 iterations.
    interaction_stats : InteractionStatistics or callable, optional
        The +F/+Q models' statistics, or a function of ``stats`` that gives them (called
        only when such a model is fitted); default: counted on ``bitext``.
    external : :class:`~alignment.aligners.linkfiles.ExternalAlignments`, optional
        Other aligners' link files covering the training and validation sentences.
    cache_dir : path
        Where the other aligners' runs are cached.
    max_len : int
        Longest sentence our HMM is trained on.
    n_iter : int, optional
        Iterations of each fit (default 1000 with validation sentences, else 200).
    jobs : int or None
        c- candidates fitted at once (forked processes; ``None``: 1, as scikit-learn reads
        an ``n_jobs``).
    executor : optional
        Where the learner's passes run (:func:`structpred.run_learner`).
    random_state : int, None, numpy RandomState or Generator
        Seed of the Bayesian aligner's run and of the fits (an instance: the seed
        :func:`structpred.resolve_seed` draws from it, once; ``None``: fresh entropy).
    started : dict, optional
        Aligner runs already going on (:func:`start_aligner_runs` on the same arguments):
        with it, the Bayesian aligner's run can overlap the caller's statistics.
    verbose : bool
        Progress on stderr.
    **params
        Further :class:`~alignment.model.MatchingAligner` hyperparameters (``decoder``,
        ``pair_candidates``, ``cost_pos``, ``possible_cost``, ``learner``,
        ``validate_every``, ``patience`` (default 10; ``None`` with the thesis preset),
        ``exclude_features``, ``include_features``, ``n_frequent``).

    Returns
    -------
    (MatchingAligner, TrainingReport)
    """
    from .evaluate.aer import sentence_counts
    from .model import MODELS
    from .selection import choose_aligner

    valid_pairs, valid_gold = eval_set if eval_set is not None else (None, None)
    thesis = preset == "thesis"
    if preset not in (None, "default", "thesis"):
        raise ValueError(f"unknown preset {preset!r} (known: default, thesis)")
    if gold is None and not labels:
        raise ValueError("give the gold alignments or a labeller (labels='hmm'|'eflomal')")
    if labels and bitext is None:
        raise ValueError(f"labels={labels!r} needs the bitext to run the labeller on")
    t0 = time.perf_counter()
    random_state = resolve_seed(random_state)   # a RandomState: one seed for the runs and fits
    auto_model = model == "auto"
    choose = valid_pairs is not None and not thesis
    extended = "M+F+Q" if auto_model and choose else None
    if extended and interaction_stats is None and bitext is None:
        _log(verbose, "model auto: M only (M+F+Q needs the bitext or interaction_stats)")
        extended = None
    inter = _InteractionCache(interaction_stats, stats, bitext, verbose)
    if extended and executor is None and check_n_jobs(jobs, "jobs") > 1:
        inter.start()   # counted beside our HMM's training, for the M+F+Q candidate
    gold, links, sources = _aligner_features(pairs, gold, valid_pairs, bitext, aligners,
                                             labels, thesis, cache_dir, max_len, verbose,
                                             random_state=random_state,
                                             jobs=check_n_jobs(jobs, "jobs"), started=started)
    t1 = time.perf_counter()
    D, Q = MODELS["M" if auto_model else model]
    if max_fertility is not None:
        if D == 1:
            raise ValueError(f"max_fertility needs a +F model, not {model}")
        D = max_fertility
    n_iter = n_iter or (1000 if valid_pairs is not None and not thesis else 200)
    c_negs = tuple(C_NEG_GRID if choose else (3.0,)) if c_neg == "auto" else tuple(c_neg)
    if len(c_negs) > 1 and valid_pairs is None:
        raise ValueError("several c- values need validation sentences to choose from")
    jobs = 1 if executor is not None else check_n_jobs(jobs, "jobs")   # -1: every CPU
    quiet_fits = len(c_negs) > 1 and jobs > 1
    inter.wait()   # no thread may run while the candidates are fitted in forked processes
    base = dict(params, aligners=sources, use_external=external is not None, n_iter=n_iter,
                random_state=random_state)
    # early stopping after 10 validations without progress, as align train (not the thesis)
    base["patience"] = None if thesis else base.get("patience", 10)

    def make(c, variant):
        return _make_model(base, D, Q, c, variant, verbose and not (quiet_fits and variant is None))

    def fit(m):
        m.fit(pairs, gold, stats=stats, eval_set=eval_set,
              interaction_stats=inter.get() if m._extended else None, external=external,
              aligner_links=links, executor=executor)

    _log(verbose, f"training model {make(c_negs[0], None).model_name} with "
                  f"{base.get('learner', 'dual-extragradient')} on "
                  f"{counted(len(pairs), 'sentence')} "
                  f"(at most {counted(n_iter, 'iteration')}"
                  + (f"; c- in {', '.join(f'{c:g}' for c in c_negs)}, "
                     f"{min(jobs, len(c_negs))} at once" if len(c_negs) > 1 else "")
                  + (f"; then {extended} at the chosen c-" if extended else "") + ")")
    fitted, choices = choose_aligner(
        make, fit, c_negs, lambda m: sentence_counts(_predict_bounded(m, valid_pairs), valid_gold),
        jobs=jobs, extended=extended)
    res = fitted.result_
    report = TrainingReport(
        model_name=fitted.model_name, choices=list(choices), n_train=len(pairs),
        n_valid=len(valid_pairs or ()), labels=labels or None,
        aligners=describe_sources(links) if links is not None else "none",
        statistics=stats.summary(), learner_message=res.message, best_iter=res.best_iter,
        best_score=res.best_score,
        seconds={"aligners": t1 - t0, "training": time.perf_counter() - t1})
    return fitted, report


def _make_model(base, D, Q, c_neg, variant, verbose):
    """A candidate of :func:`train_aligner`: the base model (``variant=None``) or
    ``variant`` (``"M+F+Q"``) at ``c_neg``."""
    from .model import MODELS, MatchingAligner

    params = dict(base)
    d, q = (D, Q) if variant is None else MODELS[variant]
    # M+F+Q tried by model="auto": the pair candidates cheap cues propose (a 20x smaller
    # QP) unless pair_candidates says otherwise
    if params.get("pair_candidates") is None:
        params["pair_candidates"] = "likely" if variant is not None else "all"
    return MatchingAligner(max_fertility=d if variant is None else max(d, 2), interactions=q,
                           cost_neg=c_neg, verbose=verbose, **params)


class _InteractionCache:
    """The interaction statistics, built once and only when a +F/+Q model needs them, or
    in a background thread from :meth:`start` (the same statistics: only the time at which
    they are counted differs)."""

    def __init__(self, given, stats, bitext, verbose):
        self.given, self.stats, self.bitext, self.verbose = given, stats, bitext, verbose
        self.value, self._thread, self._error = None, None, None

    def start(self):
        """Count them in a daemon thread now; :meth:`get` waits for it."""
        import threading

        def build():
            try:
                self._build()
            except BaseException as exc:  # noqa: B902 - raised by get(), in the main thread
                self._error = exc

        self._thread = threading.Thread(target=build, daemon=True)
        self._thread.start()

    def wait(self):
        """Wait for the thread of :meth:`start`, if any (polling, so that Ctrl-C is felt)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(0.1)
        self._thread = None

    def get(self):
        self.wait()
        if self._error is not None:
            raise self._error
        if self.value is None:
            self._build()
        return self.value

    def _build(self):
        if self.value is None:
            from .stats.interactions import InteractionStatistics

            if isinstance(self.given, InteractionStatistics):
                value = self.given
            elif callable(self.given):
                value = self.given(self.stats)
            elif self.bitext is not None:
                value = InteractionStatistics.from_sentences(
                    self.stats, self.bitext[0], self.bitext[1], verbose=self.verbose)
            else:
                raise ValueError("the +F/+Q models need interaction_stats or the bitext")
            value.check_statistics(self.stats)
            self.value = value


def _wanted_sources(bitext, aligners, labels, thesis, verbose=False):
    """``(sources, wanted)``: the sources used as features, and those to run (with the
    labeller)."""
    from .features.links import SOURCES, resolve_sources

    if thesis and aligners not in ("default", "auto", "none", None, ()):
        raise ValueError("preset='thesis' uses no other aligners")
    sources = resolve_sources("none" if thesis else aligners, own_hmm=not thesis)
    if sources and bitext is None:
        _log(verbose, "no bitext: no aligner features (our HMM and the other aligners need "
                      "the bitext)")
        sources = ()
    if labels and labels not in ("hmm", "eflomal"):
        raise ValueError(f"unknown labeller {labels!r} (known: hmm, eflomal)")
    wanted = sources
    if labels:
        wanted = tuple(x for x in SOURCES if x in set(sources) | {labels})
    return sources, wanted


def start_aligner_runs(pairs, valid_pairs=None, bitext=None, aligners="default", labels=None,
                       preset=None, cache_dir=".cache", random_state=0, jobs=1, verbose=False):
    """Start the aligner runs of :func:`train_aligner` that can go on in the background
    while the caller builds the statistics (:func:`alignment.features.links.start_sources`:
    the Bayesian aligner's, with ``jobs > 1``); the arguments are :func:`train_aligner`'s.
    Pass the result to it as ``started``.  Nothing that is computed depends on it.

    Returns
    -------
    dict
    """
    from .features.links import start_sources

    if bitext is None:
        return {}
    _, wanted = _wanted_sources(bitext, aligners, labels, preset == "thesis")
    return start_sources(wanted, list(pairs) + list(valid_pairs or []), bitext[0], bitext[1],
                         cache_dir=cache_dir, random_state=resolve_seed(random_state),
                         n_jobs=min(2, check_n_jobs(jobs, "jobs")), verbose=verbose)


def _aligner_features(pairs, gold, valid_pairs, bitext, aligners, labels, thesis, cache_dir,
                      max_len, verbose, random_state=0, jobs=1, started=None):
    """``(gold, links, sources)``: the gold (or the labeller's links), the other aligners'
    outputs (or None) and the sources used as features."""
    from .features.links import AlignerLinks

    sources, wanted = _wanted_sources(bitext, aligners, labels, thesis, verbose)
    if not wanted:
        return gold, None, ()
    bsrc, btgt = bitext
    links = AlignerLinks.from_sources(wanted, list(pairs) + list(valid_pairs or []), bsrc, btgt,
                             cache_dir=cache_dir, max_len=max_len, random_state=random_state,
                             n_jobs=min(2, jobs), started=started, verbose=verbose)
    if labels:
        gold = auto_labels(links, labels, pairs)
        _log(verbose, f"labelled {counted(len(pairs), 'sentence')} with {labels} "
                      f"({counted(sum(len(g.sure) for g in gold), 'link')}); it is left out of "
                      "the features")
        sources = tuple(x for x in sources if x != labels)
        links = links.subset(sources) if sources else None
    return gold, links, sources


def auto_labels(links, labeller, pairs):
    """Links of ``labeller`` (``"hmm"``: our unsupervised aligner's default links;
    ``"eflomal"``: the intersection of its two directions) for ``pairs``, as gold
    :class:`~alignment.data.formats.Alignment`."""
    from .aligners.symmetrize import symmetrize
    from .data.formats import Alignment

    out = []
    if labeller == "eflomal":
        links.prepare(pairs)
    for s, t in pairs:
        if labeller == "hmm":
            L = links.unsupervised.align_pair(s, t)[0]
        else:
            d = links._external("eflomal", s, t)
            L = symmetrize(d["fwd"], d["bwd"], "intersection")
        L = frozenset((int(j), int(k)) for j, k in L)
        out.append(Alignment(L, L))
    return out


def describe_sources(links):
    """The other aligners of ``links`` in words (versions, cached or run)."""
    parts = []
    for name in links.sources:
        if name == "hmm":
            parts.append("hmm (ours, trained by agreement)")
        elif name == "bayes":
            run = links.runs[name]
            parts.append(f"bayes (ours, seed {run.options['random_state']}, "
                         f"{'cached run' if run.from_cache else 'ran'} on "
                         f"{counted(run.n_pairs, 'pair')})")
        else:
            run = links.runs[name]
            parts.append(f"{name} {run.version} ({'cached run' if run.from_cache else 'ran'}"
                         f" on {counted(run.n_pairs, 'pair')})")
    return ", ".join(parts)


def _predict_bounded(m, pairs):
    """``m.predict(pairs)`` on validation sentences: a pair too large for the exact decoder
    of a +Q model is decoded by the LP relaxation (:data:`alignment.model.MAX_ILP_CELLS`),
    as in training, and not warned of (a choice among candidates, not links a user reads)."""
    import warnings

    from .model import LPDecodingWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LPDecodingWarning)
        return m.predict(pairs)
