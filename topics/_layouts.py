"""Layouts of public text-classification corpora read by :mod:`topics._text_io`: folders of
documents (IMDB's ``unsup/``, files beside the class folders, a corpus of split folders),
fastText lines (``__label__pos some text``), and the checks every reader makes of a label
and a text.

Folders (``PATH/<label>/<file>``):

* a sub-folder named ``unsup``, ``unlabeled`` or ``unlabelled`` (any case; IMDB's
  ``aclImdb/train/unsup`` holds 50,000 reviews without a rating) holds documents without a
  label: training and evaluation leave it out with one warning naming it (it was a class
  of its own), ``predict`` reads its documents;
* files beside the class folders (IMDB's ``labeledBow.feat``, ``urls_pos.txt``) are left out
  with one warning naming them, in every command: they belong to no class (training
  refused them, ``predict`` read them as documents); a folder of files and no sub-folder is
  documents without labels, for ``predict``;
* a class folder named like a split (``train``, ``test``, ``dev``, ``20news-bydate-train``,
  ...) that holds folders of its own is refused: ``--data aclImdb`` made the classes
  ``train`` and ``test``.

fastText (``--format fasttext``; ``auto`` takes a file whose first line starts with
``__label__``, unless it is named ``*.tsv``, ``*.csv`` or ``*.json[l]``): one document per
line, its label the word ``__label__LABEL`` before the text.  Several labels on a line
(multi-label) are refused, as is a ``__label__`` word inside the text (fastText reads every
such word as a label); a line without a label is a text without a label for ``predict``.

Plain text (``auto`` for a file named ``*.txt[.gz]`` that is not fastText): one document a
line, without a label, tabs and all (:func:`read_text_lines`); ``train`` and ``eval`` refuse
it, naming ``--format tsv`` for ``label<TAB>text`` lines.

Labels are the names of classes, as :func:`label_name` writes them: a JSON boolean is
``true`` or ``false`` (as is the text ``True``/``False`` of pandas' CSV), and a whole number
written as a decimal (``1.0``, as pandas writes a column of class numbers holding a NaN) is
the number (``1``), in every format, so the same classes come out of JSON lines, CSV and TSV.

Also here: the refusal of TREC questions (``DESC:manner How ...``, the label glued to the
text).  JSON lines and arrays are read by :mod:`topics._json_io`.
"""

from __future__ import annotations

import collections
import gzip
import itertools
import json
import math
import re
import unicodedata
import warnings
import zlib

from structpred.io import (FormatError, bad_bytes_reason, binary_kind, cjk_encoding_hint,
                          counted, given_encoding, implausible_utf8_reason, odd_entry_reason,
                          utf8_misread_reason)

__all__ = ["FASTTEXT_PREFIX", "UNLABELLED_FOLDERS", "check_label", "check_text", "label_name",
           "decimals_hint", "LABEL_NAMES", "TEXT_NAMES", "ID_NAMES", "refuse_text_header",
           "refuse_boolean_numbers", "refuse_missing_numbers", "MISSING_VALUES",
           "read_text_lines", "json_object",
           "read_folder", "read_fasttext", "fasttext_line", "glued_label_line",
           "refuse_glued_label", "refuse_quoted_tsv", "refuse_swapped_columns", "refuse_json_line",
           "warn_tab_heads",
           "warn_joined_labels",
           "warn_unlabelled_mark", "up_to_first_text", "refuse_token_lines"]

#: the prefix of a fastText label word
FASTTEXT_PREFIX = "__label__"

#: CSV header names (case-insensitive) taken as the label column and the text column
LABEL_NAMES = ("label", "class", "category", "target", "sentiment", "stars", "y")
TEXT_NAMES = ("text", "document", "content", "review", "body", "sentence", "message")
#: TSV header names (case-insensitive) of a column of document ids (GLUE's test files:
#: ``index<TAB>sentence``)
ID_NAMES = ("index", "id", "idx", "guid", "qid")

#: names (lower-cased) of folders of documents without a label beside the class folders
UNLABELLED_FOLDERS = ("unsup", "unlabeled", "unlabelled")

