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


async def until(pilot, cond, what: str, limit: float = 15.0) -> None:
    """Wait until `cond()` holds; fails loudly, naming `what`, past the deadline."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if cond():
            return
        await pilot.pause(0.05)
    assert cond(), f"never happened: {what}"


async def aligned(pilot, timeout: float = 30.0) -> None:
    """Wait until the other panes followed the last move (the app works their positions out in
    a worker, then moves them). Fails loudly past the deadline."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    await pilot.pause()
    while not app.panes_aligned():
        assert time.monotonic() < deadline, f"the panes did not follow within {timeout:.0f} s"
        await pilot.pause(0.02)
    await pilot.pause()


async def drawn_row(pilot, view, position: int):
    """The row of `position` as the pane draws it (gutter, then the line), brought on screen
    first with the cursor: Textual's Line API (`render_line`), what a user sees."""
    view.set_cursor(position)
    await pilot.pause()
    y = position - int(view.scroll_y)
    assert 0 <= y < view.scrollable_content_region.height, "the row is not on screen"
    return view.render_line(y)


def screen_text(app) -> str:
    """Every shown widget of the screen as it draws itself (`Widget.render_lines`: borders,
    titles, text), one row a line; toasts included. What the terminal would be sent."""
    from textual.geometry import Region

    rows = []
    for widget in app.screen.query("*"):
        if not widget.display or not widget.is_mounted or widget.outer_size.area == 0:
            continue
        size = widget.outer_size
        rows.extend(strip.text for strip in widget.render_lines(Region(0, 0, size.width, size.height)))
    return "\n".join(rows)


def record_notices(app) -> list:
    """The notices the app gives from now on (its public `notify`), newest last."""
    from types import SimpleNamespace

    seen: list = []
    notify = app.notify

    def recording(message, *, title="", severity="information", **kw):
        seen.append(SimpleNamespace(message=str(message), title=title, severity=severity))
        return notify(message, title=title, severity=severity, **kw)

    app.notify = recording
    return seen
