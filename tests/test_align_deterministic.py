"""The default ``align train`` is reproducible (issue 31): its feature sources are built in
and seeded (our HMM, our Bayesian aligner), so the same command on the same data, run
twice from an empty cache, writes the same model file, byte for byte, and ``align predict``
gives the same links, for sentences of the bitext and new ones alike."""

import gzip
import shutil
from pathlib import Path

import pytest

from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
N_BITEXT = 1200


def _new_sentences(tmp_path):
    """20 bitext pairs after the first ``N_BITEXT`` (new to the aligners' runs)."""
    out = []
    for side in ("en", "fr"):
        with gzip.open(DATA / f"bitext.36-2.{side}.gz", "rt", encoding="utf-8") as fh:
            lines = [ln for i, ln in zip(range(N_BITEXT + 40), fh)][N_BITEXT + 20:]
        path = tmp_path / f"new.{side}"
        path.write_text("".join(lines), encoding="utf-8")
        out.append(path)
    return out


def _train_and_predict(tmp_path, cache, tag, new_src, new_tgt, extra=()):
    model = tmp_path / f"model-{tag}.npz"
    rc = main(["align", "train", "--src", str(DATA / "test.en.gz"),
               "--tgt", str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"),
               "--first", "15", "--valid-src", str(DATA / "trial.en.gz"),
               "--valid-tgt", str(DATA / "trial.fr.gz"),
               "--valid-gold", str(DATA / "trial.naacl.gz"),
               "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
               "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"),
               "--bitext-pairs", str(N_BITEXT), "--iterations", "10", "--c-neg", "3",
               "--model", "M", "--cache-dir", str(cache), "-q", "-o", str(model), *extra])
    assert rc == 0
    links = []
    for name, src, tgt in (("trial", DATA / "trial.en.gz", DATA / "trial.fr.gz"),
                           ("new", new_src, new_tgt)):
        out = tmp_path / f"{name}-{tag}.links"
        assert main(["align", "predict", "-m", str(model), "--src", str(src),
                     "--tgt", str(tgt), "-q", "-o", str(out)]) == 0
        links.append(out.read_text())
    return model.read_bytes(), links


@pytest.mark.slow
def test_default_train_is_byte_identical_from_an_empty_cache(tmp_path, capsys):
    new_src, new_tgt = _new_sentences(tmp_path)
    cache = tmp_path / "cache"
    first = _train_and_predict(tmp_path, cache, "1", new_src, new_tgt)
    err = capsys.readouterr().err
    assert "bayes (ours, seed 0, ran on" in err          # the default's sources
    assert "eflomal" not in err and "fast_align" not in err
    shutil.rmtree(cache)
    second = _train_and_predict(tmp_path, cache, "2", new_src, new_tgt)
    assert "bayes (ours, seed 0, ran on" in capsys.readouterr().err   # run again, not read
    assert first[0] == second[0]                           # the model file, byte for byte
    assert first[1] == second[1]                           # the links of both inputs
    assert len(first[1][0].splitlines()) == 37 and len(first[1][1].splitlines()) == 20


@pytest.mark.slow
def test_bayes_run_beside_the_statistics_changes_nothing(tmp_path, capsys):
    """With ``--jobs 2`` (the default) the Bayesian run samples in a background thread
    while the statistics and our HMM are built (issue 31, point 4: time); with ``--jobs 1``
    everything runs one after the other.  Same model file, same links."""
    new_src, new_tgt = _new_sentences(tmp_path)
    cache = tmp_path / "cache"
    together = _train_and_predict(tmp_path, cache, "2", new_src, new_tgt, ["--jobs", "2"])
    err = capsys.readouterr().err
    shutil.rmtree(cache)
    alone = _train_and_predict(tmp_path, cache, "1", new_src, new_tgt, ["--jobs", "1"])
    assert "bayes (ours, seed 0, ran on" in err
    assert together[0] == alone[0]
    assert together[1] == alone[1]


@pytest.mark.slow
def test_a_model_finds_its_runs_in_a_moved_cache(tmp_path, capsys, monkeypatch):
    """The model records where its aligner runs were kept; once that cache is moved,
    ``align predict`` finds the same entries under ``$STRUCTPRED_CACHE`` and gives the same
    links; with the cache nowhere, one line names both places."""
    new_src, new_tgt = _new_sentences(tmp_path)
    cache = tmp_path / "cache"
    _, links = _train_and_predict(tmp_path, cache, "a", new_src, new_tgt)
    moved = tmp_path / "elsewhere"
    shutil.move(str(cache), str(moved))
    monkeypatch.setenv("STRUCTPRED_CACHE", str(moved))
    for (name, src, tgt), want in zip((("trial", DATA / "trial.en.gz", DATA / "trial.fr.gz"),
                                       ("new", new_src, new_tgt)), links):
        out = tmp_path / f"{name}-moved.links"
        assert main(["align", "predict", "-m", str(tmp_path / "model-a.npz"), "--src",
                     str(src), "--tgt", str(tgt), "-q", "-o", str(out)]) == 0
        assert out.read_text() == want
    monkeypatch.setenv("STRUCTPRED_CACHE", str(tmp_path / "nowhere"))
    capsys.readouterr()
    rc = main(["align", "predict", "-m", str(tmp_path / "model-a.npz"), "--src",
               str(new_src), "--tgt", str(new_tgt), "-q", "-o", str(tmp_path / "x.links")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "nowhere" in err[0] and "missing" in err[0], err


@pytest.mark.slow
def test_the_same_command_in_two_folders_writes_the_same_model(tmp_path, capsys):
    """The model records its aligner runs' cache folders relative to its own folder (an
    absolute path made the bytes depend on where the command ran), and finds them there
    after the whole folder has moved."""
    new_src, new_tgt = _new_sentences(tmp_path)
    made = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        made.append(_train_and_predict(folder, folder / "cache", "1", new_src, new_tgt))
    assert made[0][0] == made[1][0]
    assert made[0][1] == made[1][1]
    moved = tmp_path / "moved"
    (tmp_path / "a").rename(moved)
    out = tmp_path / "new.links"
    assert main(["align", "predict", "-m", str(moved / "model-1.npz"), "--src", str(new_src),
                 "--tgt", str(new_tgt), "-q", "-o", str(out)]) == 0
    assert out.read_text() == made[0][1][1]
