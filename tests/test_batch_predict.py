"""The batch path of model M's prediction (``alignment.predict.batch``, issue 18): the same
links as the per-pair path (feature matrices ``F``, OR-Tools decoding) on hundreds of real
sentence pairs, for every feature set it covers; the local worker processes of
``align predict --jobs`` keep the input order."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from alignment.predict.batch import BatchPredictor, supports
from alignment.predict.parallel import predict_stream
from alignment.data.formats import iter_parallel, read_parallel
from alignment.model import MatchingAligner
from structpred.cli import main

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
N_BITEXT = 1500


def _bitext(start, stop):
    pairs = iter_parallel(DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz")
    return [(s, t) for s, t in itertools.islice(pairs, start, stop) if s and t]


@pytest.fixture(scope="module")
def bitext():
    return _bitext(0, N_BITEXT)


@pytest.fixture(scope="module")
def test_pairs(hansards):
    """Gold-set sentences and later bitext pairs (unknown words included): 330 pairs."""
    return list(hansards.test_pairs[:130]) + _bitext(5000, 5200)


@pytest.fixture(scope="module")
def train_set(hansards):
    return hansards.test_pairs[:15], hansards.test_gold[:15]


@pytest.fixture(scope="module")
def hmm_links(bitext, train_set, tmp_path_factory):
    from alignment.features.links import AlignerLinks

    src, tgt = [s for s, _ in bitext], [t for _, t in bitext]
    return AlignerLinks.from_sources(("hmm",), train_set[0], src, tgt,
                            cache_dir=tmp_path_factory.mktemp("links"))


@pytest.fixture(scope="module")
def stats_with_hmm(small_stats, bitext):
    """A copy of the session's statistics with HMM tables (the ``hmm_*`` edge features)."""
    from alignment.stats.hmm import train_hmm
    from alignment.stats.statistics import AlignmentStatistics

    stats = AlignmentStatistics.from_arrays(small_stats.to_arrays())
    hmm = train_hmm(stats, [s for s, _ in bitext], [t for _, t in bitext], n_iter=1, n_jobs=1)
    return stats.with_hmm(hmm)


@pytest.fixture(scope="module")
def bayes_links(bitext, train_set, tmp_path_factory):
    """Our HMM and our Bayesian aligner as features (the default model's sources)."""
    from alignment.features.links import AlignerLinks

    src, tgt = [s for s, _ in bitext], [t for _, t in bitext]
    return AlignerLinks.from_sources(("hmm", "bayes"), train_set[0], src, tgt,
                            cache_dir=tmp_path_factory.mktemp("bayes-links"))


@pytest.fixture(scope="module")
def external_links(bitext, train_set, tmp_path_factory):
    """Our HMM, our Bayesian aligner, eflomal and fast_align as features."""
    from alignment.aligners.runs import available_aligners
    from alignment.features.links import AlignerLinks

    missing = {"eflomal", "fast_align"} - set(available_aligners())
    if missing:
        pytest.skip(f"{sorted(missing)} not installed (the aligners extra)")
    src, tgt = [s for s, _ in bitext], [t for _, t in bitext]
    return AlignerLinks.from_sources(("hmm", "bayes", "eflomal", "fast_align"), train_set[0], src, tgt,
                            cache_dir=tmp_path_factory.mktemp("ext-links"))


def _fit(stats, train_set, links=None, **params):
    aligners = links.sources if links is not None else ()
    model = MatchingAligner(n_iter=3, aligners=aligners, **params)
    return model.fit(*train_set, stats, aligner_links=links)


def _assert_same_links(model, pairs):
    fast, ref = model.predict(pairs), model.predict_pairwise(pairs)
    assert len(fast) == len(ref) == len(pairs)
    bad = [i for i, (a, b) in enumerate(zip(fast, ref)) if a != b]
    assert not bad, f"{len(bad)} pairs differ, the first {bad[:5]}"
    return fast


@pytest.mark.parametrize("variant", ["thesis", "hmm-aligner", "stats-hmm-ablation"])
def test_batch_path_gives_the_per_pair_links(variant, small_stats, stats_with_hmm, hmm_links,
                                             train_set, test_pairs):
    if variant == "thesis":
        model = _fit(small_stats, train_set)
    elif variant == "hmm-aligner":
        model = _fit(small_stats, train_set, hmm_links)
    else:
        model = _fit(stats_with_hmm, train_set, hmm_links,
                     exclude_features=("dist_sq", "dice_col_best", "hmm_min"),
                     include_features=("farther_src_occ", "farther_tgt_occ"))
    _check_variant(model, test_pairs)


