"""A seeded Bayesian word aligner: collapsed Gibbs sampling of IBM-1, HMM and fertility
models with Dirichlet priors, in both directions, symmetrised.

:class:`BayesianAligner` is written from Östling & Tiedemann, *Efficient Word Alignment
with Markov Chain Monte Carlo* (PBML 106, 2016), the model class of eflomal, without
eflomal's code (eflomal is GPL-3.0; this project is BSD-3-Clause).  The sampler itself is
:func:`alignment.stats.gibbs.gibbs_direction` (numba); this module encodes the bitext,
runs several independent samplers per direction (seeded from ``random_state``, so the
same seed gives identical links), averages their link marginals, decodes each
direction by the most probable position of every word and symmetrises the two.

After :meth:`BayesianAligner.fit`, the expected lexical counts, the jump counts and the
fertility counts of the fitted corpus are kept as Dirichlet *priors*, so
:meth:`BayesianAligner.align` aligns new sentence pairs without resampling the training
bitext (as eflomal's priors files do).

    from alignment.aligners.bayes import BayesianAligner
    links = BayesianAligner(random_state=0).fit_align(src, tgt)   # list of {(j, k)}
"""

from __future__ import annotations

import numbers
import time
from array import array
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from structpred import (check_flag, check_n_jobs, check_ordered, check_unchanged_since_fit,
                        check_whole, estimator_seed)
from structpred.io import counted, split_tokens, token_form, unwritable_token

from .._runtime import log as _log

__all__ = ["BayesianAligner", "BAYES_DEFAULTS"]

#: the defaults (chosen on the Hansards trial and Czech tune sentences only; the
#: figures are in docs/results/alignment.md)
BAYES_DEFAULTS = {"em_iterations": 5, "ibm1_iterations": 4, "hmm_iterations": 4,
                  "fertility_iterations": 4, "n_samplers": 3, "alpha_lex": 0.001, "alpha_jump": 0.5,
                  "alpha_fert": 0.5, "null_prob": 0.2, "max_jump": 100,
                  "lowercase": True, "prefix": 4, "symmetrize": "intersection"}

#: the smallest Dirichlet concentration (``alpha_*``) taken: the sampler's fertility
#: probabilities divided by zero from ``alpha_fert=1e-17`` down
MIN_ALPHA = 1e-10

#: the most sweeps (and samplers) a run accepts, as the learners' and the command line's
#: iteration cap
MAX_SWEEPS = 10 ** 7

#: hyperparameters of the fitted model that :meth:`BayesianAligner.align` reads: refused
#: there when ``set_params`` changed them since fit
_FITTED_PRIORS = ("alpha_lex", "alpha_jump", "alpha_fert", "null_prob", "random_state")

_SYMMETRIZE = ("intersection", "union", "grow-diag", "grow-diag-final",
               "grow-diag-final-and")


#: largest key space (generating x aligned types) whose pair ids are found with a dense
#: table (one byte and one int32 per possible key); larger ones are sorted
DENSE_PAIR_KEYS = 1 << 27
#: ... and at most this many possible keys per cell: a few sentence pairs (new pairs aligned
#: with the priors of a large vocabulary) are sorted, as scanning the table would cost more
DENSE_KEYS_PER_CELL = 16


def pair_ids(gen, gen_off, ali, ali_off, n_gen, n_ali):
    """``(uniq, pid, c_off)``: the sorted distinct word-pair keys ``e * n_ali + f`` of the
    cells of :func:`alignment.stats.gibbs.cell_keys`, the index of every cell's key among
    them (int32), as ``np.unique(keys, return_inverse=True)`` gives them, and where each
    sentence's cells start.

    With at most :data:`DENSE_PAIR_KEYS` possible keys (and
    :data:`DENSE_KEYS_PER_CELL` per cell) a table of all of them gives the
    same arrays without forming the keys or sorting them
    (:func:`alignment.stats.gibbs.dense_pair_ids`; the sort was a quarter of a
    one-sampler run's time).
    """
    from ..stats.gibbs import cell_keys, dense_pair_ids

    n_keys = int(n_gen) * int(n_ali)
    n_cells = int(np.dot(np.diff(ali_off), np.diff(gen_off) + 1))
    if n_keys <= min(DENSE_PAIR_KEYS, DENSE_KEYS_PER_CELL * n_cells):
        return dense_pair_ids(gen, gen_off, ali, ali_off, n_gen, n_ali)
    keys, c_off = cell_keys(gen, gen_off, ali, ali_off, n_ali)
    uniq, pid = np.unique(keys, return_inverse=True)
    return uniq, pid.reshape(-1).astype(np.int32), c_off


