"""Where the TUI's memory goes: run the app headless on a tree until every background job has
settled, with tracemalloc on, and print the allocation sites of the Python heap at its peak.

    python bench/mem_tui.py TREE [--top 15]

A snapshot is taken every second; the one with the most traced memory is shown (tracemalloc's
own peak has no sites). Tracing slows the app about twice: read the sizes, not the times.
VmHWM (the process's peak RSS) is printed beside it: the rest of the RSS is the interpreter,
the imported modules and what C code holds. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import tracemalloc


def hwm() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    os.environ["TEXTUAL_ANIMATIONS"] = "none"
    from npudiag_tui.cli import open_for_tui

    ws = open_for_tui([args.tree], [], [])
    tracemalloc.start(4)
    from npudiag_tui.tui.app import NpuDiagApp

    app = NpuDiagApp(ws, follow=False)
    best: list = [0, None, 0.0]
    t0 = time.monotonic()

    async def auto(pilot) -> None:
        while not app.is_settled() and time.monotonic() - t0 < 600:
            await asyncio.sleep(1.0)
            cur = tracemalloc.get_traced_memory()[0]
            if cur > best[0]:
                best[:] = [cur, tracemalloc.take_snapshot(), time.monotonic() - t0]
        app.exit()

    app.run(headless=True, size=(160, 45), auto_pilot=auto)
    settled = time.monotonic() - t0
    print(f"settled after {settled:.1f} s (traced); peak RSS {hwm() / 1e6:.1f} MB; "
          f"traced heap at its largest snapshot {best[0] / 1e6:.1f} MB (at {best[2]:.1f} s)")
    if best[1] is not None:
        for stat in best[1].statistics("lineno")[: args.top]:
            frame = stat.traceback[0]
            print(f"{stat.size / 1e6:8.1f} MB {stat.count:9,d} blocks  {frame.filename.split('site-packages/')[-1]}:{frame.lineno}")


if __name__ == "__main__":
    sys.exit(main())
