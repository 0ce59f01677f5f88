"""Command-palette entries, generated from the app's bindings (one per user-facing action)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from textual.app import SystemCommand
from textual.binding import Binding

from npudiag_tui.tui.keys import described, key_shown

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.tui.app import NpuDiagApp


def palette_entries(bindings: Sequence[Binding]) -> list[tuple[str, str, str]]:
    """(title, help, action) per user-facing binding: its description titled, its key as help,
    so the palette also teaches the key."""
    return [(b.tooltip[:1].upper() + b.tooltip[1:], f"key {key_shown(b)}", b.action) for b in described(bindings)]


def palette_commands(app: "NpuDiagApp", builtin: Sequence[SystemCommand] = ()) -> Iterable[SystemCommand]:
    """The app's commands, minus actions Textual's own commands already offer (quit)."""
    taken = {command.callback for command in builtin}
    for title, help_text, action in palette_entries(app.BINDINGS):
        callback = getattr(app, f"action_{action}")
        if callback not in taken:
            yield SystemCommand(title, help_text, callback)
