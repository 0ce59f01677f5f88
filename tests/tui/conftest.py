"""Fixtures for the TUI tests: a small CANN-shaped tree, an app factory, deterministic runs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from sample_tree import make_tree

DATA = Path(__file__).parent / "data"
"""A committed copy of `make_tree` output, so snapshots show the same paths everywhere."""


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    # Animations make Pilot wait ~1 s per key (it waits for them to finish) and make snapshots flaky.
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    return make_tree(tmp_path)


def data_paths() -> tuple[list[str], list[str]]:
    return [str(DATA / "ascend" / "log")], [str(DATA / "train.log")]


def new_app(tree: tuple[Path, Path] | None = None, **kw):
    from npudiag_tui.tui.app import NpuDiagApp

    if tree is None:
        paths, stdout = data_paths()
    else:
        paths, stdout = [str(tree[0])], [str(tree[1])]
    return NpuDiagApp(paths, stdout, [], **kw)


async def settle(pilot, timeout: float = 60.0) -> None:
    """Wait until indexing, diagnosis and source builds are done, then let the UI catch up.
    Fails loudly when the app never settles (a generous deadline: CI machines are slow)."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    while not app.is_settled():
        assert time.monotonic() < deadline, f"the app did not settle within {timeout:.0f} s"
        await pilot.pause(0.02)
    await pilot.pause()
    await asyncio.sleep(0.02)
    await pilot.pause()
