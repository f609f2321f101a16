"""Unusual inputs of the command line, tenth sweep (issue 28, docs/errors.md), by class:

- paths (outputs that are inputs of another kind): ``segment predict -o DIR`` (and
  ``--side-by-side DIR``, also of ``segment eval``) replaced any file of the name a
  prediction takes (``<id>.png``): ``-o masks/`` overwrote the gold masks with exit 0;
  now a file there that no prediction of structpred wrote (a PNG without the text chunk
  the predictions carry, a point file of other lines) is refused before any work unless
  ``--overwrite``; ``-o /dev/stdout`` was "a symbolic link is not replaced by a file;
  give the path it points to" (now named as standard output, with the hint ``-o -``);
  two scans of one name (``a/s.txt b/s.txt``) were predicted into one file, the second
  replacing the first;
- formats of other tools: a file compressed by zstd (lz4, lzip, compress) given where
  text is read was "bad encoding: byte 0xb5 ... give --encoding latin-1", and a model
  compressed by any of them (or xz, bzip2) "not an .npz archive"; now named as such, with
  the hint to decompress it;
- formats: bytes appended to gzip data were "corrupt or truncated gzip data (Not a
  gzipped file (b'ga'))";
- environment: ``NUMBA_NUM_THREADS=0`` (or ``-1``) was a traceback of numba's import,
  ``NUMBA_NUM_THREADS=abc`` a warning of eight lines, ``OMP_NUM_THREADS=abc`` a line of
  libgomp's before the command ran: refused in one line naming the variable;
- sizes: ``segment train --eta-scale 1e300`` overflowed the first step (numpy's warnings,
  then "the point to project must be finite" naming the mask folder): capped at 1e6 as
  ``--feature-scale`` is;
- paths and option values: a file name that starts with ``-`` (``--data -x.txt``) was
  argparse's "expected one argument" alone; now with the hint ``./-x.txt`` (or
  ``--data=-x.txt``); ``align unsupervised --prefix 99999999999`` was named as the
  estimator's ``prefix``, not the option; a negative number with an exponent
  (``--eflomal-weight -1e-3``, which argparse reads as an option) gets the hint
  ``--eflomal-weight=-1e-3``;
- sizes: a decimal below the smallest float (``--c-pos 1e-400``) read as 0 with exit 0;
- sizes: a stream without line ends (``--data - < /dev/zero``) was read until the memory
  ran out ("out of memory: the sizes asked for do not fit"); its NUL bytes are now found
  in its first megabyte;
- formats of other tools: a segmentation manifest separated by semicolons or tabs was
  "manifest needs an 'id' (or 'image') column"; an OLE file (``Thumbs.db``, an Office
  97-2003 document) given as text was a bad encoding;
- encodings: ``--encoding utf-8-sig`` was refused as not writing line ends as single
  bytes; ``rot13``/``base64``/``hex`` were refused with an ``iconv`` command of a codec
  iconv does not know, and ``idna`` or ``raw_unicode_escape`` accepted (the latter turned
  ``\u00e9`` in a text into ``é``);
- formats of other tools: an ``.npz`` model of pickled Python objects was "corrupt or
  truncated ... (Object arrays cannot be loaded when allow_pickle=False)";
- paths: a read that failed with EIO (a failing disk, ``/proc/self/mem``) was "standard
  output: input/output error", taken for a failed write of the results;
- the same input twice: ``aer --sentences 1,1`` drew the grid of sentence 1 twice;
- meaning: ``topics --label-field text --text-field text`` on JSON lines was refused by a
  symptom (a label holding a line break), where CSV named the field;
- encodings: a byte 0x80-0x9F (Windows-1252's curly quotes) was hinted as Latin-1, and
  ``--encoding latin-1`` then refused the control character it reads as;
- keywords in another case: ``align compare --bitext-pairs ALL`` was "expected a number
  or 'all'";
- names: ``topics --data -`` named standard input ``<stdin>`` in its errors, every other
  command ``-``.
"""

import io
import os
import sys
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

HORSES = os.path.join(os.path.dirname(__file__), "..", "data", "segmentation",
                      "weizmann_horse", "small")
IDS = ("horse001", "horse002", "horse003")


def _crop(folder, ident, size=40):
    a = np.asarray(Image.open(os.path.join(HORSES, folder, f"{ident}.png")))
    r0, c0 = (a.shape[0] - size) // 2, (a.shape[1] - size) // 2
    return a[r0:r0 + size, c0:c0 + size]


