"""An option that the chosen mode does not use is refused, naming it, never silently
ignored (class: options of another mode).  The lists of mode-only options are the ones
the commands check; each list must have a value here, so an option added to a list is
tested without anyone remembering to."""

from pathlib import Path

import pytest

from structpred.cli import UserError, main, options_given, refuse_options
from structpred.cli._main import build_parser

ROOT = Path(__file__).resolve().parents[1]
TRAIN_TXT = ROOT / "data" / "sequence" / "conll2000-train-300.txt.gz"
DOCS = ROOT / "data" / "text" / "20ng-4groups-train.jsonl.gz"
MANIFEST = ROOT / "data" / "segmentation" / "weizmann_horse" / "manifest.csv"
POINTS = ROOT / "data" / "segmentation" / "oakland3d_part2" / "oakland_part2_01.xyz_label_conf.gz"

# a value other than the default, for every option in a mode-only list
VALUES = {"valid_data": [str(DOCS)], "valid_fraction": ["0.3"], "time_budget": ["5"],
          "jobs": ["1"], "radius": ["3"], "relative_radius": ["2"],
          "n_segments": ["50"], "no_colour_model": [], "ignore_value": ["3"], "threshold": ["128"],
          "mask_suffix": ["_mask"],
          "image_dir": ["/tmp"], "mask_dir": ["/tmp"], "split": ["train"],
          "masks": ["/tmp"], "valid_split": ["valid"], "valid_images": [str(MANIFEST)],
          "valid_masks": ["/tmp"], "valid_manifest": [str(MANIFEST)],
          "side_by_side": ["/tmp/sbs"], "voxel": ["0.5"], "k_graph": ["4"],
          "foreground_labels": ["1300"], "background_labels": ["0"], "valid_points": [str(POINTS)]}


def _cases():
    from segmentation.cli import IMAGE_ONLY, MASK_OPTIONS, POINTS_ONLY
    from sequence.cli import BOUND_ONLY
    from topics.cli import AUTO_ONLY

    out = []
    for dest in AUTO_ONLY:
        out.append(("topics", dest, ["topics", "train", "--data", str(DOCS), "--model",
                                     "nbsvm"], "an option of --model auto"))
    for dest in BOUND_ONLY:
        out.append(("tag", dest, ["tag", "train", "--data", str(TRAIN_TXT), "--learner",
                                  "perceptron"], "the perceptron has no bound"))
    for dest in IMAGE_ONLY:
        if dest != "side_by_side":
            out.append(("segment", dest, ["segment", "train", "--points", str(POINTS),
                                          "--foreground-labels", "1300-1306"],
                        "is for images"))
    for dest in POINTS_ONLY:
        out.append(("segment", dest, ["segment", "train", "--manifest", str(MANIFEST)],
                    "is for point clouds"))
    for dest in MASK_OPTIONS:   # refused before the model is read
        out.append(("segment", dest, ["segment", "predict", "-m", "none.npz", "--manifest",
                                      str(MANIFEST)], "predict reads none"))
    return out


CASES = _cases()


def test_every_listed_option_has_a_value():
    assert {c[1] for c in CASES} <= set(VALUES)


def _option_name(argv, dest):
    return build_parser(argv).parse_args(argv + ["-o", "x"])._option_defaults[dest][0]


@pytest.mark.parametrize("command,dest,argv,why", CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_an_option_the_mode_does_not_use_is_refused(command, dest, argv, why, tmp_path,
                                                    capsys):
    """The option is refused in one line that names it (the message says why: the mode
    that uses it, or the option it needs)."""
    name = _option_name(argv, dest)
    rc = main(argv + ["-o", str(tmp_path / "m.npz"), name, *VALUES[dest], "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and name in err and err.count("\n") == 1, err
    assert not (tmp_path / "m.npz").exists()


def test_options_given_sees_only_what_differs_from_the_default():
    args = build_parser(["tag", "train"]).parse_args(
        ["tag", "train", "--data", "d", "-o", "m", "--radius", "3"])
    assert options_given(args, "radius", "relative_radius", "patience") == ["--radius"]
    with pytest.raises(UserError, match="--radius nope"):
        refuse_options(args, ("relative_radius", "radius"), "nope")
    with pytest.raises(KeyError):             # a misspelt name never passes silently
        options_given(args, "raduis")
