"""Symmetrisation and the external-alignment table (the aligners themselves are optional)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.aligners.symmetrize import SYMMETRIZATIONS, symmetrize
from alignment.aligners.linkfiles import ExternalAlignments
from alignment.features.links import ExternalFeaturizer
from structpred import FormatError

links = st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(f=links, b=links)
def test_symmetrizations_are_nested(f, b):
    inter, union = f & b, f | b
    got = {m: symmetrize(f, b, m) for m in SYMMETRIZATIONS}
    assert got["intersection"] == inter and got["union"] == union
    # (final and final-and depend on the order links are visited, so they are not nested)
    assert inter <= got["grow-diag"] <= got["grow-diag-final-and"] <= union
    assert got["grow-diag"] <= got["grow-diag-final"] <= union


def test_grow_diag_known_cases():
    # a diagonal neighbour that aligns an unaligned word is grown, then its neighbour
    f, b = {(0, 0), (1, 1)}, {(0, 0), (2, 1)}
    assert symmetrize(f, b, "grow-diag") == {(0, 0), (1, 1), (2, 1)}
    # an isolated link is not grown, but "final" adds it (both words unaligned)
    f, b = {(0, 0), (3, 3)}, {(0, 0)}
    assert symmetrize(f, b, "grow-diag") == {(0, 0)}
    assert symmetrize(f, b, "grow-diag-final") == symmetrize(f, b, "grow-diag-final-and") \
        == {(0, 0), (3, 3)}
    # final-and needs both words unaligned, final only one
    f, b = {(0, 0), (0, 3)}, {(0, 0)}
    assert symmetrize(f, b, "grow-diag-final") == {(0, 0), (0, 3)}
    assert symmetrize(f, b, "grow-diag-final-and") == {(0, 0)}
    with pytest.raises(ValueError):
        symmetrize(f, b, "gdfa")


def _pairs():
    return [(["a", "b"], ["x", "y", "z"]), (["c"], ["w"])]


def test_table_roundtrip_and_features(tmp_path):
    pairs = _pairs()
    src, tgt = [s for s, _ in pairs], [t for _, t in pairs]
    (tmp_path / "f").write_text("0-0 1-1\n0-0\n")
    (tmp_path / "b").write_text("0-0 1-2\n\n")
    ext = ExternalAlignments.from_files(src, tgt, {"eflomal_fwd": tmp_path / "f",
                                                   "eflomal_bwd": tmp_path / "b"})
    assert len(ext) == 2 and pairs[0] in ext
    np.testing.assert_array_equal(ext.matrices(*pairs[0])[0], [[1, 0, 0], [0, 1, 0]])
    ext.save(tmp_path / "t.gz", src, tgt)
    back = ExternalAlignments.load(tmp_path / "t.gz", src, tgt)
    np.testing.assert_array_equal(back.matrices(*pairs[1]), ext.matrices(*pairs[1]))
    fz = ExternalFeaturizer(ext.names)
    E = fz.edge_block(ext, *pairs[0])
    assert E.shape == (len(fz.edge_names), 6)
    inter = E[fz.edge_names.index("ext:eflomal_inter")].reshape(2, 3)
    np.testing.assert_array_equal(inter, [[1, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="no external alignment"):
        fz.edge_block(ext, ["q"], ["r"])


def test_bad_link_files(tmp_path):
    pairs = _pairs()
    src, tgt = [s for s, _ in pairs], [t for _, t in pairs]
    (tmp_path / "short").write_text("0-0\n")
    with pytest.raises(FormatError, match="short:2"):
        ExternalAlignments.from_files(src, tgt, {"a": tmp_path / "short"})
    (tmp_path / "range").write_text("0-0 5-1\n0-0\n")
    with pytest.raises(FormatError, match="range:1.*outside"):
        ExternalAlignments.from_files(src, tgt, {"a": tmp_path / "range"})
    (tmp_path / "junk").write_text("0-0 x\n0-0\n")
    with pytest.raises(FormatError, match="junk:1"):
        ExternalAlignments.from_files(src, tgt, {"a": tmp_path / "junk"})
