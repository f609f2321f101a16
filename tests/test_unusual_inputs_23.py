"""Unusual inputs, sweep 23: inputs whose meaning a command missed.

- ``align predict`` on the aligner's own training pairs: the model (``align train``,
  ``MatchingAligner.fit``) now keeps a 64-bit digest of each training pair, as the tagger
  and the topic models do, and ``align predict`` prints one ``structpred: warning:`` line
  when 5 % or more of the pairs aligned (2 at least) are training pairs (their AER is not
  a test score); models written before have no digests and say nothing.
- Romanian's ş Ş ţ Ţ (cedilla) and ș Ș ț Ț (comma below) are one letter written two ways,
  and a word written both ways was two words (two vocabulary entries, two sets of
  features); ``structpred.io.word_form`` (every reader's word form, ``topics``' tokenizer
  too) now reads the cedilla forms as the comma-below ones; tokens written out stay as
  read.
- ``tag eval`` of gold chunk tags in the other IOB than the model's training labels (IOB1,
  where a chunk starts at ``I-``, against IOB2, where every chunk starts at ``B-``): chunk
  F1 reads both alike, but the token accuracy counted each chunk's first token as an
  error, with no word; the tagger now keeps its training labels' IOB (``iob_variant_``)
  and ``tag eval`` prints one warning line naming both; older models say nothing.
- Grey images for a model trained on colour ones (or the reverse): a model trained on grey
  images (one channel, or three equal ones) segments colour images much worse (IoU 55 to
  43), with no word; the model now keeps its training images' kind (``grey_``) and
  ``segment predict``/``segment eval`` (one ``structpred: warning:`` line) and
  ``MRFSegmenter.predict`` (an ``ImageKindWarning``) say so; older models say nothing.
- ``topics train`` (``--model auto``) on a corpus with a class of 2 to 4 documents chose
  its model on folds holding one document of it or none, and printed the choice as any
  other; one warning line now says the choice is made on too few documents per class
  (fewer than ``topics.cli.MIN_CLASS_DOCUMENTS``, 5: the folds of the cross-validation).
"""

from __future__ import annotations

import functools
import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=10, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _warnings(err):
    return [ln for ln in err.strip().splitlines() if ln.startswith("structpred: warning: ")]


# ------------------------------------------ class: training pairs given to align predict
TRAIN = [("the house is small .", "la maison est petite ."),
         ("i agree .", "je suis d' accord ."),
         ("the house is big .", "la maison est grande ."),
         ("the cat is small .", "le chat est petit ."),
         ("the car is big .", "la voiture est grande .")]
GOLD = ["0-0 1-1 2-2 3-3 4-4", "0-0 1-1 2-3 2-2", "0-0 1-1 2-2 3-3 4-4",
        "0-0 1-1 2-2 3-3 4-4", "0-0 1-1 2-2 3-3 4-4"]
#: pairs the model never saw, of its words
NEW = [(f"the {a} is {b} .", f"la {c} est {d} .")
       for a, c in (("house", "maison"), ("car", "voiture"), ("cat", "chat"))
       for b, d in (("small", "petite"), ("big", "grande"), ("new", "neuve"))
       if (f"the {a} is {b} .", f"la {c} est {d} .") not in TRAIN] * 8


@pytest.fixture(scope="module")
def aligner(tmp_path_factory):
    """A model trained on :data:`TRAIN`, and the same model saved without the digests (as
    models were written before they were kept)."""
    from alignment import MatchingAligner
    from alignment.stats.statistics import AlignmentStatistics

    d = tmp_path_factory.mktemp("sweep23-align")
    pairs = [(s.split(), t.split()) for s, t in TRAIN]
    stats = AlignmentStatistics.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                              verbose=False)
    gold = [[tuple(map(int, x.split("-"))) for x in ln.split()] for ln in GOLD]
    model = MatchingAligner(n_iter=2).fit(pairs, gold, stats=stats)
    model.save(d / "align.npz")
    model.training_digests_ = None
    model.save(d / "old.npz")
    return d


