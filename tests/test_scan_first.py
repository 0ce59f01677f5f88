"""The TUI's scan-first pass: error candidates and the diagnosis before the whole tree's
newlines are counted, the rest counted afterwards, and nothing lost once it is."""

from __future__ import annotations

from pathlib import Path

import pytest

import npudiag_tui.core.workspace as workspace
from npudiag_tui.core.workspace import Workspace

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hccl-notify-wait-cascade"


def _state(ws: Workspace):
    idx = [(i.line_count, list(i.nl_before), i.first_time, i.last_time) for i in ws.indexes]
    hits = [[(h.file_id, h.line, h.text) for h in sc.hits] for sc in ws.scans]
    return idx, hits, [(s.rank, s.device) for s in ws.sources]


def _wc_l(path: str) -> int:
    data = Path(path).read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


@pytest.fixture
def parallel(monkeypatch):
    """Worker processes on a small tree (the pass uses them from 64 MB and two cores)."""
    monkeypatch.setattr(workspace, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(workspace, "_workers", lambda: 2)


def _serial() -> Workspace:
    ws = Workspace.open([str(FIXTURE)])
    ws.index(processes=False)
    return ws


def test_files_without_hits_are_left_uncounted_and_the_diagnosis_does_not_need_them(parallel):
    full = _serial()
    ws = Workspace.open([str(FIXTURE)])
    assert ws.start_index(scan_first=True)
    ws.index_first()
    assert ws.pending, "the fixture has plog/device files without an error candidate"
    hit_files = {h.file_id for sc in ws.scans for h in sc.hits}
    assert not hit_files & set(ws.pending)
    for f in ws.pending:  # they read as empty, but hold lines and their times are known
        idx = ws.indexes[f]
        assert idx.line_count == 0 and idx.has_lines
        assert (idx.first_time, idx.last_time) == (full.indexes[f].first_time, full.indexes[f].last_time)
    # every hit is numbered as the full pass numbers it, and the diagnosis is the same
    assert _state(ws)[1:] == _state(full)[1:]
    a, b = full.diagnose(), ws.diagnose()
    assert (b.anchor.ref, b.category, b.summary, b.missing) == (a.anchor.ref, a.category, a.summary, a.missing)
    ws.close()


def test_counting_the_rest_gives_exactly_the_full_pass(parallel):
    full = _serial()
    ws = Workspace.open([str(FIXTURE)])
    ws.index_first()
    pending = set(ws.pending)
    seen = []
    for fid, state, error in ws.count_pending():
        assert error is None
        seen.append(fid)
        ws.adopt_count(fid, state, error)
    assert set(seen) == pending and not ws.pending
    assert _state(ws) == _state(full)
    assert [i.line_count for i in ws.indexes] == [_wc_l(f.path) for f in ws.files]  # wc -l
    ws.close()


def test_index_after_a_scan_first_start_counts_every_file(parallel):
    ws = Workspace.open([str(FIXTURE)])
    ws.start_index(scan_first=True)
    ws.index()  # the report's contract: every line counted when index() returns
    assert not ws.pending
    assert _state(ws) == _state(_serial())
    ws.close()


def test_pending_files_around_the_anchor_time_come_first(parallel):
    ws = Workspace.open([str(FIXTURE)])
    ws.index_first()
    anchor = ws.diagnose().anchor
    order = ws.pending_near(anchor.time)
    assert sorted(order) == sorted(ws.pending)
    def distance(f: int) -> int:  # from the moment to the file's span of lines
        lo, hi = ws.indexes[f].first_time, ws.indexes[f].last_time
        return 0 if lo <= anchor.time <= hi else min(abs(anchor.time - lo), abs(anchor.time - hi))

    got = [distance(f) for f in order]
    assert len(set(got)) > 1 and got == sorted(got)  # the nearest first
    ws.close()


def test_counts_carry_the_line_stamps_around_a_moment_and_change_nothing(parallel):
    """`count_pending(warm_at=t)`: each counted state brings the line stamps of its blocks
    around t (the first screen after the count reads them), and the files' times are those
    of a full pass."""
    full = _serial()
    ws = Workspace.open([str(FIXTURE)])
    ws.index_first()
    moment = ws.diagnose().anchor.time
    hit_files = [f for f in range(len(ws.indexes)) if f not in ws.pending and ws.indexes[f].line_count
                 and not ws.times.is_console(f)]
    got = list(ws.count_pending(ws.pending_near(moment), warm_at=moment))
    assert got and all(state is not None and state.line_times for _, state, _ in got)
    assert hit_files  # counted before the diagnosis: their stamps around the moment came from the workers too
    for f in hit_files:
        assert ws.indexes[f].state(line_times=True).line_times
    for fid, state, error in got:
        ws.adopt_count(fid, state, error)
    assert _state(ws) == _state(full)
    for fid, _, _ in got:
        n = full.indexes[fid].line_count
        assert [ws.indexes[fid].own_time(i) for i in range(n)] == [full.indexes[fid].own_time(i) for i in range(n)]
    ws.close()


def test_counted_files_come_with_every_block_first_stamp_worked_out(parallel):
    """The counts (before the diagnosis and after it) work out each block's first stamp while
    the chunks are in memory: a merged window bisects them all at once, on the interface's
    thread otherwise (one read per block). The stamps are those read lazily."""
    from npudiag_tui.core.index import UNKNOWN_TIME, FileIndex

    ws = Workspace.open([str(FIXTURE)])
    ws.index_first()
    counted = [f for f in range(len(ws.indexes)) if f not in ws.pending and ws.indexes[f].line_count]
    for fid, state, error in ws.count_pending():
        ws.adopt_count(fid, state, error)
        counted.append(fid)
    counted = [f for f in counted if not ws.times.is_console(f)]  # read whole by the pass, not counted
    assert len(counted) > 1
    for fid in counted:
        idx = ws.indexes[fid]
        assert UNKNOWN_TIME not in idx.block_time
        lazy = FileIndex(idx.path)
        lazy.extend()
        assert list(idx.block_time) == [lazy.block_first_time(k) for k in range(len(lazy.block_time))]
    ws.close()
