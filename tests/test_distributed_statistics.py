"""IBM Models 1/2 and HMM statistics with the E-steps on Dask (and concurrent.futures):
the same tables as in process, to 1e-12 relative, on the first 300 Hansards bitext pairs.

The shards add their expected counts in a fixed order, but not in the single running sum
of the in-process loop, so the last bits differ.  Every entry agrees to 1e-12 relative to
itself except a few tiny ones (probabilities of ~1e-12) that come from a cancellation in
the agreement E-steps' NULL counts (``1 - sum q``), which magnifies any rounding; they are
held to 1e-12 relative to the largest entry of their table."""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from alignment.stats.shards import BitextShards
from alignment.data.corpus import load_bitext
from alignment.stats.hmm import train_hmm
from alignment.stats.statistics import AlignmentStatistics

distributed = pytest.importorskip("distributed")

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
RTOL = 1e-12


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client   # one local cluster of 2 workers for the session (conftest.py)


@pytest.fixture(scope="module")
def bitext():
    bt = load_bitext(DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz", max_pairs=300)
    return bt.src, bt.tgt


_KW = dict(n_iter_model1=3, n_iter_model2=3, verbose=False)


def _close(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    scale = float(np.abs(b).max(initial=0.0))
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=RTOL * scale)


def _same_stats(a, b):
    np.testing.assert_array_equal(a.t_row_ptr, b.t_row_ptr)
    np.testing.assert_array_equal(a.t_cols, b.t_cols)
    for name in ("t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd", "dist_fwd", "dist_bwd"):
        _close(getattr(a, name), getattr(b, name))
    assert a.log_likelihood_.keys() == b.log_likelihood_.keys()
    for k in a.log_likelihood_:
        _close(a.log_likelihood_[k], b.log_likelihood_[k])


def _same_hmm(a, b):
    for name in ("t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd", "jump_fwd", "jump_bwd"):
        _close(getattr(a, name), getattr(b, name))
    assert a.p0_fwd == pytest.approx(b.p0_fwd, rel=RTOL)
    assert a.p0_bwd == pytest.approx(b.p0_bwd, rel=RTOL)
    for k in ("fwd", "bwd"):
        _close(a.history[k], b.history[k])


@pytest.fixture(scope="module")
def reference(bitext):
    """In-process statistics and HMMs (plain and agreement)."""
    src, tgt = bitext
    out = {}
    for agree in (False, True):
        stats = AlignmentStatistics.from_sentences(src, tgt, agreement=agree, **_KW)
        out[agree] = (stats, train_hmm(stats, src, tgt, n_iter=3, agreement=agree))
    return out


@pytest.mark.parametrize("agreement", [False, True], ids=["plain", "agreement"])
def test_ibm_and_hmm_on_dask_match_in_process(client, bitext, reference, agreement):
    src, tgt = bitext
    ref_stats, ref_hmm = reference[agreement]
    stats = AlignmentStatistics.from_sentences(src, tgt, agreement=agreement, executor=client, **_KW)
    _same_stats(stats, ref_stats)
    # the HMM starts from the reference statistics, so it is compared on its own
    hmm = train_hmm(ref_stats, src, tgt, n_iter=3, agreement=agreement, executor=client)
    _same_hmm(hmm, ref_hmm)


def test_one_direction_at_a_time_and_a_thread_pool(bitext, reference):
    src, tgt = bitext
    ref_stats, ref_hmm = reference[False]
    with ThreadPoolExecutor(2) as pool:
        stats = AlignmentStatistics.from_sentences(src, tgt, n_jobs=1, executor=pool, **_KW)
        hmm = train_hmm(ref_stats, src, tgt, n_iter=3, n_jobs=1, executor=pool)
    _same_stats(stats, ref_stats)
    _same_hmm(hmm, ref_hmm)


def test_shards_cut_at_pair_boundaries(bitext):
    from alignment.data.corpus import EncodedCorpus, Vocabulary, build_cooc
    from alignment.stats.ibm import pair_index, train_direction

    src, tgt = bitext
    corpus = EncodedCorpus.from_sentences(src, tgt, Vocabulary.build(src), Vocabulary.build(tgt))
    row_ptr, cols, _ = build_cooc(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                  corpus.tgt_offsets, corpus.n_src_types, corpus.n_tgt_types)
    pidx, pair_off = pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                corpus.tgt_offsets, row_ptr, cols)
    with ThreadPoolExecutor(2) as pool:
        shards = BitextShards(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                              corpus.tgt_offsets, pidx, pair_off, pool, n_shards=7)
        # train_direction places its own shards when given only the executor
        kw = dict(n_iter_model1=2, n_iter_model2=2)
        ref = train_direction(corpus, row_ptr, cols, pidx, pair_off, "bwd", **kw)
        out = train_direction(corpus, row_ptr, cols, pidx, pair_off, "bwd", executor=pool, **kw)
    for name in ("t", "t_null", "dist"):
        _close(getattr(out, name), getattr(ref, name))
    _close(out.history["ibm2"], ref.history["ibm2"])
    assert len(shards) >= 2
    assert shards.bounds[0][0] == 0 and shards.bounds[-1][1] == len(src)
    assert all(a[1] == b[0] for a, b in zip(shards.bounds, shards.bounds[1:]))
    # the shards hold exactly the corpus, in order
    np.testing.assert_array_equal(np.concatenate([s[0] for s in shards.shards]), corpus.src_ids)
    np.testing.assert_array_equal(np.concatenate([s[4] for s in shards.shards]), pidx)
    for s in shards.shards:
        assert s[1][0] == 0 and s[5][-1] == len(s[4])
        assert s[5][-1] == int(np.sum(np.diff(s[1]) * np.diff(s[3])))


