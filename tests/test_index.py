"""FileIndex: line counts, exact read-back across block/chunk boundaries, time inheritance, tailing."""

from __future__ import annotations

import random

import pytest

from npudiag_tui.core import index as index_mod
from npudiag_tui.core.formats.timestamps import find_stamp, format_us
from npudiag_tui.core.index import BLOCK, CHUNK, UNKNOWN_TIME, FileIndex


def wc_lines(data: bytes) -> int:
    """`wc -l` plus one for a last line without a newline."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def build(path, data: bytes, **kw) -> FileIndex:
    path.write_bytes(data)
    idx = FileIndex(str(path), **kw)
    idx.extend()
    return idx


def test_empty_and_tiny(tmp_path):
    assert build(tmp_path / "e", b"").line_count == 0
    assert build(tmp_path / "a", b"x").line_count == 1
    assert build(tmp_path / "b", b"x\n").line_count == 1
    assert build(tmp_path / "c", b"\n\n\n").line_count == 3
    idx = build(tmp_path / "d", b"one\ntwo")
    assert idx.lines(0, 5) == ["one", "two"]


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_multi_mb_exact_readback(tmp_path, trailing_newline):
    rng = random.Random(7)
    lines = []
    size = 0
    while size < 3 * CHUNK + 12345:
        n = rng.choice([0, 1, 5, 80, 200, 1000, 70_000 if rng.random() < 0.01 else 60])
        text = f"{len(lines)}:" + "".join(rng.choice("abcxyz []:") for _ in range(n))
        lines.append(text)
        size += len(text) + 1
    data = "\n".join(lines).encode() + (b"\n" if trailing_newline else b"")
    idx = build(tmp_path / "big.log", data)
    assert idx.line_count == wc_lines(data) == len(lines)
    assert idx.partial is (not trailing_newline)
    # every line straddling a 64 KiB block or a 1 MiB chunk boundary, and a random sample
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)
    probe = set(rng.sample(range(len(lines)), 300)) | {0, len(lines) - 1}
    for k in range(1, len(data) // BLOCK + 1):
        b = k * BLOCK
        i = max(j for j in range(len(lines)) if offsets[j] <= b) if b < len(data) else len(lines) - 1
        probe.update({i - 1, i, i + 1} & set(range(len(lines))))
    for i in sorted(probe):
        assert idx.line(i) == lines[i], i
        assert idx.full_line(i) == lines[i], i
    # a batch read straddling a chunk boundary
    j = max(j for j in range(len(lines)) if offsets[j] <= CHUNK)
    assert idx.lines(j - 3, 7) == lines[j - 3:j + 4]
    assert [t for _, t in idx.iter_lines()] == lines


def test_crlf(tmp_path):
    data = b"[ERROR] a\r\nsecond\r\n\r\nlast\r\n"
    idx = build(tmp_path / "crlf.log", data)
    assert idx.line_count == 4
    assert idx.lines(0, 4) == ["[ERROR] a", "second", "", "last"]
    assert idx.full_line(3) == "last"


def test_five_mb_single_line(tmp_path):
    body = b"E" * (5 * 1024 * 1024)
    idx = build(tmp_path / "long.log", b"before\n" + body + b"\nafter")
    assert idx.line_count == 3
    assert idx.line(0) == "before" and idx.line(2) == "after"
    assert len(idx.full_line(1)) == len(body)
    shown = idx.line(1)
    assert 0 < len(shown) <= index_mod.MAX_LINE_BYTES or len(shown) == len(body)
    assert idx.lines(1, 2)[1] == "after"


def test_nul_and_gbk_bytes(tmp_path):
    gbk = "错误：设备异常".encode("gbk")
    data = b"a\x00b\n" + gbk + b"\n\xff\xfe\n"
    idx = build(tmp_path / "odd.log", data)
    assert idx.line_count == 3
    assert idx.line(0) == "a\x00b"
    assert "\ufffd" in idx.line(1)  # decoded leniently, never raises
    assert idx.line(2) == "\ufffd\ufffd"


def stamp(sec: int) -> str:
    return f"2026-01-02-03:04:{sec:02d}.000.000"


def test_time_inheritance(tmp_path):
    data = (f"[ERROR] RUNTIME(1,):{stamp(5)} [a.cc:1]1 f:x\n"
            "    continuation without a stamp\n"
            "    another\n"
            f"[ERROR] RUNTIME(1,):{stamp(9)} [a.cc:1]1 f:y\n").encode()
    idx = build(tmp_path / "t.log", data)
    t0, inh0 = idx.line_time(0)
    t1, inh1 = idx.line_time(1)
    t2, inh2 = idx.line_time(2)
    t3, inh3 = idx.line_time(3)
    assert format_us(t0) == "2026-01-02T03:04:05.000000" and not inh0
    assert t1 == t0 and inh1 and t2 == t0 and inh2
    assert format_us(t3) == "2026-01-02T03:04:09.000000" and not inh3
    assert idx.own_time(1) is None and idx.own_time(3) == t3


def test_leading_stampless_lines_are_not_sorted_first(tmp_path):
    data = ("header without time\n" + f"x {stamp(1)} y\n").encode()
    idx = build(tmp_path / "lead.log", data)
    t, inherited = idx.line_time(0)
    assert t is None and inherited  # unknown, not "earliest"


def test_inheritance_across_block_boundary(tmp_path):
    first = f"[INFO] GE(1,):{stamp(7)} [a.cc:1]1 f:x\n".encode()
    filler = b"  no stamp here\n" * ((2 * BLOCK) // 16 + 5)
    idx = build(tmp_path / "blk.log", first + filler)
    last = idx.line_count - 1
    assert idx.block_of_line(last) >= 2
    t, inherited = idx.line_time(last)
    assert format_us(t) == "2026-01-02T03:04:07.000000" and inherited
    assert idx.line_at_time(t) == 0


def test_extend_picks_up_appended_bytes_and_holds_partial(tmp_path):
    p = tmp_path / "live.log"
    p.write_bytes(b"one\ntwo\nthr")
    idx = FileIndex(str(p))
    idx.include_partial = False
    assert idx.extend() == 2
    assert idx.line_count == 2 and idx.partial
    with open(p, "ab") as fh:
        fh.write(b"ee\nfour")
    assert idx.extend() == 1
    assert idx.line_count == 3 and idx.lines(0, 10) == ["one", "two", "three"]
    with open(p, "ab") as fh:
        fh.write(b"\n")
    assert idx.extend() == 1
    assert idx.line_count == 4 and idx.line(3) == "four" and not idx.partial
    assert idx.extend() == 0
    # with include_partial (reports) a tail without newline counts
    with open(p, "ab") as fh:
        fh.write(b"five")
    idx.extend()
    idx.include_partial = True
    assert idx.line_count == 5 and idx.line(4) == "five"


def test_extend_chunk_hook_sees_complete_lines_once(tmp_path):
    p = tmp_path / "hook.log"
    data = b"".join(b"line %d\n" % i for i in range(300_000))
    p.write_bytes(data + b"partial")
    seen = []
    idx = FileIndex(str(p))
    idx.include_partial = False  # as while following: the last line is not finished
    idx.extend(on_chunk=lambda c: seen.append((c.bytes(), c.start, c.first_line)))
    joined = b"".join(d for d, _, _ in seen)
    assert joined == data
    for d, off, first in seen:
        assert data[off:off + len(d)] == d
        assert data[:off].count(b"\n") == first
    # a report reads the unfinished last line too, once, after every complete line
    seen.clear()
    idx = FileIndex(str(p))
    idx.extend(on_chunk=lambda c: seen.append((c.bytes(), c.start, c.first_line)))
    assert b"".join(d for d, _, _ in seen) == data + b"partial\n"
    assert seen[-1] == (b"partial\n", len(data), 300_000)


def test_vanished_file_raises_named_error(tmp_path):
    idx = FileIndex(str(tmp_path / "gone.log"), display="gone.log")
    with pytest.raises(index_mod.UnreadableFile) as exc:
        idx.extend()
    assert "gone.log" in str(exc.value)


def test_memory_per_block(tmp_path):
    data = b"x" * 50 + b"\n"
    idx = build(tmp_path / "m.log", data * 100_000)
    assert idx.line_count == 100_000
    assert idx.memory_bytes() <= 16 * (len(data) * 100_000 // BLOCK + 2)


def test_every_line_keeps_its_own_stamp_across_blocks(tmp_path):
    p = tmp_path / "stamped.log"
    with open(p, "w") as fh:
        for i in range(5000):
            fh.write(f"[INFO] GE(1,):2026-01-02-03:04:{i % 60:02d}.000.{i % 1000:03d} [a.cc:1]1 f:x\n")
    idx = FileIndex(str(p))
    idx.extend()
    assert len(idx.nl_before) >= 4
    assert [i for i in range(idx.line_count) if idx.own_time(i) is None] == []
    assert [i for i in range(idx.line_count) if idx.line_time(i)[1]] == []


def test_long_stampless_line_spanning_blocks_inherits(tmp_path):
    p = tmp_path / "span.log"
    p.write_text(f"[INFO] GE(1,):{stamp(1)} a\n" + "x" * (3 * BLOCK) + f"\n[INFO] GE(1,):{stamp(2)} b\ntail\n")
    idx = FileIndex(str(p))
    idx.extend()
    t = [idx.line_time(i) for i in range(4)]
    assert format_us(t[0][0]).endswith(":01.000000") and not t[0][1]
    assert t[1] == (t[0][0], True)
    assert format_us(t[2][0]).endswith(":02.000000") and not t[2][1]
    assert t[3] == (t[2][0], True)


def test_block_times_are_lazy_and_line_at_time_bisects(tmp_path):
    # ~40 blocks of stamped lines: nothing is parsed by the index pass itself, and a time
    # lookup parses only the blocks its bisect probes
    p = tmp_path / "plog.log"
    lines = [f"[INFO] GE(1,python):2026-01-01-10:{k // 6000:02d}:{k // 100 % 60:02d}.{k % 100 * 10:03d}.000 "
             f"[a.cc:1]1 F:{'x' * 200} {k}" for k in range(12000)]
    p.write_text("\n".join(lines) + "\n")
    idx = FileIndex(str(p))
    idx.extend()
    assert len(idx.block_time) > 30
    assert all(t == UNKNOWN_TIME for t in idx.block_time)
    for k in (0, 1, 4321, 11999):
        t, inherited = idx.line_time(k)
        assert not inherited
        assert idx.line_at_time(t) == k
    assert sum(t != UNKNOWN_TIME for t in idx.block_time) < len(idx.block_time) // 2


def test_stamp_of_agrees_with_find_stamp(tmp_path):
    idx = FileIndex(str(tmp_path / "none.log"), year_hint=2026)
    samples = [
        b"[ERROR] RUNTIME(1,python):2026-03-11-07:22:41.498.123 [a.cc:1] x",
        b"INFO 03-11 07:22:41 [engine.py:1] vllm style",
        b"2026-03-11 07:22:41,123 - root - INFO - pylog",
        "\u4e2d" .encode() * 150 + b" 2026-03-11-07:22:41.498.123 late stamp after multibyte text",
        b"no stamp at all",
        b"[ERROR] X 2026-13-11-07:22:41.498.123 impossible month",
    ]
    for raw in samples:
        st = find_stamp(raw[:400].decode("utf-8", "replace"), 2026)
        assert idx.stamp_of(raw) == (st.us if st else -1), raw


def test_readers_on_other_threads_while_extend_grows_the_file(tmp_path):
    """The UI thread renders and workers build timelines while the tail extends the same index:
    a block cached short just before `extend` dropped it must never be served again."""
    import random
    import sys
    import threading

    p = tmp_path / "grow.log"
    line = b"[INFO] RUNTIME(1,python):2026-01-01-10:00:00.000.000 [a.cc:1] 1 " + b"x" * 200 + b"\n"
    p.write_bytes(line * 2000)
    idx = FileIndex(str(p))
    idx.extend()
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader(seed: int) -> None:
        r = random.Random(seed)
        while not stop.is_set():
            try:
                i = r.randrange(idx.line_count)
                assert idx.line(i) == line[:-1].decode()
                assert idx.line_time(i)[0] is not None
            except BaseException as exc:  # noqa: BLE001 - handed to the test thread
                errors.append(exc)
                return

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    threads = [threading.Thread(target=reader, args=(k,)) for k in range(3)]
    try:
        for t in threads:
            t.start()
        with open(p, "ab") as fh:
            for _ in range(2000):
                fh.write(line * 3)
                fh.flush()
                idx.extend()
                if errors:
                    break
    finally:
        stop.set()
        for t in threads:
            t.join()
        sys.setswitchinterval(old)
    assert not errors, errors[0]
    assert idx.line_count == 2000 + 3 * 2000
