"""Convergence plots for any learner's :class:`~structpred.SolverResult` history."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ._outputs import atomic_write, check_figure_path

__all__ = ["plot_histories", "save_figure"]


def literal_text(text):
    """``text`` as matplotlib shows it literally: a ``$`` escaped, so that a pair of them
    (a label ``$5 and $6``, ``$\\frac{a}$``) is not read as mathtext (a parse error was a
    traceback after the work)."""
    return str(text).replace("$", r"\$")


def save_figure(fig, path, dpi=100):
    """Write ``fig`` atomically to ``path`` in the format of its suffix (png, pdf, svg, ...)."""
    fmt = check_figure_path(path)   # a suffix matplotlib cannot write: one line, no file
    with atomic_write(path, mode="wb") as fh:
        fig.savefig(fh, format=fmt, dpi=dpi)
    plt.close(fig)


def plot_histories(histories, path, title=None):
    """Plot hinge loss (eq. 2.21) and the validation metric against ||w||.

    Parameters
    ----------
    histories : dict ``label -> history dict`` (``SolverResult.history``)
    path : output PNG, written atomically.
    """
    keys = [k for k in ("hinge", "validation") if any(k in h for h in histories.values())]
    fig, axes = plt.subplots(1, len(keys) + 1, figsize=(5 * (len(keys) + 1), 4))
    for label, h in histories.items():
        axes[0].plot(h["iteration"], h["w_norm"], label=label)
        for ax, k in zip(axes[1:], keys):
            if k in h:
                ax.plot(h["w_norm"], h[k], marker=".", label=label)
    axes[0].set(xlabel="iteration", ylabel="||w||")
    for ax, k in zip(axes[1:], keys):
        ax.set(xlabel="||w||", ylabel={"hinge": "training hinge loss (eq. 2.21)",
                                        "validation": "validation metric"}[k])
    axes[-1].legend(fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, path)
