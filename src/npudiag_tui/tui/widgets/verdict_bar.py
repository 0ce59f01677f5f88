"""Verdict bar: the anchor's category, code, rank and the next action, above the panes.

Why: at 80x24 the side panel is hidden (the panes need the width), and something on screen
must still say what the tool concluded and how to see more. The bar shows only when the panel is
hidden or the terminal is short, and names the key that opens the panel.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from npudiag_tui.core.model import Diagnosis
from npudiag_tui.tui.lines import sanitize
from npudiag_tui.tui.widgets.side_panel import verdict_text


def bar_text(diagnosis: Diagnosis | None, pending: str = "", panel_key: str = "p",
             logs_read: bool = True) -> Text:
    """The bar's one line (cut by the terminal width; the key hint comes before the action
    text would run out, so it is on screen at 80 columns)."""
    t = Text(overflow="ellipsis", end="")
    if diagnosis is None:
        t.append(pending or "Diagnosing…", "bold")
        return t
    t.append_text(verdict_text(diagnosis, logs_read))
    t.append(f"  [{panel_key}: details]", "dim")
    if diagnosis.anchor is not None and diagnosis.next_actions:
        t.append("  Next: ", "bold green")
        t.append(sanitize(diagnosis.next_actions[0].action.strip()), "green")
    return t


class VerdictBar(Widget):
    """One line above the panes; `show` sets the diagnosis, `set_pending` a progress word."""

    DEFAULT_CSS = """
    VerdictBar {
        height: 1;  /* set to the text's rows by _fit */
        background: $panel;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._text = bar_text(None, "Indexing…")

    def render(self) -> Text:
        return self._text

    def show(self, diagnosis: Diagnosis | None, error: str | None = None, logs_read: bool = True) -> None:
        self._set(bar_text(diagnosis, sanitize(error or "") or "Diagnosis unavailable", logs_read=logs_read))

    def set_pending(self, message: str) -> None:
        self._set(bar_text(None, message))

    def _set(self, text: Text) -> None:
        self._text = text
        self._fit()
        self.refresh()

    def _fit(self) -> None:
        """Set the height to the rows the text needs (1 or 2) at the screen's width.

        Not `height: auto`: Textual caches an auto height by a layout counter that two text
        changes before the next idle bump only once, so "Indexing…"'s one row could stay when
        the verdict arrived, cutting the next action at 80 columns (and making the 80x24
        snapshots flaky). A height set as a style always lays out again."""
        width = max(self.app.size.width - 2, 1)  # the bar spans the screen, less its padding
        rows = len(self._text.wrap(self.app.console, width, overflow="ellipsis"))
        self.styles.height = max(1, min(rows, 2))

    def on_resize(self) -> None:
        self._fit()

    @property
    def plain(self) -> str:
        return self._text.plain