#: names (lower-cased) of the folders of a corpus's splits, alone or after '-' or '_'
SPLIT_NAMES = ("train", "test", "dev", "valid", "val", "validation", "training", "testing",
               "eval", "heldout")

#: TREC question classification: ``DESC:manner How did serfdom develop ?`` (its six coarse
#: classes; a line of prose such as ``NOTE:this is ...`` is not one)
_TREC = re.compile(r"(?:ABBR|DESC|ENTY|HUM|LOC|NUM):[a-z]+ \S")
#: a labelled tree of the Stanford Sentiment Treebank: ``(3 (2 It) (4 ...``
_TREE = re.compile(r"\s*\(\d \(\d ")


#: a whole number written as a decimal: ``1.0``, ``-1.``, ``3.00``
_WHOLE_DECIMAL = re.compile(r"([+-]?[0-9]+)\.0*")


def label_name(value):
    """The class a label read from a file stands for, as a string (``None`` stays ``None``):
    a boolean (JSON's ``true``) and the texts ``true``/``false`` in any case (pandas writes
    ``True``) are ``"true"``/``"false"``; a whole number written as a decimal, text or JSON
    (``1.0``: pandas' ``to_csv`` of class numbers beside a NaN) is the number's digits
    (``"1"``); any other number is its ``repr`` (``0.5``) and any other text is as given.
    Every reader's labels go through it (:func:`topics._text_io.read_documents`), so ``1.0``
    in a training file and ``1`` in a test file are one class."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value)
    if text.lower() in ("true", "false"):
        return text.lower()
    whole = _WHOLE_DECIMAL.fullmatch(text)
    return str(int(whole.group(1))) if whole else text


def decimals_hint(clash):
    """Why two decimals of one value (``0.5`` and ``0.50``, a pair that
    :func:`structpred.label_clash` finds) are refused, not read as one class as ``1.0`` and
    ``1`` are: only a whole number written as a decimal is the number (:func:`label_name`);
    other decimals are names as written, and ``3.1`` and ``3.10`` may be two versions, which
    one class would merge in silence.  ``""`` for any other pair."""
    try:
        values = [float(c) for c in clash or ()]
    except ValueError:
        return ""
    if not values or not all(map(math.isfinite, values)) or all(v.is_integer() for v in values):
        return ""
    return " (a decimal that is not a whole number is a class as written: 3.1 and 3.10 may " \
           "be two versions)"


#: how a missing value of a column of class numbers is written as text: pandas'
#: ``astype(str)`` of NaN (``nan``), of ``None`` and of a nullable integer's ``<NA>``, SQL's
#: ``NULL``, R's ``NA``
MISSING_VALUES = ("nan", "none", "null", "<na>", "na", "n/a")


def refuse_missing_numbers(docs):
    """Refuse a label ``nan`` (or another of :data:`MISSING_VALUES`, any case) beside labels
    that are all numbers: a column of class numbers with missing values, written as text
    (``df.label.astype(str).to_csv()``), whose documents without a label were trained as a
    class ``nan`` without a word."""
    missing = next((i for i, lab in enumerate(docs.labels)
                    if lab is not None and lab.lower() in MISSING_VALUES), None)
    if missing is None:
        return
    others = {lab for lab in docs.labels if lab is not None and lab.lower() not in MISSING_VALUES}
    try:
        numbers = bool(others) and all(math.isfinite(float(lab)) for lab in others)
    except ValueError:
        return
    if numbers:
        raise FormatError(docs.sources[missing], None,
                          f"the label {docs.labels[missing]!r} beside class numbers "
                          f"({', '.join(sorted(others)[:3])}{', ...' if len(others) > 3 else ''})"
                          ": a missing value written as text (pandas' astype(str) of NaN)? "
                          "leave such documents out, or give them a class")


def refuse_boolean_numbers(docs):
    """Refuse labels ``true``/``false`` beside ``0``/``1``: one file of two exports (a JSON
    boolean here, a class number there) whose classes are most likely the same (Python's
    ``True == 1``), read as four classes."""
    boolean = next((i for i, lab in enumerate(docs.labels) if lab in ("true", "false")), None)
    number = next((i for i, lab in enumerate(docs.labels) if lab in ("0", "1")), None)
    if boolean is not None and number is not None:   # named where the second kind comes
        raise FormatError(docs.sources[max(boolean, number)], None,
                          f"the label {docs.labels[boolean]!r} (a boolean) beside the label "
                          f"{docs.labels[number]!r}: one class or two? write every label as "
                          "true/false, or every label as 0/1")


def check_label(label, name, lineno):
    """Refuse a label holding a line break, tab or other control character: ``predict``
    writes one label per line, and ``"a\\nb"`` came out as two lines (one document more);
    and a label of white space and invisible characters only (a class folder named ``' '``,
    a zero-width space): a class written as a blank line."""
    bad = next((c for c in label or "" if c < " " or c in "\x7f\x85\u2028\u2029"), None)
    if bad is not None:
        raise FormatError(name, lineno, f"the label {label[:40]!r} holds the control "
                                        f"character {bad!r}: labels are written one per line")
    if label and all(c.isspace() or unicodedata.category(c) == "Cf" or "\ufe00" <= c <= "\ufe0f"
                     for c in label):
        # a class folder ' ' (or a label of a zero-width space): predict wrote blank lines
        raise FormatError(name, lineno, f"the label {label[:40]!r} has no visible character: "
                                        "a class needs a name (leave the label out, or name "
                                        "the class)")


def check_text(text, name, lineno, where):
    """Refuse a document whose text is empty or blank, as in CSV files: it has no word to
    learn from or to classify (``predict`` gave it the most frequent class, and training
    counted it in its class)."""
    if not text.strip():
        raise FormatError(name, lineno, f"empty text{' ' + where if where else ''}: every "
                          "document needs words (leave the "
                          f"{'line' if lineno else 'file'} out)")


def warn_joined_labels(docs):
    """One warning when labels hold a comma, semicolon or bar between words (``a,b``, as a
    multi-label TSV file writes several labels): each such label is one class of its own,
    as multi-label classification is not supported (it was trained so without a word)."""
    joined = sorted(lab for lab in set(docs.labels)
                    if lab and re.fullmatch(r"[^,;|]*\w[^,;|]*(?:[,;|][^,;|]*\w[^,;|]*)+", lab))
    if not joined:
        return
    first = next(i for i, lab in enumerate(docs.labels) if lab in joined)
    more = f" (and {counted(len(joined) - 1, 'other label')} so)" if len(joined) > 1 else ""
    warnings.warn(f"{docs.sources[first]}: the label {joined[0][:40]!r}{more} holds several "
                  f"names: multi-label classification is not supported, so each such label is "
                  f"a class of its own")


def warn_unlabelled_mark(docs):
    """One warning when the labels are whole numbers from 0 and ``-1``: HuggingFace's
    datasets give ``-1`` to a document without a label (IMDB's ``unsupervised`` split, the
    test splits of GLUE), and such documents were a class ``-1`` without a word."""
    labels = set(docs.labels)
    if "-1" not in labels or "0" not in labels or not all(
            lab is not None and lab.isdecimal() for lab in labels - {"-1"}):
        return
    n = docs.labels.count("-1")
    warnings.warn(f"{docs.sources[docs.labels.index('-1')]}: {counted(n, 'document')} "
                  f"labelled -1, which HuggingFace's datasets give a document without a label "
                  f"(an unlabelled or test split?), beside labels from 0: they are read as a "
                  f"class '-1'; leave them out if they have no label")


def refuse_swapped_columns(name, docs):
    """Refuse a TSV or CSV file read as ``label, text`` whose every text is a number, or one
    word of a few (``pos``, ``neg``: half as many kinds as texts, four texts at least), and
    whose labels are mostly sentences: the columns are the other way round (``great
    film<TAB>1`` or ``great film,pos`` without a header; ``predict`` classified the digits or
    the class names, and training had every sentence a class of its own)."""
    texts = [t.strip() for t in docs.texts]
    if all(re.fullmatch(r"[-+]?\d+(?:\.\d+)?", t) for t in texts):
        what = "a number"
    elif len(texts) >= 4 and 2 * len(set(texts)) <= len(texts) and all(
            len(t.split()) == 1 for t in texts):
        what = "one word of a few"
    else:
        return
    labels = [lab for lab in docs.labels if lab is not None]
    worded = sum(sum(any(c.isalpha() for c in w) for w in lab.split()) > 1 for lab in labels)
    if len(docs) >= 2 and labels and 2 * worded >= len(docs):
        raise FormatError(name, int(docs.sources[0].rpartition(":")[2]), f"every text is "
                          f"{what} ({texts[0]!r} here) and the labels are "
                          "sentences: are the columns the other way round? (the label comes "
                          "first, or a header names the columns)")


# ----------------------------------------------------------------------- fastText

def fasttext_line(line):
    """Whether ``line`` starts with a fastText label word (``__label__pos text``)."""
    return line.lstrip().startswith(FASTTEXT_PREFIX)


def glued_label_line(line):
    """Whether ``line`` holds a label glued to its text: TREC question classification
    (``DESC:manner How ...``: the coarse and fine labels glued by a colon, then the question
    after a space) or a labelled tree of the Stanford Sentiment Treebank (``(3 (2 It) ...``)."""
    return "\t" not in line and (_TREC.match(line) or _TREE.match(line)) is not None


def read_fasttext(lines, name, need, docs):
    """Read fastText lines ``(number, line)`` into ``docs`` (see the module's notes): lines
    without a label are texts, checked as a ``*.txt`` file's are (JSON lines refused, lines
    ``word<TAB>text`` one warning)."""
    for lineno, line in lines:
        if not line.strip():
            continue
        words = line.split()
        labels = []
        while words and words[0].startswith(FASTTEXT_PREFIX):
            labels.append(words.pop(0)[len(FASTTEXT_PREFIX):])
        if "" in labels:
            raise FormatError(name, lineno, f"an empty label ({FASTTEXT_PREFIX!r} alone): "
                                            f"expected '{FASTTEXT_PREFIX}LABEL text'")
        if len(set(labels)) > 1:
            raise FormatError(name, lineno, f"several labels ({', '.join(labels[:5])}): "
                                            "multi-label classification is not supported; "
                                            "give one label a line")
        inside = next((w for w in words if w.startswith(FASTTEXT_PREFIX)), None)
        if inside is not None:
            raise FormatError(name, lineno, f"the word {inside[:40]!r} inside the text: "
                                            "fastText reads it as a label; labels come first")
        if not labels and need:
            raise FormatError(name, lineno, f"no label: expected '{FASTTEXT_PREFIX}LABEL "
                                            "text' (fastText lines)")
        if not docs.texts and not labels:
            refuse_json_line(name, lineno, line)
        text = re.sub(r"^\s*(?:__label__\S*(?:\s+|$))*", "", line) if labels else line
        check_label(labels[0] if labels else None, name, lineno)
        check_text(text, name, lineno, "after the label" if labels else "")
        docs.texts.append(text)
        docs.labels.append(labels[0] if labels else None)
        docs.sources.append(f"{name}:{lineno}")
    warn_tab_heads(name, docs, "fastText lines without a label are texts")


def refuse_quoted_tsv(name, lineno, line):
    """Refuse a first TSV line whose every field, two or more, is in double quotes (R's
    ``write.table(sep="\\t")``, a ``csv`` writer of tabs quoting all): TSV keeps quotes as
    written, so the header ``"label"<TAB>"text"`` was a document of the class ``"label"``
    and every class was named with its quotes."""
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) > 1 and all(len(f) > 1 and f[0] == f[-1] == '"' for f in fields):
        raise FormatError(name, lineno, f"every field in double quotes ({fields[0][:30]}, ...): "
                                        "TSV keeps quotes as written (they would be part of "
                                        "the labels and texts); write the file without quotes "
                                        "(R: write.table(..., quote=FALSE)) or as CSV")


def refuse_glued_label(name, lineno, line):
    """Lines of TREC question classification or labelled trees (:func:`glued_label_line`)."""
    if _TREE.match(line):
        raise FormatError(name, lineno, "labelled trees ('(3 (2 It) ...)', the Stanford "
                                        "Sentiment Treebank's PTB format), not "
                                        "'label<TAB>text': write each tree's root label, a tab "
                                        "and its leaves' words")
    raise FormatError(name, lineno, "lines 'LABEL:fine question' (TREC question "
                                    "classification?), the label glued to the text: make the "
                                    "first space of each line a tab (sed 's/ /\\t/' FILE > "
                                    "FILE.tsv) and read it as TSV")


# ----------------------------------------------------------------------- plain text

def json_object(line):
    """Whether ``line`` is one JSON object (a JSON-lines record read as TSV or text)."""
    try:
        return line.lstrip().startswith("{") and isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _header_of(line):
    """The separator (``,``, a tab or ``;``) of ``line`` when it is a header of columns:
    two fields or more, each one word, two of them column names (:data:`LABEL_NAMES`,
    :data:`TEXT_NAMES`, :data:`ID_NAMES`) and one a text's (``text,label``,
    ``label<TAB>text``, ``id;review;stars``); ``""`` for a text column's name alone
    (``text``); else ``None``."""
    names = LABEL_NAMES + TEXT_NAMES + ID_NAMES
    for sep in (",", "\t", ";"):
        fields = [f.strip().strip('"').lower() for f in line.split(sep)]
        if (len(fields) > 1 and all(re.fullmatch(r"\w+", f) for f in fields)
                and sum(f in names for f in fields) > 1 and set(fields) & set(TEXT_NAMES)):
            return sep
    return "" if line.strip().strip('"').lower() in TEXT_NAMES else None


#: the non-blank lines after a first line that names the text column alone (``text``) that
#: :func:`refuse_text_header` reads for the file's layout
HEADER_EVIDENCE_LINES = 20

#: a CSV field in quotes holding a comma or a doubled quote: ``"stocks fell, ""sharply"""``
_QUOTED_FIELD = re.compile(r'"(?:[^"]|"")*(?:,|"")(?:[^"]|"")*"')


