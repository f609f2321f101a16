"""Unusual inputs of the Python API, seventh sweep (issue 28, docs/errors.md), by class:

- documents without text (``""``, blanks, ``[]``) given to the topic estimators were
  classified by the prior, while the command line refuses them; a missing text (NaN in a
  pandas Series, ``None``) was named without its document; ``X=None`` was scikit-learn's
  "Expected 2D array"; an ``(n, 1)`` array of strings was "dtype='numeric' is not
  compatible"; a matrix holding a string was Python's "could not convert string to float";
- a string given as the sentences (or as one sentence) to ``check_segmented`` passed;
- grey ``(H, W)`` and RGBA ``(H, W, 4)`` image arrays were refused by ``MRFSegmenter``
  while files of those modes are converted;
- ``symmetrize`` kept links of float positions (``(0.5, 1)``) and read a string as links;
- an image file that Pillow cannot identify was named by Pillow's exception class.
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

DOCS = ["the cat sat on the mat", "dogs chase cats in the park",
        "stocks fell on the market today", "the bank raised interest rates"] * 2
LABELS = ["pets", "pets", "money", "money"] * 2

TOPIC_ESTIMATORS = ["NBSVM", "SdemNaiveBayes", "LDASVM", "DiscLDA", "GibbsMedLDA",
                    "ImportanceMedLDA", "PaMedLDA", "PaMedHDPClassifier", "SdemLDAClassifier",
                    "LDA"]


@pytest.fixture(scope="module")
def nbsvm():
    from topics import NBSVM

    return NBSVM().fit(DOCS, LABELS)


BLANK = st.one_of(st.text(" \t\n\r\u00a0\u3000", max_size=4), st.just([]))


# ------------------------------------------------- class: documents without text
@SETTINGS
@given(name=st.sampled_from(TOPIC_ESTIMATORS), blank=BLANK, where=st.integers(0, 7))
def test_a_document_without_text_is_refused_in_fit(name, blank, where):
    """Every topic estimator refuses it before any work, naming the document."""
    import topics

    docs = list(DOCS)
    docs[where] = blank
    est = getattr(topics, name)()
    args = (docs,) if name == "LDA" else (docs, LABELS)
    with pytest.raises(ValueError, match=f"{name}: document {where} is .*every document "
                                         "needs words"):
        est.fit(*args)


@SETTINGS
@given(blank=BLANK, where=st.integers(0, 2))
def test_a_document_without_text_is_refused_in_predict(nbsvm, blank, where):
    """``NBSVM().predict([""])`` gave the prior's class."""
    docs = ["the cat", "stocks fell", "a dog"]
    docs[where] = blank
    with pytest.raises(ValueError, match=f"document {where} is "):
        nbsvm.predict(docs)
    # words, none of them in the vocabulary (or stop words only): the documented prior
    docs[where] = "zzzz qqqq the of and"
    assert nbsvm.predict(docs).shape == (3,)


@pytest.mark.parametrize("missing", [float("nan"), None])
def test_a_missing_text_in_a_series_is_named_by_its_document(nbsvm, missing):
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="NBSVM: document 1 is .*missing text"):
        nbsvm.predict(pd.Series(["the cat", missing], dtype=object))


def test_x_none_is_named(nbsvm):
    with pytest.raises(TypeError, match="NBSVM: X is None") as info:
        nbsvm.predict(None)
    assert "2D array" not in str(info.value)


@SETTINGS
@given(n=st.integers(1, 5))
def test_a_column_of_texts_is_read_as_the_documents(nbsvm, n):
    texts = (["the cat sat", "stocks fell today", "a dog ran"] * 2)[:n]
    column = np.array(texts)[:, None]
    assert list(nbsvm.predict(column)) == list(nbsvm.predict(texts))


@pytest.mark.parametrize("shape", [(2, 2), (2, 1, 1)])
def test_an_array_of_texts_of_several_columns_is_refused(nbsvm, shape):
    X = np.full(shape, "the cat")
    with pytest.raises(TypeError, match=re.escape(f"array of strings of shape {shape}")):
        nbsvm.predict(X)


def test_a_matrix_holding_a_string_is_named_without_pythons_words():
    from topics import NBSVM

    with pytest.raises(ValueError, match="not a number \\('a'\\)") as info:
        NBSVM().fit(np.array([[1, "a"], [2, 3]], dtype=object), [0, 1])
    assert "could not convert" not in str(info.value)


# ------------------------------------------------- class: a string for tokens
@SETTINGS
@given(text=st.text(min_size=1, max_size=30), as_item=st.booleans())
def test_check_segmented_refuses_a_string_for_sentences_or_a_sentence(text, as_item):
    from alignment.data.formats import check_segmented

    sentences = [["a", "b"], text] if as_item else text
    with pytest.raises(TypeError, match="string"):
        check_segmented(sentences, "x.txt")


# ------------------------------------------------- class: image arrays of other modes
@pytest.fixture(scope="module")
def grey_images(tmp_path_factory):
    from PIL import Image

    rng = np.random.default_rng(0)
    d = tmp_path_factory.mktemp("grey")
    arrays, paths = [], []
    for i in range(3):
        g = rng.integers(0, 256, (8, 9), dtype=np.uint8)
        Image.fromarray(g).save(d / f"g{i}.png")
        arrays.append(g)
        paths.append(d / f"g{i}.png")
    masks = [np.zeros((8, 9), bool) for _ in range(3)]
    for m in masks:
        m[:4] = True
    return arrays, paths, masks


