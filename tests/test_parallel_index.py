"""The multi-process index pass gives exactly what the serial pass gives."""

from __future__ import annotations

from pathlib import Path

import npudiag_tui.core.workspace as workspace
from npudiag_tui.core.workspace import Workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hccl-notify-wait-cascade"


def _state(ws: Workspace):
    idx = [(i.line_count, list(i.nl_before), list(i.block_time), i.first_time, i.last_time) for i in ws.indexes]
    hits = [[(h.file_id, h.line, h.text) for h in sc.hits] for sc in ws.scans]
    ranks = [(s.rank, s.device) for s in ws.sources]
    return idx, hits, ranks


def test_parallel_index_equals_serial(monkeypatch):
    serial = Workspace.open([str(FIXTURE)])
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 1 << 60)
    serial.index()
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)
    monkeypatch.setattr(workspace, "PARALLEL_MIN_WORKERS", 2)
    parallel = Workspace.open([str(FIXTURE)])
    seen: list[int] = []
    parallel.snapshot_index(progress=lambda done, total: seen.append(done))
    assert _state(parallel) == _state(serial)
    assert seen and seen[-1] == parallel.total_bytes
    a, b = serial.diagnose(), parallel.diagnose()
    assert (a.anchor.ref, a.category) == (b.anchor.ref, b.category)


def test_index_started_early_is_collected_by_index(monkeypatch):
    # the CLI starts the pool before Textual loads; index() then collects the same result
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 1 << 60)
    serial = Workspace.open([str(FIXTURE)])
    serial.index()
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)
    early = Workspace.open([str(FIXTURE)])
    assert early.start_index() is True
    early.index()
    assert _state(early) == _state(serial)
    assert early._inflight is None


def test_small_trees_stay_serial():
    ws = Workspace.open([str(FIXTURE)])
    assert ws.start_index() is False  # below PARALLEL_MIN_BYTES: no worker processes
    ws.index()
    assert sum(i.line_count for i in ws.indexes) > 0


def test_a_file_gone_before_the_parallel_pass_is_named_and_the_rest_indexed(monkeypatch, tmp_path):
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(FIXTURE, tree)
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)
    ws = Workspace.open([str(tree)])
    gone = ws.files[0]
    Path(gone.path).unlink()
    assert ws.start_index() is True
    ws.index()
    assert gone.file_id in ws.failed_files
    assert len(ws.problems) == 1 and "No such file" in ws.problems[0] and Path(gone.path).name in ws.problems[0]
    assert all(ws.indexes[f.file_id].line_count > 0 for f in ws.files[1:] if f.size)
    assert ws.diagnose() is not None


def _ended(pid: int) -> bool:
    """Exited (a zombie counts): read from /proc, because the pool's own thread may reap the
    process first, after which multiprocessing's is_alive() can no longer tell."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):  # reaped while read: /proc answers ESRCH
        return True


def _children() -> set[int]:
    """Live (not yet exited) child processes of this process, from /proc."""
    import os

    out: set[int] = set()
    for tid in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{tid}/children") as fh:
                out.update(int(p) for p in fh.read().split())
        except FileNotFoundError:
            continue
    return {p for p in out if not _ended(p)}


def test_the_pool_forks_whatever_the_platform_default(monkeypatch):
    # start_index runs before Textual loads, and the workers must be forks of that small
    # interpreter: the start method is asked for by name, not left to the default
    import multiprocessing

    asked: list[str] = []
    real = multiprocessing.get_context

    def spy(method=None):
        asked.append(method)
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)
    ws = Workspace.open([str(FIXTURE)])
    assert ws.start_index() is True
    ws.index()
    assert asked == ["fork"]


def test_cancelling_the_parallel_pass_ends_the_workers(monkeypatch):
    import os
    import time

    import pytest

    if not os.path.exists(f"/proc/{os.getpid()}/task"):
        pytest.skip("needs /proc to see the worker processes")
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)

    def slow(job, progress=None):  # forked workers inherit this: a batch that would take 60 s
        time.sleep(60)

    monkeypatch.setattr(workspace, "_index_file", slow)
    before = _children()
    ws = Workspace.open([str(FIXTURE)])
    assert ws.start_index() is True
    deadline = time.monotonic() + 10
    while len(_children() - before) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)  # wait for the two workers (they then sit in their first batch)
    pids = _children() - before
    assert len(pids) >= 2
    ws.index(cancelled=lambda: True)
    deadline = time.monotonic() + 5
    while not all(_ended(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert all(_ended(pid) for pid in pids)


def test_workers_end_when_their_parent_is_killed(tmp_path):
    """A report killed by a timeout or the OOM killer (SIGKILL: no clean-up runs) must not leave
    its index workers asleep on the pool's queue."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import pytest

    if not os.path.exists("/proc/self/task"):
        pytest.skip("needs /proc to see the worker processes")
    script = (
        "import sys, time\n"
        "from npudiag_tui.core import workspace\n"
        "from npudiag_tui.core.workspace import Workspace\n"
        "workspace.PARALLEL_MIN_BYTES = 0\n"
        "workspace._workers = lambda: 2\n"
        "def slow(job, progress=None):\n"
        "    time.sleep(120)\n"
        "workspace._index_file = slow\n"
        "ws = Workspace.open([sys.argv[1]])\n"
        "assert ws.start_index()\n"
        "print('started', flush=True)\n"
        "time.sleep(120)\n")
    child = subprocess.Popen([sys.executable, "-c", script, str(FIXTURE)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 20
        workers: set[int] = set()
        while len(workers) < 2 and time.monotonic() < deadline:
            with open(f"/proc/{child.pid}/task/{child.pid}/children") as fh:
                workers = {int(p) for p in fh.read().split()}
            time.sleep(0.02)
        assert len(workers) >= 2, "the pool never started its workers"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=20)
        deadline = time.monotonic() + 20
        while not all(_ended(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_ended(p) for p in workers), f"workers {workers} outlived their parent"
    finally:
        if child.poll() is None:
            child.kill()
