"""``structpred topics train|predict|eval``: topic-model text classifiers on a user's text.

Registered in the ``structpred.commands`` entry-point group (pyproject.toml).

Input (``--data PATH``, see :mod:`topics._text_io`): a folder with one sub-folder per
class (``PATH/<label>/<file>``, the 20 Newsgroups layout), a TSV file ``label<TAB>text``,
a CSV file (a header naming the label and text columns, or columns by number), JSON
lines with ``label`` and ``text`` fields or fastText lines (``.gz`` ok); ``--label-field``
and ``--text-field`` name other CSV or TSV columns or JSON fields.  Texts are tokenised by
:class:`topics.tokens.Tokenizer` (lower-cased words of every script; the default model also
keeps numbers and has no stop list, the others drop the English stop words) and counted over a :class:`topics.corpus.Vocabulary` fitted on the training texts; the
model file (:mod:`topics._persist`, ``.npz`` without pickle) keeps the vocabulary, the
labels and the fitted estimator.  The options and the types of their values are defined
in :mod:`topics._options`.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings

import numpy as np

from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, log as _log
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import check_held_out, check_output, options_given, refuse_options
from structpred.io import counted, note, release_notes

from ._confusion import (MAX_PRINTED_CLASSES, TOP_CONFUSIONS, confusion_matrix,
                         format_confusion, top_confusions)
from ._confusion import plot_confusion as _plot_confusion
from ._options import DEFAULT_MODEL
from ._options import add_data as _add_data, add_train_parser as _add_train_parser
from ._options import add_validation_options as _add_validation_options
from ._options import add_vocabulary_options as _add_vocabulary_options
from ._validation import quiet_class_count_guess
from .registry import CV_BELOW, CV_FOLDS, MODELS, make_estimator

__all__ = ["add_parser", "topics_train", "topics_predict", "topics_eval", "MODELS",
           "DEFAULT_MODEL", "make_estimator", "confusion_matrix", "format_confusion"]


def add_parser(subparsers, name):
    """Add ``structpred topics`` (train, predict, eval) to ``subparsers``."""
    top = subparsers.add_parser(
        name, formatter_class=_Formatter, help="text classification with topic models",
        description="Train and apply topic-model text classifiers (LDA+SVM, DiscLDA, sdEM, "
                    "MedLDA, paMedLDA) on labelled text. Example:\n"
                    "  structpred topics train --data data/text/20ng-4groups-train.jsonl.gz "
                    "-o 20ng.npz\n"
                    "  structpred topics eval -m 20ng.npz --data "
                    "data/text/20ng-4groups-test.jsonl.gz")
    tsub = top.add_subparsers(dest="topics_command", required=True)

    tr = _add_train_parser(tsub)
    _add_validation_options(tr)
    _add_vocabulary_options(tr)
    _add_quiet(tr)
    tr.set_defaults(handler=topics_train)

    pr = tsub.add_parser(
        "predict", formatter_class=_Formatter, help="write predicted labels, one per line",
        description="Predict the label of each document, in input order (TSV/JSON lines: "
                    "line order, blank lines skipped; folder: files directly in PATH first, "
                    "then each sub-folder's files, sorted by name). Labels in the input are "
                    "not needed and are ignored. Example:\n"
                    "  structpred topics predict -m model.npz --data new.tsv -o labels.txt")
    pr.add_argument("-m", "--model", required=True, metavar="NPZ", help="model file")
    _add_data(pr, "documents (a label column/field or class folders are optional)")
    pr.add_argument("-o", "--output", default="-", metavar="FILE",
                    help="where to write the labels ('-': standard output)")
    _add_quiet(pr)
    pr.set_defaults(handler=topics_predict)

    ev = tsub.add_parser(
        "eval", formatter_class=_Formatter, help="accuracy and confusion matrix",
        description="Predict labelled documents and print the accuracy (%) and the confusion "
                    "matrix (rows: true labels, columns: predicted); with more than "
                    f"{MAX_PRINTED_CLASSES} classes, the {TOP_CONFUSIONS} commonest confusions "
                    "instead (--confusion prints the matrix too). Example:\n"
                    "  structpred topics eval -m model.npz --data test.jsonl --plot cm.png")
    ev.add_argument("-m", "--model", required=True, metavar="NPZ", help="model file")
    _add_data(ev, "labelled documents")
    ev.add_argument("--plot", metavar="PNG", help="also save the confusion matrix as a figure")
    ev.add_argument("--confusion", action="store_true",
                    help=f"print the confusion matrix of more than {MAX_PRINTED_CLASSES} "
                         "classes too (by default they get the commonest confusions only)")
    _add_quiet(ev)
    ev.set_defaults(handler=topics_eval)
    return top


# ----------------------------------------------------------------------- helpers

_wrap = _wrap_format_errors


def _parse_params(items):
    out, given = {}, {}
    for item in items or ():
        name, eq, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not eq or not name:
            raise UserError(f"--param {item!r}: expected NAME=VALUE")
        if name in out:   # the last value was taken silently; both shown as given
            raise UserError(f"--param {name} given twice ({given[name]!r} and {value!r}); "
                            "give it once")
        given[name] = value
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def _check_param_types(model_name, params, n_classes):
    """``--param NAME=VALUE`` of the kind the parameter's default is (a number, true or
    false): one line naming the option, not the estimator's ``float()`` failing on 'abc'."""
    import math

    try:
        defaults = make_estimator(model_name, n_classes=n_classes).get_params()
    except (TypeError, ValueError):
        return
    for name, value in params.items():
        if name not in defaults:
            continue      # make_estimator names the parameters there are
        default = defaults[name]
        if isinstance(default, bool):
            ok, want = isinstance(value, bool), "true or false"
        elif isinstance(default, (int, np.integer)):
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and math.isfinite(value) and float(value).is_integer())
            want = "a whole number"
        elif isinstance(default, (float, np.floating)):
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and math.isfinite(value))
            want = "a finite number"
        else:
            continue
        if not ok:
            raise UserError(f"--param {name}={json.dumps(value)}: {model_name}'s {name} must "
                            f"be {want} (its default is {json.dumps(default)})")