def test_load_or_fit_passes_the_executor_and_keeps_the_cache_key(client, tmp_path):
    src, tgt = DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz"
    kw = dict(max_pairs=150, verbose=False, n_iter_model1=2, n_iter_model2=1, hmm=1)
    ref = AlignmentStatistics.load_or_fit(None, src, tgt, **kw)
    out = AlignmentStatistics.load_or_fit(tmp_path / "stats.npz", src, tgt, executor=client,
                                          **kw)
    _same_stats(out, ref)
    _same_hmm(out.hmm, ref.hmm)
    # the executor is not part of the key: the in-process run reads the same file back
    again = AlignmentStatistics.load_or_fit(tmp_path / "stats.npz", src, tgt, **kw)
    assert again.cache_key == out.cache_key


@pytest.mark.parametrize("chunk", [70, 1000], ids=["chunks", "one-chunk"])
def test_from_files_on_a_cluster_reads_and_trains_on_the_workers(client, monkeypatch, chunk):
    """``from_files`` with a Dask client: the bitext is read in chunks, encoded, indexed and
    trained on the workers with the tables sharded by source word
    (:mod:`alignment.stats.distributed`); the result equals the in-process one (the same
    integers, the probabilities to 1e-12), and what was read and left out is the same.
    With one chunk, one worker holds every sentence and the other only owns rows."""
    from alignment.stats import distributed as dist

    monkeypatch.setattr(dist, "CHUNK_LINES", chunk)
    src, tgt = DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz"
    kw = dict(max_pairs=300, max_len=12, protect_first=20, **_KW)
    ref = AlignmentStatistics.from_files(src, tgt, **kw)
    out = AlignmentStatistics.from_files(src, tgt, executor=client, **kw)
    assert out.bitext_report == ref.bitext_report
    assert out.bitext_report["dropped"]["too_long"] > 0
    assert out.cache_key == ref.cache_key and out.n_pairs == ref.n_pairs
    assert out.src_vocab.itos == ref.src_vocab.itos and out.tgt_vocab.itos == ref.tgt_vocab.itos
    for name in ("src_df", "tgt_df", "dice_row_ptr", "dice_cols", "dice_counts"):
        np.testing.assert_array_equal(getattr(out, name), getattr(ref, name), err_msg=name)
    _same_stats(out, ref)


