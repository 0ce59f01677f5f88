"""#11 item 6: the dialogs work by keyboard, the filter regex and `/` share smart case, and `y`
says only where the line surely went."""

from __future__ import annotations

from pathlib import Path

from npudiag_tui.tui.screens.filter import FilterScreen, TickBox, smart_case
from npudiag_tui.tui.screens.ranks import RankScreen

from conftest import new_app, record_notices, settle


def test_smart_case():
    assert smart_case("hccl.*fail") == "(?i)hccl.*fail"
    assert smart_case("HCCL") == "HCCL"
    assert smart_case(r"\d+ \S") == r"(?i)\d+ \S"  # escapes are not capitals
    assert smart_case("") == ""


async def test_filter_enter_applies_from_a_checkbox_and_space_ticks(tree):
    app = new_app(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FilterScreen)
        box = screen.query(TickBox).first()
        box.focus()
        await pilot.pause()
        assert "[x]" in box.render().plain  # ticked reads as ticked without colour
        await pilot.press("space")
        await pilot.pause()
        assert not box.value and "[ ]" in box.render().plain
        hidden = box.id.removeprefix("stream-")
        await pilot.press("enter")  # from the checkbox: applies (no 8 tabs to the button)
        await settle(pilot)
        assert not isinstance(app.screen, FilterScreen)
        assert hidden in app.spec.hidden


async def test_filter_regex_is_smart_case_like_search(tree):
    app = new_app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await pilot.pause()
        app.screen.query_one("#regex").focus()
        await pilot.press(*"rungraph", "enter")
        await settle(pilot)
        assert app.spec.regex == "(?i)rungraph"
        assert app.view("plog").count > 0  # lower case matched "RunGraph"
        await pilot.press("slash", *"RUNGRAPH", "enter")  # a capital: exact case, no line says it
        await settle(pilot)
        assert app.search.matches == {} or sum(len(a) for a in app.search.matches.values()) == 0


async def test_rank_dialog_reaches_all_and_cancel_by_keyboard(tree):
    app = new_app(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.apply_filter(app.spec.__class__(ranks=frozenset({0})))
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RankScreen)
        app.screen.query_one("#all").focus()
        await pilot.press("enter")  # Enter on "All" presses All, not Apply
        await settle(pilot)
        assert not isinstance(app.screen, RankScreen) and app.spec.ranks is None


async def test_copy_names_the_file_and_never_claims_more(tree, tmp_path, monkeypatch):
    import tempfile

    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    app = new_app(tree)
    notices = record_notices(app)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.focused
        raw = app.ws.indexes[view.ref_at(view.cursor)[0]].line(view.ref_at(view.cursor)[1])
        await pilot.press("y")
        await pilot.pause()
        saved = list(tmp_path.glob("npudiag-copied-line-*.txt"))
        assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == raw + "\n"
        notes = [str(n.message) for n in notices]
        assert any(str(saved[0]) in n and "if the terminal allows" in n and "tmux" not in n for n in notes)
