"""``structpred tag train|predict|eval``: sequence labelling of CoNLL-style column files.

Registered in the ``structpred.commands`` entry-point group (pyproject.toml).  Input: one
token per line, white-space separated columns (the word first, then optional feature
columns such as the POS tag, the label last), a blank line between sentences; ``.gz``
is fine, and ``predict`` reads standard input with ``-i -``.  CoNLL-U, GermEval 2014,
Universal NER, WikiNER, slash-tagged and word_TAG text and JSON lines are read too
(:func:`sequence.data.read_conll`), and ``predict`` writes each back in its layout.
"""

from __future__ import annotations

import collections
import json
import sys
import warnings

from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import UserError, add_quiet as _add_quiet, log as _log
from structpred.io import counted, release_notes
from structpred.cli import check_output, finite_float, positive_float, positive_int
from structpred.cli import check_held_out, refuse_options, seed_value
from structpred.cli import wrap_format_errors as _wrap_format_errors
from structpred.cli import iteration_count
from structpred import check_label_spellings

from .evaluate import IOBMixWarning, check_scheme, check_valid_scheme, iob_mix_message, is_iob
from .evaluate import tag_form_message

__all__ = ["add_parser", "tag_train", "tag_predict", "tag_eval", "DEFAULTS"]

#: tokens of a lone sentence that suggest a file without blank lines between sentences
LONG_SENTENCE = 100

#: the defaults of ``tag train``, chosen on validation splits of CoNLL-2000 and the
#: treebank POS sample (docs/results/sequence.md)
DEFAULTS = {"learner": "bregman", "feature_set": "full", "n_iter": 300, "eval_every": 5,
            "patience": 4, "relative_radius": float("inf"), "valid_fraction": 0.1}


def _fraction(text):
    v = finite_float(text)     # 'abc', '0x1': named as not a number, never "_fraction"
    if not 0.0 < v < 0.5:
        import argparse

        raise argparse.ArgumentTypeError(f"must be a number in (0, 0.5), got {text!r}")
    return v


def _positive_or_inf(text):
    """argparse ``type=``: a number > 0, or ``inf``."""
    if text.strip().lower() in ("inf", "infinity"):
        return float("inf")
    return positive_float(text)


PREDICT_HELP = ("Label the sentences of a column file; the output repeats the input columns "
                "and adds the predicted label. A label column in the input (one column more "
                "than the model was trained with) is dropped. Other layouts are written back "
                "in their own, the predicted label where the input's was (or added): CoNLL-U "
                "(its UPOS column), GermEval 2014 (its outer named entity), Universal NER, "
                "WikiNER (word|POS|TAG), slash-tagged (word/TAG) and word_TAG text, JSON lines "
                "(the label field, else one added: 'tags', or 'ner_tags' after HuggingFace's "
                "pos_tags and chunk_tags). A column file is written line for line, its "
                "-DOCSTART- and blank lines kept. Example:\n"
                "  structpred tag predict -m model.npz -i test.txt -o tagged.txt")


