"""The summary of one rank (Enter on the grid), and the way to its node's logs when they are here.

Whether the logs are reachable is checked in a thread (it may read part of a log file, see
`core/node_logs.py`); the screen shows the summary at once and the answer when it comes.
"""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from npudiag_tui.core.node_logs import NodeLogs, locate
from npudiag_tui.tui.cluster.layout import Grid
from npudiag_tui.tui.cluster.panel import rank_summary_text, reach_text


class RankSummaryScreen(ModalScreen["NodeLogs | None"]):
    """Dismissed with the node's logs when `o` opens them, else None."""

    DEFAULT_CSS = """
    RankSummaryScreen { align: center middle; }
    RankSummaryScreen > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 90%;
        background: $panel; border: round $accent; padding: 0 1;
    }
    RankSummaryScreen VerticalScroll { height: auto; max-height: 1fr; }
    RankSummaryScreen #reach { height: auto; margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape,q,enter", "close", "Close"), Binding("o", "open_logs", "Open logs")]

    def __init__(self, grid: Grid, cell: int, summary: dict | None) -> None:
        super().__init__()
        self.grid = grid
        self.cell = cell
        self.summary = summary
        self.logs: NodeLogs | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(reach_text(None), id="reach")
            with VerticalScroll():
                yield Static(rank_summary_text(self.grid, self.cell, self.summary), id="rank-summary")

    def on_mount(self) -> None:
        if self.summary is None:
            c = self.grid.cells[self.cell]
            why = "no summary holds this rank" if c.rank is not None else "this node sent no summary"
            self._show(NodeLogs([], why))
        else:
            self._check(self.summary)

    @work(thread=True, exclusive=True, group="reach")
    def _check(self, summary: dict) -> None:
        logs = locate(summary)
        self.app.call_from_thread(self._show, logs)

    def _show(self, logs: NodeLogs) -> None:
        self.logs = logs
        self.query_one("#reach", Static).update(reach_text(logs))

    def action_open_logs(self) -> None:
        if self.logs is not None and self.logs.reachable:
            self.dismiss(self.logs)
        elif self.logs is None:
            self.app.notify("Still checking whether the logs are reachable from here.", markup=False)
        else:
            self.app.notify(f"Not reachable from here: {self.logs.why}", severity="warning", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
