"""Unusual inputs, seventh sweep (issue 28, docs/errors.md), by class:

- text of a script written without spaces (Chinese, Japanese, Thai...) not split into
  words, given to ``align train``, ``align predict`` and ``align unsupervised``: each line
  was one "word", aligned with exit status 0;
- a side of the input in another case than the model's bitext (the statistics are
  case-sensitive): now a warning;
- ``topics eval`` on documents none of whose labels the model knows (0 % accuracy, exit 0),
  and some unknown labels (a note on standard output, among the results);
- counts of one in messages ("trained ... on 1 sentences", "(1 sentences)");
- class-index masks (PASCAL VOC's palette PNGs) whose foreground is a class other than 1
  (``--foreground-labels`` now takes their class indices), and such masks saved as RGB
  colours (a generic "colour image" refusal);
- a pipe (``<(...)``, a FIFO) given as a model (it was "corrupt or truncated ... not
  seekable") or as ``align train``'s bitext, which is read twice (it was "empty: no
  sentence pairs");
- documents of an empty or blank text in TSV, JSON lines and folders (refused in CSV
  only; ``predict`` gave them the most frequent class);
- a header line in a point file (named only as "non-numeric value 'x'");
- an output name holding a line break: the progress and summary lines on standard error
  were two lines (the errors showed ``\\n``);
"""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alignment import MatchingAligner
from alignment.data.formats import check_segmented
from structpred import FormatError

from cli_helpers import one_line_error, run_cli

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


# ------------------------------------------------ class: unsegmented text (alignment)
SRC = ["the house is small .", "i agree .", "he is a good student ."]
TGT = ["la maison est petite .", "je suis d' accord .", "il est un bon étudiant ."]
UNSEGMENTED = {
    "Chinese": (["房子很小。", "我同意。", "他是一个好学生。"], "jieba"),
    "Japanese": (["家はとても小さいです。", "私は賛成です。", "彼は良い学生です。"], "MeCab"),
    "Thai": (["บ้านหลังนี้เล็กมาก", "ฉันเห็นด้วยครับ", "เขาเป็นนักเรียนที่ดี"], "PyThaiNLP"),
}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """Model M fitted for 2 iterations on 2 pairs with statistics of the same pairs."""
    from alignment.stats.statistics import AlignmentStatistics

    pairs = [(s.split(), t.split()) for s, t in zip(SRC, TGT)]
    stats = AlignmentStatistics.from_sentences([s for s, _ in pairs], [t for _, t in pairs],
                                              verbose=False)
    gold = [[(0, 0), (1, 1)], [(0, 0)], [(0, 0)]]
    path = tmp_path_factory.mktemp("model") / "m.npz"
    MatchingAligner(n_iter=2).fit(pairs, gold, stats=stats).save(path)
    return str(path)


@pytest.mark.parametrize("language", sorted(UNSEGMENTED))
@pytest.mark.parametrize("command", ["unsupervised", "bayes", "fast_align", "predict",
                                     "train"])
def test_unsegmented_text_is_refused_naming_a_segmenter(tmp_path, capsys, tiny_model,
                                                        language, command):
    """Each line of unsegmented text was one word: aligned (0-0 on every line), exit 0."""
    lines, segmenter = UNSEGMENTED[language]
    src = _write(tmp_path / "a.en", SRC)
    tgt = _write(tmp_path / "a.xx", lines)
    out = str(tmp_path / "out")
    files = ["--src", src, "--tgt", tgt]
    argv = {"unsupervised": ["align", "unsupervised"] + files,
            "bayes": ["align", "unsupervised", "--model", "bayes"] + files,
            "fast_align": ["align", "unsupervised", "-i", _write(
                tmp_path / "in.txt", [f"{s} ||| {t}" for s, t in zip(SRC, lines)])],
            "predict": ["align", "predict", "-m", tiny_model] + files,
            "train": ["align", "train", "--aligners", "none", "--gold", _write(
                tmp_path / "g.txt", ["0-0"] * 3), "--bitext-src", _write(tmp_path / "b.en", SRC),
                "--bitext-tgt", _write(tmp_path / "b.fr", TGT)] + files}[command]
    rc, _, err = run_cli(argv + ["-o", out, "-q"], capsys)
    where = str(tmp_path / "in.txt") + ": target side: " if command == "fast_align" else tgt
    assert one_line_error(rc, err, where, f"{language} letters without spaces", "unsegmented",
                          segmenter), err
    assert not (tmp_path / "out").exists()


