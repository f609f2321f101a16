"""CPU and wall seconds of the feature work of ``tag train`` (validated run, validation
matrix, refit) for the code tree ROOT, on the shared data:

    PYTHONPATH=ROOT python benchmarks/bench_sequence_features.py ROOT conll2000

Trees with ``sequence.features.FeatureCodes`` encode the strings once and reuse the codes in
the refit; older trees build the strings again for the refit.  One JSON line.
"""

import json
import sys
import time
from pathlib import Path


def main(root, name):
    sys.path.insert(0, root)
    sys.path.insert(0, str(Path(root) / "benchmarks"))
    from bench_sequence import load
    from sequence.data import deterministic_split
    import sequence.features as F

    X, _, _, _ = load(name, Path(__file__).resolve().parents[2] / "shared" / "data" / "sequence")
    tr, va = deterministic_split(len(X))
    Xtr, Xva = [X[i] for i in tr], [X[i] for i in va]
    c0, w0 = time.process_time(), time.perf_counter()
    if hasattr(F, "FeatureCodes"):
        codes = F.FeatureCodes()
        groups = [codes.add(F.token_features(Xtr)), codes.add(F.token_features(Xva))]
        index, columns = codes.index([0], 2)
        codes.transform([0], index, columns, True)
        codes.transform([1], index, columns, True)
        index, columns = codes.index(groups, 2)
        codes.transform(groups, index, columns, True)
    else:
        feats = F.token_features(Xtr)
        index = F.FeatureIndex.from_features(feats, 2)
        index.transform(feats, True)
        del feats
        index.transform(F.token_features(Xva), True)
        feats = F.token_features(Xtr + Xva)
        F.FeatureIndex.from_features(feats, 2).transform(feats, True)
    print(json.dumps({"root": root, "data": name, "cpu": round(time.process_time() - c0, 2),
                      "wall": round(time.perf_counter() - w0, 2)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "conll2000")
