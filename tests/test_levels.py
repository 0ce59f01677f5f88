"""One level definition: the pane colour, the e/w marks and the bulk prefilter must agree.

The colour and the marks both ask `line_level`; the marks pass only looks at lines the byte
`prefilter` lets through. So the property that keeps `e` from skipping a red line is: the
prefilter never rejects a line that `line_level` calls ERROR (or WARNING). The marks are checked
through the real scan (`scan_matching_lines` with the prefilter and `line_level` as predicate),
the diagnosis through `build_events` on the same file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npudiag_tui.core.formats.levels import line_level, prefilter
from npudiag_tui.core.model import Level, Stream

PLOG = "[{lvl}] RUNTIME(971,python):2026-06-17-12:12:04.882.278 [api_c.cc:1081]971 rtMemcpy:ErrCode=107030"

# (line, level in a console file, level in a plog/device file)
CASES: list[tuple[str, Level, Level]] = [
    (PLOG.format(lvl="ERROR"), Level.ERROR, Level.ERROR),
    (PLOG.format(lvl="WARNING"), Level.WARNING, Level.WARNING),
    (PLOG.format(lvl="INFO"), Level.INFO, Level.INFO),
    (PLOG.format(lvl="DEBUG"), Level.DEBUG, Level.DEBUG),
    ("[ERROR] AICPU(4127,aicpu_scheduler):2026-03-11-07:22:41.503.118 [aicpu_sharder.cc:288][RunKernel][tid:4141] "
     "kernel param invalid", Level.ERROR, Level.ERROR),
    ("[WARNING] AICPU(4127,aicpu_scheduler): 2026-03-11-07:22:41.498.770 [aicpu_sharder.cc:140][Prepare][tid:4141] "
     "retry kernel load", Level.WARNING, Level.WARNING),
    ("[ERROR] DEVICE(16158,fffe34f491e0,python):2023-12-29-12:03:03.764.629 [ascend_kernel_runtime.cc:674] "
     "TaskFailCallback] Execute TaskFailCallback failed.", Level.ERROR, Level.ERROR),
    ("(EngineCore_DP0 pid=106187) INFO 05-21 21:33:34 [core.py:103] Initializing a V1 LLM engine",
     Level.INFO, Level.NONE),
    ("(VllmWorker rank=3 pid=123) ERROR 02-14 06:01:55 [multiproc_executor.py:601] EZ9999: Inner Error!",
     Level.ERROR, Level.NONE),
    ("ERROR 04-18 08:22:17 engine.py:400] boom", Level.ERROR, Level.NONE),
    ("WARNING 05-21 21:33:34 [utils.py:1] an error code is mentioned here", Level.WARNING, Level.NONE),
    ("INFO 05-21 21:33:34 [utils.py:1] retrying after error code is 5", Level.INFO, Level.NONE),
    ("2026-01-05 16:03:27,514 - root - WARNING - disk almost full", Level.WARNING, Level.NONE),
    ("[rank0]:[E1212 07:22:09.118630254 ProcessGroupHCCL.cpp:1] watchdog caught collective timeout",
     Level.ERROR, Level.NONE),
    ("[rank5]:[W311 07:22:09.118630254 NPUStream.cpp:371] Warning: EZ9999: Internal error!",
     Level.WARNING, Level.NONE),
    ("W NPUStream.cpp:409] Warning: NPU warning, error code is 507046[Error]: ", Level.WARNING, Level.NONE),
    ("[ERROR] 2024-06-20-10:41:32 (PID:59450, Device:-1, RankID:-1) ERR00008 PTA resource not found",
     Level.ERROR, Level.NONE),
    ("[Error]: The vector core execution is abnormal.", Level.ERROR, Level.NONE),
    ("EZ9999: [PID: 11657] 2025-12-24-02:36:12.999.877 expert count is: 128", Level.ERROR, Level.NONE),
    ("EE1002: 2024-09-03-16:50:00.041.231 Stream synchronize timeout.", Level.ERROR, Level.NONE),
    ("[rank0]: EZ9999: Inner Error!", Level.ERROR, Level.NONE),
    ("RuntimeError: NPU out of memory. Tried to allocate 22.00 MiB", Level.ERROR, Level.NONE),
    ("(train pid=8464) RuntimeError: npuSynchronizeDevice:compiler_depend.ts:479 NPU function error: "
     "AclrtSynchronizeDeviceWithTimeout, error code is 507048", Level.ERROR, Level.NONE),
    ("torch.OutOfMemoryError: NPU out of memory.", Level.ERROR, Level.NONE),
    ("Traceback (most recent call last):", Level.ERROR, Level.NONE),
    ("        TraceBack (most recent call last):", Level.ERROR, Level.NONE),
    ('  File "/usr/lib/python3.10/site-packages/torch_npu/npu/utils.py", line 60, in synchronize',
     Level.NONE, Level.NONE),
    ("Segmentation fault (core dumped)", Level.ERROR, Level.NONE),
    ("*** SIGSEGV received at time=1767580920 on cpu 3 ***", Level.ERROR, Level.NONE),
    ("UserWarning: something is deprecated", Level.WARNING, Level.NONE),
    ("\x1b[0;36m(Worker_TP5 pid=4411)\x1b[0;0m ERROR 03-05 07:15:39 [worker.py:1] failed", Level.ERROR, Level.NONE),
    ("step 10 loss 1.23", Level.NONE, Level.NONE),
    ("errors=0 warnings=0", Level.NONE, Level.NONE),
    ("no error found", Level.NONE, Level.NONE),
    ("warning_count=3", Level.NONE, Level.NONE),
    ("ERRORS_SEEN=0", Level.NONE, Level.NONE),
    ("Engine.py:12] started", Level.NONE, Level.NONE),
    ("", Level.NONE, Level.NONE),
]


@pytest.mark.parametrize("line,console,plog", CASES, ids=[c[0][:40] for c in CASES])
def test_levels_of_known_shapes(line: str, console: Level, plog: Level) -> None:
    assert line_level(line, Stream.STDOUT) == console
    assert line_level(line) == console  # no stream known: the console reading
    assert line_level(line, Stream.PLOG) == plog
    assert line_level(line, Stream.DEVICE) == plog


def _prefilter_keeps(line: str, stream: Stream, level: Level) -> bool:
    pattern, line_start = prefilter(stream, level)
    data = line.encode("utf-8", "surrogatepass")
    return pattern.search(b"\n" + data if line_start else data) is not None


def _check_superset(line: str) -> None:
    for stream in (Stream.STDOUT, Stream.PLOG, Stream.DEVICE):
        level = line_level(line, stream)
        for wanted in (Level.WARNING, Level.ERROR):
            if level >= wanted:
                assert _prefilter_keeps(line, stream, wanted), (stream, wanted, line)


@pytest.mark.parametrize("line", [c[0] for c in CASES], ids=[c[0][:40] for c in CASES])
def test_prefilter_keeps_every_known_shape(line: str) -> None:
    _check_superset(line)


_FRAGMENTS = [c[0] for c in CASES] + [
    "ERROR", "CRITICAL", "FATAL", "WARNING", "WARN", "Warning:", "INFO", "DEBUG", "error", "Error:",
    "RuntimeError:", "ValueError:", "KeyboardInterrupt", "Exception:", "[Error]", "error code is 507015",
    "ERR00100", "ERR0010", "EZ9999:", "EE1002[", "E40021:", "EZ9999", "Traceback (most recent call last):",
    "TraceBack (most", "out of memory", "OutOfMemoryError", "Segmentation fault", "core dumped",
    "*** SIGABRT received", "[E311 07:22:09.1 a.cpp:1]", "[W1212 07:22:09.1 a.cpp:1]", "W0311 07:22:09.118 1 a.cc:3]",
    "E NPUStream.cpp:1]", "W NPUStream.cpp:409]", "I0101 00:00:00", "[rank3]:", "(Worker pid=12)", "(a pid=1, ip=1.2.3.4)",
    "[repeated 3x across cluster]", "worker-1:", "> ", "2026-01-05 16:03:27,514 - x -", "05-21 21:33:34",
    "[core.py:103]", "\x1b[0;36m", "\x1b[0m", "^[[0;36m", "[0;36m", "[0m", "\r", "\x00", "\x9b", "\u202e",
    "\u200b", "\ufeff", "\t", " ", "  ", "errors=0", "warning_count", "no error", "ERRORS", "[ERROR] ", "[WARNING] ",
    "[INFO] ", "RUNTIME(1,x):", "[EXCEPTION] A", "[CRITICAL] B",
]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)), max_size=8),
       st.sampled_from(["", " ", "  "]))
def test_prefilter_never_rejects_a_line_of_that_level(parts: list[str], sep: str) -> None:
    """Lines glued from the vocabulary, prefixes, colour codes and control characters, with and
    without separators (so a removed character can join two halves of a word)."""
    line = sep.join(parts).replace("\n", " ")
    _check_superset(line)


def test_colour_marks_and_events_agree_on_a_file(tmp_path: Path) -> None:
    """Through the real passes: the marks scan (prefilter + line_level, as the TUI runs it)
    finds exactly the lines `line_level` colours, and every diagnosis event carries that level."""
    from npudiag_tui.core.diagnosis.events import build_events
    from npudiag_tui.core.index import FileIndex
    from npudiag_tui.core.model import Source, SourceFile
    from npudiag_tui.core.scan import SourceScan
    from npudiag_tui.core.timeline import scan_matching_lines

    lines = [c[0] for c in CASES if "\n" not in c[0]]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    idx = FileIndex(str(path), file_id=0)
    scan = SourceScan(Stream.STDOUT)
    idx.extend(on_chunk=lambda ch: scan.feed(0, ch))
    texts = [idx.line(i) for i in range(idx.line_count)]
    for wanted in (Level.WARNING, Level.ERROR):
        pattern, line_start = prefilter(Stream.STDOUT, wanted)
        marked = list(scan_matching_lines(idx, pattern, None, lambda s: line_level(s, Stream.STDOUT) >= wanted,
                                          line_start=line_start))
        coloured = [i for i, t in enumerate(texts) if line_level(t, Stream.STDOUT) >= wanted]
        assert marked == coloured
    source = Source(source_id=0, stream=Stream.STDOUT, files=[SourceFile(str(path), "train.log", 0)])
    events = build_events(source, scan.hits, [idx])
    assert events
    for ev in events:
        assert ev.level == line_level(texts[ev.ref.line], Stream.STDOUT)


def test_console_prefilter_finds_every_level_line_of_a_long_run():
    """The console prefilter works through a run in windows cut at line ends: a level line
    anywhere in a run of several windows (one straddling where a window would end) is found."""
    filler = "2026-01-05 16:03:27,514 - step 10 - loss 0.25 tokens/s 5230\n"
    lines = [filler] * 3000
    wanted = {5: "RuntimeError: boom\n", 1092: "EZ9999: Inner Error!\n", 2183: "[W311 07:22:09.1 a.cpp:1] slow\n",
              2999: "\x1b[31mERR\x1b[0mOR in kernel\n"}
    offset = 0
    for k in range(len(lines)):  # a level line that spans the first window's end
        if offset < (1 << 16) <= offset + len(filler):  # the window's end falls inside "Traceback"
            wanted[k] = "x" * ((1 << 16) - offset - 4) + "Traceback (most recent call last):\n"
            break
        offset += len(filler)
    for k, text in wanted.items():
        lines[k] = text
    data = "".join(lines).encode()
    pattern, _ = prefilter(Stream.STDOUT, Level.WARNING)
    starts = [m.start() for m in pattern.finditer(data)]
    found = {data.count(b"\n", 0, s) for s in starts}
    assert set(wanted) <= found
    assert found <= {k for k in range(len(lines)) if line_level(lines[k].rstrip("\n"), Stream.STDOUT) >= Level.WARNING
                     or lines[k] != filler}


def test_control_sequences_are_the_control_class_in_utf8():
    """The byte prefilter's control sequences match exactly the characters the terminal never
    gets raw (but NL, which ends lines), each as its UTF-8 bytes."""
    import re

    from npudiag_tui.core.formats.text import CONTROL_CLASS, CONTROL_SEQUENCES

    as_bytes, as_text = re.compile(CONTROL_SEQUENCES), re.compile(CONTROL_CLASS)
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF or c == 0x0A:
            continue
        assert bool(as_bytes.fullmatch(chr(c).encode())) == bool(as_text.fullmatch(chr(c))), hex(c)