def _layout_after(lines):
    """The layout of the texts ``lines`` (non-blank) that a first line of one word lacks, by
    the format that reads it: ``"fasttext"`` when one starts with a fastText label,
    ``"tsv"`` when each starts with one word and a tab (``label<TAB>text``), ``"csv"`` when
    one is a CSV field in quotes (pandas' ``to_csv`` of one column quotes a text holding a
    comma or a quote), else ``None``: texts, as the first line is."""
    if any(fasttext_line(line) for line in lines):
        return "fasttext"
    if lines and all(re.match(r"\s*\S+\t", line) for line in lines):
        return "tsv"
    return "csv" if any(_QUOTED_FIELD.fullmatch(line.strip()) for line in lines) else None


def refuse_text_header(lines, name):
    """The lines ``(number, line)`` of a ``*.txt`` file or fastText lines, read as texts,
    refused at the first non-blank one when it is a header of columns (:func:`_header_of`):
    ``text,label`` was read as a document, so ``predict`` wrote one label more than the
    file's texts and every later label one line off.  Refused, not read as CSV or TSV: the
    other lines' commas, quotes and tabs would be read anew, unasked.  A first line of one
    word naming the text column (``text``, ``review``) is a header only when the next
    :data:`HEADER_EVIDENCE_LINES` texts have a layout it lacks (:func:`_layout_after`:
    labels, fastText's or before a tab, or CSV's quotes); before texts as plain as it, it
    is a document (a review of one word was refused)."""
    lines = iter(lines)
    for lineno, line in lines:
        if not line.strip():
            yield lineno, line
            continue
        sep, after = _header_of(line), []
        if sep == "":
            after = list(itertools.islice((item for item in lines if item[1].strip()),
                                          HEADER_EVIDENCE_LINES))
            sep = {"tsv": "", "csv": "csv", "fasttext": "fasttext"}.get(
                _layout_after([text for _, text in after]))
        if sep is not None:
            hint = {"": "give --format tsv (which skips a first line that names the text "
                        "column), or leave the line out",
                    "csv": "give --format csv (a header above one column), or leave the "
                           "line out",
                    "fasttext": "leave the line out (fastText lines have no header)"}.get(
                sep, f"give --format {'tsv' if sep == chr(9) else 'csv'}, or leave the "
                     "line out")
            what = "the text column" if sep in ("", "csv", "fasttext") else "columns"
            raise FormatError(name, lineno, f"the first line {line.strip()[:60]!r} is a "
                                            f"header naming {what}, not a text (this "
                                            f"format is texts, one a line): {hint}")
        yield lineno, line
        yield from after
        break
    yield from lines