@pytest.fixture(scope="module")
def horses(tmp_path_factory):
    """Three small horse crops (``images/``, ``masks/``) and a model trained on them."""
    from structpred.cli import main

    d = tmp_path_factory.mktemp("horses10")
    for sub in ("images", "masks"):
        (d / sub).mkdir()
        for i in IDS:
            Image.fromarray(_crop(sub, i)).save(d / sub / f"{i}.png")
    assert main(["segment", "train", "--images", str(d / "images"), "--masks", str(d / "masks"),
                 "--n-segments", "30", "--iterations", "2", "--class-weight", "none",
                 "--eta-scale", "1", "--valid-fraction", "0", "-q",
                 "-o", str(d / "model.npz")]) == 0
    return d


# ------------------------------------ class: output folders holding files of other sources
def _foreign(path, kind):
    """A file at ``path`` that no prediction wrote."""
    if kind == "gold mask":
        Image.fromarray(np.zeros((4, 4), dtype=np.uint8)).save(path)
    elif kind == "rgb image":
        Image.fromarray(np.zeros((4, 4, 3), dtype=np.uint8)).save(path)
    elif kind == "text":
        path.write_text("not an image\n")
    elif kind == "empty":
        path.write_bytes(b"")
    else:   # a link to a file elsewhere
        target = path.parent.parent / f"target-{path.name}"
        target.write_bytes(b"x")
        path.symlink_to(target)


@SETTINGS
@given(kind=st.sampled_from(["gold mask", "rgb image", "text", "empty", "link"]),
       which=st.sampled_from(IDS), flag=st.sampled_from(["-o", "--side-by-side"]))
def test_predict_keeps_files_it_did_not_write(horses, tmp_path_factory, capsys, kind, which,
                                              flag):
    out = tmp_path_factory.mktemp("out")
    folder = out / "dest"
    folder.mkdir()
    _foreign(folder / f"{which}.png", kind)
    before = sorted(os.listdir(folder))
    other = ["--side-by-side", str(out / "sbs")] if flag == "-o" else ["-o", str(out / "pred")]
    rc, _, err = run_cli(["segment", "predict", "-m", str(horses / "model.npz"), "--images",
                          str(horses / "images"), flag, str(folder), *other, "-q"], capsys)
    assert one_line_error(rc, err, f"{which}.png", "no prediction", flag, "--overwrite"), err
    assert sorted(os.listdir(folder)) == before
    # --overwrite replaces it (a symbolic link is never replaced by a file)
    rc, _, err = run_cli(["segment", "predict", "-m", str(horses / "model.npz"), "--images",
                          str(horses / "images"), flag, str(folder), *other, "--overwrite",
                          "-q"], capsys)
    if kind == "link":
        assert one_line_error(rc, err, "symbolic link"), err
        return
    assert rc == 0, err
    assert sorted(os.listdir(folder)) == sorted(f"{i}.png" for i in IDS)


def test_predict_into_the_gold_masks_is_refused_and_reruns_are_not(horses, tmp_path, capsys):
    """``-o masks/`` (the gold masks, which predict does not read) is refused; a second
    run into a folder of predictions replaces them; eval --side-by-side likewise."""
    gold = sorted((horses / "masks").iterdir())
    sums = [p.read_bytes() for p in gold]
    rc, _, err = run_cli(["segment", "predict", "-m", str(horses / "model.npz"), "--images",
                          str(horses / "images"), "-o", str(horses / "masks"), "-q"], capsys)
    assert one_line_error(rc, err, "masks", "a gold mask"), err
    assert [p.read_bytes() for p in gold] == sums
    for _ in range(2):
        assert run_cli(["segment", "predict", "-m", str(horses / "model.npz"), "--images",
                        str(horses / "images"), "-o", str(tmp_path / "pred"), "-q"],
                       capsys)[0] == 0
    for _ in range(2):
        assert run_cli(["segment", "eval", "-m", str(horses / "model.npz"), "--images",
                        str(horses / "images"), "--masks", str(horses / "masks"),
                        "--side-by-side", str(tmp_path / "pred"), "--overwrite", "-q"],
                       capsys)[0] == 0
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / f"{IDS[0]}.png").write_bytes(sums[0])
    rc, _, err = run_cli(["segment", "eval", "-m", str(horses / "model.npz"), "--images",
                          str(horses / "images"), "--masks", str(horses / "masks"),
                          "--side-by-side", str(tmp_path / "copy"), "-q"], capsys)
    assert one_line_error(rc, err, "--side-by-side", "no prediction"), err
    rc, _, err = run_cli(["segment", "eval", "-m", str(horses / "model.npz"), "--images",
                          str(horses / "images"), "--masks", str(horses / "masks"),
                          "--overwrite", "-q"], capsys)
    assert one_line_error(rc, err, "--overwrite", "--side-by-side"), err


