"""Scores: chunk F1 under the rules of the CoNLL-2000 ``conlleval`` script for IOB
labels, token accuracy otherwise.

``conlleval`` rules: a tag without a type (``B``, ``I``: one kind of chunk) has the type
``""``; a chunk starts at ``B-X``, at ``I-X`` after a token of another type
or after ``O`` (so a stray ``I-`` starts a chunk), and (IOBES) at ``S-``/``E-`` as usual;
a chunk ends where the next one starts or at ``O``; ``[`` and ``]`` tags are absent here.
BILOU's ``L-``/``U-`` are read as ``E-``/``S-``, BMES's ``M-`` (Chinese corpora) as ``I-``,
and a tag whose prefix is written last (``PER-B``, as seqeval's ``suffix=True`` reads it)
as ``B-PER``; ``B_PER`` is ``B-PER``.
A predicted chunk is correct when its start, end and type equal a gold chunk's.
"""

from __future__ import annotations

import collections

import numpy as np

__all__ = ["chunks", "is_iob", "label_kind_error", "scheme_mix", "chunk_scheme", "iob_variant",
           "iob_starts", "iob_mix_message", "tag_form_message", "chunk_spelling",
           "IOBMixWarning", "warn_iob_mix", "check_scheme",
           "check_valid_scheme", "sentence_texts",
           "chunk_counts", "f1_from_counts", "token_accuracy", "evaluate", "sentence_stats",
           "score_from_stats"]


#: BILOU's L(ast) and U(nit) are IOBES's E(nd) and S(ingle); BMES's M(iddle), written by
#: Chinese NER and word segmentation corpora, is IOBES's I(nside)
_BILOU = {"L": "E", "U": "S", "M": "I"}

#: the first letters of chunk tags (IOB, IOBES, BILOU, BMES)
_PREFIXES = "BIESLUM"


def _is_chunk_tag(tag, typed=False):
    """``B-X``, ``I_X``, ... (IOB, IOBES, BILOU, BMES), or without ``typed`` also ``B``,
    ``I``, ..."""
    return ((len(tag) > 2 and tag[0] in _PREFIXES and tag[1] in "-_")
            or (not typed and len(tag) == 1 and tag in _PREFIXES))


def _prefix_first(tag):
    """``PER-B`` (``PER_B``), a chunk tag whose prefix letter is written last (seqeval's
    ``suffix=True``), as ``B-PER`` (``B_PER``); other tags, ``B-PER`` and ``B-I`` among
    them, as they are."""
    if (len(tag) > 2 and tag[-2] in "-_" and tag[-1] in _PREFIXES
            and not _is_chunk_tag(tag, typed=True)):
        return tag[-1] + tag[-2] + tag[:-2]
    return tag


def _split(tag):
    if len(tag) == 1 and tag in _PREFIXES:   # untyped: conlleval's type ""
        return _BILOU.get(tag, tag), ""
    tag = _prefix_first(tag)
    if tag == "O" or len(tag) < 2 or tag[1] not in "-_":
        return "O", ""
    return _BILOU.get(tag[0], tag[0]), tag[2:]


def _end_of_chunk(prev_tag, tag, prev_type, type_):
    return ((prev_tag == "B" and tag in "BSO") or (prev_tag == "I" and tag in "BSO")
            or (prev_tag in "BI" and tag in "IE" and prev_type != type_)
            or prev_tag in "ES")


def _start_of_chunk(prev_tag, tag, prev_type, type_):
    return (tag in "BS" or (prev_tag in "ESO" and tag in "IE")
            or (tag in "IE" and prev_tag in "BI" and prev_type != type_))


def chunks(tags):
    """Set of ``(start, end, type)`` chunks of a tag sequence (conlleval rules)."""
    out = set()
    prev_tag, prev_type, start = "O", "", None
    for i, t in enumerate(list(tags) + ["O"]):
        tag, type_ = _split(t)
        if start is not None and _end_of_chunk(prev_tag, tag, prev_type, type_):
            out.add((start, i - 1, prev_type))
            start = None
        if _start_of_chunk(prev_tag, tag, prev_type, type_):
            start = i
        prev_tag, prev_type = tag, type_
    return out


