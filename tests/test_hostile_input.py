"""Hostile and broken input (issue 13): archives, registries, long lines, names, empty inputs.

Every input is built here in tmp_path. Each test failed before its fix: the behaviour it asserts
is a clear problem or a one-line error where there used to be silence, a traceback, a temp
folder left behind, or a whole archive thrown away.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from npudiag_tui.cli import main
from npudiag_tui.core import archives
from npudiag_tui.core.discover import discover

CONSOLE = b"RuntimeError: NPU function error: aclnnMatmul, error code is 161002\n"


@pytest.fixture
def private_tmp(tmp_path, monkeypatch) -> Path:
    """Extraction goes to a temp folder of this test only, so what is left behind can be seen."""
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    return code, out, err


def tar_bytes(members: list[tuple[str, bytes]], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def zip_bytes(members: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def extracted_bytes(d) -> int:
    return sum(f.size for f in d.files if "!" in f.display)


# --------------------------------------------------------------------------- archive budget
def test_one_budget_for_the_whole_input_nested_archives_included(tmp_path, private_tmp, monkeypatch):
    monkeypatch.setattr(archives, "LIMITS", archives.ExtractLimits(max_bytes=1 << 20, min_free_bytes=0))
    inner = zip_bytes([("big.log", CONSOLE * 4000)])  # ~290 KB each, well compressed
    outer = tmp_path / "bomb.zip"
    outer.write_bytes(zip_bytes([(f"part{i}.zip", inner) for i in range(8)], zipfile.ZIP_STORED))
    (tmp_path / "beside.log").write_bytes(CONSOLE)
    d = discover([str(outer), str(tmp_path / "beside.log")])
    try:
        assert extracted_bytes(d) <= 1 << 20  # per archive, every part fitted: 8 x 290 KB
        assert 0 < len([f for f in d.files if "!" in f.display]) < 8  # what fitted is read
        stops = [p for p in d.problems if "beyond 1.0 MiB" in p]
        assert stops and all(p.startswith("bomb.zip") for p in stops), d.problems
        assert any(f.display == "beside.log" for f in d.files)  # the rest of the input is read
    finally:
        d.cleanup()
    assert list(private_tmp.iterdir()) == []


def test_member_count_budget_stops_with_a_problem(tmp_path, private_tmp, monkeypatch):
    monkeypatch.setattr(archives, "LIMITS", archives.ExtractLimits(max_members=5, min_free_bytes=0))
    bundle = tmp_path / "many.tar.gz"
    bundle.write_bytes(tar_bytes([(f"log/{i:02d}.log", CONSOLE) for i in range(10)]))
    d = discover([str(bundle)])
    d.cleanup()
    assert len(d.files) == 5
    assert any("more than 5 archive members" in p for p in d.problems), d.problems


def test_free_space_in_the_temp_folder_is_checked(tmp_path, private_tmp, monkeypatch):
    monkeypatch.setattr(archives, "LIMITS", archives.ExtractLimits(min_free_bytes=1 << 62))
    bundle = tmp_path / "logs.tar.gz"
    bundle.write_bytes(tar_bytes([("a.log", CONSOLE)]))
    (tmp_path / "beside.log").write_bytes(CONSOLE)
    d = discover([str(bundle), str(tmp_path / "beside.log")])
    d.cleanup()
    assert [f.display for f in d.files] == ["beside.log"]
    assert any("logs.tar.gz" in p and "free" in p for p in d.problems), d.problems


def nested_tar(tmp_path: Path, levels: int) -> Path:
    data, name = CONSOLE, "x.log"
    for level in range(levels):
        data, name = tar_bytes([(name, data)]), f"n{level}.tar.gz"
    path = tmp_path / "deep.tar.gz"
    path.write_bytes(data)
    return path


def test_nesting_depth_limit_one_problem_one_temp_folder(tmp_path, private_tmp):
    d = discover([str(nested_tar(tmp_path, 30))])
    try:
        assert len(d.temp_dirs) == 1  # one private root for every nested archive
        deep = [p for p in d.problems if "nested more than" in p]
        assert len(deep) == 1 and deep[0].startswith("deep.tar.gz!"), d.problems
    finally:
        d.cleanup()
    assert list(private_tmp.iterdir()) == []


def test_400_level_nested_tar_gz_is_a_one_line_error(tmp_path, capsys, private_tmp):
    code, out, err = run(capsys, [str(nested_tar(tmp_path, 400)), "--report", "json"])
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "nested more than" in lines[0], err
    assert list(private_tmp.iterdir()) == []


# --------------------------------------------------------------------------- damaged archives
def test_zip_with_corrupt_member_data_keeps_the_other_members(tmp_path, private_tmp):
    raw = bytearray(zip_bytes([("a.log", CONSOLE * 200), ("b.log", CONSOLE)]))
    raw[60:80] = b"\xff" * 20  # inside a.log's compressed data
    bundle = tmp_path / "bad.zip"
    bundle.write_bytes(bytes(raw))
    d = discover([str(bundle)])
    d.cleanup()
    assert "bad.zip!b.log" in [f.display for f in d.files]
    bad = [p for p in d.problems if p.startswith("bad.zip!a.log: ")]
    assert len(bad) == 1 and "\n" not in bad[0], d.problems


def test_zip_with_corrupt_data_through_the_cli_no_traceback(tmp_path, capsys, private_tmp):
    raw = bytearray(zip_bytes([("a.log", CONSOLE * 200)]))
    raw[60:80] = b"\xff" * 20
    bundle = tmp_path / "bad.zip"
    bundle.write_bytes(bytes(raw))
    code, out, err = run(capsys, [str(bundle), "--report", "json"])
    assert "bad.zip!a.log" in err
    assert len([ln for ln in err.splitlines() if "bad.zip" in ln]) == 1
    assert list(private_tmp.iterdir()) == []


def test_tar_gz_with_a_crc_error_is_reported_and_what_was_read_is_kept(tmp_path, private_tmp):
    raw = bytearray(tar_bytes([("a.log", CONSOLE * 50)]))
    raw[-8] ^= 0xFF  # the gzip trailer's CRC-32
    bundle = tmp_path / "crc.tar.gz"
    bundle.write_bytes(bytes(raw))
    d = discover([str(bundle)])
    d.cleanup()
    assert [f.display for f in d.files] == ["crc.tar.gz!a.log"]
    assert any(p.startswith("crc.tar.gz: ") and "damaged" in p for p in d.problems), d.problems


def test_truncated_tar_gz_keeps_the_members_before_the_damage(tmp_path, private_tmp):
    raw = tar_bytes([("a.log", CONSOLE), ("b.log", os.urandom(200_000))])
    bundle = tmp_path / "cut.tar.gz"
    bundle.write_bytes(raw[: len(raw) // 2])
    d = discover([str(bundle)])
    d.cleanup()
    assert "cut.tar.gz!a.log" in [f.display for f in d.files]
    assert any("cut.tar.gz" in p for p in d.problems), d.problems


def test_one_odd_member_does_not_reject_the_archive(tmp_path, private_tmp):
    long_name = "log/" + "n" * 300 + ".log"
    bundle = tmp_path / "odd.tar.gz"
    bundle.write_bytes(tar_bytes([("log/a.log", CONSOLE), ("log/a.log/inner.log", CONSOLE),
                                  (long_name, CONSOLE), ("log/.", b""), ("log/ok.log", CONSOLE)]))
    d = discover([str(bundle)])
    d.cleanup()
    assert sorted(f.display for f in d.files) == ["odd.tar.gz!log/a.log", "odd.tar.gz!log/ok.log"]
    for member in ("log/a.log/inner.log", long_name, "log/."):
        assert any(p.startswith(f"odd.tar.gz!{member}: ") for p in d.problems), (member, d.problems)


def test_hard_links_are_read_and_symlinks_listed(tmp_path, private_tmp):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("log/real.log")
        info.size = len(CONSOLE)
        tf.addfile(info, io.BytesIO(CONSOLE))
        for name, kind, target in (("log/hard.log", tarfile.LNKTYPE, "log/real.log"),
                                   ("log/soft.log", tarfile.SYMTYPE, "/etc/passwd")):
            link = tarfile.TarInfo(name)
            link.type, link.linkname = kind, target
            tf.addfile(link)
    bundle = tmp_path / "links.tar.gz"
    bundle.write_bytes(buf.getvalue())
    d = discover([str(bundle)])
    try:
        hard = [f for f in d.files if f.display == "links.tar.gz!log/hard.log"]
        assert hard and Path(hard[0].path).read_bytes() == CONSOLE
        assert not any(f.display.endswith("soft.log") for f in d.files)
        assert [(p, r) for p, r in d.skipped if p == "links.tar.gz!log/soft.log" and "symbolic link" in r], d.skipped
    finally:
        d.cleanup()


def test_zip_symlink_member_is_listed_not_read(tmp_path, private_tmp):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ok.log", CONSOLE)
        link = zipfile.ZipInfo("link.log")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "/etc/passwd")
    bundle = tmp_path / "links.zip"
    bundle.write_bytes(buf.getvalue())
    d = discover([str(bundle)])
    d.cleanup()
    assert [f.display for f in d.files] == ["links.zip!ok.log"]
    assert any(p == "links.zip!link.log" and "symbolic link" in r for p, r in d.skipped), d.skipped


# --------------------------------------------------------------------------- interrupts
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_during_extraction_leaves_no_temp_folder(tmp_path, sig):
    """Ctrl-C or SIGTERM while a big bundle is unpacked: one line, no traceback, nothing left."""
    bundle = tmp_path / "big.tar.gz"
    bundle.write_bytes(tar_bytes([(f"log/{i:05d}.log", CONSOLE * 8) for i in range(20000)]))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
    env.update(TMPDIR=str(tmp), NPUDIAG_CANN_ROOTS="")
    # a shell's background job starts with SIGINT ignored, and Python then keeps it ignored: the
    # child gets the default disposition, as a program started from a terminal has
    proc = subprocess.Popen([sys.executable, "-m", "npudiag_tui", str(bundle), "--report", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not any(tmp.rglob("*.log")):  # extraction has begun
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "extraction never started"
        time.sleep(0.01)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    assert len(err.splitlines()) == 1 and "interrupted" in err, err
    assert list(tmp.iterdir()) == []


# --------------------------------------------------------------------------- long lines
@pytest.mark.parametrize("filler", ["x(", "a:", "[1", "ab(", "[FUNC:"])
def test_error_on_a_long_line_is_still_found(tmp_path, capsys, filler):
    """The patterns that backtracked on such lines (35 s for 64 KB) are bounded; the error at the
    start of a 256 KB line is still the anchor (bench/run_long_line.py proves the time linear)."""
    path = tmp_path / "train.log"
    path.write_text("step 1 ok\n" + CONSOLE.decode().rstrip("\n") + " " + filler * (256 * 1024 // len(filler))
                    + "\n", encoding="utf-8")
    code, out, err = run(capsys, ["--stdout", str(path), "--report", "json"])
    assert code == 0, err
    anchor = json.loads(out)["anchor"]
    assert anchor["line"] == 2 and anchor["text"].startswith(CONSOLE.decode().rstrip("\n")), anchor["why"]


# --------------------------------------------------------------------------- registries
def deep_json(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"error_info_list": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    return path


def test_deeply_nested_registry_is_a_one_line_warning(tmp_path, capsys):
    log = tmp_path / "x.log"
    log.write_bytes(CONSOLE)
    reg = deep_json(tmp_path / "deep.json")
    code, out, err = run(capsys, [str(log), "--registry", str(reg), "--report", "json"])
    assert code == 0 and json.loads(out)["anchor"] is not None
    assert [ln for ln in err.splitlines() if "deep.json" in ln] == [f"npudiag-tui: {reg}: not a registry (JSON nested too deeply)"]


def test_deeply_nested_registry_under_ascend_home_path(tmp_path, capsys, monkeypatch):
    home = tmp_path / "cann"
    reg = deep_json(home / "conf" / "error_manager" / "error_code.json")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(home))
    log = tmp_path / "x.log"
    log.write_bytes(CONSOLE)
    code, out, err = run(capsys, [str(log), "--report", "json"])
    assert code == 0
    assert [ln for ln in err.splitlines() if "error_code.json" in ln] == [
        f"npudiag-tui: {reg}: not a registry (JSON nested too deeply)"]


def test_registry_with_thousands_of_duplicate_codes_loads_and_keeps_each_wording(tmp_path):
    """Each duplicate re-deduplicated every earlier wording: cubic, 31 s for 160 KB."""
    from npudiag_tui.core.registry.registry import Registry

    items = [{"ErrCode": "E10001", "ErrMessage": f"wording {i % 50} of %s", "Arglist": "value"} for i in range(3000)]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps({"error_info_list": items}), encoding="utf-8")
    reg = Registry.load([str(path)], env={}, search_roots=[])
    entry = reg.lookup("E10001")
    assert entry.template == "wording 49 of %s"
    wordings = [t for t, _ in entry.variants]
    assert len(wordings) == len(set(wordings)) and wordings[:2] == ["wording 48 of %s", "wording 47 of %s"]
    assert {f"wording {i} of %s" for i in range(49)} <= set(wordings)
    assert reg.extract_args(entry, "wording 7 of abc") == {"value": "abc"}


@pytest.mark.parametrize("kind", ["dir", "fifo"])
def test_registry_that_is_a_directory_or_fifo_is_named_as_such(tmp_path, capsys, kind):
    log = tmp_path / "x.log"
    log.write_bytes(CONSOLE)
    reg = tmp_path / "reg.json"
    reg.mkdir() if kind == "dir" else os.mkfifo(reg)
    code, out, err = run(capsys, [str(log), "--registry", str(reg), "--report", "json"])
    what = "a directory" if kind == "dir" else "a FIFO"
    assert code == 2 and out == ""
    assert err.splitlines() == [f"npudiag-tui: {reg}: {what}{' (named pipe)' if kind == 'fifo' else ''}, "
                                "not a registry file (error_code.json)"]


# --------------------------------------------------------------------------- names and reports
def test_non_utf8_file_names_give_valid_utf8_json_with_raw_bytes(tmp_path):
    raw_name = b"caf\xe9-\xff.log"
    (tmp_path / os.fsdecode(raw_name)).write_bytes(CONSOLE)
    r = subprocess.run([sys.executable, "-m", "npudiag_tui", str(tmp_path), "--report", "json"],
                       capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict",
                                                 "NPUDIAG_CANN_ROOTS": ""}, timeout=120)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    doc = json.loads(r.stdout.decode("utf-8"))  # strict UTF-8: raises on a raw surrogate
    [entry] = doc["inputs"]
    assert entry["path"] == "caf\\xe9-\\xff.log"
    assert bytes.fromhex(entry["path_bytes"]) == raw_name
    assert bytes.fromhex(doc["anchor"]["path_bytes"]) == raw_name
    for fmt in ("text", "markdown"):
        r = subprocess.run([sys.executable, "-m", "npudiag_tui", str(tmp_path), "--report", fmt],
                           capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict",
                                                     "NPUDIAG_CANN_ROOTS": ""}, timeout=120)
        assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
        assert "caf\\xe9-\\xff.log" in r.stdout.decode("utf-8")


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_reports_say_what_was_skipped_and_why(tmp_path, capsys, fmt):
    (tmp_path / "train.log").write_bytes(CONSOLE)
    (tmp_path / "config.yaml").write_text("a: 1\n")
    code, out, err = run(capsys, [str(tmp_path), "--report", fmt])
    assert code == 0
    assert "Skipped (not read)" in out and "config.yaml: not a log (.yaml file)" in out


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_input_of_empty_files_does_not_claim_no_error(tmp_path, capsys, fmt):
    (tmp_path / "train.log").write_bytes(b"")
    code, out, err = run(capsys, [str(tmp_path), "--report", fmt])
    assert "No error found" not in out
    assert "No log line in the inputs: 1 file read, all empty" in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_huge_line_is_cut_in_every_report_and_says_so(tmp_path, capsys, fmt):
    size = 8 << 20
    path = tmp_path / "train.log"
    with open(path, "wb") as fh:
        fh.write(b"step ok\n" + CONSOLE.rstrip(b"\n") + b" " + b"x" * size + b"\n")
    code, out, err = run(capsys, ["--stdout", str(path), "--report", fmt])
    assert code == 0, err
    assert len(out) < 1 << 20  # was the whole 8 MB line (105 MB for a 100 MB line)
    total = len(CONSOLE) + size  # the line without its newline: CONSOLE's newline is the space
    if fmt == "json":
        anchor = json.loads(out)["anchor"]
        assert anchor["line_bytes"] == total and anchor["text"].startswith(CONSOLE.decode().rstrip("\n"))
    else:
        assert f"[line cut: {total:,} bytes in all]" in out


def test_archive_member_names_with_escape_sequences_are_inert(tmp_path, capsys, private_tmp):
    """OSC 52 (clipboard), a title sequence and a clear-screen in member names reached the terminal."""
    evil = "log/\x1b]52;c;SGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J.log"
    bundle = tmp_path / "bundle.tar.gz"
    bundle.write_bytes(tar_bytes([(evil, CONSOLE), ("log/" + "\x1b[2J" * 2 + ".yaml", b"a: 1\n"),
                                  ("../\x1b]0;t\x07.log", CONSOLE)]))
    for fmt in ("text", "markdown"):
        code, out, err = run(capsys, [str(bundle), "--report", fmt])
        assert code == 0, err
        for stream in (out, err):
            assert "\x1b" not in stream and "\x07" not in stream, repr(stream)
        assert "\u241b]52;c;SGVsbG8=\u2407" in out  # the name is shown, inert
