"""core.views: filters and the HCCL view scanned forward in time equal the full selection merge,
and show rows before the scan has read every file."""

from __future__ import annotations

from array import array

import pytest
from test_window import fixture_ws, generated  # noqa: F401  (the same trees: fixtures and generated)

from npudiag_tui.core import views
from npudiag_tui.core.model import Level, Stream
from npudiag_tui.core.timeline import Timeline, scan_matching_lines
from npudiag_tui.core.views import FilterSpec, SearchBook
from npudiag_tui.core.window import WindowTimeline
from npudiag_tui.core.workspace import Workspace


def full_merge(ws: Workspace, pane: str, fids: list[int], spec: FilterSpec) -> list[tuple[int, int]]:
    """The reference: every file scanned whole, then one full merge of the selection."""
    selection: dict[int, array | None] = {}
    for fid in fids:
        stream = ws.source_of_file(fid).stream
        if not views.filters_file(pane, stream, spec):
            selection[fid] = None
            continue
        pattern, predicate, line_start = views.line_filter(pane, stream, spec)
        selection[fid] = scan_matching_lines(ws.indexes[fid], pattern, None, predicate, line_start=line_start)
    tl = Timeline(ws, fids, selection)
    assert tl.build()
    return [tl.at(i) for i in range(len(tl))]


CASES = [
    ("hccl", FilterSpec()),
    ("plog", FilterSpec(min_level=int(Level.WARNING))),
    ("merged", FilterSpec(min_level=int(Level.ERROR))),
    ("merged", FilterSpec(module="HCCL")),
    ("merged", FilterSpec(regex=r"step [0-9]*5\b|heartbeat")),
    ("merged", FilterSpec(ranks=frozenset({1}))),
    ("console", FilterSpec(ranks=frozenset({0, 2}))),
]


