"""CoNLL-style column files: one token per line, columns separated by white space, the
label in the last column, a blank line between sentences (``.gz`` and ``-`` for standard
input are fine).  Universal Dependencies' CoNLL-U files (and CoNLL-X ones) are recognised
by their ten tab-separated columns: their word form is the token and their UPOS column
the label (CoNLL-U Plus files by the column names of their ``# global.columns`` line);
GermEval 2014 files (``index token outer-NE inner-NE``) by four tab-separated
columns numbered from 1: their word is the token and the outer named entity the label;
Universal NER files (``index token tag - -``) by five tab-separated columns numbering the
tokens of each sentence, the third a chunk tag, or in a masked test file ``_``, ``-`` or
empty on every word (read without labels only) (:func:`read_conll`).  ``-DOCSTART-``
lines (CoNLL-2002/2003) end a sentence.  WikiNER (``word|POS|TAG``), slash-tagged text
(``The/at``) and HuggingFace JSON lines are read, and OntoNotes ``*_conll`` files refused,
by :mod:`sequence.layouts`.

A sentence is a list of tokens, each a tuple of its columns *without* the label (the
word first, then optional feature columns such as the POS tag); labels are a parallel
list of strings, read in Unicode NFC (a label in NFD, ``B-MĚSTO`` with a combining caron, is
the NFC one).  Files for prediction may lack the label column (``labelled=False``).
"""

from __future__ import annotations

import collections
import re
import unicodedata

from structpred import check_flag, check_number, check_whole
from structpred.io import FormatError, read_lines
from structpred.io import check_visible_tokens, counted, split_tokens

from .evaluate import is_iob, label_kind_error
from .layouts import Layout, bracket_label_error, inline_layout, read_inline

__all__ = ["read_conll", "write_conll", "write_tabbed", "deterministic_split",
           "is_conllu_line", "tabbed_format", "CONLLU_LABELS"]

#: the CoNLL-U columns that can be the label (UPOS, the universal tag, by default)
CONLLU_LABELS = {"upos": 3, "xpos": 4}

#: a CoNLL-U word line's ID: a word ``3``, a multiword token ``3-4``, an empty node ``3.1``
_CONLLU_ID = re.compile(r"^[0-9]+(?:-[0-9]+|\.[0-9]+)?$")


def tab_fields(line, n):
    """The tab-separated fields of ``line``, without empty ones after the ``n`` a format has
    (a tab, or spaces, at the end of a line: a spreadsheet's export)."""
    fields = line.rstrip("\r\n").split("\t")
    while len(fields) > n and not fields[-1].strip():
        fields.pop()
    return fields


def is_conllu_line(line):
    """Whether ``line`` is a CoNLL-U (or CoNLL-X) word line: ten tab-separated columns, the
    first an ID."""
    fields = tab_fields(line, 10)
    return len(fields) == 10 and _CONLLU_ID.match(fields[0]) is not None


class _Sentences:
    """The sentences (and labels) of a file, collected a token at a time."""

    def __init__(self, labelled):
        self.sentences, self.labels = [], [] if labelled else None
        self.tokens, self.tags = [], []
        self.first_line = {}   # label -> the line it first occurs on

    def add(self, token, tag=None, lineno=None):
        self.tokens.append(token)
        if self.labels is not None:
            if not tag.isascii():   # one label in NFC and NFD (Czech B-MĚSTO): one label
                tag = unicodedata.normalize("NFC", tag)
            self.tags.append(tag)
            self.first_line.setdefault(tag, lineno)

    def end(self):
        """A blank line: the sentence read so far (if any) is complete."""
        if self.tokens:
            self.sentences.append(self.tokens)
            if self.labels is not None:
                self.labels.append(self.tags)
            self.tokens, self.tags = [], []

    def result(self, name, last):
        self.end()
        if not self.sentences:
            raise FormatError(name, last or None, "no sentences found")
        for check in (bracket_label_error, label_kind_error):
            found = check(self.first_line)
            if found is not None:
                raise FormatError(name, self.first_line[found[0]], found[1])
        return self.sentences, self.labels


#: the tab-separated formats with a token index in the first column, read as the word form and
#: one label column: ``(name, columns, label columns, the ID of a line)``
_TABBED = {
    "CoNLL-U": (10, CONLLU_LABELS, "an ID such as 3"),
    "GermEval 2014": (4, {"outer": 2}, "the token's index in its sentence"),
    "Universal NER": (5, {"ner": 2}, "the token's index in its sentence"),
}

