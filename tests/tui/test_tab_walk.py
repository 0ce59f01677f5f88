"""#11 item 5: Tab and shift+Tab move only over widgets a person can see.

Walk the focus at 80x24 and 160x45 in every shape of the screen (panes, merged view, side
panel whole-screen, panel hidden, a pane filtered away) and check that each focused widget is
displayed with all its ancestors, visible, and has a region on screen."""

from __future__ import annotations

import pytest
from textual.widget import Widget

from conftest import new_app, settle


def _on_screen(app, widget: Widget) -> str | None:
    """Why `widget` cannot be seen (None when it can)."""
    node: Widget | None = widget
    while node is not None and node is not app.screen:
        if not node.display:
            return f"{node!r} is not displayed"
        if not node.visible:
            return f"{node!r} is not visible"
        node = node.parent  # type: ignore[assignment]
    region = widget.region
    if region.width <= 0 or region.height <= 0:
        return f"{widget!r} has no room on screen ({region})"
    if not app.screen.region.contains_region(region) and not region.overlaps(app.screen.region):
        return f"{widget!r} is off screen ({region})"
    if widget.size.height < 2 and getattr(widget, "pane", None):
        return f"{widget!r} is a pane collapsed to its title"
    return None


async def _walk(pilot, key: str, steps: int = 12) -> list[str]:
    app = pilot.app
    seen = []
    for _ in range(steps):
        await pilot.press(key)
        await pilot.pause()
        focused = app.focused
        assert focused is not None, f"{key} left nothing focused"
        why = _on_screen(app, focused)
        assert why is None, why
        seen.append(focused.id or type(focused).__name__)
    return seen


SHAPES = {
    "start": (),
    "panel-toggled": ("p",),
    "merged": ("m",),
    "plog-only": (),  # the hccl/device panes filtered away below
    "panel-closed-from-its-list": ("c", "p"),  # the focus was in the panel that p hides
}


def _plog_only_tree(tmp_path):
    """One plog file without HCCL lines: the hccl pane has files to look at but no line, so it
    is reduced to its title."""
    plog = tmp_path / "ascend" / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    (plog / "plog-1_20260101100000000.log").write_text("".join(
        f"[{'ERROR' if k == 3 else 'INFO'}] GE(1,python):2026-01-01-10:00:{k:02d}.000.000 [a.cc:{k}]1 F: line {k}\n"
        for k in range(30)))
    return tmp_path / "ascend" / "log"


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_tab_skips_a_pane_reduced_to_its_title(tmp_path, size):
    from npudiag_tui.tui.app import NpuDiagApp

    app = NpuDiagApp([str(_plog_only_tree(tmp_path))], [], [])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        hccl = app.query_one("#pane-hccl")
        assert hccl.display and hccl.count == 0 and hccl.size.height <= 1  # the title only
        seen = await _walk(pilot, "tab") + await _walk(pilot, "shift+tab")
        assert "pane-plog" in seen and "pane-hccl" not in seen, seen


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
@pytest.mark.parametrize("shape", list(SHAPES))
async def test_tab_walks_only_visible_widgets(size, shape):
    app = new_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        if shape == "plog-only":
            from npudiag_tui.tui.screens.filter import FilterSpec

            app.apply_filter(FilterSpec(hidden=frozenset({"hccl", "device", "console"})))
            await settle(pilot)
        for key in SHAPES[shape]:
            await pilot.press(key)
            await settle(pilot)
        why = _on_screen(app, app.focused) if app.focused is not None else "nothing focused"
        assert why is None, why
        forward = await _walk(pilot, "tab")
        backward = await _walk(pilot, "shift+tab")
        assert len(set(forward)) == len(set(backward)) >= 1, (forward, backward)


async def test_a_resize_that_hides_the_focused_panel_moves_the_focus_to_a_pane():
    app = new_app()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        for _ in range(8):  # Tab to the panel's cascade list (c would also choose the panel)
            if app.focused is not None and app.focused.id == "cascade":
                break
            await pilot.press("tab")
        assert app.focused is not None and app.focused.id == "cascade"
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert not app.query_one("#side").display
        why = _on_screen(app, app.focused) if app.focused is not None else "nothing focused"
        assert why is None, why
        assert await _walk(pilot, "tab", steps=6)
