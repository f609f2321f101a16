"""The Bayesian aligner's array helpers against independent references: IBM Model 1's EM
start (:func:`alignment.stats.gibbs.ibm1_em`) against a plain numpy EM, the link arrays of
one direction (:func:`alignment.stats.gibbs.alignment_links`) against Python sets, the
expected pair counts against ``np.bincount``, the encoding against normalising every token,
and the fitted link attributes, which are formed from arrays (issue 31: speed only)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alignment.aligners.bayes import BayesianAligner, _Side
from alignment.aligners.runs import LinkSets
from alignment.stats.gibbs import alignment_links, cell_keys, ibm1_em, pair_totals


def _csr(lengths):
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    off[1:] = np.cumsum(lengths)
    return off


@st.composite
def _alignments(draw):
    """A random bitext's shape and one direction's alignment (0 = NULL)."""
    n = draw(st.integers(1, 6))
    gen_len = draw(st.lists(st.integers(1, 7), min_size=n, max_size=n))
    ali_len = draw(st.lists(st.integers(1, 7), min_size=n, max_size=n))
    a = [draw(st.integers(0, gen_len[s])) for s in range(n) for _ in range(ali_len[s])]
    return _csr(gen_len), _csr(ali_len), np.array(a, dtype=np.int32)


@settings(max_examples=60, deadline=None)
@given(_alignments(), st.booleans())
def test_alignment_links_are_the_sorted_link_sets(case, ali_is_target):
    gen_off, ali_off, a = case
    want = []
    for s in range(len(ali_off) - 1):
        links = set()
        for p in range(ali_off[s + 1] - ali_off[s]):
            i = int(a[ali_off[s] + p])
            if i > 0:
                links.add((i - 1, p) if ali_is_target else (p, i - 1))
        want.append(links)
    got = LinkSets(*alignment_links(a, ali_off, gen_off, ali_is_target))
    assert got == LinkSets.from_sets(want)          # the same arrays, sorted within a pair
    assert list(got) == want


def test_pair_totals_is_bincount_bit_for_bit():
    rng = np.random.default_rng(1)
    pid = rng.integers(0, 300, 5000).astype(np.int32)
    marg = rng.random(5000).astype(np.float32)
    want = np.bincount(pid, weights=marg, minlength=310)
    assert pair_totals(pid, marg, 310).tobytes() == want.tobytes()


def test_ibm1_em_matches_plain_numpy_em():
    """t(f | e) after n EM iterations of IBM Model 1 with a NULL word of probability p0,
    uniform 1/m over the m real words, expected counts + prior + 1e-3, normalised per e."""
    rng = np.random.default_rng(2)
    n_e, n_f, p0 = 6, 7, 0.2
    gen_len, ali_len = rng.integers(1, 5, 8), rng.integers(1, 5, 8)
    e_off, f_off = _csr(gen_len), _csr(ali_len)
    e_ids = rng.integers(1, n_e, e_off[-1]).astype(np.int32)
    f_ids = rng.integers(0, n_f, f_off[-1]).astype(np.int32)
    keys, c_off = cell_keys(e_ids, e_off, f_ids, f_off, n_f)
    uniq, pid = np.unique(keys, return_inverse=True)
    pid = pid.astype(np.int32)
    prior = rng.random(len(uniq))
    got = ibm1_em(e_ids, e_off, f_off, pid, c_off, n_e, prior, p0, 3)
    t = np.ones(len(uniq))
    e_of = uniq // n_f
    for _ in range(3):
        cnt = prior + 1e-3
        for s in range(len(e_off) - 1):
            es = np.concatenate([[0], e_ids[e_off[s]:e_off[s + 1]]])
            m = len(es) - 1
            for f in f_ids[f_off[s]:f_off[s + 1]]:
                cells = np.searchsorted(uniq, es.astype(np.int64) * n_f + f)
                w = t[cells] * np.where(es == 0, p0, (1 - p0) / m)
                np.add.at(cnt, cells, w / w.sum())
        tot = np.bincount(e_of, weights=cnt, minlength=n_e)
        t = cnt / tot[e_of]
    np.testing.assert_allclose(got, t, rtol=1e-12)


def test_encode_normalises_each_form_as_each_token():
    src = ["The THE the Theatre x", "théâtre Théâtre the", "Z"]
    side = _Side(None, lowercase=True, prefix=4)
    ids, off = side.encode(src)
    norm = [[w.lower()[:4] for w in s.split()] for s in src]
    vocab = {}
    want = [vocab.setdefault(w, len(vocab) + 1) for s in norm for w in s]
    assert ids.tolist() == want and off.tolist() == [0, 5, 8, 9] and side.vocab == vocab
    known = _Side(vocab, lowercase=True, prefix=4)           # new words: ids after the last
    ids, _ = known.encode(["the q r q"])
    assert ids.tolist() == [vocab["the"], 6, 7, 6] and len(vocab) == 5   # (a copy grows)
    with pytest.raises(TypeError, match="single string"):
        side.encode("the cat")
    with pytest.raises(ValueError, match="empty or holds white space"):
        side.encode([["a b"]])


def test_fitted_link_attributes_come_from_the_arrays():
    src = ["le chat noir", "le chien", "un chat", "noir chien le"]
    tgt = ["the black cat", "the dog", "a cat", "black dog the"]
    al = BayesianAligner(n_samplers=1, ibm1_iterations=2, hmm_iterations=0,
                         fertility_iterations=0, random_state=0)
    assert not hasattr(al, "links_")                  # not fitted: no attribute
    al.fit(src, tgt)
    assert al.fwd_links_ == list(al.fwd_link_sets_) and al.bwd_links_ == list(al.bwd_link_sets_)
    assert al.links_ == [f & b for f, b in zip(al.fwd_links_, al.bwd_links_)]
    assert al.fit_align(src, tgt) == al.links_       # a refit forms them again


def test_a_few_pairs_of_a_large_vocabulary_are_sorted_not_tabled(monkeypatch):
    """New pairs aligned with the priors of a large vocabulary: scanning a table of every
    possible key per pair made it 50 times slower; the sort gives the same arrays."""
    from alignment.aligners import bayes
    from alignment.stats import gibbs

    def no_table(*args):
        raise AssertionError("a table of 10^8 keys for 12 cells")

    monkeypatch.setattr(gibbs, "dense_pair_ids", no_table)
    gen, ali = np.array([5, 9000, 7], dtype=np.int32), np.array([3, 4, 9999], dtype=np.int32)
    off = np.array([0, 3], dtype=np.int64)
    uniq, pid, c_off = bayes.pair_ids(gen, off, ali, off, 10 ** 4, 10 ** 4)
    keys, want_off = cell_keys(gen, off, ali, off, 10 ** 4)
    assert np.array_equal(uniq[pid], keys) and np.array_equal(c_off, want_off)