def _predict(folder, model, pairs, capsys):
    (folder / "x.en").write_text("".join(s + "\n" for s, _ in pairs), encoding="utf-8")
    (folder / "x.fr").write_text("".join(t + "\n" for _, t in pairs), encoding="utf-8")
    return run_cli(["align", "predict", "-m", str(model), "--src",
                    str(folder / "x.en"), "--tgt", str(folder / "x.fr"), "-o",
                    str(folder / "out.txt"), "-q", "-j", "1"], capsys)


@SETTINGS
@given(n_train=st.integers(0, len(TRAIN)), n_new=st.integers(0, len(NEW)),
       seed=st.integers(0, 2 ** 16))
def test_align_predict_warns_of_training_pairs(aligner, tmp_path_factory, capsys, n_train,
                                               n_new, seed):
    """``align predict`` on the training pairs (the training file, or a test file holding
    some of them) wrote links whose AER was taken for a test score, with no word."""
    if n_train + n_new == 0:
        n_new = 1
    rng = np.random.default_rng(seed)
    pairs = [TRAIN[i] for i in rng.permutation(len(TRAIN))[:n_train]] + NEW[:n_new]
    order = rng.permutation(len(pairs))
    pairs = [pairs[i] for i in order]
    folder = tmp_path_factory.mktemp("predict")
    rc, _, err = _predict(folder, aligner / "align.npz", pairs, capsys)
    assert rc == 0, err
    lines = [ln for ln in _warnings(err) if "trained on" in ln]
    if n_train < 2 or n_train < 0.05 * len(pairs):
        assert lines == [], err
        return
    assert len(lines) == 1, err
    name = f"{folder / 'x.en'} and {folder / 'x.fr'}"
    if n_new == 0:
        assert (f"{name}: every one of the {n_train} sentence pairs is a pair the model was "
                "trained on; an AER of these links is not a test score") in lines[0]
    else:
        first = min(i for i, p in enumerate(pairs) if p in TRAIN) + 1
        assert (f"{name}: {n_train} of the {len(pairs)} sentence pairs (the first: pair "
                f"{first}) are pairs the model was trained on") in lines[0]


def test_align_predict_of_an_older_model_says_nothing(aligner, tmp_path, capsys):
    """A model written before the digests were kept is used as before, without a warning."""
    rc, _, err = _predict(tmp_path, aligner / "old.npz", TRAIN, capsys)
    assert rc == 0 and _warnings(err) == [], err


def test_aligner_keeps_digests_of_its_training_pairs(aligner):
    """``fit`` keeps one digest per training pair (in word form), written and read back."""
    from alignment import MatchingAligner
    from alignment.model import pair_texts
    from structpred import text_digests

    model = MatchingAligner.load(aligner / "align.npz")
    pairs = [(s.split(), t.split()) for s, t in TRAIN]
    assert np.array_equal(model.training_digests_, text_digests(pair_texts(pairs)))
    assert MatchingAligner.load(aligner / "old.npz").training_digests_ is None


# --------------------------------------------- class: Romanian words spelt with ş/ţ or ș/ț
COMMA, CEDILLA = "șȘțȚ", "şŞţŢ"
#: each comma-below letter written otherwise: precomposed with the cedilla, or decomposed
#: (NFD: the letter and U+0327 COMBINING CEDILLA or U+0326 COMBINING COMMA BELOW)
SPELLINGS = {c: (c, k, c.translate(str.maketrans("șȘțȚ", "sStT")) + "\u0327",
                 c.translate(str.maketrans("șȘțȚ", "sStT")) + "\u0326")
             for c, k in zip(COMMA, CEDILLA)}
ROMANIAN = st.text("aăâbcdefgiîlmnoprsștțuvzȘȚ", min_size=1, max_size=12).filter(
    lambda w: any(c in COMMA for c in w))


def _respelt(word, draw):
    return "".join(draw(st.sampled_from(SPELLINGS[c])) if c in SPELLINGS else c for c in word)


