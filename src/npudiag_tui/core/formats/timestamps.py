"""Every timestamp shape Ascend jobs print, normalised to µs since the epoch.

No log states a zone, so times are naive wall-clock values: we treat them as if they were UTC
purely to get integers that sort and subtract. Resolution is kept so that a seconds-only stamp
can be compared with a µs stamp of the same event (`10:45:23` means [23.000, 24.000)).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

US = 1_000_000


class Stamp(NamedTuple):
    us: int  # µs since the epoch of the naive clock
    resolution: int  # µs covered by the stamp (1, 1_000 or 1_000_000)
    kind: str


_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@lru_cache(maxsize=4096)
def _days(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 (proleptic Gregorian), cached because logs repeat the same dates."""
    if not (1 <= month <= 12 and 1 <= day <= _MONTH_DAYS[month - 1]) or (
            month == 2 and day == 29 and not (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))):
        raise ValueError("bad date")  # 31 February is no stamp (it would become 3 March)
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def to_us(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0,
          micro: int = 0) -> int:
    if hour > 23 or minute > 59 or second > 60:
        raise ValueError("bad time")
    return ((_days(year, month, day) * 24 + hour) * 60 + minute) * 60 * US + second * US + micro


def format_us(us: int | None) -> str | None:
    """ISO text for reports: `2026-01-01T00:00:01.123456`."""
    if us is None:
        return None
    days, rem = divmod(us, 86400 * US)
    # inverse of _days (civil_from_days)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y += m <= 2
    secs, micro = divmod(rem, US)
    hh, r = divmod(secs, 3600)
    mm, ss = divmod(r, 60)
    return f"{y:04d}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{micro:06d}"


# --- the shapes (docs/formats.md, "Timestamps") ----------------------------------------------
# MindSpore's Python logger prints the µs unpadded (`07:56:57.170.12` is 170 ms 12 µs)
TS6 = r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{1,3})(?!\d)"
TS6_RE = re.compile(TS6)
TS6_BYTES = re.compile(TS6.encode())
_HEADER_S = re.compile(r"(?<![\d.])(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)(?![.\d])")
_PYLOG = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[,.:](\d{1,9}))?")
_VLLM = re.compile(r"(?:^|\s)(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
# c10 prints month*100+day unpadded (`W311` = March 11) and CLOCK_MONOTONIC ns after the second:
# good to the second only
_C10 = re.compile(r"\[?[WEIF](\d{3,4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9})")
# glog prints the month and day zero-padded (or the full date), then wall-clock µs, the thread id
# and the source: `E0419 16:59:47.826553 19842 client.cpp:1521]`, `I20241122 10:02:56.407680 2814… F.cpp:339]`
_GLOG = re.compile(r"(?<![\w.])[IWEF](?:(\d{4})(\d\d)(\d\d)|(\d\d)(\d\d)) (\d\d):(\d\d):(\d\d)\.(\d{6}) +\d+ [\w./+-]+:\d+\]")
EPOCH_MARK = "received at time="
"""What a crash header's epoch stamp follows (abseil, Ray, glog's failure handler): seconds, UTC."""
_EPOCH = re.compile(EPOCH_MARK + r"(\d{9,11})")
_NAME = re.compile(r"_(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d{3})\.log")


def parse_ts6(match: re.Match) -> int:
    g = match.groups()
    return to_us(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]),
                 int(g[6]) * 1000 + int(g[7]))


def _first_ts6(pattern: re.Pattern, raw):  # type: ignore[type-arg]
    m = pattern.search(raw)
    if not m:
        return None
    try:
        return parse_ts6(m)
    except ValueError:
        return None


# The same stamp with the whole second as one group: logs repeat each second thousands of
# times, so its µs value is cached and only the fraction is parsed per line (index, merge).
TS6_HEAD = re.compile(rb"(\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d)\.(\d{3})\.(\d{3})")
TS6_SECOND_US: dict[bytes, int] = {}  # "YYYY-MM-DD-hh:mm:ss" -> µs


def ts6_head_us(m: re.Match) -> int | None:  # type: ignore[type-arg]
    """µs of a `TS6_HEAD` match (None for an impossible date), the second from the cache."""
    sec, ms, us = m.group(1, 2, 3)
    base = TS6_SECOND_US.get(sec)
    if base is None:
        try:
            base = to_us(int(sec[0:4]), int(sec[5:7]), int(sec[8:10]), int(sec[11:13]), int(sec[14:16]),
                         int(sec[17:19]))
        except ValueError:
            return None
        if len(TS6_SECOND_US) > 200_000:
            TS6_SECOND_US.clear()
        TS6_SECOND_US[sec] = base
    return base + int(ms + us)


def ts6_bytes_to_us(raw: bytes) -> int | None:
    """A TS6 stamp from raw bytes, or None. Used by the indexer on block boundaries."""
    return _first_ts6(TS6_BYTES, raw)


def ts6_to_us(text: str) -> int | None:
    """The first TS6 stamp anywhere in a line (a CANN block's recorded time), or None."""
    return _first_ts6(TS6_RE, text)


def name_time(filename: str) -> int | None:
    """Creation time from `plog-<pid>_<YYYYMMDDhhmmssmmm>.log` (ms resolution)."""
    m = _NAME.search(filename)
    if not m:
        return None
    g = [int(x) for x in m.groups()]
    try:
        return to_us(g[0], g[1], g[2], g[3], g[4], g[5], g[6] * 1000)
    except ValueError:
        return None


def find_stamp(line: str, year_hint: int | None = None) -> Stamp | None:
    """The line's own timestamp, of whatever shape, or None.

    Looks at the head of the line first (where loggers put it) and at most 400 characters,
    so long lines cost nothing extra. `year_hint` fills the year for shapes without one
    (vLLM, c10).
    """
    head = line[:400]
    try:
        m = TS6_RE.search(head)
        if m:
            return Stamp(parse_ts6(m), 1, "ts6")
        m = _VLLM.search(head)
        if m and year_hint:
            g = [int(x) for x in m.groups()]
            return Stamp(to_us(year_hint, g[0], g[1], g[2], g[3], g[4]), US, "vllm")
        m = _HEADER_S.search(head)
        if m:
            g = [int(x) for x in m.groups()]
            return Stamp(to_us(*g), US, "seconds")
        m = _PYLOG.search(head)
        if m:
            g = m.groups()
            frac = g[6] or ""
            micro = int((frac + "000000")[:6]) if frac else 0
            res = 10 ** (6 - min(len(frac), 6)) if frac else US
            return Stamp(to_us(int(g[0]), int(g[1]), int(g[2]), int(g[3]), int(g[4]), int(g[5]),
                               micro), res, "pylog")
        m = _GLOG.search(head)
        if m:
            g = m.groups()
            year = int(g[0]) if g[0] else year_hint
            if year:
                month, day = (int(g[1]), int(g[2])) if g[0] else (int(g[3]), int(g[4]))
                return Stamp(to_us(year, month, day, int(g[5]), int(g[6]), int(g[7]), int(g[8])), 1, "glog")
        m = _C10.search(head)
        if m and year_hint:
            month, day = divmod(int(m.group(1)), 100)
            return Stamp(to_us(year_hint, month, day, int(m.group(2)), int(m.group(3)), int(m.group(4))),
                         US, "c10")
        m = _EPOCH.search(head)
        if m:
            return Stamp(int(m.group(1)) * US, US, "epoch")
    except ValueError:
        return None
    return None


def year_of(us: int) -> int:
    text = format_us(us)
    return int(text[:4]) if text else 1970
