"""alignment.aligners.runs: eflomal and fast_align as cached, fingerprinted runs.

The cache logic is checked with a stand-in for the aligner (deterministic, counts its
calls); the real eflomal and fast_align runs on a tiny bitext check structure only
(eflomal cannot be seeded, so no exact links are asserted).  eflomal and systran-align
are installed in CI through the ``aligners`` extra; without them those tests skip.
"""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from alignment.aligners import runs as al
from alignment.aligners.symmetrize import symmetrize
from structpred import FormatError

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"


def _read(name, n):
    with gzip.open(DATA / name, "rt", encoding="utf-8") as fh:
        return [ln.split() for _, ln in zip(range(n), fh)]


@pytest.fixture(scope="module")
def tiny():
    """The 37 Hansards trial sentence pairs (real text)."""
    return _read("trial.en.gz", 37), _read("trial.fr.gz", 37)


def _fake_eflomal(calls):
    """A deterministic stand-in for eflomal: the diagonal as fwd, diagonal + 1 as bwd."""

    def fake(src_lines, tgt_lines, opts, priors=None, verbose=False):
        calls.append((len(src_lines), dict(opts), priors))
        fwd, bwd = [], []
        for s, t in zip(src_lines, tgt_lines):
            m, n = len(s.split()), len(t.split())
            fwd.append({(j, j) for j in range(min(m, n))})
            bwd.append({(j, j + 1) for j in range(min(m, n - 1))} | {(0, 0)})
        return {"fwd": al.LinkSets.from_sets(fwd), "bwd": al.LinkSets.from_sets(bwd)}

    return fake


# ------------------------------------------------------------------ cache (stand-in)
def test_same_inputs_reuse_the_cache(tiny, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(al, "_eflomal", _fake_eflomal(calls))
    src, tgt = tiny
    r1 = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path)
    r2 = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path)
    assert len(calls) == 1 and not r1.from_cache and r2.from_cache
    assert r1.fingerprint == r2.fingerprint
    assert r1.directions["fwd"] == r2.directions["fwd"]
    # the same text as strings, or as a file, is the same bitext
    r3 = al.run_aligner("eflomal", [" ".join(s) for s in src], [" ".join(t) for t in tgt],
                        cache_dir=tmp_path)
    assert r3.from_cache and len(calls) == 1
    p_src, p_tgt = tmp_path / "s.txt", tmp_path / "t.txt.gz"
    p_src.write_text("".join(" ".join(s) + "\n" for s in src), encoding="utf-8")
    with gzip.open(p_tgt, "wt", encoding="utf-8") as fh:
        fh.write("".join("  ".join(t) + " \n" for t in tgt))   # extra spaces normalised
    assert al.run_aligner("eflomal", p_src, p_tgt, cache_dir=tmp_path).from_cache
    meta = json.loads((r1.path / "meta.json").read_text())
    assert meta["n_pairs"] == 37 and meta["aligner"] == "eflomal"
    assert meta["version"] == al.available_aligners().get("eflomal", meta["version"])


def test_cache_entries_use_the_one_model_file_format_and_old_entries_still_load(
        tiny, tmp_path, monkeypatch):
    """The links of an entry are a :func:`structpred.io.save_npz` file (format and version
    in its header); an entry written before that (plain arrays, no ``links_format`` in its
    ``meta.json``) is still read, with the same links."""
    from structpred.io import load_npz

    monkeypatch.setattr(al, "_eflomal", _fake_eflomal([]))
    run = al.run_aligner("eflomal", *tiny, cache_dir=tmp_path)
    header, _ = load_npz(run.path / "links.npz", al.LINKS_FORMAT, (al.LINKS_VERSION,))
    assert header["aligner"] == "eflomal"
    arrays = {}
    for d, ls in run.directions.items():
        arrays.update(ls.to_arrays(d + "_"))
    np.savez_compressed(run.path / "links.npz", **arrays)          # the older layout
    meta = json.loads((run.path / "meta.json").read_text())
    del meta["links_format"], meta["digest"]     # neither was written then
    (run.path / "meta.json").write_text(json.dumps(meta))
    old = al.load_run(run.path)
    assert all(old.directions[d] == run.directions[d] for d in run.directions)


