"""LogView: a Line-API ScrollView over a core Timeline (one stream, a filter, or the merge).

Only the visible rows are rendered; decoded texts and rendered strips are kept in small LRU
caches keyed by position, so a 10M-line source costs the same per frame as a 100-line one.
Log text goes through `sanitize` and `rich.text.Text` only, never through markup.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollTo
from textual.strip import Strip

from npudiag_tui.core.model import Level, Stream
from npudiag_tui.core.timeline import Timeline
from npudiag_tui.core.views import TimeAxis
from npudiag_tui.core.formats.levels import line_level
from npudiag_tui.core.formats.timestamps import find_stamp
from npudiag_tui.core.index import UnreadableFile
from npudiag_tui.tui.lines import sanitize
from npudiag_tui.tui.widgets.compact import compact, compact_text, console_text
from npudiag_tui.tui.widgets.palette import MIN_CONTRAST, legible, readable, solid, text_style

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

_STREAM_TAG = {Stream.PLOG: "P", Stream.DEVICE: "D", Stream.STDOUT: "C"}


INCOMPLETE_MARK = "⋯ incomplete"
"""The gutter of a followed file's last line that has no newline yet (`LogView.set_incomplete`)."""
WIDTH_STEP = 256
"""The sideways scroll range grows by this many cells at a time (a layout pass each time)."""
MAX_SCROLL_WIDTH = 4000


@dataclass
class _Frame:
    """What the rows of one frame share (LogView.render_lines)."""

    base: Style
    background: Color
    width: int
    gutter: int
    count: int
    refs: dict[int, tuple[int, int] | None] = field(default_factory=dict)


class _LRU(OrderedDict):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def get_item(self, key: Any) -> Any:
        got = self.get(key)
        if got is not None:
            self.move_to_end(key)
        return got

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        if len(self) > self.size:
            self.popitem(last=False)


def _clock(us: int) -> str:
    secs, micro = divmod(us, 1_000_000)
    secs %= 86400
    return f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}.{micro:06d}"


