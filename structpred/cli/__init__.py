"""The ``structpred`` command line (see :mod:`structpred.cli._main`).

:func:`main` dispatches to the subcommands that problem packages register in
the ``structpred.commands`` entry-point group; :class:`UserError`,
:class:`HelpFormatter`, :func:`add_quiet`, :func:`log`, :func:`wrap_format_errors`,
the option types (:func:`positive_int`, :func:`nonneg_int`, :func:`finite_float`,
:func:`positive_float`,
:func:`nonneg_float`, :func:`int_list`) and the output checks (:func:`check_output`,
:func:`check_stdin`) and the cluster options (:func:`add_cluster_options`,
:func:`cluster_from_args`, :func:`with_cluster`, :func:`open_cluster`) are what their
implementations share.
"""

from ._common import (ArgumentParser, HelpFormatter, UserError, add_quiet, check_output,
                      check_held_out, check_separate_folders, check_stdin, finite_float, int_at_least,
                      int_list, comma_items, at_most,
                      iteration_count, log,
                      jobs_count, nonneg_float, nonneg_int,
                      positive_float, positive_int, same_file, whole_number, wrap_format_errors,
                      options_given, record_option_defaults, refuse_options, seed_value)
from ._cluster import add_cluster_options, cluster_from_args, open_cluster, with_cluster
from ._main import build_parser, main, subcommands

__all__ = ["main", "build_parser", "subcommands", "UserError", "HelpFormatter", "add_quiet",
           "log", "wrap_format_errors", "ArgumentParser", "positive_int", "nonneg_int", "jobs_count",
           "int_at_least", "finite_float", "positive_float", "nonneg_float", "int_list", "comma_items", "at_most", "check_output", "check_stdin",
           "check_held_out", "check_separate_folders", "iteration_count", "same_file", "add_cluster_options", "cluster_from_args",
           "open_cluster",
           "with_cluster", "options_given", "record_option_defaults", "refuse_options",
           "seed_value", "whole_number"]