def up_to_first_text(source):
    """``(head, rest)``: the ``(number, text)`` lines of ``source`` up to and including the
    first that is not blank (its format is judged on it), and the iterator of the rest."""
    head = []
    for item in source:
        head.append(item)
        if item[1].strip():
            break
    return head, source


def read_text_lines(lines, name, need, docs):
    """Read lines ``(number, line)`` of plain text (a ``*.txt`` file) into ``docs``: each
    non-blank line one document without a label, whatever tabs it holds (it was refused as
    "cannot tell the format").  With labels required, refused at the first line: a tab
    there is most likely ``label<TAB>text``, which ``--format tsv`` reads.  JSON lines are
    refused (each record would be a text), and lines that each start with a word of a few
    and a tab are one warning: labels, read as words of the texts?"""
    for lineno, line in lines:
        if not line.strip():
            continue
        if not docs.texts:
            refuse_json_line(name, lineno, line)
        if need:
            raise FormatError(name, lineno, "a *.txt file is read as texts without labels, one "
                                            "a line, and training and evaluation need labels: "
                                            "give --format tsv for lines 'label<TAB>text' (or "
                                            "name the file *.tsv)")
        docs.texts.append(line)
        docs.labels.append(None)
        docs.sources.append(f"{name}:{lineno}")
    warn_tab_heads(name, docs, "a *.txt file is texts without labels")


