"""What the command-line tests share: run ``structpred`` in-process and recognise the
one-line refusal every command gives for bad input."""

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


def one_line_error(rc, err, *words):
    """Status 2 and exactly one ``structpred: error:`` line holding every one of ``words``."""
    lines = err.strip().splitlines()
    return (rc == 2 and len(lines) == 1 and lines[0].startswith("structpred: error: ")
            and all(w in lines[0] for w in words))
