"""Caches keyed by what made them (issue 17): every option that changes the statistics,
the HMM or the interaction statistics, run against an existing cache, gives a new cache
(cache folder) or a refusal naming the option (cache file), never a silent reuse, and a
cache file is never rewritten in place."""

import hashlib
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest

from alignment._cache import CacheMismatch, compare_keys
from structpred.io import key_hash
from alignment.stats.statistics import AlignmentStatistics
from structpred import FormatError, open_text
from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
N = 300     # bitext lines of the small test bitext


def _digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def bitext(tmp_path_factory):
    """The first lines of the bundled bitext as plain files, and a second bitext that
    differs in one sentence of each side."""
    d = tmp_path_factory.mktemp("bitext")
    out = {}
    for lang in ("en", "fr"):
        with open_text(DATA / f"bitext.36-2.{lang}.gz") as fh:
            lines = list(itertools.islice(fh, N))
        (d / f"b.{lang}").write_text("".join(lines), encoding="utf-8")
        lines[7] = "un autre mot ici .\n" if lang == "fr" else "another word here .\n"
        (d / f"other.{lang}").write_text("".join(lines), encoding="utf-8")
        out[lang], out[f"other_{lang}"] = d / f"b.{lang}", d / f"other.{lang}"
    return out


@pytest.fixture(scope="module")
def base_cache(bitext, tmp_path_factory):
    """A statistics cache file made with the default options, and one holding an HMM."""
    d = tmp_path_factory.mktemp("base")
    plain, with_hmm = d / "plain.npz", d / "hmm.npz"
    AlignmentStatistics.load_or_fit(plain, bitext["en"], bitext["fr"], verbose=False)
    AlignmentStatistics.load_or_fit(with_hmm, bitext["en"], bitext["fr"], verbose=False, hmm=1)
    return plain, with_hmm


def _call(bitext, cache, src="en", tgt="fr", **kw):
    return AlignmentStatistics.load_or_fit(cache, bitext[src], bitext[tgt], verbose=False, **kw)


#: (option as the user sets it, load_or_fit arguments), each a change from the defaults
CHANGES = [
    ("--bitext-src", dict(src="other_en")),
    ("--bitext-tgt", dict(tgt="other_fr")),
    ("--bitext-pairs", dict(max_pairs=200)),
    ("--max-length", dict(max_len=20)),
    ("--ibm-agreement", dict(agreement=True)),
    ("--hmm", dict(hmm=1)),
]


@pytest.mark.parametrize("option,change", CHANGES, ids=[c[0] for c in CHANGES])
def test_a_cache_file_made_otherwise_is_refused_not_reused(option, change, bitext, base_cache):
    plain, _ = base_cache
    before = _digest(plain)
    with pytest.raises(CacheMismatch) as err:
        _call(bitext, plain, **change)
    assert str(err.value).startswith(f"{plain}: made with other settings: {option}:")
    assert _digest(plain) == before            # never rewritten in place


@pytest.mark.parametrize("change", [dict(hmm=2), dict(hmm=1, hmm_agreement=True), dict()],
                         ids=["other-iterations", "hmm-agreement", "no-hmm"])
def test_a_cache_file_with_an_hmm_is_used_only_for_that_hmm(change, bitext, base_cache):
    _, with_hmm = base_cache
    before = _digest(with_hmm)
    with pytest.raises(CacheMismatch, match="--hmm"):
        _call(bitext, with_hmm, **change)
    assert _digest(with_hmm) == before
    stats = _call(bitext, with_hmm, hmm=1)      # the same settings: reused
    assert stats.hmm is not None and stats.hmm.cache_key["hmm_iterations"] == 1


def test_same_settings_reuse_the_file_without_computing(bitext, base_cache, monkeypatch):
    plain, _ = base_cache

    def boom(*a, **k):
        raise AssertionError("recomputed")

    monkeypatch.setattr(AlignmentStatistics, "from_files", classmethod(boom))
    stats = _call(bitext, plain)
    assert stats.cache_key["n_pairs"] == N and stats.bitext_report["read"] == N
    # beyond the end of the files is the same data as all of them
    assert _call(bitext, plain, max_pairs=10 * N).cache_key == stats.cache_key
    # without the bitext the file is used as it is, but options it records still count
    assert AlignmentStatistics.load_or_fit(plain, None, None, verbose=False).fingerprint() == \
        stats.fingerprint()
    with pytest.raises(CacheMismatch, match="--ibm-agreement"):
        AlignmentStatistics.load_or_fit(plain, None, None, verbose=False, agreement=True)