def _read(args, labels):
    from ._text_io import read_documents

    docs = read_documents(args.data, args.format, labels=labels, label_field=args.label_field,
                          text_field=args.text_field)
    head = ("" if docs.header is None else
            f"; line {docs.header[0]}, {docs.header[1][:40]!r}, read as the header")
    _log(args, f"read {counted(len(docs), 'document')} from "
               f"{'standard input' if docs.path == '-' else docs.path} ({docs.format}{head})")
    return docs


def _load(path):
    from ._persist import load_model

    return load_model(path)


def _predict(saved, docs):
    X = saved.vocabulary.transform(docs.texts)
    _check_known_words(X, docs, saved)
    return saved.predict(X)


def _check_known_words(X, docs, saved):
    """Refuse documents none of which has a word the model's vocabulary keeps, and warn of
    some: such a document gets the class prior's label whatever its text (a corpus in
    another language, or another field's, was labelled with one class, exit status 0)."""
    empty = np.flatnonzero(np.diff(X.indptr) == 0)
    if not empty.size:
        return
    what = (f"the model's vocabulary ({_vocabulary_size(saved.vocabulary)}, e.g. "
            f"{', '.join(repr(w) for w in _example_terms(saved.vocabulary))})")
    if empty.size == len(docs):
        raise UserError(f"{docs.path}: no document has a word that {what} keeps, so each "
                        "would get the same label whatever its text: are they in the "
                        "model's language and field, and is this the model for them?")
    n = int(empty.size)
    warnings.warn(f"{docs.sources[empty[0]]}: {n} of the {len(docs)} documents "
                  f"{'has' if n == 1 else 'have'} no word that {what} keeps; "
                  f"{'it gets' if n == 1 else 'they get'} the label of a document without "
                  "words, whatever the text")


def _vocabulary_size(vocab):
    """``"28 terms"``, or ``"29,796 character n-grams"`` for a character vocabulary."""
    chars = vocab.analyzer != "word"
    return counted(len(vocab), "character n-gram" if chars else "term")


def _example_terms(vocab, k=3):
    """The first ``k`` terms, those of a character vocabulary taken from inside a word (the
    first ones sort as ``' '``, ``' 0'``, ...)."""
    words = list(vocab.words_)
    inner = [w for w in words if len(w) > 1 and w.strip() == w]
    return (inner if vocab.analyzer != "word" and inner else words)[:k]


