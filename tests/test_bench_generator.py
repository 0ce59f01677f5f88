"""The benchmark tree generator: layout, rotation, planted anchor, and that the tool finds it.

No timing assertions: speed is measured by bench/run_index.py and bench/run_report.py.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import gen_tree  # noqa: E402

PLOG_NAME = re.compile(r"^plog-(\d+)_(\d{17})\.log$")
DEVICE_NAME = re.compile(r"^device-(\d+)_(\d{17})\.log$")
TS6 = re.compile(r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}")
HEADER = re.compile(r"^\[(ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ([A-Z][A-Z0-9_]*)\((-?\d+),([^)]*)\): ?"
                    r"(\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) (.*)$")
RANKS = 4


def name_stamp_of_ts6(ts: str) -> str:
    # 2026-03-11-07:22:41.498.770 -> 20260311072241498
    return ts[0:4] + ts[5:7] + ts[8:10] + ts[11:13] + ts[14:16] + ts[17:19] + ts[20:23]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("benchtree") / "t"
    rc = gen_tree.main([str(out), "--size", "3M", "--ranks", str(RANKS), "--seed", "7",
                        "--rotate-mb", "0.25", "--quiet"])
    assert rc == 0
    return out


def test_parse_size():
    assert gen_tree.parse_size("3M") == 3 << 20
    assert gen_tree.parse_size("1G") == 1 << 30
    assert gen_tree.parse_size("512k") == 512 << 10
    assert gen_tree.parse_size("1000") == 1000


def test_layout(tree: Path):
    plogs = sorted((tree / "debug" / "plog").iterdir())
    assert plogs and all(PLOG_NAME.match(p.name) for p in plogs)
    pids = {PLOG_NAME.match(p.name).group(1) for p in plogs}
    assert len(pids) == RANKS
    for dev in range(RANKS):
        files = list((tree / "debug" / f"device-{dev}").iterdir())
        assert files and all(DEVICE_NAME.match(f.name) for f in files)
        assert {DEVICE_NAME.match(f.name).group(1) for f in files} <= pids
    runs = sorted((tree / "run" / "plog").iterdir())
    assert len(runs) == RANKS and all(PLOG_NAME.match(p.name) for p in runs)
    assert any("Entry-HcclAllReduce" in p.read_text() for p in runs)
    console = (tree / "train.log").read_text()
    assert "ERR00100" in console and "error code is 507048" in console
    assert "remote rank: [" in console
    total = sum(f.stat().st_size for f in tree.rglob("*") if f.is_file())
    assert 2.4e6 < total < 3.8e6


def test_rotation_and_rank_lines(tree: Path):
    rotate = int(0.25 * (1 << 20))
    by_pid: dict[str, list[Path]] = {}
    for p in sorted((tree / "debug" / "plog").iterdir()):
        by_pid.setdefault(PLOG_NAME.match(p.name).group(1), []).append(p)
    ranks_seen = set()
    for pid, files in by_pid.items():
        files.sort(key=lambda p: PLOG_NAME.match(p.name).group(2))
        assert len(files) >= 2, f"pid {pid} not rotated"
        for f in files[:-1]:
            assert f.stat().st_size <= rotate
            assert f.stat().st_size > rotate * 0.9
        last_ts = ""
        for i, f in enumerate(files):
            with f.open() as fh:
                first = fh.readline()
            m = HEADER.match(first.rstrip("\n"))
            assert m and m.group(3) == pid
            # the name stamp is the time of the first line in the file (ms)
            assert PLOG_NAME.match(f.name).group(2) == name_stamp_of_ts6(m.group(5))
            if i == 0:
                assert "[HcclCommInitRootInfo]ranks[4], rank[" in first and "deviceLogicId[" in first
                ranks_seen.add(int(re.search(r", rank\[(\d+)\]", first).group(1)))
            # stamps increase through the run (across rotated files too)
            for line in f.read_text().splitlines():
                hm = HEADER.match(line)
                assert hm, line[:200]
                assert hm.group(5) >= last_ts
                last_ts = hm.group(5)
    assert ranks_seen == set(range(RANKS))


def test_planted_anchor_line(tree: Path):
    planted = json.loads((tree / "planted.json").read_text())
    a = planted["anchor"]
    lines = (tree / a["path"]).read_text().splitlines()
    assert a["contains"] in lines[a["line"] - 1]
    assert planted["rank"] == 3  # root rank 5 clipped to the last rank of 4
    assert planted["category"] == "device"
    for alt in planted["alt_anchors"]:
        assert alt["contains"] in (tree / alt["path"]).read_text().splitlines()[alt["line"] - 1]
    # victims time out on the other ranks, naming the root rank
    victims = [p for p in (tree / "debug" / "plog").iterdir()
               if f"remote rank: [{planted['rank']}]" in p.read_text()]
    assert len(victims) == RANKS - 1


def _report(tree: Path) -> dict:
    from npudiag_tui.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["--report", "json", str(tree)])
    assert rc == 0
    return json.loads(buf.getvalue())


def _matches(report: dict, planted: dict) -> bool:
    got = report["anchor"]
    for w in [planted["anchor"], *planted["alt_anchors"]]:
        if got and got["path"] == w["path"] and got["line"] == w["line"] and w["contains"] in got["text"]:
            return True
    return False


def test_report_anchors_planted_line(tree: Path):
    planted = json.loads((tree / "planted.json").read_text())
    report = _report(tree)
    assert _matches(report, planted), report["anchor"]
    assert report["anchor"]["rank"] == planted["rank"]


def test_cqe_scenario_subprocess(tmp_path: Path):
    out = tmp_path / "cqe"
    gen_tree.generate(str(out), 1 << 20, ranks=3, seed=3, root=1, scenario="cqe", rotate_mb=0.2)
    planted = json.loads((out / "planted.json").read_text())
    a = planted["anchor"]
    assert a["contains"] in (out / a["path"]).read_text().splitlines()[a["line"] - 1]
    proc = subprocess.run([sys.executable, "-m", "npudiag_tui", "--report", "json", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert _matches(report, planted), report["anchor"]
