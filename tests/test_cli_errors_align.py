"""Bad input to ``structpred align train|predict|demo`` and ``structpred aer``: every case
exits with status 2 and ONE stderr line ``structpred: error: ...`` that names the file
(and line, where there is one) or the option, with no traceback and no output file left
behind (issue 17).

Most cases run in-process (``main([...])``, fast); a few run as a real process
(``python -m structpred``) to check the exit status and stderr end to end.
"""

import gzip
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"


@pytest.fixture(scope="module")
def files(tmp_path_factory, small_stats_file):
    """Small good and bad inputs, a trained model and damaged copies of it."""
    d = tmp_path_factory.mktemp("bad")
    f = {"D": str(DATA), "stats": str(small_stats_file)}

    def put(name, data):
        p = d / name
        p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        f[name.replace(".", "_")] = str(p)
        return p

    put("s3.en", "the house .\nyes .\nwe agree\n")
    put("s3.fr", "la chambre .\noui .\nnous sommes d' accord\n")
    put("g3.pharaoh", "0-0 1-1 2-2\n0-0 1-1\n0-0 1?3\n")
    put("empty.txt", "")
    put("notgz.gz", "the house .\nyes .\nwe agree\n")
    big = gzip.compress("".join(f"line {i} of text\n" for i in range(20000)).encode())
    put("trunc.gz", big[: len(big) // 2])
    put("trunc2.gz", big[: len(big) // 2])     # the two sides are two files
    put("empty2.txt", "")
    put("badutf.en", b"the house .\nyes \xff .\nwe agree\n")
    put("short.fr", "la chambre .\noui .\n")
    put("oob.pharaoh", "0-0\n0-9\n0-0\n")
    put("junk.pharaoh", "0-0\n0-0 x-y\n0-0\n")
    put("nolinks.pharaoh", "\n\n\n")
    put("fa_bad.txt", "the house ||| la chambre\nno separator here\n")
    put("fa_notgt.txt", "the house ||| \n")
    put("oob.naacl", "1 1 1 S\n5 1 1 S\n")
    put("blank3.txt", "a\n\nb\n")
    put("ext_short.txt", "0-0\n0-0\n")
    put("text.npz", "this is not an archive\n")
    put("empty.npz", "")
    (d / "folder").mkdir()
    f["folder"] = str(d / "folder")
    # a trained model (10 sentences, 2 iterations) and damaged copies
    model = d / "model.npz"
    rc = main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
               str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "10",
               "--stats", str(small_stats_file), "--iterations", "2", "-q", "-o", str(model)])
    assert rc == 0
    f["model"] = str(model)
    raw = model.read_bytes()
    put("trunc_model.npz", raw[: len(raw) // 2])
    with np.load(model, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(bytes(arrays["meta"]).decode())
    meta.pop("shapes", None)   # as files written before save_npz recorded the shapes: the
    meta.pop("digest", None)   # (and their digest)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)   # loader's checks

    def variant(name, **change):
        a = dict(arrays)
        a.update(change)
        np.savez(d / name, **a)
        f[name.replace(".", "_")] = str(d / name)

    variant("version_model.npz", meta=np.frombuffer(json.dumps({**meta, "version": 99}).encode(),
                                                    dtype=np.uint8))
    variant("coef_model.npz", coef=arrays["coef"][:-3])
    t = arrays["stats/t_fwd"].copy()
    t[:10] *= 0.5
    variant("stats_model.npz", **{"stats/t_fwd": t})
    with zipfile.ZipFile(d / "pickle_model.npz", "w") as z:   # an object array: never loaded
        import io

        buf = io.BytesIO()
        np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        z.writestr("coef.npy", buf.getvalue())
        z.writestr("meta.npy", buf.getvalue())
    f["pickle_model_npz"] = str(d / "pickle_model.npz")
    return f


TRAIN = ["align", "train", "--src", "{s3_en}", "--tgt", "{s3_fr}", "--gold", "{g3_pharaoh}",
         "--stats", "{stats}", "--iterations", "2", "-q", "-o", "{out}"]
PREDICT = ["align", "predict", "-m", "{model}", "--src", "{s3_en}", "--tgt", "{s3_fr}", "-q",
           "-o", "{out}"]
AER = ["aer", "--gold", "{g3_pharaoh}", "--test", "{g3_pharaoh}", "--src", "{s3_en}",
       "--tgt", "{s3_fr}"]


def _with(base, **options):
    """``base`` with options replaced (value None: removed) or appended."""
    argv = list(base)
    for opt, value in options.items():
        flag = "-" + opt if len(opt) == 1 else "--" + opt.replace("_", "-")
        if flag in argv:
            i = argv.index(flag)
            if value is None:
                del argv[i:i + 2]
            else:
                argv[i + 1] = value
        elif value is not None:
            argv += [flag, value]
    return argv


# (id, argv, substrings the error line must contain)
CASES = [
    # ---------------------------------------------------------------- align train: options
    ("train-iterations-0", _with(TRAIN, iterations="0"), ["argument --iterations", "'0'"]),
    ("train-iterations-text", _with(TRAIN, iterations="many"), ["--iterations", "integer"]),
    ("train-c-pos-negative", _with(TRAIN, c_pos="-1"), ["--c-pos", ">= 0"]),
    ("train-c-neg-nan", _with(TRAIN, c_neg="nan"), ["--c-neg", "finite"]),
    ("train-possible-cost-inf", _with(TRAIN, possible_cost="inf"), ["--possible-cost"]),
    ("train-first-0", _with(TRAIN, first="0"), ["--first", ">= 1"]),
    ("train-bitext-pairs-negative", _with(TRAIN, bitext_pairs="-5"), ["--bitext-pairs"]),
    ("train-max-fertility-0", _with(TRAIN, model="M+F", max_fertility="0"),
     ["--max-fertility", ">= 1"]),
    ("train-validate-every-0", _with(TRAIN, validate_every="0"), ["--validate-every"]),
    ("train-hmm-negative", _with(TRAIN, hmm="-1"), ["--hmm", ">= 0"]),
    ("train-max-length-0", _with(TRAIN, max_length="0"), ["--max-length"]),
    ("train-n-frequent-negative", _with(TRAIN, n_frequent="-2"), ["--n-frequent"]),
    ("train-first-out-of-range", _with(TRAIN, first="5000"),
     ["--first 5000", "out of range", "{s3_en}", "3 sentences"]),
    ("train-bitext-pairs-out-of-range",
     _with(TRAIN, bitext_src="{D}/bitext.36-2.en.gz", bitext_tgt="{D}/bitext.36-2.fr.gz",
           bitext_pairs="99999999"), ["--bitext-pairs 99999999", "out of range", "231648"]),
    ("train-hmm-lexicon-without-hmm", _with(TRAIN, hmm_lexicon=None) + ["--hmm-lexicon"],
     ["--hmm-lexicon needs --hmm"]),
    ("train-hmm-agreement-without-hmm", TRAIN + ["--hmm-agreement"],
     ["--hmm-agreement needs --hmm"]),
    ("train-max-fertility-model-m", _with(TRAIN, max_fertility="3"),
     ["--max-fertility needs a +F model"]),
    ("train-interaction-stats-model-m", _with(TRAIN, interaction_stats="{folder}"),
     ["--interaction-stats", "+F/+Q"]),
    ("train-unknown-feature", _with(TRAIN, exclude_features="nbr_typo"),
     ["--exclude-features", "nbr_typo"]),
    ("train-partial-validation", _with(TRAIN, valid_src="{s3_en}"),
     ["--valid-src", "--valid-gold"]),
    ("train-external-spec", _with(TRAIN, external="nofile"), ["--external", "NAME=FILE"]),
    ("train-bitext-src-alone", _with(TRAIN, bitext_src="{s3_en}"),
     ["--bitext-src and --bitext-tgt go together"]),
    ("train-no-statistics", _with(TRAIN, stats=None), ["need --bitext-src and --bitext-tgt"]),
    ("train-bitext-stdin", _with(TRAIN, bitext_src="-", bitext_tgt="{s3_fr}"),
     ["--bitext-src", "standard input"]),
    # ------------------------------------------------------------ align train: input files
    ("train-src-empty", _with(TRAIN, src="{empty_txt}", tgt="{empty2_txt}"),
     ["{empty_txt}: no sentences"]),
    ("train-src-folder", _with(TRAIN, src="{folder}"), ["{folder}", "folder"]),
    ("train-src-missing", _with(TRAIN, src="{folder}/nope.en"), ["{folder}/nope.en", "no such file"]),
    ("train-src-not-gzip", _with(TRAIN, src="{notgz_gz}"), ["{notgz_gz}", "not gzip"]),
    ("train-src-truncated-gzip", _with(TRAIN, src="{trunc_gz}", tgt="{trunc2_gz}"),
     ["{trunc_gz}:", "truncated"]),
    ("train-src-bad-utf8", _with(TRAIN, src="{badutf_en}"), ["{badutf_en}:2:", "UTF-8"]),
    ("train-line-counts-differ", _with(TRAIN, tgt="{short_fr}"),
     ["{s3_en}:3:", "line counts differ"]),
    ("train-src-blank-line", _with(TRAIN, src="{blank3_txt}"), ["{blank3_txt}:2:", "empty"]),
    ("train-gold-out-of-range", _with(TRAIN, gold="{oob_pharaoh}"),
     ["{oob_pharaoh}:2:", "out of range"]),
    ("train-gold-malformed", _with(TRAIN, gold="{junk_pharaoh}"),
     ["{junk_pharaoh}:2:", "malformed link"]),
    ("train-gold-naacl-sentence", _with(TRAIN, gold="{oob_naacl}", gold_format="naacl"),
     ["{oob_naacl}:2:", "sentence number 5"]),
    ("train-both-stdin", _with(TRAIN, src="-", tgt="-"), ["standard input", "--src and --tgt"]),
    ("train-external-short", _with(TRAIN, external="a={ext_short_txt}"),
     ["{ext_short_txt}:3:", "2 alignment lines for 3"]),
    # ------------------------------------------------------------- align train: outputs
    ("train-output-folder", _with(TRAIN, o="{folder}"), ["{folder}: is a folder", "-o"]),
    ("train-output-missing-folder", _with(TRAIN, o="{folder}/no/such/m.npz"),
     ["{folder}/no/such/m.npz", "does not exist"]),
    ("train-output-is-input", _with(TRAIN, o="{s3_en}"),
     ["{s3_en}", "would overwrite the input --src"]),
    ("train-output-is-stats", _with(TRAIN, o="{stats}"), ["{stats}", "--stats"]),
    ("train-output-stdout", _with(TRAIN, o="-"), ["-o", "standard output"]),
    # --------------------------------------------------------- align train: the caches
    ("train-stats-text", _with(TRAIN, stats="{text_npz}"),
     ["{text_npz}", "not alignment statistics"]),
    ("train-stats-empty", _with(TRAIN, stats="{empty_npz}"), ["{empty_npz}", "empty file"]),
    ("train-stats-truncated", _with(TRAIN, stats="{trunc_model_npz}"),
     ["{trunc_model_npz}", "truncated"]),
    ("train-stats-is-a-model", _with(TRAIN, stats="{model}"),
     ["{model}", "not alignment statistics"]),
    ("train-stats-other-pairs",
     _with(TRAIN, bitext_src="{D}/bitext.36-2.en.gz", bitext_tgt="{D}/bitext.36-2.fr.gz",
           bitext_pairs="1500"),
     ["{stats}", "made with other settings", "--bitext-pairs: 4000 in the cache, 1500 asked"]),
    ("train-stats-hmm-not-in-cache", _with(TRAIN, hmm="2"),
     ["{stats}", "--hmm: none in the cache, 2 asked"]),
    ("train-stats-ibm-agreement", TRAIN + ["--ibm-agreement"],
     ["{stats}", "--ibm-agreement: off in the cache, on asked"]),
    ("train-stats-new-file-missing-folder", _with(TRAIN, stats="{folder}/no/s.npz"),
     ["{folder}/no/s.npz", "does not exist"]),
    ("train-stats-is-input", _with(TRAIN, stats="{s3_en}"), ["{s3_en}", "--stats", "--src"]),
    # ------------------------------------------------------------------- align predict
    ("predict-model-missing", _with(PREDICT, m="{folder}/none.npz"),
     ["{folder}/none.npz", "no such file"]),
    ("predict-model-text", _with(PREDICT, m="{text_npz}"),
     ["{text_npz}", "not a word-alignment model"]),
    ("predict-model-empty", _with(PREDICT, m="{empty_npz}"), ["{empty_npz}", "empty file"]),
    ("predict-model-folder", _with(PREDICT, m="{folder}"), ["{folder}", "folder"]),
    ("predict-model-truncated", _with(PREDICT, m="{trunc_model_npz}"),
     ["{trunc_model_npz}", "truncated"]),
    ("predict-model-is-statistics", _with(PREDICT, m="{stats}"),
     ["{stats}", "not a word-alignment model"]),
    ("predict-model-gzip", _with(PREDICT, m="{trunc_gz}"), ["{trunc_gz}", "gzip"]),
    ("predict-model-version", _with(PREDICT, m="{version_model_npz}"),
     ["{version_model_npz}", "format version 99"]),
    ("predict-model-weights", _with(PREDICT, m="{coef_model_npz}"),
     ["{coef_model_npz}", "weights for"]),
    ("predict-model-statistics-changed", _with(PREDICT, m="{stats_model_npz}"),
     ["{stats_model_npz}", "not those it was trained with"]),
    ("predict-model-pickle", _with(PREDICT, m="{pickle_model_npz}"),
     ["{pickle_model_npz}"]),
    ("predict-input-malformed", _with(PREDICT, src=None, tgt=None, i="{fa_bad_txt}"),
     ["{fa_bad_txt}:2:", "source ||| target"]),
    ("predict-input-empty-target", _with(PREDICT, src=None, tgt=None, i="{fa_notgt_txt}"),
     ["{fa_notgt_txt}:1:", "empty target sentence"]),
    ("predict-input-empty", _with(PREDICT, src=None, tgt=None, i="{empty_txt}"),
     ["{empty_txt}", "no sentences"]),
    ("predict-both-stdin", _with(PREDICT, src="-", tgt="-"), ["standard input"]),
    ("predict-input-and-src", PREDICT + ["-i", "{fa_bad_txt}"], ["-i", "not both"]),
    ("predict-no-input", _with(PREDICT, src=None, tgt=None), ["--src and --tgt", "-i"]),
    ("predict-output-missing-folder", _with(PREDICT, o="{folder}/no/out.txt"),
     ["{folder}/no/out.txt", "does not exist"]),
    ("predict-output-is-input", _with(PREDICT, o="{s3_fr}"), ["{s3_fr}", "--tgt"]),
    ("predict-external-not-trained", PREDICT + ["--external", "a={ext_short_txt}"],
     ["--external", "without external"]),
    ("predict-show-weights-negative", PREDICT + ["--show-weights", "-1"], ["--show-weights"]),
    ("predict-line-counts-differ", _with(PREDICT, tgt="{short_fr}"),
     ["{s3_en}:3:", "line counts differ"]),
    # ---------------------------------------------------------------------- align demo
    ("demo-iterations-0", ["align", "demo", "--iterations", "0"], ["--iterations"]),
    ("demo-unknown-learner", ["align", "demo", "--learners", "sgd"], ["--learners", "'sgd'"]),
    ("demo-unknown-model", ["align", "demo", "--models", "M+X"], ["--models", "'M+X'"]),
    ("demo-data-dir-missing", ["align", "demo", "--data-dir", "{folder}/nowhere"],
     ["{folder}/nowhere", "--data-dir"]),
    ("demo-data-dir-empty", ["align", "demo", "--data-dir", "{folder}"],
     ["{folder}", "missing trial.en"]),
    ("demo-bitext-pairs-out-of-range", ["align", "demo", "--bitext-pairs", "99999999",
                                        "--cache-dir", "{folder}"],
     ["--bitext-pairs 99999999", "out of range"]),
    ("demo-plot-folder", ["align", "demo", "--plot", "{folder}"], ["{folder}", "--plot"]),
    ("demo-cache-dir-file", ["align", "demo", "--cache-dir", "{s3_en}"],
     ["{s3_en}", "--cache-dir", "not a folder"]),
    ("demo-hmm-lexicon", ["align", "demo", "--hmm-lexicon"], ["--hmm-lexicon needs --hmm"]),
    # ------------------------------------------------------------------------------ aer
    ("aer-empty-files", ["aer", "--gold", "{empty_txt}", "--test", "{empty_txt}"],
     ["{empty_txt}", "empty"]),
    ("aer-line-counts", _with(AER, test="{ext_short_txt}"),
     ["{ext_short_txt}:3:", "only 2 alignment lines"]),
    ("aer-test-malformed", _with(AER, test="{junk_pharaoh}"), ["{junk_pharaoh}:2:", "malformed"]),
    ("aer-test-out-of-range", _with(AER, test="{oob_pharaoh}"),
     ["{oob_pharaoh}:2:", "out of range"]),
    ("aer-no-gold-links", _with(AER, gold="{nolinks_pharaoh}"),
     ["{nolinks_pharaoh}", "AER is undefined"]),
    ("aer-naacl-without-text-out-of-range",
     ["aer", "--gold", "{oob_naacl}", "--test", "{g3_pharaoh}"],
     ["{oob_naacl}:2:", "sentence number 5", "3 sentences"]),
    ("aer-plot-without-text", ["aer", "--gold", "{g3_pharaoh}", "--test", "{g3_pharaoh}",
                               "--plot", "{out}"], ["--plot needs --src and --tgt"]),
    ("aer-sentences-0", AER + ["--plot", "{out}", "--sentences", "0"], ["--sentences"]),
    ("aer-sentences-text", AER + ["--plot", "{out}", "--sentences", "1,b"], ["--sentences"]),
    ("aer-sentences-out-of-range", AER + ["--plot", "{out}.png", "--sentences", "2,9"],
     ["--sentences", "9", "out of range", "3 sentences"]),
    ("aer-errors-negative", AER + ["--errors", "-2"], ["--errors"]),
    ("aer-gold-folder", _with(AER, gold="{folder}"), ["{folder}", "folder"]),
    ("aer-test-not-gzip", _with(AER, test="{notgz_gz}"), ["{notgz_gz}", "not gzip"]),
    ("aer-src-alone", _with(AER, tgt=None), ["--src and --tgt go together"]),
    ("aer-both-stdin", ["aer", "--gold", "-", "--test", "-"], ["standard input"]),
    ("aer-plot-is-input", AER + ["--plot", "{s3_en}"], ["{s3_en}", "--src"]),
    ("aer-plot-folder", AER + ["--plot", "{folder}"], ["{folder}: is a folder"]),
    ("aer-src-bad-utf8", _with(AER, src="{badutf_en}"), ["{badutf_en}:2:", "UTF-8"]),
]

#: run as a real process (exit status and stderr end to end)
SUBPROCESS = {"train-iterations-0", "train-src-truncated-gzip", "predict-model-text",
              "aer-empty-files", "train-stats-other-pairs"}


def _run(argv, capsys):
    if argv[0] == "python":
        out = subprocess.run([sys.executable, "-m", "structpred", *argv[1:]],
                             capture_output=True, text=True, timeout=300)
        return out.returncode, out.stdout, out.stderr
    capsys.readouterr()
    try:
        rc = main(argv)
    except SystemExit as exc:     # argparse's errors
        rc = exc.code
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_there_are_enough_cases():
    assert len(CASES) >= 35 and len({c[0] for c in CASES}) == len(CASES)
    assert {c[0] for c in CASES} >= SUBPROCESS


@pytest.mark.parametrize("name,argv,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(name, argv, expected, files, tmp_path, capsys):
    out = tmp_path / "out.npz"
    paths = {**files, "out": str(out)}
    argv = [a.format(**paths) for a in argv]
    if name in SUBPROCESS:
        argv = ["python"] + argv
    before = set(Path(files["folder"]).iterdir())
    rc, stdout, stderr = _run(argv, capsys)
    lines = stderr.strip().splitlines()
    assert rc == 2, (rc, stderr)
    assert len(lines) == 1, stderr
    assert lines[0].startswith("structpred: error: "), stderr
    assert "Traceback" not in stderr
    for want in expected:
        assert want.format(**paths) in lines[0], (want, lines[0])
    # nothing written: no output, no temporary file, nothing new in the shared folder
    assert not out.exists() and not list(tmp_path.iterdir()), list(tmp_path.iterdir())
    assert set(Path(files["folder"]).iterdir()) == before
    assert not list(Path(files["s3_en"]).parent.glob(".*.tmp"))
