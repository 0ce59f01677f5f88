"""The npudiag Textual app: stream panes on one timeline, the diagnosis side panel, the keys.

Flow: the panes open as soon as discovery is done (showing lines while the index grows), the
index/scan runs in a thread worker, then the diagnosis, then the merged/filtered sources; the
app jumps to the anchor when the diagnosis arrives. Everything heavy runs in workers that check
cancellation, so keys work meanwhile.
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import importlib
import re
from array import array
import sys
import time
from typing import Any, Callable, Iterable, Sequence

from rich.text import Text
from textual import events, on, work
from textual.css.query import NoMatches
from textual.app import ScreenStackError, App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Input, OptionList
from textual.worker import Worker, WorkerState, get_current_worker

from npudiag_tui.core.formats.text import visible
from npudiag_tui.core.formats.timestamps import format_us
from npudiag_tui.core.model import Candidate, Diagnosis, ErrorEvent, LineRef
from npudiag_tui.core import views
from npudiag_tui.core.timeline import Timeline, scan_matching_lines
from npudiag_tui.core.views import PANES, STREAM_PANE as _STREAM_PANE, FilterSpec
from npudiag_tui.core.window import ScanningSelection, WindowTimeline
from npudiag_tui.core.workspace import Workspace
from npudiag_tui.tui.commands import palette_commands
from npudiag_tui.tui.late import while_running
from npudiag_tui.tui.messages import (
    ChannelsReady, DiagnosisReady, IndexDone, IndexProgress, LinesAppended, LinesCounted, MarksReady, PanesAligned,
    SearchDone, SourceGrew, SourceProgress, SourceReady,
)
from npudiag_tui.tui.screens.filter import FilterScreen
from npudiag_tui.tui.screens.help import HelpScreen
from npudiag_tui.tui.screens.ranks import RankScreen
from npudiag_tui.tui.widgets.key_bar import KeyBar
from npudiag_tui.tui.widgets.log_view import LogView
from npudiag_tui.tui.widgets.side_panel import SidePanel
from npudiag_tui.tui.widgets.status_bar import StatusBar
from npudiag_tui.tui.widgets.verdict_bar import VerdictBar
from npudiag_tui.tui.pane_layout import plan as pane_plan

class Phase(enum.Enum):
    """Where the app is on its way from launch to settled, in order."""

    INDEXING = "indexing"  # the scan runs; nothing is diagnosed yet
    COUNTING = "counting lines"  # anchored screen shown; the files without hits are still being counted
    READY = "ready"  # every line counted: the background work (merges, marks, live tail) may run


class NpuDiagApp(App[int]):
    """Interactive explorer over one opened set of Ascend logs."""

    CSS_PATH = "app.tcss"
    TITLE = "npudiag-tui"
    ENABLE_COMMAND_PALETTE = True
    # The one table of keys: `tooltip` is what the key does, in the words the help screen, the
    # command palette and the README table (tools/keys_table.py) show; a `next_X` binding followed
    # by `prev_X` with the same words but "previous" is shown as one row.
    BINDINGS = [
        Binding("e", "next_error", "Err", id="next_error", tooltip="next error (all panes in time order; x: focused)"),
        Binding("E", "prev_error", "PrevErr", show=False, id="prev_error",
                tooltip="previous error (all panes in time order; x: focused)"),
        Binding("w", "next_warning", "Warn", id="next_warning", tooltip="next warning"),
        Binding("W", "prev_warning", "PrevWarn", show=False, id="prev_warning", tooltip="previous warning"),
        Binding("a", "jump_anchor", "Anchor", id="jump_anchor", tooltip="jump to the anchored first causal error"),
        Binding("right_square_bracket", "next_cascade", "Cascade", key_display="]", id="next_cascade",
                tooltip="next cascade member"),
        Binding("left_square_bracket", "prev_cascade", "PrevCascade", show=False, key_display="[",
                id="prev_cascade", tooltip="previous cascade member"),
        Binding("o", "next_candidate", "Candidates", id="next_candidate",
                tooltip="next candidate: a line that lost to the anchor, and why"),
        Binding("O", "prev_candidate", "PrevCandidate", show=False, id="prev_candidate",
                tooltip="previous candidate: a line that lost to the anchor, and why"),
        Binding("slash", "search", "Search", key_display="/", id="search",
                tooltip="search all panes (regex if valid, else literal; smart case: a capital makes it exact)"),
        Binding("n", "next_hit", "Next hit", show=False, id="next_hit", tooltip="next search hit"),
        Binding("N", "prev_hit", "Prev hit", show=False, id="prev_hit", tooltip="previous search hit"),
        Binding("x", "toggle_mark_scope", "Scope", show=False, id="toggle_mark_scope",
                tooltip="e/w/n walk all panes in time order / the focused pane only"),
        Binding("f", "filter", "Filter", id="filter", tooltip="filters: level, stream, rank, module, regex"),
        Binding("F", "clear_filters", "Clear filters", show=False, id="clear_filters", tooltip="clear all filters"),
        Binding("r", "choose_ranks", "Ranks", id="choose_ranks", tooltip="choose the rank(s) shown"),
        Binding("m", "toggle_merged", "Merge", id="toggle_merged", tooltip="merged single timeline / split panes"),
        Binding("v", "toggle_layout", "Layout", id="toggle_layout",
                tooltip="pane layout: chosen by width / side by side / stacked"),
        Binding("R", "toggle_raw", "Raw", show=False, id="toggle_raw",
                tooltip="raw lines as written / compact lines (time, level, module, message)"),
        Binding("z", "toggle_wrap", "Wrap", show=False, id="toggle_wrap",
                tooltip="wrap the selected line: show it whole over several rows / one row"),
        Binding("Z", "toggle_wrap_all", "Wrap all", show=False, id="toggle_wrap_all",
                tooltip="wrap every line to the pane's width / one row per line"),
        Binding("p", "toggle_panel", "Panel", show=False, id="toggle_panel", tooltip="show / hide the side panel"),
        Binding("c", "focus_cascade", "Cascade list", show=False, id="focus_cascade",
                tooltip="focus the cascade list (enter jumps)"),
        Binding("t", "toggle_follow", "Follow", id="toggle_follow", tooltip="follow (live tail) on / off"),
        Binding("i", "show_problems", "Problems", show=False, id="show_problems",
                tooltip="list the input problems: files skipped, unreadable or truncated"),
        Binding("tab", "next_pane", "Pane", show=False, id="next_pane", tooltip="next pane"),
        Binding("shift+tab", "prev_pane", "Prev pane", show=False, id="prev_pane", tooltip="previous pane"),
        Binding("y", "copy_line", "Copy", show=False, id="copy_line", tooltip="copy the current line"),
        Binding("question_mark", "help", "Help", key_display="?", id="help", tooltip="help: every key"),
        Binding("q", "quit", "Quit", id="quit", tooltip="quit"),
        # works only while the search bar is open, so it is no key of the help
        Binding("escape", "close_search", "Close search", show=False),
    ]

    def __init__(self, workspace_or_paths: Workspace | Sequence[str], stdout: Sequence[str] | None = None,
                 registry_files: Sequence[str] | None = None, follow: bool = False,
                 layout: str | None = None, side_panel: bool | None = None) -> None:
        super().__init__()
        if isinstance(workspace_or_paths, Workspace):
            self.ws = workspace_or_paths
        else:
            self.ws = Workspace.open(list(workspace_or_paths), list(stdout or []), list(registry_files or []))
        self.following = follow
        self.layout_mode = layout
        self.side_panel_default = side_panel
        self.spec = FilterSpec()
        self.diagnosis: Diagnosis | None = None
        self.diagnosis_error: str | None = None
        self.phase = Phase.INDEXING
        self._after_count: tuple[bool, bool] | None = None  # background work waiting for the count
        self._recount: list[tuple[str, tuple[int, int] | None]] = []  # panes whose cursor follows the count
        self.merged_mode = False
        self.cascade_index = -1
        self.candidate_index = -1
        self.generation = 0
        self.search = views.SearchBook()  # the `/` search: term, generation, matches, hit order
        self._merged_generation = -1
        self._pending_anchor_jump = True
        self._pending_sources = 0
        self._input_until = 0.0
        self._diagnosed_once = False
        self._built_files = 0
        self._live = follow
        self.mark_book = views.MarkBook()  # the level marks e/E and w/W walk
        self._last_view: LogView | None = None
        self.raw_lines = False
        self.wrap_selected = False
        self.wrap_all = False
        self._panel_choice: bool | None = None
        self.marks_in_focused_only = False
        self._pane_shown: dict[str, bool] = {}

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield VerdictBar(id="verdict")
        with Horizontal(id="main"):
            with Container(id="panes"):
                for key, title in PANES:
                    yield LogView(self.ws, title, key, id=f"pane-{key}")
            yield LogView(self.ws, "merged timeline", "merged", merged=True, id="pane-merged")
            yield SidePanel(id="side")
        yield Input(placeholder="search (regex or text), enter to find, esc to close", id="search", compact=True)
        yield StatusBar(id="status")
        yield KeyBar(id="keys")

    @property
    def indexed(self) -> bool:
        """The scan is done and diagnosed (lines may still be counted: see `phase`)."""
        return self.phase is not Phase.INDEXING

    def is_settled(self) -> bool:
        """True when indexing, diagnosis and source building are all finished (tests, screenshots)."""
        if self.phase is not Phase.READY or (self.diagnosis is None and self.diagnosis_error is None):
            return False
        if not self.mark_book.ready or self._pending_sources or self.search.running:
            return False
        # the live watcher's watch worker runs for as long as the app follows: not work to wait for
        return self.panes_aligned() and not any(w.state in (WorkerState.PENDING, WorkerState.RUNNING)
                                                for w in self.workers if w.group != "watch")

    def panes_aligned(self) -> bool:
        """True when the other panes have followed the last move (tests, screenshots)."""
        return self._sync_source is None and self._aligned_generation == self._align_generation

    def notify(self, message: str, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notice goes through the one display policy (formats.text.visible): problem
        notices name files and quote errors, live notices quote log lines, and any of them can
        carry what a hostile file name or line put there. Screens and widgets end up here too."""
        super().notify(visible(str(message)), title=visible(str(title)), severity=severity, timeout=timeout,
                       markup=markup)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        builtin = list(super().get_system_commands(screen))
        yield from builtin
        yield from palette_commands(self, builtin)

    def on_mount(self) -> None:
        # Workers run pure-Python loops (merge, scans); with the default 5 ms GIL switch
        # interval every wake-up of the UI thread can wait that long, and a key press needs
        # many. 1 ms keeps keys responsive while workers run.
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(0.001)
        self.query_one("#side").display = self._panel_wanted()
        self.query_one("#pane-merged").display = False
        self.query_one("#search").display = False
        self._apply_standin_sources()
        self._update_pane_visibility()
        first = self.visible_views()
        if first:
            first[0].focus()
        else:  # no pane: keys go to the app, not to the hidden search box it auto-focused
            self.set_focus(None)
        self.query_one(StatusBar).set_follow(self.following)
        self.query_one(SidePanel).show_pending("Indexing…")
        self.query_one(VerdictBar).set_pending("Indexing…")
        self.problems: list[str] = []  # what the problems screen (i) lists: input and live
        self._seen_problems = 0
        self._take_ws_problems()
        if self.ws.times.offsets:  # every clock shown is moved: say by how much, once
            moved = [f"{src.label or src.source_id}: {self.ws.times.offsets[src.source_id] / 1e6:+g} s"
                     for src in self.ws.sources if self.ws.times.offsets.get(src.source_id)]
            self.notify(f"Clock offsets applied to {len(moved)} source(s): {', '.join(moved[:4])}"
                        f"{' …' if len(moved) > 4 else ''}", title="Clock offsets", markup=False, timeout=8)
        self._index_started = time.monotonic()
        self.index_worker()
        # following starts after the anchored screen (see _background_after_diagnosis): the
        # tail's first poll re-reads every file's size, so nothing written meanwhile is missed

    def on_unmount(self) -> None:
        sys.setswitchinterval(getattr(self, "_switch_interval", 0.005))
        if not gc.isenabled():  # quit before the first diagnosis
            gc.enable()

    def _take_ws_problems(self) -> None:
        new = self.ws.problems[self._seen_problems:]
        self._seen_problems = len(self.ws.problems)
        self.add_problems(new)

    def add_problems(self, problems: Sequence[str]) -> None:
        """Input problems (discovery, index, live tail): one notice for the lot, never one
        pop-up each (thousands of them held the first diagnosis up); `i` lists them all."""
        if not problems:
            return
        self.problems.extend(problems)
        if len(problems) == 1:
            msg = f"{problems[0]}\n(press i to list the input problems)"
        else:
            msg = f"{len(problems):,} input problems, such as: {problems[0]}\n(press i to list them all)"
        self.notify(msg, title="Input problems", severity="warning", markup=False, timeout=8)

    def action_show_problems(self) -> None:
        from npudiag_tui.tui.screens.problems import ProblemsScreen

        self.push_screen(ProblemsScreen(self.problems, self.ws.discovery.skipped))

    def _start_live(self) -> None:
        """Mount the live tail (tui.live) when following was asked for at start."""
        from npudiag_tui.tui.live import LiveWatcher

        if not self.query(LiveWatcher):
            self.mount(LiveWatcher(self.ws))

    # ------------------------------------------------------------------ panes
    def views(self) -> list[LogView]:
        return [self.query_one(f"#pane-{key}", LogView) for key, _ in PANES]

    def view(self, pane: str) -> LogView:
        return self.query_one(f"#pane-{pane}", LogView)

    def visible_views(self) -> list[LogView]:
        if self.merged_mode:
            return [self.view("merged")]
        return [v for v in self.views() if v.display]

    def focused_view(self) -> LogView | None:
        focused = self.focused
        if isinstance(focused, LogView) and focused.display:
            return focused
        views = self.visible_views()
        if self._last_view in views:
            return self._last_view
        return views[0] if views else None

    def pane_files(self, pane: str) -> list[int]:
        return views.pane_files(self.ws, pane, self.spec)

    def _needs_selection(self, pane: str, spec: FilterSpec | None = None) -> bool:
        return views.needs_selection(pane, spec or self.spec)

    def _apply_standin_sources(self, keep: bool = True) -> None:
        """Cheap sources right away: concatenated files (no merge yet), empty for filtered panes.
        Without `keep` the cursors start at the top (a jump is due next)."""
        for key, _ in PANES:
            view = self.view(key)
            if self._needs_selection(key):
                view.set_source(Timeline(self.ws, []), keep=True)
                view.set_status("building…")
            else:
                self._show_source(view, self._whole_files(self.pane_files(key)), keep)
                view.set_status("" if self.indexed else "indexing…")

    @staticmethod
    def _show_source(view: LogView, timeline: "Timeline | WindowTimeline", keep: bool = True) -> None:
        """Show `timeline` unless the pane already serves that very order: re-sourcing a
        merged window after the count and again when the background build hands it over
        worked out every pane's cursor, pages and block stamps twice more on the UI thread."""
        if not (isinstance(view.timeline, WindowTimeline) and view.timeline.same_order(timeline)):
            view.set_source(timeline, keep=keep)

    def _whole_files(self, fids: list[int]) -> "Timeline | WindowTimeline":
        return views.whole_files(self.ws, fids, self.indexed)

    def _update_pane_visibility(self) -> None:
        for key, _ in PANES:
            has_files = bool(self.pane_files(key)) if key != "hccl" else bool(self.pane_files("plog")
                                                                              or self.pane_files("device"))
            self.view(key).display = (not self.merged_mode) and has_files and key not in self.spec.hidden
        self.query_one("#panes").display = not self.merged_mode
        self.view("merged").display = self.merged_mode
        self._pane_shown = {key: self.view(key).display for key, _ in PANES}
        self._relayout()

    # ------------------------------------------------------------------ layout for the reader (#11)
    def _panel_wanted(self) -> bool:
        """The side panel: the user's choice (p) once made, else shown from 100 columns."""
        if self._panel_choice is not None:
            return self._panel_choice
        if self.side_panel_default is not None:
            return self.side_panel_default
        return self.size.width >= 100

    @while_running
    def _relayout(self) -> None:
        """Choose the pane grid (tui.pane_layout) and whether the verdict bar shows, for the
        current size and the panes that have lines; runs again on every resize."""
        try:
            side = self.query_one("#side")
            panes = self.query_one("#panes")
        except NoMatches:
            return
        side.display = self._panel_wanted()
        # below 100 columns the panel would leave the panes ~35 columns: it takes the screen
        # instead, and p gives the panes back
        whole = side.display and self.size.width < 100
        side.set_class(whole, "-whole")
        side.border_title = "diagnosis · p: back to the logs" if whole else None
        panes.display = not self.merged_mode and not whole
        self.view("merged").display = self.merged_mode and not whole
        side_cells = 45 if side.display and not whole else 0
        shown = [key for key, _ in PANES if self._pane_shown.get(key)]
        listing = [(key, self.view(key).count == 0 and not self.view(key).status) for key in shown]
        plan = pane_plan(self.size.width - side_cells, listing, self.layout_mode)
        for key, empty in listing:
            self.view(key).display = key not in plan.hidden
            self.view(key).set_class(empty, "-title-only")  # LogView.allow_focus: Tab passes it by
        self._refocus_if_hidden()
        panes.styles.grid_size_columns = plan.columns
        panes.styles.grid_rows = " ".join(plan.rows)
        self.query_one(VerdictBar).display = not side.display  # the panel starts with the verdict

    @while_running
    def _refocus_if_hidden(self, later: bool = True) -> None:
        """A layout change that hid the focused widget (a pane reduced to its title, the panel
        closed) hands the focus to a pane a person can see, so keys never go to a hidden one.
        Checked again after the refresh: a jump (the anchor) may have moved the focus since."""
        focused = self.focused
        if focused is not None and focused.focusable and all(n.display for n in focused.ancestors_with_self):
            return
        if focused is None and (later or len(self.screen_stack) > 1):
            return  # nothing was focused (before any pane), or a dialog has the keys
        if later:  # by then Textual has blurred the hidden widget: focused is None
            self.call_after_refresh(self._refocus_if_hidden, False)
            return
        views = [v for v in self.visible_views() if v.focusable]
        if views:
            views[0].focus()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._relayout)

    def _rebuild_sources(self, include_merged: bool | None = None) -> None:
        self.generation += 1
        self._built_files = len(self.ws.files)
        self._apply_standin_sources()
        self._update_pane_visibility()
        for v in self.views() + [self.view("merged")]:
            v.anchor_refs = self._anchor_refs()
            v.invalidate_marks()
        if self.phase is not Phase.READY:  # built once the count is done (_background_after_diagnosis)
            return
        panes = sorted((key for key, _ in PANES), key=self._build_order)
        if include_merged or (include_merged is None and self.merged_mode):
            panes.append("merged")
            self._merged_generation = self.generation
        self._pending_sources = len(panes)
        self.build_sources(panes, self.generation, self.spec)

    def _build_order(self, pane: str) -> tuple[int, int, int]:
        """Small panes first, then panes that show nothing until built (the HCCL view, filtered
        panes), and the big merges last: their stand-in (the files one after another) is
        usable meanwhile, so the HCCL view does not wait for the plog merge (bench/README.md)."""
        fids = set(self.pane_files(pane))
        size = sum(f.size for f in self.ws.files if f.file_id in fids)
        return (0 if size < (64 << 20) else 1, 0 if self._needs_selection(pane) else 1, size)

    # ------------------------------------------------------------------ workers
    def _should_stop(self, worker: Worker) -> bool:
        """Whether the worker was cancelled; first waits while the user is typing.

        Workers run pure-Python loops that hold the GIL; a key press needs the UI thread for
        many short turns, so with busy workers it took seconds. Each worker calls this between
        chunks (~10-50 ms of work) and sleeps while keys or clicks arrived in the last 300 ms.
        """
        while not worker.is_cancelled and time.monotonic() < self._input_until:
            time.sleep(0.02)
        return worker.is_cancelled

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self._input_until = time.monotonic() + 0.3
        await super().on_event(event)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False, name="index")
    def index_worker(self) -> None:
        worker = get_current_worker()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] > 0.1:
                last[0] = now
                self.post_message(IndexProgress(done, total))

        # While worker processes index, load what the diagnosis needs (engine modules, the
        # registry): it would otherwise come after the pass, on the way to the anchored screen.
        try:
            importlib.import_module("npudiag_tui.core.diagnosis.engine")
            self.ws.registry
        except Exception:  # the diagnosis reports its own failures later
            pass
        # worker processes keep the GIL-bound index pass off the UI's interpreter; files
        # without an error candidate are counted after the anchored screen (count_lines)
        self.ws.index_first(progress=progress, cancelled=lambda: self._should_stop(worker))
        if worker.is_cancelled:
            return
        # Diagnose here, before telling the UI: the two messages then arrive together and the
        # first full paint is the anchored one (no paint of the file starts in between, and no
        # UI work sharing the GIL with the diagnosis).
        ready = self._diagnose()
        self.post_message(IndexDone())
        self.post_message(ready)
        if self.ws.pending:
            anchor = ready.diagnosis.anchor if ready.diagnosis is not None else None
            moment = anchor.time if anchor is not None else None
            self.count_lines(self.ws.pending_near(moment), moment)

    @work(thread=True, exclusive=True, group="count", exit_on_error=False, name="count")
    def count_lines(self, order: list[int], moment: int | None = None) -> None:
        """Count the newlines the scan-first pass left (core.workspace.count_pending), the files
        around the anchor first. The UI thread adopts the counts (LinesCounted) once, at the
        end: an adoption moves every pane's cursor (a merged page or two each), and two of them
        made the keys pressed meanwhile wait (bench/README.md); progress meanwhile. The counts
        carry the line stamps around `moment` (the anchor's), which the panes read first."""
        worker = get_current_worker()
        total = sum(self.ws.pending.values())
        done, batch, last = 0, [], time.monotonic()
        # paused while keys arrive (_should_stop): the count is background work like the others
        for fid, state, error in self.ws.count_pending(order, lambda: self._should_stop(worker), moment):
            batch.append((fid, state, error))
            done += state.size if state is not None else 0
            if time.monotonic() - last > 0.3:
                last = time.monotonic()
                self.post_message(LinesCounted((), done, total))
        if not worker.is_cancelled:
            self.post_message(LinesCounted(tuple(batch), total, total, final=True))

    def _diagnose(self) -> DiagnosisReady:
        try:
            return DiagnosisReady(self.ws.diagnose())
        except Exception as exc:  # a bug in one rule must not take the logs away: say it, keep the panes
            return DiagnosisReady(None, f"diagnosis failed: {exc!r}")

    @work(thread=True, exclusive=True, group="sources", exit_on_error=False, name="sources")
    def build_sources(self, panes: list[str], generation: int, spec: FilterSpec) -> None:
        self._build(panes, generation, spec)

    @work(thread=True, exclusive=True, group="merged", exit_on_error=False, name="merged")
    def build_merged(self, generation: int, spec: FilterSpec) -> None:
        self._build(["merged"], generation, spec)

    def _build(self, panes: list[str], generation: int, spec: FilterSpec) -> None:
        """Build the panes' sources in turn. A filtered pane is scanned forward in time
        (core.window.ScanningSelection): it is shown after its first step and grows in order,
        with progress, instead of after a pass over every file."""
        worker = get_current_worker()
        cancelled = lambda: self._should_stop(worker)  # noqa: E731
        # first what `m` needs (it holds the time model's lock: no pause for input inside)
        views.warm_console_channels(self.ws, views.pane_files(self.ws, "merged", spec), lambda: worker.is_cancelled)
        for pane in panes:
            if cancelled():
                return
            fids = views.pane_files(self.ws, pane, spec)  # the spec it was given, not the current one
            label = dict(PANES).get(pane, pane)
            if views.needs_selection(pane, spec):
                tl: Timeline | WindowTimeline = views.chosen_lines(self.ws, pane, fids, spec)
                if not self._scan_forward(pane, tl, generation, label, cancelled):
                    return
            else:
                tl = self._whole_files(fids)
                if tl.mode == "merge" and not tl.build(lambda d, t: self.post_message(SourceProgress(label, d, t)),
                                                       cancelled):
                    return
            self.post_message(SourceReady(pane, tl, generation))
        self.post_message(SourceProgress("", 0, 0))

    def _scan_forward(self, pane: str, tl: ScanningSelection, generation: int, label: str,
                      cancelled: Callable[[], bool]) -> bool:
        """Advance the scan, showing its rows as they are merged (a few times a second)."""
        last = 0.0
        while not tl.advance(cancelled):
            if cancelled():
                return False
            now = time.monotonic()
            if now - last > 0.15:
                last = now
                done, total = tl.bytes_scanned()
                self.post_message(SourceProgress(label, done, max(total, 1)))
                self.post_message(SourceGrew(pane, tl, generation))
        return True

    @work(thread=True, exclusive=False, group="marks", exit_on_error=False, name="marks")
    def marks_worker(self, scanned: dict[int, int], file_ids: list[int] | None = None) -> None:
        """Find warning and error lines (core.views.level_marks) after `scanned[file]`;
        incremental per file, so the live tail can call it for the files that grew."""
        worker = get_current_worker()
        found = views.level_marks(self.ws, scanned, set(file_ids) if file_ids is not None else None,
                                  lambda: self._should_stop(worker))
        if found is not None:
            self.post_message(MarksReady(found))

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, name="search")
    def search_worker(self, pattern: re.Pattern[bytes], generation: int, literal: bytes | None = None,
                      term: str = "") -> None:
        worker = get_current_worker()
        matches: dict[int, array] = {}
        truncated = False
        budget = 2_000_000
        total = sum(f.size for f in self.ws.files) or 1
        done = 0
        label = "/" + term  # the term it was given, not the one typed since
        while self.ws.pending and not worker.is_cancelled:  # files not counted yet read as empty
            time.sleep(0.05)
        for idx in self.ws.indexes:
            if worker.is_cancelled:
                return
            self.post_message(SourceProgress(label, done, total))  # Escape stops it (action_close_search)
            got = scan_matching_lines(idx, pattern, lambda: self._should_stop(worker), limit=budget,
                                      literal=literal)
            if _incomplete_matches(idx, pattern, literal):  # shown as a row of its own (LogView)
                got.append(idx.newlines)
            done += self.ws.files[idx.file_id].size
            budget -= len(got)
            if got:
                matches[idx.file_id] = got
            if budget <= 0:
                truncated = True
                break
        self.post_message(SourceProgress("", 0, 0))
        self.post_message(SearchDone(matches, generation, truncated))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.notify(f"{event.worker.name} failed: {event.worker.error!r}", severity="error", markup=False)

    # ------------------------------------------------------------------ message handlers
    @while_running
    def on_index_progress(self, message: IndexProgress) -> None:
        try:
            self.query_one(StatusBar).set_progress(message.done, message.total, "indexing")
        except NoMatches:  # as above: late progress during shutdown
            return
        for v in self.views():
            # the serial pass grows the panes as it goes; the parallel one only at the end, and
            # a repaint of every pane per progress tick cost the workers CPU on the way there
            if v.display and v.count != v.virtual_size.height:
                v.refresh_count()

    @while_running
    def on_index_done(self, message: IndexDone) -> None:
        self.phase = Phase.COUNTING if self.ws.pending else Phase.READY
        self.mark_book.reset()
        self.query_one(StatusBar).set_progress(None)
        self._take_ws_problems()
        for v in self.views():
            v.invalidate_marks()
            v.refresh_count()
        # the diagnosis comes next and puts the cursors on the anchor: re-finding the line each
        # stand-in showed would be work thrown away
        self._apply_standin_sources(keep=not self._pending_anchor_jump)
        self._update_pane_visibility()
        self.query_one(SidePanel).show_pending("Diagnosing…")  # the index worker diagnoses next
        self.query_one(VerdictBar).set_pending("Diagnosing…")

    @while_running
    def on_diagnosis_ready(self, message: DiagnosisReady) -> None:
        if not gc.isenabled():  # the CLI turned it off for start-up (see cli.open_for_tui)
            self.call_after_refresh(self._restore_gc)
        start_marks = self.indexed and not self.mark_book.started
        self.mark_book.started = self.mark_book.started or start_marks
        self.diagnosis = message.diagnosis
        self.diagnosis_error = message.error
        if self.candidate_index >= len(self.candidates()):
            self.candidate_index = -1
        side = self.query_one(SidePanel)
        logs_read = bool(self.ws.files)
        side.show(message.diagnosis, message.error, logs_read)
        self.query_one(VerdictBar).show(message.diagnosis, message.error, logs_read)
        if message.diagnosis is None:
            self.notify(message.error or "diagnosis unavailable", severity="warning", markup=False)
        refs = self._anchor_refs()
        for v in self.views() + [self.view("merged")]:
            v.anchor_refs = refs
            v.clear_caches()
        if self._pending_anchor_jump and self.anchor_event() is not None:
            self._pending_anchor_jump = False
            if self.following:  # opening on the anchor means we are not at the tail
                self.following = False
                self.query_one(StatusBar).set_follow(False)
            self.cascade_index = 0
            self.jump_to_ref(self.anchor_event().ref)
            side.highlight(0)
        elif self.following:
            for v in self.visible_views():
                v.set_cursor(v.count - 1)
        rebuild = not self._diagnosed_once or self._built_files != len(self.ws.files)
        if rebuild or start_marks:
            # the level marks and merges scan every file: start them after the anchored
            # screen is painted, so they do not share the GIL with the way to it
            self._diagnosed_once = True
            self._pending_sources += 1 if rebuild else 0  # not settled until the rebuild starts
            self.call_after_refresh(self._background_after_diagnosis, rebuild, start_marks)
        elif self.cascade_index >= len(self.cascade_entries()):
            self.cascade_index = 0

    @staticmethod
    def _restore_gc() -> None:
        gc.freeze()  # what start-up built lives as long as the app: never scan it again
        gc.enable()

    @while_running
    def _background_after_diagnosis(self, rebuild: bool, start_marks: bool) -> None:
        if rebuild:  # first what `m` needs; it runs beside the count (that is in other processes)
            self.channels_worker(views.pane_files(self.ws, "merged", self.spec))
        if self.phase is Phase.COUNTING:  # merges, marks and the tail need every line: after the count
            before = self._after_count or (False, False)
            self._after_count = (rebuild or before[0], start_marks or before[1])
            return
        if self._live:
            self._start_live()
        if start_marks:
            self.marks_worker(dict(self.mark_book.scanned))
        if rebuild:
            self._pending_sources = max(self._pending_sources - 1, 0)
            self._rebuild_sources()

    @while_running
    def on_lines_counted(self, message: LinesCounted) -> None:
        """Counted files join the panes (the cursor stays on its line); the last batch starts
        the background work the count held back."""
        panes = [key for key, _ in PANES] + (["merged"] if self.merged_mode else [])
        places = self._places(panes) if message.counted else {}  # before the counts move the positions
        for fid, state, error in message.counted:
            self.ws.adopt_count(fid, state, error)
        if message.final:
            self.phase = Phase.READY
            self._take_ws_problems()
        if message.counted:  # whole-file sources read the counts as they come: only the cursors move
            counted = {fid for fid, _, _ in message.counted}
            moved = [(p, ref) for p, ref in places.items() if counted & set(self.pane_files(p))]
            self._recount = [m for m in moved if not self.view(m[0]).display] + \
                [m for m in self._recount if m[0] not in dict(moved)]
            for pane, ref in moved:  # the panes on screen now: a later frame would paint them
                if self.view(pane).display:  # from the new counts at their old rows first
                    self._follow_line(pane, ref)
            self._follow_count()
        try:
            bar = self.query_one(StatusBar)
        except NoMatches:
            return
        if message.final:
            bar.set_progress(None)
            after, self._after_count = self._after_count, None
            if after is not None:
                self._background_after_diagnosis(*after)
        else:
            bar.set_progress(message.done, max(message.total, 1), Phase.COUNTING.value)
        self._update_status()

    @while_running
    def _follow_count(self) -> None:
        """The hidden panes, one a frame: each has its rows worked out again from the counts
        and its cursor kept on the same line. With the panes on screen in one handler, that
        held a key pressed meanwhile for all of them (bench/README.md)."""
        if not self._recount:
            return
        self._follow_line(*self._recount.pop(0))
        if self._recount:
            self.call_after_refresh(self._follow_count)

    def _follow_line(self, pane: str, ref: tuple[int, int] | None) -> None:
        """The pane's rows from the counts now, its cursor on line `ref` again."""
        view = self.view(pane)
        view.clear_caches()
        view.invalidate_marks()  # their positions moved
        view.refresh_count()
        pos = view.position_of(*ref) if ref is not None else None
        if pos is not None:
            view.set_cursor(pos, center=True)

    def _places(self, panes: list[str]) -> dict[str, tuple[int, int] | None]:
        """The line under each whole-file pane's cursor (the panes a new source is due for)."""
        return {pane: self.view(pane).ref_at(self.view(pane).cursor) if self.view(pane).count else None
                for pane in panes if not self._needs_selection(pane)}

    def _merged_source(self) -> "Timeline | WindowTimeline":
        """The merged view of whole files: a console joins once its channels are worked out
        (views.orderable), the status says so until then."""
        fids = self.pane_files("merged")
        ready = views.orderable(self.ws, fids)
        self.view("merged").set_status("" if len(ready) == len(fids) else "ordering console lines…")
        return self._whole_files(ready)

    @work(thread=True, exclusive=True, group="channels", exit_on_error=False, name="channels")
    def channels_worker(self, fids: list[int]) -> None:
        """The console files' rank channels, right after the anchored screen (what `m` needs
        to place console lines); paused while keys arrive."""
        worker = get_current_worker()
        views.warm_console_channels(self.ws, fids, lambda: self._should_stop(worker))
        if not worker.is_cancelled:
            self.post_message(ChannelsReady())

    @while_running
    def on_channels_ready(self, message: ChannelsReady) -> None:
        if self.merged_mode and not self._needs_selection("merged"):  # the console joins
            self.view("merged").set_source(self._merged_source(), keep=True)
        for view in self.query(LogView):  # a console found to have no stamp drops its clock
            view.refresh_count()

    @while_running
    def on_source_progress(self, message: SourceProgress) -> None:
        try:
            bar = self.query_one(StatusBar)
        except NoMatches:  # progress from a worker can arrive while the app shuts down
            return
        if not message.label:
            bar.set_progress(None)
            return
        verb = "searching" if message.label.startswith("/") else "building"
        bar.set_progress(message.done, message.total, f"{verb} {message.label}")

    @while_running
    def on_source_grew(self, message: SourceGrew) -> None:
        """A filtered pane's scan merged more rows (in their final order): show them; a pane
        the user is not in follows the focused pane's moment."""
        if message.generation != self.generation:
            return
        view = self.view(message.pane)
        if view.timeline is not message.timeline:
            view.set_source(message.timeline, keep=True)
            view.set_status("scanning…")
        else:
            view.refresh_count()
        focused = self.focused_view()
        if focused is not None and focused is not view and view.display and focused.count and view.count:
            self._align(view, focused)

    @while_running
    def on_source_ready(self, message: SourceReady) -> None:
        if message.generation != self.generation:
            return
        self._pending_sources = max(self._pending_sources - 1, 0)
        view = self.view(message.pane)
        self._show_source(view, message.timeline)
        view.set_status("")
        grown = {f for f in message.timeline.file_ids if f in message.timeline.scanned
                 and self.ws.indexes[f].line_count > message.timeline.scanned[f]}
        if grown:  # lines appended while the scan ran (its growth was left to it): take them
            self._grow_timeline(message.pane, message.timeline, grown)
        view.anchor_refs = self._anchor_refs()
        self._relayout()  # a pane built empty shrinks to its title
        focused = self.focused_view()
        if focused is not None and focused is not view and view.display and focused.count:
            self._align(view, focused)
        if view is self.focused_view():
            self._update_status()

    @while_running
    def on_search_done(self, message: SearchDone) -> None:
        if not self.search.adopt(message.matches, message.generation):
            return
        for v in self.views() + [self.view("merged")]:
            v.invalidate_marks()
        total = self.search.total
        more = " (truncated)" if message.truncated else ""
        self.notify(f"{total:,} matching lines{more}", markup=False)
        self._goto_mark("search", True, wrap=True)

    @while_running
    def on_lines_appended(self, file_ids: "Iterable[int] | LinesAppended") -> None:
        """Public entry for the live tail: these files grew; refresh counts and follow.

        Safe from any thread: a plain call posts a `LinesAppended` message, and the message
        (posted here or by the tail itself) is handled by this same method on the UI thread.
        """
        if isinstance(file_ids, LinesAppended):
            self._apply_growth(file_ids.file_ids)
        else:
            self.post_message(LinesAppended(tuple(file_ids)))

    def _apply_growth(self, file_ids: tuple[int, ...]) -> None:
        grown = set(file_ids)
        if self.indexed and self._built_files != len(self.ws.files):
            self._rebuild_sources()  # new files (live): every pane that should show them
        if self.mark_book.ready:
            self.marks_worker(dict(self.mark_book.scanned), sorted(grown))
        for v in self.views() + [self.view("merged")]:
            tl = v.timeline
            if grown & set(tl.file_ids):
                if not getattr(tl, "scanning", False):  # a scan in progress reaches the end itself
                    self._grow_timeline(v.pane, tl, grown)
                v.invalidate_marks()
                v.refresh_count()
                if self.following:
                    v.set_cursor(v.count - 1)
        self._update_status()

    def _grow_timeline(self, pane: str, tl: "Timeline | WindowTimeline", grown: set[int]) -> None:
        """Take the new lines of grown files: chosen with the filter the pane was built with
        (the spec changes rebuild the panes, so the current one is it), merged at the end."""
        if tl.selection is not None:
            views.choose_new_lines(self.ws, pane, tl, grown, self.spec)
        if tl.mode == "merge":
            tl.build()

    # ------------------------------------------------------------------ anchor and cascade
    def anchor_event(self) -> ErrorEvent | None:
        return self.diagnosis.anchor if self.diagnosis is not None else None

    def _anchor_refs(self) -> frozenset[tuple[int, int]]:
        ev = self.anchor_event()
        if ev is None:
            return frozenset()
        refs = {(r.file_id, r.line) for r in (ev.lines or [])}
        refs.add((ev.ref.file_id, ev.ref.line))
        return frozenset(refs)

    def _no_anchor_reason(self) -> str:
        """Why there is no anchor, truly: the diagnosis failed, is still running, found no log
        file to read, or read logs that hold no error."""
        if self.diagnosis_error:
            return self.diagnosis_error
        if self.diagnosis is None:
            return "the diagnosis is still running"
        if not self.ws.files:
            return "no log files found in the inputs"
        return "no error found in the logs read"

    def cascade_entries(self) -> list[ErrorEvent]:
        if self.diagnosis is None:
            return []
        out = [self.diagnosis.anchor] if self.diagnosis.anchor is not None else []
        return out + list(self.diagnosis.cascade)

    def jump_to_ref(self, ref: LineRef, quiet: bool = False) -> LogView | None:
        """Bring the line to the cursor of the best pane and align the others on it."""
        fid, line = ref.file_id, ref.line
        views = self.visible_views()
        if not views:
            return None
        preferred = "merged" if self.merged_mode else _STREAM_PANE.get(self.ws.source_of_file(fid).stream, "")
        order = sorted(views, key=lambda v: v.pane != preferred)
        for v in order:
            pos = v.position_of(fid, line)
            if pos is not None:
                v.focus()
                v.set_cursor(pos, center=True)
                self._follow_later(v)
                self._update_status()
                return v
        # the line is hidden (ranks/filters) or not merged yet: go to the same moment
        t = self.ws.times.line_time(fid, line).us
        target = order[0]
        if t is not None:
            target.focus()
            target.set_cursor(target.timeline.position_at_time(t), center=True)
            self._follow_later(target)
        if not quiet:
            self.notify("that line is not shown (filters or ranks); moved to the same moment", markup=False)
        self._update_status()
        return target

    def _align(self, view: LogView, source: LogView) -> None:
        pos = views.aligned_position(view.timeline, source.ref_at(source.cursor), source.time_at(source.cursor))
        if pos is not None:
            view.set_cursor(pos, center=True)

    def _jump_cascade(self, index: int) -> None:
        entries = self.cascade_entries()
        if not entries:
            self.notify(f"no anchor / cascade: {self._no_anchor_reason()}", markup=False)
            return
        index = max(0, min(index, len(entries) - 1))
        self.cascade_index = index
        self.jump_to_ref(entries[index].ref)
        self.query_one(SidePanel).highlight(index)
        self._update_status()

    def candidates(self) -> list[Candidate]:
        return list(self.diagnosis.candidates) if self.diagnosis is not None else []

    def _jump_candidate(self, index: int) -> None:
        """Walk the lines that lost to the anchor (wrapping), jump the panes to each, and say
        why it lost: the user checks the tool's reasoning line by line."""
        cands = self.candidates()
        if not cands:
            self.notify("no candidates: nothing competes with the anchor" if self.anchor_event() is not None
                        else f"no anchor: {self._no_anchor_reason()}", markup=False)
            return
        index %= len(cands)
        self.candidate_index = index
        cand = cands[index]
        from npudiag_tui.core.diagnosis.engine import anchor_ref  # loaded with the diagnosis already

        self.jump_to_ref(anchor_ref(cand.event))
        self.query_one(SidePanel).mark_candidate(index)
        self.notify(f"candidate {index + 1}/{len(cands)}: {cand.why_not}", markup=False)

    def action_next_candidate(self) -> None:
        self._jump_candidate(self.candidate_index + 1)

    def action_prev_candidate(self) -> None:
        self._jump_candidate(self.candidate_index - 1 if self.candidate_index >= 0 else -1)

    @on(SidePanel.EntryChosen)
    def _entry_chosen(self, message: SidePanel.EntryChosen) -> None:
        self._jump_cascade(message.index)

    @on(LogView.CursorMoved)
    def _cursor_moved(self, message: LogView.CursorMoved) -> None:
        view = message.view
        if self.following and view.cursor < view.count - 1:
            self.following = False
            self.query_one(StatusBar).set_follow(False)
        self._follow_later(view)
        self._update_status()

    def _follow_later(self, view: LogView) -> None:
        """The other panes follow `view` after its move is on screen, so the key's own answer
        never waits for them, and a held key's moves are aligned once, for the last of them."""
        pending, self._sync_source = self._sync_source, view
        if pending is None:
            self.call_after_refresh(self._sync_later)

    _sync_source: LogView | None = None
    """The pane whose cursor the others are still to follow (_follow_later)."""
    _align_generation = 0  # the latest alignment asked for
    _aligned_generation = 0  # the latest one the panes show

    @while_running
    def _sync_later(self) -> None:
        """Work out the other panes' positions in a worker (align_worker): a cold moment in a
        merged pane reads and parses blocks of every file (bench/README.md), and the keys
        pressed meanwhile are not kept waiting for it."""
        source, self._sync_source = self._sync_source, None
        if source is None or not source.is_mounted or not source.count:
            return
        targets = [(v.pane, v.timeline) for v in self.visible_views() if v is not source and v.count]
        self._align_generation += 1
        if targets:
            self.align_worker(source.ref_at(source.cursor), source.time_at(source.cursor), targets,
                              self._align_generation)
        else:
            self._aligned_generation = self._align_generation

    @work(thread=True, exclusive=True, group="align", exit_on_error=False, name="align")
    def align_worker(self, ref: tuple[int, int] | None, when: int | None, targets: list[tuple[str, object]],
                     generation: int) -> None:
        """The other panes' positions for a move, and their rows warmed; it waits while keys
        arrive (_should_stop): a key's own frame comes first, the panes follow after it."""
        worker = get_current_worker()
        out: list[tuple[str, object, int | None]] = []
        try:
            for pane, timeline in targets:
                if self._should_stop(worker):
                    return
                pos = views.aligned_position(timeline, ref, when)
                if pos is not None and not self._should_stop(worker):
                    views.warm_rows_around(timeline, pos)  # the rows the pane shows: not on the interface thread
                out.append((pane, timeline, pos))
        finally:  # a failure still answers (with the panes worked out)
            if not worker.is_cancelled:
                self.post_message(PanesAligned(generation, out))

    @while_running
    def on_panes_aligned(self, message: PanesAligned) -> None:
        self._show_alignment(message.generation, message.positions)

    def _show_alignment(self, generation: int, positions: list) -> None:
        if generation != self._align_generation or self._aligned_generation == generation:
            return  # a later move asked for another moment, or these are on screen already
        self._aligned_generation = generation
        for pane, timeline, pos in positions:
            view = self.view(pane)
            if pos is not None and view.timeline is timeline and view.display:
                view.set_cursor(pos, center=True)

    @while_running
    def on_descendant_focus(self) -> None:
        try:
            focused = self.focused
        except ScreenStackError:  # focus events can still arrive while the app shuts down
            return
        if isinstance(focused, LogView):
            self._last_view = focused
        self._update_status()

    def _update_status(self) -> None:
        view = self.focused_view()
        bar = self.query_one(StatusBar)
        if view is None:
            bar.set_text("no log files")
            return
        text = Text()
        text.append(f"{view.title} ", "bold")
        # a search waits for the count (uncounted files read as empty): seconds on a 1 GB tree,
        # said first, where a narrow terminal keeps it (the count's progress is beside it)
        waiting = self.search.running and bool(self.ws.pending)
        if waiting:
            text.append(f"/{visible(self.search.term)} search: waiting for the line count…  ", "magenta")
        elif self.phase is Phase.COUNTING:  # positions and totals are not final yet
            text.append(f"{Phase.COUNTING.value}… ", "dim")
        else:
            text.append(f"{view.cursor + 1 if view.count else 0:,}/{view.count:,} ")
        ref = view.ref_at(view.cursor)
        when = self.ws.times.line_time(*ref) if ref is not None else None
        if when is not None and when.us is not None:
            text.append(f"{'~' if when.estimated else ''}{format_us(when.us)} ", "cyan")
        # short facts first, the file path last: a narrow terminal cuts the end of the line
        if self.search.term and not waiting:
            times = self.ws.times
            hit = self.search.position(ref, lambda f, ln: times.line_time(f, ln).us)
            text.append(f"/{visible(self.search.term)} {hit}  ", "magenta")
        entries = self.cascade_entries() if self.diagnosis is not None else []
        if entries and self.cascade_index >= 0:
            text.append(f"cascade {min(self.cascade_index, len(entries) - 1) + 1}/{len(entries)}  ", "yellow")
        if self.marks_in_focused_only:
            text.append("e/w/n: this pane  ", "dim")
        if self.spec.describe():
            text.append(f"filter: {visible(self.spec.describe())}  ", "yellow")
        if ref is not None:
            text.append(f"{visible(self.ws.files[ref[0]].display)}:{ref[1] + 1}", "dim")
        bar.set_text(text)

    # ------------------------------------------------------------------ marks (errors, warnings, search)
    # A mark is a line the e/E, w/W and n/N keys walk: (file id, line, level) for the level
    # marks, the search's matching lines for the "search" kind.
    @while_running
    def on_marks_ready(self, message: MarksReady) -> None:
        self.mark_book.adopt(message.marks)
        for v in self.views() + [self.view("merged")]:
            v.invalidate_marks()

    def _mark_refs(self, kind: str) -> "Sequence[tuple[int, int]]":
        """The lines a kind of mark walks: level marks (the marks worker's once it finished, the
        engine's scan until then) or search hits."""
        if kind in ("errors", "warnings"):
            return self.mark_book.refs(self.ws, self.indexed, kind)
        if kind == "search":
            return self.search.refs()
        return []

    def _next_mark_in(self, view: LogView, kind: str, forward: bool, wrap: bool,
                      cursor: int | None = None) -> int | None:
        """The position of the next (previous) mark of `kind` after (before) `cursor` (the
        view's own cursor when None)."""
        cursor = view.cursor if cursor is None else cursor
        if isinstance(view.timeline, WindowTimeline):  # no position per mark (core.window)
            refs = self._mark_refs(kind)
            pos = view.timeline.next_position(refs, cursor, forward)
            if pos is None and wrap and refs and view.count:
                pos = view.timeline.next_position(refs, 0 if forward else view.count - 1, forward)
                if pos is None:
                    pos = view.timeline.position_of(*(refs[0] if forward else refs[-1]))
            return pos
        if self.indexed and not view.has_incomplete_rows():
            # per file only the mark next to the cursor: a big pane's tens of thousands of marks
            # are not positioned for one key
            refs = self._mark_refs(kind)
            pos = view.timeline.next_position(refs, cursor, forward)
            if pos is None and wrap:
                pos = view.timeline.next_position(refs, -1 if forward else len(view.timeline), forward)
            return pos
        marks = view.marks(kind, lambda: self._mark_refs(kind)) if self.indexed else \
            view.positions_of(self._mark_refs(kind))
        pos = views.next_mark(marks, cursor, forward)
        if pos is None and wrap and marks:
            pos = marks[0] if forward else marks[-1]
        return pos

    def _goto_mark(self, kind: str, forward: bool, wrap: bool = False) -> None:
        """Move to the next mark in time order over every visible pane, or in the focused pane
        only when `x` says so (#11 item 5). Each other pane's walk starts at the moment the
        focused pane is on (views.mark_walk_start; a merged pane's by the files' counts there,
        views.window_mark_from_moment), whether or not it has followed there yet: worked out
        here, never waiting for the alignment worker. Marks at one moment are ordered by pane,
        so e and E walk one order and come back the same way."""
        focused = self.focused_view()
        if focused is None:
            return
        panes = [focused]
        if not self.marks_in_focused_only:
            panes += [v for v in self.visible_views() if v is not focused and v.count]
        order = {id(v): k for k, v in enumerate(self.visible_views())}
        own = order.get(id(focused), -1)
        ref, when = focused.ref_at(focused.cursor), focused.time_at(focused.cursor)
        none = (1 << 62) if forward else -(1 << 62)  # a mark without a time sorts last
        # each pane's find: (sort, view, position or None, line); a merged pane's position is
        # worked out for the winner only (its pages around another pane's moment are cold)
        best: tuple[tuple[int, int], LogView, int | None, tuple[int, int] | None] | None = None
        mine: tuple[tuple[int, int] | None, int] | None = None  # the focused pane's own find: line, position
        for view in panes:
            pos: int | None = None
            ties_ahead = (order.get(id(view), -1) > own) == forward  # the pane order breaks ties of time
            if view is focused:
                pos = self._next_mark_in(view, kind, forward, wrap and len(panes) == 1)
                line = None if pos is None else view.ref_at(pos)
                mine = None if pos is None else (line, pos)
            elif isinstance(view.timeline, WindowTimeline):
                line = views.window_mark_from_moment(view.timeline, self._mark_refs(kind), ref, when, forward,
                                                     ties_ahead)
            else:
                start = views.mark_walk_start(view.timeline, ref, when, forward, ties_ahead)
                pos = self._next_mark_in(view, kind, forward, False, start)
                line = None if pos is None else view.ref_at(pos)
            if line is None and pos is None:
                continue
            t = view.time_at(pos) if pos is not None else views.line_time_or_none(view.timeline, line)
            sort = (none if t is None else t, order.get(id(view), -1))
            if best is None or (sort < best[0]) == forward:
                best = (sort, view, pos, line)
        if best is not None and best[1] is not focused and mine is not None and best[3] == mine[0]:
            best = (best[0], focused, mine[1], mine[0])  # the same line in two panes: stay in this one
        if best is not None and best[2] is None and best[3] is not None:
            found = best[1].timeline.position_of(*best[3])
            best = None if found is None else (best[0], best[1], found, best[3])
        if best is None and wrap and len(panes) > 1:
            pos = self._next_mark_in(focused, kind, forward, True)
            best = None if pos is None else ((0, 0), focused, pos, focused.ref_at(pos))
        if best is None:
            names = {"errors": "error", "warnings": "warning", "search": "search hit"}
            where = "after" if forward else "before"
            scope = f"in {focused.title}" if len(panes) == 1 else "in any pane"
            self.notify(f"no {names[kind]} {where} the cursor {scope}", markup=False)
            return
        view, pos = best[1], best[2]
        assert pos is not None
        if view is not focused:
            view.focus()
            self._last_view = view
        view.set_cursor(pos, center=True)
        if kind == "search":
            view.scroll_match_visible(pos)
        self._follow_later(view)
        self._update_status()

    def action_toggle_mark_scope(self) -> None:
        self.marks_in_focused_only = not self.marks_in_focused_only
        self.notify("e/w/n walk the focused pane only" if self.marks_in_focused_only
                    else "e/w/n walk all panes in time order", markup=False)
        self._update_status()

    # ------------------------------------------------------------------ actions
    def action_next_error(self) -> None:
        self._goto_mark("errors", True)

    def action_prev_error(self) -> None:
        self._goto_mark("errors", False)

    def action_next_warning(self) -> None:
        self._goto_mark("warnings", True)

    def action_prev_warning(self) -> None:
        self._goto_mark("warnings", False)

    def action_jump_anchor(self) -> None:
        if self.anchor_event() is None:
            self.notify(self._no_anchor_reason(), markup=False)
            return
        self._jump_cascade(0)

    def action_next_cascade(self) -> None:
        self._jump_cascade(self.cascade_index + 1)

    def action_prev_cascade(self) -> None:
        self._jump_cascade(self.cascade_index - 1)

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.display = True
        box.value = self.search.term
        # now, not after the queue (`focus()` defers): keys typed right after `/` are the term's
        self.set_focus(box)

    def action_close_search(self) -> None:
        """Escape: closes the search box, else stops a search still running."""
        box = self.query_one("#search", Input)
        if not box.display and self.search.running:
            self.workers.cancel_group(self, "search")
            self.search.stop()
            self.query_one(StatusBar).set_progress(None)
            self.notify(f"search /{self.search.term} stopped", markup=False)
            self._update_status()
            return
        if box.display:
            box.display = False
            view = self.focused_view() or (self.visible_views() or [None])[0]
            if view is not None:
                view.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        term = event.value
        self.action_close_search()
        self.start_search(term)

    def start_search(self, term: str) -> None:
        generation = self.search.start(term)
        for v in self.views() + [self.view("merged")]:
            v.invalidate_marks()
        if not term:
            for v in self.views() + [self.view("merged")]:
                v.search_re = None
                v.clear_caches()
            self._update_status()
            return
        str_re, bytes_re = views.compile_search(term)
        # smart case (as the filter's regex): a capital letter makes the search case-sensitive
        sensitive = any(c.isupper() for c in re.sub(r"\\.", "", term))
        if sensitive:
            str_re, bytes_re = re.compile(str_re.pattern), re.compile(bytes_re.pattern, re.M)
        for v in self.views() + [self.view("merged")]:
            v.search_re = str_re
            v.clear_caches()
        self._update_status()
        # plain words: a lower-cased substring search is far faster than re.I over gigabytes
        literal = None if sensitive or re.search(r"[\\^$.|?*+()\[\]{}]", term) else term.lower().encode("utf-8")
        self.search_worker(bytes_re, generation, literal, term)

    def action_next_hit(self) -> None:
        if self.search.matches is None:
            self.notify("no search yet (press /)" if not self.search.term else "searching…", markup=False)
            return
        self._goto_mark("search", True)

    def action_prev_hit(self) -> None:
        if self.search.matches is None:
            self.notify("no search yet (press /)" if not self.search.term else "searching…", markup=False)
            return
        self._goto_mark("search", False)

    def action_filter(self) -> None:
        panes = [(k, t) for k, t in PANES if k != "hccl" or self.pane_files("plog") or self.pane_files("device")]
        self.push_screen(FilterScreen(self.spec, panes), self._filter_chosen)

    def _filter_chosen(self, spec: FilterSpec | None) -> None:
        if spec is None:
            return
        self.apply_filter(spec)

    def apply_filter(self, spec: FilterSpec) -> None:
        self.spec = spec
        self._merged_generation = -1
        self._rebuild_sources()
        views = self.visible_views()
        if views and not (isinstance(self.focused, LogView) and self.focused.display):
            views[0].focus()
        self._update_status()
        if spec.describe():
            self.notify(f"filter: {spec.describe()}", markup=False)

    def action_clear_filters(self) -> None:
        self.apply_filter(FilterSpec())

    def action_choose_ranks(self) -> None:
        ranks = sorted({s.rank for s in self.ws.sources if s.rank is not None})
        if not ranks:
            self.notify("no rank information in these logs", markup=False)
            return
        labels = []
        for r in ranks:
            pids = sorted({s.pid for s in self.ws.sources if s.rank == r and s.pid is not None})
            labels.append((r, f"rank {r}  pid {','.join(map(str, pids))}"))
        self.push_screen(RankScreen(labels, self.spec.ranks), self._ranks_chosen)

    def _ranks_chosen(self, ranks: Any) -> None:
        if ranks is False:
            return
        spec = dataclasses.replace(self.spec, ranks=ranks)
        self.apply_filter(spec)

    def action_toggle_merged(self) -> None:
        current = self.focused_view()
        self.merged_mode = not self.merged_mode
        merged = self.view("merged")
        self._update_pane_visibility()
        if self.merged_mode:
            if self._merged_generation != self.generation:
                self._merged_generation = self.generation
                fids = self.pane_files("merged")
                selects = self._needs_selection("merged")
                if selects or not self.indexed:
                    merged.set_source(Timeline(self.ws, fids, mode="concat") if not selects
                                      else Timeline(self.ws, []), keep=False)
                    merged.set_status("building…")
                    if self.phase is Phase.READY:  # else the count's end builds it (_rebuild_sources)
                        self._pending_sources += 1
                        self.build_merged(self.generation, self.spec)
                else:  # in time order at once, served from the block index (core.window)
                    merged.set_source(self._merged_source(), keep=False)
            merged.anchor_refs = self._anchor_refs()
            merged.focus()
            if current is not None and current.count:
                ref = current.ref_at(current.cursor)
                pos = merged.timeline.position_of(*ref) if ref else None
                if pos is None:
                    when = current.time_at(current.cursor)
                    pos = merged.timeline.position_at_time(when) if when is not None else 0
                merged.set_cursor(pos, center=True)
                self.call_after_refresh(merged.scroll_cursor_visible, True)
        else:
            ref = merged.ref_at(merged.cursor)
            views = self.visible_views()
            if ref is not None and views:
                target = self.jump_to_ref(LineRef(*ref), quiet=True)
                for v in views:
                    self.call_after_refresh(v.scroll_cursor_visible, v is target or v._centered)
            elif views:
                views[0].focus()
        self._update_status()

    def action_toggle_layout(self) -> None:
        order = [None, "side", "stacked"]
        self.layout_mode = order[(order.index(self.layout_mode) + 1) % 3 if self.layout_mode in order else 0]
        self._relayout()
        self.notify({None: "layout: chosen by width", "side": "layout: panes side by side",
                     "stacked": "layout: panes stacked"}[self.layout_mode], markup=False)
        for v in self.visible_views():
            self.call_after_refresh(v.scroll_cursor_visible, True)

    def _set_line_mode(self, name: str, on: bool, said: str) -> None:
        """A display mode of every pane's lines (LogView.set_raw / set_wrap), with a notice."""
        for v in self.views() + [self.view("merged")]:
            getattr(v, f"set_{name}")(on)
        self.notify(said, markup=False)

    def action_toggle_raw(self) -> None:
        self.raw_lines = not self.raw_lines
        self._set_line_mode("raw", self.raw_lines, "raw lines, as written (R: compact)" if self.raw_lines
                            else "compact lines: time, level, module, message (R: raw)")

    def action_toggle_wrap(self) -> None:
        self.wrap_selected = not self.wrap_selected
        self._set_line_mode("wrap", self.wrap_selected, "the selected line is shown whole (z: one row)"
                            if self.wrap_selected else "one row per line (z: wrap the selected line)")

    def action_toggle_wrap_all(self) -> None:
        self.wrap_all = not self.wrap_all
        self._set_line_mode("wrap_all", self.wrap_all, "every line wrapped to the pane (Z: one row per line)"
                            if self.wrap_all else "one row per line (Z: wrap every line)")

    def action_toggle_panel(self) -> None:
        side = self.query_one("#side")
        self._panel_choice = not side.display
        self._relayout()
        if side.has_class("-whole"):
            side.focus()  # arrows scroll the verdict, next action, evidence
        elif self.focused is side or self.focused is None:
            view = self.focused_view()
            if view is not None:
                view.focus()

    def action_focus_cascade(self) -> None:
        self._panel_choice = True
        self._relayout()
        self.query_one("#cascade", OptionList).focus()

    def action_toggle_follow(self) -> None:
        self.following = not self.following
        self.query_one(StatusBar).set_follow(self.following)
        if self.following:
            for v in self.visible_views():
                v.set_cursor(v.count - 1)
        self._update_status()

    def _cycle(self, step: int) -> None:
        views = [v for v in self.visible_views() if v.focusable]
        if not views:
            return
        current = self.focused
        k = views.index(current) if current in views else -1
        views[(k + step) % len(views)].focus()
        self._update_status()

    def action_next_pane(self) -> None:
        self._cycle(1)

    def action_prev_pane(self) -> None:
        self._cycle(-1)

    def action_copy_line(self) -> None:
        view = self.focused_view()
        ref = view.ref_at(view.cursor) if view else None
        if ref is None:
            return
        from npudiag_tui.tui import clipboard

        line = self.ws.indexes[ref[0]].line(ref[1])
        self.copy_to_clipboard(line)  # OSC 52: the terminal may or may not take it
        self.notify(clipboard.copy_notice(clipboard.to_tmux_buffer(line), clipboard.save_line(line)),
                    markup=False, timeout=6)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())


def _incomplete_matches(idx: Any, pattern: re.Pattern[bytes], literal: bytes | None) -> bool:
    """Whether a followed file's last line without its newline yet matches the search."""
    text = idx.partial_line()
    if text is None:
        return False
    raw = text.encode("utf-8", "replace")
    return literal in raw.lower() if literal is not None else pattern.search(raw) is not None


def run_tui(workspace: Workspace | Sequence[str], stdout: Sequence[str] | None = None,
            registry_files: Sequence[str] | None = None, follow: bool = True) -> int:
    """Entry point for the CLI: run the app on an opened workspace (or open the paths)."""
    if isinstance(workspace, Workspace):
        ws = workspace
    else:
        ws = Workspace.open(list(workspace), list(stdout or []), list(registry_files or []))
    try:
        app = NpuDiagApp(ws, follow=follow)
        app.run()
    finally:
        ws.close()
    return 0
