#!/usr/bin/env python3
"""Index throughput and memory per indexed line, beside `grep -c ''` over the same files.

    python bench/run_index.py TREE [--repeat 3]

Measured in one run, after reading every file once to warm the page cache; each measurement runs
3 times in a fresh process and the best (shortest) run is reported:

- workspace: `Workspace.open([TREE])` + `ws.index()` (discovery, block index and error scan: what a
  report or the TUI pays before it can diagnose), timed inside the child;
- extend:    `FileIndex(path).extend()` for every file the workspace found, no scan hook;
- grep:      `grep -c '' <the same files>` as a subprocess (counts lines: the C floor for one read
  pass that looks at every byte).

Figures: MB/s = indexed bytes / seconds; ratio = engine MB/s / grep MB/s (target >= 0.25);
index bytes/line = sum(FileIndex.memory_bytes()) / lines (target <= 16); RSS/line = peak RSS of
the child (VmHWM) / lines, and the same above the child's baseline RSS after imports.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _measure import (MB, best_of, fmt_mb, parse_child_json, run_measured, tree_files, vm_hwm,  # noqa: E402
                      vm_rss, warm)

TARGET_RATIO = 0.25
TARGET_BPL = 16.0


def child(mode: str, tree: str) -> None:
    """Runs inside a fresh interpreter; prints one JSON line."""
    from npudiag_tui.core.index import FileIndex
    from npudiag_tui.core.workspace import Workspace

    base = vm_rss()
    if mode == "workspace":
        t = time.perf_counter()
        ws = Workspace.open([tree])
        ws.index()
        dt = time.perf_counter() - t
        idxs = ws.indexes
        nbytes = sum(i.indexed for i in idxs)
        extra = {"files": len(idxs), "problems": ws.problems[:5],
                 "hits": sum(len(s.hits) for s in ws.scans)}
    else:  # extend
        ws = Workspace.open([tree])
        paths = [f.path for f in ws.files]
        t = time.perf_counter()
        idxs = []
        for p in paths:
            ix = FileIndex(p)
            ix.extend()
            idxs.append(ix)
        dt = time.perf_counter() - t
        nbytes = sum(i.indexed for i in idxs)
        extra = {"files": len(idxs)}
    lines = sum(i.line_count for i in idxs)
    mem = sum(i.memory_bytes() for i in idxs)
    print(json.dumps({"seconds": dt, "bytes": nbytes, "lines": lines, "index_bytes": mem,
                      "vmhwm": vm_hwm(), "base_rss": base, **extra}))


def file_list(tree: str) -> list[str]:
    """The files the workspace opens (discovery skips e.g. planted.json)."""
    from npudiag_tui.core.workspace import Workspace

    ws = Workspace.open([tree])
    try:
        return [f.path for f in ws.files]
    finally:
        ws.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="index throughput / memory vs grep")
    ap.add_argument("tree")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    a = ap.parse_args(argv)
    tree = os.path.abspath(a.tree)
    files = file_list(tree)
    skipped = sorted(set(tree_files(tree)) - set(files))
    total = warm(files)
    print(f"tree {tree}: {len(files)} files, {fmt_mb(total)} (warm){'; not indexed: ' + ', '.join(os.path.relpath(s, tree) for s in skipped) if skipped else ''}")

    me = os.path.abspath(__file__)
    grep, _ = best_of(a.repeat, lambda: run_measured(["grep", "-c", "", *files]))
    grep_lines = 0
    for row in grep["stdout"].splitlines():
        grep_lines += int(row.rsplit(":", 1)[-1]) if len(files) > 1 else int(row)
    grep_s = grep["wall"]

    res = {}
    for mode in ("workspace", "extend"):
        runs = []
        for _ in range(a.repeat):
            r = run_measured([sys.executable, me, "--child", mode, tree])
            j = parse_child_json(r)
            j["rss_wait4"] = r["rss"]
            j["wall_process"] = r["wall"]
            runs.append(j)
        best = min(runs, key=lambda j: j["seconds"])
        best["vmhwm_min"] = min(j["vmhwm"] for j in runs)
        res[mode] = best

    def mbps(nbytes: int, s: float) -> float:
        return nbytes / MB / max(s, 1e-9)

    grep_mbps = mbps(total, grep_s)
    print(f"\n{'measurement':<34}{'seconds':>9}{'MB/s':>9}{'vs grep':>9}{'peak RSS':>11}")
    glabel = "grep -c '' (same files)"
    print(f"{glabel:<34}{grep_s:>9.3f}{grep_mbps:>9.0f}{1.0:>9.2f}{fmt_mb(grep['rss_min']):>11}")
    figures = {"tree": tree, "files": len(files), "bytes": total, "grep": {"seconds": grep_s, "mbps": grep_mbps,
               "rss": grep["rss_min"], "lines": grep_lines}}
    for mode, label in (("workspace", "Workspace.open + index()"), ("extend", "FileIndex.extend() only")):
        j = res[mode]
        m = mbps(j["bytes"], j["seconds"])
        ratio = m / grep_mbps
        print(f"{label:<34}{j['seconds']:>9.3f}{m:>9.0f}{ratio:>9.2f}{fmt_mb(j['vmhwm_min']):>11}")
        figures[mode] = {"seconds": j["seconds"], "mbps": m, "ratio": ratio, "vmhwm": j["vmhwm_min"],
                         "lines": j["lines"], "index_bytes": j["index_bytes"], "base_rss": j["base_rss"]}
    w = res["workspace"]
    lines = w["lines"]
    bpl = w["index_bytes"] / max(lines, 1)
    rss_pl = w["vmhwm_min"] / max(lines, 1)
    rss_above = (w["vmhwm_min"] - w["base_rss"]) / max(lines, 1)
    print(f"\nlines indexed: {lines:,} (grep -c: {grep_lines:,}{'' if lines == grep_lines else '  MISMATCH'})")
    print(f"index bytes/line: {bpl:.3f}  (sum FileIndex.memory_bytes() = {w['index_bytes']:,} B)")
    print(f"peak RSS/line:    {rss_pl:.1f}  (VmHWM {fmt_mb(w['vmhwm_min'])}); above the post-import baseline "
          f"{fmt_mb(w['base_rss'])}: {rss_above:.1f} B/line")
    print(f"scan hits kept:   {w.get('hits', 0):,}")
    ratio = figures["workspace"]["ratio"]
    print(f"\nindex/grep throughput ratio: {ratio:.2f} (target >= {TARGET_RATIO}) "
          f"{'OK' if ratio >= TARGET_RATIO else 'BELOW TARGET'}")
    print(f"bytes per indexed line:      {bpl:.2f} (target <= {TARGET_BPL:g}) {'OK' if bpl <= TARGET_BPL else 'ABOVE TARGET'}")
    figures.update({"bytes_per_line": bpl, "rss_per_line": rss_pl, "rss_above_base_per_line": rss_above})
    if a.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
