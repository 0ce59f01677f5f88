"""core.timemodel: one time per line (own / estimated / unknown), console rank channels, and
the same time in the merge and the reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from npudiag_tui.core.formats.timestamps import format_us, to_us
from npudiag_tui.core.timeline import Timeline
from npudiag_tui.core.timemodel import TimeKind
from npudiag_tui.core.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]


def plog_stamp(sec: float) -> str:
    us = int(round(sec * 1_000_000))
    whole, frac = divmod(us, 1_000_000)
    return f"2026-01-01-10:{whole // 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def log_stamp(sec: int) -> str:  # Python logging
    return f"2026-01-01 10:{sec // 60:02d}:{sec % 60:02d},000"


def at(sec: float) -> int:
    return to_us(2026, 1, 1, 10, 0, 0) + int(round(sec * 1_000_000))


def open_ws(tmp_path: Path, files: dict[str, str], stdout: list[str] | None = None) -> Workspace:
    root = tmp_path / "log"
    for rel, text in files.items():
        p = (tmp_path / rel) if rel.endswith(".txt") else (root / rel)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    ws = Workspace.open([str(root)], [str(tmp_path / s) for s in (stdout or [])], [])
    ws.index()
    return ws


def file_id(ws: Workspace, name: str) -> int:
    return next(f.file_id for f in ws.files if f.path.endswith(name))


def console_times(tmp_path: Path, text: str, lines: int, full_pass: bool) -> list:
    """The time of each line of one console file, read around each line or after the full
    channel pass the panes use (the two must agree)."""
    ws = open_ws(tmp_path, {"train.txt": text}, stdout=["train.txt"])
    fid = file_id(ws, "train.txt")
    if full_pass:
        ws.times.channels(fid)
    return [ws.times.line_time(fid, i) for i in range(lines)]


# A console written by two ranks in turns: rank 0's traceback sits under rank 1's INFO line and
# must not take its time; it is printed just before rank 0's stamped torch_npu header.
CONSOLE = "\n".join([
    f"[rank0]:{log_stamp(1)} - INFO - step 1",          # 0
    f"[rank1]:{log_stamp(2)} - INFO - step 1",          # 1
    f"[rank1]:{log_stamp(50)} - INFO - step 9",         # 2
    "[rank0]: Traceback (most recent call last):",      # 3
    '[rank0]:   File "train.py", line 3, in <module>',  # 4
    "[rank0]: RuntimeError: y.cpp:2 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048",
    "[rank0]: [ERROR] 2026-01-01-10:00:30 (PID:2, Device:0, RankID:0) ERR00100 PTA call acl api failed",  # 6
    f"[rank1]:{log_stamp(60)} - INFO - step 10",        # 7
    "[rank1]: trailing line of rank 1",                 # 8
    "[rank2]: a rank that never stamps",                # 9
]) + "\n"


def test_kinds_and_bounds_in_a_plog(tmp_path):
    ws = open_ws(tmp_path, {"debug/plog/plog-100_20260101100000000.log": "\n".join([
        "    before any stamp",
        f"[INFO] GE(100,python):{plog_stamp(1.0)} [a.cc:1]100 F:a1",
        "    continuation of a1",
        f"[INFO] GE(100,python):{plog_stamp(3.0)} [a.cc:1]100 F:a3",
    ]) + "\n"})
    tm = ws.times
    got = [tm.line_time(0, i) for i in range(4)]
    assert [g.kind for g in got] == [TimeKind.ESTIMATED, TimeKind.OWN, TimeKind.ESTIMATED, TimeKind.OWN]
    assert got[1].us == at(1.0) and got[3].us == at(3.0)
    # an unstamped line lies between the stamped lines around it (a continuation: the one above;
    # before the first stamp: the first one)
    assert got[1].us <= got[2].us <= got[3].us and got[2].us == at(1.0)
    assert got[0].us == at(1.0)


def test_console_lines_take_time_from_their_own_rank_channel(tmp_path):
    ws = open_ws(tmp_path, {"train.txt": CONSOLE}, stdout=["train.txt"])
    fid = file_id(ws, "train.txt")
    tm = ws.times
    t = [tm.line_time(fid, i) for i in range(10)]
    # rank 0's traceback: between rank 0's stamps (1 s and 30 s), never rank 1's 50 s
    for i in (3, 4, 5):
        assert t[i].kind is TimeKind.ESTIMATED
        assert at(1) <= t[i].us <= at(30) and t[i].us != at(50)
        assert t[i].us == t[6].us == at(30)  # printed with the header that follows it
    assert t[6].kind is TimeKind.OWN and t[2].kind is TimeKind.OWN and t[2].us == at(50)
    # no later stamp on rank 1 yet: the one before it
    assert t[8].kind is TimeKind.ESTIMATED and t[8].us == at(60)
    assert t[9].kind is TimeKind.UNKNOWN and t[9].us is None


def test_a_console_line_read_alone_gets_the_time_the_full_pass_gives(tmp_path):
    """Reports ask for a few lines of a console file whose full channel pass costs seconds: the
    time read around one line must be the time every pane shows once the pass is done."""
    ws = open_ws(tmp_path, {"train.txt": CONSOLE}, stdout=["train.txt"])
    fid = file_id(ws, "train.txt")
    alone = [ws.times.line_time(fid, i) for i in range(10)]
    ws.times.channels(fid)  # the full pass the panes use
    assert [ws.times.line_time(fid, i) for i in range(10)] == alone


# A precise CANN stamp, then unstamped TraceBack lines, then a c10 stamp cut to the second.
COARSE_AFTER_PRECISE = "\n".join([
    "EZ9999[PID: 5] 2026-01-01-10:00:10.420.394 (EZ9999):  detail of the block",  # 0
    "        TraceBack (most recent call last):",                                   # 1
    "       rtDeviceSynchronize execute failed, reason=[vector core exception]",    # 2
    "[W101 10:00:10.136265096 NPUStream.cpp:545] Warning: NPU warning, error code is 507035",  # 3
    "        more of the second block",                                             # 4
    "[W101 10:00:12.000000001 NPUStream.cpp:545] Warning: NPU warning, error code is 507035",  # 5
]) + "\n"


@pytest.mark.parametrize("full_pass", [False, True])
def test_a_stamp_cut_to_the_second_does_not_move_lines_before_the_stamp_above(tmp_path, full_pass):
    t = console_times(tmp_path, COARSE_AFTER_PRECISE, 6, full_pass)
    assert t[0].kind is TimeKind.OWN and t[3].kind is TimeKind.OWN
    assert t[3].us == at(10)  # c10's fraction is not wall-clock: the stamp is the whole second
    # the TraceBack lines under the 10.420 s detail were printed after it, not at 10.000 s
    assert t[1].us == t[2].us == at(10.420394)
    # look-alike: the next stamp is a whole second or more later: the lines take it
    assert t[4].us == at(12)


def test_merged_console_in_per_rank_blocks_is_in_time_order(tmp_path):
    # each rank's lines written as one block, as a launcher that buffers per rank does
    blocks = []
    for r in range(3):
        for k in range(40):
            blocks.append(f"[rank{r}]:{log_stamp(k * 3 + r)} - INFO - rank {r} step {k}")
            if k % 7 == 3:
                blocks.append(f"[rank{r}]:   detail without a stamp {k}")
    ws = open_ws(tmp_path, {
        "train.txt": "\n".join(blocks) + "\n",
        "debug/plog/plog-100_20260101100000000.log": "\n".join(
            f"[INFO] GE(100,python):{plog_stamp(k * 1.5)} [a.cc:1]100 F:p{k}" for k in range(80)) + "\n",
    }, stdout=["train.txt"])
    fids = [f.file_id for f in ws.files]
    tl = Timeline(ws, fids)
    assert tl.build()
    assert len(tl) == sum(ws.indexes[f].line_count for f in fids)
    times = [tl.time_at(i) for i in range(len(tl))]
    assert None not in times
    assert all(b >= a for a, b in zip(times, times[1:]))
    # every line once, and each rank keeps its own order
    refs = [tl.at(i) for i in range(len(tl))]
    assert len(set(refs)) == len(refs)
    assert all(tl.position_of(f, ln) == i for i, (f, ln) in enumerate(refs))


def test_report_time_is_the_time_model_time_for_the_same_line(tmp_path, capsys):
    from npudiag_tui.cli import main

    (tmp_path / "train.txt").write_text(CONSOLE)
    rc = main(["--report", "json", "--stdout", str(tmp_path / "train.txt")])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    ws = open_ws(tmp_path, {}, stdout=["train.txt"])
    fid = file_id(ws, "train.txt")
    lines = [e for e in [report["anchor"]] + report["cascade"] + report["candidates"] if e]
    assert lines
    checked = 0
    for entry in lines:
        when = ws.times.line_time(fid, entry["line"] - 1)
        if when.kind is TimeKind.ESTIMATED:
            checked += 1
        assert entry["time"] == format_us(when.us), entry
    assert checked, "no estimated line in the report"
    # the text and Markdown reports print the anchor with that same time
    anchor = report["anchor"]
    assert ws.times.line_time(fid, anchor["line"] - 1).kind is TimeKind.ESTIMATED
    for fmt in ("text", "markdown"):
        assert main(["--report", fmt, "--stdout", str(tmp_path / "train.txt")]) == 0
        assert anchor["time"] in capsys.readouterr().out, fmt


@pytest.fixture(scope="module")
def bench_tree(tmp_path_factory) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    import gen_tree  # noqa: E402

    out = tmp_path_factory.mktemp("bench") / "t"
    assert gen_tree.main([str(out), "--size", "2M", "--ranks", "3", "--seed", "3"]) == 0
    lines = []
    for r in range(3):  # a second console written in per-rank blocks
        for k in range(200):
            lines.append(f"[rank{r}]:2026-03-11 07:{k // 60 % 60:02d}:{k % 60:02d},{r:03d} - INFO - step {k}")
            if k % 50 == 49:
                lines.append(f"[rank{r}]: Traceback (most recent call last):")
    (out / "blocks.log").write_text("\n".join(lines) + "\n")
    return out


def test_merged_order_on_a_generated_tree(bench_tree):
    ws = Workspace.open([str(bench_tree)], [str(bench_tree / "blocks.log")], [])
    ws.index()
    fids = [f.file_id for f in ws.files]
    tl = Timeline(ws, fids)
    assert tl.build()
    assert len(tl) == sum(ws.indexes[f].line_count for f in fids)
    prev = None
    for i in range(len(tl)):
        t = tl.time_at(i)
        if t is None:
            continue
        assert prev is None or t >= prev, (i, tl.at(i))
        prev = t


@pytest.mark.parametrize("line", [
    "[rank3]: Traceback (most recent call last):",
    "[rank3]:2026-01-01 10:00:01,000 - INFO - step",
    "(VllmWorker rank=2 pid=77) INFO 03-11 06:50:00 [x.py:1] ok",
    "(EngineCore pid=9, ip=10.0.0.1) ERROR boom",
    "(Worker pid=9) [rank1]: late rank",
    "[rank0]: (RayWorker pid=5) both",
    "node-12: [rank4]: through pdsh",
    "\x1b[31m[rank1]: coloured\x1b[0m",
    "progress 10%\r[rank2]: redrawn",
    "  rank      : 0 (local_rank: 0)",
    "plain line with nothing",
    "> [rank6]: quoted",
])
def test_the_fast_channel_reading_equals_the_prefix_grammar(line):
    from npudiag_tui.core.timemodel import line_channel, raw_channel

    assert raw_channel(line.encode()) == line_channel(line)


def test_epoch_zone_is_the_quarter_hours_between_local_and_utc():
    from npudiag_tui.core.timemodel import epoch_zone

    h = 3600 * 1_000_000
    assert epoch_zone(at(8 * 3600 + 12), at(12)) == 8 * h  # a UTC+8 host, 12 s apart
    assert epoch_zone(at(5.5 * 3600 + 40), at(0)) == int(5.5 * h)  # a half-hour zone
    assert epoch_zone(at(300), at(0)) == 0  # minutes apart: time passing, not a zone
    assert epoch_zone(at(20 * 3600), at(0)) == 0  # no zone is that far


def test_an_epoch_crash_header_beside_local_stamps_takes_the_local_clock(tmp_path):
    """abseil's `*** SIGSEGV received at time=…` is UTC; the job's logger prints local time (UTC+8):
    the crash belongs seconds after the last local line, not eight hours before it, in the pane
    and in the diagnosis alike."""
    from npudiag_tui.core.formats.timestamps import to_us as utc

    epoch_s = (utc(2026, 1, 1, 10, 0, 30) - 8 * 3600 * 1_000_000) // 1_000_000  # 10:00:30 local
    console = "\n".join([
        f"{log_stamp(20)} - INFO - step 9",
        f"*** SIGSEGV received at time={epoch_s} on cpu 3 ***",
        "PC: @     0x7f00 (unknown) c10::something()",
        f"{log_stamp(40)} - ERROR - worker exited",
    ]) + "\n"
    ws = open_ws(tmp_path, {"train.txt": console}, stdout=["train.txt"])
    fid = file_id(ws, "train.txt")
    alone = [ws.times.line_time(fid, i) for i in range(4)]
    assert alone[1].us == at(30) and alone[1].kind is TimeKind.OWN
    ws.times.channels(fid)  # the full pass gives the same times
    assert [ws.times.line_time(fid, i) for i in range(4)] == alone
    crash = next(e for e in ws.diagnose().events if "SIGSEGV" in e.text)
    assert crash.time == at(30)


def test_lookalike_an_epoch_stamp_that_agrees_with_local_stamps_is_kept(tmp_path):
    from npudiag_tui.core.formats.timestamps import to_us as utc

    epoch_s = utc(2026, 1, 1, 10, 0, 30) // 1_000_000  # a host that logs UTC
    console = f"{log_stamp(20)} - INFO - step 9\n*** SIGSEGV received at time={epoch_s} on cpu 3 ***\n"
    ws = open_ws(tmp_path, {"train.txt": console}, stdout=["train.txt"])
    assert ws.times.line_time(file_id(ws, "train.txt"), 1).us == at(30)


# torchrun prints its own lines without a rank prefix: a stamp at start-up, then its failure
# summary after every rank's last line
LAUNCHER = "\n".join([
    f"{log_stamp(0)} - INFO - launching 2 workers",        # 0: the launcher's only stamp
    f"[rank0]:{log_stamp(5)} - INFO - step 1",               # 1
    f"[rank1]:{log_stamp(40)} - INFO - step 8",              # 2
    "[rank0]: Traceback (most recent call last):",           # 3: rank 0's, after its 5 s stamp
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",  # 4: the launcher's summary
    "train.py FAILED",                                       # 5
]) + "\n"


@pytest.mark.parametrize("full_pass", [False, True])
def test_the_launchers_unprefixed_summary_is_not_placed_before_the_lines_above_it(tmp_path, full_pass):
    t = console_times(tmp_path, LAUNCHER, 6, full_pass)
    assert t[4].kind is TimeKind.ESTIMATED and t[4].us == t[5].us == at(40)  # not the launcher's 0 s
    assert t[3].us == at(5)  # look-alike: a rank's line keeps its own rank's last stamp, not rank 1's 40 s


def test_a_console_without_any_stamp_is_timeless_once_its_channels_are_read(tmp_path):
    """`timeless` answers only what the time model knows: a console none of whose lines carries a
    stamp, all lines read; a stamp anywhere, or lines not read yet, and it is not."""
    plain = tmp_path / "plain.txt"
    plain.write_text("step 1\nstep 2\nRuntimeError: boom\n")
    stamped = tmp_path / "stamped.txt"
    stamped.write_text("step 1\n" + f"{log_stamp(5)} step 2\n")
    ws = Workspace.open([], [str(plain), str(stamped)], [])
    ws.index()
    fid = {ws.files[f].display.rsplit("/", 1)[-1]: f for f in range(len(ws.files))}
    assert not ws.times.timeless(fid["plain.txt"])  # not read yet: not known
    for f in fid.values():
        ws.times.channels(f)
    assert ws.times.timeless(fid["plain.txt"])
    assert not ws.times.timeless(fid["stamped.txt"])
    # a line with a stamp arrives (live tail): no longer timeless once read
    with open(plain, "a") as fh:
        fh.write(f"{log_stamp(9)} step 3\n")
    ws.indexes[fid["plain.txt"]].extend()
    assert not ws.times.timeless(fid["plain.txt"])  # more lines than read
    ws.times.channels(fid["plain.txt"])
    assert not ws.times.timeless(fid["plain.txt"])
