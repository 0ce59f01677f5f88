"""The app's key table as rows of (keys, what they do), derived from the bindings.

The bindings (`NpuDiagApp.BINDINGS`) are the one written copy of the keys: each user-facing
binding carries its long description in `tooltip`. The help screen, the command palette and
the README table (`tools/keys_table.py`) are all generated from them, so none can drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from textual.binding import Binding

# Keys that belong to the log panes and Textual itself, not to the app's bindings; the help
# screen lists them after the app's keys so a newcomer sees how to move.
PANE_KEYS: list[tuple[str, str]] = [
    ("j k up down", "move the cursor; pgup/pgdn, g/G home/end, h/l scroll sideways"),
    ("ctrl+p", "command palette (every action)"),
]


@dataclass(frozen=True)
class KeyRow:
    keys: list[str]  # as shown, e.g. ["e", "E"]
    does: str


def key_shown(binding: Binding) -> str:
    """The key as a user types it: the binding's display form, else its first key name."""
    return binding.key_display or binding.key.split(",")[0]


def described(bindings: Iterable[Binding]) -> list[Binding]:
    """The user-facing bindings: those with a description for help (`tooltip`)."""
    return [b for b in bindings if b.tooltip]


def _pair_of(first: Binding, second: Binding) -> str | None:
    """The merged text of a next/previous pair ("next / previous error"), else None.

    A pair is `next_X` followed by `prev_X` whose text is the same with "next" replaced by
    "previous"; the merge then loses nothing."""
    if not (first.action.startswith("next_") and second.action == "prev_" + first.action[5:]):
        return None
    if not first.tooltip.startswith("next ") or second.tooltip != "previous " + first.tooltip[5:]:
        return None
    return "next / previous " + first.tooltip[5:]


def key_rows(bindings: Sequence[Binding]) -> list[KeyRow]:
    """One row per user-facing binding, a next/previous pair folded into one row."""
    shown = described(bindings)
    rows: list[KeyRow] = []
    k = 0
    while k < len(shown):
        merged = _pair_of(shown[k], shown[k + 1]) if k + 1 < len(shown) else None
        if merged is not None:
            rows.append(KeyRow([key_shown(shown[k]), key_shown(shown[k + 1])], merged))
            k += 2
        else:
            rows.append(KeyRow([key_shown(shown[k])], shown[k].tooltip))
            k += 1
    return rows
