"""The streaming learners on Dask and concurrent.futures: the same iterates as in process.

The examples are the problem classes alignment and segmentation train with
(:class:`MatchingExample`, :class:`MinCutExample`), on random features.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

from structpred import (ExampleStream, MatchingExample, MinCutExample, Monitor,
                        dual_extragradient_streaming, subgradient_method)
from structpred.learners._executor import DaskBackend, WorkerLost, _partitions

distributed = pytest.importorskip("distributed")


def _matching(seed, d=6):
    rng = np.random.default_rng(seed)
    m, n = rng.integers(2, 5, size=2)
    y = np.zeros((m, n))
    for j, k in zip(range(m), rng.permutation(n)):
        y[j, k] = 1.0
    F = sp.csr_matrix(np.abs(rng.normal(size=(d, m * n))) * (rng.random((d, m * n)) < 0.6))
    return MatchingExample(F=F, z_gold=y.ravel(), cost_pos=1.0, cost_neg=3.0, shape=(int(m), int(n)))


def _mincut(seed, d=5):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    edges = np.array([(i, i + 1) for i in range(n - 1)], dtype=np.int64)
    y = (rng.random(n) < 0.5).astype(float)
    n_vars = n + len(edges)
    z = np.concatenate([y, np.abs(y[edges[:, 0]] - y[edges[:, 1]])])
    Fn = rng.normal(size=(d - 1, n))
    Fe = np.zeros((d - 1, len(edges)))
    F = np.vstack([np.hstack([Fn, Fe]), np.hstack([np.zeros((1, n)), -rng.random((1, len(edges)))])])
    assert F.shape == (d, n_vars)
    return MinCutExample(F=sp.csr_matrix(F), z_gold=z, cost_pos=1.0, cost_neg=1.0,
                         n_nodes=n, edges=edges)


@pytest.fixture(scope="module")
def client(dask_client):
    """The session's local cluster (tests/conftest.py), shared with the other cluster tests."""
    return dask_client


@pytest.mark.parametrize("make", [_matching, _mincut], ids=["matching", "mincut"])
def test_dual_extragradient_on_dask_matches_in_process(client, make):
    examples = [make(s) for s in range(9)]
    kw = dict(n_iter=12, random_state=0)
    ref = dual_extragradient_streaming(examples, monitor=Monitor(every=3, hinge=True), **kw)
    out = dual_extragradient_streaming(examples, monitor=Monitor(every=3, hinge=True),
                                       executor=client, n_partitions=3, **kw)
    np.testing.assert_allclose(out.w, ref.w, rtol=0, atol=1e-10)
    np.testing.assert_allclose(out.history["hinge"], ref.history["hinge"], rtol=1e-10)
    assert out.info["eta"] == pytest.approx(ref.info["eta"], rel=1e-12)
    with ThreadPoolExecutor(2) as pool:
        thr = dual_extragradient_streaming(examples, executor=pool, **kw)
    np.testing.assert_allclose(thr.w, ref.w, rtol=0, atol=1e-10)


def test_subgradient_on_dask_matches_in_process(client):
    examples = [_matching(s) for s in range(7)]
    ref = subgradient_method(examples, n_iter=10)
    out = subgradient_method(examples, n_iter=10, executor=client)
    np.testing.assert_allclose(out.w, ref.w, rtol=0, atol=1e-10)
    np.testing.assert_allclose(out.info["objective"], ref.info["objective"], rtol=1e-10)


def test_bytes_per_iteration_do_not_grow_with_examples(client):
    per_call = []
    for m in (8, 40):
        res = dual_extragradient_streaming([_matching(s) for s in range(m)], n_iter=4,
                                           eta=0.1, executor=client, n_partitions=4)
        st = res.info["transfer"]
        per_call.append((st["bytes_out"] / st["calls"], st["bytes_back"] / st["calls"],
                         st["bytes_between_workers"] / st["calls"]))
    # the same vectors go out and come back whatever the number of examples
    np.testing.assert_allclose(per_call[0], per_call[1], rtol=0.02)


