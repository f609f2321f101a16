"""JSON input of ``structpred topics``: JSON lines (one object a line) and a file that is one
JSON array of records (``[{...}, {...}]``, as ``json.dump`` writes a list), read into
:class:`topics._text_io.Documents` by :func:`read_jsonl` (see :mod:`topics._text_io` for the
fields read)."""

from __future__ import annotations

import bisect
import itertools
import json
import math
import re

from structpred.io import FormatError, counted

from ._layouts import LABEL_NAMES, TEXT_NAMES, label_name, up_to_first_text
from ._layouts import check_label as _check_label, check_text as _check_text

__all__ = ["read_jsonl", "json_array", "json_values", "unique_keys"]


def read_jsonl(lines, name, need, docs, fields):
    """Read JSON lines, or a file that is one JSON array of records, from the lines
    ``(number, line)`` into ``docs`` (see :mod:`topics._text_io`)."""
    label_key = fields.label[0] if fields.label else "label"
    text_keys = fields.text or ["text"]
    head, source = up_to_first_text(lines)
    lines = itertools.chain(head, source)
    array = bool(head) and head[-1][1].lstrip().startswith("[")
    for lineno, row in (json_array(lines, name) if array else _json_lines(lines, name)):
        if not docs.texts and isinstance(row, dict):
            label_key, text_keys = _json_keys(row, fields, label_key, text_keys)
            _refuse_other_shapes(row, text_keys[0], name, lineno)
        if not isinstance(row, dict):
            raise FormatError(name, lineno, f"expected a JSON object with {text_keys[0]!r} and "
                                            f"{label_key!r} fields, got a JSON {_json_kind(row)}")
        parts = []
        for key in text_keys:
            if key not in row:
                raise FormatError(name, lineno, f"no {key!r} field{_json_fields(row)}")
            if not isinstance(row[key], str):
                raise FormatError(name, lineno, f"the {key!r} field must be a string, got "
                                                f"{_json_kind(row[key])}")
            parts.append(row[key])
        label = _json_label(row.get(label_key), label_key, name, lineno)
        if not label:
            if need:
                raise FormatError(name, lineno, f"no {label_key!r} field{_json_fields(row)}"
                                  if label_key not in row else f"empty {label_key!r} field")
            label = None
        _check_label(label, name, lineno)
        _check_text(" ".join(parts), name, lineno,
                    f"({', '.join(repr(k) for k in text_keys)})")
        docs.texts.append(" ".join(parts))
        docs.labels.append(label)
        docs.sources.append(f"{name}:{lineno}")


def _refuse_other_shapes(row, text_key, name, lineno):
    """Refuse a first JSON object that is not a record: a table of columns, each an object
    of row ids and values (pandas' ``DataFrame.to_json``, whose default is
    ``orient='columns'``: it was "the 'text' field must be a string, got object"), or one
    object holding the records, with a text field, in a field (``{"data": [{...}, ...]}``,
    as APIs and dataset dumps wrap them: it was "no 'text' field (its fields: 'data')")."""
    value = row.get(text_key)
    if isinstance(value, dict):
        raise FormatError(name, lineno, f"the {text_key!r} field is an object of "
                                        f"{counted(len(value), 'value')}: a table of columns "
                                        "(pandas' DataFrame.to_json), not records; write "
                                        "df.to_json(FILE, orient='records', lines=True)")
    held = [k for k, v in row.items() if text_key not in row and isinstance(v, list) and v
            and all(isinstance(x, dict) for x in v) and _like_a_record(v[0], text_key)]
    if held:
        raise FormatError(name, lineno, f"a JSON object holding "
                                        f"{counted(len(row[held[0]]), 'record')} in its field "
                                        f"{held[0]!r}, not a record: give the records alone, "
                                        f"one a line (jq -c '.[{json.dumps(held[0])}][]' FILE) "
                                        "or as a JSON array")


def _like_a_record(item, text_key):
    """Whether the object ``item`` has the field ``text_key`` or one named like a text."""
    return text_key in item or any(isinstance(k, str) and k.strip().lower() in TEXT_NAMES
                                   for k in item)


def _json_keys(row, fields, label_key, text_keys):
    """The label and text fields of JSON records, judged on the first record ``row``: those
    given, else ``label`` and ``text``, else the one field of the record named like a label
    or a text (:data:`LABEL_NAMES`, :data:`TEXT_NAMES` and ``labels``, any case), as in CSV:
    HuggingFace's exports name them ``sentence``, ``content``, ``labels`` (it was refused as
    "no 'text' field")."""
    def like(names, default):
        hits = [k for k in row if isinstance(k, str) and k.strip().lower() in names]
        return hits[0] if default not in row and len(hits) == 1 else default
    if not fields.text:
        text_keys = [like(TEXT_NAMES, text_keys[0])]
    if not fields.label:
        label_key = like(LABEL_NAMES + ("labels",), label_key)
    return label_key, text_keys


