"""Outputs by the kind of path (issue 28, class 2): only regular files or new paths are
written; a device, a FIFO, a symbolic link or a folder is refused in one line before any
work, and again by the writer itself (:func:`structpred.io._outputs.check_output_path`, the
one place every writer checks); ``NAME.npz.gz`` is refused before any work; a ``.gz``
text output is written gzipped; SIGTERM removes the temporary file."""

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred.cli import UserError, check_output, main
from structpred.io import atomic_write
from structpred.io import OutputPathError, check_output_path

ROOT = Path(__file__).resolve().parent.parent
H = ROOT / "data" / "hansards"

KINDS = ["new", "regular", "symlink", "dangling-symlink", "fifo", "folder", "device",
         "npz.gz", "txt.gz", "new-folder"]


def _make(kind, d):
    """A path of the given kind in ``d``; returns (path, whether it may be written)."""
    if kind == "new":
        return d / "out.txt", True
    if kind == "new-folder":
        return d / "sub" / "out.txt", True
    if kind == "regular":
        (d / "out.txt").write_text("old\n")
        return d / "out.txt", True
    if kind == "symlink":
        (d / "target.txt").write_text("old\n")
        os.symlink(d / "target.txt", d / "out.txt")
        return d / "out.txt", False
    if kind == "dangling-symlink":
        os.symlink(d / "nowhere.txt", d / "out.txt")
        return d / "out.txt", False
    if kind == "fifo":
        os.mkfifo(d / "out.txt")
        return d / "out.txt", False
    if kind == "folder":
        (d / "out.txt").mkdir()
        return d / "out.txt", False
    if kind == "device":
        return Path(os.devnull), False
    if kind == "npz.gz":
        return d / "model.npz.gz", False
    if kind == "txt.gz":
        return d / "out.txt.gz", True
    raise AssertionError(kind)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), n=st.integers(0, 10 ** 6))
def test_the_writer_writes_regular_files_and_new_paths_only(kind, n, tmp_path_factory):
    d = tmp_path_factory.mktemp("kind")
    path, ok = _make(kind, d)
    before = {p.name: p.lstat().st_mode for p in d.iterdir()}
    if not ok:
        with pytest.raises(OutputPathError) as info:
            with atomic_write(path) as fh:
                fh.write("new\n")
        assert str(path) in str(info.value) and "\n" not in str(info.value)
        assert {p.name: p.lstat().st_mode for p in d.iterdir()} == before   # nothing touched
        with pytest.raises(UserError, match="not written|is a folder"):
            check_output(str(path), "-o")
        return
    check_output(str(path), "-o", create_parent=True)
    with atomic_write(path) as fh:
        fh.write(f"new {n}\n")
    raw = path.read_bytes()
    text = gzip.decompress(raw).decode() if kind == "txt.gz" else raw.decode()
    assert text == f"new {n}\n"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_check_output_path_names_the_option():
    with pytest.raises(OutputPathError, match=r"not written \(--stats\).*device"):
        check_output_path(os.devnull, "--stats")


@pytest.mark.parametrize("kind", ["symlink", "fifo", "device", "npz.gz"])
def test_align_train_refuses_the_output_before_reading_anything(kind, tmp_path, capsys):
    path, _ = _make(kind, tmp_path)
    rc = main(["align", "train", "--src", str(H / "test.en.gz"), "--tgt", str(H / "test.fr.gz"),
               "--gold", str(H / "test.naacl.gz"), "--stats", str(tmp_path / "none.npz"),
               "-q", "-o", str(path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "not written (-o)" in err[0], err


def test_stats_cache_named_npz_gz_is_refused_before_any_work(tmp_path, capsys):
    rc = main(["align", "train", "--src", str(H / "test.en.gz"), "--tgt", str(H / "test.fr.gz"),
               "--gold", str(H / "test.naacl.gz"), "--stats", str(tmp_path / "x.npz.gz"),
               "-q", "-o", str(tmp_path / "m.npz")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "x.npz.gz" in err[0] and "drop the .gz" in err[0], err


@pytest.mark.subprocess
def test_sigterm_while_writing_leaves_no_temporary_file(tmp_path):
    """A writer stopped by SIGTERM inside ``atomic_write``: status 143, one line, no file."""
    code = ("import sys, time\n"
            "from structpred.cli import main\n"
            "import structpred.cli._main as m\n"
            "from structpred.io import atomic_write\n"
            "def slow(args):\n"
            "    with atomic_write(sys.argv[1]) as fh:\n"
            "        fh.write('x'); fh.flush(); print('writing', file=sys.stderr, flush=True)\n"
            "        time.sleep(60)\n"
            "    return 0\n"
            "class A: debug = False; quiet = True; handler = staticmethod(slow)\n"
            "m.build_parser = lambda argv: type('P', (), {'parse_args': lambda s, a: A(), "
            "'error': print})()\n"
            "m.subcommands = lambda: {'x': None}\n"
            "sys.exit(m.main(['x']))\n")
    out = tmp_path / "out.txt"
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr.readline().strip() == "writing"
    time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=30)
    err = proc.stderr.read()
    assert rc == 143 and err.strip() == "structpred: terminated", err
    assert not list(tmp_path.iterdir())
