"""Labelled (or unlabelled) documents from a user's files, for ``structpred topics``.

Five layouts, chosen by :func:`detect_format` or by name (folders and fastText lines are
read by :mod:`topics._layouts`, which says how IMDB's ``unsup/`` folder and files beside
the class folders are treated):

* ``folder`` -- one sub-folder per class, one document per file
  (``PATH/<label>/<file>``, the 20 Newsgroups layout).  Unlabelled documents may
  also lie directly in ``PATH`` when it has no sub-folder.  Files are read as UTF-8
  (Latin-1 when that fails, as the original 20 Newsgroups posts need); gzipped files are
  decompressed.
  Hidden files and folders (names starting with ``.``) are skipped.
* ``tsv`` -- one document per line, ``label<TAB>text`` (.gz ok).  Without labels
  (prediction), a line without a tab is the text.  A first line ``label<TAB>text``
  (or another label and text column name of :data:`LABEL_NAMES` and :data:`TEXT_NAMES`,
  any case: ``category<TAB>text``), or ``text`` alone before texts without labels, is taken
  as a header and skipped; another header of a text column's name (``text<TAB>label``,
  pandas' ``<TAB>text<TAB>label``), or ``label_field`` / ``text_field``, makes the file read
  by columns as CSV is, tab-separated, quotes kept as written.
* ``jsonl`` -- one JSON object per line with a ``text`` field and (for training and
  evaluation) a ``label`` field; other fields are ignored (.gz ok).  ``label_field`` and
  ``text_field`` name other fields (Yelp: ``stars`` and ``text``); several text fields are
  joined with a space.  A label may be a string, a boolean (``true``) or a finite number
  (``5`` and ``5.0`` are ``"5"``: see :func:`topics._layouts.label_name`).  A file that is one JSON array of such objects (``[{...}, {...}]``, as
  ``json.dump`` writes a list of records) is read likewise, each record named by the
  line where it starts, and so are records pretty-printed one after another (``jq .``):
  see :mod:`topics._json_io`.
* ``csv`` -- comma-separated values read by :mod:`csv` (RFC 4180: quoted fields may hold
  commas, doubled quotes and line breaks; a line break inside a quoted field is read as
  ``"\\n"``), one document per record (.gz ok).  See :func:`read_documents` for how the
  header, the label column and the text columns are found.  A file whose header's fields
  are separated by semicolons and hold no comma (``label;text``, the CSV of spreadsheets
  in locales with a decimal comma) is read with ``;`` as the separator.
* ``fasttext`` -- one document per line, ``__label__LABEL text`` (.gz ok); and ``*.txt``
  files under ``auto``, one text a line without labels: see :mod:`topics._layouts`.

TSV and CSV lines that are fastText lines or TREC questions (``DESC:manner How ...``, the
label glued to the text) are refused (``predict`` read the label as a word of the text); a
TSV header ``index<TAB>sentence`` (or another of :data:`ID_NAMES` and a text column name:
GLUE's test files) heads ids and texts, the ids left out (refused when labels are required).
JSON records without a ``text`` (``label``) field take the one field named like a text (a
label) instead, as CSV does; a label that is a list (several labels) is refused.  A label
holding several names (``a,b``) is one warning: multi-label classification is not supported.

Blank lines are skipped.  Malformed input raises :class:`structpred.io.FormatError`
(``FILE:LINE: reason``); so does a file that is not text (:func:`binary_kind`: a NUL byte
or the signature of an image, PDF, archive or executable in its first bytes), whatever its
name or layout.
"""

from __future__ import annotations

import csv
import gzip
import itertools
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from structpred.io import (FormatError, binary_kind, counted, gz_name, missing_reason,
                          naming_read_errors, read_lines)

from ._layouts import check_label as _check_label, check_text as _check_text
from ._layouts import (ID_NAMES, LABEL_NAMES, TEXT_NAMES, refuse_missing_numbers,
                       refuse_quoted_tsv, refuse_text_header)
