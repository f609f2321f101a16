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
    return AlignerLinks.fit(("hmm",), train_set[0], src, tgt,
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
def external_links(bitext, train_set, tmp_path_factory):
    """Our HMM, eflomal and fast_align as features (the default model's aligners)."""
    from alignment.aligners.runs import available_aligners
    from alignment.features.links import AlignerLinks

    missing = {"eflomal", "fast_align"} - set(available_aligners())
    if missing:
        pytest.skip(f"{sorted(missing)} not installed (the aligners extra)")
    src, tgt = [s for s, _ in bitext], [t for _, t in bitext]
    return AlignerLinks.fit(("hmm", "eflomal", "fast_align"), train_set[0], src, tgt,
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