#: the label column of the tabbed formats other than CoNLL-U's (whose label is chosen)
_TABBED_LABEL = {"GermEval 2014": "outer", "Universal NER": "ner"}


class ReadResult(tuple):
    """``(sentences, labels)`` as :func:`read_conll` returns them, with the
    :class:`~sequence.layouts.Layout` the file was read in as ``layout`` (its ``kind``:
    ``"columns"``, a tab-separated format such as ``"CoNLL-U"``, or a layout of
    :mod:`sequence.layouts`), for writing predictions back in it."""

    def __new__(cls, sentences, labels, layout):
        self = super().__new__(cls, (sentences, labels))
        self.layout = layout
        return self

#: the comment that names the columns of a CoNLL-U Plus file (PARSEME's ``.cupt``), line 1
_PLUS = "# global.columns ="


def _tabbed_spec(fmt, lines, name):
    """``(columns, label columns, the ID of a line, the word form's column)`` of ``fmt``:
    for CoNLL-U Plus those its first line names (``ID`` first, ``FORM``, ``UPOS``/``XPOS``
    where it has them; a file without ``ID`` and ``FORM`` is refused)."""
    if fmt != "CoNLL-U Plus":
        return _TABBED[fmt] + (1,)
    names = next(line for _, line in lines if line.strip())[len(_PLUS):].split()
    if names[:1] != ["ID"] or "FORM" not in names:
        raise FormatError(name, 1, f"a CoNLL-U Plus file whose columns ({' '.join(names)[:60]}) "
                          "lack ID first or FORM: its words cannot be told")
    labels = {k: names.index(k.upper()) for k in CONLLU_LABELS if k.upper() in names}
    return len(names), labels, "an ID such as 3", names.index("FORM")


def _is_germeval_start(before, first, second):
    """Whether the first word line of a file, ``first``, begins a GermEval 2014 file: four
    tab-separated columns, ``index token outer-NE inner-NE``, the index 1, after a comment
    line ``before`` (``#`` and a tab, the source) or before the line ``second`` of index 2
    (or no line: a sentence of one token)."""
    fields = tab_fields(first, 4)
    return (len(fields) == 4 and fields[0] == "1"
            and ((before or "").startswith("#\t") or second is None or not second.strip()
                 or second.startswith("2\t")))


def _read_tabbed(lines, name, labelled, fmt, label):
    """:func:`read_conll` of a CoNLL-U or GermEval 2014 file (``fmt``, a key of
    :data:`_TABBED`): comment lines (``#``) are skipped, and in CoNLL-U the lines of
    multiword tokens (``3-4``) and empty nodes (``3.1``); the token is the word form (white
    space inside it, as in some treebanks, becomes ``_``), the label the ``label`` column
    (GermEval: the outer named entity; the inner one is not read)."""
    n_fields, labels, id_text, form_at = _tabbed_spec(fmt, lines, name)
    column = labels.get(label)
    if column is None:   # to read labels from, or to write the predictions in
        held = ", ".join(k.upper() for k in labels) or "neither UPOS nor XPOS"
        raise FormatError(name, 1, f"a {fmt} file without a {label.upper()} column (of the "
                          f"label columns it holds {held}): its labels cannot be read or written")
    out = _Sentences(labelled)
    last = 0
    for lineno, line in lines:
        last = lineno
        if not line.strip():
            out.end()
            continue
        if line.startswith("#"):
            continue
        fields = tab_fields(line, n_fields)
        if fmt not in _TABBED_LABEL:   # CoNLL-U's IDs; the others number the tokens
            ok = _CONLLU_ID.match(fields[0]) is not None
        else:
            ok = fields[0] == str(len(out.tokens) + 1)
        if len(fields) != n_fields or not ok:
            raise FormatError(name, lineno, f"expected a {fmt} word line ({n_fields} "
                              f"tab-separated columns, the first {id_text}), found "
                              f"{counted(len(fields), 'column')}"
                              + ("" if len(fields) != n_fields
                                 else f" and the ID {fields[0][:20]!r}"))
        if not fields[0].isdigit():   # a multiword token or an empty node
            continue
        form = "_".join(fields[form_at].split())
        if not form:
            raise FormatError(name, lineno, f"a {fmt} word line without a word form")
        check_visible_tokens(line, name, lineno)   # a form U+200F alone was a word
        tag = None
        if labelled:
            tag = fields[column].strip()
            if tag in ("", "_") or fmt == "Universal NER" and tag in UNER_MASKS:
                raise FormatError(name, lineno, _masked(lines, fmt, column) or (
                    f"the word {form[:30]!r} has no {label.upper()} label "
                    f"({tag or 'empty'!r}): a {fmt} file to train or score on needs one on "
                    "every word"))
        out.add((form,), tag, lineno)
    return out.result(name, last)


