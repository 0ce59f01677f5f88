#!/usr/bin/env python3
"""Headless diagnosis time and memory beside `grep -rF '[ERROR]'` over the same tree.

    python bench/run_report.py TREE [--repeat 3]

After warming the page cache, runs (3 times each, best reported, same run):
- `npudiag-tui --report json TREE` as a subprocess: wall time (process start to exit, imports
  included) and peak RSS; its JSON anchor is checked against TREE/planted.json (the planted line
  or one of its `alt_anchors`, equivalent lines of the same event): PASS/FAIL;
- `grep -rF '[ERROR]' TREE` (output discarded): wall time.
Ratio = report wall / grep wall (target <= 4); RSS target < 200 MB. Exit code 1 on FAIL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _measure import fmt_mb, run_measured, tree_files, warm  # noqa: E402

TARGET_RATIO = 4.0
TARGET_RSS = 200 * (1 << 20)


def report_cmd(tree: str) -> list[str]:
    exe = os.path.join(os.path.dirname(sys.executable), "npudiag-tui")
    if os.access(exe, os.X_OK):
        return [exe, "--report", "json", tree]
    found = shutil.which("npudiag-tui")
    if found:
        return [found, "--report", "json", tree]
    return [sys.executable, "-m", "npudiag_tui", "--report", "json", tree]


def check_anchor(report: dict, planted: dict) -> tuple[bool, str]:
    got = report.get("anchor") or {}
    want = [planted["anchor"], *planted.get("alt_anchors", [])]
    gp, gl, gt = got.get("path"), got.get("line"), got.get("text") or ""
    for i, w in enumerate(want):
        if gp == w["path"] and gl == w["line"] and w["contains"] in gt:
            return True, "planted anchor" if i == 0 else f"alt anchor {i} ({w['contains'][:50]})"
    return False, f"got {gp}:{gl} {gt[:120]!r}; want {planted['anchor']['path']}:{planted['anchor']['line']}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="report wall time / RSS vs grep")
    ap.add_argument("tree")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON too")
    a = ap.parse_args(argv)
    tree = os.path.abspath(a.tree)
    planted_path = os.path.join(tree, "planted.json")
    planted = json.load(open(planted_path)) if os.path.exists(planted_path) else None
    total = warm(tree_files(tree))
    print(f"tree {tree}: {fmt_mb(total)} (warm)")

    cmd = report_cmd(tree)
    grep_cmd = ["grep", "-rF", "[ERROR]", tree]
    reps, greps = [], []
    for _ in range(a.repeat):  # interleaved, so both see the same machine state
        greps.append(run_measured(grep_cmd))
        reps.append(run_measured(cmd))
    for r in reps:
        if r["rc"] != 0:
            print(f"npudiag-tui failed (rc={r['rc']}):\n{r['stderr'][-4000:]}")
            return 1
    rep = min(reps, key=lambda r: r["wall"])
    grep = min(greps, key=lambda r: r["wall"])
    rss = min(r["rss"] for r in reps)
    ratio = rep["wall"] / max(grep["wall"], 1e-9)
    runs_txt = ", ".join("%.2f" % r["wall"] for r in reps)
    print(f"\n{'measurement':<34}{'wall s':>9}{'peak RSS':>11}")
    print(f"{'grep -rF [ERROR] TREE':<34}{grep['wall']:>9.3f}{fmt_mb(grep['rss']):>11}   "
          f"({grep['stdout'].count(chr(10)):,} matching lines)")
    print(f"{'npudiag-tui --report json TREE':<34}{rep['wall']:>9.3f}{fmt_mb(rss):>11}   "
          f"(runs: {runs_txt} s; RSS via {rep['rss_src']})")
    print(f"\nreport/grep wall ratio: {ratio:.2f} (target <= {TARGET_RATIO:g}) {'OK' if ratio <= TARGET_RATIO else 'ABOVE TARGET'}")
    print(f"peak RSS: {fmt_mb(rss)} (target < {fmt_mb(TARGET_RSS)}) {'OK' if rss < TARGET_RSS else 'ABOVE TARGET'}")

    ok, why = False, "no planted.json"
    report = json.loads(rep["stdout"])
    if planted:
        ok, why = check_anchor(report, planted)
    anc = report.get("anchor") or {}
    print(f"anchor: {anc.get('path')}:{anc.get('line')} category={anc.get('category')} rank={anc.get('rank')}")
    print(f"anchor check: {'PASS' if ok else 'FAIL'} ({why})")
    if a.json:
        print(json.dumps({"tree": tree, "bytes": total, "grep_s": grep["wall"], "report_s": rep["wall"],
                          "ratio": ratio, "rss": rss, "pass": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
