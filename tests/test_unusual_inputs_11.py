"""Unusual inputs of the command line, eleventh sweep (issue 28, docs/errors.md): inputs
that parse fine but mean something other than what the command assumes, by class:

- label spaces: class numbers written two ways (``1``, ``01``, ``1.0``, ``+1``: a label
  column written by a spreadsheet or by pandas as floats) were as many classes in
  ``topics train`` (a class split in two, exit 0) and, against a model of ``1``, every
  document of ``1.0`` an error in ``topics eval``; now refused as one number written two
  ways, as labels spelled in two cases are (``structpred.check_label_spellings``);
- label spaces: ``tag train`` on chunk tags of two schemes (IOBES's ``S-``/``E-`` in some
  sentences, IOB's one-token ``B-X`` or chunk-ending ``I-X`` in others: files joined from
  two sources) trained a tagger that learnt two labels for one chunk shape, with exit 0;
  now refused naming the file, sentence and token;
- files in the wrong role: ``topics eval`` on the training file (or on test data that
  holds many training documents) printed its near-100 % accuracy as any other, with exit
  0; the model now keeps a 64-bit digest of each training text, and 5 % or more of the
  documents (2 at least) found among them is one ``structpred: warning:`` line;
- units: a point cloud in millimetres given to ``segment`` (train, eval, predict), whose
  features read coordinates as metres, was "out of memory: the sizes asked for do not
  fit" (its ground grid of 2 m columns was allocated for a scan 100 km across); now
  refused naming the span and asking whether the coordinates are in millimetres;
- tokenisation: untokenised text (``complex,``, ``confusing.``: punctuation glued to the
  words) given to ``align predict`` (or ``align train``) with a model of a tokenised
  bitext was aligned with exit 0 and no word (under the share of unknown words that
  warns): the words lost the statistics' features and the links were of other positions
  than tokenised gold's; now one ``structpred: warning:`` line per side;
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

FRUIT = ("apple banana fruit sweet juice", "pear plum fruit ripe juice")
CARS = ("car engine wheel road drive", "bus engine road wheel fuel")


# ----------------------------------------------------- class: numbers written two ways
def _number_spellings(n):
    """Other ways to write the whole number ``n`` as a label."""
    return st.sampled_from([f"0{n}", f"+{n}", f"{n}e0", f"00{n}"])


@SETTINGS
@given(other=_number_spellings(1), row=st.integers(0, 7))
def test_class_numbers_written_two_ways_are_refused(tmp_path_factory, capsys, other, row):
    d = tmp_path_factory.mktemp("num")
    rows = [("1", FRUIT[i % 2]) if i % 2 == 0 else ("2", CARS[i % 2]) for i in range(8)]
    rows[row - row % 2] = (other, FRUIT[0])
    data = d / "train.tsv"
    data.write_text("".join(f"{lab}\t{text}\n" for lab, text in rows))
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", "sdem-nb",
                          "-o", str(d / "m.npz"), "-q"], capsys)
    assert one_line_error(rc, err, "one number written two ways", repr(other)), err


def test_class_numbers_against_the_model(tmp_path, capsys):
    rows = [("1", FRUIT[i % 2]) if i % 2 == 0 else ("2", CARS[i % 2]) for i in range(8)]
    data = tmp_path / "train.tsv"
    data.write_text("".join(f"{lab}\t{text}\n" for lab, text in rows))
    model = tmp_path / "m.npz"
    assert run_cli(["topics", "train", "--data", str(data), "--model", "sdem-nb",
                    "-o", str(model), "-q"], capsys)[0] == 0
    test = tmp_path / "test.tsv"
    test.write_text("".join(f"0{lab}\t{text}\n" for lab, text in rows))
    rc, _, err = run_cli(["topics", "eval", "--data", str(test), "-m", str(model)], capsys)
    assert one_line_error(rc, err, f"{test}:1:", "'01'", "one number written two ways"), err
    # a whole number written as a decimal is the number (pandas' 1.0): the model's classes
    test.write_text("".join(f"{lab}.0\t{text}\n" for lab, text in rows))
    rc, out, err = run_cli(["topics", "eval", "--data", str(test), "-m", str(model)], capsys)
    assert rc == 0, err
    assert out == run_cli(["topics", "eval", "--data", str(data), "-m", str(model)], capsys)[1]


def test_numbers_the_check_reads_as_numbers():
    from structpred import check_label_spellings, label_clash

    assert label_clash(["1", "01"]) == ("01", "1")
    assert label_clash(["1", "2", "10", "1.5", "15"]) is None
    assert label_clash(["1e5", "100000"]) is not None
    with pytest.raises(ValueError, match=re.escape("'2.0' and the label '2'")):
        check_label_spellings(["2", "2.0"])


# ------------------------------------------------ class: chunk tags of two schemes mixed
def _chunked():
    """Sentences of chunk spans ``(length, type)``."""
    return st.lists(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["NP", "VP", "PP"])),
                             min_size=1, max_size=5), min_size=2, max_size=5)


def _write(spans, scheme):
    """The labels of chunk spans ``(length, type)`` (length 0: an ``O`` token) in
    ``scheme`` (``iob``, ``iobes``, ``bilou``)."""
    single, end = {"iob": ("B", "I"), "iobes": ("S", "E"), "bilou": ("U", "L")}[scheme]
    out = []
    for n, kind in spans:
        if n == 0:
            out.append("O")
        elif n == 1:
            out.append(f"{single}-{kind}")
        else:
            out += [f"B-{kind}"] + [f"I-{kind}"] * (n - 2) + [f"{end}-{kind}"]
    return out


@SETTINGS
@given(sentences=_chunked(), scheme=st.sampled_from(["iob", "iobes", "bilou"]))
def test_one_scheme_is_accepted(sentences, scheme):
    from sequence.evaluate import scheme_mix

    assert scheme_mix([_write(s, scheme) for s in sentences]) is None


@SETTINGS
@given(sentences=_chunked().filter(lambda ss: any(n for s in ss for n, _ in s)),
       other=st.sampled_from(["iobes", "bilou"]), data=st.data())
def test_two_schemes_are_refused(sentences, other, data):
    from sequence.evaluate import scheme_mix

    chunky = [k for k, s in enumerate(sentences) if any(n for n, _ in s)]
    iob = data.draw(st.sampled_from(chunky))
    labels = [_write(s, "iob" if k == iob else other) for k, s in enumerate(sentences)]
    # the other scheme's tags must occur for the mixture to be seen
    labels.append(_write([(1, "NP"), (2, "VP")], other))
    mix = scheme_mix(labels)
    assert mix is not None and mix[0] == iob


def test_tag_train_refuses_two_schemes(tmp_path, capsys):
    lines = []
    for k in range(6):
        tags = ["B-NP", "I-NP", "O", "B-VP"] if k == 4 else ["B-NP", "E-NP", "O", "S-VP"]
        lines += [f"w{i} {t}" for i, t in enumerate(tags)] + [""]
    data = tmp_path / "mixed.txt"
    data.write_text("\n".join(lines))
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "-o", str(tmp_path / "m.npz"),
                          "-q"], capsys)
    assert one_line_error(rc, err, f"{data}: sentence 5, token 2:", "'I-NP'", "IOBES"), err


# ----------------------------------------------- class: the training file given as test
def _topic_rows(n, offset=0):
    return [("fruit", f"{FRUIT[i % 2]} w{i + offset}") if i % 2 == 0 else
            ("cars", f"{CARS[i % 2]} w{i + offset}") for i in range(n)]


@pytest.fixture(scope="module")
def topic_model(tmp_path_factory):
    from structpred.cli import main

    d = tmp_path_factory.mktemp("topics11")
    (d / "train.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in _topic_rows(40)))
    assert main(["topics", "train", "--data", str(d / "train.tsv"), "--model", "sdem-nb",
                 "-o", str(d / "m.npz"), "-q"]) == 0
    return d


@SETTINGS
@given(n_seen=st.integers(0, 20), spaces=st.sampled_from([" ", "  ", "\t"]))
def test_training_documents_in_the_test_file(topic_model, tmp_path_factory, capsys, n_seen,
                                             spaces):
    train = _topic_rows(40)
    rows = [(a, b.replace(" ", spaces)) for a, b in train[:n_seen]] + _topic_rows(20, 1000)
    test = tmp_path_factory.mktemp("t") / "test.tsv"
    test.write_text("".join(f"{a}\t{b}\n" for a, b in rows))
    rc, out, err = run_cli(["topics", "eval", "--data", str(test),
                            "-m", str(topic_model / "m.npz"), "-q"], capsys)
    assert rc == 0 and "accuracy" in out
    warned = [line for line in err.splitlines() if line.startswith("structpred: warning:")]
    if n_seen >= 2:
        assert len(warned) == 1 and f"{n_seen} of the {len(rows)} documents" in warned[0]
        assert f"{test}:1" in warned[0]
    else:
        assert not warned, err


def test_the_training_file_as_test(topic_model, capsys):
    train = str(topic_model / "train.tsv")
    rc, _, err = run_cli(["topics", "eval", "--data", train, "-m", str(topic_model / "m.npz"),
                          "-q"], capsys)
    assert rc == 0 and "40 of the 40 documents" in err and "is this the training file?" in err


# ---------------------------------------------------- class: point clouds in millimetres
def _scan(span, n=300, seed=0):
    rng = np.random.default_rng(seed)
    xyz = rng.uniform(0, 1, (n, 3)) * [span, span * 0.8, 5.0]
    return xyz


@SETTINGS
@given(span=st.floats(40, 300), seed=st.integers(0, 3))
def test_points_in_millimetres_are_named(span, seed):
    from segmentation.points import point_graph

    xyz = _scan(span, seed=seed)
    point_graph(xyz, voxel=1.0)                       # metres: read
    with pytest.raises(ValueError, match="are its coordinates in millimetres"):
        point_graph(xyz * 1000.0, voxel=1.0)


def test_segment_train_on_millimetres(tmp_path, capsys):
    xyz = _scan(120) * 1000.0
    labels = np.where(xyz[:, 2] > 2500, 1300, 1400)
    pts = tmp_path / "mm.txt"
    pts.write_text("".join(f"{x:.1f} {y:.1f} {z:.1f} {lab}\n"
                           for (x, y, z), lab in zip(xyz, labels)))
    rc, _, err = run_cli(["segment", "train", "--points", str(pts), "--foreground-labels",
                          "1300", "--voxel", "1.0", "--iterations", "1", "-q",
                          "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, f"{pts}:", "millimetres"), err


# ------------------------------------------- class: untokenised text for a tokenised model
WORDS = ("the", "link", "is", "complex", "people", "find", "it", "confusing", "we", "went")
PUNCT = (".", ",", "?", ":", "!")


class _Stats:
    """What the checks read of a model's statistics: the vocabularies of its sides."""

    def __init__(self):
        self.src_vocab = self.tgt_vocab = set(WORDS) | set(PUNCT)


@SETTINGS
@given(sentences=st.lists(st.lists(st.sampled_from(WORDS), min_size=2, max_size=8),
                          min_size=10, max_size=30),
       punct=st.sampled_from(PUNCT), glue=st.booleans(), side=st.sampled_from([0, 1]))
def test_untokenised_text_is_named(sentences, punct, glue, side):
    import warnings

    from alignment.cli.common import _check_glued

    tokens = [s + [punct] for s in sentences]
    glued = [s[:-1] + [s[-1] + punct] for s in sentences]
    pairs = [(g if glue and side == 0 else t, g if glue and side == 1 else t)
             for t, g in zip(tokens, glued)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _check_glued(pairs, _Stats())
    text = [str(w.message) for w in caught]
    if glue:
        opt = ("--src", "--tgt")[side]
        assert len(text) == 1 and text[0].startswith(f"{opt}: {len(pairs)} of its")
        assert "untokenised" in text[0]
    else:
        assert not text