def add_parser(subparsers, name):
    """Add ``structpred tag`` (train, predict, eval) to ``subparsers``."""
    top = subparsers.add_parser(
        name, formatter_class=_Formatter, help="sequence labelling (chunking, POS tagging)",
        description="Train and apply max-margin sequence labellers (linear-chain Markov "
                    "networks trained by the dual extragradient) on CoNLL-style column "
                    "files. Example:\n"
                    "  structpred tag train --data train.txt.gz -o chunker.npz\n"
                    "  structpred tag eval -m chunker.npz --data test.txt.gz")
    sub = top.add_subparsers(dest="tag_command", required=True)

    tr = sub.add_parser(
        "train", formatter_class=_Formatter, help="train a tagger on a labelled column file",
        description="Fit a tagger and write it to a model file (.npz, no pickle). Every "
                    f"{DEFAULTS['eval_every']} iterations the tagger is scored on validation "
                    "sentences (chunk F1 for IOB labels, else token accuracy); the best "
                    "iterate is kept and training stops after --patience validations without "
                    "improvement. Without --valid-data every 10th training sentence "
                    "validates (a deterministic split) and the rest train; the model "
                    "written is then trained on all the sentences for the chosen number of "
                    "iterations.\n"
                    "Example:\n  structpred tag train --data train.txt.gz -o model.npz")
    tr.add_argument("--data", required=True, metavar="FILE",
                    help="labelled training sentences (columns: word [features...] label; or "
                         "CoNLL-U, tagged with UPOS; GermEval 2014, its outer entities; Universal "
                         "NER; WikiNER word|POS|TAG; word/TAG or word_TAG; HuggingFace JSON lines)")
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    _add_label_names(tr)
    tr.add_argument("--valid-data", metavar="FILE", help="labelled validation sentences")
    tr.add_argument("--valid-fraction", type=_fraction, default=DEFAULTS["valid_fraction"],
                    metavar="F", help="share of the training sentences that validates when "
                                      "there is no --valid-data")
    tr.add_argument("--learner", choices=["bregman", "euclidean", "perceptron"],
                    default=DEFAULTS["learner"],
                    help="dual extragradient with KL steps over chain marginals (bregman), "
                         "with Euclidean projections (euclidean; slow: a QP per step), or the "
                         "averaged perceptron")
    tr.add_argument("--features", choices=["full", "window"], default=DEFAULTS["feature_set"],
                    help="feature templates: window = words and POS at -2..2; full = window + "
                         "affixes, shapes and word bigrams")
    tr.add_argument("--iterations", type=iteration_count, default=DEFAULTS["n_iter"], metavar="N",
                    help="iterations at most (perceptron: epochs)")
    tr.add_argument("--patience", type=positive_int, default=DEFAULTS["patience"], metavar="N",
                    help="stop after N validations without improvement")
    tr.add_argument("--radius", type=_positive_or_inf, default=None, metavar="GAMMA",
                    help="bound ||w|| <= GAMMA, the regulariser (smaller: stronger; 'inf': "
                         "no bound); default: --relative-radius times the square root of the "
                         "training tokens")
    tr.add_argument("--relative-radius", type=_positive_or_inf,
                    default=DEFAULTS["relative_radius"], metavar="R",
                    help="the radius per square root of a training token, when --radius is "
                         "not given ('inf': no bound, the validation set stops)")
    tr.add_argument("--first", type=positive_int, metavar="N",
                    help="use only the first N sentences of --data")
    tr.add_argument("--seed", type=seed_value, default=0, help="random seed")
    _add_quiet(tr)
    tr.set_defaults(handler=tag_train)

    pr = sub.add_parser("predict", formatter_class=_Formatter, help="label sentences",
                        description=PREDICT_HELP)
    pr.add_argument("-m", "--model", required=True, metavar="NPZ", help="model file")
    pr.add_argument("-i", "--input", "--data", dest="input", default="-", metavar="FILE",
                    help="sentences to label ('-': standard input)")
    pr.add_argument("-o", "--output", default="-", metavar="FILE",
                    help="where to write ('-': standard output)")
    _add_label_names(pr, "JSON lines: write the predicted labels as their integer ids in "
                         "these names (one a line in the order of the ids, or a JSON list)")
    _add_quiet(pr)
    pr.set_defaults(handler=tag_predict)

    ev = sub.add_parser(
        "eval", formatter_class=_Formatter, help="score a tagger on labelled sentences",
        description="Predict labelled sentences and print token accuracy and, for IOB labels, "
                    "chunk precision, recall and F1 (the rules of the CoNLL conlleval "
                    "script). Example:\n  structpred tag eval -m model.npz --data test.txt.gz")
    ev.add_argument("-m", "--model", required=True, metavar="NPZ", help="model file")
    ev.add_argument("--data", required=True, metavar="FILE", help="labelled sentences")
    ev.add_argument("--json", action="store_true", help="print the scores as JSON")
    _add_label_names(ev)
    _add_quiet(ev)
    ev.set_defaults(handler=tag_eval)
    return top


def _add_label_names(parser, text="the names of integer tag ids in JSON lines (HuggingFace "
                                   "datasets), one a line in the order of the ids, or a JSON "
                                   "list"):
    parser.add_argument("--label-names", metavar="FILE", help=text)


def _label_names(args):
    """The names of ``--label-names FILE`` (``None`` without it): one a line, or a JSON list
    of strings; refused naming the file (and line) when empty, spaced or repeated."""
    path = getattr(args, "label_names", None)
    if path is None:
        return None
    from structpred.cli import check_stdin
    from structpred.io import FormatError, read_lines

    check_stdin(**{"--label-names": path, "-i": getattr(args, "input", None),
                   "--data": getattr(args, "data", None),
                   "--valid-data": getattr(args, "valid_data", None)})

    lines = [(k, t.strip()) for k, t in read_lines(path) if t.strip()]
    if lines and lines[0][1].startswith("["):
        try:
            names = json.loads("\n".join(t for _, t in lines))
        except ValueError as exc:
            raise FormatError(path, None, f"not a JSON list ({getattr(exc, 'msg', exc)})") \
                from None
        if not isinstance(names, list) or not all(isinstance(t, str) for t in names):
            raise FormatError(path, None, "a JSON list of label names must hold strings only")
    else:
        spaced = next(((k, t) for k, t in lines if len(t.split()) > 1), None)
        if spaced is not None:
            raise FormatError(path, spaced[0], f"{spaced[1][:30]!r} holds white space: a label "
                              "name is one word, one a line")
        names = [t for _, t in lines]
    from .data import _check_label_names

    try:
        return _check_label_names(names)
    except ValueError as exc:
        raise UserError(f"{path}: {exc}".replace("label_names", "--label-names")) from None


def _load(path):
    from .model import load_tagger

    return load_tagger(path)


