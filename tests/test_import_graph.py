"""The import graph of the packages (structpred and the problem packages): no cycles, and
the problem packages use only public ``structpred`` names.

The graph is read from the sources with :mod:`ast` (nothing is imported): every
``import`` and ``from ... import`` counts, at module level or inside a function, relative
imports resolved.  ``from package import name`` is an edge to the submodule
``package.name`` when that is a module, else to the package.  Importing a submodule also
runs its parent packages' ``__init__``; those implicit edges are not counted (a package
that re-exports its submodules would otherwise always be in a cycle with them).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the core and the problem packages (a problem package added later is walked too)
PROBLEM_PACKAGES = tuple(p for p in ("alignment", "segmentation", "topics", "sequence")
                         if (ROOT / p / "__init__.py").exists())
PACKAGES = ("structpred",) + PROBLEM_PACKAGES


def _modules():
    """``{dotted name: (path, is_package)}`` of every module of the packages."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            out[".".join(parts)] = (path, is_pkg)
    return out


MODULES = _modules()


def _resolve(module, is_pkg, node):
    """The absolute module a ``from`` import names (``None`` when it leaves the packages)."""
    if node.level == 0:
        return node.module
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    if node.level - 1:
        base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else [])) or None


def _known(name):
    """``name`` or its closest enclosing module of the packages (``None``: not ours)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module):
    """``[(imported module, imported name or None, line)]`` of one module, ours only."""
    path, is_pkg = MODULES[module]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _known(alias.name)
                if target:
                    out.append((target, None, node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_pkg, node)
            if not base or not _known(base):
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    out.append((sub, None, node.lineno))
                else:
                    out.append((_known(base), alias.name, node.lineno))
    return out


def import_graph():
    return {m: sorted({t for t, _, _ in imports_of(m) if t != m}) for m in MODULES}


def cycles(graph):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        # iterative, so that a deep graph does not hit the recursion limit
        work = [(v, iter(graph.get(v, ())))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph.get(w, ()))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_the_packages():
    graph = import_graph()
    assert {"structpred", "alignment.model", "segmentation.model"} <= set(graph)
    # module-level, function-level and relative imports are all read
    assert "alignment.stats.ibm" in graph["alignment.stats.statistics"]
    assert "alignment.cli.train" in graph["alignment.cli"]          # inside a function
    assert "structpred.learners._stream" in graph["structpred.learners._executor"]


def test_cycles_are_found():
    assert cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]
    assert cycles({"a": ["b"], "b": []}) == []


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def _private(module, name):
    parts = module.split(".")[1:] + ([name] if name else [])
    return [p for p in parts if p.startswith("_") and not (p.startswith("__") and p.endswith("__"))]


@pytest.mark.parametrize("package", PROBLEM_PACKAGES)
def test_problem_packages_import_only_public_structpred_names(package):
    bad = []
    for module in sorted(m for m in MODULES if m.split(".")[0] == package):
        for target, name, line in imports_of(module):
            if target.split(".")[0] == "structpred" and _private(target, name):
                path = MODULES[module][0].relative_to(ROOT)
                bad.append(f"{path}:{line}: {target}" + (f".{name}" if name else ""))
    assert not bad, "private structpred names imported:\n" + "\n".join(bad)


def test_alignment_names_its_public_api_lazily():
    import subprocess
    import sys

    code = ("import sys, alignment\n"
            "assert not any(m.startswith(('alignment.', 'numba')) for m in sys.modules), "
            "sorted(m for m in sys.modules if m.startswith('alignment.'))\n"
            "for name in alignment.__all__:\n"
            "    obj = getattr(alignment, name)\n"
            "    assert getattr(obj, '__module__', None) is None or "
            "obj.__module__.startswith(('alignment.', 'structpred')), (name, obj)\n"
            "print('ok')")
    # a NUMBA_* variable has structpred's import check it, before numba's own import
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, env=env)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]
