"""The Hansards data of thesis ch. 3: the gold trial and test sentences and the bitext."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .formats import read_naacl, read_parallel

__all__ = ["default_data_dir", "shared_hansards_dir", "load_hansards", "HansardsData", "BITEXTS",
           "MAX_LENGTH"]


#: Named Hansards bitexts: ``"36-2"`` (231,648 pairs, bundled in ``data/hansards``) and
#: ``"full"`` (1,130,588 pairs, read from ``../shared/data/alignment/hansards_en-fr``; too
#: large to bundle).  Both start with the 484 trial + test gold sentences.
BITEXTS = ("36-2", "full")

#: bitext pairs longer than this (on either side) are left out of the statistics
MAX_LENGTH = 80


def default_data_dir():
    """``data/hansards`` in the repository (the bundled data)."""
    return Path(__file__).resolve().parents[2] / "data" / "hansards"


def shared_hansards_dir():
    """``../shared/data/alignment/hansards_en-fr`` next to the repository (the full bitext)."""
    return Path(__file__).resolve().parents[3] / "shared" / "data" / "alignment" / "hansards_en-fr"


@dataclass
class HansardsData:
    trial_pairs: list
    trial_gold: list
    test_pairs: list
    test_gold: list
    bitext_src: Path
    bitext_tgt: Path
    bitext: str = "36-2"

    @property
    def n_gold(self):
        """Gold sentences (trial + test): the first lines of the bitext, never left out of
        the statistics."""
        return len(self.trial_pairs) + len(self.test_pairs)

    @property
    def cache_tag(self):
        """Suffix of the external links' cache name: empty for the bundled bitext,
        ``"-full"`` etc. otherwise (the other caches are named by their fingerprints)."""
        return "" if self.bitext == "36-2" else f"-{self.bitext}"


def load_hansards(data_dir=None, bitext="36-2"):
    """The trial and test gold sets and the paths of the unlabeled bitext.

    Parameters
    ----------
    data_dir : path, optional
        Folder of ``trial.*``, ``test.*`` and the bitext (default: ``data/hansards``).
    bitext : {"36-2", "full"}
        Which bitext: the bundled 231k pairs, or the full 1.13M pairs, looked up in
        ``data_dir`` and then in :func:`shared_hansards_dir`.
    """
    if bitext not in BITEXTS:
        raise ValueError(f"unknown Hansards bitext {bitext!r}; expected one of {BITEXTS}")
    d = Path(data_dir) if data_dir else default_data_dir()

    def find(name, dirs=(d,)):
        for folder in dirs:
            for cand in (folder / f"{name}.gz", folder / name):
                if cand.exists():
                    return cand
        raise FileNotFoundError(f"{', '.join(map(str, dirs))}: missing {name}[.gz]")

    trial = read_parallel(find("trial.en"), find("trial.fr"))
    test = read_parallel(find("test.en"), find("test.fr"))
    dirs = (d,) if bitext == "36-2" else (d, shared_hansards_dir())
    return HansardsData(trial, read_naacl(find("trial.naacl"), trial),
                        test, read_naacl(find("test.naacl"), test),
                        find(f"bitext.{bitext}.en", dirs), find(f"bitext.{bitext}.fr", dirs),
                        bitext)
