"""What the ``align`` subcommands share: reading inputs and gold, checking paths and
caches, building the statistics and the other aligners' links, the summary line."""

from __future__ import annotations

import os
import re
from pathlib import Path

from structpred import FormatError
from structpred.cli import UserError
from structpred.cli import at_most, check_output, positive_int
from structpred.io import MAX_WORDS, counted, missing_reason, note

from ..training import C_NEG_GRID   # the c- grid of the pipeline

__all__ = ["C_NEG_GRID"]


def _summary(msg):
    """A line of the result summary: on stderr, even with ``-q``."""
    note(msg)


def _gold_format(path, fmt):
    """``fmt``, or guessed from the file name: ``*.naacl[.gz]`` (any case) is NAACL, anything else Pharaoh."""
    return fmt or ("naacl" if ".naacl" in Path(str(path)).name.lower() else "pharaoh")


def _read_gold(path, fmt, pairs, n_sentences=None, cover=None, allow_unaligned=False,
               what="sentences"):
    """Gold alignments, checked for their meaning as well as their syntax: the index base
    fits the format (:func:`~alignment.data.formats.check_index_base`) and, unless
    ``allow_unaligned``, the gold covers each of the first ``cover`` sentences (default
    all): a sentence the NAACL file does not mention, or an empty Pharaoh line, is refused
    rather than read as a sentence without links."""
    from alignment.data.formats import (check_gold_coverage, check_index_base, read_naacl,
                                        read_pharaoh)

    fmt = _gold_format(path, fmt)
    if fmt == "naacl":
        seen = set()
        gold = read_naacl(path, pairs, n_sentences=n_sentences if pairs is None else None,
                          seen=seen)
    else:
        gold = read_pharaoh(path, pairs)
        seen = {i for i, a in enumerate(gold) if a.possible}
    check_index_base(path, gold, pairs, fmt)
    _warn_predicted_gold(path)
    if not allow_unaligned and seen:   # gold without any link: the caller says so
        n = len(gold) if cover is None else min(cover, len(gold))
        check_gold_coverage(path, seen, n, what)
    return gold


def _warn_predicted_gold(path):
    """One warning when the gold file ``path`` is links that ``align predict`` or ``align
    unsupervised`` wrote (:func:`~alignment.data.formats.written_by`): a score against
    them, or a model trained on them, was given as if they were gold, with no word."""
    import warnings

    from alignment.data.formats import WRITTEN_BY, written_by

    command = written_by(path)
    if command:
        warnings.warn(f"{path}: these gold links are predictions written by '{command}' (the "
                      f"file's extended attribute {WRITTEN_BY}): a score against them, or a "
                      "model trained on them, measures agreement with that aligner, not "
                      "accuracy")


def _check_sure_links(path, gold, why):
    """:class:`UserError` naming ``path`` when its ``gold`` holds no link, or only possible
    ones: recall and AER are undefined against it (``aer``, validation), and a model trained
    on it has an empty target (every weight learns to predict no link)."""
    if not any(g.possible for g in gold):
        raise UserError(f"{path}: no gold links at all: {why}")
    if not any(g.sure for g in gold):
        raise UserError(f"{path}: no sure gold links (only possible ones): {why} "
                        "(unlabelled NAACL links and Pharaoh 'i-j' links are sure)")


#: argparse ``type=`` of --max-length (``align unsupervised --max-len``): 1 to
#: :data:`structpred.io.MAX_WORDS`.  The HMM trained on the bitext takes time in the cube of a
#: pair's length: ``--max-length 100000`` let a bitext line of 2,454 words in, and ``align
#: train`` ran for more than 5 minutes on 20 short pairs and that one.
max_length = at_most(positive_int, MAX_WORDS, "the HMM's time grows with the cube of a pair's "
                     "length")