from ._layouts import (fasttext_line, read_fasttext, read_folder, up_to_first_text,
                       glued_label_line, refuse_glued_label, json_object, label_name,
                       read_text_lines, refuse_boolean_numbers, refuse_swapped_columns,
                       refuse_token_lines, warn_joined_labels, warn_unlabelled_mark)
from ._json_io import read_jsonl

__all__ = ["FORMATS", "LABEL_NAMES", "TEXT_NAMES", "Documents", "detect_format", "read_documents",
           "binary_kind", "MAX_DOCUMENT_BYTES", "MAX_JSON_ARRAY_BYTES", "ID_NAMES"]

FORMATS = ("auto", "folder", "tsv", "jsonl", "csv", "fasttext")

#: the most bytes one document may hold, a line of a TSV, CSV or JSON-lines file or a file
#: of a folder (a long book is a few MB): a longer one is refused once that many are read
MAX_DOCUMENT_BYTES = 1 << 24

#: the most bytes of a JSON array on one line (``json.dump`` of a list of records writes a
#: whole corpus so): it is read whole anyway
MAX_JSON_ARRAY_BYTES = 1 << 30


def _json_line_cap(start):
    """The most bytes of a line of a JSON file starting with ``start``: a JSON array (one
    line for a corpus) or a document."""
    return MAX_JSON_ARRAY_BYTES if start.lstrip().startswith(b"[") else MAX_DOCUMENT_BYTES

#: the header names of columns (:mod:`topics._layouts`): ``LABEL_NAMES``, ``TEXT_NAMES``
#: and ``ID_NAMES``

_TSV_SUFFIXES = (".tsv", ".tab")
_JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")
_CSV_SUFFIXES = (".csv",)


@dataclass
class Documents:
    """Texts read from one input, with their labels (``None`` where a document has none)
    and where each came from (``FILE:LINE`` or the file's path), for messages."""

    path: str
    format: str
    texts: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    sources: list = field(default_factory=list)
    #: ``(line number, line)`` of a header line read as the columns' names, not a document
    header: tuple | None = None

    def __len__(self):
        return len(self.texts)

    @property
    def has_labels(self):
        return all(lab is not None for lab in self.labels)

    def classes(self):
        """The sorted distinct labels (documents without a label are left out)."""
        return sorted({lab for lab in self.labels if lab is not None})