# --------------------------------------------- class: files compressed by other tools
COMPRESSED = {"zstd": b"\x28\xb5\x2f\xfd", "lz4": b"\x04\x22\x4d\x18", "lzip": b"LZIP",
              "compress (.Z)": b"\x1f\x9d", "bzip2": b"BZh9", "xz": b"\xfd7zXZ\x00"}


@SETTINGS
@given(kind=st.sampled_from(sorted(COMPRESSED)), tail=st.binary(min_size=0, max_size=64),
       role=st.sampled_from(["--gold", "--test"]))
def test_text_compressed_by_other_tools_is_named(tmp_path_factory, capsys, kind, tail, role):
    """A zstd (lz4, lzip, compress) file given where text is read was "bad encoding: byte
    0xb5 ... (Latin-1, as in the CoNLL-2002 files? give --encoding latin-1 ...)"."""
    d = tmp_path_factory.mktemp("z")
    (d / "f").write_bytes(COMPRESSED[kind] + b"\x91" + tail)   # compressed: never clean text
    (d / "ok").write_text("0-0 1-1\n")
    files = {"--gold": d / "ok", "--test": d / "ok", role: d / "f"}
    rc, _, err = run_cli(["aer", "--gold", str(files["--gold"]), "--test",
                          str(files["--test"])], capsys)
    assert one_line_error(rc, err, str(d / "f"), f"{kind} data", "decompress"), err
    assert "latin-1" not in err


@SETTINGS
@given(kind=st.sampled_from(sorted(COMPRESSED)))
def test_model_compressed_by_other_tools_is_named(horses, tmp_path_factory, capsys, kind):
    """A model compressed with zstd, xz, ... was "not an .npz archive" (gzip was named)."""
    d = tmp_path_factory.mktemp("zm")
    (d / "m.npz").write_bytes(COMPRESSED[kind] + (horses / "model.npz").read_bytes()[:100])
    rc, _, err = run_cli(["segment", "predict", "-m", str(d / "m.npz"), "--images",
                          str(horses / "images"), "-o", str(d / "out")], capsys)
    assert one_line_error(rc, err, "m.npz", f"{kind} data", "decompress"), err


# ------------------------------------------- class: thread counts in the environment
def _version_with(name, value):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS")}
    env.update({name: value, "PYTHONPATH": os.pathsep.join(
        [os.path.join(os.path.dirname(__file__), ".."), env.get("PYTHONPATH", "")])})
    return subprocess.run([sys.executable, "-m", "structpred", "--version"], env=env,
                          capture_output=True, text=True, timeout=60)


@SETTINGS
@given(name=st.sampled_from(["NUMBA_NUM_THREADS", "OMP_NUM_THREADS"]),
       value=st.one_of(st.sampled_from(["0", "-1", "", " ", "abc", "1.5", "2,0", "٣", "1e3"]),
                       st.text(st.characters(codec="ascii", exclude_categories=["Cc"]),
                               max_size=6)))
def test_thread_counts_the_libraries_cannot_read_are_refused(name, value):
    """``NUMBA_NUM_THREADS=0`` was a traceback of numba's import, ``abc`` a warning of eight
    lines; ``OMP_NUM_THREADS=abc`` a line of libgomp's before the command ran."""
    from structpred._startup import check_environment

    refusal = check_environment({name: value})
    items = value.split(",") if name == "OMP_NUM_THREADS" else [value]
    valid = all(v.strip().isascii() and v.strip().isdigit() and int(v) >= 1 for v in items)
    assert (refusal is None) == valid
    assert valid or (f"${name}" in refusal and repr(value) in refusal)


def test_thread_counts_in_the_command():
    """The command refuses them in one line before importing numba; whole numbers run."""
    for name, value in (("NUMBA_NUM_THREADS", "0"), ("OMP_NUM_THREADS", "abc")):
        res = _version_with(name, value)
        assert one_line_error(res.returncode, res.stderr, f"${name}", repr(value)), res.stderr
    res = _version_with("OMP_NUM_THREADS", "4,2")
    assert res.returncode == 0 and res.stdout.startswith("structpred "), res.stderr


