"""A search started while the newline count still runs says it waits for the count, and
Escape stops it then too: on the 1 GB tree `/` and Enter showed nothing for 2-3 s, because the
search waits for the count (files not counted yet read as empty) before its first progress."""

from __future__ import annotations

import pytest

from npudiag_tui.core.workspace import Workspace
from npudiag_tui.tui.app import NpuDiagApp, Phase

from conftest import settle
from test_first_screen import FIXTURE, _until, gated_count  # noqa: F401 (a fixture)

WAITING = "search: waiting for the line count"


@pytest.mark.asyncio
async def test_a_search_waiting_for_the_count_says_so_and_escape_stops_it(gated_count):  # noqa: F811
    ws = Workspace.open([str(FIXTURE)])
    ws.start_index(scan_first=True)  # as the CLI does
    app = NpuDiagApp(ws)

    def status() -> str:  # what the status line shows of its text: a narrow one cuts the end
        cell = app.query_one("#status-text")
        return cell.render().plain[:cell.size.width]

    def searching() -> bool:
        return any(w.group == "search" and not w.is_finished for w in app.workers)

    async with app.run_test(size=(120, 40)) as pilot:
        await _until(pilot, lambda: app.diagnosis is not None and app.phase is Phase.COUNTING, "the anchored screen")
        await pilot.press("slash", *"error", "enter")
        await _until(pilot, lambda: WAITING in status(), "the status saying the search waits")
        assert ws.pending and not gated_count.exists() and searching()  # the count is held at the gate

        await pilot.press("escape")
        await _until(pilot, lambda: not searching(), "the search stopped by Escape")
        assert WAITING not in status()

        gated_count.touch()  # the count ends: the stopped search stays stopped
        await settle(pilot)
        assert app.search.matches == {} and WAITING not in status()