def detect_format(path, fmt="auto"):
    """The format of ``path``: ``fmt`` unless it is ``"auto"``; then a folder is
    ``folder``, ``*.tsv[.gz]`` / ``*.tab`` is ``tsv``, ``*.jsonl`` / ``*.json`` /
    ``*.ndjson`` (``.gz`` ok) is ``jsonl``, ``*.csv[.gz]`` is ``csv``, a file whose first
    line is fastText's is ``fasttext``, else ``*.txt[.gz]`` is ``text`` (one text a line,
    without labels: :func:`topics._layouts.read_text_lines`).  Raises :class:`FormatError`
    otherwise."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    spath = os.fspath(path)
    if spath != "-" and missing_reason(spath, "file or folder") is not None:
        raise FormatError(spath, None, missing_reason(spath, "file or folder"))
    if fmt != "auto":
        if fmt == "folder" and not os.path.isdir(spath):
            raise FormatError(spath, None, "--format folder needs a folder" + (
                " (standard input holds one file: give --format tsv, csv, jsonl or fasttext)"
                if spath == "-" else ""))
        if fmt != "folder" and os.path.isdir(spath):
            raise FormatError(spath, None, f"is a folder (use --format folder or auto), not a "
                                           f"{fmt} file")
        return fmt
    if spath == "-":
        raise FormatError("-", None, "cannot tell the format of standard input: "
                                     "give --format tsv, csv, jsonl or fasttext")
    if os.path.isdir(spath):
        return "folder"
    name = os.path.basename(spath).lower()
    if gz_name(name):
        name = name[:-3]
    if name.endswith(_TSV_SUFFIXES):
        return "tsv"
    if name.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    if name.endswith(_CSV_SUFFIXES):
        return "csv"
    _refuse_binary(spath, spath)   # docs.tsv.bz2, docs.zip: what it is, not its name
    first = _first_line(spath)
    if first is not None and fasttext_line(first):
        return "fasttext"          # ft.train, train.ft.txt: '__label__pos text' lines
    if first is not None and glued_label_line(first):
        refuse_glued_label(spath, None, first)
    if name.endswith(".txt"):
        return "text"              # texts one a line, tabs and all (topics._layouts)
    raise FormatError(spath, None, "cannot tell the format from the file name (expected a "
                                   "folder, *.tsv, *.csv, *.jsonl or *.txt, optionally .gz, "
                                   "or fastText lines): give --format tsv, csv, jsonl, fasttext "
                                   "or folder")


def _first_line(spath):
    """The first non-blank line of the regular file ``spath`` (``None``: none, unreadable
    as text, or not a regular file, which could be read only once)."""
    if not os.path.isfile(spath):
        return None
    lines = _lines(spath, spath)
    try:
        return next((line for _, line in lines if line.strip()), None)
    except FormatError:
        return None        # the refusal of an unknown name says what to give
    finally:
        lines.close()


def _refuse_binary(spath, name):
    """:class:`FormatError` if the file ``spath`` (gzipped or not) is not text."""
    if spath == "-" or not os.path.isfile(spath):
        return   # a FIFO can be read once: read_lines checks its first line itself
    with open(spath, "rb") as fh, naming_read_errors(spath):
        head = fh.read(8192)
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(spath, "rb") as fh:
                head = fh.read(8192)
        except (OSError, EOFError, zlib.error):
            return                                  # read_lines reports the corrupt stream
    kind = binary_kind(head)
    if kind is not None:
        raise FormatError(name, None, f"not a text file: {kind}")


def read_documents(path, fmt="auto", *, labels="required", label_field=None, text_field=None):
    """Read the documents of ``path``.

    Parameters
    ----------
    path : str or path-like
        A folder, a TSV, CSV or JSON-lines file (``"-"``: standard input, with an
        explicit ``fmt``).
    fmt : {"auto", "folder", "tsv", "jsonl", "csv", "fasttext"}
    labels : {"required", "optional"}
        ``"required"`` (training, evaluation): every document needs a label;
        ``"optional"`` (prediction): labels are read where present.
    label_field : str or int, optional
        CSV and JSON lines only: the label's field (JSON lines, default ``"label"``) or
        column, by header name (case-insensitive) or, in CSV, by 1-based number.
    text_field : str, int or sequence of them, optional
        CSV and JSON lines only: the text's field(s) or column(s), likewise; a string
        may list several separated by commas (``"title,description"``); several are
        joined with a space, in the order given.

    Notes
    -----
    CSV: the first record is a header when one of its fields (stripped, case-insensitive) is
    a known column name (:data:`LABEL_NAMES`, :data:`TEXT_NAMES`) or a name given as
    ``label_field`` / ``text_field``.  With a header, the label column is ``label_field``
    or else the one column named like a label (none: no labels; several: refused when
    labels are required), the text column(s) ``text_field`` or else the one column named
    like a text (none or several: refused).  Without a header, columns are numbers (a
    field option of digits is a number, with or without a header): the label is
    ``label_field`` or else column 1 (unless it is a text column), the text
    ``text_field`` or else column 2; a file of more than two columns needs ``text_field``
    (no column is dropped silently), a file of one column is texts without labels.
    Every record must have as many fields as the first; blank lines are skipped; an
    empty label is no label; an empty (or blank) text is refused.

    Returns
    -------
    Documents

    Raises
    ------
    FormatError
        Naming the file (and line) of the problem: no such file, an empty input, a
        line without a tab or label, malformed JSON or CSV, a missing field or column
        (naming those there are), ...
    """
    if labels not in ("required", "optional"):
        raise ValueError("labels must be 'required' or 'optional'")
    need = labels == "required"
    fmt = detect_format(path, fmt)
    spath = os.fspath(path)
    name = spath   # standard input is "-", as in the other commands (it was "<stdin>")
    fields = _FieldOptions(_field_list(label_field, "label_field"),
                           _field_list(text_field, "text_field"))
    if len(fields.label or ()) > 1:
        raise ValueError(f"label_field names one field, got {label_field!r}")
    if fmt in ("folder", "fasttext", "text") and (fields.label or fields.text):
        raise FormatError(name, None, f"--label-field and --text-field apply to CSV, TSV and "
                                      f"JSON lines, not to {fmt} input")
    label_key = (fields.label or ["label"])[0]   # JSON lines' default: label
    if fmt == "jsonl" and (fields.label or need) and label_key in (fields.text or ()):
        # CSV names it so; JSON lines went on to a symptom (a label holding a line break),
        # or, the default 'label' among --text-field, read each label as a word of its text
        raise FormatError(name, None, f"{label_key!r} is both the label and a text "
                                      "field (--label-field, --text-field)")
    docs = Documents(path=name, format=fmt)
    if fmt == "folder":
        read_folder(Path(spath), need, docs, MAX_DOCUMENT_BYTES)
    elif fmt in ("fasttext", "text"):
        _refuse_binary(spath, name)
        lines = _lines(spath, name)
        if fmt == "text":   # CoNLL's 'word TAG' lines, judged as they are read
            lines = refuse_token_lines(lines, name)
        lines = refuse_text_header(lines, name)   # texts, labelled or not
        (read_text_lines if fmt == "text" else read_fasttext)(lines, name, need, docs)
    else:
        _refuse_binary(spath, name)
        if fmt == "jsonl":
            read_jsonl(_lines(spath, name, _json_line_cap), name, need, docs, fields)
        else:
            {"tsv": _read_tsv, "csv": _read_csv}[fmt](spath, name, need, docs, fields)
    if not docs.texts:
        raise FormatError(name, 1 if fmt != "folder" else None,
                          "no documents (an empty or blank file, a header alone or an "
                          "empty JSON array)" if fmt != "folder" else
                          "no documents: expected one sub-folder per class holding one "
                          "file per document")
    docs.labels = [label_name(lab) for lab in docs.labels]   # 1.0 is 1, in every format
    if fmt in ("tsv", "csv"):
        refuse_swapped_columns(name, docs)
    if need:
        refuse_boolean_numbers(docs)
        refuse_missing_numbers(docs)
        warn_joined_labels(docs)
        warn_unlabelled_mark(docs)
    return docs


@dataclass
class _FieldOptions:
    """``--label-field`` (a list of one name) and ``--text-field`` (names), or ``None``."""

    label: list = None
    text: list = None


def _field_list(value, what):
    """A field option as a list of stripped names (``None`` when not given)."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else (
        list(value) if isinstance(value, (list, tuple)) else [value])
    if not items or not all(isinstance(v, (str, int)) and not isinstance(v, bool)
                            for v in items):
        raise ValueError(f"{what} must be a name, a column number or a list of them, "
                         f"got {value!r}")
    items = [str(v).strip() for v in items]
    if not all(items):
        raise ValueError(f"{what} {value!r} has an empty name")
    if len(set(items)) < len(items):   # the text read twice, its words counted twice
        raise ValueError(f"{what} {value!r} names a field twice")
    return items