# ------------------------------------------------------- class: step sizes beyond use
@SETTINGS
@given(value=st.floats(min_value=1.0000001e6, max_value=1e308), listed=st.booleans())
def test_eta_scale_beyond_the_cap(horses, tmp_path_factory, capsys, value, listed):
    """``--eta-scale 1e300`` overflowed the first step: numpy's warnings, then "the point to
    project must be finite" naming the mask folder."""
    from segmentation.model import MRFSegmenter

    text = f"3,{value!r}" if listed else repr(value)
    out = tmp_path_factory.mktemp("eta") / "m.npz"
    rc, _, err = run_cli(["segment", "train", "--images", str(horses / "images"), "--masks",
                          str(horses / "masks"), "--eta-scale", text, "-o", str(out)], capsys)
    assert one_line_error(rc, err, "--eta-scale", "at most"), err
    assert not out.exists()
    with pytest.raises(ValueError, match="eta_scale must be at most"):
        MRFSegmenter(eta_scale=(3, value) if listed else value)._check_params()


# ------------------------------------------------- class: file names that start with '-'
DASH_COMMANDS = ((["aer", "--test", "t.txt", "--gold"], "--gold="),
                 (["tag", "predict", "-m", "m.npz", "--data"], "--data="),
                 (["topics", "predict", "-m", "m.npz", "-o", "o.txt", "--data"], "--data="),
                 (["align", "predict", "-m", "m.npz", "-i"], "--input="),
                 (["segment", "predict", "-m", "m.npz", "-o", "out", "--images"], None))


@SETTINGS
@given(name=st.text("xyzäw_.0123456789", min_size=1, max_size=8).map("-".__add__).filter(
           lambda n: not re.fullmatch(r"-[\d_]*\.?[\d_]*", n)),   # numbers: see below
       which=st.integers(0, len(DASH_COMMANDS) - 1))
def test_a_file_name_that_starts_with_a_dash(capsys, name, which):
    """``--data -x.txt`` was argparse's "expected one argument", without a word of the file
    named ``-x.txt`` that it read as an option."""
    argv, long_form = DASH_COMMANDS[which]
    rc, _, err = run_cli([*argv, name], capsys)
    assert one_line_error(rc, err, "expected", f"./{name}"), err
    assert long_form is None or f"{long_form}{name}" in err


@SETTINGS
@given(value=st.builds("-{}e{}".format, st.integers(0, 99), st.integers(-9, 9)))
def test_a_negative_number_with_an_exponent(capsys, value):
    """argparse reads ``-1e-3`` as an option (only ``-1``, ``-0.5`` as numbers)."""
    rc, _, err = run_cli(["align", "unsupervised", "--src", "a", "--tgt", "b",
                          "--eflomal-weight", value], capsys)
    assert one_line_error(rc, err, f"write --eflomal-weight={value}") and "./" not in err, err


def test_a_missing_value_before_an_option_gets_no_file_hint(capsys):
    rc, _, err = run_cli(["tag", "predict", "-m", "m.npz", "--data", "-", "-o", "-q"], capsys)
    assert one_line_error(rc, err, "expected one argument") and "./" not in err, err


@SETTINGS
@given(value=st.one_of(st.integers(10 ** 7 + 1, 10 ** 30), st.integers(-10 ** 30, -1)))
def test_prefix_out_of_range_names_the_option(capsys, value):
    """``align unsupervised --prefix 99999999999`` was "prefix must be an integer from 0 to
    10,000,000" (the estimator's parameter, not the option)."""
    rc, _, err = run_cli(["align", "unsupervised", "--src", "a", "--tgt", "b",
                          "--prefix", str(value)], capsys)
    assert one_line_error(rc, err, "argument --prefix"), err


# ------------------------------------------ class: streams without line ends (/dev/zero)
class _Endless(io.RawIOBase):
    """``/dev/zero`` (or another byte forever), failing the test after 64 MB read."""

    def __init__(self, byte):
        self.byte, self.read_so_far = byte, 0

    def readable(self):
        return True

    def readinto(self, buf):
        self.read_so_far += len(buf)
        assert self.read_so_far < 64 << 20, "read on and on: the line was never checked"
        buf[:] = self.byte * len(buf)
        return len(buf)


@SETTINGS
@given(which=st.sampled_from([["aer", "--gold", "-", "--test", "TEST"],
                              ["aer", "--gold", "TEST", "--test", "-"],
                              ["aer", "--gold", "-", "--test", "TEST", "--gold-format", "naacl"]]),
       chunk=st.sampled_from([1 << 12, 1 << 16]))
