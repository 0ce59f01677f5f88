"""Lines a first pass can miss: a last line without a newline (how a crashed process's final line
usually looks), a first line behind a UTF-8 BOM."""

from __future__ import annotations

import json
import subprocess
import sys

from npudiag_tui.core.index import FileIndex

from test_diagnosis import anchor_text, diagnose


def test_console_last_line_without_newline_is_the_anchor(tmp_path):
    ws, d = diagnose(tmp_path, {"train.log": "INFO start\nRuntimeError: NPU out of memory. Tried to allocate 2.00 GiB"})
    assert anchor_text(ws, d) == "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB"
    assert d.anchor.ref.line == 1


def test_plog_last_line_without_newline_is_the_anchor(tmp_path):
    line = "[ERROR] RUNTIME(5,python):2026-03-11-10:00:00.000.001 [a.cc:1]5 rtMalloc: out of memory"
    ws, d = diagnose(tmp_path, {"debug/plog/plog-5_20260311100000000.log":
                                "[INFO] RUNTIME(5,python):2026-03-11-09:59:59.000.001 [a.cc:1]5 start\n" + line})
    assert anchor_text(ws, d) == line


def test_report_cli_reads_the_last_line(tmp_path):
    (tmp_path / "train.log").write_text("INFO start\nSegmentation fault (core dumped)")
    out = subprocess.run([sys.executable, "-m", "npudiag_tui", "--report", "json", str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    anchor = json.loads(out)["anchor"]
    assert anchor["line"] == 2 and anchor["text"] == "Segmentation fault (core dumped)"


def test_lookalike_a_live_index_holds_the_partial_line_back(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("INFO start\nRuntimeError: half written")
    idx = FileIndex(str(path), 0, "train.log")
    idx.include_partial = False  # following: the line is not finished yet
    seen: list[bytes] = []
    idx.extend(on_chunk=lambda chunk: seen.append(chunk.bytes()))
    assert b"half written" not in b"".join(seen)


def test_utf8_bom_does_not_hide_an_error_on_the_first_line(tmp_path):
    line = "[ERROR] RUNTIME(5,python):2026-03-11-10:00:00.000.001 [a.cc:1]5 rtMalloc: out of memory"
    (tmp_path / "plog-5_20260311100000000.log").write_bytes(
        b"\xef\xbb\xbf" + line.encode() + b"\n[INFO] RUNTIME(5,python):2026-03-11-10:00:01.000.001 [a.cc:1]5 x\n")
    (tmp_path / "train.log").write_bytes(b"\xef\xbb\xbfRuntimeError: NPU out of memory. Tried to allocate 2 GiB\n")
    for name in ("plog-5_20260311100000000.log", "train.log"):
        out = subprocess.run([sys.executable, "-m", "npudiag_tui", "--report", "json", str(tmp_path / name)],
                             capture_output=True, text=True, check=True).stdout
        assert "out of memory" in json.loads(out)["anchor"]["text"], name


def test_text_whose_lower_case_is_longer_does_not_shift_later_lines(tmp_path):
    (tmp_path / "train.log").write_text("İİİİİİİİİİİİİİİİİİİİ\nok\nRuntimeError: x\nok\nok\nok\nok\nok\nok\n",
                                        encoding="utf-8")
    ws, d = diagnose(tmp_path, {})
    assert anchor_text(ws, d) == "RuntimeError: x"


def test_nul_runs_do_not_make_a_log_binary(tmp_path):
    """A copytruncate leftover: a run of NUL bytes, then the text the job went on writing."""
    (tmp_path / "train.log").write_bytes(b"\x00" * 5000 + b"INFO step 1\nRuntimeError: NPU out of memory.\n")
    ws, d = diagnose(tmp_path, {})
    assert anchor_text(ws, d) == "RuntimeError: NPU out of memory."


def test_lookalike_a_real_binary_is_still_skipped(tmp_path):
    import os

    (tmp_path / "core.bin").write_bytes(os.urandom(8192))
    (tmp_path / "train.log").write_text("RuntimeError: boom\n")
    ws, d = diagnose(tmp_path, {})
    assert [f.display for f in ws.files] == ["train.log"]


def test_a_file_whose_lines_end_in_cr_alone_is_split_on_cr(tmp_path):
    """Old Mac line ends (or a tool that only returns the carriage): without LF the file was one
    line and its error unreadable; CR is then the line end, offsets unchanged."""
    (tmp_path / "cr.log").write_bytes(b"INFO start\rRuntimeError: NPU out of memory.\rINFO end\r")
    ws, d = diagnose(tmp_path, {})
    idx = ws.indexes[0]
    assert idx.line_count == 3
    assert idx.lines(0, 3) == ["INFO start", "RuntimeError: NPU out of memory.", "INFO end"]
    assert d.anchor.ref.line == 1


def test_lookalike_crlf_and_progress_carriages_keep_lf_line_ends(tmp_path):
    (tmp_path / "crlf.log").write_bytes(b"INFO a\r\n 10%\r 50%\r100%\r\nRuntimeError: x\r\n")
    idx = FileIndex(str(tmp_path / "crlf.log"))
    idx.extend()
    assert idx.line_count == 3
