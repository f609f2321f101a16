"""The ``structpred`` command line: train, predict, aer, and its error messages."""

import subprocess
import sys

import numpy as np
import pytest

from structpred.cli import main
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"


@pytest.fixture(scope="module")
def model_file(small_stats_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "model.npz"
    rc = main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
               "--gold", str(DATA / "test.naacl.gz"), "--first", "30",
               "--valid-src", str(DATA / "trial.en.gz"), "--valid-tgt", str(DATA / "trial.fr.gz"),
               "--valid-gold", str(DATA / "trial.naacl.gz"), "--stats", str(small_stats_file),
               "--iterations", "30", "-q", "-o", str(out)])
    assert rc == 0 and out.exists()
    return out


def test_predict_then_aer(model_file, tmp_path, capsys):
    pred = tmp_path / "trial.pharaoh"
    assert main(["align", "predict", "-m", str(model_file), "--src", str(DATA / "trial.en.gz"),
                 "--tgt", str(DATA / "trial.fr.gz"), "-o", str(pred), "-q"]) == 0
    lines = pred.read_text().splitlines()
    assert len(lines) == 37 and all(tok.count("-") == 1 for ln in lines for tok in ln.split())
    capsys.readouterr()
    plot = tmp_path / "grid.png"
    assert main(["aer", "--gold", str(DATA / "trial.naacl.gz"), "--test", str(pred),
                 "--src", str(DATA / "trial.en.gz"), "--tgt", str(DATA / "trial.fr.gz"),
                 "--plot", str(plot), "--sentences", "1,3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("precision ") and "recall " in out[0]
    aer = float(out[0].split("AER ")[1].split("%")[0])
    assert 0.0 < aer < 50.0 and out[0].endswith("(37 sentences)")
    assert plot.read_bytes()[:4] == b"\x89PNG"
    # NAACL gold without the sentence files: the same scores (positions are not checked)
    assert main(["aer", "--gold", str(DATA / "trial.naacl.gz"), "--test", str(pred)]) == 0
    assert capsys.readouterr().out.splitlines() == out
    assert main(["aer", "--gold", str(DATA / "trial.naacl.gz"), "--test", str(pred),
                 "--src", str(DATA / "trial.en.gz"), "--tgt", str(DATA / "trial.fr.gz"),
                 "--errors", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("False links") and len(out) <= 1 + 1 + 3 + 1 + 3
    assert any(ln.startswith("Missed sure links") for ln in out)
    gold_ph, test_ph = tmp_path / "g.pharaoh", tmp_path / "t.pharaoh"
    gold_ph.write_text("0-0 1?1\n")
    test_ph.write_text("0-0\n")
    assert main(["aer", "--gold", str(gold_ph), "--test", str(test_ph), "--errors", "3"]) == 2
    assert "--errors needs --src and --tgt" in capsys.readouterr().err


def test_predict_fast_align_input_to_stdout(model_file, tmp_path, capsys):
    fa = tmp_path / "in.txt"
    fa.write_text("the house ||| la chambre\nyes . ||| oui .\n")
    assert main(["align", "predict", "-m", str(model_file), "-i", str(fa), "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2


def test_errors_name_file_and_line(model_file, tmp_path, capsys):
    src = tmp_path / "s.txt"
    tgt = tmp_path / "t.txt"
    src.write_text("a b\nc d\n")
    tgt.write_text("x y\n")
    rc = main(["align", "predict", "-m", str(model_file), "--src", str(src), "--tgt", str(tgt), "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and f"{src}:2:" in err and "line counts differ" in err
    bad = tmp_path / "bad.pharaoh"
    bad.write_text("0-0\n" * 36 + "0-99\n")
    rc = main(["aer", "--gold", str(DATA / "trial.naacl.gz"), "--test", str(bad),
               "--src", str(DATA / "trial.en.gz"), "--tgt", str(DATA / "trial.fr.gz")])
    err = capsys.readouterr().err
    assert rc == 2 and f"{bad}:37:" in err and "out of range" in err


def test_missing_file_is_a_clear_error(capsys, tmp_path):
    rc = main(["aer", "--gold", str(tmp_path / "nope.naacl"), "--test", str(tmp_path / "x"),
               "--src", str(DATA / "trial.en.gz"), "--tgt", str(DATA / "trial.fr.gz")])
    assert rc == 2 and "nope.naacl" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["align", "train", "--help"],
                                  ["align", "predict", "--help"], ["aer", "--help"],
                                  ["align", "demo", "--help"]])
def test_help(argv):
    out = subprocess.run([sys.executable, "-m", "structpred", *argv], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "usage: structpred" in out.stdout


def test_train_and_predict_m_f_q_with_external_links(small_stats_file, tmp_path, capsys):
    """--model M+F+Q with --external link files: train, then predict with and without them."""
    from alignment.data.formats import read_parallel

    from conftest import TEST_BITEXT_PAIRS

    train = read_parallel(DATA / "test.en.gz", DATA / "test.fr.gz")[:12]
    trial = read_parallel(DATA / "trial.en.gz", DATA / "trial.fr.gz")

    def diag_links(pairs, path):   # a stand-in "aligner": the diagonal
        path.write_text("".join(" ".join(f"{j}-{round(j * len(t) / len(s))}" for j in range(len(s))
                                         if round(j * len(t) / len(s)) < len(t)) + "\n"
                                for s, t in pairs))
        return path

    inter = tmp_path / "inter.npz"
    out = tmp_path / "mfq.npz"
    rc = main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
               "--gold", str(DATA / "test.naacl.gz"), "--first", "12",
               "--valid-src", str(DATA / "trial.en.gz"), "--valid-tgt", str(DATA / "trial.fr.gz"),
               "--valid-gold", str(DATA / "trial.naacl.gz"), "--stats", str(small_stats_file),
               "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
               "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"),
               "--bitext-pairs", str(TEST_BITEXT_PAIRS), "--interaction-stats", str(inter),
               "--model", "M+F+Q", "--iterations", "6", "--validate-every", "3",
               "--external", f"diag={diag_links(read_parallel(DATA / 'test.en.gz', DATA / 'test.fr.gz'), tmp_path / 'd.txt')}",
               "--valid-external", f"diag={diag_links(trial, tmp_path / 'v.txt')}",
               "-q", "-o", str(out)])
    assert rc == 0 and out.exists() and inter.exists()
    pred = tmp_path / "p.txt"
    args = ["align", "predict", "-m", str(out), "--src", str(DATA / "trial.en.gz"),
            "--tgt", str(DATA / "trial.fr.gz"), "-o", str(pred), "-q"]
    capsys.readouterr()
    assert main(args) == 2
    assert "--external" in capsys.readouterr().err
    assert main(args + ["--external", f"diag={tmp_path / 'v.txt'}", "--decoder", "pulp"]) == 0
    assert len(pred.read_text().splitlines()) == 37
    assert main(args + ["--external", f"other={tmp_path / 'v.txt'}"]) == 2
    assert "differ" in capsys.readouterr().err


def test_train_with_hmm_features_then_predict(tmp_path, capsys):
    """--hmm trains the HMM on the bitext, stores it in the --stats cache, and the
    model (whose file embeds the statistics) predicts with the HMM features."""
    from alignment.stats.statistics import AlignmentStatistics

    stats_file = tmp_path / "stats.npz"
    out = tmp_path / "hmm.npz"
    rc = main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
               "--gold", str(DATA / "test.naacl.gz"), "--first", "20",
               "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
               "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", "1500",
               "--stats", str(stats_file), "--hmm", "2", "--iterations", "10", "-q", "-o", str(out)])
    assert rc == 0 and AlignmentStatistics.load(stats_file).hmm is not None
    pred = tmp_path / "trial.pharaoh"
    assert main(["align", "predict", "-m", str(out), "--src", str(DATA / "trial.en.gz"),
                 "--tgt", str(DATA / "trial.fr.gz"), "-o", str(pred), "-q"]) == 0
    assert len(pred.read_text().splitlines()) == 37
    from alignment.model import MatchingAligner

    model = MatchingAligner.load(out)
    assert "hmm_fwd" in model.feature_names_ and model.stats_.hmm is not None


def test_train_with_hmm_lexicon(tmp_path, capsys):
    """--hmm-lexicon keeps only the HMM's translation tables: no HMM features, and the
    model's statistics carry the HMM lexicon (its file predicts with it)."""
    from alignment.model import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics

    stats_file = tmp_path / "stats.npz"
    out = tmp_path / "lex.npz"
    base = ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
            "--gold", str(DATA / "test.naacl.gz"), "--first", "20",
            "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
            "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", "1500",
            "--stats", str(stats_file), "--iterations", "10", "-q", "-o", str(out)]
    capsys.readouterr()
    assert main(base + ["--hmm-lexicon"]) == 2
    assert "--hmm" in capsys.readouterr().err
    assert main(base + ["--hmm", "2", "--hmm-lexicon"]) == 0
    hmm = AlignmentStatistics.load(stats_file).hmm
    model = MatchingAligner.load(out)
    assert "hmm_fwd" not in model.feature_names_ and model.stats_.hmm is None
    np.testing.assert_array_equal(model.stats_.t_fwd, hmm.t_fwd)
    pred = tmp_path / "trial.pharaoh"
    assert main(["align", "predict", "-m", str(out), "--src", str(DATA / "trial.en.gz"),
                 "--tgt", str(DATA / "trial.fr.gz"), "-o", str(pred), "-q"]) == 0
    assert len(pred.read_text().splitlines()) == 37


def test_train_with_ibm_agreement_and_excluded_features(tmp_path, capsys):
    """--ibm-agreement computes the statistics with agreement-trained IBM models;
    --exclude-features drops named edge features (a typo is a clear error)."""
    from alignment.model import MatchingAligner

    base = ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
            "--gold", str(DATA / "test.naacl.gz"), "--first", "10",
            "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
            "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", "1500",
            "--iterations", "5", "-q"]
    out = tmp_path / "m.npz"
    assert main(base + ["--stats", str(tmp_path / "s.npz"), "--ibm-agreement",
                        "--exclude-features", "nbr_diag, nbr_anti", "--n-frequent", "3",
                        "--include-features", "farther_tgt_occ", "-o", str(out)]) == 0
    model = MatchingAligner.load(out)
    names = model.feature_names_
    assert "nbr_diag" not in names and "nbr_anti" not in names and "nbr_vit_diag" in names
    assert "farther_tgt_occ" in names and "farther_src_occ" not in names
    assert model.n_frequent == 3 and sum(n.startswith("pair=") for n in names) == 9
    capsys.readouterr()
    assert main(base + ["--stats", str(tmp_path / "s.npz"), "--exclude-features", "nbr_typo",
                        "-o", str(tmp_path / "x.npz")]) == 2
    assert "nbr_typo" in capsys.readouterr().err and not (tmp_path / "x.npz").exists()
    assert main(base + ["--stats", str(tmp_path / "s.npz"), "--include-features", "nbr_diag",
                        "-o", str(tmp_path / "x.npz")]) == 2
    assert "--include-features: unknown edge features nbr_diag" in capsys.readouterr().err
