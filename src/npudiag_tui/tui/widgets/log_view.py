"""LogView: a Line-API ScrollView over a core Timeline (one stream, a filter, or the merge).

Only the visible rows are rendered; decoded texts and rendered strips are kept in small LRU
caches keyed by position, so a 10M-line source costs the same per frame as a 100-line one.
Log text goes through `sanitize` and `rich.text.Text` only, never through markup.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Iterable

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from npudiag_tui.core.model import Level, Stream
from npudiag_tui.core.timeline import Timeline
from npudiag_tui.core.formats.levels import line_level
from npudiag_tui.core.index import UnreadableFile
from npudiag_tui.tui.lines import sanitize

if TYPE_CHECKING:  # pragma: no cover
    from npudiag_tui.core.workspace import Workspace

_STREAM_TAG = {Stream.PLOG: "P", Stream.DEVICE: "D", Stream.STDOUT: "C"}


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
        "log-view--match",
        "log-view--gutter",
        "log-view--inherited",
    }
    DEFAULT_CSS = """
    LogView {
        background: $surface;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
        border-top: solid $panel-lighten-2;
        border-title-color: $text-muted;
        &:focus { border-top: solid $accent; border-title-color: $text; border-title-style: bold; }
        & > .log-view--cursor { background: $accent 45%; }
        & > .log-view--cursor-blur { background: $panel-lighten-1; }
        & > .log-view--error { color: $error; }
        & > .log-view--warning { color: $warning; }
        & > .log-view--debug { color: $text-muted; }
        & > .log-view--anchor { background: $error 35%; text-style: bold; }
        & > .log-view--match { background: $warning 70%; color: $background; }
        & > .log-view--gutter { color: $text-muted; }
        & > .log-view--inherited { color: $text-disabled; }
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

    # ------------------------------------------------------------------ source
    @property
    def count(self) -> int:
        return len(self.timeline)

    def set_source(self, timeline: Timeline, keep: bool = True) -> None:
        """Show another timeline; keep the cursor on the same line (or the same moment)."""
        ref = self.ref_at(self.cursor) if keep and self.count else None
        when = self.time_at(self.cursor) if keep and self.count else None
        if keep and ref is None and self._want is not None:
            ref, when = self._want
        self.timeline = timeline
        self.clear_caches()
        self._marks.clear()
        pos = 0
        if ref is not None:
            exact = timeline.position_of(*ref)
            if exact is not None:
                pos = exact
            elif when is not None:
                pos = timeline.position_at_time(when)
        self.cursor = min(pos, max(self.count - 1, 0))
        self.refresh_count()
        self.call_after_refresh(self.scroll_cursor_visible, True)

    def refresh_count(self) -> None:
        """Re-read the line count (indexing and live tail make sources grow)."""
        self.virtual_size = Size(self._gutter_width() + self._max_width, self.count)
        self._update_title()
        self.refresh()

    def clear_caches(self) -> None:
        self._texts.clear()
        self._strips.clear()
        self.refresh()

    def invalidate_marks(self) -> None:
        self._marks.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()

    def _update_title(self) -> None:
        extra = f" {self.status}" if self.status else ""
        self.border_title = f"{self.title} ({self.count:,}){extra}"

    def set_status(self, status: str) -> None:
        self.status = status
        self._update_title()

    # ------------------------------------------------------------------ lookups
    def ref_at(self, i: int) -> tuple[int, int] | None:
        if 0 <= i < self.count:
            try:
                return self.timeline.at(i)
            except IndexError:
                return None
        return None

    def time_at(self, i: int) -> int | None:
        if 0 <= i < self.count:
            try:
                return self.timeline.time_at(i)
            except UnreadableFile:  # a file deleted while shown (not followed): no time
                return None
        return None

    def text_at(self, i: int) -> str:
        got = self._texts.get_item(i)
        if got is None:
            self._prefetch(i, max(self.size.height, 1))
            got = self._texts.get_item(i)
        return got if got is not None else ""

    def _prefetch(self, first: int, count: int) -> None:
        """Read a screenful of lines, grouping runs of consecutive lines of one file."""
        last = min(first + count, self.count)
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
        out = []
        for fid, line in refs:
            pos = self.timeline.position_of(fid, line)
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

    def next_mark(self, marks: list[int], forward: bool) -> int | None:
        if not marks:
            return None
        if forward:
            k = bisect_right(marks, self.cursor)
            return marks[k] if k < len(marks) else None
        k = bisect_left(marks, self.cursor) - 1
        return marks[k] if k >= 0 else None

    # ------------------------------------------------------------------ cursor
    def set_cursor(self, position: int, *, user: bool = False, center: bool = False) -> None:
        count = self.count
        position = max(0, min(position, count - 1)) if count else 0
        self.cursor = position
        if count:
            self._want = (self.ref_at(position), self.time_at(position))
        self.scroll_cursor_visible(center)
        self.refresh()
        if user:
            self.post_message(self.CursorMoved(self, position))

    def scroll_cursor_visible(self, center: bool = False) -> None:
        self._centered = center
        height = max(self.scrollable_content_region.height, 1)
        top = int(self.scroll_y)
        if center:
            self.scroll_to(y=max(0, self.cursor - height // 3), animate=False, immediate=True, force=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True, force=True)
        self.call_after_refresh(self._sync_scrollbar)

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
        self.set_cursor(int(self.scroll_y) + offset.y, user=True)

    # ------------------------------------------------------------------ rendering
    def _gutter_width(self) -> int:
        return 1 + (5 if self.merged else 0) + 17

    def _gutter(self, i: int, fid: int, anchor: bool) -> Text:
        style_g = self.get_component_rich_style("log-view--gutter", partial=True)
        parts = Text("!" if anchor else " ", style=self.get_component_rich_style("log-view--error", partial=True)
                     if anchor else style_g, end="")
        if self.merged:
            src = self.ws.source_of_file(fid)
            rank = "" if src.rank is None else str(src.rank)
            parts.append(f"{_STREAM_TAG.get(src.stream, '?')}{rank:<3.3} ", style_g)
        # the one time of the line (core.timemodel); an estimated one is marked with a dim `~`
        # (a Style on our own characters: log text never goes through markup)
        when = self.ws.times.line_time(fid, self.timeline.at(i)[1])
        if when.us is None:
            parts.append(" " * 17, style_g)
        elif when.estimated:
            dim = self.get_component_rich_style("log-view--inherited", partial=True)
            parts.append("~", dim)
            parts.append(_clock(when.us) + " ", dim)
        else:
            parts.append(" " + _clock(when.us) + " ", style_g)
        return parts

    def _line_strip(self, i: int) -> Strip:
        cached = self._strips.get_item(i)
        if cached is not None:
            return cached
        ref = self.ref_at(i)
        if ref is None:
            return Strip.blank(0)
        raw = self.text_at(i)
        text = Text(sanitize(raw), end="", no_wrap=True)
        level = line_level(raw, self.ws.source_of_file(ref[0]).stream)
        if level >= Level.ERROR:
            text.stylize(self.get_component_rich_style("log-view--error", partial=True))
        elif level == Level.WARNING:
            text.stylize(self.get_component_rich_style("log-view--warning", partial=True))
        elif Level.NONE < level <= Level.DEBUG:
            text.stylize(self.get_component_rich_style("log-view--debug", partial=True))
        anchor = ref in self.anchor_refs
        if anchor:
            text.stylize(self.get_component_rich_style("log-view--anchor", partial=True))
        if self.search_re is not None:
            text.highlight_regex(self.search_re, self.get_component_rich_style("log-view--match", partial=True))
        if text.cell_len > self._max_width:
            self._max_width = min(text.cell_len, 4000)
            self.call_after_refresh(self.refresh_count)
        gutter = self._gutter(i, ref[0], anchor)
        console = self.app.console
        strip = Strip.join([Strip(list(gutter.render(console)), gutter.cell_len),
                            Strip(list(text.render(console)), text.cell_len)])
        self._strips.put(i, strip)
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        i = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if i >= self.count:
            return Strip.blank(width, base)
        strip = self._line_strip(i)
        gw = self._gutter_width()
        gutter = strip.crop(0, gw)
        body = strip.crop(gw + scroll_x, gw + scroll_x + max(width - gw, 0))
        line = Strip.join([gutter, body])
        if i == self.cursor:
            cls = "log-view--cursor" if self.has_focus else "log-view--cursor-blur"
            cursor_style = self.get_component_rich_style(cls, partial=True)
            line = line.apply_style(cursor_style)
            return line.crop_extend(0, width, base + cursor_style)
        return line.crop_extend(0, width, base)

    def _sync_scrollbar(self) -> None:
        # a scroll done while the scrollbar was hidden (empty source) leaves its thumb stale
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    def on_resize(self) -> None:
        # a jump centres the cursor; keep it centred when the layout settles or changes
        self.scroll_cursor_visible(self._centered)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
