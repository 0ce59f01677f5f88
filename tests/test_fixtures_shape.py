"""Shape checks for the generated fixture trees, the demo tree and the replay tool."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIX = REPO / "fixtures"
DEMO = REPO / "src" / "npudiag_tui" / "demo"
SCENARIOS = [
    "hccl-notify-wait-cascade",
    "aicore-exception-reverse-order",
    "aclnn-param-error",
    "device-oom",
    "op-compile-e40021",
    "env-missing-library",
    "hccl-socket-link-timeout",
    "aclgraph-capture-107030",
]
CATEGORIES = {"operator", "communication", "stream_event", "memory", "device", "compile", "environment", "unknown"}
TREES = [FIX / s for s in SCENARIOS] + [DEMO]
IDS = SCENARIOS + ["demo"]
PLOG_RE = re.compile(r"^plog-(\d+)_(\d{17})\.log$")
DEVICE_RE = re.compile(r"^device-(\d+)_(\d{17})\.log$")
PLOG_LINE = re.compile(
    r"^\[(ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\] ([A-Z][A-Z0-9_]*)\((-?\d+),([^)]*)\): ?"
    r"(\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) (.*)$")
HCCL_INIT = re.compile(r"\[HcclCommInitRootInfo\]ranks\[(\d+)\], rank\[(\d+)\], .*deviceLogicId\[(\d+)\]")


def _load_replay():
    spec = importlib.util.spec_from_file_location("npudiag_fixture_replay", FIX / "replay.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _log_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "expected.json"
                  and p.suffix != ".py" and "__pycache__" not in p.parts)


def _expected(root: Path) -> dict:
    return json.loads((root / "expected.json").read_text(encoding="utf-8"))


def _line(root: Path, rel: str, n: int) -> str:
    data = (root / rel).read_bytes().split(b"\n")
    return data[n - 1].decode("utf-8", "replace")


@pytest.mark.parametrize("root", TREES, ids=IDS)
def test_expected_and_anchor(root: Path):
    exp = _expected(root)
    for key in ("scenario", "description", "category", "anchor", "code", "root_rank", "cascade_contains", "notes"):
        assert key in exp, key
    assert exp["category"] in CATEGORIES
    a = exp["anchor"]
    assert (root / a["path"]).is_file()
    assert a["contains"] in _line(root, a["path"], a["line"])
    for alt in exp.get("alt_anchors", []):
        assert alt["contains"] in _line(root, alt["path"], alt["line"])
    anchor_line = _line(root, a["path"], a["line"])
    for c in exp["cascade_contains"]:
        assert c not in anchor_line


@pytest.mark.parametrize("root", TREES, ids=IDS)
def test_cascade_present(root: Path):
    exp = _expected(root)
    blob = b"".join(p.read_bytes() for p in _log_files(root)).decode("utf-8", "replace")
    for c in exp["cascade_contains"]:
        assert c in blob, c


@pytest.mark.parametrize("root", TREES, ids=IDS)
def test_utf8(root: Path):
    exp = _expected(root)
    non_utf8 = set(exp.get("non_utf8_files", []))
    for p in _log_files(root):
        rel = p.relative_to(root).as_posix()
        if rel in non_utf8:
            with pytest.raises(UnicodeDecodeError):
                p.read_bytes().decode("utf-8")
        else:
            p.read_bytes().decode("utf-8")


@pytest.mark.parametrize("root", TREES, ids=IDS)
def test_cann_layout(root: Path):
    exp = _expected(root)
    plogs = list((root / "ascend/log/debug/plog").glob("*.log"))
    assert len({PLOG_RE.match(p.name).group(1) for p in plogs}) >= 2
    for p in plogs:
        assert PLOG_RE.match(p.name), p.name
    assert list((root / "ascend/log/run/plog").glob("plog-*.log"))
    devs = list((root / "ascend/log/debug").glob("device-*/device-*.log"))
    assert devs
    for d in devs:
        assert re.match(r"^device-\d+$", d.parent.name) and DEVICE_RE.match(d.name), d
    # rotation: some pid has 2-3 files with increasing name stamps
    by_pid: dict[str, list[str]] = {}
    for p in plogs:
        pid, stamp = PLOG_RE.match(p.name).groups()
        by_pid.setdefault(pid, []).append(stamp)
    assert any(2 <= len(v) <= 3 for v in by_pid.values())
    # every plog line that looks like a header parses strictly; rank identity is present
    ranks_seen = set()
    for p in plogs + devs + list((root / "ascend/log/run/plog").glob("*.log")):
        for ln in p.read_text(encoding="utf-8").splitlines():
            if ln.startswith("["):
                assert PLOG_LINE.match(ln), (p.name, ln)
            m = HCCL_INIT.search(ln)
            if m:
                ranks_seen.add(int(m.group(2)))
    assert ranks_seen
    assert (root / exp["console"]).is_file()


def test_multi_rank_scenarios_have_enough_ranks():
    for s in ("hccl-notify-wait-cascade", "hccl-socket-link-timeout", "device-oom"):
        pids = {PLOG_RE.match(p.name).group(1) for p in (FIX / s / "ascend/log/debug/plog").glob("*.log")}
        assert len(pids) >= 4, s


def test_sizes():
    total = sum(p.stat().st_size for p in FIX.rglob("*") if p.is_file())
    assert total < 6 * 1024 * 1024
    for s in SCENARIOS:
        assert sum(p.stat().st_size for p in (FIX / s).rglob("*") if p.is_file()) < 600 * 1024, s
    assert sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file()) < 300 * 1024


@pytest.mark.parametrize("root", TREES, ids=IDS)
def test_replay_byte_identical(root: Path, tmp_path: Path):
    replay = _load_replay()
    dest = tmp_path / "out"
    order: list[str] = []
    replay.replay(root, dest, speed=1e9, max_gap=0, on_line=lambda rel, data: order.append(rel))
    src_files = {p.relative_to(root).as_posix() for p in _log_files(root)}
    dst_files = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    assert src_files == dst_files
    for rel in src_files:
        assert (root / rel).read_bytes() == (dest / rel).read_bytes(), rel
    # rotation shows up as a later file: a pid's later plog is first written after its earlier one
    first_seen = {}
    for i, rel in enumerate(order):
        first_seen.setdefault(rel, i)
    by_pid: dict[str, list[tuple[str, str]]] = {}
    for rel in first_seen:
        m = PLOG_RE.match(rel.rsplit("/", 1)[-1])
        if m and rel.startswith("ascend/log/debug/plog/"):
            by_pid.setdefault(m.group(1), []).append((m.group(2), rel))
    for files in by_pid.values():
        files.sort()
        seen = [first_seen[rel] for _, rel in files]
        assert seen == sorted(seen)


def test_replay_refuses_non_empty_dest(tmp_path: Path):
    replay = _load_replay()
    (tmp_path / "x").write_text("busy")
    with pytest.raises(FileExistsError):
        replay.replay(FIX / SCENARIOS[0], tmp_path, speed=1e9, max_gap=0)


def test_generator_is_deterministic(tmp_path: Path):
    spec = importlib.util.spec_from_file_location("npudiag_make_fixtures", FIX / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(spec.name, None)
    mod.build_all(out_dir=tmp_path, demo_dir=None, only=["aclgraph-capture-107030", "env-missing-library"])
    for s in ("aclgraph-capture-107030", "env-missing-library"):
        src = {p.relative_to(FIX / s).as_posix(): p.read_bytes() for p in (FIX / s).rglob("*") if p.is_file()}
        new = {p.relative_to(tmp_path / s).as_posix(): p.read_bytes() for p in (tmp_path / s).rglob("*") if p.is_file()}
        assert src == new, s
