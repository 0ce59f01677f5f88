"""What a pane shows, decided without a terminal: its files, its filter, its timeline, its marks.

The TUI is glue over these functions (docs/architecture.md, "Layers"): a pane's files follow
from its streams and the filter; a filter compiles to a C-speed bytes prefilter plus an exact
check on the decoded line; whole files are served a window at a time (`core.window`), chosen
lines by a scan that goes forward in time (`ScanningSelection`). Pure Python: no Textual, no rich.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from npudiag_tui.core.formats.console import console_rank
from npudiag_tui.core.index import UnreadableFile
from npudiag_tui.core.formats.levels import line_level, prefilter
from npudiag_tui.core.model import Level, Stream
from npudiag_tui.core.timeline import Cancelled, Timeline, scan_matching_lines
from npudiag_tui.core.window import ScanningSelection, WindowTimeline, console_order

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

PANES: list[tuple[str, str]] = [("console", "console"), ("plog", "plog"), ("hccl", "HCCL"), ("device", "device")]
PANE_STREAMS = {
    "console": {Stream.STDOUT},
    "plog": {Stream.PLOG},
    "hccl": {Stream.PLOG, Stream.DEVICE},
    "device": {Stream.DEVICE},
    "merged": {Stream.STDOUT, Stream.PLOG, Stream.DEVICE},
}
STREAM_PANE = {Stream.STDOUT: "console", Stream.PLOG: "plog", Stream.DEVICE: "device"}
# Plog-grammar patterns start with a literal newline and are searched with
# `scan_matching_lines(line_start=True)`: the literal prefix lets the regex engine skip at C
# speed, where `^` with re.M made the HCCL view take 14 s over the 1 GB bench tree.
HCCL_RE = re.compile(rb"\n\[[A-Z]+\] (?:HCC[LP]\(|OP\([^\n]*Hccl)")
_MODULE_STR = re.compile(r"^\[[A-Z]+\] ([A-Z][A-Z0-9_]*)\(")
_EVERY_LINE = re.compile(rb"\n")

LineFilter = tuple[re.Pattern[bytes], Callable[[str], bool] | None, bool]


@dataclass
class FilterSpec:
    """What the panes show. Empty means everything."""

    min_level: int = 0
    ranks: frozenset[int] | None = None
    module: str = ""
    regex: str = ""
    hidden: frozenset[str] = field(default_factory=frozenset)

    @property
    def line_filter(self) -> bool:
        """True when lines inside a pane are filtered (not just which panes/ranks are shown)."""
        return bool(self.min_level or self.module or self.regex)

    def describe(self) -> str:
        parts = []
        if self.min_level:
            parts.append(f"level>={Level(self.min_level).name.lower()}")
        if self.hidden:
            parts.append("hide " + ",".join(sorted(self.hidden)))
        if self.ranks is not None:
            parts.append("ranks " + ",".join(map(str, sorted(self.ranks))))
        if self.module:
            parts.append(f"module={self.module}")
        if self.regex:
            parts.append(f"/{self.regex}/")
        return " ".join(parts)


def compile_search(term: str) -> tuple[re.Pattern[str], re.Pattern[bytes]]:
    """A case-insensitive regex for the term; an invalid regex is searched literally."""
    try:
        return re.compile(term, re.I), re.compile(term.encode("utf-8"), re.I | re.M)
    except (re.error, ValueError):
        lit = re.escape(term)
        return re.compile(lit, re.I), re.compile(lit.encode("utf-8"), re.I | re.M)


def pane_files(ws: "Workspace", pane: str, spec: FilterSpec) -> list[int]:
    """The files a pane shows: its streams, minus hidden panes (merged) and other ranks."""
    streams = PANE_STREAMS[pane]
    out = []
    for src in ws.sources:
        if src.stream not in streams:
            continue
        if pane == "merged" and STREAM_PANE[src.stream] in spec.hidden:
            continue
        if spec.ranks is not None and src.stream is not Stream.STDOUT and src.rank not in spec.ranks:
            continue
        out.extend(f.file_id for f in src.files)
    return out


def needs_selection(pane: str, spec: FilterSpec) -> bool:
    """Whether the pane shows chosen lines rather than whole files."""
    return pane == "hccl" or spec.line_filter or (spec.ranks is not None and pane in ("console", "merged"))


def filters_file(pane: str, stream: Stream, spec: FilterSpec) -> bool:
    """Whether the file's lines are chosen one by one; the rank filter alone picks whole
    plog/device files (by their rank) and only console lines one by one."""
    return pane == "hccl" or spec.line_filter or stream is Stream.STDOUT


def line_filter(pane: str, stream: Stream, spec: FilterSpec) -> LineFilter:
    """(bytes prefilter regex, exact predicate on the decoded line or None, whether the
    regex is a line-start one) for one file. The text regex, else the first other filter,
    provides the prefilter; the other filters are checked exactly on its hits."""
    checks: list[Callable[[str], bool]] = []
    pattern: re.Pattern[bytes] | None = None
    line_start = False
    if spec.regex:
        try:
            pattern = re.compile(spec.regex.encode("utf-8"), re.M)
        except re.error:
            pattern = re.compile(re.escape(spec.regex).encode("utf-8"), re.M)
    if pane == "hccl" and pattern is None:
        pattern, line_start = HCCL_RE, True
    elif pane == "hccl":
        checks.append(lambda s: HCCL_RE.match(b"\n" + s[:2000].encode("utf-8", "replace")) is not None)
    if spec.module:
        mod = spec.module
        checks.append(lambda s: (m := _MODULE_STR.match(s)) is not None and m.group(1) == mod)
        if pattern is None:
            pattern = re.compile(rb"\n\[[A-Z]+\] " + re.escape(mod.encode()) + rb"\(")
            line_start = True
    if spec.ranks is not None and stream is Stream.STDOUT:
        ranks = spec.ranks  # a console line is hidden only when it names another rank
        checks.append(lambda s: (r := console_rank(s)) is None or r in ranks)
    if spec.min_level:
        lvl = spec.min_level
        checks.append(lambda s: line_level(s, stream) >= lvl)
        if pattern is None:
            pattern, line_start = prefilter(stream, Level(lvl))
    if pattern is None:
        pattern, line_start = _EVERY_LINE, True
    if not checks:
        return pattern, None, line_start
    return pattern, (lambda s: all(c(s) for c in checks)), line_start


def whole_files(ws: "Workspace", fids: Sequence[int], indexed: bool) -> "Timeline | WindowTimeline":
    """Whole files in time order: one source is its own order; several are merged a window
    at a time from the block index once it is built (core.window), no full merge. While
    the index pass runs, the files one after another stand in."""
    tl = Timeline(ws, fids)
    if tl.mode != "merge":
        return tl
    return WindowTimeline(ws, fids) if indexed else Timeline(ws, fids, mode="concat")


def chosen_lines(ws: "Workspace", pane: str, fids: Sequence[int], spec: FilterSpec) -> ScanningSelection:
    """A filtered pane (a filter, the HCCL view): its lines chosen by a scan forward in time;
    `advance()` / `run()` it in a worker, its rows are in order from the first step."""

    def chooser(fid: int) -> LineFilter | None:
        stream = ws.source_of_file(fid).stream
        return line_filter(pane, stream, spec) if filters_file(pane, stream, spec) else None

    return ScanningSelection(ws, fids, chooser)


def choose_new_lines(ws: "Workspace", pane: str, tl: Timeline, grown: set[int], spec: FilterSpec) -> None:
    """Choose the new lines of grown files (live tail) with the filter the pane was built
    with, and hand them to the timeline; `tl.build()` then merges them at its end."""
    for fid in sorted(grown & set(tl.file_ids)):
        if fid not in tl.scanned:
            continue  # a whole file in this view (rank filter): build() takes its new lines
        idx = ws.indexes[fid]
        end = idx.line_count
        start = tl.scanned[fid]
        if end <= start:
            continue
        pattern, predicate, line_start = line_filter(pane, ws.source_of_file(fid).stream, spec)
        times = array("q")
        lines = scan_matching_lines(idx, pattern, None, predicate, start=start, line_start=line_start,
                                    times=times, stop=end)
        tl.extend_selection(fid, lines, times if len(times) == len(lines) else None, end)


LevelMarks = dict[int, tuple[int, list[tuple[int, int]]]]


def level_marks(ws: "Workspace", scanned: dict[int, int], file_ids: set[int] | None = None,
                cancelled: Cancelled | None = None) -> LevelMarks | None:
    """Warning and error lines per file (C-speed prefilter, exact level on the hits), from the
    line after `scanned[file]` on: file id -> (lines scanned to, [(line, level)]). None when
    cancelled. Incremental, so the live tail asks only for the files that grew."""
    found: LevelMarks = {}
    for src in ws.sources:
        pattern, line_start = prefilter(src.stream, Level.WARNING)
        stream = src.stream
        for f in src.files:
            if file_ids is not None and f.file_id not in file_ids:
                continue
            if cancelled is not None and cancelled():
                return None
            idx = ws.indexes[f.file_id]
            end = idx.line_count
            levels: list[int] = []

            def keep(text: str, levels: list[int] = levels, stream: Stream = stream) -> bool:
                lvl = int(line_level(text, stream))
                if lvl >= Level.WARNING:
                    levels.append(lvl)
                    return True
                return False

            lines = scan_matching_lines(idx, pattern, cancelled, keep, start=scanned.get(f.file_id, 0),
                                        line_start=line_start, stop=end)
            found[f.file_id] = (end, list(zip(lines, levels)))
    return found


def scan_level_marks(ws: "Workspace") -> list[tuple[int, int, int]]:
    """(file, line, level) of the engine's scan hits: the level marks until `level_marks` ran."""
    out = []
    for scan in ws.scans:
        for h in list(scan.hits):
            out.append((h.file_id, h.line, int(line_level(h.text, scan.stream))))
    return out


