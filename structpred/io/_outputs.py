"""Output paths and writing them: the checks every writer of :mod:`structpred` makes
before any work and again just before writing (:func:`check_output_path`,
:func:`check_figure_path`, :func:`folder_refusal`), and the atomic writer
(:func:`atomic_write`: a temporary file in the target's folder, renamed over it once
complete) behind :func:`open_output`, which also writes ``-`` to standard output."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import secrets
import sys

from ._files import FormatError, _is_stdio
from ._magic import compressed_name, gz_name

__all__ = ["OutputPathError", "check_output_path", "check_figure_path", "folder_refusal",
           "atomic_write", "open_output"]


class OutputPathError(FormatError):
    """An output path that is not written: an existing device, FIFO, socket, symbolic link
    or folder, or a ``.gz`` name for a format that is already compressed.  A
    :class:`FormatError` (``"PATH: reason"``), so the command line shows it in one line."""


#: suffixes of binary formats that are compressed archives already: ``NAME.npz.gz`` is refused
_NO_GZIP = (".npz", ".npy", ".png", ".jpg", ".jpeg", ".pdf", ".pkl", ".zip")


#: the names of the standard streams as files (``-o /dev/stdout``), and which each is
_STREAM_PATHS = {f"{d}/{n}": which for d in ("/dev/fd", "/proc/self/fd")
                 for n, which in (("1", "output"), ("2", "error"))}
_STREAM_PATHS.update({"/dev/stdout": "output", "/dev/stderr": "error"})


def check_output_path(path, option=None):
    """Refuse an output path that must not be written, before any work and again just
    before writing (the one place every writer of :mod:`structpred` checks).

    Only a regular file or a new path is written.  An existing symbolic link, device
    (``/dev/null`` included), FIFO or socket is refused rather than replaced by a regular
    file (``-o -`` writes to standard output where a command allows it), and so is a
    folder.  A name ending in ``.gz`` is written gzip-compressed, except after the suffix
    of a format that is compressed already (``model.npz.gz``), which is refused.

    Parameters
    ----------
    path : str or path-like
    option : str, optional
        The option that named it (``"-o"``), for the message.

    Raises
    ------
    OutputPathError
    """
    import stat

    name = os.fspath(path)
    head = f"not written ({option}): " if option else "not written: "
    stdout = " (use '-' for standard output where the command allows it)"
    lower = str(name).lower()
    if why := compressed_name(lower, _NO_GZIP):   # model.npz.gz, out.txt.bz2
        raise OutputPathError(name, None, head + why)
    if str(name).endswith(("/", os.sep)):
        # a name ending in a slash names a folder, existing or not (it was taken as a new
        # file, and the writer failed naming its hidden temporary file)
        raise OutputPathError(name, None, head + "the name ends in a slash: it names a "
                              "folder, not a file")
    too_long = _name_too_long(name)
    if too_long:
        raise OutputPathError(name, None, head + too_long)
    stream = _STREAM_PATHS.get(os.path.abspath(name))
    if stream:   # it was "a symbolic link is not replaced by a file; give the path ..."
        raise OutputPathError(name, None, f"{head}it names standard {stream}, not a file"
                              + (stdout if stream == "output" else
                                 ": standard error is for messages"))
    try:
        st = os.lstat(name)
    except OSError:  # a new path (or a parent that is a file: left to the writer's error)
        return
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return
    if stat.S_ISLNK(mode):
        reason = ("a symbolic link is not replaced by a file; give the path it points to, "
                  "or remove the link")
    elif stat.S_ISDIR(mode):
        reason = "it is a folder, not a file"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        reason = "it is a device; only regular files are written" + stdout
    elif stat.S_ISFIFO(mode):
        reason = "it is a FIFO (named pipe); only regular files are written" + stdout
    else:
        reason = "it is not a regular file (a socket?); only regular files are written"
    raise OutputPathError(name, None, head + reason)


def _name_max(directory):
    """The longest file name (in bytes) the file system of ``directory`` takes (255 when
    it cannot be asked: a folder that does not exist yet)."""
    try:
        return os.pathconf(directory or ".", "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


def _name_too_long(path):
    """Why the last part of ``path`` cannot be a file name there (longer than the file
    system's limit), or ``None``.  Said before any work: the writer failed after it, with
    ``file name too long`` on its hidden temporary file."""
    directory, base = os.path.split(os.fspath(path))
    size, limit = len(os.fsencode(base)), _name_max(directory)
    if size <= limit:
        return None
    return (f"the file name is too long for the file system ({size} bytes, at most "
            f"{limit}); give a shorter name")


def folder_refusal(directory):
    """Why no file can be created in the existing folder ``directory``, or ``None``.

    Asked by creating (and removing at once) a hidden temporary file there, as the writers
    do: permission bits alone do not tell (a process run as root passes them on a
    read-only or virtual file system such as ``/proc``; access control lists, quotas)."""
    try:
        tmp, fd = _create_temp(directory, "structpred-probe")
    except OSError as exc:
        return (exc.strerror or str(exc)).lower()
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)
    return None


#: figure formats every matplotlib this package supports writes (others, such as .gif
#: with a recent matplotlib, are asked of matplotlib itself)
_FIGURE_FORMATS = frozenset({"png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif",
                             "tiff", "webp", "pgf", "raw", "rgba"})


def check_figure_path(path, option=None):
    """Refuse, before any work, a figure name whose suffix is not a format matplotlib
    writes (``--plot plot.txt``); a name without a suffix is written as PNG.  The checks
    of :func:`check_output_path` come first.  Returns the format.

    Raises
    ------
    OutputPathError
    """
    check_output_path(path, option)
    name = os.fspath(path)
    fmt = os.path.splitext(name)[1].lstrip(".").lower() or "png"
    if fmt in _FIGURE_FORMATS:
        return fmt
    from matplotlib.backend_bases import FigureCanvasBase

    known = FigureCanvasBase.get_supported_filetypes()
    if fmt not in known:
        head = f"not written ({option}): " if option else "not written: "
        raise OutputPathError(name, None, f"{head}.{fmt} is not a figure format; use one of "
                              f"{', '.join('.' + k for k in sorted(known))}")
    return fmt


@contextlib.contextmanager
def atomic_write(path, mode="w", encoding="utf-8", compress=None):
    """Context manager that writes ``path`` atomically.

    The data go to a temporary file in the same directory, which is flushed,
    ``fsync``-ed and renamed over ``path`` (:func:`os.replace`) only when the
    ``with`` block ends without an exception.  If the block raises, the
    temporary file is removed and an existing ``path`` is left untouched, so
    a crash never leaves a half-written file.  Missing parent folders are created.

    Parameters
    ----------
    path : str or path-like
        Destination file.
    mode : {"w", "wt", "wb"}
        Text (UTF-8) or binary.
    encoding : str
        Text encoding (text mode only).
    compress : bool, optional
        Gzip the output; by default, iff ``path`` ends in ``.gz``.

    Yields
    ------
    file object
        Write to it; do not close it.

    Raises
    ------
    OutputPathError
        ``path`` exists and is not a regular file (:func:`check_output_path`).

    Notes
    -----
    The new file gets the permissions of a freshly created file (``0o666``
    minus the umask), not those of a file it replaces.
    """
    if mode not in ("w", "wt", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w', 'wt' or 'wb', not {mode!r}")
    path = os.fspath(path)
    check_output_path(path)
    if compress is None:
        compress = gz_name(path)
    directory, name = os.path.split(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)  # e.g. ``--plot runs/x.png`` in a fresh checkout
    except OSError as exc:
        # the folder replaced by a file during the run: "<folder>: file exists" named
        # neither the output nor the cause
        why = ("a part of that path is a file, not a folder"
               if isinstance(exc, (FileExistsError, NotADirectoryError))
               else (exc.strerror or str(exc)).lower())
        raise OSError(exc.errno, f"its folder {directory} cannot be made: {why}",
                      path) from exc
    try:
        tmp, fd = _create_temp(directory, name)
    except OSError as exc:
        # name the output, not the hidden temporary file nobody asked for
        raise OSError(exc.errno, f"{(exc.strerror or str(exc)).lower()} (creating a file in "
                      f"{directory})", path) from exc
    try:
        with os.fdopen(fd, "wb") as raw:
            if compress:
                # mtime=0 keeps the output reproducible; filename goes into the header
                stream = gzip.GzipFile(filename=name[:-3] if gz_name(name) else name,
                                       mode="wb", fileobj=raw, mtime=0)
            else:
                stream = raw
            fh = stream if mode == "wb" else io.TextIOWrapper(stream, encoding=encoding,
                                                              newline="\n", write_through=False)
            yield fh
            fh.flush()
            if fh is not stream:
                fh.detach()
            if compress:
                stream.close()  # writes the gzip trailer, leaves raw open
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            # a write to the open file (a full disk): name the output, not nothing
            raise OSError(exc.errno, exc.strerror, path) from exc
        raise
    _fsync_directory(directory)


def _create_temp(directory, name):
    """Create a new hidden temporary file next to the destination; return ``(path, fd)``."""
    # a name near the file system's limit still gets a temporary file: its part of the
    # name is cut to fit the dot, the random part and '.tmp' (14 bytes)
    name = os.fsdecode(os.fsencode(name)[:max(_name_max(directory) - 14, 1)])
    while True:
        tmp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            # 0o666 & ~umask, like a normal open(): no call to os.umask needed
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # pragma: no cover - 2**-32 chance
            continue


def _fsync_directory(directory):
    """Make the rename durable (best effort; not possible on every platform)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def open_output(target, mode="w", encoding="utf-8"):
    """Open an output destination: ``"-"`` (stdout), a writable stream, or a path.

    Parameters
    ----------
    target : str, path-like or file object
        ``"-"`` writes to standard output; an object with a ``write`` method
        is used as is (and not closed); anything else is a path written with
        :func:`atomic_write`.
    mode : {"w", "wb"}
        Text or binary (for ``"-"``: ``sys.stdout`` or ``sys.stdout.buffer``).
    encoding : str
        Text encoding for paths.

    Yields
    ------
    file object
    """
    if hasattr(target, "write"):
        yield target
    elif _is_stdio(target):
        out = sys.stdout.buffer if mode == "wb" else sys.stdout
        yield out
        out.flush()
    else:
        with atomic_write(target, mode=mode, encoding=encoding) as fh:
            yield fh
