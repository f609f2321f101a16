"""What every subcommand shares: the error type, the help formatter, logging, option
validators and the checks made on output files before any work starts."""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import sys

from .._checks import split_comma_items
from ..io import FormatError, note
from ..io._magic import shell_expansion_hint
from ..io._notes import one_line
from ..io import (OutputPathError, check_figure_path, check_output_path, folder_refusal,
                  missing_reason)

__all__ = ["UserError", "HelpFormatter", "ArgumentParser", "add_quiet", "log", "os_error_line",
           "wrap_format_errors", "positive_int", "nonneg_int", "int_at_least",
           "positive_float", "nonneg_float", "int_list", "comma_items", "at_most", "check_output", "check_stdin", "same_file",
           "check_separate_folders", "iteration_count", "record_option_defaults",
           "options_given", "refuse_options", "seed_value", "empty_option_values"]


class UserError(Exception):
    """An error caused by the user's input: printed as one line, exit status 2."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Keep the examples' line breaks and show the defaults that carry information."""

    def _get_help_string(self, action):
        if action.default in (None, False, argparse.SUPPRESS) or action.help is None:
            return action.help
        return super()._get_help_string(action) if action.help else "(default: %(default)s)"


class _StoreOnce(argparse._StoreAction):
    """``store``, refusing an option given twice with two values (``-o a.txt -o b.txt``:
    the first was silently dropped, and ``a.txt`` never written)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given_once", {})
        if self.dest in given and given[self.dest] != values:
            raise argparse.ArgumentError(self, f"given twice ({given[self.dest]!r} and "
                                         f"{values!r}); give it once")
        given[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


class ArgumentParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``structpred: error: ...`` (exit 2),
    like every other user error; ``--help`` shows the usage.  An option that takes one
    value may be given once (:class:`_StoreOnce`), or twice with the same value."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def parse_known_args(self, args=None, namespace=None):
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message):
        argv = getattr(self, "_argv", ())
        message = _command_missing(self, message)
        message += _dash_value_hint(message, argv, self._option_string_actions)
        message += _misplaced_option_hint(self, message, argv)
        self.exit(2, f"structpred: error: {message} (see '{self.prog} --help')\n")


def _subcommands(parser):
    """The subparsers action of ``parser`` (``tag``: train, predict, eval), or None."""
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
                None)


def _command_missing(parser, message):
    """argparse's "the following arguments are required: tag_command" (``structpred tag``
    alone) named an internal name: say which commands there are."""
    sub = _subcommands(parser)
    if sub is None or not re.fullmatch(rf"the following arguments are required: "
                                       rf"{re.escape(sub.metavar or sub.dest)}", message):
        return message
    return f"'{parser.prog}' needs a command: one of {', '.join(sub.choices)}"


def _misplaced_option_hint(parser, message, argv):
    """For "unrecognized arguments": an option of ``structpred`` itself given after the
    command (``structpred tag predict ... --debug``), or an option of the command given
    before it (``structpred -q tag predict``): where to write it."""
    m = re.match(r"unrecognized arguments: (.*)", message)
    if not m:
        return ""
    leaf, path = parser, []
    for tok in argv:
        sub = _subcommands(leaf)
        if sub is not None and tok in sub.choices:
            leaf = sub.choices[tok]
            path.append(tok)
    if not path:
        return ""
    command = " ".join(path)
    for tok in m.group(1).split():
        name = tok.split("=")[0]
        if leaf is not parser and name in parser._option_string_actions:
            return (f"; {name} is an option of structpred itself: write it before the "
                    f"command (structpred {name} {command} ...)")
        if leaf is not parser and name in leaf._option_string_actions:
            return f"; {name} is an option of '{command}': write it after '{command}'"
    return ""


def _dash_value_hint(message, argv, options):
    """For argparse's "expected one argument" after an option followed by a value that
    starts with ``-`` and is none of the ``options`` (a file ``-x.txt``, read as an
    option): how to give it."""
    m = re.match(r"argument (\S+): expected (?:one|at least one) argument", message)
    if not m:
        return ""
    names = m.group(1).split("/")
    at = [i for i, tok in enumerate(argv) if tok in names]
    if not at or at[-1] + 1 >= len(argv):
        return ""
    value = argv[at[-1] + 1]
    if value == "--":   # '--data -- x.txt': '--' ends the options, it passes no value on
        opt = argv[at[-1]]
        return (f"; '--' ends the options and gives {opt} no value: write the value right "
                f"after {opt} (a file whose name starts with '-' as ./-name)")
    if (not value.startswith("-") or value == "-" or value.startswith("--")
            or value[:2] in options):
        return ""
    try:
        float(value)   # argparse reads '-1e-3' as an option (only '-1', '-0.5' as numbers)
        return f"; {value!r} was read as an option: write {names[-1]}={value}"
    except ValueError:
        pass
    return (f"; {value!r} starts with '-' and was read as an option: for a file of that "
            f"name write ./{value}" + (f" or {names[-1]}={value}" if "one argument" in
                                       message and "least" not in message else ""))


def add_quiet(p):
    """``-q/--quiet``: no progress bars or chatter (never hides the result summary)."""
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bars or chatter (the result summary is still printed)")


def encoding_name(text):
    """argparse ``type=`` of ``--encoding``: a codec that writes line ends and ASCII as
    single bytes (:func:`structpred.io.check_encoding`)."""
    from ..io import check_encoding

    try:
        return check_encoding(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: the commands whose inputs are text files: their every action takes ``--encoding``
TEXT_COMMANDS = ("tag", "topics", "align", "aer")

#: the line every command says on standard error before it reads standard input from a
#: terminal (``tag predict -m model`` without ``-i``: it waited silently), through
#: :func:`structpred.io.terminal_stdin_notice`
STDIN_NOTICE = "structpred: reading standard input (end with Ctrl-D)"


def add_encoding(parser):
    """``--encoding NAME`` on ``parser`` and on every action below it (``tag train``, ...):
    the text inputs are decoded with it (default UTF-8); outputs stay UTF-8."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        if "--encoding" not in parser._option_string_actions:
            parser.add_argument("--encoding", type=encoding_name, default=None, metavar="NAME",
                                help="encoding of the text inputs (default: utf-8; e.g. "
                                     "latin-1 for the CoNLL-2002 files, cp1252, gb18030); "
                                     "outputs are written in UTF-8")
        return
    for action in subs:
        for child in action.choices.values():
            add_encoding(child)


