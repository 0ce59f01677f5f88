"""RankGrid: one cell per rank, grouped by node, on the Line API.

Why the Line API: a job of 1,000 nodes has 16,000 ranks; only the visible lines are rendered
(from the placement in `layout.py`) and cached, and a cursor move repaints two lines. Each cell
is its role's letter on its role's colour, so the grid also reads without colour. Node names
come from other machines: they are drawn as plain segments after `visible`, never as markup.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.color import Color
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from npudiag_tui.core.formats.text import visible
from npudiag_tui.tui.cluster.layout import ROLE_ORDER, Grid, Placement, place, vertical
from npudiag_tui.tui.widgets.palette import readable, solid, text_style


def clip(name: str, width: int) -> str:
    """A node name in `width` cells, cut with "…" (names are ASCII host names in practice;
    anything else is made visible first)."""
    name = visible(name)
    return name if len(name) <= width else name[: max(width - 1, 0)] + "…"


class RankGrid(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {f"rank-grid--{r}" for r in ROLE_ORDER} | {"rank-grid--label", "rank-grid--label-current"}
    DEFAULT_CSS = """
    RankGrid {
        background: $surface;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 0;
        & > .rank-grid--root { background: $error; color: $text; text-style: bold; }
        & > .rank-grid--victim { background: $warning-darken-2; color: $text; }
        & > .rank-grid--healthy { background: $success-darken-2; color: $text; }
        & > .rank-grid--silent { background: $secondary; color: $text; text-style: bold; }
        & > .rank-grid--missing { background: $panel-lighten-2; color: $text; text-style: bold; }
        & > .rank-grid--label { color: $text-muted; }
        & > .rank-grid--label-current { color: $text; text-style: bold; }
    }
    """
    BINDINGS = [
        Binding("left,h", "move(-1)", "Left", show=False),
        Binding("right,l", "move(1)", "Right", show=False),
        Binding("up,k", "vertical(0, 1)", "Up", show=False),
        Binding("down,j", "vertical(1, 1)", "Down", show=False),
        Binding("pageup", "vertical(0, 0)", "Page up", show=False),
        Binding("pagedown,space", "vertical(1, 0)", "Page down", show=False),
        Binding("home,g", "goto(0)", "First", show=False),
        Binding("end,G", "goto(-1)", "Last", show=False),
    ]

    class Moved(Message):
        """The cursor is on another cell (the side panel shows it)."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    class Chosen(Message):
        """Enter (or a click) on a cell."""

        def __init__(self, cell: int) -> None:
            super().__init__()
            self.cell = cell

    def __init__(self, grid: Grid, cursor: int = 0, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.grid = grid
        self.cursor = min(max(cursor, 0), max(len(grid.cells) - 1, 0))
        self.placement: Placement = place(grid, 80)
        self._styles: dict[str, Style] = {}
        self._strips: dict[int, Strip] = {}

    # ------------------------------------------------------------------ layout
    def on_resize(self, event: events.Resize) -> None:
        self._relayout()

    def on_mount(self) -> None:
        self._relayout()

    def _relayout(self) -> None:
        width = max(self.size.width - 1, 8)  # the vertical scrollbar
        if self.placement.width != width or not self._strips:
            self.placement = place(self.grid, width)
            self._strips.clear()
            self.virtual_size = Size(width, self.placement.height)
            self.call_after_refresh(self.show_cursor)
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def _style(self, name: str) -> Style:
        got = self._styles.get(name)
        if got is None:
            styles = self.get_component_styles(f"rank-grid--{name}")
            under = solid(self.styles.background, Color(0, 0, 0))
            bg = solid(styles.background, under) if styles.background.a > 0 else None
            fg = readable(solid(styles.color, bg or under), bg or under)
            got = text_style(fg, bg, bold=styles.text_style.bold)
            self._styles[name] = got
        return got

    def role_style(self, role: str) -> Style:
        """The style of a role's cells, for the legend and the panels to match the grid."""
        return self._style(role)

    # ------------------------------------------------------------------ cursor
    def set_cursor(self, cell: int) -> None:
        if not self.grid.cells:
            return
        cell = min(max(cell, 0), len(self.grid.cells) - 1)
        old, self.cursor = self.cursor, cell
        for c in {old, cell}:
            self._strips.pop(self.placement.xy[c][1], None)
        group_lines = {self.placement.xy[self.grid.groups[self.grid.cells[c].group].cells[0]][1] for c in (old, cell)}
        for y in group_lines:  # the node label in bold follows the cursor
            self._strips.pop(y, None)
        self.refresh()
        self.show_cursor()
        self.post_message(self.Moved(cell))

    def show_cursor(self) -> None:
        if self.grid.cells:
            _x, y = self.placement.xy[self.cursor]
            self.scroll_to_region(Region(0, y, 1, 1), animate=False, force=True, immediate=True)

    def action_move(self, delta: int) -> None:
        self.set_cursor(self.cursor + delta)

    def action_vertical(self, down: int, lines: int) -> None:
        if self.grid.cells:
            self.set_cursor(vertical(self.placement, self.cursor, bool(down), lines or max(self.size.height - 1, 1)))

    def action_goto(self, cell: int) -> None:
        self.set_cursor(cell if cell >= 0 else len(self.grid.cells) - 1)

    def on_click(self, event: events.Click) -> None:
        x, y = event.x + int(self.scroll_x), event.y + int(self.scroll_y)
        for cx, k in self.placement.lines.get(y, []):
            if cx == x:
                self.set_cursor(k)
                if event.chain == 2:
                    self.post_message(self.Chosen(k))
                return

    # ------------------------------------------------------------------ render
    def render_line(self, y: int) -> Strip:
        line = y + int(self.scroll_y)
        width = self.size.width
        strip = self._strips.get(line)
        if strip is None:
            strip = self._line(line)
            self._strips[line] = strip
            if len(self._strips) > 512:
                self._strips.pop(next(iter(self._strips)))
        return strip.crop_extend(0, width, self.rich_style)

    def _line(self, line: int) -> Strip:
        p = self.placement
        pieces: list[tuple[int, Segment]] = []
        current_group = self.grid.cells[self.cursor].group if self.grid.cells else -1
        for x, gi in p.labels.get(line, []):
            g = self.grid.groups[gi]
            style = self.rich_style + self._style("label-current" if gi == current_group else "label")
            pieces.append((x, Segment(clip(g.title, p.name_width).ljust(p.name_width), style)))
        cursor_style = Style(reverse=True, bold=True, underline=True)
        for x, first, n in p.runs.get(line, []):
            for i in range(n):
                k = first + i
                c = self.grid.cells[k]
                style = self._style(c.role)
                if k == self.cursor:
                    style = style + cursor_style
                pieces.append((x + i, Segment(c.letter, style)))
        pieces.sort(key=lambda xs: xs[0])
        segs: list[Segment] = []
        at = 0
        for x, seg in pieces:
            if x > at:
                segs.append(Segment(" " * (x - at), self.rich_style))
            segs.append(seg)
            at = x + seg.cell_length
        return Strip(segs, at)
