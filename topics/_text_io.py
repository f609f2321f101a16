"""Labelled (or unlabelled) documents from a user's files, for ``structpred topics``.

Three layouts, chosen by :func:`detect_format` or by name:

* ``folder`` -- one sub-folder per class, one document per file
  (``PATH/<label>/<file>``, the 20 Newsgroups layout).  Unlabelled documents may
  also lie directly in ``PATH``.  Files are read as UTF-8 (Latin-1 when that fails,
  as the original 20 Newsgroups posts need); gzipped files are decompressed.
  Hidden files and folders (names starting with ``.``) are skipped.
* ``tsv`` -- one document per line, ``label<TAB>text`` (.gz ok).  Without labels
  (prediction), a line without a tab is the text.  A first line ``label<TAB>text``
  is taken as a header and skipped.
* ``jsonl`` -- one JSON object per line with a ``text`` field and (for training and
  evaluation) a ``label`` field; other fields are ignored (.gz ok).

Blank lines are skipped.  Malformed input raises :class:`structpred.io.FormatError`
(``FILE:LINE: reason``); so does a file that is not text (:func:`binary_kind`: a NUL byte
or the signature of an image, PDF, archive or executable in its first bytes), whatever its
name or layout.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from structpred.io import FormatError, binary_kind, missing_reason, read_lines

__all__ = ["FORMATS", "Documents", "detect_format", "read_documents", "binary_kind"]

FORMATS = ("auto", "folder", "tsv", "jsonl")

_TSV_SUFFIXES = (".tsv", ".tab")
_JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


@dataclass
class Documents:
    """Texts read from one input, with their labels (``None`` where a document has none)
    and where each came from (``FILE:LINE`` or the file's path), for messages."""

    path: str
    format: str
    texts: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    sources: list = field(default_factory=list)

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
    ``*.ndjson`` (``.gz`` ok) is ``jsonl``.  Raises :class:`FormatError` otherwise."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    spath = os.fspath(path)
    if spath != "-" and missing_reason(spath, "file or folder") is not None:
        raise FormatError(spath, None, missing_reason(spath, "file or folder"))
    if fmt != "auto":
        if fmt == "folder" and not os.path.isdir(spath):
            raise FormatError(spath, None, "--format folder needs a folder")
        if fmt != "folder" and os.path.isdir(spath):
            raise FormatError(spath, None, f"is a folder (use --format folder or auto), not a "
                                           f"{fmt} file")
        return fmt
    if spath == "-":
        raise FormatError("<stdin>", None, "cannot tell the format of standard input: "
                                           "give --format tsv or --format jsonl")
    if os.path.isdir(spath):
        return "folder"
    name = os.path.basename(spath).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(_TSV_SUFFIXES):
        return "tsv"
    if name.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    raise FormatError(spath, None, "cannot tell the format from the file name (expected a "
                                   "folder, *.tsv or *.jsonl, optionally .gz): give --format "
                                   "tsv, jsonl or folder")


def _refuse_binary(spath, name):
    """:class:`FormatError` if the file ``spath`` (gzipped or not) is not text."""
    if spath == "-" or not os.path.isfile(spath):
        return   # a FIFO can be read once: read_lines checks its first line itself
    with open(spath, "rb") as fh:
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


def read_documents(path, fmt="auto", *, labels="required"):
    """Read the documents of ``path``.

    Parameters
    ----------
    path : str or path-like
        A folder, a TSV file or a JSON-lines file (``"-"``: standard input, with an
        explicit ``fmt``).
    fmt : {"auto", "folder", "tsv", "jsonl"}
    labels : {"required", "optional"}
        ``"required"`` (training, evaluation): every document needs a label;
        ``"optional"`` (prediction): labels are read where present.

    Returns
    -------
    Documents

    Raises
    ------
    FormatError
        Naming the file (and line) of the problem: no such file, an empty input, a
        line without a tab or label, malformed JSON, a missing ``text`` field, ...
    """
    if labels not in ("required", "optional"):
        raise ValueError("labels must be 'required' or 'optional'")
    need = labels == "required"
    fmt = detect_format(path, fmt)
    spath = os.fspath(path)
    name = "<stdin>" if spath == "-" else spath
    docs = Documents(path=name, format=fmt)
    if fmt == "folder":
        _read_folder(Path(spath), need, docs)
    elif fmt == "tsv":
        _refuse_binary(spath, name)
        _read_tsv(spath, name, need, docs)
    else:
        _refuse_binary(spath, name)
        _read_jsonl(spath, name, need, docs)
    if not docs.texts:
        raise FormatError(name, 1 if fmt != "folder" else None,
                          "no documents (empty or blank file)" if fmt != "folder" else
                          "no documents: expected one sub-folder per class holding one "
                          "file per document")
    return docs


# ----------------------------------------------------------------------- readers

def _lines(spath, name):
    """``read_lines`` with the file's display name in its errors."""
    try:
        yield from read_lines(spath)
    except FormatError as exc:
        if exc.path != name:
            raise FormatError(name, exc.line, exc.reason) from None
        raise


def _json_object(line):
    """Whether ``line`` is one JSON object (a JSON-lines record read as TSV)."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _unique_keys(pairs):
    """``object_pairs_hook`` of :func:`json.loads`: a dict, or ``ValueError`` naming a key
    given twice (``json`` keeps the last value silently)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the field {k!r} is given twice")
        out[k] = v
    return out


def _read_tsv(spath, name, need, docs):
    first = first_text = True
    for lineno, line in _lines(spath, name):
        if not line.strip():
            continue
        if first:
            first = False
            if line.strip().lower().replace(" ", "") == "label\ttext":
                continue                                   # a header line
        if first_text and line.lstrip().startswith("{") and _json_object(line):
            raise FormatError(name, lineno, "a JSON object, not 'label<TAB>text': the file "
                                            "holds JSON lines (--format jsonl)")
        first_text = False
        label, tab, text = line.partition("\t")
        if not tab:
            if need:
                raise FormatError(name, lineno, "no tab: expected 'label<TAB>text'")
            label, text = None, line
        else:
            label = label.strip()
            if not label:
                if need:
                    raise FormatError(name, lineno, "empty label before the tab: expected "
                                                    "'label<TAB>text'")
                label = None
        docs.texts.append(text)
        docs.labels.append(label)
        docs.sources.append(f"{name}:{lineno}")


def _read_jsonl(spath, name, need, docs):
    for lineno, line in _lines(spath, name):
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            raise FormatError(name, lineno, f"malformed JSON ({exc.msg} at column {exc.colno}): "
                                            f"expected one JSON object per line") from None
        except ValueError as exc:          # a field given twice
            raise FormatError(name, lineno, str(exc)) from None
        if not isinstance(row, dict):
            raise FormatError(name, lineno, f"expected a JSON object with 'text' and 'label' "
                                            f"fields, got a JSON {_json_kind(row)}")
        if "text" not in row:
            raise FormatError(name, lineno, "no 'text' field")
        text = row["text"]
        if not isinstance(text, str):
            raise FormatError(name, lineno, f"the 'text' field must be a string, got "
                                            f"{_json_kind(text)}")
        label = row.get("label")
        if isinstance(label, bool) or not (label is None or isinstance(label, (str, int))):
            raise FormatError(name, lineno, f"the 'label' field must be a string or an integer, "
                                            f"got {_json_kind(label)}")
        label = None if label is None else str(label).strip()
        if not label:
            if need:
                raise FormatError(name, lineno, "no 'label' field" if "label" not in row
                                  else "empty 'label' field")
            label = None
        _check_label(label, name, lineno)
        docs.texts.append(text)
        docs.labels.append(label)
        docs.sources.append(f"{name}:{lineno}")


def _json_kind(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
            float: "number", type(None): "null"}.get(type(v), type(v).__name__)


def _visible(p):
    return not p.name.startswith(".")


def _read_folder(root, need, docs):
    entries = sorted((p for p in root.iterdir() if _visible(p)), key=lambda p: p.name)
    loose = [p for p in entries if p.is_file()]
    if loose and need:
        raise FormatError(str(loose[0]), None, f"not in a class folder: with labels, {root} must "
                                               f"hold one sub-folder per class")
    for f in loose:
        _add_file(f, None, docs)
    for sub in (p for p in entries if p.is_dir()):
        files = sorted((f for f in sub.rglob("*") if f.is_file()
                        and all(_visible(q) for q in f.relative_to(sub).parents if q.name)
                        and _visible(f)), key=lambda f: str(f.relative_to(sub)))
        for f in files:
            _check_label(sub.name, str(root), None)
            _add_file(f, sub.name, docs)


def _check_label(label, name, lineno):
    """Refuse a label holding a line break, tab or other control character: ``predict``
    writes one label per line, and ``"a\\nb"`` came out as two lines (one document more)."""
    bad = next((c for c in label or "" if c < " " or c in "\x7f\x85\u2028\u2029"), None)
    if bad is not None:
        raise FormatError(name, lineno, f"the label {label[:40]!r} holds the control "
                                        f"character {bad!r}: labels are written one per line")


def _add_file(f, label, docs):
    try:
        raw = f.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
    except (OSError, EOFError, zlib.error) as exc:
        raise FormatError(str(f), None, f"cannot read ({exc})") from None
    kind = binary_kind(raw[:8192])
    if kind is not None:
        raise FormatError(str(f), None, f"not a text file: {kind}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    docs.texts.append(text)
    docs.labels.append(label)
    docs.sources.append(str(f))