# ----------------------------------------------------------------------- commands

def _stop_words(arg):
    """``--stop-words``: ``english``, ``none`` or a file of words (one a line)."""
    if arg.strip().lower() in ("english", "none") and (arg in ("english", "none")
                                                       or not os.path.lexists(arg)):
        # 'English' or 'None' (no such file) was "English: no such file"
        return "english" if arg.strip().lower() == "english" else None
    from structpred.io import read_lines

    return frozenset(w.strip().lower() for _, w in read_lines(arg) if w.strip())


def _vocabulary_overrides(args):
    """The vocabulary settings the command line sets (the rest stay the model's)."""
    out = {}
    if args.min_df is not None:
        out["min_df"] = args.min_df
    if args.max_features is not None:
        out["max_features"] = args.max_features
    if args.ngrams is not None:
        out["ngram_range"] = (1, args.ngrams)
    if args.analyzer is not None:
        out["analyzer"] = args.analyzer
        if args.analyzer == "char_wb":     # --ngrams counts characters here (default 4)
            out["ngram_range"] = (1, 4 if args.ngrams is None else args.ngrams)
            # tokens of one character kept, as svm-chars keeps them ('--model svm --analyzer
            # char_wb' dropped them, with the word models' min_length 2: not svm-chars)
            out["min_length"] = 1
    if args.weighting is not None:
        out["weighting"] = args.weighting
        if args.weighting != "tfidf":
            out.update(sublinear_tf=False, norm=None)
    if args.digits is not None:
        out["digits"] = bool(args.digits)
    if args.keep_case:
        out["lowercase"] = False
    if args.stop_words is not None:
        out["stop_words"] = _stop_words(args.stop_words)
    return out


def _check_spellings(docs, known=None):
    """Refuse labels that are one label spelled twice (``Sport`` and ``sport``; against a
    model's labels ``known``), naming the document."""
    from structpred import check_label_spellings, label_clash

    from ._layouts import decimals_hint

    try:
        check_label_spellings(docs.labels, known,
                              where=lambda label: docs.sources[docs.labels.index(label)])
    except ValueError as exc:
        raise UserError(f"{exc}{decimals_hint(label_clash(docs.labels, known))}") from None


def _check_classes(docs, keep_case=False):
    _check_spellings(docs)
    classes = docs.classes()
    if len(classes) < 2:
        raise UserError(f"{docs.path}: training needs at least 2 classes, found "
                        f"{len(classes)} ({', '.join(map(repr, classes))})")
    # in the case the tokens keep: with --keep-case 'CAT' and 'cat' differ (were refused)
    texts = {" ".join(t.split()) for t in docs.texts}
    if len(docs) > 1 and len(texts if keep_case else {t.lower() for t in texts}) == 1:
        # before the choice on validation, which otherwise ran and printed first
        raise UserError(f"{docs.path}: all {len(docs)} documents have the same text "
                        f"({docs.texts[0].strip()[:40]!r}), so nothing tells the classes apart")
    if len(docs) > 2 and len(classes) == len(docs):
        # a TSV file 'text<TAB>label' read as 'label<TAB>text': every text a class of its own
        raise UserError(f"{docs.path}: every one of the {len(docs)} documents has a label of "
                        f"its own (e.g. {classes[0][:40]!r}), so there is nothing to learn: is "
                        "the label in the right column or field (TSV: label<TAB>text)?")
    return classes


def _check_documents_differ(docs, X):
    """Refuse training documents whose words (in the vocabulary) are all the same: the
    classifier cannot tell the classes apart and predicts one class for everything."""
    from scipy import sparse

    X = sparse.csr_matrix(X)
    if X.shape[0] > 1 and all((X[i] != X[0]).nnz == 0 for i in range(1, X.shape[0])):
        terms = counted(X.shape[1], "term")
        raise UserError(f"{docs.path}: all {X.shape[0]} documents have the same words in the "
                        f"vocabulary of {terms}, so nothing tells the classes apart")


