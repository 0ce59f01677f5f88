"""core.timeline: k-way merge by time, continuation lines, clock offsets, selections."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from npudiag_tui.core.timeline import Timeline, scan_matching_lines
from npudiag_tui.core.workspace import Workspace


def stamp(sec: float) -> str:
    us = int(round(sec * 1_000_000))
    whole, frac = divmod(us, 1_000_000)
    return f"2026-01-01-10:{whole // 60:02d}:{whole % 60:02d}.{frac // 1000:03d}.{frac % 1000:03d}"


def plog(pid: int, entries: list[tuple[float | None, str]]) -> str:
    out = []
    for sec, msg in entries:
        if sec is None:
            out.append(f"    {msg}")
        else:
            out.append(f"[INFO] GE({pid},python):{stamp(sec)} [a.cc:1]{pid} F:{msg}")
    return "\n".join(out) + "\n"


def open_ws(tmp_path: Path, files: dict[str, str]) -> Workspace:
    root = tmp_path / "log"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    ws = Workspace.open([str(root)], [], [])
    ws.index()
    return ws


def texts(ws: Workspace, tl: Timeline) -> list[str]:
    out = []
    for i in range(len(tl)):
        f, line = tl.at(i)
        out.append(ws.indexes[f].line(line).rsplit(":", 1)[-1].strip())
    return out


def two_plogs(tmp_path: Path) -> Workspace:
    return open_ws(tmp_path, {
        "debug/plog/plog-100_20260101100000000.log": plog(100, [
            (1.0, "a1"), (3.0, "a3"), (None, "a3-cont"), (None, "a3-cont2"), (5.0, "a5")]),
        "debug/plog/plog-200_20260101100000000.log": plog(200, [
            (2.0, "b2"), (3.0, "b3"), (4.0, "b4"), (6.0, "b6")]),
    })


def test_merge_orders_by_time_and_keeps_continuations(tmp_path):
    ws = two_plogs(tmp_path)
    tl = Timeline(ws, [f.file_id for f in ws.files])
    assert tl.mode == "merge"
    assert tl.build() is True
    got = texts(ws, tl)
    assert got[:2] == ["a1", "b2"]
    # continuation lines stay glued to their predecessor, even with an equal stamp elsewhere
    k = got.index("a3")
    assert got[k + 1: k + 3] == ["a3-cont", "a3-cont2"]
    assert got.index("b3") in (k - 1, k + 3)
    assert got[-2:] == ["a5", "b6"]
    assert len(tl) == tl.total == 9


def test_position_of_is_the_inverse_of_at(tmp_path):
    ws = two_plogs(tmp_path)
    tl = Timeline(ws, [f.file_id for f in ws.files])
    tl.build()
    for i in range(len(tl)):
        assert tl.position_of(*tl.at(i)) == i
    assert tl.position_of(0, 999) is None


def test_position_at_time(tmp_path):
    ws = two_plogs(tmp_path)
    tl = Timeline(ws, [f.file_id for f in ws.files])
    tl.build()
    t4 = tl.time_at(texts(ws, tl).index("b4"))
    assert texts(ws, tl)[tl.position_at_time(t4)] == "b4"
    assert texts(ws, tl)[tl.position_at_time(t4 - 1)] == "b4"
    assert tl.position_at_time(t4 + 1) == texts(ws, tl).index("a5")


def test_single_source_is_concat_and_cheap(tmp_path):
    ws = two_plogs(tmp_path)
    tl = Timeline(ws, [0])
    assert tl.mode == "concat" and tl.complete
    assert len(tl) == ws.indexes[0].line_count
    assert tl.at(2) == (0, 2) and tl.position_of(0, 2) == 2
    assert tl.memory_bytes() == 0


def test_rotated_chain_keeps_file_order(tmp_path):
    ws = open_ws(tmp_path, {
        "debug/plog/plog-100_20260101100000000.log": plog(100, [(1.0, "x1"), (2.0, "x2")]),
        "debug/plog/plog-100_20260101100002000.log": plog(100, [(3.0, "x3"), (None, "x3c")]),
        "debug/plog/plog-200_20260101100000000.log": plog(200, [(2.5, "y25")]),
    })
    tl = Timeline(ws, [f.file_id for f in ws.files])
    tl.build()
    assert texts(ws, tl) == ["x1", "x2", "y25", "x3", "x3c"]


def test_incremental_build_with_cancel_and_progress(tmp_path):
    entries = [(1.0 + k * 0.001, f"a{k}") for k in range(40000)]
    ws = open_ws(tmp_path, {
        "debug/plog/plog-100_20260101100000000.log": plog(100, entries),
        "debug/plog/plog-200_20260101100000000.log": plog(200, [(1.5, "b")]),
    })
    tl = Timeline(ws, [f.file_id for f in ws.files])
    calls = []
    stop = {"now": False}

    def progress(done, total):
        calls.append((done, total))
        stop["now"] = True

    assert tl.build(progress, lambda: stop["now"]) is False
    partial = len(tl)
    assert 0 < partial < 40001
    assert tl.build(progress) is True
    assert len(tl) == 40001
    assert calls[-1] == (40001, 40001)
    for i in (0, partial - 1, partial, 40000):
        assert tl.position_of(*tl.at(i)) == i
    # compact storage: 6 bytes per merged line + a sampled reverse map (every 64th line)
    assert tl.memory_bytes() <= 6 * 40001 + 4 * (40001 // 64 + 2) + 1024


def test_sampled_reverse_map_finds_every_interleaved_line(tmp_path):
    # three files interleaved line by line for several hundred lines: most positions are found
    # by stepping from a sampled one, in merge and in selection mode
    files = {f"debug/plog/plog-{pid}_20260101100000000.log":
             plog(pid, [(1.0 + k * 0.01 + pid * 1e-6, f"{pid}-{k}") for k in range(300)])
             for pid in (100, 200, 300)}
    ws = open_ws(tmp_path, files)
    fids = [f.file_id for f in ws.files]
    tl = Timeline(ws, fids)
    tl.build()
    assert len(tl) == 900
    for i in range(len(tl)):
        assert tl.position_of(*tl.at(i)) == i
    assert tl.position_of(fids[0], 300) is None
    assert tl.nearest_position(fids[0], 10_000) == tl.position_of(fids[0], 299)
    sel = {f: [k for k in range(300) if k % 3 == 0] for f in fids}
    stl = Timeline(ws, fids, sel)
    stl.build()
    assert len(stl) == 300
    for i in range(len(stl)):
        assert stl.position_of(*stl.at(i)) == i
    assert stl.position_of(fids[1], 4) is None  # not selected
    assert stl.nearest_position(fids[1], 4) == stl.position_of(fids[1], 3)


def test_selection_merge_takes_stamps_from_the_selected_lines(tmp_path):
    # selected lines are stamped from their own text; a selected continuation line inherits
    ws = two_plogs(tmp_path)
    fa, fb = [f.file_id for f in ws.files]
    sel = {fa: [1, 2, 4], fb: [0, 1, 3]}  # a3, a3-cont, a5 / b2, b3, b6
    tl = Timeline(ws, [fa, fb], sel)
    tl.build()
    assert texts(ws, tl) in (["b2", "a3", "a3-cont", "b3", "a5", "b6"],
                             ["b2", "b3", "a3", "a3-cont", "a5", "b6"])


def test_selection_and_scan_matching_lines(tmp_path):
    ws = two_plogs(tmp_path)
    pat = re.compile(rb"F:[ab][35]$", re.M)
    sel = {f.file_id: scan_matching_lines(ws.indexes[f.file_id], pat) for f in ws.files}
    tl = Timeline(ws, [f.file_id for f in ws.files], sel)
    tl.build()
    assert texts(ws, tl) == ["a3", "b3", "a5"] or texts(ws, tl) == ["b3", "a3", "a5"]
    f, line = tl.at(0)
    assert tl.position_of(f, line) == 0
    assert tl.position_of(f, line + 1) is None
    assert tl.nearest_position(f, line + 1) == 0


def test_live_append_extends(tmp_path):
    ws = two_plogs(tmp_path)
    tl = Timeline(ws, [f.file_id for f in ws.files])
    tl.build()
    n = len(tl)
    with open(ws.files[0].path, "a") as fh:
        fh.write(plog(100, [(9.0, "late")]))
    ws.indexes[0].extend()
    tl.build()
    assert len(tl) == n + 1 and texts(ws, tl)[-1] == "late"


def test_timeline_does_not_import_ui():
    code = ("import sys, npudiag_tui.core.timeline; "
            "assert 'textual' not in sys.modules and 'rich' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_console_merge_keeps_time_order_across_index_blocks(tmp_path):
    """Stamped and stampless lines of two consoles over several 64 KiB blocks merge in the
    order of their (time-model) times: the merge must number block lines as the index does."""
    for name, base in (("a.log", 0), ("b.log", 1)):
        with open(tmp_path / name, "w") as f:
            for i in range(4000):
                s = 2 * i + base
                if i % 3 == 0:
                    f.write(f"2026-01-05 16:{s // 6000 % 60:02d}:{s // 100 % 60:02d},{s % 100 * 10:03d}"
                            f" - INFO - {name} {i} {'x' * 40}\n")
                else:
                    f.write(f"  continuation {name} {i} {'y' * 40}\n")
    ws = Workspace.open([str(tmp_path)])
    ws.index()
    assert len(ws.indexes[0].nl_before) > 2
    tl = Timeline(ws, [0, 1])
    tl.build()
    times = [ws.times.line_time(f, line).us for f, line in (tl.at(p) for p in range(tl.total))]
    assert len(times) == 8000 and all(b >= a for a, b in zip(times, times[1:]))


def test_selection_times_from_the_scan_give_the_same_order(tmp_path):
    # the scan hands over the stamps of the lines it kept; the merge then reads nothing again
    from array import array

    ws = two_plogs(tmp_path)
    fids = [f.file_id for f in ws.files]
    pat = re.compile(rb"\n\[INFO\] ")
    times = {f: array("q") for f in fids}
    sel = {f: scan_matching_lines(ws.indexes[f], pat, line_start=True, times=times[f]) for f in fids}
    assert [len(times[f]) for f in fids] == [len(sel[f]) for f in fids] == [3, 4]  # a3-cont lines are not INFO headers
    assert all(t > 0 for f in fids for t in times[f])
    with_times = Timeline(ws, fids, sel, selection_times=times)
    with_times.build()
    reread = Timeline(ws, fids, sel)
    reread.build()
    assert [with_times.at(i) for i in range(len(with_times))] == [reread.at(i) for i in range(len(reread))]
    assert texts(ws, with_times) == ["a1", "b2", "a3", "b3", "b4", "a5", "b6"]


def test_position_at_time_over_many_samples_matches_a_linear_search(tmp_path):
    files = {f"debug/plog/plog-{pid}_20260101100000000.log":
             plog(pid, [(1.0 + k * 0.01 + pid * 1e-5, f"{pid}-{k}") for k in range(400)])
             for pid in (100, 200, 300)}
    ws = open_ws(tmp_path, files)
    tl = Timeline(ws, [f.file_id for f in ws.files])
    tl.build()
    times = [tl.time_at(i) for i in range(len(tl))]
    for t in (times[0] - 5, times[0], times[300] - 1, times[300], times[777] + 1, times[-1], times[-1] + 9):
        want = next((i for i, x in enumerate(times) if x >= t), len(tl) - 1)
        assert tl.position_at_time(t) == want


def test_a_source_whose_clock_steps_back_keeps_its_own_order(tmp_path):
    # rank 100's clock jumps back by 2 s mid-file: its lines stay in file order, and the other
    # source's lines still interleave by time around them
    ws = open_ws(tmp_path, {
        "debug/plog/plog-100_20260101100000000.log": plog(100, [
            (1.0, "a1"), (4.0, "a4"), (2.0, "a2-after-jump"), (5.0, "a5")]),
        "debug/plog/plog-200_20260101100000000.log": plog(200, [
            (1.5, "b1.5"), (3.0, "b3"), (4.5, "b4.5"), (6.0, "b6")]),
    })
    tl = Timeline(ws, [f.file_id for f in ws.files])
    tl.build()
    got = texts(ws, tl)
    assert [t for t in got if t.startswith("a")] == ["a1", "a4", "a2-after-jump", "a5"]
    assert got == ["a1", "b1.5", "b3", "a4", "a2-after-jump", "b4.5", "a5", "b6"]
    for i in range(len(tl)):
        assert tl.position_of(*tl.at(i)) == i


def test_line_start_scan_across_read_runs_finds_each_line_once(tmp_path, monkeypatch):
    # runs of whole lines are searched one by one: a line-start pattern must neither miss the
    # first line of a run nor count the run's last newline as the start of another line
    import npudiag_tui.core.timeline as timeline_mod

    monkeypatch.setattr(timeline_mod, "_READ", 256)
    ws = open_ws(tmp_path, {"debug/plog/plog-100_20260101100000000.log":
                            plog(100, [(1.0 + k * 0.01, f"x{k}") for k in range(60)])})
    idx = ws.indexes[0]
    every = scan_matching_lines(idx, re.compile(rb"\n"), line_start=True)
    assert list(every) == list(range(60))
    info = scan_matching_lines(idx, re.compile(rb"\n\[INFO\] "), line_start=True)
    assert list(info) == list(range(60))


def test_scan_asks_to_stop_between_matches_of_one_run(tmp_path):
    """A caller's pause or cancel takes effect inside a run of many matches, not only between
    1 MiB runs: the interface pauses its scans while a key is handled."""
    ws = open_ws(tmp_path, {"plog/plog-1_1.log": plog(100, [(i / 1000, f"m{i}") for i in range(2000)])})
    idx = ws.indexes[0]
    pat = re.compile(rb"F:m\d+")
    assert len(scan_matching_lines(idx, pat)) == 2000  # one run holds them all
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 2  # the first question (before the run) and one inside it pass

    got = scan_matching_lines(idx, pat, cancelled)
    assert len(asked) == 3
    assert 0 < len(got) < 2000


def _brute_next(tl: Timeline, refs, position: int, forward: bool):
    """The answer from every mark's own position: what next_position must match."""
    got = sorted(p for p in (tl.position_of(f, ln) for f, ln in refs) if p is not None)
    after = [p for p in got if (p > position if forward else p < position)]
    return (after[0] if forward else after[-1]) if after else None