# ----------------------------------------------------------------------- readers

def _lines(spath, name, max_line=None):
    """``read_lines`` with the file's display name in its errors; a line holds a document
    of :data:`MAX_DOCUMENT_BYTES` at most, unless ``max_line`` says otherwise."""
    try:
        yield from read_lines(spath, max_line=max_line or MAX_DOCUMENT_BYTES)
    except FormatError as exc:
        if exc.path != name:
            raise FormatError(name, exc.line, exc.reason) from None
        raise


def _read_tsv(spath, name, need, docs, fields):
    lines = refuse_token_lines(_lines(spath, name), name)   # CoNLL's 'word TAG' lines
    if fields.label or fields.text:      # columns given: read by columns, as CSV
        return _read_csv(spath, name, need, docs, fields, lines)
    first = first_text = True
    ids = False     # a header 'index<TAB>sentence': the first column holds ids, not labels
    layout = None   # (has a tab, line) of the first text line, without labels required
    tabs = set()    # the tabs a line holds
    codes = True    # whether the field after the first tab is one word or none in every line
    for lineno, line in lines:
        if not line.strip():
            continue
        if first:
            first = False
            header = _tsv_header(line, name, lineno, need)
            if header == "columns":      # 'sentence<TAB>label', '<TAB>text<TAB>label'
                return _read_csv(spath, name, need, docs, fields,
                                 itertools.chain([(lineno, line)], lines))
            ids = header == "ids"
            if header:
                docs.header = (lineno, line.strip())
                continue                                   # a header line
        if first_text:
            _refuse_other_format_in_tsv(name, lineno, line, need)
        first_text = False
        label, tab, text = line.partition("\t")
        tabs.add(line.count("\t"))
        codes = codes and len(text.partition("\t")[0].split()) <= 1
        layout = layout or (bool(tab), lineno)
        if not need and bool(tab) != layout[0]:
            _refuse_mixed_layout(name, lineno, bool(tab), layout[1])
        if not tab:
            if need:
                raise FormatError(name, lineno, "no tab: expected 'label<TAB>text'")
            label, text = None, line
        else:
            label = None if ids else label.strip()
            if not label and not ids:
                if need:
                    raise FormatError(name, lineno, "empty label before the tab: expected "
                                                    "'label<TAB>text'")
                label = None
        _check_label(label, name, lineno)
        _check_text(text, name, lineno, "after the tab" if tab else "")
        docs.texts.append(text)
        docs.labels.append(label)
        docs.sources.append(f"{name}:{lineno}")
    _refuse_columns(name, docs, tabs, codes)


