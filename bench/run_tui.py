"""Time to the first anchored screen of the TUI, key latency, and peak RSS.

    python bench/run_tui.py TREE [--size 160x45] [--tmux] [--no-settle]

Runs the app in a fresh process, headless or (`--tmux`) in a tmux session, i.e. a real terminal
that receives every frame. The clock starts when this script launches the process (interpreter
start-up included) and the app starts as the CLI does (the index pass begins before Textual
loads); it stops at the first refresh after the diagnosis put the cursor on the anchored line. Then a few keys are pressed through Pilot (which waits for the
app to be idle, so with background merges running it overstates what a person sees: use
`bench/tui_keys.sh TREE` for key latency in a real terminal), and the process's peak RSS
(VmHWM) is printed per indexed line. Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _measure import warm_bytecode  # noqa: E402

CHILD = textwrap.dedent('''
    import asyncio, json, os, sys, time
    # wall clock from the parent's launch (includes interpreter and, with --tmux, tmux start-up)
    t0 = float(os.environ.get("NPDBENCH_T0") or time.time())
    os.environ["TEXTUAL_ANIMATIONS"] = "none"
    from npudiag_tui.cli import open_for_tui
    ws = open_for_tui([sys.argv[1]], [], [])  # as the CLI does: the index starts before Textual loads
    from npudiag_tui.tui.app import NpuDiagApp

    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0

    out = {}

    class TimedApp(NpuDiagApp):
        """Records when the diagnosis has put the cursor on the anchor (no polling loop, which
        would itself compete with the app for the GIL)."""

        CSS_PATH = os.path.join(os.path.dirname(sys.modules[NpuDiagApp.__module__].__file__), "app.tcss")

        def on_diagnosis_ready(self, message):
            # Textual calls the handler of every class in the MRO: NpuDiagApp's runs too, so no
            # super() call here (one made the bench handle each diagnosis twice)
            if "anchored_s" not in out and message.diagnosis is not None and message.diagnosis.anchor is not None:
                self.call_after_refresh(self._anchored)

        def _anchored(self):
            out["anchored_s"] = time.time() - t0
            self.anchored.set()

    w, h = (int(x) for x in sys.argv[2].split("x"))
    app = TimedApp(ws, follow=os.environ.get("NPDBENCH_FOLLOW") == "1")
    app.anchored = asyncio.Event()

    async def auto(pilot):
        try:
            await asyncio.wait_for(app.anchored.wait(), 120)
        except asyncio.TimeoutError:
            pass
        keys = {}
        for k in ("j", "pagedown", "e", "E", "a", "]", "w", "G", "g"):
            s = time.monotonic()
            await pilot.press(k)
            await pilot.pause()
            keys[k] = round((time.monotonic() - s) * 1000, 1)
        out["keys_ms"] = keys
        while sys.argv[3] == "settle" and not app.is_settled() and time.time() - t0 < 300:
            await asyncio.sleep(0.5)
        out["settled_s"] = time.time() - t0
        out["lines"] = sum(i.line_count for i in app.ws.indexes)
        out["hwm"] = hwm()
        app.exit()

    if sys.argv[4] == "-":
        app.run(headless=True, size=(w, h), auto_pilot=auto)
        print(json.dumps(out))
    else:  # in a real terminal (tmux): the driver writes every frame to the tty
        app.run(auto_pilot=auto)
        with open(sys.argv[4], "w") as fh:
            json.dump(out, fh)
''')


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree")
    ap.add_argument("--size", default="160x45")
    ap.add_argument("--follow", action="store_true",
                    help="follow the live end, as `npudiag-tui TREE` does by default (the watcher and "
                         "the live tail start too)")
    ap.add_argument("--tmux", action="store_true",
                    help="run the app in a tmux session (a real terminal) instead of headless")
    ap.add_argument("--no-settle", action="store_true",
                    help="stop after the keys instead of waiting for every background merge (quick; "
                         "the peak RSS is then not the figure)")
    args = ap.parse_args()
    warm_bytecode()
    for _ in range(2):  # warm the page cache like the other runners
        subprocess.run(["cat"] + [os.path.join(r, f) for r, _, fs in os.walk(args.tree) for f in fs],
                       stdout=subprocess.DEVNULL, check=False)
        break
    mode = "quick" if args.no_settle else "settle"
    env = dict(os.environ, NPDBENCH_T0=repr(time.time()), NPDBENCH_FOLLOW="1" if args.follow else "0")
    if args.tmux:
        out_path = os.path.join(tempfile.mkdtemp(prefix="npdbench-"), "out.json")
        w, h = args.size.split("x")
        session = f"npdbench-{os.getpid()}"
        env["NPDBENCH_T0"] = repr(time.time())
        cmd = " ".join(shlex.quote(x) for x in [sys.executable, "-c", CHILD, args.tree, args.size, mode, out_path])
        subprocess.run(["tmux", "new", "-d", "-s", session, "-x", w, "-y", h, cmd], env=env, check=True)
        deadline = time.time() + 400
        while not os.path.exists(out_path) and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(0.3)
        subprocess.run(["tmux", "kill-session", "-t", session], stderr=subprocess.DEVNULL, check=False)
        if not os.path.exists(out_path):
            print("the app did not finish in tmux", file=sys.stderr)
            return 1
        with open(out_path) as fh:
            res = json.load(fh)
    else:
        proc = subprocess.run([sys.executable, "-c", CHILD, args.tree, args.size, mode, "-"],
                              capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], file=sys.stderr)
            return 1
        res = json.loads(proc.stdout.strip().splitlines()[-1])
    lines = max(res["lines"], 1)
    print(f"tree {args.tree}: {lines:,} lines")
    where = "in tmux (a real terminal)" if args.tmux else "headless"
    print(f"first anchored screen, {where}, from launch: {res.get('anchored_s', float('nan')):.2f} s (target < 2 s)")
    print("key latency via Pilot (ms; waits for idle, see tui_keys.sh for a terminal): "
          + ", ".join(f"{k}={v}" for k, v in res["keys_ms"].items()))
    if not args.no_settle:
        print(f"all background work settled: {res['settled_s']:.1f} s")
    print(f"peak RSS: {res['hwm'] / 1e6:.1f} MB = {res['hwm'] / lines:.1f} bytes per indexed line "
          f"(target <= 24 per line plus a fixed base)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
