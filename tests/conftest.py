"""Shared fixtures: small real slices of the bundled Hansards data."""

import importlib.util
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
#: bitext lines used for the statistics in tests (the first 484 are the gold sentences)
TEST_BITEXT_PAIRS = 4000


@pytest.fixture(scope="session", autouse=True)
def _aligner_cache(tmp_path_factory):
    """Commands that cache other aligners' runs (``align train --aligners``) write them to
    a folder of this test session, not to the repository's ``.cache``."""
    import os

    old = os.environ.get("STRUCTPRED_CACHE")
    os.environ["STRUCTPRED_CACHE"] = str(tmp_path_factory.mktemp("aligner-cache"))
    yield
    if old is None:
        os.environ.pop("STRUCTPRED_CACHE", None)
    else:
        os.environ["STRUCTPRED_CACHE"] = old


@pytest.fixture(scope="session")
def hansards():
    from alignment.data.hansards import load_hansards

    return load_hansards(DATA)


@pytest.fixture(scope="session")
def small_stats(hansards, tmp_path_factory):
    """Dice + IBM statistics on the first 4,000 bitext pairs (real data, seconds to build)."""
    from alignment.stats.statistics import AlignmentStatistics

    return AlignmentStatistics.fit_files(hansards.bitext_src, hansards.bitext_tgt,
                                         max_pairs=TEST_BITEXT_PAIRS, verbose=False)


@pytest.fixture(scope="session")
def small_stats_file(small_stats, tmp_path_factory):
    path = tmp_path_factory.mktemp("stats") / "stats.npz"
    small_stats.save(path)
    return path


@pytest.fixture(scope="session")
def load_script():
    """``load_script(name)`` imports ``scripts/<name>.py`` as a module (the scripts are
    not a package)."""
    def load(name):
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    return load


@pytest.fixture(scope="session")
def dask_client():
    """A local Dask cluster of 2 single-threaded worker processes, shared by the tests of
    statistics, training and prediction on a cluster (skipped without distributed)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=40)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
