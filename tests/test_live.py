"""Live tail engine: a writer changes a folder, LiveTail.apply() keeps the workspace in step.

No timed assertions: writers run in threads, and the tests wait with bounded loops.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from pathlib import Path

import pytest

from npudiag_tui.core.live import LiveTail
from npudiag_tui.core.model import Stream
from npudiag_tui.core.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]


def ts(sec: float) -> str:
    whole, frac = divmod(int(round(sec * 1_000_000)), 1_000_000)
    return f"2026-01-01-10:{whole // 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def info(pid: int, sec: float, msg: str = "tick") -> str:
    return f"[INFO] RUNTIME({pid},python):{ts(sec)} [runtime.cc:10] {pid} {msg}\n"


def hccl_timeout(pid: int, sec: float) -> str:
    return (f"[ERROR] HCCL({pid},python):{ts(sec)} [task_exception_handler.cc:851] [2445]"
            "[TaskExceptionHandler]The wait execution of the Notify register times out. Reason: The Notify "
            "register has not received the Notify record from remote rank: [5].\n"
            f"[ERROR] RUNTIME({pid},python):{ts(sec)} [stream.cc:1082]{pid} GetError:Notify wait execute "
            "failed, device_id=0, stream_id=2, task_id=40717\n")


def aicore(sec: float) -> str:
    return (f"[ERROR] TSCH(6051,tsch):{ts(sec)} [ts_task_handler.c:2081][tid:6053] aicore exception, "
            "core_id=12, stream_id=2, task_id=18841, err_code=0x800000\n")


def tree(tmp_path: Path, pid: int = 100) -> tuple[Path, Path]:
    plog = tmp_path / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    p = plog / f"plog-{pid}_20260101100000000.log"
    p.write_text(info(pid, 1, "start"))
    return tmp_path / "log", p


def open_live(root: Path) -> tuple[Workspace, LiveTail]:
    ws = Workspace.open([str(root)])
    ws.index()
    return ws, LiveTail(ws)


def fid_of(ws: Workspace, path: Path) -> int:
    ids = [f.file_id for f in ws.files if os.path.abspath(f.path) == os.path.abspath(path)
           and not ws.indexes[f.file_id].closed]
    assert ids, path
    return ids[-1]


def wait_until(tail: LiveTail, paths, cond, limit: float = 5.0) -> None:
    end = time.monotonic() + limit
    while True:
        tail.apply({str(p) for p in paths})
        if cond():
            return
        if time.monotonic() > end:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()


def test_appended_lines_from_a_writer_thread(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    assert ws.indexes[fid].line_count == 1

    def writer():
        for i in range(200):
            append(p, info(100, 2 + i * 0.01, f"step {i}"))
            if i % 20 == 0:
                time.sleep(0.002)

    t = threading.Thread(target=writer)
    t.start()
    wait_until(tail, {p}, lambda: ws.indexes[fid].line_count == 201)
    t.join()
    idx = ws.indexes[fid]
    assert idx.line(0).endswith("start")
    assert idx.line(200).endswith("step 199")
    assert [ln.rsplit(" ", 1)[-1] for ln in idx.lines(1, 200)] == [str(i) for i in range(200)]
    tail.close()


def test_partial_line_only_once_complete(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    append(p, "[INFO] RUNTIME(100,python):" + ts(2))
    upd = tail.apply({str(p)})
    assert fid not in upd.grown
    assert ws.indexes[fid].line_count == 1
    append(p, " [runtime.cc:10] 100 the rest\n")
    upd = tail.apply({str(p)})
    assert upd.grown == {fid: 1}
    assert ws.indexes[fid].line(1) == f"[INFO] RUNTIME(100,python):{ts(2)} [runtime.cc:10] 100 the rest"
    tail.close()


def test_partial_error_line_is_scanned_once_complete(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    text = hccl_timeout(100, 3)
    append(p, text[:40])
    upd = tail.apply({str(p)})
    # held back from the index (no line yet), but the live diagnosis reads it as the line it will
    # be: a crashed process's last words often have no newline (#13 severe 2)
    assert upd.new_hits == 0 and ws.diagnose().anchor is None
    assert upd.anchor_changed and upd.old_anchor is None and upd.new_anchor.startswith(f"{ws.files[0].display}:2 ")
    append(p, text[40:])
    upd = tail.apply({str(p)})
    assert upd.new_hits == 2  # both lines, now complete, are scan hits
    assert ws.diagnose().anchor is not None
    tail.close()


def test_rotation_rename_and_recreate(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    append(p, info(100, 2, "before rotation"))
    rotated = p.with_name(p.stem + ".1.log")
    os.rename(p, rotated)
    p.write_text(info(100, 3, "after rotation"))
    # the watcher's set is unordered and its kinds are lies: just the paths
    upd = tail.apply({str(rotated), str(p)})
    assert fid in upd.renamed
    new = fid_of(ws, p)
    assert new != fid and new in upd.new_files
    assert ws.indexes[fid].lines(0, 5) == [info(100, 1, "start").rstrip("\n"),
                                           info(100, 2, "before rotation").rstrip("\n")]
    assert ws.files[fid].path == str(rotated)
    assert ws.indexes[new].line(0).endswith("after rotation")
    assert ws.source_of_file(new) is ws.source_of_file(fid)
    # both keep growing independently
    append(rotated, info(100, 4, "late write to old"))
    append(p, info(100, 5, "new file grows"))
    tail.apply({str(rotated), str(p)})
    assert ws.indexes[fid].line_count == 3 and ws.indexes[new].line_count == 2
    tail.close()


def test_rotation_of_a_file_that_appeared_live(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    q = p.with_name("plog-300_20260101100002000.log")
    q.write_text(info(300, 2, "born live"))
    tail.apply({str(q)})
    fid = fid_of(ws, q)
    rotated = q.with_name(q.stem + ".1.log")
    os.rename(q, rotated)
    q.write_text(info(300, 3, "x"))
    upd = tail.apply({str(q), str(rotated)})
    assert upd.renamed == [fid] and upd.truncated == []
    assert ws.files[fid].display == "debug/plog/" + rotated.name
    assert ws.indexes[fid_of(ws, q)].line(0).endswith(" x")
    tail.close()


def test_rotation_out_of_the_tree_keeps_lines(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    append(p, hccl_timeout(100, 2))
    tail.apply({str(p)})
    anchor_before = ws.diagnose().anchor.text
    os.rename(p, tmp_path / "elsewhere.bak")
    p.write_text(info(100, 3, "fresh"))
    upd = tail.apply({str(p)})
    assert fid in upd.rotated and fid in upd.closed_files
    # still readable through the held descriptor, never the new file's bytes at old offsets
    assert ws.indexes[fid].line_count == 3
    assert ws.indexes[fid].line(0).endswith("start")
    assert ws.diagnose().anchor.text == anchor_before
    assert ws.indexes[fid_of(ws, p)].line(0).endswith("fresh")
    tail.close()


def test_truncation_to_zero(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    append(p, hccl_timeout(100, 2))
    tail.apply({str(p)})
    anchor = ws.diagnose().anchor
    assert anchor is not None and anchor.ref.file_id == fid
    with open(p, "r+b") as fh:
        fh.truncate(0)
    upd = tail.apply({str(p)})
    assert fid in upd.truncated
    # the old lines are not on disk: they leave the chain and the diagnosis, and one notice says so
    src = ws.source_of_file(fid)
    assert fid not in [f.file_id for f in src.files]
    assert ws.diagnose().anchor is None
    assert upd.lost == [("debug/plog/" + p.name, 3, 2)]
    assert "3 lines, 2 of them error lines" in upd.lost_message()
    assert upd.anchor_changed and upd.new_anchor is None
    old = ws.indexes[fid]  # an id handed out before still reads (retired), nothing crashes
    assert old.line_count == 3 and old.line(0) == ""
    append(p, info(100, 5, "after truncation"))
    upd = tail.apply({str(p)})
    new = fid_of(ws, p)
    assert new != fid and ws.indexes[new].line(0).endswith("after truncation")
    assert ws.source_of_file(new) is src and [f.file_id for f in src.files] == [new]
    # truncate and rewrite past the old end between two batches: caught by the newline check
    with open(p, "r+b") as fh:
        fh.truncate(0)
    append(p, "x" * 500 + "\n")
    upd = tail.apply({str(p)})
    assert new in upd.truncated
    assert ws.indexes[fid_of(ws, p)].line(0) == "x" * 500
    assert [ws.indexes[f.file_id].line(0) for f in src.files] == ["x" * 500]
    tail.close()


def test_truncation_ends_like_a_cold_open(tmp_path):
    """After a truncation and a rewrite, what the workspace holds equals a fresh open."""
    root, p = tree(tmp_path)
    append(p, hccl_timeout(100, 2))
    ws, tail = open_live(root)
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(info(100, 7, "rewritten") + aicore(8))
    tail.apply({str(p)})
    cold = Workspace.open([str(root)])
    cold.index()
    live = [[ws.indexes[f.file_id].line(i) for i in range(ws.indexes[f.file_id].line_count)]
            for s in ws.sources for f in s.files]
    assert live == [[cold.indexes[f.file_id].line(i) for i in range(cold.indexes[f.file_id].line_count)]
                    for s in cold.sources for f in s.files]
    a, b = ws.diagnose().anchor, cold.diagnose().anchor
    assert a is not None and b is not None and a.text == b.text
    tail.close()


def test_a_file_deleted_and_created_again_is_followed(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    src = ws.source_of_file(fid)
    os.unlink(p)
    assert fid in tail.apply({str(p)}).closed_files  # the watcher reports the deletion first
    p.write_text("".join(info(100, 2 + i * 0.001, f"again {i}") for i in range(8000)))
    upd = tail.apply({str(p)})
    new = fid_of(ws, p)
    assert new != fid and new in upd.new_files and ws.source_of_file(new) is src
    assert ws.indexes[new].line_count == 8000
    # renamed away (out of the tree), then created again in a later batch
    os.rename(p, tmp_path / "away.log")
    tail.apply({str(p)})
    p.write_text(info(100, 9, "third life"))
    upd = tail.apply({str(p)})
    assert ws.indexes[fid_of(ws, p)].line(0).endswith("third life")
    assert str(p) in {os.path.normpath(x) for x in tail.known_paths()}
    tail.close()


def test_following_a_named_file_reads_nothing_else_in_its_folder(tmp_path):
    job = tmp_path / "jobs"
    job.mkdir()
    train = job / "train.log"
    train.write_text("step 1\n")
    plog = job / "plog-100_20260101100000000.log"
    plog.write_text(info(100, 1))
    for ws in (Workspace.open([], [str(train)]), Workspace.open([str(plog)])):
        ws.index()
        tail = LiveTail(ws)
        named = ws.files[0].path
        other = job / "other-job.log"
        other.write_text("Traceback (most recent call last):\nRuntimeError: someone else's job\n")
        report = job / "report.txt"
        report.write_text("ERROR: our own saved report\n")
        sub = job / "sub"
        sub.mkdir(exist_ok=True)
        (sub / "x.log").write_text("RuntimeError: below\n")
        upd = tail.apply({str(other), str(report), str(sub)})
        upd2 = tail.poll()
        assert upd.new_files == [] and upd2.new_files == []
        assert [f.path for f in ws.files] == [named]
        append(Path(named), "step 2\n" if named == str(train) else info(100, 2))
        assert tail.apply({named}).grown == {0: 1}
        tail.close()


def test_following_a_folder_takes_only_what_discovery_would(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    hidden = root / ".cache"
    hidden.mkdir()
    (hidden / "x.log").write_text("RuntimeError: hidden\n")
    (root / "config.json").write_text("{}\n")
    (root / "train.log").write_text("step\n")
    upd = tail.apply({str(hidden / "x.log"), str(hidden), str(root / "config.json"), str(root / "train.log")})
    assert [ws.files[f].path for f in upd.new_files] == [str(root / "train.log")]
    cold = Workspace.open([str(root)])
    assert sorted(f.path for f in cold.files) == sorted(f.path for f in ws.files)
    tail.close()


def test_folder_links_are_followed_and_each_file_read_once(tmp_path):
    root, p = tree(tmp_path)
    outside = tmp_path / "other-disk" / "run"
    outside.mkdir(parents=True)
    (outside / "before.log").write_text("step 0\n")
    os.symlink(outside, root / "run-link")
    os.symlink(root / "debug", root / "debug-again")  # a second way into a followed folder
    ws, tail = open_live(root)
    n = len(ws.files)
    (outside / "train.log").write_text("step 1\n")
    # the watcher names a file in a linked folder by the link's path
    upd = tail.apply({str(root / "run-link" / "train.log")})
    assert [ws.files[f].display for f in upd.new_files] == ["run-link/train.log"]
    # a file reached through the second link is the file already followed: not read again
    append(p, info(100, 2))
    upd = tail.apply({str(root / "debug-again" / "plog" / p.name)})
    assert upd.grown == {fid_of(ws, p): 1} and upd.new_files == []
    q = p.with_name("plog-100_20260101100009000.log")
    q.write_text(info(100, 9))
    tail.poll()
    assert len(ws.files) == n + 2  # train.log and q, each once
    assert sorted(f.display for f in ws.files) == sorted(f.display for f in Workspace.open([str(root)]).files)
    tail.close()


def test_a_burst_of_error_lines_grows_first_and_is_diagnosed_once(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    for k in range(5):  # five batches of an error storm
        append(p, "".join(hccl_timeout(100, 2 + k + i * 0.001) for i in range(200)))
        upd = tail.apply({str(p)}, diagnose=False)
        assert upd.grown[fid] == 400 and upd.needs_diagnosis and not upd.rediagnosed
    done = tail.rediagnose()  # one run for the whole burst
    assert done.rediagnosed and done.anchor_changed and done.old_anchor is None
    assert done.diagnosis.anchor is not None and done.diagnosis.anchor.ref.file_id == fid
    assert tail.rediagnose().anchor_changed is False
    tail.close()


def test_deletion_of_the_file_being_followed(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    fid = fid_of(ws, p)
    append(p, info(100, 2, "last words"))
    tail.apply({str(p)})
    os.unlink(p)
    upd = tail.apply({str(p)})
    assert upd.closed_files == [fid]
    idx = ws.indexes[fid]
    assert idx.closed and idx.line_count == 2 and idx.line(1).endswith("last words")
    assert tail.apply({str(p)}).changed is False
    tail.close()


def test_deletion_of_an_old_unheld_file_keeps_its_hits(tmp_path):
    root, p = tree(tmp_path)
    old = p.with_name("plog-100_20251231100000000.log")  # older in the chain: not held
    old.write_text(hccl_timeout(100, 0.5))
    ws, tail = open_live(root)
    ofid = fid_of(ws, old)
    assert not ws.indexes[ofid].held
    os.unlink(old)
    upd = tail.apply({str(old)})
    assert ofid in upd.closed_files and ws.indexes[ofid].retired
    assert "Notify wait execute failed" in ws.indexes[ofid].line(1)
    assert ws.diagnose().anchor.ref.file_id == ofid
    tail.close()


def test_a_removed_folder_closes_its_files_and_is_followed_when_created_again(tmp_path):
    import shutil

    root, p = tree(tmp_path)
    dev = root / "debug" / "device-2"
    dev.mkdir()
    d = dev / "device-100_20260101100000500.log"
    d.write_text(info(100, 1.5, "device side"))
    ws, tail = open_live(root)
    fid = fid_of(ws, d)
    shutil.rmtree(dev)
    upd = tail.apply({str(dev)})  # only the folder reported
    assert upd.closed_files == [fid]
    assert ws.indexes[fid].line(0).endswith("device side")  # held: still readable
    # the folder is created again (a job restarted): followed by path, found by a walk
    dev.mkdir()
    d.write_text(info(100, 3, "device again"))
    upd = tail.apply({str(dev)})  # only the folder is reported
    new = fid_of(ws, d)
    assert new != fid and new in upd.new_files and ws.indexes[new].line(0).endswith("device again")
    tail.close()


def test_a_reported_folder_looks_at_the_known_files_in_it(tmp_path):
    """A folder created again is reported (the guard, a new watch), walked, and its file found;
    the file may grow before the new watch is up, and no event tells of that: the folder's next
    report looks at the files it already knows in it too."""
    import shutil

    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    shutil.rmtree(root / "debug")
    tail.apply({str(root / "debug")})
    p.parent.mkdir(parents=True)
    p.write_text("".join(info(100, 2 + i / 100, f"again {i}") for i in range(80)))
    tail.apply({str(root)})  # found by the walk
    new = fid_of(ws, p)
    assert ws.indexes[new].line_count == 80
    append(p, info(100, 20, "and it grows"))  # before any watch of the new folder
    upd = tail.apply({str(root)})  # the folder reported once more, not the file
    assert new in upd.grown and ws.indexes[new].line_count == 81
    tail.close()


def test_new_rank_plog_is_a_new_source(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    n_sources = len(ws.sources)
    q = p.with_name("plog-200_20260101100001000.log")
    q.write_text(info(200, 2, "rank 1 alive") + info(200, 3, "more"))
    upd = tail.apply({str(q)})
    assert len(upd.new_sources) == 1 and len(ws.sources) == n_sources + 1
    src = ws.sources[upd.new_sources[0]]
    assert src.stream is Stream.PLOG and src.pid == 200
    assert ws.indexes[fid_of(ws, q)].line_count == 2
    # the same pid's rotation joins its chain instead
    q2 = p.with_name("plog-200_20260101100009000.log")
    q2.write_text(info(200, 9, "rotated"))
    upd = tail.apply({str(q2)})
    assert upd.new_sources == [] and ws.source_of_file(fid_of(ws, q2)) is src
    assert [f.display.rsplit("/", 1)[-1] for f in src.files] == [q.name, q2.name]
    tail.close()


def test_new_device_folder_and_console_file(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    dev = root / "debug" / "device-3"
    dev.mkdir()
    d = dev / "device-100_20260101100000500.log"
    d.write_text(info(100, 1.5, "device side"))
    con = root / "train.log"
    con.write_text("Traceback (most recent call last):\n")
    upd = tail.apply({str(dev)} | {str(con)})  # only the folder is reported for the device file
    kinds = {ws.sources[s].stream for s in upd.new_sources}
    assert kinds == {Stream.DEVICE, Stream.STDOUT}
    dsrc = next(ws.sources[s] for s in upd.new_sources if ws.sources[s].stream is Stream.DEVICE)
    assert dsrc.device == 3 and dsrc.pid == 100
    assert ws.source_of_file(fid_of(ws, p)).device == 3
    tail.close()


def test_anchor_moves_when_an_earlier_cause_arrives_late(tmp_path):
    root, p = tree(tmp_path)
    ws, tail = open_live(root)
    append(p, hccl_timeout(100, 20))
    first = tail.apply({str(p)})
    assert first.anchor_changed and ws.diagnose().anchor.stream is Stream.PLOG
    # the device log is flushed later, but its TS6 time is earlier than the plog's error
    dev = root / "debug" / "device-0"
    dev.mkdir()
    d = dev / "device-100_20260101100000100.log"
    d.write_text(info(100, 1, "dev start") + aicore(5))
    upd = tail.apply({str(dev), str(d)})
    assert upd.anchor_changed
    assert upd.old_anchor == first.new_anchor and "aicore exception" in upd.new_anchor
    diag = ws.diagnose()
    assert diag.anchor.stream is Stream.DEVICE and diag.category == "device"
    assert "Anchor moved" in upd.anchor_message()
    # more noise does not move it again
    append(p, info(100, 30))
    assert tail.apply({str(p)}).anchor_changed is False
    tail.close()


def test_snapshot_index_reads_the_size_at_open(tmp_path):
    root, p = tree(tmp_path)
    ws = Workspace.open([str(root)])
    append(p, hccl_timeout(100, 2))  # written after the open, before the index
    ws.snapshot_index()
    assert ws.indexes[0].line_count == 1 and ws.diagnose().anchor is None
    ws2 = Workspace.open([str(root)])
    ws2.snapshot_index()
    assert ws2.indexes[0].line_count == 3 and ws2.diagnose().anchor is not None


def _replay_module():
    spec = importlib.util.spec_from_file_location("replay", REPO / "fixtures" / "replay.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


@pytest.mark.parametrize("scenario", ["aicore-exception-reverse-order", "hccl-notify-wait-cascade"])
def test_replayed_job_ends_like_a_cold_open(tmp_path, scenario):
    """A replayed scenario, followed live from an empty folder, ends with the same lines and anchor."""
    replay = _replay_module()
    src = REPO / "fixtures" / scenario
    dest = tmp_path / "job"
    dest.mkdir()
    ws = Workspace.open([str(dest)])  # an empty folder: everything arrives live
    ws.index()
    tail = LiveTail(ws)
    done = threading.Event()

    def writer():
        try:
            replay.replay(src, dest, speed=1e9, max_gap=0.0005, lines_per_tick=25)
        finally:
            done.set()

    t = threading.Thread(target=writer)
    t.start()
    while not done.is_set():
        tail.poll()
        time.sleep(0.005)
    t.join()
    tail.poll()
    cold = Workspace.open([str(dest)])
    cold.index()
    live_lines = {f.display: ws.indexes[f.file_id].line_count for f in ws.files}
    cold_lines = {f.display: cold.indexes[f.file_id].line_count for f in cold.files}
    assert live_lines == cold_lines
    a, b = ws.diagnose().anchor, cold.diagnose().anchor
    assert b is not None and a is not None
    assert (ws.files[a.ref.file_id].display, a.ref.line, a.text) == (cold.files[b.ref.file_id].display,
                                                                     b.ref.line, b.text)
    tail.close()


def test_a_file_born_in_a_root_that_was_empty_is_named_like_a_cold_open(tmp_path):
    # two roots: discovery names files by their path below the common parent, and so must
    # the tail, even where no file of that root was there to copy the naming from
    (tmp_path / "node1" / "log").mkdir(parents=True)
    (tmp_path / "node2" / "log").mkdir(parents=True)
    p1 = tmp_path / "node1" / "log" / "debug" / "plog" / "plog-100_20260101100000000.log"
    p1.parent.mkdir(parents=True)
    p1.write_text(info(100, 1))
    roots = [str(tmp_path / "node1" / "log"), str(tmp_path / "node2" / "log")]
    ws = Workspace.open(roots)
    ws.index()
    tail = LiveTail(ws)
    p2 = tmp_path / "node2" / "log" / "debug" / "plog" / "plog-100_20260101100000000.log"
    p2.parent.mkdir(parents=True)
    p2.write_text(info(100, 2, "other node"))
    upd = tail.apply({str(p2.parent.parent)})
    cold = Workspace.open(roots)
    assert [ws.files[f].display for f in upd.new_files] == [cold.files[1].display]
    assert cold.files[1].display == "node2/log/debug/plog/" + p2.name
    assert ws.source_of_file(upd.new_files[0]) is not ws.source_of_file(0)  # another folder, another chain
    tail.close()


def test_a_console_file_without_a_log_suffix_is_watched_like_discovery_reads_it():
    from npudiag_tui.core.discover import skip_reason
    from npudiag_tui.core.live import may_be_log

    for name in ("worker_0.stdout", "train", "plog-1_20260101100000000.log", "job.err"):
        assert may_be_log(name) and skip_reason(name) is None
    for name in ("config.json", "bundle.tar.gz", "model.om"):
        assert not may_be_log(name) and skip_reason(name) is not None
