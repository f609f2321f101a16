"""The checks every problem package shares (:mod:`structpred._checks`,
:func:`structpred.io.missing_reason`, :func:`structpred.cli.check_held_out`), tried by
class of input on every estimator and command that takes them.

Classes: seeds that are not seeds (negative, fractional, booleans) on every stochastic
estimator; input paths that cannot be opened (a loop of symbolic links, a link to
nothing, a file used as a folder, a plain missing file) on every training command;
validation data that is the training data under another spelling (``./``, an absolute
path, a symbolic link, ``..``) on every command with a validation option; tokens that
are empty or hold white space given to the Bayesian aligner as lists.
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structpred import check_seed, check_whole
from structpred.io import missing_reason

from cli_helpers import SPELLINGS, other_spelling
from cli_helpers import one_line_error as _one_line_error
from cli_helpers import run_cli as _run

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

BAD_SEEDS = st.one_of(st.integers(max_value=-1), st.floats(allow_nan=True),
                      st.booleans(), st.text(max_size=3))


# ---------------------------------------------------------------- class: seeds
TOPIC_MODELS = ["DiscLDA", "GibbsMedLDA", "ImportanceMedLDA", "LDA", "LDASVM", "NBSVM",
                "PaMedHDPClassifier", "PaMedLDA", "SdemLDAClassifier", "SdemNaiveBayes"]


def _fit(owner, seed):
    rng = np.random.default_rng(0)
    if owner == "tagger":
        from sequence.model import SequenceTagger

        X = [[("a", "N"), ("b", "V")], [("c", "N")]]
        y = [["B-NP", "O"], ["B-NP"]]
        return SequenceTagger(learner="perceptron", n_iter=1, random_state=seed).fit(X, y)
    if owner == "segmenter":
        from segmentation.model import MRFSegmenter

        images = [rng.integers(0, 256, (6, 7, 3)).astype(np.uint8) for _ in range(2)]
        masks = [rng.random((6, 7)) < 0.5 for _ in range(2)]
        return MRFSegmenter(n_iter=1, guard=False, valid_fraction=0,
                            random_state=seed).fit(images, masks)
    if owner == "bayes":
        from alignment.aligners.bayes import BayesianAligner

        return BayesianAligner(random_state=seed, n_samplers=1).fit(["a b"], ["x y"])
    import topics

    docs = ["apple pear plum", "car road gear", "apple plum fig", "road car fuel"] * 2
    return getattr(topics, owner)(random_state=seed).fit(docs, ["f", "c"] * 4)


@SETTINGS
@given(seed=BAD_SEEDS, owner=st.sampled_from(TOPIC_MODELS + ["tagger", "segmenter", "bayes"]))
def test_a_seed_that_is_not_a_seed_is_refused_in_the_estimators_words(seed, owner):
    # before: numpy's "expected non-negative integer", SeedSequence's "expects int or
    # sequence of ints", or a fractional seed cut by int() and taken
    with pytest.raises(ValueError, match="random_state must be an integer >= 0"):
        _fit(owner, seed)


@given(st.one_of(st.none(), st.integers(0, 2 ** 63)))
def test_none_and_every_non_negative_integer_are_seeds(seed):
    check_seed(seed)
    check_seed(np.int64(min(seed or 0, 2 ** 62)))


@given(st.integers(), st.integers(-3, 3))
def test_check_whole_accepts_exactly_the_integers_from_lo(value, lo):
    if value >= lo:
        check_whole("n", value, lo)
    else:
        with pytest.raises(ValueError, match=f"n must be an integer >= {lo}"):
            check_whole("n", value, lo)


# ---------------------------------------------------------------- class: input paths
def _bad_path(kind, d):
    p = d / f"in-{kind}"
    if kind == "loop":
        p.symlink_to(d / "in-loop2")
        (d / "in-loop2").symlink_to(p)
        return p, "a loop of symbolic links"
    if kind == "dangling":
        p.symlink_to(d / "gone")
        return p, "a symbolic link to a missing"
    if kind == "under a file":
        f = d / "plain.txt"
        f.write_text("x\n")
        return f / "inside.txt", "a part of the path is a file"
    return p, "no such file"


TRAIN_COMMANDS = {
    "topics": lambda p, o: ["topics", "train", "--data", p, "--model", "nbsvm", "-o", o],
    "tag": lambda p, o: ["tag", "train", "--data", p, "-o", o],
    "segment points": lambda p, o: ["segment", "train", "--points", p,
                                    "--foreground-labels", "1", "-o", o],
    "segment images": lambda p, o: ["segment", "train", "--images", p, "--masks", p,
                                    "-o", o],
    "align": lambda p, o: ["align", "train", "--src", p, "--tgt", p, "--gold", p, "-o", o,
                           "-q"],
    "aer": lambda p, o: ["aer", "--gold", p, "--test", p],
}


@pytest.mark.parametrize("kind", ["loop", "dangling", "under a file", "missing"])
@pytest.mark.parametrize("command", sorted(TRAIN_COMMANDS))
def test_an_input_that_cannot_be_opened_is_named_by_its_cause(command, kind, tmp_path,
                                                              capsys):
    path, cause = _bad_path(kind, tmp_path)
    rc, out, err = _run(TRAIN_COMMANDS[command](str(path), str(tmp_path / "m.npz")), capsys)
    assert _one_line_error(rc, err, str(path), cause), err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("kind", ["loop", "dangling", "under a file", "missing"])
def test_missing_reason_tells_the_classes_apart(kind, tmp_path):
    path, cause = _bad_path(kind, tmp_path)
    assert cause in missing_reason(path)
    assert missing_reason(tmp_path) is None


# ------------------------------------------------- class: validation = training data
@SETTINGS
@given(spelling=st.sampled_from(SPELLINGS),
       command=st.sampled_from(["topics", "tag", "align"]))
def test_validation_data_that_is_the_training_data_is_refused(spelling, command, tmp_path,
                                                              monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    if command == "align":
        for name, text in (("s", "a b\n"), ("t", "x y\n"), ("g", "1 1 1\n"),
                           ("vs", "c d\n"), ("vt", "z w\n")):
            (tmp_path / name).write_text(text)
        other = other_spelling(tmp_path / "g", spelling, tmp_path)
        argv = ["align", "train", "--src", "s", "--tgt", "t", "--gold", "g",
                "--valid-src", "vs", "--valid-tgt", "vt", "--valid-gold", other]
        option = "--valid-gold"
    else:
        name, text = {"topics": ("train.tsv", "a\tapple pear\nb\tcar road\na\tplum fig\n"
                                              "b\tgear fuel\n"),
                      "tag": ("train.txt", "a B-NP\nb I-NP\n\nc O\n")}[command]
        train = tmp_path / name
        train.write_text(text)
        argv = [command, "train", "--data", str(train), "--valid-data",
                other_spelling(train, spelling, tmp_path)]
        option = "--valid-data"
    rc, _, err = _run(argv + ["-o", str(tmp_path / "m.npz")], capsys)
    assert _one_line_error(rc, err, option, "held-out"), err
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("kind", ["points", "images"])
def test_a_validation_scan_or_image_that_is_also_a_training_one_is_refused(kind, tmp_path,
                                                                           capsys):
    from PIL import Image

    if kind == "points":
        scans = []
        for i in range(2):
            p = tmp_path / f"scan{i}.txt"
            p.write_text("".join(f"{x} {x % 3} {x % 5} {1 if x % 2 else 2} 0\n"
                                 for x in range(40)))
            scans.append(str(p))
        argv = ["segment", "train", "--points", *scans, "--foreground-labels", "1",
                "--valid-points", scans[1]]
    else:
        (tmp_path / "im").mkdir()
        (tmp_path / "mk").mkdir()
        rng = np.random.default_rng(0)
        for i in range(3):
            Image.fromarray(rng.integers(0, 256, (8, 9, 3)).astype(np.uint8)).save(
                tmp_path / "im" / f"h{i}.png")
            Image.fromarray(((rng.random((8, 9)) < 0.5) * 255).astype(np.uint8)).save(
                tmp_path / "mk" / f"h{i}.png")
        argv = ["segment", "train", "--images", str(tmp_path / "im"), "--masks",
                str(tmp_path / "mk"), "--valid-images", str(tmp_path / "im" / "h2.png")]
    rc, _, err = _run(argv + ["-o", str(tmp_path / "m.npz")], capsys)
    assert _one_line_error(rc, err, "both a training and a validation", "held-out"), err


# ------------------------------------------------------------ class: token lists
@SETTINGS
@given(bad=st.sampled_from(["", " ", "a b", " a", "b\t", "\n", "x\u00a0"]),
       side=st.sampled_from(["source", "target"]))
def test_bayes_refuses_tokens_that_a_file_could_not_hold(bad, side):
    from alignment.aligners.bayes import BayesianAligner

    toks = [["a", bad, "c"]]
    src, tgt = (toks, [["x"]]) if side == "source" else ([["x"]], toks)
    with pytest.raises(ValueError, match=f"{side} sentence 0: token"):
        BayesianAligner(n_samplers=1).fit(src, tgt)


@SETTINGS
@given(spelling=st.sampled_from(SPELLINGS),
       command=st.sampled_from(["train", "unsupervised", "aer"]))
def test_the_two_sides_given_as_one_file_are_refused(spelling, command, tmp_path, monkeypatch,
                                                     capsys):
    # before: English aligned to itself, with exit 0
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "s.en"
    src.write_text("a b\nc d\n")
    (tmp_path / "g").write_text("1 1 1\n2 1 1\n")
    other = other_spelling(src, spelling, tmp_path)
    argv = {"train": ["align", "train", "--src", str(src), "--tgt", other, "--gold", "g",
                      "-o", str(tmp_path / "m.npz")],
            "unsupervised": ["align", "unsupervised", "--src", str(src), "--tgt", other,
                             "-o", str(tmp_path / "u.links")],
            "aer": ["aer", "--gold", "g", "--test", "g", "--src", str(src), "--tgt", other]}
    rc, _, err = _run(argv[command] + ([] if command == "aer" else ["-q"]), capsys)
    assert _one_line_error(rc, err, "--tgt is the same file as --src"), err


@SETTINGS
@given(bad=st.sampled_from(["", " ", "a b", "b\t", "x\u00a0", "\u2028"]),
       owner=st.sampled_from(["unsupervised", "matching"]), side=st.integers(0, 1))
def test_every_aligner_refuses_tokens_that_a_file_could_not_hold(bad, owner, side):
    # before: UnsupervisedAligner and MatchingAligner took them (BayesianAligner did not)
    from structpred.io import check_sentence_pairs

    pair = [["a", "c"], ["x"]]
    pair[side] = pair[side] + [bad]
    with pytest.raises(ValueError, match="is empty or holds white space"):
        if owner == "unsupervised":
            from alignment.aligners.unsupervised import UnsupervisedAligner

            UnsupervisedAligner().fit([pair[0]], [pair[1]])
        else:
            check_sentence_pairs([tuple(pair)])


@SETTINGS
@given(seed=st.one_of(st.integers(max_value=-1), st.integers(min_value=2 ** 32)),
       command=st.sampled_from(["train", "bayes"]))
def test_align_seeds_beyond_32_bits_or_negative_are_refused(seed, command, tmp_path, capsys):
    # before: align's --seed took any non-negative integer, where the other commands stop
    # at 32 bits
    src, tgt = tmp_path / "s.en", tmp_path / "s.fr"
    src.write_text("a b\n")
    tgt.write_text("x y\n")
    argv = (["align", "train", "--src", str(src), "--tgt", str(tgt), "--gold", str(src)]
            if command == "train" else
            ["align", "unsupervised", "--model", "bayes", "--src", str(src), "--tgt", str(tgt)])
    rc, _, err = _run(argv + [f"--seed={seed}", "-o", str(tmp_path / "o")], capsys)
    assert _one_line_error(rc, err, "argument --seed"), err


def test_an_unfitted_segmenter_says_so_as_scikit_learn_does():
    # before: a RuntimeError, which scikit-learn's conventions (NotFittedError, a
    # ValueError) do not expect
    from sklearn.exceptions import NotFittedError

    from segmentation.model import MRFSegmenter

    with pytest.raises(NotFittedError, match="not fitted"):
        MRFSegmenter().predict([np.zeros((5, 5, 3), np.uint8)])
