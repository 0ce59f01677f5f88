"""`--report summary`: the per-node summary a cluster verdict is merged from.

Checked through the command line on generated trees: the planted root, the timeouts with the
rank they name, heartbeat pairs, the rank table, and the 64 KB cap on a node whose logs hold far
more distinct errors than fit.
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from npudiag_tui.cli import main
from npudiag_tui.core.summary import LIMIT, SCHEMA

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import gen_tree  # noqa: E402


def summary_of(capsys, argv: list[str]) -> tuple[dict, bytes]:
    code = main(argv + ["--report", "summary"])
    out, err = capsys.readouterr()
    assert code == 0, err
    raw = out.rstrip("\n").encode("utf-8")
    return json.loads(raw), raw


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("node") / "log"
    info = gen_tree.generate(str(out), 1_500_000, ranks=8, seed=3, root=5)
    return out, info


def test_summary_names_root_timeouts_heartbeats_and_rank_table(capsys, tree):
    out, info = tree
    s, raw = summary_of(capsys, [str(out), "--node", "node-a"])
    assert s["schema"] == SCHEMA and s["node"] == "node-a"
    assert s["world_size"] == 8
    assert s["anchor"]["rank"] == 5 and s["anchor"]["category"] == "device"
    assert s["anchor"]["path"] and s["anchor"]["line"] >= 1
    # every other rank times out naming rank 5
    named = {t["rank"] for t in s["timeouts"] if t["remote_rank"] == 5}
    assert named == {0, 1, 2, 3, 4, 6, 7}
    assert {(h["crimer_rank"], h["informer_rank"]) for h in s["heartbeats"]} == {(5, r) for r in named}
    table = {(r["rank"], r["pid"]) for r in s["ranks"]}
    assert table == {(int(r), v["pid"]) for r, v in info["ranks"].items()}
    # the root's process: its first causal candidate is the planted device fault, before every timeout
    root = [p for p in s["processes"] if p["rank"] == 5 and p["causal"]]
    assert root and min(c["time"] for p in root for c in p["causal"]) < min(t["time"] for t in s["timeouts"])
    # inputs are counts and sizes, never lines of text
    assert s["inputs"]["files"] > 8 and s["inputs"]["bytes"] > 1_000_000 and "plog" in s["inputs"]["streams"]
    assert len(raw) <= LIMIT and s["truncated"] == []


def test_summary_node_defaults_to_host_name(capsys, tree):
    s, _ = summary_of(capsys, [str(tree[0])])
    assert s["node"] == socket.gethostname()


def _flood(root: Path, ranks: int = 16, lines: int = 64) -> None:
    """A node of 16 ranks whose plogs hold many distinct long errors and timeouts naming every peer."""
    plog = root / "debug" / "plog"
    plog.mkdir(parents=True)
    for r in range(ranks):
        pid = 1000 + r
        rows = [f"[INFO] HCCL({pid},python):2026-03-11-06:00:00.000.000 [op_base.cc:412] [{pid}][Init]"
                f"[HcclCommInitRootInfo]ranks[{ranks}], rank[{r}], deviceLogicId[{r}]\n"]
        for k in range(lines):
            t = f"2026-03-11-07:{k // 60 % 60:02d}:{k % 60:02d}.{r:03d}.000"
            if k % 2:
                rows.append(f"[ERROR] HCCL({pid},python):{t} [notify.cc:{k}] [{pid}]wait timeout, remote rank: "
                            f"[{(r + k) % ranks}] tag[t{k}] " + "x" * 300 + "\n")
            else:
                rows.append(f"[ERROR] RUNTIME({pid},python):{t} [api.cc:{k}]{pid} ErrCode=5070{k % 90:02d}, "
                            f"desc=[distinct failure {k}] " + "y" * 300 + "\n")
        (plog / f"plog-{pid}_20260311060000000.log").write_text("".join(rows), encoding="utf-8")


def test_summary_stays_under_64k_and_says_what_was_cut(capsys, tmp_path):
    _flood(tmp_path)
    s, raw = summary_of(capsys, [str(tmp_path), "--node", "n"])
    assert len(raw) <= LIMIT
    assert s["truncated"], "a cut must be said"
    assert len({p["rank"] for p in s["processes"]}) == 16
    assert all(len(c["text"]) <= 240 for p in s["processes"] for c in p["causal"])
