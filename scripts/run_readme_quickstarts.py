"""Run the README's quick-start blocks, including the full-size ones marked ``quickstart-slow``.

    python scripts/run_readme_quickstarts.py            # every block, in order
    python scripts/run_readme_quickstarts.py --fast     # only what the test suite runs

Each block runs in ``runs/readme/`` (which links ``data/``, ``docs/`` and
``scripts/``) with ``set -euo pipefail``; the script stops at the first failure.
"""

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_readme import run_block  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fast", action="store_true", help="skip the quickstart-slow blocks")
    args = ap.parse_args(argv)
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash (quickstart(?:-slow)?)\n(.*?)```", text, flags=re.S)
    work = ROOT / "runs" / "readme"
    work.mkdir(parents=True, exist_ok=True)
    for name in ("data", "docs", "scripts"):
        if not (work / name).exists():
            (work / name).symlink_to(ROOT / name)
    for i, (kind, block) in enumerate(blocks):
        if args.fast and kind == "quickstart-slow":
            continue
        t0 = time.perf_counter()
        out = run_block(block, work)
        print(f"block {i} ({kind}): exit {out.returncode}, {time.perf_counter() - t0:.0f} s")
        if out.returncode:
            print(out.stdout[-3000:], out.stderr[-3000:], sep="\n")
            return out.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