#: ``tag train`` options of the dual extragradient's norm bound (the perceptron has none)
BOUND_ONLY = ("radius", "relative_radius")


def _warn_of_copies(where, Xt, Xv):
    """A warning when half or more of the validation sentences (2 at least) are training
    sentences too (a file joined to itself, ``cat a.txt a.txt``, or a validation file cut
    from the training one): their score favours the iterations that fit the training
    sentences, and the iteration chosen was silently biased."""
    from structpred import text_digests, training_overlap

    from .evaluate import sentence_texts

    found = training_overlap(sentence_texts(Xv), text_digests(sentence_texts(Xt)), 0.5)
    if found:
        words = [tok[0] if isinstance(tok, (tuple, list)) else str(tok) for tok in Xv[found[1]]]
        first = " ".join(words[:6]) + (" ..." if len(words) > 6 else "")
        warnings.warn(f"{where}: {found[0]} of the {len(Xv)} validation sentences (the first: "
                      f"{first!r}) are training sentences too (a file joined to itself, or "
                      "sentences listed twice?): their score favours the iterations that fit "
                      "the training sentences, not new ones")


def _check_validation_can_score(args, train, valid, labels):
    """Refuse validation sentences on which every model scores 0, so that their score
    cannot choose the iteration: with IOB labels, no chunk at all, or no chunk of a type
    that the training sentences hold; with other labels, no label that training holds.
    Warn of validation sentences that are mostly training ones (:func:`_warn_of_copies`)."""
    from .evaluate import chunks, is_iob

    (Xt, yt), (Xv, yv) = train, valid

    if args.valid_data:   # each file is clean alone: the two schemes together
        try:
            check_valid_scheme(yt, yv, str(args.valid_data))
        except ValueError as exc:
            raise UserError(str(exc)) from None
    where = args.valid_data or f"{args.data} (the held-out every-10th sentences)"
    if is_iob(labels):
        valid_types = {c[2] for s in yv for c in chunks(s)}
        if not valid_types:
            raise UserError(f"{where}: the validation sentences hold no chunk, so their chunk "
                            "F1 cannot choose the iteration: give --valid-data with chunks, "
                            "or more sentences")
        if not valid_types & {c[2] for s in yt for c in chunks(s)}:
            raise UserError(f"{where}: no validation chunk has a type that the training "
                            f"sentences hold (validation: {', '.join(sorted(valid_types)[:5])}), "
                            "so every model scores chunk F1 0 on them: is it the validation "
                            "file of this data?")
    elif not {t for s in yv for t in s} & {t for s in yt for t in s}:
        raise UserError(f"{where}: no validation label occurs in the training sentences, so "
                        "every model scores accuracy 0 on them: is it the validation file of "
                        "this data?")
    _warn_of_copies(where, Xt, Xv)


def _check_spellings(path, y, known=None):
    """Refuse labels of ``path`` that are one label spelled twice (``B-NP`` and ``b-np``, or
    against the model's labels ``known``): :func:`structpred.check_label_spellings`."""
    labels = sorted({t for s in y for t in s})
    try:
        check_label_spellings(labels, known, name=str(path))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if known is None:
        try:
            check_scheme(y, str(path))
        except ValueError as exc:
            raise UserError(str(exc)) from None
        for mix in (iob_mix_message(y), tag_form_message(labels)):   # the file's numbers
            if mix is not None:
                warnings.warn(f"{path}: {mix}")
    if known is None and not is_iob(set(labels)) and is_iob({t.upper() for t in labels}):
        # conlleval reads upper-case B-/I- prefixes only: "b-np" is a plain label
        warnings.warn(f"{path}: the labels ({', '.join(labels[:3])}, ...) look like chunk tags "
                      "in lower case: they are scored by token accuracy, not chunk F1; "
                      "upper-case their prefixes (B-, I-) for chunk F1")