@SETTINGS
@given(word=ROMANIAN, data=st.data())
def test_word_form_reads_cedilla_s_and_t_as_comma_below(word, data):
    """``ţară`` and ``țară`` (or ``şi`` and ``și``) were two word forms."""
    from structpred.io import token_form, word_form, word_text

    other = _respelt(word, data.draw)
    assert word_form(other) == word == word_form(word)
    assert token_form(other) == word and word_text(f"x {other} y") == f"x {word} y"
    assert word_form(word_form(other, "NFKC"), "NFKC") == word_form(other, "NFKC") == word


@SETTINGS
@given(words=st.lists(ROMANIAN, min_size=1, max_size=5), data=st.data())
def test_topics_tokens_of_both_spellings_are_one(words, data):
    """``topics``' tokenizer counted ``şcoală`` and ``școală`` as two terms."""
    from topics.tokens import Tokenizer

    tok = Tokenizer(stop_words=None, min_length=1)
    text = " ".join(words)
    other = " ".join(_respelt(w, data.draw) for w in words)
    assert tok(other) == tok(text) == [w.lower() for w in words]


@SETTINGS
@given(words=st.lists(ROMANIAN, min_size=1, max_size=5), data=st.data())
def test_aligner_readers_read_both_spellings_as_one_word(tmp_path_factory, words, data):
    """A bitext and the Python API's pairs (``check_sentence_pairs``) alike."""
    from alignment.data.formats import read_parallel
    from structpred.io import check_sentence_pairs

    d = tmp_path_factory.mktemp("ro")
    other = [_respelt(w, data.draw) for w in words]
    (d / "a.ro").write_text(" ".join(other) + "\n" + " ".join(words) + "\n", encoding="utf-8")
    (d / "a.en").write_text("x\ny\n", encoding="utf-8")
    (s1, _), (s2, _) = read_parallel(d / "a.ro", d / "a.en")
    assert list(s1) == list(s2) == words
    ((s3, _),) = check_sentence_pairs([(other, ["x"])])
    assert list(s3) == words


@SETTINGS
@given(words=st.lists(ROMANIAN, min_size=1, max_size=4), data=st.data())
def test_tag_features_of_both_spellings_are_one(words, data):
    """A tagger trained on ``ș``/``ț`` words did not know them spelt with ``ş``/``ţ``: their
    word, context and affix features were others."""
    from sequence.features import sentence_features

    other = [_respelt(w, data.draw) for w in words]
    assert (sentence_features([(w, "X") for w in other])
            == sentence_features([(w, "X") for w in words]))


def test_tag_predict_writes_the_tokens_as_read(tmp_path, capsys):
    """The word form is what the model sees (the features of ``ştiu`` are those of
    ``știu``); ``tag predict`` writes each token as given."""
    sents = [("și", "CONJ"), ("țară", "NOUN"), ("ştiu", "VERB"), ("mâine", "ADV")]
    data = tmp_path / "train.txt"
    data.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in sents) for _ in range(6))
                    + "\n", encoding="utf-8")
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "--learner", "perceptron",
                          "--iterations", "3", "-q", "-o", str(tmp_path / "m.npz")], capsys)
    assert rc == 0, err
    given = ["şi", "ţară", "știu", "mâine"]
    from sequence.features import sentence_features

    assert (sentence_features([(w,) for w in given])
            == sentence_features([(w,) for w, _ in sents]))
    (tmp_path / "in.txt").write_text("\n".join(given) + "\n", encoding="utf-8")
    rc, out, err = run_cli(["tag", "predict", "-m", str(tmp_path / "m.npz"), "-i",
                            str(tmp_path / "in.txt")], capsys)
    assert rc == 0, err
    assert [ln.split() for ln in out.splitlines() if ln.strip()] == [
        [w, t] for w, (_, t) in zip(given, sents)]


# -------------------------------------------- class: IOB1 gold for an IOB2 tagger (or back)
def _render(segments, scheme):
    """Chunk tags of ``segments`` (``None`` for an ``O`` token, ``(type, length)`` for a
    chunk) in ``scheme``, IOB1 or IOB2."""
    tags, prev = [], None
    for seg in segments:
        if seg is None:
            tags.append("O")
        else:
            kind, n = seg
            first = "B" if scheme == "IOB2" or (prev is not None and prev[0] == kind) else "I"
            tags += [f"{first}-{kind}"] + [f"I-{kind}"] * (n - 1)
        prev = seg
    return tags


