"""Legible styles (#11 item 1): the rendered segments of the panes keep readable contrast.

The checks read what LogView.render_line gives the compositor (the Line API's output) and
compare each visible segment's foreground with the background it sits on, as the terminal will
show them: truecolor, and downgraded to 256 and 16 colours.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import ColorSystem
from textual.color import Color

from npudiag_tui.tui.app import NpuDiagApp
from npudiag_tui.tui.widgets.log_view import LogView
from npudiag_tui.tui.widgets.palette import contrast, downgraded

from conftest import settle

PLOG = """\
[INFO] GE(1000,python):2026-01-01-10:00:01.000.000 [ge_api.cc:100]1000 RunGraph:step 0 ok
[DEBUG] GE(1000,python):2026-01-01-10:00:01.100.000 [ge_api.cc:101]1000 RunGraph:debug detail
continuation line without a stamp
[INFO] GE(1000,python):2026-01-01-10:00:01.200.000 [ge_api.cc:102]1000 RunGraph:step 1 ok
[ERROR] RUNTIME(1000,python):2026-01-01-10:00:02.000.000 [stream.cc:77]1000 SyncStream:rtStreamSynchronize failed, ret=507011
[INFO] GE(1000,python):2026-01-01-10:00:03.000.000 [ge_api.cc:103]1000 RunGraph:step 2 ok
"""


def _tree(tmp_path: Path) -> list[str]:
    plog = tmp_path / "ascend" / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    (plog / "plog-1000_20260101100000000.log").write_text(PLOG)
    return [str(tmp_path / "ascend" / "log")]


def _cells(view: LogView, y: int) -> list[tuple[str, Color, Color]]:
    """(text, fg, bg) of every visible segment of row y, colours opaque as drawn."""
    base = view.background_colors[1]
    default_fg = view.rich_style.color  # what a segment without a colour of its own gets
    out = []
    for seg in view.render_line(y):
        style = seg.style
        if not seg.text.strip() or style is None:
            continue
        fg = Color.from_rich_color(style.color or default_fg)
        bg = Color.from_rich_color(style.bgcolor) if style.bgcolor is not None else base
        out.append((seg.text, fg, bg))
    return out


def _row_of(view: LogView, needle: str) -> int:
    for y in range(view.scrollable_content_region.height):
        if needle in view.render_line(y).text:
            return y
    raise AssertionError(f"{needle!r} not on screen")


def _assert_legible(cells: list[tuple[str, Color, Color]]) -> None:
    assert cells
    for text, fg, bg in cells:
        assert contrast(fg, bg) >= 3.0, (text, fg, bg)
        for system in (ColorSystem.EIGHT_BIT, ColorSystem.STANDARD):
            f, b = downgraded(fg.rich_color, system), downgraded(bg.rich_color, system)
            assert f != b and contrast(f, b) >= 1.5, (system, text, fg, bg, f, b)


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_anchor_row_is_legible_with_and_without_the_cursor(tmp_path, size):
    app = NpuDiagApp(_tree(tmp_path), [], [])
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView)
        y = _row_of(view, "RUNTIME")
        assert view.cursor == int(view.scroll_y) + y  # the app opened on the anchor
        _assert_legible(_cells(view, y))
        await pilot.press("up")
        await pilot.pause()
        _assert_legible(_cells(view, y))  # the anchor row without the cursor on it
        _assert_legible(_cells(view, y - 1))  # the cursor row


async def test_debug_is_dimmer_than_info_and_estimated_times_are_dimmed(tmp_path):
    app = NpuDiagApp(_tree(tmp_path), [], [])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView)

        def message_fg(needle: str) -> Color:
            return next(fg for text, fg, _ in _cells(view, _row_of(view, needle)) if needle in text)

        base = view.background_colors[1]
        info, debug = message_fg("step 0 ok"), message_fg("debug detail")
        assert contrast(debug, base) < contrast(info, base)  # DEBUG recedes, INFO does not
        assert contrast(debug, base) >= 3.0  # ...and stays readable

        def time_fg(needle: str) -> Color:
            return _cells(view, _row_of(view, needle))[0][1]

        own, estimated = time_fg("step 0 ok"), time_fg("continuation line")
        assert "~" in view.render_line(_row_of(view, "continuation line")).text
        assert contrast(estimated, base) < contrast(own, base)