def _refuse_columns(name, docs, tabs, codes):
    """A TSV file every line of which holds the same number of tabs, 2 or more, the field
    after the first a code of one word or none, and no header: columns, not
    ``label<TAB>text`` (GLUE's CoLA, ``source<TAB>label<TAB><TAB>text``, was read as classes
    of its sources, the label a word of the text).  ``label<TAB>title<TAB>body`` is a text
    of two fields, read as before."""
    if len(docs) > 1 and len(tabs) == 1 and min(tabs) >= 2 and codes:
        n = min(tabs) + 1
        raise FormatError(name, int(docs.sources[0].rpartition(":")[2]), f"every line "
                          f"holds {n} tab-separated fields: expected 'label<TAB>text'; give the "
                          f"label and text columns by number (--label-field N --text-field N) "
                          f"or a header row naming them")


def _tsv_header(line, name, lineno, need):
    """``"label"`` when the first line of a TSV file is a header ``label<TAB>text``, or another pair
    of the names a CSV header may give them (``category<TAB>text``, ``sentiment<TAB>review``:
    read as a document of class "category", a class of its own); a header of the text
    first (``text<TAB>label``, SST-2's ``sentence<TAB>label``; it was refused) or of three
    columns or more, one a text's (pandas' ``<TAB>text<TAB>label``: the header was a document
    and the text took in the label) is ``"columns"``: the file is read by its header's names,
    as CSV is.
    A first line ``text`` alone (or another text column's name) heads texts without labels
    (it was labelled as a document: one label more than the documents).  ``"ids"`` for a
    header of ids and texts (GLUE's test files, ``index<TAB>sentence``: the header was a
    document and the ids its labels), refused when labels are required; else ``None``."""
    fields = [f.strip().lower() for f in line.split("\t")]
    if len(fields) == 1:
        return "label" if fields[0] in TEXT_NAMES else None   # texts without labels: 'text'
    if len(fields) > 2:
        return "columns" if set(fields) & set(TEXT_NAMES) else None
    if fields[0] in LABEL_NAMES and fields[1] in TEXT_NAMES:
        return "label"
    if fields[0] in ID_NAMES and fields[1] in TEXT_NAMES:
        if need:
            raise FormatError(name, lineno, f"a header {line.strip()!r}: the first column holds "
                                            "document ids, not labels (a test file without "
                                            "labels?): training and evaluation need labels")
        return "ids"
    return "columns" if fields[0] in TEXT_NAMES and fields[1] in LABEL_NAMES else None


