"""The verdict bar takes the rows its text needs (one or two), whatever came before it.

It used `height: auto`, which Textual caches by a layout counter that two text changes before
one idle pass bump only once: when a screen layout ran in between ("Indexing…" measured, then
the verdict), the bar kept one row and cut the next action at 80 columns, depending on timing.
That was the test_small_terminal / test_filter_dialog_small snapshot flake (2 failures in 10
runs under load before, 0 in 12 after). The race itself cannot be forced through public calls;
this test holds the rule the fix states: the height is the text's rows at the screen's width,
after every change and a resize."""

from __future__ import annotations

import pytest

from npudiag_tui.tui.widgets.verdict_bar import VerdictBar

from conftest import new_app, settle


@pytest.mark.parametrize("size", [(80, 24), (90, 30)])
async def test_the_bar_height_follows_its_text_through_every_change(size):
    app = new_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        bar = app.query_one(VerdictBar)
        assert bar.display and len(bar.plain) > size[0]  # the verdict and next action: two rows
        assert bar.size.height == 2
        for step in range(3):
            bar.set_pending("Indexing…")
            await pilot.pause()
            assert bar.size.height == 1, step
            bar.set_pending("Diagnosing…")  # two changes before one idle pass
            bar.show(app.diagnosis)
            await pilot.pause()
            assert bar.size.height == 2, step
        await pilot.resize_terminal(400, 30)  # wide: hidden beside the panel; p hides the panel
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert bar.display and bar.size.height == 1  # the whole verdict fits on one row
