"""What the console scan costs per line: memory (tracemalloc) on one huge line, time on runs of
empty lines (the zip bomb's content), against the index pass alone in the same run.

    .venv/bin/python bench/scan_memory.py [--line-mb 100] [--blank-mb 512]

Cases, each indexed with FileIndex.extend and scanned through SourceScan.feed (as a report does):
* `huge line`: an error at the start of one N MB line. The scan's peak memory above the index's
  own (which holds the line to find its newline) is the figure; before the byte-wise scan it was
  several times the line (the chunk decoded, lowered and copied once more).
* `blank lines`: N MB of empty lines. Scan time over index time.
* `console log`: N MB of ordinary console lines, for the scan's cost where it has work to do.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc

from npudiag_tui.core.index import FileIndex
from npudiag_tui.core.model import Stream
from npudiag_tui.core.scan import SourceScan


def run(path: str, scan: bool) -> tuple[float, int, SourceScan]:
    """(seconds, peak bytes traced, scan) of one index pass, with or without the scan."""
    sc = SourceScan(Stream.STDOUT)
    idx = FileIndex(path, 0)
    tracemalloc.start()
    t0 = time.perf_counter()
    idx.extend(on_chunk=(lambda chunk: sc.feed(0, chunk)) if scan else None)
    took = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return took, peak, sc


def timed(path: str, scan: bool) -> float:
    sc = SourceScan(Stream.STDOUT)
    idx = FileIndex(path, 0)
    t0 = time.perf_counter()
    idx.extend(on_chunk=(lambda chunk: sc.feed(0, chunk)) if scan else None)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--line-mb", type=int, default=100)
    ap.add_argument("--blank-mb", type=int, default=512)
    ap.add_argument("--log-mb", type=int, default=64)
    args = ap.parse_args()
    mb = 1 << 20
    with tempfile.TemporaryDirectory() as d:
        huge = os.path.join(d, "huge.log")
        with open(huge, "wb") as fh:
            fh.write(b"step 1 ok\nRuntimeError: NPU function error: EZ9999 " + b"y" * (args.line_mb * mb) + b"\nok\n")
        _, base, _ = run(huge, scan=False)
        _, peak, sc = run(huge, scan=True)
        found = [h.line for h in sc.hits]
        print(f"huge line ({args.line_mb} MB): index alone peak {base / mb:.0f} MB, with the scan {peak / mb:.0f} MB "
              f"(scan adds {(peak - base) / mb:.1f} MB); hits on lines {found}")
        blank = os.path.join(d, "blank.log")
        with open(blank, "wb") as fh:
            for _ in range(args.blank_mb):
                fh.write(b"\n" * mb)
        alone, scanned = timed(blank, False), timed(blank, True)
        print(f"blank lines ({args.blank_mb} MB): index alone {alone:.2f} s, with the scan {scanned:.2f} s "
              f"(x{scanned / alone:.2f}; {args.blank_mb / scanned:.0f} MB/s)")
        os.unlink(blank)
        log = os.path.join(d, "console.log")
        line = b"2026-01-01 10:00:00,123 - INFO - step 1234 loss 0.1234 lr 1e-4 tokens/s 5678.9\n"
        with open(log, "wb") as fh:
            fh.write(line * (args.log_mb * mb // len(line)))
        alone, scanned = timed(log, False), timed(log, True)
        print(f"console log ({args.log_mb} MB): index alone {alone:.2f} s, with the scan {scanned:.2f} s "
              f"(x{scanned / alone:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
