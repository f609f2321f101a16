"""Labelled sentences in layouts other than one token per line (:func:`read_conll` reads
them through :func:`inline_layout` and :func:`read_inline`), and the layouts it refuses.

* **WikiNER**: one sentence per line, each token ``word|POS|TAG`` (the parts separated by
  ``|``, as many on every token): the last part is the label, the others the token's
  columns.
* **Slash-tagged text** (NLTK's Brown corpus ``The/at jury/nn``, Penn Treebank ``.pos``
  files ``1\\/2/CD``): each token ``word/TAG``, split at its last ``/`` not escaped as
  ``\\/`` (``\\/`` in the word is read as ``/``); one sentence per line, or, in a Penn
  ``.pos`` file (``[``/``]`` chunk brackets, ``=====`` separator lines), per block of lines
  between blank lines, the brackets skipped.
* **JSON lines** as HuggingFace ``datasets`` export them: one object per line, the tokens in
  ``"tokens"`` (or ``"words"``), the label in the one other field holding a value per
  token, or, of ``pos_tags``, ``chunk_tags`` and ``ner_tags`` (CoNLL-2000/2003), the last
  present, the others feature columns in that order, as in the column files of those
  corpora.  Integer tag ids (whose names the dataset keeps in its features) are read with
  their names given (``label_names``, ``tag --label-names FILE``) and refused without:
  chunk F1 and the model's labels need the names.
* Refused: OntoNotes / CoNLL-2012 ``*_conll`` files (``#begin document``), whose named
  entities are spans in bracket notation (``(PERSON*``, ``*``, ``*)``), and JSON arrays.
"""

from __future__ import annotations

import json
import re

from structpred.io import FormatError, check_visible_tokens, split_tokens

__all__ = ["inline_layout", "read_inline", "bracket_label_error", "JSON_TAG_FIELDS"]

#: HuggingFace's tag fields in the column order of the CoNLL files they come from (word POS
#: chunk NER): the last one present is the label, the others are feature columns
JSON_TAG_FIELDS = ("pos_tags", "chunk_tags", "ner_tags")

#: the fields that hold the tokens of a JSON lines file
JSON_TOKEN_FIELDS = ("tokens", "words")

#: lines looked at to tell the layout
_SAMPLE = 50

_JSON_OBJECT = re.compile(r'^\s*\{\s*".*\}\s*$')     # a column line ends with its label
_JSON_ARRAY = re.compile(r'^\s*\[\s*\{.*\]\s*$')
_PENN_SEPARATOR = re.compile(r"^=+$")

ONTONOTES = ("an OntoNotes / CoNLL-2012 *_conll file ('#begin document' lines): its named entities "
             "are spans in bracket notation in a column of their own ('(PERSON*', '*', '*)'), "
             "not a tag per token, and the last column is coreference: convert the spans to "
             "BIO tags first (one 'word tag' line per token, a blank line between sentences)")


def _slash(field):
    """The index of the last ``/`` of ``field`` not escaped as ``\\/`` (-1: none)."""
    i = field.rfind("/")
    while i > 0 and field[i - 1] == "\\":
        i = field.rfind("/", 0, i - 1)
    return i


def _is_slash_token(field):
    i = _slash(field)
    return 0 < i < len(field) - 1


def _bracket(field):
    """A Penn ``.pos`` chunk bracket, which is no token."""
    return field in ("[", "]")


def inline_layout(lines, name):
    """The layout of ``lines`` (``(number, text)`` pairs) when it is one of this module's:
    ``("JSON lines", None, None)``, ``("WikiNER", "|", parts)`` or ``("slash", "/",
    blocks)`` (``blocks``: sentences are blocks of lines, as in Penn ``.pos`` files, not
    lines); ``None`` for a column file.  An OntoNotes file or a JSON array is refused."""
    for lineno, line in lines:
        if line.startswith(("#begin document", "#end document")):
            raise FormatError(name, lineno, ONTONOTES)
    sample = []
    for lineno, line in lines:
        if not line.strip():
            continue
        if not sample and (_JSON_ARRAY.match(line)
                           or line.strip() == "[" and _next_starts_object(lines, lineno)):
            raise FormatError(name, lineno, "a JSON array: JSON lines are read (one object "
                              "per line, as HuggingFace's Dataset.to_json writes them): "
                              "convert it, e.g. jq -c '.[]' FILE")
        if not sample and _JSON_OBJECT.match(line):
            return "JSON lines", None, None
        sample.append((lineno, line))
        if len(sample) == _SAMPLE:
            break
    fields = [split_tokens(line, name, lineno) for lineno, line in sample]
    fields = [f for f in fields if f and f[0] != "-DOCSTART-"]
    if not any(len(f) >= 2 for f in fields):
        return None
    flat = [t for f in fields for t in f]
    if all("|" in t for t in flat):
        counts = [t.count("|") for t in flat]   # the most common ('|' in a word: more)
        return "WikiNER", "|", max(sorted(set(counts)), key=counts.count) + 1
    penn = [f for f in fields if not (len(f) == 1 and _PENN_SEPARATOR.match(f[0]))]
    tokens = [t for f in penn for t in f if not _bracket(t)]
    if tokens and all(map(_is_slash_token, tokens)):
        blocks = len(penn) < len(fields) or len(tokens) < sum(map(len, penn))
        return "slash", "/", blocks
    if len({len(f) for f in fields}) > 1 and all(0 < t.rfind("_") < len(t) - 1 for t in flat):
        # word_TAG (the Stanford tagger's output): tags hold '_' too (B_PER), so the split
        # is not told; lines of one length may be a column file of such fields
        raise FormatError(name, sample[0][0], "every token is written word_TAG, a sentence "
                          "per line (the Stanford tagger's output?): where a word ends and its "
                          "tag begins is not told ('_' is in words and tags alike); write one "
                          "'word tag' line per token, a blank line after each sentence")
    return None


