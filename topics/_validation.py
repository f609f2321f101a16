"""Input validation shared by the scikit-learn style topic-model classifiers.

Count matrices go through scikit-learn's ``validate_data`` (2-D, numeric, finite, not
complex, not empty, ``n_features_in_`` bookkeeping, scikit-learn's error messages) and
``check_non_negative``; texts and token lists are left to the vocabulary.
"""

from __future__ import annotations

import contextlib
import numbers
import warnings
from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_non_negative, column_or_1d, validate_data

from structpred import (check_flag, check_label_spellings, check_seed, check_unchanged_since_fit,
                        check_whole, estimator_seed, unmasked)

from .corpus import (Vocabulary, _document_list, as_count_matrix, check_topic_tables,
                     is_text_input, ragged_rows_message, token_arrays)

__all__ = ["validate_count_input", "validate_labels", "stream_classes", "check_sweep_counts", "count_matrix", "labelled_corpus",
           "check_documents_have_text", "check_has_tokens",
           "check_known_labels", "check_classifier_topics", "check_whole", "check_seed", "seed_of",
           "keep_fitted_settings", "check_fitted_settings", "CountClassifierTags",
           "quiet_class_count_guess"]


def validate_count_input(estimator, X, *, reset):
    """Validate a document-term matrix (returned as CSR or ndarray); texts pass unchanged.
    A single string, or an empty list or tuple, is refused in the estimators' words (not
    scikit-learn's "Expected 2D array")."""
    name = type(estimator).__name__
    if X is None:   # scikit-learn's "Expected 2D array, got scalar array" before
        raise TypeError(f"{name}: X is None; give documents (a list, array or Series of "
                        "texts) or a count matrix")
    X = documents_or_counts(estimator, X)
    X = _column_of_texts(name, unmasked(X, f"{name}: X"))
    if is_text_input(X):
        check_documents_have_text(estimator, X)
        return X
    if isinstance(X, (str, bytes)):
        _document_list(X)
    if isinstance(X, (list, tuple)) and len(X) == 0:
        raise ValueError(f"{type(estimator).__name__}: X holds no documents (an empty "
                         f"{type(X).__name__})")
    if isinstance(X, (list, tuple)) and not isinstance(X[0], (list, tuple, np.ndarray,
                                                              numbers.Number)):
        # bytes, None: scikit-learn's "Expected 2D array" before
        raise TypeError(f"{type(estimator).__name__}: a document must be a string or a list "
                        f"of tokens, got {type(X[0]).__name__} (document 0)")
    ndim = getattr(X, "ndim", None)
    if ndim is None and isinstance(X, (list, tuple)):
        try:
            ndim = np.ndim(X)
        except ValueError:   # numpy's "inhomogeneous shape"
            raise ValueError(f"{name}: {ragged_rows_message(X)}") from None
    if ndim is not None and ndim != 2:   # scikit-learn's "Found array with dim 3" before
        raise ValueError(f"{name}: X must be a 2-D document-term matrix (one row per "
                         f"document), got a {ndim}-D array of shape {np.shape(X)}"
                         + (". Reshape your data with X.reshape(1, -1) if it is one document"
                            if ndim == 1 else ""))
    try:
        X = validate_data(estimator, X, reset=reset, accept_sparse="csr", dtype="numeric")
    except ValueError as exc:
        if str(exc).startswith("could not convert"):   # Python's float() of a string
            raise ValueError(f"{name}: X is neither documents nor counts: a matrix holds a "
                             f"value that is not a number ({str(exc).rsplit(': ', 1)[-1]})"
                             ) from None
        # scikit-learn's first line names the cause ("Input X contains NaN."); the rest
        # recommends other scikit-learn estimators
        lines = str(exc).splitlines()
        if len(lines) <= 1:
            raise
        keep = [lines[0]] + [ln.strip() for ln in lines[1:] if "Reshape your data" in ln]
        raise ValueError(" ".join(keep)) from None
    check_non_negative(X, type(estimator).__name__)
    return X