def is_iob(label_set):
    """Whether labels look like IOB/IOBES/BILOU chunk tags (every label is O, X-TYPE,
    TYPE-X (the prefix last, as seqeval's ``suffix=True`` reads it) or, for one kind of
    chunk without a type, X; X one of B, I, E, S, L, U, M: BMES's M- is I-)."""
    labels = set(label_set)
    return bool(labels) and all(t == "O" or _is_chunk_tag(_prefix_first(t)) for t in labels) \
        and any(t != "O" for t in labels)


def label_kind_error(label_set):
    """``(label, message)`` when some labels are typed chunk tags (``B-PER``) and
    ``label`` is neither one nor ``O`` (``NOUN``; ``0``, a zero, for ``O``), else ``None``:
    chunk F1 cannot score such a mixture, and token accuracy, chosen before, scored the
    chunks token by token without a word."""
    labels = sorted(set(label_set))
    typed = [t for t in labels if _is_chunk_tag(t, typed=True)]
    # a label that is another one spelled otherwise (i-np beside I-NP) is left to the
    # spelling check, which names that cause
    folded = collections.Counter(t.casefold() for t in labels)
    odd = [t for t in labels if t != "O" and not _is_chunk_tag(_prefix_first(t))
           and folded[t.casefold()] == 1]
    if not (typed and odd):
        return None
    if odd[0].upper() == "O" or _is_chunk_tag(_prefix_first(odd[0].upper())):
        return odd[0], (f"the label {odd[0][:30]!r} and the chunk tags {', '.join(typed[:3])} "
                        "differ only in case: a chunk tag spelled two ways is scored as two "
                        "labels; write every tag one way")
    hint = ("is '0', a zero, meant as the letter O?" if odd[0] == "0" else
            "a chunking or NER file holds chunk tags and O only; is the label column the "
            "last one?")
    return odd[0], (f"the label {odd[0][:30]!r} is neither O nor a chunk tag, but "
                    f"{', '.join(typed[:3])} are chunk tags (B-TYPE, I-TYPE, ...): chunk F1 "
                    f"cannot score such a mixture ({hint})")


def _iob_chunk(sentence):
    """Index of the first token of ``sentence`` that ends a chunk as IOB writes it and
    IOBES (BILOU) never does: a chunk of one token as ``B-X``, a longer one ending at
    ``I-X``; else ``None``."""
    tags = [_split(t) for t in sentence] + [("O", "")]
    for i, (tag, type_) in enumerate(tags[:-1]):
        nxt, nxt_type = tags[i + 1]
        if tag in "BI" and not (nxt in "IE" and nxt_type == type_):
            return i
    return None


def _ends_chunk(tag):
    """Whether ``tag`` is IOBES's (BILOU's) end of a chunk or chunk of one token."""
    return tag != "O" and _split(tag)[0] in "ES"


def _starts_marked(labels):
    """Whether some of ``labels`` marks a chunk's start (``B-``, ``S-``, ``U-``): IOE1 and
    IOE2 tags mark none (``I-``, ``E-``)."""
    return bool({_split(t)[0] for t in labels} & {"B", "S"})


def scheme_mix(label_lists):
    """``(sentence, token, message)`` when chunk tags mix IOBES (or BILOU), which writes
    chunk ends (``E-``/``L-``) and chunks of one token (``S-``/``U-``), with IOB, which
    writes neither (a chunk of one token ``B-X``, a longer one ending at ``I-X``), else
    ``None``: a tagger learns two labels for one chunk shape, and predicts either.  IOE1
    and IOE2 tags (``I-``, ``E-``, no ``B-`` or ``S-``) are one scheme: IOE1 writes ``E-``
    only before a chunk of the same type."""
    label_lists = list(label_lists)
    labels = {t for s in label_lists for t in s}
    if not is_iob(labels):
        return None
    ends = sorted(filter(_ends_chunk, labels))
    if not ends or not _starts_marked(labels):
        # IOE1 and IOE2 (CoNLL-2000's other representations) mark chunk ends with E- and
        # never a start: IOE1's chunk ending at I-X is its own, no IOB one
        return None
    for k, sentence in enumerate(label_lists):
        i = _iob_chunk(sentence)
        if i is not None:
            return k, i, (f"the label {sentence[i][:30]!r} ends a chunk as IOB writes it, but "
                          f"{', '.join(ends[:3])} are IOBES (BILOU) tags, which write a chunk "
                          "of one token as S- and the end of a longer one as E-: chunk tags "
                          "of two schemes teach the tagger two labels for one chunk; convert "
                          "the file to one scheme")
    return None