class LogView(ScrollView, can_focus=True):
    """Virtualised view over a Timeline with a time gutter (and stream/rank in merged mode)."""

    COMPONENT_CLASSES = {
        "log-view--cursor",
        "log-view--cursor-blur",
        "log-view--error",
        "log-view--warning",
        "log-view--debug",
        "log-view--anchor",
        "log-view--anchor-cursor",
        "log-view--match",
        "log-view--gutter",
        "log-view--inherited",
        "log-view--module",
        "log-view--context",
    }
    # Alpha is allowed here: LogView composites every component colour over its own background
    # (widgets.palette) before use, because partial rich styles drop the alpha.
    DEFAULT_CSS = """
    LogView {
        background: $surface;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
        border-top: solid $panel-lighten-2;
        border-title-color: $text-muted;
        &:focus { border-top: solid $accent; border-title-color: $text; border-title-style: bold; }
        & > .log-view--cursor { background: $foreground 10%; }
        & > .log-view--cursor-blur { background: $foreground 6%; }
        & > .log-view--error { color: $text-error; }
        & > .log-view--warning { color: $text-warning; }
        & > .log-view--debug { color: auto 62%; }
        & > .log-view--anchor { background: $error 40%; color: $text; text-style: bold; }
        & > .log-view--anchor-cursor { background: $error 60%; color: $text; text-style: bold; }
        & > .log-view--match { background: $warning 85%; color: $background; }
        & > .log-view--gutter { color: auto 70%; }
        & > .log-view--inherited { color: auto 42%; }
        & > .log-view--module { color: $text-secondary; }
        & > .log-view--context { color: auto 62%; }
    }
    """
    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup,b", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("home,g", "first", "First line", show=False),
        Binding("end,G", "last", "Last line", show=False),
        Binding("left,h", "scroll_left", "Left", show=False),
        Binding("right,l", "scroll_right", "Right", show=False),
    ]

    class CursorMoved(Message):
        """The user moved the cursor; the app aligns the other panes."""

        def __init__(self, view: "LogView", position: int) -> None:
            super().__init__()
            self.view = view
            self.position = position

        @property
        def control(self) -> "LogView":
            return self.view

    def __init__(self, ws: "Workspace", title: str, pane: str, merged: bool = False,
                 *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ws = ws
        self.pane = pane
        self.title = title
        self.merged = merged
        self.timeline: Timeline = Timeline(ws, [])
        self.axis: TimeAxis | None = None  # the merged view's scrollbar goes by time
        self.cursor = 0
        self._centered = False
        self._want: tuple[tuple[int, int] | None, int | None] | None = None
        self.anchor_refs: frozenset[tuple[int, int]] = frozenset()
        self.search_re: re.Pattern[str] | None = None
        # a few screens' worth: a rendered Strip carries segments and its own caches (several
        # KB), and five panes with 2048 each held tens of MB on a large tree
        self._texts = _LRU(2048)
        self._strips = _LRU(512)
        self._marks: dict[str, list[int]] = {}
        self._max_width = 120
        self.status = ""
        self.border_title = title
        self.raw = False
        self.wrap = False
        self.show_pid = False
        self._palette: dict[str, Style] = {}
        self._fixes: dict[tuple[Any, Any], Style | None] = {}
        self._incomplete: list[tuple[int, int, str]] = []  # (file, line number, text), see set_incomplete
        self._incomplete_lines: dict[int, tuple[int, str]] = {}

    # ------------------------------------------------------------------ source
    @property
    def count(self) -> int:
        """Rows: the timeline's lines, then the incomplete last lines (set_incomplete)."""
        return len(self.timeline) + len(self._incomplete_rows())

    # ------------------------------------------------------------------ incomplete last lines
    def set_incomplete(self, lines: dict[int, tuple[int, str]]) -> bool:
        """Followed files' last lines without their newline yet, as {file: (line number, text)}.

        The pane's files among them get one marked row each after the pane's lines (a crashed
        process's last words are usually such a line): searchable, a possible anchor, found by
        their line reference. When the newline arrives the file's index counts the line, the
        row stops being shown (`_incomplete_rows`) and the same reference is a normal line.
        Returns whether the pane's rows changed."""
        self._incomplete_lines = dict(lines)
        files = set(getattr(self.timeline, "file_ids", ()))
        rows = [(fid, lines[fid][0], lines[fid][1]) for fid in sorted(lines) if fid in files]
        if rows == self._incomplete:
            return False
        self._incomplete = rows
        self._marks.clear()
        self.refresh_count()
        return True

    def _incomplete_rows(self) -> list[tuple[int, int, str]]:
        # a row whose newline has arrived since (the index counts it: a line of the timeline
        # now) is not shown again, so no line is ever on screen twice
        indexes = self.ws.indexes
        return [r for r in self._incomplete if indexes[r[0]].line_count == r[1]]

    def has_incomplete_rows(self) -> bool:
        """Whether rows follow the timeline's lines (a followed file's unterminated last line)."""
        return bool(self._incomplete_rows())

    def _incomplete_at(self, i: int) -> tuple[int, int, str] | None:
        k = i - len(self.timeline)
        if k < 0:
            return None
        rows = self._incomplete_rows()
        return rows[k] if k < len(rows) else None

    def position_of(self, file_id: int, line: int) -> int | None:
        """The row of a line (or of an incomplete last line), None when it is not shown."""
        pos = self.timeline.position_of(file_id, line)
        if pos is not None:
            return pos
        for k, (fid, ln, _) in enumerate(self._incomplete_rows()):
            if (fid, ln) == (file_id, line):
                return len(self.timeline) + k
        return None

    def set_source(self, timeline: Timeline, keep: bool = True) -> None:
        """Show another timeline; keep the cursor on the same line (or the same moment)."""
        ref = self.ref_at(self.cursor) if keep and self.count else None
        when = self.time_at(self.cursor) if keep and self.count else None
        if keep and ref is None and self._want is not None:
            ref, when = self._want
        self.timeline = timeline
        self.axis = TimeAxis(timeline) if self.merged else None
        pids = {self.ws.source_of_file(f).pid for f in getattr(timeline, "file_ids", [])}
        self.show_pid = len(pids) > 1 and not self.merged
        self.clear_caches()
        self._marks.clear()
        self._incomplete = []
        self.set_incomplete(self._incomplete_lines)  # the new source's files
        pos = 0
        if ref is not None:
            exact = self.position_of(*ref)
            if exact is not None:
                pos = exact
            elif when is not None:
                pos = timeline.position_at_time(when)
        self.cursor = min(pos, max(self.count - 1, 0))
        self.refresh_count()
        self.call_after_refresh(self.scroll_cursor_visible, True)

    _no_clock = False
    """No line of the pane has a time (a console without stamps): the gutter keeps no clock."""

    def refresh_count(self) -> None:
        """Re-read the line count (indexing and live tail make sources grow)."""
        fids = getattr(self.timeline, "file_ids", None)
        no_clock = not self.merged and bool(fids) and all(self.ws.times.timeless(f) for f in fids)
        if no_clock != self._no_clock:  # a stamp arrived, or the channels say there is none
            self._no_clock = no_clock
            self.clear_caches()
        if self.wrap_all:  # no sideways scroll; the last lines can fill the screen from the top
            width = self.scrollable_content_region.width
            self.virtual_size = Size(width, self._last_top() + self._view_height() if self.count else 0)
        else:
            self.virtual_size = Size(self._gutter_width() + self._max_width, self.count + self._extra_rows())
        self._update_title()
        self.refresh()

    def clear_caches(self) -> None:
        self._texts.clear()
        self._strips.clear()
        self._layout = None
        self.refresh()

    def invalidate_marks(self) -> None:
        self._marks.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self._layout = None
        self._palette.clear()
        self._fixes.clear()

    def _update_title(self) -> None:
        extra = f" {self.status}" if self.status else ""
        self.border_title = f"{self.title} ({self.count:,}){extra}"

    def set_status(self, status: str) -> None:
        self.status = status
        self._update_title()

    # ------------------------------------------------------------------ lookups
    def ref_at(self, i: int) -> tuple[int, int] | None:
        frame = self._frame
        if frame is not None:  # one lookup per row and frame (render_lines)
            if i not in frame.refs:
                frame.refs[i] = self._ref_at(i)
            return frame.refs[i]
        return self._ref_at(i)

    def _ref_at(self, i: int) -> tuple[int, int] | None:
        if 0 <= i < self.count:
            try:
                return self.timeline.at(i)
            except IndexError:
                row = self._incomplete_at(i)
                return None if row is None else row[:2]
        return None

    def time_at(self, i: int) -> int | None:
        row = self._incomplete_at(i)
        if row is not None:  # its own stamp, else the moment of the line before it
            stamp = find_stamp(row[2][:400], self.ws.indexes[row[0]].year_hint)
            return stamp.us if stamp is not None else self.time_at(i - 1)
        if 0 <= i < self.count:
            try:
                return self.timeline.time_at(i)
            except UnreadableFile:  # a file deleted while shown (not followed): no time
                return None
        return None

    def text_at(self, i: int) -> str:
        row = self._incomplete_at(i)
        if row is not None:
            return row[2]
        got = self._texts.get_item(i)
        if got is None:
            self._prefetch(i, max(self.size.height, 1))
            got = self._texts.get_item(i)
        return got if got is not None else ""

    def _prefetch(self, first: int, count: int) -> None:
        """Read a screenful of lines, grouping runs of consecutive lines of one file."""
        last = min(first + count, len(self.timeline))  # not the incomplete rows: no lines yet
        i = first
        while i < last:
            try:
                fid, line = self.timeline.at(i)
            except IndexError:
                return
            run = 1
            while i + run < last:
                f2, l2 = self.timeline.at(i + run)
                if f2 != fid or l2 != line + run:
                    break
                run += 1
            try:
                texts = self.ws.indexes[fid].lines(line, run)
            except UnreadableFile:  # a file deleted while shown (not followed): empty rows
                texts = []
            for k in range(run):
                self._texts.put(i + k, texts[k] if k < len(texts) else "")
            i += run

    def positions_of(self, refs: Iterable[tuple[int, int]]) -> list[int]:
        # the marks of every pane come here: a ref of a file this pane does not show is skipped
        # before it is looked up (a console pane among tens of thousands of plog marks)
        files = getattr(self.timeline, "file_ids", None)
        shown = None if files is None else set(files) | {r[0] for r in self._incomplete_rows()}
        out = []
        for fid, line in refs:
            if shown is not None and fid not in shown:
                continue
            pos = self.position_of(fid, line)
            if pos is not None:
                out.append(pos)
        out.sort()
        return out

    def marks(self, kind: str, refs_fn) -> list[int]:
        """Sorted positions of a kind of line (errors, warnings, hits), cached per source."""
        got = self._marks.get(kind)
        if got is None:
            got = self._marks[kind] = self.positions_of(refs_fn())
        return got

    # ------------------------------------------------------------------ cursor
    def set_cursor(self, position: int, *, user: bool = False, center: bool = False) -> None:
        count = self.count
        position = max(0, min(position, count - 1)) if count else 0
        moved = position != self.cursor
        self.cursor = position
        if count:
            self._want = (self.ref_at(position), self.time_at(position))
        if self.wrap and moved:  # the wrapped line's rows changed: so did the virtual height
            self.refresh_count()
        self.scroll_cursor_visible(center)
        self.refresh()
        if user:
            self.post_message(self.CursorMoved(self, position))

    def scroll_cursor_visible(self, center: bool = False) -> None:
        self._centered = center
        height = max(self.scrollable_content_region.height, 1)
        top = int(self.scroll_y)
        if self.wrap_all and self.count:
            self._scroll_wrapped_cursor_visible(top, height, center)
        elif center:
            self.scroll_to(y=max(0, self.cursor - height // 3), animate=False, immediate=True, force=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor + self._extra_rows() >= top + height:
            last = self.cursor + min(self._extra_rows(), height - 1)
            self.scroll_to(y=last - height + 1, animate=False, immediate=True, force=True)
        self.call_after_refresh(self._sync_scrollbar)

    def _scroll_wrapped_cursor_visible(self, top: int, height: int, center: bool) -> None:
        """With every line wrapped the scroll position is a line: the top line that shows the
        cursor's rows (a third down when centred, at the bottom when it went below)."""
        cursor = min(self.cursor, self.count - 1)
        if center:
            want = self._top_for(cursor, max(height // 3, self._line_rows(cursor)))
        elif cursor < top:
            want = cursor
        elif cursor - top >= height or sum(self._line_rows(i) for i in range(top, cursor + 1)) > height:
            want = self._top_for(cursor, height)
        else:
            want = top
        if want != top:
            self.scroll_to(y=want, animate=False, immediate=True, force=True)

    def action_cursor_up(self) -> None:
        self.set_cursor(self.cursor - 1, user=True)

    def action_cursor_down(self) -> None:
        self.set_cursor(self.cursor + 1, user=True)

    def action_page_up(self) -> None:
        self.set_cursor(self.cursor - max(self.scrollable_content_region.height - 1, 1), user=True)

    def action_page_down(self) -> None:
        self.set_cursor(self.cursor + max(self.scrollable_content_region.height - 1, 1), user=True)

    def action_first(self) -> None:
        self.set_cursor(0, user=True)

    def action_last(self) -> None:
        self.set_cursor(self.count - 1, user=True)

    def action_scroll_left(self) -> None:
        self.scroll_to(x=max(0, self.scroll_x - 8), animate=False)

    def action_scroll_right(self) -> None:
        self.scroll_to(x=self.scroll_x + 8, animate=False)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        self.focus()
        self.set_cursor(self._row_line(int(self.scroll_y) + offset.y)[0], user=True)

    # ------------------------------------------------------------------ rendering
    def set_raw(self, raw: bool) -> None:
        """Show the lines as written (raw) or compact: time once, level tag, module, message."""
        if raw != self.raw:
            self.raw = raw
            self._max_width = 120
            self.clear_caches()
            self.refresh_count()
            self.call_after_refresh(self.scroll_cursor_visible, self._centered)

    WRAP_ROWS = 40
    """Most rows the selected line takes when wrapped (a 64 KiB line would fill screens)."""

    def set_wrap(self, wrap: bool) -> None:
        """Show the selected line whole, wrapped over as many rows as it needs (the other
        lines stay one row each, so a 10M-line pane scrolls as before)."""
        if wrap != self.wrap:
            self.wrap = wrap
            self.refresh_count()
            self.call_after_refresh(self.scroll_cursor_visible, self._centered)

    def _wrapped(self, i: int) -> list[Strip]:
        """The rows of line i wrapped to the body width (gutter on the first row only)."""
        width = max(self.scrollable_content_region.width - self._gutter_width(), 8)
        row = self._incomplete_at(i)
        key = ("wrap", i, width) if row is None else ("wrap-incomplete", row, width)
        got = self._strips.get_item(key)
        if got is None:
            text = self._text_of(i)
            if text is None:
                return [Strip.blank(0)]
            console = self.app.console
            body = text[0].copy()
            body.no_wrap = False
            lines = body.wrap(console, width, overflow="fold")[: self.WRAP_ROWS]
            got = [Strip(list(line.render(console)), line.cell_len) for line in lines] or [Strip.blank(0)]
            self._strips.put(key, got)
        return got

    wrap_all = False
    """Every line wrapped to the pane's width (`set_wrap_all`), as lnav's wrap toggle does."""

    def set_wrap_all(self, wrap_all: bool) -> None:
        """Wrap every line over the rows it needs (`WRAP_ROWS` at most).

        A pane of 10M lines cannot measure every wrapped line, so the scroll position stays a
        line number: the screen is laid out from its top line down (`_screen_rows`), and the last
        top is where the last lines just fill the screen (`_last_top`)."""
        if wrap_all != self.wrap_all:
            self.wrap_all = wrap_all
            self._layout = None
            if wrap_all:
                self.scroll_to(x=0, animate=False, immediate=True, force=True)
            self.refresh_count()
            self.call_after_refresh(self.scroll_cursor_visible, self._centered)

    def _line_rows(self, i: int) -> int:
        return len(self._wrapped(i))

    def _top_for(self, bottom: int, rows: int) -> int:
        """The smallest top line such that lines top..bottom fit in `rows` rows (at least `bottom`)."""
        top, used = bottom, self._line_rows(bottom)
        while top > 0:
            need = self._line_rows(top - 1)
            if used + need > rows:
                break
            top, used = top - 1, used + need
        return top

    def _last_top(self) -> int:
        return self._top_for(self.count - 1, self._view_height()) if self.count else 0

    def _view_height(self) -> int:
        return max(self.scrollable_content_region.height, 1)

    def _screen_rows(self) -> list[tuple[int, int]]:
        """(line, wrapped part) of each screen row with every line wrapped, from the top line."""
        top, height = int(self.scroll_y), self._view_height()
        key = (top, height, self.scrollable_content_region.width, self.count)
        if self._layout is not None and self._layout[0] == key:
            return self._layout[1]
        rows: list[tuple[int, int]] = []
        i = top
        while len(rows) < height and i < self.count:
            rows.extend((i, part) for part in range(self._line_rows(i)))
            i += 1
        rows = rows[:height]
        self._layout = (key, rows)
        return rows

    _layout: tuple[tuple[int, ...], list[tuple[int, int]]] | None = None

    def _extra_rows(self) -> int:
        if not self.wrap or self.wrap_all or not self.count or self.size.width == 0:
            return 0
        return len(self._wrapped(self.cursor)) - 1

    def _row_line(self, row: int) -> tuple[int, int]:
        """(line, wrapped part) shown on virtual row `row`: rows above the cursor are lines,
        the cursor's line takes 1 + extra rows when wrapped, the rest shift down by extra.
        With every line wrapped, the rows are laid out from the top line (`_screen_rows`)."""
        if self.wrap_all:
            rows = self._screen_rows()
            k = row - int(self.scroll_y)
            return rows[k] if 0 <= k < len(rows) else (self.count, 0)
        extra = self._extra_rows()
        c = self.cursor
        if not extra or row <= c:
            return row, 0
        if row <= c + extra:
            return c, row - c
        return row - extra, 0

    def _style(self, name: str) -> Style:
        """The opaque rich Style of a component class (widgets.palette: alpha composited over
        the pane background, a foreground too close to its background replaced)."""
        got = self._palette.get(name)
        if got is None:
            base = self.background_colors[1]
            cs = self.get_component_styles(name)
            bg = solid(cs.background, base) if cs.has_rule("background") and cs.background.a > 0 else None
            under = bg or base
            color = solid(cs.color, under) if cs.has_rule("color") else None
            if color is not None:  # no colour rule: the row's own colours show through
                color = readable(color, under)
            got = text_style(color, bg) + cs.text_style
            self._palette[name] = got
        return got

    def _legible(self, segments: list[Segment], base_bg: Color, minimum: float) -> list[Segment]:
        """Every segment with a foreground that would vanish on its background gets the
        background's contrast text instead (log SGR colours, a hit on the cursor row)."""
        out = []
        for seg in segments:
            style = seg.style
            if style is not None and style.color is not None and seg.text.strip():
                key = (style.color, style.bgcolor, minimum)
                fix = self._fixes.get(key, 0)
                if fix == 0:
                    fix = self._fixes[key] = self._fix_for(style, base_bg, minimum)
                if fix is not None:
                    seg = Segment(seg.text, style + fix, seg.control)
            out.append(seg)
        return out

    @staticmethod
    def _fix_for(style: Style, base_bg: Color, minimum: float) -> Style | None:
        bg = Color.from_rich_color(style.bgcolor) if style.bgcolor is not None and \
            not style.bgcolor.is_default else base_bg
        if style.color is None or style.color.is_default:
            return None
        fg = Color.from_rich_color(style.color)
        if legible(fg, bg, minimum):
            return None
        return Style(color=bg.get_contrast_text(1.0).rich_color)

    def _gutter_width(self) -> int:
        return 1 + (5 if self.merged else 0) + (1 if self._no_clock else self._clock_cells() + 2)

    def _clock_cells(self) -> int:
        """HH:MM:SS.ffffff for raw lines, HH:MM:SS.mmm for compact ones."""
        return 15 if self.raw else 12

    def _gutter(self, i: int, fid: int, anchor: bool) -> Text:
        style_g = self._style("log-view--gutter")
        parts = Text("!" if anchor else " ", style=self._style("log-view--error") if anchor else style_g, end="")
        if self.merged:
            src = self.ws.source_of_file(fid)
            rank = "" if src.rank is None else str(src.rank)
            parts.append(f"{_STREAM_TAG.get(src.stream, '?')}{rank:<3.3} ", style_g)
        incomplete = self._incomplete_at(i) is not None
        if self._no_clock:  # one cell: a line without its newline yet keeps the mark's first sign
            parts.append(INCOMPLETE_MARK[0] if incomplete else " ",
                         self._style("log-view--inherited") if incomplete else style_g)
            return parts
        if incomplete:  # no newline yet: said where the time would be
            parts.append(INCOMPLETE_MARK.ljust(self._clock_cells() + 2), self._style("log-view--inherited"))
            return parts
        # the one time of the line (core.timemodel); an estimated one is marked with a dim `~`
        # (a Style on our own characters: log text never goes through markup). Compact lines
        # show milliseconds (the raw line keeps the full stamp).
        when = self.ws.times.line_time(fid, self.timeline.at(i)[1])
        cells = self._clock_cells()
        if when.us is None:
            parts.append(" " * (cells + 2), style_g)
        else:
            clock = _clock(when.us)[:cells]
            if when.estimated:
                dim = self._style("log-view--inherited")
                parts.append("~", dim)
                parts.append(clock + " ", dim)
            else:
                parts.append(" " + clock + " ", style_g)
        return parts

    def _body(self, raw: str, stream: Stream, level: Level) -> Text:
        """The line's text: compact (plog-like header cut to tag and module) unless raw."""
        form = None if self.raw else compact(raw, stream)
        if form is not None:
            styles = {"ERROR": self._style("log-view--error"), "EXCEPTION": self._style("log-view--error"),
                      "CRITICAL": self._style("log-view--error"), "WARNING": self._style("log-view--warning"),
                      "DEBUG": self._style("log-view--debug"), "TRACE": self._style("log-view--debug"),
                      "module": self._style("log-view--module"), "pid": self._style("log-view--gutter"),
                      "context": self._style("log-view--context")}
            for word, key in (("ERROR", "log-view--error"), ("EXCEPTION", "log-view--error"),
                              ("CRITICAL", "log-view--error"), ("WARNING", "log-view--warning"),
                              ("DEBUG", "log-view--debug"), ("TRACE", "log-view--debug")):
                styles["message-" + word] = self._style(key)
            return compact_text(form, self.show_pid, styles)
        text = console_text(raw) if stream is Stream.STDOUT and not self.raw else \
            Text(sanitize(raw), end="", no_wrap=True)
        if level >= Level.ERROR:
            text.stylize(self._style("log-view--error"))
        elif level == Level.WARNING:
            text.stylize(self._style("log-view--warning"))
        elif Level.NONE < level <= Level.DEBUG:
            text.stylize(self._style("log-view--debug"))
        return text

    def _text_of(self, i: int) -> tuple[Text, bool] | None:
        ref = self.ref_at(i)
        if ref is None:
            return None
        raw = self.text_at(i)
        stream = self.ws.source_of_file(ref[0]).stream
        text = self._body(raw, stream, line_level(raw, stream))
        anchor = ref in self.anchor_refs
        if anchor:
            text.stylize(self._style("log-view--anchor"))
        if self.search_re is not None:
            text.highlight_regex(self.search_re, self._style("log-view--match"))
        return text, anchor

    def _line_strip(self, i: int) -> Strip:
        # an incomplete row is never cached: its text grows, and its position becomes a line's
        incomplete = self._incomplete_at(i) is not None
        cached = None if incomplete else self._strips.get_item(i)
        if cached is not None:
            return cached
        got = self._text_of(i)
        ref = self.ref_at(i)
        if got is None or ref is None:
            return Strip.blank(0)
        text, anchor = got
        if text.cell_len > self._max_width and self._max_width < MAX_SCROLL_WIDTH:
            # in steps: each new width is a layout pass of the whole screen, which a key landing
            # on a slightly wider line should not pay
            self._max_width = min(-(-text.cell_len // WIDTH_STEP) * WIDTH_STEP, MAX_SCROLL_WIDTH)
            self.call_after_refresh(self.refresh_count)
        gutter = self._gutter(i, ref[0], anchor)
        console = self.app.console
        strip = Strip.join([Strip(list(gutter.render(console)), gutter.cell_len),
                            Strip(list(text.render(console)), text.cell_len)])
        if not incomplete:
            self._strips.put(i, strip)
        return strip

    def match_column(self, i: int) -> int | None:
        """Cell column (in the body, before horizontal scroll) where the search matches line i."""
        if self.search_re is None:
            return None
        got = self._text_of(i)
        if got is None:
            return None
        plain = got[0].plain
        m = self.search_re.search(plain)
        if m is None:
            return None
        return Text(plain[: m.start()]).cell_len

    def scroll_match_visible(self, i: int) -> None:
        """Scroll sideways so the search match of line i is on screen (back to 0 when it
        already fits without scrolling)."""
        col = self.match_column(i)
        room = max(self.scrollable_content_region.width - self._gutter_width(), 8)
        if col is None or col < room - 8:
            target = 0
        else:
            target = max(0, col - room // 3)
        if target != int(self.scroll_x):
            self.scroll_to(x=target, animate=False, immediate=True, force=True)

    _frame: "_Frame | None" = None
    """What every row of the frame being drawn shares (render_lines), else None."""

    def render_lines(self, crop: Region) -> list[Strip]:
        """One frame: the styles every row shares are read once, and each row's line once.

        render_line read the background (a walk over the ancestors' styles), the base style, the
        width and the row's line reference (three times) for every row; with every pane
        repainted on each progress tick of the 1 GB tree that was a fifth of the UI thread's
        busy time (bench/README.md, "Keys during background work")."""
        self._frame = _Frame(self.rich_style, self.background_colors[1], self.scrollable_content_region.width,
                             self._gutter_width(), self.count)
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def _frame_now(self) -> "_Frame":
        return self._frame or _Frame(self.rich_style, self.background_colors[1],
                                     self.scrollable_content_region.width, self._gutter_width(), self.count)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        i, part = self._row_line(scroll_y + y)
        frame = self._frame_now()
        width, base, gw = frame.width, frame.base, frame.gutter
        if i >= frame.count:
            return Strip.blank(width, base)
        strip = self._line_strip(i)
        if self.wrap_all or (self.wrap and i == self.cursor):  # the whole line, no sideways scroll
            gutter = strip.crop(0, gw) if part == 0 else Strip.blank(gw)
            line = Strip.join([gutter, self._wrapped(i)[part]])
        else:
            gutter = strip.crop(0, gw)
            body = strip.crop(gw + scroll_x, gw + scroll_x + max(width - gw, 0))
            line = Strip.join([gutter, body])
        fill = base
        minimum = MIN_CONTRAST  # dimmed parts (DEBUG, an estimated time) recede, never below it
        ref = self.ref_at(i)
        if i == self.cursor:
            if ref is not None and ref in self.anchor_refs:
                cursor_style = self._style("log-view--anchor-cursor")
                line = Strip(Segment.apply_style(line, post_style=cursor_style), line.cell_length)
            else:
                cursor_style = self._style("log-view--cursor" if self.has_focus else "log-view--cursor-blur")
                line = line.apply_style(cursor_style)
            fill = base + cursor_style
        line = Strip(self._legible(list(line), frame.background, minimum), line.cell_length)
        return line.crop_extend(0, width, fill)

    def _sync_scrollbar(self) -> None:
        # a scroll done while the scrollbar was hidden (empty source) leaves its thumb stale
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self._thumb(self.scroll_y)

    def _thumb(self, scroll_y: float) -> float:
        """The scrollbar's position: the top line's moment in the merged view (core.views.TimeAxis)."""
        fraction = self.axis.fraction_of(int(scroll_y)) if self.axis is not None else None
        return scroll_y if fraction is None else fraction * self.max_scroll_y

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.axis is not None and self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self._thumb(new_value)

    def _on_scroll_to(self, message: ScrollTo) -> None:
        """A drag of the merged view's scrollbar goes to the moment under the thumb."""
        if self.axis is None or message.y is None or not self.max_scroll_y:
            return  # Widget's own handler scrolls by line
        message.prevent_default()
        message.stop()
        pos = self.axis.position_at(message.y / self.max_scroll_y)
        if pos is not None:
            self.scroll_to(y=pos, animate=False, immediate=True, force=True)

    def on_resize(self) -> None:
        # a jump centres the cursor; keep it centred when the layout settles or changes
        if self.wrap or self.wrap_all:  # the wrapped lines' row counts follow the width
            self.refresh_count()
        self.scroll_cursor_visible(self._centered)

    def allow_focus(self) -> bool:
        """A pane reduced to its title row (no line to show: `-title-only`, set by the app's
        layout) is passed by Tab and never takes the focus."""
        return not self.has_class("-title-only")

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
