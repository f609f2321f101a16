"""The highspy/ortools trap (DEVELOPERS.md): ortools 9.15 bundles HiGHS, and a
highspy that clashes with it fails to load when imported second.  highspy is
pinned to 1.14.0; check both import orders in fresh interpreters, through the
package's own modules and by solving a tiny problem with each library."""

import subprocess
import sys

import pytest

USE_ORTOOLS = (
    "from structpred import decode_matching\n"
    "import numpy as np\n"
    "assert decode_matching(np.array([[1.0, 2.0], [3.0, 1.0]])).tolist() == [[0, 1], [1, 0]]\n"
    "from ortools.linear_solver import pywraplp\n"
    "s = pywraplp.Solver.CreateSolver('GLOP')\n"
    "x = s.NumVar(0, 3, 'x'); s.Maximize(x)\n"
    "assert s.Solve() == s.OPTIMAL and abs(x.solution_value() - 3) < 1e-9\n"
)
USE_CVXPY = (
    "import cvxpy as cp, highspy\n"
    "from structpred import solve_saddle_qp\n"
    "x = cp.Variable(2)\n"
    "p = cp.Problem(cp.Minimize(cp.sum(x)), [x >= 1])\n"
    "p.solve(solver='HIGHS')\n"
    "assert abs(p.value - 2) < 1e-6, p.value\n"
    "h = highspy.Highs()\n"
)


@pytest.mark.parametrize("first,second", [(USE_ORTOOLS, USE_CVXPY), (USE_CVXPY, USE_ORTOOLS)],
                         ids=["ortools-first", "cvxpy-highspy-first"])
def test_import_orders(first, second):
    out = subprocess.run([sys.executable, "-c", first + second + "print('ok')"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


USE_PULP = (
    "import numpy as np\n"
    "from structpred import adjacent_pairs, decode_qap\n"
    "pairs, _ = adjacent_pairs(2, 2)\n"
    "sol = decode_qap(np.eye(2), pairs=pairs, pair_scores=np.ones(len(pairs)), backend='pulp')\n"
    "assert abs(sol.objective - 3) < 1e-9, sol.objective\n"
)
USE_OSQP = (
    "import numpy as np\n"
    "from structpred import project_fertility_matching_cvxpy\n"
    "z = project_fertility_matching_cvxpy(np.full((2, 2), 0.9), np.zeros((1, 2)), np.zeros((1, 2)))\n"
    "assert np.all(np.isfinite(z[0]))\n"
)


@pytest.mark.parametrize("first,second", [(USE_PULP, USE_OSQP), (USE_OSQP, USE_PULP),
                                          (USE_PULP + USE_ORTOOLS, USE_CVXPY)],
                         ids=["pulp-first", "osqp-first", "pulp-ortools-cvxpy"])
def test_pulp_and_osqp_import_orders(first, second):
    # PuLP 3.3 loads highspy with RTLD_GLOBAL, after which OSQP segfaults: pulp is pinned < 3.3
    out = subprocess.run([sys.executable, "-c", first + second + "print('ok')"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_highspy_pinned():
    from importlib.metadata import version

    assert version("highspy") == "1.14.0"


def test_core_imports_no_problem_package():
    # the core knows no problem: importing structpred, building its parser and
    # asking for help or the version import none of the problem packages
    code = ("import sys, contextlib, io\n"
            "import structpred\n"
            "from structpred.cli import build_parser, main\n"
            "build_parser()\n"
            "build_parser(['--version'])\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        main(['--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('alignment', 'segmentation', 'topics'))\n"
            "assert not bad, bad\n"
            "build_parser(['segment', 'train'])\n"
            "assert 'segmentation.cli' in sys.modules and 'alignment' not in sys.modules\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_no_core_module_imports_a_problem_package():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1] / "structpred"
    pattern = re.compile(r"^\s*(from|import)\s+(alignment|segmentation|topics)\b", re.M)
    offenders = [str(p) for p in root.rglob("*.py") if pattern.search(p.read_text())]
    assert not offenders
    # and no module of the core is much longer than 800 lines
    long = {str(p): n for p in root.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 820}
    assert not long, long


def test_python_m_structpred_version():
    from structpred import __version__

    out = subprocess.run([sys.executable, "-m", "structpred", "--version"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"structpred {__version__}"