def _check_held_out_classes(args, docs, y):
    """The choice on held-out documents validates on classes of two documents or more; the
    document of a class of one is always trained on (never held out: its class would be
    missing from the training side) and named in a note.  With no class of two documents
    there is nothing to validate on: refused.  (Every class of one was refused before, so
    R52, whose 'platinum' has one training story, could not be trained by default.)"""
    names, counts = np.unique(y, return_counts=True)
    single = names[counts < 2]
    if not len(single):
        return
    shown = ", ".join(map(repr, single[:3].tolist())) + (", ..." if len(single) > 3 else "")
    if len(single) == len(names):
        raise UserError(f"{docs.path}: every class has a single document ({shown}): "
                        "choosing a model on held-out documents needs two of some class: "
                        "give more, --valid-data, or --model with one model")
    _log(args, f"note: {len(single)} of the {len(names)} classes "
               f"{'has' if len(single) == 1 else 'have'} a single document ({shown}): "
               f"{'it is' if len(single) == 1 else 'they are'} trained on, never held out "
               "for validation")


def _read_validation(args, classes):
    """The ``--valid-data`` documents (None without it); their labels must be known."""
    if args.valid_data is None:
        return None
    from ._text_io import read_documents

    # read as --data is, with its --format too (it was always 'auto'), unless that is a
    # folder's and this a file, or the other way round: then by what it is
    fmt = args.format
    if fmt != "auto" and (fmt == "folder") != os.path.isdir(args.valid_data):
        fmt = "auto"
    valid = read_documents(args.valid_data, fmt, labels="required",
                           label_field=args.label_field, text_field=args.text_field)
    _log(args, f"read {len(valid)} validation documents from {valid.path}")
    unseen = sorted(set(valid.labels) - set(classes))
    if unseen:
        raise UserError(f"{valid.path}: validation labels not in the training data: "
                        f"{', '.join(unseen[:5])}")
    return valid


def _check_topic_memory(model_name, est, X, n_classes):
    """Refuse ``--n-topics`` when the model's topic tables could not fit in memory.

    A topic model holds at least a topic-word table (K x V) and the documents' topic
    proportions (D x K) in float64: ``8 K (V + D)`` bytes, with K the topics in all
    (sdEM-LDA has K per class).  Asking for more than the machine's memory ends in a
    ``MemoryError`` deep in the fit, or in swapping without bound."""
    param = MODELS[model_name].topics
    params = est.get_params()
    k = params.get(param) if param else None
    if not isinstance(k, (int, np.integer)):
        return
    total = int(k) * (n_classes if model_name == "sdem-lda" else 1)
    from .corpus import check_topic_tables

    try:
        check_topic_tables(total, X.shape[1], X.shape[0])
    except ValueError as exc:
        raise UserError(f"--n-topics {k}: {model_name}'s {exc}") from None
    n_tokens = int(X.sum())
    if int(k) > n_tokens:   # 10**6 on 100 posts sampled for hours (SIGTERM held off)
        raise UserError(f"--n-topics {k}: more topics than the {n_tokens:,} word tokens of "
                        "the training documents, which can fill one topic each (and a "
                        "sweep costs time in topics x tokens); give fewer topics")


def _warn_of_copies(docs, valid):
    """A warning when half or more of the validation documents (2 at least) are training
    documents too: of ``--valid-data``, or, held out from ``--data``, documents with a copy
    among the others (a file joined to itself, ``cat a.tsv a.tsv``). Their accuracy favours
    the models that memorise the training documents, and the choice was silently biased."""
    from structpred import text_digests, training_overlap

    seen = text_digests(docs.texts)
    if valid is not None:
        found = training_overlap(valid.texts, seen, 0.5)
        where, n = valid.path, len(valid.texts)
    else:
        _, index, counts = np.unique(seen, return_inverse=True, return_counts=True)
        copied = np.flatnonzero(counts[index] > 1)
        found = (len(copied), int(copied[0])) if len(copied) >= max(2, len(seen) / 2) else None
        where, n = docs.path, len(seen)
    if found:
        held = valid is not None
        warnings.warn(f"{where}: {found[0]} of the {n} {'validation ' if held else ''}"
                      f"documents (the first: document {found[1] + 1}) are "
                      f"{'training documents too' if held else 'copies of one another'} "
                      "(a file joined to itself, or documents listed twice?): the validation "
                      "accuracy favours the models that memorise the training documents")


