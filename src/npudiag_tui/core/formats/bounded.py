"""Bounded regex work per line: a hostile or merely huge console line must not freeze the app.

Python's `re` backtracks. A pattern such as `(.+?):(\\S+?):(\\d+) NPU error` is tried at every
start position of a line and re-scans the rest of the line from each: quadratic or worse, with
the interpreter lock held, so the TUI freezes. Two tools keep the work linear:

* `MAX_GRAMMAR_CHARS`: what any grammar looks at of one line. Real CANN and torch_npu messages
  are far shorter; the full line stays in the index for display.
* `Anchored`: a pattern that is only tried in a window around a literal it cannot match without
  (`NPU function error`), found first at C speed. The window bounds each try, and the number of
  tries per line is capped.
"""

from __future__ import annotations

import re

MAX_GRAMMAR_CHARS = 16 * 1024
"""The most of one line that a grammar (a per-line regex) is given."""


class Anchored:
    """`re.Pattern.search` for a pattern tried only around its anchor, with a bounded window.

    The match it returns is an ordinary `re.Match` of the full pattern on the whole text (its
    groups and offsets are the same as a plain search would give whenever the match fits the
    window), so callers and tests use it like the compiled pattern it replaces.
    """

    def __init__(self, anchor: str, pattern: str, *, before: int = 512, after: int = 2048,
                 tries: int = 16, start_after: str | None = None, flags: int = 0) -> None:
        self.anchor = re.compile(anchor, flags)
        self.full = re.compile(pattern, flags)
        self.pattern = pattern
        self.before, self.after, self.tries = before, after, tries
        # where a match may begin: after one of these characters (or at the text's start). Given,
        # the pattern is only *matched* at those few places before the anchor instead of searched
        # across the window (a search tries every start, each re-scanning the window).
        self.start_after = start_after

    def search(self, text: str) -> re.Match[str] | None:
        for done, hit in enumerate(self.anchor.finditer(text)):
            if done >= self.tries:
                return None
            lo, hi = max(0, hit.start() - self.before), min(len(text), hit.end() + self.after)
            if self.start_after is None:
                m = self.full.search(text, lo, hi)
                if m is not None:
                    return m
                continue
            for start in range(lo, hit.start() + 1):
                if start == 0 or text[start - 1] in self.start_after:
                    m = self.full.match(text, start, hi)
                    if m is not None and m.start() <= hit.start() < m.end():
                        return m
        return None