def chunk_scheme(label_lists):
    """``"IOBES (BILOU)"`` when some label ends a chunk as those schemes write it (``E-``,
    ``S-``, ``L-``, ``U-``), ``"IOB"`` when some chunk ends as only IOB writes it (a chunk
    of one token as ``B-X``, a longer one ending at ``I-X``), else ``None`` (no chunk)."""
    label_lists = [list(s) for s in label_lists]
    if any(_ends_chunk(t) for s in label_lists for t in s):
        return "IOBES (BILOU)"
    return "IOB" if any(_iob_chunk(s) is not None for s in label_lists) else None


def iob_starts(label_lists):
    """``{"B": (sentence, token), "I": (sentence, token)}``: the first chunk (indices from
    0) that starts at ``B-``, and the first that starts at ``I-``, where IOB1 and IOB2
    differ (at the start of a sentence, after ``O`` or after a chunk of another type: IOB2
    writes ``B-`` there, IOB1 ``I-``); a kind never seen is absent.  ``None`` for IOBES
    (BILOU) tags, which are neither."""
    first = {}
    for k, sentence in enumerate(label_lists):
        prev, prev_type = "O", ""
        for i, t in enumerate(sentence):
            tag, type_ = _split(t)
            if tag in "ES":
                return None
            if (prev == "O" or prev_type != type_) and tag in "BI":
                first.setdefault(tag, (k, i))
            prev, prev_type = tag, type_
    return first


def iob_variant(label_lists):
    """Which IOB the chunk tags write (:func:`iob_starts`): ``"IOB2"`` when some chunk
    starts at ``B-`` where IOB1 writes ``I-``, ``"IOB1"`` when some chunk starts at ``I-``
    there (IOB2 starts every chunk at ``B-``; IOB1 writes ``B-`` only between two adjacent
    chunks of one type); ``None`` when no chunk tells them apart, when both are seen, or
    for IOBES (BILOU) tags."""
    first = iob_starts(label_lists)
    if not first or len(first) == 2:
        return None
    return "IOB2" if "B" in first else "IOB1"


def tag_form_message(label_set):
    """A warning's text when chunk tags write one chunk shape two ways, which chunk F1
    reads alike and the tagger learns as two labels: BILOU's ``L-``/``U-`` beside IOBES's
    ``E-``/``S-``, BMES's ``M-`` beside ``I-``, ``B-PER`` beside ``B_PER``, or the prefix
    first beside last (``B-PER`` and ``PER-I``); else ``None``."""
    labels = sorted(set(label_set))
    if not is_iob(labels):
        return None
    typed = {t: _prefix_first(t) for t in labels if _is_chunk_tag(_prefix_first(t), True)}
    letters = {f[0] for f in typed.values()}
    for ours, theirs in (("LU", "ES"), ("M", "I")):
        if letters & set(ours) and letters & set(theirs):
            one = next(t for t, f in typed.items() if f[0] in ours)
            two = next(t for t, f in typed.items() if f[0] in theirs)
            return (f"the chunk tags write one chunk shape two ways ({one} and {two}: "
                    f"{'BILOU and IOBES' if ours == 'LU' else 'BMES and IOB(ES)'}): chunk F1 "
                    "reads both alike, but the tagger learns two labels for it and token "
                    "accuracy counts them apart; convert the file to one scheme")
    if {f[1] for f in typed.values()} == {"-", "_"}:
        one, two = (next(t for t, f in typed.items() if f[1] == sep) for sep in "-_")
        return (f"the chunk tags join prefix and type two ways ({one} and {two}): chunk F1 "
                "reads both alike, but the tagger learns two labels for each chunk tag and "
                "token accuracy counts them apart; write every tag with one separator")
    last = [t for t, f in typed.items() if f != t]
    if last and len(last) < len(typed):
        first = next(t for t, f in typed.items() if f == t)
        return (f"the chunk tags write the prefix first and last ({first} and {last[0]}): "
                "chunk F1 reads both alike, but the tagger learns two labels for each chunk "
                "tag and token accuracy counts them apart; write every tag one way")
    return None


