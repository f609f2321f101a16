"""Word alignment without gold: the HMM trained by agreement, posterior-decoded.

:class:`UnsupervisedAligner` trains the HMM of :mod:`alignment.stats.hmm` in both
directions *by agreement* (Liang, Taskar & Klein 2006; ``train_hmm(...,
agreement=True)``), starting from IBM Model 1/2 tables
(:class:`alignment.stats.statistics.AlignmentStatistics`), on the sentences to align plus
any extra unlabeled bitext, and links ``(j, k)`` by posterior decoding: the link
posteriors of the two directions, :math:`P_{fwd}(a_k = j)` and
:math:`P_{bwd}(b_j = k)`, are thresholded and the two directions combined
(:func:`decode`):

* ``direction="fwd"`` / ``"bwd"``: one direction's links, posterior ``>= threshold``;
* ``symmetrize="intersect"``: both posteriors ``>= threshold`` (the minimum);
* ``"union"``: either one (the maximum);
* ``"grow-diag"``, ``"grow-diag-final-and"``: Koehn et al.'s heuristics
  (:func:`alignment.aligners.symmetrize.symmetrize`) on the two thresholded directions.

The first four are monotone in the threshold (a higher threshold gives a subset of the
links); the grow-diag heuristics are not (a smaller intersection can free words that
then take a neighbour's link).

**Combined with eflomal** (``with_eflomal``): eflomal (:mod:`alignment.aligners.runs`,
cached) runs on the same training text, and each direction's posterior becomes a
weighted vote ``(1 - w) P_hmm + w * [eflomal links it]`` with ``w = eflomal_weight``
before thresholding; with ``w = 1/2`` and the intersection, a threshold above ``1/2``
keeps eflomal's links that the HMM also supports, and one below ``1/2`` adds either
aligner's confident links.

The model is not a sampler: training and decoding are deterministic (eflomal's links
are not, but they are cached by :mod:`alignment.aligners.runs`).  Tokens can be normalised
for training (``lowercase``, ``prefix``: keep the first N characters of each word, a
crude stemmer for morphologically rich languages); positions are unchanged.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import numbers
import time
from pathlib import Path

import numpy as np

from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from structpred import atomic_write, check_flag, check_n_jobs, check_whole
from structpred.io import (MAX_WORDS, check_digest, check_sentence_pairs, check_token_lists,
                          counted, note, token_form, with_digest)
from .._runtime import log as _log

__all__ = ["UnsupervisedAligner", "decode", "combine_votes", "training_text",
           "SYMMETRIZE", "DIRECTIONS", "DEFAULTS"]

SYMMETRIZE = ("intersect", "union", "grow-diag", "grow-diag-final-and")
DIRECTIONS = ("fwd", "bwd")
_SYM_TO_EXTERNAL = {"grow-diag": "grow-diag", "grow-diag-final-and": "grow-diag-final-and"}

#: defaults of the subcommand, chosen by the mean AER on the Hansards trial set and
#: Czech dev sentences 1-400 (``scripts/tune_unsupervised.py --select``; the figures are
#: in docs/results/alignment.md): lower-cased 4-character prefixes, the intersection
#: of the two directions at posterior 0.4; with eflomal, weight 1/4 and threshold 0.3
DEFAULTS = {"threshold": 0.4, "symmetrize": "intersect", "hmm_iterations": 5,
            "lowercase": True, "prefix": 4, "eflomal_weight": 0.25,
            "eflomal_threshold": 0.3}

_MODEL_FORMAT = 1


def combine_votes(post, links, weight):
    """``(1 - weight) * post + weight * L`` with ``L`` the 0/1 matrix of ``links``
    (``post``'s shape)."""
    if weight == 0.0 or links is None:
        return post
    L = np.zeros_like(post)
    for j, k in links:
        L[j, k] = 1.0
    return (1.0 - weight) * post + weight * L


def decode(post_fwd, post_bwd, threshold=0.5, symmetrize="intersect", direction=None):
    """Links of one pair from the two directions' link posteriors (``(m, n)`` arrays).

    Returns ``(links, score)``: the set of 0-based ``(j, k)`` and the ``(m, n)`` score
    matrix the links were chosen by (the direction's posterior; the minimum for the
    intersection, the maximum for the union, the mean for the grow-diag heuristics), for
    ``--soft`` output.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) \
            or not 0.0 < threshold <= 1.0:
        # NaN, 2 or 0 gave no links (or every link) without an error
        raise ValueError(f"threshold must lie in (0, 1], not {threshold!r}")
    if direction is not None:
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
        score = post_fwd if direction == "fwd" else post_bwd
        return _where(score >= threshold), score
    if symmetrize == "intersect":
        score = np.minimum(post_fwd, post_bwd)
        return _where(score >= threshold), score
    if symmetrize == "union":
        score = np.maximum(post_fwd, post_bwd)
        return _where(score >= threshold), score
    if symmetrize not in _SYM_TO_EXTERNAL:
        raise ValueError(f"symmetrize must be one of {SYMMETRIZE}, not {symmetrize!r}")
    from .symmetrize import symmetrize as _sym

    links = _sym(_where(post_fwd >= threshold), _where(post_bwd >= threshold),
                 _SYM_TO_EXTERNAL[symmetrize])
    return links, 0.5 * (post_fwd + post_bwd)


def _where(mask):
    return {(int(j), int(k)) for j, k in zip(*np.nonzero(mask))}


def _pair_key(s, t):
    return hashlib.blake2b((" ".join(s) + " ||| " + " ".join(t)).encode("utf-8"),
                           digest_size=16).digest()


def _pair_head(s, t):
    """The lengths and first words of a sentence pair (equal for equal pairs)."""
    return len(s), len(t), s[0] if len(s) else None, t[0] if len(t) else None


def training_text(pairs, extra_src=None, extra_tgt=None):
    """The training bitext: the extra unlabeled pairs, then every input pair that is not
    already among them (so the input is always included, and an input drawn from the
    bitext adds nothing; repeated input pairs stay repeated, as in any bitext).  Returns
    ``(src, tgt, index)`` with ``index[i]`` the position of input pair ``i`` in the
    training text."""
    src = list(extra_src or [])
    tgt = list(extra_tgt or [])
    if len(src) != len(tgt):
        raise ValueError(f"extra bitext: {len(src)} source but {len(tgt)} target sentences")
    # only the bitext pairs whose lengths and first words are those of an input pair can
    # be one: the others are not hashed
    heads = {_pair_head(s, t) for s, t in pairs}
    where = {}
    for i, (s, t) in enumerate(zip(src, tgt)):
        if _pair_head(s, t) in heads:
            where.setdefault(_pair_key(s, t), i)
    index = np.empty(len(pairs), dtype=np.int64)
    for i, (s, t) in enumerate(pairs):
        j = where.get(_pair_key(s, t))
        if j is None:
            j = len(src)
            src.append(list(s))
            tgt.append(list(t))
        index[i] = j
    return src, tgt, index


class UnsupervisedAligner(BaseEstimator):
    """HMM trained by agreement, decoded by posterior thresholds (module docstring).

    A scikit-learn estimator: :meth:`fit` on the sentences to align (and any more
    unlabeled text), :meth:`predict` their links.

    Parameters
    ----------
    hmm_iterations : int
        EM iterations of the agreement-trained HMM.
    ibm1_iterations, ibm2_iterations : int
        EM iterations of IBM Model 1, then Model 2 (each direction), the HMM's start.
    lowercase : bool
        Lower-case tokens for training and look-up.
    prefix : int
        Keep only the first ``prefix`` characters of each token (0: whole words).
    max_len : int
        Leave pairs with a longer side out of *training* (they are still aligned).
    threshold, symmetrize : float, str
        How :meth:`predict` decodes the posteriors (:func:`decode`).
    n_jobs : int or None
        Threads of the training (2: IBM 1/2's two directions, and the two halves of each
        HMM E-step, in two threads; ``None``: 1, as scikit-learn reads it).  Not a
        training option: the tables do not depend on it.
    verbose : bool

    Attributes
    ----------
    stats_ : AlignmentStatistics
        The trained tables (IBM Models 1/2 with the HMM attached).
    seconds_ : dict
        Training times (``{"cached": True, ...}`` when read from the cache).
    """

    def __init__(self, hmm_iterations=DEFAULTS["hmm_iterations"], ibm1_iterations=5,
                 ibm2_iterations=5, lowercase=DEFAULTS["lowercase"], prefix=DEFAULTS["prefix"],
                 max_len=80, threshold=DEFAULTS["threshold"],
                 symmetrize=DEFAULTS["symmetrize"], n_jobs=2, verbose=False):
        self.hmm_iterations = hmm_iterations
        self.ibm1_iterations = ibm1_iterations
        self.ibm2_iterations = ibm2_iterations
        self.lowercase = lowercase
        self.prefix = prefix
        self.max_len = max_len
        self.threshold = threshold
        self.symmetrize = symmetrize
        self.n_jobs = n_jobs
        self.verbose = verbose

    # ------------------------------------------------------------------ options
    def options(self):
        """The training options (the cache key's; saved with the model); ``ValueError``
        or ``TypeError`` for an option out of range (-1 iterations trained nothing, 2.5
        was cut to 2, a negative prefix kept whole words)."""
        for name, lo in (("hmm_iterations", 1), ("ibm1_iterations", 0),
                         ("ibm2_iterations", 0), ("prefix", 0), ("max_len", 1)):
            # max_len: the HMM's time grows with the cube of the length (MAX_WORDS)
            check_whole(name, getattr(self, name), lo, MAX_WORDS if name == "max_len"
                        else 10 ** 7)
        check_flag("verbose", self.verbose)
        check_n_jobs(self.n_jobs)   # -1: every CPU, -2: all but one
        return {"hmm_iterations": int(self.hmm_iterations),
                "ibm1_iterations": int(self.ibm1_iterations),
                "ibm2_iterations": int(self.ibm2_iterations),
                "lowercase": check_flag("lowercase", self.lowercase),
                "prefix": int(self.prefix), "max_len": int(self.max_len),
                "format": _MODEL_FORMAT}

    def normalize(self, tokens):
        """The tokens as the model sees them (as a file's reader gives them,
        :func:`structpred.io.token_form`; lower-cased, truncated)."""
        out = [token_form(w) for w in tokens]
        lowercase, prefix = self._word_options()
        if lowercase:
            out = [w.lower() for w in out]
        if prefix > 0:
            out = [w[:prefix] for w in out]
        return list(out)

    def _word_options(self):
        """``(lowercase, prefix)`` of the fitted tables (``set_params`` takes effect at the
        next fit: predict read the new prefix, looking up words the tables never held)."""
        kept = self.__dict__.get("_fitted_words")
        return kept if kept is not None else (bool(self.lowercase), int(self.prefix))

    def _normalize_word(self, word):
        """:meth:`normalize` of one word."""
        return self.normalize((word,))[0]

    def fingerprint(self, src, tgt):
        """Hash of the training text and the options (the model cache key)."""
        h = hashlib.blake2b(digest_size=12)
        h.update(json.dumps(self.options(), sort_keys=True).encode())
        h.update(f"{len(src)}".encode())
        pairs = zip(src, tgt)
        while True:     # the bytes of every pair in turn, hashed 4,096 pairs at once
            chunk = "".join(" ".join(s) + "\t" + " ".join(t) + "\n"
                            for s, t in itertools.islice(pairs, 4096))
            if not chunk:
                return h.hexdigest()
            h.update(chunk.encode("utf-8"))

    # ------------------------------------------------------------------ training
    def fit(self, src, tgt, cache_dir=None):
        """Train on tokenised sentences (lists of token lists).  With ``cache_dir`` the
        trained tables are read from / written to ``<cache_dir>/hmm-<fingerprint>.npz``."""
        from ..data.corpus import EncodedCorpus
        from ..stats.hmm import train_hmm
        from ..stats.ibm import restrict_pair_index
        from ..stats.statistics import AlignmentStatistics

        src = check_token_lists(src, "source sentence")
        tgt = check_token_lists(tgt, "target sentence")
        if len(src) != len(tgt):
            raise ValueError(f"{len(src)} source but {len(tgt)} target sentences")
        # tokens are strings (an int had no .lower()), as a file's reader gives them
        pairs = check_sentence_pairs(zip(src, tgt))
        src, tgt = [s for s, _ in pairs], [t for _, t in pairs]
        if not src:
            raise ValueError("nothing to train on")
        self.options()
        self._fitted_words = (bool(self.lowercase), int(self.prefix))
        path = None
        if cache_dir is not None:
            path = Path(cache_dir) / f"hmm-{self.fingerprint(src, tgt)}.npz"
            if path.exists():
                _log(self.verbose, f"unsupervised: reading the cached model {path}")
                self.stats_ = _cached_tables(path)
                self.seconds_ = {"cached": True, **_cached_seconds(Path(str(path) + ".json"))}
                return self
        t0, c0 = time.perf_counter(), time.process_time()
        # the normalised sentences' vocabularies and ids, each word type normalised once
        plain = self._fitted_words == (False, 0)
        corpus = EncodedCorpus.build(src, tgt, normalize=None if plain else self._normalize_word)
        ls, lt = corpus.src_lengths, corpus.tgt_lengths
        if not (ls.all() and lt.all()):
            raise ValueError("every sentence pair needs tokens on both sides")
        # IBM 1/2 on every pair (cheap, and the vocabulary then covers every pair to be
        # aligned); the HMM's EM, cubic in the length, leaves the longest pairs out
        keep = np.flatnonzero((ls <= int(self.max_len)) & (lt <= int(self.max_len)))
        if not len(keep):
            raise ValueError(f"no sentence pair with both sides of at most "
                             f"{counted(self.max_len, 'token')} to train the HMM on (max_len, "
                             f"--max-len: the longest pairs are left out of its training)")
        _log(self.verbose, f"statistics: {corpus}")
        # the HMM looks its pairs up in the pruned table where Model 1/2 looked them up
        stats, index = AlignmentStatistics.from_corpus(
            corpus, n_iter_model1=int(self.ibm1_iterations),
            n_iter_model2=int(self.ibm2_iterations), n_jobs=check_n_jobs(self.n_jobs),
            verbose=self.verbose, return_pair_index=True)
        t1 = time.perf_counter()
        train = corpus
        if len(keep) < len(corpus):
            train = corpus.subset(keep)
            index = restrict_pair_index(*index, kept_sentences=keep)
        del corpus
        hmm = train_hmm(stats, None, None, n_iter=int(self.hmm_iterations), corpus=train,
                        pair_index=index, agreement=True, n_jobs=check_n_jobs(self.n_jobs),
                        verbose=self.verbose)
        del index
        stats.with_hmm(hmm)
        self.stats_ = stats
        self.seconds_ = {"ibm": t1 - t0, "hmm": time.perf_counter() - t1,
                         "cpu": time.process_time() - c0}
        _log(self.verbose, f"unsupervised: {counted(len(keep), 'training pair')}, IBM 1/2 in "
                           f"{self.seconds_['ibm']:.0f}s, HMM (agreement, "
                           f"{self.hmm_iterations} it.) in {self.seconds_['hmm']:.0f}s")
        if path is not None:
            stats.save(path)
            with atomic_write(str(path) + ".json") as fh:
                json.dump(with_digest({"options": self.options(), "seconds": self.seconds_,
                                       "n_pairs": len(src), "n_train": len(keep)}), fh,
                          sort_keys=True)
        return self

    # ------------------------------------------------------------------ decoding
    def posteriors(self, src_tokens, tgt_tokens):
        """``(post_fwd, post_bwd)`` link posteriors, ``(m, n)`` each."""
        if getattr(self, "stats_", None) is None:
            raise NotFittedError("this UnsupervisedAligner is not trained: call fit first")
        return self.stats_.hmm.posteriors(self.stats_, self.normalize(src_tokens),
                                          self.normalize(tgt_tokens))

    def predict(self, pairs):
        """The links of each sentence pair, as :class:`~alignment.data.formats.Alignment`
        (sure = possible), decoded with :attr:`threshold` and :attr:`symmetrize`."""
        from ..data.formats import Alignment

        out = []
        for s, t in check_sentence_pairs(pairs, max_words=MAX_WORDS):
            links = frozenset((int(j), int(k)) for j, k in self.align_pair(
                s, t, self.threshold, self.symmetrize)[0])
            out.append(Alignment(links, links))
        return out

    def align_pair(self, src_tokens, tgt_tokens, threshold=DEFAULTS["threshold"],
                   symmetrize=DEFAULTS["symmetrize"], direction=None, eflomal_links=None,
                   eflomal_weight=DEFAULTS["eflomal_weight"]):
        """``(links, score)`` of one pair (see :func:`decode`); ``eflomal_links`` =
        ``(fwd, bwd)`` link sets mixed into the posteriors with ``eflomal_weight``.
        :meth:`predict` aligns many pairs with the estimator's decoding options."""
        pf, pb = self.posteriors(src_tokens, tgt_tokens)
        if eflomal_links is not None:
            pf = combine_votes(pf, eflomal_links[0], eflomal_weight)
            pb = combine_votes(pb, eflomal_links[1], eflomal_weight)
        return decode(pf, pb, threshold, symmetrize, direction)

    def save(self, path):
        """Write the trained tables (statistics with the HMM attached) as ``.npz``."""
        self.stats_.save(path)
        with atomic_write(str(path) + ".json") as fh:
            lowercase, prefix = self._word_options()   # those of the tables saved
            json.dump(with_digest({"options": {**self.options(), "lowercase": lowercase,
                                               "prefix": prefix},
                                   "seconds": getattr(self, "seconds_", {})}), fh, sort_keys=True)

    @classmethod
    def load(cls, path):
        from ..stats.statistics import AlignmentStatistics

        meta = Path(str(path) + ".json")
        with open(meta, encoding="utf-8") as fh:
            record = json.load(fh)
        opts = dict(check_digest(record, meta, "the options of an unsupervised aligner")
                    ["options"])
        if opts.pop("format", _MODEL_FORMAT) != _MODEL_FORMAT:
            raise ValueError(f"{path}: unsupported model format")
        model = cls(**opts)
        model.stats_ = AlignmentStatistics.load(path)
        return model


def _cached_tables(path):
    """The HMM tables of a file of the cache folder; a damaged file, or one without an
    HMM, is refused naming the file as a cache to delete (it said "retrain it or restore
    the file", or passed without an HMM to fail later)."""
    from structpred.io import DAMAGED_CACHE_HINT, FormatError, damaged_cache

    from ..stats.statistics import AlignmentStatistics

    try:
        stats = AlignmentStatistics.load(path)
    except FormatError as exc:
        raise damaged_cache(exc) from None
    if getattr(stats, "hmm", None) is None:
        raise FormatError(path, None, f"alignment statistics without HMM tables "
                                      f"({DAMAGED_CACHE_HINT})")
    return stats


def _cached_seconds(meta):
    """The training times recorded beside a cached model (``{}`` when its ``.json`` is
    missing or damaged: they are only reported, and a damaged file was a bare
    "Expecting value: line 1 column 1 (char 0)")."""
    try:
        with open(meta, encoding="utf-8") as fh:
            seconds = json.load(fh).get("seconds", {})
        return {k: float(v) for k, v in dict(seconds).items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError, AttributeError):
        note(f"{meta}: unreadable (a damaged cache file: its training times are not "
             "reported; delete it to silence this note)")
        return {}