class _Side:
    """Word ids of one side (``0`` is NULL; real words from ``1``) of the words as the
    model sees them: as a file's reader gives them (:func:`structpred.io.token_form`: a
    variation selector inside a word removed, NFC), lower-cased (``lowercase``) and cut to
    ``prefix`` characters (0: whole words)."""

    def __init__(self, vocab=None, lowercase=True, prefix=0):
        self.vocab = dict(vocab or {})
        self.lowercase, self.prefix = bool(lowercase), int(prefix)

    def encode(self, sentences, side="source"):
        """``(ids, offsets)`` of ``sentences`` (strings split on white space, or lists of
        tokens, which are checked); each distinct word form is normalised once, and a new
        one gets the next id (the vocabulary grows)."""
        if isinstance(sentences, (str, bytes)):
            raise TypeError(f"expected a list of {side} sentences, got a single string "
                            f"{sentences[:40]!r}")
        voc, lower, prefix, at = self.vocab, self.lowercase, self.prefix, [0]

        class _Ids(dict):       # word form -> id, filled on first sight, in token order
            def __missing__(self, w):
                n = token_form(w, f"{side} sentence {at[0]}")   # as a file's reader reads it
                n = n.lower() if lower else n
                if prefix > 0:
                    n = n[:prefix]
                i = voc.get(n)
                if i is None:
                    i = voc[n] = len(voc) + 1
                self[w] = i
                return i

        ids, lookup = array("i"), _Ids().__getitem__
        off = np.zeros(len(sentences) + 1, dtype=np.int64)
        for n, s in enumerate(sentences):
            at[0] = n
            # a string is split as a file's line is (ASCII spaces and tabs; a no-break
            # space or a line break inside it was a split too, and is refused in a file)
            toks = (split_tokens(s, f"{side} sentence {n}") if isinstance(s, str)
                    else _checked_tokens(s, side, n))
            ids.extend(map(lookup, toks))
            off[n + 1] = len(ids)
        return np.frombuffer(ids, dtype=np.int32).copy() if len(ids) else \
            np.zeros(0, dtype=np.int32), off


def _checked_tokens(s, side, i):
    """The tokens of sentence ``i`` given as a list: strings without white space."""
    toks = list(check_ordered(s, f"{side} sentence {i}", "tokens"))
    bad = next((w for w in toks if not isinstance(w, str)), None)
    if bad is not None:
        raise TypeError(f"{side} sentence {i}: token {bad!r} is not a string")
    bad = unwritable_token(toks)
    if bad is not None:   # "" or "a b" would be one word here, and two in a file
        raise ValueError(f"{side} sentence {i}: token {bad!r} is empty or holds white space")
    return toks


