"""Fuzzing every alignment reader (issue 17): random bytes, random lines and randomly
truncated or damaged gzip and ``.npz`` files give a result or a
:class:`~structpred.FormatError` (which the command line turns into one line and exit
status 2), never any other exception."""

import gzip
import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment.data.corpus import load_bitext, read_tokenized
from alignment.aligners.linkfiles import ExternalAlignments
from alignment.data.formats import read_fast_align, read_naacl, read_parallel, read_pharaoh
from alignment.stats.hmm import HMMTables
from alignment.stats.interactions import InteractionStatistics
from alignment.model import MatchingAligner
from alignment.stats.statistics import AlignmentStatistics
from structpred import FormatError
from structpred.io._files import file_fingerprint, read_npz

FUZZ = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

PAIRS = [(["a", "b", "c"], ["x", "y"]), (["d"], ["z", "w", "v"]), (["e", "f"], ["u"])]

#: characters that reach the parsers' branches: digits, link and field separators,
#: labels, whitespace, a non-ASCII letter and a control character
ALPHABET = "0123456789-?|: SPxé\t\x00\r"
lines = st.lists(st.text(alphabet=ALPHABET, max_size=24), max_size=6)


def text_of(ls):
    return "\n".join(ls).encode("utf-8")


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def only_format_errors(func, *args, **kw):
    """Call ``func``; a :class:`FormatError` is a fine answer, anything else fails."""
    try:
        return func(*args, **kw)
    except FormatError as exc:
        assert str(exc)          # located and readable
        return None


def all_text_readers(path, other):
    """Every reader of text files, on ``path`` (and ``other`` as the second side)."""
    only_format_errors(read_parallel, path, other)
    only_format_errors(read_parallel, other, path)
    only_format_errors(read_fast_align, path)
    only_format_errors(read_pharaoh, path)
    only_format_errors(read_pharaoh, path, PAIRS)
    only_format_errors(read_naacl, path)
    only_format_errors(read_naacl, path, PAIRS)
    only_format_errors(read_naacl, path, None, 3)
    only_format_errors(load_bitext, path, other, max_len=3, max_ratio=2.0)
    only_format_errors(read_tokenized, path)
    only_format_errors(ExternalAlignments.from_files, [s for s, _ in PAIRS],
                       [t for _, t in PAIRS], {"a": path})
    only_format_errors(ExternalAlignments.load, path, [s for s, _ in PAIRS],
                       [t for _, t in PAIRS])
    only_format_errors(ExternalAlignments.read_key, path)
    only_format_errors(file_fingerprint, path)


@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes(d, data):
    (d / "bytes.txt").write_bytes(data)
    (d / "bytes.gz").write_bytes(data)
    (d / "other.txt").write_bytes(b"a b\nc\nd e f\n")
    all_text_readers(d / "bytes.txt", d / "other.txt")
    all_text_readers(d / "bytes.gz", d / "other.txt")


@FUZZ
@given(ls=lines, other=lines)
def test_random_lines(d, ls, other):
    (d / "lines.txt").write_bytes(text_of(ls))
    (d / "lines2.txt").write_bytes(text_of(other))
    all_text_readers(d / "lines.txt", d / "lines2.txt")


@FUZZ
@given(ls=st.lists(st.sampled_from(["0-0 1-1", "0?1 2-0", "1 1 1 S", "2 3 1 P 0.5",
                                    "a b ||| x y", "a\tb", "", "3 0 0", "#structpred-external-links 2 {}",
                                    "0-0\t1-1", "fwd"]), max_size=8),
       cut=st.integers(0, 10_000))
def test_random_gzip_truncation(d, ls, cut):
    """Plausible lines, gzipped and cut anywhere: read, or a located FormatError."""
    data = gzip.compress(text_of(ls * 20))
    (d / "cut.gz").write_bytes(data[: cut % (len(data) + 1)])
    (d / "ok.txt").write_bytes(b"a b c\nd\ne f\n")
    all_text_readers(d / "cut.gz", d / "ok.txt")


@pytest.fixture(scope="module")
def npz_files(d, small_stats, hansards):
    """Real files of each kind: statistics (with an HMM), HMM tables, interaction
    statistics and a model."""
    from alignment.stats.hmm import train_hmm

    pairs = hansards.test_pairs[:20]
    stats = small_stats.__class__.from_arrays(small_stats.to_arrays())
    hmm = train_hmm(stats, [s for s, _ in pairs], [t for _, t in pairs], n_iter=1)
    stats.with_hmm(hmm)
    stats.save(d / "stats.npz")
    hmm.save(d / "hmm.npz")
    inter = InteractionStatistics.from_sentences(stats, [s for s, _ in pairs], [t for _, t in pairs])
    inter.save(d / "inter.npz")
    model = MatchingAligner(n_iter=2, validate_every=2).fit(pairs[:5], hansards.test_gold[:5],
                                                            small_stats)
    model.save(d / "model.npz")
    return _Files({name: (d / f"{name}.npz").read_bytes()
                   for name in ("stats", "hmm", "inter", "model")})


class _Files(dict):
    def __repr__(self):            # hypothesis prints its arguments: not megabytes of them
        return "<npz files>"


NPZ_LOADERS = [AlignmentStatistics.load, HMMTables.load, InteractionStatistics.load,
               MatchingAligner.load, read_npz]


def all_npz_readers(path):
    for load in NPZ_LOADERS:
        only_format_errors(load, path)


@FUZZ
@given(data=st.binary(max_size=300), zip_magic=st.booleans())
def test_random_bytes_as_npz(d, data, zip_magic):
    (d / "random.npz").write_bytes((b"PK\x03\x04" if zip_magic else b"") + data)
    all_npz_readers(d / "random.npz")


@FUZZ
@given(kind=st.sampled_from(["stats", "hmm", "inter", "model"]), cut=st.integers(0, 10 ** 7),
       flip=st.none() | st.tuples(st.integers(0, 10 ** 7), st.integers(1, 255)))
def test_truncated_or_damaged_npz(d, npz_files, kind, cut, flip):
    data = bytearray(npz_files[kind])
    if flip is None:
        data = data[: cut % len(data)]
    else:
        data[flip[0] % len(data)] ^= flip[1]
    (d / "damaged.npz").write_bytes(bytes(data))
    all_npz_readers(d / "damaged.npz")


def test_each_loader_refuses_the_other_kinds(d, npz_files):
    """A file of one kind given where another is expected: one FormatError."""
    loaders = {"stats": AlignmentStatistics.load, "hmm": HMMTables.load,
               "inter": InteractionStatistics.load, "model": MatchingAligner.load}
    for kind, data in npz_files.items():
        (d / f"{kind}.npz").write_bytes(data)
        for other, load in loaders.items():
            if other == kind:
                assert load(d / f"{kind}.npz") is not None
            else:
                with pytest.raises(FormatError):
                    load(d / f"{kind}.npz")


def test_object_arrays_are_never_unpickled(d):
    buf = io.BytesIO()
    np.savez(buf, meta=np.array([{"x": 1}], dtype=object), coef=np.zeros(2))
    (d / "pickled.npz").write_bytes(buf.getvalue())
    for load in NPZ_LOADERS:
        with pytest.raises(FormatError, match="allow_pickle|not"):
            load(d / "pickled.npz")


def test_a_folder_and_a_missing_file(d):
    for load in NPZ_LOADERS:
        with pytest.raises(FormatError, match="folder"):
            load(d)
        with pytest.raises(FileNotFoundError):
            load(Path(d) / "missing.npz")
    with pytest.raises(FormatError, match="folder"):
        read_parallel(d, d)