def _read_pairs(src, tgt, src_opt="--src", tgt_opt="--tgt", segmented=True):
    """Sentence pairs of two files; none at all is an error, and so (with ``segmented``)
    is a side of unsegmented Chinese, Japanese, Thai... text (:func:`_check_segmented`)."""
    from alignment.data.formats import read_parallel

    if bool(src) != bool(tgt):
        raise UserError(f"{src_opt} and {tgt_opt} go together: give both")
    pairs = read_parallel(src, tgt)
    if not pairs:
        raise UserError(f"{src}: no sentences (the file is empty)")
    if segmented:
        _check_segmented(pairs, src, tgt)
    else:   # aer's sentences: a 'src ||| tgt' file fits every link of the source side
        for side, path in ((0, src), (1, tgt)):
            _check_one_side([p[side] for p in pairs], path)
    return pairs


#: bitext pairs (``--bitext-src``/``--bitext-tgt``) looked at by :func:`_check_segmented`
SEGMENTED_SAMPLE = 2000


def _load_extra_bitext(args):
    """``align unsupervised``'s ``--bitext-src``/``--bitext-tgt``
    (:func:`alignment.data.corpus.load_bitext`), its first pairs checked for unsegmented
    text."""
    from alignment.data.corpus import load_bitext

    bt = load_bitext(args.bitext_src, args.bitext_tgt, max_pairs=args.bitext_pairs,
                     protect_first=0)
    _check_segmented(list(zip(bt.src[:SEGMENTED_SAMPLE], bt.tgt[:SEGMENTED_SAMPLE])),
                     args.bitext_src, args.bitext_tgt)
    return bt


def _check_segmented(pairs, src, tgt=None):
    """Refuse sentence pairs (read from ``src`` and ``tgt``, or from one ``src ||| tgt``
    file ``src``) a side of which is text of a script written without spaces, not split
    into words (:func:`alignment.data.formats.check_segmented`)."""
    from alignment.data.formats import check_segmented

    for side, path in ((0, src), (1, tgt or src)):
        what = "" if tgt else ("source side: ", "target side: ")[side]
        check_segmented([p[side] for p in pairs], path, what)
        if tgt:
            _check_one_side([p[side] for p in pairs], path)


def _check_one_side(sentences, path):
    """Refuse a file given for one side (``--src``, ``--tgt``, ``--bitext-src``, ...) whose
    lines (90 % or more) hold the token ``|||``: a fast_align ``source ||| target`` file, both
    sides on each line.  It was aligned (or trained on) with exit status 0, every word of
    both languages and the ``|||`` a word of one side.  So is a tab-separated bitext
    (:func:`alignment.data.layouts.check_tab_pairs`)."""
    from alignment.data.layouts import check_tab_pairs

    check_tab_pairs(path)
    with_bars = [i for i, s in enumerate(sentences, 1) if "|||" in s]
    if sentences and len(with_bars) >= 0.9 * len(sentences):
        raise FormatError(path, None, f"{len(with_bars)} of {counted(len(sentences), 'line')} "
                          f"hold a '|||' token (line {with_bars[0]}): a fast_align 'source ||| "
                          "target' file, not one side of the sentence pairs; give it as -i FILE "
                          "(align predict, align unsupervised) or split it into a source and a "
                          "target file")
    for what, fits in _LINK_FILES:
        lines = [i for i, s in enumerate(sentences, 1) if s and fits(s)]
        if sentences and len(lines) >= 0.9 * len(sentences):
            raise FormatError(path, None, f"{len(lines)} of {counted(len(sentences), 'line')} "
                              f"hold {what} only (line {lines[0]}): a file of alignment links, "
                              "not one side of the sentence pairs (a gold or predicted links "
                              "file given for a file of sentences?)")


