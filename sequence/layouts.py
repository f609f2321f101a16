"""Labelled sentences in layouts other than one token per line (:func:`read_conll` reads
them through :func:`inline_layout` and :func:`read_inline`), and the layouts it refuses.

* **WikiNER**: one sentence per line, each token ``word|POS|TAG`` (the parts separated by
  ``|``, as many on every token): the last part is the label, the others the token's
  columns.
* **Slash-tagged text** (NLTK's Brown corpus ``The/at jury/nn``, Penn Treebank ``.pos``
  files ``1\\/2/CD``): each token ``word/TAG``, split at its last ``/`` not escaped as
  ``\\/`` (``\\/`` in the word is read as ``/``); one sentence per line, or, in a Penn
  ``.pos`` file (``[``/``]`` chunk brackets, ``=====`` separator lines), per block of lines
  between blank lines, the brackets skipped.  Where every token is ``word/POS/TAG`` (a
  tag-shaped middle part; ``word_POS_TAG`` likewise), as ``tag predict`` writes a tag after
  a feature part, the token has three parts.
* **word_TAG text** (the Brown/LOB/ICE tagged-text convention, the Stanford tagger's
  output ``The_DT dog_NN``): each token split at its last ``_``, read when every token
  has one followed by a tag-shaped part (upper case, digits, punctuation), or a
  lower-case one (the Brown corpus's ``the_at``) when these parts are a small closed set
  (4 tokens at least, at most half as many kinds as tokens); refused when a tag is a
  chunk tag written with ``_`` (``Lotte_B_PER``) or, in lines of other lengths or every
  token lower-case ``word_tag``, the parts are not told to be tags, each with a
  conversion to give.
* **JSON lines** as HuggingFace ``datasets`` export them: one object per line, the tokens in
  ``"tokens"`` (or ``"words"``), the label in the one other field holding a value per
  token, or, of ``pos_tags``, ``chunk_tags`` and ``ner_tags`` (CoNLL-2000/2003), the last
  present, the others feature columns in that order, as in the column files of those
  corpora; beside other fields, the ``tags`` field that ``tag predict`` adds is the
  label.  Integer tag ids (whose names the dataset keeps in its features) are read with
  their names given (``label_names``, ``tag --label-names FILE``) and refused without:
  chunk F1 and the model's labels need the names.
* Refused: OntoNotes / CoNLL-2012 ``*_conll`` files (``#begin document``), whose named
  entities are spans in bracket notation (``(PERSON*``, ``*``, ``*)``), and JSON arrays.

:func:`write_inline` writes predicted labels back in the layout a file was read in.
"""

from __future__ import annotations

import collections
import json
import re

from structpred.io import FormatError, check_visible_tokens, split_tokens

__all__ = ["inline_layout", "read_inline", "write_inline", "bracket_label_error", "Layout",
           "JSON_TAG_FIELDS"]

#: HuggingFace's tag fields in the column order of the CoNLL files they come from (word POS
#: chunk NER): the last one present is the label, the others are feature columns
JSON_TAG_FIELDS = ("pos_tags", "chunk_tags", "ner_tags")

#: the fields that hold the tokens of a JSON lines file
JSON_TOKEN_FIELDS = ("tokens", "words")

#: the layout a file was read in: ``kind`` (``"JSON lines"``, ``"WikiNER"``, ``"slash"``,
#: ``"word_TAG"``, a tab-separated format such as ``"CoNLL-U"``, or ``"columns"``), the
#: separator of a token's parts (``|``, ``/``, ``_``), ``how`` (WikiNER: the parts of a token;
#: slash: whether sentences are blocks of lines, as in Penn ``.pos`` files) and ``fields``
#: (JSON lines: the token field and the tag fields, as the first object told them); ``parts``
#: (slash and word_TAG: 3 where every token is ``word/POS/TAG``, as ``tag predict`` writes a
#: tag after a feature part, else ``None``: ``word/TAG``)
Layout = collections.namedtuple("Layout", "kind sep how fields parts",
                                defaults=(None, None, None, None))

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