class MarkRefs:
    """(file, line) pairs kept as two arrays: a big tree has a hundred thousand level marks, and
    a list of tuples costs about eight times the memory. Iterates and indexes as pairs."""

    __slots__ = ("files", "lines")

    def __init__(self) -> None:
        self.files = array("I")
        self.lines = array("I")

    def append(self, file_id: int, line: int) -> None:
        self.files.append(file_id)
        self.lines.append(line)

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self):
        return zip(self.files, self.lines)

    def __getitem__(self, k: int) -> tuple[int, int]:
        return self.files[k], self.lines[k]


class MarkBook:
    """The level marks the e/E and w/W keys walk, as the interface knows them: the engine's scan
    hits until the marks worker's pass (`level_marks`, incremental per file for the live tail)
    has arrived, then that pass's. Pure, so the app only asks and hands answers over."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget every mark (a new index pass): the worker is to be started again."""
        self.started = False  # the marks worker was asked for
        self.ready = False  # its answer arrived: the marks are the full pass's
        self.scanned: dict[int, int] = {}  # file id -> lines the worker has read
        self._marks = _Marks()
        self._scan: _Marks | None = None
        # kind -> (the marks it was read from, their count then, the refs): e/E and w/W read the
        # refs at every press
        self._refs: dict[str, tuple[_Marks, int, MarkRefs]] = {}

    def adopt(self, found: LevelMarks) -> None:
        """Take a `level_marks` answer; a file's lines already read are not added twice."""
        for fid, (end, items) in found.items():
            if end <= self.scanned.get(fid, 0):
                continue
            self.scanned[fid] = end
            for line, lvl in items:
                self._marks.append(fid, line, lvl)
        self.ready = True
        for kind in ("errors", "warnings"):  # now, not at the next e or w press
            self._refs_of(self._marks, kind)

    def refs(self, ws: "Workspace", indexed: bool, kind: str) -> MarkRefs:
        """(file, line) of the current marks of `kind` ("errors": ERROR and above, "warnings"),
        worked out once per change of the marks."""
        return self._refs_of(self._current(ws, indexed), kind)

    def _refs_of(self, marks: "_Marks", kind: str) -> MarkRefs:
        got = self._refs.get(kind)
        if got is not None and got[0] is marks and got[1] == len(marks):
            return got[2]
        refs = MarkRefs()
        for f, ln, lv in marks:
            if (lv >= Level.ERROR) if kind == "errors" else (lv == Level.WARNING):
                refs.append(f, ln)
        self._refs[kind] = (marks, len(marks), refs)
        return refs

    def current(self, ws: "Workspace", indexed: bool) -> list[tuple[int, int, int]]:
        """(file, line, level) of every mark known now: the worker's once it answered, else the
        engine's scan hits (kept once the index pass is complete)."""
        return list(self._current(ws, indexed))

    def _current(self, ws: "Workspace", indexed: bool) -> "_Marks":
        if self.ready:
            return self._marks
        if self._scan is not None and indexed:
            return self._scan
        out = _Marks()
        for f, ln, lv in scan_level_marks(ws):
            out.append(f, ln, lv)
        if indexed:
            self._scan = out
        return out


