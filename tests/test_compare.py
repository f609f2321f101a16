"""``structpred align compare`` (``make demo``): every system on the same sentences."""

import re

import pytest

from alignment.aligners.runs import available_aligners
from structpred.cli import main


def test_compare_prints_every_system(tmp_path, capsys):
    rc = main(["align", "compare", "--bitext-pairs", "2500", "--first", "20",
               "--cache-dir", str(tmp_path), "-q"])
    out = capsys.readouterr().out
    assert rc == 0
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
    names = [r.split("|")[1].strip() for r in rows]
    assert len(rows) == 6
    assert names[0].startswith("eflomal alone") and names[1].startswith("fast_align alone")
    assert names[2].startswith("ours: align unsupervised --model bayes")
    assert names[3].startswith("ours: align unsupervised (HMM")
    assert names[4].startswith("model M, thesis features")
    assert "align train default" in names[5]
    aer = {}
    for name, row in zip(names, rows):
        cells = [c.strip() for c in row.split("|")[2:-1]]
        if name.split()[0] in ("eflomal", "fast_align") and name.split()[0] not in available_aligners():
            assert "not installed" in row
            continue
        aer[name] = float(cells[2].strip("*"))
        assert 0 < aer[name] < 60
    # the default is the best supervised system even on this small bitext
    assert aer[names[5]] < aer[names[4]]
    assert re.search(r"test = the last 247 gold test sentences", out)


@pytest.mark.parametrize("argv, needle", [
    (["--bitext-pairs", "many"], "--bitext-pairs"),
    (["--bitext-pairs", "0"], "--bitext-pairs"),
    (["--bitext-pairs", "99999999"], "out of range"),
    (["--data-dir", "/nonexistent/place"], "--data-dir"),
])
def test_compare_errors(argv, needle, tmp_path, capsys):
    rc = main(["align", "compare", "--cache-dir", str(tmp_path), *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and needle in err[0] and "Traceback" not in err[0]
