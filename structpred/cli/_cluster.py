"""``--workers N`` and ``--scheduler ADDRESS``: where a subcommand's heavy work runs.

:func:`add_cluster_options` adds the two (mutually exclusive) options to a subcommand;
:func:`cluster_from_args` is a context manager that gives ``None`` (neither option: in
this process, as without a cluster) or a ``dask.distributed.Client``: of a
:class:`~distributed.LocalCluster` of ``N`` single-threaded worker processes started for
the command (and closed after it), or connected to the scheduler of an existing cluster.

A handler that checks its inputs first and starts the cluster only when the work begins
is decorated with :func:`with_cluster` and calls :func:`open_cluster` at that point: the
decorator refuses a missing dask before anything else, and closes the cluster when the
handler returns or fails.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging

from ..io import counted
from ..parallel import usable_cpus
from ._common import UserError, log, positive_int


__all__ = ["add_cluster_options", "cluster_from_args", "with_cluster", "open_cluster",
           "check_cluster_args", "DASK_HINT"]

#: what to install for the cluster options
DASK_HINT = "pip install 'structpred[dask]'"

#: seconds to wait for a connection to --scheduler
CONNECT_TIMEOUT = 30
#: seconds the client and the local cluster get to close after Ctrl-C or SIGTERM
INTERRUPTED_CLOSE = 0.5


def _address(text):
    """argparse ``type=``: a scheduler address such as ``tcp://10.0.0.5:8786``."""
    text = str(text).strip()
    if not text or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"must be a scheduler address such as "
                                         f"tcp://HOST:8786, got {text!r}")
    return text


def add_cluster_options(parser, what="the work"):
    """Add ``--workers N`` and ``--scheduler ADDRESS`` (one or the other) to ``parser``."""
    g = parser.add_argument_group("cluster (dask.distributed; default: this process)")
    m = g.add_mutually_exclusive_group()
    m.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help=f"run {what} on a local Dask cluster of N single-threaded worker "
                        f"processes (needs {DASK_HINT})")
    m.add_argument("--scheduler", type=_address, default=None, metavar="ADDRESS",
                   help=f"run {what} on an existing Dask cluster, e.g. tcp://HOST:8786")
    return g


def _import_distributed(option):
    try:
        import distributed
    except ImportError:
        raise UserError(f"{option} needs dask: {DASK_HINT}") from None
    return distributed


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextlib.contextmanager
def cluster_from_args(args):
    """``None`` without ``--workers``/``--scheduler``; else a ``dask.distributed.Client``,
    closed (with the local cluster it started) when the block ends."""
    workers = getattr(args, "workers", None)
    address = getattr(args, "scheduler", None)
    if workers is not None and address is not None:
        raise UserError("give --workers or --scheduler, not both")
    if workers is None and address is None:
        yield None
        return
    option = "--workers" if workers is not None else "--scheduler"
    distributed = _import_distributed(option)
    cluster = client = None
    closing = {}
    try:
        if workers is not None:
            try:
                # no more worker processes than CPUs: 'align predict --workers 100000' started
                # processes for minutes and ended in a traceback (the results are the same)
                n = min(int(workers), usable_cpus())
                if n < int(workers):
                    log(args, f"note: --workers {workers}: this process may use "
                              f"{counted(n, 'CPU')}; starting {counted(n, 'worker')}")
                # the cluster's own log records are not the user's business (a task's
                # error comes back as its exception); an ERROR record of a worker that
                # lost the scheduler, as a Ctrl-C stopped it, printed a traceback
                cluster = distributed.LocalCluster(n_workers=n,
                                                   threads_per_worker=1,
                                                   processes=True, dashboard_address=":0",
                                                   silence_logs=logging.CRITICAL)
            except Exception as exc:  # noqa: BLE001 - one line for the user
                raise UserError(f"--workers {workers}: cannot start a local Dask cluster: "
                                f"{_first_line(exc)}") from exc
            client = distributed.Client(cluster)
        else:
            try:
                client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - one line for the user
                raise UserError(f"--scheduler {address}: cannot connect: "
                                f"{_first_line(exc)}") from exc
        yield client
    except KeyboardInterrupt:
        # Ctrl-C, SIGTERM: the user is waiting; the close is cut short, and the command
        # stops the worker processes left on its way out, which their nannies must not
        # start again (a worker spawned as the command left failed with a traceback)
        closing = {"timeout": INTERRUPTED_CLOSE}
        for nanny in list(getattr(cluster, "workers", {}).values()):
            with contextlib.suppress(Exception):
                nanny.close_gracefully(reason="interrupted")
        raise
    finally:
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(**closing)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(**closing)


def check_cluster_args(args):
    """Refuse, before any work, both options at once or a cluster option without dask."""
    workers = getattr(args, "workers", None)
    address = getattr(args, "scheduler", None)
    if workers is not None and address is not None:
        raise UserError("give --workers or --scheduler, not both")
    if workers is not None or address is not None:
        _import_distributed("--workers" if workers is not None else "--scheduler")


def with_cluster(func):
    """Decorate a handler ``func(args)`` that may call :func:`open_cluster`: the cluster
    options are checked first, and a cluster opened is closed when ``func`` ends."""

    @functools.wraps(func)
    def inner(args):
        check_cluster_args(args)
        with contextlib.ExitStack() as stack:
            args._cluster_stack = stack
            try:
                return func(args)
            finally:
                args._cluster_stack = None
                args._cluster_client = None

    return inner


def open_cluster(args):
    """The handler's executor: ``None`` without ``--workers``/``--scheduler``, else a
    ``dask.distributed.Client`` started (once) now and closed when the handler decorated
    with :func:`with_cluster` ends."""
    client = getattr(args, "_cluster_client", None)
    if client is not None:
        return client
    if getattr(args, "workers", None) is None and getattr(args, "scheduler", None) is None:
        return None
    stack = getattr(args, "_cluster_stack", None)
    if stack is None:
        raise RuntimeError("open_cluster() needs a handler decorated with with_cluster")
    args._cluster_client = stack.enter_context(cluster_from_args(args))
    return args._cluster_client