def test_a_cache_folder_gets_one_file_per_setting(bitext, tmp_path):
    folder = str(tmp_path) + "/"
    base = _call(bitext, folder)
    files = {p.name for p in tmp_path.glob("stats-*.npz")}
    assert len(files) == 1 and f"stats-{key_hash(base.cache_key)}.npz" in files
    for option, change in CHANGES:
        if option == "--hmm":
            continue
        stats = _call(bitext, folder, **change)
        assert compare_keys(base.cache_key, stats.cache_key)[0].startswith(option)
        new = {p.name for p in tmp_path.glob("stats-*.npz")}
        assert len(new) == len(files) + 1, option
        files = new
    # the HMM gets its own file next to the statistics, keyed by them and its settings
    _call(bitext, folder, hmm=1)
    _call(bitext, folder, hmm=1, hmm_agreement=True)
    assert len(list(tmp_path.glob("hmm-*.npz"))) == 2
    assert len({p.name for p in tmp_path.glob("stats-*.npz")}) == len(files)
    again = _call(bitext, folder, hmm=1)
    assert again.hmm is not None and not again.hmm.cache_key["hmm_agreement"]


def test_interaction_cache_follows_the_statistics_and_the_bitext(bitext, base_cache, tmp_path):
    from alignment.stats.interactions import InteractionStatistics

    plain, with_hmm = base_cache
    stats = _call(bitext, plain)
    hmm_stats = _call(bitext, with_hmm, hmm=1)
    lex = hmm_stats.with_lexicon(hmm_stats.hmm)
    cache = tmp_path / "inter.npz"
    InteractionStatistics.load_or_fit(cache, stats, bitext["en"], bitext["fr"])
    before = _digest(cache)
    with pytest.raises(FormatError, match="other IBM Model 2 statistics"):
        InteractionStatistics.load_or_fit(cache, lex, bitext["en"], bitext["fr"])
    with pytest.raises(CacheMismatch, match="--bitext-pairs"):
        InteractionStatistics.load_or_fit(cache, stats, bitext["en"], bitext["fr"], max_pairs=100)
    with pytest.raises(CacheMismatch, match="--bitext-tgt"):
        InteractionStatistics.load_or_fit(cache, stats, bitext["en"], bitext["other_fr"])
    assert _digest(cache) == before
    folder = str(tmp_path / "inter") + "/"
    a = InteractionStatistics.load_or_fit(folder, stats, bitext["en"], bitext["fr"])
    b = InteractionStatistics.load_or_fit(folder, lex, bitext["en"], bitext["fr"])
    assert a.cache_key["lexicon"] == "ibm2" and b.cache_key["lexicon"] == "hmm1"
    assert len(list(Path(folder).glob("interactions-*.npz"))) == 2


def test_the_command_line_refuses_hmm_on_a_plain_cache_and_keeps_it(bitext, base_cache, tmp_path,
                                                                    capsys):
    """The worst finding of issue 17: --hmm against a plain --stats file rewrote it."""
    plain, _ = base_cache
    stats_file = tmp_path / "s.npz"
    stats_file.write_bytes(Path(plain).read_bytes())
    before = _digest(stats_file)
    base = ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
            "--gold", str(DATA / "test.naacl.gz"), "--first", "5", "--bitext-src",
            str(bitext["en"]), "--bitext-tgt", str(bitext["fr"]), "--iterations", "2", "-q",
            "-o", str(tmp_path / "m.npz")]
    for extra, option in ((["--hmm", "1"], "--hmm"), (["--ibm-agreement"], "--ibm-agreement"),
                          (["--bitext-pairs", "100"], "--bitext-pairs"),
                          (["--max-length", "30"], "--max-length")):
        capsys.readouterr()
        assert main(base + ["--stats", str(stats_file)] + extra) == 2
        err = capsys.readouterr().err
        assert f"{stats_file}: made with other settings: {option}" in err
    rc = main(_swap(base, "--bitext-src", str(bitext["other_en"])) + ["--stats", str(stats_file)])
    assert rc == 2 and "--bitext-src" in capsys.readouterr().err
    assert _digest(stats_file) == before and not (tmp_path / "m.npz").exists()
    # a cache folder computes what is missing instead, into files named by fingerprint
    folder = tmp_path / "cache"
    folder.mkdir()
    assert main(base + ["--stats", str(folder), "--hmm", "1"]) == 0
    assert len(list(folder.glob("stats-*.npz"))) == 1 and len(list(folder.glob("hmm-*.npz"))) == 1
    from alignment.model import MatchingAligner

    model = MatchingAligner.load(tmp_path / "m.npz")
    assert "hmm_fwd" in model.feature_names_
    # the model records the statistics it was trained with
    assert model.stats_key_["n_pairs"] == N and model.stats_key_["bitext_src"]["lines"] == N


def _swap(argv, option, value):
    argv = list(argv)
    argv[argv.index(option) + 1] = value
    return argv


