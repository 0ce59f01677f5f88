"""A hostile console line and a hostile file name, as the terminal would receive them.

Reads the composed screen (every widget's rendered strips, what the driver writes), so a raw
ESC, BEL, C1 CSI or bidi override anywhere (pane, status bar, side panel, notices) fails.
"""

from __future__ import annotations

from conftest import screen_text, settle
from npudiag_tui.core.formats.text import CONTROL_RE, visible
from npudiag_tui.tui.widgets.log_view import LogView

HOSTILE = "\x1b]52;c;SGVsbG8=\x07 \x1b[2J \x9b2J \u202eevil"
NAME = "job\x1b[2J\x9b\u202e.log"


async def test_hostile_line_and_file_name_render_as_visible_escapes(tree):
    from npudiag_tui.tui.app import NpuDiagApp

    log_root, train = tree
    evil = train.parent / NAME
    evil.write_text("step 1 ok\nRuntimeError: boom " + HOSTILE + "\n", encoding="utf-8")
    app = NpuDiagApp([str(log_root)], [str(train), str(evil)], [])
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        app.view("console").focus()
        await pilot.pause()
        await pilot.press("slash", *"boom", "enter")
        await settle(pilot)
        view = app.focused
        assert isinstance(view, LogView)
        fid, line = view.ref_at(view.cursor)
        assert app.ws.files[fid].display.endswith(NAME)
        await pilot.pause()
        shown = screen_text(app)
        assert not CONTROL_RE.search(shown.replace("\n", "")), repr(shown)
        assert "\u241b]52;c;SGVsbG8=\u2407 \u241b[2J \\x9b2J \\u202eevil" in shown  # the line, inert
        assert visible(NAME) in shown  # the file name in the status bar, inert
