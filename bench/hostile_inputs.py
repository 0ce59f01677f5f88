"""Run the hostile-input classes against the CLI and count how many behaved.

    .venv/bin/python bench/hostile_inputs.py [--only CLASS] [--verbose]

Each input is built in a private folder and given to `npudiag-tui --report` in a child process
whose temp folder is private too. It behaved when: no traceback; it ended within the time limit
(no hang); exit 0 with a report, or exit 2 with one line on stderr naming the input; the text and
markdown reports carry no raw escape byte; the input tree is byte-for-byte unchanged and the
child's temp folder is empty afterwards (nothing written outside it, nothing left behind); and,
for inputs with a known number of lines, every line is counted (nothing lost).

Classes: paths, content, archives, registry, names. Live behaviour (recreated files, truncation,
FIFO swaps, error storms) is exercised by tests/test_live.py and tests/tui/test_live_tui.py.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

LIMIT_S = 120
PLOG = "[ERROR] RUNTIME(101,python):2026-03-11-10:00:00.000.100 [api_c.cc:1]101 rtKernelLaunch: ErrCode=507015\n"
CONSOLE = "RuntimeError: NPU function error: aclnnMatmul, error code is 161002\n"


@dataclass
class Case:
    cls: str
    name: str
    build: Callable[[Path], list[str]]  # returns argv (paths and options) for the CLI
    lines: dict[str, int] | None = None  # report path -> expected line count
    fmt: str = "json"
    min_inputs: int = 0  # the report must read at least this many files (a link was followed)


# ------------------------------------------------------------------ builders
def _write(p: Path, data: bytes | str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def _tar(dest: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(dest, mode) as tf:
        for info, data in members:
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return dest


def _member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = "") -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data if kind == tarfile.REGTYPE else None


def paths_cases() -> list[Case]:
    def dangling(d: Path) -> list[str]:
        _write(d / "good.log", CONSOLE)
        os.symlink(d / "nowhere", d / "dangling.log")
        return [str(d)]

    def loop(d: Path) -> list[str]:
        _write(d / "run" / "good.log", CONSOLE)
        os.symlink(d / "run", d / "run" / "again")
        return [str(d)]

    def dir_link(d: Path) -> list[str]:
        _write(d / "elsewhere" / "plog" / "plog-101_20260311100000000.log", PLOG)
        (d / "tree").mkdir()
        os.symlink(d / "elsewhere", d / "tree" / "linked")
        return [str(d / "tree")]

    def deep(d: Path) -> list[str]:
        fd = os.open(d, os.O_RDONLY)
        try:
            for _ in range(1100):  # relative to a descriptor: the full path is beyond PATH_MAX
                os.mkdir("d", dir_fd=fd)
                nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd = nfd
            with os.fdopen(os.open("deep.log", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as fh:
                fh.write(CONSOLE)
        finally:
            try:
                os.close(fd)
            except OSError:
                pass
        _write(d / "top.log", CONSOLE)
        return [str(d)]

    def fifo(d: Path) -> list[str]:
        _write(d / "good.log", CONSOLE)
        os.mkfifo(d / "pipe.log")
        return [str(d)]

    def missing(d: Path) -> list[str]:
        return [str(d / "not-there")]

    return [
        Case("paths", "dangling symlink in a folder", dangling, {"good.log": 1}),
        Case("paths", "directory symlink loop", loop),
        Case("paths", "directory symlink to logs elsewhere", dir_link, min_inputs=1),
        Case("paths", "1,100-deep tree", deep, {"top.log": 1}, min_inputs=2),
        Case("paths", "FIFO in the tree", fifo, {"good.log": 1}),
        Case("paths", "missing path", missing),
    ]


def content_cases() -> list[Case]:
    def one(name: str, data: bytes, fmt: str = "json") -> Case:
        lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if b"\n" not in data and b"\r" in data:
            lines = data.count(b"\r") + (0 if data.endswith(b"\r") else 1)
        return Case("content", name, lambda d: [str(_write(d / "x.log", data))], {"x.log": lines}, fmt)

    long_errors = b"".join(b"RuntimeError: " + (b"ab(" * 6000) + b"\n" for _ in range(10))
    return [
        one("empty file", b""),
        one("NUL runs", b"\x00" * 64 + CONSOLE.encode() + b"\x00" * 4096 + b"\n" + CONSOLE.encode()),
        one("UTF-8 BOM before an ERROR", b"\xef\xbb\xbf" + PLOG.encode()),
        one("last line without newline", CONSOLE.encode() + CONSOLE.encode().rstrip(b"\n")),
        one("CR-only line ends", CONSOLE.encode().replace(b"\n", b"\r") * 3),
        one("escape sequences in text", b"\x1b]52;c;aGk=\x07\x1b]0;title\x07\x1b[2J" + CONSOLE.encode(), "text"),
        one("GBK bytes", "错误 RuntimeError\n".encode("gbk") + CONSOLE.encode()),
        one("İ before an error", "İİİİ\n".encode() * 100 + CONSOLE.encode()),
        one("ten 18 KB error lines", long_errors),
        one("one 64 KB error line", b"RuntimeError: " + b"x(" * 32000 + b"\n"),
        one("a 100 MB line", b"RuntimeError: " + b"y" * (100 << 20) + b"\n", "text"),
        one("31 February", b"[ERROR] RUNTIME(1,python):2026-02-31-10:00:00.000.100 boom\n"),
    ]


def archive_cases() -> list[Case]:
    def zip_of_zips(d: Path) -> list[str]:
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("big.log", b"\n" * (200 << 20))
        blob = inner.getvalue()
        outer = d / "bomb.zip"
        with zipfile.ZipFile(outer, "w", zipfile.ZIP_STORED) as z:
            for i in range(12):
                z.writestr(f"part{i}.zip", blob)
        return [str(outer)]

    def nested(d: Path) -> list[str]:
        data = CONSOLE.encode()
        name = "x.log"
        for level in range(400):
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w:gz") as tf:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
            data, name = buf.getvalue(), f"n{level}.tar.gz"
        return [str(_write(d / "deep.tar.gz", data))]

    def corrupt_zip(d: Path) -> list[str]:
        p = d / "bad.zip"
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("a.log", CONSOLE * 200)
        raw = bytearray(p.read_bytes())
        raw[60:80] = b"\xff" * 20
        p.write_bytes(bytes(raw))
        return [str(p)]

    def crc(d: Path) -> list[str]:
        p = _tar(d / "crc.tar.gz", [_member("a.log", CONSOLE.encode() * 50)])
        raw = bytearray(p.read_bytes())
        raw[-12] ^= 0xFF  # the gzip trailer's CRC
        p.write_bytes(bytes(raw))
        return [str(p)]

    def odd(d: Path) -> list[str]:
        return [str(_tar(d / "odd.tar.gz", [
            _member("log/a.log", CONSOLE.encode()), _member("log/a.log/inner.log", CONSOLE.encode()),
            _member("log/" + "n" * 300 + ".log", CONSOLE.encode()), _member("log/.", b""),
            _member("log/ok.log", CONSOLE.encode())]))]

    def links(d: Path) -> list[str]:
        return [str(_tar(d / "links.tar.gz", [
            _member("log/real.log", CONSOLE.encode()),
            _member("log/hard.log", kind=tarfile.LNKTYPE, link="log/real.log"),
            _member("log/soft.log", kind=tarfile.SYMTYPE, link="/etc/passwd"),
            _member("../escape.log", CONSOLE.encode())]))]

    return [
        Case("archives", "zip of zips (bomb)", zip_of_zips),
        Case("archives", "400-level nested .tar.gz", nested),
        Case("archives", "zip with corrupt data", corrupt_zip),
        Case("archives", ".tar.gz with a CRC error", crc),
        Case("archives", "odd members", odd),
        Case("archives", "link and traversal members", links),
    ]


def registry_cases() -> list[Case]:
    def with_registry(make: Callable[[Path], Path]) -> Callable[[Path], list[str]]:
        def build(d: Path) -> list[str]:
            log = _write(d / "logs" / "x.log", CONSOLE)
            return [str(log), "--registry", str(make(d))]
        return build

    def duplicates(d: Path) -> Path:
        items = [{"ErrCode": "EZ1001", "ErrMessage": "x %s", "Arglist": "a"} for _ in range(2000)]
        return _write(d / "dup.json", json.dumps({"error_info_list": items}))

    def deep(d: Path) -> Path:
        return _write(d / "deep.json", "[" * 100_000 + "]" * 100_000)

    def wrong(d: Path) -> Path:
        return _write(d / "wrong.json", json.dumps({"error_info_list": "nope"}))

    def fifo(d: Path) -> Path:
        os.mkfifo(d / "reg.json")
        return d / "reg.json"

    def folder(d: Path) -> Path:
        (d / "reg.d").mkdir()
        return d / "reg.d"

    return [
        Case("registry", "2,000 duplicate codes", with_registry(duplicates)),
        Case("registry", "100,000-deep JSON", with_registry(deep)),
        Case("registry", "wrong shape", with_registry(wrong)),
        Case("registry", "a FIFO as registry", with_registry(fifo)),
        Case("registry", "a folder as registry", with_registry(folder)),
    ]


def name_cases() -> list[Case]:
    def escape_name(d: Path) -> list[str]:
        _write(d / "t\x1b]0;pwned\x07.log", CONSOLE)
        return [str(d)]

    def escape_member(d: Path) -> list[str]:
        return [str(_tar(d / "m.tar.gz", [_member("log/\x1b]52;c;aGk=\x07.log", CONSOLE.encode())]))]

    def non_utf8(d: Path) -> list[str]:
        (d / os.fsdecode(b"caf\xe9.log")).write_bytes(CONSOLE.encode())
        return [str(d)]

    out = []
    for fmt in ("text", "markdown", "json"):
        out.append(Case("names", f"escape sequence in a file name ({fmt})", escape_name, fmt=fmt))
        out.append(Case("names", f"escape sequence in an archive member ({fmt})", escape_member, fmt=fmt))
    out.append(Case("names", "non-UTF-8 file name (json)", non_utf8))
    return out


CLASSES = {"paths": paths_cases, "content": content_cases, "archives": archive_cases,
           "registry": registry_cases, "names": name_cases}


# ------------------------------------------------------------------ judging
def _tree_digest(root: Path) -> str:
    """Names, sizes, times and modes of everything under root (find copes with any depth)."""
    out = subprocess.run(["find", str(root), "-printf", r"%P %s %T@ %m %y\n"], capture_output=True).stdout
    return hashlib.sha256(b"\n".join(sorted(out.split(b"\n")))).hexdigest()


def run_case(case: Case, work: Path) -> tuple[bool, str]:
    inputs, child_tmp = work / "in", work / "tmp"
    inputs.mkdir()
    child_tmp.mkdir()
    argv = case.build(inputs)
    before = _tree_digest(inputs)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
    env.update(TMPDIR=str(child_tmp), NPUDIAG_CANN_ROOTS="", PYTHONIOENCODING="utf-8:strict")
    try:
        r = subprocess.run([sys.executable, "-m", "npudiag_tui", *argv, "--report", case.fmt],
                           capture_output=True, timeout=LIMIT_S, env=env, cwd=work)
    except subprocess.TimeoutExpired:
        return False, f"no answer within {LIMIT_S} s"
    err = r.stderr.decode("utf-8", "replace")
    problems = []
    if "Traceback" in err:
        problems.append("traceback: " + err.strip().splitlines()[-1][:160])
    if r.returncode == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        if len(lines) != 1:
            problems.append(f"exit 2 with {len(lines)} stderr lines")
        if r.stdout:
            problems.append("exit 2 but a report on stdout")
        if case.min_inputs:
            problems.append("the files behind a followed link were not read")
    elif r.returncode != 0:
        problems.append(f"exit {r.returncode}")
    elif case.fmt == "json":
        try:
            rep = json.loads(r.stdout.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            problems.append(f"JSON report unreadable ({exc.__class__.__name__})")
        else:
            if len(rep.get("inputs", [])) < case.min_inputs:
                problems.append(f"{len(rep.get('inputs', []))} files read, {case.min_inputs} expected")
            for path, n in (case.lines or {}).items():
                got = {i["path"]: i["lines"] for i in rep.get("inputs", [])}.get(path)
                if got != n:
                    problems.append(f"{path}: {got} lines counted, {n} in the file")
    elif b"\x1b" in r.stdout or b"\x07" in r.stdout:
        problems.append("raw escape byte in the report")
    if len(r.stdout) > 8 << 20:
        problems.append(f"report of {len(r.stdout) >> 20} MB")
    if b"\x1b" in r.stderr or b"\x07" in r.stderr:
        problems.append("raw escape byte on stderr")
    if _tree_digest(inputs) != before:
        problems.append("the input tree changed")
    left = list(child_tmp.iterdir())
    if left:
        problems.append(f"{len(left)} temp entries left behind")
    return not problems, "; ".join(problems) or f"exit {r.returncode}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(CLASSES))
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    total = good = 0
    for cls, make in CLASSES.items():
        if args.only and cls != args.only:
            continue
        for case in make():
            work = Path(tempfile.mkdtemp(prefix="npudiag-hostile-"))
            try:
                ok, why = run_case(case, work)
            except (OSError, RecursionError) as exc:  # the machine cannot build this input
                ok, why = False, f"could not build: {exc}"
            finally:
                subprocess.run(["rm", "-rf", str(work)])  # any depth
            total += 1
            good += ok
            if args.verbose or not ok:
                print(f"{'ok  ' if ok else 'FAIL'} {cls:9s} {case.name}: {why}")
    print(f"hostile inputs: {total} tried, {good} behaved, {total - good} did not")
    return 0 if good == total else 1


if __name__ == "__main__":
    sys.exit(main())