def _fit_without_iob_mix_warning(tagger, *args, **kwargs):
    """``tagger.fit(*args, **kwargs)`` without its :class:`IOBMixWarning`: ``tag train``
    says it once, of the whole file and with its sentence numbers (:func:`_check_spellings`),
    not of the sentences left after the validation split."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IOBMixWarning)
        return tagger.fit(*args, **kwargs)


@_wrap_format_errors
def tag_train(args):
    from .data import deterministic_split, read_conll

    check_output(args.output, "-o", inputs=[("--data", args.data), ("--valid-data", args.valid_data),
                                            ("--label-names", args.label_names)], stdout=False)
    if args.learner == "perceptron":
        refuse_options(args, BOUND_ONLY,
                       "bounds the dual extragradient's weights: the perceptron has no bound")
    check_held_out([(("--data", args.data), ("--valid-data", args.valid_data))])
    if args.radius is not None:   # --relative-radius applies only without --radius
        refuse_options(args, ("relative_radius",), "sets the radius when --radius is not "
                       "given: give one or the other")
    if args.valid_data:
        refuse_options(args, ("valid_fraction",), "holds training sentences out when there is "
                       "no --valid-data: give one or the other")
    names = _label_names(args)
    X, y = read = read_conll(args.data, label_names=names)
    _check_spellings(args.data, y)
    if args.first:
        X, y = X[:args.first], y[:args.first]
    if args.valid_data:
        Xv, yv = valid = read_conll(args.valid_data, label_names=names)
        if len(Xv[0][0]) != len(X[0][0]):
            # it was "expected 3 columns, found 2", or of a CoNLL-U file "the model was
            # trained on a file with feature columns" before any model
            raise UserError(f"{args.valid_data}: {_labelled_columns(valid)}, "
                            f"but --data's {_labelled_columns(read, short=True)}: "
                            "validation sentences need the columns of the training ones")
        Xt, yt = X, y
    else:
        if len(X) < 2:
            hint = (f": its {len(X[0])} tokens are one sentence; are sentences separated by "
                    "blank lines?" if X and len(X[0]) >= LONG_SENTENCE else "")
            raise UserError(f"{args.data}: needs at least 2 sentences to hold some out for "
                            f"validation (or give --valid-data){hint}")
        tr, va = deterministic_split(len(X), args.valid_fraction)
        Xt, yt = [X[i] for i in tr], [y[i] for i in tr]
        Xv, yv = [X[i] for i in va], [y[i] for i in va]
    _check_spellings(args.valid_data or args.data, yv, {t for s in yt for t in s})
    _check_validation_can_score(args, (Xt, yt), (Xv, yv),
                                {t for s in y for t in s} | {t for s in yv for t in s})
    unseen = sorted({t for s in yv for t in s} - {t for s in yt for t in s})
    if unseen:
        _log(args, f"note: validation labels that never occur in training: {len(unseen)} "
                   f"({', '.join(unseen[:5])}); they count as errors")
    _log(args, f"read {counted(len(X), 'sentence')}; training on {len(Xt)}, validating on "
               f"{len(Xv)}")
    from .model import SequenceTagger    # after reading: bad input fails fast

    tagger = SequenceTagger(learner=args.learner, feature_set=args.features,
                            n_iter=args.iterations, patience=args.patience,
                            eval_every=DEFAULTS["eval_every"],
                            radius=args.radius, relative_radius=args.relative_radius,
                            refit=not args.valid_data,
                            random_state=args.seed, verbose=not args.quiet)
    release_notes()   # the inputs are checked: the lines held so far come now
    try:
        _fit_without_iob_mix_warning(tagger, Xt, yt, eval_set=(Xv, yv))
    except ValueError as exc:
        raise UserError(f"{args.data}: {exc}") from exc
    best = tagger.history_.get("validation", [])
    score = max(best) if best else float("nan")
    what = "chunk F1" if tagger.iob_ else "accuracy"
    if best and score == 0:
        # a model that scores nothing on validation was written with exit status 0 and
        # "validation chunk F1 0.00" in the summary only
        warnings.warn(f"{args.valid_data or args.data}: the validation {what} is 0 at every "
                      f"validation: the model learnt nothing it could score"
                      + (f" (--radius {args.radius:g} bounds its weights too tightly?)" if
                         args.radius not in (None, float("inf")) else " (too few iterations?)"))
    n_final = tagger.refit_sentences_ or len(Xt)
    tagger.save(args.output, info={"data": str(args.data), "sentences": n_final,
                                   "valid_sentences": len(Xv)})
    final = (f"; then trained on all {counted(n_final, 'sentence')} for "
             f"{counted(tagger.best_iter_ + 1, 'iteration')}" if tagger.refit_sentences_ else "")
    print(f"trained {args.learner} on {counted(len(Xt), 'sentence')} "
          f"({counted(len(tagger.features_), 'feature')}, "
          f"{counted(len(tagger.classes_), 'label')}) in {tagger.fit_time_:.1f} s; "
          f"{counted(tagger.n_iter_, 'iteration')}, best at {tagger.best_iter_}: validation {what} "
          f"{score:.2f}{final}; wrote {args.output}")
    return 0


@_wrap_format_errors
def tag_predict(args):
    from structpred.io import open_output

    from structpred.io import read_lines

    from .data import read_conll

    check_output(args.output, "-o", inputs=[("-i", args.input), ("-m", args.model),
                                            ("--label-names", args.label_names)], kind="text")
    tagger = _load(args.model)
    names = _label_names(args)
    lines = list(read_lines(args.input))   # standard input is read once
    known = set(tagger.classes_).union(*(v for _, _, v in _column_values(tagger, [])))
    read = read_conll(args.input, labelled=False, _lines=lines, label_names=names,
                      known_tags=known)   # short lower-case word_tag text: the model's tags
    X, layout = read[0], read.layout   # written back in the layout it was read in
    tabbed = layout.kind not in INLINE + ("columns",)   # CoNLL-U, GermEval 2014, UNER
    conllu = layout.kind.startswith("CoNLL-U")
    n_cols = len(X[0][0])
    dropped = n_cols == tagger.n_columns_ + 1 and not tabbed   # the input's label column
    if dropped:
        _refuse_index_column(args.input, X)
        if layout.kind == "columns":
            _refuse_words_as_labels(args.input, X, tagger.classes_)
        X = [[tok[:-1] for tok in s] for s in X]
    elif n_cols != tagger.n_columns_:
        what = f"its word lines have {counted(n_cols, 'column')}"
        if n_cols == 1 and conllu:
            what = "a CoNLL-U file, read as its word forms alone (1 column)"
        raise UserError(f"{args.input}: {what}, but the model was trained on "
                        f"{tagger.n_columns_} (+ the label)")
    if layout.kind == "columns":
        _refuse_comment_lines(args.input, lines, tagger, dropped)
    _check_feature_column(args.input, tagger, X)
    _warn_one_sentence(args.input, X, layout)
    pred = tagger.predict(X)
    _check_id_labels(args.input, layout, lines, (dropped, names), tagger.classes_)
    with open_output(args.output) as fh:
        _write_predictions(fh, (lines, layout, X), pred, dropped, names)
    _log(args, f"labelled {counted(len(X), 'sentence')}")
    return 0


#: the layouts of :mod:`sequence.layouts`, written back by :func:`sequence.layouts.write_inline`
INLINE = ("JSON lines", "WikiNER", "slash", "word_TAG")


def _write_predictions(fh, read, pred, dropped, names):
    """Write the predicted labels ``pred`` of the input ``read`` (its lines, its layout and
    its sentences) in the layout it was read in: a column file as columns, CoNLL-U, GermEval 2014 and Universal NER with their label column set, the layouts of
    :mod:`sequence.layouts` with the tag of each token replaced (``dropped``) or added
    (``word/POS`` as ``word/POS/TAG``, read back as three parts), line for line."""
    from .data import write_conll, write_tabbed
    from .layouts import write_inline

    lines, layout, X = read
    if layout.kind == "columns":   # line for line: -DOCSTART- and blank lines kept
        write_conll(fh, X, pred, lines)
    elif layout.kind in INLINE:
        write_inline(fh, lines, layout, pred, dropped, names)
    else:
        write_tabbed(fh, lines, pred, layout.kind)


def _check_id_labels(path, layout, lines, how, classes):
    """Refuse ``--label-names`` that do not name every label of the model; warn when the
    label field of JSON lines held integer ids and no names are given to write them so
    (the names are written)."""
    dropped, names = how
    if names is not None:
        missing = sorted(set(classes) - set(names))
        if missing:
            raise UserError(f"{path}: --label-names does not name every label of "
                            f"the model ({_some(missing, 3)} have no id), so they cannot be "
                            "written as ids")
        return
    if layout.kind != "JSON lines" or not dropped:
        return
    first = json.loads(next(line for _, line in lines if line.strip()))
    values = first.get(layout.fields[1][-1]) or []
    if any(isinstance(v, int) and not isinstance(v, bool) for v in values):
        warnings.warn(f"{path}: the '{layout.fields[1][-1]}' are integer ids; the predicted "
                      "labels are written as names in their place (give --label-names FILE, "
                      "the names of the ids, to write ids)")


def _warn_one_sentence(path, X, layout):
    """One warning when a file of a token per line (column files, CoNLL-U, ...) is one
    sentence of :data:`LONG_SENTENCE` tokens or more: a file without blank lines between
    its sentences, tagged and scored as one (features and chunks across sentence ends)."""
    if len(X) == 1 and len(X[0]) >= LONG_SENTENCE and layout.kind not in INLINE:
        warnings.warn(f"{path}: its {len(X[0])} tokens are one sentence, tagged as one: are "
                      "sentences separated by blank lines?")


def _refuse_words_as_labels(path, X, classes):
    """Refuse a file of one sentence (no blank line) of two tokens or more whose last
    column, to be dropped as the label column, holds none of the model's labels and more
    kinds than half its tokens (words, not a closed set of tags or a placeholder ``x``):
    lines of two words (tokenised text, a sentence per line) were read as one sentence
    whose second words were dropped, and the first words tagged."""
    dropped = [tok[-1] for s in X for tok in s]
    if (len(X) == 1 and len(dropped) >= 2 and not set(dropped) & set(classes)
            and len(set(dropped)) > len(dropped) / 2):
        raise UserError(f"{path}: its {len(dropped)} lines are one sentence whose last column "
                        f"({_some(list(dict.fromkeys(dropped)), 3)}) holds none of the model's "
                        "labels, dropped as a label column: a sentence per line? a column file "
                        "has one token per line and a blank line after each sentence (if the "
                        "column is a feature the model does not read, cut it off)")


def _refuse_comment_lines(path, lines, tagger, dropped):
    """Refuse a line of a column file that starts with ``#`` and reads as a comment, as
    :func:`sequence.data.read_conll` refuses one in labelled files: its last column (the
    label column when ``dropped``, else the last feature column) holds a value that neither
    the model knows there nor a line not starting with ``#`` holds, and is no ``#``, ``O``
    or chunk tag, at the start of a sentence or after a ``#`` alone (``# sent 2``, tagged
    as a token with exit 0); a ``#`` token of a known value (``# NN``, ``# # O``) is
    tagged."""
    from .data import _comment_label

    if dropped:
        known = set(tagger.classes_)
    elif tagger.n_columns_ >= 2:
        known = _column_values(tagger, [])[-1][2]
    else:
        return
    known = known | {line.split()[-1] for _, line in lines
                     if line.strip() and not line.startswith("#")}
    start = True
    for lineno, line in lines:
        fields = line.split()
        if fields and fields[0] != "-DOCSTART-" and fields[0].startswith("#") and (
                start or fields[0] == "#") and _comment_label(fields) and fields[-1] not in known:
            what = "label" if dropped else f"column {len(fields)}"
            raise UserError(f"{path}:{lineno}: a line that starts with '#' and whose {what} "
                            f"{fields[-1][:30]!r} is none the model knows: a comment? column "
                            "files have none (only CoNLL-U's are read): remove it")
        start = not fields or fields[0] == "-DOCSTART-"


def _refuse_index_column(path, X):
    """Refuse input whose first column numbers the tokens of every sentence (1, 2, ...): a
    GermEval 2014 or CoNLL-U file without its label columns (``index token``) had its
    words dropped as the "label column" and was tagged from the numbers."""
    lengths = [len(s) for s in X]
    if sum(lengths) >= 3 and max(lengths) >= 2 and all(
            [tok[0] for tok in s] == [str(i) for i in range(1, len(s) + 1)] for s in X):
        raise UserError(f"{path}: its first column numbers the tokens of every sentence "
                        "(1, 2, ...), so the words would be dropped as a label column and the "
                        "numbers tagged: give the words first (e.g. cut -f2), or the file "
                        "with all its columns (GermEval 2014: index, token and both "
                        "entity columns)")


#: a feature column of at least this many tokens, fewer than half of them of values the
#: model saw there, is warned of (:func:`_warn_other_columns`)
OVERLAP_TOKENS = 50


def _column_values(tagger, X):
    """``(column, values, known)`` of every feature column of the sentences ``X`` (2, the
    POS, and on): the values of its tokens (as the features read them) and those the
    model saw there in training (:func:`sequence.features.column_values`)."""
    from structpred.io import word_form

    from .features import column_values

    names = tagger.features_.names
    return [(k, [v if v.isascii() else word_form(v) for v in (tok[k - 1] for s in X for tok in s)],
             column_values(names, k)) for k in range(2, tagger.n_columns_ + 1)]


def _check_feature_column(path, tagger, X):
    """Refuse input whose second column holds the model's labels where the model reads a
    feature column (POS): ``word label`` given to a model of ``word POS label`` has as
    many columns as ``word POS`` and would be tagged from the labels, silently wrong; and
    one whose column 2 holds under a tenth of values the model saw there.  Then warn of
    every feature column that overlaps little with training's (:func:`_warn_other_columns`)."""
    columns = _column_values(tagger, X)
    if not columns:
        return
    _, values, known = columns[0]
    labels = set(tagger.classes_)
    as_label = sum(v in labels and v not in known for v in values)
    as_feature = sum(v in known for v in values)
    if as_label > len(values) / 2 and as_feature < len(values) / 10:
        raise UserError(f"{path}: column 2 holds the model's labels ({as_label} of "
                        f"{len(values)} tokens, e.g. {next(v for v in values if v in labels)!r}),"
                        f" but the model reads column 2 as a feature (in training, the column "
                        f"before the label, e.g. POS tags): give the {tagger.n_columns_} "
                        f"columns it was trained on, with or without the label after them")
    if known and (as_feature < len(values) / 10 if len(values) >= 10
                  else as_feature == 0 and len(values) >= 2):
        # words in column 2 (a file of one sentence per line, read as one sentence of
        # 2-word tokens) or another tag set: tagged from features the model never saw
        unknown = list(dict.fromkeys(v for v in values if v not in known))
        hint = (f"; its {len(X[0])} lines are one sentence: a column file has one token "
                "per line and a blank line after each sentence" if len(X) == 1 else "")
        raise UserError(f"{path}: column 2 holds values the model never saw there ("
                        f"{as_feature} of {len(values)} tokens known, e.g. {_some(unknown, 3)}),"
                        f" but the model reads column 2 as a feature (in training, the column "
                        f"before the label, e.g. POS tags){hint}")
    _warn_other_columns(path, columns, max(int(getattr(tagger, "min_count", 2)), 1))