def refuse_json_line(name, lineno, line):
    """Refuse the first line of texts (a ``*.txt`` file, fastText lines) that is a JSON
    object: each record of JSON lines would be a text, its field names and label words."""
    if json_object(line):
        raise FormatError(name, lineno, "a JSON object: the file holds JSON lines (name it "
                                        "*.jsonl or give --format jsonl)")


def warn_tab_heads(name, docs, why):
    """One warning when every text of ``docs`` (none labelled) starts with one of a few
    words and a tab: ``label<TAB>text`` lines read as texts, the label a word of each."""
    heads = [t.partition("\t")[0].strip() if "\t" in t else " " for t in docs.texts]
    if len(heads) > 2 and all(len(h.split()) == 1 for h in heads) and \
            2 * len(set(heads)) <= len(heads) and not any(docs.labels):
        warnings.warn(f"{name}: every line starts with a word and a tab ({heads[0][:40]!r}, "
                      f"...), read as a word of its text ({why}): if it is a label, give "
                      f"--format tsv")


# ----------------------------------------------------------------------- folders

def _visible(p):
    return not p.name.startswith(".")


def _refuse_odd_entry(p):
    """Refuse an entry of a document folder that is neither a file nor a folder: a link to
    nothing or a loop of links (skipped silently before: a document lost), a FIFO, a socket
    or a device (a FIFO was skipped too; reading one would wait for a writer)."""
    reason = odd_entry_reason(p, ", not a file: a folder of documents holds files")
    if reason is not None:
        raise FormatError(str(p), None, reason)