def test_partitions_bound_what_the_driver_holds():
    seen = []

    def factory():
        for s in range(50):
            seen.append(s)
            yield s

    blocks = list(_partitions(ExampleStream(factory), n_partitions=2, max_size=7))
    assert [len(b) for b in blocks] == [7] * 7 + [1]
    assert sum(blocks, []) == list(range(50))


def test_driver_memory_flat_in_the_number_of_examples(client):
    import tracemalloc

    peaks = []
    for m in (40, 160):
        stream = ExampleStream(lambda m=m: (_matching(s) for s in range(m)), length=m)
        tracemalloc.start()
        backend = DaskBackend(stream, client, n_partitions=2, max_partition_size=10)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert backend.n_examples == m
        backend.close()
        peaks.append(peak)
    assert peaks[1] < 2.0 * peaks[0] + 200_000


_KILL_SCRIPT = """
import os, signal, sys
sys.path.insert(0, {tests!r})
import distributed
from test_distributed import _matching
from structpred import Monitor, dual_extragradient_streaming
from structpred.learners._executor import WorkerLost

if __name__ == "__main__":
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=50)
    client = distributed.Client(cluster)
    pids = client.run(os.getpid)

    def kill(t, w, rec):
        if t == 2:   # a worker dies between two iterations, with its examples
            os.kill(pids[sorted(pids)[0]], signal.SIGKILL)
        return False

    try:
        dual_extragradient_streaming([_matching(s) for s in range(8)], n_iter=20, eta=0.1,
                                     executor=client, monitor=Monitor(every=1, callback=kill))
        print("finished without error")
    except WorkerLost as exc:
        print("WorkerLost:", exc)
    client.close()
    cluster.close()
"""


def test_a_lost_worker_stops_the_run(tmp_path):
    # in a subprocess: killing a worker must not take the test runner's process group with it
    import pathlib
    import subprocess
    import sys

    script = tmp_path / "kill.py"
    script.write_text(_KILL_SCRIPT.format(tests=str(pathlib.Path(__file__).parent)))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, start_new_session=True)
    assert "WorkerLost:" in out.stdout, out.stdout + out.stderr[-2000:]


def _build_matching(offset, seeds):
    """A RemoteExamples build: the examples of ``seeds`` (``offset`` is the shared object)."""
    return [_matching(offset + s) for s in seeds]


def _seed_parts():
    return iter([[0, 1, 2], [3, 4], [5, 6, 7, 8]])


def test_remote_examples_are_built_on_the_workers(client):
    from structpred import RemoteExamples

    examples = [_matching(s) for s in range(9)]
    remote = RemoteExamples(_build_matching, _seed_parts, shared=0, length=9)
    assert len(remote) == 9
    # in process, iterating builds the parts in order
    for a, b in zip(remote, examples):
        np.testing.assert_array_equal(a.F.toarray(), b.F.toarray())
    kw = dict(n_iter=10, random_state=0)
    ref = dual_extragradient_streaming(examples, monitor=Monitor(every=2, hinge=True), **kw)
    out = dual_extragradient_streaming(remote, monitor=Monitor(every=2, hinge=True),
                                       executor=client, **kw)
    np.testing.assert_allclose(out.w, ref.w, rtol=0, atol=1e-10)
    np.testing.assert_allclose(out.history["hinge"], ref.history["hinge"], rtol=1e-10)
    backend = DaskBackend(remote, client)
    try:
        assert backend.n_examples == 9
        assert sum(len(v) for v in backend.shards.values()) == 3   # one future per part
    finally:
        backend.close()


def _failing_build(shared, part):
    raise ValueError(f"cannot build part {part}")


def test_remote_examples_build_error_is_raised(client):
    from structpred import RemoteExamples

    remote = RemoteExamples(_failing_build, _seed_parts)
    with pytest.raises(ValueError, match="cannot build part"):
        DaskBackend(remote, client)