def _refuse_mixed_layout(name, lineno, tab, first):
    """Without labels required, lines with and without a tab: one read as 'label<TAB>text'
    and the other as a text alone, the part before a tab silently taken for a label."""
    raise FormatError(name, lineno, f"{'a tab' if tab else 'no tab'}, but line {first} "
                      f"{'has none' if tab else 'is label<TAB>text'}: every line must be "
                      "'label<TAB>text' (the label may be empty), or every line a text "
                      "without a tab")


def _refuse_other_format_in_tsv(name, lineno, line, need):
    """The first line of a TSV input that is JSON lines or CSV (read as TSV, each JSON
    line or each CSV row, header included, became one text)."""
    if json_object(line):
        raise FormatError(name, lineno, "a JSON object, not 'label<TAB>text': the file "
                                        "holds JSON lines (--format jsonl)")
    if "\t" not in line and fasttext_line(line):
        raise FormatError(name, lineno, "a fastText label ('__label__...'), not "
                                        "'label<TAB>text': give --format fasttext")
    if glued_label_line(line):
        refuse_glued_label(name, lineno, line)
    refuse_quoted_tsv(name, lineno, line)
    if "\t" in line or "," not in line:
        return
    named_csv = name.lower().removesuffix(".gz").endswith(_CSV_SUFFIXES)
    if need or named_csv or _csv_header_like(line):
        raise FormatError(name, lineno, "no tab but commas: expected 'label<TAB>text'; is the "
                                        "file comma-separated (--format csv)?")


def _csv_header_like(line):
    """Whether ``line``, read as CSV, is two or more fields with a known column name."""
    try:
        row = next(csv.reader([line]), [])
    except csv.Error:
        return False
    return len(row) > 1 and bool(_named_like(row, LABEL_NAMES + TEXT_NAMES))


# ----------------------------------------------------------------------- CSV

#: the largest CSV field read (the csv module's default, 131,072 characters, refused long
#: posts; a quote never closed runs to the end of the file and is reported as such)
_CSV_FIELD_LIMIT = 2**31 - 1


def _csv_records(spath, name, tsv_lines=None):
    """The non-blank records of a CSV file, ``[(line, fields)]`` with the line where each
    starts, and the delimiter (:func:`_csv_delimiter`; a first line ``sep=;``, which
    spreadsheets write to name it, gives it and is skipped).  Lines come from
    ``read_lines`` (encoding, BOM, NUL and CR checks), or are ``tsv_lines``, those of a TSV
    file read by columns: tab-separated, quotes kept as written."""
    at = [0]
    head, source = up_to_first_text(_lines(spath, name) if tsv_lines is None else tsv_lines)
    delimiter = _csv_delimiter(head[-1][1]) if head and tsv_lines is None else "\t"
    sep = head[-1][1].strip() if head and tsv_lines is None else ""
    if len(sep) == 5 and sep.lower().startswith("sep=") and sep[4] in ",;\t|":
        delimiter, head = sep[4], head[:-1]   # Excel's line naming the separator

    def lines():
        for lineno, text in itertools.chain(head, source):
            at[0] = lineno
            yield text + "\n"

    reader = csv.reader(lines(), strict=True, delimiter=delimiter,
                        quoting=csv.QUOTE_MINIMAL if tsv_lines is None else csv.QUOTE_NONE)
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, _CSV_FIELD_LIMIT))
    out = []
    try:
        while True:
            start = at[0] + 1
            try:
                row = next(reader)
            except StopIteration:
                return out, delimiter
            except csv.Error as exc:
                if "end of data" in str(exc):
                    raise FormatError(name, start, "a quoted field opened in this record is "
                                                   "never closed (the file ends inside it)") \
                        from None
                raise FormatError(name, at[0], f"malformed CSV ({exc}): a quote inside a "
                                               f"quoted field is written twice (\"\")") from None
            if len(row) > 1 or (row and row[0].strip()):
                out.append((start, row))
    finally:
        csv.field_size_limit(limit)