@pytest.mark.parametrize("change", ["token", "pair_count", "option", "replicate", "version"])
def test_any_changed_input_or_option_recomputes(tiny, tmp_path, monkeypatch, change):
    calls = []
    monkeypatch.setattr(al, "_eflomal", _fake_eflomal(calls))
    monkeypatch.setattr(al, "_version", lambda name: "2.0.0")
    src, tgt = tiny
    base = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path)
    kw = {}
    s2, t2 = [list(s) for s in src], [list(t) for t in tgt]
    if change == "token":
        t2[20][0] = t2[20][0] + "x"     # one token in the middle of the text
    elif change == "pair_count":
        s2, t2 = s2[:-1], t2[:-1]
    elif change == "option":
        kw = {"n_samplers": 2}
    elif change == "replicate":
        kw = {"replicate": 1}
    else:
        monkeypatch.setattr(al, "_version", lambda name: "2.0.1")
    other = al.run_aligner("eflomal", s2, t2, cache_dir=tmp_path, **kw)
    assert len(calls) == 2 and not other.from_cache
    assert other.fingerprint != base.fingerprint
    assert len(list(tmp_path.iterdir())) == 2
    # and the first entry is still there, untouched
    assert al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path).from_cache


def test_no_cache_and_refresh(tiny, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(al, "_eflomal", _fake_eflomal(calls))
    src, tgt = tiny
    al.run_aligner("eflomal", src, tgt, cache_dir=None)
    al.run_aligner("eflomal", src, tgt, cache_dir=None)
    assert len(calls) == 2
    al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path)
    assert not al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path, refresh=True).from_cache
    assert len(calls) == 4


def test_unfinished_entry_is_not_used(tiny, tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(al, "_eflomal", _fake_eflomal(calls))
    src, tgt = tiny
    r = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path)
    (r.path / "meta.json").unlink()           # as if the run had been interrupted
    assert not al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path).from_cache


def test_derived_link_sets_come_from_the_two_directions(tiny, tmp_path, monkeypatch):
    monkeypatch.setattr(al, "_eflomal", _fake_eflomal([]))
    src, tgt = tiny
    run = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path)
    idx = [0, 5, 36]
    f, b = run.links("fwd", idx), run.links("bwd", idx)
    for view in al.EFLOMAL_VIEWS[2:]:
        assert run.links(view, idx) == [symmetrize(x, y, view) for x, y in zip(f, b)]
    assert run.links("gdfa", idx) == run.links("grow-diag-final-and", idx)
    assert run.links(None, idx) == run.links("intersection", idx)   # eflomal's default
    sets = al.link_sets(["eflomal_fwd", "eflomal_inter", "eflomal:union", "eflomal_gdfa"],
                        src, tgt, indices=idx, cache_dir=tmp_path)
    assert sets["eflomal_fwd"] == f
    assert sets["eflomal_inter"] == [x & y for x, y in zip(f, b)]
    assert sets["eflomal:union"] == [x | y for x, y in zip(f, b)]
    assert run.pharaoh_lines("fwd", [0])[0] == " ".join(f"{j}-{j}" for j in
                                                        range(min(len(src[0]), len(tgt[0]))))
    ext = al.external_alignments(["eflomal_fwd", "eflomal_bwd"], src, tgt, indices=idx,
                                 cache_dir=tmp_path)
    assert len(ext) == 3 and (src[5], tgt[5]) in ext
    assert ext.matrices(src[5], tgt[5])[0].sum() == len(f[1])


def test_link_set_names():
    assert al.parse_link_set_name("eflomal:intersection") == ("eflomal", "intersection")
    assert al.parse_link_set_name("eflomal:gdfa") == ("eflomal", "grow-diag-final-and")
    assert al.parse_link_set_name("eflomal_bwd") == ("eflomal", "bwd")
    assert al.parse_link_set_name("fast_align") == ("fast_align", "sym")
    assert al.parse_link_set_name("eflomal") == ("eflomal", "intersection")
    with pytest.raises(ValueError, match="no link set"):
        al.parse_link_set_name("fast_align:fwd")     # systran-align gives no directions
    with pytest.raises(ValueError, match="unknown aligner"):
        al.parse_link_set_name("giza:fwd")


def test_resolve_aligners(monkeypatch):
    monkeypatch.setattr(al, "_version", lambda n: "1.0" if n == "eflomal" else None)
    assert al.available_aligners() == {"eflomal": "1.0"}
    assert al.resolve_aligners("auto") == ["eflomal"]
    assert al.resolve_aligners("none") == [] and al.resolve_aligners("") == []
    assert al.resolve_aligners("eflomal") == ["eflomal"]
    with pytest.raises(ImportError, match="pip install"):
        al.resolve_aligners("eflomal,fast_align")
    with pytest.raises(ValueError, match="unknown aligner"):
        al.resolve_aligners("giza")


