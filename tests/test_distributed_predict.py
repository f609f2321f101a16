"""Training and prediction on a Dask cluster from the command line (``--workers``,
``--scheduler``), the ordered streaming map behind prediction, and the options' errors."""

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from structpred.parallel import map_ordered
from structpred.cli import main

distributed = pytest.importorskip("distributed")

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client   # one local cluster of 2 workers for the session (conftest.py)


# ------------------------------------------------------------------- map_ordered
def _slow_square(x):
    time.sleep(0.002 * ((7 * x) % 5))   # later items often finish first
    return x * x


def _scaled(k, x):
    return k * x


def test_map_ordered_keeps_the_order_and_bounds_what_is_in_flight():
    read = []
    lock = threading.Lock()

    def items():
        for i in range(200):
            with lock:
                read.append(i)
            yield i

    out = []
    with ThreadPoolExecutor(4) as pool:
        gen = map_ordered(_slow_square, items(), pool, chunk_size=3, max_in_flight=4)
        for i, y in enumerate(gen):
            out.append(y)
            # never more than max_in_flight chunks read beyond what was yielded
            assert len(read) <= (i // 3 + 1 + 4) * 3
    assert out == [i * i for i in range(200)]
    assert list(map_ordered(_slow_square, range(10))) == [i * i for i in range(10)]


def _fails_on_two(k, x):
    if x == 2:
        raise ValueError("two")
    return k * x


def test_map_ordered_on_dask_with_a_shared_object_and_errors(client):
    assert list(map_ordered(_scaled, range(50), client, chunk_size=4, shared=3)) == \
        [3 * i for i in range(50)]
    assert list(map_ordered(_scaled, [], client, shared=3)) == []
    got = []
    with pytest.raises(ValueError, match="two"):
        for y in map_ordered(_fails_on_two, range(6), client, chunk_size=1, shared=10):
            got.append(y)
    assert got == [0, 10]   # the results before the failing input, in order


# ------------------------------------------------------------------- align
def _train_args(stats, out):
    return ["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
            str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "20",
            "--bitext-src", str(DATA / "bitext.36-2.en.gz"),
            "--bitext-tgt", str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", "300",
            "--aligners", "none", "--stats", str(stats), "--iterations", "10", "-q",
            "-o", str(out)]


@pytest.fixture(scope="module")
def align_models(client, tmp_path_factory):
    """The same small model trained in process and with ``--scheduler`` (statistics
    computed on the cluster from scratch in both cases)."""
    d = tmp_path_factory.mktemp("dist-align")
    assert main(_train_args(d / "stats.npz", d / "model.npz")) == 0
    assert main(_train_args(d / "stats-dask.npz", d / "model-dask.npz")
                + ["--scheduler", client.scheduler.address]) == 0
    return d / "model.npz", d / "model-dask.npz"


def test_align_train_on_the_cluster_matches_in_process(align_models):
    a, b = (np.load(p) for p in align_models)
    for k in ("stats/t_fwd", "stats/t_bwd", "stats/t_null_fwd", "stats/t_null_bwd"):
        np.testing.assert_allclose(b[k], a[k], rtol=1e-6, atol=0)   # float32 tables
    np.testing.assert_allclose(b["coef"], a["coef"], rtol=0, atol=1e-8)


def _predict(model, out, *extra):
    return main(["align", "predict", "-m", str(model), "--src", str(DATA / "trial.en.gz"),
                 "--tgt", str(DATA / "trial.fr.gz"), "-o", str(out), "-q", *extra])


def test_align_predict_on_the_cluster_is_line_by_line_the_same(align_models, client, tmp_path):
    model = align_models[0]
    assert _predict(model, tmp_path / "ref.txt") == 0
    assert _predict(model, tmp_path / "sched.txt", "--scheduler", client.scheduler.address) == 0
    assert _predict(model, tmp_path / "local.txt", "--workers", "2") == 0
    ref = (tmp_path / "ref.txt").read_text().splitlines()
    assert len(ref) == 37 and any(ref)
    assert (tmp_path / "sched.txt").read_text().splitlines() == ref
    assert (tmp_path / "local.txt").read_text().splitlines() == ref


# ------------------------------------------------------------------- segment
def test_segment_train_and_predict_on_the_cluster(client, tmp_path):
    from PIL import Image

    from segmentation.data import bundled_data_dir

    manifest = bundled_data_dir() / "weizmann_horse" / "manifest.csv"
    sched = ["--scheduler", client.scheduler.address]
    train = ["segment", "train", "--manifest", str(manifest), "--split", "train", "--limit", "3",
             "--n-segments", "80", "--iterations", "4", "--eta-scale", "3",
             "--class-weight", "none", "--valid-fraction", "0", "-q"]
    assert main(train + ["-o", str(tmp_path / "m.npz")]) == 0
    assert main(train + ["-o", str(tmp_path / "m-dask.npz")] + sched) == 0
    a, b = np.load(tmp_path / "m.npz"), np.load(tmp_path / "m-dask.npz")
    np.testing.assert_allclose(b["coef"], a["coef"], rtol=0, atol=1e-8)
    predict = ["segment", "predict", "-m", str(tmp_path / "m.npz"), "--manifest", str(manifest),
               "--split", "test", "--limit", "4", "-q"]
    assert main(predict + ["-o", str(tmp_path / "ref")]) == 0
    assert main(predict + ["-o", str(tmp_path / "dask")] + sched) == 0
    names = sorted(p.name for p in (tmp_path / "ref").glob("*.png"))
    assert len(names) == 4
    assert sorted(p.name for p in (tmp_path / "dask").glob("*.png")) == names
    for n in names:
        np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "dask" / n)),
                                      np.asarray(Image.open(tmp_path / "ref" / n)))


