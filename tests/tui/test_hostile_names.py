"""Archive-member names with escape sequences, as the TUI's status line and notices show them."""

from __future__ import annotations

import io
import tarfile

from conftest import screen_text, settle
from npudiag_tui.core.formats.text import CONTROL_RE, visible
from npudiag_tui.tui.widgets.status_bar import StatusBar

EVIL = "log/\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x9b2J.log"


async def test_status_line_and_problem_notice_show_member_names_inert(tree, tmp_path):
    from npudiag_tui.tui.app import NpuDiagApp

    bundle = tmp_path / "bundle.tar.gz"
    with tarfile.open(bundle, "w:gz") as tf:
        for name in (EVIL, "../" + EVIL):  # one read, one refused (a problem notice)
            info = tarfile.TarInfo(name)
            data = b"RuntimeError: boom\n"
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    app = NpuDiagApp([str(bundle)], [], [])
    async with app.run_test(size=(200, 45)) as pilot:
        await settle(pilot)
        assert any(EVIL in p for p in app.ws.problems)
        app.query_one(StatusBar).set_text("reading bundle.tar.gz!" + EVIL)  # any caller, raw
        await pilot.pause()
        shown = screen_text(app)
        assert not CONTROL_RE.search(shown.replace("\n", "")), repr(shown)
        assert visible(EVIL)[:30] in shown