def test_an_unsegmented_bitext_for_the_statistics_is_refused(tmp_path, capsys):
    src = _write(tmp_path / "a.en", SRC)
    tgt = _write(tmp_path / "a.fr", TGT)
    zh = _write(tmp_path / "bt.zh", UNSEGMENTED["Chinese"][0])
    rc, _, err = run_cli(["align", "unsupervised", "--src", src, "--tgt", tgt,
                          "--bitext-src", src, "--bitext-tgt", zh, "-o",
                          str(tmp_path / "out"), "-q"], capsys)
    assert one_line_error(rc, err, zh, "unsegmented", "jieba"), err


def test_a_normal_bitext_with_one_word_lines_is_aligned(tmp_path, capsys, tiny_model):
    src = _write(tmp_path / "a.en", SRC + ["yes", "thanks"])
    tgt = _write(tmp_path / "a.zh", ["房子 很 小 。", "我 同意 。", "他 是 一个 好 学生 。",
                                     "是", "谢谢"])
    out = tmp_path / "out"
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", src, "--tgt", tgt,
                          "-o", str(out), "-q"], capsys)
    assert rc == 0, err
    assert len(out.read_text().splitlines()) == 5


WORD = st.text("abcdefghij", min_size=1, max_size=8)
HAN = st.text("我你他是的一个好学生家小同意", min_size=1, max_size=3)


@SETTINGS
@given(sentences=st.lists(st.lists(WORD | HAN, min_size=2, max_size=6), min_size=1,
                          max_size=30),
       one_word=st.lists(st.sampled_from(["yes", "oui", "谢谢", "好", "我同意", "ok"]),
                         max_size=3))
def test_a_segmented_corpus_with_a_few_one_word_lines_passes(sentences, one_word):
    """Lines of several words, and a few one-word lines (short ones of Chinese letters
    included), are a normal corpus."""
    check_segmented(sentences + [[w] for w in one_word], "a.txt")


@SETTINGS
@given(words=st.lists(st.sampled_from(["谢谢", "你好", "好", "我", "学生"]), min_size=1,
                      max_size=20))
def test_lines_of_short_chinese_words_pass(words):
    """A word list (one short word a line) is segmented text: no refusal."""
    check_segmented([[w] for w in words], "words.zh")


@SETTINGS
@given(lines=st.lists(st.text("我你他是的一个好学生家小同意很", min_size=5, max_size=40),
                      min_size=1, max_size=30),
       normal=st.integers(0, 2))
def test_lines_of_long_unsegmented_chinese_are_refused(lines, normal):
    sentences = [[w] for w in lines] + [["房子", "很", "小"]] * (normal if len(lines) >= 20
                                                             else 0)
    with pytest.raises(FormatError, match=re.escape("zh.txt: ") + ".*unsegmented.*jieba"):
        check_segmented(sentences, "zh.txt")


def test_aer_keeps_its_own_hint_for_unsegmented_text(tmp_path, capsys):
    """``aer`` names the unsegmented sentence at the gold link beyond it (its own hint)."""
    src = _write(tmp_path / "a.en", SRC)
    zh = _write(tmp_path / "a.zh", UNSEGMENTED["Chinese"][0])
    gold = _write(tmp_path / "g.txt", ["0-0 1-1"] * 3)
    rc, _, err = run_cli(["aer", "--gold", gold, "--test", gold, "--src", src, "--tgt", zh],
                         capsys)
    assert one_line_error(rc, err, gold, "split Chinese, Japanese or Thai"), err