def _json_lines(lines, name):
    """``(line, value)`` of each non-blank line of JSON lines; from a line that opens an
    object continued on the next (a pretty-printed record), the values written one after
    another, over as many lines as each takes (:func:`json_values`)."""
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=unique_keys)
        except json.JSONDecodeError as exc:
            if line.lstrip().startswith("{") and exc.pos >= len(line.rstrip()):
                yield from json_values(itertools.chain([(lineno, line)], lines), name)
                return
            raise FormatError(name, lineno, f"malformed JSON ({exc.msg} at column {exc.colno}): "
                                            f"expected one JSON object per line") from None
        except ValueError as exc:          # a field given twice
            raise FormatError(name, lineno, str(exc)) from None
        yield lineno, row


def _json_fields(row):
    """`` (its fields: a, b, c)`` for a message about a missing field."""
    keys = [str(k) for k in row]
    shown = ", ".join(repr(k[:30]) for k in keys[:12]) + (", ..." if len(keys) > 12 else "")
    return f" (its fields: {shown})" if keys else " (an empty object)"


def _json_label(value, key, name, lineno):
    """A JSON label as a stripped string (``None`` when absent): a string, a boolean, an
    integer, or a finite number (``5.0`` is ``"5"``: Yelp's stars), by :func:`label_name`."""
    if value is None:
        return None
    if isinstance(value, (bool, int)) or isinstance(value, float) and math.isfinite(value):
        return label_name(value)
    if isinstance(value, list):
        raise FormatError(name, lineno, f"the {key!r} field is a list: several labels a "
                                        "document (multi-label classification) are not "
                                        "supported; give one label a document")
    if not isinstance(value, str):
        got = repr(value) if isinstance(value, float) else _json_kind(value)
        raise FormatError(name, lineno, f"the {key!r} field must be a string, a boolean or a "
                                        f"finite number, got {got}")
    return str(value).strip()


def unique_keys(pairs):
    """``object_pairs_hook`` of :func:`json.loads`: a dict, or ``ValueError`` naming a key
    given twice (``json`` keeps the last value silently)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the field {k!r} is given twice")
        out[k] = v
    return out


class _Joined:
    """The lines ``(number, line)`` of a file joined into one text, read as JSON values
    written one after another or in an array, each named by the line where it starts."""

    def __init__(self, lines, name):
        numbers, texts = [], []
        for lineno, line in lines:
            numbers.append(lineno)
            texts.append(line)
        self.text, self.numbers, self.name = "\n".join(texts), numbers, name
        self.starts = [0]
        for t in texts[:-1]:
            self.starts.append(self.starts[-1] + len(t) + 1)
        self.decoder = json.JSONDecoder(object_pairs_hook=unique_keys)

    def line_at(self, pos):
        return self.numbers[max(bisect.bisect_right(self.starts, pos) - 1, 0)]

    def skip(self, pos):
        """The position of the first character from ``pos`` on that is not white space."""
        return _WS.match(self.text, pos).end()

    def value(self, pos, what):
        """``(value, end)`` of the JSON value at ``pos``, of ``what`` (for messages)."""
        try:
            return self.decoder.raw_decode(self.text, pos)
        except json.JSONDecodeError as exc:
            raise FormatError(self.name, self.line_at(exc.pos), f"malformed JSON ({exc.msg}) "
                                                                f"in {what}") from None
        except ValueError as exc:          # a field given twice
            raise FormatError(self.name, self.line_at(pos), str(exc)) from None


_WS = re.compile(r"\s*")


def json_array(lines, name):
    """``(line, value)`` of each item of a file that is one JSON array (``[{...}, {...}]``,
    as ``json.dump`` writes a list of records: it was refused as "got a JSON array"), with
    the line where the item starts."""
    doc = _Joined(lines, name)
    text = doc.text
    pos = doc.skip(0) + 1                      # after the '['
    expect_item = None                         # None: first, True: after a comma
    while True:
        pos = doc.skip(pos)
        if pos < len(text) and text[pos] == "]" and not expect_item:
            pos += 1
            break
        row, end = doc.value(pos, "the JSON array of records")
        yield doc.line_at(pos), row
        pos = doc.skip(end)
        if pos < len(text) and text[pos] == ",":
            pos, expect_item = pos + 1, True
        elif pos < len(text) and text[pos] == "]":
            pos += 1
            break
        else:
            raise FormatError(name, doc.line_at(pos), "malformed JSON: expected ',' or ']' in "
                                                      "the JSON array of records")
    pos = doc.skip(pos)
    if pos < len(text):
        raise FormatError(name, doc.line_at(pos), "more after the JSON array of records: a "
                                                  "file holds one array, or one JSON object "
                                                  "per line")


def json_values(lines, name):
    """``(line, value)`` of each of the JSON values written one after another, each on one
    line or over several (records pretty-printed one by one, as ``jq .`` writes them: they
    were refused as "malformed JSON ... expected one JSON object per line")."""
    doc = _Joined(lines, name)
    pos = doc.skip(0)
    while pos < len(doc.text):
        row, end = doc.value(pos, "JSON records written over several lines")
        yield doc.line_at(pos), row
        pos = doc.skip(end)


def _json_kind(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
            float: "number", type(None): "null"}.get(type(v), type(v).__name__)
