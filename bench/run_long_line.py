#!/usr/bin/env python3
"""Per-line regex work is linear: long console error lines, timed as the length doubles.

    .venv/bin/python bench/run_long_line.py [--max 1M] [--quick]

Three measurements, each printing time and the ratio to the previous (half as long) run; a ratio
near 2 is linear, near 4 quadratic (a ratio under 2 means a cap took over):

1. The whole report path (discover, index, scan, diagnose, text report) over a console file of one
   `RuntimeError: ...` line followed by filler, for several fillers known to have hit backtracking
   patterns (`x(`, `a:`, word runs, spaces), from 16 KB up to --max (1 MB by default).
2. Ten lines of 17 KB (the issue's second case).
3. Every module-level regex under core/ on every filler at 2, 4 and 8 K characters, listing any
   whose time grows faster than 3x per doubling (so a new quadratic pattern shows up here, not in
   a frozen TUI). Patterns are searched directly, without the per-line cap.

Issue 13 measured 35 s for one 64 KB line and 12 s for ten 17 KB lines before the fix.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import pkgutil
import re
import sys
import tempfile
import time

HEAD = "RuntimeError: NPU function error: aclnnMatmul, error code is 161002 "
FILLERS = {"[FUNC:": "[FUNC:", "x(": "x(", "ab(": "ab(", "a:": "a:", "word": "a", "space": " ", "a.": "a.", "_": "_",
           "[1": "[1", "key=": "k=v, ", "Warning: ": "Warning: ", "task_id": "task_id=1 "}


def _size(text: str) -> int:
    mult = {"K": 1 << 10, "M": 1 << 20}
    return int(text[:-1]) * mult[text[-1].upper()] if text[-1].upper() in mult else int(text)


def report_once(path: str) -> tuple[float, bool]:
    """Seconds for the full --report path in this process, and whether the error was anchored."""
    from npudiag_tui.cli import main

    out = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["--stdout", path, "--report", "json", "--no-follow"])
    elapsed = time.perf_counter() - t
    return elapsed, "161002" in out.getvalue()


def line_growth(tmp: str, max_len: int, fillers: list[str]) -> None:
    print("1. one long error line, full report path (time s, ratio per doubling)")
    for name in fillers:
        unit = FILLERS[name]
        n, prev, row = 16 << 10, None, []
        while n <= max_len:
            path = os.path.join(tmp, f"long-{n}.log")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("step 1 ok\n" + HEAD + (unit * (n // len(unit) + 1))[:n] + "\n")
            t, found = report_once(path)
            row.append(f"{n >> 10}K {t:.2f}s" + (f" x{t / prev:.1f}" if prev else "") + ("" if found else " MISSED"))
            prev, n = t, n * 2
        print(f"   {name:>10}: " + "  ".join(row))


def ten_lines(tmp: str) -> None:
    path = os.path.join(tmp, "ten.log")
    with open(path, "w", encoding="utf-8") as fh:
        for _ in range(10):
            fh.write(HEAD + "ab(" * (17_000 // 3) + "\n")
    t, found = report_once(path)
    print(f"2. ten 17 KB error lines: {t:.2f}s{'' if found else ' MISSED'}")


def patterns() -> dict[str, object]:
    import npudiag_tui.core

    found: dict[str, object] = {}
    for mod_info in pkgutil.walk_packages(npudiag_tui.core.__path__, "npudiag_tui.core."):
        mod = importlib.import_module(mod_info.name)
        for key, value in vars(mod).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str) or type(value).__name__ == "Anchored":
                found[f"{mod_info.name.removeprefix('npudiag_tui.core.')}.{key}"] = value
    return found


def pattern_growth() -> None:
    pats = patterns()
    bad = []
    for name, pat in pats.items():
        for fname, unit in FILLERS.items():
            times = []
            for n in (2048, 4096, 8192):
                s = (unit * (n // len(unit) + 1))[:n]
                t = time.perf_counter()
                pat.search(s)  # type: ignore[attr-defined]
                if isinstance(pat, re.Pattern):
                    pat.match(s)
                times.append(time.perf_counter() - t)
            ratio = times[2] / max(times[1], 1e-7)
            if times[2] > 0.002 and ratio > 3.0:
                bad.append((times[2], name, fname, ratio))
    print(f"3. {len(pats)} patterns x {len(FILLERS)} fillers at 2/4/8 K characters: "
          f"{len(bad)} grow faster than 3x per doubling")
    for t, name, fname, ratio in sorted(bad, reverse=True):
        print(f"   {name} on {fname!r}: {t * 1000:.1f} ms at 8 K, x{ratio:.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", default="1M", help="longest line (K/M suffix), default 1M")
    ap.add_argument("--quick", action="store_true", help="two fillers only")
    args = ap.parse_args()
    os.environ.setdefault("NPUDIAG_CANN_ROOTS", "")
    fillers = ["x(", "a:"] if args.quick else list(FILLERS)
    with tempfile.TemporaryDirectory(prefix="npudiag-bench-") as tmp:
        line_growth(tmp, _size(args.max), fillers)
        ten_lines(tmp)
    pattern_growth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