# -------------------------------------- class: input in another case than the bitext
@pytest.mark.parametrize("side", ["--src", "--tgt"])
def test_input_in_another_case_than_the_model_gets_a_warning(tmp_path, capsys, tiny_model,
                                                            side):
    """The statistics are case-sensitive: 'The' is unknown to a lower-cased bitext."""
    upper = {"--src": [s.title() for s in SRC], "--tgt": [t.title() for t in TGT]}[side]
    src = _write(tmp_path / "a.en", upper if side == "--src" else SRC)
    tgt = _write(tmp_path / "a.fr", upper if side == "--tgt" else TGT)
    out = tmp_path / "out"
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", src, "--tgt", tgt,
                          "-o", str(out), "-q"], capsys)
    lines = [ln for ln in err.splitlines() if not ln.startswith("aligned 3 ")]
    assert rc == 0 and len(out.read_text().splitlines()) == 3
    assert len(lines) == 1 and lines[0].startswith(f"structpred: warning: {side}: "), err
    assert "only by their case" in lines[0] and f"lower-case {side}" in lines[0]


def test_align_train_warns_of_gold_sentences_in_another_case_than_the_bitext(tmp_path,
                                                                           capsys):
    src = _write(tmp_path / "a.en", [s.title() for s in SRC])
    tgt = _write(tmp_path / "a.fr", TGT)
    rc, _, err = run_cli(["align", "train", "--src", src, "--tgt", tgt, "--gold",
                          _write(tmp_path / "g.txt", ["0-0"] * 3), "--aligners", "none",
                          "--bitext-src", _write(tmp_path / "b.en", SRC),
                          "--bitext-tgt", _write(tmp_path / "b.fr", TGT), "--iterations", "2",
                          "-o", str(tmp_path / "m.npz"), "-q"], capsys)
    warning = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")]
    assert rc == 0 and len(warning) == 1 and "--src: " in warning[0], err
    assert "lower-case --src" in warning[0]


def test_input_in_the_case_of_the_model_gets_no_warning(tmp_path, capsys, tiny_model):
    src = _write(tmp_path / "a.en", SRC + ["Paris ."])
    tgt = _write(tmp_path / "a.fr", TGT + ["Paris ."])
    rc, _, err = run_cli(["align", "predict", "-m", tiny_model, "--src", src, "--tgt", tgt,
                          "-o", str(tmp_path / "out"), "-q"], capsys)
    # the pairs are the model's training pairs: that warning (sweep 23) is another matter
    others = [ln for ln in err.splitlines() if "warning" in ln and "trained on" not in ln]
    assert rc == 0 and others == [], err


# ------------------------------------------- class: labels the topic model does not know
TOPIC_TRAIN = ["sport\tthe match was won by the home team",
               "sport\tgoal scored in the final minute of the game",
               "politics\tthe parliament voted on the new law",
               "politics\tthe minister announced an election"]


@pytest.fixture(scope="module")
def topic_model(tmp_path_factory):
    d = tmp_path_factory.mktemp("topics")
    data = _write(d / "train.tsv", TOPIC_TRAIN)
    path = d / "m.npz"
    from structpred.cli import main

    assert main(["topics", "train", "--data", data, "--model", "nbsvm", "--min-df", "1",
                 "-o", str(path), "-q"]) == 0
    return str(path)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=st.lists(st.text("abcxyz", min_size=1, max_size=6).filter(
    lambda t: t not in ("sport", "politics")), min_size=1, max_size=5))
def test_topics_eval_refuses_documents_of_unknown_labels_only(tmp_path_factory, capsys,
                                                            topic_model, labels):
    """None of the labels known: the accuracy was 0 %, with exit status 0."""
    data = _write(tmp_path_factory.mktemp("e") / "eval.tsv",
                  [f"{lab}\tthe match was won" for lab in labels])
    rc, out, err = run_cli(["topics", "eval", "-m", topic_model, "--data", data], capsys)
    assert one_line_error(rc, err, data, "no document has a label the model knows",
                          "'politics', 'sport'"), err
    assert out == ""