def _little_overlap(values, known, min_count=2):
    """``(the first value the model did not see, the tokens of a value it saw)`` when
    ``values`` overlap little with ``known`` (those the model has features of: seen
    ``min_count`` times or more in training): of :data:`OVERLAP_TOKENS` tokens or more,
    judged by the values the input holds ``min_count`` times or more (the rule that made
    ``known``: a value training held fewer times is not in it, so the input's rare values
    tell nothing), fewer than half of their tokens of a value known, or fewer than half of
    these values (3 at least: another tag set sharing only ``O`` with training's chunk
    tags, its ``O`` most of the tokens); else ``None``."""
    if len(values) < OVERLAP_TOKENS or not known:
        return None
    counts = collections.Counter(values)
    repeated = [v for v, n in counts.items() if n >= min_count]
    judged = sum(counts[v] for v in repeated)
    known_repeated = [v for v in repeated if v in known]
    if (sum(counts[v] for v in known_repeated) < judged / 2
            or len(repeated) >= 3 and len(known_repeated) < len(repeated) / 2):
        seen = sum(n for v, n in counts.items() if v in known)
        return next(v for v in values if v not in known), seen
    return None


def _warn_other_columns(path, columns, min_count=2):
    """One warning naming each feature column (``(column, values, known)``) whose values
    overlap little with those the model knows there (:func:`_little_overlap`, ``min_count``
    the model's): a file of other columns (``word POS NER`` given to a model of ``word POS
    chunk``) was tagged from features the model never saw, silently."""
    found = [(k, *hit, len(values)) for k, values, known in columns
             for hit in [_little_overlap(values, known, min_count)] if hit is not None]
    if found:
        warnings.warn(f"{path}: " + "; ".join(
            f"column {k} holds values the model seldom saw there ({n} of {m} tokens known, "
            f"e.g. {v[:30]!r})" for k, v, n, m in found)
            + ": is it the column the model was trained on? tagged from features it never saw")


