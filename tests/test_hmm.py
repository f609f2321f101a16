"""The HMM aligner (alignment.stats.hmm): forward-backward against enumeration, EM on real
Hansards text, persistence inside the statistics, and the HMM edge features."""

import copy
import itertools
from pathlib import Path

import numpy as np
import pytest

from alignment.data.corpus import load_bitext
from alignment.features.edges import DENSE_FEATURES, HMM_FEATURES, EdgeFeaturizer
from alignment.stats.hmm import HMMTables, _jump_gis, _jump_matrix, hmm_forward_backward, train_hmm
from alignment.stats.statistics import AlignmentStatistics


def _enumerate(E, e_null, J, p0):
    """Posteriors and likelihood by summing over every state sequence (real
    positions 0..C-1, C = NULL, which keeps the last real position)."""
    G, C = E.shape
    tot, post, pn = 0.0, np.zeros((G, C)), np.zeros(G)
    jumps, n_null = np.zeros((C + 1, C)), 0.0
    for seq in itertools.product(range(C + 1), repeat=G):
        r, p, trans = 0, 1.0, []
        for k, s in enumerate(seq):
            if s < C:
                p *= J[r, s] * E[k, s]
                trans.append((r, s))
                r = s + 1
            else:
                p *= p0 * e_null[k]
                trans.append(None)
        tot += p
        for k, s in enumerate(seq):
            if s < C:
                post[k, s] += p
            else:
                pn[k] += p
        for tr in trans:
            if tr is None:
                n_null += p
            else:
                jumps[tr] += p
    return post / tot, pn / tot, jumps / tot, n_null / tot, np.log(tot)


@pytest.mark.parametrize("G,C,seed", [(1, 1, 0), (2, 3, 1), (3, 2, 2), (4, 3, 3), (3, 4, 4)])
def test_forward_backward_matches_enumeration(G, C, seed):
    rng = np.random.default_rng(seed)
    E, en, w, p0 = rng.random((G, C)), rng.random(G), rng.random(5), 0.1 + 0.5 * rng.random()
    J = _jump_matrix(C, w, p0, 2)
    np.testing.assert_allclose(J.sum(1), 1 - p0)
    gam, gn, jumps, nn, ll = hmm_forward_backward(E, en, J, p0)
    post, pn, jref, nref, lref = _enumerate(E, en, J, p0)
    np.testing.assert_allclose(gam, post, atol=1e-12)
    np.testing.assert_allclose(gn, pn, atol=1e-12)
    np.testing.assert_allclose(jumps, jref, atol=1e-12)
    assert nn == pytest.approx(nref, abs=1e-12)
    assert ll == pytest.approx(lref, abs=1e-10)
    np.testing.assert_allclose(gam.sum(1) + gn, 1.0)


def test_jump_gis_matches_observed_counts():
    # one context (C = 4, r = 1) observed with counts proportional to a known w:
    # the exact M-step recovers the weights of the buckets it can reach
    rng = np.random.default_rng(0)
    max_jump, C, r = 3, 4, 1
    w_true = rng.random(2 * max_jump + 1)
    J = _jump_matrix(C, w_true, 0.0, max_jump)
    ctx = np.zeros((C + 1, C + 1))
    ctx[C, r] = 100.0
    obs = np.zeros(2 * max_jump + 1)
    for i in range(C):
        obs[min(max(i + 1 - r, -max_jump), max_jump) + max_jump] += 100.0 * J[r, i]
    w = _jump_gis(np.full(2 * max_jump + 1, 1 / 7), obs, ctx, max_jump, 200)
    J2 = _jump_matrix(C, w, 0.0, max_jump)
    np.testing.assert_allclose(J2[r], J[r], atol=1e-8)


@pytest.fixture(scope="module")
def hmm_stats(small_stats, hansards):
    bt = load_bitext(hansards.bitext_src, hansards.bitext_tgt, max_pairs=2000, max_len=80)
    stats = copy.copy(small_stats)
    hmm = train_hmm(stats, bt.src, bt.tgt, n_iter=3, n_jobs=1)
    return stats.with_hmm(hmm), bt