def test_topics_eval_warns_of_some_unknown_labels(tmp_path, capsys, topic_model):
    """Some unknown labels: counted as errors, as before, with one warning line naming the
    first such document and the accuracy on the others (it was a note among the results)."""
    data = _write(tmp_path / "eval.tsv", ["sport\tthe match was won",
                                          "weather\train at the game tomorrow",
                                          "politics\tthe parliament voted"])
    rc, out, err = run_cli(["topics", "eval", "-m", topic_model, "--data", data, "-q"], capsys)
    warning = [ln for ln in err.splitlines() if ln.startswith("structpred: warning: ")]
    assert rc == 0 and len(warning) == 1, err
    assert f"{data}:2: 1 of the 3 documents has a label the model was not trained on " \
           "('weather'), counted as errors (accuracy on the other 2: 100.00%)" in warning[0]
    assert "accuracy: 66.67% (2 of 3 documents)" in out and "note:" not in out


# --------------------------------------------------------- class: counts of one
@SETTINGS
@given(n=st.integers(0, 10**6), noun=st.sampled_from(["sentence", "document", "pair",
                                                       "image", "sentence pair", "link"]))
def test_counted_agrees_with_its_number(n, noun):
    from structpred.io import counted

    text = counted(n, noun)
    assert text == f"{n} {noun}" if n == 1 else text == f"{n} {noun}s"


def test_summaries_of_one_say_one_sentence(tmp_path, capsys, topic_model):
    gold = _write(tmp_path / "g.txt", ["0-0"])
    rc, out, err = run_cli(["aer", "--gold", gold, "--test", gold], capsys)
    assert rc == 0 and "(1 sentence)" in out, out + err
    data = _write(tmp_path / "e.tsv", ["sport\tthe match was won"])
    rc, out, err = run_cli(["topics", "eval", "-m", topic_model, "--data", data], capsys)
    assert rc == 0 and "(1 of 1 document)" in out and "read 1 document " in err, out + err


@pytest.mark.slow
def test_tag_train_on_one_sentence_says_one_sentence(tmp_path, capsys):
    data = _write(tmp_path / "two.conll", ["the DT B-NP", "dog NN I-NP", "runs VBZ B-VP", "",
                                           "a DT B-NP", "cat NN I-NP", "sleeps VBZ B-VP"])
    rc, out, err = run_cli(["tag", "train", "--data", data, "-o", str(tmp_path / "t.npz"),
                            "--iterations", "2"], capsys)
    assert rc == 0 and "trained bregman on 1 sentence (" in out, out + err
    assert "1 sentences" not in out + err and "1 iterations" not in out + err


# ------------------------------------------------------ class: class-index (VOC) masks
def _voc_masks(folder, n=3, void=True, rgb=False):
    import numpy as np
    from PIL import Image

    from segmentation.data import _voc_palette

    pal = _voc_palette()
    rng = np.random.default_rng(0)
    (folder / "img").mkdir()
    (folder / "mask").mkdir()
    for k in range(n):
        cls = np.zeros((40, 50), np.uint8)
        cls[10:30, 10:25] = 15
        cls[5:15, 30:45] = 13
        if void:
            cls[9, 9:26] = cls[30, 9:26] = 255
        img = rng.integers(0, 60, (40, 50, 3)).astype(np.uint8)
        img[cls == 15] += 150
        Image.fromarray(img).save(folder / "img" / f"a{k}.png")
        if rgb:
            Image.fromarray(pal[cls]).save(folder / "mask" / f"a{k}.png")
        else:
            m = Image.fromarray(cls, "P")
            m.putpalette(pal.flatten().tolist())
            m.save(folder / "mask" / f"a{k}.png")
    return str(folder / "img"), str(folder / "mask")


@SETTINGS
@given(labels=st.sets(st.integers(0, 20), min_size=1, max_size=4))
def test_foreground_labels_choose_the_classes_of_a_class_index_mask(tmp_path_factory, labels):
    """Class indices in the ranges are the foreground, the others background, the void
    border ignored."""
    from segmentation.data import load_example

    images, masks = _voc_masks(tmp_path_factory.mktemp("voc"), n=1)
    ranges = tuple((c, c) for c in sorted(labels))
    _, mask, ignore = load_example(f"{images}/a0.png", f"{masks}/a0.png", ignore_value=255,
                                   foreground=ranges)
    import numpy as np
    from PIL import Image

    cls = np.asarray(Image.open(f"{masks}/a0.png"))
    assert (ignore == (cls == 255)).all()
    assert (mask == (np.isin(cls, sorted(labels)) & (cls != 255))).all()


