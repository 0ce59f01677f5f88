"""The cluster view (`--cluster` without `--report`): the rank grid, the walk keys, Enter.

Small hand-built summaries pin the keys (one root, one suspect that others named and that went
silent, two ranks in no summary and a node that sent nothing); the snapshots use summaries made
from 16 generated node trees of 8 ranks (bench/gen_cluster.py), once per session.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from npudiag_tui.core.cluster import merge, read_summaries
from npudiag_tui.tui.cluster.app import ClusterApp, OpenLogs
from npudiag_tui.tui.cluster.rank_screen import RankSummaryScreen

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import gen_cluster  # noqa: E402
from test_cluster import summary  # noqa: E402

FIXED_NOW = 1773213000.0  # the summaries' own clock, fixed so the pictures repeat


def small_case(roots: list[str] | None = None) -> tuple[dict, list[tuple[str, dict]]]:
    """World of 6: rank 1 on node a is the root; rank 2 (node b) also names rank 3, which logged
    no error and stopped first; ranks 4-5 are in no summary; node c sent nothing."""
    a = summary("a", [0, 1], 6, root=1, names=1)
    b = summary("b", [2, 3], 6, names=1)
    b["processes"] = [p for p in b["processes"] if p["rank"] != 3]
    b["timeouts"] = [t for t in b["timeouts"] if t["rank"] != 3] + [dict(b["timeouts"][0], remote_rank=3)]
    b["ranks"][1]["last_log_time"] = "2026-03-11T06:00:00.000000"
    for s in (a, b):
        s["inputs"]["roots"] = roots or [f"/nonexistent/{s['node']}/ascend/log"]
    sums = [("a.json", a), ("b.json", b)]
    return merge(sums, [("c", "task failed: boom")]), sums


def on(app: ClusterApp) -> tuple[int | None, str]:
    """(rank, group title) under the cursor."""
    c = app.grid.cells[app.cursor]
    return c.rank, app.grid.groups[c.group].title


async def wait_for(pilot, what, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met before the deadline")
        await pilot.pause(0.02)


async def test_opens_on_the_root_and_walks_suspects_and_missing():
    verdict, sums = small_case()
    app = ClusterApp(verdict, sums)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert on(app) == (1, "a")
        await pilot.press("s")
        assert on(app) == (3, "b")
        assert "rank 3" in str(app.query_one("#cursor-info").render())
        await pilot.press("m")
        assert on(app) == (4, "(no summary)")  # the first of the run 4-5, not each rank
        await pilot.press("m")
        assert on(app) == (None, "c")
        await pilot.press("m")
        assert on(app) == (4, "(no summary)")  # wraps
        await pilot.press("M")
        assert on(app) == (None, "c")
        await pilot.press("a")
        assert on(app) == (1, "a")
        await pilot.press("right", "right")
        assert on(app) == (3, "b")


async def test_a_walk_with_no_stop_says_so_and_stays():
    verdict, sums = small_case()
    verdict = dict(verdict, missing_nodes=[], ranks=[r for r in verdict["ranks"] if r["role"] != "missing"])
    app = ClusterApp(verdict, sums)
    said: list[str] = []
    original = app.notify
    app.notify = lambda message, **kw: (said.append(message), original(message, **kw))[1]  # type: ignore
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        assert on(app) == (1, "a")
        assert said == ["No missing node or rank in this verdict."]


async def test_enter_shows_the_rank_summary_and_says_the_logs_are_not_here():
    verdict, sums = small_case()
    app = ClusterApp(verdict, sums)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, RankSummaryScreen)
        text = str(screen.query_one("#rank-summary").render())
        assert "rank 1 on a" in text and "aicore exception" in text and "debug/plog/p.log:7" in text
        await wait_for(pilot, lambda: screen.logs is not None)
        assert not screen.logs.reachable
        assert "/nonexistent/a/ascend/log (on a) is not reachable" in str(screen.query_one("#reach").render())
        await pilot.press("o")  # nothing to open: it says so and stays
        assert app.screen is screen and app.return_value is None
        await pilot.press("escape")
        assert not isinstance(app.screen, RankSummaryScreen)


async def test_enter_then_o_opens_the_node_logs_when_a_quoted_line_is_found_here(tmp_path):
    # node a's folder on "shared storage": the line its summary quotes is at its place
    (tmp_path / "debug" / "plog").mkdir(parents=True)
    (tmp_path / "debug" / "plog" / "p.log").write_text("x\n" * 6 + "aicore exception\n", encoding="utf-8")
    verdict, sums = small_case(roots=[str(tmp_path)])
    app = ClusterApp(verdict, sums)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        screen = app.screen
        await wait_for(pilot, lambda: screen.logs is not None)
        assert screen.logs.reachable
        await pilot.press("o")
        await wait_for(pilot, lambda: app.return_value is not None)
    assert app.return_value == OpenLogs([str(tmp_path)], "a", 1, app.grid.roots[0])


async def test_a_node_that_sent_nothing_shows_why():
    verdict, sums = small_case()
    app = ClusterApp(verdict, sums)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m", "m", "enter")
        text = str(app.screen.query_one("#rank-summary").render())
        assert text.startswith("c ") and "sent nothing" in text and "task failed: boom" in text


async def test_thousands_of_ranks_fit_and_end_reaches_the_last():
    rows = [{"rank": r, "node": f"n{r // 16:04d}", "role": "victim"} for r in range(16_000)]
    rows[8003]["role"] = "root"
    verdict = {"nodes": [{"node": f"n{k:04d}", "source": None, "ranks": list(range(16 * k, 16 * k + 16))}
                         for k in range(1000)], "ranks": rows, "root": None, "chain": [], "silent_first": [],
               "missing_nodes": [], "evidence": [], "next_actions": [], "problems": []}
    app = ClusterApp(verdict, [])
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert on(app) == (8003, "n0500")
        await pilot.press("end")
        assert on(app) == (15_999, "n0999")
        x, y = app.rank_grid.placement.xy[app.cursor]
        await pilot.press("up")  # the same column in the row of nodes above
        assert app.rank_grid.placement.xy[app.cursor] == (x, y - 1)
        rank, node = on(app)
        assert rank % 16 == 15 and node != "n0999"


# ------------------------------------------------------------------ snapshots
@pytest.fixture(scope="session")
def generated_summaries(tmp_path_factory) -> list[tuple[str, dict]]:
    out = tmp_path_factory.mktemp("cluster")
    info = gen_cluster.generate_cluster(str(out / "logs"), nodes=16, per_node=8, size_per_node=120_000,
                                        root_node=10, root_local=3)
    gen_cluster.write_summaries(str(out / "logs"), info, str(out / "sums"), now=FIXED_NOW)
    sums, problems = read_summaries([str(out / "sums")])
    assert not problems and len(sums) == 16
    return sums


def test_grid_of_16_nodes_snapshot(snap_compare, generated_summaries):
    app = ClusterApp(merge(generated_summaries), generated_summaries)
    assert snap_compare(app, terminal_size=(160, 45))


def test_grid_of_16_nodes_small_terminal_snapshot(snap_compare, generated_summaries):
    app = ClusterApp(merge(generated_summaries), generated_summaries)
    assert snap_compare(app, terminal_size=(80, 24))