def inline_layout(lines, name, known_tags=None):
    """The :class:`Layout` of ``lines`` (``(number, text)`` pairs) when it is one of this
    module's: JSON lines, WikiNER (``"|"``, the parts of a token), slash-tagged text
    (``"/"``, whether sentences are blocks of lines, as in Penn ``.pos`` files) or
    ``word_TAG`` text (``"_"``); ``None`` for a column file.  An OntoNotes file, a JSON
    array and ``word_TAG`` text whose split is not told are refused; lower-case
    ``word_tag`` text too few tokens tell (``the_dt dog_nn``) is told by ``known_tags``
    (``tag predict``: the model's labels and feature values) when every tag is one."""
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
            return Layout("JSON lines")
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
        return Layout("WikiNER", "|", max(sorted(set(counts)), key=counts.count) + 1)
    penn = [f for f in fields if not (len(f) == 1 and _PENN_SEPARATOR.match(f[0]))]
    tokens = [t for f in penn for t in f if not _bracket(t)]
    if tokens and all(map(_is_slash_token, tokens)):
        blocks = len(penn) < len(fields) or len(tokens) < sum(map(len, penn))
        return Layout("slash", "/", blocks, parts=_three_parts(tokens, "/"))
    if all(map(_is_underscore_token, flat)):
        return _underscore_layout(flat, name, sample[0][0])
    lower = all(_is_underscore_token(t, lower=True) for t in flat)
    if _lower_tag_set(flat) or lower and known_tags and all(
            t[t.rfind("_") + 1:] in known_tags for t in flat):
        return _underscore_layout(flat, name, sample[0][0], lower=True)
    if ((lower or len({len(f) for f in fields}) > 1)
            and all(0 < t.rfind("_") < len(t) - 1 for t in flat)):
        # word_tag whose tags are neither upper case nor a small set of lower-case ones:
        # where the word ends is not told; lines of one length may be a column file, but
        # not one whose every field is word_tag (the_dt dog_nn: 'dog_nn' was the label)
        tags = {t[t.rfind("_") + 1:] for t in flat}
        raise FormatError(name, sample[0][0], "every token is written word_TAG, a sentence "
                          "per line, but the parts after the last '_' are not told to be tags: "
                          "neither upper case (The_DT) nor a small set of lower-case ones "
                          "(the_dt: 4 tokens at least, at most half as many kinds as tokens; "
                          f"here {len(tags)} kinds among {len(flat)} tokens, e.g. "
                          f"{', '.join(sorted(tags)[:3])}); write one 'word tag' line per token: "
                          f"{_TO_COLUMNS}")
    return None


#: a tag after the last ``_`` of a ``word_TAG`` token (the Brown/LOB/ICE and Stanford
#: tagger convention: ``The_DT``, ``._.``, ``PRP$``, ``-LRB-``): upper case, digits and
#: punctuation, not digits alone (``year_2000``)
_TAG_SHAPE = re.compile(r"^(?!\d+$)[A-Z0-9$&+*'\"`.,:;!?()\[\]{}#%/=<>@^~-]+$")

#: a ``word_TAG`` token whose tag is a chunk tag written with ``_`` (``Lotte_B_PER``)
_CHUNK_UNDERSCORE = re.compile(r"._[BIESLUM]_[A-Z]+$")

#: the shell line that writes a word_TAG file as columns (split at each token's last '_')
_TO_COLUMNS = ("awk '{for (i = 1; i <= NF; i++) {j = match($i, /_[^_]*$/); "
               "print substr($i, 1, j - 1), substr($i, j + 1)} print \"\"}' FILE")


#: a lower-case tag after the last ``_`` (the Brown corpus's ``the_at``, ``nn-tl``, ``ppss+bem``)
_LOWER_TAG_SHAPE = re.compile(r"^(?!\d+$)[a-z0-9$&+*'\"`.,:;!?()\[\]{}#%/=<>@^~-]{1,12}$")


def _is_underscore_token(field, lower=False):
    i = field.rfind("_")
    shape = _LOWER_TAG_SHAPE if lower else _TAG_SHAPE
    return 0 < i < len(field) - 1 and shape.match(field[i + 1:]) is not None


def _lower_tag_set(tokens):
    """Whether the ``tokens`` of a sample are ``word_tag`` with lower-case tags told as such:
    every token has a ``_`` and a lower-case tag-shaped part after its last one (12
    characters at most), and these parts are a small closed set, as tags are (4 tokens at
    least, each part twice on average): words after a ``_`` are not."""
    if len(tokens) < 4 or not all(_is_underscore_token(t, lower=True) for t in tokens):
        return False
    return len({t[t.rfind("_") + 1:] for t in tokens}) <= len(tokens) / 2


