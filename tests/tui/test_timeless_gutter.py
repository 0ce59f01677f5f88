"""A pane whose lines have no time keeps no clock in its gutter (80 columns are precious): the
console of a job that printed no stamps shows its text right after the anchor mark, once the
time model has read every line of it; a console with stamps keeps its clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from npudiag_tui.core.workspace import Workspace

pytest.importorskip("npudiag_tui.tui.app")

from conftest import settle, until


def first_row(view) -> str:
    return view.render_line(0).text


@pytest.mark.asyncio
async def test_a_console_without_stamps_draws_no_clock(tmp_path: Path):
    from npudiag_tui.tui.app import NpuDiagApp

    log = tmp_path / "train.log"
    log.write_text("step 1 loss 0.5\nRuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n", encoding="utf-8")
    app = NpuDiagApp(Workspace.open([], [str(log)]), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.view("console")
        pane.set_cursor(0)
        await until(pilot, lambda: first_row(pane).startswith("  step 1 loss"), "the text right after the mark")
        assert app.ws.times.timeless(pane.timeline.file_ids[0])


@pytest.mark.asyncio
async def test_a_console_with_stamps_keeps_its_clock(tmp_path: Path):
    from npudiag_tui.tui.app import NpuDiagApp

    log = tmp_path / "train.log"
    log.write_text("2026-03-11 10:00:00,000 step 1 loss 0.5\n"
                   "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n", encoding="utf-8")
    app = NpuDiagApp(Workspace.open([], [str(log)]), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        pane = app.view("console")
        pane.set_cursor(0)
        await pilot.pause()
        await until(pilot, lambda: app.ws.times.channels_ready(pane.timeline.file_ids[0]), "the channels")
        await pilot.pause()
        assert first_row(pane).startswith("  10:00:00.000 2026-03-11")
        assert not app.ws.times.timeless(pane.timeline.file_ids[0])
