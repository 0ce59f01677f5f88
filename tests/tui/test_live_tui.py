"""Live tail in the running app: a writer changes the watched folder, the panes follow.

Bounded waits with `pilot.pause`, no timed assertions.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from npudiag_tui.core.workspace import Workspace
from npudiag_tui.tui.live import LiveWatcher

pytest.importorskip("npudiag_tui.tui.app")

from conftest import record_notices, settle


def ts(sec: float) -> str:
    whole, frac = divmod(int(round(sec * 1_000_000)), 1_000_000)
    return f"2026-01-01-10:{whole // 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def info(pid: int, sec: float, msg: str = "tick") -> str:
    return f"[INFO] RUNTIME({pid},python):{ts(sec)} [runtime.cc:10] {pid} {msg}\n"


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


async def wait_for(pilot, cond, limit: float = 8.0) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if cond():
            return True
        await pilot.pause(0.05)
    return cond()


def live_app(tree):
    from npudiag_tui.tui.app import NpuDiagApp

    log, console = tree
    ws = Workspace.open([str(log)], [str(console)])
    return NpuDiagApp(ws, follow=False), ws


async def start_watcher(pilot, app) -> LiveWatcher:
    await settle(pilot)
    existing = app.query(LiveWatcher)
    if existing:
        watcher = existing.first()
    else:
        watcher = LiveWatcher(app.ws)
        await app.mount(watcher)
    assert await wait_for(pilot, lambda: watcher.tail is not None)
    return watcher


def plog_file(log: Path, pid: int) -> Path:
    return next((log / "debug" / "plog").glob(f"plog-{pid}_*.log"))


def pids(log: Path) -> list[int]:
    return sorted(int(p.name.split("-")[1].split("_")[0]) for p in (log / "debug" / "plog").glob("plog-*.log"))


@pytest.mark.asyncio
async def test_appended_lines_reach_the_pane(tree):
    app, ws = live_app(tree)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        pane = app.view("console")
        before = pane.count
        append(tree[1], "step 1 loss 0.5\nstep 2 loss 0.4\n")
        assert await wait_for(pilot, lambda: pane.count == before + 2)
        # a partial line is a row marked incomplete until its newline arrives, then that line
        append(tree[1], "step 3 lo")
        assert await wait_for(pilot, lambda: pane.count == before + 3 and pane.text_at(before + 2) == "step 3 lo")
        append(tree[1], "ss 0.3\n")
        assert await wait_for(pilot, lambda: pane.text_at(before + 2) == "step 3 loss 0.3")
        assert pane.count == before + 3
        assert watcher.batches >= 2
        watcher.stop()
        await settle(pilot)  # let source rebuilds finish before teardown


@pytest.mark.asyncio
async def test_new_rank_rotation_truncation_deletion_in_app(tree):
    log, console = tree
    app, ws = live_app(tree)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        n_sources = len(ws.sources)
        # a new rank's plog appears as a new source and in the plog pane
        plog_pane = app.view("plog")
        before = plog_pane.count
        newp = log / "debug" / "plog" / "plog-999_20260101100500000.log"
        newp.write_text(info(999, 300, "new rank") + info(999, 301))
        assert await wait_for(pilot, lambda: len(ws.sources) == n_sources + 1)
        assert await wait_for(pilot, lambda: plog_pane.count == before + 2)
        # rotation of the file on screen: rename + recreate
        rotated = newp.with_name(newp.stem + ".1.log")
        os.rename(newp, rotated)
        newp.write_text(info(999, 302, "after rotation"))
        ok = await wait_for(pilot, lambda: plog_pane.count == before + 3)
        assert ok, (plog_pane.count, before, watcher.last_update)
        # truncation to zero, then new content
        with open(newp, "r+b") as fh:
            fh.truncate(0)
        append(newp, info(999, 303, "after truncation"))
        assert await wait_for(pilot, lambda: any(
            ws.indexes[f.file_id].line(0).endswith("after truncation")
            for f in ws.files if not ws.indexes[f.file_id].closed and f.path == str(newp)))
        # deletion of the file on screen: no crash, the rest is still there
        os.unlink(rotated)
        assert await wait_for(pilot, lambda: any(
            ws.indexes[f.file_id].closed for f in ws.files if f.path == str(rotated)))
        await pilot.pause()
        assert app.is_running
        assert plog_pane.count >= before + 1
        watcher.stop()
        await settle(pilot)  # let source rebuilds finish before teardown


@pytest.mark.asyncio
async def test_follow_pause_counts_new_lines(tree):
    app, ws = live_app(tree)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        app.following = False
        append(tree[1], "a\nb\nc\n")
        assert await wait_for(pilot, lambda: watcher.unseen == 3)
        await pilot.press("t")
        assert app.following
        append(tree[1], "d\n")
        assert await wait_for(pilot, lambda: watcher.unseen == 0 and app.view("console").count > 0
                              and app.view("console").cursor == app.view("console").count - 1)
        watcher.stop()
        await settle(pilot)  # let source rebuilds finish before teardown


@pytest.mark.asyncio
async def test_anchor_moves_when_an_earlier_cause_arrives_late(tree):
    log, console = tree
    app, ws = live_app(tree)
    notices = record_notices(app)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        before = app.diagnosis.anchor
        assert before is not None
        dev = log / "debug" / "device-7"
        dev.mkdir()
        (dev / "device-1000_20260101100000100.log").write_text(
            "[ERROR] TSCH(6051,tsch):2026-01-01-10:00:00.100.000 [ts_task_handler.c:2081][tid:6053] aicore "
            "exception, core_id=12, stream_id=2, task_id=18841, err_code=0x800000\n")
        assert await wait_for(pilot, lambda: app.diagnosis is not None and app.diagnosis.anchor is not None
                              and "aicore exception" in app.diagnosis.anchor.text)
        assert any("Anchor moved" in n.message and "(was debug/" in n.message for n in notices)
        watcher.stop()
        await settle(pilot)  # let source rebuilds finish before teardown


@pytest.mark.asyncio
async def test_following_app_mounts_the_watcher_and_follows(tree):
    from npudiag_tui.tui.app import NpuDiagApp

    log, console = tree
    ws = Workspace.open([str(log)], [str(console)])
    app = NpuDiagApp(ws, follow=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert app.query(LiveWatcher), "the app mounts the live watcher when following"
        watcher = await start_watcher(pilot, app)
        pane = app.view("console")
        before = pane.count
        await pilot.press("t")  # the app opened on the anchor (paused); t resumes following
        assert app.following
        append(console, "".join(f"step {i}\n" for i in range(5)))
        assert await wait_for(pilot, lambda: pane.count == before + 5)
        assert await wait_for(pilot, lambda: pane.cursor == pane.count - 1)
        watcher.stop()
        await settle(pilot)


@pytest.mark.asyncio
async def test_hccl_and_filtered_panes_extend_with_appended_lines(tree):
    # the HCCL view and a level filter choose lines: appended matching lines join them at the
    # end, non-matching ones do not, and what was there stays put
    from npudiag_tui.core.model import Level
    from npudiag_tui.tui.screens.filter import FilterSpec

    app, ws = live_app(tree)
    log = tree[0]
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        hccl = app.view("hccl")
        before = [hccl.ref_at(i) for i in range(hccl.count)]
        pid = pids(log)[0]
        path = plog_file(log, pid)
        append(path, info(pid, 20.0, "not an hccl line")
               + f"[INFO] HCCL({pid},python):{ts(20.1)} [op_base.cc:1][{pid}]Entry-HcclAllReduce new\n"
               + f"[ERROR] HCCL({pid},python):{ts(20.2)} [task.cc:2][{pid}]appended hccl error\n")
        assert await wait_for(pilot, lambda: hccl.count == len(before) + 2)
        assert [hccl.ref_at(i) for i in range(len(before))] == before
        tail = [app.ws.indexes[f].line(n) for f, n in (hccl.ref_at(i) for i in range(len(before), hccl.count))]
        assert "Entry-HcclAllReduce new" in tail[0] and "appended hccl error" in tail[1]
        app.apply_filter(FilterSpec(min_level=int(Level.ERROR)))
        await settle(pilot)
        plog = app.view("plog")
        errors = plog.count
        append(path, info(pid, 21.0) + f"[ERROR] RUNTIME({pid},python):{ts(21.1)} [rt.cc:3] late error\n")
        assert await wait_for(pilot, lambda: plog.count == errors + 1)
        f, n = plog.ref_at(plog.count - 1)
        assert "late error" in app.ws.indexes[f].line(n)
        watcher.stop()
        await settle(pilot)


def hccl_error(pid: int, sec: float, what: str = "appended hccl error") -> str:
    return f"[ERROR] HCCL({pid},python):{ts(sec)} [task.cc:2][{pid}]{what}\n"


@pytest.mark.asyncio
async def test_a_last_line_without_newline_is_shown_incomplete(tree):
    app, ws = live_app(tree)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        pane = app.view("console")
        before = pane.count
        # a crashed process's last words: no newline, and markup-like text that must stay literal
        append(tree[1], "[ERROR] x [/b] died at step 3")
        assert await wait_for(pilot, lambda: "incomplete" in str(pane.border_title)), pane.border_title
        assert "train.log" in str(pane.border_title)
        assert pane.count == before + 1  # a row of its own, marked (tests/tui/test_incomplete_line.py)
        assert pane.text_at(before) == "[ERROR] x [/b] died at step 3"
        append(tree[1], "\n")
        assert await wait_for(pilot, lambda: "incomplete" not in str(pane.border_title))
        assert pane.count == before + 1 and pane.text_at(before) == "[ERROR] x [/b] died at step 3"
        watcher.stop()
        await settle(pilot)


@pytest.mark.asyncio
async def test_growth_is_shown_while_a_diagnosis_runs_and_bursts_coalesce(tree, monkeypatch):
    import threading

    app, ws = live_app(tree)
    log = tree[0]
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        release = threading.Event()
        real = watcher.tail.rediagnose

        def held(*args, **kw):  # a slow diagnosis (an error storm over a big tree)
            assert release.wait(20), "never released"
            return real(*args, **kw)

        monkeypatch.setattr(watcher.tail, "rediagnose", held)
        pid = pids(log)[0]
        path = plog_file(log, pid)
        plog = app.view("plog")
        runs = watcher.diagnoses
        for k in range(4):  # an error storm in several batches
            before = plog.count
            append(path, "".join(hccl_error(pid, 30 + k + i / 1000, f"storm {k} {i}") for i in range(50)))
            assert await wait_for(pilot, lambda: plog.count == before + 50), "growth waited for the diagnosis"
        assert watcher.diagnoses == runs + 1  # one run holds; the later batches wait as one
        release.set()
        assert await wait_for(pilot, lambda: watcher.diagnoses == runs + 2)
        assert await wait_for(pilot, lambda: app.diagnosis is not None and app.diagnosis.anchor is not None)
        watcher.stop()
        await settle(pilot)


@pytest.mark.asyncio
async def test_truncation_shows_what_the_file_holds_now_and_says_what_went(tree):
    app, ws = live_app(tree)
    notices = record_notices(app)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        pane = app.view("console")
        assert pane.count > 2
        with open(tree[1], "w", encoding="utf-8") as fh:  # truncated and rewritten
            fh.write("fresh 1\nfresh 2\n")
        assert await wait_for(pilot, lambda: pane.count == 2), pane.count
        assert [pane.text_at(i) for i in range(2)] == ["fresh 1", "fresh 2"]
        notes = [n for n in notices if n.title == "File truncated"]
        assert len(notes) == 1 and "train.log" in notes[0].message
        watcher.stop()
        await settle(pilot)


@pytest.mark.asyncio
async def test_following_a_named_file_ignores_its_neighbours(tmp_path):
    from npudiag_tui.tui.app import NpuDiagApp

    train = tmp_path / "train.log"
    train.write_text("step 1\n")
    ws = Workspace.open([], [str(train)])
    app = NpuDiagApp(ws, follow=False)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        assert watcher.roots == [] and watcher.file_dirs == [str(tmp_path)]
        (tmp_path / "other-job.log").write_text("RuntimeError: someone else's job\n")
        (tmp_path / "report.txt").write_text("ERROR: our saved report\n")
        append(train, "step 2\n")
        assert await wait_for(pilot, lambda: app.view("console").count == 2)
        assert [f.path for f in ws.files] == [str(train)]
        watcher.stop()
        await settle(pilot)


@pytest.mark.asyncio
async def test_a_followed_folder_deleted_and_created_again_is_followed(tmp_path):
    import shutil

    from npudiag_tui.tui.app import NpuDiagApp

    root = tmp_path / "log"
    plog = root / "debug" / "plog"
    plog.mkdir(parents=True)
    p = plog / "plog-100_20260101100000000.log"
    p.write_text(info(100, 1, "start"))
    ws = Workspace.open([str(root)])
    app = NpuDiagApp(ws, follow=False)
    async with app.run_test(size=(160, 50)) as pilot:
        watcher = await start_watcher(pilot, app)
        shutil.rmtree(root)
        assert await wait_for(pilot, lambda: ws.indexes[0].closed)
        plog.mkdir(parents=True)
        p.write_text("".join(info(100, 2 + i / 100, f"again {i}") for i in range(800)))
        assert await wait_for(pilot, lambda: any(
            f.path == str(p) and not ws.indexes[f.file_id].closed and ws.indexes[f.file_id].line_count == 800
            for f in ws.files))
        append(p, info(100, 20, "and it grows"))
        assert await wait_for(pilot, lambda: app.view("plog").count == 801)
        watcher.stop()
        await settle(pilot)


@pytest.mark.asyncio
async def test_many_input_problems_make_one_notice_and_a_list(tmp_path):
    from npudiag_tui.tui.app import NpuDiagApp
    from npudiag_tui.tui.screens.problems import ProblemsScreen

    root = tmp_path / "log"
    root.mkdir()
    (root / "train.log").write_text("step 1\n")
    for k in range(300):
        (root / f"core-{k:03d}.log").write_bytes(b"\x7fELF" + bytes(range(256)) * 4)
    ws = Workspace.open([str(root)])
    assert len(ws.problems) == 300
    app = NpuDiagApp(ws, follow=False)
    notices = record_notices(app)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        warnings = [n for n in notices if n.severity == "warning"]
        assert len(warnings) == 1 and "300 input problems" in warnings[0].message
        await pilot.press("i")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ProblemsScreen))
        listed = str(app.screen.query_one("#problems-list").render())
        assert "core-000.log" in listed and "core-299.log" in listed
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: not isinstance(app.screen, ProblemsScreen))


@pytest.mark.asyncio
async def test_a_folder_created_again_is_reported_once_more_when_watched_again(tmp_path):
    """The guard reports a folder created again, then a new watch starts: a file written into it
    in between has no event of its own. The folder is reported once more at the new round's first
    look, so the tail walks it after the watch is up (a file created with the folder, then filled,
    would otherwise stay empty until its next write)."""
    import asyncio

    from npudiag_tui.tui.live import watch_paths

    root = tmp_path / "log"
    root.mkdir()
    probe = root / "probe.log"
    reports: list[bool] = []  # for each report of the folder: whether it existed then
    seen: set[str] = set()

    def on_batch(paths: frozenset[str]) -> None:
        seen.update(paths)
        if str(root) in paths:
            reports.append(root.is_dir())

    async def until(cond, what: str, poke=None, limit: float = 15.0) -> None:
        end, k = time.monotonic() + limit, 0
        while not cond():
            assert time.monotonic() < end, f"never happened: {what}"
            if poke is not None and k % 10 == 0:
                poke()  # again and again: a write before the watch is up has no event
            k += 1
            await asyncio.sleep(0.05)

    stop = asyncio.Event()
    task = asyncio.create_task(watch_paths([str(root)], on_batch, stop))
    try:
        await until(lambda: str(probe) in seen, "the watch up", poke=lambda: probe.write_text("x\n"))
        probe.unlink()
        root.rmdir()
        await until(lambda: reports and not reports[-1], "the deletion reported")
        root.mkdir()
        await until(lambda: reports.count(True) >= 2, "the folder reported again once watched")
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)
