"""The result rows of the Table 3.1 protocol as a Markdown table."""

from __future__ import annotations

__all__ = ["format_table"]


def format_table(rows, reference_name="thesis AER"):
    """The rows of :func:`run_protocol` as a Markdown table (percentages); the reference
    column appears when some row has a reference figure."""
    ref = any(r.get("thesis") is not None for r in rows)
    head = ("| model | learner | train | test | precision | recall | AER | "
            + (f"{reference_name} | " if ref else "") + "valid AER | best iter | train time (s) |")
    lines = [head, "|---|---|---:|---|---:|---:|---:|" + ("---:|" if ref else "")
             + "---:|---:|---:|"]
    for r in rows:
        thesis = ""
        if ref:
            thesis = (f"{r['thesis']:.1f} | " if r.get("thesis") is not None else "– | ")
        lines.append(f"| {r.get('model', 'M')} | {r['learner']} | {r['train']} | {r['test']} | "
                     f"{r['precision']:.1f} | "
                     f"{r['recall']:.1f} | {r['aer']:.1f} | {thesis}{r['valid_aer']:.1f} | "
                     f"{r['best_iter']} | {r['seconds']:.0f} |")
    return "\n".join(lines)
