"""Unusual inputs of the command line, eighth sweep (issue 28, docs/errors.md), by class:

- ``--param C=1 --param C=2`` took the last value silently;
- options the chosen mode does not use, silently ignored: ``tag train --relative-radius``
  beside ``--radius``; ``topics train --valid-fraction`` with ``--valid-data``, or with
  fewer than 2,000 training documents (the choice is made by cross-validation);
  ``segment train --edge-factors`` with ``--no-edges`` or ``--no-guard``;
- standard input named for two inputs (``align unsupervised --src - --tgt -`` read
  alternate lines of one stream and was refused as "line counts differ"; ``tag train``/
  ``topics train --data - --valid-data -`` found the second read empty);
- comma-separated option values with an empty item (``--c-neg 1,,2``, ``--sentences
  1,,3``, ``--foreground-labels 1300,,1306``): the empty item was dropped silently;
- a link score outside [0, 1] (``0-0:1.5``) was only a "malformed link";
- an output whose folder is a loop of symbolic links or a link to nothing was "does not
  exist";
- a truncated ``.npz`` model named Python's "File is not a zip file"; ``-m -`` was "no
  such file";
- a library warning of several lines (scikit-learn's "lbfgs failed to converge
  (status=1):" and its cause on the next lines) was cut at its first line.
"""

import io
import re
import string

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import DOCS, one_line_error, run_cli

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

CONLL = ("the DT B-NP\ncat NN I-NP\nsat VBD B-VP\n\n"
         "a DT B-NP\ndog NN I-NP\nran VBD B-VP\n\n") * 3


@pytest.fixture
def files(tmp_path):
    (tmp_path / "tr.txt").write_text(CONLL)
    (tmp_path / "va.txt").write_text(CONLL)
    (tmp_path / "docs.tsv").write_text(DOCS)
    (tmp_path / "valid.tsv").write_text(DOCS)
    (tmp_path / "a.en").write_text("the house\ni agree\n")
    (tmp_path / "a.fr").write_text("la maison\nje suis d' accord\n")
    return tmp_path


# ------------------------------------------------- class: options the mode does not use
def test_relative_radius_beside_radius_is_refused(files, capsys):
    """``--relative-radius`` sets the radius only without ``--radius``: it was ignored."""
    rc, _, err = run_cli(["tag", "train", "--data", str(files / "tr.txt"), "-o",
                          str(files / "m.npz"), "--radius", "1", "--relative-radius", "2"],
                         capsys)
    assert one_line_error(rc, err, "--relative-radius", "--radius"), err
    assert not (files / "m.npz").exists()


@pytest.mark.parametrize("valid", [False, True])
def test_valid_fraction_where_the_choice_does_not_use_it_is_refused(files, capsys, valid):
    """Under 2,000 documents the choice is made by 5-fold cross-validation, and with
    ``--valid-data`` on it: ``--valid-fraction`` was accepted and ignored."""
    argv = ["topics", "train", "--data", str(files / "docs.tsv"), "-o", str(files / "m.npz"),
            "--valid-fraction", "0.3"]
    if valid:
        argv += ["--valid-data", str(files / "valid.tsv")]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, "--valid-fraction",
                          "--valid-data" if valid else "cross-validation"), err
    assert not (files / "m.npz").exists()


@pytest.mark.parametrize("flag", ["--no-edges", "--no-guard"])
def test_edge_factors_without_the_guard_or_edges_is_refused(files, capsys, flag):
    """``--edge-factors`` rescales the MRF's edges in the guard: with ``--no-edges`` or
    ``--no-guard`` it was accepted and ignored."""
    rc, _, err = run_cli(["segment", "train", "--images", str(files / "a.png"), "--masks",
                          str(files), "-o", str(files / "m.npz"), flag, "--edge-factors", "2"],
                         capsys)
    assert one_line_error(rc, err, "--edge-factors", flag), err


@pytest.mark.parametrize("extra,words", [
    (["--model", "nbsvm", "--param", "C=1", "--param", "C=2"], ("--param C given twice",))])
def test_a_parameter_given_twice_is_refused(files, capsys, extra, words):
    """A ``--param`` given twice took the last value silently."""
    rc, _, err = run_cli(["topics", "train", "--data", str(files / "docs.tsv"), "-o",
                          str(files / "m.npz"), *extra], capsys)
    assert one_line_error(rc, err, *words), err


