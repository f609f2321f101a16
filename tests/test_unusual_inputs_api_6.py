"""Unusual inputs of the Python API, sixth sweep (issue 28, docs/errors.md):

- a sentence pair with an empty side given to the aligners was "empty sentence" (or
  "every sentence pair needs tokens on both sides") without naming the pair;
- ``load_bitext``'s ``max_pairs`` negative (nothing read, silently) or fractional (cut);
- ``check_segmented`` (unsegmented Chinese, Japanese, Thai... text) on token lists.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment import UnsupervisedAligner, load_bitext
from structpred.io import check_sentence_pairs


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), where=st.integers(0, 4), side=st.sampled_from([0, 1]))
def test_an_empty_side_is_named_with_its_pair(n, where, side):
    pairs = [(["a", "b"], ["c"]) for _ in range(n)]
    where %= n
    pairs[where] = ([], ["c"]) if side == 0 else (["a"], [])
    name = ("source", "target")[side]
    with pytest.raises(ValueError, match=f"sentence pair {where}: empty sentence "
                                         f"\\(the {name} side has no tokens\\)"):
        check_sentence_pairs(pairs)


def test_unsupervised_fit_names_the_pair_with_an_empty_side():
    with pytest.raises(ValueError, match="sentence pair 1: empty sentence"):
        UnsupervisedAligner().fit([["a"], ["b"]], [["c"], []])


@pytest.mark.parametrize("value", [-2, 1.5, True, "3"])
def test_load_bitext_refuses_a_max_pairs_that_is_not_a_count(tmp_path, value):
    (tmp_path / "a.en").write_text("a b\nc d\n")
    (tmp_path / "a.fr").write_text("x y\nz w\n")
    with pytest.raises(ValueError, match="max_pairs must be an integer >= 0"):
        load_bitext(tmp_path / "a.en", tmp_path / "a.fr", max_pairs=value)


def test_load_bitext_reads_max_pairs_lines(tmp_path):
    (tmp_path / "a.en").write_text("a b\nc d\n")
    (tmp_path / "a.fr").write_text("x y\nz w\n")
    assert len(load_bitext(tmp_path / "a.en", tmp_path / "a.fr", max_pairs=1)) == 1
    assert len(load_bitext(tmp_path / "a.en", tmp_path / "a.fr", max_pairs=0)) == 0
