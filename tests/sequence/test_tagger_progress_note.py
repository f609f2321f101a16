"""A training run projected to be long says how long an iteration takes, once, also off a
terminal (where no progress bar is drawn): 800 labels take seconds per iteration, and such a
run said nothing for an hour."""

import sequence.model as sm
from sequence.model import SequenceTagger

SENTS = [["the", "cat", "sat"], ["a", "dog", "ran"], ["the", "dog", "sat"]] * 4
TAGS = [["DT", "NN", "VBD"], ["DT", "NN", "VBD"], ["DT", "NN", "VBD"]] * 4


def test_a_long_projected_run_is_announced_once(monkeypatch, capsys):
    monkeypatch.setattr(sm, "LONG_RUN", 0.0)
    SequenceTagger(n_iter=30, eval_every=2, patience=50, verbose=True).fit(
        SENTS, TAGS, eval_set=(SENTS[:3], TAGS[:3]))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "s per iteration" in ln]
    # the estimate before training (test_unusual_inputs_25), then the measured line, once
    assert len(lines) == 2 and "estimated from the label-pair kernel" in lines[0], err
    assert lines[1].startswith("measured: about "), err
    assert "3 labels" in lines[1] and "for the cap of 30 iterations" in lines[1]


def test_short_runs_and_quiet_runs_say_nothing(monkeypatch, capsys):
    SequenceTagger(n_iter=30, eval_every=2, verbose=True).fit(
        SENTS, TAGS, eval_set=(SENTS[:3], TAGS[:3]))
    monkeypatch.setattr(sm, "LONG_RUN", 0.0)
    SequenceTagger(n_iter=30, eval_every=2, verbose=False).fit(
        SENTS, TAGS, eval_set=(SENTS[:3], TAGS[:3]))
    assert "s per iteration" not in capsys.readouterr().err
