"""Choosing the Hansards bitext (bundled 36-2 or the full 1.13M pairs in ../shared/data)."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment.data.corpus import iter_bitext, load_bitext
from alignment.evaluate.protocol import external_cache_path, hansards_statistics
from alignment.data.hansards import load_hansards, shared_hansards_dir
from structpred import FormatError, open_text

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
    from alignment.aligners.linkfiles import run_eflomal

    bt = load_bitext(hansards.bitext_src, hansards.bitext_tgt, max_pairs=800, max_len=None)
    fwd, bwd = run_eflomal(bt.src, bt.tgt, n_samplers=1, verbose=False, keep=20)
    assert len(fwd) == len(bwd) == 20
    for links, s, t in itertools.chain(zip(fwd, bt.src, bt.tgt), zip(bwd, bt.src, bt.tgt)):
        assert links and all(0 <= j < len(s) and 0 <= k < len(t) for j, k in links)


_WORDS = st.lists(st.sampled_from(["a", "b", "c"]), max_size=7).map(" ".join)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pairs=st.lists(st.tuples(_WORDS, _WORDS), min_size=1, max_size=12),
       skip=st.integers(0, 4), max_len=st.one_of(st.none(), st.integers(1, 6)),
       max_ratio=st.one_of(st.none(), st.sampled_from([1.0, 1.5, 3.0])))
def test_iter_bitext_keeps_what_load_bitext_keeps(tmp_path, pairs, skip, max_len, max_ratio):
    """The lazy reader (scale_dask, train_without_gold) and load_bitext agree pair by pair."""
    src, tgt = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("".join(s + "\n" for s, _ in pairs), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for _, t in pairs), encoding="utf-8")
    lazy = list(iter_bitext(src, tgt, skip_first=skip, max_len=max_len, max_ratio=max_ratio))
    if skip >= len(pairs):
        assert lazy == []
        return
    ref = load_bitext(src, tgt, max_len=max_len, max_ratio=max_ratio, skip_first=skip)
    assert [i for i, _, _ in lazy] == list(ref.line_ids)
    assert [(s, t) for _, s, t in lazy] == list(zip(ref.src, ref.tgt))


def test_iter_bitext_names_the_longer_file(tmp_path):
    src, tgt = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("a\nb\nc\n", encoding="utf-8")
    tgt.write_text("x\ny\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"s\.txt:3: line counts differ"):
        list(iter_bitext(src, tgt))