class _Marks:
    """(file, line, level) triples as three arrays (see MarkRefs)."""

    __slots__ = ("files", "lines", "levels")

    def __init__(self) -> None:
        self.files, self.lines, self.levels = array("I"), array("I"), array("B")

    def append(self, file_id: int, line: int, level: int) -> None:
        self.files.append(file_id)
        self.lines.append(line)
        self.levels.append(level)

    def __len__(self) -> int:
        return len(self.lines)

    def __iter__(self):
        return zip(self.files, self.lines, self.levels)


class SearchBook:
    """The `/` search as the interface knows it: the term, the generation that tells a running
    search's answer from a stale one, the matching lines once it answered, and their time order
    for `hit k/N`. Pure, so the app only asks and hands answers over."""

    HIT_ORDER_CAP = 5000  # hits put in time order for `hit k/N` (each needs the line's time)

    def __init__(self) -> None:
        self.term = ""
        self.generation = 0
        self.matches: dict[int, array] | None = None  # file id -> matching lines; None while running
        self._order: dict[tuple[int, int], int] | None = None
        self._refs: tuple[dict[int, array] | None, list[tuple[int, int]]] | None = None

    def start(self, term: str) -> int:
        """A new search (an empty term clears it): its generation, for the worker's answer."""
        self.term = term
        self.generation += 1
        self.matches = None
        self._order = None
        return self.generation

    def adopt(self, matches: dict[int, array], generation: int) -> bool:
        """Take the worker's answer; False (and nothing kept) when a newer search replaced it."""
        if generation != self.generation:
            return False
        self.matches = matches
        self._order = None
        return True

    @property
    def running(self) -> bool:
        return bool(self.term) and self.matches is None

    def stop(self) -> None:
        """Escape on a running search: it ends with no hit."""
        self.matches = {}
        self._order = None

    @property
    def total(self) -> int:
        return sum(len(a) for a in (self.matches or {}).values())

    def refs(self) -> list[tuple[int, int]]:
        """(file, line) of every hit (worked out once per answer: n/N read them at every press)."""
        if self._refs is None or self._refs[0] is not self.matches:
            self._refs = (self.matches, [(fid, ln) for fid, lines in (self.matches or {}).items() for ln in lines])
        return self._refs[1]

    def position(self, ref: tuple[int, int] | None, line_time: Callable[[int, int], int | None]) -> str:
        """`hit k/N` (k in time order over every file) when `ref` is a hit, else the total;
        `searching…` while the search runs. `line_time` gives a line's time (the time model's)."""
        if self.matches is None:
            return "searching…"
        total = self.total
        if ref is None or ref[0] not in self.matches or total > self.HIT_ORDER_CAP:
            return f"{total:,} hits"
        if self._order is None:
            keys = sorted((line_time(f, ln) or 0, f, ln) for f, lines in self.matches.items() for ln in lines)
            self._order = {(f, ln): k for k, (_, f, ln) in enumerate(keys)}
        k = self._order.get((ref[0], ref[1]))
        return f"hit {k + 1}/{total:,}" if k is not None else f"{total:,} hits"


