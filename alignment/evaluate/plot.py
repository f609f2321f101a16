"""Alignment grids: gold sure / possible links and a predicted alignment, drawn
the way alignment papers show them (source words as rows, target as columns)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from structpred.io import save_figure

__all__ = ["draw_alignment_grid", "save_alignment_grids"]


def draw_alignment_grid(ax, src, tgt, gold=None, predicted=None, title=None):
    """Draw one sentence pair on ``ax``.

    Gold sure links are filled black squares, possible-only links grey
    squares, and predicted links red circles (so a correct sure prediction is
    a red dot on a black square).
    """
    m, n = len(src), len(tgt)
    if gold is not None:
        for j, k in gold.possible - gold.sure:
            ax.add_patch(plt.Rectangle((k - 0.45, j - 0.45), 0.9, 0.9, color="0.75", lw=0))
        for j, k in gold.sure:
            ax.add_patch(plt.Rectangle((k - 0.45, j - 0.45), 0.9, 0.9, color="black", lw=0))
    if predicted is not None and predicted.sure:
        jj, kk = zip(*predicted.sure)
        ax.scatter(kk, jj, s=30, c="tab:red", zorder=3)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_xticks(range(n), tgt, rotation=90, fontsize=7)
    ax.set_yticks(range(m), src, fontsize=7)
    ax.set_aspect("equal")
    ax.grid(True, color="0.9", lw=0.5)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title, fontsize=9)


def save_alignment_grids(pairs, gold, predicted, indices, path):
    """Draw the sentence pairs ``indices`` (0-based) side by side into ``path``.

    The image format follows the file suffix (``.png``, ``.pdf``, ``.svg``);
    the file is written atomically.
    """
    indices = list(indices)
    if not indices:
        raise ValueError("no sentences to draw")
    fig, axes = plt.subplots(1, len(indices), squeeze=False,
                             figsize=(max(4.0, 0.22 * sum(len(pairs[i][1]) for i in indices) + 2),
                                      max(4.0, 0.22 * max(len(pairs[i][0]) for i in indices) + 2)))
    for ax, i in zip(axes[0], indices):
        src, tgt = pairs[i]
        draw_alignment_grid(ax, src, tgt, gold[i] if gold is not None else None,
                            predicted[i] if predicted is not None else None,
                            title=f"sentence {i + 1}")
    handles = [Line2D([], [], marker="s", ls="", color="black", label="sure"),
               Line2D([], [], marker="s", ls="", color="0.75", label="possible"),
               Line2D([], [], marker="o", ls="", color="tab:red", label="predicted")]
    fig.legend(handles=handles, loc="lower right", fontsize="small")
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
