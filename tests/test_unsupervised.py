"""``structpred align unsupervised`` and alignment.aligners.unsupervised on tiny real data.

The HMM is trained on the first 300 Hansards bitext pairs (under a second once the
numba kernels are compiled); its output is deterministic.
"""

import gzip
import io
import re
from pathlib import Path

import numpy as np
import pytest

from alignment.aligners.unsupervised import (UnsupervisedAligner, combine_votes, decode,
                                             training_text)
from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
N = 300


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("unsup")
    for side, ext in (("en", "src"), ("fr", "tgt")):
        with gzip.open(DATA / f"bitext.36-2.{side}.gz", "rt", encoding="utf-8") as fh:
            lines = [next(fh) for _ in range(N)]
        (d / f"text.{ext}").write_text("".join(lines), encoding="utf-8")
    src = (d / "text.src").read_text(encoding="utf-8").splitlines()
    tgt = (d / "text.tgt").read_text(encoding="utf-8").splitlines()
    (d / "joint.txt").write_text("".join(f"{s} ||| {t}\n" for s, t in zip(src, tgt)),
                                 encoding="utf-8")
    return d


def _run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
    rc = main(["align", "unsupervised", "-q"] + argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _parse(text, soft=False):
    rows = []
    for line in text.splitlines():
        links = {}
        for tok in line.split():
            jk, _, p = tok.partition(":")
            j, k = map(int, jk.split("-"))
            links[(j, k)] = float(p) if soft else 1.0
        rows.append(links if soft else set(links))
    return rows


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("model-cache"))


def _base(files, cache):
    return ["--src", str(files / "text.src"), "--tgt", str(files / "text.tgt"),
            "--cache-dir", cache]


def test_two_files_and_stdin_give_the_same_links(files, cache, capsys, monkeypatch):
    rc, out, err = _run(capsys, _base(files, cache))
    assert rc == 0 and err == ""
    rows = _parse(out)
    assert len(rows) == N and sum(map(len, rows)) > 3 * N
    src = (files / "text.src").read_text(encoding="utf-8").splitlines()
    tgt = (files / "text.tgt").read_text(encoding="utf-8").splitlines()
    assert all(j < len(s.split()) and k < len(t.split())
               for r, s, t in zip(rows, src, tgt) for j, k in r)
    joint = (files / "joint.txt").read_text(encoding="utf-8")
    rc2, out2, _ = _run(capsys, ["-i", "-", "--cache-dir", cache], stdin=joint,
                        monkeypatch=monkeypatch)
    assert rc2 == 0 and out2 == out
    rc3, out3, _ = _run(capsys, ["-i", str(files / "joint.txt"), "--cache-dir", cache])
    assert out3 == out
    # -o FILE writes the same; a second run without the cache is identical (deterministic)
    dest = files / "links.txt"
    rc4, out4, _ = _run(capsys, ["-i", str(files / "joint.txt"), "-o", str(dest)])
    assert rc4 == 0 and out4 == "" and dest.read_text(encoding="utf-8") == out


def test_every_symmetrization(files, cache, capsys):
    base = _base(files, cache) + ["--threshold", "0.4"]
    got = {}
    for sym in ("intersect", "union", "grow-diag", "grow-diag-final-and"):
        rc, out, _ = _run(capsys, base + ["--symmetrize", sym])
        assert rc == 0
        got[sym] = _parse(out)
    for d in ("fwd", "bwd"):
        got[d] = _parse(_run(capsys, base + ["--direction", d])[1])
    for i in range(N):
        f, b = got["fwd"][i], got["bwd"][i]
        assert got["intersect"][i] == f & b
        assert got["union"][i] == f | b
        assert f & b <= got["grow-diag"][i] <= f | b
        assert got["grow-diag"][i] <= got["grow-diag-final-and"][i] <= f | b
    # forward: at most one source word per target word at a threshold above 1/2
    rc, out, _ = _run(capsys, _base(files, cache) + ["--direction", "fwd", "--threshold", "0.6"])
    for r in _parse(out):
        ks = [k for _, k in r]
        assert len(ks) == len(set(ks))