def _check_variant(model, test_pairs):
    assert supports(model)
    pred = _assert_same_links(model, test_pairs)
    assert sum(len(a.sure) for a in pred) > len(test_pairs)   # real links, not empty ones
    # random weights: every feature counts, and many edges score > 0 (a harder decoding)
    rng = np.random.default_rng(0)
    model.coef_ = rng.normal(0.0, 1.0, model.coef_.shape)
    _assert_same_links(model, test_pairs[:150])


@pytest.mark.parametrize("sources", [("hmm", "eflomal", "fast_align"), ("eflomal",),
                                     ("hmm", "fast_align")])
def test_batch_path_with_eflomal_and_fast_align(sources, small_stats, external_links, train_set,
                                                test_pairs, tmp_path):
    """The default model's aligners: links the runs saw (gold sentences are bitext lines)
    and new pairs (aligned with the runs' priors and parameters)."""
    model = _fit(small_stats, train_set, external_links.subset(sources))
    assert model.aligners == sources
    _check_variant(model, test_pairs)
    if len(sources) == 3:
        # a saved model finds the aligners' runs again (lazily) on the batch path
        path = tmp_path / "m.npz"
        model.save(path)
        back = MatchingAligner.load(path)
        assert supports(back)
        assert back.predict(test_pairs[:80]) == model.predict_pairwise(test_pairs[:80])


def test_batch_predictor_checks_the_model(small_stats, train_set):
    model = MatchingAligner(max_fertility=2)
    assert not supports(model)
    with pytest.raises(ValueError, match="model M"):
        BatchPredictor(model)
    fitted = _fit(small_stats, train_set)
    assert fitted.predict([]) == []
    # an empty sentence goes the per-pair way, which says what is wrong
    with pytest.raises(ValueError, match="empty sentence"):
        fitted.predict([(["a"], [])])


def test_refit_model_gets_a_new_batch_predictor(small_stats, train_set, test_pairs):
    model = _fit(small_stats, train_set)
    model.predict(test_pairs[:3])
    model.coef_ = -np.abs(model.coef_)          # every score <= 0: no link at all
    assert all(not a.sure for a in model.predict(test_pairs[:20]))