def _labelled_columns(read, short=False):
    """The columns of a labelled file as :func:`sequence.data.read_conll` read it, in words
    (told by its ``layout``: the file is not read again, which a pipe cannot be)."""
    n = len(read[0][0][0]) + 1
    if n == 2 and read.layout.kind.startswith("CoNLL-U"):
        return ("are CoNLL-U word lines" if short else "a CoNLL-U file") + \
            ", read as word forms and labels (2 columns)"
    return f"{'have' if short else 'its word lines have'} {counted(n, 'column')} (the label last)"


def _some(items, n=5):
    """The first ``n`` of ``items`` quoted, and their number when there are more."""
    items = list(items)
    shown = ", ".join(repr(t[:30]) for t in items[:n])
    return shown if len(items) <= n else f"{shown}, ... ({len(items)} in all)"


def _check_known_labels(path, y, tagger):
    """Refuse gold labels none of which the model knows (token accuracy 0 with exit
    status 0: another tag set, or the label not in the last column), and for a chunker
    gold chunks none of whose types it knows (only ``O`` in common: chunk F1 0); warn of
    some unknown labels among known ones (counted as errors: the model cannot predict
    them)."""
    from .evaluate import _split as split_tag, chunk_spelling, chunks

    known = set(tagger.classes_)
    gold = sorted({t for s in y for t in s})
    unseen = [t for t in gold if t not in known]
    hint = ("is the label the last column, and is this the model for this file "
            "(another tag set?)")
    if len(unseen) == len(gold):
        raise UserError(f"{path}: no token has a label the model knows (its labels: "
                        f"{_some(sorted(known))}; the file's: {_some(unseen, 3)}): {hint}")
    if tagger.iob_:
        types = {c[2] for s in y for c in chunks(s)}
        if not types:
            # chunk recall and F1 are undefined: "F1 0.00" was printed, exit 0
            raise UserError(f"{path}: no chunk in the gold labels (every one is "
                            f"{_some(gold, 3)}), so chunk recall and F1 are undefined: "
                            "give sentences with chunks")
        model_types = {split_tag(t)[1] for t in known if split_tag(t)[0] != "O"}
        if types and not types & model_types:
            raise UserError(f"{path}: no chunk has a type the model knows (its types: "
                            f"{_some(sorted(model_types))}; the file's: "
                            f"{_some(sorted(types), 3)}), so chunk F1 is 0 whatever it "
                            f"predicts: {hint}")
    if unseen:
        bad = set(unseen)
        n = sum(t in bad for s in y for t in s)
        first = next(i for i, s in enumerate(y) if any(t in bad for t in s))
        other = {"L": "E", "U": "S", "E": "L", "S": "U"}
        spelt = {chunk_spelling(t): t for t in known} if tagger.iob_ else {}
        scheme = ("; the file writes chunk ends and single-token chunks as BILOU's L-/U- or "
                  "IOBES's E-/S- and the model as the other: chunk F1 reads both alike, token "
                  "accuracy does not" if any(c and c[0] in other and other[c[0]] + c[1:] in spelt
                                             for c in map(chunk_spelling, unseen)) else "")
        twin = next(((t, spelt[chunk_spelling(t)]) for t in unseen
                     if chunk_spelling(t) in spelt), None)
        if twin is not None:
            scheme += (f"; the file writes chunk tags otherwise than the model ({twin[0]} for "
                       f"{twin[1]}): chunk F1 reads both alike, token accuracy does not")
        warnings.warn(f"{path}: {n} of the {sum(map(len, y))} tokens (the first in sentence "
                      f"{first + 1}) have labels the model was not trained on "
                      f"({_some(unseen)}), counted as errors{scheme}")