def test_bad_inputs(tiny, tmp_path):
    src, tgt = tiny
    with pytest.raises(ValueError, match="source but"):
        al.run_aligner("eflomal", src, tgt[:-1], cache_dir=tmp_path)
    with pytest.raises(ValueError, match="empty side"):
        al.run_aligner("eflomal", src[:2], [tgt[0], []], cache_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown eflomal options"):
        al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path, seed=1)
    with pytest.raises(ValueError, match="unknown aligner"):
        al.run_aligner("giza", src, tgt)


def test_link_sets_roundtrip_and_checks():
    sets = [{(0, 1), (2, 0)}, set(), {(1, 1)}]
    ls = al.LinkSets.from_sets(sets)
    assert list(ls) == sets and len(ls) == 3 and ls.pharaoh(0) == "0-1 2-0"
    back = al.LinkSets.from_arrays(ls.to_arrays("x_"), "x_")
    assert back == ls
    p = al.LinkSets.from_pharaoh(["0-1 2-0", "", "1-1"], [3, 1, 2], [2, 1, 2])
    assert p == ls
    with pytest.raises(FormatError, match="outside"):
        al.LinkSets.from_pharaoh(["0-2"], [3], [2])
    with pytest.raises(FormatError, match="bad link"):
        al.LinkSets.from_pharaoh(["0:1"], [3], [2])
    with pytest.raises(FormatError, match="link lines for"):
        al.LinkSets.from_pharaoh(["0-1"], [3, 3], [2, 2])
    with pytest.raises(ValueError, match="corrupt"):
        al.LinkSets(np.array([0, 3]), np.zeros((2, 2)))


# --------------------------------------------------------------- the real aligners
def _in_bounds(sets, src, tgt):
    return all(j < len(s) and k < len(t) for links, s, t in zip(sets, src, tgt)
               for j, k in links)


def test_eflomal_runs_and_priors_align_new_pairs(tiny, tmp_path):
    pytest.importorskip("eflomal", reason="eflomal is not installed (the 'aligners' extra)")
    src, tgt = tiny
    run = al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path, n_samplers=1)
    assert run.n_pairs == 37 and set(run.directions) == {"fwd", "bwd"}
    f, b, i = run.links("fwd"), run.links("bwd"), run.links("intersection")
    assert _in_bounds(f, src, tgt) and _in_bounds(b, src, tgt)
    assert sum(map(len, f)) > 37 and all(x <= y for x, y in zip(i, f))
    # the priors are computed from the cached links and kept with them
    priors = run.priors_file(src, tgt)
    assert priors.parent == run.path and priors.exists()
    with gzip.open(priors, "rt", encoding="utf-8") as fh:
        kinds = {ln.split("\t")[0] for ln in fh}
    assert {"LEX", "HMMF", "HMMR", "FERF", "FERR"} <= kinds
    assert run.priors_file() == priors                          # no bitext needed now
    new = al.align_with_priors(src[:3], tgt[:3], run, n_samplers=1)
    assert new.n_pairs == 3 and _in_bounds(new.links("gdfa"), src[:3], tgt[:3])
    assert sum(map(len, new.links("fwd"))) > 0
    assert al.align_new(run, src[:2], tgt[:2], n_samplers=1).n_pairs == 2
    with pytest.raises(ValueError, match="not the bitext"):
        al.run_aligner("eflomal", src, tgt, cache_dir=tmp_path / "other",
                       n_samplers=1).priors_file(src[:5], tgt[:5])


def test_fast_align_runs_and_aligns_new_pairs(tiny, tmp_path):
    pytest.importorskip("systran_align", reason="systran-align is not installed "
                                                "(the 'aligners' extra)")
    src, tgt = tiny
    run = al.run_aligner("fast_align", src, tgt, cache_dir=tmp_path)
    assert set(run.directions) == {"sym"} and run.n_pairs == 37
    links = run.links()
    assert _in_bounds(links, src, tgt) and sum(map(len, links)) > 37
    again = al.run_aligner("fast_align", src, tgt, cache_dir=tmp_path)
    assert again.from_cache and again.links() == links
    new = al.align_new(again, src[:4], tgt[:4])
    assert new.links() == links[:4]       # same parameters, same links
    with pytest.raises(ValueError, match="priors are eflomal's"):
        run.priors_file()
