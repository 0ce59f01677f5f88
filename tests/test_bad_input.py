"""Hostile and broken input through the CLI: exit 0 with a clean report, or exit 2 with a one-line
message naming the file; never a traceback. JSON `inputs` line counts follow `wc -l` semantics."""

from __future__ import annotations

import builtins
import io
import json
import os
import subprocess
import sys
import tarfile

import pytest

from npudiag_tui.cli import main

TS = "2026-01-02-03:04:05.006.007"
PLOG = f"[ERROR] RUNTIME(100,python):{TS} [a.cc:1]100 rtMemcpy:ErrCode=107030, desc=[x]\n"


def wc_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback (most recent call last)" not in out
    return code, out, err


def check_clean(code, out, err, name):
    """Exit 0 with a JSON report; whatever went wrong with an input is one line naming it."""
    assert code == 0, (code, err)
    rep = json.loads(out)
    assert rep["schema"] == "npudiag-report/1"
    return rep


def check_refused(code, out, err, name, reason):
    """Exit 2, nothing on stdout, and one line on stderr naming the input and the reason."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == "", (code, err)
    assert len(lines) == 1 and name in lines[0] and reason in lines[0], err


def assert_wc(rep, files):
    """Every input's `lines` equals wc -l (+1 for a last line without newline)."""
    by_path = {i["path"]: i["lines"] for i in rep["inputs"]}
    for display, path in files.items():
        assert by_path[display] == wc_lines(path.read_bytes()), display


def test_nonexistent_path(capsys, tmp_path):
    p = str(tmp_path / "nope")
    code, out, err = run(capsys, [p, "--report", "json"])
    assert code == 2 and err.count("\n") == 1 and p in err and out == ""


def test_nonexistent_stdout_file(capsys, tmp_path):
    p = str(tmp_path / "nope.log")
    code, out, err = run(capsys, ["--stdout", p, "--report", "json"])
    assert code == 2 and p in err and err.count("\n") == 1


def test_empty_folder(capsys, tmp_path):
    """Nothing was read, so no report claims that logs hold no error: exit 2, one line."""
    code, out, err = run(capsys, [str(tmp_path), "--report", "json"])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert str(tmp_path) in err and "no log files found" in err


def test_folder_of_skipped_files_says_what_was_skipped(capsys, tmp_path):
    (tmp_path / "core.bin").write_bytes(bytes(range(256)) * 64)
    code, out, err = run(capsys, [str(tmp_path), "--report", "text"])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "no log files found" in err and "core.bin" in err


def test_lookalike_an_empty_log_file_is_read(capsys, tmp_path):
    (tmp_path / "train.log").write_text("")
    code, out, err = run(capsys, [str(tmp_path), "--report", "json"])
    assert code == 0 and json.loads(out)["anchor"] is None


def test_broken_symlink(capsys, tmp_path):
    link = tmp_path / "dangling.log"
    os.symlink(tmp_path / "nowhere", link)
    code, out, err = run(capsys, [str(link), "--report", "json"])
    assert code == 2 and "dangling.log" in err and err.count("\n") == 1
    # inside a folder: reported, the rest still opens
    good = tmp_path / "good.log"
    good.write_text("RuntimeError: boom\n")
    code, out, err = run(capsys, [str(tmp_path), "--report", "json"])
    rep = check_clean(code, out, err, "dangling.log")
    assert rep is not None and [i["path"] for i in rep["inputs"]] == ["good.log"]
    assert any("dangling.log" in p for p in rep["problems"])


def test_unreadable_file(capsys, tmp_path, monkeypatch):
    bad = tmp_path / "secret.log"
    bad.write_text(PLOG)
    (tmp_path / "good.log").write_text("RuntimeError: boom\n")
    bad.chmod(0)
    try:
        if os.access(bad, os.R_OK):  # root reads mode 000: deny it by other means
            real_open, real_os_open = builtins.open, os.open

            def deny(path):
                if os.fspath(path) == str(bad):
                    raise PermissionError(13, "Permission denied", str(bad))

            monkeypatch.setattr(builtins, "open", lambda f, *a, **k: (deny(f) if isinstance(f, (str, os.PathLike))
                                                                     else None) or real_open(f, *a, **k))
            monkeypatch.setattr(os, "open", lambda f, *a, **k: deny(f) or real_os_open(f, *a, **k))
        code, out, err = run(capsys, [str(tmp_path), "--report", "json"])
        rep = check_clean(code, out, err, "secret.log")
        assert rep is not None
        assert [i["path"] for i in rep["inputs"]] == ["good.log"]
        assert any("secret.log" in p for p in rep["problems"])
        assert any("secret.log" in ln for ln in err.splitlines())
        # alone: exit 2 naming it
        code, out, err = run(capsys, [str(bad), "--report", "json"])
        assert code == 2 and "secret.log" in err and err.count("\n") == 1
    finally:
        bad.chmod(0o644)


def test_vanished_between_discovery_and_index(capsys, tmp_path, monkeypatch):
    from npudiag_tui.core.workspace import Workspace

    f = tmp_path / "gone.log"
    f.write_text(PLOG)
    (tmp_path / "stay.log").write_text("RuntimeError: boom\n")
    ws = Workspace.open([str(tmp_path)])
    try:
        f.unlink()
        ws.index()
        assert any("gone.log" in p for p in ws.problems)
        ws.diagnose()
    finally:
        ws.close()


