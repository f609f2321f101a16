"""The evaluation protocols of the unsupervised aligners: Hansards (English-French) and
Czech-English, as importable helpers (and a summary when run).

    python scripts/czech_protocol.py          # prints the splits and their sizes

Czech (``$STRUCTPRED_CZECH_DIR``, or by default ``../shared/data/alignment/czech_en-cs``
beside the repository, where the project's shared data sets live):
``bitext.{en,cs}.gz`` holds 12,500 pairs whose first 800 lines are the gold-aligned
dev sentences (``dev.naacl``); lines 801-1,600 are the corpus's held-out test half,
whose gold is deliberately not available (never looked for, never tuned on).  The
split used here, on the dev gold only:

* ``tune``  = dev sentences 1-400 (choose defaults / train supervised models),
* ``valid`` = dev sentences 401-600,
* ``test``  = dev sentences 601-800 (reported).

Hansards (``data/hansards``): ``bitext.36-2.{en,fr}.gz`` (231,648 pairs; lines 1-37 =
trial, 38-484 = test gold sentences).  ``tune`` = the 37 trial sentences; ``test`` = the
last 247 test sentences (test sentences 201-447, as in the supervised experiments,
whose first 200 test sentences are training data).

Unsupervised aligners are trained on the whole bitext (which contains the evaluation
sentences, as usual for them); they never see any gold.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from alignment.data.formats import read_naacl, read_parallel  # noqa: E402
from structpred import open_text  # noqa: E402

CZECH_DIR = Path(os.environ.get("STRUCTPRED_CZECH_DIR",
                                ROOT.parent / "shared" / "data" / "alignment" / "czech_en-cs"))
HANSARDS_DIR = ROOT / "data" / "hansards"


@dataclass
class Corpus:
    """An unlabeled bitext whose first lines carry gold alignments.

    ``splits[name]`` = list of 0-based bitext line numbers; ``gold[i]`` = the
    :class:`~alignment.data.formats.Alignment` of bitext line ``i`` (for gold lines only).
    """

    name: str
    src_path: Path
    tgt_path: Path
    src: list          # normalised lines (tokens joined by one space)
    tgt: list
    gold: dict
    splits: dict

    def pairs(self, lines):
        return [(self.src[i].split(), self.tgt[i].split()) for i in lines]


def _lines(path):
    with open_text(path) as fh:
        return [" ".join(ln.split()) for ln in fh]


def load_corpus(name):
    """``"hansards"`` or ``"czech"`` as a :class:`Corpus`."""
    if name == "hansards":
        d = HANSARDS_DIR
        src_p, tgt_p = d / "bitext.36-2.en.gz", d / "bitext.36-2.fr.gz"
        src, tgt = _lines(src_p), _lines(tgt_p)
        trial = read_parallel(d / "trial.en.gz", d / "trial.fr.gz")
        test = read_parallel(d / "test.en.gz", d / "test.fr.gz")
        tg = read_naacl(d / "trial.naacl.gz", trial)
        sg = read_naacl(d / "test.naacl.gz", test)
        gold = {i: g for i, g in enumerate(tg)}
        gold.update({37 + i: g for i, g in enumerate(sg)})
        for i, (s, t) in enumerate(trial + test):   # the bitext starts with them
            assert src[i].split() == s and tgt[i].split() == t, f"bitext line {i + 1} differs"
        splits = {"tune": list(range(37)), "test": list(range(37 + 200, 37 + 447)),
                  "test_all": list(range(37, 37 + 447))}
        return Corpus(name, src_p, tgt_p, src, tgt, gold, splits)
    if name == "czech":
        d = CZECH_DIR
        src_p, tgt_p = d / "bitext.en.gz", d / "bitext.cs.gz"
        src, tgt = _lines(src_p), _lines(tgt_p)
        dev = read_parallel(d / "dev.en", d / "dev.cs")
        gold = dict(enumerate(read_naacl(d / "dev.naacl", dev)))
        for i, (s, t) in enumerate(dev):
            assert src[i].split() == s and tgt[i].split() == t, f"bitext line {i + 1} differs"
        splits = {"tune": list(range(0, 400)), "valid": list(range(400, 600)),
                  "test": list(range(600, 800))}
        return Corpus(name, src_p, tgt_p, src, tgt, gold, splits)
    raise ValueError(f"unknown corpus {name!r}: hansards or czech")


def score(corpus, links_by_line, split):
    """:class:`~alignment.evaluate.aer.AERScore` of ``{line: set of links}`` on a split."""
    from alignment.evaluate.aer import score_alignments

    lines = corpus.splits[split]
    return score_alignments([links_by_line[i] for i in lines],
                            [corpus.gold[i] for i in lines])


def main():
    for name in ("hansards", "czech"):
        c = load_corpus(name)
        print(f"{name}: {len(c.src)} bitext pairs ({c.src_path}); gold lines {len(c.gold)}; "
              + ", ".join(f"{k} = lines {v[0] + 1}-{v[-1] + 1} ({len(v)})"
                          for k, v in c.splits.items()))


if __name__ == "__main__":
    main()