SEGMENTS = st.lists(st.one_of(st.none(), st.tuples(st.sampled_from(["NP", "VP"]),
                                                   st.integers(1, 3))), max_size=8)


@SETTINGS
@given(sentences=st.lists(SEGMENTS, min_size=1, max_size=4))
def test_iob_variant_tells_iob1_from_iob2(sentences):
    """Any chunk tells them apart (the first chunk of a sentence follows no chunk of its
    type), and conlleval's chunks are those of either writing."""
    from sequence.evaluate import chunks, iob_variant

    one = [_render(s, "IOB1") for s in sentences]
    two = [_render(s, "IOB2") for s in sentences]
    has_chunk = any(seg is not None for s in sentences for seg in s)
    assert iob_variant(one) == ("IOB1" if has_chunk else None)
    assert iob_variant(two) == ("IOB2" if has_chunk else None)
    assert all(chunks(a) == chunks(b) for a, b in zip(one, two))
    if has_chunk:
        assert iob_variant(one + two) is None     # both: no scheme to warn of


@SETTINGS
@given(sentences=st.lists(st.tuples(SEGMENTS, st.sampled_from(["IOB1", "IOB2"])), min_size=1,
                          max_size=5))
def test_iob_mix_is_named_at_its_first_chunks(sentences):
    """Sentences each written in IOB1 or IOB2 (two files of the two schemes joined): the
    mix is named with the first chunk that starts at B- and the first at I- (it was taken
    silently, the model learning both starts); one scheme throughout says nothing."""
    from sequence.evaluate import iob_mix_message

    tags = [_render(segs, scheme) for segs, scheme in sentences]
    starts = {}
    for k, (segs, scheme) in enumerate(sentences):
        if any(seg is not None for seg in segs):
            i = next(j for j, t in enumerate(tags[k]) if t != "O")
            starts.setdefault("B" if scheme == "IOB2" else "I", (k, i))
    message = iob_mix_message(tags)
    if len(starts) < 2:
        assert message is None
        return
    (kb, ib), (ki, ii) = starts["B"], starts["I"]
    assert message == (f"the chunk tags mix IOB2 and IOB1: a chunk starts at B- in sentence "
                       f"{kb + 1} (token {ib + 1}) and at I- in sentence {ki + 1} (token "
                       f"{ii + 1}), after O or another type; convert them to one scheme")


def test_tag_train_on_mixed_iob_warns_once_naming_the_file(tmp_path, capsys):
    """``tag train`` names the mix once, with the file's sentence numbers (not those of the
    sentences left after the validation split), and trains; ``SequenceTagger.fit`` warns
    too (IOBMixWarning)."""
    import warnings

    from sequence import SequenceTagger
    from sequence.evaluate import IOBMixWarning

    sents = _conll()[:30]
    path = tmp_path / "mixed.txt"
    path.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(
        words, _to_iob1(tags) if k >= 20 else tags)) for k, (words, tags) in enumerate(sents))
        + "\n", encoding="utf-8")
    rc, _, err = run_cli(["tag", "train", "--data", str(path), "-o", str(tmp_path / "m.npz"),
                          "--learner", "perceptron", "--iterations", "2", "-q"], capsys)
    lines = [ln for ln in _warnings(err) if "mix IOB2 and IOB1" in ln]
    assert rc == 0 and len(lines) == 1, err
    assert lines[0].startswith(f"structpred: warning: {path}: the chunk tags mix")
    assert "at I- in sentence 21 " in lines[0], lines[0]
    X = [[tuple(w.split()) for w in words] for words, _ in sents]
    y = [tags if k < 20 else _to_iob1(tags) for k, (_, tags) in enumerate(sents)]
    with pytest.warns(IOBMixWarning, match="mix IOB2 and IOB1"):
        SequenceTagger(learner="perceptron", n_iter=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IOBMixWarning)       # one scheme: no warning
        SequenceTagger(learner="perceptron", n_iter=1).fit(X, [t for _, t in sents])