_PHARAOH_LINK = re.compile(r"[0-9]{1,9}[-?p][0-9]{1,9}")
_NAACL_LINE = re.compile(r"[0-9]{1,9} [0-9]{1,9} [0-9]{1,9}( [SP])?( [0-9.]+)?")
#: the files of links that :func:`_check_one_side` refuses as a side of sentence pairs:
#: Pharaoh lines (``0-0 1-2``, ``2?3``) and NAACL ones (``1 3 4 S``)
_LINK_FILES = (("Pharaoh links ('i-j')",
                lambda s: all(_PHARAOH_LINK.fullmatch(w) for w in s)),
               ("a NAACL link ('sent src tgt [S|P]')",
                lambda s: bool(_NAACL_LINE.fullmatch(" ".join(s)))))


def _is_file(path):
    return path is not None and str(path) != "-" and Path(path).is_file()


def _inputs(args, *names):
    """``(option, path)`` of the given argparse attributes (for :func:`check_output`)."""
    out = []
    for name in names:
        value = getattr(args, name, None)
        if value is None:
            continue
        for v in (value if isinstance(value, list) else [value]):
            if isinstance(v, str) and "=" in v and name.endswith("external"):
                v = v.partition("=")[2]
            out.append(("--" + name.replace("_", "-"), v))
    return out


def _check_inputs(inputs):
    """Every input file exists and is a file, before anything is read or computed; at most
    one reads standard input (``--src - --tgt -`` read alternate lines of one stream, and
    were refused as "line counts differ")."""
    from structpred.cli import check_stdin

    check_stdin(**{option: path for option, path in inputs if str(path) == "-"})
    for option, path in inputs:
        if path is None or str(path) == "-":
            continue
        if Path(path).is_dir():
            raise UserError(f"{path}: is a folder, not a file ({option})")
        if not Path(path).exists():
            raise UserError(f"{path}: {missing_reason(path) or 'not a file'} ({option})")
    given = dict(inputs)
    for a, b in _SIDES:
        if given.get(a) and given.get(b) and _same(given[a], given[b]):
            raise UserError(f"{given[b]}: {b} is the same file as {a}; the two sides of "
                            f"sentence pairs are two files")


#: options that name the two sides of one set of sentence pairs
_SIDES = (("--src", "--tgt"), ("--valid-src", "--valid-tgt"), ("--bitext-src", "--bitext-tgt"))


def _check_cache_path(path, option, inputs):
    """A cache given as a file that does not exist yet will be written: check it now."""
    if path is None:
        return
    from structpred.io import is_cache_folder

    if str(path) == "-":
        raise UserError(f"{option}: a cache cannot be standard input or output")
    if is_cache_folder(path):
        folder = Path(path)
        if folder.exists() and not _writable(folder):
            raise UserError(f"{path}: cannot write {option}: folder is not writable")
        if not folder.exists():
            probe = folder.resolve()
            while not probe.exists():
                probe = probe.parent
            if not probe.is_dir() or not _writable(probe):
                raise UserError(f"{path}: cannot create the {option} folder ({probe} is not "
                                "a writable folder)")
        return
    if Path(path).exists():
        for name, other in inputs:
            if other is not None and _same(path, other):
                raise UserError(f"{path}: {option} is also given as {name}")
        return
    check_output(path, option, inputs)


def _writable(folder):
    """Whether files can be created in the existing ``folder`` (permission bits, then a
    real try: a process run as root passes the bits on ``/proc``)."""
    from structpred.io import folder_refusal

    return os.access(folder, os.W_OK | os.X_OK) and not folder_refusal(folder)


def _same(a, b):
    from structpred.cli import same_file

    return same_file(a, b)


