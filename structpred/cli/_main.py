"""The ``structpred`` command line: a thin dispatcher over installed subcommands.

The core knows no problem.  Each problem package registers its subcommands in
the ``structpred.commands`` entry-point group of its distribution (see
``pyproject.toml``)::

    [project.entry-points."structpred.commands"]
    align = "alignment.cli:add_align_parser"

The object named is a function ``add(subparsers, name)`` that adds the parser
``name`` to ``subparsers`` and sets ``handler=func`` on every leaf, where
``func(args) -> int`` runs the command.  Only the chosen subcommand's package
is imported, so ``structpred --help`` and ``structpred --version`` stay fast
and import no problem package.

Conventions follow fast_align and eflomal: plain whitespace-tokenised text
in, Pharaoh ``i-j`` (0-based, source-target) out, one line per sentence.
User errors print one line ``structpred: error: ...`` and exit with status 2
(a traceback only with ``--debug``), argparse's own errors included; Ctrl-C
exits with status 130 and one line (run as a program, without waiting for the
interpreter's teardown), SIGTERM with 143, both after removing temporary files and
stopping the worker processes; a signal is never raised inside numba's dispatcher, and
never swallowed; a closed output pipe ends quietly.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import signal
import sys
import warnings
from importlib.metadata import entry_points

from .._startup import Terminated, interrupt_in_chain
from .._version import __version__
from ..io import drop_notes, hold_notes, input_encoding, note, release_notes
from ..io import terminal_stdin_notice
from ._common import (STDIN_NOTICE, TEXT_COMMANDS, ArgumentParser, HelpFormatter, UserError,
                      add_encoding, empty_option_values, one_line, os_error_line,
                      record_option_defaults)

__all__ = ["main", "build_parser", "subcommands"]

GROUP = "structpred.commands"


def subcommands():
    """The installed subcommands: ``{name: entry point}``, sorted by name."""
    eps = entry_points(group=GROUP)
    return {ep.name: ep for ep in sorted(eps, key=lambda e: e.name)}


def _chosen(argv):
    """The first non-option token of ``argv`` (the subcommand's name), or None."""
    for tok in argv:
        if not tok.startswith("-"):
            return tok
    return None


def build_parser(argv=None, load=None):
    """The ``structpred`` argument parser.

    Parameters
    ----------
    argv : list of str, optional
        The arguments about to be parsed: the subcommand they name is loaded
        in full.
    load : {"all"} or iterable of str, optional
        Further subcommands to load in full (``"all"`` for every one, which
        imports every problem package).  Subcommands not loaded are listed in
        ``--help`` from their entry points alone.
    """
    parser = ArgumentParser(
        prog="structpred", formatter_class=HelpFormatter,
        description="Discriminative structured prediction: max-margin word alignment, "
                    "min-cut segmentation and topic-model classifiers, trained by "
                    "Nesterov's dual extragradient.",
        epilog="Run 'structpred COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"structpred {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show Python tracebacks instead of one-line errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    cmds = subcommands()
    wanted = set(cmds) if load == "all" else set(load or ())
    if argv is not None:
        wanted.add(_chosen(argv))
    for name, ep in cmds.items():
        if name in wanted:
            ep.load()(sub, name)
            if name in TEXT_COMMANDS:
                add_encoding(sub.choices[name])
            record_option_defaults(sub.choices[name])
        else:
            package = ep.value.split(":")[0].split(".")[0]
            sub.add_parser(name, add_help=False, help=f"{package} (structpred {name} --help)")
    return parser


def _exit_now(status, exit_functions_within=None, last_line=None):
    """Exit at once, skipping the interpreter's teardown (a second or more with numba and
    scipy loaded): after Ctrl-C the user is waiting.  The command's own clean-up (partial
    files removed by :func:`structpred.atomic_write`) has already run as the
    ``KeyboardInterrupt`` went up the stack.

    ``exit_functions_within`` (seconds; after a signal): the exit functions run in a helper
    thread, and the process leaves when they end or when that time has passed, whatever
    they wait for (a queue's feeder thread writing to workers that are gone); children
    started meanwhile are stopped (:func:`_stop_child_processes`), and ``last_line`` is
    then printed on standard error."""
    # the exit functions are quick (a millisecond), and some remove temporary files
    # (matplotlib's configuration folder when $MPLCONFIGDIR or $HOME is unusable)
    if exit_functions_within is None:
        _run_exit_functions()
    else:
        import threading

        helper = threading.Thread(target=_run_exit_functions, daemon=True)
        helper.start()
        try:
            helper.join(exit_functions_within)
        except BaseException:  # noqa: BLE001 - a second Ctrl-C: leaving anyway
            pass
        # children started meanwhile (a Dask cluster still starting spawns its workers
        # from its own thread; one left would fail, with a traceback, once its parent is
        # gone): stopped too
        _stop_child_processes(exit_functions_within)
    if last_line is not None:
        with contextlib.suppress(Exception):
            print(last_line, file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(status)


def _run_exit_functions():
    """The exit functions, multiprocessing's finalizers first: they unlink the semaphores of
    the queues and locks made for spawned workers (a Dask cluster's), which otherwise
    multiprocessing's resource tracker reported as "leaked" after the command's last line
    (the other exit functions, Dask's among them, may not end within the time given)."""
    try:
        mp_util = sys.modules.get("multiprocessing.util")
        if mp_util is not None:
            mp_util._run_finalizers(0)
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - leaving anyway
        pass


#: seconds a worker process is given to end after SIGTERM, before SIGKILL
_CHILD_GRACE = 0.5


def _child_pids():
    """The process ids of this process's children, read from ``/proc`` (``None`` where
    there is no ``/proc``)."""
    me = os.getpid()
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return None
    pids = []
    for entry in entries:
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            # "pid (command) state ppid ...": the command may hold spaces and parentheses
            if int(stat[stat.rindex(b")") + 2:].split()[1]) == me:
                pids.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return pids


def _stop_child_processes(grace=_CHILD_GRACE):
    """Stop this process's children after a signal (the workers of its pools, the peers
    it runs): SIGTERM, then SIGKILL for those alive ``grace`` seconds later; each is
    reaped.  multiprocessing's resource tracker is left to end by itself (it unlinks the
    semaphores of the workers).

    The normal exit joins multiprocessing's workers, and waits forever for one that nobody
    will send work nor a sentinel: a pool whose start a Ctrl-C cut short (between two forks
    of ``ProcessPoolExecutor``, before its manager thread ran) leaves such a worker, waiting
    on the pool's queue; one forked just before the signal may not even be in
    multiprocessing's list yet, so the children are also read from ``/proc``."""
    import time

    mp = sys.modules.get("multiprocessing")
    try:
        known = list(mp.active_children()) if mp is not None else []
    except Exception:  # noqa: BLE001 - the others are still found below
        known = []
    tracker = getattr(getattr(sys.modules.get("multiprocessing.resource_tracker"),
                              "_resource_tracker", None), "_pid", None)
    skip = {child.pid for child in known} | {tracker}
    children = [_Child(process=c) for c in known]
    children += [_Child(pid=pid) for pid in (_child_pids() or ()) if pid not in skip]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for child in children:
            child.send(sig)
        deadline = time.monotonic() + grace
        while True:
            children = [child for child in children if child.alive()]
            if not children or time.monotonic() >= deadline:
                break
            time.sleep(0.01)
        if not children:
            return


class _Child:
    """A child process to stop: a ``multiprocessing`` process (its own bookkeeping is kept
    right), or a bare process id."""

    def __init__(self, process=None, pid=None):
        self.process, self.pid = process, pid

    def send(self, sig):
        with contextlib.suppress(Exception):
            if self.process is None:
                os.kill(self.pid, sig)
            elif sig == signal.SIGKILL:
                self.process.kill()
            else:
                self.process.terminate()

    def alive(self):
        """Whether it still runs (reaped when it has ended)."""
        try:
            if self.process is not None:
                return self.process.is_alive()
            return os.waitpid(self.pid, os.WNOHANG)[0] == 0
        except Exception:  # noqa: BLE001 - reaped already, or not ours: nothing to wait for
            return False


def _has_child_processes():
    """Whether multiprocessing workers are alive (the normal exit then stops them)."""
    mp = sys.modules.get("multiprocessing")
    try:
        return bool(mp is not None and mp.active_children())
    except Exception:  # noqa: BLE001 - when in doubt, take the normal, slower exit
        return True


#: the signal received during this run (``None``: none) and how often it was put off
_RECEIVED = {"signal": None, "deferred": 0, "forking": False, "held": None, "program": False}
_NUMBA_DIRS = (f"{os.sep}numba{os.sep}", f"{os.sep}llvmlite{os.sep}")
#: re-deliveries (20 ms apart) before the signal is raised wherever the program is
_MAX_DEFERRALS = 10


def _inside_numba(frame, depth=2):
    """Whether one of the innermost ``depth`` frames runs numba's own Python code (its
    dispatcher calls it from C: an exception raised there can come out as a
    ``SystemError``, or be lost)."""
    while frame is not None and depth > 0:
        if any(d in frame.f_code.co_filename for d in _NUMBA_DIRS):
            return True
        frame, depth = frame.f_back, depth - 1
    return False


def _on_signal(signum, frame):
    """SIGINT and SIGTERM: raise :class:`KeyboardInterrupt` (:class:`Terminated`) in the
    main thread, but not inside numba's dispatcher: there the signal is delivered again
    20 ms later, once the kernel call has returned (at most :data:`_MAX_DEFERRALS` times,
    so that it is raised within a fraction of a second whatever runs; the flag is kept,
    so that a run that somehow goes on still exits with 130/143)."""
    _RECEIVED["signal"] = signum
    if _RECEIVED["program"]:
        _quiet_libraries()
    if _RECEIVED["forking"]:   # inside os.fork's hooks, which print and drop an exception
        _RECEIVED["held"] = signum
        return
    if _inside_numba(frame) and _RECEIVED["deferred"] < _MAX_DEFERRALS:
        _RECEIVED["deferred"] += 1
        _deliver_later(signum)
        return
    _RECEIVED["deferred"] = 0
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _fork_begins():
    """``os.fork``'s first hook: a signal from here to :func:`_fork_ends` is held (raised
    in a fork hook, such as logging's ``_releaseLock``, the exception was printed as
    "Exception ignored" and the run went on)."""
    _RECEIVED["forking"] = True


def _fork_ends():
    """``os.fork``'s last hook in the parent: a signal held meanwhile is delivered again
    20 ms later, outside the hooks."""
    _RECEIVED["forking"] = False
    held, _RECEIVED["held"] = _RECEIVED["held"], None
    if held is not None:
        _deliver_later(held)


def _deliver_later(signum):
    """Send ``signum`` to this process again 20 ms from now (from a timer thread)."""
    import threading

    threading.Timer(0.02, os.kill, (os.getpid(), signum)).start()


def _quiet_sigterm_in_child():
    """In a forked worker (candidates fitted at once, chunks predicted at once) SIGTERM is
    how the parent stops it (``multiprocessing.Pool.terminate``): the worker ends quietly
    instead of raising :class:`Terminated` and printing a traceback."""
    from structpred._startup import _on_term

    _RECEIVED.update(forking=False, held=None)
    try:
        if signal.getsignal(signal.SIGTERM) in (_on_signal, _on_term):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except ValueError:   # not the main thread
        pass


# registered after logging's hooks (imported above): before-hooks run in the reverse order
# of registration, after-hooks in it, so these two enclose logging's lock hooks
os.register_at_fork(before=_fork_begins, after_in_parent=_fork_ends,
                    after_in_child=_quiet_sigterm_in_child)


@contextlib.contextmanager
def _signal_handlers(as_program=False):
    """:func:`_on_signal` for SIGINT and SIGTERM while a command runs (main thread only);
    the previous handlers afterwards.  ``as_program``: the process is the command, and
    the libraries are quieted when a signal arrives (:func:`_quiet_libraries`)."""
    _RECEIVED.update(signal=None, deferred=0, forking=False, held=None, program=as_program)
    old = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(sig) != signal.SIG_IGN:   # ignored (nohup, '&'): stays so
                old[sig] = signal.signal(sig, _on_signal)
    except ValueError:   # not the main thread: leave the handlers alone
        pass
    try:
        yield
    finally:
        _RECEIVED["program"] = False
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _status_after_signal(args, as_program, exc=None):
    """One line and 130 (Ctrl-C) or 143 (SIGTERM).

    Run as the command, the program leaves at once, never through the normal exit (which
    joins the worker processes, and one that the signal orphaned, see
    :func:`_stop_child_processes`, is never joined): its children are stopped, the exit
    functions get half a second, and the line is printed last, once nothing else can print."""
    drop_notes()
    terminated = isinstance(exc, Terminated) or _RECEIVED["signal"] == signal.SIGTERM
    line = f"structpred: {'terminated' if terminated else 'interrupted'}"
    status = 143 if terminated else 130
    if as_program:
        _quiet_libraries()
        _stop_child_processes()
        _exit_now(status, exit_functions_within=_CHILD_GRACE, last_line=line)
    print(line, file=sys.stderr)
    return status


def _quiet_libraries():
    """After a signal, in the command: the libraries' log records, warnings, unraisable
    exceptions and threads' uncaught exceptions are dropped.  A Dask cluster stopped by
    Ctrl-C logged the tracebacks of its threads (a scatter to a worker gone, a nanny that
    failed to start) around the command's one line."""
    import threading

    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    sys.unraisablehook = threading.excepthook = lambda *_: None


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    """A library's warning (scikit-learn's, numpy's) as one line on standard error, like the
    errors, without the source file and line of the library (those with --debug): its lines
    joined, their indentation and blank lines dropped (scikit-learn's "lbfgs failed to
    converge (status=1):" was cut there, at its first line, before the cause)."""
    text = " ".join(str(message).split()) or category.__name__
    if file is None:
        note(f"structpred: warning: {text}")
        return
    try:
        print(f"structpred: warning: {one_line(text)}", file=file)
    except (OSError, ValueError):
        pass


class _OneLineLog(logging.Handler):
    """A library's log record (matplotlib's "Matplotlib created a temporary cache
    directory", when its configuration folder cannot be made) as a one-line warning, for
    records no handler of the library takes (Python's ``logging.lastResort``)."""

    def __init__(self):
        super().__init__(logging.WARNING)

    def emit(self, record):
        _one_line_warning(record.getMessage(), UserWarning, None, 0)


@contextlib.contextmanager
def _standard_streams(as_program, debug):
    """Standard error closed (``2>&-``: ``sys.stderr`` is ``None``) gets the null device,
    where messages are lost rather than printed on standard output among the results
    (``print(file=None)`` writes there); standard output not in UTF-8
    (``PYTHONIOENCODING=ascii``, ``latin-1``) is written in UTF-8, the encoding of every
    file the commands read and write (a word such as ``café`` was a ``UnicodeEncodeError``
    traceback, or text the commands could not read back); a library's log records are one
    line each, like its warnings (:class:`_OneLineLog`; not with ``--debug``)."""
    old, last_resort = sys.stderr, logging.lastResort
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    out = sys.stdout
    encoding = str(getattr(out, "encoding", None) or "utf-8").lower().replace("-", "")
    if as_program and encoding not in ("utf8", "utf8sig") and hasattr(out, "reconfigure"):
        with contextlib.suppress(ValueError, OSError):
            out.flush()
            out.reconfigure(encoding="utf-8")
    if not debug:
        logging.lastResort = _OneLineLog()
    try:
        yield
    finally:
        sys.stderr, logging.lastResort = old, last_resort


#: errors of a write to standard output that lose the results (a full disk, ``> /dev/full``,
#: a device error): one line and status 2, never a traceback nor a silent status 0
_WRITE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF)


#: options whose values set the sizes of what a command allocates (named after a MemoryError)
_SIZE_OPTIONS = ("n_topics", "k_graph", "n_segments", "max_features", "iterations",
                 "bitext_pairs", "max_length", "batch_size", "jobs", "workers")


def main(argv=None):
    """Run ``structpred`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    as_program = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    with _standard_streams(as_program, debug="--debug" in argv):
        return _run(argv, as_program)


def _run(argv, as_program):
    parser = build_parser(argv)
    if not subcommands():
        parser.error("no subcommands are installed (pip install -e . in the source tree)")
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.parse_args([args.command, "--help"])
    empty = empty_option_values(args)
    if empty:
        parser.exit(2, f"structpred: error: argument {empty[0]}: an empty value\n")
    encoding = getattr(args, "encoding", None)
    if encoding not in (None, "utf-8") and (getattr(args, "workers", None)
                                            or getattr(args, "scheduler", None)):
        parser.exit(2, f"structpred: error: --encoding {encoding} with a Dask cluster: its "
                       "workers read the files as UTF-8; convert them first (iconv -f "
                       f"{encoding} -t utf-8)\n")
    if sys.stdout is None:   # started with '>&-': every command prints its results there
        parser.exit(2, "structpred: error: -: standard output is closed\n")
    status = _run_command(args, handler, as_program)
    if as_program and isinstance(status, int) and not _has_child_processes():
        # leave now, also after an error: through the interpreter's teardown (a second or
        # more) SIGINT is back at its default, and a Ctrl-C there would kill the process
        # with no status of ours
        _exit_now(status)
    return status


def _run_command(args, handler, as_program):
    """Run the command's ``handler`` with the signal handlers installed; its exit status,
    or 2 (130, 143) with one line for what went wrong.

    The command's progress lines are held until its inputs are checked
    (:mod:`structpred.io._notes`): a refusal, an interruption or a failed write is then the
    one line on standard error."""
    hold_notes()
    try:
        with _signal_handlers(as_program), warnings.catch_warnings():
            if not args.debug:
                warnings.showwarning = _one_line_warning
            with input_encoding(getattr(args, "encoding", None)), \
                    terminal_stdin_notice(STDIN_NOTICE):
                status = handler(args)
            release_notes()
            sys.stdout.flush()   # a failed write is reported here, not lost at exit
            if _RECEIVED["signal"] is not None:   # a signal was caught somewhere: never swallowed
                return _status_after_signal(args, as_program)
            if as_program and not _has_child_processes():
                # the work is done and its outputs are in place: leave now, with the handlers
                # still installed, instead of through the interpreter's teardown (a second or
                # more), where Python has put SIGINT back to its default and a Ctrl-C would
                # kill the process without a word
                _exit_now(status if isinstance(status, int) else 0)
        return status
    except UserError as exc:
        if args.debug:
            raise
        if _RECEIVED["signal"] is not None:
            return _status_after_signal(args, as_program)
        drop_notes()
        print(f"structpred: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        if args.debug:
            raise
        return _status_after_signal(args, as_program, exc)
    except MemoryError:
        # the sizes asked for do not fit this machine (a size option, or data far larger than
        # it): one line naming the options that set sizes, not a traceback
        if args.debug:
            raise
        drop_notes()
        sizes = sorted({a for a in _SIZE_OPTIONS if getattr(args, a, None) is not None})
        named = ", ".join("--" + a.replace("_", "-") for a in sizes)
        print(f"structpred: error: out of memory: the sizes asked for do not fit this machine's "
              f"memory{f' (check {named})' if named else ''}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (| head): end quietly, as Unix tools do
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except OSError as exc:
        if args.debug or exc.filename is not None or exc.errno not in _WRITE_ERRORS:
            raise
        drop_notes()
        print(f"structpred: error: standard output: {os_error_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:
        # an error that a signal caused (numba's SystemError, an import's RuntimeError, a
        # worker's failure): the signal is the cause to report
        interrupt = interrupt_in_chain(exc)
        if (_RECEIVED["signal"] is None and interrupt is None) or args.debug:
            raise
        return _status_after_signal(args, as_program, interrupt)
    finally:
        release_notes()   # a traceback follows: the lines held are its context