@functools.lru_cache(maxsize=None)
def _conll():
    """The 100 sentences of the bundled CoNLL-2000 slice (IOB2), as (lines, tags)."""
    with gzip.open(ROOT / "data/sequence/conll2000-test-100.txt.gz", "rt") as fh:
        blocks = [b for b in fh.read().split("\n\n") if b.strip()]
    out = []
    for b in blocks:
        rows = [ln.rsplit(" ", 1) for ln in b.splitlines()]
        out.append(([r[0] for r in rows], [r[1] for r in rows]))
    return out


def _to_iob1(tags):
    """IOB2 tags as IOB1 writes them."""
    out = []
    for i, t in enumerate(tags):
        prev = tags[i - 1] if i else "O"
        if t.startswith("B-") and not (prev != "O" and prev[2:] == t[2:]):
            t = "I-" + t[2:]
        out.append(t)
    return out


def _write_conll(path, sentences, scheme):
    path.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in zip(
        words, _to_iob1(tags) if scheme == "IOB1" else tags)) for words, tags in sentences)
                    + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def taggers(tmp_path_factory):
    """Taggers trained on the first 40 sentences written in IOB2 and in IOB1, and the IOB2
    one as written before the IOB variant was kept."""
    from structpred.cli import main
    from structpred.io import load_npz, save_npz

    d = tmp_path_factory.mktemp("sweep23-tag")
    for scheme in ("IOB1", "IOB2"):
        _write_conll(d / f"train-{scheme}.txt", _conll()[:40], scheme)
        assert main(["tag", "train", "--data", str(d / f"train-{scheme}.txt"), "-o",
                     str(d / f"{scheme}.npz"), "--learner", "perceptron", "--iterations",
                     "2", "-q"]) == 0
    header, arrays = load_npz(d / "IOB2.npz", "structpred-sequence-tagger", (1,))
    assert header.pop("iob_variant") == "IOB2"
    save_npz(d / "old.npz", dict(arrays), header)
    return d


@SETTINGS
@given(trained=st.sampled_from(["IOB1", "IOB2"]), given_=st.sampled_from(["IOB1", "IOB2"]),
       start=st.integers(40, 95), n=st.integers(1, 5))
def test_tag_eval_warns_of_gold_in_the_other_iob(taggers, tmp_path_factory, capsys, trained,
                                                 given_, start, n):
    """An IOB2 model scored on IOB1 gold (or the reverse) printed its token accuracy as
    any other: each chunk its gold starts at I- and it at B- (or back) an error."""
    test = tmp_path_factory.mktemp("iob") / "test.txt"
    _write_conll(test, _conll()[start:start + n], given_)
    rc, out, err = run_cli(["tag", "eval", "-m", str(taggers / f"{trained}.npz"), "--data",
                            str(test)], capsys)
    assert rc == 0 and "F1" in out, err
    lines = [ln for ln in _warnings(err) if "IOB1" in ln or "IOB2" in ln]
    if given_ == trained:
        assert lines == [], err
        return
    assert len(lines) == 1, err
    names = {"IOB1": "IOB1 (a chunk starts at I-, B- only after a chunk of its type)",
             "IOB2": "IOB2 (every chunk starts at B-)"}
    assert (f"{test}: the gold chunk tags are {names[given_]}, the model's (and its "
            f"predictions) {names[trained]}: chunk F1 reads both alike") in lines[0]
    assert f"convert the file to {trained} for a token accuracy" in lines[0]


def test_tag_eval_of_an_older_tagger_says_nothing_of_iob(taggers, tmp_path, capsys):
    """A model written before the IOB variant was kept is scored as before; the same
    model written now warns."""
    test = tmp_path / "test.txt"
    _write_conll(test, _conll()[40:60], "IOB1")
    for model, n in (("old.npz", 0), ("IOB2.npz", 1)):
        rc, _, err = run_cli(["tag", "eval", "-m", str(taggers / model), "--data",
                              str(test)], capsys)
        assert rc == 0 and len([ln for ln in _warnings(err) if "IOB" in ln]) == n, err


