"""The console scan on huge lines (#13 defect 12): memory per line is bounded, the error is still
found, and reports cut the line and give its full length (`line_bytes`).

Memory is measured with tracemalloc as a ratio against the index pass alone in the same test
(the index holds the line to find its newline; the scan must not add copies of it). Figures:
bench/scan_memory.py.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from npudiag_tui.cli import main
from npudiag_tui.core.index import FileIndex
from npudiag_tui.core.model import Stream
from npudiag_tui.core.scan import SourceScan

MB = 1 << 20


def peak_of_index_pass(path: Path, scan: SourceScan | None) -> int:
    idx = FileIndex(str(path), 0)
    tracemalloc.start()
    try:
        idx.extend(on_chunk=(lambda chunk: scan.feed(0, chunk)) if scan is not None else None)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_console_line_costs_the_scan_a_window_not_the_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_bytes(b"step 1 ok\nRuntimeError: NPU function error: EZ9999 " + b"y" * (24 * MB) + b"\nok\n")
    alone = peak_of_index_pass(path, None)
    scan = SourceScan(Stream.STDOUT)
    with_scan = peak_of_index_pass(path, scan)
    assert [h.line for h in scan.hits] == [1]
    # the scan used to decode, lower and copy the chunk: three times the line on top of the index
    assert with_scan - alone < 4 * MB, f"the scan added {(with_scan - alone) / MB:.1f} MB for a 24 MB line"


def test_a_key_far_into_a_huge_line_is_found(tmp_path):
    """The line is searched window by window (with an overlap): a key past the first window, or
    cut by a window's end, still marks the line."""
    path = tmp_path / "train.log"
    for pad in (3 * MB, 3 * MB - 2, (1 << 20) - 3):
        path.write_bytes(b"ok\n" + b"y" * pad + b" segmentation fault\nfine\n")
        scan = SourceScan(Stream.STDOUT)
        FileIndex(str(path), 0).extend(on_chunk=lambda chunk: scan.feed(0, chunk))
        assert [h.line for h in scan.hits] == [1], pad
        assert len(scan.hits[0].text) < 64 * 1024  # the hit keeps the line's head only


def test_the_error_on_a_huge_line_is_the_anchor_and_reports_cut_it(tmp_path, capsys):
    path = tmp_path / "train.log"
    head = "RuntimeError: NPU function error: aclnnAdd, error code is 561103"
    line = head + " " + "z" * (3 * MB)
    path.write_text("step 1 ok\n" + line + "\nafter\n", encoding="utf-8")
    code = main(["--stdout", str(path), "--report", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    anchor = json.loads(out)["anchor"]
    assert anchor["line"] == 2 and anchor["text"].startswith(head)
    assert anchor["line_bytes"] == len(line) and len(anchor["text"]) <= 64 * 1024 < len(line)
    code = main(["--stdout", str(path), "--report", "text"])
    text = capsys.readouterr().out
    assert code == 0 and len(text) < 64 * 1024 and head in text and f"{len(line):,}" in text


def test_windows_of_blank_lines_are_not_searched(tmp_path):
    """A zip bomb's gigabytes of newlines: a window of nothing but blanks is skipped at C speed
    (`bytes.isspace`) instead of being searched for 40 keys and 6 grammars (which read 512 MB of
    newlines at 17 MB/s; bench/scan_memory.py). Counted as the searches the scan starts over the
    bytes, not timed."""
    import sys

    from npudiag_tui.core import scan as scan_module

    def searches_over(blank_mb: int) -> int:
        path = tmp_path / f"blank{blank_mb}.log"
        path.write_bytes(b"\n" * (blank_mb * MB) + b"RuntimeError: after the blanks\n")
        scan = SourceScan(Stream.STDOUT)
        searches = 0

        def count(frame, event, arg):
            nonlocal searches
            if event == "c_call" and frame.f_code.co_filename == scan_module.__file__ and \
                    getattr(arg, "__name__", "") in ("find", "lower", "finditer", "match", "search"):
                searches += 1

        idx = FileIndex(str(path), 0)
        sys.setprofile(count)
        try:
            idx.extend(on_chunk=lambda chunk: scan.feed(0, chunk))
        finally:
            sys.setprofile(None)
        assert [(h.line, h.text) for h in scan.hits] == [(blank_mb * MB, "RuntimeError: after the blanks")]
        return searches

    more = (32 - 4) * MB // scan_module.SCAN_WINDOW  # windows of blank lines
    grew = searches_over(32) - searches_over(4)
    assert grew <= 2 * more, f"{grew} more searches for {more} more windows of blank lines"
