"""The default of ``structpred topics train``: a model chosen on validation documents.

With data arguments only, ``topics train`` does not fit one fixed model.  It

1. holds out a deterministic, stratified validation fraction of the training documents
   (:func:`validation_split`; or takes the user's ``--valid-data``); a corpus of fewer than
   2,000 documents is cross-validated instead (5 folds, :func:`cross_validation_folds`), as
   one held-out fifth of it would be too small to choose on, and so is a larger one where
   the default fraction rounds to no document of most classes (of one or two documents);
2. fits the candidates of :data:`CANDIDATES` on the rest -- the fast discriminative models
   first (sdEM naive Bayes with the hinge and NCLL losses, a linear SVM, NBSVM, plain naive
   Bayes), then sdEM-LDA and a paMedLDA topic model only where the corpus is large enough for
   topics to help and their estimated time fits the budget (:func:`plan`);
3. keeps the documented default :data:`DEFAULT_CANDIDATE` unless the most accurate candidate
   is better in at least 95% of paired bootstraps of the validation documents
   (:func:`structpred.selection.prefer_default`, the rule the aligners use);
4. refits the kept candidate on all training documents (:func:`fit_spec`).

Every candidate is a :class:`CandidateSpec`: a ``--model`` name of :mod:`topics.cli`, the
settings of its :class:`topics.corpus.Vocabulary` (tokens, n-grams, weighting) and of its
estimator.  ``--model X`` fits :data:`MODEL_DEFAULTS` ``[X]``, the same settings, without a
choice.  How the defaults were chosen (validation splits of the training parts of 20
Newsgroups, Reuters R8, movie-review polarity and Brown genres): ``docs/results/topics.md``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from structpred import resolve_seed, seed_generator

from ._validation import quiet_class_count_guess
from .corpus import Vocabulary
from .registry import CV_BELOW, CV_FOLDS, VALID_FRACTION

__all__ = ["CandidateSpec", "CANDIDATES", "CV_BELOW", "VALID_FRACTION", "DEFAULT_CANDIDATE", "MIN_UPDATES", "MODEL_DEFAULTS",
           "Choice", "validation_split", "cross_validation_folds", "plan", "choose", "fit_spec",
           "analyze_once", "spec_of"]

#: the models that take weighted (non-integer) features; the others need whole counts
WEIGHTED_MODELS = ("nbsvm", "sdem-nb", "svm")
#: vocabulary of the linear models: words and word pairs in at least 2 training documents
_BIGRAMS = {"ngram_range": (1, 2), "min_df": 2}
#: counts of single words, what the Gibbs-sampled topic models need
_WORD_COUNTS = {"ngram_range": (1, 1), "min_df": 2}
#: the tokens of the default: words and numbers, no stop list (the list drops "not", "never"
#: and the function words that tell genres apart; validation in docs/results/topics.md)
_ALL_TOKENS = {"stop_words": None, "digits": True}
#: sdEM naive Bayes: every training word, ln(1 + count) x idf, each document rescaled to
#: Euclidean norm 3 (count-like, as naive Bayes needs; eqs. 1-2 of topics.corpus.Vocabulary)
_TFIDF_WORDS = {"ngram_range": (1, 1), "min_df": 1, "weighting": "tfidf", "sublinear_tf": True,
                "norm": 3.0, **_ALL_TOKENS}
#: the linear SVM: the same terms and weights, rows of unit Euclidean norm
_TFIDF_UNIT = {**_TFIDF_WORDS, "norm": 1.0}


@dataclass(frozen=True)
class CandidateSpec:
    """One candidate of the validation choice.

    Attributes
    ----------
    name : str
        How it is printed (and ``--model`` where it is a model's default).
    model : str
        A key of :data:`topics.registry.MODELS`.
    vocabulary : dict
        :class:`topics.corpus.Vocabulary` settings.
    params : dict
        Estimator settings (over the estimator's own defaults).
    cost : float
        Rough seconds per million document-term entries (times the number of classes when
        ``per_class``) on a 2-core machine, to estimate whether the candidate fits the time
        budget (0: always tried).
    min_documents : int
        Only tried on corpora with at least this many training documents.
    class_cost : float
        Seconds per million entries per class, where that is more than ``cost``: a model of
        one fit per class (the SVMs, one against the rest) whose time, beyond a few dozen
        classes, grows with them (0: never).
    doc_class_cost : float
        Seconds per million (training document, class) pairs, added to the estimate: a model
        whose work per document grows with the classes (paMedLDA's margins).
    """

    name: str
    model: str
    vocabulary: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    cost: float = 0.0
    per_class: bool = False
    min_documents: int = 0
    help: str = ""
    class_cost: float = 0.0
    doc_class_cost: float = 0.0

    def make_vocabulary(self, overrides=None):
        """The candidate's vocabulary with ``overrides`` (weighting ones only where the model
        takes weights: the topic models count whole words)."""
        over = dict(overrides or {})
        if _chars(self):
            over.pop("ngram_range", None)     # --ngrams counts words, not characters
        if self.model not in WEIGHTED_MODELS:
            for k in ("weighting", "sublinear_tf", "norm"):
                over.pop(k, None)
        return Vocabulary(**{**self.vocabulary, **over})

    def make_estimator(self, seed=0, overrides=None):
        from .registry import make_estimator

        return make_estimator(self.model, seed=seed, params={**self.params, **(overrides or {})})


#: the default's fewest sdEM steps: 6 passes, or 6,000 document visits on a corpus of fewer
#: than 1,000 documents (20 passes over 300).  On small-corpus validation sources built from
#: the training parts (Brown's repeated cross-validation, subsamples of 300 and 600 documents
#: of 20 Newsgroups, R8 and movie reviews) it beat 6 passes in 100% of paired bootstraps
#: and on each source; 12,000 was not better than 6,000 in 95%: "Small corpora" in
#: docs/results/topics.md, scripts/small_corpus_study.py
MIN_UPDATES = 6000

CANDIDATES = (
    CandidateSpec(
        "sdem-nb-hinge", "sdem-nb", _TFIDF_WORDS,
        {"loss": "hinge", "prior": "log", "learning_decay": 1e-5, "n_epochs": 6,
         "min_updates": MIN_UPDATES},
        help="sdEM naive Bayes, hinge loss, log prior, tf-idf words (the default)"),
    CandidateSpec(
        "svm", "svm", _TFIDF_UNIT, {"C": 1.0, "max_iter": 100},
        help="linear SVM (squared hinge, one against the rest), tf-idf words"),
    CandidateSpec(
        "nbsvm", "nbsvm", {**_BIGRAMS, "weighting": "binary"},
        {"C": 0.1, "beta": 1.0, "max_iter": 30},
        help="NBSVM (naive Bayes log-count ratios + squared-hinge SVM), binary words + pairs"),
    CandidateSpec(
        "sdem-nb-ncll", "sdem-nb", _TFIDF_WORDS,
        {"loss": "ncll", "prior": "laplace", "learning_decay": 1e-5, "n_epochs": 4},
        help="sdEM naive Bayes, NCLL loss, tf-idf words"),
    CandidateSpec(
        "naive-bayes", "sdem-nb", _WORD_COUNTS,
        {"loss": "nll", "prior": "laplace", "learning_decay": 1.0, "n_epochs": 1},
        help="multinomial naive Bayes (sdEM with the NLL loss: the Laplace MAP), word counts"),
    CandidateSpec(
        "sdem-lda", "sdem-lda", _WORD_COUNTS,
        {"n_topics": 2, "loss": "hinge", "learning_decay": 1e-3, "n_epochs": 3},
        cost=20.0, per_class=True, min_documents=200,
        help="sdEM LDA classifier, 2 topics per class, hinge loss, word counts"),
    CandidateSpec(
        "pamedlda", "pamedlda", _WORD_COUNTS,
        {"n_topics": 40, "batch_size": 64, "n_passes": 3},
        # its margins are per document and class: 20 s more per million of them (R52's
        # fold took 14.5 s, 14.7 estimated; 1,000 classes of short texts took 240 s where
        # 40 s per million entries alone estimated 1.3 s: 81 s now, over the budget)
        cost=40.0, min_documents=2000, doc_class_cost=20.0,
        help="online passive-aggressive MedLDA, 40 topics, word counts"),
)

#: the character n-gram candidate: its cost is seconds per million *word* entries (each
#: word gives about ten character n-grams); see "Character n-grams" in
#: docs/results/topics.md.  Beyond 56 classes its one SVM per class makes the time grow
#: with them, 0.8 s per million entries per class (0.5 to 0.7 measured with 300 and 1,000
#: classes of short texts: 35 s where 45 alone estimated 2 s)
CHAR_CANDIDATE = CandidateSpec(
    "svm-chars", "svm", {**_TFIDF_UNIT, "analyzer": "char_wb", "ngram_range": (1, 4),
                         "min_length": 1},
    {"C": 1.0, "max_iter": 100}, cost=45.0, class_cost=0.8,
    help="linear SVM, tf-idf character 1-4-grams of the words (padded by a space)")
CANDIDATES = CANDIDATES + (CHAR_CANDIDATE,)

#: the documented default: kept unless a candidate is better in >= 95% of bootstraps
DEFAULT_CANDIDATE = "sdem-nb-hinge"


#: ``--model X``: the settings it trains with (the validated ones where X is a candidate)
MODEL_DEFAULTS = {c.model: c for c in reversed(CANDIDATES)}      # the first of each model


def spec_of(name):
    """The :class:`CandidateSpec` called ``name`` (a candidate or a ``--model`` name)."""
    for c in CANDIDATES:
        if c.name == name:
            return c
    if name in MODEL_DEFAULTS:
        return MODEL_DEFAULTS[name]
    return CandidateSpec(name, name, _WORD_COUNTS)


def validation_split(labels, fraction=0.2, seed=0):
    """Deterministic stratified split: ``(fit_idx, valid_idx)`` (sorted index arrays).

    Within each class the documents are shuffled by ``seed`` and the first
    ``round(fraction * n_class)`` go to validation -- none from a class of one document, so
    every class is trained on.
    """
    if not 0.0 < float(fraction) < 1.0:
        raise ValueError(f"the validation fraction must lie in (0, 1), got {fraction!r}")
    y = np.asarray(labels)
    rng = seed_generator(seed, "seed", generators=True)   # a RandomState: its drawn seed
    valid = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        k = int(round(float(fraction) * idx.size))
        k = min(k, idx.size - 1)
        if k > 0:
            valid.extend(rng.permutation(idx)[:k].tolist())
    valid = np.sort(np.asarray(valid, dtype=np.int64))
    fit = np.setdiff1d(np.arange(y.size), valid)
    return fit, valid


def cross_validation_folds(labels, n_folds=CV_FOLDS, seed=0):
    """Deterministic stratified folds: a list of ``(fit_idx, valid_idx)``, every document in
    exactly one ``valid_idx`` -- except the document of a class of one, which every fold
    trains on (held out, its class would be missing from its fold's training documents: a
    two-class fold of one class, an error counted for every candidate alike).  Within each
    class the documents are shuffled by ``seed`` and dealt to the folds in turn.  A fold
    that no document is dealt to (fewer documents than folds) is left out: fitted on
    everything and scored on nothing, it was an error (sklearn's "Found array with 0
    sample(s)" in ``topics train`` on 2 documents per class)."""
    y = np.asarray(labels)
    rng = seed_generator(seed, "seed", generators=True)   # a RandomState: its drawn seed
    fold = np.full(y.size, -1, dtype=np.int64)
    start = 0
    for c in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == c))
        if idx.size < 2:
            continue
        fold[idx] = (start + np.arange(idx.size)) % n_folds
        start += idx.size                      # small classes do not all start in fold 0
    out = []
    for f in range(n_folds):
        if (fold == f).any():
            out.append((np.flatnonzero(fold != f), np.flatnonzero(fold == f)))
    # every class a single document (which choose refuses before): nothing to hold out
    return out or [(np.arange(y.size), np.arange(0))]


def analyze_once(texts, specs, overrides=None):
    """Tokenise ``texts`` once for all ``specs``: ``{tokenizer key: (ngram_range, terms)}``,
    a document's terms a list (words) or a ``Counter`` (character n-grams).

    Candidates that differ only in n-grams share one analysis: the word-only terms are the
    word + pair terms without a space.
    """
    out = {}
    for s in specs:
        v = s.make_vocabulary(overrides)
        key = _analysis_key(v)
        if key not in out:
            widest = Vocabulary(**{**s.vocabulary, **(overrides or {}),
                                   "ngram_range": (1, max(_hi(o.make_vocabulary(overrides))
                                                          for o in specs
                                                          if _analysis_key(o.make_vocabulary(overrides)) == key))})
            # character n-grams counted per document (as lists, about 30 a word, a time
            # budget of minutes held tens of GB of them)
            terms = widest._analyze(texts, counted=v.analyzer != "word")
            out[key] = (widest.ngram_range, list(terms))
    return out


def _chars(spec):
    """Whether a candidate's terms are character n-grams."""
    return spec.vocabulary.get("analyzer", "word") != "word"


def _hi(v):
    return int(v.ngram_range[1])


def _analysis_key(v):
    stop = v.stop_words if v.stop_words is None or isinstance(v.stop_words, str) \
        else tuple(sorted(v.stop_words))
    return (v.lowercase, v.digits, v.alphabet, stop, v.min_length, int(v.ngram_range[0]),
            v.analyzer)


def terms_for(vocab, analyses, rows=None):
    """The term lists of ``vocab``'s n-gram range from :func:`analyze_once`'s output."""
    rng, terms = analyses[_analysis_key(vocab)]
    if rows is not None:
        terms = [terms[i] for i in rows]
    lo, hi = (int(x) for x in vocab.ngram_range)
    if (lo, hi) == tuple(rng):
        return terms
    if vocab.analyzer != "word":          # character n-grams, counted: their length is n
        return [{t: c for t, c in ts.items() if lo <= len(t) <= hi} for ts in terms]
    if lo == hi == 1:
        return [[t for t in ts if " " not in t] for ts in terms]
    return [[t for t in ts if lo - 1 <= t.count(" ") <= hi - 1] for ts in terms]


def _word_terms(analyses, overrides, rows):
    """The words (no n-grams) of documents ``rows``, with the topic models' tokens where
    :func:`analyze_once` made them, else with any candidate's (to size the corpus)."""
    v = Vocabulary(**{**_WORD_COUNTS, **(overrides or {})})
    if _analysis_key(v) in analyses:
        return terms_for(v, analyses, rows)
    words = [a for k, a in analyses.items() if k[-1] == "word"]   # not character n-grams
    terms = (words or list(analyses.values()))[0][1]
    return [[t for t in terms[i] if " " not in t] for i in rows]


@dataclass
class _Trial:
    """A candidate being tried: its spec, fitted vocabulary and estimator, and its 0/1
    correctness on the validation documents."""

    spec: CandidateSpec
    vocabulary: Vocabulary | None = None
    estimator: object = None
    correct: np.ndarray | None = None
    seconds: float = 0.0


@dataclass
class Choice:
    """What :func:`choose` found.

    Attributes
    ----------
    spec : CandidateSpec
        The kept candidate.
    ranked : list of structpred.selection.Candidate
        Every tried candidate, best validation accuracy first (``value``: its name).
    skipped : list of (str, str)
        Candidates not tried and why.
    p_not_better : float or None
        Share of bootstraps in which the best was not better than the default.
    reason : str
    how : str
        How the validation documents were made.
    n_valid : int
        Validation documents (the bootstrap resamples these).
    default : str
        The default candidate's name.
    """

    spec: CandidateSpec
    ranked: list
    skipped: list
    p_not_better: float | None
    reason: str
    how: str
    n_valid: int
    default: str = DEFAULT_CANDIDATE

    def lines(self):
        """The summary printed by ``topics train``."""
        out = [f"validation: {self.how}"]
        for c in sorted(self.ranked, key=lambda c: -c.score):
            tag = " (default)" if c.value == self.default else ""
            out.append(f"  {c.value:<15} {100 * c.score:6.2f}%  fit {c.seconds:6.1f}s{tag}")
        for name, why in self.skipped:
            out.append(f"  {name:<15}      -   not tried: {why}")
        out.append(f"chose {self.spec.name}: {self.reason}")
        return out


def _corpus_size(terms):
    return sum(len(set(t)) for t in terms)


def _seconds(x):
    """``"43s"``; below one second two digits, ``"0.042s"`` (it was ``"about 0s estimated,
    over the time budget (0s left of 0s)"`` with ``--time-budget 0``)."""
    return f"{x:.0f}s" if x >= 1 or x == 0 else f"{x:.2g}s"


def plan(n_docs, n_entries, n_classes, budget, specs=CANDIDATES, n_fits=1):
    """The candidates to try on a corpus, and ``(name, reason)`` for those left out.

    A candidate is tried only on corpora of at least ``min_documents`` documents, and one
    with a ``cost`` only when ``cost * n_entries (* n_classes) / 1e6`` seconds (its
    estimated fit; ``class_cost * n_classes`` in place of ``cost`` where that is more; plus
    ``doc_class_cost * n_docs * n_fits * n_classes / 1e6``, ``n_fits`` fits of ``n_docs``
    documents) fits in what is left of ``budget`` after the ones before it.
    """
    take, skipped, left = [], [], float(budget)
    for s in specs:
        if n_docs < s.min_documents:
            skipped.append((s.name, f"fewer than {s.min_documents} training documents"))
            continue
        rate = max(s.cost * (n_classes if s.per_class else 1), s.class_cost * n_classes)
        est = (rate * n_entries + s.doc_class_cost * n_docs * n_fits * n_classes) / 1e6
        if s.cost and est > left:
            skipped.append((s.name, f"about {_seconds(est)} estimated, over the time budget "
                                    f"({_seconds(left)} left of {_seconds(float(budget))})"))
            continue
        left -= est
        take.append(s)
    return take, skipped


def _fit_trial(trial, analyses, folds, y, y_valid, seed, overrides):
    """Fit ``trial`` on each fold's fitting part; its correctness on the validation parts
    (in the order of the concatenated validation indices)."""
    t0 = time.perf_counter()
    correct = []
    vocab = trial.spec.make_vocabulary(overrides)
    for fit_idx, val_idx in folds:
        vocab = trial.spec.make_vocabulary(overrides)
        terms = terms_for(vocab, analyses, fit_idx)
        X = vocab.fit_terms(terms).transform_terms(terms)
        est = trial.spec.make_estimator(seed)
        with quiet_class_count_guess():
            # scikit-learn's guess on a fold of classes of one or two documents; each fit
            # printed it again (40 lines on 60 documents of 30 classes)
            est.fit(X, y[fit_idx])
        pred = est.predict(vocab.transform_terms(terms_for(vocab, analyses, val_idx)))
        correct.append(np.asarray(pred).astype(str) == y_valid[val_idx])
    trial.correct = np.concatenate(correct).astype(np.int64)
    trial.vocabulary, trial.estimator = vocab, None
    trial.seconds = time.perf_counter() - t0


def _checked_data(texts, labels, valid_texts, valid_labels, time_budget):
    """The documents and labels of :func:`choose` as lists (the labels as strings), refused
    in its words when they do not fit: another number of labels than documents (19 labels
    for 20 documents were taken, and a validation list one short was numpy's "index 23 is
    out of bounds"), a set (no order: "list index out of range") or ``None``, a missing label
    (``None``, NaN: the class "None"), labels mixing strings, numbers and booleans (``1`` and
    ``"1"`` were one class), a ``time_budget`` that is not a finite number >= 0 (NaN)."""
    from structpred import check_number, check_ordered

    from ._validation import _label_kind

    check_number("time_budget", time_budget, 0.0)
    out = []
    for t, l, what in ((texts, labels, ""), (valid_texts, valid_labels, "valid_")):
        if what and t is None and l is None:
            out += [None, None]
            continue
        t = list(check_ordered(t, f"{what}texts", "documents"))
        l = list(check_ordered(l, f"{what}labels", "labels"))
        if len(t) != len(l):
            raise ValueError(f"{len(t)} {what}texts but {len(l)} {what}labels: give one label "
                             "per document")
        missing = next((i for i, v in enumerate(l) if v is None or v != v), None)
        if missing is not None:
            raise ValueError(f"{what}labels[{missing}] is {l[missing]}: every document needs a "
                             "label")
        kinds = sorted({_label_kind(v)[2:].lstrip() for v in l})
        if len(kinds) > 1:
            raise ValueError(f"{what}labels mix {' and '.join(k + 's' for k in kinds)}: give "
                             "one kind" + (" (1 and '1' would be one class)"
                                           if "string" in kinds else ""))
        out += [t, l]
    return out[0], np.asarray(out[1]).astype(str), out[2], out[3]


def _held_out(y, valid_fraction, seed, n_folds):
    """The folds and the ``how`` line of :func:`choose` on a corpus of ``CV_BELOW``
    documents or more: the held-out share, or, where the default share (``valid_fraction``
    not given) holds out no document of most classes of two documents or more (every class
    of one or two documents: none at all), ``n_folds``-fold cross-validation."""
    fraction = VALID_FRACTION if valid_fraction is None else valid_fraction
    fit_idx, val_idx = validation_split(y, fraction, seed)
    names, counts = np.unique(y, return_counts=True)
    several = int((counts >= 2).sum())             # the classes that can be held out from
    missed = several - np.unique(y[val_idx]).size
    if val_idx.size and (valid_fraction is not None or 2 * missed <= several):
        return [(fit_idx, val_idx)], (f"{val_idx.size} documents held out, candidates "
                                      f"fitted on {fit_idx.size}")
    if valid_fraction is not None or not several:   # every class of one: nothing to validate
        raise ValueError("too few documents to hold out a validation set")
    folds = cross_validation_folds(y, n_folds, seed)
    most = int(counts.max())
    why = (f"none: the largest has {most} document{'s' if most > 1 else ''}"
           if not val_idx.size else
           f"no document of {missed} of the {several} classes of two documents or more")
    return folds, (f"{len(folds)}-fold cross-validation over the {len(y)} training documents "
                   f"({100 * fraction:g}% of each class would hold out {why})")


def choose(texts, labels, *, valid_texts=None, valid_labels=None, valid_fraction=None, seed=0,
           cv_below=CV_BELOW, n_folds=CV_FOLDS, time_budget=30.0, specs=CANDIDATES, default=DEFAULT_CANDIDATE, overrides=None,
           log=None, jobs=1):
    """Choose a candidate on validation documents (see the module docstring).

    Parameters
    ----------
    texts, labels : sequences
        The training documents (raw strings) and their labels.
    valid_texts, valid_labels : sequences, optional
        Validation documents; by default ``valid_fraction`` of the training documents
        (:func:`validation_split` with ``seed``), or, on corpora of fewer than ``cv_below``
        documents, ``n_folds``-fold cross-validation (:func:`cross_validation_folds`): every
        training document is then a validation document once, which a corpus of a few
        hundred documents needs for the bootstrap to tell candidates apart.
    valid_fraction : float, optional
        The share of each class held out.  ``None`` (the default): :data:`VALID_FRACTION`
        (0.2), or, where that holds out no document of most classes of two documents or
        more (classes of two: 20% rounds to none), the cross-validation of small corpora; a
        number given is used as it is, and one that holds out nothing is a ``ValueError``.
    time_budget : float
        Seconds for the candidates that have a cost estimate (the topic models).
    overrides : dict, optional
        Vocabulary settings applied to every candidate (the command line's);
        ``analyzer="word"`` leaves the candidates of character n-grams out.
    log : callable, optional
        Called with one line as each candidate is fitted.
    jobs : int
        Candidates fitted at once (forked processes; the choice is the same for any value).

    Returns
    -------
    Choice
    """
    from structpred.selection import fit_candidates, prefer_default

    texts, y, valid_texts, valid_labels = _checked_data(texts, labels, valid_texts,
                                                        valid_labels, time_budget)
    seed = resolve_seed(seed, "seed")   # a RandomState: one seed drawn, for splits and fits
    # analyzer="word" for every candidate leaves out those of character n-grams (svm-chars
    # was tried as word 1- to 4-grams, under its name)
    specs = [s for s in specs if (overrides or {}).get("analyzer", "chars") != "word"
             or not _chars(s)]
    if valid_texts is not None:
        all_texts = list(texts) + list(valid_texts)
        y_all = np.concatenate([y, np.asarray(valid_labels).astype(str)])
        folds = [(np.arange(len(texts)), np.arange(len(texts), len(all_texts)))]
        how = f"{len(valid_texts)} validation documents given, candidates fitted on {len(texts)}"
    elif len(y) < cv_below:
        all_texts, y_all = list(texts), y
        folds = cross_validation_folds(y, n_folds, seed)
        how = (f"{len(folds)}-fold cross-validation over the {len(y)} training documents (fewer "
               f"than {cv_below}: one held-out part would be too small to choose on)")
    else:
        all_texts, y_all = list(texts), y
        folds, how = _held_out(y, valid_fraction, seed, n_folds)
    # the word candidates' terms first: the corpus's size in words decides which candidates
    # fit the budget, and character n-grams (ten times the terms) are made only if tried
    analyses = analyze_once(all_texts, [s for s in specs if not _chars(s)]
                            or [spec_of("naive-bayes")], overrides)
    order = np.concatenate([v for _, v in folds])
    words = _word_terms(analyses, overrides, folds[0][0])
    n_entries = _corpus_size(words) * len(folds)
    n_classes = np.unique(y_all[folds[0][0]]).size
    take, skipped = plan(folds[0][0].size, n_entries, n_classes, time_budget, specs,
                         n_fits=len(folds))
    if any(map(_chars, take)):
        analyses.update(analyze_once(all_texts, [s for s in take if _chars(s)], overrides))
    if default not in [s.name for s in take]:
        raise ValueError(f"the default candidate {default!r} is not among those tried")

    def make(name):
        return _Trial(next(s for s in take if s.name == name))

    def fit(trial):
        _fit_trial(trial, analyses, folds, y_all, y_all, seed, overrides)
        if log is not None:
            log(f"  {trial.spec.name:<15} {100 * trial.correct.mean():6.2f}% on validation "
                f"({trial.seconds:.1f}s)")

    ranked = fit_candidates(make, [s.name for s in take], fit, jobs=jobs,
                            score_of=lambda t: float(t.correct.mean()))
    kept, p = prefer_default(ranked, default, lambda t: t.correct, random_state=seed)
    best = ranked[0]
    if p is None:
        reason = "the default is the most accurate on validation"
    elif kept is best:
        reason = (f"better than the default {default} in {100 * (1 - p):.1f}% of 2000 paired "
                  f"bootstraps of the validation documents (>= 95% needed)")
    else:
        reason = (f"kept the default; the most accurate, {best.value}, was better than it in "
                  f"only {100 * (1 - p):.1f}% of 2000 paired bootstraps of the validation "
                  f"documents (95% needed)")
    return Choice(kept.model.spec, ranked, skipped, p, reason, how, int(order.size), default)


def fit_spec(spec, texts, labels, *, seed=0, overrides=None):
    """Fit ``spec`` on all of ``texts``: ``(vocabulary, estimator)``."""
    seed = resolve_seed(seed, "seed")   # checked before the vocabulary is built
    vocab = spec.make_vocabulary(overrides)
    X = vocab.fit_transform(list(texts))
    if X.sum() == 0:
        raise ValueError("no document has a word of the vocabulary")
    est = spec.make_estimator(seed)
    with quiet_class_count_guess():
        est.fit(X, np.asarray(labels).astype(str))
    return vocab, est
