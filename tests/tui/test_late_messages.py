"""Workers' messages that arrive after the panes are gone are dropped, never a crash.

bench/run_live.py's error storm crashed about every other headless run with `NoMatches` for
`#pane-hccl` in a message handler: the followed tree kept growing and the HCCL scan kept
posting while the app quit and its screen took the panes down. Here a followed tree grows
while its panes are rebuilt (a filter), reduced (a layout switch, a resize) and then the app
quits with the workers' messages still queued; leaving `run_test` re-raises any handler's error.
"""

from __future__ import annotations

import pytest

from npudiag_tui.core.model import Level
from npudiag_tui.core.views import FilterSpec
from npudiag_tui.tui.messages import (
    DiagnosisReady, LinesAppended, LinesCounted, MarksReady, SearchDone, SourceGrew, SourceProgress, SourceReady,
)

from test_live_tui import append, info, live_app, pids, plog_file, start_watcher, ts, wait_for


def _late_messages(app) -> list:
    """What the index, count, source, search and marks workers and the live tail post."""
    hccl = app.view("hccl")
    fids = tuple(range(len(app.ws.files)))
    return [
        SourceGrew("hccl", hccl.timeline, app.generation),
        SourceReady("hccl", hccl.timeline, app.generation),
        SourceProgress("HCCL", 1, 2),
        LinesAppended(fids),
        LinesCounted((), 1, 2),
        MarksReady({}),
        SearchDone({}, app.search.generation),
        DiagnosisReady(app.diagnosis),
    ]


@pytest.mark.asyncio
async def test_quitting_while_a_followed_tree_grows_and_the_panes_change(tree):
    app, ws = live_app(tree)
    log = tree[0]
    async with app.run_test(size=(160, 50)) as pilot:
        await start_watcher(pilot, app)
        pid = pids(log)[0]
        path = plog_file(log, pid)
        for k in range(5):
            append(path, info(pid, 30.0 + k) + f"[ERROR] HCCL({pid},python):{ts(30.5 + k)} [task.cc:2][{pid}]storm {k}\n")
            app.on_lines_appended(tuple(range(len(ws.files))))  # the tail's public entry, from any thread
        app.apply_filter(FilterSpec(min_level=int(Level.WARNING)))  # the panes rebuilt: scans post
        await pilot.press("v")  # layout switch
        await pilot.resize_terminal(90, 30)  # panes reduced, the panel takes the screen
        late = _late_messages(app)
        await pilot.pause()
        # quit with the messages still queued: they reach the handlers while the screen goes
        for _ in range(40):
            for message in late:
                app.post_message(message)
    assert app.return_code in (None, 0)


@pytest.mark.asyncio
async def test_late_messages_under_a_dialog_leave_the_panes_working(tree):
    # a dialog is the active screen; the messages still reach the panes of the main screen
    app, ws = live_app(tree)
    async with app.run_test(size=(160, 50)) as pilot:
        await start_watcher(pilot, app)
        await pilot.press("question_mark")
        for message in _late_messages(app):
            app.post_message(message)
        await pilot.pause()
        await pilot.press("escape")
        before = app.view("plog").count
        pid = pids(log := tree[0])[0]
        append(plog_file(log, pid), info(pid, 40.0))
        assert await wait_for(pilot, lambda: app.view("plog").count == before + 1)