def test_em_increases_likelihood_and_is_deterministic(hmm_stats, small_stats):
    stats, bt = hmm_stats
    for d in ("fwd", "bwd"):
        h = stats.hmm.history[d]
        assert all(b >= a - 1e-6 * abs(a) for a, b in zip(h, h[1:])), h
    again = train_hmm(small_stats, bt.src, bt.tgt, n_iter=3, n_jobs=2)
    np.testing.assert_array_equal(again.t_fwd, stats.hmm.t_fwd)
    np.testing.assert_array_equal(again.jump_bwd, stats.hmm.jump_bwd)
    assert 0 < stats.hmm.p0_fwd < 0.5 and abs(stats.hmm.jump_fwd.sum() - 1) < 1e-12


def test_hmm_beats_model2_on_gold_sentences(hmm_stats, hansards):
    """Posterior-decoded HMM intersection is better than Model 2's Viterbi
    intersection on the first 100 gold test sentences (2,000 training pairs)."""
    from alignment.evaluate.aer import score_alignments
    from alignment.data.formats import Alignment

    stats, _ = hmm_stats
    pairs, gold = hansards.test_pairs[:100], hansards.test_gold[:100]
    hmm_pred, m2_pred = [], []
    for s, t in pairs:
        f, b = stats.hmm.links(stats, s, t, 0.3)
        hmm_pred.append(Alignment.from_links(f & b))
        st = stats.pair_statistics(s, t)
        m2_pred.append(Alignment.from_links(zip(*np.nonzero(st["vit_fwd"] * st["vit_bwd"]))))
        # posteriors of each direction sum to at most 1 per generated word
        assert np.all(st["hmm_fwd"].sum(0) <= 1 + 1e-9) and np.all(st["hmm_bwd"].sum(1) <= 1 + 1e-9)
    assert score_alignments(hmm_pred, gold).aer < score_alignments(m2_pred, gold).aer


def test_statistics_round_trip_with_hmm(hmm_stats, tmp_path, hansards):
    stats, _ = hmm_stats
    stats.save(tmp_path / "s.npz")
    back = AlignmentStatistics.load(tmp_path / "s.npz")
    assert back.hmm is not None and back.hmm.p0_bwd == stats.hmm.p0_bwd
    s, t = hansards.test_pairs[3]
    a, b = stats.pair_statistics(s, t), back.pair_statistics(s, t)
    np.testing.assert_array_equal(a["hmm_fwd"], b["hmm_fwd"])
    stats.hmm.save(tmp_path / "h.npz")
    h = HMMTables.load(tmp_path / "h.npz")
    np.testing.assert_array_equal(h.t_bwd, stats.hmm.t_bwd)
    with pytest.raises(ValueError, match="other statistics"):
        copy.copy(stats).with_hmm(HMMTables(h.t_fwd[:5], h.t_bwd[:5], h.t_null_fwd, h.t_null_bwd,
                                            h.jump_fwd, h.jump_bwd, 0.1, 0.1, h.max_jump, h.floor))


