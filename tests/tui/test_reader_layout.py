"""#11 items 2-4: the message on screen, the layout chosen for the reader, the verdict first."""

from __future__ import annotations

import pytest

from npudiag_tui.tui.pane_layout import MIN_PANE_CELLS, plan
from npudiag_tui.tui.widgets.log_view import LogView
from npudiag_tui.tui.widgets.verdict_bar import VerdictBar

from conftest import new_app, record_notices, settle


def _anchor_view(app) -> LogView:
    view = app.focused
    assert isinstance(view, LogView)
    assert view.ref_at(view.cursor) in view.anchor_refs
    return view


def _cursor_row(view: LogView) -> str:
    return view.render_line(view.cursor - int(view.scroll_y)).text


def test_plan_never_puts_panes_narrower_than_80_side_by_side():
    four = [("console", False), ("plog", False), ("hccl", False), ("device", False)]
    assert plan(176, four).columns == 2  # 220 columns less the side panel: a 2x2 grid
    assert plan(116, four).columns == 1
    assert plan(400, four).columns == 4
    got = plan(176, [("console", False), ("plog", False), ("hccl", True), ("device", False)])
    assert got.columns == 2 and got.hidden == {"hccl"}
    stacked = plan(100, [("plog", False), ("hccl", True)])
    assert stacked.columns == 1 and stacked.rows == ["1fr", "1"]  # the empty pane keeps its title
    assert plan(100, four, forced="side").columns == 4
    assert plan(400, four, forced="stacked").columns == 1


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 45), (220, 50)])
async def test_anchor_message_and_verdict_on_the_first_screen(size):
    app = new_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        view = _anchor_view(app)
        anchor = app.diagnosis.anchor
        # the message of the anchored line, not only its header, is in the pane
        words = anchor.text.split("]")[-1].strip()[:12]
        assert words and words in _cursor_row(view), (_cursor_row(view), words)
        for v in app.visible_views():
            assert v.size.width >= min(MIN_PANE_CELLS, size[0] - 45) or v.size.height <= 1
        side, bar = app.query_one("#side"), app.query_one(VerdictBar)
        action = app.diagnosis.next_actions[0].action[:20]
        if side.display:
            head = str(app.query_one("#diag-head").render())
            first = head.splitlines()[0]
            assert app.diagnosis.category in first and "Next action" in head
            # the verdict and next action come before the registry text and the cascade
            assert head.index("Next action") < head.index("Why this line")
        if not side.display or size[1] < 30:
            assert bar.display and app.diagnosis.category in bar.plain and "p: details" in bar.plain
            assert action[:10] in bar.plain


async def test_layout_is_chosen_again_on_resize_and_the_raw_line_stays_reachable():
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.query_one("#side").display and app.query_one(VerdictBar).display
        await pilot.resize_terminal(220, 50)
        await settle(pilot)
        assert app.query_one("#side").display and not app.query_one(VerdictBar).display
        widths = [v.size.width for v in app.visible_views() if v.size.height > 1]
        assert len(widths) >= 2 and min(widths) >= MIN_PANE_CELLS  # side by side, none narrow
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not app.query_one("#side").display and app.query_one(VerdictBar).display
        view = _anchor_view(app)
        raw = app.ws.indexes[view.ref_at(view.cursor)[0]].line(view.ref_at(view.cursor)[1])
        await pilot.press("R")
        await pilot.pause()
        assert raw[:30] in _cursor_row(view)
        await pilot.press("p")  # the panel the bar points at: at 80 columns it takes the screen
        await pilot.pause()
        side = app.query_one("#side")
        assert side.display and side.size.width >= 70 and not app.query_one("#panes").display
        assert app.focused is side and "p: back" in str(side.border_title)
        await pilot.press("p")  # and gives the panes back
        await pilot.pause()
        assert not side.display and app.query_one("#panes").display and isinstance(app.focused, LogView)


async def test_empty_pane_shrinks_to_its_title(tree):
    # the test tree's HCCL pane holds lines; a filter that leaves it none empties it
    from npudiag_tui.tui.screens.filter import FilterSpec

    app = new_app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.apply_filter(FilterSpec(regex="RunGraph"))
        await settle(pilot)
        hccl = app.view("hccl")
        assert hccl.count == 0
        assert hccl.size.height <= 1 and app.view("plog").size.height > 5


async def test_search_hits_are_walked_across_panes_and_counted():
    app = new_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.view("console").focus()
        await pilot.pause()
        await pilot.press("slash", *"link", "enter")  # only device lines say "link"
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView) and view.pane in ("hccl", "device")  # the HCCL pane shows HCCP lines too
        status = app.query_one("#status-text").render().plain
        total = sum(len(a) for a in app.search.matches.values())
        assert f"/{'link'} hit " in status and f"/{total}" in status
        app.marks_in_focused_only = True  # x: only the focused pane
        app.view("console").focus()
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert app.focused.pane == "console"


async def test_errors_are_walked_in_time_order_over_all_panes():
    app = new_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        seen = []
        for _ in range(4):
            await pilot.press("e")
            await pilot.pause()
            view = app.focused
            seen.append((view.time_at(view.cursor), view.pane))
        times = [t for t, _ in seen]
        assert times == sorted(times)
        assert len({p for _, p in seen}) >= 2  # the walk left the first pane


async def test_console_colour_codes_become_styles_and_other_escapes_stay_visible(tmp_path):
    from npudiag_tui.tui.app import NpuDiagApp

    log = tmp_path / "vllm.log"
    log.write_text("\x1b[1;36mINFO\x1b[0m 03-11 07:00:00 engine started \x1b]52;c;ZXZpbA==\x07 done\n"
                   "RuntimeError: \x1b[31mboom\x1b[0m\n")
    app = NpuDiagApp([], [str(log)], [])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        view = app.view("console")
        row = next(view.render_line(y) for y in range(5) if "engine started" in view.render_line(y).text)
        assert "␛[1;36m" not in row.text and "\x1b" not in row.text
        assert "␛]52" in row.text  # an OSC sequence is shown, never executed
        info = next(seg for seg in row if seg.text.startswith("INFO"))
        assert info.style.bold and info.style.color is not None


