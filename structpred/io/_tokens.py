"""Checks of tokenised input given to the Python API (issue 28).

A string is a sequence too: given where a list of tokens (or of sentences) is expected, it
would be read one character at a time and give a result without an error.  These checks
refuse it, naming the sentence, in the form every estimator uses.
"""

from __future__ import annotations

__all__ = ["check_token_lists", "check_sentence_pairs", "unwritable_token"]


def _is_text(value):
    return isinstance(value, (str, bytes))


def _shown(value):
    text = value if isinstance(value, str) else value.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:40] + "...")


def unwritable_token(tokens):
    """The first of ``tokens`` (strings) that a whitespace-tokenised file cannot hold as one
    token, else ``None``: an empty string, or one holding white space (a file would split it
    in two, or a line break would shift every later line)."""
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
    sentences = list(sentences)
    for i, s in enumerate(sentences):
        if _is_text(s):
            raise TypeError(f"{what} {i} is a string ({_shown(s)}), not a list of {items}: "
                            "split it first (e.g. text.split())")
    return sentences


def check_sentence_pairs(pairs, what="sentence pair"):
    """``pairs`` as a list of ``(source tokens, target tokens)``, each side a sequence of
    tokens, not a string (``TypeError`` naming the pair otherwise)."""
    if _is_text(pairs):
        raise TypeError(f"expected a list of {what}s (source tokens, target tokens), got a "
                        f"single string {_shown(pairs)}")
    pairs = list(pairs)
    for i, pair in enumerate(pairs):
        if _is_text(pair) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"{what} {i} must be (source tokens, target tokens), got "
                            f"{_shown(pair) if _is_text(pair) else type(pair).__name__}")
        for side, tokens in zip(("source", "target"), pair):
            if _is_text(tokens):
                raise TypeError(f"{what} {i}: the {side} side is a string ({_shown(tokens)}), "
                                "not a list of tokens: split it first (e.g. text.split())")
    return pairs
