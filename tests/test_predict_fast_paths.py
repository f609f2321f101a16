"""The fast paths of ``align predict``: they must give exactly what the checked paths give."""

import re
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from alignment.data.formats import Alignment
from structpred.io._words import check_visible_tokens
from structpred.io import FormatError


def _reference(text):
    """The definition: a token (split on ASCII spaces, tabs, newlines) of format
    characters (category Cf) only is an error."""
    for m in re.finditer(r"[^ \t\n]+", text):
        if all(unicodedata.category(c) == "Cf" for c in m.group()):
            return m.start() + 1
    return None


_chars = st.sampled_from(["a", "é", "\xad", "\u200f", "\u200b", "\ufeff", "\U000e0001", " ",
                          "\t", "œ", "’", "\u0600", "ж", "\U0001f600", "\x85"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_chars, max_size=12).map("".join))
@example("a \xad b")
@example("é \u200f")
@example("\U000e0001")
def test_visible_tokens_fast_path_matches_the_definition(text):
    where = _reference(text)
    if where is None:
        check_visible_tokens(text, "f.txt", 3)
    else:
        with pytest.raises(FormatError, match=re.escape(f"at column {where}")):
            check_visible_tokens(text, "f.txt", 3)


def test_only_the_soft_hyphen_is_a_format_character_below_u0100():
    # the fast path skips the lines whose characters above ASCII are all below U+0100,
    # except U+00AD
    assert [c for c in map(chr, range(256)) if unicodedata.category(c) == "Cf"] == ["\xad"]


@given(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 80)), max_size=20))
def test_predicted_alignment_equals_the_checked_one(links):
    src = [j for j, _ in links]
    tgt = [k for _, k in links]
    fast = Alignment._predicted(src, tgt)
    checked = Alignment.from_links(links)
    assert fast == checked and hash(fast) == hash(checked)
    assert fast.sure == fast.possible == frozenset(links)
    assert all(type(x) is int for link in fast.sure for x in link)
