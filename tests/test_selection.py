"""Choosing c- on validation (``align train --c-neg``): alignment.selection and the CLI."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from alignment.selection import fit_candidates
from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"


class _Fake:
    """A model whose validation score is a known function of its setting."""

    def __init__(self, value):
        self.value = value

    def fit(self):
        score = {1: 0.30, 2: 0.10, 3: 0.20, 4: 0.10}[self.value]
        self.result_ = SimpleNamespace(best_score=score, best_iter=10 * self.value)


def _fit(model):
    model.fit()


@pytest.mark.parametrize("jobs", [1, 2])
def test_fit_candidates_ranks_by_validation(jobs):
    ranked = fit_candidates(_Fake, [3, 4, 1, 2], _fit, jobs=jobs)
    # 4 and 2 tie: the earlier in the list wins
    assert [c.value for c in ranked] == [4, 2, 3, 1]
    assert ranked[0].model.value == 4 and ranked[0].best_iter == 40
    assert ranked[0].score == pytest.approx(0.10)
    with pytest.raises(ValueError):
        fit_candidates(_Fake, [], _fit)


def _counts(n_good, n, size=10):
    """(n, 5) sentence counts: n_good perfect sentences, the rest with every link wrong."""
    import numpy as np

    c = np.zeros((n, 5), np.int64)
    c[:, 0] = c[:, 1] = c[:, 2] = size
    c[:n_good, 3] = c[:n_good, 4] = size
    return c


def test_prefer_default_needs_a_clear_win():
    from alignment.selection import Candidate, prefer_default

    def ranked(scores):
        cands = [Candidate(v, v, s, None, 0.0) for v, s in scores.items()]
        return sorted(cands, key=lambda c: c.score)

    # the best is the default: no bootstrap
    kept, p = prefer_default(ranked({3: 0.1, 2: 0.2}), 3, None)
    assert kept.value == 3 and p is None
    # 2 beats 3 on 38 of 40 sentences against 20 of 40: kept
    counts = {3: _counts(20, 40), 2: _counts(38, 40)}
    kept, p = prefer_default(ranked({3: 0.5, 2: 0.05}), 3, counts.get)
    assert kept.value == 2 and p < 0.05
    # 2 beats 3 by one sentence out of 40: chance, keep the default
    counts = {3: _counts(20, 40), 2: _counts(21, 40)}
    kept, p = prefer_default(ranked({3: 0.5, 2: 0.475}), 3, counts.get)
    assert kept.value == 3 and p > 0.05


def _args(out, *extra):
    return ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt", str(DATA / "test.fr.gz"),
            "--gold", str(DATA / "test.naacl.gz"), "--first", "12",
            "--valid-src", str(DATA / "trial.en.gz"), "--valid-tgt", str(DATA / "trial.fr.gz"),
            "--valid-gold", str(DATA / "trial.naacl.gz"),
            "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
            "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", "1500",
            "--aligners", "none", "--iterations", "20", "-o", str(out), *extra]


def test_cli_chooses_c_neg_on_validation(tmp_path, capsys):
    from alignment.model import MatchingAligner

    out = tmp_path / "m.npz"
    assert main(_args(out, "--cache-dir", str(tmp_path / "cache"), "--c-neg", "1,6")) == 0
    err = capsys.readouterr().err
    line = [ln for ln in err.splitlines() if ln.startswith("c-: chose")]
    assert line, err
    scores = {float(c): float(a) for a, c in re.findall(r"([\d.]+)% with c-=([\d.]+)", line[0])}
    assert set(scores) == {1.0, 6.0}
    chosen = float(re.match(r"c-: chose ([\d.]+)", line[0]).group(1))
    # the best on validation, or the default (the first) when the best is not clearly better
    assert scores[chosen] == min(scores.values()) or (chosen == 1.0 and "bootstraps" in line[0])
    model = MatchingAligner.load(out)
    assert model.cost_neg == chosen
    # --model auto (the default) then tries M+F+Q at the chosen c- and says what it kept
    mline = [ln for ln in err.splitlines() if ln.startswith("model: chose")]
    assert mline and "M+F+Q" in mline[0]
    kept = re.match(r"model: chose (\S+)", mline[0]).group(1)
    assert kept == model.model_name
    # an explicit model is not second-guessed
    assert main(_args(tmp_path / "m2.npz", "--cache-dir", str(tmp_path / "cache"), "--c-neg",
                      "3", "--model", "M")) == 0
    err = capsys.readouterr().err
    assert "model: chose" not in err and "c-: chose" not in err


def test_cli_c_neg_errors(tmp_path, capsys):
    out = tmp_path / "m.npz"
    args = _args(out)
    i = args.index("--valid-src")
    del args[i:i + 6]
    rc = main(args + ["--c-neg", "1,6"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "--c-neg" in err[0] and "validation" in err[0]
    assert not out.exists()
    with pytest.raises(SystemExit) as exc:
        main(args + ["--c-neg", "cheap"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and "--c-neg" in err[-1] and "cheap" in err[-1]