def test_a_class_index_mask_is_refused_with_the_foreground_labels_hint(tmp_path, capsys):
    images, masks = _voc_masks(tmp_path)
    rc, _, err = run_cli(["segment", "eval", "--pred", masks, "--masks", masks], capsys)
    assert one_line_error(rc, err, "class-index mask", "--foreground-labels 15",
                          "--ignore-value 255"), err


def _binary_predictions(folder):
    """Masks 0/255 of class 15 of the VOC masks of ``folder / "mask"``."""
    import numpy as np
    from PIL import Image

    pred = folder / "pred"
    pred.mkdir()
    for f in sorted((folder / "mask").iterdir()):
        cls = np.asarray(Image.open(f))
        Image.fromarray(np.where(cls == 15, 255, 0).astype(np.uint8)).save(pred / f.name)
    return pred


def test_a_void_border_without_ignore_value_is_refused(tmp_path, capsys):
    """With --foreground-labels, 255 would be background: refused naming --ignore-value."""
    images, masks = _voc_masks(tmp_path)
    pred = _binary_predictions(tmp_path)
    rc, _, err = run_cli(["segment", "eval", "--pred", str(pred), "--masks", masks,
                          "--foreground-labels", "15"], capsys)
    assert one_line_error(rc, err, "a0.png", "void border", "--ignore-value 255"), err


def test_eval_pred_scores_class_index_gold_masks(tmp_path, capsys):
    """Gold VOC masks against binary predictions of class 15: IoU 100."""
    images, masks = _voc_masks(tmp_path)
    pred = _binary_predictions(tmp_path)
    rc, out, err = run_cli(["segment", "eval", "--pred", str(pred), "--masks", masks,
                            "--foreground-labels", "15", "--ignore-value", "255"], capsys)
    assert rc == 0 and "foreground IoU 100.00%" in out, out + err


def test_a_voc_mask_saved_as_rgb_gets_a_voc_hint(tmp_path, capsys):
    images, masks = _voc_masks(tmp_path, rgb=True)
    rc, _, err = run_cli(["segment", "eval", "--pred", masks, "--masks", masks], capsys)
    assert one_line_error(rc, err, "colour image", "PASCAL VOC's class colours",
                          "(192, 128, 128) is class 15", "--foreground-labels"), err


def test_an_ordinary_colour_mask_gets_no_voc_hint(tmp_path):
    import numpy as np
    from PIL import Image

    from segmentation.data import load_mask

    a = np.random.default_rng(1).integers(0, 255, (10, 10, 3)).astype(np.uint8)
    Image.fromarray(a).save(tmp_path / "m.png")
    with pytest.raises(FormatError) as err:
        load_mask(tmp_path / "m.png")
    assert "colour image" in str(err.value) and "VOC" not in str(err.value)


@pytest.mark.slow
def test_segment_train_and_eval_on_class_15(tmp_path, capsys):
    images, masks = _voc_masks(tmp_path)
    model = str(tmp_path / "m.npz")
    rc, out, err = run_cli(["segment", "train", "--images", images, "--masks", masks,
                            "--foreground-labels", "15", "--ignore-value", "255", "-o", model,
                            "-q", "--iterations", "3"], capsys)
    assert rc == 0, err
    rc, out, err = run_cli(["segment", "eval", "-m", model, "--images", images, "--masks",
                            masks, "--ignore-value", "255"], capsys)   # the model's labels
    assert rc == 0 and "foreground IoU" in out, out + err


