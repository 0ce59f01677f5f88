"""Discovery: CANN layout at any depth, rotation chains, console files, sniffing, bundles, ranks."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import zipfile

import pytest

from npudiag_tui.core.discover import discover
from npudiag_tui.core.model import Stream
from npudiag_tui.core.workspace import Workspace

TS = "2026-01-02-03:04:05.006.007"


def plog_line(pid=100, module="RUNTIME", msg="f:x", level="ERROR"):
    return f"[{level}] {module}({pid},python):{TS} [a.cc:1]{pid} {msg}\n"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def cann_tree(root):
    base = root / "job" / "node1" / "ascend" / "log"
    for kind in ("debug", "run", "security"):
        write(base / kind / "plog" / "plog-100_20260102030405000.log", plog_line(100))
    write(base / "debug" / "plog" / "plog-100_20260102040000000.log", plog_line(100, msg="later"))
    write(base / "debug" / "plog" / "plog-100_20260102035000000.log", plog_line(100, msg="middle"))
    write(base / "debug" / "plog" / "plog-200_20260102030405000.log", plog_line(200))
    write(base / "debug" / "device-3" / "device-100_20260102030405111.log", plog_line(4127, "AICPU"))
    write(base / "debug" / "device-5" / "device-200_20260102030405111.log", plog_line(4128, "AICPU"))
    return base


def by_stream(d, stream):
    return [s for s in d.sources if s.stream is stream]


def test_cann_layout_at_depth_and_rotation(tmp_path):
    cann_tree(tmp_path)
    d = discover([str(tmp_path)])
    try:
        plogs = by_stream(d, Stream.PLOG)
        debug100 = [s for s in plogs if s.pid == 100 and s.run_kind == "debug"]
        assert len(debug100) == 1
        names = [os.path.basename(f.display) for f in debug100[0].files]
        assert names == ["plog-100_20260102030405000.log", "plog-100_20260102035000000.log",
                         "plog-100_20260102040000000.log"]
        assert [f.name_time for f in debug100[0].files] == sorted(f.name_time for f in debug100[0].files)
        assert {s.run_kind for s in plogs if s.pid == 100} == {"debug", "run", "security"}
        assert {s.pid for s in plogs} == {100, 200}
        devices = by_stream(d, Stream.DEVICE)
        assert {(s.pid, s.device) for s in devices} == {(100, 3), (200, 5)}
        # the host plog of the same pid learns its device
        assert debug100[0].device == 3
        # every file exactly once, file ids are positions
        assert [f.file_id for f in d.files] == list(range(len(d.files)))
        assert len(d.files) == 8
        assert all(not f.display.startswith("/") for f in d.files)
        assert not d.problems
    finally:
        d.cleanup()


def test_loose_files_are_console_and_sniffing(tmp_path):
    write(tmp_path / "train.log", "Traceback (most recent call last):\nRuntimeError: boom\n")
    write(tmp_path / "weird_name.txt", plog_line(321) * 10)
    write(tmp_path / "config.json", "{}")
    write(tmp_path / "notes.md", "# hi")
    d = discover([str(tmp_path)])
    kinds = {os.path.basename(s.files[0].display): s for s in d.sources}
    assert kinds["train.log"].stream is Stream.STDOUT
    assert kinds["weird_name.txt"].stream is Stream.PLOG and kinds["weird_name.txt"].pid == 321
    skipped = dict(d.skipped)
    assert "config.json" in skipped and "notes.md" in skipped
    assert "config.json" not in kinds


def test_stdout_flag_is_always_console(tmp_path):
    f = write(tmp_path / "plog-9_20260102030405000.log", plog_line(9) * 10)
    d = discover([], [str(f)])
    assert len(d.sources) == 1 and d.sources[0].stream is Stream.STDOUT
    j = write(tmp_path / "console.json", "RuntimeError: x\n")
    d = discover([], [str(j)])
    assert d.sources[0].stream is Stream.STDOUT and not d.skipped


def _bundle_members():
    return {
        "logs/debug/plog/plog-100_20260102030405000.log": plog_line(100),
        "logs/debug/device-2/device-100_20260102030405000.log": plog_line(4127, "AICPU"),
        "logs/stdout.log": "RuntimeError: boom\n",
    }


def make_tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as tf:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def make_zip(path, members):
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)


@pytest.mark.parametrize("name", ["bundle.tar.gz", "bundle.tgz", "bundle.zip"])
def test_bundles_read_directly(tmp_path, name):
    path = tmp_path / name
    (make_zip if name.endswith(".zip") else make_tar)(path, _bundle_members())
    d = discover([str(path)])
    try:
        displays = sorted(f.display for f in d.files)
        assert displays == sorted(f"{name}!{m}" for m in _bundle_members())
        streams = {os.path.basename(f.display): d.sources[i].stream
                   for i, s in enumerate(d.sources) for f in s.files}
        assert streams["plog-100_20260102030405000.log"] is Stream.PLOG
        assert streams["device-100_20260102030405000.log"] is Stream.DEVICE
        assert streams["stdout.log"] is Stream.STDOUT
        dev = by_stream(d, Stream.DEVICE)[0]
        assert dev.device == 2
        assert not d.problems
        assert all(f.path.startswith(tuple(d.temp_dirs)) for f in d.files)
    finally:
        d.cleanup()
    assert not any(os.path.exists(t) for t in d.temp_dirs)


@pytest.mark.parametrize("name", ["evil.tar.gz", "evil.zip"])
def test_bundle_traversal_refused(tmp_path, name):
    inner = tmp_path / "inner"
    inner.mkdir()
    members = {"ok/stdout.log": "RuntimeError: boom\n", "../../escaped.log": "pwned\n",
               "/abs_escaped.log": "pwned\n"}
    path = inner / name
    (make_zip if name.endswith(".zip") else make_tar)(path, members)
    d = discover([str(path)])
    try:
        assert [f.display for f in d.files] == [f"{name}!ok/stdout.log"]
        refused = [p for p in d.problems if "escaped.log" in p]
        assert len(refused) == 2
        assert all("\n" not in p and "refused" in p for p in refused)
        assert any("../../escaped.log" in p for p in refused)
    finally:
        d.cleanup()
    assert not (tmp_path / "escaped.log").exists() and not (inner.parent.parent / "escaped.log").exists()
    assert not os.path.exists("/abs_escaped.log")


def test_problems_for_missing_and_broken(tmp_path):
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling.log")
    d = discover([str(tmp_path / "missing"), str(tmp_path / "dangling.log")])
    assert not d.files
    assert any("missing" in p for p in d.problems)
    assert any("dangling.log" in p and "symbolic link" in p for p in d.problems)
    assert all("\n" not in p for p in d.problems)


def test_rank_from_hccl_init_line(tmp_path):
    line = ("[INFO] HCCL(100,python):" + TS + " [op_base.cc:1] [100][Init][HcclCommInitRootInfo]ranks[8], "
            "rank[3], rootinfo: host ip[10.0.0.1] port[60000] nicDeploy[1] identifier[x], deviceLogicId[3]\n")
    write(tmp_path / "debug" / "plog" / "plog-100_20260102030405000.log", line + plog_line(100))
    ws = Workspace.open([str(tmp_path)])
    try:
        src = ws.sources[0]
        assert src.rank is None
        ws.index()
        assert src.rank == 3 and src.device == 3
    finally:
        ws.close()


def test_rank_from_torch_npu_header(tmp_path):
    write(tmp_path / "plog" / "plog-13075_20250625104500000.log", plog_line(13075))
    write(tmp_path / "console.log",
          "[ERROR] 2025-06-25-10:45:23 (PID:13075, Device:0, RankID:8) ERR00100 PTA call acl api failed\n")
    ws = Workspace.open([str(tmp_path)])
    try:
        ws.index()
        diag = ws.diagnose()  # the header ties CANN pid 13075 to rank 8
        plog = [s for s in ws.sources if s.stream is Stream.PLOG][0]
        assert plog.rank == 8, [(s.label, s.rank) for s in ws.sources]
        header = [ev for ev in diag.events if "RankID:8" in ev.text]
        assert header and all(ev.rank == 8 for ev in header)
    finally:
        ws.close()


def test_rank_from_worker_prefix(tmp_path):
    write(tmp_path / "console.log",
          "(VllmWorker rank=3 pid=123) ERROR 02-14 06:01:55 [multiproc_executor.py:601] EZ9999: Inner Error!\n")
    ws = Workspace.open([str(tmp_path)])
    try:
        ws.index()
        diag = ws.diagnose()
        assert diag.events and {ev.rank for ev in diag.events} == {3}
    finally:
        ws.close()


def _write(path, text="RuntimeError: x\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_folder_links_are_followed_once_and_loops_listed(tmp_path):
    """Like `find -L`: logs kept on another disk behind a folder link are read; a link back up the
    tree is listed as a loop instead of walked forever; each real file is read once."""
    _write(tmp_path / "elsewhere" / "run" / "plog" / "plog-7_20260311100000000.log",
           "[ERROR] RUNTIME(7,python):2026-03-11-10:00:00.000.100 boom\n")
    tree = tmp_path / "tree"
    _write(tree / "train.log")
    os.symlink(tmp_path / "elsewhere", tree / "linked")
    os.symlink(tree, tree / "loop")
    d = discover([str(tree)])
    shown = sorted(f.display for f in d.files)
    assert shown == ["linked/run/plog/plog-7_20260311100000000.log", "train.log"]
    assert ("loop", "folder link loop") in d.skipped


def test_a_folder_that_cannot_be_read_is_named_with_its_reason(tmp_path, monkeypatch):
    _write(tmp_path / "ok" / "a.log")
    _write(tmp_path / "secret" / "b.log")
    real_scandir = os.scandir

    def scandir(path):
        if os.fspath(path).endswith("secret"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    d = discover([str(tmp_path)])
    assert [f.display for f in d.files] == ["ok/a.log"]
    assert any(p.startswith("secret") and "Permission denied" in p for p in d.problems)


def test_a_tree_deeper_than_the_recursion_limit_is_walked(tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(1100):  # built relative to a descriptor: the path passes 2,000 characters
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        with os.fdopen(os.open("deep.log", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as fh:
            fh.write("RuntimeError: deep\n")
    finally:
        os.close(fd)
    try:
        d = discover([str(tmp_path)])
        assert [f.display.count("d/") for f in d.files] == [1100]
    finally:  # pytest's own clean-up recurses per level: take the tree down with rm
        subprocess.run(["rm", "-rf", str(tmp_path / "d")], check=True)