def test_with_lexicon_combines_hmm_tables_and_model2_positions(hmm_stats, hansards, tmp_path):
    """``with_lexicon``: Model 2 posteriors computed with the HMM's translation tables and
    Model 2's own distortion; Dice unchanged; no HMM attached; the original untouched."""
    from alignment.evaluate.aer import score_alignments
    from alignment.data.formats import Alignment
    from alignment.stats.posteriors import pair_posteriors

    stats, _ = hmm_stats
    h = stats.hmm
    lex = stats.with_lexicon(h)
    assert lex.hmm is None and stats.hmm is h
    np.testing.assert_array_equal(lex.dist_fwd, stats.dist_fwd)
    assert not np.array_equal(stats.t_fwd, h.t_fwd)
    s, t = hansards.test_pairs[5]
    got, base = lex.pair_statistics(s, t), stats.pair_statistics(s, t)
    e, f = stats.encode(s, t)
    pf, nf, pb, nb = pair_posteriors(e, f, stats.t_row_ptr, stats.t_cols, h.t_fwd, h.t_bwd,
                                     h.t_null_fwd, h.t_null_bwd, stats.dist_fwd,
                                     stats.dist_bwd, stats.max_jump, stats.floor)
    for key, want in (("post_fwd", pf), ("null_fwd", nf), ("post_bwd", pb), ("null_bwd", nb)):
        np.testing.assert_allclose(got[key], want, rtol=1e-12)
    np.testing.assert_array_equal(got["dice"], base["dice"])
    assert not np.allclose(got["post_fwd"], base["post_fwd"]) and "hmm_fwd" not in got
    # with the statistics' own tables nothing changes
    own = HMMTables(stats.t_fwd, stats.t_bwd, stats.t_null_fwd, stats.t_null_bwd, h.jump_fwd,
                    h.jump_bwd, h.p0_fwd, h.p0_bwd, h.max_jump, h.floor)
    np.testing.assert_array_equal(stats.with_lexicon(own).pair_statistics(s, t)["post_bwd"],
                                  base["post_bwd"])
    lex.save(tmp_path / "lex.npz")
    back = AlignmentStatistics.load(tmp_path / "lex.npz")
    np.testing.assert_array_equal(back.pair_statistics(s, t)["post_fwd"], got["post_fwd"])
    with pytest.raises(ValueError, match="other statistics"):
        stats.with_lexicon(HMMTables(h.t_fwd[:5], h.t_bwd[:5], h.t_null_fwd, h.t_null_bwd,
                                     h.jump_fwd, h.jump_bwd, 0.1, 0.1, h.max_jump, h.floor))
    # the HMM's lexicon makes Model 2's Viterbi intersection better on gold sentences
    pairs, gold = hansards.test_pairs[:100], hansards.test_gold[:100]

    def intersection(st):
        out = []
        for a, b in pairs:
            p = st.pair_statistics(a, b)
            out.append(Alignment.from_links(zip(*np.nonzero(p["vit_fwd"] * p["vit_bwd"]))))
        return score_alignments(out, gold).aer

    assert intersection(lex) < intersection(stats)


def test_edge_features_gain_hmm_rows(hmm_stats, small_stats, hansards):
    stats, _ = hmm_stats
    s, t = hansards.test_pairs[0]
    with_hmm = EdgeFeaturizer(stats)
    without = EdgeFeaturizer(small_stats)
    assert with_hmm.n_features == without.n_features + len(HMM_FEATURES)
    F = with_hmm.transform(s, t).toarray()
    row = len(DENSE_FEATURES) + HMM_FEATURES.index("hmm_fwd")
    np.testing.assert_allclose(F[row], stats.pair_statistics(s, t)["hmm_fwd"].ravel())
    np.testing.assert_array_equal(F[:len(DENSE_FEATURES)],
                                  without.transform(s, t).toarray()[:len(DENSE_FEATURES)])


def test_train_hmm_rejects_bad_input(small_stats):
    with pytest.raises(ValueError, match="empty"):
        train_hmm(small_stats, [], [])
    with pytest.raises(ValueError, match="target sentences"):
        train_hmm(small_stats, [["a"]], [])


@pytest.fixture(scope="module")
def inter_small(hansards, small_stats):
    from alignment.stats.interactions import InteractionStatistics

    return InteractionStatistics.from_files(small_stats, hansards.bitext_src, hansards.bitext_tgt,
                                           max_pairs=2000)


