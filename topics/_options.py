"""The options of ``structpred topics train|predict|eval`` (:mod:`topics.cli` builds the
parsers with them): the input options, ``train``'s model, validation and vocabulary
options, and the argparse types that read their values."""

from __future__ import annotations

import argparse
import textwrap

from structpred.cli import HelpFormatter as _Formatter
from structpred.cli import at_most, iteration_count, jobs_count, nonneg_float, positive_int
from structpred.cli import seed_value

from .registry import CV_BELOW, CV_FOLDS, MODELS, VALID_FRACTION

__all__ = ["DEFAULT_MODEL", "DEFAULT_N_TOPICS", "add_data", "add_train_parser",
           "add_validation_options", "add_vocabulary_options"]


#: ``--model auto`` (the default): a candidate chosen on validation documents (topics.auto)
DEFAULT_MODEL = "auto"
DEFAULT_N_TOPICS = 20


def _df(text):
    """``--min-df``: a document count (whole number) or a fraction of the documents."""
    try:
        v = int(text)
    except ValueError:
        try:
            v = float(text)
            if "_" in text:   # '0_5' is 5.0 to Python: a mistyped decimal point
                raise ValueError(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a count or a fraction, got {text!r}") from None
        if v >= 1.0 and v.is_integer():
            # "a fraction if N < 1": 1.0 and 2.0 are counts (1.0 was read as scikit-learn
            # reads it, a fraction of all the documents, and 2.0 refused)
            return positive_int(str(int(v)))
        if not 0.0 <= v < 1.0:
            raise argparse.ArgumentTypeError(f"expected a count (a whole number >= 1) or a "
                                             f"fraction in [0, 1), got {text!r}")
        return v
    return positive_int(text)


def _max_ngram():
    from .corpus import MAX_NGRAM   # read when --ngrams is given

    return MAX_NGRAM


#: ``--ngrams``: an integer from 1 to :data:`topics.corpus.MAX_NGRAM`
_ngrams = at_most(positive_int, _max_ngram, "longer runs of words, or of characters with "
                  "--analyzer char_wb, recur too rarely to be terms")


def _fraction(text):
    """``--valid-fraction``: a number strictly between 0 and 1."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction, got {text!r}") from None
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"the fraction must lie strictly between 0 and 1, "
                                         f"got {v}")
    return v


def _field_names(many):
    """``--label-field`` (one name or column number) / ``--text-field`` (several, joined by
    commas): the list of names."""
    def parse(text):
        items = [t.strip() for t in text.split(",")]
        if not all(items):
            raise argparse.ArgumentTypeError(f"an empty name in {text!r}")
        if len(set(items)) < len(items):   # the text read twice, its words counted twice
            raise argparse.ArgumentTypeError(f"a field named twice in {text!r}")
        if len(items) > 1 and not many:
            raise argparse.ArgumentTypeError(f"one field or column, got {text!r}")
        if any(t.isdecimal() and int(t) < 1 for t in items):   # int("²") fails
            raise argparse.ArgumentTypeError(f"columns are numbered from 1, got {text!r}")
        return items
    return parse


def add_data(p, what):
    g = p.add_argument_group("input")
    g.add_argument("--data", required=True, metavar="PATH",
                   help=f"{what}: a folder with one sub-folder per class (PATH/<label>/<file>), "
                        "a TSV file 'label<TAB>text' (one document per line), a CSV file (a "
                        "header naming the label and text columns, or columns given by number), "
                        "JSON lines with 'label' and 'text' fields, or fastText lines "
                        "'__label__LABEL text' (.gz ok)")
    g.add_argument("--format", default="auto",
                   choices=["auto", "folder", "tsv", "jsonl", "csv", "fasttext"],
                   help="input format; auto: a folder, *.tsv, *.csv or *.jsonl/*.json (.gz ok), "
                        "fastText lines (a first line starting with __label__), or *.txt: "
                        "one text a line, without labels (predict)")
    g.add_argument("--label-field", type=_field_names(False), metavar="NAME",
                   help="CSV, TSV and JSON lines: the label's column or field (default: the "
                        "field label, or the column or field named label, labels (JSON), "
                        "class, category, target, sentiment, stars or y, else column 1 of a "
                        "file without a header); a column may be given by number, from 1")
    g.add_argument("--text-field", type=_field_names(True), metavar="NAME[,NAME...]",
                   help="CSV, TSV and JSON lines: the text's column(s) or field(s), several "
                        "joined with a space (default: the field text, or the column or field "
                        "named text, document, content, review, body, sentence or message, "
                        "else column 2 of a two-column file without a header); columns may be "
                        "numbers")


def add_train_parser(tsub):
    """``structpred topics train``: its description, data and model options."""
    models = "\n".join(textwrap.fill(s.help, 92, initial_indent=f"  {n:<14}",
                                      subsequent_indent=" " * 16) for n, s in MODELS.items())
    tr = tsub.add_parser(
        "train", formatter_class=_Formatter, help="train a classifier on labelled text",
        description="Fit a vocabulary and a text classifier on labelled documents and write "
                    "them to a model file (.npz, no pickle).\n"
                    "By default (--model auto) a validation fraction of the training documents "
                    f"is held out (below {CV_BELOW:,} documents: {CV_FOLDS}-fold "
                    "cross-validation instead), the "
                    "candidates (sdEM naive Bayes with the hinge and NCLL losses, a linear SVM, "
                    "NBSVM, naive Bayes; sdEM-LDA and paMedLDA where the corpus is "
                    "large enough and time allows) are fitted on the rest, the default "
                    "(sdEM naive Bayes, hinge loss, tf-idf words) is "
                    "kept unless another is more accurate in >= 95% of paired bootstraps of the "
                    "validation documents, and the kept one is refitted on all documents. "
                    "Models:\n" + models +
                    "\nExamples:\n  structpred topics train --data train.tsv -o model.npz\n"
                    "  structpred topics train --data train.tsv --model medlda-gibbs "
                    "--n-topics 40 -o model.npz")
    add_data(tr, "labelled training documents")
    tr.add_argument("-o", "--output", required=True, metavar="NPZ", help="model file to write")
    g = tr.add_argument_group("model")
    g.add_argument("--model", default=DEFAULT_MODEL, choices=["auto", *MODELS],
                   help="the classifier (see above); auto: chosen on validation documents")
    g.add_argument("--n-topics", type=positive_int, metavar="K",
                   help=f"number of topics (default {DEFAULT_N_TOPICS}; sdem-lda: per class, "
                        "default 2; pamedlda: 40; disclda: in all, default 5 per class + 10 "
                        "shared; nbsvm, svm and sdem-nb have none)")
    g.add_argument("--iterations", type=iteration_count, metavar="N",
                   help="iterations: Gibbs sweeps, alternations, epochs or passes, as the model "
                        "counts them (default: the model's own)")
    g.add_argument("--seed", type=seed_value, default=0, help="random seed (default 0)")
    g.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="set any other parameter of the estimator (VALUE is read as JSON, "
                        "else as a string), e.g. --param alpha=0.1; repeat as needed")
    return tr


def add_validation_options(tr):
    """``topics train``'s validation options (for ``--model auto``)."""
    a = tr.add_argument_group("validation (--model auto)")
    a.add_argument("--valid-data", metavar="PATH",
                   help="labelled validation documents (same formats as --data, read with its "
                        "--format, --label-field and --text-field) instead of "
                        "holding out a fraction of the training documents")
    a.add_argument("--valid-fraction", type=_fraction, default=VALID_FRACTION, metavar="F",
                   help=f"share of each class held out for validation (default {VALID_FRACTION:g}; "
                        f"chosen by --seed); from {CV_BELOW:,} training documents on, as smaller "
                        f"corpora are cross-validated ({CV_FOLDS} folds), and so is a larger one "
                        "where the default share holds out no document of most classes (of two "
                        "documents each, or one)")
    a.add_argument("--jobs", type=jobs_count, default=2, metavar="N",
                   help="fit this many candidates at once (processes; default 2; -1: every "
                        "CPU, -2: all but one)")
    a.add_argument("--time-budget", type=nonneg_float, default=30.0, metavar="SECONDS",
                   help="estimated seconds allowed for the slower candidates, the topic "
                        "models and svm on character n-grams (default 30)")


def add_vocabulary_options(tr):
    """``topics train``'s vocabulary and token options."""
    v = tr.add_argument_group("vocabulary (default: the model's own settings)")
    v.add_argument("--min-df", type=_df, metavar="N",
                   help="keep terms found in at least N training documents (a fraction if "
                        "N < 1, e.g. 0.001; default 2)")
    v.add_argument("--max-features", type=positive_int, metavar="N",
                   help="keep only the N most frequent terms")
    v.add_argument("--ngrams", type=_ngrams, metavar="N",
                   help="terms are runs of 1 to N adjacent words (nbsvm default 2, the others "
                        "1), or of 1 to N characters with --analyzer char_wb (default 4)")
    v.add_argument("--analyzer", choices=["word", "char_wb"],
                   help="terms: words (and runs of words, --ngrams), or char_wb: the "
                        "character n-grams of each word padded by a space (words of one "
                        "letter kept, a run of Chinese or Japanese characters one word), 1 "
                        "to --ngrams (default 4) characters long, which needs --model NAME; "
                        "default: "
                        "words, and --model auto also tries svm on character n-grams where "
                        "it fits the time budget (--analyzer word: never)")
    v.add_argument("--weighting", choices=["counts", "binary", "tfidf"],
                   help="term weights for the models that take them (nbsvm: binary, sdem-nb "
                        "and svm: tfidf); the topic models always count")
    v.add_argument("--digits", action=argparse.BooleanOptionalAction, default=None,
                   help="count digits as word characters (x11, 2024); default: the model's "
                        "(sdem-nb and svm: yes; the others: letters only, of every script)")
    v.add_argument("--stop-words", default=None, metavar="LIST",
                   help="'english' (scikit-learn's 318 words), 'none', or a file with one "
                        "word per line; default: the model's (sdem-nb and svm: none; the "
                        "others: english)")
    v.add_argument("--keep-case", action="store_true",
                   help="do not lower-case the text (stop words are still matched in lower "
                        "case: The is the)")
