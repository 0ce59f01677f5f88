"""Snapshot tests of the markdown and text reports on two fixtures: what a user pastes into a bug
report or reads in a terminal, compared whole, so any change to it is seen and chosen.

A changed report fails with a diff. When the change is intended, write the new snapshots with
`NPUDIAG_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/test_report_snapshots.py` and commit
them with the change that caused it.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

import pytest

from npudiag_tui import __version__
from npudiag_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = Path(__file__).resolve().parent / "report_snapshots"
FIXTURES = ["hccl-notify-wait-cascade", "aclnn-param-error"]


def _report(capsys, monkeypatch, tmp_path: Path, fixture: str, fmt: str) -> str:
    tree = tmp_path / fixture  # copied, so the paths the report names do not depend on the clone
    shutil.copytree(ROOT / "fixtures" / fixture, tree)
    argv = [str(tree / "ascend"), "--report", fmt]
    console = sorted(tree.glob("*.log"))
    for log in console:
        argv += ["--stdout", str(log)]
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 0
    out = capsys.readouterr().out
    return out.replace(str(tmp_path) + os.sep, "").replace(__version__, "<version>")


@pytest.mark.parametrize("fmt", ["markdown", "text"])
@pytest.mark.parametrize("fixture", FIXTURES)
def test_report_matches_its_snapshot(capsys, tmp_path, monkeypatch, fixture, fmt):
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    got = _report(capsys, monkeypatch, tmp_path, fixture, fmt)
    snap = SNAPSHOTS / f"{fixture}.{'md' if fmt == 'markdown' else 'txt'}"
    if os.environ.get("NPUDIAG_UPDATE_SNAPSHOTS") == "1":
        snap.write_text(got, encoding="utf-8")
    assert snap.is_file(), f"no snapshot {snap.name}: write it with NPUDIAG_UPDATE_SNAPSHOTS=1"
    want = snap.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "snapshot", "now", n=2))
    assert got == want, f"{snap.name} changed:\n{diff[:4000]}"
