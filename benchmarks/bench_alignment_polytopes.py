"""Projections onto the chapter-3 polytopes against cvxpy.

    python benchmarks/bench_alignment_polytopes.py [--sizes 10 20 30] [--repeats 10]

* M+F (eq. 3.2, D = 2): ``structpred.project_fertility_matching`` (exact, numba)
  against the same QP in cvxpy (OSQP, problem built per call as in the tests);
* relaxed QAP (eq. 3.3 without integrality, M+F+Q with all of Q): the OSQP workspace of
  ``structpred.RelaxedQAPProjector`` (factorisation cached, warm start) against cvxpy.

Medians over ``--repeats`` random points z' ~ N(0.3, 1); also the largest difference.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from structpred import project_fertility_matching, project_fertility_matching_cvxpy
from structpred import RelaxedQAPProjector, adjacent_pairs, qap_constraints


def _median_ms(fn, xs):
    out, times = [], []
    for x in xs:
        t0 = time.perf_counter()
        out.append(fn(x))
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times), out


def _cvxpy_qp(A, b, zp):
    import cvxpy as cp

    z = cp.Variable(zp.size)
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(z - zp)), [A @ z <= b, z >= 0, z <= 1]).solve(
        solver="OSQP", eps_abs=1e-9, eps_rel=1e-9, polish=True, max_iter=100000)
    return z.value


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 30])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print("| polytope | size | structpred (ms) | cvxpy+OSQP (ms) | speed-up | max diff |")
    print("|---|---|---:|---:|---:|---:|")
    for n in args.sizes:
        xs = [(rng.normal(0.3, 1, (n, n)), rng.normal(0.3, 1, (1, n)), rng.normal(0.3, 1, (1, n)))
              for _ in range(args.repeats)]
        project_fertility_matching(*xs[0])   # compile
        t_ours, ours = _median_ms(lambda x: project_fertility_matching(*x), xs)
        t_ref, refs = _median_ms(lambda x: project_fertility_matching_cvxpy(*x), xs)
        diff = max(float(np.abs(a - r).max()) for o, rf in zip(ours, refs) for a, r in zip(o, rf))
        print(f"| M+F (D=2) | {n}×{n} | {t_ours:.2f} | {t_ref:.1f} | {t_ref / t_ours:.0f}× | "
              f"{diff:.0e} |", flush=True)
    for n in args.sizes:
        pairs, _ = adjacent_pairs(n, n)
        A, b = qap_constraints((n, n), 2, pairs)
        proj = RelaxedQAPProjector(eps=1e-6)
        warm = {}
        zs = [rng.normal(0.3, 1, A.shape[1]) for _ in range(args.repeats)]
        proj.project(zs[0], "bench", (A, b), warm=warm)   # builds the workspace
        t_ours, ours = _median_ms(lambda z: proj.project(z, "bench", (A, b), warm=warm), zs)
        t_ref, refs = _median_ms(lambda z: _cvxpy_qp(A, b, z), zs)
        diff = max(float(np.abs(o - r).max()) for o, r in zip(ours, refs))
        print(f"| relaxed M+F+Q, {A.shape[1]} variables | {n}×{n} | {t_ours:.2f} | {t_ref:.1f} | "
              f"{t_ref / t_ours:.0f}× | {diff:.0e} |", flush=True)


if __name__ == "__main__":
    main()