def _csv_delimiter(line):
    """``;`` for a file whose first line is a header of fields separated by semicolons
    (``label;text``: the CSV of spreadsheets in locales that write a decimal comma) and holds
    no comma, else ``,``: read with commas, such a header was one field, refused as "no
    label column ... (no header)"."""
    if "," in line or ";" not in line:
        return ","
    try:
        row = next(csv.reader([line], delimiter=";"), [])
    except csv.Error:
        return ","
    return ";" if len(row) > 1 and _named_like(row, LABEL_NAMES + TEXT_NAMES) else ","


def _named_like(row, names):
    """The indices of the fields of ``row`` that are one of ``names`` (case-insensitive)."""
    return [i for i, f in enumerate(row) if f.strip().lower() in names]


def _shown(row):
    return ", ".join(repr(f[:30]) for f in row[:12]) + (", ..." if len(row) > 12 else "")


@dataclass
class _Columns:
    """Where a CSV file's label and text are: 0-based indices, and the names to show."""

    header: bool
    label: int = None
    text: list = field(default_factory=list)
    names: list = field(default_factory=list)

    def name(self, i):
        return repr(self.names[i]) if self.header else f"column {i + 1}"


def _csv_column(name, line, first, cols, item, option):
    """The index of the column a field option ``item`` names (a number or a name)."""
    n = len(first)
    if item.isdecimal():   # "²" is a digit that int() does not read: a name
        if not 1 <= int(item) <= n:
            raise FormatError(name, line, f"{option} {item}: no such column, the rows have "
                                          f"{counted(n, 'field')} (numbered from 1)")
        return int(item) - 1
    hits = _named_like(first, (item.lower(),))
    if not hits:
        hint = "" if cols.header else (f"; the first row is not a header: give column "
                                       f"numbers, 1 to {n}")
        raise FormatError(name, line, f"{option} {item}: no column of that name; the first "
                                      f"row's fields are {_shown(first)}{hint}")
    if len(hits) > 1:
        raise FormatError(name, line, f"{option} {item}: columns "
                                      f"{' and '.join(str(i + 1) for i in hits)} have that "
                                      f"name: give a column number")
    return hits[0]


def _csv_columns(name, records, need, fields):
    """The header (or none) and the label and text columns of a CSV file (see
    :func:`read_documents`)."""
    line, first = records[0]
    _refuse_tsv_as_csv(name, records)
    if json_object(",".join(first)):   # read by commas: '{"label": "pets"' was the label
        raise FormatError(name, line, "a JSON object, not CSV or TSV: give --format jsonl")
    if fasttext_line(first[0]):   # the label and the text's first words one column
        raise FormatError(name, line, "a fastText label ('__label__...'), not CSV: give "
                                      "--format fasttext")
    if glued_label_line(first[0]):
        refuse_glued_label(name, line, first[0])
    given = tuple(f.lower() for f in (fields.label or []) + (fields.text or [])
                  if not f.isdecimal())
    cols = _Columns(header=bool(_named_like(first, LABEL_NAMES + TEXT_NAMES + given)),
                    names=[f.strip() for f in first])
    n = len(first)
    if fields.text:
        cols.text = [_csv_column(name, line, first, cols, f, "--text-field")
                     for f in fields.text]
        if len(set(cols.text)) < len(cols.text):   # a name and its number, or two cases
            twice = next(i for i in cols.text if cols.text.count(i) > 1)
            raise FormatError(name, line, f"--text-field {','.join(fields.text)}: names "
                                          f"column {twice + 1} twice (its text read twice)")
    elif cols.header:
        cols.text = _named_like(first, TEXT_NAMES)
        if len(cols.text) != 1:
            found = (f"{len(cols.text)} text-like columns "
                     f"({', '.join(cols.name(i) for i in cols.text)})" if cols.text else
                     f"no column named {', '.join(TEXT_NAMES)} among {_shown(first)}")
            raise FormatError(name, line, f"{found}: give --text-field NAME (several, "
                                          f"joined with a space: --text-field NAME,NAME)")
    elif n > 2:
        raise FormatError(name, line, f"no header (no field of the first row is a known "
                                      f"column name) and {n} columns: give them by number, "
                                      f"e.g. --label-field 1 --text-field 2,3")
    else:
        cols.text = [n - 1]
    if fields.label:
        cols.label = _csv_column(name, line, first, cols, fields.label[0], "--label-field")
    elif cols.header:
        like = [i for i in _named_like(first, LABEL_NAMES) if i not in cols.text]
        if len(like) > 1 and need:
            raise FormatError(name, line, f"{len(like)} label-like columns "
                                          f"({', '.join(cols.name(i) for i in like)}): choose "
                                          f"one with --label-field NAME")
        cols.label = like[0] if len(like) == 1 else None
    else:
        cols.label = 0 if n > 1 and 0 not in cols.text else None
    if cols.label is not None and cols.label in cols.text:
        raise FormatError(name, line, f"{cols.name(cols.label)} is both the label and a text "
                                      f"column")
    if cols.label is None and need:
        raise FormatError(name, line, f"no label column among {_shown(first)}"
                                      f"{'' if cols.header else ' (no header)'}: give "
                                      f"--label-field NAME or NUMBER (label names known: "
                                      f"{', '.join(LABEL_NAMES)})")
    return cols


