"""NLTK's tokenizers against the project's regular expression, on validation documents.

For each corpus (training part only), the default candidate of ``topics train``
(``sdem-nb-hinge``) is fitted on the validation folds the chooser uses (5-fold
cross-validation under 2,000 documents, else the 20% held out; seed 0) with the tokens of

* ``regex``: :class:`topics.tokens.Tokenizer` (the default);
* ``nltk-treebank``: NLTK's ``TreebankWordTokenizer`` (Penn Treebank rules: clitics such as
  "n't" split off, punctuation kept apart);
* ``nltk-wordpunct``: NLTK's ``wordpunct_tokenize`` (runs of word characters and of
  punctuation);

each then lower-cased, with the tokens that hold no letter, the stop words and the tokens of
fewer than 2 characters dropped, as the regular expression does.  It prints the validation
accuracy and the tokenising time.  NLTK is not a dependency of the project: give its folder
with ``--nltk-path`` (e.g. after ``pip install --target runs/nltk nltk``).

    python benchmarks/compare_tokenizers.py --nltk-path runs/nltk --corpora movies brown r8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", nargs="+", default=["movies", "brown", "r8"])
    ap.add_argument("--nltk-path", default=None)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args(argv)
    if args.nltk_path:
        sys.path.insert(0, args.nltk_path)
    from nltk.tokenize import TreebankWordTokenizer, wordpunct_tokenize
    from structpred.selection import paired_bootstrap
    from topics.auto import cross_validation_folds, spec_of, validation_split
    from topics.corpus import load_text_corpus
    from topics.tokens import ENGLISH_STOP_WORDS, Tokenizer

    treebank = TreebankWordTokenizer()

    def clean(toks):
        toks = (t.lower() for t in toks)
        return [t for t in toks if len(t) >= 2 and any(c.isalpha() for c in t)
                and t not in ENGLISH_STOP_WORDS]

    tokenizers = {"regex": Tokenizer(),
                  "nltk-treebank": lambda s: clean(treebank.tokenize(s)),
                  "nltk-wordpunct": lambda s: clean(wordpunct_tokenize(s))}
    spec = spec_of("sdem-nb-hinge")
    for corpus in args.corpora:
        texts, y = load_text_corpus(corpus, "train", args.data_dir)
        folds = (cross_validation_folds(y, 5, 0) if len(y) < 2000
                 else [validation_split(y, 0.2, 0)])
        correct = {}
        for name, tok in tokenizers.items():
            t0 = time.process_time()
            toks = [tok(t) for t in texts]
            secs = time.process_time() - t0
            right = []
            for fit, val in folds:
                voc = spec.make_vocabulary()
                X = voc.fit_transform([toks[i] for i in fit])
                est = spec.make_estimator().fit(X, y[fit])
                right.append(est.predict(voc.transform([toks[i] for i in val])) == y[val])
            correct[name] = np.concatenate(right).astype(int)
            line = (f"{corpus}\t{name}\t{100 * correct[name].mean():.2f}% on validation\t"
                    f"tokenising {secs:.1f}s CPU")
            if name != "regex":
                bs = paired_bootstrap(correct["regex"], correct[name])
                line += f"\tbetter than regex in {100 * (1 - bs.p_not_better):.0f}% of bootstraps"
            print(line, flush=True)


if __name__ == "__main__":
    main()
