"""Checks of tokenised input given to the Python API (issue 28).

A string is a sequence too: given where a list of tokens (or of sentences) is expected, it
would be read one character at a time and give a result without an error.  These checks
refuse it, naming the sentence, in the form every estimator uses.
"""

from __future__ import annotations

from .._checks import check_ordered
from ._words import token_form

__all__ = ["check_token_lists", "check_sentence_pairs", "unwritable_token", "MAX_WORDS"]

#: the longest side of a sentence pair an aligner takes: the HMM posteriors cost time in
#: the cube of the length (1,000 words: seconds; 5,000: hours, in one compiled call that
#: Ctrl-C cannot stop)
MAX_WORDS = 1000


def _is_text(value):
    return isinstance(value, (str, bytes))


def _shown(value):
    text = value if isinstance(value, str) else value.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:40] + "...")


def unwritable_token(tokens):
    """The first of ``tokens`` (strings) that a whitespace-tokenised file cannot hold as one
    token, else ``None``: an empty string, or one holding white space (a file would split it
    in two, or a line break would shift every later line)."""
    tokens = list(tokens)
    if " ".join(tokens).split() == tokens:   # the common case, at C speed
        return None
    return next((t for t in tokens if not t or any(c.isspace() for c in t)), None)


def check_token_lists(sentences, what="sentence", items="tokens"):
    """``sentences`` as a list whose items are sequences of tokens, not strings.

    ``TypeError`` when ``sentences`` itself is a string, or when one of its items is
    (``what`` names the items in the message, e.g. ``"source sentence"``, and ``items``
    what each holds, e.g. ``"labels"``).
    """
    if _is_text(sentences):
        raise TypeError(f"expected a list of {what}s (each a list of {items}), got a single "
                        f"string {_shown(sentences)}")
    sentences = list(check_ordered(sentences, f"the {what}s", f"{what}s"))
    if sentences and all(_is_text(s) for s in sentences) and not any(
            any(c.isspace() for c in s) for s in sentences):
        # ["the", "cat"]: one tokenised sentence where a list of them was expected
        raise TypeError(f"{what} 0 is a string ({_shown(sentences[0])}), as is every item: "
                        f"this looks like one tokenised {what}; pass a list of them "
                        f"([{items}], not {items})")
    for i, s in enumerate(sentences):
        if type(s) is list:     # the common case: nothing to check (check_ordered's)
            continue
        if _is_text(s):
            raise TypeError(f"{what} {i} is a string ({_shown(s)}), not a list of {items}: "
                            "split it first (e.g. text.split())")
        check_ordered(s, f"{what} {i}", items)   # a set: its tokens in no order
    return sentences


def _plain_pair(pair, max_words):
    """Whether ``pair`` is a tuple or list of two non-empty lists of tokens that a file
    can hold (each a string without white space), of at most ``max_words`` if given: the
    pairs that pass every check of :func:`check_sentence_pairs`, tested without a Python
    call per token.  Returns the two sides joined by spaces, or None."""
    if not (type(pair) is tuple or type(pair) is list) or len(pair) != 2:
        return None
    s, t = pair
    if not (type(s) is list and type(t) is list and s and t):
        return None
    if max_words is not None and (len(s) > max_words or len(t) > max_words):
        return None
    try:
        js, jt = " ".join(s), " ".join(t)
    except TypeError:      # a token that is not a string: the checks name it
        return None
    return (js, jt) if js.split() == s and jt.split() == t else None


def check_sentence_pairs(pairs, what="sentence pair", max_words=None):
    """``pairs`` as a list of ``(source tokens, target tokens)``, each side a sequence of
    string tokens, not a string (``TypeError`` naming the pair otherwise), of at most
    ``max_words`` tokens if given (``ValueError``); the pairs with a token beyond ASCII
    have their tokens in word form (:func:`~structpred.io.token_form`)."""
    if _is_text(pairs):
        raise TypeError(f"expected a list of {what}s (source tokens, target tokens), got a "
                        f"single string {_shown(pairs)}")
    pairs = list(check_ordered(pairs, f"the {what}s", f"{what}s (source tokens, target "
                                                      "tokens)"))
    forms, out = {}, None     # the word forms met, and the pairs with words changed
    for i, pair in enumerate(pairs):
        joined = _plain_pair(pair, max_words)   # the common case, at C speed: all checks
        if joined is None:
            _check_pair(pair, i, what, max_words)
        src, tgt = pair
        js, jt = joined or (" ".join(src), " ".join(tgt))
        if js.isascii() and jt.isascii():
            continue
        # every token beyond ASCII as the command line reads it from a file (a variation
        # selector or a right-to-left mark inside a word was another word through the API)
        s2 = _word_forms(src, forms, f"{what} {i}: source")
        t2 = _word_forms(tgt, forms, f"{what} {i}: target")
        if s2 is not src or t2 is not tgt:
            out = list(pairs) if out is None else out
            out[i] = type(pair)((s2, t2)) if isinstance(pair, (tuple, list)) else (s2, t2)
    return pairs if out is None else out


def _check_pair(pair, i, what, max_words):
    """The checks of :func:`check_sentence_pairs` of the pair ``i``, one by one."""
    if _is_text(pair) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise TypeError(f"{what} {i} must be (source tokens, target tokens), got "
                        f"{_shown(pair) if _is_text(pair) else type(pair).__name__}")
    for side, tokens in zip(("source", "target"), pair):
        if _is_text(tokens):
            raise TypeError(f"{what} {i}: the {side} side is a string ({_shown(tokens)}), "
                            "not a list of tokens: split it first (e.g. text.split())")
        check_ordered(tokens, f"{what} {i}: the {side} side", "tokens")
        # a word is a string (an int had no .lower(), bytes were ord()'s error), and one
        # that a file can hold: "" or "a b" would be one word here, none or two there
        try:
            odd = unwritable_token(tokens)     # joins them: a TypeError for a non-string
        except TypeError:
            bad = next(w for w in tokens if not isinstance(w, str))
            raise TypeError(f"{what} {i}: {side} token {bad!r} is not a string") from None
        if odd is not None:   # "" or "a b": one word here, none or two in a file
            raise ValueError(f"{what} {i}: {side} token {odd!r} is empty or holds white "
                             f"space")
        if hasattr(tokens, "__len__") and len(tokens) == 0:
            raise ValueError(f"{what} {i}: empty sentence (the {side} side has no tokens)")
        if max_words is not None and len(tokens) > max_words:
            raise ValueError(f"{what} {i}: the {side} side has {len(tokens):,} words; "
                             f"at most {max_words:,} are aligned (the time grows with "
                             "the cube of the length)")


def _word_forms(tokens, forms, where):
    """``tokens`` in word form (:func:`~structpred.io.token_form`, each distinct token
    once, kept in ``forms``), or ``tokens`` itself when none changes."""
    new = []
    for w in tokens:
        if w not in forms:
            forms[w] = token_form(w, where)
        new.append(forms[w])
    return new if new != list(tokens) else tokens
