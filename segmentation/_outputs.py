"""The files ``segment predict`` (and ``segment eval --side-by-side``) write into a folder.

They are named by their inputs (``<id>.png``, ``<name>.pred.txt``), so a folder given as
``-o`` may already hold a file of that name that no prediction wrote: a gold mask
(``-o masks/``), another tool's output.  The PNG files written carry a text chunk
``Software: structpred segment predict`` (:data:`SOFTWARE`, :func:`save_png`), and point
predictions are lines ``x y z label`` of four decimals; a file of a name about to be
written that exists and is not such a file is refused before any work, unless
``--overwrite``.  A failed run removes the files it wrote (and the folders it made) again.
"""

from __future__ import annotations

import re
from pathlib import Path

from structpred.cli import UserError
from structpred.io import gz_name

__all__ = ["Outputs", "SOFTWARE", "check_overwrite", "planned_names", "save_png",
           "warn_predicted_masks"]

#: the PNG text chunk ``Software`` of the masks and side-by-sides written
SOFTWARE = "structpred segment predict"

#: the first line of a point prediction (``np.savetxt``'s ``%.4f %.4f %.4f %d``)
_POINT_LINE = re.compile(r"-?\d+\.\d{4} -?\d+\.\d{4} -?\d+\.\d{4} -?\d+\n?")


def save_png(array, fh):
    """Write ``array`` (an image) to ``fh`` as a PNG marked as a prediction."""
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Software", SOFTWARE)
    Image.fromarray(array).save(fh, format="PNG", pnginfo=info)


def planned_names(kind, inputs):
    """The file names the predictions of ``inputs`` take: ``<id>.png`` for images (items
    ``(id, image, mask, ...)``), ``<name>.pred.txt`` for point files; two inputs of one
    name (``a/s.txt`` and ``b/s.txt``, or ``s.txt.gz``) are refused: the second prediction
    replaced the first, and the summary counted both."""
    if kind == "image":
        return [f"{it[0]}.png" for it in inputs]
    names, seen = [], {}
    for f in map(Path, inputs):
        name = (f.name[:-3] if gz_name(f.name) else f.name) + ".pred.txt"
        if name in seen:
            raise UserError(f"{f}: its prediction would be {name}, as that of {seen[name]}; "
                            "predict scans of one name into separate -o folders")
        seen[name] = f
        names.append(name)
    return names


def _written_here(path):
    """Whether the regular file ``path`` is a prediction (see the module's notes)."""
    if not path.is_file() or path.is_symlink():
        return False
    try:
        if path.suffix == ".png":
            from PIL import Image

            with Image.open(path) as im:
                return im.format == "PNG" and im.info.get("Software") == SOFTWARE
        with open(path, "rb") as fh:
            return bool(_POINT_LINE.fullmatch(fh.readline(200).decode("ascii")))
    except (OSError, ValueError, SyntaxError):   # Pillow's errors of broken files
        return False


def warn_predicted_masks(masks):
    """One warning when gold masks (``masks``: paths, ``None`` for none) are predictions
    that ``segment predict`` wrote (:func:`_written_here`): ``segment eval --masks pred/``
    scored a model against its own predictions, "foreground IoU 100.00%", silently."""
    import warnings

    masks = [Path(m) for m in masks if m is not None]
    pred = [m for m in masks if m.suffix.lower() == ".png" and _written_here(m)]
    if pred:
        warnings.warn(f"{pred[0]}: {len(pred)} of the {len(masks)} gold masks are predictions "
                      f"written by '{SOFTWARE}' (their PNG text chunk Software): a score "
                      "against them, or a model trained on them, measures agreement with "
                      "that model, not accuracy")


def check_overwrite(folder, names, flag, overwrite=False):
    """Refuse, before any work, to replace a file of ``folder`` named in ``names`` that is
    not an earlier prediction (:func:`_written_here`), unless ``overwrite``."""
    d = Path(folder)
    if overwrite or not d.is_dir():
        return
    for name in names:
        p = d / name
        if (p.exists() or p.is_symlink()) and not _written_here(p):
            raise UserError(
                f"{p}: exists and is no prediction of structpred (a gold mask, an input, "
                f"another tool's output?): {flag} {folder} would replace it; give another "
                f"{flag} folder, or --overwrite to replace the files of that name")


class Outputs:
    """Files written by one command: removed again (with folders it made) on failure."""

    def __init__(self):
        self.files, self.made = [], []

    def folder(self, d):
        d = Path(d)
        if not d.exists():
            d.mkdir()
            self.made.append(d)
        return d

    def add(self, path):
        self.files.append(Path(path))
        return path

    def rollback(self):
        for f in self.files:
            try:
                f.unlink()
            except OSError:
                pass
        for d in reversed(self.made):
            try:
                d.rmdir()
            except OSError:
                pass
