"""A followed file's last line without its newline yet (#13 severe 2): a marked row of its pane,
found by the search, possibly the anchor, and one normal line once its newline arrives.

Read through what the pane draws (`render_line`, Textual's Line API) and its public lookups;
bounded waits on conditions, no timed assertions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from npudiag_tui.core.workspace import Workspace
from npudiag_tui.tui.live import LiveWatcher

pytest.importorskip("npudiag_tui.tui.app")

from conftest import settle, until

LAST_WORDS = "RuntimeError: [ERROR] x [/b] EZ9999 the device died at step 4"


def drawn(view) -> list[str]:
    """The pane's rows as drawn on screen (gutter and text)."""
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


@pytest.mark.asyncio
async def test_an_incomplete_last_line_is_a_marked_row_searchable_and_the_anchor(tmp_path: Path):
    from npudiag_tui.tui.app import NpuDiagApp

    log = tmp_path / "train.log"
    log.write_text("".join(f"step {i} loss 0.{i}\n" for i in range(1, 4)), encoding="utf-8")
    app = NpuDiagApp(Workspace.open([], [str(log)]), follow=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        watcher = LiveWatcher(app.ws)
        await app.mount(watcher)
        await until(pilot, lambda: watcher.tail is not None, "the tail started")
        pane = app.view("console")
        lines = pane.count
        assert app.anchor_event() is None  # nothing wrong yet

        # a crashed process's last words: no newline, markup-like text that must stay literal
        append(log, LAST_WORDS)
        await until(pilot, lambda: any(LAST_WORDS in r for r in drawn(pane)), "the incomplete row is drawn")
        row = next(r for r in drawn(pane) if LAST_WORDS in r)
        # marked in the gutter, where the time goes: this console has no stamp, so its pane keeps
        # no clock and the mark is its first sign; the pane's title names the line
        assert row[1] == "⋯" and pane.border_title and "incomplete" in pane.border_title
        assert pane.count == lines + 1
        ref = pane.ref_at(lines)
        assert ref is not None and ref[1] == lines  # the line number it will have

        # the diagnosis reads it: the crash is the anchor, on that row
        await until(pilot, lambda: app.anchor_event() is not None, "the anchor")
        anchor = app.anchor_event().ref
        assert (anchor.file_id, anchor.line) == ref
        assert pane.position_of(*ref) == lines

        # the search finds it and goes to it
        pane.set_cursor(0)
        app.start_search("died at step")
        await until(pilot, lambda: app.search.matches is not None, "the search ended")
        assert {f: list(lines_) for f, lines_ in app.search.matches.items()} == {ref[0]: [ref[1]]}
        await until(pilot, lambda: pane.cursor == lines, "the search went to the row")

        # the newline arrives: the same reference is a normal line, shown once
        append(log, "\n")
        await until(pilot, lambda: not any(LAST_WORDS in r and r[1] == "⋯" for r in drawn(pane)), "the mark went")
        assert pane.count == lines + 1
        shown = [r for r in drawn(pane) if LAST_WORDS in r]
        assert len(shown) == 1 and shown[0].startswith("!")  # the anchor's mark, a normal gutter
        assert pane.position_of(*ref) == lines and pane.text_at(lines) == LAST_WORDS
        watcher.stop()
        await settle(pilot)