def _underscore_layout(tokens, name, lineno, lower=False):
    """The ``word_TAG`` layout of a sample of ``tokens`` (each ``_`` and a tag-shaped
    suffix), or a refusal when some tag is a chunk tag written with ``_`` (``B_PER``:
    split at the last ``_``, ``Lotte_B`` was the word and ``PER`` the tag)."""
    chunk = next((t for t in tokens if _CHUNK_UNDERSCORE.search(t.upper() if lower else t)),
                 None)
    if chunk is not None:
        raise FormatError(name, lineno, f"every token is written word_TAG, a sentence per line, "
                          f"and {chunk[:40]!r} writes a chunk tag with '_' (B_PER): split at "
                          "the last '_', the chunk prefix would be read as part of the word; "
                          "write the tags with '-', e.g. sed -E "
                          "'s/_([BIESLUM])_([A-Z]+)( |$)/_\\1-\\2\\3/g' FILE")
    return Layout("word_TAG", "_", "lower" if lower else False, parts=_three_parts(tokens, "_"))


def _last_sep(field, sep):
    """The index of the last ``sep`` of ``field`` (``/``: not escaped as ``\\/``; -1: none)."""
    return _slash(field) if sep == "/" else field.rfind(sep)


def _three_parts(tokens, sep):
    """3 when every one of ``tokens`` (2 at least) is ``word{sep}POS{sep}TAG``, as ``tag
    predict`` writes a tag after a feature part: a word before the last two separators and a
    tag-shaped part between them (upper case, or lower-case ones of a small set: at most half
    as many kinds as tokens; slash text escapes a ``/`` in a word, so any lower-case one
    there), else ``None``."""
    middles = []
    for token in tokens:
        i = _last_sep(token, sep)
        j = _last_sep(token[:i], sep) if i > 0 else -1
        if j <= 0 or i - j < 2 or i >= len(token) - 1:
            return None
        middles.append(token[j + 1:i])
    if len(middles) < 2:
        return None
    lower = (all(_LOWER_TAG_SHAPE.match(m) for m in middles)
             and (sep == "/" or len(set(middles)) <= len(middles) / 2))
    return 3 if lower or all(_TAG_SHAPE.match(m) for m in middles) else None


def _next_starts_object(lines, lineno):
    """Whether the first non-blank line after ``lineno`` opens a JSON object."""
    after = next((line for k, line in lines if k > lineno and line.strip()), "")
    return after.lstrip().startswith("{")


def read_inline(lines, name, labelled, layout, add, end, label_names=None):
    """Read ``lines`` of ``layout`` (:func:`inline_layout`): ``add(token, tag, lineno)`` for
    each token, ``end()`` after each sentence.  ``label_names``: the names of integer tag
    ids of JSON lines, in the order of the ids.  Returns the number of the last line and
    the layout (of JSON lines with the ``fields`` its first object told)."""
    kind, sep, how = layout[:3]
    if kind == "JSON lines":
        last, fields = _read_json_lines(lines, name, labelled, (add, end), label_names)
        return last, layout._replace(fields=fields)
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
            parts = _parts(field, sep, how, layout.parts)
            if parts is None:
                tag = "tag (a lower-case tag" if how == "lower" else "TAG (a"
                word = f"word{sep}POS" if layout.parts == 3 else "word"
                expected = (f"{word}{sep}{tag} {kind} file, told by line {first})"
                            if kind != "WikiNER" else
                            f"{how} parts separated by '|' ("
                            f"{'word|POS|TAG' if how == 3 else '|'.join(['x'] * how)}: a "
                            f"WikiNER file, told by line {first})")
                raise FormatError(name, lineno, f"the token {field[:40]!r} is not {expected}")
            if labelled:
                add(tuple(parts[:-1]), parts[-1], lineno)
            else:
                add(tuple(parts), None, lineno)
        if not (kind == "slash" and how):
            end()   # one sentence per line
    end()
    return last, layout


def _tag_at(field, sep, how=None):
    """Where the tag of a ``word/TAG`` or ``word_TAG`` token begins (after its last ``/`` not
    escaped as ``\\/``, its last ``_``), or -1 when the token is not written so (``how``:
    ``"lower"`` for lower-case tags)."""
    i = _slash(field) if sep == "/" else field.rfind("_")
    if sep == "_" and not _is_underscore_token(field, lower=how == "lower"):
        return -1
    return i + 1 if 0 < i < len(field) - 1 else -1


