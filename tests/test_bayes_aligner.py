"""The in-house Bayesian aligner (alignment.aligners.bayes, alignment.stats.gibbs): the
collapsed Gibbs sampler's stationary distribution against exact enumeration, the seed,
priors for new sentences, and AER on the bundled Hansards gold."""

import itertools
from pathlib import Path
from math import lgamma

import numpy as np
import pytest

from alignment.stats.gibbs import cell_keys, gibbs_direction

ALPHA_LEX, ALPHA_JUMP, ALPHA_FERT, P_NULL, MAX_JUMP, N_FERT = 0.5, 0.7, 0.6, 0.2, 2, 3
# generating side (ids from 1), aligned side (ids from 0): 2 sentence pairs, 5 aligned words
GEN = [[1, 2], [2, 3, 1]]
ALI = [[0, 1], [1, 2, 0]]


def _csr(sents):
    off = np.zeros(len(sents) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(s) for s in sents])
    return np.array([w for s in sents for w in s], dtype=np.int32), off


def _dm(counts, alpha, size):
    """log Dirichlet-multinomial weight of one count vector (``size`` categories)."""
    total = sum(counts)
    return (sum(lgamma(alpha + c) - lgamma(alpha) for c in counts)
            + lgamma(size * alpha) - lgamma(size * alpha + total))


def _log_weight(align, model, n_f_types, n_e_types):
    lex, jumps, fert = {}, [0] * (2 * MAX_JUMP + 1), {}
    lw = 0.0
    for gen, ali, a in zip(GEN, ALI, align):
        m, prev, phi = len(gen), 0, [0] * len(gen)
        for f, i in zip(ali, a):
            e = 0 if i == 0 else gen[i - 1]
            lex.setdefault(e, {}).setdefault(f, 0)
            lex[e][f] += 1
            if i == 0:
                lw += np.log(P_NULL)
                continue
            lw += np.log(1 - P_NULL) - (np.log(m) if model == 1 else 0.0)
            jumps[min(max(i - prev, -MAX_JUMP), MAX_JUMP) + MAX_JUMP] += 1
            phi[i - 1] += 1
            prev = i
        for e, p in zip(gen, phi):
            fert.setdefault(e, [0] * N_FERT)[min(p, N_FERT - 1)] += 1
    lw += sum(_dm(list(c.values()), ALPHA_LEX, n_f_types) for c in lex.values())
    if model >= 2:
        lw += _dm(jumps, ALPHA_JUMP, len(jumps))
    if model == 3:
        lw += sum(_dm(c, ALPHA_FERT, N_FERT) for c in fert.values())
    return lw


def _exact_marginals(model, n_f_types, n_e_types):
    spaces = [list(itertools.product(range(len(g) + 1), repeat=len(a)))
              for g, a in zip(GEN, ALI)]
    states = list(itertools.product(*spaces))
    lw = np.array([_log_weight(s, model, n_f_types, n_e_types) for s in states])
    p = np.exp(lw - lw.max())
    p /= p.sum()
    marg = []
    for si, (g, a) in enumerate(zip(GEN, ALI)):
        for j in range(len(a)):
            row = np.zeros(len(g) + 1)
            for st, ps in zip(states, p):
                row[st[si][j]] += ps
            marg.append(row)
    return np.concatenate(marg)


@pytest.mark.parametrize("model", [1, 2, 3])
def test_sampler_stationary_distribution_matches_enumeration(model):
    e_ids, e_off = _csr(GEN)
    f_ids, f_off = _csr(ALI)
    n_e, n_f = 4, 3
    keys, c_off = cell_keys(e_ids, e_off, f_ids, f_off, n_f)
    uniq, pid = np.unique(keys, return_inverse=True)
    sched = np.zeros(3, dtype=np.int64)
    sched[model - 1] = 60000
    marg = np.zeros(c_off[-1], dtype=np.float32)
    gibbs_direction(e_ids, e_off, f_ids, f_off, pid.astype(np.int32), c_off, n_e, n_f,
                    np.zeros(len(uniq)), np.zeros(n_e), np.zeros(2 * MAX_JUMP + 1),
                    np.zeros((n_e, N_FERT)), ALPHA_LEX, ALPHA_JUMP, ALPHA_FERT, P_NULL,
                    MAX_JUMP, N_FERT, sched, 50000, np.uint64(7), marg,
                    np.ones(len(uniq)))
    exact = _exact_marginals(model, n_f, n_e)
    assert np.abs(marg - exact).max() < 0.01, (marg, exact)




def _small_bitext():
    rng = np.random.default_rng(1)
    src, tgt = [], []
    for _ in range(60):
        s = [f"w{x}" for x in rng.zipf(1.5, rng.integers(2, 7)) % 30]
        src.append(s)
        tgt.append(["T" + w for w in s][::-1])
    return src, tgt