#: ``topics train`` options that only ``--model auto`` (the choice on validation) uses
AUTO_ONLY = ("valid_data", "valid_fraction", "time_budget", "jobs")


#: the fewest documents of a class that ``--model auto`` chooses on without a warning:
#: with fewer, the class is missing from some of the ``CV_FOLDS`` folds and each
#: candidate's accuracy on it rests on one document or two in the others
MIN_CLASS_DOCUMENTS = CV_FOLDS


def _warn_of_small_classes(docs):
    """One warning when the smallest class of ``docs`` (the training documents, or the
    ``--valid-data`` ones) has fewer than :data:`MIN_CLASS_DOCUMENTS`: the choice among
    the candidates is made on too few documents of it to be reliable."""
    names, counts = np.unique(np.asarray(docs.labels, dtype=str), return_counts=True)
    small = np.flatnonzero(counts < MIN_CLASS_DOCUMENTS)
    if not small.size:
        return
    k = small[np.argmin(counts[small])]
    others = (f" (and {counted(small.size - 1, 'other class', 'other classes')} of fewer "
              f"than {MIN_CLASS_DOCUMENTS})" if small.size > 1 else "")
    warnings.warn(f"{docs.path}: the class {names[k][:40]!r} has only "
                  f"{counted(int(counts[k]), 'document')}{others}: the model is chosen on too "
                  f"few documents per class (fewer than {MIN_CLASS_DOCUMENTS}) to be "
                  "reliable; give more documents of each class, or --model NAME to train "
                  "one model without a choice")


def _check_valid_fraction(args, docs, y):
    """Refuse a ``--valid-fraction`` that holds no document out (``1e-9``: it was "too few
    documents to hold out a validation set", blaming the data) or leaves one document of
    each class to fit the candidates on (``0.9999``: they failed on an empty vocabulary)."""
    from .auto import validation_split

    fit, valid = validation_split(y, args.valid_fraction, args.seed)
    f = f"--valid-fraction {args.valid_fraction}"
    if not valid.size:
        most = int(np.unique(y, return_counts=True)[1].max())
        raise UserError(f"{f} holds out no document: that share of each class of {docs.path} "
                        f"(the largest has {counted(most, 'document')}) rounds to none; give a "
                        "larger --valid-fraction, or --valid-data")
    if np.unique(y[fit], return_counts=True)[1].max() < 2:
        raise UserError(f"{f} leaves one document of each class of {docs.path} to fit the "
                        "candidates on; give a smaller one (default 0.2)")


def _choose_on_validation(args, docs, y, classes, overrides, info):
    """``--model auto``: the candidate chosen on validation documents (printed, and
    recorded in ``info``)."""
    from .auto import choose

    if args.analyzer == "char_wb":
        raise UserError("--analyzer char_wb trains one model on character n-grams: give "
                        "--model NAME too (--model auto tries them in its svm-chars "
                        "candidate where they fit the time budget)")
    if args.valid_data is None:
        _check_held_out_classes(args, docs, y)
    if args.valid_data is not None:   # --valid-fraction was silently ignored
        refuse_options(args, ("valid_fraction",), "holds training documents out when there "
                       "is no --valid-data: give one or the other")
    elif len(y) < CV_BELOW:
        refuse_options(args, ("valid_fraction",), "holds a share of the training documents "
                       f"out only from {CV_BELOW:,} of them; with {counted(len(y), 'document')}"
                       " the choice is made by 5-fold cross-validation over them all: leave "
                       "it out")
    elif options_given(args, "valid_fraction"):   # else the default's, or cross-validation
        _check_valid_fraction(args, docs, y)
    valid = _read_validation(args, classes)
    _warn_of_copies(docs, valid)
    _warn_of_small_classes(docs if valid is None else valid)
    release_notes()   # the inputs are checked: the lines held so far come now
    _log(args, f"{len(classes)} classes; choosing a model on validation documents")
    try:
        choice = choose(docs.texts, y, valid_texts=None if valid is None else valid.texts,
                        valid_labels=None if valid is None else valid.labels,
                        valid_fraction=(args.valid_fraction if options_given(
                            args, "valid_fraction") else None), seed=args.seed,
                        time_budget=args.time_budget, overrides=overrides,
                        log=lambda m: _log(args, m), jobs=args.jobs)
    except ValueError as exc:
        raise UserError(f"{docs.path}: {exc}") from exc
    for line in choice.lines():
        print(line)
    sys.stdout.flush()
    info["validation"] = {"how": choice.how, "n_valid": choice.n_valid,
                          "accuracy": {c.value: round(c.score, 6) for c in choice.ranked},
                          "chosen": choice.spec.name, "reason": choice.reason}
    return choice.spec


