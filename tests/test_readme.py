"""The README's quick starts run as written.

Every fenced block marked ```` ```bash quickstart ```` is run, in order, by
bash (``set -euo pipefail``) in a scratch folder that links the repository's
``data/`` and ``docs/``, with this interpreter's ``bin/`` first on ``PATH``
(so ``structpred`` and ``python`` are the installed ones).  Blocks marked
``quickstart-slow`` would be full-size runs (the README has none now: the full-size
alignment protocol is in ``docs/inputs.md``); ``scripts/run_readme_quickstarts.py`` runs
those too.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def quickstart_blocks(kind="quickstart"):
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```bash {re.escape(kind)}\n(.*?)```", text, flags=re.S)


def run_block(block, cwd):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    return subprocess.run(["bash", "-c", "set -euo pipefail\n" + block], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    d = tmp_path_factory.mktemp("readme")
    for name in ("data", "docs", "scripts"):
        (d / name).symlink_to(ROOT / name)
    return d


def test_readme_has_quickstarts():
    blocks = quickstart_blocks()
    assert len(blocks) >= 5
    text = "\n".join(blocks)
    for cmd in ("structpred align train", "structpred align predict", "structpred aer",
                "structpred segment train", "structpred topics train", "custom_problem.py"):
        assert cmd in text, cmd


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(quickstart_blocks())))
def test_readme_quickstart_runs(scratch, index):
    out = run_block(quickstart_blocks()[index], scratch)
    assert out.returncode == 0, f"block {index}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert "Traceback" not in out.stderr