def test_fertility_and_pair_features_with_hmm(hmm_stats, inter_small, hansards):
    from alignment.features.interactions import NodeFeaturizer, PairFeaturizer
    from structpred import adjacent_pairs

    stats, _ = hmm_stats
    s, t = hansards.test_pairs[5]
    m, n = len(s), len(t)
    hf, hb = stats.hmm.posteriors(stats, s, t)
    nf = NodeFeaturizer(stats, inter_small, max_fertility=3)
    F = nf.transform(s, t).toarray()
    assert nf.phi_names[-1] == "1-hmm_extra_fert" and F.min() >= 0
    assert np.all(F[:, m:2 * m] >= F[:, :m])   # still monotone in d
    row = nf.feature_names.index("src:fert>=2:1-hmm_extra_fert")
    np.testing.assert_allclose(F[row, :m], 1 - np.clip(hf.sum(1) - 1, 0, 1))
    pairs, pattern = adjacent_pairs(m, n, one_to_two=True)
    pf = PairFeaturizer(stats, inter_small)
    Fp = pf.transform(s, t, pairs, pattern).toarray()
    assert Fp.shape == (len(pf.feature_names), len(pairs)) == (4 * 10, len(pairs))
    assert Fp.min() >= 0
    k = pattern[0]
    row = pf.feature_names.index(f"{pf.feature_names[10 * k].split(':')[0]}:hmm_fwd")
    assert Fp[row, 0] == pytest.approx(hf.ravel()[pairs[0, 0]] * hf.ravel()[pairs[0, 1]])


def test_agreement_e_step_counts_are_posterior_products(hmm_stats, hansards):
    """Agreement training (Liang et al. 2006): both tables get q_jk = P_fwd(a_k = j) P_bwd(b_j = k)
    (one count array for both), NULL counts are what the links leave, each word's counts sum
    to one."""
    from alignment.data.corpus import EncodedCorpus
    from alignment.stats.hmm import _e_step_agree, hmm_posteriors
    from alignment.stats.ibm import pair_index

    stats, _ = hmm_stats
    h = stats.hmm
    pairs = hansards.test_pairs[:3]
    corpus = EncodedCorpus.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                          stats.src_vocab, stats.tgt_vocab)
    pidx, off = pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids, corpus.tgt_offsets,
                           stats.t_row_ptr, stats.t_cols)
    T = len(stats.t_cols)
    cf = np.zeros(T)
    nf, nb = np.zeros(len(stats.tgt_vocab)), np.zeros(len(stats.src_vocab))
    nbk = 2 * h.max_jump + 1
    L = 100
    _e_step_agree(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids, corpus.tgt_offsets, pidx, off,
                  h.t_fwd.astype(float), h.t_bwd.astype(float), h.t_null_fwd.astype(float),
                  h.t_null_bwd.astype(float), h.jump_fwd, h.jump_bwd, h.p0_fwd, h.p0_bwd,
                  h.max_jump, h.floor, cf, nf, nb, np.zeros(nbk), np.zeros(nbk),
                  np.zeros((L, L)), np.zeros((L, L)))
    n_src = sum(len(s) for s, _ in pairs)
    n_tgt = sum(len(t) for _, t in pairs)
    assert cf.sum() + nf.sum() == pytest.approx(n_tgt) and cf.sum() + nb.sum() == pytest.approx(n_src)
    expect = np.zeros(T)
    for s, t in pairs:
        e, f = stats.encode(s, t)
        pf, pb = h.posteriors(stats, s, t)
        for j in range(len(s)):
            for k in range(len(t)):
                p = pidx[off[pairs.index((s, t))] + j * len(t) + k]
                if p >= 0:
                    expect[p] += pf[j, k] * pb[j, k]
    np.testing.assert_allclose(cf, expect, atol=1e-12)