async def test_an_input_without_log_files_says_so_not_no_error(tmp_path):
    from npudiag_tui.tui.app import NpuDiagApp

    empty = tmp_path / "empty"
    empty.mkdir()
    app = NpuDiagApp([str(empty)], [], [])
    notices = record_notices(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.query_one(VerdictBar).plain
        assert "No log files found" in bar and "No error found" not in bar
        await pilot.press("a")
        await pilot.pause()
        assert any("no log files found" in str(n.message) for n in notices)


async def test_wrap_shows_the_selected_line_whole_and_keeps_the_others_in_place(tmp_path):
    from npudiag_tui.tui.app import NpuDiagApp

    plog = tmp_path / "ascend" / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    long_tail = " ".join(f"word{k}" for k in range(60)) + " THE-END"
    (plog / "plog-1_20260101100000000.log").write_text(
        "[INFO] GE(1,python):2026-01-01-10:00:00.000.000 [a.cc:1]1 F: first\n"
        f"[ERROR] GE(1,python):2026-01-01-10:00:01.000.000 [a.cc:2]1 F: failed {long_tail}\n"
        "[INFO] GE(1,python):2026-01-01-10:00:02.000.000 [a.cc:3]1 F: after\n")
    app = NpuDiagApp([str(tmp_path / "ascend" / "log")], [], [])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView) and view.cursor == 1
        rows = lambda: [view.render_line(y).text for y in range(12)]  # noqa: E731
        assert not any("THE-END" in r for r in rows())
        await pilot.press("z")
        await pilot.pause()
        shown = rows()
        assert any("THE-END" in r for r in shown)  # the whole line, over several rows
        assert sum("failed" in r for r in shown) == 1 and "after" in "".join(shown)
        await pilot.press("down")  # the next line: one row again, the wrap follows the cursor
        await pilot.pause()
        assert view.cursor == 2 and not any("THE-END" in r for r in rows())


async def test_a_running_search_shows_progress_and_escape_stops_it(monkeypatch):
    import asyncio
    import time
    from array import array

    import npudiag_tui.tui.app as app_module

    def endless(idx, pattern, cancelled=None, *args, **kw):  # a search over a huge tree
        while not cancelled():
            time.sleep(0.01)
        return array("I")

    app = new_app()
    notices = record_notices(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app_module, "scan_matching_lines", endless)
        await pilot.press("slash", *"never", "enter")
        busy = app.query_one("#status-busy")
        deadline = time.monotonic() + 10
        while "searching /never" not in busy.render().plain:
            assert time.monotonic() < deadline, "no search progress shown"
            await asyncio.sleep(0.02)
        assert "searching…" in app.query_one("#status-text").render().plain
        await pilot.press("escape")
        await pilot.pause()
        assert app.search.matches == {}
        assert any("stopped" in str(n.message) for n in notices)
        await pilot.press("j")  # keys still work
        deadline = time.monotonic() + 10
        while any(w.group == "search" and w.is_running for w in app.workers):
            assert time.monotonic() < deadline, "the search worker did not stop"
            await asyncio.sleep(0.02)


def _wrap_tree(tmp_path, lines: int = 60):
    plog = tmp_path / "ascend" / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    body = []
    for k in range(lines):
        level = "ERROR" if k == 5 else "INFO"
        tail = " ".join(f"w{k}x{j}" for j in range(25 + (k % 3) * 10)) + f" END{k}."
        body.append(f"[{level}] GE(1,python):2026-01-01-10:00:{k:02d}.000.000 [a.cc:{k}]1 F: line{k} {tail}\n")
    (plog / "plog-1_20260101100000000.log").write_text("".join(body))
    return tmp_path / "ascend" / "log"


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_wrap_all_shows_every_line_whole_and_the_cursor_stays_on_screen(tmp_path, size):
    from npudiag_tui.tui.app import NpuDiagApp

    app = NpuDiagApp([str(_wrap_tree(tmp_path))], [], [])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView) and view.cursor == 5
        height = view.scrollable_content_region.height
        screen = lambda: [view.render_line(y).text for y in range(height)]  # noqa: E731
        assert not any("END" in r for r in screen())  # one row per line: the tails are cut
        await pilot.press("Z")
        await settle(pilot)
        rows = screen()
        starts = [int(r.split(" line")[1].split()[0]) for r in rows if " line" in r]
        ends = {int(w[3:-1]) for r in rows for w in r.split() if w.startswith("END")}
        assert len(starts) >= 2 and starts == sorted(starts) and 5 in starts
        assert set(starts[:-1]) <= ends  # every line but perhaps the last on screen is shown whole
        assert view.scroll_x == 0 and view.virtual_size.width <= view.scrollable_content_region.width
        for key, want in (("G", 59), ("g", 0)):  # the last line's end is reachable, and back
            await pilot.press(key)
            await settle(pilot)
            assert view.cursor == want and any(f"END{want}." in r for r in screen()), (key, screen())
        for _ in range(height + 3):  # walking down keeps the cursor's line on screen
            await pilot.press("down")
        await settle(pilot)
        assert any(f" line{view.cursor} " in r for r in screen())
        assert any(f"END{view.cursor}." in r for r in screen())
        await pilot.press("Z")
        await settle(pilot)
        assert not any("END" in r for r in screen()) and any(f" line{view.cursor} " in r for r in screen())
