"""The files structpred writes load back (issue 28 follow-up): :func:`structpred.io.load_npz`
refuses a float array holding NaN or an infinity as a damaged or edited file, on the claim
that no file structpred writes holds one.  Were the claim false for some writer, a user's
own trained model or cache would become unloadable; these tests train models of several
kinds on the bundled data, read every float array of every ``.npz`` written with numpy
and load each file back with its own reader."""

import gzip
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import one_line_error, run_cli
from structpred import open_text
from structpred.cli import main
from structpred.io import save_npz

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def non_finite(path):
    """``[(entry, "NaN" | "inf")]``: the float arrays of ``path`` that are not finite."""
    out = []
    with np.load(path, allow_pickle=False) as z:
        for key in z.files:
            a = z[key]
            if a.dtype.kind in "fc" and a.size and not np.isfinite(a).all():
                out.append((key, "NaN" if np.isnan(a).any() else "inf"))
    return out


def _bitext(folder, n):
    out = {}
    for lang in ("en", "fr"):
        with open_text(DATA / "hansards" / f"bitext.36-2.{lang}.gz") as fh:
            lines = list(itertools.islice(fh, n))
        out[lang] = folder / f"b.{lang}"
        out[lang].write_text("".join(lines), encoding="utf-8")
    return out


def _alignment_files(folder, hansards):
    """Statistics with an HMM and interaction statistics cached in a folder, and a model
    of the matching aligner trained on them; ``[(path, loader)]``."""
    from alignment import MatchingAligner
    from alignment.stats.hmm import HMMTables
    from alignment.stats.interactions import InteractionStatistics
    from alignment.stats.statistics import AlignmentStatistics

    bitext = _bitext(folder, 300)
    cache = folder / "cache"
    cache.mkdir()
    stats = AlignmentStatistics.load_or_fit(cache, bitext["en"], bitext["fr"], verbose=False,
                                            hmm=1)
    inter = InteractionStatistics.load_or_fit(cache, stats, bitext["en"], bitext["fr"])
    stats.hmm.save(folder / "hmm.npz")
    model = MatchingAligner(n_iter=3, interactions=True, max_fertility=2, decoder="lp").fit(
        hansards.test_pairs[:8], hansards.test_gold[:8], stats, interaction_stats=inter)
    model.save(folder / "aligner.npz")
    files = [(p, AlignmentStatistics.load) for p in cache.glob("stats-*.npz")]
    files += [(p, InteractionStatistics.load) for p in cache.glob("interactions-*.npz")]
    assert len(files) >= 2, sorted(p.name for p in cache.iterdir())
    return files + [(folder / "hmm.npz", HMMTables.load),
                    (folder / "aligner.npz", MatchingAligner.load)]


def _tagger_files(folder):
    from sequence import SequenceTagger, load_tagger, read_conll

    X, y = read_conll(DATA / "sequence" / "conll2000-train-300.txt.gz")
    out = []
    for name, params in {"inf": dict(relative_radius=np.inf, n_iter=2),
                         "tiny-radius": dict(radius=1e-6, n_iter=2),
                         "perceptron": dict(learner="perceptron", n_iter=1)}.items():
        tagger = SequenceTagger(**params).fit(X[:30], y[:30])
        tagger.save(folder / f"tagger-{name}.npz")
        out.append((folder / f"tagger-{name}.npz", load_tagger))
    return out


def _topic_files(folder):
    import topics
    from topics import Vocabulary, load_model, save_model

    with gzip.open(DATA / "text" / "20ng-4groups-train.jsonl.gz", "rt", encoding="utf-8") as fh:
        docs = [json.loads(line) for line in fh][::5]
    texts, y = [d["text"] for d in docs], [d["label"] for d in docs]
    vocab = Vocabulary(min_df=2)
    vocab.fit(texts)
    X = vocab.transform(texts)
    tiny = dict(n_iter=2, n_burn=1, n_samples=1, n_outer=1, n_grad=1, n_z_sweeps=1,
                grad_burn=1, grad_samples=1)
    models = {"sdem-nb": topics.SdemNaiveBayes(loss="hinge", n_epochs=1),
              "nbsvm": topics.NBSVM(max_iter=3),
              # no validation documents: its validation errors are NaN
              "disclda": topics.DiscLDA(n_class_topics=1, n_shared_topics=2, learn_transform=True,
                                        validation_fraction=0.0, **tiny),
              "medlda": topics.GibbsMedLDA(n_topics=3, n_iter=2, n_burn_in=1,
                                           n_predict_samples=1, n_predict_burn=1),
              "pamedhdp": topics.PaMedHDPClassifier(n_transform_burn=1, n_transform_samples=1)}
    out = []
    for name, est in models.items():
        est.fit(X, y)
        save_model(folder / f"topics-{name}.npz", est, model=name, vocabulary=vocab, texts=texts)
        out.append((folder / f"topics-{name}.npz", load_model))
    return out


