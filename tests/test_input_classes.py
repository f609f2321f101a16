"""Unusual inputs by class (issue 28): for each class, a hypothesis strategy generates
inputs of that class and the command either refuses them with exit status 2 and ONE line
``structpred: error: ...`` naming the cause, or gives the correct result; never a silent
wrong result.

Classes: coverage gaps in gold, shifted index bases, gold without sure links, odd text
(Unicode spaces, a BOM, NUL bytes, CR-only line ends), image modes, point clouds that thin
to nothing, swapped sides.  The alignment cases run ``structpred aer`` in-process on
generated sentences (no model needed), so they are fast.
"""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred.cli import main

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _run(argv, capsys):
    capsys.readouterr()
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _one_line_error(rc, err):
    lines = err.strip().splitlines()
    return rc == 2 and len(lines) == 1 and lines[0].startswith("structpred: error: ")


# ------------------------------------------------------------------ a small corpus
@st.composite
def corpora(draw, min_n=3, max_n=10):
    """Sentence pairs with a realistic alignment: the diagonal of the shorter side (so the
    first and last words are linked), plus a few extra links."""
    n = draw(st.integers(min_n, max_n))
    pairs, links = [], []
    for i in range(n):
        m = draw(st.integers(2, 8))
        k = draw(st.integers(2, 8))
        src = [f"s{i}w{j}" for j in range(m)]
        tgt = [f"t{i}w{j}" for j in range(k)]
        diag = {(round(j * (m - 1) / max(k - 1, 1)), j) for j in range(k)}
        extra = draw(st.sets(st.tuples(st.integers(0, m - 1), st.integers(0, k - 1)),
                             max_size=3))
        pairs.append((src, tgt))
        links.append(sorted(diag | extra))
    return pairs, links


def _write_corpus(d, pairs):
    (d / "s.src").write_text("".join(" ".join(s) + "\n" for s, _ in pairs))
    (d / "s.tgt").write_text("".join(" ".join(t) + "\n" for _, t in pairs))


def _pharaoh(links, shift=0, sep="-"):
    return "".join(" ".join(f"{j + shift}{sep}{k + shift}" for j, k in ls) + "\n"
                   for ls in links)


def _naacl(links, shift=1, keep=None, label="S"):
    return "".join(f"{i + 1} {j + shift} {k + shift} {label}\n"
                   for i, ls in enumerate(links) if keep is None or i in keep
                   for j, k in ls)


# ------------------------------------------------------------------ class: coverage gaps
@SETTINGS
@given(data=corpora(), drop=st.sets(st.integers(0, 9), max_size=4),
       allow=st.booleans())
def test_gold_with_coverage_gaps_is_refused_naming_the_sentence(data, drop, allow, tmp_path,
                                                                capsys):
    pairs, links = data
    keep = set(range(len(pairs))) - drop
    d = tmp_path
    _write_corpus(d, pairs)
    (d / "gold.naacl").write_text(_naacl(links, keep=keep))
    (d / "test.txt").write_text(_pharaoh(links))
    argv = ["aer", "--gold", str(d / "gold.naacl"), "--test", str(d / "test.txt"),
            "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt")]
    rc, out, err = _run(argv + (["--allow-unaligned"] if allow else []), capsys)
    uncovered = sorted(set(range(len(pairs))) - keep)
    if not keep:
        assert _one_line_error(rc, err), err
    elif uncovered and not allow:
        assert _one_line_error(rc, err), err
        assert f"no gold for sentence {uncovered[0] + 1}" in err
    else:
        assert rc == 0, err
        if not uncovered:
            assert "AER 0.00%" in out


# ------------------------------------------------------------------ class: index bases
@SETTINGS
@given(data=corpora(), shift=st.sampled_from([0, 1]), fmt=st.sampled_from(["pharaoh", "naacl"]),
       where=st.sampled_from(["gold", "test"]))
def test_shifted_indices_are_refused_with_a_hint(data, shift, fmt, where, tmp_path, capsys):
    """Pharaoh written 1-based, NAACL written 0-based: refused (out of range, or 'look
    1-based' / 'look 0-based'), never scored as a poor alignment."""
    pairs, links = data
    d = tmp_path
    _write_corpus(d, pairs)
    if fmt == "pharaoh":
        gold = _pharaoh(links, shift if where == "gold" else 0)
    else:
        gold = _naacl(links, (1 - shift) if where == "gold" else 1)
    (d / f"gold.{fmt}").write_text(gold)
    (d / "test.txt").write_text(_pharaoh(links, shift if where == "test" else 0))
    rc, out, err = _run(["aer", "--gold", str(d / f"gold.{fmt}"), "--test", str(d / "test.txt"),
                         "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt")], capsys)
    if shift == 0:
        assert rc == 0 and "AER 0.00%" in out, err
    else:
        assert _one_line_error(rc, err), err
        assert any(w in err for w in ("1-based", "0-based", "out of range")), err


def test_index_base_is_judged_without_the_sentences_too(tmp_path, capsys):
    d = tmp_path
    links = [[(0, 0), (1, 1), (2, 2)], [(0, 0), (1, 1)], [(0, 1), (1, 0), (2, 2)]]
    (d / "gold.pharaoh").write_text(_pharaoh(links))
    (d / "test.txt").write_text(_pharaoh(links, 1))
    rc, _, err = _run(["aer", "--gold", str(d / "gold.pharaoh"), "--test", str(d / "test.txt")],
                      capsys)
    assert _one_line_error(rc, err) and "1-based" in err and "test.txt" in err, err


