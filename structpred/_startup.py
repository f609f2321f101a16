"""Ctrl-C while the ``structpred`` command is still starting.

Importing the package (numpy, numba, scipy) takes seconds; a Ctrl-C then arrives before
:func:`structpred.cli.main` has installed its handlers, and Python would print a
traceback.  When the process runs as the command (the ``structpred`` script or
``python -m structpred``), :func:`install` makes an uncaught ``KeyboardInterrupt`` one
line and exit status 130, as it is once the command runs.  A program that imports
:mod:`structpred` as a library is left alone.
"""

from __future__ import annotations

import os
import sys

__all__ = ["install", "running_as_command"]


def running_as_command():
    """Whether this process is the ``structpred`` command line."""
    if sys.argv and os.path.basename(sys.argv[0]) in ("structpred", "structpred.exe"):
        return True
    orig = list(getattr(sys, "orig_argv", ()))
    return "-m" in orig and orig[orig.index("-m") + 1:orig.index("-m") + 2] == ["structpred"]


def _hook(exc_type, exc, tb, previous=sys.excepthook):
    if issubclass(exc_type, KeyboardInterrupt):
        try:
            sys.stderr.write("structpred: interrupted\n")
            sys.stderr.flush()
        finally:
            os._exit(130)
    previous(exc_type, exc, tb)


def install():
    """Make an uncaught Ctrl-C one line and status 130 when running as the command."""
    if running_as_command() and sys.excepthook is sys.__excepthook__:
        sys.excepthook = _hook