# ------------------------------------------------ class: grey images against colour ones
HORSES = ("horse001", "horse002", "horse003", "horse004", "horse005")


def _horse(name, size=48):
    from PIL import Image

    from segmentation.data import bundled_data_dir

    src = bundled_data_dir() / "weizmann_horse" / "small"
    img = np.asarray(Image.open(src / "images" / f"{name}.png").convert("RGB"))
    m = np.asarray(Image.open(src / "masks" / f"{name}.png"))
    r0, c0 = (m.shape[0] - size) // 2, (m.shape[1] - size) // 2
    return img[r0:r0 + size, c0:c0 + size], m[r0:r0 + size, c0:c0 + size]


def _save(img, path, kind):
    """``kind``: colour, grey (one channel, mode L) or grey3 (three equal channels)."""
    from PIL import Image

    grey = np.asarray(Image.fromarray(img).convert("L"))
    arr = {"colour": img, "grey": grey, "grey3": np.repeat(grey[..., None], 3, -1)}[kind]
    Image.fromarray(arr).save(path)


@pytest.fixture(scope="module")
def segmenters(tmp_path_factory):
    """Models trained on five horses in colour and in grey, and the grey one as written
    before the kind was kept."""
    from PIL import Image

    from structpred.cli import main
    from structpred.io import load_npz, save_npz

    d = tmp_path_factory.mktemp("sweep23-seg")
    for kind in ("colour", "grey"):
        (d / kind / "images").mkdir(parents=True)
        (d / kind / "masks").mkdir()
        for name in HORSES:
            img, m = _horse(name)
            _save(img, d / kind / "images" / f"{name}.png", kind)
            Image.fromarray(m).save(d / kind / "masks" / f"{name}.png")
        assert main(["segment", "train", "--images", str(d / kind / "images"), "--masks",
                     str(d / kind / "masks"), "--n-segments", "40", "--iterations", "4",
                     "--class-weight", "balanced", "--eta-scale", "1", "-o",
                     str(d / f"{kind}.npz"), "-q"]) == 0
    header, arrays = load_npz(d / "grey.npz", "structpred-mrf-segmenter", (3,))
    assert header.pop("grey_images") is True
    save_npz(d / "old.npz", dict(arrays), header)
    return d


@SETTINGS
@given(trained=st.sampled_from(["colour", "grey"]),
       kinds=st.lists(st.sampled_from(["colour", "grey", "grey3"]), min_size=1, max_size=3),
       command=st.sampled_from(["predict", "eval"]))
def test_segment_warns_of_images_of_the_other_kind(segmenters, tmp_path_factory, capsys,
                                                   trained, kinds, command):
    """A grey model given colour images (or a colour one grey images) scored and wrote
    them as any other."""
    from PIL import Image

    d = tmp_path_factory.mktemp("seg")
    (d / "images").mkdir()
    (d / "masks").mkdir()
    names = []
    for name, kind in zip(HORSES, kinds):
        img, m = _horse(name)
        _save(img, d / "images" / f"{name}.png", kind)
        Image.fromarray(m).save(d / "masks" / f"{name}.png")
        names.append(name)
    argv = ["segment", command, "-m", str(segmenters / f"{trained}.npz"), "--images",
            str(d / "images"), "-q"]
    argv += ["-o", str(d / "out")] if command == "predict" else ["--masks", str(d / "masks")]
    rc, _, err = run_cli(argv, capsys)
    assert rc == 0, err
    lines = [ln for ln in _warnings(err) if "images only" in ln]
    other = [n for n, k in zip(names, kinds) if (k == "colour") != (trained == "colour")]
    if not other:
        assert lines == [], err
        return
    assert len(lines) == 1, err
    kind = "grey" if trained == "colour" else "colour"
    assert f"{kind}, but the model was trained on {trained} images only" in lines[0]
    if len(kinds) == 1:
        assert "the image (" in lines[0] and f"{other[0]}.png) is {kind}" in lines[0]
    elif len(other) == len(kinds):
        assert f"every one of the {len(kinds)} images is {kind}" in lines[0]
    else:
        assert f"{len(other)} of the {len(kinds)} images (the first: " in lines[0]
        assert f"{other[0]}.png) are {kind}" in lines[0]


