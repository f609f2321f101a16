"""Other aligners' links read from files (``--external``; thesis sec. 3.4.1, "beyond Model 2").

The thesis got from 6.2 to 3.8 AER by adding IBM Model 4 and Liang et al.'s
predictions as edge features.  Here the strong unsupervised aligners are

* **eflomal** (Östling & Tiedemann 2016; ``pip install eflomal``), a Bayesian
  HMM+fertility aligner sampled with collapsed Gibbs, run in both directions;
* **fast_align** (Dyer et al. 2013) through ``systran-align``, whose output is
  already symmetrised.

Both are optional extras: ``pip install structpred[aligners]``.  They are run
once on the unlabeled bitext (which contains the evaluation sentences) and
their links are cached as Pharaoh files; :class:`ExternalAlignments` looks the
links of a sentence pair up by its text.  eflomal takes no seed, so two runs
differ slightly; everything downstream of the cached files is deterministic.

Symmetrisation is in :mod:`alignment.aligners.symmetrize`, the features of these links in
:class:`alignment.features.links.ExternalFeaturizer`.
"""

from __future__ import annotations

import hashlib
import itertools
import tempfile
import time
from pathlib import Path

import numpy as np

import json
import re

from structpred import FormatError, atomic_write, read_lines
from structpred.io import counted, split_tokens

from ..data.formats import Alignment, check_index_base

from .._runtime import log as _log
from .symmetrize import links_matrix

__all__ = ["ExternalAlignments", "run_eflomal", "run_fast_align"]


_LINK = re.compile(r"^([0-9]{1,9})-([0-9]{1,9})$")

#: first line of the cache files written by :meth:`ExternalAlignments.save`
CACHE_MAGIC = "#structpred-external-links"
#: 2: a first line with the magic, the version and the provenance (JSON)
CACHE_VERSION = 2

#: the last line of a cache file: the sha256 digest of its names and link lines (a file
#: edited keeping its layout was read silently; files without one are read unchecked)
DIGEST_MARK = "#structpred-digest"


def _parse_pharaoh(line, path, lineno, shape):
    links = set()
    for tok in split_tokens(line, path, lineno):
        match = _LINK.match(tok)
        if match is None:
            raise FormatError(path, lineno, f"bad link {tok[:40]!r} (expected 'i-j'){_hint(tok)}")
        j, k = int(match.group(1)), int(match.group(2))
        if j >= shape[0] or k >= shape[1]:
            raise FormatError(path, lineno, f"link {tok} outside a {shape[0]}x{shape[1]} pair")
        links.add((j, k))
    return links


def _hint(tok):
    """Why a link of another form is refused: a score (``i-j:p``, ``align unsupervised
    --soft``) or a possible link (``i?j``, ``ipj``: gold) are not an aligner's links, and
    a word is a sentence's."""
    if re.fullmatch(r"[0-9]+-[0-9]+:.*", tok):
        return (": a link with its score, as 'align unsupervised --soft' writes; these files "
                "take the links alone (write them without --soft)")
    if re.fullmatch(r"[0-9]+[?p][0-9]+", tok):
        return ": a possible link, as gold has; these files take an aligner's links, not gold"
    if not any(c.isdigit() for c in tok):
        return ": a word, not a link: a file of sentences given for links?"
    return ""


