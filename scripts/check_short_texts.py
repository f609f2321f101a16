"""The default of ``structpred topics train`` on text no default was chosen on, against
scikit-learn's peers on the same split.

``--source subjects`` (the default): short texts, the subject lines of the 20 Newsgroups
training posts (about 5 words each), labelled by their newsgroup.  ``--source r52``: the 52
classes of Reuters-21578 R52 (ModApte, 6,532 training and 2,568 test stories; 1 to 2,840
training stories per class), where the defaults were chosen on R8's 8 classes only.
``--source langid``: language identification of single sentences in four languages, a task
and a text type no default was chosen on: the English and Czech development sentences of the
Czech-English alignment data (800 each), the French test sentences of the Hansards (447,
lower-cased as distributed) and the Romanian test sentences (248), from the project's
alignment data store (``--align-dir``); shuffled with a fixed seed and cut 60 / 40.

The subjects come from the TRAINING part of the bydate split only (``Subject:`` header,
leading ``Re:`` removed, subjects of at least 2 words); they are shuffled with a fixed seed
and cut 80 / 20 into a training and a test file.  Threads share subjects, so some test
subjects also occur in training, for every method alike.  The default command runs as a
user would run it (``structpred topics train --data train.tsv``, then ``topics eval``);
the peers are fitted on the same files: ``MultinomialNB`` and ``ComplementNB`` on word
counts, ``LinearSVC`` and ``LogisticRegression`` on tf-idf (scikit-learn's defaults).

    python scripts/check_short_texts.py --data-dir ../shared/data/text --out runs/short_texts
    python scripts/check_short_texts.py --source r52 --out runs/r52
    python scripts/check_short_texts.py --source langid --out runs/langid
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def subject_lines(data_dir):
    """``(label, subject)`` of every training post with a subject of at least 2 words."""
    path = Path(data_dir) / "20newsgroups" / "20news-bydate-train.jsonl.gz"
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            m = re.search(r"^Subject:\s*(.*)$", row["text"], re.M)
            if not m:
                continue
            subject = re.sub(r"^(re:\s*)+", "", m.group(1).strip(), flags=re.I)
            if len(subject.split()) >= 2:
                out.append((row["label"], subject.replace("\t", " ")))
    return out


def r52_split(data_dir, out):
    """R52's ModApte training and test stories (title and body, whitespace runs made one
    space) as ``train.tsv`` and ``test.tsv``."""
    paths = {}
    for name in ("train", "test"):
        src = Path(data_dir) / "reuters21578" / f"reuters21578-modapte-{name}.jsonl.gz"
        rows = []
        with gzip.open(src, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if row.get("label_r52"):
                    rows.append((row["label_r52"], " ".join(row["text"].split())))
        paths[name] = out / f"{name}.tsv"
        paths[name].write_text("".join(f"{lab}\t{text}\n" for lab, text in rows),
                               encoding="utf-8")
    return paths


#: the sentences of each language: (alignment data folder, file)
LANGID_FILES = {"en": ("czech_en-cs", "dev.en"), "cs": ("czech_en-cs", "dev.cs"),
                "fr": ("hansards_en-fr", "test.fr"), "ro": ("romanian_en-ro", "test.ro")}


def language_sentences(align_dir):
    """``(language, sentence)`` of every sentence of at least 2 words in
    :data:`LANGID_FILES`, tokens joined by single spaces."""
    out = []
    for lang, (folder, name) in LANGID_FILES.items():
        with open(Path(align_dir) / folder / name, encoding="utf-8") as fh:
            out += [(lang, " ".join(line.split())) for line in fh if len(line.split()) >= 2]
    return out


def write_split(rows, out, seed=0, train_share=0.8):
    rows = list(rows)
    random.Random(seed).shuffle(rows)
    k = int(len(rows) * train_share)
    paths = {}
    for name, part in (("train", rows[:k]), ("test", rows[k:])):
        paths[name] = out / f"{name}.tsv"
        paths[name].write_text("".join(f"{lab}\t{text}\n" for lab, text in part),
                               encoding="utf-8")
    return paths


def read_tsv(path):
    labels, texts = zip(*(line.rstrip("\n").split("\t", 1)
                          for line in path.read_text(encoding="utf-8").splitlines()))
    return list(texts), np.asarray(labels)


def run_default(paths, out):
    """Accuracy (%) and training seconds of the default command, run as a user runs it."""
    cmd = [sys.executable, "-m", "structpred", "topics"]
    t0 = time.perf_counter()
    subprocess.run(cmd + ["train", "--data", str(paths["train"]), "-o", str(out / "m.npz"),
                          "-q"], check=True)
    seconds = time.perf_counter() - t0
    pred = subprocess.run(cmd + ["predict", "-m", str(out / "m.npz"), "--data",
                                 str(paths["test"]), "--format", "tsv"],
                          check=True, capture_output=True, text=True).stdout.split()
    _, gold = read_tsv(paths["test"])
    return 100.0 * float(np.mean(np.asarray(pred) == gold)), seconds


def run_peers(paths):
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import ComplementNB, MultinomialNB
    from sklearn.svm import LinearSVC

    Xtr, ytr = read_tsv(paths["train"])
    Xte, yte = read_tsv(paths["test"])
    rows = []
    for name, vec, clf in (("MultinomialNB", CountVectorizer(), MultinomialNB()),
                           ("ComplementNB", CountVectorizer(), ComplementNB()),
                           ("LinearSVC", TfidfVectorizer(), LinearSVC()),
                           ("LogisticRegression", TfidfVectorizer(),
                            LogisticRegression(max_iter=1000))):
        t0 = time.perf_counter()
        A = vec.fit_transform(Xtr)
        clf.fit(A, ytr)
        seconds = time.perf_counter() - t0
        rows.append((name, 100.0 * float(np.mean(clf.predict(vec.transform(Xte)) == yte)),
                     seconds))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default="../shared/data/text")
    ap.add_argument("--align-dir", default="../shared/data/alignment",
                    help="the alignment data store (for --source langid)")
    ap.add_argument("--source", choices=("subjects", "r52", "langid"), default="subjects")
    ap.add_argument("--out", default="runs/short_texts")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.source == "r52":
        paths = r52_split(args.data_dir, out)
        _, ytr = read_tsv(paths["train"])
        _, yte = read_tsv(paths["test"])
        print(f"R52: {len(ytr)} train, {len(yte)} test stories, {len(set(ytr))} classes\n")
    elif args.source == "langid":
        rows = language_sentences(args.align_dir)
        paths = write_split(rows, out, train_share=0.6)
        n_train = sum(1 for _ in paths["train"].open())
        print(f"{len(rows)} sentences of 4 languages: {n_train} train, "
              f"{len(rows) - n_train} test\n")
    else:
        rows = subject_lines(args.data_dir)
        paths = write_split(rows, out)
        n_train = sum(1 for _ in paths["train"].open())
        words = np.mean([len(t.split()) for _, t in rows])
        print(f"{len(rows)} subjects ({words:.1f} words on average): {n_train} train, "
              f"{len(rows) - n_train} test\n")
    acc, seconds = run_default(paths, out)
    table = [("`topics train` (the default)", acc, seconds)] + run_peers(paths)
    print("| method | test accuracy (%) | training (s) |\n|---|---:|---:|")
    for name, a, s in table:
        print(f"| {name} | {a:.2f} | {s:.1f} |")
    (out / "results.json").write_text(json.dumps(
        [{"method": n, "accuracy": a, "seconds": s} for n, a, s in table], indent=1))


if __name__ == "__main__":
    main()
