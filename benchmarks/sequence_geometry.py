"""Euclidean against Bregman (KL) dual extragradient on the same chunking problem.

Both learners solve the same saddle point (thesis eq. 2.13) on the first sentences of
the bundled CoNLL-2000 slice, with ``W = {||w|| <= gamma}``, the Hamming loss and the
``full`` feature templates; they differ only in the proximal steps on the chain
marginals: Euclidean projections (fig. 2.2; a QP per step, solved by accelerated dual
ascent with warm starts) or KL steps (fig. 2.4; one sum-product per step).  Every few
iterations the script records, at the averaged iterate ``(u_bar_w, u_bar_z)``:

* the objective ``P(u_bar_w) = sum_i max_z (F_i'w + c_i)'z + d_i - w'f_i`` (eq. 2.21);
* the duality gap ``P(u_bar_w) - D(u_bar_z)`` with
  ``D(z) = sum_i (d_i + c_i'z_i) - gamma ||sum_i F_i z_i - f_i||`` (eq. 2.19's gap);

against the learner's own time (the monitoring is not counted).  Writes the figure and a
JSON of the curves, and prints the time the Bregman learner needs to reach the Euclidean
learner's final objective.

    python benchmarks/sequence_geometry.py --sentences 50 --iterations 40 \\
        --bregman-iterations 2000 --every 4 --step-scale 10 \\
        --png docs/results/sequence_geometry.png
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from structpred import ChainExample, L2Ball, Monitor, dual_extragradient_streaming, operator_norm
from structpred.io import atomic_write

ROOT = Path(__file__).resolve().parents[1]


class _Recording(ChainExample):
    """A ChainExample that keeps the running sums of its ``u_z``'s (every second proximal
    step of the streaming learner), for the dual value at ``u_bar_z``."""

    def start_recording(self):
        self._calls = 0
        self.sum_features = np.zeros(self.n_features)
        self.sum_loss = 0.0

    def prox(self, z, s, eta):
        out = super().prox(z, s, eta)
        self._calls += 1
        if self._calls % 2 == 0:
            self.sum_features += self.features_of(out) - self.target_features
            self.sum_loss += self.loss(out)
        return out


def build(n_sentences, geometry, batch_size):
    from sequence.data import read_conll
    from sequence.features import FeatureIndex, token_features

    X, y = read_conll(ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz")
    X, y = X[:n_sentences], y[:n_sentences]
    feats = token_features(X, "full")
    index = FeatureIndex.from_features(feats)
    x, lengths = index.transform(feats)
    classes = sorted({t for s in y for t in s})
    lab = np.array([classes.index(t) for s in y for t in s])
    starts = np.r_[0, np.cumsum(lengths)]
    out = []
    for i in range(0, len(lengths), batch_size):
        j = min(i + batch_size, len(lengths))
        ex = _Recording(x[starts[i]:starts[j]], lengths[i:j], y=lab[starts[i]:starts[j]],
                        n_labels=len(classes), geometry=geometry, tol=1e-5)
        ex.start_recording()
        out.append(ex)
    return out


def run(geometry, args, n_iter):
    examples = build(args.sentences, geometry, args.batch_size)
    eta = args.step_scale / operator_norm(examples)
    W = L2Ball(radius=args.radius)
    curve = {"iteration": [], "time": [], "objective": [], "gap": []}
    spent = [0.0]

    def callback(t, w, rec):
        t0 = time.perf_counter()
        primal = sum(ex.hinge_loss(w) for ex in examples)
        n = t + 1
        r = sum(ex.sum_features for ex in examples) / n
        dual = sum(ex.sum_loss for ex in examples) / n - args.radius * np.linalg.norm(r)
        curve["iteration"].append(t + 1)
        curve["time"].append(rec["time"] - spent[0])
        curve["objective"].append(primal)
        curve["gap"].append(primal - dual)
        spent[0] += time.perf_counter() - t0
        return False

    dual_extragradient_streaming(examples, W, n_iter=n_iter, eta=eta,
                                 monitor=Monitor(every=args.every, callback=callback))
    return curve


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=int, default=100)
    p.add_argument("--iterations", type=int, default=60)
    p.add_argument("--bregman-iterations", type=int, default=None,
                   help="iterations of the Bregman learner (default: --iterations)")
    p.add_argument("--every", type=int, default=5)
    p.add_argument("--reuse-euclidean", action="store_true",
                   help="take the Euclidean curve from --json (same settings) instead of "
                        "running it again")
    p.add_argument("--radius", type=float, default=10.0)
    p.add_argument("--step-scale", type=float, default=1.0,
                   help="eta = step_scale / ||F||_2 for both learners")
    p.add_argument("--batch-size", type=int, default=25)
    p.add_argument("--png", default="docs/results/sequence_geometry.png")
    p.add_argument("--json", default="runs/sequence/geometry.json")
    args = p.parse_args(argv)
    curves = {}
    if args.reuse_euclidean:
        with open(args.json) as fh:
            curves["euclidean"] = json.load(fh)["curves"]["euclidean"]
    else:
        curves["euclidean"] = run("euclidean", args, args.iterations)
    curves["entropy"] = run("entropy", args, args.bregman_iterations or args.iterations)
    target = curves["euclidean"]["objective"][-1]
    t_euc = curves["euclidean"]["time"][-1]
    t_breg = next((t for t, o in zip(curves["entropy"]["time"], curves["entropy"]["objective"])
                   if o <= target), None)
    summary = {"euclidean_final_objective": target, "euclidean_time": t_euc,
               "bregman_time_to_reach": t_breg,
               "ratio": None if t_breg is None else t_breg / t_euc, "args": vars(args)}
    print(json.dumps(summary, indent=1))
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.json) as fh:
        json.dump({"curves": curves, "summary": summary}, fh, indent=1)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    names = {"euclidean": "Euclidean (projection QP)", "entropy": "Bregman (KL, sum-product)"}
    for g, c in curves.items():
        axes[0].plot(c["time"], c["objective"], marker=".", label=names[g])
        axes[1].plot(c["time"], c["gap"], marker=".", label=names[g])
    axes[0].axhline(target, color="grey", lw=0.8, ls=":")
    axes[0].set(xlabel="learner time (s)", ylabel="objective: hinge loss at u_bar_w",
                xscale="log", yscale="log", title="objective")
    axes[1].set(xlabel="learner time (s)", ylabel="duality gap", xscale="log", yscale="log",
                title="duality gap")
    axes[0].legend()
    fig.suptitle(f"dual extragradient, {args.sentences} CoNLL-2000 sentences, "
                 f"||w|| <= {args.radius:g}, eta = {args.step_scale:g}/L")
    fig.tight_layout()
    with atomic_write(args.png, mode="wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
