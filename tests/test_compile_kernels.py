"""``scripts/compile_kernels.py`` (run by ``make`` after installing) must reach every
subcommand and every topic model, or their kernels are compiled by the first real run
instead; ``make`` itself runs the script, so a run that fails there fails the install."""

from structpred.cli import subcommands


def test_every_subcommand_and_topic_model_is_compiled_at_install(load_script, tmp_path):
    from topics.registry import MODELS

    runs = [argv for _, argv in load_script("compile_kernels").commands(tmp_path)]
    assert {argv[0] for argv in runs} == set(subcommands())
    actions = {(argv[0], argv[1]) for argv in runs if argv[0] != "aer"}
    for action in ["train", "predict", "unsupervised"]:
        assert ("align", action) in actions
    assert ("segment", "train") in actions and ("tag", "train") in actions
    models = {argv[argv.index("--model") + 1] for argv in runs if argv[:2] == ["topics", "train"]}
    assert models == set(MODELS)
