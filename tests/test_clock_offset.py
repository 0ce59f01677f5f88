"""Per-source clock offsets (`TimeModel.offsets`) set from a user's input: `--clock-offset
PATH=SECONDS`, and the offset the cluster merge works out for a node whose logs are opened
from the cluster view. One offset moves the line's time everywhere: pane clock, merged order,
diagnosis, reports."""

from __future__ import annotations

import json
from pathlib import Path

from npudiag_tui.cli import main
from npudiag_tui.core.formats.timestamps import to_us
from npudiag_tui.core.window import WindowTimeline
from npudiag_tui.core.workspace import Workspace
from npudiag_tui.tui.cluster.app import node_clock_shift


def stamp(sec: float) -> str:
    us = int(round(sec * 1_000_000))
    whole, frac = divmod(us, 1_000_000)
    return f"2026-01-01-10:{whole // 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def at(sec: float) -> int:
    return to_us(2026, 1, 1, 10, 0, 0) + int(round(sec * 1_000_000))


def two_nodes(tmp_path: Path) -> tuple[Path, Path]:
    """Node a's rank 0 fails at 10:00:30 by its clock; node b's rank 1 times out waiting for it
    at 10:00:32 by b's clock, which runs 5 s ahead: by true time b's error came first."""
    a = tmp_path / "a" / "debug" / "plog"
    b = tmp_path / "b" / "debug" / "plog"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (a / "plog-100_20260101100000000.log").write_text("".join(
        [f"[INFO] RUNTIME(100,python):{stamp(s)} [a.cc:1]100 step {s}\n" for s in range(0, 30, 3)]
        + [f"[ERROR] RUNTIME(100,python):{stamp(30)} [rt.cc:9]100 rtStreamSynchronize failed, ErrCode=507015\n"]))
    (b / "plog-200_20260101100000000.log").write_text("".join(
        [f"[INFO] RUNTIME(200,python):{stamp(s + 0.5)} [a.cc:1]200 step {s}\n" for s in range(0, 30, 3)]
        + [f"[ERROR] RUNTIME(200,python):{stamp(32)} [rt.cc:9]200 rtStreamSynchronize failed, ErrCode=507015\n"]))
    return tmp_path / "a", tmp_path / "b"


def test_an_offset_moves_a_source_in_the_pane_clock_the_merge_and_the_diagnosis(tmp_path):
    a, b = two_nodes(tmp_path)
    plain = Workspace.open([str(a), str(b)])
    plain.index()
    first = plain.diagnose().anchor
    assert first.time == at(30) and first.text.startswith("[ERROR] RUNTIME(100")

    ws = Workspace.open([str(a), str(b)])
    moved = ws.set_clock_offset(str(b), -5)
    assert [s.pid for s in moved] == [200]
    ws.index()
    fb = next(f.file_id for f in ws.files if "plog-200" in f.path)
    assert ws.times.line_time(fb, 10).us == at(27)  # its error at 10:00:32 by b's clock
    assert ws.diagnose().anchor.time == at(27)  # b's line now comes first
    assert "plog-200" in ws.files[ws.diagnose().anchor.ref.file_id].path
    merged = WindowTimeline(ws, [f.file_id for f in ws.files])
    times = [ws.times.line_time(*merged.at(i)).us for i in range(len(merged))]
    assert times == sorted(times)  # the merged order follows the corrected clock
    assert merged.at(len(merged) - 1)[0] != fb  # b's error is no longer the last line


def test_clock_offset_on_the_command_line(tmp_path, capsys):
    a, b = two_nodes(tmp_path)
    assert main([str(a), str(b), "--report", "json", "--clock-offset", f"{b}=-5"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["anchor"]["time"] == "2026-01-01T10:00:27.000000" and "plog-200" in got["anchor"]["path"]

    for bad, why in ((f"{b}", "not PATH=SECONDS"), (f"{b}=soon", "not PATH=SECONDS"),
                     (f"{tmp_path}/nowhere=1", "no such file"), (f"{tmp_path}=1", "no opened log file")):
        if why == "no opened log file":
            (tmp_path / "empty").mkdir()
            bad = f"{tmp_path / 'empty'}=1"
        assert main([str(a), "--report", "json", "--clock-offset", bad]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and why in err and "--clock-offset" in err


def test_the_cluster_merge_offset_of_a_node_is_the_shift_applied_to_its_logs():
    verdict = {"clock": [{"node": "node-02", "utc_offset_s": 0, "offset_s": 2.5, "basis": "timeouts"},
                         {"node": "node-03", "utc_offset_s": 3600, "offset_s": -1.0, "basis": "timeouts"}]}
    assert node_clock_shift(verdict, "node-02") == 2.5
    assert node_clock_shift(verdict, "node-03") == 3599.0
    assert node_clock_shift(verdict, "node-01") == 0.0
    assert node_clock_shift({}, "node-02") == 0.0


def test_clock_offset_names_members_of_an_archive(tmp_path, capsys):
    """Logs that arrive as a bundle: `ARCHIVE!member` (the name reports show) moves the sources
    of the members at or under `member`, and only those."""
    import tarfile

    a, b = two_nodes(tmp_path / "nodes")
    bundle = tmp_path / "bundle.tar.gz"
    with tarfile.open(bundle, "w:gz") as tar:
        tar.add(a, arcname="a")
        tar.add(b, arcname="b")
    assert main([str(bundle), "--report", "json", "--clock-offset", f"{bundle}!b=-5"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["anchor"]["time"] == "2026-01-01T10:00:27.000000" and "plog-200" in got["anchor"]["path"]
    assert "!b/" in got["anchor"]["path"]

    assert main([str(bundle), "--report", "json", "--clock-offset", f"{bundle}!c=-5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no opened log file" in err and f"{bundle}!c" in err
    assert main([str(bundle), "--report", "json", "--clock-offset", f"{tmp_path}/none.tgz!b=-5"]) == 2
    assert "no such file" in capsys.readouterr().err