def test_a_stream_of_nul_bytes_without_line_ends(tmp_path_factory, monkeypatch, capsys, which,
                                                 chunk):
    """``--data - < /dev/zero`` was read until the memory ran out ("out of memory: the sizes
    asked for do not fit"): the NUL bytes were looked for once the line had ended."""
    d = tmp_path_factory.mktemp("zero")
    (d / "test.txt").write_text("0-0\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Endless(b"\0"))))
    monkeypatch.setattr("structpred.io._files._CHUNK", chunk)
    rc, _, err = run_cli([str(d / "test.txt") if a == "TEST" else a for a in which], capsys)
    assert one_line_error(rc, err, "-:1", "NUL byte"), err


# ----------------------------------------- class: standard input named in the messages
@SETTINGS
@given(line=st.integers(1, 5), fmt=st.sampled_from(["tsv", "jsonl", "csv", None]))
def test_topics_names_standard_input_as_the_other_commands_do(tmp_path_factory, monkeypatch,
                                                              capsys, line, fmt):
    """``topics --data -`` named standard input ``<stdin>`` (``<stdin>:2: bad encoding``),
    every other command ``-`` (``-:2: bad encoding``, ``-: standard input is closed``)."""
    good = {"tsv": "a\tthe cat\n", "jsonl": '{"label": "a", "text": "the cat"}\n',
            "csv": "a,the cat\n", None: ""}[fmt]
    head = "label,text\n" if fmt == "csv" else ""
    data = (head + good * (line - 1 - bool(head))).encode() + b"\xff\n" if fmt else b"x\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out = tmp_path_factory.mktemp("stdin") / "m.npz"
    rc, _, err = run_cli(["topics", "train", "--data", "-", "-o", str(out)]
                         + (["--format", fmt] if fmt else []), capsys)
    assert one_line_error(rc, err, "-:" if fmt else "-: cannot tell"), err
    assert "<stdin>" not in err


# ------------------------------------------------- class: decimals below the smallest float
UNDERFLOW = st.builds("{}{}{}e-{}".format, st.sampled_from(["", "-", "+"]),
                      st.sampled_from(["1", "9", "0.5", "3.25", "１"]),
                      st.sampled_from(["", "0"]), st.integers(330, 99999))


@SETTINGS
@given(text=UNDERFLOW, option=st.sampled_from([("align", "train", "--c-pos"),
                                               ("align", "train", "--possible-cost"),
                                               ("segment", "train", "--tol"),
                                               ("topics", "train", "--time-budget"),
                                               ("align", "unsupervised", "--threshold")]))
def test_decimals_below_the_smallest_float(capsys, text, option):
    """``--c-pos 1e-400`` read as 0 (a cost of 0, with exit 0): a decimal whose digits are
    not all 0 that a float cannot hold is refused naming the option."""
    from structpred.cli import finite_float, nonneg_float, positive_float

    for parse in (finite_float, nonneg_float, positive_float):
        with pytest.raises(Exception, match="too small for a float"):
            parse(text)
    rc, _, err = run_cli([*option[:2], f"{option[2]}={text}"], capsys)
    assert one_line_error(rc, err, f"argument {option[2]}", "too small for a float"), err
    if text.startswith("-"):   # argparse reads '-1e-400' after a space as an option
        rc, _, err = run_cli([*option[:2], option[2], text], capsys)
        assert one_line_error(rc, err, f"write {option[2]}={text}"), err


@pytest.mark.parametrize("text", ["0", "0.0", "-0", "0e5", "5e-324"])
def test_zero_and_the_smallest_float_are_numbers(text):
    from structpred.cli import nonneg_float

    assert nonneg_float(text) == float(text)


# -------------------------------------------------- class: manifests of other separators
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sep=st.sampled_from([";", "\t"]), extra=st.booleans(), first=st.booleans(),
       bom=st.booleans())
def test_manifests_separated_by_semicolons_or_tabs(horses, tmp_path_factory, capsys, sep,
                                                   extra, first, bom):
    """A manifest ``id;split`` (a spreadsheet's CSV in a locale of decimal commas) or
    ``id<TAB>split`` was "manifest needs an 'id' (or 'image') column"."""
    d = tmp_path_factory.mktemp("manifest")
    cols = (["split", "id"] if first else ["id", "split"]) + (["width"] if extra else [])
    rows = [sep.join(cols)] + [sep.join({"id": i, "split": "test", "width": "1,5"}[c]
                                        for c in cols) for i in IDS]
    (d / "m.csv").write_text(("\ufeff" if bom else "") + "\n".join(rows) + "\n")
    rc, _, err = run_cli(["segment", "predict", "-m", str(horses / "model.npz"), "--manifest",
                          str(d / "m.csv"), "--image-dir", str(horses / "images"),
                          "--split", "test", "-o", str(d / "out"), "-q"], capsys)
    assert rc == 0, err
    assert sorted(os.listdir(d / "out")) == sorted(f"{i}.png" for i in IDS)