# ------------------------------------------------- class: standard input read twice
STDIN_TWICE = {
    "align unsupervised": (["align", "unsupervised", "--src", "-", "--tgt", "-"],
                           ("--src", "--tgt")),
    "tag train": (["tag", "train", "--data", "-", "--valid-data", "-"],
                  ("--data", "--valid-data")),
    "topics train": (["topics", "train", "--data", "-", "--valid-data", "-", "--format",
                      "tsv"], ("--data", "--valid-data")),
}


@pytest.mark.parametrize("command", sorted(STDIN_TWICE))
def test_standard_input_named_for_two_inputs_is_refused(files, capsys, command, monkeypatch):
    argv, options = STDIN_TWICE[command]
    monkeypatch.chdir(files)
    monkeypatch.setattr("sys.stdin", io.StringIO("a b\nc d\n"))
    rc, _, err = run_cli(argv + ["-o", str(files / "out")], capsys)
    assert one_line_error(rc, err, "standard input", *options), err


# ------------------------------------------------- class: comma lists with an empty item
def _list_with_a_hole(values, where, at_end):
    items = [str(v) for v in values]
    if at_end:
        items.append("")
    else:
        items.insert(where % (len(items) + 1), "")
    return ",".join(items)


#: option -> (argv before it, a strategy of valid items)
LIST_OPTIONS = {
    "--sentences": (["aer", "--gold", "g", "--test", "t", "--plot", "p.png"],
                    st.integers(1, 50)),
    "--c-neg": (["align", "train", "--src", "a", "--tgt", "b", "--gold", "g", "-o", "m"],
                st.integers(0, 9)),
    "--edge-factors": (["segment", "train", "--images", "a.png", "-o", "m"],
                       st.sampled_from(["0.5", "2", "4"])),
    "--class-weight": (["segment", "train", "--images", "a.png", "-o", "m"],
                       st.sampled_from(["1", "2.5", "3"])),
    "--eta-scale": (["segment", "train", "--images", "a.png", "-o", "m"],
                    st.sampled_from(["0.5", "1", "2"])),
    "--foreground-labels": (["segment", "train", "--points", "a.xyz", "-o", "m"],
                            st.sampled_from(["1", "1300-1306", "7"])),
}


@SETTINGS
@given(option=st.sampled_from(sorted(LIST_OPTIONS)), data=st.data(),
       where=st.integers(0, 5), at_end=st.booleans())
def test_a_comma_list_with_an_empty_item_is_refused(option, data, where, at_end, capsys):
    """``1,,2`` or ``1,2,``: the empty item was dropped and the rest used."""
    before, items = LIST_OPTIONS[option]
    values = data.draw(st.lists(items, min_size=1, max_size=4))
    text = _list_with_a_hole(values, where, at_end)
    rc, _, err = run_cli(before + [option, text], capsys)
    assert one_line_error(rc, err, option, "empty item"), err


@SETTINGS
@given(exponent=st.integers(7, 308))
def test_a_feature_scale_that_overflows_is_named(exponent, capsys):
    """``--feature-scale 1e308`` was "MASKS: feature matrix contains NaN or infinite
    values", naming the mask folder."""
    rc, _, err = run_cli(["segment", "train", "--images", "a.png", "-o", "m",
                          "--feature-scale", f"1e{exponent}"], capsys)
    assert one_line_error(rc, err, "--feature-scale", "at most"), err