def _bitext(args):
    """Check the bitext options (both or neither; files, not stdin; --bitext-pairs in range)."""
    src, tgt = args.bitext_src, args.bitext_tgt
    if bool(src) != bool(tgt):
        raise UserError("--bitext-src and --bitext-tgt go together: give both")
    if not src:
        if args.bitext_pairs is not None:
            raise UserError("--bitext-pairs needs --bitext-src and --bitext-tgt")
        return False
    for opt, path in (("--bitext-src", src), ("--bitext-tgt", tgt)):
        if str(path) == "-":
            raise UserError(f"{opt}: the bitext cannot be read from standard input "
                            "(it is read more than once)")
        if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
            # a process substitution '<(...)' or a FIFO: read once for its fingerprint, it
            # was empty for the statistics ("empty: no sentence pairs")
            raise UserError(f"{path}: {opt} is a pipe or device, not a file: the bitext is "
                            "read more than once; give a file")
    if args.bitext_pairs is not None:
        from structpred.io import file_fingerprint

        n = min(file_fingerprint(src)["lines"], file_fingerprint(tgt)["lines"])
        if args.bitext_pairs > n:
            raise UserError(f"--bitext-pairs {args.bitext_pairs}: out of range, the bitext "
                            f"{src} has {counted(n, 'pair')}")
    return True


def _statistics(args, have_bitext, executor=None, lines=None):
    from alignment.stats.statistics import AlignmentStatistics

    stats = AlignmentStatistics.load_or_fit(
        args.stats, args.bitext_src if have_bitext else None,
        args.bitext_tgt if have_bitext else None, max_pairs=args.bitext_pairs,
        verbose=not args.quiet, max_len=args.max_length, agreement=args.ibm_agreement,
        hmm=args.hmm, hmm_agreement=args.hmm_agreement, executor=executor, lines=lines)
    if args.hmm_lexicon:
        stats = stats.with_lexicon(stats.hmm)
    return stats


def _feature_list(text, option, known):
    """Comma-separated feature names of ``option``; an unknown one is a UserError."""
    names = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise UserError(f"{option}: unknown edge features {', '.join(unknown)} "
                        f"(known: {', '.join(known)})")
    return names


def _interaction_statistics(args, stats, have_bitext, lines=None):
    from alignment.stats.interactions import InteractionStatistics

    cache = args.interaction_stats
    return InteractionStatistics.load_or_fit(cache, stats, args.bitext_src if have_bitext else None,
                                             args.bitext_tgt if have_bitext else None,
                                             max_pairs=args.bitext_pairs, verbose=not args.quiet,
                                             max_len=args.max_length, lines=lines)


def _external_specs(specs, option="--external"):
    """``NAME=FILE`` options -> ``{name: file}``."""
    files = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise UserError(f"{option} expects NAME=FILE, got {spec!r}")
        if name in files:
            raise UserError(f"{option}: {name} given twice")
        files[name] = path
    return files


def _external(specs, pairs, into=None, option="--external"):
    """``NAME=FILE`` options -> :class:`~alignment.aligners.linkfiles.ExternalAlignments` for ``pairs``."""
    from alignment.aligners.linkfiles import ExternalAlignments

    files = _external_specs(specs, option)
    ext = ExternalAlignments.from_files([s for s, _ in pairs], [t for _, t in pairs], files)
    if into is None:
        return ext
    if ext.names != into.names:
        raise UserError(f"{option}: link sets {', '.join(ext.names)} differ from the training "
                        f"ones ({', '.join(into.names)})")
    into._table.update(ext._table)
    return into


def _within_length(pairs, src, tgt=None):
    """``pairs`` (read from ``src`` and ``tgt``, or from one ``src ||| tgt`` file ``src``),
    one at a time; a side longer than :data:`structpred.io.MAX_WORDS` words is refused with
    its file and line (a 5,000-word line ran for hours, and Ctrl-C could not stop it)."""
    from structpred.io import MAX_WORDS

    for lineno, (s, t) in enumerate(pairs, 1):
        for side, path in ((s, src), (t, tgt or src)):
            if len(side) > MAX_WORDS:
                what = "" if tgt else ("source side: " if side is s else "target side: ")
                raise FormatError(str(path), lineno, f"{what}{len(side):,} words; sentences of "
                                  f"at most {MAX_WORDS:,} words are aligned (the time grows "
                                  "with the cube of the length: split the line)")
        yield s, t


