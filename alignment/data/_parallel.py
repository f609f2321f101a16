"""Parallel text, read and written: a bitext as two tokenised files of one sentence a line
(:func:`read_parallel`, :func:`write_parallel`) or as fast_align's one file of
``src ||| tgt`` lines (:func:`read_fast_align`, :func:`write_fast_align`).

The readers check every line (markup or JSON refused naming its layout, empty sentences,
different line counts, fast_align's separator) and stop at the first problem with a
:class:`~structpred.io.FormatError` naming the file and line; the writers refuse a side
that would not read back as written.  :mod:`alignment.data.formats` re-exports these
names with the links' formats.
"""

from __future__ import annotations

import os
import re

from structpred import FormatError, check_ordered, open_output, read_lines
from structpred.io import blank_tail_hint, counted, split_tokens, word_text

from .layouts import check_layout_line, no_bars_hint

def _name(path):
    return path if isinstance(path, str) else os.fspath(path)


def _tokens(path, lineno, text, side=None, allow_empty=False):
    check_layout_line(text, _name(path), lineno)
    toks = split_tokens(word_text(text, _name(path), lineno), _name(path), lineno)
    if not toks and not allow_empty:
        what = "empty sentence" if side is None else f"empty {side} sentence"
        raise FormatError(_name(path), lineno, what)
    return toks


def read_parallel(src_path, tgt_path, allow_empty=False):
    """Read a sentence-aligned corpus from two tokenised files.

    Parameters
    ----------
    src_path, tgt_path : str or path-like
        UTF-8 text, plain or gzipped, one whitespace-tokenised sentence per line.

    Returns
    -------
    list of (list of str, list of str)

    Raises
    ------
    FormatError
        Empty sentence (unless ``allow_empty``: an unlabeled bitext, whose pairs with an
        empty side are left out by the caller), invalid UTF-8, or different numbers of lines
        (reported at the first line that exists in only one file).
    """
    return list(iter_parallel(src_path, tgt_path, allow_empty))


def iter_parallel(src_path, tgt_path, allow_empty=False):
    """:func:`read_parallel` one pair at a time (a pair is yielded as soon as both of its
    lines are read, so standard input can be aligned as it arrives)."""
    src_iter, tgt_iter = iter(read_lines(src_path)), iter(read_lines(tgt_path))
    while True:
        s = next(src_iter, None)
        t = next(tgt_iter, None)
        if s is None and t is None:
            return
        if s is None or t is None:
            longer, shorter = (tgt_path, src_path) if s is None else (src_path, tgt_path)
            lineno = (t or s)[0]
            if lineno == 1:   # "has only 0 lines" named the empty file as a short one
                raise FormatError(_name(shorter), None,
                                  f"empty: no lines, while {_name(longer)} has some")
            rest = [(t or s)[1]] + [x[1] for x in (tgt_iter if s is None else src_iter)]
            raise FormatError(_name(longer), lineno, f"line counts differ: {_name(shorter)} has "
                              f"only {counted(lineno - 1, 'line')}{blank_tail_hint(rest)}")
        src = _tokens(src_path, s[0], s[1], allow_empty=True)
        if not src and not allow_empty:
            _empty_side(src_path, s[0], tgt_path, t[1])
        tgt = _tokens(tgt_path, t[0], t[1], allow_empty=True)
        if not tgt and not allow_empty:
            _empty_side(tgt_path, t[0], src_path, s[1])
        yield src, tgt


def _empty_side(path, lineno, other_path, other_text):
    """An empty sentence at ``path:lineno``; when the other file's line is not empty, a
    sentence left without its translation (Europarl's files leave such lines empty)."""
    hint = ("" if not other_text.strip(" \t") else
            f" while line {lineno} of {_name(other_path)} is not: a sentence without its "
            "translation (Europarl's files leave such lines empty)? remove the pair from both "
            "files, keeping the lines paired")
    raise FormatError(_name(path), lineno, "empty sentence" + hint)


def read_fast_align(path):
    """Read fast_align's one-file bitext: ``source tokens ||| target tokens`` per line
    (``"-"``: standard input)."""
    return list(iter_fast_align(path))


#: runs of '|' that could be taken for fast_align's separator '|||'
_BARS = re.compile(r"\|{3,}")


def iter_fast_align(path):
    """:func:`read_fast_align` one pair at a time."""
    for lineno, text in read_lines(path):
        bars = [m for m in _BARS.finditer(text)]
        if not bars:   # XML (TMX), a JSON line, a tab-separated bitext
            check_layout_line(text, _name(path), lineno)
        if len(bars) != 1 or len(bars[0].group()) != 3:
            # a second '|||' or a '||||' was split at the first one: a side shifted by a
            # token '|||' or '|' (fast_align's separator is one token '|||')
            found = ("no '|||'" if not bars else f"'{bars[0].group()}'" if len(bars) == 1
                     else f"{len(bars)} runs of '|||'")
            raise FormatError(_name(path), lineno, f"expected 'source ||| target' with one "
                              f"'|||', found {found}{no_bars_hint(text) if not bars else ''}")
        cut = bars[0]
        yield (_tokens(path, lineno, text[:cut.start()], "source"),
               _tokens(path, lineno, text[cut.end():], "target"))


def _check_writable_tokens(tokens, i):
    """``ValueError`` for a side that would not read back as written: no tokens (an empty
    line), or a token that is empty, holds whitespace (split in two, or a line break that
    shifts every later line) or cannot be encoded as UTF-8 (a lone surrogate)."""
    if isinstance(tokens, (str, bytes)):
        raise TypeError(f"sentence pair {i}: a side is a string ({tokens[:40]!r}), not a list "
                        "of tokens")
    check_ordered(tokens, f"sentence pair {i}: a side", "tokens")   # a set: written unordered
    if not len(tokens):
        raise ValueError(f"sentence pair {i}: a side without tokens (an empty line is not "
                         "read back)")
    for w in tokens:
        if not isinstance(w, str) or not w or any(c.isspace() for c in w):
            raise ValueError(f"sentence pair {i}: token {w!r} is not a non-empty string "
                             "without whitespace (it would not read back as one token)")
        try:
            w.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"sentence pair {i}: token {w!r} is not valid Unicode (a lone "
                             "surrogate?)") from None


def write_parallel(pairs, src_path, tgt_path):
    """Write ``pairs`` as two tokenised files, one sentence per line (each atomically);
    the inverse of :func:`read_parallel`."""
    pairs = list(check_ordered(pairs, "pairs", "sentence pairs"))
    for i, pair in enumerate(pairs):
        for side in pair:
            _check_writable_tokens(side, i)
    for side, path in ((0, src_path), (1, tgt_path)):
        with open_output(path) as fh:
            for pair in pairs:
                fh.write(" ".join(pair[side]) + "\n")


def write_fast_align(pairs, path):
    """Write ``pairs`` in fast_align's one-file ``src ||| tgt`` form (atomically);
    the inverse of :func:`read_fast_align`."""
    pairs = list(pairs)
    for i, pair in enumerate(pairs):
        for side in pair:
            _check_writable_tokens(side, i)
    with open_output(path) as fh:
        for src, tgt in pairs:
            fh.write(f"{' '.join(src)} ||| {' '.join(tgt)}\n")
