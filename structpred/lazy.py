"""Lazy re-exports for the problem packages (PEP 562): a package lists its public names and
the modules that define them, and each is imported on first use."""

from __future__ import annotations

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package, exports):
    """``(__getattr__, __dir__)`` for the package named ``package``, whose public names are
    the keys of ``exports`` (name -> module of the package, relative, e.g. ``"model"``).
    A name is imported on first use and then kept in the package's namespace."""
    def __getattr__(name):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
