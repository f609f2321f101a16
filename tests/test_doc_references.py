"""Every module, class or function of the project that a docstring or a doc page names
exists: a moved or renamed module leaves no stale reference behind.

Names are read from the tracked ``.py`` and ``.md`` files: Sphinx roles
(``:mod:`alignment.aer```, ``:func:`~structpred.selection.prefer_default```) and
backquoted dotted names that start with one of the project's packages
(```alignment.data.formats```). Each is resolved by importing its longest module
prefix and looking the rest up as attributes.
"""

import importlib
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("structpred", "alignment", "segmentation", "topics", "sequence")
_PKG = "|".join(PACKAGES)
_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|obj|exc):`~?(?:[^`<]*<)?([A-Za-z_][\w.]*)>?`")
#: dotted names that are not Python objects: the entry-point group of subcommands
NOT_OBJECTS = {"structpred.commands"}
_BACKQUOTED = re.compile(rf"`+((?:{_PKG})(?:\.[A-Za-z_]\w*)+)(?:\(\))?`+")


def _tracked_files():
    out = subprocess.run(["git", "ls-files", "*.py", "*.md"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    this = Path(__file__).resolve()
    return [ROOT / f for f in out if (ROOT / f).is_file() and (ROOT / f).resolve() != this]


@lru_cache(maxsize=None)
def _resolves(name):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        rest = parts[cut:]
        for i, attr in enumerate(rest):
            if not hasattr(obj, attr):
                # an instance attribute documented on a class (a fitted ``coef_``, a
                # dataclass field) is not a stale reference
                return i == len(rest) - 1 and isinstance(obj, type)
            obj = getattr(obj, attr)
        return True
    return False


def _references():
    refs = {}
    for path in _tracked_files():
        text = path.read_text(errors="replace")
        names = set(_ROLE.findall(text)) | set(_BACKQUOTED.findall(text))
        for name in names:
            if name in NOT_OBJECTS:
                continue
            if name.split(".")[0] in PACKAGES and "." in name or name in PACKAGES:
                refs.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return refs


def test_project_references_exist():
    missing = {n: files for n, files in sorted(_references().items()) if not _resolves(n)}
    lines = [f"{n}  (in {', '.join(sorted(set(f))[:3])})" for n, f in missing.items()]
    assert not missing, "names that do not exist:\n" + "\n".join(lines)


@pytest.mark.parametrize("text,ok", [("`structpred.selection.paired_bootstrap`", True),
                                     ("`alignment.no_such_module`", False),
                                     (":func:`~structpred.selection.prefer_default`", True)])
def test_the_check_itself(text, ok):
    names = set(_ROLE.findall(text)) | set(_BACKQUOTED.findall(text))
    assert names and all(_resolves(n) for n in names) is ok
