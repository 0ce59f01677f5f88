"""Command line: parse arguments, then either print a report or open the TUI.

Textual is imported only when the TUI opens, so `--report` starts fast and works headless.
Exit codes: 0 success (error found or not), 2 usage or unreadable input (HELP_EPILOG says so too).
"""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
from importlib import resources

from npudiag_tui import __version__
from npudiag_tui.core.formats.text import visible


def demo_path() -> str:
    return str(resources.files("npudiag_tui") / "demo")


HELP_EPILOG = """\
what it reads:
  CANN host logs (plog), device logs and HCCL/HCCP lines under an ascend/log
  folder (at any depth), the job's console output, single files, and
  .tar.gz/.tgz/.zip bundles. Files that are not CANN logs are read as console
  output. Input files are only read, never changed.

examples:
  npudiag-tui ~/ascend/log --stdout train.log
      a job's log folder and its console output, in the interface
  npudiag-tui logs-from-a-bug-report.tar.gz --report markdown > diagnosis.md
      a bundle attached to a bug report; paste diagnosis.md into the thread
  npudiag-tui "$ASCEND_PROCESS_LOG_PATH" --report json > diagnosis.json
      headless, for CI: the verdict as JSON (schema npudiag-report/1)
  npudiag-tui node0/log node1/log --clock-offset node1/log=-2.5
      two nodes' logs, node1's clock 2.5 s ahead: its lines are placed 2.5 s
      earlier in the panes, the merged view, the diagnosis and the reports

exit codes:
  0    the logs were read, whether or not an error was found
  2    usage error, or no readable input: one line on stderr names the path
       and the reason
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM)

environment:
  ASCEND_PROCESS_LOG_PATH  the default PATH (else $ASCEND_WORK_PATH/log,
                           else ~/ascend/log)
  ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME
                           where an installed CANN's error_code.json is found
  NO_COLOR                 no colour in --report text (colour is used only on
                           a terminal)

error-code registry:
  Built in (every CANN code), then an installed CANN's error_code.json
  (/usr/local/Ascend, $ASCEND_TOOLKIT_HOME, $ASCEND_HOME_PATH), then each
  --registry FILE; the later one wins. A registry file that cannot be used is
  one warning line on stderr (and in the JSON report's problems); the run goes
  on with the rest and exits 0. Every report names the registry it used.

more:
  README.md (keys, reports, many nodes) and docs/architecture.md (the CLI and
  JSON contracts) in the source tree; --report json holds every line in full.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="npudiag-tui",
        description="Find the first causal error in Ascend NPU job logs (plog, device logs, console output).",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="log folders, files or .tar.gz/.tgz/.zip bundles "
                        "(default: $ASCEND_PROCESS_LOG_PATH, else ~/ascend/log)")
    p.add_argument("--stdout", action="append", default=[], metavar="FILE",
                   help="a console log (stdout/stderr of the job); may be repeated")
    p.add_argument("--report", choices=["text", "markdown", "json", "summary"],
                   help="print the diagnosis and exit (summary: one compact per-node JSON object for --cluster)")
    p.add_argument("--node", metavar="NAME", help="the node name in a --report summary (default: host name)")
    p.add_argument("--cluster", action="store_true",
                   help="merge node summaries (PATHs: files or folders of them) into a cluster verdict")
    p.add_argument("--ray", nargs="?", const="auto", default=None, metavar="ADDRESS",
                   help="with --cluster: summarise --logs PATH on every alive node of a Ray cluster "
                        "(default address: $RAY_ADDRESS, else auto)")
    p.add_argument("--logs", metavar="PATH", help="with --ray: the log folder to summarise on every node")
    p.add_argument("--save", metavar="DIR", help="with --ray: also save each node's summary in DIR")
    p.add_argument("--registry", action="append", default=[], metavar="FILE",
                   help="an extra CANN error_code.json; wins over the built-in and installed ones")
    p.add_argument("--clock-offset", action="append", default=[], metavar="PATH=SECONDS",
                   help="move the clock of the logs at or under PATH by SECONDS (e.g. a node whose "
                        "clock ran 2.5 s ahead: PATH=-2.5; ARCHIVE!member for an archive's members); "
                        "may be repeated")
    p.add_argument("--no-follow", action="store_true", help="do not watch the folders for new lines")
    p.add_argument("--demo", action="store_true", help="open the bundled demo log tree")
    p.add_argument("--version", action="version", version=f"npudiag-tui {__version__}")
    return p


def _not_a_file(path: str) -> str:
    """What a path is when it is not a regular file: the message names it rather than
    claiming a directory or a FIFO was "not found"."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device file"), (stat.S_ISBLK, "a device file")):
        if test(mode):
            return name
    return "not a regular file"


def _fail(msg: str) -> int:
    print(f"npudiag-tui: {visible(msg)}", file=sys.stderr)  # messages name paths: formats.text policy
    return 2


class Terminated(BaseException):
    """SIGTERM, raised like Ctrl-C so that `finally` blocks remove the temp folders of archives."""


def _on_sigterm(signum: int, frame: object) -> None:
    if os.getpid() != _MAIN_PID[0]:  # a forked index worker: die as it would have
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated()


_MAIN_PID = [0]


