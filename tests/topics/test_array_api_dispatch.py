"""The array-API checks of scikit-learn's estimator checks, for every topic model.

They need ``SCIPY_ARRAY_API=1`` before scipy is imported (see ``estimator_checks.py``), so
they run in a pytest process of their own; a skip there is a failure here."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.mark.slow
def test_every_topic_model_passes_the_array_api_checks():
    files = sorted(str(p) for p in HERE.glob("test_*.py")
                   if "@estimator_checks(" in p.read_text(encoding="utf-8"))
    env = dict(os.environ, SCIPY_ARRAY_API="1", STRUCTPRED_ARRAY_API_CHECKS="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           "-k", "sklearn_estimator_checks", *files],
                          capture_output=True, text=True, env=env, cwd=HERE.parent.parent)
    tail = proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed and int(passed.group(1)) >= len(files), tail
    assert "skipped" not in proc.stdout, tail