def _check_marks(tl: Timeline, refs) -> None:
    n = len(tl)
    for position in range(-1, n + 1):
        for forward in (True, False):
            assert tl.next_position(refs, position, forward) == _brute_next(tl, refs, position, forward), \
                (tl.mode, position, forward)


def test_next_mark_position_without_positioning_every_mark(tmp_path):
    """e/E and w/W ask for the mark next to the cursor; per file only the mark next to the
    cursor's place competes. Checked against every mark's own position, at every position,
    both ways: merge (interleaved files, many 64-line steps), a selection, a partial build."""
    files = {f"debug/plog/plog-{pid}_20260101100000000.log":
             plog(pid, [(1.0 + k * 0.01 * (1 + pid // 200) + pid * 1e-6, f"{pid}-{k}") for k in range(300)])
             for pid in (100, 200, 300)}
    ws = open_ws(tmp_path, files)
    fids = [f.file_id for f in ws.files]
    refs = [(f, ln) for f in fids for ln in range(0, 300, 7 + f)] + [(fids[0], 299), (99, 3), (fids[1], 10_000)]
    tl = Timeline(ws, fids)
    tl.build()
    _check_marks(tl, refs)
    sel = {f: [k for k in range(300) if k % 3 == 0] for f in fids}
    stl = Timeline(ws, fids, sel)
    stl.build()
    _check_marks(stl, refs)  # marks on unselected lines are not in the view
    part = Timeline(ws, fids)
    part.build(until=part.ws.times.line_time(fids[0], 150).us)
    assert not part.complete and 0 < len(part) < 900
    _check_marks(part, refs)  # marks beyond what is merged yet are not in the view


def test_next_mark_position_in_a_chain_and_across_console_channels(tmp_path):
    chain = open_ws(tmp_path / "chain", {
        "debug/plog/plog-100_20260101100000000.log": plog(100, [(1.0 + k, f"a{k}") for k in range(40)]),
        "debug/plog/plog-100_20260101100100000.log": plog(100, [(50.0 + k, f"b{k}") for k in range(40)]),
    })
    fids = [f.file_id for f in chain.files]
    tl = Timeline(chain, fids)
    assert tl.mode == "concat"
    _check_marks(tl, [(fids[0], 3), (fids[0], 39), (fids[1], 0), (fids[1], 17), (fids[1], 40)])
    # one console written in per-rank blocks: its lines are merged in time order, not file order
    console = tmp_path / "console"
    console.mkdir()
    rows = [f"[rank{r}]: 2026-01-05 16:00:{2 * i + r:02d},000 - INFO - step {i}" for r in (0, 1) for i in range(20)]
    (console / "train.log").write_text("\n".join(rows) + "\n")
    (console / "other.log").write_text("".join(f"2026-01-05 16:00:{i:02d},500 - INFO - tick {i}\n" for i in range(40)))
    ws = Workspace.open([str(console)])
    ws.index()
    tl = Timeline(ws, [0, 1], mode="merge")
    tl.build()
    train = [ln for f, ln in (tl.at(p) for p in range(len(tl))) if ws.files[f].path.endswith("train.log")]
    assert train != sorted(train)  # the ranks' blocks interleave: not in file order
    _check_marks(tl, [(0, ln) for ln in range(0, 40, 3)] + [(1, ln) for ln in range(1, 40, 5)])