def _parts(field, sep, how, n=None):
    """The columns of one token written ``word|POS|TAG``, ``word/TAG`` or ``word_TAG`` (``n``
    3: ``word/POS/TAG``, ``word_POS_TAG``), or ``None``."""
    if sep in ("/", "_"):
        i = _tag_at(field, sep, how)
        if i < 0:
            return None
        parts = [field[:i - 1], field[i:]]
        if n == 3:
            j = _last_sep(parts[0], sep)
            if j <= 0 or j == len(parts[0]) - 1:
                return None
            parts[:1] = [parts[0][:j], parts[0][j + 1:]]
        if sep == "/":   # '\\/' in a word (or POS) is '/'
            parts[:-1] = [p.replace("\\/", "/") for p in parts[:-1]]
        return parts
    parts = field.rsplit("|", how - 1)
    return parts if len(parts) == how and all(parts) else None


#: the fields :func:`added_tag_field` adds predicted tags as (``tags``, ``predicted_tags``, ...)
_ADDED_FIELD = re.compile(r"^(?:predicted_)*tags$")


def _json_fields(obj, name, lineno):
    """``(token field, tag fields)`` of the first object of a JSON lines file: of several
    fields of a value per token (not all HuggingFace's), the one ``tag predict`` adds
    (``tags``, ``predicted_tags``, ...: the last of them, as it is added last) is the label,
    the others feature columns in their order."""
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
    added = [k for k in tags if _ADDED_FIELD.match(k)]
    if len(tags) > 1 and added:   # tag predict's output: the field it added is the label
        label = added[-1]   # the last: a field "tags" of the input gets "predicted_tags"
        return key, [k for k in tags if k != label] + [label]
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
    return last, (key, tags)


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


def write_inline(fh, lines, layout, labels, replace, label_names=None):
    """Write ``lines`` (``(number, text)`` pairs, as :func:`read_inline` read them in
    ``layout``) back with the (predicted) ``labels`` of their tokens, in order: the tag of
    each ``word|POS|TAG``, ``word/TAG`` or ``word_TAG`` token replaced (``replace``; else a
    ``|TAG`` added), the tags of a JSON lines object set in its label field (else added as
    a field, :func:`added_tag_field`); everything else as it was.  ``label_names``: write
    the labels of JSON lines as their ids in this list (as the input's were)."""
    if layout.kind == "JSON lines":
        _write_json_lines(fh, lines, layout.fields, iter(labels), (replace, label_names))
        return
    flat = iter([t for s in labels for t in s])
    token = re.compile(r"[^ \t]+")

    def tagged(match):
        field = match.group()
        if layout.kind == "slash" and _bracket(field):
            return field
        if not replace:
            return field + layout.sep + next(flat)
        sep = layout.sep
        at = (field.rfind("|") + 1) if sep == "|" else _tag_at(field, sep, layout.how)
        return field[:at] + next(flat)

    for _, line in lines:
        fields = line.split()
        if (not fields or fields[0] == "-DOCSTART-" or layout.kind == "slash"
                and len(fields) == 1 and _PENN_SEPARATOR.match(fields[0])):
            fh.write(line + "\n")
        else:
            fh.write(token.sub(tagged, line) + "\n")


def added_tag_field(obj, tags):
    """The field that predicted tags are added as to a JSON lines object ``obj`` whose
    per-token fields ``tags`` hold no label: the next of :data:`JSON_TAG_FIELDS` after its
    own (``pos_tags`` and ``chunk_tags``: ``ner_tags``), else ``"tags"`` (prefixed with
    ``predicted_`` while ``obj`` has such a field), read back as the label."""
    if tags and set(tags) <= set(JSON_TAG_FIELDS) and tags[-1] != JSON_TAG_FIELDS[-1]:
        return JSON_TAG_FIELDS[-1]
    name = "tags"
    while name in obj:
        name = "predicted_" + name
    return name


def _write_json_lines(fh, lines, fields, labels, how):
    """:func:`write_inline` of JSON lines: an object with tokens gets the next of
    ``labels`` in its label field (``how``: whether it has one, and the names of ids)."""
    key, tags = fields
    replace, names = how
    field = None
    for _, line in lines:
        obj = json.loads(line) if line.strip() else None
        tokens = obj.get(key) if obj is not None else None
        if not tokens or tokens == ["-DOCSTART-"]:
            fh.write(line + "\n")
            continue
        if field is None:
            field = tags[-1] if replace else added_tag_field(obj, tags)
        tagged = next(labels)
        obj[field] = [names.index(t) for t in tagged] if names else list(tagged)
        fh.write(json.dumps(obj, ensure_ascii=False) + "\n")


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