def test_agreement_training_is_deterministic_and_agrees_more(small_stats, hansards):
    bt = load_bitext(hansards.bitext_src, hansards.bitext_tgt, max_pairs=1500, max_len=80)
    a = train_hmm(small_stats, bt.src, bt.tgt, n_iter=2, agreement=True)
    b = train_hmm(small_stats, bt.src, bt.tgt, n_iter=2, agreement=True)
    np.testing.assert_array_equal(a.t_fwd, b.t_fwd)
    ind = train_hmm(small_stats, bt.src, bt.tgt, n_iter=2)
    stats_a, stats_i = copy.copy(small_stats).with_hmm(a), copy.copy(small_stats).with_hmm(ind)
    # the two directions of the agreement HMM disagree less (symmetric difference of their links)
    dis_a = dis_i = 0
    for s, t in hansards.test_pairs[:60]:
        f, g = a.links(stats_a, s, t)
        dis_a += len(f ^ g)
        f, g = ind.links(stats_i, s, t)
        dis_i += len(f ^ g)
    assert dis_a < dis_i


def test_agreement_e_step_in_two_threads_gives_the_same_tables(small_stats, hansards, monkeypatch):
    """The agreement E-step cuts the pairs into two fixed halves, each with its own counts,
    added in order: one thread and two give bit-identical tables, and the halves cover
    every pair once, in order."""
    import alignment.stats.hmm as hmm_module
    from alignment.stats.hmm import _agree_parts

    bt = load_bitext(hansards.bitext_src, hansards.bitext_tgt, max_pairs=600, max_len=80)
    one = train_hmm(small_stats, bt.src, bt.tgt, n_iter=2, agreement=True, n_jobs=1)
    two = train_hmm(small_stats, bt.src, bt.tgt, n_iter=2, agreement=True, n_jobs=2)
    for name in ("t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd", "jump_fwd", "jump_bwd"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    assert (one.p0_fwd, one.p0_bwd, one.history) == (two.p0_fwd, two.p0_bwd, two.history)
    # the halves change only the order of additions: one part gives the same tables up to rounding
    monkeypatch.setattr(hmm_module, "_AGREE_PARTS", 1)
    whole = train_hmm(small_stats, bt.src, bt.tgt, n_iter=2, agreement=True, n_jobs=2)
    for name in ("t_fwd", "t_bwd", "t_null_fwd", "t_null_bwd", "jump_fwd", "jump_bwd"):
        np.testing.assert_allclose(getattr(whole, name), getattr(two, name), rtol=1e-5, atol=1e-12)
    off = np.array([0, 5, 5, 9, 30, 31, 40])          # token pairs per sentence: 5, 0, 4, 21, 1, 9
    parts = _agree_parts(off, 2)
    assert parts == [[(0, 4)], [(4, 6)]]          # cut where half the work (20) is done
    assert _agree_parts(np.array([0, 7]), 2) == [[(0, 1)]]


def test_hansards_hmm_lexicon_caches_one_hmm(small_stats, hansards, tmp_path):
    """The experiment helper trains the HMM once (cached), returns the lexicon statistics
    (with the same HMM attached on request) and a tag that keeps the interaction caches
    of different statistics apart."""
    from alignment.evaluate.protocol import hansards_hmm_lexicon, hansards_interaction_statistics

    stats, tag = hansards_hmm_lexicon(hansards, copy.copy(small_stats), 1000, cache_dir=tmp_path,
                                      n_iter=1, verbose=False, agreement=True)
    assert tag == "hmm1agree" and stats.hmm is None
    both, _ = hansards_hmm_lexicon(hansards, copy.copy(small_stats), 1000, cache_dir=tmp_path,
                                   n_iter=1, verbose=False, agreement=True, keep_hmm=True)
    assert len(list(tmp_path.glob("hmm-*.npz"))) == 1
    np.testing.assert_array_equal(both.t_fwd, stats.t_fwd)
    np.testing.assert_array_equal(both.hmm.t_fwd, stats.t_fwd)
    assert not np.array_equal(stats.t_fwd, small_stats.t_fwd)
    hansards_interaction_statistics(hansards, stats, 300, cache_dir=tmp_path, verbose=False,
                                    lexicon=tag)
    hansards_interaction_statistics(hansards, small_stats, 300, cache_dir=tmp_path, verbose=False)
    # one file per Model 2 tables (the lexicon's and the plain ones), named by fingerprint
    assert len(list(tmp_path.glob("interactions-*.npz"))) == 2


def test_interaction_statistics_refuse_other_model2_tables(hmm_stats, hansards, tmp_path):
    """Interaction statistics record the fingerprint of the Model 2 tables they came from:
    a cache computed from other tables (here: the HMM lexicon) is refused by
    ``load_or_fit``, by ``MatchingAligner.fit`` and by the command line, never used."""
    from alignment.stats.interactions import InteractionStatistics
    from alignment.model import MatchingAligner
    from structpred.cli import main

    stats, bt = hmm_stats
    lex = stats.with_lexicon(stats.hmm)
    assert lex.fingerprint() != stats.fingerprint()
    assert copy.copy(stats).with_hmm(None).fingerprint() == stats.fingerprint()
    stats.save(tmp_path / "s.npz")
    assert AlignmentStatistics.load(tmp_path / "s.npz").fingerprint() == stats.fingerprint()
    inter = InteractionStatistics.from_sentences(stats, bt.src[:300], bt.tgt[:300])
    assert inter.stats_fingerprint == stats.fingerprint()
    cache = tmp_path / "inter.npz"
    inter.save(cache)
    assert InteractionStatistics.load(cache).stats_fingerprint == inter.stats_fingerprint
    InteractionStatistics.load_or_fit(cache, stats, None, None)        # same tables: fine
    with pytest.raises(ValueError, match="inter.npz: interaction statistics were computed"):
        InteractionStatistics.load_or_fit(cache, lex, None, None)
    model = MatchingAligner(max_fertility=2, n_iter=2, verbose=False)
    with pytest.raises(ValueError, match="other IBM Model 2 statistics"):
        model.fit(hansards.test_pairs[:3], hansards.test_gold[:3], lex, interaction_stats=inter)
    # files without a fingerprint (older caches) are accepted
    a = inter.to_arrays()
    del a["stats_fingerprint"]
    InteractionStatistics.from_arrays(a).check_statistics(lex)
    # the command line turns the refusal into a clear error
    data = Path(__file__).resolve().parent.parent / "data" / "hansards"
    lex.save(tmp_path / "lex.npz")
    rc = main(["align", "train", "--src", str(data / "test.en.gz"), "--tgt", str(data / "test.fr.gz"),
               "--gold", str(data / "test.naacl.gz"), "--first", "5", "--model", "M+F",
               "--stats", str(tmp_path / "lex.npz"), "--interaction-stats", str(cache),
               "--iterations", "2", "-q", "-o", str(tmp_path / "m.npz")])
    assert rc == 2 and not (tmp_path / "m.npz").exists()


def test_hansards_setup_combines_statistics_hmm_and_interactions(hansards, tmp_path):
    """One call gives the statistics (with the HMM lexicon, features, or both) and the
    interaction statistics of exactly those Model 2 tables; the cache is reused."""
    from alignment.evaluate.protocol import hansards_setup

    kw = dict(cache_dir=tmp_path, verbose=False, hmm=1)
    both, inter = hansards_setup(hansards, 600, hmm_lexicon=True, **kw)
    assert both.hmm is not None and np.array_equal(both.t_fwd, both.hmm.t_fwd)
    assert inter.stats_fingerprint == both.fingerprint()
    feats, inter2 = hansards_setup(hansards, 600, **kw)
    assert feats.hmm is not None and not np.array_equal(feats.t_fwd, feats.hmm.t_fwd)
    assert inter2.stats_fingerprint == feats.fingerprint() != inter.stats_fingerprint
    lex, none = hansards_setup(hansards, 600, hmm_features=False, hmm_lexicon=True,
                               interactions=False, **kw)
    assert lex.hmm is None and none is None and lex.fingerprint() == both.fingerprint()
    assert len(list(tmp_path.glob("hmm-*.npz"))) == 1
    with pytest.raises(ValueError, match="hmm_lexicon needs hmm"):
        hansards_setup(hansards, 600, cache_dir=tmp_path, hmm_lexicon=True)
