"""Which panes go side by side: chosen from the width and the panes that have lines.

Why: the layout was fixed at launch (side by side from 200 columns), so at 220 columns four
panes of 43 columns showed no message at all, and an empty HCCL pane took as much room as the
plog pane. A pane narrower than MIN_PANE_CELLS cannot show a compact line's message; empty
panes shrink to their title row. The app asks again on every resize and when a pane is built.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_PANE_CELLS = 80
"""Narrowest pane put beside another (gutter + tag + module leave ~50 cells of message)."""


@dataclass(frozen=True)
class PanePlan:
    columns: int  # panes per row (1: stacked)
    rows: list[str]  # grid row heights, CSS scalars ("1" for a title-only row, "1fr" otherwise)
    hidden: frozenset[str]  # empty panes left out of a multi-column grid


def plan(area_width: int, panes: list[tuple[str, bool]], forced: str | None = None) -> PanePlan:
    """The grid for `panes` ((key, empty) in screen order) in `area_width` columns.

    `forced` is the user's choice with `v`: "side" (all non-empty panes in one row, however
    narrow) or "stacked" (one column); None chooses by width.
    """
    full = [k for k, empty in panes if not empty]
    empty = [k for k, e in panes if e]
    if forced == "side":
        columns = max(len(full), 1)
    elif forced == "stacked":
        columns = 1
    else:
        columns = max(1, min(len(full), area_width // MIN_PANE_CELLS))
    if columns == 1:  # stacked: an empty pane keeps its title row, the others share the height
        return PanePlan(1, ["1" if e else "1fr" for _, e in panes] or ["1fr"], frozenset())
    rows = -(-len(full) // columns)
    return PanePlan(columns, ["1fr"] * rows, frozenset(empty))
