"""Run eflomal (both directions) and fast_align on a bitext and cache their links for
its first lines, in the ``--external`` file format of :mod:`alignment.aligners.linkfiles`.

    python scripts/run_external_aligners.py [--keep 20484] [--out .cache/external-hansards.tsv.gz]
    python scripts/run_external_aligners.py --bitext full   # 1.13M pairs from ../shared/data,
                                                            # cached in .cache/external-hansards-full.tsv.gz
    python scripts/run_external_aligners.py --src bitext.en --tgt bitext.cs --keep 800 \
        --out .cache/external-czech.tsv.gz                  # any bitext

``align train`` runs and caches these aligners itself (``--aligners``); this script
makes the thesis-style external link file that ``scripts/reproduce_table_3_1.py`` reads.

The Hansards bitext's first 484 lines are the 37 trial and 447 test sentences (unlabeled
here: the aligners never see the gold).  The cache holds, for the first ``--keep``
lines, the links ``eflomal_fwd``, ``eflomal_bwd`` and ``fast_align`` (systran-align's
symmetrised output); :mod:`alignment.aligners.linkfiles` turns them into features.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from alignment.data.corpus import load_bitext  # noqa: E402
from alignment.data.hansards import BITEXTS, load_hansards  # noqa: E402
from alignment.evaluate.protocol import external_cache_path  # noqa: E402
from alignment.aligners.linkfiles import ExternalAlignments, run_eflomal, run_fast_align  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--bitext", default="36-2", choices=BITEXTS,
                    help="the bundled 231k-pair bitext, or the full 1.13M pairs in ../shared/data")
    ap.add_argument("--src", help="source side of any bitext (instead of the Hansards)")
    ap.add_argument("--tgt", help="its target side (same number of lines)")
    ap.add_argument("--max-pairs", type=int, default=None, help="bitext pairs to train on (all)")
    ap.add_argument("--keep", type=int, default=20484, help="cache the links of this many lines")
    ap.add_argument("--out", default=None,
                    help="cache file (default .cache/external-hansards[-BITEXT].tsv.gz)")
    ap.add_argument("--samplers", type=int, default=3, help="eflomal's independent samplers")
    ap.add_argument("--eflomal-runs", type=int, default=1,
                    help="independent eflomal runs; run r > 1 is stored as eflomal<r>_fwd/_bwd "
                         "(their votes become a soft link feature)")
    ap.add_argument("--fast-align-from", metavar="CACHE",
                    help="reuse the fast_align links of an earlier cache instead of rerunning it")
    args = ap.parse_args(argv)
    if bool(args.src) != bool(args.tgt):
        ap.error("--src and --tgt go together")
    if args.src:
        bitext_src, bitext_tgt = Path(args.src), Path(args.tgt)
        stem = bitext_src.name.split(".")[0]
        out = args.out or str(Path(".cache") / f"external-{stem}.tsv.gz")
    else:
        data = load_hansards(args.data_dir, bitext=args.bitext)
        bitext_src, bitext_tgt = data.bitext_src, data.bitext_tgt
        out = args.out or external_cache_path(data)
    bt = load_bitext(bitext_src, bitext_tgt, max_pairs=args.max_pairs, max_len=None)
    src, tgt = bt.src, bt.tgt
    keep = min(args.keep, len(src))
    t0 = time.perf_counter()
    runs = [run_eflomal(src, tgt, n_samplers=args.samplers, keep=keep)
            for _ in range(args.eflomal_runs)]
    t_ef = time.perf_counter() - t0
    if args.fast_align_from:
        old = ExternalAlignments.load(args.fast_align_from, src[:keep], tgt[:keep])
        i = old.names.index("fast_align")
        fa = [{(j, k) for j, k in zip(*old.matrices(s, t)[i].nonzero())}
              for s, t in zip(src[:keep], tgt[:keep])]
    else:
        fa = run_fast_align(src, tgt, list(range(keep)))
    t_fa = time.perf_counter() - t0 - t_ef
    names = ["eflomal_fwd", "eflomal_bwd", "fast_align"]
    names += [f"eflomal{r}_{d}" for r in range(2, len(runs) + 1) for d in ("fwd", "bwd")]
    ext = ExternalAlignments(names)
    # what made the links, checked by the scripts that read the cache
    ext.cache_key = ExternalAlignments.bitext_key(
        bitext_src, bitext_tgt, args.max_pairs, keep=keep, samplers=args.samplers,
        eflomal_runs=args.eflomal_runs, fast_align_from=bool(args.fast_align_from))
    for i in range(keep):
        links = {"fast_align": fa[i]}
        for r, (fwd, bwd) in enumerate(runs, start=1):
            tag = "eflomal" if r == 1 else f"eflomal{r}"
            links[f"{tag}_fwd"], links[f"{tag}_bwd"] = fwd[i], bwd[i]
        ext.add(src[i], tgt[i], links)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    ext.save(out, src[:keep], tgt[:keep])
    print(f"{len(src)} pairs ({bitext_src}): eflomal {t_ef:.0f}s, fast_align {t_fa:.0f}s; "
          f"links of the first {keep} lines in {out}")


if __name__ == "__main__":
    main()
