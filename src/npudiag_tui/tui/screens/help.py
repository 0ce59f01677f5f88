"""Help screen: every key, generated from the app's bindings so it cannot drift from them."""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from npudiag_tui.tui.keys import PANE_KEYS, key_rows


KEY_WIDTH = 16
# the box is 76 cells; less border, padding, the key column and room for a scrollbar
WORDS_WIDTH = 76 - 4 - (KEY_WIDTH + 2) - 2


def help_rows(bindings: list[Binding]) -> list[tuple[str, str]]:
    """(keys, what they do) in the order shown: the app's bindings, then the pane keys."""
    return [(" / ".join(row.keys), row.does) for row in key_rows(bindings)] + PANE_KEYS


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
        for keys, what in help_rows(self.app.BINDINGS):
            text.append(f"{keys:>{KEY_WIDTH}}  ", "bold cyan")
            # wrapped under its own column, so the key column stays clear
            text.append(textwrap.fill(what, WORDS_WIDTH, subsequent_indent=" " * (KEY_WIDTH + 2)) + "\n")
        text.append("\nPanes are aligned on one timeline: moving the cursor in one brings the others to "
                    "the same moment. The anchor line is marked '!' and highlighted in every pane.", "dim")
        with VerticalScroll():
            yield Static(text)

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
