"""Other aligners as features (``align train --aligners``): sources, features, persistence."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from alignment.data.formats import read_parallel
from alignment.features.links import (HMM_THRESHOLD, AlignerFeaturizer, AlignerLinks,
                                      resolve_sources)
from alignment.aligners.runs import available_aligners
from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
N_BITEXT = 1500


@pytest.fixture(scope="module")
def bitext():
    pairs = read_parallel(DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz")[:N_BITEXT]
    return [s for s, _ in pairs], [t for _, t in pairs]


@pytest.fixture(scope="module")
def gold_pairs(hansards):
    return hansards.test_pairs[:20], hansards.test_gold[:20]


@pytest.fixture(scope="module")
def hmm_links(bitext, gold_pairs, tmp_path_factory):
    new = [(["a", "completely", "new", "pair"], ["une", "paire", "nouvelle"])]
    return AlignerLinks.from_sources(("hmm",), gold_pairs[0] + new, *bitext,
                            cache_dir=tmp_path_factory.mktemp("links"))


def test_resolve_sources():
    assert resolve_sources("none") == ("hmm",) and resolve_sources("") == ("hmm",)
    assert resolve_sources("none", own_hmm=False) == ()
    auto = resolve_sources("auto")
    assert auto[:2] == ("hmm", "bayes") and set(auto[2:]) == set(available_aligners())
    # the default: the built-in sources only (no other package, seeded)
    assert resolve_sources() == resolve_sources("default") == ("hmm", "bayes")
    assert resolve_sources(None) == ("hmm", "bayes")
    assert resolve_sources("hmm") == ("hmm",)
    assert resolve_sources("bayes", own_hmm=False) == ("bayes",)
    with pytest.raises(ValueError, match="unknown aligner 'bogus'"):
        resolve_sources("hmm,bogus")


def test_featurizer_names():
    f = AlignerFeaturizer(("hmm",))
    assert f.edge_names == ["hmm:fwd", "hmm:bwd", "hmm:min", "hmm:inter", "hmm:nbr_diag",
                            "hmm:nbr_anti"]
    g = AlignerFeaturizer(("hmm", "eflomal", "fast_align"))
    assert g.edge_names[-1] == "aligners:vote_share"
    assert "eflomal:grow-diag-final-and" in g.edge_names and "fast_align:sym" in g.edge_names
    assert len(g.pair_names) == 4 * 4
    with pytest.raises(ValueError):
        AlignerFeaturizer(("giza",))


def test_hmm_source_features(hmm_links, gold_pairs):
    f = AlignerFeaturizer(("hmm",))
    for src, tgt in gold_pairs[0][:5] + [(["a", "completely", "new", "pair"],
                                          ["une", "paire", "nouvelle"])]:
        m, n = len(src), len(tgt)
        B = f.edge_block(hmm_links, src, tgt).reshape(6, m, n)
        fwd, bwd = hmm_links.unsupervised.posteriors(src, tgt)
        assert np.allclose(B[0], fwd) and np.allclose(B[1], bwd)
        assert np.allclose(B[2], np.minimum(fwd, bwd))
        assert np.array_equal(B[3], (np.minimum(fwd, bwd) >= HMM_THRESHOLD).astype(float))
        assert np.all((B >= 0) & (B <= 1 + 1e-12))
        # diagonal support, by brute force
        mn = B[2]
        for j in range(m):
            for k in range(n):
                d = sum(mn[j + a, k + a] for a in (-1, 1) if 0 <= j + a < m and 0 <= k + a < n)
                e = sum(mn[j + a, k - a] for a in (-1, 1) if 0 <= j + a < m and 0 <= k - a < n)
                assert np.isclose(B[4, j, k], d / 2) and np.isclose(B[5, j, k], e / 2)


def test_pair_block_is_product_of_edges(hmm_links, gold_pairs):
    from structpred import adjacent_pairs

    f = AlignerFeaturizer(("hmm",))
    src, tgt = gold_pairs[0][3]
    pairs, pattern = adjacent_pairs(len(src), len(tgt))
    P = f.pair_block(hmm_links, src, tgt, pairs, pattern)
    mn = hmm_links.outputs(src, tgt)["hmm:min"].ravel()
    for q, ((a, b), p) in enumerate(zip(pairs, pattern)):
        col = np.zeros(4)
        col[p] = mn[a] * mn[b]
        assert np.allclose(P[:, q], col)


def test_model_with_hmm_source_round_trip(hmm_links, gold_pairs, small_stats, tmp_path):
    from alignment.model import MatchingAligner

    pairs, gold = gold_pairs
    model = MatchingAligner(aligners=("hmm",), n_iter=15, validate_every=5, patience=2)
    with pytest.raises(ValueError, match="aligner_links"):
        model.fit(pairs, gold, small_stats)
    model.fit(pairs[:15], gold[:15], small_stats, eval_set=(pairs[15:], gold[15:]),
              aligner_links=hmm_links)
    assert [n for n in model.feature_names_ if n.startswith("hmm:")][:2] == ["hmm:fwd",
                                                                            "hmm:bwd"]
    path = tmp_path / "m.npz"
    model.save(path)
    back = MatchingAligner.load(path)
    assert back.aligners == ("hmm",)
    assert [a.sure for a in back.predict(pairs)] == [a.sure for a in model.predict(pairs)]
    # the hmm weights matter: the HMM posterior gets a positive weight
    w = dict(zip(model.feature_names_, model.coef_))
    assert w["hmm:min"] + w["hmm:fwd"] + w["hmm:bwd"] > 0


eflomal = pytest.mark.skipif("eflomal" not in available_aligners(),
                             reason="eflomal is not installed (the aligners extra)")


@eflomal
def test_eflomal_source_known_and_new_pairs(bitext, gold_pairs, tmp_path):
    pairs = gold_pairs[0][:5]
    links = AlignerLinks.from_sources(("eflomal",), pairs, *bitext, cache_dir=tmp_path)
    run = links.runs["eflomal"]
    assert run.n_pairs == N_BITEXT          # the gold pairs are bitext lines already
    src, tgt = pairs[0]
    i = bitext[0].index(src)
    out = links.outputs(src, tgt)
    assert {tuple(x) for x in np.argwhere(out["eflomal:fwd"])} == run.directions["fwd"][i]
    assert np.array_equal(out["eflomal:intersection"], out["eflomal:fwd"] * out["eflomal:bwd"])
    assert np.array_equal(out["eflomal:union"],
                          np.maximum(out["eflomal:fwd"], out["eflomal:bwd"]))
    # a pair that the run never saw is aligned with the run's priors
    new = (["the", "house", "rose", "."], ["la", "chambre", "se", "lève", "."])
    links.prepare([new])
    o = links.outputs(*new)
    assert o["eflomal:fwd"].shape == (4, 5)
    # persistence: the run is found again through its cache folder
    meta, arrays = links.state()
    again = AlignerLinks.from_state(meta, arrays).check()
    assert np.array_equal(again.outputs(src, tgt)["eflomal:fwd"], out["eflomal:fwd"])
    shutil.rmtree(run.path)
    with pytest.raises(RuntimeError, match="missing"):
        AlignerLinks.from_state(meta, arrays).check()


def _train_args(out, *extra):
    return ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
            "--gold", str(DATA / "test.naacl.gz"), "--first", "15",
            "--valid-src", str(DATA / "trial.en.gz"), "--valid-tgt", str(DATA / "trial.fr.gz"),
            "--valid-gold", str(DATA / "trial.naacl.gz"),
            "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
            "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", str(N_BITEXT),
            "--iterations", "10", "-o", str(out), *extra]


def test_cli_default_uses_the_aligners(tmp_path, capsys, monkeypatch):
    out = tmp_path / "m.npz"
    cache = tmp_path / "cache"
    assert main(_train_args(out, "--cache-dir", str(cache))) == 0
    err = capsys.readouterr().err
    line = [ln for ln in err.splitlines() if ln.startswith("aligners as features")]
    assert line and "hmm (ours" in line[0] and "bayes (ours, seed 0" in line[0]
    for name in available_aligners():     # opt-in: not in the default
        assert name not in line[0]
    pred = tmp_path / "p.txt"
    assert main(["align", "predict", "-m", str(out), "--src", str(DATA / "trial.en.gz"),
                 "--tgt", str(DATA / "trial.fr.gz"), "-o", str(pred), "-q"]) == 0
    assert len(pred.read_text().splitlines()) == 37
    # the bayes run the model needs is gone: one line naming the model, exit 2
    for entry in (cache / "aligners").iterdir():
        shutil.rmtree(entry)
    # and not in the cache a moved run is looked for either ($STRUCTPRED_CACHE: the test
    # session's, where another test of this process may have left the same run)
    monkeypatch.setenv("STRUCTPRED_CACHE", str(tmp_path / "empty-cache"))
    capsys.readouterr()
    rc = main(["align", "predict", "-m", str(out), "--src", str(DATA / "trial.en.gz"),
               "--tgt", str(DATA / "trial.fr.gz"), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and str(out) in err[0] and "missing" in err[0]


def test_cli_aligner_option_errors(tmp_path, capsys, small_stats_file):
    rc = main(_train_args(tmp_path / "m.npz", "--aligners", "hmm,giza"))
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--aligners" in err[0] and "giza" in err[0]
    args = ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
            "--gold", str(DATA / "test.naacl.gz"), "--first", "5", "--stats",
            str(small_stats_file), "--iterations", "2", "-o", str(tmp_path / "x.npz")]
    rc = main(args + ["--aligners", "hmm"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "bitext" in err[0]
    assert not (tmp_path / "x.npz").exists()
    # the default without a bitext: no aligners, and it says so
    assert main(args) == 0
    assert "aligners as features: none" in capsys.readouterr().err
    rc = main(args + ["--preset", "thesis", "--aligners", "eflomal"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--preset thesis" in err[0]


def test_cli_train_without_gold(tmp_path, capsys):
    """--labels hmm: the training sentences are labelled by our unsupervised aligner, which
    is then left out of the features."""
    from alignment.model import MatchingAligner

    out = tmp_path / "m.npz"
    args = _train_args(out, "--cache-dir", str(tmp_path / "cache"), "--labels", "hmm",
                       "--aligners", "none")
    i = args.index("--gold")
    del args[i:i + 2]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "labels: hmm on the 15 training sentences" in err
    assert "aligners as features: none" in err
    model = MatchingAligner.load(out)
    assert model.aligners == () and not any(n.startswith("hmm:") for n in model.feature_names_)
    # --gold and --labels: one of them
    rc = main(_train_args(tmp_path / "x.npz", "--labels", "hmm"))
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--labels" in err[0]
    assert not (tmp_path / "x.npz").exists()