def _names(paths):
    shown = ", ".join(p.name for p in paths[:3])
    return shown + (", ..." if len(paths) > 3 else "")


def _split_name(name):
    """Whether a folder's name is that of a corpus's split (``train``, ``20news-bydate-test``)."""
    low = name.lower()
    return low in SPLIT_NAMES or any(low.endswith(sep + s) for s in SPLIT_NAMES
                                     for sep in "-_")


def _refuse_split_folders(root, subs):
    """A class folder named like a split that holds folders of its own: ``--data aclImdb``
    (``train/pos``, ``test/neg``, ...) trained the classes ``train`` and ``test``."""
    for sub in subs:
        inner = sorted(p for p in sub.iterdir() if _visible(p) and p.is_dir())
        if inner and _split_name(sub.name):
            raise FormatError(str(sub), None, f"a class folder named like a split of the corpus "
                                              f"holds folders of its own ({_names(inner)}): "
                                              f"give --data {sub}")


def _files_of(sub):
    found = [f for f in sub.rglob("*")
             if all(_visible(q) for q in f.relative_to(sub).parents if q.name) and _visible(f)]
    for f in found:
        _refuse_odd_entry(f)
    return sorted((f for f in found if f.is_file()), key=lambda f: str(f.relative_to(sub)))


def read_folder(root, need, docs, max_bytes):
    """Read a folder of documents into ``docs`` (see the module's notes and
    :mod:`topics._text_io`)."""
    entries = sorted((p for p in root.iterdir() if _visible(p)), key=lambda p: p.name)
    for p in entries:
        _refuse_odd_entry(p)
    loose = [p for p in entries if p.is_file()]
    subs = [p for p in entries if p.is_dir()]
    _refuse_split_folders(root, subs)
    if loose and subs:
        warnings.warn(f"{root}: {counted(len(loose), 'file')} beside the class folders "
                      f"({_names(loose)}) {'is' if len(loose) == 1 else 'are'} left out: a "
                      "document lies in the folder of its class")
    elif loose and need:
        raise FormatError(str(loose[0]), None, f"not in a class folder: with labels, {root} must "
                                               f"hold one sub-folder per class")
    else:
        for f in loose:
            _add_file(f, None, docs, max_bytes)
    for sub in subs:
        files = _files_of(sub)
        unlabelled = sub.name.lower() in UNLABELLED_FOLDERS
        if unlabelled and need:
            warnings.warn(f"{sub}: {counted(len(files), 'document')} without a label (a folder "
                          f"named {sub.name!r}) left out: training and evaluation need labels")
            continue
        if not files and need:
            # an empty class folder left its class out of the model without a word
            warnings.warn(f"{sub}: a class folder without documents: the class "
                          f"{sub.name!r} is left out")
        for f in files:
            check_label(sub.name, str(root), None)
            _add_file(f, None if unlabelled else sub.name, docs, max_bytes)


