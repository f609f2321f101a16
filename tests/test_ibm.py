"""IBM Models 1/2 (numba EM), Dice coefficients and AlignmentStatistics.

The numba EM is checked against a slow, direct transcription of the EM equations
(dicts and Python loops) on a tiny corpus; the rest uses hand-made corpora and the
first 2000 lines of the Hansards bitext.
"""

import io
import math
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.data.corpus import EncodedCorpus, Vocabulary, build_cooc, read_tokenized
from alignment.stats.dice import cooc_table, prune_cooc
from alignment.stats.ibm import (e_step_agree, jump_bucket, n_buckets, pair_index, train_direction,
                                 train_ibm)
from alignment.stats.statistics import AlignmentStatistics, _csr_pack, _csr_unpack

DATA = Path(__file__).resolve().parent.parent / "data" / "hansards"
BITEXT = (DATA / "bitext.36-2.en.gz", DATA / "bitext.36-2.fr.gz")


# ---------------------------------------------------------------------------------------
# slow reference EM
# ---------------------------------------------------------------------------------------

def ref_bucket(j, k, C, G, max_jump):
    """round(j - diagonal point), diagonal = (k - 1/2) C / G + 1/2, clipped; exact."""
    diag = Fraction(2 * k - 1, 2) * Fraction(C, G) + Fraction(1, 2)
    d = math.floor(Fraction(j) - diag + Fraction(1, 2))
    return min(max(d, -max_jump), max_jump) + max_jump


def ref_em(cond_sents, gen_sents, n_gen_types, n1, n2, max_jump, n_gis):
    """IBM1 then IBM2 EM for p(gen | cond), straight from the equations."""
    nb = 2 * max_jump + 2
    null = nb - 1
    t = defaultdict(lambda: 1.0 / n_gen_types)          # (cond word, gen word) -> t
    t_null = defaultdict(lambda: 1.0 / n_gen_types)     # gen word -> t(g | NULL)
    w = [1.0 / nb] * nb
    history = {"ibm1": [], "ibm2": []}

    def align_prior(C, G, k, model2):
        if not model2:
            return [1.0 / (C + 1)] * (C + 1)
        raw = [w[null]] + [w[ref_bucket(j, k, C, G, max_jump)] for j in range(1, C + 1)]
        z = sum(raw)
        return [x / z for x in raw]

    for name, model2 in [("ibm1", False)] * n1 + [("ibm2", True)] * n2:
        counts, null_counts, obs = defaultdict(float), defaultdict(float), [0.0] * nb
        ll = 0.0
        for cs, gs in zip(cond_sents, gen_sents):
            C, G = len(cs), len(gs)
            for k, g in enumerate(gs, start=1):
                a = align_prior(C, G, k, model2)
                joint = [a[0] * t_null[g]] + [a[j] * t[(cs[j - 1], g)] for j in range(1, C + 1)]
                tot = sum(joint)
                ll += math.log(tot)
                null_counts[g] += joint[0] / tot
                obs[null] += joint[0] / tot
                for j in range(1, C + 1):
                    counts[(cs[j - 1], g)] += joint[j] / tot
                    obs[ref_bucket(j, k, C, G, max_jump)] += joint[j] / tot
        history[name].append(ll)
        totals = defaultdict(float)
        for (c, g), v in counts.items():
            totals[c] += v
        t = defaultdict(float, {(c, g): v / totals[c] for (c, g), v in counts.items()})
        nt = sum(null_counts.values())
        t_null = defaultdict(float, {g: v / nt for g, v in null_counts.items()})
        if model2:
            for _ in range(n_gis):
                exp = [0.0] * nb
                for cs, gs in zip(cond_sents, gen_sents):
                    C, G = len(cs), len(gs)
                    for k in range(1, G + 1):
                        a = align_prior(C, G, k, True)
                        exp[null] += a[0]
                        for j in range(1, C + 1):
                            exp[ref_bucket(j, k, C, G, max_jump)] += a[j]
                w = [wi * obs[b] / exp[b] if exp[b] > 0 else wi for b, wi in enumerate(w)]
                s = sum(w)
                w = [wi / s for wi in w]
    return t, t_null, w, history