def chunk_spelling(tag):
    """``B-PER`` for a typed chunk tag however its prefix and type are joined (``B-PER``,
    ``B_PER``, ``PER-B``, ``PER_B``: spellings chunk F1 reads alike), else ``None``."""
    tag = _prefix_first(tag)
    return tag[0] + "-" + tag[2:] if _is_chunk_tag(tag, typed=True) else None


class IOBMixWarning(UserWarning):
    """Chunk tags of IOB1 and IOB2 in one training set (:func:`iob_mix_message`)."""


def iob_mix_message(label_lists):
    """A warning's text when the chunk tags write IOB1 in some places and IOB2 in others
    (two files of the two schemes joined, say): the model then learns both ways of
    starting a chunk, and its token accuracy is read against either; ``None`` otherwise
    (labels that are not chunk tags too).  Chunk F1 (conlleval's rules) reads both alike,
    so this is not refused."""
    label_lists = [list(s) for s in label_lists]
    if not is_iob({t for s in label_lists for t in s}):
        return None
    first = iob_starts(label_lists)
    if not first or len(first) < 2:
        return None
    (kb, ib), (ki, ii) = first["B"], first["I"]
    return (f"the chunk tags mix IOB2 and IOB1: a chunk starts at B- in sentence {kb + 1} "
            f"(token {ib + 1}) and at I- in sentence {ki + 1} (token {ii + 1}), after O or "
            "another type; convert them to one scheme")


def warn_iob_mix(label_lists):
    """An :class:`IOBMixWarning` when the chunk tags mix IOB1 and IOB2 (:func:`iob_mix_message`)."""
    import warnings

    message = iob_mix_message(label_lists)
    if message is not None:
        warnings.warn(message, IOBMixWarning, stacklevel=3)


def check_scheme(label_lists, name=None):
    """Refuse chunk tags of two schemes (:func:`scheme_mix`) with a one-line ``ValueError``
    naming the sentence and token: counted from 1 after the file ``name`` (``tag train``),
    else the list indices from 0 (``SequenceTagger.fit``)."""
    mix = scheme_mix(label_lists)
    if mix is not None:
        k, i, message = mix
        where = f"{name}: sentence {k + 1}, token {i + 1}" if name else f"sentence {k}, token {i}"
        raise ValueError(f"{where}: {message}")


def check_valid_scheme(train, valid, name=None):
    """Refuse validation chunk tags of the other scheme than the training ones' (IOB
    against IOBES or BILOU, :func:`scheme_mix`): every chunk the two write differently
    scored as wrong, and the iteration chosen on that.  Each set alone is checked by
    :func:`check_scheme`; ``name`` is the validation file (``tag train --valid-data``)."""
    train, valid = list(train), list(valid)
    check_scheme(valid, name)
    mix = scheme_mix(train + valid)
    if mix is None:
        return
    k, i, _ = mix
    # the validation token of the other scheme: its first chunk end (E-, S-; the training
    # labels are IOB) or the IOB chunk end that scheme_mix found (they are IOBES)
    end = next(((k, i) for k, s in enumerate(valid) for i, t in enumerate(s) if _ends_chunk(t)),
               None)
    ends = end is not None
    k, i = end if ends else (k - len(train), i)
    where = f"{name}: sentence {k + 1}, token {i + 1}" if name else \
        f"validation sentence {k}, token {i}"
    theirs, ours = ("IOBES (BILOU)", "IOB") if ends else ("IOB", "IOBES (BILOU)")
    raise ValueError(f"{where}: the validation chunk tags are {theirs}, the training ones "
                     f"{ours}: a chunk the two schemes write differently would score as wrong; "
                     "convert the validation labels to the training labels' scheme")