@SETTINGS
@given(data=st.data(), mode=st.sampled_from(["L", "LA", "RGBA"]))
def test_an_image_array_is_converted_as_its_file_is(data, mode, tmp_path_factory):
    """Grey ``(H, W)``, ``(H, W, 1)`` and RGBA arrays give the file reader's pixels and the
    same superpixel features (they were "expected an RGB image of shape (H, W, 3)")."""
    from PIL import Image

    from segmentation.data import load_image
    from segmentation.features import as_rgb8, superpixel_graph

    h, w = data.draw(st.integers(2, 12)), data.draw(st.integers(2, 12))
    channels = {"L": (), "LA": (2,), "RGBA": (4,)}[mode]
    seed = data.draw(st.integers(0, 2 ** 16))
    a = np.random.default_rng(seed).integers(0, 256, (h, w) + channels, dtype=np.uint8)
    path = tmp_path_factory.mktemp("img") / "a.png"
    Image.fromarray(a, mode).save(path)
    array = a[..., 0] if mode == "LA" else a   # a grey array: its value channel
    if mode == "L" and data.draw(st.booleans()):
        array = a[..., None]
    np.testing.assert_array_equal(as_rgb8(array), load_image(path))
    f_array = superpixel_graph(array, n_segments=4)
    f_file = superpixel_graph(load_image(path), n_segments=4)
    np.testing.assert_array_equal(f_array.node_features, f_file.node_features)


def test_mrf_segmenter_fits_and_predicts_grey_arrays_as_their_files(grey_images):
    from segmentation import MRFSegmenter
    from segmentation.data import load_image

    arrays, paths, masks = grey_images
    fast = dict(n_iter=2, n_segments=10, guard=False, colour_model=False, patience=None)
    from_arrays = MRFSegmenter(**fast).fit(arrays, masks)
    from_files = MRFSegmenter(**fast).fit([load_image(p) for p in paths], masks)
    np.testing.assert_array_equal(from_arrays.coef_, from_files.coef_)
    for a, b in zip(from_arrays.predict(arrays), from_files.predict([load_image(p)
                                                                      for p in paths])):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------- class: link sets (symmetrize)
@SETTINGS
@given(bad=st.sampled_from([(0.5, 1), (0, -1), ("0", 1), (True, 1), (0, 1, 2), "01"]),
       method=st.sampled_from(["intersection", "union", "grow-diag", "grow-diag-final-and"]),
       side=st.booleans())
def test_symmetrize_refuses_links_that_are_not_two_positions(bad, method, side):
    from alignment import symmetrize

    links = {(0, 0), bad} if not isinstance(bad, str) else bad
    args = (links, {(0, 0)}) if side else ({(0, 0)}, links)
    with pytest.raises((TypeError, ValueError), match="link|positions"):
        symmetrize(*args, method)


def test_symmetrize_takes_numpy_integers_and_names_its_methods():
    from alignment import symmetrize

    assert symmetrize({(np.int64(0), np.int32(1))}, {(0, 1)}, "intersection") == {(0, 1)}
    with pytest.raises(ValueError, match="'intersect'; one of intersection, union"):
        symmetrize({(0, 1)}, {(0, 1)}, "intersect")


# ------------------------------------------------- class: files that are not images
KINDS = {b"hello, world\n": "it is text", b"%PDF-1.4\n...": "a PDF document",
         b"\x93NUMPY\x01\x00v\x00": "a NumPy array", b"PK\x03\x04abc": "a zip archive"}


@pytest.mark.parametrize("head", sorted(KINDS))
def test_a_file_that_is_not_an_image_is_named_by_what_it_is(tmp_path, head):
    from segmentation.data import load_image
    from structpred import FormatError

    path = tmp_path / "x.png"
    path.write_bytes(head)
    with pytest.raises(FormatError, match=re.escape(KINDS[head])) as info:
        load_image(path)
    assert "UnidentifiedImageError" not in str(info.value)


@pytest.mark.parametrize("kw,want", [({"n_segments": 0}, "n_segments must be an integer >= 1"),
                                     ({"n_segments": 2.5}, "n_segments must be an integer"),
                                     ({"compactness": float("nan")}, "compactness must be"),
                                     ({"compactness": -1}, "compactness must be")])
def test_superpixel_graph_names_a_size_outside_its_domain(kw, want):
    """``n_segments=0`` was Python's "float division by zero"."""
    from segmentation import superpixel_graph

    with pytest.raises(ValueError, match=want):
        superpixel_graph(np.zeros((4, 4, 3), np.uint8), **kw)


@pytest.mark.parametrize("name", ["feature_scale", "edge_scale"])
def test_a_scale_that_overflows_the_features_is_named(name):
    """1e300 made the features infinite: "feature matrix contains NaN or infinite values"."""
    from segmentation import MRFSegmenter

    with pytest.raises(ValueError, match=f"{name} must be at most"):
        MRFSegmenter(**{name: 1e300}).fit([np.zeros((4, 4, 3), np.uint8)] * 2,
                                          [np.eye(4, dtype=bool)] * 2)
