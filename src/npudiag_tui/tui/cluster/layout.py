"""The cluster grid as data: one cell per rank, grouped by node, placed for a given width.

Why a model apart from the widget: the grid holds thousands of cells (1,000 nodes of 16 ranks),
so the widget renders only the visible lines from this precomputed placement, and the walk keys
(roots, suspects, missing nodes) and cursor moves are plain index arithmetic that the tests can
check without a terminal. Nothing here imports textual or rich.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

ROLE_LETTER = {"root": "R", "victim": "v", "healthy": "h", "silent": "S", "missing": "M"}
"""A letter per role, so roles read without colour; the rare roles that matter are capitals."""
ROLE_ORDER = ("root", "victim", "healthy", "silent", "missing")
NO_SUMMARY = "(no summary)"
"""The group of ranks of the world that no node's summary holds (and a root on such a node)."""
NAME_MAX = 14
GAP = 2


@dataclass(frozen=True)
class Cell:
    """One rank (`rank` set) or one node that sent nothing (`rank` None, `reason` set)."""

    group: int
    node: str | None
    rank: int | None
    role: str
    row: dict | None = None  # the verdict's rank row
    reason: str | None = None

    @property
    def letter(self) -> str:
        return ROLE_LETTER.get(self.role, "?")


@dataclass
class Group:
    title: str
    node: str | None  # None: the ranks in no summary
    source: str | None = None  # the summary's file (or ray:NODE)
    reason: str | None = None  # a node that sent nothing: why
    cells: list[int] = field(default_factory=list)  # indices into Grid.cells


@dataclass
class Grid:
    """Cells in reading order (node by node, ranks ascending) and the walk lists."""

    groups: list[Group]
    cells: list[Cell]
    roots: list[int]
    suspects: list[int]
    missing: list[int]

    def index_of_rank(self, rank: int) -> int | None:
        for k, c in enumerate(self.cells):
            if c.rank == rank:
                return k
        return None


def build_grid(verdict: dict) -> Grid:
    """The grid of a `"npudiag-cluster/1"` verdict."""
    by_node: dict[str | None, list[dict]] = {}
    for row in verdict.get("ranks") or []:
        by_node.setdefault(row.get("node"), []).append(row)
    named = [n for n in verdict.get("nodes") or [] if isinstance(n, dict)]
    order = sorted(named, key=lambda n: (min(n.get("ranks") or [1 << 60]), str(n.get("node"))))
    groups: list[Group] = []
    cells: list[Cell] = []

    def add_group(g: Group, rows: list[dict]) -> None:
        gi = len(groups)
        groups.append(g)
        for row in sorted(rows, key=lambda r: r["rank"]):
            g.cells.append(len(cells))
            cells.append(Cell(gi, g.node, row["rank"], str(row.get("role")), row))

    for n in order:
        add_group(Group(str(n.get("node")), n.get("node"), source=n.get("source")), by_node.pop(n.get("node"), []))
    for node in sorted((k for k in by_node if k is not None), key=str):  # a rank on a node not listed
        add_group(Group(str(node), node), by_node.pop(node))
    if by_node.get(None):
        add_group(Group(NO_SUMMARY, None), by_node.pop(None))
    for m in verdict.get("missing_nodes") or []:
        gi = len(groups)
        g = Group(str(m.get("node")), m.get("node"), reason=str(m.get("reason")))
        g.cells.append(len(cells))
        groups.append(g)
        cells.append(Cell(gi, g.node, None, "missing", None, g.reason))
    return Grid(groups, cells, *_walks(verdict, cells))