def _refuse_tsv_as_csv(name, records):
    """A TSV file read as CSV: its first row one field holding a tab, and the header
    ``label<TAB>text`` or every row likewise (each line would be one text, label and
    all)."""
    line, first = records[0]
    if len(first) != 1 or "\t" not in first[0]:
        return
    if (_named_like(first[0].split("\t"), LABEL_NAMES + TEXT_NAMES)
            or all(len(r) == 1 and "\t" in r[0] for _, r in records)):
        raise FormatError(name, line, "tabs and no commas: the file holds tab-separated "
                                      "values (--format tsv), not CSV")


def _numbered_header(records, cols):
    """Whether the first record, not a header by its names, is one by its label: a word
    (``Class Index``, Kaggle's AG News) above labels that are all whole numbers (it was
    read as a document of a class of its own)."""
    if cols.label is None or len(records) < 3:
        return False
    labels = [row[cols.label].strip() for _, row in records]
    return (any(c.isalpha() for c in labels[0])
            and all(lab.isdecimal() for lab in labels[1:]))


def _read_csv(spath, name, need, docs, fields, tsv_lines=None):
    records, delimiter = _csv_records(spath, name, tsv_lines)
    if not records:
        return
    cols = _csv_columns(name, records, need, fields)
    width, (first_line, _) = len(records[0][1]), records[0]
    rows = records[1:] if cols.header or _numbered_header(records, cols) else records
    if not rows:
        raise FormatError(name, first_line, "no documents: only a header row")
    labelled = empty_at = None
    for line, row in rows:
        if len(row) != width:
            what = "the header" if cols.header else f"the first row (line {first_line})"
            raise FormatError(name, line, f"{counted(len(row), 'field')} "
                                          f"where {what} has {width}: " + (
                                              "a tab inside a text?" if tsv_lines else
                                              f"a {'comma' if delimiter == ',' else 'semicolon'}"
                                              f" in an unquoted field? (quote the field)"))
        text = " ".join(row[i] for i in cols.text)
        if not text.strip():
            raise FormatError(name, line, f"empty text "
                                          f"({', '.join(cols.name(i) for i in cols.text)})")
        label = row[cols.label].strip() if cols.label is not None else ""
        if "\t" in label:
            raise FormatError(name, line, f"the label {label[:40]!r} holds a tab: is the file "
                                          f"tab-separated (--format tsv)?")
        _check_label(label, name, line)
        if label:
            labelled = line
        elif empty_at is None:
            empty_at = line
        if need and labelled is not None and empty_at is not None:
            raise FormatError(name, empty_at, f"empty label ({cols.name(cols.label)})")
        docs.texts.append(text)
        docs.labels.append(label or None)
        docs.sources.append(f"{name}:{line}")
    if need and labelled is None:
        raise FormatError(name, rows[0][0], f"the label column, {cols.name(cols.label)}, is "
                                            f"empty in every row: give --label-field")