def log(args, msg):
    """Print a log line to stderr unless ``--quiet``."""
    if not getattr(args, "quiet", False):
        note(msg)


#: why a relative path cannot be used: the process's current folder was deleted
_CWD_GONE = ("the current folder no longer exists (it was deleted); change to an existing "
             "folder or give absolute paths")


def _cwd_gone():
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def os_error_line(exc):
    """``FILE: reason`` of an :class:`OSError` (``[Errno 2] ...`` is not for users)."""
    if exc.filename is None and isinstance(exc, FileNotFoundError) and _cwd_gone():
        return _CWD_GONE   # os.getcwd() failed (os.path.abspath of a relative path)
    reason = (exc.strerror or str(exc)).strip()
    reason = reason[:1].lower() + reason[1:]
    if isinstance(exc, IsADirectoryError):
        reason = "is a folder, not a file"
    return f"{exc.filename}: {reason}" if exc.filename else reason


def wrap_format_errors(func):
    """Turn file-format errors and the operating system's errors on a named file (missing
    file, folder given for a file, permission denied, no space left) raised by
    ``func(args)`` into :class:`UserError` (one line, ``FILE[:LINE]: reason``)."""

    @functools.wraps(func)
    def inner(args):
        try:
            return func(args)
        except FormatError as exc:
            raise UserError(str(exc)) from exc
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError,
                PermissionError) as exc:
            raise UserError(os_error_line(exc)) from exc
        except OSError as exc:
            # any other error of a named file (no space left, read-only file system, ...);
            # a closed pipe is the caller's to handle quietly
            if isinstance(exc, BrokenPipeError) or exc.filename is None:
                raise
            raise UserError(os_error_line(exc)) from exc

    return inner


