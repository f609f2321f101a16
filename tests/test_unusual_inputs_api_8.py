"""Unusual inputs of the Python API, eighth sweep (issue 28, docs/errors.md), by class:

- sizes: ``SequenceTagger.score(X, y)`` with fewer label lists than sentences scored the
  sentences ``zip`` reached (100 % on 2 of 10 sentences): now a ``ValueError``;
- ``predict`` before ``fit``: ``LDA.transform`` raised a ``RuntimeError`` where every
  other estimator raises scikit-learn's ``NotFittedError``;
- sizes: ``MRFSegmenter(valid_fraction=0.9)`` on a few images held every one out and said
  "no training data";
- encodings and scripts (the tagger's features): a word spelled with a combining accent
  (NFD) and precomposed (NFC) got two sets of features, and the word shape of a word of
  Cyrillic, Greek or accented capitals was the word itself (``Москва``, ``Über`` -> ``Üx``);
- formats of other tools (point files): values separated by commas (``x,y,z,label``, a CSV
  export) were one column ("got 1 columns"); a decimal comma was only a "non-numeric value";
  counts of one ("1 points have NaN ...").
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

X = [[("the",), ("cat",)], [("a",), ("dog",)]] * 5
Y = [["D", "N"], ["D", "N"]] * 5


@pytest.fixture(scope="module")
def tagger():
    from sequence.model import SequenceTagger

    return SequenceTagger(n_iter=2).fit(X, Y)


@SETTINGS
@given(n=st.integers(0, 9))
def test_tagger_score_with_too_few_label_lists_is_refused(tagger, n):
    with pytest.raises(ValueError, match=f"10 sentences but {n} label lists"):
        tagger.score(X, Y[:n])


def test_tagger_score_with_a_short_label_list_is_refused(tagger):
    with pytest.raises(ValueError, match="sentence 3 has 2 tokens but 1 labels"):
        tagger.score(X, Y[:3] + [["D"]] + Y[4:])


def test_tagger_score_of_matching_labels(tagger):
    assert tagger.score(X, Y) == pytest.approx(1.0)


def test_lda_transform_before_fit_is_not_fitted_error():
    from topics import LDA

    with pytest.raises(NotFittedError, match="this LDA is not fitted yet"):
        LDA(n_topics=2).transform(["the cat sat"])


def test_segmenter_validation_fraction_holding_out_everything_is_named():
    import numpy as np

    from segmentation.model import MRFSegmenter

    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (12, 16, 3)).astype(np.uint8) for _ in range(3)]
    masks = [np.zeros((12, 16), np.uint8) for _ in range(3)]
    for m in masks:
        m[3:9, 4:12] = 1
    with pytest.raises(ValueError, match="holds out every one of the 3 training images"):
        MRFSegmenter(valid_fraction=0.9, n_segments=20, n_iter=2).fit(images, masks)


CASED = st.characters(whitelist_categories=("Lu", "Ll", "Nd"))


@SETTINGS
@given(word=st.text(CASED, min_size=1, max_size=12))
def test_word_shape_of_every_cased_script(word):
    """Runs of capitals, small letters and digits are X, x and d in every script."""
    from sequence.features import word_shape

    shape = word_shape(word)
    assert set(shape) <= set("Xxd")
    assert all(a != b for a, b in zip(shape, shape[1:]))
    assert shape[0] == ("X" if word[0].isupper() else "x" if word[0].islower() else "d")


@pytest.mark.parametrize("word, shape", [("Москва", "Xx"), ("Über", "Xx"), ("ΑΘΗΝΑ2", "Xd"),
                                         ("McDonald's", "XxXx'x"), ("北京", "北京")])
def test_word_shape_examples(word, shape):
    from sequence.features import word_shape

    assert word_shape(word) == shape


@SETTINGS
@given(word=st.text(st.sampled_from("aeiouncAEIOUNC\u0301\u0308\u0303"), min_size=1,
                    max_size=8))
def test_tagger_features_are_the_same_in_nfc_and_nfd(word):
    import unicodedata

    from sequence.features import sentence_features

    nfc = [(unicodedata.normalize("NFC", word), "NN")]
    nfd = [(unicodedata.normalize("NFD", word), "NN")]
    assert sentence_features(nfc) == sentence_features(nfd)


# ------------------------------------------------- point files of other tools
POINTS = [(0.5 * i, 0.25 * (i % 7), 1.0 + 0.1 * (i % 3), 1300 + (i % 2)) for i in range(30)]


@SETTINGS
@given(sep=st.sampled_from([",", ", ", " ,"]), gz=st.booleans())
def test_comma_separated_point_files_are_read(tmp_path_factory, sep, gz):
    """``x,y,z,label`` (a CSV export) was one column: "got 1 columns"."""
    import gzip

    import numpy as np

    from segmentation.data import load_points

    d = tmp_path_factory.mktemp("pts")
    text = "".join(sep.join(f"{v:g}" for v in row) + "\n" for row in POINTS)
    f = d / ("p.csv.gz" if gz else "p.csv")
    if gz:
        f.write_bytes(gzip.compress(text.encode()))
    else:
        f.write_text(text)
    xyz, labels = load_points(f)
    assert np.allclose(xyz, np.array(POINTS)[:, :3]) and labels.tolist() == [r[3] for r in POINTS]


@pytest.mark.parametrize("text, words", [
    ("1,5 2,5 3,5 1300\n", "a decimal comma"),
    ("1 2\n", "got 2 columns"),
    ("1,2\n", "got 2 columns"),
    ("nan 1 2 1300\n", "1 point has NaN"),
    ("x,y,z,label\n1,2,3,4\n", "a header line")])
def test_point_files_refusals_name_the_cause(tmp_path, text, words):
    from segmentation.data import load_points
    from structpred.io import FormatError

    f = tmp_path / "p.xyz"
    f.write_text(text)
    with pytest.raises(FormatError, match=words):
        load_points(f)