def test_from_files_on_a_cluster_refuses_what_in_process_refuses(client, tmp_path):
    from structpred import FormatError

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("x y\nz\nw\n")
    b.write_text("u v\nt\n")
    with pytest.raises(FormatError, match="line counts differ"):
        AlignmentStatistics.from_files(a, b, executor=client, verbose=False)
    with pytest.raises(FormatError, match="line counts differ"):
        AlignmentStatistics.from_files(a, b, verbose=False)
    b.write_text("u v\nt\ns\u00a0r\n")
    with pytest.raises(FormatError, match="no-break space"):
        AlignmentStatistics.from_files(a, b, executor=client, verbose=False)
    a.write_text("x y\nz z\nw w\n")
    b.write_text("u v\nt t\ns r\n")
    with pytest.raises(FormatError, match="no sentence pairs left"):
        AlignmentStatistics.from_files(a, b, executor=client, verbose=False, max_len=1)
    with pytest.raises(FormatError, match="no sentence pairs left"):
        AlignmentStatistics.from_files(a, b, verbose=False, max_len=1)


def test_from_files_on_a_cluster_twice_gives_the_same_bits(client, monkeypatch):
    """The same command on the same data gives the same statistics on a cluster too: the
    shards, their owners and the order of every sum are fixed by the input, not by which
    worker answers first."""
    from alignment.stats import distributed as dist

    monkeypatch.setattr(dist, "CHUNK_LINES", 70)
    src, tgt = DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz"
    runs = [AlignmentStatistics.from_files(src, tgt, executor=client, max_pairs=300, **_KW)
            for _ in range(2)]
    for name in ("t_row_ptr", "t_cols", "t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd",
                 "dist_fwd", "dist_bwd", "src_df", "tgt_df", "dice_row_ptr", "dice_cols",
                 "dice_counts"):
        np.testing.assert_array_equal(getattr(runs[0], name), getattr(runs[1], name),
                                      err_msg=name)


# --------------------------------------------------------------- classes of input, on a cluster

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from(["the", "house", "maison", "la", "Élan", "über", "дом", "家",
                          "x-y", "3.5", "'s", "l'"])
_LINE = st.one_of(
    st.lists(_WORDS, min_size=1, max_size=6).map(" ".join),          # ordinary
    st.just(""),                                                       # empty
    st.lists(_WORDS, min_size=9, max_size=12).map(" ".join),         # longer than max_len
    st.lists(_WORDS, min_size=1, max_size=4).map("\t  ".join),       # odd whitespace
    st.sampled_from(["a\u00a0b", "\ufeffthe house", "a\x00b"]),       # refused characters
)


@st.composite
def _bitexts(draw):
    n = draw(st.integers(1, 12))
    src = draw(st.lists(_LINE, min_size=n, max_size=n))
    tgt = draw(st.lists(_LINE, min_size=n, max_size=n + draw(st.sampled_from([0, 0, 0, 1]))))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    last = draw(st.booleans())   # a newline after the last line, or not
    return [ending.join(x) + (ending if last else "") for x in (src, tgt)]


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as exc:   # noqa: BLE001 - the class and message are what is compared
        return type(exc).__name__, str(exc)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(texts=_bitexts())
def test_a_cluster_reads_every_class_of_input_as_in_process(client, tmp_path_factory, texts):
    """Whatever the input (empty and over-long lines, odd whitespace, CRLF, a missing final
    newline, no-break spaces, a byte-order mark, NUL bytes, unequal line counts), the
    cluster either refuses it with the same error as in process, or reads the same pairs
    and trains the same statistics."""
    d = tmp_path_factory.mktemp("bitext")
    a, b = d / "a.txt", d / "b.txt"
    a.write_bytes(texts[0].encode("utf-8"))
    b.write_bytes(texts[1].encode("utf-8"))
    kw = dict(max_len=8, **_KW)
    ref = _outcome(lambda: AlignmentStatistics.from_files(a, b, **kw))
    out = _outcome(lambda: AlignmentStatistics.from_files(a, b, executor=client, **kw))
    assert out[0] == ref[0], (out, ref)
    if ref[0] != "ok":
        assert out[1] == ref[1]
        return
    out, ref = out[1], ref[1]
    assert out.bitext_report == ref.bitext_report and out.n_pairs == ref.n_pairs
    assert out.src_vocab.itos == ref.src_vocab.itos and out.tgt_vocab.itos == ref.tgt_vocab.itos
    _same_stats(out, ref)