def _input_pairs(args):
    """The sentence pairs to align, one at a time (read as they are needed)."""
    from alignment.data.formats import iter_fast_align, iter_parallel

    if args.input:
        return args.input, _within_length(iter_fast_align(args.input), args.input)
    return args.src, _within_length(iter_parallel(args.src, args.tgt), args.src, args.tgt)


#: sentence pairs looked at by :func:`_check_direction`
DIRECTION_SAMPLE = 200


def _check_direction(pairs, stats, src_opt="--src", tgt_opt="--tgt"):
    """Refuse sentence pairs whose sides look swapped against the model's statistics.

    Counts, over the first :data:`DIRECTION_SAMPLE` pairs, the tokens that only the
    model's source vocabulary knows and those that only its target vocabulary knows
    (words both know, such as punctuation, numbers and names, say nothing).  When most
    such tokens of ``src_opt`` are target words and most of ``tgt_opt`` are source words,
    the sides are swapped: the model would align them, badly, with exit status 0.
    """
    sv, tv = stats.src_vocab, stats.tgt_vocab

    def only(side):
        n_src = n_tgt = 0
        for pair in pairs[:DIRECTION_SAMPLE]:
            for w in pair[side]:
                a, b = w in sv, w in tv
                n_src += a and not b
                n_tgt += b and not a
        return n_src, n_tgt

    s_src, s_tgt = only(0)
    t_src, t_tgt = only(1)
    if s_tgt >= 10 and t_src >= 10 and s_tgt > 3 * s_src and t_src > 3 * t_tgt:
        share = 100.0 * s_tgt / (s_src + s_tgt)
        raise UserError(f"{src_opt} and {tgt_opt} look swapped: {share:.0f}% of the {src_opt} "
                        "words that only one side of the model knows are target-side words; "
                        f"give the model's source language as {src_opt}")


def _case_only_unknown(sentences, vocab):
    """``(tokens, unknown)``: the number of tokens of ``sentences`` and those unknown to
    ``vocab`` that it knows in another case."""
    lowered, n, unknown = None, 0, []
    for sentence in sentences:
        for w in sentence:
            n += 1
            if w in vocab:
                continue
            if lowered is None:
                lowered = {t.lower() for t in vocab.tokens[2:]}
            if w.lower() in lowered:
                unknown.append(w)
    return n, unknown


def _check_case(pairs, stats, src_opt="--src", tgt_opt="--tgt"):
    """Warn when a side of ``pairs`` (its first :data:`DIRECTION_SAMPLE`) is written in
    another case than the model's bitext: the statistics (Dice, IBM, HMM lexicons) are
    case-sensitive, so a word known only in another case (``The`` to a lower-cased bitext)
    loses their features.  Whether the two sides are in the same case does not matter (the
    word-form features compare lower-cased words), so only this is looked at."""
    import warnings

    for side, opt, vocab in ((0, src_opt, stats.src_vocab), (1, tgt_opt, stats.tgt_vocab)):
        n, unknown = _case_only_unknown([p[side] for p in pairs[:DIRECTION_SAMPLE]], vocab)
        if len(unknown) < 5 or len(unknown) < 0.05 * n:
            continue
        lower = not any(c.isupper() for t in vocab.tokens[2:2002] for c in t)
        examples = ", ".join(repr(w) for w in list(dict.fromkeys(unknown))[:4])
        how = (f"the model's bitext is lower-cased: lower-case {opt}" if lower
               else f"write {opt} in the case of the model's bitext")
        warnings.warn(f"{opt}: {100 * len(unknown) / n:.0f}% of its words ({len(unknown)} of "
                      f"{n}: {examples}, ...) are unknown to the model only by their "
                      f"case, and lose the bitext statistics' features; {how}")
    _check_glued(pairs, stats, src_opt, tgt_opt)


