"""Status line: cursor position and time, follow indicator, and background-work progress."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget

from npudiag_tui.core.formats.text import CONTROL_RE, visible

_BAR_CELLS = 14


def progress_text(done: int, total: int, label: str) -> Text:
    """`label ▕██████░░░░▏ 45%` as plain Text: one Static instead of Textual's ProgressBar, whose
    sub-widgets and CSS cost start-up time on the way to the first screen."""
    total = max(total, 1)
    frac = min(max(done / total, 0.0), 1.0)
    full = int(frac * _BAR_CELLS)
    t = Text(f"{label[:20]} ", style="dim")
    t.append("▕")
    t.append("█" * full, "bold")
    t.append("░" * (_BAR_CELLS - full), "dim")
    t.append("▏")
    t.append(f"{int(frac * 100):3d}%")
    return t


class _Cell(Widget):
    """One piece of the status line. Updating it repaints this cell only: `Static.update`
    refreshes the layout, and on every cursor move and progress tick that re-laid and
    re-rendered the whole screen (bench/README.md)."""

    DEFAULT_CSS = "_Cell { height: 1; }"

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self._text = Text("")

    def set(self, text: Text, layout: bool = False) -> None:
        if text != self._text:
            self._text = text
            self.refresh(layout=layout)

    def render(self) -> Text:
        return self._text


class StatusBar(Horizontal):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        & > #status-text { width: 1fr; }
        & > #status-follow { width: auto; padding: 0 1; }
        & > #status-busy { width: 44; display: none; color: $text-muted; }
        &.-busy > #status-busy { display: block; }
    }
    """

    def compose(self) -> ComposeResult:
        yield _Cell(id="status-text")
        yield _Cell(id="status-follow")
        yield _Cell(id="status-busy")

    def set_text(self, text: Text | str) -> None:
        """The status line names files (archive members too): whatever a caller passes goes
        through the one display policy here, so no escape sequence reaches the terminal."""
        if isinstance(text, str):
            text = Text(visible(text))
        elif CONTROL_RE.search(text.plain):  # styled pieces would shift: keep the text, drop them
            text = Text(visible(text.plain), style=text.style)
        self.query_one("#status-text", _Cell).set(text)

    def set_follow(self, on: bool) -> None:
        self.query_one("#status-follow", _Cell).set(
            Text(" FOLLOW ", style="bold reverse green") if on else Text("paused", style="dim"), layout=True)

    def set_unseen(self, count: int) -> None:
        """Following is paused and `count` new lines arrived (live tail)."""
        self.query_one("#status-follow", _Cell).set(
            Text(f" paused: {count:,} new (t follows) ", style="bold reverse yellow"), layout=True)

    def set_progress(self, done: int | None, total: int = 100, label: str = "") -> None:
        if done is None:
            self.remove_class("-busy")
            return
        self.add_class("-busy")
        self.query_one("#status-busy", _Cell).set(progress_text(done, total, label))
