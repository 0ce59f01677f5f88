"""core.window: the merged order served a window at a time equals the full merge, line for line."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from npudiag_tui.core.timeline import Timeline
from npudiag_tui.core.window import WindowTimeline
from npudiag_tui.core.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "tui" / "data"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Workspace:
    sys.path.insert(0, str(ROOT / "bench"))
    import gen_tree  # noqa: E402

    out = tmp_path_factory.mktemp("window") / "t"
    assert gen_tree.main([str(out), "--size", "3M", "--ranks", "3", "--seed", "5", "--rotate-mb", "1"]) == 0
    lines = []
    for r in range(3):  # a console written in per-rank blocks
        for k in range(300):
            lines.append(f"[rank{r}]:2026-03-11 06:{50 + k // 60 % 10:02d}:{k % 60:02d},{r:03d} - INFO - step {k}")
            if k % 40 == 39:
                lines.append(f"[rank{r}]: Traceback (most recent call last):")
    (out / "blocks.log").write_text("\n".join(lines) + "\n")
    ws = Workspace.open([str(out)], [str(out / "blocks.log")], [])
    ws.index(processes=False)
    return ws


def fixture_ws() -> Workspace:
    ws = Workspace.open([str(DATA / "ascend" / "log")], [str(DATA / "train.log")], [])
    ws.index()
    return ws


@pytest.mark.parametrize("which", ["fixture", "generated"])
def test_windows_equal_the_full_merge(which, generated):
    ws = fixture_ws() if which == "fixture" else generated
    fids = [f.file_id for f in ws.files]
    full = Timeline(ws, fids)
    assert full.build()
    win = WindowTimeline(ws, fids)
    assert len(win) == len(full) == sum(ws.indexes[f].line_count for f in fids)
    rng = random.Random(1)
    # random jumps first (each resolves its page from scratch), then every row in order
    for i in rng.sample(range(len(full)), 20):
        assert win.at(i) == full.at(i)
    assert [win.at(i) for i in range(len(win))] == [full.at(i) for i in range(len(full))]
    for i in rng.sample(range(len(full)), 200):
        assert win.position_of(*full.at(i)) == i
    times = [win.time_at(i) for i in range(len(win))]
    known = [t for t in times if t is not None]
    assert all(b >= a for a, b in zip(known, known[1:]))
    t = known[len(known) // 2]
    assert win.position_at_time(t) == min(i for i, x in enumerate(times) if x is not None and x >= t)


def test_next_position_walks_marks_in_merged_order(generated):
    ws = generated
    fids = [f.file_id for f in ws.files]
    win = WindowTimeline(ws, fids)
    rng = random.Random(2)
    marks = [win.at(i) for i in sorted(rng.sample(range(len(win)), 40))]
    positions = sorted(win.position_of(*m) for m in marks)
    pos = positions[0]
    walked = [pos]
    while True:
        pos = win.next_position(marks, pos, True)
        if pos is None:
            break
        walked.append(pos)
    assert walked == positions
    assert win.next_position(marks, positions[-1], False) == positions[-2]


def test_growth_is_seen_without_a_rebuild(tmp_path):
    plog = tmp_path / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    a, b = plog / "plog-1_20260101100000000.log", plog / "plog-2_20260101100000000.log"
    a.write_text("[INFO] GE(1,python):2026-01-01-10:00:01.000.000 [a.cc:1]1 F:a1\n")
    b.write_text("[INFO] GE(2,python):2026-01-01-10:00:02.000.000 [a.cc:1]2 F:b2\n")
    ws = Workspace.open([str(tmp_path / "log")], [], [])
    ws.index()
    win = WindowTimeline(ws, [0, 1])
    assert [win.at(i) for i in range(len(win))] == [(0, 0), (1, 0)]
    with open(a, "a") as fh:
        fh.write("[INFO] GE(1,python):2026-01-01-10:00:03.000.000 [a.cc:1]1 F:a3\n")
    ws.grow_file(0)
    assert [win.at(i) for i in range(len(win))] == [(0, 0), (1, 0), (0, 1)]


def test_windows_equal_the_full_merge_when_each_page_halves_to_few_candidates(generated, monkeypatch):
    """The exact step halves the key range by exact counts while its candidate lines are
    many (one sparse file's long blocks leave seconds of a dense file); the same order."""
    import npudiag_tui.core.window as window

    monkeypatch.setattr(window, "_FEW", 8)
    fids = [f.file_id for f in generated.files]
    full = Timeline(generated, fids)
    assert full.build()
    win = WindowTimeline(generated, fids)
    for i in random.Random(3).sample(range(len(full)), 40):
        assert win.at(i) == full.at(i)
        assert win.position_of(*full.at(i)) == i


def test_a_file_gives_a_range_of_keys_as_it_gives_them_one_by_one(generated):
    from itertools import islice

    from npudiag_tui.core.window import feed_of

    rng = random.Random(7)
    checked = 0
    for f in generated.files:
        feed = feed_of(generated, f.file_id)
        n = feed.count()
        for lo in [0, max(n - 5, 0)] + [rng.randrange(max(n, 1)) for _ in range(6)]:
            hi = lo + rng.randrange(1, 3000)
            want = list(islice(feed.keys_from(lo), max(min(hi, n) - lo, 0)))
            assert list(feed.keys_between(lo, hi)) == want
            checked += len(want)
    assert checked > 1000


def test_a_window_serves_the_same_order_only_for_the_same_files_and_offsets(generated):
    fids = [f.file_id for f in generated.files]
    win = WindowTimeline(generated, fids)
    assert win.same_order(WindowTimeline(generated, list(reversed(fids))))  # the order is the merge's
    assert not win.same_order(WindowTimeline(generated, fids[1:]))
    assert not win.same_order(Timeline(generated, fids))
    path = generated.files[0].path
    try:
        assert generated.set_clock_offset(path, 5.0)
        assert not win.same_order(WindowTimeline(generated, fids))
    finally:
        generated.set_clock_offset(path, 0.0)
    assert win.same_order(WindowTimeline(generated, fids))


def test_next_position_follows_a_new_marks_list(generated):
    ws = generated
    win = WindowTimeline(ws, [f.file_id for f in ws.files])
    rng = random.Random(3)
    picks = sorted(rng.sample(range(1, len(win)), 20))
    marks = [win.at(i) for i in picks]
    assert win.next_position(marks, 0, True) == picks[0]
    later = [win.at(i) for i in picks[5:]]  # another list of marks: its own answer, not the first's
    assert win.next_position(later, 0, True) == picks[5]
    assert win.next_position(marks, picks[0], True) == picks[1]


def test_next_position_from_before_the_first_row_and_after_the_last(generated):
    """-1 and len() stand outside the rows: from there the first (last) mark is next."""
    ws = generated
    win = WindowTimeline(ws, [f.file_id for f in ws.files])
    rng = random.Random(3)
    marks = [win.at(i) for i in sorted(rng.sample(range(len(win)), 30))]
    positions = sorted(win.position_of(*m) for m in marks)
    assert win.next_position(marks, -1, True) == positions[0]
    assert win.next_position(marks, len(win), False) == positions[-1]
    assert win.next_position(marks, -1, False) is None and win.next_position(marks, len(win), True) is None
    assert win.next_position(marks, len(win) + 1, True) is None