def _next_starts_object(lines, lineno):
    """Whether the first non-blank line after ``lineno`` opens a JSON object."""
    after = next((line for k, line in lines if k > lineno and line.strip()), "")
    return after.lstrip().startswith("{")


def read_inline(lines, name, labelled, layout, add, end, label_names=None):
    """Read ``lines`` of ``layout`` (:func:`inline_layout`): ``add(token, tag, lineno)`` for
    each token, ``end()`` after each sentence; the number of the last line is returned.
    ``label_names``: the names of integer tag ids of JSON lines, in the order of the ids."""
    kind, _, how = layout
    if kind == "JSON lines":
        return _read_json_lines(lines, name, labelled, (add, end), label_names)
    if label_names is not None:
        raise FormatError(name, None, f"label names are given for the integer tag ids of JSON "
                          f"lines, but this is a {kind} file, whose labels are written out")
    first = None
    last = 0
    for lineno, line in lines:
        last = lineno
        fields = split_tokens(line, name, lineno)
        check_visible_tokens(line, name, lineno)
        if not fields or fields[0] == "-DOCSTART-":
            end()
            continue
        if kind == "slash" and len(fields) == 1 and _PENN_SEPARATOR.match(fields[0]):
            end()
            continue
        first = first or lineno
        for field in fields:
            if kind == "slash" and _bracket(field):
                continue
            parts = _parts(field, kind, how)
            if parts is None:
                shape = "word|POS|TAG" if how == 3 else "|".join(["x"] * how)
                expected = (f"word/TAG (a slash-tagged file, told by line {first})"
                            if kind == "slash" else
                            f"{how} parts separated by '|' ({shape}: a WikiNER file, "
                            f"told by line {first})")
                raise FormatError(name, lineno, f"the token {field[:40]!r} is not {expected}")
            if labelled:
                add(tuple(parts[:-1]), parts[-1], lineno)
            else:
                add(tuple(parts), None, lineno)
        if not (kind == "slash" and how):
            end()   # one sentence per line
    end()
    return last


def _parts(field, kind, how):
    """The columns of one token written ``word|POS|TAG`` or ``word/TAG``, or ``None``."""
    if kind == "slash":
        i = _slash(field)
        if not 0 < i < len(field) - 1:
            return None
        return [field[:i].replace("\\/", "/"), field[i + 1:]]
    parts = field.rsplit("|", how - 1)
    return parts if len(parts) == how and all(parts) else None


def _json_fields(obj, name, lineno):
    """``(token field, tag fields)`` of the first object of a JSON lines file."""
    key = next((k for k in JSON_TOKEN_FIELDS if k in obj), None)
    if key is None:
        spans = ("text" in obj and any(k in obj for k in ("spans", "label", "labels",
                                                           "entities")))
        raise FormatError(name, lineno, f"a JSON lines object without a 'tokens' (or "
                          f"'words') field (its fields: {', '.join(list(obj)[:8])})"
                          + ("; a text with character-offset spans (doccano, Prodigy) must be "
                             "tokenised and its spans written as BIO tags first" if spans else ""))
    n = len(obj[key]) if isinstance(obj[key], list) else -1
    tags = [k for k, v in obj.items() if k != key and isinstance(v, list) and len(v) == n]
    if tags and set(tags) <= set(JSON_TAG_FIELDS):
        return key, [k for k in JSON_TAG_FIELDS if k in tags]
    if len(tags) > 1:
        raise FormatError(name, lineno, f"the fields {', '.join(map(repr, tags[:6]))} each "
                          f"hold a value per token, and which is the label is not told (read "
                          f"are {', '.join(JSON_TAG_FIELDS)}, the last the label, or one field "
                          "alone): keep the tokens and the label, e.g. jq -c "
                          f"'{{{key}, {tags[0]}}}'")
    return key, tags


