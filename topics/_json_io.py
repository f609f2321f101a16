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

from structpred.io import FormatError

from ._layouts import LABEL_NAMES, TEXT_NAMES, label_name, up_to_first_text
from ._layouts import check_label as _check_label, check_text as _check_text

__all__ = ["read_jsonl", "json_array", "unique_keys"]


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
    """``(line, value)`` of each non-blank line of JSON lines."""
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=unique_keys)
        except json.JSONDecodeError as exc:
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


def json_array(lines, name):
    """``(line, value)`` of each item of a file that is one JSON array (``[{...}, {...}]``,
    as ``json.dump`` writes a list of records: it was refused as "got a JSON array"), with
    the line where the item starts."""
    numbers, texts = [], []
    for lineno, line in lines:
        numbers.append(lineno)
        texts.append(line)
    text = "\n".join(texts)
    starts = [0]
    for t in texts[:-1]:
        starts.append(starts[-1] + len(t) + 1)

    def line_at(pos):
        return numbers[max(bisect.bisect_right(starts, pos) - 1, 0)]

    decoder = json.JSONDecoder(object_pairs_hook=unique_keys)
    ws = re.compile(r"\s*")
    pos = ws.match(text).end() + 1            # after the '['
    expect_item = None                         # None: first, True: after a comma
    while True:
        pos = ws.match(text, pos).end()
        if pos < len(text) and text[pos] == "]" and not expect_item:
            pos += 1
            break
        try:
            row, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise FormatError(name, line_at(exc.pos), f"malformed JSON ({exc.msg}) in the JSON "
                                                      "array of records") from None
        except ValueError as exc:          # a field given twice
            raise FormatError(name, line_at(pos), str(exc)) from None
        yield line_at(pos), row
        pos = ws.match(text, end).end()
        if pos < len(text) and text[pos] == ",":
            pos, expect_item = pos + 1, True
        elif pos < len(text) and text[pos] == "]":
            pos += 1
            break
        else:
            raise FormatError(name, line_at(pos), "malformed JSON: expected ',' or ']' in the "
                                                  "JSON array of records")
    pos = ws.match(text, pos).end()
    if pos < len(text):
        raise FormatError(name, line_at(pos), "more after the JSON array of records: a file "
                                              "holds one array, or one JSON object per line")


def _json_kind(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
            float: "number", type(None): "null"}.get(type(v), type(v).__name__)