_GLUED = re.compile(r"""(.*?\w)([.,;:!?"')\]]+)""")


def _glued_words(sentence, vocab):
    """The tokens of ``sentence`` unknown to ``vocab`` that are a word it knows with
    punctuation it knows glued after it (``complex,`` where it knows ``complex`` and ``,``)."""
    out = []
    for w in sentence:
        m = None if w in vocab else _GLUED.fullmatch(w)
        if m and m.group(1) in vocab and all(c in vocab for c in m.group(2)):
            out.append(w)
    return out


def _check_glued(pairs, stats, src_opt="--src", tgt_opt="--tgt"):
    """Warn when a tenth or more of the sentences of a side of ``pairs`` (its first
    :data:`DIRECTION_SAMPLE`; 5 such tokens at least) hold a word with punctuation glued on
    that the model's tokenised bitext knows apart (``confusing.`` for ``confusing`` ``.``):
    untokenised text lost the statistics' features of those words, and its links are of
    other positions than those of tokenised gold (aligned with exit status 0, no word)."""
    import warnings

    for side, opt, vocab in ((0, src_opt, stats.src_vocab), (1, tgt_opt, stats.tgt_vocab)):
        found = [_glued_words(p[side], vocab) for p in pairs[:DIRECTION_SAMPLE]]
        words = [w for ws in found for w in ws]
        if len(words) < 5 or sum(map(bool, found)) < 0.1 * len(found):
            continue
        examples = ", ".join(repr(w) for w in list(dict.fromkeys(words))[:4])
        warnings.warn(f"{opt}: {sum(map(bool, found))} of its {len(found)} sentences hold words "
                      f"with punctuation glued on ({examples}, ...) that the model's bitext "
                      f"holds apart: is {opt} untokenised? tokenise it as the bitext is (the "
                      "punctuation a token of its own), or those words lose the bitext "
                      "statistics' features and the links' positions are not those of "
                      "tokenised text")


#: share of a side's words unknown to the model's statistics above which
#: :func:`_check_unknown` warns: a held-out text of the bitext's language pair has 8 to 19 %
#: (Czech news against a bitext of 3,000 pairs), one of another pair 64 to 82 %
UNKNOWN_SHARE = 0.5


def _check_unknown(pairs, stats, src_opt="--src", tgt_opt="--tgt"):
    """Warn when half or more of the words of a side of ``pairs`` (its first
    :data:`DIRECTION_SAMPLE`) are unknown to the model's statistics: a model of another
    language pair (a Czech model given Romanian) aligned them by word forms and positions
    alone, with exit status 0 and no word (recall 26 % where the statistics know the words:
    86 %).  Words unknown only by their case are :func:`_check_case`'s."""
    import warnings

    for side, opt, vocab in ((0, src_opt, stats.src_vocab), (1, tgt_opt, stats.tgt_vocab)):
        words = [w for p in pairs[:DIRECTION_SAMPLE] for w in p[side]]
        unknown = [w for w in words if w not in vocab]
        if len(unknown) < 10 or len(unknown) < UNKNOWN_SHARE * len(words):
            continue
        lowered = {t.lower() for t in vocab.tokens[2:]}
        unknown = [w for w in unknown if w.lower() not in lowered]   # not only by their case
        if len(unknown) < 10 or len(unknown) < UNKNOWN_SHARE * len(words):
            continue
        examples = ", ".join(repr(w) for w in list(dict.fromkeys(unknown))[:4])
        warnings.warn(f"{opt}: {100 * len(unknown) / len(words):.0f}% of its words ({examples}, "
                      "...) are unknown to the model's bitext statistics: a model of another "
                      "language pair or tokenisation, or of a small bitext? Their links rest on "
                      "word forms and positions only")


class _FromEnvironment(str):
    """A default taken from an environment variable, which it names in messages."""

    def __new__(cls, value, variable):
        obj = super().__new__(cls, value)
        obj.variable = variable
        return obj