@_wrap
def topics_train(args):
    """``structpred topics train``."""
    from ._persist import save_model
    from .auto import spec_of

    check_output(args.output, "-o", [("--data", args.data), ("--valid-data", args.valid_data),
                                     ("--stop-words", args.stop_words if args.stop_words is not None
                                      and os.path.isfile(args.stop_words) else None)],
                 stdout=False)
    check_held_out([(("--data", args.data), ("--valid-data", args.valid_data))])
    docs = _read(args, "required")
    classes = _check_classes(docs, keep_case=args.keep_case)
    y = np.asarray(docs.labels, dtype=str)
    overrides = _vocabulary_overrides(args)
    user_params = _parse_params(args.param)
    # the input's path and format are not kept: the same documents as TSV, CSV or JSON
    # lines write the same model bytes, and predict/eval read their input with their options
    info = {"n_documents": len(docs), "n_classes": len(classes)}
    t_start = time.perf_counter()
    if args.model == "auto":
        if args.n_topics is not None or args.iterations is not None or user_params:
            raise UserError("--n-topics, --iterations and --param set one model's settings: "
                            "give --model too")
        spec = _choose_on_validation(args, docs, y, classes, overrides, info)
        model_name, est_params = spec.model, {}
    else:
        refuse_options(args, AUTO_ONLY,
                       f"is an option of --model auto (the choice on validation); --model "
                       f"{args.model} trains one model on all of --data")
        spec = spec_of(args.model)
        model_name = args.model
        mspec = MODELS[args.model]
        # --iterations N makes N passes: the default's floor of steps goes with its epochs
        est_params = {k: v for k, v in spec.params.items()
                      if not (args.n_topics is not None and k == mspec.topics)
                      and not (args.iterations is not None
                               and k in (mspec.iterations, "min_updates"))}
        est_params.update(user_params)
    _check_param_types(model_name, user_params, len(classes))
    try:
        est = make_estimator(model_name, n_topics=args.n_topics, iterations=args.iterations,
                             seed=args.seed, n_classes=len(classes),
                             params=spec.params if args.model == "auto" else est_params)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    try:
        if hasattr(est, "_check_params"):   # before the progress lines, not after them
            est._check_params()
    except ValueError as exc:
        raise UserError(f"{model_name}: {exc}") from exc
    vocab = spec.make_vocabulary(overrides)
    try:
        X = vocab.fit_transform(docs.texts)
    except ValueError as exc:
        raise UserError(f"{docs.path}: {exc}") from exc
    if X.sum() == 0:
        raise UserError(f"{docs.path}: no document has a word of the vocabulary")
    _check_documents_differ(docs, X)
    _check_topic_memory(model_name, est, X, len(classes))
    release_notes()
    _log(args, f"{len(classes)} classes, vocabulary of {_vocabulary_size(vocab)}; training "
               f"{spec.name if args.model == 'auto' else model_name} ({type(est).__name__}) "
               f"on all {len(docs)} documents")
    t0 = time.perf_counter()
    try:
        with quiet_class_count_guess():   # labels read from a file are no regression target
            est.fit(X, y)
    except ValueError as exc:
        raise UserError(f"{model_name}: {exc}") from exc
    secs = time.perf_counter() - t0
    info["fit_seconds"] = round(secs, 3)
    info["total_seconds"] = round(time.perf_counter() - t_start, 3)
    name = spec.name if args.model == "auto" else model_name
    skipped = save_model(args.output, est, model=name, vocabulary=vocab, info=info,
                         texts=docs.texts)
    # the result summary: printed with -q too, as -q's help says (it was hidden)
    note(f"trained {name} in {secs:.1f}s ({time.perf_counter() - t_start:.1f}s in all); model "
         f"written to {args.output}")
    if skipped:
        _log(args, f"note: not stored (not needed to predict): {', '.join(skipped)}")
    return 0