def test_same_seed_identical_links_other_seed_differs():
    from alignment.aligners.bayes import BayesianAligner

    src, tgt = _small_bitext()
    kw = dict(em_iterations=1, ibm1_iterations=2, hmm_iterations=2, fertility_iterations=2,
              n_samplers=2)
    a = BayesianAligner(random_state=5, **kw).fit(src, tgt)
    b = BayesianAligner(random_state=5, n_jobs=2, **kw).fit(src, tgt)
    assert a.links_ == b.links_ and a.fwd_links_ == b.fwd_links_
    assert a.priors_["fwd"]["counts"].tobytes() == b.priors_["fwd"]["counts"].tobytes()
    c = BayesianAligner(random_state=6, **kw).fit(src, tgt)
    assert c.priors_["fwd"]["counts"].tobytes() != a.priors_["fwd"]["counts"].tobytes()


def test_pair_ids_are_numpy_unique_and_links_do_not_depend_on_the_path(monkeypatch):
    """The dense table of word-pair keys gives np.unique's arrays exactly, so the sampler
    sees the same pair ids and gives the same links as with the sort (issue 31, point 4:
    a speed-up only)."""
    from alignment.aligners import bayes
    from alignment.stats.gibbs import cell_keys

    rng = np.random.default_rng(0)
    n_gen, n_ali = 70, 90
    gen_len, ali_len = rng.integers(1, 9, 300), rng.integers(1, 9, 300)
    gen_off = np.concatenate([[0], np.cumsum(gen_len)]).astype(np.int64)
    ali_off = np.concatenate([[0], np.cumsum(ali_len)]).astype(np.int64)
    gen = rng.integers(1, n_gen, gen_off[-1]).astype(np.int32)
    ali = rng.integers(1, n_ali, ali_off[-1]).astype(np.int32)
    keys, want_off = cell_keys(gen, gen_off, ali, ali_off, n_ali)
    want_u, want_p = np.unique(keys, return_inverse=True)
    monkeypatch.setattr(bayes, "DENSE_KEYS_PER_CELL", 1 << 30)
    for limit in (1 << 27, 0):                      # dense table, then the sort
        monkeypatch.setattr(bayes, "DENSE_PAIR_KEYS", limit)
        u, p, c_off = bayes.pair_ids(gen, gen_off, ali, ali_off, n_gen, n_ali)
        assert u.dtype == want_u.dtype and np.array_equal(u, want_u)
        assert p.dtype == np.int32 and np.array_equal(p, want_p.reshape(-1))
        assert np.array_equal(c_off, want_off)
    monkeypatch.setattr(bayes, "DENSE_PAIR_KEYS", 0)
    src, tgt = _small_bitext()
    kw = dict(em_iterations=1, ibm1_iterations=2, hmm_iterations=2, fertility_iterations=2,
              n_samplers=1, random_state=3)
    sorted_ = bayes.BayesianAligner(**kw).fit(src, tgt)
    monkeypatch.setattr(bayes, "DENSE_PAIR_KEYS", 1 << 27)
    dense = bayes.BayesianAligner(**kw).fit(src, tgt)
    assert dense.links_ == sorted_.links_ and dense.bwd_links_ == sorted_.bwd_links_
    assert dense.priors_["fwd"]["counts"].tobytes() == sorted_.priors_["fwd"]["counts"].tobytes()


def test_sampler_without_priors_skips_them_with_the_same_result():
    """``use_prior=False`` (training: every pseudo-count zero) does not read the prior
    arrays; the samples and marginals are the same, bit for bit, as when it reads the zeros
    (issue 31, point 4: a speed-up only)."""
    src, tgt = _small_bitext()
    vocab = {}
    ids = [[vocab.setdefault(w, len(vocab) + 1) for w in s] for s in src]
    e_ids, e_off = _csr(ids)
    fvoc = {}
    f_ids, f_off = _csr([[fvoc.setdefault(w, len(fvoc)) for w in t] for t in tgt])
    n_e, n_f = len(vocab) + 1, len(fvoc)
    keys, c_off = cell_keys(e_ids, e_off, f_ids, f_off, n_f)
    uniq, pid = np.unique(keys, return_inverse=True)
    out = []
    for use_prior in (True, False):
        marg = np.zeros(c_off[-1], dtype=np.float32)
        a = gibbs_direction(e_ids, e_off, f_ids, f_off, pid.astype(np.int32), c_off, n_e, n_f,
                            np.zeros(len(uniq)), np.zeros(n_e), np.zeros(2 * MAX_JUMP + 1),
                            np.zeros((n_e, N_FERT)), ALPHA_LEX, ALPHA_JUMP, ALPHA_FERT, P_NULL,
                            MAX_JUMP, N_FERT, np.array([2, 2, 2]), 2, np.uint64(11), marg,
                            np.ones(len(uniq)), use_prior)
        out.append((a.tobytes(), marg.tobytes()))
    assert out[0] == out[1]