def _add_file(f, label, docs, max_bytes):
    try:
        with open(f, "rb") as fh:
            raw = fh.read(max_bytes + 1)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(f, "rb") as fh:
                raw = fh.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise FormatError(str(f), None, f"cannot read ({exc})") from None
    if len(raw) > max_bytes:
        raise FormatError(str(f), None, f"a document longer than {max_bytes:,} bytes, "
                          "the most a document may hold: is it a text document?")
    kind = binary_kind(raw[:8192])
    if kind is not None:
        raise FormatError(str(f), None, f"not a text file: {kind}")
    given = given_encoding()
    if given and (why := utf8_misread_reason(raw, given)):
        raise FormatError(str(f), None, why)
    try:
        text = raw.decode(given or "utf-8")
    except UnicodeDecodeError as exc:
        if given or cjk_encoding_hint(raw):   # --encoding, or Chinese: no other guess
            raise FormatError(str(f), None, bad_bytes_reason(raw, exc, given or "utf-8",
                                                             "offset")) from None
        text = raw.decode("latin-1")
    else:
        if not given and (why := implausible_utf8_reason(raw)):
            raise FormatError(str(f), None, why)   # GB18030 valid UTF-8 by chance
    check_text(text, str(f), None, "")
    docs.texts.append(text)
    docs.labels.append(label)
    docs.sources.append(str(f))


#: the lines a file is sampled on for :func:`refuse_token_lines`
TOKEN_LINES_SAMPLE = 5000
#: the most distinct tags a column of a token-per-line file holds (POS tags, chunk and
#: entity tags: tens)
MAX_TAGS = 100


#: a tag of a token-per-line file: ASCII capitals, digits and punctuation, not a number
#: (``NN``, ``B-NP``, ``PRP$``, ``.``, ``-LRB-``, ``''``)
_TAG = re.compile(r"(?![.,]*[0-9][0-9.,]*$)[A-Z0-9$.,:;`'()#|_+*=/-]{1,12}")
#: a chunk or entity tag (IOB, IOBES, BILOU): ``O``, ``B-NP``, ``I-PER``
_CHUNK_TAG = re.compile(r"O|[BIESLU]-[^a-z\s]+")