@pytest.mark.parametrize("which", ["fixture", "generated"])
@pytest.mark.parametrize("pane,spec", CASES, ids=[f"{p}-{s.describe() or 'all'}" for p, s in CASES])
def test_forward_scan_equals_the_full_merge(which, pane, spec, generated):
    ws = fixture_ws() if which == "fixture" else generated
    fids = views.pane_files(ws, pane, spec)
    want = full_merge(ws, pane, fids, spec)
    tl = views.chosen_lines(ws, pane, fids, spec)
    tl.step_blocks = 1  # many steps on a small tree
    seen = []
    while not tl.advance():
        got = [tl.at(i) for i in range(len(tl))]
        assert got == want[: len(got)]  # every step's rows are already in their final order
        seen.append(len(got))
    assert tl.complete and not tl.scanning
    assert [tl.at(i) for i in range(len(tl))] == want
    if which == "generated" and pane != "console":
        assert len(seen) > 3 and any(0 < n < len(want) for n in seen)  # rows before the scan ended
    times = [tl.time_at(i) for i in range(len(tl))]
    if pane != "console":  # console lines keep their channel's order; plog lines their stamps
        known = [t for t in times if t is not None]
        assert all(b >= a for a, b in zip(known, known[1:]))
    for i in range(0, len(tl), max(len(tl) // 50, 1)):
        assert tl.position_of(*tl.at(i)) == i


def test_progress_reaches_every_byte(generated):
    ws = generated
    fids = views.pane_files(ws, "hccl", FilterSpec())
    tl = views.chosen_lines(ws, "hccl", fids, FilterSpec())
    tl.step_blocks = 2
    reports = []
    assert tl.run(lambda d, t: reports.append((d, t)))
    assert reports and all(a[0] <= b[0] for a, b in zip(reports, reports[1:]))
    total = sum(ws.indexes[f].indexed for f in fids if not ws.times.is_console(f))
    assert tl.bytes_scanned() == (total, total)


def test_a_cancelled_scan_resumes_where_it_stopped(generated):
    ws = generated
    spec = FilterSpec(min_level=int(Level.WARNING))
    fids = views.pane_files(ws, "merged", spec)
    want = full_merge(ws, "merged", fids, spec)
    tl = views.chosen_lines(ws, "merged", fids, spec)
    tl.step_blocks = 1
    calls = [0]

    def cancel_every_third() -> bool:
        calls[0] += 1
        return calls[0] % 3 == 0

    for _ in range(10_000):
        if tl.advance(cancel_every_third):
            break
    assert tl.complete
    assert [tl.at(i) for i in range(len(tl))] == want


def test_new_lines_of_a_grown_file_are_chosen_at_the_end(tmp_path):
    plog = tmp_path / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    a = plog / "plog-1_20260101100000000.log"
    b = plog / "plog-2_20260101100000000.log"
    a.write_text("[ERROR] GE(1,python):2026-01-01-10:00:01.000.000 [a.cc:1]1 F:a1\n"
                 "[INFO] GE(1,python):2026-01-01-10:00:02.000.000 [a.cc:1]1 F:a2\n")
    b.write_text("[ERROR] GE(2,python):2026-01-01-10:00:03.000.000 [a.cc:1]2 F:b3\n")
    ws = Workspace.open([str(tmp_path / "log")], [], [])
    ws.index()
    spec = FilterSpec(min_level=int(Level.ERROR))
    tl = views.chosen_lines(ws, "plog", [0, 1], spec)
    assert tl.run()
    assert [tl.at(i) for i in range(len(tl))] == [(0, 0), (1, 0)]
    with open(a, "a") as fh:
        fh.write("[ERROR] GE(1,python):2026-01-01-10:00:04.000.000 [a.cc:1]1 F:a4\n"
                 "[INFO] GE(1,python):2026-01-01-10:00:05.000.000 [a.cc:1]1 F:a5\n")
    ws.grow_file(0)
    views.choose_new_lines(ws, "plog", tl, {0}, spec)
    tl.build()
    assert [tl.at(i) for i in range(len(tl))] == [(0, 0), (1, 0), (0, 2)]


def test_level_marks_are_incremental(generated):
    ws = generated
    first = views.level_marks(ws, {})
    assert first is not None
    again = views.level_marks(ws, {f: end for f, (end, _) in first.items()})
    assert again is not None and all(not items for _, items in again.values())
    errors = {(f, ln) for f, (_, items) in first.items() for ln, lvl in items if lvl >= Level.ERROR}
    assert errors >= {(h.file_id, h.line) for s in ws.scans for h in s.hits
                      if s.stream is not Stream.STDOUT and h.text.startswith("[ERROR]")}
    assert views.level_marks(ws, {}, cancelled=lambda: True) is None


def test_the_mark_book_shows_the_scan_until_the_full_pass_and_adopts_each_line_once(generated):
    ws = generated
    book = views.MarkBook()
    scan = book.current(ws, indexed=True)
    assert scan == views.scan_level_marks(ws) and not book.ready
    found = views.level_marks(ws, {})
    book.adopt(found)
    full = book.current(ws, indexed=True)
    assert book.ready and len(full) == sum(len(items) for _, items in found.values())
    assert {(f, ln) for f, ln, lvl in scan if lvl >= Level.ERROR} <= {(f, ln) for f, ln, _ in full}
    book.adopt(found)  # the same answer again (a live re-run over files already read): no double
    assert len(book.current(ws, indexed=True)) == len(full)
    book.reset()
    assert not book.ready and not book.started and book.scanned == {}


def test_time_axis_places_the_thumb_by_time(generated):
    ws = generated
    fids = [f.file_id for f in ws.files]
    tl = views.whole_files(ws, fids, indexed=True)
    axis = views.TimeAxis(tl)
    first, last = axis.span()
    times = [tl.time_at(i) for i in range(len(tl))]
    known = [t for t in times if t is not None]
    assert (first, last) == (known[0], known[-1])
    assert axis.position_at(0.0) == 0 and axis.position_at(1.0) == len(tl) - 1
    for fraction in (0.25, 0.5, 0.9):
        pos = axis.position_at(fraction)
        moment = first + int(fraction * (last - first))
        assert times[pos] is not None and times[pos] >= moment  # the first line at that moment
        assert all(t is None or t < moment for t in times[:pos])
        assert abs(axis.fraction_of(pos) - fraction) < 0.05
    # lines are not even in time on this tree: by time and by line disagree somewhere
    assert any(abs(axis.position_at(f / 10) - f * len(tl) // 10) > len(tl) // 20 for f in range(1, 10))


def test_a_clock_that_steps_back_keeps_the_full_merge_order(tmp_path):
    plog = tmp_path / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    rows_a, rows_b = [], []
    for k in range(3000):  # file a's clock jumps back 40 s at line 1500, over several blocks
        sec = k // 100 if k < 1500 else k // 100 - 40 + 15
        rows_a.append(f"[INFO] GE(1,python):2026-01-01-10:{sec // 60:02d}:{sec % 60:02d}.{k % 100:03d}.000 "
                      f"[a.cc:1]1 F:a{k} " + "x" * 60)
        if k % 7 == 0:
            rows_a.append("    a continuation line without a stamp")
        rows_b.append(f"[INFO] GE(2,python):2026-01-01-10:{k // 100 // 60:02d}:{k // 100 % 60:02d}.{k % 100:03d}.500 "
                      f"[a.cc:1]2 F:b{k} " + "y" * 60)
    (plog / "plog-1_20260101100000000.log").write_text("\n".join(rows_a) + "\n")
    (plog / "plog-2_20260101100000000.log").write_text("\n".join(rows_b) + "\n")
    ws = Workspace.open([str(tmp_path / "log")], [], [])
    ws.index()
    full = Timeline(ws, [0, 1])
    assert full.build()
    win = views.whole_files(ws, [0, 1], indexed=True)
    assert [win.at(i) for i in range(len(win))] == [full.at(i) for i in range(len(full))]


def test_search_book_keeps_only_the_current_searchs_answer_and_orders_hits_by_time():
    book = SearchBook()
    first = book.start("boom")
    assert book.running and book.position((0, 1), lambda f, ln: None) == "searching…"
    second = book.start("bang")  # typed again before the first answered
    assert not book.adopt({0: array("I", [9])}, first)  # the stale answer is dropped
    assert book.running
    times = {(0, 4): 30, (1, 2): 10, (1, 7): 20}
    assert book.adopt({0: array("I", [4]), 1: array("I", [2, 7])}, second)
    assert not book.running and book.total == 3
    assert sorted(book.refs()) == [(0, 4), (1, 2), (1, 7)]
    when = lambda f, ln: times[(f, ln)]  # noqa: E731
    assert book.position((1, 2), when) == "hit 1/3"  # in time order over the files, not file order
    assert book.position((0, 4), when) == "hit 3/3"
    assert book.position((0, 5), when) == "3 hits"  # the cursor is on no hit
    book.start("")
    assert not book.running


def test_search_book_stopped_has_no_hits():
    book = SearchBook()
    book.start("slow")
    book.stop()
    assert not book.running and book.total == 0 and book.refs() == []


def test_the_mark_books_refs_follow_its_marks(generated):
    ws = generated
    book = views.MarkBook()
    scan = book.current(ws, indexed=True)
    assert list(book.refs(ws, True, "errors")) == [(f, ln) for f, ln, lvl in scan if lvl >= Level.ERROR]
    found = views.level_marks(ws, {})
    first_file = min(found)
    book.adopt({first_file: found[first_file]})  # one file's marks, then the rest (a live tail)
    errors = list(book.refs(ws, True, "errors"))
    assert errors and {f for f, _ in errors} == {first_file}
    book.adopt({f: v for f, v in found.items() if f != first_file})
    full = book.current(ws, indexed=True)
    assert list(book.refs(ws, True, "errors")) == [(f, ln) for f, ln, lvl in full if lvl >= Level.ERROR]
    assert list(book.refs(ws, True, "warnings")) == [(f, ln) for f, ln, lvl in full if lvl == Level.WARNING]
    refs = book.refs(ws, True, "errors")
    assert refs[0] == errors[0] and refs[-1] == next(reversed(list(refs))) and len(refs) == len(list(refs))


def _walk_fixture(tmp_path):
    """Two plog files with a line each at one moment, and a console traceback whose lines have no
    stamp of their own before the stamped line that closes it."""
    plog = tmp_path / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    (plog / "plog-1_20260101100000000.log").write_text(
        "[INFO] GE(1,python):2026-01-01-10:00:01.000.000 [a.cc:1]1 F:a1\n"
        "[ERROR] GE(1,python):2026-01-01-10:00:05.000.000 [a.cc:1]1 F:a5\n"
        "[INFO] GE(1,python):2026-01-01-10:00:09.000.000 [a.cc:1]1 F:a9\n")
    console = tmp_path / "train.log"
    console.write_text("2026-01-01 10:00:01,000 INFO step 1\n"
                       "Traceback (most recent call last):\n"
                       "RuntimeError: failed\n"
                       "2026-01-01 10:00:05,000 ERROR step 5\n"
                       "2026-01-01 10:00:09,000 INFO step 9\n")
    ws = Workspace.open([str(tmp_path / "log")], [str(console)], [])
    ws.index()
    return ws


def test_a_walk_starts_at_the_moment_another_pane_is_on(tmp_path):
    ws = _walk_fixture(tmp_path)
    plog = next(f.file_id for f in ws.files if f.path.endswith(".log") and "plog" in f.path)
    console = next(f.file_id for f in ws.files if f.path.endswith("train.log"))
    tl = Timeline(ws, [console], mode="concat")
    five = ws.times.line_time(plog, 1).us  # the plog's error, 10:00:05
    # forward: with ties ahead the lines at 10:00:05 count (the traceback's estimated times too),
    # without them only later lines do
    ahead = views.mark_walk_start(tl, (plog, 1), five, True, ties_ahead=True)
    assert all((tl.time_at(p) or 0) >= five for p in range(ahead + 1, len(tl)))
    assert tl.time_at(ahead) < five
    later = views.mark_walk_start(tl, (plog, 1), five, True, ties_ahead=False)
    assert tl.time_at(later) == five and tl.time_at(later + 1) > five
    # backward mirrors it: the start stands after the lines before the moment
    back = views.mark_walk_start(tl, (plog, 1), five, False, ties_ahead=False)
    assert tl.time_at(back) >= five and tl.time_at(back - 1) < five
    # a pane that holds the line itself starts on it; nothing known, no start
    assert views.mark_walk_start(tl, (console, 3), five, True, ties_ahead=True) == tl.position_of(console, 3)
    assert views.mark_walk_start(tl, (plog, 1), None, True, ties_ahead=True) is None
    # past the last line and before the first
    end = ws.times.line_time(plog, 2).us + 1
    assert views.mark_walk_start(tl, (plog, 2), end, False, ties_ahead=False) == len(tl)
    assert views.mark_walk_start(tl, (plog, 0), 0, True, ties_ahead=True) == -1


def test_next_mark_from_a_position_outside_the_marks():
    marks = [3, 7, 9]
    assert views.next_mark(marks, -1, True) == 3 and views.next_mark(marks, 7, True) == 9
    assert views.next_mark(marks, 9, True) is None and views.next_mark(marks, 10, False) == 9
    assert views.next_mark(marks, 3, False) is None and views.next_mark([], 0, True) is None


def test_a_merged_windows_walk_finds_the_mark_its_positions_give(tmp_path):
    """window_mark_from_moment works from each file's counts at the moment (no merged pages);
    it must find the very mark that the start position and a walk over positions find, for
    lines of the pane and moments between, ties and unstamped lines included."""
    import random
    rnd = random.Random(7)
    plog = tmp_path / "log" / "debug" / "plog"
    plog.mkdir(parents=True)
    for k in range(3):
        rows, sec = [], 0
        for n in range(120):
            sec += rnd.choice((0, 0, 1, 2))  # ties inside a file and across files
            level = rnd.choice(("INFO", "INFO", "ERROR"))
            rows.append(f"[{level}] GE({k + 1},python):2026-01-01-10:{sec // 60:02d}:{sec % 60:02d}.000.000 "
                        f"[a.cc:1]{k + 1} F:{k}-{n}")
            if rnd.random() < 0.2:
                rows.append("    continued without a stamp")
        (plog / f"plog-{k + 1}_20260101100000000.log").write_text("\n".join(rows) + "\n")
    ws = Workspace.open([str(tmp_path / "log")], [], [])
    ws.index()
    fids = [f.file_id for f in ws.files]
    tl = WindowTimeline(ws, fids)
    refs = sorted((f, n) for f in fids for n, raw in enumerate(ws.indexes[f].raw_lines(0, ws.indexes[f].line_count))
                  if b"[ERROR]" in raw)
    positions = sorted(tl.position_of(*r) for r in refs)
    other = fids[0]
    moments = sorted({ws.times.line_time(other, n).us for n in range(0, ws.indexes[other].line_count, 7)})
    checked = 0
    for when in moments + [moments[0] - 1, moments[-1] + 1]:
        for forward in (True, False):
            for ties_ahead in (True, False):
                start = views.mark_walk_start(tl, None, when, forward, ties_ahead)
                want = views.next_mark(positions, start, forward)
                got = views.window_mark_from_moment(tl, refs, None, when, forward, ties_ahead)
                assert (None if got is None else tl.position_of(*got)) == want, (when, forward, ties_ahead)
                checked += 1
    for ref in refs[::5] + [(other, 3)]:
        for forward in (True, False):
            start = tl.position_of(*ref)
            want = views.next_mark(positions, start, forward)
            got = views.window_mark_from_moment(tl, refs, ref, None, forward, True)
            assert (None if got is None else tl.position_of(*got)) == want, (ref, forward)
    assert checked > 40