def test_priors_align_new_sentences_like_the_training_ones():
    from alignment.aligners.bayes import BayesianAligner

    src, tgt = _small_bitext()
    m = BayesianAligner(random_state=0, n_samplers=1).fit(src[:50], tgt[:50])
    new, fwd, _ = m.align(src[50:], tgt[50:], return_directions=True)
    gold = [{(j, len(s) - 1 - j) for j in range(len(s))} for s in src[50:]]
    n_gold = sum(len(g) for g in gold)
    assert sum(len(p & g) for p, g in zip(fwd, gold)) >= 0.85 * n_gold
    assert sum(len(p & g) for p, g in zip(new, gold)) >= 0.6 * n_gold
    assert m.align(src[50:], tgt[50:]) == new   # seeded too
    assert m.align([["unseen", "w1"]], [["Tw1", "x"]])[0] <= {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_hansards_aer_below_threshold():
    """On the first 2,000 pairs of the bundled Hansards bitext (the gold sentences are its
    first 484 lines), short chains already reach an AER a broken sampler would not."""
    from alignment.aligners.bayes import BayesianAligner
    from alignment.data.formats import read_naacl, read_parallel
    from alignment.evaluate.aer import score_alignments
    from structpred import open_text

    d = Path(__file__).resolve().parent.parent / "data" / "hansards"
    with open_text(d / "bitext.36-2.en.gz") as fe, open_text(d / "bitext.36-2.fr.gz") as ff:
        src = [ln.split() for _, ln in zip(range(2000), fe)]
        tgt = [ln.split() for _, ln in zip(range(2000), ff)]
    test = read_parallel(d / "test.en.gz", d / "test.fr.gz")
    gold = read_naacl(d / "test.naacl.gz", test)
    m = BayesianAligner(ibm1_iterations=2, hmm_iterations=2, fertility_iterations=2,
                        n_samplers=1, random_state=0).fit(src, tgt)
    aer = score_alignments(m.links_[37:37 + 447], gold).aer
    assert aer < 0.15, aer


def test_cli_bayes_stdin_pharaoh_and_seed(tmp_path, capsys):
    from structpred.cli import main

    src, tgt = _small_bitext()
    p = tmp_path / "c.txt"
    p.write_text("".join(f"{' '.join(s)} ||| {' '.join(t)}\n" for s, t in zip(src, tgt)))
    outs = []
    for k in range(2):
        o = tmp_path / f"o{k}.txt"
        assert main(["align", "unsupervised", "--model", "bayes", "-i", str(p), "-o", str(o),
                     "--iterations", "1,1,1", "--samplers", "1", "-q"]) == 0
        outs.append(o.read_bytes())
    assert outs[0] == outs[1]
    lines = outs[0].decode().splitlines()
    assert len(lines) == len(src) and lines[0] and all(
        "-" in tok for ln in lines for tok in ln.split())
    assert main(["align", "unsupervised", "--model", "bayes", "-i", str(p), "--iterations",
                 "1,x", "-q"]) == 2
    assert "--iterations" in capsys.readouterr().err


def _model_only_options():
    from structpred.cli._main import build_parser

    args = build_parser(["align", "unsupervised"]).parse_args(
        ["align", "unsupervised", "-i", "x"])
    return [(model, *args._option_defaults[dest][:1], dest, args._option_defaults[dest][1])
            for model, dests in args.model_only.items() for dest in dests]


_MODEL_ONLY = _model_only_options()
# a value of the option's kind that is not its default
_OTHER = {"--soft": [], "--with": ["eflomal"], "--iterations": ["1,1,1"]}


@pytest.mark.parametrize("model,option,dest,default", _MODEL_ONLY,
                         ids=[f"{m}:{o}" for m, o, _, _ in _MODEL_ONLY])
def test_an_option_of_the_other_model_is_refused_not_ignored(model, option, dest, default,
                                                            tmp_path, capsys):
    """`align unsupervised --model M --option-of-the-other-model`: exit 2 naming the option
    and its model (it was silently ignored: --hmm-iterations with --model bayes)."""
    from structpred.cli import main

    assert {"bayes", "hmm"} == {m for m, *_ in _MODEL_ONLY} and len(_MODEL_ONLY) >= 8
    p = tmp_path / "c.txt"
    p.write_text("the house ||| la maison\n")
    other = "hmm" if model == "bayes" else "bayes"
    value = _OTHER.get(option, [str(default * 2 + 1 if isinstance(default, int) else
                                    (0.5 if default != 0.5 else 0.25))])
    rc = main(["align", "unsupervised", "--model", other, "-i", str(p), "-q", option, *value])
    err = capsys.readouterr().err
    assert rc == 2 and f"{option} is for --model {model}" in err, err
