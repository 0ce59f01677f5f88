"""Help screen: every key, generated from one table so it cannot drift from the bindings."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: list[tuple[str, str]] = [
    ("e / E", "next / previous error in the focused pane"),
    ("w / W", "next / previous warning"),
    ("a", "jump to the anchored first causal error"),
    ("] / [", "next / previous cascade member"),
    ("o / O", "next / previous candidate: a line that lost to the anchor, and why"),
    ("/", "search (regex if valid, else literal; case-insensitive)"),
    ("n / N", "next / previous search hit"),
    ("f", "filters: level, stream, rank, module, regex"),
    ("F", "clear all filters"),
    ("r", "choose the rank(s) shown"),
    ("m", "merged single timeline / split panes"),
    ("v", "panes side by side / stacked"),
    ("p", "show / hide the side panel"),
    ("c", "focus the cascade list (enter jumps)"),
    ("t", "follow (live tail) on / off"),
    ("tab / shift+tab", "next / previous pane"),
    ("y", "copy the current line"),
    ("j k up down", "move the cursor; pgup/pgdn, g/G home/end, h/l scroll sideways"),
    ("ctrl+p", "command palette (every action)"),
    ("?", "this help"),
    ("q", "quit"),
]


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 90%;
        background: $panel; border: round $accent; padding: 0 1;
    }
    """
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("npudiag-tui keys\n\n", "bold")
        for key, what in KEYS:
            text.append(f"{key:>16}  ", "bold cyan")
            text.append(what + "\n")
        text.append("\nPanes are aligned on one timeline: moving the cursor in one brings the others to "
                    "the same moment. The anchor line is marked '!' and highlighted in every pane.", "dim")
        with VerticalScroll():
            yield Static(text)

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
