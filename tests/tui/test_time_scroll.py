"""The merged view's scrollbar goes by time: its thumb shows the top line's moment and a drag
goes to the moment under the thumb (core.views.TimeAxis), not to a line count."""

from __future__ import annotations

from conftest import new_app, settle
from textual.scrollbar import ScrollTo


async def test_merged_scrollbar_by_time(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        merged = app.view("merged")
        axis = merged.axis
        first, last = axis.span()
        top = merged.max_scroll_y
        assert top > 0
        for fraction in (0.25, 0.5):
            merged.post_message(ScrollTo(y=fraction * top, animate=False))  # what a drag sends
            await pilot.pause()
            want = min(axis.position_at(fraction), top)
            assert int(merged.scroll_y) == want != round(fraction * top)  # by time, not by line
            moment = first + int(fraction * (last - first))
            if want < top:  # not held at the end of the scroll range: the first line at the moment
                assert merged.time_at(want) >= moment > merged.time_at(want - 1)
            assert abs(merged.vertical_scrollbar.position - axis.fraction_of(want) * top) < 1
        await pilot.press("G")
        await pilot.pause()
        assert merged.time_at(merged.cursor) == last and merged.cursor == merged.count - 1
        await pilot.press("g")
        await pilot.pause()
        assert merged.time_at(merged.cursor) == first and merged.vertical_scrollbar.position == 0