def test_hansards_caches_are_named_by_what_made_them(hansards, tmp_path):
    from alignment.evaluate.protocol import hansards_statistics

    a = hansards_statistics(hansards, 600, cache_dir=tmp_path, verbose=False)
    b = hansards_statistics(hansards, 500, cache_dir=tmp_path, verbose=False)
    assert a.cache_key["protect_first"] == hansards.n_gold == 484
    assert len(list(tmp_path.glob("stats-*.npz"))) == 2
    assert hansards_statistics(hansards, 600, cache_dir=tmp_path, verbose=False).fingerprint() \
        == a.fingerprint() != b.fingerprint()
    assert len(list(tmp_path.glob("stats-*.npz"))) == 2


def test_external_links_cache_records_its_bitext(bitext, tmp_path):
    from alignment.aligners.linkfiles import ExternalAlignments

    pairs = [(["a", "b"], ["x", "y"]), (["c"], ["z"])]
    ext = ExternalAlignments(["fwd"])
    for s, t in pairs:
        ext.add(s, t, {"fwd": {(0, 0)}})
    ext.cache_key = ExternalAlignments.bitext_key(bitext["en"], bitext["fr"], keep=2)
    path = tmp_path / "ext.tsv.gz"
    ext.save(path, [s for s, _ in pairs], [t for _, t in pairs])
    assert ExternalAlignments.check_cache(path, bitext["en"], bitext["fr"])
    with pytest.raises(CacheMismatch, match="--bitext-src"):
        ExternalAlignments.check_cache(path, bitext["other_en"], bitext["fr"])
    back = ExternalAlignments.load(path, [s for s, _ in pairs], [t for _, t in pairs])
    assert back.cache_key == json.loads(json.dumps(ext.cache_key)) and len(back) == 2
    # an older file (no header line) is read, and says it records nothing
    old = tmp_path / "old.tsv"
    old.write_text("fwd\n0-0\n0-0\n")
    assert not ExternalAlignments.check_cache(old, bitext["en"], bitext["fr"])
    assert len(ExternalAlignments.load(old, [s for s, _ in pairs], [t for _, t in pairs])) == 2
    bad = tmp_path / "v9.tsv"
    bad.write_text("#structpred-external-links 9 null\nfwd\n0-0\n0-0\n")
    with pytest.raises(FormatError, match="v9.tsv:1: .*format version 9"):
        ExternalAlignments.load(bad, [s for s, _ in pairs], [t for _, t in pairs])


def test_every_written_file_records_format_and_version(bitext, base_cache, tmp_path):
    from alignment.stats.hmm import HMMTables
    from alignment.stats.interactions import InteractionStatistics

    plain, with_hmm = base_cache
    with np.load(plain, allow_pickle=False) as z:
        assert str(z["format"]) == "structpred-alignment-statistics" and int(z["version"]) == 2
    stats = _call(bitext, with_hmm, hmm=1)
    stats.hmm.save(tmp_path / "h.npz")
    with np.load(tmp_path / "h.npz", allow_pickle=False) as z:
        assert str(z["format"]) == "structpred-hmm-tables" and "provenance" in z.files
    back = HMMTables.load(tmp_path / "h.npz")
    assert back.cache_key == stats.hmm.cache_key
    with pytest.raises(FormatError, match="not HMM tables"):
        HMMTables.load(plain)
    inter = InteractionStatistics.load_or_fit(None, stats, bitext["en"], bitext["fr"])
    inter.save(tmp_path / "i.npz")
    with np.load(tmp_path / "i.npz", allow_pickle=False) as z:
        assert str(z["format"]) == "structpred-interaction-statistics" and int(z["version"]) == 2
    with pytest.raises(FormatError, match="not interaction statistics"):
        InteractionStatistics.load(tmp_path / "h.npz")


def test_a_cache_made_under_other_word_rules_is_not_reused(bitext, base_cache, tmp_path,
                                                           monkeypatch):
    """The words of a file depend on the rules that read it (structpred.io.WORD_RULES):
    a cache made under other rules is refused (one file) or not found (a folder)."""
    import alignment._cache as cache_mod

    plain, _ = base_cache
    folder = tmp_path / "stats"
    folder.mkdir()
    _call(bitext, folder)
    monkeypatch.setattr(cache_mod, "WORD_RULES", cache_mod.WORD_RULES + 1)
    with pytest.raises(CacheMismatch, match=re.escape("the rules that read words")):
        _call(bitext, plain)
    computed = []
    real = AlignmentStatistics.from_files
    monkeypatch.setattr(AlignmentStatistics, "from_files",
                        lambda *a, **k: computed.append(1) or real(*a, **k))
    _call(bitext, folder)
    assert computed and len(list(folder.glob("stats-*.npz"))) == 2