# ----------------------------------------------------------------------- option types
def _number(kind, text, lo, strict):
    try:
        if kind is float and "_" in str(text):
            # Python reads '0_5' as 5.0 and '0_1' as 1.0: a mistyped decimal point
            raise ValueError(text)
        value = kind(text)
    except (TypeError, ValueError):
        what = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    if kind is float and value == 0 and any(c.isdigit() and int(c)
                                          for c in re.split(r"[eE]", str(text))[0]):
        # '1e-400' is below the smallest float and reads as 0 (a cost of 0, silently)
        raise argparse.ArgumentTypeError(f"{text.strip()!r} is too small for a float (below "
                                         "about 5e-324) and would read as 0")
    if value < lo or (strict and value == lo):
        what = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {what} {'>' if strict else '>='} {lo:g}, "
                                         f"got {text!r}")
    return value


def positive_int(text):
    """argparse ``type=``: an integer >= 1 (iterations, counts, sizes)."""
    return _number(int, text, 1, False)


def jobs_count(text):
    """argparse ``type=`` of ``--jobs``: an integer >= 1, or joblib's negative counts (-1:
    every CPU this process may use, -2: all but one, never fewer than 1), read as the count
    it stands for (:func:`structpred.check_n_jobs`); 0 is refused."""
    from .._checks import check_n_jobs

    value = _number(int, text, -10 ** 7, False)
    try:
        return check_n_jobs(value, name="it")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be an integer >= 1 or negative (-1: every CPU, -2: all but one), "
            f"got {text!r}") from None


def whole_number(text):
    """argparse ``type=``: any integer (the caller checks its range, in its own words);
    ``type=int`` named itself: "invalid int value: '1e3'"."""
    return _number(int, text, -math.inf, False)


def nonneg_int(text):
    """argparse ``type=``: an integer >= 0 (0 often meaning "none")."""
    return _number(int, text, 0, False)


def int_at_least(lo):
    """argparse ``type=`` factory: an integer >= ``lo``."""
    def parse(text):
        return _number(int, text, lo, False)
    parse.__name__ = f"integer >= {lo}"
    return parse


#: the most iterations an option accepts (the learners' own limit,
#: :data:`structpred.learners._dual_extragradient.MAX_ITERATIONS`)
MAX_ITERATIONS = 10 ** 7


def iteration_count(text):
    """argparse ``type=``: an iteration count, an integer from 1 to :data:`MAX_ITERATIONS`
    (``10**12`` would be accepted by :func:`positive_int` and run for ever)."""
    value = _number(int, text, 1, False)
    if value > MAX_ITERATIONS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_ITERATIONS:,} (far beyond "
                                         f"convergence), got {text!r}")
    return value


#: the largest seed: numpy and numba take seeds of 32 bits (a larger one was a numba
#: traceback in ``topics train``; a negative one an error naming the data file)
MAX_SEED = 2 ** 32 - 1


def seed_value(text):
    """argparse ``type=``: a random seed, an integer from 0 to :data:`MAX_SEED`."""
    value = _number(int, text, 0, False)
    if value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SEED} (32 bits), got {text!r}")
    return value


def finite_float(text):
    """argparse ``type=``: any finite number (the caller checks its range)."""
    return _number(float, text, -math.inf, False)


def positive_float(text):
    """argparse ``type=``: a finite number > 0."""
    return _number(float, text, 0.0, True)


def nonneg_float(text):
    """argparse ``type=``: a finite number >= 0 (costs)."""
    return _number(float, text, 0.0, False)


def comma_items(text):
    """The stripped items of a comma-separated option value; an empty one (``1,,2``,
    ``1,2,``: a value lost to a typo, dropped silently before) is refused."""
    try:
        return split_comma_items(text)
    except ValueError as exc:   # argparse shows the message of this kind only
        raise argparse.ArgumentTypeError(str(exc)) from None


