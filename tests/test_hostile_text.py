"""One control-character policy: hostile log text and file names never reach printed output raw.

OSC 52 writes the clipboard, `ESC [2J` and the C1 CSI (U+009B) clear the screen, U+202E reverses
what follows. Text and markdown reports must show them as visible escapes; JSON must keep the
exact text (json.dumps escapes it), because scripts compare it with the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from npudiag_tui.cli import main
from npudiag_tui.core.formats import console
from npudiag_tui.core.formats.text import CONTROL_RE, strip_controls, visible

HOSTILE = "\x1b]52;c;SGVsbG8=\x07 \x1b[2J \x9b2J \u202eevil\u200b \x7f \x00"
LINE = "RuntimeError: NPU out of memory. Tried to allocate 2.00 MiB " + HOSTILE
NAME = "job\x1b[2J\x9b\u202e\x07.log"


def hostile_console(tmp_path: Path) -> Path:
    path = tmp_path / NAME
    path.write_text("step 1 ok\n" + LINE + "\n", encoding="utf-8")
    return path


def test_visible_and_strip_are_the_two_sides_of_one_set():
    shown = visible(HOSTILE)
    assert not CONTROL_RE.search(shown)
    assert "\u241b]52;c;SGVsbG8=\u2407" in shown and "\u241b[2J" in shown
    assert "\\x9b2J" in shown and "\\u202eevil\\u200b" in shown and "\u2421" in shown and "\u2400" in shown
    assert strip_controls(HOSTILE) == "]52;c;SGVsbG8= [2J 2J evil  "
    assert visible("plain\ttext") == "plain\ttext"  # tabs are whitespace, not controls
    # grammars see the word whole once the characters are removed
    assert console.clean("E\u200bZ9999: Inner Error!\u202e") == "EZ9999: Inner Error!"


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_reports_show_hostile_line_and_file_name_as_visible_escapes(tmp_path, capsys, fmt):
    path = hostile_console(tmp_path)
    code = main(["--stdout", str(path), "--report", fmt, "--no-follow"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for stream in (out, err):
        assert not CONTROL_RE.search(stream.replace("\n", "")), repr(stream)
    assert "\u241b]52;c;SGVsbG8=\u2407" in out and "\\u202eevil" in out  # the line is shown
    assert visible(NAME) in out  # and so is the file name, made visible


def test_json_report_keeps_hostile_text_exact(tmp_path, capsys):
    path = hostile_console(tmp_path)
    code = main(["--stdout", str(path), "--report", "json", "--no-follow"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out  # escaped by json.dumps ...
    doc = json.loads(out)
    assert doc["anchor"]["text"] == LINE  # ... and round-trips exact
    assert doc["inputs"][0]["path"].endswith(NAME)