class ExternalAlignments:
    """Links of external aligners for a set of sentence pairs, looked up by text.

    Parameters
    ----------
    names : list of str
        Names of the link sets (e.g. ``"eflomal_fwd"``); each becomes an
        edge feature ``ext:<name>`` and pair-pattern features.
    """

    def __init__(self, names):
        self.names = list(names)
        self._table = {}
        #: what made the links (bitext fingerprints, aligner settings), when known
        self.cache_key = None

    def add(self, src, tgt, links_by_name):
        missing = set(self.names) - set(links_by_name)
        if missing:
            raise ValueError(f"missing link sets {sorted(missing)}")
        self._table[_key(src, tgt)] = {n: frozenset(links_by_name[n]) for n in self.names}

    def __len__(self):
        return len(self._table)

    def __contains__(self, pair):
        return _key(*pair) in self._table

    def matrices(self, src, tgt):
        """``(len(names), m, n)`` 0/1 links of each set; zeros for a pair never aligned."""
        shape = (len(src), len(tgt))
        out = np.zeros((len(self.names),) + shape)
        entry = self._table.get(_key(src, tgt))
        if entry is not None:
            for i, n in enumerate(self.names):
                out[i] = links_matrix(entry[n], shape)
        return out

    # ---------------------------------------------------------------- files
    @classmethod
    def from_files(cls, src_sentences, tgt_sentences, files):
        """Read Pharaoh files (one per name, line-aligned with the sentences)."""
        ext = cls(list(files))
        per_name = {}
        for name, path in files.items():
            lines = [text for _, text in read_lines(path)]
            if len(lines) != len(src_sentences):
                raise FormatError(path, min(len(lines), len(src_sentences)) + 1,
                                  f"{len(lines)} alignment lines for {len(src_sentences)} "
                                  "sentence pairs")
            per_name[name] = [_parse_pharaoh(ln, path, i + 1, (len(s), len(t)))
                              for i, (ln, s, t) in enumerate(zip(lines, src_sentences,
                                                                 tgt_sentences))]
            check_index_base(path, [Alignment.from_links(ls) for ls in per_name[name]],
                             None, "pharaoh", gold=False)   # 1-based links: read shifted
        for i, (s, t) in enumerate(zip(src_sentences, tgt_sentences)):
            ext.add(s, t, {n: per_name[n][i] for n in ext.names})
        return ext

    def save(self, path, src_sentences, tgt_sentences):
        """Write as one text file (gzipped if ``path`` ends in ``.gz``), atomically: a first
        line with the format version and ``cache_key`` (JSON), a line of the names, then
        one line per sentence with a tab-separated Pharaoh field per name."""
        digest = hashlib.sha256()
        with atomic_write(path) as fh:
            fh.write(f"{CACHE_MAGIC} {CACHE_VERSION} "
                     f"{json.dumps(self.cache_key, sort_keys=True)}\n")
            for line in itertools.chain(["\t".join(self.names)], (
                    "\t".join(" ".join(f"{j}-{k}" for j, k in sorted(e[n])) for n in self.names)
                    for e in (self._table[_key(s, t)]
                              for s, t in zip(src_sentences, tgt_sentences)))):
                digest.update(line.encode("utf-8") + b"\n")
                fh.write(line + "\n")
            fh.write(f"{DIGEST_MARK} sha256:{digest.hexdigest()}\n")

    @staticmethod
    def read_key(path):
        """The ``cache_key`` recorded in a cache file (None for files from before version 2,
        which record none)."""
        for _, text in read_lines(path):
            return _header(path, text)[1]
        raise FormatError(path, None, "empty file, not an external-links cache")

    @staticmethod
    def bitext_key(src_path, tgt_path, n_pairs=None, **settings):
        """A cache key for links computed on a bitext: its files' fingerprints and the
        number of pairs (:func:`alignment._cache.bitext_key`) and the aligners' settings."""
        from .._cache import bitext_key

        key = bitext_key(src_path, tgt_path, n_pairs)
        key.pop("max_length")
        key.pop("protect_first")
        key["aligners"] = dict(sorted(settings.items()))
        return key

    @classmethod
    def check_cache(cls, path, src_path, tgt_path):
        """Refuse a cache file made from another bitext than ``src_path``/``tgt_path``
        (:class:`~alignment._cache.CacheMismatch`).  Returns False for a file from before
        version 2, which records no bitext (the caller may warn), True otherwise."""
        from .._cache import CacheMismatch, compare_keys
        from structpred.io import file_fingerprint

        key = cls.read_key(path)
        if key is None:
            return False
        wanted = {"bitext_src": file_fingerprint(src_path), "bitext_tgt": file_fingerprint(tgt_path)}
        diffs = compare_keys({k: key.get(k) for k in wanted}, wanted)
        if diffs:
            raise CacheMismatch(path, diffs, "its links were computed on another bitext")
        return True

    @classmethod
    def load(cls, path, src_sentences, tgt_sentences):
        """Read a file written by :meth:`save` for these sentences (line ``i`` of the links
        belongs to sentence ``i``).  Files from before the format version (no first line)
        are read too, with ``cache_key`` None."""
        lines = iter(read_lines(path))
        first = next(lines, None)
        if first is None:
            raise FormatError(path, None, "empty file, not an external-links cache")
        version, key = _header(path, first[1])
        if version >= 2:
            first = next(lines, None)
            if first is None:
                raise FormatError(path, 2, "missing the line of link-set names")
        names = first[1].split("\t")
        if not all(names) or len(set(names)) != len(names):
            raise FormatError(path, first[0], "bad link-set names (expected distinct, "
                              "tab-separated names)")
        ext = cls(names)
        ext.cache_key = key
        digest = hashlib.sha256(first[1].encode("utf-8") + b"\n")
        pairs = zip(src_sentences, tgt_sentences)
        for lineno, line in lines:
            if line.startswith(DIGEST_MARK + " "):
                _check_digest(path, line, digest)
                break
            digest.update(line.encode("utf-8") + b"\n")   # every line, the unread ones too
            pair = next(pairs, None)
            if pair is None:
                continue
            fields = line.split("\t")
            if len(fields) != len(names):
                raise FormatError(path, lineno, f"{len(fields)} fields, expected {len(names)}")
            s, t = pair
            ext.add(s, t, {n: _parse_pharaoh(f, path, lineno, (len(s), len(t)))
                           for n, f in zip(names, fields)})
        return ext