def _masked(lines, fmt, column):
    """The refusal of a Universal NER file whose tag ``column`` is masked on every word
    line (``*-test-masked.iob2``: ``_``, ``-`` or empty), else ``None``."""
    if fmt != "Universal NER":
        return None
    rows = [tab_fields(line, 5) for _, line in lines
            if line.strip() and not line.startswith("#")]
    tags = {f[column].strip() if len(f) > column else None for f in rows}
    if len(tags) != 1 or not tags <= UNER_MASKS:
        return None
    mask = tags.pop()
    return (f"a masked Universal NER file (its tag column is {repr(mask) if mask else 'empty'} "
            "on every word): it holds no gold labels to train or score on; tag predict labels "
            "it, tag train and tag eval need the unmasked file")


def read_conll(path, labelled=True, n_columns=None, conllu_label="upos", *, label_names=None,
               known_tags=None, _lines=None):
    """Read a column file into ``(sentences, labels)``.

    A file whose first word line has ten tab-separated columns, the first an ID, is read
    as CoNLL-U (Universal Dependencies; CoNLL-X has the same columns): its tokens are the
    word forms alone, its labels the ``conllu_label`` column, and comment lines,
    multiword tokens and empty nodes are skipped.  A file whose first sentence begins
    with four tab-separated columns numbered from 1 is read as GermEval 2014 (``index
    token outer-NE inner-NE``, ``#`` comment lines): its tokens are the words, its labels
    the outer named entities (the inner ones are not read).  A file whose sentences are
    lines of five tab-separated columns, the first numbering the tokens from 1 and the
    third ``O`` or chunk tags, is read as Universal NER (``index token tag - -``, ``#``
    comment lines; https://www.universalner.org): its tokens are the words, its labels the
    tags (a masked test file, its tags ``_``, ``-`` or empty on every word, is read only
    without labels: ``labelled`` refuses it as holding no gold labels).  In any other
    file, a line whose first column is ``-DOCSTART-`` (CoNLL-2002/2003) ends a sentence and is no
    token.  A file of WikiNER lines (``word|POS|TAG`` tokens), of slash-tagged text
    (``The/at jury/nn``; Penn ``.pos`` files) or of JSON lines (HuggingFace ``datasets``)
    is read as :mod:`sequence.layouts` says; an OntoNotes ``*_conll`` file, or a label
    column in bracket notation (``(PERSON*``, ``*``, ``*)``), is refused.

    Parameters
    ----------
    path : str or path-like, or ``"-"``
    labelled : bool
        The last column is the label.  Without labels, ``labels`` is ``None``.
    n_columns : int, optional
        Columns each line must have (for example those of the training data,
        when reading test data for a model), the label's included: at least 2 when
        ``labelled``.  By default the first line fixes it.  A CoNLL-U, GermEval or
        Universal NER file counts as two (the word form and the label).
    conllu_label : {"upos", "xpos"}
        The label of a CoNLL-U file: the universal part-of-speech tag or the
        treebank's own.
    label_names : sequence of str, optional
        The names of the integer tag ids of a JSON lines file, in the order of the ids
        (HuggingFace's ``features["ner_tags"].feature.names``); without them such ids are
        refused.  Only JSON lines take them.
    known_tags : set of str, optional
        Tags known to be tags (a model's labels and feature values, as ``tag predict``
        gives them): lower-case ``word_tag`` text of too few tokens to tell its parts after
        the last ``_`` for tags (``the_dt dog_nn``, refused without) is read as such when
        each of them is one.

    Returns
    -------
    ReadResult
        ``(sentences, labels)`` (``labels`` ``None`` when not ``labelled``), a tuple whose
        ``layout`` is the :class:`~sequence.layouts.Layout` the file was read in, as
        ``tag predict`` writes its output.

    Raises
    ------
    FormatError
        A line with another number of columns than the others, a labelled
        line with one column only, a ``#`` comment line, a layout refused, or no
        sentences; the error names file and line.
    """
    labelled = check_flag("labelled", labelled)
    if n_columns is not None:   # "3" gave "expected 3 columns, found 3"
        check_whole("n_columns", n_columns, 2 if labelled else 1)
    if conllu_label not in CONLLU_LABELS:
        raise ValueError(f"conllu_label must be one of {', '.join(CONLLU_LABELS)}, got "
                         f"{conllu_label!r}")
    name = str(path)
    label_names = _check_label_names(label_names)
    lines = list(read_lines(path)) if _lines is None else _lines   # (number, text) pairs
    fmt = tabbed_format(lines)
    if fmt is not None and label_names is not None:
        raise FormatError(name, None, f"label names are given for the integer tag ids of JSON "
                          f"lines, but this is a {fmt} file, whose labels are written out")
    if fmt is not None:
        if n_columns is not None and n_columns != (2 if labelled else 1):
            raise FormatError(name, None, f"a {fmt} file (the word form and its label), "
                              f"but {n_columns} columns are expected (the model was "
                              "trained on a file with feature columns)")
        return ReadResult(*_read_tabbed(lines, name, labelled, fmt,
                                        _TABBED_LABEL.get(fmt, conllu_label)), Layout(fmt))
    _refuse_comments_only(lines, name)
    layout = inline_layout(lines, name, known_tags)   # WikiNER, word/TAG, JSON lines (sequence.layouts)
    out = _Sentences(labelled)
    if layout is not None:
        last, layout = read_inline(lines, name, labelled, layout, out.add, out.end, label_names)
        result = out.result(name, last)
        width = len(result[0][0][0]) + labelled
        if n_columns is not None and width != n_columns:
            raise FormatError(name, None, f"expected {n_columns} columns, found {width} (a "
                              f"{layout[0]} file, read as tokens of {width} parts)")
        return ReadResult(*result, layout)
    if label_names is not None:
        raise FormatError(name, None, "label names are given for the integer tag ids of JSON "
                          "lines, but this is a column file, whose labels are written out")
    return ReadResult(*_read_columns(lines, name, labelled, n_columns, out), Layout("columns"))


