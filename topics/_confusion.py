"""The confusion matrix of ``structpred topics eval``: its counts, as text, and as a figure
(``--plot``), readable and quick to draw for any number of classes."""

from __future__ import annotations

import numpy as np

__all__ = ["confusion_matrix", "format_confusion", "plot_confusion", "MAX_CELL_NUMBERS",
           "MAX_PRINTED_CLASSES", "TOP_CONFUSIONS", "top_confusions",
           "MAX_TICK_LABELS", "MAX_FIGURE_INCHES", "MAX_NAME"]


def confusion_matrix(true, pred, labels):
    """Counts ``cm[i, j]``: documents of true label ``labels[i]`` predicted ``labels[j]``."""
    index = {lab: i for i, lab in enumerate(labels)}
    cm = np.zeros((len(labels), len(labels)), np.int64)
    for t, p in zip(true, pred):
        cm[index[t], index[p]] += 1
    return cm


def format_confusion(cm, labels, max_width=120):
    """The confusion matrix as text: label names on the rows, and on the columns when they
    fit in ``max_width`` characters (else the columns are numbered like the rows)."""
    names = [str(lab) for lab in labels]
    num_w = max(len(str(int(cm.max()))) if cm.size else 1, 1)
    named_w = [max(len(n), num_w) for n in names]
    row_w = max(len("true \\ predicted"), max(len(n) for n in names))
    if row_w + sum(w + 2 for w in named_w) <= max_width:
        heads, widths, rows = names, named_w, names
    else:
        heads = [f"[{i + 1}]" for i in range(len(names))]
        widths = [max(len(h), num_w) for h in heads]
        rows = [f"[{i + 1}] {n}" for i, n in enumerate(names)]
        row_w = max(row_w, max(len(r) for r in rows))
    lines = ["true \\ predicted".ljust(row_w) + "".join("  " + h.rjust(w)
                                                        for h, w in zip(heads, widths))]
    for r, counts in zip(rows, cm):
        lines.append(r.ljust(row_w) + "".join("  " + str(int(c)).rjust(w)
                                              for c, w in zip(counts, widths)))
    return "\n".join(lines)


#: the most classes whose confusion matrix ``topics eval`` prints unasked (``--confusion``
#: prints any; 1,000 classes printed a matrix of megabytes to the terminal)
MAX_PRINTED_CLASSES = 30
#: the confused pairs of classes ``topics eval`` prints in the matrix's stead
TOP_CONFUSIONS = 10


def top_confusions(cm, labels, n=TOP_CONFUSIONS):
    """The ``n`` commonest errors of ``cm`` as lines ``true -> predicted: count (share of
    the true class)``, the most documents first (ties: in the order of the labels), or a
    line saying there is none."""
    off = cm.copy()
    np.fill_diagonal(off, 0)
    flat = np.flatnonzero(off)
    if not flat.size:
        return ["  no document was given another class than its own"]
    flat = flat[np.argsort(-off.ravel()[flat], kind="stable")][:n]
    rows = cm.sum(axis=1)
    out = []
    for k in flat:
        i, j = divmod(int(k), cm.shape[1])
        out.append(f"  {labels[i]} -> {labels[j]}: {int(cm[i, j])} "
                   f"({100 * cm[i, j] / rows[i]:.1f}% of {labels[i]})")
    return out


#: the most classes whose every cell of the figure shows its count (a number in each of
#: 300 x 300 cells took 2 min 40 s to draw, and 1,000 classes no figure at all after 8 min)
MAX_CELL_NUMBERS = 30
#: the most classes whose every name is written along the figure's axes
MAX_TICK_LABELS = 80
#: the most characters of a class name written along the figure's axes
MAX_NAME = 40
#: the largest side of the figure, in inches (it grew half an inch a class: 500 inches)
MAX_FIGURE_INCHES = 30.0


def plot_confusion(cm, labels, accuracy, path, title):
    """Save the confusion matrix ``cm`` of ``labels`` as a figure at ``path``: each
    cell's count written in it for up to :data:`MAX_CELL_NUMBERS` classes, the class names
    along the axes for up to :data:`MAX_TICK_LABELS` (beyond: the classes' numbers from 1,
    as the text matrix numbers its columns), the figure's side at most
    :data:`MAX_FIGURE_INCHES`."""
    from structpred.io import literal_text, plt, save_figure

    # '$5 and $6' is no formula; a name of 5,000 characters left no room for the matrix
    # (matplotlib's "Tight layout not applied" warning, a figure of the name only)
    labels = [literal_text(lab if len(lab) <= MAX_NAME else lab[:MAX_NAME - 1] + "…")
              for lab in map(str, labels)]
    n = len(labels)
    size = min(max(4.0, 0.5 * n + 2.5), MAX_FIGURE_INCHES)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    im = ax.imshow(cm, cmap="Blues", interpolation="nearest")
    if n <= MAX_TICK_LABELS:
        ax.set_xticks(range(n), labels, rotation=45, ha="right", fontsize="small")
        ax.set_yticks(range(n), labels, fontsize="small")
    else:   # numbered from 1, as format_confusion numbers the columns
        ticks = np.unique(np.linspace(0, n - 1, 11).round().astype(int))
        ax.set_xticks(ticks, [str(t + 1) for t in ticks])
        ax.set_yticks(ticks, [str(t + 1) for t in ticks])
    ax.set(xlabel="predicted label", ylabel="true label",
           title=f"{title}: accuracy {100 * accuracy:.2f}%")
    top = cm.max() if cm.size else 0
    for i in range(n if n <= MAX_CELL_NUMBERS else 0):
        for j in range(n):
            ax.text(j, i, str(int(cm[i, j])), ha="center", va="center", fontsize="small",
                    color="white" if cm[i, j] > top / 2 else "black")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    save_figure(fig, path)
