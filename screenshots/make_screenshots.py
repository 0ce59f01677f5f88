"""Write SVG screenshots of the main screens to screenshots/, for the README.

    .venv/bin/python screenshots/make_screenshots.py [FIXTURE_DIR]
    .venv/bin/python screenshots/make_screenshots.py --cluster-only   (just the cluster view)

Drives the app headless with Pilot at a fixed size, so the pictures are deterministic. The
default tree is fixtures/hccl-notify-wait-cascade (falls back to the TUI test tree).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from npudiag_tui.tui.app import NpuDiagApp  # noqa: E402
from npudiag_tui.tui.screens.filter import FilterSpec  # noqa: E402

SIZE = (160, 45)


def tree(arg: str | None) -> tuple[list[str], list[str]]:
    base = Path(arg) if arg else ROOT / "fixtures" / "hccl-notify-wait-cascade"
    if not base.exists():
        base = ROOT / "tests" / "tui" / "data"
    logs = [str(p) for p in (base / "ascend",) if p.exists()] or [str(base)]
    stdout = [str(p) for p in sorted(base.glob("*.log")) + sorted(base.glob("*.txt"))]
    return logs, stdout


async def settle(pilot, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and not pilot.app.is_settled():
        await pilot.pause(0.05)
    await pilot.pause()


async def scene(name: str, paths, stdout, steps, size=SIZE, toasts: bool = False) -> None:
    app = NpuDiagApp(paths, stdout, [])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for step in steps:
            if callable(step):
                step(app)
            else:
                await pilot.press(step)
            await settle(pilot)
        if not toasts:
            app.clear_notifications()
        await pilot.pause()
        out = ROOT / "screenshots"
        out.mkdir(exist_ok=True)
        app.save_screenshot(filename=f"{name}.svg", path=str(out))
        print(f"screenshots/{name}.svg")


async def cluster_scene(name: str = "cluster-view", size=SIZE) -> None:
    """The cluster view over 16 generated nodes of 8 ranks (bench/gen_cluster.py), as if under
    Ray with node-05's task timed out: its ranks are in no summary and the node is listed."""
    import tempfile

    sys.path.insert(0, str(ROOT / "bench"))
    import gen_cluster

    from npudiag_tui.core.cluster import merge, read_summaries
    from npudiag_tui.tui.cluster.app import ClusterApp

    with tempfile.TemporaryDirectory() as tmp:
        info = gen_cluster.generate_cluster(f"{tmp}/logs", nodes=16, per_node=8, size_per_node=120_000,
                                            root_node=10, root_local=3)
        gen_cluster.write_summaries(f"{tmp}/logs", info, f"{tmp}/sums", now=1773213000.0)
        sums, _ = read_summaries([f"{tmp}/sums"])
    sums = [(f"ray:{s['node']}", s) for _src, s in sums if s["node"] != "node-05"]
    app = ClusterApp(merge(sums, [("node-05", "timed out after 900 s")]), sums)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause(0.1)
        app.save_screenshot(filename=f"{name}.svg", path=str(ROOT / "screenshots"))
        print(f"screenshots/{name}.svg")


async def main() -> None:
    if sys.argv[1:] == ["--cluster-only"]:
        await cluster_scene()
        return
    paths, stdout = tree(sys.argv[1] if len(sys.argv) > 1 else None)
    await scene("overview-anchor", paths, stdout, [])
    await scene("cascade-navigation", paths, stdout, ["right_square_bracket", "right_square_bracket"])
    await scene("merged-view", paths, stdout, ["m"])
    await scene("search-and-filter", paths, stdout,
                [lambda app: app.apply_filter(FilterSpec(min_level=5)), "slash", *"cqe", "enter"])
    await scene("side-panel", paths, stdout, ["c", "down", "down", "enter", "c"])
    # the second candidate that lost to the anchor, with the notice that says why
    await scene("candidate-walk", paths, stdout, ["o", "o"], toasts=True)
    await scene("help", paths, stdout, ["question_mark"], size=(100, 32))
    await scene("small-80x24", paths, stdout, [], size=(80, 24))
    # compact lines (time once, level tag, module, message) with the verdict and next action
    await scene("compact-lines-120x40", paths, stdout, [], size=(120, 40))
    await cluster_scene()


if __name__ == "__main__":
    asyncio.run(main())