TINY_SRC = [[2, 3], [2, 4, 5], [3, 4], [5, 2, 3, 6, 4, 2, 3, 5], [6], [], [4, 4, 2]]
TINY_TGT = [[2, 3, 4], [2, 5], [3, 5, 6], [6, 2, 3, 4, 5, 2, 7], [6, 7], [3], [5, 2]]


@pytest.mark.parametrize("direction", ["fwd", "bwd"])
def test_numba_em_matches_reference(direction):
    max_jump, n_gis, n_iter = 2, 4, 3
    corpus = EncodedCorpus.from_id_lists(TINY_SRC, TINY_TGT)
    row_ptr, cols, _ = build_cooc(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                  corpus.tgt_offsets, corpus.n_src_types, corpus.n_tgt_types)
    pidx, pair_off = pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                corpus.tgt_offsets, row_ptr, cols)
    assert pidx.min() >= 0
    model = train_direction(corpus, row_ptr, cols, pidx, pair_off, direction,
                            n_iter_model1=n_iter, n_iter_model2=n_iter, max_jump=max_jump,
                            n_gis=n_gis)
    if direction == "fwd":
        cond, gen, n_gen = TINY_SRC, TINY_TGT, corpus.n_tgt_types
    else:
        cond, gen, n_gen = TINY_TGT, TINY_SRC, corpus.n_src_types
    t, t_null, w, hist = ref_em(cond, gen, n_gen, n_iter, n_iter, max_jump, n_gis)

    for e in range(len(row_ptr) - 1):
        for p in range(row_ptr[e], row_ptr[e + 1]):
            f = int(cols[p])
            key = (e, f) if direction == "fwd" else (f, e)
            assert model.t[p] == pytest.approx(t[key], abs=1e-10), key
    for g in range(n_gen):
        assert model.t_null[g] == pytest.approx(t_null[g], abs=1e-10)
    np.testing.assert_allclose(model.dist, w, atol=1e-10, rtol=0)
    for name in ("ibm1", "ibm2"):
        np.testing.assert_allclose(model.history[name], hist[name], rtol=1e-10)
    assert len(model.history["ibm2"]) == n_iter


def _ref_posteriors(cond, gen, t, t_null, w, model2, max_jump):
    """P(a_k = j | g, c) straight from the module docstring; row k, column j (0 = NULL)."""
    C, G, null = len(cond), len(gen), 2 * max_jump + 1
    out = []
    for k, g in enumerate(gen, start=1):
        a = ([w[null]] + [w[ref_bucket(j, k, C, G, max_jump)] for j in range(1, C + 1)]
             if model2 else [1.0] * (C + 1))
        joint = [a[0] * t_null[g]] + [a[j] * t[(cond[j - 1], g)] for j in range(1, C + 1)]
        out.append([x / sum(joint) for x in joint])
    return out


