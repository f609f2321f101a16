"""Our Bayesian aligner (``align unsupervised --model bayes``) against eflomal, fast_align
and our agreement HMM, run in one script on the protocols of scripts/czech_protocol.py.

    python benchmarks/bench_bayes_aligner.py --corpus czech
    python benchmarks/bench_bayes_aligner.py --corpus hansards --pairs 25000
    python benchmarks/bench_bayes_aligner.py --corpus czech --only bayes \\
        --bayes '{"lowercase": false, "prefix": 0}'          # a setting, tune AER

Every aligner runs fresh (no cache) on the first ``--pairs`` pairs of the bitext (all by
default; the gold sentences are its first lines) and is scored on every split (Czech:
tune = dev 1-400, valid = 401-600, test = 601-800; Hansards: tune = the 37 trial
sentences, test = the last 247 test sentences).  Settings are chosen on ``tune`` only.
Prints one JSON line per aligner (wall and CPU seconds, AER per split) and appends it to
``--out``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from czech_protocol import load_corpus, score  # noqa: E402


def _cpu():
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _bayes(src, tgt, kw):
    from alignment.aligners.bayes import BayesianAligner

    m = BayesianAligner(**kw).fit(src, tgt)
    return {"intersection": m.links_ if m.symmetrize == "intersection" else None,
            "fwd": m.fwd_links_, "bwd": m.bwd_links_}


def _eflomal(src, tgt, kw):
    from alignment.aligners.runs import run_aligner

    r = run_aligner("eflomal", src, tgt, cache_dir=None)
    return {"fwd": r.links("fwd"), "bwd": r.links("bwd")}


def _fast_align(src, tgt, kw):
    from alignment.aligners.runs import run_aligner

    r = run_aligner("fast_align", src, tgt, cache_dir=None)
    return {"sym": r.links("sym")}


def _hmm(src, tgt, kw):
    from alignment.aligners.unsupervised import UnsupervisedAligner

    m = UnsupervisedAligner().fit([s.split() for s in src], [t.split() for t in tgt])
    return {"intersect@0.4": m, "lines": None}


def _views(out, corpus, lines):
    """``{view: {line: links}}`` on the gold lines."""
    from alignment.aligners.symmetrize import symmetrize

    views = {}
    if "intersect@0.4" in out:   # our HMM, decoded with its defaults
        m = out["intersect@0.4"]
        views["intersect@0.4"] = {i: m.align_pair(corpus.src[i].split(),
                                                  corpus.tgt[i].split())[0] for i in lines}
        return views
    if "sym" in out:
        return {"sym": {i: out["sym"][i] for i in lines}}
    f, b = out["fwd"], out["bwd"]
    for v in ("intersection", "grow-diag-final-and", "fwd", "bwd"):
        views[v] = {i: (f[i] if v == "fwd" else b[i] if v == "bwd"
                        else symmetrize(f[i], b[i], v)) for i in lines}
    return views


RUNNERS = {"bayes": _bayes, "eflomal": _eflomal, "fast_align": _fast_align, "hmm": _hmm}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["czech", "hansards"], required=True)
    ap.add_argument("--pairs", type=int, default=None)
    ap.add_argument("--only", default="bayes,eflomal,fast_align",
                    help="comma-separated: bayes, eflomal, fast_align, hmm")
    ap.add_argument("--bayes", default="{}", help="BayesianAligner options (JSON)")
    ap.add_argument("--label", default=None)
    ap.add_argument("--out", default=str(ROOT / "runs" / "bayes" / "bench.jsonl"))
    args = ap.parse_args(argv)
    c = load_corpus(args.corpus)
    n = args.pairs or len(c.src)
    src, tgt = c.src[:n], c.tgt[:n]
    kw = json.loads(args.bayes)
    lines = sorted({i for v in c.splits.values() for i in v})
    for name in args.only.split(","):
        t0, c0 = time.perf_counter(), _cpu()
        out = RUNNERS[name]([s.split() for s in src] if name == "bayes" else src,
                            [t.split() for t in tgt] if name == "bayes" else tgt, kw)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        res = {}
        for view, links in _views(out, c, lines).items():
            res[view] = {sp: round(100 * score(c, links, sp).aer, 2) for sp in c.splits}
        rec = {"corpus": args.corpus, "pairs": n, "aligner": name, "label": args.label,
               "options": kw if name == "bayes" else {}, "wall_s": round(wall, 1),
               "cpu_s": round(cpu, 1), "aer": res,
               "when": time.strftime("%Y-%m-%d %H:%M:%S")}
        print(json.dumps(rec), flush=True)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
