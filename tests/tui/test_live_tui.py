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

from conftest import settle


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
        # a partial line shows only once its newline arrives
        append(tree[1], "step 3 lo")
        await wait_for(pilot, lambda: False, limit=0.6)
        assert pane.count == before + 2
        append(tree[1], "ss 0.3\n")
        assert await wait_for(pilot, lambda: pane.count == before + 3)
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
        assert any("Anchor moved" in n.message and "(was debug/" in n.message for n in app._notifications)
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