def _segmentation_files(folder):
    from segmentation.model import MRFSegmenter

    horse = DATA / "segmentation" / "weizmann_horse" / "small"
    scan = DATA / "segmentation" / "oakland3d_part2" / "oakland_part2_01.xyz_label_conf.gz"
    runs = {"images": ["--images", str(horse / "images"), "--masks", str(horse / "masks"),
                       "--limit", "2", "--no-colour-model", "--memory-efficient"],
            "points": ["--points", str(scan), "--foreground-labels", "1300-1306",
                       "--voxel", "1.5"]}
    out = []
    for name, args in runs.items():
        path = folder / f"segmenter-{name}.npz"
        assert main(["segment", "train", "-q", "--iterations", "2", *args, "-o", str(path)]) in (0, None)
        out.append((path, MRFSegmenter.load))
    return out


def _check(files, root):
    bad = {str(p.relative_to(root)): non_finite(p) for p, _ in files if non_finite(p)}
    assert not bad, f"written files with non-finite float arrays: {bad}"
    for path, load in files:
        load(path)


def test_alignment_statistics_hmm_interactions_and_model_files_are_finite(hansards, tmp_path):
    """Statistics, HMM tables and interaction statistics cached in a folder, and a model
    M+F+Q trained on them: every float array finite, every file loads back."""
    _check(_alignment_files(tmp_path, hansards), tmp_path)


def test_tagger_files_are_finite(tmp_path):
    """Taggers with no radius (kept in the header), with a radius so small that validation
    never improves, and of the perceptron."""
    _check(_tagger_files(tmp_path), tmp_path)


def test_topic_model_files_are_finite(tmp_path):
    """Models of several kinds, DiscLDA among them with no validation documents (its
    validation errors are NaN, kept in the header)."""
    _check(_topic_files(tmp_path), tmp_path)


def test_segmentation_model_files_are_finite(tmp_path):
    """A segmenter of images (graphs streamed from disk, no colour model) and one of a
    point cloud."""
    _check(_segmentation_files(tmp_path), tmp_path)


# ------------------------------------------ counterexample: a training that overflowed
SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

_ROWS = [("fruit", "apple banana pear juice sweet ripe"), ("car", "engine wheel road fuel bus")]


def _tiny_counts():
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = np.zeros((12, 10), dtype=np.int64)
    y = np.array(["a", "b"] * 6)
    for i, label in enumerate(y):
        X[i, (0 if label == "a" else 5) + rng.integers(0, 5, 6)] += 1
    return sp.csr_matrix(X), y


@SETTINGS
@given(model=st.sampled_from(["PaMedLDA", "PaMedHDPClassifier"]),
       setting=st.one_of(st.builds(lambda e: {"c": 10.0 ** e}, st.integers(155, 308)),
                         st.builds(lambda e: {"v": 10.0 ** -e}, st.integers(155, 307)),
                         st.builds(lambda e: {"v": 10.0 ** e}, st.integers(151, 308)),
                         st.builds(lambda e: {"epsilon": 10.0 ** e}, st.integers(155, 308))))
def test_a_bayes_pa_classifier_whose_posterior_overflows_is_refused_at_fit(model, setting):
    """``c`` so large (``v`` so small) that the weights' Gaussian posterior overflowed:
    the fit went on with NaN weights, and the model written loaded as "a damaged or
    edited file"; now the fit is refused naming the settings (``v`` and ``epsilon`` so
    large were Python's OverflowError and numpy's "mean <= 0")."""
    import topics

    X, y = _tiny_counts()
    est = getattr(topics, model)(n_topics=3, **setting) if model == "PaMedLDA" else \
        getattr(topics, model)(**setting)
    c, v, eps = float(est.c), float(est.v), float(est.epsilon)
    with pytest.raises(ValueError, match=re.escape(f"c={c:g}, v={v:g}, epsilon={eps:g}: the "
                                                   "weights' Gaussian posterior overflowed")):
        est.fit(X, y)