# ------------------------------------------------------------------ class: no sure links
@SETTINGS
@given(data=corpora(), label=st.sampled_from(["S", "P"]))
def test_gold_without_sure_links_is_refused(data, label, tmp_path, capsys):
    pairs, links = data
    d = tmp_path
    _write_corpus(d, pairs)
    (d / "gold.naacl").write_text(_naacl(links, label=label))
    (d / "test.txt").write_text(_pharaoh(links))
    rc, out, err = _run(["aer", "--gold", str(d / "gold.naacl"), "--test", str(d / "test.txt"),
                         "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt")], capsys)
    if label == "S":
        assert rc == 0 and "AER 0.00%" in out, err
    else:
        assert _one_line_error(rc, err) and "no sure gold links" in err, err


# ------------------------------------------------------------------ class: odd text
ODD = {"\u00a0": "no-break space", "\u2009": "thin space", "\u3000": "ideographic space",
       "\u2028": "line separator", "\x0b": "U+000B", "\x0c": "U+000C", "\x00": "NUL byte",
       "\r": "carriage return"}


@SETTINGS
@given(data=corpora(), ch=st.sampled_from(sorted(ODD)), where=st.sampled_from(["src", "tgt",
                                                                             "test"]),
       seed=st.integers(0, 10 ** 6))
def test_odd_whitespace_and_control_characters_are_refused_with_file_and_line(
        data, ch, where, seed, tmp_path, capsys):
    pairs, links = data
    d = tmp_path
    _write_corpus(d, pairs)
    (d / "gold.naacl").write_text(_naacl(links))
    (d / "test.txt").write_text(_pharaoh(links))
    path = d / {"src": "s.src", "tgt": "s.tgt", "test": "test.txt"}[where]
    text = path.read_text()
    rng = random.Random(seed)
    spaces = [i for i, c in enumerate(text) if c == " "]
    at = rng.choice(spaces) if spaces else 0
    path.write_bytes((text[:at] + ch + text[at + 1:]).encode("utf-8"))
    line = text[:at].count("\n") + 1
    rc, out, err = _run(["aer", "--gold", str(d / "gold.naacl"), "--test", str(d / "test.txt"),
                         "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt")], capsys)
    assert _one_line_error(rc, err), err
    assert f"{path}:{line}:" in err and ODD[ch] in err, err


def test_a_byte_order_mark_is_dropped(tmp_path, capsys):
    d = tmp_path
    links = [[(0, 0), (1, 1)], [(0, 0), (1, 1), (2, 2)], [(0, 0), (1, 1)]]
    (d / "s.src").write_bytes("\ufeffa b\nc d e\nf g\n".encode())
    (d / "s.tgt").write_bytes("\ufeffA B\nC D E\nF G\n".encode())
    (d / "gold.pharaoh").write_bytes(("\ufeff" + _pharaoh(links)).encode())
    (d / "test.txt").write_text(_pharaoh(links))
    rc, out, err = _run(["aer", "--gold", str(d / "gold.pharaoh"), "--test", str(d / "test.txt"),
                         "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt")], capsys)
    assert rc == 0 and "AER 0.00%" in out, err


# ------------------------------------------------------------------ class: image modes
MODES = ["L", "I;16", "I", "F", "P", "RGBA", "LA", "RGB", "CMYK", "1"]


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mode=st.sampled_from(MODES), h=st.integers(2, 20), w=st.integers(2, 20),
       ext=st.sampled_from([".png", ".tif"]))
def test_every_image_mode_is_converted_to_the_right_grey(mode, h, w, ext, tmp_path):
    """A grey ramp saved in each mode reads back as the same 8-bit grey (16-bit ramps
    are scaled, not clipped to black and white)."""
    from PIL import Image

    from segmentation.data import load_image

    grey = np.linspace(0, 255, h * w).reshape(h, w).round().astype(np.uint8)
    if mode in ("I;16", "I"):
        im = Image.fromarray(grey.astype(np.uint16) * 257)        # mode I;16
        if mode == "I":
            im = im.convert("I")
    elif mode == "F":
        im = Image.fromarray(grey.astype(np.float32) / 255.0)      # mode F
    elif mode == "1":
        grey = np.where(grey >= 128, 255, 0).astype(np.uint8)
        im = Image.fromarray(grey).convert("1", dither=Image.Dither.NONE)
    else:
        im = Image.fromarray(grey).convert(mode)
    path = tmp_path / f"im{ext}"
    if mode in ("F", "CMYK", "I", "LA") and ext == ".png":
        path = tmp_path / "im.tif"   # PNG cannot hold these modes
    im.save(path)
    got = load_image(path)
    assert got.shape == (h, w, 3) and got.dtype == np.uint8
    tol = 3 if mode != "P" else 8
    assert np.abs(got[..., 0].astype(int) - grey).max() <= tol, (mode, got[..., 0], grey)


def test_huge_images_are_refused_before_decoding(tmp_path, monkeypatch):
    from PIL import Image

    from segmentation import data
    from structpred import FormatError

    Image.new("L", (300, 200)).save(tmp_path / "big.png")
    monkeypatch.setattr(data, "MAX_PIXELS", 50_000)
    with pytest.raises(FormatError, match="too large .*300 x 200.*downscale"):
        data.load_image(tmp_path / "big.png")


# ------------------------------------------------------------------ class: point clouds
@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 40), spread=st.sampled_from([0.0, 0.01, 0.3, 5.0]),
       k=st.sampled_from([1, 6, 50, 10 ** 9]))
def test_point_clouds_too_small_or_too_dense_a_graph_are_refused(n, spread, k):
    from segmentation.points import MAX_K_GRAPH, point_graph

    xyz = np.random.default_rng(n).random((n, 3)) * spread
    try:
        g = point_graph(xyz, voxel=0.25, k_graph=k)
    except ValueError as exc:
        msg = str(exc)
        assert len(msg.splitlines()) == 1
        assert ("at least 2" in msg) or (k > MAX_K_GRAPH and "--k-graph" in msg), msg
        return
    assert k <= MAX_K_GRAPH and g.xyz.shape[0] >= 2
    assert g.edges.shape[0] >= 1 and g.edges.max() < g.xyz.shape[0]


# ------------------------------------------------------------------ class: swapped sides
def test_sides_that_look_swapped_are_refused():
    from alignment.cli.common import _check_direction
    from alignment.data.corpus import Vocabulary
    from structpred.cli import UserError

    class Stats:
        src_vocab = Vocabulary.build([["the", "house", "is", "red", "."]] * 3)
        tgt_vocab = Vocabulary.build([["la", "maison", "est", "rouge", "."]] * 3)

    good = [(["the", "house", "is", "red", "."], ["la", "maison", "est", "rouge", "."])] * 4
    _check_direction(good, Stats)
    swapped = [(t, s) for s, t in good]
    with pytest.raises(UserError, match="look swapped"):
        _check_direction(swapped, Stats)
    _check_direction([([".", "1"], [".", "1"])] * 20, Stats)   # shared words say nothing


# ------------------------------------------------------------------ class: targets (Python API)
@settings(max_examples=60, deadline=None)
@given(m=st.integers(1, 4), n=st.integers(1, 4), data=st.data())
def test_a_gold_target_outside_the_matching_polytope_is_refused(m, n, data):
    """``z_gold`` must be a point of the polytope, not only of the unit box: a matrix in
    [0, 1] whose row or column sums pass 1 is refused; any point inside is accepted."""
    import scipy.sparse as sp

    from structpred.polytopes.matching import MatchingExample

    z = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]),
                                    min_size=m * n, max_size=m * n))).reshape(m, n)
    inside = z.sum(1).max() <= 1 + 1e-9 and z.sum(0).max() <= 1 + 1e-9
    F = sp.identity(m * n, format="csr")
    if inside:
        MatchingExample(F=F, z_gold=z.ravel(), shape=(m, n))
    else:
        with pytest.raises(ValueError, match="outside the polytope.*eq. 2.11"):
            MatchingExample(F=F, z_gold=z.ravel(), shape=(m, n))


def test_a_gold_target_outside_the_simplex_and_the_cut_polytope_is_refused():
    import scipy.sparse as sp

    from structpred.polytopes import MinCutExample, SimplexExample

    with pytest.raises(ValueError, match="outside the polytope"):
        SimplexExample(F=sp.identity(3, format="csr"), z_gold=np.array([1.0, 1.0, 0.0]))
    SimplexExample(F=sp.identity(3, format="csr"), z_gold=np.array([0.0, 1.0, 0.0]))
    # two nodes labelled 1 and 0 with the edge variable 0: |y_j - y_k| is 1, not 0
    with pytest.raises(ValueError, match="outside the polytope"):
        MinCutExample(F=sp.identity(3, format="csr"), z_gold=np.array([1.0, 0.0, 0.0]),
                      n_nodes=2, edges=np.array([[0, 1]]))
    MinCutExample(F=sp.identity(3, format="csr"), z_gold=np.array([1.0, 0.0, 1.0]),
                  n_nodes=2, edges=np.array([[0, 1]]))


# ------------------------------------------------------------------ second pass (issue 28)
# Classes found by a fresh adversarial pass: outputs that are inputs in the commands that
# did not check, figure names matplotlib cannot write, models of another subcommand given
# to `segment`, image arrays on another scale, one-pixel images, --param values of the
# wrong kind, a string given as a corpus, gold links given as plain tuples.

@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["train-data", "train-valid", "predict-data", "predict-model",
                              "unsupervised-src", "unsupervised-tgt", "unsupervised-i"]))
def test_an_output_that_is_an_input_is_refused_before_any_work(which, tmp_path, capsys):
    """`-o` naming one of the command's inputs: exit 2, one line, and the input intact."""
    import json as _json

    docs = [{"text": f"word{i} alpha beta {'space' if i % 2 else 'church'}",
             "label": "a" if i % 2 else "b"} for i in range(8)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(_json.dumps(d) + "\n" for d in docs))
    valid = tmp_path / "v.jsonl"
    valid.write_text(data.read_text())
    model = tmp_path / "m.npz"
    model.write_bytes(b"PK\x03\x04 not read")
    src, tgt = tmp_path / "s.en", tmp_path / "s.fr"
    src.write_text("the house\n")
    tgt.write_text("la maison\n")
    bitext = tmp_path / "b.txt"
    bitext.write_text("the house ||| la maison\n")
    argv, target = {
        "train-data": (["topics", "train", "--data", str(data), "--model", "nbsvm"], data),
        "train-valid": (["topics", "train", "--data", str(data), "--valid-data", str(valid)],
                        valid),
        "predict-data": (["topics", "predict", "-m", str(model), "--data", str(data)], data),
        "predict-model": (["topics", "predict", "-m", str(model), "--data", str(data)], model),
        "unsupervised-src": (["align", "unsupervised", "--src", str(src), "--tgt", str(tgt)],
                             src),
        "unsupervised-tgt": (["align", "unsupervised", "--src", str(src), "--tgt", str(tgt)],
                             tgt),
        "unsupervised-i": (["align", "unsupervised", "-i", str(bitext)], bitext),
    }[which]
    before = target.read_bytes()
    rc, _, err = _run(argv + ["-q", "-o", str(target)], capsys)
    assert _one_line_error(rc, err) and "would overwrite the input" in err, err
    assert target.read_bytes() == before


@pytest.mark.parametrize("suffix,ok", [(".txt", False), (".csv", False), (".npz", False),
                                       (".png", True), (".svg", True), (".pdf", True),
                                       ("", True)])
def test_figure_names_are_checked_before_any_work(suffix, ok, tmp_path):
    """`--plot NAME`: a suffix matplotlib cannot write is refused in one line before the
    work (it was a traceback after the scores were printed); no suffix is PNG."""
    from structpred.cli import check_output
    from structpred.cli import UserError
    from structpred.io import check_figure_path

    path = tmp_path / f"plot{suffix}"
    if ok:
        check_output(str(path), "--plot", figure=True)
        assert check_figure_path(path) == (suffix.lstrip(".") or "png")
    else:
        with pytest.raises(UserError, match=r"not written \(--plot\).*not a figure format"):
            check_output(str(path), "--plot", figure=True)


def test_aer_plot_with_a_text_suffix_is_refused_before_scoring(tmp_path, capsys):
    d = tmp_path
    links = [[(0, 0), (1, 1)], [(0, 0), (1, 1), (2, 2)], [(0, 0), (1, 1)]]
    _write_corpus(d, [(["a", "b"], ["A", "B"]), (["c", "d", "e"], ["C", "D", "E"]),
                      (["f", "g"], ["F", "G"])])
    (d / "gold.pharaoh").write_text(_pharaoh(links))
    (d / "test.txt").write_text(_pharaoh(links))
    rc, out, err = _run(["aer", "--gold", str(d / "gold.pharaoh"), "--test", str(d / "test.txt"),
                         "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt"),
                         "--plot", str(d / "grid.txt")], capsys)
    assert _one_line_error(rc, err) and "not a figure format" in err and out == "", err
    assert not (d / "grid.txt").exists()


@pytest.mark.parametrize("kind", ["alignment-statistics", "topics", "plain-npz", "format-entry"])
def test_segment_names_the_kind_of_a_model_file_of_another_subcommand(kind, tmp_path):
    """A file of another kind given to `segment`: one line naming its kind, never a
    KeyError about a missing entry."""
    from segmentation.model import MRFSegmenter
    from structpred.io import save_npz
    from structpred.io._npz import pack_json

    path = tmp_path / "m.npz"
    if kind == "alignment-statistics":
        save_npz(path, {"x": np.zeros(2)}, {"format": "structpred-alignment-statistics",
                                            "version": 1})
        want = r"\(a structpred-alignment-statistics file\)"
    elif kind == "topics":
        np.savez(path, __meta__=np.array('{"format": "structpred-topics-model"}'))
        want = r"\(a structpred-topics-model file\)"
    elif kind == "format-entry":
        np.savez(path, format=np.array("structpred-hmm-tables"), version=np.array(1))
        want = r"\(a structpred-hmm-tables file\)"
    else:
        np.savez(path, a=np.arange(3), meta=pack_json([1, 2]))
        want = r"not a structpred segmentation model"
    with pytest.raises(ValueError, match=want) as info:
        MRFSegmenter.load(path)
    assert "KeyError" not in str(info.value) and "\n" not in str(info.value)


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["u8", "int64", "float01", "float255", "uint16", "nan", "bool"]),
       h=st.integers(2, 6), w=st.integers(2, 6), seed=st.integers(0, 1000))
def test_image_arrays_are_read_on_the_right_scale_or_refused(kind, h, w, seed):
    """The Python API's images: 8-bit values (any integer type) and floats in [0, 1] give
    the same uint8 pixels; 16-bit values, floats beyond [0, 1], NaN and booleans are
    refused in one line (floats in [0, 1] were read as near-black 0-255 values)."""
    from segmentation.features import as_rgb8

    rgb = np.random.default_rng(seed).integers(0, 256, (h, w, 3)).astype(np.uint8)
    rgb[0, 0] = 255                       # the top of the range is present
    arr = {"u8": rgb, "int64": rgb.astype(np.int64), "float01": rgb / 255.0,
           "float255": rgb.astype(np.float64), "uint16": rgb.astype(np.uint16) * 257,
           "nan": np.where(rgb > 0, rgb / 255.0, np.nan),
           "bool": rgb > 127}[kind]
    if kind in ("u8", "int64", "float01"):
        assert np.array_equal(as_rgb8(arr), rgb)
    elif kind == "nan" and not np.isnan(arr).any():
        assert np.array_equal(as_rgb8(arr), rgb)
    else:
        with pytest.raises(ValueError) as info:
            as_rgb8(arr)
        assert "\n" not in str(info.value)


def test_a_one_pixel_image_is_predicted_without_a_library_error():
    """An image of one superpixel (one pixel): the colour model has no second side to fit
    and there are no pixel pairs; the prediction is made without numpy's 'a must be a
    positive integer' or RuntimeWarnings."""
    import warnings

    from segmentation.colour_model import colour_model_features
    from segmentation.features import superpixel_graph

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = superpixel_graph(np.full((1, 1, 3), 90, np.uint8), n_segments=50)
        f = colour_model_features(np.ones((1, 3)), np.ones(1), np.zeros((0, 2)), np.zeros(0),
                                  np.array([0.3]))
    assert g.node_features.shape[0] == 1 and np.array_equal(f, np.zeros((1, 2)))


def test_more_superpixels_than_pixels_are_capped():
    from segmentation.features import superpixel_graph

    g = superpixel_graph(np.random.default_rng(0).integers(0, 256, (4, 5, 3)).astype(np.uint8),
                         n_segments=10 ** 9)
    assert 1 <= g.node_features.shape[0] <= 20


@pytest.mark.parametrize("value,ok", [("abc", False), ('"nan"', False), ("2.5", True),
                                      ("true", False), ("3", True)])
def test_param_values_of_the_wrong_kind_are_refused_in_one_line(value, ok, tmp_path, capsys):
    import json as _json

    data = tmp_path / "d.jsonl"
    # words of letters: 'w0 alpha x' was 'alpha' alone for nbsvm, the same in every document
    data.write_text("".join(_json.dumps({"text": f"w{'abc'[i % 3]}w alpha "
                                                 f"{'xx' if i % 2 else 'yy'}",
                                         "label": "ab"[i % 2]}) + "\n" for i in range(12)))
    rc, _, err = _run(["topics", "train", "--data", str(data), "--model", "nbsvm", "-q",
                       "--min-df", "1", "--param", f"C={value}", "-o", str(tmp_path / "m.npz")],
                      capsys)
    if ok:
        assert rc == 0, err
    else:
        assert _one_line_error(rc, err) and "--param C=" in err, err
        assert "could not convert" not in err


@pytest.mark.parametrize("budget", ["nan", "inf", "-1"])
def test_time_budget_must_be_a_finite_number(budget, capsys):
    with pytest.raises(SystemExit) as info:
        main(["topics", "train", "--data", "x.jsonl", "--time-budget", budget, "-o", "m.npz"])
    err = capsys.readouterr().err
    assert _one_line_error(info.value.code, err) and "--time-budget" in err, err


def test_a_single_string_is_not_a_corpus():
    from topics import Vocabulary

    for call in ("fit", "fit_transform"):
        with pytest.raises(TypeError, match="single string"):
            getattr(Vocabulary(), call)("one document, not a list of them")


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 4), n=st.integers(1, 4),
       links=st.lists(st.tuples(st.integers(-1, 5), st.integers(-1, 5)), max_size=4))
def test_gold_given_as_plain_links_is_converted_or_refused(m, n, links):
    """`MatchingAligner.fit`'s gold may be (j, k) links; links outside the sentence pair
    are refused naming the sentence (an AttributeError before)."""
    from alignment.model import as_alignments

    pair = ([f"s{j}" for j in range(m)], [f"t{k}" for k in range(n)])
    inside = all(0 <= j < m and 0 <= k < n for j, k in links)
    if inside:
        (g,) = as_alignments([pair], [links])
        assert g.sure == frozenset(links) == g.possible
    else:
        with pytest.raises(ValueError, match=r"gold\[0\]: link .* outside the"):
            as_alignments([pair], [links])
    with pytest.raises(ValueError, match="expected an Alignment"):
        as_alignments([pair], [42])


# ---------------------------------------------------- every output against every input
def _leaf_parsers():
    """``(argv prefix, parser)`` of every subcommand that runs (``align train``, ...)."""
    import argparse

    from structpred.cli._main import build_parser

    out = []

    def walk(p, path):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out.append((path, p))
        for s in subs:
            for name, sp in s.choices.items():
                walk(sp, path + [name])

    walk(build_parser(load="all"), [])
    return out


_FILE_METAVARS = {"FILE", "PATH", "NPZ", "CSV"}


def _output_input_cases():
    """Every (subcommand, output option, input option): the outputs are the file outputs
    (``--output`` naming a file, ``--plot``), the inputs every option that reads a file."""
    cases = []
    for path, p in _leaf_parsers():
        acts = [a for a in p._actions if a.option_strings and a.nargs != 0]
        outputs = [a for a in acts if a.dest in ("output", "plot") and a.metavar != "DIR"]
        inputs = [a for a in acts if a.metavar in _FILE_METAVARS and a.dest != "output"]
        required = [a for a in acts if a.required and a.dest != "output"]
        for o in outputs:
            for i in inputs:
                cases.append((" ".join(path), o.option_strings[-1], i.option_strings[-1],
                              tuple(r.option_strings[-1] for r in required)))
    return cases


_CASES = _output_input_cases()


def test_the_output_input_cases_cover_every_writing_subcommand():
    """The table below is built from the parsers: a new subcommand or input option is in it
    without anyone listing it."""
    commands = {c[0] for c in _CASES}
    assert {"align train", "align predict", "align unsupervised", "aer", "tag train",
            "tag predict", "topics train", "topics predict", "topics eval",
            "segment train"} <= commands, commands
    assert len(_CASES) >= 30


@pytest.mark.parametrize("command,output,inp,required", _CASES,
                         ids=[f"{c[0]}:{c[1]}={c[2]}" for c in _CASES])
def test_every_output_naming_one_of_the_inputs_is_refused(command, output, inp, required,
                                                          tmp_path, capsys):
    """Any file output of any subcommand given the path of any of its file inputs: exit 2,
    one line, and the input left byte for byte as it was (the other required inputs are
    files that exist, so the refusal is the first thing the command does)."""
    target = tmp_path / "shared.txt"
    target.write_bytes(b"the house\n")
    before = target.read_bytes()
    masks = tmp_path / "masks"
    masks.mkdir()

    def other(name):
        f = tmp_path / f"other-{name.strip('-')}.txt"
        f.write_bytes(b"the house\n")
        return str(f)

    # the options that must come with the input for the command line to make sense
    companions = {"--src": ["--tgt"], "--tgt": ["--src"], "--valid-src": ["--valid-tgt",
                  "--valid-gold"], "--valid-tgt": ["--valid-src", "--valid-gold"],
                  "--valid-gold": ["--valid-src", "--valid-tgt"],
                  "--bitext-src": ["--bitext-tgt"], "--bitext-tgt": ["--bitext-src"]}
    extra = {"aer": ["--src", "--tgt"] if output == "--plot" else [],
             "align train": ["--src", "--tgt", "--gold"],
             "align predict": [] if inp == "--input" else ["--src", "--tgt"]}.get(command, [])
    argv = command.split()
    given = {inp}
    for opt in list(required) + extra + companions.get(inp, []):
        if opt not in given:
            given.add(opt)
            argv += [opt, other(opt)]
    if command == "segment train":
        if inp.endswith("images"):
            argv += ["--masks" if inp == "--images" else "--valid-masks", str(masks)]
        if inp.endswith("points"):
            argv += ["--foreground-labels", "1"]
        if inp.startswith("--valid"):
            argv += ["--manifest", other("manifest")]
    argv += [inp, str(target), output, str(target)]
    rc, _, err = _run(argv + (["-q"] if command.split()[0] in ("align", "topics", "tag",
                                                               "segment") else []), capsys)
    assert _one_line_error(rc, err), (argv, err)
    assert "overwrite" in err or "is an input" in err or "same file" in err, (argv, err)
    assert target.read_bytes() == before


# ------------------------------------------------- class: a string where tokens are expected
_WORDS = st.lists(st.sampled_from(["the", "house", "rose", "la", "chambre", "a", "b"]),
                  min_size=1, max_size=5)


@SETTINGS
@given(sents=st.lists(_WORDS, min_size=1, max_size=4), where=st.sampled_from(
    ["corpus", "sentence", "source side", "target side"]), i=st.integers(0, 3))
def test_a_string_given_for_tokens_is_refused_by_every_estimator(sents, where, i):
    """A string is iterable: given for a list of sentences, a sentence or one side of a pair,
    the aligners and the tagger read it one character at a time and returned links or tags
    for the letters (sweep of issue 28).  Every estimator refuses it in one line naming the
    sentence, before any work (the models here are not even fitted)."""
    from alignment import MatchingAligner, UnsupervisedAligner
    from sequence.model import SequenceTagger

    i = i % len(sents)
    src = [list(s) for s in sents]
    tgt = [list(reversed(s)) for s in sents]
    if where == "corpus":
        src = " ".join(" ".join(s) for s in sents)
    elif where in ("sentence", "source side"):
        src[i] = " ".join(src[i])
    else:
        tgt[i] = " ".join(tgt[i])
    pairs = src if isinstance(src, str) else list(zip(src, tgt))
    tagged = src if isinstance(src, str) else [s if isinstance(s, str) else [(w,) for w in s]
                                               for s in src]
    calls = [lambda: MatchingAligner().predict(pairs),
             lambda: MatchingAligner().fit(pairs, [[]] * len(sents), stats=object()),
             lambda: UnsupervisedAligner().predict(pairs)]
    if where != "target side":
        calls += [lambda: UnsupervisedAligner().fit(src, tgt),
                  lambda: SequenceTagger().predict(tagged),
                  lambda: SequenceTagger().fit(tagged, [["O"] * len(s) for s in sents])]
    for call in calls:
        with pytest.raises(TypeError) as info:
            call()
        msg = str(info.value)
        assert "\n" not in msg and ("single string" in msg or f" {i}" in msg), msg


@SETTINGS
@given(lengths=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_tagged_sentences_that_do_not_fit_their_labels_are_refused(lengths, data):
    """SequenceTagger: a label list of another length than its sentence ("y must hold one
    label in 0..n_labels-1 per token" before), a token with another number of columns (an
    IndexError; a bare word is a one-column token), a label list given as a string (read
    one letter per label): one line naming the sentence."""
    from sequence.model import SequenceTagger

    X = [[("The", "DT"), ("end", "NN")]] + [[(f"w{k}", "NN") for k in range(n)]
                                              for n in lengths]
    y = [["O", "B-NP"]] + [["B-NP"] + ["I-NP"] * (n - 1) for n in lengths]
    lengths = [2] + lengths
    i = data.draw(st.integers(1, len(lengths) - 1))
    fault = data.draw(st.sampled_from(["labels", "columns", "string-token", "string-labels"]))
    if fault == "string-labels":
        y[i] = " ".join(y[i])
        want = f"label list {i} is a string"
    elif fault == "labels":
        y[i] = y[i] + ["O"]
        want = f"sentence {i} has {lengths[i]} tokens but {lengths[i] + 1} labels"
    elif fault == "columns":
        X[i][-1] = X[i][-1][:1]
        want = f"sentence {i}, token {lengths[i] - 1} has 1 column,"
    else:   # a bare word is the one-column token (word,): here one column too few
        X[i][0] = "w0"
        want = f"sentence {i}, token 0 has 1 column, but 2 were expected"
    with pytest.raises((TypeError, ValueError), match=want) as info:
        SequenceTagger(n_iter=1).fit(X, y)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("estimator", ["NBSVM", "SdemNaiveBayes", "LDASVM"])
def test_topic_estimators_refuse_a_string_or_no_documents_in_their_words(estimator):
    """A single string or an empty list given to a fitted topic classifier: one line in the
    estimator's words, not scikit-learn's "Expected 2D array ... Reshape your data"."""
    import topics

    docs = ["apple banana cherry", "grape melon lemon"] * 4
    model = getattr(topics, estimator)().fit(docs, ["x", "y"] * 4)
    for X, want in (("apple banana", "single string"), ([], "no documents")):
        with pytest.raises((TypeError, ValueError), match=want) as info:
            model.predict(X)
        assert "Reshape" not in str(info.value) and "2D" not in str(info.value)


def test_one_image_array_given_for_a_list_of_images_is_named_as_such():
    """MRFSegmenter.predict/fit iterated one (H, W, 3) array row by row and refused the
    rows' shape; now the message says that a list of images was expected."""
    from segmentation.model import MRFSegmenter

    img = np.zeros((6, 7, 3), np.uint8)
    for call in (lambda: MRFSegmenter().fit(img, np.zeros((6, 7), bool)),
                 lambda: MRFSegmenter().predict(img)):
        with pytest.raises(TypeError, match=r"a list of images.*\(6, 7, 3\)"):
            call()


# -------------------------------------------- class: options that the chosen mode does not use
def test_options_that_depend_on_another_option_are_refused_without_it(tmp_path, capsys):
    """`aer --sentences` without `--plot`, `align unsupervised --eflomal-weight` with
    `--with none` (the default): refused in one line naming the option, not ignored."""
    d = tmp_path
    _write_corpus(d, [(["a", "b"], ["A", "B"]), (["c", "d"], ["C", "D"])])
    (d / "g.pharaoh").write_text("0-0 1-1\n0-0 1-1\n")
    for argv, option in (
            (["aer", "--gold", str(d / "g.pharaoh"), "--test", str(d / "g.pharaoh"),
              "--sentences", "2"], "--sentences"),
            (["align", "unsupervised", "--src", str(d / "s.src"), "--tgt", str(d / "s.tgt"),
              "--eflomal-weight", "0.5", "-o", str(d / "out.txt")], "--eflomal-weight")):
        rc, out, err = _run(argv, capsys)
        assert _one_line_error(rc, err) and f"error: {option} " in err, err
    assert not (d / "out.txt").exists()


# ----------------------------------------------- class: validation that no model can score
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(train_types=st.sets(st.sampled_from(["NP", "VP", "PP"]), min_size=1),
       valid_types=st.sets(st.sampled_from(["ADJP", "ZZ", "SBAR"]), min_size=1),
       iob=st.booleans())
def test_validation_labels_that_training_never_shows_are_refused(train_types, valid_types,
                                                                 iob, tmp_path, capsys):
    """`tag train --valid-data` whose chunk types (or, without IOB labels, whose labels)
    the training sentences never hold: every model scores 0 on it, so it cannot choose
    the iteration; refused naming the file (before, training ran and chose iteration 0)."""
    def sents(types, n):
        out = []
        for i in range(n):
            t = sorted(types)[i % len(types)]
            labels = [f"B-{t}", f"I-{t}", "O"] if iob else [t, t, "X" + t]
            out.append("".join(f"w{i}{k} POS {lab}\n" for k, lab in enumerate(labels)))
        return "\n".join(out)
    (tmp_path / "train.txt").write_text(sents(train_types, 6))
    (tmp_path / "valid.txt").write_text(sents(valid_types, 2))
    rc, out, err = _run(["tag", "train", "--data", str(tmp_path / "train.txt"), "--valid-data",
                         str(tmp_path / "valid.txt"), "--iterations", "1", "-q", "-o",
                         str(tmp_path / "m.npz")], capsys)
    assert _one_line_error(rc, err) and "valid.txt" in err and "scores" in err, err
    assert not (tmp_path / "m.npz").exists()


# ------------------------------------------------ class: an ignore value the mask cannot hold
@settings(max_examples=30, deadline=None)
@given(mode=st.sampled_from(["L", "I;16", "1"]), value=st.integers(1, 70000),
       seed=st.integers(0, 100))
def test_an_ignore_value_beyond_the_masks_range_is_refused(mode, value, seed, tmp_path_factory):
    """`--ignore-value 300` with 8-bit masks can match no pixel: it was silently a no-op.
    A value beyond the range of the mask's type is refused naming the mask; one within it
    is applied."""
    from PIL import Image

    from segmentation.data import load_mask
    from structpred import FormatError

    top = {"L": 255, "I;16": 65535, "1": 1}[mode]
    fg = {"L": 255, "I;16": 1, "1": 1}[mode]
    a = (np.random.default_rng(seed).random((5, 6)) > 0.5).astype(np.uint16) * fg
    path = tmp_path_factory.mktemp("m") / "mask.png"
    (Image.fromarray(a.astype(bool)) if mode == "1" else
     Image.fromarray(a.astype(np.uint8 if mode == "L" else np.uint16))).save(path)
    if value > top:
        with pytest.raises(FormatError, match="cannot occur in this mask"):
            load_mask(path, ignore_value=value)
    elif value not in (0, fg):
        mask, ignore = load_mask(path, ignore_value=value, return_ignore=True)
        assert ignore is None and np.array_equal(mask, a > 0)


def test_segment_eval_refuses_an_ignore_value_beyond_8_bit_masks(tmp_path, capsys):
    from PIL import Image

    for d in ("gold", "pred"):
        (tmp_path / d).mkdir()
        Image.fromarray(np.array([[0, 255], [255, 0]], np.uint8)).save(tmp_path / d / "a.png")
    rc, out, err = _run(["segment", "eval", "--pred", str(tmp_path / "pred"), "--masks",
                         str(tmp_path / "gold"), "--ignore-value", "300", "-q"], capsys)
    assert _one_line_error(rc, err) and "ignore value 300" in err, err


# ------------------------------------------ class: sides swapped, seen from the link positions
@SETTINGS
@given(data=corpora())
def test_links_that_fit_the_pair_with_its_sides_exchanged_are_not_called_1_based(data, tmp_path,
                                                                                capsys):
    """`aer --src F --tgt E` with the sides given the wrong way round: a link one past the
    end was called "these look 1-based" though the links use position 0 (sweep of issue
    28); now the message says that the sides look swapped, or, when every sentence pair
    fits both ways, the scores are given (they do not depend on the sentences)."""
    pairs, links = data
    _write_corpus(tmp_path, pairs)
    (tmp_path / "links.txt").write_text(_pharaoh(links))
    rc, out, err = _run(["aer", "--gold", str(tmp_path / "links.txt"), "--test",
                         str(tmp_path / "links.txt"), "--src", str(tmp_path / "s.tgt"),
                         "--tgt", str(tmp_path / "s.src")], capsys)
    if rc == 0:
        assert "AER 0.00%" in out
    else:
        assert _one_line_error(rc, err) and "swapped" in err and "1-based" not in err, err


# ---------------------------------------------------- class: binary files given as text
@settings(max_examples=30, deadline=None)
@given(magic=st.sampled_from([b"PK\x03\x04", b"\x89PNG\r\n\x1a\n", b"\xff\xfe", b"\xfe\xff",
                              b"\x93NUMPY", b"%PDF-"]),
       rest=st.binary(min_size=0, max_size=40))
def test_a_binary_file_read_as_text_is_named_by_its_kind(magic, rest, tmp_path_factory):
    """Every text reader (read_lines): a file that starts with the magic number of a zip
    (an .npz model), an image, a PDF or UTF-16 text is refused as "not UTF-8 text: <kind>"
    (before: "bad encoding: byte 0xff at column 1", or letters of a zip's first line read
    as columns); a text line that merely starts with such letters is read."""
    from structpred import FormatError
    from structpred.io import read_lines

    path = tmp_path_factory.mktemp("b") / "f.txt"
    path.write_bytes(magic + b"\x01" + rest)
    try:
        list(read_lines(path))
    except FormatError as exc:
        msg = str(exc)
        assert "\n" not in msg and (": not UTF-8 text: " in msg or "bad encoding" in msg
                                    or "NUL" in msg or "carriage return" in msg), msg
        if magic != b"%PDF-":
            assert "not UTF-8 text" in msg, msg
    path.write_bytes(magic[:0] + b"%PDF-1 is a word\nRIFF too\n")
    assert [t for _, t in read_lines(path)] == ["%PDF-1 is a word", "RIFF too"]


def test_a_model_file_given_as_text_data_is_named_as_a_zip(tmp_path, capsys):
    np.savez(tmp_path / "m.npz", a=np.arange(3))
    rc, out, err = _run(["tag", "train", "--data", str(tmp_path / "m.npz"), "-o",
                         str(tmp_path / "t.npz")], capsys)
    assert _one_line_error(rc, err) and "not UTF-8 text: a zip archive" in err, err


# ------------------------------------------------ class: a file named as an image that is not
def test_an_explicit_images_file_that_is_not_an_image_is_refused_as_such(tmp_path, capsys):
    """`segment --images text.en` was looked up as an image and refused for its missing
    mask; a file without an image extension is now opened as an image first (a real image
    with an odd extension is accepted)."""
    from PIL import Image

    from segmentation.cli import _image_files

    (tmp_path / "text.en").write_text("the house rose .\n")
    Image.fromarray(np.zeros((3, 4, 3), np.uint8)).save(tmp_path / "pic.data", format="PNG")
    assert _image_files([str(tmp_path / "pic.data")]) == [tmp_path / "pic.data"]
    (tmp_path / "masks").mkdir()
    rc, out, err = _run(["segment", "train", "--images", str(tmp_path / "text.en"), "--masks",
                         str(tmp_path / "masks"), "-o", str(tmp_path / "m.npz")], capsys)
    assert _one_line_error(rc, err) and "text.en: not an image file" in err, err
