"""Shared fixtures (small real slices of the bundled data) and the test tiers.

Tiers are set here, in one place, by :func:`pytest_collection_modifyitems`:

* ``cluster``: the test starts or uses a local Dask cluster (the ``dask_client``
  fixture, or a ``tests/test_distributed*.py`` file);
* ``slow``: the test takes more than a few seconds on the 2-core machine and something
  faster covers the same code in the fast tier (listed in :data:`SLOW`), or it is marked
  ``@pytest.mark.slow`` where it is written;
* ``subprocess``: the test runs a command in a child process (informational).

``make test`` runs ``-m "not slow and not cluster"``, ``make test-slow`` the rest.
"""

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

    return AlignmentStatistics.from_files(hansards.bitext_src, hansards.bitext_tgt,
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


# ------------------------------------------------------------------------ test tiers

#: Tests (node ids, with or without their parameters) that each take more than a few seconds on the
#: 2-core machine. Each has a fast counterpart in the fast tier: a smaller instance of
#: the same check, or the same code path on tinier data.
SLOW = frozenset("""
tests/test_core.py::test_streaming_state_does_not_grow_with_m
tests/test_core.py::test_dual_extragradient_converges_to_qp_optimum
tests/test_core.py::test_bregman_dual_extragradient_reaches_qp_optimum
tests/test_core_matching.py::test_dual_extragradient_reaches_qp_on_matchings
tests/test_core_matching.py::test_examples_pickle_and_map_can_be_sharded
tests/test_core_state.py::test_qap_projection_state_belongs_to_each_example
tests/test_matching.py::test_projection_matches_reference_random
tests/test_fertility_qap.py::test_qap_ilp_backends_match_brute_force
tests/topics/test_count_checks.py::test_estimator_refuses_tfidf_unless_round_counts
tests/topics/test_sdem_script.py::test_min_df_is_chosen_on_validation_and_used_by_every_method
tests/topics/test_pamedhdp.py::test_sampler_matches_exact_enumeration
tests/topics/test_bayespa.py::test_lambda_sampler_matches_gig
tests/topics/test_baselines.py::test_bundled_slice_beats_chance_and_is_deterministic
tests/segmentation/test_seg_mincut.py::test_dual_extragradient_reaches_qp_and_keeps_edge_weights_nonnegative
tests/segmentation/test_seg_script.py::test_class_weight_candidates_are_chosen_on_validation
tests/test_cli.py::test_train_and_predict_m_f_q_with_external_links
tests/test_cli.py::test_train_with_hmm_features_then_predict
tests/test_cli.py::test_train_with_hmm_lexicon
tests/test_cli.py::test_train_with_ibm_agreement_and_excluded_features
tests/test_signals.py::test_closed_pipe_ends_quietly
tests/test_compare.py::test_compare_prints_every_system
tests/test_batch_predict.py::test_batch_path_with_eflomal_and_fast_align
tests/test_batch_predict.py::test_align_predict_jobs_writes_the_same_lines
tests/test_link_features.py::test_cli_default_uses_the_aligners
tests/test_link_features.py::test_eflomal_source_known_and_new_pairs
tests/test_link_features.py::test_cli_train_without_gold
tests/test_selection.py::test_cli_chooses_c_neg_on_validation
tests/test_caches.py::test_the_command_line_refuses_hmm_on_a_plain_cache_and_keeps_it
tests/test_unsupervised.py::test_with_eflomal
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[-stats_hmm]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[hmm-stats_hmm]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[eflomal]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[fast_align-stats_hmm]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[eflomal+fast_align-stats_hmm]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[hmm+eflomal+fast_align]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[hmm+eflomal+fast_align-stats_hmm]
tests/test_cli_errors_align.py::test_bad_input_is_one_line_and_exit_2[train-stats-other-pairs]
tests/test_link_features.py::test_hmm_source_features
tests/test_compare.py::test_compare_errors[argv2-out of range]
tests/test_imports.py::test_import_orders[cvxpy-highspy-first]
tests/test_imports.py::test_pulp_and_osqp_import_orders[osqp-first]
tests/test_imports.py::test_pulp_and_osqp_import_orders[pulp-ortools-cvxpy]
tests/test_aligner_extended.py::test_extended_models_train_end_to_end[M+F]
tests/test_aligner_extended.py::test_extended_models_train_end_to_end[M+Q]
tests/test_bayes_aligner.py::test_sampler_stationary_distribution_matches_enumeration[2]
tests/test_bayes_aligner.py::test_sampler_stationary_distribution_matches_enumeration[3]
tests/test_batch_predict.py::test_both_paths_give_the_same_scores[hmm+fast_align]
tests/test_batch_predict.py::test_batch_path_gives_the_per_pair_links[hmm-aligner]
tests/test_batch_predict.py::test_batch_path_gives_the_per_pair_links[stats-hmm-ablation]
tests/topics/test_count_checks.py::test_estimator_accepts_integer_valued_floats[SdemLDAClassifier]
tests/topics/test_count_checks.py::test_estimator_accepts_integer_valued_floats[DiscLDA]
tests/topics/test_count_checks.py::test_estimator_accepts_integer_valued_floats[PaMedHDPClassifier]
tests/test_import_graph.py::test_alignment_names_its_public_api_lazily
tests/test_imports.py::test_pulp_and_osqp_import_orders[pulp-first]
tests/test_signals.py::test_ctrl_c_while_predicting_to_a_file
tests/test_signals.py::test_predict_streams_one_line_per_sentence
tests/test_signals.py::test_quiet_keeps_the_result_summary
tests/test_cli.py::test_help[argv2]
tests/test_cli.py::test_help[argv3]
tests/test_cli.py::test_help[argv4]
""".strip().splitlines())

#: Test files whose every test runs on a local Dask cluster.
CLUSTER_FILES = ("test_distributed.py", "test_distributed_statistics.py",
                 "test_distributed_predict.py")


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        base = item.nodeid.split("[", 1)[0]
        if "dask_client" in getattr(item, "fixturenames", ()) or \
                Path(path).name in CLUSTER_FILES:
            item.add_marker(pytest.mark.cluster)
        if base in SLOW or item.nodeid in SLOW:
            item.add_marker(pytest.mark.slow)
        module = getattr(item, "module", None)
        if module is not None and "subprocess" in vars(module):
            item.add_marker(pytest.mark.subprocess)


# ------------------------------------------------------------ numba compile times
# STRUCTPRED_COMPILE_TIMES=1 pytest ...: list the numba kernels whose compilation took
# longest during the run (what a fresh clone pays before the cache is warm).
_COMPILE = {}


def pytest_configure(config):
    import os

    if os.environ.get("STRUCTPRED_COMPILE_TIMES"):
        import time

        from numba.core import event

        class _Timer(event.Listener):
            def on_start(self, ev):
                self.t0 = getattr(self, "t0", {})
                self.t0[id(ev.data["dispatcher"]), str(ev.data["args"])] = time.perf_counter()

            def on_end(self, ev):
                d = ev.data["dispatcher"]
                key = (id(d), str(ev.data["args"]))
                name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                took = time.perf_counter() - self.t0.pop(key, time.perf_counter())
                n, s = _COMPILE.get(name, (0, 0.0))
                _COMPILE[name] = (n + 1, s + took)

        event.register("numba:compile", _Timer())


def pytest_terminal_summary(terminalreporter):
    if _COMPILE:
        tr = terminalreporter
        total = sum(s for _, s in _COMPILE.values())
        tr.write_line(f"numba compilation: {total:.1f} s in all (nested kernels counted "
                      f"inside their callers too)")
        for name, (n, s) in sorted(_COMPILE.items(), key=lambda kv: -kv[1][1])[:40]:
            tr.write_line(f"  {s:7.1f} s  {n:3d} signature(s)  {name}")
