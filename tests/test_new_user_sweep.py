"""A new user's sweep (branch newuser-sweep): refusals whose hint named the wrong cause or
no cause, and a summary that ``-q`` hid.  Each test fails on the code before the sweep."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cli_helpers import one_line_error, run_cli


# --- aer: gold and predictions in each other's format ---------------------------------

def test_aer_naacl_test_file_is_not_told_to_use_gold_format(tmp_path, capsys):
    """A NAACL file given as --test (or --gold and --test exchanged): the hint named
    '--gold-format naacl', an option that does not apply to --test."""
    gold = tmp_path / "g.pharaoh"
    gold.write_text("0-0 1-1\n")
    test = tmp_path / "t.naacl"
    test.write_text("1 1 1 S\n1 2 2 S\n")
    rc, out, err = run_cli(["aer", "--gold", str(gold), "--test", str(test)], capsys)
    assert one_line_error(rc, err, f"{test}:1:", "--test takes Pharaoh links",
                   "are --gold and --test exchanged?")
    assert "--gold-format" not in err and out == ""


@settings(max_examples=25, deadline=None)
@given(links=st.lists(st.tuples(st.integers(0, 30), st.sampled_from("-?"),
                                st.integers(0, 30)), min_size=1, max_size=8))
def test_pharaoh_gold_read_as_naacl_says_so(tmp_path_factory, links):
    """A Pharaoh file named *.naacl is read as NAACL: every line of links, whatever its
    number of links (3 to 5 links were 'must be integers', others 'expected sent src tgt'),
    is refused with the hint to --gold-format pharaoh."""
    from structpred.cli import main

    d = tmp_path_factory.mktemp("g")
    gold = d / "gold.naacl"
    gold.write_text(" ".join(f"{a}{s}{b}" for a, s, b in links) + "\n")
    test = d / "t.pharaoh"
    test.write_text("0-0\n")
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["aer", "--gold", str(gold), "--test", str(test)])
    assert one_line_error(rc, err.getvalue(), f"{gold}:1:", "looks like Pharaoh",
                   "--gold-format pharaoh")


# --- bitext line counts name the short file --------------------------------------------

def test_bitext_line_count_error_names_the_shorter_file(tmp_path, capsys):
    """'line counts differ: 3 vs 2' named only the longer file: which one is short?"""
    src, tgt = tmp_path / "a.en", tmp_path / "a.fr"
    src.write_text("a b\nc d\n")
    tgt.write_text("x y\nz w\n")
    bsrc, btgt = tmp_path / "bt.en", tmp_path / "bt.fr"
    bsrc.write_text("a b\nc d\ne f\n")
    btgt.write_text("x y\nz w\n")
    rc, out, err = run_cli(["align", "unsupervised", "-q", "--src", str(src), "--tgt", str(tgt),
                            "--bitext-src", str(bsrc), "--bitext-tgt", str(btgt)], capsys)
    assert one_line_error(rc, err, f"{bsrc}:3:", "line counts differ", f"{btgt} has only 2 lines")


# --- segment: masks named with a suffix, JPEG masks -----------------------------------

def _png(path, a):
    from PIL import Image

    Image.fromarray(a).save(path)


@pytest.fixture
def images(tmp_path):
    rng = np.random.default_rng(0)
    (tmp_path / "img").mkdir()
    (tmp_path / "msk").mkdir()
    mask = np.zeros((24, 24), np.uint8)
    mask[6:18, 6:18] = 255
    _png(tmp_path / "img" / "cat1.png", rng.integers(0, 256, (24, 24, 3), dtype=np.uint8))
    return tmp_path, mask


@pytest.mark.parametrize("suffix", ["_mask", "-gt", ".seg"])
def test_mask_named_with_a_suffix_is_pointed_out(images, capsys, suffix):
    """Masks named 'cat1_mask.png' (a common convention) were 'no mask named cat1.*',
    without saying that the folder holds it under another name."""
    tmp_path, mask = images
    _png(tmp_path / "msk" / f"cat1{suffix}.png", mask)
    rc, out, err = run_cli(["segment", "train", "--images", str(tmp_path / "img"),
                            "--masks", str(tmp_path / "msk"), "-o", str(tmp_path / "m.npz")],
                           capsys)
    assert one_line_error(rc, err, "no mask named cat1.*", f"holds cat1{suffix}.png",
                   f"give --mask-suffix {suffix}")
    assert not (tmp_path / "m.npz").exists()


def test_predicted_masks_named_with_a_suffix_are_pointed_out(images, capsys):
    tmp_path, mask = images
    _png(tmp_path / "msk" / "cat1.png", mask)
    (tmp_path / "pred").mkdir()
    _png(tmp_path / "pred" / "cat1_pred.png", mask)
    rc, out, err = run_cli(["segment", "eval", "--pred", str(tmp_path / "pred"),
                            "--masks", str(tmp_path / "msk")], capsys)
    assert one_line_error(rc, err, "no predicted mask named cat1.*", "holds cat1_pred.png")


@pytest.mark.parametrize("where", ["gold", "pred"])
def test_jpeg_mask_refusal_names_the_lossy_compression(images, capsys, where):
    """A JPEG mask holds values near 0 and 255: the refusal said 'not binary' and pointed to
    --ignore-value, not to the JPEG compression that made them."""
    from PIL import Image

    tmp_path, mask = images
    (tmp_path / "pred").mkdir()
    for folder in ("msk", "pred"):
        _png(tmp_path / folder / "cat1.png", mask)
    target = tmp_path / ("msk" if where == "gold" else "pred")
    (target / "cat1.png").unlink()
    Image.fromarray(mask).save(target / "cat1.jpg", quality=75)
    rc, out, err = run_cli(["segment", "eval", "--pred", str(tmp_path / "pred"),
                            "--masks", str(tmp_path / "msk")], capsys)
    assert one_line_error(rc, err, "cat1.jpg", "mask is not binary", "JPEG compression is lossy",
                   "save masks as PNG")


# --- topics train -q still prints its summary -------------------------------------------

def test_topics_train_quiet_prints_the_summary(tmp_path, capsys):
    """'-q: no progress bars or chatter (the result summary is still printed)': topics
    train -q printed nothing, while align/tag/segment train -q print their summary."""
    data = tmp_path / "d.tsv"
    data.write_text("".join(f"{lab}\t{lab} word{i} common text\n"
                            for i in range(6) for lab in ("sports", "politics")))
    out_model = tmp_path / "m.npz"
    rc, out, err = run_cli(["topics", "train", "--data", str(data), "--model", "sdem-nb",
                            "--min-df", "1", "-q", "-o", str(out_model)], capsys)
    assert rc == 0, err
    assert re.search(r"trained sdem-nb in .*model written to .*m\.npz", err), err
    assert len(err.strip().splitlines()) == 1
