"""One table of keys: help, palette and README are generated from NpuDiagApp.BINDINGS."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import new_app, settle
from textual.binding import Binding
from textual.widgets import Static

from npudiag_tui.tui.app import NpuDiagApp
from npudiag_tui.tui.keys import KeyRow, key_rows, key_shown
from npudiag_tui.tui.screens.help import HelpScreen

ROOT = Path(__file__).resolve().parents[2]
USER_BINDINGS = [b for b in NpuDiagApp.BINDINGS if b.id]


def _keys_table_tool():
    spec = importlib.util.spec_from_file_location("keys_table", ROOT / "tools" / "keys_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_named_binding_says_what_it_does():
    # a binding without a tooltip would be missing from help, palette and README alike
    assert len(USER_BINDINGS) >= 20
    assert [b.id for b in USER_BINDINGS if not b.tooltip] == []


def test_readme_keys_table_is_what_the_bindings_give():
    tool = _keys_table_tool()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert tool.render(readme, key_rows(NpuDiagApp.BINDINGS)) == readme, "run tools/keys_table.py"
    table = readme.partition(tool.START)[2].partition(tool.END)[0]
    for binding in USER_BINDINGS:
        assert f"`{key_shown(binding)}`" in table, binding.id


def test_readme_table_changes_with_the_bindings():
    tool = _keys_table_tool()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    extra = list(NpuDiagApp.BINDINGS) + [Binding("z", "zoom", "Zoom", id="zoom", tooltip="zoom the pane")]
    assert tool.render(readme, key_rows(extra)) != readme


def test_next_previous_pairs_fold_only_when_the_words_match():
    pair = [Binding("e", "next_error", tooltip="next error"), Binding("E", "prev_error", tooltip="previous error")]
    assert key_rows(pair) == [KeyRow(["e", "E"], "next / previous error")]
    odd = [Binding("e", "next_error", tooltip="next error"), Binding("E", "prev_error", tooltip="go back")]
    assert key_rows(odd) == [KeyRow(["e"], "next error"), KeyRow(["E"], "go back")]
    assert key_rows([Binding("x", "secret", "X")]) == []


async def test_help_screen_lists_every_bound_key(tree):
    app = new_app(tree)
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one(Static).content)
        words = " ".join(text.split())
        for row in key_rows(NpuDiagApp.BINDINGS):
            assert f"{' / '.join(row.keys)} {row.does}" in words
        listed = {key for line in text.splitlines() if line.strip() and not line.startswith("    " * 4 + "  ")
                  for key in line.strip().split("  ")[0].split(" / ")}
        assert {key_shown(b) for b in USER_BINDINGS} <= listed


async def test_palette_offers_every_bound_action_once(tree):
    app = new_app(tree)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        commands = list(app.get_system_commands(app.screen))
        callbacks = [c.callback for c in commands]
        for binding in USER_BINDINGS:
            action = getattr(app, f"action_{binding.action}")
            assert callbacks.count(action) == 1, binding.action
        by_action = {c.callback: c for c in commands}
        prev_pane = by_action[app.action_prev_pane]
        assert prev_pane.title == "Previous pane" and prev_pane.help == "key shift+tab"
