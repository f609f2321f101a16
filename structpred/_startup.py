"""Ctrl-C while the ``structpred`` command is still starting.

Importing the package (numpy, numba, scipy) takes seconds; a Ctrl-C then arrives before
:func:`structpred.cli.main` has installed its handlers, and Python would print a
traceback.  When the process runs as the command (the ``structpred`` script or
``python -m structpred``), :func:`install` makes an uncaught ``KeyboardInterrupt`` one
line and exit status 130 (SIGTERM: 143), as it is once the command runs.  A program that imports
:mod:`structpred` as a library is left alone, but for ``NUMBA_*`` variables that numba
cannot use (:func:`check_import_environment`).
"""

from __future__ import annotations

import os
import sys

__all__ = ["install", "running_as_command", "Terminated", "interrupt_in_chain",
           "NumbaEnvironmentError", "check_import_environment"]


def running_as_command():
    """Whether this process is the ``structpred`` command line."""
    if sys.argv and os.path.basename(sys.argv[0]) in ("structpred", "structpred.exe"):
        return True
    orig = list(getattr(sys, "orig_argv", ()))
    return "-m" in orig and orig[orig.index("-m") + 1:orig.index("-m") + 2] == ["structpred"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every clean-up (temporary files of
    :func:`structpred.io.atomic_write`, worker threads) runs; exit status 143."""


def _on_term(signum, frame):
    raise Terminated()


def interrupt_in_chain(exc, depth=20):
    """The ``KeyboardInterrupt`` that caused ``exc`` (``exc`` itself, or one in its chain of
    causes and contexts), or ``None``.  Python wraps an interrupt that lands in some
    places: an import's ``__set_name__`` turns it into a ``RuntimeError``, numba's
    dispatcher into a ``SystemError``."""
    while exc is not None and depth > 0:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        exc, depth = exc.__cause__ or exc.__context__, depth - 1
    return None


def _hook(exc_type, exc, tb, previous=sys.excepthook):
    interrupt = interrupt_in_chain(exc)
    if interrupt is not None:
        term = isinstance(interrupt, Terminated)
        try:
            sys.stderr.write(f"structpred: {'terminated' if term else 'interrupted'}\n")
            sys.stderr.flush()
        finally:
            os._exit(143 if term else 130)
    previous(exc_type, exc, tb)


#: thread counts that the libraries read from the environment when they are imported:
#: numba's (0 or -1 was a traceback of its import, ``abc`` a warning of eight lines) and
#: OpenMP's (libgomp printed "Invalid value for environment variable OMP_NUM_THREADS")
THREAD_VARIABLES = {"NUMBA_NUM_THREADS": "a whole number >= 1",
                    "OMP_NUM_THREADS": "whole numbers >= 1, separated by commas"}


def check_environment(environ=os.environ):
    """The one-line refusal of a thread count of :data:`THREAD_VARIABLES` that the library
    reading it cannot parse, or ``None``."""
    for name, what in THREAD_VARIABLES.items():
        value = environ.get(name)
        if value is None:
            continue
        items = value.split(",") if name == "OMP_NUM_THREADS" else [value]
        if not all(v.strip().isascii() and v.strip().isdigit() and int(v) >= 1
                   for v in items):
            return (f"${name}: must be {what}, got {value!r} (set it so, or unset it: the "
                    "default is the CPUs)")
    return None


class NumbaEnvironmentError(ImportError):
    """A ``NUMBA_*`` variable numba cannot use, found when a program imports the toolkit."""


def check_import_environment(environ=os.environ):
    """For a program that imports the toolkit as a library: :class:`NumbaEnvironmentError`
    (an ``ImportError``) naming the first ``NUMBA_*`` variable of ``environ`` that numba
    cannot use and its value, raised before numba is imported by the toolkit (numba's own
    import warned in nine lines and went on with its default, an LLVM assertion aborted
    the process at the first compilation, ...).  Nothing is imported without a
    ``NUMBA_*`` variable."""
    numba_vars = {k: v for k, v in environ.items() if k.startswith("NUMBA_")}
    if not numba_vars:
        return
    from ._numba_env import check_numba_environment

    refusal = check_environment(numba_vars) or check_numba_environment(environ)
    if refusal is not None:
        raise NumbaEnvironmentError(refusal)


def install():
    """Make an uncaught Ctrl-C (SIGTERM) one line and status 130 (143) when running as the
    command; refuse thread counts in the environment that the libraries cannot read, and
    ``NUMBA_*`` variables that numba cannot use (:mod:`structpred._numba_env`): in one line
    for the command, by :func:`check_import_environment` for a program importing it."""
    if running_as_command():
        from ._numba_env import check_numba_environment

        refusal = check_environment() or check_numba_environment()
        if refusal is not None:
            sys.stderr.write(f"structpred: error: {refusal}\n")
            raise SystemExit(2)
    else:
        check_import_environment()
    if running_as_command() and sys.excepthook is sys.__excepthook__:
        import signal

        sys.excepthook = _hook
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_term)