def test_segmenter_predict_warns_once_of_the_other_kind(segmenters):
    """``MRFSegmenter.predict`` of colour images with a grey model: one ImageKindWarning;
    a model written before the kind was kept predicts them without it."""
    import warnings

    from segmentation._image_kind import ImageKindWarning
    from segmentation.model import MRFSegmenter

    images = [_horse(n)[0] for n in HORSES[:3]]
    model = MRFSegmenter.load(segmenters / "grey.npz")
    assert model.grey_ is True and MRFSegmenter.load(segmenters / "colour.npz").grey_ is False
    with pytest.warns(ImageKindWarning) as record:
        model.predict(images)
    assert len(record) == 1
    assert "every one of the 3 images is colour, but the model was trained on grey" in str(
        record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImageKindWarning)
        MRFSegmenter.load(segmenters / "old.npz").predict(images)
        model.predict([np.repeat(images[0].mean(-1).astype(np.uint8)[..., None], 3, -1)])


# ---------------------------------- class: topics' choice on classes of very few documents
_TOPIC_WORDS = {"pets": "cat dog mat park fur paw".split(),
                "money": "stocks market bank rates fell rose".split(),
                "sport": "goal match team score win league".split()}


def _topic_docs(sizes, seed):
    rng = np.random.default_rng(seed)
    return "".join(f"{label}\t{' '.join(rng.choice(_TOPIC_WORDS[label], 6))}\n"
                   for label, n in sizes.items() for _ in range(n))


@SETTINGS
@given(sizes=st.fixed_dictionaries({"pets": st.integers(2, 7), "money": st.integers(2, 7)},
                                   optional={"sport": st.integers(2, 7)}),
       valid=st.booleans(), seed=st.integers(0, 100))
def test_topics_choice_on_few_documents_per_class_warns(tmp_path_factory, capsys, sizes,
                                                        valid, seed):
    """The choice on validation was printed as any other however few the documents of a
    class it was made on."""
    from topics.cli import MIN_CLASS_DOCUMENTS

    d = tmp_path_factory.mktemp("topics")
    data = d / "train.tsv"
    argv = ["topics", "train", "--data", str(data), "-o", str(d / "m.npz"), "--jobs", "1"]
    scored = data
    if valid:
        data.write_text(_topic_docs({k: 6 for k in sizes}, seed + 1), encoding="utf-8")
        scored = d / "valid.tsv"
        scored.write_text(_topic_docs(sizes, seed), encoding="utf-8")
        argv += ["--valid-data", str(scored)]
    else:
        data.write_text(_topic_docs(sizes, seed), encoding="utf-8")
    rc, _, err = run_cli(argv, capsys)
    assert rc == 0, err
    lines = [ln for ln in _warnings(err) if "too few documents per class" in ln]
    small = {k: n for k, n in sizes.items() if n < MIN_CLASS_DOCUMENTS}
    if not small:
        assert lines == [], err
        return
    assert len(lines) == 1, err
    n = min(small.values())
    assert f"{scored}: the class " in lines[0] and f"has only {n} documents" in lines[0]
    assert ("the model is chosen on too few documents per class (fewer than 5) to be "
            "reliable") in lines[0]
    if len(small) > 1:
        assert f"(and {len(small) - 1} other class" in lines[0]


def test_topics_train_of_one_model_has_no_such_warning(tmp_path, capsys):
    """``--model NAME`` makes no choice: nothing to warn of."""
    data = tmp_path / "train.tsv"
    data.write_text(_topic_docs({"pets": 3, "money": 3}, 0), encoding="utf-8")
    for model, n in (("nbsvm", 0), ("auto", 1)):
        rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", model, "-o",
                              str(tmp_path / "m.npz")], capsys)
        assert rc == 0, err
        assert len([ln for ln in _warnings(err) if "documents per class" in ln]) == n, err
