"""The cluster view: the rank grid, the verdict beside it, keys to walk roots, suspects and
missing nodes, Enter for a rank's summary.

Its own App rather than a screen of the log explorer: it needs no workspace, opens instantly
on thousands of ranks, and when a node's logs are reachable it hands them to the explorer
(`run_cluster_tui` runs the explorer, then brings this view back on the same cell).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from npudiag_tui.core.formats.text import visible
from npudiag_tui.core.node_logs import NodeLogs
from npudiag_tui.tui.cluster.grid import RankGrid
from npudiag_tui.tui.cluster.layout import Grid, build_grid, step
from npudiag_tui.tui.cluster.panel import cell_text, legend, verdict_text
from npudiag_tui.tui.cluster.rank_screen import RankSummaryScreen
from npudiag_tui.tui.widgets.key_bar import KeyBar


@dataclass(frozen=True)
class OpenLogs:
    """The app's result when the user opens a node's logs: where, and the cell to come back to."""

    paths: list[str]
    node: str
    rank: int | None
    cursor: int


class ClusterApp(App["OpenLogs | None"]):
    """The cluster verdict over (source, summary) pairs already merged into `verdict`."""

    TITLE = "npudiag-tui cluster"
    CSS = """
    #title { height: 1; background: $panel; padding: 0 1; }
    #legend { height: 1; padding: 0 1; }
    #body { height: 1fr; }
    #grid { width: 1fr; height: 1fr; }
    #side { width: 40%; min-width: 30; max-width: 64; height: 1fr; border-left: solid $panel-lighten-2; }
    #side.-hidden { display: none; }
    #verdict-scroll { height: 1fr; padding: 0 1; }
    #cursor-info { height: auto; max-height: 7; padding: 0 1; border-top: solid $panel-lighten-2; }
    """
    BINDINGS = [
        Binding("a", "first_root", "Root", id="first_root", tooltip="jump to the root rank"),
        Binding("r", "next_root", "Roots", show=False, id="next_root", tooltip="next root rank"),
        Binding("R", "prev_root", "PrevRoot", show=False, id="prev_root", tooltip="previous root rank"),
        Binding("s", "next_suspect", "Suspects", id="next_suspect",
                tooltip="next suspect: a rank others named, or one that went silent first"),
        Binding("S", "prev_suspect", "PrevSuspect", show=False, id="prev_suspect",
                tooltip="previous suspect: a rank others named, or one that went silent first"),
        Binding("m", "next_missing", "Missing", id="next_missing",
                tooltip="next missing: a node that sent nothing, or ranks in no summary"),
        Binding("M", "prev_missing", "PrevMissing", show=False, id="prev_missing",
                tooltip="previous missing: a node that sent nothing, or ranks in no summary"),
        Binding("enter", "show_rank", "Summary", id="show_rank",
                tooltip="the rank's summary; o there opens its logs if reachable"),
        Binding("p", "toggle_panel", "Panel", show=False, id="toggle_panel", tooltip="show / hide the side panel"),
        Binding("q", "quit", "Quit", id="quit", tooltip="quit"),
    ]

    def __init__(self, verdict: dict, summaries: list[tuple[str, dict]], cursor: int | None = None) -> None:
        super().__init__()
        self.verdict = verdict
        self.summaries = {src: s for src, s in summaries}
        self.grid: Grid = build_grid(verdict)
        first = cursor if cursor is not None else (self.grid.roots[0] if self.grid.roots else 0)
        self._start = first

    def compose(self) -> ComposeResult:
        nodes = len(self.verdict.get("nodes") or [])
        ranks = sum(1 for c in self.grid.cells if c.rank is not None)
        yield Static(Text(f"npudiag-tui cluster: {nodes} node summaries, {ranks} ranks", style="bold",
                          no_wrap=True, overflow="ellipsis"), id="title")
        yield Static(legend(self.grid), id="legend")
        with Horizontal(id="body"):
            yield RankGrid(self.grid, self._start, id="grid")
            with Vertical(id="side"):
                with VerticalScroll(id="verdict-scroll"):
                    yield Static(verdict_text(self.verdict), id="verdict")
                yield Static(cell_text(self.grid, self._start) if self.grid.cells else Text(), id="cursor-info")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(RankGrid).focus()
        self.call_after_refresh(self._match_grid_colours)

    def _match_grid_colours(self) -> None:
        """The legend and the cursor line in the grid's own role colours (known once styled)."""
        self.query_one("#legend", Static).update(legend(self.grid, self.rank_grid.role_style))
        self.query_one("#cursor-info", Static).update(cell_text(self.grid, self.cursor, self.rank_grid.role_style))

    @property
    def rank_grid(self) -> RankGrid:
        return self.query_one(RankGrid)

    @property
    def cursor(self) -> int:
        return self.rank_grid.cursor

    def on_rank_grid_moved(self, event: RankGrid.Moved) -> None:
        self.query_one("#cursor-info", Static).update(cell_text(self.grid, event.cell, self.rank_grid.role_style))

    def on_rank_grid_chosen(self, event: RankGrid.Chosen) -> None:
        self._show(event.cell)

    # ------------------------------------------------------------------ walks
    def _walk(self, walk: list[int], forward: bool, what: str) -> None:
        got = step(walk, self.cursor, forward)
        if got is None:
            self.notify(f"No {what} in this verdict.", timeout=3, markup=False)
            return
        self.rank_grid.set_cursor(got)

    def action_first_root(self) -> None:
        if self.grid.roots:
            self.rank_grid.set_cursor(self.grid.roots[0])
        else:
            self.notify("No root rank in this verdict.", timeout=3, markup=False)

    def action_next_root(self) -> None:
        self._walk(self.grid.roots, True, "root rank")

    def action_prev_root(self) -> None:
        self._walk(self.grid.roots, False, "root rank")

    def action_next_suspect(self) -> None:
        self._walk(self.grid.suspects, True, "suspect")

    def action_prev_suspect(self) -> None:
        self._walk(self.grid.suspects, False, "suspect")

    def action_next_missing(self) -> None:
        self._walk(self.grid.missing, True, "missing node or rank")

    def action_prev_missing(self) -> None:
        self._walk(self.grid.missing, False, "missing node or rank")

    def action_toggle_panel(self) -> None:
        self.query_one("#side").toggle_class("-hidden")

    # ------------------------------------------------------------------ a rank's summary
    def action_show_rank(self) -> None:
        if self.grid.cells:
            self._show(self.cursor)

    def _show(self, k: int) -> None:
        cell = self.grid.cells[k]
        group = self.grid.groups[cell.group]
        summary = self.summaries.get(group.source) if group.source is not None else None

        def opened(logs: NodeLogs | None) -> None:
            if logs is not None and logs.reachable:
                self.exit(OpenLogs(list(logs.paths), str(group.node), cell.rank, k))

        self.push_screen(RankSummaryScreen(self.grid, k, summary), opened)


