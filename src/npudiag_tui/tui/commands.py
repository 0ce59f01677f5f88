"""Command-palette entries: one table of (title, help, action) shared by the palette and tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from textual.app import SystemCommand

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.tui.app import NpuDiagApp

PALETTE: list[tuple[str, str, str]] = [
    ("Jump to anchor (first causal error)", "Move every pane to the anchored error", "jump_anchor"),
    ("Next error", "Next error line in the focused pane", "next_error"),
    ("Previous error", "Previous error line in the focused pane", "prev_error"),
    ("Next warning", "Next warning line in the focused pane", "next_warning"),
    ("Previous warning", "Previous warning line in the focused pane", "prev_warning"),
    ("Next cascade member", "Jump to the next secondary error of the cascade", "next_cascade"),
    ("Previous cascade member", "Jump to the previous cascade member", "prev_cascade"),
    ("Next candidate", "Jump to the next line that lost to the anchor, and say why it lost", "next_candidate"),
    ("Previous candidate", "Jump to the previous candidate", "prev_candidate"),
    ("Search", "Search all panes (regex or literal)", "search"),
    ("Next search hit", "Next hit in the focused pane", "next_hit"),
    ("Previous search hit", "Previous hit in the focused pane", "prev_hit"),
    ("Filters", "Filter by level, stream, rank, module, regex", "filter"),
    ("Clear filters", "Show every line again", "clear_filters"),
    ("Choose ranks", "Choose the ranks shown in the panes", "choose_ranks"),
    ("Toggle merged timeline", "One merged timeline with a stream/rank gutter, or split panes", "toggle_merged"),
    ("Toggle layout", "Panes side by side or stacked", "toggle_layout"),
    ("Toggle side panel", "Show or hide the diagnosis panel", "toggle_panel"),
    ("Focus cascade list", "Choose a cascade entry to jump to", "focus_cascade"),
    ("Toggle follow", "Follow new lines (live tail) on or off", "toggle_follow"),
    ("Next pane", "Focus the next pane", "next_pane"),
    ("Copy line", "Copy the current line to the clipboard", "copy_line"),
    ("Help", "Show all keys", "help"),
]


def palette_commands(app: "NpuDiagApp") -> Iterable[SystemCommand]:
    for title, help_text, action in PALETTE:
        yield SystemCommand(title, help_text, getattr(app, f"action_{action}"))
