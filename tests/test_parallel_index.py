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