def test_soft_output(files, cache, capsys):
    rc, out, _ = _run(capsys, _base(files, cache) + ["--soft", "--threshold", "0.2"])
    assert rc == 0
    assert all(re.fullmatch(r"\d+-\d+:[01]\.\d{4}", tok) for tok in out.split())
    soft = _parse(out, soft=True)
    hard = _parse(_run(capsys, _base(files, cache) + ["--threshold", "0.2"])[1])
    assert [set(s) for s in soft] == hard
    assert all(0.2 - 1e-4 <= p <= 1.0 for s in soft for p in s.values())
    # the union's score is the larger posterior, so the links above 0.5 of the soft
    # union output are the hard union at 0.5
    u = _parse(_run(capsys, _base(files, cache) + ["--soft", "--symmetrize", "union",
                                                  "--threshold", "0.2"])[1], soft=True)
    u5 = _parse(_run(capsys, _base(files, cache) + ["--symmetrize", "union",
                                                   "--threshold", "0.5"])[1])
    assert [{jk for jk, p in s.items() if p >= 0.5 - 5e-5} for s in u] == u5


@pytest.mark.parametrize("decoding", [["--direction", "fwd"], ["--direction", "bwd"],
                                      ["--symmetrize", "intersect"],
                                      ["--symmetrize", "union"]])
def test_higher_threshold_gives_a_subset(files, cache, capsys, decoding):
    prev = None
    for t in ("0.1", "0.3", "0.5", "0.8", "1.0"):
        rows = _parse(_run(capsys, _base(files, cache) + decoding + ["--threshold", t])[1])
        if prev is not None:
            assert all(r <= p for r, p in zip(rows, prev))
            assert sum(map(len, rows)) <= sum(map(len, prev))
        prev = rows
    assert sum(map(len, prev)) < sum(map(len, rows)) + 1


@pytest.mark.parametrize("argv, message", [
    (["--src", "{d}/text.src", "--tgt", "{d}/short.tgt"], "line counts differ"),
    (["-i", "{d}/bad.txt"], "expected 'source ||| target'"),
    (["-i", "{d}/empty_side.txt"], "empty target sentence"),
    (["--src", "{d}/text.src"], "give --src and --tgt"),
    (["-i", "{d}/joint.txt", "--src", "{d}/text.src"], "not both"),
    (["-i", "{d}/joint.txt", "--threshold", "1.5"], "--threshold must lie in"),
    (["-i", "{d}/joint.txt", "--direction", "fwd", "--symmetrize", "union"], "not both"),
    (["-i", "{d}/missing.txt"], "no such file"),
    (["-i", "{d}/joint.txt", "--bitext-src", "{d}/text.src"], "both --bitext-src"),
])
def test_bad_input_exits_2_with_one_line(files, capsys, argv, message):
    (files / "short.tgt").write_text("a b\n", encoding="utf-8")
    (files / "bad.txt").write_text("a b ||| c\nno separator here\n", encoding="utf-8")
    (files / "empty_side.txt").write_text("a b ||| c\nd e ||| \n", encoding="utf-8")
    rc, out, err = _run(capsys, [a.format(d=files) for a in argv])
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("structpred: error: ")
    assert message in err


def test_extra_bitext_is_used_and_input_always_included(files, tmp_path, capsys):
    # input: 20 pairs not in the extra bitext; they are appended to the training text
    src = (files / "text.src").read_text(encoding="utf-8").splitlines()
    tgt = (files / "text.tgt").read_text(encoding="utf-8").splitlines()
    (tmp_path / "in.src").write_text("\n".join(src[-20:]) + "\n", encoding="utf-8")
    (tmp_path / "in.tgt").write_text("\n".join(tgt[-20:]) + "\n", encoding="utf-8")
    (tmp_path / "bx.src").write_text("\n".join(src[:-20]) + "\n", encoding="utf-8")
    (tmp_path / "bx.tgt").write_text("\n".join(tgt[:-20]) + "\n", encoding="utf-8")
    rc, out, _ = _run(capsys, ["--src", str(tmp_path / "in.src"), "--tgt", str(tmp_path / "in.tgt"),
                               "--bitext-src", str(tmp_path / "bx.src"),
                               "--bitext-tgt", str(tmp_path / "bx.tgt")])
    assert rc == 0 and len(out.splitlines()) == 20
    pairs = [(s.split(), t.split()) for s, t in zip(src[-20:], tgt[-20:])]
    s2, t2, index = training_text(pairs, [s.split() for s in src], [t.split() for t in tgt])
    assert len(s2) == N and list(index) == list(range(N - 20, N))   # already there: not added
    s3, _, index3 = training_text(pairs, [s.split() for s in src[:-20]],
                                  [t.split() for t in tgt[:-20]])
    assert len(s3) == N and list(index3) == list(range(N - 20, N))


