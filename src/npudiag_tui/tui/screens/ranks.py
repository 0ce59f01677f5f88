"""Rank chooser: which ranks' plog/device files the panes show."""

from __future__ import annotations

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, SelectionList


class RankScreen(ModalScreen["frozenset[int] | None | bool"]):
    """Returns the chosen ranks, None for all, or False when cancelled."""

    DEFAULT_CSS = """
    RankScreen { align: center middle; }
    RankScreen > Vertical {
        width: 50; max-width: 100%; height: auto; max-height: 90%;
        background: $panel; border: round $accent; padding: 0 1;
    }
    RankScreen SelectionList { height: auto; max-height: 16; }
    RankScreen Horizontal { height: 3; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("enter", "apply", "Apply", priority=True)]

    def __init__(self, ranks: list[tuple[int, str]], chosen: frozenset[int] | None) -> None:
        super().__init__()
        self.ranks = ranks
        self.chosen = chosen

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Ranks shown (space toggles, enter applies)", style="bold"))
            yield SelectionList[int](
                *[(Text(label), rank, self.chosen is None or rank in self.chosen) for rank, label in self.ranks],
                id="rank-list",
            )
            with Horizontal():
                yield Button("Apply", variant="primary", id="apply")
                yield Button("All", id="all")
                yield Button("Cancel", id="cancel")

    def _result(self) -> frozenset[int] | None:
        sel = frozenset(self.query_one("#rank-list", SelectionList).selected)
        if not sel or len(sel) == len(self.ranks):
            return None
        return sel

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "apply":
            self.dismiss(self._result())
        elif event.button.id == "all":
            self.dismiss(None)
        else:
            self.dismiss(False)

    def action_apply(self) -> None:
        """Enter applies from the list; on a button it presses that button (All, Cancel)."""
        if isinstance(self.focused, Button):
            raise SkipAction()
        self.dismiss(self._result())

    def action_cancel(self) -> None:
        self.dismiss(False)