def at_most(parse, most, why):
    """argparse ``type=``: ``parse(text)`` (e.g. :func:`nonneg_float`), refused when above
    ``most`` (a number, or a function giving it, so that a limit kept in a module heavy to
    import is read only when the option is given); ``why`` says what a larger value does."""
    def parse_at_most(text):
        value = parse(text)
        limit = most() if callable(most) else most
        if value > limit:
            shown = f"{limit:,}" if isinstance(limit, int) else f"{limit:g}"
            raise argparse.ArgumentTypeError(f"must be at most {shown} ({why}), got {text!r}")
        return value

    parse_at_most.__name__ = getattr(parse, "__name__", "value")
    return parse_at_most


def int_list(text):
    """argparse ``type=``: comma-separated integers >= 1, e.g. ``1,5,9`` (1-based numbers;
    the caller checks the upper end against its data)."""
    items = comma_items(text)
    if not items:
        raise argparse.ArgumentTypeError(f"must be comma-separated numbers, got {text!r}")
    values = [_number(int, t, 1, False) for t in items]
    twice = next((v for i, v in enumerate(values) if v in values[:i]), None)
    if twice is not None:   # aer --sentences 1,1 drew sentence 1 twice
        raise argparse.ArgumentTypeError(f"{twice} is given twice in {text!r}")
    return values


# ------------------------------------------------------------------------ file checks
def same_file(a, b):
    """Whether paths ``a`` and ``b`` name the same file (existing or not)."""
    if a is None or b is None or "-" in (str(a), str(b)):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _file_key(path):
    """What identifies the file ``path`` names: its device and inode when it exists (hard
    links and every spelling alike), else its resolved path."""
    try:
        st = os.stat(path)
        return ("inode", st.st_dev, st.st_ino)
    except (OSError, ValueError):
        return ("path", os.path.realpath(path))


def shared_files(train, valid):
    """The paths of ``valid`` that name a file of ``train`` (under any spelling: ``./``,
    symbolic or hard links), in the order of ``valid``; ``None`` and ``-`` are skipped."""
    keep = [p for p in train if p is not None and str(p) != "-"]
    seen = {_file_key(p) for p in keep}
    return [p for p in valid if p is not None and str(p) != "-" and _file_key(p) in seen]


def check_held_out(pairs, hint=None):
    """Refuse validation data that is the training data: ``pairs`` is a list of
    ``((train option, path), (validation option, path))``, where a path may also be a list
    of paths (images, scans).  Choosing a setting on the training examples themselves
    prefers whatever fits them most, so the choice would be silently wrong; the user means
    held-out data (or none, to hold a part out).  Both given as ``-`` is refused as
    standard input read twice (:func:`check_stdin`; the second read found it spent)."""
    for (t_opt, t_path), (v_opt, v_path) in pairs:
        check_stdin(**{t_opt: t_path, v_opt: v_path})
        many = isinstance(v_path, (list, tuple))
        both = shared_files(t_path if isinstance(t_path, (list, tuple)) else [t_path],
                            v_path if many else [v_path])
        if not both:
            continue
        if many:
            raise UserError(f"{both[0]}: is both a training and a validation input "
                            f"({len(both)} shared); {v_opt} needs held-out data")
        hint = hint or f"leave {v_opt} out to hold out a part of the training data"
        raise UserError(f"{v_path}: {v_opt} is the same file as {t_opt}; validation "
                        f"needs held-out data ({hint})")


