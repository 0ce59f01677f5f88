"""#11 item 8: "crashed" only with crash evidence, never for one generic [ERROR] line.

Each crash shape has a positive case and a look-alike negative one; the text report and the
diagnosis the TUI shows come from the same Diagnosis, checked in tests/tui/test_reader_layout.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from npudiag_tui.core.diagnosis.actions import plan_actions
from npudiag_tui.core.diagnosis.classify import is_crash_evidence
from npudiag_tui.core.model import Situation
from npudiag_tui.core.workspace import Workspace
from npudiag_tui.report_text import render_text

GENERIC = "[ERROR] RUNTIME(4127,python):2026-03-11-07:22:41.998.100 [stream.cc:100]4127 DoWork: something went wrong\n"
LATER = "[INFO] RUNTIME(4127,python):2026-03-11-07:22:42.100.000 [stream.cc:120]4127 Step: next step\n"


def _report(tmp_path: Path, plog: str, console: str | None = None) -> tuple[str, object]:
    root = tmp_path / "logs"
    root.mkdir()
    (root / "plog-4127_20260311072241.log").write_text(plog)
    paths = [str(root)]
    if console is not None:
        (tmp_path / "train.log").write_text(console)
        paths.append(str(tmp_path / "train.log"))
    ws = Workspace.open(paths)
    ws.index()
    diag = ws.diagnose()
    return render_text(ws, diag, color=False, width=100), diag


def test_one_generic_error_line_does_not_say_crashed(tmp_path: Path) -> None:
    text, diag = _report(tmp_path, GENERIC + LATER)
    assert diag.category == "unknown"
    assert "crash" not in text.lower(), text
    assert "crash" not in diag.root_cause.lower() and diag.root_cause
    assert not any("crash" in (a.action + a.why).lower() for a in diag.next_actions)


@pytest.mark.parametrize("console", [
    "Segmentation fault (core dumped)\n",
    "Aborted (core dumped)\n",
    "terminate called after throwing an instance of 'c10::Error'\n",
    "*** SIGSEGV received at time=1767580920 on cpu 3 ***\n",
    "Fatal Python error: Aborted\n",
    "torch.distributed.elastic.multiprocessing.api: failed (exitcode: -11) local_rank: 0 (pid: 4127)\n",
])
def test_crash_evidence_of_the_process_says_crashed(tmp_path: Path, console: str) -> None:
    text, diag = _report(tmp_path, GENERIC + LATER, console="step 10 done\n" + console)
    assert diag.category == "unknown"
    assert "crashed" in diag.root_cause, (console, diag.root_cause)
    assert "crashed" in text and "backtrace" in text


def test_lookalike_a_crash_of_another_process_does_not_count(tmp_path: Path) -> None:
    # pid 5000 segfaults a second later; the anchor is pid 4127's generic error
    other = ("[ERROR] RUNTIME(5000,python):2026-03-11-07:22:43.000.000 [x.cc:1]5000 Main: "
             "Segmentation fault (core dumped)\n")
    root = tmp_path / "logs"
    root.mkdir()
    (root / "plog-4127_20260311072241.log").write_text(GENERIC + LATER)
    (root / "plog-5000_20260311072241.log").write_text(other)
    ws = Workspace.open([str(root)])
    ws.index()
    diag = ws.diagnose()
    assert diag.anchor is not None and diag.anchor.pid == 4127, diag.anchor
    assert "crash" not in diag.root_cause.lower()


@pytest.mark.parametrize("line", [
    "[ERROR] HCCL(4127,python): HcclCommAbort called, communicator aborted",
    "[ERROR] RUNTIME(4127,python): notify wait: received notify record, signal id 3",
    "[ERROR] RUNTIME(4127,python): abort flag set, exit code 1",
    "[ERROR] GE(4127,python): SIG_TYPE mismatch in coredump_dir setting",
])
def test_lookalike_words_are_not_crash_evidence(line: str) -> None:
    assert not is_crash_evidence(line)


@pytest.mark.parametrize("line", [
    "Segmentation fault (core dumped)", "#0 0x00007f3a in raise () from libc.so.6", "Aborted",
    "terminate called without an active exception", "Process 12 killed by signal 9",
    "*** Check failure stack trace: ***", "Signal 11 (SIGSEGV) received", "exited with code 139",
])
def test_crash_shapes_are_crash_evidence(line: str) -> None:
    assert is_crash_evidence(line)


def test_the_planner_asks_for_a_backtrace_only_after_a_crash() -> None:
    crash = "\n".join(a.action for a in plan_actions(Situation(category="unknown", crashed=True))[0])
    plain = "\n".join(a.action + a.why for a in plan_actions(Situation(category="unknown"))[0])
    assert "backtrace" in crash
    assert "backtrace" not in plain and "crash" not in plain.lower()