def _column_of_texts(name, X):
    """A 2-D NumPy array of strings of one column, ``(n, 1)``, as its column of documents
    (as a one-column DataFrame is); of more columns, a ``TypeError`` naming its shape
    (scikit-learn's "dtype='numeric' is not compatible with arrays of bytes/strings")."""
    if isinstance(X, np.ndarray) and X.ndim >= 2 and X.dtype.kind in "USO" and (
            X.dtype.kind != "O" or (X.size and isinstance(X.flat[0], (str, bytes)))):
        if X.ndim == 2 and X.shape[1] == 1:
            return X[:, 0]
        raise TypeError(f"{name}: X is an array of strings of shape {X.shape}: give a 1-D "
                        "sequence of documents (one text each)")
    return X


def check_documents_have_text(estimator, X):
    """Refuse a document that is an empty or blank string, or an empty token list, as the
    command line refuses one in a file (``empty text``): it has no word to learn from or to
    classify, and every classifier gave it its prior's class.  A document with words none
    of which the vocabulary keeps (unknown words, stop words) is classified by the prior,
    as documented by each estimator."""
    for i, doc in enumerate(X):
        if not isinstance(doc, (str, list, tuple, np.ndarray)):   # NaN of a Series, None
            raise TypeError(f"{type(estimator).__name__}: document {i} is {doc!r:.40}, not a "
                            "string or a list of tokens (a missing text?)")
        if isinstance(doc, str):
            empty = "empty or blank" if not doc.strip() else None
        else:
            empty = "an empty token list" if len(doc) == 0 else None
        if empty:
            raise ValueError(f"{type(estimator).__name__}: document {i} is {empty}: every "
                             "document needs words (leave it out)")


def documents_or_counts(estimator, X):
    """``X`` with a generator of documents made a list (:func:`ordered_sequence`); a sparse
    matrix as it is (a DOK matrix is a dict, but its order is that of its rows); a pandas
    DataFrame with one column of texts is that column (a DataFrame of several text columns
    is refused: which one holds the documents?)."""
    if sp.issparse(X):
        return X
    if hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc"):
        texts = [c for c, t in zip(X.columns, X.dtypes)
                 if getattr(t, "kind", None) in ("O", "U", "S") or str(t) in ("str", "string")]
        if texts and len(X.columns) == 1:
            X = X.iloc[:, 0]
        elif texts:
            raise TypeError(f"{type(estimator).__name__}: X is a DataFrame with "
                            f"{len(X.columns)} columns, {len(texts)} of them text: give the "
                            f"column of documents (X[{str(texts[0])!r}])")
    return ordered_sequence(X, "X", type(estimator).__name__)


def ordered_sequence(values, name, owner):
    """``values`` with an iterator (a generator) made a list; a set or a mapping, whose order
    is not the order of the documents, is a ``TypeError`` (scikit-learn saw one object and said
    "Expected 2D array, got scalar array")."""
    if isinstance(values, (set, frozenset, Mapping)):
        raise TypeError(f"{owner}: {name} must be a sequence in document order (a list, "
                        f"array or Series), got a {type(values).__name__}")
    return list(values) if isinstance(values, Iterator) else values


def _label_kind(v):
    if isinstance(v, str):
        return "a string"
    return "a boolean" if isinstance(v, (bool, np.bool_)) else "a number"


