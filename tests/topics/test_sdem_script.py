"""scripts/reproduce_sdem.py end to end on the bundled 20 Newsgroups slice (small settings)."""

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def script(load_script):
    return load_script("reproduce_sdem")


def test_min_df_is_chosen_on_validation_and_used_by_every_method(script, tmp_path):
    """With --min-df-candidates, every (min_df, features) candidate is scored on the
    validation split; the winner's vocabulary is the one every method then sees."""
    data = tmp_path / "text" / "20newsgroups"
    data.mkdir(parents=True)
    for subset in ("train", "test"):
        shutil.copy(ROOT / "data" / "text" / f"20ng-4groups-{subset}.jsonl.gz",
                    data / f"20news-bydate-{subset}.jsonl.gz")
    out = tmp_path / "sdem.json"
    script.main(["--data-dir", str(tmp_path / "text"), "--second", "none", "--select",
                 "--min-df-candidates", "1", "3", "--feature-kinds", "tfidf-l2",
                 "--doc-norms", "3", "--priors", "laplace", "--lambdas", "1e-5",
                 "--epochs", "2", "--losses", "ncll", "--cs", "1", "--out", str(out)])
    res = json.loads(out.read_text())["results"][0]
    val = res["feature_validation"]
    assert sorted(val) == ["min_df 1 1-grams tfidf-l2 3", "min_df 3 1-grams tfidf-l2 3"]
    best = max(val, key=val.get)
    assert res["min_df"] == int(best.split()[1])
    sizes = {}
    from topics.corpus import Vocabulary, load_20newsgroups

    texts, _, _ = load_20newsgroups(tmp_path / "text", "train")
    for d in (1, 3):
        sizes[d] = len(Vocabulary(min_df=d).fit(texts))
    assert sizes[1] > sizes[3] and res["vocabulary"] == sizes[res["min_df"]]
    assert 0.5 < res["chosen_test"]["ncll"] <= 1.0
