"""CoNLL-style column files: one token per line, columns separated by white space, the
label in the last column, a blank line between sentences (``.gz`` and ``-`` for standard
input are fine).

A sentence is a list of tokens, each a tuple of its columns *without* the label (the
word first, then optional feature columns such as the POS tag); labels are a parallel
list of strings.  Files for prediction may lack the label column (``labelled=False``).
"""

from __future__ import annotations

from structpred import check_flag, check_whole
from structpred.io import FormatError, read_lines
from structpred.io import split_tokens

__all__ = ["read_conll", "write_conll", "deterministic_split"]


def read_conll(path, labelled=True, n_columns=None):
    """Read a column file into ``(sentences, labels)``.

    Parameters
    ----------
    path : str or path-like, or ``"-"``
    labelled : bool
        The last column is the label.  Without labels, ``labels`` is ``None``.
    n_columns : int, optional
        Columns each line must have (for example those of the training data,
        when reading test data for a model), the label's included: at least 2 when
        ``labelled``.  By default the first line fixes it.

    Raises
    ------
    FormatError
        A line with another number of columns than the others, a labelled
        line with one column only, or no sentences; the error names file and line.
    """
    labelled = check_flag("labelled", labelled)
    if n_columns is not None:   # "3" gave "expected 3 columns, found 3"
        check_whole("n_columns", n_columns, 2 if labelled else 1)
    sentences, labels = [], [] if labelled else None
    tokens, tags = [], []
    name = str(path)
    last = 0
    for lineno, line in read_lines(path):
        last = lineno
        fields = split_tokens(line, name, lineno)   # ASCII spaces and tabs only
        if not fields or fields[0] == "-DOCSTART-":
            if tokens:
                sentences.append(tokens)
                if labelled:
                    labels.append(tags)
                tokens, tags = [], []
            continue
        if n_columns is None:
            n_columns = len(fields)
            if labelled and n_columns < 2:
                raise FormatError(name, lineno, "expected at least two columns "
                                  "(token ... label), found one")
        if len(fields) != n_columns:
            raise FormatError(name, lineno, f"expected {n_columns} columns, found "
                              f"{len(fields)}")
        if labelled:
            tokens.append(tuple(fields[:-1]))
            tags.append(fields[-1])
        else:
            tokens.append(tuple(fields))
    if tokens:
        sentences.append(tokens)
        if labelled:
            labels.append(tags)
    if not sentences:
        raise FormatError(name, last or None, "no sentences found")
    return sentences, labels


def write_conll(fh, sentences, labels):
    """Write sentences with their (predicted) labels as the last column."""
    for tokens, tags in zip(sentences, labels):
        for tok, tag in zip(tokens, tags):
            fh.write(" ".join(tok) + " " + tag + "\n")
        fh.write("\n")


def deterministic_split(n, valid_fraction=0.1):
    """Indices ``(train, valid)``: every ``round(1/valid_fraction)``-th sentence validates.

    Deterministic and spread over the whole file (no random state), so that
    validation sentences come from every part of the corpus.
    """
    step = max(2, int(round(1.0 / valid_fraction)))
    # fewer than ``step`` sentences: the last one validates (none did, and the refusal
    # blamed the validation labels)
    valid = list(range(min(step, n) - 1, n, step)) if n >= 2 else []
    vs = set(valid)
    return [i for i in range(n) if i not in vs], valid
