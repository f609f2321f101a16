"""What the command-line tests share: run ``structpred`` in-process and recognise the
one-line refusal every command gives for bad input."""

import os
import time

from structpred.cli import main


def run_cli(argv, capsys):
    """``main(argv)`` in-process: ``(status, stdout, stderr)``, argparse's exits included."""
    capsys.readouterr()
    try:
        rc = main(argv)
    except SystemExit as exc:   # argparse's errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def run_cli_io(argv):
    """``main(argv)`` in-process with its own capture of the standard streams (for tests
    under hypothesis, where the ``capsys`` fixture is not reset between examples):
    ``(status, stdout, stderr)``."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = main(argv)
        except SystemExit as exc:   # argparse's errors
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def one_line_error(rc, err, *words):
    """Status 2 and exactly one ``structpred: error:`` line holding every one of ``words``."""
    lines = err.strip().splitlines()
    return (rc == 2 and len(lines) == 1 and lines[0].startswith("structpred: error: ")
            and all(w in lines[0] for w in words))


SPELLINGS = ("same", "dot", "absolute", "link", "dotdot")


def other_spelling(path, how, folder):
    """``path`` (an existing file) named another way, ``how`` one of :data:`SPELLINGS`:
    as given, relative with ``./``, absolute, through a symbolic link made in ``folder``,
    or through ``folder/sub/..``."""
    import os
    from pathlib import Path

    path, folder = Path(path), Path(folder)
    if how == "dot":
        return os.path.join(".", os.path.relpath(path))
    if how == "absolute":
        return os.path.abspath(path)
    if how == "link":
        link = folder / f"link-to-{path.name}"
        if not link.exists():
            link.symlink_to(path.resolve())
        return str(link)
    if how == "dotdot":
        (folder / "sub").mkdir(exist_ok=True)
        return str(folder / "sub" / ".." / path.name)
    return str(path)


#: twelve labelled one-line documents of two topics (``label<TAB>text``), for the topics
#: commands in the unusual-input tests
DOCS = "".join(f"{label}\t{text}\n" for label, text in [
    ("pets", "the cat sat on the mat"), ("money", "stocks fell on the market today"),
    ("pets", "dogs chase cats in the park"), ("money", "the bank raised interest rates")] * 3)


def docs_model(folder):
    """The path of a model (``nbsvm``) trained on :data:`DOCS`, written in ``folder``."""
    (folder / "docs.tsv").write_text(DOCS)
    assert main(["topics", "train", "--data", str(folder / "docs.tsv"), "--model", "nbsvm",
                 "--min-df", "1", "-q", "-o", str(folder / "m.npz")]) == 0
    return folder / "m.npz"


def group_alive(pgid, within=2.0):
    """Whether a process of the process group ``pgid`` (a command started with
    ``start_new_session=True``, and its workers) is still alive ``within`` seconds from
    now."""
    end = time.monotonic() + within
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        if time.monotonic() > end:
            return True
        time.sleep(0.05)