@pytest.mark.parametrize("model2", [False, True])
def test_agreement_e_step_matches_reference(model2):
    """Liang et al.'s joint E-step: both tables get the product of the two directions'
    link posteriors, NULL gets what the links leave, jump counts stay each direction's."""
    max_jump = 2
    corpus = EncodedCorpus.from_id_lists(TINY_SRC, TINY_TGT)
    row_ptr, cols, _ = build_cooc(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                  corpus.tgt_offsets, corpus.n_src_types, corpus.n_tgt_types)
    pidx, pair_off = pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                corpus.tgt_offsets, row_ptr, cols)
    rng = np.random.default_rng(0)
    ns, nt, nb = corpus.n_src_types, corpus.n_tgt_types, n_buckets(max_jump)
    t_f, t_b = rng.uniform(0.1, 1, len(cols)), rng.uniform(0.1, 1, len(cols))
    tn_f, tn_b = rng.uniform(0.1, 1, nt), rng.uniform(0.1, 1, ns)
    w_f, w_b = rng.uniform(0.1, 1, nb), rng.uniform(0.1, 1, nb)
    acc = [np.zeros(len(cols)), np.zeros(len(cols)), np.zeros(nt), np.zeros(ns), np.zeros(nb),
           np.zeros(nb)]
    ll_f, ll_b = e_step_agree(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                              corpus.tgt_offsets, pidx, pair_off, t_f, t_b, tn_f, tn_b, model2,
                              w_f, w_b, max_jump, *acc)
    rows = np.repeat(np.arange(len(row_ptr) - 1), np.diff(row_ptr))
    tf = {(int(e), int(f)): v for e, f, v in zip(rows, cols, t_f)}      # t(f | e)
    tb = {(int(f), int(e)): v for e, f, v in zip(rows, cols, t_b)}      # t(e | f)
    ref = [defaultdict(float) for _ in range(4)] + [np.zeros(nb), np.zeros(nb)]
    ref_ll = [0.0, 0.0]
    for es, fs in zip(TINY_SRC, TINY_TGT):
        pf = _ref_posteriors(es, fs, tf, tn_f, w_f, model2, max_jump)
        pb = _ref_posteriors(fs, es, tb, tn_b, w_b, model2, max_jump)
        for side, (post, cond, gen, tt, tn, w) in enumerate(
                ((pf, es, fs, tf, tn_f, w_f), (pb, fs, es, tb, tn_b, w_b))):
            C, G = len(cond), len(gen)
            for k, g in enumerate(gen, start=1):
                a = ([w[-1]] + [w[ref_bucket(j, k, C, G, max_jump)] for j in range(1, C + 1)]
                     if model2 else [1.0] * (C + 1))
                ref_ll[side] += math.log(sum(x * y for x, y in zip(
                    a, [tn[g]] + [tt[(c, g)] for c in cond])) / sum(a))
                if model2:
                    ref[4 + side][-1] += post[k - 1][0]
                    for j in range(1, C + 1):
                        ref[4 + side][ref_bucket(j, k, C, G, max_jump)] += post[k - 1][j]
        for j, e in enumerate(es):
            for k, f in enumerate(fs):
                q = pf[k][j + 1] * pb[j][k + 1]
                ref[0][(e, f)] += q
                ref[1][(e, f)] += q
        for k, f in enumerate(fs):
            ref[2][f] += 1 - sum(pf[k][j + 1] * pb[j][k + 1] for j in range(len(es)))
        for j, e in enumerate(es):
            ref[3][e] += 1 - sum(pf[k][j + 1] * pb[j][k + 1] for k in range(len(fs)))
    for i in (0, 1):
        np.testing.assert_allclose(acc[i], [ref[i][(int(e), int(f))] for e, f in zip(rows, cols)],
                                   rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(acc[2], [ref[2][g] for g in range(nt)], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(acc[3], [ref[3][g] for g in range(ns)], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(acc[4], ref[4], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(acc[5], ref[5], rtol=1e-12, atol=1e-14)
    assert (ll_f, ll_b) == pytest.approx(tuple(ref_ll), rel=1e-12)


def test_agreement_training_makes_the_directions_agree(hansards_2000):
    """On 2,000 real pairs, agreement-trained Model 2 directions disagree on fewer
    Viterbi links of the gold test sentences than independently trained ones."""
    src, tgt, _ = hansards_2000
    kw = dict(n_iter_model1=3, n_iter_model2=3, verbose=False, n_jobs=1)
    indep = AlignmentStatistics.from_sentences(src, tgt, **kw)
    agree = AlignmentStatistics.from_sentences(src, tgt, agreement=True, **kw)
    again = AlignmentStatistics.from_sentences(src, tgt, agreement=True, **kw)
    assert np.array_equal(agree.t_fwd, again.t_fwd)                  # deterministic

    def disagreements(stats):
        n = 0
        for e, f in zip(src[:100], tgt[:100]):
            st = stats.pair_statistics(e, f)
            n += int(np.sum(st["vit_fwd"] != st["vit_bwd"]))
        return n

    assert disagreements(agree) < 0.8 * disagreements(indep)


def test_jump_bucket_matches_exact_rounding():
    for C in range(1, 9):
        for G in range(1, 9):
            for j in range(1, C + 1):
                for k in range(1, G + 1):
                    assert jump_bucket(j, k, C, G, 3) == ref_bucket(j, k, C, G, 3)
    assert jump_bucket(4, 4, 7, 7, 10) == 10          # the diagonal of equal lengths: jump 0
    assert n_buckets(10) == 22


def test_threaded_and_serial_training_agree():
    corpus = EncodedCorpus.from_id_lists(TINY_SRC, TINY_TGT)
    a = train_ibm(corpus, 2, 2, max_jump=2, n_jobs=1)
    b = train_ibm(corpus, 2, 2, max_jump=2, n_jobs=2)
    for x, y in ((a.fwd, b.fwd), (a.bwd, b.bwd)):
        assert np.array_equal(x.t, y.t) and np.array_equal(x.t_null, y.t_null)
        assert np.array_equal(x.dist, y.dist) and x.history == y.history


# ---------------------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------------------

DICE_SRC = [["a", "b"], ["a", "c"], ["b", "b", "c"]]
DICE_TGT = [["x", "y"], ["x", "z"], ["y", "y", "x"]]


def test_dice_hand_computed():
    # sentence counts: a 2, b 2, c 2 | x 3, y 2, z 1; C(b, y) = 2 (s3 counts once)
    stats = AlignmentStatistics.from_sentences(DICE_SRC, DICE_TGT, n_iter_model1=1, n_iter_model2=1,
                                    verbose=False)
    d = stats.pair_statistics(["a", "b", "c", "q"], ["x", "y", "z", "w"])["dice"]
    expected = np.array([
        [4 / 5, 2 / 4, 2 / 3, 0],
        [4 / 5, 4 / 4, 0, 0],
        [4 / 5, 2 / 4, 2 / 3, 0],
        [0, 0, 0, 0],
    ])
    np.testing.assert_allclose(d, expected, rtol=0, atol=1e-15)
    assert stats.most_frequent("src", 2) == ["b", "a"]        # b 3 tokens; a, c tie -> "a"
    assert stats.most_frequent("tgt", 10) == ["x", "y", "z"]
    np.testing.assert_allclose(stats.log_frequency("src", ["b", "a", "q"]),
                               [math.log(4), math.log(3), 0.0])


def test_prune_cooc_drops_small_singletons_only():
    corpus = EncodedCorpus.from_sentences(DICE_SRC, DICE_TGT, Vocabulary.build(DICE_SRC),
                                          Vocabulary.build(DICE_TGT))
    row_ptr, cols, counts, sdf, tdf = cooc_table(corpus)
    ptr2, cols2, counts2, err = prune_cooc(row_ptr, cols, counts, sdf, tdf, max_total=3)
    sv, tv = corpus.src_vocab, corpus.tgt_vocab

    def table(ptr, cc, cn):
        return {(sv.token(e), tv.token(int(cc[p]))): int(cn[p])
                for e in range(len(ptr) - 1) for p in range(ptr[e], ptr[e + 1])}

    before, after = table(row_ptr, cols, counts), table(ptr2, cols2, counts2)
    # (a, y) and (c, y): count 1, both words in 2 sentences, 2 + 2 > 3 -> dropped;
    # (a, z), (c, z): z occurs in one sentence only -> kept
    assert set(before) - set(after) == {("a", "y"), ("c", "y")}
    assert all(after[k] == before[k] for k in after)
    assert err == pytest.approx(0.5)


def test_csr_pack_round_trip():
    row_ptr = np.array([0, 0, 3, 3, 5, 6])
    cols = np.array([1, 4, 9, 0, 7, 2], dtype=np.int32)
    lengths, delta = _csr_pack(row_ptr, cols)
    assert delta.tolist() == [1, 3, 5, 0, 7, 2]
    p2, c2 = _csr_unpack(lengths, delta)
    assert np.array_equal(p2, row_ptr) and np.array_equal(c2, cols)


# ---------------------------------------------------------------------------------------
# AlignmentStatistics on a real slice
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hansards_2000():
    src = read_tokenized(BITEXT[0], max_lines=2000)
    tgt = read_tokenized(BITEXT[1], max_lines=2000)
    keep = [i for i in range(2000) if src[i] and tgt[i]]
    src, tgt = [src[i] for i in keep], [tgt[i] for i in keep]
    stats = AlignmentStatistics.from_sentences(src, tgt, verbose=False)
    return src, tgt, stats


def test_log_likelihood_increases(hansards_2000):
    _, _, stats = hansards_2000
    for d in ("fwd", "bwd"):
        ibm1 = stats.log_likelihood_[f"ibm1_{d}"]
        ibm2 = stats.log_likelihood_[f"ibm2_{d}"]
        assert len(ibm1) == 5 and len(ibm2) == 5
        assert np.all(np.diff(ibm1) > 0), ibm1
        # Model 2 starts from Model 1's last M-step (its first E-step is a Model 1 one)
        assert np.all(np.diff(ibm1 + ibm2) > 0), ibm1 + ibm2
    assert stats.history is stats.log_likelihood_


def test_posteriors_normalise_and_viterbi_is_argmax(hansards_2000):
    src, tgt, stats = hansards_2000
    for i in (0, 5, 40, 300, 1500):
        e, f = src[i], tgt[i]
        st = stats.pair_statistics(e, f)
        m, n = len(e), len(f)
        for key in ("dice", "post_fwd", "post_bwd", "vit_fwd", "vit_bwd"):
            assert st[key].shape == (m, n) and np.all(np.isfinite(st[key]))
        np.testing.assert_allclose(st["post_fwd"].sum(0) + st["null_fwd"], 1.0, atol=1e-12)
        np.testing.assert_allclose(st["post_bwd"].sum(1) + st["null_bwd"], 1.0, atol=1e-12)
        assert np.all(st["post_fwd"] >= 0) and np.all(st["post_bwd"] >= 0)
        full_f = np.vstack([st["null_fwd"][None, :], st["post_fwd"]])
        vit_f = np.zeros((m, n))
        for k, j in enumerate(np.argmax(full_f, axis=0)):
            if j > 0:
                vit_f[j - 1, k] = 1
        full_b = np.hstack([st["null_bwd"][:, None], st["post_bwd"]])
        vit_b = np.zeros((m, n))
        for j, k in enumerate(np.argmax(full_b, axis=1)):
            if k > 0:
                vit_b[j, k - 1] = 1
        assert np.array_equal(st["vit_fwd"], vit_f) and np.array_equal(st["vit_bwd"], vit_b)
        assert st["vit_fwd"].sum(0).max() <= 1 and st["vit_bwd"].sum(1).max() <= 1
        assert 0 <= st["dice"].min() and st["dice"].max() <= 1


def test_posterior_is_model2_formula(hansards_2000):
    src, tgt, stats = hansards_2000
    e, f = src[7], tgt[7]
    m, n = len(e), len(f)
    ei, fi = stats.encode(e, f)
    D = stats.max_jump

    def t_lookup(a, b):
        lo, hi = stats.t_row_ptr[a], stats.t_row_ptr[a + 1]
        hits = np.flatnonzero(stats.t_cols[lo:hi] == b)
        if len(hits) == 0:
            return stats.floor, stats.floor
        p = lo + hits[0]
        return max(float(stats.t_fwd[p]), stats.floor), max(float(stats.t_bwd[p]), stats.floor)

    post = np.zeros((m, n))
    for k in range(n):
        raw = [stats.dist_fwd[-1] * max(float(stats.t_null_fwd[fi[k]]), stats.floor)]
        raw += [stats.dist_fwd[ref_bucket(j + 1, k + 1, m, n, D)] * t_lookup(ei[j], fi[k])[0]
                for j in range(m)]
        post[:, k] = np.array(raw[1:]) / sum(raw)
    np.testing.assert_allclose(stats.pair_statistics(e, f)["post_fwd"], post, rtol=1e-12)


def test_save_load_round_trip(hansards_2000, tmp_path):
    src, tgt, stats = hansards_2000
    arrays = stats.to_arrays()
    for k, v in arrays.items():
        assert isinstance(v, np.ndarray) and v.dtype != object, k
        assert v.dtype.kind in "biufU", (k, v.dtype)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as z:
        again = AlignmentStatistics.from_arrays({k: z[k] for k in z.files})
    path = tmp_path / "stats.npz"
    stats.save(path)
    loaded = AlignmentStatistics.load(path)
    assert [p.name for p in tmp_path.iterdir()] == ["stats.npz"]
    for other in (again, loaded):
        assert other.log_likelihood_ == stats.log_likelihood_
        assert other.most_frequent("tgt", 20) == stats.most_frequent("tgt", 20)
        for i in (0, 11, len(src) - 1):
            a, b = stats.pair_statistics(src[i], tgt[i]), other.pair_statistics(src[i], tgt[i])
            assert a.keys() == b.keys()
            for k in a:
                assert np.array_equal(a[k], b[k]), k
        x, y = stats.to_arrays(), other.to_arrays()
        assert x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)


def test_deterministic():
    src = read_tokenized(BITEXT[0], max_lines=300)
    tgt = read_tokenized(BITEXT[1], max_lines=300)
    a = AlignmentStatistics.from_sentences(src, tgt, n_iter_model1=3, n_iter_model2=3, verbose=False)
    b = AlignmentStatistics.from_sentences(src, tgt, n_iter_model1=3, n_iter_model2=3, verbose=False,
                                n_jobs=1)
    x, y = a.to_arrays(), b.to_arrays()
    assert x.keys() == y.keys()
    for k in x:
        assert np.array_equal(x[k], y[k]), k
    s1, s2 = a.pair_statistics(src[50], tgt[50]), b.pair_statistics(src[50], tgt[50])
    assert all(np.array_equal(s1[k], s2[k]) for k in s1)


def test_unknown_words_and_empty_sentences(hansards_2000):
    _, _, stats = hansards_2000
    e = ["zzqq-unknown", "the", "xyzzy"]
    f = ["le", "mot-inconnu-42"]
    st = stats.pair_statistics(e, f)
    for k, v in st.items():
        assert np.all(np.isfinite(v)), k
    assert st["dice"][0].max() == 0 and st["dice"][:, 1].max() == 0
    np.testing.assert_allclose(st["post_fwd"].sum(0) + st["null_fwd"], 1.0, atol=1e-12)
    np.testing.assert_allclose(st["post_bwd"].sum(1) + st["null_bwd"], 1.0, atol=1e-12)
    assert np.array_equal(stats.log_frequency("src", e) == 0, [True, False, True])
    all_unknown = stats.pair_statistics(["qqq1", "qqq2"], ["rrr1"])
    assert np.all(np.isfinite(all_unknown["post_fwd"]))
    empty = stats.pair_statistics([], ["le", "chat"])
    assert empty["post_fwd"].shape == (0, 2) and np.allclose(empty["null_fwd"], 1.0)
    assert stats.pair_statistics(["the"], [])["dice"].shape == (1, 0)
    with pytest.raises(ValueError):
        stats.most_frequent("fr", 3)


def test_bitext_line_count_mismatch_names_file_and_line(tmp_path):
    from alignment.data.corpus import load_bitext
    from structpred import FormatError

    src, tgt = tmp_path / "b.en", tmp_path / "b.fr"
    src.write_text("a b\nc\nd e\n")
    tgt.write_text("x\ny\n")
    with pytest.raises(FormatError, match="line counts differ") as ei:
        load_bitext(src, tgt)
    assert ei.value.path == str(src) and ei.value.line == 3


def _pair_index_by_search(corpus, row_ptr, cols):
    """The definition of ``pair_index``: for every token pair, a search of its row."""
    out = []
    for s in range(len(corpus.src_offsets) - 1):
        src = corpus.src_ids[corpus.src_offsets[s]:corpus.src_offsets[s + 1]]
        tgt = corpus.tgt_ids[corpus.tgt_offsets[s]:corpus.tgt_offsets[s + 1]]
        for e in src:
            row = list(cols[row_ptr[e]:row_ptr[e + 1]])
            out += [row_ptr[e] + row.index(f) if f in row else -1 for f in tgt]
    return np.array(out, dtype=np.int64)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 6), min_size=1, max_size=9),
                          st.lists(st.integers(0, 7), min_size=1, max_size=9)),
                min_size=1, max_size=6),
       st.integers(1, 4))