def _cache_default():
    """``--cache-dir``'s default: ``$STRUCTPRED_CACHE`` (named as such in messages) or
    ``.cache``."""
    value = os.environ.get("STRUCTPRED_CACHE")
    return _FromEnvironment(value, "STRUCTPRED_CACHE") if value else ".cache"


def _option_name(value, option):
    """``option``, or the environment variable ``value`` came from (``$STRUCTPRED_CACHE``
    rather than ``--cache-dir`` when the user never gave ``--cache-dir``)."""
    variable = getattr(value, "variable", None)
    return f"${variable} (the default of {option})" if variable else option


def _read_input(args):
    """The sentence pairs of ``align unsupervised`` (``-i`` or ``--src``/``--tgt``)."""
    from alignment.data.formats import read_fast_align, read_parallel

    if args.input and (args.src or args.tgt):
        raise UserError("give either -i FILE or --src/--tgt, not both")
    if args.input:
        pairs = list(_within_length(read_fast_align(args.input), args.input))
    elif args.src and args.tgt:
        pairs = list(_within_length(read_parallel(args.src, args.tgt), args.src, args.tgt))
    else:
        raise UserError("give --src and --tgt, or -i FILE ('src ||| tgt' lines; - for stdin)")
    if not pairs:
        raise UserError(f"{args.input or args.src}: no sentence pairs")
    _check_segmented(pairs, args.input or args.src, None if args.input else args.tgt)
    return pairs


#: bytes per token pair (source word x target word of a sentence pair) that the bitext's
#: statistics keep at the least: the pair index (int32) and the EM's expected counts and
#: posteriors (float32 pairs); the 1.13M-pair Hansards (603M token pairs) peaked at 7.3 GB
BYTES_PER_TOKEN_PAIR = 12
#: ... and what ``align train`` with its default sources takes at its peak, our Bayesian
#: aligner's pair ids and link marginals of both directions (int32 and float32 a cell) held
#: beside the statistics and our HMM: on the 231,648 Hansards pairs (128.6M token pairs
#: within 80 tokens a side) the command peaked at 4.97 GB resident, 38.6 bytes per token
#: pair (``/usr/bin/time -v``, docs/results/alignment.md, "Memory")
BYTES_PER_TOKEN_PAIR_WITH_BAYES = 38


def check_bitext_memory(bt, limit, option, path, bayes=False):
    """Refuse, before the statistics allocate it, a bitext whose token pairs (the sum over
    its pairs of source x target words, within ``limit`` tokens a side) need more memory than the
    machine has: at :data:`BYTES_PER_TOKEN_PAIR` bytes each (a floor) for the statistics,
    at :data:`BYTES_PER_TOKEN_PAIR_WITH_BAYES` (measured) when our Bayesian aligner
    (``bayes``) runs on the bitext too (the process was killed, or swapped for hours, deep
    in the statistics or the sampler)."""
    from structpred import physical_memory

    limit = int(limit)
    cells = sum(len(s) * len(t) for s, t in bt if len(s) <= limit and len(t) <= limit)
    per = BYTES_PER_TOKEN_PAIR_WITH_BAYES if bayes else BYTES_PER_TOKEN_PAIR
    need, have = cells * per, physical_memory()
    if have is not None and need > have:
        what = ("its statistics and our Bayesian aligner need about" if bayes
                else "its statistics need at least")
        raise UserError(f"{path}: the bitext has {cells:.3g} token pairs (the sum "
                        f"over its pairs of source x target words within {option} "
                        f"{limit}); {what} {need / 1e9:.3g} GB ({per} bytes each), more "
                        f"than this machine's {have / 1e9:.3g} GB: give fewer pairs "
                        f"(--bitext-pairs), a lower {option}, or "
                        + ("--aligners none (no Bayesian run) and " if bayes else "")
                        + "a Dask cluster (--workers, --scheduler)")
