"""Status line: cursor position and time, follow indicator, and background-work progress."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static


class StatusBar(Horizontal):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        & > #status-text { width: 1fr; height: 1; }
        & > #status-follow { width: auto; height: 1; padding: 0 1; }
        & > #status-progress { width: 28; height: 1; display: none; }
        & > #status-busy { width: auto; height: 1; display: none; color: $text-muted; }
        &.-busy > #status-progress { display: block; }
        &.-busy > #status-busy { display: block; }
        & > #status-progress Bar { width: 14; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text(""), id="status-text")
        yield Static(Text(""), id="status-follow")
        yield Static(Text(""), id="status-busy")
        yield ProgressBar(total=100, show_eta=False, id="status-progress")

    def set_text(self, text: Text | str) -> None:
        self.query_one("#status-text", Static).update(Text(text) if isinstance(text, str) else text)

    def set_follow(self, on: bool) -> None:
        self.query_one("#status-follow", Static).update(
            Text(" FOLLOW ", style="bold reverse green") if on else Text("paused", style="dim"))

    def set_progress(self, done: int | None, total: int = 100, label: str = "") -> None:
        bar = self.query_one("#status-progress", ProgressBar)
        if done is None:
            self.remove_class("-busy")
            return
        self.add_class("-busy")
        self.query_one("#status-busy", Static).update(Text(label))
        bar.update(total=max(total, 1), progress=min(done, total))
