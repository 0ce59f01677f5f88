"""Pilot tests: behaviour through real key presses, so the binding layer is tested too."""

from __future__ import annotations

from npudiag_tui.core.model import Level
from npudiag_tui.core.formats.levels import line_level
from npudiag_tui.tui.widgets.log_view import LogView
from npudiag_tui.tui.widgets.side_panel import SidePanel

from conftest import aligned, drawn_row, new_app, settle


def cursor_ref(view: LogView):
    return view.ref_at(view.cursor)


def cursor_text(app, view: LogView) -> str:
    fid, line = cursor_ref(view)
    return app.ws.indexes[fid].line(line)


async def focus_pane(pilot, pane: str) -> LogView:
    app = pilot.app
    for _ in range(6):
        if isinstance(app.focused, LogView) and app.focused.pane == pane:
            return app.focused
        await pilot.press("tab")
    raise AssertionError(f"pane {pane} not reachable with tab")


async def test_opens_on_anchor(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        anchor = app.diagnosis.anchor
        assert anchor is not None
        view = app.focused
        assert isinstance(view, LogView) and view.pane == "device"
        assert cursor_ref(view) == (anchor.ref.file_id, anchor.ref.line)
        assert "kernel param invalid" in cursor_text(app, view)
        # highlighted in every pane, and marked in the gutter of the pane that shows it
        for v in app.views():
            assert (anchor.ref.file_id, anchor.ref.line) in v.anchor_refs
        assert (await drawn_row(pilot, view, view.cursor)).text.startswith("!")
        # the cursor row is on screen
        assert view.scroll_y <= view.cursor < view.scroll_y + view.scrollable_content_region.height


async def test_error_and_warning_navigation(tree):
    """e/E and w/W walk the marks of every pane in time order: each press lands on a line of its
    level in whichever pane holds the next one, and the reverse key comes back."""
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)

        async def walk(key: str, level: Level, times: int) -> list[tuple[int, str, int]]:
            seen = []
            for _ in range(times):
                await pilot.press(key)
                view = app.focused
                assert line_level(cursor_text(app, view)) == level if level is Level.WARNING else \
                    line_level(cursor_text(app, view)) >= level
                seen.append((view.time_at(view.cursor), view.pane, view.cursor))
            assert [s[0] for s in seen] == sorted(s[0] for s in seen) and len(set(seen)) == times
            return seen

        view = await focus_pane(pilot, "plog")
        await pilot.press("g")
        assert view.cursor == 0
        errors = await walk("e", Level.ERROR, 3)
        await pilot.press("E")
        assert (app.focused.pane, app.focused.cursor) == errors[1][1:]
        await aligned(pilot)  # the other panes follow the moment e/E moved to
        assert app.view("plog").time_at(app.view("plog").cursor) <= errors[1][0]
        await focus_pane(pilot, "plog")
        await pilot.press("g")
        warnings = await walk("w", Level.WARNING, 2)
        await pilot.press("W")
        assert (app.focused.pane, app.focused.cursor) == warnings[0][1:]