def test_pair_index_equals_a_search_of_each_row(sents, every):
    """The sorted sweep of ``pair_index`` (repeated source words copied, repeated target
    words looked up once, galloping searches) finds what a search of the row finds, on
    the full co-occurrence table and on a table with entries left out (``-1``)."""
    src = [[f"e{w}" for w in s] for s, _ in sents]
    tgt = [[f"f{w}" for w in t] for _, t in sents]
    sv, tv = Vocabulary.build(src), Vocabulary.build(tgt)
    corpus = EncodedCorpus.from_sentences(src, tgt, sv, tv)
    row_ptr, cols, _ = build_cooc(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                  corpus.tgt_offsets, len(sv), len(tv))
    keep = np.arange(len(cols)) % every == 0          # every k-th entry of the table
    rows = np.repeat(np.arange(len(row_ptr) - 1), np.diff(row_ptr))
    kept_ptr = np.zeros_like(row_ptr)
    np.cumsum(np.bincount(rows[keep], minlength=len(row_ptr) - 1), out=kept_ptr[1:])
    pidx, pair_off = pair_index(corpus.src_ids, corpus.src_offsets, corpus.tgt_ids,
                                corpus.tgt_offsets, kept_ptr, cols[keep])
    assert pair_off[-1] == len(pidx)
    np.testing.assert_array_equal(pidx, _pair_index_by_search(corpus, kept_ptr, cols[keep]))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.integers(0, 12), st.data())