def main(argv: list[str] | None = None) -> int:
    """Run, and turn Ctrl-C and SIGTERM into one line and exit 128+signal (no traceback)."""
    _MAIN_PID[0] = os.getpid()
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (an embedding test harness): leave signals alone
        previous = None
    try:
        return _run(argv)
    except KeyboardInterrupt:
        _fail("interrupted")
        return 128 + signal.SIGINT
    except Terminated:
        _fail("interrupted (SIGTERM)")
        return 128 + signal.SIGTERM
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.cluster or args.ray is not None:
        from npudiag_tui.cluster_cli import run_cluster

        return run_cluster(args)
    from npudiag_tui.core.discover import default_paths

    paths = list(args.paths)
    if args.demo:
        paths = [demo_path()]
    elif not paths and not args.stdout:
        paths = default_paths()
    for reg in args.registry:
        if not os.path.isfile(reg):
            if not os.path.exists(reg):
                return _fail(f"{reg}: registry file not found" + (" (broken symbolic link)" if os.path.islink(reg) else ""))
            return _fail(f"{reg}: {_not_a_file(reg)}, not a registry file (error_code.json)")
    for p in paths:
        if not os.path.lexists(p):
            return _fail(f"{p}: no such file or directory")
        if os.path.islink(p) and not os.path.exists(p):
            return _fail(f"{p}: broken symbolic link")
        if os.path.isdir(p) and not os.access(p, os.R_OK | os.X_OK):
            return _fail(f"{p}: permission denied")
    for s in args.stdout:
        if not os.path.isfile(s):
            return _fail(f"{s}: no such file")
    offsets = []
    for spec in args.clock_offset:
        where, _, secs = spec.rpartition("=")
        try:
            offsets.append((where, float(secs)))
        except ValueError:
            return _fail(f"--clock-offset {spec}: not PATH=SECONDS (for example logs/node1=-2.5)")
        on_disk = where.partition("!")[0] if "!" in where and not os.path.exists(where) else where
        if not on_disk or not os.path.exists(on_disk):  # `ARCHIVE!member` names members of an archive
            return _fail(f"--clock-offset {spec}: {on_disk or 'PATH'}: no such file or directory")
    if args.report:
        return _report(paths, args, offsets)
    ws = open_for_tui(paths, args.stdout, args.registry)
    missed = apply_clock_offsets(ws, offsets)
    if missed:
        ws.close()
        return _fail(missed)
    try:
        from npudiag_tui.tui.app import run_tui
    except ImportError as exc:  # the TUI is optional for headless use
        ws.close()
        return _fail(f"cannot start the interface ({exc}); use --report")
    return run_tui(ws, follow=not args.no_follow)


def open_for_tui(paths: list[str], stdout: list[str], registry: list[str]):
    """Open the workspace and start its index pass in worker processes *before* Textual is
    imported, so the UI's start-up (about half a second) overlaps the pass instead of
    preceding it, and the workers fork from a small single-threaded interpreter."""
    import gc

    from npudiag_tui.core.workspace import Workspace

    # No cyclic garbage collection until the anchored screen is painted (the app then freezes
    # what start-up built and turns it back on): importing and mounting Textual allocates
    # enough to trigger many full collections on the way to the first screen. The index
    # workers fork with it off too; their pass makes no reference cycles.
    gc.disable()
    ws = Workspace.open(list(paths), list(stdout), list(registry))
    ws.start_index(scan_first=True)  # files without hits are counted after the first screen
    _fewer_malloc_arenas()  # the interface's process only: the workers, forked above, read 1 MiB chunks
    return ws


def apply_clock_offsets(ws, offsets: list[tuple[str, float]]) -> str | None:
    """Set each (path, seconds) clock offset (`Workspace.set_clock_offset`); the message for
    a path that holds none of the opened log files, else None."""
    for where, secs in offsets:
        if not ws.set_clock_offset(where, secs):
            return f"--clock-offset {where}={secs:g}: no opened log file at or under {where}"
    return None


def _fewer_malloc_arenas() -> None:
    """glibc gives each thread that allocates its own malloc arena and keeps big freed buffers
    in them (its mmap threshold grows with each one freed): with the app's worker threads that
    held ~20 MB of freed memory at 1 GB (bench/README.md). One arena and a fixed 256 KiB mmap
    threshold (big buffers go back to the system when freed) keep the peak RSS down. Linux
    with glibc only; elsewhere nothing changes."""
    import ctypes
    import ctypes.util

    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(-8, 1)  # M_ARENA_MAX
    mallopt(-3, 256 << 10)  # M_MMAP_THRESHOLD (setting it stops the dynamic growth)


def _report(paths: list[str], args: argparse.Namespace, offsets: list[tuple[str, float]]) -> int:
    from npudiag_tui import report
    from npudiag_tui.core.workspace import Workspace

    ws = Workspace.open(paths, args.stdout, args.registry)
    try:
        missed = apply_clock_offsets(ws, offsets)
        if missed:
            return _fail(missed)
        if not ws.files and ws.problems:
            for p in ws.problems:
                print(f"npudiag-tui: {visible(p)}", file=sys.stderr)
            return 2
        if not ws.files:
            # nothing was read: "No error found" would claim logs were checked
            skipped = ws.discovery.skipped
            why = f" ({len(skipped)} skipped, e.g. {skipped[0][0]}: {skipped[0][1]})" if skipped else ""
            print(f"npudiag-tui: {visible(', '.join(paths))}: no log files found{visible(why)}", file=sys.stderr)
            return 2
        ws.snapshot_index()  # one consistent snapshot of a folder that may still be written
        diag = ws.diagnose()
        for p in ws.problems:
            print(f"npudiag-tui: {visible(p)}", file=sys.stderr)
        if args.report == "summary":
            from npudiag_tui.cluster_report import render_summary

            out = render_summary(ws, diag, args.node, paths + list(args.stdout))
        elif args.report == "json":
            out = report.render_json(ws, diag)
        elif args.report == "markdown":
            out = report.render_markdown(ws, diag)
        else:
            out = report.render_text(ws, diag)
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
        return 0
    finally:
        ws.close()
