"""File input and output (gzip-aware readers, atomic writes, format errors) and plotting.

The plotting helpers (:func:`save_figure`, :func:`plot_histories`) import
matplotlib on first use, so that reading and writing files stays light.
"""

from ._files import (FormatError, atomic_write, file_fingerprint, open_output, open_text,
                     progress_enabled, read_lines, read_npz)

__all__ = ["FormatError", "atomic_write", "open_text", "open_output", "read_lines", "read_npz",
           "file_fingerprint", "progress_enabled", "save_figure", "plot_histories"]


def __getattr__(name):
    if name in ("save_figure", "plot_histories", "plt"):
        from . import _plotting

        return getattr(_plotting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