def run_cluster_tui(verdict: dict, summaries: list[tuple[str, dict]], follow: bool = False) -> int:
    """Entry point for `--cluster` without `--report`: the cluster view; a node's logs opened
    from it run in the explorer, and quitting the explorer comes back here on the same cell."""
    cursor: int | None = None
    while True:
        got = ClusterApp(verdict, summaries, cursor).run()
        if not isinstance(got, OpenLogs):
            return 0
        cursor = got.cursor
        from npudiag_tui.cli import apply_clock_offsets, open_for_tui
        from npudiag_tui.tui.app import run_tui

        print(visible(f"npudiag-tui: opening {got.node}'s logs ({', '.join(got.paths)}); q comes back to the "
                      "cluster view"))
        ws = open_for_tui(got.paths, [], [])
        # the node's lines at the cluster's moments: the clock offset the merge worked out
        shift = node_clock_shift(verdict, got.node)
        if shift:
            apply_clock_offsets(ws, [(p, -shift) for p in got.paths])
        run_tui(ws, follow=follow)


def node_clock_shift(verdict: dict, node: str) -> float:
    """Seconds the node's clock is ahead of the cluster's aligned time, from the verdict's
    `clock` entries (its UTC offset plus the skew the timeouts show), 0 when none is known."""
    for entry in verdict.get("clock") or []:
        if isinstance(entry, dict) and entry.get("node") == node:
            try:
                return float(entry.get("utc_offset_s") or 0) + float(entry.get("offset_s") or 0)
            except (TypeError, ValueError):
                return 0.0
    return 0.0
