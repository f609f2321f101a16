"""Reading many small objects at once (the token lists of a bitext) without the cyclic
garbage collector's passes over them."""

from __future__ import annotations

import contextlib
import gc

__all__ = ["reading_in_bulk"]


@contextlib.contextmanager
def reading_in_bulk():
    """Run the block with the cyclic garbage collector paused, then move every object
    tracked so far into its permanent generation (:func:`gc.freeze`).

    Reading a bitext makes a list per sentence, hundreds of thousands of them: each
    collection of the older generations walks every list made so far (about 40 % of the
    reading time of the Hansards' 231,648 pairs), and every later one walks them again, in
    this process and in the processes forked from it (where walking them also copies their
    memory pages).  Token lists hold no cycles, so reference counting frees them when they
    are dropped, frozen or not.  On an exception the collector is resumed and nothing is
    frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
