"""The ``structpred`` command line (see :mod:`structpred.cli._main`).

:func:`main` dispatches to the subcommands that problem packages register in
the ``structpred.commands`` entry-point group; :class:`UserError`,
:class:`HelpFormatter`, :func:`add_quiet`, :func:`log` and
:func:`wrap_format_errors` are what their implementations share.
"""

from ._common import HelpFormatter, UserError, add_quiet, log, wrap_format_errors
from ._main import build_parser, main, subcommands

__all__ = ["main", "build_parser", "subcommands", "UserError", "HelpFormatter", "add_quiet",
           "log", "wrap_format_errors"]