def test_an_ole_file_is_named(tmp_path, capsys):
    """An Office 97-2003 document (or a Windows ``Thumbs.db``) given as text."""
    (tmp_path / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64)
    rc, _, err = run_cli(["aer", "--gold", str(tmp_path / "Thumbs.db"), "--test",
                          str(tmp_path / "Thumbs.db")], capsys)
    assert one_line_error(rc, err, "Thumbs.db", "an OLE file"), err


# ----------------------------------------------------- class: codecs that are no encodings
@SETTINGS
@given(name=st.sampled_from(["rot13", "rot_13", "base64", "hex", "zlib", "bz2", "uu",
                             "quopri", "idna", "punycode", "unicode_escape",
                             "raw_unicode_escape"]))
def test_codecs_of_python_that_are_no_file_encodings(tmp_path_factory, capsys, name):
    """``--encoding rot13`` (base64, hex) was "does not write line ends ... (iconv -f rot13
    -t utf-8)", and ``raw_unicode_escape``, ``idna`` were accepted: the first turned the
    letters ``\\u00e9`` of a text into ``é``."""
    d = tmp_path_factory.mktemp("codec")
    (d / "l.txt").write_text("0-0 1-1\n")
    rc, _, err = run_cli(["aer", "--gold", str(d / "l.txt"), "--test", str(d / "l.txt"),
                          "--encoding", name], capsys)
    assert one_line_error(rc, err, "--encoding", "not the encoding of a file"), err


@pytest.mark.parametrize("name", ["utf-8-sig", "UTF_8_SIG"])
def test_utf_8_with_a_signature_is_utf_8(tmp_path, capsys, name):
    """``--encoding utf-8-sig`` was refused as not writing line ends as single bytes."""
    (tmp_path / "l.txt").write_bytes(b"\xef\xbb\xbf0-0 1-1\n")
    rc, out, err = run_cli(["aer", "--gold", str(tmp_path / "l.txt"), "--test",
                            str(tmp_path / "l.txt"), "--encoding", name], capsys)
    assert rc == 0 and "AER 0.00%" in out, err


# ------------------------------------------ class: archives of other programs as models
@SETTINGS
@given(value=st.sampled_from([{"x": 1}, [1, 2], "text", None]),
       command=st.sampled_from([["tag", "predict", "--data", "D"],
                                ["topics", "predict", "--data", "D"],
                                ["align", "predict", "--src", "D", "--tgt", "E"],
                                ["segment", "predict", "--images", "D", "-o", "OUT"]]))
def test_a_model_of_pickled_objects(tmp_path_factory, capsys, value, command):
    """An ``.npz`` holding Python objects (``np.savez`` of object arrays, another program's
    file) was "corrupt or truncated ... (Object arrays cannot be loaded when
    allow_pickle=False)": it is neither, and it is never unpickled."""
    d = tmp_path_factory.mktemp("pickled")
    np.savez(d / "m.npz", a=np.array([value], dtype=object))
    (d / "d.txt").write_text("a\n")
    (d / "e.txt").write_text("b\n")
    names = {"D": str(d / "d.txt"), "E": str(d / "e.txt"), "OUT": str(d / "out")}
    argv = command[:2] + ["-m", str(d / "m.npz")] + [names.get(a, a) for a in command[2:]]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "m.npz", "pickled Python objects"), err
    assert "corrupt" not in err and "allow_pickle" not in err


# ------------------------------------------ class: the standard streams named as files
@SETTINGS
@given(path=st.sampled_from(["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2",
                             "/proc/self/fd/1", "/proc/self/fd/2"]),
       command=st.sampled_from(["segment", "aer", "tag"]))