def validate_labels(estimator, y, n_docs, name="y"):
    """Labels: not None, 1-D (a column vector is raveled with a warning), classification
    targets, no two spelled alike (:func:`structpred.check_label_spellings`).  ``name``: the
    argument named in the errors (``classes`` of ``partial_fit``)."""
    if y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None")
    y = ordered_sequence(y, name, type(estimator).__name__)
    objects = None
    if not isinstance(y, (list, tuple)) and np.asarray(y).dtype == object:
        # an object array or Series: its values, checked as a list's (an object array of
        # whole numbers was scikit-learn's "Unknown label type: unknown")
        objects, y = y, np.asarray(y).tolist()
    if isinstance(y, (list, tuple)):
        # None (a TypeError of sorting before), or 1 and "1" (merged into one class)
        missing = next((i for i, v in enumerate(y) if v is None), None)
        if missing is not None:
            raise ValueError(f"{name}[{missing}] is None: every document needs a label")
        kinds = {_label_kind(v) for v in y}
        if "a string" in kinds and len(kinds) > 1:
            raise ValueError(f"{name} mixes labels that are strings and numbers: give one kind")
        if len(kinds) > 1:   # True and 1 were one class (numpy compares them equal)
            raise ValueError(f"{name} mixes labels that are booleans and numbers (True is "
                             f"the class 1 to numpy): give one kind")
        if objects is not None and kinds == {"a string"}:
            y = objects                       # strings stay objects, as they were
    y = np.asarray(y)
    if y.dtype.kind in "UO":   # 'Sport' and 'sport': one class split in two
        check_label_spellings([str(v) for v in np.unique(y) if isinstance(v, str)], name=name)
    if y.ndim > 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1 or y.shape[0] != n_docs:
        raise ValueError(f"y must be 1-D with one label per document ({n_docs}), got shape {y.shape}")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):   # scikit-learn's "Input y contains NaN"
        i = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"y[{i}] is {y[i]}: every document needs a label")
    check_classification_targets(y)
    return y


#: the start of scikit-learn's guess (``check_classification_targets``, in every classifier's
#: fit) that labels taking more values than half the documents (more than 20) are a
#: regression target
CLASS_COUNT_GUESS = r"The number of unique classes is greater than 50% of the number of samples"


