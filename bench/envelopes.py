"""Robustness of the anchor under envelopes: wrap every console line of each dev case that the
engine gets right in a realistic envelope (a launcher prefix, a worker's logger, a Markdown quote,
pytest's `E` column, CRLF) and judge it again. Prints, per envelope, how many still hold and the
cases that moved. Dev cases only: the holdout is measured, never probed.

    .venv/bin/python bench/envelopes.py [rank|worker|ray|vllm_err|quote|pytest|crlf|ansi|nbsp ...]

`vllm_err` prints every line at ERROR (as a worker logs a caught failure), so lines that were INFO
become error lines: a few cases move for that reason alone, and are not defects.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import corpus_dirs  # noqa: E402
from test_conformance import judge  # noqa: E402

from npudiag_tui.core.formats.timestamps import find_stamp, format_us  # noqa: E402


def logger_stamp(lines: list[str]) -> str:
    """A worker logger's `MM-DD HH:MM:SS` on the case's own day (a fixed date would make errors stale)."""
    for line in lines:
        st = find_stamp(line, 2026)
        if st and st.kind != "c10":
            return format_us(st.us)[5:19].replace("T", " ")
    return "03-25 06:14:02"


ENVELOPES = {
    "rank": "[rank3]:{}",
    "worker": "(Worker_TP1 pid=4242) {}",
    "ray": "(RayWorkerWrapper pid=91798, ip=10.0.0.2) {}",
    "vllm_err": "(Worker pid=17096) ERROR {stamp} [multiproc_executor.py:880] {}",
    "quote": "> {}",
    "pytest": "E       {}",
    "crlf": "{}\r",
    # a terminal's colours kept in the file (Ray colours its prefix, vLLM its stage)
    "ansi": "\x1b[36m(RayWorkerWrapper pid=91798, ip=10.0.0.2)\x1b[0m {}",
    # a log copied from a web page: its indents became no-break spaces
    "nbsp": "{nbsp}",
}


def _nbsp(line: str) -> str:
    """The line with its leading spaces as no-break spaces (U+00A0)."""
    body = line.lstrip(" ")
    return "\u00a0" * (len(line) - len(body)) + body


def wrapped(case: Path, dst: Path, envelope: str) -> bool:
    """Copy a case with its console logs wrapped; False when it has no console log."""
    logs = [p for p in case.iterdir() if p.name.startswith("stdout") and p.name.endswith(".log")]
    if not logs:
        return False
    shutil.copytree(case, dst)
    for p in logs:
        lines = p.read_text(encoding="utf-8", errors="replace").split("\n")
        stamp = logger_stamp(lines)
        (dst / p.name).write_text("\n".join(envelope.format(line, stamp=stamp, nbsp=_nbsp(line)) if line else line
                                            for line in lines), encoding="utf-8")
    return True


def main() -> None:
    names = sys.argv[1:] or list(ENVELOPES)
    good = [c for c in corpus_dirs("dev") if (r := judge(c))["anchor"] and r["category"]]
    for name in names:
        report_moves(name, good, lambda case, dst, name=name: wrapped(case, dst, ENVELOPES[name]))


def report_moves(name: str, good: list[Path], change: Callable[[Path, Path], bool]) -> None:
    """Judge each case again after `change(case, copy)` (False: nothing to change in it) and
    print how many still hold and the ones that moved."""
    moved, n = [], 0
    for case in good:
        with tempfile.TemporaryDirectory() as td:
            dst = Path(td) / case.name
            if not change(case, dst):
                continue
            n += 1
            r = judge(dst)
            if not (r["anchor"] and r["category"]) or r["cascade"]:
                moved.append(f"{case.name}: {r['got'][:150]}")
    print(f"{name}: {n - len(moved)}/{n} hold")
    for m in moved:
        print("   ", m)


if __name__ == "__main__":
    main()
