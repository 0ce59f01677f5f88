"""Snapshot tests of the main screens (sync functions: snap_compare runs its own loop)."""

from __future__ import annotations

from conftest import new_app, settle


def _run(*keys: str):
    async def run_before(pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        # drop toasts so the picture does not depend on notification timing
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


def test_overview_on_anchor(snap_compare):
    assert snap_compare(new_app(), run_before=_run(), terminal_size=(160, 45))


def test_cascade_navigation(snap_compare):
    assert snap_compare(new_app(), run_before=_run("right_square_bracket"), terminal_size=(160, 45))


def test_merged_view(snap_compare):
    assert snap_compare(new_app(), run_before=_run("m"), terminal_size=(160, 45))


def test_search_hits(snap_compare):
    assert snap_compare(new_app(), run_before=_run("slash", *"link", "enter"), terminal_size=(160, 45))


def test_filtered_errors(snap_compare):
    async def run_before(pilot) -> None:
        from npudiag_tui.tui.screens.filter import FilterSpec

        await settle(pilot)
        pilot.app.apply_filter(FilterSpec(min_level=6))
        await settle(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(new_app(), run_before=run_before, terminal_size=(160, 45))


def test_help_screen(snap_compare):
    assert snap_compare(new_app(), run_before=_run("question_mark"), terminal_size=(100, 36))


def test_small_terminal(snap_compare):
    assert snap_compare(new_app(), run_before=_run(), terminal_size=(80, 24))


def test_filter_dialog_small(snap_compare):
    assert snap_compare(new_app(), run_before=_run("f"), terminal_size=(80, 24))


def test_candidate_walk_side_panel(snap_compare):
    # the second candidate: the panes on it, the side panel scrolled to the marked entry
    assert snap_compare(new_app(), run_before=_run("o", "o"), terminal_size=(160, 45))