def check_output(path, option="-o", inputs=(), create_parent=False, figure=False,
                 stdout=True, outputs=(), kind=None):
    """Refuse, before any work, an output that cannot be written.

    The output may be ``"-"`` (stdout).  Otherwise it must be a regular file or a new
    path (:func:`structpred.io._outputs.check_output_path`: no device, FIFO, symbolic link or
    ``NAME.npz.gz``), not a folder, its folder
    must exist (or, with ``create_parent``, be creatable) and be writable, and it must
    not be one of ``inputs`` (pairs ``(option, path)``; ``None`` paths are skipped) nor
    the path of one of the command's other ``outputs`` (a cache folder, pairs likewise).
    With ``figure``, its suffix must be a format matplotlib writes (none: PNG).  Without
    ``stdout`` (model files), ``"-"`` is refused rather than written as a file named ``-``.
    Raises :class:`UserError`.
    """
    if path is not None and str(path) == "-" and not stdout:
        raise UserError(f"{option} -: a model file cannot be written to standard output; "
                        "give a file name")
    if path is None or str(path) == "-":
        return
    path = os.fspath(path)
    if os.path.isdir(path):
        raise UserError(f"{path}: is a folder ({option} needs a file name)")
    _not_an_input(path, option, inputs)   # that cause first: it names the input
    for name, other in outputs:
        if other is not None and str(other) != "-" and same_file(path, other):
            raise UserError(f"{path}: {option} and {name} name the same path; give two")
    try:
        check_output_path(path, option)   # devices, links, FIFOs, model.npz.gz, long names
        if figure:
            check_figure_path(path, option)   # a suffix matplotlib writes (--plot a.txt)
    except OutputPathError as exc:
        raise UserError(str(exc)) from None
    _check_kind_of_existing(path, option, kind or ("model" if not stdout else None))
    try:
        parent = os.path.dirname(os.path.abspath(path))
    except FileNotFoundError:   # os.getcwd() of a deleted folder
        raise UserError(f"{path}: cannot write {option}: {_CWD_GONE}") from None
    if not os.path.isdir(parent):
        unexpanded = shell_expansion_hint(path)   # '-o ~/x' in quotes
        if unexpanded:   # '-o ~/out': a folder named '~' was made in the current one
            raise UserError(f"{path}: cannot write {option}: folder {parent} does not "
                            f"exist{unexpanded}")
        if create_parent:
            probe = parent
            while not os.path.exists(probe):
                probe = os.path.dirname(probe)
            if (os.path.isdir(probe) and os.access(probe, os.W_OK | os.X_OK)
                    and not folder_refusal(probe)):
                return
        reason = ("is not a folder" if os.path.exists(parent) else
                  "does not exist" if not os.path.islink(parent) else
                  f"is {missing_reason(parent, 'folder')}")   # a loop, a link to nothing
        raise UserError(f"{path}: cannot write {option}: folder {parent} {reason}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"{path}: cannot write {option}: folder {parent} is not writable")
    refusal = folder_refusal(parent)   # what the permission bits do not tell (root, /proc)
    if refusal:
        raise UserError(f"{path}: cannot write {option}: folder {parent} is not writable "
                        f"({refusal})")
    if os.path.exists(path) and not os.access(path, os.W_OK) and not os.access(parent, os.W_OK):
        raise UserError(f"{path}: cannot write {option}: permission denied")


#: the kinds of :func:`structpred.io.binary_kind` a text output must not replace: models,
#: archives, images, PDF documents
_NOT_TEXT = ("a zip archive", "a NumPy array", "a PNG image", "a JPEG image", "a GIF image",
             "a PDF document")


def _check_kind_of_existing(path, option, kind):
    """Refuse an output that would replace an existing file of another kind: a model
    (``kind="model"``) written over a text file (``tag train --data train.txt -o
    test.txt`` replaced the test data by a model), text (``kind="text"``: labels, links)
    over a model, an archive or an image (``-o tagger.npz`` replaced a model by labels).
    Either was done with exit status 0. An empty file, and a file of the output's own
    kind (a model trained again), are replaced."""
    from ..io._magic import binary_kind

    if kind is None or os.path.islink(path) or not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return                      # the writer names what is wrong with it
    if not head:
        return
    found = binary_kind(head)
    if kind == "model" and (head[:2] == b"\x1f\x8b" or found is None):
        what = "gzip data" if head[:2] == b"\x1f\x8b" else "text"
        raise UserError(f"{path}: holds {what}, and {option} would replace it by a model: "
                        "give the model a name of its own (an .npz archive)")
    if kind == "text" and found is not None and found.startswith(_NOT_TEXT):
        raise UserError(f"{path}: is {found.split(' (')[0]}, and {option} would "
                        "replace it by text: give the output a name of its own")


def _not_an_input(path, option, inputs):
    for name, other in inputs:
        if other is not None and same_file(path, other):
            raise UserError(f"{path}: {option} would overwrite the input {name}")


def check_stdin(**options):
    """At most one input may be ``-`` (standard input): ``check_stdin(**{"--src": a, ...})``."""
    named = [name for name, value in options.items() if value is not None and str(value) == "-"]
    if len(named) > 1:
        raise UserError(f"only one input can be read from standard input ('-'), "
                        f"not {' and '.join(named)}")


def check_separate_folders(*folders):
    """Output folders must not overlap: ``check_separate_folders(("-o", a),
    ("--side-by-side", b))`` refuses two that are the same folder or one inside the other
    (files of one would overwrite or mix with those of the other).  ``None`` folders are
    skipped.  Raises :class:`UserError`."""
    named = [(opt, os.path.realpath(os.fspath(path))) for opt, path in folders
             if path is not None]
    for i, (opt_a, a) in enumerate(named):
        for opt_b, b in named[i + 1:]:
            if a == b:
                raise UserError(f"{folders[i][1]}: {opt_a} and {opt_b} name the same folder; "
                                "give two separate folders")
            inner, outer = ((opt_a, opt_b) if a.startswith(b + os.sep)
                            else (opt_b, opt_a) if b.startswith(a + os.sep) else (None, None))
            if inner:
                raise UserError(f"the {inner} folder is inside the {outer} folder; give two "
                                "separate folders")



# ----------------------------------------------------- options that would be ignored
def record_option_defaults(parser):
    """Keep, in the namespace the parser returns, each option's name and default
    (``args._option_defaults``), so that a handler can tell an option given on the
    command line from one left at its default (:func:`options_given`).  Applied by
    :func:`structpred.cli.build_parser` to every subcommand."""
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for s in subs:
        for sp in s.choices.values():
            record_option_defaults(sp)
    if not subs:
        parser.set_defaults(_option_defaults={
            a.dest: (a.option_strings[-1], a.default) for a in parser._actions
            if a.option_strings and a.dest not in ("help", "version")})


def empty_option_values(args):
    """The names of the options given an empty value (``-o ''``, ``--data ''``): no option
    takes one, and as a file name it was read as the current folder or written as a
    hidden temporary file of the folder above."""
    known = getattr(args, "_option_defaults", None) or {}
    out = []
    for dest, (name, default) in known.items():
        value = getattr(args, dest, None)
        if value == default:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, str) and not v for v in values):
            out.append(name)
    return out


def options_given(args, *dests):
    """The names of those options among ``dests`` that the command line gave (with a
    value: :class:`_StoreOnce` records them; a value equal to the default counts, so
    ``aer --sentences 1`` without ``--plot`` is refused as ``--sentences 2`` is) or set to
    something other than their defaults (none when the defaults were not recorded)."""
    known = getattr(args, "_option_defaults", None)
    on_line = getattr(args, "_given_once", None) or {}
    out = []
    for dest in dests:
        if known is None:
            continue
        if dest not in known:      # a misspelt name would make every check pass
            raise KeyError(f"{dest!r} is not an option of this subcommand")
        name, default = known[dest]
        if dest in on_line or getattr(args, dest, default) != default:
            out.append(name)
    return out


def refuse_options(args, dests, why):
    """:class:`UserError` ``"OPTION WHY"`` for the first of ``dests`` given on the command
    line: an option the chosen mode does not use is refused, never silently ignored."""
    given = options_given(args, *dests)
    if given:
        raise UserError(f"{given[0]} {why}")