def test_standard_streams_named_as_output_files(horses, tmp_path_factory, capsys, path,
                                                command):
    """``-o /dev/stdout`` was "a symbolic link is not replaced by a file; give the path it
    points to, or remove the link": the way to standard output is ``-o -``."""
    d = tmp_path_factory.mktemp("streams")
    (d / "l.txt").write_text("0-0\n")
    (d / "s.txt").write_text("a b\n")
    (d / "t.txt").write_text("c d\n")
    argv = {"segment": ["segment", "train", "--images", str(horses / "images"), "--masks",
                        str(horses / "masks"), "-o", path],
            "aer": ["aer", "--gold", str(d / "l.txt"), "--test", str(d / "l.txt"), "--src",
                    str(d / "s.txt"), "--tgt", str(d / "t.txt"), "--plot", path],
            "tag": ["tag", "train", "--data", str(d / "s.txt"), "-o", path]}[command]
    rc, _, err = run_cli(argv, capsys)
    which = "output" if path.endswith(("1", "stdout")) else "error"
    assert one_line_error(rc, err, path, f"names standard {which}"), err


# ------------------------------------- class: read errors of the device (input/output error)
@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="Linux's /proc")
@SETTINGS
@given(command=st.sampled_from([["aer", "--gold", "BAD", "--test", "OK"],
                                ["aer", "--gold", "OK", "--test", "BAD"],
                                ["tag", "predict", "-m", "BAD", "--data", "OK"],
                                ["topics", "train", "--data", "BAD", "--format", "tsv",
                                 "-o", "OUT"],
                                ["segment", "train", "--points", "BAD", "-o", "OUT",
                                 "--foreground-labels", "1"]]))
def test_a_file_that_fails_to_read(tmp_path_factory, capsys, command):
    """A read that fails with EIO (a failing disk; ``/proc/self/mem`` at offset 0) was
    "standard output: input/output error": taken for a failed write of the results."""
    d = tmp_path_factory.mktemp("eio")
    (d / "ok.txt").write_text("0-0\n")
    names = {"BAD": "/proc/self/mem", "OK": str(d / "ok.txt"), "OUT": str(d / "o.npz")}
    rc, _, err = run_cli([names.get(a, a) for a in command], capsys)
    assert one_line_error(rc, err, "/proc/self/mem", "input/output error"), err
    assert "standard output" not in err


# ----------------------------------------------------- class: a number listed twice
@SETTINGS
@given(numbers=st.lists(st.integers(1, 5), min_size=2, max_size=5).filter(
           lambda v: len(set(v)) < len(v)))
def test_a_sentence_listed_twice(tmp_path_factory, capsys, numbers):
    """``aer --sentences 1,1`` drew the grid of sentence 1 twice, with exit 0."""
    d = tmp_path_factory.mktemp("twice")
    for name, text in (("l.txt", "0-0\n" * 5), ("s.txt", "a\n" * 5), ("t.txt", "b\n" * 5)):
        (d / name).write_text(text)
    rc, _, err = run_cli(["aer", "--gold", str(d / "l.txt"), "--test", str(d / "l.txt"),
                          "--src", str(d / "s.txt"), "--tgt", str(d / "t.txt"), "--plot",
                          str(d / "g.png"), "--sentences", ",".join(map(str, numbers))],
                         capsys)
    assert one_line_error(rc, err, "--sentences", "given twice"), err
    assert not (d / "g.png").exists()


# ------------------------------------------ class: one field for the label and the text
@SETTINGS
@given(field=st.sampled_from(["text", "label", "body", "stars"]),
       more=st.lists(st.sampled_from(["title", "summary"]), max_size=2, unique=True),
       first=st.booleans())