# ------------------------------------------------- class: link scores (aer --test)
@SETTINGS
@given(score=st.one_of(st.floats(1.0001, 1e6), st.floats(-1e6, -0.0001)))
def test_a_link_score_outside_0_1_is_named(score, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("scores")
    (d / "gold.txt").write_text("0-0 1-1\n")
    shown = f"{score:.4f}"
    (d / "test.txt").write_text(f"0-0:{shown} 1-1\n")
    rc, _, err = run_cli(["aer", "--gold", str(d / "gold.txt"), "--test", str(d / "test.txt")],
                         capsys)
    assert one_line_error(rc, err, "test.txt:1:", f"'{shown}'", "not a probability in [0, 1]"), err


# ------------------------------------------------- class: output folders that are links
def _broken_link(folder, kind):
    link = folder / "out"
    if kind == "loop":
        (folder / "other").symlink_to(link)
        link.symlink_to(folder / "other")
    else:
        link.symlink_to(folder / "nowhere")
    return link


BROKEN = {"loop": "a loop of symbolic links", "dangling": "a symbolic link to a missing folder"}


@pytest.mark.parametrize("kind", sorted(BROKEN))
@pytest.mark.parametrize("command", ["tag predict", "topics predict"])
def test_an_output_folder_that_is_a_broken_link_is_named(files, capsys, kind, command):
    """The folder of ``-o`` (a file) was said not to exist."""
    link = _broken_link(files, kind)
    if command == "tag predict":
        argv = ["tag", "predict", "-m", str(files / "m.npz"), "-i", str(files / "tr.txt")]
    else:
        argv = ["topics", "predict", "-m", str(files / "m.npz"), "--data",
                str(files / "docs.tsv")]
    rc, _, err = run_cli(argv + ["-o", str(link / "x.txt")], capsys)
    assert one_line_error(rc, err, BROKEN[kind]), err


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_an_output_folder_inside_a_broken_link_is_named(files, kind):
    """``segment predict -o LINK/x`` (a folder made by the command) was "does not exist"."""
    from segmentation.cli import _check_output_dir
    from structpred.cli import UserError

    link = _broken_link(files, kind)
    with pytest.raises(UserError, match=BROKEN[kind]):
        _check_output_dir(link / "x", set(), "-o")


# ------------------------------------------------- class: damaged model files
@pytest.mark.parametrize("keep", [0.3, 0.9])
def test_a_truncated_npz_model_is_named_without_pythons_words(tmp_path, capsys, keep):
    whole = tmp_path / "whole.npz"
    np.savez(whole, a=np.arange(1000), b=np.ones(500))
    raw = whole.read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(raw[:int(len(raw) * keep)])
    (tmp_path / "a.txt").write_text("the\n")
    rc, _, err = run_cli(["tag", "predict", "-m", str(cut), "-i", str(tmp_path / "a.txt")],
                         capsys)
    assert one_line_error(rc, err, "cut.npz", "cut short"), err
    assert "zip file" not in err


MODEL_FROM_STDIN = {
    "tag predict": ["tag", "predict", "-m", "-", "-i", "tr.txt"],
    "tag eval": ["tag", "eval", "-m", "-", "--data", "tr.txt"],
    "topics predict": ["topics", "predict", "-m", "-", "--data", "docs.tsv"],
    "segment predict": ["segment", "predict", "-m", "-", "--images", "a.png", "-o", "sb"],
    "align predict": ["align", "predict", "-m", "-", "--src", "a.en", "--tgt", "a.fr"],
}


@pytest.mark.parametrize("command", sorted(MODEL_FROM_STDIN))
def test_a_model_named_as_standard_input_is_refused_as_such(files, capsys, monkeypatch,
                                                            command):
    """``-m -`` was "-: no such file" (or "no such model file")."""
    monkeypatch.chdir(files)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    rc, _, err = run_cli(MODEL_FROM_STDIN[command], capsys)
    assert one_line_error(rc, err, "standard input cannot hold", "random access"), err


# ------------------------------------------------- class: library warnings
@SETTINGS
@given(lines=st.lists(st.text(string.ascii_letters + string.digits + string.punctuation + "éßж",
                              min_size=1, max_size=20), min_size=2, max_size=5),
       indent=st.sampled_from(["", "    ", "\t"]), blank=st.booleans())
def test_a_warning_of_several_lines_is_one_line_with_all_its_words(lines, indent, blank):
    """scikit-learn's "lbfgs failed to converge (status=1):\\nSTOP: TOTAL NO. OF
    ITERATIONS REACHED LIMIT.\\n\\nIncrease the number of iterations..." was shown as its
    first line, which ends before the cause."""
    from structpred.cli._main import _one_line_warning

    message = ("\n\n" if blank else "\n").join(indent + line for line in lines)
    out = io.StringIO()
    _one_line_warning(UserWarning(message), UserWarning, "lib.py", 3, file=out)
    shown = out.getvalue()
    assert shown.count("\n") == 1 and shown.startswith("structpred: warning: ")
    assert shown.split() == ["structpred:", "warning:"] + message.split()
    assert "lib.py" not in shown or any("lib.py" in line for line in lines)


def test_sklearns_convergence_warning_keeps_its_cause():
    from structpred.cli._main import _one_line_warning

    out = io.StringIO()
    _one_line_warning("lbfgs failed to converge (status=1):\nSTOP: TOTAL NO. OF ITERATIONS "
                      "REACHED LIMIT.\n\nIncrease the number of iterations (max_iter) or scale "
                      "the data as shown in:\n    https://scikit-learn.org/stable/modules/"
                      "preprocessing.html", UserWarning, "x.py", 1, file=out)
    assert re.fullmatch(r"structpred: warning: lbfgs failed to converge \(status=1\): STOP: "
                        r"TOTAL NO\. OF ITERATIONS REACHED LIMIT\. Increase .* https://\S+\n",
                        out.getvalue())
