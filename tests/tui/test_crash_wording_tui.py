"""#11 item 8 in the TUI: the side panel and the verdict bar say what `--report text` says, and
neither says "crashed" for one generic [ERROR] line."""

from __future__ import annotations

from pathlib import Path

import pytest

from npudiag_tui.core.workspace import Workspace
from npudiag_tui.report_text import render_text
from npudiag_tui.tui.app import NpuDiagApp
from npudiag_tui.tui.widgets.verdict_bar import VerdictBar

from conftest import settle

GENERIC = "[ERROR] RUNTIME(4127,python):2026-03-11-07:22:41.998.100 [stream.cc:100]4127 DoWork: something went wrong\n"


def _tree(tmp_path: Path, console: str) -> tuple[Path, Path]:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "plog-4127_20260311072241.log").write_text(GENERIC)
    (tmp_path / "train.log").write_text("step 10 done\n" + console)
    return root, tmp_path / "train.log"


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
@pytest.mark.parametrize("console, crashed", [("step 11 done\n", False), ("Segmentation fault (core dumped)\n", True)])
async def test_panel_bar_and_report_agree_on_crashed(tmp_path, size, console, crashed):
    root, stdout = _tree(tmp_path, console)
    ws = Workspace.open([str(root), str(stdout)])
    ws.index()
    report = _flat(render_text(ws, ws.diagnose(), color=False, width=200))
    assert ("crashed" in report) is crashed, report
    app = NpuDiagApp([str(root)], [str(stdout)], [])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        head = _flat(str(app.query_one("#diag-head").render()))
        cause, action = _flat(app.diagnosis.root_cause), _flat(app.diagnosis.next_actions[0].action)
        assert cause[:60] in head and cause[:60] in report
        assert action[:40] in report
        assert ("crashed" in head) is crashed, head
        bar = app.query_one(VerdictBar).plain
        assert "crash" not in bar.lower() or crashed