def _check_digest(path, line, digest):
    """Refuse a cache file whose lines do not give the digest of its last line (an edit)."""
    from structpred.io import DAMAGED_CACHE_HINT

    if line.split(" ", 1)[1].strip() != "sha256:" + digest.hexdigest():
        raise FormatError(path, None, "an external-links cache changed after it was written "
                          "(its content digest does not match the one recorded) "
                          f"({DAMAGED_CACHE_HINT})")


def _header(path, text):
    """``(version, cache key)`` of a cache file's first line (version 1: no such line)."""
    if not text.startswith(CACHE_MAGIC):
        return 1, None
    parts = text.split(" ", 2)
    try:
        version = int(parts[1])
        key = json.loads(parts[2]) if len(parts) > 2 else None
    except (IndexError, ValueError):
        raise FormatError(path, 1, "corrupt external-links cache header") from None
    if version != CACHE_VERSION:
        raise FormatError(path, 1, f"external-links cache of format version {version}, which "
                          f"this structpred cannot read (it reads 1, {CACHE_VERSION})")
    if key is not None and not isinstance(key, dict):
        raise FormatError(path, 1, "corrupt external-links cache header")
    return version, key


# ------------------------------------------------------------------------ runners
def run_eflomal(src_sentences, tgt_sentences, model=3, n_samplers=2, verbose=True, keep=None):
    """Run eflomal both ways; returns ``(fwd, bwd)`` lists of link sets (source-target).

    eflomal is trained on all pairs; only the links of the first ``keep`` pairs (all
    when ``None``) are read back, which saves memory on a large bitext.
    Raises ``ImportError`` with the install hint when eflomal is missing.
    """
    try:
        import eflomal
    except ImportError as exc:   # pragma: no cover - depends on the extra
        raise ImportError("eflomal is not installed: pip install 'structpred[aligners]'") from exc
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        fwd_path, bwd_path = Path(tmp) / "fwd", Path(tmp) / "bwd"
        aligner = eflomal.Aligner(model=model, n_samplers=n_samplers)
        aligner.align([" ".join(s) + "\n" for s in src_sentences],
                      [" ".join(t) + "\n" for t in tgt_sentences],
                      links_filename_fwd=str(fwd_path), links_filename_rev=str(bwd_path),
                      quiet=not verbose)
        out = []
        for path in (fwd_path, bwd_path):
            with open(path, encoding="utf-8") as fh:
                pairs = zip(fh, src_sentences, tgt_sentences)
                out.append([_parse_pharaoh(ln, path, i + 1, (len(s), len(t)))
                            for i, (ln, s, t) in enumerate(itertools.islice(pairs, keep))])
    _log(verbose, f"eflomal: {counted(len(src_sentences), 'pair')} in {time.perf_counter() - t0:.0f}s")
    return out[0], out[1]


def run_fast_align(src_sentences, tgt_sentences, align_indices, iterations=5, verbose=True):
    """fast_align (systran-align) trained on all pairs; returns the symmetrised links of
    the pairs at ``align_indices`` (systran-align symmetrises internally)."""
    try:
        import systran_align
    except ImportError as exc:   # pragma: no cover - depends on the extra
        raise ImportError("systran-align is not installed: pip install 'structpred[aligners]'") \
            from exc
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        with open(corpus, "w", encoding="utf-8") as fh:
            for s, t in zip(src_sentences, tgt_sentences):
                fh.write(" ".join(s) + " ||| " + " ".join(t) + "\n")
        fp, bp = str(Path(tmp) / "fwd.probs"), str(Path(tmp) / "bwd.probs")
        systran_align.generate_alignment_probabilities(str(corpus), fp, bp, verbose=False,
                                                       iterations=iterations,
                                                       favor_diagonal=True,
                                                       optimize_tension=True)
        aligner = systran_align.Aligner(fp, bp)
        res = aligner.align_batch([list(src_sentences[i]) for i in align_indices],
                                  [list(tgt_sentences[i]) for i in align_indices])
    links = [{(int(a["source_index"] if isinstance(a, dict) else a[0]),
               int(a["target_index"] if isinstance(a, dict) else a[1])) for a in r["alignments"]}
             for r in res]
    _log(verbose, f"fast_align: {counted(len(src_sentences), 'pair')} in {time.perf_counter() - t0:.0f}s")
    return links


def _key(src, tgt):
    return hashlib.blake2b((" ".join(src) + " ||| " + " ".join(tgt)).encode("utf-8"),
                           digest_size=12).digest()