def test_local_processes_keep_the_input_order(small_stats, train_set, test_pairs):
    model = _fit(small_stats, train_set)
    ref = model.predict(test_pairs)
    chunks = list(predict_stream(model, iter(test_pairs), batch=16, jobs=2))
    assert len(chunks) == -(-len(test_pairs) // 16)
    assert [a for c in chunks for a in c] == ref


def test_align_predict_jobs_writes_the_same_lines(tmp_path):
    model = tmp_path / "m.npz"
    assert main(["align", "train", "--src", str(DATA / "test.en.gz"), "--tgt",
                 str(DATA / "test.fr.gz"), "--gold", str(DATA / "test.naacl.gz"), "--first", "10",
                 "--aligners", "none", "--iterations", "2",
                 "--bitext-src", str(DATA / "bitext.36-2.en.gz"), "--bitext-tgt",
                 str(DATA / "bitext.36-2.fr.gz"), "--bitext-pairs", "1500",
                 "--cache-dir", str(tmp_path / "cache"), "-q", "-o", str(model)]) == 0
    outs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.txt"
        assert main(["align", "predict", "-m", str(model), "--src", str(DATA / "test.en.gz"),
                     "--tgt", str(DATA / "test.fr.gz"), "--jobs", jobs, "-q",
                     "-o", str(out)]) == 0
        outs[jobs] = out.read_text().splitlines()
    assert len(outs["1"]) == 447 and outs["1"] == outs["2"]
    ref = MatchingAligner.load(model).predict_pairwise(
        read_parallel(DATA / "test.en.gz", DATA / "test.fr.gz"))
    from alignment.data.formats import format_pharaoh

    assert outs["1"] == [format_pharaoh(a) for a in ref]


def test_chunks_of_standard_input_are_cut_when_no_line_waits():
    from alignment.predict.parallel import chunked

    flags = iter([True, False, True, True, True])
    assert list(chunked(range(7), 3, lambda: next(flags, True))) == [[0, 1], [2, 3, 4], [5, 6]]
    assert list(chunked(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(chunked([], 3, lambda: True)) == []


# ----------------------------------------------------------------- one definition per feature
def _random_model(stats, links=None, seed=0, **params):
    """A model M with random weights and no training: the features and their order are
    those :meth:`MatchingAligner.fit` sets up."""
    model = MatchingAligner(aligners=links.sources if links is not None else (), **params)
    model.stats_ = stats
    model.external_ = None
    model.aligner_links_ = links
    model.feature_names_ = model._featurizers(stats, None, None, None)
    model.coef_ = np.random.default_rng(seed).normal(0.0, 1.0, len(model.feature_names_))
    return model


_COMBOS = [((), False, ()), ((), True, ()), (("hmm",), False, ()), (("hmm",), True, ("dist",)),
           (("eflomal",), False, ()), (("fast_align",), True, ()),
           (("hmm", "fast_align"), False, ()), (("eflomal", "fast_align"), True, ()),
           (("hmm", "eflomal", "fast_align"), False, ()),
           (("hmm", "eflomal", "fast_align"), True, ("dice_col_best", "hmm_min")),
           (("hmm", "bayes"), False, ()), (("bayes",), True, ()),
           (("hmm", "bayes", "eflomal", "fast_align"), False, ())]
_SLOW_COMBOS = {("hmm", "bayes", "eflomal", "fast_align")}    # 20 s: the slow tier


@pytest.mark.parametrize("sources,stats_hmm,exclude",
                         [pytest.param(*c, marks=[pytest.mark.slow] if c[0] in _SLOW_COMBOS
                                       else []) for c in _COMBOS],
                         ids=["+".join(c[0]) + ("-stats_hmm" if c[1] else "") or "none"
                              for c in _COMBOS])
def test_both_paths_give_the_same_scores(sources, stats_hmm, exclude, small_stats,
                                         stats_with_hmm, hmm_links, test_pairs, request):
    """The per-pair path (sparse ``F' w``, training's features) and the batch path (the
    kernel's scores) agree to 1e-12 on random weights, edge by edge, for every source of
    aligner features, with and without the statistics' HMM and the optional features."""
    links = None
    if sources:
        if set(sources) == {"hmm"}:
            links = hmm_links
        elif set(sources) <= {"hmm", "bayes"}:
            links = request.getfixturevalue("bayes_links").subset(sources)
        else:
            links = request.getfixturevalue("external_links").subset(sources)
    stats = stats_with_hmm if stats_hmm else small_stats
    include = ("farther_src_occ", "farther_tgt_occ") if stats_hmm else ()
    model = _random_model(stats, links, exclude_features=exclude, include_features=include)
    pairs = test_pairs[:60] + test_pairs[-40:]        # gold sentences and unseen bitext
    bp = BatchPredictor(model)
    flat, soff, toff = bp.scores(pairs)
    e0 = 0
    for p, (s, t) in enumerate(pairs):
        m, n = len(s), len(t)
        assert (soff[p + 1] - soff[p], toff[p + 1] - toff[p]) == (m, n)
        ref = model.edge_scores(s, t)
        np.testing.assert_allclose(flat[e0:e0 + m * n].reshape(m, n), ref, rtol=0, atol=1e-12)
        e0 += m * n
    assert e0 == len(flat)


def test_every_feature_is_a_kernel_feature(small_stats, stats_with_hmm, hmm_links, tmp_path):
    """The feature names come from the kernel's tables, so a model M never leaves the batch
    path because of a feature; a model file whose feature names differ from the kernel's (a
    renamed or an unknown feature) is refused when loaded, not sent to a slower path."""
    from structpred import FormatError
    from alignment.features.edges import DENSE_FEATURES, HMM_FEATURES, OPTIONAL_FEATURES
    from alignment.features.kernel import ALIGNER_FEATURES, EDGE_FEATURES
    from alignment.features.links import AlignerFeaturizer, SOURCES

    assert DENSE_FEATURES + HMM_FEATURES + OPTIONAL_FEATURES == EDGE_FEATURES
    assert len(set(EDGE_FEATURES)) == len(EDGE_FEATURES)
    assert set(AlignerFeaturizer(SOURCES).edge_names) == set(ALIGNER_FEATURES)
    model = _random_model(stats_with_hmm, hmm_links,
                          include_features=("farther_src_occ", "farther_tgt_occ"))
    assert supports(model)
    dense = [f for f in model.feature_names_ if "=" not in f and ":" not in f]
    assert set(dense) <= set(EDGE_FEATURES)
    # a file with one feature renamed
    model.result_ = type("R", (), {"history": {}, "best_iter": None})()
    path = tmp_path / "m.npz"
    model.save(path)
    assert supports(MatchingAligner.load(path))
    from structpred.io import load_npz, save_npz
    from alignment.model import _MODEL_FORMAT

    meta, arrays = load_npz(path, _MODEL_FORMAT, (MatchingAligner.FORMAT_VERSION,))
    meta["feature_names"][meta["feature_names"].index("dice")] = "dice_v2"
    bad = tmp_path / "renamed.npz"
    save_npz(bad, arrays, meta)
    with pytest.raises(FormatError, match="feature names"):
        MatchingAligner.load(bad)
