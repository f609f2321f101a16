"""Choosing the Hansards bitext (bundled 36-2 or the full 1.13M pairs in ../shared/data)."""

import itertools

import pytest

from alignment.corpus import load_bitext
from alignment.experiment import (external_cache_path, hansards_statistics, load_hansards,
                                  shared_hansards_dir)
from structpred import open_text

from conftest import DATA


def _copy_lines(src, dst, n):
    with open_text(src) as fh, open(dst, "w", encoding="utf-8") as out:
        out.writelines(itertools.islice(fh, n))


def test_default_is_the_bundled_bitext_with_the_old_external_cache_name(hansards):
    assert hansards.bitext == "36-2" and hansards.cache_tag == ""
    assert hansards.bitext_src.name == "bitext.36-2.en.gz"
    assert str(external_cache_path(hansards)).endswith("external-hansards.tsv.gz")


def test_unknown_bitext_is_an_error():
    with pytest.raises(ValueError, match="unknown Hansards bitext"):
        load_hansards(DATA, bitext="nope")


def test_full_bitext_gets_its_own_caches(tmp_path):
    d = tmp_path / "hansards"
    d.mkdir()
    for name in ("trial.en", "trial.fr", "trial.naacl", "test.en", "test.fr", "test.naacl"):
        (d / f"{name}.gz").symlink_to(DATA / f"{name}.gz")
    for lang in ("en", "fr"):   # a small stand-in "full" bitext: the first 600 bundled lines
        _copy_lines(DATA / f"bitext.36-2.{lang}.gz", d / f"bitext.full.{lang}", 600)
    data = load_hansards(d, bitext="full")
    assert data.bitext_src == d / "bitext.full.en" and data.cache_tag == "-full"
    assert external_cache_path(data, tmp_path).name == "external-hansards-full.tsv.gz"
    stats = hansards_statistics(data, 600, cache_dir=tmp_path, verbose=False)
    bundled = load_hansards(DATA)
    # the cache is named by the fingerprint of the bitext: the bundled bitext's first 600
    # lines (the same text, in other files) get another file
    hansards_statistics(bundled, 600, cache_dir=tmp_path, verbose=False)
    assert len(list(tmp_path.glob("stats-*.npz"))) == 2
    assert stats.cache_key["n_pairs"] == 600 and stats.cache_key["protect_first"] == 484


@pytest.mark.skipif(not (shared_hansards_dir() / "bitext.full.en.gz").exists(),
                    reason="../shared/data/alignment/hansards_en-fr is not here")
def test_shared_full_bitext_starts_with_the_gold_sentences():
    data = load_hansards(bitext="full")
    bt = load_bitext(data.bitext_src, data.bitext_tgt, max_pairs=484, max_len=None)
    assert bt.src == [s for s, _ in data.trial_pairs + data.test_pairs]
    assert bt.tgt == [t for _, t in data.trial_pairs + data.test_pairs]


def test_run_eflomal_reads_back_only_the_first_pairs(hansards):
    pytest.importorskip("eflomal")
    from alignment.external import run_eflomal

    bt = load_bitext(hansards.bitext_src, hansards.bitext_tgt, max_pairs=800, max_len=None)
    fwd, bwd = run_eflomal(bt.src, bt.tgt, n_samplers=1, verbose=False, keep=20)
    assert len(fwd) == len(bwd) == 20
    for links, s, t in itertools.chain(zip(fwd, bt.src, bt.tgt), zip(bwd, bt.src, bt.tgt)):
        assert links and all(0 <= j < len(s) and 0 <= k < len(t) for j, k in links)