# ------------------------------------------------------- class: pipes for files
@pytest.mark.parametrize("command", ["align", "topics", "tag", "segment"])
def test_a_model_given_as_a_pipe_is_named_as_such(tmp_path, capsys, command):
    import os

    fifo = tmp_path / "model.npz"
    os.mkfifo(fifo)
    data = _write(tmp_path / "d.txt", ["a b"])
    argv = {"align": ["align", "predict", "-m", str(fifo), "--src", data, "--tgt",
                      _write(tmp_path / "d2.txt", ["c d"])],
            "topics": ["topics", "eval", "-m", str(fifo), "--data",
                       _write(tmp_path / "d.tsv", ["a\tb c"])],
            "tag": ["tag", "predict", "-m", str(fifo), "-i", data],
            "segment": ["segment", "predict", "-m", str(fifo), "--points", data, "-o",
                        str(tmp_path / "out")]}[command]
    rc, _, err = run_cli(argv, capsys)
    assert one_line_error(rc, err, str(fifo), "a pipe or device, not a file"), err


def test_align_train_refuses_a_bitext_given_as_a_pipe(tmp_path, capsys):
    import os

    src = _write(tmp_path / "a.en", SRC)
    tgt = _write(tmp_path / "a.fr", TGT)
    fifo = tmp_path / "bt.en"
    os.mkfifo(fifo)
    rc, _, err = run_cli(["align", "train", "--src", src, "--tgt", tgt, "--gold",
                          _write(tmp_path / "g.txt", ["0-0"] * 3), "--aligners", "none",
                          "--bitext-src", str(fifo), "--bitext-tgt", tgt,
                          "-o", str(tmp_path / "m.npz")], capsys)
    assert one_line_error(rc, err, str(fifo), "--bitext-src is a pipe", "read more than once"), err


# -------------------------------------------------- class: documents without text
BLANK = st.text(" \t", max_size=4)


@SETTINGS
@given(blank=BLANK, fmt=st.sampled_from(["tsv", "jsonl", "folder"]),
       command=st.sampled_from(["train", "predict"]))
def test_a_document_of_empty_text_is_refused_with_its_line(tmp_path_factory, blank, fmt,
                                                          command):
    import json

    from topics._text_io import read_documents

    d = tmp_path_factory.mktemp("docs")
    texts = [("sport", "the match was won"), ("politics", blank), ("sport", "goal")]
    if fmt == "tsv":
        path = _write(d / "d.tsv", [f"{lab}\t{t}" for lab, t in texts])
        where = f"{path}:2: empty text"
    elif fmt == "jsonl":
        path = _write(d / "d.jsonl", [json.dumps({"label": lab, "text": t})
                                      for lab, t in texts])
        where = f"{path}:2: empty text"
    else:
        path = d / "docs"
        for i, (lab, t) in enumerate(texts):
            (path / lab).mkdir(parents=True, exist_ok=True)
            (path / lab / f"{i}.txt").write_text(t)
        where = str(path / "politics" / "1.txt") + ": empty text"
    with pytest.raises(FormatError) as err:
        read_documents(path, fmt, labels="required" if command == "train" else "optional")
    assert str(err.value).startswith(where), err.value


# ---------------------------------------------------- class: point files with a header
@SETTINGS
@given(header=st.sampled_from(["x y z label", "X Y Z L", "// x y z class"]))
def test_a_header_line_of_a_point_file_is_named(tmp_path_factory, header):
    from segmentation.data import load_points

    path = tmp_path_factory.mktemp("pts") / "scan.xyz"
    columns = max(len(header.split()), 4)
    path.write_text(header + "\n" + "0 0 0 1" + " 0" * (columns - 4) + "\n")
    with pytest.raises(FormatError) as err:
        load_points(path)
    assert ":1: " in str(err.value) and "a header line?" in str(err.value)


def test_a_non_number_in_a_data_line_is_not_called_a_header(tmp_path):
    from segmentation.data import load_points

    path = tmp_path / "scan.xyz"
    path.write_text("0 0 0 1\n1 1 x 0\n")
    with pytest.raises(FormatError) as err:
        load_points(path)
    assert ":2: " in str(err.value) and "header" not in str(err.value)