def _warn_other_scheme(path, y, tagger):
    """One warning when a chunker's gold labels write chunks in IOB and the model's in
    IOBES or BILOU (or the other way round): chunk F1 reads both alike, token accuracy
    counted every chunk end written otherwise as an error (44.50 for 87.45 chunk F1)."""
    from .evaluate import _ends_chunk, _starts_marked, chunk_scheme, iob_variant

    if not tagger.iob_ or not (_starts_marked(tagger.classes_)
                               or _starts_marked(t for s in y for t in s)):
        return   # IOE tags (I-, E-) on both sides: no chunk is written as IOB's
    ours = "IOBES (BILOU)" if any(map(_ends_chunk, tagger.classes_)) else "IOB"
    theirs = chunk_scheme(y)
    if theirs is not None and theirs != ours:
        warnings.warn(f"{path}: the gold chunk tags are {theirs}, the model's {ours}: chunk "
                      "F1 reads both schemes alike, but token accuracy counts each token "
                      "the two write differently (chunk ends, chunks of one token) as an "
                      "error; convert the file to the model's scheme for a token accuracy")
        return
    trained = getattr(tagger, "iob_variant_", None)   # None: an older model, or not told
    given = iob_variant(y) if trained is not None else None
    if given is not None and given != trained:
        warnings.warn(f"{path}: the gold chunk tags are {IOB_VARIANTS[given]}, the model's "
                      f"(and its predictions) {IOB_VARIANTS[trained]}: chunk F1 reads both "
                      "alike, but token accuracy counts the first token of each chunk the "
                      "two write differently as an error; convert the file to "
                      f"{trained} for a token accuracy")