# ------------------------------------------------------------------- errors
_COMMANDS = {
    "align train": ["align", "train", "--src", "a", "--tgt", "b", "--gold", "g", "-o", "m.npz"],
    "align predict": ["align", "predict", "-m", "m.npz", "--src", "a", "--tgt", "b"],
    "segment train": ["segment", "train", "--images", "x", "-o", "m.npz"],
    "segment predict": ["segment", "predict", "-m", "m.npz", "--images", "x", "-o", "out"],
}


@pytest.mark.parametrize("command", list(_COMMANDS))
@pytest.mark.parametrize("extra, message", [
    (["--workers", "0"], "argument --workers: must be an integer >= 1, got '0'"),
    (["--workers", "two"], "argument --workers: must be an integer, got 'two'"),
    (["--workers", "2", "--scheduler", "tcp://h:8786"],
     "argument --scheduler: not allowed with argument --workers"),
    (["--scheduler", ""], "argument --scheduler: must be a scheduler address"),
], ids=["zero", "word", "both", "empty-address"])
def test_cluster_option_errors_are_one_line(command, extra, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(_COMMANDS[command] + extra)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("structpred: error: ") and message in err


@pytest.mark.parametrize("command", list(_COMMANDS))
def test_cluster_options_without_dask(command, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed fails
    assert main(_COMMANDS[command] + ["--workers", "2"]) == 2
    assert capsys.readouterr().err == ("structpred: error: --workers needs dask: "
                                       "pip install 'structpred[dask]'\n")


def test_unreachable_scheduler_is_one_line(align_models, monkeypatch, capsys):
    import structpred.cli._cluster as cl

    monkeypatch.setattr(cl, "CONNECT_TIMEOUT", 1)
    rc = main(["align", "predict", "-m", str(align_models[0]), "--src", str(DATA / "trial.en.gz"),
               "--tgt", str(DATA / "trial.fr.gz"), "--scheduler", "tcp://127.0.0.1:9", "-q"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith("structpred: error: --scheduler tcp://127.0.0.1:9: cannot connect")
