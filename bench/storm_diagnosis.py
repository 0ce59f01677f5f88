"""The diagnosis of an error storm: N plog [ERROR] lines, four messages repeated with other
stamps, stream/task ids and counters (what a failing collective or a hung stream floods a plog
with).

    .venv/bin/python bench/storm_diagnosis.py [--lines 20000] [--repeat 3]

Prints the best wall time of `Workspace.diagnose()` and, as the reference in the same process,
of `Workspace.index()` over the same file: the ratio is what a machine's speed does not change.
Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from npudiag_tui.core.diagnosis import engine
from npudiag_tui.core.workspace import Workspace

MESSAGES = (
    ("HCCL", "[task_exception_handler.cc:812][2455][TaskExceptionHandler][Callback] Task run failed, base "
             "information is streamID:[{s}], taskID[{i}], tag[AllReduce_hcom_world], AlgType(level 0-1-2):[fullmesh-ring-ring]."),
    ("RUNTIME", "[api_c.cc:2034]2343 rtStreamSynchronizeWithTimeout:ErrCode=507048, desc=[the execution of the "
                "internal task times out], InnerCode=0x7150050"),
    ("RUNTIME", "[device_error_proc.cc:1431]129252 ProcLogicCqReport:Task run failed, device_id=3, stream_id={s}, "
                "task_id={i}, sqe_type=0(ffts), errType=0x20(sq sw status error)"),
    ("GE", "[engine.cc:{m}]42 RunGraph: graph {i} execute failed, ret[{r}]"),
)


def write_storm(folder: Path, lines: int) -> Path:
    plog = folder / "debug" / "plog"
    plog.mkdir(parents=True)
    out = []
    for i in range(lines):
        sec, ms = divmod(i, 1000)
        module, msg = MESSAGES[i % len(MESSAGES)]
        text = msg.format(s=i % 7, i=i, m=i % 500, r=i % 3)
        out.append(f"[ERROR] {module}(2455,python):2026-03-11-07:{22 + sec // 60:02d}:{sec % 60:02d}.{ms:03d}.000 {text}\n")
    path = plog / "plog-2455_20260311072200000.log"
    path.write_text("".join(out), encoding="utf-8")
    return folder


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = write_storm(Path(tmp), args.lines)
        index_s, diag_s = [], []
        for _ in range(args.repeat):
            engine._CATEGORIES.clear()  # each run classifies from scratch, as a fresh process does
            ws = Workspace.open([str(root)])
            t = time.perf_counter()
            ws.index()
            index_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            d = ws.diagnose()
            diag_s.append(time.perf_counter() - t)
            ws.close()
        print(f"storm of {args.lines} error lines: diagnose {min(diag_s):.2f} s, index {min(index_s):.2f} s, "
              f"ratio {min(diag_s) / min(index_s):.1f}x (best of {args.repeat}); {len(d.events)} events")


if __name__ == "__main__":
    main()