def test_file_swapped_for_a_fifo_after_discovery_is_a_problem_not_a_hang(tmp_path):
    """A FIFO's open waits for a writer forever: run in a child with a deadline that fails
    loudly, the swap must end as one problem naming the file while the rest is read."""
    script = (
        "import os, sys\n"
        "from npudiag_tui.core.workspace import Workspace\n"
        "root = sys.argv[1]\n"
        "ws = Workspace.open([root])\n"
        "os.unlink(os.path.join(root, 'swapped.log'))\n"
        "os.mkfifo(os.path.join(root, 'swapped.log'))\n"
        "ws.index(); d = ws.diagnose()\n"
        "print([p for p in ws.problems if 'swapped.log' in p])\n"
        "print(d.anchor is not None)\n"
        "ws.close()\n")
    (tmp_path / "swapped.log").write_text(PLOG)
    (tmp_path / "stay.log").write_text("RuntimeError: boom\n")
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    problems, anchored = r.stdout.strip().splitlines()
    assert "not a regular file" in problems
    assert anchored == "True"


@pytest.mark.parametrize("kind", ["binary", "nul", "gbk", "crlf", "long", "truncated"])
def test_odd_files(capsys, tmp_path, kind):
    name = f"{kind}.log"
    p = tmp_path / name
    if kind == "binary":
        p.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 64)
    elif kind == "nul":
        # a text log with NUL bytes (a crash left a zero-filled hole): still a log
        p.write_bytes(PLOG.encode() * 20 + b"RuntimeError: a\x00b\x00c\n" + b"\x00" * 64 + b"\nok\n")
    elif kind == "gbk":
        p.write_bytes("RuntimeError: 设备错误 EZ9999\n第二行\n".encode("gbk") + PLOG.encode())
    elif kind == "crlf":
        p.write_bytes(PLOG.replace("\n", "\r\n").encode() * 3 + b"RuntimeError: x\r\n")
    elif kind == "long":
        p.write_bytes(b"RuntimeError: " + b"x" * (5 * 1024 * 1024) + b"\n" + PLOG.encode())
    elif kind == "truncated":
        p.write_bytes(PLOG.encode() * 2 + PLOG.encode()[:40])
    code, out, err = run(capsys, [str(p), "--report", "json"])
    if kind == "binary":
        check_refused(code, out, err, name, "binary")
        return
    rep = check_clean(code, out, err, name)
    assert_wc(rep, {name: p})
    if kind in ("crlf", "truncated"):
        assert rep["anchor"] is not None
        assert not rep["anchor"]["text"].endswith("\r")


def test_odd_files_together_wc_semantics(capsys, tmp_path):
    files = {
        "a.log": b"RuntimeError: x\n",
        "b.log": b"no newline at end",
        "c.log": b"",
        "d.log": b"\r\n\r\n",
        "e.log": "错误\n".encode("gbk") * 3 + b"tail",
        "debug/plog/plog-100_20260102030405000.log": PLOG.encode() * 4 + PLOG.encode()[:20],
    }
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    code, out, err = run(capsys, [str(tmp_path), "--report", "json"])
    rep = check_clean(code, out, err, str(tmp_path))
    assert rep is not None
    by_path = {i["path"]: i["lines"] for i in rep["inputs"]}
    for rel, data in files.items():
        assert by_path[rel] == wc_lines(data), rel


def test_bundle_with_traversal(capsys, tmp_path):
    bundle = tmp_path / "evil.tar.gz"
    with tarfile.open(bundle, "w:gz") as tf:
        for name, data in (("ok/stdout.log", b"RuntimeError: boom\n"), ("../escape.log", b"pwned\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    code, out, err = run(capsys, [str(bundle), "--report", "json"])
    rep = check_clean(code, out, err, "evil.tar.gz")
    assert rep is not None
    assert [i["path"] for i in rep["inputs"]] == ["evil.tar.gz!ok/stdout.log"]
    refused = [ln for ln in err.splitlines() if "../escape.log" in ln]
    assert len(refused) == 1 and "evil.tar.gz" in refused[0]
    assert not (tmp_path.parent / "escape.log").exists()


def test_corrupt_bundle(capsys, tmp_path):
    bundle = tmp_path / "broken.tar.gz"
    bundle.write_bytes(b"\x1f\x8b\x08\x00garbage" * 10)
    code, out, err = run(capsys, [str(bundle), "--report", "json"])
    assert code == 2, "the only input holds no readable log: a usage error, not an empty report"
    assert out == ""
    assert "broken.tar.gz" in err
    assert len([ln for ln in err.splitlines() if "broken.tar.gz" in ln]) == 1


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_control_sequences_do_not_break_reports(capsys, tmp_path, fmt):
    p = tmp_path / "ansi.log"
    p.write_bytes(b"\x1b[31mRuntimeError: NPU out of memory. \x1b]0;title\x07[bold]x[/bold]\x1b[2J\n")
    code, out, err = run(capsys, [str(p), "--report", fmt])
    assert code == 0, err
    if fmt != "json":
        assert "\x1b" not in out


def test_subprocess_no_traceback(tmp_path):
    p = tmp_path / "nul.log"
    p.write_bytes(b"\x00\xff\xfe RuntimeError\n")
    # a missing path is a usage error; a few NUL bytes do not make a log binary, as a file or
    # as console output
    for argv, expected in (([str(tmp_path / "missing")], 2), ([str(p)], 0), (["--stdout", str(p)], 0)):
        r = subprocess.run([sys.executable, "-m", "npudiag_tui", *argv, "--report", "json"],
                           capture_output=True, text=True, timeout=120)
        assert "Traceback" not in r.stderr
        assert r.returncode == expected, (argv, r.stderr)
        if expected == 2:
            assert len(r.stderr.strip().splitlines()) == 1 and "missing" in r.stderr
        else:
            assert json.loads(r.stdout)["inputs"][0]["path"] == "nul.log"
