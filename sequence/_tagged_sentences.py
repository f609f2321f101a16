"""The checks of tagged sentences given to :class:`sequence.model.SequenceTagger`: every
token a tuple of string columns (or a string, the word alone), every sentence with as many
columns, every label list as long as its sentence, and no column or label that a CoNLL
file could not hold.  A one-line ``TypeError`` or ``ValueError`` names the sentence and
token before any feature is built.  :mod:`sequence.model` re-exports
:func:`check_tagged_sentences`.
"""

from __future__ import annotations

import numpy as np

from structpred.io import check_token_lists, counted, token_form, unwritable_token

__all__ = ["check_tagged_sentences"]


def check_tagged_sentences(X, y=None, n_columns=None, what="sentence"):
    """``X`` (and ``y``) as lists, checked before any feature is built: every token a tuple
    of ``n_columns`` strings (default: as many as the first token) or a string, which is the
    one-column token ``(word,)`` (not one letter per column); every label list as long as its
    sentence.  A one-line ``TypeError`` or ``ValueError`` naming the sentence and token
    otherwise."""
    X = [[(tok,) if isinstance(tok, str) else _row(tok) for tok in sent]
         for sent in check_token_lists(X, what)]
    first = "as the model was trained on"
    for i, sent in enumerate(X):
        for k, tok in enumerate(sent):
            if not isinstance(tok, (tuple, list)) or not all(isinstance(c, str) for c in tok):
                raise TypeError(f"{what} {i}, token {k}: expected a tuple of string columns "
                                f"(word, ...), got {tok!r:.60}")
            _refuse_unwritable(tok, f"{what} {i}, token {k}: the column")
            if n_columns is None:
                n_columns, first = len(tok), f"as the first token of {what} {i} has"
            if len(tok) != n_columns or not tok:
                raise ValueError(f"{what} {i}, token {k} has {counted(len(tok), 'column')}, "
                                 f"but {n_columns} {'was' if n_columns == 1 else 'were'} "
                                 f"expected ({first})")
    if y is None:
        return X, None
    y = check_token_lists(y, "label list", "labels")
    if len(y) != len(X):
        raise ValueError(f"{len(X)} {what}s but {len(y)} label lists")
    for i, (sent, labels) in enumerate(zip(X, y)):
        if not sent:
            raise ValueError(f"{what} {i} has no tokens")
        if len(labels) != len(sent):
            raise ValueError(f"{what} {i} has {len(sent)} tokens but {len(labels)} labels")
        for k, label in enumerate(labels):
            if not isinstance(label, str):   # an int, None: a TypeError deep in sorting
                raise TypeError(f"{what} {i}, token {k}: a label must be a string, got "
                                f"{label!r:.60}")
            _refuse_unwritable([label], f"{what} {i}, token {k}: the label")
    return X, y


def _row(tok):
    """A token given as a 1-D numpy array of strings (a row of a sentence given as an
    ``(n_tokens, n_columns)`` array) as the tuple of its columns; it was refused as "expected
    a tuple of string columns" while the same row as a list was taken."""
    if isinstance(tok, np.ndarray) and tok.ndim == 1 and tok.dtype.kind in "UO":
        return tuple(tok.tolist())
    return tok


def _refuse_unwritable(columns, where):
    """``ValueError`` for a column or label that a CoNLL file cannot hold (empty, or holding
    white space): trained or tagged here, it would be two columns or none once written."""
    bad = unwritable_token(columns)
    if bad is not None:
        raise ValueError(f"{where} {bad!r:.40} is empty or holds white space (a column file "
                         "could not hold it)")
    for c in columns:   # a column of invisible characters only, which a file's reader refuses
        token_form(c, where)