def test_decode_and_votes():
    pf = np.array([[0.9, 0.2], [0.1, 0.6]])
    pb = np.array([[0.7, 0.5], [0.3, 0.4]])
    assert decode(pf, pb, 0.5, "intersect")[0] == {(0, 0)}
    assert decode(pf, pb, 0.5, "union")[0] == {(0, 0), (0, 1), (1, 1)}
    assert decode(pf, pb, 0.5, direction="fwd")[0] == {(0, 0), (1, 1)}
    links, score = decode(pf, pb, 0.5, "grow-diag")
    assert links == {(0, 0), (0, 1), (1, 1)} and np.allclose(score, (pf + pb) / 2)
    v = combine_votes(pf, {(1, 0)}, 0.5)
    assert np.allclose(v, [[0.45, 0.1], [0.55, 0.3]])
    with pytest.raises(ValueError):
        decode(pf, pb, 0.5, "grow")


def test_model_save_load(files, tmp_path):
    src = [s.split() for s in (files / "text.src").read_text(encoding="utf-8").splitlines()]
    tgt = [t.split() for t in (files / "text.tgt").read_text(encoding="utf-8").splitlines()]
    m = UnsupervisedAligner(hmm_iterations=2, prefix=4).fit(src[:100], tgt[:100])
    m.save(tmp_path / "m.npz")
    m2 = UnsupervisedAligner.load(tmp_path / "m.npz")
    assert m2.prefix == 4 and m2.hmm_iterations == 2
    for a, b in zip(m.posteriors(src[3], tgt[3]), m2.posteriors(src[3], tgt[3])):
        np.testing.assert_allclose(a, b)
    with pytest.raises(ValueError, match="not trained"):
        UnsupervisedAligner().posteriors(src[0], tgt[0])


def test_with_eflomal(files, cache, capsys):
    pytest.importorskip("eflomal", reason="eflomal is not installed (the 'aligners' extra)")
    base = _base(files, cache)
    rc, out, _ = _run(capsys, base + ["--with", "eflomal"])
    assert rc == 0
    rows = _parse(out)
    assert len(rows) == N and sum(map(len, rows)) > 3 * N
    # eflomal's links are cached with the model: a second run gives the same output
    assert _run(capsys, base + ["--with", "eflomal"])[1] == out
    # weight 1: eflomal's own intersection (threshold 1: both directions have the link)
    rc, ef_only, _ = _run(capsys, base + ["--with", "auto", "--eflomal-weight", "1",
                                          "--threshold", "1"])
    from alignment.aligners.runs import run_aligner

    src = (files / "text.src").read_text(encoding="utf-8").splitlines()
    tgt = (files / "text.tgt").read_text(encoding="utf-8").splitlines()
    run = run_aligner("eflomal", src, tgt, cache_dir=Path(cache) / "aligners")
    assert run.from_cache
    assert _parse(ef_only) == run.links("intersection")


def test_training_text_keeps_repeated_input_pairs():
    a, b = (["a", "b"], ["x"]), (["c"], ["y", "z"])
    src, tgt, index = training_text([a, b, a])
    assert src == [["a", "b"], ["c"], ["a", "b"]] and list(index) == [0, 1, 2]
    src, tgt, index = training_text([b, a, b], [["c"], ["d"]], [["y", "z"], ["w"]])
    assert src == [["c"], ["d"], ["a", "b"]] and list(index) == [0, 2, 0]
