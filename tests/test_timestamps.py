"""Every timestamp shape of docs/formats.md ("Timestamps"), normalised to naive µs with a resolution."""

from __future__ import annotations

import datetime as dt

import pytest

from npudiag_tui.core.formats.timestamps import US, find_stamp, format_us, name_time, to_us

from conftest import case_line


def iso(us: int) -> str:
    return format_us(us)


@pytest.mark.parametrize("line, hint, expect, res, kind", [
    ("[ERROR] RUNTIME(971,):2026-06-17-12:12:04.882.278 [api_c.cc:1081]971 rtMemcpy:ErrCode=107030",
     None, "2026-06-17T12:12:04.882278", 1, "ts6"),
    ("EZ9999: [PID: 11657] 2025-12-24-02:36:12.999.877 expert count is: 128",
     None, "2025-12-24T02:36:12.999877", 1, "ts6"),
    # MindSpore's Python logger leaves the µs unpadded
    ("[WARNING] ME(1049:2814,MainProcess):2024-05-31-07:56:57.170.12 [mindspore.py:59] versions differ",
     None, "2024-05-31T07:56:57.170012", 1, "ts6"),
    ("[ERROR] 2024-06-20-10:41:32 (PID:59450, Device:-1, RankID:-1) ERR00008 PTA resource not found",
     None, "2024-06-20T10:41:32.000000", US, "seconds"),
    ("(EngineCore_DP0 pid=106187) INFO 05-21 21:33:34 [core.py:103] Initializing a V1 LLM engine",
     2026, "2026-05-21T21:33:34.000000", US, "vllm"),
    ("[rank5]:[W0311 07:22:09.118630254 NPUStream.cpp:371] Warning: EZ9999: Internal error!",
     2026, "2026-03-11T07:22:09.000000", US, "c10"),  # the 9 digits are monotonic ns, not wall time
    ("2026-01-05 16:03:27,514 - root - ERROR - boom", None, "2026-01-05T16:03:27.514000", 1000, "pylog"),
    ("[2026-01-05 16:03:27:514] [rank0] ERROR boom", None, "2026-01-05T16:03:27.514000", 1000, "pylog"),
    ("*** SIGSEGV received at time=1767580920 on cpu 3 ***", None, "2026-01-05T02:42:00.000000", US, "epoch"),
])
def test_every_shape(line, hint, expect, res, kind):
    st = find_stamp(line, hint)
    assert st is not None
    assert iso(st.us) == expect
    assert st.resolution == res
    assert st.kind == kind


def test_epoch_is_utc():
    st = find_stamp("*** SIGSEGV received at time=1767580920 on cpu 3")
    expect = dt.datetime.fromtimestamp(1767580920, dt.timezone.utc).replace(tzinfo=None)
    assert iso(st.us) == expect.isoformat(timespec="microseconds")


def test_yearless_shapes_need_a_hint():
    assert find_stamp("INFO 05-21 21:33:34 [core.py:103] x", None) is None
    assert find_stamp("[W0311 07:22:09.118630254 NPUStream.cpp:371] Warning", None) is None
    # the hint decides the year (New Year matters)
    a = find_stamp("INFO 12-31 23:59:59 [core.py:1] x", 2025)
    b = find_stamp("INFO 01-01 00:00:01 [core.py:1] x", 2026)
    assert b.us - a.us == 2 * US


def test_no_stamp():
    for line in ("  File \"/x.py\", line 60, in synchronize", "#0  0x0000fffe72985aa4 in ?? ()",
                 "W NPUStream.cpp:409] Warning: NPU warning, error code is 507046", "", "    ^^^^^"):
        assert find_stamp(line, 2026) is None, line


def test_invalid_dates_do_not_raise():
    assert find_stamp("2026-13-45-25:61:61.000.000 nonsense") is None
    assert name_time("plog-1_20261345256161000.log") is None


def test_name_time_ms():
    t = name_time("plog-123_20260617121204881.log")
    assert iso(t) == "2026-06-17T12:12:04.881000"
    assert iso(name_time("device-4127_20260311072241498.log")) == "2026-03-11T07:22:41.498000"
    assert name_time("stdout.log") is None
    # name time orders like the calendar
    assert name_time("plog-1_20251231235959999.log") < name_time("plog-1_20260101000000000.log")


def test_format_us_roundtrip():
    assert format_us(None) is None
    for args in [(1970, 1, 1), (2000, 2, 29, 23, 59, 59, 999999), (2024, 12, 31, 0, 0, 1, 1),
                 (1969, 12, 31, 23, 59, 59, 0), (2100, 3, 1, 12, 0, 0, 5)]:
        us = to_us(*args)
        expect = dt.datetime(*args)
        assert format_us(us) == expect.isoformat(timespec="microseconds")
        assert us == int((expect - dt.datetime(1970, 1, 1)) / dt.timedelta(microseconds=1))


def test_stamp_beyond_head_is_ignored_cheaply():
    line = "x" * 1000 + " 2026-06-17-12:12:04.882.278"
    assert find_stamp(line) is None


def test_real_case_stamps():
    line = case_line("12:12:04.882.278 [api_c.cc:1081]", "va10630")
    assert iso(find_stamp(line).us) == "2026-06-17T12:12:04.882278"
    line = case_line("(PID:13075, Device:0, RankID:8)", "va1443")
    st = find_stamp(line, 2025)
    assert st.resolution == US
    assert iso(st.us).startswith("2025-06-25T10:45:23")
    line = case_line("INFO 05-21 21:33:34", "va9447")
    assert iso(find_stamp(line, 2026).us) == "2026-05-21T21:33:34.000000"


def test_impossible_dates_are_not_stamps():
    assert find_stamp("[ERROR] RUNTIME(1,):2026-02-31-10:00:00.000.001 [a.cc:1]1 x") is None
    assert find_stamp("[ERROR] RUNTIME(1,):2025-02-29-10:00:00.000.001 [a.cc:1]1 x") is None
    assert format_us(find_stamp("[ERROR] RUNTIME(1,):2024-02-29-10:00:00.000.001 [a.cc:1]1 x").us).startswith(
        "2024-02-29T10:00:00")
    assert find_stamp("2026-04-31 10:00:00,123 - root - ERROR - x") is None