class TimeAxis:
    """A merged view's scrollbar by time, not by line: the thumb sits at the cursor's moment
    between the first and the last line's time, and dragging it to a fraction goes to that
    moment. Lines are far from even in time (a chatty plog hour against a quiet console day),
    so a line scrollbar puts the middle of the job nowhere near its middle. Two bisects per
    answer; the span is read again when the timeline grows."""

    def __init__(self, timeline: "Timeline | WindowTimeline") -> None:
        self.timeline = timeline
        self._span: tuple[int, int, int] | None = None  # (line count, first time, last time)

    def span(self) -> tuple[int, int] | None:
        """(first time, last time) of the view, or None without two distinct known times."""
        n = len(self.timeline)
        if n == 0:
            return None
        if self._span is None or self._span[0] != n:
            first = next((t for t in (self.timeline.time_at(i) for i in range(min(n, 64))) if t is not None), None)
            last = next((t for t in (self.timeline.time_at(i) for i in range(n - 1, max(n - 65, -1), -1))
                         if t is not None), None)
            if first is None or last is None or last <= first:
                return None
            self._span = (n, first, last)
        return self._span[1], self._span[2]

    def fraction_of(self, position: int) -> float | None:
        """Where the line's moment lies between the first and the last time, 0..1."""
        span = self.span()
        if span is None or not 0 <= position < len(self.timeline):
            return None
        t = self.timeline.time_at(position)
        if t is None:
            return None
        return min(max((t - span[0]) / (span[1] - span[0]), 0.0), 1.0)

    def position_at(self, fraction: float) -> int | None:
        """The first line at the moment that fraction of the way through the view's time."""
        span = self.span()
        if span is None:
            return None
        if fraction >= 1.0:
            return len(self.timeline) - 1
        t = span[0] + int(max(fraction, 0.0) * (span[1] - span[0]))
        return self.timeline.position_at_time(t)