class BayesianAligner(BaseEstimator):
    r"""Bayesian IBM-1 → HMM → fertility aligner, collapsed Gibbs sampling, seeded.

    Each direction aligns every word :math:`f_j` of one side to a position
    :math:`a_j \in \{0, 1, \dots, m\}` of the other (0 is NULL).  With the Dirichlet
    priors integrated out, the sampler draws :math:`a_j` from the collapsed conditional
    of Östling & Tiedemann (2016) (written out here in full: the paper's equation numbers
    could not be checked when this was written, so none are cited)

    .. math::

        P(a_j = i \mid a_{-j}) \propto \pi_i \,
        \frac{\alpha_{lex} + c_{-j}(e_i, f_j)}{V_f \alpha_{lex} + c_{-j}(e_i)}
        \, J_i \, F_i,

    where counts :math:`c_{-j}` leave out :math:`a_j` (plus any prior pseudo-counts),
    :math:`\pi_0 = p_{null}`, :math:`\pi_{i>0} = 1 - p_{null}`; :math:`J_i = 1/m`
    (IBM-1) or, in the HMM and fertility stages, the predictive probabilities of the
    jump into :math:`i` from the previous non-NULL link and of the jump out of :math:`i`
    into the next one (:math:`J_0`: the single jump that skips :math:`j`), each
    :math:`(\alpha_{jump} + c(d)) / (B \alpha_{jump} + c)` over jump buckets
    :math:`d \in [-J, J]`; and :math:`F_i` (fertility stage only) the ratio
    :math:`(\alpha_{fert} + c'(e_i, \phi_i + 1)) / (\alpha_{fert} + c'(e_i, \phi_i))` of
    the fertility predictive when :math:`e_i`'s fertility grows by one (:math:`F_0 = 1`).
    The exact form is in :mod:`alignment.stats.gibbs`; the stationary distribution of
    this sampler is checked against exact enumeration in the tests.

    Parameters
    ----------
    em_iterations : int
        EM iterations of IBM Model 1 whose posteriors draw every sampler's initial
        alignment (a uniformly random start leaves the sparse-prior sampler near it for
        many sweeps; 0: uniform word-pair probabilities).
    ibm1_iterations, hmm_iterations, fertility_iterations : int
        Gibbs sweeps with each model, in this order (0 skips a model).  The link
        marginals are averaged over the last half of the sweeps of the last model.
    n_samplers : int
        Independent samplers per direction; their marginals are averaged.
    alpha_lex, alpha_jump, alpha_fert : float
        Symmetric Dirichlet concentrations of the lexical, jump and fertility
        distributions.
    null_prob : float
        Probability that a word is aligned to NULL.
    max_jump : int
        Jumps are bucketed in ``[-max_jump, max_jump]``.
    max_fertility : int
        Fertilities at or above this share one bucket.

        These six and ``random_state`` are part of the fitted model (:meth:`align` samples
        with the fitted counts, its Dirichlet concentrations and its seed): changed by
        ``set_params`` after fit, :meth:`align` refuses them (``ValueError``: set them
        back or fit again).  The iterations, ``n_samplers``, ``symmetrize``, ``n_jobs``
        and ``verbose`` are how :meth:`align` samples and may change; ``lowercase`` and
        ``prefix`` changed take effect at the next fit.
    symmetrize : {"intersection", "union", "grow-diag", "grow-diag-final", \
"grow-diag-final-and"}
        How the two directions' links are combined.
    lowercase : bool
        Lower-case words for the model (positions are unchanged).
    prefix : int
        Model only the first ``prefix`` characters of each word (0: whole words).
    random_state : int, None, numpy SeedSequence, RandomState or Generator
        Seed of every sampler (None: fresh entropy, not reproducible; a RandomState or
        Generator: a seed drawn from it once, :func:`structpred.estimator_seed`).
    n_jobs : int or None
        1 (or ``None``, as scikit-learn reads it): one thread; 2 or more (or -1, every CPU,
        when there are two): the two directions in two threads.
    verbose : bool
        Progress on stderr.

    Attributes
    ----------
    fwd_link_sets_, bwd_link_sets_ : alignment.aligners.runs.LinkSets
        Directional links of the training pairs (fwd: each target word's source word;
        bwd: each source word's target word), 0-based source-target, in arrays.
    fwd_links_, bwd_links_ : list of set of (int, int)
        The same links as Python sets (formed on first access).
    links_ : list of set of (int, int)
        The symmetrised links of the training pairs under the current ``symmetrize`` (as
        :meth:`align` combines; formed on first access).
    priors_ : dict
        Per direction (``"fwd"``, ``"bwd"``): the fitted lexical expected counts
        (sorted word-pair keys and counts), their totals per word, the jump counts and
        the fertility counts, the Dirichlet priors of :meth:`align`.
    src_vocab_, tgt_vocab_ : dict of str to int
        Word ids (from 1) of the two sides.
    seconds_ : dict
        Wall time of encoding, sampling and decoding.
    """

    def __init__(self, em_iterations=BAYES_DEFAULTS["em_iterations"],
                 ibm1_iterations=BAYES_DEFAULTS["ibm1_iterations"],
                 hmm_iterations=BAYES_DEFAULTS["hmm_iterations"],
                 fertility_iterations=BAYES_DEFAULTS["fertility_iterations"],
                 n_samplers=BAYES_DEFAULTS["n_samplers"], alpha_lex=BAYES_DEFAULTS["alpha_lex"],
                 alpha_jump=BAYES_DEFAULTS["alpha_jump"],
                 alpha_fert=BAYES_DEFAULTS["alpha_fert"], null_prob=BAYES_DEFAULTS["null_prob"],
                 max_jump=BAYES_DEFAULTS["max_jump"], max_fertility=6,
                 symmetrize=BAYES_DEFAULTS["symmetrize"],
                 lowercase=BAYES_DEFAULTS["lowercase"],
                 prefix=BAYES_DEFAULTS["prefix"], random_state=0, n_jobs=1, verbose=False):
        self.em_iterations = em_iterations
        self.ibm1_iterations = ibm1_iterations
        self.hmm_iterations = hmm_iterations
        self.fertility_iterations = fertility_iterations
        self.n_samplers = n_samplers
        self.alpha_lex = alpha_lex
        self.alpha_jump = alpha_jump
        self.alpha_fert = alpha_fert
        self.null_prob = null_prob
        self.max_jump = max_jump
        self.max_fertility = max_fertility
        self.symmetrize = symmetrize
        self.lowercase = lowercase
        self.prefix = prefix
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ------------------------------------------------------------------ helpers
    def _check(self):
        # whole numbers, not floats cut to one (2.5 ran 2 sweeps) nor NaN (numpy's error),
        # at most MAX_SWEEPS (10**12 ran for ever)
        names = ("em_iterations", "ibm1_iterations", "hmm_iterations",
                 "fertility_iterations", "n_samplers", "max_jump", "max_fertility", "prefix")
        for name in names:
            check_whole(name, getattr(self, name), 0, MAX_SWEEPS)
        sched = (int(self.ibm1_iterations), int(self.hmm_iterations),
                 int(self.fertility_iterations))
        if sum(sched) < 1:
            raise ValueError("the iterations must be >= 0 and not all 0")
        if int(self.n_samplers) < 1:
            raise ValueError("n_samplers must be at least 1")
        for name in ("null_prob", "alpha_lex", "alpha_jump", "alpha_fert"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a number, not {value!r}")
        if not 0.0 < float(self.null_prob) < 1.0:
            raise ValueError(f"null_prob must lie in (0, 1), not {self.null_prob}")
        estimator_seed(self, seed_sequence=True)   # drawn from now
        check_n_jobs(self.n_jobs)   # 0, 1.5 and "2" were taken; -1: every CPU
        for name in ("lowercase", "verbose"):   # "no" switched one on
            check_flag(name, getattr(self, name))
        if not min(self.alpha_lex, self.alpha_jump, self.alpha_fert) > 0:   # NaN too
            raise ValueError("the Dirichlet concentrations must be positive")
        for name in ("alpha_lex", "alpha_jump", "alpha_fert"):
            if float(getattr(self, name)) < MIN_ALPHA:   # alpha_fert=1e-17: ZeroDivisionError
                raise ValueError(f"{name} must be at least {MIN_ALPHA:g} (a smaller prior "
                                 f"vanishes beside the counts), got {getattr(self, name)!r}")
        if int(self.max_jump) < 1 or int(self.max_fertility) < 2:
            raise ValueError("max_jump must be >= 1 and max_fertility >= 2")
        if self.symmetrize not in _SYMMETRIZE:
            raise ValueError(f"symmetrize must be one of {_SYMMETRIZE}, not "
                             f"{self.symmetrize!r}")
        return np.array(sched, dtype=np.int64)

    def _seeds(self, stream):
        ss = estimator_seed(self, seed_sequence=True)
        if not isinstance(ss, np.random.SeedSequence):
            ss = np.random.SeedSequence(ss)
        ss = np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (stream,))
        return ss.generate_state(2 * int(self.n_samplers), dtype=np.uint64).reshape(2, -1)

    def _direction(self, name, gen, gen_off, ali, ali_off, n_gen, n_ali, priors, seeds):
        """Sample one direction; ``(marg, pid, c_off, keys_unique)``."""
        from ..stats.gibbs import gibbs_direction, ibm1_em

        uniq, pid, c_off = pair_ids(gen, gen_off, ali, ali_off, n_gen, n_ali)
        n_fert = int(self.max_fertility) + 1
        if priors is None:
            lex_prior = np.zeros(len(uniq))
            e_prior = np.zeros(n_gen)
            jump_prior = np.zeros(2 * int(self.max_jump) + 1)
            fert_prior = np.zeros((n_gen, n_fert))
        else:
            lex_prior, e_prior, jump_prior, fert_prior = self._prior_arrays(
                priors, uniq, n_gen, n_ali)
        marg = np.zeros(c_off[-1], dtype=np.float32)
        sched = self._check()
        last = 2 if sched[2] > 0 else (1 if sched[1] > 0 else 0)
        n_collect = max(1, int(sched[last]) // 2)
        t_init = ibm1_em(gen, gen_off, ali_off, pid, c_off, n_gen, lex_prior,
                         float(self.null_prob), int(self.em_iterations))
        for k in range(int(self.n_samplers)):
            t0 = time.perf_counter()
            gibbs_direction(gen, gen_off, ali, ali_off, pid, c_off, n_gen, n_ali,
                            lex_prior, e_prior, jump_prior, fert_prior,
                            float(self.alpha_lex), float(self.alpha_jump),
                            float(self.alpha_fert), float(self.null_prob),
                            int(self.max_jump), n_fert, sched, n_collect,
                            np.uint64(seeds[k]), marg, t_init, priors is not None)
            _log(self.verbose, f"bayes {name}: sampler {k + 1}/{self.n_samplers} in "
                               f"{time.perf_counter() - t0:.1f}s")
        marg /= float(self.n_samplers)
        return marg, pid, c_off, uniq

    def _prior_arrays(self, priors, uniq, n_gen, n_ali):
        keys_fit, counts_fit = priors["keys"], priors["counts"]
        nf_fit = priors["n_ali"]
        e, f = uniq // n_ali, uniq % n_ali
        known = (e < priors["n_gen"]) & (f < nf_fit)
        kf = e * nf_fit + f
        pos = np.searchsorted(keys_fit, kf)
        pos = np.minimum(pos, max(len(keys_fit) - 1, 0))
        hit = known & (len(keys_fit) > 0)
        if len(keys_fit):
            hit &= keys_fit[pos] == kf
        lex_prior = np.where(hit, counts_fit[pos] if len(keys_fit) else 0.0, 0.0)
        e_prior = np.zeros(n_gen)
        e_prior[:len(priors["e_totals"])] = priors["e_totals"][:n_gen]
        fert_prior = np.zeros((n_gen, priors["fert"].shape[1]))
        fert_prior[:len(priors["fert"])] = priors["fert"][:n_gen]
        return lex_prior, e_prior, priors["jump"].astype(np.float64), fert_prior

    def _run(self, src, tgt, priors=None, stream=0):
        """Sample both directions; returns the directional link arrays and the state."""
        from ..stats.gibbs import argmax_rows

        t0 = time.perf_counter()
        src = check_ordered(src, "src", "source sentences")   # None, a set, a generator
        tgt = check_ordered(tgt, "tgt", "target sentences")
        if len(src) != len(tgt):
            raise ValueError(f"{len(src)} source but {len(tgt)} target sentences")
        if not len(src):
            raise ValueError("nothing to align")
        grow = priors is None
        # align reads words as the fitted vocabularies were made (a prefix set since by
        # set_params looked up words they never held); fit takes the current options
        words = (self.lowercase, self.prefix) if grow else self.__dict__.get(
            "_fitted_words", (self.lowercase, self.prefix))
        sv = _Side(None if grow else self.src_vocab_, *words)
        tv = _Side(None if grow else self.tgt_vocab_, *words)
        s_ids, s_off = sv.encode(src, "source")     # new words get new ids in align too
        t_ids, t_off = tv.encode(tgt, "target")
        empty = np.flatnonzero((np.diff(s_off) == 0) | (np.diff(t_off) == 0))
        if len(empty):
            raise ValueError(f"sentence pair {empty[0] + 1} has an empty side")
        n_s = int(s_ids.max()) + 1
        n_t = int(t_ids.max()) + 1
        if not grow:
            n_s = max(n_s, len(self.src_vocab_) + 1)
            n_t = max(n_t, len(self.tgt_vocab_) + 1)
        seeds = self._seeds(stream)
        t1 = time.perf_counter()
        jobs = {"fwd": ("fwd", s_ids, s_off, t_ids, t_off, n_s, n_t,
                        None if priors is None else priors["fwd"], seeds[0]),
                "bwd": ("bwd", t_ids, t_off, s_ids, s_off, n_t, n_s,
                        None if priors is None else priors["bwd"], seeds[1])}
        if check_n_jobs(self.n_jobs) > 1:
            with ThreadPoolExecutor(2) as ex:
                futs = {d: ex.submit(self._direction, *args) for d, args in jobs.items()}
                res = {d: f.result() for d, f in futs.items()}
        else:
            res = {d: self._direction(*args) for d, args in jobs.items()}
        t2 = time.perf_counter()
        a_fwd = argmax_rows(res["fwd"][0], s_off, t_off, res["fwd"][2])
        a_bwd = argmax_rows(res["bwd"][0], t_off, s_off, res["bwd"][2])
        enc = {"s_ids": s_ids, "s_off": s_off, "t_ids": t_ids, "t_off": t_off,
               "n_s": n_s, "n_t": n_t, "sv": sv, "tv": tv}
        secs = {"encode": t1 - t0, "sample": t2 - t1}
        return a_fwd, a_bwd, res, enc, secs

    @staticmethod
    def _link_sets(a_fwd, a_bwd, s_off, t_off):
        """The two directions' links as :class:`~alignment.aligners.runs.LinkSets`."""
        from ..stats.gibbs import alignment_links
        from .runs import LinkSets

        return (LinkSets(*alignment_links(a_fwd, t_off, s_off, True)),
                LinkSets(*alignment_links(a_bwd, s_off, t_off, False)))

    def _combine(self, fwd, bwd):
        if self.symmetrize == "intersection":
            return [f & b for f, b in zip(fwd, bwd)]
        if self.symmetrize == "union":
            return [f | b for f, b in zip(fwd, bwd)]
        from .symmetrize import symmetrize

        return [symmetrize(f, b, self.symmetrize) for f, b in zip(fwd, bwd)]

    # ------------------------------------------------------------------ API
    def fit(self, src, tgt):
        """Sample alignments of a bitext and keep its counts as priors.

        Parameters
        ----------
        src, tgt : list of list of str (or of whitespace-tokenised str)
            The two sides, every pair non-empty.

        Returns
        -------
        self
        """
        from ..stats.gibbs import link_counts, pair_totals

        self._check()
        t0 = time.perf_counter()
        src, tgt = check_ordered(src, "src", "source sentences"), check_ordered(
            tgt, "tgt", "target sentences")   # an iterator read once, here
        a_fwd, a_bwd, res, enc, secs = self._run(src, tgt)
        self.src_vocab_ = enc["sv"].vocab
        self._fitted_words = (bool(self.lowercase), int(self.prefix))
        self._fitted_priors = {k: getattr(self, k) for k in _FITTED_PRIORS}
        self.tgt_vocab_ = enc["tv"].vocab
        n_fert = int(self.max_fertility) + 1
        priors = {}
        for d, a, gen, gen_off, ali_off, n_gen, n_ali in (
                ("fwd", a_fwd, enc["s_ids"], enc["s_off"], enc["t_off"], enc["n_s"],
                 enc["n_t"]),
                ("bwd", a_bwd, enc["t_ids"], enc["t_off"], enc["s_off"], enc["n_t"],
                 enc["n_s"])):
            marg, pid, _, uniq = res[d]
            counts = pair_totals(pid, marg, len(uniq))
            e_tot = np.bincount(uniq // n_ali, weights=counts, minlength=n_gen)
            jump, fert = link_counts(a, gen, gen_off, ali_off, n_gen, int(self.max_jump),
                                     n_fert)
            keep = counts > 1e-3
            priors[d] = {"keys": uniq[keep], "counts": counts[keep], "e_totals": e_tot,
                         "jump": jump, "fert": fert, "n_gen": n_gen, "n_ali": n_ali}
        self.priors_ = priors
        self.fwd_link_sets_, self.bwd_link_sets_ = self._link_sets(a_fwd, a_bwd, enc["s_off"],
                                                                   enc["t_off"])
        self._sets = {}
        secs["total"] = time.perf_counter() - t0
        self.seconds_ = secs
        _log(self.verbose, f"bayes: {counted(len(src), 'pair')} in {secs['total']:.1f}s "
                           f"(sampling {secs['sample']:.1f}s)")
        return self

    def _fitted_sets(self, name):
        if "fwd_link_sets_" not in self.__dict__:
            raise AttributeError(f"{name}: this BayesianAligner is not fitted")
        sets = self.__dict__.setdefault("_sets", {})
        # the symmetrised links under the current ``symmetrize``, as align combines: kept
        # by name only, they stayed those of the first access after set_params
        if name == "links_" and self.symmetrize not in _SYMMETRIZE:   # a list: unhashable
            raise ValueError(f"symmetrize must be one of {_SYMMETRIZE}, not "
                             f"{self.symmetrize!r}")
        key = (name, self.symmetrize) if name == "links_" else name
        if key not in sets:         # Python sets of every pair: formed on first use only
            if name == "links_":
                sets[key] = self._combine(self.fwd_links_, self.bwd_links_)
            else:
                sets[key] = list(getattr(self, name.replace("links_", "link_sets_")))
        return sets[key]

    fwd_links_ = property(lambda self: self._fitted_sets("fwd_links_"),
                          doc="Forward links of the training pairs (list of sets).")
    bwd_links_ = property(lambda self: self._fitted_sets("bwd_links_"),
                          doc="Backward links of the training pairs (list of sets).")
    links_ = property(lambda self: self._fitted_sets("links_"),
                      doc="Symmetrised links of the training pairs (list of sets).")

    def fit_align(self, src, tgt):
        """:meth:`fit`, then the symmetrised links of the training pairs (``links_``)."""
        return self.fit(src, tgt).links_

    def _check_prior_shapes(self):
        """``ValueError`` when ``max_jump`` or ``max_fertility`` differ from the fit's (the
        shapes of the fitted jump and fertility counts): the prior arrays were read at the
        buckets of the new value, so the jumps of -100..-90 became those of -5..5; likewise
        the concentrations, ``null_prob`` and ``random_state`` (:data:`_FITTED_PRIORS`),
        which :meth:`align` read anew: other links of the same fitted model, silently."""
        fwd = self.priors_["fwd"]
        check_unchanged_since_fit(self, {"max_jump": (len(fwd["jump"]) - 1) // 2,
                                         "max_fertility": fwd["fert"].shape[1] - 1},
                                  "the fitted counts have the buckets of the fit")
        check_unchanged_since_fit(self, self.__dict__.get("_fitted_priors", {}),
                                  "align samples with the fitted model's priors and seed")

    def align(self, src, tgt, return_directions=False):
        """Align new sentence pairs with the fitted counts as Dirichlet priors (the
        training bitext is not resampled).

        Parameters
        ----------
        src, tgt : list of list of str
        return_directions : bool
            Also return the two directional link lists.

        Returns
        -------
        links : list of set of (int, int)
            ``(links, fwd, bwd)`` with ``return_directions``.
        """
        if not hasattr(self, "priors_"):
            raise NotFittedError("this BayesianAligner is not fitted: call fit first")
        self._check_prior_shapes()
        a_fwd, a_bwd, _, enc, _ = self._run(src, tgt, priors=self.priors_, stream=1)
        fwd, bwd = (list(x) for x in self._link_sets(a_fwd, a_bwd, enc["s_off"], enc["t_off"]))
        links = self._combine(fwd, bwd)
        return (links, fwd, bwd) if return_directions else links