#: a CoNLL-U comment line: ``# sent_id = 1``, ``# text = ...``, ``# newdoc id = d1``
_CONLLU_COMMENT = re.compile(r"^#\s*[^\s=]+(?:\s+[^\s=]+)?\s*=")


def _refuse_comments_only(lines, name):
    """Refuse, as holding no sentences, a file whose lines are all comments: ``#`` lines
    of CoNLL-U's ``key = value`` form, or of differing field counts (a CoNLL-U file cut
    to its ``# sent_id``/``# text`` lines was "a comment?" in a column file).  ``#`` lines
    alike in their fields (CoNLL-2000's ``# # B-NP``) are left to be read as tokens."""
    texts = [line for _, line in lines if line.strip()]
    if not texts or not all(t.startswith("#") for t in texts):
        return
    if (any(_CONLLU_COMMENT.match(t) for t in texts)
            or len({len(t.split()) for t in texts}) > 1):
        raise FormatError(name, None, f"no sentences found: its {counted(len(texts), 'line')} "
                          "(blank lines aside) are all comment lines ('#', as CoNLL-U's "
                          "'# sent_id = 1'), with no word line after them")


def _check_label_names(names):
    """``label_names`` of :func:`read_conll` as a tuple of strings (or ``None``)."""
    if names is None:
        return None
    if isinstance(names, str) or not all(isinstance(t, str) for t in names):
        raise TypeError("label_names must be a sequence of strings (the names of the ids 0, 1, "
                        "...)")
    # in NFC, as the labels read (a name in NFD is the model's label in NFC)
    names = tuple(t if t.isascii() else unicodedata.normalize("NFC", t) for t in names)
    if not names:
        raise ValueError("label_names holds no name (the names of the ids 0, 1, ... are needed)")
    bad = next((t for t in names if not t or t != "".join(t.split())), None)
    if bad is not None:
        raise ValueError(f"label_names must be names without white space, got {bad!r}")
    twice = next((t for t in names if names.count(t) > 1), None)
    if twice is not None:
        raise ValueError(f"label_names holds {twice!r} twice: each id needs its own name")
    return names


def _comment_hint(lineno, fields):
    """The hint of a line ``lineno`` (its ``fields``) that starts with ``#``."""
    if not fields[0].startswith("#"):
        return ""
    return (f"; line {lineno} starts with '#': a comment? column files have none (only "
            "CoNLL-U's are read): remove it")


