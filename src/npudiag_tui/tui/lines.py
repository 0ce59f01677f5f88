"""Turning a raw log line into text that is safe to draw (rendered through rich Text, never markup).

The control-character policy itself lives in `core.formats.text` and the level of a line in
`core.formats.levels`, so that what the panes show agrees with the reports and the diagnosis.
"""

from __future__ import annotations

from npudiag_tui.core.formats.text import visible

MAX_CHARS = 2000
"""Longest part of a line that is rendered; the rest is cut (the index keeps it whole)."""


def sanitize(line: str) -> str:
    """Make a decoded line safe for the terminal: cut, expand tabs, show control characters.

    Cutting bounds the render cost of a pathological line; tabs are expanded here because a
    terminal would move the cursor for them; everything else in `text.visible`'s set becomes a
    visible escape, so `\\x1b[2J` reads as `␛[2J` and cannot clear the screen.
    """
    if len(line) > MAX_CHARS:
        line = line[:MAX_CHARS] + "…"
    if "\t" in line:
        line = line.expandtabs(4)
    return visible(line)
