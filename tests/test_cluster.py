"""`--cluster`: the verdict merged from node summaries, never from logs.

The acceptance case runs the whole path on generated node trees (summary per node, then the
merge); the rest feeds small hand-built summaries to the command line to pin one rule each:
bad files, a root whose node sent nothing, a silent rank in a hang, clock alignment.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from npudiag_tui.cli import main
from npudiag_tui.core.cluster import SCHEMA

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import gen_cluster  # noqa: E402


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def verdict(capsys, argv: list[str]) -> tuple[dict, str]:
    code, out, err = run(capsys, ["--cluster"] + argv + ["--report", "json"])
    assert code == 0, err
    v = json.loads(out)
    assert v["schema"] == SCHEMA
    return v, err


def test_sixteen_nodes_name_the_planted_root_and_127_victims(capsys, tmp_path):
    info = gen_cluster.generate_cluster(str(tmp_path / "logs"), nodes=16, per_node=8, size_per_node=120_000,
                                        root_node=11, root_local=5)
    sums = tmp_path / "summaries"
    sums.mkdir()
    for n in info["nodes"]:
        code, out, err = run(capsys, [str(tmp_path / "logs" / n["node"]), "--report", "summary", "--node", n["node"]])
        assert code == 0, err
        (sums / f"{n['node']}.json").write_text(out, encoding="utf-8")
    v, _ = verdict(capsys, [str(sums)])
    assert v["root"]["rank"] == info["root_rank"] == 93
    assert v["root"]["node"] == info["root_node"] == "node-11"
    assert v["root"]["anchor"]["path"] == info["planted"]["path"]
    victims = sorted(r["rank"] for r in v["ranks"] if r["role"] == "victim")
    assert victims == [r for r in range(128) if r != 93]
    assert len(v["nodes"]) == 16 and v["missing_nodes"] == []
    # the text and Markdown reports say the same
    code, out, _ = run(capsys, ["--cluster", str(sums), "--report", "text"])
    assert code == 0 and "rank 93 on node-11" in out
    code, out, _ = run(capsys, ["--cluster", str(sums), "--report", "markdown"])
    assert code == 0 and "rank 93 on node-11" in out


# ------------------------------------------------------------------ hand-built summaries
T_ERR = "2026-03-11T07:00:00.000000"


def summary(node: str, ranks: list[int], world: int, *, root: int | None = None, names: int | None = None,
            to_time: str = "2026-03-11T07:30:00.000000", err_time: str = T_ERR, errors: bool = True,
            last: dict[int, str] | None = None) -> dict:
    """A node summary: `root` hits a device fault at `err_time`; the others time out at `to_time`
    naming `names` (or nothing)."""
    procs, timeouts, table = [], [], []
    for r in ranks:
        table.append({"rank": r, "device": r % 8, "pid": 100 + r,
                      "last_log_time": (last or {}).get(r, to_time)})
        if r == root:
            e = {"time": err_time, "kind": "device_exc", "code": "507015", "category": "device", "stream": "plog",
                 "text": "aicore exception", "path": "debug/plog/p.log", "line": 7}
            procs.append({"rank": r, "pid": 100 + r, "first_error": e, "causal": [e], "timeouts": 0,
                          "last_log_time": err_time})
        elif errors:
            t = {"time": to_time, "kind": "timeout", "code": "EI0002", "category": "communication", "stream": "plog",
                 "text": "notify wait timeout", "path": "debug/plog/q.log", "line": 9}
            procs.append({"rank": r, "pid": 100 + r, "first_error": t, "causal": [], "timeouts": 1,
                          "last_log_time": to_time})
            timeouts.append(dict(t, rank=r, pid=100 + r, remote_rank=names, tag="AllReduce_1", count=1))
    return {"schema": "npudiag-summary/1", "node": node, "world_size": world, "inputs": {"files": 1, "bytes": 10},
            "clock": {"utc_offset_s": 0}, "anchor": None, "candidates": [], "ranks": table, "processes": procs,
            "timeouts": timeouts, "heartbeats": [], "problems": [], "truncated": []}


def write(tmp_path: Path, *sums: dict) -> Path:
    d = tmp_path / "s"
    d.mkdir(exist_ok=True)
    for s in sums:
        (d / f"{s['node']}.json").write_text(json.dumps(s), encoding="utf-8")
    return d


def test_bad_summary_files_are_named_and_the_rest_merged(capsys, tmp_path):
    d = write(tmp_path, summary("a", [0, 1], 4, root=1, names=1), summary("b", [2, 3], 4, names=1))
    (d / "broken.json").write_text("{not json", encoding="utf-8")
    (d / "report.json").write_text(json.dumps({"schema": "npudiag-report/1"}), encoding="utf-8")
    v, err = verdict(capsys, [str(d)])
    lines = err.strip().splitlines()
    assert any("broken.json" in x and "not JSON" in x for x in lines)
    assert any("report.json" in x and "not a node summary" in x for x in lines)
    assert len(lines) == 2
    assert v["root"]["rank"] == 1 and v["root"]["node"] == "a"
    assert {r["rank"]: r["role"] for r in v["ranks"]} == {0: "victim", 1: "root", 2: "victim", 3: "victim"}


def test_no_readable_summary_exits_2(capsys, tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[]", encoding="utf-8")
    code, out, err = run(capsys, ["--cluster", str(bad), "--report", "json"])
    assert code == 2 and out == "" and "x.json" in err


def test_root_on_a_node_that_sent_nothing_is_the_named_rank(capsys, tmp_path):
    # world of 6; node "c" (ranks 4, 5) sent nothing; everyone times out naming rank 5
    d = write(tmp_path, summary("a", [0, 1], 6, names=5), summary("b", [2, 3], 6, names=5))
    v, _ = verdict(capsys, [str(d)])
    assert v["root"]["rank"] == 5 and v["root"]["node"] is None and v["root"]["basis"] == "named"
    roles = {r["rank"]: r["role"] for r in v["ranks"]}
    assert roles == {0: "victim", 1: "victim", 2: "victim", 3: "victim", 4: "missing", 5: "root"}
    assert any("4" in e and "in no summary" in e for e in v["evidence"])


def test_a_hang_points_at_the_rank_that_went_silent_first(capsys, tmp_path):
    # timeouts that name nobody; rank 3 logged nothing wrong but stopped an hour before the others
    a = summary("a", [0, 1], 4, names=None)
    b = summary("b", [2, 3], 4, names=None, last={3: "2026-03-11T06:30:00.000000"})
    b["processes"] = [p for p in b["processes"] if p["rank"] != 3]
    b["timeouts"] = [t for t in b["timeouts"] if t["rank"] != 3]
    v, _ = verdict(capsys, [str(write(tmp_path, a, b))])
    assert v["root"]["rank"] == 3 and v["root"]["node"] == "b" and v["root"]["basis"] == "silent"
    assert v["silent_first"][0]["rank"] == 3


def test_clock_offsets_from_timeouts_reorder_the_causal_errors(capsys, tmp_path):
    # node b's clock is 100 s ahead (its timeouts of the same collective read +100 s): its device
    # fault at 07:01:00 by its own clock happened at 06:59:20, before node a's at 07:00:00
    a = summary("a", [0, 1], 4, root=0, names=None)
    b = summary("b", [2, 3], 4, root=3, names=None, to_time="2026-03-11T07:31:40.000000",
                err_time="2026-03-11T07:01:00.000000")
    v, _ = verdict(capsys, [str(write(tmp_path, a, b))])
    assert v["root"]["rank"] == 3 and v["root"]["node"] == "b"
    assert {c["node"]: c["offset_s"] for c in v["clock"]} == {"a": 0.0, "b": 100.0}