def _comment_label(fields):
    """Whether a line's ``fields`` that start with ``#`` may be a comment by their label: not
    ``#``, a chunk tag or ``O`` (a word ``#`` tagged ``#``, or chunk ``B-NP``, as in
    CoNLL-2000)."""
    tag = fields[-1]
    return fields[:2] != ["#", "#"] and tag not in ("#", "O") and not is_iob({tag})


def _read_columns(lines, name, labelled, n_columns, out):
    """:func:`read_conll` of a column file, the sentences collected in ``out``; a line that
    starts a sentence with ``#`` (or anywhere with ``#`` alone) and holds a label no other
    line holds (``# sent 2``, read as a token labelled ``2``; :func:`_comment_label`), when
    it begins with ``#`` alone or no other ``#`` line holds that label, is refused as a
    comment; a ``#`` token labelled with one of the file's labels (``# NN``, ``# # O``) is a
    token wherever it is."""
    last = fixed = 0
    first, fixing = "", None
    hashed, seen = [], set()   # (line, label) of '#' lines that start a sentence; others'
    for lineno, line in lines:
        last = lineno
        fields = split_tokens(line, name, lineno)   # ASCII spaces and tabs only
        check_visible_tokens(line, name, lineno)    # a U+200F alone was a word
        if not fields or fields[0] == "-DOCSTART-":
            out.end()
            continue
        if n_columns is None:
            n_columns, fixed, fixing, first = len(fields), lineno, fields, line
            _refuse_header(name, lineno, fields)
            if labelled and n_columns < 2:
                raise FormatError(name, lineno, "expected at least two columns "
                                  "(token ... label), found one" + _comment_hint(lineno, fields)
                                  + _csv_hint(lineno, fields))
        if len(fields) != n_columns:
            # a '# ...' line (or the first line, which fixed the count): a comment
            raise FormatError(name, lineno, f"expected {n_columns} columns, found "
                              f"{len(fields)}" + (f" (line {fixed} has {n_columns})"
                                                  if fixed else "")
                              + ((fixing and _comment_hint(fixed, fixing))
                                 or _comment_hint(lineno, fields))
                              + _spaced_field(((lineno, line, n_columns),
                                               (fixed, first, len(fields))))
                              + _csv_hint(lineno, fields))
        if labelled:
            if (fields[0].startswith("#") and (not out.tokens or fields[0] == "#")
                    and _comment_label(fields)):
                hashed.append((lineno, fields[-1], fields[0] == "#", not out.tokens))
            else:
                seen.add(fields[-1])
            out.add(tuple(fields[:-1]), fields[-1], lineno)
        else:
            out.add(tuple(fields))
    # a hashtag (#word) tagged HT at the start of many sentences is no comment
    once = collections.Counter(t for _, t, _, _ in hashed)
    comment = next(((k, t, start) for k, t, bare, start in hashed
                    if t not in seen and (bare or once[t] == 1)), None)
    if comment is not None and seen:
        raise FormatError(name, comment[0], f"a line that starts {_where(comment[2])}with "
                          f"'#' and whose label {comment[1][:30]!r} no other line holds: a comment? "
                          "column files have none (only CoNLL-U's are read): remove it")
    X, y = out.result(name, last)
    if y is not None:
        _refuse_label_first(name, fixed or None, X, y)
        _refuse_index_first(name, fixed or None, X)
    return X, y


def _where(start):
    """``"a sentence "`` where a ``#`` line starts one (else ``""``), for its refusal."""
    return "a sentence " if start else ""


def _refuse_index_first(name, lineno, X):
    """Refuse labelled sentences whose first column numbers their tokens (``1 word tag``,
    CoNLL-2006/2009 files of another count than CoNLL-U's ten): the numbers were read as the
    words, and in CoNLL-2009 a predicate's arguments as the labels."""
    lengths = [len(s) for s in X]
    if sum(lengths) >= 3 and max(lengths) >= 2 and all(
            [tok[0] for tok in s] == [str(i) for i in range(1, len(s) + 1)] for s in X):
        raise FormatError(name, lineno, "column 1 numbers the tokens of every sentence (1, 2, "
                          "...), so the numbers would be read as the words: the word must be "
                          "the first column and the label the last (a CoNLL-2006/2009 file? "
                          "cut out the word and its tag, e.g. cut -f2,5)")