def test_json_lines_one_field_for_label_and_text(tmp_path_factory, capsys, field, more,
                                                 first):
    """``--label-field text --text-field text`` on JSON lines was refused only by its
    symptom (a label holding a line break, or every document a class of its own), while CSV
    named the field."""
    import json

    d = tmp_path_factory.mktemp("fields")
    rows = [{"text": f"doc {i}\nline two", "label": "ab"[i % 2], "body": f"b {i}",
             "stars": i % 2, "title": "t", "summary": "s"} for i in range(6)]
    (d / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    texts = [field, *more] if first else [*more, field]
    rc, _, err = run_cli(["topics", "train", "--data", str(d / "d.jsonl"), "--label-field",
                          field, "--text-field", ",".join(texts), "-o", str(d / "m.npz")],
                         capsys)
    assert one_line_error(rc, err, "d.jsonl", f"{field!r} is both the label and a text"), err


# --------------------------------------------- class: bytes appended to gzip data
@SETTINGS
@given(tail=st.binary(min_size=2, max_size=40).filter(lambda b: b[0] not in (0, 0x1f)),
       lines=st.integers(1, 4))
def test_bytes_appended_to_gzip_data(tmp_path_factory, capsys, tail, lines):
    """A gzip file with something appended was "corrupt or truncated gzip data (Not a gzipped
    file (b'ga'))", Python's words for the bytes after the end of the gzip data."""
    import gzip

    d = tmp_path_factory.mktemp("gzipped")
    (d / "l.txt.gz").write_bytes(gzip.compress(b"0-0\n" * lines) + tail)
    rc, _, err = run_cli(["aer", "--gold", str(d / "l.txt.gz"), "--test",
                          str(d / "l.txt.gz")], capsys)
    assert one_line_error(rc, err, f"l.txt.gz:{lines + 1}", "after the end of the gzip"), err
    assert "Not a gzipped" not in err


# ------------------------------------------- class: two scans whose predictions share a name
@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """A scan of the bundled Oakland data (every 60th point) and a point model."""
    import gzip

    from structpred.cli import main

    d = tmp_path_factory.mktemp("scans10")
    src = os.path.join(os.path.dirname(HORSES), "..", "oakland3d_part2",
                       "oakland_part2_01.xyz_label_conf.gz")
    with gzip.open(src, "rt") as fh:
        (d / "s.txt").write_text("".join(ln for k, ln in enumerate(fh) if k % 60 == 0))
    assert main(["segment", "train", "--points", str(d / "s.txt"), "--foreground-labels",
                 "1300-1306", "--iterations", "2", "-q", "-o", str(d / "pm.npz")]) == 0
    return d


@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(gz=st.booleans(), folder=st.sampled_from(["a", "a/b"]))
def test_two_scans_of_one_name(scans, tmp_path_factory, capsys, gz, folder):
    """``--points a/s.txt b/s.txt`` (or ``b/s.txt.gz``) wrote both predictions to
    ``s.txt.pred.txt``, the second replacing the first, and said "predictions for 2 scans"."""
    import gzip

    d = tmp_path_factory.mktemp("two")
    (d / folder).mkdir(parents=True)
    data = (scans / "s.txt").read_bytes()
    other = d / folder / ("s.txt.gz" if gz else "s.txt")
    other.write_bytes(gzip.compress(data) if gz else data)
    rc, _, err = run_cli(["segment", "predict", "-m", str(scans / "pm.npz"), "--points",
                          str(scans / "s.txt"), str(other), "-o", str(d / "out")], capsys)
    assert one_line_error(rc, err, str(other), "s.txt.pred.txt", "separate -o"), err
    assert not (d / "out").exists()


# -------------------------------------------- class: text in Windows-1252 (curly quotes)
@SETTINGS
@given(byte=st.integers(0x80, 0x9F).filter(lambda b: bytes([b]).decode("cp1252", "replace")
                                            != "\ufffd"),
       before=st.text("abc ", max_size=5))
@example(byte=0x85, before="")      # NEL in Latin-1: white space, refused on another path
def test_windows_1252_bytes_get_the_cp1252_hint(tmp_path_factory, capsys, byte, before):
    """A byte 0x80-0x9F (Windows-1252's curly quotes and dashes) was hinted as Latin-1, and
    ``--encoding latin-1`` then refused the control character U+0093 it reads as."""
    d = tmp_path_factory.mktemp("cp1252")
    (d / "l.txt").write_bytes(b"0-0 " + before.encode() + bytes([byte]) + b"\n")
    rc, _, err = run_cli(["aer", "--gold", str(d / "l.txt"), "--test", str(d / "l.txt")],
                         capsys)
    assert one_line_error(rc, err, "--encoding cp1252") and "latin-1" not in err, err
    rc, _, err = run_cli(["aer", "--gold", str(d / "l.txt"), "--test", str(d / "l.txt"),
                          "--encoding", "latin-1"], capsys)
    assert one_line_error(rc, err, "U+00", "--encoding cp1252"), err


@SETTINGS
@given(word=st.sampled_from(["ALL", "All", "aLl", " all "]))
def test_the_keyword_all_in_any_case(tmp_path_factory, capsys, word):
    """``align compare --bitext-pairs ALL`` was "expected a number or 'all'", while
    ``--stop-words English`` is the keyword ``english``."""
    d = tmp_path_factory.mktemp("nodata")
    rc, _, err = run_cli(["align", "compare", "--bitext-pairs", word, "--data-dir", str(d)],
                         capsys)
    assert one_line_error(rc, err, "missing") and "bitext-pairs" not in err, err