@contextlib.contextmanager
def quiet_class_count_guess():
    """Leave out scikit-learn's :data:`CLASS_COUNT_GUESS` (a ``UserWarning``) inside the
    block, and no other warning: labels read from text files are names of classes, never a
    regression target, and many classes of one document each are a corpus such as R52's
    (``topics train`` printed the guess, twice, after training on such a corpus)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=CLASS_COUNT_GUESS, category=UserWarning)
        yield


def stream_classes(estimator, classes, y, first):
    """The sorted labels of a stream, from ``partial_fit``'s ``classes`` and its batch's
    validated labels ``y``: required on the ``first`` call, the first call's later (or
    ``None``).  A string is a ``TypeError`` (its characters were one class), a set is read
    as its labels (it was one class), labels of ``y`` outside ``classes`` are named (before:
    "needs at least 2 classes"), and ``classes`` must be those of the first call (a
    different list was ignored by the sdEM classifiers)."""
    owner = type(estimator).__name__
    known = None if first else estimator.classes_
    if classes is None:
        if known is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        return known
    if isinstance(classes, (str, bytes)) or not isinstance(classes, Iterable):
        raise TypeError(f"{owner}: classes must be a list of every label of the stream, "
                        f"got {type(classes).__name__} {classes!r:.40}")
    values = list(classes)
    given = np.unique(validate_labels(estimator, values, len(values), name="classes"))
    if known is not None and not np.array_equal(given, known):
        raise ValueError(f"classes={given.tolist()!r:.80} differs from the classes of the "
                         f"first call {known.tolist()!r:.80}")
    unseen = np.setdiff1d(y, given)
    if unseen.size:
        raise ValueError(f"y contains labels not in classes: {unseen[:5].tolist()}")
    if given.size < 2:
        raise ValueError(f"{owner} needs at least 2 classes, got {given.size} class")
    return given


def count_matrix(estimator, X, *, fitting, integer=True, round_counts=None):
    """CSR counts of ``X`` (texts, token lists or a matrix) for a topic model.

    When ``fitting``, text input fits ``estimator.vocabulary_`` (a copy of the
    ``vocabulary`` hyperparameter's settings, or ``Vocabulary()``) and
    ``n_features_in_`` is set; otherwise the fitted vocabulary is used and the number of
    columns must equal ``n_features_in_``.  ``integer``: require whole counts -- a
    non-integer value (e.g. TF-IDF) raises ``ValueError`` unless ``round_counts``
    (default: the estimator's ``round_counts`` hyperparameter, else False) asks to round
    them; absurd counts are refused too (:func:`topics.corpus.check_counts`).
    """
    if fitting:
        check_flags(estimator)
    if round_counts is None:
        round_counts = getattr(estimator, "round_counts", False)
    X = validate_count_input(estimator, X, reset=fitting)
    if fitting:
        estimator.vocabulary_ = None
        if is_text_input(X):
            vocab = getattr(estimator, "vocabulary", None)
            # a copy: the hyperparameter itself was fitted, so one Vocabulary given to two
            # estimators changed the first one's columns when the second was fitted
            estimator.vocabulary_ = (Vocabulary() if vocab is None
                                     else clone(vocab, safe=False)).fit(list(X))
    X = as_count_matrix(X, getattr(estimator, "vocabulary_", None), integer=integer,
                        round_counts=round_counts)
    if fitting:
        estimator.n_features_in_ = X.shape[1]
    elif X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
                         f"expecting {estimator.n_features_in_} features as input")
    return X


#: the boolean hyperparameters of the topic models (a string such as ``"no"`` was read by its
#: truth and switched the option on)
FLAGS = ("round_counts", "shuffle", "binarize", "nb_scaling", "learn_transform",
         "paper_1_over_J")


def check_flags(estimator):
    """:func:`structpred.check_flag` on each boolean hyperparameter of ``estimator``."""
    for name in FLAGS:
        if hasattr(estimator, name):
            check_flag(name, getattr(estimator, name))


#: the refusal of training counts that are all zero
NO_TOKENS = ("the corpus has no tokens: every document's counts are zero (no word of the "
             "vocabulary)")


def check_has_tokens(X):
    """``ValueError`` when the counts ``X`` (sparse or dense) are all zero: a model trained
    on them is its prior, and predicted one class for every document, silently (the topic
    models refused such counts; the command line refuses documents without terms)."""
    if not np.any(X.data if sp.issparse(X) else np.asarray(X)):
        raise ValueError(NO_TOKENS)


def labelled_corpus(estimator, X, y):
    """Training data of a topic-model classifier: counts, ``classes_`` and flat tokens.

    Sets ``estimator.classes_`` (at least two classes) and returns
    ``(X, y_idx, (words, docs, offsets))`` with ``y_idx`` the int64 index of each label in
    ``classes_`` and the token arrays of :func:`topics.corpus.token_arrays` (not empty).
    """
    check_seed(getattr(estimator, "random_state", None))
    X = count_matrix(estimator, X, fitting=True)
    y = validate_labels(estimator, y, X.shape[0])
    estimator.classes_, y_idx = np.unique(y, return_inverse=True)
    if estimator.classes_.size < 2:
        raise ValueError(f"{type(estimator).__name__} needs at least 2 classes in y, got 1 class")
    tokens = token_arrays(X)
    if tokens[0].size == 0:
        raise ValueError(NO_TOKENS)
    if isinstance(getattr(estimator, "n_topics", None), numbers.Integral):
        check_topic_tables(estimator.n_topics, X.shape[1], X.shape[0])
    return X, y_idx.astype(np.int64), tokens


def seed_of(estimator):
    """The integer seed of ``estimator.random_state`` (``None``: 0, so that runs repeat; a
    numpy ``RandomState`` or ``Generator``: a seed drawn from it once,
    :func:`structpred.estimator_seed`), after :func:`structpred.check_seed` refused anything
    else than those or an integer >= 0."""
    seed = estimator_seed(estimator)
    return 0 if seed is None else seed


def _settings(estimator, names):
    """``{name: value}`` of ``names`` as prediction reads them (``random_state``: its seed,
    :func:`seed_of`, so that ``None`` and 0, or an instance and the seed drawn from it, which
    a saved model holds, are one setting)."""
    return {n: seed_of(estimator) if n == "random_state" else getattr(estimator, n)
            for n in names}


def keep_fitted_settings(estimator, names):
    """Keep, at ``fit``, the hyperparameters ``names`` that prediction reads and that are
    part of the fitted model (:func:`check_fitted_settings` refuses them changed)."""
    estimator._fitted_settings = _settings(estimator, names)


def check_fitted_settings(estimator):
    """``ValueError`` naming a hyperparameter kept by :func:`keep_fitted_settings` that
    ``set_params`` changed since ``fit`` (``structpred.check_unchanged_since_fit``): it was
    read at prediction, so other predictions of the same fitted model, silently.  A model
    fitted or saved before has none kept and is not checked."""
    kept = estimator.__dict__.get("_fitted_settings") or {}
    if kept:
        from types import SimpleNamespace

        now = SimpleNamespace(**_settings(estimator, kept))
        check_unchanged_since_fit(now, kept, f"the fitted {type(estimator).__name__} "
                                             "predicts with the value of its fit")


def check_sweep_counts(estimator, counts, positive=()):
    """Counts of sweeps, samples and documents of a topic model: each name of ``counts``
    (``{name: lowest}``) an integer from its lowest value to 10,000,000, each name of
    ``positive`` a finite number > 0 (``int()`` cut 2.5 to 2 and took ``"4"``; a negative
    ``n_transform_burn`` was taken, ``n_transform_samples=0`` gave topic proportions that
    do not sum to 1, a negative ``evaluate_every`` was numpy's "expected non-negative
    integer"; ``c="1"`` was a ``TypeError`` of ``>``)."""
    from structpred import check_number
    from structpred.learners import check_iterations

    for name, lo in counts.items():
        value = getattr(estimator, name)
        if lo == 1:
            check_iterations(value, name)
        else:
            check_whole(name, value, lo, 10 ** 7)
    for name in positive:
        check_number(name, getattr(estimator, name), strict=True)


def check_classifier_topics(n_topics):
    """``ValueError`` unless a classifier on topic proportions has at least 2 topics: with
    one, every document has the same proportions (1.0), and the classifier predicted one
    class for every document."""
    check_whole("n_topics", n_topics)
    if int(n_topics) < 2:
        raise ValueError(f"n_topics must be >= 2 (with one topic every document has the same "
                         f"topic proportions, so nothing tells the classes apart), got {n_topics}")


def check_known_labels(classes, y):
    """``ValueError`` if ``y`` holds labels that are not in the fitted ``classes``."""
    unseen = np.setdiff1d(np.asarray(y), classes)
    if unseen.size:
        raise ValueError(f"y contains labels not seen in training: {unseen[:5].tolist()}")


def check_sample_weight(sample_weight):
    """``sample_weight`` of ``score`` as a float array, or ``None``: numbers >= 0 (booleans
    as 0 and 1), finite.  A negative weight was taken (an accuracy above 1, or below 0,
    silently) and strings were numpy's "The `dtype` and `signature` arguments to ufuncs";
    scikit-learn checks the length and that one weight is not 0."""
    if sample_weight is None or np.isscalar(sample_weight) and not isinstance(
            sample_weight, (str, bytes)):
        if sample_weight is not None and not (np.isfinite(sample_weight)
                                              and sample_weight > 0):
            raise ValueError(f"sample_weight must be > 0 and finite, got {sample_weight!r}")
        return sample_weight
    w = np.asarray(sample_weight)
    if w.dtype.kind not in "biuf":
        raise ValueError(f"sample_weight must hold numbers, got values of type {w.dtype} "
                         f"such as {w.ravel()[:1].tolist()}" if w.size else
                         "sample_weight must hold numbers")
    w = w.astype(np.float64)
    if w.size and not (np.all(np.isfinite(w)) and w.min() >= 0):
        bad = int(np.flatnonzero(~(np.isfinite(w) & (w >= 0)))[0]) if w.ndim == 1 else None
        where = f" (document {bad}: {float(w[bad])!r})" if bad is not None else ""
        raise ValueError(f"sample_weight must be finite numbers >= 0{where}")
    return w


class CountClassifierTags:
    """scikit-learn tags shared by the topic-model classifiers.

    Put it first among the bases.  The input is a non-negative, possibly sparse
    document-term matrix (or texts); on the random data of the estimator checks
    the topic models score poorly by design (``poor_score``).
    """

    def score(self, X, y, sample_weight=None):
        """scikit-learn's accuracy, ``sample_weight`` checked first
        (:func:`check_sample_weight`)."""
        return super().score(X, y, sample_weight=check_sample_weight(sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags
