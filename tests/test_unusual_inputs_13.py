"""Unusual inputs of the command line, thirteenth sweep (issue 28, docs/errors.md), by class:

- option types: ``--samplers``, ``align unsupervised --bitext-pairs`` (``type=int``) and
  ``tag train --valid-fraction`` named Python's conversion in their refusals ("invalid int
  value: '1e3'", "invalid _fraction value: 'abc'"); every typed option of every
  subcommand now refuses a value in its own words (``argparse.ArgumentTypeError``);
- damaged or edited model files: a NaN or an infinity in a model's arrays was a traceback
  (``tag predict``), labels for every document with exit 0 (``topics``), an error blaming
  the image (``segment``: "scores must be finite"); a tagger header without its entries a
  ``KeyError`` traceback, a feature scale of another length a model used silently, topic
  arrays that do not fit one another an ``IndexError`` traceback after the data was read;
- an output folder replaced by a file during the run: "<folder>: file exists", naming
  neither the output nor the cause;
- image folders (``segment``): macOS's hidden AppleDouble files (``._x.png``) were read as
  images ("no mask named ._x.*"), and an entry of an image name that is a link to nothing
  was passed over silently (an image lost; a mask: "no mask named x.*");
- UTF-8 text read with a single-byte ``--encoding`` (``latin-1``, ``cp1252``): ``café``
  read as ``cafÃ©`` with exit 0, or refused for a no-break space (the second byte of
  ``à``), naming the wrong cause;
- output names of other compressors (``-o out.txt.bz2``, ``.xz``, ``.zst``): plain text
  was written under a name that bzcat, xzcat and zstd refuse.
"""

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import FormatError
from structpred.io import atomic_write, check_output_path, load_npz, read_lines, save_npz

ROOT = Path(__file__).resolve().parents[1]
TAG_TRAIN = ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz"
MASKS = ROOT / "data" / "segmentation" / "weizmann_horse" / "small" / "masks"

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

COMMANDS = [["align", "train"], ["align", "predict"], ["align", "unsupervised"],
            ["align", "compare"], ["aer"], ["segment", "train"], ["segment", "predict"],
            ["segment", "eval"], ["topics", "train"], ["topics", "predict"],
            ["topics", "eval"], ["tag", "train"], ["tag", "predict"], ["tag", "eval"]]


# ------------------------------------------------------------------- class: option types
def _typed_options():
    from structpred.cli._main import build_parser

    out = []
    for cmd in COMMANDS:
        sub = build_parser(cmd)
        for word in cmd:
            sub = next(a for a in sub._actions
                       if isinstance(a, argparse._SubParsersAction)).choices[word]
        out += [(" ".join(cmd), a.option_strings[-1], a.type) for a in sub._actions
                if a.type is not None and a.option_strings]
    return out


TYPED = _typed_options()


def test_the_options_of_this_sweep_are_typed():
    names = {(c, o) for c, o, _ in TYPED}
    assert {("align unsupervised", "--samplers"), ("align unsupervised", "--bitext-pairs"),
            ("tag train", "--valid-fraction")} <= names


@SETTINGS
@given(value=st.one_of(st.sampled_from(["0x10", "1e3", "abc", "2**3", "1,2", "5.", "½",
                                        "nan", "", " ", "0b1", "1e400", "-", "²", "３"]),
                       st.text(max_size=6)))
def test_every_typed_option_refuses_in_its_own_words(value):
    """argparse shows "invalid <function name> value" for a ValueError of a type
    function: every option's type raises ArgumentTypeError (its own message) instead."""
    for command, option, parse in TYPED:
        try:
            parse(value)
        except argparse.ArgumentTypeError:
            pass
        except (TypeError, ValueError) as exc:
            raise AssertionError(f"{command} {option} {value!r}: {exc!r}") from None


@pytest.mark.parametrize("argv,option", [
    (["align", "unsupervised", "--src", "a", "--tgt", "b", "--model", "bayes",
      "--samplers", "0x10"], "--samplers"),
    (["align", "unsupervised", "--src", "a", "--tgt", "b", "--bitext-pairs", "1e3"],
     "--bitext-pairs"),
    (["tag", "train", "--data", "a", "-o", "m.npz", "--valid-fraction", "abc"],
     "--valid-fraction")])
def test_an_option_value_is_refused_without_pythons_words(argv, option, capsys):
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, option), err
    assert "invalid" not in err and "int value" not in err and "_fraction" not in err, err


# ---------------------------------------------------------- class: damaged model files
@SETTINGS
@given(dtype=st.sampled_from([np.float64, np.float32]), size=st.integers(1, 20),
       data=st.data(), bad=st.sampled_from([np.nan, np.inf, -np.inf]))
def test_a_model_array_holding_nan_or_infinity_is_named(tmp_path_factory, dtype, size, data,
                                                         bad):
    path = tmp_path_factory.mktemp("npz") / "m.npz"
    save_npz(path, {"coef": np.zeros(size, dtype=dtype), "n": np.arange(3)},
             {"format": "demo", "version": 1})
    arrays = dict(np.load(path))        # save_npz writes no NaN: the file edited after
    arrays["coef"][data.draw(st.integers(0, size - 1))] = bad
    np.savez(path, **arrays)
    with pytest.raises(FormatError, match=r"array 'coef' holds (NaN|an infinite value) "
                                          r"\(a damaged or edited file\)"):
        load_npz(path, "demo", (1,), "a demo model")
    # an array of another shape than the one written
    arrays = dict(np.load(path))
    arrays["coef"] = np.zeros(size + 1)
    np.savez(path, **arrays)
    with pytest.raises(FormatError, match=rf"array 'coef' has the shape \({size + 1},\), not "
                                          rf"the \({size},\) it was written with"):
        load_npz(path, "demo", (1,), "a demo model")
    # a file of another kind is named as such first, whatever its arrays hold
    with pytest.raises(FormatError, match=r"not a tagger \(a demo file\)"):
        load_npz(path, "tagger", (1,), "a tagger")


@pytest.fixture(scope="module")
def tagger(tmp_path_factory):
    from structpred.cli import main

    d = tmp_path_factory.mktemp("tagger")
    lines = read_text_lines(TAG_TRAIN)[:400]
    (d / "train.txt").write_text("\n".join(lines) + "\n")
    assert main(["tag", "train", "--data", str(d / "train.txt"), "-o", str(d / "m.npz"),
                 "--iterations", "2", "-q"]) == 0
    return d


def read_text_lines(path):
    return [t for _, t in read_lines(path)]


def _edited(src, dst, change):
    with np.load(src) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    np.savez(dst, **arrays)
    return dst


def _nan_coef(a):
    a["coef"] = a["coef"].copy()
    a["coef"][0] = np.nan


def _no_params(a):
    """As a file written before :func:`save_npz` recorded a digest (an edited file that
    has one is refused first for its digest)."""
    meta = json.loads(bytes(a["meta"]).decode())
    del meta["params"], meta["digest"]
    a["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)


def _short_scale(a):
    a["feature_scale"] = a["feature_scale"][:-1]


def _short_scale_unrecorded(a):
    """As a file written before :func:`save_npz` recorded the shapes."""
    _short_scale(a)
    meta = json.loads(bytes(a["meta"]).decode())
    del meta["shapes"], meta["digest"]
    a["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)


@pytest.mark.parametrize("change,words", [
    (_nan_coef, "array 'coef' holds NaN"),
    (_no_params, "entries missing or unreadable"),
    (_short_scale, "array 'feature_scale' has the shape"),
    (_short_scale_unrecorded, "weights do not match the features")])
def test_tag_predict_with_a_damaged_model_is_one_line(tagger, change, words, tmp_path, capsys):
    model = _edited(tagger / "m.npz", tmp_path / "bad.npz", change)
    rc, _, err = run_cli(["tag", "predict", "-m", str(model), "-i", str(tagger / "train.txt"),
                          "-o", str(tmp_path / "out.txt")], capsys)
    assert one_line_error(rc, err, str(model), words), err
    assert not (tmp_path / "out.txt").exists()


def test_topic_arrays_that_do_not_fit_are_named(tmp_path, capsys):
    rows = [("fruit", "apple banana pear juice sweet"), ("car", "engine wheel road fuel bus")]
    (tmp_path / "t.tsv").write_text("".join(f"{lab}\t{txt} {i}\n" for i in range(6)
                                            for lab, txt in rows))
    assert run_cli(["topics", "train", "--data", str(tmp_path / "t.tsv"), "--model",
                    "sdem-nb", "-o", str(tmp_path / "m.npz"), "-q"], capsys)[0] == 0

    def short_state(a):
        a["state._state"] = a["state._state"][:1]
        meta = json.loads(bytes(a["meta"]).decode())
        del meta["shapes"], meta["digest"]   # a file written before the shapes were recorded
        a["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)

    def short_counts(a):           # (1, V) counts broadcast: labels with exit 0 before
        a["state.word_counts_"] = a["state.word_counts_"][:1]

    for change, words in ((short_state, "arrays do not fit one another"),
                          (short_counts, "'state.word_counts_' has the shape (1, "),
                          (lambda a: a.update({"state.word_counts_": a["state.word_counts_"]
                                               * np.nan}), "holds NaN")):
        model = _edited(tmp_path / "m.npz", tmp_path / "bad.npz", change)
        rc, _, err = run_cli(["topics", "predict", "-m", str(model), "--data",
                              str(tmp_path / "t.tsv"), "-o", str(tmp_path / "o.txt")], capsys)
        assert one_line_error(rc, err, str(model), words), err
        assert not (tmp_path / "o.txt").exists()


# ------------------------------------------ class: an output folder replaced mid-run
def test_an_output_folder_that_became_a_file_is_named_with_the_output(tmp_path):
    (tmp_path / "out").write_text("a file where the folder was\n")
    target = tmp_path / "out" / "m.txt"
    with pytest.raises(OSError) as info:
        with atomic_write(target) as fh:
            fh.write("x\n")
    assert info.value.filename == str(target)
    assert "a part of that path is a file, not a folder" in str(info.value)


# ------------------------------------------------------------- class: image folders
def _mask_folder(d):
    d.mkdir()
    for stem in ("horse001", "horse002"):
        shutil.copy(MASKS / f"{stem}.png", d / f"{stem}.png")
    return d


@pytest.mark.parametrize("junk", ["._horse001.png", ".hidden.png", ".DS_Store"])
def test_hidden_files_of_an_image_folder_are_left_out(junk, tmp_path, capsys):
    pred, gold = _mask_folder(tmp_path / "pred"), _mask_folder(tmp_path / "gold")
    for d in (pred, gold):
        (d / junk).write_bytes(b"\x00\x05\x16\x07 AppleDouble junk")
    rc, out, err = run_cli(["segment", "eval", "--pred", str(pred), "--masks", str(gold)],
                           capsys)
    assert rc == 0 and "100.00" in out, err


@pytest.mark.parametrize("where", ["pred", "gold"])
def test_a_link_to_nothing_in_an_image_folder_is_named(where, tmp_path, capsys):
    pred, gold = _mask_folder(tmp_path / "pred"), _mask_folder(tmp_path / "gold")
    folder = pred if where == "pred" else gold
    (folder / "horse002.png").unlink()
    (folder / "horse002.png").symlink_to(tmp_path / "nowhere.png")
    rc, _, err = run_cli(["segment", "eval", "--pred", str(pred), "--masks", str(gold)],
                         capsys)
    assert one_line_error(rc, err, "horse002.png", "a symbolic link to a missing file"), err


# ---------------------------------------- class: UTF-8 read with a single-byte encoding
ACCENTED = st.text(st.characters(min_codepoint=0xC0, max_codepoint=0xFF), min_size=1,
                   max_size=4)


@SETTINGS
@given(word=ACCENTED, encoding=st.sampled_from(["latin-1", "cp1252", "iso-8859-15"]),
       before=st.integers(0, 3))
def test_utf8_text_read_as_a_single_byte_encoding_is_refused(tmp_path_factory, word,
                                                             encoding, before):
    path = tmp_path_factory.mktemp("enc") / "f.txt"
    path.write_text("plain words\n" * before + f"le {word} x\n", encoding="utf-8")
    with pytest.raises(FormatError, match=rf"f\.txt:{before + 1}: this line is UTF-8 text"):
        list(read_lines(path, encoding=encoding))


@SETTINGS
@given(word=ACCENTED)
def test_utf8_and_utf8_with_a_signature_read_utf8_text(tmp_path_factory, word):
    path = tmp_path_factory.mktemp("enc") / "f.txt"
    path.write_text(f"le {word} x\n", encoding="utf-8")
    for encoding in ("utf-8", "utf-8-sig", "UTF8"):
        assert [t for _, t in read_lines(path, encoding=encoding)] == [f"le {word} x"]


def test_tag_predict_names_utf8_given_encoding_latin_1(tagger, tmp_path, capsys):
    data = tmp_path / "utf8.txt"
    data.write_text("à IN\ncafé NN\n\n", encoding="utf-8")
    rc, _, err = run_cli(["tag", "predict", "-m", str(tagger / "m.npz"), "-i", str(data),
                          "--encoding", "latin-1"], capsys)
    assert one_line_error(rc, err, "utf8.txt:1", "is UTF-8 text", "drop --encoding"), err
    assert "no-break space" not in err


# --------------------------------------------- class: names of other compressors
@pytest.mark.parametrize("suffix", [".bz2", ".xz", ".zst", ".lz4", ".7z", ".BZ2"])
def test_an_output_named_for_another_compressor_is_refused(suffix, tagger, tmp_path, capsys):
    out = tmp_path / f"tagged.txt{suffix}"
    with pytest.raises(FormatError, match="compressed with gzip only"):
        check_output_path(out, "-o")
    rc, _, err = run_cli(["tag", "predict", "-m", str(tagger / "m.npz"), "-i",
                          str(tagger / "train.txt"), "-o", str(out)], capsys)
    assert one_line_error(rc, err, out.name, "gzip only"), err
    assert not out.exists()


# ------------------------------------- class: damaged model files (alignment statistics)
def test_statistics_missing_an_entry_name_it_without_pythons_words(small_stats):
    from alignment.stats.statistics import AlignmentStatistics

    arrays = small_stats.to_arrays()
    del arrays["n_pairs"]
    with pytest.raises(FormatError, match=r"\(no 'n_pairs' entry; a damaged or edited file\)"
                       ) as info:
        AlignmentStatistics.from_arrays(arrays, "m.npz")
    assert "KeyError" not in str(info.value)


def test_statistics_with_hmm_tables_missing_one_are_refused(small_stats):
    """A model whose HMM tables lost their first array was read as having none and aligned
    without its HMM features, with exit 0 (other links)."""
    from alignment.stats.statistics import AlignmentStatistics

    arrays = dict(small_stats.to_arrays(), hmm_scalars=np.array([0.2, 0.2, 5.0, 1e-7]))
    with pytest.raises(FormatError, match=r"corrupt HMM tables \(no 'hmm_\w+' entry"):
        AlignmentStatistics.from_arrays(arrays, "m.npz")


# ------------------------------------- class: paths the shell (or a browser) meant
@SETTINGS
@given(kind=st.sampled_from(["url", "tilde", "variable", "pattern"]),
       stem=st.text("abcxyz", min_size=1, max_size=6),
       command=st.sampled_from(["tag", "topics", "align"]))
def test_a_path_the_shell_did_not_expand_gets_a_hint(kind, stem, command, tmp_path_factory,
                                                     capsys):
    d = tmp_path_factory.mktemp("paths")
    path, words = {"url": (f"https://example.org/{stem}.txt", "a URL"),
                   "tilde": (f"~/{stem}-missing.txt", "did not expand '~'"),
                   "variable": (f"$HOME/{stem}.txt", "a variable the shell did not expand"),
                   "pattern": (f"{d}/*.txt", "a pattern")}[kind]
    if kind == "pattern" and stem.startswith("a"):
        (d / f"{stem}.txt").write_text("x\n")           # a pattern that matches a file
        words = "it matches 1 files; write it without quotes"
    argv = {"tag": ["tag", "train", "--data", path, "-o", str(d / "m.npz")],
            "topics": ["topics", "train", "--data", path, "--format", "tsv",
                       "-o", str(d / "m.npz")],
            "align": ["align", "unsupervised", "--src", path, "--tgt", path + "x"]}[command]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, path, "no such file", words), err


def test_a_plain_missing_file_gets_no_hint(tmp_path, capsys):
    rc, _, err = run_cli(["tag", "train", "--data", str(tmp_path / "none.txt"), "-o",
                          str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, "none.txt: no such file"), err
    assert err.rstrip().endswith("no such file"), err


def test_a_segmentation_header_without_an_entry_is_named_without_pythons_words(tmp_path):
    from segmentation.model import MRFSegmenter

    save_npz(tmp_path / "m.npz", {"coef": np.zeros(3), "feature_mean": np.zeros(3),
                                  "feature_std": np.ones(3)},
             {"format": "structpred-mrf-segmenter", "version": 3, "kind": "image"})
    with pytest.raises(ValueError, match=r"damaged header: no '\w+' entry") as info:
        MRFSegmenter.load(tmp_path / "m.npz")
    assert "KeyError" not in str(info.value)