def refuse_token_lines(lines, name):
    """The lines ``(number, line)`` of texts, refused at the first when they are a
    token-per-line file (CoNLL style: ``word TAG`` lines, a blank line after each sentence,
    as ``structpred tag`` reads): each line was read as a document of one word and its tag.
    The first :data:`TOKEN_LINES_SAMPLE` lines are judged as they are read (a file, standard
    input or a FIFO alike: nothing is read twice), then every line is passed on.  Tokens
    (:func:`_token_rows`), or else, in a file too small or without the blank lines to judge
    so (a sentence of a few tokens), lines that are all of one tag layout
    (:func:`_tag_rows`)."""
    lines, seen = iter(lines), []
    rows, runs, prev, first, other = [], 0, None, None, 0
    for lineno, line in lines:
        seen.append((lineno, line))
        fields = line.split()
        if not fields:
            prev = None
        else:
            other += not 2 <= len(fields) <= 4
            runs += prev is None
            prev = lineno
            first = first or (lineno, line)
            rows.append(fields)
        if len(seen) >= TOKEN_LINES_SAMPLE or other > 10 + len(rows) // 10:   # texts
            break
    texts = other > 10 + len(rows) // 10
    if not texts and (not other and _tag_rows(rows) or _token_rows(rows, runs)):
        raise FormatError(name, first[0], f"lines of a word and its tag(s)"
                                          f"{', blank lines between sentences' if runs > 1 else ''}"
                                          f" ({first[1].strip()[:40]!r}: a token-per-line, "
                                          "CoNLL-style file), not documents: each line would "
                                          "be read as a document; such files are for "
                                          "structpred tag (tag train, predict or eval --data "
                                          "FILE)")
    yield from seen
    yield from lines


def _token_rows(rows, runs):
    """Whether the fields of the non-blank lines sampled, ``rows``, cut by blank lines into
    ``runs``, are tokens: at least 9 in 10 of the lines hold the same number of fields, 2 to
    4, split at white space; their last field takes at most :data:`MAX_TAGS` values, at most
    half as many as the lines and fewer than the first field's, and 9 in 10 of them are
    written without lower-case letters, as tags are (``NN``, ``B-NP``, ``O``: short lines
    of words from a few, ``the film was good``, are texts; a lower-case tag set such as
    Brown's is not told apart, and read as texts); and the runs are of two lines or more on
    average (sentences, not one text a line), six lines at least."""
    n = len(rows)
    if n < 6 or runs < 2 or n < 2 * runs:
        return False
    width = collections.Counter(len(r) for r in rows).most_common(1)[0][0]
    rows = [r for r in rows if len(r) == width]
    tags = {r[-1] for r in rows}
    cased = sum(not any(c.islower() for c in r[-1]) for r in rows)   # NN, B-NP, O, PRP$
    return (2 <= width <= 4 and len(rows) >= 0.9 * n and len(tags) <= MAX_TAGS
            and 2 * len(tags) <= len(rows) and len(tags) < len({r[0] for r in rows})
            and cased >= 0.9 * len(rows))


def _tag_rows(rows):
    """Whether the fields of every non-blank line, ``rows`` (two lines or more), are a word
    and its tag(s) by their shape alone: as many fields in each, the first a word with a
    lower-case letter in some line (not a text in capitals), and either two fields, the
    second a tag in every line (:data:`_TAG`: ``NN``, ``.``; a number or a word with a
    lower-case letter is a text's, as in ``great film,pos`` or ``pos<TAB>great film``), or
    three or four, each after the first a tag and the last a chunk or entity tag
    (:data:`_CHUNK_TAG`: ``B-NP``, ``O``)."""
    width = len(rows[0]) if rows else 0
    if len(rows) < 2 or any(len(r) != width for r in rows) or not any(
            any(c.islower() for c in r[0]) for r in rows):
        return False
    if not all(_TAG.fullmatch(t) for r in rows for t in r[1:]):
        return False
    return width == 2 or all(_CHUNK_TAG.fullmatch(r[-1]) for r in rows)
