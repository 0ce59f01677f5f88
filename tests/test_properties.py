"""Property-based tests: the grammars, the timestamp parser and the index hold for any input.

Example tests pin the shapes we have seen; these check the invariants every later shape relies
on (a round trip through a grammar, no exception on arbitrary text, an index built in pieces
equals one built at once), on inputs nobody thought to write down.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from npudiag_tui.core.formats.levels import Level, line_level, prefilter
from npudiag_tui.core.formats.plog import parse_plog
from npudiag_tui.core.formats.timestamps import find_stamp, format_us, to_us
from npudiag_tui.core.index import FileIndex
from npudiag_tui.core.model import Stream

PLOG_LEVELS = ["ERROR", "WARNING", "INFO", "DEBUG", "EVENT", "TRACE"]
MODULES = st.from_regex(r"[A-Z][A-Z0-9_]{0,11}", fullmatch=True)
PROCNAMES = st.text(st.characters(blacklist_characters=")\n\r", blacklist_categories=("Cs",)), max_size=20)
MESSAGES = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=200)
MOMENTS = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2099, 12, 31))
ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=600)


def ts6(moment: datetime) -> str:
    """The plog stamp: `YYYY-MM-DD-hh:mm:ss.mmm.uuu`."""
    return moment.strftime("%Y-%m-%d-%H:%M:%S.") + f"{moment.microsecond // 1000:03d}.{moment.microsecond % 1000:03d}"


def epoch_us(moment: datetime) -> int:
    return int((moment - datetime(1970, 1, 1)) / timedelta(microseconds=1))


# ---------------------------------------------------------------- the plog grammar
@given(st.sampled_from(PLOG_LEVELS), MODULES, st.integers(0, 2**31), PROCNAMES, MOMENTS, MESSAGES)
def test_plog_header_round_trips(level, module, pid, procname, moment, message):
    line = f"[{level}] {module}({pid},{procname}):{ts6(moment)} {message}"
    got = parse_plog(line)
    assert got is not None
    assert (got.level, got.module, got.pid, got.procname) == (level, module, pid, procname)
    assert to_us(*got.ts[:6], got.ts[6] * 1000 + got.ts[7]) == epoch_us(moment)
    # what the grammar takes off the message head (file:line, tid, tags) is never invented
    assert message.endswith(got.message) or got.message in message


@given(st.text(st.characters(blacklist_characters="[\n", blacklist_categories=("Cs",)), max_size=40),
       st.sampled_from(PLOG_LEVELS), MODULES, MOMENTS)
def test_plog_header_behind_any_prefix_is_found(prefix, level, module, moment):
    """Console mode: a worker prefix or glued progress bar before the header hides nothing."""
    got = parse_plog(f"{prefix}[{level}] {module}(1,python):{ts6(moment)} boom")
    assert got is not None and got.level == level and got.module == module


@given(ANY_TEXT)
def test_grammars_never_raise_on_arbitrary_text(text):
    parse_plog(text)
    find_stamp(text, 2026)
    for stream in Stream:
        assert isinstance(line_level(text, stream), Level)


# ---------------------------------------------------------------- timestamps
STAMP_SHAPES = [
    ("ts6", lambda m: ts6(m), 1),
    ("pylog-ms", lambda m: m.strftime("%Y-%m-%d %H:%M:%S,") + f"{m.microsecond // 1000:03d}", 1000),
    ("iso-us", lambda m: m.strftime("%Y-%m-%dT%H:%M:%S.%f"), 1),
    ("seconds", lambda m: m.strftime("%Y-%m-%d %H:%M:%S"), 1_000_000),
]


@given(MOMENTS, st.sampled_from(STAMP_SHAPES), MESSAGES)
def test_stamp_shapes_round_trip(moment, shape, message):
    _, render, resolution = shape
    stamp = find_stamp(f"{render(moment)} {message}")
    assert stamp is not None
    expected = epoch_us(moment) // resolution * resolution
    assert stamp.us == expected
    assert format_us(stamp.us).startswith(moment.strftime("%Y-%m-%dT%H:%M:%S"))


@given(st.integers(1990, 2099), st.integers(1, 12), st.integers(1, 31), MESSAGES)
def test_impossible_dates_are_no_stamps(year, month, day, message):
    try:
        datetime(year, month, day)
    except ValueError:
        assert find_stamp(f"{year:04d}-{month:02d}-{day:02d}-10:11:12.000.000 {message}") is None
        assert find_stamp(f"{year:04d}-{month:02d}-{day:02d} 10:11:12,000 {message}") is None
    else:
        assert find_stamp(f"{year:04d}-{month:02d}-{day:02d} 10:11:12,000 x") is not None


@given(st.integers(-(2**40), 2**52))
def test_format_us_inverts_to_us(us):
    text = format_us(us)
    moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f")
    assert to_us(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second,
                 moment.microsecond) == us


# ---------------------------------------------------------------- the level prefilter
# Console lines assembled from the pieces levels are made of, with noise between them, so that
# the examples actually reach the error and warning rules.
LEVEL_PIECES = st.sampled_from([
    "ERROR", "error", "Error:", "[ERROR] ", "[WARNING] RUNTIME", "WARN", "Warning:", "Traceback (most recent",
    "RuntimeError:", "Exception", "ERR00100", "EZ9999:", "E1212 07:22:09", "W311 07:22:09", "F ",
    "NPUStream.cpp:409]", "Segmentation fault", "core dumped", "out of memory", "OutOfMemory",
    "\x1b[31m", "\x1b[0m", "^[[31m", "[31m", "\r", "\x00", "(RayWorker pid=12) ", "[rank3]: ",
    "INFO 03-11 07:22:09 ", "2026-03-11 07:22:09,123 - ERROR - ", " ", ":", "İ", "ß", "\u0130rror",
])
CONSOLE_LINES = st.lists(st.one_of(LEVEL_PIECES, st.text(max_size=8)), max_size=12).map("".join)


@given(st.one_of(ANY_TEXT, CONSOLE_LINES), st.sampled_from([Level.WARNING, Level.ERROR]))
def test_console_prefilter_never_misses_a_line_the_grammar_rates(text, level):
    """The scan reads only prefilter hits: a line it skips must be below the level."""
    line = text.replace("\n", " ").replace("\r", " ")
    pattern, line_start = prefilter(Stream.STDOUT, level)
    if line_level(line, Stream.STDOUT) >= level:
        assert pattern.search(b"\n" + line.encode("utf-8", "surrogateescape") + b"\n")


@given(st.sampled_from(PLOG_LEVELS), MODULES, MOMENTS, MESSAGES, st.sampled_from([Level.WARNING, Level.ERROR]))
def test_plog_prefilter_never_misses_a_header_line_the_grammar_rates(level, module, moment, message, wanted):
    line = f"[{level}] {module}(7,python):{ts6(moment)} {message}"
    pattern, _ = prefilter(Stream.PLOG, wanted)
    if line_level(line, Stream.PLOG) >= wanted:
        assert pattern.search(b"\n" + line.encode() + b"\n")


# ---------------------------------------------------------------- the index
def _log_bytes(seed: int, lines: int, long_every: int) -> bytes:
    """A plog-like file of `lines` lines: stamped headers, stampless continuations, a few very
    long lines (so that lines cross the 64 KiB blocks), built from a seed because hypothesis
    cannot draw megabytes directly."""
    rng = random.Random(seed)
    start = datetime(2026, 3, 11, 7, 0, 0)
    out = []
    for i in range(lines):
        if long_every and i % long_every == long_every - 1:
            out.append("x" * rng.randint(1, 150_000))
        elif rng.random() < 0.7:
            moment = start + timedelta(microseconds=rng.randint(0, 10**9))
            out.append(f"[{rng.choice(PLOG_LEVELS)}] RUNTIME(1,python):{ts6(moment)} msg {i}")
        else:
            out.append("    continuation " + "y" * rng.randint(0, 300))
    return ("\n".join(out) + ("\n" if rng.random() < 0.5 else "")).encode()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**32), st.integers(1, 3000), st.sampled_from([0, 50, 700]),
       st.lists(st.floats(0, 1), max_size=6))
def test_index_built_in_pieces_equals_one_built_at_once(tmp_path, seed, lines, long_every, cuts):
    """Live growth appends in arbitrary pieces (mid-line too): the result is the same index."""
    data = _log_bytes(seed, lines, long_every)
    grown = tmp_path / f"grown-{seed}-{lines}.log"
    whole = tmp_path / f"whole-{seed}-{lines}.log"
    whole.write_bytes(data)
    grown.write_bytes(b"")
    growing = FileIndex(str(grown))
    written = 0
    for cut in sorted(int(c * len(data)) for c in cuts) + [len(data)]:
        with open(grown, "ab") as fh:
            fh.write(data[written:cut])
        written = max(written, cut)
        growing.extend()
    once = FileIndex(str(whole))
    once.extend()
    assume(once.line_count > 0)
    assert growing.line_count == once.line_count == data.count(b"\n") + (not data.endswith(b"\n"))
    n = once.line_count
    assert growing.lines(0, n) == once.lines(0, n)
    probe = sorted({0, n - 1, n // 2, *random.Random(seed).sample(range(n), min(n, 20))})
    for i in probe:
        assert growing.line_time(i) == once.line_time(i)
        assert growing.line(i) == data.split(b"\n")[i].decode()[: len(growing.line(i))]
