"""``NUMBA_*`` variables of the environment that numba cannot use, named in one line.

numba reads its ``NUMBA_*`` variables when it is imported.  A value it cannot parse
(``NUMBA_OPT=x``, ``NUMBA_DISABLE_JIT=maybe``, ``NUMBA_DEBUG=zz``) was a warning of nine
lines with a traceback, after which the default was used silently; a processor LLVM does
not know (``NUMBA_CPU_NAME=bogus``) two lines of LLVM's; CPU features not written as
``+name``/``-name`` (``NUMBA_CPU_FEATURES=avx``) an assertion of LLVM that killed the
process (SIGABRT); a cache locator numba does not know (``NUMBA_CACHE_LOCATOR_CLASSES``) a
traceback at the first compilation; a trace file that cannot be written
(``NUMBA_CHROME_TRACE``) a traceback at exit.  :func:`check_numba_environment` finds these
before any work, for the ``structpred`` command (:func:`structpred._startup.install`), and
at the import of the packages (``structpred``, ``alignment``, ``segmentation``, ``topics``,
``sequence``) by a program, as an ``ImportError``
(:func:`structpred._startup.check_import_environment`).
Values numba reads and then ignores or works around (an unwritable ``NUMBA_CACHE_DIR``: it
caches elsewhere; a ``NUMBA_THREADING_LAYER`` the toolkit never uses) are left alone.
"""

from __future__ import annotations

import os
import re

__all__ = ["check_numba_environment"]

#: numba's warning of a ``NUMBA_*`` value it could not parse (numba/core/config.py)
_UNPARSED = re.compile(r"Environment variable '(NUMBA_\w+)' is defined but its associated "
                       r"value")


def _refusal(name, value, why):
    return (f"${name}: numba cannot use the value {value!r:.80} ({why}); set it right, or "
            "unset it")


def check_numba_environment(environ=os.environ):
    """The one-line refusal of the first ``NUMBA_*`` variable of ``environ`` (numba reads
    ``os.environ``: pass it) that numba cannot use, or ``None``.  Imports numba (its
    warnings other than those of a value it cannot parse are passed on)."""
    if not any(k.startswith("NUMBA_") for k in environ):
        return None
    if (refusal := _check_trace(environ)) is not None:   # before numba sets its exit handler
        return refusal
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import numba  # noqa: F401  - its configuration reads every NUMBA_* variable
    refusal = None
    for w in caught:
        found = _UNPARSED.match(str(w.message))
        if found is None:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif refusal is None:
            refusal = _refusal(found[1], environ.get(found[1], ""), "it cannot parse it")
    return refusal or _check_cpu(environ) or _check_cache(environ)


def _llvm_complains(cpu, features):
    """Whether LLVM writes a complaint (to file descriptor 2) when it builds a target
    machine for ``cpu`` with ``features`` (checked to be ``+name``/``-name`` first)."""
    import tempfile

    import llvmlite.binding as ll

    ll.initialize_native_target()
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            ll.Target.from_default_triple().create_target_machine(cpu=cpu, features=features)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return bool(tmp.read().strip())


def _check_cpu(environ):
    name, features = environ.get("NUMBA_CPU_NAME"), environ.get("NUMBA_CPU_FEATURES")
    if features:
        items = features.split(",")
        if not all(len(f) > 1 and f[0] in "+-" and not any(c.isspace() for c in f)
                   for f in items):
            return _refusal("NUMBA_CPU_FEATURES", features, "LLVM takes features as +name or "
                            "-name, separated by commas")
    if name is not None and _llvm_complains(name, ""):
        return _refusal("NUMBA_CPU_NAME", name, "LLVM does not know the processor")
    if features and _llvm_complains("generic", features):
        return _refusal("NUMBA_CPU_FEATURES", features, "LLVM does not know a feature")
    return None


def _probe():
    """A function of a file, for :func:`_check_cache` to find a cache locator for."""


def _check_cache(environ):
    """numba's own choice of a cache locator, as for a compiled function of the toolkit."""
    value = environ.get("NUMBA_CACHE_LOCATOR_CLASSES")
    if not value:
        return None
    from numba.core.caching import FunctionCache

    try:
        FunctionCache(_probe)
    except RuntimeError as exc:
        return _refusal("NUMBA_CACHE_LOCATOR_CLASSES", value,
                        str(exc).splitlines()[0].split(" specified via")[0].strip())
    return None


def _check_trace(environ):
    """``NUMBA_CHROME_TRACE`` names a file numba writes at exit: a folder, or a file in a
    folder that does not exist or cannot be written, was a traceback then."""
    path = environ.get("NUMBA_CHROME_TRACE")
    if not path:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        return _refusal("NUMBA_CHROME_TRACE", path, "numba writes its trace to that file at "
                        "exit, and could not")
    return None