def _read_json_lines(lines, name, labelled, calls, label_names):
    key = tags = first = None
    last = 0
    for lineno, line in lines:
        last = lineno
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise FormatError(name, lineno, f"not a JSON object ({getattr(exc, 'msg', exc)} "
                              f"at column {getattr(exc, 'colno', '?')}): a JSON lines file "
                              f"(told by line {first or lineno}) holds one per line") from None
        if not isinstance(obj, dict):
            raise FormatError(name, lineno, f"a JSON {type(obj).__name__}, not an object: a "
                              "JSON lines file holds one object per line")
        if key is None:
            first = lineno
            key, tags = _json_fields(obj, name, lineno)
            if labelled and not tags:
                raise FormatError(name, lineno, f"a JSON lines object without labels: no "
                                  f"field besides '{key}' holds a value per token (the tags)")
        _json_sentence(obj, (key, tags, label_names), (name, lineno, first), labelled, calls[0])
        calls[1]()
    return last


def _json_sentence(obj, fields, where, labelled, add):
    """``add`` the tokens of one JSON lines object; ``fields``: the token field, the tag
    fields and the names of integer tag ids (``None``: ids are refused)."""
    key, tags, names = fields
    name, lineno, first = where
    tokens = obj.get(key)
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise FormatError(name, lineno, f"the field '{key}' is not a list of strings (line "
                          f"{first} fixed the fields)")
    if not tokens or tokens == ["-DOCSTART-"]:
        return
    columns = []
    for k in tags:
        values = obj.get(k)
        if not isinstance(values, list) or len(values) != len(tokens):
            raise FormatError(name, lineno, f"the field '{k}' does not hold one value for each "
                              f"of the {len(tokens)} tokens (line {first} fixed the fields)")
        if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
            raise FormatError(name, lineno, f"the field '{k}' holds a value that is neither a "
                              "string nor an integer")
        columns.append(values)
    label = _named(columns[-1], names, tags[-1], (name, lineno)) if labelled else None
    features = columns[:-1] if labelled else columns
    check_visible_tokens(" ".join(tokens), name, lineno)
    for i, tok in enumerate(tokens):
        word = "_".join(tok.split())
        if not word:
            raise FormatError(name, lineno, f"token {i + 1} is empty")
        cols = (word,) + tuple("_".join(str(c[i]).split()) or "_" for c in features)
        tag = None
        if labelled:
            tag = label[i]
            if not tag.strip() or tag != "".join(tag.split()):
                raise FormatError(name, lineno, f"the label {tag!r} of token {i + 1} is empty "
                                  "or holds white space")
        add(cols, tag, lineno)


def _named(values, names, field, where):
    """The labels ``values`` of one object, integer ids read as their ``names`` (ids are
    refused without names)."""
    ids = [v for v in values if isinstance(v, int)]
    if not ids:
        return values
    name, lineno = where
    if not names:
        raise FormatError(name, lineno, f"the '{field}' are integer ids "
                          f"({', '.join(map(str, values[:4]))}, ...) whose names the file does "
                          "not hold (a HuggingFace dataset keeps them in its features): chunk "
                          "F1 and the model's labels need the names; give them, one a line in "
                          f"the order of the ids (tag --label-names FILE: "
                          f"features['{field}'].feature.names), or write the tags as strings")
    bad = next((v for v in ids if not 0 <= v < len(names)), None)
    if bad is not None:
        raise FormatError(name, lineno, f"the tag id {bad} of '{field}' has no name: "
                          f"{len(names)} label names are given (ids 0 to {len(names) - 1})")
    return [names[v] if isinstance(v, int) else v for v in values]


#: labels of spans in bracket notation (CoNLL-2012's named entities ``(PERSON*``, ``*)``;
#: CoNLL-2005's arguments ``(A0*``; coreference ``(12``, ``(12)``, ``12)``)
_BRACKETED = re.compile(r"^\([^()\s]+\*?\)?$|^\*\)$|^[0-9]+\)$")


def bracket_label_error(labels):
    """``(label, message)`` when the labels (a dict of their first lines, or not) are spans
    in bracket notation (some ``(X*`` or ``*)`` or a coreference ``(12``, beside ``*`` or
    ``-`` for the tokens inside or outside): the column is not a tag per token; else
    ``None``.  The label named is the one of the first line."""
    where = labels if isinstance(labels, dict) else {}   # label -> its first line
    labels = set(labels)
    if not labels & {"*", "-"}:
        return None
    odd = sorted((t for t in labels if _BRACKETED.match(t)), key=lambda t: (where.get(t, 0), t))
    if not odd:
        return None
    return odd[0], (f"the label {odd[0][:30]!r} is a span in bracket notation (beside "
                    f"{' and '.join(repr(t) for t in sorted(labels & {'*', '-'}))}: an "
                    "OntoNotes / CoNLL-2012 or CoNLL-2005 column, '(TYPE*' opening a span, "
                    "'*)' closing it), not a tag per token: convert the spans to BIO tags "
                    "first")