def orderable(ws: "Workspace", fids: Sequence[int]) -> list[int]:
    """The files a merged window can put in time order without waiting: a console file joins
    once its rank channels are worked out (`warm_console_channels`, in the background), so
    `m` right after the anchored screen answers at once instead of waiting seconds for them."""
    return [f for f in fids if not ws.times.is_console(f) or ws.times.channels_ready(f)]


def warm_console_channels(ws: "Workspace", fids: Sequence[int], cancelled: Cancelled | None = None) -> None:
    """Work out the console files' rank channels (core.timemodel) and their time order ahead
    of the first `m`: the merged view orders a console by them, and on the 1 GB bench tree (a
    30k-line console) that took 0.7-1.6 s on the way to the merged screen."""
    for fid in fids:
        if cancelled is not None and cancelled():
            return
        if ws.times.is_console(fid):
            ws.times.channels(fid, cancelled)
            if cancelled is None or not cancelled():
                console_order(ws, fid)


def aligned_position(timeline: "Timeline | WindowTimeline", ref: tuple[int, int] | None,
                     when: int | None) -> int | None:
    """Where a pane shows what another pane's cursor is on: that very line when the pane holds
    it, else the first line at that moment (None: neither is known)."""
    pos = timeline.position_of(*ref) if ref is not None else None
    if pos is None and when is not None:
        pos = timeline.position_at_time(when)
    return pos