# ------------------------------------------- class: names with line breaks in messages
def test_a_summary_line_naming_a_file_with_a_line_break_stays_one_line(tmp_path, capsys,
                                                                      topic_model):
    data = _write(tmp_path / "d.tsv", ["sport\tthe match was won"])
    out = tmp_path / "o\nut.txt"
    rc, _, err = run_cli(["topics", "predict", "-m", topic_model, "--data", data,
                          "-o", str(out)], capsys)
    assert rc == 0 and out.read_text() == "sport\n", err
    assert err.splitlines()[-1] == f"1 label written to {tmp_path}/o\\nut.txt", err


@pytest.mark.parametrize("empty_side", ["src", "tgt"])
def test_an_empty_side_of_a_bitext_is_named_as_empty(tmp_path, empty_side):
    # before: "a.fr:1: line counts differ: empty.txt has only 0 lines"
    from alignment.data.formats import read_parallel
    from structpred import FormatError

    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "a.fr").write_text("la maison\n")
    files = [str(tmp_path / "empty.txt"), str(tmp_path / "a.fr")]
    with pytest.raises(FormatError, match=r"empty.txt: empty: no lines, while .*a.fr has some"):
        read_parallel(*(files if empty_side == "src" else files[::-1]))


def _column_file(path, n_sentences, sep="\n\n", first=""):
    rows = [f"w{i}{k} NN {'B-NP' if k == 0 else 'I-NP'}" for i in range(n_sentences)
            for k in range(3)]
    text = sep.join("\n".join(rows[3 * i:3 * i + 3]) for i in range(n_sentences))
    path.write_text(first + text + "\n")
    return str(path)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(34, 60))
def test_a_column_file_without_blank_lines_is_named_as_one_long_sentence(tmp_path, capsys, n):
    data = _column_file(tmp_path / "noblank.txt", n, sep="\n")
    rc, out, err = run_cli(["tag", "train", "--data", data, "-o", str(tmp_path / "m.npz"), "-q"],
                           capsys)
    assert one_line_error(rc, err, f"its {3 * n} tokens are one sentence",
                          "separated by blank lines") and out == ""


def test_a_comment_line_of_a_column_file_is_named(tmp_path, capsys):
    # before: "expected 3 columns, found 2 (line 1 has 3)": '# a comment' read as a token
    data = _column_file(tmp_path / "c.txt", 5, first="# sent_id = 1\n")
    rc, out, err = run_cli(["tag", "train", "--data", data, "-o", str(tmp_path / "m.npz"), "-q"],
                           capsys)
    assert one_line_error(rc, err, "line 1 starts with '#': a comment?") and out == ""


def test_chunk_tags_in_lower_case_get_a_warning(tmp_path, capsys):
    data = tmp_path / "lower.txt"
    data.write_text(open(_column_file(tmp_path / "c.txt", 12)).read().lower())
    rc, _, err = run_cli(["tag", "train", "--data", str(data), "-o", str(tmp_path / "m.npz"),
                          "-q", "--iterations", "2"], capsys)
    assert rc == 0 and "look like chunk tags in lower case" in err and "\n" not in err.strip()
    rc, _, err = run_cli(["tag", "train", "--data", _column_file(tmp_path / "u.txt", 12), "-o",
                          str(tmp_path / "m2.npz"), "-q", "--iterations", "2"], capsys)
    assert rc == 0 and "lower case" not in err


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tabbed=st.lists(st.booleans(), min_size=2, max_size=8))
def test_texts_to_predict_with_and_without_a_tab_are_refused(tmp_path_factory, tabbed):
    # before: 'good nice<TAB>lovely' was the label 'good nice' and the text 'lovely', the
    # next line without a tab a text alone
    from topics import read_documents

    path = tmp_path_factory.mktemp("tsv") / "texts.tsv"
    path.write_text("".join(f"pos\tgood text {i}\n" if t else f"good text {i}\n"
                            for i, t in enumerate(tabbed)))
    if all(tabbed) or not any(tabbed):
        docs = read_documents(path, labels="optional")
        assert len(docs.texts) == len(tabbed)
        assert all(t.startswith("good text") for t in docs.texts)
    else:
        line = next(i for i, t in enumerate(tabbed) if t != tabbed[0]) + 1
        with pytest.raises(FormatError, match=rf"texts.tsv:{line}: (a|no) tab, but line 1"):
            read_documents(path, labels="optional")