#: the two IOB schemes, as the warning of tag eval names them
IOB_VARIANTS = {"IOB1": "IOB1 (a chunk starts at I-, B- only after a chunk of its type)",
                "IOB2": "IOB2 (every chunk starts at B-)"}


def _warn_training_sentences(path, X, tagger):
    """One warning when the sentences ``X`` of ``path`` are (5 % or more of them) sentences
    the tagger was trained on (the training file given as test data): the score measured
    on them was printed as any other.  A model written before the training sentences'
    digests were kept says nothing."""
    from structpred import training_overlap

    from .evaluate import sentence_texts

    found = training_overlap(sentence_texts(X), getattr(tagger, "training_digests_", None))
    if found is None:
        return
    n, first = found
    if n == len(X):
        warnings.warn(f"{path} is the data the model was trained on (all of its "
                      f"{counted(n, 'sentence')}); its score is not a test score")
    else:
        warnings.warn(f"{path}: {n} of the {counted(len(X), 'sentence')} (the first: "
                      f"sentence {first + 1}) are sentences the model was trained on; the "
                      "score overstates that on unseen text")


@_wrap_format_errors
def tag_eval(args):
    from .data import read_conll
    from .evaluate import evaluate

    tagger = _load(args.model)
    read = read_conll(args.data, label_names=_label_names(args))
    (X, y), layout = read, read.layout
    _warn_one_sentence(args.data, X, layout)
    n_cols = len(X[0][0])
    if n_cols != tagger.n_columns_:
        # "expected 3 columns, found 2" named neither the model nor which file was wrong
        raise UserError(f"{args.data}: {_labelled_columns(read)}, but the model was "
                        f"trained on {tagger.n_columns_} (+ the label)")
    _check_spellings(args.data, y, tagger.classes_)
    _check_feature_column(args.data, tagger, X)
    _check_known_labels(args.data, y, tagger)
    _warn_other_scheme(args.data, y, tagger)
    _warn_training_sentences(args.data, X, tagger)
    scores = evaluate(y, tagger.predict(X), iob=tagger.iob_)
    if args.json:
        print(json.dumps(scores, sort_keys=True))
        return 0
    line = (f"{counted(scores['sentences'], 'sentence')}, {counted(scores['tokens'], 'token')}: "
            f"accuracy {scores['accuracy']:.2f}")
    if tagger.iob_:
        line += (f"; chunks: precision {scores['precision']:.2f}, recall "
                 f"{scores['recall']:.2f}, F1 {scores['f1']:.2f}")
    print(line)
    sys.stdout.flush()
    return 0