def warm_rows_around(timeline: "Timeline | WindowTimeline", pos: int, rows: int = 64) -> None:
    """Work out the rows a pane shows around `pos` (a merged window's pages), so a thread that
    moves the pane there later finds them done."""
    for at in (max(pos - rows, 0), pos, pos + rows):
        try:
            timeline.at(at)
        except IndexError:
            pass


def next_mark(marks: Sequence[int], cursor: int, forward: bool) -> int | None:
    """The first of the sorted positions `marks` after (before) `cursor`."""
    if forward:
        k = bisect_right(marks, cursor)
        return marks[k] if k < len(marks) else None
    k = bisect_left(marks, cursor) - 1
    return marks[k] if k >= 0 else None


def mark_walk_start(timeline: "Timeline | WindowTimeline", ref: tuple[int, int] | None, when: int | None,
                    forward: bool, ties_ahead: bool) -> int | None:
    """Where a pane's walk to its next (previous) mark starts when another pane's cursor is on
    `ref` at `when`: that very line when the pane holds it; else just before (after) the lines
    ahead of that moment, those at the same moment among them when `ties_ahead` (the panes'
    order breaks ties of time). None: neither is known, the pane's own cursor is the start."""
    pos = timeline.position_of(*ref) if ref is not None else None
    if pos is not None or when is None:
        return pos
    n = len(timeline)
    t = _walk_moment(when, forward, ties_ahead)
    first = timeline.position_at_time(t) if n else 0  # the first line at t or later (n - 1 at most)
    if n and first == n - 1:
        last = timeline.time_at(n - 1)
        if last is not None and last < t:
            first = n
    # that count reads own stamps; a line without one shows the time model's estimate, which
    # can reach t already (a traceback printed just before its stamped line): those count too
    for _ in range(WALK_BACK_LINES):
        prev = timeline.time_at(first - 1) if first > 0 else None
        if prev is None or prev < t:
            break
        first -= 1
    return first - 1 if forward else first


def _walk_moment(when: int, forward: bool, ties_ahead: bool) -> int:
    """The time the lines ahead of a walk start at: the moment itself when the lines at it are
    ahead (the panes' order puts them there), else the next microsecond."""
    return when if forward == ties_ahead else when + 1


def line_time_or_none(timeline: "WindowTimeline", line: tuple[int, int] | None) -> int | None:
    """The shown time of a line of a merged window; None when it has none or its file went
    away meanwhile (a deleted file, not followed, keeps its panes but not its text)."""
    if line is None:
        return None
    try:
        return timeline.line_time(*line)
    except (UnreadableFile, OSError):
        return None


def window_mark_from_moment(timeline: "WindowTimeline", refs: "Sequence[tuple[int, int]]",
                            ref: tuple[int, int] | None, when: int | None, forward: bool,
                            ties_ahead: bool) -> tuple[int, int] | None:
    """`mark_walk_start` and the walk to the next (previous) mark in one, on a merged window:
    the same start and the same mark, as (file, line), found from each file's counts at that
    moment (a cut) without working out the merged pages around it. None: no mark that way,
    or neither the line nor the moment is known."""
    cut = None
    if ref is not None:
        try:
            cut = timeline.cut_at_line(*ref, after=forward)
        except ValueError:  # not a line of this pane
            cut = None
    if cut is None:
        if when is None:
            return None
        t = _walk_moment(when, forward, ties_ahead)

        def reaches(f: int, line: int) -> bool:  # an estimated time at t already
            shown = line_time_or_none(timeline, (f, line))
            return shown is not None and shown >= t

        cut = timeline.cut_at_time(t, reaches, WALK_BACK_LINES)
    return timeline.next_ref(refs, cut, forward)


WALK_BACK_LINES = 256  # at most this many unstamped lines before a moment are checked against it