@SETTINGS
@given(model=st.sampled_from(["GibbsMedLDA", "ImportanceMedLDA"]), e=st.integers(155, 300))
def test_a_medlda_whose_label_bias_overflows_is_refused_at_fit(model, e):
    """MedLDA with ``cost`` so large that the topics' label bias overflowed: the model was
    fitted and written with NaN in ``exp_bias_`` (``topics train --model medlda-gibbs
    --param cost=1e300``, exit status 0), then refused as "a damaged or edited file"
    (``ImportanceMedLDA``: "F contains NaN or infinite values")."""
    import topics

    X, y = _tiny_counts()
    est = getattr(topics, model)(n_topics=3, n_iter=2, cost=10.0 ** e)
    with pytest.raises(ValueError, match=re.escape(f"cost={10.0 ** e:g}, C=100000: the topics' "
                                                   "label bias overflowed")):
        est.fit(X, y)


@pytest.mark.parametrize("model", ["pamedlda", "pamedhdp"])
def test_topics_train_that_overflows_writes_no_model_and_a_sound_one_loads(model, tmp_path,
                                                                          capsys):
    """``topics train --param c=1e300``: exit status 0 and a model with NaN weights, which
    ``topics eval`` then refused as damaged; now one line naming ``c`` and no file, and
    the same training with the default ``c`` writes a model that loads."""
    data = tmp_path / "t.tsv"
    data.write_text("".join(f"{lab}\t{txt} {i}\n" for i in range(8) for lab, txt in _ROWS))
    out = tmp_path / "m.npz"
    extra = ["--n-topics", "3"] if model == "pamedlda" else []
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", model, *extra,
                          "--param", "c=1e300", "-q", "-o", str(out)], capsys)
    assert one_line_error(rc, err, model, "c=1e+300", "overflowed"), err
    assert not out.exists()
    rc, _, err = run_cli(["topics", "train", "--data", str(data), "--model", model, *extra,
                          "-q", "-o", str(out)], capsys)
    assert rc == 0, err
    assert not non_finite(out)
    rc, out_text, err = run_cli(["topics", "eval", "-m", str(out), "--data", str(data)], capsys)
    assert rc == 0 and "accuracy" in (out_text + err).lower(), err


@SETTINGS
@given(bad=st.sampled_from([np.nan, np.inf, -np.inf]), dtype=st.sampled_from(
    [np.float64, np.float32, np.float16, np.complex128]), at=st.integers(0, 4))
def test_save_npz_writes_no_file_that_load_npz_would_refuse(tmp_path_factory, bad, dtype, at):
    """The backstop: a float array holding NaN or an infinity is refused by the writer,
    naming the file and the array, and nothing is written (an existing file is kept)."""
    path = tmp_path_factory.mktemp("npz") / "m.npz"
    weights = np.zeros(5, dtype=dtype)
    weights[at] = bad
    with pytest.raises(ValueError, match=re.escape(f"{path}: not written: its array 'coef' "
                                                   "would hold NaN or an infinite value")):
        save_npz(path, {"n": np.arange(3), "coef": weights}, {"format": "demo", "version": 1})
    assert not path.exists()
    save_npz(path, {"coef": np.zeros(5)}, {"format": "demo", "version": 1})
    before = path.read_bytes()
    with pytest.raises(ValueError, match="would hold NaN"):
        save_npz(path, {"coef": weights}, {"format": "demo", "version": 1})
    assert path.read_bytes() == before


def test_a_topic_model_with_nan_state_is_not_written(tmp_path):
    """An estimator whose fitted arrays hold NaN (however it came to) is refused by
    ``save_model`` before a file is written (it was written, then refused as damaged)."""
    import topics
    from topics import Vocabulary, save_model

    texts = [f"{txt} {i}" for i in range(6) for _, txt in _ROWS]
    y = [lab for _ in range(6) for lab, _ in _ROWS]
    vocab = Vocabulary().fit(texts)
    est = topics.SdemNaiveBayes(n_epochs=1).fit(vocab.transform(texts), y)
    est.word_counts_[0, 0] = np.nan
    with pytest.raises(ValueError, match=re.escape("'state.word_counts_' would hold NaN")):
        save_model(tmp_path / "m.npz", est, model="sdem-nb", vocabulary=vocab)
    assert not (tmp_path / "m.npz").exists()