def sentence_texts(X):
    """Each sentence's tokens (every column) as one text: what the tagger keeps digests of
    (:func:`structpred.text_digests`) to find its training sentences in ``tag eval``."""
    return [" ".join(" ".join(tok) if isinstance(tok, (tuple, list)) else str(tok)
                     for tok in sent) for sent in X]


def chunk_counts(gold, pred):
    """``(correct, predicted, gold)`` chunks of one sentence."""
    g, p = chunks(gold), chunks(pred)
    return len(g & p), len(p), len(g)


def f1_from_counts(counts):
    """Chunk F1 (in %) from summed ``(correct, predicted, gold)``."""
    c, p, g = (float(v) for v in np.asarray(counts, dtype=np.float64).reshape(-1, 3).sum(0))
    if c == 0:
        return 0.0
    prec, rec = c / p, c / g
    return 100.0 * 2 * prec * rec / (prec + rec)


def check_aligned(gold, pred):
    """``ValueError`` naming the first sentence whose predicted labels are not as many as
    its gold ones, or a count of sentences that differs (``zip`` cut them silently)."""
    gold, pred = list(gold), list(pred)
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sentences but {len(pred)} predicted ones")
    for i, (g, p) in enumerate(zip(gold, pred)):
        if isinstance(g, str) or isinstance(p, str) or len(g) != len(p):
            raise ValueError(f"sentence {i}: {_count(g)} gold labels but {_count(p)} "
                             "predicted ones (each a list of labels)")
    return gold, pred


def _count(labels):
    return f"a string {labels!r:.30}" if isinstance(labels, str) else len(labels)


def token_accuracy(gold, pred):
    """Share of tokens (in %) whose label is right."""
    return _accuracy(*check_aligned(gold, pred))


def _accuracy(gold, pred):
    """:func:`token_accuracy` of label lists already checked to line up."""
    n = sum(len(s) for s in gold)
    right = sum(a == b for gs, ps in zip(gold, pred) for a, b in zip(gs, ps))
    return 100.0 * right / max(n, 1)


def sentence_stats(gold, pred, iob):
    """Per-sentence sufficient statistics: ``(correct, predicted, gold)`` chunks for IOB
    labels, ``(right tokens, tokens)`` otherwise; an array (n_sentences, 3 or 2)."""
    if iob:
        return np.array([chunk_counts(g, p) for g, p in zip(gold, pred)], dtype=np.int64)
    return np.array([(sum(a == b for a, b in zip(g, p)), len(g)) for g, p in zip(gold, pred)],
                    dtype=np.int64)


def score_from_stats(stats):
    """F1 (3 columns) or accuracy (2 columns), in %, of summed sentence statistics."""
    stats = np.asarray(stats)
    if stats.shape[-1] == 3:
        return f1_from_counts(stats)
    s = stats.reshape(-1, 2).sum(0)
    return 100.0 * s[0] / max(s[1], 1)


def evaluate(gold, pred, iob=None):
    """A dict of scores: token accuracy always; chunk precision, recall and F1 for IOB labels."""
    gold, pred = check_aligned(gold, pred)
    if iob is None:
        iob = is_iob({t for s in gold for t in s})
    out = {"accuracy": _accuracy(gold, pred), "sentences": len(gold),
           "tokens": sum(len(s) for s in gold)}
    if iob:
        c, p, g = (int(v) for v in sentence_stats(gold, pred, True).sum(0))
        out.update(precision=100.0 * c / max(p, 1), recall=100.0 * c / max(g, 1),
                   f1=f1_from_counts((c, p, g)), chunks_gold=int(g), chunks_predicted=int(p),
                   chunks_correct=int(c))
    return out