@_wrap
def topics_predict(args):
    """``structpred topics predict``."""
    from structpred.io import open_output

    check_output(args.output, "-o", [("--data", args.data), ("-m", args.model)],
                 kind="text")
    saved = _load(args.model)
    docs = _read(args, "optional")
    pred = _predict(saved, docs)
    with open_output(args.output) as fh:
        for p in pred:
            fh.write(p + "\n")
    if args.output != "-":
        _log(args, f"{counted(len(pred), 'label')} written to {args.output}")
    return 0


def _some(items, n=5):
    """The first ``n`` of ``items`` quoted, ``...`` and their number after them."""
    items = list(items)
    shown = ", ".join(map(repr, items[:n]))
    return shown if len(items) <= n else f"{shown}, ... ({len(items)} in all)"


def _check_known_labels(docs, known):
    """The labels of ``docs`` that the model does not know (sorted); none of them known is
    refused (the accuracy was 0 %, with exit status 0: the label column or the model is
    the wrong one)."""
    known = set(known)
    unseen = sorted({t for t in docs.labels if t not in known})
    if unseen and len(unseen) == len(set(docs.labels)):
        raise UserError(f"{docs.path}: no document has a label the model knows (its labels: "
                        f"{_some(sorted(known))}; the documents': {_some(unseen, 3)}): is the "
                        "label in the right column or field, and is this the model for these "
                        "documents?")
    return unseen


def _warn_training_documents(docs, saved, share=0.05):
    """One warning when ``share`` or more of ``docs`` (2 at least) are the model's training
    documents (the training file given as the test file, or test data that overlaps it):
    the accuracy measured on them is not that on unseen text (it was printed as if it were)."""
    from structpred import training_overlap

    found = training_overlap(docs.texts, saved.training_digests, share)
    if found is not None:
        n, first = found
        which = ("every one of them: is this the training file?" if n == len(docs) else
                 f"the first at {docs.sources[first]}")
        warnings.warn(f"{docs.path}: {n} of the {counted(len(docs), 'document')} are documents "
                      f"the model was trained on ({which}); the accuracy on them overstates "
                      "that on unseen text")


@_wrap
def topics_eval(args):
    """``structpred topics eval``."""
    check_output(args.plot, "--plot", [("--data", args.data), ("-m", args.model)], figure=True)
    saved = _load(args.model)
    docs = _read(args, "required")
    known = saved.labels   # as labels are read now: '1.0' of a model written before is 1
    _check_spellings(docs, known)
    unseen = _check_known_labels(docs, known)
    pred = _predict(saved, docs)
    _warn_training_documents(docs, saved)
    true = docs.labels
    labels = known + unseen
    cm = confusion_matrix(true, pred, labels)
    correct = int(np.trace(cm))
    acc = correct / len(true)
    if unseen:
        left = [i for i, t in enumerate(true) if t in set(unseen)]
        n = len(left)
        warnings.warn(f"{docs.sources[left[0]]}: {n} of the {len(true)} documents "
                      f"{'has a label' if n == 1 else 'have labels'} the model was not trained "
                      f"on ({_some(unseen)}), counted as errors (accuracy on the other "
                      f"{len(true) - n}: {100 * correct / (len(true) - n):.2f}%)")
    print(f"model: {saved.model} ({type(saved.estimator).__name__}), {len(saved.labels)} "
          f"classes, {_vocabulary_size(saved.vocabulary)}")
    print(f"accuracy: {100 * acc:.2f}% ({correct} of {counted(len(true), 'document')})")
    if len(labels) <= MAX_PRINTED_CLASSES or args.confusion:
        print("confusion matrix (rows: true label, columns: predicted label):")
        print(format_confusion(cm, labels))
    else:   # a matrix of 1,000 classes was megabytes of terminal output
        print(f"most confused (true label -> predicted label: documents); the matrix of "
              f"{len(labels):,} classes is printed with --confusion:")
        print("\n".join(top_confusions(cm, labels)))
    sys.stdout.flush()
    if args.plot:
        _plot_confusion(cm, labels, acc, args.plot, saved.model)
        _log(args, f"confusion matrix plot written to {args.plot}")
    return 0