def _walks(verdict: dict, cells: list[Cell]) -> tuple[list[int], list[int], list[int]]:
    """Roots; suspects (ranks the others named, then those that went silent first, the root
    excluded); missing (nodes that sent nothing, then the first rank of each run of ranks in no
    summary, so that thousands of missing ranks are a few steps)."""
    at = {c.rank: k for k, c in enumerate(cells) if c.rank is not None}
    roots = [k for k, c in enumerate(cells) if c.role == "root"]
    root_ranks = {cells[k].rank for k in roots}
    suspects: list[int] = []
    named = sorted((c for c in verdict.get("chain") or [] if isinstance(c, dict)),
                   key=lambda c: -int(c.get("reports") or 0))
    for r in [c.get("to_rank") for c in named] + [s.get("rank") for s in verdict.get("silent_first") or []]:
        k = at.get(r)
        if k is not None and r not in root_ranks and k not in suspects:
            suspects.append(k)
    missing = [k for k, c in enumerate(cells) if c.rank is None]
    prev = None
    for k, c in enumerate(cells):
        if c.rank is not None and c.role == "missing" and not (prev is not None and cells[prev].rank == c.rank - 1
                                                                and cells[prev].role == "missing"):
            missing.append(k)
        prev = k if c.rank is not None else None
    return roots, suspects, sorted(missing)


def step(walk: list[int], current: int, forward: bool = True) -> int | None:
    """The next (or previous) walk stop after `current` in reading order, wrapping around."""
    if not walk:
        return None
    if forward:
        k = bisect_left(walk, current + 1)
        return walk[k % len(walk)]
    k = bisect_left(walk, current) - 1
    return walk[k]


@dataclass
class Placement:
    """Where every cell and node label is drawn for one width."""

    width: int
    name_width: int
    per_line: int  # cells per line of a block
    height: int
    xy: list[tuple[int, int]]  # per cell
    labels: dict[int, list[tuple[int, int]]]  # line -> [(x, group)]
    runs: dict[int, list[tuple[int, int, int]]]  # line -> [(x, first cell, count)]
    lines: dict[int, list[tuple[int, int]]]  # line -> [(x, cell)] sorted by x (cursor moves)


def place(grid: Grid, width: int) -> Placement:
    """Blocks of `name cells` side by side, as many per row as the width takes; a node with more
    ranks than fit on one line wraps inside its block."""
    width = max(width, 8)
    longest = max((len(g.title) for g in grid.groups), default=4)
    name_w = min(max(longest, 4), NAME_MAX, max(width // 3, 4))
    most = max((len(g.cells) for g in grid.groups), default=1)
    per_line = max(1, min(most, width - name_w - 1))
    block = name_w + 1 + per_line
    across = max(1, (width + GAP) // (block + GAP))
    xy: list[tuple[int, int]] = [(0, 0)] * len(grid.cells)
    labels: dict[int, list[tuple[int, int]]] = {}
    runs: dict[int, list[tuple[int, int, int]]] = {}
    y = 0
    for first in range(0, len(grid.groups), across):
        row = grid.groups[first:first + across]
        tall = 1
        for j, g in enumerate(row):
            x0 = j * (block + GAP)
            labels.setdefault(y, []).append((x0, first + j))
            n = len(g.cells)
            lines_needed = max(1, -(-n // per_line))
            tall = max(tall, lines_needed)
            for ln in range(lines_needed):
                chunk = g.cells[ln * per_line:(ln + 1) * per_line]
                if not chunk:
                    continue
                cx = x0 + name_w + 1
                runs.setdefault(y + ln, []).append((cx, chunk[0], len(chunk)))
                for i, k in enumerate(chunk):
                    xy[k] = (cx + i, y + ln)
        y += tall
    lines: dict[int, list[tuple[int, int]]] = {}
    for k, (x, yy) in enumerate(xy):
        lines.setdefault(yy, []).append((x, k))
    for v in lines.values():
        v.sort()
    return Placement(width, name_w, per_line, y, xy, labels, runs, lines)


def vertical(p: Placement, current: int, down: bool, count: int = 1) -> int:
    """The cell `count` lines below (or above) `current`, nearest in column; lines without
    cells are skipped; stays put at the edge."""
    x, y = p.xy[current]
    got = current
    moved = 0
    yy = y
    while moved < count:
        yy += 1 if down else -1
        if yy < 0 or yy >= p.height:
            break
        row = p.lines.get(yy)
        if not row:
            continue
        got = min(row, key=lambda xc: (abs(xc[0] - x), xc[0]))[1]
        moved += 1
    return got


def counts(grid: Grid) -> dict[str, int]:
    """Cells per role (ranks; a node that sent nothing counts once under missing)."""
    out = {r: 0 for r in ROLE_ORDER}
    for c in grid.cells:
        out[c.role] = out.get(c.role, 0) + 1
    return out