def test_jump_buckets_by_one_division_per_word_equal_jump_bucket(C, G, max_jump, data):
    """The E-steps' buckets ``_clamped(_first_jump(k, C, G) + j - 1)`` are
    :func:`jump_bucket`'s for every position pair."""
    from alignment.stats.ibm import _clamped, _first_jump, jump_bucket

    k = data.draw(st.integers(1, G))
    d = _first_jump(k, C, G)
    assert [_clamped(d + j - 1, max_jump) for j in range(1, C + 1)] == [
        jump_bucket(j, k, C, G, max_jump) for j in range(1, C + 1)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(2, 6), min_size=1, max_size=5),
                          st.lists(st.integers(2, 6), min_size=1, max_size=5)),
                min_size=1, max_size=6), st.data())
def test_restricted_pair_index_equals_the_index_of_the_restricted_table(pairs, data):
    """``restrict_pair_index`` (entries kept row by row, sentences kept in order) gives
    ``pair_index`` on the reduced table and corpus, -1 for the entries left out."""
    from alignment.data.cooc import build_cooc
    from alignment.stats.ibm import pair_index, restrict_pair_index

    corpus = EncodedCorpus.from_id_lists([s for s, _ in pairs], [t for _, t in pairs], 8, 8)
    args = (corpus.src_ids, corpus.src_offsets, corpus.tgt_ids, corpus.tgt_offsets)
    row_ptr, cols, _ = build_cooc(*args, 8, 8)
    kept = np.array(data.draw(st.lists(st.booleans(), min_size=len(cols), max_size=len(cols))),
                    dtype=bool)
    sent = np.array(sorted(data.draw(st.sets(st.integers(0, len(pairs) - 1)))), dtype=np.int64)
    rows = np.repeat(np.arange(len(row_ptr) - 1), np.diff(row_ptr))
    small_ptr = np.zeros_like(row_ptr)
    np.cumsum(np.bincount(rows[kept], minlength=len(row_ptr) - 1), out=small_ptr[1:])
    sub = corpus.subset(sent)
    want = pair_index(sub.src_ids, sub.src_offsets, sub.tgt_ids, sub.tgt_offsets, small_ptr,
                      cols[kept])
    got = restrict_pair_index(*pair_index(*args, row_ptr, cols), kept_entries=kept,
                              kept_sentences=sent)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
