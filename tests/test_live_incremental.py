"""Incremental live diagnosis (#13, key lag during an error storm): a re-diagnosis reads the new
hits only, and what it gives is what a full diagnosis of the same lines gives.

The storm is generated: console logs of the corpus (real multi-line blocks: tracebacks, CANN
detail blocks, rank prefixes) and plog error lines of several processes, appended in chunks cut
anywhere (so blocks and lines are split across batches, and a batch may end in a line without
its newline), one live re-diagnosis after each batch.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from npudiag_tui.core.diagnosis import events as events_module
from npudiag_tui.core.live import LiveTail
from npudiag_tui.core.workspace import Workspace
from npudiag_tui.report import render_json

CORPUS = Path(__file__).resolve().parent / "corpus"


def ts(sec: float) -> str:
    whole, frac = divmod(int(round(sec * 1_000_000)), 1_000_000)
    return f"2026-01-01-10:{whole // 60 % 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def plog_error(pid: int, i: int) -> str:
    if i % 3 == 0:
        return (f"[ERROR] HCCL({pid},python):{ts(2 + i * 0.001)} [task.cc:2][{pid}][TaskExceptionHandler]The wait "
                f"execution of the Notify register times out. Reason: remote rank: [{i % 8}].\n")
    if i % 3 == 1:
        return f"[INFO] RUNTIME({pid},python):{ts(2 + i * 0.001)} [runtime.cc:10] {pid} step {i}\n"
    return (f"[ERROR] RUNTIME({pid},python):{ts(2 + i * 0.001)} [stream.cc:1082]{pid} GetError:Notify wait "
            f"execute failed, device_id=0, stream_id=2, task_id={i}\n")


def storm_text(rnd: random.Random) -> tuple[str, dict[int, str]]:
    """Console text from corpus logs, and plog text per pid."""
    logs = sorted(CORPUS.glob("*/stdout.log"))
    assert logs, "the corpus holds console logs"
    console = "".join(p.read_text(encoding="utf-8", errors="replace") for p in rnd.sample(logs, 6))
    plogs = {pid: "".join(plog_error(pid, i) for i in range(rnd.randint(200, 600))) for pid in (100, 200)}
    return console, plogs


def canonical(ws: Workspace, diag) -> dict:
    """What a diagnosis says (the JSON report without the input list, whose line counts differ
    by the held-back line) and every event it read."""
    report = json.loads(render_json(ws, diag))
    report.pop("inputs", None)
    events = [(e.ref.file_id, e.ref.line, e.kind, e.category, e.rank, e.time, e.text, e.secondary,
               [(r.file_id, r.line) for r in e.lines]) for e in diag.events]
    return {"report": report, "events": events}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_storm_rediagnosed_incrementally_equals_a_full_diagnosis(tmp_path, seed, monkeypatch):
    rnd = random.Random(seed)
    console_text, plog_texts = storm_text(rnd)
    root = tmp_path / "run"
    plog_dir = root / "log" / "debug" / "plog"
    plog_dir.mkdir(parents=True)
    plogs = {pid: plog_dir / f"plog-{pid}_20260101100000000.log" for pid in plog_texts}
    for pid, path in plogs.items():
        path.write_text(f"[INFO] RUNTIME({pid},python):{ts(1)} [runtime.cc:10] {pid} start\n")
    console = root / "train.log"
    console.write_text("start\n")
    ws = Workspace.open([str(root / "log")], [str(console)])
    ws.index()
    tail = LiveTail(ws)

    lines_read = 0  # lines the event builder reads: each is classified once (classify_line)
    real_classify_line = events_module.classify_line

    def counting(*args, **kw):
        nonlocal lines_read
        lines_read += 1
        return real_classify_line(*args, **kw)

    monkeypatch.setattr(events_module, "classify_line", counting)
    streams = [(console, console_text)] + [(plogs[pid], text) for pid, text in plog_texts.items()]
    at = {path: 0 for path, _ in streams}
    upd = None
    rounds = 0
    while any(at[p] < len(t) for p, t in streams):
        for path, text in streams:
            n = rnd.randint(1, 4000)
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(text[at[path]: at[path] + n])
            at[path] += n
        lines_read = 0
        upd = tail.apply({str(p) for p, _ in streams})
        rounds += 1
        hits = sum(len(s.hits) for s in ws.scans)
        if upd.rediagnosed and rounds > 3:
            # the new lines only (and those of a held-back last line), never the whole storm again
            assert lines_read < hits // 2 + 200, (lines_read, hits)
    final = tail.rediagnose()
    assert final.diagnosis is not None and final.diagnosis.anchor is not None
    monkeypatch.undo()
    assert canonical(ws, final.diagnosis) == canonical(ws, full_diagnosis(ws))
    tail.close()
    ws.close()


def full_diagnosis(ws: Workspace):
    """The same lines diagnosed from scratch, as a report would (the held-back last lines read
    as lines), on the same workspace and time model."""
    from npudiag_tui.core.diagnosis.engine import Inputs, build_all_events, diagnose
    from npudiag_tui.core.live import incomplete_hits
    from npudiag_tui.core.ranks import resolve_ranks

    sources = [dataclasses.replace(s, files=list(s.files)) for s in ws.sources]
    pending = {s.source_id: [h for f in s.files for h in incomplete_hits(ws, f.file_id, ws.scans[s.source_id])]
               for s in sources}
    events = build_all_events(sources, ws.scans, ws.indexes, ws.times, pending=pending)
    resolve_ranks(sources, ws.scans, events)
    return diagnose(Inputs(sources, ws.scans, ws.indexes, ws.files, lambda: ws.registry), events)