#: the names a header line of a column file gives its columns
HEADER_NAMES = {"word", "words", "token", "tokens", "form", "text", "lemma", "pos", "upos",
                "xpos", "tag", "tags", "label", "labels", "ner", "chunk", "entity", "iob", "bio",
                "sentence", "sentence_id", "sent_id", "id"}


def _refuse_header(name, lineno, fields):
    """Refuse a first line of column names (``word pos tag``): it was read as a token."""
    if len(fields) >= 2 and all(f.strip("#:").casefold() in HEADER_NAMES for f in fields):
        raise FormatError(name, lineno, f"the line {' '.join(fields)[:40]!r} looks like a header "
                          "of column names: column files have none (the word first, the label "
                          "last, no names): remove it")


def _csv_hint(lineno, fields):
    """The hint of a line whose one field holds commas or semicolons: a CSV file."""
    sep = next((c for c in ",;" if any(f.count(c) >= 2 for f in fields)), None)
    if sep is None:
        return ""
    return (f"; line {lineno} holds {sep!r} between values: a CSV file? columns are separated "
            "by spaces or tabs (the word first, the label last)")


def _refuse_label_first(name, lineno, X, y):
    """Refuse a file whose first column holds chunk tags and whose last does not (the MIT
    Movie and Restaurant corpora write ``B-Actor steve``): its words were the labels."""
    firsts = {tok[0] for s in X for tok in s}
    labels = {t for s in y for t in s}
    if is_iob(firsts) and not is_iob(labels) and labels != {"O"}:
        shown = ", ".join(sorted(firsts)[:3])
        raise FormatError(name, lineno, f"column 1 holds chunk tags ({shown}, ...) and the last "
                          "column does not: the label must be the last column (the MIT Movie "
                          "and Restaurant corpora write 'TAG word'): swap the columns, e.g. "
                          "awk 'NF {print $2, $1; next} {print \"\"}'")


def _spaced_field(lines):
    """A hint for a column count that differs: the first of ``lines`` (``(number, text,
    count)``: ``count`` the columns the other line has) whose tab-separated fields hold a
    space (``New York<TAB>B-LOC``), or are ``count`` with one empty (``a<TAB><TAB>O``,
    ``a<TAB>N<TAB>``), else ``""``.  Columns are split at runs of spaces and tabs, so such
    a field is two columns or none: "expected 3 columns, found 4" named no cause."""
    for lineno, line, count in lines:
        if "\t" not in line:
            continue
        fields = line.strip(" ").split("\t")
        spaced = next((f.strip(" ") for f in fields if " " in f.strip(" ")), None)
        if spaced is not None:
            return (f"; line {lineno} is tab-separated and its field {spaced[:30]!r} holds a "
                    "space: columns are split at spaces and tabs alike, so a word or label "
                    "cannot hold one (write it with '_' or without the space)")
        empty = next((k for k, f in enumerate(fields) if not f.strip(" ")), None)
        if empty is not None and len(fields) == count:
            return (f"; line {lineno} is tab-separated and its field {empty + 1} is empty: "
                    "columns are split at runs of spaces and tabs, so an empty field is no "
                    "column (write it as '_')")
    return ""


def tabbed_format(lines):
    """``"CoNLL-U"``, ``"CoNLL-U Plus"``, ``"GermEval 2014"``, ``"Universal NER"`` or
    ``None``: the format :func:`read_conll` reads ``lines`` (``(number, text)`` pairs) in,
    told by their first line (CoNLL-U Plus: ``# global.columns = ...``), first word line
    or (Universal NER, :func:`_is_uner`) first sentences."""
    if next((line for _, line in lines if line.strip()), "").startswith(_PLUS):
        return "CoNLL-U Plus"
    words = [k for k, (_, line) in enumerate(lines) if line.strip()
             and not line.startswith("#")]
    if not words:
        return None
    k = words[0]
    first = lines[k][1]
    if is_conllu_line(first):
        return "CoNLL-U"
    if _is_germeval_start(lines[k - 1][1] if k else None, first,
                          lines[k + 1][1] if k + 1 < len(lines) else None):
        return "GermEval 2014"
    if _is_uner(lines[k:]):
        return "Universal NER"
    return None


#: the tag column of a masked Universal NER test file (``*-test-masked.iob2``): no labels
UNER_MASKS = {"_", "", "-"}


