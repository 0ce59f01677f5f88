"""The first screen does not wait for the whole tree's newline count (issue #10, step 3): it
shows the anchor while the files without error candidates are still being counted, says so,
and every line is there, as `wc -l` counts them, once the count is done."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import npudiag_tui.core.workspace as workspace
from npudiag_tui.core.window import WindowTimeline
from npudiag_tui.core.workspace import Workspace
from npudiag_tui.tui.widgets.log_view import LogView

from conftest import settle

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "hccl-notify-wait-cascade"


def _wc_l(path: str) -> int:
    data = Path(path).read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


@pytest.fixture
def gated_count(monkeypatch, tmp_path):
    """Worker processes on the small fixture, and a count of the files without hits that
    waits until the test opens the gate (a file: the count runs in forked processes)."""
    gate = tmp_path / "gate"
    real = workspace._count_file

    def count_after_gate(file_id, path, year, limit, hits=None, **kw):
        deadline = time.monotonic() + 120  # never hang the suite: the test fails on its own asserts
        while hits is None and not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real(file_id, path, year, limit, hits, **kw)

    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)
    monkeypatch.setattr(workspace, "_count_file", count_after_gate)
    return gate


async def _until(pilot, condition, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout:.0f} s"
        await pilot.pause(0.02)


async def test_the_anchor_is_shown_before_the_line_count_is_done(gated_count):
    from npudiag_tui.tui.app import NpuDiagApp

    ws = Workspace.open([str(FIXTURE)])
    ws.start_index(scan_first=True)  # as the CLI does, before the interface loads
    app = NpuDiagApp(ws)
    async with app.run_test(size=(120, 40)) as pilot:
        def on_anchor() -> bool:
            view = app.focused
            anchor = app.diagnosis.anchor if app.diagnosis is not None else None
            return (anchor is not None and isinstance(view, LogView)
                    and view.ref_at(view.cursor) == (anchor.ref.file_id, anchor.ref.line))

        await _until(pilot, on_anchor, "the cursor on the anchor")
        await pilot.pause()
        anchor = app.diagnosis.anchor
        view = app.focused
        # the count is still held at the gate: files are uncounted, and the status says so
        assert ws.pending and not gated_count.exists()
        assert "counting lines" in app.query_one("#status-text").render().plain
        assert sum(i.line_count for i in ws.indexes) < sum(_wc_l(f.path) for f in ws.files)
        row = view.render_line(view.cursor - int(view.scroll_y))
        assert "error cqe" in anchor.text and "error cqe" in row.text  # the anchored line, with its message

        # merged windows over several files follow the count by themselves: kept, not rebuilt
        windows = {v.pane: v.timeline for v in app.views() if isinstance(v.timeline, WindowTimeline)}
        assert windows

        gated_count.touch()
        await settle(pilot)
        assert {v.pane: v.timeline for v in app.views() if v.pane in windows} == windows
        assert all(v.timeline is windows[v.pane] for v in app.views() if v.pane in windows)
        assert not ws.pending
        assert [i.line_count for i in ws.indexes] == [_wc_l(f.path) for f in ws.files]
        assert "counting lines" not in app.query_one("#status-text").render().plain
        assert view.ref_at(view.cursor) == (anchor.ref.file_id, anchor.ref.line)  # the cursor stayed