async def test_anchor_key_and_cascade(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        anchor = app.diagnosis.anchor
        cascade = app.diagnosis.cascade
        assert cascade, "the sample tree has a cascade"
        await pilot.press("G")
        await pilot.press("a")
        assert cursor_ref(app.focused) == (anchor.ref.file_id, anchor.ref.line)
        await pilot.press("right_square_bracket")
        assert app.cascade_index == 1
        assert cursor_ref(app.focused) == (cascade[0].ref.file_id, cascade[0].ref.line)
        if len(cascade) > 1:
            await pilot.press("right_square_bracket")
            assert cursor_ref(app.focused) == (cascade[1].ref.file_id, cascade[1].ref.line)
            await pilot.press("left_square_bracket")
            assert cursor_ref(app.focused) == (cascade[0].ref.file_id, cascade[0].ref.line)
        await pilot.press("left_square_bracket")
        assert cursor_ref(app.focused) == (anchor.ref.file_id, anchor.ref.line)


async def test_panes_follow_the_cursor_in_time(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        plog = await focus_pane(pilot, "plog")
        await pilot.press("g")
        for _ in range(30):
            await pilot.press("e")
            if "notify wait timeout" in cursor_text(app, plog):
                break
        await aligned(pilot)
        t = plog.time_at(plog.cursor)
        device = app.view("device")
        hccl = app.view("hccl")
        # the HCCL pane holds this very line
        assert cursor_ref(hccl) == cursor_ref(plog)
        # the device pane sits on the first line at or after that moment
        dt = device.time_at(device.cursor)
        assert dt is not None and dt >= t
        assert device.time_at(device.cursor - 1) < t
        # moving with j keeps the alignment
        await pilot.press("j")
        await aligned(pilot)
        t2 = plog.time_at(plog.cursor)
        assert device.time_at(device.cursor) >= t2 or device.cursor == device.count - 1
        await pilot.press("k", "k")
        await aligned(pilot)
        t3 = plog.time_at(plog.cursor)
        assert device.time_at(device.cursor) >= t3 and device.time_at(device.cursor - 1) < t3


async def test_search_and_hits(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = await focus_pane(pilot, "device")
        await pilot.press("g")
        await pilot.press("slash")
        await pilot.press(*"link down")
        await pilot.press("enter")
        await settle(pilot)
        assert app.search.matches is not None
        assert "link down" in cursor_text(app, view)
        first = view.cursor
        await pilot.press("n")
        assert view.cursor > first and "link down" in cursor_text(app, view)
        await pilot.press("N")
        assert view.cursor == first
        # the hit is highlighted in the drawn row: a background of its own, not the cursor row's
        row = list(await drawn_row(pilot, view, view.cursor))
        hit = [seg.style.bgcolor for seg in row if "link down" in seg.text and seg.style]
        rest = {seg.style.bgcolor for seg in row if "link down" not in seg.text and seg.text.strip() and seg.style}
        assert hit and all(bg is not None and bg not in rest for bg in hit)


async def test_keys_typed_right_after_slash_go_to_the_search_box(tree):
    """`/error` typed in one burst while the app is busy: the box must hold the focus as soon as
    `/` is handled, or the queued letters reach the pane (`e` walks to an error, `r` opens ranks)."""
    from textual.widgets import Input

    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await focus_pane(pilot, "device")
        app.action_search()  # what `/` runs; no await: the letters of the burst come next
        assert app.focused is app.query_one("#search", Input)


async def test_filters_combine_and_clear(tree):
    from npudiag_tui.tui.screens.filter import FilterSpec

    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        plog = app.view("plog")
        full = plog.count
        # through the dialog: level >= error
        await pilot.press("f")
        await pilot.pause()
        from textual.widgets import Select
        app.screen.query_one("#level", Select).value = int(Level.ERROR)
        await pilot.click("#apply")
        await settle(pilot)
        assert 0 < plog.count < full
        for i in range(plog.count):
            fid, line = plog.ref_at(i)
            assert line_level(app.ws.indexes[fid].line(line)) >= Level.ERROR
        # combine with a module and a rank
        app.apply_filter(FilterSpec(min_level=int(Level.ERROR), module="HCCL", ranks=frozenset({0})))
        await settle(pilot)
        texts = [app.ws.indexes[f].line(ln) for f, ln in (plog.ref_at(i) for i in range(plog.count))]
        assert texts and all("HCCL(1000" in t for t in texts)
        # a regex filter
        app.apply_filter(FilterSpec(regex=r"Finalize:[0-2]$"))
        await settle(pilot)
        assert plog.count == 6  # 3 lines x 2 ranks
        # clear with F
        await pilot.press("F")
        await settle(pilot)
        assert plog.count == full


async def test_rank_choice_hides_other_ranks(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        from textual.widgets import SelectionList
        sel = app.screen.query_one("#rank-list", SelectionList)
        sel.deselect(0)
        await pilot.press("enter")
        await settle(pilot)
        plog = app.view("plog")
        assert all(app.ws.source_of_file(plog.ref_at(i)[0]).rank == 1 for i in range(plog.count))


async def test_merged_view(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        anchor = app.diagnosis.anchor
        await pilot.press("m")
        await settle(pilot)
        merged = app.view("merged")
        assert merged.display and app.focused is merged
        assert not app.view("plog").display
        assert merged.count == sum(idx.line_count for idx in app.ws.indexes)
        assert cursor_ref(merged) == (anchor.ref.file_id, anchor.ref.line)
        assert (await drawn_row(pilot, merged, merged.cursor)).text.startswith("!D1")
        # stream/rank gutter and time order: non-decreasing from the first line to the last
        times = [merged.time_at(i) for i in range(merged.count)]
        known = [t for t in times if t is not None]
        assert len(known) == len(times)
        assert all(b >= a for a, b in zip(known, known[1:]))
        await pilot.press("m")
        assert not merged.display and app.view("device").display
        assert cursor_ref(app.focused) == (anchor.ref.file_id, anchor.ref.line)


async def test_side_panel_entry_jumps(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        cascade = app.diagnosis.cascade
        side = app.query_one(SidePanel)
        assert side.entries[0] is app.diagnosis.anchor
        await pilot.press("c")
        await pilot.pause()
        from textual.widgets import OptionList
        options = app.query_one("#cascade", OptionList)
        assert app.focused is options
        options.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
        target = app.focused
        assert isinstance(target, LogView)
        assert cursor_ref(target) == (cascade[0].ref.file_id, cascade[0].ref.line)


async def test_a_long_cascade_is_listed_whole_and_its_last_entry_jumps():
    """The side panel lists a long cascade's first rows with the anchored screen and the rest
    right after it: once settled every entry is there, and the last one jumps to its line."""
    from pathlib import Path

    from textual.widgets import OptionList

    from npudiag_tui.tui.app import NpuDiagApp
    from npudiag_tui.tui.widgets.side_panel import FIRST_CASCADE_ROWS

    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "hccl-notify-wait-cascade"
    app = NpuDiagApp([str(fixture)], [], [], follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        entries = app.cascade_entries()
        assert len(entries) > FIRST_CASCADE_ROWS  # the fixture's cascade is long enough to split
        options = app.query_one("#cascade", OptionList)
        assert options.option_count == len(entries)
        await pilot.press("c")
        await pilot.pause()
        options.highlighted = len(entries) - 1
        await pilot.press("enter")
        await pilot.pause()
        last = entries[-1]
        assert cursor_ref(app.focused) == (last.ref.file_id, last.ref.line)


async def test_markup_and_escapes_render_literally(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        view = await focus_pane(pilot, "plog")
        await pilot.press("slash", *"Evil", "enter")
        await settle(pilot)
        text = (await drawn_row(pilot, view, view.cursor)).text
        assert "[bold red]not markup[/b]" in text
        assert "\x1b" not in text and "\u241b[2J" in text
        row = view.render_line(view.cursor - int(view.scroll_y)).text
        assert "Evil: [bold red]not markup[/b]" in row  # compact: function, then the message
        await pilot.press("R")  # the raw line, as written
        await pilot.pause()
        row = view.render_line(view.cursor - int(view.scroll_y)).text
        assert "1000 Evil:[bold red]not markup[/b]" in row


async def test_usable_at_80x24(tree):
    app = new_app(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView)
        assert not app.query_one("#side").display  # panel hidden by default when narrow
        for v in app.visible_views():
            assert v.scrollable_content_region.height >= 2
        anchor = app.diagnosis.anchor
        assert cursor_ref(view) == (anchor.ref.file_id, anchor.ref.line)
        assert view.scroll_y <= view.cursor < view.scroll_y + view.scrollable_content_region.height
        await pilot.press("p")
        assert app.query_one("#side").display
        await pilot.press("p", "e", "m", "question_mark")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.press("m", "v", "tab", "y", "t")
        assert app.following


async def test_lines_appended_refreshes_and_follows(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        console = app.view("console")
        before = console.count
        fid = console.timeline.file_ids[0]
        with open(app.ws.files[fid].path, "a") as fh:
            fh.write("new line one\nnew line two\n")
        app.ws.indexes[fid].extend()
        await pilot.press("t")
        app.on_lines_appended([fid])
        await pilot.pause()
        assert console.count == before + 2
        assert console.cursor == console.count - 1
        await pilot.press("t")
        assert not app.following


async def test_a_failing_diagnosis_is_said_and_survivable(tree, monkeypatch):
    from npudiag_tui.core.workspace import Workspace

    def broken(self):
        raise RuntimeError("a rule broke")

    monkeypatch.setattr(Workspace, "diagnose", broken)
    app = new_app(tree)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.diagnosis is None and "a rule broke" in (app.diagnosis_error or "")
        await pilot.press("a", "e", "right_square_bracket")
        assert isinstance(app.focused, LogView)


async def test_key_bar_shows_the_keys_and_runs_one_when_clicked(tree):
    from npudiag_tui.tui.widgets.key_bar import KeyBar

    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        bar = app.query_one(KeyBar)
        shown = bar.render().plain
        for key, words in (("e", "Err"), ("a", "Anchor"), ("/", "Search"), ("?", "Help"), ("q", "Quit")):
            assert f" {key} {words} " in shown
        view = app.focused
        anchor = app.diagnosis.anchor
        await pilot.press("g")
        assert cursor_ref(view) != (anchor.ref.file_id, anchor.ref.line)
        x = shown.index(" a Anchor") + 2
        await pilot.click(KeyBar, offset=(x, 0))
        await pilot.pause()
        assert cursor_ref(app.focused) == (anchor.ref.file_id, anchor.ref.line)


async def test_rank_choice_filters_console_lines_by_their_rank_prefix(tree):
    # torchrun prefixes each worker's console lines with [rankN]:; choosing ranks hides the
    # lines of the other ranks, keeps unprefixed launcher lines, and spares whole plog files
    log, console = tree
    lines = console.read_text().splitlines()
    lines[1:1] = ["[rank0]: rank zero says hello", "[rank1]: rank one says hello",
                  "[rank1]:   indented detail of rank one"]
    console.write_text("\n".join(lines) + "\n")
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        con = app.view("console")
        before = con.count
        await pilot.press("r")  # the rank dialog: rank 0 off, enter applies
        await pilot.pause()
        from textual.widgets import SelectionList
        app.screen.query_one("#rank-list", SelectionList).deselect(0)
        await pilot.press("enter")
        await settle(pilot)
        shown = [app.ws.indexes[f].line(n) for f, n in (con.ref_at(i) for i in range(con.count))]
        assert con.count == before - 1
        assert "[rank0]: rank zero says hello" not in shown
        assert "[rank1]: rank one says hello" in shown and "[rank1]:   indented detail of rank one" in shown
        assert any(s.startswith("Traceback") for s in shown)  # no rank prefix: kept
        merged_files = app.pane_files("merged")
        await pilot.press("m")
        await settle(pilot)
        merged = app.view("merged")
        refs = [merged.ref_at(i) for i in range(merged.count)]
        texts = [app.ws.indexes[f].line(n) for f, n in refs]
        assert "[rank0]: rank zero says hello" not in texts and "[rank1]: rank one says hello" in texts
        plog_fids = [f for f in merged_files if app.ws.source_of_file(f).stream.value == "plog"]
        assert plog_fids and all(sum(1 for f, _ in refs if f == fid) == app.ws.indexes[fid].line_count
                                 for fid in plog_fids)


async def test_garbage_collection_comes_back_after_the_anchored_screen(tree):
    # the CLI turns cyclic GC off for start-up; the app turns it back on once anchored
    import gc

    app = new_app(tree)
    gc.disable()
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(pilot)
            assert app.diagnosis is not None
            assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


async def test_candidate_walk_lands_on_each_candidate(tree):
    from npudiag_tui.core.diagnosis.engine import anchor_ref

    app = new_app(tree)
    notes: list[str] = []
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        cands = app.diagnosis.candidates
        assert len(cands) >= 2, "the sample tree has competing lines"
        original = app.notify

        def record(message, **kw):
            notes.append(str(message))
            return original(message, **kw)

        app.notify = record  # type: ignore[method-assign]
        for k, cand in enumerate(cands):
            await pilot.press("o")
            ref = anchor_ref(cand.event)
            assert cursor_ref(app.focused) == (ref.file_id, ref.line), (k, cand.why_not)
            assert notes[-1] == f"candidate {k + 1}/{len(cands)}: {cand.why_not}"
            assert app.query_one(SidePanel).candidate_mark == k
        await pilot.press("o")  # wraps to the first
        first = anchor_ref(cands[0].event)
        assert cursor_ref(app.focused) == (first.file_id, first.line)
        await pilot.press("O")  # and back to the last
        last = anchor_ref(cands[-1].event)
        assert cursor_ref(app.focused) == (last.file_id, last.line)
        assert notes[-1].startswith(f"candidate {len(cands)}/{len(cands)}: ")
        await pilot.press("a")
        assert cursor_ref(app.focused) == (app.diagnosis.anchor.ref.file_id, app.diagnosis.anchor.ref.line)


async def test_side_panel_says_why_and_how_sure(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        head = str(app.query_one("#diag-head").render())
        assert "Why this line:" in head and f"Confidence: {app.diagnosis.confidence}" in head
        listing = str(app.query_one("#candidates").render())
        for cand in app.diagnosis.candidates:
            assert cand.why_not[:30] in listing.replace("\n", " ")


async def test_pane_merged_view_and_report_show_one_time_per_line(tree):
    """The console traceback has no stamp: the pane, the merged view and the JSON report give
    it the same (estimated, `~`) time, the one of the time model."""
    import json

    from npudiag_tui.core.formats.timestamps import format_us
    from npudiag_tui.report import render_json

    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        ws = app.ws
        report = json.loads(render_json(ws, app.diagnosis))
        entries = [e for e in [report["anchor"]] + report["cascade"] if e and e["stream"] == "stdout"]
        assert entries
        console = app.view("console")
        fid = next(f for f in app.pane_files("console"))
        for entry in entries:
            line = entry["line"] - 1
            when = ws.times.line_time(fid, line)
            clock = entry["time"][11:] if entry["time"] else None
            pos = console.position_of(fid, line)
            gutter = (await drawn_row(pilot, console, pos)).text.lstrip("! ")  # mark, then the time
            assert clock is not None and gutter.lstrip("~").startswith(clock[:8])
            assert gutter.startswith("~") == when.estimated
            assert entry["time"] == format_us(when.us)
        estimated = [e for e in entries if ws.times.line_time(fid, e["line"] - 1).estimated]
        assert estimated, "the fixture's traceback lines are estimated"
        await pilot.press("m")
        await settle(pilot)
        merged = app.view("merged")
        for entry in entries:
            pos = merged.position_of(fid, entry["line"] - 1)
            row = (await drawn_row(pilot, merged, pos)).text  # mark, stream and rank (5), time
            assert row[6:].lstrip(" ~").startswith(entry["time"][11:19])


async def test_the_panel_quotes_a_long_anchor_lines_message_whole_at_80x24(tmp_path):
    """A pasted plog line behind a long prefix (a `grep -rn` file name and line number) leaves
    little of the diagnosis summary's 160 characters for the message: the panel shows the
    anchor's own message in full, its header cut."""
    from npudiag_tui.tui.app import NpuDiagApp

    message = "aclrtSetDevice: update platform info with device failed, deviceId = 0"
    (tmp_path / "grep.log").write_text(
        "plog-27441_20240221060831113.log:2235:[WARNING] ASCENDCL(28980,python3):2024-02-21-06:08:31.254.818 "
        f"[device.cpp:157]28980 {message}\n"
        "plog-27441_20240221060831113.log:36900:[ERROR] RUNTIME(28980,python3):2024-02-21-06:08:59.095.531 "
        "[api_impl.cc:1038]28980 GetMaxStreamAndTask:[FINAL][FINAL]ctx is NULL!\n")
    app = NpuDiagApp([str(tmp_path)], [], [], follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("p")
        await pilot.pause()
        head = str(app.query_one("#diag-head").render()).replace("\n", " ")
        assert message.split(":", 1)[1].strip() in " ".join(head.split())