def _is_uner(lines):
    """Whether ``lines`` (from the first word line on) are those of a Universal NER file
    (``index token tag - -``, https://www.universalner.org): five tab-separated columns,
    the first numbering the tokens of each sentence from 1, the third ``O`` or chunk tags
    (``B-PER``), or in a masked test file ``_``, ``-`` or empty on every word (as the last
    two columns are: a lemma there is another format), ``#`` comment lines between; told by
    the first 50 word lines, or by the sentences before the first that does not fit (which
    :func:`_read_tabbed` names)."""
    position, tags, rest, whole, seen = 0, set(), set(), False, 0
    for _, line in lines:
        if not line.strip():
            whole, position = whole or position > 0, 0
            continue
        if line.startswith("#"):
            continue
        fields = tab_fields(line, 5)
        position, seen = position + 1, seen + 1
        if seen > 50:
            whole = True
            break
        if len(fields) != 5 or fields[0] != str(position) or not fields[1].strip():
            break
        tags.add(fields[2].strip())
        rest.update(f.strip() for f in fields[3:])
    else:
        whole = whole or position > 0
    masked = len(tags) == 1 and tags | rest <= UNER_MASKS
    return whole and (tags == {"O"} or is_iob(tags) or masked)


def write_tabbed(fh, lines, labels, fmt):
    """Write the lines of a CoNLL-U, GermEval 2014 or Universal NER file (``fmt``;
    ``(number, text)`` pairs, as read) back with the label column of each word line
    (CoNLL-U's UPOS, GermEval's outer named entity, Universal NER's tag) set to its predicted label, in order; comments,
    multiword tokens, empty nodes and the other columns as they were (such a file was
    tagged as its words and labels alone, the rest lost)."""
    n_fields, columns, _, _ = _tabbed_spec(fmt, lines, "<output>")
    column = columns[_TABBED_LABEL.get(fmt, "upos")]
    flat = iter([t for s in labels for t in s])
    for _, line in lines:
        fields = tab_fields(line, n_fields)
        if len(fields) == n_fields and fields[0].isdigit() and not line.startswith("#"):
            fields[column] = next(flat)
            fh.write("\t".join(fields) + "\n")
        else:
            fh.write(line.rstrip("\r\n") + "\n")


def write_conll(fh, sentences, labels, lines=None):
    """Write sentences with their (predicted) labels as the last column.

    With ``lines``, the ``(number, text)`` pairs of the column file the sentences were read
    from (:func:`read_conll`), the output keeps them line for line: each token line is
    written as its token and label, and every other line (blank lines, however many,
    ``-DOCSTART-`` lines) as it was, so that output line i is the token of input line i
    (the predicted column pasted beside the input, conlleval's scripts).  Without them a
    blank line follows each sentence."""
    if lines is None:
        for tokens, tags in zip(sentences, labels):
            for tok, tag in zip(tokens, tags):
                fh.write(" ".join(tok) + " " + tag + "\n")
            fh.write("\n")
        return
    flat = iter([(tok, tag) for tokens, tags in zip(sentences, labels)
                 for tok, tag in zip(tokens, tags)])
    for _, line in lines:
        fields = line.split()   # read_conll refused other white space
        if fields and fields[0] != "-DOCSTART-":
            tok, tag = next(flat)
            fh.write(" ".join(tok) + " " + tag + "\n")
        else:
            fh.write(line.rstrip("\r\n") + "\n")


def deterministic_split(n, valid_fraction=0.1):
    """Indices ``(train, valid)``: every ``round(1/valid_fraction)``-th sentence validates.

    Deterministic and spread over the whole file (no random state), so that
    validation sentences come from every part of the corpus.  ``n``: an integer >= 0,
    ``valid_fraction``: a number in (0, 0.5], as ``tag train --valid-fraction`` takes (0 was
    "float division by zero", NaN "cannot convert float NaN to integer", ``n=10.0`` "'float'
    object cannot be interpreted as an integer", a fraction above 0.5 held half out).
    """
    check_whole("n", n, 0)
    check_number("valid_fraction", valid_fraction, 0.0, strict=True, hi=0.5)
    step = max(2, int(round(1.0 / valid_fraction)))
    # fewer than ``step`` sentences: the last one validates (none did, and the refusal
    # blamed the validation labels)
    valid = list(range(min(step, n) - 1, n, step)) if n >= 2 else []
    vs = set(valid)
    return [i for i in range(n) if i not in vs], valid
