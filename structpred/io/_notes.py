"""Progress lines on standard error that never come before a refusal of the input.

A command reports what it read ("read 400 documents from ...") before it has checked all
of its input; a refusal found a moment later would then be its second line, not its only
one.  While a command runs, :func:`note` therefore *holds* its lines until
:func:`release_notes`: the command calls it once its inputs are checked and the work
begins (a progress bar drawn on a terminal releases them too), and the command line calls
it when the command ends normally.  A refusal calls :func:`drop_notes`, so that its one
line is all that standard error shows.  Outside a command (the Python API) nothing is
held: :func:`note` prints at once.
"""

from __future__ import annotations

import os
import sys

__all__ = ["note", "hold_notes", "release_notes", "drop_notes", "counted"]

#: the lines held back (``None``: none are held, :func:`note` prints at once)
_HELD: list | None = None


def one_line(message):
    """``message`` as one line: line breaks and other control characters (a file name
    with a newline in it) shown as escapes (``\\n``), so an error stays one line; a byte of a
    file name that the locale could not decode (``LC_ALL=C``) as that byte (``\\xc3``)."""
    return "".join(c if c.isprintable() or c == "\t" else
                   f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else
                   ascii(c)[1:-1] for c in message)


def counted(n, noun, plural=None):
    """``n`` and ``noun`` in the number ``n`` asks for: ``"1 sentence"``, ``"3 sentences"``,
    ``"1 sentence pair"``, ``counted(2, "class", "classes")`` (messages said "1 sentences")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _print(msg):
    try:
        print(msg, file=sys.stderr, flush=True)
    except (OSError, ValueError):   # standard error closed: the line is lost, not the run
        pass


def note(msg):
    """Print the line ``msg`` on standard error, or hold it while :func:`hold_notes` is
    in force; one line (:func:`one_line`: a file name holding a line break is shown with
    ``\\n``, as in the errors; "4 labels written to o" and "ut.txt" were two lines)."""
    msg = one_line(str(msg))
    if _HELD is not None:
        _HELD.append(msg)
    else:
        _print(msg)


def hold_notes():
    """Hold the lines of :func:`note` from now on (a command begins)."""
    global _HELD
    _HELD = []


def release_notes():
    """Print the lines held, in order, and print later ones at once (the inputs are
    checked: the work begins)."""
    global _HELD
    held, _HELD = _HELD, None
    for msg in held or ():
        _print(msg)


def drop_notes():
    """Forget the lines held, and print later ones at once (a refusal is the one line)."""
    global _HELD
    _HELD = None


def _forget_in_child():
    """A forked worker prints its own lines at once: the parent's held lines are the
    parent's to print (a copy released here would print them twice)."""
    global _HELD
    _HELD = None


os.register_at_fork(after_in_child=_forget_in_child)
