"""What every subcommand shares: the error type, the help formatter, logging."""

from __future__ import annotations

import argparse
import functools
import sys

from ..io import FormatError

__all__ = ["UserError", "HelpFormatter", "add_quiet", "log", "wrap_format_errors"]


class UserError(Exception):
    """An error caused by the user's input: printed as one line, exit status 2."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Keep the examples' line breaks and show the defaults that carry information."""

    def _get_help_string(self, action):
        if action.default in (None, False, argparse.SUPPRESS) or action.help is None:
            return action.help
        return super()._get_help_string(action) if action.help else "(default: %(default)s)"


def add_quiet(p):
    """``-q/--quiet``: no progress bars or chatter (never hides the result summary)."""
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars or chatter")


def log(args, msg):
    """Print a log line to stderr unless ``--quiet``."""
    if not getattr(args, "quiet", False):
        print(msg, file=sys.stderr, flush=True)


def wrap_format_errors(func):
    """Turn file-format and missing-file errors raised by ``func(args)`` into :class:`UserError`."""

    @functools.wraps(func)
    def inner(args):
        try:
            return func(args)
        except (FormatError, FileNotFoundError, IsADirectoryError) as exc:
            raise UserError(str(exc)) from exc

    return inner
