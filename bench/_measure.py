"""Shared helpers for the bench runners: file lists, cache warming, timed subprocesses.

Every measurement runs in a fresh process; its wall time is taken around the process (or, for
in-process engine work, inside it and reported back as JSON) and its peak RSS comes from the
kernel: `os.wait4` on that one child (ru_maxrss, KiB on Linux) and, for Python children, their own
/proc/self/status VmHWM.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

MB = 1 << 20
GNU_TIME = "/usr/bin/time"
USE_GNU_TIME = os.access(GNU_TIME, os.X_OK) and os.environ.get("NPDBENCH_NO_GNU_TIME") != "1"


def tree_files(tree: str) -> list[str]:
    out = []
    for dp, dns, fns in os.walk(tree):
        dns.sort()
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            if os.path.isfile(p):
                out.append(p)
    return out


def warm_bytecode(src: str | None = None) -> None:
    """Compile the package's bytecode cache, as a user's installed (or once-imported) package has
    it: with PYTHONDONTWRITEBYTECODE set, as on some machines, every launch after an edit would
    otherwise compile the modules again (about 0.25 s of a first screen)."""
    import compileall
    src = src or os.environ.get("NPDBENCH_SRC") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    compileall.compile_dir(src, quiet=2)


def warm(paths: list[str]) -> int:
    """Read every file once so all timed runs see a warm page cache (and the package's bytecode
    cache is current: `warm_bytecode`); returns the bytes read."""
    warm_bytecode()
    total = 0
    for p in paths:
        with open(p, "rb", buffering=0) as fh:
            while True:
                b = fh.read(8 * MB)
                if not b:
                    break
                total += len(b)
    return total


def run_measured(cmd: list[str], stdout_path: str | None = None, stdin_bytes: bytes | None = None,
                 env: dict | None = None) -> dict:
    """Run cmd once; returns wall seconds, peak RSS (bytes) of that child, exit code, stdout text."""
    # ru_maxrss of a child forked from this (Python) process includes our own RSS at exec time,
    # so when GNU time is there it reports the command's peak instead (its own fork is tiny).
    rss_file = None
    full = list(cmd)
    if USE_GNU_TIME:
        fd, rss_file = tempfile.mkstemp(prefix="npdbench-rss-")
        os.close(fd)
        full = [GNU_TIME, "-f", "%M", "-o", rss_file, *cmd]
    try:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            t = time.perf_counter()
            p = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t
            p.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            text = out.read().decode("utf-8", "replace")
            etext = err.read().decode("utf-8", "replace")
        rss = ru.ru_maxrss * 1024
        rss_src = "wait4 (includes the launcher's RSS at exec)"
        if rss_file:
            with open(rss_file) as fh:
                got = [ln for ln in fh.read().split() if ln.isdigit()]
            if got:
                rss = int(got[-1]) * 1024
                rss_src = "GNU time %M"
    finally:
        if rss_file:
            os.unlink(rss_file)
    return {"wall": wall, "rss": rss, "rss_src": rss_src, "rc": p.returncode, "stdout": text, "stderr": etext}


def best_of(n: int, fn) -> tuple[dict, list[dict]]:
    runs = [fn() for _ in range(n)]
    best = min(runs, key=lambda r: r["wall"])
    best = dict(best)
    best["rss_min"] = min(r["rss"] for r in runs)
    best["rss_max"] = max(r["rss"] for r in runs)
    return best, runs


def vm_hwm() -> int:
    """Peak RSS of this process in bytes (VmHWM), 0 when /proc is unavailable."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def vm_rss() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def fmt_mb(n: float) -> str:
    return f"{n / MB:.1f} MB"


def python_child(script: str, args: list[str]) -> list[str]:
    return [sys.executable, script, *args]


def parse_child_json(res: dict) -> dict:
    if res["rc"] != 0:
        raise SystemExit(f"child failed (rc={res['rc']}):\n{res['stderr'][-4000:]}")
    return json.loads(res["stdout"].strip().splitlines()[-1])
